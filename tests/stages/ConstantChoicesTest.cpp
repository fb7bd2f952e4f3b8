// Conditions on a choice among constants (stages/ConstantChoices.h): an
// arg-max's index converted to f32 and back stays in range for every
// input, decided by its leaves; a condition one leaf breaks, or one that
// reads anything outside the choice, is not decided this way.
#include "stages/ConstantChoices.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;
using stages::holdsForEveryConstantChoice;

namespace {

/// select(x0 < x1, select(x1 < x2, 2, 1), select(x0 < x2, 2, 0)): which
/// index wins depends on the data, but it is 0, 1 or 2.
const Expr *argMaxOfThree(Context &C, Type Index) {
  Type F = Type::f32();
  const Expr *X[3];
  for (int K = 0; K < 3; ++K)
    X[K] = C.read("x", F, C.intConst(Type::i(64), K));
  auto Less = [&](const Expr *A, const Expr *B) {
    return C.fcmp(FCmpPredicate::Olt, A, B);
  };
  auto I = [&](int K) { return C.intConst(Index, K); };
  return C.select(Less(X[0], X[1]), C.select(Less(X[1], X[2]), I(2), I(1)),
                  C.select(Less(X[0], X[2]), I(2), I(0)));
}

/// What the TTIR lifter makes fptosi's result defined by: the f32 value
/// lies in (-2^63 - 1, 2^63).
const Expr *castBackInRange(Context &C, const Expr *AsFloat) {
  Type F = AsFloat->type();
  const Expr *Lo = C.floatConst(F, -9223372036854775808.0);
  const Expr *Hi = C.floatConst(F, 9223372036854775808.0);
  return C.andOf(C.fcmp(FCmpPredicate::Oge, AsFloat, Lo),
                 C.fcmp(FCmpPredicate::Olt, AsFloat, Hi));
}

TEST(ConstantChoices, AnArgMaxsIndexCastBackIsInRangeForEveryInput) {
  Context C;
  const Expr *Index = argMaxOfThree(C, Type::i(64));
  const Expr *AsFloat = C.cast(Op::SIToFP, Index, Type::f32());
  EXPECT_TRUE(holdsForEveryConstantChoice(C, castBackInRange(C, AsFloat)));
  // Below 2 holds for two of the three leaves only.
  EXPECT_FALSE(holdsForEveryConstantChoice(
      C, C.icmp(ICmpPredicate::Slt, Index, C.intConst(Type::i(64), 2))));
}

TEST(ConstantChoices, AConditionOnAnythingElseIsNotDecided) {
  Context C;
  const Expr *Index = argMaxOfThree(C, Type::i(32));
  const Expr *N = C.symbol("n", Type::i(32));
  // True for every leaf when n is 3, not for every n: not decided.
  EXPECT_FALSE(holdsForEveryConstantChoice(
      C, C.icmp(ICmpPredicate::Slt, Index, N)));
  // A condition with no choice in it is not this helper's to decide.
  EXPECT_FALSE(holdsForEveryConstantChoice(
      C, C.icmp(ICmpPredicate::Sge, N, C.intConst(Type::i(32), 0))));
  EXPECT_TRUE(holdsForEveryConstantChoice(C, C.trueExpr()));
}

TEST(ConstantChoices, TooManyCombinationsAreNotTried) {
  Context C;
  const Expr *A = argMaxOfThree(C, Type::i(32));
  const Expr *B = C.select(C.symbol("b", Type::boolean()),
                           C.intConst(Type::i(32), 7), C.intConst(Type::i(32), 9));
  const Expr *Sum = C.add(A, B); // 0..2 plus 7 or 9: 6 combinations
  const Expr *Below = C.icmp(ICmpPredicate::Slt, Sum, C.intConst(Type::i(32), 12));
  EXPECT_TRUE(holdsForEveryConstantChoice(C, Below));
  EXPECT_FALSE(holdsForEveryConstantChoice(C, Below, /*MaxCases=*/5));
}

} // namespace

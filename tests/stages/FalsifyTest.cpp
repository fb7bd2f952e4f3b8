// Random testing finds the inputs that break kernels before the solver.
#include "stages/Falsify.h"

#include "ir/Interpreter.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

/// max(a, b) as `a > b ? a : b` against `a >= b ? a : b`, over eight
/// elements: the two differ only when they meet +0 and -0, which ordinary
/// draws never give (the signed-zero trials do).
TEST(Falsify, FindsTheSignOfZeroThatAMaxPicks) {
  Context C;
  Type F = Type::f32();
  auto Max = [&](FCmpPredicate P, const Expr *A, const Expr *B) {
    return C.select(C.fcmp(P, A, B), A, B);
  };
  const Expr *Strict = nullptr, *Loose = nullptr;
  for (int I = 0; I < 8; ++I) {
    const Expr *X = C.read("x", F, C.intConst(Type::i(64), I));
    Strict = Strict ? Max(FCmpPredicate::Ogt, Strict, X) : X;
    Loose = Loose ? Max(FCmpPredicate::Oge, Loose, X) : X;
  }
  const Expr *Differ = C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, Strict, Type::i(32)),
                              C.cast(Op::Bitcast, Loose, Type::i(32)));
  stages::FalsifyOptions O;
  O.Trials = 16; // one round of every kind of trial
  std::optional<Env> Found = stages::falsify(Differ, O);
  ASSERT_TRUE(Found);
  EXPECT_TRUE(Interpreter(*Found).eval(Differ).isTrue());
}

/// A store of elements e < n, for all 0 <= e < 256, that goes wrong for
/// small sizes only (1 <= n <= 8, the sizes a trip-count case allows):
/// an element drawn anywhere in 256 is almost never below such a size, so
/// trials also place it on the first element and the first few.
TEST(Falsify, ReachesAnElementThatASmallSizeStillWrites) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *E = C.symbol("e", I32, SymbolRole::Free);
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *Violation = C.andOf(
      C.icmp(ICmpPredicate::Slt, E, N),
      C.andOf(C.icmp(ICmpPredicate::Sle, N, C.intConst(I32, 8)),
              C.icmp(ICmpPredicate::Sle, C.intConst(I32, 1), N)));
  stages::FalsifyOptions O;
  O.Trials = 32;
  O.Ranges.push_back({E, 256});
  std::optional<Env> Found = stages::falsify(Violation, O);
  ASSERT_TRUE(Found);
  EXPECT_TRUE(Interpreter(*Found).eval(Violation).isTrue());
}

} // namespace

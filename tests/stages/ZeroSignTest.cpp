#include "ir/Interpreter.h"
#include "stages/ZeroSign.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

struct Rows {
  Context C;
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Y = C.symbol("y", Type::f32());

  /// x > y ? x : y (Strict) or x >= y ? x : y, with inductor's NaN test.
  const Expr *max(bool Strict) {
    const Expr *Cmp = C.fcmp(Strict ? FCmpPredicate::Ogt : FCmpPredicate::Oge, X, Y);
    const Expr *IsNaN = C.fcmp(FCmpPredicate::Une, X, X);
    return C.select(C.orOf(Cmp, IsNaN), X, Y);
  }
  const Expr *expOf(const Expr *A, const char *F = "exp") {
    return C.call(F, Type::f32(), std::span(&A, 1));
  }
  /// The bits of fma(x - m, 1/64, 0.5) - 1.5 (libdevice expf's range
  /// reduction reads the bits of such a sum): a zero of x - m is absorbed.
  const Expr *reducedBits(const Expr *M) {
    const Expr *Fma = C.fma(C.floatBinary(Op::FSub, X, M),
                            C.floatConst(Type::f32(), 1.0 / 64),
                            C.floatConst(Type::f32(), 0.5), RoundingMode::Down);
    return C.cast(Op::Bitcast,
                  C.floatBinary(Op::FAdd, Fma, C.floatConst(Type::f32(), -1.5)),
                  Type::i(32));
  }
  const Expr *condition(bool Strict) {
    const Expr *Cmp = C.fcmp(Strict ? FCmpPredicate::Ogt : FCmpPredicate::Oge, X, Y);
    return C.orOf(Cmp, C.fcmp(FCmpPredicate::Une, X, X));
  }
  /// max(x, y) is NaN, with the test moved into the select's arms (as
  /// LLVM's instcombine leaves it): select(c, uno(x, x), uno(y, y)).
  const Expr *maxIsNaN(bool Strict) {
    return C.select(condition(Strict), C.fcmp(FCmpPredicate::Uno, X, X),
                    C.fcmp(FCmpPredicate::Uno, Y, Y));
  }
  /// max(x, y) < 0.5, the same way: select(c, x < 0.5, y < 0.5).
  const Expr *maxBelow(bool Strict) {
    const Expr *Half = C.floatConst(Type::f32(), 0.5);
    return C.select(condition(Strict), C.fcmp(FCmpPredicate::Olt, X, Half),
                    C.fcmp(FCmpPredicate::Olt, Y, Half));
  }
  /// -max(x, y) with the negation moved into the arms.
  const Expr *negatedMax(bool Strict) {
    return C.select(condition(Strict), C.unary(Op::FNeg, X), C.unary(Op::FNeg, Y));
  }
  /// exp(x - m): softmax's numerator.
  const Expr *shifted(const Expr *M, const char *F = "exp") {
    return expOf(C.floatBinary(Op::FSub, X, M), F);
  }
};

TEST(ZeroSign, AMaxThatOnlyReachesExpIsSettledOneWay) {
  Rows R;
  const Expr *A = stages::settleZeroSignChoices(R.C, R.shifted(R.max(true)));
  const Expr *B = stages::settleZeroSignChoices(R.C, R.shifted(R.max(false)));
  EXPECT_EQ(A, B);
  // __nv_expf too: its body ignores the sign (LibdeviceZeroSignTest).
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, R.shifted(R.max(true), "__nv_expf")),
            stages::settleZeroSignChoices(R.C, R.shifted(R.max(false), "__nv_expf")));
}

TEST(ZeroSign, AZeroAddedToANonzeroConstantIsAbsorbed) {
  Rows R;
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, R.reducedBits(R.max(true))),
            stages::settleZeroSignChoices(R.C, R.reducedBits(R.max(false))));
  // Added to a value that may be zero, the sign may survive: -0 + -0 = -0.
  const Expr *Sum = R.C.cast(
      Op::Bitcast, R.C.floatBinary(Op::FAdd, R.max(false), R.Y), Type::i(32));
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, Sum), Sum);
}

TEST(ZeroSign, AComparisonOfAMaxMovedIntoItsArmsIsSettled) {
  Rows R;
  for (auto Of : {&Rows::maxIsNaN, &Rows::maxBelow})
    EXPECT_EQ(stages::settleZeroSignChoices(R.C, (R.*Of)(true)),
              stages::settleZeroSignChoices(R.C, (R.*Of)(false)));
  // exp(-max): the arms are the max's operands negated.
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, R.expOf(R.negatedMax(true))),
            stages::settleZeroSignChoices(R.C, R.expOf(R.negatedMax(false))));
  // Stored as it is, -max(+0, -0) keeps its sign.
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, R.negatedMax(false)),
            R.negatedMax(false));
}

TEST(ZeroSign, AMaxWhoseSignReachesTheValueIsLeftAlone) {
  Rows R;
  // Stored as it is: max(+0, -0) and max(-0, +0) are different bits.
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, R.max(false)), R.max(false));
  // A divisor: 1 / -0 = -inf.
  const Expr *One = R.C.floatConst(Type::f32(), 1.0);
  const Expr *Inverse = R.C.floatBinary(Op::FDiv, One, R.max(false));
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, Inverse), Inverse);
  // A function that keeps the sign (sin(-0) = -0).
  const Expr *Sin = R.shifted(R.max(false), "sin");
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, Sin), Sin);
  // A bitcast sees every bit.
  const Expr *Bits = R.C.cast(Op::Bitcast, R.C.floatBinary(Op::FSub, R.X, R.max(false)),
                              Type::i(32));
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, Bits), Bits);
}

TEST(ZeroSign, ArmsOfOneArityButOtherOperationsAreLeftAlone) {
  // A float select whose arms are a bitcast of an i32 and a conversion of
  // an i64 (a racing shared-memory word against a computed value): the
  // arms are not one operation, and asking whether they are must not build
  // a bitcast of the i64.
  Rows R;
  const Expr *Word = R.C.symbol("word", Type::i(32));
  const Expr *Wide = R.C.symbol("wide", Type::i(64));
  const Expr *Picked =
      R.C.select(R.C.fcmp(FCmpPredicate::Ogt, R.X, R.Y),
                 R.C.cast(Op::Bitcast, Word, Type::f32()),
                 R.C.cast(Op::SIToFP, Wide, Type::f32(), RoundingMode::NearestEven));
  const Expr *Root = R.shifted(Picked);
  EXPECT_EQ(stages::settleZeroSignChoices(R.C, Root), Root);
}

TEST(ZeroSign, SettledValueIsTheSameBitForBit) {
  // The pass is sound only if the settled root equals the original for
  // every input. The solver does not finish on even these small roots (the
  // two subtractions' circuits), so they are compared on every pair of
  // special and ordinary values, signed zeros first.
  Rows R;
  const Expr *Zero = R.C.floatConst(Type::f32(), 0.0);
  const Expr *Clamp = R.C.select(R.C.fcmp(FCmpPredicate::Ole, R.X, Zero), Zero, R.X);
  const double Inf = std::numeric_limits<double>::infinity();
  const double Values[] = {0.0,  -0.0, 1.0,  -1.0, 1e-40, -1e-40, 2.5,  -3.75,
                           Inf,  -Inf, NAN,  1e38, -1e38, 0.5,    -0.5, 7.0};
  unsigned Compared = 0;
  for (bool Strict : {true, false})
    for (const Expr *Root :
         {R.shifted(R.max(Strict)), R.C.fcmp(FCmpPredicate::Olt, R.max(Strict), Zero),
          R.C.floatBinary(Op::FAdd, R.expOf(Clamp, "ex2.approx.ftz"), R.max(Strict)),
          R.C.floatBinary(Op::FAdd, R.max(Strict), R.Y),
          R.C.floatBinary(Op::FMul, R.shifted(R.max(Strict), "__nv_expf"), R.Y),
          R.reducedBits(R.max(Strict)),
          R.maxIsNaN(Strict), R.maxBelow(Strict),
          R.expOf(R.negatedMax(Strict)),
          R.C.cast(Op::Bitcast, R.C.floatBinary(Op::FAdd, R.max(Strict), R.Y),
                   Type::i(32))}) {
      const Expr *Settled = stages::settleZeroSignChoices(R.C, Root);
      for (double X : Values)
        for (double Y : Values) {
          Env E;
          E.setSymbol("x", Value::ofDouble(Type::f32(), X));
          E.setSymbol("y", Value::ofDouble(Type::f32(), Y));
          Interpreter I(E);
          EXPECT_TRUE(I.eval(Root).sameAs(I.eval(Settled)))
              << "x = " << X << ", y = " << Y;
          ++Compared;
        }
    }
  EXPECT_EQ(Compared, 2u * 10 * 16 * 16);
}

} // namespace

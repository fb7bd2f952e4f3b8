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
          R.C.floatBinary(Op::FMul, R.shifted(R.max(Strict), "__nv_expf"), R.Y)}) {
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
  EXPECT_EQ(Compared, 2u * 5 * 16 * 16);
}

} // namespace

// A select's arms read under its condition (stages/SelectArms.h): the two
// spellings of libdevice's overflow arm become one node, a zero's equality
// fixes nothing, and the rewrite keeps every value (all inputs at small
// widths).
#include "stages/SelectArms.h"

#include "ir/Interpreter.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace stagecheck;
using namespace stagecheck::ir;
using stages::withArmsUnderTheirConditions;

namespace {

// expm1f scales by 2^(j-1) and, where its overflow test `j == 128` takes
// that arm, the optimized body computes 2^127 instead.
TEST(SelectArms, TheOverflowArmOfExpm1IsOneNode) {
  Context C;
  Type F = Type::f32();
  const Expr *J = C.symbol("j", F), *Small = C.symbol("small", Type::boolean());
  const Expr *P = C.symbol("p", F);
  auto Ex2 = [&](const Expr *A) {
    const Expr *Args[] = {A};
    return C.call("ex2.approx.ftz", F, Args);
  };
  auto Scaled = [&](const Expr *Power) {
    return C.binary(Op::FAdd, C.binary(Op::FMul, Ex2(Power), P), P);
  };
  // !small && j == 128, as instcombine spells an and: select(small, false, _).
  const Expr *Overflow = C.select(Small, C.falseExpr(),
                                  C.fcmp(FCmpPredicate::Oeq, J,
                                         C.floatConst(F, 128.0)));
  const Expr *JMinusOne = C.select(Small, C.floatConst(F, -1.0),
                                   C.binary(Op::FAdd, J, C.floatConst(F, -1.0)));
  const Expr *Other = C.symbol("other", F);
  const Expr *Libdevice = C.select(Overflow, Scaled(JMinusOne), Other);
  const Expr *Optimized =
      C.select(Overflow, Scaled(C.floatConst(F, 127.0)), Other);
  ASSERT_NE(Libdevice, Optimized);
  EXPECT_EQ(withArmsUnderTheirConditions(C, Libdevice),
            withArmsUnderTheirConditions(C, Optimized))
      << printExpr(withArmsUnderTheirConditions(C, Libdevice));
  // Another power in the optimized arm stays another node.
  const Expr *Wrong = C.select(Overflow, Scaled(C.floatConst(F, 126.0)), Other);
  EXPECT_NE(withArmsUnderTheirConditions(C, Libdevice),
            withArmsUnderTheirConditions(C, Wrong));
}

// x == 0.0 holds for both zeros, so it does not make x the constant.
TEST(SelectArms, AZeroComparedEqualFixesNothing) {
  Context C;
  Type F = Type::f32();
  const Expr *X = C.symbol("x", F);
  const Expr *Zero = C.floatConst(F, 0.0);
  const Expr *E = C.select(C.fcmp(FCmpPredicate::Oeq, X, Zero),
                           C.binary(Op::FSub, Zero, X), C.symbol("y", F));
  const Expr *R = withArmsUnderTheirConditions(C, E);
  EXPECT_EQ(R, E);
  Env At;
  At.setSymbol("x", Value::ofDouble(F, -0.0));
  At.setSymbol("y", Value::ofDouble(F, 1.0));
  // 0 - (-0) is +0: x made the constant +0 would give 0 - 0 = +0 too, but
  // made -0 (the other zero it equals) would not be x's arm.
  EXPECT_EQ(Interpreter(At).eval(R).Bits, Interpreter(At).eval(E).Bits);
  EXPECT_EQ(Interpreter(At).eval(R).Bits, 0u);
}

// Every input of 4-bit x and y and two booleans: nested selects on
// equalities, their negations, ands and ors keep their values.
TEST(SelectArms, EveryValueIsKept) {
  Context C;
  Type T = Type::i(4);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T);
  const Expr *A = C.symbol("a", Type::boolean()), *B = C.symbol("b", Type::boolean());
  auto K = [&](int64_t V) { return C.intConst(T, V); };
  const Expr *XIs3 = C.eq(X, K(3)), *YNot5 = C.icmp(ICmpPredicate::Ne, Y, K(5));
  std::vector<const Expr *> Cases = {
      C.select(XIs3, C.add(X, Y), C.sub(X, Y)),
      C.select(C.andOf(XIs3, A), C.mul(X, X), Y),
      C.select(C.orOf(YNot5, B), X, C.add(Y, K(1))),
      C.select(C.notOf(YNot5), C.select(XIs3, C.add(X, Y), X), C.mul(Y, X)),
      C.select(C.select(A, C.falseExpr(), XIs3), C.add(X, K(1)),
               C.select(C.select(B, YNot5, C.trueExpr()), Y, C.mul(Y, K(2)))),
      C.select(C.select(A, C.trueExpr(), C.notOf(XIs3)), Y,
               C.select(XIs3, C.mul(X, Y), K(0))),
  };
  unsigned Changed = 0;
  for (const Expr *E : Cases) {
    const Expr *R = withArmsUnderTheirConditions(C, E);
    Changed += R != E;
    for (uint64_t XV = 0; XV < 16; ++XV)
      for (uint64_t YV = 0; YV < 16; ++YV)
        for (uint64_t AV = 0; AV < 2; ++AV)
          for (uint64_t BV = 0; BV < 2; ++BV) {
            Env In;
            In.setSymbol("x", Value::ofBits(T, XV));
            In.setSymbol("y", Value::ofBits(T, YV));
            In.setSymbol("a", Value::ofBits(Type::boolean(), AV));
            In.setSymbol("b", Value::ofBits(Type::boolean(), BV));
            Interpreter I(In);
            ASSERT_EQ(I.eval(E).Bits, I.eval(R).Bits)
                << printExpr(E) << "\nrewritten\n" << printExpr(R) << "\nx = "
                << XV << " y = " << YV << " a = " << AV << " b = " << BV;
          }
  }
  // The facts were used, not only kept: most cases are rewritten.
  EXPECT_GE(Changed, 5u);
}

} // namespace

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

} // namespace

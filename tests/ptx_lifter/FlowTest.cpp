// Control flow: branch diamonds merged by path condition, predicated
// returns, loops unrolled while their exit folds and to a stated bound
// otherwise, barriers under uniform guards.

#include "TestUtil.h"

#include "ir/Errors.h"

#include <gtest/gtest.h>

using namespace stagecheck::ir;
using namespace stagecheck::ptx;
using namespace stagecheck::ptx::test;

namespace {

const std::string Params = "ld.param.b32 %r1, [k_param_1];\n"
                           "ld.param.b64 %rd1, [k_param_0];\n";

Env withN(int64_t N) {
  Env E;
  E.setSymbol("arg1", i32(N));
  return E;
}

TEST(PtxFlow, DiamondMergesByPathCondition) {
  Context C;
  PtxLift L = lift(C,
                   Params + "setp.lt.s32 %p1, %r1, 0;\n"
                            "@%p1 bra $NEG;\n"
                            "mov.u32 %r2, 10;\n"
                            "bra.uni $JOIN;\n"
                            "$NEG:\n"
                            "mov.u32 %r2, 20;\n"
                            "$JOIN:\n"
                            "st.global.b32 [%rd1], %r2;\n"
                            "ret;",
                   Type::i(32), {Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 1u);
  const Write &W = L.Thread.Effects.Writes[0];
  // Both paths reach the store: its guard is true again after the join.
  EXPECT_TRUE(W.Guard->isTrue());
  EXPECT_EQ(eval(W.Value, withN(-5)).Bits, 20u);
  EXPECT_EQ(eval(W.Value, withN(5)).Bits, 10u);
  EXPECT_TRUE(L.Thread.Bounds.empty());
}

TEST(PtxFlow, EffectsInABranchCarryItsCondition) {
  Context C;
  PtxLift L = lift(C,
                   Params + "setp.lt.s32 %p1, %r1, 0;\n"
                            "@%p1 bra $SKIP;\n"
                            "st.global.b32 [%rd1], 1;\n"
                            "$SKIP:\n"
                            "@%p1 ret;\n"
                            "st.global.b32 [%rd1+4], 2;\n"
                            "ret;",
                   Type::i(32), {Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 2u);
  for (const Write &W : L.Thread.Effects.Writes) {
    EXPECT_TRUE(eval(W.Guard, withN(3)).isTrue());
    EXPECT_FALSE(eval(W.Guard, withN(-3)).isTrue());
  }
  EXPECT_EQ(eval(L.Thread.Effects.Writes[1].Index, withN(3)).Bits, 1u);
}

const std::string SumLoop = "mov.u32 %r2, 0;\n"
                            "mov.u32 %r3, 0;\n"
                            "$LOOP:\n"
                            "add.s32 %r2, %r2, %r3;\n"
                            "add.s32 %r3, %r3, 1;\n"
                            "setp.lt.u32 %p1, %r3, 10;\n"
                            "@%p1 bra $LOOP;\n";

TEST(PtxFlow, ConstantTripLoopUnrollsExactly) {
  Context C;
  PtxLift L = lift(C, Params + SumLoop + "st.global.b32 [%rd1], %r2;\nret;",
                   Type::i(32), {Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 1u);
  const Expr *V = L.Thread.Effects.Writes[0].Value;
  ASSERT_TRUE(V->isConst());
  EXPECT_EQ(V->constBits(), 45u);
  EXPECT_TRUE(L.Thread.Bounds.empty());

  // Behind a symbolic guard the loop still folds: its exit is decided
  // relative to the condition it was entered on.
  PtxLift G = lift(C,
                   Params + "setp.lt.s32 %p2, %r1, 0;\n@%p2 bra $OUT;\n" +
                       SumLoop + "st.global.b32 [%rd1], %r2;\n$OUT:\nret;",
                   Type::i(32), {Type::i(32)});
  ASSERT_EQ(G.Thread.Effects.Writes.size(), 1u);
  EXPECT_TRUE(G.Thread.Bounds.empty());
  EXPECT_EQ(G.Thread.Effects.Writes[0].Value->constBits(), 45u);
  EXPECT_TRUE(eval(G.Thread.Effects.Writes[0].Guard, withN(1)).isTrue());
  EXPECT_FALSE(eval(G.Thread.Effects.Writes[0].Guard, withN(-1)).isTrue());
}

TEST(PtxFlow, StoresInAConstantLoop) {
  Context C;
  PtxLift L = lift(C,
                   Params + "mov.u32 %r3, 0;\n"
                            "$LOOP:\n"
                            "mul.wide.u32 %rd2, %r3, 4;\n"
                            "add.s64 %rd3, %rd1, %rd2;\n"
                            "st.global.b32 [%rd3], %r3;\n"
                            "add.s32 %r3, %r3, 1;\n"
                            "setp.ne.s32 %p1, %r3, 3;\n"
                            "@%p1 bra $LOOP;\nret;",
                   Type::i(32), {Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 3u);
  for (unsigned K = 0; K < 3; ++K) {
    const Write &W = L.Thread.Effects.Writes[K];
    EXPECT_TRUE(W.Guard->isTrue());
    EXPECT_EQ(eval(W.Index).Bits, K);
    EXPECT_EQ(eval(W.Value).Bits, K);
  }
}

const std::string SymbolicLoop = "mov.u32 %r2, 0;\n"
                                 "mov.u32 %r3, 0;\n"
                                 "setp.lt.s32 %p2, %r1, 1;\n"
                                 "@%p2 bra $END;\n"
                                 "$LOOP:\n"
                                 "add.s32 %r2, %r2, %r3;\n"
                                 "add.s32 %r3, %r3, 1;\n"
                                 "setp.lt.s32 %p1, %r3, %r1;\n"
                                 "@%p1 bra $LOOP;\n"
                                 "$END:\n"
                                 "st.global.b32 [%rd1], %r2;\nret;";

bool assumptionsHold(const ThreadEffects &T, const Env &E) {
  for (const Expr *A : T.Assumptions) {
    Env Full = E;
    Full.setSymbol("tid.x", i32(0));
    if (!eval(A, Full).isTrue())
      return false;
  }
  return true;
}

TEST(PtxFlow, SymbolicLoopUnrollsToItsBound) {
  Context C;
  PtxLift L = lift(C, Params + SymbolicLoop, Type::i(32), {Type::i(32)});
  const ThreadEffects &T = L.Thread;
  ASSERT_EQ(T.Bounds.size(), 1u);
  // The back edge is the 11th line of the body (line 25 of the file).
  EXPECT_EQ(T.Bounds[0], "loop at k.ptx:25: at most 4 iterations");
  ASSERT_EQ(T.Effects.Writes.size(), 1u);
  const Write &W = T.Effects.Writes[0];
  // Every path that leaves the loop (or skips it) reaches the store.
  EXPECT_TRUE(W.Guard->isTrue());
  for (int64_t N : {-2, 0, 1, 2, 3, 4}) {
    EXPECT_EQ(eval(W.Value, withN(N)).Bits,
              uint64_t(N > 0 ? N * (N - 1) / 2 : 0))
        << N;
    EXPECT_TRUE(assumptionsHold(T, withN(N))) << N;
  }
  // Five iterations are beyond the bound: the lift says so.
  EXPECT_FALSE(assumptionsHold(T, withN(5)));

  PtxLiftOptions Two;
  Two.LoopBound = 2;
  PtxLift L2 = lift(C, Params + SymbolicLoop, Type::i(32), {Type::i(32)}, Two);
  ASSERT_EQ(L2.Thread.Bounds.size(), 1u);
  EXPECT_EQ(L2.Thread.Bounds[0], "loop at k.ptx:25: at most 2 iterations");
  EXPECT_TRUE(assumptionsHold(L2.Thread, withN(2)));
  EXPECT_FALSE(assumptionsHold(L2.Thread, withN(3)));
  EXPECT_EQ(eval(L2.Thread.Effects.Writes[0].Value, withN(2)).Bits, 1u);
}

TEST(PtxFlow, ConstantLoopPastMaxUnrollIsUnsupported) {
  Context C;
  PtxLiftOptions O;
  O.MaxUnroll = 5;
  try {
    lift(C, Params + SumLoop + "ret;", Type::i(32), {Type::i(32)}, O);
    FAIL() << "no error";
  } catch (const UnsupportedError &E) {
    EXPECT_EQ(E.What, "loop runs more than 5 iterations");
    EXPECT_EQ(E.Where.Line, 23u);
  }
}

TEST(PtxFlow, BarriersNeedAUniformGuard) {
  Context C;
  // A barrier in a loop over a parameter's range: uniform.
  PtxLift L = lift(C,
                   Params + "mov.u32 %r3, 0;\n"
                            "$LOOP:\n"
                            "bar.sync 0;\n"
                            "add.s32 %r3, %r3, 1;\n"
                            "setp.lt.s32 %p1, %r3, %r1;\n"
                            "@%p1 bra $LOOP;\n"
                            "st.global.b32 [%rd1], %r3;\nret;",
                   Type::i(32), {Type::i(32)});
  EXPECT_EQ(L.Thread.Phases, 4u);
  ASSERT_EQ(L.Thread.Exchanges.size(), 4u);
  EXPECT_EQ(L.Thread.Exchanges[0].Kind, "barrier");
  EXPECT_TRUE(L.Thread.Exchanges[0].Guard->isTrue());
  EXPECT_FALSE(L.Thread.Exchanges[1].Guard->isTrue());
  // A barrier only some threads reach.
  EXPECT_THROW(lift(C,
                    Params + "mov.u32 %r2, %tid.x;\n"
                             "setp.lt.u32 %p1, %r2, 32;\n"
                             "@%p1 bra $SKIP;\n"
                             "bar.sync 0;\n"
                             "$SKIP:\nret;",
                    Type::i(32), {Type::i(32)}),
               UnsupportedError);
  // bar.sync with the CTA's thread count is a CTA barrier; with fewer not.
  EXPECT_NO_THROW(lift(C, "bar.sync 0, 128;\nret;", Type::i(32)));
  EXPECT_THROW(lift(C, "bar.sync 1, 64;\nret;", Type::i(32)), UnsupportedError);
}

// Triton's tt.assert as NVPTX lowers it: the failing way calls
// __assertfail and traps, and a barrier follows the check.
// With Branch "@%p1 bra $OK;\nbra.uni $FAIL;\n" (NVPTX's form) or one
// branching into the failure ("@!%p1 bra $FAIL;\n"); Callee and
// BeforeTrap vary the failing block.
std::string assertion(const std::string &BeforeTrap,
                      const std::string &Branch = "@%p1 bra $OK;\n"
                                                  "bra.uni $FAIL;\n",
                      const std::string &Callee = "__assertfail",
                      const std::string &End = "trap") {
  return Params + "mov.u32 %r2, %tid.x;\n"
                  "setp.lt.s32 %p1, %r2, %r1;\n" +
         Branch +
         "$OK:\n"
         "bar.sync 0;\n"
         "st.global.b32 [%rd1], %r2;\n"
         "ret;\n"
         "$FAIL:\n"
         "{ // callseq 0, 0\n"
         ".param .b64 param0;\n"
         ".param .b32 param1;\n"
         "mov.b64 %rd2, 0;\n"
         "cvta.global.u64 %rd3, %rd2;\n"
         "st.param.b64 [param0], %rd3;\n"
         "st.param.b32 [param1], 34;\n"
         "call.uni " +
         Callee +
         ", (param0, param1);\n"
         "} // callseq 0\n" +
         BeforeTrap + End + ";\n";
}

TEST(PtxFlow, AFailedAssertionIsUndefinedAndTheBarrierBehindItIsReached) {
  Context C;
  PtxLift L = lift(C, assertion(""), Type::i(32), {Type::i(32)});
  // The failing way is undefined where tid >= n ...
  ASSERT_EQ(L.Thread.Effects.Undefined.size(), 1u);
  const UndefinedBehavior &U = L.Thread.Effects.Undefined[0];
  EXPECT_NE(U.Reason.find("device assertion failed"), std::string::npos);
  Env Failing = withN(0), Passing = withN(1000);
  Failing.setSymbol("tid.x", i32(5));
  Passing.setSymbol("tid.x", i32(5));
  EXPECT_TRUE(eval(U.Condition, Failing).isTrue());
  EXPECT_FALSE(eval(U.Condition, Passing).isTrue());
  // ... so the way on holds wherever the thread is defined: the barrier is
  // every thread's, and the store is not guarded by the check.
  ASSERT_EQ(L.Thread.Exchanges.size(), 1u);
  EXPECT_TRUE(L.Thread.Exchanges[0].Guard->isTrue());
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 1u);
  EXPECT_TRUE(L.Thread.Effects.Writes[0].Guard->isTrue());
}

// llc lowers the `unreachable` after __assertfail to `exit` (Triton's own
// PTX traps): the same dead end.
TEST(PtxFlow, AnAssertionThatExitsIsUndefinedToo) {
  Context C;
  PtxLift L = lift(C,
                   assertion("", "@%p1 bra $OK;\nbra.uni $FAIL;\n",
                             "__assertfail", "exit"),
                   Type::i(32), {Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Undefined.size(), 1u);
  EXPECT_NE(L.Thread.Effects.Undefined[0].Reason.find("then exit"),
            std::string::npos);
  ASSERT_EQ(L.Thread.Exchanges.size(), 1u);
  EXPECT_TRUE(L.Thread.Exchanges[0].Guard->isTrue());
}

TEST(PtxFlow, ABranchIntoAFailedAssertionLeavesTheOtherWayWhole) {
  Context C;
  PtxLift L = lift(C, assertion("", "@!%p1 bra $FAIL;\n"), Type::i(32),
                   {Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Undefined.size(), 1u);
  Env Failing = withN(0);
  Failing.setSymbol("tid.x", i32(5));
  EXPECT_TRUE(eval(L.Thread.Effects.Undefined[0].Condition, Failing).isTrue());
  ASSERT_EQ(L.Thread.Exchanges.size(), 1u);
  EXPECT_TRUE(L.Thread.Exchanges[0].Guard->isTrue());
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 1u);
  EXPECT_TRUE(L.Thread.Effects.Writes[0].Guard->isTrue());
}

TEST(PtxFlow, OnlyAnAssertionsCallIsADeadEnd) {
  Context C;
  // A call of any other function before the trap is not an assertion.
  EXPECT_THROW(lift(C, assertion("", "@%p1 bra $OK;\nbra.uni $FAIL;\n",
                                 "vprintf"),
                    Type::i(32), {Type::i(32)}),
               UnsupportedError);
}

TEST(PtxFlow, AStoreBeforeTheTrapIsNotAnAssertion) {
  Context C;
  // A store before the trap: not the assertion's shape, so trap is met as
  // an instruction, and the barrier only some threads reach stays refused.
  EXPECT_THROW(lift(C, assertion("st.global.b32 [%rd1], 7;\n"), Type::i(32),
                    {Type::i(32)}),
               UnsupportedError);
}

TEST(PtxFlow, MalformedBranches) {
  Context C;
  EXPECT_THROW(lift(C, "bra $NOWHERE;\nret;", Type::i(32)), InputError);
  EXPECT_THROW(lift(C, "$A:\n$A:\nret;", Type::i(32)), InputError);
}

} // namespace

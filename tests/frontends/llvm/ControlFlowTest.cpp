// Branches, phis and loops: path conditions, unrolling and stated bounds.
#include "LlvmTestUtil.h"

#include "ir/Errors.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;
using namespace stagecheck::llvmir;
using namespace stagecheck::llvmir::test;

namespace {

const Type I32 = Type::i(32);

bool holds(const std::vector<const Expr *> &Assumptions, const Env &E) {
  for (const Expr *A : Assumptions)
    if (!eval(A, E).isTrue())
      return false;
  return true;
}

TEST(LlvmControlFlow, PhiOverADiamond) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  %c = icmp slt i32 %a, 0\n"
                           "  br i1 %c, label %neg, label %pos\n"
                           "neg:\n"
                           "  %n = sub i32 0, %a\n"
                           "  br label %join\n"
                           "pos:\n"
                           "  %p = mul i32 %a, 2\n"
                           "  br label %join\n"
                           "join:\n"
                           "  %r = phi i32 [ %n, %neg ], [ %p, %pos ]\n"
                           "  store i32 %r, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  // The join runs whenever the entry does.
  EXPECT_TRUE(W.Guard->isTrue());
  Env E;
  E.setSymbol("arg1", i32(-5));
  EXPECT_EQ(eval(W.Value, E).asSigned(), 5);
  E.setSymbol("arg1", i32(5));
  EXPECT_EQ(eval(W.Value, E).asSigned(), 10);
  EXPECT_TRUE(L.Thread.Bounds.empty());
}

TEST(LlvmControlFlow, StoresInABranchAreGuardedByIt) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  %c = icmp eq i32 %a, 3\n"
                           "  br i1 %c, label %then, label %done\n"
                           "then:\n"
                           "  store i32 %a, ptr addrspace(1) %out\n"
                           "  br label %done\n"
                           "done:\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", i32(3));
  EXPECT_TRUE(eval(W.Guard, E).isTrue());
  E.setSymbol("arg1", i32(4));
  EXPECT_FALSE(eval(W.Guard, E).isTrue());
}

TEST(LlvmControlFlow, BranchOnPoisonIsUndefined) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  %s = shl i32 1, %a\n"
                           "  %c = icmp eq i32 %s, 8\n"
                           "  br i1 %c, label %then, label %done\n"
                           "then:\n"
                           "  store i32 %a, ptr addrspace(1) %out\n"
                           "  br label %done\n"
                           "done:\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  ASSERT_EQ(L.Thread.Effects.Undefined.size(), 1u);
  const UndefinedBehavior &U = L.Thread.Effects.Undefined[0];
  EXPECT_EQ(U.Reason, "branch on poison");
  Env E;
  E.setSymbol("arg1", i32(40));
  EXPECT_TRUE(eval(U.Condition, E).isTrue());
  E.setSymbol("arg1", i32(3));
  EXPECT_FALSE(eval(U.Condition, E).isTrue());
  EXPECT_EQ(L.UndefinedLines, std::vector<unsigned>{6});
}

TEST(LlvmControlFlow, ConstantTripLoopIsUnrolledExactly) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  br label %loop\n"
                           "loop:\n"
                           "  %i = phi i32 [ 0, %0 ], [ %i1, %loop ]\n"
                           "  %acc = phi i32 [ 0, %0 ], [ %acc1, %loop ]\n"
                           "  %t = mul i32 %i, %a\n"
                           "  %acc1 = add i32 %acc, %t\n"
                           "  %i1 = add i32 %i, 1\n"
                           "  %more = icmp slt i32 %i1, 10\n"
                           "  br i1 %more, label %loop, label %exit\n"
                           "exit:\n"
                           "  store i32 %acc1, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  EXPECT_TRUE(L.Thread.Bounds.empty());
  const Write &W = onlyWrite(L);
  EXPECT_TRUE(W.Guard->isTrue());
  Env E;
  E.setSymbol("arg1", i32(2));
  EXPECT_EQ(eval(W.Value, E).asSigned(), 90); // 2 * (0 + ... + 9)
}

TEST(LlvmControlFlow, SymbolicLoopIsUnrolledToItsStatedBound) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %n",
                           "  %go = icmp sgt i32 %n, 0\n"
                           "  br i1 %go, label %loop, label %exit\n"
                           "loop:\n"
                           "  %i = phi i32 [ 0, %0 ], [ %i1, %loop ]\n"
                           "  %acc = phi i32 [ 0, %0 ], [ %acc1, %loop ]\n"
                           "  %acc1 = add i32 %acc, %i\n"
                           "  %i1 = add i32 %i, 1\n"
                           "  %more = icmp slt i32 %i1, %n\n"
                           "  br i1 %more, label %loop, label %exit\n"
                           "exit:\n"
                           "  %r = phi i32 [ 0, %0 ], [ %acc1, %loop ]\n"
                           "  store i32 %r, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  ASSERT_EQ(L.Thread.Bounds.size(), 1u);
  EXPECT_EQ(L.Thread.Bounds[0], "loop at test.ll:12: at most 4 iterations");
  const Write &W = onlyWrite(L);
  for (int N : {0, 1, 3, 4}) {
    Env E;
    E.setSymbol("arg1", i32(N));
    EXPECT_TRUE(holds(L.Thread.Assumptions, E)) << N;
    EXPECT_EQ(eval(W.Value, E).asSigned(), N * (N - 1) / 2) << N;
  }
  Env E;
  E.setSymbol("arg1", i32(5));
  EXPECT_FALSE(holds(L.Thread.Assumptions, E)); // past the bound
}

TEST(LlvmControlFlow, LoopBoundOptionIsTheBound) {
  Context C;
  LlvmLiftOptions O;
  O.LoopBound = 2;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %n",
                           "  br label %loop\n"
                           "loop:\n"
                           "  %i = phi i32 [ 0, %0 ], [ %i1, %loop ]\n"
                           "  %i1 = add i32 %i, 1\n"
                           "  %more = icmp slt i32 %i1, %n\n"
                           "  br i1 %more, label %loop, label %exit\n"
                           "exit:\n"
                           "  store i32 %i1, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}}, O);
  ASSERT_EQ(L.Thread.Bounds.size(), 1u);
  EXPECT_NE(L.Thread.Bounds[0].find("at most 2 iterations"), std::string::npos);
  // A value used after the loop without a phi is its last iteration's.
  for (int N : {1, 2}) {
    Env E;
    E.setSymbol("arg1", i32(N));
    EXPECT_EQ(eval(onlyWrite(L).Value, E).asSigned(), N);
  }
}

TEST(LlvmControlFlow, LoopPastMaxUnrollIsUnsupported) {
  Context C;
  LlvmLiftOptions O;
  O.MaxUnroll = 8;
  std::string Text = kernel("ptr addrspace(1) %out",
                            "  br label %loop\n"
                            "loop:\n"
                            "  %i = phi i32 [ 0, %0 ], [ %i1, %loop ]\n"
                            "  %i1 = add i32 %i, 1\n"
                            "  %more = icmp slt i32 %i1, 100\n"
                            "  br i1 %more, label %loop, label %exit\n"
                            "exit:\n"
                            "  ret void\n");
  EXPECT_THROW(lift(C, Text, {{true, I32}}, O), UnsupportedError);
}

TEST(LlvmControlFlow, BarrierInAUniformLoopIsAccepted) {
  Context C;
  LlvmLift L =
      lift(C,
           kernel("ptr addrspace(1) %out, i32 %n",
                  "  br label %loop\n"
                  "loop:\n"
                  "  %i = phi i32 [ 0, %0 ], [ %i1, %loop ]\n"
                  "  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n"
                  "  %i1 = add i32 %i, 1\n"
                  "  %more = icmp slt i32 %i1, %n\n"
                  "  br i1 %more, label %loop, label %exit\n"
                  "exit:\n"
                  "  ret void\n"),
           {{true, I32}, {false, I32}});
  EXPECT_EQ(L.Thread.Phases, 4u);
  ASSERT_EQ(L.Thread.Exchanges.size(), 4u);
  EXPECT_TRUE(L.Thread.Exchanges[0].Guard->isTrue());
  EXPECT_FALSE(L.Thread.Exchanges[1].Guard->isTrue());
  EXPECT_EQ(L.ExchangeLines, (std::vector<unsigned>{7, 7, 7, 7}));
}

TEST(LlvmControlFlow, BarrierSomeThreadsSkipIsUnsupported) {
  Context C;
  std::string Text =
      kernel("ptr addrspace(1) %out",
             "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
             "  %c = icmp eq i32 %t, 0\n"
             "  br i1 %c, label %then, label %done\n"
             "then:\n"
             "  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n"
             "  br label %done\n"
             "done:\n"
             "  ret void\n");
  EXPECT_THROW(lift(C, Text, {{true, I32}}), UnsupportedError);
}

TEST(LlvmControlFlow, SwitchSelectsItsCase) {
  Context C;
  LlvmLift L =
      lift(C,
           kernel("ptr addrspace(1) %out, i32 %a",
                  "  switch i32 %a, label %other [\n"
                  "    i32 1, label %one\n"
                  "    i32 2, label %two\n"
                  "  ]\n"
                  "one:\n"
                  "  br label %join\n"
                  "two:\n"
                  "  br label %join\n"
                  "other:\n"
                  "  br label %join\n"
                  "join:\n"
                  "  %r = phi i32 [ 10, %one ], [ 20, %two ], [ 30, %other ]\n"
                  "  store i32 %r, ptr addrspace(1) %out\n"
                  "  ret void\n"),
           {{true, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  for (auto [A, R] : {std::pair{1, 10}, {2, 20}, {7, 30}}) {
    Env E;
    E.setSymbol("arg1", i32(A));
    EXPECT_EQ(eval(W.Value, E).asSigned(), R);
  }
}

} // namespace

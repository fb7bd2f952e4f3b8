//===- LifterTest.cpp - TTIR/TTGIR lifted to the shared IR ----------------===//
#include "frontends/ttir/Lifter.h"
#include "ir/Errors.h"
#include "stages/LinearArithmetic.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace stagecheck;
using namespace stagecheck::ir;
using namespace stagecheck::ttir;

namespace {

const fs::path Corpus = fs::path(STAGECHECK_TEST_DIR) / "corpus";

std::string vectorAdd() {
  return (Corpus / "tutorial_vector_add/kernels/add_kernel/add_kernel").string();
}

/// A one-function module around Body, with a pointer x, a pointer out and
/// an i32 n.
Module kernel(const std::string &Body) {
  return parseModule("module {\n  tt.func public @k(%x: !tt.ptr<f32>, %out: "
                     "!tt.ptr<f32>, %n: i32) {\n" +
                         Body + "    tt.return\n  }\n}\n",
                     "k.ttir");
}

TEST(Lifter, VectorAddIsOneWriteFamily) {
  Context C;
  LiftResult R = liftKernel(C, parseModuleFile(vectorAdd() + ".ttir"), {});
  ASSERT_EQ(R.Interface.Params.size(), 4u);
  EXPECT_TRUE(R.Interface.Params[0].IsPointer);
  EXPECT_EQ(R.Interface.Params[0].Element, Type::f32());
  EXPECT_FALSE(R.Interface.Params[3].IsPointer);
  EXPECT_EQ(R.Interface.Params[3].Name, "arg3");
  ASSERT_EQ(R.Effects.Writes.size(), 1u);
  const Write &W = R.Effects.Writes[0];
  EXPECT_EQ(W.Buffer, "arg2");
  ASSERT_EQ(W.Bound.size(), 1u);
  EXPECT_EQ(W.Bound[0].Symbol, indexSymbol(C, 0));
  EXPECT_EQ(W.Bound[0].Extent, 256u);
  EXPECT_EQ(W.Value->op(), Op::FAdd);
  EXPECT_EQ(W.From.Op, "tt.store");
  EXPECT_EQ(W.From.Loc.Line, 18u);
  // The index is pid * 256 + e0, as an element index into arg2.
  const Expr *Pid = C.symbol("pid.x", Type::i(32), SymbolRole::ProgramId);
  const Expr *Offset = C.add(C.mul(Pid, C.intConst(Type::i(32), 256)),
                             indexSymbol(C, 0));
  EXPECT_EQ(W.Index, C.cast(Op::SExt, Offset, Type::i(64)));
  EXPECT_TRUE(R.Effects.Undefined.empty());
}

TEST(Lifter, TheTwoStagesLiftToTheSameNodes) {
  Context C;
  LiftResult S = liftKernel(C, parseModuleFile(vectorAdd() + ".ttir"), {});
  LiftResult T = liftKernel(C, parseModuleFile(vectorAdd() + ".ttgir"), {});
  ASSERT_EQ(T.Effects.Writes.size(), 1u);
  EXPECT_EQ(S.Effects.Writes[0].Value, T.Effects.Writes[0].Value);
  EXPECT_EQ(S.Effects.Writes[0].Guard, T.Effects.Writes[0].Guard);
  EXPECT_EQ(S.Effects.Writes[0].Index, T.Effects.Writes[0].Index);
}

TEST(Lifter, ReductionIsABalancedTreeInIndexOrder) {
  Context C;
  Module M = kernel(R"(
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %p = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %q = tt.addptr %p, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %v = tt.load %q : tensor<4x!tt.ptr<f32>>
    %s = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<4xf32>) -> f32
    tt.store %out, %s : !tt.ptr<f32>
)");
  LiftResult R = liftKernel(C, M, {});
  ASSERT_EQ(R.Effects.Writes.size(), 1u);
  auto X = [&](int I) { return C.read("arg0", Type::f32(), C.intConst(Type::i(64), I)); };
  const Expr *Tree = C.floatBinary(Op::FAdd, C.floatBinary(Op::FAdd, X(0), X(1)),
                                   C.floatBinary(Op::FAdd, X(2), X(3)));
  EXPECT_EQ(R.Effects.Writes[0].Value, Tree);
  EXPECT_TRUE(R.Effects.Writes[0].Bound.empty());
}

TEST(Lifter, SumsOfConstantMultiplesMeet) {
  // (n + 1) + 2 and n + 3 are one node: stages that compute an index in
  // different shapes still share it.
  Context C;
  Module M = kernel(R"(
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %a = arith.addi %n, %c1 : i32
    %b = arith.addi %a, %c2 : i32
    %d = arith.addi %c3, %n : i32
    %z = arith.constant 0.0 : f32
    %p = tt.addptr %out, %b : !tt.ptr<f32>, i32
    tt.store %p, %z : !tt.ptr<f32>
    %q = tt.addptr %out, %d : !tt.ptr<f32>, i32
    tt.store %q, %z : !tt.ptr<f32>
)");
  LiftResult R = liftKernel(C, M, {});
  ASSERT_EQ(R.Effects.Writes.size(), 2u);
  EXPECT_EQ(R.Effects.Writes[0].Index, R.Effects.Writes[1].Index);
}

TEST(Lifter, MaskedLoadsWithoutOtherNameTheirUnknownValue) {
  Context C;
  Module M = kernel(R"(
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %ns = tt.splat %n : i32 -> tensor<4xi32>
    %m = arith.cmpi slt, %r, %ns : tensor<4xi32>
    %p = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %q = tt.addptr %p, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %v = tt.load %q, %m : tensor<4x!tt.ptr<f32>>
    %o = tt.splat %out : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %w = tt.addptr %o, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    tt.store %w, %v : tensor<4x!tt.ptr<f32>>
)");
  LiftResult R = liftKernel(C, M, {});
  const Expr *V = R.Effects.Writes.at(0).Value;
  ASSERT_EQ(V->op(), Op::Select);
  EXPECT_EQ(V->operand(1)->name(), "arg0");
  EXPECT_EQ(V->operand(2)->name(), "undef.arg0");
  EXPECT_EQ(V->operand(1)->operand(0), V->operand(2)->operand(0));
}

TEST(Lifter, IntegerDivisionByZeroIsUndefined) {
  Context C;
  Module M = kernel(R"(
    %q = arith.divsi %n, %n : i32
    %p = tt.addptr %out, %q : !tt.ptr<f32>, i32
    %z = arith.constant 0.0 : f32
    tt.store %p, %z : !tt.ptr<f32>
)");
  LiftResult R = liftKernel(C, M, {});
  ASSERT_EQ(R.Effects.Undefined.size(), 1u);
  EXPECT_EQ(R.Effects.Undefined[0].From.Op, "arith.divsi");
}

TEST(Lifter, SymbolicLoopsAreCasesOrSummaries) {
  Context C;
  Module M = kernel(R"(
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %z = arith.constant 0.0 : f32
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%a = %z) -> (f32) : i32 {
      %p = tt.addptr %x, %k : !tt.ptr<f32>, i32
      %v = tt.load %p : !tt.ptr<f32>
      %t = arith.addf %a, %v : f32
      scf.yield %t : f32
    }
    tt.store %out, %s : !tt.ptr<f32>
)");
  // Cases: a loop without a trip count is reported...
  LiftOptions O;
  LiftResult R = liftKernel(C, M, O);
  ASSERT_EQ(R.UnassignedLoops.size(), 1u);
  LoopKey Key = R.UnassignedLoops[0].first;
  // ...and unrolled for the one it is given, under that assumption.
  O.TripCounts[Key] = 2;
  R = liftKernel(C, M, O);
  EXPECT_TRUE(R.UnassignedLoops.empty());
  auto X = [&](int I) { return C.read("arg0", Type::f32(), C.intConst(Type::i(64), I)); };
  EXPECT_EQ(R.Effects.Writes.at(0).Value,
            C.floatBinary(Op::FAdd, C.floatBinary(Op::FAdd, C.floatConst(Type::f32(), 0), X(0)), X(1)));
  const Expr *Case = tripCountCase(C, Key, 2);
  EXPECT_NE(std::find(R.Assumptions.begin(), R.Assumptions.end(), Case),
            R.Assumptions.end());
  ASSERT_EQ(R.Bounds.size(), 1u);
  EXPECT_NE(R.Bounds[0].find("trip count 2"), std::string::npos);
  // Summarised: the value after the loop is the loop's output symbol.
  O = LiftOptions();
  O.Loops = LiftOptions::LoopMode::Summarize;
  R = liftKernel(C, M, O);
  ASSERT_EQ(R.Summaries.size(), 1u);
  EXPECT_EQ(R.Effects.Writes.at(0).Value, C.symbol("loop0.out0", Type::f32()));
  EXPECT_EQ(R.Summaries[0].Yields[0],
            C.floatBinary(Op::FAdd, C.symbol("loop0.arg0", Type::f32()),
                          C.read("arg0", Type::f32(),
                                 C.cast(Op::SExt,
                                        C.mul(C.symbol("loop0.it", Type::i(32)),
                                              C.intConst(Type::i(32), 1)),
                                        Type::i(64)))));
}

TEST(Lifter, ConvertLayoutToAnotherShapeIsPoison) {
  Context C;
  Module M = parseModule(R"(
#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module {
  tt.func public @k(%out: !tt.ptr<f32>) {
    %z = arith.constant dense<1.0> : tensor<32xf32, #b>
    %c = ttg.convert_layout %z : tensor<32xf32, #b> -> tensor<16xf32, #b>
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #b>
    %p = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>, #b>
    %q = tt.addptr %p, %r : tensor<16x!tt.ptr<f32>, #b>, tensor<16xi32, #b>
    tt.store %q, %c : tensor<16x!tt.ptr<f32>, #b>
    tt.return
  }
}
)",
                         "k.ttgir");
  LiftResult R = liftKernel(C, M, {});
  EXPECT_TRUE(R.Effects.Writes.at(0).Defined->isFalse());
}

TEST(Lifter, UnsupportedOpsSayWhichAndWhere) {
  Context C;
  Module M = kernel("    %h = tt.elementwise_inline_asm \"mov.b32 $0, $1;\" {constraints = \"=r,r\", packed_element = 1 : i32, pure = true} %n : i32 -> i32\n");
  try {
    liftKernel(C, M, {});
    FAIL() << "lifted an op that is not modelled";
  } catch (const UnsupportedError &E) {
    EXPECT_EQ(E.What, "unsupported op tt.elementwise_inline_asm");
    EXPECT_EQ(E.Where.File, "k.ttir");
    EXPECT_EQ(E.Where.Line, 3u);
  }
}

TEST(LinearFacts, RefutesWhatTheFactsExclude) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *N = C.symbol("n", I32), *P = C.symbol("p", I32);
  auto K = [&](int V) { return C.intConst(I32, V); };
  stages::LinearFacts F({C.icmp(ICmpPredicate::Slt, N, K(5)),
                         C.icmp(ICmpPredicate::Sge, P, K(0))});
  EXPECT_TRUE(F.refutes(C.icmp(ICmpPredicate::Sgt, N, K(10))));
  EXPECT_FALSE(F.refutes(C.icmp(ICmpPredicate::Sgt, N, K(3))));
  // p + 1 > p only when p + 1 does not wrap: not shown without a bound.
  EXPECT_FALSE(F.refutes(C.icmp(ICmpPredicate::Sle, C.add(P, K(1)), P)));
  stages::LinearFacts G({C.icmp(ICmpPredicate::Slt, P, K(100)),
                         C.icmp(ICmpPredicate::Sge, P, K(0))});
  EXPECT_TRUE(G.refutes(C.icmp(ICmpPredicate::Sle, C.add(P, K(1)), P)));
  // The pipeliner's question: with lb + 3*step < ub <= lb + 4*step, does
  // iteration 2 have a successor (lb + 2*step < ub - step)? Yes.
  Type I64 = Type::i(64);
  const Expr *L = C.symbol("lb", I32), *S = C.symbol("step", I32), *U = C.symbol("ub", I32);
  auto W = [&](const Expr *E) { return C.cast(Op::SExt, E, I64); };
  stages::LinearFacts H(
      {C.icmp(ICmpPredicate::Sge, L, K(0)), C.icmp(ICmpPredicate::Slt, L, S),
       C.icmp(ICmpPredicate::Slt, C.add(W(L), C.mul(W(S), C.intConst(I64, 3))), W(U)),
       C.icmp(ICmpPredicate::Sle, W(U), C.add(W(L), C.mul(W(S), C.intConst(I64, 4))))});
  const Expr *Next = C.icmp(ICmpPredicate::Slt, C.add(L, C.mul(S, K(2))),
                            C.add(U, C.mul(S, K(-1))));
  EXPECT_TRUE(H.refutes(C.notOf(Next)));
  EXPECT_FALSE(H.refutes(Next));
}

} // namespace

// mma.sync at TTGIR <-> LLVM IR: the fragment layouts of
// mma.m16n8k16 against the PTX ISA's table, the uninterpreted function's
// host value, the lowering rule on tutorial_matmul's TTGIR, and mutants of
// its LLVM IR that must give counterexamples.
#include "TritonLibdevice.h"

#include "bundle/Manifest.h"
#include "frontends/ttir/Lifter.h"
#include "frontends/ttir/Mlir.h"
#include "ir/Errors.h"
#include "ir/Functions.h"
#include "ir/Interpreter.h"
#include "ptx_lifter/Collective.h"
#include "stages/ttgir_to_llir.h"
#include "tests/support/TextLines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>

using namespace stagecheck;
using namespace stagecheck::ir;
namespace sem = stagecheck::ptx::sem;

namespace {

//===----------------------------------------------------------------------===//
// Fragments: PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating
// point type", element i of each operand of lane l (groupID = l >> 2,
// threadID_in_group = l % 4), low to high: register i / 2, half i % 2.
//===----------------------------------------------------------------------===//

TEST(MmaFragments, AIsTheIsaTable) {
  std::set<std::pair<unsigned, unsigned>> Seen;
  for (unsigned Lane = 0; Lane < 32; ++Lane)
    for (unsigned I = 0; I < 8; ++I) {
      unsigned G = Lane >> 2, T = Lane % 4;
      unsigned Row = (I < 2 || (I >= 4 && I < 6)) ? G : G + 8;
      unsigned Col = I < 4 ? T * 2 + (I & 1) : T * 2 + (I & 1) + 8;
      sem::MmaSlot S = sem::mmaM16N8K16A(Row, Col);
      EXPECT_EQ(S.Lane, Lane) << "a" << I << " of lane " << Lane;
      EXPECT_EQ(S.Register, I / 2) << "a" << I << " of lane " << Lane;
      EXPECT_EQ(S.Half, I % 2) << "a" << I << " of lane " << Lane;
      Seen.insert({Row, Col});
    }
  EXPECT_EQ(Seen.size(), 16u * 16u); // every element held exactly once
}

TEST(MmaFragments, BIsTheIsaTable) {
  std::set<std::pair<unsigned, unsigned>> Seen;
  for (unsigned Lane = 0; Lane < 32; ++Lane)
    for (unsigned I = 0; I < 4; ++I) {
      unsigned G = Lane >> 2, T = Lane % 4;
      unsigned Row = I < 2 ? T * 2 + (I & 1) : T * 2 + (I & 1) + 8;
      unsigned Col = G;
      sem::MmaSlot S = sem::mmaM16N8K16B(Row, Col);
      EXPECT_EQ(S.Lane, Lane) << "b" << I << " of lane " << Lane;
      EXPECT_EQ(S.Register, I / 2) << "b" << I << " of lane " << Lane;
      EXPECT_EQ(S.Half, I % 2) << "b" << I << " of lane " << Lane;
      Seen.insert({Row, Col});
    }
  EXPECT_EQ(Seen.size(), 16u * 8u);
}

TEST(MmaFragments, AccumulatorIsTheIsaTable) {
  std::set<std::pair<unsigned, unsigned>> Seen;
  for (unsigned Lane = 0; Lane < 32; ++Lane)
    for (unsigned I = 0; I < 4; ++I) {
      unsigned G = Lane >> 2, T = Lane % 4;
      unsigned Row = I < 2 ? G : G + 8;
      unsigned Col = T * 2 + (I & 1);
      sem::MmaSlot S = sem::mmaM16N8K16CD(Row, Col);
      EXPECT_EQ(S.Lane, Lane) << "c" << I << " of lane " << Lane;
      EXPECT_EQ(S.Register, I) << "c" << I << " of lane " << Lane;
      EXPECT_EQ(sem::mmaM16N8K16CDElement(Lane, I), std::make_pair(Row, Col));
      Seen.insert({Row, Col});
    }
  EXPECT_EQ(Seen.size(), 16u * 8u);
}

// The function is uninterpreted in every query; a replayed counterexample
// takes the solver's value for it, and only a call the model does not fix
// falls back to this illustrative sequential fma chain.
TEST(MmaFunction, HostValueIsASequentialFmaChain) {
  Context C;
  std::vector<const Expr *> Args = {
      C.constant(Type::f32(), Value::ofDouble(Type::f32(), 0.5).Bits)};
  float Want = 0.5f;
  for (int K = 0; K < 32; ++K) {
    double V = K < 16 ? 1.0 + K / 8.0 : -0.25 * (K - 16);
    Args.push_back(
        C.constant(Type::f16(), Value::ofDouble(Type::f16(), V).Bits));
  }
  for (int K = 0; K < 16; ++K)
    Want = std::fma(float(1.0 + K / 8.0), float(-0.25 * K), Want);
  const Expr *D = C.call(MmaM16N8K16F32F16, Type::f32(), Args);
  ASSERT_EQ(D->op(), Op::Call); // never folded, even on constants
  Env E;
  Interpreter I(E);
  EXPECT_EQ(float(I.eval(D).asDouble()), Want);
  EXPECT_TRUE(I.usedHostFallback());
  // A value the environment gives (a solver's model) wins.
  std::vector<Value> Concrete;
  for (const Expr *A : Args)
    Concrete.push_back(Value::ofBits(A->type(), A->constBits()));
  Env Model;
  Model.setCall(std::string(MmaM16N8K16F32F16), Concrete,
                Value::ofDouble(Type::f32(), 7.0));
  Interpreter J(Model);
  EXPECT_EQ(J.eval(D).asDouble(), 7.0);
}

//===----------------------------------------------------------------------===//
// tutorial_matmul
//===----------------------------------------------------------------------===//

struct Matmul {
  bundle::Manifest M;
  const bundle::Launch *L;
  Matmul()
      : M(bundle::loadBundle(STAGECHECK_TEST_DIR "/corpus/tutorial_matmul")),
        L(M.launches().front()) {}
  std::string ttgirText() const { return test::fileText(L->file("ttgir")); }
  std::string llirText() const { return test::fileText(L->file("llir")); }
};

/// The TTGIR lifted as the lowering computes it, its loop run Trips times.
ttir::LiftResult liftLowered(Context &C, const ttir::Module &M,
                             uint64_t Trips) {
  ttir::LiftOptions O;
  O.Lowering = true;
  ttir::LiftResult Probe = ttir::liftKernel(C, M, O);
  for (const auto &[K, From] : Probe.UnassignedLoops)
    O.TripCounts[K] = Trips;
  return ttir::liftKernel(C, M, O);
}

/// The chain of mma calls under an element's value, outermost first.
std::vector<const Expr *> mmaChain(const Expr *Value) {
  std::vector<const Expr *> Calls;
  const Expr *Roots[] = {Value};
  const Expr *Top = nullptr;
  for (const Expr *N : postOrder(Roots))
    if (N->op() == Op::Call && N->name() == MmaM16N8K16F32F16)
      Top = N; // post order: the last one is the outermost
  for (const Expr *N = Top; N && N->op() == Op::Call; N = N->operand(0))
    Calls.push_back(N);
  return Calls;
}

TEST(MmaLowering, DotIsOneMmaPerKSliceInOrder) {
  Matmul B;
  Context C;
  ttir::Module M = ttir::parseModule(B.ttgirText(), B.L->file("ttgir"));
  for (uint64_t Trips : {1u, 2u}) {
    ttir::LiftResult R = liftLowered(C, M, Trips);
    const std::string Rule =
        "dot -> mma.sync m16n8k16 (per 16-wide k slice, in order)";
    ASSERT_EQ(R.Rules.count(Rule), 1u);
    EXPECT_EQ(R.Rules.at(Rule), 1u); // one tt.dot
    ASSERT_EQ(R.Effects.Writes.size(), 1u);
    // Element (i, j): BLOCK_K = 32 per iteration is two slices of 16, each
    // call taking the one before as its accumulator, the first 0.0.
    std::vector<const Expr *> Chain = mmaChain(R.Effects.Writes[0].Value);
    ASSERT_EQ(Chain.size(), 2 * Trips);
    EXPECT_TRUE(Chain.back()->operand(0)->isConst());
    EXPECT_EQ(Chain.back()->operand(0)->constBits(), 0u);
    for (const Expr *Call : Chain) {
      ASSERT_EQ(Call->numOperands(), 33u);
      EXPECT_EQ(Call->operand(0)->type(), Type::f32());
      for (unsigned K = 1; K < 33; ++K)
        EXPECT_EQ(Call->operand(K)->type(), Type::f16());
    }
  }
}

TEST(MmaLowering, OtherMmaDotsAreUnsupportedWithTheReason) {
  Matmul B;
  std::string Text = B.ttgirText();
  // kWidth 4 on f16: each instruction takes k out of order.
  std::string Wide = Text;
  for (size_t At; (At = Wide.find("kWidth = 2")) != std::string::npos;)
    Wide.replace(At, 10, "kWidth = 4");
  Context C;
  ttir::Module M = ttir::parseModule(Wide, B.L->file("ttgir"));
  try {
    liftLowered(C, M, 1);
    FAIL() << "kWidth 4 lifted";
  } catch (const UnsupportedError &E) {
    EXPECT_NE(std::string(E.what()).find("kWidth 4"), std::string::npos)
        << E.what();
  }
  // Without the lowering rules the dot stays the exact sum (TTIR <-> TTGIR).
  ttir::Module Plain = ttir::parseModule(Text, B.L->file("ttgir"));
  ttir::LiftOptions O;
  ttir::LiftResult Probe = ttir::liftKernel(C, Plain, O);
  for (const auto &[K, From] : Probe.UnassignedLoops)
    O.TripCounts[K] = 1;
  ttir::LiftResult R = ttir::liftKernel(C, Plain, O);
  EXPECT_TRUE(R.Rules.empty());
  EXPECT_TRUE(mmaChain(R.Effects.Writes[0].Value).empty());
}

//===----------------------------------------------------------------------===//
// Mutants of the LLVM IR: each must give a counterexample.
//===----------------------------------------------------------------------===//

/// Text with the first occurrence of From (on a line containing Near)
/// replaced by To, and the 1-based line it was on.
std::pair<std::string, unsigned> mutate(const std::string &Text,
                                        const std::string &Near,
                                        const std::string &From,
                                        const std::string &To) {
  size_t Line = Text.find(Near);
  EXPECT_NE(Line, std::string::npos) << Near;
  size_t At = Text.find(From, Line);
  EXPECT_NE(At, std::string::npos) << From;
  std::string Out = Text;
  Out.replace(At, From.size(), To);
  unsigned Number =
      1 + unsigned(std::count(Text.begin(), Text.begin() + long(At), '\n'));
  return {Out, Number};
}

struct MmaMutant {
  const char *Name;
  const char *Near, *From, *To;
  /// The solver's counterexample reproduces in the interpreter. Otherwise
  /// the verdict may be unknown: a model whose output stride is 0 makes
  /// rows alias, and the final content, with the other elements' reads
  /// unset, agrees where the one pair differs (stages/Refinement.cpp then
  /// compares by content, a query too large to finish). Never proved.
  bool Confirms;
};

const MmaMutant Mutants[] = {
    // Two A fragment registers of the first mma swapped (a0 <-> a1: rows g
    // and g + 8 of A exchanged).
    {"SwappedAFragments", "%135 = tail call", "i32 %112, i32 %113",
     "i32 %113, i32 %112", false},
    // The B fragments of the second mma swapped (k rows 0..7 and 8..15).
    {"SwappedBFragments", "%140 = tail call", "i32 %131, i32 %132",
     "i32 %132, i32 %131", true},
    // The second ldmatrix of A reads the first one's rows.
    {"LdmatrixAddress", "%116 = getelementptr", "i32 %85", "i32 %84", true},
    // The second k slice accumulates into the loop's incoming value instead
    // of the first slice's result.
    {"AccumulatorNotChained", "%145 = tail call", "(float %136,", "(float %95,",
     false},
};

class MmaLlirMutant : public testing::TestWithParam<MmaMutant> {};

TEST_P(MmaLlirMutant, IsNotProved) {
  const MmaMutant &K = GetParam();
  Matmul B;
  ttir::Module Ttgir = ttir::parseModuleFile(B.L->file("ttgir"));
  stages::TtgirToLlirOptions O =
      stages::optionsForLaunch(B.M, *B.L, stages::CheckOptions());
  O.Libdevice = test::tritonLibdevice();
  // One iteration shows each mutation (it is in the loop body or before
  // it); the corpus test proves the original at the default bound.
  O.Check.LoopBound = 1;
  O.TimeLimitSeconds = 120;
  auto [Text, Line] = mutate(B.llirText(), K.Near, K.From, K.To);
  Context C;
  stages::PairResult R =
      stages::checkTtgirToLlir(C, Ttgir, Text, B.L->file("llir"), O);
  std::string Queries;
  for (const stages::QueryReport &Q : R.Queries)
    if (Q.Outcome != smt::Outcome::Proved)
      Queries +=
          "\n  " + Q.Name + ": " + smt::spelling(Q.Outcome) + " " + Q.Reason;
  ASSERT_NE(R.Kind, stages::Verdict::Proved) << "(.llir line " << Line << ")";
  if (!K.Confirms && R.Kind == stages::Verdict::Unknown) {
    std::cout << K.Name << ": unknown: " << R.Reason << "\n";
    return;
  }
  ASSERT_EQ(stages::spelling(R.Kind), std::string("counterexample"))
      << R.Reason << " (.llir line " << Line << ")" << Queries;
  ASSERT_TRUE(R.Cex);
  std::string Notes;
  for (const std::string &N : R.Cex->Notes)
    Notes += "\n  " + N;
  // The report names the LLVM IR write that differs.
  EXPECT_NE(Notes.find("matmul_kernel.llir:"), std::string::npos) << Notes;
  std::cout << K.Name << " (.llir line " << Line << "): " << R.Cex->Explanation
            << Notes << "\n";
}

INSTANTIATE_TEST_SUITE_P(Matmul, MmaLlirMutant, testing::ValuesIn(Mutants),
                         [](const auto &I) {
                           return std::string(I.param.Name);
                         });

} // namespace

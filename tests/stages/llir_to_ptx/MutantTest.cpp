// Mutants of real PTX: each must give a counterexample at LLVM IR -> PTX
// that names the mutated PTX line, while the original pair is proved.
#include "PtxMutants.h"

#include "bundle/Manifest.h"
#include "tests/support/TextLines.h"
#include "stages/llir_to_ptx.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace stagecheck;
using stagecheck::test::PtxMutation;

namespace {

struct Case {
  const char *Bundle;
  PtxMutation M;
  const char *Anchor; // the first line holding it (where M applies) mutates
};

const Case Cases[] = {
    {"tutorial_vector_add", PtxMutation::SetpPredicate, "setp.lt.s32"},
    {"inductor_clamp", PtxMutation::SetpPredicate, "setp.lt.s32"},
    {"tutorial_vector_add", PtxMutation::Immediate, "shl.b32"},
    {"bug_e_grid_short", PtxMutation::Immediate, "shl.b32"},
    {"inductor_hardsigmoid", PtxMutation::DropGuard, "st.global"},
    {"inductor_sigmoid", PtxMutation::DropGuard, "st.global"},
    {"tutorial_vector_add", PtxMutation::AddToSub, "add.f32"},
    {"inductor_gelu", PtxMutation::AddToSub, "add.f32"},
    // In a warp reduction: the solver does not decide the next shuffle's
    // operand in time, testing finds the input.
    {"inductor_softmax", PtxMutation::AddToSub, "%r362, %r336, %r361"},
    {"inductor_sum_persistent", PtxMutation::ShuffleOffset, "shfl.sync.bfly"},
    {"inductor_amax", PtxMutation::ShuffleOffset, "shfl.sync.bfly"},
    {"inductor_f16_add", PtxMutation::CvtRounding, "cvt.rn.f16.f32"},
    {"inductor_softmax", PtxMutation::SwapV4Lanes, "st.global.v4"},
    // A bool reduction's warp step.
    {"inductor_all", PtxMutation::ReduxOperation, "redux.sync.or"},
    // Row reductions inside loops of symbolic trip count: the stores after
    // them, and the first shuffle.
    {"tutorial_layer_norm", PtxMutation::ShuffleOffset, "shfl.sync.bfly"},
    {"tutorial_layer_norm", PtxMutation::SwapV4Lanes, "st.global.v4"},
    {"tutorial_layer_norm", PtxMutation::DropGuard, "st.global.v4"},
    // The variance loop's second load one element over (`or ... 128` made
    // 129): found by testing before the shuffle's query (which reaches its
    // limit), at a row length that is one of the loop bound's constants.
    {"tutorial_layer_norm", PtxMutation::Immediate, "%r4, %r3, 128"},
    // The software-pipelined matmul: its result store.
    {"tutorial_matmul", PtxMutation::DropGuard, "st.global.v4"},
    // The row mask `pid < 16` made `<=` (a 17th program reads and writes a
    // row): the solver first finds inputs where the PTX's fma of the sum
    // of squares differs from the LLVM IR's multiply and add, a
    // contraction the structural matching missed; asked again with it
    // taken, it finds program 16.
    {"inductor_rms_norm", PtxMutation::SetpPredicate, "setp.lt.u32"},
};

// Readable test names in ctest's listing.
void PrintTo(const Case &K, std::ostream *OS) {
  *OS << K.Bundle << " " << test::spelling(K.M);
}

std::string name(const testing::TestParamInfo<Case> &I) {
  return std::string(I.param.Bundle) + "_" + test::spelling(I.param.M);
}

/// A corpus bundle's first launch: its LLVM IR and PTX, checked with the
/// options its metadata gives and the PTX as given or mutated.
struct PtxPair {
  /// Bundle: a directory under tests/ (a corpus bundle by default).
  explicit PtxPair(const std::string &Bundle,
                   const std::string &Under = "corpus")
      : M(bundle::loadBundle(std::string(STAGECHECK_TEST_DIR "/") + Under +
                             "/" + Bundle)),
        L(*M.launches().at(0)), Llir{test::fileText(L.file("llir")),
                                     L.file("llir")},
        Ptx{test::fileText(L.file("ptx")), L.file("ptx")},
        Interface(L.interface(M.Tensors)) {
    O.FpFusion = bundle::readKernelMetadata(L.file("metadata")).FpFusion;
  }
  stages::PairResult check(const std::string &PtxText) const {
    ir::Context C;
    stages::StageText Text{PtxText, Ptx.Name};
    return stages::checkLlirToPtx(C, Llir, Text, Interface, O);
  }

  bundle::Manifest M;
  const bundle::Launch &L;
  stages::StageText Llir, Ptx;
  ir::KernelInterface Interface;
  stages::LlirToPtxOptions O;
};

class PtxMutant : public testing::TestWithParam<Case> {};

TEST_P(PtxMutant, GivesACounterexampleNamingThePtxLine) {
  const Case &K = GetParam();
  PtxPair P(K.Bundle);
  const stages::StageText &Ptx = P.Ptx;
  stages::PairResult Original = P.check(Ptx.Text);
  ASSERT_EQ(Original.Kind, stages::Verdict::Proved) << Original.Reason;

  auto Mutant = test::mutatePtx(Ptx.Text, K.M, K.Anchor);
  ASSERT_TRUE(Mutant) << "no site for the mutation";
  stages::PairResult R = P.check(Mutant->Text);
  ASSERT_EQ(R.Kind, stages::Verdict::Counterexample)
      << stages::spelling(R.Kind) << ": " << R.Reason << " (PTX line "
      << Mutant->Line << ")";
  ASSERT_TRUE(R.Cex);
  std::string Where = Ptx.Name + ":" + std::to_string(Mutant->Line);
  bool Named = false;
  std::string Notes;
  for (const std::string &N : R.Cex->Notes) {
    Named |= N.find(Where + " ") != std::string::npos ||
             (N.size() >= Where.size() &&
              N.compare(N.size() - Where.size(), Where.size(), Where) == 0);
    Notes += "\n  " + N;
  }
  EXPECT_TRUE(Named) << "the report does not name " << Where << ":" << Notes
                     << "\n  " << R.Cex->Explanation;
}

INSTANTIATE_TEST_SUITE_P(Corpus, PtxMutant, testing::ValuesIn(Cases), name);

// A bool mask read the other way round (the mask byte's setp.eq made ne):
// a counterexample at the store the select feeds, which the report names.
// The select picks between two values the LLVM IR computes too, so
// tracing values finds no earlier departure (docs/coverage.md).
TEST(PtxMutantOfBools, AMaskReadTheOtherWayRoundIsACounterexample) {
  PtxPair P("inductor_bool_mask");
  ASSERT_EQ(P.check(P.Ptx.Text).Kind, stages::Verdict::Proved);
  auto Mutant = test::mutatePtx(P.Ptx.Text, PtxMutation::SetpPredicate,
                                "setp.eq.b16");
  ASSERT_TRUE(Mutant) << "no setp.eq.b16 to mutate";
  stages::PairResult R = P.check(Mutant->Text);
  EXPECT_EQ(R.Kind, stages::Verdict::Counterexample) << R.Reason;
}

// A mutant that changes nothing: logf's reduction converts the exponent
// field (a multiple of 2^23 with at most nine significant bits) to float,
// exactly in any rounding. Proved where the two part, without the
// polynomial above the conversion the whole query timed out on.
// The row length converted toward zero instead of to nearest
// (tutorial_layer_norm's PTX line 160): the two differ only for a length
// below -2^24, where no loop runs and the mean is div.full of a zero, which
// the PTX ISA bounds only to 2 ulp. Testing finds a row of 769, where the
// conversions agree but the mean is another node, so the structural fma
// contraction of the variance loop misses and the LLVM IR's unfused
// multiply-add differs from the PTX's fma: an input the contraction the
// LLVM IR allows explains, which must not be reported as a counterexample.
TEST(PtxMutantAlike, ADifferenceAContractionExplainsIsNoCounterexample) {
  PtxPair P("tutorial_layer_norm");
  auto Mutant = test::mutatePtx(P.Ptx.Text, PtxMutation::CvtRounding,
                                "cvt.rn.f32.s32");
  ASSERT_TRUE(Mutant);
  stages::PairResult R = P.check(Mutant->Text);
  EXPECT_NE(R.Kind, stages::Verdict::Counterexample)
      << (R.Cex ? R.Cex->Explanation : R.Reason);
  EXPECT_NE(R.Reason.find("an fma contraction the LLVM IR allows removes the "
                          "difference"),
            std::string::npos)
      << R.Reason;
}

TEST(PtxMutantAlike, AnExactConversionIsProvedInAnyRounding) {
  PtxPair P("inductor_log_softmax");
  auto Mutant = test::mutatePtx(P.Ptx.Text, PtxMutation::CvtRounding,
                                "cvt.rn.f32.s32");
  ASSERT_TRUE(Mutant) << "no site for the mutation";
  stages::PairResult R = P.check(Mutant->Text);
  EXPECT_EQ(R.Kind, stages::Verdict::Proved)
      << stages::spelling(R.Kind) << ": " << R.Reason;
  unsigned AtThePlaces = 0;
  for (const stages::QueryReport &Q : R.Queries)
    AtThePlaces += Q.Reason.find("where the two values part") != std::string::npos;
  EXPECT_GT(AtThePlaces, 0u);
}

// Sine and cosine (bench/heldout4/inductor_sin_cos): from 105615 on,
// libdevice's Payne-Hanek reduction multiplies the argument by the 2/pi
// table word by word through the carry flag (mad.lo.cc, madc.hi) and keeps
// the partial products in a local array, which llc lays out as a .local
// depot addressed in 32 bits where the LLVM IR indexes an alloca.
TEST(PtxTrig, SineAndCosineAreProved) {
  PtxPair P("inductor_sin_cos", "../bench/heldout4");
  stages::PairResult R = P.check(P.Ptx.Text);
  EXPECT_EQ(R.Kind, stages::Verdict::Proved)
      << stages::spelling(R.Kind) << ": " << R.Reason;
}

// The carry into a partial product's high word dropped (madc.hi made
// mad.hi): only huge arguments take that path, and one is found.
TEST(PtxTrig, ADroppedCarryIsACounterexampleAtAHugeArgument) {
  PtxPair P("inductor_sin_cos", "../bench/heldout4");
  std::string Text = P.Ptx.Text;
  size_t At = Text.find("madc.hi.u32     %r97");
  ASSERT_NE(At, std::string::npos);
  Text.replace(At, 4, "mad");
  stages::PairResult R = P.check(Text);
  ASSERT_EQ(R.Kind, stages::Verdict::Counterexample)
      << stages::spelling(R.Kind) << ": " << R.Reason;
  ASSERT_TRUE(R.Cex);
  bool Huge = false;
  for (const auto &[Key, V] : R.Cex->Inputs.reads())
    Huge |= Key.first == "arg0" && std::fabs(V.asDouble()) >= 105615.0;
  EXPECT_TRUE(Huge) << R.Cex->Explanation;
}

} // namespace

// Loads that race with another thread's write read an unspecified value
// (LLVM IR gives a racing non-atomic load undef): a proof holds whatever
// they read, a counterexample names the value it picked. And two LLVM IR
// files compared as one CTA each (stages::checkSameCta), where single
// threads differ but the CTA's effects do not, or where they differ only
// in a sign of zero nothing stored can see.
#include "TritonLibdevice.h"

#include "bundle/Manifest.h"
#include "frontends/llvm/LlvmLifter.h"
#include "frontends/ttir/Mlir.h"
#include "stages/llir_to_ptx.h"
#include "stages/ttgir_to_llir.h"
#include "tests/support/TextLines.h"

#include <gtest/gtest.h>

#include <regex>
#include <tuple>

using namespace stagecheck;

namespace {

struct Kernel {
  bundle::Manifest M;
  const bundle::Launch *L = nullptr;
  std::string Llir;
};

Kernel load(const char *Bundle) {
  Kernel K;
  K.M = bundle::loadBundle(std::string(STAGECHECK_TEST_DIR "/corpus/") + Bundle);
  K.L = K.M.launches().front();
  K.Llir = test::fileText(K.L->file("llir"));
  return K;
}

/// The text without the N-th barrier (0: the first).
std::string withoutBarrier(const std::string &Text, unsigned N) {
  static const std::regex Barrier(R"(^\s*(tail )?call void @llvm\.nvvm\.barrier)");
  std::vector<std::string> Lines = test::linesOf(Text);
  for (std::string &L : Lines)
    if (std::regex_search(L, Barrier) && N-- == 0) {
      L.clear();
      return test::joined(Lines);
    }
  ADD_FAILURE() << "no such barrier";
  return Text;
}

stages::PairResult againstTtgir(const Kernel &K, const std::string &Llir) {
  return test::againstTtgir(K.M, *K.L, Llir);
}

stages::PairResult asOneCta(const Kernel &K, const std::string &Target) {
  ir::Context C;
  return stages::checkSameCta(C, K.Llir, K.L->file("llir"), Target, "mutant.llir",
                              llvmir::inferInterface(K.L->file("llir")),
                              stages::CheckOptions());
}

bool mentions(const std::vector<std::string> &Lines, const std::string &What) {
  for (const std::string &L : Lines)
    if (L.find(What) != std::string::npos)
      return true;
  return false;
}

// inductor_softmax's max with `fcmp ogt` made `oge` (line 95): the two
// pick different zeros only where the elements are +0 and -0, and that
// sign is lost in exp(x - max) (stages/ZeroSign.h); instcombine has moved
// the next comparisons and a negation into the select's arms. The same
// kernel, against the TTGIR and against the original.
TEST(SameCta, AMaxThatPicksTheOtherOfTwoEqualZerosIsProved) {
  Kernel K = load("inductor_softmax");
  std::vector<std::string> Lines = test::linesOf(K.Llir);
  ASSERT_GE(Lines.size(), 95u);
  std::string &Line = Lines[94];
  size_t At = Line.find("fcmp ogt float");
  ASSERT_NE(At, std::string::npos) << Line;
  Line.replace(At, 8, "fcmp oge");
  std::string Mutant = test::joined(Lines);

  stages::PairResult R = againstTtgir(K, Mutant);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
  stages::PairResult Same = asOneCta(K, Mutant);
  EXPECT_EQ(stages::spelling(Same.Kind), std::string("proved")) << Same.Reason;
}

// inductor_amax without its last barrier: threads 1-63 load the block's
// maximum while thread 0 may still be writing it, but only thread 0 stores
// it, and it reads its own write. The race is real and harmless.
TEST(RacingLoad, WhoseValueIsNeverStoredIsProvedAndListed) {
  Kernel K = load("inductor_amax");
  std::string Mutant = withoutBarrier(K.Llir, 1);
  stages::PairResult R = againstTtgir(K, Mutant);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
  EXPECT_TRUE(mentions(R.Relaxations, "racing loads read any value"));

  stages::PairResult Same = asOneCta(K, Mutant);
  EXPECT_EQ(stages::spelling(Same.Kind), std::string("proved")) << Same.Reason;
}

// Without its first barrier, thread 0 combines the warps' partial maxima
// before warp 1 has written its own: the value it loads reaches the store.
TEST(RacingLoad, WhoseValueIsStoredGivesACounterexampleNamingIt) {
  Kernel K = load("inductor_amax");
  std::string Mutant = withoutBarrier(K.Llir, 0);
  stages::PairResult R = againstTtgir(K, Mutant);
  ASSERT_EQ(stages::spelling(R.Kind), std::string("counterexample")) << R.Reason;
  ASSERT_TRUE(R.Cex);
  EXPECT_TRUE(mentions(R.Cex->Notes, "races with another thread's write"));
  bool Picked = false;
  for (const auto &[Name, V] : R.Cex->Inputs.symbols())
    Picked |= Name.find(".raced.smem@") != std::string::npos;
  EXPECT_TRUE(Picked) << "the counterexample does not give the racing load's value";

  stages::PairResult Same = asOneCta(K, Mutant);
  EXPECT_EQ(stages::spelling(Same.Kind), std::string("counterexample"))
      << Same.Reason;
}

// inductor_sum_persistent with lanes 1-31 instead of lane 0 writing the
// warp's sum to shared memory: every lane holds the same butterfly sum, so
// the CTA computes the same. Compared thread by thread the two differ.
TEST(SameCta, AnotherLaneWritingTheWarpSumIsProved) {
  Kernel K = load("inductor_sum_persistent");
  std::vector<std::string> Lines = test::linesOf(K.Llir);
  static const std::regex LaneZero(R"(= icmp eq i32 %\d+, 0, !dbg)");
  bool Mutated = false;
  // The first lane test after the first shuffle.
  bool AfterShuffle = false;
  for (std::string &L : Lines) {
    AfterShuffle |= L.find("shfl.sync") != std::string::npos;
    if (AfterShuffle && std::regex_search(L, LaneZero)) {
      L.replace(L.find("icmp eq"), 7, "icmp ne");
      Mutated = true;
      break;
    }
  }
  ASSERT_TRUE(Mutated);
  std::string Mutant = test::joined(Lines);

  ir::Context C;
  stages::PairResult PerThread = stages::checkSameThreadStage(
      C, stages::ThreadStage::Llir, {K.Llir, K.L->file("llir")},
      {Mutant, "mutant.llir"}, llvmir::inferInterface(K.L->file("llir")),
      stages::CheckOptions());
  EXPECT_NE(stages::spelling(PerThread.Kind), std::string("proved"));

  stages::PairResult Same = asOneCta(K, Mutant);
  EXPECT_EQ(stages::spelling(Same.Kind), std::string("proved")) << Same.Reason;
}

// tutorial_fused_softmax's warp partials (a maximum, then a sum) written to
// shared memory by lanes 1-31 instead of lane 0 (line 38 `icmp eq` made
// `ne`), inside the row loop. The 31 writes of one byte race, but each
// lane holds the same butterfly result once the loop runs; what a lane
// would receive from a lane that does not take part (named after the
// receiver) drops out under the write's guard. Before, the differing
// names made it "a race on shared memory", unknown.
std::string fusedSoftmaxWithOtherLanesWriting(const Kernel &K,
                                              unsigned LastStep) {
  std::vector<std::string> Lines = test::linesOf(K.Llir);
  if (Lines.size() < 72 || Lines[37].find("%30 = icmp eq i32 %25, 0") ==
                               std::string::npos)
    return "";
  Lines[37].replace(Lines[37].find("icmp eq"), 7, "icmp ne");
  // The maximum's last butterfly step (line 72, lane mask 1).
  std::string &Step = Lines[71];
  size_t At = Step.find(", i32 1, i32 31)");
  if (At == std::string::npos)
    return "";
  Step.replace(At + 6, 1, std::to_string(LastStep));
  return test::joined(Lines);
}

TEST(RacingWrites, OfOneButterflyResultByEveryLaneAreProved) {
  Kernel K = load("tutorial_fused_softmax");
  std::string Mutant = fusedSoftmaxWithOtherLanesWriting(K, 1);
  ASSERT_FALSE(Mutant.empty());
  stages::PairResult R = againstTtgir(K, Mutant);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
}

// The same lanes writing after a butterfly without its last step: lanes
// 2k and 2k+1 hold the maxima of different halves, and write them to one
// byte. Not proved.
TEST(RacingWrites, OfValuesThatDifferAreNotProved) {
  Kernel K = load("tutorial_fused_softmax");
  std::string Mutant = fusedSoftmaxWithOtherLanesWriting(K, 0);
  ASSERT_FALSE(Mutant.empty());
  stages::PairResult R = againstTtgir(K, Mutant);
  EXPECT_NE(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
}

// The CTA check is not a rubber stamp: a shuffle to the wrong lane in a sum
// changes what the CTA stores.
TEST(SameCta, AShuffleToTheWrongLaneGivesACounterexample) {
  Kernel K = load("inductor_sum_persistent");
  std::string Mutant = K.Llir;
  size_t At = Mutant.find("shfl.sync.bfly.i32(i32 -1, i32 %");
  ASSERT_NE(At, std::string::npos);
  size_t Lane = Mutant.find(", i32 ", Mutant.find(',', At + 33));
  ASSERT_NE(Lane, std::string::npos);
  size_t End = Mutant.find(',', Lane + 6);
  std::string Old = Mutant.substr(Lane + 6, End - Lane - 6);
  Mutant.replace(Lane + 6, End - Lane - 6, Old == "1" ? "2" : "1");
  stages::PairResult Same = asOneCta(K, Mutant);
  EXPECT_EQ(stages::spelling(Same.Kind), std::string("counterexample"))
      << Same.Reason << " (lane operand was " << Old << ")";
}

// inductor_mean with its row means stored by the 56 threads that skip the
// store (`tid & 56` tested `ne` instead of `eq`): seven threads write each
// row's mean, the value each loads from the same shared bytes. Compared by
// content, with each value written one unknown, the writes' guards and
// places alone show the same memory (asked whole, the values' reductions
// and divisions reached the 20 s limit).
std::string meanStoredByOtherThreads(const Kernel &K, const char *Constant) {
  std::vector<std::string> Lines = test::linesOf(K.Llir);
  for (size_t I = 0; I + 1 < Lines.size(); ++I)
    if (Lines[I].find("= and i32 %9, 56,") != std::string::npos &&
        Lines[I + 1].find("icmp eq i32") != std::string::npos) {
      Lines[I + 1].replace(Lines[I + 1].find("icmp eq"), 7, "icmp ne");
      std::string Mutant = test::joined(Lines);
      size_t At = Mutant.find("div.full(float %");
      size_t Divisor = Mutant.find("float 1.280000e+02", At);
      if (At == std::string::npos || Divisor == std::string::npos)
        return "";
      Mutant.replace(Divisor + 6, 12, Constant);
      return Mutant;
    }
  return "";
}

TEST(SameCta, ARowMeanStoredByEveryThreadThatHoldsItIsProved) {
  Kernel K = load("inductor_mean");
  std::string Mutant = meanStoredByOtherThreads(K, "1.280000e+02");
  ASSERT_FALSE(Mutant.empty());
  stages::PairResult Same = asOneCta(K, Mutant);
  EXPECT_EQ(stages::spelling(Same.Kind), std::string("proved")) << Same.Reason;
  bool DecidedByPlaces = false;
  for (const auto &Q : Same.Queries)
    DecidedByPlaces |=
        Q.Reason.find("each value written one unknown") != std::string::npos;
  EXPECT_TRUE(DecidedByPlaces);
}

// The same writers with the mean divided by 127: the values as unknowns
// leave the contents apart, and the values themselves differ.
TEST(SameCta,
     ARowMeanStoredByOtherThreadsAndDividedWronglyGivesACounterexample) {
  Kernel K = load("inductor_mean");
  std::string Mutant = meanStoredByOtherThreads(K, "1.270000e+02");
  ASSERT_FALSE(Mutant.empty());
  stages::PairResult Same = asOneCta(K, Mutant);
  EXPECT_EQ(stages::spelling(Same.Kind), std::string("counterexample"))
      << Same.Reason;
}

} // namespace

// bench/heldout4/inductor_cross_entropy's row maximum (a NaN-propagating
// max, `a > b || a != a ? a : b`, which keeps the second of two equal
// zeros): each lane combines its butterfly in its own order, and every
// lane of a row stores its result to one shared word. With -0 in a row of
// +0, lanes hold different zeros, and which store wins is the hardware's
// choice: the TTGIR's order gives -0, the model's interleaving +0. Values
// are compared up to the signs of zeros, and the race leaves the verdict
// unknown (before: a counterexample, a false alarm on what inductor
// compiled).
TEST(RacingWrites, OfZerosOfOppositeSignsLeaveTheSignUnknown) {
  test::BundleKernel K("inductor_cross_entropy", "../bench/heldout4");
  stages::PairResult R = K.against(K.Llir);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("unknown")) << R.Reason;
  EXPECT_NE(R.Reason.find("a race on shared memory"), std::string::npos)
      << R.Reason;
  EXPECT_NE(R.Reason.find("signs of zeros"), std::string::npos) << R.Reason;
  EXPECT_FALSE(R.Cex);
}

// The same race does not hide a real bug: the row sum's first add made a
// subtraction (line 130), and the maximum made a minimum (line 32), each a
// counterexample whose values differ by more than a zero's sign.
TEST(RacingWrites, DoNotHideADifferenceBeyondAZerosSign) {
  test::BundleKernel K("inductor_cross_entropy", "../bench/heldout4");
  for (auto [Line, Before, After] :
       {std::tuple<size_t, const char *, const char *>{
            130, "%106 = fadd float %83, %105",
            "  %106 = fsub float %83, %105, !dbg !31"},
        {32, "%30 = fcmp ogt float %28, %29",
         "  %30 = fcmp olt float %28, %29, !dbg !19"}}) {
    stages::PairResult R = K.against(K.edited(Line, Before, After));
    ASSERT_EQ(stages::spelling(R.Kind), std::string("counterexample"))
        << "line " << Line << ": " << R.Reason;
    ASSERT_TRUE(R.Cex && R.Cex->Source && R.Cex->Target);
    EXPECT_FALSE(R.Cex->Source->asDouble() == 0 &&
                 R.Cex->Target->asDouble() == 0)
        << "line " << Line << ": the two differ only in a zero's sign";
  }
}

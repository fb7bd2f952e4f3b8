//===- TtirToTtgirTest.cpp - The TTIR <-> TTGIR checker on files ----------===//
//
// Three kinds of inputs, each side first checked against itself:
//  - every TTIR/TTGIR pair of the captured corpus must be proved (a bound
//    may be used only where the loops are software-pipelined);
//  - stage-file pairs in this folder carry their expected verdict in the
//    TTGIR file's first line (`// expect: proved`);
//  - mutants of real TTGIR (MutantTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "frontends/ttir/Mlir.h"
#include "ir/Errors.h"
#include "stages/ttir_to_ttgir.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using namespace stagecheck;

namespace {

const fs::path Corpus = fs::path(STAGECHECK_TEST_DIR) / "corpus";
const fs::path Pairs = fs::path(STAGECHECK_TEST_DIR) / "stages" / "ttir_to_ttgir";

stages::CheckOptions options() {
  stages::CheckOptions O;
  O.Solver.TimeoutMs = 60000;
  return O;
}

std::string describe(const stages::PairResult &R) {
  std::string S = stages::spelling(R.Kind);
  if (!R.Reason.empty())
    S += ": " + R.Reason;
  if (R.Cex)
    S += ": " + R.Cex->Explanation;
  return S;
}

/// Each kernel directory of the corpus with both stage files.
std::vector<std::string> corpusKernels() {
  std::vector<std::string> Out;
  for (const auto &Bundle : fs::directory_iterator(Corpus)) {
    fs::path Kernels = Bundle.path() / "kernels";
    if (!fs::is_directory(Kernels))
      continue;
    for (const auto &K : fs::directory_iterator(Kernels)) {
      fs::path Base = K.path() / K.path().filename();
      if (fs::exists(Base.string() + ".ttir") && fs::exists(Base.string() + ".ttgir"))
        Out.push_back(fs::relative(Base, Corpus).string());
    }
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

class CorpusPair : public testing::TestWithParam<std::string> {};

TEST_P(CorpusPair, EachSideAgainstItselfThenTheTwo) {
  std::string Base = (Corpus / GetParam()).string();
  ttir::Module Ttir = ttir::parseModuleFile(Base + ".ttir");
  ttir::Module Ttgir = ttir::parseModuleFile(Base + ".ttgir");
  ir::Context C;
  stages::PairResult Self = stages::checkTtirToTtgir(C, Ttir, Ttir, options());
  ASSERT_EQ(Self.Kind, stages::Verdict::Proved) << "TTIR: " << describe(Self);
  Self = stages::checkTtirToTtgir(C, Ttgir, Ttgir, options());
  ASSERT_EQ(Self.Kind, stages::Verdict::Proved) << "TTGIR: " << describe(Self);
  stages::PairResult R = stages::checkTtirToTtgir(C, Ttir, Ttgir, options());
  EXPECT_EQ(R.Kind, stages::Verdict::Proved) << describe(R);
  // A bound is used only where the TTGIR loop is software-pipelined (it
  // carries async tokens the TTIR loop does not have).
  std::ifstream In(Base + ".ttgir");
  std::stringstream Text;
  Text << In.rdbuf();
  bool Pipelined = Text.str().find("ttg.async_copy_global_to_local") !=
                   std::string::npos;
  EXPECT_EQ(R.Bound != "none", Pipelined) << "bound: " << R.Bound;
  if (Pipelined) {
    EXPECT_NE(R.Bound.find("trip counts 0..4"), std::string::npos) << R.Bound;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, CorpusPair, testing::ValuesIn(corpusKernels()),
    [](const testing::TestParamInfo<std::string> &I) {
      std::string Name = I.param.substr(0, I.param.find('/'));
      for (char &C : Name)
        if (!std::isalnum((unsigned char)C))
          C = '_';
      return Name;
    });

TEST(CorpusPair, EveryBundleIsCovered) {
  // 35 bundles, one launch each: a pair that silently disappears would
  // leave a stage unchecked.
  EXPECT_EQ(corpusKernels().size(), 35u);
}

/// Stage-file pairs: NAME.ttir, NAME.ttgir; the expected verdict on the
/// TTGIR file's first line.
std::vector<std::string> stagePairs() {
  std::vector<std::string> Out;
  for (const auto &E : fs::directory_iterator(Pairs))
    if (E.path().extension() == ".ttgir")
      Out.push_back(E.path().stem().string());
  std::sort(Out.begin(), Out.end());
  return Out;
}

class StagePair : public testing::TestWithParam<std::string> {};

TEST_P(StagePair, HasTheExpectedVerdict) {
  fs::path Src = Pairs / (GetParam() + ".ttir");
  fs::path Tgt = Pairs / (GetParam() + ".ttgir");
  std::ifstream In(Tgt);
  std::string First;
  std::getline(In, First);
  const std::string Marker = "// expect: ";
  ASSERT_EQ(First.rfind(Marker, 0), 0u) << Tgt << " has no expected verdict";
  std::string Expected = First.substr(Marker.size());

  ttir::Module S = ttir::parseModuleFile(Src.string());
  ttir::Module T = ttir::parseModuleFile(Tgt.string());
  ir::Context C;
  stages::PairResult Self = stages::checkTtirToTtgir(C, S, S, options());
  ASSERT_EQ(Self.Kind, stages::Verdict::Proved) << describe(Self);
  if (Expected != "unknown") { // a target with an unsupported op cannot be
    Self = stages::checkTtirToTtgir(C, T, T, options());
    ASSERT_EQ(Self.Kind, stages::Verdict::Proved) << describe(Self);
  }
  stages::PairResult R = stages::checkTtirToTtgir(C, S, T, options());
  EXPECT_EQ(stages::spelling(R.Kind), Expected) << describe(R);
  if (R.Kind == stages::Verdict::Counterexample) {
    ASSERT_TRUE(R.Cex);
    // The report names the op of the target where it departs.
    bool Names = false;
    for (const std::string &N : R.Cex->Notes)
      Names |= N.find("first differs at ") != std::string::npos;
    EXPECT_TRUE(Names) << describe(R);
  }
}

INSTANTIATE_TEST_SUITE_P(Files, StagePair, testing::ValuesIn(stagePairs()));

TEST(StagePair, UnsupportedOpIsUnknownWithItsPlace) {
  ir::Context C;
  stages::PairResult R = stages::checkTtirToTtgir(
      C, (Pairs / "add_unsupported.ttir").string(),
      (Pairs / "add_unsupported.ttgir").string(), options());
  EXPECT_EQ(R.Kind, stages::Verdict::Unknown);
  EXPECT_EQ(R.Reason, "unsupported op tt.frobnicate at " +
                          (Pairs / "add_unsupported.ttgir").string() + ":22:5");
  EXPECT_EQ(stages::exitCode(R.Kind), 2);
}

TEST(StagePair, PipelinedLoopsStateTheirBound) {
  ir::Context C;
  std::string Base =
      (Corpus / "tutorial_matmul/kernels/matmul_kernel/matmul_kernel").string();
  stages::CheckOptions O = options();
  O.LoopBound = 2;
  stages::PairResult R =
      stages::checkTtirToTtgir(C, Base + ".ttir", Base + ".ttgir", O);
  EXPECT_EQ(R.Kind, stages::Verdict::Proved) << describe(R);
  EXPECT_NE(R.Bound.find("trip counts 0..2 of scf.for at"), std::string::npos)
      << R.Bound;
  EXPECT_NE(R.Bound.find("tutorial_matmul.py:38"), std::string::npos) << R.Bound;
}

TEST(StagePair, CorrespondingLoopsNeedNoBound) {
  ir::Context C;
  stages::PairResult R = stages::checkTtirToTtgir(
      C, (Pairs / "loop_sum.ttir").string(), (Pairs / "loop_sum.ttgir").string(),
      options());
  EXPECT_EQ(R.Kind, stages::Verdict::Proved) << describe(R);
  EXPECT_EQ(R.Bound, "none");
  ASSERT_FALSE(R.Queries.empty());
  EXPECT_NE(R.Queries.front().Name.find("bodies correspond"), std::string::npos);
}

TEST(StagePair, MalformedInputIsAnInputError) {
  std::string Text = "module {\n  tt.func public @k(%x: !tt.ptr<f32>) {\n"
                     "    %0 = arith.addi %x, : i32\n  }\n}\n";
  try {
    ttir::parseModule(Text, "bad.ttgir");
    ir::Context C;
    ttir::Module M = ttir::parseModule(Text, "bad.ttgir");
    stages::checkTtirToTtgir(C, M, M, options());
    FAIL() << "no error";
  } catch (const ir::InputError &E) {
    EXPECT_EQ(E.Where.File, "bad.ttgir");
    EXPECT_EQ(E.Where.Line, 3u);
    EXPECT_GT(E.Where.Column, 0u);
  }
}

} // namespace

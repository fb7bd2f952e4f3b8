// Stage-file pairs with their expected verdicts written beside them
// ("# expect ieee: proved" in the target file). Each side is first checked
// against itself, then the pair in each mode it names.
#include "ir/Text.h"
#include "stages/Refinement.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace stagecheck;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path &P) {
  std::ifstream In(P);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::map<std::string, std::string> expectations(const std::string &Text) {
  std::map<std::string, std::string> Out;
  std::istringstream In(Text);
  std::string Line;
  const std::string Tag = "# expect ";
  while (std::getline(In, Line))
    if (Line.rfind(Tag, 0) == 0) {
      size_t Colon = Line.find(':');
      Out[Line.substr(Tag.size(), Colon - Tag.size())] = Line.substr(Colon + 2);
    }
  return Out;
}

stages::PairResult check(const fs::path &Src, const fs::path &Tgt,
                         smt::Mode M) {
  ir::Context C;
  ir::Effects S = ir::parseEffects(C, slurp(Src), Src.string());
  ir::Effects T = ir::parseEffects(C, slurp(Tgt), Tgt.string());
  stages::CheckOptions O;
  O.Arithmetic = M;
  O.Solver.TimeoutMs = 30000;
  return stages::checkRefinement(C, S, T, O);
}

std::vector<std::string> pairNames() {
  std::vector<std::string> Names;
  for (const auto &E : fs::directory_iterator(STAGECHECK_TEST_DIR "/stages/sir")) {
    std::string F = E.path().filename().string();
    if (F.size() > 8 && F.substr(F.size() - 8) == ".tgt.sir")
      Names.push_back(F.substr(0, F.size() - 8));
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

class SirPair : public ::testing::TestWithParam<std::string> {};

TEST_P(SirPair, VerdictMatchesExpectation) {
  fs::path Dir = STAGECHECK_TEST_DIR "/stages/sir";
  fs::path Src = Dir / (GetParam() + ".src.sir");
  fs::path Tgt = Dir / (GetParam() + ".tgt.sir");
  auto Expected = expectations(slurp(Tgt));
  ASSERT_FALSE(Expected.empty()) << "no '# expect' line in " << Tgt;
  for (const fs::path &Side : {Src, Tgt}) {
    stages::PairResult Self = check(Side, Side, smt::Mode::IEEE);
    EXPECT_EQ(Self.Kind, stages::Verdict::Proved)
        << Side << " is not equivalent to itself: " << Self.Reason;
  }
  for (const auto &[ModeName, Verdict] : Expected) {
    smt::Mode M;
    ASSERT_TRUE(smt::parseMode(ModeName, M)) << ModeName;
    stages::PairResult R = check(Src, Tgt, M);
    EXPECT_EQ(stages::spelling(R.Kind), Verdict)
        << GetParam() << " in " << ModeName << ": " << R.Reason;
    if (R.Kind == stages::Verdict::Counterexample) {
      ASSERT_TRUE(R.Cex.has_value());
      EXPECT_FALSE(R.Cex->Explanation.empty());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, SirPair, ::testing::ValuesIn(pairNames()));

TEST(Refinement, CounterexampleNamesTheElementAndBothValues) {
  fs::path Dir = STAGECHECK_TEST_DIR "/stages/sir";
  stages::PairResult R =
      check(Dir / "assoc.src.sir", Dir / "assoc.tgt.sir", smt::Mode::IEEE);
  ASSERT_EQ(R.Kind, stages::Verdict::Counterexample);
  const stages::Counterexample &X = *R.Cex;
  EXPECT_EQ(X.Buffer, "out");
  ASSERT_TRUE(X.Index.has_value());
  EXPECT_EQ(*X.Index, 0u);
  ASSERT_TRUE(X.Source && X.Target);
  EXPECT_FALSE(X.Source->sameAs(*X.Target));
  EXPECT_EQ(X.SourceOrigin.Loc.str(), "assoc.py:3:5");
  EXPECT_EQ(X.TargetOrigin.Op, "st.global.f32");
  EXPECT_EQ(X.Inputs.symbols().size(), 3u); // a, b, c
}

TEST(Refinement, MissingWriteIsReportedAsUnwritten) {
  fs::path Dir = STAGECHECK_TEST_DIR "/stages/sir";
  stages::PairResult R = check(Dir / "dropped_guard.tgt.sir",
                               Dir / "dropped_guard.src.sir", smt::Mode::IEEE);
  ASSERT_EQ(R.Kind, stages::Verdict::Counterexample);
  EXPECT_TRUE(R.Cex->Source.has_value());
  EXPECT_FALSE(R.Cex->Target.has_value());
  EXPECT_GE(*R.Cex->Index, 64u);
}

} // namespace

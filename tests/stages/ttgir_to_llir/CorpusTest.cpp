// Every corpus bundle at TTGIR <-> LLVM IR: proved, except the bundles
// listed below, which must stay unknown for the reason given (the list
// only shrinks: one that proves fails the test until it is taken off).
#include "stages/ttgir_to_llir.h"
#include "TritonLibdevice.h"

#include "bundle/Manifest.h"
#include "ir/Errors.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>

using namespace stagecheck;
namespace fs = std::filesystem;

namespace {

/// Bundles not proved yet, with (a part of) the reason their check gives.
const std::map<std::string, std::string> NotYet = {};

std::vector<std::string> bundles() {
  std::vector<std::string> Out;
  for (const auto &E :
       fs::directory_iterator(fs::path(STAGECHECK_TEST_DIR) / "corpus"))
    if (fs::exists(E.path() / "manifest.json"))
      Out.push_back(E.path().filename().string());
  std::sort(Out.begin(), Out.end());
  return Out;
}

class CorpusPair : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusPair, Verdict) {
  bundle::Manifest M = bundle::loadBundle(
      (fs::path(STAGECHECK_TEST_DIR) / "corpus" / GetParam()).string());
  auto Listed = NotYet.find(GetParam());
  for (const bundle::Launch *L : M.launches()) {
    ir::Context C;
    stages::CheckOptions O;
    stages::TtgirToLlirOptions T = stages::optionsForLaunch(M, *L, O);
    T.Libdevice = test::tritonLibdevice();
    // The audit's own limit for bundles that must be proved (the test runs
    // beside the whole-corpus audit); the known gaps only show their reason.
    if (Listed != NotYet.end())
      T.TimeLimitSeconds = 15;
    stages::PairResult R =
        stages::checkTtgirToLlir(C, L->file("ttgir"), L->file("llir"), T);
    std::cout << GetParam() << " " << L->Kernel << ": "
              << stages::spelling(R.Kind) << " " << R.Seconds << " s"
              << (R.Reason.empty() ? "" : "  " + R.Reason.substr(0, 200))
              << "\n";
    if (R.Cex)
      std::cout << "  " << R.Cex->Explanation << "\n";
    if (Listed == NotYet.end()) {
      EXPECT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
      continue;
    }
    EXPECT_NE(R.Kind, stages::Verdict::Proved)
        << GetParam() << " proves now: take it off the list";
    EXPECT_EQ(stages::spelling(R.Kind), std::string("unknown"));
    EXPECT_NE(R.Reason.find(Listed->second), std::string::npos) << R.Reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusPair, ::testing::ValuesIn(bundles()),
                         [](const auto &I) { return I.param; });

} // namespace

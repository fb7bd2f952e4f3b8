// tt.scan with a combine whose order matters (inductor_cumsum's f32 running
// sum) in the order Triton's lowering computes it: each thread's registers,
// then the lanes' totals by shuffles up, then each register's carry from
// the lane before. The order is checked bit-exactly: the real LLVM IR
// proves, and the same sum associated otherwise gives a counterexample.
#include "TritonLibdevice.h"

#include "bundle/Manifest.h"
#include "tests/support/TextLines.h"

#include <gtest/gtest.h>

using namespace stagecheck;

namespace {

struct Cumsum {
  bundle::Manifest M = bundle::loadBundle(STAGECHECK_TEST_DIR
                                          "/corpus/inductor_cumsum");
  const bundle::Launch &L = *M.launches().front();
  std::string Llir = test::fileText(L.file("llir"));

  stages::PairResult against(const std::string &Text) const {
    return test::againstTtgir(M, L, Text, 60);
  }
};

TEST(Scan, InTritonsOrderIsProvedAndTheRuleListed) {
  Cumsum K;
  stages::PairResult R = K.against(K.Llir);
  ASSERT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
  bool Listed = false;
  for (const std::string &Rule : R.Relaxations)
    Listed |= Rule.rfind("scan order", 0) == 0;
  EXPECT_TRUE(Listed) << "the scan order is not among the rules used";
}

// Line 97 adds the carry from the lane before to the thread's prefix of two
// registers, c + (x0 + x1); the mutant adds (c + x0) + x1: equal over the
// reals, not in f32.
TEST(Scan, WithACarryAssociatedOtherwiseGivesACounterexample) {
  Cumsum K;
  std::vector<std::string> Lines = test::linesOf(K.Llir);
  ASSERT_GE(Lines.size(), 99u);
  ASSERT_NE(Lines[96].find("%96 = fadd float %42, %93"), std::string::npos)
      << Lines[96];
  ASSERT_NE(Lines[41].find("%42 = fadd float %28, %29"), std::string::npos)
      << Lines[41];
  Lines[96] = "  %carry0 = fadd float %28, %93\n"
              "  %96 = fadd float %carry0, %29";
  stages::PairResult R = K.against(test::joined(Lines));
  EXPECT_EQ(stages::spelling(R.Kind), std::string("counterexample"))
      << R.Reason;
}

} // namespace

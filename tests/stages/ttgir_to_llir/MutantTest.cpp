// Mutants of real LLVM IR: each must give a counterexample at TTGIR ->
// LLVM IR that names the mutated .llir line, while the original pair is
// proved.
#include "LlirMutants.h"
#include "TritonLibdevice.h"

#include "bundle/Manifest.h"
#include "tests/support/TextLines.h"
#include "frontends/ttir/Mlir.h"
#include "stages/ttgir_to_llir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace stagecheck;
using stagecheck::test::LlirMutation;

namespace {

struct Case {
  const char *Bundle;
  LlirMutation M;
};

// An off-by-one in the thread -> element arithmetic is named where it
// sends a thread's write to another thread's element (pointwise kernels);
// where it sends a load astray, the report names the first arithmetic on
// the wrong values instead. A shuffle to the wrong lane is named in a sum;
// in a max every value received is some element's, so the report names
// the first sum after it (docs/coverage.md).
const Case Cases[] = {
    {"inductor_sum_persistent", LlirMutation::DropBarrier},
    {"inductor_mean", LlirMutation::DropBarrier},
    {"inductor_sum_persistent", LlirMutation::SharedIndex},
    {"inductor_amax", LlirMutation::SharedIndex},
    {"bug_b_scaling_hardcoded", LlirMutation::AsmStoreLane},
    {"inductor_sum_persistent", LlirMutation::ShuffleLane},
    {"inductor_mean", LlirMutation::ShuffleLane},
    {"inductor_cumsum", LlirMutation::ShuffleLane},
    {"inductor_pointwise_chain", LlirMutation::ThreadElement},
    {"inductor_int_ops", LlirMutation::ThreadElement},
};

std::string name(const testing::TestParamInfo<Case> &I) {
  return std::string(I.param.Bundle) + "_" + test::spelling(I.param.M);
}

class LlirMutant : public testing::TestWithParam<Case> {};

TEST_P(LlirMutant, GivesACounterexampleNamingTheLlirLine) {
  const Case &K = GetParam();
  bundle::Manifest M =
      bundle::loadBundle(std::string(STAGECHECK_TEST_DIR "/corpus/") + K.Bundle);
  ASSERT_FALSE(M.launches().empty());
  const bundle::Launch &L = *M.launches().front();
  std::string Llir = test::fileText(L.file("llir"));
  // With the libdevice Triton 3.6 links kernels with.
  stages::PairResult Original = test::againstTtgir(M, L, Llir, 40);
  ASSERT_EQ(stages::spelling(Original.Kind), std::string("proved"))
      << Original.Reason;

  auto Mutant = test::mutateLlir(Llir, K.M);
  ASSERT_TRUE(Mutant) << "no site for the mutation";
  stages::PairResult R = test::againstTtgir(M, L, Mutant->Text, 40);
  ASSERT_EQ(stages::spelling(R.Kind), std::string("counterexample"))
      << R.Reason << " (.llir line " << Mutant->Line << ")";
  ASSERT_TRUE(R.Cex);
  std::string Where = L.file("llir") + ":" + std::to_string(Mutant->Line);
  bool Named = false;
  std::string Notes;
  for (const std::string &N : R.Cex->Notes) {
    size_t At = N.find(Where);
    Named |= At != std::string::npos &&
             (At + Where.size() == N.size() ||
              !std::isdigit(static_cast<unsigned char>(N[At + Where.size()])));
    Notes += "\n  " + N;
  }
  EXPECT_TRUE(Named) << "the report does not name " << Where << ":" << Notes
                     << "\n  " << R.Cex->Explanation;
}

INSTANTIATE_TEST_SUITE_P(Corpus, LlirMutant, testing::ValuesIn(Cases), name);

// A bool reduction whose warp step ands where it should or: a
// counterexample at the store. The report names the store, not the redux
// line: where the two sides part is traced through data values, and a
// bool's 0 and 1 are values the TTGIR has everywhere (docs/coverage.md).
TEST(LlirMutant, ABoolReductionsWarpStepChangedIsACounterexample) {
  test::BundleKernel K("inductor_all");
  stages::PairResult Original = K.against(K.Llir);
  ASSERT_EQ(stages::spelling(Original.Kind), std::string("proved"))
      << Original.Reason;
  auto Mutant = test::mutateLlir(K.Llir, LlirMutation::ReduxOperation);
  ASSERT_TRUE(Mutant) << "no redux.sync to mutate";
  EXPECT_NE(Mutant->Text.find("@llvm.nvvm.redux.sync.and("), std::string::npos);
  stages::PairResult R = K.against(Mutant->Text);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("counterexample")) << R.Reason;
}

} // namespace

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

// Shuffles to the wrong lane and off-by-ones in the thread -> element
// arithmetic give counterexamples that do not name the mutated line yet
// (docs/coverage.md); they are not listed.
const Case Cases[] = {
    {"inductor_sum_persistent", LlirMutation::DropBarrier},
    {"inductor_mean", LlirMutation::DropBarrier},
    {"inductor_sum_persistent", LlirMutation::SharedIndex},
    {"inductor_amax", LlirMutation::SharedIndex},
    {"bug_b_scaling_hardcoded", LlirMutation::AsmStoreLane},
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
  ttir::Module Ttgir = ttir::parseModuleFile(L.file("ttgir"));
  std::string Llir = test::fileText(L.file("llir"));
  stages::TtgirToLlirOptions O =
      stages::optionsForLaunch(M, L, stages::CheckOptions());
  O.Libdevice = test::tritonLibdevice();
  O.TimeLimitSeconds = 40;

  ir::Context C;
  stages::PairResult Original =
      stages::checkTtgirToLlir(C, Ttgir, Llir, L.file("llir"), O);
  ASSERT_EQ(stages::spelling(Original.Kind), std::string("proved"))
      << Original.Reason;

  auto Mutant = test::mutateLlir(Llir, K.M);
  ASSERT_TRUE(Mutant) << "no site for the mutation";
  ir::Context C2;
  stages::PairResult R =
      stages::checkTtgirToLlir(C2, Ttgir, Mutant->Text, L.file("llir"), O);
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

} // namespace

//===- MutantTest.cpp - Mutants of real TTGIR must fail at TTIR -> TTGIR --===//
//
// Each mutant is one string-level change of one op of a corpus TTGIR file
// (tests/stages/ttir_to_ttgir/Mutants.h). The checker must give a
// counterexample, and the report must name the mutated op and its line.
// The table records where each mutation is applied (an anchor: text of the
// line) and so which op is expected; the expected op and line come from the
// generator, not from the table.
//
//===----------------------------------------------------------------------===//
#include "Mutants.h"

#include "frontends/ttir/Mlir.h"
#include "stages/ttir_to_ttgir.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using namespace stagecheck;
using test::Mutation;

namespace {

const fs::path Corpus = fs::path(STAGECHECK_TEST_DIR) / "corpus";

struct Case {
  const char *Bundle; // tests/corpus/<Bundle>/kernels/<kernel>/<kernel>.ttgir
  Mutation Kind;
  const char *Anchor; // text on the line to mutate
};

const Case Cases[] = {
    // A changed constant.
    {"inductor_hardsigmoid", Mutation::ChangeConstant, "%cst_0 = arith.constant"},
    {"tutorial_vector_add", Mutation::ChangeConstant, "%c256_i32 = arith.constant"},
    {"inductor_int_ops", Mutation::ChangeConstant, "%cst_3 = arith.constant"},
    {"tutorial_layer_norm", Mutation::ChangeConstant, "%cst_0 = arith.constant"},
    {"tutorial_matmul", Mutation::ChangeConstant, "%cst = arith.constant"},
    // A flipped compare predicate.
    {"tutorial_vector_add", Mutation::FlipPredicate, "%mask_2 = arith.cmpi"},
    {"inductor_hardsigmoid", Mutation::FlipPredicate, "%mask_11 = arith.cmpf"},
    {"tutorial_fused_softmax", Mutation::FlipPredicate, "%mask_0 = arith.cmpi"},
    {"inductor_amax", Mutation::FlipPredicate, "arith.cmpf ogt"},
    // A dropped mask.
    {"tutorial_vector_add", Mutation::DropMask, "tt.store"},
    {"inductor_gelu", Mutation::DropMask, "tt.store"},
    {"tutorial_layer_norm", Mutation::DropMask, "%a_15 = tt.load"},
    {"tutorial_matmul", Mutation::DropMask, "tt.store"},
    // Swapped operands of subf / divf.
    {"tutorial_layer_norm", Mutation::SwapOperands, "%x_hat_18 = arith.subf"},
    {"tutorial_layer_norm", Mutation::SwapOperands, "%rstd_9 = arith.divf"},
    {"tutorial_fused_softmax", Mutation::SwapOperands, "arith.divf"},
    {"inductor_log_softmax", Mutation::SwapOperands, "%tmp15_11 = arith.subf"},
    // A wrong reduce combiner.
    {"inductor_sum_persistent", Mutation::WrongCombiner, "arith.addf"},
    {"tutorial_fused_softmax", Mutation::WrongCombiner, "arith.maxnumf"},
    {"tutorial_layer_norm", Mutation::WrongCombiner, "%var_12 = arith.addf"},
    {"inductor_sum_looped", Mutation::WrongCombiner, "arith.addf"},
    // An off-by-one make_range.
    {"tutorial_vector_add", Mutation::OffByOneRange, "tt.make_range"},
    {"inductor_int_ops", Mutation::OffByOneRange, "tt.make_range"},
    {"tutorial_fused_softmax", Mutation::OffByOneRange, "tt.make_range"},
    // A wrong convert_layout target shape.
    {"tutorial_matmul", Mutation::ConvertLayoutShape, "ttg.convert_layout"},
    {"inductor_mean", Mutation::ConvertLayoutShape, "ttg.convert_layout"},
};

std::string read(const fs::path &P) {
  std::ifstream In(P);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

fs::path kernelBase(const std::string &Bundle) {
  for (const auto &K : fs::directory_iterator(Corpus / Bundle / "kernels"))
    return K.path() / K.path().filename();
  return {};
}

class TtgirMutant : public testing::TestWithParam<Case> {};

TEST_P(TtgirMutant, GivesACounterexampleNamingTheOp) {
  const Case &M = GetParam();
  fs::path Base = kernelBase(M.Bundle);
  std::string TtgirPath = Base.string() + ".ttgir";
  std::optional<test::Mutant> Mutant = test::mutate(read(TtgirPath), M.Kind, M.Anchor);
  ASSERT_TRUE(Mutant) << test::spelling(M.Kind) << " does not apply at '"
                      << M.Anchor << "' in " << TtgirPath;
  ttir::Module Source = ttir::parseModuleFile(Base.string() + ".ttir");
  ttir::Module Target = ttir::parseModule(Mutant->Text, TtgirPath);
  ir::Context C;
  stages::CheckOptions O;
  O.Solver.TimeoutMs = 60000;
  stages::PairResult R = stages::checkTtirToTtgir(C, Source, Target, O);
  ASSERT_EQ(R.Kind, stages::Verdict::Counterexample)
      << test::spelling(M.Kind) << " at " << TtgirPath << ":" << Mutant->Line
      << ": " << stages::spelling(R.Kind) << " " << R.Reason;
  ASSERT_TRUE(R.Cex);
  std::string Expected = "first differs at " + Mutant->Op + " (" + TtgirPath +
                         ":" + std::to_string(Mutant->Line) + ":";
  std::string Notes;
  for (const std::string &N : R.Cex->Notes)
    Notes += N + "\n";
  EXPECT_NE(Notes.find(Expected), std::string::npos)
      << test::spelling(M.Kind) << ": expected '" << Expected << "' in\n"
      << Notes;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, TtgirMutant, testing::ValuesIn(Cases),
    [](const testing::TestParamInfo<Case> &I) {
      std::string Name = std::string(I.param.Bundle) + "_" +
                         test::spelling(I.param.Kind) + "_" +
                         std::to_string(I.index);
      for (char &C : Name)
        if (!std::isalnum((unsigned char)C))
          C = '_';
      return Name;
    });

TEST(TtgirMutant, EveryKindAppliesAcrossTheCorpus) {
  // The generator finds sites for every mutation kind in real files.
  std::map<Mutation, size_t> Sites;
  for (const auto &Bundle : fs::directory_iterator(Corpus)) {
    if (!fs::is_directory(Bundle.path() / "kernels"))
      continue;
    std::string Text = read(kernelBase(Bundle.path().filename()).string() + ".ttgir");
    for (Mutation M : {Mutation::ChangeConstant, Mutation::FlipPredicate,
                       Mutation::DropMask, Mutation::SwapOperands,
                       Mutation::WrongCombiner, Mutation::OffByOneRange,
                       Mutation::ConvertLayoutShape})
      Sites[M] += test::sites(Text, M).size();
  }
  EXPECT_EQ(Sites.size(), 7u);
  for (const auto &[M, N] : Sites)
    EXPECT_GT(N, 0u) << test::spelling(M);
}

} // namespace

// Sweeping merges target nodes with source nodes a query proves equal; a
// division the target spells as a multiply-high is left to the exact rule
// (stages/IntegerDivision.h), never bit-blasted by a sweep query.
#include "stages/IntegerDivision.h"
#include "stages/Sweep.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

struct SweepTest : ::testing::Test {
  Context C;
  Type I32 = Type::i(32);
  const Expr *Tid = C.symbol("tid.x", I32, SymbolRole::ThreadId);
  const Expr *N = C.read("arg0", I32, C.cast(Op::ZExt, Tid, Type::i(64)));
  std::filesystem::path Dump;

  void SetUp() override {
    Dump = std::filesystem::temp_directory_path() /
           ("stagecheck-sweep-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(Dump);
    std::filesystem::create_directories(Dump);
  }
  void TearDown() override { std::filesystem::remove_all(Dump); }

  size_t queriesAsked() const {
    size_t Count = 0;
    for (const auto &E : std::filesystem::directory_iterator(Dump))
      Count += E.path().filename().string().find("sweep") != std::string::npos;
    return Count;
  }

  stages::SweepResult run(const Expr *Source, const Expr *Target) {
    smt::SolverOptions S;
    S.DumpDir = Dump.string();
    stages::SweepOptions O;
    O.BlockDim[0] = 128;
    std::vector<const Expr *> Assumptions = {
        C.icmp(ICmpPredicate::Ult, Tid, C.intConst(I32, 128))};
    return stages::sweep(C, {Source}, {Target}, Assumptions, S, O);
  }
};

TEST_F(SweepTest, LeavesADivisionAgainstItsMultiplyHighToTheRule) {
  // n sdiv 3 against mul.hi(n, 0x55555556) plus the sign bit: equal for
  // every n, but a divider against a multiplier; no query is asked.
  const Expr *Source = C.binary(Op::SDiv, N, C.intConst(I32, 3));
  std::optional<const Expr *> Expansion =
      stages::signedDivisionByConstant(C, N, 3);
  ASSERT_TRUE(Expansion);
  stages::SweepResult R = run(Source, *Expansion);
  EXPECT_EQ(queriesAsked(), 0u);
  EXPECT_EQ(R.Proved, 0u);
  EXPECT_GE(R.Undecided, 1u);
}

TEST_F(SweepTest, AsksAboutTheSameDivisionOnBothSides) {
  // n sdiv d against the same division chosen where the assumption always
  // holds, d a parameter: one divider on each side, so the query is asked
  // (and proves).
  const Expr *D = C.symbol("arg1", I32, SymbolRole::Param);
  const Expr *Source = C.binary(Op::SDiv, N, D);
  const Expr *Target =
      C.select(C.icmp(ICmpPredicate::Ult, Tid, C.intConst(I32, 128)), Source,
               C.intConst(I32, 0));
  ASSERT_NE(Source, Target);
  stages::SweepResult R = run(Source, Target);
  EXPECT_GE(queriesAsked(), 1u);
  EXPECT_EQ(R.Rewrite(Target), Source);
}

} // namespace

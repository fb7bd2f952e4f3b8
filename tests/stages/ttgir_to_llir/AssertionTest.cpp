// What each thread may leave undefined. Device assertions of every thread
// against the TTGIR's (inductor's
// gather asserts each of its 128 indices lies in its row): the question
// "LLVM IR undefined where the TTGIR is defined" is ruled out thread by
// thread (stages/SplitDefinedness.h), where asked whole it reached its
// 20 s limit; an assertion one index stricter than the TTGIR's is a
// counterexample, shown by the failing thread's question. And a vector
// store through inline asm whose one lane is poison (a cast out of range)
// leaves the other lane defined.
#include "TritonLibdevice.h"

#include "stages/ttgir_to_llir.h"

#include <gtest/gtest.h>

using namespace stagecheck;

namespace {

TEST(Assertions, AGathersIndexChecksAreProvedThreadByThread) {
  test::BundleKernel K("inductor_gather", "../bench/heldout4");
  // 128 stores' value queries of 1-2 s each: 219-288 s on a slow machine.
  stages::PairResult R = test::againstTtgir(K.M, K.L, K.Llir, 600);
  ASSERT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
  bool Split = false;
  for (const stages::QueryReport &Q : R.Queries)
    Split |= Q.Name == "target defined where source is" &&
             Q.Outcome == smt::Outcome::Proved &&
             Q.Reason.find("ruled out on its own") != std::string::npos;
  EXPECT_TRUE(Split);
}

TEST(Assertions, AnAssertionStricterThanTheTtgirsIsACounterexample) {
  test::BundleKernel K("inductor_gather", "../bench/heldout4");
  stages::PairResult R = K.against(
      K.edited(25, "%19 = icmp ugt i64 %18, 31",
               "  %19 = icmp ugt i64 %18, 30, !dbg !18"));
  ASSERT_EQ(stages::spelling(R.Kind), std::string("counterexample"))
      << R.Reason;
  ASSERT_TRUE(R.Cex);
  EXPECT_NE(R.Cex->Explanation.find("device assertion failed"),
            std::string::npos)
      << R.Cex->Explanation;
  // From the failing thread's own question, replayed: the whole question
  // found it only near its limit, and not at all on a loaded machine.
  bool WayByWay = false;
  for (const stages::QueryReport &Q : R.Queries)
    WayByWay |= Q.Name == "target defined where source is" &&
                Q.Reason == "found way by way";
  EXPECT_TRUE(WayByWay);
}

// clamp_min(x, 0) cast to int32 stores two elements per thread with one
// st.global.v2.b32: with x = inf in the second, its fptosi is poison, and
// the first element (as the TTGIR's) is still defined. (A store's
// definedness once took every operand of the asm: a false counterexample.)
TEST(Assertions, APoisonLaneOfAVectorStoreLeavesTheOtherDefined) {
  test::BundleKernel K("inductor_clamp_min_int", "../bench/heldout2");
  stages::PairResult R = K.against(K.Llir);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
}

} // namespace

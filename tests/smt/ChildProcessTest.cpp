// Work in a forked child: its answer, its death and its deadline each
// reach the caller as what they are.
#include "smt/ChildProcess.h"

#include <csignal>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace stagecheck::smt;

namespace {

ChildOptions within(double Seconds, bool OwnGroup = false) {
  ChildOptions O;
  O.KillAt = std::chrono::steady_clock::now() +
             std::chrono::milliseconds(int64_t(Seconds * 1000));
  O.OwnProcessGroup = OwnGroup;
  return O;
}

TEST(ChildProcess, AnAnswerLargerThanThePipeComesBackWhole) {
  std::string Big(300000, 'x');
  ChildOutcome C = runInChild([&] { return Big + "end"; }, within(20));
  ASSERT_EQ(C.How, ChildOutcome::Answered);
  EXPECT_EQ(C.Answer.size(), Big.size() + 3);
  EXPECT_EQ(C.Answer.substr(Big.size()), "end");
}

TEST(ChildProcess, AChildThatCrashesIsNamedBySignal) {
  ChildOutcome C = runInChild(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "never";
      },
      within(20));
  ASSERT_EQ(C.How, ChildOutcome::Failed);
  EXPECT_NE(C.Failure.find("died"), std::string::npos) << C.Failure;
  EXPECT_NE(C.Failure.find("Segmentation fault"), std::string::npos)
      << C.Failure;
}

TEST(ChildProcess, AChildThatSaysNothingGaveNoAnswer) {
  ChildOutcome C = runInChild([] { return std::string(); }, within(20));
  ASSERT_EQ(C.How, ChildOutcome::Failed);
  EXPECT_EQ(C.Failure, "gave no answer");
}

TEST(ChildProcess, AChildPastItsDeadlineIsKilledWithItsGroup) {
  auto Start = std::chrono::steady_clock::now();
  // The grandchild keeps the pipe open: only killing the group ends it.
  ChildOutcome C = runInChild(
      []() -> std::string {
        if (fork() == 0)
          pause();
        pause();
        return "never";
      },
      within(0.5, /*OwnGroup=*/true));
  double Took = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  EXPECT_EQ(C.How, ChildOutcome::TimedOut);
  EXPECT_LT(Took, 10.0);
}

} // namespace

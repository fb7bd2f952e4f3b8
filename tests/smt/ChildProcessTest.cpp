// Work in a forked child: its answer, its death and its deadline each
// reach the caller as what they are.
#include "smt/ChildProcess.h"

#include <csignal>
#include <fstream>
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
  // The grandchild tells its pid through a pipe of the test's own.
  int Pids[2];
  ASSERT_EQ(pipe(Pids), 0);
  auto Start = std::chrono::steady_clock::now();
  ChildOutcome C = runInChild(
      [&]() -> std::string {
        if (pid_t G = fork(); G == 0) {
          pid_t Self = getpid();
          (void)!write(Pids[1], &Self, sizeof Self);
          for (;;)
            pause();
        }
        for (;;)
          pause();
      },
      within(0.5, /*OwnGroup=*/true));
  double Took = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  EXPECT_EQ(C.How, ChildOutcome::TimedOut);
  EXPECT_LT(Took, 10.0);
  close(Pids[1]);
  pid_t Grandchild = 0;
  ASSERT_EQ(read(Pids[0], &Grandchild, sizeof Grandchild),
            ssize_t(sizeof Grandchild));
  close(Pids[0]);
  // Killed with the group (then reaped by whoever adopted it): gone, or
  // a zombie, within a moment.
  bool Gone = false;
  for (int Tries = 0; Tries < 100 && !Gone; ++Tries) {
    std::ifstream Stat("/proc/" + std::to_string(Grandchild) + "/stat");
    std::string Pid, Name, State;
    Gone = !(Stat >> Pid >> Name >> State) || State == "Z";
    if (!Gone)
      usleep(20000);
  }
  EXPECT_TRUE(Gone) << "the grandchild " << Grandchild << " still runs";
  if (!Gone)
    kill(Grandchild, SIGKILL);
}

} // namespace

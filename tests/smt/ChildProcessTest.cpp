// Work in a forked child: its answer, its death and its deadline each
// reach the caller as what they are.
#include "smt/ChildProcess.h"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
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

/// Whether a process is gone (or a zombie) within two seconds.
bool goneSoon(pid_t Pid) {
  for (int Tries = 0; Tries < 100; ++Tries) {
    std::ifstream Stat("/proc/" + std::to_string(Pid) + "/stat");
    std::string Id, Name, State;
    if (!(Stat >> Id >> Name >> State) || State == "Z")
      return true;
    usleep(20000);
  }
  return false;
}

TEST(ChildProcess, AChildInItsOwnGroupGoesWhenItsParentIsKilled) {
  // An audit killed by `timeout` or by a harness: the signal reaches its
  // process group, not the pair's child in a group of its own, which must
  // not run on. Here the audit is a forked process P whose child C (own
  // group) tells its pid and waits for ever; P is then killed.
  int Pids[2];
  ASSERT_EQ(pipe(Pids), 0);
  pid_t P = fork();
  ASSERT_GE(P, 0);
  if (P == 0) {
    runInChild(
        [&]() -> std::string {
          pid_t Self = getpid();
          (void)!write(Pids[1], &Self, sizeof Self);
          for (;;)
            pause();
        },
        within(600, /*OwnGroup=*/true));
    _exit(0);
  }
  close(Pids[1]);
  pid_t Child = 0;
  ASSERT_EQ(read(Pids[0], &Child, sizeof Child), ssize_t(sizeof Child));
  close(Pids[0]);
  kill(P, SIGKILL);
  waitpid(P, nullptr, 0);
  bool Gone = goneSoon(Child);
  EXPECT_TRUE(Gone) << "the child " << Child << " outlived its parent";
  if (!Gone)
    kill(Child, SIGKILL);
}

std::chrono::steady_clock::time_point in(double Seconds) {
  return std::chrono::steady_clock::now() +
         std::chrono::milliseconds(int64_t(Seconds * 1000));
}

TEST(ChildSeries, OneChildAnswersEveryJobInOrder) {
  ChildSeries Series(
      0, 3,
      [](size_t I) {
        return std::to_string(I) + " by " + std::to_string(getpid());
      },
      /*OwnProcessGroup=*/true);
  std::string By;
  for (size_t I = 0; I < 3; ++I) {
    ChildOutcome C = Series.next(in(20));
    ASSERT_EQ(C.How, ChildOutcome::Answered) << C.Failure;
    std::string Job = C.Answer.substr(0, C.Answer.find(' '));
    std::string Pid = C.Answer.substr(C.Answer.rfind(' ') + 1);
    EXPECT_EQ(Job, std::to_string(I));
    EXPECT_NE(Pid, std::to_string(getpid()));
    if (I == 0)
      By = Pid;
    EXPECT_EQ(Pid, By) << "job " << I << " ran in another process";
  }
}

TEST(ChildSeries, AJobPastItsDeadlineEndsTheSeriesAndTheNextOneRunsAfresh) {
  auto Job = [](size_t I) -> std::string {
    if (I == 1)
      for (;;)
        pause();
    return "answer " + std::to_string(I);
  };
  ChildSeries First(0, 3, Job, /*OwnProcessGroup=*/true);
  ChildOutcome A = First.next(in(20));
  ASSERT_EQ(A.How, ChildOutcome::Answered);
  EXPECT_EQ(A.Answer, "answer 0");
  EXPECT_EQ(First.next(in(0.3)).How, ChildOutcome::TimedOut);
  EXPECT_TRUE(First.ended());
  EXPECT_EQ(First.next(in(20)).How, ChildOutcome::Failed);
  ChildSeries Rest(2, 3, Job, /*OwnProcessGroup=*/true);
  ChildOutcome C = Rest.next(in(20));
  ASSERT_EQ(C.How, ChildOutcome::Answered) << C.Failure;
  EXPECT_EQ(C.Answer, "answer 2");
}

TEST(ChildSeries, AJobThatCrashesIsNamedAfterTheAnswersBeforeIt) {
  ChildSeries Series(
      0, 2,
      [](size_t I) -> std::string {
        if (I == 1)
          std::abort();
        return "fine";
      },
      /*OwnProcessGroup=*/false);
  ChildOutcome A = Series.next(in(20));
  ASSERT_EQ(A.How, ChildOutcome::Answered);
  EXPECT_EQ(A.Answer, "fine");
  ChildOutcome B = Series.next(in(20));
  ASSERT_EQ(B.How, ChildOutcome::Failed);
  EXPECT_NE(B.Failure.find("Aborted"), std::string::npos) << B.Failure;
}

// A processor-time limit stops a job that computes, not one that waits:
// the same job is stopped at the same point on a busy machine and an idle
// one, and a job starved of the processor is not stopped for that.
TEST(ChildSeries, AJobIsStoppedByTheProcessorTimeItSpends) {
  auto Job = [](size_t I) -> std::string {
    if (I == 0) {
      usleep(400000);
      return "waited";
    }
    volatile uint64_t Count = 0;
    for (;;)
      Count = Count + 1;
  };
  ChildSeries Series(0, 2, Job, /*OwnProcessGroup=*/false);
  ChildOutcome Waited = Series.next(in(20), 100);
  ASSERT_EQ(Waited.How, ChildOutcome::Answered) << Waited.Failure;
  EXPECT_LT(Waited.CpuMs, 100);
  ChildOutcome Spun = Series.next(in(20), 200);
  EXPECT_EQ(Spun.How, ChildOutcome::TimedOut);
  EXPECT_GE(Spun.CpuMs, 200);
  EXPECT_LT(Spun.CpuMs, 2000);
}

} // namespace

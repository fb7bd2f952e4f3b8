//===- ChildProcess.cpp - Work in a forked child under a deadline ---------===//

#include "smt/ChildProcess.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace stagecheck::smt {

namespace {

void writeAll(int Fd, const std::string &Text) {
  const char *P = Text.data();
  size_t Left = Text.size();
  while (Left > 0) {
    ssize_t N = write(Fd, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    P += N;
    Left -= size_t(N);
  }
}

/// Takes the first whole answer off Buffer (each is sent as its length in
/// decimal, a newline, then its bytes); nothing while it is still arriving.
std::optional<std::string> takeAnswer(std::string &Buffer) {
  size_t NewLine = Buffer.find('\n');
  if (NewLine == std::string::npos)
    return std::nullopt;
  size_t Length = std::strtoull(Buffer.c_str(), nullptr, 10);
  if (Buffer.size() - NewLine - 1 < Length)
    return std::nullopt;
  std::string Answer = Buffer.substr(NewLine + 1, Length);
  Buffer.erase(0, NewLine + 1 + Length);
  return Answer;
}

std::string whyNoAnswer(int Status) {
  if (WIFSIGNALED(Status))
    return std::string("died (") + strsignal(WTERMSIG(Status)) + ")";
  return "gave no answer";
}

} // namespace

ChildSeries::ChildSeries(size_t First, size_t End,
                         const std::function<std::string(size_t)> &Work,
                         bool OwnProcessGroup)
    : OwnProcessGroup(OwnProcessGroup) {
  int Pipe[2];
  if (pipe(Pipe) != 0) {
    StartFailure = std::string("could not start (pipe: ") +
                   std::strerror(errno) + ")";
    Ended = true;
    return;
  }
  std::fflush(nullptr); // the child must not flush the parent's buffers again
  pid_t Parent = getpid();
  Child = fork();
  if (Child < 0) {
    StartFailure = std::string("could not start (fork: ") +
                   std::strerror(errno) + ")";
    close(Pipe[0]);
    close(Pipe[1]);
    Ended = true;
    return;
  }
  if (Child == 0) {
    // A child in a process group of its own is out of reach of a signal to
    // the parent's group (`timeout`, a harness killing an audit): it goes
    // when its parent does, and so, in turn, do its own children.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != Parent)
      _exit(1);
    if (OwnProcessGroup)
      setpgid(0, 0);
    close(Pipe[0]);
    for (size_t I = First; I < End; ++I) {
      std::string Answer = Work(I);
      writeAll(Pipe[1], std::to_string(Answer.size()) + "\n" + Answer);
    }
    close(Pipe[1]);
    std::fflush(nullptr);
    _exit(0);
  }
  if (OwnProcessGroup)
    setpgid(Child, Child); // either side may run first
  close(Pipe[1]);
  Fd = Pipe[0];
  HasCpuClock = clock_getcpuclockid(Child, &CpuClock) == 0;
}

double ChildSeries::childCpuMs() {
  struct timespec T;
  if (HasCpuClock && clock_gettime(CpuClock, &T) == 0)
    CpuMs = double(T.tv_sec) * 1000 + double(T.tv_nsec) / 1e6;
  return CpuMs;
}

ChildSeries::~ChildSeries() {
  if (!Ended)
    stop(/*Kill=*/true);
}

int ChildSeries::stop(bool Kill) {
  Ended = true;
  close(Fd);
  childCpuMs(); // its last reading, before it is reaped
  if (Kill)
    kill(OwnProcessGroup ? -Child : Child, SIGKILL);
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0 && errno == EINTR) {
  }
  return Status;
}

ChildOutcome ChildSeries::next(std::chrono::steady_clock::time_point KillAt,
                               std::optional<double> CpuLimitMs) {
  using Clock = std::chrono::steady_clock;
  if (Ended)
    return {ChildOutcome::Failed, "",
            StartFailure.empty() ? "had ended" : StartFailure};
  // The job's processor time counts from the answer before it (the child
  // goes on to the next job at once).
  auto Outcome = [&](ChildOutcome::Kind How, std::string Answer,
                     std::string Failure) {
    ChildOutcome O{How, std::move(Answer), std::move(Failure)};
    O.CpuMs = childCpuMs() - JobStart;
    JobStart = CpuMs;
    return O;
  };
  for (;;) {
    if (std::optional<std::string> Answer = takeAnswer(Buffer)) {
      if (!Answer->empty())
        return Outcome(ChildOutcome::Answered, std::move(*Answer), "");
      stop(/*Kill=*/true);
      return Outcome(ChildOutcome::Failed, "", "gave no answer");
    }
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    KillAt - Clock::now())
                    .count();
    if (Left <= 0 ||
        (CpuLimitMs && HasCpuClock && childCpuMs() - JobStart >= *CpuLimitMs)) {
      stop(/*Kill=*/true);
      return Outcome(ChildOutcome::TimedOut, "", "");
    }
    // A processor-time limit is looked at every 10 ms.
    long long Wait = std::min<long long>(Left, CpuLimitMs ? 10 : 1000);
    struct pollfd P = {Fd, POLLIN, 0};
    if (poll(&P, 1, int(Wait)) <= 0)
      continue;
    char Chunk[65536];
    ssize_t N = read(Fd, Chunk, sizeof Chunk);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) // the child ended before this job's answer was whole
      return Outcome(ChildOutcome::Failed, "",
                     whyNoAnswer(stop(/*Kill=*/false)));
    Buffer.append(Chunk, size_t(N));
  }
}

ChildOutcome runInChild(const std::function<std::string()> &Work,
                        const ChildOptions &O) {
  ChildSeries Series(0, 1, [&](size_t) { return Work(); }, O.OwnProcessGroup);
  return Series.next(O.KillAt, O.CpuLimitMs);
}

} // namespace stagecheck::smt

//===- ChildProcess.cpp - Work in a forked child under a deadline ---------===//

#include "smt/ChildProcess.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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

/// Reads Fd to its end or until KillAt; false when KillAt came first.
bool readUntil(int Fd, std::chrono::steady_clock::time_point KillAt,
               std::string &Out) {
  using Clock = std::chrono::steady_clock;
  for (;;) {
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    KillAt - Clock::now())
                    .count();
    if (Left <= 0)
      return false;
    struct pollfd P = {Fd, POLLIN, 0};
    if (poll(&P, 1, int(std::min<long long>(Left, 1000))) <= 0)
      continue;
    char Buf[65536];
    ssize_t N = read(Fd, Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return true;
    Out.append(Buf, size_t(N));
  }
}

} // namespace

ChildOutcome runInChild(const std::function<std::string()> &Work,
                        const ChildOptions &O) {
  int Pipe[2];
  if (pipe(Pipe) != 0)
    return {ChildOutcome::Failed, "",
            std::string("could not start (pipe: ") + std::strerror(errno) + ")"};
  std::fflush(nullptr); // the child must not flush the parent's buffers again
  pid_t Child = fork();
  if (Child < 0) {
    close(Pipe[0]);
    close(Pipe[1]);
    return {ChildOutcome::Failed, "",
            std::string("could not start (fork: ") + std::strerror(errno) + ")"};
  }
  if (Child == 0) {
    if (O.OwnProcessGroup)
      setpgid(0, 0);
    close(Pipe[0]);
    writeAll(Pipe[1], Work());
    close(Pipe[1]);
    std::fflush(nullptr);
    _exit(0);
  }
  if (O.OwnProcessGroup)
    setpgid(Child, Child); // either side may run first
  close(Pipe[1]);
  std::string Answer;
  bool Ended = readUntil(Pipe[0], O.KillAt, Answer);
  close(Pipe[0]);
  if (!Ended)
    kill(O.OwnProcessGroup ? -Child : Child, SIGKILL);
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0 && errno == EINTR) {
  }
  if (!Ended)
    return {ChildOutcome::TimedOut, "", ""};
  if (!Answer.empty())
    return {ChildOutcome::Answered, std::move(Answer), ""};
  if (WIFSIGNALED(Status))
    return {ChildOutcome::Failed, "",
            std::string("died (") + strsignal(WTERMSIG(Status)) + ")"};
  return {ChildOutcome::Failed, "", "gave no answer"};
}

} // namespace stagecheck::smt

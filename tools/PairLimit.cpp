//===- PairLimit.cpp - A stage pair's check within a wall-clock limit -----===//

#include "tools/PairLimit.h"

#include "ir/Errors.h"
#include "ir/Expr.h"
#include "tools/Json.h"

#include "llvm/Support/JSON.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace stagecheck::tools {

namespace {

/// What the child sends back: the result, or the error it stopped on,
/// so the parent fails the way the check would have failed in-process.
std::string answerOf(const std::function<stages::PairResult()> &Check) {
  llvm::json::Object A;
  try {
    A["result"] = pairToJson(Check());
  } catch (const ir::InputError &E) {
    A["input_error"] = E.what();
  } catch (const ir::UnsupportedError &E) {
    A["unsupported"] = E.what();
  } catch (const ir::IRError &E) {
    A["ir_error"] = E.what();
  } catch (const std::exception &E) {
    A["internal_error"] = E.what();
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(std::move(A));
  OS.flush();
  return Text;
}

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

stages::PairResult unknown(const std::string &Reason) {
  stages::PairResult R;
  R.Kind = stages::Verdict::Unknown;
  R.Reason = Reason;
  return R;
}

stages::PairResult fromAnswer(const std::string &Answer) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Answer);
  if (!V) {
    llvm::consumeError(V.takeError());
    return unknown("the checker's process gave no readable answer");
  }
  const llvm::json::Object *A = V->getAsObject();
  if (!A)
    return unknown("the checker's process gave no readable answer");
  if (auto M = A->getString("input_error"))
    throw ir::InputError({}, M->str());
  if (auto M = A->getString("unsupported"))
    throw ir::UnsupportedError({}, M->str());
  if (auto M = A->getString("ir_error"))
    throw ir::IRError(M->str());
  if (auto M = A->getString("internal_error"))
    throw std::runtime_error(M->str());
  if (const llvm::json::Value *R = A->get("result"))
    if (std::optional<stages::PairResult> Result = pairFromJson(*R))
      return *Result;
  return unknown("the checker's process gave no readable answer");
}

std::string limitReason(double LimitSeconds) {
  std::ostringstream S;
  S << "timeout: the pair's time limit of " << LimitSeconds
    << " s was reached and the check was stopped (--pair-time-limit-s)";
  return S.str();
}

} // namespace

stages::PairResult
runWithinLimit(const std::function<stages::PairResult()> &Check,
               double LimitSeconds) {
  if (LimitSeconds <= 0)
    return Check();
  using Clock = std::chrono::steady_clock;
  auto Start = Clock::now();
  int Pipe[2];
  if (pipe(Pipe) != 0)
    return unknown(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  pid_t Child = fork();
  if (Child < 0) {
    close(Pipe[0]);
    close(Pipe[1]);
    return unknown(std::string("fork: ") + std::strerror(errno));
  }
  if (Child == 0) {
    // Its own group: the solver processes it starts die with it.
    setpgid(0, 0);
    close(Pipe[0]);
    writeAll(Pipe[1], answerOf(Check));
    close(Pipe[1]);
    std::fflush(nullptr);
    _exit(0);
  }
  setpgid(Child, Child); // either side may run first
  close(Pipe[1]);
  double KilledAfter = LimitSeconds + std::min(LimitSeconds, 10.0);
  auto Deadline = Start + std::chrono::milliseconds(
                              int64_t(std::ceil(KilledAfter * 1000)));
  std::string Answer;
  bool TimedOut = false;
  for (;;) {
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    Deadline - Clock::now())
                    .count();
    if (Left <= 0) {
      TimedOut = true;
      break;
    }
    struct pollfd P = {Pipe[0], POLLIN, 0};
    if (poll(&P, 1, int(std::min<long long>(Left, 1000))) <= 0)
      continue;
    char Buf[65536];
    ssize_t N = read(Pipe[0], Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Answer.append(Buf, size_t(N));
  }
  close(Pipe[0]);
  if (TimedOut)
    kill(-Child, SIGKILL);
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0 && errno == EINTR) {
  }
  double Seconds =
      std::chrono::duration<double>(Clock::now() - Start).count();
  if (TimedOut) {
    stages::PairResult R = unknown(limitReason(LimitSeconds));
    R.Seconds = Seconds;
    return R;
  }
  if (Answer.empty()) {
    stages::PairResult R = unknown(
        WIFSIGNALED(Status)
            ? std::string("the checker's process died (") +
                  strsignal(WTERMSIG(Status)) + ")"
            : std::string("the checker's process gave no answer"));
    R.Seconds = Seconds;
    return R;
  }
  return fromAnswer(Answer);
}

} // namespace stagecheck::tools

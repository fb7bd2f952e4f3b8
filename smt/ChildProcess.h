//===- ChildProcess.h - Work in a forked child under a deadline -*- C++ -*-===//
//
// A solver query or a whole stage pair's check can run past any limit the
// work sets itself (Z3 4.8's soft timeout is unreliable; a lifter can
// loop). Such work runs in a forked child that writes its answer to a pipe
// and is killed when the deadline passes, so the caller always gets control
// back and can say why there is no answer.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_SMT_CHILDPROCESS_H
#define STAGECHECK_SMT_CHILDPROCESS_H

#include <chrono>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>

namespace stagecheck::smt {

struct ChildOutcome {
  enum Kind {
    Answered, // the child wrote an answer and ended
    TimedOut, // the deadline passed first; the child was killed
    Failed,   // no answer: the child died, wrote nothing, or never started
  } How;
  std::string Answer;  // what the child wrote (Answered)
  /// Why there is no answer (Failed), a phrase to follow the name of what
  /// ran: "died (Segmentation fault)", "gave no answer", "could not start
  /// (fork: ...)".
  std::string Failure;
  /// The processor time the child spent on this job, in milliseconds:
  /// unlike the time it took, the same on a busy machine and an idle one.
  double CpuMs = 0;
};

struct ChildOptions {
  std::chrono::steady_clock::time_point KillAt;
  /// Also killed once the job has spent this much processor time.
  std::optional<double> CpuLimitMs;
  /// The child leads a process group of its own and the whole group is
  /// killed at the deadline (the processes the child started die with it).
  bool OwnProcessGroup = false;
};

/// Forks, runs Work in the child and sends back the string it returns.
/// Work runs in a copy of this process: it must not return into the
/// caller's stack (it is followed by _exit in the child).
ChildOutcome runInChild(const std::function<std::string()> &Work,
                        const ChildOptions &O);

/// One forked child that works through jobs First, First+1, ... End-1 in
/// order and sends back each job's answer as soon as it is made. What the
/// first job warms up (the heap's pages, a solver's tables) serves the rest,
/// where a child per job would fault it all in again; each job still has
/// its own deadline. Once a job times out or the child dies, the series is
/// over: the caller starts another for the jobs after it.
class ChildSeries {
public:
  /// Forks at once. Work(I) runs in the child, as in runInChild.
  ChildSeries(size_t First, size_t End,
              const std::function<std::string(size_t)> &Work,
              bool OwnProcessGroup);
  ~ChildSeries(); // kills what is left of the child and reaps it
  ChildSeries(const ChildSeries &) = delete;
  ChildSeries &operator=(const ChildSeries &) = delete;

  /// The next job's answer; TimedOut (the child is killed) if KillAt comes
  /// first or the job spends CpuLimitMs of processor time, Failed if the
  /// child died or could not start. After either, the series has ended.
  ChildOutcome next(std::chrono::steady_clock::time_point KillAt,
                    std::optional<double> CpuLimitMs = std::nullopt);
  bool ended() const { return Ended; }

private:
  /// Ends the series: kills the child if asked, reaps it, returns its status.
  int stop(bool Kill);
  /// The child's processor time so far, in milliseconds (the last reading
  /// once it can no longer be read).
  double childCpuMs();

  pid_t Child = -1;
  int Fd = -1;
  bool OwnProcessGroup;
  bool Ended = false;
  std::string StartFailure; // why the child could not start
  std::string Buffer;       // bytes read past the last whole answer
  clockid_t CpuClock;
  bool HasCpuClock = false;
  double CpuMs = 0;    // the last reading of childCpuMs
  double JobStart = 0; // the reading when the job began
};

} // namespace stagecheck::smt

#endif

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
#include <functional>
#include <string>

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
};

struct ChildOptions {
  std::chrono::steady_clock::time_point KillAt;
  /// The child leads a process group of its own and the whole group is
  /// killed at the deadline (the processes the child started die with it).
  bool OwnProcessGroup = false;
};

/// Forks, runs Work in the child and sends back the string it returns.
/// Work runs in a copy of this process: it must not return into the
/// caller's stack (it is followed by _exit in the child).
ChildOutcome runInChild(const std::function<std::string()> &Work,
                        const ChildOptions &O);

} // namespace stagecheck::smt

#endif

//===- PairLimit.h - A stage pair's check within a wall-clock limit -*- C++ -*-===//
//
// A checker that loops in the lifter or the interpreter is not stopped by
// the solver's time limit, and one nightly run over thousands of kernels
// must not wait on one kernel. An audit's pair checks run, one after
// another, in a child process (its own process group, solver processes
// included) that is killed when a pair's limit passes; that pair's verdict
// is then `unknown` (timeout), never a verdict the check did not reach, and
// the pairs after it go to a new child. A checker that crashes is `unknown`
// too, with the signal named. One child for the series, not one per pair:
// a new process faults in its heap and the solver's tables afresh, which
// cost a small kernel's audit more than its checks did.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TOOLS_PAIRLIMIT_H
#define STAGECHECK_TOOLS_PAIRLIMIT_H

#include "stages/Refinement.h"

#include <functional>
#include <vector>

namespace stagecheck::tools {

/// Runs Check in a child process and returns its result, or `unknown` when
/// it runs past LimitSeconds (0: no limit, Check runs in this process).
/// Check is expected to stop its queries at the limit by itself (its
/// Solver.Deadline) and report which one it stopped; the child is killed
/// only when it has not answered 10 s later (or LimitSeconds later, when
/// that is shorter). An input error in the child is rethrown here as
/// ir::InputError.
stages::PairResult
runWithinLimit(const std::function<stages::PairResult()> &Check,
               double LimitSeconds);

/// The same for a series of checks, each with its own limit, in as few
/// child processes as their limits allow; the results are in their order.
std::vector<stages::PairResult>
runAllWithinLimit(const std::vector<std::function<stages::PairResult()>> &Checks,
                  double LimitSeconds);

} // namespace stagecheck::tools

#endif

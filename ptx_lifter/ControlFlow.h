//===- ControlFlow.h - Paths through a PTX body, merged at joins -*- C++
//-*-===//
//
// Runs a body (a kernel's, or an inline-asm template's) for one thread by
// path merging. Statements are visited in order of position; a branch
// sends its taken path to the target label and its other path on; paths
// that meet at a label are merged into one (registers become selects over
// the paths' conditions, the condition their disjunction, simplified where
// it splits on a literal and its negation). A branch back to an earlier
// label is a loop's back edge: the loop is unrolled while the back edge's
// condition is the loop's entry condition (the branch folded), up to
// MaxUnroll iterations; otherwise to LoopBound iterations, after which the
// lift assumes the loop has exited (ThreadModel::assume and ::bound).
//
// Internal to ptx_lifter/.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_PTX_LIFTER_CONTROLFLOW_H
#define STAGECHECK_PTX_LIFTER_CONTROLFLOW_H

#include "ptx_lifter/Executor.h"

#include <map>
#include <optional>
#include <span>
#include <vector>

namespace stagecheck::ptx {

struct FlowOptions {
  uint64_t MaxUnroll = 1024;
  unsigned LoopBound = 4;
  /// ret and exit end the thread (a kernel); in a template they are not
  /// modelled.
  bool AllowReturn = true;
  /// Instructions executed, over all paths, before the lift gives up.
  uint64_t MaxSteps = 4000000;
};

class PathMerger {
public:
  /// Throws ir::InputError for a branch to a label the body lacks or a
  /// label defined twice.
  PathMerger(Executor &X, const std::vector<Statement> &Body, FlowOptions O);

  /// Runs the body from its first statement; returns the paths that reach
  /// its end (falling off it, ret or exit), merged, or nothing when none
  /// does.
  std::optional<PathState> run(PathState Initial);

private:
  struct Arrival {
    PathState State;
    bool BackEdge;
  };
  struct Loop {
    uint64_t Taken = 0;              // back edges taken since entry
    const ir::Expr *Entry = nullptr; // the condition the loop was entered on
    bool Noted = false;
  };

  void runFrom(size_t Position, PathState S);
  /// Returns false when the path ended at the branch.
  bool branch(size_t Position, PathState &S);
  void send(size_t Target, PathState S, size_t From);
  void backEdge(size_t Target, PathState S, size_t From);
  PathState merge(std::vector<Arrival> &Arrivals);
  const ir::Expr *unionOf(std::vector<std::span<const ir::Expr *const>> Lists,
                          size_t Depth);
  const ir::Expr *mergedValue(const std::vector<PathState *> &States,
                              const std::vector<const ir::Expr *> &Residuals,
                              const std::string &Register);
  size_t target(const Instruction &I) const;
  /// The block at label position K ends the thread with undefined
  /// behaviour (its reason), or "" when it does not.
  std::string deadEndAt(size_t K) const;
  std::optional<size_t> deadEndAhead(size_t Position) const;
  /// Records the path's end in a dead-end block.
  void endInDeadEnd(size_t K, const PathState &S);

  Executor &X;
  ir::Context &C;
  const std::vector<Statement> &Body;
  FlowOptions O;
  std::map<std::string, size_t> Labels;
  std::vector<bool> IsTarget;
  std::map<size_t, std::vector<Arrival>> Pending;
  std::map<size_t, Loop> Loops;
  /// Conditions of paths cut at a loop bound: assumed false.
  std::vector<std::vector<const ir::Expr *>> Cut;
  std::vector<PathState> Finished;
  /// Label positions whose block only calls __assertfail and traps.
  std::map<size_t, std::string> DeadEnds;
  uint64_t Steps = 0;
};

} // namespace stagecheck::ptx

#endif

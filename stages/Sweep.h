//===- Sweep.h - Merging nodes two stages compute alike ---------*- C++ -*-===//
//
// Two lowerings of one kernel compute most values alike but spell them
// differently: an address as base + 4*sext(i|1) in one stage and as
// (base + 4*sext(i)) + 4 in the other, a guard as `or` in one and as a
// chain of selects in the other. A solver asked whether two f32 sums of
// loads at such addresses are equal bit-blasts the sums and the address
// arithmetic together, and times out; asked first whether the two
// addresses are equal, it answers in milliseconds, and then the loads are
// the same node and so are the sums.
//
// Sweeping (as in the FRAIG equivalence checkers of hardware verification)
// does that in order, bottom-up: the nodes of the target (indices, guards,
// lane arithmetic, and floats) are simulated on random inputs that satisfy
// the assumptions; a target node whose values match a source node's is
// proved equal to it by a query under the assumptions, and replaced by
// it. For floats the query cuts off the nodes the two share as free
// variables (so a max spelled with other selects costs a few compares,
// not the arithmetic below it); integers are asked whole, since facts
// such as an index being even live in what they share. Replacing a node by one
// proved equal for every input that satisfies the assumptions changes no
// query that conjoins them, which every query of a stage pair does.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_SWEEP_H
#define STAGECHECK_STAGES_SWEEP_H

#include "ir/Expr.h"
#include "smt/Solver.h"

#include <functional>
#include <unordered_map>
#include <vector>

namespace stagecheck::stages {

struct SweepOptions {
  /// Random inputs each node is simulated on.
  unsigned Samples = 48;
  /// Solver budgets (work, smt::WorkBudget) of one equality query, and of
  /// the whole sweep.
  unsigned QueryTimeoutMs = 1000;
  /// Float candidates: at most this many float operations in the query
  /// once shared nodes are cut off, and a shorter limit.
  unsigned MaxFloatArithmetic = 2;
  unsigned FloatQueryTimeoutMs = 500;
  unsigned TotalMs = 20000;
  /// Extents of the thread-id symbols (tid.x < BlockDim[0]...).
  unsigned BlockDim[3] = {1024, 1, 1};
};

struct SweepResult {
  /// Target nodes and the source nodes proved equal to them.
  std::unordered_map<const ir::Expr *, const ir::Expr *> Merged;
  unsigned Proved = 0, Refuted = 0, Undecided = 0;
  /// Rewrites an expression of the target through Merged.
  std::function<const ir::Expr *(const ir::Expr *)> Rewrite;
};

/// Finds target nodes equal to source nodes under Assumptions. The result's
/// Rewrite must be applied to every target expression (and nothing else).
SweepResult sweep(ir::Context &C, const std::vector<const ir::Expr *> &Source,
                  const std::vector<const ir::Expr *> &Target,
                  const std::vector<const ir::Expr *> &Assumptions,
                  const smt::SolverOptions &Solver, const SweepOptions &O);

} // namespace stagecheck::stages

#endif

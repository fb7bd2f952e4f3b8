//===- CaseSplit.h - A query split on the kernel's uniform branches -*- C++
//-*-===//
//
// Two lowerings of a loop with a symbolic trip count merge its exits in
// different places: the LLVM IR runs the exit block once per exiting
// iteration and selects among the results, `n < 257 ? sum(acc1) :
// n < 513 ? sum(acc2) : ...`; the PTX selects among the accumulators first
// and sums once, `sum(n >= 513 ? acc3 : n >= 257 ? acc2 : acc1)`. The two
// are equal, but a solver asked so bit-blasts every float sum of every
// case at once, and times out.
//
// Splitting on the conditions decides it without arithmetic: for each
// comparison the selects branch on that depends on kernel parameters only
// (a trip count, a size), the query is asked once with the comparison
// true and once with it false, each time with the comparison replaced by
// that constant, so the selects fold away. Under `257 <= n < 513` both
// sides above fold to sum(acc2), the same node, and the case needs no
// solver. A case whose literals contradict each other is dropped (asked
// of the solver alone, which is small: only the parameters occur).
//
// Sound: every input satisfies one literal of each split, and under that
// literal the substituted query has the original's value. The whole query
// is proved exactly when every case is; a case's model is a model of the
// original query. The cases share the original query's time limit.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_CASESPLIT_H
#define STAGECHECK_STAGES_CASESPLIT_H

#include "ir/Expr.h"
#include "smt/Solver.h"

#include <span>
#include <utility>
#include <vector>

namespace stagecheck::stages {

struct CaseSplitOptions {
  /// Cases handed to the solver (after folding and pruning) before the
  /// rest is asked unsplit.
  unsigned MaxCases = 64;
  /// Comparisons split on along one path.
  unsigned MaxDepth = 16;
};

struct CaseSplitStats {
  unsigned Folded = 0;     // cases whose violation folded to false
  unsigned Infeasible = 0; // cases whose literals contradict each other
  unsigned Solved = 0;     // cases asked of the solver
};

/// The comparisons that `Violation`'s selects branch on and that depend on
/// nothing but kernel parameters, program ids and grid sizes, most used
/// first (then by creation order).
std::vector<const ir::Expr *>
uniformBranchConditions(const ir::Expr *Violation);
/// The same over several expressions.
std::vector<const ir::Expr *>
uniformBranchConditions(std::span<const ir::Expr *const> Roots);

/// E with every occurrence of the node Atom replaced by the constant Value,
/// folded.
const ir::Expr *substitute(ir::Context &C, const ir::Expr *E,
                           const ir::Expr *Atom, bool Value);

/// Of Conditions (uniform comparisons), those the assumptions fix, each
/// with its constant: proved by the solver (at most TimeoutMs of solver work
/// each, TotalMs for all of them: smt::WorkBudget), never guessed. An `shl
/// nsw` of a size that cannot overflow, frozen by the LLVM IR as `no
/// overflow ? x << 1 : any`, is such
/// a condition. Replacing each by its constant is an equality under the
/// assumptions.
std::vector<std::pair<const ir::Expr *, bool>>
fixedConditions(ir::Context &C, const std::vector<const ir::Expr *> &Conditions,
                const std::vector<const ir::Expr *> &Assumptions,
                const smt::SolverOptions &S, unsigned TimeoutMs = 1000,
                unsigned TotalMs = 5000);

/// Solves Q by cases on its uniform branch conditions (as described above).
smt::QueryResult solveByCases(ir::Context &C, const smt::Query &Q,
                              const smt::SolverOptions &S,
                              const CaseSplitOptions &O = {},
                              CaseSplitStats *Stats = nullptr);

} // namespace stagecheck::stages

#endif

//===- Solver.h - Named queries with a hard time limit ----------*- C++ -*-===//
//
// A query asks whether a violation (an i1 expression) can hold. Proved means
// it cannot; a counterexample comes with a concrete input (an ir::Env) that
// the caller replays through the interpreter before believing it.
//
// A bit-exact query's budget is solver work, not seconds: Z3 counts resource
// units as it works, and a budget of T ms is T * UnitsPerMs of them. A query
// then gets exactly as far on a loaded machine as on an idle one, so a
// verdict does not depend on what else the machine is doing. (Over the reals
// Z3 counts too few units for that; there the budget is the solver's
// processor time, which a busy machine does not change either.) Each attempt
// runs in a child process that is also killed once its processor time passes
// AttemptSlack times its budget, and at a wall-clock backstop StarvedSlack
// times later still (and the check's Deadline): Z3's own timeout is not
// reliable, a solver can stop counting, and a killed child can leak neither
// memory nor a stuck thread into the caller.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_SMT_SOLVER_H
#define STAGECHECK_SMT_SOLVER_H

#include "ir/Expr.h"
#include "ir/Interpreter.h"
#include "smt/Mode.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace stagecheck::smt {

struct Query {
  std::string Name;             // stable, e.g. "values written to out"
  const ir::Expr *Violation;    // i1: a model of this is a counterexample
  std::vector<const ir::Expr *> Assumptions; // i1 preconditions
  Mode Arithmetic = Mode::IEEE;
};

/// Z3 resource units a millisecond of solver work stands for: what Z3 4.8.12
/// counts in a millisecond on the reference machine (docs/design-decisions.md
/// "Budgets are solver work"; scripts/calibrate_units.py measures it).
constexpr double UnitsPerMs = 6000;
/// An attempt with a budget of T ms is killed once it has spent
/// AttemptSlack * T ms of processor time plus AttemptGraceMs (starting a
/// solver costs time the units do not count).
constexpr unsigned AttemptSlack = 4;
constexpr unsigned AttemptGraceMs = 1000;
/// And at the latest after StarvedSlack times that in wall-clock time, on
/// a machine so busy that the solver hardly runs.
constexpr unsigned StarvedSlack = 4;
/// A small query is first asked briefly in the calling process, with this
/// much work on top of its budget: 95% of the queries answered over the
/// corpus took less than a fifth of it (130 thousand units).
constexpr unsigned QuickLookMs = 100;
/// Over the reals the quick look is bounded by units too, which Z3 counts
/// slowly there (about 400 a millisecond): the look's 100 ms at that rate.
/// FX <-> TTIR's value queries of inductor_cumsum_wide, 512 of them, take 3
/// units each, against 64 ms of a child's processor time to start.
constexpr uint64_t RealQuickLookUnits = 40000;

struct SolverOptions {
  /// The query's budget of solver work, in milliseconds of it (UnitsPerMs).
  unsigned TimeoutMs = 20000;
  unsigned MemoryLimitMB = 4096;
  /// When set, every query is also written there as SMT-LIB.
  std::string DumpDir;
  /// The end of the whole check the query belongs to: a query stops there
  /// whatever TimeoutMs says (unknown), one asked after it is not run.
  std::optional<std::chrono::steady_clock::time_point> Deadline;
};

enum class Outcome { Proved, Counterexample, Unknown };
const char *spelling(Outcome O);

struct QueryResult {
  Outcome Kind = Outcome::Unknown;
  std::string Reason; // why unknown
  ir::Env Model;      // the counterexample's inputs
  double Seconds = 0; // wall-clock
  double Work = 0;    // solver work spent, in seconds of it (UnitsPerMs)
  std::string DumpedTo;
};

QueryResult solve(const Query &Q, const SolverOptions &Options);

/// Solver work shared by the queries of one search (the cases of a split,
/// the candidates of a sweep), counted as each query's is: spent when their
/// work reaches the budget, or when the wall clock passes AttemptSlack
/// times StarvedSlack times it (work outside the solver, such as
/// simulation, takes time too).
class WorkBudget {
public:
  explicit WorkBudget(unsigned Ms);
  void charge(const QueryResult &R) { SpentMs += R.Work * 1000; }
  bool spent() const;
  double spentMs() const { return SpentMs; }
  /// The options for the next query: its budget at most what is left, and
  /// the wall-clock backstop as its deadline.
  SolverOptions limit(SolverOptions O) const;
  /// "timeout: ... budget of N ms of work was spent" for a search it ended.
  std::string spentReason() const;

private:
  double BudgetMs, SpentMs = 0;
  std::chrono::steady_clock::time_point WallEnd;
};

/// Makes, once, what each solver child inherits instead of building anew.
/// A process that forks workers which will solve calls it before forking,
/// so that the workers share one copy and no fork lands while it is made.
void prepareSolverChildren();

/// Forgets what this process's own solving has learnt, so that the work
/// begun next (a stage pair's check) answers as it would in a new process,
/// whatever was checked before it here.
void startAfresh();

/// "4.8.12", the solver library in use.
std::string solverVersion();

/// The query as an SMT-LIB script (declarations, assertions, check-sat) in
/// the standard theories only, so another solver (cvc5) can re-check it.
std::string toSMTLib(const Query &Q);

} // namespace stagecheck::smt

#endif

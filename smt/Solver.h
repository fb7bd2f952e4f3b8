//===- Solver.h - Named queries with a hard time limit ----------*- C++ -*-===//
//
// A query asks whether a violation (an i1 expression) can hold. Proved means
// it cannot; a counterexample comes with a concrete input (an ir::Env) that
// the caller replays through the interpreter before believing it.
//
// Each query runs in a child process that is killed at its deadline: Z3's own
// timeout is not reliable, and a killed child can leak neither memory nor a
// stuck thread into the caller.
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

struct SolverOptions {
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
  double Seconds = 0;
  std::string DumpedTo;
};

QueryResult solve(const Query &Q, const SolverOptions &Options);

/// Makes, once, what each solver child inherits instead of building anew.
/// A process that forks workers which will solve calls it before forking,
/// so that the workers share one copy and no fork lands while it is made.
void prepareSolverChildren();

/// "4.8.12", the solver library in use.
std::string solverVersion();

/// The query as an SMT-LIB script (declarations, assertions, check-sat) in
/// the standard theories only, so another solver (cvc5) can re-check it.
std::string toSMTLib(const Query &Q);

} // namespace stagecheck::smt

#endif

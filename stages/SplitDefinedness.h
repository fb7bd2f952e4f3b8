//===- SplitDefinedness.h - A definedness query, one way at a time -*- C++ -*-===//
//
// "Defined wherever the other side is" asks whether Defined and some
// undefined condition can hold together. Where every element of a kernel
// has a condition of its own (a cast of each element that may leave its
// range), that is one disjunct per element against every element's
// definedness, a query the solver spends its whole limit on. It is unsatisfiable when, for each disjunct, the
// disjunct and the conjuncts of Defined that read what it reads are: a
// model of the whole would satisfy one disjunct with all of Defined.
// Reading each buffer element and each free symbol as a fresh variable
// only drops constraints, so a disjunct's question is answered for every
// disjunct of the same shape at once: elements differ only in what they
// read, and the questions of a thousand elements are one or two.
//
// Two stages may read one element through index expressions spelled each
// their own way (TTGIR's `pid * 128 + 5`, LLVM IR's `pid << 7 | 5`). A
// way's read that agrees with a fact's read at a few sample points is
// linked to it by what holds of any two reads of a buffer: the same index
// reads the same value. The sample only chooses which facts to bring; the
// link is never an assumption.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_SPLITDEFINEDNESS_H
#define STAGECHECK_STAGES_SPLITDEFINEDNESS_H

#include "ir/Expr.h"
#include "ir/Interpreter.h"
#include "smt/Solver.h"

#include <optional>

#include <string>
#include <vector>

namespace stagecheck::stages {

struct SplitProof {
  bool Proved = false;   // Defined and Undefined cannot hold together
  unsigned Disjuncts = 0; // of Undefined
  unsigned Asked = 0;     // distinct questions put to the solver
  double Seconds = 0;
  std::string Why; // when not proved: what stopped it
  /// When a way's question had a model: its reads of constant indices and
  /// its symbols, for the caller to complete and replay (the facts the
  /// question left out may not hold of it).
  std::optional<ir::Env> Candidate;
};

/// Whether Defined /\ Undefined /\ Assumptions is unsatisfiable, asked per
/// disjunct of Undefined as above. Not proved means not shown this way:
/// the caller asks the whole question. At most MaxQuestions distinct
/// questions are asked, each within Solver's limit (at most 5 s), and none
/// is begun after 10 s.
SplitProof proveDisjunctByDisjunct(
    ir::Context &C, const ir::Expr *Defined, const ir::Expr *Undefined,
    const std::vector<const ir::Expr *> &Assumptions, smt::Mode Arithmetic,
    const smt::SolverOptions &Solver, const std::string &Name,
    unsigned MaxQuestions = 256);

/// "each of 1024 ways ruled out on its own (2 questions)", for a report.
std::string splitDetail(const SplitProof &P);

} // namespace stagecheck::stages

#endif

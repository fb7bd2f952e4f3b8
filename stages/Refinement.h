//===- Refinement.h - Is one kernel's effect the other's? -------*- C++ -*-===//
//
// The check shared by every stage pair once both sides are lifted to effects.
// It is a fixed, ordered list of named queries; the first that fails decides:
//
//  1. "target defined where source is": some input makes the target undefined
//     (out-of-bounds access, division by zero...) while the source is defined.
//  2. per buffer, "elements written to B": the set of written indices
//     differs (a missing or an extra write).
//  3. per buffer, "values written to B": at some index both write, the final
//     values differ (bit-exact in IEEE mode: all NaNs equal, -0 != +0), or
//     the target's value is poison where the source's is not.
//  4. "atomics": the atomic operations differ in guard, place, kind or value.
//
// Writes to a buffer are compared as the buffer's final content: for a fresh
// index i, the last write whose guard holds and whose index is i. Nothing is
// assumed when the source is undefined.
//
// Bit-exact queries meet random testing first (stages/Falsify.h); a value
// query the solver gives up on is tested once more from an input that
// makes its write happen (a model of the write's guard and definedness), so
// a wrong value in a tree too large for the solver still gets its
// counterexample. Every counterexample is replayed in the interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_REFINEMENT_H
#define STAGECHECK_STAGES_REFINEMENT_H

#include "ir/Effects.h"
#include "ir/Interpreter.h"
#include "smt/Solver.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace stagecheck::stages {

enum class Verdict { Proved, ProvedWithinTolerance, Counterexample, Unknown, Error };
const char *spelling(Verdict V);
/// Process exit code for a verdict: 0 proved, 1 counterexample, 2 unknown,
/// 3 input error.
int exitCode(Verdict V);
/// The worse of two verdicts (error > counterexample > unknown > proved).
Verdict worst(Verdict A, Verdict B);

struct QueryReport {
  std::string Name;
  smt::Outcome Outcome;
  std::string Reason;
  double Seconds = 0;
  std::string DumpedTo;
};

/// A confirmed counterexample: concrete inputs, and where the sides part.
struct Counterexample {
  std::string Query;
  ir::Env Inputs;
  std::string Buffer;                // empty for definedness
  std::optional<uint64_t> Index;     // the element that differs
  std::optional<ir::Value> Source, Target; // final values (nullopt: unwritten)
  bool SourcePoison = false, TargetPoison = false;
  ir::Origin SourceOrigin, TargetOrigin;   // the writes that produced them
  std::string Explanation;           // one line
  /// Further lines a stage pair adds (e.g. the op where the target first
  /// differs from the source).
  std::vector<std::string> Notes;
};

struct PairResult {
  Verdict Kind = Verdict::Unknown;
  std::string Reason; // for unknown/error
  smt::Mode Arithmetic = smt::Mode::IEEE;
  std::string Bound = "none"; // the bound a proof used, "none" if unbounded
  /// The lowering rules and the relaxations of the pair's contract the
  /// verdict rests on, each with how often it was used ("fma contraction
  /// (2)", "rule: sdiv by a constant as a multiply-high (1)").
  std::vector<std::string> Relaxations;
  std::vector<QueryReport> Queries;
  std::optional<Counterexample> Cex;
  double Seconds = 0;
};

struct CheckOptions {
  smt::Mode Arithmetic = smt::Mode::IEEE;
  smt::SolverOptions Solver;
  /// i1 conditions on the inputs (launch ranges, the loop trip counts a
  /// bounded check covers): only inputs that satisfy all of them are
  /// compared. Every query conjoins them; a proof says nothing about other
  /// inputs, so a stage pair that adds a bound reports it in
  /// PairResult::Bound.
  std::vector<const ir::Expr *> Assumptions;
  /// Symbol values a counterexample is first sought with (an audit's own
  /// launch: its scalar arguments and grid), so that a report shows the
  /// launch that was run wherever the violation shows there; otherwise any
  /// counterexample is shown. Testing also starts from them. They never
  /// restrict a proof.
  std::vector<std::pair<const ir::Expr *, const ir::Expr *>> Preferred;
  /// Stage pairs whose loops do not correspond unroll them up to this many
  /// iterations (and say so in PairResult::Bound).
  unsigned LoopBound = 4;
  /// The libdevice.10.bc the kernels were linked with, for pairs that give
  /// libdevice calls their bodies' meaning; empty: the kernel metadata's,
  /// else the CUDA toolkit's.
  std::string Libdevice;
  /// The architecture the kernel was compiled for (90 for sm_90), from its
  /// metadata; 0: what each stage file says, else not known. What an
  /// approximate instruction's .ftz form means depends on it
  /// (ir::measuredFtzForm).
  unsigned SmVersion = 0;
  /// Two written floats that are both zeros are the same datum, whatever
  /// their signs: for a target whose threads race to write one shared word
  /// (every lane of a warp storing its own butterfly result, combined in
  /// its own order), where a combine that keeps the second of two equal
  /// operands leaves the sign of a zero to the race. A proof then says
  /// nothing about signs of zeros, so the pair must not call it proved.
  bool ZerosOfEitherSign = false;
  /// A choice the source's semantics leaves to the compiler that the
  /// check's own matching missed, seen at a concrete input (LLVM IR <->
  /// PTX: an fma contraction of operands the PTX computes as other nodes
  /// of equal value): given a violation and an input where it holds, the
  /// violation with the choices taken that remove it there, or null. Such
  /// an input is no counterexample: the query is asked again with the
  /// choices taken, a few times, for an input that differs whatever is
  /// chosen; none found, the verdict is unknown (AllowedChoiceReason).
  std::function<const ir::Expr *(const ir::Expr *Violation, const ir::Env &In)>
      AllowedChoiceTaken;
  std::string AllowedChoiceReason;
};

PairResult checkRefinement(ir::Context &C, const ir::Effects &Source,
                           const ir::Effects &Target, const CheckOptions &O);

} // namespace stagecheck::stages

#endif

//===- Falsify.h - Cheap counterexamples before the solver ------*- C++ -*-===//
//
// Many wrong kernels are wrong almost everywhere. Before a query goes to the
// solver, a few hundred inputs drawn from the values that break kernels
// (zeros, ones, signs, infinities, NaNs, subnormals, extremes) run through
// the interpreter; one that makes the violation true is a counterexample by
// the interpreter's own semantics. Finding none proves nothing.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_FALSIFY_H
#define STAGECHECK_STAGES_FALSIFY_H

#include "ir/Effects.h"
#include "ir/Expr.h"
#include "ir/Interpreter.h"

#include <chrono>
#include <optional>
#include <vector>

namespace stagecheck::stages {

struct FalsifyOptions {
  unsigned Trials = 256;
  uint64_t Seed = 1;
  /// Symbols that name an element of a buffer: each trial sets the symbol
  /// to one of these index expressions (evaluated on the trial's inputs),
  /// so trials look where writes happen.
  struct IndexHint {
    const ir::Expr *Symbol;
    std::vector<const ir::Expr *> Candidates;
  };
  std::vector<IndexHint> Hints;
  /// Symbols drawn from [0, Extent) (the bound variables of a family).
  std::vector<ir::BoundVariable> Ranges;
  /// Symbol values that satisfy the check's assumptions (a loop's trip
  /// count, a launch): every other trial starts from them, since random
  /// sizes rarely meet such conditions (half of those trials draw float
  /// scalars afresh).
  ir::Env Base;
  /// What the source side computes where the violation matters (its
  /// guard and value), or empty. One trial in eight then reads the source's
  /// inputs as ordinary numbers and every float the target alone reads as
  /// an infinity or a NaN: a kernel that loads an element the reference
  /// never reads (a mask one too wide) and multiplies it by a masked zero
  /// agrees on every finite input and differs there.
  std::vector<const ir::Expr *> SourceSide;
  /// Testing stops here, whatever Trials says (checked between trials).
  std::optional<std::chrono::steady_clock::time_point> Deadline;
  /// And once this much work is done (testingWork): a trial costs the
  /// nodes of the trees it interprets, so where testing stops does not
  /// depend on the machine's load.
  std::optional<uint64_t> WorkLimit;
  /// Where the work done is added, for a budget several calls share.
  uint64_t *WorkSpent = nullptr;
};

/// Testing's and shrinking's budgets are interpreted nodes, not seconds:
/// the trials made, and so a counterexample found and the shrunk input a
/// report prints, come out alike on a busy machine and an idle one. The
/// work the interpreter does in Ms milliseconds on the machine of
/// docs/BENCHMARKS.md.
uint64_t testingWork(double Ms);

/// A trial's work for giving one symbol its value, in interpreted nodes:
/// an environment's insertion costs some 0.7 us where a node costs some
/// 33 ns (inductor_sum_looped's range trials set 8192 symbols to interpret
/// 51205 nodes, and took 6.6 ms each where the nodes alone say 1.7).
constexpr uint64_t SymbolSettingWork = 20;

/// An input under which Violation holds, if random testing finds one.
std::optional<ir::Env> falsify(const ir::Expr *Violation,
                               const FalsifyOptions &O);

/// A smaller input under which Violation still holds: each symbol and each
/// buffer element is pulled toward 0, 1 and short values while the
/// violation stays true, so reports show small, stable numbers.
/// Hint symbols are not shrunk: they follow their candidates.
ir::Env shrink(const ir::Expr *Violation, const ir::Env &Failing,
               const std::vector<FalsifyOptions::IndexHint> &Hints = {});

/// Inputs under which Holds is true (a check's assumptions), or none: the
/// most varied that testing finds within Ms of testingWork, else the least
/// launch (the values Holds's conjuncts pin, one program, zeros) if Holds
/// is true there. What a solver's model of them would give later testing
/// as its base, without the solver: most assumptions (divisibility,
/// offsets within i32, a specialized size) are met so, and a process's
/// first solver query costs it tens of milliseconds. Launch terms' samples
/// start from it; the value queries' testing does not (a scan's wrong
/// combine hides at the least launch; docs/design-decisions.md, "No query
/// where none is needed").
std::optional<ir::Env> satisfyByTesting(const ir::Expr *Holds, double Ms);
constexpr double AssumptionTestingMs = 20;
/// For a witness that one condition can take a value: asked of many.
constexpr double WitnessTestingMs = 5;

} // namespace stagecheck::stages

#endif

//===- Lifter.h - TTIR and TTGIR lifted to the shared IR --------*- C++ -*-===//
//
// Lifts the kernel of a parsed TTIR or TTGIR module into ir::Effects,
// following docs/lifting-conventions.md:
//  - a tensor value is a function of its element index: one expression over
//    the index symbols e0, e1, ... (i32, one per dimension);
//  - a pointer parameter K is the buffer argK; a pointer value is a buffer
//    and an element index (i64);
//  - tt.store is a write family over e0..e(r-1); masks and control flow go
//    into its guard; tt.atomic_* are atomics, one per element;
//  - reductions unroll their combine region over the reduced dimension, as a
//    balanced tree in index order (docs/lifting-conventions.md), or in the
//    order Triton's lowering combines them (LiftOptions::Lowering);
//  - layout ops (convert_layout, local_alloc/local_load round trips) are
//    identities on element values; shared memory is modelled per allocation,
//    with async copies completing at the async_wait that covers them.
//
// Loops. A loop whose trip count folds to a constant is unrolled. Other
// loops are either summarised (LoopMode::Summarize: the carried values at
// the loop header become symbols named after the loop, so two stages whose
// loops correspond can be compared without a bound) or unrolled for one
// assumed trip count (LoopMode::Cases: the assumption joins
// LiftResult::Assumptions and the checker enumerates trip counts up to a
// bound).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_TTIR_LIFTER_H
#define STAGECHECK_FRONTENDS_TTIR_LIFTER_H

#include "frontends/ttir/Mlir.h"
#include "ir/Effects.h"
#include "ir/Kernel.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace stagecheck::ttir {

/// A loop whose trip count is not a constant, identified by its bounds (the
/// same expressions in two stages name the same trip count).
struct LoopKey {
  const ir::Expr *Lower, *Upper, *Step;
  bool operator<(const LoopKey &O) const {
    return std::tie(Lower, Upper, Step) < std::tie(O.Lower, O.Upper, O.Step);
  }
  bool operator==(const LoopKey &O) const {
    return Lower == O.Lower && Upper == O.Upper && Step == O.Step;
  }
};

/// The summary of a loop lifted in LoopMode::Summarize.
struct LoopSummary {
  LoopKey Key;
  std::string Name;                     // "loop0": the prefix of its symbols
  std::vector<const ir::Expr *> Inits;  // per carried value: value, defined
  std::vector<const ir::Expr *> Yields; // the same, at the end of the body
  std::vector<std::string> Buffers;     // carried pointers: their buffers
  ir::Origin From;
};

/// Where an op of the stage file is.
struct OpRef {
  std::string Op;
  FilePos Pos;                 // in the stage file
  ir::SourceLocation Source;   // the Python source
};

/// One execution of an op and the expressions it produced (results' values
/// and definedness; a store's guard, index, value and definedness).
struct OpTrace {
  OpRef Ref;
  std::vector<const ir::Expr *> Results;
  /// The values the op consumed (its tensor operands' elements and
  /// definedness), as they were when it ran.
  std::vector<const ir::Expr *> Inputs;
};

struct LiftOptions {
  enum class LoopMode { Summarize, Cases };
  LoopMode Loops = LoopMode::Cases;
  /// Constant trip counts up to this are unrolled.
  uint64_t MaxUnroll = 256;
  /// LoopMode::Cases: the trip count assumed for each loop. A loop met
  /// without one is lifted with zero iterations and reported in
  /// LiftResult::UnassignedLoops.
  std::map<LoopKey, uint64_t> TripCounts;
  /// scf.while: iterations unrolled; the loop is assumed to end by then.
  unsigned WhileBound = 4;
  /// Decides a scalar condition under LiftResult::Assumptions where it can
  /// (true, false), or says it cannot (nullopt). Used only in LoopMode::Cases.
  std::function<std::optional<bool>(const ir::Expr *)> Oracle;
  /// The case's trip-count conditions: only conditions that share a symbol
  /// with them are put to the oracle.
  std::vector<const ir::Expr *> Facts;
  /// Lift TTGIR as Triton 3.6's NVIDIA lowering computes it where that is
  /// not a plain equality (frontends/ttir/LiftLowering.cpp): reductions in
  /// the lowering's tree order for the operand's layout, math.exp as
  /// ex2.approx, arith.divf as div.full, math.sqrt and math.log as libdevice
  /// calls. The rules used are counted in LiftResult::Rules.
  bool Lowering = false;
  /// The elements each pointer parameter may reach, [Low, High) relative
  /// to where it points (a launch's tensors): a load or store outside is
  /// undefined behaviour. Parameters not listed reach everywhere.
  std::map<std::string, std::pair<int64_t, int64_t>> Reach;
};

struct LiftResult {
  ir::Effects Effects;
  ir::KernelInterface Interface;
  /// Launch ranges (0 <= pid < nprog, nprog >= 1) and the loop assumptions
  /// of this lift; inputs outside them are not described by Effects.
  std::vector<const ir::Expr *> Assumptions;
  /// One line per bound the lift relied on ("scf.for at f.py:12: trip count 3").
  std::vector<std::string> Bounds;
  std::vector<LoopSummary> Summaries;
  /// LoopMode::Summarize: a loop could not be summarised (why).
  std::string NotSummarized;
  /// LoopMode::Cases: loops met with no trip count assigned, in order.
  std::vector<std::pair<LoopKey, ir::Origin>> UnassignedLoops;
  /// The op that first made each expression node of this lift.
  std::unordered_map<const ir::Expr *, OpRef> Provenance;
  /// Every op execution, in order (ops in unrolled loops and combine
  /// regions once per execution).
  std::vector<OpTrace> Trace;
  /// LiftOptions::Lowering: each lowering rule used, with the number of ops
  /// it was applied to.
  std::map<std::string, unsigned> Rules;
};

/// Lifts M's kernel. Throws ir::InputError for malformed input and
/// ir::UnsupportedError for an op or a form that is not modelled.
LiftResult liftKernel(ir::Context &C, const Module &M, const LiftOptions &O);

/// i1: the loop with these bounds runs exactly Trips iterations (exact
/// 64-bit arithmetic on the bounds: lb + (Trips-1)*step < ub <= lb + Trips*step,
/// or ub <= lb for Trips = 0).
const ir::Expr *tripCountCase(ir::Context &C, const LoopKey &K, uint64_t Trips);

/// The i32 index symbol of tensor dimension D ("e0", "e1", ...).
const ir::Expr *indexSymbol(ir::Context &C, unsigned D);

} // namespace stagecheck::ttir

#endif

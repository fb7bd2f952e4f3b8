//===- ttir_to_ttgir.h - Does the TTGIR mean what the TTIR means? -*- C++ -*-===//
//
// TTGIR adds layouts, shared memory and software pipelining to TTIR; none of
// them may change a value. The check is bit-exact (design.md's numeric
// contract: no relaxation at this pair). Both stages are lifted into one
// Context, so the many values the two compute alike are the same nodes, and
// stores are compared element by element (stages/Refinement.h).
//
// Loops, in this order:
//  1. Loops with constant trip counts are unrolled.
//  2. Correspondence: every other loop is summarised (its carried values at
//     the header become shared symbols). When both stages have the same
//     loops with the same bounds, initial values and body results, the
//     loops compute the same values for every trip count, and the proof
//     holds without a bound.
//  3. Otherwise (pipelined loops carry shared-memory buffers and tokens the
//     other stage lacks), each combination of trip counts 0..LoopBound is a
//     case: both stages are unrolled for it and compared under it. Scalar
//     conditions the pipeliner adds ("is there an iteration two ahead?")
//     are decided by the solver under the case. The verdict then states the
//     bound.
//
// A counterexample names, besides the store that differs, the first op of
// the target whose value the source never computes (its line in the TTGIR
// file and its Python location).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_TTIR_TO_TTGIR_H
#define STAGECHECK_STAGES_TTIR_TO_TTGIR_H

#include "frontends/ttir/Mlir.h"
#include "stages/Refinement.h"

#include <cstdint>
#include <map>
#include <string>

namespace stagecheck::stages {

/// The elements each pointer parameter may reach, [Low, High) relative to
/// where it points ("arg0" -> ...), from a launch's tensors: an access
/// outside is undefined behaviour on both sides, so a stage that loads or
/// stores where the other does not is less defined. Empty: unbounded.
using ParameterReach = std::map<std::string, std::pair<int64_t, int64_t>>;

/// Checks that the TTGIR file refines the TTIR file. Malformed input throws
/// ir::InputError (file:line:column); an op that is not modelled gives
/// verdict Unknown with reason "unsupported op NAME at FILE:LINE:COL".
PairResult checkTtirToTtgir(ir::Context &C, const std::string &TtirPath,
                            const std::string &TtgirPath,
                            const CheckOptions &O,
                            const ParameterReach &Reach = {});

/// The same for parsed modules (tests and mutants keep their text in memory).
PairResult checkTtirToTtgir(ir::Context &C, const ttir::Module &Source,
                            const ttir::Module &Target, const CheckOptions &O,
                            const ParameterReach &Reach = {});

} // namespace stagecheck::stages

#endif

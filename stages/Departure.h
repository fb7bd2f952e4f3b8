//===- Departure.h - Where a lowered stage departs from its source -*- C++ -*-===//
//
// A counterexample says which store differs; a compiler developer also wants
// the op that made the difference. Both stages are lifted into one Context,
// so an op of the target "departs" when it yields an expression the source
// never yields at that op's place (the same op at the same Python location;
// for an op without a counterpart, anywhere in what the source writes).
// Among the departing ops the failing store depends on (SSA def-use, a loop
// with everything in it), the causes are those that depend on no other
// departing op; the first in the file wins.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_DEPARTURE_H
#define STAGECHECK_STAGES_DEPARTURE_H

#include "frontends/ttir/Lifter.h"
#include "stages/Refinement.h"

#include <optional>

namespace stagecheck::stages {

/// The op where Target (lifted as TargetLift) departs from the source
/// (lifted as SourceLift) on the way to the write or condition X names.
std::optional<ttir::OpRef> findDeparture(const ttir::Module &Target,
                                         const ttir::LiftResult &SourceLift,
                                         const ttir::LiftResult &TargetLift,
                                         const Counterexample &X);

} // namespace stagecheck::stages

#endif

//===- Report.h - Verdicts as people read them ------------------*- C++ -*-===//
#ifndef STAGECHECK_STAGES_REPORT_H
#define STAGECHECK_STAGES_REPORT_H

#include "stages/Refinement.h"

#include <iosfwd>
#include <string>

namespace stagecheck::stages {

/// One line per named query, then the counterexample or the reason.
void printPairResult(std::ostream &OS, const PairResult &R,
                     const std::string &Indent = "  ");
/// The counterexample: inputs (sorted by name), each side's value, where the
/// sides part.
void printCounterexample(std::ostream &OS, const Counterexample &X,
                         const std::string &Indent);

} // namespace stagecheck::stages

#endif

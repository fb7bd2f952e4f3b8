//===- Assumed.h - Values a counterexample assumes of functions -*- C++ -*-===//
//
// Approximate instructions (ex2.approx, rcp.approx...) are uninterpreted
// functions, so a solver's model may pick any value for one where the PTX
// ISA's corner cases leave it free. A counterexample that holds with the
// functions' own values (the host's) assumes nothing and is shown so; one
// that needs a value no approximation gives is not a counterexample any
// GPU can show, and the verdict is unknown with that reason.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_ASSUMED_H
#define STAGECHECK_STAGES_ASSUMED_H

#include "ir/Interpreter.h"

#include <optional>
#include <string>

namespace stagecheck::stages {

/// Inputs without the values they assume of functions: the interpreter
/// then gives each call the function's own value.
ir::Env withFunctionsOwnValues(const ir::Env &Inputs);

/// The first assumed value no approximation gives (ir::plausibleResult),
/// as "ex2.approx(1.05e-43) = 1.50000012 where it is about 1"; none when
/// every assumed value is plausible.
std::optional<std::string> implausibleAssumption(const ir::Env &Inputs);

} // namespace stagecheck::stages

#endif

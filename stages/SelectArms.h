//===- SelectArms.h - A select's arms read under its condition -*- C++ -*-===//
//
// An optimizer that knows a select's condition holds rewrites what the
// chosen arm computes: libdevice's expm1f builds 2^(j-1) from the rounded
// exponent j, and where its overflow test `j == 128` picks that arm, the
// optimized body computes ex2(127) instead. The two arms are equal only
// under the condition, which a solver asked about the whole select must
// find through the arithmetic above the exponent.
//
// Rewriting each arm under what its condition says makes them one node:
// in the arm taken when the condition holds, the condition is true, each
// conjunct is true, and a value it compares equal to a constant is that
// constant (for a float, a constant that is neither zero nor NaN, so the
// comparison fixes its bits); in the other arm, the same for the
// condition's negation. Each fact holds wherever the arm is taken, so the
// select keeps its value for every input.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_SELECTARMS_H
#define STAGECHECK_STAGES_SELECTARMS_H

#include "ir/Expr.h"

#include <cstddef>

namespace stagecheck::stages {

/// E with each select's arms rewritten under its condition (true in the
/// first arm, false in the second). E itself when the rewrite would visit
/// more than MaxVisits nodes (nested selects share subterms under
/// different facts).
const ir::Expr *withArmsUnderTheirConditions(ir::Context &C,
                                             const ir::Expr *E,
                                             size_t MaxVisits = 20000);

} // namespace stagecheck::stages

#endif

//===- ConstantChoices.h - Conditions on a choice among constants -*- C++ -*-===//
//
// An arg-max's index is a select tree whose leaves are constants: which
// leaf it is depends on every element compared, but what it can be is a
// short list. A condition on it alone (the index converted to a float and
// back stays in range) holds for every input exactly when it holds for
// every leaf, which folding decides at once where a solver must reason
// through the whole comparison tree.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_CONSTANTCHOICES_H
#define STAGECHECK_STAGES_CONSTANTCHOICES_H

#include "ir/Expr.h"

namespace stagecheck::stages {

/// True when Condition (i1) depends on its inputs only through choices
/// among constants (select trees with constant leaves, at most MaxCases
/// combinations of their values) and folds to true for each combination.
/// False means not decided this way, not that Condition can fail.
bool holdsForEveryConstantChoice(ir::Context &C, const ir::Expr *Condition,
                                 unsigned MaxCases = 4096);

} // namespace stagecheck::stages

#endif

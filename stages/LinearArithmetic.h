//===- LinearArithmetic.h - Integer facts decided without bit-blasting -*- C++ -*-===//
//
// Loop bounds and the predicates a software pipeliner adds ("is there an
// iteration two ahead?") are linear comparisons of a few integers. Bit-
// blasting them takes the solver seconds; as linear integer arithmetic they
// are trivial. refutes() reads a condition over the shared IR as linear
// inequalities over the integers:
//  - every subterm that is not a sum of constant multiples (a symbol, a
//    division, a product of unknowns...) is an atom, an integer variable
//    ranging over the signed values of its width (a zext over the unsigned
//    values of its operand);
//  - each add, sub, neg, mul or shl by a constant is read exactly, and its
//    exact value must fit its width (a no-wrap obligation): then the bit-
//    vector value is that integer;
//  - signed comparisons and boolean connectives are read as such; anything
//    else (unsigned comparisons, floats) makes the condition unreadable.
// A conjunction of inequalities is shown infeasible by Fourier-Motzkin
// elimination with integer tightening (sound; incomplete).
//
// refutes(X) is true only when no input satisfies the facts and X: the
// facts' own arithmetic never wraps, X's arithmetic cannot wrap where the
// facts hold, and the linear reading of facts and X is infeasible.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_LINEARARITHMETIC_H
#define STAGECHECK_STAGES_LINEARARITHMETIC_H

#include "ir/Expr.h"

#include <vector>

namespace stagecheck::stages {

class LinearFacts {
public:
  explicit LinearFacts(std::vector<const ir::Expr *> Facts)
      : Facts(std::move(Facts)) {}
  /// True when no input satisfies every fact and X (false: not shown).
  bool refutes(const ir::Expr *X) const;

private:
  std::vector<const ir::Expr *> Facts;
};

} // namespace stagecheck::stages

#endif

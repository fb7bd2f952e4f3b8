//===- ZeroSign.h - Choices the sign of a zero cannot reach -----*- C++ -*-===//
//
// A max written `a > b ? a : b` and one written `a >= b ? a : b` differ
// only where a and b are equal numbers: the same value, or +0 and -0. When
// the sign of that zero never reaches what a kernel stores (it is
// subtracted, compared, passed to exp), the two are the same kernel, and a
// bit-exact query that asks the solver to see it through a reduction tree
// times out. This pass settles such choices one way on both sides before
// the sides are compared.
//
// The sign of a node's zero reaches the root through ops that keep a zero
// a zero and turn +0/-0 into results that are equal numbers (add, sub,
// mul, fma, a dividend, neg, min/max, casts, select arms); it stops at ops
// that cannot see it (fcmp, float -> int, abs, the argument of a function
// that ignores it: ir::FunctionInfo::IgnoresSignOfZero, a sum with a
// nonzero constant, which absorbs a zero whatever its sign); it reaches the
// root always through a divisor (x / -0 = -inf), a bitcast, copysign's
// sign operand, or any other op.
//
// Where the sign cannot reach, select(c, a, b) whose condition compares a
// with b has the EQ bit of those comparisons cleared (oge -> ogt, ole ->
// olt, ueq -> uno...): the new condition differs only where a and b are
// equal numbers, where either arm is the same number.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_ZEROSIGN_H
#define STAGECHECK_STAGES_ZEROSIGN_H

#include "ir/Expr.h"

namespace stagecheck::stages {

/// Root with every choice between two equal numbers whose zero sign cannot
/// reach Root made one way. The result has the same value as Root, bit for
/// bit, for every input. Root itself when nothing changes.
const ir::Expr *settleZeroSignChoices(ir::Context &C, const ir::Expr *Root);

} // namespace stagecheck::stages

#endif

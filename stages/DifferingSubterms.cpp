#include "stages/DifferingSubterms.h"

#include "ir/Errors.h"

#include <set>

namespace stagecheck::stages {

using namespace ir;

namespace {

/// A and B apply one operation, with one set of attributes, to operands of
/// the same types: B is A rebuilt on B's operands.
bool sameOperation(Context &C, const Expr *A, const Expr *B) {
  if (A->op() != B->op() || A->type() != B->type() ||
      A->numOperands() != B->numOperands() || A->numOperands() == 0)
    return false;
  for (size_t K = 0; K < A->numOperands(); ++K)
    if (A->operand(K)->type() != B->operand(K)->type())
      return false;
  try {
    std::vector<const Expr *> Ops(B->operands().begin(), B->operands().end());
    return C.withOperands(A, Ops) == B;
  } catch (const IRError &) {
    return false;
  }
}

/// The first two operands of O are ordered by node id (ir/Expr.h).
bool operandsOrderedById(Op O) { return isCommutative(O) || O == Op::Fma; }

} // namespace

std::optional<std::vector<std::pair<const Expr *, const Expr *>>>
differingSubterms(Context &C, const Expr *A, const Expr *B, size_t Limit) {
  std::vector<std::pair<const Expr *, const Expr *>> Places;
  if (A == B)
    return Places;
  // Shared subterms make the walk a DAG's: each pair once, and not forever.
  constexpr size_t MaxPairs = 1 << 16;
  std::set<std::pair<const Expr *, const Expr *>> Seen;
  std::vector<std::pair<const Expr *, const Expr *>> Work = {{A, B}};
  while (!Work.empty()) {
    auto [X, Y] = Work.back();
    Work.pop_back();
    if (X == Y || !Seen.insert({X, Y}).second)
      continue;
    if (Seen.size() > MaxPairs)
      return std::nullopt;
    // Two different constants say nothing (5 != 6 always holds): the
    // place is the node that uses them (x < 5 against x <= 5, which the
    // factory spells x < 6).
    bool ConstantsDiffer = false;
    if (X->numOperands() == Y->numOperands())
      for (size_t K = 0; K < X->numOperands(); ++K)
        ConstantsDiffer |= X->operand(K) != Y->operand(K) &&
                           X->operand(K)->isConst() && Y->operand(K)->isConst();
    if (ConstantsDiffer || !sameOperation(C, X, Y)) {
      if (X == A && Y == B)
        return std::nullopt;
      Places.push_back({X, Y});
      if (Places.size() > Limit)
        return std::nullopt;
      continue;
    }
    // The factory orders a commutative pair by node id, so a changed
    // operand may sit on the other side: pair what is shared first.
    bool Crossed = operandsOrderedById(X->op()) &&
                   (X->operand(0) == Y->operand(1) ||
                    X->operand(1) == Y->operand(0)) &&
                   X->operand(0) != Y->operand(0) &&
                   X->operand(1) != Y->operand(1);
    for (size_t K = 0; K < X->numOperands(); ++K)
      Work.push_back({X->operand(K), Y->operand(Crossed && K < 2 ? 1 - K : K)});
  }
  return Places;
}

const Expr *someSubtermDiffers(Context &C, const Expr *A, const Expr *B,
                               size_t Limit) {
  auto Places = differingSubterms(C, A, B, Limit);
  if (!Places || Places->empty())
    return nullptr;
  const Expr *Any = C.falseExpr();
  for (const auto &[X, Y] : *Places) {
    const Expr *D;
    if (X->type().isBool())
      D = C.xorOf(X, Y);
    else if (X->type().isFloat()) {
      Type Bits = Type::i(X->type().bits());
      D = C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, X, Bits),
                 C.cast(Op::Bitcast, Y, Bits));
    } else if (X->type().isInt()) {
      D = C.icmp(ICmpPredicate::Ne, X, Y);
    } else {
      return nullptr; // a pointer or another kind: no bit comparison here
    }
    Any = C.orOf(Any, D);
  }
  return Any;
}

} // namespace stagecheck::stages

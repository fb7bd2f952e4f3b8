#include "stages/DifferingSubterms.h"

#include "ir/Errors.h"

#include <cmath>
#include <map>
#include <set>

namespace stagecheck::stages {

using namespace ir;

namespace {

/// Whether E's first two operands are ordered by node id (ir/Expr.h):
/// commutative operations, fma and symmetric comparisons.
bool operandsOrderedById(const Expr *E) {
  return isCommutative(E->op()) || E->op() == Op::Fma ||
         isSymmetricComparison(E->op(), E->rawAttribute());
}

using Pair = std::pair<const Expr *, const Expr *>;

/// How alike A and B look from their roots down to Depth levels: each pair
/// met in step with one operation and type counts one, a shared node all
/// it could.
unsigned likeness(const Expr *A, const Expr *B, unsigned Depth) {
  if (A == B)
    return 1u << (2 * Depth);
  if (Depth == 0 || A->op() != B->op() || A->type() != B->type() ||
      A->numOperands() != B->numOperands())
    return 0;
  unsigned Score = 1;
  for (size_t K = 0; K < A->numOperands(); ++K)
    Score += likeness(A->operand(K), B->operand(K), Depth - 1);
  return Score;
}

/// Whether A0 looks more like B1 and A1 like B0 than straight across.
bool crossedLooksAlike(const Expr *A0, const Expr *A1, const Expr *B0,
                       const Expr *B1) {
  constexpr unsigned Depth = 4;
  return likeness(A0, B1, Depth) + likeness(A1, B0, Depth) >
         likeness(A0, B0, Depth) + likeness(A1, B1, Depth);
}

/// The walk from (A, B): the places, and for each pair entered the pairs
/// that entered it (its parents), which the climb below goes up by.
struct Walk {
  std::vector<Pair> Places;
  std::map<Pair, std::vector<Pair>> Parents;
};

std::optional<Walk> walk(Context &C, const Expr *A, const Expr *B,
                         size_t Limit) {
  Walk W;
  if (A == B)
    return W;
  // Shared subterms make the walk a DAG's: each pair once, and not forever.
  constexpr size_t MaxPairs = 1 << 16;
  std::set<Pair> Seen;
  std::vector<Pair> Work = {{A, B}};
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
      W.Places.push_back({X, Y});
      if (W.Places.size() > Limit)
        return std::nullopt;
      continue;
    }
    // The factory orders a commutative pair by node id, so a changed
    // operand may sit on the other side: pair what is shared first.
    // With nothing shared, the operands that look more alike are paired
    // (two sums of one log1p and one expm1 body, met in other orders).
    bool Crossed =
        operandsOrderedById(X) && X->operand(0) != Y->operand(0) &&
        X->operand(1) != Y->operand(1) &&
        (X->operand(0) == Y->operand(1) || X->operand(1) == Y->operand(0) ||
         crossedLooksAlike(X->operand(0), X->operand(1), Y->operand(0),
                           Y->operand(1)));
    for (size_t K = 0; K < X->numOperands(); ++K) {
      Pair Child = {X->operand(K), Y->operand(Crossed && K < 2 ? 1 - K : K)};
      if (Child.first != Child.second)
        W.Parents[Child].push_back({X, Y});
      Work.push_back(Child);
    }
  }
  return W;
}

/// i1: x is subnormal, for a pair of x and its flush (which then differ,
/// bit for bit, exactly); null for any other pair. Said with comparisons,
/// it spares the solver two bit patterns.
const Expr *flushedDiffers(Context &C, const Expr *X, const Expr *Y) {
  if (Y->op() == Op::FFlushSubnormal && Y->operand(0) == X)
    std::swap(X, Y);
  if (X->op() != Op::FFlushSubnormal || X->operand(0) != Y)
    return nullptr;
  FloatFormat F = floatFormat(Y->type());
  const Expr *MinNormal = C.floatConst(Y->type(), std::ldexp(1.0, 1 - F.bias()));
  return C.andOf(C.fcmp(FCmpPredicate::Olt, C.unary(Op::FAbs, Y), MinNormal),
                 C.fcmp(FCmpPredicate::One, Y, C.floatConst(Y->type(), 0.0)));
}

/// i1: the two sides of some pair hold different data (bit for bit); null
/// for a pair of a kind with no bit comparison here.
const Expr *somePairDiffers(Context &C, const std::vector<Pair> &Pairs) {
  const Expr *Any = C.falseExpr();
  for (const auto &[X, Y] : Pairs) {
    const Expr *D;
    if (const Expr *Subnormal = flushedDiffers(C, X, Y))
      D = Subnormal;
    else if (X->type().isBool())
      D = C.xorOf(X, Y);
    else if (X->type().isFloat()) {
      Type Bits = Type::i(X->type().bits());
      D = C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, X, Bits),
                 C.cast(Op::Bitcast, Y, Bits));
    } else if (X->type().isInt()) {
      D = C.icmp(ICmpPredicate::Ne, X, Y);
    } else {
      return nullptr; // a pointer or another kind
    }
    Any = C.orOf(Any, D);
  }
  return Any;
}

} // namespace

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

std::optional<std::vector<std::pair<const Expr *, const Expr *>>>
differingSubterms(Context &C, const Expr *A, const Expr *B, size_t Limit) {
  std::optional<Walk> W = walk(C, A, B, Limit);
  if (!W)
    return std::nullopt;
  return W->Places;
}

std::optional<std::vector<std::vector<std::pair<const Expr *, const Expr *>>>>
differingPlacesAndAbove(Context &C, const Expr *A, const Expr *B, size_t Above,
                        size_t Limit) {
  std::optional<Walk> W = walk(C, A, B, Limit);
  if (!W)
    return std::nullopt;
  std::vector<std::vector<Pair>> Out;
  for (const Pair &Place : W->Places) {
    std::vector<Pair> Chain = {Place};
    while (Chain.size() <= Above) {
      auto It = W->Parents.find(Chain.back());
      if (It == W->Parents.end() || It->second.empty())
        break;
      const Pair &Parent = It->second.front();
      if (Parent.first == A && Parent.second == B)
        break;
      Chain.push_back(Parent);
    }
    Out.push_back(std::move(Chain));
  }
  return Out;
}

const Expr *someSubtermDiffers(Context &C, const Expr *A, const Expr *B,
                               size_t Limit) {
  auto Places = differingSubterms(C, A, B, Limit);
  if (!Places || Places->empty())
    return nullptr;
  return somePairDiffers(C, *Places);
}

std::vector<const Expr *> differingLevels(Context &C, const Expr *A,
                                          const Expr *B, size_t Levels,
                                          size_t Limit) {
  std::vector<const Expr *> Out;
  std::optional<Walk> W = walk(C, A, B, Limit);
  if (!W || W->Places.empty())
    return Out;
  const Expr *AtPlaces = somePairDiffers(C, W->Places);
  if (!AtPlaces)
    return Out;
  Out.push_back(AtPlaces);
  std::vector<Pair> Cut = W->Places;
  while (Out.size() <= Levels) {
    // Every path from (A, B) down to a place passes through the cut, so
    // through a parent of a cut pair one level up (unless it is the root).
    std::set<Pair> Up;
    for (const Pair &P : Cut) {
      auto It = W->Parents.find(P);
      if (It == W->Parents.end())
        return Out; // the root: the whole query, nothing smaller
      for (const Pair &Parent : It->second)
        if (Parent.first == A && Parent.second == B)
          return Out;
        else
          Up.insert(Parent);
    }
    if (Up.size() > Limit)
      return Out;
    Cut.assign(Up.begin(), Up.end());
    const Expr *AtCut = somePairDiffers(C, Cut);
    if (!AtCut)
      return Out;
    Out.push_back(C.andOf(AtCut, AtPlaces));
  }
  return Out;
}

} // namespace stagecheck::stages

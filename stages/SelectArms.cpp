#include "stages/SelectArms.h"

#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stagecheck::stages {

using namespace ir;

namespace {

using Facts = std::unordered_map<const Expr *, const Expr *>;

/// A float constant that an ordered equality fixes bit for bit: not a zero
/// (either sign compares equal) and not a NaN (nothing compares equal).
bool fixesBits(const Expr *K) {
  FloatFormat F = floatFormat(K->type());
  uint64_t Magnitude = K->constBits() & ((uint64_t(1) << (F.totalBits() - 1)) - 1);
  uint64_t Infinity = ((uint64_t(1) << F.ExponentBits) - 1) << F.MantissaBits;
  return Magnitude != 0 && Magnitude <= Infinity;
}

/// The value a comparison fixes when it has Outcome: x for x == K.
void addEquality(const Expr *Cmp, bool Outcome, Facts &Out) {
  const Expr *A = Cmp->operand(0), *B = Cmp->operand(1);
  if (A->isConst())
    std::swap(A, B);
  if (!B->isConst() || A->isConst())
    return;
  if (Cmp->op() == Op::ICmp &&
      Cmp->icmpPredicate() == (Outcome ? ICmpPredicate::Eq : ICmpPredicate::Ne))
    Out[A] = B;
  if (Cmp->op() == Op::FCmp && fixesBits(B) &&
      Cmp->fcmpPredicate() == (Outcome ? FCmpPredicate::Oeq : FCmpPredicate::Une))
    Out[A] = B;
}

/// What Cond having the value Holds says: it, its conjuncts (or, when
/// false, its disjuncts), and the values its equalities fix.
void factsWhen(Context &C, const Expr *Cond, bool Holds, Facts &Out) {
  if (Cond->isConst())
    return;
  Out[Cond] = Holds ? C.trueExpr() : C.falseExpr();
  switch (Cond->op()) {
  case Op::Not:
    factsWhen(C, Cond->operand(0), !Holds, Out);
    break;
  case Op::And:
    if (Holds) {
      factsWhen(C, Cond->operand(0), true, Out);
      factsWhen(C, Cond->operand(1), true, Out);
    }
    break;
  case Op::Or:
    if (!Holds) {
      factsWhen(C, Cond->operand(0), false, Out);
      factsWhen(C, Cond->operand(1), false, Out);
    }
    break;
  case Op::Select: {
    // A select of booleans with a constant arm is an and or an or.
    const Expr *If = Cond->operand(0), *Then = Cond->operand(1),
               *Else = Cond->operand(2);
    if (Holds && Then->isFalse()) { // !If && Else
      factsWhen(C, If, false, Out);
      factsWhen(C, Else, true, Out);
    } else if (Holds && Else->isFalse()) { // If && Then
      factsWhen(C, If, true, Out);
      factsWhen(C, Then, true, Out);
    } else if (!Holds && Then->isTrue()) { // !(If || Else)
      factsWhen(C, If, false, Out);
      factsWhen(C, Else, false, Out);
    } else if (!Holds && Else->isTrue()) { // !(!If || Then)
      factsWhen(C, If, true, Out);
      factsWhen(C, Then, false, Out);
    }
    break;
  }
  case Op::ICmp:
  case Op::FCmp:
    addEquality(Cond, Holds, Out);
    break;
  default:
    break;
  }
}

struct Rewriter {
  Context &C;
  size_t Budget;
  /// Each distinct set of facts met, and per set the nodes rewritten.
  std::vector<Facts> Contexts;
  std::map<std::pair<size_t, const Expr *>, const Expr *> Memo;

  /// E rewritten under Contexts[K]; null once the budget is spent.
  const Expr *go(size_t K, const Expr *E) {
    if (auto It = Contexts[K].find(E); It != Contexts[K].end())
      return It->second;
    if (E->numOperands() == 0)
      return E;
    if (auto It = Memo.find({K, E}); It != Memo.end())
      return It->second;
    if (Budget == 0)
      return nullptr;
    --Budget;
    const Expr *R;
    if (E->op() == Op::Select) {
      const Expr *Cond = go(K, E->operand(0));
      if (!Cond)
        return nullptr;
      const Expr *Then = go(under(K, Cond, true), E->operand(1));
      if (!Then)
        return nullptr;
      const Expr *Else = go(under(K, Cond, false), E->operand(2));
      if (!Else)
        return nullptr;
      R = C.select(Cond, Then, Else);
    } else {
      std::vector<const Expr *> Ops;
      for (const Expr *O : E->operands()) {
        const Expr *New = go(K, O);
        if (!New)
          return nullptr;
        Ops.push_back(New);
      }
      R = C.withOperands(E, Ops);
    }
    // The facts are of rewritten conditions: a node rewritten into one of
    // them takes its value too.
    if (auto It = Contexts[K].find(R); It != Contexts[K].end())
      R = It->second;
    Memo[{K, E}] = R;
    return R;
  }

  /// The context of Contexts[K] and Cond having the value Holds.
  size_t under(size_t K, const Expr *Cond, bool Holds) {
    Facts More = Contexts[K];
    factsWhen(C, Cond, Holds, More);
    if (More.size() == Contexts[K].size())
      return K; // nothing new (a constant condition)
    Contexts.push_back(std::move(More));
    return Contexts.size() - 1;
  }
};

} // namespace

const Expr *withArmsUnderTheirConditions(Context &C, const Expr *E,
                                         size_t MaxVisits) {
  Rewriter R{C, MaxVisits, {Facts()}, {}};
  const Expr *Out = R.go(0, E);
  return Out ? Out : E;
}

} // namespace stagecheck::stages

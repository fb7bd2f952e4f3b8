#include "stages/ZeroSign.h"

#include "ir/Functions.h"

#include <unordered_map>
#include <unordered_set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

/// How the sign of a zero in operand I of E reaches E's own value.
enum class Reach {
  Never,   // E's value is the same for +0 and -0
  Follows, // E's values for +0 and -0 are equal numbers
  Always,  // they may be different numbers (-inf and +inf)
};

Reach operandReach(const Expr *E, unsigned I) {
  if (!E->operand(I)->type().isFloat())
    return Reach::Never; // no zero sign to carry
  switch (E->op()) {
  case Op::FAdd:
  case Op::FSub:
  case Op::FMul:
  case Op::Fma:
  case Op::FNeg:
  case Op::FMinNum:
  case Op::FMaxNum:
  case Op::FMinimum:
  case Op::FMaximum:
  case Op::FFlushSubnormal:
  case Op::FSqrt:
  case Op::FRoundInt:
  case Op::FPCast:
  case Op::Select:
    return Reach::Follows;
  case Op::FDiv:
    return I == 0 ? Reach::Follows : Reach::Always;
  case Op::FCopySign:
    return I == 0 ? Reach::Never : Reach::Always;
  case Op::FAbs:
  case Op::FCmp:
  case Op::FPToSI:
  case Op::FPToUI:
    return Reach::Never;
  case Op::Call: {
    const FunctionInfo *F = lookupFunction(E->name());
    return F && F->IgnoresSignOfZero ? Reach::Never : Reach::Always;
  }
  default:
    return Reach::Always;
  }
}

/// The nodes under Root whose zero sign can reach Root's value.
std::unordered_set<const Expr *>
signReachesRoot(const std::vector<const Expr *> &PostOrder) {
  std::unordered_set<const Expr *> Reaches;
  if (PostOrder.empty())
    return Reaches;
  Reaches.insert(PostOrder.back());
  // Parents before their operands.
  for (auto It = PostOrder.rbegin(); It != PostOrder.rend(); ++It) {
    const Expr *E = *It;
    bool Own = Reaches.count(E);
    for (unsigned I = 0; I < E->numOperands(); ++I) {
      Reach R = operandReach(E, I);
      if (R == Reach::Always || (R == Reach::Follows && Own))
        Reaches.insert(E->operand(I));
    }
  }
  return Reaches;
}

/// P without its "equal" outcome.
FCmpPredicate withoutEqual(FCmpPredicate P) {
  switch (P) {
  case FCmpPredicate::Oeq:
    return FCmpPredicate::False;
  case FCmpPredicate::Oge:
    return FCmpPredicate::Ogt;
  case FCmpPredicate::Ole:
    return FCmpPredicate::Olt;
  case FCmpPredicate::Ord:
    return FCmpPredicate::One;
  case FCmpPredicate::Ueq:
    return FCmpPredicate::Uno;
  case FCmpPredicate::Uge:
    return FCmpPredicate::Ugt;
  case FCmpPredicate::Ule:
    return FCmpPredicate::Ult;
  case FCmpPredicate::True:
    return FCmpPredicate::Une;
  default:
    return P;
  }
}

bool comparesArms(const Expr *Cmp, const Expr *A, const Expr *B) {
  const Expr *X = Cmp->operand(0), *Y = Cmp->operand(1);
  return A != B && ((X == A && Y == B) || (X == B && Y == A));
}

class Settler {
public:
  Settler(Context &C, const Expr *Root)
      : C(C), PostOrder(postOrder(std::span<const Expr *const>(&Root, 1))),
        Reaches(signReachesRoot(PostOrder)) {}

  const Expr *run() {
    for (const Expr *E : PostOrder)
      New[E] = rebuild(E);
    return New.at(PostOrder.back());
  }

private:
  Context &C;
  std::vector<const Expr *> PostOrder;
  std::unordered_set<const Expr *> Reaches;
  std::unordered_map<const Expr *, const Expr *> New;

  const Expr *rebuild(const Expr *E) {
    std::vector<const Expr *> Operands;
    for (const Expr *O : E->operands())
      Operands.push_back(New.at(O));
    if (E->op() == Op::Select && E->type().isFloat() && !Reaches.count(E)) {
      std::unordered_map<const Expr *, const Expr *> Memo;
      Operands[0] = withoutEquality(E->operand(0), E->operand(1),
                                    E->operand(2), Memo);
    }
    return C.withOperands(E, Operands);
  }

  /// Cond with the EQ bit of its comparisons of A with B cleared, through
  /// its boolean connectives; every other node as rebuilt.
  const Expr *withoutEquality(const Expr *Cond, const Expr *A, const Expr *B,
                              std::unordered_map<const Expr *, const Expr *> &Memo) {
    if (auto It = Memo.find(Cond); It != Memo.end())
      return It->second;
    const Expr *Out = New.at(Cond);
    if (Cond->op() == Op::FCmp && comparesArms(Cond, A, B)) {
      Out = C.fcmp(withoutEqual(Cond->fcmpPredicate()), New.at(Cond->operand(0)), New.at(Cond->operand(1)));
    } else if (Cond->type().isBool() &&
               (Cond->op() == Op::And || Cond->op() == Op::Or ||
                Cond->op() == Op::Xor || Cond->op() == Op::Not)) {
      std::vector<const Expr *> Operands;
      for (const Expr *O : Cond->operands())
        Operands.push_back(withoutEquality(O, A, B, Memo));
      Out = C.withOperands(Cond, Operands);
    }
    Memo[Cond] = Out;
    return Out;
  }
};

} // namespace

const Expr *settleZeroSignChoices(Context &C, const Expr *Root) {
  return Settler(C, Root).run();
}

} // namespace stagecheck::stages

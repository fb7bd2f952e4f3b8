#include "stages/ZeroSign.h"

#include "stages/DifferingSubterms.h"

#include "ir/FloatOps.h"
#include "ir/Functions.h"

#include <optional>
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

/// A float constant that is neither zero nor NaN.
bool isNonzeroNumber(const Expr *E) {
  if (!E->isConst() || !E->type().isFloat())
    return false;
  fp::Class K = fp::decode(E->constBits(), floatFormat(E->type())).Kind;
  return K != fp::Class::Zero && K != fp::Class::NaN;
}

Reach operandReach(const Expr *E, unsigned I) {
  if (!E->operand(I)->type().isFloat())
    return Reach::Never; // no zero sign to carry
  switch (E->op()) {
  case Op::FAdd:
  case Op::FSub:
    // +-0 + c is c, in every rounding mode, when c is not zero (libdevice's
    // range reductions: fma(x, k, 0.5)).
    return isNonzeroNumber(E->operand(1 - I)) ? Reach::Never : Reach::Follows;
  case Op::Fma:
    // A zero factor makes a zero (or NaN) product, which c then absorbs.
    return I < 2 && isNonzeroNumber(E->operand(2)) ? Reach::Never
                                                    : Reach::Follows;
  case Op::FMul:
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

/// The predicate with its operands exchanged (a < b is b > a).
FCmpPredicate swapped(FCmpPredicate P) {
  switch (P) {
  case FCmpPredicate::Ogt: return FCmpPredicate::Olt;
  case FCmpPredicate::Oge: return FCmpPredicate::Ole;
  case FCmpPredicate::Olt: return FCmpPredicate::Ogt;
  case FCmpPredicate::Ole: return FCmpPredicate::Oge;
  case FCmpPredicate::Ugt: return FCmpPredicate::Ult;
  case FCmpPredicate::Uge: return FCmpPredicate::Ule;
  case FCmpPredicate::Ult: return FCmpPredicate::Ugt;
  case FCmpPredicate::Ule: return FCmpPredicate::Uge;
  default: return P; // symmetric
  }
}

bool comparesArms(const Expr *Cmp, const Expr *A, const Expr *B) {
  const Expr *X = Cmp->operand(0), *Y = Cmp->operand(1);
  return A != B && ((X == A && Y == B) || (X == B && Y == A));
}

using Pairs = std::vector<std::pair<const Expr *, const Expr *>>;

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
    if (E->op() == Op::Select) {
      Pairs Choices;
      if (E->type().isFloat() && !Reaches.count(E))
        Choices = numberChoices(E->operand(1), E->operand(2));
      else if (E->type().isBool())
        if (auto Choice = comparedChoice(E->operand(1), E->operand(2)))
          Choices.push_back(*Choice);
      if (!Choices.empty()) {
        std::unordered_map<const Expr *, const Expr *> Memo;
        Operands[0] = withoutEquality(E->operand(0), Choices, Memo);
      }
    }
    return C.withOperands(E, Operands);
  }

  /// The pairs (a, b) whose being equal numbers makes the arms X and Y
  /// equal numbers: the arms themselves and, where X and Y are one op that
  /// differs in one operand and carries equal numbers to equal numbers
  /// there (fneg, x - m, a call that ignores the sign of zero), that
  /// operand's pair, and so on down.
  Pairs numberChoices(const Expr *X, const Expr *Y) {
    Pairs Out;
    for (;;) {
      Out.push_back({X, Y});
      if (!sameOperation(C, X, Y))
        return Out;
      std::optional<unsigned> Differs;
      for (unsigned I = 0; I < X->numOperands(); ++I)
        if (X->operand(I) != Y->operand(I)) {
          if (Differs)
            return Out;
          Differs = I;
        }
      if (!Differs || operandReach(X, *Differs) == Reach::Always)
        return Out;
      X = X->operand(*Differs);
      Y = Y->operand(*Differs);
    }
  }

  /// (a, b) when the arms compare a and b with one value the same way,
  /// fcmp(P, a, z) and fcmp(P, b, z) in either operand order, or a and b
  /// each compared with itself: the choice
  /// between them does not matter where a and b are equal numbers (a
  /// comparison of a select, with the comparison moved into its arms).
  static std::optional<std::pair<const Expr *, const Expr *>>
  comparedChoice(const Expr *X, const Expr *Y) {
    if (X->op() != Op::FCmp || Y->op() != Op::FCmp)
      return std::nullopt;
    FCmpPredicate P = X->fcmpPredicate(), Q = Y->fcmpPredicate();
    const Expr *X0 = X->operand(0), *X1 = X->operand(1);
    const Expr *Y0 = Y->operand(0), *Y1 = Y->operand(1);
    if (P == Q && X0 == X1 && Y0 == Y1) // is a NaN: uno(a, a), uno(b, b)
      return std::pair(X0, Y0);
    if (P == Q && X1 == Y1)
      return std::pair(X0, Y0);
    if (P == Q && X0 == Y0)
      return std::pair(X1, Y1);
    if (P == swapped(Q) && X1 == Y0)
      return std::pair(X0, Y1);
    if (P == swapped(Q) && X0 == Y1)
      return std::pair(X1, Y0);
    return std::nullopt;
  }

  /// Cond with the EQ bit of its comparisons of a with b cleared, for each
  /// (a, b) of Choices, through its boolean connectives; every other node
  /// as rebuilt.
  const Expr *withoutEquality(const Expr *Cond, const Pairs &Choices,
                              std::unordered_map<const Expr *, const Expr *> &Memo) {
    if (auto It = Memo.find(Cond); It != Memo.end())
      return It->second;
    const Expr *Out = New.at(Cond);
    auto Compared = [&] {
      for (auto [A, B] : Choices)
        if (comparesArms(Cond, A, B))
          return true;
      return false;
    };
    if (Cond->op() == Op::FCmp && Compared()) {
      Out = C.fcmp(withoutEqual(Cond->fcmpPredicate()), New.at(Cond->operand(0)), New.at(Cond->operand(1)));
    } else if (Cond->type().isBool() &&
               (Cond->op() == Op::And || Cond->op() == Op::Or ||
                Cond->op() == Op::Xor || Cond->op() == Op::Not)) {
      std::vector<const Expr *> Operands;
      for (const Expr *O : Cond->operands())
        Operands.push_back(withoutEquality(O, Choices, Memo));
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

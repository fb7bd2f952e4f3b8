#include "stages/RealNormalForm.h"

#include "ir/Value.h"

#include <algorithm>
#include <cmath>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

bool isInfinity(const Expr *E, bool Negative);

/// The two compared operands of a max/min select: select(cmp(x, y) [or
/// x != x], T, F) with {T, F} = {x, y}. Returns whether T is the larger
/// (true: max), or nothing when the select is no extremum.
std::optional<bool> selectExtremum(const Expr *N) {
  const Expr *Cond = N->operand(0), *T = N->operand(1), *F = N->operand(2);
  if (!T->type().isFloat())
    return std::nullopt;
  // An `or` with a NaN test of one operand: over the reals it is false.
  if (Cond->op() == Op::Or) {
    for (unsigned I = 0; I < 2; ++I) {
      const Expr *Test = Cond->operand(I);
      bool NanTest =
          Test->op() == Op::FCmp && Test->operand(0) == Test->operand(1) &&
          (Test->fcmpPredicate() == FCmpPredicate::Une ||
           Test->fcmpPredicate() == FCmpPredicate::Uno);
      if (NanTest && (Test->operand(0) == T || Test->operand(0) == F)) {
        Cond = Cond->operand(1 - I);
        break;
      }
    }
  }
  if (Cond->op() != Op::FCmp)
    return std::nullopt;
  const Expr *X = Cond->operand(0), *Y = Cond->operand(1);
  bool Greater, Strictless;
  switch (Cond->fcmpPredicate()) {
  case FCmpPredicate::Ogt:
  case FCmpPredicate::Oge:
  case FCmpPredicate::Ugt:
  case FCmpPredicate::Uge:
    Greater = true;
    break;
  case FCmpPredicate::Olt:
  case FCmpPredicate::Ole:
  case FCmpPredicate::Ult:
  case FCmpPredicate::Ule:
    Greater = false;
    break;
  default:
    return std::nullopt;
  }
  (void)Strictless;
  // cond = x > y: select(cond, x, y) is max, select(cond, y, x) is min.
  if (T == X && F == Y)
    return Greater;
  if (T == Y && F == X)
    return !Greater;
  return std::nullopt;
}

/// How X compares with Y, two reals (no NaN).
enum class Relation { Less, Equal, Greater };

bool holdsWhen(FCmpPredicate P, Relation R) {
  switch (P) {
  case FCmpPredicate::False:
  case FCmpPredicate::Uno:
    return false;
  case FCmpPredicate::True:
  case FCmpPredicate::Ord:
    return true;
  case FCmpPredicate::Oeq:
  case FCmpPredicate::Ueq:
    return R == Relation::Equal;
  case FCmpPredicate::One:
  case FCmpPredicate::Une:
    return R != Relation::Equal;
  case FCmpPredicate::Ogt:
  case FCmpPredicate::Ugt:
    return R == Relation::Greater;
  case FCmpPredicate::Oge:
  case FCmpPredicate::Uge:
    return R != Relation::Less;
  case FCmpPredicate::Olt:
  case FCmpPredicate::Ult:
    return R == Relation::Less;
  case FCmpPredicate::Ole:
  case FCmpPredicate::Ule:
    return R != Relation::Greater;
  }
  return false;
}

Relation reversed(Relation R) {
  return R == Relation::Less      ? Relation::Greater
         : R == Relation::Greater ? Relation::Less
                                  : Relation::Equal;
}

/// A condition read as a truth table over how two reals X and Y compare
/// and, optionally, which of two distinct non-negative integers I and J is
/// smaller; every other leaf is free, and a question holds only if it
/// holds whatever the free leaves are.
class ConditionTable {
public:
  ConditionTable(const Expr *Cond, const Expr *X, const Expr *Y,
                 const Expr *I = nullptr, const Expr *J = nullptr)
      : Cond(Cond), X(X), Y(Y), I(I), J(J) {
    Valid = gather(Cond) && ComparesXY && Free.size() <= MaxFree;
  }
  bool valid() const { return Valid; }
  /// The condition's value where X R Y and (I < J) == IndexLess, if the
  /// same for every value of the free leaves.
  std::optional<bool> at(Relation R, bool IndexLess) const {
    std::optional<bool> Out;
    for (unsigned Bits = 0; Bits < (1u << Free.size()); ++Bits) {
      bool V = eval(Cond, R, IndexLess, Bits);
      if (Out && *Out != V)
        return std::nullopt;
      Out = V;
    }
    return Out;
  }

private:
  static constexpr size_t MaxFree = 4, MaxNodes = 64;
  bool connective(const Expr *E) const {
    return E->op() == Op::And || E->op() == Op::Or || E->op() == Op::Xor ||
           E->op() == Op::Not;
  }
  bool pairOf(const Expr *E, const Expr *A, const Expr *B) const {
    return A && ((E->operand(0) == A && E->operand(1) == B) ||
                 (E->operand(0) == B && E->operand(1) == A));
  }
  bool gather(const Expr *E) {
    // Small conditions only: eval walks them as trees, 2^Free times.
    if (!E->type().isBool() || ++Visited > MaxNodes)
      return false;
    if (E->isConst())
      return true;
    if (connective(E)) {
      for (const Expr *O : E->operands())
        if (!gather(O))
          return false;
      return true;
    }
    if (E->op() == Op::FCmp && pairOf(E, X, Y)) {
      ComparesXY = true;
      return true;
    }
    if (E->op() == Op::ICmp && pairOf(E, I, J))
      return true;
    if (std::find(Free.begin(), Free.end(), E) == Free.end())
      Free.push_back(E);
    return Free.size() <= MaxFree;
  }
  bool eval(const Expr *E, Relation R, bool IndexLess, unsigned Bits) const {
    if (E->isConst())
      return E->constBits() != 0;
    switch (E->op()) {
    case Op::And:
      return eval(E->operand(0), R, IndexLess, Bits) &&
             eval(E->operand(1), R, IndexLess, Bits);
    case Op::Or:
      return eval(E->operand(0), R, IndexLess, Bits) ||
             eval(E->operand(1), R, IndexLess, Bits);
    case Op::Xor:
      return eval(E->operand(0), R, IndexLess, Bits) !=
             eval(E->operand(1), R, IndexLess, Bits);
    case Op::Not:
      return !eval(E->operand(0), R, IndexLess, Bits);
    default:
      break;
    }
    if (E->op() == Op::FCmp && pairOf(E, X, Y))
      return holdsWhen(E->fcmpPredicate(),
                       E->operand(0) == X ? R : reversed(R));
    if (E->op() == Op::ICmp && pairOf(E, I, J)) {
      bool Less = E->operand(0) == I ? IndexLess : !IndexLess;
      switch (E->icmpPredicate()) {
      case ICmpPredicate::Eq:
        return false;
      case ICmpPredicate::Ne:
        return true;
      case ICmpPredicate::Slt:
      case ICmpPredicate::Sle:
      case ICmpPredicate::Ult:
      case ICmpPredicate::Ule:
        return Less;
      default:
        return !Less;
      }
    }
    size_t K = std::find(Free.begin(), Free.end(), E) - Free.begin();
    return (Bits >> K) & 1;
  }

  const Expr *Cond, *X, *Y, *I, *J;
  std::vector<const Expr *> Free;
  size_t Visited = 0;
  bool ComparesXY = false, Valid = false;
};

/// select(Cond, T, F) of two reals is their maximum (true) or minimum
/// (false) when Cond picks the larger (smaller) one wherever they differ,
/// whatever else it tests (an index, to break ties between equal values).
std::optional<bool> extremumByTable(const Expr *Cond, const Expr *T,
                                    const Expr *F) {
  ConditionTable Table(Cond, T, F);
  if (!Table.valid())
    return std::nullopt;
  std::optional<bool> Greater = Table.at(Relation::Greater, false),
                      Less = Table.at(Relation::Less, false);
  if (!Greater || !Less || *Greater == *Less)
    return std::nullopt;
  return *Greater;
}

/// The lexicographic preference of an arg-max (arg-min): the better value,
/// and among equal values the smaller index (the larger unless FirstWins).
bool lexicographicallyBetter(bool IsMax, bool FirstWins, Relation R,
                             bool IndexLess) {
  if (R == Relation::Equal)
    return IndexLess == FirstWins;
  return IsMax == (R == Relation::Greater);
}

/// Whether X R Y can hold over the extended reals: nothing is below -inf
/// or above +inf (the factory folds `-inf > x` to false, so a condition
/// need not say what it would do there).
bool possible(const Expr *X, Relation R, const Expr *Y) {
  if (R == Relation::Equal)
    return true;
  const Expr *Low = R == Relation::Less ? X : Y,
             *High = R == Relation::Less ? Y : X;
  return !isInfinity(Low, false) && !isInfinity(High, true);
}

/// Key of an index constant that has not been cast: its value, if it is a
/// non-negative integer.
std::optional<int64_t> indexKey(const Expr *E) {
  if (!E->isConst() || !E->type().isInt() || E->type().isBool())
    return std::nullopt;
  int64_t V = Value::ofBits(E->type(), E->constBits()).asSigned();
  if (V < 0)
    return std::nullopt;
  return V;
}

} // namespace


std::optional<RealNormalForm::ArgExtremum>
RealNormalForm::argSide(const Expr *Index, const Expr *Value) {
  if (std::optional<int64_t> Key = indexKey(Index))
    return ArgExtremum{true, true, {{*Key, Value, Index}}, Value};
  auto It = ArgExtrema.find(Index);
  if (It == ArgExtrema.end())
    return std::nullopt;
  for (const ArgExtremum &A : It->second) {
    // Only an index that still yields its keys is compared as one.
    if (A.Best == Value &&
        std::all_of(A.Entries.begin(), A.Entries.end(),
                    [](const ArgEntry &E) { return indexKey(E.Out) == E.Key; }))
      return A;
  }
  return std::nullopt;
}

const Expr *RealNormalForm::argSelect(const Expr *Cond, const Expr *T,
                                      const Expr *F) {
  if (!T->type().isInt() || T->type().isBool())
    return nullptr;
  // The compared values: the operands of a float compare among the
  // condition's leaves (below and, or, xor, not).
  std::vector<std::pair<const Expr *, const Expr *>> Pairs;
  std::vector<const Expr *> Work = {Cond};
  while (!Work.empty() && Pairs.size() <= 2) {
    const Expr *E = Work.back();
    Work.pop_back();
    if (E->op() == Op::And || E->op() == Op::Or || E->op() == Op::Xor ||
        E->op() == Op::Not) {
      Work.insert(Work.end(), E->operands().begin(), E->operands().end());
      continue;
    }
    if (E->op() != Op::FCmp || E->operand(0) == E->operand(1))
      continue;
    std::pair<const Expr *, const Expr *> P(E->operand(0), E->operand(1));
    if (P.second->id() < P.first->id())
      std::swap(P.first, P.second);
    if (std::find(Pairs.begin(), Pairs.end(), P) == Pairs.end())
      Pairs.push_back(P);
  }
  if (Pairs.empty() || Pairs.size() > 2)
    return nullptr;
  const Expr *Result = nullptr;
  for (auto [X, Y] : Pairs)
    for (bool Swap : {false, true}) {
      const Expr *VT = Swap ? Y : X, *VF = Swap ? X : Y;
      std::optional<ArgExtremum> A = argSide(T, VT), B = argSide(F, VF);
      if (!A || !B)
        continue;
      int64_t MinA = A->Entries.front().Key, MaxA = A->Entries.back().Key;
      int64_t MinB = B->Entries.front().Key, MaxB = B->Entries.back().Key;
      std::vector<ArgEntry> All = A->Entries;
      All.insert(All.end(), B->Entries.begin(), B->Entries.end());
      std::sort(All.begin(), All.end(),
                [](const ArgEntry &L, const ArgEntry &R) { return L.Key < R.Key; });
      if (std::adjacent_find(All.begin(), All.end(),
                             [](const ArgEntry &L, const ArgEntry &R) {
                               return L.Key == R.Key;
                             }) != All.end())
        continue;
      // Which winner's index is smaller: fixed when the keys do not
      // interleave, else both cases are asked.
      std::vector<bool> IndexCases;
      if (MaxA < MinB)
        IndexCases = {true};
      else if (MinA > MaxB)
        IndexCases = {false};
      else
        IndexCases = {true, false};
      ConditionTable Table(Cond, VT, VF, T, F);
      if (!Table.valid())
        continue;
      bool SingleA = A->Entries.size() == 1, SingleB = B->Entries.size() == 1;
      for (bool IsMax : {true, false})
        for (bool FirstWins : {true, false}) {
          auto Differs = [&](const ArgExtremum &S) {
            return S.IsMax != IsMax || S.FirstWins != FirstWins;
          };
          if ((!SingleA && Differs(*A)) || (!SingleB && Differs(*B)))
            continue;
          bool Matches = true;
          for (Relation R :
               {Relation::Less, Relation::Equal, Relation::Greater})
            for (bool IndexLess : IndexCases) {
              if (!possible(VT, R, VF))
                continue;
              std::optional<bool> V = Table.at(R, IndexLess);
              Matches &= V && *V == lexicographicallyBetter(IsMax, FirstWins,
                                                            R, IndexLess);
            }
          if (!Matches)
            continue;
          // Every reading is kept (under the node it folds to): which one
          // the next select needs shows only there.
          const Expr *Fold = argFold({IsMax, FirstWins, All, nullptr});
          if (!Result)
            Result = Fold;
        }
    }
  if (Result)
    ++ArgFolded;
  return Result;
}

/// The left fold of the pairs in key order: the index of the first
/// extremum. Both sides of a query build their arg-extrema this way.
const Expr *RealNormalForm::argFold(ArgExtremum A) {
  unsigned FlattenedBefore = Flattened; // the report counts the kernels' own
  // A masked lane's identity (-inf for a maximum) never wins against a
  // real: an input read (a symbol or a buffer element) is one.
  bool SomeReal = std::any_of(A.Entries.begin(), A.Entries.end(),
                              [](const ArgEntry &E) {
                                return E.Value->op() == Op::Symbol ||
                                       E.Value->op() == Op::Read;
                              });
  if (SomeReal)
    std::erase_if(A.Entries, [&](const ArgEntry &E) {
      return isInfinity(E.Value, A.IsMax);
    });
  const Expr *Best = A.Entries.front().Value, *Index = A.Entries.front().Out;
  for (size_t K = 1; K < A.Entries.size(); ++K) {
    const ArgEntry &E = A.Entries[K];
    // The later pair wins when better, or equal where ties go to it.
    FCmpPredicate P = A.FirstWins ? FCmpPredicate::Olt : FCmpPredicate::Ole;
    const Expr *Better = A.IsMax ? C.fcmp(P, Best, E.Value)
                                 : C.fcmp(P, E.Value, Best);
    Index = C.select(Better, E.Out, Index);
    Best = extremum(A.IsMax, Best, E.Value);
  }
  Flattened = FlattenedBefore;
  A.Best = Best;
  ArgExtrema[Index].push_back(std::move(A));
  return Index;
}

/// A cast of an arg-extremum's index is the same fold over the cast
/// constants (a function of a select is the select of its values).
const Expr *RealNormalForm::argCast(const Expr *N, const Expr *Operand) {
  auto It = ArgExtrema.find(Operand);
  if (It == ArgExtrema.end())
    return nullptr;
  std::vector<ArgExtremum> Readings = It->second;
  const Expr *Result = nullptr;
  for (ArgExtremum A : Readings) {
    bool Constant = true;
    for (ArgEntry &E : A.Entries) {
      const Expr *Ops[] = {E.Out};
      E.Out = C.withOperands(N, Ops);
      Constant &= E.Out->isConst();
    }
    if (!Constant)
      return nullptr;
    const Expr *Fold = argFold(std::move(A));
    if (!Result)
      Result = Fold;
  }
  return Result;
}


void RealNormalForm::collect(bool IsMax, const Expr *E,
                             std::vector<const Expr *> &Out) {
  auto It = Extrema.find(E);
  if (It != Extrema.end() && It->second.IsMax == IsMax) {
    Out.insert(Out.end(), It->second.Operands.begin(),
               It->second.Operands.end());
    return;
  }
  Out.push_back(E);
}

const Expr *RealNormalForm::extremum(bool IsMax, const Expr *A,
                                     const Expr *B) {
  std::vector<const Expr *> Operands;
  collect(IsMax, A, Operands);
  collect(IsMax, B, Operands);
  // The identity (-inf for max, +inf for min) drops out; all of them: it.
  const Expr *Identity = nullptr;
  std::erase_if(Operands, [&](const Expr *E) {
    if (!isInfinity(E, IsMax))
      return false;
    Identity = E;
    return true;
  });
  if (Identity)
    ++Absorbed;
  if (Operands.empty())
    return Identity;
  std::sort(Operands.begin(), Operands.end(),
            [](const Expr *L, const Expr *R) { return L->id() < R->id(); });
  Operands.erase(std::unique(Operands.begin(), Operands.end()), Operands.end());
  Op O = IsMax ? Op::FMaxNum : Op::FMinNum;
  const Expr *R = Operands.front();
  for (size_t I = 1; I < Operands.size(); ++I)
    R = C.floatBinary(O, R, Operands[I]);
  if (Operands.size() > 1)
    Extrema[R] = {IsMax, std::move(Operands)};
  ++Flattened;
  return R;
}

namespace {

bool isInfinity(const Expr *E, bool Negative) {
  if (!E->isConst() || !E->type().isFloat())
    return false;
  FloatFormat F = floatFormat(E->type());
  uint64_t Inf = ((uint64_t(1) << F.ExponentBits) - 1) << F.MantissaBits;
  if (Negative)
    Inf |= uint64_t(1) << (F.totalBits() - 1);
  return E->constBits() == Inf;
}

bool isZero(const Expr *E) {
  if (!E->isConst() || !E->type().isFloat())
    return false;
  unsigned Sign = E->type().bits() - 1;
  return (E->constBits() & ~(uint64_t(1) << Sign)) == 0;
}

} // namespace

/// Finite for every finite input, on its face: reads, symbols and finite
/// constants through +, -, *, extrema, selects and casts (over the reals
/// nothing overflows). Division and calls are not judged.
bool RealNormalForm::visiblyFinite(const Expr *E) {
  if (auto It = Finite.find(E); It != Finite.end())
    return It->second;
  bool R = false;
  switch (E->op()) {
  case Op::Read:
  case Op::Symbol:
    R = true;
    break;
  case Op::Const:
    R = !E->type().isFloat() || (!isInfinity(E, false) &&
                                 !isInfinity(E, true) &&
                                 !std::isnan(Value::ofBits(E->type(),
                                                           E->constBits())
                                                 .asDouble()));
    break;
  case Op::FAdd:
  case Op::FSub:
  case Op::FMul:
  case Op::FMaxNum:
  case Op::FMinNum:
  case Op::FMaximum:
  case Op::FMinimum:
  case Op::FNeg:
  case Op::FAbs:
  case Op::FPCast:
  case Op::SIToFP:
  case Op::UIToFP:
  case Op::Fma:
    R = true;
    for (const Expr *O : E->operands())
      R = R && (O->type().isFloat() ? visiblyFinite(O) : true);
    break;
  case Op::Select:
    R = visiblyFinite(E->operand(1)) && visiblyFinite(E->operand(2));
    break;
  default:
    break;
  }
  Finite[E] = R;
  return R;
}

/// Arithmetic with an infinite constant that the padding of masked lanes
/// brings in (a load's `other = -inf`): over the extended reals -inf is the
/// identity of max, -inf - x = -inf for finite x, exp(-inf) = 0, and 0 is
/// the identity of +.
const Expr *RealNormalForm::absorbInfinity(const Expr *N,
                                           const std::vector<const Expr *> &Ops) {
  switch (N->op()) {
  case Op::FAdd:
  case Op::FSub:
    for (bool Negative : {true, false}) {
      if (isInfinity(Ops[0], Negative) && visiblyFinite(Ops[1])) {
        ++Absorbed;
        return Ops[0];
      }
      if (N->op() == Op::FAdd && isInfinity(Ops[1], Negative) &&
          visiblyFinite(Ops[0])) {
        ++Absorbed;
        return Ops[1];
      }
    }
    if (isZero(Ops[1]))
      return Ops[0];
    if (N->op() == Op::FAdd && isZero(Ops[0]))
      return Ops[1];
    return nullptr;
  case Op::Call:
    // rsqrt is 1 / sqrt over the reals: a kernel that divides meets a
    // reference that calls it.
    if (N->name() == "rsqrt" && Ops.size() == 1 &&
        For != Purpose::RoundingModel) {
      const Expr *Root[] = {Ops[0]};
      return C.floatBinary(
          Op::FDiv, C.floatConst(N->type(), 1.0),
          C.make(Op::FSqrt, Root, uint8_t(RoundingMode::NearestEven)));
    }
    if ((N->name() == "exp" || N->name() == "exp2") && Ops.size() == 1 &&
        isInfinity(Ops[0], true)) {
      ++Absorbed;
      return C.floatConst(N->type(), 0.0);
    }
    return nullptr;
  default:
    return nullptr;
  }
}

/// A comparison's value when its left operand is strictly below (Below)
/// or strictly above its right one, both ordered.
/// A finite value compared with an infinity (inductor's `|max| == inf`
/// guard): over the reals every value lies strictly between -inf and
/// +inf, and none is NaN.
const Expr *RealNormalForm::compareWithInfinity(
    const Expr *N, const std::vector<const Expr *> &Ops) {
  for (unsigned Side : {0u, 1u}) {
    const Expr *Bound = Ops[Side], *Other = Ops[1 - Side];
    for (bool Negative : {false, true}) {
      if (!isInfinity(Bound, Negative) || !visiblyFinite(Other))
        continue;
      // Other < +inf and Other > -inf; seen from the left operand.
      bool OtherBelow = !Negative;
      bool LeftBelow = Side == 1 ? OtherBelow : !OtherBelow;
      return C.boolean(holdsWhen(N->fcmpPredicate(),
                                   LeftBelow ? Relation::Less
                                             : Relation::Greater));
    }
  }
  return nullptr;
}

const Expr *RealNormalForm::rewriteNode(const Expr *N,
                                        const std::vector<const Expr *> &Ops) {
  if (const Expr *R = absorbInfinity(N, Ops))
    return R;
  // No real is NaN: the encoding over the reals reads ord as true and uno
  // as false whatever the operands, and so does the normal form, so that a
  // select on a NaN test gives way to its other arm.
  if (N->op() == Op::FCmp && N->fcmpPredicate() == FCmpPredicate::Ord)
    return C.trueExpr();
  if (N->op() == Op::FCmp && N->fcmpPredicate() == FCmpPredicate::Uno)
    return C.falseExpr();
  if (N->op() == Op::FCmp && For == Purpose::FindingDifferences)
    return compareWithInfinity(N, Ops);
  switch (N->op()) {
  case Op::FMaxNum:
  case Op::FMaximum:
    return extremum(true, Ops[0], Ops[1]);
  case Op::FMinNum:
  case Op::FMinimum:
    return extremum(false, Ops[0], Ops[1]);
  case Op::Select: {
    // Decide on the original compare (its operands are the original
    // arms), then combine the rewritten arms.
    if (auto IsMax = selectExtremum(N))
      return extremum(*IsMax, Ops[1], Ops[2]);
    // Then on the rewritten compare, case by case: a tie broken by an
    // index, a compare spelled as `==` or `<`.
    if (Ops[1]->type().isFloat()) {
      if (auto IsMax = extremumByTable(Ops[0], Ops[1], Ops[2]))
        return extremum(*IsMax, Ops[1], Ops[2]);
      return nullptr;
    }
    // The fold adds compares to what rounds; not for a rounding model.
    if (For != Purpose::RoundingModel)
      return argSelect(Ops[0], Ops[1], Ops[2]);
    return nullptr;
  }
  default:
    switch (category(N->op())) {
    case OpCategory::IntCast:
    case OpCategory::FloatToFloat:
    case OpCategory::FloatToInt:
    case OpCategory::IntToFloat:
      if (For != Purpose::RoundingModel)
        return argCast(N, Ops[0]);
      return nullptr;
    default:
      return nullptr;
    }
  }
}

const Expr *RealNormalForm::normalize(const Expr *E) {
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots)) {
    if (Memo.count(N))
      continue;
    std::vector<const Expr *> Ops;
    bool Same = true;
    for (const Expr *O : N->operands()) {
      Ops.push_back(Memo.at(O));
      Same &= Ops.back() == O;
    }
    const Expr *R = rewriteNode(N, Ops);
    if (!R)
      R = Same ? N : C.withOperands(N, Ops);
    Memo[N] = R;
  }
  return Memo.at(E);
}

namespace {

/// Products and sums of coefficients, only where they are exact.
std::optional<double> exactProduct(double A, double B) {
  double P = A * B;
  if (!std::isfinite(P) || std::fma(A, B, -P) != 0 ||
      (P != 0 && std::fabs(P) < 0x1p-1000))
    return std::nullopt;
  return P;
}

std::optional<double> exactSum(double A, double B) {
  double S = A + B;
  double Bv = S - A, Err = (A - (S - Bv)) + (B - Bv); // two-sum
  if (!std::isfinite(S) || Err != 0)
    return std::nullopt;
  return S;
}

/// Adds K to the coefficient of M in S (a map from monomials to
/// coefficients), dropping the monomial when it cancels; false where the
/// new coefficient would be inexact.
template <class Map, class Key>
bool addCoefficient(Map &S, const Key &M, double K) {
  if (K == 0)
    return true;
  auto It = S.find(M);
  if (It == S.end()) {
    S.emplace(M, K);
    return true;
  }
  auto Total = exactSum(It->second, K);
  if (!Total)
    return false;
  if (*Total == 0)
    S.erase(It);
  else
    It->second = *Total;
  return true;
}

/// Beyond this many monomials a sum stays an atom: the expansion of
/// products of sums grows fast, and nothing in a kernel needs more.
constexpr size_t MaxMonomials = 4096;

bool representable(double V, Type T) {
  return Value::ofDouble(T, V).asDouble() == V;
}

} // namespace

static bool lessByNodeId(const Expr *L, const Expr *R) {
  return L->id() < R->id();
}

bool RealNormalForm::MonomialOrder::operator()(const Monomial &A,
                                               const Monomial &B) const {
  return std::lexicographical_compare(
      A.begin(), A.end(), B.begin(), B.end(),
      [](const Expr *L, const Expr *R) { return L->id() < R->id(); });
}

/// Ops whose result is a sum of the operands' (scaled, multiplied).
static bool arithmetic(const Expr *N) {
  switch (N->op()) {
  case Op::FAdd:
  case Op::FSub:
  case Op::FNeg:
  case Op::FMul:
  case Op::Fma:
  case Op::FDiv:
  case Op::FPCast:
  case Op::FFlushSubnormal:
    return true;
  default:
    return false;
  }
}

/// Adds Scale times the sum N computes to Out, flattening chains of +, -
/// and fma so that a sum of n terms costs n steps, not n^2 (no node inside
/// a chain gets a sum of its own). A product of two non-constants is
/// expanded when small; anything else is an atom, in its canonical form.
/// False when a coefficient would be inexact or the work budget is spent.
bool RealNormalForm::accumulate(const Expr *N, double Scale, Sum &Out) {
  if (++Visits > VisitBudget)
    return false;
  auto Constant = [](const Expr *O, double &V) {
    if (!O->isConst() || !O->type().isFloat())
      return false;
    V = Value::ofBits(O->type(), O->constBits()).asDouble();
    return std::isfinite(V);
  };
  auto AddTerms = [&](const Sum &S, double K) {
    for (const auto &[M, C] : S) {
      auto Scaled = exactProduct(C, K);
      if (!Scaled || !addCoefficient(Out, M, *Scaled))
        return false;
    }
    return Out.size() <= MaxMonomials;
  };
  auto Atom = [&]() {
    const Expr *A = arithmetic(N) ? canonicalOperands(N) : polynomial(N);
    if (auto It = Sums.find(A); It != Sums.end())
      return AddTerms(It->second, Scale);
    double V;
    if (Constant(A, V))
      return V == 0 || AddTerms(Sum{{Monomial{}, V}}, Scale);
    return AddTerms(Sum{{Monomial{A}, 1.0}}, Scale);
  };
  auto Product = [&](const Expr *L, const Expr *R) {
    Sum SL, SR;
    if (!accumulate(L, 1.0, SL) || !accumulate(R, 1.0, SR) ||
        SL.size() * SR.size() > MaxMonomials)
      return Atom();
    Sum P;
    for (const auto &[ML, KL] : SL)
      for (const auto &[MR, KR] : SR) {
        Monomial M = ML;
        M.insert(M.end(), MR.begin(), MR.end());
        std::sort(M.begin(), M.end(), lessByNodeId);
        auto K = exactProduct(KL, KR);
        if (!K || !addCoefficient(P, M, *K))
          return false;
      }
    return AddTerms(P, Scale);
  };
  if (!N->type().isFloat())
    return false;
  double V;
  if (Constant(N, V))
    return V == 0 || AddTerms(Sum{{Monomial{}, V}}, Scale);
  switch (N->op()) {
  case Op::FAdd:
    return accumulate(N->operand(0), Scale, Out) &&
           accumulate(N->operand(1), Scale, Out);
  case Op::FSub:
    return accumulate(N->operand(0), Scale, Out) &&
           accumulate(N->operand(1), -Scale, Out);
  case Op::FNeg:
    return accumulate(N->operand(0), -Scale, Out);
  case Op::FMul:
  case Op::Fma: {
    const Expr *L = N->operand(0), *R = N->operand(1);
    bool Done;
    if (Constant(L, V) || Constant(R, V)) {
      auto K = exactProduct(Scale, V);
      Done = K && accumulate(Constant(L, V) ? R : L, *K, Out);
    } else {
      Done = Product(L, R);
    }
    if (!Done)
      return false;
    return N->op() == Op::FMul || accumulate(N->operand(2), Scale, Out);
  }
  case Op::FDiv: {
    // By a constant whose reciprocal is exact (a power of two).
    if (!Constant(N->operand(1), V) || V == 0)
      return Atom();
    double Inverse = 1.0 / V;
    auto K = exactProduct(Scale, Inverse);
    if (!exactProduct(V, Inverse) || V * Inverse != 1.0 || !K)
      return Atom();
    return accumulate(N->operand(0), *K, Out);
  }
  case Op::FPCast: {
    // Widening is exact over the reals; narrowing rounds (an atom).
    FloatFormat From = floatFormat(N->operand(0)->type()),
                To = floatFormat(N->type());
    if (To.MantissaBits < From.MantissaBits ||
        To.ExponentBits < From.ExponentBits)
      return Atom();
    return accumulate(N->operand(0), Scale, Out);
  }
  case Op::FFlushSubnormal: // no subnormals among the reals
    return accumulate(N->operand(0), Scale, Out);
  default:
    return Atom();
  }
}

/// The node of a sum in type T: monomials in order, each its coefficient
/// times its atoms widened to T, added left to right. Nothing when an atom
/// is wider than T or a coefficient is not a value of T.
const Expr *RealNormalForm::build(const Sum &S, Type T) {
  const Expr *Total = nullptr;
  for (const auto &[M, K] : S) {
    if (!representable(K, T))
      return nullptr;
    const Expr *Term = M.empty() || K != 1.0 ? C.floatConst(T, K) : nullptr;
    for (const Expr *A : M) {
      FloatFormat From = floatFormat(A->type()), To = floatFormat(T);
      if (From.MantissaBits > To.MantissaBits ||
          From.ExponentBits > To.ExponentBits)
        return nullptr;
      const Expr *Wide = A->type() == T ? A : C.cast(Op::FPCast, A, T);
      Term = Term ? C.floatBinary(Op::FMul, Term, Wide) : Wide;
    }
    Total = Total ? C.floatBinary(Op::FAdd, Total, Term) : Term;
  }
  return Total ? Total : C.floatConst(T, 0.0);
}

const Expr *RealNormalForm::polynomial(const Expr *E) {
  if (auto It = PolynomialMemo.find(E); It != PolynomialMemo.end())
    return It->second;
  const Expr *R = nullptr;
  if (E->type().isFloat() && arithmetic(E)) {
    Sum S;
    if (accumulate(E, 1.0, S) && Visits <= VisitBudget) {
      R = build(S, E->type());
      if (R)
        Sums.emplace(R, std::move(S));
    }
  }
  if (!R)
    R = canonicalOperands(E);
  PolynomialMemo[E] = R;
  return R;
}

static bool sumStep(const Expr *N) {
  return N->op() == Op::FAdd || N->op() == Op::FSub || N->op() == Op::FNeg;
}

const Expr *RealNormalForm::sumForm(const Expr *E) {
  if (auto It = SumFormMemo.find(E); It != SumFormMemo.end())
    return It->second;
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots)) {
    if (SumFormMemo.count(N))
      continue;
    // Only the roots of sum trees are flattened (each a walk of its tree);
    // a node inside a tree gets its form only if something else uses it,
    // and lazily, so a chain of n additions costs n steps, not n^2.
    if (sumStep(N))
      continue;
    std::vector<const Expr *> Ops;
    bool Same = true;
    for (const Expr *O : N->operands()) {
      Ops.push_back(sumStep(O) ? flattenedSum(O) : SumFormMemo.at(O));
      Same &= Ops.back() == O;
    }
    SumFormMemo[N] = Same ? N : C.withOperands(N, Ops);
  }
  return sumStep(E) ? flattenedSum(E) : SumFormMemo.at(E);
}

/// The sum tree rooted at N as one sum: its leaves (in sum form) counted
/// with their signs, in node order, constants added last. N itself where a
/// constant is not finite (over the reals it has no value: the query is
/// not one to answer by cancelling it) or their sum inexact, a count is not
/// a value of N's type, or the tree's walk (a DAG may share a subtree many
/// times over) exceeds the visit budget.
const Expr *RealNormalForm::flattenedSum(const Expr *N) {
  if (auto It = SumFormMemo.find(N); It != SumFormMemo.end())
    return It->second;
  std::map<const Expr *, double, bool (*)(const Expr *, const Expr *)> Terms(
      lessByNodeId);
  double Constant = 0;
  bool Exact = true;
  size_t Steps = 0;
  std::vector<std::pair<const Expr *, double>> Work = {{N, 1.0}};
  while (!Work.empty() && Exact) {
    auto [X, Sign] = Work.back();
    Work.pop_back();
    if (++Steps > VisitBudget) {
      Exact = false;
      break;
    }
    if (sumStep(X) && X->type() == N->type()) {
      if (X->op() == Op::FNeg) {
        Work.push_back({X->operand(0), -Sign});
      } else {
        Work.push_back({X->operand(1), X->op() == Op::FSub ? -Sign : Sign});
        Work.push_back({X->operand(0), Sign});
      }
      continue;
    }
    if (X->isConst()) {
      double V = Value::ofBits(X->type(), X->constBits()).asDouble();
      auto Total = exactSum(Constant, Sign * V);
      Exact = std::isfinite(V) && Total;
      Constant = Total.value_or(0);
      continue;
    }
    Exact = addCoefficient(Terms, sumForm(X), Sign);
  }
  // As it is where it cannot be flattened: then nothing below it is
  // compared as a flat sum (the polynomial step still may).
  const Expr *R = Exact ? buildSum(Terms, Constant, N->type()) : nullptr;
  SumFormMemo[N] = R ? R : N;
  return SumFormMemo[N];
}

/// Terms (each times its count) and Constant, added in order; nothing where
/// a count or the constant is not a value of T.
const Expr *RealNormalForm::buildSum(
    const std::map<const Expr *, double, bool (*)(const Expr *, const Expr *)>
        &Terms,
    double Constant, Type T) {
  const Expr *Total = nullptr;
  for (const auto &[Term, Count] : Terms) {
    const Expr *Scaled = Term;
    if (Count == -1)
      Scaled = C.unary(Op::FNeg, Term);
    else if (Count != 1 && representable(Count, T))
      Scaled = C.floatBinary(Op::FMul, C.floatConst(T, Count), Term);
    else if (Count != 1)
      return nullptr;
    Total = Total ? C.floatBinary(Op::FAdd, Total, Scaled) : Scaled;
  }
  if (!representable(Constant, T))
    return nullptr;
  if (!Total)
    return C.floatConst(T, Constant);
  return Constant == 0 ? Total
                       : C.floatBinary(Op::FAdd, Total, C.floatConst(T, Constant));
}

/// E itself with its operands in polynomial form.
const Expr *RealNormalForm::canonicalOperands(const Expr *E) {
  std::vector<const Expr *> Ops;
  for (const Expr *O : E->operands())
    Ops.push_back(polynomial(O));
  return C.withOperands(E, Ops);
}

namespace {

using Monomial = RealNormalForm::Monomial;
using ExpMonomial = RealNormalForm::ExpMonomial;
using ExpSum = RealNormalForm::ExpSum;
using Fraction = RealNormalForm::Fraction;

constexpr size_t MaxExpTerms = 4096;

std::optional<std::vector<std::pair<Monomial, double>>>
addExponents(const std::vector<std::pair<Monomial, double>> &A,
             const std::vector<std::pair<Monomial, double>> &B) {
  RealNormalForm::Sum S(A.begin(), A.end());
  for (const auto &[M, K] : B)
    if (!addCoefficient(S, M, K))
      return std::nullopt;
  return std::vector<std::pair<Monomial, double>>(S.begin(), S.end());
}

std::optional<ExpSum> addExp(ExpSum A, const ExpSum &B, double Scale) {
  for (const auto &[M, K] : B) {
    auto Scaled = exactProduct(K, Scale);
    if (!Scaled || !addCoefficient(A, M, *Scaled))
      return std::nullopt;
  }
  if (A.size() > MaxExpTerms)
    return std::nullopt;
  return A;
}

std::optional<ExpSum> mulExp(const ExpSum &A, const ExpSum &B) {
  if (A.size() * B.size() > MaxExpTerms)
    return std::nullopt;
  ExpSum R;
  for (const auto &[MA, KA] : A)
    for (const auto &[MB, KB] : B) {
      ExpMonomial M;
      M.Atoms = MA.Atoms;
      M.Atoms.insert(M.Atoms.end(), MB.Atoms.begin(), MB.Atoms.end());
      std::sort(M.Atoms.begin(), M.Atoms.end(), lessByNodeId);
      auto E = addExponents(MA.Exponent, MB.Exponent);
      auto K = exactProduct(KA, KB);
      if (!E || !K)
        return std::nullopt;
      M.Exponent = std::move(*E);
      if (!addCoefficient(R, M, *K) || R.size() > MaxExpTerms)
        return std::nullopt;
    }
  return R;
}

ExpSum constantSum(double K) {
  if (K == 0)
    return {};
  return {{ExpMonomial{}, K}};
}

/// Positive for every input: positive multiples of exponentials.
bool positive(const ExpSum &S) {
  if (S.empty())
    return false;
  for (const auto &[M, K] : S)
    if (!M.Atoms.empty() || !(K > 0))
      return false;
  return true;
}

std::optional<Fraction> addFractions(const Fraction &A, const Fraction &B,
                                     double Scale) {
  if (A.Denominator == B.Denominator) {
    auto N = addExp(A.Numerator, B.Numerator, Scale);
    if (!N)
      return std::nullopt;
    return Fraction{std::move(*N), A.Denominator};
  }
  auto L = mulExp(A.Numerator, B.Denominator);
  auto R = mulExp(B.Numerator, A.Denominator);
  auto D = mulExp(A.Denominator, B.Denominator);
  if (!L || !R || !D)
    return std::nullopt;
  auto N = addExp(std::move(*L), *R, Scale);
  if (!N)
    return std::nullopt;
  return Fraction{std::move(*N), std::move(*D)};
}

std::optional<Fraction> mulFractions(const Fraction &A, const Fraction &B) {
  auto N = mulExp(A.Numerator, B.Numerator);
  auto D = mulExp(A.Denominator, B.Denominator);
  if (!N || !D)
    return std::nullopt;
  return Fraction{std::move(*N), std::move(*D)};
}

} // namespace

bool RealNormalForm::ExpMonomialOrder::operator()(const ExpMonomial &A,
                                                  const ExpMonomial &B) const {
  MonomialOrder Less;
  if (Less(A.Atoms, B.Atoms))
    return true;
  if (Less(B.Atoms, A.Atoms))
    return false;
  return std::lexicographical_compare(
      A.Exponent.begin(), A.Exponent.end(), B.Exponent.begin(),
      B.Exponent.end(), [&](const auto &L, const auto &R) {
        if (Less(L.first, R.first))
          return true;
        if (Less(R.first, L.first))
          return false;
        return L.second < R.second;
      });
}

/// N as a quotient of exponential sums, or nothing where that is not
/// exact. An atom is itself over 1.
std::optional<Fraction> RealNormalForm::fractionOf(const Expr *N,
                                                   unsigned Depth) {
  if (auto It = Fractions.find(N); It != Fractions.end())
    return It->second;
  Fraction Atom{{{ExpMonomial{{N}, {}}, 1.0}}, constantSum(1.0)};
  auto Done = [&](std::optional<Fraction> F) {
    Fractions[N] = F;
    return F;
  };
  if (!N->type().isFloat())
    return std::nullopt;
  if (Depth > 200)
    return Done(Atom);
  auto Of = [&](const Expr *O) { return fractionOf(O, Depth + 1); };
  if (N->isConst()) {
    double V = Value::ofBits(N->type(), N->constBits()).asDouble();
    if (!std::isfinite(V))
      return Done(std::nullopt);
    return Done(Fraction{constantSum(V), constantSum(1.0)});
  }
  if (auto It = Sums.find(N); It != Sums.end() &&
      !(It->second.size() == 1 && It->second.begin()->second == 1.0 &&
        It->second.begin()->first == Monomial{N})) {
    std::optional<Fraction> Total = Fraction{{}, constantSum(1.0)};
    for (const auto &[M, K] : It->second) {
      std::optional<Fraction> Term = Fraction{constantSum(K), constantSum(1.0)};
      for (const Expr *A : M) {
        auto F = Of(A);
        if (!F)
          return Done(std::nullopt);
        Term = mulFractions(*Term, *F);
        if (!Term)
          return Done(std::nullopt);
      }
      Total = addFractions(*Total, *Term, 1.0);
      if (!Total)
        return Done(std::nullopt);
    }
    return Done(Total);
  }
  auto Binary = [&](auto Combine) -> std::optional<Fraction> {
    auto A = Of(N->operand(0)), B = Of(N->operand(1));
    if (!A || !B)
      return std::nullopt;
    return Combine(*A, *B);
  };
  switch (N->op()) {
  case Op::FAdd:
    return Done(Binary([](const Fraction &A, const Fraction &B) {
      return addFractions(A, B, 1.0);
    }));
  case Op::FSub:
    return Done(Binary([](const Fraction &A, const Fraction &B) {
      return addFractions(A, B, -1.0);
    }));
  case Op::FMul:
    return Done(Binary(mulFractions));
  case Op::FNeg: {
    auto A = Of(N->operand(0));
    if (!A)
      return Done(std::nullopt);
    return Done(addFractions(Fraction{{}, constantSum(1.0)}, *A, -1.0));
  }
  case Op::FDiv: {
    // By a positive quantity only (a sum of exponentials): a quotient
    // whose divisor may be zero stays an atom.
    auto A = Of(N->operand(0)), B = Of(N->operand(1));
    if (!A || !B || !positive(B->Numerator))
      return Done(Atom);
    auto Num = mulExp(A->Numerator, B->Denominator);
    auto Den = mulExp(A->Denominator, B->Numerator);
    if (!Num || !Den)
      return Done(Atom);
    return Done(Fraction{std::move(*Num), std::move(*Den)});
  }
  case Op::FPCast: {
    FloatFormat From = floatFormat(N->operand(0)->type()),
                To = floatFormat(N->type());
    if (To.MantissaBits < From.MantissaBits ||
        To.ExponentBits < From.ExponentBits)
      return Done(Atom);
    return Done(Of(N->operand(0)));
  }
  case Op::FFlushSubnormal:
    return Done(Of(N->operand(0)));
  case Op::Call: {
    if (N->name() != "exp" || N->numOperands() != 1)
      return Done(Atom);
    // exp of a polynomial: its exponent, kept as a polynomial.
    auto A = Of(N->operand(0));
    if (!A || A->Denominator != constantSum(1.0))
      return Done(Atom);
    ExpMonomial E;
    for (const auto &[M, K] : A->Numerator) {
      if (!M.Exponent.empty())
        return Done(Atom);
      E.Exponent.push_back({M.Atoms, K});
    }
    std::sort(E.Exponent.begin(), E.Exponent.end(),
              [](const auto &L, const auto &R) {
                return MonomialOrder()(L.first, R.first);
              });
    return Done(Fraction{{{E, 1.0}}, constantSum(1.0)});
  }
  default:
    return Done(Atom);
  }
}

namespace {

/// Whether E multiplies two non-constant floats, divides by one or calls
/// exp: what a linear solver cannot see through. Linear sums (a long row
/// sum) go to the solver directly; expanding their every prefix costs more.
bool beyondLinear(const Expr *E) {
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots)) {
    switch (N->op()) {
    case Op::FMul:
    case Op::Fma:
      if (!N->operand(0)->isConst() && !N->operand(1)->isConst())
        return true;
      break;
    case Op::FDiv:
      if (!N->operand(1)->isConst())
        return true;
      break;
    case Op::Call:
      if (N->name() == "exp")
        return true;
      break;
    default:
      break;
    }
  }
  return false;
}

} // namespace

bool RealNormalForm::equalAsPolynomials(const Expr *A, const Expr *B) {
  // One function of two values is equal where they are: an f16 output is
  // the rounding of an f32 softmax on both sides.
  auto Peels = [](Op O) {
    return O == Op::FPCast || O == Op::FNeg || O == Op::FAbs;
  };
  // A rounding peeled off is what keeps the solver from deciding a linear
  // sum fast (a bf16 sum accumulated in f32 and rounded once: the rounding
  // is asked in floating point, and times out), so then sums are compared
  // here too.
  bool RoundingPeeled = false;
  while (A != B && A->op() == B->op() && Peels(A->op()) &&
         A->type() == B->type() && A->rawAttribute() == B->rawAttribute() &&
         A->operand(0)->type() == B->operand(0)->type()) {
    RoundingPeeled |= A->op() == Op::FPCast;
    A = A->operand(0);
    B = B->operand(0);
  }
  if (!RoundingPeeled && !beyondLinear(A) && !beyondLinear(B))
    return false;
  const Expr *PA = polynomial(A), *PB = polynomial(B);
  bool Equal = PA == PB || equalAsExpFractions(PA, PB);
  Visits = 0;
  return Equal;
}

bool RealNormalForm::equalAsExpFractions(const Expr *A, const Expr *B) {
  auto FA = fractionOf(A, 0), FB = fractionOf(B, 0);
  if (!FA || !FB)
    return false;
  auto L = mulExp(FA->Numerator, FB->Denominator);
  auto R = mulExp(FB->Numerator, FA->Denominator);
  if (!L || !R || *L != *R)
    return false;
  ++ExpCombined;
  return true;
}

} // namespace stagecheck::stages

#include "stages/RealNormalForm.h"

#include "ir/Value.h"

#include <algorithm>
#include <cmath>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

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

} // namespace

namespace {
bool isInfinity(const Expr *E, bool Negative);
} // namespace

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
    if (N->name() == "rsqrt" && Ops.size() == 1) {
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

const Expr *RealNormalForm::rewriteNode(const Expr *N,
                                        const std::vector<const Expr *> &Ops) {
  if (const Expr *R = absorbInfinity(N, Ops))
    return R;
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
    return nullptr;
  }
  default:
    return nullptr;
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
    if (!R) {
      if (Same)
        R = N;
      else if (N->op() == Op::Read)
        R = C.read(N->name(), N->type(), Ops[0]);
      else if (N->op() == Op::Call)
        R = C.call(N->name(), N->type(), Ops);
      else
        R = C.make(N->op(), Ops, N->rawAttribute(), N->type());
    }
    Memo[N] = R;
  }
  return Memo.at(E);
}

} // namespace stagecheck::stages

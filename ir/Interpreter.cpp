#include "ir/Interpreter.h"

#include "ir/FloatOps.h"
#include "ir/Functions.h"

#include <bit>
#include <cmath>
#include <cassert>

namespace stagecheck::ir {

const Value *Env::symbol(const std::string &Name) const {
  auto It = Symbols.find(Name);
  return It == Symbols.end() ? nullptr : &It->second;
}

const Value *Env::read(const std::string &Buffer, uint64_t Index) const {
  auto It = Reads.find(std::pair<std::string_view, uint64_t>(Buffer, Index));
  return It == Reads.end() ? nullptr : &It->second;
}

static bool sameArgs(std::span<const Value> A, std::span<const Value> B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (!A[I].sameAs(B[I]))
      return false;
  return true;
}

/// The arguments as the function reads them (Functions.h): -0 and +0 are
/// one point of exp.
static std::vector<Value> canonicalArguments(const std::string &Function,
                                             std::span<const Value> Args) {
  std::vector<Value> Out(Args.begin(), Args.end());
  if (const FunctionInfo *F = lookupFunction(Function))
    for (Value &A : Out)
      A = canonicalArgument(*F, A);
  return Out;
}

void Env::setCall(const std::string &Function, std::vector<Value> Args,
                  Value R) {
  Args = canonicalArguments(Function, Args);
  for (CallPoint &C : Calls)
    if (C.Function == Function && sameArgs(C.Args, Args)) {
      C.Result = R;
      return;
    }
  Calls.push_back({Function, std::move(Args), R});
}

const Value *Env::call(const std::string &Function,
                       std::span<const Value> Args) const {
  std::vector<Value> Points = canonicalArguments(Function, Args);
  for (const CallPoint &C : Calls)
    if (C.Function == Function && sameArgs(C.Args, Points))
      return &C.Result;
  return nullptr;
}

namespace {

uint64_t mask(unsigned W) { return Value::mask(W); }

int64_t signExtend(uint64_t V, unsigned W) {
  return Value::ofBits(Type::i(W), V).asSigned();
}

bool msb(uint64_t V, unsigned W) { return (V >> (W - 1)) & 1; }

uint64_t negate(uint64_t V, unsigned W) { return (~V + 1) & mask(W); }

uint64_t udiv(uint64_t A, uint64_t B, unsigned W) {
  return B == 0 ? mask(W) : A / B;
}
uint64_t urem(uint64_t A, uint64_t B) { return B == 0 ? A : A % B; }

// SMT-LIB's bvsdiv / bvsrem, defined through unsigned division of magnitudes.
uint64_t sdiv(uint64_t A, uint64_t B, unsigned W) {
  bool NA = msb(A, W), NB = msb(B, W);
  uint64_t MA = NA ? negate(A, W) : A, MB = NB ? negate(B, W) : B;
  uint64_t Q = udiv(MA, MB, W);
  return (NA != NB) ? negate(Q, W) : Q;
}
uint64_t srem(uint64_t A, uint64_t B, unsigned W) {
  bool NA = msb(A, W), NB = msb(B, W);
  uint64_t MA = NA ? negate(A, W) : A, MB = NB ? negate(B, W) : B;
  uint64_t R = urem(MA, MB);
  return NA ? negate(R, W) : R;
}

uint64_t integerBinary(Op O, uint64_t A, uint64_t B, unsigned W) {
  switch (O) {
  case Op::Add:
    return A + B;
  case Op::Sub:
    return A - B;
  case Op::Mul:
    return A * B;
  case Op::UDiv:
    return udiv(A, B, W);
  case Op::SDiv:
    return sdiv(A, B, W);
  case Op::URem:
    return urem(A, B);
  case Op::SRem:
    return srem(A, B, W);
  case Op::Shl:
    return B >= W ? 0 : A << B;
  case Op::LShr:
    return B >= W ? 0 : A >> B;
  case Op::AShr:
    return uint64_t(signExtend(A, W) >> (B >= W ? W - 1 : B));
  case Op::And:
    return A & B;
  case Op::Or:
    return A | B;
  case Op::Xor:
    return A ^ B;
  case Op::SMin:
    return signExtend(A, W) <= signExtend(B, W) ? A : B;
  case Op::SMax:
    return signExtend(A, W) >= signExtend(B, W) ? A : B;
  case Op::UMin:
    return A <= B ? A : B;
  case Op::UMax:
    return A >= B ? A : B;
  case Op::UMulHi:
    return uint64_t(((unsigned __int128)A * B) >> W);
  case Op::SMulHi:
    return uint64_t(((__int128)signExtend(A, W) * signExtend(B, W)) >> W);
  default:
    throw EvalError(std::string("not an integer binary op: ") + spelling(O));
  }
}

uint64_t integerUnary(Op O, uint64_t A, unsigned W) {
  switch (O) {
  case Op::Not:
    return ~A;
  case Op::Neg:
    return negate(A, W);
  case Op::Abs:
    return msb(A, W) ? negate(A, W) : A;
  case Op::Clz:
    return A == 0 ? W : unsigned(std::countl_zero(A)) - (64 - W);
  case Op::Popc:
    return unsigned(std::popcount(A));
  case Op::BitReverse: {
    uint64_t R = 0;
    for (unsigned I = 0; I < W; ++I)
      if ((A >> I) & 1)
        R |= uint64_t(1) << (W - 1 - I);
    return R;
  }
  default:
    throw EvalError(std::string("not an integer unary op: ") + spelling(O));
  }
}

bool integerCompare(ICmpPredicate P, uint64_t A, uint64_t B, unsigned W) {
  int64_t SA = signExtend(A, W), SB = signExtend(B, W);
  switch (P) {
  case ICmpPredicate::Eq:
    return A == B;
  case ICmpPredicate::Ne:
    return A != B;
  case ICmpPredicate::Ult:
    return A < B;
  case ICmpPredicate::Ule:
    return A <= B;
  case ICmpPredicate::Ugt:
    return A > B;
  case ICmpPredicate::Uge:
    return A >= B;
  case ICmpPredicate::Slt:
    return SA < SB;
  case ICmpPredicate::Sle:
    return SA <= SB;
  case ICmpPredicate::Sgt:
    return SA > SB;
  case ICmpPredicate::Sge:
    return SA >= SB;
  }
  return false;
}

} // namespace

Value applyOp(Op O, Type Result, std::span<const Value> Ops, uint8_t Attr) {
  auto Bits = [&](unsigned I) { return Ops[I].Bits; };
  auto Format = [&](unsigned I) { return floatFormat(Ops[I].Ty); };
  RoundingMode M = RoundingMode(Attr);
  switch (category(O)) {
  case OpCategory::IntBinary:
    return Value::ofBits(Result,
                         integerBinary(O, Bits(0), Bits(1), Result.bits()));
  case OpCategory::IntUnary:
    return Value::ofBits(Result, integerUnary(O, Bits(0), Result.bits()));
  case OpCategory::ICmp:
    return Value::ofBool(integerCompare(ICmpPredicate(Attr), Bits(0), Bits(1),
                                        Ops[0].Ty.bits()));
  case OpCategory::IntCast:
    if (O == Op::SExt)
      return Value::ofBits(Result,
                           uint64_t(signExtend(Bits(0), Ops[0].Ty.bits())));
    return Value::ofBits(Result, Bits(0)); // zext, trunc, ptr casts
  case OpCategory::FloatBinaryRounded: {
    FloatFormat F = Format(0);
    switch (O) {
    case Op::FAdd:
      return {Result, fp::add(Bits(0), Bits(1), F, M)};
    case Op::FSub:
      return {Result, fp::sub(Bits(0), Bits(1), F, M)};
    case Op::FMul:
      return {Result, fp::mul(Bits(0), Bits(1), F, M)};
    case Op::FDiv:
      return {Result, fp::div(Bits(0), Bits(1), F, M)};
    default:
      break;
    }
    break;
  }
  case OpCategory::FloatBinary:
    if (O == Op::FCopySign)
      return {Result, fp::copySign(Bits(0), Bits(1), Format(0))};
    return {Result, fp::minMax(O, Bits(0), Bits(1), Format(0))};
  case OpCategory::FloatUnary:
    switch (O) {
    case Op::FNeg:
      return {Result, fp::neg(Bits(0), Format(0))};
    case Op::FAbs:
      return {Result, fp::abs(Bits(0), Format(0))};
    case Op::FFlushSubnormal:
      return {Result, fp::flushSubnormal(Bits(0), Format(0))};
    default:
      break;
    }
    break;
  case OpCategory::FloatUnaryRounded:
    if (O == Op::FSqrt)
      return {Result, fp::sqrt(Bits(0), Format(0), M)};
    return {Result, fp::roundToIntegral(Bits(0), Format(0), M)};
  case OpCategory::FloatTernaryRounded:
    return {Result, fp::fma(Bits(0), Bits(1), Bits(2), Format(0), M)};
  case OpCategory::FCmp:
    return Value::ofBool(
        fp::compare(FCmpPredicate(Attr), Bits(0), Bits(1), Format(0)));
  case OpCategory::FloatToFloat:
    return {Result, fp::convert(Bits(0), Format(0), floatFormat(Result), M)};
  case OpCategory::FloatToInt:
    return {Result, fp::toInt(Bits(0), Format(0), Result.bits(),
                              O == Op::FPToSI, M)};
  case OpCategory::IntToFloat:
    return {Result, fp::fromInt(Bits(0), Ops[0].Ty.bits(), O == Op::SIToFP,
                                floatFormat(Result), M)};
  case OpCategory::Bitcast: {
    uint64_t B = Bits(0);
    if (Ops[0].Ty.isFloat() && fp::isNaN(B, Format(0)))
      B = fp::canonicalNaN(Format(0));
    return Value::ofBits(Result, B);
  }
  case OpCategory::Select:
    return Ops[0].isTrue() ? Ops[1] : Ops[2];
  case OpCategory::Leaf:
  case OpCategory::Call:
    break;
  }
  throw EvalError(std::string("no concrete semantics for op ") + spelling(O));
}

size_t Interpreter::ValueMemo::home(const Expr *E) const {
  uint64_t H = uint64_t(reinterpret_cast<uintptr_t>(E)) * 0x9E3779B97F4A7C15ull;
  return size_t(H >> 20) & (Slots.size() - 1);
}

const Value *Interpreter::ValueMemo::find(const Expr *E) const {
  if (Slots.empty())
    return nullptr;
  for (size_t I = home(E);; I = (I + 1) & (Slots.size() - 1)) {
    if (Slots[I].Key == E)
      return &Slots[I].V;
    if (!Slots[I].Key)
      return nullptr;
  }
}

const Value &Interpreter::ValueMemo::at(const Expr *E) const {
  const Value *V = find(E);
  assert(V && "operand evaluated before its user");
  return *V;
}

void Interpreter::ValueMemo::insert(const Expr *E, Value V) {
  if ((Used + 1) * 4 > Slots.size() * 3)
    grow();
  size_t I = home(E);
  while (Slots[I].Key)
    I = (I + 1) & (Slots.size() - 1);
  Slots[I] = {E, V};
  ++Used;
}

void Interpreter::ValueMemo::grow() {
  std::vector<Slot> Old = std::move(Slots);
  Slots.assign(Old.empty() ? 64 : Old.size() * 2, Slot{});
  Used = 0;
  for (const Slot &S : Old)
    if (S.Key)
      insert(S.Key, S.V);
}

const Expr *Interpreter::nextLazyOperand(const Expr *E, Value *Result) const {
  if (E->op() == Op::Select) {
    const Value *Cond = Memo.find(E->operand(0));
    if (!Cond)
      return E->operand(0);
    const Expr *Taken = E->operand(Cond->isTrue() ? 1 : 2);
    const Value *V = Memo.find(Taken);
    if (!V)
      return Taken;
    *Result = *V;
    return nullptr;
  }
  // i1 and/or: an operand that decides it ends the evaluation. The lowest
  // operand is asked first (a guard before what it guards).
  bool IsAnd = E->op() == Op::And;
  const Expr *Next = nullptr;
  for (const Expr *X : E->operands()) {
    const Value *V = Memo.find(X);
    if (!V) {
      if (!Next || X->height() < Next->height())
        Next = X;
      continue;
    }
    if (V->isTrue() != IsAnd) {
      *Result = Value::ofBool(!IsAnd);
      return nullptr;
    }
  }
  if (Next)
    return Next;
  *Result = Value::ofBool(IsAnd);
  return nullptr;
}

static bool isLazy(const Expr *E) {
  return E->op() == Op::Select ||
         ((E->op() == Op::And || E->op() == Op::Or) && E->type().isBool());
}

Value Interpreter::eval(const Expr *Root) {
  // Iterative post-order: reduction chains can be thousands of nodes deep.
  // Selects and i1 and/or evaluate only the operands that decide them (a
  // guard that is false leaves its value unread), which also leaves
  // unread the buffer elements and calls those operands would need.
  std::vector<std::pair<const Expr *, bool>> Stack{{Root, false}};
  while (!Stack.empty()) {
    auto [E, Expanded] = Stack.back();
    if (Memo.find(E)) {
      Stack.pop_back();
      continue;
    }
    if (isLazy(E)) {
      Value Result;
      if (const Expr *Next = nextLazyOperand(E, &Result)) {
        Stack.push_back({Next, false});
      } else {
        Stack.pop_back();
        Memo.insert(E, Result);
      }
      continue;
    }
    Stack.pop_back();
    if (Expanded) {
      Memo.insert(E, evalNode(E));
      continue;
    }
    Stack.push_back({E, true});
    for (const Expr *Operand : E->operands())
      if (!Memo.find(Operand))
        Stack.push_back({Operand, false});
  }
  return Memo.at(Root);
}

Value Interpreter::evalNode(const Expr *E) {
  switch (E->op()) {
  case Op::Const:
    return Value::ofBits(E->type(), E->constBits());
  case Op::Symbol:
    if (const Value *V = Environment.symbol(E->name()))
      return Value::ofBits(E->type(), V->Bits);
    throw EvalError("no value for symbol " + E->name());
  case Op::Read: {
    uint64_t Index = Memo.at(E->operand(0)).Bits;
    if (const Value *V = Environment.read(E->name(), Index))
      return Value::ofBits(E->type(), V->Bits);
    if (MissingRead)
      return Value::ofBits(E->type(), MissingRead(E->name(), Index, E->type()).Bits);
    return Value::ofBits(E->type(), 0);
  }
  case Op::Call: {
    std::vector<Value> Args;
    for (const Expr *A : E->operands())
      Args.push_back(Memo.at(A));
    // The host's value too is taken at the point the function reads.
    Args = canonicalArguments(E->name(), Args);
    const FunctionInfo *F = lookupFunction(E->name());
    // A corner case the PTX ISA fixes is no environment's to choose.
    if (F)
      if (std::optional<Value> Fixed = cornerCaseResult(*F, Args, E->type()))
        return *Fixed;
    if (const Value *V = Environment.call(E->name(), Args))
      return *V;
    if (!F || !(E->type().isFloat() || E->type().isBitVector()))
      throw EvalError("no value for call of " + E->name());
    HostFallback = true;
    double Host = hostResult(*F, Args);
    if (E->type().isFloat())
      return Value::ofDouble(E->type(), Host);
    if (!std::isfinite(Host)) // an int-valued function answers 0 or 1
      throw EvalError("no integer value for call of " + E->name());
    return Value::ofBits(E->type(), uint64_t(int64_t(Host)));
  }
  default: {
    auto Operands = E->operands();
    if (Operands.size() <= 4) { // every op but a call: no allocation
      Value Small[4];
      for (size_t I = 0; I < Operands.size(); ++I)
        Small[I] = Memo.at(Operands[I]);
      return applyOp(E->op(), E->type(),
                     std::span<const Value>(Small, Operands.size()),
                     E->rawAttribute());
    }
    std::vector<Value> Many;
    for (const Expr *A : Operands)
      Many.push_back(Memo.at(A));
    return applyOp(E->op(), E->type(), Many, E->rawAttribute());
  }
  }
}

} // namespace stagecheck::ir

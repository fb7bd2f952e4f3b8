//===- LiftInteger.cpp - Integer, logic and bit-field instructions --------===//
//
// add sub mul mad div rem min max abs neg (integer types), and or xor not
// cnot (bits and .pred), shl shr, bfe bfi prmt, brev clz popc bfind, lop3,
// shf. Integer arithmetic wraps; the IR's division by zero is SMT-LIB's
// (PTX leaves the value unspecified). Shift amounts are unsigned 32-bit and
// clamp at the width.
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/Executor.h"

#include <algorithm>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

Type intType(unsigned Bits) { return Type::i(Bits); }

const Expr *constant(Step &S, unsigned Bits, uint64_t V) {
  return S.C.constant(intType(Bits), V);
}

/// The shift amount operand (u32) as a Width-bit value that shifts alike:
/// amounts past the width clamp to it.
const Expr *shiftAmount(Step &S, unsigned K, unsigned Width) {
  const Expr *A = S.bits(K, 32);
  if (Width == 32)
    return A;
  if (Width > 32)
    return S.C.cast(Op::ZExt, A, intType(Width));
  const Expr *Clamped =
      S.C.binary(Op::UMin, A, S.C.constant(Type::i(32), Width));
  return S.C.cast(Op::Trunc, Clamped, intType(Width));
}

/// A signed sum or difference clamped to the type's range (add.sat.s32).
const Expr *saturating(Step &S, Op O, const Expr *A, const Expr *B) {
  Context &C = S.C;
  unsigned W = A->type().bits();
  Type Wide = intType(W * 2 > 64 ? 64 : W * 2);
  if (W >= 64)
    S.unsupported("saturating 64-bit arithmetic (" + S.I.Opcode + ")");
  const Expr *R =
      C.binary(O, C.cast(Op::SExt, A, Wide), C.cast(Op::SExt, B, Wide));
  const Expr *Max = C.intConst(Wide, (int64_t(1) << (W - 1)) - 1);
  const Expr *Min = C.intConst(Wide, -(int64_t(1) << (W - 1)));
  R = C.binary(Op::SMax, C.binary(Op::SMin, R, Max), Min);
  return C.cast(Op::Trunc, R, intType(W));
}

/// The product of mul/mad in the chosen half: .lo, .hi or .wide.
const Expr *product(Step &S, PtxType T, const Expr *A, const Expr *B) {
  Context &C = S.C;
  if (S.has("wide")) {
    Type Wide = intType(T.Bits * 2);
    Op Ext = T.isSigned() ? Op::SExt : Op::ZExt;
    return C.mul(C.cast(Ext, A, Wide), C.cast(Ext, B, Wide));
  }
  if (S.has("hi"))
    return C.binary(T.isSigned() ? Op::SMulHi : Op::UMulHi, A, B);
  return C.mul(A, B);
}

/// The carry flag (CC.CF) as .cc instructions leave it on this path (i1).
const Expr *carryIn(Step &S) {
  return S.X.registerValue(S.S, CarryFlagRegister);
}

/// A .cc instruction's carry-out, kept where its predicate is false.
void setCarry(Step &S, const Expr *Carry) {
  S.S.Registers[CarryFlagRegister] =
      S.C.select(S.predicate(), Carry, carryIn(S));
}

/// A + B (+ the carry flag for addc, madc) and its carry-out, or A - B
/// (- the flag for subc) and its borrow, which sub.cc leaves in CF.
std::pair<const Expr *, const Expr *> withCarry(Step &S, bool Subtract,
                                                const Expr *A, const Expr *B,
                                                bool CarryIn) {
  Context &C = S.C;
  Type T = A->type();
  const Expr *In = CarryIn ? C.zextOrTrunc(carryIn(S), T) : C.constant(T, 0);
  if (Subtract) {
    const Expr *D1 = C.sub(A, B), *D = C.sub(D1, In);
    return {D, C.orOf(C.icmp(ICmpPredicate::Ult, A, B),
                      C.icmp(ICmpPredicate::Ult, D1, In))};
  }
  const Expr *S1 = C.add(A, B), *Sum = C.add(S1, In);
  return {Sum, C.orOf(C.icmp(ICmpPredicate::Ult, S1, A),
                      C.icmp(ICmpPredicate::Ult, Sum, S1))};
}

void liftAddSub(Step &S, Op O, PtxType T) {
  S.expectOperands(3);
  bool CarryIn = S.Base == "addc" || S.Base == "subc";
  if (CarryIn || S.has("cc")) {
    if (S.has("sat") || T.isFloat() || (T.Bits != 32 && T.Bits != 64))
      S.unsupported("unsupported instruction " + S.I.Opcode);
    auto [D, Carry] =
        withCarry(S, O == Op::Sub, S.value(1, T), S.value(2, T), CarryIn);
    S.set(0, D);
    if (S.has("cc"))
      setCarry(S, Carry);
    return;
  }
  const Expr *A = S.value(1, T), *B = S.value(2, T);
  S.set(0, S.has("sat") ? saturating(S, O, A, B) : S.C.binary(O, A, B));
}

void liftMul(Step &S, PtxType T) {
  S.expectOperands(3);
  S.set(0, product(S, T, S.value(1, T), S.value(2, T)));
}

/// mad, and madc and mad.cc (multi-word multiplication: libdevice's
/// Payne-Hanek reduction for sine and cosine).
void liftMad(Step &S, PtxType T) {
  S.expectOperands(4);
  bool CarryIn = S.Base == "madc";
  if (S.has("sat") ||
      ((CarryIn || S.has("cc")) && (S.has("wide") || (T.Bits != 32 &&
                                                      T.Bits != 64))))
    S.unsupported("unsupported instruction " + S.I.Opcode);
  const Expr *P = product(S, T, S.value(1, T), S.value(2, T));
  if (CarryIn || S.has("cc")) {
    auto [D, Carry] = withCarry(S, false, P, S.bits(3, T.Bits), CarryIn);
    S.set(0, D);
    if (S.has("cc"))
      setCarry(S, Carry);
    return;
  }
  S.set(0, S.C.add(P, S.bits(3, P->type().bits())));
}

void liftDivRem(Step &S, PtxType T, bool Rem) {
  S.expectOperands(3);
  Op O =
      T.isSigned() ? (Rem ? Op::SRem : Op::SDiv) : (Rem ? Op::URem : Op::UDiv);
  S.set(0, S.C.binary(O, S.value(1, T), S.value(2, T)));
}

void liftMinMax(Step &S, PtxType T, bool Max) {
  S.expectOperands(3);
  if (S.has("relu"))
    S.unsupported("unsupported instruction " + S.I.Opcode);
  Op O =
      T.isSigned() ? (Max ? Op::SMax : Op::SMin) : (Max ? Op::UMax : Op::UMin);
  S.set(0, S.C.binary(O, S.value(1, T), S.value(2, T)));
}

void liftLogic(Step &S, PtxType T) {
  Context &C = S.C;
  if (S.Base == "not" || S.Base == "cnot") {
    S.expectOperands(2);
    if (T.isPred()) {
      S.set(0, C.notOf(S.pred(1)));
      return;
    }
    const Expr *A = S.value(1, T);
    if (S.Base == "not")
      S.set(0, C.notOf(A));
    else
      S.set(0, C.zextOrTrunc(C.eq(A, C.constant(A->type(), 0)), A->type()));
    return;
  }
  S.expectOperands(3);
  Op O = S.Base == "and" ? Op::And : S.Base == "or" ? Op::Or : Op::Xor;
  if (T.isPred())
    S.set(0, C.binary(O, S.pred(1), S.pred(2)));
  else
    S.set(0, C.binary(O, S.value(1, T), S.value(2, T)));
}

void liftShift(Step &S, PtxType T) {
  S.expectOperands(3);
  Op O = S.Base == "shl" ? Op::Shl : T.isSigned() ? Op::AShr : Op::LShr;
  S.set(0, S.C.binary(O, S.value(1, T), shiftAmount(S, 2, T.Bits)));
}

/// Ones in the low Len bits (Len <= width: shl past the width gives 0).
const Expr *lowMask(Context &C, const Expr *Len) {
  Type T = Len->type();
  return C.sub(C.binary(Op::Shl, C.constant(T, 1), Len), C.constant(T, 1));
}

/// b & 0xff, the way bfe and bfi read positions and lengths, as Width bits.
const Expr *fieldOperand(Step &S, unsigned K, unsigned Width) {
  const Expr *V =
      S.C.binary(Op::And, S.bits(K, 32), S.C.constant(Type::i(32), 0xff));
  return S.C.zextOrTrunc(V, intType(Width));
}

/// bfe of a constant field as the two shifts it stands for (the form the
/// LLVM IR has it in before the backend made it one instruction):
/// bits [pos, pos + len) of a are a << (W - pos - len), shifted right by
/// W - len, arithmetically for .s; a field that runs past the top bit is
/// a shifted right by pos. Null when the field is not constant or empty.
const Expr *constantField(Context &C, const Expr *A, const Expr *Pos,
                          const Expr *Len, bool Signed) {
  if (!Pos->isConst() || !Len->isConst())
    return nullptr;
  uint64_t W = A->type().bits(), P = Pos->constBits(), L = Len->constBits();
  if (L == 0 || P >= W)
    return nullptr;
  Type T = A->type();
  Op Right = Signed ? Op::AShr : Op::LShr;
  if (P + L >= W)
    return C.binary(Right, A, C.constant(T, P));
  const Expr *Top = C.binary(Op::Shl, A, C.constant(T, W - P - L));
  return C.binary(Right, Top, C.constant(T, W - L));
}

void liftBfe(Step &S, PtxType T) {
  S.expectOperands(4);
  Context &C = S.C;
  unsigned W = T.Bits;
  // Positions and lengths up to 255: compute them in at least 16 bits.
  unsigned FW = W < 16 ? 16 : W;
  const Expr *A = S.value(1, T);
  const Expr *Pos = fieldOperand(S, 2, FW), *Len = fieldOperand(S, 3, FW);
  if (const Expr *Shifts = constantField(C, A, Pos, Len, T.isSigned())) {
    S.set(0, Shifts);
    return;
  }
  const Expr *Shifted = C.binary(Op::LShr, C.zextOrTrunc(A, intType(FW)), Pos);
  const Expr *Width = C.constant(intType(FW), W);
  // Bits taken from a: min(len, max(W - pos, 0)).
  const Expr *Room = C.select(C.icmp(ICmpPredicate::Ult, Pos, Width),
                              C.sub(Width, Pos), C.constant(intType(FW), 0));
  const Expr *Taken = C.binary(Op::UMin, Len, Room);
  const Expr *Mask = lowMask(C, Taken);
  const Expr *Field = C.binary(Op::And, Shifted, Mask);
  if (T.isSigned()) {
    // The sign is bit min(pos + len - 1, W - 1) of a; zero when len is 0.
    const Expr *Last =
        C.binary(Op::UMin, C.sub(C.add(Pos, Len), C.constant(intType(FW), 1)),
                 C.constant(intType(FW), W - 1));
    const Expr *SignBit = C.binary(
        Op::And, C.binary(Op::LShr, C.zextOrTrunc(A, intType(FW)), Last),
        C.constant(intType(FW), 1));
    const Expr *Negative =
        C.andOf(C.icmp(ICmpPredicate::Ne, SignBit, C.constant(intType(FW), 0)),
                C.icmp(ICmpPredicate::Ne, Len, C.constant(intType(FW), 0)));
    Field = C.select(Negative, C.orOf(Field, C.notOf(Mask)), Field);
  }
  S.set(0, C.zextOrTrunc(Field, intType(W)));
}

void liftBfi(Step &S, PtxType T) {
  S.expectOperands(5);
  Context &C = S.C;
  unsigned W = T.Bits;
  const Expr *F = S.value(1, T), *B = S.value(2, T);
  const Expr *Pos = fieldOperand(S, 3, W), *Len = fieldOperand(S, 4, W);
  const Expr *Mask = C.binary(
      Op::Shl, lowMask(C, C.binary(Op::UMin, Len, C.constant(intType(W), W))),
      Pos);
  const Expr *Inserted = C.binary(Op::And, C.binary(Op::Shl, F, Pos), Mask);
  S.set(0, C.orOf(C.binary(Op::And, B, C.notOf(Mask)), Inserted));
}

/// prmt.b32 (default mode): byte i of d is byte c[4i+2:4i] of {b, a},
/// or its sign replicated when c[4i+3] is set.
void liftPrmt(Step &S) {
  S.expectOperands(4);
  if (S.Mods.size() != 1)
    S.unsupported("unsupported instruction " + S.I.Opcode +
                  " (only the default mode)");
  Context &C = S.C;
  Type I8 = Type::i(8), I32 = Type::i(32);
  const Expr *A = S.bits(1, 32), *B = S.bits(2, 32), *Sel = S.bits(3, 32);
  std::vector<const Expr *> Source = S.M.split(A, 4);
  std::vector<const Expr *> High = S.M.split(B, 4);
  Source.insert(Source.end(), High.begin(), High.end());
  std::vector<const Expr *> Out;
  for (unsigned I = 0; I < 4; ++I) {
    const Expr *Nibble =
        C.binary(Op::And, C.binary(Op::LShr, Sel, C.constant(I32, 4 * I)),
                 C.constant(I32, 0xf));
    const Expr *Index = C.binary(Op::And, Nibble, C.constant(I32, 7));
    const Expr *Byte = Source[7];
    for (unsigned K = 7; K-- > 0;)
      Byte = C.select(C.eq(Index, C.constant(I32, K)), Source[K], Byte);
    const Expr *Replicate =
        C.icmp(ICmpPredicate::Ne, C.binary(Op::And, Nibble, C.constant(I32, 8)),
               C.constant(I32, 0));
    const Expr *Sign =
        C.select(C.icmp(ICmpPredicate::Slt, Byte, C.constant(I8, 0)),
                 C.constant(I8, 0xff), C.constant(I8, 0));
    Out.push_back(C.select(Replicate, Sign, Byte));
  }
  S.set(0, S.M.concat(Out));
}

void liftBitCount(Step &S, PtxType T) {
  S.expectOperands(2);
  Context &C = S.C;
  const Expr *A = S.value(1, T);
  if (S.Base == "brev") {
    S.set(0, C.unary(Op::BitReverse, A));
    return;
  }
  if (S.Base == "clz" || S.Base == "popc") {
    const Expr *R = C.unary(S.Base == "clz" ? Op::Clz : Op::Popc, A);
    S.set(0, C.zextOrTrunc(R, Type::i(32)));
    return;
  }
  // bfind: the position of the most significant non-sign bit, or ~0.
  unsigned W = T.Bits;
  const Expr *V = A;
  if (T.isSigned())
    V = C.select(C.icmp(ICmpPredicate::Slt, A, constant(S, W, 0)), C.notOf(A),
                 A);
  const Expr *Zeros = C.zextOrTrunc(C.unary(Op::Clz, V), Type::i(32));
  const Expr *Position =
      S.has("shiftamt") ? Zeros : C.sub(C.constant(Type::i(32), W - 1), Zeros);
  S.set(0, C.select(C.eq(V, constant(S, W, 0)),
                    C.constant(Type::i(32), 0xffffffffu), Position));
}

/// lop3.b32 d, a, b, c, lut: bit k of d is bit (a_k b_k c_k) of lut.
void liftLop3(Step &S) {
  S.expectOperands(5);
  Context &C = S.C;
  const Operand &Lut = S.operand(4);
  if (Lut.K != Operand::Imm)
    S.malformed("lop3 takes an immediate truth table");
  const Expr *In[3] = {S.bits(1, 32), S.bits(2, 32), S.bits(3, 32)};
  const Expr *R = C.constant(Type::i(32), 0);
  for (unsigned Row = 0; Row < 8; ++Row) {
    if (!((Lut.Value.Bits >> Row) & 1))
      continue;
    const Expr *Term = C.constant(Type::i(32), 0xffffffffu);
    for (unsigned K = 0; K < 3; ++K) {
      bool One = (Row >> (2 - K)) & 1;
      Term = C.andOf(Term, One ? In[K] : C.notOf(In[K]));
    }
    R = C.orOf(R, Term);
  }
  S.set(0, R);
}

/// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: a funnel shift of {b, a}.
void liftShf(Step &S) {
  S.expectOperands(4);
  Context &C = S.C;
  Type I32 = Type::i(32), I64 = Type::i(64);
  const Expr *Pair = S.M.concat({S.bits(1, 32), S.bits(2, 32)});
  const Expr *N = S.bits(3, 32);
  N = S.has("wrap") ? C.binary(Op::And, N, C.constant(I32, 31))
                    : C.binary(Op::UMin, N, C.constant(I32, 32));
  const Expr *N64 = C.cast(Op::ZExt, N, I64);
  if (S.has("l"))
    S.set(0, S.M.split(C.binary(Op::Shl, Pair, N64), 2)[1]);
  else
    S.set(0, S.M.split(C.binary(Op::LShr, Pair, N64), 2)[0]);
}

} // namespace

bool liftIntegerOp(Step &S) {
  const std::string &B = S.Base;
  static const char *const Names[] = {
      "add",  "sub",  "addc", "subc", "mul",   "mad",  "madc", "div",
      "rem",  "min",  "max",  "abs",  "neg",   "and",  "or",
      "xor",  "not",  "cnot", "shl",  "shr",   "bfe",  "bfi",
      "prmt", "brev", "clz",  "popc", "bfind", "lop3", "shf"};
  if (std::find(std::begin(Names), std::end(Names), B) == std::end(Names))
    return false;
  if (B == "prmt") {
    liftPrmt(S);
    return true;
  }
  if (B == "lop3") {
    liftLop3(S);
    return true;
  }
  if (B == "shf") {
    liftShf(S);
    return true;
  }
  PtxType T = S.type();
  if (T.isFloat())
    return false; // float arithmetic: LiftFloat.cpp
  if (B == "add" || B == "addc")
    liftAddSub(S, Op::Add, T);
  else if (B == "sub" || B == "subc")
    liftAddSub(S, Op::Sub, T);
  else if (B == "mul")
    liftMul(S, T);
  else if (B == "mad" || B == "madc")
    liftMad(S, T);
  else if (B == "div" || B == "rem")
    liftDivRem(S, T, B == "rem");
  else if (B == "min" || B == "max")
    liftMinMax(S, T, B == "max");
  else if (B == "abs" || B == "neg") {
    S.expectOperands(2);
    S.set(0, S.C.unary(B == "abs" ? Op::Abs : Op::Neg, S.value(1, T)));
  } else if (B == "and" || B == "or" || B == "xor" || B == "not" || B == "cnot")
    liftLogic(S, T);
  else if (B == "shl" || B == "shr")
    liftShift(S, T);
  else if (B == "bfe")
    liftBfe(S, T);
  else if (B == "bfi")
    liftBfi(S, T);
  else
    liftBitCount(S, T);
  return true;
}

} // namespace stagecheck::ptx

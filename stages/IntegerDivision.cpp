#include "stages/IntegerDivision.h"

#include "ir/Value.h"

#include <algorithm>
#include <vector>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {
using U128 = unsigned __int128;

uint64_t magnitude(int64_t D) {
  return D < 0 ? uint64_t(0) - uint64_t(D) : uint64_t(D);
}

bool isPowerOfTwo(uint64_t M) { return M > 1 && (M & (M - 1)) == 0; }
} // namespace

SignedMagic signedMagic(int64_t D, unsigned Bits) {
  // Unsigned arithmetic modulo 2^Bits, as the figure has it.
  U128 Mod = U128(1) << Bits;
  U128 Mask = Mod - 1;
  U128 Dv = U128(uint64_t(D)) & Mask;
  U128 SignedMin = U128(1) << (Bits - 1);
  U128 AD = (D < 0 ? U128(uint64_t(-D)) : U128(uint64_t(D))) & Mask;
  U128 T = SignedMin + (Dv >> (Bits - 1));
  U128 ANC = T - 1 - T % AD;
  unsigned P = Bits - 1;
  U128 Q1 = SignedMin / ANC, R1 = SignedMin - Q1 * ANC;
  U128 Q2 = SignedMin / AD, R2 = SignedMin - Q2 * AD;
  U128 Delta;
  do {
    ++P;
    Q1 = (Q1 << 1) & Mask;
    R1 = (R1 << 1) & Mask;
    if (R1 >= ANC) {
      Q1 = (Q1 + 1) & Mask;
      R1 = (R1 - ANC) & Mask;
    }
    Q2 = (Q2 << 1) & Mask;
    R2 = (R2 << 1) & Mask;
    if (R2 >= AD) {
      Q2 = (Q2 + 1) & Mask;
      R2 = (R2 - AD) & Mask;
    }
    Delta = (AD - R2) & Mask;
  } while (Q1 < Delta || (Q1 == Delta && R1 == 0));
  U128 Magic = (Q2 + 1) & Mask;
  if (D < 0)
    Magic = (Mod - Magic) & Mask;
  return {uint64_t(Magic), P - Bits};
}

std::optional<const Expr *> signedDivisionByConstant(Context &C, const Expr *N,
                                                     int64_t D,
                                                     bool SignBeforeShift) {
  Type T = N->type();
  unsigned Bits = T.bits();
  if (!T.isInt() || Bits < 8 || Bits > 64)
    return std::nullopt;
  if (magnitude(D) <= 1 || isPowerOfTwo(magnitude(D)))
    return std::nullopt;
  SignedMagic M = signedMagic(D, Bits);
  const Expr *Q = C.binary(Op::SMulHi, N, C.constant(T, M.Magic));
  bool MagicNegative = (M.Magic >> (Bits - 1)) & 1;
  if (D > 0 && MagicNegative)
    Q = C.add(Q, N);
  else if (D < 0 && !MagicNegative)
    Q = C.sub(Q, N);
  const Expr *Unshifted = Q;
  if (M.Shift)
    Q = C.binary(Op::AShr, Q, C.constant(T, M.Shift));
  const Expr *Sign = C.binary(Op::LShr, SignBeforeShift ? Unshifted : Q,
                              C.constant(T, Bits - 1));
  return C.add(Q, Sign);
}

std::optional<const Expr *> signedDivisionByPowerOfTwo(Context &C,
                                                       const Expr *N,
                                                       int64_t D) {
  Type T = N->type();
  unsigned Bits = T.bits();
  // The signed minimum is -2^(W-1) too: the bias 2^(W-1) - 1 makes the
  // quotient -1 for it alone, negated to 1.
  uint64_t Magnitude = magnitude(D);
  if (!T.isInt() || Bits < 2 || Bits > 64 || !isPowerOfTwo(Magnitude) ||
      (Bits < 64 && Magnitude >> Bits != 0))
    return std::nullopt;
  unsigned K = unsigned(__builtin_ctzll(Magnitude));
  auto Amount = [&](unsigned A) { return C.constant(T, A); };
  // 2^k - 1 where n is negative, 0 elsewhere.
  const Expr *Bias =
      K == 1 ? C.binary(Op::LShr, N, Amount(Bits - 1))
             : C.binary(Op::LShr, C.binary(Op::AShr, N, Amount(Bits - 1)),
                        Amount(Bits - K));
  const Expr *Q = C.binary(Op::AShr, C.add(N, Bias), Amount(K));
  return D < 0 ? C.sub(C.constant(T, 0), Q) : Q;
}

const Expr *logicalShiftWhereHighBitsUnread(Context &C, const Expr *N) {
  if (N->op() != Op::Mul && N->op() != Op::Shl)
    return nullptr;
  if (!N->type().isInt() || N->numOperands() != 2)
    return nullptr;
  unsigned Bits = N->type().bits();
  // The high bits of the shifted operand that the node never reads.
  unsigned Unread = 0;
  unsigned Operand = 0;
  if (N->op() == Op::Shl) {
    if (!N->operand(1)->isConst())
      return nullptr;
    Unread = unsigned(std::min<uint64_t>(N->operand(1)->constBits(), Bits));
  } else {
    Operand = N->operand(0)->isConst() ? 1 : 0;
    const Expr *Factor = N->operand(1 - Operand);
    if (!Factor->isConst() || Factor->constBits() == 0)
      return nullptr;
    Unread = unsigned(__builtin_ctzll(Factor->constBits()));
  }
  const Expr *X = N->operand(Operand);
  if (X->op() != Op::AShr || !X->operand(1)->isConst() ||
      X->operand(1)->constBits() > Unread || X->operand(1)->constBits() == 0)
    return nullptr;
  std::vector<const Expr *> Ops(N->operands().begin(), N->operands().end());
  Ops[Operand] = C.binary(Op::LShr, X->operand(0), X->operand(1));
  return C.withOperands(N, Ops);
}

namespace {

UnsignedMagic unsignedMagicOf(uint64_t D, unsigned Bits, unsigned KnownZeros) {
  U128 Mod = U128(1) << Bits;
  U128 Mask = Mod - 1;
  U128 Dv = U128(D);
  // Dividends have KnownZeros leading zero bits (after a pre-shift).
  U128 AllOnes = (U128(1) << (Bits - KnownZeros)) - 1;
  U128 NC = AllOnes - (AllOnes + 1 - Dv) % Dv;
  U128 SignedMin = U128(1) << (Bits - 1), SignedMax = SignedMin - 1;
  unsigned P = Bits - 1;
  U128 Q1 = SignedMin / NC, R1 = SignedMin % NC;
  U128 Q2 = SignedMax / Dv, R2 = SignedMax % Dv;
  bool Add = false;
  U128 Delta;
  do {
    ++P;
    if (R1 >= NC - R1) {
      Q1 = (2 * Q1 + 1) & Mask;
      R1 = (2 * R1 - NC) & Mask;
    } else {
      Q1 = (2 * Q1) & Mask;
      R1 = (2 * R1) & Mask;
    }
    if (R2 + 1 >= Dv - R2) {
      Add |= Q2 >= SignedMax;
      Q2 = (2 * Q2 + 1) & Mask;
      R2 = (2 * R2 + 1 - Dv) & Mask;
    } else {
      Add |= Q2 >= SignedMin;
      Q2 = (2 * Q2) & Mask;
      R2 = (2 * R2 + 1) & Mask;
    }
    Delta = Dv - 1 - R2;
  } while (P < 2 * Bits && (Q1 < Delta || (Q1 == Delta && R1 == 0)));
  unsigned PostShift = P - Bits;
  if (Add)
    --PostShift;
  return {uint64_t((Q2 + 1) & Mask), 0, PostShift, Add};
}

} // namespace

UnsignedMagic unsignedMagic(uint64_t D, unsigned Bits) {
  UnsignedMagic M = unsignedMagicOf(D, Bits, 0);
  if (M.Add && (D & 1) == 0) {
    unsigned Zeros = unsigned(__builtin_ctzll(D));
    M = unsignedMagicOf(D >> Zeros, Bits, Zeros);
    M.PreShift = Zeros;
  }
  return M;
}

std::optional<const Expr *>
unsignedDivisionByConstant(Context &C, const Expr *N, uint64_t D) {
  Type T = N->type();
  unsigned Bits = T.bits();
  if (!T.isInt() || Bits < 8 || Bits > 64)
    return std::nullopt;
  if (Bits < 64)
    D &= (uint64_t(1) << Bits) - 1;
  if (D <= 1 || isPowerOfTwo(D))
    return std::nullopt;
  UnsignedMagic M = unsignedMagic(D, Bits);
  auto K = [&](uint64_t V) { return C.constant(T, V); };
  const Expr *X = M.PreShift ? C.binary(Op::LShr, N, K(M.PreShift)) : N;
  const Expr *Q = C.binary(Op::UMulHi, X, K(M.Magic));
  if (M.Add) // q + ((n - q) >> 1), which cannot overflow
    Q = C.add(C.binary(Op::LShr, C.sub(N, Q), K(1)), Q);
  if (M.PostShift)
    Q = C.binary(Op::LShr, Q, K(M.PostShift));
  return Q;
}

} // namespace stagecheck::stages

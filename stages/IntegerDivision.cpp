#include "stages/IntegerDivision.h"

#include "ir/Value.h"

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {
using U128 = unsigned __int128;
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
  uint64_t Magnitude = D < 0 ? uint64_t(0) - uint64_t(D) : uint64_t(D);
  if (Magnitude <= 1 || (Magnitude & (Magnitude - 1)) == 0)
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

} // namespace stagecheck::stages

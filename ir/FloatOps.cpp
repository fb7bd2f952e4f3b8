#include "ir/FloatOps.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <optional>

// Built with -frounding-math: the host rounding mode changes below must not be
// folded away or moved.

namespace stagecheck::ir::fp {

using u128 = unsigned __int128;

static uint64_t lowMask(unsigned N) {
  return N >= 64 ? ~uint64_t(0) : (uint64_t(1) << N) - 1;
}

static bool isDoubleFormat(FloatFormat F) {
  return F.ExponentBits == 11 && F.MantissaBits == 52;
}

Decoded decode(uint64_t Bits, FloatFormat F) {
  unsigned E = F.ExponentBits, M = F.MantissaBits;
  bool Neg = (Bits >> (E + M)) & 1;
  uint64_t Exp = (Bits >> M) & lowMask(E);
  uint64_t Man = Bits & lowMask(M);
  if (Exp == lowMask(E))
    return {Man == 0 ? Class::Infinity : Class::NaN, Neg, 0, 0};
  if (Exp == 0) {
    if (Man == 0)
      return {Class::Zero, Neg, 0, 0};
    return {Class::Subnormal, Neg, Man, 1 - F.bias() - int(M)};
  }
  return {Class::Normal, Neg, Man | (uint64_t(1) << M),
          int(Exp) - F.bias() - int(M)};
}

uint64_t canonicalNaN(FloatFormat F) {
  return (lowMask(F.ExponentBits) << F.MantissaBits) |
         (uint64_t(1) << (F.MantissaBits - 1));
}

uint64_t infinity(FloatFormat F, bool Negative) {
  return (uint64_t(Negative) << (F.ExponentBits + F.MantissaBits)) |
         (lowMask(F.ExponentBits) << F.MantissaBits);
}

uint64_t zero(FloatFormat F, bool Negative) {
  return uint64_t(Negative) << (F.ExponentBits + F.MantissaBits);
}

static uint64_t maxFinite(FloatFormat F, bool Negative) {
  return zero(F, Negative) | ((lowMask(F.ExponentBits) - 1) << F.MantissaBits) |
         lowMask(F.MantissaBits);
}

bool isNaN(uint64_t Bits, FloatFormat F) {
  return decode(Bits, F).Kind == Class::NaN;
}

bool signBit(uint64_t Bits, FloatFormat F) {
  return (Bits >> (F.ExponentBits + F.MantissaBits)) & 1;
}

/// Whether to add one unit to the magnitude Q, given the discarded remainder
/// Rem and half a unit Half.
static bool roundsUp(bool Negative, bool QOdd, u128 Rem, u128 Half,
                     bool RemAboveAll, RoundingMode M) {
  bool Inexact = Rem != 0 || RemAboveAll;
  switch (M) {
  case RoundingMode::NearestEven:
    return !RemAboveAll && (Rem > Half || (Rem == Half && QOdd));
  case RoundingMode::NearestAway:
    return !RemAboveAll && Rem >= Half;
  case RoundingMode::TowardZero:
    return false;
  case RoundingMode::Up:
    return Inexact && !Negative;
  case RoundingMode::Down:
    return Inexact && Negative;
  }
  return false;
}

/// Splits magnitude Sig into Sig >> Shift and its rounding decision.
static u128 shiftAndRound(bool Negative, u128 Sig, int Shift, RoundingMode M) {
  if (Shift <= 0)
    return Sig << -Shift;
  if (Shift >= 128) // the whole value lies below half a unit
    return roundsUp(Negative, false, 1, 2, /*RemAboveAll=*/false, M) ? 1 : 0;
  u128 Q = Sig >> Shift;
  u128 Rem = Sig & ((u128(1) << Shift) - 1);
  u128 Half = u128(1) << (Shift - 1);
  return Q + (roundsUp(Negative, Q & 1, Rem, Half, false, M) ? 1 : 0);
}

uint64_t roundToFormat(bool Negative, uint64_t Sig, int Exp, FloatFormat F,
                       RoundingMode M) {
  if (Sig == 0)
    return zero(F, Negative);
  int P = int(F.MantissaBits) + 1;
  int EMin = 1 - F.bias(), EMax = F.bias();
  int Msb = 63 - std::countl_zero(Sig);
  int Lead = Msb + Exp;
  int Quantum = std::max(Lead, EMin) - (P - 1);
  u128 Q = shiftAndRound(Negative, Sig, Quantum - Exp, M);
  if (Q == (u128(1) << P)) {
    Q >>= 1;
    ++Quantum;
  }
  uint64_t Sign = zero(F, Negative);
  if (Q < (u128(1) << (P - 1)))
    return Sign | uint64_t(Q); // subnormal, or zero after rounding
  int Unbiased = Quantum + P - 1;
  if (Unbiased > EMax) {
    switch (M) {
    case RoundingMode::NearestEven:
    case RoundingMode::NearestAway:
      return infinity(F, Negative);
    case RoundingMode::TowardZero:
      return maxFinite(F, Negative);
    case RoundingMode::Up:
      return Negative ? maxFinite(F, true) : infinity(F, false);
    case RoundingMode::Down:
      return Negative ? infinity(F, true) : maxFinite(F, false);
    }
  }
  return Sign | (uint64_t(Unbiased + F.bias()) << F.MantissaBits) |
         (uint64_t(Q) & lowMask(F.MantissaBits));
}

double toDouble(uint64_t Bits, FloatFormat F) {
  if (isDoubleFormat(F))
    return std::bit_cast<double>(Bits);
  Decoded D = decode(Bits, F);
  switch (D.Kind) {
  case Class::NaN:
    return std::nan("");
  case Class::Infinity:
    return D.Negative ? -INFINITY : INFINITY;
  case Class::Zero:
    return D.Negative ? -0.0 : 0.0;
  default: {
    double Mag = std::ldexp(double(D.Significand), D.Exponent);
    return D.Negative ? -Mag : Mag;
  }
  }
}

uint64_t fromDouble(double V, FloatFormat F, RoundingMode M) {
  uint64_t Bits = std::bit_cast<uint64_t>(V);
  if (std::isnan(V))
    return canonicalNaN(F);
  if (isDoubleFormat(F))
    return Bits;
  return convert(Bits, FloatFormat{11, 52}, F, M);
}

static int hostMode(RoundingMode M) {
  switch (M) {
  case RoundingMode::NearestEven:
  case RoundingMode::NearestAway: // only reached for exact results
    return FE_TONEAREST;
  case RoundingMode::TowardZero:
    return FE_TOWARDZERO;
  case RoundingMode::Up:
    return FE_UPWARD;
  case RoundingMode::Down:
    return FE_DOWNWARD;
  }
  return FE_TONEAREST;
}

namespace {
/// Runs Fn with the host in mode HostMode; reports whether it was inexact.
template <class Fn> double runInMode(int HostMode, Fn &&Compute, bool &Inexact) {
  int Old = std::fegetround();
  std::fesetround(HostMode);
  std::feclearexcept(FE_INEXACT);
  volatile double R = Compute();
  Inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(Old);
  return R;
}

/// Computes a correctly rounded op of format F: f64 directly in the host's
/// mode, narrower formats in double rounded to odd, then into F.
template <class Fn>
uint64_t correctlyRounded(FloatFormat F, RoundingMode M, Fn &&Compute) {
  bool Inexact = false;
  if (isDoubleFormat(F)) {
    if (M == RoundingMode::NearestAway)
      throw IRError("round-to-nearest-away arithmetic is not supported");
    double R = runInMode(hostMode(M), Compute, Inexact);
    return fromDouble(R, F, M);
  }
  double R = runInMode(FE_TOWARDZERO, Compute, Inexact);
  if (R == 0 && !Inexact) // exact zero: its sign depends on the mode
    R = runInMode(hostMode(M), Compute, Inexact);
  if (Inexact && std::isfinite(R))
    R = std::bit_cast<double>(std::bit_cast<uint64_t>(R) | 1);
  return fromDouble(R, F, M);
}
} // namespace

/// The same result without touching the host's floating-point environment,
/// whose changes cost more than the op. The host computes in its default
/// mode (nearest-even, checked); an error-free transformation gives the
/// exact result's side of that double (Side: -1 below, 0 exact, +1 above),
/// from which its round-to-odd follows. Operands narrower than double
/// neither overflow nor underflow in double, so the transformations are
/// exact, and an infinity or a NaN comes only from special operands, the
/// same in every mode. A zero is exact too; its sign depends on the mode only
/// where a sum cancels (ZeroSignByMode), and rounding down is then left to
/// correctlyRounded.
static std::optional<uint64_t> fromNearest(double Nearest, double Side,
                                           FloatFormat F, RoundingMode M,
                                           bool ZeroSignByMode) {
  if (std::fegetround() != FE_TONEAREST)
    return std::nullopt;
  if (!std::isfinite(Nearest))
    return fromDouble(Nearest, F, M);
  if (Nearest == 0)
    return ZeroSignByMode && M == RoundingMode::Down
               ? std::nullopt
               : std::optional(fromDouble(Nearest, F, M));
  double R = Nearest;
  if (Side != 0) {
    // Toward zero, then odd: the exact value lies strictly between the
    // double toward zero and the one after it.
    if ((Side > 0) != (Nearest > 0))
      R = std::nextafter(Nearest, 0.0);
    R = std::bit_cast<double>(std::bit_cast<uint64_t>(R) | 1);
  }
  return fromDouble(R, F, M);
}

/// Knuth's TwoSum: X + Y - (X (+) Y), exactly.
static double sumError(double X, double Y, double Sum) {
  double YPart = Sum - X;
  return (X - (Sum - YPart)) + (Y - YPart);
}

static bool narrowerThanDouble(FloatFormat F) {
  return F.ExponentBits <= 8 && F.MantissaBits <= 23;
}

/// A double op to nearest-even is the host's own, in its default mode.
static bool hostRoundsAsAsked(FloatFormat F, RoundingMode M) {
  return isDoubleFormat(F) && M == RoundingMode::NearestEven &&
         std::fegetround() == FE_TONEAREST;
}

uint64_t add(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M) {
  volatile double X = toDouble(A, F), Y = toDouble(B, F);
  if (hostRoundsAsAsked(F, M))
    return fromDouble(X + Y, F, M);
  if (narrowerThanDouble(F)) {
    double Sum = X + Y;
    if (auto R = fromNearest(Sum, sumError(X, Y, Sum), F, M, true))
      return *R;
  }
  return correctlyRounded(F, M, [&] { return X + Y; });
}

uint64_t sub(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M) {
  volatile double X = toDouble(A, F), Y = toDouble(B, F);
  if (hostRoundsAsAsked(F, M))
    return fromDouble(X - Y, F, M);
  if (narrowerThanDouble(F)) {
    double Difference = X - Y;
    if (auto R = fromNearest(Difference, sumError(X, -Y, Difference), F, M,
                              true))
      return *R;
  }
  return correctlyRounded(F, M, [&] { return X - Y; });
}

uint64_t mul(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M) {
  volatile double X = toDouble(A, F), Y = toDouble(B, F);
  if (hostRoundsAsAsked(F, M))
    return fromDouble(X * Y, F, M);
  // Two significands of at most 24 bits: the product is exact in double.
  if (narrowerThanDouble(F))
    if (auto R = fromNearest(X * Y, 0.0, F, M, false))
      return *R;
  return correctlyRounded(F, M, [&] { return X * Y; });
}

uint64_t div(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M) {
  volatile double X = toDouble(A, F), Y = toDouble(B, F);
  if (hostRoundsAsAsked(F, M))
    return fromDouble(X / Y, F, M);
  if (narrowerThanDouble(F)) {
    double Quotient = X / Y;
    // X - Quotient * Y, exactly: the exact quotient is Quotient + this / Y.
    double Remainder = std::fma(-Quotient, Y, X);
    double Side = Remainder == 0 ? 0.0 : ((Remainder > 0) == (Y > 0) ? 1 : -1);
    if (auto R = fromNearest(Quotient, Side, F, M, false))
      return *R;
  }
  return correctlyRounded(F, M, [&] { return X / Y; });
}

uint64_t fma(uint64_t A, uint64_t B, uint64_t C, FloatFormat F,
             RoundingMode M) {
  volatile double X = toDouble(A, F), Y = toDouble(B, F), Z = toDouble(C, F);
  if (hostRoundsAsAsked(F, M))
    return fromDouble(std::fma(X, Y, Z), F, M);
  if (narrowerThanDouble(F)) {
    double Product = X * Y; // exact, as in mul
    double Sum = Product + Z;
    if (auto R = fromNearest(Sum, sumError(Product, Z, Sum), F, M, true))
      return *R;
  }
  return correctlyRounded(F, M, [&] { return std::fma(X, Y, Z); });
}

uint64_t sqrt(uint64_t A, FloatFormat F, RoundingMode M) {
  volatile double X = toDouble(A, F);
  if (hostRoundsAsAsked(F, M))
    return fromDouble(std::sqrt(X), F, M);
  if (narrowerThanDouble(F)) {
    double Root = std::sqrt(X);
    // X - Root^2, exactly: its sign is the exact root's side of Root.
    double Residual = std::fma(-Root, Root, X);
    double Side = Residual == 0 ? 0.0 : (Residual > 0 ? 1 : -1);
    if (auto R = fromNearest(Root, Side, F, M, false))
      return *R;
  }
  return correctlyRounded(F, M, [&] { return std::sqrt(X); });
}

uint64_t roundToIntegral(uint64_t A, FloatFormat F, RoundingMode M) {
  Decoded D = decode(A, F);
  if (D.Kind == Class::NaN)
    return canonicalNaN(F);
  if (D.Kind == Class::Infinity || D.Kind == Class::Zero || D.Exponent >= 0)
    return A;
  u128 Q = shiftAndRound(D.Negative, D.Significand, -D.Exponent, M);
  return roundToFormat(D.Negative, uint64_t(Q), 0, F, RoundingMode::NearestEven);
}

uint64_t neg(uint64_t A, FloatFormat F) {
  if (isNaN(A, F))
    return canonicalNaN(F);
  return A ^ zero(F, true);
}

uint64_t abs(uint64_t A, FloatFormat F) {
  if (isNaN(A, F))
    return canonicalNaN(F);
  return A & ~zero(F, true);
}

uint64_t copySign(uint64_t A, uint64_t SignOf, FloatFormat F) {
  if (isNaN(A, F))
    return canonicalNaN(F);
  bool Negative = !isNaN(SignOf, F) && signBit(SignOf, F);
  return (A & ~zero(F, true)) | zero(F, Negative);
}

uint64_t flushSubnormal(uint64_t A, FloatFormat F) {
  Decoded D = decode(A, F);
  if (D.Kind == Class::NaN)
    return canonicalNaN(F);
  return D.Kind == Class::Subnormal ? zero(F, D.Negative) : A;
}

uint64_t minMax(Op O, uint64_t A, uint64_t B, FloatFormat F) {
  bool NanA = isNaN(A, F), NanB = isNaN(B, F);
  bool PropagatesNaN = O == Op::FMinimum || O == Op::FMaximum;
  bool IsMin = O == Op::FMinNum || O == Op::FMinimum;
  if (NanA || NanB) {
    if (PropagatesNaN || (NanA && NanB))
      return canonicalNaN(F);
    return NanA ? B : A;
  }
  double X = toDouble(A, F), Y = toDouble(B, F);
  if (X == 0 && Y == 0) { // -0 orders below +0
    bool NegA = signBit(A, F);
    return IsMin ? (NegA ? A : B) : (NegA ? B : A);
  }
  if (IsMin)
    return X < Y ? A : B;
  return X > Y ? A : B;
}

bool compare(FCmpPredicate P, uint64_t A, uint64_t B, FloatFormat F) {
  bool Unordered = isNaN(A, F) || isNaN(B, F);
  double X = toDouble(A, F), Y = toDouble(B, F);
  switch (P) {
  case FCmpPredicate::False:
    return false;
  case FCmpPredicate::True:
    return true;
  case FCmpPredicate::Ord:
    return !Unordered;
  case FCmpPredicate::Uno:
    return Unordered;
  case FCmpPredicate::Oeq:
    return !Unordered && X == Y;
  case FCmpPredicate::Ogt:
    return !Unordered && X > Y;
  case FCmpPredicate::Oge:
    return !Unordered && X >= Y;
  case FCmpPredicate::Olt:
    return !Unordered && X < Y;
  case FCmpPredicate::Ole:
    return !Unordered && X <= Y;
  case FCmpPredicate::One:
    return !Unordered && X != Y;
  case FCmpPredicate::Ueq:
    return Unordered || X == Y;
  case FCmpPredicate::Ugt:
    return Unordered || X > Y;
  case FCmpPredicate::Uge:
    return Unordered || X >= Y;
  case FCmpPredicate::Ult:
    return Unordered || X < Y;
  case FCmpPredicate::Ule:
    return Unordered || X <= Y;
  case FCmpPredicate::Une:
    return Unordered || X != Y;
  }
  return false;
}

uint64_t convert(uint64_t A, FloatFormat From, FloatFormat To,
                 RoundingMode M) {
  Decoded D = decode(A, From);
  switch (D.Kind) {
  case Class::NaN:
    return canonicalNaN(To);
  case Class::Infinity:
    return infinity(To, D.Negative);
  case Class::Zero:
    return zero(To, D.Negative);
  default:
    return roundToFormat(D.Negative, D.Significand, D.Exponent, To, M);
  }
}

uint64_t toInt(uint64_t A, FloatFormat F, unsigned Width, bool Signed,
               RoundingMode M) {
  Decoded D = decode(A, F);
  u128 MaxMag = Signed ? (u128(1) << (Width - 1)) - 1 : (u128(1) << Width) - 1;
  u128 MinMag = Signed ? (u128(1) << (Width - 1)) : 0; // magnitude of the min
  auto Saturate = [&](bool Negative) -> uint64_t {
    if (!Negative)
      return uint64_t(MaxMag);
    return Signed ? uint64_t(-int64_t(uint64_t(MinMag - 1)) - 1) : 0;
  };
  switch (D.Kind) {
  case Class::NaN:
    return 0;
  case Class::Infinity:
    return Saturate(D.Negative) & lowMask(Width);
  case Class::Zero:
    return 0;
  default:
    break;
  }
  int Msb = 63 - std::countl_zero(D.Significand);
  if (Msb + D.Exponent >= 100) // far beyond any 64-bit range
    return Saturate(D.Negative) & lowMask(Width);
  u128 Mag = shiftAndRound(D.Negative, D.Significand, -D.Exponent, M);
  if (Mag == 0)
    return 0;
  if (!D.Negative && Mag > MaxMag)
    return Saturate(false) & lowMask(Width);
  if (D.Negative && Mag > MinMag)
    return Saturate(true) & lowMask(Width);
  uint64_t Low = uint64_t(Mag);
  return (D.Negative ? uint64_t(0) - Low : Low) & lowMask(Width);
}

uint64_t fromInt(uint64_t A, unsigned Width, bool Signed, FloatFormat F,
                 RoundingMode M) {
  A &= lowMask(Width);
  bool Negative = Signed && Width > 0 && ((A >> (Width - 1)) & 1);
  uint64_t Mag = A;
  if (Negative) // two's complement magnitude within Width bits
    Mag = (~A + 1) & lowMask(Width);
  if (Negative && Mag == 0) // only for Width == 64, INT64_MIN
    Mag = uint64_t(1) << 63;
  return roundToFormat(Negative, Mag, 0, F, M);
}

} // namespace stagecheck::ir::fp

//===- FloatOps.h - Exact IEEE arithmetic on bit patterns -------*- C++ -*-===//
//
// The concrete semantics of every float op for f16, bf16, f32 and f64 in every
// rounding mode, on bit patterns. Results are correctly rounded: narrow
// formats are computed in double rounded to odd (exact for any precision up to
// 51 bits) and then rounded once more into the format; f64 uses the host in
// the requested mode. NaN results are the format's canonical quiet NaN.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_FLOATOPS_H
#define STAGECHECK_IR_FLOATOPS_H

#include "ir/Expr.h"
#include "ir/Type.h"

#include <cstdint>

namespace stagecheck::ir::fp {

enum class Class { Zero, Subnormal, Normal, Infinity, NaN };

struct Decoded {
  Class Kind;
  bool Negative;
  uint64_t Significand; // value = (-1)^Negative * Significand * 2^Exponent
  int Exponent;
};

Decoded decode(uint64_t Bits, FloatFormat F);
uint64_t canonicalNaN(FloatFormat F);
uint64_t infinity(FloatFormat F, bool Negative);
uint64_t zero(FloatFormat F, bool Negative);
bool isNaN(uint64_t Bits, FloatFormat F);
bool signBit(uint64_t Bits, FloatFormat F);

/// Rounds (-1)^Negative * Significand * 2^Exponent into format F.
uint64_t roundToFormat(bool Negative, uint64_t Significand, int Exponent,
                       FloatFormat F, RoundingMode M);

/// Exact conversions between a format and double (exact for every value of
/// f16/bf16/f32/f64 into double).
double toDouble(uint64_t Bits, FloatFormat F);
uint64_t fromDouble(double D, FloatFormat F, RoundingMode M);

uint64_t add(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M);
uint64_t sub(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M);
uint64_t mul(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M);
uint64_t div(uint64_t A, uint64_t B, FloatFormat F, RoundingMode M);
uint64_t fma(uint64_t A, uint64_t B, uint64_t C, FloatFormat F, RoundingMode M);
uint64_t sqrt(uint64_t A, FloatFormat F, RoundingMode M);
uint64_t roundToIntegral(uint64_t A, FloatFormat F, RoundingMode M);

uint64_t neg(uint64_t A, FloatFormat F);
uint64_t abs(uint64_t A, FloatFormat F);
uint64_t copySign(uint64_t A, uint64_t SignOf, FloatFormat F);
uint64_t flushSubnormal(uint64_t A, FloatFormat F);
uint64_t minMax(Op O, uint64_t A, uint64_t B, FloatFormat F);
bool compare(FCmpPredicate P, uint64_t A, uint64_t B, FloatFormat F);

uint64_t convert(uint64_t A, FloatFormat From, FloatFormat To, RoundingMode M);
/// Round in mode M, saturate to the integer range, NaN -> 0.
uint64_t toInt(uint64_t A, FloatFormat F, unsigned Width, bool Signed,
               RoundingMode M);
uint64_t fromInt(uint64_t A, unsigned Width, bool Signed, FloatFormat F,
                 RoundingMode M);

} // namespace stagecheck::ir::fp

#endif

//===- IntegerDivision.h - Division by a constant, as backends lower it -*- C++ -*-===//
//
// A backend divides by a constant with a multiply-high by a "magic" number
// and shifts (Granlund and Montgomery; Hacker's Delight, chapter 10). The
// expansion is exact for every dividend, so an LLVM IR sdiv by 3 and the
// PTX's mul.hi.s32 by 0x55555556 are one value; building the expansion from
// the LLVM IR side lets hash-consing see that, where a solver would have to
// bit-blast a divider against a multiplier.
//
// The expansion follows LLVM's TargetLowering::BuildSDIV: q = mulhs(n, M),
// plus or minus n when the magic's sign differs from the divisor's, an
// arithmetic shift right, and the sign bit added back.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_INTEGERDIVISION_H
#define STAGECHECK_STAGES_INTEGERDIVISION_H

#include "ir/Expr.h"

#include <cstdint>
#include <optional>

namespace stagecheck::stages {

struct SignedMagic {
  uint64_t Magic;  // in the divisor's width
  unsigned Shift;
};

/// The magic number and shift for signed division by D in Bits bits (D not
/// 0, 1 or -1); Hacker's Delight figure 10-1.
SignedMagic signedMagic(int64_t D, unsigned Bits);

/// n sdiv D as the multiply-high expansion, for D whose expansion a backend
/// uses (not 0, 1, -1, nor a power of two or its negation); nullopt else.
/// The sign bit added back is the same before and after the arithmetic
/// shift; SignBeforeShift takes it before, as NVPTX's combines leave it.
std::optional<const ir::Expr *>
signedDivisionByConstant(ir::Context &C, const ir::Expr *N, int64_t D,
                         bool SignBeforeShift = false);

struct UnsignedMagic {
  uint64_t Magic;      // in the divisor's width
  unsigned PreShift;   // the dividend shifted right first (even divisors)
  unsigned PostShift;  // the quotient shifted right last
  bool Add;            // the magic needs Bits+1 bits: the "add" fix-up
};

/// The magic number for unsigned division by D in Bits bits (D > 1);
/// Hacker's Delight figure 10-2 (magicu2), with LLVM's choice for even
/// divisors that would need the add: divide D's odd part into n shifted
/// right by D's trailing zeros.
UnsignedMagic unsignedMagic(uint64_t D, unsigned Bits);

/// n udiv D as the multiply-high expansion LLVM's BuildUDIV emits, for D
/// not 0, 1 nor a power of two; nullopt else.
std::optional<const ir::Expr *>
unsignedDivisionByConstant(ir::Context &C, const ir::Expr *N, uint64_t D);

/// n sdiv D for D = +-2^k (k >= 1) as the shifts every backend emits
/// (LLVM's BuildSDIVPow2): the dividend biased by 2^k - 1 when negative,
/// shifted right arithmetically, negated for a negative divisor:
///   ashr(n + lshr(ashr(n, W-1), W-k), k)
/// with lshr(n, W-1) as the bias for k = 1. Exact for every n; nullopt
/// when D is not such a power.
std::optional<const ir::Expr *>
signedDivisionByPowerOfTwo(ir::Context &C, const ir::Expr *N, int64_t D);

/// A product by a constant with k trailing zero bits, or a left shift by
/// k, reads only the low W-k bits of its other operand; an arithmetic
/// shift right by s <= k there agrees with the logical one on those bits.
/// Returns N with that operand a logical shift (the form a backend's
/// demanded-bits combine leaves), or null when N is not such a node.
const ir::Expr *logicalShiftWhereHighBitsUnread(ir::Context &C,
                                                const ir::Expr *N);

} // namespace stagecheck::stages

#endif

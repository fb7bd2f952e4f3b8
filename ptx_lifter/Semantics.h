//===- Semantics.h - PTX operations both LLVM IR and PTX lift to --*- C++ -*-===//
//
// One builder per PTX operation whose LLVM IR spelling is an intrinsic
// (llvm.nvvm.fma.rn.ftz.f is fma.rn.ftz.f32): the PTX lifter and the LLVM IR
// frontend both call these, so one operation lifts to one expression in
// either stage. Each follows the PTX ISA:
//  - .ftz flushes subnormal inputs and the result to zero of the same sign;
//  - .sat clamps to [0, 1] and maps NaN to +0;
//  - min/max ignore a NaN operand (.NaN forms propagate it); -0 < +0;
//  - approximate instructions are the IR's named functions ("ex2.approx",
//    "ex2.approx.ftz", "div.full", ...): uninterpreted, never exact.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_PTX_LIFTER_SEMANTICS_H
#define STAGECHECK_PTX_LIFTER_SEMANTICS_H

#include "ptx_lifter/ThreadModel.h"

#include <span>
#include <string_view>
#include <utility>

namespace stagecheck::ptx::sem {

/// Subnormal -> zero of the same sign when Ftz, else X.
const ir::Expr *flush(ir::Context &C, const ir::Expr *X, bool Ftz);

/// add/sub/mul/div with rounding (div.rn, ...).
const ir::Expr *arith(ir::Context &C, ir::Op O, const ir::Expr *A,
                      const ir::Expr *B, ir::RoundingMode M, bool Ftz);
const ir::Expr *fma(ir::Context &C, const ir::Expr *A, const ir::Expr *B,
                    const ir::Expr *Addend, ir::RoundingMode M, bool Ftz);
/// sqrt.rn / rcp.rn (1 / x rounded).
const ir::Expr *sqrt(ir::Context &C, const ir::Expr *A, ir::RoundingMode M,
                     bool Ftz);
const ir::Expr *reciprocal(ir::Context &C, const ir::Expr *A,
                           ir::RoundingMode M, bool Ftz);
/// cvt.rni/rzi/rmi/rpi of a float to its own type (llvm.nvvm.round, trunc,
/// floor, ceil): the nearest integral value in mode M.
const ir::Expr *roundToIntegral(ir::Context &C, const ir::Expr *A,
                                ir::RoundingMode M, bool Ftz);
const ir::Expr *abs(ir::Context &C, const ir::Expr *A, bool Ftz);
const ir::Expr *neg(ir::Context &C, const ir::Expr *A, bool Ftz);
/// min/max; PropagateNaN for the .NaN forms.
const ir::Expr *minMax(ir::Context &C, bool Max, const ir::Expr *A,
                       const ir::Expr *B, bool PropagateNaN, bool Ftz);
/// .sat: clamp to [0, 1], NaN -> +0.
const ir::Expr *saturate(ir::Context &C, const ir::Expr *A);
/// cvt.ftz.sat (llvm.nvvm.saturate.ftz.f): a subnormal input is flushed
/// before the clamp.
const ir::Expr *saturate(ir::Context &C, const ir::Expr *A, bool Ftz);
/// An approximate instruction: Name is its PTX spelling without type and
/// .ftz ("ex2.approx", "rsqrt.approx", "div.full", "sqrt.approx"), for
/// sm_SmVersion (0: not known). The .ftz form is the plain one between
/// flushes where that was measured on the hardware (ir::measuredFtzForm),
/// else a function of its own; a division is the function
/// ir::measuredDivision names for the target.
const ir::Expr *approximate(ir::Context &C, std::string_view Name, bool Ftz,
                            std::span<const ir::Expr *const> Args,
                            unsigned SmVersion);

enum class ShuffleMode { Up, Down, Butterfly, Index };
/// shfl.sync.MODE.b32 d|p, a, b, c, membermask, as an exchange of kind
/// "shfl.sync.up" ... with operands {a, b, c, membermask} (all i32) and
/// results {d (i32), p (i1)}.
std::pair<const ir::Expr *, const ir::Expr *>
shuffle(ThreadModel &M, ShuffleMode Mode, const ir::Expr *Value,
        const ir::Expr *LaneOrOffset, const ir::Expr *Clamp,
        const ir::Expr *MemberMask, const ir::Expr *Guard,
        const ir::Origin &From);

/// redux.sync.OP.TYPE d, a, membermask on integers: the OP of a over the
/// threads of membermask, all of which execute it. An exchange of kind
/// "redux.sync." + one of add, min, max, umin, umax, and, or, xor (the
/// operation, signedness included, whatever PTX type spells it), with
/// operands {a, membermask} (i32) and result {d (i32)}.
const ir::Expr *warpReduce(ThreadModel &M, const std::string &Operation,
                           const ir::Expr *Value, const ir::Expr *MemberMask,
                           const ir::Expr *Guard, const ir::Origin &From);
/// The operations warpReduce takes, and the IR op each folds with.
bool isWarpReduction(const std::string &Operation);
ir::Op warpReductionOp(const std::string &Operation);

} // namespace stagecheck::ptx::sem

#endif

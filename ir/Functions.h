//===- Functions.h - Named functions of the shared IR -----------*- C++ -*-===//
//
// Transcendentals and approximate hardware ops are calls of named functions.
// The SMT encoding leaves them uninterpreted (rewrite rules relate them); the
// concrete interpreter takes their values from the environment, and falls back
// to the host's libm only to show a plausible value.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_FUNCTIONS_H
#define STAGECHECK_IR_FUNCTIONS_H

#include "ir/Value.h"

#include <optional>
#include <span>
#include <string_view>

namespace stagecheck::ir {

/// A class of f32 argument that a PTX ISA table of corner cases lists.
enum class CornerInput { NegInfinity, NegNormal, NegZero, PosZero, PosInfinity, NaN };

/// One row of such a table: ex2.approx.f32 of -Inf is +0.0 on every GPU.
struct CornerCase {
  CornerInput Input;
  double Result;
};

struct FunctionInfo {
  std::string_view Name;
  unsigned Arity;
  /// An approximate hardware op (ex2.approx, div.full...): a result that
  /// depends on one is never reported as a bit-exact proof of the exact
  /// function.
  bool Approximate;
  double (*Host)(std::span<const double>);
  /// f(-0) = f(+0) for every float argument (exp, cos, log; ex2.approx by
  /// the PTX ISA's table of special values). Such arguments meet the
  /// function as +0, so a stage that passes -0 where another passes +0 is
  /// not told apart by an uninterpreted function that could.
  bool IgnoresSignOfZero = false;
  /// A .ftz instruction reads a subnormal argument as a zero of its sign.
  bool FlushesSubnormalArguments = false;
  /// The PTX ISA's corner-case results of an approximate instruction, for
  /// an f32 argument as the function reads it. An uninterpreted function
  /// may take any value elsewhere, but not here: a model that made
  /// ex2.approx(-Inf) anything but +0 would be a counterexample no GPU
  /// can show.
  std::span<const CornerCase> CornerCases = {};
  /// A division that gives IEEE's quotient wherever an operand, as the
  /// function reads it, is a zero, an infinity or a NaN: a zero dividend's
  /// quotient is a zero of the operands' combined sign, not anything within
  /// the ulp bound of zero. Measured on the GPU, not stated by the PTX ISA
  /// (scripts/div_full_specials.cu, docs/design-decisions.md).
  bool ExactAtSpecialOperands = false;
};

/// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, one output element:
/// D[i][j] = F(C[i][j], A[i][0..15], B[0..15][j]), 33 arguments (f32, then
/// 16 f16 of A's row, then 16 f16 of B's column, in k order). How the
/// hardware sums and rounds inside one instruction is not specified, so it
/// is uninterpreted: two stages that apply it to the same arguments agree
/// on every GPU. The host value (a sequential f32 fma chain over k) is only
/// an illustration for replaying a counterexample.
inline constexpr std::string_view MmaM16N8K16F32F16 =
    "mma.m16n8k16.f32.f16.f16.f32";

/// The argument as the function reads it: a subnormal flushed by a .ftz
/// form, then -0 as +0 where the sign of zero is ignored. Every place that
/// compares or looks up call arguments (the interpreter's environment, the
/// SMT encoding) goes through this, so both agree on one point per class.
Value canonicalArgument(const FunctionInfo &F, Value Argument);

/// The result the PTX ISA fixes for a call of F on these arguments, each as
/// the function reads it (canonicalArgument), or nothing where the function
/// is free. Every place that gives a call a value (the interpreter, the SMT
/// encoding, a model's reading) asks this first.
std::optional<Value> cornerCaseResult(const FunctionInfo &F,
                                      std::span<const Value> Arguments,
                                      Type Result);

/// A row's result as a value of type Result (a NaN is the canonical one).
Value cornerResult(const CornerCase &C, Type Result);

/// F's own value at Arguments, the host's in double (an integer argument
/// as its bits, unsigned). F must have a host function. The interpreter's
/// fallback and a counterexample's plausibility both ask this.
double hostResult(const FunctionInfo &F, std::span<const Value> Arguments);

/// Whether Result, a value a counterexample assumes of the approximate
/// function F at Arguments, could be the hardware's: within 2^-10 of the
/// function's own value (the host's, in double) relatively, plus 2^-20
/// absolutely (sin.approx's error is absolute). A generous bound, far
/// wider than any the PTX ISA states: it rejects values no approximation
/// gives (ex2.approx(1e-43) = 1.5), not the hardware's rounding. True
/// where F has no host value or the result is not a float.
bool plausibleResult(const FunctionInfo &F, std::span<const Value> Arguments,
                     const Value &Result);

/// The function named Name, or nullptr.
const FunctionInfo *lookupFunction(std::string_view Name);

/// A mathematical function's exact value at a simple argument: exp(0) = 1.
struct ExactPoint {
  double Argument, Result;
};

/// The exact points of the mathematical function Name ("expm1", not
/// "__nv_expm1f" or "ex2.approx"), at 0 and 1 where its value there is a
/// small integer; empty for any other function. The real encoding fixes
/// them, so `x > 0 ? x : expm1(x)` and `x >= 0 ? ...` are one function.
std::span<const ExactPoint> exactPoints(std::string_view Name);

/// What is known of an approximate instruction's .ftz form on a GPU
/// architecture, beyond the PTX ISA (which defines the two forms apart).
struct FtzForm {
  /// op.ftz(x) == flush(op(flush(x))) for every x: the .ftz form is the
  /// plain one with subnormal arguments and results flushed.
  bool IsFlushedPlain = false;
  /// The plain form never returns a subnormal, so flushing its result
  /// changes nothing.
  bool ResultNeverSubnormal = false;
};

/// The .ftz form of the unary approximate instruction Plain ("ex2.approx")
/// on an argument of type T, for sm_SmVersion (90 for sm_90 and sm_90a).
/// Known only where measured on the hardware over every f32 argument
/// (scripts/ftz_relation.cu, docs/design-decisions.md); elsewhere nothing
/// is known and the .ftz form stays a function of its own.
FtzForm measuredFtzForm(std::string_view Plain, Type T, unsigned SmVersion);

/// The function a division instruction Name ("div.full", "div.full.ftz") on
/// operands of type T is for sm_SmVersion: "div.full.sm_90", exact at
/// special operands (FunctionInfo::ExactAtSpecialOperands), where that was
/// measured on the hardware over every f32 operand
/// (scripts/div_full_specials.cu, docs/design-decisions.md); Name itself,
/// bound only as the PTX ISA bounds it, elsewhere. Every lifter that spells
/// a division asks this, so the stages of one target agree on the name.
std::string_view measuredDivision(std::string_view Name, Type T,
                                  unsigned SmVersion);
std::span<const FunctionInfo> allFunctions();

} // namespace stagecheck::ir

#endif

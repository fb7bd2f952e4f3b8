//===- PtxLifter.h - PTX lifted to one thread's effects ---------*- C++ -*-===//
//
// Parses the PTX that Triton 3.6 (and LLVM's NVPTX backend) writes and
// lifts one kernel, for one thread with symbolic ids, into ThreadEffects
// (ptx_lifter/ThreadModel.h). Registers are bit vectors of their declared
// width (.pred is i1); float instructions reinterpret them. Each
// instruction follows the PTX ISA: rounding modes (none means .rn), .ftz,
// .sat, NaN rules of min/max and setp, cvt's rounding and saturation.
// Approximate instructions (ex2.approx, div.full, rsqrt.approx, ...) are
// calls of the IR's named functions, built by ptx_lifter/Semantics.h as
// the LLVM IR frontend builds them. Cache qualifiers and policies change
// no value. A register read before any write is the symbol "uninit.bN"
// of its width, as an inline-asm output the template leaves unwritten is.
//
// Device functions (.func, named by PtxLiftOptions::Kernel): parameters
// are read as a kernel's are (an array parameter, a vector or aggregate,
// is one integer of its bytes, up to 64 bits), with the bits above a
// narrow value unspecified (ThreadModel::setDeviceFunction); st.param to
// the return parameter stores its bytes, and what they hold when the
// function returns is written, lane by lane, to the pseudo buffers
// "func_retval0[.K]" (ThreadModel::returnValue). Calls are not modelled.
//
// Names: ld.param of kernel parameter K is ThreadModel::parameter(K) (the
// trailing scratch pointers, absent from a bundle's interface, become i8
// buffers when read); %tid %ctaid %nctaid %ntid %laneid are the model's
// symbols; the shared variable (Triton's global_smem; one per kernel) is
// the shared base.
//
// Control flow: branches are merged by path condition (a register's value
// after a join is a select over the incoming paths, an effect's guard its
// path condition and predicate); a loop is unrolled while its back edge's
// condition folds to a constant, up to MaxUnroll iterations, otherwise up
// to LoopBound iterations with the assumption that it has exited by then
// (ThreadEffects::Assumptions, and a line "loop at FILE.ptx:LINE: at most
// N iterations" in ::Bounds).
//
// Locations: every effect's Origin is the instruction's spelling
// ("st.global.b32") and the Python location of the last .loc before it
// (the .file table names the file), or the PTX location when there is
// none. The PTX line of each effect is in PtxLift's line vectors, and of
// each node in Provenance.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_PTX_LIFTER_PTXLIFTER_H
#define STAGECHECK_PTX_LIFTER_PTXLIFTER_H

#include "ptx_lifter/ThreadModel.h"

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stagecheck::ptx {

struct PtxLiftOptions {
  /// The .entry to lift; empty means the only one in the file (or the
  /// interface's kernel when there are several).
  std::string Kernel;
  uint64_t MaxUnroll = 1024;
  unsigned LoopBound = 4;
  /// For coverage counts: an instruction that is not modelled is listed in
  /// PtxLift::Unsupported, its destinations get fresh values, and the lift
  /// goes on (its effects then describe no real kernel).
  bool ContinueOnUnsupported = false;
  /// A device function (.func, named by Kernel): the lanes of what the
  /// LLVM IR returns, each a byte offset into the return parameter and
  /// the lane's type; the lift ends with one ThreadModel::returnValue per
  /// lane, the lane's low bits of the bytes st.param left there. Empty: the
  /// whole return parameter as one integer lane (up to 64 bits), else one
  /// i8 lane per byte.
  std::vector<std::pair<unsigned, ir::Type>> ReturnLanes;
  /// A device function's zeroext / signext marks per parameter
  /// (ThreadModel::setDeviceFunction).
  std::vector<char> ParamExtension;
};

/// An instruction the lift did not model (ContinueOnUnsupported).
struct UnsupportedSite {
  std::string Instruction;
  unsigned PtxLine = 0;
  std::string Reason;
};

/// Where an expression node was first made: the PTX instruction and its
/// line in the PTX file (for reports that name the PTX line).
struct PtxSite {
  std::string Instruction; // "add.f32"
  unsigned PtxLine = 0;
  ir::SourceLocation Source; // from .loc
};

struct PtxLift {
  ThreadEffects Thread;
  /// The instruction that first produced each node of this lift.
  std::unordered_map<const ir::Expr *, PtxSite> Provenance;
  /// Per effect (write, exchange, undefined behaviour, atomic), in order,
  /// the PTX line of the instruction that made it.
  std::vector<unsigned> WriteLines, ExchangeLines, UndefinedLines, AtomicLines;
  /// With ContinueOnUnsupported: what was not modelled, in order.
  std::vector<UnsupportedSite> Unsupported;
};

/// Reads and lifts a PTX file. Malformed PTX throws ir::InputError with
/// file:line:column; an instruction that is not modelled throws
/// ir::UnsupportedError("unsupported instruction NAME", location) whose
/// location is the PTX file and line.
PtxLift liftPtxFile(ir::Context &C, const std::string &Path,
                    const ir::KernelInterface &Interface,
                    const PtxLiftOptions &O = {});
/// The same for PTX text (FileName is used in locations).
PtxLift liftPtxText(ir::Context &C, std::string_view Text,
                    const std::string &FileName,
                    const ir::KernelInterface &Interface,
                    const PtxLiftOptions &O = {});

/// Triton's inline asm in LLVM IR: the PTX template is lifted into the
/// caller's ThreadModel, through the same instruction semantics and path
/// merging as a PTX file. Template is the asm string as LLVM's API returns
/// it (real newlines and tabs); LLVM's IR-text escapes (\0A, \09, \\)
/// are decoded as well, so a template copied from a .llir file works too.
/// Constraints is LLVM's constraint string ("=r,=r,l,b": outputs first,
/// then inputs; r = 32-bit, l = 64-bit, h and c = 16-bit, f = f32, d =
/// f64, b = predicate (i1), n / i = immediate (a constant input), a digit
/// = tied to that output; ~{...} clobbers are ignored). Inputs are the
/// call's arguments in order: integers, floats (their bits), i1, and
/// pointers (their address; an inttoptr is looked through, and an address
/// wider than its register is truncated with the truncation pushed through
/// additions, so a shared address keeps the shared base visible).
/// OutputTypes are the LLVM types of the outputs (the struct's fields).
/// Returns one value per output, of its type: the register's bits
/// reinterpreted (an output the template never writes is the symbol
/// "uninit.bN", N its register's width, as an unwritten PTX register
/// is). $N in the template is operand N (outputs first).
/// Each effect's Origin is {the PTX instruction, From.Loc}; the model's
/// path condition (ThreadModel::setPathCondition) guards them. Throws
/// ir::UnsupportedError for what the PTX lifter does not model and
/// ir::InputError for a malformed template (both at From.Loc). SmVersion
/// is the kernel's target (90 for sm_90a; 0 when not known).
std::vector<const ir::Expr *>
liftInlineAsm(ThreadModel &M, std::string_view Template,
              std::string_view Constraints,
              std::span<const ir::Expr *const> Inputs,
              const std::vector<ir::Type> &OutputTypes, const ir::Origin &From,
              unsigned SmVersion);

/// 90 for a .target of sm_90 or sm_90a (the digits after "sm_"); 0 when
/// the target names no sm version.
unsigned targetSmVersion(std::string_view Target);

} // namespace stagecheck::ptx

#endif

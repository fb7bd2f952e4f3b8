//===- PtxLifter.h - PTX lifted to one thread's effects ---------*- C++ -*-===//
//
// Parses the PTX that Triton 3.6 (and LLVM's NVPTX backend) writes and
// lifts one kernel, for one thread with symbolic ids, into ThreadEffects
// (ptx_lifter/ThreadModel.h). Registers are untyped bits; each instruction
// follows the PTX ISA: rounding modes, .ftz, .sat, NaN rules of min/max and
// setp, cvt's rounding and saturation. Approximate instructions (ex2.approx,
// div.full, rsqrt.approx, ...) are calls of the IR's named functions.
//
// Control flow: branches are merged by path condition (a register's value
// after a join is a select over the incoming paths); a loop is unrolled
// while its exit condition folds to a constant, up to MaxUnroll iterations,
// otherwise up to LoopBound iterations with the assumption that it exits by
// then (ThreadEffects::Assumptions and ::Bounds say so).
//
// Locations: every effect's Origin is the instruction's spelling
// ("st.global.b32") and the Python location of the last .loc before it
// (.file table names the file); tests and mutants also need the PTX line,
// which PtxLine in the origin's op text does not carry: see lineOf().
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
  /// The .entry to lift; empty means the only one in the file.
  std::string Kernel;
  uint64_t MaxUnroll = 1024;
  unsigned LoopBound = 4;
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
/// caller's ThreadModel. Constraints is LLVM's constraint string
/// ("=r,=r,l,b": outputs first, then inputs; r = 32-bit, l = 64-bit,
/// h = 16-bit, f = f32, d = f64, b = predicate (i1), n = immediate, a digit
/// = tied to that output); Inputs are the call's arguments in order;
/// OutputTypes the LLVM types of the outputs (the struct's fields). Returns
/// one value per output, of its type. $N in the template is operand N
/// (outputs first). Origin.Loc is the call's location; each effect's Op is
/// the PTX instruction. Throws ir::UnsupportedError for what the PTX
/// lifter does not model and ir::InputError for a malformed template.
std::vector<const ir::Expr *>
liftInlineAsm(ThreadModel &M, std::string_view Template,
              std::string_view Constraints,
              std::span<const ir::Expr *const> Inputs,
              const std::vector<ir::Type> &OutputTypes,
              const ir::Origin &From);

} // namespace stagecheck::ptx

#endif

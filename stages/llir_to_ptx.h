//===- llir_to_ptx.h - Does the PTX mean what the LLVM IR means? -*- C++ -*-===//
//
// The NVPTX backend turns one thread's LLVM IR into one thread's PTX, so
// the pair is checked per thread: both stages are lifted, with symbolic
// thread and program ids, into the same ptx::ThreadModel and one Context.
// Named queries, in order; the first that fails decides:
//
//  1. "block size": both require the same threads per CTA.
//  2. "communication": the two threads take part in the same exchanges in
//     the same order (shuffles, barriers, matrix loads, atomics): same kind,
//     same guard, same operands wherever the LLVM IR is defined. By
//     induction over the events, what each side receives is then the same,
//     which is why both sides' results are the same symbols.
//  3. the refinement queries of stages/Refinement.h over the effects:
//     definedness, then per buffer the elements written and their values
//     (global buffers, and shared memory phase by phase), then atomics.
//
// Arithmetic is bit-exact IEEE. One relaxation, design.md's: where the
// kernel was compiled with fp fusion (Triton's enable_fp_fusion, the
// default) or the IR marks an fadd/fsub and its fmul `contract`, the PTX
// may compute them as one fma. The check rewrites exactly those LLVM IR
// sites the PTX fused (an fma of the same operands occurs in the PTX), and
// reports how many it rewrote.
//
// A counterexample also names the PTX line where the PTX departs: the
// first instruction whose value, under the counterexample's input, the
// LLVM IR never computes.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_LLIR_TO_PTX_H
#define STAGECHECK_STAGES_LLIR_TO_PTX_H

#include "ir/Kernel.h"
#include "ptx_lifter/ThreadModel.h"
#include "stages/Refinement.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace stagecheck::stages {

struct LlirToPtxOptions {
  CheckOptions Check;
  /// The kernel was compiled with fp fusion (Triton's enable_fp_fusion).
  bool FpFusion = true;
  /// The function to check by name: a kernel, or a device function whose
  /// parameters are symbols and whose return value is written to the
  /// pseudo buffers "func_retval0[.K]" (ptx::ThreadModel::returnValue).
  /// Empty: the module's one kernel.
  std::string Function;
};

/// Which frontend lifts a file of this pair's machinery.
enum class ThreadStage { Llir, Ptx };

/// A stage file's text and the name its locations use.
struct StageText {
  std::string Text;
  std::string Name;
};

/// Checks that the PTX file refines the LLVM IR file of one kernel with
/// the given interface (parameter element types). Malformed input throws
/// ir::InputError; what a frontend does not model gives verdict Unknown
/// with the frontend's reason.
/// Two files of one stage (a mutant against its original: both PTX or both
/// LLVM IR), by the same per-thread machinery, bit-exact, with no
/// relaxation: proved means they have the same effects.
PairResult checkSameThreadStage(ir::Context &C, ThreadStage Stage,
                                const StageText &Source,
                                const StageText &Target,
                                const ir::KernelInterface &Interface,
                                const CheckOptions &O);

PairResult checkLlirToPtx(ir::Context &C, const std::string &LlirPath,
                          const std::string &PtxPath,
                          const ir::KernelInterface &Interface,
                          const LlirToPtxOptions &O);

/// The same for texts held in memory (tests, mutants).
PairResult checkLlirToPtx(ir::Context &C, const StageText &Llir,
                          const StageText &Ptx,
                          const ir::KernelInterface &Interface,
                          const LlirToPtxOptions &O);

/// Exchange N of both sides proved alike (under the assumptions, wherever
/// the LLVM IR is defined): the PTX nodes that may then be replaced by the
/// LLVM IR's in every later query, which conjoins both conditions. The
/// guard always; the operands only of an exchange whose guard is true (a
/// conditional exchange's operands are equal only where it happens), and
/// through bitcasts (equal bits of a bitcast are equal bits of what it
/// casts). Constants are never keys.
std::unordered_map<const ir::Expr *, const ir::Expr *>
exchangeReplacements(const ptx::Exchange &Source, const ptx::Exchange &Target);

} // namespace stagecheck::stages

#endif

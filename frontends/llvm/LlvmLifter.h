//===- LlvmLifter.h - LLVM IR lifted to one thread's effects ----*- C++ -*-===//
//
// Reads the .llir Triton 3.6 writes (with the LLVM 22 C++ API) and lifts its
// kernel, for one thread with symbolic ids, into ThreadEffects
// (ptx_lifter/ThreadModel.h), the same model the PTX lifter lifts into:
//  - sregs (llvm.nvvm.read.ptx.sreg.*) are the model's symbols;
//  - llvm.* and llvm.nvvm.* intrinsics map to IR ops or named functions
//    (ex2.approx.ftz.f -> the named function the PTX lifter uses for
//    ex2.approx.ftz.f32), __nvvm_reflect("__CUDA_FTZ") to the module's
//    nvvm-reflect-ftz flag;
//  - inline asm is lifted by ptx::liftInlineAsm;
//  - loads/stores/atomics through the model (address spaces 1 and 3),
//    shuffles and barriers as its exchanges;
//  - poison is tracked next to each value (nsw/nuw/exact/disjoint flags,
//    poison constants, shifts past the width, fptosi out of range), as
//    Alive2 pairs a value with its non-poison condition; `freeze` of poison
//    is a fresh value; a store of poison is a write with Defined false; a
//    branch on poison or an access at a poison address is undefined.
//  - Control flow is merged by path condition (phi -> select); loops as in
//    ptx_lifter/PtxLifter.h (unrolled while the exit folds, else to a
//    stated bound).
// Fast-math flags are recorded (contract, afn...) for the checker's
// relaxations, see LlvmLift::Contractible.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_LLVM_LLVMLIFTER_H
#define STAGECHECK_FRONTENDS_LLVM_LLVMLIFTER_H

#include "ptx_lifter/ThreadModel.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace stagecheck::llvmir {

struct LlvmLiftOptions {
  /// The kernel to lift; empty means the only ptx_kernel in the module.
  std::string Kernel;
  uint64_t MaxUnroll = 1024;
  unsigned LoopBound = 4;
};

/// Where an expression node was first made: the LLVM instruction (as
/// printed, truncated) and its line in the .llir file.
struct LlvmSite {
  std::string Instruction; // "fadd", "call @llvm.nvvm.shfl.sync.bfly.i32"
  unsigned LlirLine = 0;
  ir::SourceLocation Source; // from !dbg
};

struct LlvmLift {
  ptx::ThreadEffects Thread;
  std::unordered_map<const ir::Expr *, LlvmSite> Provenance;
  /// Per write / exchange / undefined behaviour / atomic, in order, the
  /// .llir line of the instruction that made it.
  std::vector<unsigned> WriteLines, ExchangeLines, UndefinedLines, AtomicLines;
  /// FAdd/FSub nodes with an FMul operand whose LLVM instructions carry the
  /// `contract` flag: a lowering may fuse them into one fma.
  std::unordered_set<const ir::Expr *> Contractible;
};

/// Reads and lifts a .llir file. A file that does not parse throws
/// ir::InputError with file:line:column (LLVM's own diagnostic); an
/// instruction or intrinsic that is not modelled throws
/// ir::UnsupportedError("unsupported instruction NAME", file:line).
LlvmLift liftLlvmFile(ir::Context &C, const std::string &Path,
                      const ir::KernelInterface &Interface,
                      const LlvmLiftOptions &O = {});
LlvmLift liftLlvmText(ir::Context &C, std::string_view Text,
                      const std::string &FileName,
                      const ir::KernelInterface &Interface,
                      const LlvmLiftOptions &O = {});

/// The kernel's interface as far as the LLVM IR shows it, for a pair
/// checked without a bundle: parameter K is a pointer when its LLVM type is
/// a pointer, with the element type of the getelementptrs that index it
/// (i8 when none or several); scalars get their LLVM type. The trailing
/// scratch pointers count as parameters.
ir::KernelInterface inferInterface(const std::string &Path,
                                   const std::string &Kernel = {});

} // namespace stagecheck::llvmir

#endif

//===- LlvmLifter.h - LLVM IR lifted to one thread's effects ----*- C++ -*-===//
//
// Reads the .llir Triton 3.6 writes (with the LLVM 22 C++ API) and lifts its
// kernel, for one thread with symbolic ids, into ThreadEffects
// (ptx_lifter/ThreadModel.h), the same model the PTX lifter lifts into:
//  - sregs (llvm.nvvm.read.ptx.sreg.*) are the model's symbols; the block
//    size is the "nvvm.reqntid" attribute (or !nvvm.annotations);
//  - llvm.* and llvm.nvvm.* intrinsics map to IR ops or named functions,
//    the nvvm ones through the PTX builders of ptx_lifter/Semantics.h and
//    Collective.h (llvm.nvvm.ex2.approx.ftz.f is what the PTX lifter makes
//    of ex2.approx.ftz.f32);
//  - __nvvm_reflect answers as LLVM 22's NVVMReflect pass does:
//    "__CUDA_FTZ" is the module flag nvvm-reflect-ftz (0 when absent),
//    "__CUDA_ARCH" the target (LlvmLiftOptions::Capability, else the
//    kernel's target-cpu), "__CUDA_PREC_SQRT" 0; anything else is
//    unsupported;
//  - inline asm is lifted by ptx::liftInlineAsm into the same model, under
//    the calling block's path condition; pointers are passed as their
//    addresses (i64 global, i32 shared), vectors as their lanes' bits;
//  - values are lanes (a vector <N x T> is N scalars, a struct its
//    fields); pointers are integer addresses of their address space's
//    width; getelementptr offsets come from the module's DataLayout;
//  - loads/stores/atomics go through the model (address spaces 0, 1 and
//    3), shuffles, barriers, cp.async groups and ldmatrix/stmatrix are its
//    exchanges;
//  - poison is tracked next to each value (nsw/nuw/exact/disjoint/samesign/
//    nneg flags, getelementptr nusw/nuw, nnan/ninf, poison constants, shifts
//    past the width, fptosi out of range), as Alive2 pairs a value with its
//    non-poison condition; `freeze` of poison is an unknown of the thread,
//    "uninit.freeze.<line>.<k>" (its k-th lane lifted at that .llir line,
//    loop iterations included; the function's name for a line in bitcode); a
//    store of poison is a write with Defined false; a branch on poison, an
//    access at a poison address, division by zero and a failed llvm.assume are
//    undefined behaviour.
//  - Control flow is merged by path condition (phi -> select, a join takes
//    its dominator's condition); a loop is unrolled while its back edge
//    folds (up to MaxUnroll iterations), else to LoopBound iterations with
//    the assumption that it has exited by then, stated in Bounds.
//  - a device function (a function that is not a kernel, named in
//    LlvmLiftOptions::Kernel) is lifted as a thread that takes its
//    parameters as symbols and writes what it returns to the pseudo
//    buffers "func_retval0[.K]", one per lane; a vector or aggregate
//    parameter up to 64 bits is one integer symbol of its bytes.
// Fast-math flags are recorded (LlvmLift::FastMath) for the checker's
// relaxations, and fusable pairs in LlvmLift::Contractible.
//
// Lines: LLVM's parser records where each instruction it reads starts
// (llvm::AsmParserContext); an instruction it replaced while reading (an
// intrinsic call upgraded to its current name) takes the next line after
// its predecessor's that starts an instruction.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_LLVM_LLVMLIFTER_H
#define STAGECHECK_FRONTENDS_LLVM_LLVMLIFTER_H

#include "ptx_lifter/ThreadModel.h"

#include <array>
#include <memory>
#include <optional>
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
  /// The target's compute capability (90 for sm_90), which
  /// __nvvm_reflect("__CUDA_ARCH") answers; 0 takes it from the kernel's
  /// "target-cpu" attribute.
  unsigned Capability = 0;
  /// The kernel was compiled with fp fusion on (Triton's enable_fp_fusion:
  /// NVPTX fuses any fmul into an fadd/fsub), so every FAdd/FSub of an
  /// FMul is contractible, not only those the IR marks `contract`.
  bool FpFusion = false;
  /// Lift the thread with this id (tid.x, tid.y, tid.z) rather than a
  /// symbolic one: lanes, shared offsets and register indices fold.
  std::optional<std::array<unsigned, 3>> ThreadId;
  /// Prepended to the names of exchange results ("t5." gives
  /// "t5.xchg.3.0"; ptx::ThreadModel::setExchangePrefix).
  std::string ExchangePrefix;
};

/// LLVM's fast-math flags on the instruction that made a float node.
struct FastMathFlags {
  bool Reassoc = false, NoNaNs = false, NoInfs = false, NoSignedZeros = false,
       AllowReciprocal = false, AllowContract = false, ApproxFunc = false;
  bool any() const {
    return Reassoc || NoNaNs || NoInfs || NoSignedZeros || AllowReciprocal ||
           AllowContract || ApproxFunc;
  }
};

/// Where an expression node was first made: the LLVM instruction and its
/// line in the .llir file.
struct LlvmSite {
  /// "fadd", "call @llvm.nvvm.shfl.sync.bfly.i32", or for inline asm the
  /// PTX instruction its template runs ("asm ld.global.b32").
  std::string Instruction;
  unsigned LlirLine = 0;
  /// From !dbg: in inlined code, the innermost position in the kernel's
  /// own file, else the outermost call site; the DIFile's file name.
  ir::SourceLocation Source;
};

struct LlvmLift {
  ptx::ThreadEffects Thread;
  std::unordered_map<const ir::Expr *, LlvmSite> Provenance;
  /// Per write / exchange / undefined behaviour / atomic / global read, in
  /// order, the .llir line of the instruction that made it.
  std::vector<unsigned> WriteLines, ExchangeLines, UndefinedLines, AtomicLines,
      GlobalReadLines;
  /// FAdd/FSub nodes with an FMul operand whose LLVM instructions (the add
  /// and the mul) carry the `contract` flag, from llvm.fmuladd, or any
  /// such pair under LlvmLiftOptions::FpFusion: a lowering may fuse them
  /// into one fma.
  std::unordered_set<const ir::Expr *> Contractible;
  /// The fast-math flags of the instruction that made each float result
  /// (nnan and ninf are also lifted as poison conditions).
  std::unordered_map<const ir::Expr *, FastMathFlags> FastMath;
  /// A function that returns a value (liftFunction): its lanes and their
  /// definedness, merged over the paths that return.
  std::vector<const ir::Expr *> ReturnValue, ReturnDefined;
  /// A device function (a function that is not a kernel, lifted by naming
  /// it in LlvmLiftOptions::Kernel): what it returns is also written, lane
  /// by lane, to the pseudo buffers "func_retval0[.K]"
  /// (ptx::ThreadModel::returnValue); these are each lane's byte offset in
  /// the return value's memory layout and its type, and per parameter its
  /// zeroext ('z') / signext ('s') mark (0 for none). Empty for kernels.
  std::vector<std::pair<unsigned, ir::Type>> ReturnLanes;
  std::vector<char> ParamExtension;
  bool IsDeviceFunction = false;
};

/// Reads and lifts a .llir file. A file that does not parse throws
/// ir::InputError with file:line:column (LLVM's own diagnostic), one the
/// verifier rejects or without its kernel an ir::InputError naming the
/// file; an instruction or intrinsic that is not modelled throws
/// ir::UnsupportedError("unsupported instruction NAME", file:line), e.g.
/// "unsupported instruction call @llvm.nvvm.read.ptx.sreg.clock".
LlvmLift liftLlvmFile(ir::Context &C, const std::string &Path,
                      const ir::KernelInterface &Interface,
                      const LlvmLiftOptions &O = {});
LlvmLift liftLlvmText(ir::Context &C, std::string_view Text,
                      const std::string &FileName,
                      const ir::KernelInterface &Interface,
                      const LlvmLiftOptions &O = {});

/// A module read once and lifted many times (one thread of a CTA after
/// another): parsing is the costly part of a lift.
class LlvmModule {
public:
  /// Throws as liftLlvmFile does.
  static std::unique_ptr<LlvmModule> readFile(const std::string &Path);
  static std::unique_ptr<LlvmModule> fromText(std::string Text,
                                              const std::string &FileName);
  ~LlvmModule();
  LlvmLift lift(ir::Context &C, const ir::KernelInterface &Interface,
                const LlvmLiftOptions &O = {}) const;
  /// The kernel's required block size (x, y, z), {0,0,0} when it has none.
  std::array<unsigned, 3> blockSize(const std::string &Kernel = {}) const;

private:
  struct Impl;
  explicit LlvmModule(std::unique_ptr<Impl> P);
  std::unique_ptr<Impl> P;
};

/// A function of scalars lifted to what it returns: libdevice's __nv_expf
/// as an expression over its parameter symbols.
struct FunctionBody {
  /// One symbol per parameter ("<function>.p0", ...), in order.
  std::vector<const ir::Expr *> Params;
  const ir::Expr *Result = nullptr;
  const ir::Expr *Defined = nullptr; // i1: the result is not poison
  /// Undefined behaviour the body can reach (a failed llvm.assume...).
  std::vector<ir::UndefinedBehavior> Undefined;
};

/// A library of device functions (libdevice.10.bc, or LLVM IR text), read
/// once. __nvvm_reflect answers as LLVM 22's NVVMReflect pass does for the
/// kernel that links the library: "__CUDA_FTZ" is ReflectFtz (the
/// kernel's nvvm-reflect-ftz module flag), "__CUDA_ARCH" SmVersion * 10.
class LlvmLibrary {
public:
  /// Bitcode or text; throws ir::InputError when the file cannot be read.
  static std::unique_ptr<LlvmLibrary> open(const std::string &Path);
  ~LlvmLibrary();
  bool defines(const std::string &Function) const;
  /// Lifts Function, whose parameters and result are scalars, with control
  /// flow merged and loops unrolled as in a kernel. A body that touches
  /// memory, communicates, or uses an instruction that is not modelled is
  /// ir::UnsupportedError.
  FunctionBody lift(ir::Context &C, const std::string &Function,
                    int ReflectFtz, unsigned SmVersion) const;

private:
  struct Impl;
  explicit LlvmLibrary(std::unique_ptr<Impl> P);
  std::unique_ptr<Impl> P;
};

/// The functions a module defines, in order (kernels and device
/// functions; declarations and intrinsics excluded), and whether each is a
/// kernel. Throws as liftLlvmFile does.
std::vector<std::pair<std::string, bool>>
definedFunctions(const std::string &Path);

/// The nvvm-reflect-ftz module flag of a .llir file (0 when absent).
int reflectFtzOf(const std::string &LlirPath);

/// The kernel's interface as far as the LLVM IR shows it, for a pair
/// checked without a bundle: parameter K is a pointer when its LLVM type is
/// a pointer, with the element type of the getelementptrs that index it
/// (i8 when none or several; i8 getelementptrs, LLVM's folded byte
/// offsets, do not count against another type); scalars get their LLVM
/// type; a vector or aggregate (a device function's) up to 64 bits is the
/// integer of its bytes. The trailing scratch pointers count as parameters.
ir::KernelInterface inferInterface(const std::string &Path,
                                   const std::string &Kernel = {});

} // namespace stagecheck::llvmir

#endif

//===- ttgir_to_llir.h - Does the LLVM IR mean what the TTGIR means? -*- C++ -*-===//
//
// TTGIR speaks of tensor elements, LLVM IR of one thread and its registers.
// The pair is checked at the level of one CTA, with concrete thread ids and
// symbolic program ids, parameters and data:
//
//  1. The TTGIR is lifted as Triton's lowering computes it where that is not
//     a plain equality (frontends/ttir/LiftLowering.cpp: the reduction tree
//     order for the operand's layout, math.exp as ex2.approx, arith.divf as
//     div.full, math.sqrt and math.log as libdevice calls, an MMAv2 tt.dot
//     as one mma.sync m16n8k16 per 16-wide k slice, in order), and its
//     libdevice calls take the meaning of their bodies in libdevice.10.bc
//     (stages/Libdevice.h). Each rule used is listed in
//     PairResult::Relaxations with the number of ops it was applied to.
//  2. The LLVM IR is lifted once per thread of the CTA (tid.x = 0..ntid-1),
//     and what each thread receives from the others (shuffles, shared
//     memory across barriers, ldmatrix / stmatrix, mma.sync) is resolved
//     over the CTA (stages/CtaModel.h). One output element of one mma.sync
//     is the same uninterpreted function on both sides
//     (ir::MmaM16N8K16F32F16): the hardware's inner arithmetic is not
//     specified, and equality under every interpretation is equality on
//     the hardware.
//  3. The CTA's global writes are compared with the TTGIR's element writes
//     (stages/Refinement.h, pairwise: each write of a thread with the
//     element it writes), bit-exact; the target may not be undefined where
//     the source is defined. Launch arithmetic the two stages spell
//     differently is first proved equal (stages/Unify.h).
//
// Loops with constant trip counts unroll on both sides. Others are checked
// for every trip count 0..LoopBound: the TTGIR per case, the LLVM IR
// unrolled to LoopBound iterations with the assumption that it exits by
// then; PairResult::Bound says so. A race on shared memory (two threads
// touching one byte in one phase, one writing) makes a proof `unknown`.
//
// A counterexample names the LLVM IR write that differs (its thread, .llir
// line and Python location) and the first instruction on its way whose
// value the TTGIR never computes.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_TTGIR_TO_LLIR_H
#define STAGECHECK_STAGES_TTGIR_TO_LLIR_H

#include "bundle/Manifest.h"
#include "frontends/ttir/Mlir.h"
#include "ir/Kernel.h"
#include "stages/Refinement.h"

#include <map>
#include <optional>
#include <string>

namespace stagecheck::stages {

struct TtgirToLlirOptions {
  CheckOptions Check;
  /// The target (90 for sm_90); 0 takes it from the kernel's target-cpu.
  unsigned Capability = 0;
  /// libdevice.10.bc; empty: LinkedLibdevice when that file exists here,
  /// else the build's (stages/Libdevice.h defaultLibdevice()). A kernel that
  /// needs it without one is unknown.
  std::string Libdevice;
  /// The libdevice the kernel was linked with (the metadata's
  /// extern_libs). When the one used differs, libdevice versions may
  /// disagree: a counterexample of a kernel that calls libdevice is then
  /// `unknown`, with the reason.
  std::string LinkedLibdevice;
  /// The kernel's interface; default: the TTGIR's own.
  std::optional<ir::KernelInterface> Interface;
  /// What each pointer parameter may reach ([Low, High) elements from where
  /// it points) and the launch those tensors belong to (its scalar
  /// arguments and grid, symbol = value). With both, the query "loads
  /// within the tensors" asks, at that launch, whether a global load of the
  /// LLVM IR reads outside where the TTGIR, its own loads bounded alike, is
  /// defined (an audit sets them from the bundle; two plain files leave
  /// loads unbounded).
  std::map<std::string, std::pair<int64_t, int64_t>> Reach;
  std::vector<std::pair<const ir::Expr *, const ir::Expr *>> Launch;
  /// Wall-clock limit of the whole check (every solver query stops at it,
  /// smt::SolverOptions::Deadline); reaching it gives `unknown`. 0: none.
  /// The command line's pair limit (--pair-time-limit-s) has the same
  /// default; the lower of the two applies.
  double TimeLimitSeconds = 300;
};

/// Checks that the LLVM IR file refines the TTGIR file. Malformed input
/// throws ir::InputError; what is not modelled gives Unknown with reason.
PairResult checkTtgirToLlir(ir::Context &C, const std::string &TtgirPath,
                            const std::string &LlirPath,
                            const TtgirToLlirOptions &O);

/// The same with the TTGIR parsed and the LLVM IR as text (tests, mutants).
PairResult checkTtgirToLlir(ir::Context &C, const ttir::Module &Ttgir,
                            const std::string &LlirText,
                            const std::string &LlirName,
                            const TtgirToLlirOptions &O);

/// Two LLVM IR files of one kernel (a mutant against its original), each
/// lifted as the threads of one CTA with their communication resolved, then
/// compared bit-exact, with no relaxation: proved means the CTAs have the
/// same effects, although single threads may differ (another lane writes
/// a warp's sum, a race whose value is never stored).
PairResult checkSameCta(ir::Context &C, const std::string &SourceText,
                        const std::string &SourceName,
                        const std::string &TargetText,
                        const std::string &TargetName,
                        const ir::KernelInterface &Interface,
                        const CheckOptions &O);

/// The options for a launch of a bundle: the manifest's interface and
/// target, the libdevice its metadata says the kernel was linked with.
TtgirToLlirOptions optionsForLaunch(const bundle::Manifest &M,
                                    const bundle::Launch &L,
                                    const CheckOptions &O);

/// A launch of a bundle: its .ttgir and .llir with optionsForLaunch().
PairResult checkTtgirToLlir(ir::Context &C, const bundle::Manifest &M,
                            const bundle::Launch &L, const CheckOptions &O);

/// The libdevice a kernel was linked with, from Triton's metadata
/// (extern_libs), or "".
std::string linkedLibdevice(const std::string &MetadataPath);

/// The version of what this checker proves (for verdict caches).
const char *ttgirToLlirVersion();

} // namespace stagecheck::stages

#endif

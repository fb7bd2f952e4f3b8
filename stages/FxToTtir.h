//===- FxToTtir.h - The reference against the kernels that implement it -*- C++
//-*-===//
//
// The FX <-> TTIR pair checks a whole program: the kernels and extern calls
// of a bundle, composed in launch order over the buffers they share, must
// compute the reference graph's outputs for every element. Named queries,
// in order; the first that fails decides:
//
//  1. "candidate memory": every launch instance (program ids over the grid,
//     each store family over its lanes) is enumerated with the manifest's
//     bindings; a store or load outside its tensor, a load of memory nothing
//     wrote before, or undefined behaviour of a kernel, is a counterexample
//     with the instance and the index.
//  2. "output elements written": every element of every reference output is
//     written (else a counterexample names the first unwritten index), and
//     no element is written twice with different values.
//  3. "values of OUT" (one per output): exact over the reals by default
//     (reductions may reassociate; conversions into f16/bf16 round). Element
//     queries identical up to renaming their input reads are one query.
//     When a difference shows over the reals, the tolerance question
//     follows: |ref - cand| <= rtol*|ref| + atol for all IEEE inputs,
//     computed with directed rounding so that a proof is a proof of the
//     exact bound. Proved: "proved within tolerance" with the bound; else a
//     counterexample, replayed through the interpreter, shows both values.
//  4. "range of OUT": can the kernel produce inf/NaN where the reference
//     stays finite? Searched by testing with extreme inputs; an input found
//     is a counterexample, none found is reported, not claimed as a proof.
//
// Scalar parameters of the model stay symbols (frontends/fx/Lift.h). A
// kernel's scalar argument named like a parameter is that parameter. For a
// torch.compile program (graph kind inductor-*), which is specialized on the
// captured values and guarded on them, the parameters are assumed equal to
// those values; for a launch script, which takes them as arguments, they
// are free.
//
// Kernels come in through a KernelLifter: the TTIR frontend, lifting a
// launch's .ttir into effects named by docs/lifting-conventions.md (argK,
// pid.x, nprog.x).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_FXTOTTIR_H
#define STAGECHECK_STAGES_FXTOTTIR_H

#include "bundle/Manifest.h"
#include "frontends/fx/Lift.h"
#include "stages/Refinement.h"

#include <functional>

namespace stagecheck::stages {

/// Lifts the kernel of one launch into effects (argK, pid.x, nprog.x).
using KernelLifter = std::function<ir::Effects(
    ir::Context &, const bundle::Launch &, const ir::KernelInterface &)>;

struct FxToTtirOptions {
  CheckOptions Check; // Check.Arithmetic: the value queries' arithmetic
  /// Tolerance; 0 means 4 ulp of the output dtype at 1.0 for both.
  double Rtol = 0, Atol = 0;
  /// Launch instances and output elements enumerated at most.
  uint64_t MaxInstances = 1 << 18;
  /// Inputs tried by the range question.
  unsigned RangeTrials = 512;
  /// The testing the range question may do per output, as milliseconds
  /// of interpreting (testingWork): the same trials on any machine load.
  unsigned RangeMs = 3000;
};

/// The buffer each tensor of a bundle lives in: tensors that share memory
/// (alias_of) share one buffer, named after the group's output tensor (else
/// input, else the first name).
std::map<std::string, std::string> bufferNames(const bundle::Manifest &M);

/// The reference graph of a bundle lifted with its bindings: inputs read
/// their tensors' buffers through their strides, outputs write theirs.
fx::LiftedGraph liftReference(ir::Context &C, const bundle::Manifest &M);

/// The tolerance used for an output of dtype D under O.
void toleranceFor(const FxToTtirOptions &O, ir::Type D, double &Rtol,
                  double &Atol);

PairResult checkFxToTtir(ir::Context &C, const bundle::Manifest &M,
                         const KernelLifter &Lift, const FxToTtirOptions &O);

/// Makes the pair available to audit() with the given kernel lifter (the
/// TTIR frontend's), over the reals.
void registerFxToTtirChecker(KernelLifter Lift);

} // namespace stagecheck::stages

#endif

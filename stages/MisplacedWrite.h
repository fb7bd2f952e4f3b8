//===- MisplacedWrite.h - Which instruction sends a thread astray -*- C++ -*-===//
//
// When an element of the TTGIR is written by no thread of the LLVM IR, the
// usual cause is a thread that writes another thread's element instead
// (an off-by-one in the thread -> element arithmetic). With the thread id
// fixed that arithmetic folds to constants, so the instruction at fault
// leaves no trace in the CTA's lift. It is found on a second lift with a
// symbolic thread id: the two threads' addresses are equal at the root;
// walking down through the nodes where they are still equal, the nodes
// that make them equal from operands that differ are where the threads
// meet (an `and i32 %tid, 126` that maps threads 0 and 1 to one element).
// Each is named with its .llir line and Python location.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_MISPLACEDWRITE_H
#define STAGECHECK_STAGES_MISPLACEDWRITE_H

#include "frontends/llvm/LlvmLifter.h"
#include "ir/Interpreter.h"
#include "ir/Kernel.h"
#include "stages/CtaModel.h"

#include <string>
#include <vector>

namespace stagecheck::stages {

struct MisplacedWriteQuery {
  const std::string &LlirText, &LlirName;
  const ir::KernelInterface &Interface;
  /// As the CTA was lifted, without the thread id.
  llvmir::LlvmLiftOptions Lift;
  const CtaEffects &Cta;
  std::string Buffer;
  ir::Env Inputs; // the counterexample's
};

/// Notes naming two threads that write one element of Buffer on Inputs and
/// the instructions where their addresses meet; empty when no two threads
/// do (or the lift with a symbolic thread id does not show it).
std::vector<std::string> misplacedWriteNotes(ir::Context &C,
                                             const MisplacedWriteQuery &Q);

} // namespace stagecheck::stages

#endif

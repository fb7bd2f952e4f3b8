//===- LlirMutants.h - Mutations of real LLVM IR text ------------*- C++ -*-===//
//
// One-instruction mutations of a Triton LLVM IR file, the kind of bug the
// TTGIR -> LLVM IR lowering could introduce. Each keeps every other line
// where it was and yields the line a report must name.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TESTS_LLIRMUTANTS_H
#define STAGECHECK_TESTS_LLIRMUTANTS_H

#include <optional>
#include <string>

namespace stagecheck::test {

enum class LlirMutation {
  ShuffleLane,   // shfl.sync's lane offset (or source lane) halved
  DropBarrier,   // a barrier call removed; names the shared load after it
  SharedIndex,   // a shared-memory load's address one element on
  ThreadElement, // the mask of tid -> element (and i32 %tid, K) minus one
  AsmStoreLane,  // the first two registers of an inline-asm st.global.v2/v4
  ReduxOperation, // a warp reduction's operation: or <-> and, min <-> max
};

const char *spelling(LlirMutation M);

struct LlirMutant {
  std::string Text; // the whole mutated file
  unsigned Line;    // 1-based: the line a counterexample must name
};

/// M applied at the first line where it applies.
std::optional<LlirMutant> mutateLlir(const std::string &Text, LlirMutation M);

} // namespace stagecheck::test

#endif

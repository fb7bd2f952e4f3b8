//===- Kernel.h - The interface of a kernel across stages -------*- C++ -*-===//
//
// What every stage of one kernel agrees on: its parameters, in TTIR order,
// with the element type of each pointer. LLVM IR and PTX do not record
// element types; they receive them from here (see docs/lifting-conventions.md).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_KERNEL_H
#define STAGECHECK_IR_KERNEL_H

#include "ir/Type.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stagecheck::ir {

class Context;
class Expr;

struct KernelParam {
  std::string Name;   // "arg0", "arg1", ... (docs/lifting-conventions.md)
  bool IsPointer = false;
  Type Element = Type::f32(); // pointee type for pointers, else the scalar type
};

struct KernelInterface {
  std::string Kernel; // the kernel's name
  std::vector<KernelParam> Params;
};

inline std::string paramName(unsigned Position) {
  return "arg" + std::to_string(Position);
}

/// CUDA's largest grid: gridDim.x up to 2^31 - 1, gridDim.y and .z up to
/// 65535. No launch goes past it, and Triton's LLVM IR says so as the range
/// of its ctaid reads, so a stage's meaning for a program id beyond it is
/// nobody's.
inline constexpr int64_t MaxPrograms[3] = {2147483647, 65535, 65535};

/// The program id and grid size of axis Dim (0, 1, 2: pid.x, nprog.x, ...).
const Expr *programIdSymbol(Context &C, unsigned Dim);
const Expr *numProgramsSymbol(Context &C, unsigned Dim);

/// What every launch meets along axis Dim: 1 <= nprog <= MaxPrograms[Dim];
/// with the program id, also 0 <= pid < nprog. Every lifter states its
/// launch through these, so two stages assume one node.
const Expr *numProgramsRange(Context &C, unsigned Dim);
const Expr *programIdRange(Context &C, unsigned Dim);

} // namespace stagecheck::ir

#endif

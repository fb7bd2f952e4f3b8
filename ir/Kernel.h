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

#include <string>
#include <vector>

namespace stagecheck::ir {

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

} // namespace stagecheck::ir

#endif

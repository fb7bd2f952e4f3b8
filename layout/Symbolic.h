//===- Symbolic.h - Layouts as expressions of the shared IR -----*- C++ -*-===//
//
// The layout functions as ir::Expr, for a thread id and a register index
// that are themselves expressions (symbols, or constants). This is what the
// TTGIR <-> LLVM IR check relates: TTGIR says "element e of this tensor is
// computed", the layout says which thread and register holds e, and the
// LLVM IR of that thread writes it. The expressions follow the LLVM
// lowering's arithmetic (Triton's applyLinearLayout):
//
//   lane = tid & (threadsPerWarp - 1)        warp = tid >> log2(threadsPerWarp)
//   dim_k = XOR over input bits b set in (register, lane, warp, block)
//           of basis_b[k]
//
// where a run of input bits whose bases are consecutive single bits of one
// dimension becomes one shift-and-mask ((x >> i) & mask) << j, and any
// other basis one select on its bit. Every expression is i32.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_LAYOUT_SYMBOLIC_H
#define STAGECHECK_LAYOUT_SYMBOLIC_H

#include "ir/Expr.h"
#include "layout/Layouts.h"

#include <map>
#include <span>
#include <string>
#include <vector>

namespace stagecheck::layout {

/// The inputs of a distributed layout as i32 expressions.
struct SymbolicHardwareIndex {
  const ir::Expr *Register = nullptr;
  const ir::Expr *Lane = nullptr;
  const ir::Expr *Warp = nullptr;
  const ir::Expr *Block = nullptr;
};

/// Lane and warp from a thread id (i32), as the lowering computes them.
/// Block defaults to the constant 0 (one CTA).
SymbolicHardwareIndex hardwareIndexOfThread(ir::Context &C,
                                            const ir::Expr *ThreadId,
                                            const ir::Expr *Register,
                                            int32_t ThreadsPerWarp,
                                            const ir::Expr *Block = nullptr);

/// L(inputs) with each input dimension given as an i32 expression (absent
/// ones are 0); one i32 expression per output dimension, in output order.
std::vector<const ir::Expr *>
applySymbolic(ir::Context &C, const LinearLayout &L,
              const std::map<std::string, const ir::Expr *> &Inputs);

/// The element index (one i32 per tensor dimension) that register Register
/// of thread ThreadId holds.
std::vector<const ir::Expr *> elementOfThread(ir::Context &C,
                                              const DistributedLayout &L,
                                              const ir::Expr *ThreadId,
                                              const ir::Expr *Register);

/// The offset (i32, in elements) at which a shared layout stores Element.
const ir::Expr *sharedOffset(ir::Context &C, const SharedLayout &L,
                             std::span<const ir::Expr *const> Element);

} // namespace stagecheck::layout

#endif

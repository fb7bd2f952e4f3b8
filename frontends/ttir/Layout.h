//===- Layout.h - TritonGPU encodings as data -------------------*- C++ -*-===//
//
// The `#ttg.*` encoding attributes of TTGIR tensor and memory-descriptor
// types, decoded into one small struct. The TTIR <-> TTGIR check only needs
// to know that an encoding is well formed (layouts change no value); the
// TTGIR <-> LLVM IR bridge reads the fields to map (warp, lane, register) to
// tensor indices.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_TTIR_LAYOUT_H
#define STAGECHECK_FRONTENDS_TTIR_LAYOUT_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stagecheck::ttir {

struct Layout;
using LayoutPtr = std::shared_ptr<const Layout>;

struct Layout {
  enum class Kind {
    Blocked,        // #ttg.blocked
    Slice,          // #ttg.slice
    NvidiaMma,      // #ttg.nvidia_mma
    DotOperand,     // #ttg.dot_op
    SwizzledShared, // #ttg.swizzled_shared
    NVMMAShared,    // #ttg.nvmma_shared
    SharedMemory,   // #ttg.shared_memory (a memory space, not a layout)
    Other,          // any other encoding: kept as text
  };
  Kind K = Kind::Other;
  std::string Name; // "ttg.blocked"
  std::string Text; // as written

  // Blocked (also warpsPerCTA of NvidiaMma), and the CTA fields every
  // distributed layout may carry.
  std::vector<unsigned> SizePerThread, ThreadsPerWarp, WarpsPerCTA, Order;
  std::vector<unsigned> CTAsPerCGA, CTASplitNum, CTAOrder;

  // Slice: the dimension removed from Parent. DotOperand: Parent is the mma.
  int Dim = 0;
  LayoutPtr Parent;

  // NvidiaMma.
  unsigned VersionMajor = 0, VersionMinor = 0;
  std::vector<unsigned> InstrShape;

  // DotOperand.
  unsigned OpIdx = 0, KWidth = 0;

  // SwizzledShared.
  unsigned Vec = 0, PerPhase = 0, MaxPhase = 0;

  // NVMMAShared.
  unsigned SwizzlingByteWidth = 0, ElementBitWidth = 0;
  bool Transposed = false, FP4Padded = false;

  bool isShared() const {
    return K == Kind::SwizzledShared || K == Kind::NVMMAShared;
  }
  bool isDistributed() const {
    return K == Kind::Blocked || K == Kind::Slice || K == Kind::NvidiaMma ||
           K == Kind::DotOperand;
  }
  /// The rank the layout describes, or 0 when it does not say.
  unsigned rank() const;
};

} // namespace stagecheck::ttir

#endif

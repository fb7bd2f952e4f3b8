//===- Layouts.h - The layout function of each TTGIR encoding ---*- C++ -*-===//
//
// toLinearLayout(encoding, shape) computes the linear layout Triton 3.6
// computes for a tensor of that shape (lib/Dialect/TritonGPU/IR/
// LinearLayoutConversions.cpp), step for step:
//
//  - blocked: registers, then lanes, then warps, each filling the dimensions
//    in `order` (minor first);
//  - nvidia_mma v2/v3: the mma tile (2 consecutive registers, 4 lanes along
//    the row, 8 lanes down, m/8 and n/8 register repeats), warps row-major
//    on Ampere and column-major on Hopper;
//  - dot_op of an mma: the same tile for the operand's shape, warps
//    broadcast along K;
//  - slice: the parent's layout for the shape with a 1 inserted at `dim`,
//    that dimension dropped, and register bases that became zero removed;
//  - swizzled_shared / nvmma_shared: offset -> element, with the XOR
//    swizzle of the two minor dimensions.
//
// Then the layout is fitted to the shape, as Triton's combineCtaCgaWithShape
// does: a shape larger than the layout's coverage adds register (or offset)
// bases, minor dimension first (register repetition); a smaller shape zeroes
// the largest bases first (broadcast: several threads hold one element).
//
// Only single-CTA layouts are modelled (CTAsPerCGA all 1): a multi-CTA
// encoding is ir::UnsupportedError. A shape the encoding cannot lay out
// (not a power of two, smaller than an nvmma_shared swizzle tile) is
// ir::InputError without a location: callers add theirs.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_LAYOUT_LAYOUTS_H
#define STAGECHECK_LAYOUT_LAYOUTS_H

#include "layout/Encoding.h"
#include "layout/LinearLayout.h"

#include <cstdint>
#include <vector>

namespace stagecheck::layout {

/// Distributed: (register, lane, warp, block) -> (dim0, ...).
/// Shared: (offset, block) -> (dim0, ...).
LinearLayout toLinearLayout(const Encoding &E,
                            const std::vector<int64_t> &Shape);

/// Where one register of one thread lives.
struct HardwareIndex {
  int32_t Register = 0, Lane = 0, Warp = 0, Block = 0;
  bool operator==(const HardwareIndex &O) const {
    return Register == O.Register && Lane == O.Lane && Warp == O.Warp &&
           Block == O.Block;
  }
  bool operator<(const HardwareIndex &O) const;
};

/// A distributed tensor: which element each register of each thread holds,
/// and which registers of which threads hold an element.
class DistributedLayout {
public:
  DistributedLayout(const Encoding &E, std::vector<int64_t> Shape);

  const LinearLayout &linear() const { return Linear; }
  const std::vector<int64_t> &shape() const { return Shape; }
  /// Registers per thread (broadcast registers included, as Triton counts).
  int32_t numRegisters() const { return int32_t(Linear.inDimSize(kRegister)); }
  int32_t threadsPerWarp() const { return int32_t(Linear.inDimSize(kLane)); }
  int32_t numWarps() const { return int32_t(Linear.inDimSize(kWarp)); }
  int32_t numThreads() const { return threadsPerWarp() * numWarps(); }

  std::vector<int64_t> element(const HardwareIndex &H) const;
  /// Thread id within the CTA = warp * threadsPerWarp + lane.
  std::vector<int64_t> elementOfThread(int64_t ThreadId,
                                       int32_t Register) const;
  /// Every (register, lane, warp, block) holding Element, sorted; more than
  /// one where the layout broadcasts, none outside the shape.
  std::vector<HardwareIndex> holders(const std::vector<int64_t> &Element) const;

private:
  std::vector<int64_t> Shape;
  LinearLayout Linear;
};

/// A tensor in shared memory: the element stored at each offset (in
/// elements from the start of the buffer) and the offset of each element.
class SharedLayout {
public:
  SharedLayout(const Encoding &E, std::vector<int64_t> Shape);

  /// offset -> element.
  const LinearLayout &linear() const { return Linear; }
  /// element -> offset (input dimensions dim0, dim1, ...).
  const LinearLayout &inverse() const { return Inverse; }
  const std::vector<int64_t> &shape() const { return Shape; }
  int64_t size() const { return Linear.inDimSize(kOffset); }

  int64_t offset(const std::vector<int64_t> &Element) const;
  std::vector<int64_t> element(int64_t Offset) const;

private:
  std::vector<int64_t> Shape;
  LinearLayout Linear;
  LinearLayout Inverse;
};

} // namespace stagecheck::layout

#endif

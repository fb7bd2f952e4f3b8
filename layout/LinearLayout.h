//===- LinearLayout.h - Layouts as linear maps over GF(2) -------*- C++ -*-===//
//
// Triton describes every layout as a linear map over GF(2): from named input
// dimensions (register, lane, warp, block for a distributed tensor; offset,
// block for shared memory) to named output dimensions (dim0, dim1, ...: the
// tensor index). Every dimension has a power-of-two size. Input bit i of
// dimension D selects basis D[i]; the image of an input is the XOR of the
// bases its set bits select:
//
//   L(register = 5, lane = 2) = register[0] ^ register[2] ^ lane[1]
//
// A basis of all zeros means broadcasting: flipping that input bit reaches
// the same element, so several (register, lane, warp) hold it.
//
// This is the same object as Triton's `LinearLayout` (include/triton/Tools/
// LinearLayout.h), with the operations its layout conversions use: identity
// and zero layouts, the product `*` (inner dimensions minor), transposition
// of the output dimensions, and evaluation in both directions.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_LAYOUT_LINEARLAYOUT_H
#define STAGECHECK_LAYOUT_LINEARLAYOUT_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace stagecheck::layout {

/// The standard names of input dimensions.
inline constexpr const char *kRegister = "register";
inline constexpr const char *kLane = "lane";
inline constexpr const char *kWarp = "warp";
inline constexpr const char *kBlock = "block";
inline constexpr const char *kOffset = "offset";

/// "dim0", "dim1", ...
std::string outDimName(unsigned D);
std::vector<std::string> standardOutDimNames(unsigned Rank);

class LinearLayout {
public:
  /// One value per output dimension, in the layout's output order.
  using Basis = std::vector<int32_t>;
  struct InDim {
    std::string Name;
    std::vector<Basis> Bases; // size of the dimension: 2^Bases.size()
  };
  struct OutDim {
    std::string Name;
    unsigned SizeLog2 = 0;
  };

  /// No input and no output dimensions: maps the empty input to nothing.
  LinearLayout() = default;
  /// Output sizes are the smallest powers of two that hold every basis.
  LinearLayout(std::vector<InDim> Ins, std::vector<std::string> OutNames);
  /// Explicit output sizes (may exceed what the bases reach).
  LinearLayout(std::vector<InDim> Ins, std::vector<OutDim> Outs);

  /// In -> Out, x -> x for 0 <= x < Size.
  static LinearLayout identity1D(int32_t Size, const std::string &In,
                                 const std::string &Out);
  /// In -> Out, x -> 0 for 0 <= x < Size; Out has size OutSize.
  static LinearLayout zeros1D(int32_t Size, const std::string &In,
                              const std::string &Out, int32_t OutSize = 1);

  /// The product (Triton's operator*): the input and output dimension lists
  /// are merged keeping both orders; a dimension in both gets Inner's bits
  /// low and Outer's high: (Inner * Outer)(a, b) = Inner(a) + Outer(b) * S,
  /// S being Inner's output size in each dimension.
  friend LinearLayout operator*(const LinearLayout &Inner,
                                const LinearLayout &Outer);
  LinearLayout &operator*=(const LinearLayout &Outer) {
    return *this = *this * Outer;
  }

  /// The same map with output dimensions in the order Names gives (a
  /// permutation of the current output dimensions).
  LinearLayout transposeOuts(const std::vector<std::string> &Names) const;

  const std::vector<InDim> &ins() const { return Ins; }
  const std::vector<OutDim> &outs() const { return Outs; }
  bool hasInDim(const std::string &Name) const { return inIndex(Name) >= 0; }
  bool hasOutDim(const std::string &Name) const { return outIndex(Name) >= 0; }
  /// -1 when absent.
  int inIndex(const std::string &Name) const;
  int outIndex(const std::string &Name) const;
  /// 0 (a size of 1) for an absent dimension.
  unsigned inDimSizeLog2(const std::string &Name) const;
  unsigned outDimSizeLog2(const std::string &Name) const;
  int64_t inDimSize(const std::string &Name) const {
    return int64_t(1) << inDimSizeLog2(Name);
  }
  int64_t outDimSize(const std::string &Name) const {
    return int64_t(1) << outDimSizeLog2(Name);
  }
  /// Bases of an input dimension (empty for an absent one).
  const std::vector<Basis> &bases(const std::string &Name) const;
  unsigned totalInBits() const;
  unsigned totalOutBits() const;

  /// The image of one input, given per input dimension (absent ones are 0),
  /// as one value per output dimension in output order.
  std::vector<int32_t> apply(const std::map<std::string, int32_t> &Input) const;

  /// Every input whose image is Out (per output dimension, in output
  /// order), each as one value per input dimension in input order; empty
  /// when Out is not in the image. Solved by Gaussian elimination: one
  /// solution plus the span of the kernel (the broadcast directions).
  std::vector<std::vector<int32_t>>
  preimage(const std::vector<int32_t> &Out) const;
  /// Dimension of the kernel: log2 of how many inputs share each image.
  unsigned kernelDimension() const;
  /// Input bits of dimension Name whose basis is zero (pure broadcasting).
  uint64_t freeVariableMask(const std::string &Name) const;
  /// Every output value is reached.
  bool isSurjective() const;
  /// No two inputs reach the same output.
  bool isInjective() const { return kernelDimension() == 0; }

  /// The inverse of a bijective layout with one input dimension (a shared
  /// layout: offset -> element): element -> offset, as a layout whose input
  /// dimensions are this layout's output dimensions. Asserts bijectivity.
  LinearLayout invert() const;

  bool operator==(const LinearLayout &O) const;
  bool operator!=(const LinearLayout &O) const { return !(*this == O); }
  /// " - register: [[0, 1], [8, 0]] ... where out dims: [dim0 (16), ...]"
  std::string str() const;

private:
  std::vector<InDim> Ins;
  std::vector<OutDim> Outs;

  /// Each input bit's image as one word: output dimension k occupies the
  /// bits above those of dimensions 0..k-1.
  std::vector<uint64_t> flatColumns() const;
  uint64_t flattenOut(const std::vector<int32_t> &Out) const;
  void checkInvariants() const;
};

} // namespace stagecheck::layout

#endif

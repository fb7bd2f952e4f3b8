//===- Encoding.h - TTGIR layout encodings as data --------------*- C++ -*-===//
//
// The `#ttg.*` encoding attributes that TTGIR attaches to tensor and memory
// descriptor types, decoded, and a parser for their text exactly as
// Triton 3.6 prints it:
//
//   #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32],
//                 warpsPerCTA = [2, 1], order = [1, 0]}>
//   #ttg.slice<{dim = 1, parent = #blocked}>
//   #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2],
//                    instrShape = [16, 8]}>
//   #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
//   #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
//   #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false,
//                      elementBitWidth = 16}>
//
// Aliases (`#blocked`) are resolved by the caller, who knows the module's
// alias table (parseAliasDefinitions reads one). Every field a layout needs
// is checked here (ranks agree, sizes are powers of two, order is a
// permutation), so the layout functions can assume a well-formed encoding.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_LAYOUT_ENCODING_H
#define STAGECHECK_LAYOUT_ENCODING_H

#include "ir/Effects.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace stagecheck::layout {

class Encoding;
using EncodingPtr = std::shared_ptr<const Encoding>;

/// How CTAs of a cluster split the tensor (printed only when not trivial).
struct CTALayout {
  std::vector<unsigned> CTAsPerCGA, CTASplitNum, CTAOrder;
  bool isTrivial() const;
};

struct BlockedEncoding {
  std::vector<unsigned> SizePerThread, ThreadsPerWarp, WarpsPerCTA, Order;
  std::optional<CTALayout> CTA;
};

struct SliceEncoding {
  unsigned Dim = 0;
  EncodingPtr Parent;
};

struct NvidiaMmaEncoding {
  unsigned VersionMajor = 0, VersionMinor = 0;
  std::vector<unsigned> WarpsPerCTA;
  /// v2: [M, N] (rank 2) or [1, M, N]; v3: [M, N, K].
  std::vector<unsigned> InstrShape;
  std::optional<CTALayout> CTA;
  bool isAmpere() const { return VersionMajor == 2; }
  bool isHopper() const { return VersionMajor == 3; }
};

struct DotOperandEncoding {
  unsigned OpIdx = 0;
  EncodingPtr Parent;
  unsigned KWidth = 0;
};

struct SwizzledSharedEncoding {
  unsigned Vec = 1, PerPhase = 1, MaxPhase = 1;
  std::vector<unsigned> Order;
  std::optional<CTALayout> CTA;
};

struct NVMMASharedEncoding {
  unsigned SwizzlingByteWidth = 0;
  bool Transposed = false;
  unsigned ElementBitWidth = 16;
  bool FP4Padded = false;
  std::optional<CTALayout> CTA;
  // What Triton derives from the swizzle width (one 16-byte vector per
  // swizzle unit; 128 B: perPhase 1, maxPhase 8; 64 B: 2, 4; 32 B: 4, 2).
  unsigned vec() const;
  unsigned perPhase() const;
  unsigned maxPhase() const;
};

class Encoding {
public:
  enum class Kind {
    Blocked,
    Slice,
    NvidiaMma,
    DotOperand,
    SwizzledShared,
    NVMMAShared
  };
  using Variant = std::variant<BlockedEncoding, SliceEncoding,
                               NvidiaMmaEncoding, DotOperandEncoding,
                               SwizzledSharedEncoding, NVMMASharedEncoding>;

  explicit Encoding(Variant V) : Data(std::move(V)) {}

  Kind kind() const { return Kind(Data.index()); }
  bool isDistributed() const {
    return kind() != Kind::SwizzledShared && kind() != Kind::NVMMAShared;
  }
  bool isShared() const { return !isDistributed(); }
  /// The rank the encoding describes; an nvmma_shared encoding does not say
  /// (it applies to the shape it is given).
  std::optional<unsigned> rank() const;
  /// Threads per warp (32 for NVIDIA MMA layouts).
  unsigned threadsPerWarp() const;
  /// Warps of the CTA the layout spreads over.
  unsigned warpsPerCTA() const;

  const BlockedEncoding &blocked() const { return std::get<0>(Data); }
  const SliceEncoding &slice() const { return std::get<1>(Data); }
  const NvidiaMmaEncoding &mma() const { return std::get<2>(Data); }
  const DotOperandEncoding &dotOperand() const { return std::get<3>(Data); }
  const SwizzledSharedEncoding &swizzledShared() const {
    return std::get<4>(Data);
  }
  const NVMMASharedEncoding &nvmmaShared() const { return std::get<5>(Data); }

  /// The attribute as Triton prints it, parents inlined
  /// ("#ttg.slice<{dim = 1, parent = #ttg.blocked<{...}>}>").
  std::string str() const;

private:
  Variant Data;
};

/// An alias definition's text and where it starts in its file.
struct AliasText {
  std::string Text;
  ir::SourceLocation Where;
};
/// Looks up `#Name` (without '#'); nullopt when the name is unknown.
using AliasResolver =
    std::function<std::optional<AliasText>(std::string_view Name)>;

/// Parses one encoding attribute. `Where` is the location of Text's first
/// character; errors are ir::InputError at the offending character
/// (file:line:column; Text is expected on one line, as Triton prints it).
EncodingPtr parseEncoding(std::string_view Text, const AliasResolver &Aliases,
                          const ir::SourceLocation &Where);

/// The `#name = #ttg.…` lines of a TTGIR module (locations, `#smem` and
/// other non-layout aliases are kept as text too; they fail only if used).
std::map<std::string, AliasText>
parseAliasDefinitions(std::string_view ModuleText, const std::string &File);

/// A resolver over such a table.
AliasResolver resolverFor(const std::map<std::string, AliasText> &Table);

/// The part of a memdesc shape a shared encoding lays out: leading
/// dimensions beyond the encoding's rank index buffers (multi-buffering),
/// so they are dropped; an nvmma_shared encoding covers the last two.
std::vector<int64_t> layoutShapeOfMemDesc(const Encoding &E,
                                          const std::vector<int64_t> &Shape);

} // namespace stagecheck::layout

#endif

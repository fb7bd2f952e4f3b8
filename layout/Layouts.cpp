#include "layout/Layouts.h"

#include "ir/Errors.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <tuple>

namespace stagecheck::layout {

namespace {

using Shape = std::vector<int64_t>;
using Order = std::vector<unsigned>;

[[noreturn]] void badShape(const Encoding &E, const Shape &S,
                           const std::string &Why) {
  std::string Text = "[";
  for (unsigned I = 0; I < S.size(); ++I)
    Text += (I ? ", " : "") + std::to_string(S[I]);
  throw ir::InputError({}, "shape " + Text + "] cannot be laid out by " +
                               E.str() + ": " + Why);
}

/// Triton's getMatrixOrder: [rank-1, rank-2, ..., 0], the two minor
/// dimensions swapped when not row-major (batch dimensions slowest).
Order matrixOrder(unsigned Rank, bool RowMajor) {
  Order O(Rank);
  for (unsigned I = 0; I < Rank; ++I)
    O[I] = Rank - 1 - I;
  if (!RowMajor)
    std::swap(O[0], O[1]);
  return O;
}

/// Triton's getOrderForDotOperand with kContig: K is the fastest dimension.
Order dotOperandOrder(unsigned OpIdx, unsigned Rank) {
  return matrixOrder(Rank, /*RowMajor=*/OpIdx == 0);
}

LinearLayout identityStandardND(const std::string &In,
                                const std::vector<unsigned> &Sizes,
                                const Order &O) {
  LinearLayout L;
  for (unsigned Dim : O)
    L *= LinearLayout::identity1D(Sizes[Dim], In, outDimName(Dim));
  return L;
}

std::vector<std::string> names(const LinearLayout &L) {
  std::vector<std::string> N;
  for (const auto &D : L.outs())
    N.push_back(D.Name);
  return N;
}

/// Adds bases to the first input dimension (register or offset) until every
/// output dimension is at least as large as the shape, visiting the output
/// dimensions in the order given (Triton: the layout's own, minor first).
LinearLayout ensureNotSmaller(LinearLayout L, const Shape &S,
                              const std::vector<std::string> &Visit) {
  assert(!L.ins().empty());
  std::string In = L.ins().front().Name;
  for (const std::string &Name : Visit) {
    unsigned D = std::stoi(Name.substr(3));
    int64_t Actual = L.outDimSize(Name), Desired = S[D];
    if (Actual < Desired)
      L *= LinearLayout::identity1D(int32_t(Desired / Actual), In, Name);
  }
  return L;
}

/// Zeroes bases, largest image first, until no output dimension is larger
/// than the shape (the extra hardware indices broadcast).
LinearLayout ensureNotLarger(const LinearLayout &L, const Shape &S) {
  std::vector<LinearLayout::InDim> Ins = L.ins();
  for (unsigned K = 0; K < L.outs().size(); ++K) {
    const auto &Out = L.outs()[K];
    unsigned D = std::stoi(Out.Name.substr(3));
    int64_t Actual = int64_t(1) << Out.SizeLog2, Desired = S[D];
    if (Actual <= Desired)
      continue;
    struct Ref {
      unsigned In, Bit;
      int32_t Value;
    };
    std::vector<Ref> Refs;
    for (unsigned I = 0; I < Ins.size(); ++I)
      for (unsigned B = 0; B < Ins[I].Bases.size(); ++B)
        if (int32_t V = Ins[I].Bases[B][K])
          Refs.push_back({I, B, V});
    std::stable_sort(Refs.begin(), Refs.end(), [](const Ref &A, const Ref &B) {
      return A.Value > B.Value;
    });
    for (const Ref &R : Refs) {
      if (Actual <= Desired)
        break;
      Ins[R.In].Bases[R.Bit][K] = 0;
      Actual >>= 1;
    }
  }
  return LinearLayout(std::move(Ins), names(L));
}

void requireSingleCTA(const Encoding &E, const std::optional<CTALayout> &C) {
  if (C && !C->isTrivial())
    throw ir::UnsupportedError(
        {}, "multi-CTA layout " + E.str() +
                " (CTAsPerCGA other than 1 is not modelled)");
}

/// Triton's combineCtaCgaWithShape for one CTA: fit the CTA layout to the
/// shape, add the (empty) block dimension, standard output order.
LinearLayout fitToShape(LinearLayout CtaLayout, const Shape &S) {
  CtaLayout = ensureNotSmaller(CtaLayout, S, names(CtaLayout));
  CtaLayout = ensureNotLarger(CtaLayout, S);
  CtaLayout *= LinearLayout({{kBlock, {}}}, std::vector<std::string>{});
  return CtaLayout.transposeOuts(standardOutDimNames(S.size()));
}

/// The register/lane pattern of one mma tile (Triton's nvidiaMmaTile).
LinearLayout mmaTile(const std::vector<unsigned> &TileShape, unsigned KWidth,
                     const Order &O, const Order &RepOrder) {
  unsigned Rank = RepOrder.size();
  LinearLayout L =
      identityStandardND(kRegister, std::vector<unsigned>(Rank, 1), RepOrder);
  unsigned Inner = O[0], Outer = O[1];
  int32_t M = TileShape[Outer], N = TileShape[Inner];
  assert(M % 8 == 0 && N % (KWidth * 4) == 0);
  L = L * LinearLayout::identity1D(KWidth, kRegister, outDimName(Inner)) *
      LinearLayout::identity1D(4, kLane, outDimName(Inner)) *
      LinearLayout::identity1D(8, kLane, outDimName(Outer)) *
      LinearLayout::identity1D(M / 8, kRegister, outDimName(Outer)) *
      LinearLayout::identity1D(N / (KWidth * 4), kRegister, outDimName(Inner));
  return L;
}

/// Warps of a dot operand: identity along M (or N), zero along K.
LinearLayout broadcastAlongK(const std::vector<unsigned> &Sizes, const Order &O,
                             unsigned KDim, const std::string &In) {
  LinearLayout L;
  for (unsigned D : O)
    L *= D == KDim ? LinearLayout::zeros1D(Sizes[D], In, outDimName(D))
                   : LinearLayout::identity1D(Sizes[D], In, outDimName(D));
  return L;
}

LinearLayout blockedLayout(const Encoding &E, const Shape &S) {
  const BlockedEncoding &B = E.blocked();
  requireSingleCTA(E, B.CTA);
  LinearLayout Cta = identityStandardND(kRegister, B.SizePerThread, B.Order) *
                     identityStandardND(kLane, B.ThreadsPerWarp, B.Order) *
                     identityStandardND(kWarp, B.WarpsPerCTA, B.Order);
  return fitToShape(Cta, S);
}

LinearLayout mmaLayout(const Encoding &E, const Shape &S) {
  const NvidiaMmaEncoding &M = E.mma();
  requireSingleCTA(E, M.CTA);
  unsigned Rank = S.size();
  std::vector<unsigned> Tile = M.InstrShape;
  if (M.isHopper())
    Tile = {M.InstrShape[0], M.InstrShape[1]};
  if (Tile[Rank - 2] % 8 || Tile[Rank - 1] % 8)
    throw ir::UnsupportedError({}, "mma layout " + E.str() +
                                       " with a tile that is not a multiple "
                                       "of 8x8");
  Order RowMajor = matrixOrder(Rank, true);
  LinearLayout Cta = mmaTile(Tile, /*KWidth=*/2, RowMajor, RowMajor);
  Order WarpOrder = matrixOrder(Rank, /*RowMajor=*/!M.isHopper());
  Cta *= identityStandardND(kWarp, M.WarpsPerCTA, WarpOrder)
             .transposeOuts(names(Cta));
  return fitToShape(Cta, S);
}

LinearLayout dotOperandLayout(const Encoding &E, const Shape &S) {
  const DotOperandEncoding &D = E.dotOperand();
  if (D.Parent->kind() != Encoding::Kind::NvidiaMma)
    throw ir::UnsupportedError({}, "dot operand layout " + E.str() +
                                       " (only nvidia_mma parents are "
                                       "modelled)");
  const NvidiaMmaEncoding &M = D.Parent->mma();
  requireSingleCTA(*D.Parent, M.CTA);
  unsigned Rank = S.size();
  bool IsA = D.OpIdx == 0;
  std::vector<unsigned> Tile(Rank, 1);
  if (IsA) {
    Tile[Rank - 2] = 16;
    Tile[Rank - 1] = D.KWidth * 8;
  } else {
    Tile[Rank - 2] = D.KWidth * 8;
    Tile[Rank - 1] = 8;
  }
  Order O = dotOperandOrder(D.OpIdx, Rank);
  LinearLayout Cta = mmaTile(Tile, D.KWidth, O, O);
  unsigned KDim = IsA ? Rank - 1 : Rank - 2;
  Order WarpOrder = matrixOrder(Rank, /*RowMajor=*/!M.isHopper());
  Cta *= broadcastAlongK(M.WarpsPerCTA, WarpOrder, KDim, kWarp)
             .transposeOuts(names(Cta));
  return fitToShape(Cta, S);
}

LinearLayout sliceLayout(const Encoding &E, const Shape &S) {
  const SliceEncoding &Sl = E.slice();
  Shape ParentShape = S;
  ParentShape.insert(ParentShape.begin() + Sl.Dim, 1);
  LinearLayout Parent = toLinearLayout(*Sl.Parent, ParentShape);
  // Parent's outputs are in standard order; drop dimension Dim and rename
  // the ones after it.
  std::vector<LinearLayout::InDim> Ins;
  for (const auto &In : Parent.ins()) {
    LinearLayout::InDim D{In.Name, {}};
    for (const auto &B : In.Bases) {
      LinearLayout::Basis NB;
      for (unsigned K = 0; K < B.size(); ++K)
        if (K != Sl.Dim)
          NB.push_back(B[K]);
      bool Zero =
          std::all_of(NB.begin(), NB.end(), [](int32_t V) { return V == 0; });
      // Registers that now all map to the same element are dropped (lanes
      // and warps keep theirs: those threads exist).
      if (In.Name == kRegister && Zero)
        continue;
      D.Bases.push_back(std::move(NB));
    }
    Ins.push_back(std::move(D));
  }
  return LinearLayout(std::move(Ins), standardOutDimNames(S.size()));
}

LinearLayout swizzledSharedLayout(const Encoding &E, const Shape &S) {
  const SwizzledSharedEncoding &Sw = E.swizzledShared();
  requireSingleCTA(E, Sw.CTA);
  unsigned Rank = S.size();
  if (Rank == 1)
    return fitToShape(
        LinearLayout::identity1D(int32_t(S[0]), kOffset, outDimName(0)), S);
  unsigned ColDim = Sw.Order[0], RowDim = Sw.Order[1];
  int32_t NumCols = int32_t(S[ColDim]), NumRows = int32_t(S[RowDim]);
  std::vector<LinearLayout::Basis> Bases;
  for (int32_t Col = 1; Col < NumCols; Col *= 2)
    Bases.push_back({0, Col});
  for (int32_t Row = 1; Row < NumRows; Row *= 2) {
    int32_t Phase = (Row / int32_t(Sw.PerPhase)) % int32_t(Sw.MaxPhase);
    Bases.push_back({Row, (int32_t(Sw.Vec) * Phase) % NumCols});
  }
  LinearLayout Cta(
      {{kOffset, Bases}},
      std::vector<std::string>{outDimName(RowDim), outDimName(ColDim)});
  for (unsigned I = 2; I < Rank; ++I) {
    unsigned Dim = Sw.Order[I];
    Cta *= LinearLayout::identity1D(int32_t(S[Dim]), kOffset, outDimName(Dim));
  }
  return fitToShape(Cta, S);
}

/// Triton's getTMABlockShape: the box one TMA message moves.
Shape tmaBlockShape(const Encoding &E, const Shape &S) {
  const NVMMASharedEncoding &N = E.nvmmaShared();
  Shape Block = S;
  unsigned Contig = N.Transposed ? 0 : S.size() - 1;
  for (int64_t &Size : Block)
    Size = std::min<int64_t>(Size, 256);
  if (N.SwizzlingByteWidth) {
    int64_t ContigSize = 8 * N.SwizzlingByteWidth / N.ElementBitWidth;
    if (Block[Contig] < ContigSize)
      badShape(E, S,
               "the contiguous dimension is narrower than the " +
                   std::to_string(N.SwizzlingByteWidth) + "-byte swizzle");
    Block[Contig] = ContigSize;
  }
  return Block;
}

/// Row-major reshape of a layout's output (Triton's reshapeLayout).
LinearLayout reshapeOuts(const LinearLayout &L, const Shape &From,
                         const Shape &To) {
  std::vector<LinearLayout::InDim> Ins = L.ins();
  for (auto &In : Ins)
    for (auto &B : In.Bases) {
      int64_t Flat = 0;
      for (unsigned K = 0; K < From.size(); ++K)
        Flat = Flat * From[K] + B[K];
      LinearLayout::Basis NB(To.size());
      for (int K = int(To.size()) - 1; K >= 0; --K) {
        NB[K] = int32_t(Flat % To[K]);
        Flat /= To[K];
      }
      B = std::move(NB);
    }
  std::vector<LinearLayout::OutDim> Outs;
  for (unsigned K = 0; K < To.size(); ++K) {
    unsigned Log = 0;
    while ((int64_t(1) << Log) < To[K])
      ++Log;
    Outs.push_back({outDimName(K), Log});
  }
  return LinearLayout(std::move(Ins), std::move(Outs));
}

LinearLayout nvmmaSharedLayout(const Encoding &E, const Shape &S) {
  const NVMMASharedEncoding &N = E.nvmmaShared();
  requireSingleCTA(E, N.CTA);
  unsigned Rank = S.size();
  Shape Tma = tmaBlockShape(E, S);
  if (N.SwizzlingByteWidth == 0) {
    LinearLayout L = LinearLayout::identity1D(int32_t(Tma[Rank - 1]), kOffset,
                                              outDimName(Rank - 1));
    for (int I = int(Rank) - 2; I >= 0; --I)
      L *= LinearLayout::identity1D(int32_t(Tma[I]), kOffset, outDimName(I));
    L = ensureNotSmaller(L, S, standardOutDimNames(Rank));
    return fitToShape(L, S);
  }
  if (Rank < 2)
    badShape(E, S, "a swizzled nvmma_shared layout needs rank 2 or more");

  // One 8-row core matrix of the swizzle pattern, in (row, column).
  int32_t TileCols =
      8 * std::max(16u, N.SwizzlingByteWidth) / N.ElementBitWidth;
  std::vector<LinearLayout::Basis> Bases;
  for (int32_t Col = 1; Col < TileCols; Col *= 2)
    Bases.push_back({0, Col});
  for (int32_t Row = 1; Row < 8; Row *= 2)
    Bases.push_back({Row, int32_t(N.vec()) * ((Row / int32_t(N.perPhase())) %
                                              int32_t(N.maxPhase()))});
  LinearLayout Tile({{kOffset, Bases}}, standardOutDimNames(2));

  // All outer dimensions collapse into rows; rows then columns repeat.
  Shape Collapsed = {1, Tma.back()};
  for (unsigned I = 0; I + 1 < Rank; ++I)
    Collapsed[0] *= Tma[I];
  if (N.Transposed)
    std::swap(Collapsed[0], Collapsed[1]);
  if (Collapsed[1] < TileCols || Collapsed[0] < 8)
    badShape(E, S, "smaller than one 8-row swizzle tile");
  LinearLayout L = ensureNotSmaller(Tile, Collapsed, standardOutDimNames(2));

  Shape Target = Tma;
  if (N.Transposed)
    std::rotate(Target.begin(), Target.begin() + 1, Target.end());
  L = reshapeOuts(L, Collapsed, Target);
  if (N.Transposed) {
    // The contiguous dimension moves back in front.
    std::vector<LinearLayout::InDim> Ins = L.ins();
    for (auto &In : Ins)
      for (auto &B : In.Bases) {
        LinearLayout::Basis NB;
        NB.push_back(B[Rank - 1]);
        for (unsigned K = 0; K + 1 < Rank; ++K)
          NB.push_back(B[K]);
        B = std::move(NB);
      }
    L = LinearLayout(std::move(Ins), standardOutDimNames(Rank));
  }
  L = ensureNotSmaller(L, S, standardOutDimNames(Rank));
  return fitToShape(L, S);
}

} // namespace

LinearLayout toLinearLayout(const Encoding &E, const Shape &S) {
  if (auto R = E.rank(); R && *R != S.size())
    badShape(E, S, "the encoding has rank " + std::to_string(*R));
  if (S.empty())
    badShape(E, S, "a tensor needs rank 1 or more");
  for (int64_t D : S)
    if (D <= 0 || (D & (D - 1)) || D > (int64_t(1) << 30))
      badShape(E, S, "every dimension must be a power of two");
  switch (E.kind()) {
  case Encoding::Kind::Blocked:
    return blockedLayout(E, S);
  case Encoding::Kind::Slice:
    return sliceLayout(E, S);
  case Encoding::Kind::NvidiaMma:
    if (S.size() < 2)
      badShape(E, S, "an mma layout needs rank 2 or more");
    return mmaLayout(E, S);
  case Encoding::Kind::DotOperand:
    return dotOperandLayout(E, S);
  case Encoding::Kind::SwizzledShared:
    return swizzledSharedLayout(E, S);
  case Encoding::Kind::NVMMAShared:
    return nvmmaSharedLayout(E, S);
  }
  throw ir::UnsupportedError({}, "layout " + E.str());
}

//===----------------------------------------------------------------------===//
// Concrete evaluation
//===----------------------------------------------------------------------===//

bool HardwareIndex::operator<(const HardwareIndex &O) const {
  return std::tie(Block, Warp, Lane, Register) <
         std::tie(O.Block, O.Warp, O.Lane, O.Register);
}

DistributedLayout::DistributedLayout(const Encoding &E, std::vector<int64_t> S)
    : Shape(std::move(S)) {
  if (!E.isDistributed())
    throw ir::InputError({}, E.str() + " is a shared-memory layout");
  Linear = toLinearLayout(E, Shape);
}

std::vector<int64_t> DistributedLayout::element(const HardwareIndex &H) const {
  auto Out = Linear.apply({{kRegister, H.Register},
                           {kLane, H.Lane},
                           {kWarp, H.Warp},
                           {kBlock, H.Block}});
  return std::vector<int64_t>(Out.begin(), Out.end());
}

std::vector<int64_t>
DistributedLayout::elementOfThread(int64_t ThreadId, int32_t Register) const {
  HardwareIndex H;
  H.Register = Register;
  H.Lane = int32_t(ThreadId % threadsPerWarp());
  H.Warp = int32_t(ThreadId / threadsPerWarp());
  return element(H);
}

std::vector<HardwareIndex>
DistributedLayout::holders(const std::vector<int64_t> &Element) const {
  assert(Element.size() == Shape.size());
  std::vector<int32_t> Out;
  for (unsigned D = 0; D < Element.size(); ++D) {
    if (Element[D] < 0 || Element[D] >= Shape[D])
      return {};
    Out.push_back(int32_t(Element[D]));
  }
  std::vector<HardwareIndex> Result;
  for (const auto &In : Linear.preimage(Out)) {
    HardwareIndex H;
    for (unsigned I = 0; I < Linear.ins().size(); ++I) {
      const std::string &Name = Linear.ins()[I].Name;
      if (Name == kRegister)
        H.Register = In[I];
      else if (Name == kLane)
        H.Lane = In[I];
      else if (Name == kWarp)
        H.Warp = In[I];
      else if (Name == kBlock)
        H.Block = In[I];
    }
    Result.push_back(H);
  }
  std::sort(Result.begin(), Result.end());
  return Result;
}

SharedLayout::SharedLayout(const Encoding &E, std::vector<int64_t> S)
    : Shape(std::move(S)) {
  if (!E.isShared())
    throw ir::InputError({}, E.str() + " is not a shared-memory layout");
  Linear = toLinearLayout(E, Shape);
  Inverse = Linear.invert();
}

int64_t SharedLayout::offset(const std::vector<int64_t> &Element) const {
  std::map<std::string, int32_t> In;
  for (unsigned D = 0; D < Element.size(); ++D) {
    assert(Element[D] >= 0 && Element[D] < Shape[D]);
    In[outDimName(D)] = int32_t(Element[D]);
  }
  return Inverse.apply(In)[0];
}

std::vector<int64_t> SharedLayout::element(int64_t Offset) const {
  assert(Offset >= 0 && Offset < size());
  auto Out = Linear.apply({{kOffset, int32_t(Offset)}});
  return std::vector<int64_t>(Out.begin(), Out.end());
}

} // namespace stagecheck::layout

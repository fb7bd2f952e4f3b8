#include "ptx_lifter/Collective.h"

#include "ir/Errors.h"

using namespace stagecheck::ir;

namespace stagecheck::ptx::sem {

namespace {

/// i1: K <u Size, pushed through selects with constant arms so that
/// Triton's `selp 16, 0, %p` sizes give back %p.
const Expr *byteCopied(Context &C, uint64_t K, const Expr *Size) {
  if (Size->op() == Op::Select)
    return C.select(Size->operand(0), byteCopied(C, K, Size->operand(1)),
                    byteCopied(C, K, Size->operand(2)));
  return C.icmp(ICmpPredicate::Ult, C.constant(Size->type(), K), Size);
}

const Expr *plus(Context &C, const Expr *Address, uint64_t Offset) {
  return C.add(Address, C.constant(Address->type(), Offset));
}

} // namespace

void cpAsync(ThreadModel &M, const Expr *Dst, const Expr *Src, unsigned CpSize,
             const Expr *SrcSize, const Expr *Guard, const Origin &From) {
  Context &C = M.context();
  if (CpSize != 4 && CpSize != 8 && CpSize != 16)
    throw UnsupportedError(From.Loc,
                           "cp.async of " + std::to_string(CpSize) + " bytes");
  if (!SrcSize)
    SrcSize = C.constant(Type::i(32), CpSize);
  const Expr *LoadGuard = C.andOf(Guard, byteCopied(C, 0, SrcSize));
  // Values are at most 64 bits wide: the copy moves in 8-byte chunks.
  unsigned Chunk = CpSize < 8 ? CpSize : 8;
  for (unsigned Offset = 0; Offset < CpSize; Offset += Chunk) {
    const Expr *Loaded = M.load(AddressSpace::Global, plus(C, Src, Offset),
                                Chunk * 8, LoadGuard, From);
    std::vector<const Expr *> Kept;
    bool Uniform = true;
    for (unsigned K = 0; K < Chunk; ++K) {
      Kept.push_back(byteCopied(C, Offset + K, SrcSize));
      Uniform &= Kept[K] == Kept[0];
    }
    const Expr *Zero = C.constant(Loaded->type(), 0);
    const Expr *Value;
    if (Uniform) {
      Value = C.select(Kept[0], Loaded, Zero);
    } else {
      std::vector<const Expr *> Bytes = M.split(Loaded, Chunk);
      for (unsigned K = 0; K < Chunk; ++K)
        Bytes[K] = C.select(Kept[K], Bytes[K], C.constant(Bytes[K]->type(), 0));
      Value = M.concat(Bytes);
    }
    M.store(AddressSpace::Shared, plus(C, Dst, Offset), Value, Guard, From);
  }
}

void cpAsyncCommit(ThreadModel &M, const Expr *Guard, const Origin &From) {
  M.exchange("cp.async.commit_group", Guard, {}, {}, From);
}

void cpAsyncWait(ThreadModel &M, unsigned Pending, const Expr *Guard,
                 const Origin &From) {
  M.exchange("cp.async.wait_group", Guard,
             {M.context().constant(Type::i(32), Pending)}, {}, From);
}

std::vector<const Expr *> matrixLoad(ThreadModel &M, const std::string &Kind,
                                     const Expr *SharedAddress, unsigned Count,
                                     const Expr *Guard, const Origin &From) {
  const Expr *Offset = M.sharedOffset(SharedAddress, From);
  return M.exchange(Kind, Guard, {Offset},
                    std::vector<Type>(Count, Type::i(32)), From);
}

void matrixStore(ThreadModel &M, const std::string &Kind,
                 const Expr *SharedAddress,
                 std::span<const Expr *const> Fragments, const Expr *Guard,
                 const Origin &From) {
  std::vector<const Expr *> Operands = {M.sharedOffset(SharedAddress, From)};
  Operands.insert(Operands.end(), Fragments.begin(), Fragments.end());
  M.exchange(Kind, Guard, Operands, {}, From);
}

MmaSlot mmaM16N8K16A(unsigned Row, unsigned K) {
  return {4 * (Row % 8) + (K % 8) / 2, Row / 8 + 2 * (K / 8), K % 2};
}

MmaSlot mmaM16N8K16B(unsigned K, unsigned Col) {
  return {4 * Col + (K % 8) / 2, K / 8, K % 2};
}

MmaSlot mmaM16N8K16CD(unsigned Row, unsigned Col) {
  return {4 * (Row % 8) + Col / 2, 2 * (Row / 8) + Col % 2, 0};
}

std::pair<unsigned, unsigned> mmaM16N8K16CDElement(unsigned Lane,
                                                   unsigned Register) {
  return {Lane / 4 + 8 * (Register / 2), 2 * (Lane % 4) + Register % 2};
}

std::vector<const Expr *> matrixMultiply(ThreadModel &M,
                                         const std::string &Kind,
                                         std::span<const Expr *const> Fragments,
                                         const std::vector<Type> &ResultTypes,
                                         const Expr *Guard,
                                         const Origin &From) {
  return M.exchange(Kind, Guard, {Fragments.begin(), Fragments.end()},
                    ResultTypes, From);
}

} // namespace stagecheck::ptx::sem

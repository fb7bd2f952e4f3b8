#include "layout/Symbolic.h"

#include <cassert>

namespace stagecheck::layout {

using ir::Expr;
using ir::Op;
using ir::Type;

static const Expr *i32(ir::Context &C, int64_t V) {
  return C.intConst(Type::i(32), V);
}

static unsigned log2Of(int32_t X) {
  unsigned L = 0;
  while ((int32_t(1) << L) < X)
    ++L;
  return L;
}

SymbolicHardwareIndex hardwareIndexOfThread(ir::Context &C,
                                            const Expr *ThreadId,
                                            const Expr *Register,
                                            int32_t ThreadsPerWarp,
                                            const Expr *Block) {
  assert(ThreadId->type() == Type::i(32) && Register->type() == Type::i(32));
  SymbolicHardwareIndex H;
  H.Register = Register;
  H.Lane = C.andOf(ThreadId, i32(C, ThreadsPerWarp - 1));
  H.Warp = C.binary(Op::LShr, ThreadId, i32(C, log2Of(ThreadsPerWarp)));
  H.Block = Block ? Block : i32(C, 0);
  return H;
}

/// The single set bit of V, or -1.
static int singleBit(int32_t V) {
  if (V <= 0 || (V & (V - 1)))
    return -1;
  return int(log2Of(V));
}

std::vector<const Expr *>
applySymbolic(ir::Context &C, const LinearLayout &L,
              const std::map<std::string, const Expr *> &Inputs) {
  std::vector<const Expr *> Out(L.outs().size(), i32(C, 0));
  for (const auto &In : L.ins()) {
    auto It = Inputs.find(In.Name);
    if (It == Inputs.end() || In.Bases.empty())
      continue;
    const Expr *X = It->second;
    assert(X->type() == Type::i(32));
    for (unsigned K = 0; K < L.outs().size(); ++K) {
      unsigned Bit = 0;
      while (Bit < In.Bases.size()) {
        int32_t V = In.Bases[Bit][K];
        if (V == 0) {
          ++Bit;
          continue;
        }
        int J = singleBit(V);
        // A run of input bits Bit.. whose bases are the consecutive output
        // bits J..: one shift and mask.
        unsigned Run = 1;
        if (J >= 0)
          while (Bit + Run < In.Bases.size() &&
                 In.Bases[Bit + Run][K] == (V << Run))
            ++Run;
        const Expr *Term;
        if (J >= 0) {
          const Expr *Field = C.andOf(C.binary(Op::LShr, X, i32(C, Bit)),
                                      i32(C, (int64_t(1) << Run) - 1));
          Term = C.binary(Op::Shl, Field, i32(C, J));
        } else {
          const Expr *Set = C.cast(
              Op::Trunc, C.binary(Op::LShr, X, i32(C, Bit)), Type::boolean());
          Term = C.select(Set, i32(C, V), i32(C, 0));
        }
        Out[K] = C.xorOf(Out[K], Term);
        Bit += Run;
      }
    }
  }
  return Out;
}

std::vector<const Expr *> elementOfThread(ir::Context &C,
                                          const DistributedLayout &L,
                                          const Expr *ThreadId,
                                          const Expr *Register) {
  SymbolicHardwareIndex H =
      hardwareIndexOfThread(C, ThreadId, Register, L.threadsPerWarp());
  return applySymbolic(C, L.linear(),
                       {{kRegister, H.Register},
                        {kLane, H.Lane},
                        {kWarp, H.Warp},
                        {kBlock, H.Block}});
}

const Expr *sharedOffset(ir::Context &C, const SharedLayout &L,
                         std::span<const Expr *const> Element) {
  assert(Element.size() == L.shape().size());
  std::map<std::string, const Expr *> In;
  for (unsigned D = 0; D < Element.size(); ++D)
    In[outDimName(D)] = Element[D];
  return applySymbolic(C, L.inverse(), In)[0];
}

} // namespace stagecheck::layout

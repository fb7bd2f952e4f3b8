#include "frontends/fx/Tensor.h"

#include <cassert>

namespace stagecheck::fx {

int64_t numElements(const Shape &S) {
  int64_t N = 1;
  for (int64_t D : S)
    N *= D;
  return N;
}

std::vector<int64_t> contiguousStrides(const Shape &S) {
  std::vector<int64_t> Out(S.size(), 1);
  for (size_t D = S.size(); D-- > 1;)
    Out[D - 1] = Out[D] * std::max<int64_t>(S[D], 1);
  return Out;
}

Tensor::Tensor(DType D, Shape S, Elements F)
    : Dt(D), Sizes(std::move(S)), State(std::make_shared<Memo>()) {
  State->F = std::move(F);
}

const ir::Expr *Tensor::at(const Index &I) const {
  assert(State && "element of an empty tensor value");
  assert(I.size() == Sizes.size() && "index rank differs from tensor rank");
  auto It = State->Cache.find(I);
  if (It != State->Cache.end())
    return It->second;
  const ir::Expr *E = State->F(I);
  assert(E->type() == irType(Dt) && "element type differs from the dtype");
  State->Cache.emplace(I, E);
  return E;
}

void Tensor::setStorage(StorageFn F, int64_t Offset) {
  State->Storage = std::move(F);
  State->StorageOffset = Offset;
}

const Tensor::StorageFn *Tensor::storage() const {
  return State && State->Storage ? &State->Storage : nullptr;
}

int64_t Tensor::storageOffset() const { return State->StorageOffset; }

} // namespace stagecheck::fx

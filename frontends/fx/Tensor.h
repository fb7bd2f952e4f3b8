//===- Tensor.h - A tensor as a function of its element index ---*- C++ -*-===//
//
// The reference graph is never executed: a tensor is a dtype, a shape and a
// function from an element index (one i64 expression per dimension) to the
// scalar expression of that element. Views and layout ops compose index
// maps and copy nothing; a reduction's element is the fold of its inputs'
// elements. Each tensor memoizes its elements by index, so a value used
// many times (a row max inside a softmax) is built once.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_FX_TENSOR_H
#define STAGECHECK_FRONTENDS_FX_TENSOR_H

#include "frontends/fx/DType.h"
#include "ir/Expr.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace stagecheck::fx {

/// An element index: one i64 expression per dimension.
using Index = std::vector<const ir::Expr *>;
using Shape = std::vector<int64_t>;

int64_t numElements(const Shape &S);
/// Row-major strides of a contiguous tensor of shape S.
std::vector<int64_t> contiguousStrides(const Shape &S);

class Tensor {
public:
  using Elements = std::function<const ir::Expr *(const Index &)>;

  Tensor() = default;
  Tensor(DType D, Shape S, Elements F);

  DType dtype() const { return Dt; }
  const Shape &shape() const { return Sizes; }
  size_t rank() const { return Sizes.size(); }
  int64_t size(size_t Dim) const { return Sizes[Dim]; }
  int64_t numel() const { return numElements(Sizes); }
  bool valid() const { return bool(State); }

  /// The element at I (memoized). I has one entry per dimension.
  const ir::Expr *at(const Index &I) const;

  /// Graph inputs know the buffer behind them: its element at an absolute
  /// element index, and where the tensor starts in it. as_strided reads it.
  using StorageFn = std::function<const ir::Expr *(const ir::Expr *Linear)>;
  void setStorage(StorageFn F, int64_t Offset);
  const StorageFn *storage() const;
  int64_t storageOffset() const;

private:
  struct Memo {
    Elements F;
    std::map<Index, const ir::Expr *> Cache;
    StorageFn Storage;
    int64_t StorageOffset = 0;
  };
  DType Dt = DType::F32;
  Shape Sizes;
  std::shared_ptr<Memo> State;
};

/// A Python number or a reference parameter: a float (f64), an int (i64) or
/// a bool (i1) expression with its category.
struct Scalar {
  const ir::Expr *E = nullptr;
  Category Cat = Category::Floating;
};

} // namespace stagecheck::fx

#endif

//===- AtenTable.h - The aten semantics table -------------------*- C++ -*-===//
//
// Each aten op is defined once, by one function that scalarizes it: given
// its arguments (tensors as functions of their index), it returns its result
// tensors. All overloads of an op (mul.Tensor, mul.Scalar) go through the
// op's one function. The definitions follow PyTorch's own: the reference
// decompositions (torch/_refs, torch/_decomp) for composite ops and the CUDA
// kernels' arithmetic (at::opmath_type: f16/bf16 compute in f32 and round
// once) for primitive ones; docs/coverage.md lists every op.
//
// Adding an op: write its function in the file of its kind (AtenPointwise,
// AtenReduce, AtenShape, AtenNN), add it to that file's table, add cases for
// it to scripts/capture_aten_vectors.py, and rerun the vector test.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_FX_ATENTABLE_H
#define STAGECHECK_FRONTENDS_FX_ATENTABLE_H

#include "frontends/fx/Graph.h"
#include "frontends/fx/Lift.h"
#include "frontends/fx/Tensor.h"
#include "ir/Effects.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace stagecheck::fx {

/// What an op argument resolved to: a tensor or a scalar.
struct Operand {
  std::optional<Tensor> T;
  Scalar S;
  bool isTensor() const { return T.has_value(); }
};

class Lowerer;

/// One op application: typed access to its arguments (by position or
/// keyword, as FX may print either), and the ways it can fail.
///
/// An OpCall is cheap to copy, and the element functions of the tensors an op
/// returns keep a copy: they run long after the op's function returned.
class OpCall {
public:
  OpCall(std::shared_ptr<Lowerer> L, ir::Context &C, const Node &N)
      : C(C), N(N), L(std::move(L)) {}

  ir::Context &C;
  const Node &N;

  /// "aten.mul" for "aten.mul.Tensor".
  std::string op() const;
  /// "Tensor" for "aten.mul.Tensor".
  std::string overload() const;

  const Argument *arg(unsigned Pos, const char *Keyword) const;
  bool has(unsigned Pos, const char *Keyword) const;

  Tensor tensor(unsigned Pos, const char *Keyword = nullptr) const;
  std::optional<Tensor> optionalTensor(unsigned Pos, const char *Keyword) const;
  std::vector<Tensor> tensors(unsigned Pos,
                              const char *Keyword = nullptr) const;
  Operand operand(unsigned Pos, const char *Keyword = nullptr) const;
  /// A number argument; a model parameter becomes its symbol.
  Scalar scalar(unsigned Pos, const char *Keyword) const;
  std::optional<Scalar> optionalScalar(unsigned Pos, const char *Keyword) const;
  int64_t integer(unsigned Pos, const char *Keyword,
                  std::optional<int64_t> Default = std::nullopt) const;
  std::vector<int64_t> integers(unsigned Pos, const char *Keyword) const;
  /// An int list that may be absent or None (then nullopt); a single int is
  /// a list of one.
  std::optional<std::vector<int64_t>>
  optionalIntegers(unsigned Pos, const char *Keyword) const;
  bool flag(unsigned Pos, const char *Keyword, bool Default) const;
  double number(unsigned Pos, const char *Keyword,
                std::optional<double> Default = std::nullopt) const;
  std::optional<DType> dtype(unsigned Pos, const char *Keyword) const;
  std::optional<std::string> string(unsigned Pos, const char *Keyword) const;

  /// Well-formed but not modelled: the verdict becomes unknown.
  [[noreturn]] void unsupported(const std::string &Why) const;
  /// Arguments PyTorch itself would reject.
  [[noreturn]] void invalid(const std::string &Why) const;
  /// The reference is undefined where Condition (i1) holds.
  void undefinedWhen(const ir::Expr *Condition,
                     const std::string &Reason) const;
  uint64_t maxTermsPerElement() const;

  ir::SourceLocation loc() const { return N.Loc; }

private:
  std::shared_ptr<Lowerer> L;
  Operand resolve(const Argument &A) const;
};

/// The result of an op: one tensor, or several (var_mean, max.dim).
struct OpResult {
  std::vector<Tensor> Items;
  bool IsTuple = false;
  OpResult() = default;
  OpResult(Tensor T) : Items{std::move(T)} {}
  OpResult(std::vector<Tensor> Ts) : Items(std::move(Ts)), IsTuple(true) {}
};

using OpFunction = OpResult (*)(const OpCall &);
struct OpDefinition {
  const char *Name; // "aten.mul", "prims.convert_element_type"
  OpFunction Fn;
};

std::span<const OpDefinition> pointwiseOps();
std::span<const OpDefinition> reductionOps();
std::span<const OpDefinition> shapeOps();
std::span<const OpDefinition> nnOps();
/// The whole table, and one op of it by name (overload stripped).
std::vector<OpDefinition> atenTable();
const OpDefinition *lookupOp(const std::string &Name);

//===-- Helpers shared by the table ---------------------------------------===//

const ir::Expr *i64(ir::Context &C, int64_t V);
/// A constant of a dtype: floats rounded to nearest from V.
const ir::Expr *constantOf(ir::Context &C, DType D, double V);
/// torch's conversion of an element (static_cast): float->float rounds to
/// nearest, int->float rounds, float->int truncates, anything->bool is != 0.
const ir::Expr *convert(const OpCall &Op, const ir::Expr *E, DType From,
                        DType To);
/// A scalar argument as a value of dtype To.
const ir::Expr *scalarAs(const OpCall &Op, const Scalar &S, DType To);
/// A transcendental: a call of the named IR function.
const ir::Expr *callFn(ir::Context &C, const char *Name, const ir::Expr *X);
const ir::Expr *callFn(ir::Context &C, const char *Name, const ir::Expr *X,
                       const ir::Expr *Y);

Shape broadcastShapes(const OpCall &Op, const std::vector<Shape> &Shapes);
/// The element of a tensor of shape In that broadcasts to index I of Out.
Index broadcastIndex(ir::Context &C, const Index &I, const Shape &Out,
                     const Shape &In);
/// The tensor broadcast (expanded) to shape Out.
Tensor broadcastTo(const OpCall &Op, const Tensor &T, const Shape &Out);

/// Wraps a negative dim; invalid() when out of range.
size_t wrapDim(const OpCall &Op, int64_t Dim, size_t Rank);
std::vector<size_t> wrapDims(const OpCall &Op, const std::vector<int64_t> &Dims,
                             size_t Rank);

/// PyTorch's ELEMENTWISE_TYPE_PROMOTION_KIND.
enum class Promotion { Default, IntToFloat, AlwaysBool, NoOpmath, BoolToLong };

/// The body of a pointwise op: operands already converted to the compute
/// dtype; returns the value in the compute dtype (i1 for AlwaysBool).
using PointwiseBody = std::function<const ir::Expr *(
    const OpCall &, std::span<const ir::Expr *const>, DType Compute)>;

/// An elementwise op over broadcast operands with PyTorch's promotion.
/// The result is computed in opmath(result dtype) and rounded once.
Tensor pointwise(const OpCall &Op, const std::vector<Operand> &Operands,
                 Promotion P, const PointwiseBody &Body);
/// The result and compute dtypes pointwise() would use.
void promotedTypes(const OpCall &Op, const std::vector<Operand> &Operands,
                   Promotion P, DType &Result, DType &Compute);

/// Sum and mean over Dims (every dim when nullopt or empty), accumulated in
/// opmath of the result dtype, as aten.sum/aten.mean define them.
Tensor sumOver(const OpCall &Op, const Tensor &X,
               const std::optional<std::vector<int64_t>> &Dims, bool KeepDim);
Tensor meanOver(const OpCall &Op, const Tensor &X,
                const std::optional<std::vector<int64_t>> &Dims, bool KeepDim);

/// An elementwise map of one tensor computed in opmath of its dtype.
Tensor mapFloat(const OpCall &Op, const Tensor &T,
                const std::function<const ir::Expr *(const ir::Expr *)> &F);

} // namespace stagecheck::fx

#endif

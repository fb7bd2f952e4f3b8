//===- Lift.h - An FX graph's meaning as effects ----------------*- C++ -*-===//
//
// Lifting a reference graph yields, for each graph output, one write family
// over its elements into the buffer the output is bound to, with the value
// each element has under PyTorch's semantics (AtenTable.h). Placeholders
// read their buffers: `read <buffer>[offset + sum(index_d * stride_d)]`.
//
// Scalar parameters of the model (the manifest's reference.params) become
// symbols named after the parameter (f64 for floats, i64 for integers, role
// param), never constants, even though the printed graph shows their values
// as literals: a literal is the parameter when it equals the parameter's
// value and the model line it comes from ("# File: ... code: ...") names the
// parameter. Whether a candidate may assume the captured value (a compiled
// program specialized on it) is the checker's decision, not the lifter's.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_FX_LIFT_H
#define STAGECHECK_FRONTENDS_FX_LIFT_H

#include "frontends/fx/Graph.h"
#include "frontends/fx/Tensor.h"
#include "ir/Effects.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stagecheck::fx {

/// Where a tensor lives: a buffer of its element type, with a layout.
struct TensorBinding {
  std::string Buffer;
  DType Dt = DType::F32;
  Shape Sizes;
  std::vector<int64_t> Strides; // in elements
  int64_t Offset = 0;           // in elements

  /// i64: offset + sum(I[d] * stride[d]).
  const ir::Expr *linearIndex(ir::Context &C, const Index &I) const;
};

/// A contiguous binding of a tensor of this dtype and shape to Buffer.
TensorBinding contiguousBinding(const std::string &Buffer, DType D,
                                const Shape &S);

struct ParamValue {
  std::string Name;
  double Value = 0;
  bool IsInteger = false;
};

struct LiftOptions {
  /// By placeholder name. A placeholder with no binding reads a buffer of
  /// its own name, contiguous.
  std::map<std::string, TensorBinding> Inputs;
  /// By output position. An output with no binding writes a contiguous
  /// buffer named after the output node.
  std::vector<TensorBinding> Outputs;
  std::vector<ParamValue> Params;
  /// mm/bmm/addmm/convolution are expanded into sums of products when an
  /// output element has at most this many terms; beyond, unsupported.
  uint64_t MaxTermsPerElement = 1 << 16;
};

/// A parameter the graph uses, and where.
struct LiftedParam {
  std::string Name;
  const ir::Expr *Symbol = nullptr;
  double Value = 0;
  std::vector<ir::SourceLocation> Uses;
};

/// A call node's value, kept so that a report can show what the
/// reference computes on the way to an output (the scores before a clamp).
struct LiftedNode {
  std::string Name;   // "clamp"
  std::string Target; // "aten.clamp.default"
  unsigned ModelLine = 0; // the model's line ("# File: ...:33"), 0 if none
  Tensor Value;
};

struct LiftedGraph {
  ir::Effects Effects;
  /// Every lifted call node, in graph order.
  std::vector<LiftedNode> Nodes;
  std::vector<LiftedParam> Params;
  /// The output tensors themselves, by output position (for callers that
  /// want an element without going through a buffer).
  std::vector<Tensor> Outputs;
};

/// Throws ir::InputError for a malformed graph or binding,
/// ir::UnsupportedError for an op the table does not model.
LiftedGraph liftGraph(ir::Context &C, const Graph &G, const LiftOptions &O);

/// The value of one op applied to given tensors: Call's arguments name
/// tensors of Inputs (NodeRef) or are literals. Extern steps of a candidate
/// program (cuBLAS mm...) get their meaning this way, from the same table.
std::vector<Tensor> applyOp(ir::Context &C, const Node &Call,
                            const std::map<std::string, Tensor> &Inputs,
                            const LiftOptions &O = {});

/// A tensor whose elements are reads of a buffer through a binding.
Tensor boundTensor(ir::Context &C, const TensorBinding &B);

} // namespace stagecheck::fx

#endif

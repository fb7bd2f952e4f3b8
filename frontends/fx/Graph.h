//===- Graph.h - An FX graph as PyTorch prints it ---------------*- C++ -*-===//
//
// The two printouts of an aten-level FX graph found in bundles:
//
//  - inductor's fx_graph_readable.py / fx_graph_transformed.py,
//      class <lambda>(torch.nn.Module):
//          def forward(self, arg0_1: "f32[16, 64][64, 1]cuda:0"):
//              mul: "f32[16, 64][64, 1]cuda:0" =
//              torch.ops.aten.mul.Tensor(arg0_1, 0.5) return (mul,)
//  - torch.fx / torch.export print_readable (GraphModule, annotations
//    without strides), also when wrapped in an ExportedProgram printout.
//
// Each statement becomes a Node that keeps its position (file:line:column of
// the name it defines) and the "# File: ...:LINE in forward, code: TEXT"
// comment above it, which names the model's source line.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_FX_GRAPH_H
#define STAGECHECK_FRONTENDS_FX_GRAPH_H

#include "frontends/fx/DType.h"
#include "ir/Effects.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stagecheck::fx {

/// A Python value in an argument position of a printed FX call.
struct Argument {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    String,
    NodeRef, // a name bound by an earlier statement or a placeholder
    List,
    Tuple,
    DType,  // torch.float16
    Dotted, // any other dotted name: torch.contiguous_format, torch.strided
    Device, // device(type='cuda', index=0)
  };
  Kind K = Kind::None;
  bool B = false;
  int64_t I = 0;
  double F = 0;
  std::string Text; // String, NodeRef, Dotted: the text; Float: as printed
  fx::DType Dt = fx::DType::F32;
  std::vector<Argument> Items;
  ir::SourceLocation Loc;

  bool isNumber() const { return K == Kind::Int || K == Kind::Float; }
  std::string str() const; // as Python would print it
};

/// "f32[16, 64][64, 1]cuda:0": element type, sizes, strides when printed.
struct TensorAnnotation {
  fx::DType Dt = fx::DType::F32;
  std::vector<int64_t> Shape;
  std::optional<std::vector<int64_t>> Strides;
};

/// The "# File: PATH:LINE in FN, code: TEXT" comment above a statement.
struct ModelSource {
  std::string File;
  unsigned Line = 0;
  std::string Code;
};

struct Node {
  enum class Kind { Placeholder, Call, GetItem };
  Kind K = Kind::Call;
  std::string Name;
  std::optional<TensorAnnotation> Annotation;
  /// Call: "aten.mul.Tensor", "prims.convert_element_type.default",
  /// "operator.getitem" (printed as getitem(x, 0) or x[0]).
  std::string Target;
  std::vector<Argument> Args;
  std::vector<std::pair<std::string, Argument>> Kwargs;
  ir::SourceLocation Loc; // the defined name in the graph file
  ModelSource Source;

  const Argument *kwarg(const std::string &Name) const;
};

struct Graph {
  std::string File;
  std::vector<Node> Nodes;       // placeholders first, in signature order
  std::vector<Argument> Outputs; // the returned values, flattened
  ir::SourceLocation ReturnLoc;

  const Node *node(const std::string &Name) const;
  std::vector<const Node *> placeholders() const;
  /// Appends N; false (and nothing added) when its name is taken.
  bool append(Node N);

private:
  std::map<std::string, size_t> ByName;
};

/// Parses a printed FX graph. Throws ir::InputError (file:line:column) for
/// text that is not one.
Graph parseGraph(const std::string &Text, const std::string &FileName);

} // namespace stagecheck::fx

#endif

//===- Manifest.h - A bundle, read and validated ----------------*- C++ -*-===//
//
// The C++ view of docs/bundle-format.md (version 1). loadBundle reads
// BUNDLE/manifest.json, checks every field a checker relies on, and resolves
// stage-file paths; anything wrong is an ir::InputError naming the file, the
// line and column, and the JSON path of the offending field.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_BUNDLE_MANIFEST_H
#define STAGECHECK_BUNDLE_MANIFEST_H

#include "ir/Kernel.h"
#include "ir/Type.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace stagecheck::bundle {

constexpr int FormatVersion = 1;

struct Tensor {
  std::string Name;
  std::string DType; // "f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u8", "bool"
  ir::Type Element = ir::Type::f32();
  std::vector<int64_t> Shape, Strides;
  int64_t Offset = 0;
  std::string Role; // input, output, param, intermediate, scratch
  std::optional<int> InputIndex, OutputIndex;
  std::optional<std::string> AliasOf;
  uint64_t numElements() const;
};

/// A scalar or constexpr value as the manifest writes it.
struct ScalarValue {
  enum Kind { Integer, Float, Bool, Null, Text } K = Null;
  int64_t I = 0;
  double F = 0;
  std::string S;
  std::string str() const;
};

struct LaunchArg {
  std::string Name;
  std::string Type; // Triton signature type: "*fp32", "i32", "constexpr"...
  bool isPointer() const { return !Type.empty() && Type[0] == '*'; }
  bool isConstexpr() const { return Type == "constexpr"; }
  // A pointer: the tensor it points into (empty for memory no tensor owns).
  std::string Tensor;
  int64_t ElementOffset = 0;
  // A scalar or constexpr.
  ScalarValue Value;
};

struct Launch {
  std::string Kernel;
  std::map<std::string, std::string> Files; // stage -> absolute path
  std::array<uint64_t, 3> Grid = {1, 1, 1};
  int NumWarps = 4, NumStages = 0;
  std::optional<double> CompileSeconds;
  std::string Hash;
  std::vector<LaunchArg> Args;
  /// The stage files' parameters: the non-constexpr args, in order, as
  /// docs/lifting-conventions.md numbers them (argK).
  ir::KernelInterface interface(const std::map<std::string, Tensor> &Tensors) const;
  std::string file(const std::string &Stage) const; // "" when absent
};

/// A view of a tensor passed to an extern op (its "input_views").
struct TensorView {
  std::vector<int64_t> Shape, Strides;
  int64_t ElementOffset = 0; // from the viewed tensor's first element
};

struct Extern {
  std::string Op, Call;
  std::string Overload; // "aten.mul.Tensor" where the manifest says, else ""
  std::vector<std::string> Inputs, Outputs;
  /// Non-tensor positional arguments by their position in the op's
  /// argument list, and keyword arguments with scalar values.
  std::vector<std::pair<int, ScalarValue>> Positional;
  std::map<std::string, ScalarValue> Keywords;
  /// Views passed instead of whole tensors, by position in Inputs.
  std::map<size_t, TensorView> InputViews;
};

struct Step {
  std::variant<Launch, Extern> Body;
  const Launch *launch() const { return std::get_if<Launch>(&Body); }
  const Extern *externCall() const { return std::get_if<Extern>(&Body); }
};

struct Reference {
  std::string Graph;     // absolute path of reference/graph.py
  std::string GraphKind; // inductor-post-grad, export-aten, ...
  std::string Source;    // absolute path, may be empty
  std::map<std::string, ScalarValue> Params;
  std::vector<std::pair<std::string, std::string>> Inputs; // placeholder, tensor
  std::vector<std::string> Outputs;
};

struct Manifest {
  std::string Dir;  // the bundle directory
  std::string Path; // its manifest.json
  std::string Name;
  std::string OriginTool, OriginMode, Torch, Triton, Device;
  int Capability = 0;
  Reference Ref;
  std::map<std::string, Tensor> Tensors;
  std::vector<Step> Steps;

  std::vector<const Launch *> launches() const;
};

/// Reads and validates BUNDLE/manifest.json. Throws ir::InputError.
Manifest loadBundle(const std::string &Dir);

/// What Triton's metadata (<kernel>.json) says about how a kernel was
/// compiled, as far as a checker's contract depends on it.
struct KernelMetadata {
  std::string Name;
  /// enable_fp_fusion: the backend may fuse an fmul into an fadd/fsub.
  bool FpFusion = true;
  /// enable_reflect_ftz: libdevice's __nvvm_reflect("__CUDA_FTZ") is 1.
  bool ReflectFtz = true;
  int NumWarps = 4;
  int Capability = 0; // target.arch (90)
};
/// Reads a metadata file; throws ir::InputError naming the file for a
/// missing or malformed one. Absent fields keep Triton's defaults.
KernelMetadata readKernelMetadata(const std::string &Path);

/// Parses a Triton signature type ("*fp32", "fp16", "i32") into the IR
/// type of the value (the pointee for pointers); false if unknown.
bool tritonType(const std::string &Type, ir::Type &Out);
/// Parses a manifest dtype ("f32", "bool"...); false if unknown.
bool manifestDType(const std::string &DType, ir::Type &Out);

} // namespace stagecheck::bundle

#endif

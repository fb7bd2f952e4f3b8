#include "bundle/Manifest.h"

#include "ir/Errors.h"

#include <filesystem>
#include <fstream>
#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace stagecheck::bundle {

uint64_t Tensor::numElements() const {
  uint64_t N = 1;
  for (int64_t S : Shape)
    N *= uint64_t(S);
  return N;
}

std::string ScalarValue::str() const {
  switch (K) {
  case Integer:
    return std::to_string(I);
  case Float: {
    std::ostringstream S;
    S.precision(17);
    S << F;
    return S.str();
  }
  case Bool:
    return I ? "true" : "false";
  case Null:
    return "null";
  case Text:
    return S;
  }
  return "?";
}

bool manifestDType(const std::string &D, ir::Type &Out) {
  static const std::map<std::string, ir::Type> Types = {
      {"f32", ir::Type::f32()},  {"f16", ir::Type::f16()},
      {"bf16", ir::Type::bf16()}, {"f64", ir::Type::f64()},
      {"i64", ir::Type::i(64)},  {"i32", ir::Type::i(32)},
      {"i16", ir::Type::i(16)},  {"i8", ir::Type::i(8)},
      {"u8", ir::Type::i(8)},    {"bool", ir::Type::i(8)}};
  auto It = Types.find(D);
  if (It == Types.end())
    return false;
  Out = It->second;
  return true;
}

bool tritonType(const std::string &T, ir::Type &Out) {
  std::string Base = !T.empty() && T[0] == '*' ? T.substr(1) : T;
  static const std::map<std::string, ir::Type> Types = {
      {"fp32", ir::Type::f32()},  {"fp16", ir::Type::f16()},
      {"bf16", ir::Type::bf16()}, {"fp64", ir::Type::f64()},
      {"i64", ir::Type::i(64)},   {"u64", ir::Type::i(64)},
      {"i32", ir::Type::i(32)},   {"u32", ir::Type::i(32)},
      {"i16", ir::Type::i(16)},   {"u16", ir::Type::i(16)},
      {"i8", ir::Type::i(8)},     {"u8", ir::Type::i(8)},
      {"i1", ir::Type::i(1)}};
  auto It = Types.find(Base);
  if (It == Types.end())
    return false;
  // A *i1 is a bool tensor: each element a byte, 0 or 1, which every stage
  // reads and writes as the bool it holds (docs/lifting-conventions.md).
  Out = It->second;
  return true;
}

std::string Launch::file(const std::string &Stage) const {
  auto It = Files.find(Stage);
  return It == Files.end() ? "" : It->second;
}

ir::KernelInterface Launch::interface(const std::map<std::string, Tensor> &) const {
  ir::KernelInterface K;
  K.Kernel = Kernel;
  for (const LaunchArg &A : Args) {
    if (A.isConstexpr())
      continue;
    ir::KernelParam P;
    P.Name = ir::paramName(unsigned(K.Params.size()));
    P.IsPointer = A.isPointer();
    if (!tritonType(A.Type, P.Element))
      P.Element = ir::Type::i(8);
    K.Params.push_back(P);
  }
  return K;
}

std::vector<const Launch *> Manifest::launches() const {
  std::vector<const Launch *> Out;
  for (const Step &S : Steps)
    if (const Launch *L = S.launch())
      Out.push_back(L);
  return Out;
}

namespace {

/// Reads one manifest; every complaint names the file, a line and column
/// (where the offending text is found) and the JSON path.
class Reader {
public:
  Reader(std::string Dir, std::string Path, std::string Text)
      : Dir(std::move(Dir)), Path(std::move(Path)), Text(std::move(Text)) {}

  Manifest read() {
    llvm::Expected<Value> Parsed = llvm::json::parse(Text);
    if (!Parsed)
      syntaxError(Parsed.takeError());
    const Object *Root = Parsed->getAsObject();
    if (!Root)
      fail("", "", "the manifest is not a JSON object");
    Manifest M;
    M.Dir = Dir;
    M.Path = Path;
    std::string Format = string(*Root, "format", "");
    if (Format != "stagecheck-bundle")
      fail("format", Format, "not a stagecheck bundle (format is '" + Format +
                                 "', expected 'stagecheck-bundle')");
    int64_t Version = integer(*Root, "version", "");
    if (Version != FormatVersion)
      fail("version", std::to_string(Version),
           "unsupported manifest version " + std::to_string(Version) +
               " (this stagecheck reads version " +
               std::to_string(FormatVersion) + ")");
    M.Name = string(*Root, "name", "");
    if (const Object *O = object(*Root, "origin", "", /*Required=*/false)) {
      M.OriginTool = optionalString(*O, "tool");
      M.OriginMode = optionalString(*O, "mode");
      M.Torch = optionalString(*O, "torch");
      M.Triton = optionalString(*O, "triton");
      M.Device = optionalString(*O, "device");
      if (auto C = O->getInteger("capability"))
        M.Capability = int(*C);
    }
    readTensors(*object(*Root, "tensors", ""), M);
    readReference(*object(*Root, "reference", ""), M);
    const Array *Steps = array(*Root, "steps", "");
    for (size_t I = 0; I < Steps->size(); ++I)
      M.Steps.push_back(readStep((*Steps)[I], "steps[" + std::to_string(I) + "]", M));
    return M;
  }

private:
  std::string Dir, Path, Text;

  [[noreturn]] void syntaxError(llvm::Error E) {
    std::string Message = llvm::toString(std::move(E));
    // "[line:col, byte=N]: message"
    std::smatch Match;
    static const std::regex Where(R"(\[(\d+):(\d+), byte=\d+\]: (.*))");
    if (std::regex_search(Message, Match, Where))
      throw ir::InputError({Path, unsigned(std::stoul(Match[1])),
                            unsigned(std::stoul(Match[2]))},
                           "malformed JSON: " + Match[3].str());
    throw ir::InputError({Path, 1, 1}, "malformed JSON: " + Message);
  }

  /// Line and column of the first occurrence of `"Key": <Value text>`, or of
  /// `"Key"`, so a complaint points at the text that caused it.
  ir::SourceLocation locate(const std::string &Key, const std::string &ValueText) {
    size_t Pos = std::string::npos;
    if (!Key.empty() && !ValueText.empty()) {
      std::regex Pattern("\"" + std::regex_replace(Key, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                         "\"\\s*:\\s*\"?" +
                         std::regex_replace(ValueText, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"));
      std::smatch M;
      if (std::regex_search(Text, M, Pattern))
        Pos = size_t(M.position(0));
    }
    if (Pos == std::string::npos && !Key.empty())
      Pos = Text.find("\"" + Key + "\"");
    if (Pos == std::string::npos)
      Pos = 0;
    unsigned Line = 1, Column = 1;
    for (size_t I = 0; I < Pos; ++I) {
      if (Text[I] == '\n') {
        ++Line;
        Column = 1;
      } else {
        ++Column;
      }
    }
    return {Path, Line, Column};
  }

  [[noreturn]] void fail(const std::string &Key, const std::string &ValueText,
                         const std::string &Message) {
    throw ir::InputError(locate(Key, ValueText), Message);
  }

  static std::string join(const std::string &Where, const std::string &Key) {
    return Where.empty() ? Key : Where + "." + Key;
  }

  const Value &field(const Object &O, const std::string &Key,
                     const std::string &Where) {
    const Value *V = O.get(Key);
    if (!V)
      fail(Where.empty() ? "" : Where.substr(0, Where.find('[')), "",
           join(Where, Key) + " is missing");
    return *V;
  }

  std::string string(const Object &O, const std::string &Key,
                     const std::string &Where) {
    auto S = field(O, Key, Where).getAsString();
    if (!S)
      fail(Key, "", join(Where, Key) + " must be a string");
    return S->str();
  }

  static std::string optionalString(const Object &O, const std::string &Key) {
    auto S = O.getString(Key);
    return S ? S->str() : "";
  }

  int64_t integer(const Object &O, const std::string &Key,
                  const std::string &Where) {
    auto I = field(O, Key, Where).getAsInteger();
    if (!I)
      fail(Key, "", join(Where, Key) + " must be an integer");
    return *I;
  }

  const Object *object(const Object &O, const std::string &Key,
                       const std::string &Where, bool Required = true) {
    const Value *V = O.get(Key);
    if (!V && !Required)
      return nullptr;
    const Object *R = field(O, Key, Where).getAsObject();
    if (!R)
      fail(Key, "", join(Where, Key) + " must be an object");
    return R;
  }

  const Array *array(const Object &O, const std::string &Key,
                     const std::string &Where) {
    const Array *R = field(O, Key, Where).getAsArray();
    if (!R)
      fail(Key, "", join(Where, Key) + " must be a list");
    return R;
  }

  std::vector<int64_t> integers(const Object &O, const std::string &Key,
                                const std::string &Where) {
    std::vector<int64_t> Out;
    for (const Value &V : *array(O, Key, Where)) {
      auto I = V.getAsInteger();
      if (!I)
        fail(Key, "", join(Where, Key) + " must hold integers");
      Out.push_back(*I);
    }
    return Out;
  }

  std::string existingFile(const std::string &Relative, const std::string &Key,
                           const std::string &Where) {
    fs::path P = fs::path(Dir) / Relative;
    std::error_code EC;
    if (!fs::is_regular_file(P, EC))
      fail(Key, Relative, join(Where, Key) + ": file '" + Relative +
                              "' is missing from the bundle");
    if (fs::file_size(P, EC) == 0)
      fail(Key, Relative, join(Where, Key) + ": file '" + Relative +
                              "' is empty (truncated bundle?)");
    return P.string();
  }

  ScalarValue scalar(const Value &V) {
    ScalarValue S;
    if (auto I = V.getAsInteger()) {
      S.K = ScalarValue::Integer;
      S.I = *I;
    } else if (auto B = V.getAsBoolean()) {
      S.K = ScalarValue::Bool;
      S.I = *B;
    } else if (auto D = V.getAsNumber()) {
      S.K = ScalarValue::Float;
      S.F = *D;
    } else if (auto T = V.getAsString()) {
      S.K = ScalarValue::Text;
      S.S = T->str();
      if (S.S == "inf" || S.S == "-inf" || S.S == "nan") {
        S.K = ScalarValue::Float;
        S.F = S.S == "nan" ? NAN : (S.S == "inf" ? INFINITY : -INFINITY);
      }
    }
    return S;
  }

  void readTensors(const Object &Tensors, Manifest &M) {
    static const std::vector<std::string> Roles = {"input", "output", "param",
                                                   "intermediate", "scratch"};
    for (const auto &[Key, V] : Tensors) {
      std::string Where = "tensors." + Key.str();
      const Object *O = V.getAsObject();
      if (!O)
        fail(Key.str(), "", Where + " must be an object");
      Tensor T;
      T.Name = Key.str();
      T.DType = string(*O, "dtype", Where);
      if (!manifestDType(T.DType, T.Element))
        fail("dtype", T.DType, Where + ": unknown dtype '" + T.DType + "'");
      T.Shape = integers(*O, "shape", Where);
      T.Strides = integers(*O, "strides", Where);
      if (T.Shape.size() != T.Strides.size())
        fail(Key.str(), "", Where + ": shape and strides differ in rank");
      if (auto Off = O->getInteger("offset"))
        T.Offset = *Off;
      T.Role = string(*O, "role", Where);
      if (std::find(Roles.begin(), Roles.end(), T.Role) == Roles.end())
        fail("role", T.Role, Where + ": unknown role '" + T.Role + "'");
      if (auto I = O->getInteger("input_index"))
        T.InputIndex = int(*I);
      if (auto I = O->getInteger("output_index"))
        T.OutputIndex = int(*I);
      if (auto A = O->getString("alias_of"))
        T.AliasOf = A->str();
      M.Tensors[T.Name] = T;
    }
  }

  void requireTensor(const Manifest &M, const std::string &Name,
                     const std::string &Key, const std::string &Where) {
    if (!M.Tensors.count(Name))
      fail(Key, Name, Where + " names unknown tensor '" + Name + "'");
  }

  void readReference(const Object &R, Manifest &M) {
    M.Ref.Graph = existingFile(string(R, "graph", "reference"), "graph", "reference");
    M.Ref.GraphKind = optionalString(R, "graph_kind");
    if (auto S = R.getString("source")) {
      fs::path P = fs::path(Dir) / S->str();
      if (fs::exists(P))
        M.Ref.Source = P.string();
    }
    if (const Object *P = R.getObject("params"))
      for (const auto &[K, V] : *P)
        M.Ref.Params[K.str()] = scalar(V);
    if (const Array *In = R.getArray("inputs"))
      for (size_t I = 0; I < In->size(); ++I) {
        const Object *O = (*In)[I].getAsObject();
        std::string Where = "reference.inputs[" + std::to_string(I) + "]";
        if (!O)
          fail("inputs", "", Where + " must be an object");
        std::string Tensor = string(*O, "tensor", Where);
        requireTensor(M, Tensor, "tensor", Where);
        M.Ref.Inputs.push_back({optionalString(*O, "placeholder"), Tensor});
      }
    if (const Array *Out = R.getArray("outputs"))
      for (size_t I = 0; I < Out->size(); ++I) {
        auto S = (*Out)[I].getAsString();
        std::string Where = "reference.outputs[" + std::to_string(I) + "]";
        if (!S)
          fail("outputs", "", Where + " must be a tensor name");
        requireTensor(M, S->str(), "outputs", Where);
        M.Ref.Outputs.push_back(S->str());
      }
  }

  Step readStep(const Value &V, const std::string &Where, const Manifest &M) {
    const Object *O = V.getAsObject();
    if (!O)
      fail("steps", "", Where + " must be an object");
    std::string Kind = string(*O, "kind", Where);
    if (Kind == "launch")
      return {readLaunch(*O, Where, M)};
    if (Kind == "extern")
      return {readExtern(*O, Where, M)};
    fail("kind", Kind, Where + ": unknown step kind '" + Kind + "'");
  }

  Launch readLaunch(const Object &O, const std::string &Where, const Manifest &M) {
    Launch L;
    L.Kernel = string(O, "kernel", Where);
    const Object *Files = object(O, "files", Where);
    for (const char *Stage : {"ttir", "ttgir", "llir", "ptx", "metadata"}) {
      auto P = Files->getString(Stage);
      if (!P)
        fail("files", "", Where + ".files." + Stage + " is missing for kernel " +
                              L.Kernel);
      L.Files[Stage] = existingFile(P->str(), Stage, Where + ".files");
    }
    std::vector<int64_t> Grid = integers(O, "grid", Where);
    if (Grid.size() != 3 || Grid[0] < 0 || Grid[1] < 0 || Grid[2] < 0)
      fail("grid", "", Where + ".grid must be three non-negative integers");
    L.Grid = {uint64_t(Grid[0]), uint64_t(Grid[1]), uint64_t(Grid[2])};
    if (auto N = O.getInteger("num_warps"))
      L.NumWarps = int(*N);
    if (auto N = O.getInteger("num_stages"))
      L.NumStages = int(*N);
    if (auto T = O.getNumber("compile_time_s"))
      L.CompileSeconds = *T;
    L.Hash = optionalString(O, "hash");
    const Array *Args = array(O, "args", Where);
    for (size_t I = 0; I < Args->size(); ++I) {
      std::string AW = Where + ".args[" + std::to_string(I) + "]";
      const Object *A = (*Args)[I].getAsObject();
      if (!A)
        fail("args", "", AW + " must be an object");
      LaunchArg Arg;
      Arg.Name = string(*A, "name", AW);
      Arg.Type = string(*A, "type", AW);
      ir::Type Ignored = ir::Type::f32();
      if (!Arg.isConstexpr() && !tritonType(Arg.Type, Ignored))
        fail("type", Arg.Type, AW + " (" + Arg.Name + "): unknown type '" +
                                   Arg.Type + "'");
      if (Arg.isPointer()) {
        const Value *T = A->get("tensor");
        if (!T)
          fail("name", Arg.Name, AW + " (" + Arg.Name +
                                     "): a pointer argument needs 'tensor'");
        if (auto S = T->getAsString()) {
          Arg.Tensor = S->str();
          requireTensor(M, Arg.Tensor, "tensor", AW + " (" + Arg.Name + ")");
        }
        if (auto Off = A->getInteger("element_offset"))
          Arg.ElementOffset = *Off;
      } else {
        const Value *Val = A->get("value");
        if (!Val)
          fail("name", Arg.Name, AW + " (" + Arg.Name + "): a scalar argument needs 'value'");
        Arg.Value = scalar(*Val);
      }
      L.Args.push_back(Arg);
    }
    return L;
  }

  Extern readExtern(const Object &O, const std::string &Where, const Manifest &M) {
    Extern E;
    E.Op = string(O, "op", Where);
    E.Call = optionalString(O, "call");
    for (const Value &V : *array(O, "inputs", Where)) {
      auto S = V.getAsString();
      if (!S)
        fail("inputs", "", Where + ".inputs must hold tensor names");
      requireTensor(M, S->str(), "inputs", Where + ".inputs");
      E.Inputs.push_back(S->str());
    }
    const Value &Out = field(O, "output", Where);
    if (auto S = Out.getAsString())
      E.Outputs.push_back(S->str());
    else if (const Array *A = Out.getAsArray())
      for (const Value &V : *A)
        if (auto S = V.getAsString())
          E.Outputs.push_back(S->str());
    for (const std::string &T : E.Outputs)
      requireTensor(M, T, "output", Where + ".output");
    E.Overload = optionalString(O, "overload");
    if (const Object *Args = object(O, "args", Where, /*Required=*/false))
      readExternArgs(*Args, Where + ".args", E);
    return E;
  }

  void readExternArgs(const Object &Args, const std::string &Where, Extern &E) {
    for (const auto &[Key, V] : Args) {
      std::string K = Key.str();
      if (K == "positional") {
        const Array *A = V.getAsArray();
        if (!A)
          fail(K, "", Where + ".positional must be a list");
        for (const Value &P : *A) {
          const Object *PO = P.getAsObject();
          const Value *Val = PO ? PO->get("value") : nullptr;
          auto Index = PO ? PO->getInteger("index") : std::nullopt;
          if (!Val || !Index)
            fail(K, "", Where + ".positional entries need 'index' and 'value'");
          E.Positional.push_back({int(*Index), scalar(*Val)});
        }
      } else if (K == "input_views") {
        const Object *Views = V.getAsObject();
        if (!Views)
          fail(K, "", Where + ".input_views must be an object");
        for (const auto &[Pos, View] : *Views) {
          std::string VW = Where + ".input_views." + Pos.str();
          const Object *VO = View.getAsObject();
          size_t Index = std::strtoul(Pos.str().c_str(), nullptr, 10);
          if (!VO || Index >= E.Inputs.size())
            fail(Pos.str(), "", VW + " must be a view of an input by position");
          TensorView TV;
          TV.Shape = integers(*VO, "shape", VW);
          TV.Strides = integers(*VO, "strides", VW);
          if (TV.Shape.size() != TV.Strides.size())
            fail(Pos.str(), "", VW + ": shape and strides differ in rank");
          if (auto Off = VO->getInteger("element_offset"))
            TV.ElementOffset = *Off;
          else if (auto Off2 = VO->getInteger("offset"))
            TV.ElementOffset = *Off2;
          E.InputViews[Index] = TV;
        }
      } else if (!V.getAsObject() && !V.getAsArray()) {
        E.Keywords[K] = scalar(V);
      }
    }
  }
};

} // namespace

Manifest loadBundle(const std::string &Dir) {
  std::error_code EC;
  if (!fs::is_directory(Dir, EC))
    throw ir::InputError({Dir, 0, 0}, "not a bundle directory");
  std::string Path = (fs::path(Dir) / "manifest.json").string();
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw ir::InputError({Path, 0, 0}, "missing manifest.json: not a bundle");
  std::ostringstream S;
  S << In.rdbuf();
  return Reader(Dir, Path, S.str()).read();
}

KernelMetadata readKernelMetadata(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw ir::InputError({Path, 0, 0}, "cannot read kernel metadata");
  std::ostringstream S;
  S << In.rdbuf();
  llvm::Expected<Value> Parsed = llvm::json::parse(S.str());
  if (!Parsed) {
    std::string Message = llvm::toString(Parsed.takeError());
    throw ir::InputError({Path, 0, 0}, "malformed kernel metadata: " + Message);
  }
  const Object *Root = Parsed->getAsObject();
  if (!Root)
    throw ir::InputError({Path, 0, 0}, "kernel metadata is not a JSON object");
  // A field the checks read that is there with another type is an error,
  // not Triton's default: fp fusion and the architecture decide what a
  // proof may assume.
  auto Wrong = [&](const char *Field, const char *Type) {
    return ir::InputError({Path, 0, 0}, std::string("kernel metadata field '") +
                                            Field + "' is not " + Type);
  };
  auto Flag = [&](const char *Field, bool &Out) {
    if (const Value *V = Root->get(Field)) {
      if (!V->getAsBoolean())
        throw Wrong(Field, "a boolean");
      Out = *V->getAsBoolean();
    }
  };
  KernelMetadata K;
  if (auto N = Root->getString("name"))
    K.Name = N->str();
  Flag("enable_fp_fusion", K.FpFusion);
  Flag("enable_reflect_ftz", K.ReflectFtz);
  if (const Value *N = Root->get("num_warps")) {
    if (!N->getAsInteger())
      throw Wrong("num_warps", "an integer");
    K.NumWarps = int(*N->getAsInteger());
  }
  if (const Value *T = Root->get("target")) {
    const Object *Target = T->getAsObject();
    if (!Target)
      throw Wrong("target", "an object");
    if (const Value *A = Target->get("arch")) {
      if (!A->getAsInteger())
        throw Wrong("target.arch", "an integer");
      K.Capability = int(*A->getAsInteger());
    }
  }
  return K;
}

} // namespace stagecheck::bundle

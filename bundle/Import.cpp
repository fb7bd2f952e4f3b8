#include "bundle/Import.h"

#include "bundle/Manifest.h"
#include "ir/Errors.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using llvm::json::Array;
using llvm::json::Object;

namespace stagecheck::bundle {

namespace {

std::string slurp(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  if (!In)
    throw ir::InputError({P.string(), 0, 0}, "cannot read file");
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::vector<int64_t> intTuple(const std::string &Text) {
  std::vector<int64_t> Out;
  static const std::regex Number(R"(-?\d+)");
  for (auto It = std::sregex_iterator(Text.begin(), Text.end(), Number);
       It != std::sregex_iterator(); ++It)
    Out.push_back(std::stoll(It->str()));
  return Out;
}

std::string dtypeOf(const std::string &Torch) {
  static const std::map<std::string, std::string> Map = {
      {"torch.float32", "f32"}, {"torch.float16", "f16"},
      {"torch.bfloat16", "bf16"}, {"torch.float64", "f64"},
      {"torch.int64", "i64"},   {"torch.int32", "i32"},
      {"torch.int16", "i16"},   {"torch.int8", "i8"},
      {"torch.uint8", "u8"},    {"torch.bool", "bool"}};
  auto It = Map.find(Torch);
  return It == Map.end() ? "" : It->second;
}

/// Splits a call's argument list at top-level commas.
std::vector<std::string> splitArgs(const std::string &Text) {
  std::vector<std::string> Out;
  int Depth = 0;
  std::string Cur;
  for (char C : Text) {
    if (C == '(' || C == '[' || C == '{')
      ++Depth;
    if (C == ')' || C == ']' || C == '}')
      --Depth;
    if (C == ',' && Depth == 0) {
      Out.push_back(Cur);
      Cur.clear();
      continue;
    }
    Cur += C;
  }
  Out.push_back(Cur);
  for (std::string &S : Out) {
    size_t B = S.find_first_not_of(" \t\n");
    size_t E = S.find_last_not_of(" \t\n");
    S = B == std::string::npos ? "" : S.substr(B, E - B + 1);
  }
  if (!Out.empty() && Out.back().empty())
    Out.pop_back();
  return Out;
}

struct KernelDef {
  std::string Name;
  std::vector<std::pair<std::string, std::string>> Signature; // in order
  std::string GridType;
  std::string Source;      // the @triton.jit source in output_code.py
  std::string KernelPath;  // `# kernel path:` as written
  unsigned DefLine = 0;
};

struct TensorDecl {
  std::string DType;
  std::vector<int64_t> Shape, Strides;
  int64_t Offset = 0;
  std::string AliasOf;
  std::string Role = "intermediate";
  int InputIndex = -1, OutputIndex = -1;
};

struct HostStep {
  bool IsLaunch;
  std::string Kernel; // launch
  std::vector<std::string> Args;
  std::string Op, Call; // extern
  std::vector<std::string> Inputs;
  std::string Output;
  unsigned Line;
};

/// What output_code.py says about one compiled graph.
struct HostProgram {
  std::map<std::string, KernelDef> Kernels;
  std::map<std::string, TensorDecl> Tensors;
  std::vector<std::string> TensorOrder;
  std::vector<HostStep> Steps;
  std::vector<std::string> Outputs;
};

class HostParser {
public:
  HostParser(std::string Path, std::string Text)
      : Path(std::move(Path)), Text(std::move(Text)) {}

  HostProgram parse() {
    std::vector<std::string> Lines;
    std::istringstream In(Text);
    for (std::string L; std::getline(In, L);)
      Lines.push_back(L);
    parseKernels(Lines);
    parseCall(Lines);
    parseInputDTypes(Lines);
    return std::move(P);
  }

private:
  std::string Path, Text;
  HostProgram P;

  [[noreturn]] void fail(unsigned Line, const std::string &Msg) {
    throw ir::InputError({Path, Line, 1}, Msg);
  }

  void parseKernels(const std::vector<std::string> &Lines) {
    static const std::regex Def(R"(^(\w+) = async_compile\.triton\('(\w+)',)");
    std::string LastPath;
    for (size_t I = 0; I < Lines.size(); ++I) {
      const std::string &L = Lines[I];
      if (L.rfind("# kernel path: ", 0) == 0)
        LastPath = L.substr(15);
      std::smatch M;
      if (!std::regex_search(L, M, Def))
        continue;
      KernelDef K;
      K.Name = M[1];
      K.KernelPath = LastPath;
      K.DefLine = unsigned(I + 1);
      size_t J = I + 1;
      for (; J < Lines.size() && Lines[J].rfind("''', device_str", 0) != 0; ++J)
        K.Source += Lines[J] + "\n";
      if (J == Lines.size())
        fail(unsigned(I + 1), "the source of kernel " + K.Name + " never ends");
      static const std::regex Sig(R"('signature': \{([^}]*)\})");
      std::smatch SM;
      if (!std::regex_search(K.Source, SM, Sig))
        fail(unsigned(I + 1), "kernel " + K.Name + " has no triton_meta signature");
      std::string SigText = SM[1];
      static const std::regex Entry(R"('(\w+)': '([^']+)')");
      for (auto It = std::sregex_iterator(SigText.begin(), SigText.end(), Entry);
           It != std::sregex_iterator(); ++It)
        K.Signature.push_back({(*It)[1], (*It)[2]});
      static const std::regex Grid(R"('grid_type': '(\w+)')");
      if (std::regex_search(K.Source, SM, Grid))
        K.GridType = SM[1];
      P.Kernels[K.Name] = K;
      I = J;
    }
  }

  void declare(const std::string &Name, TensorDecl T) {
    if (!P.Tensors.count(Name))
      P.TensorOrder.push_back(Name);
    P.Tensors[Name] = std::move(T);
  }

  void parseCall(const std::vector<std::string> &Lines) {
    size_t I = 0;
    while (I < Lines.size() && Lines[I].find("def call(") == std::string::npos)
      ++I;
    if (I == Lines.size())
      fail(1, "no call() function: not an inductor output_code.py");
    static const std::regex Inputs(R"(^\s*([\w, ]+?),?\s*=\s*args\s*$)");
    static const std::regex Assert(R"(assert_size_stride\((\w+), (\([^)]*\)), (\([^)]*\)))");
    static const std::regex Empty(
        R"(^\s*(\w+) = empty_strided_cuda\((\([^)]*\)), (\([^)]*\)), (torch\.\w+)\))");
    static const std::regex Reuse(R"(^\s*(\w+) = (\w+); del \w+\s*# reuse)");
    static const std::regex View(
        R"(^\s*(\w+) = reinterpret_tensor\((\w+), (\([^)]*\)), (\([^)]*\)), (\d+)\))");
    static const std::regex Run(R"(^\s*(\w+)\.run\((.*)\)\s*$)");
    static const std::regex ExternCall(R"(^\s*extern_kernels\.(\w+)\((.*)\)\s*$)");
    static const std::regex Return(R"(^\s*return \((.*)\)\s*$)");
    for (++I; I < Lines.size(); ++I) {
      const std::string &L = Lines[I];
      unsigned LineNo = unsigned(I + 1);
      if (!L.empty() && L[0] != ' ' && L[0] != '\t' && L[0] != '#')
        break; // end of the function
      std::smatch M;
      if (std::regex_search(L, M, Inputs) && L.find("args") != std::string::npos &&
          P.TensorOrder.empty()) {
        int Index = 0;
        for (const std::string &N : splitArgs(M[1])) {
          TensorDecl T;
          T.Role = "input";
          T.InputIndex = Index++;
          declare(N, T);
        }
      } else if (std::regex_search(L, M, Assert)) {
        if (!P.Tensors.count(M[1]))
          fail(LineNo, "assert_size_stride on unknown tensor " + M[1].str());
        P.Tensors[M[1]].Shape = intTuple(M[2]);
        P.Tensors[M[1]].Strides = intTuple(M[3]);
      } else if (std::regex_search(L, M, Empty)) {
        TensorDecl T;
        T.Shape = intTuple(M[2]);
        T.Strides = intTuple(M[3]);
        T.DType = dtypeOf(M[4]);
        if (T.DType.empty())
          fail(LineNo, "unknown dtype " + M[4].str());
        declare(M[1], T);
      } else if (std::regex_search(L, M, Reuse)) {
        if (!P.Tensors.count(M[2]))
          fail(LineNo, "reuse of unknown buffer " + M[2].str());
        TensorDecl T = P.Tensors[M[2]];
        T.AliasOf = M[2];
        T.Role = "intermediate";
        T.InputIndex = -1;
        declare(M[1], T);
      } else if (std::regex_search(L, M, View)) {
        if (!P.Tensors.count(M[2]))
          fail(LineNo, "view of unknown buffer " + M[2].str());
        TensorDecl T = P.Tensors[M[2]];
        T.Shape = intTuple(M[3]);
        T.Strides = intTuple(M[4]);
        T.Offset = std::stoll(M[5]);
        T.AliasOf = M[2];
        T.Role = "intermediate";
        T.InputIndex = -1;
        declare(M[1], T);
      } else if (std::regex_search(L, M, Run) && P.Kernels.count(M[1])) {
        HostStep S{true, M[1], {}, "", "", {}, "", LineNo};
        for (const std::string &A : splitArgs(M[2]))
          if (A.rfind("stream=", 0) != 0)
            S.Args.push_back(A);
        P.Steps.push_back(S);
      } else if (std::regex_search(L, M, ExternCall)) {
        HostStep S{false, "", {}, "aten." + M[1].str(),
                   "extern_kernels." + M[1].str(), {}, "", LineNo};
        for (const std::string &A : splitArgs(M[2])) {
          if (A.rfind("out=", 0) == 0)
            S.Output = A.substr(4);
          else if (P.Tensors.count(A))
            S.Inputs.push_back(A);
        }
        if (S.Output.empty())
          fail(LineNo, "extern call without out=: " + L);
        P.Steps.push_back(S);
      } else if (std::regex_search(L, M, Return)) {
        for (const std::string &O : splitArgs(M[1]))
          P.Outputs.push_back(O);
        break;
      }
    }
    int Index = 0;
    for (const std::string &O : P.Outputs) {
      if (!P.Tensors.count(O))
        fail(unsigned(I + 1), "call() returns unknown tensor " + O);
      P.Tensors[O].Role = "output";
      P.Tensors[O].OutputIndex = Index++;
    }
  }

  /// Input dtypes are only in get_args(): rand_strided(shape, strides, ..., dtype=).
  void parseInputDTypes(const std::vector<std::string> &Lines) {
    static const std::regex Rand(
        R"(^\s*(\w+) = rand_strided\(.*dtype=(torch\.\w+)\))");
    for (const std::string &L : Lines) {
      std::smatch M;
      if (std::regex_search(L, M, Rand) && P.Tensors.count(M[1]))
        P.Tensors[M[1]].DType = dtypeOf(M[2]);
    }
    for (const std::string &N : P.TensorOrder)
      if (P.Tensors[N].DType.empty())
        throw ir::InputError({Path, 0, 0}, "no dtype found for tensor " + N);
  }
};

/// The kernel files of the caches: Triton cache folders by the kernel names
/// they hold, and the autotuning choices inductor recorded.
struct Caches {
  std::map<std::string, std::vector<fs::path>> VariantsByKernel; // folder per variant
  std::map<std::string, std::string> ChosenFolder;               // kernel -> folder name
  std::map<std::string, Object> ChosenConfig;                    // kernel -> best_config
  std::map<std::string, fs::path> InductorKernelFiles;           // basename -> path
};

Caches scanCaches(const fs::path &Root) {
  Caches C;
  std::vector<std::pair<fs::path, Object>> BestConfigs;
  std::error_code EC;
  for (auto It = fs::recursive_directory_iterator(Root, EC);
       !EC && It != fs::recursive_directory_iterator(); It.increment(EC)) {
    const fs::path &P = It->path();
    std::string Name = P.filename().string();
    if (Name.rfind("__grp__", 0) == 0 && P.extension() == ".json") {
      std::string Kernel = Name.substr(7, Name.size() - 7 - 5);
      if (fs::exists(P.parent_path() / (Kernel + ".ttir")))
        C.VariantsByKernel[Kernel].push_back(P.parent_path());
    } else if (P.extension() == ".best_config") {
      auto Parsed = llvm::json::parse(slurp(P));
      if (Parsed && Parsed->getAsObject())
        BestConfigs.push_back({P, *Parsed->getAsObject()});
    } else if (P.extension() == ".py" && P.parent_path().filename().string().size() == 2) {
      C.InductorKernelFiles[Name] = P;
    }
  }
  for (auto &[Kernel, Folders] : C.VariantsByKernel)
    std::sort(Folders.begin(), Folders.end());
  for (auto &[Path, Config] : BestConfigs) {
    auto Folder = Config.getString("triton_cache_hash");
    if (!Folder)
      continue;
    for (auto &[Kernel, Folders] : C.VariantsByKernel)
      for (const fs::path &F : Folders)
        if (F.filename() == Folder->str()) {
          C.ChosenFolder[Kernel] = Folder->str();
          C.ChosenConfig[Kernel] = Config;
        }
  }
  return C;
}

/// Constexpr values of a compiled variant: from its best_config when it is
/// the chosen one, else nothing (the values then are only in the stage files).
std::map<std::string, llvm::json::Value> constexprValues(const Object *Config) {
  std::map<std::string, llvm::json::Value> Out;
  if (!Config)
    return Out;
  static const std::set<std::string> NotConstexpr = {
      "num_warps", "num_stages", "configs_hash", "found_by_coordesc",
      "time_taken_ms", "triton_cache_hash", "num_ctas", "maxnreg"};
  for (const auto &[K, V] : *Config)
    if (!NotConstexpr.count(K.str()))
      Out.emplace(K.str(), V);
  return Out;
}

uint64_t ceilDiv(uint64_t A, uint64_t B) { return B ? (A + B - 1) / B : 0; }

class BundleWriter {
public:
  BundleWriter(const fs::path &GraphDir, const HostProgram &Host,
               const Caches &Cache, const fs::path &Out, std::string Name)
      : GraphDir(GraphDir), Host(Host), Cache(Cache), Out(Out),
        Name(std::move(Name)) {}

  /// Writes the bundle choosing, for kernels without a recorded choice, the
  /// variant at VariantIndex. Returns what it wrote.
  ImportedBundle write(const std::map<std::string, size_t> &VariantChoice) {
    ImportedBundle B;
    B.Dir = Out.string();
    B.Name = Name;
    fs::create_directories(Out / "reference");
    fs::create_directories(Out / "host");
    copyGraphs();
    fs::copy_file(GraphDir / "output_code.py", Out / "host/output_code.py",
                  fs::copy_options::overwrite_existing);
    Object Tensors;
    for (const std::string &N : Host.TensorOrder)
      Tensors[N] = tensorJson(Host.Tensors.at(N));
    Array Steps;
    for (const HostStep &S : Host.Steps) {
      if (S.IsLaunch) {
        Steps.push_back(launchJson(S, VariantChoice, B));
        ++B.Launches;
      } else {
        Steps.push_back(Object{{"kind", "extern"},
                               {"op", S.Op},
                               {"call", S.Call},
                               {"inputs", Array(S.Inputs)},
                               {"output", S.Output},
                               {"args", Object{}},
                               {"host_line", int64_t(S.Line)}});
        ++B.Externs;
      }
    }
    Array Inputs, Outputs;
    for (const std::string &N : Host.TensorOrder)
      if (Host.Tensors.at(N).Role == "input")
        Inputs.push_back(Object{{"placeholder", N}, {"tensor", N}});
    for (const std::string &O : Host.Outputs)
      Outputs.push_back(O);
    Object Reference{{"graph", "reference/graph.py"},
                     {"graph_kind", GraphKind},
                     {"graph_file", "reference/" + GraphFile},
                     {"other_graphs", Array(OtherGraphs)},
                     {"params", Object{}},
                     {"inputs", std::move(Inputs)},
                     {"outputs", std::move(Outputs)}};
    Object Manifest{
        {"format", "stagecheck-bundle"},
        {"version", FormatVersion},
        {"name", Name},
        {"origin", Object{{"tool", "stagecheck import"},
                          {"mode", "inductor"},
                          {"capability", Capability},
                          {"torch", nullptr},
                          {"triton", nullptr}}},
        {"reference", std::move(Reference)},
        {"host", Object{{"output_code", "host/output_code.py"},
                        {"grid_in_output_code", false}}},
        {"tensors", std::move(Tensors)},
        {"steps", std::move(Steps)}};
    std::error_code EC;
    llvm::raw_fd_ostream OS((Out / "manifest.json").string(), EC);
    if (EC)
      throw ir::InputError({(Out / "manifest.json").string(), 0, 0},
                           "cannot write: " + EC.message());
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Manifest))) << "\n";
    return B;
  }

private:
  const fs::path &GraphDir;
  const HostProgram &Host;
  const Caches &Cache;
  fs::path Out;
  std::string Name;
  std::string GraphKind, GraphFile;
  std::vector<std::string> OtherGraphs;
  int64_t Capability = 0;

  void copyGraphs() {
    for (const char *F : {"fx_graph_readable.py", "fx_graph_runnable.py",
                          "fx_graph_transformed.py"})
      if (fs::exists(GraphDir / F)) {
        fs::copy_file(GraphDir / F, Out / "reference" / F,
                      fs::copy_options::overwrite_existing);
        OtherGraphs.push_back(std::string("reference/") + F);
      }
    GraphFile = fs::exists(GraphDir / "fx_graph_transformed.py")
                    ? "fx_graph_transformed.py"
                    : "fx_graph_readable.py";
    GraphKind = GraphFile == "fx_graph_transformed.py" ? "inductor-post-grad"
                                                       : "inductor-pre-grad";
    if (!fs::exists(GraphDir / GraphFile))
      throw ir::InputError({GraphDir.string(), 0, 0},
                           "no fx_graph_transformed.py or fx_graph_readable.py");
    fs::copy_file(GraphDir / GraphFile, Out / "reference/graph.py",
                  fs::copy_options::overwrite_existing);
  }

  static Object tensorJson(const TensorDecl &T) {
    Object J{{"dtype", T.DType},
             {"shape", Array(T.Shape)},
             {"strides", Array(T.Strides)},
             {"offset", T.Offset},
             {"role", T.Role}};
    if (T.InputIndex >= 0)
      J["input_index"] = T.InputIndex;
    if (T.OutputIndex >= 0)
      J["output_index"] = T.OutputIndex;
    if (!T.AliasOf.empty())
      J["alias_of"] = T.AliasOf;
    return J;
  }

  Object launchJson(const HostStep &S, const std::map<std::string, size_t> &Choice,
                    ImportedBundle &B) {
    const KernelDef &K = Host.Kernels.at(S.Kernel);
    auto Variants = Cache.VariantsByKernel.find(S.Kernel);
    if (Variants == Cache.VariantsByKernel.end())
      throw ir::InputError({GraphDir.string() + "/output_code.py", S.Line, 1},
                           "no Triton cache folder holds kernel " + S.Kernel +
                               " (is --triton-cache the right directory?)");
    fs::path Folder;
    const Object *Config = nullptr;
    if (auto C = Cache.ChosenFolder.find(S.Kernel); C != Cache.ChosenFolder.end()) {
      for (const fs::path &F : Variants->second)
        if (F.filename() == C->second)
          Folder = F;
      Config = &Cache.ChosenConfig.at(S.Kernel);
    } else {
      size_t I = Choice.count(S.Kernel) ? Choice.at(S.Kernel) : 0;
      Folder = Variants->second[I];
      if (Variants->second.size() > 1)
        B.Notes.push_back("kernel " + S.Kernel + ": no autotuning choice recorded; "
                          "this bundle takes variant " + Folder.filename().string());
    }
    fs::path KDir = Out / "kernels" / S.Kernel;
    fs::create_directories(KDir);
    Object Files;
    for (const char *Ext : {"ttir", "ttgir", "llir", "ptx", "json", "source"}) {
      fs::path From = Folder / (S.Kernel + "." + Ext);
      if (!fs::exists(From)) {
        if (std::string(Ext) == "source")
          continue;
        throw ir::InputError({Folder.string(), 0, 0},
                             "Triton cache folder lacks " + From.filename().string());
      }
      fs::copy_file(From, KDir / From.filename(), fs::copy_options::overwrite_existing);
      std::string Key = std::string(Ext) == "json" ? "metadata" : Ext;
      if (Key != "source")
        Files[Key] = "kernels/" + S.Kernel + "/" + From.filename().string();
    }
    std::string Basename = fs::path(K.KernelPath).filename().string();
    if (auto P = Cache.InductorKernelFiles.find(Basename);
        P != Cache.InductorKernelFiles.end())
      fs::copy_file(P->second, KDir / (S.Kernel + ".py"),
                    fs::copy_options::overwrite_existing);
    // Triton's metadata: warps, stages, hash, target.
    auto Meta = llvm::json::parse(slurp(Folder / (S.Kernel + ".json")));
    if (!Meta || !Meta->getAsObject())
      throw ir::InputError({(Folder / (S.Kernel + ".json")).string(), 1, 1},
                           "malformed Triton metadata");
    const Object &M = *Meta->getAsObject();
    if (const Object *T = M.getObject("target"))
      if (auto A = T->getInteger("arch"))
        Capability = *A;
    // Arguments: call() passes the non-constexpr ones in signature order.
    std::map<std::string, llvm::json::Value> Constexprs = constexprValues(Config);
    Array Args;
    std::map<std::string, int64_t> Numels;
    size_t Next = 0;
    for (const auto &[ArgName, Type] : K.Signature) {
      Object A{{"name", ArgName}, {"type", Type}};
      if (Type == "constexpr") {
        auto C = Constexprs.find(ArgName);
        A["value"] = C == Constexprs.end() ? llvm::json::Value(nullptr) : C->second;
        if (C == Constexprs.end())
          B.Notes.push_back("kernel " + S.Kernel + ": value of constexpr " +
                            ArgName + " not recorded");
      } else {
        if (Next >= S.Args.size())
          throw ir::InputError({GraphDir.string() + "/output_code.py", S.Line, 1},
                               S.Kernel + ".run passes fewer arguments than its "
                                          "signature has");
        const std::string &Actual = S.Args[Next++];
        if (Type[0] == '*') {
          std::string Tensor = Actual;
          static const std::regex View(R"(reinterpret_tensor\((\w+),)");
          std::smatch VM;
          if (std::regex_search(Actual, VM, View))
            Tensor = VM[1];
          if (!Host.Tensors.count(Tensor))
            throw ir::InputError({GraphDir.string() + "/output_code.py", S.Line, 1},
                                 S.Kernel + ": argument " + ArgName +
                                     " is not a known tensor: " + Actual);
          A["tensor"] = Tensor;
          A["element_offset"] = Host.Tensors.at(Tensor).Offset;
        } else {
          A["value"] = std::stoll(Actual);
          Numels[ArgName] = std::stoll(Actual);
        }
      }
      Args.push_back(std::move(A));
    }
    auto Block = [&](const char *N) -> uint64_t {
      auto C = Constexprs.find(N);
      if (C == Constexprs.end())
        return 0;
      auto I = C->second.getAsInteger();
      return I ? uint64_t(*I) : 0;
    };
    std::array<uint64_t, 3> Grid = {1, 1, 1};
    const char *Dims[] = {"x", "y", "z"};
    const char *Blocks[] = {"XBLOCK", "YBLOCK", "ZBLOCK"};
    unsigned Rank = K.GridType == "Grid1D" ? 1 : K.GridType == "Grid2D" ? 2
                    : K.GridType == "Grid3D" ? 3 : 0;
    if (!Rank)
      B.Notes.push_back("kernel " + S.Kernel + ": grid type '" + K.GridType +
                        "' not understood; grid left as 1x1x1");
    for (unsigned D = 0; D < Rank; ++D) {
      auto N = Numels.find(std::string(Dims[D]) + "numel");
      uint64_t BlockSize = Block(Blocks[D]);
      if (N == Numels.end() || !BlockSize) {
        B.Notes.push_back("kernel " + S.Kernel + ": cannot compute grid dimension " +
                          Dims[D]);
        continue;
      }
      Grid[D] = ceilDiv(uint64_t(N->second), BlockSize);
    }
    Object L{{"kind", "launch"},
             {"kernel", S.Kernel},
             {"files", std::move(Files)},
             {"grid", Array{int64_t(Grid[0]), int64_t(Grid[1]), int64_t(Grid[2])}},
             {"num_warps", M.getInteger("num_warps").value_or(4)},
             {"num_stages", M.getInteger("num_stages").value_or(0)},
             {"compile_time_s", nullptr},
             {"hash", M.getString("hash") ? M.getString("hash")->str() : ""},
             {"triton_cache_key", Folder.filename().string()},
             {"host_line", int64_t(S.Line)},
             {"args", std::move(Args)}};
    return L;
  }
};

std::vector<fs::path> graphDirs(const fs::path &Root) {
  std::vector<fs::path> Out;
  std::set<std::string> Seen; // the same program also sits in the cache's .debug
  std::error_code EC;
  std::vector<fs::path> Candidates;
  for (auto It = fs::recursive_directory_iterator(Root, EC);
       !EC && It != fs::recursive_directory_iterator(); It.increment(EC))
    if (It->path().filename() == "output_code.py")
      Candidates.push_back(It->path().parent_path());
  std::sort(Candidates.begin(), Candidates.end(), [](const fs::path &A, const fs::path &B) {
    // Debug-run folders first: they name the graph (model__0_inference_0.0).
    bool DA = A.string().find(".debug") != std::string::npos;
    bool DB = B.string().find(".debug") != std::string::npos;
    return DA != DB ? DB : A < B;
  });
  for (const fs::path &D : Candidates)
    if (Seen.insert(slurp(D / "output_code.py")).second)
      Out.push_back(D);
  return Out;
}

std::string bundleName(const fs::path &GraphDir) {
  std::string N = GraphDir.filename().string();
  if (N.size() > 6 && N.substr(N.size() - 6) == ".debug")
    N = N.substr(0, N.size() - 6);
  for (char &C : N)
    if (!std::isalnum((unsigned char)C) && C != '_' && C != '-')
      C = '_';
  return N;
}

} // namespace

std::vector<ImportedBundle> importBundles(const ImportOptions &O) {
  for (const std::string *D : {&O.TorchDebugDir, &O.CacheDir})
    if (!fs::is_directory(*D))
      throw ir::InputError({*D, 0, 0}, "not a directory");
  std::vector<fs::path> Graphs = graphDirs(O.TorchDebugDir);
  if (Graphs.empty())
    throw ir::InputError({O.TorchDebugDir, 0, 0},
                         "no output_code.py found: not a TORCH_COMPILE_DEBUG "
                         "directory (or a parent of one)");
  Caches Cache = scanCaches(O.CacheDir);
  std::vector<ImportedBundle> Out;
  for (const fs::path &G : Graphs) {
    std::string Path = (G / "output_code.py").string();
    HostProgram Host = HostParser(Path, slurp(Path)).parse();
    // Kernels whose autotuning choice is not recorded: one bundle per variant.
    std::vector<std::string> Open;
    size_t Variants = 1;
    for (const HostStep &S : Host.Steps)
      if (S.IsLaunch && !Cache.ChosenFolder.count(S.Kernel) &&
          Cache.VariantsByKernel.count(S.Kernel) &&
          Cache.VariantsByKernel.at(S.Kernel).size() > 1) {
        Open.push_back(S.Kernel);
        Variants = std::max(Variants, Cache.VariantsByKernel.at(S.Kernel).size());
      }
    for (size_t V = 0; V < Variants; ++V) {
      std::map<std::string, size_t> Choice;
      for (const std::string &K : Open)
        Choice[K] = std::min(V, Cache.VariantsByKernel.at(K).size() - 1);
      std::string Name = bundleName(G) + (Variants > 1 ? "__variant" + std::to_string(V) : "");
      fs::path Dir = fs::path(O.OutputDir) / Name;
      fs::remove_all(Dir);
      Out.push_back(BundleWriter(G, Host, Cache, Dir, Name).write(Choice));
    }
  }
  return Out;
}

} // namespace stagecheck::bundle

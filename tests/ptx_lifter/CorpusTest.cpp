// Every corpus kernel's PTX lifts (with its bundle's interface), every
// inline-asm template of the corpus .llir files lifts through
// liftInlineAsm, and the coverage table of docs/coverage.md.

#include "TestUtil.h"

#include "bundle/Manifest.h"
#include "ptx_lifter/Ptx.h"

#include "ir/Errors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

using namespace stagecheck;
using namespace stagecheck::ir;
namespace fs = std::filesystem;

namespace {

struct CorpusKernel {
  std::string Name; // bundle_kernel
  std::string Ptx, Llir;
  KernelInterface Interface;
};

std::vector<CorpusKernel> corpusKernels() {
  std::vector<CorpusKernel> Out;
  fs::path Root = fs::path(STAGECHECK_TEST_DIR) / "corpus";
  std::vector<fs::path> Bundles;
  for (const auto &E : fs::directory_iterator(Root))
    if (fs::exists(E.path() / "manifest.json"))
      Bundles.push_back(E.path());
  std::sort(Bundles.begin(), Bundles.end());
  for (const fs::path &B : Bundles) {
    bundle::Manifest M = bundle::loadBundle(B.string());
    for (const bundle::Launch *L : M.launches()) {
      std::string Ptx = L->file("ptx");
      if (Ptx.empty())
        continue;
      std::string Name = B.filename().string() + "_" + L->Kernel;
      for (char &Ch : Name)
        if (!std::isalnum(static_cast<unsigned char>(Ch)))
          Ch = '_';
      // Several launches of one kernel share their stage files.
      bool Seen =
          std::any_of(Out.begin(), Out.end(),
                      [&](const CorpusKernel &K) { return K.Ptx == Ptx; });
      if (!Seen)
        Out.push_back({Name, Ptx, L->file("llir"), L->interface(M.Tensors)});
    }
  }
  return Out;
}

const std::vector<CorpusKernel> &kernels() {
  static const std::vector<CorpusKernel> K = corpusKernels();
  return K;
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

void PrintTo(const CorpusKernel &K, std::ostream *OS) { *OS << K.Name; }

class CorpusPtx : public ::testing::TestWithParam<CorpusKernel> {};

TEST_P(CorpusPtx, Lifts) {
  const CorpusKernel &K = GetParam();
  Context C;
  ptx::PtxLift L;
  try {
    L = ptx::liftPtxFile(C, K.Ptx, K.Interface);
  } catch (const UnsupportedError &E) {
    FAIL() << E.what();
  } catch (const InputError &E) {
    FAIL() << E.what();
  }
  const ptx::ThreadEffects &T = L.Thread;
  // A kernel with a store has writes (bug_d's kernel has none), and each
  // effect knows its PTX line.
  static const std::regex Store(R"re(\s(@!?%p\d+\s+)?st\.)re");
  bool Stores = std::regex_search(readFile(K.Ptx), Store);
  EXPECT_EQ(Stores, !T.Effects.Writes.empty()) << K.Name;
  EXPECT_EQ(L.WriteLines.size(), T.Effects.Writes.size());
  EXPECT_EQ(L.ExchangeLines.size(), T.Exchanges.size());
  EXPECT_EQ(L.UndefinedLines.size(), T.Effects.Undefined.size());
  for (const Write &W : T.Effects.Writes) {
    EXPECT_TRUE(L.Provenance.count(W.Value)) << K.Name;
    EXPECT_FALSE(W.Guard->isFalse());
  }
  for (unsigned Line : L.WriteLines)
    EXPECT_GT(Line, 0u);
}

std::string kernelName(const ::testing::TestParamInfo<CorpusKernel> &I) {
  return I.param.Name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusPtx, ::testing::ValuesIn(kernels()),
                         kernelName);

// --- Inline asm ----------------------------------------------------------

struct AsmCall {
  std::string Result, Template, Constraints, Args;
  unsigned Line = 0;
};

std::vector<AsmCall> asmCalls(const std::string &Llir) {
  static const std::regex Call(
      R"re(call (void|i\d+|\{[^}]*\}) asm (?:sideeffect )?"((?:[^"\\]|\\.)*)", "([^"]*)"\((.*)\))re");
  std::vector<AsmCall> Out;
  std::istringstream In(readFile(Llir));
  std::string Line;
  unsigned N = 0;
  while (std::getline(In, Line)) {
    ++N;
    std::smatch M;
    if (!std::regex_search(Line, M, Call))
      continue;
    std::string Args = M[4];
    // The argument list ends at the call's closing parenthesis.
    int Depth = 0;
    size_t End = 0;
    for (; End < Args.size(); ++End) {
      if (Args[End] == '(')
        ++Depth;
      else if (Args[End] == ')' && Depth-- == 0)
        break;
    }
    Out.push_back({M[1], M[2], M[3], Args.substr(0, End), N});
  }
  return Out;
}

std::vector<std::string> splitTopLevel(const std::string &S) {
  std::vector<std::string> Out;
  int Depth = 0;
  std::string Cur;
  for (char Ch : S) {
    if (Ch == '(' || Ch == '{')
      ++Depth;
    if (Ch == ')' || Ch == '}')
      --Depth;
    if (Ch == ',' && Depth == 0) {
      Out.push_back(Cur);
      Cur.clear();
      continue;
    }
    Cur += Ch;
  }
  if (!Cur.empty())
    Out.push_back(Cur);
  for (std::string &P : Out) {
    P.erase(0, P.find_first_not_of(' '));
    P.erase(P.find_last_not_of(' ') + 1);
  }
  return Out;
}

Type llvmType(const std::string &T) {
  if (T == "float")
    return Type::f32();
  if (T == "double")
    return Type::f64();
  if (T == "half")
    return Type::f16();
  if (T == "bfloat")
    return Type::bf16();
  if (T.rfind("ptr", 0) == 0)
    return Type::ptr(T.find("addrspace(3)") != std::string::npos
                         ? AddressSpace::Shared
                         : AddressSpace::Global);
  return Type::i(unsigned(std::stoul(T.substr(1))));
}

/// An argument of the call as the LLVM frontend would pass it: a global
/// pointer into arg0, a shared pointer off the shared base, a symbol or a
/// constant otherwise.
const Expr *argument(ptx::ThreadModel &M, const std::string &Arg, unsigned K) {
  Context &C = M.context();
  size_t Space = Arg.rfind(' ');
  std::string TypeText = Arg.substr(0, Space), Value = Arg.substr(Space + 1);
  Type T = llvmType(TypeText);
  std::string Name = "in" + std::to_string(K);
  if (T.isPtr() && T.space() == AddressSpace::Shared)
    return C.cast(
        Op::IntToPtr,
        C.add(M.sharedBase(64),
              C.cast(Op::ZExt, C.symbol(Name, Type::i(32)), Type::i(64))),
        T);
  if (T.isPtr())
    return C.cast(Op::IntToPtr,
                  C.add(M.parameter(0, 64, {}), C.symbol(Name, Type::i(64))),
                  T);
  if (!Value.empty() &&
      (std::isdigit(static_cast<unsigned char>(Value[0])) || Value[0] == '-'))
    return C.constant(T, uint64_t(std::stoll(Value)));
  return C.symbol(Name, T);
}

std::vector<Type> outputTypes(const std::string &Result) {
  if (Result == "void")
    return {};
  if (Result[0] != '{')
    return {llvmType(Result)};
  std::vector<Type> Out;
  for (const std::string &F :
       splitTopLevel(Result.substr(1, Result.size() - 2)))
    Out.push_back(llvmType(F));
  return Out;
}

TEST(CorpusInlineAsm, EveryTemplateLifts) {
  std::map<std::string, unsigned> Templates; // template -> occurrences
  unsigned Calls = 0;
  for (const CorpusKernel &K : kernels()) {
    if (K.Llir.empty())
      continue;
    for (const AsmCall &A : asmCalls(K.Llir)) {
      ++Calls;
      ++Templates[A.Template + " | " + A.Constraints];
      Context C;
      KernelInterface I;
      I.Kernel = "k";
      I.Params.push_back({"arg0", true, Type::i(8)});
      ptx::ThreadModel M(C, I, {128, 1, 1});
      std::vector<const Expr *> Inputs;
      std::vector<std::string> Args = splitTopLevel(A.Args);
      for (size_t J = 0; J < Args.size(); ++J)
        Inputs.push_back(argument(M, Args[J], unsigned(J)));
      std::vector<Type> Outs = outputTypes(A.Result);
      Origin From{"asm", {K.Llir, A.Line, 1}};
      std::vector<const Expr *> R;
      try {
        R = ptx::liftInlineAsm(M, A.Template, A.Constraints, Inputs, Outs, From,
                               /*SmVersion=*/90);
      } catch (const std::exception &E) {
        ADD_FAILURE() << K.Llir << ":" << A.Line << ": " << E.what();
        continue;
      }
      ASSERT_EQ(R.size(), Outs.size());
      for (size_t J = 0; J < R.size(); ++J)
        EXPECT_EQ(R[J]->type(), Outs[J]) << A.Template;
      ptx::ThreadEffects T = M.finish();
      // Templates that store or copy leave writes; loads read arg0 or
      // leave an undefined-behaviour condition for misalignment (i8
      // elements have none).
      static const std::regex Store(R"re((^|[ ;])(st|cp\.async)\.)re");
      bool Stores = std::regex_search(A.Template, Store);
      EXPECT_EQ(Stores, !T.Effects.Writes.empty()) << A.Template;
    }
  }
  std::cout << Calls << " inline-asm calls, " << Templates.size()
            << " distinct templates, lift\n";
  EXPECT_GE(Calls, 140u);
  EXPECT_GE(Templates.size(), 20u);
}

// --- Coverage --------------------------------------------------------------

TEST(CorpusCoverage, InstructionKinds) {
  std::map<std::string, std::pair<unsigned, unsigned>> Kinds; // total, lifted
  std::map<std::string, std::string> Reasons;
  unsigned Total = 0, Lifted = 0;
  for (const CorpusKernel &K : kernels()) {
    ptx::Module M = ptx::parseModule(readFile(K.Ptx), K.Ptx);
    Context C;
    ptx::PtxLiftOptions O;
    O.ContinueOnUnsupported = true;
    ptx::PtxLift L = ptx::liftPtxFile(C, K.Ptx, K.Interface, O);
    std::map<unsigned, std::string> Failed;
    for (const ptx::UnsupportedSite &U : L.Unsupported) {
      Failed[U.PtxLine] = U.Reason;
      Reasons[U.Instruction] = U.Reason;
    }
    for (const ptx::Function &F : M.Functions)
      for (const ptx::Statement &S : F.Body) {
        if (S.isLabel())
          continue;
        bool Ok = !Failed.count(S.Inst.Line);
        auto &Entry = Kinds[S.Inst.Opcode];
        ++Entry.first;
        Entry.second += Ok;
        ++Total;
        Lifted += Ok;
      }
  }
  std::ostringstream Table;
  Table << "| instruction | occurrences | lifted |\n|---|---:|---|\n";
  std::vector<std::pair<std::string, std::pair<unsigned, unsigned>>> Rows(
      Kinds.begin(), Kinds.end());
  std::stable_sort(Rows.begin(), Rows.end(), [](const auto &A, const auto &B) {
    return A.second.first > B.second.first;
  });
  for (const auto &[Kind, Counts] : Rows)
    Table << "| `" << Kind << "` | " << Counts.first << " | "
          << (Counts.second == Counts.first ? "yes"
                                            : "no (" + Reasons[Kind] + ")")
          << " |\n";
  Table << "\n"
        << Lifted << " of " << Total << " instruction occurrences in "
        << kernels().size() << " kernels lift (" << Kinds.size()
        << " kinds).\n";
  std::cout << Table.str();
  EXPECT_GE(Total, 2000u);
  EXPECT_GE(double(Lifted), 0.99 * double(Total));
}

} // namespace

// Every corpus .llir lifts with its bundle's interface; its sites point at
// the right lines; inferInterface agrees with the manifests.
#include "LlvmTestUtil.h"

#include "bundle/Manifest.h"
#include "ir/Errors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace stagecheck;
using namespace stagecheck::ir;
using namespace stagecheck::llvmir;
namespace fs = std::filesystem;

namespace {

struct CorpusKernel {
  std::string Name; // bundle_kernel
  std::string Llir;
  KernelInterface Interface;
  unsigned Capability;
};

std::vector<CorpusKernel> corpusKernels() {
  std::vector<CorpusKernel> Out;
  std::vector<fs::path> Bundles;
  for (const auto &E :
       fs::directory_iterator(fs::path(STAGECHECK_TEST_DIR) / "corpus"))
    if (fs::exists(E.path() / "manifest.json"))
      Bundles.push_back(E.path());
  std::sort(Bundles.begin(), Bundles.end());
  for (const fs::path &B : Bundles) {
    bundle::Manifest M = bundle::loadBundle(B.string());
    for (const bundle::Launch *L : M.launches()) {
      std::string Llir = L->file("llir");
      if (Llir.empty() ||
          std::any_of(Out.begin(), Out.end(),
                      [&](const CorpusKernel &K) { return K.Llir == Llir; }))
        continue;
      std::string Name = B.filename().string() + "_" + L->Kernel;
      for (char &Ch : Name)
        if (!std::isalnum(static_cast<unsigned char>(Ch)))
          Ch = '_';
      Out.push_back(
          {Name, Llir, L->interface(M.Tensors), unsigned(M.Capability)});
    }
  }
  return Out;
}

const std::vector<CorpusKernel> &kernels() {
  static const std::vector<CorpusKernel> K = corpusKernels();
  return K;
}

std::vector<std::string> fileLines(const std::string &Path) {
  std::ifstream In(Path);
  std::vector<std::string> Lines;
  for (std::string L; std::getline(In, L);)
    Lines.push_back(L);
  return Lines;
}

TEST(LlvmCorpus, HasEveryKernel) { EXPECT_EQ(kernels().size(), 35u); }

class CorpusLlir : public ::testing::TestWithParam<CorpusKernel> {};

TEST_P(CorpusLlir, Lifts) {
  const CorpusKernel &K = GetParam();
  Context C;
  LlvmLiftOptions O;
  O.Capability = K.Capability;
  LlvmLift L;
  try {
    L = liftLlvmFile(C, K.Llir, K.Interface, O);
  } catch (const UnsupportedError &E) {
    FAIL() << E.what();
  }
  const ptx::ThreadEffects &T = L.Thread;
  ASSERT_EQ(L.WriteLines.size(), T.Effects.Writes.size());
  ASSERT_EQ(L.ExchangeLines.size(), T.Exchanges.size());
  ASSERT_EQ(L.UndefinedLines.size(), T.Effects.Undefined.size());
  // Each write comes from a store or an inline-asm st / cp.async line, and
  // carries the kernel's Python location.
  std::vector<std::string> Lines = fileLines(K.Llir);
  for (size_t I = 0; I < T.Effects.Writes.size(); ++I) {
    unsigned Line = L.WriteLines[I];
    ASSERT_GT(Line, 0u);
    ASSERT_LE(Line, Lines.size());
    const std::string &Text = Lines[Line - 1];
    EXPECT_TRUE(Text.find("store ") != std::string::npos ||
                Text.find("st.") != std::string::npos ||
                Text.find("cp.async") != std::string::npos ||
                Text.find("stmatrix") != std::string::npos)
        << K.Llir << ":" << Line << ": " << Text;
    EXPECT_TRUE(T.Effects.Writes[I].From.Loc.known());
  }
  for (size_t I = 0; I < T.Exchanges.size(); ++I)
    ASSERT_GT(L.ExchangeLines[I], 0u);
  // Every node's site names the instruction on its line (an upgraded
  // intrinsic keeps the line of the call it replaced).
  for (const auto &[Node, Site] : L.Provenance) {
    ASSERT_GT(Site.LlirLine, 0u) << Site.Instruction;
    ASSERT_LE(Site.LlirLine, Lines.size());
    const std::string &Text = Lines[Site.LlirLine - 1];
    std::string Word = Site.Instruction.substr(0, Site.Instruction.find(' '));
    EXPECT_NE(Text.find(Word + " "), std::string::npos)
        << K.Llir << ":" << Site.LlirLine << ": " << Text << " for "
        << Site.Instruction;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusLlir, ::testing::ValuesIn(kernels()),
                         [](const ::testing::TestParamInfo<CorpusKernel> &I) {
                           return I.param.Name;
                         });

TEST(LlvmCorpus, VectorAddIsItsOwnMeaning) {
  // out[i] = x[i] + y[i] for this thread's two elements, masked by i < n.
  const CorpusKernel *K = nullptr;
  for (const CorpusKernel &X : kernels())
    if (X.Name.find("tutorial_vector_add") == 0)
      K = &X;
  ASSERT_TRUE(K);
  Context C;
  LlvmLift L = liftLlvmFile(C, K->Llir, K->Interface);
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 2u);
  EXPECT_EQ(L.Thread.BlockDim[0], 128u);
  Env E;
  E.setSymbol("pid.x", test::i32(1));
  E.setSymbol("tid.x", test::i32(3));
  E.setSymbol("arg0", test::i64(0x10000));
  E.setSymbol("arg1", test::i64(0x20000));
  E.setSymbol("arg2", test::i64(0x30000));
  E.setSymbol("arg3", test::i32(300));
  unsigned First = 256 + 6; // pid * 256 + 2 * tid
  E.setRead("arg0", First, test::f32(1.5f));
  E.setRead("arg1", First, test::f32(2.0f));
  E.setRead("arg0", First + 1, test::f32(-1.0f));
  E.setRead("arg1", First + 1, test::f32(4.0f));
  for (unsigned K2 = 0; K2 < 2; ++K2) {
    const Write &W = L.Thread.Effects.Writes[K2];
    EXPECT_EQ(W.Buffer, "arg2");
    EXPECT_EQ(test::eval(W.Index, E).Bits, First + K2);
    EXPECT_EQ(test::asFloat(test::eval(W.Value, E)), K2 ? 3.0f : 3.5f);
    EXPECT_TRUE(test::eval(W.Guard, E).isTrue());
    Env Short = E; // n = 263: the second element is masked off
    Short.setSymbol("arg3", test::i32(263));
    EXPECT_EQ(test::eval(W.Guard, Short).isTrue(), K2 == 0);
    EXPECT_EQ(W.From.Loc.File, "tutorial_vector_add.py");
    EXPECT_EQ(W.From.Loc.Line, 18u);
  }
  // The fadd's site: its .llir line and Python line.
  const Expr *Sum = L.Thread.Effects.Writes[0].Value;
  ASSERT_EQ(Sum->op(), Op::FAdd);
  const LlvmSite &S = L.Provenance.at(Sum);
  EXPECT_EQ(S.Instruction, "fadd");
  EXPECT_EQ(S.LlirLine, 30u);
  EXPECT_EQ(S.Source.File, "tutorial_vector_add.py");
  EXPECT_EQ(S.Source.Line, 17u);
}

TEST(LlvmCorpus, LoopsStateTheirBounds) {
  for (const char *Bundle : {"tutorial_matmul", "tutorial_layer_norm"}) {
    const CorpusKernel *K = nullptr;
    for (const CorpusKernel &X : kernels())
      if (X.Name.find(Bundle) == 0)
        K = &X;
    ASSERT_TRUE(K) << Bundle;
    Context C;
    LlvmLift L = liftLlvmFile(C, K->Llir, K->Interface);
    EXPECT_FALSE(L.Thread.Bounds.empty()) << Bundle;
    for (const std::string &B : L.Thread.Bounds)
      EXPECT_NE(B.find("at most 4 iterations"), std::string::npos) << B;
  }
}

TEST(LlvmCorpus, InferredInterfaceAgreesWithTheManifest) {
  for (const CorpusKernel &K : kernels()) {
    KernelInterface I = inferInterface(K.Llir);
    EXPECT_EQ(I.Kernel, K.Interface.Kernel) << K.Name;
    // The two trailing scratch pointers are parameters of the LLVM IR only.
    ASSERT_EQ(I.Params.size(), K.Interface.Params.size() + 2) << K.Name;
    for (size_t P = 0; P < K.Interface.Params.size(); ++P) {
      const KernelParam &Want = K.Interface.Params[P], &Got = I.Params[P];
      EXPECT_EQ(Got.Name, Want.Name);
      EXPECT_EQ(Got.IsPointer, Want.IsPointer) << K.Name << " " << Got.Name;
      if (!Want.IsPointer || Got.Element != Type::i(8)) {
        EXPECT_EQ(Got.Element, Want.Element) << K.Name << " " << Got.Name;
      }
    }
  }
}

} // namespace

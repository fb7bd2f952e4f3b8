//===- ParserTest.cpp - The MLIR-text parser on real Triton output --------===//
#include "frontends/ttir/Mlir.h"
#include "ir/Errors.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace stagecheck;
using namespace stagecheck::ttir;

namespace {

const fs::path Corpus = fs::path(STAGECHECK_TEST_DIR) / "corpus";

fs::path kernelBase(const std::string &Bundle) {
  for (const auto &K : fs::directory_iterator(Corpus / Bundle / "kernels"))
    return K.path() / K.path().filename();
  return {};
}

/// The first op (depth first) with this result name.
const Operation *find(const Region &R, const std::string &Result) {
  for (const Block &B : R.Blocks)
    for (const Operation &O : B.Ops) {
      for (const auto &[Name, Count] : O.Results)
        if (Name == Result)
          return &O;
      for (const Region &Inner : O.Regions)
        if (const Operation *Found = find(Inner, Result))
          return Found;
    }
  return nullptr;
}

const Operation *findOp(const Region &R, const std::string &Name) {
  for (const Block &B : R.Blocks)
    for (const Operation &O : B.Ops) {
      if (O.Name == Name)
        return &O;
      for (const Region &Inner : O.Regions)
        if (const Operation *Found = findOp(Inner, Name))
          return Found;
    }
  return nullptr;
}

TEST(MlirParser, ReadsEveryStageFileOfTheCorpus) {
  unsigned Files = 0;
  for (const auto &E : fs::recursive_directory_iterator(Corpus)) {
    std::string Ext = E.path().extension().string();
    if (Ext != ".ttir" && Ext != ".ttgir" && Ext != ".source")
      continue;
    SCOPED_TRACE(E.path().string());
    Module M = parseModuleFile(E.path().string());
    const Function *K = M.kernel();
    ASSERT_NE(K, nullptr);
    EXPECT_FALSE(K->Args.empty());
    ASSERT_FALSE(K->Body.Blocks.empty());
    EXPECT_EQ(K->Body.Blocks.back().Ops.back().Name, "tt.return");
    EXPECT_FALSE(M.kernelFile().empty());
    ++Files;
  }
  EXPECT_EQ(Files, 35u * 3);
}

TEST(MlirParser, DecodesTheEncodings) {
  Module M = parseModuleFile(kernelBase("tutorial_matmul").string() + ".ttgir");
  const Region &Body = M.kernel()->Body;
  const Operation *Convert = findOp(Body, "ttg.convert_layout");
  ASSERT_NE(Convert, nullptr);
  ASSERT_EQ(Convert->Types.size(), 2u);
  const Layout &Mma = *Convert->Types[0]->Encoding;
  EXPECT_EQ(Mma.K, Layout::Kind::NvidiaMma);
  EXPECT_EQ(Mma.VersionMajor, 2u);
  EXPECT_EQ(Mma.WarpsPerCTA, (std::vector<unsigned>{2, 2}));
  EXPECT_EQ(Mma.InstrShape, (std::vector<unsigned>{16, 8}));
  const Layout &Blocked = *Convert->Types[1]->Encoding;
  EXPECT_EQ(Blocked.K, Layout::Kind::Blocked);
  EXPECT_EQ(Blocked.SizePerThread, (std::vector<unsigned>{1, 8}));
  EXPECT_EQ(Blocked.ThreadsPerWarp, (std::vector<unsigned>{8, 4}));
  EXPECT_EQ(Blocked.WarpsPerCTA, (std::vector<unsigned>{4, 1}));
  EXPECT_EQ(Blocked.Order, (std::vector<unsigned>{1, 0}));
  EXPECT_EQ(Blocked.rank(), 2u);

  const Operation *Range = find(Body, "offs_am_7");
  ASSERT_NE(Range, nullptr);
  const Layout &Slice = *Range->Types.back()->Encoding;
  EXPECT_EQ(Slice.K, Layout::Kind::Slice);
  EXPECT_EQ(Slice.Dim, 1);
  EXPECT_EQ(Slice.Parent->K, Layout::Kind::Blocked);
  EXPECT_EQ(Slice.rank(), 1u);

  const Operation *Load = find(Body, "a_101");
  ASSERT_NE(Load, nullptr);
  const Layout &DotOp = *Load->Types.back()->Encoding;
  EXPECT_EQ(DotOp.K, Layout::Kind::DotOperand);
  EXPECT_EQ(DotOp.OpIdx, 0u);
  EXPECT_EQ(DotOp.KWidth, 2u);
  EXPECT_EQ(DotOp.Parent->K, Layout::Kind::NvidiaMma);
  const MType &Desc = *Load->Types.front();
  EXPECT_EQ(Desc.K, MType::Kind::MemDesc);
  EXPECT_EQ(Desc.Shape, (std::vector<int64_t>{32, 32}));
  EXPECT_TRUE(Desc.Mutable);
  EXPECT_EQ(Desc.Encoding->K, Layout::Kind::SwizzledShared);
  EXPECT_EQ(Desc.Encoding->Vec, 8u);
  EXPECT_EQ(Desc.Encoding->PerPhase, 2u);
  EXPECT_EQ(Desc.Encoding->MaxPhase, 4u);
  EXPECT_EQ(Desc.Elem->FK, MType::FloatKind::F16);

  // The pretty form of an async copy: tagged operands, the `<...>` result.
  const Operation *Copy = find(Body, "a_41");
  ASSERT_NE(Copy, nullptr);
  ASSERT_EQ(Copy->Operands.size(), 4u);
  EXPECT_EQ(Copy->Operands[2].Tag, "mask");
  EXPECT_EQ(Copy->Operands[3].Tag, "other");
  EXPECT_EQ(Copy->ResultTypes.back()->K, MType::Kind::MemDesc);
  EXPECT_EQ(M.intAttribute("ttg.num-warps"), 4);
}

TEST(MlirParser, ResolvesLocationsToThePythonSource) {
  Module M = parseModuleFile(kernelBase("tutorial_vector_add").string() + ".ttir");
  const Operation *Store = findOp(M.kernel()->Body, "tt.store");
  ASSERT_NE(Store, nullptr);
  ir::SourceLocation L = M.resolve(Store->Location);
  EXPECT_NE(L.File.find("tutorial_vector_add.py"), std::string::npos);
  EXPECT_EQ(L.Line, 18u);
  EXPECT_EQ(L.Column, 35u);
  // A named location ("pid"(#loc2)) leads to its position.
  const Operation *Pid = find(M.kernel()->Body, "pid");
  EXPECT_EQ(M.resolve(Pid->Location).Line, 11u);

  // An op inlined from triton's standard library resolves, through its
  // call sites, to the kernel's own file.
  Module S = parseModuleFile(kernelBase("inductor_log_softmax").string() + ".ttgir");
  const Operation *Reduce = findOp(S.kernel()->Body, "tt.reduce");
  ASSERT_NE(Reduce, nullptr);
  ASSERT_EQ(Reduce->Regions.size(), 1u);
  const Operation &Combine = Reduce->Regions[0].Blocks[0].Ops.front();
  ir::SourceLocation C = S.resolve(Combine.Location);
  EXPECT_EQ(C.File, S.kernelFile());
  EXPECT_GT(C.Line, 0u);
}

TEST(MlirParser, GenericAndPrettyForms) {
  Module M = parseModule(R"(
#loc = loc("k.py":1:0)
module {
  tt.func public @k(%x: !tt.ptr<f32> loc("x"(#loc)), %n: i32) attributes {noinline = false} {
    %c-1_i32 = arith.constant -1 : i32 loc(#loc)
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32> loc(#loc)
    %0:2 = "tt.split"(%s) : (tensor<4x2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %m = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32 loc(callsite(#loc at #loc)), %b: f32):
      %c = arith.addf %a, %b : f32
      tt.reduce.return %c : f32
    }) : (tensor<4xf32>) -> f32 loc(#loc)
    %t = tt.trans %v {order = array<i32: 1, 0>} : tensor<4x2xf32> -> tensor<2x4xf32>
    %y = arith.addi %n, %c-1_i32 overflow<nsw> : i32
    tt.return
  } loc(#loc)
} loc(#loc)
)",
                         "k.ttir");
  const Region &Body = M.kernel()->Body;
  EXPECT_EQ(M.kernel()->Args.size(), 2u);
  const Operation *Split = find(Body, "0");
  ASSERT_NE(Split, nullptr);
  EXPECT_EQ(Split->numResults(), 2u);
  EXPECT_EQ(Split->ResultTypes.size(), 2u);
  const Operation *Reduce = find(Body, "m");
  ASSERT_NE(Reduce, nullptr);
  EXPECT_EQ(Reduce->attr("axis")->asInt(), 0);
  EXPECT_EQ(Reduce->Regions[0].Blocks[0].Args.size(), 2u);
  EXPECT_EQ(Reduce->Regions[0].Blocks[0].Ops.size(), 2u);
  const Operation *Trans = find(Body, "t");
  EXPECT_EQ(Trans->attr("order")->asInts(), (std::vector<int64_t>{1, 0}));
  const Operation *Add = find(Body, "y");
  ASSERT_EQ(Add->Operands.size(), 2u);
  EXPECT_EQ(Add->Operands[1].Name, "c-1_i32");
  EXPECT_EQ(Add->attr("overflow")->Text, "overflow<nsw>");
  const Operation *Const = find(Body, "c-1_i32");
  EXPECT_EQ(Const->Value->asInt(), -1);
}

TEST(MlirParser, MalformedTextNamesLineAndColumn) {
  try {
    parseModule("module {\n  tt.func public @k(%x: !tt.ptr<f33>) {\n  }\n}\n",
                "bad.ttir");
    FAIL() << "accepted an unknown type";
  } catch (const ir::InputError &E) {
    EXPECT_EQ(E.Where.File, "bad.ttir");
    EXPECT_EQ(E.Where.Line, 2u);
    EXPECT_EQ(E.Where.Column, 33u); // the type's first letter
    EXPECT_NE(E.Message.find("unknown type 'f33'"), std::string::npos);
  }
  try {
    parseModule("#blocked = #ttg.blocked<{sizePerThread = [1]}>\nmodule {\n}\n",
                "bad.ttgir");
    FAIL() << "accepted an incomplete layout";
  } catch (const ir::InputError &E) {
    EXPECT_EQ(E.Where.Line, 1u);
    EXPECT_NE(E.Message.find("ttg.blocked"), std::string::npos);
  }
  EXPECT_THROW(parseModuleFile("/nonexistent/k.ttir"), ir::InputError);
}

} // namespace

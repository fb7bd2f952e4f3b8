// Loads, stores and address arithmetic through the thread model; sites.
#include "LlvmTestUtil.h"

#include "ir/Errors.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace stagecheck;
using namespace stagecheck::ir;
using namespace stagecheck::llvmir;
using namespace stagecheck::llvmir::test;

namespace {

const Type I32 = Type::i(32), F32 = Type::f32();

TEST(LlvmMemory, GlobalLoadAndStoreAreReadsAndWritesOfElements) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel(
          "ptr addrspace(1) %in, ptr addrspace(1) %out",
          "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
          "  %i = zext i32 %t to i64\n"
          "  %p = getelementptr float, ptr addrspace(1) %in, i64 %i\n"
          "  %x = load float, ptr addrspace(1) %p, align 4\n"
          "  %y = fmul float %x, 2.0\n"
          "  %q = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i\n"
          "  store float %y, ptr addrspace(1) %q, align 4\n"
          "  ret void\n"),
      {{true, F32}, {true, F32}});
  const Write &W = onlyWrite(L);
  EXPECT_EQ(W.Buffer, "arg1");
  Env E;
  E.setSymbol("tid.x", i32(7));
  E.setSymbol("arg0", i64(0x1000));
  E.setSymbol("arg1", i64(0x2000));
  E.setRead("arg0", 7, f32(1.25f));
  EXPECT_EQ(eval(W.Index, E).Bits, 7u);
  EXPECT_EQ(asFloat(eval(W.Value, E)), 2.5f);
  EXPECT_TRUE(eval(W.Defined, E).isTrue());
  EXPECT_EQ(L.WriteLines, std::vector<unsigned>{10});
  // The fmul's node leads back to its instruction.
  const Expr *Mul = W.Value;
  ASSERT_EQ(Mul->op(), Op::FMul);
  EXPECT_EQ(L.Provenance.at(Mul).Instruction, "fmul");
  EXPECT_EQ(L.Provenance.at(Mul).LlirLine, 8u);
}

TEST(LlvmMemory, InboundsWrapIsAPoisonAddressAndUndefined) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel(
          "ptr addrspace(1) %out, i64 %k",
          "  %q = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %k\n"
          "  store i32 1, ptr addrspace(1) %q\n"
          "  ret void\n"),
      {{true, I32}, {false, Type::i(64)}});
  const Expr *Poison = nullptr;
  for (const UndefinedBehavior &U : L.Thread.Effects.Undefined)
    if (U.Reason == "access at a poison address")
      Poison = U.Condition;
  ASSERT_TRUE(Poison);
  Env E;
  E.setSymbol("arg0", i64(0x1000));
  E.setSymbol("arg1", i64(4));
  EXPECT_FALSE(eval(Poison, E).isTrue());
  E.setSymbol("arg1", i64(int64_t(1) << 62)); // index * 4 wraps signed
  EXPECT_TRUE(eval(Poison, E).isTrue());
  E.setSymbol("arg0", i64(-16));
  E.setSymbol("arg1", i64(8)); // the address wraps past 2^64
  EXPECT_TRUE(eval(Poison, E).isTrue());
}

TEST(LlvmMemory, VectorLoadReadsConsecutiveElements) {
  Context C;
  LlvmLift L =
      lift(C,
           kernel("ptr addrspace(1) %in, ptr addrspace(1) %out",
                  "  %v = load <4 x float>, ptr addrspace(1) %in, align 16\n"
                  "  %a = extractelement <4 x float> %v, i64 0\n"
                  "  %d = extractelement <4 x float> %v, i64 3\n"
                  "  %s = fsub float %d, %a\n"
                  "  store float %s, ptr addrspace(1) %out\n"
                  "  ret void\n"),
           {{true, F32}, {true, F32}});
  Env E;
  E.setSymbol("arg0", i64(0x1000));
  E.setSymbol("arg1", i64(0x2000));
  E.setRead("arg0", 0, f32(1.0f));
  E.setRead("arg0", 3, f32(8.0f));
  EXPECT_EQ(asFloat(eval(onlyWrite(L).Value, E)), 7.0f);
}

TEST(LlvmMemory, VectorStoreWritesEachElement) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel(
          "ptr addrspace(1) %out, float %x",
          "  %v0 = insertelement <4 x float> zeroinitializer, float %x, i64 2\n"
          "  store <4 x float> %v0, ptr addrspace(1) %out, align 16\n"
          "  ret void\n"),
      {{true, F32}, {false, F32}});
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 4u);
  Env E;
  E.setSymbol("arg0", i64(0x1000));
  E.setSymbol("arg1", f32(3.0f));
  for (unsigned K = 0; K < 4; ++K) {
    const Write &W = L.Thread.Effects.Writes[K];
    EXPECT_EQ(eval(W.Index, E).Bits, K);
    EXPECT_EQ(asFloat(eval(W.Value, E)), K == 2 ? 3.0f : 0.0f);
  }
}

TEST(LlvmMemory, StoreOfPoisonIsAWriteThatIsNotDefined) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out",
                           "  store i32 poison, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}});
  EXPECT_TRUE(onlyWrite(L).Defined->isFalse());
}

TEST(LlvmMemory, SharedStoreIsForwardedToTheThreadsOwnLoad) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel(
          "ptr addrspace(1) %out, i32 %a",
          "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
          "  %p = getelementptr i32, ptr addrspace(3) @global_smem, i32 %t\n"
          "  store i32 %a, ptr addrspace(3) %p\n"
          "  %x = load i32, ptr addrspace(3) %p\n"
          "  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n"
          "  %y = load i32, ptr addrspace(3) @global_smem\n"
          "  %s = add i32 %x, %y\n"
          "  store i32 %s, ptr addrspace(1) %out\n"
          "  ret void\n",
          "@global_smem = external addrspace(3) global [0 x i8], align 16\n"),
      {{true, I32}, {false, I32}});
  // Four byte writes to shared memory in phase 0, then the global write.
  unsigned Shared = 0;
  for (const Write &W : L.Thread.Effects.Writes)
    Shared += W.Buffer == "smem.0";
  EXPECT_EQ(Shared, 4u);
  EXPECT_EQ(L.Thread.Phases, 1u);
  const Write &Out = L.Thread.Effects.Writes.back();
  EXPECT_EQ(Out.Buffer, "arg0");
  Env E;
  E.setSymbol("tid.x", i32(2));
  E.setSymbol("arg0", i64(0x1000));
  E.setSymbol("arg1", i32(40));
  E.setSymbol("smem", i32(0x100));
  // After the barrier, smem[0..3] is phase 1's content: 2 in its first byte.
  E.setRead("smem@1", 0, Value::ofBits(Type::i(8), 2));
  EXPECT_EQ(eval(Out.Value, E).asSigned(), 42);
}

TEST(LlvmMemory, LoadFromAnUnknownPlaceIsUnsupported) {
  Context C;
  std::string Text = kernel("ptr addrspace(1) %out, i64 %a",
                            "  %p = inttoptr i64 %a to ptr addrspace(1)\n"
                            "  %x = load i32, ptr addrspace(1) %p\n"
                            "  store i32 %x, ptr addrspace(1) %out\n"
                            "  ret void\n");
  EXPECT_THROW(lift(C, Text, {{true, I32}, {false, Type::i(64)}}),
               UnsupportedError);
}

TEST(LlvmMemory, AtomicAddReturnsTheExchangedOldValue) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel("ptr addrspace(1) %out, float %x",
             "  %o = atomicrmw fadd ptr addrspace(1) %out, float %x monotonic\n"
             "  ret void\n"),
      {{true, F32}, {false, F32}});
  ASSERT_EQ(L.Thread.Effects.Atomics.size(), 1u);
  EXPECT_EQ(L.Thread.Effects.Atomics[0].Kind, AtomicOp::FAdd);
  EXPECT_EQ(L.AtomicLines, std::vector<unsigned>{4});
  ASSERT_EQ(L.Thread.Exchanges.size(), 1u);
}

TEST(LlvmMemory, ScalarParameterMismatchIsAnInputError) {
  Context C;
  std::string Text = kernel("ptr addrspace(1) %out, i32 %a",
                            "  store i32 %a, ptr addrspace(1) %out\n"
                            "  ret void\n");
  EXPECT_THROW(lift(C, Text, {{true, I32}, {true, I32}}), InputError);
}

TEST(LlvmMemory, InlineAsmInABranchIsGuardedByIt) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  %c = icmp eq i32 %a, 0\n"
                           "  br i1 %c, label %then, label %done\n"
                           "then:\n"
                           "  call void asm sideeffect \"@$2 st.global.b32 [ "
                           "$1 + 0 ], { $0 };\", "
                           "\"r,l,b\"(i32 %a, ptr addrspace(1) %out, i1 true)\n"
                           "  br label %done\n"
                           "done:\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  EXPECT_EQ(L.WriteLines, std::vector<unsigned>{7});
  Env E;
  E.setSymbol("arg0", i64(0x1000));
  E.setSymbol("arg1", i32(0));
  EXPECT_TRUE(eval(W.Guard, E).isTrue());
  E.setSymbol("arg1", i32(1));
  EXPECT_FALSE(eval(W.Guard, E).isTrue());
}

TEST(LlvmMemory, BlockSizeFromAnnotations) {
  Context C;
  std::string Text = "define void @k(ptr addrspace(1) %out) {\n"
                     "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                     "  store i32 %t, ptr addrspace(1) %out\n"
                     "  ret void\n"
                     "}\n"
                     "!nvvm.annotations = !{!0, !1}\n"
                     "!0 = !{ptr @k, !\"kernel\", i32 1}\n"
                     "!1 = !{ptr @k, !\"reqntidx\", i32 64}\n";
  LlvmLift L = liftLlvmText(C, Text, "a.ll", interface({{true, I32}}));
  EXPECT_EQ(L.Thread.BlockDim[0], 64u);
  EXPECT_EQ(L.Thread.BlockDim[1], 1u);
}

TEST(LlvmMemory, ThreadIdWithoutABlockSizeIsUnsupported) {
  Context C;
  std::string Text = "define ptx_kernel void @k(ptr addrspace(1) %out) {\n"
                     "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                     "  store i32 %t, ptr addrspace(1) %out\n"
                     "  ret void\n"
                     "}\n";
  try {
    liftLlvmText(C, Text, "n.ll", interface({{true, I32}}));
    FAIL() << "no error";
  } catch (const UnsupportedError &E) {
    EXPECT_EQ(E.Where.File, "n.ll");
    EXPECT_EQ(E.Where.Line, 2u);
  }
}

TEST(LlvmMemory, InferredInterfaceTakesTheIndexedType) {
  std::filesystem::path Path =
      std::filesystem::temp_directory_path() / "stagecheck_infer_test.ll";
  {
    std::ofstream Out(Path);
    Out << kernel("ptr addrspace(1) %x, ptr addrspace(1) %y, half %h, i1 %b",
                  "  %p = getelementptr float, ptr addrspace(1) %x, i64 4\n"
                  "  %q = getelementptr i8, ptr addrspace(1) %p, i64 64\n"
                  "  %v = load float, ptr addrspace(1) %q\n"
                  "  store float %v, ptr addrspace(1) %y\n"
                  "  ret void\n");
  }
  KernelInterface I = inferInterface(Path.string());
  std::filesystem::remove(Path);
  EXPECT_EQ(I.Kernel, "k");
  ASSERT_EQ(I.Params.size(), 4u);
  EXPECT_TRUE(I.Params[0].IsPointer);
  EXPECT_EQ(I.Params[0].Element, F32); // the i8 byte offset does not count
  EXPECT_EQ(I.Params[1].Element, Type::i(8)); // never indexed
  EXPECT_FALSE(I.Params[2].IsPointer);
  EXPECT_EQ(I.Params[2].Element, Type::f16());
  EXPECT_EQ(I.Params[3].Element, Type::boolean());
  EXPECT_THROW(inferInterface("/nonexistent/k.llir"), InputError);
}

// An alloca is the thread's own memory: a load reads back what the
// thread stored, through the stores in order, is poison where nothing was
// stored, and undefined outside the object. Nothing of it is an effect.

/// The condition of L's undefined behaviour whose reason mentions What.
const Expr *undefinedFor(const LlvmLift &L, const std::string &What) {
  for (const UndefinedBehavior &U : L.Thread.Effects.Undefined)
    if (U.Reason.find(What) != std::string::npos)
      return U.Condition;
  ADD_FAILURE() << "no undefined behaviour for " << What;
  static Context C;
  return C.falseExpr();
}

TEST(LlvmMemory, AnAllocaHoldsWhatTheThreadStored) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel("ptr addrspace(1) %out, i32 %k",
             "  %a = alloca [4 x i32], align 4\n"
             "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
             "  store i32 %t, ptr %a, align 4\n"
             "  %a1 = getelementptr inbounds i32, ptr %a, i64 1\n"
             "  %u = add i32 %t, 100\n"
             "  store i32 %u, ptr %a1, align 4\n"
             "  store i32 7, ptr %a, align 4\n"
             "  %i = sext i32 %k to i64\n"
             "  %p = getelementptr inbounds i32, ptr %a, i64 %i\n"
             "  %v = load i32, ptr %p, align 4\n"
             "  store i32 %v, ptr addrspace(1) %out\n"
             "  ret void\n"),
      {{true, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("tid.x", i32(5));
  E.setSymbol("arg0", i64(0x1000));
  for (auto [K, Want] : {std::pair{0, 7}, {1, 105}}) {
    E.setSymbol("arg1", i32(K));
    EXPECT_EQ(eval(W.Value, E).Bits, uint64_t(Want)) << K;
    EXPECT_TRUE(eval(W.Defined, E).isTrue()) << K;
  }
  const Expr *Outside = undefinedFor(L, "read outside %a");
  E.setSymbol("arg1", i32(2)); // never stored
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
  EXPECT_FALSE(eval(Outside, E).isTrue());
  for (int K : {4, -1}) { // past the end, before it
    E.setSymbol("arg1", i32(K));
    EXPECT_TRUE(eval(Outside, E).isTrue()) << K;
  }
}

TEST(LlvmMemory, AConstantTableIsReadByIndex) {
  std::string Body = "  %i = sext i32 %k to i64\n"
                     "  %p = getelementptr inbounds [3 x i32], ptr addrspace(1) "
                     "@tab, i64 0, i64 %i\n"
                     "  %v = load i32, ptr addrspace(1) %p, align 4\n"
                     "  store i32 %v, ptr addrspace(1) %out\n"
                     "  ret void\n";
  Context C;
  // libdevice's tables are not marked constant: one nothing writes is.
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %k", Body,
                           "@tab = internal addrspace(1) global [3 x i32] "
                           "[i32 10, i32 20, i32 30], align 4\n"),
                    {{true, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg0", i64(0x1000));
  E.setSymbol("arg1", i32(2));
  EXPECT_EQ(eval(W.Value, E).Bits, 30u);
  EXPECT_TRUE(eval(W.Defined, E).isTrue());
  E.setSymbol("arg1", i32(3));
  EXPECT_TRUE(eval(undefinedFor(L, "read outside @tab"), E).isTrue());
  // A table the module also writes is not one.
  EXPECT_THROW(
      lift(C,
           kernel("ptr addrspace(1) %out, i32 %k",
                  "  store i32 1, ptr addrspace(1) @tab, align 4\n" + Body,
                  "@tab = internal addrspace(1) global [3 x i32] "
                  "[i32 10, i32 20, i32 30], align 4\n"),
           {{true, I32}, {false, I32}}),
      UnsupportedError);
}

TEST(LlvmMemory, AnAllocaWhoseAddressEscapesIsNotModelled) {
  Context C;
  EXPECT_THROW(lift(C,
                    kernel("ptr addrspace(1) %out",
                           "  %a = alloca i32, align 4\n"
                           "  %x = ptrtoint ptr %a to i64\n"
                           "  store i64 %x, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, Type::i(64)}}),
               UnsupportedError);
}

} // namespace

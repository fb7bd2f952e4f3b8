// Memory, parameters, special registers and communication: loads and
// stores through the thread model, shared memory by phase, cp.async,
// atomics, shuffles, warp-collective matrix ops, provenance.

#include "TestUtil.h"

#include "ir/Errors.h"

#include <gtest/gtest.h>

using namespace stagecheck::ir;
using namespace stagecheck::ptx;
using namespace stagecheck::ptx::test;

namespace {

const std::string Out = "ld.param.b64 %rd1, [k_param_0];\n";

TEST(PtxMemory, VectorLoadsReadConsecutiveElements) {
  Context C;
  PtxLift L = lift(C,
                   Out + "ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1+16];\n"
                         "add.f32 %r5, %r1, %r4;\n"
                         "st.global.b32 [%rd1], %r5;\nret;",
                   Type::f32());
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 1u);
  Env E;
  E.setRead("arg0", 4, Value::ofDouble(Type::f32(), 1.5));
  E.setRead("arg0", 7, Value::ofDouble(Type::f32(), 2.0));
  Value V = eval(L.Thread.Effects.Writes[0].Value, E);
  EXPECT_EQ(V.Ty, Type::f32());
  EXPECT_EQ(V.asDouble(), 3.5);
  // The buffer is known with its element type.
  ASSERT_NE(L.Thread.Effects.buffer("arg0"), nullptr);
  EXPECT_EQ(L.Thread.Effects.buffer("arg0")->Element, Type::f32());
}

TEST(PtxMemory, PredicatedLoadKeepsItsDefault) {
  Context C;
  PtxLift L = lift(C,
                   Out + "ld.param.b32 %r9, [k_param_1];\n"
                         "setp.ne.s32 %p1, %r9, 0;\n"
                         "mov.u32 %r1, 0x0;\n"
                         "@%p1 ld.global.b32 { %r1 }, [ %rd1 + 8 ];\n"
                         "st.global.b32 [%rd1], %r1;\nret;",
                   Type::i(32), {Type::i(32)});
  const Write &W = L.Thread.Effects.Writes.at(0);
  Env E;
  E.setRead("arg0", 2, i32(77));
  E.setSymbol("arg1", i32(0));
  EXPECT_EQ(eval(W.Value, E).Bits, 0u);
  E.setSymbol("arg1", i32(1));
  EXPECT_EQ(eval(W.Value, E).Bits, 77u);
}

TEST(PtxMemory, MisalignedAccessIsUndefined) {
  Context C;
  PtxLift L = lift(C,
                   Out + "ld.param.b64 %rd2, [k_param_1];\n"
                         "add.s64 %rd3, %rd1, %rd2;\n"
                         "st.global.b32 [%rd3], 0;\nret;",
                   Type::f32(), {Type::i(64)});
  ASSERT_EQ(L.Thread.Effects.Undefined.size(), 1u);
  EXPECT_EQ(L.UndefinedLines, (std::vector<unsigned>{18}));
  Env E;
  E.setSymbol("arg1", i64(6));
  EXPECT_TRUE(eval(L.Thread.Effects.Undefined[0].Condition, E).isTrue());
  E.setSymbol("arg1", i64(8));
  EXPECT_FALSE(eval(L.Thread.Effects.Undefined[0].Condition, E).isTrue());
}

TEST(PtxMemory, SharedMemoryByPhase) {
  Context C;
  PtxLift L = lift(C,
                   Out + "mov.u32 %r1, global_smem;\n"
                         "mov.u32 %r2, %tid.x;\n"
                         "shl.b32 %r3, %r2, 2;\n"
                         "add.s32 %r4, %r1, %r3;\n"
                         "st.shared.b32 [%r4], 5;\n"
                         "ld.shared.b32 %r5, [%r4];\n" // this thread's own
                         "bar.sync 0;\n"
                         "ld.shared.b32 %r6, [%r4+4];\n" // the phase's content
                         "add.s32 %r7, %r5, %r6;\n"
                         "st.global.b32 [%rd1], %r7;\nret;",
                   Type::i(32));
  const ThreadEffects &T = L.Thread;
  EXPECT_EQ(T.Phases, 1u);
  // Four byte writes to smem.0, then the global write.
  ASSERT_EQ(T.Effects.Writes.size(), 5u);
  EXPECT_EQ(T.Effects.Writes[0].Buffer, "smem.0");
  Env E;
  E.setSymbol("tid.x", i32(3));
  EXPECT_EQ(eval(T.Effects.Writes[0].Index, E).Bits, 12u);
  // Bytes 16..19 of the phase-1 content hold 0x01020304.
  for (unsigned K = 0; K < 4; ++K)
    E.setRead("smem@1", 16 + K, Value::ofBits(Type::i(8), 4 - K));
  EXPECT_EQ(eval(T.Effects.Writes[4].Value, E).Bits, 5u + 0x01020304u);
}

TEST(PtxMemory, AsyncCopyZeroFillsPastTheSourceSize) {
  Context C;
  PtxLift L = lift(C,
                   Out + "ld.param.b32 %r9, [k_param_1];\n"
                         "setp.ne.s32 %p1, %r9, 0;\n"
                         "selp.b32 %r2, 16, 0, %p1;\n"
                         "mov.u32 %r1, global_smem;\n"
                         "cp.async.cg.shared.global [ %r1 + 0 ], [ %rd1 + 0 ], "
                         "0x10, %r2;\n"
                         "cp.async.commit_group;\n"
                         "cp.async.wait_group 0;\n"
                         "ld.shared.b32 %r3, [%r1+12];\n"
                         "st.global.b32 [%rd1], %r3;\nret;",
                   Type::i(32), {Type::i(32)});
  const ThreadEffects &T = L.Thread;
  ASSERT_EQ(T.Exchanges.size(), 2u);
  EXPECT_EQ(T.Exchanges[0].Kind, "cp.async.commit_group");
  EXPECT_EQ(T.Exchanges[1].Kind, "cp.async.wait_group");
  ASSERT_EQ(T.Exchanges[1].Operands.size(), 1u);
  EXPECT_EQ(T.Exchanges[1].Operands[0], C.constant(Type::i(32), 0));
  // 16 bytes to shared memory, then the global store.
  ASSERT_EQ(T.Effects.Writes.size(), 17u);
  const Write &W = T.Effects.Writes.back();
  Env E;
  E.setRead("arg0", 3, i32(1234));
  E.setSymbol("arg1", i32(1));
  EXPECT_EQ(eval(W.Value, E).Bits, 1234u);
  E.setSymbol("arg1", i32(0));
  EXPECT_EQ(eval(W.Value, E).Bits, 0u);
}

TEST(PtxMemory, ParametersAndSpecialRegisters) {
  Context C;
  PtxLift L = lift(C,
                   Out + "ld.param.b32 %r1, [k_param_1+4];\n"
                         "mov.u32 %r2, %ctaid.x;\n"
                         "mov.u32 %r3, %ntid.x;\n"
                         "mov.u32 %r4, %laneid;\n"
                         "mov.u32 %r5, %nctaid.x;\n"
                         "add.s32 %r6, %r1, %r2;\n"
                         "mad.lo.s32 %r6, %r3, %r6, %r4;\n"
                         "add.s32 %r6, %r6, %r5;\n"
                         "st.global.b32 [%rd1], %r6;\nret;",
                   Type::i(32), {Type::i(64)});
  Env E;
  E.setSymbol("arg1", i64(int64_t(7) << 32));
  E.setSymbol("pid.x", i32(2));
  E.setSymbol("nprog.x", i32(10));
  E.setSymbol("tid.x", i32(37));
  // 128 * (7 + 2) + (37 & 31) + 10
  EXPECT_EQ(eval(L.Thread.Effects.Writes.at(0).Value, E).Bits, 1167u);
  EXPECT_EQ(L.Thread.BlockDim[0], 128u);
  // Without .reqntid the thread id has no range.
  Context C2;
  EXPECT_THROW(liftPtxText(C2, kernel("mov.u32 %r1, %tid.x;\nret;", {}, ""),
                           "k.ptx", interface(Type::i(32), {})),
               UnsupportedError);
}

TEST(PtxMemory, AtomicsAndShuffles) {
  Context C;
  PtxLift L = lift(C,
                   Out + "mov.u32 %r1, %tid.x;\n"
                         "shfl.sync.bfly.b32 %r2, %r1, 16, 31, -1;\n"
                         "atom.global.gpu.acq_rel.add.f32 %r3, [%rd1], %r2;\n"
                         "atom.global.cas.b32 %r4, [%rd1+4], 0, %r3;\n"
                         "red.global.add.f32 [%rd1+8], %r4;\nret;",
                   Type::f32());
  const ThreadEffects &T = L.Thread;
  ASSERT_EQ(T.Effects.Atomics.size(), 3u);
  EXPECT_EQ(T.Effects.Atomics[0].Kind, AtomicOp::FAdd);
  EXPECT_EQ(T.Effects.Atomics[1].Kind, AtomicOp::CompareExchange);
  ASSERT_NE(T.Effects.Atomics[1].Compare, nullptr);
  EXPECT_EQ(T.Effects.Atomics[2].Kind, AtomicOp::FAdd);
  EXPECT_EQ(L.AtomicLines, (std::vector<unsigned>{17, 18, 19}));
  ASSERT_GE(T.Exchanges.size(), 1u);
  const Exchange &S = T.Exchanges[0];
  EXPECT_EQ(S.Kind, "shfl.sync.bfly");
  ASSERT_EQ(S.Operands.size(), 4u);
  EXPECT_EQ(S.Operands[1], C.constant(Type::i(32), 16));
  EXPECT_EQ(S.Operands[3], C.constant(Type::i(32), 0xffffffff));
  // The atomic adds the shuffled value, reinterpreted as the buffer's f32.
  EXPECT_EQ(T.Effects.Atomics[0].Value,
            C.cast(Op::Bitcast, S.Results[0], Type::f32()));
}

TEST(PtxMemory, WarpCollectiveMatrixOps) {
  Context C;
  PtxLift L = lift(
      C,
      Out + "mov.u32 %r1, global_smem;\n"
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, "
            "[%r1+64];\n"
            "mov.b32 %r6, 0;\n"
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%r7, %r8, %r9, %r10}, {%r2, %r3, %r4, %r5}, {%r2, %r3}, "
            "{%r6, %r6, %r6, %r6};\n"
            "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], "
            "{%r7, %r8, %r9, %r10};\n"
            "st.global.b32 [%rd1], %r7;\nret;",
      Type::f32());
  const ThreadEffects &T = L.Thread;
  ASSERT_EQ(T.Exchanges.size(), 3u);
  EXPECT_EQ(T.Exchanges[0].Kind, "ldmatrix.sync.aligned.m8n8.x4.shared.b16");
  ASSERT_EQ(T.Exchanges[0].Operands.size(), 1u);
  EXPECT_EQ(T.Exchanges[0].Operands[0], C.constant(Type::i(64), 64));
  EXPECT_EQ(T.Exchanges[0].Results.size(), 4u);
  EXPECT_EQ(T.Exchanges[1].Kind,
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  EXPECT_EQ(T.Exchanges[1].Operands.size(), 10u);
  EXPECT_EQ(T.Exchanges[1].Operands[0], T.Exchanges[0].Results[0]);
  EXPECT_EQ(T.Exchanges[2].Operands.size(), 5u);
  EXPECT_EQ(T.Exchanges[2].Operands[1], T.Exchanges[1].Results[0]);
  EXPECT_EQ(T.Effects.Writes.at(0).Value,
            C.cast(Op::Bitcast, T.Exchanges[1].Results[0], Type::f32()));
}

TEST(PtxMemory, ProvenanceNamesTheInstructionAndLine) {
  Context C;
  PtxLift L = lift(C,
                   Out + "ld.global.b32 %r1, [%rd1];\n"
                         "mul.f32 %r2, %r1, %r1;\n"
                         "add.f32 %r3, %r2, 0f3F800000;\n"
                         "st.global.b32 [%rd1+4], %r3;\nret;",
                   Type::f32());
  const Write &W = L.Thread.Effects.Writes.at(0);
  EXPECT_EQ(L.WriteLines, (std::vector<unsigned>{18}));
  ASSERT_TRUE(L.Provenance.count(W.Value));
  EXPECT_EQ(L.Provenance.at(W.Value).Instruction, "add.f32");
  EXPECT_EQ(L.Provenance.at(W.Value).PtxLine, 17u);
  const Expr *Product = W.Value->operand(0)->op() == Op::FMul
                            ? W.Value->operand(0)
                            : W.Value->operand(1);
  ASSERT_EQ(Product->op(), Op::FMul);
  EXPECT_EQ(L.Provenance.at(Product).PtxLine, 16u);
  EXPECT_EQ(W.From.Op, "st.global.b32");
  EXPECT_EQ(W.From.Loc.str(), "k.ptx:18:1");
}

TEST(PtxMemory, CachePolicyChangesNoValue) {
  Context C;
  PtxLift L = lift(C,
                   Out + "mov.u64 %rd3, 0x0;\n"
                         "createpolicy.fractional.L2::evict_first.b64 %rd3, "
                         "1.0;\n"
                         "ld.global.L1::evict_first.L2::cache_hint.b32 %r1, "
                         "[%rd1], %rd3;\n"
                         "ld.global.b32 %r2, [%rd1];\n"
                         "setp.eq.b32 %p1, %r1, %r2;\n"
                         "selp.b32 %r3, 1, 0, %p1;\n"
                         "st.global.b32 [%rd1], %r3;\nret;",
                   Type::i(32));
  EXPECT_EQ(L.Thread.Effects.Writes.at(0).Value, C.constant(Type::i(32), 1));
}

} // namespace

namespace {

/// The local depot as llc lays out an alloca: a 32-bit local address of
/// it, two words stored, one read back at the byte offset k_param_1.
const std::string LocalDepot = ".local .align 4 .b8 __local_depot0[16];\n"
                               ".reg .b64 %SPL;\n"
                               "mov.b64 %SPL, __local_depot0;\n"
                               "cvt.u32.u64 %r2, %SPL;\n"
                               "mov.u32 %r3, %tid.x;\n"
                               "st.local.b32 [%r2], %r3;\n"
                               "add.s32 %r4, %r3, 100;\n"
                               "st.local.b32 [%r2+4], %r4;\n"
                               "ld.param.b32 %r9, [k_param_1];\n"
                               "add.s32 %r5, %r2, %r9;\n"
                               "ld.local.b32 %r6, [%r5];\n";

} // namespace

TEST(PtxMemory, TheLocalDepotHoldsWhatTheThreadStored) {
  Context C;
  PtxLift L = lift(C, Out + LocalDepot + "st.global.b32 [%rd1], %r6;\nret;",
                   Type::i(32), {Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 1u); // local stores are no effect
  const Write &W = L.Thread.Effects.Writes[0];
  // Reading outside the depot or misaligned, or bytes never stored.
  const Expr *NotStored = C.falseExpr();
  for (const UndefinedBehavior &U : L.Thread.Effects.Undefined)
    if (U.Reason.find("__local_depot0") != std::string::npos)
      NotStored = C.orOf(NotStored, U.Condition);
  ASSERT_FALSE(NotStored->isFalse());
  Env E;
  E.setSymbol("tid.x", i32(5));
  for (auto [Offset, Want] : {std::pair{0, 5}, {4, 105}}) {
    E.setSymbol("arg1", i32(Offset));
    EXPECT_EQ(eval(W.Value, E).Bits, uint64_t(Want)) << Offset;
    EXPECT_FALSE(eval(NotStored, E).isTrue()) << Offset;
  }
  // Never stored, misaligned, outside the depot: undefined.
  for (int Offset : {8, 2, 16, -4}) {
    E.setSymbol("arg1", i32(Offset));
    EXPECT_TRUE(eval(NotStored, E).isTrue()) << Offset;
  }
}

// The depot's address is in the local window: a global (or generic)
// access through it reaches other memory on the GPU.
TEST(PtxMemory, TheLocalDepotThroughAnotherStateSpaceIsNotModelled) {
  Context C;
  for (const char *Access : {"st.global.b32", "st.b32"}) {
    try {
      lift(C,
           Out + ".local .align 4 .b8 __local_depot0[8];\n"
                 ".reg .b64 %SPL;\n"
                 "mov.b64 %SPL, __local_depot0;\n"
                 "mov.u32 %r1, 1;\n" +
               std::string(Access) + " [%SPL], %r1;\nret;",
           Type::i(32));
      ADD_FAILURE() << Access << " through the depot's address accepted";
    } catch (const UnsupportedError &E) {
      EXPECT_NE(E.What.find("__local_depot0 accessed in address space"),
                std::string::npos)
          << E.What;
    }
  }
}

// PTX initializes only .global and .const variables.
TEST(PtxMemory, AnInitializedLocalVariableIsAnInputError) {
  Context C;
  try {
    lift(C,
         Out + ".local .align 4 .b8 __local_depot0[8] = {1, 2};\n"
               "mov.b64 %rd2, __local_depot0;\n"
               "ld.local.b32 %r1, [%rd2];\n"
               "st.global.b32 [%rd1], %r1;\nret;",
         Type::i(32));
    ADD_FAILURE() << "an initialized .local variable accepted";
  } catch (const InputError &E) {
    EXPECT_NE(E.Message.find("__local_depot0 of .local has initializers"),
              std::string::npos)
        << E.what();
    EXPECT_GT(E.Where.Line, 0u);
  }
}

TEST(PtxMemory, ALocalAddressThatEscapesIsNotModelled) {
  Context C;
  EXPECT_THROW(lift(C,
                    Out + ".local .align 4 .b8 __local_depot0[8];\n"
                          "mov.b64 %rd2, __local_depot0;\n"
                          "st.global.b64 [%rd1], %rd2;\nret;",
                    Type::i(64)),
               UnsupportedError);
}

TEST(PtxMemory, AnInitializedGlobalTableIsReadByIndex) {
  Context C;
  std::string Module = kernel(Out + "mov.b64 %rd2, tab;\n"
                                    "ld.param.b32 %r1, [k_param_1];\n"
                                    "cvt.u64.u32 %rd3, %r1;\n"
                                    "add.s64 %rd4, %rd2, %rd3;\n"
                                    "ld.global.nc.b32 %r2, [%rd4];\n"
                                    "st.global.b32 [%rd1], %r2;\nret;",
                              {Type::i(32)});
  Module.insert(Module.find(".visible .entry"),
                ".global .align 4 .b8 tab[8] = {1, 0, 0, 0, 2, 1};\n");
  PtxLift L = liftPtxText(C, Module, "k.ptx",
                          interface(Type::i(32), {Type::i(32)}));
  const Write &W = L.Thread.Effects.Writes.at(0);
  Env E;
  E.setSymbol("arg1", i32(0));
  EXPECT_EQ(eval(W.Value, E).Bits, 1u);
  E.setSymbol("arg1", i32(4)); // elements not listed are zero
  EXPECT_EQ(eval(W.Value, E).Bits, 0x102u);
  // A store to the table is not modelled.
  std::string Stores = Module;
  Stores.replace(Stores.find("st.global.b32 [%rd1], %r2;"),
                 std::string("st.global.b32 [%rd1], %r2;").size(),
                 "st.global.b32 [%rd4], %r2;");
  EXPECT_THROW(liftPtxText(C, Stores, "k.ptx",
                           interface(Type::i(32), {Type::i(32)})),
               UnsupportedError);
  // More initializers than elements: malformed, at the variable's line.
  std::string TooMany = Module;
  TooMany.replace(TooMany.find("tab[8]"), 6, "tab[4]");
  try {
    liftPtxText(C, TooMany, "k.ptx", interface(Type::i(32), {Type::i(32)}));
    ADD_FAILURE() << "six initializers of four elements accepted";
  } catch (const InputError &E) {
    EXPECT_EQ(E.Where.File, "k.ptx");
    EXPECT_GT(E.Where.Line, 0u);
  }
  // Nor is one another kernel of the module could write meanwhile.
  std::string Shared = Module + ".visible .entry k2()\n{\n\t.reg .b64 %rd<2>;\n"
                                "\tmov.b64 %rd1, tab;\n\tret;\n}\n";
  try {
    liftPtxText(C, Shared, "k.ptx", interface(Type::i(32), {Type::i(32)}));
    ADD_FAILURE() << "a table k2 uses too was read";
  } catch (const UnsupportedError &E) {
    EXPECT_NE(E.What.find("is used by k2 too"), std::string::npos) << E.What;
  }
}

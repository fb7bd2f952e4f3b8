// Intrinsics' values, special registers, shuffles and __nvvm_reflect.
#include "LlvmTestUtil.h"

#include "ir/Errors.h"
#include "ptx_lifter/Semantics.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace stagecheck;
using namespace stagecheck::ir;
using namespace stagecheck::llvmir;
using namespace stagecheck::llvmir::test;

namespace {

const Type I32 = Type::i(32), F32 = Type::f32();

/// out[0] = Call where the call's operands are %x, %y, %z (floats).
struct FloatCall {
  Context C;
  LlvmLift L;
  explicit FloatCall(const std::string &Call, const LlvmLiftOptions &O = {})
      : L(lift(C,
               kernel("ptr addrspace(1) %out, float %x, float %y, float %z",
                      "  %r = " + Call +
                          "\n"
                          "  store float %r, ptr addrspace(1) %out\n"
                          "  ret void\n"),
               {{true, F32}, {false, F32}, {false, F32}, {false, F32}}, O)) {}
  const Expr *value() { return onlyWrite(L).Value; }
  float at(float X, float Y = 0, float Z = 0) {
    Env E;
    E.setSymbol("arg1", f32(X));
    E.setSymbol("arg2", f32(Y));
    E.setSymbol("arg3", f32(Z));
    return asFloat(eval(value(), E));
  }
};

TEST(LlvmIntrinsics, NvvmFmaIsTheSharedPtxBuilder) {
  FloatCall F(
      "call float @llvm.nvvm.fma.rn.ftz.f(float %x, float %y, float %z)");
  EXPECT_EQ(F.at(2, 3, 4), 10.0f);
  // Exactly what the PTX lifter makes of fma.rn.ftz.f32.
  Context &C = F.C;
  const Expr *X = C.symbol("arg1", F32, SymbolRole::Param);
  const Expr *Y = C.symbol("arg2", F32, SymbolRole::Param);
  const Expr *Z = C.symbol("arg3", F32, SymbolRole::Param);
  EXPECT_EQ(F.value(),
            ptx::sem::fma(C, X, Y, Z, RoundingMode::NearestEven, true));
  // .ftz flushes a subnormal input.
  EXPECT_EQ(F.at(1e-40f, 1e30f, 0), 0.0f);
  FloatCall Down(
      "call float @llvm.nvvm.fma.rm.f(float %x, float %y, float %z)");
  EXPECT_EQ(Down.at(1, 1, 0x1p-30f), 1.0f);
  EXPECT_EQ(Down.at(-1, 1, -0x1p-30f), -1.0f - 0x1p-23f);
}

TEST(LlvmIntrinsics, ApproximateOpsAreNamedFunctions) {
  FloatCall Ex2("call float @llvm.nvvm.ex2.approx.ftz.f(float %x)");
  ASSERT_EQ(Ex2.value()->op(), Op::Call);
  EXPECT_EQ(Ex2.value()->name(), "ex2.approx.ftz");
  FloatCall Div("call float @llvm.nvvm.div.full(float %x, float %y)");
  ASSERT_EQ(Div.value()->op(), Op::Call);
  EXPECT_EQ(Div.value()->name(), "div.full");
  EXPECT_EQ(Div.value()->numOperands(), 2u);
  FloatCall Rsqrt("call float @llvm.nvvm.rsqrt.approx.f(float %x)");
  EXPECT_EQ(Rsqrt.value()->name(), "rsqrt.approx");
}

TEST(LlvmIntrinsics, RoundedNvvmOps) {
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.sqrt.rn.f(float %x)").at(2.25f),
            1.5f);
  EXPECT_EQ(
      FloatCall("call float @llvm.nvvm.div.rn.f(float %x, float %y)").at(1, 4),
      0.25f);
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.add.rz.f(float %x, float %y)")
                .at(1, 0x1p-30f),
            1.0f);
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.rcp.rn.f(float %x)").at(4), 0.25f);
}

TEST(LlvmIntrinsics, SaturateAndFabs) {
  FloatCall S("call float @llvm.nvvm.saturate.f(float %x)");
  EXPECT_EQ(S.at(1.5f), 1.0f);
  EXPECT_EQ(S.at(-2), 0.0f);
  EXPECT_EQ(S.at(0.25f), 0.25f);
  EXPECT_EQ(S.at(NAN), 0.0f);
  FloatCall SF("call float @llvm.nvvm.saturate.ftz.f(float %x)");
  EXPECT_EQ(SF.at(1e-40f), 0.0f);
  EXPECT_EQ(S.at(1e-40f), 1e-40f);
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.fabs.f32(float %x)").at(-3), 3.0f);
}

// llvm.nvvm.round is cvt.rni (ties to even, unlike llvm.round); the .ftz
// forms read a subnormal as a zero of its sign, so floor of a tiny negative
// is -0 there and -1 without.
TEST(LlvmIntrinsics, NvvmRoundingToIntegral) {
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.round.f(float %x)").at(2.5f), 2.0f);
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.round.f(float %x)").at(3.5f), 4.0f);
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.trunc.f(float %x)").at(-1.7f), -1.0f);
  EXPECT_EQ(FloatCall("call float @llvm.nvvm.ceil.f(float %x)").at(-1.5f), -1.0f);
  FloatCall Floor("call float @llvm.nvvm.floor.f(float %x)");
  FloatCall FloorFtz("call float @llvm.nvvm.floor.ftz.f(float %x)");
  EXPECT_EQ(Floor.at(-1.5f), -2.0f);
  EXPECT_EQ(Floor.at(-1e-40f), -1.0f);
  float Flushed = FloorFtz.at(-1e-40f);
  EXPECT_EQ(Flushed, 0.0f);
  EXPECT_TRUE(std::signbit(Flushed));
}

TEST(LlvmIntrinsics, MinMaxFlavours) {
  FloatCall Max("call float @llvm.maxnum.f32(float %x, float %y)");
  EXPECT_EQ(Max.at(NAN, 1), 1.0f);
  EXPECT_EQ(Max.at(2, 1), 2.0f);
  FloatCall Maximum("call float @llvm.maximum.f32(float %x, float %y)");
  EXPECT_TRUE(std::isnan(Maximum.at(NAN, 1)));
  FloatCall Min("call float @llvm.minnum.f32(float %x, float %y)");
  EXPECT_TRUE(std::signbit(Min.at(0.0f, -0.0f))); // -0 below +0
  FloatCall NvMax("call float @llvm.nvvm.fmax.nan.f(float %x, float %y)");
  EXPECT_TRUE(std::isnan(NvMax.at(NAN, 1)));
  FloatCall NvMin("call float @llvm.nvvm.fmin.f(float %x, float %y)");
  EXPECT_EQ(NvMin.at(NAN, 1), 1.0f);
}

TEST(LlvmIntrinsics, LlvmMathIntrinsics) {
  EXPECT_EQ(FloatCall("call float @llvm.floor.f32(float %x)").at(-1.5f), -2.0f);
  EXPECT_EQ(FloatCall("call float @llvm.ceil.f32(float %x)").at(-1.5f), -1.0f);
  EXPECT_EQ(FloatCall("call float @llvm.round.f32(float %x)").at(2.5f), 3.0f);
  EXPECT_EQ(FloatCall("call float @llvm.rint.f32(float %x)").at(2.5f), 2.0f);
  EXPECT_EQ(
      FloatCall("call float @llvm.copysign.f32(float %x, float %y)").at(2, -1),
      -2.0f);
  EXPECT_EQ(FloatCall("call float @llvm.fma.f32(float %x, float %y, float %z)")
                .at(2, 3, 1),
            7.0f);
  FloatCall MulAdd(
      "call float @llvm.fmuladd.f32(float %x, float %y, float %z)");
  EXPECT_EQ(MulAdd.at(2, 3, 1), 7.0f);
  EXPECT_TRUE(MulAdd.L.Contractible.count(MulAdd.value()));
}

TEST(LlvmIntrinsics, IntegerIntrinsicsAndTheirPoison) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a, i32 %b",
                           "  %m = call i32 @llvm.smin.i32(i32 %a, i32 %b)\n"
                           "  %u = call i32 @llvm.umax.i32(i32 %a, i32 %b)\n"
                           "  %z = call i32 @llvm.ctlz.i32(i32 %a, i1 true)\n"
                           "  %p = call i32 @llvm.ctpop.i32(i32 %b)\n"
                           "  %s0 = add i32 %m, %u\n"
                           "  %s1 = mul i32 %s0, 100\n"
                           "  %s2 = add i32 %s1, %z\n"
                           "  %s3 = mul i32 %s2, 100\n"
                           "  %s4 = add i32 %s3, %p\n"
                           "  store i32 %s4, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", i32(-1));
  E.setSymbol("arg2", i32(7));
  // smin -1, umax 0xffffffff (-1), ctlz(-1) 0, ctpop(7) 3.
  EXPECT_EQ(eval(W.Value, E).asSigned(), (-2 * 100 + 0) * 100 + 3);
  EXPECT_TRUE(eval(W.Defined, E).isTrue());
  E.setSymbol("arg1", i32(0)); // ctlz of zero with is_zero_poison
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
}

TEST(LlvmIntrinsics, SpecialRegistersAreTheModelsSymbols) {
  Context C;
  LlvmLift L =
      lift(C,
           kernel("ptr addrspace(1) %out",
                  "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                  "  %p = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
                  "  %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
                  "  %a = mul i32 %p, %n\n"
                  "  %b = add i32 %a, %t\n"
                  "  store i32 %b, ptr addrspace(1) %out\n"
                  "  ret void\n"),
           {{true, I32}});
  Env E;
  E.setSymbol("tid.x", i32(5));
  E.setSymbol("pid.x", i32(3));
  EXPECT_EQ(eval(onlyWrite(L).Value, E).asSigned(), 3 * 128 + 5);
  // 0 <= tid.x < 128 is among the assumptions.
  bool Bounded = false;
  for (const Expr *A : L.Thread.Assumptions) {
    Env Out;
    Out.setSymbol("tid.x", i32(128));
    Out.setSymbol("pid.x", i32(0));
    Out.setSymbol("nprog.x", i32(1));
    Bounded |= !eval(A, Out).isTrue();
  }
  EXPECT_TRUE(Bounded);
}

TEST(LlvmIntrinsics, ShuffleIsAnExchange) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, float %x",
                           "  %b = bitcast float %x to i32\n"
                           "  %s = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 "
                           "-1, i32 %b, i32 16, i32 31)\n"
                           "  %f = bitcast i32 %s to float\n"
                           "  %r = fadd float %x, %f\n"
                           "  store float %r, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, F32}, {false, F32}});
  ASSERT_EQ(L.Thread.Exchanges.size(), 1u);
  const ptx::Exchange &X = L.Thread.Exchanges[0];
  EXPECT_EQ(X.Kind, "shfl.sync.bfly");
  ASSERT_EQ(X.Operands.size(), 4u);
  EXPECT_EQ(X.Operands[1]->constBits(), 16u);
  EXPECT_EQ(X.Operands[3]->constBits(), 0xffffffffu);
  EXPECT_EQ(L.ExchangeLines, std::vector<unsigned>{5});
  Env E;
  E.setSymbol("arg1", f32(1.5f));
  E.setSymbol(X.Results[0]->name(), Value::ofBits(I32, f32(2.0f).Bits));
  EXPECT_EQ(asFloat(eval(onlyWrite(L).Value, E)), 3.5f);
}

TEST(LlvmIntrinsics, CpAsyncGroupsAreExchanges) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out",
                           "  call void @llvm.nvvm.cp.async.commit.group()\n"
                           "  call void @llvm.nvvm.cp.async.wait.group(i32 2)\n"
                           "  ret void\n"),
                    {{true, I32}});
  ASSERT_EQ(L.Thread.Exchanges.size(), 2u);
  EXPECT_EQ(L.Thread.Exchanges[0].Kind, "cp.async.commit_group");
  EXPECT_EQ(L.Thread.Exchanges[1].Kind, "cp.async.wait_group");
  EXPECT_EQ(L.Thread.Exchanges[1].Operands.at(0)->constBits(), 2u);
}

TEST(LlvmIntrinsics, LdmatrixIsNamedByItsPtxInstruction) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel(
          "ptr addrspace(1) %out",
          "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
          "  %o = shl i32 %t, 4\n"
          "  %p = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o\n"
          "  %m = call { i32, i32, i32, i32 } "
          "@llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3(ptr "
          "addrspace(3) %p)\n"
          "  %e = extractvalue { i32, i32, i32, i32 } %m, 2\n"
          "  store i32 %e, ptr addrspace(1) %out\n"
          "  ret void\n",
          "@global_smem = external addrspace(3) global [0 x i8], align 16\n"),
      {{true, I32}});
  ASSERT_EQ(L.Thread.Exchanges.size(), 1u);
  const ptx::Exchange &X = L.Thread.Exchanges[0];
  EXPECT_EQ(X.Kind, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
  ASSERT_EQ(X.Results.size(), 4u);
  EXPECT_EQ(onlyWrite(L).Value, X.Results[2]);
  Env E;
  E.setSymbol("tid.x", i32(3));
  EXPECT_EQ(eval(X.Operands.at(0), E).Bits, 48u); // byte offset in shared
}

TEST(LlvmIntrinsics, NvvmReflect) {
  auto Reflect = [](const std::string &Key, const std::string &Flags,
                    unsigned Capability) {
    Context C;
    std::string Str = "@s = private unnamed_addr constant [" +
                      std::to_string(Key.size() + 1) + " x i8] c\"" + Key +
                      "\\00\"\n" + Flags;
    LlvmLiftOptions O;
    O.Capability = Capability;
    LlvmLift L = lift(C,
                      kernel("ptr addrspace(1) %out",
                             "  %r = call i32 @__nvvm_reflect(ptr @s)\n"
                             "  store i32 %r, ptr addrspace(1) %out\n"
                             "  ret void\n",
                             Str + "declare i32 @__nvvm_reflect(ptr)\n"),
                      {{true, I32}}, O);
    return eval(onlyWrite(L).Value).asSigned();
  };
  std::string Ftz = "!llvm.module.flags = !{!0}\n"
                    "!0 = !{i32 4, !\"nvvm-reflect-ftz\", i32 1}\n";
  EXPECT_EQ(Reflect("__CUDA_FTZ", Ftz, 0), 1);
  EXPECT_EQ(Reflect("__CUDA_FTZ", "", 0), 0);
  EXPECT_EQ(Reflect("__CUDA_ARCH", "", 90), 900);
  EXPECT_EQ(Reflect("__CUDA_PREC_SQRT", "", 0), 0);
  EXPECT_THROW(Reflect("__CUDA_ARCH", "", 0), UnsupportedError);
  try {
    Reflect("__SOMETHING", "", 0);
    FAIL() << "no error";
  } catch (const UnsupportedError &E) {
    EXPECT_NE(E.What.find("__SOMETHING"), std::string::npos);
  }
}

TEST(LlvmIntrinsics, UnknownIntrinsicIsUnsupportedNamingIt) {
  Context C;
  std::string Text = kernel("ptr addrspace(1) %out",
                            "  %r = call i32 @llvm.nvvm.read.ptx.sreg.clock()\n"
                            "  store i32 %r, ptr addrspace(1) %out\n"
                            "  ret void\n");
  try {
    lift(C, Text, {{true, I32}});
    FAIL() << "no error";
  } catch (const UnsupportedError &E) {
    EXPECT_EQ(E.What,
              "unsupported instruction call @llvm.nvvm.read.ptx.sreg.clock");
    EXPECT_EQ(E.Where.Line, 4u);
    EXPECT_EQ(E.Where.File, "test.ll");
  }
}

TEST(LlvmIntrinsics, AssumeThatFailsIsUndefined) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  %c = icmp ult i32 %a, 10\n"
                           "  call void @llvm.assume(i1 %c)\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  ASSERT_EQ(L.Thread.Effects.Undefined.size(), 1u);
  Env E;
  E.setSymbol("arg1", i32(3));
  EXPECT_FALSE(eval(L.Thread.Effects.Undefined[0].Condition, E).isTrue());
  E.setSymbol("arg1", i32(30));
  EXPECT_TRUE(eval(L.Thread.Effects.Undefined[0].Condition, E).isTrue());
}

// Triton lowers tt.assert to a branch to __assertfail: the kernel is
// undefined on the path that calls it, as the TTGIR's assert says, with
// the assertion's message.
TEST(LlvmIntrinsics, AssertFailIsUndefinedOnItsPath) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel("ptr addrspace(1) %out, i32 %a",
             "  %bad = icmp uge i32 %a, 64\n"
             "  br i1 %bad, label %fail, label %ok\n"
             "fail:\n"
             "  call void @__assertfail(ptr @msg, ptr @msg, i32 1, ptr @msg, "
             "i64 1)\n"
             "  unreachable\n"
             "ok:\n"
             "  ret void\n",
             "@msg = internal constant [12 x i8] c\"index < 64\\00\\00\"\n"
             "declare void @__assertfail(ptr, ptr, i32, ptr, i64)\n"),
      {{true, I32}, {false, I32}});
  ASSERT_FALSE(L.Thread.Effects.Undefined.empty());
  EXPECT_EQ(L.Thread.Effects.Undefined[0].Reason,
            "device assertion failed: index < 64");
  auto AnyUndefined = [&](int32_t A) {
    Env E;
    E.setSymbol("arg1", i32(A));
    bool Any = false;
    for (const auto &U : L.Thread.Effects.Undefined)
      Any |= eval(U.Condition, E).isTrue();
    return Any;
  };
  EXPECT_FALSE(AnyUndefined(3));
  EXPECT_TRUE(AnyUndefined(64));
}

// llvm.fshl/fshr on i32 are shf.l.wrap/shf.r.wrap; llvm.nvvm.f2i.rn is
// cvt.rni.s32.f32 (saturating, NaN to 0).
TEST(LlvmIntrinsics, FunnelShiftsAndFloatToIntConversions) {
  auto Run = [](const std::string &Call, std::vector<Value> Args) {
    Context C;
    LlvmLift L = lift(
        C,
        kernel("ptr addrspace(1) %out, i32 %a, i32 %b, i32 %n, float %x",
               "  %r = " + Call +
                   "\n  store i32 %r, ptr addrspace(1) %out\n  ret void\n"),
        {{true, I32}, {false, I32}, {false, I32}, {false, I32}, {false, F32}});
    Env E;
    E.setSymbol("arg0", i64(0x1000));
    for (size_t K = 0; K < Args.size(); ++K)
      E.setSymbol("arg" + std::to_string(K + 1), Args[K]);
    return eval(onlyWrite(L).Value, E).Bits;
  };
  std::vector<Value> Ab = {i32(0x12345678), i32(int64_t(0x9abcdef0)), i32(8),
                           f32(0)};
  EXPECT_EQ(Run("call i32 @llvm.fshl.i32(i32 %a, i32 %b, i32 %n)", Ab),
            0x3456789au);
  EXPECT_EQ(Run("call i32 @llvm.fshr.i32(i32 %a, i32 %b, i32 %n)", Ab),
            0x789abcdeu);
  Ab[2] = i32(40); // the shift is taken modulo 32
  EXPECT_EQ(Run("call i32 @llvm.fshl.i32(i32 %a, i32 %b, i32 %n)", Ab),
            0x3456789au);
  for (auto [X, Want] : {std::pair{2.5f, 2u}, {3.5f, 4u}, {-1.5f, ~1u},
                         {3e9f, 0x7fffffffu}, {NAN, 0u}}) {
    Ab[3] = f32(X);
    EXPECT_EQ(Run("call i32 @llvm.nvvm.f2i.rn(float %x)", Ab), uint64_t(Want))
        << X;
  }
}

} // namespace

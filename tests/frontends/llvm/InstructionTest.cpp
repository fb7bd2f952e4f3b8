// Integer flags and their poison, float arithmetic, casts, vectors and
// bitcasts, errors: small kernels lifted and evaluated on concrete inputs.
#include "LlvmTestUtil.h"

#include "ir/Errors.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace stagecheck;
using namespace stagecheck::ir;
using namespace stagecheck::llvmir;
using namespace stagecheck::llvmir::test;

namespace {

const Type I32 = Type::i(32);

/// out[0] = OP(%a, %b) for i32 scalars a and b; returns (value, defined).
struct Binary {
  Context C;
  LlvmLift L;
  explicit Binary(const std::string &Instruction, Type Result = Type::i(32))
      : L(lift(C,
               kernel("ptr addrspace(1) %out, i32 %a, i32 %b",
                      "  %r = " + Instruction +
                          "\n"
                          "  store " +
                          Result.str() +
                          " %r, ptr addrspace(1) %out\n  ret void\n"),
               {{true, Result}, {false, I32}, {false, I32}})) {}
  std::pair<Value, bool> at(int64_t A, int64_t B) {
    Env E;
    E.setSymbol("arg1", i32(A));
    E.setSymbol("arg2", i32(B));
    const Write &W = onlyWrite(L);
    return {eval(W.Value, E), eval(W.Defined, E).isTrue()};
  }
  bool undefinedAt(int64_t A, int64_t B) {
    Env E;
    E.setSymbol("arg1", i32(A));
    E.setSymbol("arg2", i32(B));
    E.setSymbol("arg0", i64(0));
    for (const UndefinedBehavior &U : L.Thread.Effects.Undefined)
      if (eval(U.Condition, E).isTrue())
        return true;
    return false;
  }
};

TEST(LlvmInstructions, AddNswIsPoisonOnSignedOverflow) {
  Binary B("add nsw i32 %a, %b");
  EXPECT_EQ(B.at(2, 3).first.asSigned(), 5);
  EXPECT_TRUE(B.at(2, 3).second);
  EXPECT_FALSE(B.at(INT32_MAX, 1).second);
  EXPECT_TRUE(B.at(-1, 1).second); // wraps unsigned, not signed
}

TEST(LlvmInstructions, AddNuwIsPoisonOnUnsignedOverflow) {
  Binary B("add nuw i32 %a, %b");
  EXPECT_FALSE(B.at(-1, 1).second);
  EXPECT_TRUE(B.at(INT32_MAX, 1).second);
}

TEST(LlvmInstructions, SubAndMulFlags) {
  EXPECT_FALSE(Binary("sub nuw i32 %a, %b").at(1, 2).second);
  EXPECT_TRUE(Binary("sub nuw i32 %a, %b").at(2, 1).second);
  EXPECT_FALSE(Binary("sub nsw i32 %a, %b").at(INT32_MIN, 1).second);
  EXPECT_FALSE(Binary("mul nsw i32 %a, %b").at(1 << 16, 1 << 15).second);
  EXPECT_TRUE(Binary("mul nsw i32 %a, %b").at(-(1 << 15), 1 << 16).second);
  EXPECT_FALSE(Binary("mul nuw i32 %a, %b").at(1 << 16, 1 << 16).second);
  EXPECT_EQ(Binary("mul nuw i32 %a, %b").at(1000, 1000).first.asSigned(),
            1000000);
}

TEST(LlvmInstructions, ShiftsArePoisonPastTheWidthAndByTheirFlags) {
  Binary Shl("shl i32 %a, %b");
  EXPECT_EQ(Shl.at(3, 4).first.asSigned(), 48);
  EXPECT_FALSE(Shl.at(3, 32).second);
  EXPECT_FALSE(Binary("shl nuw i32 %a, %b").at(0x40000000, 2).second);
  EXPECT_TRUE(Binary("shl nuw i32 %a, %b").at(0x10000000, 2).second);
  EXPECT_FALSE(Binary("shl nsw i32 %a, %b").at(0x40000000, 1).second);
  EXPECT_FALSE(Binary("lshr exact i32 %a, %b").at(5, 1).second);
  EXPECT_TRUE(Binary("lshr exact i32 %a, %b").at(4, 1).second);
  EXPECT_EQ(Binary("ashr i32 %a, %b").at(-8, 1).first.asSigned(), -4);
}

TEST(LlvmInstructions, OrDisjointIsPoisonWhenBitsOverlap) {
  Binary B("or disjoint i32 %a, %b");
  EXPECT_EQ(B.at(4, 3).first.asSigned(), 7);
  EXPECT_TRUE(B.at(4, 3).second);
  EXPECT_FALSE(B.at(5, 3).second);
}

TEST(LlvmInstructions, DivisionByZeroIsUndefined) {
  Binary B("sdiv i32 %a, %b");
  EXPECT_EQ(B.at(-7, 2).first.asSigned(), -3);
  EXPECT_FALSE(B.undefinedAt(-7, 2));
  EXPECT_TRUE(B.undefinedAt(-7, 0));
  EXPECT_TRUE(B.undefinedAt(INT32_MIN, -1));
  Binary U("udiv exact i32 %a, %b");
  EXPECT_FALSE(U.at(7, 2).second);
  EXPECT_TRUE(U.at(8, 2).second);
  EXPECT_EQ(Binary("srem i32 %a, %b").at(-7, 2).first.asSigned(), -1);
}

TEST(LlvmInstructions, IcmpSamesignIsPoisonWhenSignsDiffer) {
  Binary B("icmp samesign ult i32 %a, %b", Type::boolean());
  EXPECT_TRUE(B.at(1, 2).first.isTrue());
  EXPECT_TRUE(B.at(1, 2).second);
  EXPECT_FALSE(B.at(-1, 2).second);
  Binary S("icmp sgt i32 %a, %b", Type::boolean());
  EXPECT_TRUE(S.at(1, -2).first.isTrue());
}

TEST(LlvmInstructions, SelectTakesTheChosenArmsPoison) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a, i32 %b",
                           "  %p = add nsw i32 %a, 1\n"
                           "  %c = icmp eq i32 %b, 0\n"
                           "  %r = select i1 %c, i32 %p, i32 7\n"
                           "  store i32 %r, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", i32(INT32_MAX));
  E.setSymbol("arg2", i32(1));
  EXPECT_TRUE(eval(W.Defined, E).isTrue()); // the poison arm is not taken
  EXPECT_EQ(eval(W.Value, E).asSigned(), 7);
  E.setSymbol("arg2", i32(0));
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
}

TEST(LlvmInstructions, FreezeMakesPoisonAnUnknownOfTheThread) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  %p = shl i32 %a, 40\n"
                           "  %f = freeze i32 %p\n"
                           "  store i32 %f, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  EXPECT_TRUE(W.Defined->isTrue());
  EXPECT_EQ(W.Value->op(), Op::Symbol);
  EXPECT_EQ(W.Value->name().rfind("uninit.freeze.", 0), 0u);
}

// Each freeze is its own unknown; the same kernel lifted again (a copy
// checked against its original) names them the same.
TEST(LlvmInstructions, FreezesAreNamedByLineAndOccurrence) {
  Context C;
  std::string Text = kernel("ptr addrspace(1) %out, i32 %a",
                            "  %p = shl i32 %a, 40\n"
                            "  %f = freeze i32 %p\n"
                            "  %g = freeze i32 %p\n"
                            "  %s = sub i32 %f, %g\n"
                            "  store i32 %s, ptr addrspace(1) %out\n"
                            "  ret void\n");
  LlvmLift First = lift(C, Text, {{true, I32}, {false, I32}});
  LlvmLift Again = lift(C, Text, {{true, I32}, {false, I32}});
  const Expr *V = onlyWrite(First).Value;
  ASSERT_EQ(V->op(), Op::Sub);
  EXPECT_NE(V->operand(0), V->operand(1));
  EXPECT_EQ(onlyWrite(Again).Value, V);

  // Two lanes frozen at one line are two unknowns.
  LlvmLift Lanes =
      lift(C,
           kernel("ptr addrspace(1) %out, i32 %a",
                  "  %v = insertelement <2 x i32> poison, i32 %a, i64 0\n"
                  "  %w = insertelement <2 x i32> %v, i32 %a, i64 1\n"
                  "  %p = shl <2 x i32> %w, <i32 40, i32 40>\n"
                  "  %f = freeze <2 x i32> %p\n"
                  "  %x = extractelement <2 x i32> %f, i64 0\n"
                  "  %y = extractelement <2 x i32> %f, i64 1\n"
                  "  %s = sub i32 %x, %y\n"
                  "  store i32 %s, ptr addrspace(1) %out\n"
                  "  ret void\n"),
           {{true, I32}, {false, I32}});
  const Expr *L = onlyWrite(Lanes).Value;
  ASSERT_EQ(L->op(), Op::Sub);
  ASSERT_EQ(L->operand(0)->op(), Op::Symbol);
  ASSERT_EQ(L->operand(1)->op(), Op::Symbol);
  EXPECT_NE(L->operand(0), L->operand(1));
}

TEST(LlvmInstructions, FloatArithmeticAndFptosiRange) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, float %x, float %y",
                           "  %s = fadd float %x, %y\n"
                           "  %m = fmul float %s, %y\n"
                           "  %n = fneg float %m\n"
                           "  %i = fptosi float %n to i32\n"
                           "  store i32 %i, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, I32}, {false, Type::f32()}, {false, Type::f32()}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", f32(1.5f));
  E.setSymbol("arg2", f32(2.0f));
  EXPECT_EQ(eval(W.Value, E).asSigned(), -7);
  EXPECT_TRUE(eval(W.Defined, E).isTrue());
  E.setSymbol("arg1", f32(3e9f));
  EXPECT_FALSE(eval(W.Defined, E).isTrue()); // out of i32's range
  E.setSymbol("arg1", f32(NAN));
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
}

TEST(LlvmInstructions, CastFlagsArePoison) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, i32 %a",
                           "  %z = zext nneg i32 %a to i64\n"
                           "  %t = trunc nsw i64 %z to i16\n"
                           "  store i16 %t, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, Type::i(16)}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", i32(100));
  EXPECT_TRUE(eval(W.Defined, E).isTrue());
  EXPECT_EQ(eval(W.Value, E).asSigned(), 100);
  E.setSymbol("arg1", i32(-1)); // nneg
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
  E.setSymbol("arg1", i32(40000)); // does not fit i16
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
}

TEST(LlvmInstructions, VectorBitcastPutsTheLowestLaneInTheLowestBits) {
  Context C;
  LlvmLift L =
      lift(C,
           kernel("ptr addrspace(1) %out, i32 %a, i32 %b",
                  "  %x = trunc i32 %a to i16\n"
                  "  %y = trunc i32 %b to i16\n"
                  "  %v0 = insertelement <2 x i16> poison, i16 %x, i64 0\n"
                  "  %v1 = insertelement <2 x i16> %v0, i16 %y, i64 1\n"
                  "  %w = bitcast <2 x i16> %v1 to i32\n"
                  "  store i32 %w, ptr addrspace(1) %out\n"
                  "  ret void\n"),
           {{true, I32}, {false, I32}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", i32(0x1234));
  E.setSymbol("arg2", i32(0xabcd));
  EXPECT_EQ(eval(W.Value, E).Bits, 0xabcd1234u);
  EXPECT_TRUE(W.Defined->isTrue());
}

TEST(LlvmInstructions, PoisonLaneMakesTheBitcastPoison) {
  Context C;
  LlvmLift L =
      lift(C,
           kernel("ptr addrspace(1) %out, i32 %a",
                  "  %x = trunc i32 %a to i16\n"
                  "  %v = insertelement <2 x i16> poison, i16 %x, i64 0\n"
                  "  %w = bitcast <2 x i16> %v to i32\n"
                  "  store i32 %w, ptr addrspace(1) %out\n"
                  "  ret void\n"),
           {{true, I32}, {false, I32}});
  EXPECT_TRUE(onlyWrite(L).Defined->isFalse());
}

TEST(LlvmInstructions, ShuffleAndExtractWithAVariableIndex) {
  Context C;
  LlvmLift L =
      lift(C,
           kernel("ptr addrspace(1) %out, i64 %bits, i32 %k",
                  "  %v = bitcast i64 %bits to <2 x float>\n"
                  "  %s = shufflevector <2 x float> %v, <2 x float> poison, "
                  "<2 x i32> <i32 1, i32 0>\n"
                  "  %e = extractelement <2 x float> %s, i32 %k\n"
                  "  store float %e, ptr addrspace(1) %out\n"
                  "  ret void\n"),
           {{true, Type::f32()}, {false, Type::i(64)}, {false, I32}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", i64((uint64_t(f32(2.5f).Bits) << 32) | f32(-1.0f).Bits));
  E.setSymbol("arg2", i32(0));
  EXPECT_EQ(asFloat(eval(W.Value, E)), 2.5f); // lane 1 of %v
  E.setSymbol("arg2", i32(1));
  EXPECT_EQ(asFloat(eval(W.Value, E)), -1.0f);
  EXPECT_TRUE(eval(W.Defined, E).isTrue());
  E.setSymbol("arg2", i32(2));
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
}

TEST(LlvmInstructions, AggregatesFlattenToLanes) {
  Context C;
  LlvmLift L = lift(
      C,
      kernel("ptr addrspace(1) %out, i32 %a, i32 %b",
             "  %s0 = insertvalue { i32, <2 x i32> } poison, i32 %a, 0\n"
             "  %v = insertelement <2 x i32> zeroinitializer, i32 %b, i64 1\n"
             "  %s1 = insertvalue { i32, <2 x i32> } %s0, <2 x i32> %v, 1\n"
             "  %w = extractvalue { i32, <2 x i32> } %s1, 1\n"
             "  %x = extractelement <2 x i32> %w, i64 1\n"
             "  %y = extractvalue { i32, <2 x i32> } %s1, 0\n"
             "  %r = sub i32 %x, %y\n"
             "  store i32 %r, ptr addrspace(1) %out\n"
             "  ret void\n"),
      {{true, I32}, {false, I32}, {false, I32}});
  Env E;
  E.setSymbol("arg1", i32(3));
  E.setSymbol("arg2", i32(10));
  EXPECT_EQ(eval(onlyWrite(L).Value, E).asSigned(), 7);
}

TEST(LlvmInstructions, ContractFlagsMarkTheAddContractible) {
  auto Contractible = [](const std::string &Flags, bool FpFusion) {
    Context C;
    LlvmLiftOptions O;
    O.FpFusion = FpFusion;
    LlvmLift L = lift(
        C,
        kernel("ptr addrspace(1) %out, float %x, float %y",
               "  %m = fmul " + Flags +
                   " float %x, %y\n"
                   "  %s = fadd " +
                   Flags +
                   " float %m, %y\n"
                   "  store float %s, ptr addrspace(1) %out\n"
                   "  ret void\n"),
        {{true, Type::f32()}, {false, Type::f32()}, {false, Type::f32()}}, O);
    const Expr *V = onlyWrite(L).Value;
    EXPECT_EQ(V->op(), Op::FAdd);
    return L.Contractible.count(V) == 1;
  };
  EXPECT_TRUE(Contractible("contract", false));
  EXPECT_TRUE(Contractible("fast", false));
  EXPECT_FALSE(Contractible("", false));
  EXPECT_TRUE(Contractible("", true));
}

TEST(LlvmInstructions, NnanIsPoisonOnNaN) {
  Context C;
  LlvmLift L = lift(C,
                    kernel("ptr addrspace(1) %out, float %x",
                           "  %s = fadd nnan float %x, 1.0\n"
                           "  store float %s, ptr addrspace(1) %out\n"
                           "  ret void\n"),
                    {{true, Type::f32()}, {false, Type::f32()}});
  const Write &W = onlyWrite(L);
  Env E;
  E.setSymbol("arg1", f32(1.0f));
  EXPECT_TRUE(eval(W.Defined, E).isTrue());
  E.setSymbol("arg1", f32(NAN));
  EXPECT_FALSE(eval(W.Defined, E).isTrue());
  EXPECT_TRUE(L.FastMath.at(W.Value).NoNaNs);
}

TEST(LlvmInstructions, MalformedIrIsAnInputErrorWithLineAndColumn) {
  Context C;
  std::string Text = "define ptx_kernel void @k(i32 %a) {\n"
                     "  %r = add i32 %a, \n"
                     "  ret void\n"
                     "}\n";
  try {
    liftLlvmText(C, Text, "bad.ll", interface({{false, I32}}));
    FAIL() << "no error";
  } catch (const InputError &E) {
    EXPECT_EQ(E.Where.File, "bad.ll");
    EXPECT_EQ(E.Where.Line, 3u);
    EXPECT_GT(E.Where.Column, 0u);
    EXPECT_NE(std::string(E.what()).find("bad.ll:3:"), std::string::npos)
        << E.what();
  }
}

TEST(LlvmInstructions, InvalidIrIsAnInputError) {
  Context C;
  // Parses, but %r is used before it is defined.
  std::string Text =
      kernel("ptr addrspace(1) %out", "  store i32 %r, ptr addrspace(1) %out\n"
                                      "  %r = add i32 1, 2\n"
                                      "  ret void\n");
  EXPECT_THROW(lift(C, Text, {{true, I32}}), InputError);
}

TEST(LlvmInstructions, NoKernelIsAnInputError) {
  Context C;
  EXPECT_THROW(liftLlvmText(C, "define void @f() {\n  ret void\n}\n", "f.ll",
                            interface({})),
               InputError);
}

TEST(LlvmInstructions, UnmodelledInstructionIsUnsupportedAtItsLine) {
  Context C;
  std::string Text = kernel("ptr addrspace(1) %out", "  fence seq_cst\n"
                                                     "  ret void\n");
  try {
    lift(C, Text, {{true, I32}});
    FAIL() << "no error";
  } catch (const UnsupportedError &E) {
    EXPECT_EQ(E.What, "unsupported instruction fence");
    EXPECT_EQ(E.Where.File, "test.ll");
    EXPECT_EQ(E.Where.Line, 4u);
  }
}

} // namespace

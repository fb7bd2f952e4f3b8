// liftInlineAsm: Triton's templates with their constraints, lifted into a
// caller's ThreadModel through the PTX lifter's own semantics.

#include "TestUtil.h"

#include "ir/Errors.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

using namespace stagecheck::ir;
using namespace stagecheck::ptx;
using namespace stagecheck::ptx::test;

namespace {

const char *const Load =
    "mov.u32 $0, 0x0;\n\t@$2 ld.global.b32 { $0 }, [ $1 + 0 ];";

struct Caller {
  Context C;
  ThreadModel M{C, interface(Type::f32(), {Type::i(32)}), {128, 1, 1}};
  Origin From{"call", {"k.llir", 12, 3}};

  /// A global pointer: arg0 plus Bytes.
  const Expr *pointer(uint64_t Bytes) {
    return C.cast(Op::IntToPtr,
                  C.add(M.parameter(0, 64, {}), C.constant(Type::i(64), Bytes)),
                  Type::ptr(AddressSpace::Global));
  }
  const Expr *flag() {
    return C.icmp(ICmpPredicate::Ne, M.parameter(1, 32, {}),
                  C.constant(Type::i(32), 0));
  }
  std::vector<const Expr *> run(std::string_view Template,
                                std::string_view Constraints,
                                std::vector<const Expr *> Inputs,
                                std::vector<Type> Outputs) {
    return liftInlineAsm(M, Template, Constraints, Inputs, Outputs, From,
                         /*SmVersion=*/90);
  }
};

TEST(InlineAsm, PredicatedLoadWithDefault) {
  Caller K;
  auto R = K.run(Load, "=r,l,b", {K.pointer(8), K.flag()}, {Type::i(32)});
  ASSERT_EQ(R.size(), 1u);
  EXPECT_EQ(R[0]->type(), Type::i(32));
  Env E;
  E.setRead("arg0", 2, Value::ofDouble(Type::f32(), 1.5));
  E.setSymbol("arg1", i32(1));
  EXPECT_EQ(eval(R[0], E).Bits, 0x3FC00000u);
  E.setSymbol("arg1", i32(0));
  EXPECT_EQ(eval(R[0], E).Bits, 0u);
  // LLVM's IR-text escapes read the same, and a float output is the bits.
  auto Escaped = K.run("mov.u32 $0, 0x0;\\0A\\09@$2 ld.global.b32 { $0 }, "
                       "[ $1 + 0 ];",
                       "=r,l,b", {K.pointer(8), K.flag()}, {Type::i(32)});
  EXPECT_EQ(Escaped[0], R[0]);
  auto F = K.run(Load, "=f,l,b", {K.pointer(8), K.flag()}, {Type::f32()});
  EXPECT_EQ(F[0], K.C.cast(Op::Bitcast, R[0], Type::f32()));
}

TEST(InlineAsm, SameExpressionAsThePtxFile) {
  Context C;
  PtxLift L = lift(C,
                   "ld.param.b64 %rd1, [k_param_0];\n"
                   "add.s64 %rd2, %rd1, 8;\n"
                   "ld.param.b32 %r9, [k_param_1];\n"
                   "setp.ne.s32 %p1, %r9, 0;\n"
                   "// begin inline asm\n"
                   "mov.u32 %r1, 0x0;\n"
                   "@%p1 ld.global.b32 { %r1 }, [ %rd2 + 0 ];\n"
                   "// end inline asm\n"
                   "st.global.b32 [%rd1], %r1;\nret;",
                   Type::f32(), {Type::i(32)});
  ThreadModel M(C, interface(Type::f32(), {Type::i(32)}), {128, 1, 1});
  const Expr *Pointer = C.cast(
      Op::IntToPtr, C.add(M.parameter(0, 64, {}), C.constant(Type::i(64), 8)),
      Type::ptr(AddressSpace::Global));
  const Expr *Flag = C.icmp(ICmpPredicate::Ne, M.parameter(1, 32, {}),
                            C.constant(Type::i(32), 0));
  const Expr *Inputs[] = {Pointer, Flag};
  auto R = liftInlineAsm(M, Load, "=r,l,b", Inputs, {Type::f32()}, {"call", {}},
                         /*SmVersion=*/90);
  EXPECT_EQ(R[0], L.Thread.Effects.Writes.at(0).Value)
      << printExpr(R[0]) << "\n"
      << printExpr(L.Thread.Effects.Writes.at(0).Value);
}

TEST(InlineAsm, StoresTakeTheCallersPathCondition) {
  Caller K;
  const Expr *X = K.C.symbol("x", Type::f32());
  const Expr *Q = K.C.symbol("q", Type::boolean());
  K.M.setPathCondition(Q);
  auto R = K.run("@$2 st.global.b32 [ $1 + 0 ], { $0 };", "r,l,b",
                 {X, K.pointer(4), K.flag()}, {});
  EXPECT_TRUE(R.empty());
  K.M.setPathCondition(nullptr);
  ThreadEffects T = K.M.finish();
  ASSERT_EQ(T.Effects.Writes.size(), 1u);
  const Write &W = T.Effects.Writes[0];
  EXPECT_EQ(W.Value, X);
  EXPECT_EQ(W.From.Op, "st.global.b32");
  EXPECT_EQ(W.From.Loc.str(), "k.llir:12:3");
  Env E;
  E.setSymbol("arg1", i32(1));
  E.setSymbol("q", pred(true));
  EXPECT_TRUE(eval(W.Guard, E).isTrue());
  E.setSymbol("q", pred(false));
  EXPECT_FALSE(eval(W.Guard, E).isTrue());
  EXPECT_EQ(eval(W.Index, E).Bits, 1u);
}

TEST(InlineAsm, SharedStoreThroughA32BitRegister) {
  Caller K;
  const Expr *Offset = K.C.symbol("off", Type::i(32));
  const Expr *Shared = K.C.cast(
      Op::IntToPtr,
      K.C.add(K.M.sharedBase(64), K.C.cast(Op::ZExt, Offset, Type::i(64))),
      Type::ptr(AddressSpace::Shared));
  K.run("@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b",
        {Shared, K.C.constant(Type::i(32), 0x01020304), K.C.trueExpr()}, {});
  ThreadEffects T = K.M.finish();
  ASSERT_EQ(T.Effects.Writes.size(), 4u);
  EXPECT_EQ(T.Effects.Writes[0].Buffer, "smem.0");
  Env E;
  E.setSymbol("off", i32(40));
  EXPECT_EQ(eval(T.Effects.Writes[1].Index, E).Bits, 41u);
  EXPECT_EQ(eval(T.Effects.Writes[1].Value, E).Bits, 0x03u);
}

TEST(InlineAsm, VectorLoadKeepsDefaultsWhenOff) {
  Caller K;
  std::vector<const Expr *> In;
  for (unsigned I = 0; I < 4; ++I)
    In.push_back(K.C.constant(Type::i(32), 100 + I));
  In.push_back(K.pointer(0));
  In.push_back(K.C.falseExpr());
  auto R = K.run("mov.u32 $0, $4;\n\tmov.u32 $1, $5;\n\tmov.u32 $2, $6;\n\t"
                 "mov.u32 $3, $7;\n\t@$9 ld.global.v4.b32 { $0, $1, $2, $3 }, "
                 "[ $8 + 0 ];",
                 "=r,=r,=r,=r,r,r,r,r,l,b", In,
                 {Type::i(32), Type::i(32), Type::i(32), Type::i(32)});
  ASSERT_EQ(R.size(), 4u);
  for (unsigned I = 0; I < 4; ++I)
    EXPECT_EQ(R[I], K.C.constant(Type::i(32), 100 + I));
  EXPECT_TRUE(K.M.finish().Effects.Undefined.empty());
}

TEST(InlineAsm, TiedAccumulatorsOfMma) {
  Caller K;
  std::vector<const Expr *> In;
  for (unsigned I = 0; I < 4; ++I)
    In.push_back(K.C.symbol("c" + std::to_string(I), Type::f32()));
  for (unsigned I = 0; I < 6; ++I)
    In.push_back(K.C.symbol("a" + std::to_string(I), Type::i(32)));
  std::vector<Type> F32(4, Type::f32());
  auto R = K.run("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{ $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, "
                 "{ $4, $5, $6, $7 };",
                 "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r", In, F32);
  ThreadEffects T = K.M.finish();
  ASSERT_EQ(T.Exchanges.size(), 1u);
  const Exchange &X = T.Exchanges[0];
  EXPECT_EQ(X.Kind, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  ASSERT_EQ(X.Operands.size(), 10u);
  EXPECT_EQ(X.Operands[0], In[4]);
  EXPECT_EQ(X.Operands[6], K.C.cast(Op::Bitcast, In[0], Type::i(32)));
  ASSERT_EQ(R.size(), 4u);
  EXPECT_EQ(R[2], K.C.cast(Op::Bitcast, X.Results[2], Type::f32()));
}

TEST(InlineAsm, ImmediatesTiesAndPolicies) {
  Caller K;
  const Expr *A = K.C.symbol("a", Type::i(32));
  auto R = K.run("add.s32 $0, $1, $2;", "=r,r,n",
                 {A, K.C.constant(Type::i(32), 7)}, {Type::i(32)});
  EXPECT_EQ(R[0], K.C.add(A, K.C.constant(Type::i(32), 7)));
  auto T = K.run("add.s32 $0, $1, 1;", "=r,0", {A}, {Type::i(32)});
  EXPECT_EQ(T[0], K.C.add(A, K.C.constant(Type::i(32), 1)));
  const char *Policy = "mov.u64 $0, 0x0;\n\tcreatepolicy.fractional."
                       "L2::evict_first.b64 $0, 1.0;";
  auto P1 = K.run(Policy, "=l", {}, {Type::i(64)});
  auto P2 = K.run(Policy, "=l", {}, {Type::i(64)});
  EXPECT_EQ(P1[0], P2[0]);
  EXPECT_EQ(P1[0]->op(), Op::Symbol);
  auto U = K.run("", "=r", {}, {Type::i(32)});
  EXPECT_EQ(U[0]->name(), "uninit.b32");
  // A 16-bit register for an i16 output ("c" and "h").
  auto H = K.run("mov.u16 $0, 0x3C00;", "=h", {}, {Type::f16()});
  EXPECT_EQ(H[0], K.C.floatConst(Type::f16(), 1.0));
}

TEST(InlineAsm, ErrorsAtTheCallsLocation) {
  Caller K;
  try {
    K.run("mov.u32 $0 0x0;", "=r", {}, {Type::i(32)});
    FAIL() << "no error";
  } catch (const InputError &E) {
    EXPECT_EQ(E.Where.str(), "k.llir:12:3");
  }
  try {
    K.run("vote.all.pred $0, $1;", "=b,b", {K.C.trueExpr()}, {Type::boolean()});
    FAIL() << "no error";
  } catch (const UnsupportedError &E) {
    EXPECT_EQ(E.What, "unsupported instruction vote.all.pred");
    EXPECT_EQ(E.Where.str(), "k.llir:12:3");
  }
  EXPECT_THROW(K.run(Load, "=r,l,b", {K.pointer(0)}, {Type::i(32)}),
               InputError);
  EXPECT_THROW(K.run(Load, "=r,l,q", {K.pointer(0), K.flag()}, {Type::i(32)}),
               UnsupportedError);
  EXPECT_THROW(K.run("ret;", "", {}, {}), UnsupportedError);
}

} // namespace

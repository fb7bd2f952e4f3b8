#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace stagecheck::ir;

namespace stagecheck::ptx::test {

namespace {

std::string ptxType(Type T) {
  if (T.isBool())
    return "u8";
  if (T.isFloat())
    return "f" + std::to_string(T.bits());
  return "b" + std::to_string(T.bits());
}

} // namespace

std::string kernel(const std::string &Body, const std::vector<Type> &Scalars,
                   const std::string &Directives) {
  std::string Params = "\t.param .u64 .ptr .global .align 1 k_param_0";
  for (size_t K = 0; K < Scalars.size(); ++K)
    Params += ",\n\t.param ." + ptxType(Scalars[K]) + " k_param_" +
              std::to_string(K + 1);
  return ".version 8.7\n.target sm_90a\n.address_size 64\n"
         ".extern .shared .align 16 .b8 global_smem[];\n"
         ".visible .entry k(\n" +
         Params + "\n)\n" + Directives +
         "\n{\n\t.reg .pred %p<16>;\n\t.reg .b16 %rs<16>;\n"
         "\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<16>;\n" +
         Body + "\n}\n";
}

KernelInterface interface(Type Out, const std::vector<Type> &Scalars) {
  KernelInterface I;
  I.Kernel = "k";
  I.Params.push_back({"arg0", true, Out});
  for (size_t K = 0; K < Scalars.size(); ++K)
    I.Params.push_back({paramName(unsigned(K + 1)), false, Scalars[K]});
  return I;
}

PtxLift lift(Context &C, const std::string &Body, Type Out,
             const std::vector<Type> &Scalars, const PtxLiftOptions &O) {
  return liftPtxText(C, kernel(Body, Scalars), "k.ptx", interface(Out, Scalars),
                     O);
}

uint64_t run(const std::string &Code, const std::vector<Value> &Inputs,
             const std::string &Result) {
  Context C;
  std::string Body;
  std::vector<Type> Scalars;
  for (size_t K = 0; K < Inputs.size(); ++K) {
    Type T = Inputs[K].Ty;
    Scalars.push_back(T);
    std::string N = std::to_string(K + 1), P = "[k_param_" + N + "]";
    if (T.isBool())
      Body +=
          "ld.param.u8 %rs15, " + P + ";\nsetp.ne.b16 %p" + N + ", %rs15, 0;\n";
    else if (T.bits() == 16)
      Body += "ld.param.b16 %rs" + N + ", " + P + ";\n";
    else if (T.bits() == 32)
      Body += "ld.param.b32 %r" + N + ", " + P + ";\n";
    else
      Body += "ld.param.b64 %rd" + N + ", " + P + ";\n";
  }
  Body += Code + "\nld.param.b64 %rd15, [k_param_0];\n";
  Type Out = Type::i(32);
  if (Result.rfind("%rd", 0) == 0) {
    Out = Type::i(64);
    Body += "st.global.b64 [%rd15], " + Result + ";\n";
  } else if (Result.rfind("%rs", 0) == 0) {
    Out = Type::i(16);
    Body += "st.global.b16 [%rd15], " + Result + ";\n";
  } else if (Result.rfind("%p", 0) == 0) {
    Body += "selp.b32 %r63, 1, 0, " + Result +
            ";\n"
            "st.global.b32 [%rd15], %r63;\n";
  } else {
    Body += "st.global.b32 [%rd15], " + Result + ";\n";
  }
  Body += "ret;";
  PtxLift L = lift(C, Body, Out, Scalars);
  EXPECT_EQ(L.Thread.Effects.Writes.size(), 1u);
  if (L.Thread.Effects.Writes.empty())
    return ~uint64_t(0);
  Env E;
  for (size_t K = 0; K < Inputs.size(); ++K)
    E.setSymbol(paramName(unsigned(K + 1)), Inputs[K]);
  const Write &W = L.Thread.Effects.Writes[0];
  EXPECT_TRUE(eval(W.Guard, E).isTrue());
  return eval(W.Value, E).Bits;
}

uint32_t f32Bits(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

float bitsF32(uint64_t Bits) {
  uint32_t B = uint32_t(Bits);
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}

Value f32(float F) { return Value::ofBits(Type::i(32), f32Bits(F)); }
Value i32(int64_t V) { return Value::ofBits(Type::i(32), uint64_t(V)); }
Value i64(int64_t V) { return Value::ofBits(Type::i(64), uint64_t(V)); }
Value i16(int64_t V) { return Value::ofBits(Type::i(16), uint64_t(V)); }
Value pred(bool B) { return Value::ofBool(B); }

Value eval(const Expr *E, const Env &Environment) {
  Interpreter I(Environment);
  return I.eval(E);
}

} // namespace stagecheck::ptx::test

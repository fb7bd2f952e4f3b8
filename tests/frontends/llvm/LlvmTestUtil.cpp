#include "LlvmTestUtil.h"

#include <cstring>
#include <stdexcept>

using namespace stagecheck::ir;

namespace stagecheck::llvmir::test {

std::string kernel(const std::string &Signature, const std::string &Body,
                   const std::string &Tail) {
  return "target datalayout = \"e-p3:32:32-i64:64-i128:128-v16:16-v32:32-"
         "n16:32:64\"\n\n"
         "define ptx_kernel void @k(" +
         Signature + ") #0 {\n" + Body + "}\n\n" + Tail +
         "\nattributes #0 = { \"nvvm.reqntid\"=\"128\" }\n";
}

KernelInterface interface(const std::vector<Param> &Params) {
  KernelInterface I;
  I.Kernel = "k";
  for (unsigned K = 0; K < Params.size(); ++K)
    I.Params.push_back({paramName(K), Params[K].Pointer, Params[K].T});
  return I;
}

LlvmLift lift(Context &C, const std::string &Module,
              const std::vector<Param> &Params, const LlvmLiftOptions &O) {
  return liftLlvmText(C, Module, "test.ll", interface(Params), O);
}

Value eval(const Expr *E, const Env &Env) {
  Interpreter I(Env);
  return I.eval(E);
}

const Write &onlyWrite(const LlvmLift &L) {
  if (L.Thread.Effects.Writes.size() != 1)
    throw std::runtime_error("expected one write, got " +
                             std::to_string(L.Thread.Effects.Writes.size()));
  return L.Thread.Effects.Writes[0];
}

Value i32(int64_t V) { return Value::ofBits(Type::i(32), uint64_t(V)); }
Value i64(int64_t V) { return Value::ofBits(Type::i(64), uint64_t(V)); }
Value f32(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return Value::ofBits(Type::f32(), B);
}
float asFloat(const Value &V) {
  uint32_t B = uint32_t(V.Bits);
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}

} // namespace stagecheck::llvmir::test

// libdevice's bodies choose between flush-to-zero and IEEE instructions by
// __nvvm_reflect("__CUDA_FTZ"); a kernel linked with FTZ on takes the .ftz
// one everywhere. One choice turned round differs from the TTGIR (read
// with libdevice's FTZ bodies) only where a value is subnormal: inside a
// polynomial that absorbs it, nothing a launch sees changes (proved, as a
// mutant equivalent to the original); at a stored value, it does.
#include "TritonLibdevice.h"

#include "bundle/Manifest.h"
#include "tests/support/TextLines.h"

#include <gtest/gtest.h>

using namespace stagecheck;

namespace {

/// bench/heldout/inductor_gelu_tanh: gelu with tanh's approximation, whose
/// __nv_tanhf is inlined into the LLVM IR.
struct GeluTanh : test::BundleKernel {
  GeluTanh() : BundleKernel("inductor_gelu_tanh", "../bench/heldout") {}
};

TEST(LibdeviceFlush, TheKernelAsCompiledIsProved) {
  GeluTanh K;
  stages::PairResult R = K.against(K.Llir);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
}

// Line 64 picks tanhf's third polynomial step with or without .ftz; the
// mutant takes the IEEE fma. x^2 subnormal leaves the steps below it
// constant on both sides, and -1/3 absorbs its product: equivalent. The
// two values are asked case by case over the flush (x^2 normal, a positive
// or a negative subnormal), where a solver given the four fmas at once
// runs out of time.
TEST(LibdeviceFlush, AReflectTestTurnedInsideTanhsPolynomialIsProved) {
  GeluTanh K;
  stages::PairResult R = K.against(K.edited(
      64, "%.not3.i = icmp eq i32 %45, 0", "  %.not3.i = icmp ne i32 %45, 0"));
  EXPECT_EQ(stages::spelling(R.Kind), std::string("proved")) << R.Reason;
}

// Line 84's product is the stored value; flushed, a subnormal result (a
// tiny input: gelu(x) is about x/2 there) is stored as 0.
TEST(LibdeviceFlush, AFlushedStoredProductGivesACounterexample) {
  GeluTanh K;
  std::string Text = K.edited(
      84, "%56 = fmul float %54, %55",
      "  %56 = call float @llvm.nvvm.mul.rn.ftz.f(float %54, float %55)");
  Text += "\ndeclare float @llvm.nvvm.mul.rn.ftz.f(float, float)\n";
  stages::PairResult R = K.against(Text);
  ASSERT_EQ(stages::spelling(R.Kind), std::string("counterexample"))
      << R.Reason;
  ASSERT_TRUE(R.Cex.has_value());
  EXPECT_EQ(R.Cex->Buffer, "arg1");
  ASSERT_TRUE(R.Cex->Source && R.Cex->Target);
  // The flushed side stores a zero, the source a subnormal.
  EXPECT_EQ(R.Cex->Target->Bits & 0x7fffffffu, 0u);
  EXPECT_NE(R.Cex->Source->Bits & 0x7fffffffu, 0u);
  EXPECT_EQ(R.Cex->Source->Bits & 0x7f800000u, 0u);
}

} // namespace

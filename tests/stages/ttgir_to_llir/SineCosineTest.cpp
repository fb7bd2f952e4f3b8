// Sine and cosine as libdevice computes them: a fast reduction for small
// arguments and, from 105615 on, the Payne-Hanek reduction, which keeps
// partial products of the 2/pi table in a local array and multiplies words
// through the carry flag. bench/heldout4/inductor_sin_cos stores
// sin(x) + cos(x): its LLVM IR (libdevice inlined), its PTX (a .local
// depot, ld.global.nc of the table, mad.lo.cc/madc.hi) and the TTGIR's
// meaning (__nv_sinf and __nv_cosf lifted from libdevice) must agree bit
// for bit on every argument, and with the host's sine and cosine to a few
// ulp; mutants of the real files that break the reduction must be seen.
#include "TritonLibdevice.h"

#include "bundle/Manifest.h"
#include "frontends/llvm/LlvmLifter.h"
#include "ir/Interpreter.h"
#include "ptx_lifter/PtxLifter.h"
#include "stages/Libdevice.h"
#include "tests/support/TextLines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

const Type F32 = Type::f32();
const unsigned Thread = 3; // of program 0: it loads arg0[3]

/// Arguments on both sides of 105615 (the slow path), the huge, the tiny
/// and the special.
const float Arguments[] = {1.0f,   -0.5f,    100.0f,  105614.0f,
                           105615.0f, 1e6f,  -3.3e30f, 1.5e38f,
                           1e-40f, -7.25e9f, INFINITY, NAN};

struct SinCos {
  SinCos()
      : M(bundle::loadBundle(STAGECHECK_TEST_DIR
                             "/../bench/heldout4/inductor_sin_cos")),
        L(*M.launches().front()), Interface(L.interface(M.Tensors)),
        Llir(test::fileText(L.file("llir"))),
        Ptx(test::fileText(L.file("ptx"))) {}

  bundle::Manifest M;
  const bundle::Launch &L;
  KernelInterface Interface;
  std::string Llir, Ptx;

  /// The value thread 0.Thread stores, for each argument.
  using Values = std::vector<uint32_t>;

  static Values run(const Expr *Stored) {
    Values Out;
    for (float X : Arguments) {
      Env E;
      uint32_t Bits;
      std::memcpy(&Bits, &X, 4);
      E.setRead("arg0", Thread, Value::ofBits(F32, Bits));
      // Launch symbols; anything else the expression names (a freeze of
      // a never-taken path's poison) is 0.
      const Expr *Roots[] = {Stored};
      for (const Expr *N : postOrder(Roots))
        if (N->op() == Op::Symbol)
          E.setSymbol(N->name(),
                      Value::ofBits(N->type(), N->name() == "tid.x" ? Thread
                                               : N->name().rfind("nprog", 0) == 0
                                                   ? 2
                                                   : 0));
      Out.push_back(uint32_t(Interpreter(E).eval(Stored).Bits));
    }
    return Out;
  }

  static const Expr *storedValue(const Effects &E) {
    EXPECT_EQ(E.Writes.size(), 1u);
    return E.Writes.at(0).Value;
  }

  Values llir(Context &C, const std::string &Text) const {
    llvmir::LlvmLiftOptions O;
    O.Capability = unsigned(M.Capability);
    return run(storedValue(
        llvmir::liftLlvmText(C, Text, L.file("llir"), Interface, O)
            .Thread.Effects));
  }
  Values ptx(Context &C, const std::string &Text) const {
    return run(storedValue(
        ptx::liftPtxText(C, Text, L.file("ptx"), Interface).Thread.Effects));
  }
  /// sin(x) + cos(x) with libdevice's bodies (flush to zero, as the kernel
  /// was compiled).
  Values libdevice(Context &C) const {
    stages::Libdevice Lib(test::tritonLibdevice(), 1, 90);
    const Expr *X = C.read("arg0", F32, C.constant(Type::i(64), Thread));
    const Expr *Args[] = {X};
    const Expr *Sum = C.floatBinary(Op::FAdd, C.call("__nv_sinf", F32, Args),
                                    C.call("__nv_cosf", F32, Args));
    return run(Lib.withBodies(C, Sum).first);
  }
};

float asFloat(uint32_t Bits) {
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

TEST(SineCosine, LlvmIrPtxAndLibdeviceAgreeOnEveryArgument) {
  if (test::tritonLibdevice().empty())
    GTEST_SKIP() << "no libdevice";
  SinCos K;
  Context C;
  SinCos::Values Llir = K.llir(C, K.Llir), Ptx = K.ptx(C, K.Ptx),
                 Lib = K.libdevice(C);
  for (size_t I = 0; I < std::size(Arguments); ++I) {
    float X = Arguments[I];
    EXPECT_EQ(Llir[I], Ptx[I]) << X;
    EXPECT_EQ(Llir[I], Lib[I]) << X;
    float Got = asFloat(Llir[I]);
    if (!std::isfinite(X)) {
      EXPECT_TRUE(std::isnan(Got)) << X;
      continue;
    }
    double Want = std::sin(double(X)) + std::cos(double(X));
    EXPECT_NEAR(Got, Want, 4e-7) << X;
  }
}

/// Whether Mutant's values differ from Original's at an argument of the
/// slow path.
bool differsBeyondTheFastPath(const SinCos::Values &Original,
                              const SinCos::Values &Mutant) {
  for (size_t I = 0; I < std::size(Arguments); ++I)
    if (std::fabs(Arguments[I]) >= 105615.0f && std::isfinite(Arguments[I]) &&
        Original[I] != Mutant[I])
      return true;
  return false;
}

std::string replacedOnce(std::string Text, const std::string &Before,
                         const std::string &After) {
  size_t At = Text.find(Before);
  EXPECT_NE(At, std::string::npos) << Before;
  if (At != std::string::npos)
    Text.replace(At, Before.size(), After);
  return Text;
}

TEST(SineCosine, MutantsOfTheReductionAreSeen) {
  SinCos K;
  Context C;
  SinCos::Values Ptx = K.ptx(C, K.Ptx), Llir = K.llir(C, K.Llir);
  // The carry into the high word dropped (madc.hi made mad.hi).
  EXPECT_TRUE(differsBeyondTheFastPath(
      Ptx, K.ptx(C, replacedOnce(K.Ptx, "madc.hi.u32     %r97",
                                 "mad.hi.u32     %r97"))));
  // One byte of the 2/pi table's leading word (0xa2f9836e, stored last).
  EXPECT_TRUE(differsBeyondTheFastPath(
      Ptx, K.ptx(C, replacedOnce(K.Ptx, "110, 131, 249, 162}",
                                 "110, 131, 248, 162}"))));
  // The last partial product stored one word too low in the local array.
  EXPECT_TRUE(differsBeyondTheFastPath(
      Ptx, K.ptx(C, replacedOnce(K.Ptx, "st.local.b32 \t[%r2+24], %r97;",
                                 "st.local.b32 \t[%r2+20], %r97;"))));
  // The same in the LLVM IR's alloca.
  EXPECT_TRUE(differsBeyondTheFastPath(
      Llir,
      K.llir(C, replacedOnce(K.Llir,
                             "getelementptr inbounds nuw i8, ptr "
                             "%result.i.i.i.i, i64 24",
                             "getelementptr inbounds nuw i8, ptr "
                             "%result.i.i.i.i, i64 20"))));
}

// A math function the TTGIR keeps whose lowering is not modelled
// (math.sin made math.tan): against the LLVM IR's own computation of sine,
// a difference could be nothing but tan's free value. Unknown, never a
// counterexample.
TEST(SineCosine, AnUnloweredFunctionIsUnknownNotACounterexample) {
  SinCos K;
  std::string Ttgir = test::fileText(K.L.file("ttgir"));
  size_t At = Ttgir.find("math.sin ");
  ASSERT_NE(At, std::string::npos);
  Ttgir.replace(At, 8, "math.tan");
  stages::PairResult R =
      test::ttgirAgainstLlir(K.M, K.L, Ttgir, K.Llir, /*Seconds=*/60);
  EXPECT_EQ(stages::spelling(R.Kind), std::string("unknown")) << R.Reason;
  EXPECT_NE(R.Reason.find("the TTGIR's tan has no modelled lowering"),
            std::string::npos)
      << R.Reason;
}

} // namespace

// Instruction semantics: small PTX snippets lifted and evaluated by the
// interpreter on concrete inputs, against the values the PTX ISA gives.

#include "TestUtil.h"

#include "ir/Errors.h"
#include "ir/Functions.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

using namespace stagecheck::ir;
using namespace stagecheck::ptx::test;

namespace {

const uint32_t NaN = 0x7fc00000u;
const uint32_t PosZero = 0, NegZero = 0x80000000u;

uint32_t f32op(const std::string &Code, float A, float B) {
  return uint32_t(run(Code, {f32(A), f32(B)}));
}

TEST(PtxFloat, RoundingModes) {
  // 1 + 0.75 ulp: nearest and up give 1 + ulp, zero and down give 1.
  float Ulp = std::ldexp(1.0f, -23), B = 0.75f * Ulp;
  uint32_t One = f32Bits(1.0f), Next = One + 1;
  EXPECT_EQ(f32op("add.f32 %r0, %r1, %r2;", 1.0f, B), Next);
  EXPECT_EQ(f32op("add.rn.f32 %r0, %r1, %r2;", 1.0f, B), Next);
  EXPECT_EQ(f32op("add.rz.f32 %r0, %r1, %r2;", 1.0f, B), One);
  EXPECT_EQ(f32op("add.rm.f32 %r0, %r1, %r2;", 1.0f, B), One);
  EXPECT_EQ(f32op("add.rp.f32 %r0, %r1, %r2;", 1.0f, B), Next);
  // Negative: down moves away from zero.
  EXPECT_EQ(f32op("sub.rm.f32 %r0, %r1, %r2;", -1.0f, B), f32Bits(-1.0f) + 1);
  EXPECT_EQ(f32op("sub.rp.f32 %r0, %r1, %r2;", -1.0f, B), f32Bits(-1.0f));
  // fma rounds once: (1 + ulp) * (1 - ulp) - 1 = -ulp^2 exactly.
  EXPECT_EQ(uint32_t(run("fma.rn.f32 %r0, %r1, %r2, %r3;",
                         {f32(1.0f + Ulp), f32(1.0f - Ulp), f32(-1.0f)})),
            f32Bits(-Ulp * Ulp));
  EXPECT_EQ(uint32_t(run("mul.rn.f32 %r4, %r1, %r2;\nadd.rn.f32 %r0, %r4, %r3;",
                         {f32(1.0f + Ulp), f32(1.0f - Ulp), f32(-1.0f)})),
            PosZero);
  EXPECT_EQ(f32op("div.rn.f32 %r0, %r1, %r2;", 1.0f, 3.0f),
            f32Bits(1.0f / 3.0f));
  EXPECT_EQ(f32op("div.rz.f32 %r0, %r1, %r2;", 2.0f, 3.0f),
            f32Bits(2.0f / 3.0f) - 1); // 2/3 rounds up to nearest
  EXPECT_EQ(uint32_t(run("sqrt.rn.f32 %r0, %r1;", {f32(2.0f)})),
            f32Bits(std::sqrt(2.0f)));
  EXPECT_EQ(uint32_t(run("rcp.rn.f32 %r0, %r1;", {f32(4.0f)})), f32Bits(0.25f));
}

TEST(PtxFloat, FlushToZero) {
  float Sub = std::ldexp(1.0f, -130), Big = std::ldexp(1.0f, 100);
  EXPECT_EQ(f32op("mul.rn.f32 %r0, %r1, %r2;", Sub, Big),
            f32Bits(std::ldexp(1.0f, -30)));
  EXPECT_EQ(f32op("mul.rn.ftz.f32 %r0, %r1, %r2;", Sub, Big), PosZero);
  // A subnormal result flushes too, keeping its sign.
  EXPECT_EQ(f32op("mul.rn.ftz.f32 %r0, %r1, %r2;", -std::ldexp(1.0f, -70),
                  std::ldexp(1.0f, -70)),
            NegZero);
  EXPECT_EQ(uint32_t(run("fma.rn.ftz.f32 %r0, %r1, %r2, %r3;",
                         {f32(Sub), f32(Big), f32(1.0f)})),
            f32Bits(1.0f));
  EXPECT_EQ(uint32_t(run("abs.ftz.f32 %r0, %r1;", {f32(-Sub)})), PosZero);
  EXPECT_EQ(uint32_t(run("abs.f32 %r0, %r1;", {f32(-Sub)})), f32Bits(Sub));
  EXPECT_EQ(uint32_t(run("neg.f32 %r0, %r1;", {f32(0.0f)})), NegZero);
}

TEST(PtxFloat, Saturate) {
  EXPECT_EQ(f32op("add.sat.f32 %r0, %r1, %r2;", 1.5f, 0.0f), f32Bits(1.0f));
  EXPECT_EQ(f32op("add.sat.f32 %r0, %r1, %r2;", -2.0f, 0.0f), PosZero);
  EXPECT_EQ(f32op("add.sat.f32 %r0, %r1, %r2;", 0.25f, 0.25f), f32Bits(0.5f));
  float QNaN = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(f32op("mul.sat.f32 %r0, %r1, %r2;", QNaN, 1.0f), PosZero);
  EXPECT_EQ(uint32_t(run("cvt.ftz.sat.f32.f32 %r0, %r1;", {f32(7.0f)})),
            f32Bits(1.0f));
  EXPECT_EQ(uint32_t(run("cvt.ftz.sat.f32.f32 %r0, %r1;",
                         {f32(std::ldexp(1.0f, -130))})),
            PosZero);
  EXPECT_EQ(
      uint32_t(run("cvt.sat.f32.f32 %r0, %r1;", {f32(std::ldexp(1.0f, -130))})),
      f32Bits(std::ldexp(1.0f, -130)));
}

TEST(PtxFloat, MinMaxAndNaN) {
  float QNaN = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(f32op("min.f32 %r0, %r1, %r2;", QNaN, 2.0f), f32Bits(2.0f));
  EXPECT_EQ(f32op("max.f32 %r0, %r1, %r2;", 3.0f, QNaN), f32Bits(3.0f));
  EXPECT_EQ(f32op("min.NaN.f32 %r0, %r1, %r2;", QNaN, 2.0f), NaN);
  EXPECT_EQ(f32op("max.NaN.f32 %r0, %r1, %r2;", 2.0f, QNaN), NaN);
  EXPECT_EQ(f32op("max.f32 %r0, %r1, %r2;", -0.0f, 0.0f), PosZero);
  EXPECT_EQ(f32op("min.f32 %r0, %r1, %r2;", 0.0f, -0.0f), NegZero);
  EXPECT_EQ(f32op("min.f32 %r0, %r1, %r2;", -1.0f, 2.0f), f32Bits(-1.0f));
  EXPECT_EQ(f32op("min.ftz.f32 %r0, %r1, %r2;", std::ldexp(1.0f, -130), 1.0f),
            PosZero);
  EXPECT_EQ(uint32_t(run("min.s32 %r0, %r1, %r2;", {i32(-1), i32(1)})),
            uint32_t(-1));
  EXPECT_EQ(uint32_t(run("min.u32 %r0, %r1, %r2;", {i32(-1), i32(1)})), 1u);
  EXPECT_EQ(uint32_t(run("max.u32 %r0, %r1, %r2;", {i32(-1), i32(1)})),
            0xffffffffu);
  EXPECT_EQ(f32op("copysign.f32 %r0, %r1, %r2;", -1.0f, 3.0f), f32Bits(-3.0f));
}

bool setp(const std::string &Cmp, float A, float B) {
  return run("setp." + Cmp + ".f32 %p0, %r1, %r2;", {f32(A), f32(B)}, "%p0");
}

TEST(PtxCompare, FloatOrderedAndUnordered) {
  float QNaN = std::numeric_limits<float>::quiet_NaN();
  for (const char *Ordered : {"eq", "ne", "lt", "le", "gt", "ge"})
    EXPECT_FALSE(setp(Ordered, QNaN, 1.0f)) << Ordered;
  for (const char *Unordered : {"equ", "neu", "ltu", "leu", "gtu", "geu"})
    EXPECT_TRUE(setp(Unordered, QNaN, 1.0f)) << Unordered;
  EXPECT_TRUE(setp("lt", 1.0f, 2.0f));
  EXPECT_FALSE(setp("ltu", 2.0f, 1.0f));
  EXPECT_TRUE(setp("ne", 1.0f, 2.0f));
  EXPECT_FALSE(setp("equ", 1.0f, 2.0f));
  EXPECT_TRUE(setp("eq", 0.0f, -0.0f));
  EXPECT_TRUE(setp("num", 1.0f, 2.0f));
  EXPECT_FALSE(setp("num", 1.0f, QNaN));
  EXPECT_TRUE(setp("nan", QNaN, 2.0f));
  EXPECT_FALSE(setp("nan", 1.0f, 2.0f));
  // .ftz compares flushed inputs: a subnormal equals zero.
  EXPECT_TRUE(setp("eq.ftz", std::ldexp(1.0f, -130), 0.0f));
  EXPECT_FALSE(setp("eq", std::ldexp(1.0f, -130), 0.0f));
}

TEST(PtxCompare, IntegersAndBooleanCombinations) {
  auto Int = [](const std::string &Cmp, int64_t A, int64_t B) {
    return run("setp." + Cmp + " %p0, %r1, %r2;", {i32(A), i32(B)}, "%p0");
  };
  EXPECT_TRUE(Int("lt.s32", -1, 1));
  EXPECT_FALSE(Int("lt.u32", -1, 1));
  EXPECT_TRUE(Int("hi.u32", -1, 1));
  EXPECT_TRUE(Int("ls.u32", 1, 1));
  EXPECT_FALSE(Int("lo.u32", 1, 1));
  EXPECT_TRUE(Int("hs.u32", 2, 1));
  EXPECT_TRUE(Int("ge.s32", 1, -1));
  EXPECT_TRUE(Int("ne.b32", 1, 2));
  EXPECT_TRUE(Int("eq.b32", 7, 7));
  // setp.lt.and p|q, a, b, c: p = (a < b) & c, q = !(a < b) & c.
  std::string Both = "setp.lt.and.s32 %p0|%p3, %r1, %r2, %p3;";
  auto Pair = [&](int64_t A, int64_t B, bool Cond, const char *Out) {
    return run(Both, {i32(A), i32(B), pred(Cond)}, Out);
  };
  EXPECT_TRUE(Pair(1, 2, true, "%p0"));
  EXPECT_FALSE(Pair(1, 2, true, "%p3"));
  EXPECT_FALSE(Pair(1, 2, false, "%p0"));
  EXPECT_TRUE(Pair(3, 2, true, "%p3"));
  EXPECT_TRUE(run("setp.lt.xor.s32 %p0, %r1, %r2, !%p3;",
                  {i32(3), i32(2), pred(false)}, "%p0"));
  EXPECT_TRUE(run("setp.gt.or.f32 %p0, %r1, %r2, %p3;",
                  {f32(1.0f), f32(2.0f), pred(true)}, "%p0"));
}

TEST(PtxCompare, SelpAndPredicateLogic) {
  EXPECT_EQ(run("selp.b32 %r0, %r1, %r2, %p3;", {i32(5), i32(6), pred(true)}),
            5u);
  EXPECT_EQ(run("selp.b32 %r0, %r1, %r2, %p3;", {i32(5), i32(6), pred(false)}),
            6u);
  EXPECT_EQ(run("selp.f32 %r0, 0f3F800000, %r1, %p2;", {f32(2), pred(true)}),
            f32Bits(1.0f));
  EXPECT_TRUE(run("and.pred %p0, %p1, %p2;", {pred(true), pred(true)}, "%p0"));
  EXPECT_FALSE(
      run("and.pred %p0, %p1, %p2;", {pred(true), pred(false)}, "%p0"));
  EXPECT_TRUE(run("or.pred %p0, %p1, %p2;", {pred(false), pred(true)}, "%p0"));
  EXPECT_FALSE(run("xor.pred %p0, %p1, %p2;", {pred(true), pred(true)}, "%p0"));
  EXPECT_TRUE(run("not.pred %p0, %p1;", {pred(false)}, "%p0"));
  EXPECT_TRUE(run("mov.pred %p0, -1;", {}, "%p0"));
  EXPECT_TRUE(run("testp.notanumber.f32 %p0, %r1;",
                  {f32(std::numeric_limits<float>::quiet_NaN())}, "%p0"));
  EXPECT_TRUE(run("testp.subnormal.f32 %p0, %r1;",
                  {f32(std::ldexp(1.0f, -130))}, "%p0"));
  EXPECT_FALSE(run("testp.finite.f32 %p0, %r1;",
                   {f32(std::numeric_limits<float>::infinity())}, "%p0"));
}

TEST(PtxConvert, FloatToIntRoundingAndSaturation) {
  auto Cvt = [](const std::string &Op, float F) {
    return int32_t(uint32_t(run(Op + " %r0, %r1;", {f32(F)})));
  };
  EXPECT_EQ(Cvt("cvt.rzi.s32.f32", -2.7f), -2);
  EXPECT_EQ(Cvt("cvt.rmi.s32.f32", -2.5f), -3);
  EXPECT_EQ(Cvt("cvt.rpi.s32.f32", 2.1f), 3);
  EXPECT_EQ(Cvt("cvt.rni.s32.f32", 2.5f), 2);
  EXPECT_EQ(Cvt("cvt.rni.s32.f32", 3.5f), 4);
  EXPECT_EQ(Cvt("cvt.rzi.s32.f32", 1e10f), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(Cvt("cvt.rzi.s32.f32", -1e10f),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Cvt("cvt.rzi.s32.f32", std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(Cvt("cvt.rzi.u32.f32", -5.0f), 0);
  EXPECT_EQ(uint32_t(Cvt("cvt.rzi.u32.f32", 4e9f)), 4000000000u);
  // A 64-bit result from a float.
  EXPECT_EQ(run("cvt.rzi.s64.f32 %rd0, %r1;", {f32(-3.5f)}, "%rd0"),
            uint64_t(-3));
}

TEST(PtxConvert, FloatFormatsAndIntegralRounding) {
  EXPECT_EQ(run("cvt.rn.f16.f32 %rs0, %r1;", {f32(1.0f)}, "%rs0"), 0x3C00u);
  EXPECT_EQ(run("cvt.rn.f16.f32 %rs0, %r1;", {f32(65520.0f)}, "%rs0"),
            0x7C00u); // rounds to infinity
  EXPECT_EQ(run("cvt.rz.f16.f32 %rs0, %r1;", {f32(65520.0f)}, "%rs0"),
            0x7BFFu); // toward zero stays finite
  EXPECT_EQ(run("cvt.f32.f16 %r0, %rs1;", {i16(0xC000)}), f32Bits(-2.0f));
  EXPECT_EQ(run("cvt.rn.bf16.f32 %rs0, %r1;", {f32(1.0f)}, "%rs0"), 0x3F80u);
  EXPECT_EQ(run("cvt.rni.f32.f32 %r0, %r1;", {f32(2.5f)}), f32Bits(2.0f));
  EXPECT_EQ(run("cvt.rmi.f32.f32 %r0, %r1;", {f32(-0.5f)}), f32Bits(-1.0f));
  EXPECT_EQ(run("cvt.rzi.f32.f32 %r0, %r1;", {f32(-0.5f)}), NegZero);
  EXPECT_EQ(run("cvt.rn.f32.s32 %r0, %r1;", {i32(-3)}), f32Bits(-3.0f));
  EXPECT_EQ(run("cvt.rn.f32.u32 %r0, %r1;", {i32(-1)}), f32Bits(4294967296.0f));
  EXPECT_EQ(run("cvt.rz.f32.u32 %r0, %r1;", {i32(-1)}), 0x4F7FFFFFu);
  EXPECT_EQ(run("cvt.f64.f32 %rd0, %r1;", {f32(0.1f)}, "%rd0"),
            0x3FB99999A0000000u);
}

TEST(PtxConvert, Integers) {
  EXPECT_EQ(run("cvt.s64.s32 %rd0, %r1;", {i32(-1)}, "%rd0"), ~uint64_t(0));
  EXPECT_EQ(run("cvt.u64.u32 %rd0, %r1;", {i32(-1)}, "%rd0"), 0xffffffffu);
  EXPECT_EQ(run("cvt.u32.u64 %r0, %rd1;", {i64(0x123456789)}), 0x23456789u);
  EXPECT_EQ(run("cvt.s32.s8 %r0, %rs1;", {i16(0x80)}), 0xffffff80u);
  EXPECT_EQ(run("cvt.u32.u8 %r0, %rs1;", {i16(0x180)}), 0x80u);
  EXPECT_EQ(run("cvt.sat.s8.s32 %rs0, %r1;", {i32(300)}, "%rs0"), 0x7Fu);
  EXPECT_EQ(run("cvt.sat.s8.s32 %rs0, %r1;", {i32(-300)}, "%rs0"), 0xFF80u);
  EXPECT_EQ(run("cvt.sat.u8.s32 %rs0, %r1;", {i32(-3)}, "%rs0"), 0u);
  EXPECT_EQ(run("cvt.sat.u32.s32 %r0, %r1;", {i32(-3)}), 0u);
  EXPECT_EQ(run("cvt.sat.s32.u32 %r0, %r1;", {i32(-1)}), 0x7fffffffu);
  EXPECT_EQ(run("cvt.sat.u16.u32 %rs0, %r1;", {i32(70000)}, "%rs0"), 0xFFFFu);
}

TEST(PtxConvert, HalfPairsAndPacking) {
  // The first source goes to the upper half.
  EXPECT_EQ(run("cvt.rn.f16x2.f32 %r0, %r1, %r2;", {f32(1.0f), f32(2.0f)}),
            0x3C004000u);
  EXPECT_EQ(run("cvt.rn.bf16x2.f32 %r0, %r1, %r2;", {f32(-1.0f), f32(1.0f)}),
            0xBF803F80u);
  EXPECT_EQ(run("mov.b32 {%rs4, %rs5}, %r1;\nmov.b32 %r0, {%rs5, %rs4};",
                {i32(0x11112222)}),
            0x22221111u);
  EXPECT_EQ(
      run("mov.b64 {%r4, %r5}, %rd1;\nmov.b32 %r0, %r5;", {i64(0x1234567890)}),
      0x12u);
  EXPECT_EQ(run("mov.b64 %rd0, {%r1, %r2};", {i32(1), i32(2)}, "%rd0"),
            0x200000001u);
  // f16x2 arithmetic works lane by lane.
  EXPECT_EQ(
      run("add.rn.f16x2 %r0, %r1, %r2;", {i32(0x3C004000), i32(0x3C003C00)}),
      0x40004200u);
  EXPECT_EQ(
      run("add.f16 %rs0, %rs1, %rs2;", {i16(0x3C00), i16(0x3C00)}, "%rs0"),
      0x4000u);
}

TEST(PtxInteger, BitFields) {
  EXPECT_EQ(run("bfe.u32 %r0, %r1, 4, 8;", {i32(0xF0F0)}), 0x0Fu);
  EXPECT_EQ(run("bfe.s32 %r0, %r1, 4, 4;", {i32(0x80)}), 0xFFFFFFF8u);
  EXPECT_EQ(run("bfe.s32 %r0, %r1, 4, 4;", {i32(0x70)}), 0x7u);
  // Past the msb, the field is the replicated sign bit; length 0 is 0.
  EXPECT_EQ(run("bfe.s32 %r0, %r1, 40, 4;", {i32(0x80000000)}), 0xFFFFFFFFu);
  EXPECT_EQ(run("bfe.u32 %r0, %r1, 40, 4;", {i32(0x80000000)}), 0u);
  EXPECT_EQ(run("bfe.s32 %r0, %r1, 4, 0;", {i32(0xFFFF)}), 0u);
  EXPECT_EQ(run("bfe.s32 %r0, %r1, 28, 8;", {i32(0x80000000)}), 0xFFFFFFF8u);
  EXPECT_EQ(run("bfe.u32 %r0, %r1, %r2, %r3;", {i32(0xABCD), i32(8), i32(4)}),
            0xBu);
  EXPECT_EQ(
      run("bfe.u64 %rd0, %rd1, 60, 8;", {i64(int64_t(0xF) << 60)}, "%rd0"),
      0xFu);
  EXPECT_EQ(run("bfi.b32 %r0, %r1, %r2, 8, 4;", {i32(0xFF), i32(0x12345678)}),
            0x12345F78u);
  EXPECT_EQ(run("bfi.b32 %r0, %r1, %r2, 30, 8;", {i32(0xFF), i32(0)}),
            0xC0000000u);
}

/// bfe by the PTX ISA's definition: bits [pos, pos + len) of a, the last
/// of them (or a's msb past it) replicated upward for .s; len 0 gives 0.
uint64_t bitField(uint32_t A, unsigned Pos, unsigned Len, bool Signed) {
  uint32_t Field = 0;
  for (unsigned I = 0; I < Len && Pos + I < 32; ++I)
    Field |= ((A >> (Pos + I)) & 1u) << I;
  if (!Signed || Len == 0)
    return Field;
  unsigned Top = std::min(Pos + Len - 1, 31u);
  unsigned Taken = Pos >= 32 ? 0 : std::min(Len, 32 - Pos);
  if ((A >> Top) & 1u)
    for (unsigned I = Taken; I < 32; ++I)
      Field |= 1u << I;
  return Field;
}

// Constant fields lift to two shifts (the LLVM IR's form); every constant
// position and length up to past the width, on values with either top bit.
TEST(PtxInteger, ConstantBitFieldsAsDefined) {
  for (uint32_t A : {0x80000000u, 0x7FFFFFFFu, 0xC0FFEE11u, 0x2468ACE1u})
    for (unsigned Pos = 0; Pos <= 34; ++Pos)
      for (unsigned Len = 0; Len <= 34; ++Len)
        for (bool Signed : {false, true}) {
          std::string Code = std::string("bfe.") + (Signed ? "s32" : "u32") +
                             " %r0, %r1, " + std::to_string(Pos) + ", " +
                             std::to_string(Len) + ";";
          ASSERT_EQ(run(Code, {i32(int32_t(A))}), bitField(A, Pos, Len, Signed))
              << Code << " of " << A;
        }
}

TEST(PtxInteger, Permute) {
  std::vector<Value> In = {i32(0x33221100), i32(0x77665544)};
  EXPECT_EQ(run("prmt.b32 %r0, %r1, %r2, 0x5410;", In), 0x55441100u);
  EXPECT_EQ(run("prmt.b32 %r0, %r1, %r2, 0x7632;", In), 0x77663322u);
  EXPECT_EQ(run("prmt.b32 %r0, %r1, %r2, %r3;", {In[0], In[1], i32(0x0123)}),
            0x00112233u);
  // Bit 3 of a selector replicates the selected byte's sign.
  EXPECT_EQ(run("prmt.b32 %r0, %r1, %r2, 0x4448;", {i32(0x80), i32(0)}),
            0x000000FFu);
  EXPECT_EQ(run("prmt.b32 %r0, %r1, %r2, 0x000C;", {i32(0), i32(0x7F)}),
            0x00000000u);
}

TEST(PtxInteger, WideMultipliesAndDivision) {
  EXPECT_EQ(run("mul.wide.s32 %rd0, %r1, %r2;", {i32(-2), i32(3)}, "%rd0"),
            uint64_t(-6));
  EXPECT_EQ(run("mul.wide.u32 %rd0, %r1, 2;", {i32(-1)}, "%rd0"), 0x1FFFFFFFEu);
  EXPECT_EQ(run("mul.hi.s32 %r0, %r1, %r2;", {i32(-1), i32(5)}), 0xFFFFFFFFu);
  EXPECT_EQ(run("mul.hi.u32 %r0, %r1, %r2;", {i32(-1), i32(5)}), 4u);
  EXPECT_EQ(run("mul.lo.s32 %r0, %r1, %r2;", {i32(0x10000), i32(0x10001)}),
            0x10000u);
  EXPECT_EQ(run("mad.lo.s32 %r0, %r1, %r2, %r3;", {i32(3), i32(4), i32(5)}),
            17u);
  EXPECT_EQ(
      run("mad.wide.s32 %rd0, %r1, 4, %rd2;", {i32(-1), i64(100)}, "%rd0"),
      96u);
  EXPECT_EQ(run("mad.hi.u32 %r0, %r1, %r2, %r3;", {i32(-1), i32(2), i32(1)}),
            2u);
  EXPECT_EQ(run("div.s32 %r0, %r1, %r2;", {i32(-7), i32(2)}), uint32_t(-3));
  EXPECT_EQ(run("rem.s32 %r0, %r1, %r2;", {i32(-7), i32(2)}), uint32_t(-1));
  EXPECT_EQ(run("div.u32 %r0, %r1, %r2;", {i32(-7), i32(2)}), 0x7FFFFFFCu);
  EXPECT_EQ(run("add.sat.s32 %r0, %r1, %r2;", {i32(0x7FFFFFFF), i32(1)}),
            0x7FFFFFFFu);
  EXPECT_EQ(run("sub.sat.s32 %r0, %r1, %r2;", {i32(INT32_MIN), i32(1)}),
            0x80000000u);
  EXPECT_EQ(run("add.s32 %r0, %r1, %r2;", {i32(0x7FFFFFFF), i32(1)}),
            0x80000000u);
}

TEST(PtxInteger, ShiftsPastTheWidth) {
  EXPECT_EQ(run("shl.b32 %r0, %r1, 40;", {i32(1)}), 0u);
  EXPECT_EQ(run("shl.b32 %r0, %r1, %r2;", {i32(1), i32(31)}), 0x80000000u);
  EXPECT_EQ(run("shr.s32 %r0, %r1, 40;", {i32(-8)}), 0xFFFFFFFFu);
  EXPECT_EQ(run("shr.u32 %r0, %r1, 40;", {i32(-8)}), 0u);
  EXPECT_EQ(run("shr.b32 %r0, %r1, 1;", {i32(-8)}), 0x7FFFFFFCu);
  EXPECT_EQ(run("shl.b16 %rs0, %rs1, %r2;", {i16(1), i32(0x10000)}, "%rs0"),
            0u);
  EXPECT_EQ(run("shl.b64 %rd0, %rd1, 63;", {i64(1)}, "%rd0"),
            0x8000000000000000u);
  EXPECT_EQ(run("shr.s64 %rd0, %rd1, %r2;", {i64(-2), i32(100)}, "%rd0"),
            ~uint64_t(0));
  EXPECT_EQ(
      run("shf.l.wrap.b32 %r0, %r1, %r2, 36;", {i32(0x80000000), i32(0x1)}),
      0x18u);
  EXPECT_EQ(run("shf.r.clamp.b32 %r0, %r1, %r2, 40;", {i32(1), i32(2)}), 2u);
}

TEST(PtxInteger, BitsAndLogic) {
  EXPECT_EQ(run("brev.b32 %r0, %r1;", {i32(1)}), 0x80000000u);
  EXPECT_EQ(run("clz.b32 %r0, %r1;", {i32(0)}), 32u);
  EXPECT_EQ(run("clz.b64 %r0, %rd1;", {i64(1)}), 63u);
  EXPECT_EQ(run("popc.b32 %r0, %r1;", {i32(0xF0F0)}), 8u);
  EXPECT_EQ(run("bfind.u32 %r0, %r1;", {i32(0x10)}), 4u);
  EXPECT_EQ(run("bfind.u32 %r0, %r1;", {i32(0)}), 0xFFFFFFFFu);
  EXPECT_EQ(run("bfind.s32 %r0, %r1;", {i32(-2)}), 0u);
  EXPECT_EQ(run("bfind.shiftamt.u32 %r0, %r1;", {i32(0x10)}), 27u);
  EXPECT_EQ(run("cnot.b32 %r0, %r1;", {i32(0)}), 1u);
  EXPECT_EQ(run("cnot.b32 %r0, %r1;", {i32(5)}), 0u);
  EXPECT_EQ(run("not.b32 %r0, %r1;", {i32(0)}), 0xFFFFFFFFu);
  EXPECT_EQ(run("neg.s32 %r0, %r1;", {i32(5)}), uint32_t(-5));
  EXPECT_EQ(run("abs.s32 %r0, %r1;", {i32(-5)}), 5u);
  EXPECT_EQ(run("xor.b32 %r0, %r1, %r2;", {i32(0xFF), i32(0x0F)}), 0xF0u);
  // 0xE8 is the majority function of a, b, c.
  EXPECT_EQ(run("lop3.b32 %r0, %r1, %r2, %r3, 0xE8;",
                {i32(0b1100), i32(0b1010), i32(0b0110)}),
            0b1110u);
  EXPECT_EQ(run("lop3.b32 %r0, %r1, %r2, %r3, 0x80;",
                {i32(0b1100), i32(0b1010), i32(0b1110)}),
            0b1000u);
}

TEST(PtxPredication, GuardedWritesKeepTheOldValue) {
  std::string Code = "mov.u32 %r0, 7;\n@%p1 mov.u32 %r0, 9;";
  EXPECT_EQ(run(Code, {pred(true)}), 9u);
  EXPECT_EQ(run(Code, {pred(false)}), 7u);
  std::string Negated = "mov.u32 %r0, 7;\n@!%p1 add.s32 %r0, %r0, 1;";
  EXPECT_EQ(run(Negated, {pred(true)}), 7u);
  EXPECT_EQ(run(Negated, {pred(false)}), 8u);
  EXPECT_EQ(run("mov.u32 %r0, 1;\nsetp.ne.s32 %p2, %r0, %r0;\n"
                "@%p1 setp.eq.s32 %p2, %r0, 1;\n"
                "selp.b32 %r0, 5, 6, %p2;",
                {pred(true)}),
            5u);
  EXPECT_EQ(run("mov.u32 %r0, 1;\nsetp.ne.s32 %p2, %r0, %r0;\n"
                "@%p1 setp.eq.s32 %p2, %r0, 1;\n"
                "selp.b32 %r0, 5, 6, %p2;",
                {pred(false)}),
            6u);
}

TEST(PtxApproximate, NamedFunctions) {
  Context C;
  auto L = lift(C,
                "ld.param.b32 %r1, [k_param_1];\n"
                "ld.param.b32 %r2, [k_param_2];\n"
                "ex2.approx.ftz.f32 %r3, %r1;\n"
                "div.full.f32 %r4, %r3, %r2;\n"
                "rsqrt.approx.f32 %r5, %r4;\n"
                "ld.param.b64 %rd1, [k_param_0];\n"
                "st.global.b32 [%rd1], %r5;\nret;",
                Type::f32(), {Type::i(32), Type::i(32)});
  ASSERT_EQ(L.Thread.Effects.Writes.size(), 1u);
  const Expr *V = L.Thread.Effects.Writes[0].Value;
  ASSERT_EQ(V->op(), Op::Call);
  EXPECT_EQ(V->name(), "rsqrt.approx");
  const Expr *Div = V->operand(0);
  ASSERT_EQ(Div->op(), Op::Call);
  // On sm_90 div.full is the division measured exact at special operands
  // (ir::measuredDivision).
  EXPECT_EQ(Div->name(), "div.full.sm_90");
  // On sm_90 (the kernel's .target) ex2.approx.ftz is ex2.approx between
  // flushes, as measured on the hardware (ir::measuredFtzForm).
  const Expr *Ex2 = Div->operand(0);
  ASSERT_EQ(Ex2->op(), Op::FFlushSubnormal);
  ASSERT_EQ(Ex2->operand(0)->op(), Op::Call);
  EXPECT_EQ(Ex2->operand(0)->name(), "ex2.approx");
  EXPECT_EQ(Ex2->operand(0)->operand(0)->op(), Op::FFlushSubnormal);
  // The store reinterprets the bits as the buffer's f32.
  EXPECT_EQ(V->type(), Type::f32());
}

/// The values a kernel of Body (one f32 parameter) stores, lifted for
/// .target Target.
std::vector<const Expr *> storedFor(Context &C, const std::string &Body,
                                    const std::string &Target) {
  std::string Ptx = kernel(Body, {Type::f32()});
  Ptx.replace(Ptx.find("sm_90a"), 6, Target);
  stagecheck::ptx::PtxLift L = stagecheck::ptx::liftPtxText(
      C, Ptx, "k.ptx", interface(Type::f32(), {Type::f32()}),
      stagecheck::ptx::PtxLiftOptions{});
  std::vector<const Expr *> Out;
  for (const auto &W : L.Thread.Effects.Writes)
    Out.push_back(W.Value);
  return Out;
}

// Whether a .ftz form is its plain form between flushes was measured on
// sm_90 only; elsewhere the two stay functions of their own.
TEST(PtxApproximate, FtzFormsRelatedOnlyWhereMeasured) {
  const std::string Body = "ld.param.b32 %r1, [k_param_1];\n"
                           "rsqrt.approx.ftz.f32 %r2, %r1;\n"
                           "rsqrt.approx.f32 %r3, %r1;\n"
                           "ex2.approx.f32 %r4, %r1;\n"
                           "ld.param.b64 %rd1, [k_param_0];\n"
                           "st.global.v2.b32 [%rd1], {%r2, %r3};\n"
                           "st.global.b32 [%rd1+8], %r4;\nret;";
  auto Values = [&](const std::string &Target) {
    Context C;
    std::vector<std::string> Out;
    for (const Expr *V : storedFor(C, Body, Target))
      Out.push_back(printExpr(V));
    return Out;
  };
  // sm_90: rsqrt's results are never subnormal, so only its argument is
  // flushed; a plain form stays as it is.
  auto Has = [](const std::string &Text, const char *Part) {
    return Text.find(Part) != std::string::npos;
  };
  std::vector<std::string> Sm90 = Values("sm_90a");
  ASSERT_EQ(Sm90.size(), 3u);
  EXPECT_TRUE(Has(Sm90[0], "fftz") && Has(Sm90[0], "call @rsqrt.approx(") &&
              !Has(Sm90[0], "rsqrt.approx.ftz"))
      << Sm90[0];
  EXPECT_FALSE(Has(Sm90[1], "fftz")) << Sm90[1];
  EXPECT_TRUE(!Has(Sm90[2], "fftz") && Has(Sm90[2], "call @ex2.approx("))
      << Sm90[2];
  std::vector<std::string> Sm80 = Values("sm_80");
  ASSERT_EQ(Sm80.size(), 3u);
  EXPECT_TRUE(Has(Sm80[0], "call @rsqrt.approx.ftz(") && !Has(Sm80[0], "fftz"))
      << Sm80[0];
  EXPECT_EQ(Sm80[2].find("fftz"), std::string::npos) << Sm80[2];
}

// div.full's quotient at zeros, infinities and NaNs was measured on sm_90
// only; elsewhere both forms are bound only as the PTX ISA bounds them.
TEST(PtxApproximate, DivisionExactAtSpecialsOnlyWhereMeasured) {
  const std::string Body = "ld.param.b32 %r1, [k_param_1];\n"
                           "div.full.f32 %r2, %r1, %r1;\n"
                           "div.full.ftz.f32 %r3, %r1, %r1;\n"
                           "ld.param.b64 %rd1, [k_param_0];\n"
                           "st.global.v2.b32 [%rd1], {%r2, %r3};\nret;";
  auto Names = [&](const std::string &Target) {
    Context C;
    std::vector<std::string> Out;
    for (const Expr *V : storedFor(C, Body, Target))
      Out.push_back(V->op() == Op::Call ? V->name() : "");
    return Out;
  };
  EXPECT_EQ(Names("sm_90a"),
            (std::vector<std::string>{"div.full.sm_90", "div.full.ftz.sm_90"}));
  EXPECT_EQ(Names("sm_80"),
            (std::vector<std::string>{"div.full", "div.full.ftz"}));
  EXPECT_TRUE(lookupFunction("div.full.sm_90")->ExactAtSpecialOperands);
  EXPECT_FALSE(lookupFunction("div.full")->ExactAtSpecialOperands);
}

TEST(PtxErrors, UnsupportedAndIllTyped) {
  Context C;
  try {
    lift(C, "mov.u32 %r1, 0;\nfoo.bar.b32 %r1, %r1;\nret;", Type::i(32));
    FAIL() << "no error";
  } catch (const UnsupportedError &E) {
    EXPECT_EQ(E.What, "unsupported instruction foo.bar.b32");
    EXPECT_EQ(E.Where.File, "k.ptx");
    EXPECT_EQ(E.Where.Line, 15u); // the kernel's header takes 13 lines
  }
  // A 64-bit register where add.s32 takes 32 bits is fine to read (PTX
  // truncates), but a 16-bit one is not.
  EXPECT_THROW(lift(C, "add.s32 %r1, %rs1, %rs2;\nret;", Type::i(32)),
               InputError);
  EXPECT_THROW(lift(C, "add.s32 %r1, %r99, 1;\nret;", Type::i(32)), InputError);
  EXPECT_THROW(lift(C, "mov.u32 %r1, %clock;\nret;", Type::i(32)),
               UnsupportedError);
  EXPECT_THROW(lift(C, "cvt.rn.e4m3x2.f32 %rs1, %r1, %r2;\nret;", Type::i(32)),
               UnsupportedError);
  // redux.sync: a float form (sm_100a) and a bitwise op on s32 are not
  // modelled; a missing member mask is malformed.
  EXPECT_THROW(lift(C, "redux.sync.min.f32 %r1, %r1, -1;\nret;", Type::i(32)),
               UnsupportedError);
  EXPECT_THROW(lift(C, "redux.sync.or.s32 %r1, %r1, -1;\nret;", Type::i(32)),
               UnsupportedError);
  EXPECT_THROW(lift(C, "redux.sync.or.b32 %r1, %r1;\nret;", Type::i(32)),
               InputError);
  EXPECT_NO_THROW(
      lift(C, "redux.sync.or.b32 %r1, %r1, -1;\nret;", Type::i(32)));
}

// Multi-word arithmetic through the carry flag (libdevice's Payne-Hanek
// reduction for sine and cosine multiplies 32-bit words this way).
TEST(PtxInteger, CarryFlagChainsWords) {
  uint64_t A = 0x89abcdefffffffffull, B = 0x0123456700000001ull;
  auto Lo = [](uint64_t V) { return i32(int64_t(uint32_t(V))); };
  auto Hi = [](uint64_t V) { return i32(int64_t(uint32_t(V >> 32))); };
  // add.cc then addc: the high word of the 64-bit sum.
  EXPECT_EQ(run("add.cc.u32 %r10, %r1, %r3;\naddc.u32 %r0, %r2, %r4;",
                {Lo(A), Hi(A), Lo(B), Hi(B)}),
            uint32_t((A + B) >> 32));
  // sub.cc then subc: the high word of the 64-bit difference.
  EXPECT_EQ(run("sub.cc.u32 %r10, %r1, %r3;\nsubc.u32 %r0, %r2, %r4;",
                {Lo(B), Hi(B), Lo(A), Hi(A)}),
            uint32_t((B - A) >> 32));
  // mad.lo.cc then madc.hi: the high word of a * b + c.
  for (auto [X, Y, Z] : {std::tuple{0xffffffffu, 0xffffffffu, 0xffffffffu},
                          {0x3c439041u, 0x80000001u, 0x12345678u},
                          {7u, 9u, 1u}}) {
    uint64_t Want = (uint64_t(X) * Y + Z) >> 32;
    EXPECT_EQ(run("mad.lo.cc.u32 %r10, %r1, %r2, %r3;\n"
                  "madc.hi.u32 %r0, %r1, %r2, 0;",
                  {i32(X), i32(Y), i32(Z)}),
              Want)
        << X << " " << Y << " " << Z;
  }
  // A predicated-off .cc leaves the flag as it was.
  EXPECT_EQ(run("add.cc.u32 %r10, %r1, %r1;\n"
                "setp.eq.u32 %p5, %r1, 0;\n"
                "@%p5 add.cc.u32 %r11, %r2, %r2;\n"
                "addc.u32 %r0, %r2, %r2;",
                {i32(int64_t(0x80000000u)), i32(0)}),
            1u);
}

} // namespace

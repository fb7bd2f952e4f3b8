// Spot checks of the IEEE core against values worked out by hand and against
// the host's f32 arithmetic; tests/smt/AgreementTest.cpp holds the whole op
// set against Z3's independent implementation.
#include "ir/FloatOps.h"
#include "ir/Interpreter.h"

#include <bit>
#include <cfenv>
#include <gtest/gtest.h>
#include <random>

using namespace stagecheck::ir;

static const FloatFormat F16{5, 10}, BF16{8, 7}, F32{8, 23};

TEST(FloatOps, HalfPrecisionRounding) {
  // 1 + 2^-11 is halfway between 1 and the next f16: ties to even gives 1.
  uint64_t One = 0x3c00;
  uint64_t HalfUlp = fp::fromDouble(std::ldexp(1.0, -11), F16, RoundingMode::NearestEven);
  EXPECT_EQ(fp::add(One, HalfUlp, F16, RoundingMode::NearestEven), 0x3c00u);
  EXPECT_EQ(fp::add(One, HalfUlp, F16, RoundingMode::Up), 0x3c01u);
  EXPECT_EQ(fp::add(One, HalfUlp, F16, RoundingMode::TowardZero), 0x3c00u);
  // 65504 is the largest f16; 65520 rounds to inf to nearest, stays in RTZ.
  uint64_t Max = 0x7bff;
  uint64_t Sixteen = fp::fromDouble(16.0, F16, RoundingMode::NearestEven);
  EXPECT_EQ(fp::add(Max, Sixteen, F16, RoundingMode::NearestEven), 0x7c00u);
  EXPECT_EQ(fp::add(Max, Sixteen, F16, RoundingMode::TowardZero), 0x7bffu);
}

TEST(FloatOps, ExactZeroSumSignDependsOnMode) {
  uint64_t One = 0x3f800000, MinusOne = 0xbf800000;
  EXPECT_EQ(fp::add(One, MinusOne, F32, RoundingMode::NearestEven), 0u);
  EXPECT_EQ(fp::add(One, MinusOne, F32, RoundingMode::Down), 0x80000000u);
}

TEST(FloatOps, SubnormalsAndBFloat16) {
  // Smallest bf16 subnormal halved rounds to zero (tie, even) or up.
  uint64_t Tiny = 0x0001;
  uint64_t Half = fp::fromDouble(0.5, BF16, RoundingMode::NearestEven);
  EXPECT_EQ(fp::mul(Tiny, Half, BF16, RoundingMode::NearestEven), 0u);
  EXPECT_EQ(fp::mul(Tiny, Half, BF16, RoundingMode::Up), 1u);
  EXPECT_EQ(fp::flushSubnormal(Tiny, BF16), 0u);
  EXPECT_EQ(fp::flushSubnormal(0x8001, BF16), 0x8000u);
}

TEST(FloatOps, MinMaxFlavours) {
  uint64_t NaN = fp::canonicalNaN(F32), One = 0x3f800000;
  uint64_t PlusZero = 0, MinusZero = 0x80000000;
  EXPECT_EQ(fp::minMax(Op::FMinNum, NaN, One, F32), One);
  EXPECT_EQ(fp::minMax(Op::FMinimum, NaN, One, F32), NaN);
  EXPECT_EQ(fp::minMax(Op::FMinNum, PlusZero, MinusZero, F32), MinusZero);
  EXPECT_EQ(fp::minMax(Op::FMaxNum, MinusZero, PlusZero, F32), PlusZero);
  EXPECT_EQ(fp::minMax(Op::FMaximum, MinusZero, PlusZero, F32), PlusZero);
}

TEST(FloatOps, ConversionsSaturateAndMapNaNToZero) {
  uint64_t Big = fp::fromDouble(1e10, F32, RoundingMode::NearestEven);
  EXPECT_EQ(fp::toInt(Big, F32, 32, true, RoundingMode::TowardZero), 0x7fffffffu);
  uint64_t MinusBig = fp::fromDouble(-1e10, F32, RoundingMode::NearestEven);
  EXPECT_EQ(fp::toInt(MinusBig, F32, 32, true, RoundingMode::TowardZero), 0x80000000u);
  EXPECT_EQ(fp::toInt(MinusBig, F32, 32, false, RoundingMode::TowardZero), 0u);
  EXPECT_EQ(fp::toInt(fp::canonicalNaN(F32), F32, 32, true, RoundingMode::TowardZero), 0u);
  uint64_t TwoPointFive = fp::fromDouble(2.5, F32, RoundingMode::NearestEven);
  EXPECT_EQ(fp::toInt(TwoPointFive, F32, 32, true, RoundingMode::NearestEven), 2u);
  EXPECT_EQ(fp::toInt(TwoPointFive, F32, 32, true, RoundingMode::NearestAway), 3u);
  // 2^24 + 1 is not an f32: to nearest even gives 2^24.
  EXPECT_EQ(fp::fromInt((1u << 24) + 1, 32, true, F32, RoundingMode::NearestEven),
            0x4b800000u);
  EXPECT_EQ(fp::fromInt((1u << 24) + 1, 32, true, F32, RoundingMode::Up),
            0x4b800001u);
}

// f16 sums and products and bf16 products are exact in double: the host's
// double result (in the mode asked, for the sign of a cancelled sum),
// rounded once, is the right answer to compare the formats' own ops with.
// (Results inexact in double, whose side the ops work out, are the f32
// test's below.)
TEST(FloatOps, HalfFormatsAgreeWithExactDoubleInEveryMode) {
  std::mt19937 Rng(11);
  const int Modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
  const RoundingMode Ours[] = {RoundingMode::NearestEven, RoundingMode::TowardZero,
                               RoundingMode::Up, RoundingMode::Down};
  for (int M = 0; M < 4; ++M)
    for (int I = 0; I < 20000; ++I) {
      uint64_t A = Rng() & 0xffffu;
      uint64_t B = I % 4 == 1 ? (A ^ (Rng() & 0x3fu) ^ (Rng() % 2 ? 0x8000u : 0u))
                              : (Rng() & 0xffffu);
      double X = fp::toDouble(A, F16), Y = fp::toDouble(B, F16);
      double Xb = fp::toDouble(A, BF16), Yb = fp::toDouble(B, BF16);
      std::fesetround(Modes[M]);
      volatile double Sum = X + Y, Difference = X - Y, Prod = X * Y,
                      ProdB = Xb * Yb;
      std::fesetround(FE_TONEAREST);
      auto Same = [&](double Exact, uint64_t Mine, FloatFormat F) {
        uint64_t Want = fp::fromDouble(Exact, F, Ours[M]);
        return Want == Mine || (fp::isNaN(Want, F) && fp::isNaN(Mine, F));
      };
      ASSERT_TRUE(Same(Sum, fp::add(A, B, F16, Ours[M]), F16)) << A << " + " << B;
      ASSERT_TRUE(Same(Difference, fp::sub(A, B, F16, Ours[M]), F16))
          << A << " - " << B;
      ASSERT_TRUE(Same(Prod, fp::mul(A, B, F16, Ours[M]), F16)) << A << " * " << B;
      ASSERT_TRUE(Same(ProdB, fp::mul(A, B, BF16, Ours[M]), BF16))
          << A << " * " << B << " (bf16)";
    }
}

TEST(FloatOps, AgreesWithHostSinglePrecisionInEveryMode) {
  std::mt19937 Rng(7);
  const int Modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
  const RoundingMode Ours[] = {RoundingMode::NearestEven, RoundingMode::TowardZero,
                               RoundingMode::Up, RoundingMode::Down};
  // Random bits rarely give operands of one size: one draw in four takes B
  // (and C) close to A, with either sign, so sums cancel and round near ties.
  auto Near = [&](uint32_t A) {
    return (A ^ (Rng() & 0xffu) ^ (Rng() % 2 ? 0x80000000u : 0u));
  };
  for (int M = 0; M < 4; ++M)
    for (int I = 0; I < 40000; ++I) {
      uint32_t A = Rng();
      uint32_t B = I % 4 == 1 ? Near(A) : uint32_t(Rng());
      uint32_t C = I % 4 == 2 ? Near(A) : uint32_t(Rng());
      volatile float X = std::bit_cast<float>(A), Y = std::bit_cast<float>(B),
                     Z = std::bit_cast<float>(C);
      std::fesetround(Modes[M]);
      volatile float Sum = X + Y, Difference = X - Y, Prod = X * Y,
                     Quot = X / Y, Fused = std::fmaf(X, Y, Z),
                     Root = std::sqrt(float(X));
      std::fesetround(FE_TONEAREST);
      auto Same = [&](float Host, uint64_t Mine) {
        Value H{Type::f32(), std::bit_cast<uint32_t>(Host)};
        return H.sameAs(Value{Type::f32(), Mine});
      };
      ASSERT_TRUE(Same(Sum, fp::add(A, B, F32, Ours[M]))) << A << " + " << B;
      ASSERT_TRUE(Same(Difference, fp::sub(A, B, F32, Ours[M])))
          << A << " - " << B;
      ASSERT_TRUE(Same(Prod, fp::mul(A, B, F32, Ours[M]))) << A << " * " << B;
      ASSERT_TRUE(Same(Quot, fp::div(A, B, F32, Ours[M]))) << A << " / " << B;
      ASSERT_TRUE(Same(Fused, fp::fma(A, B, C, F32, Ours[M])))
          << A << " * " << B << " + " << C;
      ASSERT_TRUE(Same(Root, fp::sqrt(A, F32, Ours[M]))) << "sqrt " << A;
    }
}

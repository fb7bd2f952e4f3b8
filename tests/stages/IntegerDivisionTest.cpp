// The multiply-high expansion of division by a constant equals sdiv.
#include "stages/IntegerDivision.h"

#include "ir/Interpreter.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

/// Every divisor the expansion covers and every dividend, at a width where
/// that is cheap; the interpreter's sdiv is the reference.
void checkExhaustively(unsigned Bits, bool SignBeforeShift) {
  Context C;
  Type T = Type::i(Bits);
  const Expr *N = C.symbol("n", T);
  int64_t Min = -(int64_t(1) << (Bits - 1)),
          Max = (int64_t(1) << (Bits - 1)) - 1;
  unsigned Covered = 0;
  for (int64_t D = Min; D <= Max; ++D) {
    auto Q = stages::signedDivisionByConstant(C, N, D, SignBeforeShift);
    if (!Q)
      continue;
    ++Covered;
    const Expr *Reference = C.binary(Op::SDiv, N, C.intConst(T, D));
    for (int64_t X = Min; X <= Max; ++X) {
      Env E;
      E.setSymbol("n", Value::ofBits(T, uint64_t(X)));
      Interpreter I(E);
      ASSERT_EQ(I.eval(*Q).Bits, I.eval(Reference).Bits)
          << X << " / " << D << " in i" << Bits;
    }
  }
  EXPECT_GT(Covered, (1u << Bits) / 2); // all but 0, +-1, +-powers of two
}

TEST(IntegerDivision, ExpansionIsSdivForEveryI8Dividend) {
  checkExhaustively(8, false);
}

// The sign bit taken before the shift (as NVPTX leaves it): the same value.
TEST(IntegerDivision, SignBeforeShiftIsSdivForEveryI8Dividend) {
  checkExhaustively(8, true);
}

TEST(IntegerDivision, MagicNumbersAreLlvmsForI32) {
  // The constants LLVM's BuildSDIV uses (and the corpus PTX shows).
  EXPECT_EQ(stages::signedMagic(3, 32).Magic, 0x55555556u);
  EXPECT_EQ(stages::signedMagic(3, 32).Shift, 0u);
  EXPECT_EQ(stages::signedMagic(7, 32).Magic, 0x92492493u);
  EXPECT_EQ(stages::signedMagic(7, 32).Shift, 2u);
  EXPECT_EQ(stages::signedMagic(-5, 32).Magic, 0x99999999u);
  EXPECT_EQ(stages::signedMagic(-5, 32).Shift, 1u);
}

TEST(IntegerDivision, ExpansionIsSdivOnI32Samples) {
  Context C;
  Type T = Type::i(32);
  const Expr *N = C.symbol("n", T);
  uint64_t S = 88172645463325252ull;
  auto Next = [&]() {
    S ^= S << 13;
    S ^= S >> 7;
    S ^= S << 17;
    return S;
  };
  for (int64_t D : {3, 5, 6, 7, 10, 12, 25, 100, 641, 1000003, -3, -7, -100,
                    2147483647, -2147483647}) {
    for (bool SignBeforeShift : {false, true}) {
      auto Q = stages::signedDivisionByConstant(C, N, D, SignBeforeShift);
      ASSERT_TRUE(Q) << D;
      const Expr *Reference = C.binary(Op::SDiv, N, C.intConst(T, D));
      for (int K = 0; K < 20000; ++K) {
        uint64_t X =
            K < 8 ? std::vector<uint64_t>{0,          1,          0xffffffff,
                                          0x80000000, 0x7fffffff, 0x80000001,
                                          2,          0xfffffffe}[K]
                  : Next() & 0xffffffff;
        Env E;
        E.setSymbol("n", Value::ofBits(T, X));
        Interpreter I(E);
        ASSERT_EQ(I.eval(*Q).Bits, I.eval(Reference).Bits) << X << " / " << D;
      }
    }
  }
  // Powers of two are lowered with shifts, not by this expansion.
  EXPECT_FALSE(stages::signedDivisionByConstant(C, N, 8));
  EXPECT_FALSE(stages::signedDivisionByConstant(C, N, -1));
}

} // namespace

namespace {

// Unsigned: every divisor and every dividend at i8, udiv the reference.
TEST(IntegerDivision, UnsignedExpansionIsUdivForEveryI8Dividend) {
  Context C;
  Type T = Type::i(8);
  const Expr *N = C.symbol("n", T);
  unsigned Covered = 0;
  for (uint64_t D = 0; D < 256; ++D) {
    auto Q = stages::unsignedDivisionByConstant(C, N, D);
    if (!Q)
      continue;
    ++Covered;
    const Expr *Reference = C.binary(Op::UDiv, N, C.intConst(T, int64_t(D)));
    for (uint64_t X = 0; X < 256; ++X) {
      Env E;
      E.setSymbol("n", Value::ofBits(T, X));
      Interpreter I(E);
      ASSERT_EQ(I.eval(*Q).Bits, I.eval(Reference).Bits) << X << " / " << D;
    }
  }
  EXPECT_EQ(Covered, 256u - 2 - 7); // all but 0, 1 and the powers of two
}

TEST(IntegerDivision, UnsignedMagicNumbersAreLlvmsForI32) {
  // As llc-22 emits them for udiv i32 by 3, 5 and 7.
  auto M3 = stages::unsignedMagic(3, 32), M5 = stages::unsignedMagic(5, 32),
       M7 = stages::unsignedMagic(7, 32);
  EXPECT_EQ(M3.Magic, 0xAAAAAAABu);
  EXPECT_EQ(M3.PostShift, 1u);
  EXPECT_FALSE(M3.Add);
  EXPECT_EQ(M5.Magic, 0xCCCCCCCDu);
  EXPECT_EQ(M5.PostShift, 2u);
  EXPECT_EQ(M7.Magic, 0x24924925u);
  EXPECT_TRUE(M7.Add);
  EXPECT_EQ(M7.PostShift, 2u);
}

TEST(IntegerDivision, UnsignedExpansionIsUdivOnI32Samples) {
  Context C;
  Type T = Type::i(32);
  const Expr *N = C.symbol("n", T);
  uint64_t S = 88172645463325252ull;
  for (uint64_t D : {3ull, 5ull, 6ull, 7ull, 10ull, 12ull, 14ull, 25ull, 100ull,
                     641ull, 1000003ull, 0x80000001ull, 0xfffffffeull,
                     0xffffffffull}) {
    auto Q = stages::unsignedDivisionByConstant(C, N, D);
    ASSERT_TRUE(Q) << D;
    const Expr *Reference = C.binary(Op::UDiv, N, C.constant(T, D));
    for (int K = 0; K < 20000; ++K) {
      S ^= S << 13;
      S ^= S >> 7;
      S ^= S << 17;
      uint64_t X = K < 4 ? std::vector<uint64_t>{0, 1, 0xffffffff, 0x80000000}[K]
                         : S & 0xffffffff;
      Env E;
      E.setSymbol("n", Value::ofBits(T, X));
      Interpreter I(E);
      ASSERT_EQ(I.eval(*Q).Bits, I.eval(Reference).Bits) << X << " / " << D;
    }
  }
}

} // namespace

// Division by +-2^k as shifts: every such divisor and every dividend in i8.
TEST(IntegerDivision, PowerOfTwoShiftsAreSdivForEveryI8Dividend) {
  Context C;
  Type T = Type::i(8);
  const Expr *N = C.symbol("n", T);
  unsigned Covered = 0;
  for (int64_t D = -128; D <= 127; ++D) {
    auto Q = stages::signedDivisionByPowerOfTwo(C, N, D);
    uint64_t M = D < 0 ? uint64_t(-D) : uint64_t(D);
    bool Power = M > 1 && (M & (M - 1)) == 0;
    ASSERT_EQ(bool(Q), Power) << D;
    if (!Q)
      continue;
    ++Covered;
    const Expr *Reference = C.binary(Op::SDiv, N, C.intConst(T, D));
    for (int64_t X = -128; X <= 127; ++X) {
      Env E;
      E.setSymbol("n", Value::ofBits(T, uint64_t(X)));
      Interpreter I(E);
      ASSERT_EQ(I.eval(*Q).Bits, I.eval(Reference).Bits) << X << " / " << D;
    }
  }
  EXPECT_EQ(Covered, 13u); // +-2 .. +-64, and -128
}

// A product by a constant with k trailing zeros, or a shift left by k, of
// an arithmetic shift right by s <= k: the logical shift gives the same
// value for every i8 operand; s > k is left alone (it would not).
TEST(IntegerDivision, LogicalShiftWhereTheHighBitsAreNotRead) {
  Context C;
  Type T = Type::i(8);
  const Expr *Y = C.symbol("y", T);
  unsigned Rewritten = 0;
  for (uint64_t S = 1; S < 8; ++S)
    for (uint64_t F = 1; F < 256; ++F)
      for (Op O : {Op::Mul, Op::Shl}) {
        if (O == Op::Shl && F >= 8)
          continue;
        const Expr *X = C.binary(Op::AShr, Y, C.constant(T, S));
        const Expr *N = C.binary(O, X, C.constant(T, F));
        const Expr *L = stages::logicalShiftWhereHighBitsUnread(C, N);
        unsigned Unread = O == Op::Shl ? unsigned(F) : unsigned(__builtin_ctzll(F));
        ASSERT_EQ(L != nullptr, S <= Unread) << spelling(O) << " " << F << " " << S;
        if (!L)
          continue;
        ++Rewritten;
        for (uint64_t V = 0; V < 256; ++V) {
          Env E;
          E.setSymbol("y", Value::ofBits(T, V));
          Interpreter I(E);
          ASSERT_EQ(I.eval(L).Bits, I.eval(N).Bits)
              << spelling(O) << " by " << F << " of y >> " << S << ", y = " << V;
        }
      }
  EXPECT_GT(Rewritten, 100u);
}

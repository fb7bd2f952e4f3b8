#include "ir/Effects.h"
#include "ir/Expr.h"
#include "ir/Interpreter.h"

#include <cmath>
#include <functional>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

using namespace stagecheck::ir;

TEST(HashConsing, CommutativeOperandsShareOneNode) {
  Context C;
  const Expr *A = C.symbol("a", Type::i(32));
  const Expr *B = C.symbol("b", Type::i(32));
  EXPECT_EQ(C.add(A, B), C.add(B, A));
  EXPECT_EQ(C.mul(A, B), C.mul(B, A));
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Y = C.symbol("y", Type::f32());
  EXPECT_EQ(C.floatBinary(Op::FAdd, X, Y), C.floatBinary(Op::FAdd, Y, X));
  // Not commutative: operand order is kept.
  EXPECT_NE(C.sub(A, B), C.sub(B, A));
  EXPECT_NE(C.floatBinary(Op::FSub, X, Y), C.floatBinary(Op::FSub, Y, X));
}

/// x == y and y == x are one node (an optimizer may spell a comparison
/// either way round), as are the other symmetric comparisons; a constant
/// goes second. Ordered comparisons keep their operands' order.
TEST(HashConsing, SymmetricComparisonsShareOneNode) {
  Context C;
  const Expr *A = C.symbol("a", Type::i(32)), *B = C.symbol("b", Type::i(32));
  const Expr *X = C.symbol("x", Type::f32()), *Y = C.symbol("y", Type::f32());
  for (ICmpPredicate P : {ICmpPredicate::Eq, ICmpPredicate::Ne})
    EXPECT_EQ(C.icmp(P, A, B), C.icmp(P, B, A));
  for (FCmpPredicate P : {FCmpPredicate::Oeq, FCmpPredicate::One,
                          FCmpPredicate::Ord, FCmpPredicate::Ueq,
                          FCmpPredicate::Une, FCmpPredicate::Uno})
    EXPECT_EQ(C.fcmp(P, X, Y), C.fcmp(P, Y, X));
  const Expr *Seven = C.intConst(Type::i(32), 7);
  const Expr *Eq = C.icmp(ICmpPredicate::Eq, Seven, A);
  EXPECT_EQ(Eq->operand(0), A);
  EXPECT_EQ(Eq->operand(1), Seven);
  EXPECT_NE(C.icmp(ICmpPredicate::Slt, A, B), C.icmp(ICmpPredicate::Slt, B, A));
  EXPECT_NE(C.fcmp(FCmpPredicate::Olt, X, Y), C.fcmp(FCmpPredicate::Olt, Y, X));
}

TEST(HashConsing, SameConstructionSameNode) {
  Context C;
  const Expr *A = C.symbol("a", Type::i(8));
  size_t Before = C.numNodes();
  const Expr *E1 = C.icmp(ICmpPredicate::Slt, A, C.intConst(Type::i(8), 3));
  const Expr *E2 = C.icmp(ICmpPredicate::Slt, A, C.intConst(Type::i(8), 3));
  EXPECT_EQ(E1, E2);
  EXPECT_EQ(C.numNodes(), Before + 2); // the constant and the compare
  // Same name and type: the same symbol; fresh symbols are always new.
  EXPECT_EQ(C.symbol("a", Type::i(8)), A);
  EXPECT_NE(C.fresh("a", Type::i(8)), C.fresh("a", Type::i(8)));
  // Attributes distinguish nodes.
  const Expr *X = C.symbol("x", Type::f32());
  EXPECT_NE(C.floatBinary(Op::FAdd, X, X, RoundingMode::NearestEven),
            C.floatBinary(Op::FAdd, X, X, RoundingMode::TowardZero));
}

TEST(HashConsing, ManyNodesOfDenseOperandsStayDistinctAndShared) {
  // Sums of pairs of symbols made one after another (dense node ids, as a
  // rebuilt sum makes them): every pair is its own node, and building the
  // pairs again, after the table has grown many times, finds each one.
  Context C;
  Type F32 = Type::f32();
  std::vector<const Expr *> X;
  for (int I = 0; I < 300; ++I)
    X.push_back(C.symbol("x" + std::to_string(I), F32));
  std::vector<const Expr *> Sums;
  for (int I = 0; I < 300; ++I)
    for (int J = 0; J < 300; ++J)
      Sums.push_back(C.floatBinary(Op::FSub, X[I], X[J]));
  size_t Nodes = C.numNodes();
  EXPECT_EQ(Nodes, 300u + 300u * 300u);
  std::set<const Expr *> Distinct(Sums.begin(), Sums.end());
  EXPECT_EQ(Distinct.size(), Sums.size());
  size_t K = 0;
  for (int I = 0; I < 300; ++I)
    for (int J = 0; J < 300; ++J)
      EXPECT_EQ(C.floatBinary(Op::FSub, X[I], X[J]), Sums[K++]);
  EXPECT_EQ(C.numNodes(), Nodes);
  for (const Expr *S : {Sums[0], Sums[4567], Sums.back()})
    EXPECT_EQ(C.withOperands(S, S->operands()), S);
}

// Rebuilding a node on operands of its operands' types skips the type
// checks (they depend on the types alone), never the rest: commutative
// operands are ordered, constants fold, and the node is the one the
// constructor makes. Operands of other types are checked as ever.
TEST(HashConsing, RebuildingIsTheConstructorsNode) {
  Context C;
  Type I32 = Type::i(32), F32 = Type::f32();
  const Expr *A = C.symbol("a", I32), *B = C.symbol("b", I32);
  const Expr *X = C.symbol("x", F32), *Y = C.symbol("y", F32);
  const Expr *Sum = C.add(A, B);
  const Expr *Swapped[] = {Sum->operand(1), Sum->operand(0)};
  EXPECT_EQ(C.withOperands(Sum, Swapped), Sum);
  const Expr *Constants[] = {C.intConst(I32, 2), C.intConst(I32, 3)};
  EXPECT_EQ(C.withOperands(Sum, Constants), C.intConst(I32, 5));
  const Expr *Less = C.fcmp(FCmpPredicate::Olt, X, Y);
  const Expr *Other[] = {Y, X};
  EXPECT_EQ(C.withOperands(Less, Other), C.fcmp(FCmpPredicate::Olt, Y, X));
  EXPECT_EQ(C.withOperands(Less, Other)->type(), Type::boolean());
  const Expr *IllTyped[] = {A, X};
  EXPECT_THROW(C.withOperands(Sum, IllTyped), IRError);
  const Expr *Wider[] = {C.symbol("c", Type::i(64)), C.symbol("d", Type::i(64))};
  EXPECT_EQ(C.withOperands(Sum, Wider)->type(), Type::i(64));
}

TEST(Folding, ConstantsFoldThroughTheInterpreter) {
  Context C;
  Type I8 = Type::i(8);
  EXPECT_EQ(C.add(C.intConst(I8, 100), C.intConst(I8, 100)),
            C.intConst(I8, -56)); // wraps
  EXPECT_EQ(C.binary(Op::UDiv, C.intConst(I8, 7), C.intConst(I8, 0)),
            C.intConst(I8, -1)); // SMT-LIB: all ones
  const Expr *Sum = C.floatBinary(Op::FAdd, C.floatConst(Type::f32(), 0.1),
                                  C.floatConst(Type::f32(), 0.2));
  ASSERT_TRUE(Sum->isConst());
  EXPECT_EQ(Sum->constBits(), 0x3e99999aull); // 0.1f + 0.2f in f32
  EXPECT_TRUE(C.fcmp(FCmpPredicate::Olt, C.floatConst(Type::f32(), 1.0),
                     C.floatConst(Type::f32(), 2.0))
                  ->isTrue());
}

TEST(Folding, IntegerIdentities) {
  Context C;
  Type T = Type::i(32);
  const Expr *A = C.symbol("a", T);
  const Expr *Zero = C.intConst(T, 0), *One = C.intConst(T, 1);
  EXPECT_EQ(C.add(A, Zero), A);
  EXPECT_EQ(C.mul(A, One), A);
  EXPECT_EQ(C.mul(A, Zero), Zero);
  EXPECT_EQ(C.sub(A, A), Zero);
  EXPECT_EQ(C.xorOf(A, A), Zero);
  EXPECT_EQ(C.andOf(A, C.intConst(T, -1)), A);
  EXPECT_EQ(C.notOf(C.notOf(A)), A);
  EXPECT_TRUE(C.eq(A, A)->isTrue());
  const Expr *P = C.symbol("p", Type::boolean());
  EXPECT_EQ(C.select(C.trueExpr(), A, Zero), A);
  EXPECT_EQ(C.select(P, A, A), A);
  EXPECT_EQ(C.select(P, C.trueExpr(), C.falseExpr()), P);
  EXPECT_EQ(C.cast(Op::ZExt, A, T), A);
}

TEST(Folding, FloatsFoldOnlyWhenConstant) {
  Context C;
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Zero = C.floatConst(Type::f32(), 0.0);
  // x + 0.0 is not x: (-0) + (+0) = +0.
  EXPECT_NE(C.floatBinary(Op::FAdd, X, Zero), X);
}

TEST(Folding, PiecesOfAConcatenationAreThePieces) {
  Context C;
  Type I16 = Type::i(16), I32 = Type::i(32);
  const Expr *Lo = C.symbol("lo", I16), *Hi = C.symbol("hi", I16);
  const Expr *Packed =
      C.orOf(C.cast(Op::ZExt, Lo, I32),
             C.binary(Op::Shl, C.cast(Op::ZExt, Hi, I32), C.intConst(I32, 16)));
  EXPECT_EQ(C.cast(Op::Trunc, Packed, I16), Lo);
  EXPECT_EQ(C.cast(Op::Trunc, C.binary(Op::LShr, Packed, C.intConst(I32, 16)),
                   I16),
            Hi);
  // Bits that straddle two pieces stay as they are.
  const Expr *Middle =
      C.cast(Op::Trunc, C.binary(Op::LShr, Packed, C.intConst(I32, 8)), I16);
  EXPECT_EQ(Middle->op(), Op::Trunc);
  // The check against the interpreter: the fold is exact.
  Env E;
  E.setSymbol("lo", Value::ofBits(I16, 0x1234));
  E.setSymbol("hi", Value::ofBits(I16, 0xabcd));
  EXPECT_EQ(Interpreter(E).eval(Middle).Bits, 0xcd12u);
}

/// A 32-bit word read from a 64-bit shared-memory word that holds a choice
/// of two stored pairs (low word, high word) is the choice of low words.
TEST(Folding, PiecesOfChoicesArePiecesOfTheArms) {
  Context C;
  Type I32 = Type::i(32), I64 = Type::i(64);
  const Expr *P = C.symbol("p", Type::boolean()),
             *Q = C.symbol("q", Type::boolean()), *X = C.symbol("x", I32);
  const Expr *Low =
      C.select(P, C.intConst(I64, 5), C.cast(Op::ZExt, X, I64));
  const Expr *High = C.select(Q, C.intConst(I64, int64_t(7) << 32),
                              C.select(P, C.intConst(I64, int64_t(9) << 32),
                                       C.intConst(I64, 0)));
  const Expr *Word = C.orOf(Low, High);
  const Expr *Read = C.cast(Op::Trunc, Word, I32);
  EXPECT_EQ(Read, C.select(P, C.intConst(I32, 5), X));
  EXPECT_EQ(C.cast(Op::Trunc, C.binary(Op::LShr, Word, C.intConst(I64, 32)),
                   I32),
            C.select(Q, C.intConst(I32, 7),
                     C.select(P, C.intConst(I32, 9), C.intConst(I32, 0))));
  // Where both sides of the join may hold low bits, the read stays.
  const Expr *Mixed = C.cast(
      Op::Trunc, C.orOf(Low, C.select(Q, C.cast(Op::ZExt, X, I64), High)), I32);
  EXPECT_EQ(Mixed->op(), Op::Trunc);
  // Each fold is the interpreter's value on every choice.
  for (bool PV : {false, true})
    for (bool QV : {false, true}) {
      Env E;
      E.setSymbol("p", Value::ofBool(PV));
      E.setSymbol("q", Value::ofBool(QV));
      E.setSymbol("x", Value::ofBits(I32, 0xdeadbeef));
      uint64_t W = Interpreter(E).eval(Word).Bits;
      EXPECT_EQ(Interpreter(E).eval(Read).Bits, W & 0xffffffffu);
    }
}

/// An i64 sent through two 32-bit shuffles comes back as the i64; a sign
/// extension's two words (x and ashr x, 31) come back as the extension.
TEST(Folding, TwoHalvesJoinedAreTheWhole) {
  Context C;
  Type I32 = Type::i(32), I64 = Type::i(64);
  auto Join = [&](const Expr *Lo, const Expr *Hi) {
    return C.orOf(C.binary(Op::Shl, C.cast(Op::ZExt, Hi, I64),
                           C.intConst(I64, 32)),
                  C.cast(Op::ZExt, Lo, I64));
  };
  const Expr *S = C.symbol("s", I64), *X = C.symbol("x", I32);
  const Expr *High =
      C.cast(Op::Trunc, C.binary(Op::LShr, S, C.intConst(I64, 32)), I32);
  EXPECT_EQ(Join(C.cast(Op::Trunc, S, I32), High), S);
  const Expr *Sign = C.binary(Op::AShr, X, C.intConst(I32, 31));
  EXPECT_EQ(Join(X, Sign), C.cast(Op::SExt, X, I64));
  // Any other high word stays a join, and each value is the interpreter's.
  const Expr *Other = Join(X, C.binary(Op::LShr, X, C.intConst(I32, 31)));
  EXPECT_EQ(Other->op(), Op::Or);
  Env E;
  E.setSymbol("x", Value::ofBits(I32, 0x80000001));
  EXPECT_EQ(Interpreter(E).eval(Join(X, Sign)).Bits, 0xffffffff80000001ull);
  EXPECT_EQ(Interpreter(E).eval(Other).Bits, 0x0000000180000001ull);
  const Expr *Crossed = Join(High, C.cast(Op::Trunc, S, I32)); // halves swapped
  EXPECT_EQ(Crossed->op(), Op::Or);
}

/// A comparison of two booleans is a boolean operation (cmpi ugt on i1
/// in TTGIR, and/xor in the LLVM IR made of it: one node), with the
/// interpreter's value for every pair of operands and every predicate.
TEST(Folding, ComparedBooleansAreBooleanOperations) {
  Context C;
  Type I1 = Type::boolean();
  const Expr *A = C.symbol("a", I1), *B = C.symbol("b", I1);
  EXPECT_EQ(C.icmp(ICmpPredicate::Ugt, A, B), C.andOf(A, C.notOf(B)));
  EXPECT_EQ(C.icmp(ICmpPredicate::Ne, A, B), C.xorOf(A, B));
  EXPECT_EQ(C.xorOf(A, C.trueExpr()), C.notOf(A));
  for (uint8_t P = 0; P <= uint8_t(ICmpPredicate::Sge); ++P) {
    const Expr *Cmp = C.icmp(ICmpPredicate(P), A, B);
    EXPECT_NE(Cmp->op(), Op::ICmp);
    for (unsigned Bits = 0; Bits < 4; ++Bits) {
      Value VA = Value::ofBool(Bits & 1), VB = Value::ofBool(Bits & 2);
      Env E;
      E.setSymbol("a", VA);
      E.setSymbol("b", VB);
      Value Operands[] = {VA, VB};
      EXPECT_EQ(Interpreter(E).eval(Cmp).Bits,
                applyOp(Op::ICmp, I1, Operands, P).Bits)
          << "predicate " << unsigned(P) << ", a=" << (Bits & 1)
          << ", b=" << ((Bits >> 1) & 1);
    }
  }
}

TEST(Folding, AnExtensionCutBackIsItsOperand) {
  Context C;
  Type I16 = Type::i(16), I32 = Type::i(32), I64 = Type::i(64);
  const Expr *X = C.symbol("x", I32);
  for (Op Ext : {Op::SExt, Op::ZExt}) {
    EXPECT_EQ(C.cast(Op::Trunc, C.cast(Ext, X, I64), I32), X);
    EXPECT_EQ(C.cast(Op::Trunc, C.cast(Ext, X, I64), I16),
              C.cast(Op::Trunc, X, I16));
    // Cut to more than the operand had, the extension's bits stay.
    const Expr *Small = C.symbol("s", I16);
    const Expr *Part = C.cast(Op::Trunc, C.cast(Ext, Small, I64), I32);
    Env E;
    E.setSymbol("s", Value::ofBits(I16, 0x8001));
    EXPECT_EQ(Interpreter(E).eval(Part).Bits,
              Ext == Op::SExt ? 0xffff8001u : 0x8001u);
  }
}

TEST(Folding, BitsThereAndBackAreTheBits) {
  Context C;
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Bits = C.cast(Op::Bitcast, X, Type::i(32));
  EXPECT_EQ(C.cast(Op::Bitcast, Bits, Type::f32()), X);
  // Integer bits through a float come back as they were: moving bits
  // keeps a NaN's payload; only arithmetic canonicalizes it.
  const Expr *N = C.symbol("n", Type::i(32));
  const Expr *AsFloat = C.cast(Op::Bitcast, N, Type::f32());
  EXPECT_EQ(C.cast(Op::Bitcast, AsFloat, Type::i(32)), N);
  const Expr *Sum = C.floatBinary(Op::FAdd, AsFloat, AsFloat);
  const Expr *SumBits = C.cast(Op::Bitcast, Sum, Type::i(32));
  EXPECT_EQ(SumBits->op(), Op::Bitcast);
  Env E;
  E.setSymbol("n", Value::ofBits(Type::i(32), 0x7f800001)); // a NaN payload
  EXPECT_EQ(Interpreter(E).eval(SumBits).Bits, 0x7fc00000u);
}

TEST(Folding, OneChoiceIsOneNode) {
  Context C;
  Type F32 = Type::f32(), I32 = Type::i(32);
  const Expr *X = C.symbol("x", F32), *Y = C.symbol("y", F32);
  const Expr *A = C.symbol("a", Type::boolean()),
             *B = C.symbol("b", Type::boolean());
  // select(a, x, select(b, x, y)) is select(a | b, x, y).
  EXPECT_EQ(C.select(A, X, C.select(B, X, Y)), C.select(C.orOf(A, B), X, Y));
  EXPECT_EQ(C.select(A, C.select(B, X, Y), Y), C.select(C.andOf(A, B), X, Y));
  EXPECT_EQ(C.select(C.notOf(A), X, Y), C.select(A, Y, X));
  EXPECT_EQ(C.select(A, X, C.select(B, Y, X)),
            C.select(C.orOf(A, C.notOf(B)), X, Y));
  EXPECT_EQ(C.select(A, C.select(A, X, Y), Y), C.select(A, X, Y));
  EXPECT_EQ(C.select(A, X, C.select(A, Y, X)), X);
  // Inside a select on a, an inner condition `a and b` is b in the true
  // arm and false in the other (two joins of one branch in other orders).
  const Expr *Z = C.symbol("z", F32);
  EXPECT_EQ(C.select(A, C.select(C.andOf(A, B), X, Y), Z),
            C.select(A, C.select(B, X, Y), Z));
  EXPECT_EQ(C.select(A, Z, C.select(C.andOf(B, A), X, Y)), C.select(A, Z, Y));
  // A select of a float's bits, read back as a float, is the float select.
  const Expr *OnBits = C.select(A, C.intConst(I32, 0),
                                C.cast(Op::Bitcast, X, I32));
  EXPECT_EQ(C.cast(Op::Bitcast, OnBits, F32),
            C.select(A, C.floatConst(F32, 0.0), X));
  // uno(x, 0.0) asks whether x is NaN, as uno(x, x) does.
  EXPECT_EQ(C.fcmp(FCmpPredicate::Uno, X, C.floatConst(F32, 0.0)),
            C.fcmp(FCmpPredicate::Uno, X, X));
  EXPECT_NE(C.fcmp(FCmpPredicate::Uno, X, Y), C.fcmp(FCmpPredicate::Uno, X, X));
}

// (a - b)^2 and (b - a)^2 are one node once a - b exists, also through a
// select whose arms are a difference and a zero of either sign (a masked
// variance), and the node's value is the square of either orientation on
// special values.
TEST(Folding, ASquareOfADifferenceHasOneOrientation) {
  Context C;
  Type F = Type::f32();
  const Expr *A = C.symbol("a", F), *B = C.symbol("b", F);
  const Expr *M = C.symbol("m", Type::boolean());
  auto Square = [&](const Expr *X) {
    return C.floatBinary(Op::FMul, X, X, RoundingMode::NearestEven);
  };
  auto Minus = [&](const Expr *X, const Expr *Y, RoundingMode R) {
    return C.floatBinary(Op::FSub, X, Y, R);
  };
  const RoundingMode RNE = RoundingMode::NearestEven;
  EXPECT_EQ(Square(Minus(A, B, RNE)), Square(Minus(B, A, RNE)));
  EXPECT_EQ(Square(C.unary(Op::FNeg, A)), Square(A));
  EXPECT_EQ(Square(C.select(M, Minus(A, B, RNE), C.floatConst(F, 0.0))),
            Square(C.select(M, Minus(B, A, RNE), C.floatConst(F, -0.0))));
  // A difference whose reverse was never built keeps its orientation, so
  // its square and its other uses share it.
  const Expr *X = C.symbol("x", F), *Y = C.symbol("y", F);
  EXPECT_EQ(Square(Minus(Y, X, RNE))->operand(0), Minus(Y, X, RNE));
  // Rounding down is not symmetric about zero: a - b is not -(b - a).
  EXPECT_NE(Square(Minus(A, B, RoundingMode::Down)),
            Square(Minus(B, A, RoundingMode::Down)));
  const double Specials[] = {0.0, -0.0, 1.0, -1.0, 3.5, 1e-40, -1e-40,
                             1e38, -1e38, INFINITY, -INFINITY, NAN};
  const Expr *Folded = Square(Minus(B, A, RNE));
  for (double X : Specials)
    for (double Y : Specials) {
      Env E;
      E.setSymbol("a", Value::ofDouble(F, X));
      E.setSymbol("b", Value::ofDouble(F, Y));
      Value D = applyOp(Op::FSub, F,
                        std::vector<Value>{Value::ofDouble(F, Y),
                                           Value::ofDouble(F, X)},
                        uint8_t(RNE));
      Value Expected = applyOp(Op::FMul, F, std::vector<Value>{D, D},
                               uint8_t(RNE));
      EXPECT_TRUE(Interpreter(E).eval(Folded).sameAs(Expected))
          << "b - a squared at a = " << X << ", b = " << Y;
    }
}

TEST(Folding, FlushingWhatIsNeverSubnormalKeepsIt) {
  Context C;
  Type F = Type::f32();
  const Expr *X = C.symbol("x", F), *Y = C.symbol("y", F);
  const Expr *M = C.symbol("m", Type::boolean());
  auto Flush = [&](const Expr *E) { return C.unary(Op::FFlushSubnormal, E); };
  auto Fma = [&](const Expr *Z) {
    return C.fma(X, Y, Z, RoundingMode::NearestEven);
  };
  const Expr *Half = C.floatConst(F, 0.5);
  // A sum with a large constant addend, a choice between two, a flushed
  // value, a sign change of one: kept as they are.
  EXPECT_EQ(Flush(Fma(Half)), Fma(Half));
  const Expr *Either = C.select(M, Half, C.floatConst(F, -0.128));
  EXPECT_EQ(Flush(Fma(Either)), Fma(Either));
  EXPECT_EQ(Flush(C.floatBinary(Op::FSub, X, C.floatConst(F, std::ldexp(1.0, -78)))),
            C.floatBinary(Op::FSub, X, C.floatConst(F, std::ldexp(1.0, -78))));
  EXPECT_EQ(Flush(Flush(X)), Flush(X));
  EXPECT_EQ(Flush(C.unary(Op::FNeg, Flush(X))), C.unary(Op::FNeg, Flush(X)));
  // Below 2^-78 the sum can cancel into the subnormals; a product, an
  // unknown value, a choice with one: still flushed.
  const Expr *Small = C.floatConst(F, std::ldexp(1.0, -79));
  EXPECT_EQ(Flush(Fma(Small))->op(), Op::FFlushSubnormal);
  EXPECT_EQ(Flush(C.floatBinary(Op::FMul, X, Half))->op(), Op::FFlushSubnormal);
  EXPECT_EQ(Flush(X)->op(), Op::FFlushSubnormal);
  EXPECT_EQ(Flush(C.select(M, Half, X))->op(), Op::FFlushSubnormal);
}

/// x * y + z for floats x and y about -z / x, where a sum can cancel
/// most: whether one of them rounds to a subnormal.
bool someNearCancellationIsSubnormal(Type F, double Z, unsigned Trials) {
  std::mt19937 Random(7);
  FloatFormat Format = floatFormat(F);
  std::uniform_int_distribution<uint64_t> Bits(0, (uint64_t(1) << Format.totalBits()) - 1);
  Value Addend = Value::ofDouble(F, Z);
  for (unsigned I = 0; I < Trials; ++I) {
    Value A = Value::ofBits(F, Bits(Random));
    double Quotient = -Z / A.asDouble();
    if (!std::isfinite(Quotient) || A.asDouble() == 0)
      continue;
    Value Near = Value::ofDouble(F, Quotient);
    for (int Step = -3; Step <= 3; ++Step) {
      Value B = Value::ofBits(F, Near.Bits + uint64_t(int64_t(Step)));
      Value R = applyOp(Op::Fma, F, std::vector<Value>{A, B, Addend},
                        uint8_t(RoundingMode::NearestEven));
      double D = R.asDouble();
      if (D != 0 && std::isfinite(D) &&
          std::fabs(D) < std::ldexp(1.0, 1 - floatFormat(F).bias()))
        return true;
    }
  }
  return false;
}

TEST(Folding, ASumWithALargeAddendIsNeverSubnormal) {
  // The bound behind the fold above, at its edge (f32: 2^-78, f16: 2^8),
  // and below it, where cancellation reaches the subnormals.
  EXPECT_FALSE(someNearCancellationIsSubnormal(Type::f32(), std::ldexp(1.0, -78), 200000));
  EXPECT_FALSE(someNearCancellationIsSubnormal(Type::f32(), -std::ldexp(1.5, -78), 200000));
  EXPECT_FALSE(someNearCancellationIsSubnormal(Type::f16(), 256.0, 200000));
  EXPECT_TRUE(someNearCancellationIsSubnormal(Type::f32(), std::ldexp(1.0, -110), 200000));
  EXPECT_TRUE(someNearCancellationIsSubnormal(Type::f16(), 0.01, 200000));
}

TEST(Folding, ComparisonsHaveOneSpelling) {
  Context C;
  Type I32 = Type::i(32), F32 = Type::f32();
  const Expr *A = C.symbol("a", I32), *B = C.symbol("b", I32);
  const Expr *X = C.symbol("x", F32), *Y = C.symbol("y", F32);
  EXPECT_EQ(C.icmp(ICmpPredicate::Sgt, A, B), C.icmp(ICmpPredicate::Slt, B, A));
  EXPECT_EQ(C.fcmp(FCmpPredicate::Oge, X, Y), C.fcmp(FCmpPredicate::Ole, Y, X));
  EXPECT_EQ(C.notOf(C.icmp(ICmpPredicate::Slt, A, B)),
            C.icmp(ICmpPredicate::Sle, B, A));
  EXPECT_EQ(C.notOf(C.fcmp(FCmpPredicate::Olt, X, Y)),
            C.fcmp(FCmpPredicate::Uge, X, Y));
  // Against a constant: x > 5 is 6 <= x, x <= 5 is x < 6, and a select on
  // 6 <= x is the select on x < 6 with its arms swapped.
  const Expr *Five = C.intConst(I32, 5), *Six = C.intConst(I32, 6);
  EXPECT_EQ(C.icmp(ICmpPredicate::Ugt, A, Five),
            C.icmp(ICmpPredicate::Ule, Six, A));
  EXPECT_EQ(C.icmp(ICmpPredicate::Sle, A, Five),
            C.icmp(ICmpPredicate::Slt, A, Six));
  EXPECT_EQ(C.select(C.icmp(ICmpPredicate::Ugt, A, Five), A, B),
            C.select(C.icmp(ICmpPredicate::Ult, A, Six), B, A));
  const Expr *Max = C.intConst(I32, -1); // no c+1: kept as it is
  EXPECT_EQ(C.icmp(ICmpPredicate::Ule, A, Max)->op(), Op::ICmp);
  // A select on an unordered test is the select on its ordered complement
  // with the arms swapped: setp.ltu + selp meets fcmp oge + select.
  EXPECT_EQ(C.select(C.fcmp(FCmpPredicate::Ult, X, Y), X, Y),
            C.select(C.fcmp(FCmpPredicate::Oge, X, Y), Y, X));
  EXPECT_EQ(C.select(C.icmp(ICmpPredicate::Ne, A, B), A, B),
            C.select(C.eq(A, B), B, A));
  // Every spelling evaluates as the comparison it stands for.
  Env E;
  E.setSymbol("x", Value::ofDouble(F32, 1.0));
  E.setSymbol("y", Value::ofBits(F32, 0x7fc00000));
  Interpreter I(E);
  EXPECT_TRUE(I.eval(C.fcmp(FCmpPredicate::Uge, X, Y)).isTrue());
  EXPECT_FALSE(I.eval(C.fcmp(FCmpPredicate::Oge, X, Y)).isTrue());
}

TEST(Folding, AFloatComparedWithItselfIsANanTest) {
  Context C;
  Type F32 = Type::f32();
  const Expr *X = C.symbol("x", F32);
  const Expr *Ord = C.fcmp(FCmpPredicate::Ord, X, X);
  const Expr *Uno = C.fcmp(FCmpPredicate::Uno, X, X);
  EXPECT_EQ(Ord->op(), Op::FCmp);
  EXPECT_EQ(C.fcmp(FCmpPredicate::Oeq, X, X), Ord);
  EXPECT_EQ(C.fcmp(FCmpPredicate::Ole, X, X), Ord);
  EXPECT_EQ(C.fcmp(FCmpPredicate::Une, X, X), Uno);
  EXPECT_EQ(C.fcmp(FCmpPredicate::Ugt, X, X), Uno);
  EXPECT_EQ(C.fcmp(FCmpPredicate::Ogt, X, X), C.falseExpr());
  EXPECT_EQ(C.fcmp(FCmpPredicate::Ueq, X, X), C.trueExpr());
  // A max whose NaN test was made always true keeps its first operand.
  const Expr *Y = C.symbol("y", F32);
  EXPECT_EQ(C.select(C.orOf(C.fcmp(FCmpPredicate::Ogt, X, Y),
                            C.fcmp(FCmpPredicate::Ueq, X, X)),
                     X, Y),
            X);
  // Each folded predicate means what the unfolded one does, at NaN and at
  // an ordinary number (the folding is the interpreter's answer).
  for (uint64_t Bits : {uint64_t(0x7fc00000), uint64_t(0x3f800000),
                        uint64_t(0x80000000), uint64_t(0x7f800000)}) {
    Env E;
    E.setSymbol("x", Value::ofBits(F32, Bits));
    const Value Both[] = {Value::ofBits(F32, Bits), Value::ofBits(F32, Bits)};
    for (unsigned P = 0; P < NumFCmpPredicates; ++P) {
      Value Direct = applyOp(Op::FCmp, Type::boolean(), Both, uint8_t(P));
      EXPECT_EQ(Interpreter(E).eval(C.fcmp(FCmpPredicate(P), X, X)).Bits,
                Direct.Bits)
          << "predicate " << spelling(FCmpPredicate(P)) << " at " << Bits;
    }
  }
}

TEST(Typing, IllTypedConstructionsThrow) {
  Context C;
  const Expr *A = C.symbol("a", Type::i(32));
  const Expr *B = C.symbol("b", Type::i(16));
  const Expr *X = C.symbol("x", Type::f32());
  EXPECT_THROW(C.add(A, B), IRError);
  EXPECT_THROW(C.add(A, X), IRError);
  EXPECT_THROW(C.floatBinary(Op::FAdd, A, A), IRError);
  EXPECT_THROW(C.cast(Op::ZExt, A, Type::i(16)), IRError);
  EXPECT_THROW(C.cast(Op::Bitcast, X, Type::i(16)), IRError);
  EXPECT_THROW(C.select(A, A, A), IRError);
  const Expr *Args[] = {X};
  EXPECT_THROW(C.call("no_such_function", Type::f32(), Args), IRError);
  EXPECT_THROW(C.floatBinary(Op::FAdd, X, X, RoundingMode::NearestAway), IRError);
  EXPECT_THROW(C.read("buf", Type::f32(), A), IRError); // index must be i64
}

TEST(Interpreter, EvaluatesDagsWithSharedNodesOnce) {
  Context C;
  Type T = Type::i(32);
  const Expr *A = C.symbol("a", T);
  const Expr *E = A;
  for (int I = 0; I < 10000; ++I) // deep chains must not overflow the stack
    E = C.add(C.mul(E, C.intConst(T, 3)), A);
  Env Env;
  Env.setSymbol("a", Value::ofBits(T, 1));
  Interpreter In(Env);
  uint64_t Expected = 1;
  for (int I = 0; I < 10000; ++I)
    Expected = uint32_t(Expected * 3 + 1);
  EXPECT_EQ(In.eval(E).Bits, Expected);
}

TEST(Interpreter, MissingSymbolIsAnError) {
  Context C;
  Env Empty;
  Interpreter In(Empty);
  EXPECT_THROW(In.eval(C.symbol("nobody", Type::i(32))), EvalError);
}

TEST(Interpreter, ReadsAndCallsComeFromTheEnvironment) {
  Context C;
  const Expr *I = C.symbol("i", Type::i(64));
  const Expr *R = C.read("x", Type::f32(), I);
  const Expr *Args[] = {R};
  const Expr *E = C.call("exp", Type::f32(), Args);
  Env Env;
  Env.setSymbol("i", Value::ofBits(Type::i(64), 5));
  Env.setRead("x", 5, Value::ofDouble(Type::f32(), 2.0));
  Env.setCall("exp", {Value::ofDouble(Type::f32(), 2.0)},
              Value::ofDouble(Type::f32(), 7.0));
  Interpreter In(Env);
  EXPECT_EQ(In.eval(E).asDouble(), 7.0);
  EXPECT_FALSE(In.usedHostFallback());
}

// The PTX ISA's tables of corner cases are the function's, not a model's:
// ex2.approx.f32(-Inf) is +0 on every GPU.
TEST(Interpreter, PtxCornerCasesAreNotTheEnvironmentsToChoose) {
  Context C;
  Type F32 = Type::f32();
  const Expr *X = C.symbol("x", F32);
  auto Call = [&](const char *F) {
    const Expr *Args[] = {X};
    return C.call(F, F32, Args);
  };
  auto At = [&](const char *F, double In) {
    Env Env;
    Env.setSymbol("x", Value::ofDouble(F32, In));
    Env.setCall(F, {Value::ofDouble(F32, In)}, Value::ofDouble(F32, 42.0));
    Interpreter I(Env);
    return I.eval(Call(F));
  };
  double Inf = __builtin_inf();
  EXPECT_TRUE(At("ex2.approx", -Inf).sameAs(Value::ofDouble(F32, +0.0)));
  EXPECT_TRUE(At("ex2.approx.ftz", -0.0).sameAs(Value::ofDouble(F32, 1.0)));
  EXPECT_TRUE(At("lg2.approx", -2.0).isNaN());
  EXPECT_TRUE(At("lg2.approx", 0.0).sameAs(Value::ofDouble(F32, -Inf)));
  EXPECT_TRUE(At("rcp.approx", -0.0).sameAs(Value::ofDouble(F32, -Inf)));
  EXPECT_TRUE(At("rsqrt.approx", Inf).sameAs(Value::ofDouble(F32, +0.0)));
  EXPECT_TRUE(At("sqrt.approx", -0.0).sameAs(Value::ofDouble(F32, -0.0)));
  EXPECT_TRUE(At("sin.approx", Inf).isNaN());
  EXPECT_TRUE(At("tanh.approx", -Inf).sameAs(Value::ofDouble(F32, -1.0)));
  // A .ftz form reads a negative subnormal as -0; the other form is free
  // there (the table lists negative normals only).
  EXPECT_TRUE(At("rsqrt.approx.ftz", -1e-40).sameAs(Value::ofDouble(F32, -Inf)));
  EXPECT_EQ(At("rsqrt.approx", -1e-40).asDouble(), 42.0);
  // Away from the corners the environment decides.
  EXPECT_EQ(At("ex2.approx", 3.0).asDouble(), 42.0);
}

// libdevice's __nv_isnanf answers an int; with no model value the host's
// answer is shown (and marked as such), as for a float function.
TEST(Interpreter, AnIntValuedLibdeviceCallFallsBackToTheHost) {
  Context C;
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Args[] = {X};
  const Expr *IsNaN = C.call("__nv_isnanf", Type::i(32), Args);
  Env Env;
  Env.setSymbol("x", Value::ofDouble(Type::f32(), __builtin_nan("")));
  Interpreter I(Env);
  EXPECT_EQ(I.eval(IsNaN).Bits, 1u);
  EXPECT_TRUE(I.usedHostFallback());
  Env.setSymbol("x", Value::ofDouble(Type::f32(), 2.0));
  Interpreter J(Env);
  EXPECT_EQ(J.eval(IsNaN).Bits, 0u);
}

// A guard that is false leaves what it guards unevaluated: no buffer
// element is asked for and a missing symbol there is no error.
TEST(Interpreter, SelectsAndBooleanConnectivesEvaluateOnlyWhatDecides) {
  Context C;
  Type I64 = Type::i(64), F32 = Type::f32();
  const Expr *G = C.symbol("g", Type::boolean());
  const Expr *Unset = C.symbol("unset", I64);
  const Expr *Element = C.read("x", F32, Unset);
  const Expr *Big = C.fcmp(FCmpPredicate::Ogt, Element, C.floatConst(F32, 1));
  Env Env;
  Env.setSymbol("g", Value::ofBool(false));
  unsigned Asked = 0;
  auto Count = [&](const std::string &, uint64_t, Type T) {
    ++Asked;
    return Value::ofBits(T, 0);
  };
  Interpreter In(Env, Count);
  EXPECT_FALSE(In.eval(C.andOf(G, Big)).isTrue());
  EXPECT_TRUE(In.eval(C.orOf(C.notOf(G), Big)).isTrue());
  EXPECT_EQ(In.eval(C.select(G, Element, C.floatConst(F32, 2))).asDouble(), 2.0);
  EXPECT_EQ(Asked, 0u);
  // The operand that is needed is still evaluated (and may fail).
  EXPECT_THROW(In.eval(C.select(C.notOf(G), Element, C.floatConst(F32, 2))),
               EvalError);
}

// Lazy and strict evaluation agree wherever strict evaluation has a value:
// random DAGs of selects, connectives and arithmetic over a few symbols.
TEST(Interpreter, LazyEvaluationAgreesWithEveryOperandEvaluated) {
  Context C;
  Type T = Type::i(8);
  std::vector<const Expr *> Ints, Bools;
  for (int I = 0; I < 4; ++I)
    Ints.push_back(C.symbol("s" + std::to_string(I), T));
  std::mt19937 Rng(7);
  for (int Step = 0; Step < 400; ++Step) {
    auto Int = [&] { return Ints[Rng() % Ints.size()]; };
    switch (Rng() % 5) {
    case 0:
      Ints.push_back(C.add(Int(), Int()));
      break;
    case 1:
      Bools.push_back(C.icmp(ICmpPredicate::Slt, Int(), Int()));
      break;
    case 2:
      if (!Bools.empty())
        Ints.push_back(C.select(Bools[Rng() % Bools.size()], Int(), Int()));
      break;
    default:
      if (Bools.size() >= 2) {
        const Expr *A = Bools[Rng() % Bools.size()];
        const Expr *B = Bools[Rng() % Bools.size()];
        Bools.push_back(Rng() % 2 ? C.andOf(A, B) : C.orOf(A, C.notOf(B)));
      }
    }
  }
  for (uint64_t Trial = 0; Trial < 50; ++Trial) {
    Env Env;
    std::map<const Expr *, uint64_t> Strict;
    for (int I = 0; I < 4; ++I) {
      uint64_t V = Rng() & 0xff;
      Env.setSymbol("s" + std::to_string(I), Value::ofBits(T, V));
      Strict[Ints[I]] = V;
    }
    // Strict: every operand, in creation order.
    std::function<uint64_t(const Expr *)> strictValue = [&](const Expr *E) {
      auto It = Strict.find(E);
      if (It != Strict.end())
        return It->second;
      std::vector<Value> Ops;
      for (const Expr *O : E->operands())
        Ops.push_back(Value::ofBits(O->type(), strictValue(O)));
      uint64_t V = E->isConst() ? E->constBits()
                                : applyOp(E->op(), E->type(), Ops,
                                          E->rawAttribute()).Bits;
      Strict[E] = V;
      return V;
    };
    Interpreter Lazy(Env);
    for (const Expr *E : Bools)
      EXPECT_EQ(Lazy.eval(E).Bits, strictValue(E));
    for (const Expr *E : Ints)
      EXPECT_EQ(Lazy.eval(E).Bits, strictValue(E));
  }
}

namespace {
/// Substitution written the plain way: every node walked.
const Expr *substituteEverywhere(
    Context &C, const Expr *E,
    const std::unordered_map<const Expr *, const Expr *> &Map) {
  if (auto It = Map.find(E); It != Map.end())
    return It->second;
  if (E->numOperands() == 0)
    return E;
  std::vector<const Expr *> Ops;
  for (const Expr *O : E->operands())
    Ops.push_back(substituteEverywhere(C, O, Map));
  return C.make(E->op(), Ops, E->rawAttribute(), E->type());
}
} // namespace

// substitute skips subexpressions whose symbol bits miss every key's; with
// 100 symbols in 64 bits some share a bit, and keys are symbols, compound
// terms or constants. It must agree with the plain walk on every one.
TEST(Substitution, SkippingByTheSymbolBitsChangesNoResult) {
  Context C;
  Type I = Type::i(16);
  std::vector<const Expr *> Pool;
  for (int K = 0; K < 100; ++K)
    Pool.push_back(C.symbol("s" + std::to_string(K), I));
  for (int K = 0; K < 4; ++K)
    Pool.push_back(C.intConst(I, K));
  uint64_t Seed = 7;
  auto Next = [&](size_t N) {
    Seed = Seed * 6364136223846793005ull + 1442695040888963407ull;
    return size_t((Seed >> 33) % N);
  };
  for (int K = 0; K < 400; ++K) {
    const Expr *A = Pool[Next(Pool.size())], *B = Pool[Next(Pool.size())];
    Pool.push_back(Next(2) ? C.add(A, B) : C.mul(A, C.sub(B, A)));
  }
  for (const Expr *E : Pool) { // the bits summarise the symbols within
    if (E->op() == Op::Symbol) {
      EXPECT_EQ(__builtin_popcountll(E->symbolBits()), 1);
    }
    for (const Expr *O : E->operands())
      EXPECT_EQ(O->symbolBits() & ~E->symbolBits(), 0u);
  }
  unsigned Changed = 0;
  for (int Trial = 0; Trial < 200; ++Trial) {
    std::unordered_map<const Expr *, const Expr *> Map;
    for (int K = 0, N = 1 + int(Next(3)); K < N; ++K) {
      // Mostly symbols; now and then a compound term or a constant.
      const Expr *Key =
          Trial % 5 == 0 ? Pool[Next(Pool.size())] : Pool[Next(100)];
      Map[Key] = C.intConst(I, int64_t(Next(1000)));
    }
    const Expr *Root = Pool[Pool.size() - 1 - Next(100)];
    const Expr *Want = substituteEverywhere(C, Root, Map);
    EXPECT_EQ(substitute(C, Root, Map), Want);
    Changed += Want != Root;
  }
  EXPECT_GT(Changed, 20u); // the substitutions above do reach their roots
}

// A family's instances through InstanceSubstitution: the same node as
// substitute() for each instance of a row-by-column family whose value has
// a per-row reduction, an element term and a part with no bound variable,
// through the node shared between instances and maps that are no instance.
TEST(Substitution, AnInstanceIsSubstitutedAsOnItsOwn) {
  Context C;
  Type I = Type::i(64);
  const Expr *Row = C.symbol("row", I), *Col = C.symbol("col", I);
  const Expr *Len = C.symbol("len", I);
  std::vector<BoundVariable> Bound = {{Row, 3}, {Col, 5}};
  const Expr *RowSum = C.intConst(I, 0);
  for (int K = 0; K < 5; ++K)
    RowSum = C.add(RowSum, C.read("x", I, C.add(C.mul(Row, C.intConst(I, 5)),
                                                C.intConst(I, K))));
  const Expr *Element = C.read("x", I, C.add(C.mul(Row, C.intConst(I, 5)), Col));
  const Expr *Value = C.sub(C.mul(Element, Len), RowSum);
  const Expr *Index = C.add(C.mul(Row, C.intConst(I, 5)), Col);
  InstanceSubstitution Fix(C, Bound);
  size_t Instances = 0;
  std::set<const Expr *> Distinct;
  forEachInstance(
      C, Bound, 100,
      [&](const std::unordered_map<const Expr *, const Expr *> &At) {
        for (const Expr *E : {Value, Index, RowSum, Len}) {
          const Expr *Got = Fix(E, At);
          EXPECT_EQ(Got, substitute(C, E, At));
          Distinct.insert(Got);
        }
        ++Instances;
      });
  EXPECT_EQ(Instances, 15u);
  EXPECT_EQ(Distinct.size(), 15u + 15u + 3u + 1u); // values, indices, rows, len
  // A fixed symbol is replaced in every instance, as if in the map.
  const Expr *Seven = C.intConst(I, 7);
  InstanceSubstitution WithLen(
      C, Bound, [&](const Expr *S) { return S == Len ? Seven : nullptr; });
  forEachInstance(
      C, Bound, 100,
      [&](const std::unordered_map<const Expr *, const Expr *> &At) {
        auto Also = At;
        Also[Len] = Seven;
        for (const Expr *E : {Value, Index, RowSum, Len})
          EXPECT_EQ(WithLen(E, At), substitute(C, E, Also));
      });
  // Not an instance: another key, or a bound variable to a non-constant.
  std::unordered_map<const Expr *, const Expr *> Other = {
      {Row, C.intConst(I, 1)}, {Col, C.intConst(I, 2)}, {Len, C.intConst(I, 9)}};
  EXPECT_EQ(Fix(Value, Other), substitute(C, Value, Other));
  std::unordered_map<const Expr *, const Expr *> Symbolic = {
      {Row, C.intConst(I, 1)}, {Col, Len}};
  EXPECT_EQ(Fix(Value, Symbolic), substitute(C, Value, Symbolic));
  // Nor is a value past its variable's extent: (0, 5) numbers as (1, 0)
  // would, and must not be given that instance's nodes.
  std::unordered_map<const Expr *, const Expr *> Past = {
      {Row, C.intConst(I, 0)}, {Col, C.intConst(I, 5)}};
  EXPECT_EQ(Fix(Value, Past), substitute(C, Value, Past));
  EXPECT_EQ(Fix(Index, Past), substitute(C, Index, Past));
}

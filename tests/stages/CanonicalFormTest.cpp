// The canonical form's integer and bit identities (stages/Unify.h) mean the
// same as what they rewrite, for every input at small widths that the
// assumptions they rely on allow; and two spellings of one launch term meet.
#include "stages/Unify.h"

#include "ir/Interpreter.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;
using stages::Alignments;
using stages::alignmentsFrom;
using stages::Canonicalizer;

namespace {

const std::unordered_map<const Expr *, const Expr *> NoMap;

/// The values a symbol takes in a test.
struct Domain {
  const Expr *Symbol;
  std::vector<uint64_t> Values; // empty: every value of its width
};

/// For every assignment of the domains' values (where Where holds), E and
/// R evaluate alike.
void expectSameEverywhere(const Expr *E, const Expr *R,
                          std::vector<Domain> Domains,
                          const Expr *Where = nullptr) {
  for (Domain &D : Domains)
    if (D.Values.empty())
      for (uint64_t V = 0; V < (uint64_t(1) << D.Symbol->type().bits()); ++V)
        D.Values.push_back(V);
  std::vector<size_t> At(Domains.size(), 0);
  for (;;) {
    Env Inputs;
    for (size_t K = 0; K < Domains.size(); ++K)
      Inputs.setSymbol(
          Domains[K].Symbol->name(),
          Value::ofBits(Domains[K].Symbol->type(), Domains[K].Values[At[K]]));
    Interpreter I(Inputs);
    if (!Where || I.eval(Where).isTrue()) {
      ASSERT_EQ(I.eval(E).Bits, I.eval(R).Bits)
          << printExpr(E) << " against " << printExpr(R);
    }
    size_t K = 0;
    for (; K < Domains.size(); ++K) {
      if (++At[K] < Domains[K].Values.size())
        break;
      At[K] = 0;
    }
    if (K == Domains.size())
      return;
  }
}

std::vector<uint64_t> multiplesOf(uint64_t D, unsigned Bits) {
  std::vector<uint64_t> Out;
  for (uint64_t V = 0; V < (uint64_t(1) << Bits); V += D)
    Out.push_back(V);
  return Out;
}

TEST(CanonicalForm, RemainderSpelledWithADivisionIsTheRemainder) {
  Context C;
  Type T = Type::i(8);
  const Expr *X = C.symbol("x", T), *D = C.symbol("d", T);
  for (bool Swap : {false, true}) {
    const Expr *Q = C.binary(Op::SDiv, X, D);
    const Expr *E = C.sub(X, Swap ? C.mul(Q, D) : C.mul(D, Q));
    Canonicalizer Canon(C);
    const Expr *R = Canon(E, NoMap);
    EXPECT_EQ(R, C.binary(Op::SRem, X, D)) << printExpr(R);
    // Division by 0 and INT_MIN sdiv -1 included.
    expectSameEverywhere(E, R, {{X, {}}, {D, {}}});
  }
}

TEST(CanonicalForm, SumsOfScaledTermsMeet) {
  Context C;
  Type T = Type::i(6);
  const Expr *G = C.symbol("g", T), *S = C.symbol("s", T);
  auto K = [&](int64_t V) { return C.intConst(T, V); };
  // (g << 1 + s) << 5 (LLVM IR) and g * 64 + 32 * s (TTGIR), mod 2^6.
  const Expr *Llvm =
      C.binary(Op::Shl, C.add(C.binary(Op::Shl, G, K(1)), S), K(5));
  const Expr *Ttgir = C.add(C.mul(G, K(64)), C.mul(K(32), S));
  // m - (g << 1) and m + g * -2.
  const Expr *M = C.symbol("m", T);
  const Expr *Sub = C.sub(M, C.binary(Op::Shl, G, K(1)));
  const Expr *Add = C.add(M, C.mul(G, K(-2)));
  // An or with a constant in the other side's zero low bits is the sum.
  const Expr *Or = C.orOf(C.binary(Op::Shl, C.add(G, S), K(3)), K(5));
  const Expr *Plus = C.add(C.mul(C.add(S, G), K(8)), K(5));
  Canonicalizer Canon(C);
  EXPECT_EQ(Canon(Llvm, NoMap), Canon(Ttgir, NoMap));
  EXPECT_EQ(Canon(Sub, NoMap), Canon(Add, NoMap));
  EXPECT_EQ(Canon(Or, NoMap), Canon(Plus, NoMap));
  for (const Expr *E : {Llvm, Ttgir, Sub, Add, Or, Plus})
    expectSameEverywhere(E, Canon(E, NoMap), {{G, {}}, {S, {}}, {M, {}}});
  // A concatenation's or stays an or: its pieces are not arithmetic.
  const Expr *B1 = C.symbol("b1", Type::i(8));
  const Expr *Concat =
      C.orOf(C.binary(Op::Shl, C.cast(Op::ZExt, B1, Type::i(16)),
                      C.intConst(Type::i(16), 8)),
             C.intConst(Type::i(16), 5));
  EXPECT_EQ(Canon(Concat, NoMap)->op(), Op::Or);
}

TEST(CanonicalForm, BitsOfBitsAreTakenWhereTheyLie) {
  Context C;
  const Expr *X = C.symbol("x", Type::i(16));
  Canonicalizer Canon(C);
  auto Trunc = [&](const Expr *E, unsigned W) {
    return C.cast(Op::Trunc, E, Type::i(W));
  };
  auto LShr = [&](const Expr *E, uint64_t K) {
    return C.binary(Op::LShr, E, C.constant(E->type(), K));
  };
  // trunc(trunc(x)) and trunc(lshr(trunc(x), k)).
  const Expr *A = Trunc(Trunc(X, 8), 4);
  const Expr *B = Trunc(LShr(Trunc(X, 8), 4), 4);
  EXPECT_EQ(Canon(A, NoMap), Trunc(X, 4));
  EXPECT_EQ(Canon(B, NoMap), Trunc(LShr(X, 4), 4));
  expectSameEverywhere(A, Canon(A, NoMap), {{X, {}}});
  expectSameEverywhere(B, Canon(B, NoMap), {{X, {}}});
  // A register of bytes of two values (ldmatrix.trans): each half is the
  // low half of one of them.
  const Expr *Y = C.symbol("y", Type::i(16));
  auto Byte = [&](const Expr *V, unsigned K) {
    return C.cast(Op::ZExt, Trunc(K ? LShr(V, 8 * K) : V, 8), Type::i(32));
  };
  auto At = [&](const Expr *P, unsigned K) {
    return K ? C.binary(Op::Shl, P, C.intConst(Type::i(32), K)) : P;
  };
  const Expr *Register = C.orOf(C.orOf(At(Byte(X, 0), 0), At(Byte(X, 1), 8)),
                                C.orOf(At(Byte(Y, 0), 16), At(Byte(Y, 1), 24)));
  const Expr *Low = Trunc(Register, 16), *High = Trunc(LShr(Register, 16), 16);
  EXPECT_EQ(Canon(Low, NoMap), X);
  EXPECT_EQ(Canon(High, NoMap), Y);
  // Bytes out of order are no slice.
  const Expr *Swapped = C.orOf(At(Byte(X, 1), 0), At(Byte(X, 0), 8));
  EXPECT_NE(Canon(Trunc(Swapped, 16), NoMap), X);
}

/// n and m multiples of 16 (srem(., 16) == 0), s below 16 (s <u 16), as
/// the checker's assumptions say of divisible arguments and the shared
/// window's base.
struct Assumed {
  Context C;
  Type T = Type::i(8);
  const Expr *N = C.symbol("n", T), *M = C.symbol("m", T),
             *S = C.symbol("s", T);
  Alignments A = alignmentsFrom(
      {C.eq(C.binary(Op::SRem, N, C.intConst(T, 16)), C.intConst(T, 0)),
       C.eq(C.binary(Op::SRem, M, C.intConst(T, 16)), C.intConst(T, 0)),
       C.icmp(ICmpPredicate::Ult, S, C.intConst(T, 16))});
};

TEST(CanonicalForm, AlignmentsDecideMasksWideningsAndRemainders) {
  Assumed X;
  Context &C = X.C;
  Type T = X.T;
  ASSERT_EQ(X.A.Below.at(X.S), 16u);
  unsigned Changed = 0;
  for (int K = 0; K < 256; ++K) {
    const Expr *Sum = C.add(X.N, C.intConst(T, K));
    std::vector<const Expr *> Es = {
        C.andOf(C.mul(X.N, C.intConst(T, 2)), C.intConst(T, K & 31)),
        C.cast(Op::SExt, Sum, Type::i(16)), C.cast(Op::ZExt, Sum, Type::i(16)),
        C.binary(Op::SRem, Sum, X.M), C.binary(Op::URem, Sum, X.M)};
    for (const Expr *E : Es) {
      Canonicalizer Canon(C, X.A);
      const Expr *R = Canon(E, NoMap);
      Changed += R != E;
      // Under what the form relies on: 0 <= n + h for a signed remainder.
      const Expr *Where = C.trueExpr();
      for (const Expr *A : Canon.assumed())
        Where = C.andOf(Where, A);
      EXPECT_EQ(Canon.assumed().empty(),
                E->op() != Op::SRem || R == E || (K & 15) == 0);
      expectSameEverywhere(
          E, R, {{X.N, multiplesOf(16, 8)}, {X.M, multiplesOf(16, 8)}}, Where);
    }
  }
  EXPECT_GT(Changed, 600u);
  // Without that, the signed remainder of n - 1 is not (n - 16) srem m + 15
  // (n = 0, m = 16: -1 against 15).
  {
    Canonicalizer Canon(C, X.A);
    const Expr *E = C.binary(Op::SRem, C.add(X.N, C.intConst(T, -1)), X.M);
    const Expr *R = Canon(E, NoMap);
    ASSERT_EQ(Canon.assumed().size(), 1u);
    Env At;
    At.setSymbol("n", Value::ofBits(T, 0));
    At.setSymbol("m", Value::ofBits(T, 16));
    Interpreter I(At);
    EXPECT_NE(I.eval(E).Bits, I.eval(R).Bits);
    EXPECT_FALSE(I.eval(Canon.assumed()[0]).isTrue());
  }
  // The lane added before the widening or after: one node.
  Canonicalizer Canon(C, X.A);
  const Expr *Before =
      C.cast(Op::SExt, C.add(X.N, C.intConst(T, 17)), Type::i(16));
  const Expr *After =
      C.add(C.cast(Op::SExt, C.add(X.N, C.intConst(T, 16)), Type::i(16)),
            C.intConst(Type::i(16), 1));
  EXPECT_EQ(Canon(Before, NoMap), Canon(After, NoMap));
}

TEST(CanonicalForm, ComparisonsOfABoundedSymbolPlusConstants) {
  Assumed X;
  Context &C = X.C;
  Type T = X.T;
  const ICmpPredicate Ps[] = {ICmpPredicate::Ult, ICmpPredicate::Ule,
                              ICmpPredicate::Ugt, ICmpPredicate::Uge};
  unsigned Decided = 0;
  for (int L = 0; L < 256; L += 5)
    for (int R = 0; R < 256; R += 7)
      for (ICmpPredicate P : Ps) {
        auto Plus = [&](int V) {
          return V ? C.add(X.S, C.intConst(T, V)) : X.S;
        };
        const Expr *E = C.icmp(P, Plus(L), Plus(R));
        Canonicalizer Canon(C, X.A);
        const Expr *Out = Canon(E, NoMap);
        Decided += Out->isConst();
        // Decided only where neither sum can wrap: the same for every s < 16.
        expectSameEverywhere(E, Out, {{X.S, multiplesOf(1, 4)}});
      }
  EXPECT_GT(Decided, 1000u);
}

/// A multiple of 16 masked with a symbol kept below B is 0 when B <= 16
/// (an element's offset within a block at an aligned base), and is left as
/// it is above: exhaustive at i8 over the symbols' allowed values.
TEST(CanonicalForm, MasksOfAnAlignedTermByABoundedSymbol) {
  for (uint64_t Bound : {1u, 8u, 16u, 17u, 32u}) {
    Context C;
    Type T = Type::i(8);
    const Expr *N = C.symbol("n", T), *S = C.symbol("s", T);
    Alignments A = alignmentsFrom(
        {C.eq(C.binary(Op::SRem, N, C.intConst(T, 16)), C.intConst(T, 0)),
         C.icmp(ICmpPredicate::Ult, S, C.intConst(T, Bound))});
    for (const Expr *E : {C.andOf(C.mul(N, C.intConst(T, 3)), S),
                          C.andOf(S, C.add(N, C.intConst(T, 32)))}) {
      Canonicalizer Canon(C, A);
      const Expr *R = Canon(E, NoMap);
      EXPECT_EQ(R->isConst(), Bound <= 16) << Bound << ": " << printExpr(R);
      std::vector<uint64_t> Below;
      for (uint64_t V = 0; V < Bound; ++V)
        Below.push_back(V);
      expectSameEverywhere(E, R, {{N, multiplesOf(16, 8)}, {S, Below}});
    }
  }
}

/// An or of a masked value into an aligned sum's zero low bits is the sum
/// (a lane's offset joined to its block's base, spelled with `or` in PTX),
/// and is left as it is where the mask reaches the sum's set bits (31), or
/// the lane's own low bit may be set (15, then or'ed with 1).
TEST(CanonicalForm, AnOrIntoZeroLowBitsIsASum) {
  for (uint64_t Mask : {14u, 15u, 31u}) {
    Context C;
    Type T = Type::i(8);
    const Expr *N = C.symbol("n", T), *X = C.symbol("x", T);
    Alignments A = alignmentsFrom(
        {C.eq(C.binary(Op::SRem, N, C.intConst(T, 16)), C.intConst(T, 0))});
    const Expr *Lane = C.andOf(X, C.intConst(T, Mask));
    const Expr *Base = C.add(N, C.intConst(T, 32));
    const Expr *E = C.orOf(C.orOf(Lane, Base), C.intConst(T, 1));
    Canonicalizer Canon(C, A);
    const Expr *R = Canon(E, NoMap);
    // With 15 the lane may be odd: the or with 1 stays (over a sum).
    EXPECT_EQ(R->op() == Op::Add, Mask == 14) << Mask << ": " << printExpr(R);
    EXPECT_EQ(R->operand(1)->op() == Op::Add, Mask < 16) << printExpr(R);
    expectSameEverywhere(E, R, {{N, multiplesOf(16, 8)}, {X, {}}});
  }
}

/// x + x and 2 * x are one form, and equal bit for bit for every f16 and
/// bf16 value in every rounding mode (infinities, NaNs, signed zeros and
/// subnormals among them).
TEST(CanonicalForm, ADoubledValueIsOneProduct) {
  for (Type F : {Type::f16(), Type::bf16()})
    for (RoundingMode M : {RoundingMode::NearestEven, RoundingMode::TowardZero,
                           RoundingMode::Down, RoundingMode::Up}) {
      Context C;
      const Expr *X = C.symbol("x", F);
      const Expr *Sum = C.floatBinary(Op::FAdd, X, X, M);
      const Expr *Product =
          C.floatBinary(Op::FMul, C.floatConst(F, 2.0), X, M);
      Canonicalizer Canon(C);
      EXPECT_EQ(Canon(Sum, NoMap), Canon(Product, NoMap));
      expectSameEverywhere(Sum, Product, {{X, {}}});
    }
}

} // namespace

// Under a guard that compares x with constants, a comparison of x with a
// constant that the guard decides is that constant, wherever the guard
// holds (or, with Holds false, wherever it fails); exhaustive at i6 over
// every pair of predicates and a spread of constants, signed and unsigned.
TEST(GuardSimplifier, ComparisonsDecidedByTheGuardsBoundsAreConstants) {
  Context C;
  Type T = Type::i(6);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T);
  const ICmpPredicate All[] = {
      ICmpPredicate::Eq,  ICmpPredicate::Ne,  ICmpPredicate::Ult,
      ICmpPredicate::Ule, ICmpPredicate::Ugt, ICmpPredicate::Uge,
      ICmpPredicate::Slt, ICmpPredicate::Sle, ICmpPredicate::Sgt,
      ICmpPredicate::Sge};
  const uint64_t Constants[] = {0, 1, 17, 31, 32, 33, 62, 63};
  unsigned Decided = 0;
  for (ICmpPredicate P1 : All)
    for (uint64_t K1 : Constants)
      for (ICmpPredicate P2 : All)
        for (uint64_t K2 : Constants)
          for (bool Holds : {true, false}) {
            const Expr *Guard = C.andOf(C.icmp(P1, X, C.constant(T, K1)),
                                        C.icmp(ICmpPredicate::Ne, Y, X));
            if (!Holds)
              Guard = C.orOf(C.icmp(P1, C.constant(T, K1), X),
                             C.icmp(ICmpPredicate::Eq, Y, X));
            const Expr *E = C.icmp(P2, X, C.constant(T, K2));
            stages::GuardSimplifier Under(C);
            const Expr *R = Under(E, Guard, Holds);
            Decided += R->isConst();
            expectSameEverywhere(E, R, {{X, {}}, {Y, {0, 5}}},
                                 Holds ? Guard : C.notOf(Guard));
          }
  // Not a test that cannot fail: many are decided, and the one a PTX load
  // mask needs is.
  EXPECT_GT(Decided, 1000u);
  const Expr *N = C.constant(Type::i(32), 1024);
  const Expr *Z = C.symbol("z", Type::i(32));
  stages::GuardSimplifier Under(C);
  EXPECT_TRUE(Under(C.icmp(ICmpPredicate::Sle, Z, N),
                    C.icmp(ICmpPredicate::Slt, Z, N))
                  ->isTrue());
}

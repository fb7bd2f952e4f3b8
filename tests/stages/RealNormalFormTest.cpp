// The polynomial normal form: sums of products equal over the reals meet
// in one node; anything that is not such an equality stays apart.
#include "stages/RealNormalForm.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

class Polynomial : public ::testing::Test {
protected:
  Context C;
  stages::RealNormalForm Normal{C};
  Type F32 = Type::f32(), F16 = Type::f16();
  const Expr *x(const char *Name, Type T) { return C.symbol(Name, T); }
  const Expr *add(const Expr *A, const Expr *B) {
    return C.floatBinary(Op::FAdd, A, B);
  }
  const Expr *mul(const Expr *A, const Expr *B) {
    return C.floatBinary(Op::FMul, A, B);
  }
  bool same(const Expr *A, const Expr *B) {
    return Normal.polynomial(A) == Normal.polynomial(B);
  }
};

TEST_F(Polynomial, DotProductInAnyOrderIsOneNode) {
  // f16 operands widened to f32, summed left to right and in two blocks.
  const Expr *A[4], *B[4];
  const char *NA[] = {"a0", "a1", "a2", "a3"}, *NB[] = {"b0", "b1", "b2", "b3"};
  for (int I = 0; I < 4; ++I) {
    A[I] = C.cast(Op::FPCast, x(NA[I], F16), F32);
    B[I] = C.cast(Op::FPCast, x(NB[I], F16), F32);
  }
  const Expr *Left = C.floatConst(F32, 0.0);
  for (int I = 0; I < 4; ++I)
    Left = add(Left, mul(A[I], B[I]));
  const Expr *Blocked =
      add(C.fma(A[3], B[3], C.fma(A[2], B[2], C.floatConst(F32, 0.0))),
          add(mul(B[1], A[1]), mul(B[0], A[0])));
  EXPECT_TRUE(same(Left, Blocked));
  // Rounded to f16 at the end on both sides: the narrowing is an atom of
  // the same sum.
  EXPECT_TRUE(same(C.cast(Op::FPCast, Left, F16),
                   C.cast(Op::FPCast, Blocked, F16)));
}

TEST_F(Polynomial, DistributesAndCancels) {
  const Expr *A = x("a", F32), *B = x("b", F32), *D = x("d", F32);
  EXPECT_TRUE(same(mul(A, add(B, D)), add(mul(D, A), mul(A, B))));
  // (a + b) - b is a; 2a is a + a; a / 4 is 0.25 a.
  EXPECT_TRUE(same(C.floatBinary(Op::FSub, add(A, B), B), A));
  EXPECT_TRUE(same(mul(C.floatConst(F32, 2.0), A), add(A, A)));
  EXPECT_TRUE(same(C.floatBinary(Op::FDiv, A, C.floatConst(F32, 4.0)),
                   mul(A, C.floatConst(F32, 0.25))));
}

TEST_F(Polynomial, DifferentPolynomialsStayApart) {
  const Expr *A = x("a", F32), *B = x("b", F32), *D = x("d", F32);
  EXPECT_FALSE(same(mul(A, B), mul(A, D)));
  EXPECT_FALSE(same(add(A, B), add(A, add(B, C.floatConst(F32, 1.0)))));
  EXPECT_FALSE(same(mul(A, A), A));
  // Rounding to f16 before the sum is not rounding after it.
  const Expr *A16 = C.cast(Op::FPCast, A, F16), *B16 = C.cast(Op::FPCast, B, F16);
  EXPECT_FALSE(same(C.cast(Op::FPCast, add(A, B), F16),
                    C.floatBinary(Op::FAdd, A16, B16)));
  // 1/3 has no exact coefficient: a / 3 is an atom, not a * 0.333...
  EXPECT_FALSE(same(C.floatBinary(Op::FDiv, A, C.floatConst(F32, 3.0)),
                    mul(A, C.floatConst(F32, 1.0 / 3.0))));
}

TEST_F(Polynomial, AtomsHaveTheirOperandsInNormalForm) {
  const Expr *A = x("a", F32), *B = x("b", F32);
  const Expr *L[] = {add(A, B)}, *R[] = {add(B, A)};
  EXPECT_TRUE(same(C.call("exp", F32, L), C.call("exp", F32, R)));
  const Expr *Cond = C.fcmp(FCmpPredicate::Olt, A, B);
  EXPECT_TRUE(same(C.select(Cond, add(A, B), A), C.select(Cond, add(B, A), A)));
}

TEST_F(Polynomial, SumsInAnyOrderAreOneSumForm) {
  // A row's mean summed left to right and in a tree, then used in every
  // centred element: the sum forms meet, and the mean stays one term.
  const Expr *X[4];
  const char *Names[] = {"x0", "x1", "x2", "x3"};
  for (int I = 0; I < 4; ++I)
    X[I] = x(Names[I], F32);
  const Expr *Four = C.floatConst(F32, 4.0);
  const Expr *Left = X[0];
  for (int I = 1; I < 4; ++I)
    Left = add(Left, X[I]);
  const Expr *Tree = add(add(X[2], X[3]), add(X[1], X[0]));
  const Expr *MeanL = C.floatBinary(Op::FDiv, Left, Four),
             *MeanT = C.floatBinary(Op::FDiv, Tree, Four);
  auto Centred = [&](const Expr *Mean, int I) {
    return C.floatBinary(Op::FSub, X[I], Mean);
  };
  const Expr *VarL = C.floatConst(F32, 0.0), *VarT = nullptr;
  for (int I = 0; I < 4; ++I) {
    VarL = add(VarL, mul(Centred(MeanL, I), Centred(MeanL, I)));
    const Expr *Sq = mul(Centred(MeanT, 3 - I), Centred(MeanT, 3 - I));
    VarT = VarT ? add(Sq, VarT) : Sq;
  }
  EXPECT_EQ(Normal.sumForm(VarL), Normal.sumForm(VarT));
  const Expr *Form = Normal.sumForm(Centred(MeanL, 1));
  ASSERT_EQ(Form->op(), Op::FAdd); // x1 + (-mean): two terms
  EXPECT_EQ(Form->operand(0)->op() == Op::FNeg
                ? Form->operand(0)->operand(0)
                : Form->operand(1)->operand(0),
            Normal.sumForm(MeanT));
  // Signs, counts and constants: (a - b) + (b + a) + 1 - 1 is 2a.
  const Expr *A = x("a", F32), *B = x("b", F32);
  const Expr *One = C.floatConst(F32, 1.0);
  EXPECT_EQ(Normal.sumForm(C.floatBinary(
                Op::FSub,
                add(add(C.floatBinary(Op::FSub, A, B), add(B, A)), One), One)),
            mul(C.floatConst(F32, 2.0), A));
}

TEST_F(Polynomial, DifferentSumsHaveDifferentSumForms) {
  const Expr *A = x("a", F32), *B = x("b", F32), *D = x("d", F32);
  EXPECT_NE(Normal.sumForm(add(A, B)), Normal.sumForm(add(A, D)));
  EXPECT_NE(Normal.sumForm(C.floatBinary(Op::FSub, A, B)),
            Normal.sumForm(C.floatBinary(Op::FSub, B, A)));
  EXPECT_NE(Normal.sumForm(add(A, A)), Normal.sumForm(A));
  // Rounding between two sums is not undone: (a + b) rounded to f16, then
  // widened and added to d, is not a + b + d.
  const Expr *Rounded = C.cast(
      Op::FPCast, C.cast(Op::FPCast, add(A, B), F16), F32);
  EXPECT_NE(Normal.sumForm(add(Rounded, D)),
            Normal.sumForm(add(A, add(B, D))));
  // No constant scale enters a sum: (a + b) / 2 is not a/2 + b/2 here
  // (`polynomial` shows that one).
  const Expr *Two = C.floatConst(F32, 2.0);
  const Expr *Half = C.floatBinary(Op::FDiv, add(A, B), Two);
  const Expr *Halves = add(C.floatBinary(Op::FDiv, A, Two),
                           C.floatBinary(Op::FDiv, B, Two));
  EXPECT_NE(Normal.sumForm(Half), Normal.sumForm(Halves));
  EXPECT_TRUE(same(Half, Halves));
  // An infinite constant is not added up: x + inf - inf stays as it is.
  const Expr *Inf = C.floatConst(F32, INFINITY);
  const Expr *E = C.floatBinary(Op::FSub, add(A, Inf), Inf);
  EXPECT_NE(Normal.sumForm(E), A);
  // A count that is no value of the sum's type (4097 in f16) leaves the sum
  // as it is, terms and all.
  const Expr *H = x("h", F16), *Many = H;
  for (int I = 1; I < 4097; ++I)
    Many = add(Many, H);
  EXPECT_EQ(Normal.sumForm(Many), Many);
}

TEST_F(Polynomial, SoftmaxIsShiftInvariant) {
  // exp(x0 - m) / (exp(x0 - m) + exp(x1 - m)) against
  // exp(x0) / (exp(x0) + exp(x1)), m any value (the row max).
  const Expr *X0 = x("x0", F32), *X1 = x("x1", F32), *M = x("m", F32);
  auto Exp = [&](const Expr *A) {
    const Expr *Ops[] = {A};
    return C.call("exp", F32, Ops);
  };
  auto Sub = [&](const Expr *A, const Expr *B) {
    return C.floatBinary(Op::FSub, A, B);
  };
  auto Div = [&](const Expr *A, const Expr *B) {
    return C.floatBinary(Op::FDiv, A, B);
  };
  const Expr *Shifted =
      Div(Exp(Sub(X0, M)), add(Exp(Sub(X0, M)), Exp(Sub(X1, M))));
  const Expr *Plain = Div(Exp(X0), add(Exp(X0), Exp(X1)));
  auto Equal = [&](const Expr *A, const Expr *B) {
    return Normal.equalAsExpFractions(Normal.polynomial(A),
                                      Normal.polynomial(B));
  };
  EXPECT_TRUE(Equal(Shifted, Plain));
  EXPECT_TRUE(Equal(mul(Exp(X0), Exp(X1)), Exp(add(X1, X0))));
  EXPECT_TRUE(Equal(Div(Exp(X0), Exp(X1)), Exp(Sub(X0, X1))));
  // Not identities: exp(a) + exp(b) is not exp(a + b); a missing term in the
  // denominator; the shift applied to one side only.
  EXPECT_FALSE(Equal(add(Exp(X0), Exp(X1)), Exp(add(X0, X1))));
  EXPECT_FALSE(Equal(Plain, Div(Exp(X0), Exp(X1))));
  EXPECT_FALSE(
      Equal(Div(Exp(Sub(X0, M)), add(Exp(X0), Exp(X1))), Plain));
  // A divisor that may be zero is not cancelled: (a * b) / b is not a.
  EXPECT_FALSE(Equal(Div(mul(X0, X1), X1), X0));
  // One rounding to f16 of both (an f16 softmax computed in f32) is equal
  // where its operands are; two different roundings are not peeled.
  auto ToF16 = [&](const Expr *A,
                   RoundingMode M = RoundingMode::NearestEven) {
    const Expr *Ops[] = {A};
    return C.make(Op::FPCast, Ops, uint8_t(M), F16);
  };
  EXPECT_TRUE(Normal.equalAsPolynomials(ToF16(Shifted), ToF16(Plain)));
  EXPECT_FALSE(Normal.equalAsPolynomials(
      ToF16(Shifted), ToF16(Plain, RoundingMode::TowardZero)));
  EXPECT_FALSE(Normal.equalAsPolynomials(
      ToF16(Shifted), ToF16(Div(Exp(X0), Exp(X1)))));
}

} // namespace

namespace {

// Inductor guards a row maximum with `|m| == inf ? 0 : m`. Read for finite
// values, the comparison is decided (no real is infinite), in either
// operand order and for either infinity; read for proofs, it is kept.
TEST(InfiniteComparisons, DecidedOnlyWhereAsked) {
  Context C;
  Type F32 = Type::f32();
  const Expr *M = C.unary(Op::FAbs, C.symbol("m", F32));
  const Expr *Inf = C.floatConst(F32, INFINITY), *NegInf = C.floatConst(F32, -INFINITY);
  stages::RealNormalForm Finite(
      C, stages::RealNormalForm::Purpose::FindingDifferences);
  stages::RealNormalForm Proofs(C);
  auto Decided = [&](FCmpPredicate P, const Expr *A, const Expr *B) {
    const Expr *R = Finite.normalize(C.fcmp(P, A, B));
    EXPECT_TRUE(R->isConst()) << spelling(P);
    return R->isTrue();
  };
  EXPECT_FALSE(Decided(FCmpPredicate::Oeq, M, Inf));
  EXPECT_TRUE(Decided(FCmpPredicate::Une, M, Inf));
  EXPECT_TRUE(Decided(FCmpPredicate::Olt, M, Inf));
  EXPECT_FALSE(Decided(FCmpPredicate::Olt, Inf, M));
  EXPECT_TRUE(Decided(FCmpPredicate::Ogt, M, NegInf));
  EXPECT_TRUE(Decided(FCmpPredicate::Ult, NegInf, M));
  EXPECT_FALSE(Decided(FCmpPredicate::Uge, NegInf, M));
  const Expr *Guard = C.fcmp(FCmpPredicate::Oeq, M, Inf);
  EXPECT_EQ(Proofs.normalize(Guard), Guard);
  // A value that may itself be infinite (a quotient) is not decided.
  const Expr *Q = C.floatBinary(Op::FDiv, C.floatConst(F32, 1.0), C.symbol("d", F32));
  EXPECT_FALSE(Finite.normalize(C.fcmp(FCmpPredicate::Oeq, Q, Inf))->isConst());
}

} // namespace

namespace {

// No real is NaN, so a NaN test is decided for every purpose; rsqrt is a
// division of a square root over the reals, but not in the operands of a
// rounding model, where that would add two roundings the function lacks.
TEST(Purposes, NanTestsDecidedRsqrtKeptForTheRoundingModel) {
  Context C;
  Type F32 = Type::f32();
  const Expr *X = C.symbol("x", F32), *Y = C.symbol("y", F32);
  const Expr *Ops[] = {X};
  const Expr *Rsqrt = C.call("rsqrt", F32, Ops);
  stages::RealNormalForm Proofs(C);
  stages::RealNormalForm Model(C,
                               stages::RealNormalForm::Purpose::RoundingModel);
  // A kernel's maximum, `x > y || x != x ? x : y`.
  const Expr *Max = C.select(C.orOf(C.fcmp(FCmpPredicate::Ogt, X, Y),
                                    C.fcmp(FCmpPredicate::Une, X, X)),
                             X, Y);
  for (stages::RealNormalForm *N : {&Proofs, &Model}) {
    EXPECT_EQ(N->normalize(C.fcmp(FCmpPredicate::Ord, X, X)), C.trueExpr());
    EXPECT_EQ(N->normalize(C.fcmp(FCmpPredicate::Uno, X, X)), C.falseExpr());
    EXPECT_EQ(N->normalize(Max),
              N->normalize(C.select(C.fcmp(FCmpPredicate::Ogt, X, Y), X, Y)));
  }
  EXPECT_EQ(Proofs.normalize(Rsqrt)->op(), Op::FDiv);
  EXPECT_EQ(Model.normalize(Rsqrt), Rsqrt);
}

} // namespace

#include "ir/Interpreter.h"

#include <random>

namespace {

// An argmax as torch's reference folds it (left to right, i64 indices, the
// first maximum kept) and as a Triton reduction combines it (a tree of
// (value, i32 index) pairs, ties to the smaller index, NaN tests, the index
// widened through f32 at the end) meet in one node over the reals; kernels
// that break ties the other way, or pick the minimum, do not.
class ArgExtrema : public ::testing::Test {
protected:
  Context C;
  stages::RealNormalForm Normal{C};
  Type F32 = Type::f32(), I32 = Type::i(32), I64 = Type::i(64);
  std::vector<const Expr *> X;
  void SetUp() override {
    for (int K = 0; K < 8; ++K)
      X.push_back(C.symbol("x" + std::to_string(K), F32));
  }
  const Expr *isNan(const Expr *A) { return C.fcmp(FCmpPredicate::Une, A, A); }
  /// torch's fold: better = v > best || (isnan(v) && !isnan(best)).
  std::pair<const Expr *, const Expr *> referenceArgmax(size_t Count = 8) {
    const Expr *Best = X[0], *Where = C.intConst(I64, 0);
    for (size_t K = 1; K < Count; ++K) {
      const Expr *Better =
          C.orOf(C.fcmp(FCmpPredicate::Ogt, X[K], Best),
                 C.andOf(C.fcmp(FCmpPredicate::Uno, X[K], X[K]),
                         C.fcmp(FCmpPredicate::Ord, Best, Best)));
      Best = C.select(Better, X[K], Best);
      Where = C.select(Better, C.intConst(I64, int64_t(K)), Where);
    }
    return {Best, Where};
  }
  /// Triton's combine (inductor's argmax helper), as a tree; TieToLarger
  /// and Min make the wrong kernels.
  std::pair<const Expr *, const Expr *>
  combine(std::pair<const Expr *, const Expr *> A,
          std::pair<const Expr *, const Expr *> B, bool TieToLarger,
          bool Min) {
    auto [Va, Ia] = A;
    auto [Vb, Ib] = B;
    const Expr *Strict = C.fcmp(Min ? FCmpPredicate::Olt : FCmpPredicate::Ogt,
                                Va, Vb);
    const Expr *Mask = C.orOf(
        Strict, C.andOf(isNan(Va), C.notOf(isNan(Vb))));
    const Expr *Equal = C.orOf(C.fcmp(FCmpPredicate::Oeq, Va, Vb),
                               C.andOf(isNan(Va), isNan(Vb)));
    const Expr *Tie =
        C.icmp(TieToLarger ? ICmpPredicate::Sgt : ICmpPredicate::Slt, Ia, Ib);
    Mask = C.orOf(Mask, C.andOf(Equal, Tie));
    return {C.select(Mask, Va, Vb), C.select(Mask, Ia, Ib)};
  }
  /// Lanes from Padded on load -inf, the maximum's identity (masked).
  std::pair<const Expr *, const Expr *> kernelArgmax(bool TieToLarger = false,
                                                      bool Min = false,
                                                      size_t Padded = 8) {
    std::vector<std::pair<const Expr *, const Expr *>> Level;
    for (size_t K = 0; K < X.size(); ++K)
      Level.push_back({K < Padded ? X[K] : C.floatConst(F32, -INFINITY),
                       C.intConst(I32, int64_t(K))});
    while (Level.size() > 1) {
      std::vector<std::pair<const Expr *, const Expr *>> Next;
      for (size_t K = 0; K < Level.size(); K += 2)
        Next.push_back(combine(Level[K], Level[K + 1], TieToLarger, Min));
      Level = Next;
    }
    const Expr *AsFloat = C.cast(Op::SIToFP, Level[0].second, F32);
    return {Level[0].first,
            C.cast(Op::FPToSI, AsFloat, I64, RoundingMode::TowardZero)};
  }
  /// The node and its normal form agree on finite inputs with many ties.
  void agreesOnFiniteInputs(const Expr *E) {
    const Expr *N = Normal.normalize(E);
    std::mt19937 Rng(7);
    for (int Trial = 0; Trial < 200; ++Trial) {
      Env In;
      for (const Expr *S : X)
        In.setSymbol(S->name(), Value::ofDouble(F32, double(Rng() % 3) - 1));
      Interpreter A(In), B(In);
      EXPECT_EQ(A.eval(E).Bits, B.eval(N).Bits) << "trial " << Trial;
    }
  }
};

TEST_F(ArgExtrema, ReferenceFoldAndKernelTreeMeet) {
  auto [RefValue, RefIndex] = referenceArgmax();
  auto [Value, Index] = kernelArgmax();
  EXPECT_EQ(Normal.normalize(RefIndex), Normal.normalize(Index));
  EXPECT_EQ(Normal.normalize(RefValue), Normal.normalize(Value));
  EXPECT_GT(Normal.argExtremaFolded(), 0u);
  agreesOnFiniteInputs(RefIndex);
  agreesOnFiniteInputs(Index);
  agreesOnFiniteInputs(Value);
}

// cummax's index: ties go to the latest element (`v >= best`), as the
// kernel's combine does with `index > other index` on equal values.
TEST_F(ArgExtrema, TiesToTheLastIndexMeetTheirOwnFold) {
  const Expr *Best = X[0], *Where = C.intConst(I64, 0);
  for (size_t K = 1; K < X.size(); ++K) {
    const Expr *Replaces = C.fcmp(FCmpPredicate::Oge, X[K], Best);
    Best = C.select(Replaces, X[K], Best);
    Where = C.select(Replaces, C.intConst(I64, int64_t(K)), Where);
  }
  const Expr *Last = kernelArgmax(/*TieToLarger=*/true).second;
  EXPECT_EQ(Normal.normalize(Where), Normal.normalize(Last));
  EXPECT_NE(Normal.normalize(Where),
            Normal.normalize(referenceArgmax().second));
  agreesOnFiniteInputs(Where);
}

TEST_F(ArgExtrema, MaskedLanesOfTheIdentityDropOut) {
  // A row of 6 reduced in a block of 8: lanes 6 and 7 load -inf.
  const Expr *Padded = kernelArgmax(false, false, 6).second;
  EXPECT_EQ(Normal.normalize(Padded), Normal.normalize(referenceArgmax(6).second));
  EXPECT_NE(Normal.normalize(Padded), Normal.normalize(referenceArgmax(7).second));
  agreesOnFiniteInputs(Padded);
  // Lanes that may be -inf themselves (a load under a mask of its own) do
  // not let the padding drop: were they all -inf, the first padded lane
  // would be the answer.
  const Expr *M = C.symbol("m", Type::boolean());
  std::vector<std::pair<const Expr *, const Expr *>> Lanes, Kept;
  for (int K = 0; K < 8; ++K) {
    const Expr *V = K < 2 ? C.floatConst(F32, -INFINITY)
                          : C.select(M, X[K], C.floatConst(F32, -INFINITY));
    Lanes.push_back({V, C.intConst(I32, K)});
    if (K >= 2)
      Kept.push_back(Lanes.back());
  }
  auto Tree = [&](std::vector<std::pair<const Expr *, const Expr *>> Level) {
    while (Level.size() > 1) {
      std::vector<std::pair<const Expr *, const Expr *>> Next;
      for (size_t K = 0; K + 1 < Level.size(); K += 2)
        Next.push_back(combine(Level[K], Level[K + 1], false, false));
      if (Level.size() % 2)
        Next.push_back(Level.back());
      Level = Next;
    }
    return Level[0].second;
  };
  unsigned Before = Normal.argExtremaFolded();
  const Expr *KeptForm = Normal.normalize(Tree(Kept));
  EXPECT_GT(Normal.argExtremaFolded(), Before) << "the kept lanes are an arg-max";
  EXPECT_NE(Normal.normalize(Tree(Lanes)), KeptForm);
}

TEST_F(ArgExtrema, OtherTieBreaksAndMinimaStayApart) {
  const Expr *Ref = Normal.normalize(referenceArgmax().second);
  auto [LastValue, LastIndex] = kernelArgmax(/*TieToLarger=*/true);
  EXPECT_NE(Normal.normalize(LastIndex), Ref);
  // The maximum itself does not depend on the tie-break.
  EXPECT_EQ(Normal.normalize(LastValue), Normal.normalize(referenceArgmax().first));
  EXPECT_NE(Normal.normalize(kernelArgmax(false, /*Min=*/true).second), Ref);
  agreesOnFiniteInputs(LastIndex);
  agreesOnFiniteInputs(kernelArgmax(false, true).second);
  // One index used twice is no arg-extremum.
  auto A = combine({X[0], C.intConst(I32, 0)}, {X[1], C.intConst(I32, 1)},
                   false, false);
  auto B = combine({X[2], C.intConst(I32, 1)}, {X[3], C.intConst(I32, 3)},
                   false, false);
  const Expr *Twice = combine(A, B, false, false).second;
  const Expr *Fine =
      combine(A,
              combine({X[2], C.intConst(I32, 2)}, {X[3], C.intConst(I32, 3)},
                      false, false),
              false, false)
          .second;
  EXPECT_NE(Normal.normalize(Twice), Normal.normalize(Fine));
  agreesOnFiniteInputs(Twice);
}

} // namespace

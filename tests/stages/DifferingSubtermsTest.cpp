// Where two expressions differ (stages/DifferingSubterms.h): the places
// found are the mutated ones, and wherever the roots differ some place
// does, for every input at small widths (the implication the solver is
// given must hold).
#include "stages/DifferingSubterms.h"

#include "ir/Interpreter.h"
#include "ir/Text.h"
#include "smt/Solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace stagecheck;
using namespace stagecheck::ir;
using stages::differingLevels;
using stages::differingSubterms;
using stages::someSubtermDiffers;

namespace {

/// How many of Inputs make A and B differ; every one of them must make
/// Somewhere true (the implication the solver is given).
unsigned differingInputs(const Expr *A, const Expr *B, const Expr *Somewhere,
                         const std::vector<Env> &Inputs) {
  unsigned Differ = 0;
  for (const Env &E : Inputs) {
    Interpreter I(E);
    if (I.eval(A).Bits != I.eval(B).Bits) {
      ++Differ;
      std::string Shown;
      for (const auto &[Name, V] : E.symbols())
        Shown += Name + " = " + std::to_string(V.Bits) + " ";
      EXPECT_TRUE(I.eval(Somewhere).isTrue()) << Shown;
    }
  }
  return Differ;
}

/// Every pair of values of the symbols x and y of type T (at most 8 bits).
std::vector<Env> everyXAndY(Type T) {
  std::vector<Env> Inputs;
  for (uint64_t XV = 0; XV < (uint64_t(1) << T.bits()); ++XV)
    for (uint64_t YV = 0; YV < (uint64_t(1) << T.bits()); ++YV) {
      Env &E = Inputs.emplace_back();
      E.setSymbol("x", Value::ofBits(T, XV));
      E.setSymbol("y", Value::ofBits(T, YV));
    }
  return Inputs;
}

TEST(DifferingSubterms, AMutatedComparisonIsTheOnePlace) {
  Context C;
  Type T = Type::i(5);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T);
  auto K = [&](int64_t V) { return C.intConst(T, V); };
  auto Body = [&](ICmpPredicate P) {
    const Expr *Cond = C.icmp(P, X, K(5));
    return C.add(C.select(Cond, C.add(C.mul(X, K(3)), Y), C.sub(Y, X)), K(7));
  };
  const Expr *Lt = Body(ICmpPredicate::Ult), *Le = Body(ICmpPredicate::Ule);
  auto Places = differingSubterms(C, Lt, Le);
  ASSERT_TRUE(Places);
  ASSERT_EQ(Places->size(), 1u);
  // Not the constants the factory made of them (x <= 5 is x < 6).
  EXPECT_EQ((*Places)[0].first, C.icmp(ICmpPredicate::Ult, X, K(5)));
  EXPECT_EQ((*Places)[0].second, C.icmp(ICmpPredicate::Ule, X, K(5)));
  const Expr *Somewhere = someSubtermDiffers(C, Lt, Le);
  ASSERT_NE(Somewhere, nullptr);
  std::vector<Env> Inputs = everyXAndY(T);
  // The mutant is a real one: the check can fail.
  EXPECT_GT(differingInputs(Lt, Le, Somewhere, Inputs), 0u);
}

TEST(DifferingSubterms, AMaxPickingTheOtherOfEqualValues) {
  Context C;
  Type F = Type::f32();
  const Expr *A = C.symbol("a", F), *B = C.symbol("b", F), *D = C.symbol("d", F);
  auto Max = [&](FCmpPredicate P) {
    return C.binary(Op::FSub, D, C.select(C.fcmp(P, A, B), A, B));
  };
  const Expr *Gt = Max(FCmpPredicate::Ogt), *Ge = Max(FCmpPredicate::Oge);
  const Expr *Somewhere = someSubtermDiffers(C, Gt, Ge);
  ASSERT_NE(Somewhere, nullptr) << printExpr(Gt);
  const double Values[] = {0.0, -0.0, 1.0, -2.5, 1e30, NAN, INFINITY};
  std::vector<Env> Inputs;
  for (double AV : Values)
    for (double BV : Values)
      for (double DV : Values) {
        Env &E = Inputs.emplace_back();
        E.setSymbol("a", Value::ofDouble(F, AV));
        E.setSymbol("b", Value::ofDouble(F, BV));
        E.setSymbol("d", Value::ofDouble(F, DV));
      }
  // d - (+0) and d - (-0) differ at d = -0.
  EXPECT_GT(differingInputs(Gt, Ge, Somewhere, Inputs), 0u);
}

// The factory orders a commutative op's operands by node id: a changed
// operand created after the shared one moves to the other side, and the
// place is still the change, not both operand slots.
TEST(DifferingSubterms, AChangedOperandThatMovedSides) {
  Context C;
  Type F = Type::f32(), I = Type::i(32);
  const Expr *X = C.symbol("x", I), *Y = C.symbol("y", F);
  auto Converted = [&](RoundingMode M) {
    const Expr *Operands[] = {X};
    return C.make(Op::SIToFP, Operands, uint8_t(M), F);
  };
  // The shared constant is made between the two conversions.
  const Expr *ConvertedNear = Converted(RoundingMode::NearestEven);
  const Expr *K = C.floatConst(F, 0.6931472);
  const Expr *ConvertedZero = Converted(RoundingMode::TowardZero);
  const Expr *Near = C.fma(ConvertedNear, K, Y);
  const Expr *Zero = C.fma(ConvertedZero, K, Y);
  ASSERT_NE(Near->operand(0)->op(), Zero->operand(0)->op())
      << "the converted value does not move: nothing is tested";
  auto Places = differingSubterms(C, Near, Zero);
  ASSERT_TRUE(Places);
  ASSERT_EQ(Places->size(), 1u);
  EXPECT_EQ((*Places)[0].first->op(), Op::SIToFP);
  EXPECT_EQ((*Places)[0].second->op(), Op::SIToFP);
  const Expr *Somewhere = someSubtermDiffers(C, Near, Zero);
  ASSERT_NE(Somewhere, nullptr);
  const uint64_t Xs[] = {0, 1, 16777217, 16777219, 0x7fffffff, 0x80000001,
                         0xfffffffd, 123456789};
  const double Ys[] = {0.0, -0.0, 1.0, -3.5e9, 1e30, NAN};
  std::vector<Env> Inputs;
  for (uint64_t XV : Xs)
    for (double YV : Ys) {
      Env &E = Inputs.emplace_back();
      E.setSymbol("x", Value::ofBits(I, XV));
      E.setSymbol("y", Value::ofDouble(F, YV));
    }
  // 2^24 + 3 rounds up to nearest, down toward zero.
  EXPECT_GT(differingInputs(Near, Zero, Somewhere, Inputs), 0u);
}

TEST(DifferingLevels, EachLevelFollowsFromTheRootsDiffering) {
  // A place used twice: the level above holds both of its uses.
  Context C;
  Type T = Type::i(5);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T);
  auto K = [&](int64_t V) { return C.intConst(T, V); };
  auto Body = [&](ICmpPredicate P) {
    const Expr *Pick = C.select(C.icmp(P, X, K(5)), Y, K(3));
    return C.xorOf(C.add(C.mul(Pick, X), K(1)), C.mul(Pick, C.add(Y, K(2))));
  };
  const Expr *Lt = Body(ICmpPredicate::Ult), *Le = Body(ICmpPredicate::Ule);
  std::vector<const Expr *> Levels = differingLevels(C, Lt, Le, 5);
  // The comparison, the select, its two products; not the root.
  ASSERT_EQ(Levels.size(), 3u);
  EXPECT_EQ(Levels[0], someSubtermDiffers(C, Lt, Le));
  std::vector<Env> Inputs = everyXAndY(T);
  for (const Expr *Level : Levels)
    EXPECT_GT(differingInputs(Lt, Le, Level, Inputs), 0u);
}

TEST(DifferingLevels, AFlushedOperandIsShownHarmlessOneLevelUp) {
  // libdevice's erff step: an fma with the flush of its operand turned
  // around. Where they part (the operand flushed or not) they can differ,
  // for a subnormal square; one level up the product is absorbed by the
  // addend, for every input.
  Context C;
  Type F = Type::f32();
  auto K = [&](double V) { return C.floatConst(F, V); };
  const Expr *Y = C.symbol("y", F);
  const Expr *Abs = C.unary(Op::FAbs, Y);
  const Expr *Big = C.fcmp(FCmpPredicate::Oge, Abs, K(1.0));
  const Expr *B = C.select(Big, Abs, C.floatBinary(Op::FMul, Y, Y));
  const Expr *Flushed = C.unary(Op::FFlushSubnormal, B);
  const Expr *Addend = C.select(Big, K(0.62829983), K(0.12837915));
  const Expr *A = C.unary(Op::FFlushSubnormal,
                          C.fma(Flushed, K(0.11284), C.select(Big, K(0.9163), K(-0.3761))));
  auto Root = [&](const Expr *Operand) {
    const Expr *R = C.unary(Op::FFlushSubnormal, C.fma(A, Operand, Addend));
    return C.floatBinary(Op::FMul, R, R);
  };
  const Expr *WithFlush = Root(Flushed), *Without = Root(B);
  // The result's own flush is folded away: the sums' addends are large.
  ASSERT_NE(WithFlush->operand(0)->op(), Op::FFlushSubnormal);
  std::vector<const Expr *> Levels = differingLevels(C, WithFlush, Without);
  ASSERT_GE(Levels.size(), 2u);
  std::vector<Env> Inputs;
  const double Values[] = {0.0, -0.0, 1e-20, -3e-22, 1e-30, 2.0,
                           -7.5, 0.5, 1e-45, INFINITY, NAN};
  for (double V : Values)
    Inputs.emplace_back().setSymbol("y", Value::ofDouble(F, V));
  EXPECT_EQ(differingInputs(WithFlush, Without, Levels[1], Inputs), 0u);
  smt::SolverOptions O;
  EXPECT_EQ(smt::solve({"places", Levels[0], {}, smt::Mode::IEEE}, O).Kind,
            smt::Outcome::Counterexample);
  smt::QueryResult Up = smt::solve({"one level up", Levels[1], {}, smt::Mode::IEEE}, O);
  EXPECT_EQ(Up.Kind, smt::Outcome::Proved) << Up.Reason;
}

TEST(DifferingSubterms, NothingWhenTheRootsDifferOrThereAreTooMany) {
  Context C;
  Type T = Type::i(8);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T);
  // Different operations at the root: the root is the only place.
  EXPECT_FALSE(differingSubterms(C, C.add(X, Y), C.mul(X, Y)));
  EXPECT_EQ(someSubtermDiffers(C, C.add(X, Y), C.mul(X, Y)), nullptr);
  // The same node: no place, and nothing to add.
  auto Same = differingSubterms(C, C.add(X, Y), C.add(Y, X));
  ASSERT_TRUE(Same);
  EXPECT_TRUE(Same->empty());
  EXPECT_EQ(someSubtermDiffers(C, C.add(X, Y), C.add(Y, X)), nullptr);
  // Nine leaves changed, more than the limit of 8.
  const Expr *L = C.intConst(T, 0), *R = C.intConst(T, 0);
  for (int K = 0; K < 9; ++K) {
    L = C.mul(C.add(L, C.symbol("l" + std::to_string(K), T)), X);
    R = C.mul(C.add(R, C.symbol("r" + std::to_string(K), T)), X);
  }
  EXPECT_FALSE(differingSubterms(C, L, R));
  EXPECT_TRUE(differingSubterms(C, L, R, 9));
}

// A sum of two different computations, met in the other order on one
// side (so the factory put them the other way round): each is paired with
// the one it looks like, not with the one in the same slot.
TEST(DifferingSubterms, OperandsSharingNothingArePairedByLikeness) {
  Context C;
  Type T = Type::i(5);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T);
  auto K = [&](int64_t V) { return C.intConst(T, V); };
  const Expr *Product = C.mul(C.add(X, K(1)), X);
  const Expr *Difference = C.sub(C.mul(Y, K(3)), K(1));
  const Expr *Source = C.binary(Op::Xor, Product, Difference);
  const Expr *OtherDifference = C.sub(C.mul(Y, K(5)), K(1));
  const Expr *OtherProduct = C.mul(C.add(X, K(2)), X);
  const Expr *Target = C.binary(Op::Xor, OtherProduct, OtherDifference);
  ASSERT_EQ(Source->operand(0), Product);
  ASSERT_EQ(Target->operand(0), OtherDifference); // the other slot
  auto Places = differingSubterms(C, Source, Target);
  ASSERT_TRUE(Places);
  ASSERT_EQ(Places->size(), 2u);
  for (const auto &[A, B] : *Places)
    EXPECT_EQ(A->op(), B->op()) << printExpr(A) << "\nagainst\n" << printExpr(B);
  const Expr *Somewhere = someSubtermDiffers(C, Source, Target);
  ASSERT_NE(Somewhere, nullptr);
  EXPECT_GT(differingInputs(Source, Target, Somewhere, everyXAndY(T)), 0u);
}

} // namespace

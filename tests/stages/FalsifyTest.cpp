// Random testing finds the inputs that break kernels before the solver.
#include "stages/Falsify.h"

#include "ir/Interpreter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

/// Two f32 values differ bit for bit (the value query's question).
const Expr *bitsDiffer(Context &C, const Expr *A, const Expr *B) {
  return C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, A, Type::i(32)),
                C.cast(Op::Bitcast, B, Type::i(32)));
}

/// Testing finds an input, and the input makes the violation true.
void expectFalsified(const Expr *Violation, const stages::FalsifyOptions &O) {
  std::optional<Env> Found = stages::falsify(Violation, O);
  ASSERT_TRUE(Found);
  EXPECT_TRUE(Interpreter(*Found).eval(Violation).isTrue());
}

/// max(a, b) as `a > b ? a : b` against `a >= b ? a : b`, over eight
/// elements: the two differ only when they meet +0 and -0, which ordinary
/// draws never give (the signed-zero trials do).
TEST(Falsify, FindsTheSignOfZeroThatAMaxPicks) {
  Context C;
  Type F = Type::f32();
  auto Max = [&](FCmpPredicate P, const Expr *A, const Expr *B) {
    return C.select(C.fcmp(P, A, B), A, B);
  };
  const Expr *Strict = nullptr, *Loose = nullptr;
  for (int I = 0; I < 8; ++I) {
    const Expr *X = C.read("x", F, C.intConst(Type::i(64), I));
    Strict = Strict ? Max(FCmpPredicate::Ogt, Strict, X) : X;
    Loose = Loose ? Max(FCmpPredicate::Oge, Loose, X) : X;
  }
  const Expr *Differ = bitsDiffer(C, Strict, Loose);
  stages::FalsifyOptions O;
  O.Trials = 16; // one round of every kind of trial
  expectFalsified(Differ, O);
}

/// A running log-sum-exp's combine, m + log1p(exp(-|a - b|)) with m the
/// larger, whose special case (two equal infinities: keep m, not the NaN
/// of inf - inf) is tested with `m == min` (oeq), against the same
/// combine with that test turned into `m != min` (one), over six
/// elements: they differ where some two elements met are equal
/// infinities. Per element, an infinity is one draw in 28, so four in a
/// row almost never come; the uniform trials fill every element with it.
TEST(Falsify, FillsEveryElementWithOneInfinity) {
  Context C;
  Type F = Type::f32();
  auto Combine = [&](bool Turned, const Expr *A, const Expr *B) {
    const Expr *Larger = C.select(C.fcmp(FCmpPredicate::Ogt, A, B), A, B);
    const Expr *Smaller = C.select(C.fcmp(FCmpPredicate::Olt, A, B), A, B);
    const Expr *Special =
        C.andOf(C.fcmp(Turned ? FCmpPredicate::One : FCmpPredicate::Oeq,
                       Larger, Smaller),
                C.fcmp(FCmpPredicate::Oeq, C.unary(Op::FAbs, Larger),
                       C.floatConst(F, INFINITY)));
    const Expr *Formula = C.floatBinary(
        Op::FAdd, Larger,
        C.call("log1p", F,
               std::vector<const Expr *>{C.call(
                   "exp", F,
                   std::vector<const Expr *>{
                       C.floatBinary(Op::FSub, Smaller, Larger)})}));
    return C.select(Special, Larger, Formula);
  };
  const Expr *Kept = nullptr, *Turned = nullptr;
  for (int I = 0; I < 6; ++I) {
    const Expr *X = C.read("x", F, C.intConst(Type::i(64), I));
    Kept = Kept ? Combine(false, Kept, X) : X;
    Turned = Turned ? Combine(true, Turned, X) : X;
  }
  stages::FalsifyOptions O;
  O.Trials = 32; // one uniform trial
  expectFalsified(bitsDiffer(C, Kept, Turned), O);
}

/// A store of elements e < n, for all 0 <= e < 256, that goes wrong for
/// small sizes only (1 <= n <= 8, the sizes a trip-count case allows):
/// an element drawn anywhere in 256 is almost never below such a size, so
/// trials also place it on the first element and the first few.
TEST(Falsify, ReachesAnElementThatASmallSizeStillWrites) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *E = C.symbol("e", I32, SymbolRole::Free);
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *Violation = C.andOf(
      C.icmp(ICmpPredicate::Slt, E, N),
      C.andOf(C.icmp(ICmpPredicate::Sle, N, C.intConst(I32, 8)),
              C.icmp(ICmpPredicate::Sle, C.intConst(I32, 1), N)));
  stages::FalsifyOptions O;
  O.Trials = 32;
  O.Ranges.push_back({E, 256});
  expectFalsified(Violation, O);
}

/// `cvt.rz.f32.s32` where `cvt.rn` was meant, of a size the assumptions
/// keep within [0, 2^25]: the two agree on every integer up to 2^24, and
/// random draws (small values, the limits, any 32 bits) almost never land
/// in that range where they part; trials place an integer that reaches a
/// conversion just past the float's exact range.
TEST(Falsify, FindsWhereAnIntToFloatRoundingPartsFromNearest) {
  Context C;
  Type I32 = Type::i(32), F32 = Type::f32();
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  auto Converted = [&](RoundingMode M) {
    return C.cast(Op::Bitcast, C.cast(Op::SIToFP, N, F32, M), I32);
  };
  const Expr *Size =
      C.andOf(C.icmp(ICmpPredicate::Sle, C.intConst(I32, 0), N),
              C.icmp(ICmpPredicate::Sle, N, C.intConst(I32, 1 << 25)));
  const Expr *Violation = C.andOf(
      Size, C.icmp(ICmpPredicate::Ne, Converted(RoundingMode::NearestEven),
                   Converted(RoundingMode::TowardZero)));
  stages::FalsifyOptions O;
  O.Trials = 32;
  expectFalsified(Violation, O);
}

/// A sum of 256 inputs folded left to right against the same sum as a
/// pairwise tree: equal for small dyadic inputs (every partial sum exact),
/// while wild draws put an infinity or a NaN into nearly every trial, on
/// both sides. Ordinary inputs with full mantissas show the rounding.
TEST(Falsify, ShowsALargeSumAssociatedOtherwise) {
  Context C;
  Type F = Type::f32();
  std::vector<const Expr *> X;
  for (int I = 0; I < 256; ++I)
    X.push_back(C.read("x", F, C.intConst(Type::i(64), I)));
  const Expr *Folded = X[0];
  for (size_t I = 1; I < X.size(); ++I)
    Folded = C.floatBinary(Op::FAdd, Folded, X[I]);
  std::vector<const Expr *> Tree = X;
  while (Tree.size() > 1) {
    std::vector<const Expr *> Next;
    for (size_t I = 0; I < Tree.size(); I += 2)
      Next.push_back(C.floatBinary(Op::FAdd, Tree[I], Tree[I + 1]));
    Tree = Next;
  }
  const Expr *Differ = bitsDiffer(C, Folded, Tree[0]);
  stages::FalsifyOptions O;
  O.Trials = 64;
  expectFalsified(Differ, O);
}

/// A base model meets the launch assumptions (here n = 12345, which no
/// random draw gives) but its float scalars are whatever the solver picked:
/// a NaN scale that every output would carry. Half of the trials from the
/// base keep its sizes and draw the floats afresh.
TEST(Falsify, TakesSizesFromTheBaseAndDrawsItsFloatsAfresh) {
  Context C;
  Type I32 = Type::i(32), F32 = Type::f32();
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *Scale = C.symbol("scale", F32, SymbolRole::Param);
  const Expr *Violation =
      C.andOf(C.icmp(ICmpPredicate::Eq, N, C.intConst(I32, 12345)),
              C.fcmp(FCmpPredicate::Ord, Scale, Scale));
  stages::FalsifyOptions O;
  O.Trials = 16;
  O.Base.setSymbol("n", Value::ofBits(I32, 12345));
  O.Base.setSymbol("scale", Value::ofBits(F32, 0x7fc00000)); // NaN
  expectFalsified(Violation, O);
}

/// A dot product of 256 elements (the source's) and the same whose target
/// also reads element k = n (a mask one too wide) and multiplies it by the
/// zero a masked load gives the other operand: equal on every finite input.
struct WideMaskDot {
  const Expr *Source = nullptr, *Target = nullptr;
  explicit WideMaskDot(Context &C) {
    Type F32 = Type::f32(), I64 = Type::i(64);
    for (int K = 0; K < 256; ++K) {
      const Expr *Product =
          C.floatBinary(Op::FMul, C.read("a", F32, C.intConst(I64, K)),
                        C.read("b", F32, C.intConst(I64, K)));
      Source = Source ? C.floatBinary(Op::FAdd, Source, Product) : Product;
    }
    const Expr *Extra =
        C.floatBinary(Op::FMul, C.read("a", F32, C.intConst(I64, 256)),
                      C.floatConst(F32, 0.0));
    Target = C.floatBinary(Op::FAdd, Source, Extra);
  }
};

/// Wild draws put an infinity or a NaN among the 256 shared reads too,
/// tame ones never reach the extra one; trials that give what only the
/// target reads an infinity show it (in the first 16 trials). A uniform
/// trial, every element one infinity, shows it too, later.
TEST(Falsify, PoisonsWhatOnlyTheTargetReads) {
  Context C;
  WideMaskDot Dot(C);
  const Expr *Differ = bitsDiffer(C, Dot.Source, Dot.Target);
  stages::FalsifyOptions O;
  O.Trials = 16;
  EXPECT_FALSE(stages::falsify(Differ, O)) << "found without the source side";
  stages::FalsifyOptions Poisoning = O;
  Poisoning.SourceSide = {Dot.Source};
  expectFalsified(Differ, Poisoning);
  O.Trials = 32;
  expectFalsified(Differ, O);
}

/// As above, where the source's side also tests a size the violation no
/// longer mentions (its guard was proved equal on both sides): the source
/// side is evaluated alone, so that size needs a value too.
TEST(Falsify, PoisonsWhenTheSourceSideTestsItsOwnSize) {
  Context C;
  Type I32 = Type::i(32);
  WideMaskDot Dot(C);
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *Guard = C.icmp(ICmpPredicate::Sgt, N, C.intConst(I32, 0));
  stages::FalsifyOptions O;
  O.Trials = 64;
  O.SourceSide = {Guard, Dot.Source};
  expectFalsified(bitsDiffer(C, Dot.Source, Dot.Target), O);
}

/// The base launch has n = 64, where a mask `k <= n` one too wide reads
/// past the 64 elements only at sizes that are not a multiple of 32:
/// trials from the base that poison what only the target reads also move
/// the sizes a step either side.
TEST(Falsify, TriesSizesNextToTheBase) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *Stride = C.symbol("stride", I32, SymbolRole::Param);
  auto Holds = [&](ICmpPredicate P, const Expr *A, int64_t B) {
    return C.icmp(P, A, C.intConst(I32, B));
  };
  const Expr *Unaligned = Holds(ICmpPredicate::Ne,
                                C.binary(Op::And, N, C.intConst(I32, 31)), 0);
  const Expr *Violation = C.andOf(
      C.andOf(Unaligned, Holds(ICmpPredicate::Eq, Stride, 64)),
      C.andOf(Holds(ICmpPredicate::Sgt, N, 32), Holds(ICmpPredicate::Sle, N, 96)));
  stages::FalsifyOptions O;
  O.Trials = 256;
  O.SourceSide = {Stride}; // sizes move in the trials that poison
  O.Base.setSymbol("n", Value::ofBits(I32, 64));
  O.Base.setSymbol("stride", Value::ofBits(I32, 64));
  expectFalsified(Violation, O);
}

/// A row of at most four blocks of 256 (a loop's trip count bound, as the
/// check assumes it) that goes wrong from its third block on. A model of
/// the bound alone gives a row of 0, which runs no block, and wild sizes
/// break the bound: trials set the size at the bound's constants and just
/// below them.
TEST(Falsify, SetsSizesAtTheConstantsTheyAreComparedWith) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *Blocks = C.trueExpr();
  for (int64_t Start : {1, 257, 513, 769, 1025})
    Blocks = C.andOf(Blocks, C.icmp(ICmpPredicate::Sle, C.intConst(I32, Start), N));
  const Expr *Bound = C.notOf(Blocks);
  const Expr *Violation = C.andOf(
      C.andOf(Bound, C.icmp(ICmpPredicate::Sge, N, C.intConst(I32, 513))),
      C.icmp(ICmpPredicate::Eq, C.binary(Op::And, N, C.intConst(I32, 3)),
             C.intConst(I32, 0)));
  stages::FalsifyOptions O;
  O.Trials = 128;
  O.Base.setSymbol("n", Value::ofBits(I32, 0));
  expectFalsified(Violation, O);
}

/// A launch of 1000 programs whose last program goes wrong: wild program
/// ids are almost never below the grid, let alone its last one, so trials
/// draw ids within the grid the trial has, its edges among them.
TEST(Falsify, DrawsProgramIdsWithinTheGrid) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *Pid = C.symbol("pid.x", I32, SymbolRole::ProgramId);
  const Expr *Grid = C.symbol("nprog.x", I32, SymbolRole::NumPrograms);
  const Expr *Violation =
      C.andOf(C.icmp(ICmpPredicate::Eq, Grid, C.intConst(I32, 1000)),
              C.icmp(ICmpPredicate::Eq, Pid, C.intConst(I32, 999)));
  stages::FalsifyOptions O;
  O.Trials = 32;
  O.Base.setSymbol("nprog.x", Value::ofBits(I32, 1000));
  expectFalsified(Violation, O);
}

/// A pointwise kernel's assumptions (a size divisible by 16, the program's
/// offsets within i32) are met by testing, with no solver asked.
TEST(SatisfyByTesting, MeetsALaunchsAssumptions) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *N = C.symbol("arg2", I32, SymbolRole::Param);
  const Expr *Pid = C.symbol("pid.x", I32, SymbolRole::ProgramId);
  const Expr *Divisible = C.icmp(
      ICmpPredicate::Eq, C.binary(Op::SRem, N, C.intConst(I32, 16)),
      C.intConst(I32, 0));
  const Expr *Within = C.icmp(
      ICmpPredicate::Slt,
      C.add(C.mul(Pid, C.intConst(I32, 128)), C.intConst(I32, 127)),
      C.intConst(I32, 1 << 30));
  const Expr *Positive = C.icmp(ICmpPredicate::Sgt, N, C.intConst(I32, 0));
  const Expr *All = C.andOf(C.andOf(Divisible, Within), Positive);
  std::optional<Env> Model =
      stages::satisfyByTesting(All, stages::AssumptionTestingMs);
  ASSERT_TRUE(Model);
  EXPECT_TRUE(Interpreter(*Model).eval(All).isTrue());
  EXPECT_NE(Model->symbol("pid.x")->Bits, 0u); // not the first program alone
}

/// A launch the program is specialized on (a size and the grid pinned to
/// their captured values) with a shared window's aligned base and the
/// program within the grid, which random draws rarely meet all at once:
/// met (by the least launch with the pinned values, if not by testing).
TEST(SatisfyByTesting, MeetsPinnedValues) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *N = C.symbol("arg2", I32, SymbolRole::Param);
  const Expr *Grid = C.symbol("nprog.x", I32, SymbolRole::NumPrograms);
  const Expr *Pid = C.symbol("pid.x", I32, SymbolRole::ProgramId);
  const Expr *Smem = C.symbol("smem", I32);
  const Expr *All = C.trueExpr();
  for (const Expr *A :
       {C.eq(N, C.intConst(I32, 1000)), C.eq(Grid, C.intConst(I32, 8)),
        C.icmp(ICmpPredicate::Slt, Pid, Grid),
        C.icmp(ICmpPredicate::Sle, C.intConst(I32, 0), Pid),
        C.eq(C.andOf(Smem, C.intConst(I32, 15)), C.intConst(I32, 0))})
    All = C.andOf(All, A);
  std::optional<Env> Model =
      stages::satisfyByTesting(All, stages::AssumptionTestingMs);
  ASSERT_TRUE(Model);
  EXPECT_TRUE(Interpreter(*Model).eval(All).isTrue());
  EXPECT_EQ(Model->symbol("arg2")->asSigned(), 1000);
}

/// Assumptions nothing meets give no model: the caller then asks the
/// solver, which says so.
TEST(SatisfyByTesting, FindsNothingWhereNothingMeetsTheAssumptions) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *N = C.symbol("arg2", I32, SymbolRole::Param);
  const Expr *All =
      C.andOf(C.icmp(ICmpPredicate::Sgt, N, C.intConst(I32, 4)),
              C.icmp(ICmpPredicate::Slt, N, C.intConst(I32, 5)));
  EXPECT_FALSE(stages::satisfyByTesting(All, stages::AssumptionTestingMs));
}

/// Testing stops at its work limit, whatever the clock says: a limit of
/// ten trials' work makes ten trials, and reports that much work spent.
TEST(Falsify, TheTrialsMadeAreSetByWorkNotTime) {
  Context C;
  const Expr *X = C.read("x", Type::f32(), C.intConst(Type::i(64), 0));
  // Never true: x equal to itself and a NaN.
  const Expr *Violation = C.andOf(C.fcmp(FCmpPredicate::Oeq, X, X),
                                  C.fcmp(FCmpPredicate::Uno, X, X));
  ASSERT_FALSE(Violation->isFalse()) << "folded: no trial would run";
  uint64_t PerTrial = postOrder(std::span<const Expr *const>(&Violation, 1)).size();
  stages::FalsifyOptions O;
  O.Trials = 256;
  O.WorkLimit = 10 * PerTrial;
  uint64_t Spent = 0;
  O.WorkSpent = &Spent;
  EXPECT_FALSE(stages::falsify(Violation, O));
  EXPECT_EQ(Spent, 10 * PerTrial);
  O.WorkLimit.reset();
  Spent = 0;
  EXPECT_FALSE(stages::falsify(Violation, O));
  EXPECT_EQ(Spent, 256 * PerTrial);
}

/// A counterexample's input is shrunk within a budget of work, so a report
/// prints the same numbers on a busy machine as on an idle one. A sum of
/// 20000 elements is more than the budget lets shrinking try every element
/// of; with a budget of time, every core busy would have let it try fewer.
TEST(Shrink, TheShrunkInputDoesNotDependOnTheMachinesLoad) {
  constexpr int Elements = 20000;
  Context C;
  Type F = Type::f32();
  const Expr *Sum = nullptr;
  for (int I = 0; I < Elements; ++I) {
    const Expr *X = C.read("x", F, C.intConst(Type::i(64), I));
    Sum = Sum ? C.floatBinary(Op::FAdd, Sum, X) : X;
  }
  const Expr *Violation =
      C.fcmp(FCmpPredicate::Ogt, Sum, C.floatConst(F, 1.0));
  Env Failing;
  for (int I = 0; I < Elements; ++I)
    Failing.setRead("x", I, Value::ofDouble(F, 1.5 + I % 7));
  Env Idle = stages::shrink(Violation, Failing);

  std::atomic<bool> Stop = false;
  std::vector<std::thread> Busy;
  for (unsigned I = 0; I < std::max(2u, std::thread::hardware_concurrency()); ++I)
    Busy.emplace_back([&] {
      while (!Stop)
        ;
    });
  Env Loaded = stages::shrink(Violation, Failing);
  Stop = true;
  for (std::thread &T : Busy)
    T.join();

  ASSERT_TRUE(Interpreter(Idle).eval(Violation).isTrue());
  size_t Zeroed = 0;
  for (const auto &[Key, V] : Idle.reads())
    Zeroed += V.Bits == 0;
  EXPECT_GT(Zeroed, 0u) << "nothing was shrunk";
  ASSERT_EQ(Idle.reads().size(), Loaded.reads().size());
  for (const auto &[Key, V] : Idle.reads()) {
    const Value *L = Loaded.read(Key.first, Key.second);
    ASSERT_TRUE(L);
    EXPECT_EQ(V.Bits, L->Bits) << Key.first << "[" << Key.second << "]";
  }
}

} // namespace

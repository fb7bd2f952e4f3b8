// Splitting a query on the uniform branch conditions (stages/CaseSplit.h):
// where the two sides merge a loop's exits in different places, the cases
// fold to equal nodes; where a condition is not uniform the query is asked
// whole; a case that differs still gives a model of the original query.
#include "stages/CaseSplit.h"

#include "ir/Interpreter.h"
#include "stages/llir_to_ptx.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

struct LoopExits : testing::Test {
  Context C;
  Type I32 = Type::i(32), F32 = Type::f32();
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *Tid = C.symbol("tid.x", I32, SymbolRole::ThreadId);
  const Expr *A = C.symbol("a", F32), *B = C.symbol("b", F32),
             *D = C.symbol("d", F32);

  const Expr *i32(int64_t V) { return C.intConst(I32, V); }
  const Expr *add(const Expr *X, const Expr *Y) {
    return C.floatBinary(Op::FAdd, X, Y);
  }
  const Expr *differ(const Expr *X, const Expr *Y) {
    Type Bits = Type::i(32);
    return C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, X, Bits),
                  C.cast(Op::Bitcast, Y, Bits));
  }
  /// An accumulator after one, two and three iterations.
  const Expr *acc(unsigned K) {
    const Expr *S = A;
    if (K >= 2)
      S = add(S, B);
    if (K >= 3)
      S = add(S, D);
    return S;
  }
  /// sum(acc) as the exit block computes it.
  const Expr *sum(const Expr *X) {
    return add(X, C.floatBinary(Op::FMul, X, X));
  }
  smt::SolverOptions solver() {
    smt::SolverOptions S;
    S.TimeoutMs = 10000;
    return S;
  }
};

// The LLVM IR's `n < 257 ? sum(acc1) : n < 513 ? sum(acc2) : sum(acc3)`
// against the PTX's `sum(n >= 513 ? acc3 : n >= 257 ? acc2 : acc1)`.
TEST_F(LoopExits, ExitsMergedInDifferentPlacesFoldCaseByCase) {
  const Expr *Ir =
      C.select(C.icmp(ICmpPredicate::Slt, N, i32(257)), sum(acc(1)),
               C.select(C.icmp(ICmpPredicate::Slt, N, i32(513)), sum(acc(2)),
                        sum(acc(3))));
  const Expr *Ptx = sum(C.select(
      C.icmp(ICmpPredicate::Sge, N, i32(513)), acc(3),
      C.select(C.icmp(ICmpPredicate::Sge, N, i32(257)), acc(2), acc(1))));
  ASSERT_NE(Ir, Ptx);
  // n < 257 and n < 513 (the Context may spell n >= 513 as their negation).
  EXPECT_GE(stages::uniformBranchConditions(differ(Ir, Ptx)).size(), 2u);

  stages::CaseSplitStats Stats;
  smt::QueryResult R = stages::solveByCases(
      C, {"exits", differ(Ir, Ptx), {}, smt::Mode::IEEE}, solver(), {}, &Stats);
  EXPECT_EQ(R.Kind, smt::Outcome::Proved) << R.Reason;
  // Every feasible case folded: no float arithmetic reached the solver.
  EXPECT_EQ(Stats.Solved, 0u);
  EXPECT_GE(Stats.Folded, 3u);
}

// Off by one iteration in one case: the case's model is a model of the
// whole query.
TEST_F(LoopExits, ACaseThatDiffersGivesAModelOfTheWholeQuery) {
  const Expr *Ir = C.select(C.icmp(ICmpPredicate::Slt, N, i32(257)),
                            sum(acc(1)), sum(acc(2)));
  const Expr *Ptx =
      sum(C.select(C.icmp(ICmpPredicate::Sge, N, i32(513)), acc(2), acc(1)));
  const Expr *Violation = differ(Ir, Ptx);
  stages::CaseSplitStats Stats;
  smt::QueryResult R = stages::solveByCases(
      C, {"exits", Violation, {}, smt::Mode::IEEE}, solver(), {}, &Stats);
  ASSERT_EQ(R.Kind, smt::Outcome::Counterexample) << R.Reason;
  Env E = R.Model;
  for (const char *S : {"a", "b", "d"})
    if (!E.symbol(S))
      E.setSymbol(S, Value::ofDouble(F32, 0));
  EXPECT_TRUE(Interpreter(E).eval(Violation).isTrue());
  int64_t Trips = Value::ofBits(I32, E.symbol("n")->Bits).asSigned();
  EXPECT_GE(Trips, 257);
  EXPECT_LT(Trips, 513);
}

// A condition on the thread id, on loaded data or on a float is no uniform
// branch: nothing is split and the query is asked whole.
TEST_F(LoopExits, ConditionsThatAreNotUniformAreNotSplit) {
  const Expr *ByThread = C.icmp(ICmpPredicate::Slt, Tid, N);
  const Expr *ByData = C.icmp(ICmpPredicate::Slt,
                              C.read("x", I32, C.intConst(Type::i(64), 0)), N);
  const Expr *ByFloat = C.fcmp(FCmpPredicate::Olt, A, B);
  const Expr *X = C.symbol("x", I32), *Y = C.symbol("y", I32),
             *Z = C.symbol("z", I32);
  for (const Expr *Cond : {ByThread, ByData, ByFloat}) {
    const Expr *Ir = C.select(Cond, C.add(X, Y), C.add(X, Z));
    const Expr *Ptx = C.add(X, C.select(Cond, Y, Z));
    const Expr *Violation = C.icmp(ICmpPredicate::Ne, Ir, Ptx);
    EXPECT_TRUE(stages::uniformBranchConditions(Violation).empty());
    stages::CaseSplitStats Stats;
    smt::QueryResult R = stages::solveByCases(
        C, {"whole", Violation, {}, smt::Mode::IEEE}, solver(), {}, &Stats);
    EXPECT_EQ(R.Kind, smt::Outcome::Proved) << R.Reason;
    EXPECT_EQ(Stats.Solved, 1u);
    EXPECT_EQ(Stats.Folded + Stats.Infeasible, 0u);
  }
}

// A uniform comparison that no select branches on (a guard, an operand) is
// no case to split on either.
TEST_F(LoopExits, OnlyWhatSelectsBranchOnIsSplit) {
  const Expr *Guard = C.icmp(ICmpPredicate::Slt, i32(0), N);
  const Expr *Violation = C.andOf(Guard, differ(add(A, B), add(B, A)));
  EXPECT_TRUE(stages::uniformBranchConditions(Violation).empty());
  const Expr *Branch = C.select(Guard, A, B);
  EXPECT_EQ(stages::uniformBranchConditions(differ(Branch, D)).size(), 1u);
}

TEST_F(LoopExits, SubstitutionReplacesOnlyThatNode) {
  const Expr *Lt = C.icmp(ICmpPredicate::Slt, N, i32(257));
  const Expr *Lt2 = C.icmp(ICmpPredicate::Slt, N, i32(513));
  const Expr *E = C.select(Lt, A, C.select(Lt2, B, D));
  EXPECT_EQ(stages::substitute(C, E, Lt, true), A);
  EXPECT_EQ(stages::substitute(C, E, Lt, false), C.select(Lt2, B, D));
  EXPECT_EQ(stages::substitute(C, E, Lt2, true), C.select(Lt, A, B));
  // Not a node of E: nothing changes.
  EXPECT_EQ(
      stages::substitute(C, E, C.icmp(ICmpPredicate::Slt, N, i32(9)), true), E);
}

} // namespace

namespace {

using stagecheck::ptx::Exchange;

struct Rewrites : testing::Test {
  Context C;
  Type I32 = Type::i(32), F32 = Type::f32();
  const Expr *N = C.symbol("n", I32, SymbolRole::Param);
  const Expr *i32(int64_t V) { return C.intConst(I32, V); }
  smt::SolverOptions solver() {
    smt::SolverOptions S;
    S.TimeoutMs = 10000;
    return S;
  }
};

// `shl nsw (n + 31) / 32, 1` cannot overflow for any i32 n, so the LLVM
// IR's `no overflow ? x << 1 : freeze` is x << 1; n < 100 is fixed only
// under an assumption that fixes it; a condition both ways is not fixed.
TEST_F(Rewrites, ConditionsTheAssumptionsFix) {
  const Expr *Blocks = C.binary(Op::SDiv, C.add(N, i32(31)), i32(32));
  const Expr *Doubled = C.binary(Op::Shl, Blocks, i32(1));
  const Expr *NoOverflow = C.eq(C.binary(Op::AShr, Doubled, i32(1)), Blocks);
  const Expr *Small = C.icmp(ICmpPredicate::Slt, N, i32(100));
  const Expr *Big = C.icmp(ICmpPredicate::Slt, i32(200), N);
  std::vector<const Expr *> Conditions = {NoOverflow, Small, Big};

  auto Fixed = stages::fixedConditions(C, Conditions, {}, solver());
  ASSERT_EQ(Fixed.size(), 1u);
  EXPECT_EQ(Fixed[0].first, NoOverflow);
  EXPECT_TRUE(Fixed[0].second);

  std::vector<const Expr *> Assume = {C.icmp(ICmpPredicate::Slt, N, i32(50))};
  Fixed = stages::fixedConditions(C, Conditions, Assume, solver());
  ASSERT_EQ(Fixed.size(), 3u);
  EXPECT_TRUE(Fixed[1].second);  // n < 100
  EXPECT_FALSE(Fixed[2].second); // 200 < n
}

// A shuffle proved alike: the PTX's word and the float under its bitcast
// become the LLVM IR's; of a conditional exchange only the guard.
TEST_F(Rewrites, ExchangeOperandsReplacedOnlyWhenUnconditional) {
  const Expr *A = C.symbol("a", F32), *B = C.symbol("b", F32);
  const Expr *SumS = C.floatBinary(Op::FAdd, A, B);
  const Expr *SumT2 = C.floatBinary(Op::FAdd, B, C.floatBinary(Op::FMul, A, A));
  Exchange S{"shfl.bfly",
             C.trueExpr(),
             {C.cast(Op::Bitcast, SumS, I32), i32(16)},
             {},
             {}};
  Exchange T{"shfl.bfly",
             C.trueExpr(),
             {C.cast(Op::Bitcast, SumT2, I32), i32(16)},
             {},
             {}};
  auto Map = stages::exchangeReplacements(S, T);
  EXPECT_EQ(Map.size(), 2u);
  EXPECT_EQ(Map.at(T.Operands[0]), S.Operands[0]);
  EXPECT_EQ(Map.at(SumT2), SumS);
  EXPECT_FALSE(Map.count(T.Operands[1])); // constants are never keys

  const Expr *GS = C.icmp(ICmpPredicate::Slt, C.symbol("tid.x", I32), N);
  const Expr *GT = C.icmp(ICmpPredicate::Slt, C.symbol("lane", I32), N);
  S.Guard = GS;
  T.Guard = GT;
  Map = stages::exchangeReplacements(S, T);
  ASSERT_EQ(Map.size(), 1u);
  EXPECT_EQ(Map.at(GT), GS);
}

} // namespace

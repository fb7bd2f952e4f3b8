// Equalities proved under one assumption list are reused under another only
// where the assumptions connected to them are the same nodes and the old
// list was satisfiable (stages/Unify.h, ProvedEqualities).
#include "stages/Unify.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;
using stages::proveEqual;
using stages::ProvedEqualities;

namespace {

struct ProvedEqualitiesTest : ::testing::Test {
  Context C;
  Type T = Type::i(8);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T), *Z = C.symbol("z", T);
  const Expr *k(uint64_t V) { return C.intConst(T, V); }
  const Expr *ult(const Expr *A, const Expr *B) {
    return C.icmp(ICmpPredicate::Ult, A, B);
  }
  // x urem 8 == x needs x < 8, nothing of y.
  ProvedEqualities::Pair OfX{C.binary(Op::URem, X, k(8)), X};
  // y + 1 == 4 needs y == 3.
  ProvedEqualities::Pair OfY{C.add(Y, k(1)), k(4)};
};

TEST_F(ProvedEqualitiesTest, ReusedWhereTheConnectedAssumptionsAreTheSame) {
  ProvedEqualities Memo;
  std::vector<const Expr *> First = {ult(X, k(8)), C.eq(Y, k(3))};
  ProvedEqualities::Scope S1 = Memo.scope(First);
  S1.witnessed();
  S1.note(OfX);
  S1.note(OfY);
  EXPECT_TRUE(S1.known(OfX));
  EXPECT_TRUE(S1.known(OfY));

  // Only the assumption on y changed: x's equality holds still, y's not.
  ProvedEqualities::Scope S2 = Memo.scope({ult(X, k(8)), C.eq(Y, k(5))});
  EXPECT_TRUE(S2.known(OfX));
  EXPECT_FALSE(S2.known(OfY));

  // The assumption x's proof rests on changed.
  ProvedEqualities::Scope S3 = Memo.scope({ult(X, k(16)), C.eq(Y, k(3))});
  EXPECT_FALSE(S3.known(OfX));
  EXPECT_TRUE(S3.known(OfY));
}

TEST_F(ProvedEqualitiesTest, AssumptionsJoinedThroughASymbolAreOne) {
  ProvedEqualities Memo;
  // x and y are joined through z: x's proof may rest on y's assumption.
  ProvedEqualities::Scope S1 = Memo.scope(
      {ult(X, k(8)), C.eq(Y, k(3)), ult(C.add(X, Z), C.add(Y, Z))});
  S1.witnessed();
  S1.note(OfX);
  ProvedEqualities::Scope S2 = Memo.scope(
      {ult(X, k(8)), C.eq(Y, k(5)), ult(C.add(X, Z), C.add(Y, Z))});
  EXPECT_FALSE(S2.known(OfX));
}

TEST_F(ProvedEqualitiesTest, AssumptionsOnMemoryJoinEverything) {
  ProvedEqualities Memo;
  // buf[0] == 3 constrains every read of buf, whatever its symbols.
  const Expr *At0 = C.read("buf", T, C.intConst(Type::i(64), 0));
  ProvedEqualities::Pair OfRead{C.add(At0, k(1)), k(4)};
  ProvedEqualities::Scope S1 = Memo.scope({C.eq(At0, k(3)), ult(X, k(8))});
  S1.witnessed();
  S1.note(OfRead);
  EXPECT_TRUE(S1.known(OfRead));
  ProvedEqualities::Scope S2 = Memo.scope({ult(X, k(8))});
  EXPECT_FALSE(S2.known(OfRead));
}

TEST_F(ProvedEqualitiesTest, NothingIsKeptFromAListNotKnownSatisfiable) {
  ProvedEqualities Memo;
  // x < 0 unsigned: everything follows, and nothing may be carried over.
  ProvedEqualities::Scope S1 = Memo.scope({ult(X, k(0))});
  S1.note(OfX);
  EXPECT_FALSE(S1.known(OfX));
  ProvedEqualities::Scope S2 = Memo.scope({ult(X, k(0))});
  EXPECT_FALSE(S2.known(OfX));
}

TEST_F(ProvedEqualitiesTest, ProveEqualAsksOnlyWhatIsNotKnown) {
  ProvedEqualities Memo;
  smt::SolverOptions Solver;
  std::vector<const Expr *> First = {ult(X, k(8)), C.eq(Y, k(3))};
  ProvedEqualities::Scope S1 = Memo.scope(First);
  S1.witnessed();
  EXPECT_EQ(proveEqual(C, {OfX, OfY}, First, Solver, &S1),
            (std::vector<bool>{true, true}));
  // Under y == 5 the y pair is asked again and refuted; the x pair is known.
  std::vector<const Expr *> Second = {ult(X, k(8)), C.eq(Y, k(5))};
  ProvedEqualities::Scope S2 = Memo.scope(Second);
  S2.witnessed();
  EXPECT_EQ(proveEqual(C, {OfX, OfY}, Second, Solver, &S2),
            (std::vector<bool>{true, false}));
}

} // namespace

/// A program's element offsets x * 32 + k, for x < 1000: the address
/// arithmetic whose families proveByShape proves (stages/Unify.h).
class ProveByShape : public testing::Test {
protected:
  Context C;
  Type I32 = Type::i(32), I64 = Type::i(64);
  const Expr *X = C.symbol("x", I32, SymbolRole::ProgramId);
  std::vector<const Expr *> Assumptions = {
      C.icmp(ICmpPredicate::Ult, X, C.intConst(I32, 1000))};
  // Made before the offsets, so every sum lists its operands in one order.
  const Expr *Scaled = C.mul(X, C.intConst(I32, 32));
};

// Pairs of one shape (the same arithmetic at each element's constant offset)
// are proved by one query; one member that differs keeps the whole group
// from being proved so.
TEST_F(ProveByShape, OneQueryProvesAFamilyAndNoneWhereOneMemberDiffers) {
  auto Member = [&](int64_t Offset) {
    const Expr *Sum = C.add(Scaled, C.intConst(I32, Offset));
    return std::pair(C.cast(Op::ZExt, Sum, I64), C.cast(Op::SExt, Sum, I64));
  };
  std::vector<std::pair<const Expr *, const Expr *>> Family;
  for (int64_t Offset = 1001; Offset <= 1127; Offset += 2) // none folds
    Family.push_back(Member(Offset));
  static const std::unordered_map<const Expr *, const Expr *> Everywhere;
  stages::Unification U;
  EXPECT_TRUE(
      stages::proveByShape(C, Family, Assumptions, {}, U, Everywhere).empty());
  EXPECT_EQ(U.Proved, 64u);
  EXPECT_EQ(U.Map.size(), 64u);

  // x * 32 + (2^31 - 16) passes the sign bit for x >= 1: zext and sext
  // part there, so neither the family's range nor its exact members hold.
  Family.push_back(Member((int64_t(1) << 31) - 16));
  stages::Unification V;
  std::vector<std::pair<const Expr *, const Expr *>> Rest =
      stages::proveByShape(C, Family, Assumptions, {}, V, Everywhere);
  EXPECT_EQ(Rest.size(), Family.size());
  EXPECT_EQ(V.Proved, 0u);
  EXPECT_TRUE(V.Map.empty());
}

// Two constants of a pair that move together (an i32 offset and the same
// offset as i64) are equal only if the relation between them is kept: one
// written as an affine function of the other. A family of more than 1024 is
// not asked member by member exactly, so only that relation proves it.
TEST_F(ProveByShape, ConstantsThatMoveTogetherKeepTheirRelation) {
  const Expr *Wide = C.cast(Op::ZExt, Scaled, I64);
  std::vector<std::pair<const Expr *, const Expr *>> Family;
  for (int64_t Offset = 1001; Offset < 1001 + 2 * 1100; Offset += 2) {
    const Expr *Narrow = C.add(Scaled, C.intConst(I32, Offset));
    const Expr *Widened =
        C.cast(Op::Trunc, C.add(Wide, C.intConst(I64, Offset)), I32);
    ASSERT_NE(Narrow, Widened); // two spellings, not one node
    Family.push_back({Narrow, Widened});
  }
  static const std::unordered_map<const Expr *, const Expr *> Everywhere;
  stages::Unification U;
  EXPECT_TRUE(
      stages::proveByShape(C, Family, Assumptions, {}, U, Everywhere).empty());
  EXPECT_EQ(U.Proved, 1100u);

  // The i64 offset one more than the i32 one for one member: not proved.
  Family.back().second =
      C.cast(Op::Trunc, C.add(Wide, C.intConst(I64, 1001 + 2 * 1099 + 1)), I32);
  stages::Unification V;
  EXPECT_EQ(
      stages::proveByShape(C, Family, Assumptions, {}, V, Everywhere).size(),
      Family.size());
  EXPECT_EQ(V.Proved, 0u);
}

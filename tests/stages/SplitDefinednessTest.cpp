// A definedness query asked one way at a time (stages/SplitDefinedness.h):
// eight elements' ways to be undefined are one question; a way that needs
// its neighbour's fact gets it; a way the facts do not rule out, or one
// ruled out only by a fact about no element, is left to the whole query,
// with the way's model in the caller's terms: each element it read at the
// index the model gives, through a gather's table too.
#include "stages/SplitDefinedness.h"

#include "ir/Interpreter.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;
using stages::proveDisjunctByDisjunct;

namespace {

struct Elements {
  Context C;
  Type I32 = Type::i(32);
  const Expr *x(int K) { return C.read("x", I32, C.intConst(Type::i(64), K)); }
  const Expr *k(int V) { return C.intConst(I32, V); }
  const Expr *below(const Expr *A, int V) {
    return C.icmp(ICmpPredicate::Slt, A, k(V));
  }
  const Expr *above(const Expr *A, int V) {
    return C.icmp(ICmpPredicate::Sgt, A, k(V));
  }
  stages::SplitProof prove(const Expr *Defined, const Expr *Undefined) {
    return proveDisjunctByDisjunct(C, Defined, Undefined, {},
                                   smt::Mode::IEEE, smt::SolverOptions(),
                                   "kernels defined");
  }
};

TEST(SplitDefinedness, EightElementsOfOneShapeAreOneQuestion) {
  Elements E;
  const Expr *Defined = E.C.trueExpr(), *Undefined = E.C.falseExpr();
  for (int K = 0; K < 8; ++K) {
    Defined = E.C.andOf(Defined, E.below(E.x(K), 150));
    Undefined = E.C.orOf(Undefined, E.above(E.x(K), 200));
  }
  stages::SplitProof P = E.prove(Defined, Undefined);
  EXPECT_TRUE(P.Proved) << P.Why;
  EXPECT_EQ(P.Disjuncts, 8u);
  EXPECT_EQ(P.Asked, 1u);
  // One element's way past what its fact rules out: not proved.
  Undefined = E.C.orOf(Undefined, E.above(E.x(3), 120));
  EXPECT_FALSE(E.prove(Defined, Undefined).Proved);
}

TEST(SplitDefinedness, AWayGetsTheFactsOfEveryElementItReads) {
  Elements E;
  const Expr *Defined = E.C.trueExpr(), *Undefined = E.C.falseExpr();
  // 0 <= x < 150 for each (a sum of two does not wrap).
  for (int K = 0; K < 5; ++K)
    Defined = E.C.andOf(Defined, E.C.andOf(E.below(E.x(K), 150),
                                           E.above(E.x(K), -1)));
  for (int K = 0; K < 4; ++K)
    Undefined = E.C.orOf(
        Undefined, E.above(E.C.add(E.x(K), E.x(K + 1)), 400));
  stages::SplitProof P = E.prove(Defined, Undefined);
  EXPECT_TRUE(P.Proved) << P.Why;
  EXPECT_EQ(P.Disjuncts, 4u);
}

TEST(SplitDefinedness, AFactAboutNoElementIsLeftToTheWholeQuery) {
  Elements E;
  const Expr *N = E.C.symbol("n", E.I32, SymbolRole::Param);
  const Expr *Defined = E.below(N, 10);
  const Expr *Undefined = E.C.orOf(E.C.andOf(E.above(N, 20), E.above(E.x(0), 0)),
                                   E.C.andOf(E.above(N, 20), E.above(E.x(1), 0)));
  EXPECT_FALSE(E.prove(Defined, Undefined).Proved);
}

// Two stages spell an element's index each their own way: the way reads
// x[p << 1 | 1], the facts x[2p + 1]. Linked by "the same index reads the
// same value", each way is ruled out; where the two indices only agree at
// the sample points (x[p] against x[p < 100 ? p : 0]), the link holds
// nothing up and the way is not ruled out.
TEST(SplitDefinedness, ReadsOfOneElementSpelledTwoWaysAreLinked) {
  Elements E;
  Type I64 = Type::i(64);
  const Expr *P = E.C.symbol("p", I64, SymbolRole::Param);
  auto At = [&](const Expr *Index) { return E.C.read("x", E.I32, Index); };
  auto K64 = [&](int V) { return E.C.intConst(I64, V); };
  const Expr *Defined = E.C.trueExpr(), *Undefined = E.C.falseExpr();
  for (int J = 0; J < 2; ++J) {
    const Expr *Twice = E.C.add(E.C.mul(P, K64(2)), K64(J));
    const Expr *Shifted = E.C.binary(Op::Or, E.C.binary(Op::Shl, P, K64(1)),
                                     K64(J));
    Defined = E.C.andOf(Defined, E.below(At(Twice), 150));
    Undefined = E.C.orOf(Undefined, E.above(At(Shifted), 200));
  }
  stages::SplitProof Linked = E.prove(Defined, Undefined);
  EXPECT_TRUE(Linked.Proved) << Linked.Why;

  const Expr *Clipped =
      E.C.select(E.C.icmp(ICmpPredicate::Slt, P, K64(100)), P, K64(0));
  const Expr *Facts = E.C.andOf(E.below(At(Clipped), 150),
                                E.below(At(E.C.add(Clipped, K64(1))), 150));
  const Expr *Ways = E.C.orOf(E.above(At(P), 200),
                              E.above(At(E.C.add(P, K64(1))), 200));
  EXPECT_FALSE(E.prove(Facts, Ways).Proved);
}

// The way "table[idx[p]] > 120" against "table[idx[p]] < 150" is not
// ruled out; its model sets p, idx at p and table at what idx holds there,
// and the whole condition holds on it as the caller replays it.
TEST(SplitDefinedness, AWaysModelIsInTheCallersTerms) {
  Elements E;
  Type I64 = Type::i(64);
  const Expr *P = E.C.symbol("p", I64, SymbolRole::Param);
  const Expr *Index = E.C.read("idx", I64, P);
  const Expr *Element = E.C.read("table", E.I32, Index);
  const Expr *Defined = E.below(Element, 150);
  const Expr *Undefined =
      E.C.orOf(E.above(Element, 200), E.above(Element, 120));
  stages::SplitProof Way = E.prove(Defined, Undefined);
  ASSERT_FALSE(Way.Proved);
  ASSERT_TRUE(Way.Candidate) << Way.Why;
  const Env &M = *Way.Candidate;
  ASSERT_TRUE(M.symbol("p"));
  ASSERT_TRUE(M.read("idx", M.symbol("p")->Bits));
  uint64_t At = M.read("idx", M.symbol("p")->Bits)->Bits;
  ASSERT_TRUE(M.read("table", At));
  int64_t V = M.read("table", At)->asSigned();
  EXPECT_GT(V, 120);
  EXPECT_LT(V, 150);
  Interpreter I(M);
  EXPECT_TRUE(I.eval(E.C.andOf(Defined, Undefined)).isTrue());
}

} // namespace

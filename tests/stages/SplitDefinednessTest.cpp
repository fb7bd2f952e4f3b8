// A definedness query asked one way at a time (stages/SplitDefinedness.h):
// eight elements' ways to be undefined are one question; a way that needs
// its neighbour's fact gets it; a way the facts do not rule out, or one
// ruled out only by a fact about no element, is left to the whole query.
#include "stages/SplitDefinedness.h"

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

} // namespace

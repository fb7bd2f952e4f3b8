// Launch terms are matched by their values on sampled launches before the
// solver is asked; each grid axis gets its own program id on those samples,
// so a transposed index is never proposed equal to the plain one.
#include "ir/Kernel.h"
#include "stages/Unify.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;

TEST(UnifySamples, TellTheGridAxesApart) {
  Context C;
  Type I32 = Type::i(32);
  const Expr *X = programIdSymbol(C, 0), *Y = programIdSymbol(C, 1);
  auto Times = [&](const Expr *A, uint64_t K) {
    return C.mul(A, C.intConst(I32, K));
  };
  auto Shifted = [&](const Expr *A, uint64_t K) {
    return C.binary(Op::Shl, A, C.intConst(I32, K));
  };
  // A tile's element and the transposed one, as TTGIR and LLVM IR spell them.
  const Expr *Plain = C.add(Times(X, 32), Times(Y, 1024));
  const Expr *Transposed = C.add(Times(Y, 32), Times(X, 1024));
  const Expr *PlainShifted = C.add(Shifted(X, 5), Shifted(Y, 10));
  const Expr *TransposedShifted = C.add(Shifted(Y, 5), Shifted(X, 10));
  std::vector<const Expr *> Assumptions;
  for (unsigned Dim = 0; Dim < 2; ++Dim) {
    Assumptions.push_back(numProgramsRange(C, Dim));
    Assumptions.push_back(programIdRange(C, Dim));
  }
  stages::Unification U = stages::unifyLaunchTerms(
      C, {{Plain}, {Transposed}}, {{PlainShifted}, {TransposedShifted}},
      Assumptions, smt::SolverOptions{});
  EXPECT_EQ(U.Map[PlainShifted], Plain);
  EXPECT_EQ(U.Map[TransposedShifted], Transposed);
  // Every proposal held: none came from samples where pid.x == pid.y.
  EXPECT_GT(U.Proposed, 0u);
  EXPECT_EQ(U.Proposed, U.Proved);
}

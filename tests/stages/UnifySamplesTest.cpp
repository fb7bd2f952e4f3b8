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

TEST(UnifySamples, PartMasksAtDifferentOffsets) {
  // `pid*1024 + k < n` for k = 0..7, as TTGIR and LLVM IR spell them: on
  // random n they agree almost always. Samples with n at each left side's
  // value tell them apart, so no proposal is refuted.
  Context C;
  Type I32 = Type::i(32);
  const Expr *Pid = programIdSymbol(C, 0);
  const Expr *N = C.symbol(paramName(3), I32, SymbolRole::Param);
  std::vector<stages::UnifyRoot> Source, Target;
  std::vector<const Expr *> Plain, Spelled;
  for (uint64_t K = 0; K < 8; ++K) {
    const Expr *Offset =
        C.add(C.mul(Pid, C.intConst(I32, 1024)), C.intConst(I32, K));
    const Expr *Shifted =
        C.orOf(C.binary(Op::Shl, Pid, C.intConst(I32, 10)), C.intConst(I32, K));
    Plain.push_back(C.icmp(ICmpPredicate::Slt, Offset, N));
    Spelled.push_back(C.icmp(ICmpPredicate::Slt, Shifted, N));
    Source.push_back({Plain.back()});
    Target.push_back({Spelled.back()});
  }
  std::vector<const Expr *> Assumptions = {numProgramsRange(C, 0),
                                           programIdRange(C, 0)};
  stages::Unification U = stages::unifyLaunchTerms(C, Source, Target,
                                                   Assumptions,
                                                   smt::SolverOptions{});
  for (size_t K = 0; K < 8; ++K) {
    // The mask itself, or the offset inside it, is matched.
    const Expr *Rewritten = substitute(C, Spelled[K], U.Map);
    EXPECT_EQ(Rewritten, Plain[K]) << K;
  }
  EXPECT_GT(U.Proposed, 0u);
  EXPECT_EQ(U.Proposed, U.Proved);
}

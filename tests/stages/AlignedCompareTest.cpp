// Comparisons with a multiple of 2^k take one spelling, and the spelling
// means the same as the original for every input the alignment allows.
#include "stages/AlignedCompare.h"

#include "ir/Interpreter.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;
using stages::alignedComparison;
using stages::Alignments;
using stages::alignmentsFrom;

namespace {

constexpr ICmpPredicate Predicates[] = {ICmpPredicate::Slt, ICmpPredicate::Sle,
                                        ICmpPredicate::Ult, ICmpPredicate::Ule};

const Expr *rewritten(Context &C, const Expr *Cmp, const Alignments &A) {
  std::vector<const Expr *> Ops(Cmp->operands().begin(), Cmp->operands().end());
  const Expr *R = alignedComparison(C, Cmp, Ops, A);
  return R ? R : Cmp;
}

/// n a multiple of 4 and t a multiple of 4 (from the assumptions the
/// checker compares under); every n, t and constant c of i6, both sides of
/// every predicate, x = c and x = 4*t' + c.
TEST(AlignedCompare, EveryI6ComparisonKeepsItsValue) {
  Context C;
  Type T = Type::i(6);
  const Expr *N = C.symbol("n", T), *S = C.symbol("s", T);
  Alignments A = alignmentsFrom(
      {C.eq(C.binary(Op::SRem, N, C.intConst(T, 4)), C.intConst(T, 0))});
  ASSERT_EQ(A.size(), 1u);
  EXPECT_EQ(A.at(N), 2u);
  unsigned Changed = 0;
  for (int Cst = 0; Cst < 64; ++Cst) {
    const Expr *K = C.intConst(T, Cst);
    for (const Expr *X : {K, C.add(C.mul(S, C.intConst(T, 4)), K)}) {
      for (ICmpPredicate P : Predicates)
        for (bool XLeft : {true, false}) {
          const Expr *Cmp = XLeft ? C.icmp(P, X, N) : C.icmp(P, N, X);
          const Expr *R = rewritten(C, Cmp, A);
          Changed += R != Cmp;
          if (R == Cmp)
            continue;
          for (int NV = 0; NV < 64; NV += 4)
            for (int SV = 0; SV < 64; ++SV) {
              Env E;
              E.setSymbol("n", Value::ofBits(T, uint64_t(NV)));
              E.setSymbol("s", Value::ofBits(T, uint64_t(SV)));
              Interpreter I(E);
              ASSERT_EQ(I.eval(Cmp).Bits, I.eval(R).Bits)
                  << printExpr(Cmp) << " against " << printExpr(R) << " at n = "
                  << NV << ", s = " << SV;
            }
        }
    }
  }
  EXPECT_GT(Changed, 300u);
}

/// The TTGIR's per-element masks of one vector and the LLVM IR's mask of
/// its first element become one node.
TEST(AlignedCompare, MasksOfOneVectorMeet) {
  Context C;
  Type T = Type::i(32);
  const Expr *N = C.symbol("n", T), *Pid = C.symbol("pid", T);
  Alignments A = alignmentsFrom(
      {C.eq(C.binary(Op::SRem, N, C.intConst(T, 16)), C.intConst(T, 0))});
  const Expr *Base = C.mul(Pid, C.intConst(T, 1024));
  const Expr *First = rewritten(
      C, C.icmp(ICmpPredicate::Slt, C.add(Base, C.intConst(T, 8)), N), A);
  for (int J = 9; J < 12; ++J)
    EXPECT_EQ(rewritten(C,
                        C.icmp(ICmpPredicate::Slt,
                               C.add(Base, C.intConst(T, J)), N),
                        A),
              First);
  // Constants: 188 < n, ..., 191 < n (as n >= 189 ...) are all 176 < n.
  const Expr *C188 = rewritten(C, C.icmp(ICmpPredicate::Slt, C.intConst(T, 188), N), A);
  for (int J = 189; J < 192; ++J)
    EXPECT_EQ(rewritten(C, C.icmp(ICmpPredicate::Slt, C.intConst(T, J), N), A),
              C188);
  // ... but not 192 < n, the next vector's.
  EXPECT_NE(rewritten(C, C.icmp(ICmpPredicate::Slt, C.intConst(T, 192), N), A),
            C188);
}

/// Without the assumption, or with a base that is not a multiple of 16,
/// nothing changes.
TEST(AlignedCompare, OnlyWhereTheAlignmentIsKnown) {
  Context C;
  Type T = Type::i(32);
  const Expr *N = C.symbol("n", T), *Pid = C.symbol("pid", T);
  const Expr *Odd = C.icmp(ICmpPredicate::Slt, C.intConst(T, 189), N);
  EXPECT_EQ(rewritten(C, Odd, {}), Odd);
  Alignments A = alignmentsFrom(
      {C.eq(C.binary(Op::SRem, N, C.intConst(T, 16)), C.intConst(T, 0))});
  const Expr *Unaligned = C.icmp(
      ICmpPredicate::Slt, C.add(C.mul(Pid, C.intConst(T, 5)), C.intConst(T, 3)), N);
  EXPECT_EQ(rewritten(C, Unaligned, A), Unaligned);
  // An aligned symbol compared with another unaligned symbol.
  const Expr *M = C.symbol("m", T);
  const Expr *Free = C.icmp(ICmpPredicate::Slt, M, N);
  EXPECT_EQ(rewritten(C, Free, A), Free);
}

} // namespace

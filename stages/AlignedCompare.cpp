//===- AlignedCompare.cpp - Masks that agree under divisibility -----------===//

#include "stages/AlignedCompare.h"

#include "ir/Value.h"

#include <algorithm>
#include <bit>

namespace stagecheck::stages {

using namespace ir;

namespace {

unsigned trailingZeros(uint64_t Bits, unsigned Width) {
  Bits &= Value::mask(Width);
  return Bits == 0 ? Width : unsigned(std::countr_zero(Bits));
}

} // namespace

Alignments alignmentsFrom(const std::vector<const Expr *> &Assumptions) {
  Alignments A;
  for (const Expr *F : Assumptions) {
    if (F->op() == Op::ICmp && F->icmpPredicate() == ICmpPredicate::Ult &&
        F->operand(0)->op() == Op::Symbol && F->operand(1)->isConst()) {
      auto [It, New] =
          A.Below.try_emplace(F->operand(0), F->operand(1)->constBits());
      It->second = std::min(It->second, F->operand(1)->constBits());
      continue;
    }
    if (F->op() != Op::ICmp || F->icmpPredicate() != ICmpPredicate::Eq)
      continue;
    const Expr *L = F->operand(0), *R = F->operand(1);
    if (L->isConst())
      std::swap(L, R);
    if (!R->isConst() || R->constBits() != 0 || L->numOperands() != 2)
      continue;
    const Expr *S = L->operand(0), *D = L->operand(1);
    if (L->op() == Op::And && S->isConst())
      std::swap(S, D);
    if (S->op() != Op::Symbol || !D->isConst() || D->constBits() == 0)
      continue;
    unsigned Width = S->type().bits();
    unsigned K = 0;
    if (L->op() == Op::SRem || L->op() == Op::URem)
      K = trailingZeros(D->constBits(), Width);
    else if (L->op() == Op::And &&
             (D->constBits() & (D->constBits() + 1)) == 0) // 2^k - 1
      K = unsigned(std::countr_one(D->constBits()));
    if (K > 0 && K < Width)
      A[S] = std::max(A[S], K);
  }
  return A;
}

static unsigned knownZeroBits(const Expr *E, const Alignments &A,
                              unsigned Depth) {
  unsigned Width = E->type().bits();
  if (E->isConst())
    return trailingZeros(E->constBits(), Width);
  if (auto It = A.find(E); It != A.end())
    return It->second;
  if (Depth == 0 || !E->type().isInt())
    return 0;
  auto Of = [&](unsigned I) { return knownZeroBits(E->operand(I), A, Depth - 1); };
  switch (E->op()) {
  case Op::Add:
  case Op::Sub:
  case Op::Or:
  case Op::Xor:
    return std::min(Of(0), Of(1));
  case Op::Mul:
    return std::min(Width, Of(0) + Of(1));
  case Op::And:
    return std::max(Of(0), Of(1));
  case Op::Neg:
    return Of(0);
  case Op::SRem:
  case Op::URem:
    // a - q * n: both multiples of 2^k (a itself for n = 0).
    return std::min(Of(0), Of(1));
  case Op::Shl:
    if (E->operand(1)->isConst() && E->operand(1)->constBits() < Width)
      return std::min(Width, Of(0) + unsigned(E->operand(1)->constBits()));
    return 0;
  case Op::SExt:
  case Op::ZExt:
    return Of(0);
  case Op::Trunc:
    return std::min(Width, Of(0));
  case Op::Select:
    return std::min(knownZeroBits(E->operand(1), A, Depth - 1),
                    knownZeroBits(E->operand(2), A, Depth - 1));
  default:
    return 0;
  }
}

unsigned knownZeroBits(const Expr *E, const Alignments &A) {
  return knownZeroBits(E, A, 16);
}

const Expr *alignedComparison(Context &C, const Expr *E,
                              const std::vector<const Expr *> &Ops,
                              const Alignments &A) {
  if (A.empty() || E->op() != Op::ICmp || !Ops[0]->type().isInt())
    return nullptr;
  ICmpPredicate P = E->icmpPredicate();
  bool Signed = P == ICmpPredicate::Slt || P == ICmpPredicate::Sle;
  bool Strict = P == ICmpPredicate::Slt || P == ICmpPredicate::Ult;
  if (!Signed && P != ICmpPredicate::Ult && P != ICmpPredicate::Ule)
    return nullptr;
  Type T = Ops[0]->type();
  unsigned Width = T.bits();
  uint64_t Mask = Value::mask(Width);
  ICmpPredicate Less = Signed ? ICmpPredicate::Slt : ICmpPredicate::Ult;
  ICmpPredicate LessEq = Signed ? ICmpPredicate::Sle : ICmpPredicate::Ule;
  // X on the left (XLeft) or the right of N, the aligned side.
  for (bool XLeft : {true, false}) {
    const Expr *X = Ops[XLeft ? 0 : 1], *N = Ops[XLeft ? 1 : 0];
    unsigned K = knownZeroBits(N, A);
    if (K == 0 || K >= Width || (X->isConst() && N->isConst()))
      continue;
    if (X->isConst()) {
      // n < c and c <= n: c -> floor_m(c - 1) + 1.
      if (XLeft == Strict)
        continue;
      uint64_t Least = Signed ? uint64_t(1) << (Width - 1) : 0;
      uint64_t Cst = X->constBits() & Mask;
      if (Cst == Least)
        continue;
      K = std::min(K, Width - 1);
      uint64_t Rounded = (((Cst - 1) & Mask) & ~((uint64_t(1) << K) - 1)) + 1;
      Rounded &= Mask;
      if (Rounded == Cst)
        return nullptr;
      const Expr *R = C.constant(T, Rounded);
      return XLeft ? C.icmp(LessEq, R, N) : C.icmp(Less, N, R);
    }
    // x = t + c with t a multiple of m.
    const Expr *Term = X;
    uint64_t Cst = 0;
    if (X->op() == Op::Add)
      for (unsigned I = 0; I < 2; ++I)
        if (X->operand(I)->isConst()) {
          Cst = X->operand(I)->constBits();
          Term = X->operand(1 - I);
          break;
        }
    K = std::min(K, knownZeroBits(Term, A));
    if (K == 0)
      continue;
    uint64_t Low = (uint64_t(1) << K) - 1;
    if ((Cst & Low) == 0)
      continue;
    const Expr *V = C.add(Term, C.constant(T, Cst & ~Low & Mask));
    if (XLeft)
      return C.icmp(Less, V, N); // x < n, x <= n: v < n
    return C.icmp(LessEq, N, V); // n < x, n <= x: n <= v
  }
  return nullptr;
}

} // namespace stagecheck::stages

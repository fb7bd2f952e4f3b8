//===- AlignedCompare.h - Masks that agree under divisibility --*- C++ -*-===//
//
// Triton compiles a kernel for arguments divisible by 16 (tt.divisibility)
// and its lowering relies on it: a vector of four elements is loaded or
// stored under its first element's mask, so the LLVM IR compares
// `off + 4t < n` where the TTGIR compares `off + 4t + j < n` per element.
// Under `n % m == 0` the two are one comparison, and rewriting both into
// one spelling before anything else lets the masked lanes of a sum meet
// node for node instead of leaving the solver a reduction tree with
// differently masked leaves.
//
// The rule, for n a multiple of m = 2^k and x = t + c with t a multiple of
// m (a sum of products with aligned factors, shifts, aligned symbols) and c
// a constant, r = c mod m, v = t + (c - r) (x rounded down to a multiple of
// m; in wrapping arithmetic too, since v <= max - m + 1 and so v + r does
// not wrap), signed or unsigned alike:
//
//      x < n   is  v < n          x <= n  is  v < n    (r > 0)
//      n < x   is  n <= v (r > 0) n <= x  is  n <= v
//      n < c   is  n < floor_m(c - 1) + 1 (and c <= n likewise), c constant
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_ALIGNEDCOMPARE_H
#define STAGECHECK_STAGES_ALIGNEDCOMPARE_H

#include "ir/Expr.h"

#include <unordered_map>
#include <vector>

namespace stagecheck::stages {

/// How many low bits of each symbol the assumptions make zero: from
/// `srem(s, d) == 0`, `urem(s, d) == 0` and `and(s, 2^k - 1) == 0`; and,
/// in Below, the bound B of each symbol the assumptions keep `s <u B` (the
/// shared window's base).
struct Alignments : std::unordered_map<const ir::Expr *, unsigned> {
  std::unordered_map<const ir::Expr *, uint64_t> Below;
};
Alignments alignmentsFrom(const std::vector<const ir::Expr *> &Assumptions);

/// How many low bits of E are known to be zero, from its constants, its
/// aligned symbols and the ops that keep low zero bits.
unsigned knownZeroBits(const ir::Expr *E, const Alignments &A);

/// E, an integer comparison whose operands are Ops, in the spelling above;
/// nullptr when the rule does not apply.
const ir::Expr *alignedComparison(ir::Context &C, const ir::Expr *E,
                                  const std::vector<const ir::Expr *> &Ops,
                                  const Alignments &A);

} // namespace stagecheck::stages

#endif

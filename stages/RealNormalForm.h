//===- RealNormalForm.h - Normal forms that hold over the reals -*- C++ -*-===//
//
// Rewrites that are equalities over the reals (finite values, no NaN), put
// on both sides of a real-arithmetic query before the solver sees it, so
// that computations equal up to reassociation become the same nodes:
//
//  - Extrema. fmaxnum, fmaximum and the compare-and-select idioms kernels
//    use for max and min (select(a > b, a, b), with or without an `a != a`
//    NaN test) are one associative, commutative, idempotent operation over
//    the reals. A tree of them becomes the fold of its distinct operands in
//    node order: the tree a reduction builds and the left fold a reference
//    builds meet in one node, and whatever consumes the maximum (exp(x -
//    max) in a softmax) is then shared too.
//
//  - Arg-extrema. The index an argmax (argmin) reduction yields is a tree
//    of selects on (value, index) pairs whose condition is a lexicographic
//    compare: a value strictly better, or equal with the smaller index (the
//    first extremum wins; for a running cummax, the larger: the last). A
//    reference folds the pairs left to right; a
//    kernel combines them in a tree, with or without NaN tests, in an
//    index type of its own. Any such select whose condition is, case by
//    case, the lexicographic compare of the two sides' winners becomes the
//    left fold of all pairs in index order, so both meet in one node; casts
//    of the index move onto its constants.
//  - NaN tests are decided: ord is true and uno false, as the encoding over
//    the reals reads them (no real is NaN).
//  - rsqrt(x) is 1 / sqrt(x) (not for a rounding model: Purpose).
//  - Polynomials (a separate step, `polynomial`). Sums and products of
//    floats are expanded into a sum of monomials with exact coefficients,
//    in node order, so that a dot product summed in blocks and the same dot
//    product summed left to right become one node. Anything else (a call, a
//    select, a narrowing cast) is an atom whose operands are put in this
//    form too.
//  - Exponential fractions (`equalAsExpFractions`). On top of the
//    polynomial form, exp(a + b) = exp(a) * exp(b) and quotients by sums of
//    exponentials (which are positive): each side becomes N / D with N and D
//    sums of monomials times exp of a polynomial, and the two are equal
//    when N1 * D2 = N2 * D1 (VOLTA's exp-polynomial procedure). This is
//    softmax's shift invariance: exp(x - m) / sum exp(x - m) is
//    exp(x) / sum exp(x).
//  - Infinite padding. Masked lanes of a reduction load -inf (max's
//    identity); over the extended reals it drops out of max, -inf - x is
//    -inf for finite x, exp(-inf) is 0 and 0 drops out of a sum.
//
// Only for queries over the reals: in IEEE arithmetic the NaN and signed-
// zero rules of the flavours differ.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_REALNORMALFORM_H
#define STAGECHECK_STAGES_REALNORMALFORM_H

#include "ir/Expr.h"

#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace stagecheck::stages {

class RealNormalForm {
public:
  /// A sum of monomials: each a sorted list of atoms (by node id, with
  /// repetition) and its nonzero coefficient.
  using Monomial = std::vector<const ir::Expr *>;
  struct MonomialOrder {
    bool operator()(const Monomial &A, const Monomial &B) const;
  };
  using Sum = std::map<Monomial, double, MonomialOrder>;
  /// A monomial times exp of a polynomial, and sums of them.
  struct ExpMonomial {
    Monomial Atoms;
    std::vector<std::pair<Monomial, double>> Exponent; // a Sum, in order
    bool operator==(const ExpMonomial &O) const = default;
  };
  struct ExpMonomialOrder {
    bool operator()(const ExpMonomial &A, const ExpMonomial &B) const;
  };
  using ExpSum = std::map<ExpMonomial, double, ExpMonomialOrder>;
  struct Fraction {
    ExpSum Numerator, Denominator; // the denominator positive
  };
  /// What the normal form is for.
  enum class Purpose {
    /// Queries over the reals: every rewrite above.
    Proofs,
    /// Also a comparison of a visibly finite value with an infinity is
    /// decided as over the reals (`|m| == inf` false). That says nothing
    /// of what either side does with infinite values, so it is for finding
    /// differences on finite inputs, never for proofs.
    FindingDifferences,
    /// The operands of a rounding-error model, where every op node of the
    /// IEEE computation rounds: no rewrite may add an op, so a call stays
    /// a call (rsqrt is not read as a division of a square root, which
    /// would round twice where the function rounds once).
    RoundingModel,
  };
  explicit RealNormalForm(ir::Context &C, Purpose For = Purpose::Proofs)
      : C(C), For(For) {}
  /// E in normal form; nodes are shared across calls of one instance.
  const ir::Expr *normalize(const ir::Expr *E);
  /// E with its float sums and products expanded into a canonical sum of
  /// monomials, as far as the coefficients stay exact in E's type and the
  /// expansion stays small; an equality over the reals.
  const ir::Expr *polynomial(const ir::Expr *E);
  /// E with every tree of float +, - and negation flattened into one sum
  /// of its distinct terms in node order, each with its integer count, and
  /// its constants added (where exact). Nothing else moves: no product is
  /// expanded and no constant scale enters a sum, so a shared sum (a row's
  /// mean) stays one term of the sums that use it. An equality over the
  /// reals, linear in E's nodes: the cheap first try before `polynomial`,
  /// which flattens the mean into each of its uses.
  const ir::Expr *sumForm(const ir::Expr *E);
  /// Whether A and B (after `polynomial`) are equal over the reals as
  /// quotients of sums of exponential monomials; false when that cannot
  /// be shown (not when they differ).
  bool equalAsExpFractions(const ir::Expr *A, const ir::Expr *B);
  /// Whether A and B (in normal form) meet as polynomials or as
  /// exponential fractions; only tried where one of them is beyond linear
  /// arithmetic (a solver decides linear ones at least as fast). Chains of
  /// + and fma are flattened in one pass, so only the roots and the
  /// operands of atoms hold a sum; each comparison has a budget of visits.
  bool equalAsPolynomials(const ir::Expr *A, const ir::Expr *B);
  /// How often exp(a + b) = exp(a) * exp(b) was used (for the report).
  unsigned exponentialsCombined() const { return ExpCombined; }
  /// Extremum trees rewritten so far (for the report).
  unsigned extremaFlattened() const { return Flattened; }
  /// Operations with an infinite constant folded away.
  unsigned infinitiesAbsorbed() const { return Absorbed; }
  /// Selects read as a lexicographic arg-max or arg-min (for the report).
  unsigned argExtremaFolded() const { return ArgFolded; }

private:
  struct Extremum {
    bool IsMax;
    std::vector<const ir::Expr *> Operands; // distinct, by node id
  };
  /// One (value, index) pair of an arg-extremum: Key orders the pairs (ties
  /// go to the smaller), Out is the constant the index node yields for it
  /// (Key itself, in the index's type, until a cast moves it).
  struct ArgEntry {
    int64_t Key;
    const ir::Expr *Value;
    const ir::Expr *Out;
  };
  struct ArgExtremum {
    bool IsMax;
    bool FirstWins; // ties go to the smaller key (else the larger)
    std::vector<ArgEntry> Entries; // by Key, distinct Keys
    const ir::Expr *Best;          // the extremum of the values
  };
  const ir::Expr *argSelect(const ir::Expr *Cond, const ir::Expr *T,
                            const ir::Expr *F);
  const ir::Expr *argCast(const ir::Expr *N, const ir::Expr *Operand);
  const ir::Expr *argFold(ArgExtremum A);
  std::optional<ArgExtremum> argSide(const ir::Expr *Index,
                                     const ir::Expr *Value);

  const ir::Expr *rewriteNode(const ir::Expr *N,
                              const std::vector<const ir::Expr *> &Ops);
  const ir::Expr *extremum(bool IsMax, const ir::Expr *A, const ir::Expr *B);
  void collect(bool IsMax, const ir::Expr *E,
               std::vector<const ir::Expr *> &Out);
  bool visiblyFinite(const ir::Expr *E);
  const ir::Expr *compareWithInfinity(const ir::Expr *N,
                                      const std::vector<const ir::Expr *> &Ops);
  const ir::Expr *absorbInfinity(const ir::Expr *N,
                                 const std::vector<const ir::Expr *> &Ops);

  bool accumulate(const ir::Expr *N, double Scale, Sum &Out);
  const ir::Expr *flattenedSum(const ir::Expr *N);
  const ir::Expr *
  buildSum(const std::map<const ir::Expr *, double,
                          bool (*)(const ir::Expr *, const ir::Expr *)> &Terms,
           double Constant, ir::Type T);
  const ir::Expr *canonicalOperands(const ir::Expr *E);
  const ir::Expr *build(const Sum &S, ir::Type T);

  std::optional<Fraction> fractionOf(const ir::Expr *N, unsigned Depth);

  ir::Context &C;
  Purpose For;
  std::unordered_map<const ir::Expr *, const ir::Expr *> Memo;
  std::unordered_map<const ir::Expr *, const ir::Expr *> PolynomialMemo;
  std::unordered_map<const ir::Expr *, const ir::Expr *> SumFormMemo;
  std::unordered_map<const ir::Expr *, Sum> Sums; // canonical node -> its sum
  std::unordered_map<const ir::Expr *, Extremum> Extrema; // canonical node
  /// Index node -> the arg-extrema it is the fold of (two singletons read
  /// either way: select(a < b, 1, 0) is the arg-max of (a, 0), (b, 1) and
  /// the arg-min of (b, 0), (a, 1)).
  std::unordered_map<const ir::Expr *, std::vector<ArgExtremum>> ArgExtrema;
  std::unordered_map<const ir::Expr *, bool> Finite;
  std::unordered_map<const ir::Expr *, std::optional<Fraction>> Fractions;
  /// Nodes visited by one comparison's expansions, against a budget (a
  /// shared sum inside many products is flattened once per product).
  size_t Visits = 0;
  static constexpr size_t VisitBudget = size_t(1) << 20;
  unsigned Flattened = 0, Absorbed = 0, ExpCombined = 0, ArgFolded = 0;
};

} // namespace stagecheck::stages

#endif

//===- Unify.h - Making two stages' expressions the same nodes -*- C++ -*-===//
//
// Two stages compute one address, one mask, one value in different shapes
// (TTGIR's sext(pid * 128 + e) against LLVM IR's sext((pid << 7) | 5); a
// masked load as select(m, x, 0) against bitcast(select(m, bits(x), 0))).
// Comparing them node for node needs no solver once they are the same
// nodes. Two steps, both sound:
//
//  1. Launch terms. An integer or boolean expression over the launch alone
//     (kernel parameters, program ids, the grid and constants) of one side
//     is matched with one of the other side, or a constant, that takes the
//     same value on a few inputs satisfying the assumptions; all matches are
//     then proved at once by the solver under the assumptions and replaced.
//     Every later query is asked under the same assumptions, so nothing is
//     claimed beyond them; a match the solver does not prove is dropped.
//  2. A canonical form: selects move outward through the ops above them
//     when every operand is a select on one condition or a constant
//     (op(sel(c, a, b), sel(c, a', b')) = sel(c, op(a, a'), op(b, b'))),
//     nested selects on one condition collapse, and casts move into selects;
//     integer sums are one sorted sum of terms with constant factors (a
//     shift of arithmetic by a constant is a product, an or with a constant,
//     a masked value or a bounded symbol in the other operand's zero low
//     bits a sum, an and with one 0), x + x is 2 * x, x - (x sdiv d) * d is
//     x srem d, bits are taken from where they lie (truncations of shifts
//     of truncations, slices of concatenations); comparisons with a value
//     the assumptions make a multiple of 2^k take one spelling
//     (stages/AlignedCompare.h), and the assumptions' alignments and
//     bounds decide masks of zero bits, widenings and remainders of sums
//     with a low constant, and unsigned comparisons of a bounded symbol
//     plus constants.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_UNIFY_H
#define STAGECHECK_STAGES_UNIFY_H

#include "ir/Effects.h"
#include "smt/Solver.h"
#include "stages/AlignedCompare.h"

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace stagecheck::stages {

/// Equalities proved under one list of assumptions, reused under another
/// (the trip-count cases of one pair check share most launch terms and
/// differ in a few assumptions on the trip counts). A proof of a == b
/// needs only the assumptions connected to a and b through shared symbols
/// when the others are satisfiable: given an input of the new list where
/// a != b, its values of those symbols joined with any input meeting the
/// old list's other assumptions (their symbols are disjoint) would refute
/// the old proof. So an equality is known again when its connected
/// assumptions are the same nodes and the old list had an input meeting
/// all of it. An assumption that reads memory or calls a function may
/// constrain any pair without sharing a symbol: then all are connected.
class ProvedEqualities {
public:
  using Pair = std::pair<const ir::Expr *, const ir::Expr *>;
  /// One assumption list's view.
  class Scope {
  public:
    bool known(const Pair &P) const;
    /// P proved under the list; remembered only when the list is known
    /// satisfiable (witnessed).
    void note(const Pair &P);
    /// Some input meets every assumption of the list.
    void witnessed() { Satisfiable = true; }

  private:
    friend class ProvedEqualities;
    Scope(ProvedEqualities &Memo, const std::vector<const ir::Expr *> &Assumptions);
    std::vector<const ir::Expr *> connected(const Pair &P) const;
    ProvedEqualities *Memo;
    std::vector<const ir::Expr *> Assumptions;
    /// Each assumption's component (assumptions joined by a shared symbol),
    /// and each symbol's.
    std::vector<size_t> ComponentOf;
    std::unordered_map<const ir::Expr *, size_t> SymbolComponent;
    bool Opaque = false; // an assumption reads memory or calls a function
    bool Satisfiable = false;
  };
  Scope scope(const std::vector<const ir::Expr *> &Assumptions) {
    return Scope(*this, Assumptions);
  }

private:
  std::set<std::pair<Pair, std::vector<const ir::Expr *>>> Proved;
};

/// An expression whose launch terms are to be matched, and where its value
/// matters (a write's value only where its guard holds); null: everywhere.
struct UnifyRoot {
  const ir::Expr *E;
  const ir::Expr *Context = nullptr;
};

/// Launch terms of Target matched to terms of Source or constants, and
/// launch terms of either side matched to constants, as a substitution.
/// A term is replaced only where it was proved equal: under Assumptions and
/// wherever some root that contains it matters.
struct Unification {
  std::unordered_map<const ir::Expr *, const ir::Expr *> Map;
  unsigned Proposed = 0, Proved = 0;
  double Seconds = 0;
  /// Inputs meeting every assumption were found (the list is satisfiable).
  bool Witnessed = false;
};

/// Memo, when given, supplies equalities earlier calls proved and keeps
/// those this call proves (unconditionally, not only in context).
Unification unifyLaunchTerms(ir::Context &C,
                             const std::vector<UnifyRoot> &Source,
                             const std::vector<UnifyRoot> &Target,
                             const std::vector<const ir::Expr *> &Assumptions,
                             const smt::SolverOptions &Solver,
                             ProvedEqualities *Memo = nullptr);

/// Pairs of one shape (one computation but for their constants, the same
/// address arithmetic at each element's offset; at least 64 of them)
/// proved together by one query: the constants that differ become symbols
/// ranging over [least, greatest] in steps of their common stride, or an
/// affine function of an earlier such symbol where every pair's constants
/// are; so the one proof covers each pair. It claims more and may fail
/// where the pairs hold: then the symbols are asked to be one pair's
/// constants exactly (for at most 1024 pairs). Where gives a pair's
/// context by its first term. Proved pairs go into U (and Memo); returns
/// the others.
std::vector<std::pair<const ir::Expr *, const ir::Expr *>> proveByShape(
    ir::Context &C,
    const std::vector<std::pair<const ir::Expr *, const ir::Expr *>> &Pairs,
    const std::vector<const ir::Expr *> &Assumptions,
    const smt::SolverOptions &Solver, Unification &U,
    const std::unordered_map<const ir::Expr *, const ir::Expr *> &Where,
    ProvedEqualities::Scope *Memo = nullptr);

/// Which of the pairs are equal under Assumptions, asked a few hundred at
/// a time (pairs a counterexample separates are left out and the rest asked
/// again): for expressions paired by other means, such as the guards of a
/// write and of the element it writes.
std::vector<bool>
proveEqual(ir::Context &C,
           const std::vector<std::pair<const ir::Expr *, const ir::Expr *>> &Pairs,
           const std::vector<const ir::Expr *> &Assumptions,
           const smt::SolverOptions &Solver,
           ProvedEqualities::Scope *Memo = nullptr);

/// Rewrites an expression under a condition: every conjunct of the
/// condition becomes true (its negation false), or, assuming the condition
/// false, every disjunct false; and a comparison of an integer with a
/// constant that the conjuncts comparing the same integer with constants
/// decide (x < 1024 holding, x <= 1024 is true and x == 2000 false). Equal
/// to the original wherever the condition has that value: a write's value
/// under its guard (the only place it matters), a select's arms under its
/// condition.
class GuardSimplifier {
public:
  explicit GuardSimplifier(ir::Context &C) : C(C) {}
  const ir::Expr *operator()(const ir::Expr *E, const ir::Expr *Guard,
                             bool Holds = true);

  /// The values an integer may take where the condition has its value.
  struct Range {
    int64_t SignedLow, SignedHigh;
    uint64_t UnsignedLow, UnsignedHigh;
  };

private:
  ir::Context &C;
  struct Known {
    std::unordered_map<const ir::Expr *, const ir::Expr *> Memo;
    std::unordered_map<const ir::Expr *, Range> Ranges;
  };
  std::map<std::pair<const ir::Expr *, bool>, Known> Done;
};

/// Rewrites expressions into the canonical form above, remembering what it
/// made (one instance per pair check).
class Canonicalizer {
public:
  /// Aligned: what the assumptions the expressions are compared under say
  /// of their symbols' low bits and unsigned bounds (alignmentsFrom).
  explicit Canonicalizer(ir::Context &C, Alignments Aligned = {})
      : C(C), Under(C), Aligned(std::move(Aligned)) {}
  /// Only the integer identities (integerRewrite), everything else rebuilt
  /// as it is: launch arithmetic in one spelling before it is unified.
  static Canonicalizer integerOnly(ir::Context &C, Alignments Aligned = {}) {
    Canonicalizer K(C, std::move(Aligned));
    K.IntegerOnly = true;
    return K;
  }
  /// E with Map's terms replaced, then in canonical form.
  const ir::Expr *
  operator()(const ir::Expr *E,
             const std::unordered_map<const ir::Expr *, const ir::Expr *> &Map);
  /// Conditions (i1) the forms made so far are exact under, beyond the
  /// assumptions given: `0 <= a` for each (a + c) srem n taken as
  /// (a + h) srem n + l, the contiguity Triton's axis analysis gives a
  /// remainder of an aligned offset (the lowering loads a vector of lanes
  /// from one remainder). A check asks its queries under them too and
  /// states them in its bound.
  const std::vector<const ir::Expr *> &assumed() const { return Assumed; }

private:
  ir::Context &C;
  GuardSimplifier Under;
  Alignments Aligned;
  std::unordered_map<const ir::Expr *, const ir::Expr *> Done;
  std::set<const ir::Expr *> InProgress;
  bool IntegerOnly = false;
  std::vector<const ir::Expr *> Assumed;
  const ir::Expr *rewrite(const ir::Expr *E, std::vector<const ir::Expr *> Ops);
  const ir::Expr *integerRewrite(const ir::Expr *E,
                                 const std::vector<const ir::Expr *> &Ops);
  const ir::Expr *rebuild(const ir::Expr *E,
                          const std::vector<const ir::Expr *> &Ops);
};

/// Whether E is a launch term: integer or boolean, built from parameters,
/// program ids, the grid and constants only.
bool isLaunchTerm(const ir::Expr *E,
                  std::unordered_map<const ir::Expr *, bool> &Cache);

} // namespace stagecheck::stages

#endif

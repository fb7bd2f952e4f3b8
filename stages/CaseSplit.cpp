//===- CaseSplit.cpp - A query split on the kernel's uniform branches -----===//
#include "stages/CaseSplit.h"
#include "stages/Falsify.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

using Clock = std::chrono::steady_clock;

bool uniformLeaf(const Expr *N) {
  if (N->op() == Op::Read || N->op() == Op::Call)
    return false;
  if (N->op() != Op::Symbol)
    return true;
  switch (N->role()) {
  case SymbolRole::Param:
  case SymbolRole::ProgramId:
  case SymbolRole::NumPrograms:
    return true;
  default:
    return false;
  }
}

bool isBooleanConnective(const Expr *N) {
  if (!N->type().isBool())
    return false;
  switch (N->op()) {
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Not:
    return true;
  default:
    return false;
  }
}

class Splitter {
public:
  Splitter(Context &C, const smt::Query &Q, const smt::SolverOptions &S,
           const CaseSplitOptions &O, CaseSplitStats &Stats)
      : C(C), Q(Q), S(S), O(O), Stats(Stats), Budget(S.TimeoutMs) {}

  smt::QueryResult run() {
    auto Start = Clock::now();
    smt::QueryResult R = split(Q.Violation, 0);
    R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
    R.Work = Budget.spentMs() / 1000;
    return R;
  }

private:
  smt::QueryResult split(const Expr *Violation, unsigned Depth) {
    if (Violation->isFalse()) {
      ++Stats.Folded;
      return proved();
    }
    std::vector<const Expr *> Atoms;
    if (Depth < O.MaxDepth && Stats.Solved < O.MaxCases)
      Atoms = uniformBranchConditions(Violation);
    if (Atoms.empty())
      return leaf(Violation);
    const Expr *Atom = Atoms.front();
    for (bool Value : {true, false}) {
      Literals.push_back(Value ? Atom : C.notOf(Atom));
      smt::QueryResult R;
      if (!feasible()) {
        ++Stats.Infeasible;
        R = proved();
      } else {
        R = split(substitute(C, Violation, Atom, Value), Depth + 1);
      }
      Literals.pop_back();
      if (R.Kind != smt::Outcome::Proved)
        return R;
    }
    return proved();
  }

  /// Whether the literals of this path can hold together (asked alone: a
  /// weaker question than with the assumptions, so dropping on it is sound).
  bool feasible() {
    const Expr *All = C.trueExpr();
    for (const Expr *L : Literals)
      All = C.andOf(All, L);
    if (All->isFalse())
      return false;
    smt::QueryResult R = ask({Q.Name + " (case)", All, {}, Q.Arithmetic});
    return R.Kind != smt::Outcome::Proved;
  }

  smt::QueryResult leaf(const Expr *Violation) {
    ++Stats.Solved;
    smt::Query Case = Q;
    Case.Violation = Violation;
    Case.Assumptions.insert(Case.Assumptions.end(), Literals.begin(),
                            Literals.end());
    return ask(Case);
  }

  /// The cases share the whole query's budget.
  smt::QueryResult ask(const smt::Query &Case) {
    smt::QueryResult R;
    if (Budget.spent()) {
      R.Reason = Budget.spentReason();
      return R;
    }
    R = smt::solve(Case, Budget.limit(S));
    Budget.charge(R);
    return R;
  }

  static smt::QueryResult proved() {
    smt::QueryResult R;
    R.Kind = smt::Outcome::Proved;
    return R;
  }

  Context &C;
  const smt::Query &Q;
  smt::SolverOptions S;
  const CaseSplitOptions &O;
  CaseSplitStats &Stats;
  smt::WorkBudget Budget;
  std::vector<const Expr *> Literals;
};

} // namespace

std::vector<const Expr *> uniformBranchConditions(const Expr *Violation) {
  const Expr *Roots[] = {Violation};
  return uniformBranchConditions(Roots);
}

std::vector<const Expr *>
uniformBranchConditions(std::span<const Expr *const> Roots) {
  std::vector<const Expr *> Nodes = postOrder(Roots);
  // Uniform: built from parameters and constants only.
  std::unordered_set<const Expr *> Uniform;
  for (const Expr *N : Nodes) {
    bool U = N->numOperands() ? true : uniformLeaf(N);
    if (N->op() == Op::Read || N->op() == Op::Call)
      U = false;
    for (const Expr *O : N->operands())
      U &= Uniform.count(O) > 0;
    if (U)
      Uniform.insert(N);
  }
  // The comparisons in the boolean structure of each select's condition.
  std::unordered_map<const Expr *, unsigned> Uses;
  std::vector<const Expr *> Order;
  for (const Expr *N : Nodes) {
    if (N->op() != Op::Select)
      continue;
    std::vector<const Expr *> Work = {N->operand(0)};
    std::unordered_set<const Expr *> Seen;
    while (!Work.empty()) {
      const Expr *B = Work.back();
      Work.pop_back();
      if (!Seen.insert(B).second)
        continue;
      if (isBooleanConnective(B)) {
        Work.insert(Work.end(), B->operands().begin(), B->operands().end());
      } else if (B->op() == Op::ICmp && Uniform.count(B) && !B->isConst()) {
        if (Uses[B]++ == 0)
          Order.push_back(B);
      }
    }
  }
  std::stable_sort(
      Order.begin(), Order.end(),
      [&](const Expr *A, const Expr *B) { return Uses[A] > Uses[B]; });
  return Order;
}

const Expr *substitute(Context &C, const Expr *E, const Expr *Atom,
                       bool Value) {
  const Expr *Roots[] = {E};
  std::unordered_map<const Expr *, const Expr *> Memo;
  for (const Expr *N : postOrder(Roots)) {
    if (N == Atom) {
      Memo[N] = C.boolean(Value);
      continue;
    }
    std::vector<const Expr *> Ops;
    bool Same = true;
    for (const Expr *O : N->operands()) {
      Ops.push_back(Memo.at(O));
      Same &= Ops.back() == O;
    }
    Memo[N] = Same ? N : C.withOperands(N, Ops);
  }
  return Memo.at(E);
}

std::vector<std::pair<const Expr *, bool>>
fixedConditions(Context &C, const std::vector<const Expr *> &Conditions,
                const std::vector<const Expr *> &Assumptions,
                const smt::SolverOptions &S, unsigned TimeoutMs,
                unsigned TotalMs) {
  smt::WorkBudget Budget(TotalMs);
  smt::SolverOptions Quick = S;
  Quick.TimeoutMs = std::min(Quick.TimeoutMs, TimeoutMs);
  std::vector<std::pair<const Expr *, bool>> Fixed;
  for (const Expr *Cond : Conditions) {
    if (Budget.spent())
      break;
    for (bool Value : {true, false}) {
      const Expr *Other = Value ? C.notOf(Cond) : Cond;
      // An input testing finds where it is !Value says as much as a model.
      const Expr *Witnessed = Other;
      for (const Expr *A : Assumptions)
        Witnessed = C.andOf(Witnessed, A);
      if (satisfyByTesting(Witnessed, WitnessTestingMs))
        continue;
      smt::QueryResult R =
          smt::solve({"constant condition", Other, Assumptions, smt::Mode::IEEE},
                     Quick);
      Budget.charge(R);
      if (R.Kind == smt::Outcome::Proved) {
        Fixed.push_back({Cond, Value});
        break;
      }
      // A model where Cond is !Value: it is not fixed to Value. Whether it
      // can be Value is asked next.
      if (R.Kind != smt::Outcome::Counterexample)
        break;
    }
  }
  return Fixed;
}

smt::QueryResult solveByCases(Context &C, const smt::Query &Q,
                              const smt::SolverOptions &S,
                              const CaseSplitOptions &O,
                              CaseSplitStats *Stats) {
  CaseSplitStats Local;
  return Splitter(C, Q, S, O, Stats ? *Stats : Local).run();
}

} // namespace stagecheck::stages

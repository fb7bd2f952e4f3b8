//===- SplitDefinedness.cpp - A definedness query, one way at a time -------===//

#include "stages/SplitDefinedness.h"

#include "ir/Effects.h"

#include <chrono>
#include <map>
#include <set>
#include <unordered_map>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

/// E's conjuncts: through and, and through not of an or.
void conjuncts(Context &C, const Expr *E, std::vector<const Expr *> &Out) {
  if (E->isTrue())
    return;
  if (E->op() == Op::And && E->type().isBool()) {
    for (const Expr *O : E->operands())
      conjuncts(C, O, Out);
    return;
  }
  if (E->op() == Op::Not && E->operand(0)->op() == Op::Or) {
    for (const Expr *O : E->operand(0)->operands())
      conjuncts(C, C.notOf(O), Out);
    return;
  }
  Out.push_back(E);
}

/// E's disjuncts, through or.
void disjuncts(const Expr *E, std::vector<const Expr *> &Out) {
  if (E->isFalse())
    return;
  if (E->op() == Op::Or && E->type().isBool()) {
    for (const Expr *O : E->operands())
      disjuncts(O, Out);
    return;
  }
  Out.push_back(E);
}

/// What a condition reads: buffer elements and free symbols (a thread's
/// unspecified values), which tie a disjunct to the conjuncts about them.
/// Parameters, program and thread ids are everyone's and tie nothing.
bool isDatum(const Expr *E) {
  return E->op() == Op::Read ||
         (E->op() == Op::Symbol && E->role() == SymbolRole::Free);
}

std::set<const Expr *> data(const Expr *E) {
  std::set<const Expr *> Out;
  for (const Expr *N : postOrder(std::span<const Expr *const>(&E, 1)))
    if (isDatum(N))
      Out.insert(N);
  return Out;
}

/// Q with each datum a fresh symbol named by its first appearance: the
/// same node for two questions that differ only in what they read.
const Expr *canonical(Context &C, const Expr *Q) {
  std::unordered_map<const Expr *, const Expr *> Rename;
  for (const Expr *N : postOrder(std::span<const Expr *const>(&Q, 1)))
    if (isDatum(N) && !Rename.count(N))
      Rename[N] = C.symbol("split.datum." + std::to_string(Rename.size()),
                           N->type());
  return substitute(C, Q, Rename);
}

} // namespace

SplitProof proveDisjunctByDisjunct(Context &C, const Expr *Defined,
                                   const Expr *Undefined,
                                   const std::vector<const Expr *> &Assumptions,
                                   smt::Mode Arithmetic,
                                   const smt::SolverOptions &Solver,
                                   const std::string &Name,
                                   unsigned MaxQuestions) {
  auto Start = std::chrono::steady_clock::now();
  SplitProof P;
  auto Done = [&](std::string Why) {
    P.Why = std::move(Why);
    P.Seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start).count();
    return P;
  };
  std::vector<const Expr *> Ways, Facts;
  disjuncts(Undefined, Ways);
  conjuncts(C, Defined, Facts);
  P.Disjuncts = unsigned(Ways.size());
  if (Ways.size() < 2)
    return Done("one way only");
  // The conjuncts about each datum.
  std::map<const Expr *, std::vector<size_t>> About;
  for (size_t K = 0; K < Facts.size(); ++K)
    for (const Expr *D : data(Facts[K]))
      About[D].push_back(K);
  const Expr *Assumed = C.trueExpr();
  for (const Expr *A : Assumptions)
    Assumed = C.andOf(Assumed, A);
  smt::SolverOptions Quick = Solver;
  Quick.TimeoutMs = std::min(Quick.TimeoutMs, 5000u);
  std::unordered_map<const Expr *, bool> Answered;
  for (const Expr *Way : Ways) {
    std::set<size_t> Relevant;
    for (const Expr *D : data(Way))
      if (auto It = About.find(D); It != About.end())
        Relevant.insert(It->second.begin(), It->second.end());
    const Expr *Q = C.andOf(Assumed, Way);
    for (size_t K : Relevant)
      Q = C.andOf(Q, Facts[K]);
    const Expr *Shape = canonical(C, Q);
    if (auto It = Answered.find(Shape); It != Answered.end()) {
      if (!It->second)
        return Done("a way is not ruled out on its own");
      continue;
    }
    if (P.Asked == MaxQuestions)
      return Done("more than " + std::to_string(MaxQuestions) +
                  " shapes of way");
    ++P.Asked;
    smt::QueryResult R = smt::solve({Name, Shape, {}, Arithmetic}, Quick);
    Answered[Shape] = R.Kind == smt::Outcome::Proved;
    if (R.Kind != smt::Outcome::Proved)
      return Done("a way is not ruled out on its own");
  }
  P.Proved = true;
  return Done("");
}

std::string splitDetail(const SplitProof &P) {
  return "each of " + std::to_string(P.Disjuncts) +
         " ways to be undefined ruled out on its own (" +
         std::to_string(P.Asked) + " question" + (P.Asked == 1 ? "" : "s") +
         ")";
}

} // namespace stagecheck::stages

//===- SplitDefinedness.cpp - A definedness query, one way at a time -------===//

#include "stages/SplitDefinedness.h"

#include "ir/Effects.h"
#include "ir/Interpreter.h"

#include <algorithm>
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
/// Renamed: each fresh symbol's name and the datum it stands for.
const Expr *canonical(Context &C, const Expr *Q,
                      std::map<std::string, const Expr *> &Renamed) {
  std::unordered_map<const Expr *, const Expr *> Rename;
  for (const Expr *N : postOrder(std::span<const Expr *const>(&Q, 1)))
    if (isDatum(N) && !Rename.count(N)) {
      std::string Name = "split.datum." + std::to_string(Rename.size());
      Rename[N] = C.symbol(Name, N->type());
      Renamed[Name] = N;
    }
  return substitute(C, Q, Rename);
}

/// A question's model in the caller's terms: each fresh symbol's value
/// given to the symbol or read it stands for, a read at the model's value
/// of its index expression.
Env inCallersTerms(const Env &Model,
                   const std::map<std::string, const Expr *> &Renamed) {
  Env Out;
  for (const auto &[Name, V] : Model.symbols())
    if (!Renamed.count(Name))
      Out.setSymbol(Name, V);
  for (const auto &[Key, V] : Model.reads())
    Out.setRead(Key.first, Key.second, V);
  // A datum the question no longer holds (an element read only in the
  // index of another read, which became a symbol of its own) and a symbol
  // only such an index held answer the question at any value: zero.
  std::vector<std::pair<const Expr *, Value>> Reads;
  for (const auto &[Name, D] : Renamed) {
    const Value *Given = Model.symbol(Name);
    Value V = Given ? *Given : Value::ofBits(D->type(), 0);
    if (D->op() == Op::Symbol)
      Out.setSymbol(D->name(), V);
    else
      Reads.push_back({D, V});
  }
  for (const auto &[D, V] : Reads) {
    const Expr *Index = D->operand(0);
    for (const Expr *N : postOrder(std::span<const Expr *const>(&Index, 1)))
      if (N->op() == Op::Symbol && !Out.symbol(N->name()))
        Out.setSymbol(N->name(), Value::ofBits(N->type(), 0));
  }
  // A read's index may read another renamed element (a gather's index
  // into a table): indices are settled in rounds, each from the elements
  // the rounds before set; an index that reads an unset element waits.
  auto Unset = [](const std::string &, uint64_t, Type) -> Value {
    throw EvalError("an element not settled yet");
  };
  for (bool Progress = true; Progress && !Reads.empty();) {
    Progress = false;
    for (size_t K = 0; K < Reads.size();) {
      const auto &[D, V] = Reads[K];
      try {
        Interpreter I(Out, Unset);
        Out.setRead(D->name(), I.eval(D->operand(0)).Bits, V);
        Reads.erase(Reads.begin() + K);
        Progress = true;
      } catch (const EvalError &) {
        ++K;
      }
    }
  }
  return Out;
}

/// i1: A and B (one type) have the same bits.
const Expr *sameBits(Context &C, const Expr *A, const Expr *B) {
  if (!A->type().isFloat())
    return C.eq(A, B);
  Type Bits = Type::i(A->type().bits());
  return C.eq(C.cast(Op::Bitcast, A, Bits), C.cast(Op::Bitcast, B, Bits));
}

/// Whether two element indices agree at a few points (every symbol they
/// read set alike, every element read one made-up value): a guess that
/// two reads of a buffer are one element, which the question then states
/// as what it is, "the same index reads the same value", never assumes.
bool sameAtSamples(const Expr *A, const Expr *B) {
  std::set<const Expr *> Symbols;
  for (const Expr *Root : {A, B})
    for (const Expr *N : postOrder(std::span<const Expr *const>(&Root, 1)))
      if (N->op() == Op::Symbol)
        Symbols.insert(N);
  for (uint64_t Seed : {0u, 1u, 5u}) {
    Env E;
    for (const Expr *S : Symbols)
      E.setSymbol(S->name(),
                  Value::ofBits(S->type(), Seed * 7 + S->name().size() % 3));
    Interpreter I(E, [Seed](const std::string &, uint64_t Index, Type T) {
      return Value::ofBits(T, (Index * 31 + Seed * 13 + 3) % 97);
    });
    try {
      if (I.eval(A).Bits != I.eval(B).Bits)
        return false;
    } catch (const EvalError &) {
      return false;
    }
  }
  return true;
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
  // The facts' reads by buffer: a way's read of an element the facts
  // read through another index expression (the two stages spell an
  // element's address each their own way) is linked to it.
  auto BufferOf = [](const Expr *Read) {
    return Read->name() + " " + Read->type().str();
  };
  std::map<std::string, std::vector<const Expr *>> FactReads;
  for (const auto &[D, Ks] : About)
    if (D->op() == Op::Read)
      FactReads[BufferOf(D)].push_back(D);
  std::unordered_map<const Expr *, bool> Answered;
  // A quarter of a second of solver work a way, at least 10 s: a gather's
  // 255 ways took 9.3 s on one machine and past a fixed 10 s on a slower
  // one, and the whole question they replace then reached its limit.
  smt::WorkBudget Budget(
      unsigned(std::max<size_t>(10000, 250 * Ways.size())));
  for (const Expr *Way : Ways) {
    if (Budget.spent())
      return Done("out of time for the ways");
    std::set<size_t> Relevant;
    const Expr *Links = C.trueExpr();
    for (const Expr *D : data(Way)) {
      if (auto It = About.find(D); It != About.end()) {
        Relevant.insert(It->second.begin(), It->second.end());
        continue;
      }
      if (D->op() != Op::Read)
        continue;
      auto Same = FactReads.find(BufferOf(D));
      if (Same == FactReads.end())
        continue;
      for (const Expr *F : Same->second)
        if (sameAtSamples(D->operand(0), F->operand(0))) {
          const std::vector<size_t> &Ks = About.at(F);
          Relevant.insert(Ks.begin(), Ks.end());
          Links = C.andOf(Links, C.implies(C.eq(D->operand(0), F->operand(0)),
                                           sameBits(C, D, F)));
        }
    }
    const Expr *Q = C.andOf(C.andOf(Assumed, Way), Links);
    for (size_t K : Relevant)
      Q = C.andOf(Q, Facts[K]);
    std::map<std::string, const Expr *> Renamed;
    const Expr *Shape = canonical(C, Q, Renamed);
    if (auto It = Answered.find(Shape); It != Answered.end()) {
      if (!It->second)
        return Done("a way is not ruled out on its own");
      continue;
    }
    if (P.Asked == MaxQuestions)
      return Done("more than " + std::to_string(MaxQuestions) +
                  " shapes of way");
    ++P.Asked;
    smt::QueryResult R =
        smt::solve({Name, Shape, {}, Arithmetic}, Quick);
    Budget.charge(R);
    Answered[Shape] = R.Kind == smt::Outcome::Proved;
    if (R.Kind == smt::Outcome::Counterexample)
      P.Candidate = inCallersTerms(R.Model, Renamed);
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

//===- Unify.cpp - Launch terms matched, expressions in one form ----------===//
#include "stages/Unify.h"

#include "ir/Interpreter.h"
#include "ir/Text.h"
#include <cstdio>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

bool isLaunchTerm(const Expr *E, std::unordered_map<const Expr *, bool> &Cache) {
  if (auto It = Cache.find(E); It != Cache.end())
    return It->second;
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots)) {
    if (Cache.count(N))
      continue;
    bool L = N->type().isInt();
    switch (N->op()) {
    case Op::Const:
      break;
    case Op::Symbol:
      L &= N->role() == SymbolRole::Param || N->role() == SymbolRole::ProgramId ||
           N->role() == SymbolRole::NumPrograms;
      break;
    case Op::Read:
    case Op::Call:
      L = false;
      break;
    default:
      for (const Expr *O : N->operands())
        L &= O->type().isInt() && Cache.at(O);
    }
    Cache[N] = L;
  }
  return Cache.at(E);
}

namespace {

using Fingerprint = std::vector<uint64_t>;

/// Inputs on which terms are compared: launch symbols drawn at random
/// (small and large), kept only when they satisfy the assumptions.
std::vector<Env> samples(const std::vector<const Expr *> &Symbols,
                         const std::vector<const Expr *> &Assumptions,
                         const smt::SolverOptions &Solver, Context &C) {
  std::vector<Env> Out;
  std::mt19937_64 Rng(7);
  auto Accept = [&](const Env &E) {
    try {
      Interpreter I(E);
      for (const Expr *A : Assumptions)
        if (!I.eval(A).isTrue())
          return false;
    } catch (const EvalError &) {
      return false;
    }
    return true;
  };
  for (unsigned Try = 0; Try < 96 && Out.size() < 8; ++Try) {
    Env E;
    uint64_t Pid = Rng() % (Try % 3 == 0 ? 64 : Try % 3 == 1 ? 1u << 20 : 1u << 30);
    for (const Expr *S : Symbols) {
      uint64_t V;
      if (S->role() == SymbolRole::ProgramId)
        V = Pid;
      else if (S->role() == SymbolRole::NumPrograms)
        V = Pid + 1 + Rng() % 64;
      else
        V = Try % 2 ? Rng() : Rng() % (Try % 4 == 0 ? 16 : 4096);
      E.setSymbol(S->name(), Value::ofBits(S->type(), V));
    }
    if (Accept(E))
      Out.push_back(E);
  }
  if (Out.size() < 2) {
    // Assumptions random inputs rarely meet (a loop's trip count): one
    // input the solver finds, then nearby ones.
    const Expr *All = C.trueExpr();
    for (const Expr *A : Assumptions)
      All = C.andOf(All, A);
    smt::SolverOptions Quick = Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, 4000u);
    Quick.DumpDir.clear();
    smt::QueryResult R = smt::solve({"assumptions", All, {}, smt::Mode::IEEE}, Quick);
    if (R.Kind == smt::Outcome::Counterexample) {
      Env Base = R.Model;
      for (const Expr *S : Symbols)
        if (!Base.symbol(S->name()))
          Base.setSymbol(S->name(), Value::ofBits(S->type(), 0));
      Out.push_back(Base);
      for (unsigned Try = 0; Try < 64 && Out.size() < 6; ++Try) {
        Env E = Base;
        const Expr *S = Symbols[Rng() % Symbols.size()];
        E.setSymbol(S->name(), Value::ofBits(S->type(),
                                             Base.symbol(S->name())->Bits +
                                                 1 + Rng() % 8));
        if (Accept(E))
          Out.push_back(E);
      }
    }
  }
  return Out;
}

std::optional<Fingerprint> fingerprint(const Expr *E,
                                       std::vector<Interpreter> &Inputs) {
  Fingerprint F;
  try {
    for (Interpreter &I : Inputs)
      F.push_back(I.eval(E).Bits);
  } catch (const EvalError &) {
    return std::nullopt;
  }
  return F;
}

bool constantPrint(const Fingerprint &F) {
  return std::all_of(F.begin(), F.end(), [&](uint64_t V) { return V == F[0]; });
}

/// Proves every pair equal under the assumptions; pairs a counterexample
/// separates are dropped and the rest asked again.
void prove(Context &C, std::vector<std::pair<const Expr *, const Expr *>> Pairs,
           const std::vector<const Expr *> &Assumptions,
           const smt::SolverOptions &Solver, Unification &U, unsigned Depth) {
  for (unsigned Round = 0; Round < 4 && !Pairs.empty(); ++Round) {
    const Expr *Differs = C.falseExpr();
    for (const auto &[A, B] : Pairs)
      Differs = C.orOf(Differs, C.icmp(ICmpPredicate::Ne, A, B));
    const Expr *Violation = Differs;
    for (const Expr *A : Assumptions)
      Violation = C.andOf(Violation, A);
    smt::SolverOptions Quick = Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, 10000u);
    Quick.DumpDir.clear();
    smt::QueryResult R =
        smt::solve({"launch terms", Violation, {}, smt::Mode::IEEE}, Quick);
    if (R.Kind == smt::Outcome::Proved) {
      for (const auto &[A, B] : Pairs)
        U.Map[A] = B;
      U.Proved += unsigned(Pairs.size());
      return;
    }
    if (R.Kind == smt::Outcome::Unknown) {
      if (Depth >= 3 || Pairs.size() < 2)
        return;
      size_t Half = Pairs.size() / 2;
      prove(C, {Pairs.begin(), Pairs.begin() + long(Half)}, Assumptions, Solver,
            U, Depth + 1);
      prove(C, {Pairs.begin() + long(Half), Pairs.end()}, Assumptions, Solver, U,
            Depth + 1);
      return;
    }
    // Keep the pairs the model does not separate.
    Env M = R.Model;
    std::vector<std::pair<const Expr *, const Expr *>> Kept;
    for (const auto &[A, B] : Pairs) {
      try {
        std::vector<const Expr *> Roots = {A, B};
        for (const Expr *N : postOrder(Roots))
          if (N->op() == Op::Symbol && !M.symbol(N->name()))
            M.setSymbol(N->name(), Value::ofBits(N->type(), 0));
        Interpreter J(M);
        if (J.eval(A).Bits == J.eval(B).Bits)
          Kept.push_back({A, B});
      } catch (const EvalError &) {
      }
    }
    if (getenv("STAGECHECK_DEBUG_UNIFY"))
      for (const auto &[A, B] : Pairs)
        if (std::find(Kept.begin(), Kept.end(), std::make_pair(A, B)) == Kept.end())
          fprintf(stderr, "dropped:\n%s\n%s\n", printExpr(A).c_str(), printExpr(B).c_str());
    if (Kept.size() == Pairs.size())
      return; // the model is not understood: prove nothing
    Pairs = std::move(Kept);
  }
}

} // namespace

Unification unifyLaunchTerms(Context &C, const std::vector<const Expr *> &Source,
                             const std::vector<const Expr *> &Target,
                             const std::vector<const Expr *> &Assumptions,
                             const smt::SolverOptions &Solver) {
  auto Start = std::chrono::steady_clock::now();
  Unification U;
  std::unordered_map<const Expr *, bool> Launch;
  std::set<const Expr *> SourceNodes;
  std::vector<const Expr *> SourceTerms, Symbols;
  std::set<const Expr *> SymbolSet;
  auto NoteSymbols = [&](const Expr *E) {
    const Expr *Roots[] = {E};
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Symbol && SymbolSet.insert(N).second)
        Symbols.push_back(N);
  };
  for (const Expr *N : postOrder(Source)) {
    SourceNodes.insert(N);
    if (!N->isConst() && isLaunchTerm(N, Launch)) {
      SourceTerms.push_back(N);
      if (N->op() == Op::Symbol && SymbolSet.insert(N).second)
        Symbols.push_back(N);
    }
  }
  // Maximal launch terms of the target that the source does not share.
  std::vector<const Expr *> TargetTerms;
  std::set<const Expr *> Seen;
  std::vector<const Expr *> Work(Target.rbegin(), Target.rend());
  while (!Work.empty()) {
    const Expr *N = Work.back();
    Work.pop_back();
    if (!Seen.insert(N).second || N->isConst() || SourceNodes.count(N))
      continue;
    if (isLaunchTerm(N, Launch) && N->numOperands() > 0) {
      TargetTerms.push_back(N);
      NoteSymbols(N);
      continue;
    }
    for (const Expr *O : N->operands())
      Work.push_back(O);
  }
  for (const Expr *A : Assumptions)
    NoteSymbols(A);
  if (TargetTerms.empty() && SourceTerms.empty())
    return U;
  std::vector<Env> Envs = samples(Symbols, Assumptions, Solver, C);
  if (Envs.size() < 2)
    return U;
  std::vector<Interpreter> Inputs;
  for (const Env &E : Envs)
    Inputs.emplace_back(E);
  std::map<std::pair<std::string, Fingerprint>, const Expr *> BySource;
  std::vector<std::pair<const Expr *, const Expr *>> Pairs;
  for (const Expr *S : SourceTerms) {
    std::optional<Fingerprint> F = fingerprint(S, Inputs);
    if (!F)
      continue;
    if (S->numOperands() > 0 && constantPrint(*F))
      Pairs.push_back({S, C.constant(S->type(), (*F)[0])});
    else if (!S->type().isBool())
      BySource.emplace(std::make_pair(S->type().str(), *F), S);
  }
  // A target term that matches nothing may have parts that do. Booleans
  // have too few values for a fingerprint to tell terms apart: they are
  // matched only with constants, and their parts are matched as well.
  std::vector<const Expr *> Pending = TargetTerms;
  std::set<const Expr *> Tried;
  while (!Pending.empty()) {
    const Expr *T = Pending.back();
    Pending.pop_back();
    if (!Tried.insert(T).second || T->isConst() || SourceNodes.count(T))
      continue;
    std::optional<Fingerprint> F = fingerprint(T, Inputs);
    bool Boolean = T->type().isBool();
    if (F && constantPrint(*F)) {
      Pairs.push_back({T, C.constant(T->type(), (*F)[0])});
      if (!Boolean)
        continue;
    } else if (F && !Boolean) {
      auto It = BySource.find({T->type().str(), *F});
      if (It != BySource.end()) {
        Pairs.push_back({T, It->second});
        continue;
      }
    }
    for (const Expr *O : T->operands())
      Pending.push_back(O);
  }
  U.Proposed = unsigned(Pairs.size());
  prove(C, std::move(Pairs), Assumptions, Solver, U, 0);
  // Comparisons of the same (now unified) operands with other predicates
  // (slt against ult where both are non-negative).
  std::map<std::pair<const Expr *, const Expr *>, std::vector<const Expr *>> Compares;
  for (const Expr *S : SourceTerms)
    if (S->op() == Op::ICmp) {
      Compares[{S->operand(0), S->operand(1)}].push_back(S);
      Compares[{S->operand(1), S->operand(0)}].push_back(S);
    }
  auto Mapped = [&](const Expr *E) {
    auto It = U.Map.find(E);
    return It == U.Map.end() ? E : It->second;
  };
  std::vector<std::pair<const Expr *, const Expr *>> Second;
  for (const Expr *T : Tried)
    if (T->op() == Op::ICmp && !U.Map.count(T)) {
      auto It = Compares.find({Mapped(T->operand(0)), Mapped(T->operand(1))});
      if (It != Compares.end())
        for (const Expr *S : It->second) {
          std::optional<Fingerprint> A = fingerprint(T, Inputs),
                                     B = fingerprint(S, Inputs);
          if (A && B && *A == *B) {
            Second.push_back({T, S});
            break;
          }
        }
    }
  U.Proposed += unsigned(Second.size());
  prove(C, std::move(Second), Assumptions, Solver, U, 0);
  U.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start)
                  .count();
  return U;
}

//===----------------------------------------------------------------------===//
// Canonical form
//===----------------------------------------------------------------------===//

const Expr *Canonicalizer::operator()(
    const Expr *Root,
    const std::unordered_map<const Expr *, const Expr *> &Map) {
  std::vector<std::pair<const Expr *, bool>> Work = {{Root, false}};
  while (!Work.empty()) {
    auto [N, Expanded] = Work.back();
    Work.pop_back();
    if (Done.count(N))
      continue;
    if (auto It = Map.find(N); It != Map.end()) {
      Done[N] = It->second;
      continue;
    }
    if (N->numOperands() == 0) {
      Done[N] = N;
      continue;
    }
    if (!Expanded) {
      Work.push_back({N, true});
      for (const Expr *O : N->operands())
        Work.push_back({O, false});
      continue;
    }
    std::vector<const Expr *> Ops;
    for (const Expr *O : N->operands())
      Ops.push_back(Done.at(O));
    Done[N] = rewrite(N, std::move(Ops));
  }
  return Done.at(Root);
}

const Expr *Canonicalizer::rebuild(const Expr *E,
                                   const std::vector<const Expr *> &Ops) {
  bool Changed = false;
  for (size_t I = 0; I < Ops.size(); ++I)
    Changed |= Ops[I] != E->operand(unsigned(I));
  if (!Changed)
    return E;
  if (E->op() == Op::Read)
    return C.read(E->name(), E->type(), Ops[0]);
  return C.make(E->op(), Ops, E->rawAttribute(), E->type(),
                E->op() == Op::Call ? std::string_view(E->name())
                                    : std::string_view());
}

namespace {

/// A piece of a concatenation: Width bits of Whole starting at bit From,
/// placed at bit At.
struct Piece {
  const Expr *Whole;
  unsigned From, Width, At;
};

std::optional<Piece> pieceOf(const Expr *E) {
  unsigned At = 0;
  if (E->op() == Op::Shl && E->operand(1)->isConst()) {
    At = unsigned(E->operand(1)->constBits());
    E = E->operand(0);
  }
  if (E->op() == Op::ZExt)
    E = E->operand(0);
  unsigned Width = E->type().bits(), From = 0;
  if (E->op() == Op::Trunc) {
    E = E->operand(0);
    if (E->op() == Op::LShr && E->operand(1)->isConst()) {
      From = unsigned(E->operand(1)->constBits());
      E = E->operand(0);
    }
  }
  return Piece{E, From, Width, At};
}

/// X when E is an `or` of zero-extended, shifted pieces of X that put
/// every bit of X back where it was (a value stored byte by byte and
/// loaded again); nullptr otherwise.
const Expr *reassembled(const Expr *E) {
  std::vector<const Expr *> Terms, Work = {E};
  while (!Work.empty()) {
    const Expr *T = Work.back();
    Work.pop_back();
    if (T->op() == Op::Or) {
      Work.push_back(T->operand(0));
      Work.push_back(T->operand(1));
    } else {
      Terms.push_back(T);
    }
  }
  if (Terms.size() < 2)
    return nullptr;
  const Expr *Whole = nullptr;
  uint64_t Covered = 0;
  unsigned Bits = E->type().bits();
  for (const Expr *T : Terms) {
    std::optional<Piece> P = pieceOf(T);
    if (!P || P->From != P->At || P->At + P->Width > Bits ||
        (Whole && P->Whole != Whole))
      return nullptr;
    Whole = P->Whole;
    uint64_t Mask = (P->Width >= 64 ? ~uint64_t(0)
                                    : ((uint64_t(1) << P->Width) - 1))
                    << P->At;
    if (Covered & Mask)
      return nullptr;
    Covered |= Mask;
  }
  if (Whole->type() != E->type() || Covered != Value::mask(Bits))
    return nullptr;
  return Whole;
}

} // namespace

const Expr *Canonicalizer::rewrite(const Expr *E, std::vector<const Expr *> Ops) {
  if (E->op() == Op::Or && !E->type().isBool()) {
    const Expr *Built = rebuild(E, Ops);
    if (Built->op() == Op::Or)
      if (const Expr *Whole = reassembled(Built))
        return Whole;
  }
  if (E->op() == Op::Select) {
    const Expr *Cond = Ops[0];
    // Each arm matters only where the condition picks it.
    Ops[1] = Under(Ops[1], Cond, true);
    Ops[2] = Under(Ops[2], Cond, false);
    // select(c, select(c, x, y), z) = select(c, x, z), and on the other arm.
    if (Ops[1]->op() == Op::Select && Ops[1]->operand(0) == Cond)
      Ops[1] = Ops[1]->operand(1);
    if (Ops[2]->op() == Op::Select && Ops[2]->operand(0) == Cond)
      Ops[2] = Ops[2]->operand(2);
    return rebuild(E, Ops);
  }
  if (E->op() == Op::Read || E->op() == Op::Call)
    return rebuild(E, Ops);
  // -0.0 - x is -x when rounding to nearest (NaNs are one datum), as LLVM
  // folds it; fma's factors commute.
  if (E->op() == Op::FSub && E->rounding() == RoundingMode::NearestEven &&
      Ops[0]->isConst() &&
      Ops[0]->constBits() == (uint64_t(1) << (Ops[0]->type().bits() - 1)))
    return C.unary(Op::FNeg, Ops[1]);
  if (E->op() == Op::Fma && Ops[1]->id() < Ops[0]->id())
    std::swap(Ops[0], Ops[1]);
  // op(sel(c, a, b), k) = sel(c, op(a, k), op(b, k)) when every operand is
  // a select on c or a constant, with at least one select.
  const Expr *Cond = nullptr;
  bool Moves = true;
  for (const Expr *O : Ops) {
    if (O->op() == Op::Select) {
      if (!Cond)
        Cond = O->operand(0);
      Moves &= O->operand(0) == Cond;
    } else {
      Moves &= O->isConst();
    }
  }
  if (!Cond || !Moves)
    return rebuild(E, Ops);
  std::vector<const Expr *> Then, Else;
  for (const Expr *O : Ops) {
    Then.push_back(O->op() == Op::Select ? O->operand(1) : O);
    Else.push_back(O->op() == Op::Select ? O->operand(2) : O);
  }
  const Expr *T = rewrite(E, Then);
  const Expr *F = rewrite(E, Else);
  const Expr *Sel[] = {Cond, T, F};
  return C.make(Op::Select, Sel);
}

const Expr *GuardSimplifier::operator()(const Expr *Root, const Expr *Guard,
                                        bool Holds) {
  if (Guard->isConst())
    return Root;
  auto &Memo = Done[{Guard, Holds}];
  if (Memo.empty()) {
    // Holding, a conjunction's parts hold; failing, a disjunction's fail.
    Op Split = Holds ? Op::And : Op::Or;
    std::vector<const Expr *> Work = {Guard};
    while (!Work.empty()) {
      const Expr *G = Work.back();
      Work.pop_back();
      if (G->op() == Split && G->type().isBool()) {
        Work.push_back(G->operand(0));
        Work.push_back(G->operand(1));
        continue;
      }
      Memo[G] = C.boolean(Holds);
      Memo[C.notOf(G)] = C.boolean(!Holds);
    }
  }
  std::vector<std::pair<const Expr *, bool>> Work = {{Root, false}};
  while (!Work.empty()) {
    auto [N, Expanded] = Work.back();
    Work.pop_back();
    if (Memo.count(N))
      continue;
    if (N->numOperands() == 0) {
      Memo[N] = N;
      continue;
    }
    if (!Expanded) {
      Work.push_back({N, true});
      for (const Expr *O : N->operands())
        Work.push_back({O, false});
      continue;
    }
    std::vector<const Expr *> Ops;
    bool Changed = false;
    for (const Expr *O : N->operands()) {
      Ops.push_back(Memo.at(O));
      Changed |= Ops.back() != O;
    }
    if (!Changed)
      Memo[N] = N;
    else if (N->op() == Op::Read)
      Memo[N] = C.read(N->name(), N->type(), Ops[0]);
    else
      Memo[N] = C.make(N->op(), Ops, N->rawAttribute(), N->type(),
                       N->op() == Op::Call ? std::string_view(N->name())
                                           : std::string_view());
  }
  return Memo.at(Root);
}

} // namespace stagecheck::stages

//===- Unify.cpp - Launch terms matched, expressions in one form ----------===//
#include "stages/Unify.h"

#include "ir/Kernel.h"

#include "ir/Interpreter.h"
#include "ir/Text.h"
#include "stages/Falsify.h"
#include <cstdio>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <deque>
#include <numeric>
#include <map>
#include <random>
#include <set>
#include <unordered_set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

bool isLaunchTerm(const Expr *E, std::unordered_map<const Expr *, bool> &Cache) {
  if (auto It = Cache.find(E); It != Cache.end())
    return It->second;
  // Post order over the nodes not decided yet (a decided node's operands
  // are decided too): each node is looked at once per cache.
  std::vector<std::pair<const Expr *, bool>> Work = {{E, false}};
  while (!Work.empty()) {
    auto [N, Expanded] = Work.back();
    Work.pop_back();
    if (Cache.count(N))
      continue;
    if (!Expanded) {
      Work.push_back({N, true});
      for (const Expr *O : N->operands())
        if (!Cache.count(O))
          Work.push_back({O, false});
      continue;
    }
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

/// Whether an input satisfies every assumption (and evaluates).
bool meets(const Env &E, const std::vector<const Expr *> &Assumptions) {
  try {
    Interpreter I(E);
    for (const Expr *A : Assumptions)
      if (!I.eval(A).isTrue())
        return false;
  } catch (const EvalError &) {
    return false;
  }
  return true;
}

/// Inputs on which terms are compared: launch symbols drawn at random
/// (small and large), kept only when they satisfy the assumptions.
std::vector<Env> samples(const std::vector<const Expr *> &Symbols,
                         const std::vector<const Expr *> &Assumptions,
                         const smt::SolverOptions &Solver, Context &C) {
  std::vector<Env> Out;
  // Enough that terms which differ rarely agree on all of them (each false
  // match costs a solver round).
  constexpr size_t Wanted = 32;
  std::mt19937_64 Rng(7);
  auto Accept = [&](const Env &E) { return meets(E, Assumptions); };
  // Divisibility assumptions (srem(x, D) == 0) are met by construction.
  auto Divisible = [&](Env &E) {
    for (const Expr *A : Assumptions) {
      if (A->op() != Op::ICmp || A->icmpPredicate() != ICmpPredicate::Eq)
        continue;
      const Expr *L = A->operand(0), *R = A->operand(1);
      if (L->isConst())
        std::swap(L, R);
      if (!R->isConst() || R->constBits() != 0 || L->op() != Op::SRem ||
          L->operand(0)->op() != Op::Symbol || !L->operand(1)->isConst())
        continue;
      const Expr *X = L->operand(0);
      uint64_t D = L->operand(1)->constBits();
      if (const Value *V = E.symbol(X->name()); V && D)
        E.setSymbol(X->name(), Value::ofBits(X->type(), V->Bits / D * D));
    }
  };
  // The grid axis a program-id or grid-size symbol belongs to.
  auto AxisOf = [&C](const Expr *S) -> unsigned {
    for (unsigned Axis = 1; Axis < 3; ++Axis)
      if (S == programIdSymbol(C, Axis) || S == numProgramsSymbol(C, Axis))
        return Axis;
    return 0;
  };
  for (unsigned Try = 0; Try < 256 && Out.size() < Wanted; ++Try) {
    Env E;
    // The first programs, where masks differ, then any. Each axis draws
    // its own: with one id for all, pid.x == pid.y on every sample and a
    // transposed index looks like the plain one (a false match costs a
    // solver round). Axes y and z stay within CUDA's 65535.
    uint64_t Pid[3], Count[3];
    for (unsigned Axis = 0; Axis < 3; ++Axis) {
      Pid[Axis] = Try < 4 ? (Try + Axis) % 4
                          : Rng() % (Try % 3 == 0 ? 64
                                     : Try % 3 == 1 || Axis ? 1u << 15
                                                            : 1u << 30);
      Count[Axis] = Pid[Axis] + 1 + (Try < 4 ? Try : Rng() % 64);
    }
    for (const Expr *S : Symbols) {
      uint64_t V;
      if (S->role() == SymbolRole::ProgramId)
        V = Pid[AxisOf(S)];
      else if (S->role() == SymbolRole::NumPrograms)
        V = Count[AxisOf(S)];
      else if (S->role() == SymbolRole::Param)
        V = Try % 2 ? Rng() : Rng() % (Try % 4 == 0 ? 16 : 4096);
      else
        V = 0; // the shared base and other addresses: a valid small one
      E.setSymbol(S->name(), Value::ofBits(S->type(), V));
    }
    Divisible(E);
    if (Accept(E))
      Out.push_back(E);
  }
  if (Out.size() < 2) {
    // Assumptions random launches rarely meet (a loop's trip count): one
    // input that testing or else the solver finds, then nearby ones.
    const Expr *All = C.trueExpr();
    for (const Expr *A : Assumptions)
      All = C.andOf(All, A);
    std::optional<Env> Model = satisfyByTesting(All, AssumptionTestingMs);
    if (!Model) {
      smt::SolverOptions Quick = Solver;
      Quick.TimeoutMs = std::min(Quick.TimeoutMs, 4000u);
      smt::QueryResult R =
          smt::solve({"assumptions", All, {}, smt::Mode::IEEE}, Quick);
      if (R.Kind == smt::Outcome::Counterexample)
        Model = R.Model;
    }
    if (Model) {
      Env Base = *Model;
      for (const Expr *S : Symbols)
        if (!Base.symbol(S->name()))
          Base.setSymbol(S->name(), Value::ofBits(S->type(), 0));
      Out.push_back(Base);
      // Symbols no assumption mentions are drawn anew (a stride the
      // model happened to make 0 would make many terms look alike); the
      // others move a little from the model.
      std::set<const Expr *> Constrained;
      const Expr *Mentioned[] = {All};
      for (const Expr *N : postOrder(Mentioned))
        if (N->op() == Op::Symbol)
          Constrained.insert(N);
      for (unsigned Try = 0; Try < 256 && Out.size() < Wanted; ++Try) {
        Env E = Base;
        for (const Expr *S : Symbols) {
          uint64_t V = Base.symbol(S->name())->Bits;
          if (!Constrained.count(S) && S->role() == SymbolRole::Param)
            V = Try % 2 ? Rng() : Rng() % (Try % 4 == 0 ? 16 : 4096);
          else if (Constrained.count(S) && Rng() % 2 == 0)
            V += (Rng() % (uint64_t(1) << (1 + Rng() % 10))) *
                 (Rng() % 2 ? 1 : uint64_t(0) - 1);
          E.setSymbol(S->name(), Value::ofBits(S->type(), V));
        }
        Divisible(E);
        if (Accept(E))
          Out.push_back(E);
      }
    }
  }
  return Out;
}

/// E's values on the samples where Where (its context; null: always)
/// holds, as (holds, value) per sample; nullopt when fewer than two
/// samples are in context or E cannot be evaluated.
std::optional<Fingerprint> fingerprint(const Expr *E, const Expr *Where,
                                       std::deque<Interpreter> &Inputs) {
  Fingerprint F;
  unsigned Holding = 0;
  try {
    for (Interpreter &I : Inputs) {
      bool Holds = true;
      if (Where) {
        try {
          Holds = I.eval(Where).isTrue();
        } catch (const EvalError &) {
        }
      }
      F.push_back(Holds);
      F.push_back(Holds ? I.eval(E).Bits : 0);
      Holding += Holds;
    }
  } catch (const EvalError &) {
    return std::nullopt;
  }
  if (Holding < 2)
    return std::nullopt;
  return F;
}

/// Every sample in context gives the same value: that value.
std::optional<uint64_t> constantPrint(const Fingerprint &F) {
  std::optional<uint64_t> V;
  for (size_t K = 0; K + 1 < F.size(); K += 2) {
    if (!F[K])
      continue;
    if (V && *V != F[K + 1])
      return std::nullopt;
    V = F[K + 1];
  }
  return V;
}

/// One query: every pair equal under the assumptions.
using Contexts = std::unordered_map<const Expr *, const Expr *>;

smt::QueryResult proveAll(Context &C,
                          const std::vector<std::pair<const Expr *, const Expr *>> &Pairs,
                          const std::vector<const Expr *> &Assumptions,
                          const smt::SolverOptions &Solver, const Contexts &Where) {
  // A pair the assumptions' alignments and bounds make one integer form
  // needs no solver (offsets of aligned bases, masks of their zero bits).
  Canonicalizer Form(C, alignmentsFrom(Assumptions));
  static const std::unordered_map<const Expr *, const Expr *> Nothing;
  const Expr *Differs = C.falseExpr();
  for (const auto &[A, B] : Pairs) {
    if (Form(A, Nothing) == Form(B, Nothing) && Form.assumed().empty())
      continue;
    const Expr *D = C.icmp(ICmpPredicate::Ne, A, B);
    auto It = Where.find(A);
    if (It != Where.end() && It->second)
      D = C.andOf(It->second, D);
    Differs = C.orOf(Differs, D);
  }
  if (Differs->isFalse()) {
    smt::QueryResult R;
    R.Kind = smt::Outcome::Proved;
    return R;
  }
  const Expr *Violation = Differs;
  for (const Expr *A : Assumptions)
    Violation = C.andOf(Violation, A);
  smt::SolverOptions Quick = Solver;
  Quick.TimeoutMs = std::min(Quick.TimeoutMs, 10000u);
  return smt::solve({"launch terms", Violation, {}, smt::Mode::IEEE}, Quick);
}

/// A pair with its context spelled with its constants left out, and those
/// constants in the order of the spelling: pairs of one spelling are one
/// computation at different constants (the same address arithmetic at
/// each element's offset).
struct Shape {
  std::string Spelling;
  std::vector<const Expr *> Constants;
};

Shape shapeOf(const Expr *A, const Expr *B, const Expr *Where) {
  Shape S;
  std::vector<const Expr *> Roots = {A, B};
  if (Where)
    Roots.push_back(Where);
  std::unordered_map<const Expr *, size_t> Index;
  for (const Expr *E : postOrder(Roots)) {
    Index.emplace(E, Index.size());
    S.Spelling += std::to_string(unsigned(E->op())) + ":" +
                  std::to_string(E->rawAttribute()) + ":" + E->type().str();
    if (E->isConst())
      S.Constants.push_back(E);
    else if (E->op() == Op::Symbol || E->op() == Op::Read ||
             E->op() == Op::Call)
      S.Spelling += ":" + E->name();
    for (const Expr *O : E->operands())
      S.Spelling += " " + std::to_string(Index.at(O));
    S.Spelling += ";";
  }
  for (const Expr *R : Roots)
    S.Spelling += " " + std::to_string(Index.at(R));
  return S;
}

} // namespace

std::vector<std::pair<const Expr *, const Expr *>>
proveByShape(Context &C,
             const std::vector<std::pair<const Expr *, const Expr *>> &Pairs,
             const std::vector<const Expr *> &Assumptions,
             const smt::SolverOptions &Solver, Unification &U,
             const std::unordered_map<const Expr *, const Expr *> &Where,
             ProvedEqualities::Scope *Memo) {
  // A smaller family is asked as it is: one query of its members costs
  // about what the family's would, and a family that does not hold (pairs
  // proposed from samples need not) costs a query more.
  constexpr size_t Fewest = 64;
  auto WhereOf = [&](const Expr *A) -> const Expr * {
    auto It = Where.find(A);
    return It != Where.end() ? It->second : nullptr;
  };
  std::map<std::string, std::vector<size_t>> Groups;
  std::vector<Shape> Shapes;
  for (size_t K = 0; K < Pairs.size(); ++K) {
    Shapes.push_back(
        shapeOf(Pairs[K].first, Pairs[K].second, WhereOf(Pairs[K].first)));
    Groups[Shapes.back().Spelling].push_back(K);
  }
  std::vector<bool> Proved(Pairs.size(), false);
  for (const auto &[Spelling, Members] : Groups) {
    if (Members.size() < Fewest)
      continue;
    if (Solver.Deadline && std::chrono::steady_clock::now() >= *Solver.Deadline)
      break;
    const Shape &First = Shapes[Members.front()];
    std::unordered_map<const Expr *, const Expr *> General;
    std::vector<const Expr *> Ranges = Assumptions;
    // Each varying constant as a signed value per member; one that is an
    // affine function of an earlier one (a column's offset and the next
    // column's) is written so, keeping the relation the proof may need.
    struct Lead {
      const Expr *Symbol;
      std::vector<int64_t> Values;
    };
    std::vector<Lead> Leads;
    bool Integers = true;
    for (size_t I = 0; I < First.Constants.size() && Integers; ++I) {
      Type T = First.Constants[I]->type();
      Integers = T.isInt() || T.isBool();
      unsigned Bits = T.isBool() ? 1 : T.bits();
      uint64_t Mask = Bits == 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
      std::vector<int64_t> Values;
      for (size_t K : Members) {
        uint64_t V = Shapes[K].Constants[I]->constBits();
        Values.push_back(Bits < 64 && (V >> (Bits - 1)) & 1 ? int64_t(V | ~Mask)
                                                            : int64_t(V));
      }
      auto [Least, Greatest] =
          std::minmax_element(Values.begin(), Values.end());
      if (*Least == *Greatest || !Integers)
        continue;
      const Expr *Affine = nullptr;
      for (const Lead &L : Leads) {
        if (T.isBool() || L.Symbol->type().isBool())
          continue;
        size_t Other = 1;
        while (Other < Values.size() && L.Values[Other] == L.Values[0])
          ++Other;
        if (Other == Values.size())
          continue;
        // The slope exactly, the rest in T's wrapping arithmetic.
        __int128 Run = __int128(L.Values[Other]) - L.Values[0];
        __int128 Rise = __int128(Values[Other]) - Values[0];
        if (Rise % Run || Rise / Run > INT64_MAX || Rise / Run < INT64_MIN)
          continue;
        uint64_t Slope = uint64_t(int64_t(Rise / Run));
        uint64_t Offset = uint64_t(Values[0]) - Slope * uint64_t(L.Values[0]);
        bool Fits = true;
        for (size_t M = 0; M < Values.size() && Fits; ++M)
          Fits = ((Slope * uint64_t(L.Values[M]) + Offset) & Mask) ==
                 (uint64_t(Values[M]) & Mask);
        if (Fits) {
          Affine =
              C.add(C.mul(C.constant(T, Slope), C.sextOrTrunc(L.Symbol, T)),
                    C.constant(T, Offset));
          break;
        }
      }
      if (Affine) {
        General[First.Constants[I]] = Affine;
        continue;
      }
      const Expr *V = C.fresh("shape", T);
      General[First.Constants[I]] = V;
      Leads.push_back({V, Values});
      if (T.isBool())
        continue;
      uint64_t Stride = 0;
      for (int64_t X : Values) // X - Least without signed overflow
        Stride = std::gcd(Stride, uint64_t(X) - uint64_t(*Least));
      Ranges.push_back(C.icmp(ICmpPredicate::Sge, V, C.intConst(T, *Least)));
      Ranges.push_back(C.icmp(ICmpPredicate::Sle, V, C.intConst(T, *Greatest)));
      if (Stride > 1)
        Ranges.push_back(
            C.eq(C.binary(Op::URem, C.sub(V, C.intConst(T, *Least)),
                          C.constant(T, Stride)),
                 C.constant(T, 0)));
      // What those imply in the spellings alignmentsFrom reads, so that
      // the integer form can decide pairs without the solver: an unsigned
      // bound, and the low zero bits common to the least and the stride.
      if (*Least >= 0 && uint64_t(*Greatest) < Mask)
        Ranges.push_back(C.icmp(ICmpPredicate::Ult, V,
                                C.constant(T, uint64_t(*Greatest) + 1)));
      unsigned Low = unsigned(std::countr_zero(
          std::gcd(Stride, uint64_t(*Least)) | (uint64_t(1) << 63)));
      if (Low > 0 && Low < Bits)
        Ranges.push_back(
            C.eq(C.andOf(V, C.constant(T, (uint64_t(1) << Low) - 1)),
                 C.constant(T, 0)));
    }
    if (!Integers || General.empty())
      continue;
    const auto &[A, B] = Pairs[Members.front()];
    const Expr *GA = substitute(C, A, General);
    Contexts GeneralWhere;
    if (const Expr *W = WhereOf(A))
      GeneralWhere[GA] = substitute(C, W, General);
    smt::SolverOptions Short = Solver;
    Short.TimeoutMs = std::min(Short.TimeoutMs, 3000u);
    const Expr *GB = substitute(C, B, General);
    smt::QueryResult R = proveAll(C, {{GA, GB}}, Ranges, Short, GeneralWhere);
    if (R.Kind != smt::Outcome::Proved && Members.size() <= 1024) {
      // Exactly the members' constants: the symbols are one member's
      // (relations between three or more constants kept).
      std::set<std::vector<int64_t>> Tuples;
      for (size_t M = 0; M < Members.size(); ++M) {
        std::vector<int64_t> Tuple;
        for (const Lead &L : Leads)
          Tuple.push_back(L.Values[M]);
        Tuples.insert(Tuple);
      }
      const Expr *Member = C.falseExpr();
      for (const std::vector<int64_t> &Tuple : Tuples) {
        const Expr *Here = C.trueExpr();
        for (size_t L = 0; L < Leads.size(); ++L)
          Here = C.andOf(Here,
                         C.eq(Leads[L].Symbol,
                              C.intConst(Leads[L].Symbol->type(), Tuple[L])));
        Member = C.orOf(Member, Here);
      }
      std::vector<const Expr *> Exact = Assumptions;
      Exact.push_back(Member);
      R = proveAll(C, {{GA, GB}}, Exact, Short, GeneralWhere);
    }
    if (getenv("STAGECHECK_DEBUG_UNIFY"))
      fprintf(stderr,
              "shape of %zu pairs, %zu constants free -> %s in %.2f s\n",
              Members.size(), General.size(), smt::spelling(R.Kind), R.Seconds);
    if (R.Kind != smt::Outcome::Proved)
      continue;
    for (size_t K : Members) {
      Proved[K] = true;
      U.Map[Pairs[K].first] = Pairs[K].second;
      if (Memo)
        Memo->note(Pairs[K]);
    }
    U.Proved += unsigned(Members.size());
  }
  std::vector<std::pair<const Expr *, const Expr *>> Rest;
  for (size_t K = 0; K < Pairs.size(); ++K)
    if (!Proved[K])
      Rest.push_back(Pairs[K]);
  return Rest;
}

namespace {

/// Pairs the solver could not decide together: halves, a few times.
void proveInParts(
    Context &C, const std::vector<std::pair<const Expr *, const Expr *>> &Pairs,
    const std::vector<const Expr *> &Assumptions,
    const smt::SolverOptions &Solver, Unification &U, unsigned Depth,
    const Contexts &Where, ProvedEqualities::Scope *Memo) {
  if (Pairs.empty())
    return;
  smt::QueryResult R = proveAll(C, Pairs, Assumptions, Solver, Where);
  if (R.Kind == smt::Outcome::Proved) {
    for (const auto &P : Pairs) {
      U.Map[P.first] = P.second;
      if (Memo)
        Memo->note(P);
    }
    U.Proved += unsigned(Pairs.size());
    return;
  }
  if (Depth >= 3 || Pairs.size() < 2)
    return;
  size_t Half = Pairs.size() / 2;
  proveInParts(C, {Pairs.begin(), Pairs.begin() + long(Half)}, Assumptions,
               Solver, U, Depth + 1, Where, Memo);
  proveInParts(C, {Pairs.begin() + long(Half), Pairs.end()}, Assumptions,
               Solver, U, Depth + 1, Where, Memo);
}

} // namespace

ProvedEqualities::Scope::Scope(ProvedEqualities &Memo,
                               const std::vector<const Expr *> &Assumptions)
    : Memo(&Memo), Assumptions(Assumptions) {
  // Union-find over the assumptions, joined through their symbols.
  std::vector<size_t> Parent(Assumptions.size());
  for (size_t K = 0; K < Parent.size(); ++K)
    Parent[K] = K;
  auto Find = [&](size_t K) {
    while (Parent[K] != K)
      K = Parent[K] = Parent[Parent[K]];
    return K;
  };
  std::unordered_map<const Expr *, size_t> FirstWith;
  for (size_t K = 0; K < Assumptions.size(); ++K) {
    const Expr *Roots[] = {Assumptions[K]};
    for (const Expr *N : postOrder(Roots))
      // A read or a call joins through its buffer or function, which any
      // pair may share without a symbol: all assumptions are then one.
      if (N->op() == Op::Read || N->op() == Op::Call)
        Opaque = true;
      else if (N->op() == Op::Symbol) {
        auto [It, New] = FirstWith.try_emplace(N, K);
        if (!New)
          Parent[Find(K)] = Find(It->second);
      }
  }
  ComponentOf.resize(Assumptions.size());
  for (size_t K = 0; K < Assumptions.size(); ++K)
    ComponentOf[K] = Find(K);
  for (const auto &[Symbol, K] : FirstWith)
    SymbolComponent[Symbol] = ComponentOf[K];
}

std::vector<const Expr *>
ProvedEqualities::Scope::connected(const Pair &P) const {
  std::set<size_t> Components;
  const Expr *Roots[] = {P.first, P.second};
  for (const Expr *N : postOrder(Roots))
    if (N->op() == Op::Symbol)
      if (auto It = SymbolComponent.find(N); It != SymbolComponent.end())
        Components.insert(It->second);
  std::vector<const Expr *> Out;
  for (size_t K = 0; K < Assumptions.size(); ++K)
    if (Opaque || Components.count(ComponentOf[K]))
      Out.push_back(Assumptions[K]);
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

bool ProvedEqualities::Scope::known(const Pair &P) const {
  return Memo->Proved.count({P, connected(P)}) > 0;
}

void ProvedEqualities::Scope::note(const Pair &P) {
  if (!Satisfiable)
    return;
  Memo->Proved.insert({P, connected(P)});
}

/// Where each launch term matters: the disjunction of the contexts of the
/// roots that contain it (true as soon as one matters everywhere, or when
/// there are too many to list).
void noteContexts(Context &C, const std::vector<UnifyRoot> &Roots,
                  std::unordered_map<const Expr *, bool> &Launch,
                  Contexts &Where) {
  std::map<const Expr *, std::vector<const Expr *>> ByContext;
  for (const UnifyRoot &R : Roots)
    ByContext[R.Context].push_back(R.E);
  // A node that matters everywhere (reached from a root that matters
  // everywhere, or from more than 9 contexts) has operands that do too:
  // the walks below do not enter it again. The null context sorts first.
  std::unordered_map<const Expr *, unsigned> Count;
  std::unordered_set<const Expr *> Everywhere;
  for (const auto &[Ctx, Es] : ByContext) {
    std::unordered_set<const Expr *> Seen;
    std::vector<const Expr *> Work(Es.begin(), Es.end());
    while (!Work.empty()) {
      const Expr *N = Work.back();
      Work.pop_back();
      if (Everywhere.count(N) || !Seen.insert(N).second)
        continue;
      for (const Expr *O : N->operands())
        Work.push_back(O);
      if (!Ctx || ++Count[N] > 9)
        Everywhere.insert(N);
      if (N->numOperands() == 0 || !isLaunchTerm(N, Launch))
        continue;
      auto [It, New] = Where.emplace(N, Ctx);
      if (New || !It->second)
        continue;
      if (!Ctx || Count[N] > 9)
        It->second = nullptr;
      else
        It->second = C.orOf(It->second, Ctx);
    }
  }
}

Unification unifyLaunchTerms(Context &C, const std::vector<UnifyRoot> &SourceRoots,
                             const std::vector<UnifyRoot> &TargetRoots,
                             const std::vector<const Expr *> &Assumptions,
                             const smt::SolverOptions &Solver,
                             ProvedEqualities *Memo) {
  auto Start = std::chrono::steady_clock::now();
  Unification U;
  std::optional<ProvedEqualities::Scope> Earlier;
  if (Memo)
    Earlier.emplace(Memo->scope(Assumptions));
  std::vector<const Expr *> Source, Target;
  for (const UnifyRoot &R : SourceRoots)
    Source.push_back(R.E);
  for (const UnifyRoot &R : TargetRoots)
    Target.push_back(R.E);
  std::unordered_map<const Expr *, bool> Launch;
  std::set<const Expr *> SourceNodes, SymbolSet;
  std::vector<const Expr *> SourceTerms, Symbols;
  auto NoteSymbols = [&](const Expr *E) {
    const Expr *Roots[] = {E};
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Symbol && SymbolSet.insert(N).second)
        Symbols.push_back(N);
  };
  for (const Expr *N : postOrder(Source)) {
    SourceNodes.insert(N);
    if (isLaunchTerm(N, Launch)) {
      if (N->numOperands() > 0)
        SourceTerms.push_back(N);
      else if (N->op() == Op::Symbol)
        NoteSymbols(N);
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
  Contexts Where;
  noteContexts(C, SourceRoots, Launch, Where);
  noteContexts(C, TargetRoots, Launch, Where);
  // Deques: interpreters keep references to their inputs.
  std::vector<Env> First = samples(Symbols, Assumptions, Solver, C);
  if (First.size() < 2)
    return U;
  U.Witnessed = std::any_of(First.begin(), First.end(), [&](const Env &E) {
    return meets(E, Assumptions);
  });
  if (Earlier && U.Witnessed)
    Earlier->witnessed();
  std::deque<Env> Envs(First.begin(), First.end());
  std::deque<Interpreter> Inputs;
  for (const Env &E : Envs)
    Inputs.emplace_back(E);
  // Terms that agree on every sample form a class; its representative is a
  // constant when the class is constant, else its first source term. All
  // members are proposed equal to it at once; a counterexample becomes one
  // more sample, which splits the classes it separates, and the question
  // is asked again.
  std::vector<const Expr *> Terms = SourceTerms;
  size_t FirstTarget = Terms.size();
  // Booleans have few values: a large class of them that is not constant
  // is a coincidence of the samples more often than not (the guards of a
  // store's elements are matched pairwise later: proveEqual()).
  constexpr size_t MaxBooleanClass = 32;
  // Terms that agree on every sample form a class; its representative is a
  // constant when the class is constant, else its first source term.
  auto Classes = [&](bool Booleans) {
    using Key = std::pair<std::string, Fingerprint>;
    std::map<Key, std::vector<const Expr *>> Members;
    std::map<Key, const Expr *> Representative;
    for (size_t K = 0; K < Terms.size(); ++K) {
      const Expr *T = Terms[K];
      if (U.Map.count(T) || T->type().isBool() != Booleans)
        continue;
      // A comparison whose operands are now the source's needs no proof.
      if (Booleans && K >= FirstTarget && !U.Map.empty() &&
          SourceNodes.count(substitute(C, T, U.Map)))
        continue;
      std::optional<Fingerprint> F = fingerprint(T, nullptr, Inputs);
      if (!F)
        continue;
      Key Id{T->type().str(), *F};
      if (!Representative.count(Id)) {
        if (std::optional<uint64_t> V = constantPrint(*F))
          Representative[Id] = C.constant(T->type(), *V);
        else if (K < FirstTarget)
          Representative[Id] = T;
        else
          continue;
      }
      Members[Id].push_back(T);
    }
    std::vector<std::pair<const Expr *, const Expr *>> Pairs;
    for (const auto &[Id, List] : Members) {
      const Expr *Rep = Representative.at(Id);
      if (Booleans && !Rep->isConst() && List.size() > MaxBooleanClass)
        continue;
      for (const Expr *T : List)
        if (T != Rep)
          Pairs.push_back({T, Rep});
    }
    return Pairs;
  };
  // What is left of the target, against the source on the samples where
  // the target term matters only (a zext and a sext of one non-negative
  // index agree under the mask that keeps it small).
  auto InContext = [&](bool Booleans) {
    using Key = std::pair<std::string, Fingerprint>;
    std::vector<std::pair<const Expr *, const Expr *>> Pairs;
    std::vector<std::pair<const Expr *, Fingerprint>> Full;
    for (size_t K = 0; K < FirstTarget; ++K)
      if (Terms[K]->type().isBool() == Booleans)
        if (std::optional<Fingerprint> All = fingerprint(Terms[K], nullptr, Inputs))
          Full.push_back({Terms[K], *All});
    std::map<Fingerprint, std::map<Key, const Expr *>> BySourceOn;
    for (size_t K = FirstTarget; K < Terms.size(); ++K) {
      const Expr *T = Terms[K];
      auto W = Where.find(T);
      if (U.Map.count(T) || T->type().isBool() != Booleans ||
          W == Where.end() || !W->second)
        continue;
      std::optional<Fingerprint> F = fingerprint(T, W->second, Inputs);
      if (!F)
        continue;
      if (std::optional<uint64_t> V = constantPrint(*F)) {
        Pairs.push_back({T, C.constant(T->type(), *V)});
        continue;
      }
      Fingerprint Mask;
      for (size_t I = 0; I < F->size(); I += 2)
        Mask.push_back((*F)[I]);
      auto [It, New] = BySourceOn.try_emplace(Mask);
      if (New)
        for (const auto &[S, All] : Full) {
          Fingerprint On;
          for (size_t I = 0; I < Mask.size(); ++I)
            On.insert(On.end(), {Mask[I], Mask[I] ? All[2 * I + 1] : 0});
          It->second.emplace(Key{S->type().str(), On}, S);
        }
      auto Match = It->second.find(Key{T->type().str(), *F});
      if (Match != It->second.end())
        Pairs.push_back({T, Match->second});
    }
    return Pairs;
  };
  // A counterexample is one more sample, with neighbours (each parameter
  // a little off), which split the classes it and they separate.
  std::mt19937_64 Rng(11);
  auto AddSample = [&](Env M) {
    for (const Expr *S : Symbols)
      if (!M.symbol(S->name()))
        M.setSymbol(S->name(), Value::ofBits(S->type(), 0));
    Envs.push_back(M);
    Inputs.emplace_back(Envs.back());
    for (unsigned K = 0; K < 8; ++K) {
      Env N = M;
      for (const Expr *S : Symbols)
        if (S->role() == SymbolRole::Param || S->role() == SymbolRole::ProgramId)
          N.setSymbol(S->name(),
                      Value::ofBits(S->type(), M.symbol(S->name())->Bits +
                                                   int64_t(Rng() % 33) - 16));
      if (!meets(N, Assumptions))
        continue;
      Envs.push_back(N);
      Inputs.emplace_back(Envs.back());
    }
  };
  // Queries of at most this many pairs: one huge disjunction is slower for
  // the solver than several small ones.
  constexpr size_t Chunk = 512;
  auto Refine = [&](bool Booleans, unsigned Rounds, bool Restricted) {
    // Terms that agree everywhere are proved so; those matched in context,
    // in context.
    static const Contexts Everywhere;
    const Contexts &In = Restricted ? Where : Everywhere;
    for (unsigned Round = 0; Round < Rounds; ++Round) {
      if (Solver.Deadline && std::chrono::steady_clock::now() >= *Solver.Deadline)
        return;
      std::vector<std::pair<const Expr *, const Expr *>> Pairs =
          Restricted ? InContext(Booleans) : Classes(Booleans);
      if (Pairs.empty())
        return;
      if (Round == 0)
        U.Proposed += unsigned(Pairs.size());
      // Equalities earlier calls proved under the same connected
      // assumptions need no query.
      ProvedEqualities::Scope *Memo =
          Restricted || !Earlier ? nullptr : &*Earlier;
      if (Memo) {
        std::vector<std::pair<const Expr *, const Expr *>> Unknown;
        for (const auto &P : Pairs)
          if (Memo->known(P)) {
            U.Map[P.first] = P.second;
            ++U.Proved;
          } else {
            Unknown.push_back(P);
          }
        Pairs = std::move(Unknown);
      }
      Pairs = proveByShape(C, Pairs, Assumptions, Solver, U, In, Memo);
      bool Separated = false;
      for (size_t From = 0; From < Pairs.size(); From += Chunk) {
        std::vector<std::pair<const Expr *, const Expr *>> Part(
            Pairs.begin() + long(From),
            Pairs.begin() + long(std::min(Pairs.size(), From + Chunk)));
        // Pairs a counterexample separates leave the chunk (they are
        // classified again with the new sample); the rest is asked again.
        for (unsigned Try = 0; Try < 4 && !Part.empty(); ++Try) {
          smt::QueryResult R = proveAll(C, Part, Assumptions, Solver, In);
          if (getenv("STAGECHECK_DEBUG_UNIFY"))
            fprintf(stderr, "refine %d %d round %u: %zu pairs -> %s in %.2f s\n",
                    int(Booleans), int(Restricted), Round, Part.size(),
                    smt::spelling(R.Kind), R.Seconds);
          if (R.Kind == smt::Outcome::Proved) {
            for (const auto &P : Part) {
              U.Map[P.first] = P.second;
              if (Memo)
                Memo->note(P);
            }
            U.Proved += unsigned(Part.size());
            break;
          }
          if (R.Kind == smt::Outcome::Unknown) {
            proveInParts(C, Part, Assumptions, Solver, U, 2, In, Memo);
            break;
          }
          AddSample(R.Model);
          Separated = true;
          Interpreter I(Envs.back());
          std::vector<std::pair<const Expr *, const Expr *>> Kept;
          for (const auto &P : Part) {
            try {
              if (I.eval(P.first).Bits == I.eval(P.second).Bits)
                Kept.push_back(P);
            } catch (const EvalError &) {
            }
          }
          if (Kept.size() == Part.size())
            break; // the model is not understood: nothing more here
          Part = std::move(Kept);
        }
      }
      if (!Separated)
        return;
    }
  };
  std::vector<const Expr *> Pending = TargetTerms;
  std::set<const Expr *> Tried;
  // Masks such as `pid*1024 + k < n` at different k agree on nearly every
  // random n; each pair the samples cannot tell apart costs a refuted
  // solver round. So a comparison of a term with a parameter gets samples
  // with the parameter at that term's value: there the masks at other
  // offsets part.
  auto BoundarySamples = [&]() {
    std::set<std::pair<std::string, uint64_t>> Done;
    std::vector<Env> New;
    for (const Expr *T : Terms) {
      if (T->op() != Op::ICmp || New.size() >= 32)
        continue;
      for (unsigned Side = 0; Side < 2; ++Side) {
        const Expr *P = T->operand(Side), *X = T->operand(1 - Side);
        while (P->op() == Op::SExt || P->op() == Op::ZExt ||
               P->op() == Op::Trunc)
          P = P->operand(0);
        if (P->op() != Op::Symbol || P->role() != SymbolRole::Param)
          continue;
        try {
          uint64_t V = Interpreter(Envs.front()).eval(X).Bits;
          if (!Done.insert({P->name(), V}).second)
            continue;
          Env E = Envs.front();
          E.setSymbol(P->name(), Value::ofBits(P->type(), V));
          if (meets(E, Assumptions))
            New.push_back(E);
        } catch (const EvalError &) {
        }
      }
    }
    for (Env &E : New) {
      Envs.push_back(std::move(E));
      Inputs.emplace_back(Envs.back());
    }
  };
  for (unsigned Pass = 0; Pass < 2; ++Pass) {
    for (const Expr *T : Pending)
      if (Tried.insert(T).second && !T->isConst() && !SourceNodes.count(T))
        Terms.push_back(T);
    if (Pass == 0)
      BoundarySamples();
    Refine(false, 12, false);
    Refine(true, 6, false);
    Refine(false, 6, true);
    Refine(true, 4, true);
    // A target term that did not prove equal may have parts that do.
    Pending.clear();
    for (size_t K = FirstTarget; K < Terms.size(); ++K)
      if (!U.Map.count(Terms[K]))
        for (const Expr *O : Terms[K]->operands())
          if (isLaunchTerm(O, Launch) && O->numOperands() > 0)
            Pending.push_back(O);
  }
  U.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            Start)
                  .count();
  return U;
}

std::vector<bool>
proveEqual(Context &C,
           const std::vector<std::pair<const Expr *, const Expr *>> &Pairs,
           const std::vector<const Expr *> &Assumptions,
           const smt::SolverOptions &Solver,
           ProvedEqualities::Scope *Memo) {
  std::vector<bool> Proved(Pairs.size(), false);
  static const Contexts Everywhere;
  constexpr size_t Chunk = 512;
  std::vector<size_t> Asking;
  for (size_t K = 0; K < Pairs.size(); ++K) {
    if (Memo && Memo->known(Pairs[K]))
      Proved[K] = true;
    else
      Asking.push_back(K);
  }
  for (size_t From = 0; From < Asking.size(); From += Chunk) {
    std::vector<size_t> Part(
        Asking.begin() + long(From),
        Asking.begin() + long(std::min(Asking.size(), From + Chunk)));
    for (unsigned Try = 0; Try < 4 && !Part.empty(); ++Try) {
      std::vector<std::pair<const Expr *, const Expr *>> Asked;
      for (size_t K : Part)
        Asked.push_back(Pairs[K]);
      smt::QueryResult R = proveAll(C, Asked, Assumptions, Solver, Everywhere);
      if (R.Kind == smt::Outcome::Proved) {
        for (size_t K : Part) {
          Proved[K] = true;
          if (Memo)
            Memo->note(Pairs[K]);
        }
        break;
      }
      if (R.Kind != smt::Outcome::Counterexample)
        break;
      // Drop the pairs the model separates; ask about the rest again.
      Env M = R.Model;
      std::vector<const Expr *> Roots;
      for (const auto &[A, B] : Asked)
        Roots.insert(Roots.end(), {A, B});
      for (const Expr *N : postOrder(Roots))
        if (N->op() == Op::Symbol && !M.symbol(N->name()))
          M.setSymbol(N->name(), Value::ofBits(N->type(), 0));
      Interpreter I(M);
      std::vector<size_t> Kept;
      for (size_t K : Part) {
        try {
          if (I.eval(Pairs[K].first).Bits == I.eval(Pairs[K].second).Bits)
            Kept.push_back(K);
        } catch (const EvalError &) {
        }
      }
      if (Kept.size() == Part.size())
        break;
      Part = std::move(Kept);
    }
  }
  return Proved;
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
      // The replacement in canonical form too, as the side it comes from
      // has it (a replacement that leads back to N stays as it is).
      const Expr *V = It->second;
      if (V != N && !V->isConst() && InProgress.insert(N).second) {
        V = (*this)(V, Map);
        InProgress.erase(N);
      }
      Done[N] = V;
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

/// Bits [D, D + width(E)) of X when E is an `or` of zero-extended, shifted
/// pieces of X that put those bits back in order (a value stored byte by
/// byte and loaded again, possibly a part of a wider store); nullptr
/// otherwise.
const Expr *reassembled(Context &C, const Expr *E) {
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
  std::optional<unsigned> Shift;
  uint64_t Covered = 0;
  unsigned Bits = E->type().bits();
  for (const Expr *T : Terms) {
    std::optional<Piece> P = pieceOf(T);
    if (!P || P->From < P->At || P->At + P->Width > Bits ||
        (Whole && P->Whole != Whole) || (Shift && *Shift != P->From - P->At))
      return nullptr;
    Whole = P->Whole;
    Shift = P->From - P->At;
    uint64_t Mask = (P->Width >= 64 ? ~uint64_t(0)
                                    : ((uint64_t(1) << P->Width) - 1))
                    << P->At;
    if (Covered & Mask)
      return nullptr;
    Covered |= Mask;
  }
  Type WholeType = Whole->type();
  if (!WholeType.isInt() || Covered != Value::mask(Bits) ||
      *Shift + Bits > WholeType.bits())
    return nullptr;
  const Expr *R = Whole;
  if (*Shift)
    R = C.binary(Op::LShr, R, C.constant(WholeType, *Shift));
  return WholeType == E->type() ? R : C.cast(Op::Trunc, R, E->type());
}

} // namespace

/// An ordered comparison or-ed with "is NaN" of its operand is the
/// unordered comparison: olt(a, k) | uno(a, a) is ult(a, k) for a non-NaN
/// constant k (and so for the other orders).
const Expr *unorderedOf(Context &C, const Expr *Cmp, const Expr *NaN) {
  if (Cmp->op() != Op::FCmp || NaN->op() != Op::FCmp ||
      NaN->fcmpPredicate() != FCmpPredicate::Uno ||
      NaN->operand(0) != NaN->operand(1))
    return nullptr;
  const Expr *X = NaN->operand(0), *A = Cmp->operand(0), *B = Cmp->operand(1);
  auto NotNaN = [](const Expr *E) {
    return E->isConst() && !Value::ofBits(E->type(), E->constBits()).isNaN();
  };
  bool Covers = (A == X && (B == X || NotNaN(B))) || (B == X && NotNaN(A));
  if (!Covers)
    return nullptr;
  FCmpPredicate P;
  switch (Cmp->fcmpPredicate()) {
  case FCmpPredicate::Olt: P = FCmpPredicate::Ult; break;
  case FCmpPredicate::Ole: P = FCmpPredicate::Ule; break;
  case FCmpPredicate::Ogt: P = FCmpPredicate::Ugt; break;
  case FCmpPredicate::Oge: P = FCmpPredicate::Uge; break;
  case FCmpPredicate::Oeq: P = FCmpPredicate::Ueq; break;
  case FCmpPredicate::One: P = FCmpPredicate::Une; break;
  default: return nullptr;
  }
  return C.fcmp(P, A, B);
}

/// fptrunc(op(fpext a, fpext b)) is op(a, b) in the narrow format when the
/// wide one has at least 2p + 2 significand bits for the narrow one's p
/// and a wider exponent range (Figueroa, "When is double rounding
/// innocuous?", 1995): f16 and bf16 arithmetic done in f32, as TTGIR
/// spells it and as LLVM shrinks it back. +, -, *, / rounding to nearest.
const Expr *narrowedArithmetic(Context &C, const Expr *E,
                               const std::vector<const Expr *> &Ops) {
  if (E->op() != Op::FPCast || E->rounding() != RoundingMode::NearestEven)
    return nullptr;
  const Expr *Wide = Ops[0];
  Type Narrow = E->type();
  Op O = Wide->op();
  if ((O != Op::FAdd && O != Op::FSub && O != Op::FMul && O != Op::FDiv) ||
      Wide->rounding() != RoundingMode::NearestEven)
    return nullptr;
  FloatFormat N = floatFormat(Narrow), W = floatFormat(Wide->type());
  if (W.MantissaBits + 1 < 2 * (N.MantissaBits + 1) + 2 ||
      W.ExponentBits < N.ExponentBits)
    return nullptr;
  std::vector<const Expr *> Narrowed;
  for (const Expr *X : Wide->operands()) {
    if (X->op() != Op::FPCast || X->operand(0)->type() != Narrow)
      return nullptr;
    Narrowed.push_back(X->operand(0));
  }
  return C.floatBinary(O, Narrowed[0], Narrowed[1]);
}

/// The leaves of a chain of integer adds.
void addends(const Expr *E, std::vector<const Expr *> &Out) {
  if (E->op() == Op::Add && E->type().isInt()) {
    addends(E->operand(0), Out);
    addends(E->operand(1), Out);
  } else {
    Out.push_back(E);
  }
}

/// An upper bound on the bits E needs as a signed integer (its value lies
/// in [-2^(b-1), 2^(b-1))), from the widths it was extended from and the
/// constants it is scaled by; the width of its type when nothing is known.
unsigned signedBits(const Expr *E, unsigned Depth = 0) {
  unsigned Full = E->type().bits();
  auto Cap = [&](unsigned B) { return std::min(B, Full); };
  if (E->isConst()) {
    int64_t V = Value::ofBits(E->type(), E->constBits()).asSigned();
    unsigned B = 1;
    while (B < 64 && (V < -(int64_t(1) << (B - 1)) ||
                      V >= (int64_t(1) << (B - 1))))
      ++B;
    return Cap(B);
  }
  if (Depth > 12)
    return Full;
  switch (E->op()) {
  case Op::SExt:
    return Cap(signedBits(E->operand(0), Depth + 1));
  case Op::Add:
  case Op::Sub:
    return Cap(std::max(signedBits(E->operand(0), Depth + 1),
                        signedBits(E->operand(1), Depth + 1)) +
               1);
  case Op::Mul:
    return Cap(signedBits(E->operand(0), Depth + 1) +
               signedBits(E->operand(1), Depth + 1));
  case Op::Shl:
    if (E->operand(1)->isConst() && E->operand(1)->constBits() < Full)
      return Cap(signedBits(E->operand(0), Depth + 1) +
                 unsigned(E->operand(1)->constBits()));
    return Full;
  default:
    return Full;
  }
}

/// X / 2^K when X is a sum of terms that are each a multiple of 2^K (a
/// constant, a product with such a constant, a shift by at least K) and
/// no term or partial sum wraps around (signedBits); nullptr otherwise.
/// The lowering scales an element index to bytes and back:
/// ashr(4 * sext(i) + 8, 2) is sext(i) + 2.
const Expr *exactQuotient(Context &C, const Expr *X, unsigned K) {
  Type T = X->type();
  if (K == 0 || K >= T.bits() || signedBits(X) >= T.bits())
    return nullptr;
  std::vector<const Expr *> Terms;
  addends(X, Terms);
  const Expr *Sum = nullptr;
  uint64_t Low = (uint64_t(1) << K) - 1;
  for (const Expr *Term : Terms) {
    const Expr *Q = nullptr;
    if (Term->isConst() && (Term->constBits() & Low) == 0) {
      Q = C.constant(T, uint64_t(Value::ofBits(T, Term->constBits()).asSigned() >>
                                 K));
    } else if (Term->op() == Op::Mul) {
      const Expr *F = Term->operand(0), *Y = Term->operand(1);
      if (!F->isConst())
        std::swap(F, Y);
      if (F->isConst() && (F->constBits() & Low) == 0)
        Q = C.mul(C.constant(T, uint64_t(Value::ofBits(T, F->constBits())
                                             .asSigned() >>
                                         K)),
                  Y);
    } else if (Term->op() == Op::Shl && Term->operand(1)->isConst() &&
               Term->operand(1)->constBits() >= K &&
               Term->operand(1)->constBits() < T.bits()) {
      Q = C.binary(Op::Shl, Term->operand(0),
                   C.constant(T, Term->operand(1)->constBits() - K));
    }
    if (!Q)
      return nullptr;
    Sum = Sum ? C.add(Sum, Q) : Q;
  }
  return Sum;
}

namespace {

/// Bits [Low, Low + Width) of X when X is an `or` of zero-extended, shifted
/// pieces and those bits are consecutive bits of one value W, which
/// several pieces may share (ldmatrix's registers are bytes of the rows
/// it reads): trunc(lshr(W, D)); nullptr otherwise.
const Expr *sliceOfConcat(Context &C, const Expr *X, unsigned Low,
                          unsigned Width) {
  std::vector<const Expr *> Leaves, Work = {X};
  while (!Work.empty()) {
    const Expr *E = Work.back();
    Work.pop_back();
    if (E->op() == Op::Or && !E->type().isBool()) {
      Work.push_back(E->operand(0));
      Work.push_back(E->operand(1));
    } else {
      Leaves.push_back(E);
    }
  }
  const Expr *Whole = nullptr;
  int64_t Offset = 0; // bit b of the slice's range is bit b + Offset of Whole
  unsigned Covered = 0;
  for (const Expr *L : Leaves) {
    unsigned At = 0;
    if (L->op() == Op::Shl && L->operand(1)->isConst()) {
      At = unsigned(L->operand(1)->constBits());
      L = L->operand(0);
    }
    if (L->op() != Op::ZExt)
      return nullptr; // not known zero outside its bits
    L = L->operand(0);
    unsigned Bits = L->type().bits();
    if (At + Bits <= Low || At >= Low + Width)
      continue; // zero in the slice
    if (At < Low || At + Bits > Low + Width)
      return nullptr; // a piece across the slice's edge
    unsigned From = 0;
    if (L->op() == Op::Trunc) {
      L = L->operand(0);
      if (L->op() == Op::LShr && L->operand(1)->isConst()) {
        From = unsigned(L->operand(1)->constBits());
        L = L->operand(0);
      }
    }
    int64_t D = int64_t(From) - int64_t(At);
    if (Whole && (L != Whole || D != Offset))
      return nullptr;
    Whole = L;
    Offset = D;
    Covered += Bits;
  }
  if (!Whole || Covered != Width || int64_t(Low) + Offset < 0 ||
      uint64_t(int64_t(Low) + Offset) + Width > Whole->type().bits() ||
      !Whole->type().isInt())
    return nullptr;
  unsigned Start = unsigned(int64_t(Low) + Offset);
  const Expr *Bits =
      Start ? C.binary(Op::LShr, Whole, C.constant(Whole->type(), Start))
            : Whole;
  return Bits->type().bits() == Width ? Bits
                                      : C.cast(Op::Trunc, Bits, Type::i(Width));
}

} // namespace

/// An unsigned comparison of s + a with s + b (a, b constants, either may
/// be 0) for a symbol s the assumptions keep below B: when neither sum can
/// wrap (a, b <= 2^n - B) it is the comparison of a with b. Shared-memory
/// addresses checked for wrapping (getelementptr inbounds nuw) are such
/// sums of the window's base.
const Expr *boundedComparison(Context &C, const Expr *E,
                              const std::vector<const Expr *> &Ops,
                              const Alignments &A) {
  ICmpPredicate P = E->icmpPredicate();
  if (P != ICmpPredicate::Ult && P != ICmpPredicate::Ule &&
      P != ICmpPredicate::Ugt && P != ICmpPredicate::Uge)
    return nullptr;
  auto Split = [](const Expr *X) -> std::pair<const Expr *, uint64_t> {
    if (X->op() == Op::Add)
      for (unsigned I : {0u, 1u})
        if (X->operand(I)->isConst())
          return {X->operand(1 - I), X->operand(I)->constBits()};
    return {X, 0};
  };
  auto [S, L] = Split(Ops[0]);
  auto [S2, R] = Split(Ops[1]);
  if (S != S2 || S->op() != Op::Symbol)
    return nullptr;
  auto It = A.Below.find(S);
  unsigned Bits = S->type().bits();
  if (It == A.Below.end() || It->second == 0 || Bits > 64)
    return nullptr;
  uint64_t Room = Value::mask(Bits) - (It->second - 1); // largest safe addend
  if (L > Room || R > Room)
    return nullptr;
  bool Holds = P == ICmpPredicate::Ult   ? L < R
               : P == ICmpPredicate::Ule ? L <= R
               : P == ICmpPredicate::Ugt ? L > R
                                         : L >= R;
  return C.boolean(Holds);
}

/// trunc(X) to T seen through the truncations and right shifts by
/// constants inside X that keep to the bits already taken: bits [k, k + w)
/// of trunc(y) are those of y when k + w fits the truncation, and of
/// lshr(y, s) bits [k + s, k + s + w) of y when those lie inside y. A half
/// of a register that was a quarter of a wider load is then the piece it
/// is (the factory takes pieces out of concatenations). nullptr when
/// nothing is seen through.
const Expr *narrowedBits(Context &C, Type T, const Expr *X) {
  unsigned Shift = 0, Peeled = 0;
  bool ThroughTrunc = false;
  for (;;) {
    unsigned Width = X->type().bits();
    if (X->op() == Op::Trunc && Shift + T.bits() <= Width) {
      X = X->operand(0);
      ThroughTrunc = true;
    } else if (X->op() == Op::LShr && X->operand(1)->isConst() &&
               Shift + X->operand(1)->constBits() + T.bits() <= Width) {
      Shift += unsigned(X->operand(1)->constBits());
      X = X->operand(0);
    } else {
      break;
    }
    ++Peeled;
  }
  if (X->op() == Op::Or && T.isInt())
    if (const Expr *Slice = sliceOfConcat(C, X, Shift, T.bits()))
      return Slice;
  if (!ThroughTrunc && Peeled < 2)
    return nullptr;
  const Expr *Bits =
      Shift ? C.binary(Op::LShr, X, C.constant(X->type(), Shift)) : X;
  return Bits->type() == T ? Bits : C.cast(Op::Trunc, Bits, T);
}

/// The greatest unsigned value E can take, where it is plain: a constant,
/// a value masked by a constant (x & c <= c), a symbol the assumptions
/// keep below a bound (Alignments::Below).
std::optional<uint64_t> greatestValue(const Expr *E, const Alignments &A) {
  if (E->isConst())
    return E->constBits();
  if (E->op() == Op::And && !E->type().isBool())
    for (unsigned I : {0u, 1u})
      if (E->operand(I)->isConst())
        return E->operand(I)->constBits();
  if (auto It = A.Below.find(E); It != A.Below.end() && It->second > 0)
    return It->second - 1;
  return std::nullopt;
}

/// Whether E computes a number rather than moves bits: the operands whose
/// shifts by a constant are products and whose disjoint ors with a
/// constant are sums (a concatenation's or-ed, shifted zero-extensions are
/// not).
bool isArithmetic(const Expr *E) {
  if (!E->type().isInt() || E->type().isBool())
    return false;
  switch (E->op()) {
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::Neg:
  case Op::SDiv:
  case Op::SRem:
  case Op::UDiv:
  case Op::URem:
  case Op::SMin:
  case Op::SMax:
  case Op::UMin:
  case Op::UMax:
  case Op::Symbol:
    return true;
  case Op::Shl:
    return E->operand(1)->isConst() && isArithmetic(E->operand(0));
  default:
    return false;
  }
}

/// An integer as a sum of terms with constant coefficients and a constant,
/// mod 2^n: sums, differences, negations, products with a constant and
/// shifts of arithmetic by a constant are looked through.
struct LinearSum {
  uint64_t Constant = 0;
  std::map<unsigned, std::pair<const Expr *, uint64_t>> Terms; // by node id
};

void collectLinear(const Expr *E, uint64_t Factor, LinearSum &S) {
  unsigned Bits = E->type().bits();
  switch (E->op()) {
  case Op::Const:
    S.Constant += Factor * E->constBits();
    return;
  case Op::Add:
  case Op::Sub:
    collectLinear(E->operand(0), Factor, S);
    collectLinear(E->operand(1), E->op() == Op::Add ? Factor : 0 - Factor, S);
    return;
  case Op::Neg:
    collectLinear(E->operand(0), 0 - Factor, S);
    return;
  case Op::Mul:
    for (unsigned I : {0u, 1u})
      if (E->operand(I)->isConst()) {
        collectLinear(E->operand(1 - I), Factor * E->operand(I)->constBits(),
                      S);
        return;
      }
    break;
  case Op::Shl:
    if (E->operand(1)->isConst() && E->operand(1)->constBits() < Bits &&
        isArithmetic(E->operand(0))) {
      collectLinear(E->operand(0), Factor << E->operand(1)->constBits(), S);
      return;
    }
    break;
  default:
    break;
  }
  auto [It, New] = S.Terms.try_emplace(E->id(), E, 0);
  It->second.second += Factor;
}

/// The sum in canonical form: the constant, then c*t for each term in node
/// order (t alone for c = 1), added left to right.
const Expr *linearForm(Context &C, Type T, const LinearSum &S) {
  const Expr *Sum = nullptr;
  if ((S.Constant & Value::mask(T.bits())) != 0)
    Sum = C.constant(T, S.Constant);
  for (const auto &[Id, TermFactor] : S.Terms) {
    auto [Term, Factor] = TermFactor;
    Factor &= Value::mask(T.bits());
    if (Factor == 0)
      continue;
    const Expr *Part = Factor == 1 ? Term : C.mul(Term, C.constant(T, Factor));
    Sum = Sum ? C.add(Sum, Part) : Part;
  }
  return Sum ? Sum : C.constant(T, 0);
}

/// Integer identities of wrapping arithmetic that the lowering of floor
/// division and remainder spells either way:
///   x - (x sdiv d) * d        = x srem d         (any d: with SMT-LIB's
///                                                 x sdiv 0 and x srem 0,
///                                                 and INT_MIN sdiv -1)
///   select(b, a + -1, a)      = a + sext(b)
///   select(b, a, a + -1)      = a + sext(!b)
///   a sum                     = its terms with their constant factors
///                                 collected, sorted, added left to right
///                                 (LinearSum: differences, negations,
///                                 products with and shifts by constants,
///                                 ors with disjoint constants looked into)
///   ashr(x, k)                = x / 2^k   (x a sum of multiples of 2^k that
///                                          does not wrap: exactQuotient)
const Expr *Canonicalizer::integerRewrite(const Expr *E,
                                          const std::vector<const Expr *> &Ops) {
  if (!E->type().isInt())
    return nullptr;
  Type T = E->type();
  if (E->op() == Op::AShr && Ops[1]->isConst() && Ops[1]->constBits() < T.bits())
    if (const Expr *Q = exactQuotient(C, Ops[0], unsigned(Ops[1]->constBits()))) {
      if (Q->op() != Op::Add)
        return Q;
      const Expr *Flat = integerRewrite(Q, {Q->operand(0), Q->operand(1)});
      return Flat ? Flat : Q;
    }
  auto IsMinusOne = [&](const Expr *X) {
    return X->isConst() && X->constBits() == Value::mask(T.bits());
  };
  if (E->op() == Op::Sub && Ops[1]->op() == Op::Mul)
    for (unsigned I : {0u, 1u}) {
      const Expr *D = Ops[1]->operand(I), *Q = Ops[1]->operand(1 - I);
      if (Q->op() == Op::SDiv && Q->operand(0) == Ops[0] && Q->operand(1) == D)
        return C.binary(Op::SRem, Ops[0], D);
    }
  if (E->op() == Op::Select && T.bits() > 1) {
    for (unsigned Arm = 1; Arm <= 2; ++Arm) {
      const Expr *Dec = Ops[Arm], *Plain = Ops[3 - Arm];
      if (Dec->op() != Op::Add)
        continue;
      const Expr *X = Dec->operand(0), *Y = Dec->operand(1);
      if (!IsMinusOne(X))
        std::swap(X, Y);
      if (!IsMinusOne(X) || Y != Plain)
        continue;
      const Expr *B = Arm == 1 ? Ops[0] : C.notOf(Ops[0]);
      const Expr *Sum = C.add(Plain, C.cast(Op::SExt, B, T));
      if (Sum->op() != Op::Add)
        return Sum;
      const Expr *Flat = integerRewrite(Sum, {Sum->operand(0), Sum->operand(1)});
      return Flat ? Flat : Sum;
    }
  }
  // Sums in one form: like terms collected (c*t + t = (c+1)*t, mod 2^n: an
  // induction variable stepped twice, (i + s) + s, is i + 2*s), products
  // with a constant distributed over sums, shifts of arithmetic by a
  // constant as products (2 * (g << 1) and g * 4 are one value), and an or
  // with a constant that has no bit in common with the other operand as
  // the sum it is.
  bool Linear = E->op() == Op::Add || E->op() == Op::Sub || E->op() == Op::Neg;
  if (E->op() == Op::Mul)
    Linear = Ops[0]->isConst() || Ops[1]->isConst();
  if (E->op() == Op::Shl)
    Linear = Ops[1]->isConst() && Ops[1]->constBits() < T.bits() &&
             isArithmetic(Ops[0]);
  if (E->op() == Op::Or)
    for (unsigned I : {0u, 1u})
      if (std::optional<uint64_t> Greatest = greatestValue(Ops[I], Aligned);
          Greatest && isArithmetic(Ops[1 - I]) &&
          std::bit_width(*Greatest) <= knownZeroBits(Ops[1 - I], Aligned))
        Linear = true;
  if (!Linear)
    return nullptr;
  LinearSum Sum;
  if (E->op() == Op::Or) {
    collectLinear(Ops[0], 1, Sum);
    collectLinear(Ops[1], 1, Sum);
  } else {
    collectLinear(rebuild(E, Ops), 1, Sum);
  }
  const Expr *R = linearForm(C, T, Sum);
  return R == rebuild(E, Ops) ? nullptr : R;
}

const Expr *Canonicalizer::rewrite(const Expr *E, std::vector<const Expr *> Ops) {
  if (E->op() == Op::ICmp) {
    if (const Expr *R = alignedComparison(C, E, Ops, Aligned))
      return R;
    if (const Expr *R = boundedComparison(C, E, Ops, Aligned))
      return R;
  }
  if (IntegerOnly) {
    // Sums and exact quotients only: the other rules wait for the
    // substitution, whose replacements they shape.
    if (E->type().isInt() && !E->type().isBool() &&
        (E->op() == Op::Add || E->op() == Op::Sub || E->op() == Op::Neg ||
         E->op() == Op::Mul || E->op() == Op::Shl || E->op() == Op::Or ||
         E->op() == Op::AShr))
      if (const Expr *R = integerRewrite(E, Ops))
        return R;
    return rebuild(E, Ops);
  }
  if (E->op() == Op::Or && E->type().isBool())
    for (unsigned K = 0; K < 2; ++K)
      if (const Expr *U = unorderedOf(C, Ops[K], Ops[1 - K]))
        return U;
  // x + x is 2 * x bit for bit in every rounding mode: both round the one
  // real 2x (an infinity alike where it overflows), and a NaN result is
  // the canonical one either way. A lowering picks either spelling.
  if (E->op() == Op::FAdd && Ops[0] == Ops[1]) {
    const Expr *Doubled = C.floatBinary(
        Op::FMul, C.floatConst(E->type(), 2.0), Ops[0], E->rounding());
    if (Doubled->op() != Op::FMul)
      return Doubled;
    return rewrite(Doubled, {Doubled->operand(0), Doubled->operand(1)});
  }
  if (E->op() == Op::Or && !E->type().isBool()) {
    const Expr *Built = rebuild(E, Ops);
    if (Built->op() == Op::Or)
      if (const Expr *Whole = reassembled(C, Built))
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
    if (const Expr *R = integerRewrite(E, Ops))
      return R;
    return rebuild(E, Ops);
  }
  if (E->op() == Op::Read || E->op() == Op::Call)
    return rebuild(E, Ops);
  if (E->op() == Op::Trunc)
    if (const Expr *R = narrowedBits(C, E->type(), Ops[0]))
      return R;
  // x & y is 0 when y has bits only where x is known zero: y a constant
  // (an address's alignment test under the launch's divisibility), a value
  // masked by one, or a symbol the assumptions keep below 2^k (an
  // element's offset within a block whose base is a multiple of 2^k).
  if (E->op() == Op::And && !E->type().isBool())
    for (unsigned I : {0u, 1u})
      if (std::optional<uint64_t> Greatest = greatestValue(Ops[I], Aligned);
          Greatest && std::bit_width(*Greatest) <=
                          knownZeroBits(Ops[1 - I], Aligned))
        return C.constant(E->type(), 0);
  // (a + c) rem n = (a + h) rem n + l for c = h + l, l the part of c below
  // the low bits a and n both have zero: the remainder r of a + h is such a
  // multiple too, and adding l crosses no multiple of n (a vector of lanes
  // that Triton's contiguity analysis lets it take modulo n once). Exact
  // for urem; for srem when a + h >= 0 (for a + h < 0 with r = 0 the sum's
  // remainder is l - |n|), which is then assumed (assumed()).
  if ((E->op() == Op::SRem || E->op() == Op::URem) && Ops[0]->op() == Op::Add) {
    LinearSum Sum;
    collectLinear(Ops[0], 1, Sum);
    uint64_t K = Sum.Constant & Value::mask(Ops[0]->type().bits());
    Sum.Constant = 0;
    const Expr *A = linearForm(C, Ops[0]->type(), Sum);
    unsigned Zero = std::min(
        {knownZeroBits(A, Aligned), knownZeroBits(Ops[1], Aligned), 63u});
    uint64_t Low = K & ((uint64_t(1) << Zero) - 1);
    if (Low != 0 && !A->isConst()) {
      const Expr *High =
          K == Low ? A : C.add(A, C.constant(A->type(), K - Low));
      if (High->op() == Op::Add)
        if (const Expr *Flat =
                integerRewrite(High, {High->operand(0), High->operand(1)}))
          High = Flat;
      if (E->op() == Op::SRem) {
        const Expr *NonNegative =
            C.icmp(ICmpPredicate::Sle, C.constant(High->type(), 0), High);
        if (std::find(Assumed.begin(), Assumed.end(), NonNegative) ==
            Assumed.end())
          Assumed.push_back(NonNegative);
      }
      const Expr *Rem = C.binary(E->op(), High, Ops[1]);
      const Expr *Total = C.add(Rem, C.constant(E->type(), Low));
      if (Total->op() != Op::Add)
        return Total;
      const Expr *Flat =
          integerRewrite(Total, {Total->operand(0), Total->operand(1)});
      return Flat ? Flat : Total;
    }
  }
  // ext(a + c) = ext(a + h) + l for c = h + l, l the part of c below the
  // low bits a has zero (a + h + l is (a + h) | l, whose sign is that of
  // a + h): an element index widened before a vector lane is added to it,
  // or after.
  if ((E->op() == Op::SExt || E->op() == Op::ZExt) && Ops[0]->op() == Op::Add) {
    LinearSum Sum;
    collectLinear(Ops[0], 1, Sum);
    Type From = Ops[0]->type();
    uint64_t K = Sum.Constant & Value::mask(From.bits());
    Sum.Constant = 0;
    const Expr *A = linearForm(C, From, Sum);
    unsigned Zero = std::min(knownZeroBits(A, Aligned), 63u);
    uint64_t Low = K & ((uint64_t(1) << Zero) - 1);
    if (Low != 0 && !A->isConst()) {
      const Expr *High = K == Low ? A : C.add(A, C.constant(From, K - Low));
      if (High->op() == Op::Add)
        if (const Expr *Flat =
                integerRewrite(High, {High->operand(0), High->operand(1)}))
          High = Flat;
      const Expr *Wide = rewrite(E, {High});
      const Expr *Total = C.add(Wide, C.constant(E->type(), Low));
      if (Total->op() != Op::Add)
        return Total;
      const Expr *Flat =
          integerRewrite(Total, {Total->operand(0), Total->operand(1)});
      return Flat ? Flat : Total;
    }
  }
  if (const Expr *R = integerRewrite(E, Ops))
    return R;
  if (const Expr *R = narrowedArithmetic(C, E, Ops))
    return R;
  // -0.0 - x is -x when rounding to nearest (NaNs are one datum), as LLVM
  // folds it; fma's factors commute.
  if (E->op() == Op::FSub && E->rounding() == RoundingMode::NearestEven &&
      Ops[0]->isConst() &&
      Ops[0]->constBits() == (uint64_t(1) << (Ops[0]->type().bits() - 1)))
    return C.unary(Op::FNeg, Ops[1]);
  // x - y is x + (-y) in every rounding mode (IEEE 754 defines it so); a
  // constant y folds, as LLVM writes x - 1.0 as x + -1.0.
  // x - c is x + (-c) in wrapping arithmetic.
  if (E->op() == Op::Sub && Ops[1]->isConst())
    return C.add(Ops[0], C.constant(Ops[1]->type(),
                                    uint64_t(0) - Ops[1]->constBits()));
  if (E->op() == Op::FSub)
    return C.floatBinary(Op::FAdd, Ops[0], C.unary(Op::FNeg, Ops[1]),
                         E->rounding());
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

namespace {

using Range = GuardSimplifier::Range;

int64_t signedValue(const Expr *K) {
  unsigned W = K->type().bits();
  return W >= 64 ? int64_t(K->constBits())
                 : int64_t(K->constBits() << (64 - W)) >> (64 - W);
}

Range fullRange(unsigned W) {
  if (W >= 64)
    return {INT64_MIN, INT64_MAX, 0, UINT64_MAX};
  return {-(int64_t(1) << (W - 1)), (int64_t(1) << (W - 1)) - 1, 0,
          (uint64_t(1) << W) - 1};
}

ICmpPredicate swapped(ICmpPredicate P) {
  using I = ICmpPredicate;
  switch (P) {
  case I::Ult: return I::Ugt;
  case I::Ule: return I::Uge;
  case I::Ugt: return I::Ult;
  case I::Uge: return I::Ule;
  case I::Slt: return I::Sgt;
  case I::Sle: return I::Sge;
  case I::Sgt: return I::Slt;
  case I::Sge: return I::Sle;
  default: return P;
  }
}

ICmpPredicate inverse(ICmpPredicate P) {
  using I = ICmpPredicate;
  switch (P) {
  case I::Eq: return I::Ne;
  case I::Ne: return I::Eq;
  case I::Ult: return I::Uge;
  case I::Ule: return I::Ugt;
  case I::Ugt: return I::Ule;
  case I::Uge: return I::Ult;
  case I::Slt: return I::Sge;
  case I::Sle: return I::Sgt;
  case I::Sgt: return I::Sle;
  case I::Sge: return I::Slt;
  }
  return P;
}

/// An integer comparison with a constant as (x, predicate, constant),
/// the constant on the right; false for anything else.
bool comparisonWithConstant(const Expr *E, const Expr *&X, ICmpPredicate &P,
                            const Expr *&K) {
  if (E->op() != Op::ICmp || E->operand(0)->type().bits() > 64)
    return false;
  P = E->icmpPredicate();
  X = E->operand(0);
  K = E->operand(1);
  if (X->isConst() == K->isConst())
    return false;
  if (X->isConst()) {
    std::swap(X, K);
    P = swapped(P);
  }
  return true;
}

/// Narrows R by `x P k` holding. Returns false when nothing is learned.
bool narrow(Range &R, ICmpPredicate P, const Expr *K) {
  using I = ICmpPredicate;
  int64_t S = signedValue(K);
  uint64_t U = K->constBits();
  switch (P) {
  case I::Eq:
    R.SignedLow = std::max(R.SignedLow, S);
    R.SignedHigh = std::min(R.SignedHigh, S);
    R.UnsignedLow = std::max(R.UnsignedLow, U);
    R.UnsignedHigh = std::min(R.UnsignedHigh, U);
    return true;
  case I::Slt:
    if (S == INT64_MIN)
      return false;
    R.SignedHigh = std::min(R.SignedHigh, S - 1);
    return true;
  case I::Sle:
    R.SignedHigh = std::min(R.SignedHigh, S);
    return true;
  case I::Sgt:
    if (S == INT64_MAX)
      return false;
    R.SignedLow = std::max(R.SignedLow, S + 1);
    return true;
  case I::Sge:
    R.SignedLow = std::max(R.SignedLow, S);
    return true;
  case I::Ult:
    if (U == 0)
      return false;
    R.UnsignedHigh = std::min(R.UnsignedHigh, U - 1);
    return true;
  case I::Ule:
    R.UnsignedHigh = std::min(R.UnsignedHigh, U);
    return true;
  case I::Ugt:
    if (U == UINT64_MAX)
      return false;
    R.UnsignedLow = std::max(R.UnsignedLow, U + 1);
    return true;
  case I::Uge:
    R.UnsignedLow = std::max(R.UnsignedLow, U);
    return true;
  case I::Ne:
    return false;
  }
  return false;
}

/// A signed range within the non-negatives is the same unsigned range,
/// and an unsigned one below the sign bit the same signed range.
void shareBetweenSignedAndUnsigned(Range &R, unsigned W) {
  Range Full = fullRange(W);
  if (R.SignedLow >= 0) {
    R.UnsignedLow = std::max(R.UnsignedLow, uint64_t(R.SignedLow));
    R.UnsignedHigh = std::min(R.UnsignedHigh, uint64_t(R.SignedHigh));
  }
  if (R.UnsignedHigh <= uint64_t(Full.SignedHigh)) {
    R.SignedLow = std::max(R.SignedLow, int64_t(R.UnsignedLow));
    R.SignedHigh = std::min(R.SignedHigh, int64_t(R.UnsignedHigh));
  }
}

/// `x P k` for every x in R (true), for none (false), or either.
std::optional<bool> decided(const Range &R, ICmpPredicate P, const Expr *K) {
  using I = ICmpPredicate;
  if (R.SignedLow > R.SignedHigh || R.UnsignedLow > R.UnsignedHigh)
    return std::nullopt; // the condition cannot hold: leave it to others
  int64_t S = signedValue(K);
  uint64_t U = K->constBits();
  auto Either = [](bool AllTrue, bool AllFalse) -> std::optional<bool> {
    if (AllTrue)
      return true;
    if (AllFalse)
      return false;
    return std::nullopt;
  };
  switch (P) {
  case I::Slt: return Either(R.SignedHigh < S, R.SignedLow >= S);
  case I::Sle: return Either(R.SignedHigh <= S, R.SignedLow > S);
  case I::Sgt: return Either(R.SignedLow > S, R.SignedHigh <= S);
  case I::Sge: return Either(R.SignedLow >= S, R.SignedHigh < S);
  case I::Ult: return Either(R.UnsignedHigh < U, R.UnsignedLow >= U);
  case I::Ule: return Either(R.UnsignedHigh <= U, R.UnsignedLow > U);
  case I::Ugt: return Either(R.UnsignedLow > U, R.UnsignedHigh <= U);
  case I::Uge: return Either(R.UnsignedLow >= U, R.UnsignedHigh < U);
  case I::Eq:
  case I::Ne: {
    bool Outside = S < R.SignedLow || S > R.SignedHigh || U < R.UnsignedLow ||
                   U > R.UnsignedHigh;
    bool Only = R.SignedLow == S && R.SignedHigh == S;
    std::optional<bool> Equal = Either(Only, Outside);
    if (!Equal || P == I::Eq)
      return Equal;
    return !*Equal;
  }
  }
  return std::nullopt;
}

} // namespace

const Expr *GuardSimplifier::operator()(const Expr *Root, const Expr *Guard,
                                        bool Holds) {
  if (Guard->isConst())
    return Root;
  Known &K = Done[{Guard, Holds}];
  auto &Memo = K.Memo;
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
      // What the part says of an integer compared with a constant.
      bool True = Holds;
      const Expr *Part = G;
      if (Part->op() == Op::Not) {
        Part = Part->operand(0);
        True = !True;
      }
      const Expr *X, *Bound;
      ICmpPredicate P;
      if (!comparisonWithConstant(Part, X, P, Bound))
        continue;
      auto It = K.Ranges.try_emplace(X, fullRange(X->type().bits())).first;
      if (narrow(It->second, True ? P : inverse(P), Bound))
        shareBetweenSignedAndUnsigned(It->second, X->type().bits());
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
    const Expr *X, *Bound;
    ICmpPredicate P;
    if (!K.Ranges.empty() && comparisonWithConstant(N, X, P, Bound)) {
      auto It = K.Ranges.find(X);
      std::optional<bool> Value;
      if (It != K.Ranges.end())
        Value = decided(It->second, P, Bound);
      if (Value) {
        Memo[N] = C.boolean(*Value);
        continue;
      }
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

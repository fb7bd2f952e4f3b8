//===- LinearArithmetic.cpp - Fourier-Motzkin over the shared IR ----------===//
#include "stages/LinearArithmetic.h"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

using Int = __int128;
constexpr Int Limit = Int(1) << 120; // past this, give up (no overflow)

Int magnitude(Int V) { return V < 0 ? -V : V; }

Int gcd(Int A, Int B) {
  A = magnitude(A);
  B = magnitude(B);
  while (B) {
    Int T = A % B;
    A = B;
    B = T;
  }
  return A;
}

/// sum(Coef[v] * v) + Const; as a constraint it means "<= 0".
struct Linear {
  std::map<unsigned, Int> Coef;
  Int Const = 0;
  bool operator<(const Linear &O) const {
    return std::tie(Coef, Const) < std::tie(O.Coef, O.Const);
  }
};

Linear scaled(const Linear &A, Int K) {
  Linear Out;
  if (K == 0)
    return Out;
  for (const auto &[V, C] : A.Coef)
    Out.Coef[V] = C * K;
  Out.Const = A.Const * K;
  return Out;
}

Linear sum(const Linear &A, const Linear &B) {
  Linear Out = A;
  for (const auto &[V, C] : B.Coef) {
    Int &Slot = Out.Coef[V];
    Slot += C;
    if (Slot == 0)
      Out.Coef.erase(V);
  }
  Out.Const += B.Const;
  return Out;
}

bool tooLarge(const Linear &L) {
  if (magnitude(L.Const) > Limit)
    return true;
  for (const auto &[V, C] : L.Coef)
    if (magnitude(C) > Limit)
      return true;
  return false;
}

/// Integer tightening: sum(a x) + c <= 0 with g = gcd(a) becomes
/// sum(a/g x) + ceil(c/g) <= 0.
Linear tightened(Linear L) {
  Int G = 0;
  for (const auto &[V, C] : L.Coef)
    G = gcd(G, C);
  if (G <= 1)
    return L;
  for (auto &[V, C] : L.Coef)
    C /= G;
  Int Q = L.Const / G, R = L.Const % G;
  L.Const = (R > 0) ? Q + 1 : Q; // ceil, C++ division truncates toward zero
  return L;
}

using Conjunction = std::vector<Linear>;
using Dnf = std::vector<Conjunction>;

/// Whether the conjunction has no rational (hence no integer) solution.
bool infeasible(Conjunction Cs) {
  std::set<Linear> Set;
  for (Linear &L : Cs) {
    L = tightened(L);
    if (L.Coef.empty()) {
      if (L.Const > 0)
        return true;
      continue;
    }
    Set.insert(L);
  }
  while (!Set.empty()) {
    std::map<unsigned, std::pair<unsigned, unsigned>> Signs;
    for (const Linear &L : Set)
      for (const auto &[V, C] : L.Coef)
        (C > 0 ? Signs[V].first : Signs[V].second)++;
    unsigned Best = 0;
    uint64_t BestCost = ~uint64_t(0);
    for (const auto &[V, PN] : Signs) {
      uint64_t Cost = uint64_t(PN.first) * PN.second;
      if (Cost < BestCost) {
        BestCost = Cost;
        Best = V;
      }
    }
    std::vector<Linear> Pos, Neg;
    std::set<Linear> Next;
    for (const Linear &L : Set) {
      auto It = L.Coef.find(Best);
      if (It == L.Coef.end())
        Next.insert(L);
      else
        (It->second > 0 ? Pos : Neg).push_back(L);
    }
    for (const Linear &P : Pos)
      for (const Linear &N : Neg) {
        Int A = P.Coef.at(Best), B = -N.Coef.at(Best);
        Linear L = tightened(sum(scaled(P, B), scaled(N, A)));
        if (tooLarge(L))
          return false;
        if (L.Coef.empty()) {
          if (L.Const > 0)
            return true;
          continue;
        }
        Next.insert(L);
      }
    if (Next.size() > 4000)
      return false;
    Set = std::move(Next);
  }
  return false;
}

Dnf conjoin(const Dnf &A, const Dnf &B, bool &Failed) {
  Dnf Out;
  for (const Conjunction &X : A)
    for (const Conjunction &Y : B) {
      Conjunction Z = X;
      Z.insert(Z.end(), Y.begin(), Y.end());
      Out.push_back(std::move(Z));
    }
  if (Out.size() > 256)
    Failed = true;
  return Out;
}

Dnf disjoin(Dnf A, const Dnf &B, bool &Failed) {
  A.insert(A.end(), B.begin(), B.end());
  if (A.size() > 256)
    Failed = true;
  return A;
}

/// Reads conditions as linear integer constraints (see the header).
class Reader {
public:
  bool Failed = false;
  std::vector<std::pair<Int, Int>> Ranges; // per atom
  /// Exact values that must fit their width: (value, lo, hi).
  std::vector<std::tuple<Linear, Int, Int>> NoWrap;

  std::optional<Linear> term(const Expr *E) {
    if (auto It = Terms.find(E); It != Terms.end())
      return It->second;
    std::optional<Linear> L = compute(E);
    Terms[E] = L;
    return L;
  }

  Dnf formula(const Expr *E, bool Negated) {
    if (Failed)
      return {};
    if (!E->type().isBool()) {
      Failed = true;
      return {};
    }
    switch (E->op()) {
    case Op::Const:
      return E->isTrue() != Negated ? Dnf{Conjunction{}} : Dnf{};
    case Op::Not:
      return formula(E->operand(0), !Negated);
    case Op::And:
    case Op::Or: {
      Dnf A = formula(E->operand(0), Negated);
      Dnf B = formula(E->operand(1), Negated);
      bool Conj = (E->op() == Op::And) != Negated;
      return Conj ? conjoin(A, B, Failed) : disjoin(A, B, Failed);
    }
    case Op::Xor: {
      const Expr *A = E->operand(0), *B = E->operand(1);
      Dnf AB = conjoin(formula(A, false), formula(B, !Negated), Failed);
      Dnf BA = conjoin(formula(A, true), formula(B, Negated), Failed);
      return disjoin(AB, BA, Failed);
    }
    case Op::Select: {
      Dnf T = conjoin(formula(E->operand(0), false),
                      formula(E->operand(1), Negated), Failed);
      Dnf F = conjoin(formula(E->operand(0), true),
                      formula(E->operand(2), Negated), Failed);
      return disjoin(T, F, Failed);
    }
    case Op::ICmp:
      return comparison(E, Negated);
    default:
      Failed = true;
      return {};
    }
  }

private:
  std::unordered_map<const Expr *, unsigned> Atoms;
  std::unordered_map<const Expr *, std::optional<Linear>> Terms;

  static Int signedValue(const Expr *E) {
    unsigned W = E->type().bits();
    uint64_t B = E->constBits();
    if (W < 64 && (B >> (W - 1)) & 1)
      return Int(B) - (Int(1) << W);
    return W == 64 ? Int(int64_t(B)) : Int(B);
  }

  Linear atom(const Expr *E, Int Lo, Int Hi) {
    auto [It, New] = Atoms.emplace(E, unsigned(Ranges.size()));
    if (New)
      Ranges.push_back({Lo, Hi});
    Linear L;
    L.Coef[It->second] = 1;
    return L;
  }

  Linear exact(Linear L, unsigned W) {
    NoWrap.push_back({L, -(Int(1) << (W - 1)), (Int(1) << (W - 1)) - 1});
    return L;
  }

  std::optional<Linear> compute(const Expr *E) {
    Type T = E->type();
    if (!T.isInt() || T.bits() < 2)
      return std::nullopt;
    unsigned W = T.bits();
    Int Lo = -(Int(1) << (W - 1)), Hi = (Int(1) << (W - 1)) - 1;
    auto Operand = [&](unsigned I) { return term(E->operand(I)); };
    switch (E->op()) {
    case Op::Const: {
      Linear L;
      L.Const = signedValue(E);
      return L;
    }
    case Op::Add:
    case Op::Sub: {
      std::optional<Linear> A = Operand(0), B = Operand(1);
      if (!A || !B)
        return std::nullopt;
      return exact(sum(*A, scaled(*B, E->op() == Op::Add ? 1 : -1)), W);
    }
    case Op::Neg: {
      std::optional<Linear> A = Operand(0);
      if (!A)
        return std::nullopt;
      return exact(scaled(*A, -1), W);
    }
    case Op::Mul:
      for (unsigned I : {0u, 1u})
        if (E->operand(I)->isConst()) {
          std::optional<Linear> A = Operand(1 - I);
          if (!A)
            return std::nullopt;
          return exact(scaled(*A, signedValue(E->operand(I))), W);
        }
      return atom(E, Lo, Hi);
    case Op::Shl:
      if (E->operand(1)->isConst() && E->operand(1)->constBits() < W - 1) {
        std::optional<Linear> A = Operand(0);
        if (!A)
          return std::nullopt;
        return exact(scaled(*A, Int(1) << E->operand(1)->constBits()), W);
      }
      return atom(E, Lo, Hi);
    case Op::SExt:
      if (E->operand(0)->type().bits() >= 2)
        return Operand(0);
      return atom(E, Lo, Hi);
    case Op::ZExt: {
      unsigned From = E->operand(0)->type().bits();
      return atom(E, 0, (Int(1) << From) - 1);
    }
    default:
      return atom(E, Lo, Hi);
    }
  }

  Dnf comparison(const Expr *E, bool Negated) {
    const Expr *A = E->operand(0), *B = E->operand(1);
    std::optional<Linear> LA = term(A), LB = term(B);
    if (!LA || !LB) {
      Failed = true;
      return {};
    }
    ICmpPredicate P = E->icmpPredicate();
    if (Negated) {
      static const ICmpPredicate Inverse[] = {
          ICmpPredicate::Ne,  ICmpPredicate::Eq,  ICmpPredicate::Uge,
          ICmpPredicate::Ugt, ICmpPredicate::Ule, ICmpPredicate::Ult,
          ICmpPredicate::Sge, ICmpPredicate::Sgt, ICmpPredicate::Sle,
          ICmpPredicate::Slt};
      P = Inverse[unsigned(P)];
    }
    Linear AminusB = sum(*LA, scaled(*LB, -1));
    Linear BminusA = scaled(AminusB, -1);
    Linear One;
    One.Const = 1;
    switch (P) {
    case ICmpPredicate::Eq:
      return {Conjunction{AminusB, BminusA}};
    case ICmpPredicate::Ne:
      return {Conjunction{sum(AminusB, One)}, Conjunction{sum(BminusA, One)}};
    case ICmpPredicate::Slt:
      return {Conjunction{sum(AminusB, One)}};
    case ICmpPredicate::Sle:
      return {Conjunction{AminusB}};
    case ICmpPredicate::Sgt:
      return {Conjunction{sum(BminusA, One)}};
    case ICmpPredicate::Sge:
      return {Conjunction{BminusA}};
    default: // unsigned comparisons: not read
      Failed = true;
      return {};
    }
  }
};

} // namespace

bool LinearFacts::refutes(const Expr *X) const {
  Reader R;
  Dnf F{Conjunction{}};
  for (const Expr *Fact : Facts)
    F = conjoin(F, R.formula(Fact, false), R.Failed);
  size_t FactObligations = R.NoWrap.size();
  Dnf Xd = R.formula(X, false);
  if (R.Failed)
    return false;
  Conjunction Base;
  for (unsigned V = 0; V < R.Ranges.size(); ++V) {
    Linear Up, Down;
    Up.Coef[V] = 1;
    Up.Const = -R.Ranges[V].second; // v - hi <= 0
    Down.Coef[V] = -1;
    Down.Const = R.Ranges[V].first; // lo - v <= 0
    Base.push_back(Up);
    Base.push_back(Down);
  }
  auto Outside = [](const std::tuple<Linear, Int, Int> &O) {
    const auto &[L, Lo, Hi] = O;
    Linear Below = L, Above = scaled(L, -1);
    Below.Const -= Lo - 1; // L <= lo - 1
    Above.Const += Hi + 1; // L >= hi + 1
    return std::vector<Linear>{Below, Above};
  };
  auto With = [&](const Conjunction &A, const Conjunction &B) {
    Conjunction Z = Base;
    Z.insert(Z.end(), A.begin(), A.end());
    Z.insert(Z.end(), B.begin(), B.end());
    return Z;
  };
  // The facts' own arithmetic is exact for every input.
  for (size_t I = 0; I < FactObligations; ++I)
    for (const Linear &V : Outside(R.NoWrap[I]))
      if (!infeasible(With({V}, {})))
        return false;
  // X's arithmetic is exact wherever the facts hold.
  for (size_t I = FactObligations; I < R.NoWrap.size(); ++I)
    for (const Linear &V : Outside(R.NoWrap[I]))
      for (const Conjunction &C : F)
        if (!infeasible(With(C, {V})))
          return false;
  // Then the facts and X have no common solution.
  for (const Conjunction &C : F)
    for (const Conjunction &D : Xd)
      if (!infeasible(With(C, D)))
        return false;
  return true;
}

} // namespace stagecheck::stages

//===- Departure.cpp - Where a lowered stage departs from its source ------===//
#include "stages/Departure.h"

#include <cctype>

#include <set>
#include <unordered_map>
#include <unordered_set>

using namespace stagecheck::ir;
using stagecheck::ttir::Operation;

namespace stagecheck::stages {

namespace {

uint64_t positionKey(ttir::FilePos P) {
  return (uint64_t(P.Line) << 32) | P.Column;
}

/// Def-use over the values of a module, precise enough to follow one
/// carried value through a loop: a loop's result r depends on the bounds,
/// its initial value r and the value its body yields as r.
class Dataflow {
public:
  explicit Dataflow(const ttir::Module &M) {
    for (const ttir::Function &F : M.Functions)
      walk(F.Body, nullptr);
  }

  const Operation *at(ttir::FilePos P) const {
    auto It = ByPosition.find(positionKey(P));
    return It == ByPosition.end() ? nullptr : It->second;
  }

  /// The ops whose values the operands of Roots are computed from (Roots
  /// included).
  std::unordered_set<const Operation *>
  slice(const std::vector<const Operation *> &Roots) const {
    std::unordered_set<const Operation *> Ops;
    std::set<std::pair<std::string, unsigned>> Seen;
    std::vector<std::pair<std::string, unsigned>> Work;
    auto Uses = [&](const Operation *O) {
      if (!O || !Ops.insert(O).second)
        return;
      for (const ttir::OperandRef &R : O->Operands)
        Work.push_back({R.Name, R.Index});
      for (const Operation *Inner : nested(O)) // what a region op computes
        for (const ttir::OperandRef &R : Inner->Operands) {
          Ops.insert(Inner);
          Work.push_back({R.Name, R.Index});
        }
    };
    for (const Operation *R : Roots)
      Uses(R);
    while (!Work.empty()) {
      auto V = Work.back();
      Work.pop_back();
      if (!Seen.insert(V).second)
        continue;
      if (auto It = Results.find(V.first); It != Results.end()) {
        const Operation *O = It->second;
        if (O->Name == "scf.for" && loopCarried(O, V.second, Work)) {
          Ops.insert(O);
          continue;
        }
        Uses(O);
        continue;
      }
      if (auto It = BlockArgs.find(V.first); It != BlockArgs.end()) {
        // A region argument comes from the holder's operands (and, for a
        // loop, what the body yields), not from the holder's results.
        const auto &[Holder, Index] = It->second;
        if (Holder->Name == "scf.for") {
          if (Index == 0) // the induction variable
            for (unsigned I : {0u, 2u})
              Work.push_back({Holder->Operands[I].Name, Holder->Operands[I].Index});
          else
            loopCarried(Holder, Index - 1, Work);
        } else if (Holder->Name == "scf.while") {
          Uses(Holder);
        }
      }
    }
    return Ops;
  }

private:
  std::unordered_map<std::string, const Operation *> Results;
  std::unordered_map<std::string, std::pair<const Operation *, unsigned>> BlockArgs;
  std::unordered_map<const Operation *, std::vector<const Operation *>> Nested;
  std::unordered_map<uint64_t, const Operation *> ByPosition;

  void walk(const ttir::Region &R, const Operation *Holder) {
    for (const ttir::Block &B : R.Blocks) {
      for (size_t I = 0; I < B.Args.size(); ++I)
        if (Holder)
          BlockArgs[B.Args[I].Name] = {Holder, unsigned(I)};
      for (const Operation &O : B.Ops) {
        for (const auto &[Name, Count] : O.Results)
          Results[Name] = &O;
        ByPosition[positionKey(O.Pos)] = &O;
        if (Holder)
          Nested[Holder].push_back(&O);
        for (const ttir::Region &Inner : O.Regions)
          walk(Inner, &O);
      }
    }
  }

  std::vector<const Operation *> nested(const Operation *O) const {
    std::vector<const Operation *> Out;
    std::vector<const Operation *> Work{O};
    while (!Work.empty()) {
      auto It = Nested.find(Work.back());
      Work.pop_back();
      if (It == Nested.end())
        continue;
      for (const Operation *I : It->second) {
        Out.push_back(I);
        Work.push_back(I);
      }
    }
    return Out;
  }

  /// Carried value R of loop O: its bounds, initial value and yielded value.
  bool loopCarried(const Operation *O, unsigned R,
                   std::vector<std::pair<std::string, unsigned>> &Work) const {
    if (O->Operands.size() < 3 + R + 1 || O->Regions.empty())
      return false;
    for (unsigned I : {0u, 1u, 2u, 3u + R})
      Work.push_back({O->Operands[I].Name, O->Operands[I].Index});
    const ttir::Block &Body = O->Regions[0].Blocks.back();
    if (!Body.Ops.empty() && Body.Ops.back().Name == "scf.yield" &&
        R < Body.Ops.back().Operands.size())
      Work.push_back({Body.Ops.back().Operands[R].Name,
                      Body.Ops.back().Operands[R].Index});
    return true;
  }

};

} // namespace

std::optional<ttir::OpRef> findDeparture(const ttir::Module &Target,
                                         const ttir::LiftResult &SourceLift,
                                         const ttir::LiftResult &TargetLift,
                                         const Counterexample &X) {
  // What the failing query saw of the target's writes: the guards, the
  // places or the values (all of them for a comparison by content).
  std::vector<const Expr *> Roots;
  bool Guards = X.Query.find(": guards") != std::string::npos;
  bool Places = X.Query.find(": places") != std::string::npos;
  bool Values = X.Query.find(": values") != std::string::npos;
  bool All = !Guards && !Places && !Values;
  for (const Write &W : TargetLift.Effects.Writes) {
    if (W.Buffer != X.Buffer)
      continue;
    if (All || Guards)
      Roots.push_back(W.Guard);
    if (All || Places)
      Roots.push_back(W.Index);
    if (All || Values)
      Roots.insert(Roots.end(), {W.Value, W.Defined});
  }
  // Live: an op execution whose value that depends on; going backwards
  // through the trace, what a live op consumed is live too (so values that
  // a reduction or a dot consumed element by element count).
  std::unordered_set<const Expr *> Live;
  // What live ops consumed directly: a constant is shared by everything
  // that folds to it, so an arith.constant is live only when consumed.
  std::unordered_set<const Expr *> Consumed;
  auto MakeLive = [&](const std::vector<const Expr *> &Es) {
    Consumed.insert(Es.begin(), Es.end());
    std::vector<const Expr *> Fresh;
    for (const Expr *E : Es)
      if (!Live.count(E))
        Fresh.push_back(E);
    for (const Expr *N : postOrder(Fresh))
      Live.insert(N);
  };
  MakeLive(Roots);
  // Constants count only from arith.constant (other ops yield them by
  // folding, and one constant serves many values), except poison: a
  // definedness that is false is what an ill-typed op yields.
  // (Value ops record each result as its element and its definedness.)
  auto Evidence = [](const ttir::OpTrace &T, size_t K) {
    const Expr *E = T.Results[K];
    bool Definedness = K % 2 == 1 && T.Ref.Op != "tt.store" &&
                       T.Results.size() % 2 == 0;
    return !E->isConst() || T.Ref.Op == "arith.constant" ||
           (Definedness && E->isFalse());
  };
  std::vector<std::vector<const Expr *>> LiveResults(TargetLift.Trace.size());
  for (size_t I = TargetLift.Trace.size(); I-- > 0;) {
    const ttir::OpTrace &T = TargetLift.Trace[I];
    bool Constant = T.Ref.Op == "arith.constant";
    for (size_t K = 0; K < T.Results.size(); ++K)
      if (Evidence(T, K) &&
          (Constant ? Consumed.count(T.Results[K]) : Live.count(T.Results[K])))
        LiveResults[I].push_back(T.Results[K]);
    bool Store = T.Ref.Op == "tt.store";
    if (LiveResults[I].empty())
      continue;
    // Control flow yields what its regions computed: the nodes are the
    // same, so liveness reaches the ops inside without the holder.
    if (T.Ref.Op == "scf.for" || T.Ref.Op == "scf.if" || T.Ref.Op == "scf.while")
      continue;
    // A store consumed its pointer, value and mask (in that order): only
    // what the failing query saw of it.
    if (Store && T.Inputs.size() >= 4 && !All) {
      std::vector<const Expr *> Seen;
      size_t From = Guards ? 4 : Places ? 0 : 2;
      for (size_t K = From; K < From + 2 && K < T.Inputs.size(); ++K)
        Seen.push_back(T.Inputs[K]);
      MakeLive(Seen);
      continue;
    }
    MakeLive(T.Inputs);
  }

  // What the source computes: every value an op yields anywhere, and per
  // op and place the values it yields there.
  std::unordered_set<const Expr *> Anywhere;
  auto Key = [](const ttir::OpRef &R) { return R.Op + "@" + R.Source.str(); };
  std::unordered_map<std::string, std::unordered_set<const Expr *>> AtPlace;
  for (const ttir::OpTrace &T : SourceLift.Trace) {
    Anywhere.insert(T.Results.begin(), T.Results.end());
    if (T.Ref.Source.known())
      AtPlace[Key(T.Ref)].insert(T.Results.begin(), T.Results.end());
  }

  Dataflow Flow(Target);
  std::unordered_map<const Operation *, const ttir::OpRef *> Departing;
  for (size_t I = 0; I < TargetLift.Trace.size(); ++I) {
    const ttir::OpTrace &T = TargetLift.Trace[I];
    const Operation *O = Flow.at(T.Ref.Pos);
    if (LiveResults[I].empty() || !O || Departing.count(O))
      continue;
    const std::unordered_set<const Expr *> *Expected = &Anywhere;
    if (T.Ref.Source.known())
      if (auto It = AtPlace.find(Key(T.Ref)); It != AtPlace.end())
        Expected = &It->second;
    for (const Expr *E : LiveResults[I]) {
      // A bare symbol (an index, a parameter) is an input, not a
      // computation.
      if (E->op() == Op::Symbol)
        continue;
      if (!Expected->count(E)) {
        Departing[O] = &T.Ref;
        break;
      }
    }
  }

  const ttir::OpRef *Best = nullptr;
  auto Better = [](const ttir::OpRef &A, const ttir::OpRef &B) {
    return std::tie(A.Pos.Line, A.Pos.Column) <
           std::tie(B.Pos.Line, B.Pos.Column);
  };
  for (const auto &[O, Ref] : Departing) {
    std::unordered_set<const Operation *> Inputs = Flow.slice({O});
    Inputs.erase(O);
    bool Cause = true;
    for (const Operation *I : Inputs)
      Cause &= !Departing.count(I);
    if (Cause && (!Best || Better(*Ref, *Best)))
      Best = Ref;
  }
  if (!Best)
    return std::nullopt;
  return *Best;
}

} // namespace stagecheck::stages

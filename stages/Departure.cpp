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
/// its initial value r and the value its body yields as r; a shared-memory
/// read depends on every write into the same allocation.
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
  slice(const std::vector<const Operation *> &Roots,
        std::optional<unsigned> OnlyOperand = std::nullopt) const {
    std::unordered_set<const Operation *> Ops;
    std::set<std::pair<std::string, unsigned>> Seen;
    std::vector<std::pair<std::string, unsigned>> Work;
    auto Uses = [&](const Operation *O) {
      if (!O || !Ops.insert(O).second)
        return;
      for (const ttir::OperandRef &R : O->Operands)
        Work.push_back({R.Name, R.Index});
      for (const Operation *W : memoryWriters(O))
        if (Ops.insert(W).second)
          for (const ttir::OperandRef &R : W->Operands)
            Work.push_back({R.Name, R.Index});
      for (const Operation *Inner : nested(O)) // what a region op computes
        for (const ttir::OperandRef &R : Inner->Operands) {
          Ops.insert(Inner);
          Work.push_back({R.Name, R.Index});
        }
    };
    for (const Operation *R : Roots) {
      if (!OnlyOperand) {
        Uses(R);
        continue;
      }
      if (R && Ops.insert(R).second && *OnlyOperand < R->Operands.size())
        Work.push_back({R->Operands[*OnlyOperand].Name,
                        R->Operands[*OnlyOperand].Index});
    }
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
  std::vector<const Operation *> SharedWriters;

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
        if (O.Name == "ttg.async_copy_global_to_local" ||
            O.Name == "ttg.local_store")
          SharedWriters.push_back(&O);
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

  /// The allocation a memory descriptor value views, if it can be traced.
  const Operation *allocation(const ttir::OperandRef &R) const {
    for (unsigned Depth = 0; Depth < 16; ++Depth) {
      auto It = Results.find(R.Name);
      if (It == Results.end())
        return nullptr;
      const Operation *O = It->second;
      if (O->Name == "ttg.local_alloc")
        return O;
      if (O->Name.rfind("ttg.memdesc_", 0) != 0 || O->Operands.empty())
        return nullptr;
      return allocation(O->Operands.front());
    }
    return nullptr;
  }

  /// The writes into the allocations a read of O may see.
  std::vector<const Operation *> memoryWriters(const Operation *O) const {
    std::vector<const Operation *> Out;
    if (O->Name != "ttg.local_load" && O->Name != "ttng.warp_group_dot")
      return Out;
    for (const ttir::OperandRef &R : O->Operands) {
      const Operation *A = allocation(R);
      if (!A)
        continue;
      for (const Operation *W : SharedWriters)
        for (const ttir::OperandRef &D : W->Operands)
          if (D.Tag.empty() && allocation(D) == A)
            Out.push_back(W);
    }
    return Out;
  }
};

} // namespace

std::optional<ttir::OpRef> findDeparture(const ttir::Module &Target,
                                         const ttir::LiftResult &SourceLift,
                                         const ttir::LiftResult &TargetLift,
                                         const Counterexample &X) {
  Dataflow Flow(Target);
  std::vector<const Operation *> Roots;
  for (const ttir::OpTrace &T : TargetLift.Trace)
    if (T.Ref.Op == X.TargetOrigin.Op &&
        T.Ref.Source.str() == X.TargetOrigin.Loc.str())
      Roots.push_back(Flow.at(T.Ref.Pos));
  // A store's guard comes from its mask, its place from its pointer, its
  // value from its value operand: follow only what the failing query saw.
  std::optional<unsigned> Operand;
  if (X.Query.find(": guards") != std::string::npos)
    Operand = 2;
  else if (X.Query.find(": places") != std::string::npos)
    Operand = 0;
  else if (X.Query.find(": values") != std::string::npos)
    Operand = 1;
  std::unordered_set<const Operation *> Relevant = Flow.slice(Roots, Operand);

  // What the source computes: everything it writes, every value an op
  // yields, and per op and place the values it yields there.
  std::vector<const Expr *> SourceRoots;
  for (const Write &W : SourceLift.Effects.Writes)
    SourceRoots.insert(SourceRoots.end(), {W.Guard, W.Index, W.Value, W.Defined});
  std::vector<const Expr *> Nodes = postOrder(SourceRoots);
  std::unordered_set<const Expr *> Anywhere(Nodes.begin(), Nodes.end());
  auto Key = [](const ttir::OpRef &R) { return R.Op + "@" + R.Source.str(); };
  std::unordered_map<std::string, std::unordered_set<const Expr *>> AtPlace;
  for (const ttir::OpTrace &T : SourceLift.Trace) {
    Anywhere.insert(T.Results.begin(), T.Results.end());
    if (T.Ref.Source.known())
      AtPlace[Key(T.Ref)].insert(T.Results.begin(), T.Results.end());
  }

  // What the failing write is made of. A value that does not depend on an
  // element index must be part of it to matter (pipelining bookkeeping
  // yields values the source lacks but no write uses); a tensor value is
  // seen there only element by element, so it is not asked to be.
  std::vector<const Expr *> TargetRoots;
  for (const Write &W : TargetLift.Effects.Writes)
    if (W.Buffer == X.Buffer)
      TargetRoots.insert(TargetRoots.end(), {W.Guard, W.Index, W.Value, W.Defined});
  std::vector<const Expr *> Used = postOrder(TargetRoots);
  std::unordered_set<const Expr *> InWrite(Used.begin(), Used.end());
  std::unordered_map<const Expr *, bool> Indexed;
  auto DependsOnIndex = [&](const Expr *E) {
    const Expr *Roots[] = {E};
    for (const Expr *N : postOrder(Roots)) {
      if (Indexed.count(N))
        continue;
      bool I = N->op() == Op::Symbol && N->name().size() > 1 &&
               N->name()[0] == 'e' &&
               std::isdigit((unsigned char)N->name()[1]);
      for (const Expr *O : N->operands())
        I |= Indexed.at(O);
      Indexed[N] = I;
    }
    return Indexed.at(E);
  };

  std::unordered_map<const Operation *, const ttir::OpRef *> Departing;
  for (const ttir::OpTrace &T : TargetLift.Trace) {
    const Operation *O = Flow.at(T.Ref.Pos);
    if (!O || !Relevant.count(O) || Departing.count(O))
      continue;
    const std::unordered_set<const Expr *> *Expected = &Anywhere;
    if (T.Ref.Source.known())
      if (auto It = AtPlace.find(Key(T.Ref)); It != AtPlace.end())
        Expected = &It->second;
    for (const Expr *E : T.Results) {
      // A constant is evidence only from arith.constant: other ops yield
      // constants by folding, and one constant serves many values.
      if (E->isConst() && T.Ref.Op != "arith.constant")
        continue;
      // A float constant is data (a changed one folds into what uses it).
      bool Data = T.Ref.Op == "arith.constant" && E->type().isFloat();
      if (!InWrite.count(E) && !DependsOnIndex(E) && !Data)
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

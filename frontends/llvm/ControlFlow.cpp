// Control flow by path merging. Blocks are lifted in reverse post-order,
// each under its path condition; a phi selects among its incoming edges;
// a loop is unrolled where it is met, all its blocks once per iteration.
//
// A block's path condition is the disjunction of its incoming edges',
// except that a block which postdominates its immediate dominator within
// one iteration of their loop (a join) runs exactly when the dominator
// does and takes its condition: conditions then stay as small as the
// branches that really guard code.
#include "frontends/llvm/FunctionLifter.h"

#include "ir/Errors.h"

#include <algorithm>

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

/// The blocks of one loop body (or of the function outside every loop)
/// as a DAG: an inner loop is one node, and the edges that leave the body
/// (back edges, exits, returns) go to a sink. Postdominance in that DAG is
/// "runs whenever that one runs, in the same iteration".
struct FunctionLifter::Region {
  llvm::DenseMap<const llvm::BasicBlock *, unsigned> Node;
  std::vector<llvm::BitVector> PostDominators;

  bool postDominates(const llvm::BasicBlock *B,
                     const llvm::BasicBlock *D) const {
    auto IB = Node.find(B), ID = Node.find(D);
    return IB != Node.end() && ID != Node.end() &&
           PostDominators[ID->second].test(IB->second);
  }
};

// Here, where Region is complete.
FunctionLifter::FunctionLifter(Context &C, ptx::ThreadModel &M,
                               const llvm::Function &F,
                               const ModuleFacts &Facts,
                               const LlvmLiftOptions &O, LlvmLift &Out)
    : C(C), M(M), F(F), Facts(Facts), O(O), Out(Out) {}

FunctionLifter::~FunctionLifter() = default;

void FunctionLifter::run() {
  auto &Mutable = const_cast<llvm::Function &>(F);
  Dom.recalculate(Mutable);
  Loops.analyze(Dom);
  for (const llvm::BasicBlock *B :
       llvm::ReversePostOrderTraversal<const llvm::Function *>(&F)) {
    OrderIndex[B] = Order.size();
    Order.push_back(B);
  }
  checkReducible();
  liftRegion(nullptr);
}

void FunctionLifter::checkReducible() {
  for (const llvm::BasicBlock *B : Order)
    for (const llvm::BasicBlock *S : llvm::successors(B)) {
      if (OrderIndex[S] > OrderIndex[B])
        continue;
      const llvm::Loop *L = Loops.getLoopFor(S);
      if (!L || L->getHeader() != S || !L->contains(B)) {
        Current = B->getTerminator();
        unsupported("irreducible control flow");
      }
    }
}

const llvm::Loop *FunctionLifter::childOf(const llvm::Loop *Parent,
                                          const llvm::BasicBlock *B) const {
  const llvm::Loop *X = Loops.getLoopFor(B);
  if (X == Parent)
    return nullptr;
  while (X && X->getParentLoop() != Parent)
    X = X->getParentLoop();
  return X;
}

FunctionLifter::Region &FunctionLifter::region(const llvm::Loop *L) {
  std::unique_ptr<Region> &Slot = Regions[L];
  if (Slot)
    return *Slot;
  Slot = std::make_unique<Region>();
  Region &R = *Slot;
  auto Rep = [&](const llvm::BasicBlock *B) {
    const llvm::Loop *Child = childOf(L, B);
    return Child ? Child->getHeader() : B;
  };
  std::vector<const llvm::BasicBlock *> Body;
  for (const llvm::BasicBlock *B : Order)
    if (!L || L->contains(B)) {
      Body.push_back(B);
      R.Node.try_emplace(Rep(B), unsigned(R.Node.size()));
    }
  unsigned Sink = R.Node.size();
  std::vector<llvm::SmallVector<unsigned, 4>> Succ(Sink);
  std::vector<bool> Dead(Sink, false);
  for (const llvm::BasicBlock *B : Body) {
    unsigned N = R.Node[Rep(B)];
    if (llvm::isa<llvm::UnreachableInst>(B->getTerminator())) {
      Dead[N] = Rep(B) == B; // a path into it is undefined anyway
      continue;
    }
    if (llvm::succ_empty(B))
      Succ[N].push_back(Sink);
    for (const llvm::BasicBlock *S : llvm::successors(B)) {
      if (L && (!L->contains(S) || S == L->getHeader())) {
        Succ[N].push_back(Sink);
        continue;
      }
      unsigned To = R.Node[Rep(S)];
      if (To != N)
        Succ[N].push_back(To);
    }
  }
  // Nodes are numbered in reverse post-order: successors come later.
  R.PostDominators.assign(Sink + 1, llvm::BitVector(Sink + 1));
  R.PostDominators[Sink].set(Sink);
  for (unsigned N = Sink; N-- > 0;) {
    llvm::BitVector &PD = R.PostDominators[N];
    PD.set();
    if (!Dead[N] && Succ[N].empty())
      PD.reset();
    for (unsigned S : Succ[N])
      PD &= R.PostDominators[S];
    PD.set(N);
  }
  return R;
}

void FunctionLifter::liftRegion(const llvm::Loop *L) {
  for (const llvm::BasicBlock *B : Order) {
    if (L && !L->contains(B))
      continue;
    const llvm::Loop *Child = childOf(L, B);
    if (!Child)
      liftBlock(*B);
    else if (Child->getHeader() == B)
      liftLoop(*Child);
  }
}

std::string FunctionLifter::loopName(const llvm::Loop &L) const {
  const llvm::BasicBlock *Latch = L.getLoopLatch();
  const llvm::Instruction &Branch =
      *(Latch ? Latch : L.getHeader())->getTerminator();
  SourceLocation S = sourceLocation(Branch);
  if (!S.known())
    S = llirLocation(Branch);
  return S.File + ":" + std::to_string(S.Line);
}

void FunctionLifter::liftLoop(const llvm::Loop &L) {
  const llvm::BasicBlock *Header = L.getHeader();
  Active.push_back({&L, {}, {}, {}});
  // Values used after the loop, other than through an exit edge's phi,
  // take their latest execution's value.
  for (const llvm::BasicBlock *B : L.blocks())
    for (const llvm::Instruction &I : *B)
      for (const llvm::Use &U : I.uses()) {
        auto *User = llvm::cast<llvm::Instruction>(U.getUser());
        auto *Phi = llvm::dyn_cast<llvm::PHINode>(User);
        if (Phi && L.contains(Phi->getIncomingBlock(U)))
          continue;
        if (!L.contains(User->getParent()))
          Active.back().LiveOut.insert(&I);
      }
  std::vector<EdgeIn> Entry = std::move(Incoming[Header]);
  Incoming.erase(Header);
  const Expr *Previous = nullptr;
  bool Folds = true;
  for (uint64_t Iteration = 0;; ++Iteration) {
    const Expr *Runs = anyOf(Entry);
    if (Runs->isFalse())
      break;
    if (!Iteration)
      LoopEntry[&L] = Runs;
    // The back edge folds when the header runs again exactly when it ran.
    if (Previous && Runs != Previous)
      Folds = false;
    if (!Folds && Iteration >= O.LoopBound) {
      M.assume(C.notOf(Runs));
      M.bound("loop at " + loopName(L) + ": at most " +
              std::to_string(Iteration) + " iterations");
      break;
    }
    if (Folds && Iteration >= O.MaxUnroll) {
      Current = Header->getTerminator();
      unsupported("loop at " + loopName(L) + " runs more than " +
                  std::to_string(O.MaxUnroll) + " iterations");
    }
    Incoming[Header] = std::move(Entry);
    liftRegion(&L);
    Entry = std::move(Active.back().BackEdges);
    Active.back().BackEdges.clear();
    Previous = Runs;
  }
  for (auto &[I, Latest] : Active.back().Latest)
    Values[I] = Latest;
  Active.pop_back();
}

void FunctionLifter::liftBlock(const llvm::BasicBlock &B) {
  std::vector<EdgeIn> In;
  auto It = Incoming.find(&B);
  if (It != Incoming.end()) {
    In = std::move(It->second);
    Incoming.erase(It);
  }
  const Expr *P = pathOf(B, In);
  BlockPath[&B] = P;
  if (P->isFalse())
    return; // no path reaches it: nothing runs, no edge leaves it
  Path = P;
  M.setPathCondition(P->isTrue() ? nullptr : P);
  unsigned K = 0;
  for (const llvm::PHINode &Phi : B.phis()) {
    withSites(Phi, [&] { define(Phi, mergePhi(In, K, Phi.getType(), P)); });
    ++K;
  }
  for (const llvm::Instruction &I : B)
    if (!llvm::isa<llvm::PHINode>(I))
      withSites(I, [&] { liftInstruction(I); });
  M.setPathCondition(nullptr);
}

const Expr *FunctionLifter::anyOf(const std::vector<EdgeIn> &In) {
  const Expr *P = C.falseExpr();
  for (const EdgeIn &E : In)
    P = C.orOf(P, E.Cond);
  return P;
}

const Expr *FunctionLifter::pathOf(const llvm::BasicBlock &B,
                                   const std::vector<EdgeIn> &In) {
  if (&B == &F.getEntryBlock())
    return C.trueExpr();
  const llvm::Loop *L = Loops.getLoopFor(&B);
  if (L && L->getHeader() == &B)
    return anyOf(In);
  const llvm::BasicBlock *IDom = Dom.getNode(&B)->getIDom()->getBlock();
  const llvm::Loop *Child = childOf(L, IDom);
  const llvm::BasicBlock *D = Child ? Child->getHeader() : IDom;
  if (region(L).postDominates(&B, D)) {
    if (!Child) {
      auto It = BlockPath.find(IDom);
      if (It != BlockPath.end())
        return It->second;
    } else {
      auto It = LoopEntry.find(Child);
      if (It != LoopEntry.end())
        return It->second;
    }
  }
  return anyOf(In);
}

namespace {

/// Edge as it matters where Path holds: without the conjuncts it shares
/// with Path (all of Path's, or Edge unchanged).
const Expr *withinPath(Context &C, const Expr *Edge, const Expr *Path) {
  std::vector<const Expr *> Of = conjunctsOf(Edge), Known = conjunctsOf(Path);
  for (const Expr *K : Known)
    if (std::find(Of.begin(), Of.end(), K) == Of.end())
      return Edge;
  const Expr *R = C.trueExpr();
  for (const Expr *L : Of)
    if (std::find(Known.begin(), Known.end(), L) == Known.end())
      R = C.andOf(R, L);
  return R;
}

} // namespace

Lanes FunctionLifter::mergePhi(const std::vector<EdgeIn> &In, unsigned K,
                               llvm::Type *T, const Expr *BlockPath) {
  if (In.empty()) {
    Lanes L;
    for (Type LT : laneTypes(T))
      L.push_back(poison(LT));
    return L;
  }
  // Exactly one incoming edge holds when the block runs: the last is the
  // default of the select chain. The phi's value matters only where the
  // block runs, so each edge is asked only what tells it from the block's
  // own path (as the PTX lifter joins paths: two lowerings of one branch
  // then choose alike).
  Lanes R = In.back().Phis[K];
  for (size_t E = In.size() - 1; E-- > 0;) {
    const Expr *Cond = withinPath(C, In[E].Cond, BlockPath);
    for (unsigned L = 0; L < R.size(); ++L)
      R[L] = selectLane(Cond, In[E].Phis[K][L], R[L]);
  }
  return R;
}

void FunctionLifter::leave(const llvm::BasicBlock &From,
                           const llvm::BasicBlock &To, const Expr *Cond) {
  if (Cond->isFalse())
    return;
  EdgeIn E{&From, Cond, {}};
  for (const llvm::PHINode &Phi : To.phis())
    E.Phis.push_back(operand(Phi.getIncomingValueForBlock(&From)));
  for (auto It = Active.rbegin(); It != Active.rend(); ++It)
    if (It->L->getHeader() == &To) {
      It->BackEdges.push_back(std::move(E));
      return;
    }
  Incoming[&To].push_back(std::move(E));
}

void FunctionLifter::noteReturn(const Lanes &L) {
  // Exactly one `ret` runs: the first one met is the default of the chain.
  if (Out.ReturnValue.empty()) {
    for (const Lane &X : L) {
      Out.ReturnValue.push_back(X.V);
      Out.ReturnDefined.push_back(X.Def);
    }
    return;
  }
  for (size_t K = 0; K < L.size() && K < Out.ReturnValue.size(); ++K) {
    Out.ReturnValue[K] = C.select(Path, L[K].V, Out.ReturnValue[K]);
    Out.ReturnDefined[K] = C.select(Path, L[K].Def, Out.ReturnDefined[K]);
  }
}

void FunctionLifter::finishDeviceFunction() {
  Out.IsDeviceFunction = true;
  for (const llvm::Argument &A : F.args())
    Out.ParamExtension.push_back(A.hasZExtAttr()   ? 'z'
                                 : A.hasSExtAttr() ? 's'
                                                   : 0);
  llvm::Type *T = F.getReturnType();
  if (T->isVoidTy())
    return;
  const llvm::Instruction *Ret = nullptr;
  for (const llvm::BasicBlock &B : F)
    if (!Ret && llvm::isa<llvm::ReturnInst>(B.getTerminator()))
      Ret = B.getTerminator();
  const llvm::Instruction *Outer = Current;
  Current = Ret;
  std::vector<ir::Type> Types = laneTypes(T);
  std::vector<unsigned> Offsets = laneOffsets(T);
  // No `ret` on any path: every path is undefined, and what it returns
  // is poison.
  if (Out.ReturnValue.empty())
    for (ir::Type L : Types) {
      Out.ReturnValue.push_back(C.constant(L, 0));
      Out.ReturnDefined.push_back(C.falseExpr());
    }
  M.setPathCondition(nullptr);
  for (unsigned K = 0; K < Types.size(); ++K) {
    Out.ReturnLanes.push_back({Offsets[K], Types[K]});
    M.returnValue(K, Out.ReturnValue[K], Out.ReturnDefined[K], origin("ret"));
    Out.WriteLines.push_back(Ret ? Facts.Lines.lookup(Ret) : 0);
  }
  Current = Outer;
}

void FunctionLifter::liftTerminator(const llvm::Instruction &I) {
  const llvm::BasicBlock &B = *I.getParent();
  if (auto *Br = llvm::dyn_cast<llvm::BranchInst>(&I)) {
    if (Br->isUnconditional())
      return leave(B, *Br->getSuccessor(0), Path);
    Lane Cond = scalar(Br->getCondition());
    M.undefined(C.notOf(Cond.Def), "branch on poison", origin(spell(I)));
    leave(B, *Br->getSuccessor(0), C.andOf(Path, Cond.V));
    leave(B, *Br->getSuccessor(1), C.andOf(Path, C.notOf(Cond.V)));
    return;
  }
  if (auto *Sw = llvm::dyn_cast<llvm::SwitchInst>(&I)) {
    Lane X = scalar(Sw->getCondition());
    M.undefined(C.notOf(X.Def), "switch on poison", origin(spell(I)));
    const Expr *None = C.trueExpr();
    for (const auto &Case : Sw->cases()) {
      const Expr *Hit =
          C.eq(X.V, C.constant(X.V->type(),
                               Case.getCaseValue()->getValue().getZExtValue()));
      leave(B, *Case.getCaseSuccessor(), C.andOf(Path, Hit));
      None = C.andOf(None, C.notOf(Hit));
    }
    leave(B, *Sw->getDefaultDest(), C.andOf(Path, None));
    return;
  }
  if (auto *Ret = llvm::dyn_cast<llvm::ReturnInst>(&I)) {
    if (const llvm::Value *V = Ret->getReturnValue())
      noteReturn(operand(V));
    return;
  }
  if (llvm::isa<llvm::UnreachableInst>(I)) {
    M.undefined(C.trueExpr(), "unreachable executed", origin(spell(I)));
    return;
  }
  unsupported(std::string("unsupported instruction ") + I.getOpcodeName());
}

} // namespace stagecheck::llvmir

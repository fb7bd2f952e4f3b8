#include "ptx_lifter/ControlFlow.h"

#include "ir/Errors.h"

#include <algorithm>
#include <set>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

bool isBranch(const Instruction &I) {
  return I.Opcode == "bra" || I.Opcode == "bra.uni";
}

bool isReturn(const Instruction &I) {
  return I.Opcode == "ret" || I.Opcode == "exit" || I.Opcode == "ret.uni";
}

/// B is !A (the factory spells the negation of a comparison as its
/// complement, so ask it).
bool negates(Context &C, const Expr *A, const Expr *B) {
  return C.notOf(A) == B || C.notOf(B) == A;
}

} // namespace

PathMerger::PathMerger(Executor &X, const std::vector<Statement> &Body,
                       FlowOptions O)
    : X(X), C(X.model().context()), Body(Body), O(O),
      IsTarget(Body.size() + 1, false) {
  if (this->O.LoopBound == 0)
    this->O.LoopBound = 1;
  for (size_t K = 0; K < Body.size(); ++K) {
    if (!Body[K].isLabel())
      continue;
    if (!Labels.emplace(Body[K].Label, K).second)
      throw InputError({X.site().PtxFile, 0, 0},
                       "label " + Body[K].Label + " defined twice");
  }
  for (const Statement &S : Body)
    if (!S.isLabel() && isBranch(S.Inst))
      IsTarget[target(S.Inst)] = true;
  for (size_t K = 0; K < Body.size(); ++K)
    if (Body[K].isLabel())
      if (std::string Why = deadEndAt(K); !Why.empty())
        DeadEnds.emplace(K, std::move(Why));
}

/// A failed device assertion, as NVPTX lowers Triton's tt.assert: a block
/// that passes the message, file, line and function to __assertfail (mov
/// of their addresses, cvta, st.param) and traps, or exits (llc lowers the
/// `unreachable` after the call to `exit` unless told to trap; the call
/// does not return either way). The thread never goes on; the LLVM IR says
/// the same (an __assertfail call, then unreachable), and a path into it
/// is undefined. Any other instruction before the trap, or a trap without
/// the call, is not recognised here.
std::string PathMerger::deadEndAt(size_t K) const {
  bool Asserts = false;
  for (size_t J = K + 1; J < Body.size(); ++J) {
    if (Body[J].isLabel())
      return "";
    const Instruction &I = Body[J].Inst;
    if (I.Opcode == "trap" || I.Opcode == "exit")
      return Asserts && I.Predicate.empty()
                 ? "device assertion failed (__assertfail, then " + I.Opcode +
                       ")"
                 : "";
    if (!I.Predicate.empty())
      return "";
    std::string_view Op = I.Opcode;
    if (Op == "call" || Op == "call.uni") {
      if (I.Operands.empty() || !I.Operands[0].isName() ||
          I.Operands[0].Text != "__assertfail")
        return "";
      Asserts = true;
      continue;
    }
    bool Passing = Op.starts_with("mov.") || Op.starts_with("cvta.") ||
                   Op.starts_with("st.param.");
    if (!Passing)
      return "";
  }
  return "";
}

/// The dead end a path at Position goes into before anything else (an
/// unpredicated branch to one, or falling into one), if any.
std::optional<size_t> PathMerger::deadEndAhead(size_t Position) const {
  for (size_t K = Position; K < Body.size(); ++K) {
    if (Body[K].isLabel()) {
      if (DeadEnds.count(K))
        return K;
      if (IsTarget[K])
        return std::nullopt;
      continue;
    }
    const Instruction &I = Body[K].Inst;
    if (isBranch(I) && I.Predicate.empty() && DeadEnds.count(target(I)))
      return target(I);
    return std::nullopt;
  }
  return std::nullopt;
}

void PathMerger::endInDeadEnd(size_t K, const PathState &S) {
  const Instruction *Trap = nullptr;
  for (size_t J = K + 1; J < Body.size() && !Trap; ++J)
    if (!Body[J].isLabel() &&
        (Body[J].Inst.Opcode == "trap" || Body[J].Inst.Opcode == "exit"))
      Trap = &Body[J].Inst;
  X.undefinedAt(*Trap, S.Condition, DeadEnds.at(K));
}

size_t PathMerger::target(const Instruction &I) const {
  if (I.Operands.size() != 1 || I.Operands[0].K != Operand::Name)
    throw InputError(X.ptxLocation(I), I.Opcode + " takes one label");
  auto It = Labels.find(I.Operands[0].Text);
  if (It == Labels.end())
    throw InputError(X.ptxLocation(I),
                     "branch to unknown label " + I.Operands[0].Text);
  return It->second;
}

std::optional<PathState> PathMerger::run(PathState Initial) {
  if (!Initial.Condition)
    Initial.Condition = C.trueExpr();
  Pending[0].push_back({std::move(Initial), false});
  while (!Pending.empty()) {
    auto It = Pending.begin();
    size_t Position = It->first;
    std::vector<Arrival> Arrivals = std::move(It->second);
    Pending.erase(It);
    bool Entered = std::any_of(Arrivals.begin(), Arrivals.end(),
                               [](const Arrival &A) { return !A.BackEdge; });
    PathState S = merge(Arrivals);
    if (S.Condition->isFalse())
      continue;
    // Entering a loop from outside starts its count afresh.
    if (Entered && Position < Body.size() && IsTarget[Position])
      Loops[Position] = Loop{0, S.Condition, Loops[Position].Noted};
    runFrom(Position, std::move(S));
  }
  if (Finished.empty())
    return std::nullopt;
  std::vector<Arrival> Ends;
  for (PathState &S : Finished)
    Ends.push_back({std::move(S), false});
  return merge(Ends);
}

void PathMerger::runFrom(size_t Position, PathState S) {
  for (size_t K = Position; K < Body.size(); ++K) {
    const Statement &St = Body[K];
    if (St.isLabel()) {
      if (K != Position && IsTarget[K]) {
        Pending[K].push_back({std::move(S), false});
        return;
      }
      if (DeadEnds.count(K)) {
        endInDeadEnd(K, S);
        return;
      }
      continue;
    }
    const Instruction &I = St.Inst;
    if (isBranch(I)) {
      if (!branch(K, S))
        return;
      continue;
    }
    if (isReturn(I)) {
      if (!O.AllowReturn)
        throw UnsupportedError(X.ptxLocation(I), "unsupported instruction " +
                                                     I.Opcode +
                                                     " in inline asm");
      const Expr *P = Step(X, I, S).predicate();
      Finished.push_back(S.with(C, P));
      S = S.with(C, C.notOf(P));
      if (S.Condition->isFalse())
        return;
      continue;
    }
    if (++Steps > O.MaxSteps)
      throw UnsupportedError(X.ptxLocation(I), "the lift exceeds " +
                                                   std::to_string(O.MaxSteps) +
                                                   " instruction steps");
    X.execute(I, S);
  }
  Finished.push_back(std::move(S));
}

bool PathMerger::branch(size_t Position, PathState &S) {
  const Instruction &I = Body[Position].Inst;
  size_t Target = target(I);
  const Expr *P = Step(X, I, S).predicate();
  PathState Taken = S.with(C, P);
  // A way into a dead end is undefined, so the other way holds wherever the
  // thread is defined and goes on under the branch's own condition, as the
  // block after a failed assertion post-dominates it in the LLVM IR (a
  // barrier behind the assertion is then every thread's, as there).
  if (DeadEnds.count(Target)) {
    if (!Taken.Condition->isFalse())
      endInDeadEnd(Target, Taken);
    return !P->isTrue();
  }
  if (!P->isTrue() && !P->isFalse())
    if (std::optional<size_t> Dead = deadEndAhead(Position + 1)) {
      endInDeadEnd(*Dead, S.with(C, C.notOf(P)));
      send(Target, std::move(S), Position);
      return false;
    }
  if (!Taken.Condition->isFalse())
    send(Target, std::move(Taken), Position);
  if (P->isTrue())
    return false;
  S = S.with(C, C.notOf(P));
  return !S.Condition->isFalse();
}

void PathMerger::send(size_t Target, PathState S, size_t From) {
  if (Target > From)
    Pending[Target].push_back({std::move(S), false});
  else
    backEdge(Target, std::move(S), From);
}

void PathMerger::backEdge(size_t Target, PathState S, size_t From) {
  Loop &L = Loops[Target];
  const Instruction &I = Body[From].Inst;
  // The branch folded when the path goes on exactly as it entered.
  bool Folded = L.Entry && S.Condition == L.Entry;
  if (Folded && L.Taken >= O.MaxUnroll)
    throw UnsupportedError(X.ptxLocation(I), "loop runs more than " +
                                                 std::to_string(O.MaxUnroll) +
                                                 " iterations");
  if (!Folded && L.Taken + 1 >= O.LoopBound) {
    X.model().assume(C.notOf(S.Condition));
    Cut.push_back(S.Conjuncts);
    if (!L.Noted)
      X.model().bound("loop at " + X.ptxLocation(I).File + ":" +
                      std::to_string(I.Line) + ": at most " +
                      std::to_string(O.LoopBound) + " iterations");
    L.Noted = true;
    return;
  }
  ++L.Taken;
  Pending[Target].push_back({std::move(S), true});
}

const Expr *PathMerger::unionOf(std::vector<std::span<const Expr *const>> Lists,
                                size_t Depth) {
  for (auto L : Lists)
    if (L.size() == Depth)
      return C.trueExpr();
  // Group the paths by their next literal, in order of appearance.
  std::vector<const Expr *> Literals;
  std::vector<std::vector<std::span<const Expr *const>>> Groups;
  for (auto L : Lists) {
    auto It = std::find(Literals.begin(), Literals.end(), L[Depth]);
    if (It == Literals.end()) {
      Literals.push_back(L[Depth]);
      Groups.push_back({L});
    } else {
      Groups[size_t(It - Literals.begin())].push_back(L);
    }
  }
  std::vector<const Expr *> Terms;
  for (size_t G = 0; G < Groups.size(); ++G)
    Terms.push_back(unionOf(Groups[G], Depth + 1));
  if (Groups.size() == 2 && negates(C, Literals[0], Literals[1]) &&
      Terms[0]->isTrue() && Terms[1]->isTrue())
    return C.trueExpr();
  const Expr *R = C.falseExpr();
  for (size_t G = 0; G < Groups.size(); ++G)
    R = C.orOf(R, C.andOf(Literals[G], Terms[G]));
  return R;
}

const Expr *PathMerger::mergedValue(const std::vector<PathState *> &States,
                                    const std::vector<const Expr *> &Residuals,
                                    const std::string &Register) {
  std::vector<const Expr *> Values;
  for (PathState *S : States)
    Values.push_back(X.registerValue(*S, Register));
  const Expr *V = Values.back();
  for (size_t K = Values.size() - 1; K-- > 0;)
    V = C.select(Residuals[K], Values[K], V);
  return V;
}

PathState PathMerger::merge(std::vector<Arrival> &Arrivals) {
  std::vector<PathState *> States;
  for (Arrival &A : Arrivals)
    if (!A.State.Condition->isFalse())
      States.push_back(&A.State);
  if (States.empty()) {
    PathState Dead;
    Dead.Condition = C.falseExpr();
    return Dead;
  }
  if (States.size() == 1)
    return std::move(*States[0]);
  // The conjuncts every path shares, then what tells the paths apart.
  size_t Prefix = States[0]->Conjuncts.size();
  for (PathState *S : States) {
    size_t K = 0;
    while (K < Prefix && K < S->Conjuncts.size() &&
           S->Conjuncts[K] == States[0]->Conjuncts[K])
      ++K;
    Prefix = K;
  }
  std::vector<std::span<const Expr *const>> Lists;
  std::vector<const Expr *> Residuals;
  for (PathState *S : States) {
    std::span<const Expr *const> All(S->Conjuncts);
    Lists.push_back(All.subspan(Prefix));
    const Expr *R = C.trueExpr();
    for (const Expr *L : Lists.back())
      R = C.andOf(R, L);
    Residuals.push_back(R);
  }
  const Expr *Union = unionOf(Lists, 0);
  if (!Union->isTrue()) {
    // Paths cut at a loop bound are assumed not to happen: with them the
    // paths may cover everything their common part allows.
    std::vector<std::span<const Expr *const>> WithCut = Lists;
    const std::vector<const Expr *> &Common = States[0]->Conjuncts;
    for (const std::vector<const Expr *> &Cond : Cut)
      if (Cond.size() >= Prefix &&
          std::equal(Common.begin(), Common.begin() + Prefix, Cond.begin()))
        WithCut.push_back(std::span<const Expr *const>(Cond).subspan(Prefix));
    if (WithCut.size() > Lists.size() && unionOf(WithCut, 0)->isTrue())
      Union = C.trueExpr();
  }
  PathState R;
  R.Conjuncts.assign(States[0]->Conjuncts.begin(),
                     States[0]->Conjuncts.begin() + Prefix);
  R.Condition = C.trueExpr();
  for (const Expr *L : R.Conjuncts)
    R.Condition = C.andOf(R.Condition, L);
  R = R.with(C, Union);
  std::set<std::string> Names;
  for (PathState *S : States)
    for (const auto &[Name, Value] : S->Registers)
      Names.insert(Name);
  for (const std::string &Name : Names) {
    const Expr *First = nullptr;
    bool Same = true;
    for (PathState *S : States) {
      auto It = S->Registers.find(Name);
      const Expr *V = It == S->Registers.end() ? nullptr : It->second;
      if (S == States[0])
        First = V;
      else
        Same &= V == First;
    }
    R.Registers[Name] = Same ? First : mergedValue(States, Residuals, Name);
  }
  return R;
}

} // namespace stagecheck::ptx

//===- Lifter.cpp - The lifter's core: values, regions, control flow ------===//
#include "frontends/ttir/LifterImpl.h"

#include "ir/Value.h"

#include <algorithm>

using namespace stagecheck::ir;

namespace stagecheck::ttir {

const Expr *indexSymbol(Context &C, unsigned D) {
  static const char *Names[] = {"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"};
  if (D < 8)
    return C.symbol(Names[D], Type::i(32));
  return C.symbol("e" + std::to_string(D), Type::i(32));
}

const Expr *tripCountCase(Context &C, const LoopKey &K, uint64_t Trips) {
  Type I64 = Type::i(64);
  const Expr *L = C.sextOrTrunc(K.Lower, I64);
  const Expr *U = C.sextOrTrunc(K.Upper, I64);
  const Expr *S = C.sextOrTrunc(K.Step, I64);
  auto After = [&](uint64_t N) {
    return C.add(L, C.mul(C.intConst(I64, int64_t(N)), S));
  };
  if (Trips == 0)
    return C.icmp(ICmpPredicate::Sle, U, L);
  return C.andOf(C.icmp(ICmpPredicate::Slt, After(Trips - 1), U),
                 C.icmp(ICmpPredicate::Sle, U, After(Trips)));
}

Lifter::Lifter(Context &C, const Module &M, const LiftOptions &O)
    : C(C), M(M), Opt(O) {
  Guard = C.trueExpr();
}

//===----------------------------------------------------------------------===//
// Errors, origins, provenance
//===----------------------------------------------------------------------===//

SourceLocation Lifter::stagePos(FilePos P) const {
  return {M.Path, P.Line, P.Column};
}

Origin Lifter::origin(const Operation &O) const {
  return {O.Name, M.resolve(O.Location)};
}

void Lifter::unsupported(const Operation &O, const std::string &What) const {
  throw UnsupportedError(stagePos(O), What);
}

void Lifter::malformed(const Operation &O, const std::string &What) const {
  throw InputError(stagePos(O), O.Name + ": " + What);
}

void Lifter::expectOperands(const Operation &O, size_t Min, size_t Max) const {
  if (O.Operands.size() < Min || O.Operands.size() > Max)
    malformed(O, "expected " +
                     (Min == Max ? std::to_string(Min)
                                 : std::to_string(Min) + " to " +
                                       std::to_string(Max)) +
                     " operands, found " + std::to_string(O.Operands.size()));
}

void Lifter::recordProvenance(const Operation &O, const Expr *E) {
  if (!E || E->id() <= NodesBefore || R.Provenance.count(E))
    return;
  OpRef Ref{O.Name, O.Pos, M.resolve(O.Location)};
  std::vector<const Expr *> Stack{E};
  while (!Stack.empty()) {
    const Expr *N = Stack.back();
    Stack.pop_back();
    if (N->id() <= NodesBefore || !R.Provenance.emplace(N, Ref).second)
      continue;
    for (const Expr *Operand : N->operands())
      Stack.push_back(Operand);
  }
}

void Lifter::recordProvenance(const Operation &O, const std::vector<Val> &Vs) {
  for (const Val &V : Vs) {
    recordProvenance(O, V.E);
    recordProvenance(O, V.Defined);
    for (const Expr *I : V.IndexMap)
      recordProvenance(O, I);
  }
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

const Val &Lifter::get(const OperandRef &Ref) {
  auto &Frame = Frames.back();
  auto It = Frame.find(Ref.Name);
  if (It == Frame.end())
    throw InputError(stagePos(Ref.Pos), "use of undefined value %" + Ref.Name);
  if (Ref.Index >= It->second.size())
    throw InputError(stagePos(Ref.Pos), "%" + Ref.Name + " has no result #" +
                                            std::to_string(Ref.Index));
  return It->second[Ref.Index];
}

const Val &Lifter::get(const Operation &O, size_t I) {
  if (I >= O.Operands.size())
    malformed(O, "missing operand " + std::to_string(I));
  return get(O.Operands[I]);
}

void Lifter::bind(const std::string &Name, std::vector<Val> Vs) {
  Frames.back()[Name] = std::move(Vs);
}

void Lifter::define(const Operation &O, std::vector<Val> Vs) {
  if (Vs.size() != O.numResults())
    malformed(O, "defines " + std::to_string(O.numResults()) +
                     " results but produces " + std::to_string(Vs.size()));
  size_t Next = 0;
  for (const auto &[Name, Count] : O.Results) {
    std::vector<Val> Group(Vs.begin() + Next, Vs.begin() + Next + Count);
    Next += Count;
    bind(Name, std::move(Group));
  }
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type Lifter::scalarType(const MType &T, const Operation &O) const {
  const MType &S = T.scalar();
  switch (S.K) {
  case MType::Kind::Int:
    if (S.Bits == 0 || S.Bits > 64)
      unsupported(O, "unsupported element type " + S.Text + " in " + O.Name);
    return Type::i(S.Bits);
  case MType::Kind::Index:
    return Type::i(64);
  case MType::Kind::Ptr:
    return Type::i(64);
  case MType::Kind::Float:
    switch (S.FK) {
    case MType::FloatKind::F16:
      return Type::f16();
    case MType::FloatKind::BF16:
      return Type::bf16();
    case MType::FloatKind::F32:
      return Type::f32();
    case MType::FloatKind::F64:
      return Type::f64();
    default:
      unsupported(O, "unsupported element type " + S.Text + " in " + O.Name);
    }
  default:
    unsupported(O, "unsupported type " + T.Text + " in " + O.Name);
  }
}

TypePtr Lifter::resultType(const Operation &O, size_t I) const {
  if (I < O.ResultTypes.size())
    return O.ResultTypes[I];
  if (!O.Types.empty())
    return O.Types.back();
  malformed(O, "has no result type");
}

Val Lifter::tensorOf(TypePtr Ty, const Expr *E, const Expr *Defined) const {
  Val V;
  V.Ty = Ty;
  V.Shape = Ty->shape();
  V.E = E;
  V.Defined = Defined ? Defined : C.trueExpr();
  return V;
}

//===----------------------------------------------------------------------===//
// Index algebra
//===----------------------------------------------------------------------===//

uint32_t Lifter::deps(const Expr *E) {
  if (auto It = DepCache.find(E); It != DepCache.end())
    return It->second;
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots)) {
    if (DepCache.count(N))
      continue;
    uint32_t Mask = 0;
    if (N->op() == Op::Symbol && N->type() == Type::i(32) &&
        N->name().size() >= 2 && N->name()[0] == 'e' &&
        std::all_of(N->name().begin() + 1, N->name().end(), ::isdigit)) {
      unsigned D = unsigned(std::stoul(N->name().substr(1)));
      if (D < 32)
        Mask = 1u << D;
    }
    for (const Expr *Operand : N->operands())
      Mask |= DepCache.at(Operand);
    DepCache[N] = Mask;
  }
  return DepCache.at(E);
}

const Expr *
Lifter::subst(const Expr *E,
              const std::vector<std::pair<unsigned, const Expr *>> &Map) {
  uint32_t Wanted = 0;
  std::unordered_map<const Expr *, const Expr *> Done;
  for (const auto &[D, To] : Map) {
    Wanted |= 1u << D;
    Done[idx(D)] = To;
  }
  if (!(deps(E) & Wanted))
    return E;
  // Iterative post-order over the nodes that depend on a replaced symbol.
  std::vector<std::pair<const Expr *, bool>> Stack{{E, false}};
  while (!Stack.empty()) {
    auto [N, Expanded] = Stack.back();
    Stack.pop_back();
    if (Done.count(N))
      continue;
    if (!(deps(N) & Wanted)) {
      Done[N] = N;
      continue;
    }
    if (!Expanded) {
      Stack.push_back({N, true});
      for (const Expr *Operand : N->operands())
        if (!Done.count(Operand))
          Stack.push_back({Operand, false});
      continue;
    }
    std::vector<const Expr *> Ops;
    for (const Expr *Operand : N->operands())
      Ops.push_back(Done.at(Operand));
    const Expr *New;
    if (N->op() == Op::Read)
      New = C.read(N->name(), N->type(), Ops[0]);
    else
      New = C.make(N->op(), Ops, N->rawAttribute(), N->type(),
                   N->op() == Op::Call ? std::string_view(N->name())
                                       : std::string_view());
    Done[N] = New;
  }
  return Done.at(E);
}

Val Lifter::substVal(const Val &V,
                     const std::vector<std::pair<unsigned, const Expr *>> &Map) {
  Val Out = V;
  Out.E = subst(V.E, Map);
  Out.Defined = subst(V.Defined, Map);
  return Out;
}

const Expr *Lifter::linearIndex(const std::vector<int64_t> &Shape) {
  const Expr *L = C.intConst(Type::i(64), 0);
  for (size_t D = 0; D < Shape.size(); ++D) {
    L = C.mul(L, C.intConst(Type::i(64), Shape[D]));
    L = C.add(L, C.cast(Op::ZExt, idx(unsigned(D)), Type::i(64)));
  }
  return L;
}

const Expr *Lifter::inShape(const std::vector<int64_t> &Shape) {
  const Expr *In = C.trueExpr();
  for (size_t D = 0; D < Shape.size(); ++D)
    In = C.andOf(In, C.icmp(ICmpPredicate::Ult, idx(unsigned(D)),
                            C.intConst(Type::i(32), Shape[D])));
  return In;
}

std::vector<BoundVariable> Lifter::boundOf(const std::vector<int64_t> &Shape) {
  std::vector<BoundVariable> B;
  for (size_t D = 0; D < Shape.size(); ++D)
    B.push_back({idx(unsigned(D)), uint64_t(Shape[D])});
  return B;
}

Val Lifter::adapt(const Val &V, const std::vector<int64_t> &Shape,
                  const Operation &O) {
  if (V.Shape == Shape || V.K != Val::Kind::Tensor)
    return V;
  if (V.Shape.empty()) // a scalar used as a tensor: the same everywhere
    return V;
  if (V.Shape.size() != Shape.size())
    malformed(O, "operand of rank " + std::to_string(V.Shape.size()) +
                     " where rank " + std::to_string(Shape.size()) +
                     " is expected");
  Val Out = V;
  const Expr *Inside = C.trueExpr();
  for (size_t D = 0; D < Shape.size(); ++D)
    if (V.Shape[D] < Shape[D])
      Inside = C.andOf(Inside, C.icmp(ICmpPredicate::Ult, idx(unsigned(D)),
                                      C.intConst(Type::i(32), V.Shape[D])));
  Out.Defined = C.andOf(V.Defined, Inside);
  Out.Shape = Shape;
  return Out;
}

//===----------------------------------------------------------------------===//
// Canonical forms
//===----------------------------------------------------------------------===//

namespace {

/// A sum of constant multiples of atoms plus a constant, modulo 2^width.
struct LinearForm {
  std::map<unsigned, std::pair<const Expr *, uint64_t>> Terms; // by node id
  uint64_t Constant = 0;
  unsigned Size = 0; // nodes visited, to bound the work
};

void addScaled(LinearForm &Out, const Expr *E, uint64_t Scale, unsigned Width) {
  uint64_t Mask = Value::mask(Width);
  if (++Out.Size > 256) { // too large to be worth it: keep as an atom
    auto &T = Out.Terms[E->id()];
    T.first = E;
    T.second = (T.second + Scale) & Mask;
    return;
  }
  switch (E->op()) {
  case Op::Const:
    Out.Constant = (Out.Constant + Scale * E->constBits()) & Mask;
    return;
  case Op::Add:
    addScaled(Out, E->operand(0), Scale, Width);
    addScaled(Out, E->operand(1), Scale, Width);
    return;
  case Op::Sub:
    addScaled(Out, E->operand(0), Scale, Width);
    addScaled(Out, E->operand(1), (0 - Scale) & Mask, Width);
    return;
  case Op::Neg:
    addScaled(Out, E->operand(0), (0 - Scale) & Mask, Width);
    return;
  case Op::Mul:
    if (E->operand(0)->isConst())
      return addScaled(Out, E->operand(1), Scale * E->operand(0)->constBits(),
                       Width);
    if (E->operand(1)->isConst())
      return addScaled(Out, E->operand(0), Scale * E->operand(1)->constBits(),
                       Width);
    break;
  case Op::Shl:
    if (E->operand(1)->isConst() && E->operand(1)->constBits() < Width)
      return addScaled(Out, E->operand(0),
                       Scale << E->operand(1)->constBits(), Width);
    break;
  default:
    break;
  }
  auto &T = Out.Terms[E->id()];
  T.first = E;
  T.second = (T.second + Scale) & Mask;
}

} // namespace

const Expr *Lifter::linear(Op Kind, const Expr *A, const Expr *B) {
  Type T = A->type();
  if (!T.isInt() || T.bits() < 2 || B->type() != T ||
      (Kind != Op::Add && Kind != Op::Sub && Kind != Op::Mul))
    return C.binary(Kind, A, B);
  if (Kind == Op::Mul && !A->isConst() && !B->isConst())
    return C.binary(Kind, A, B); // a product of two unknowns is an atom
  unsigned W = T.bits();
  LinearForm F;
  if (Kind == Op::Mul) {
    const Expr *K = A->isConst() ? A : B, *X = A->isConst() ? B : A;
    addScaled(F, X, K->constBits(), W);
  } else {
    addScaled(F, A, 1, W);
    addScaled(F, B, Kind == Op::Add ? 1 : Value::mask(W), W);
  }
  const Expr *Sum = nullptr;
  for (const auto &[Id, Term] : F.Terms) {
    if (Term.second == 0)
      continue;
    const Expr *X = Term.second == 1
                        ? Term.first
                        : C.mul(Term.first, C.constant(T, Term.second));
    Sum = Sum ? C.add(Sum, X) : X;
  }
  const Expr *K = C.constant(T, F.Constant);
  return Sum ? C.add(Sum, K) : K;
}

const Expr *Lifter::selectOf(const Expr *Cond, const Expr *T, const Expr *F) {
  if (T->op() == Op::Select && T->operand(0) == Cond)
    T = T->operand(1);
  if (F->op() == Op::Select && F->operand(0) == Cond)
    F = F->operand(2);
  return C.select(Cond, T, F);
}

//===----------------------------------------------------------------------===//
// Conditions decided under the case's assumptions
//===----------------------------------------------------------------------===//

const Expr *Lifter::decide(const Expr *Cond) {
  if (!Opt.Oracle || Cond->isConst() || !Cond->type().isBool() || deps(Cond))
    return Cond;
  // Only integer conditions that share a symbol with the facts can be
  // decided by them.
  std::vector<const Expr *> Roots{Cond};
  std::set<const Expr *> Symbols;
  for (const Expr *N : postOrder(Roots)) {
    if (N->op() == Op::Read || N->op() == Op::Call || N->type().isFloat())
      return Cond;
    if (N->op() == Op::Symbol)
      Symbols.insert(N);
  }
  bool Shares = false;
  for (const Expr *N : postOrder(Opt.Facts))
    Shares |= N->op() == Op::Symbol && Symbols.count(N);
  if (!Shares)
    return Cond;
  std::optional<bool> Known = Opt.Oracle(Cond);
  return Known ? C.boolean(*Known) : Cond;
}

//===----------------------------------------------------------------------===//
// Regions and ops
//===----------------------------------------------------------------------===//

static bool isTerminator(const std::string &Name) {
  return Name == "scf.yield" || Name == "scf.condition" ||
         Name == "tt.reduce.return" || Name == "tt.scan.return" ||
         Name == "tt.return";
}

Lifter::Terminated Lifter::liftBlock(const Block &B,
                                     const std::vector<Val> &Args) {
  if (Args.size() != B.Args.size())
    throw InputError(stagePos(B.Ops.empty() ? FilePos{} : B.Ops.front().Pos),
                     "block expects " + std::to_string(B.Args.size()) +
                         " arguments, given " + std::to_string(Args.size()));
  for (size_t I = 0; I < Args.size(); ++I)
    bind(B.Args[I].Name, {Args[I]});
  for (const Operation &O : B.Ops) {
    if (isTerminator(O.Name)) {
      Terminated T{O.Name, {}};
      for (size_t I = 0; I < O.Operands.size(); ++I)
        T.Values.push_back(get(O, I));
      return T;
    }
    liftOp(O);
  }
  return {"", {}};
}

std::vector<const Expr *> Lifter::inputsOf(const Operation &O) {
  std::vector<const Expr *> In;
  auto &Frame = Frames.back();
  for (const OperandRef &Ref : O.Operands) {
    auto It = Frame.find(Ref.Name);
    if (It == Frame.end() || Ref.Index >= It->second.size())
      continue;
    const Val &V = It->second[Ref.Index];
    if (V.K == Val::Kind::Tensor && V.E)
      In.insert(In.end(), {V.E, V.Defined});
  }
  return In;
}

void Lifter::liftOp(const Operation &O) {
  unsigned Saved = NodesBefore;
  NodesBefore = unsigned(C.numNodes());
  CurrentInputs = inputsOf(O);
  // Lowering: values leave the thread that computed them here.
  std::vector<std::pair<std::string, std::vector<Val>>> Unpinned;
  const Expr *SavedGuard = Guard;
  if (LaneSym && crossesThreads(O.Name)) {
    pinOperands(O, Unpinned);
    Guard = pinnedForOp(Guard, O);
  }
  auto Restore = [&] {
    for (auto &[Name, Vs] : Unpinned)
      Frames.back()[Name] = std::move(Vs);
    Unpinned.clear();
    Guard = SavedGuard;
  };
  try {
    if (O.Name == "scf.for")
      liftFor(O);
    else if (O.Name == "scf.if")
      liftIf(O);
    else if (O.Name == "scf.while")
      liftWhile(O);
    else if (O.Name == "tt.call")
      liftCall(O);
    else if (O.Name == "gpu.barrier" || O.Name == "ttng.fence_async_shared" ||
             O.Name == "ttg.local_dealloc" || O.Name == "tt.print" ||
             O.Name == "ttg.barrier") {
      // No effect on memory contents this model sees: barriers order
      // accesses the model already performs in program order; tt.print
      // writes only to the host's console.
    } else if (!liftArith(O) && !liftTensorOp(O) && !liftMemoryOp(O))
      unsupported(O, "unsupported op " + O.Name);
    Restore();
    if (O.numResults() > 0) {
      std::vector<Val> Results;
      for (const auto &[Name, Count] : O.Results) {
        const auto &Group = Frames.back().at(Name);
        Results.insert(Results.end(), Group.begin(), Group.end());
      }
      recordProvenance(O, Results);
      OpTrace T{{O.Name, O.Pos, M.resolve(O.Location)}, {}, inputsOf(O)};
      for (const Val &V : Results)
        if (V.K == Val::Kind::Tensor)
          T.Results.insert(T.Results.end(), {V.E, V.Defined});
      R.Trace.push_back(std::move(T));
    }
  } catch (const IRError &E) {
    // An ill-typed construction is the input's fault: say where.
    NodesBefore = Saved;
    throw InputError(stagePos(O), O.Name + ": " + E.what());
  }
  NodesBefore = Saved;
}

void Lifter::addUndefined(const Expr *Cond, const std::vector<int64_t> &Shape,
                          const std::string &Reason, const Operation &O) {
  const Expr *When = C.andOf(Guard, Cond);
  if (LaneSym)
    When = pinnedForOp(When, O);
  if (When->isFalse())
    return;
  recordProvenance(O, When);
  R.Effects.Undefined.push_back({When, Reason, origin(O), boundOf(Shape)});
  R.Trace.push_back({{O.Name, O.Pos, M.resolve(O.Location)}, {When}, {}});
}

void Lifter::checkReach(const Val &P, const Expr *When,
                        const std::vector<int64_t> &Shape,
                        const std::string &What, const Operation &O) {
  auto It = Opt.Reach.find(P.Buffer);
  if (!P.IsPtr || It == Opt.Reach.end())
    return;
  auto [Low, High] = It->second;
  Type I64 = Type::i(64);
  const Expr *Index = C.sextOrTrunc(P.E, I64);
  const Expr *Outside =
      C.orOf(C.icmp(ICmpPredicate::Slt, Index, C.intConst(I64, Low)),
             C.icmp(ICmpPredicate::Sge, Index, C.intConst(I64, High)));
  addUndefined(C.andOf(When, Outside), Shape,
               What + " outside the " + std::to_string(High - Low) +
                   " elements " + P.Buffer + " may reach",
               O);
}

Val Lifter::select(const Expr *Cond, const Val &T, const Val &F, const Operation &O) {
  if (Cond->isTrue())
    return T;
  if (Cond->isFalse())
    return F;
  if (T.K != F.K)
    malformed(O, "branches yield values of different kinds");
  if (T.K == Val::Kind::Token)
    return T;
  Val Out = T;
  if (T.K == Val::Kind::MemDesc) {
    if (T.Alloc != F.Alloc || T.IndexMap.size() != F.IndexMap.size())
      unsupported(O, "a condition that selects between shared-memory "
                     "allocations is not supported");
    for (size_t I = 0; I < T.IndexMap.size(); ++I)
      Out.IndexMap[I] = C.select(Cond, T.IndexMap[I], F.IndexMap[I]);
    return Out;
  }
  if (T.IsPtr != F.IsPtr || (T.IsPtr && (T.Buffer != F.Buffer ||
                                         T.ViewElem != F.ViewElem)))
    unsupported(O, "a condition that selects between pointers into "
                   "different buffers is not supported");
  Val FA = adapt(F, T.Shape, O);
  Out.E = selectOf(Cond, T.E, FA.E);
  Out.Defined = selectOf(Cond, T.Defined, FA.Defined);
  return Out;
}

//===----------------------------------------------------------------------===//
// scf.for
//===----------------------------------------------------------------------===//

static const Expr *constantValue(const Val &V) {
  return V.E && V.E->isConst() && V.Shape.empty() ? V.E : nullptr;
}

void Lifter::liftFor(const Operation &O) {
  if (O.Operands.size() < 3 || O.Regions.size() != 1)
    malformed(O, "expects bounds, a step and one region");
  const Val Lower = get(O, 0), Upper = get(O, 1), Step = get(O, 2);
  for (const Val *B : {&Lower, &Upper, &Step})
    if (B->K != Val::Kind::Tensor || !B->Shape.empty() || B->IsPtr ||
        !B->E->type().isInt())
      malformed(O, "bounds and step must be integers");
  std::vector<Val> Carried;
  for (size_t I = 3; I < O.Operands.size(); ++I)
    Carried.push_back(get(O, I));
  Type IVType = Lower.E->type();
  if (Upper.E->type() != IVType || Step.E->type() != IVType)
    malformed(O, "bounds and step have different types");

  const Expr *L = constantValue(Lower), *U = constantValue(Upper),
             *S = constantValue(Step);
  if (L && U && S) {
    Value LV = Value::ofBits(IVType, L->constBits()),
          UV = Value::ofBits(IVType, U->constBits()),
          SV = Value::ofBits(IVType, S->constBits());
    if (SV.asSigned() <= 0)
      unsupported(O, "scf.for with a step that is not positive");
    __int128 Span = __int128(UV.asSigned()) - LV.asSigned();
    uint64_t Trips =
        Span <= 0 ? 0 : uint64_t((Span + SV.asSigned() - 1) / SV.asSigned());
    if (Trips <= Opt.MaxUnroll)
      return liftForUnrolled(O, Lower, Step, Trips, std::move(Carried));
    if (Opt.Loops == LiftOptions::LoopMode::Summarize)
      return liftForSummarized(O, Lower, Upper, Step, std::move(Carried));
    unsupported(O, "scf.for with " + std::to_string(Trips) +
                       " iterations (more than the unroll limit " +
                       std::to_string(Opt.MaxUnroll) + ")");
  }
  if (Opt.Loops == LiftOptions::LoopMode::Summarize)
    return liftForSummarized(O, Lower, Upper, Step, std::move(Carried));

  LoopKey Key{Lower.E, Upper.E, Step.E};
  auto It = Opt.TripCounts.find(Key);
  if (It == Opt.TripCounts.end()) {
    if (std::none_of(R.UnassignedLoops.begin(), R.UnassignedLoops.end(),
                     [&](const auto &P) { return P.first == Key; }))
      R.UnassignedLoops.push_back({Key, origin(O)});
    define(O, Carried); // as if it ran no iteration; the caller re-lifts
    return;
  }
  uint64_t Trips = It->second;
  const Expr *Case = tripCountCase(C, Key, Trips);
  if (std::find(R.Assumptions.begin(), R.Assumptions.end(), Case) ==
      R.Assumptions.end()) {
    R.Assumptions.push_back(Case);
    SourceLocation Where = M.resolve(O.Location);
    R.Bounds.push_back("scf.for at " +
                       (Where.known() ? Where.str() : stagePos(O).str()) +
                       ": trip count " + std::to_string(Trips));
  }
  liftForUnrolled(O, Lower, Step, Trips, std::move(Carried));
}

void Lifter::liftForUnrolled(const Operation &O, const Val &Lower, const Val &Step,
                             uint64_t Trips, std::vector<Val> Carried) {
  const Block &Body = O.Regions[0].Blocks.front();
  Type IVType = Lower.E->type();
  for (uint64_t J = 0; J < Trips; ++J) {
    Val IV = Lower;
    IV.Ty = Body.Args.front().Ty;
    IV.E = linear(Op::Add, Lower.E,
                  linear(Op::Mul, C.intConst(IVType, int64_t(J)), Step.E));
    std::vector<Val> Args{IV};
    Args.insert(Args.end(), Carried.begin(), Carried.end());
    Terminated T = liftBlock(Body, Args);
    if (T.Values.size() != Carried.size())
      malformed(O, "the body yields " + std::to_string(T.Values.size()) +
                       " values for " + std::to_string(Carried.size()) +
                       " iter_args");
    Carried = std::move(T.Values);
  }
  define(O, std::move(Carried));
}

void Lifter::liftForSummarized(const Operation &O, const Val &Lower, const Val &Upper,
                               const Val &Step, std::vector<Val> Carried) {
  std::string Name = "loop" + std::to_string(SummaryCount++);
  Type IVType = Lower.E->type(), I64 = Type::i(64);
  const Expr *It = C.symbol(Name + ".it", Type::i(32));
  const Expr *IVExpr =
      linear(Op::Add, Lower.E, C.mul(C.zextOrTrunc(It, IVType), Step.E));
  // Iteration `it` runs when lb + it * step < ub (exact arithmetic).
  const Expr *Runs = C.andOf(
      C.icmp(ICmpPredicate::Sgt, C.sextOrTrunc(Step.E, I64), C.intConst(I64, 0)),
      C.icmp(ICmpPredicate::Slt,
             C.add(C.sextOrTrunc(Lower.E, I64),
                   C.mul(C.cast(Op::ZExt, It, I64),
                         C.sextOrTrunc(Step.E, I64))),
             C.sextOrTrunc(Upper.E, I64)));

  LoopSummary S;
  S.Key = {Lower.E, Upper.E, Step.E};
  S.Name = Name;
  S.From = origin(O);
  std::vector<Val> Headers, Outs;
  for (size_t I = 0; I < Carried.size(); ++I) {
    const Val &V = Carried[I];
    if (V.K != Val::Kind::Tensor)
      throw SummaryAbort{"the loop carries a shared-memory descriptor or "
                         "an async token"};
    std::string Arg = Name + ".arg" + std::to_string(I);
    std::string Out = Name + ".out" + std::to_string(I);
    Type T = V.E->type();
    auto Make = [&](const std::string &N) {
      Val H = V;
      H.E = V.Shape.empty() ? C.symbol(N, T) : C.read(N, T, linearIndex(V.Shape));
      H.Defined = C.trueExpr();
      return H;
    };
    Headers.push_back(Make(Arg));
    Outs.push_back(Make(Out));
    S.Inits.push_back(V.E);
    S.Inits.push_back(V.Defined);
    S.Buffers.push_back(V.IsPtr ? V.Buffer : "");
  }
  const Expr *SavedGuard = Guard;
  Guard = C.andOf(Guard, Runs);
  LoopBound.push_back({It, uint64_t(1) << 31});
  Val IV = Lower;
  IV.Ty = O.Regions[0].Blocks.front().Args.front().Ty;
  IV.E = IVExpr;
  std::vector<Val> Args{IV};
  Args.insert(Args.end(), Headers.begin(), Headers.end());
  Terminated T = liftBlock(O.Regions[0].Blocks.front(), Args);
  LoopBound.pop_back();
  Guard = SavedGuard;
  if (T.Values.size() != Carried.size())
    malformed(O, "the body yields " + std::to_string(T.Values.size()) +
                     " values for " + std::to_string(Carried.size()) +
                     " iter_args");
  for (size_t I = 0; I < Carried.size(); ++I) {
    const Val &Y = T.Values[I];
    if (Y.K != Val::Kind::Tensor || Y.IsPtr != Carried[I].IsPtr ||
        Y.Buffer != Carried[I].Buffer || Y.Shape != Carried[I].Shape)
      throw SummaryAbort{"a carried value changes its buffer or shape"};
    if (!Y.Defined->isTrue() || !Carried[I].Defined->isTrue())
      throw SummaryAbort{"a carried value may be poison"};
    S.Yields.push_back(Y.E);
    S.Yields.push_back(Y.Defined);
  }
  R.Summaries.push_back(std::move(S));
  define(O, std::move(Outs));
}

//===----------------------------------------------------------------------===//
// scf.if, scf.while, tt.call
//===----------------------------------------------------------------------===//

void Lifter::liftIf(const Operation &O) {
  expectOperands(O, 1, 1);
  const Val &CondV = get(O, 0);
  if (!CondV.Shape.empty() || !CondV.E->type().isBool())
    malformed(O, "the condition must be an i1 scalar");
  addUndefined(C.notOf(CondV.Defined), {}, "scf.if on a poison condition", O);
  const Expr *Cond = decide(CondV.E);
  auto Branch = [&](size_t I) -> std::vector<Val> {
    if (I >= O.Regions.size() || O.Regions[I].Blocks.empty())
      return {};
    return liftBlock(O.Regions[I].Blocks.front(), {}).Values;
  };
  if (Cond->isConst()) {
    std::vector<Val> Taken = Branch(Cond->isTrue() ? 0 : 1);
    define(O, std::move(Taken));
    return;
  }
  const Expr *Saved = Guard;
  size_t GroupsBefore = Groups.size(), UncommittedBefore = Uncommitted.size();
  Guard = C.andOf(Saved, Cond);
  std::vector<Val> Then = Branch(0);
  size_t GroupsThen = Groups.size(), UncommittedThen = Uncommitted.size();
  Guard = C.andOf(Saved, C.notOf(Cond));
  std::vector<Val> Else = Branch(1);
  Guard = Saved;
  if (GroupsThen != Groups.size() || UncommittedThen != Uncommitted.size() ||
      (GroupsThen != GroupsBefore && O.Regions.size() < 2) ||
      (UncommittedThen != UncommittedBefore && O.Regions.size() < 2))
    unsupported(O, "async copies issued under a condition are not supported");
  if (Then.size() != Else.size())
    malformed(O, "branches yield different numbers of values");
  std::vector<Val> Results;
  for (size_t I = 0; I < Then.size(); ++I)
    Results.push_back(select(Cond, Then[I], Else[I], O));
  define(O, std::move(Results));
}

void Lifter::liftWhile(const Operation &O) {
  if (O.Regions.size() != 2)
    malformed(O, "expects a before and an after region");
  std::vector<Val> State;
  for (size_t I = 0; I < O.Operands.size(); ++I)
    State.push_back(get(O, I));
  const Expr *Saved = Guard;
  const Expr *Alive = C.trueExpr();
  std::vector<Val> Results;
  bool Have = false;
  for (unsigned J = 0;; ++J) {
    Guard = C.andOf(Saved, Alive);
    Terminated Before = liftBlock(O.Regions[0].Blocks.front(), State);
    if (Before.Op != "scf.condition" || Before.Values.empty())
      malformed(O, "the before region must end in scf.condition");
    const Val &CondV = Before.Values.front();
    const Expr *Cond = decide(CondV.E);
    std::vector<Val> Forwarded(Before.Values.begin() + 1, Before.Values.end());
    const Expr *Exits = C.andOf(Alive, C.notOf(Cond));
    if (!Have) {
      Results = Forwarded;
      Have = true;
    } else if (!Exits->isFalse()) {
      for (size_t I = 0; I < Results.size(); ++I)
        Results[I] = select(Exits, Forwarded[I], Results[I], O);
    }
    Alive = C.andOf(Alive, Cond);
    if (Alive->isFalse())
      break;
    if (J == Opt.WhileBound) {
      const Expr *Ends = C.notOf(Alive);
      R.Assumptions.push_back(Ends);
      SourceLocation Where = M.resolve(O.Location);
      R.Bounds.push_back("scf.while at " +
                         (Where.known() ? Where.str() : stagePos(O).str()) +
                         ": at most " + std::to_string(Opt.WhileBound) +
                         " iterations");
      break;
    }
    Guard = C.andOf(Saved, Alive);
    Terminated After = liftBlock(O.Regions[1].Blocks.front(), Forwarded);
    if (After.Values.size() != State.size())
      malformed(O, "the after region yields the wrong number of values");
    for (size_t I = 0; I < State.size(); ++I)
      State[I] = select(Alive, After.Values[I], State[I], O);
  }
  Guard = Saved;
  define(O, std::move(Results));
}

void Lifter::liftCall(const Operation &O) {
  const Attr *Callee = O.attr("callee");
  if (!Callee)
    malformed(O, "has no callee");
  const Function *F = M.function(Callee->Text);
  if (!F)
    malformed(O, "calls an undefined function @" + Callee->Text);
  if (F->Body.Blocks.empty())
    unsupported(O, "call of the external function @" + Callee->Text);
  if (Frames.size() > 32)
    unsupported(O, "calls nested more than 32 deep (recursion?)");
  std::vector<Val> Args;
  for (size_t I = 0; I < O.Operands.size(); ++I)
    Args.push_back(get(O, I));
  Frames.emplace_back();
  Terminated T;
  try {
    if (Args.size() != F->Args.size())
      malformed(O, "passes " + std::to_string(Args.size()) + " arguments to @" +
                       F->Name + ", which takes " +
                       std::to_string(F->Args.size()));
    for (size_t I = 0; I < Args.size(); ++I)
      bind(F->Args[I].Name, {Args[I]});
    T = liftBlock(F->Body.Blocks.front(), {});
  } catch (...) {
    Frames.pop_back();
    throw;
  }
  Frames.pop_back();
  define(O, std::move(T.Values));
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

LiftResult Lifter::run() {
  const Function *K = M.kernel();
  if (!K)
    throw InputError({M.Path, 0, 0}, "no public kernel function");
  if (K->Body.Blocks.empty())
    throw InputError(stagePos(K->Pos), "the kernel has no body");
  R.Interface.Kernel = K->Name;
  if (Opt.Lowering)
    initThreadSymbols();
  Frames.emplace_back();
  Operation Signature; // for messages about the parameters
  Signature.Name = "tt.func";
  Signature.Pos = K->Pos;
  for (size_t I = 0; I < K->Args.size(); ++I) {
    const BlockArg &A = K->Args[I];
    std::string Name = paramName(unsigned(I));
    Val V;
    V.Ty = A.Ty;
    V.Defined = C.trueExpr();
    KernelParam P;
    P.Name = Name;
    if (A.Ty->isPtr()) {
      Type Elem = scalarType(*A.Ty->Elem, Signature);
      if (A.Ty->Elem->isPtr())
        unsupported(Signature, "pointer-to-pointer parameters are not supported");
      V.IsPtr = true;
      V.Buffer = Name;
      V.BufferElem = V.ViewElem = Elem;
      V.E = C.intConst(Type::i(64), 0);
      P.IsPointer = true;
      P.Element = Elem;
      R.Effects.Buffers.push_back({Name, Elem, AddressSpace::Global, std::nullopt});
    } else if (A.Ty->K == MType::Kind::Int || A.Ty->K == MType::Kind::Float) {
      Type T = scalarType(*A.Ty, Signature);
      V.E = C.symbol(Name, T, SymbolRole::Param);
      P.Element = T;
    } else
      unsupported(Signature, "unsupported parameter type " + A.Ty->Text);
    R.Interface.Params.push_back(P);
    bind(A.Name, {V});
  }
  try {
    liftBlock(K->Body.Blocks.front(), {});
  } catch (const SummaryAbort &A) {
    R.NotSummarized = A.Why;
  }
  if (LaneSym) {
    // Every effect names the thread that makes it (Lowering).
    for (const Write &W : R.Effects.Writes)
      for (const Expr *E : {W.Guard, W.Index, W.Value, W.Defined})
        if (mentionsThread(E))
          throw UnsupportedError(W.From.Loc, "a value that depends on the "
                                             "thread reaches " + W.From.Op);
    for (const UndefinedBehavior &U : R.Effects.Undefined)
      if (mentionsThread(U.Condition))
        throw UnsupportedError(U.From.Loc, "a value that depends on the "
                                           "thread reaches " + U.From.Op);
  }
  return std::move(R);
}

LiftResult liftKernel(Context &C, const Module &M, const LiftOptions &O) {
  return Lifter(C, M, O).run();
}

} // namespace stagecheck::ttir

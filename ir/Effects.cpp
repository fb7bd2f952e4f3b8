#include "ir/Effects.h"

namespace stagecheck::ir {

std::string SourceLocation::str() const {
  if (!known())
    return "";
  std::string S = File.empty() ? "<unknown>" : File;
  S += ":" + std::to_string(Line);
  if (Column)
    S += ":" + std::to_string(Column);
  return S;
}

static const char *const AtomicNames[] = {"add", "fadd", "min",  "max",
                                          "umin", "umax", "and", "or",
                                          "xor", "xchg", "cmpxchg"};

const char *spelling(AtomicOp O) { return AtomicNames[unsigned(O)]; }

bool parseAtomicOp(std::string_view Text, AtomicOp &Out) {
  for (unsigned I = 0; I < std::size(AtomicNames); ++I)
    if (Text == AtomicNames[I]) {
      Out = AtomicOp(I);
      return true;
    }
  return false;
}

const Buffer *Effects::buffer(const std::string &Name) const {
  for (const Buffer &B : Buffers)
    if (B.Name == Name)
      return &B;
  return nullptr;
}

const Expr *Effects::undefinedCondition(Context &C,
                                        uint64_t MaxInstances) const {
  const Expr *Any = C.falseExpr();
  for (const UndefinedBehavior &U : Undefined) {
    if (U.Bound.empty()) {
      Any = C.orOf(Any, U.Condition);
      continue;
    }
    bool Fits = forEachInstance(C, U.Bound, MaxInstances, [&](const auto &Map) {
      Any = C.orOf(Any, substitute(C, U.Condition, Map));
    });
    if (!Fits)
      throw IRError("undefined-behaviour condition '" + U.Reason +
                    "' has more than " + std::to_string(MaxInstances) +
                    " instances");
  }
  return Any;
}

/// E with these operands, through the factory (folded and hash-consed).
static const Expr *rebuilt(Context &C, const Expr *E,
                           const std::vector<const Expr *> &Ops) {
  if (E->op() == Op::Read)
    return C.read(E->name(), E->type(), Ops[0]);
  return C.make(E->op(), Ops, E->rawAttribute(), E->type(),
                E->op() == Op::Call ? std::string_view(E->name())
                                    : std::string_view());
}

const Expr *substitute(Context &C, const Expr *Root,
                       const std::unordered_map<const Expr *, const Expr *> &Map) {
  if (Map.empty())
    return Root;
  // A subexpression none of whose symbols is in a key holds no key: it is
  // kept as it is, unwalked (unless a key has no symbol at all).
  uint64_t KeyBits = 0;
  bool ClosedKey = false;
  for (const auto &[Key, Replacement] : Map) {
    KeyBits |= Key->symbolBits();
    ClosedKey |= Key->symbolBits() == 0;
  }
  auto Untouched = [&](const Expr *E) {
    return !ClosedKey && (E->symbolBits() & KeyBits) == 0;
  };
  std::unordered_map<const Expr *, const Expr *> Done;
  std::vector<std::pair<const Expr *, bool>> Stack = {{Root, false}};
  while (!Stack.empty()) {
    auto [E, Expanded] = Stack.back();
    Stack.pop_back();
    if (!Expanded) {
      if (Done.count(E))
        continue;
      if (auto It = Map.find(E); It != Map.end()) {
        Done[E] = It->second;
        continue;
      }
      if (E->numOperands() == 0 || Untouched(E)) {
        Done[E] = E;
        continue;
      }
      Stack.push_back({E, true});
      for (unsigned I = E->numOperands(); I-- > 0;)
        if (!Done.count(E->operand(I)))
          Stack.push_back({E->operand(I), false});
      continue;
    }
    if (Done.count(E))
      continue; // reached twice before either visit finished
    std::vector<const Expr *> Ops;
    bool Changed = false;
    for (const Expr *O : E->operands()) {
      Ops.push_back(Done.at(O));
      Changed |= Ops.back() != O;
    }
    Done[E] = Changed ? rebuilt(C, E, Ops) : E;
  }
  return Done.at(Root);
}

InstanceSubstitution::InstanceSubstitution(
    Context &C, const std::vector<BoundVariable> &Bound, FixedSymbols Fixed,
    Order Walk)
    : C(C), Bound(Bound), Fixed(std::move(Fixed)), Walk(Walk),
      Stride(Bound.size(), 0) {
  uint64_t Place = 1;
  for (size_t I = Bound.size(); I-- > 0;) {
    BoundSymbolBits |= Bound[I].Symbol->symbolBits();
    Stride[I] = Place;
    // Past 2^64 instances (never enumerated) the numbering may collide:
    // such a family goes through substitute().
    if (Bound[I].Extent && Place > UINT64_MAX / Bound[I].Extent)
      Place = 0;
    else
      Place *= Bound[I].Extent;
  }
  if (Place == 0 || Bound.size() > 64)
    Stride.clear();
}

InstanceSubstitution::Below InstanceSubstitution::below(const Expr *N) {
  // Without fixed symbols the symbol bits rule most nodes out at once.
  if (!Fixed && (N->symbolBits() & BoundSymbolBits) == 0)
    return {};
  if (auto It = Beneath.find(N); It != Beneath.end())
    return It->second;
  const Expr *Roots[] = {N};
  for (const Expr *X : postOrder(Roots)) {
    if (Beneath.count(X))
      continue;
    Below B;
    if (X->op() == Op::Symbol) {
      for (size_t I = 0; I < Bound.size(); ++I)
        if (Bound[I].Symbol == X)
          B.Bound |= uint64_t(1) << I;
      B.Fixed = !B.Bound && Fixed && Fixed(X);
    }
    for (const Expr *O : X->operands()) {
      const Below &Of = Beneath.at(O);
      B.Bound |= Of.Bound;
      B.Fixed |= Of.Fixed;
    }
    Beneath[X] = B;
  }
  return Beneath.at(N);
}

const Expr *InstanceSubstitution::operator()(
    const Expr *Root, const std::unordered_map<const Expr *, const Expr *> &At) {
  bool Instance = !Stride.empty() && At.size() == Bound.size();
  Values.assign(Bound.size(), 0);
  Constants.assign(Bound.size(), nullptr);
  for (size_t I = 0; Instance && I < Bound.size(); ++I) {
    auto It = At.find(Bound[I].Symbol);
    // A value past its extent would number as another instance does.
    Instance = It != At.end() && It->second->isConst() &&
               It->second->constBits() < Bound[I].Extent;
    if (Instance) {
      Values[I] = It->second->constBits();
      Constants[I] = It->second;
    }
  }
  if (!Instance)
    return substitute(C, Root, At);
  auto KeyOf = [&](const Expr *N, uint64_t Mask) {
    uint64_t Place = 0;
    for (size_t I = 0; Mask; ++I, Mask >>= 1)
      if (Mask & 1)
        Place += Values[I] * Stride[I];
    return std::make_pair(N, Place);
  };
  // What N becomes: itself where nothing replaced lies below it.
  auto Result = [&](const Expr *N) -> const Expr * {
    Below B = below(N);
    if (!B.Bound && !B.Fixed)
      return N;
    auto It = Done.find(KeyOf(N, B.Bound));
    return It == Done.end() ? nullptr : It->second;
  };
  std::vector<const Expr *> Work = {Root};
  std::vector<const Expr *> Ops;
  while (!Work.empty()) {
    const Expr *N = Work.back();
    if (Result(N)) {
      Work.pop_back();
      continue;
    }
    Below B = below(N);
    if (N->op() == Op::Symbol) {
      Done.emplace(KeyOf(N, B.Bound),
                   B.Bound ? Constants[size_t(__builtin_ctzll(B.Bound))]
                           : Fixed(N));
      Work.pop_back();
      continue;
    }
    // The operand pushed last is rebuilt first.
    bool Ready = true;
    unsigned Count = N->numOperands();
    for (unsigned K = 0; K < Count; ++K) {
      unsigned I = Walk == Order::FirstOperandFirst ? Count - 1 - K : K;
      if (!Result(N->operand(I))) {
        Work.push_back(N->operand(I));
        Ready = false;
      }
    }
    if (!Ready)
      continue;
    Work.pop_back();
    Ops.clear();
    bool Changed = false;
    for (const Expr *O : N->operands()) {
      Ops.push_back(Result(O));
      Changed |= Ops.back() != O;
    }
    Done.emplace(KeyOf(N, B.Bound), Changed ? rebuilt(C, N, Ops) : N);
  }
  return Result(Root);
}

bool forEachInstance(
    Context &C, const std::vector<BoundVariable> &Bound, uint64_t MaxInstances,
    const std::function<void(const std::unordered_map<const Expr *, const Expr *> &)> &Visit) {
  uint64_t Total = 1;
  for (const BoundVariable &B : Bound) {
    if (B.Extent == 0)
      return true; // no instances at all
    if (Total > MaxInstances / B.Extent)
      return false;
    Total *= B.Extent;
  }
  std::vector<uint64_t> Counter(Bound.size(), 0);
  std::unordered_map<const Expr *, const Expr *> Map;
  for (uint64_t N = 0; N < Total; ++N) {
    for (size_t I = 0; I < Bound.size(); ++I)
      Map[Bound[I].Symbol] = C.constant(Bound[I].Symbol->type(), Counter[I]);
    Visit(Map);
    for (size_t I = Bound.size(); I-- > 0;) { // row-major increment
      if (++Counter[I] < Bound[I].Extent)
        break;
      Counter[I] = 0;
    }
  }
  return true;
}

const Expr *inRange(Context &C, const std::vector<BoundVariable> &Bound) {
  const Expr *All = C.trueExpr();
  for (const BoundVariable &B : Bound)
    All = C.andOf(All, C.icmp(ICmpPredicate::Ult, B.Symbol,
                              C.constant(B.Symbol->type(), B.Extent)));
  return All;
}

} // namespace stagecheck::ir

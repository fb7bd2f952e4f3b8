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
    if (!Changed)
      Done[E] = E;
    else if (E->op() == Op::Read)
      Done[E] = C.read(E->name(), E->type(), Ops[0]);
    else
      Done[E] = C.make(E->op(), Ops, E->rawAttribute(), E->type(),
                       E->op() == Op::Call ? std::string_view(E->name())
                                           : std::string_view());
  }
  return Done.at(Root);
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

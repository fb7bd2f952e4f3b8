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

const Expr *Effects::undefinedCondition(Context &C) const {
  const Expr *Any = C.falseExpr();
  for (const UndefinedBehavior &U : Undefined)
    Any = C.orOf(Any, U.Condition);
  return Any;
}

} // namespace stagecheck::ir

#include "ir/Kernel.h"

#include "ir/Expr.h"

#include <cassert>

namespace stagecheck::ir {

static std::string axis(unsigned Dim) {
  assert(Dim < 3 && "a launch has three axes");
  return std::string(1, char('x' + Dim));
}

const Expr *programIdSymbol(Context &C, unsigned Dim) {
  return C.symbol("pid." + axis(Dim), Type::i(32), SymbolRole::ProgramId);
}

const Expr *numProgramsSymbol(Context &C, unsigned Dim) {
  return C.symbol("nprog." + axis(Dim), Type::i(32), SymbolRole::NumPrograms);
}

const Expr *numProgramsRange(Context &C, unsigned Dim) {
  Type I32 = Type::i(32);
  const Expr *NProg = numProgramsSymbol(C, Dim);
  return C.andOf(
      C.icmp(ICmpPredicate::Sge, NProg, C.intConst(I32, 1)),
      C.icmp(ICmpPredicate::Sle, NProg, C.intConst(I32, MaxPrograms[Dim])));
}

const Expr *programIdRange(Context &C, unsigned Dim) {
  Type I32 = Type::i(32);
  const Expr *Pid = programIdSymbol(C, Dim);
  return C.andOf(numProgramsRange(C, Dim),
                 C.andOf(C.icmp(ICmpPredicate::Sge, Pid, C.intConst(I32, 0)),
                         C.icmp(ICmpPredicate::Slt, Pid,
                                numProgramsSymbol(C, Dim))));
}

} // namespace stagecheck::ir

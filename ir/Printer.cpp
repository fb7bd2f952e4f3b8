#include "ir/Text.h"

#include "ir/FloatOps.h"
#include "ir/Value.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>
#include <unordered_map>

namespace stagecheck::ir {

std::string printConstant(const Expr *E) {
  Type T = E->type();
  char Buf[64];
  if (T.isBool())
    return E->constBits() ? "true" : "false";
  if (T.isInt()) {
    std::snprintf(Buf, sizeof Buf, "%" PRId64,
                  Value::ofBits(T, E->constBits()).asSigned());
    return std::string(Buf) + ":" + T.str();
  }
  if (T.isFloat()) {
    // Finite values whose shortest round-trip decimal form is exact print in
    // decimal; everything else prints as its bit pattern.
    Value V = Value::ofBits(T, E->constBits());
    double D = V.asDouble();
    if (std::isfinite(D) && !(D == 0 && std::signbit(D))) {
      for (int Digits = 1; Digits <= 17; ++Digits) {
        std::snprintf(Buf, sizeof Buf, "%.*g", Digits, D);
        if (std::strtod(Buf, nullptr) == D &&
            Value::ofDouble(T, std::strtod(Buf, nullptr)).Bits == V.Bits) {
          std::string S = Buf;
          if (S.find_first_of(".en") == std::string::npos)
            S += ".0";
          return S + ":" + T.str();
        }
      }
    }
    if (std::isinf(D))
      return std::string(D < 0 ? "-inf:" : "inf:") + T.str();
  }
  std::snprintf(Buf, sizeof Buf, "0x%" PRIx64, E->constBits());
  return std::string(Buf) + ":" + T.str();
}

namespace {
class Printer {
public:
  explicit Printer(std::ostream &OS) : OS(OS) {}

  std::string operand(const Expr *E) {
    if (E->isConst())
      return printConstant(E);
    auto It = Names.find(E);
    return It == Names.end() ? "%?" : It->second;
  }

  void define(const Expr *E) {
    if (E->isConst() || Names.count(E))
      return;
    if (E->op() == Op::Symbol) {
      Names[E] = "%" + E->name();
      OS << "symbol %" << E->name() << " : " << E->type().str();
      if (E->role() != SymbolRole::Free)
        OS << " " << spelling(E->role());
      OS << "\n";
      return;
    }
    std::string Name = "%" + std::to_string(Next++);
    OS << Name << " = ";
    switch (category(E->op())) {
    case OpCategory::Leaf: // Read
      OS << "read " << E->name() << "[" << operand(E->operand(0))
         << "] : " << E->type().str();
      break;
    case OpCategory::Call:
      OS << "call @" << E->name() << "(";
      for (unsigned I = 0; I < E->numOperands(); ++I)
        OS << (I ? ", " : "") << operand(E->operand(I));
      OS << ") : " << E->type().str();
      break;
    default:
      OS << spelling(E->op());
      if (E->op() == Op::ICmp)
        OS << "." << spelling(E->icmpPredicate());
      else if (E->op() == Op::FCmp)
        OS << "." << spelling(E->fcmpPredicate());
      else if (hasRounding(E->op()))
        OS << "." << spelling(E->rounding());
      for (unsigned I = 0; I < E->numOperands(); ++I)
        OS << (I ? ", " : " ") << operand(E->operand(I));
      switch (category(E->op())) {
      case OpCategory::IntCast:
      case OpCategory::FloatToFloat:
      case OpCategory::FloatToInt:
      case OpCategory::IntToFloat:
      case OpCategory::Bitcast:
        OS << " to " << E->type().str();
        break;
      default:
        break;
      }
    }
    OS << "\n";
    Names[E] = Name;
  }

  void defineAll(std::span<const Expr *const> Roots) {
    for (const Expr *E : postOrder(Roots))
      define(E);
  }

  std::string bound(const std::vector<BoundVariable> &Bound) {
    std::string S;
    for (size_t I = 0; I < Bound.size(); ++I)
      S += (I ? ", " : " for ") + operand(Bound[I].Symbol) + " < " +
           std::to_string(Bound[I].Extent);
    return S;
  }

  static std::string origin(const Origin &O) {
    std::string S;
    if (O.Loc.known())
      S += " at " + O.Loc.str();
    if (!O.Op.empty())
      S += " op \"" + O.Op + "\"";
    return S;
  }

private:
  std::ostream &OS;
  std::unordered_map<const Expr *, std::string> Names;
  unsigned Next = 0;
};
} // namespace

/// Buffers the effects read but do not declare (a masked load's
/// "undef.arg0"), with the element type read: the parser wants each one.
static std::map<std::string, Type> undeclaredReads(const Effects &E) {
  std::vector<const Expr *> Roots;
  for (const Write &W : E.Writes)
    Roots.insert(Roots.end(), {W.Guard, W.Index, W.Value, W.Defined});
  for (const Atomic &A : E.Atomics) {
    Roots.insert(Roots.end(), {A.Guard, A.Index, A.Value});
    if (A.Compare)
      Roots.push_back(A.Compare);
  }
  for (const UndefinedBehavior &U : E.Undefined)
    Roots.push_back(U.Condition);
  std::map<std::string, Type> Out;
  for (const Expr *N : postOrder(Roots))
    if (N->op() == Op::Read && !E.buffer(N->name()))
      Out.emplace(N->name(), N->type());
  return Out;
}

void printEffects(std::ostream &OS, const Effects &E) {
  for (const Buffer &B : E.Buffers) {
    OS << "buffer " << B.Name << " : " << B.Element.str();
    OS << (B.Space == AddressSpace::Shared ? " shared" : " global");
    if (B.Size)
      OS << " size " << *B.Size;
    OS << "\n";
  }
  for (const auto &[Name, Element] : undeclaredReads(E))
    OS << "buffer " << Name << " : " << Element.str() << " global\n";
  Printer P(OS);
  for (const Write &W : E.Writes) {
    std::vector<const Expr *> Roots = {W.Guard, W.Index, W.Value, W.Defined};
    for (const BoundVariable &B : W.Bound)
      Roots.push_back(B.Symbol);
    P.defineAll(Roots);
    OS << "write " << W.Buffer << "[" << P.operand(W.Index)
       << "] = " << P.operand(W.Value);
    if (!W.Guard->isTrue())
      OS << " if " << P.operand(W.Guard);
    if (!W.Defined->isTrue())
      OS << " defined " << P.operand(W.Defined);
    OS << P.bound(W.Bound) << Printer::origin(W.From) << "\n";
  }
  for (const Atomic &A : E.Atomics) {
    std::vector<const Expr *> Roots = {A.Guard, A.Index, A.Value};
    if (A.Compare)
      Roots.push_back(A.Compare);
    P.defineAll(Roots);
    OS << "atomic " << spelling(A.Kind) << " " << A.Buffer << "["
       << P.operand(A.Index) << "], " << P.operand(A.Value);
    if (A.Compare)
      OS << ", " << P.operand(A.Compare);
    if (!A.Guard->isTrue())
      OS << " if " << P.operand(A.Guard);
    OS << Printer::origin(A.From) << "\n";
  }
  for (const UndefinedBehavior &U : E.Undefined) {
    std::vector<const Expr *> Roots = {U.Condition};
    for (const BoundVariable &B : U.Bound)
      Roots.push_back(B.Symbol);
    P.defineAll(Roots);
    OS << "ub " << P.operand(U.Condition) << " \"" << U.Reason << "\""
       << P.bound(U.Bound) << Printer::origin(U.From) << "\n";
  }
}

std::string printExpr(const Expr *E) {
  std::ostringstream OS;
  Printer P(OS);
  const Expr *Roots[] = {E};
  P.defineAll(Roots);
  OS << "result " << P.operand(E) << "\n";
  return OS.str();
}

} // namespace stagecheck::ir

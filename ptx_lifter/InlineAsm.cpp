//===- InlineAsm.cpp - Triton's inline-asm PTX in LLVM IR -----------------===//
//
// The template's $N are registers of the widths their constraints name
// (r: 32, l: 64, h and c: 16, f: 32, d: 64, b: predicate); inputs start
// with the call's arguments, a tied input ("0") is the output's register,
// an immediate ("n", "i") is its constant. The template then runs through
// the PTX lifter's own instruction semantics and path merging, into the
// caller's ThreadModel (whose path condition guards every effect).
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/PtxLifter.h"

#include "ptx_lifter/ControlFlow.h"
#include "ptx_lifter/Executor.h"

#include "ir/Errors.h"

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

struct Constraint {
  bool Output = false;
  char Letter = 0; // r l h c f d b n i
  int Tied = -1;   // an input tied to this output
};

int hexValue(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return -1;
}

/// LLVM's IR-text escapes (\0A, \09, \\); the C++ API already gives the
/// unescaped text, which has no backslashes left to decode.
std::string unescape(std::string_view T) {
  std::string Out;
  for (size_t K = 0; K < T.size(); ++K) {
    if (T[K] == '\\' && K + 2 < T.size() && hexValue(T[K + 1]) >= 0 &&
        hexValue(T[K + 2]) >= 0) {
      Out += char(hexValue(T[K + 1]) * 16 + hexValue(T[K + 2]));
      K += 2;
    } else if (T[K] == '\\' && K + 1 < T.size() && T[K + 1] == '\\') {
      Out += '\\';
      ++K;
    } else {
      Out += T[K];
    }
  }
  return Out;
}

std::vector<Constraint> parseConstraints(std::string_view Text,
                                         const Origin &From) {
  std::vector<Constraint> Out;
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t Comma = Text.find(',', Start);
    std::string_view Part = Text.substr(
        Start, Comma == std::string_view::npos ? Text.npos : Comma - Start);
    Start = Comma == std::string_view::npos ? Text.size() + 1 : Comma + 1;
    if (Part.empty() && Text.empty())
      break;
    if (!Part.empty() && Part[0] == '~')
      continue; // a clobber: ~{memory}
    Constraint Con;
    while (!Part.empty() && (Part[0] == '=' || Part[0] == '&' ||
                             Part[0] == '*' || Part[0] == '+')) {
      if (Part[0] == '+')
        throw UnsupportedError(From.Loc, "read-write inline-asm operand");
      Con.Output |= Part[0] == '=';
      Part.remove_prefix(1);
    }
    if (Part.size() != 1 &&
        !(Part.size() == 2 && std::isdigit(Part[0]) && std::isdigit(Part[1])))
      throw InputError(From.Loc, "inline-asm constraint '" + std::string(Part) +
                                     "' not understood");
    if (std::isdigit(static_cast<unsigned char>(Part[0])))
      Con.Tied = std::stoi(std::string(Part));
    else if (std::string_view("rlhcfdbni").find(Part[0]) !=
             std::string_view::npos)
      Con.Letter = Part[0];
    else
      throw UnsupportedError(From.Loc, std::string("inline-asm constraint '") +
                                           Part[0] + "'");
    Out.push_back(Con);
  }
  return Out;
}

unsigned registerBits(char Letter) {
  switch (Letter) {
  case 'b':
    return 1;
  case 'h':
  case 'c':
    return 16;
  case 'l':
  case 'd':
    return 64;
  default:
    return 32;
  }
}

/// V truncated to Width bits, the truncation pushed through wrapping
/// arithmetic so that a shared address (the base plus an offset, in 64
/// bits) keeps its base visible in 32.
const Expr *narrow(Context &C, const Expr *V, unsigned Width) {
  Type T = Type::i(Width);
  switch (V->op()) {
  case Op::Add:
  case Op::Sub:
  case Op::Mul:
  case Op::And:
  case Op::Or:
  case Op::Xor:
    return C.binary(V->op(), narrow(C, V->operand(0), Width),
                    narrow(C, V->operand(1), Width));
  case Op::ZExt:
  case Op::SExt:
    if (V->operand(0)->type().bits() <= Width)
      return V->op() == Op::ZExt ? C.zextOrTrunc(V->operand(0), T)
                                 : C.sextOrTrunc(V->operand(0), T);
    return narrow(C, V->operand(0), Width);
  default:
    return C.cast(Op::Trunc, V, T);
  }
}

/// An argument's bits in a register of Width bits.
const Expr *inputBits(ThreadModel &M, const Expr *V, unsigned Width) {
  Context &C = M.context();
  if (V->op() == Op::IntToPtr)
    V = V->operand(0);
  V = M.toBits(V);
  unsigned Bits = V->type().bits();
  if (Width == 1)
    return Bits == 1 ? V
                     : C.icmp(ICmpPredicate::Ne, V, C.constant(V->type(), 0));
  if (Bits == Width)
    return V;
  return Bits > Width ? narrow(C, V, Width)
                      : C.cast(Op::ZExt, V, Type::i(Width));
}

const Expr *outputValue(ThreadModel &M, const Expr *Bits, Type T) {
  unsigned W = T.isPtr() ? 64 : T.bits();
  if (Bits->type().bits() != W)
    Bits = M.context().zextOrTrunc(Bits, Type::i(W));
  return M.fromBits(Bits, T);
}

std::string operandName(size_t K) { return "$" + std::to_string(K); }

} // namespace

std::vector<const Expr *>
liftInlineAsm(ThreadModel &M, std::string_view Template,
              std::string_view Constraints, std::span<const Expr *const> Inputs,
              const std::vector<Type> &OutputTypes, const Origin &From,
              unsigned SmVersion) {
  Context &C = M.context();
  std::vector<Constraint> Cons = parseConstraints(Constraints, From);
  size_t Outputs = 0;
  while (Outputs < Cons.size() && Cons[Outputs].Output)
    ++Outputs;
  if (Outputs != OutputTypes.size() || Cons.size() - Outputs != Inputs.size())
    throw InputError(From.Loc, "inline asm with " + std::to_string(Outputs) +
                                   " outputs and " +
                                   std::to_string(Cons.size() - Outputs) +
                                   " inputs is called with " +
                                   std::to_string(OutputTypes.size()) +
                                   " and " + std::to_string(Inputs.size()));
  RegisterTable Registers;
  NameScope Names;
  PathState Start;
  Start.Condition = C.trueExpr();
  for (size_t K = 0; K < Outputs; ++K) {
    if (Cons[K].Letter == 'n' || Cons[K].Letter == 'i' || Cons[K].Tied >= 0)
      throw InputError(From.Loc, "inline-asm output " + std::to_string(K) +
                                     " is not a register");
    unsigned Bits = registerBits(Cons[K].Letter);
    Registers.declare(operandName(K), {Bits, Bits == 1});
  }
  for (size_t J = 0; J < Inputs.size(); ++J) {
    const Constraint &Con = Cons[Outputs + J];
    std::string Name = operandName(Outputs + J);
    if (Con.Tied >= 0) {
      if (size_t(Con.Tied) >= Outputs)
        throw InputError(From.Loc, "inline-asm input tied to a missing output");
      std::string Out = operandName(size_t(Con.Tied));
      Names.Aliases[Name] = Out;
      Start.Registers[Out] = inputBits(M, Inputs[J], Registers.find(Out)->Bits);
    } else if (Con.Letter == 'n' || Con.Letter == 'i') {
      if (!Inputs[J]->isConst())
        throw InputError(From.Loc, "inline-asm immediate is not a constant");
      Names.Immediates[Name] = int64_t(Inputs[J]->constBits());
    } else {
      unsigned Bits = registerBits(Con.Letter);
      Registers.declare(Name, {Bits, Bits == 1});
      Start.Registers[Name] = inputBits(M, Inputs[J], Bits);
    }
  }
  std::vector<RegisterDecl> Local;
  std::vector<Statement> Body;
  std::string Text = unescape(Template);
  try {
    Body = parseStatements(Text, "inline asm", Local);
  } catch (const InputError &E) {
    throw InputError(From.Loc, "inline asm: " + std::string(E.what()));
  }
  for (const RegisterDecl &D : Local)
    Registers.declare(D, "inline asm");
  Executor X(M, Registers, std::move(Names),
             SiteInfo{"inline asm", nullptr, From.Loc, SmVersion});
  FlowOptions Flow;
  Flow.AllowReturn = false;
  std::optional<PathState> End = PathMerger(X, Body, Flow).run(Start);
  std::vector<const Expr *> Results;
  for (size_t K = 0; K < Outputs; ++K) {
    const Expr *Bits = End ? X.registerValue(*End, operandName(K))
                           : X.registerValue(Start, operandName(K));
    Results.push_back(outputValue(M, Bits, OutputTypes[K]));
  }
  return Results;
}

} // namespace stagecheck::ptx

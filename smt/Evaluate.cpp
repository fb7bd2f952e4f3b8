#include "smt/Evaluate.h"

#include "smt/Encoder.h"

using namespace stagecheck::ir;

namespace stagecheck::smt {

struct EncodingEvaluator::Impl {
  Impl(const Expr *Root, Mode M) : Root(Root), Enc(Z, M) {
    try {
      Encoded = Enc.encode(Root);
    } catch (const Unsupported &) {
      // No encoding in this mode (an infinity over the reals): no value.
      Unencodable = true;
      return;
    }
    for (const Expr *E : postOrder(std::span<const Expr *const>(&Root, 1))) {
      if (E->op() == Op::Symbol)
        Symbols.push_back(E);
      if (E->op() == Op::Call || E->op() == Op::Read)
        Pinned.push_back(E);
    }
  }
  z3::context Z;
  const Expr *Root;
  Encoder Enc;
  z3::expr Encoded{Z};
  bool Unencodable = false;
  std::vector<const Expr *> Symbols, Pinned; // Pinned: calls and reads
};

EncodingEvaluator::EncodingEvaluator(const Expr *Root, Mode M)
    : P(std::make_unique<Impl>(Root, M)) {}
EncodingEvaluator::~EncodingEvaluator() = default;

std::optional<Value> EncodingEvaluator::evaluate(const Env &Environment) {
  if (P->Unencodable)
    return std::nullopt;
  z3::context &Z = P->Z;
  z3::expr_vector From(Z), To(Z);
  for (const Expr *S : P->Symbols) {
    const Value *V = Environment.symbol(S->name());
    if (!V)
      return std::nullopt;
    From.push_back(P->Enc.encode(S));
    To.push_back(P->Enc.numeral(*V));
  }
  z3::expr Reduced = P->Encoded.substitute(From, To).simplify();
  if (!P->Pinned.empty()) {
    // Uninterpreted functions and buffer arrays do not simplify away: pin
    // each call and read to the environment's value with a solver and read
    // the result off the model.
    z3::solver S(Z);
    Interpreter Concrete(Environment);
    for (const Expr *E : P->Pinned) {
      std::vector<Value> ArgValues;
      z3::expr_vector ArgNumerals(Z);
      for (const Expr *A : E->operands()) {
        ArgValues.push_back(Concrete.eval(A));
        ArgNumerals.push_back(P->Enc.numeral(ArgValues.back()));
      }
      if (E->op() == Op::Read) {
        const Value *V = Environment.read(E->name(), ArgValues[0].Bits);
        Value Content = V ? *V : Value::ofBits(E->type(), 0);
        S.add(z3::select(P->Enc.bufferArray(E->name(), E->type()),
                         ArgNumerals[0]) == P->Enc.numeral(Content));
        continue;
      }
      const Value *R = Environment.call(E->name(), ArgValues);
      if (!R)
        return std::nullopt;
      z3::expr_vector Points(Z);
      for (unsigned I = 0; I < ArgNumerals.size(); ++I)
        Points.push_back(P->Enc.callArgument(E, ArgNumerals[I]).simplify());
      S.add(P->Enc.function(E)(Points) == P->Enc.numeral(*R));
    }
    if (S.check() != z3::sat)
      return std::nullopt;
    Reduced = S.get_model().eval(Reduced, true).simplify();
  }
  uint64_t Bits = 0;
  if (!P->Enc.numeralBits(Reduced, P->Root->type(), Bits))
    return std::nullopt;
  return Value::ofBits(P->Root->type(), Bits);
}

} // namespace stagecheck::smt

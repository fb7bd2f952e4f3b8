//===- Evaluate.h - The SMT encoding evaluated on concrete inputs -*- C++ -*-=//
//
// Substitutes concrete values for the symbols of an encoded expression and
// lets Z3 simplify it to a numeral. Tests use this to hold the encoding
// against the interpreter op by op.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_SMT_EVALUATE_H
#define STAGECHECK_SMT_EVALUATE_H

#include "ir/Expr.h"
#include "ir/Interpreter.h"
#include "smt/Mode.h"

#include <memory>
#include <optional>

namespace stagecheck::smt {

class EncodingEvaluator {
public:
  explicit EncodingEvaluator(const ir::Expr *Root, Mode M = Mode::IEEE);
  ~EncodingEvaluator();
  /// The value Z3 gives the encoding when symbols take their values in Env
  /// and calls the values Env records for them; nullopt if Z3 does not reduce
  /// it to a numeral, or if the expression has no encoding in this mode (an
  /// infinity or a NaN constant over the reals).
  std::optional<ir::Value> evaluate(const ir::Env &Env);

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace stagecheck::smt

#endif

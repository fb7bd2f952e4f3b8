//===- Text.h - The textual form of the shared IR ---------------*- C++ -*-===//
//
// A small line-based SSA text for effects, used for snippets, tests and
// dumps. printEffects writes what parseEffects reads:
//
//   # comment
//   buffer out : f32 global size 1024
//   symbol %a : f32 param
//   %t = fadd.rne %a, 1.5:f32
//   %c = fcmp.olt %t, %a
//   %i = zext %n to i64
//   %v = read out[%i] : f32
//   %e = call @exp(%t) : f32
//   write out[%i] = %t if %c defined true at kernel.py:12:3 op "tt.store"
//   atomic fadd out[0:i64], %t if %c
//   ub %c "division by zero"
//
// Constants are `literal:type`: integers in decimal or 0x hex, floats in
// decimal, inf, -inf, nan, or 0x hex for their bit pattern; true, false.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_TEXT_H
#define STAGECHECK_IR_TEXT_H

#include "ir/Effects.h"
#include "ir/Errors.h"

#include <iosfwd>
#include <stdexcept>
#include <string>

namespace stagecheck::ir {

/// Malformed snippet text; an InputError (exit code 3).
class ParseError : public InputError {
public:
  ParseError(const std::string &File, unsigned Line, unsigned Column,
             const std::string &Message);
};

Effects parseEffects(Context &C, const std::string &Text,
                     const std::string &FileName);

void printEffects(std::ostream &OS, const Effects &E);
/// One expression as a self-contained snippet (used in reports and dumps).
std::string printExpr(const Expr *E);
/// A constant in the literal syntax, e.g. "1.5:f32".
std::string printConstant(const Expr *E);

} // namespace stagecheck::ir

#endif

//===- Functions.h - Named functions of the shared IR -----------*- C++ -*-===//
//
// Transcendentals and approximate hardware ops are calls of named functions.
// The SMT encoding leaves them uninterpreted (rewrite rules relate them); the
// concrete interpreter takes their values from the environment, and falls back
// to the host's libm only to show a plausible value.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_FUNCTIONS_H
#define STAGECHECK_IR_FUNCTIONS_H

#include <span>
#include <string_view>

namespace stagecheck::ir {

struct FunctionInfo {
  std::string_view Name;
  unsigned Arity;
  /// An approximate hardware op (ex2.approx, div.full...): a result that
  /// depends on one is never reported as a bit-exact proof of the exact
  /// function.
  bool Approximate;
  double (*Host)(std::span<const double>);
};

/// The function named Name, or nullptr.
const FunctionInfo *lookupFunction(std::string_view Name);
std::span<const FunctionInfo> allFunctions();

} // namespace stagecheck::ir

#endif

//===- Errors.h - The two ways an input can fail --------------*- C++ -*-===//
//
// InputError: the input is broken (missing file, malformed text, truncated
// bundle): the tool exits with code 3 and names file:line:column.
// UnsupportedError: the input is well formed but uses something stagecheck
// does not model: the verdict is `unknown` with this reason, never a crash
// and never `proved`.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_ERRORS_H
#define STAGECHECK_IR_ERRORS_H

#include "ir/Effects.h"

#include <stdexcept>
#include <string>

namespace stagecheck::ir {

class InputError : public std::runtime_error {
public:
  InputError(SourceLocation Where, const std::string &Message)
      : std::runtime_error(Where.File.empty() ? Message
                           : Where.Line ? Where.str() + ": " + Message
                                        : Where.File + ": " + Message),
        Where(std::move(Where)), Message(Message) {}
  SourceLocation Where;
  std::string Message;
};

class UnsupportedError : public std::runtime_error {
public:
  /// What: e.g. "unsupported op tt.histogram".
  UnsupportedError(SourceLocation Where, const std::string &What)
      : std::runtime_error(Where.known() ? What + " at " + Where.str() : What),
        Where(std::move(Where)), What(What) {}
  SourceLocation Where;
  std::string What;
};

} // namespace stagecheck::ir

#endif

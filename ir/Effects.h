//===- Effects.h - What a kernel does, as data ------------------*- C++ -*-===//
//
// A kernel's meaning is its effect: the ordered guarded writes
// (guard, buffer, index, value), its atomics, and the conditions under which
// it is undefined. Two stages are equivalent when, for every input and launch
// index, they write the same values to the same places under the same guards
// and neither is less defined than the other.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_EFFECTS_H
#define STAGECHECK_IR_EFFECTS_H

#include "ir/Expr.h"

#include <optional>
#include <string>
#include <vector>

namespace stagecheck::ir {

struct SourceLocation {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  bool known() const { return Line != 0; }
  std::string str() const; // "file:line:col" or "" when unknown
};

/// Where an effect or a value came from: the op that made it, for reports.
struct Origin {
  std::string Op;
  SourceLocation Loc;
};

struct Buffer {
  std::string Name;
  Type Element = Type::f32();
  AddressSpace Space = AddressSpace::Global;
  /// Number of elements when known; accesses outside are undefined.
  std::optional<uint64_t> Size;
};

struct Write {
  const Expr *Guard;   // i1: the write happens
  std::string Buffer;
  const Expr *Index;   // i64 element index
  const Expr *Value;   // the buffer's element type
  const Expr *Defined; // i1: the value is not poison
  Origin From;
};

enum class AtomicOp : uint8_t { Add, FAdd, Min, Max, UMin, UMax, And, Or, Xor, Exchange, CompareExchange };
const char *spelling(AtomicOp O);
bool parseAtomicOp(std::string_view Text, AtomicOp &Out);

struct Atomic {
  const Expr *Guard;
  std::string Buffer;
  const Expr *Index;
  AtomicOp Kind;
  const Expr *Value;
  const Expr *Compare; // CompareExchange only, else nullptr
  Origin From;
};

struct UndefinedBehavior {
  const Expr *Condition; // i1: the kernel is undefined when this holds
  std::string Reason;
  Origin From;
};

struct Effects {
  std::vector<Buffer> Buffers;
  std::vector<Write> Writes;
  std::vector<Atomic> Atomics;
  std::vector<UndefinedBehavior> Undefined;

  const Buffer *buffer(const std::string &Name) const;
  /// i1: some undefined-behaviour condition holds.
  const Expr *undefinedCondition(Context &C) const;
};

} // namespace stagecheck::ir

#endif

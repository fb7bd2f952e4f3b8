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

#include <functional>
#include <optional>
#include <unordered_map>
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

/// A variable that ranges over 0 <= Symbol < Extent (unsigned). A write or
/// undefined-behaviour condition with bound variables stands for one
/// instance per value of them: a tensor store over its elements, or the
/// threads of a CTA.
struct BoundVariable {
  const Expr *Symbol; // an integer symbol
  uint64_t Extent;
};

struct Write {
  const Expr *Guard;   // i1: the write happens
  std::string Buffer;
  const Expr *Index;   // i64 element index
  const Expr *Value;   // the buffer's element type
  const Expr *Defined; // i1: the value is not poison
  Origin From;
  std::vector<BoundVariable> Bound; // empty: a single write
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
  std::vector<BoundVariable> Bound; // undefined if it holds for some instance
};

struct Effects {
  std::vector<Buffer> Buffers;
  std::vector<Write> Writes;
  std::vector<Atomic> Atomics;
  std::vector<UndefinedBehavior> Undefined;

  const Buffer *buffer(const std::string &Name) const;
  /// i1: some undefined-behaviour condition holds. Bound variables are
  /// expanded into a disjunction over their instances, so the result can be
  /// negated without quantifiers; throws IRError past MaxInstances.
  const Expr *undefinedCondition(Context &C, uint64_t MaxInstances = 1 << 16) const;
};

/// Replaces symbols (keys) by expressions throughout E, rebuilding through
/// the factory so the result is folded and hash-consed.
const Expr *substitute(Context &C, const Expr *E,
                       const std::unordered_map<const Expr *, const Expr *> &Map);

/// substitute() for the instances of one family (forEachInstance's maps),
/// remembered between them: what a node becomes depends only on the bound
/// variables below it, so it is rebuilt once per assignment of those (a
/// row's reduction once per row, not once per element of the row). Fixed,
/// when given, replaces other symbols the same way in every instance (null:
/// kept). A map that is not such an instance (another key, a value that is
/// not a constant or lies past its variable's extent) goes through
/// substitute() as it is, without Fixed.
class InstanceSubstitution {
public:
  using FixedSymbols = std::function<const Expr *(const Expr *Symbol)>;
  /// Which operand of a node is rebuilt first. The order new nodes are made
  /// in orders commutative operands, so it shapes the queries and the
  /// models the solver gives: a caller keeps the order it had.
  enum class Order { FirstOperandFirst, LastOperandFirst };
  InstanceSubstitution(Context &C, const std::vector<BoundVariable> &Bound,
                       FixedSymbols Fixed = nullptr,
                       Order Walk = Order::FirstOperandFirst);
  const Expr *operator()(
      const Expr *E, const std::unordered_map<const Expr *, const Expr *> &At);

private:
  struct KeyHash {
    size_t operator()(const std::pair<const Expr *, uint64_t> &K) const {
      return std::hash<const Expr *>()(K.first) ^
             (K.second * 0x9E3779B97F4A7C15ull);
    }
  };
  /// What lies below a node: the bound variables (one bit each), and
  /// whether a fixed symbol does.
  struct Below {
    uint64_t Bound = 0;
    bool Fixed = false;
  };
  Below below(const Expr *N);

  Context &C;
  std::vector<BoundVariable> Bound;
  FixedSymbols Fixed;
  Order Walk;
  uint64_t BoundSymbolBits = 0;
  /// Row-major place value of each variable: an assignment of the
  /// variables below a node, as one number.
  std::vector<uint64_t> Stride;
  std::unordered_map<const Expr *, Below> Beneath;
  std::unordered_map<std::pair<const Expr *, uint64_t>, const Expr *, KeyHash>
      Done;
  // The instance being substituted.
  std::vector<uint64_t> Values;
  std::vector<const Expr *> Constants;
};

/// Every instance of a family: calls Visit once per assignment of the bound
/// variables, in row-major order, with the substitution map for it. Returns
/// false (and visits nothing) when there are more than MaxInstances.
bool forEachInstance(
    Context &C, const std::vector<BoundVariable> &Bound, uint64_t MaxInstances,
    const std::function<void(const std::unordered_map<const Expr *, const Expr *> &)> &Visit);

/// i1: 0 <= v < extent for every bound variable.
const Expr *inRange(Context &C, const std::vector<BoundVariable> &Bound);

} // namespace stagecheck::ir

#endif

//===- Interpreter.h - Concrete evaluation of the shared IR -----*- C++ -*-===//
//
// The concrete semantics every other part is checked against: constant
// folding uses applyOp, the SMT encoding is tested against it, and every
// counterexample is replayed through it before it is printed.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_INTERPRETER_H
#define STAGECHECK_IR_INTERPRETER_H

#include "ir/Expr.h"
#include "ir/Value.h"

#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stagecheck::ir {

/// A concrete input: symbol values, buffer contents, and values of named
/// functions at the points a model fixed.
class Env {
  /// Orders (buffer, index) keys and looks one up by a buffer's name
  /// without copying it into a key.
  struct ReadKeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A &X, const B &Y) const {
      int Names = std::string_view(X.first).compare(std::string_view(Y.first));
      return Names < 0 || (Names == 0 && X.second < Y.second);
    }
  };

public:
  using ReadMap = std::map<std::pair<std::string, uint64_t>, Value, ReadKeyLess>;

  void setSymbol(const std::string &Name, Value V) { Symbols[Name] = V; }
  const Value *symbol(const std::string &Name) const;
  /// Unset buffer elements read as zero.
  void setRead(const std::string &Buffer, uint64_t Index, Value V) {
    Reads[{Buffer, Index}] = V;
  }
  const Value *read(const std::string &Buffer, uint64_t Index) const;
  void setCall(const std::string &Function, std::vector<Value> Args, Value R);
  const Value *call(const std::string &Function,
                    std::span<const Value> Args) const;

  const std::map<std::string, Value> &symbols() const { return Symbols; }
  const ReadMap &reads() const {
    return Reads;
  }
  struct CallPoint {
    std::string Function;
    std::vector<Value> Args;
    Value Result;
  };
  const std::vector<CallPoint> &calls() const { return Calls; }

private:
  std::map<std::string, Value> Symbols;
  ReadMap Reads;
  std::vector<CallPoint> Calls;
};

class EvalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The semantics of one non-leaf, non-call op on concrete operands.
Value applyOp(Op O, Type Result, std::span<const Value> Operands, uint8_t Attr);

class Interpreter {
public:
  /// Supplies buffer elements the environment does not set (else zero).
  using ReadSupplier =
      std::function<Value(const std::string &Buffer, uint64_t Index, Type T)>;

  explicit Interpreter(const Env &E, ReadSupplier Missing = nullptr)
      : Environment(E), MissingRead(std::move(Missing)) {}
  /// The interpreter keeps a reference to its environment: a temporary
  /// would be gone by the first eval.
  explicit Interpreter(Env &&, ReadSupplier = nullptr) = delete;
  /// Throws EvalError for a symbol the environment does not set.
  Value eval(const Expr *E);
  /// Whether some call's value came from the host fallback rather than the
  /// environment (such a value is only illustrative).
  bool usedHostFallback() const { return HostFallback; }
  /// How many nodes have been evaluated so far (each once): the work done.
  size_t evaluatedNodes() const { return Memo.size(); }

private:
  /// Values by node, open addressing over node addresses: evaluation looks
  /// each node up from every parent, and a node-based map spent most of its
  /// time allocating.
  class ValueMemo {
  public:
    const Value *find(const Expr *E) const;
    void insert(const Expr *E, Value V); // E not yet present
    const Value &at(const Expr *E) const;
    size_t size() const { return Used; }

  private:
    struct Slot {
      const Expr *Key = nullptr;
      Value V;
    };
    std::vector<Slot> Slots;
    size_t Used = 0;
    size_t home(const Expr *E) const;
    void grow();
  };

  Value evalNode(const Expr *E);
  /// The operand a lazy node (an i1 and/or, a select) still needs, given
  /// what is known so far; null once its value is decided (then *Result
  /// holds it).
  const Expr *nextLazyOperand(const Expr *E, Value *Result) const;
  const Env &Environment;
  ReadSupplier MissingRead;
  ValueMemo Memo;
  bool HostFallback = false;
};

} // namespace stagecheck::ir

#endif

//===- Expr.h - Hash-consed expression nodes of the shared IR ---*- C++ -*-===//
//
// Every node is created by one Context, which hash-conses it: building the same
// op over the same operands and attributes twice returns the same pointer, so
// pointer equality is structural equality.
//
// Canonical forms the Context maintains:
//  - operands of commutative ops are ordered by node id (creation order),
//    and so are those of a symmetric comparison (x == y, x uno y, ...),
//    a constant second;
//  - a comparison of booleans is the connective it is (a <u b is !a & b,
//    a == b is !(a ^ b)), and a ^ true is !a;
//  - an op whose operands are all constants is folded to a constant (except
//    Call, which is uninterpreted);
//  - integer identities fold: x+0, x-0, x*1, x*0, x&0, x&~0, x|0, x|~0, x^0,
//    x-x, x^x, x&x, x|x, not(not x), icmp of x with itself, select on a
//    constant condition, select(c, x, x), casts to the same type;
//  - floating-point expressions fold only when constant (x+0.0 is not x);
//    a float compared with itself is only a NaN test: false (ogt, olt,
//    one), true (ueq, uge, ule), ord(x, x) (oeq, oge, ole) or uno(x, x)
//    (une, ugt, ult);
//  - a square x * x takes x in one orientation: (b - a)^2 is (a - b)^2 when
//    a - b was built before b - a, (-x)^2 is x^2, through a select's arms.
//  - flushing a value that is never subnormal keeps it: a flushed value, a
//    constant, a select or sign change of such, and a sum (fadd, fsub, fma)
//    with a constant addend of at least 2^(emin + 2p) (f32: 2^-78), which
//    cannot cancel into the subnormals.
//  - a truncation (or a shifted one) that reads one piece of a join is that
//    piece; through a choice, each arm's piece (a select of 64-bit words
//    of stored pairs, read back as 32 bits, is the select of low words).
//
// Adding an op: add it to Ops.def, give it a folding rule in Interpreter.cpp
// (the concrete semantics), an encoding in smt/Encoder.cpp, a line in the
// printer/parser if its attribute is new, and rerun tests/ir (the agreement
// test enumerates Ops.def and fails for an op it cannot check).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_EXPR_H
#define STAGECHECK_IR_EXPR_H

#include "ir/Type.h"

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stagecheck::ir {

enum class Op : uint8_t {
#define OP(Name, Spelling, Category) Name,
#include "ir/Ops.def"
};

enum class OpCategory : uint8_t {
  Leaf,
  IntBinary,
  IntUnary,
  ICmp,
  IntCast,
  FloatBinaryRounded,
  FloatBinary,
  FloatUnary,
  FloatUnaryRounded,
  FloatTernaryRounded,
  FCmp,
  FloatToFloat,
  FloatToInt,
  IntToFloat,
  Bitcast,
  Select,
  Call,
};

constexpr unsigned NumOps = 0
#define OP(Name, Spelling, Category) +1
#include "ir/Ops.def"
    ;

OpCategory category(Op O);
const char *spelling(Op O);
bool parseOp(std::string_view Text, Op &Out);
bool isCommutative(Op O);
/// Whether a comparison with this predicate means the same with its
/// operands exchanged (eq, ne; oeq, one, ord, ueq, une, uno).
bool isSymmetricComparison(Op O, uint8_t Predicate);
/// True for ops that carry a RoundingMode attribute.
bool hasRounding(Op O);

enum class ICmpPredicate : uint8_t { Eq, Ne, Ult, Ule, Ugt, Uge, Slt, Sle, Sgt, Sge };
enum class FCmpPredicate : uint8_t {
  False, Oeq, Ogt, Oge, Olt, Ole, One, Ord,
  Ueq, Ugt, Uge, Ult, Ule, Une, Uno, True
};
/// IEEE rounding attributes. NearestAway is accepted only where a value is
/// rounded to an integer (llvm.round, lround); no GPU arithmetic rounds so.
enum class RoundingMode : uint8_t { NearestEven, TowardZero, Down, Up, NearestAway };
/// What a symbol stands for; identity is the name alone.
enum class SymbolRole : uint8_t {
  Free, Param, ProgramId, NumPrograms, ThreadId, BlockDim, LaneId
};

constexpr unsigned NumICmpPredicates = 10;
constexpr unsigned NumFCmpPredicates = 16;
constexpr unsigned NumRoundingModes = 5;

const char *spelling(ICmpPredicate P);
const char *spelling(FCmpPredicate P);
const char *spelling(RoundingMode M);
const char *spelling(SymbolRole R);
bool parseICmpPredicate(std::string_view Text, ICmpPredicate &Out);
bool parseFCmpPredicate(std::string_view Text, FCmpPredicate &Out);
bool parseRoundingMode(std::string_view Text, RoundingMode &Out);
bool parseSymbolRole(std::string_view Text, SymbolRole &Out);

/// Thrown for ill-typed constructions; frontends validate their input first,
/// so this signals a frontend bug or a malformed snippet.
class IRError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Expr {
public:
  Op op() const { return Kind; }
  Type type() const { return Ty; }
  unsigned id() const { return Id; }
  std::span<const Expr *const> operands() const { return {Operands, NumOperands}; }
  unsigned numOperands() const { return NumOperands; }
  const Expr *operand(unsigned I) const { return Operands[I]; }

  bool isConst() const { return Kind == Op::Const; }
  bool isTrue() const { return isConst() && Ty.isBool() && Bits == 1; }
  bool isFalse() const { return isConst() && Ty.isBool() && Bits == 0; }
  /// Const: the value's bit pattern (low bits() bits).
  uint64_t constBits() const { return Bits; }
  /// Symbol: its name; Read: the buffer; Call: the function.
  const std::string &name() const { return *Name; }
  ICmpPredicate icmpPredicate() const { return ICmpPredicate(Attr); }
  FCmpPredicate fcmpPredicate() const { return FCmpPredicate(Attr); }
  RoundingMode rounding() const { return RoundingMode(Attr); }
  SymbolRole role() const { return SymbolRole(Attr); }
  uint8_t rawAttribute() const { return Attr; }
  /// A 64-bit summary of the symbols in this expression: each symbol sets
  /// one bit picked by its name. A symbol whose bit is clear is not in it,
  /// so a substitution can skip the subexpression without walking it.
  uint64_t symbolBits() const { return Symbols; }
  /// The longest path to a leaf (0 for a leaf): a cheap guess at what
  /// evaluating the node costs.
  unsigned height() const { return Height; }

private:
  friend class Context;
  Expr() = default;
  Op Kind;
  uint8_t Attr = 0;
  Type Ty = Type::boolean();
  unsigned Id = 0;
  unsigned NumOperands = 0;
  const Expr *const *Operands = nullptr;
  const std::string *Name = nullptr;
  uint64_t Bits = 0;
  uint64_t Symbols = 0; // derived: not part of the node's identity
  unsigned Height = 0;  // derived
};

/// The factory. Not thread-safe; use one Context per thread.
class Context {
public:
  Context();
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  // Leaves.
  const Expr *constant(Type T, uint64_t Bits);
  const Expr *boolean(bool B) { return constant(Type::boolean(), B); }
  const Expr *trueExpr() { return boolean(true); }
  const Expr *falseExpr() { return boolean(false); }
  const Expr *intConst(Type T, int64_t V) { return constant(T, uint64_t(V)); }
  /// A float constant rounded to nearest-even from a double.
  const Expr *floatConst(Type T, double V);
  const Expr *symbol(std::string_view Name, Type T,
                     SymbolRole Role = SymbolRole::Free);
  /// A symbol whose name is new in this context ("Prefix!N").
  const Expr *fresh(std::string_view Prefix, Type T,
                    SymbolRole Role = SymbolRole::Free);
  /// The initial content of element Index (i64) of a buffer.
  const Expr *read(std::string_view Buffer, Type Elem, const Expr *Index);

  /// The general constructor: checks types, folds, hash-conses. Result is
  /// needed only where the op does not determine it (casts, bitcast, call).
  const Expr *make(Op O, std::span<const Expr *const> Operands,
                   uint8_t Attr = 0, Type Result = Type::boolean(),
                   std::string_view Name = {});
  /// E with its operands replaced by Operands (E itself when they are the
  /// same): the rewriting passes' one way to rebuild a node. Operands of
  /// E's operands' types skip the type checks, which depend on the types
  /// alone; ordering and folding are make()'s.
  const Expr *withOperands(const Expr *E,
                           std::span<const Expr *const> Operands);

  // Convenience builders.
  const Expr *binary(Op O, const Expr *A, const Expr *B) {
    const Expr *Ops[] = {A, B};
    return make(O, Ops);
  }
  const Expr *unary(Op O, const Expr *A) {
    const Expr *Ops[] = {A};
    return make(O, Ops);
  }
  const Expr *add(const Expr *A, const Expr *B) { return binary(Op::Add, A, B); }
  const Expr *sub(const Expr *A, const Expr *B) { return binary(Op::Sub, A, B); }
  const Expr *mul(const Expr *A, const Expr *B) { return binary(Op::Mul, A, B); }
  const Expr *andOf(const Expr *A, const Expr *B) { return binary(Op::And, A, B); }
  const Expr *orOf(const Expr *A, const Expr *B) { return binary(Op::Or, A, B); }
  const Expr *xorOf(const Expr *A, const Expr *B) { return binary(Op::Xor, A, B); }
  const Expr *notOf(const Expr *A) { return unary(Op::Not, A); }
  const Expr *implies(const Expr *A, const Expr *B) { return orOf(notOf(A), B); }
  const Expr *icmp(ICmpPredicate P, const Expr *A, const Expr *B);
  const Expr *eq(const Expr *A, const Expr *B) { return icmp(ICmpPredicate::Eq, A, B); }
  const Expr *fcmp(FCmpPredicate P, const Expr *A, const Expr *B);
  const Expr *floatBinary(Op O, const Expr *A, const Expr *B,
                          RoundingMode M = RoundingMode::NearestEven);
  const Expr *fma(const Expr *A, const Expr *B, const Expr *C,
                  RoundingMode M = RoundingMode::NearestEven);
  const Expr *select(const Expr *C, const Expr *T, const Expr *F);
  /// Any cast op (int casts, float casts, bitcast) to type To.
  const Expr *cast(Op O, const Expr *A, Type To,
                   RoundingMode M = RoundingMode::NearestEven);
  const Expr *call(std::string_view Function, Type Result,
                   std::span<const Expr *const> Args);

  /// Integer or pointer with the same width as needed: zext/trunc as required.
  const Expr *zextOrTrunc(const Expr *A, Type To);
  const Expr *sextOrTrunc(const Expr *A, Type To);

  /// Interns a name; the returned reference lives as long as the Context.
  const std::string &intern(std::string_view Name);
  size_t numNodes() const;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
  const Expr *intern(Op O, Type T, std::span<const Expr *const> Operands,
                     uint8_t Attr, const std::string *Name, uint64_t Bits);
  /// The node intern would return, if it exists already; else null.
  const Expr *existing(Op O, Type T, std::span<const Expr *const> Operands,
                       uint8_t Attr) const;
  friend const Expr *squaredAlike(Context &C, const Expr *X);
  const Expr *fold(Op O, Type T, std::span<const Expr *const> Operands,
                   uint8_t Attr, const std::string *Name);
  Type checkAndInferType(Op O, std::span<const Expr *const> Operands,
                         uint8_t Attr, Type Result, std::string_view Name);
  /// make() once the operands are checked and the type T inferred.
  const Expr *makeTyped(Op O, Type T, std::span<const Expr *const> Operands,
                        uint8_t Attr, std::string_view Name);
};

/// Operands in post-order (each node after its operands), each once.
std::vector<const Expr *> postOrder(std::span<const Expr *const> Roots);

/// An integer product or quotient of two variables (a multiplication by a
/// constant is not one): bit-blasted, a circuit of thousands of gates.
bool isProductOfVariables(const Expr *N);

/// The conjuncts of an i1 through nested `and`s, in order, without `true`
/// ones (itself when it is no conjunction).
std::vector<const Expr *> conjunctsOf(const Expr *E);

} // namespace stagecheck::ir

#endif

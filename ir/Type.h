//===- Type.h - Scalar types of the shared IR -------------------*- C++ -*-===//
//
// Every value of the shared IR is a scalar: a bool (i1), an integer of 1 to 64
// bits, one of four IEEE formats, or a pointer into an address space. Tensors
// live only in the frontends, as functions from element index to scalar.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_TYPE_H
#define STAGECHECK_IR_TYPE_H

#include <cstdint>
#include <string>

namespace stagecheck::ir {

enum class TypeKind : uint8_t { Int, F16, BF16, F32, F64, Ptr };

/// Address spaces follow NVPTX numbering so frontends can pass them through.
enum class AddressSpace : uint8_t {
  Generic = 0,
  Global = 1,
  Shared = 3,
  Local = 5,
  Param = 101
};

class Type {
public:
  /// Inline: the interpreter asks for integer types at every node.
  static Type i(unsigned Bits) {
    if (Bits < 1 || Bits > 64)
      badIntegerWidth(Bits);
    return Type(TypeKind::Int, Bits);
  }
  static Type boolean() { return Type(TypeKind::Int, 1); }
  static Type f16() { return Type(TypeKind::F16, 16); }
  static Type bf16() { return Type(TypeKind::BF16, 16); }
  static Type f32() { return Type(TypeKind::F32, 32); }
  static Type f64() { return Type(TypeKind::F64, 64); }
  static Type ptr(AddressSpace Space) {
    return Type(TypeKind::Ptr, 64, Space);
  }

  TypeKind kind() const { return Kind; }
  unsigned bits() const { return Bits; }
  AddressSpace space() const { return Space; }
  bool isInt() const { return Kind == TypeKind::Int; }
  bool isBool() const { return Kind == TypeKind::Int && Bits == 1; }
  bool isFloat() const {
    return Kind != TypeKind::Int && Kind != TypeKind::Ptr;
  }
  bool isPtr() const { return Kind == TypeKind::Ptr; }
  /// Integers and pointers are both bit vectors for arithmetic purposes.
  bool isBitVector() const { return isInt() || isPtr(); }

  /// "i32", "f16", "bf16", "ptr<global>"...
  std::string str() const;
  /// Parses what str() prints; returns false on anything else.
  static bool parse(const std::string &Text, Type &Out);

  bool operator==(const Type &O) const {
    return Kind == O.Kind && Bits == O.Bits && Space == O.Space;
  }
  bool operator!=(const Type &O) const { return !(*this == O); }
  uint32_t hashValue() const {
    return (uint32_t(Kind) << 16) | (Bits << 8) | uint32_t(Space);
  }

private:
  [[noreturn]] static void badIntegerWidth(unsigned Bits);
  Type(TypeKind K, unsigned B, AddressSpace S = AddressSpace::Generic)
      : Kind(K), Bits(uint8_t(B)), Space(S) {}
  TypeKind Kind;
  uint8_t Bits;
  AddressSpace Space;
};

/// Parameters of an IEEE binary format: exponent and significand widths
/// (significand without the hidden bit), as in SMT-LIB's (_ FloatingPoint e s+1).
struct FloatFormat {
  unsigned ExponentBits;
  unsigned MantissaBits;
  unsigned totalBits() const { return 1 + ExponentBits + MantissaBits; }
  int bias() const { return (1 << (ExponentBits - 1)) - 1; }
};
FloatFormat floatFormat(Type T);

} // namespace stagecheck::ir

#endif

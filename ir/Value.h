//===- Value.h - Concrete scalar values -------------------------*- C++ -*-===//
//
// A concrete value is a type and a bit pattern; every scalar of the IR fits in
// 64 bits. Float values compare as IEEE data with all NaNs one class: this is
// the equality every stage pair uses.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_IR_VALUE_H
#define STAGECHECK_IR_VALUE_H

#include "ir/Type.h"

#include <cstdint>
#include <string>

namespace stagecheck::ir {

struct Value {
  Type Ty = Type::boolean();
  uint64_t Bits = 0;

  static uint64_t mask(unsigned Width) {
    return Width >= 64 ? ~uint64_t(0) : (uint64_t(1) << Width) - 1;
  }
  static Value ofBits(Type T, uint64_t B) { return {T, B & mask(T.bits())}; }
  static Value ofBool(bool B) { return {Type::boolean(), B ? 1u : 0u}; }
  static Value ofDouble(Type T, double D); // rounded to nearest-even

  bool isTrue() const { return Bits != 0; }
  int64_t asSigned() const;
  uint64_t asUnsigned() const { return Bits; }
  bool isNaN() const;
  /// The exact value of a float as a double (every f16/bf16/f32 is exact).
  double asDouble() const;

  /// Same IEEE datum: identical bits, or both NaN.
  bool sameAs(const Value &O) const;
  /// "1.5 (0x3fc00000)" for floats, "-3" for integers, "true"/"false".
  std::string str() const;
};

} // namespace stagecheck::ir

#endif

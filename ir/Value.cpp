#include "ir/Value.h"

#include "ir/FloatOps.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace stagecheck::ir {

Value Value::ofDouble(Type T, double D) {
  return {T, fp::fromDouble(D, floatFormat(T), RoundingMode::NearestEven)};
}

int64_t Value::asSigned() const {
  unsigned W = Ty.bits();
  if (W >= 64)
    return int64_t(Bits);
  uint64_t Sign = uint64_t(1) << (W - 1);
  return int64_t((Bits ^ Sign) - Sign);
}

bool Value::isNaN() const {
  return Ty.isFloat() && fp::isNaN(Bits, floatFormat(Ty));
}

double Value::asDouble() const { return fp::toDouble(Bits, floatFormat(Ty)); }

bool Value::sameAs(const Value &O) const {
  if (Ty != O.Ty)
    return false;
  if (Ty.isFloat() && isNaN() && O.isNaN())
    return true;
  return Bits == O.Bits;
}

std::string Value::str() const {
  char Buf[96];
  if (Ty.isBool())
    return Bits ? "true" : "false";
  if (Ty.isInt()) {
    std::snprintf(Buf, sizeof Buf, "%" PRId64, asSigned());
    return Buf;
  }
  if (Ty.isPtr()) {
    std::snprintf(Buf, sizeof Buf, "0x%" PRIx64, Bits);
    return Buf;
  }
  double D = asDouble();
  int Digits = Ty.kind() == TypeKind::F64 ? 17 : 9;
  if (std::isnan(D))
    std::snprintf(Buf, sizeof Buf, "nan");
  else if (std::isinf(D))
    std::snprintf(Buf, sizeof Buf, D < 0 ? "-inf" : "inf");
  else
    std::snprintf(Buf, sizeof Buf, "%.*g", Digits, D);
  std::string S = Buf;
  unsigned HexDigits = (Ty.bits() + 3) / 4;
  std::snprintf(Buf, sizeof Buf, " (0x%0*" PRIx64 ")", int(HexDigits), Bits);
  return S + Buf;
}

} // namespace stagecheck::ir

#include "ir/Type.h"

#include <cassert>
#include <stdexcept>

namespace stagecheck::ir {

void Type::badIntegerWidth(unsigned Bits) {
  throw std::invalid_argument("integer width must be 1..64, got " +
                              std::to_string(Bits));
}

static const char *spaceName(AddressSpace S) {
  switch (S) {
  case AddressSpace::Generic:
    return "generic";
  case AddressSpace::Global:
    return "global";
  case AddressSpace::Shared:
    return "shared";
  case AddressSpace::Local:
    return "local";
  case AddressSpace::Param:
    return "param";
  }
  return "?";
}

std::string Type::str() const {
  switch (Kind) {
  case TypeKind::Int:
    return "i" + std::to_string(Bits);
  case TypeKind::F16:
    return "f16";
  case TypeKind::BF16:
    return "bf16";
  case TypeKind::F32:
    return "f32";
  case TypeKind::F64:
    return "f64";
  case TypeKind::Ptr:
    return std::string("ptr<") + spaceName(Space) + ">";
  }
  return "?";
}

bool Type::parse(const std::string &Text, Type &Out) {
  if (Text == "f16")
    return Out = f16(), true;
  if (Text == "bf16")
    return Out = bf16(), true;
  if (Text == "f32")
    return Out = f32(), true;
  if (Text == "f64")
    return Out = f64(), true;
  if (Text == "bool")
    return Out = boolean(), true;
  for (AddressSpace S : {AddressSpace::Generic, AddressSpace::Global,
                         AddressSpace::Shared, AddressSpace::Local,
                         AddressSpace::Param})
    if (Text == std::string("ptr<") + spaceName(S) + ">")
      return Out = ptr(S), true;
  if (Text.size() >= 2 && Text.size() <= 3 && Text[0] == 'i') {
    unsigned Bits = 0;
    for (size_t I = 1; I < Text.size(); ++I) {
      if (Text[I] < '0' || Text[I] > '9')
        return false;
      Bits = Bits * 10 + unsigned(Text[I] - '0');
    }
    if (Bits < 1 || Bits > 64)
      return false;
    return Out = i(Bits), true;
  }
  return false;
}

FloatFormat floatFormat(Type T) {
  switch (T.kind()) {
  case TypeKind::F16:
    return {5, 10};
  case TypeKind::BF16:
    return {8, 7};
  case TypeKind::F32:
    return {8, 23};
  case TypeKind::F64:
    return {11, 52};
  default:
    throw std::invalid_argument("not a float type: " + T.str());
  }
}

} // namespace stagecheck::ir

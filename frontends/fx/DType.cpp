#include "frontends/fx/DType.h"

#include <cassert>

namespace stagecheck::fx {

namespace {
struct DTypeNames {
  DType D;
  const char *Abbreviation; // torch.fx's dtype_abbrs
  const char *Torch;        // torch.<name>
  const char *Alias;        // a second torch spelling, or nullptr
};

const DTypeNames Names[] = {
    {DType::Bool, "b8", "bool", nullptr},
    {DType::U8, "u8", "uint8", nullptr},
    {DType::I8, "i8", "int8", nullptr},
    {DType::I16, "i16", "int16", "short"},
    {DType::I32, "i32", "int32", "int"},
    {DType::I64, "i64", "int64", "long"},
    {DType::F16, "f16", "float16", "half"},
    {DType::BF16, "bf16", "bfloat16", nullptr},
    {DType::F32, "f32", "float32", "float"},
    {DType::F64, "f64", "float64", "double"},
};
} // namespace

bool parseDTypeAbbreviation(std::string_view Text, DType &Out) {
  if (Text == "bool")
    return Out = DType::Bool, true;
  for (const DTypeNames &N : Names)
    if (Text == N.Abbreviation)
      return Out = N.D, true;
  return false;
}

bool parseTorchDType(std::string_view Name, DType &Out) {
  for (const DTypeNames &N : Names)
    if (Name == N.Torch || (N.Alias && Name == N.Alias))
      return Out = N.D, true;
  return false;
}

const char *abbreviation(DType D) {
  for (const DTypeNames &N : Names)
    if (N.D == D)
      return N.Abbreviation;
  return "?";
}

ir::Type irType(DType D) {
  switch (D) {
  case DType::Bool:
    return ir::Type::boolean();
  case DType::U8:
  case DType::I8:
    return ir::Type::i(8);
  case DType::I16:
    return ir::Type::i(16);
  case DType::I32:
    return ir::Type::i(32);
  case DType::I64:
    return ir::Type::i(64);
  case DType::F16:
    return ir::Type::f16();
  case DType::BF16:
    return ir::Type::bf16();
  case DType::F32:
    return ir::Type::f32();
  case DType::F64:
    return ir::Type::f64();
  }
  return ir::Type::f32();
}

bool isFloating(DType D) {
  return D == DType::F16 || D == DType::BF16 || D == DType::F32 ||
         D == DType::F64;
}

bool isIntegral(DType D) { return !isFloating(D) && D != DType::Bool; }

bool isSigned(DType D) { return D != DType::Bool && D != DType::U8; }

DType opmath(DType D) {
  return D == DType::F16 || D == DType::BF16 ? DType::F32 : D;
}

Category category(DType D) {
  if (D == DType::Bool)
    return Category::Bool;
  return isFloating(D) ? Category::Floating : Category::Integer;
}

static unsigned intRank(DType D) {
  switch (D) {
  case DType::I8:
  case DType::U8:
    return 8;
  case DType::I16:
    return 16;
  case DType::I32:
    return 32;
  default:
    return 64;
  }
}

DType promote(DType A, DType B) {
  if (A == B)
    return A;
  if (A == DType::Bool)
    return B;
  if (B == DType::Bool)
    return A;
  if (isFloating(A) != isFloating(B))
    return isFloating(A) ? A : B;
  if (isFloating(A)) {
    if (A == DType::F64 || B == DType::F64)
      return DType::F64;
    return DType::F32; // f16+bf16, or either with f32
  }
  // Both integers, different: u8 with i8 widens to i16; otherwise the wider.
  if ((A == DType::U8 && B == DType::I8) || (A == DType::I8 && B == DType::U8))
    return DType::I16;
  return intRank(A) >= intRank(B) ? (A == DType::U8 ? B : A)
                                  : (B == DType::U8 ? A : B);
}

DType defaultDType(Category C) {
  switch (C) {
  case Category::Bool:
    return DType::Bool;
  case Category::Integer:
    return DType::I64;
  case Category::Floating:
    return DType::F32;
  }
  return DType::F32;
}

DType resultType(const PromotionOperand *Begin, const PromotionOperand *End) {
  assert(Begin != End && "result_type of no operands");
  using Rank = PromotionOperand::Rank;
  // The promoted dtype of each rank group, if any operand has that rank.
  bool Has[3] = {false, false, false};
  DType Group[3] = {DType::Bool, DType::Bool, DType::Bool};
  for (const PromotionOperand *O = Begin; O != End; ++O) {
    unsigned R = unsigned(O->R);
    DType D = O->D;
    if (O->R == Rank::Scalar) // Python scalars count by category only
      D = category(D) == Category::Floating  ? DType::F64
          : category(D) == Category::Integer ? DType::I64
                                             : DType::Bool;
    Group[R] = Has[R] ? promote(Group[R], D) : D;
    Has[R] = true;
  }
  // Walk from the highest rank down; a lower rank only raises the category.
  bool Have = false;
  DType Result = DType::Bool;
  for (int R = int(Rank::Dimensioned); R >= 0; --R) {
    if (!Has[R])
      continue;
    DType D = Group[R];
    if (!Have) {
      Result = R == int(Rank::Scalar) ? defaultDType(category(D)) : D;
      if (R == int(Rank::Scalar) && D == DType::F64)
        Result = DType::F32;
      Have = true;
      continue;
    }
    if (category(D) > category(Result))
      Result = R == int(Rank::Scalar) ? defaultDType(category(D)) : D;
  }
  return Result;
}

} // namespace stagecheck::fx

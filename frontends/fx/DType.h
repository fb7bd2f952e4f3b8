//===- DType.h - torch dtypes and their promotion rules ---------*- C++ -*-===//
//
// The element types a reference graph uses, their IR types, and PyTorch's
// type promotion (torch._prims_common.elementwise_dtypes, c10's promoteTypes
// table): dimensioned tensors outrank zero-dimensional ones, which outrank
// Python scalars; a lower-ranked operand only decides when its category
// (bool < integer < floating) is higher.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_FX_DTYPE_H
#define STAGECHECK_FRONTENDS_FX_DTYPE_H

#include "ir/Type.h"

#include <string>
#include <string_view>

namespace stagecheck::fx {

enum class DType { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64 };

/// "f32", "b8"... as FX annotations write them; "bool" too (manifests).
bool parseDTypeAbbreviation(std::string_view Text, DType &Out);
/// "float16", "int64", "bool"... the attribute after "torch.".
bool parseTorchDType(std::string_view Name, DType &Out);
const char *abbreviation(DType D); // "f32", "b8"

ir::Type irType(DType D);
bool isFloating(DType D);
bool isIntegral(DType D); // bool excluded
bool isSigned(DType D);   // signed integers and floats
/// The type arithmetic of D is carried out in on CUDA (at::opmath_type):
/// f16 and bf16 compute in f32.
DType opmath(DType D);

/// The category a Python scalar or tensor belongs to.
enum class Category { Bool, Integer, Floating };
Category category(DType D);

/// c10::promoteTypes.
DType promote(DType A, DType B);

/// The default dtypes of Python scalars: float -> f32 (torch's default
/// dtype), int -> i64, bool -> bool.
DType defaultDType(Category C);

/// One operand of an elementwise op, for result_type.
struct PromotionOperand {
  enum class Rank { Scalar, ZeroDim, Dimensioned } R;
  DType D; // for scalars: i64 for int, f64 for float, bool
};

/// torch.result_type over operands.
DType resultType(const PromotionOperand *Begin, const PromotionOperand *End);

} // namespace stagecheck::fx

#endif

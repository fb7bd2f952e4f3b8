//===- AtenPointwise.cpp - Elementwise ops of the aten table --------------===//
//
// Arithmetic, comparisons, where, activations and casts. Each op computes in
// at::opmath_type of its result dtype and rounds once (pointwise()); its
// formula is PyTorch's decomposition where one exists (torch/_decomp,
// torch/_refs), else the CUDA kernel's arithmetic.
//
//===----------------------------------------------------------------------===//
#include "frontends/fx/AtenTable.h"

#include "ir/Value.h"

#include <cmath>

using namespace stagecheck::ir;

namespace stagecheck::fx {

namespace {

using Args = std::span<const Expr *const>;

//===-- Type-generic scalar arithmetic
//-------------------------------------===//

const Expr *addOf(Context &C, DType D, const Expr *A, const Expr *B) {
  if (isFloating(D))
    return C.floatBinary(Op::FAdd, A, B);
  return D == DType::Bool ? C.orOf(A, B) : C.add(A, B);
}

const Expr *subOf(Context &C, DType D, const Expr *A, const Expr *B) {
  return isFloating(D) ? C.floatBinary(Op::FSub, A, B) : C.sub(A, B);
}

const Expr *mulOf(Context &C, DType D, const Expr *A, const Expr *B) {
  if (isFloating(D))
    return C.floatBinary(Op::FMul, A, B);
  return D == DType::Bool ? C.andOf(A, B) : C.mul(A, B);
}

const Expr *divOf(Context &C, const Expr *A, const Expr *B) {
  return C.floatBinary(Op::FDiv, A, B);
}

const Expr *k(Context &C, DType D, double V) { return constantOf(C, D, V); }

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

/// Comparison in dtype D: ordered for floats (NaN compares false) except
/// !=, which is true for NaN.
const Expr *compare(Context &C, DType D, Cmp P, const Expr *A, const Expr *B) {
  if (isFloating(D)) {
    static const FCmpPredicate F[] = {FCmpPredicate::Oeq, FCmpPredicate::Une,
                                      FCmpPredicate::Olt, FCmpPredicate::Ole,
                                      FCmpPredicate::Ogt, FCmpPredicate::Oge};
    return C.fcmp(F[int(P)], A, B);
  }
  bool S = isSigned(D) && D != DType::Bool;
  static const ICmpPredicate Signed[] = {
      ICmpPredicate::Eq,  ICmpPredicate::Ne,  ICmpPredicate::Slt,
      ICmpPredicate::Sle, ICmpPredicate::Sgt, ICmpPredicate::Sge};
  static const ICmpPredicate Unsigned[] = {
      ICmpPredicate::Eq,  ICmpPredicate::Ne,  ICmpPredicate::Ult,
      ICmpPredicate::Ule, ICmpPredicate::Ugt, ICmpPredicate::Uge};
  return C.icmp(S ? Signed[int(P)] : Unsigned[int(P)], A, B);
}

const Expr *isNaN(Context &C, const Expr *X) {
  return C.fcmp(FCmpPredicate::Uno, X, X);
}

const Expr *isZero(Context &C, DType D, const Expr *X) {
  return compare(C, D, Cmp::Eq, X, k(C, D, 0));
}

/// (a < 0) != (b < 0), c10::signs_differ.
const Expr *signsDiffer(Context &C, DType D, const Expr *A, const Expr *B) {
  return C.xorOf(compare(C, D, Cmp::Lt, A, k(C, D, 0)),
                 compare(C, D, Cmp::Lt, B, k(C, D, 0)));
}

bool isConstant(const Scalar &S, double V) {
  if (!S.E->isConst())
    return false;
  if (S.Cat == Category::Floating)
    return Value::ofBits(S.E->type(), S.E->constBits()).asDouble() == V;
  return double(int64_t(S.E->constBits())) == V;
}

Operand tensorOperand(const Tensor &T) {
  Operand O;
  O.T = T;
  return O;
}

//===-- Arithmetic
//---------------------------------------------------------===//

/// add(self, other, alpha=1) = self + alpha * other.
OpResult atenAdd(const OpCall &Op) {
  std::optional<Scalar> Alpha = Op.optionalScalar(2, "alpha");
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::Default,
                   [Alpha](const OpCall &Op, Args A, DType D) {
                     const Expr *B = A[1];
                     if (Alpha && !isConstant(*Alpha, 1))
                       B = mulOf(Op.C, D, scalarAs(Op, *Alpha, D), B);
                     return addOf(Op.C, D, A[0], B);
                   });
}

/// sub(self, other, alpha=1) = self - alpha * other.
OpResult atenSub(const OpCall &Op) {
  std::optional<Scalar> Alpha = Op.optionalScalar(2, "alpha");
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::Default,
                   [Alpha](const OpCall &Op, Args A, DType D) {
                     if (D == DType::Bool)
                       Op.invalid("subtraction of bool tensors");
                     const Expr *B = A[1];
                     if (Alpha && !isConstant(*Alpha, 1))
                       B = mulOf(Op.C, D, scalarAs(Op, *Alpha, D), B);
                     return subOf(Op.C, D, A[0], B);
                   });
}

/// rsub(self, other, alpha=1) = other - alpha * self.
OpResult atenRsub(const OpCall &Op) {
  std::optional<Scalar> Alpha = Op.optionalScalar(2, "alpha");
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::Default,
                   [Alpha](const OpCall &Op, Args A, DType D) {
                     const Expr *B = A[0];
                     if (Alpha && !isConstant(*Alpha, 1))
                       B = mulOf(Op.C, D, scalarAs(Op, *Alpha, D), B);
                     return subOf(Op.C, D, A[1], B);
                   });
}

OpResult atenMul(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::Default, [](const OpCall &Op, Args A, DType D) {
                     return mulOf(Op.C, D, A[0], A[1]);
                   });
}

/// Integer a / b truncating toward zero; undefined for b == 0 and for
/// INT_MIN / -1, as in C++.
const Expr *intDivTrunc(const OpCall &Op, DType D, const Expr *A,
                        const Expr *B) {
  Context &C = Op.C;
  Op.undefinedWhen(isZero(C, D, B), "integer division by zero");
  if (isSigned(D)) {
    Type T = irType(D);
    const Expr *Min = C.constant(T, uint64_t(1) << (T.bits() - 1));
    Op.undefinedWhen(C.andOf(C.eq(A, Min), C.eq(B, C.intConst(T, -1))),
                     "integer division overflow");
    return C.binary(Op::SDiv, A, B);
  }
  return C.binary(Op::UDiv, A, B);
}

const Expr *intRem(const OpCall &Op, DType D, const Expr *A, const Expr *B) {
  Context &C = Op.C;
  Op.undefinedWhen(isZero(C, D, B), "integer remainder by zero");
  return C.binary(isSigned(D) ? Op::SRem : Op::URem, A, B);
}

/// c10::div_floor_integer.
const Expr *intDivFloor(const OpCall &Op, DType D, const Expr *A,
                        const Expr *B) {
  Context &C = Op.C;
  const Expr *Q = intDivTrunc(Op, D, A, B);
  if (!isSigned(D))
    return Q;
  const Expr *R = C.binary(Op::SRem, A, B);
  const Expr *Adjust =
      C.andOf(signsDiffer(C, D, A, B), C.notOf(isZero(C, D, R)));
  return C.select(Adjust, C.sub(Q, C.intConst(Q->type(), 1)), Q);
}

/// c10::div_floor_floating: floor(a / b) computed through fmod so that it
/// is exact, as torch's CUDA kernel does.
const Expr *floatDivFloor(Context &C, DType D, const Expr *A, const Expr *B) {
  const Expr *Zero = k(C, D, 0), *One = k(C, D, 1), *Half = k(C, D, 0.5);
  const Expr *Mod = callFn(C, "fmod", A, B);
  const Expr *Div = divOf(C, C.floatBinary(Op::FSub, A, Mod), B);
  const Expr *Adjust =
      C.andOf(C.fcmp(FCmpPredicate::Une, Mod, Zero), signsDiffer(C, D, B, Mod));
  Div = C.select(Adjust, C.floatBinary(Op::FSub, Div, One), Div);
  const Expr *Floor =
      C.cast(Op::FRoundInt, Div, Div->type(), RoundingMode::Down);
  const Expr *Rounded = C.select(
      C.fcmp(FCmpPredicate::Ogt, C.floatBinary(Op::FSub, Div, Floor), Half),
      C.floatBinary(Op::FAdd, Floor, One), Floor);
  const Expr *SignedZero = C.binary(Op::FCopySign, Zero, divOf(C, A, B));
  const Expr *NonZero =
      C.select(C.fcmp(FCmpPredicate::Une, Div, Zero), Rounded, SignedZero);
  return C.select(C.fcmp(FCmpPredicate::Oeq, B, Zero), divOf(C, A, B), NonZero);
}

/// div.Tensor (true division), div.Tensor_mode (rounding_mode None, 'trunc'
/// or 'floor'), true_divide, floor_divide.
OpResult atenDiv(const OpCall &Op) {
  std::optional<std::string> Mode = Op.string(2, "rounding_mode");
  if (Op.op() == "aten.floor_divide")
    Mode = "floor";
  std::vector<Operand> Ops = {Op.operand(0, "self"), Op.operand(1, "other")};
  if (!Mode)
    return pointwise(Op, Ops, Promotion::IntToFloat,
                     [](const OpCall &Op, Args A, DType) {
                       return divOf(Op.C, A[0], A[1]);
                     });
  if (*Mode != "trunc" && *Mode != "floor")
    Op.invalid("rounding_mode must be None, 'trunc' or 'floor', not '" + *Mode +
               "'");
  bool Floor = *Mode == "floor";
  return pointwise(Op, Ops, Promotion::Default,
                   [Floor](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     if (D == DType::Bool)
                       Op.unsupported("division of bool tensors");
                     if (!isFloating(D))
                       return Floor ? intDivFloor(Op, D, A[0], A[1])
                                    : intDivTrunc(Op, D, A[0], A[1]);
                     if (Floor)
                       return floatDivFloor(C, D, A[0], A[1]);
                     return C.cast(Op::FRoundInt, divOf(C, A[0], A[1]),
                                   A[0]->type(), RoundingMode::TowardZero);
                   });
}

/// remainder: Python's modulus (the sign of the divisor).
OpResult atenRemainder(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::Default, [](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     const Expr *R = isFloating(D)
                                         ? callFn(C, "fmod", A[0], A[1])
                                         : intRem(Op, D, A[0], A[1]);
                     const Expr *Adjust = C.andOf(C.notOf(isZero(C, D, R)),
                                                  signsDiffer(C, D, R, A[1]));
                     return C.select(Adjust, addOf(C, D, R, A[1]), R);
                   });
}

/// fmod: C's remainder (the sign of the dividend).
OpResult atenFmod(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::Default, [](const OpCall &Op, Args A, DType D) {
                     return isFloating(D) ? callFn(Op.C, "fmod", A[0], A[1])
                                          : intRem(Op, D, A[0], A[1]);
                   });
}

OpResult atenNeg(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     if (D == DType::Bool)
                       Op.invalid("negation of a bool tensor");
                     return isFloating(D) ? Op.C.unary(Op::FNeg, A[0])
                                          : Op.C.unary(Op::Neg, A[0]);
                   });
}

OpResult atenAbs(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     if (D == DType::Bool || D == DType::U8)
                       return A[0];
                     return isFloating(D) ? Op.C.unary(Op::FAbs, A[0])
                                          : Op.C.unary(Op::Abs, A[0]);
                   });
}

/// sign(a) = (0 < a) - (a < 0) as the CUDA kernel computes it: +0 for -0
/// and for NaN.
OpResult atenSign(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     if (D == DType::Bool)
                       return A[0];
                     const Expr *Pos = compare(C, D, Cmp::Gt, A[0], k(C, D, 0));
                     const Expr *Neg = compare(C, D, Cmp::Lt, A[0], k(C, D, 0));
                     return C.select(Pos, k(C, D, 1),
                                     C.select(Neg, k(C, D, -1), k(C, D, 0)));
                   });
}

OpResult atenReciprocal(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::IntToFloat,
                   [](const OpCall &Op, Args A, DType D) {
                     return divOf(Op.C, k(Op.C, D, 1), A[0]);
                   });
}

OpResult atenSqrt(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::IntToFloat,
                   [](const OpCall &Op, Args A, DType) {
                     return Op.C.unary(Op::FSqrt, A[0]);
                   });
}

/// The IR function an aten transcendental is.
const char *transcendentalName(const std::string &AtenOp) {
  static const std::pair<const char *, const char *> Names[] = {
      {"aten.exp", "exp"},     {"aten.exp2", "exp2"},   {"aten.expm1", "expm1"},
      {"aten.log", "log"},     {"aten.log2", "log2"},   {"aten.log10", "log10"},
      {"aten.log1p", "log1p"}, {"aten.sin", "sin"},     {"aten.cos", "cos"},
      {"aten.tan", "tan"},     {"aten.asin", "asin"},   {"aten.acos", "acos"},
      {"aten.atan", "atan"},   {"aten.sinh", "sinh"},   {"aten.cosh", "cosh"},
      {"aten.tanh", "tanh"},   {"aten.asinh", "asinh"}, {"aten.acosh", "acosh"},
      {"aten.atanh", "atanh"}, {"aten.erf", "erf"},     {"aten.erfc", "erfc"},
      {"aten.rsqrt", "rsqrt"},
  };
  for (const auto &[A, F] : Names)
    if (AtenOp == A)
      return F;
  return nullptr;
}

/// exp, log, tanh, erf, rsqrt...: calls of the IR's named functions.
OpResult atenTranscendental(const OpCall &Op) {
  const char *Fn = transcendentalName(Op.op());
  if (!Fn)
    Op.unsupported("no IR function for it");
  return pointwise(
      Op, {Op.operand(0, "self")}, Promotion::IntToFloat,
      [Fn](const OpCall &Op, Args A, DType) { return callFn(Op.C, Fn, A[0]); });
}

/// sigmoid(x) = 1 / (1 + exp(-x)).
const Expr *sigmoidOf(Context &C, DType D, const Expr *X) {
  const Expr *E = callFn(C, "exp", C.unary(Op::FNeg, X));
  return divOf(C, k(C, D, 1), C.floatBinary(Op::FAdd, k(C, D, 1), E));
}

OpResult atenSigmoid(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::IntToFloat,
                   [](const OpCall &Op, Args A, DType D) {
                     return sigmoidOf(Op.C, D, A[0]);
                   });
}

OpResult atenAtan2(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::IntToFloat, [](const OpCall &Op, Args A, DType) {
                     return callFn(Op.C, "atan2", A[0], A[1]);
                   });
}

/// x ** n for an integer n >= 0 by repeated multiplication (integer pow).
const Expr *powInt(Context &C, DType D, const Expr *X, int64_t N) {
  const Expr *R = k(C, D, 1);
  for (int64_t I = 0; I < N; ++I)
    R = I == 0 ? X : mulOf(C, D, R, X);
  return R;
}

/// pow: the CUDA kernel's special cases for a scalar exponent (2 -> x*x,
/// 3 -> x*x*x, 0.5 -> sqrt, -0.5 -> rsqrt, -1 -> 1/x, -2 -> 1/(x*x)),
/// otherwise the pow function.
OpResult atenPow(const OpCall &Op) {
  Operand Base = Op.operand(0, "self");
  Operand Exponent = Op.operand(1, "exponent");
  if (!Base.isTensor()) // pow.Scalar: a number to tensor powers
    return pointwise(Op, {Base, Exponent}, Promotion::Default,
                     [](const OpCall &Op, Args A, DType D) {
                       if (!isFloating(D))
                         Op.unsupported("integer pow with a tensor exponent");
                       return callFn(Op.C, "pow", A[0], A[1]);
                     });
  if (Exponent.isTensor())
    return pointwise(Op, {Base, Exponent}, Promotion::Default,
                     [](const OpCall &Op, Args A, DType D) {
                       if (!isFloating(D))
                         Op.unsupported("integer pow with a tensor exponent");
                       return callFn(Op.C, "pow", A[0], A[1]);
                     });
  Scalar E = Exponent.S;
  return pointwise(Op, {Base, Exponent}, Promotion::Default,
                   [E](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     const Expr *X = A[0];
                     if (!isFloating(D)) {
                       if (!E.E->isConst())
                         Op.unsupported("integer pow with a symbolic exponent");
                       int64_t N = int64_t(E.E->constBits());
                       if (E.Cat != Category::Integer || N < 0)
                         Op.unsupported("integer pow with a negative or "
                                        "fractional exponent");
                       return powInt(C, D, X, N);
                     }
                     const Expr *One = k(C, D, 1);
                     if (isConstant(E, 2))
                       return mulOf(C, D, X, X);
                     if (isConstant(E, 3))
                       return mulOf(C, D, mulOf(C, D, X, X), X);
                     if (isConstant(E, 0.5))
                       return C.unary(Op::FSqrt, X);
                     if (isConstant(E, -0.5))
                       return callFn(C, "rsqrt", X);
                     if (isConstant(E, -1))
                       return divOf(C, One, X);
                     if (isConstant(E, -2))
                       return divOf(C, One, mulOf(C, D, X, X));
                     return callFn(C, "pow", X, A[1]);
                   });
}

/// floor, ceil, round (half to even), trunc; identity on integers.
OpResult atenRound(const OpCall &Op) {
  std::string Name = Op.op();
  RoundingMode M = Name == "aten.floor"   ? RoundingMode::Down
                   : Name == "aten.ceil"  ? RoundingMode::Up
                   : Name == "aten.trunc" ? RoundingMode::TowardZero
                                          : RoundingMode::NearestEven;
  if (Name == "aten.round" && Op.integer(1, "decimals", 0) != 0)
    Op.unsupported("round with decimals");
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [M](const OpCall &Op, Args A, DType D) {
                     if (!isFloating(D))
                       return A[0];
                     return Op.C.cast(Op::FRoundInt, A[0], A[0]->type(), M);
                   });
}

//===-- Comparisons, logic, where -----------------------------------------===//

OpResult atenCompare(const OpCall &Op) {
  std::string Name = Op.op();
  Cmp P = Name == "aten.eq"   ? Cmp::Eq
          : Name == "aten.ne" ? Cmp::Ne
          : Name == "aten.lt" ? Cmp::Lt
          : Name == "aten.le" ? Cmp::Le
          : Name == "aten.gt" ? Cmp::Gt
                              : Cmp::Ge;
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::AlwaysBool,
                   [P](const OpCall &Op, Args A, DType D) {
                     return compare(Op.C, D, P, A[0], A[1]);
                   });
}

OpResult atenIsNaN(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::AlwaysBool,
                   [](const OpCall &Op, Args A, DType D) {
                     return isFloating(D) ? isNaN(Op.C, A[0])
                                          : Op.C.falseExpr();
                   });
}

OpResult atenIsInf(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::AlwaysBool,
                   [](const OpCall &Op, Args A, DType D) {
                     if (!isFloating(D))
                       return Op.C.falseExpr();
                     const Expr *Abs = Op.C.unary(Op::FAbs, A[0]);
                     return Op.C.fcmp(FCmpPredicate::Oeq, Abs,
                                      k(Op.C, D, INFINITY));
                   });
}

OpResult atenIsFinite(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::AlwaysBool,
                   [](const OpCall &Op, Args A, DType D) {
                     if (!isFloating(D))
                       return Op.C.trueExpr();
                     const Expr *Abs = Op.C.unary(Op::FAbs, A[0]);
                     return Op.C.fcmp(FCmpPredicate::Olt, Abs,
                                      k(Op.C, D, INFINITY));
                   });
}

/// logical_and/or/xor/not: operands as truth values, a bool result.
OpResult atenLogical(const OpCall &Op) {
  std::string Name = Op.op();
  std::vector<Operand> Ops = {Op.operand(0, "self")};
  if (Name != "aten.logical_not")
    Ops.push_back(Op.operand(1, "other"));
  // Each operand is converted to bool on its own, before any promotion.
  std::vector<Operand> Bools;
  for (const Operand &O : Ops) {
    if (!O.isTensor()) {
      Bools.push_back(O);
      continue;
    }
    Tensor T = *O.T;
    OpCall Copy = Op;
    Bools.push_back(
        tensorOperand(Tensor(DType::Bool, T.shape(), [Copy, T](const Index &I) {
          return convert(Copy, T.at(I), T.dtype(), DType::Bool);
        })));
  }
  return pointwise(Op, Bools, Promotion::AlwaysBool,
                   [Name](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     const Expr *X = convert(Op, A[0], D, DType::Bool);
                     if (Name == "aten.logical_not")
                       return C.notOf(X);
                     const Expr *Y = convert(Op, A[1], D, DType::Bool);
                     if (Name == "aten.logical_and")
                       return C.andOf(X, Y);
                     if (Name == "aten.logical_or")
                       return C.orOf(X, Y);
                     return C.xorOf(X, Y);
                   });
}

/// bitwise_and/or/xor/not on integers and bools.
OpResult atenBitwise(const OpCall &Op) {
  std::string Name = Op.op();
  std::vector<Operand> Ops = {Op.operand(0, "self")};
  if (Name != "aten.bitwise_not")
    Ops.push_back(Op.operand(1, "other"));
  return pointwise(Op, Ops, Promotion::Default,
                   [Name](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     if (isFloating(D))
                       Op.invalid("bitwise op on floating-point tensors");
                     if (Name == "aten.bitwise_not")
                       return C.notOf(A[0]);
                     if (Name == "aten.bitwise_and")
                       return C.andOf(A[0], A[1]);
                     if (Name == "aten.bitwise_or")
                       return C.orOf(A[0], A[1]);
                     return C.xorOf(A[0], A[1]);
                   });
}

/// a << b and a >> b (also __lshift__, __rshift__): CUDA's kernels give 0
/// (and an arithmetic right shift the sign) for an amount that is negative
/// or at least the width, which is what the IR's total shifts give when the
/// amount is read unsigned.
OpResult atenShift(const OpCall &Op) {
  bool Left = Op.op() == "aten.__lshift__" || Op.op() == "aten.bitwise_left_shift";
  return pointwise(Op, {Op.operand(0, "self"), Op.operand(1, "other")},
                   Promotion::Default, [Left](const OpCall &Op, Args A, DType D) {
                     if (isFloating(D) || D == DType::Bool)
                       Op.invalid("shift of a floating-point or bool tensor");
                     ir::Op O = Left ? ir::Op::Shl
                                     : isSigned(D) ? ir::Op::AShr : ir::Op::LShr;
                     return Op.C.binary(O, A[0], A[1]);
                   });
}

/// where(condition, self, other): self and other promote together; the
/// condition takes no part in promotion.
OpResult atenWhere(const OpCall &Op) {
  Tensor Cond = Op.tensor(0, "condition");
  if (Cond.dtype() != DType::Bool && Cond.dtype() != DType::U8)
    Op.invalid("where needs a bool condition");
  Operand Self = Op.operand(1, "self"), Other = Op.operand(2, "other");
  DType Result, Compute;
  promotedTypes(Op, {Self, Other}, Promotion::NoOpmath, Result, Compute);
  // Promote with a stand-in operand of the result dtype so that the
  // condition's broadcast shape joins without changing the dtype.
  OpCall Copy = Op;
  Tensor CondBool(DType::Bool, Cond.shape(), [Copy, Cond](const Index &I) {
    return convert(Copy, Cond.at(I), Cond.dtype(), DType::Bool);
  });
  std::vector<Shape> Shapes = {Cond.shape()};
  for (const Operand *O : {&Self, &Other})
    if (O->isTensor())
      Shapes.push_back(O->T->shape());
  Shape Out = broadcastShapes(Op, Shapes);
  return Tensor(
      Result, Out, [Copy, CondBool, Self, Other, Out, Result](const Index &I) {
        auto Arm = [&](const Operand &O) {
          if (!O.isTensor())
            return scalarAs(Copy, O.S, Result);
          return convert(Copy,
                         O.T->at(broadcastIndex(Copy.C, I, Out, O.T->shape())),
                         O.T->dtype(), Result);
        };
        const Expr *C =
            CondBool.at(broadcastIndex(Copy.C, I, Out, CondBool.shape()));
        return Copy.C.select(C, Arm(Self), Arm(Other));
      });
}

/// masked_fill(self, mask, value): where(mask, value, self) in self's dtype.
OpResult atenMaskedFill(const OpCall &Op) {
  Tensor Self = Op.tensor(0, "self"), Mask = Op.tensor(1, "mask");
  Operand Value = Op.operand(2, "value");
  if (Value.isTensor() && Value.T->rank() != 0)
    Op.invalid("masked_fill takes a 0-dim value tensor");
  Shape Out = broadcastShapes(Op, {Self.shape(), Mask.shape()});
  if (Out != Self.shape())
    Op.invalid("mask does not broadcast to self");
  OpCall Copy = Op;
  return Tensor(
      Self.dtype(), Out, [Copy, Self, Mask, Value, Out](const Index &I) {
        const Expr *Fill =
            Value.isTensor()
                ? convert(Copy, Value.T->at({}), Value.T->dtype(), Self.dtype())
                : scalarAs(Copy, Value.S, Self.dtype());
        const Expr *M =
            convert(Copy, Mask.at(broadcastIndex(Copy.C, I, Out, Mask.shape())),
                    Mask.dtype(), DType::Bool);
        return Copy.C.select(M, Fill, Self.at(I));
      });
}

//===-- Min, max, clamp
//----------------------------------------------------===//

/// maximum/minimum propagate NaN; fmax/fmin ignore it.
OpResult atenMinMax(const OpCall &Op) {
  std::string Name = Op.op();
  bool IsMax = Name == "aten.maximum" || Name == "aten.fmax" ||
               (Name == "aten.max" && Op.overload() == "other");
  bool IgnoresNaN = Name == "aten.fmax" || Name == "aten.fmin";
  return pointwise(
      Op, {Op.operand(0, "self"), Op.operand(1, "other")}, Promotion::NoOpmath,
      [IsMax, IgnoresNaN](const OpCall &Op, Args A, DType D) {
        Context &C = Op.C;
        if (isFloating(D))
          return C.binary(IsMax ? (IgnoresNaN ? Op::FMaxNum : Op::FMaximum)
                                : (IgnoresNaN ? Op::FMinNum : Op::FMinimum),
                          A[0], A[1]);
        bool S = isSigned(D) && D != DType::Bool;
        return C.binary(IsMax ? (S ? Op::SMax : Op::UMax)
                              : (S ? Op::SMin : Op::UMin),
                        A[0], A[1]);
      });
}

/// _refs.clamp: a = where(a >= min | isnan(a), a, min), then
/// where(a <= max | isnan(a), a, max). A NaN input stays NaN.
const Expr *clampOf(Context &C, DType D, const Expr *X, const Expr *Lo,
                    const Expr *Hi) {
  if (Lo) {
    const Expr *Keep = compare(C, D, Cmp::Ge, X, Lo);
    if (isFloating(D))
      Keep = C.orOf(Keep, isNaN(C, X));
    X = C.select(Keep, X, Lo);
  }
  if (Hi) {
    const Expr *Keep = compare(C, D, Cmp::Le, X, Hi);
    if (isFloating(D))
      Keep = C.orOf(Keep, isNaN(C, X));
    X = C.select(Keep, X, Hi);
  }
  return X;
}

/// The CUDA clamp kernel (clamp_min, clamp_max, hardtanh's kernel): NaN
/// stays NaN, else min(max(a, lo), hi) with fmaxf/fminf, which order -0
/// below +0.
const Expr *clampKernelOf(Context &C, DType D, const Expr *X, const Expr *Lo,
                          const Expr *Hi) {
  if (!isFloating(D))
    return clampOf(C, D, X, Lo, Hi);
  const Expr *R = X;
  if (Lo)
    R = C.binary(Op::FMaxNum, R, Lo);
  if (Hi)
    R = C.binary(Op::FMinNum, R, Hi);
  return C.select(isNaN(C, X), X, R);
}

/// clamp(self, min, max) as _refs.clamp; clamp_min and clamp_max, which
/// have no decomposition, as the CUDA kernel. The bounds may be numbers or
/// tensors (clamp.Tensor) and take part in promotion.
OpResult atenClamp(const OpCall &Op) {
  std::string Name = Op.op();
  std::vector<Operand> Ops = {Op.operand(0, "self")};
  bool HasLo = false, HasHi = false;
  bool Kernel = Name != "aten.clamp";
  if (Name == "aten.clamp_min") {
    Ops.push_back(Op.operand(1, "min"));
    HasLo = true;
  } else if (Name == "aten.clamp_max") {
    Ops.push_back(Op.operand(1, "max"));
    HasHi = true;
  } else {
    if (Op.has(1, "min")) {
      Ops.push_back(Op.operand(1, "min"));
      HasLo = true;
    }
    if (Op.has(2, "max")) {
      Ops.push_back(Op.operand(2, "max"));
      HasHi = true;
    }
    if (!HasLo && !HasHi)
      Op.invalid("clamp needs at least one of min and max");
  }
  return pointwise(Op, Ops, Promotion::Default,
                   [HasLo, HasHi, Kernel](const OpCall &Op, Args A, DType D) {
                     const Expr *Lo = HasLo ? A[1] : nullptr;
                     const Expr *Hi = HasHi ? A[HasLo ? 2 : 1] : nullptr;
                     return Kernel ? clampKernelOf(Op.C, D, A[0], Lo, Hi)
                                   : clampOf(Op.C, D, A[0], Lo, Hi);
                   });
}

//===-- Activations -------------------------------------------------------===//

/// relu(a) = where(a <= 0, 0, a).
OpResult atenRelu(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     return C.select(compare(C, D, Cmp::Le, A[0], k(C, D, 0)),
                                     k(C, D, 0), A[0]);
                   });
}

/// gelu: a * 0.5 * (1 + erf(a * M_SQRT1_2)), or with approximate='tanh'
/// 0.5 * a * (1 + tanh(kBeta * (a + 0.044715 * a^3))).
OpResult atenGelu(const OpCall &Op) {
  std::string Approximate = Op.string(1, "approximate").value_or("none");
  if (Approximate != "none" && Approximate != "tanh")
    Op.invalid("approximate must be 'none' or 'tanh'");
  bool Tanh = Approximate == "tanh";
  return pointwise(
      Op, {Op.operand(0, "self")}, Promotion::Default,
      [Tanh](const OpCall &Op, Args A, DType D) {
        Context &C = Op.C;
        const Expr *X = A[0];
        const double Sqrt2 = 1.41421356237309504880;
        const double Sqrt1_2 = 0.70710678118654752440;
        const double TwoOverSqrtPi = 1.12837916709551257390;
        if (!Tanh) {
          const Expr *Erf = callFn(C, "erf", mulOf(C, D, X, k(C, D, Sqrt1_2)));
          return mulOf(C, D, mulOf(C, D, X, k(C, D, 0.5)),
                       addOf(C, D, k(C, D, 1), Erf));
        }
        const Expr *Cube = mulOf(C, D, mulOf(C, D, X, X), X);
        const Expr *Inner =
            mulOf(C, D, k(C, D, Sqrt2 * TwoOverSqrtPi * 0.5),
                  addOf(C, D, X, mulOf(C, D, k(C, D, 0.044715), Cube)));
        return mulOf(C, D, mulOf(C, D, k(C, D, 0.5), X),
                     addOf(C, D, k(C, D, 1), callFn(C, "tanh", Inner)));
      });
}

/// silu(x) = x * sigmoid(x).
OpResult atenSilu(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     return mulOf(Op.C, D, A[0], sigmoidOf(Op.C, D, A[0]));
                   });
}

/// softplus(a, beta=1, threshold=20) =
/// where(a*beta > threshold, a, log1p(exp(a*beta)) / beta).
const Expr *softplusOf(const OpCall &Op, DType D, const Expr *X,
                       std::optional<Scalar> Beta, Scalar Threshold) {
  Context &C = Op.C;
  const Expr *Scaled = X;
  bool HasBeta = Beta && !isConstant(*Beta, 1);
  if (HasBeta)
    Scaled = mulOf(C, D, X, scalarAs(Op, *Beta, D));
  const Expr *R = callFn(C, "log1p", callFn(C, "exp", Scaled));
  if (HasBeta)
    R = divOf(C, R, scalarAs(Op, *Beta, D));
  return C.select(compare(C, D, Cmp::Gt, Scaled, scalarAs(Op, Threshold, D)), X,
                  R);
}

OpResult atenSoftplus(const OpCall &Op) {
  std::optional<Scalar> Beta = Op.optionalScalar(1, "beta");
  std::optional<Scalar> Threshold = Op.optionalScalar(2, "threshold");
  Scalar T = Threshold ? *Threshold : Scalar{i64(Op.C, 20), Category::Integer};
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [Beta, T](const OpCall &Op, Args A, DType D) {
                     return softplusOf(Op, D, A[0], Beta, T);
                   });
}

/// mish(a) = a * tanh(softplus(a)).
OpResult atenMish(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     Scalar T{i64(Op.C, 20), Category::Integer};
                     const Expr *SP = softplusOf(Op, D, A[0], std::nullopt, T);
                     return mulOf(Op.C, D, A[0], callFn(Op.C, "tanh", SP));
                   });
}

/// elu(self, alpha=1, scale=1, input_scale=1) =
/// where(self > 0, self * scale, (exp(self * input_scale) - 1) * alpha*scale).
OpResult atenElu(const OpCall &Op) {
  auto Or1 = [&](unsigned Pos, const char *Name) {
    std::optional<Scalar> S = Op.optionalScalar(Pos, Name);
    return S ? *S
             : Scalar{Op.C.floatConst(Type::f64(), 1.0), Category::Floating};
  };
  Scalar Alpha = Or1(1, "alpha"), Scale = Or1(2, "scale"),
         InputScale = Or1(3, "input_scale");
  return pointwise(
      Op, {Op.operand(0, "self")}, Promotion::Default,
      [Alpha, Scale, InputScale](const OpCall &Op, Args A, DType D) {
        Context &C = Op.C;
        // negcoef = alpha * scale is Python arithmetic on the scalars.
        Scalar NegCoef{C.floatBinary(Op::FMul, scalarAs(Op, Alpha, DType::F64),
                                     scalarAs(Op, Scale, DType::F64)),
                       Category::Floating};
        const Expr *X = A[0];
        const Expr *Pos = mulOf(C, D, X, scalarAs(Op, Scale, D));
        const Expr *E =
            callFn(C, "exp", mulOf(C, D, X, scalarAs(Op, InputScale, D)));
        const Expr *Neg =
            mulOf(C, D, subOf(C, D, E, k(C, D, 1)), scalarAs(Op, NegCoef, D));
        return C.select(compare(C, D, Cmp::Gt, X, k(C, D, 0)), Pos, Neg);
      });
}

/// selu(a) = scale * where(a > 0, a, alpha * expm1(a)).
OpResult atenSelu(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     const double Alpha = 1.6732632423543772848170429916717;
                     const double Scale = 1.0507009873554804934193349852946;
                     const Expr *Rhs =
                         mulOf(C, D, k(C, D, Alpha), callFn(C, "expm1", A[0]));
                     const Expr *W = C.select(
                         compare(C, D, Cmp::Gt, A[0], k(C, D, 0)), A[0], Rhs);
                     return mulOf(C, D, k(C, D, Scale), W);
                   });
}

/// leaky_relu(a, negative_slope=0.01) = where(a > 0, a, a * negative_slope).
OpResult atenLeakyRelu(const OpCall &Op) {
  std::optional<Scalar> S = Op.optionalScalar(1, "negative_slope");
  Scalar Slope =
      S ? *S : Scalar{Op.C.floatConst(Type::f64(), 0.01), Category::Floating};
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [Slope](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     return C.select(compare(C, D, Cmp::Gt, A[0], k(C, D, 0)),
                                     A[0],
                                     mulOf(C, D, A[0], scalarAs(Op, Slope, D)));
                   });
}

/// hardtanh(a, min_val=-1, max_val=1) = clamp(a, min_val, max_val)
/// (_refs.hardtanh); relu6, which has no decomposition, is the CUDA
/// hardtanh kernel with bounds 0 and 6.
OpResult atenHardtanh(const OpCall &Op) {
  bool Relu6 = Op.op() == "aten.relu6";
  auto Bound = [&](unsigned Pos, const char *Name, double Default) {
    std::optional<Scalar> S =
        Relu6 ? std::nullopt : Op.optionalScalar(Pos, Name);
    return S ? *S : Scalar{i64(Op.C, int64_t(Default)), Category::Integer};
  };
  Scalar Lo = Bound(1, "min_val", Relu6 ? 0 : -1);
  Scalar Hi = Bound(2, "max_val", Relu6 ? 6 : 1);
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [Lo, Hi, Relu6](const OpCall &Op, Args A, DType D) {
                     if (D == DType::Bool)
                       Op.invalid("hardtanh of a bool tensor");
                     const Expr *L = scalarAs(Op, Lo, D);
                     const Expr *H = scalarAs(Op, Hi, D);
                     return Relu6 ? clampKernelOf(Op.C, D, A[0], L, H)
                                  : clampOf(Op.C, D, A[0], L, H);
                   });
}

/// hardsigmoid(a) = clamp(clamp(a + 3, min=0), max=6) / 6.
const Expr *hardsigmoidOf(Context &C, DType D, const Expr *X) {
  const Expr *R =
      clampOf(C, D, addOf(C, D, X, k(C, D, 3)), k(C, D, 0), nullptr);
  R = clampOf(C, D, R, nullptr, k(C, D, 6));
  return divOf(C, R, k(C, D, 6));
}

OpResult atenHardsigmoid(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     return hardsigmoidOf(Op.C, D, A[0]);
                   });
}

/// hardswish(a) = a * clamp(clamp(a + 3, min=0), max=6) / 6.
OpResult atenHardswish(const OpCall &Op) {
  return pointwise(Op, {Op.operand(0, "self")}, Promotion::Default,
                   [](const OpCall &Op, Args A, DType D) {
                     Context &C = Op.C;
                     const Expr *R =
                         clampOf(C, D, addOf(C, D, A[0], k(C, D, 3)),
                                 k(C, D, 0), nullptr);
                     R = clampOf(C, D, R, nullptr, k(C, D, 6));
                     return divOf(C, mulOf(C, D, A[0], R), k(C, D, 6));
                   });
}

//===-- Casts and constants -----------------------------------------------===//

/// prims.convert_element_type(a, dtype), _to_copy(a, dtype=...),
/// to.dtype(a, dtype).
OpResult atenConvert(const OpCall &Op) {
  Tensor T = Op.tensor(0, "self");
  std::optional<DType> To = Op.op() == "aten._to_copy" ? Op.dtype(~0u, "dtype")
                                                       : Op.dtype(1, "dtype");
  if (!To)
    return T;
  OpCall Copy = Op;
  DType From = T.dtype(), Target = *To;
  return Tensor(Target, T.shape(), [Copy, T, From, Target](const Index &I) {
    return convert(Copy, T.at(I), From, Target);
  });
}

/// clone, alias, lift_fresh_copy, detach: the same values.
OpResult atenIdentity(const OpCall &Op) { return Op.tensor(0, "self"); }

/// The dtype of a tensor made from a fill value and an optional dtype.
DType fillDType(const OpCall &Op, const Scalar &Fill, std::optional<DType> D) {
  return D ? *D : defaultDType(Fill.Cat);
}

Tensor filled(const OpCall &Op, DType D, const Shape &S, const Scalar &Fill) {
  OpCall Copy = Op;
  return Tensor(
      D, S, [Copy, D, Fill](const Index &) { return scalarAs(Copy, Fill, D); });
}

/// full(size, fill_value), full_like, zeros/ones(_like), scalar_tensor,
/// iota.
OpResult atenFull(const OpCall &Op) {
  std::string Name = Op.op();
  Context &C = Op.C;
  if (Name == "aten.full") {
    Scalar Fill = Op.scalar(1, "fill_value");
    Shape S = Op.integers(0, "size");
    return filled(Op, fillDType(Op, Fill, Op.dtype(~0u, "dtype")), S, Fill);
  }
  if (Name == "aten.scalar_tensor") {
    Scalar Fill = Op.scalar(0, "s");
    std::optional<DType> D = Op.dtype(~0u, "dtype");
    return filled(Op, D ? *D : DType::F32, {}, Fill);
  }
  if (Name == "prims.iota") { // iota(length, *, start, step, dtype, ...)
    int64_t Length = Op.integer(0, "length");
    int64_t Start = Op.integer(~0u, "start", 0), Step = Op.integer(~0u, "step", 1);
    std::optional<DType> D = Op.dtype(~0u, "dtype");
    if (!D || !isIntegral(*D))
      Op.invalid("prims.iota needs an integer dtype");
    if (Length < 0)
      Op.invalid("prims.iota of a negative length");
    OpCall Copy = Op;
    DType To = *D;
    return Tensor(To, {Length}, [Copy, Start, Step, To](const Index &I) {
      Context &C = Copy.C;
      const Expr *V = C.add(i64(C, Start), C.mul(I[0], i64(C, Step)));
      return convert(Copy, V, DType::I64, To);
    });
  }
  if (Name == "aten.zeros" || Name == "aten.ones") {
    Scalar Fill{i64(C, Name == "aten.ones"), Category::Integer};
    std::optional<DType> D = Op.dtype(~0u, "dtype");
    return filled(Op, D ? *D : DType::F32, Op.integers(0, "size"), Fill);
  }
  Tensor Like = Op.tensor(0, "self");
  Scalar Fill =
      Name == "aten.full_like"
          ? Op.scalar(1, "fill_value")
          : Scalar{i64(C, Name == "aten.ones_like"), Category::Integer};
  std::optional<DType> D = Op.dtype(~0u, "dtype");
  return filled(Op, D ? *D : Like.dtype(), Like.shape(), Fill);
}

const OpDefinition Table[] = {
    {"aten.add", atenAdd},
    {"aten.sub", atenSub},
    {"aten.rsub", atenRsub},
    {"aten.mul", atenMul},
    {"aten.div", atenDiv},
    {"aten.true_divide", atenDiv},
    {"aten.floor_divide", atenDiv},
    {"aten.remainder", atenRemainder},
    {"aten.fmod", atenFmod},
    {"aten.neg", atenNeg},
    {"aten.abs", atenAbs},
    {"aten.sign", atenSign},
    {"aten.reciprocal", atenReciprocal},
    {"aten.sqrt", atenSqrt},
    {"aten.rsqrt", atenTranscendental},
    {"aten.exp", atenTranscendental},
    {"aten.exp2", atenTranscendental},
    {"aten.expm1", atenTranscendental},
    {"aten.log", atenTranscendental},
    {"aten.log2", atenTranscendental},
    {"aten.log10", atenTranscendental},
    {"aten.log1p", atenTranscendental},
    {"aten.sin", atenTranscendental},
    {"aten.cos", atenTranscendental},
    {"aten.tan", atenTranscendental},
    {"aten.asin", atenTranscendental},
    {"aten.acos", atenTranscendental},
    {"aten.atan", atenTranscendental},
    {"aten.sinh", atenTranscendental},
    {"aten.cosh", atenTranscendental},
    {"aten.tanh", atenTranscendental},
    {"aten.asinh", atenTranscendental},
    {"aten.acosh", atenTranscendental},
    {"aten.atanh", atenTranscendental},
    {"aten.erf", atenTranscendental},
    {"aten.erfc", atenTranscendental},
    {"aten.sigmoid", atenSigmoid},
    {"aten.atan2", atenAtan2},
    {"aten.pow", atenPow},
    {"aten.floor", atenRound},
    {"aten.ceil", atenRound},
    {"aten.round", atenRound},
    {"aten.trunc", atenRound},
    {"aten.eq", atenCompare},
    {"aten.ne", atenCompare},
    {"aten.lt", atenCompare},
    {"aten.le", atenCompare},
    {"aten.gt", atenCompare},
    {"aten.ge", atenCompare},
    {"aten.isnan", atenIsNaN},
    {"aten.isinf", atenIsInf},
    {"aten.isfinite", atenIsFinite},
    {"aten.logical_and", atenLogical},
    {"aten.logical_or", atenLogical},
    {"aten.logical_xor", atenLogical},
    {"aten.logical_not", atenLogical},
    {"aten.bitwise_and", atenBitwise},
    {"aten.bitwise_or", atenBitwise},
    {"aten.bitwise_xor", atenBitwise},
    {"aten.bitwise_not", atenBitwise},
    {"aten.__lshift__", atenShift},
    {"aten.__rshift__", atenShift},
    {"aten.bitwise_left_shift", atenShift},
    {"aten.bitwise_right_shift", atenShift},
    {"aten.where", atenWhere},
    {"aten.masked_fill", atenMaskedFill},
    {"aten.maximum", atenMinMax},
    {"aten.max.other", atenMinMax},
    {"aten.min.other", atenMinMax},
    {"aten.minimum", atenMinMax},
    {"aten.fmax", atenMinMax},
    {"aten.fmin", atenMinMax},
    {"aten.clamp", atenClamp},
    {"aten.clamp_min", atenClamp},
    {"aten.clamp_max", atenClamp},
    {"aten.relu", atenRelu},
    {"aten.gelu", atenGelu},
    {"aten.silu", atenSilu},
    {"aten.softplus", atenSoftplus},
    {"aten.mish", atenMish},
    {"aten.elu", atenElu},
    {"aten.selu", atenSelu},
    {"aten.leaky_relu", atenLeakyRelu},
    {"aten.hardtanh", atenHardtanh},
    {"aten.relu6", atenHardtanh},
    {"aten.hardsigmoid", atenHardsigmoid},
    {"aten.hardswish", atenHardswish},
    {"prims.convert_element_type", atenConvert},
    {"aten._to_copy", atenConvert},
    {"aten.to", atenConvert},
    {"aten.clone", atenIdentity},
    {"aten.alias", atenIdentity},
    {"aten.lift_fresh_copy", atenIdentity},
    {"aten.detach", atenIdentity},
    {"aten.full", atenFull},
    {"prims.iota", atenFull},
    {"aten.full_like", atenFull},
    {"aten.zeros", atenFull},
    {"aten.ones", atenFull},
    {"aten.zeros_like", atenFull},
    {"aten.ones_like", atenFull},
    {"aten.scalar_tensor", atenFull},
};

} // namespace

std::span<const OpDefinition> pointwiseOps() { return Table; }

} // namespace stagecheck::fx

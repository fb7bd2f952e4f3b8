//===- LiftArith.cpp - Element-wise ops: arith, math, tt ------------------===//
//
// Every element-wise op computes one element from the operands' elements at
// the same index, so its lifting is one expression over the index symbols.
// Semantics follow MLIR's arith and math dialects:
//  - integer division and remainder by zero, and signed division overflow,
//    are undefined behaviour; shifts by the bit width or more, and
//    `overflow<nsw|nuw>` violations, are poison; fptosi/fptoui of a value
//    out of range is poison;
//  - float arithmetic rounds to nearest even; math.* transcendentals are the
//    named (uninterpreted) functions of ir/Functions.h, math.sqrt and
//    tt.precise_sqrt are the correctly rounded square root;
//  - tt.extern_elementwise calls the named libdevice function.
//
//===----------------------------------------------------------------------===//
#include "frontends/ttir/LifterImpl.h"

#include "ir/Functions.h"

#include <cmath>
#include <cstdlib>

using namespace stagecheck::ir;

namespace stagecheck::ttir {

namespace {

struct BinaryOp {
  const char *Name;
  Op Kind;
};

const BinaryOp IntBinary[] = {
    {"arith.addi", Op::Add},   {"arith.subi", Op::Sub},
    {"arith.muli", Op::Mul},   {"arith.andi", Op::And},
    {"arith.ori", Op::Or},     {"arith.xori", Op::Xor},
    {"arith.maxsi", Op::SMax}, {"arith.minsi", Op::SMin},
    {"arith.maxui", Op::UMax}, {"arith.minui", Op::UMin},
    {"tt.mulhiui", Op::UMulHi}};

const BinaryOp FloatBinary[] = {
    {"arith.addf", Op::FAdd},        {"arith.subf", Op::FSub},
    {"arith.mulf", Op::FMul},        {"arith.divf", Op::FDiv},
    {"tt.precise_divf", Op::FDiv},   {"arith.maxnumf", Op::FMaxNum},
    {"arith.minnumf", Op::FMinNum},  {"arith.maximumf", Op::FMaximum},
    {"arith.minimumf", Op::FMinimum}, {"math.copysign", Op::FCopySign}};

const BinaryOp Shifts[] = {{"arith.shli", Op::Shl},
                           {"arith.shrsi", Op::AShr},
                           {"arith.shrui", Op::LShr}};

struct NamedCall {
  const char *Name;
  const char *Function;
};
const NamedCall MathCalls[] = {
    {"math.exp", "exp"},     {"math.exp2", "exp2"},   {"math.log", "log"},
    {"math.log2", "log2"},   {"math.log10", "log10"}, {"math.log1p", "log1p"},
    {"math.expm1", "expm1"}, {"math.sin", "sin"},     {"math.cos", "cos"},
    {"math.tan", "tan"},     {"math.tanh", "tanh"},   {"math.sinh", "sinh"},
    {"math.cosh", "cosh"},   {"math.asin", "asin"},   {"math.acos", "acos"},
    {"math.atan", "atan"},   {"math.asinh", "asinh"}, {"math.acosh", "acosh"},
    {"math.atanh", "atanh"}, {"math.erf", "erf"},     {"math.erfc", "erfc"},
    {"math.rsqrt", "rsqrt"}, {"math.cbrt", "cbrt"},   {"math.powf", "pow"},
    {"math.atan2", "atan2"}, {"arith.remf", "fmod"}};

struct Rounding {
  const char *Name;
  RoundingMode Mode;
};
const Rounding RoundToInt[] = {{"math.floor", RoundingMode::Down},
                               {"math.ceil", RoundingMode::Up},
                               {"math.trunc", RoundingMode::TowardZero},
                               {"math.roundeven", RoundingMode::NearestEven},
                               {"math.round", RoundingMode::NearestAway}};

template <typename T, size_t N>
const T *find(const T (&Table)[N], const std::string &Name) {
  for (const T &E : Table)
    if (Name == E.Name)
      return &E;
  return nullptr;
}

/// A copy of a tensor (or scalar) type with another element type.
TypePtr withElement(const TypePtr &T, TypePtr Elem) {
  if (!T->isTensor())
    return Elem;
  auto Out = std::make_shared<MType>(*T);
  Out->Elem = std::move(Elem);
  Out->Text = "tensor<...x" + Out->Elem->Text + ">";
  return Out;
}

TypePtr i1Type() {
  auto T = std::make_shared<MType>();
  T->K = MType::Kind::Int;
  T->Bits = 1;
  T->Text = "i1";
  return T;
}

} // namespace

std::vector<Val> Lifter::elementwiseOperands(const Operation &O) {
  std::vector<Val> Vs;
  for (size_t I = 0; I < O.Operands.size(); ++I)
    Vs.push_back(get(O, I));
  std::vector<int64_t> Shape;
  if (!O.ResultTypes.empty() || !O.Types.empty())
    Shape = resultType(O)->shape();
  for (Val &V : Vs) {
    if (V.K != Val::Kind::Tensor)
      malformed(O, "operand is not a tensor or scalar");
    if (!Shape.empty())
      V = adapt(V, Shape, O);
  }
  return Vs;
}

Val Lifter::elementwise(const Operation &O, const std::vector<Val> &Operands,
                        const Expr *E, TypePtr Ty) {
  const Expr *Defined = C.trueExpr();
  for (const Val &V : Operands)
    Defined = C.andOf(Defined, V.Defined);
  Val Out = tensorOf(Ty ? Ty : resultType(O), E, Defined);
  if (E->type().isBool() && Out.Shape.empty())
    Out.E = decide(E);
  return Out;
}

const Expr *Lifter::constantOf(const Attr &A, const MType &T, const Operation &O) {
  Type Ty = scalarType(T, O);
  const Attr *V = &A;
  if (A.K == Attr::Kind::Dense) {
    if (A.Elements.size() != 1)
      malformed(O, "only splat dense constants are expected here");
    V = A.Elements.front().get();
  }
  if (V->K == Attr::Kind::Bool)
    return C.constant(Ty, V->BoolValue ? 1 : 0);
  if (Ty.isFloat()) {
    if (V->Text.rfind("0x", 0) == 0 || V->Text.rfind("0X", 0) == 0)
      return C.constant(Ty, uint64_t(std::stoull(V->Text, nullptr, 16)));
    if (V->K != Attr::Kind::Float && V->K != Attr::Kind::Int)
      malformed(O, "expected a numeric constant");
    double D = V->K == Attr::Kind::Int ? double(V->IntValue) : V->FloatValue;
    if (Ty == Type::f32() && V->K == Attr::Kind::Float) // round once
      D = double(std::strtof(V->Text.c_str(), nullptr));
    return C.floatConst(Ty, D);
  }
  if (V->K != Attr::Kind::Int)
    malformed(O, "expected an integer constant");
  return C.constant(Ty, uint64_t(V->IntValue));
}

/// i1: the integer op did not overflow in the sense of `overflow<...>`.
static const Expr *noOverflow(Context &C, Op Kind, const Expr *A,
                              const Expr *B, bool Signed) {
  Type T = A->type();
  unsigned W = T.bits();
  if (W >= 64) {
    if (Kind == Op::Mul) {
      const Expr *Product = C.mul(A, B);
      if (Signed)
        return C.eq(C.binary(Op::SMulHi, A, B),
                    C.binary(Op::AShr, Product, C.intConst(T, 63)));
      return C.eq(C.binary(Op::UMulHi, A, B), C.intConst(T, 0));
    }
    const Expr *Result = C.binary(Kind, A, B);
    const Expr *BNegative = C.icmp(ICmpPredicate::Slt, B, C.intConst(T, 0));
    if (Kind == Op::Add)
      return Signed ? C.eq(BNegative, C.icmp(ICmpPredicate::Slt, Result, A))
                    : C.icmp(ICmpPredicate::Uge, Result, A);
    return Signed ? C.eq(BNegative, C.icmp(ICmpPredicate::Sgt, Result, A))
                  : C.icmp(ICmpPredicate::Ule, B, A);
  }
  Type Wide = Type::i(2 * W > 64 ? 64 : 2 * W);
  Op Ext = Signed ? Op::SExt : Op::ZExt;
  const Expr *WA = C.cast(Ext, A, Wide), *WB = C.cast(Ext, B, Wide);
  const Expr *Exact = C.binary(Kind, WA, WB);
  return C.eq(Exact, C.cast(Ext, C.binary(Kind, A, B), Wide));
}

bool Lifter::liftArith(const Operation &O) {
  const std::string &N = O.Name;
  if (Opt.Lowering && liftLoweredArith(O))
    return true;
  if (N == "arith.constant") {
    if (!O.Value)
      malformed(O, "has no value");
    // MLIR prints an i1 constant bare: `arith.constant true`.
    bool BareBool = O.Value->K == Attr::Kind::Bool && O.Types.empty() &&
                    O.ResultTypes.empty();
    TypePtr Ty = O.Value->Ty ? O.Value->Ty : BareBool ? i1Type() : resultType(O);
    const MType &Elem = Ty->scalar();
    if (O.Value->K == Attr::Kind::Dense && O.Value->Elements.size() > 1) {
      // A non-splat dense tensor: an element chosen by its linear index.
      std::vector<int64_t> Shape = Ty->shape();
      const Expr *Lin = linearIndex(Shape);
      const Expr *E = nullptr;
      for (size_t I = O.Value->Elements.size(); I-- > 0;) {
        const Expr *V = constantOf(*O.Value->Elements[I], Elem, O);
        E = E ? C.select(C.eq(Lin, C.intConst(Type::i(64), int64_t(I))), V, E)
              : V;
      }
      define(O, tensorOf(Ty, E));
      return true;
    }
    define(O, tensorOf(Ty, constantOf(*O.Value, Elem, O)));
    return true;
  }

  if (const BinaryOp *B = find(IntBinary, N)) {
    expectOperands(O, 2, 2);
    std::vector<Val> V = elementwiseOperands(O);
    const Expr *E = linear(B->Kind, V[0].E, V[1].E);
    Val Out = elementwise(O, V, E);
    if (const Attr *Flags = O.attr("overflow")) {
      bool NSW = Flags->Text.find("nsw") != std::string::npos;
      bool NUW = Flags->Text.find("nuw") != std::string::npos;
      if ((NSW || NUW) && B->Kind != Op::Add && B->Kind != Op::Sub &&
          B->Kind != Op::Mul)
        malformed(O, "overflow flags on an op that cannot overflow");
      if (NSW)
        Out.Defined = C.andOf(Out.Defined, noOverflow(C, B->Kind, V[0].E, V[1].E, true));
      if (NUW)
        Out.Defined = C.andOf(Out.Defined, noOverflow(C, B->Kind, V[0].E, V[1].E, false));
    }
    define(O, Out);
    return true;
  }

  if (const BinaryOp *B = find(Shifts, N)) {
    expectOperands(O, 2, 2);
    std::vector<Val> V = elementwiseOperands(O);
    Type T = V[0].E->type();
    Val Out = elementwise(O, V, C.binary(B->Kind, V[0].E, V[1].E));
    Out.Defined = C.andOf(Out.Defined, C.icmp(ICmpPredicate::Ult, V[1].E,
                                              C.intConst(T, T.bits())));
    define(O, Out);
    return true;
  }

  if (N == "arith.divsi" || N == "arith.divui" || N == "arith.remsi" ||
      N == "arith.remui" || N == "arith.ceildivsi" || N == "arith.floordivsi" ||
      N == "arith.ceildivui") {
    expectOperands(O, 2, 2);
    std::vector<Val> V = elementwiseOperands(O);
    const Expr *A = V[0].E, *B = V[1].E;
    Type T = A->type();
    bool Signed = N.find("si") != std::string::npos;
    const Expr *Zero = C.intConst(T, 0), *One = C.intConst(T, 1);
    const Expr *Undefined = C.eq(B, Zero);
    if (Signed && N != "arith.remsi")
      Undefined = C.orOf(
          Undefined,
          C.andOf(C.eq(A, C.constant(T, uint64_t(1) << (T.bits() - 1))),
                  C.eq(B, C.intConst(T, -1))));
    const Expr *E;
    if (N == "arith.divsi")
      E = C.binary(Op::SDiv, A, B);
    else if (N == "arith.divui")
      E = C.binary(Op::UDiv, A, B);
    else if (N == "arith.remsi")
      E = C.binary(Op::SRem, A, B);
    else if (N == "arith.remui")
      E = C.binary(Op::URem, A, B);
    else if (N == "arith.ceildivui") {
      const Expr *Q = C.binary(Op::UDiv, A, B), *Rm = C.binary(Op::URem, A, B);
      E = C.select(C.icmp(ICmpPredicate::Ne, Rm, Zero), C.add(Q, One), Q);
    } else {
      const Expr *Q = C.binary(Op::SDiv, A, B), *Rm = C.binary(Op::SRem, A, B);
      const Expr *RNeg = C.icmp(ICmpPredicate::Slt, Rm, Zero);
      const Expr *BNeg = C.icmp(ICmpPredicate::Slt, B, Zero);
      const Expr *Inexact = C.icmp(ICmpPredicate::Ne, Rm, Zero);
      if (N == "arith.ceildivsi")
        E = C.select(C.andOf(Inexact, C.eq(RNeg, BNeg)), C.add(Q, One), Q);
      else
        E = C.select(C.andOf(Inexact, C.xorOf(RNeg, BNeg)), C.sub(Q, One), Q);
    }
    Val Out = elementwise(O, V, E);
    addUndefined(C.andOf(Out.Defined, Undefined), Out.Shape,
                 Signed ? "integer division by zero or overflow"
                        : "integer division by zero",
                 O);
    define(O, Out);
    return true;
  }

  if (N == "arith.cmpi" || N == "arith.cmpf") {
    expectOperands(O, 2, 2);
    if (O.Words.empty())
      malformed(O, "has no predicate");
    std::vector<Val> V;
    for (size_t I = 0; I < 2; ++I)
      V.push_back(get(O, I));
    TypePtr OperandTy = O.Types.empty() ? V[0].Ty : O.Types.front();
    V[0] = adapt(V[0], OperandTy->shape(), O);
    V[1] = adapt(V[1], OperandTy->shape(), O);
    const Expr *E;
    if (N == "arith.cmpi") {
      ICmpPredicate P;
      if (!parseICmpPredicate(O.Words.front(), P))
        malformed(O, "unknown predicate '" + O.Words.front() + "'");
      E = C.icmp(P, V[0].E, V[1].E);
    } else {
      FCmpPredicate P;
      const std::string &Word = O.Words.front();
      if (!parseFCmpPredicate(Word, P))
        malformed(O, "unknown predicate '" + Word + "'");
      E = C.fcmp(P, V[0].E, V[1].E);
    }
    define(O, elementwise(O, V, E, withElement(OperandTy, i1Type())));
    return true;
  }

  if (const BinaryOp *B = find(FloatBinary, N)) {
    expectOperands(O, 2, 2);
    std::vector<Val> V = elementwiseOperands(O);
    define(O, elementwise(O, V, C.floatBinary(B->Kind, V[0].E, V[1].E)));
    return true;
  }

  if (N == "arith.negf" || N == "math.absf" || N == "math.absi" ||
      N == "math.sqrt" || N == "tt.precise_sqrt" || N == "math.ctlz" ||
      N == "math.ctpop" || N == "math.cttz" || N == "math.isnan" ||
      N == "math.isinf" || N == "math.isfinite") {
    expectOperands(O, 1, 1);
    std::vector<Val> V = elementwiseOperands(O);
    const Expr *X = V[0].E;
    const Expr *E;
    TypePtr Ty = nullptr;
    if (N == "arith.negf")
      E = C.unary(Op::FNeg, X);
    else if (N == "math.absf")
      E = C.unary(Op::FAbs, X);
    else if (N == "math.absi")
      E = C.unary(Op::Abs, X);
    else if (N == "math.ctlz")
      E = C.unary(Op::Clz, X);
    else if (N == "math.ctpop")
      E = C.unary(Op::Popc, X);
    else if (N == "math.cttz")
      E = C.unary(Op::Popc, C.andOf(C.notOf(X), C.sub(X, C.intConst(X->type(), 1))));
    else if (N == "math.sqrt" || N == "tt.precise_sqrt") {
      const Expr *Ops[] = {X};
      E = C.make(Op::FSqrt, Ops, uint8_t(RoundingMode::NearestEven));
    } else {
      const Expr *Inf = C.floatConst(X->type(), INFINITY);
      if (N == "math.isnan")
        E = C.fcmp(FCmpPredicate::Uno, X, X);
      else if (N == "math.isinf")
        E = C.fcmp(FCmpPredicate::Oeq, C.unary(Op::FAbs, X), Inf);
      else
        E = C.fcmp(FCmpPredicate::Olt, C.unary(Op::FAbs, X), Inf);
      Ty = withElement(V[0].Ty, i1Type());
    }
    define(O, elementwise(O, V, E, Ty));
    return true;
  }

  if (const Rounding *Rd = find(RoundToInt, N)) {
    expectOperands(O, 1, 1);
    std::vector<Val> V = elementwiseOperands(O);
    const Expr *Ops[] = {V[0].E};
    define(O, elementwise(O, V, C.make(Op::FRoundInt, Ops, uint8_t(Rd->Mode))));
    return true;
  }

  if (N == "math.fma") {
    expectOperands(O, 3, 3);
    std::vector<Val> V = elementwiseOperands(O);
    define(O, elementwise(O, V, C.fma(V[0].E, V[1].E, V[2].E)));
    return true;
  }

  if (const NamedCall *F = find(MathCalls, N)) {
    std::vector<Val> V = elementwiseOperands(O);
    std::vector<const Expr *> Args;
    for (const Val &A : V)
      Args.push_back(A.E);
    Type T = scalarType(*resultType(O), O);
    define(O, elementwise(O, V, C.call(F->Function, T, Args)));
    return true;
  }

  if (N == "tt.extern_elementwise") {
    const Attr *Symbol = O.attr("symbol");
    const Attr *Pure = O.attr("pure");
    if (!Symbol)
      malformed(O, "has no symbol");
    if (!Pure || !Pure->asInt() || !*Pure->asInt())
      unsupported(O, "unsupported op tt.extern_elementwise of the impure "
                     "function " + Symbol->Text);
    const FunctionInfo *Info = lookupFunction(Symbol->Text);
    if (!Info || Info->Arity != O.Operands.size())
      unsupported(O, "unsupported extern function " + Symbol->Text);
    std::vector<Val> V = elementwiseOperands(O);
    std::vector<const Expr *> Args;
    for (const Val &A : V)
      Args.push_back(A.E);
    Type T = scalarType(*resultType(O), O);
    define(O, elementwise(O, V, C.call(Symbol->Text, T, Args)));
    return true;
  }

  if (N == "tt.clampf") {
    expectOperands(O, 3, 3);
    std::vector<Val> V = elementwiseOperands(O);
    const Attr *Nan = O.attr("propagateNan");
    bool Propagate = Nan && Nan->Text == "all";
    Op Max = Propagate ? Op::FMaximum : Op::FMaxNum;
    Op Min = Propagate ? Op::FMinimum : Op::FMinNum;
    const Expr *E =
        C.floatBinary(Min, C.floatBinary(Max, V[0].E, V[1].E), V[2].E);
    define(O, elementwise(O, V, E));
    return true;
  }

  if (N == "arith.select") {
    expectOperands(O, 3, 3);
    const Val &Cond = get(O, 0);
    const Val &T = get(O, 1), &F = get(O, 2);
    TypePtr Ty = resultType(O);
    std::vector<int64_t> Shape = Ty->shape();
    Val CondA = adapt(Cond, Shape, O);
    Val TA = adapt(T, Shape, O), FA = adapt(F, Shape, O);
    if (TA.IsPtr != FA.IsPtr ||
        (TA.IsPtr && (TA.Buffer != FA.Buffer || TA.ViewElem != FA.ViewElem)))
      unsupported(O, "a select between pointers into different buffers is "
                     "not supported");
    Val Out = TA;
    Out.Ty = Ty;
    Out.Shape = Shape;
    Out.E = selectOf(CondA.E, TA.E, FA.E);
    Out.Defined = C.andOf(CondA.Defined,
                          selectOf(CondA.E, TA.Defined, FA.Defined));
    if (Out.E->type().isBool() && Shape.empty())
      Out.E = decide(Out.E);
    define(O, Out);
    return true;
  }

  struct Cast {
    const char *Name;
    Op Kind;
    RoundingMode Mode;
  };
  static const Cast Casts[] = {
      {"arith.extf", Op::FPCast, RoundingMode::NearestEven},
      {"arith.truncf", Op::FPCast, RoundingMode::NearestEven},
      {"arith.extsi", Op::SExt, RoundingMode::NearestEven},
      {"arith.extui", Op::ZExt, RoundingMode::NearestEven},
      {"arith.trunci", Op::Trunc, RoundingMode::NearestEven},
      {"arith.sitofp", Op::SIToFP, RoundingMode::NearestEven},
      {"arith.uitofp", Op::UIToFP, RoundingMode::NearestEven},
      {"arith.fptosi", Op::FPToSI, RoundingMode::TowardZero},
      {"arith.fptoui", Op::FPToUI, RoundingMode::TowardZero},
      {"arith.index_cast", Op::SExt, RoundingMode::NearestEven},
      {"arith.index_castui", Op::ZExt, RoundingMode::NearestEven}};
  if (const Cast *K = find(Casts, N)) {
    expectOperands(O, 1, 1);
    std::vector<Val> V = elementwiseOperands(O);
    TypePtr Ty = resultType(O);
    Type To = scalarType(*Ty, O);
    const Expr *X = V[0].E;
    RoundingMode Mode = K->Mode;
    if (const Attr *RM = O.attr("roundingmode")) {
      static const std::pair<const char *, RoundingMode> Modes[] = {
          {"to_nearest_even", RoundingMode::NearestEven},
          {"downward", RoundingMode::Down},
          {"upward", RoundingMode::Up},
          {"toward_zero", RoundingMode::TowardZero},
          {"to_nearest_away", RoundingMode::NearestAway}};
      bool Known = false;
      for (const auto &[Name, M2] : Modes)
        if (RM->Text == Name || (RM->asInt() && *RM->asInt() == int64_t(M2))) {
          Mode = M2;
          Known = true;
        }
      if (!Known)
        malformed(O, "unknown rounding mode");
    }
    const Expr *E;
    if ((K->Kind == Op::SExt || K->Kind == Op::ZExt) &&
        X->type().bits() >= To.bits())
      E = C.cast(Op::Trunc, X, To);
    else
      E = C.cast(K->Kind, X, To, Mode);
    Val Out = elementwise(O, V, E, Ty);
    if (K->Kind == Op::FPToSI || K->Kind == Op::FPToUI) {
      // Out of range is poison (MLIR); the bounds are exact powers of two.
      double Lo = K->Kind == Op::FPToSI ? -std::ldexp(1.0, int(To.bits()) - 1)
                                        : 0.0;
      double Hi = std::ldexp(1.0, int(To.bits()) - (K->Kind == Op::FPToSI));
      Type F = X->type();
      const Expr *Above = C.orOf(C.fcmp(FCmpPredicate::Oge, X, C.floatConst(F, Lo)),
                                 C.fcmp(FCmpPredicate::Ogt, X, C.floatConst(F, Lo - 1)));
      const Expr *Below = C.fcmp(FCmpPredicate::Olt, X, C.floatConst(F, Hi));
      Out.Defined = C.andOf(Out.Defined, C.andOf(Above, Below));
    }
    define(O, Out);
    return true;
  }

  if (N == "arith.bitcast" || N == "tt.bitcast") {
    expectOperands(O, 1, 1);
    Val V = get(O, 0);
    TypePtr Ty = resultType(O);
    if (V.IsPtr) {
      if (!Ty->scalar().isPtr())
        unsupported(O, "unsupported op " + N + " from a pointer to an integer");
      Type Elem = scalarType(*Ty->scalar().Elem, O);
      // A bool is stored as a byte: Triton reads and writes bool tensors
      // through their pointer cast to i8.
      bool BoolAsBytes = V.BufferElem.isBool() && Elem == Type::i(8);
      if (Elem.bits() != V.BufferElem.bits() && !BoolAsBytes)
        unsupported(O, "a pointer cast to an element of another width is "
                       "not supported");
      V.ViewElem = Elem;
      V.Ty = Ty;
      define(O, V);
      return true;
    }
    Type To = scalarType(*Ty, O);
    const Expr *X = V.E;
    if (X->type().bits() != To.bits())
      malformed(O, "bitcast between types of different widths");
    const Expr *E = X->type() == To ? X
                    : (X->type().isInt() && To.isInt()) ? X
                                                        : C.cast(Op::Bitcast, X, To);
    Val Out = V;
    Out.Ty = Ty;
    Out.E = E;
    define(O, Out);
    return true;
  }

  if (N == "tt.fp_to_fp") {
    expectOperands(O, 1, 1);
    std::vector<Val> V = elementwiseOperands(O);
    TypePtr Ty = resultType(O);
    Type To = scalarType(*Ty, O);
    Type From = V[0].E->type();
    RoundingMode Mode = RoundingMode::NearestEven;
    if (const Attr *RM = O.attr("rounding")) {
      if (RM->Text == "rtz")
        Mode = RoundingMode::TowardZero;
      else if (RM->Text != "rtne")
        malformed(O, "unknown rounding '" + RM->Text + "'");
    } else if (To.bits() < From.bits())
      malformed(O, "a narrowing conversion needs a rounding mode");
    define(O, elementwise(O, V, C.cast(Op::FPCast, V[0].E, To, Mode), Ty));
    return true;
  }

  if (N == "tt.int_to_ptr" || N == "tt.ptr_to_int")
    unsupported(O, "unsupported op " + N);
  return false;
}

} // namespace stagecheck::ttir

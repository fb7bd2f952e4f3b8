#include "smt/Encoder.h"

#include "ir/FloatOps.h"
#include "ir/Functions.h"

#include <string>

using namespace stagecheck::ir;

namespace stagecheck::smt {

namespace {
z3::expr wrap(z3::context &Z, Z3_ast A) {
  Z.check_error();
  return z3::expr(Z, A);
}

z3::expr toBV(z3::context &Z, const z3::expr &E) {
  if (E.is_bool())
    return z3::ite(E, Z.bv_val(1, 1), Z.bv_val(0, 1));
  return E;
}

z3::expr fromBV1(z3::context &Z, const z3::expr &E) { return E == Z.bv_val(1, 1); }

/// floor(X) as an integer term.
z3::expr realToInt(const z3::expr &X) {
  return z3::expr(X.ctx(), Z3_mk_real2int(X.ctx(), X));
}

std::string powerOfTwo(int Exp) {
  // "2^Exp" as an exact rational string.
  std::string One = "1";
  std::string Pow = "1";
  for (int I = 0; I < std::abs(Exp); ++I) { // decimal doubling
    int Carry = 0;
    for (auto It = Pow.rbegin(); It != Pow.rend(); ++It) {
      int D = (*It - '0') * 2 + Carry;
      *It = char('0' + D % 10);
      Carry = D / 10;
    }
    if (Carry)
      Pow.insert(Pow.begin(), char('0' + Carry));
  }
  return Exp >= 0 ? Pow : One + "/" + Pow;
}
} // namespace

z3::sort Encoder::sortOf(Type T) {
  if (T.isBool())
    return Z.bool_sort();
  if (T.isBitVector())
    return Z.bv_sort(T.bits());
  SawFloat = true;
  if (M == Mode::Real) {
    SawReal = true;
    return Z.real_sort();
  }
  FloatFormat F = floatFormat(T);
  return z3::sort(Z, Z3_mk_fpa_sort(Z, F.ExponentBits, F.MantissaBits + 1));
}

z3::expr Encoder::rounding(RoundingMode RM) {
  switch (RM) {
  case RoundingMode::NearestEven:
    return wrap(Z, Z3_mk_fpa_rne(Z));
  case RoundingMode::TowardZero:
    return wrap(Z, Z3_mk_fpa_rtz(Z));
  case RoundingMode::Down:
    return wrap(Z, Z3_mk_fpa_rtn(Z));
  case RoundingMode::Up:
    return wrap(Z, Z3_mk_fpa_rtp(Z));
  case RoundingMode::NearestAway:
    return wrap(Z, Z3_mk_fpa_rna(Z));
  }
  return wrap(Z, Z3_mk_fpa_rne(Z));
}

z3::expr Encoder::bufferArray(const std::string &Name, Type Elem) {
  return Z.constant(("buf:" + Name).c_str(),
                    Z.array_sort(Z.bv_sort(64), sortOf(Elem)));
}

z3::func_decl Encoder::function(const Expr *Call) {
  // Typed name: the same function at two types is two functions.
  std::string Name = "fn:" + Call->name();
  z3::sort_vector Domain(Z);
  for (const Expr *A : Call->operands()) {
    Name += "." + A->type().str();
    Domain.push_back(sortOf(A->type()));
  }
  Name += "->" + Call->type().str();
  return Z.function(Name.c_str(), Domain, sortOf(Call->type()));
}

z3::expr Encoder::callArgument(const Expr *Call, z3::expr A) {
  const FunctionInfo *F = lookupFunction(Call->name());
  // Over the reals there is one zero and no subnormal.
  if (!F || M != Mode::IEEE || !A.is_fpa())
    return A;
  z3::sort S = A.get_sort();
  auto Is = [&](auto Test) { return wrap(Z, Test(Z, A)); };
  auto Zero = [&](bool Negative) {
    return wrap(Z, Z3_mk_fpa_zero(Z, S, Negative));
  };
  if (F->FlushesSubnormalArguments)
    A = z3::ite(Is(Z3_mk_fpa_is_subnormal),
                z3::ite(Is(Z3_mk_fpa_is_negative), Zero(true), Zero(false)),
                A);
  if (F->IgnoresSignOfZero)
    A = z3::ite(wrap(Z, Z3_mk_fpa_is_zero(Z, A)), Zero(false), A);
  return A;
}

/// Around the free value of the function: in IEEE mode the PTX ISA's
/// corner cases (ir::cornerCaseResult), tested on the argument as the
/// function reads it; over the reals its exact points (ir::exactPoints).
z3::expr Encoder::withFixedPoints(const Expr *Call, const z3::expr &A,
                                  z3::expr Free) {
  // Over the reals a mathematical function is itself: its exact points hold.
  if (M == Mode::Real && A.is_real()) {
    z3::expr Out = Free;
    for (const ExactPoint &P : exactPoints(Call->name()))
      Out = z3::ite(A == Z.real_val(int(P.Argument)), Z.real_val(int(P.Result)),
                    Out);
    return Out;
  }
  const FunctionInfo *F = lookupFunction(Call->name());
  if (!F || F->CornerCases.empty() || M != Mode::IEEE ||
      Call->type() != Type::f32() || Call->operand(0)->type() != Type::f32())
    return Free;
  auto Is = [&](auto Test) { return wrap(Z, Test(Z, A)); };
  z3::expr Negative = Is(Z3_mk_fpa_is_negative);
  z3::expr Out = Free;
  for (const CornerCase &C : F->CornerCases) {
    z3::expr When = Z.bool_val(false);
    switch (C.Input) {
    case CornerInput::NegInfinity:
      When = Is(Z3_mk_fpa_is_infinite) && Negative;
      break;
    case CornerInput::PosInfinity:
      When = Is(Z3_mk_fpa_is_infinite) && !Negative;
      break;
    case CornerInput::NegZero:
      When = Is(Z3_mk_fpa_is_zero) && Negative;
      break;
    case CornerInput::PosZero:
      When = Is(Z3_mk_fpa_is_zero) && !Negative;
      break;
    case CornerInput::NegNormal:
      When = Is(Z3_mk_fpa_is_normal) && Negative;
      break;
    case CornerInput::NaN:
      When = Is(Z3_mk_fpa_is_nan);
      break;
    }
    Value Fixed = cornerResult(C, Call->type());
    Out = z3::ite(When, constant(Fixed.Ty, Fixed.Bits), Out);
  }
  return Out;
}

/// Around a division's free value in IEEE mode: IEEE's quotient where an
/// operand (as the function reads it) is a zero, an infinity or a NaN
/// (ir::cornerCaseResult). The quotient there is a special value itself, so
/// it is spelled by cases rather than by fp.div.
z3::expr Encoder::withSpecialQuotients(const Expr *Call, const z3::expr &X,
                                       const z3::expr &Y, z3::expr Free) {
  const FunctionInfo *F = lookupFunction(Call->name());
  if (!F || !F->ExactAtSpecialOperands || M != Mode::IEEE ||
      Call->type() != Type::f32() || Call->operand(0)->type() != Type::f32() ||
      Call->operand(1)->type() != Type::f32())
    return Free;
  auto Is = [&](auto Test, const z3::expr &A) { return wrap(Z, Test(Z, A)); };
  z3::sort S = Free.get_sort();
  z3::expr Negative =
      Is(Z3_mk_fpa_is_negative, X) != Is(Z3_mk_fpa_is_negative, Y);
  // Each Z3_ast is wrapped as soon as it is made: in a reference-counted
  // context an unwrapped one may be freed by the next call.
  auto Signed = [&](auto Make) {
    z3::expr Positive = wrap(Z, Make(Z, S, false));
    z3::expr NegativeOne = wrap(Z, Make(Z, S, true));
    return z3::ite(Negative, NegativeOne, Positive);
  };
  z3::expr XZero = Is(Z3_mk_fpa_is_zero, X), YZero = Is(Z3_mk_fpa_is_zero, Y);
  z3::expr XInf = Is(Z3_mk_fpa_is_infinite, X),
           YInf = Is(Z3_mk_fpa_is_infinite, Y);
  z3::expr AnyNan = Is(Z3_mk_fpa_is_nan, X) || Is(Z3_mk_fpa_is_nan, Y) ||
                    (XZero && YZero) || (XInf && YInf);
  z3::expr Out = z3::ite(XZero || YInf, Signed(Z3_mk_fpa_zero), Free);
  Out = z3::ite(XInf || YZero, Signed(Z3_mk_fpa_inf), Out);
  return z3::ite(AnyNan, wrap(Z, Z3_mk_fpa_nan(Z, S)), Out);
}

z3::expr Encoder::encode(const Expr *Root) {
  for (const Expr *E : postOrder(std::span<const Expr *const>(&Root, 1)))
    if (!Cache.count(E))
      Cache.emplace(E, encodeNode(E));
  return Cache.at(Root);
}

z3::expr Encoder::constant(Type T, uint64_t Bits) {
  if (T.isBool())
    return Z.bool_val(Bits != 0);
  if (T.isBitVector())
    return Z.bv_val(uint64_t(Bits), T.bits());
  FloatFormat F = floatFormat(T);
  if (M == Mode::IEEE)
    return wrap(Z, Z3_mk_fpa_to_fp_bv(Z, Z.bv_val(uint64_t(Bits), T.bits()),
                                      sortOf(T)));
  fp::Decoded D = fp::decode(Bits, F);
  if (D.Kind == fp::Class::NaN || D.Kind == fp::Class::Infinity)
    throw Unsupported("the constant " + Value::ofBits(T, Bits).str() +
                      " has no value over the reals");
  if (D.Kind == fp::Class::Zero)
    return Z.real_val(0);
  // Sig * 2^Exp, exactly.
  z3::expr Sig = Z.real_val(std::to_string(D.Significand).c_str());
  z3::expr Scale = Z.real_val(powerOfTwo(D.Exponent).c_str());
  z3::expr Mag = Sig * Scale;
  return (D.Negative ? -Mag : Mag).simplify();
}

z3::expr Encoder::encodeNode(const Expr *E) {
  switch (category(E->op())) {
  case OpCategory::Leaf:
    if (E->op() == Op::Const)
      return constant(E->type(), E->constBits());
    if (E->op() == Op::Symbol)
      return Z.constant(E->name().c_str(), sortOf(E->type()));
    if (EliminateArrays)
      return eliminated(E);
    return z3::select(bufferArray(E->name(), E->type()), operand(E, 0));
  case OpCategory::Call: {
    z3::expr_vector Args(Z);
    for (unsigned I = 0; I < E->numOperands(); ++I)
      Args.push_back(callArgument(E, operand(E, I)));
    z3::expr Free = EliminateArrays ? eliminated(E) : function(E)(Args);
    if (Args.size() == 1)
      return withFixedPoints(E, Args[0], Free);
    if (Args.size() == 2)
      return withSpecialQuotients(E, Args[0], Args[1], Free);
    return Free;
  }
  case OpCategory::IntBinary:
  case OpCategory::IntUnary:
  case OpCategory::ICmp:
    return integerOp(E);
  case OpCategory::IntCast:
  case OpCategory::FloatToInt:
  case OpCategory::IntToFloat:
  case OpCategory::FloatToFloat:
  case OpCategory::Bitcast:
    return castOp(E);
  case OpCategory::Select:
    return z3::ite(operand(E, 0), operand(E, 1), operand(E, 2));
  default:
    return M == Mode::IEEE ? ieeeOp(E) : realOp(E);
  }
}

z3::expr Encoder::integerOp(const Expr *E) {
  Type T = E->operand(0)->type();
  unsigned W = T.bits();
  z3::expr A = toBV(Z, operand(E, 0));
  if (E->op() == Op::ICmp) {
    z3::expr B = toBV(Z, operand(E, 1));
    switch (E->icmpPredicate()) {
    case ICmpPredicate::Eq:
      return A == B;
    case ICmpPredicate::Ne:
      return A != B;
    case ICmpPredicate::Ult:
      return z3::ult(A, B);
    case ICmpPredicate::Ule:
      return z3::ule(A, B);
    case ICmpPredicate::Ugt:
      return z3::ugt(A, B);
    case ICmpPredicate::Uge:
      return z3::uge(A, B);
    case ICmpPredicate::Slt:
      return A < B;
    case ICmpPredicate::Sle:
      return A <= B;
    case ICmpPredicate::Sgt:
      return A > B;
    case ICmpPredicate::Sge:
      return A >= B;
    }
  }
  z3::expr R = A;
  if (E->numOperands() == 2) {
    z3::expr B = toBV(Z, operand(E, 1));
    switch (E->op()) {
    case Op::Add:
      R = A + B;
      break;
    case Op::Sub:
      R = A - B;
      break;
    case Op::Mul:
      R = A * B;
      break;
    case Op::UDiv:
      R = z3::udiv(A, B);
      break;
    case Op::SDiv:
      R = A / B;
      break;
    case Op::URem:
      R = z3::urem(A, B);
      break;
    case Op::SRem:
      R = z3::srem(A, B);
      break;
    case Op::Shl:
      R = z3::shl(A, B);
      break;
    case Op::LShr:
      R = z3::lshr(A, B);
      break;
    case Op::AShr:
      R = z3::ashr(A, B);
      break;
    case Op::And:
      R = A & B;
      break;
    case Op::Or:
      R = A | B;
      break;
    case Op::Xor:
      R = A ^ B;
      break;
    case Op::SMin:
      R = z3::ite(A <= B, A, B);
      break;
    case Op::SMax:
      R = z3::ite(A >= B, A, B);
      break;
    case Op::UMin:
      R = z3::ite(z3::ule(A, B), A, B);
      break;
    case Op::UMax:
      R = z3::ite(z3::uge(A, B), A, B);
      break;
    case Op::UMulHi:
      R = (z3::zext(A, W) * z3::zext(B, W)).extract(2 * W - 1, W);
      break;
    case Op::SMulHi:
      R = (z3::sext(A, W) * z3::sext(B, W)).extract(2 * W - 1, W);
      break;
    default:
      throw Unsupported(std::string("no encoding for ") + spelling(E->op()));
    }
  } else {
    switch (E->op()) {
    case Op::Not:
      R = ~A;
      break;
    case Op::Neg:
      R = -A;
      break;
    case Op::Abs:
      R = z3::ite(A < Z.bv_val(0, W), -A, A);
      break;
    case Op::Clz: {
      R = Z.bv_val(W, W);
      for (unsigned I = 0; I < W; ++I) // the highest set bit decides
        R = z3::ite(A.extract(I, I) == Z.bv_val(1, 1), Z.bv_val(W - 1 - I, W), R);
      break;
    }
    case Op::Popc: {
      R = Z.bv_val(0, W);
      for (unsigned I = 0; I < W; ++I)
        R = R + z3::zext(A.extract(I, I), W - 1);
      break;
    }
    case Op::BitReverse: {
      R = A.extract(0, 0);
      for (unsigned I = 1; I < W; ++I)
        R = z3::concat(R, A.extract(I, I));
      break;
    }
    default:
      throw Unsupported(std::string("no encoding for ") + spelling(E->op()));
    }
  }
  return E->type().isBool() ? fromBV1(Z, R) : R;
}

z3::expr Encoder::castOp(const Expr *E) {
  Type From = E->operand(0)->type(), To = E->type();
  z3::expr A = operand(E, 0);
  auto Result = [&](const z3::expr &BV) {
    return To.isBool() ? fromBV1(Z, BV) : BV;
  };
  switch (E->op()) {
  case Op::ZExt:
    return Result(z3::zext(toBV(Z, A), To.bits() - From.bits()));
  case Op::SExt:
    return Result(z3::sext(toBV(Z, A), To.bits() - From.bits()));
  case Op::Trunc:
    return Result(toBV(Z, A).extract(To.bits() - 1, 0));
  case Op::PtrToInt:
  case Op::IntToPtr:
    return A;
  default:
    break;
  }
  if (M == Mode::Real) {
    switch (E->op()) {
    case Op::FPCast: {
      // Widening is exact. Narrowing rounds even over the reals: a value
      // stored in f16 has f16's precision whatever the arithmetic around
      // it (a kernel that skips a rounding to f16 is not exact).
      FloatFormat FF = floatFormat(From), FT = floatFormat(To);
      if (FT.MantissaBits >= FF.MantissaBits &&
          FT.ExponentBits >= FF.ExponentBits)
        return A;
      z3::sort Narrow(Z, Z3_mk_fpa_sort(Z, FT.ExponentBits, FT.MantissaBits + 1));
      z3::expr Rounded =
          wrap(Z, Z3_mk_fpa_to_fp_real(Z, rounding(E->rounding()), A, Narrow));
      return wrap(Z, Z3_mk_fpa_to_real(Z, Rounded));
    }
    case Op::SIToFP:
    case Op::UIToFP:
      return z3::to_real(z3::bv2int(toBV(Z, A), E->op() == Op::SIToFP));
    case Op::FPToSI:
    case Op::FPToUI: {
      // Round to an integer in the op's mode, then saturate.
      z3::expr Floor = realToInt(A);
      z3::expr Ceil = -realToInt(-A);
      z3::expr Frac = A - z3::to_real(Floor);
      z3::expr Half = Z.real_val(1, 2);
      z3::expr Rounded = Floor;
      switch (E->rounding()) {
      case RoundingMode::Down:
        Rounded = Floor;
        break;
      case RoundingMode::Up:
        Rounded = Ceil;
        break;
      case RoundingMode::TowardZero:
        Rounded = z3::ite(A >= 0, Floor, Ceil);
        break;
      case RoundingMode::NearestAway:
        Rounded = z3::ite(A >= 0, realToInt(A + Half), -realToInt(-A + Half));
        break;
      case RoundingMode::NearestEven:
        Rounded = z3::ite(Frac > Half, Floor + 1,
                          z3::ite(Frac < Half, Floor,
                                  z3::ite(z3::mod(Floor, 2) == 0, Floor, Floor + 1)));
        break;
      }
      unsigned W = To.bits();
      bool Signed = E->op() == Op::FPToSI;
      std::string MaxS = Signed ? powerOfTwo(int(W) - 1) : powerOfTwo(int(W));
      z3::expr Max = Z.int_val(MaxS.c_str()) - 1;
      z3::expr Min = Signed ? -Z.int_val(powerOfTwo(int(W) - 1).c_str())
                            : Z.int_val(0);
      z3::expr Clamped = z3::ite(Rounded > Max, Max, z3::ite(Rounded < Min, Min, Rounded));
      return Result(z3::int2bv(W, Clamped));
    }
    default:
      throw Unsupported("a bitcast involving a float has no meaning over the "
                        "reals");
    }
  }
  FloatFormat FF = From.isFloat() ? floatFormat(From) : FloatFormat{0, 0};
  switch (E->op()) {
  case Op::FPCast:
    return wrap(Z, Z3_mk_fpa_to_fp_float(Z, rounding(E->rounding()), A,
                                         sortOf(To)));
  case Op::SIToFP:
    return wrap(Z, Z3_mk_fpa_to_fp_signed(Z, rounding(E->rounding()),
                                          toBV(Z, A), sortOf(To)));
  case Op::UIToFP:
    return wrap(Z, Z3_mk_fpa_to_fp_unsigned(Z, rounding(E->rounding()),
                                            toBV(Z, A), sortOf(To)));
  case Op::FPToSI:
  case Op::FPToUI: {
    bool Signed = E->op() == Op::FPToSI;
    unsigned W = To.bits();
    z3::expr Rounded =
        wrap(Z, Z3_mk_fpa_round_to_integral(Z, rounding(E->rounding()), A));
    auto Bound = [&](const std::string &Real) { // exact or +-inf
      return wrap(Z, Z3_mk_fpa_to_fp_real(Z, Z3_mk_fpa_rne(Z),
                                          Z.real_val(Real.c_str()), sortOf(From)));
    };
    z3::expr Upper = Bound(powerOfTwo(Signed ? int(W) - 1 : int(W)));
    z3::expr IsNaN = wrap(Z, Z3_mk_fpa_is_nan(Z, A));
    z3::expr TooBig = wrap(Z, Z3_mk_fpa_geq(Z, Rounded, Upper));
    uint64_t MaxBits = Signed ? Value::mask(W - 1) : Value::mask(W);
    uint64_t MinBits = Signed ? (uint64_t(1) << (W - 1)) : 0;
    z3::expr InRange = wrap(Z, Signed ? Z3_mk_fpa_to_sbv(Z, Z3_mk_fpa_rtz(Z), Rounded, W)
                                      : Z3_mk_fpa_to_ubv(Z, Z3_mk_fpa_rtz(Z), Rounded, W));
    // -inf is caught separately: the lower bound itself may round to -inf.
    z3::expr NegativeInfinity =
        wrap(Z, Z3_mk_fpa_is_infinite(Z, A)) && wrap(Z, Z3_mk_fpa_is_negative(Z, A));
    z3::expr TooSmall =
        NegativeInfinity ||
        (Signed ? wrap(Z, Z3_mk_fpa_lt(Z, Rounded, Bound("-" + powerOfTwo(int(W) - 1))))
                : wrap(Z, Z3_mk_fpa_lt(Z, Rounded, Bound("0"))));
    z3::expr R = z3::ite(IsNaN, Z.bv_val(0, W),
                         z3::ite(TooBig, Z.bv_val(uint64_t(MaxBits), W),
                                 z3::ite(TooSmall, Z.bv_val(uint64_t(MinBits), W),
                                         InRange)));
    return Result(R);
  }
  case Op::Bitcast: {
    z3::expr Bits = A;
    if (From.isFloat()) {
      z3::expr IsNaN = wrap(Z, Z3_mk_fpa_is_nan(Z, A));
      Bits = z3::ite(IsNaN, Z.bv_val(uint64_t(fp::canonicalNaN(FF)), From.bits()),
                     bitPattern(A, From));
    } else {
      Bits = toBV(Z, A);
    }
    if (To.isFloat())
      return wrap(Z, Z3_mk_fpa_to_fp_bv(Z, Bits, sortOf(To)));
    return Result(Bits);
  }
  default:
    throw Unsupported(std::string("no encoding for ") + spelling(E->op()));
  }
}

z3::expr Encoder::ieeeOp(const Expr *E) {
  z3::expr A = operand(E, 0);
  auto Is = [&](Z3_ast (*Pred)(Z3_context, Z3_ast), const z3::expr &X) {
    return wrap(Z, Pred(Z, X));
  };
  auto FP2 = [&](Z3_ast (*F)(Z3_context, Z3_ast, Z3_ast, Z3_ast)) {
    return wrap(Z, F(Z, rounding(E->rounding()), A, operand(E, 1)));
  };
  z3::sort S = sortOf(E->operand(0)->type());
  switch (E->op()) {
  case Op::FAdd:
    return FP2(Z3_mk_fpa_add);
  case Op::FSub:
    return FP2(Z3_mk_fpa_sub);
  case Op::FMul:
    return FP2(Z3_mk_fpa_mul);
  case Op::FDiv:
    return FP2(Z3_mk_fpa_div);
  case Op::Fma:
    return wrap(Z, Z3_mk_fpa_fma(Z, rounding(E->rounding()), A, operand(E, 1),
                                 operand(E, 2)));
  case Op::FSqrt:
    return wrap(Z, Z3_mk_fpa_sqrt(Z, rounding(E->rounding()), A));
  case Op::FRoundInt:
    return wrap(Z, Z3_mk_fpa_round_to_integral(Z, rounding(E->rounding()), A));
  case Op::FNeg:
    return wrap(Z, Z3_mk_fpa_neg(Z, A));
  case Op::FAbs:
    return wrap(Z, Z3_mk_fpa_abs(Z, A));
  case Op::FFlushSubnormal:
    return z3::ite(Is(Z3_mk_fpa_is_subnormal, A),
                   z3::ite(Is(Z3_mk_fpa_is_negative, A),
                           wrap(Z, Z3_mk_fpa_zero(Z, S, true)),
                           wrap(Z, Z3_mk_fpa_zero(Z, S, false))),
                   A);
  case Op::FCopySign: {
    z3::expr B = operand(E, 1);
    z3::expr Mag = wrap(Z, Z3_mk_fpa_abs(Z, A));
    z3::expr Positive = Is(Z3_mk_fpa_is_nan, B) || !Is(Z3_mk_fpa_is_negative, B);
    return z3::ite(Positive, Mag, wrap(Z, Z3_mk_fpa_neg(Z, Mag)));
  }
  case Op::FMinNum:
  case Op::FMaxNum:
  case Op::FMinimum:
  case Op::FMaximum: {
    z3::expr B = operand(E, 1);
    bool IsMin = E->op() == Op::FMinNum || E->op() == Op::FMinimum;
    bool PropagatesNaN = E->op() == Op::FMinimum || E->op() == Op::FMaximum;
    z3::expr NanA = Is(Z3_mk_fpa_is_nan, A), NanB = Is(Z3_mk_fpa_is_nan, B);
    z3::expr BothZero = Is(Z3_mk_fpa_is_zero, A) && Is(Z3_mk_fpa_is_zero, B);
    z3::expr NegA = Is(Z3_mk_fpa_is_negative, A);
    z3::expr Zeros = IsMin ? z3::ite(NegA, A, B) : z3::ite(NegA, B, A);
    z3::expr Ordered = IsMin ? z3::ite(wrap(Z, Z3_mk_fpa_lt(Z, A, B)), A, B)
                             : z3::ite(wrap(Z, Z3_mk_fpa_gt(Z, A, B)), A, B);
    z3::expr Numbers = z3::ite(BothZero, Zeros, Ordered);
    z3::expr NaN = wrap(Z, Z3_mk_fpa_nan(Z, S));
    if (PropagatesNaN)
      return z3::ite(NanA || NanB, NaN, Numbers);
    return z3::ite(NanA, B, z3::ite(NanB, A, Numbers));
  }
  case Op::FCmp: {
    z3::expr B = operand(E, 1);
    z3::expr Unordered = Is(Z3_mk_fpa_is_nan, A) || Is(Z3_mk_fpa_is_nan, B);
    z3::expr Lt = wrap(Z, Z3_mk_fpa_lt(Z, A, B));
    z3::expr Le = wrap(Z, Z3_mk_fpa_leq(Z, A, B));
    z3::expr Gt = wrap(Z, Z3_mk_fpa_gt(Z, A, B));
    z3::expr Ge = wrap(Z, Z3_mk_fpa_geq(Z, A, B));
    z3::expr Eq = wrap(Z, Z3_mk_fpa_eq(Z, A, B));
    switch (E->fcmpPredicate()) {
    case FCmpPredicate::False:
      return Z.bool_val(false);
    case FCmpPredicate::True:
      return Z.bool_val(true);
    case FCmpPredicate::Ord:
      return !Unordered;
    case FCmpPredicate::Uno:
      return Unordered;
    case FCmpPredicate::Oeq:
      return Eq;
    case FCmpPredicate::Ogt:
      return Gt;
    case FCmpPredicate::Oge:
      return Ge;
    case FCmpPredicate::Olt:
      return Lt;
    case FCmpPredicate::Ole:
      return Le;
    case FCmpPredicate::One:
      return !Unordered && !Eq;
    case FCmpPredicate::Ueq:
      return Unordered || Eq;
    case FCmpPredicate::Ugt:
      return Unordered || Gt;
    case FCmpPredicate::Uge:
      return Unordered || Ge;
    case FCmpPredicate::Ult:
      return Unordered || Lt;
    case FCmpPredicate::Ule:
      return Unordered || Le;
    case FCmpPredicate::Une:
      return !Eq;
    }
    break;
  }
  default:
    break;
  }
  throw Unsupported(std::string("no IEEE encoding for ") + spelling(E->op()));
}

z3::expr Encoder::realOp(const Expr *E) {
  z3::expr A = operand(E, 0);
  auto Abs = [](const z3::expr &X) { return z3::ite(X < 0, -X, X); };
  switch (E->op()) {
  case Op::FAdd:
    return A + operand(E, 1);
  case Op::FSub:
    return A - operand(E, 1);
  case Op::FMul:
    return A * operand(E, 1);
  case Op::FDiv:
    return A / operand(E, 1);
  case Op::Fma:
    return A * operand(E, 1) + operand(E, 2);
  case Op::FNeg:
    return -A;
  case Op::FAbs:
    return Abs(A);
  case Op::FFlushSubnormal: // no subnormals among the reals
    return A;
  case Op::FCopySign:
    return z3::ite(operand(E, 1) < 0, -Abs(A), Abs(A));
  case Op::FMinNum:
  case Op::FMinimum:
    return z3::ite(A <= operand(E, 1), A, operand(E, 1));
  case Op::FMaxNum:
  case Op::FMaximum:
    return z3::ite(A >= operand(E, 1), A, operand(E, 1));
  case Op::FSqrt: {
    z3::sort_vector Domain(Z);
    Domain.push_back(Z.real_sort());
    return Z.function("fn:sqrt.real", Domain, Z.real_sort())(A);
  }
  case Op::FRoundInt: {
    z3::expr Floor = z3::to_real(realToInt(A));
    z3::expr Ceil = -z3::to_real(realToInt(-A));
    z3::expr Half = Z.real_val(1, 2);
    switch (E->rounding()) {
    case RoundingMode::Down:
      return Floor;
    case RoundingMode::Up:
      return Ceil;
    case RoundingMode::TowardZero:
      return z3::ite(A >= 0, Floor, Ceil);
    case RoundingMode::NearestAway:
      return z3::ite(A >= 0, z3::to_real(realToInt(A + Half)),
                     -z3::to_real(realToInt(-A + Half)));
    case RoundingMode::NearestEven: {
      z3::expr Frac = A - Floor;
      z3::expr FloorIsEven = z3::mod(realToInt(A), 2) == 0;
      return z3::ite(Frac > Half, Floor + 1,
                     z3::ite(Frac < Half, Floor, z3::ite(FloorIsEven, Floor, Floor + 1)));
    }
    }
    break;
  }
  case Op::FCmp: {
    z3::expr B = operand(E, 1);
    switch (E->fcmpPredicate()) {
    case FCmpPredicate::False:
    case FCmpPredicate::Uno:
      return Z.bool_val(false);
    case FCmpPredicate::True:
    case FCmpPredicate::Ord:
      return Z.bool_val(true);
    case FCmpPredicate::Oeq:
    case FCmpPredicate::Ueq:
      return A == B;
    case FCmpPredicate::One:
    case FCmpPredicate::Une:
      return A != B;
    case FCmpPredicate::Ogt:
    case FCmpPredicate::Ugt:
      return A > B;
    case FCmpPredicate::Oge:
    case FCmpPredicate::Uge:
      return A >= B;
    case FCmpPredicate::Olt:
    case FCmpPredicate::Ult:
      return A < B;
    case FCmpPredicate::Ole:
    case FCmpPredicate::Ule:
      return A <= B;
    }
    break;
  }
  default:
    break;
  }
  throw Unsupported(std::string("no real encoding for ") + spelling(E->op()));
}

z3::expr Encoder::eliminated(const Expr *E) {
  std::string Key = E->op() == Op::Read ? "read:" + E->name()
                                        : function(E).name().str();
  z3::expr Fresh = Z.constant(
      (Key + "#" + std::to_string(Applications.size())).c_str(),
      sortOf(E->type()));
  std::vector<z3::expr> Args;
  for (unsigned I = 0; I < E->numOperands(); ++I)
    Args.push_back(E->op() == Op::Call ? callArgument(E, operand(E, I))
                                       : operand(E, I));
  Applications.push_back({Key, std::move(Args), Fresh});
  return Fresh;
}

z3::expr_vector Encoder::functionalConsistency() {
  z3::expr_vector Out(Z);
  for (size_t I = 0; I < Applications.size(); ++I)
    for (size_t J = I + 1; J < Applications.size(); ++J) {
      const Application &A = Applications[I], &B = Applications[J];
      if (A.Key != B.Key)
        continue;
      z3::expr Same = Z.bool_val(true);
      for (size_t K = 0; K < A.Args.size(); ++K)
        Same = Same && A.Args[K] == B.Args[K];
      Same = Same.simplify();
      if (Same.is_false())
        continue;
      Out.push_back(z3::implies(Same, A.Result == B.Result));
    }
  return Out;
}

z3::expr Encoder::bitPattern(const z3::expr &Float, Type T) {
  if (!StandardBitPatterns)
    return wrap(Z, Z3_mk_fpa_to_ieee_bv(Z, Float));
  z3::expr Fresh = Z.bv_const(
      ("bits#" + std::to_string(BitPatterns.size())).c_str(), T.bits());
  BitPatterns.push_back({Fresh, Float});
  return Fresh;
}

z3::expr_vector Encoder::bitPatternDefinitions() const {
  z3::expr_vector Out(Z);
  for (const BitPattern &P : BitPatterns) {
    // SMT-LIB's = on floats is identity: -0 is not +0, and a NaN is a NaN.
    z3::expr AsFloat = wrap(Z, Z3_mk_fpa_to_fp_bv(Z, P.Bits, P.Float.get_sort()));
    Out.push_back(AsFloat == P.Float);
  }
  return Out;
}

std::string Encoder::logic() const {
  if (M == Mode::Real || (!EliminateArrays && !Applications.empty()))
    return "";
  return SawFloat ? "QF_FPBV" : "QF_BV";
}

z3::expr Encoder::numeral(const Value &V) {
  return constant(V.Ty, V.Bits).simplify();
}

bool Encoder::numeralBits(const z3::expr &V, Type T, uint64_t &Bits) {
  if (T.isBool()) {
    if (!V.is_true() && !V.is_false())
      return false;
    Bits = V.is_true();
    return true;
  }
  if (T.isBitVector()) {
    if (!V.is_numeral())
      return false;
    Bits = V.get_numeral_uint64();
    return true;
  }
  FloatFormat F = floatFormat(T);
  if (M == Mode::Real) {
    if (!V.is_numeral())
      return false;
    std::string Decimal = Z3_get_numeral_decimal_string(Z, V, 40);
    if (!Decimal.empty() && Decimal.back() == '?')
      Decimal.pop_back();
    Bits = fp::fromDouble(std::strtod(Decimal.c_str(), nullptr), F,
                          RoundingMode::NearestEven);
    return true;
  }
  if (!Z3_is_numeral_ast(Z, V))
    return false;
  bool IsNaN = Z3_fpa_is_numeral_nan(Z, V);
  Z.check_error();
  if (IsNaN) {
    Bits = fp::canonicalNaN(F);
    return true;
  }
  z3::expr Raw = wrap(Z, Z3_mk_fpa_to_ieee_bv(Z, V)).simplify();
  if (!Raw.is_numeral())
    return false;
  Bits = Raw.get_numeral_uint64();
  return true;
}

} // namespace stagecheck::smt

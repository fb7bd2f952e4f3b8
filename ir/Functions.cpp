#include "ir/Functions.h"
#include "ir/FloatOps.h"

#include <cmath>
#include <vector>

namespace stagecheck::ir {

namespace {
template <double (*F)(double)> double unary(std::span<const double> A) {
  return F(A[0]);
}
template <double (*F)(double, double)> double binary(std::span<const double> A) {
  return F(A[0], A[1]);
}
double rsqrt(double X) { return 1.0 / std::sqrt(X); }
double rcp(double X) { return 1.0 / X; }
double divide(double X, double Y) { return X / Y; }
double exp(double X) { return std::exp(X); }
double exp2(double X) { return std::exp2(X); }
double log(double X) { return std::log(X); }
double log2(double X) { return std::log2(X); }
double log10(double X) { return std::log10(X); }
double log1p(double X) { return std::log1p(X); }
double expm1(double X) { return std::expm1(X); }
double sin(double X) { return std::sin(X); }
double cos(double X) { return std::cos(X); }
double tan(double X) { return std::tan(X); }
double asin(double X) { return std::asin(X); }
double acos(double X) { return std::acos(X); }
double atan(double X) { return std::atan(X); }
double sinh(double X) { return std::sinh(X); }
double cosh(double X) { return std::cosh(X); }
double tanh(double X) { return std::tanh(X); }
double asinh(double X) { return std::asinh(X); }
double acosh(double X) { return std::acosh(X); }
double atanh(double X) { return std::atanh(X); }
double erf(double X) { return std::erf(X); }
double erfc(double X) { return std::erfc(X); }
double cbrt(double X) { return std::cbrt(X); }
double sqrt(double X) { return std::sqrt(X); }
double floor(double X) { return std::floor(X); }
double ceil(double X) { return std::ceil(X); }
double trunc(double X) { return std::trunc(X); }
double rint(double X) { return std::nearbyint(X); }
double round(double X) { return std::round(X); }
double nearbyint(double X) { return std::nearbyint(X); }
// libdevice's classification functions answer an int: 1 or 0.
double isnan(double X) { return std::isnan(X) ? 1 : 0; }
double isinf(double X) { return std::isinf(X) ? 1 : 0; }
double isfinite(double X) { return std::isfinite(X) ? 1 : 0; }
double pow(double X, double Y) { return std::pow(X, Y); }
double atan2(double X, double Y) { return std::atan2(X, Y); }
double fmod(double X, double Y) { return std::fmod(X, Y); }
/// Illustrative only (Functions.h): C + sum of A[k] * B[k], one f32 fma at a
/// time in k order.
double mmaM16N8K16(std::span<const double> A) {
  float Acc = float(A[0]);
  for (size_t K = 0; K < 16; ++K)
    Acc = std::fma(float(A[1 + K]), float(A[17 + K]), Acc);
  return double(Acc);
}

// The PTX ISA's tables of corner-case results (the .f32 forms; a .ftz form
// reads a subnormal as a zero first, so its rows are these). A table lists
// only what it fixes: "-normal" is a negative normal number, and a negative
// subnormal of a form without .ftz is left free.
constexpr double Inf = __builtin_inf();
constexpr double Nan = __builtin_nan("");
using enum CornerInput;
const CornerCase Ex2Corners[] = {{NegInfinity, +0.0}, {NegZero, 1.0},
                                 {PosZero, 1.0},      {PosInfinity, Inf},
                                 {NaN, Nan}};
const CornerCase Lg2Corners[] = {{NegInfinity, Nan}, {NegNormal, Nan},
                                 {NegZero, -Inf},    {PosZero, -Inf},
                                 {PosInfinity, Inf}, {NaN, Nan}};
const CornerCase RcpCorners[] = {{NegInfinity, -0.0}, {NegZero, -Inf},
                                 {PosZero, Inf},      {PosInfinity, +0.0},
                                 {NaN, Nan}};
const CornerCase SqrtCorners[] = {{NegInfinity, Nan}, {NegNormal, Nan},
                                  {NegZero, -0.0},    {PosZero, +0.0},
                                  {PosInfinity, Inf}, {NaN, Nan}};
const CornerCase RsqrtCorners[] = {{NegInfinity, Nan}, {NegNormal, Nan},
                                   {NegZero, -Inf},    {PosZero, Inf},
                                   {PosInfinity, +0.0}, {NaN, Nan}};
const CornerCase SinCorners[] = {{NegInfinity, Nan}, {NegZero, -0.0},
                                 {PosZero, +0.0},    {PosInfinity, Nan},
                                 {NaN, Nan}};
const CornerCase CosCorners[] = {{NegInfinity, Nan}, {NegZero, 1.0},
                                 {PosZero, 1.0},     {PosInfinity, Nan},
                                 {NaN, Nan}};
const CornerCase TanhCorners[] = {{NegInfinity, -1.0}, {NegZero, -0.0},
                                  {PosZero, +0.0},     {PosInfinity, 1.0},
                                  {NaN, Nan}};

const FunctionInfo Table[] = {
    // Exact mathematical functions.
    {"exp", 1, false, unary<exp>, true},
    {"exp2", 1, false, unary<exp2>, true},
    {"log", 1, false, unary<log>, true},
    {"log2", 1, false, unary<log2>, true},
    {"log10", 1, false, unary<log10>, true},
    {"log1p", 1, false, unary<log1p>},
    {"expm1", 1, false, unary<expm1>},
    {"sin", 1, false, unary<sin>},
    {"cos", 1, false, unary<cos>, true},
    {"tan", 1, false, unary<tan>},
    {"asin", 1, false, unary<asin>},
    {"acos", 1, false, unary<acos>, true},
    {"atan", 1, false, unary<atan>},
    {"sinh", 1, false, unary<sinh>},
    {"cosh", 1, false, unary<cosh>, true},
    {"tanh", 1, false, unary<tanh>},
    {"asinh", 1, false, unary<asinh>},
    {"acosh", 1, false, unary<acosh>},
    {"atanh", 1, false, unary<atanh>},
    {"erf", 1, false, unary<erf>},
    {"erfc", 1, false, unary<erfc>, true},
    {"rsqrt", 1, false, unary<rsqrt>},
    {"cbrt", 1, false, unary<cbrt>},
    {"pow", 2, false, binary<pow>},
    {"atan2", 2, false, binary<atan2>},
    {"fmod", 2, false, binary<fmod>},
    // libdevice functions (tt.extern_elementwise, calls in LLVM IR), f32 and
    // f64: functions of their own, not the exact function they approximate;
    // their meaning comes from libdevice.10.bc. The host value is only a
    // plausible one.
#define LIBDEVICE_UNARY(N)                                                     \
  {"__nv_" #N "f", 1, false, unary<N>}, {"__nv_" #N, 1, false, unary<N>},
  // Those whose f32 bodies give -0 and +0 one value, proved on
  // libdevice.10.bc by tests/stages/ttgir_to_llir/LibdeviceZeroSignTest.cpp
  // (the f64 bodies are not lifted yet, so nothing is claimed of them).
#define LIBDEVICE_UNARY_EVEN_AT_ZERO(N)                                        \
  {"__nv_" #N "f", 1, false, unary<N>, true},                                 \
      {"__nv_" #N, 1, false, unary<N>},
#define LIBDEVICE_BINARY(N)                                                    \
  {"__nv_" #N "f", 2, false, binary<N>}, {"__nv_" #N, 2, false, binary<N>},
    LIBDEVICE_UNARY_EVEN_AT_ZERO(exp) LIBDEVICE_UNARY_EVEN_AT_ZERO(exp2)
    LIBDEVICE_UNARY(expm1) LIBDEVICE_UNARY_EVEN_AT_ZERO(log)
    LIBDEVICE_UNARY_EVEN_AT_ZERO(log2) LIBDEVICE_UNARY_EVEN_AT_ZERO(log10)
    LIBDEVICE_UNARY(log1p) LIBDEVICE_UNARY(sin)
    LIBDEVICE_UNARY(cos) LIBDEVICE_UNARY(tan)
    LIBDEVICE_UNARY(asin) LIBDEVICE_UNARY_EVEN_AT_ZERO(acos)
    LIBDEVICE_UNARY(atan) LIBDEVICE_UNARY(sinh)
    LIBDEVICE_UNARY(cosh) LIBDEVICE_UNARY(tanh)
    LIBDEVICE_UNARY(asinh) LIBDEVICE_UNARY(acosh) LIBDEVICE_UNARY(atanh)
    LIBDEVICE_UNARY(erf) LIBDEVICE_UNARY(erfc)
    LIBDEVICE_UNARY(rsqrt) LIBDEVICE_UNARY(cbrt) LIBDEVICE_UNARY(sqrt)
    LIBDEVICE_UNARY(floor) LIBDEVICE_UNARY(ceil) LIBDEVICE_UNARY(trunc)
    LIBDEVICE_UNARY(rint) LIBDEVICE_UNARY(round) LIBDEVICE_UNARY(nearbyint)
    {"__nv_isnanf", 1, false, unary<isnan>}, {"__nv_isnand", 1, false, unary<isnan>},
    {"__nv_isinff", 1, false, unary<isinf>}, {"__nv_isinfd", 1, false, unary<isinf>},
    {"__nv_finitef", 1, false, unary<isfinite>},
    {"__nv_isfinited", 1, false, unary<isfinite>},
    LIBDEVICE_BINARY(pow) LIBDEVICE_BINARY(atan2) LIBDEVICE_BINARY(fmod)
#undef LIBDEVICE_UNARY
#undef LIBDEVICE_UNARY_EVEN_AT_ZERO
#undef LIBDEVICE_BINARY
    // Approximate hardware ops (PTX spelling, without the type suffix).
    {"ex2.approx", 1, true, unary<exp2>, true, false, Ex2Corners},
    {"lg2.approx", 1, true, unary<log2>, true, false, Lg2Corners},
    {"rcp.approx", 1, true, unary<rcp>, false, false, RcpCorners},
    {"rsqrt.approx", 1, true, unary<rsqrt>, false, false, RsqrtCorners},
    {"sqrt.approx", 1, true, unary<sqrt>, false, false, SqrtCorners},
    {"sin.approx", 1, true, unary<sin>, false, false, SinCorners},
    {"cos.approx", 1, true, unary<cos>, true, false, CosCorners},
    {"tanh.approx", 1, true, unary<tanh>, false, false, TanhCorners},
    // The ISA gives no corner cases for its divisions, only an ulp bound.
    // div.full's quotient at special operands is measured on sm_90
    // (measuredDivision); the lifters spell it so there.
    {"div.approx", 2, true, binary<divide>},
    {"div.full", 2, true, binary<divide>},
    {"div.full.sm_90", 2, true, binary<divide>, false, false, {}, true},
    // Their .ftz forms are instructions of their own (subnormal inputs and
    // results flush to zero); the PTX ISA does not relate them to the forms
    // above. Where the hardware was measured to (measuredFtzForm), the
    // lifters spell a .ftz form as the plain one between flushes and these
    // names are not used.
    {"ex2.approx.ftz", 1, true, unary<exp2>, true, true, Ex2Corners},
    {"lg2.approx.ftz", 1, true, unary<log2>, true, true, Lg2Corners},
    {"rcp.approx.ftz", 1, true, unary<rcp>, false, true, RcpCorners},
    {"rsqrt.approx.ftz", 1, true, unary<rsqrt>, false, true, RsqrtCorners},
    {"sqrt.approx.ftz", 1, true, unary<sqrt>, false, true, SqrtCorners},
    {"sin.approx.ftz", 1, true, unary<sin>, false, true, SinCorners},
    {"cos.approx.ftz", 1, true, unary<cos>, true, true, CosCorners},
    {"div.approx.ftz", 2, true, binary<divide>, false, true},
    {"div.full.ftz", 2, true, binary<divide>, false, true},
    {"div.full.ftz.sm_90", 2, true, binary<divide>, false, true, {}, true},
    // A tensor-core instruction's output element: hardware arithmetic the
    // PTX ISA does not specify (Functions.h).
    {MmaM16N8K16F32F16, 33, true, mmaM16N8K16},
};
} // namespace

Value canonicalArgument(const FunctionInfo &F, Value Argument) {
  if (!Argument.Ty.isFloat())
    return Argument;
  FloatFormat Format = floatFormat(Argument.Ty);
  uint64_t Bits = Argument.Bits;
  if (F.FlushesSubnormalArguments)
    Bits = fp::flushSubnormal(Bits, Format);
  if (F.IgnoresSignOfZero && fp::decode(Bits, Format).Kind == fp::Class::Zero)
    Bits = fp::zero(Format, /*Negative=*/false);
  return Value::ofBits(Argument.Ty, Bits);
}

/// The row of a corner-case table an argument falls in, if any class does.
static std::optional<CornerInput> cornerInput(Value Argument) {
  fp::Decoded D = fp::decode(Argument.Bits, floatFormat(Argument.Ty));
  switch (D.Kind) {
  case fp::Class::NaN:
    return CornerInput::NaN;
  case fp::Class::Infinity:
    return D.Negative ? CornerInput::NegInfinity : CornerInput::PosInfinity;
  case fp::Class::Zero:
    return D.Negative ? CornerInput::NegZero : CornerInput::PosZero;
  case fp::Class::Normal:
    if (D.Negative)
      return CornerInput::NegNormal;
    return std::nullopt;
  case fp::Class::Subnormal:
    return std::nullopt;
  }
  return std::nullopt;
}

/// IEEE's quotient X / Y where X or Y is a zero, an infinity or a NaN:
/// exact, so no rounding is involved.
static std::optional<Value> specialQuotient(Value X, Value Y, Type Result) {
  FloatFormat Format = floatFormat(Result);
  fp::Decoded Dx = fp::decode(X.Bits, Format), Dy = fp::decode(Y.Bits, Format);
  auto Special = [](fp::Class C) {
    return C == fp::Class::Zero || C == fp::Class::Infinity ||
           C == fp::Class::NaN;
  };
  if (!Special(Dx.Kind) && !Special(Dy.Kind))
    return std::nullopt;
  bool Negative = Dx.Negative != Dy.Negative;
  if (Dx.Kind == fp::Class::NaN || Dy.Kind == fp::Class::NaN ||
      (Dx.Kind == fp::Class::Zero && Dy.Kind == fp::Class::Zero) ||
      (Dx.Kind == fp::Class::Infinity && Dy.Kind == fp::Class::Infinity))
    return Value::ofBits(Result, fp::canonicalNaN(Format));
  if (Dx.Kind == fp::Class::Infinity || Dy.Kind == fp::Class::Zero)
    return Value::ofDouble(Result, Negative ? -Inf : Inf);
  return Value::ofBits(Result, fp::zero(Format, Negative));
}

std::optional<Value> cornerCaseResult(const FunctionInfo &F,
                                      std::span<const Value> Arguments,
                                      Type Result) {
  if (F.ExactAtSpecialOperands && Arguments.size() == 2 &&
      Arguments[0].Ty == Type::f32() && Arguments[1].Ty == Type::f32() &&
      Result == Type::f32())
    return specialQuotient(Arguments[0], Arguments[1], Result);
  if (F.CornerCases.empty() || Arguments.size() != 1 ||
      Arguments[0].Ty != Type::f32() || Result != Type::f32())
    return std::nullopt;
  std::optional<CornerInput> In = cornerInput(Arguments[0]);
  for (const CornerCase &C : F.CornerCases)
    if (In && C.Input == *In)
      return cornerResult(C, Result);
  return std::nullopt;
}

Value cornerResult(const CornerCase &C, Type Result) {
  return std::isnan(C.Result)
             ? Value::ofBits(Result, fp::canonicalNaN(floatFormat(Result)))
             : Value::ofDouble(Result, C.Result);
}

const FunctionInfo *lookupFunction(std::string_view Name) {
  for (const FunctionInfo &F : Table)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

std::span<const FunctionInfo> allFunctions() { return Table; }

double hostResult(const FunctionInfo &F, std::span<const Value> Arguments) {
  std::vector<double> Doubles;
  for (const Value &A : Arguments)
    Doubles.push_back(A.Ty.isFloat() ? A.asDouble() : double(A.Bits));
  return F.Host(Doubles);
}

bool plausibleResult(const FunctionInfo &F, std::span<const Value> Arguments,
                     const Value &Result) {
  if (!F.Host || !Result.Ty.isFloat())
    return true;
  // The host's value rounded to the result's type: an overflow is an
  // infinity on both.
  double Want = Value::ofDouble(Result.Ty, hostResult(F, Arguments)).asDouble();
  double Got = Result.asDouble();
  if (std::isnan(Want) || std::isnan(Got))
    return std::isnan(Want) && std::isnan(Got);
  if (Want == Got)
    return true;
  if (std::isinf(Want) || std::isinf(Got))
    return false;
  return std::fabs(Want - Got) <= 0x1p-10 * std::fabs(Want) + 0x1p-20;
}

std::span<const ExactPoint> exactPoints(std::string_view Name) {
  struct Points {
    std::string_view Name;
    ExactPoint At[1];
  };
  static const Points Table[] = {
      {"exp", {{0, 1}}},    {"exp2", {{0, 1}}},  {"expm1", {{0, 0}}},
      {"log", {{1, 0}}},    {"log2", {{1, 0}}},  {"log10", {{1, 0}}},
      {"log1p", {{0, 0}}},  {"sin", {{0, 0}}},   {"cos", {{0, 1}}},
      {"tan", {{0, 0}}},    {"asin", {{0, 0}}},  {"acos", {{1, 0}}},
      {"atan", {{0, 0}}},   {"sinh", {{0, 0}}},  {"cosh", {{0, 1}}},
      {"tanh", {{0, 0}}},   {"asinh", {{0, 0}}}, {"acosh", {{1, 0}}},
      {"atanh", {{0, 0}}},  {"erf", {{0, 0}}},   {"erfc", {{0, 1}}},
      {"rsqrt", {{1, 1}}},  {"cbrt", {{0, 0}}}};
  for (const Points &P : Table)
    if (P.Name == Name)
      return P.At;
  return {};
}

FtzForm measuredFtzForm(std::string_view Plain, Type T, unsigned SmVersion) {
  // Measured on an NVIDIA H200 and an H100 80GB HBM3 (both sm_90, driver
  // 580.159.04; the same counts) by
  // scripts/ftz_relation.cu over all 2^32 f32 arguments: every .ftz form
  // below is its plain form between flushes, and only ex2 and rcp have
  // plain results in the subnormals (2^-149 <= ex2 < 2^-126, rcp of
  // |x| > 2^126). Other architectures were not measured.
  struct Measured {
    std::string_view Plain;
    bool ResultNeverSubnormal;
  };
  static const Measured Sm90[] = {
      {"rsqrt.approx", true}, {"ex2.approx", false}, {"lg2.approx", true},
      {"rcp.approx", false},  {"sqrt.approx", true}, {"sin.approx", true},
      {"cos.approx", true}};
  if (SmVersion != 90 || T != Type::f32())
    return {};
  for (const Measured &M : Sm90)
    if (M.Plain == Plain)
      return {true, M.ResultNeverSubnormal};
  return {};
}

std::string_view measuredDivision(std::string_view Name, Type T,
                                  unsigned SmVersion) {
  // Measured on an NVIDIA H100 80GB HBM3 (sm_90) by
  // scripts/div_full_specials.cu: every f32 operand against each zero,
  // infinity and NaN on either side, 0 of 60129542144 cases per form off
  // IEEE's quotient (the .ftz form's operands flushed first, the plain
  // form's not). Other architectures were not measured.
  if (SmVersion != 90 || T != Type::f32())
    return Name;
  if (Name == "div.full")
    return "div.full.sm_90";
  if (Name == "div.full.ftz")
    return "div.full.ftz.sm_90";
  return Name;
}

} // namespace stagecheck::ir

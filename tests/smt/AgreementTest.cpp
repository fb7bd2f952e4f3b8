// The interpreter and the SMT encoding must agree on every op kind of
// ir/Ops.def: integer ops exhaustively at widths 1 to 8; float ops on f16,
// bf16, f32 (and f64) over at least 4,096 inputs per op, built from the
// special values (zeros, infinities, quiet and signalling NaNs, subnormals,
// the largest finite values and their neighbours) and a random sample. An op
// with no generator below fails, so a new op cannot go unchecked.
#include "ir/FloatOps.h"
#include "ir/Functions.h"
#include "ir/Interpreter.h"
#include "smt/Evaluate.h"

#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

std::vector<Op> allOps() {
  return {
#define OP(Name, Spelling, Category) Op::Name,
#include "ir/Ops.def"
  };
}

const Type FloatTypes[] = {Type::f16(), Type::bf16(), Type::f32(), Type::f64()};
const RoundingMode ArithmeticModes[] = {RoundingMode::NearestEven, RoundingMode::TowardZero,
                                        RoundingMode::Down, RoundingMode::Up};

/// Checks one expression over many inputs; remembers the first mismatches.
class Agreement {
public:
  Agreement(const Expr *Root, std::vector<const Expr *> Inputs)
      : Root(Root), Inputs(std::move(Inputs)), Encoded(Root) {}

  void check(const std::vector<Value> &Values, const Env *Extra = nullptr) {
    Env E = Extra ? *Extra : Env();
    for (size_t I = 0; I < Inputs.size(); ++I)
      E.setSymbol(Inputs[I]->name(), Values[I]);
    Interpreter In(E);
    Value Expected = In.eval(Root);
    std::optional<Value> Got = Encoded.evaluate(E);
    ++Checked;
    if (Got && Got->sameAs(Expected))
      return;
    if (++Failures <= 5) {
      std::string Args;
      for (const Value &V : Values)
        Args += " " + V.str();
      ADD_FAILURE() << spelling(Root->op()) << " " << Root->type().str()
                    << " attr " << int(Root->rawAttribute()) << " on" << Args
                    << ": interpreter " << Expected.str() << ", smt "
                    << (Got ? Got->str() : std::string("(no numeral)"));
    }
  }
  size_t Checked = 0, Failures = 0;

private:
  const Expr *Root;
  std::vector<const Expr *> Inputs;
  smt::EncodingEvaluator Encoded;
};

std::vector<uint64_t> specialFloats(Type T) {
  FloatFormat F = floatFormat(T);
  unsigned M = F.MantissaBits;
  uint64_t ExpMask = ((uint64_t(1) << F.ExponentBits) - 1) << M;
  uint64_t Sign = fp::zero(F, true);
  uint64_t One = uint64_t(F.bias()) << M;
  std::vector<uint64_t> Pos = {
      0,                                   // +0
      ExpMask,                             // +inf
      fp::canonicalNaN(F),                 // quiet NaN
      ExpMask | 1,                         // signalling NaN
      ExpMask | (uint64_t(1) << (M - 1)) | 5, // quiet NaN with payload
      1,                                   // smallest subnormal
      2,
      (uint64_t(1) << M) - 1,              // largest subnormal
      uint64_t(1) << M,                    // smallest normal
      (uint64_t(1) << M) + 1,
      ExpMask - 1,                         // largest finite
      ExpMask - 2,                         // its neighbour
      One, One + 1, One - 1,               // 1 and its neighbours
      One - (uint64_t(1) << M),            // 0.5
      One + (uint64_t(1) << M),            // 2
      One + (uint64_t(1) << M) + (uint64_t(1) << (M - 1)), // 3
      One + (uint64_t(1) << (M - 1)),      // 1.5
      fp::fromDouble(0.1, F, RoundingMode::NearestEven),
      fp::fromDouble(2.5, F, RoundingMode::NearestEven),
      fp::fromDouble(127.5, F, RoundingMode::NearestEven),
      fp::fromDouble(255.0, F, RoundingMode::NearestEven),
      fp::fromDouble(32768.0, F, RoundingMode::NearestEven),
      fp::fromDouble(2147483648.0, F, RoundingMode::NearestEven),
      fp::fromDouble(4294967296.0, F, RoundingMode::NearestEven),
      fp::fromDouble(9.2233720368547758e18, F, RoundingMode::NearestEven),
      fp::fromDouble(1.8446744073709552e19, F, RoundingMode::NearestEven),
      fp::fromDouble(std::ldexp(1.0, int(M) + 1), F, RoundingMode::NearestEven),
  };
  std::set<uint64_t> All;
  for (uint64_t V : Pos) {
    All.insert(V);
    All.insert(V | Sign);
  }
  return {All.begin(), All.end()};
}

uint64_t randomFloat(Type T, std::mt19937_64 &Rng) {
  FloatFormat F = floatFormat(T);
  uint64_t Bits = Rng() & Value::mask(T.bits());
  if (Rng() % 2) { // exponent near 1 so that rounding is exercised
    uint64_t Exp = uint64_t(F.bias() + int(Rng() % 7) - 3);
    Bits = (Bits & ~(((uint64_t(1) << F.ExponentBits) - 1) << F.MantissaBits)) |
           (Exp << F.MantissaBits);
  }
  return Bits;
}

/// Tuples of float inputs: the cross product of the special values (capped
/// for three operands), topped up with random values to at least Count.
std::vector<std::vector<uint64_t>> floatInputs(Type T, unsigned Arity,
                                               size_t Count, uint64_t Seed) {
  std::vector<uint64_t> S = specialFloats(T);
  std::vector<std::vector<uint64_t>> Out;
  std::mt19937_64 Rng(Seed);
  if (Arity == 1)
    for (uint64_t A : S)
      Out.push_back({A});
  if (Arity == 2)
    for (uint64_t A : S)
      for (uint64_t B : S)
        Out.push_back({A, B});
  if (Arity == 3)
    for (uint64_t A : S)
      for (uint64_t B : S)
        Out.push_back({A, B, S[Rng() % S.size()]});
  while (Out.size() < Count) {
    std::vector<uint64_t> Tuple;
    for (unsigned I = 0; I < Arity; ++I)
      Tuple.push_back(Rng() % 4 == 0 ? S[Rng() % S.size()] : randomFloat(T, Rng));
    Out.push_back(Tuple);
  }
  return Out;
}

size_t floatSampleSize(Type T, RoundingMode M) {
  if (T == Type::f64())
    return 1024; // the host's own f64 arithmetic; fewer samples
  return M == RoundingMode::NearestEven ? 4096 : 1024;
}

std::vector<const Expr *> symbols(Context &C, const std::vector<Type> &Types) {
  std::vector<const Expr *> Out;
  for (size_t I = 0; I < Types.size(); ++I)
    Out.push_back(C.symbol("s" + std::to_string(I), Types[I]));
  return Out;
}

void checkFloatOp(Op O, unsigned Arity) {
  for (Type T : FloatTypes) {
    std::vector<RoundingMode> Modes = {RoundingMode::NearestEven};
    if (hasRounding(O)) {
      Modes.assign(std::begin(ArithmeticModes), std::end(ArithmeticModes));
      if (O == Op::FRoundInt)
        Modes.push_back(RoundingMode::NearestAway);
    }
    for (RoundingMode M : Modes) {
      Context C;
      auto In = symbols(C, std::vector<Type>(Arity, T));
      const Expr *E = C.make(O, In, hasRounding(O) ? uint8_t(M) : 0);
      Agreement A(E, In);
      size_t N = floatSampleSize(T, M);
      for (const auto &Tuple : floatInputs(T, Arity, N, uint64_t(O) * 31 + uint64_t(M))) {
        std::vector<Value> Values;
        for (uint64_t B : Tuple)
          Values.push_back({T, B});
        A.check(Values);
      }
      EXPECT_GE(A.Checked, N);
      ASSERT_EQ(A.Failures, 0u) << spelling(O) << " " << T.str() << " " << spelling(M);
    }
  }
}

void checkIntegerOp(Op O, unsigned Arity) {
  for (unsigned W = 1; W <= 8; ++W) {
    Context C;
    Type T = Type::i(W);
    auto In = symbols(C, std::vector<Type>(Arity, T));
    std::vector<uint8_t> Attrs = {0};
    if (O == Op::ICmp)
      for (unsigned P = 1; P < NumICmpPredicates; ++P)
        Attrs.push_back(uint8_t(P));
    for (uint8_t Attr : Attrs) {
      const Expr *E = C.make(O, In, Attr);
      Agreement A(E, In);
      uint64_t N = uint64_t(1) << W;
      if (Arity == 1)
        for (uint64_t X = 0; X < N; ++X)
          A.check({Value::ofBits(T, X)});
      else
        for (uint64_t X = 0; X < N; ++X)
          for (uint64_t Y = 0; Y < N; ++Y)
            A.check({Value::ofBits(T, X), Value::ofBits(T, Y)});
      EXPECT_EQ(A.Checked, Arity == 1 ? N : N * N);
      ASSERT_EQ(A.Failures, 0u) << spelling(O) << " i" << W;
    }
  }
}

void checkIntCast(Op O) {
  if (O == Op::PtrToInt || O == Op::IntToPtr) {
    Context C;
    Type From = O == Op::PtrToInt ? Type::ptr(AddressSpace::Global) : Type::i(64);
    Type To = O == Op::PtrToInt ? Type::i(64) : Type::ptr(AddressSpace::Global);
    auto In = symbols(C, {From});
    Agreement A(C.cast(O, In[0], To), In);
    std::mt19937_64 Rng(1);
    for (int I = 0; I < 4096; ++I)
      A.check({Value::ofBits(From, I < 64 ? (uint64_t(1) << I) : Rng())});
    ASSERT_EQ(A.Failures, 0u);
    return;
  }
  for (unsigned From = 1; From <= 8; ++From)
    for (unsigned To = 1; To <= 8; ++To) {
      if ((O == Op::Trunc) != (To < From) || From == To)
        continue;
      Context C;
      auto In = symbols(C, {Type::i(From)});
      Agreement A(C.cast(O, In[0], Type::i(To)), In);
      for (uint64_t X = 0; X < (uint64_t(1) << From); ++X)
        A.check({Value::ofBits(Type::i(From), X)});
      ASSERT_EQ(A.Failures, 0u) << spelling(O) << " i" << From << " -> i" << To;
    }
}

void checkFloatToFloat() {
  for (Type From : FloatTypes)
    for (Type To : FloatTypes)
      for (RoundingMode M : ArithmeticModes) {
        Context C;
        auto In = symbols(C, {From});
        Agreement A(C.cast(Op::FPCast, In[0], To, M), In);
        for (const auto &T : floatInputs(From, 1, floatSampleSize(From, M), 11))
          A.check({Value{From, T[0]}});
        ASSERT_EQ(A.Failures, 0u) << From.str() << " -> " << To.str();
      }
}

void checkFloatToInt(Op O) {
  for (Type From : FloatTypes)
    for (unsigned W : {1u, 8u, 16u, 32u, 64u})
      for (RoundingMode M : {RoundingMode::NearestEven, RoundingMode::TowardZero,
                             RoundingMode::Down, RoundingMode::Up,
                             RoundingMode::NearestAway}) {
        Context C;
        auto In = symbols(C, {From});
        Agreement A(C.cast(O, In[0], Type::i(W), M), In);
        std::vector<std::vector<uint64_t>> Inputs =
            floatInputs(From, 1, floatSampleSize(From, M), W);
        // Integers around every width's limits.
        for (int K = 0; K <= 65; ++K)
          for (double D : {std::ldexp(1.0, K), std::ldexp(1.0, K) - 1,
                           std::ldexp(1.0, K) + 1, std::ldexp(1.0, K) - 0.5})
            for (double S : {1.0, -1.0})
              Inputs.push_back({fp::fromDouble(S * D, floatFormat(From), RoundingMode::NearestEven)});
        for (const auto &T : Inputs)
          A.check({Value{From, T[0]}});
        ASSERT_EQ(A.Failures, 0u) << spelling(O) << " " << From.str() << " -> i" << W;
      }
}

void checkIntToFloat(Op O) {
  std::mt19937_64 Rng(5);
  for (Type To : FloatTypes)
    for (unsigned W : {1u, 2u, 3u, 5u, 8u, 16u, 32u, 64u})
      for (RoundingMode M : ArithmeticModes) {
        Context C;
        Type From = Type::i(W);
        auto In = symbols(C, {From});
        Agreement A(C.cast(O, In[0], To, M), In);
        if (W <= 8) {
          for (uint64_t X = 0; X < (uint64_t(1) << W); ++X)
            A.check({Value::ofBits(From, X)});
        } else {
          for (int I = 0; I < 1024; ++I) {
            uint64_t X = Rng();
            if (I < 3 * 64) // around powers of two, where rounding is decided
              X = (uint64_t(1) << (I / 3)) + uint64_t(I % 3) - 1;
            else if (I % 2)
              X >>= Rng() % 64;
            A.check({Value::ofBits(From, X)});
          }
        }
        ASSERT_EQ(A.Failures, 0u) << spelling(O) << " i" << W << " -> " << To.str();
      }
}

void checkBitcast() {
  const std::pair<Type, Type> Pairs[] = {
      {Type::i(16), Type::f16()}, {Type::i(16), Type::bf16()},
      {Type::f16(), Type::bf16()}, {Type::i(32), Type::f32()},
      {Type::i(64), Type::f64()}};
  for (auto [A, B] : Pairs)
    for (auto [From, To] : {std::pair{A, B}, std::pair{B, A}}) {
      Context C;
      auto In = symbols(C, {From});
      Agreement Ag(C.cast(Op::Bitcast, In[0], To), In);
      Type FloatSide = From.isFloat() ? From : To;
      for (const auto &T : floatInputs(FloatSide, 1, 4096, 3))
        Ag.check({Value::ofBits(From, T[0])});
      ASSERT_EQ(Ag.Failures, 0u) << From.str() << " -> " << To.str();
    }
}

void checkSelect() {
  for (Type T : {Type::i(1), Type::i(3), Type::f16()}) {
    Context C;
    auto In = symbols(C, {Type::boolean(), T, T});
    Agreement A(C.select(In[0], In[1], In[2]), In);
    for (uint64_t Cond = 0; Cond < 2; ++Cond)
      for (uint64_t X = 0; X < 8; ++X)
        for (uint64_t Y = 0; Y < 8; ++Y)
          A.check({Value::ofBool(Cond), Value::ofBits(T, X * 0x1111),
                   Value::ofBits(T, Y * 0x0f0f)});
    ASSERT_EQ(A.Failures, 0u);
  }
}

void checkCall() {
  Context C;
  auto In = symbols(C, {Type::f32(), Type::f32()});
  const Expr *Args1[] = {In[0]};
  const Expr *Args2[] = {In[0], In[1]};
  // exp(s0) + pow(s0, s1): the encoding must apply each function to the
  // right arguments and take the value the environment fixes.
  const Expr *E = C.floatBinary(Op::FAdd, C.call("exp", Type::f32(), Args1),
                                C.call("pow", Type::f32(), Args2));
  Agreement A(E, In);
  std::mt19937_64 Rng(9);
  for (int I = 0; I < 256; ++I) {
    Value X{Type::f32(), randomFloat(Type::f32(), Rng)};
    Value Y{Type::f32(), randomFloat(Type::f32(), Rng)};
    Env Extra;
    Extra.setCall("exp", {X}, Value{Type::f32(), randomFloat(Type::f32(), Rng)});
    Extra.setCall("pow", {X, Y}, Value{Type::f32(), randomFloat(Type::f32(), Rng)});
    A.check({X, Y}, &Extra);
  }
  ASSERT_EQ(A.Failures, 0u);

  // At the corner cases the PTX ISA fixes, both take the table's value,
  // whatever an environment says; elsewhere both take the environment's.
  size_t Functions = 0;
  for (const FunctionInfo &F : allFunctions()) {
    if (F.CornerCases.empty())
      continue;
    ++Functions;
    auto Arg = symbols(C, {Type::f32()});
    const Expr *Args[] = {Arg[0]};
    Agreement Corner(C.call(F.Name, Type::f32(), Args), Arg);
    for (uint64_t B : specialFloats(Type::f32())) {
      Value X{Type::f32(), B};
      Env Hostile;
      Hostile.setCall(std::string(F.Name), {X}, Value::ofDouble(Type::f32(), 42.0));
      Corner.check({X}, &Hostile);
    }
    ASSERT_EQ(Corner.Failures, 0u) << F.Name;
  }
  EXPECT_EQ(Functions, 15u);

  // A division exact at special operands: IEEE's quotient wherever either
  // operand is a zero, an infinity or a NaN (a subnormal read as zero by a
  // .ftz form), the environment's value elsewhere.
  size_t Divisions = 0;
  for (const FunctionInfo &F : allFunctions()) {
    if (!F.ExactAtSpecialOperands)
      continue;
    ++Divisions;
    auto Ops = symbols(C, {Type::f32(), Type::f32()});
    const Expr *Args[] = {Ops[0], Ops[1]};
    Agreement Quotient(C.call(F.Name, Type::f32(), Args), Ops);
    for (uint64_t Bx : specialFloats(Type::f32()))
      for (uint64_t By : specialFloats(Type::f32())) {
        Value X{Type::f32(), Bx}, Y{Type::f32(), By};
        Env Hostile;
        Hostile.setCall(std::string(F.Name),
                        {canonicalArgument(F, X), canonicalArgument(F, Y)},
                        Value::ofDouble(Type::f32(), 42.0));
        Quotient.check({X, Y}, &Hostile);
      }
    ASSERT_EQ(Quotient.Failures, 0u) << F.Name;
  }
  EXPECT_EQ(Divisions, 2u);
}

void checkLeaf(Op O) {
  Context C;
  if (O == Op::Const) {
    size_t Checked = 0;
    for (Type T : FloatTypes)
      for (uint64_t B : specialFloats(T)) {
        smt::EncodingEvaluator E(C.constant(T, B));
        std::optional<Value> V = E.evaluate(Env());
        ASSERT_TRUE(V && V->sameAs(Value{T, B})) << Value{T, B}.str();
        ++Checked;
      }
    for (unsigned W = 1; W <= 8; ++W)
      for (uint64_t X = 0; X < (uint64_t(1) << W); ++X) {
        smt::EncodingEvaluator E(C.constant(Type::i(W), X));
        std::optional<Value> V = E.evaluate(Env());
        ASSERT_TRUE(V && V->Bits == X);
        ++Checked;
      }
    EXPECT_GT(Checked, 500u);
    return;
  }
  if (O == Op::Symbol) {
    for (Type T : {Type::i(1), Type::i(7), Type::f16(), Type::ptr(AddressSpace::Global)}) {
      auto In = symbols(C, {T});
      Agreement A(In[0], In);
      for (uint64_t X = 0; X < 128; ++X)
        A.check({Value::ofBits(T, X * 0x0101)});
      ASSERT_EQ(A.Failures, 0u);
    }
    return;
  }
  // Read: the encoding reads the buffer's array at the interpreted index.
  auto In = symbols(C, {Type::i(64)});
  const Expr *R = C.read("buf", Type::bf16(), C.add(In[0], C.constant(Type::i(64), 1)));
  Agreement A(R, In);
  for (uint64_t I = 0; I < 256; ++I) {
    Env Extra;
    Extra.setRead("buf", I + 1, Value::ofBits(Type::bf16(), I * 77));
    Extra.setRead("buf", I, Value::ofBits(Type::bf16(), 12345));
    A.check({Value::ofBits(Type::i(64), I)}, &Extra);
  }
  ASSERT_EQ(A.Failures, 0u);
}

class OpAgreement : public ::testing::TestWithParam<Op> {};

TEST_P(OpAgreement, InterpreterAndEncodingAgree) {
  Op O = GetParam();
  switch (category(O)) {
  case OpCategory::Leaf:
    return checkLeaf(O);
  case OpCategory::IntBinary:
  case OpCategory::ICmp:
    return checkIntegerOp(O, 2);
  case OpCategory::IntUnary:
    return checkIntegerOp(O, 1);
  case OpCategory::IntCast:
    return checkIntCast(O);
  case OpCategory::FloatBinaryRounded:
  case OpCategory::FloatBinary:
    return checkFloatOp(O, 2);
  case OpCategory::FloatUnary:
  case OpCategory::FloatUnaryRounded:
    return checkFloatOp(O, 1);
  case OpCategory::FloatTernaryRounded:
    return checkFloatOp(O, 3);
  case OpCategory::FCmp:
    for (unsigned P = 0; P < NumFCmpPredicates; ++P)
      for (Type T : FloatTypes) {
        Context C;
        auto In = symbols(C, {T, T});
        Agreement A(C.fcmp(FCmpPredicate(P), In[0], In[1]), In);
        for (const auto &Tuple : floatInputs(T, 2, 4096, P))
          A.check({Value{T, Tuple[0]}, Value{T, Tuple[1]}});
        ASSERT_EQ(A.Failures, 0u) << spelling(FCmpPredicate(P)) << " " << T.str();
      }
    return;
  case OpCategory::FloatToFloat:
    return checkFloatToFloat();
  case OpCategory::FloatToInt:
    return checkFloatToInt(O);
  case OpCategory::IntToFloat:
    return checkIntToFloat(O);
  case OpCategory::Bitcast:
    return checkBitcast();
  case OpCategory::Select:
    return checkSelect();
  case OpCategory::Call:
    return checkCall();
  }
  FAIL() << "no agreement generator for op " << spelling(O);
}

INSTANTIATE_TEST_SUITE_P(EveryOp, OpAgreement, ::testing::ValuesIn(allOps()),
                         [](const ::testing::TestParamInfo<Op> &Info) {
                           std::string S = spelling(Info.param);
                           for (char &Ch : S)
                             if (!std::isalnum((unsigned char)Ch))
                               Ch = '_';
                           return S;
                         });

TEST(OpAgreement, EveryCategoryHasAGenerator) {
  // The switch above has no default: a new category is a compile warning
  // (an error with -Werror); a new op in an existing category is checked.
  EXPECT_EQ(allOps().size(), NumOps);
}

/// An infinity has no value over the reals: evaluating an expression that
/// holds one there gives no value (its caller then asks the solver, which
/// answers unknown), never an exception out of a check. Finite values
/// still evaluate.
TEST(EncodingEvaluator, AnInfinityOverTheRealsHasNoValue) {
  Context C;
  Type F32 = Type::f32();
  const Expr *X = C.symbol("x", F32);
  Env E;
  E.setSymbol("x", Value::ofDouble(F32, 2.0));
  const Expr *IsInf =
      C.fcmp(FCmpPredicate::Oeq, X, C.floatConst(F32, INFINITY));
  EXPECT_FALSE(smt::EncodingEvaluator(IsInf, smt::Mode::Real).evaluate(E));
  const Expr *IsTwo = C.fcmp(FCmpPredicate::Oeq, X, C.floatConst(F32, 2.0));
  std::optional<Value> Two =
      smt::EncodingEvaluator(IsTwo, smt::Mode::Real).evaluate(E);
  ASSERT_TRUE(Two);
  EXPECT_TRUE(Two->isTrue());
}

} // namespace

//===- LiftConvert.cpp - cvt and mov --------------------------------------===//
//
// cvt between every pair of integer and float types PTX has: integers
// extend by the source's signedness and truncate (.sat clamps to the
// destination's range); float -> int rounds in the .rni/.rzi/.rmi/.rpi mode,
// saturates and maps NaN to 0 (the IR's fptosi/fptoui); int -> float and
// narrowing float conversions round in .rn/.rz/.rm/.rp; widening is exact;
// a float -> same float cvt with an integer rounding mode rounds to an
// integral value. .ftz flushes f32 subnormal inputs and results; .sat on a
// float result clamps to [0, 1]. cvt.rn.f16x2.f32 d, a, b puts a in the
// upper half and b in the lower.
//
// mov copies bits; mov.b32 d, {lo, hi} packs and mov.b32 {lo, hi}, a
// unpacks (the first element in the lowest bits); mov of a special
// register, a shared variable or an immediate reads its value.
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/Executor.h"
#include "ptx_lifter/Semantics.h"

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

bool isInt(PtxType T) { return !T.isFloat() && !T.isPred(); }

const Expr *flushF32(Step &S, const Expr *V, bool Ftz) {
  return sem::flush(S.C, V, Ftz && V->type() == Type::f32());
}

/// Clamps the integer V of type From to the range of type To (cvt.sat).
const Expr *clampInt(Step &S, const Expr *V, PtxType From, PtxType To) {
  Context &C = S.C;
  Type T = V->type();
  unsigned W = From.Bits;
  auto Limit = [&](bool Signed, unsigned Bits, bool Max) -> int64_t {
    if (Signed)
      return Max ? (int64_t(1) << (Bits - 1)) - 1 : -(int64_t(1) << (Bits - 1));
    return Max ? int64_t((uint64_t(1) << Bits) - 1) : 0;
  };
  if (From.isSigned()) {
    // A signed source is below an unsigned destination's 0, and beyond a
    // narrower destination's range on either side.
    if (!To.isSigned() || To.Bits < W)
      V = C.binary(Op::SMax, V,
                   C.intConst(T, Limit(To.isSigned(), To.Bits, false)));
    if (To.Bits < W)
      V = C.binary(Op::SMin, V,
                   C.intConst(T, Limit(To.isSigned(), To.Bits, true)));
    return V;
  }
  // An unsigned source only exceeds the maximum.
  unsigned MaxBits = To.isSigned() ? To.Bits - 1 : To.Bits;
  if (MaxBits < W)
    V = C.binary(Op::UMin, V, C.constant(T, (uint64_t(1) << MaxBits) - 1));
  return V;
}

void convertInt(Step &S, PtxType D, PtxType A) {
  Context &C = S.C;
  const Expr *V = S.value(1, A);
  if (S.has("sat"))
    V = clampInt(S, V, A, D);
  Type To = Type::i(D.Bits);
  V = A.isSigned() ? C.sextOrTrunc(V, To) : C.zextOrTrunc(V, To);
  S.set(0, V, D.isSigned());
}

void convertFloat(Step &S, PtxType D, PtxType A) {
  Context &C = S.C;
  bool Ftz = S.has("ftz");
  const Expr *In = S.floatLane(1, A, 0);
  Type To = D.laneType();
  if (To == In->type() && !S.hasRounding()) {
    // cvt.ftz.sat.f32.f32 is llvm.nvvm.saturate.ftz.f: one builder for both.
    S.setFloats(0, {S.has("sat") ? sem::saturate(C, In, Ftz && A.Bits == 32)
                                 : flushF32(S, In, Ftz)});
    return;
  }
  const Expr *V;
  if (To == In->type()) {
    // cvt.rmi.f32.f32 is llvm.nvvm.floor.f: one builder for both.
    V = sem::roundToIntegral(C, In, S.rounding(), Ftz && A.Bits == 32);
  } else {
    V = C.cast(Op::FPCast, flushF32(S, In, Ftz), To, S.rounding());
    V = flushF32(S, V, Ftz);
  }
  if (S.has("sat"))
    V = sem::saturate(C, V);
  S.setFloats(0, {V});
}

void convertFloatToInt(Step &S, PtxType D, PtxType A) {
  const Expr *V = flushF32(S, S.floatLane(1, A, 0), S.has("ftz"));
  Op O = D.isSigned() ? Op::FPToSI : Op::FPToUI;
  S.set(0,
        S.C.cast(O, V, Type::i(D.Bits), S.rounding(RoundingMode::TowardZero)),
        D.isSigned());
}

void convertIntToFloat(Step &S, PtxType D, PtxType A) {
  Op O = A.isSigned() ? Op::SIToFP : Op::UIToFP;
  const Expr *V = S.C.cast(O, S.value(1, A), D.laneType(), S.rounding());
  V = flushF32(S, V, S.has("ftz"));
  if (S.has("sat"))
    V = sem::saturate(S.C, V);
  S.setFloats(0, {V});
}

/// cvt.rn.f16x2.f32 d, a, b: d = {cvt(b) low, cvt(a) high}.
void convertPacked(Step &S, PtxType D, PtxType A) {
  S.expectOperands(3);
  if (!A.isFloat() || A.Bits != 32)
    S.unsupported("unsupported instruction " + S.I.Opcode);
  bool Ftz = S.has("ftz");
  std::vector<const Expr *> Lanes;
  for (unsigned K : {2u, 1u}) {
    const Expr *V = flushF32(S, S.floatLane(K, A, 0), Ftz);
    V = S.C.cast(Op::FPCast, V, D.laneType(), S.rounding());
    if (S.has("sat"))
      V = sem::saturate(S.C, V);
    Lanes.push_back(V);
  }
  S.setFloats(0, Lanes);
}

void liftCvt(Step &S) {
  for (const char *M : {"relu", "satfinite", "rna", "rs"})
    if (S.has(M))
      S.unsupported("unsupported instruction " + S.I.Opcode);
  PtxType D = S.typeAt(-2), A = S.typeAt(-1);
  if (D.isPred() || A.isPred())
    S.malformed(S.I.Opcode + " converts no predicates");
  if (D.Lanes == 2) {
    convertPacked(S, D, A);
    return;
  }
  S.expectOperands(2);
  if (A.Lanes == 2)
    S.unsupported("unsupported instruction " + S.I.Opcode);
  if (isInt(D) && isInt(A))
    convertInt(S, D, A);
  else if (D.isFloat() && A.isFloat())
    convertFloat(S, D, A);
  else if (isInt(D))
    convertFloatToInt(S, D, A);
  else
    convertIntToFloat(S, D, A);
}

void liftMov(Step &S) {
  S.expectOperands(2);
  PtxType T = S.type();
  const Operand &D = S.operand(0), &A = S.operand(1);
  if (T.isPred()) {
    S.set(0, S.pred(1));
    return;
  }
  unsigned Bits = T.totalBits();
  if (A.K == Operand::Vector && A.Elements.size() > 1) {
    unsigned Part = Bits / unsigned(A.Elements.size());
    if (Part * A.Elements.size() != Bits)
      S.malformed("cannot pack " + std::to_string(A.Elements.size()) +
                  " values into " + std::to_string(Bits) + " bits");
    std::vector<const Expr *> Parts;
    for (const Operand &E : A.Elements)
      Parts.push_back(S.bits(E, Part));
    S.set(0, S.M.concat(Parts));
    return;
  }
  const Expr *V = S.bits(1, Bits, T);
  if (D.K == Operand::Vector && D.Elements.size() > 1) {
    std::vector<const Expr *> Parts = S.M.split(V, unsigned(D.Elements.size()));
    for (size_t K = 0; K < Parts.size(); ++K)
      S.set(D.Elements[K], Parts[K]);
    return;
  }
  S.set(0, V, T.isSigned());
}

} // namespace

bool liftConvertOp(Step &S) {
  if (S.Base == "cvt")
    liftCvt(S);
  else if (S.Base == "mov")
    liftMov(S);
  else if (S.Base == "cvta") {
    // Generic and global addresses coincide in the model; a shared window
    // address has no generic one there.
    S.expectOperands(2);
    if (!S.has("to") || !S.has("global"))
      S.unsupported("unsupported instruction " + S.I.Opcode);
    S.set(0, S.value(1, S.type()));
  } else
    return false;
  return true;
}

} // namespace stagecheck::ptx

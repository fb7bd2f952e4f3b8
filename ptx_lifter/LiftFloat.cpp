//===- LiftFloat.cpp - Floating-point arithmetic instructions -------------===//
//
// add sub mul fma mad div rcp sqrt rsqrt ex2 lg2 sin cos tanh min max abs
// neg copysign on f16, bf16, f32, f64 and the packed f16x2 / bf16x2 (lane
// by lane). Every operation goes through ptx_lifter/Semantics.h so that the
// LLVM IR frontend's intrinsics build the same expressions. Without a
// rounding modifier an operation rounds to nearest even (.rn), as PTX
// defines it.
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/Executor.h"
#include "ptx_lifter/Semantics.h"

#include <algorithm>
#include <functional>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

using LaneFn = std::function<const Expr *(std::span<const Expr *const>)>;

/// d = Fn(a, b, ...) lane by lane, operands 1..Arity of type T.
void lanes(Step &S, PtxType T, unsigned Arity, const LaneFn &Fn) {
  S.expectOperands(Arity + 1);
  std::vector<const Expr *> Out;
  for (unsigned L = 0; L < T.Lanes; ++L) {
    std::vector<const Expr *> Args;
    for (unsigned K = 1; K <= Arity; ++K)
      Args.push_back(S.floatLane(K, T, L));
    Out.push_back(Fn(Args));
  }
  S.setFloats(0, Out);
}

const Expr *saturated(Step &S, const Expr *V) {
  return S.has("sat") ? sem::saturate(S.C, V) : V;
}

void checkSupported(Step &S) {
  for (const char *M : {"relu", "oob", "xorsign", "satfinite"})
    if (S.has(M))
      S.unsupported("unsupported instruction " + S.I.Opcode);
}

void liftArith(Step &S, PtxType T, Op O) {
  bool Ftz = S.has("ftz");
  RoundingMode M = S.rounding();
  lanes(S, T, 2, [&](std::span<const Expr *const> A) {
    return saturated(S, sem::arith(S.C, O, A[0], A[1], M, Ftz));
  });
}

void liftFma(Step &S, PtxType T) {
  bool Ftz = S.has("ftz");
  RoundingMode M = S.rounding();
  lanes(S, T, 3, [&](std::span<const Expr *const> A) {
    return saturated(S, sem::fma(S.C, A[0], A[1], A[2], M, Ftz));
  });
}

/// The name of an approximate instruction in the IR's function table:
/// its spelling without type and .ftz ("ex2.approx", "div.full").
std::string approximateName(Step &S) {
  return S.Base + (S.has("full") ? ".full" : ".approx");
}

void liftApproximate(Step &S, PtxType T, unsigned Arity) {
  bool Ftz = S.has("ftz");
  std::string Name = approximateName(S);
  lanes(S, T, Arity, [&](std::span<const Expr *const> A) {
    return sem::approximate(S.C, Name, Ftz, A, S.X.site().SmVersion);
  });
}

void liftDiv(Step &S, PtxType T) {
  if (S.has("approx") || S.has("full")) {
    liftApproximate(S, T, 2);
    return;
  }
  liftArith(S, T, Op::FDiv);
}

void liftUnaryRounded(Step &S, PtxType T) {
  if (S.has("approx")) {
    liftApproximate(S, T, 1);
    return;
  }
  bool Ftz = S.has("ftz");
  RoundingMode M = S.rounding();
  bool Sqrt = S.Base == "sqrt";
  lanes(S, T, 1, [&](std::span<const Expr *const> A) {
    return Sqrt ? sem::sqrt(S.C, A[0], M, Ftz)
                : sem::reciprocal(S.C, A[0], M, Ftz);
  });
}

void liftMinMax(Step &S, PtxType T) {
  if (S.count() != 3)
    S.unsupported("unsupported instruction " + S.I.Opcode + " with " +
                  std::to_string(S.count() - 1) + " inputs");
  bool Ftz = S.has("ftz"), NaN = S.has("NaN"), Max = S.Base == "max";
  lanes(S, T, 2, [&](std::span<const Expr *const> A) {
    return sem::minMax(S.C, Max, A[0], A[1], NaN, Ftz);
  });
}

void liftSign(Step &S, PtxType T) {
  bool Ftz = S.has("ftz");
  if (S.Base == "copysign") {
    // copysign d, a, b: b's magnitude with a's sign.
    lanes(S, T, 2, [&](std::span<const Expr *const> A) {
      return S.C.floatBinary(Op::FCopySign, A[1], A[0]);
    });
    return;
  }
  bool Abs = S.Base == "abs";
  lanes(S, T, 1, [&](std::span<const Expr *const> A) {
    return Abs ? sem::abs(S.C, A[0], Ftz) : sem::neg(S.C, A[0], Ftz);
  });
}

} // namespace

bool liftFloatOp(Step &S) {
  static const char *const Names[] = {"add", "sub", "mul",  "fma",     "mad",
                                      "div", "rcp", "sqrt", "rsqrt",   "ex2",
                                      "lg2", "sin", "cos",  "tanh",    "min",
                                      "max", "abs", "neg",  "copysign"};
  const std::string &B = S.Base;
  if (std::find(std::begin(Names), std::end(Names), B) == std::end(Names))
    return false;
  PtxType T = S.type();
  if (!T.isFloat())
    return false;
  checkSupported(S);
  if (B == "add")
    liftArith(S, T, Op::FAdd);
  else if (B == "sub")
    liftArith(S, T, Op::FSub);
  else if (B == "mul")
    liftArith(S, T, Op::FMul);
  else if (B == "fma" || B == "mad")
    liftFma(S, T);
  else if (B == "div")
    liftDiv(S, T);
  else if (B == "rcp" || B == "sqrt")
    liftUnaryRounded(S, T);
  else if (B == "rsqrt" || B == "ex2" || B == "lg2" || B == "sin" ||
           B == "cos" || B == "tanh") {
    if (!S.has("approx"))
      S.unsupported("unsupported instruction " + S.I.Opcode);
    liftApproximate(S, T, 1);
  } else if (B == "min" || B == "max")
    liftMinMax(S, T);
  else
    liftSign(S, T);
  return true;
}

} // namespace stagecheck::ptx

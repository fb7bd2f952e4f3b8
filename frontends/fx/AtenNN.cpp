//===- AtenNN.cpp - Matrix products, convolution, pooling, losses ---------===//
//
// mm, bmm, addmm and convolution run outside Triton (cuBLAS, cuDNN) as
// extern steps of a candidate program; the table gives them their aten
// meaning, expanded into sums of products (accumulated in opmath, left to
// right over the reduction index) when an element has at most
// LiftOptions::MaxTermsPerElement terms, and unsupported beyond.
//
//===----------------------------------------------------------------------===//
#include "frontends/fx/AtenTable.h"

#include "ir/Value.h"

#include <cmath>

using namespace stagecheck::ir;

namespace stagecheck::fx {

namespace {

const Expr *k(Context &C, DType D, double V) { return constantOf(C, D, V); }

void checkTerms(const OpCall &Op, int64_t Terms) {
  if (uint64_t(Terms) > Op.maxTermsPerElement())
    Op.unsupported("an element of " + std::to_string(Terms) +
                   " terms (the expansion limit is " +
                   std::to_string(Op.maxTermsPerElement()) + ")");
}

/// Sum over K of A(k) * B(k) in dtype Acc, left to right.
const Expr *dot(const OpCall &Op, int64_t K, DType From, DType Acc,
                const std::function<const Expr *(int64_t)> &A,
                const std::function<const Expr *(int64_t)> &B) {
  Context &C = Op.C;
  const Expr *Sum = nullptr;
  for (int64_t I = 0; I < K; ++I) {
    const Expr *P = C.floatBinary(Op::FMul, convert(Op, A(I), From, Acc),
                                  convert(Op, B(I), From, Acc));
    Sum = Sum ? C.floatBinary(Op::FAdd, Sum, P) : P;
  }
  return Sum ? Sum : k(C, Acc, 0);
}

/// The matrix product of [..., M, K] and [..., K, N] (equal batch dims).
Tensor matmul(const OpCall &Op, const Tensor &A, const Tensor &B) {
  if (A.dtype() != B.dtype())
    Op.invalid("operands of different dtypes");
  if (!isFloating(A.dtype()))
    Op.unsupported("integer matrix product");
  size_t R = A.rank();
  int64_t K = A.size(R - 1);
  if (B.size(R - 2) != K)
    Op.invalid("inner dimensions differ");
  for (size_t D = 0; D + 2 < R; ++D)
    if (A.size(D) != B.size(D))
      Op.invalid("batch dimensions differ");
  checkTerms(Op, K);
  Shape Out = A.shape();
  Out[R - 1] = B.size(R - 1);
  DType D = A.dtype(), Acc = opmath(D);
  OpCall Copy = Op;
  return Tensor(D, Out, [Copy, A, B, K, R, D, Acc](const Index &I) {
    Context &C = Copy.C;
    auto AAt = [&](int64_t J) {
      Index X = I;
      X[R - 1] = i64(C, J);
      return A.at(X);
    };
    auto BAt = [&](int64_t J) {
      Index X = I;
      X[R - 2] = i64(C, J);
      return B.at(X);
    };
    return convert(Copy, dot(Copy, K, D, Acc, AAt, BAt), Acc, D);
  });
}

/// mm(self, mat2), bmm(self, mat2).
OpResult atenMm(const OpCall &Op) {
  Tensor A = Op.tensor(0, "self"), B = Op.tensor(1, "mat2");
  size_t Rank = Op.op() == "aten.bmm" ? 3 : 2;
  if (A.rank() != Rank || B.rank() != Rank)
    Op.invalid("operands must have " + std::to_string(Rank) + " dimensions");
  return matmul(Op, A, B);
}

/// addmm(self, mat1, mat2, beta=1, alpha=1) = beta * self + alpha * mm.
OpResult atenAddmm(const OpCall &Op) {
  Tensor Bias = Op.tensor(0, "self");
  Tensor A = Op.tensor(1, "mat1"), B = Op.tensor(2, "mat2");
  std::optional<Scalar> Beta = Op.optionalScalar(3, "beta");
  std::optional<Scalar> Alpha = Op.optionalScalar(4, "alpha");
  if (A.rank() != 2 || B.rank() != 2)
    Op.invalid("operands must be matrices");
  Tensor P = matmul(Op, A, B);
  Tensor Bc = broadcastTo(Op, Bias, P.shape());
  DType D = P.dtype(), Acc = opmath(D);
  OpCall Copy = Op;
  return Tensor(
      D, P.shape(), [Copy, P, Bc, Beta, Alpha, D, Acc](const Index &I) {
        Context &C = Copy.C;
        const Expr *M = convert(Copy, P.at(I), D, Acc);
        if (Alpha)
          M = C.floatBinary(Op::FMul, scalarAs(Copy, *Alpha, Acc), M);
        const Expr *S = convert(Copy, Bc.at(I), Bc.dtype(), Acc);
        if (Beta) {
          if (Beta->E->isConst() &&
              Value::ofBits(Beta->E->type(), Beta->E->constBits()).asDouble() ==
                  0)
            return convert(Copy, M, Acc, D);
          S = C.floatBinary(Op::FMul, scalarAs(Copy, *Beta, Acc), S);
        }
        return convert(Copy, C.floatBinary(Op::FAdd, S, M), Acc, D);
      });
}

/// convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups): the direct sum over input channels of the
/// group and kernel positions (zero padding), then the bias.
OpResult atenConvolution(const OpCall &Op) {
  Tensor X = Op.tensor(0, "input"), W = Op.tensor(1, "weight");
  std::optional<Tensor> Bias = Op.optionalTensor(2, "bias");
  std::vector<int64_t> Stride = Op.integers(3, "stride");
  std::vector<int64_t> Padding = Op.integers(4, "padding");
  std::vector<int64_t> Dilation = Op.integers(5, "dilation");
  if (Op.flag(6, "transposed", false))
    Op.unsupported("transposed convolution");
  int64_t Groups = Op.integer(8, "groups", 1);
  size_t Spatial = X.rank() >= 3 ? X.rank() - 2 : 0;
  if (Spatial == 0 || W.rank() != X.rank())
    Op.unsupported("convolution without a batch dimension");
  auto Expand = [&](std::vector<int64_t> V, const char *What) {
    if (V.size() == 1)
      V.assign(Spatial, V[0]);
    if (V.size() != Spatial)
      Op.invalid(std::string(What) + " has the wrong length");
    return V;
  };
  Stride = Expand(Stride, "stride");
  Padding = Expand(Padding, "padding");
  Dilation = Expand(Dilation, "dilation");
  int64_t Cin = X.size(1), Cout = W.size(0);
  if (Groups <= 0 || Cin % Groups || Cout % Groups || W.size(1) != Cin / Groups)
    Op.invalid("channels do not match the groups");
  Shape Out = {X.size(0), Cout};
  int64_t Terms = W.size(1);
  for (size_t S = 0; S < Spatial; ++S) {
    int64_t KS = W.size(2 + S);
    Terms *= KS;
    int64_t O = (X.size(2 + S) + 2 * Padding[S] - Dilation[S] * (KS - 1) - 1) /
                    Stride[S] +
                1;
    if (O <= 0)
      Op.invalid("the kernel is larger than the padded input");
    Out.push_back(O);
  }
  checkTerms(Op, Terms);
  if (X.dtype() != W.dtype() || !isFloating(X.dtype()))
    Op.unsupported("convolution of mixed or integer dtypes");
  DType D = X.dtype(), Acc = opmath(D);
  OpCall Copy = Op;
  int64_t CinG = Cin / Groups, CoutG = Cout / Groups;
  return Tensor(
      D, Out,
      [Copy, X, W, Bias, Stride, Padding, Dilation, Spatial, CinG, CoutG, D,
       Acc](const Index &I) {
        Context &C = Copy.C;
        const Expr *G = C.binary(Op::UDiv, I[1], i64(C, CoutG));
        const Expr *Sum = nullptr;
        std::vector<int64_t> Kernel(Spatial, 0);
        for (int64_t Ic = 0; Ic < CinG; ++Ic) {
          std::fill(Kernel.begin(), Kernel.end(), 0);
          for (;;) {
            Index XI = {I[0], C.add(C.mul(G, i64(C, CinG)), i64(C, Ic))};
            Index WI = {I[1], i64(C, Ic)};
            const Expr *Inside = C.trueExpr();
            for (size_t S = 0; S < Spatial; ++S) {
              const Expr *Pos =
                  C.add(C.mul(I[2 + S], i64(C, Stride[S])),
                        i64(C, Kernel[S] * Dilation[S] - Padding[S]));
              Inside = C.andOf(
                  Inside, C.andOf(C.icmp(ICmpPredicate::Sge, Pos, i64(C, 0)),
                                  C.icmp(ICmpPredicate::Slt, Pos,
                                         i64(C, X.size(2 + S)))));
              XI.push_back(Pos);
              WI.push_back(i64(C, Kernel[S]));
            }
            if (!Inside->isFalse()) {
              const Expr *P =
                  C.floatBinary(Op::FMul, convert(Copy, X.at(XI), D, Acc),
                                convert(Copy, W.at(WI), D, Acc));
              if (!Inside->isTrue())
                P = C.select(Inside, P, k(C, Acc, 0));
              Sum = Sum ? C.floatBinary(Op::FAdd, Sum, P) : P;
            }
            size_t S = Spatial;
            while (S > 0 && ++Kernel[S - 1] >= W.size(2 + S - 1))
              Kernel[--S] = 0;
            if (S == 0)
              break;
          }
        }
        if (!Sum)
          Sum = k(C, Acc, 0);
        if (Bias)
          Sum = C.floatBinary(
              Op::FAdd, Sum,
              convert(Copy, Bias->at({I[1]}), Bias->dtype(), Acc));
        return convert(Copy, Sum, Acc, D);
      });
}

//===-- Pooling -----------------------------------------------------------===//

/// at::native::pooling_output_shape.
int64_t poolingOutputSize(int64_t In, int64_t Kernel, int64_t Pad,
                          int64_t Stride, int64_t Dilation, bool Ceil) {
  int64_t Num =
      In + 2 * Pad - Dilation * (Kernel - 1) - 1 + (Ceil ? Stride - 1 : 0);
  int64_t Out = (Num >= 0 ? Num / Stride : -((-Num + Stride - 1) / Stride)) + 1;
  if (Ceil && (Out - 1) * Stride >= In + Pad)
    --Out;
  return Out;
}

struct Pool2d {
  int64_t KH, KW, SH, SW, PH, PW, DH = 1, DW = 1;
  bool Ceil = false;
  int64_t H, W, OH, OW;
};

Pool2d poolArgs(const OpCall &Op, const Tensor &X, bool HasDilation) {
  if (X.rank() != 3 && X.rank() != 4)
    Op.invalid("pooling needs a 3-d or 4-d input");
  auto Pair = [&](unsigned Pos, const char *Name,
                  std::vector<int64_t> Default) {
    std::optional<std::vector<int64_t>> V = Op.optionalIntegers(Pos, Name);
    std::vector<int64_t> R = V && !V->empty() ? *V : Default;
    if (R.size() == 1)
      R.push_back(R[0]);
    if (R.size() != 2)
      Op.invalid(std::string(Name) + " must have one or two entries");
    return R;
  };
  Pool2d P;
  std::vector<int64_t> Kernel = Pair(1, "kernel_size", {});
  std::vector<int64_t> Stride = Pair(2, "stride", Kernel);
  std::vector<int64_t> Pad = Pair(3, "padding", {0});
  P.KH = Kernel[0], P.KW = Kernel[1], P.SH = Stride[0], P.SW = Stride[1];
  P.PH = Pad[0], P.PW = Pad[1];
  if (HasDilation) {
    std::vector<int64_t> Dil = Pair(4, "dilation", {1});
    P.DH = Dil[0], P.DW = Dil[1];
    P.Ceil = Op.flag(5, "ceil_mode", false);
  } else {
    P.Ceil = Op.flag(4, "ceil_mode", false);
  }
  if (P.KH <= 0 || P.KW <= 0 || P.SH <= 0 || P.SW <= 0)
    Op.invalid("kernel and stride must be positive");
  P.H = X.size(X.rank() - 2), P.W = X.size(X.rank() - 1);
  P.OH = poolingOutputSize(P.H, P.KH, P.PH, P.SH, P.DH, P.Ceil);
  P.OW = poolingOutputSize(P.W, P.KW, P.PW, P.SW, P.DW, P.Ceil);
  if (P.OH <= 0 || P.OW <= 0)
    Op.invalid("pooling output would be empty");
  return P;
}

Shape pooledShape(const Tensor &X, const Pool2d &P) {
  Shape S = X.shape();
  S[S.size() - 2] = P.OH;
  S[S.size() - 1] = P.OW;
  return S;
}

const Expr *smin(Context &C, const Expr *A, const Expr *B) {
  return C.binary(Op::SMin, A, B);
}
const Expr *smax(Context &C, const Expr *A, const Expr *B) {
  return C.binary(Op::SMax, A, B);
}
const Expr *inRange(Context &C, const Expr *V, int64_t Size) {
  return C.andOf(C.icmp(ICmpPredicate::Sge, V, i64(C, 0)),
                 C.icmp(ICmpPredicate::Slt, V, i64(C, Size)));
}

/// avg_pool2d(self, kernel_size, stride=[], padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None), as the CUDA kernel: the
/// sum of the window's elements inside the input over a divisor that counts
/// the padding (clipped to the padded input) unless told otherwise.
OpResult atenAvgPool2d(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  Pool2d P = poolArgs(Op, X, false);
  bool IncludePad = Op.flag(5, "count_include_pad", true);
  std::optional<int64_t> Override;
  if (Op.has(6, "divisor_override"))
    Override = Op.integer(6, "divisor_override");
  checkTerms(Op, P.KH * P.KW);
  DType D = X.dtype(), Acc = opmath(D);
  OpCall Copy = Op;
  return Tensor(
      D, pooledShape(X, P),
      [Copy, X, P, IncludePad, Override, D, Acc](const Index &I) {
        Context &C = Copy.C;
        size_t R = I.size();
        const Expr *H0 = C.sub(C.mul(I[R - 2], i64(C, P.SH)), i64(C, P.PH));
        const Expr *W0 = C.sub(C.mul(I[R - 1], i64(C, P.SW)), i64(C, P.PW));
        const Expr *H1 = smin(C, C.add(H0, i64(C, P.KH)), i64(C, P.H + P.PH));
        const Expr *W1 = smin(C, C.add(W0, i64(C, P.KW)), i64(C, P.W + P.PW));
        const Expr *PoolSize = C.mul(C.sub(H1, H0), C.sub(W1, W0));
        const Expr *Sum = nullptr;
        for (int64_t KH = 0; KH < P.KH; ++KH)
          for (int64_t KW = 0; KW < P.KW; ++KW) {
            const Expr *Hh = C.add(H0, i64(C, KH)), *Ww = C.add(W0, i64(C, KW));
            const Expr *Inside =
                C.andOf(inRange(C, Hh, P.H), inRange(C, Ww, P.W));
            if (Inside->isFalse())
              continue;
            Index J = I;
            J[R - 2] = smax(C, smin(C, Hh, i64(C, P.H - 1)), i64(C, 0));
            J[R - 1] = smax(C, smin(C, Ww, i64(C, P.W - 1)), i64(C, 0));
            const Expr *V = convert(Copy, X.at(J), D, Acc);
            if (!Inside->isTrue())
              V = C.select(Inside, V, k(C, Acc, 0));
            Sum = Sum ? C.floatBinary(Op::FAdd, Sum, V) : V;
          }
        if (!Sum)
          Sum = k(C, Acc, 0);
        const Expr *Divisor;
        if (Override)
          Divisor = i64(C, *Override);
        else if (IncludePad)
          Divisor = PoolSize;
        else
          Divisor =
              C.mul(C.sub(smin(C, H1, i64(C, P.H)), smax(C, H0, i64(C, 0))),
                    C.sub(smin(C, W1, i64(C, P.W)), smax(C, W0, i64(C, 0))));
        const Expr *F = C.cast(Op::SIToFP, Divisor, irType(Acc));
        return convert(Copy, C.floatBinary(Op::FDiv, Sum, F), Acc, D);
      });
}

/// max_pool2d_with_indices(self, kernel_size, stride=[], padding=0,
/// dilation=1, ceil_mode=False) -> (values, indices): the window's maximum
/// (a NaN wins, the last NaN the CUDA loop meets) and its flat position
/// h * W + w in the input plane; ties keep the first.
OpResult atenMaxPool2d(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  Pool2d P = poolArgs(Op, X, true);
  checkTerms(Op, P.KH * P.KW);
  DType D = X.dtype();
  if (!isFloating(D))
    Op.unsupported("max pooling of integers");
  Context *CP = &Op.C;
  auto Pair = [CP, X, P, D](const Index &I) {
    Context &C = *CP;
    size_t R = I.size();
    const Expr *H0 = C.sub(C.mul(I[R - 2], i64(C, P.SH)), i64(C, P.PH));
    const Expr *W0 = C.sub(C.mul(I[R - 1], i64(C, P.SW)), i64(C, P.PW));
    // The first position inside the input (the loops start there).
    auto FirstInside = [&](const Expr *Start, int64_t Dil) {
      const Expr *Neg = C.icmp(ICmpPredicate::Slt, Start, i64(C, 0));
      // ceil(-start / dil) steps of dil.
      const Expr *Steps =
          C.binary(Op::SDiv, C.add(C.sub(i64(C, 0), Start), i64(C, Dil - 1)),
                   i64(C, Dil));
      return C.select(Neg, C.add(Start, C.mul(Steps, i64(C, Dil))), Start);
    };
    const Expr *HF = FirstInside(H0, P.DH), *WF = FirstInside(W0, P.DW);
    Index J = I;
    J[R - 2] = smin(C, HF, i64(C, P.H - 1));
    J[R - 1] = smin(C, WF, i64(C, P.W - 1));
    const Expr *Best = X.at(J);
    const Expr *Where = C.add(C.mul(J[R - 2], i64(C, P.W)), J[R - 1]);
    for (int64_t KH = 0; KH < P.KH; ++KH)
      for (int64_t KW = 0; KW < P.KW; ++KW) {
        const Expr *Hh = C.add(H0, i64(C, KH * P.DH));
        const Expr *Ww = C.add(W0, i64(C, KW * P.DW));
        const Expr *Inside = C.andOf(inRange(C, Hh, P.H), inRange(C, Ww, P.W));
        if (Inside->isFalse())
          continue;
        Index K = I;
        K[R - 2] = smax(C, smin(C, Hh, i64(C, P.H - 1)), i64(C, 0));
        K[R - 1] = smax(C, smin(C, Ww, i64(C, P.W - 1)), i64(C, 0));
        const Expr *V = X.at(K);
        const Expr *Take =
            C.andOf(Inside, C.orOf(C.fcmp(FCmpPredicate::Ogt, V, Best),
                                   C.fcmp(FCmpPredicate::Uno, V, V)));
        Best = C.select(Take, V, Best);
        Where = C.select(Take, C.add(C.mul(K[R - 2], i64(C, P.W)), K[R - 1]),
                         Where);
      }
    (void)D;
    return std::make_pair(Best, Where);
  };
  Shape S = pooledShape(X, P);
  Tensor Values(D, S, [Pair](const Index &I) { return Pair(I).first; });
  Tensor Indices(DType::I64, S,
                 [Pair](const Index &I) { return Pair(I).second; });
  return OpResult(std::vector<Tensor>{Values, Indices});
}

//===-- Losses ------------------------------------------------------------===//

enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };

Tensor reduceLoss(const OpCall &Op, const Tensor &L, int64_t How) {
  if (How == None)
    return L;
  if (How == Mean)
    return meanOver(Op, L, std::nullopt, false);
  if (How == Sum)
    return sumOver(Op, L, std::nullopt, false);
  Op.invalid("reduction must be 0, 1 or 2");
}

using LossBody = std::function<const Expr *(const OpCall &, Context &, DType,
                                            const Expr *Diff)>;

/// A pointwise loss of (self - target), then the reduction.
Tensor pointwiseLoss(const OpCall &Op, unsigned ReductionPos, LossBody F) {
  Operand A = Op.operand(0, "self"), B = Op.operand(1, "target");
  int64_t How = Op.integer(ReductionPos, "reduction", Mean);
  Tensor L =
      pointwise(Op, {A, B}, Promotion::Default,
                [F](const OpCall &Op, std::span<const Expr *const> V, DType D) {
                  const Expr *Diff = Op.C.floatBinary(Op::FSub, V[0], V[1]);
                  return F(Op, Op.C, D, Diff);
                });
  return reduceLoss(Op, L, How);
}

/// mse_loss(self, target, reduction=mean) = (self - target) ** 2.
OpResult atenMseLoss(const OpCall &Op) {
  return pointwiseLoss(Op, 2,
                       [](const OpCall &, Context &C, DType, const Expr *Z) {
                         return C.floatBinary(Op::FMul, Z, Z);
                       });
}

/// l1_loss(self, target, reduction=mean) = |self - target|.
OpResult atenL1Loss(const OpCall &Op) {
  return pointwiseLoss(Op, 2,
                       [](const OpCall &, Context &C, DType, const Expr *Z) {
                         return C.unary(Op::FAbs, Z);
                       });
}

/// smooth_l1_loss(self, target, reduction=mean, beta=1):
/// z = |self - target|; where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta).
/// huber_loss(self, target, reduction=mean, delta=1):
/// where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).
OpResult atenSmoothLoss(const OpCall &Op) {
  bool Huber = Op.op() == "aten.huber_loss";
  std::optional<Scalar> P = Op.optionalScalar(3, Huber ? "delta" : "beta");
  Scalar Param =
      P ? *P : Scalar{Op.C.floatConst(Type::f64(), 1.0), Category::Floating};
  return pointwiseLoss(
      Op, 2,
      [Huber, Param](const OpCall &Op, Context &C, DType D, const Expr *Diff) {
        const Expr *Z = C.unary(Op::FAbs, Diff);
        const Expr *B = scalarAs(Op, Param, D);
        // 0.5 * beta is Python arithmetic on the scalar.
        const Expr *HalfB =
            scalarAs(Op,
                     {C.floatBinary(Op::FMul, C.floatConst(Type::f64(), 0.5),
                                    scalarAs(Op, Param, DType::F64)),
                      Category::Floating},
                     D);
        const Expr *Half = k(C, D, 0.5);
        const Expr *Sq =
            C.floatBinary(Op::FMul, C.floatBinary(Op::FMul, Half, Z), Z);
        const Expr *Small = Huber ? Sq : C.floatBinary(Op::FDiv, Sq, B);
        const Expr *Large =
            Huber
                ? C.floatBinary(Op::FMul, B, C.floatBinary(Op::FSub, Z, HalfB))
                : C.floatBinary(Op::FSub, Z, HalfB);
        return C.select(C.fcmp(FCmpPredicate::Olt, Z, B), Small, Large);
      });
}

/// nll_loss_forward(self, target, weight, reduction, ignore_index) ->
/// (output, total_weight), as torch/_decomp defines it: the input scaled by
/// the class weights, gathered at the target and negated; ignored targets
/// contribute 0. A target outside [0, C) is undefined (CUDA asserts).
OpResult atenNllLoss(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self"), Target = Op.tensor(1, "target");
  std::optional<Tensor> Weight = Op.optionalTensor(2, "weight");
  int64_t How = Op.integer(3, "reduction", Mean);
  int64_t Ignore = Op.integer(4, "ignore_index", -100);
  if (X.rank() < 1 || X.rank() > 2 || Target.rank() != X.rank() - 1 ||
      !isIntegral(Target.dtype()))
    Op.invalid("input must be [N, C] or [C] with a matching integer target");
  bool Batched = X.rank() == 2;
  int64_t Classes = X.size(X.rank() - 1);
  if (Batched && Target.size(0) != X.size(0))
    Op.invalid("target size differs from the batch size");
  checkTerms(Op, Classes);
  DType D = X.dtype();
  Context *CP = &Op.C;
  OpCall Copy = Op;
  // One sample's (loss, weight), both in D.
  auto Sample = [CP, Copy, X, Target, Weight, Ignore, Classes, Batched,
                 D](const Index &N) {
    Context &C = *CP;
    const Expr *T = convert(Copy, Target.at(N), Target.dtype(), DType::I64);
    const Expr *Kept = C.icmp(ICmpPredicate::Ne, T, i64(C, Ignore));
    Copy.undefinedWhen(
        C.andOf(Kept, C.notOf(C.andOf(
                          C.icmp(ICmpPredicate::Sge, T, i64(C, 0)),
                          C.icmp(ICmpPredicate::Slt, T, i64(C, Classes))))),
        "nll_loss target out of range");
    const Expr *Safe = C.select(Kept, T, i64(C, 0));
    const Expr *Picked = nullptr, *W = nullptr;
    for (int64_t Cl = Classes; Cl-- > 0;) {
      Index XI = Batched ? Index{N[0], i64(C, Cl)} : Index{i64(C, Cl)};
      const Expr *V = X.at(XI);
      const Expr *Wc =
          Weight ? convert(Copy, Weight->at({i64(C, Cl)}), Weight->dtype(), D)
                 : nullptr;
      if (Wc)
        V = C.floatBinary(Op::FMul, V, Wc);
      const Expr *Is = C.eq(Safe, i64(C, Cl));
      Picked = Picked ? C.select(Is, V, Picked) : V;
      if (Wc)
        W = W ? C.select(Is, Wc, W) : Wc;
    }
    const Expr *Zero = k(C, D, 0);
    const Expr *Loss = C.select(Kept, C.unary(Op::FNeg, Picked), Zero);
    const Expr *Wt = C.select(Kept, W ? W : k(C, D, 1), Zero);
    return std::make_pair(Loss, Wt);
  };
  Shape NS = Batched ? Shape{X.size(0)} : Shape{};
  Tensor Losses(D, NS, [Sample](const Index &I) { return Sample(I).first; });
  Tensor Weights(D, NS, [Sample](const Index &I) { return Sample(I).second; });
  Tensor Total = sumOver(Op, Weights, std::nullopt, false);
  if (How == None && Batched)
    return OpResult(std::vector<Tensor>{
        Losses,
        Tensor(D, {}, [CP, D](const Index &) { return k(*CP, D, 0); })});
  if (How == None || How == Sum)
    return OpResult(std::vector<Tensor>{
        How == Sum ? sumOver(Op, Losses, std::nullopt, false) : Losses, Total});
  if (How != Mean)
    Op.invalid("reduction must be 0, 1 or 2");
  Tensor S = sumOver(Op, Losses, std::nullopt, false);
  Tensor M(D, {}, [CP, S, Total](const Index &I) {
    return CP->floatBinary(Op::FDiv, S.at(I), Total.at(I));
  });
  return OpResult(std::vector<Tensor>{M, Total});
}

/// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
/// the row of weight each index names (the arguments after indices change
/// only the gradient). An index outside [0, num_embeddings) is undefined:
/// CUDA asserts and the CPU raises, negative indices included.
OpResult atenEmbedding(const OpCall &Op) {
  Tensor W = Op.tensor(0, "weight"), Indices = Op.tensor(1, "indices");
  if (W.rank() != 2 || !isIntegral(Indices.dtype()))
    Op.invalid("weight must be 2-D and indices an integer tensor");
  int64_t Rows = W.size(0);
  Shape Out = Indices.shape();
  Out.push_back(W.size(1));
  Context *CP = &Op.C;
  OpCall Copy = Op;
  return Tensor(W.dtype(), Out, [CP, Copy, W, Indices, Rows](const Index &I) {
    Context &C = *CP;
    Index Where(I.begin(), I.end() - 1);
    const Expr *Row =
        convert(Copy, Indices.at(Where), Indices.dtype(), DType::I64);
    Copy.undefinedWhen(
        C.notOf(C.andOf(C.icmp(ICmpPredicate::Sge, Row, i64(C, 0)),
                        C.icmp(ICmpPredicate::Slt, Row, i64(C, Rows)))),
        "embedding index out of range");
    return W.at({Row, I.back()});
  });
}

/// gather(self, dim, index, *, sparse_grad=False): out[i] = self[i with
/// its dim-th coordinate replaced by index[i]], of index's shape. An index
/// outside [0, self.size(dim)) is undefined (CUDA asserts), as is in
/// embedding.
OpResult atenGather(const OpCall &Op) {
  Tensor Self = Op.tensor(0, "self"), Where = Op.tensor(2, "index");
  if (!isIntegral(Where.dtype()))
    Op.invalid("gather's index must be an integer tensor");
  size_t Rank = std::max<size_t>(Self.rank(), 1);
  size_t Dim = wrapDim(Op, Op.integer(1, "dim"), Rank);
  if (Where.rank() != Self.rank())
    Op.invalid("gather's index must have as many dimensions as self");
  for (size_t D = 0; D < Where.rank(); ++D)
    if (D != Dim && Where.size(D) > Self.size(D))
      Op.invalid("gather's index is larger than self along a dimension "
                 "other than dim");
  int64_t Extent = Self.rank() ? Self.size(Dim) : 1;
  Context *CP = &Op.C;
  OpCall Copy = Op;
  return Tensor(Self.dtype(), Where.shape(),
                [CP, Copy, Self, Where, Dim, Extent](const Index &I) {
                  Context &C = *CP;
                  const Expr *At = convert(Copy, Where.at(I), Where.dtype(),
                                           DType::I64);
                  Copy.undefinedWhen(
                      C.notOf(C.andOf(
                          C.icmp(ICmpPredicate::Sge, At, i64(C, 0)),
                          C.icmp(ICmpPredicate::Slt, At, i64(C, Extent)))),
                      "gather index out of range");
                  if (Self.rank() == 0)
                    return Self.at({});
                  Index From = I;
                  From[Dim] = At;
                  return Self.at(From);
                });
}

const OpDefinition Table[] = {
    {"aten.mm", atenMm},
    {"aten.bmm", atenMm},
    {"aten.addmm", atenAddmm},
    {"aten.convolution", atenConvolution},
    {"aten.avg_pool2d", atenAvgPool2d},
    {"aten.max_pool2d_with_indices", atenMaxPool2d},
    {"aten.mse_loss", atenMseLoss},
    {"aten.l1_loss", atenL1Loss},
    {"aten.smooth_l1_loss", atenSmoothLoss},
    {"aten.huber_loss", atenSmoothLoss},
    {"aten.nll_loss_forward", atenNllLoss},
    {"aten.embedding", atenEmbedding},
    {"aten.gather", atenGather},
};

} // namespace

std::span<const OpDefinition> nnOps() { return Table; }

} // namespace stagecheck::fx

//===- AtenReduce.cpp - Reductions, softmax, norms, scans -----------------===//
//
// A reduction's element is the fold of the elements it reduces, left to
// right in row-major order of the reduced dimensions, starting from the first
// element (so an empty reduction is its identity). The IEEE order is
// therefore one particular order; over the reals any order is the same, and
// the FX <-> TTIR check compares reductions there.
//
//===----------------------------------------------------------------------===//
#include "frontends/fx/AtenTable.h"

#include <cassert>
#include <cmath>

using namespace stagecheck::ir;

namespace stagecheck::fx {

namespace {

const Expr *k(Context &C, DType D, double V) { return constantOf(C, D, V); }

//===-- Tensor-level building blocks --------------------------------------===//

Tensor castTensor(const OpCall &Op, const Tensor &T, DType To) {
  if (T.dtype() == To)
    return T;
  DType From = T.dtype();
  return Tensor(To, T.shape(), [Op, T, From, To](const Index &I) {
    return convert(Op, T.at(I), From, To);
  });
}

using Binary =
    std::function<const Expr *(Context &, const Expr *, const Expr *)>;
using Unary = std::function<const Expr *(Context &, const Expr *)>;

/// Elementwise A op B with broadcasting; both operands of one dtype.
Tensor zipWith(const OpCall &Op, const Tensor &A, const Tensor &B, Binary F) {
  assert(A.dtype() == B.dtype() && "zipWith over different dtypes");
  Shape Out = broadcastShapes(Op, {A.shape(), B.shape()});
  Context *C = &Op.C;
  return Tensor(A.dtype(), Out, [C, A, B, Out, F](const Index &I) {
    return F(*C, A.at(broadcastIndex(*C, I, Out, A.shape())),
             B.at(broadcastIndex(*C, I, Out, B.shape())));
  });
}

Tensor mapWith(const OpCall &Op, const Tensor &A, Unary F) {
  Context *C = &Op.C;
  return Tensor(A.dtype(), A.shape(),
                [C, A, F](const Index &I) { return F(*C, A.at(I)); });
}

const Expr *fadd(Context &C, const Expr *A, const Expr *B) {
  return C.floatBinary(Op::FAdd, A, B);
}
const Expr *fsub(Context &C, const Expr *A, const Expr *B) {
  return C.floatBinary(Op::FSub, A, B);
}
const Expr *fmul(Context &C, const Expr *A, const Expr *B) {
  return C.floatBinary(Op::FMul, A, B);
}
const Expr *fdiv(Context &C, const Expr *A, const Expr *B) {
  return C.floatBinary(Op::FDiv, A, B);
}

/// Which dimensions a reduction folds, and the shape it leaves.
struct Reduction {
  Shape In;
  std::vector<bool> Reduced;
  bool KeepDim = false;
  Shape Out;
  int64_t Count = 1; // elements folded into each output element
};

/// dims None or [] reduce every dimension (torch's convention).
Reduction reduction(const OpCall &Op, const Shape &In,
                    const std::optional<std::vector<int64_t>> &Dims,
                    bool KeepDim) {
  Reduction R;
  R.In = In;
  R.KeepDim = KeepDim;
  R.Reduced.assign(In.size(), !Dims || Dims->empty());
  if (Dims && !Dims->empty())
    for (size_t D : wrapDims(Op, *Dims, In.size()))
      if (D < In.size())
        R.Reduced[D] = true;
  for (size_t D = 0; D < In.size(); ++D) {
    if (R.Reduced[D]) {
      R.Count *= In[D];
      if (KeepDim)
        R.Out.push_back(1);
    } else {
      R.Out.push_back(In[D]);
    }
  }
  return R;
}

/// The input indices an output element folds, in row-major order.
std::vector<Index> foldedIndices(Context &C, const Reduction &R,
                                 const Index &Out) {
  Index Base(R.In.size(), nullptr);
  std::vector<size_t> Free;
  size_t O = 0;
  for (size_t D = 0; D < R.In.size(); ++D) {
    if (R.Reduced[D]) {
      Free.push_back(D);
      if (R.KeepDim)
        ++O;
    } else {
      Base[D] = Out[O++];
    }
  }
  std::vector<Index> All;
  if (R.Count == 0)
    return All;
  std::vector<int64_t> Counter(Free.size(), 0);
  for (;;) {
    Index I = Base;
    for (size_t K = 0; K < Free.size(); ++K)
      I[Free[K]] = i64(C, Counter[K]);
    All.push_back(I);
    size_t K = Free.size();
    while (K > 0 && ++Counter[K - 1] >= R.In[Free[K - 1]])
      Counter[--K] = 0;
    if (K == 0)
      break;
  }
  return All;
}

/// Folds Combine over the reduced elements; Empty is the value of an empty
/// reduction (nullptr: the op rejects it).
Tensor fold(const OpCall &Op, const Tensor &X, const Reduction &R, DType D,
            Binary Combine, std::function<const Expr *(Context &)> Empty) {
  if (R.Count == 0 && !Empty)
    Op.invalid("reduction over an empty dimension has no identity");
  if (uint64_t(R.Count) > Op.maxTermsPerElement())
    Op.unsupported("a reduction of " + std::to_string(R.Count) +
                   " terms per element");
  Context *C = &Op.C;
  return Tensor(D, R.Out, [C, X, R, Combine, Empty](const Index &I) {
    std::vector<Index> Terms = foldedIndices(*C, R, I);
    if (Terms.empty())
      return Empty(*C);
    const Expr *Acc = X.at(Terms[0]);
    for (size_t K = 1; K < Terms.size(); ++K)
      Acc = Combine(*C, Acc, X.at(Terms[K]));
    return Acc;
  });
}

/// Sum in dtype Acc (the input is converted first), cast to Result.
Tensor sumOf(const OpCall &Op, const Tensor &X, const Reduction &R, DType Acc,
             DType Result) {
  Tensor In = castTensor(Op, X, Acc);
  Tensor S = fold(
      Op, In, R, Acc,
      [Acc](Context &C, const Expr *A, const Expr *B) {
        if (isFloating(Acc))
          return fadd(C, A, B);
        return Acc == DType::Bool ? C.orOf(A, B) : C.add(A, B);
      },
      [Acc](Context &C) { return k(C, Acc, 0); });
  return castTensor(Op, S, Result);
}

/// max/min fold: NaN-propagating for floats.
Tensor extremumOf(const OpCall &Op, const Tensor &X, const Reduction &R,
                  bool IsMax) {
  DType D = X.dtype();
  return fold(
      Op, X, R, D,
      [D, IsMax](Context &C, const Expr *A, const Expr *B) {
        if (isFloating(D))
          return C.binary(IsMax ? Op::FMaximum : Op::FMinimum, A, B);
        if (D == DType::Bool)
          return IsMax ? C.orOf(A, B) : C.andOf(A, B);
        bool S = isSigned(D);
        return C.binary(IsMax ? (S ? Op::SMax : Op::UMax)
                              : (S ? Op::SMin : Op::UMin),
                        A, B);
      },
      nullptr);
}

/// The dtype sum and prod give an input: integers and bool widen to i64.
DType accumulatedDType(DType D, std::optional<DType> Requested) {
  if (Requested)
    return *Requested;
  return isFloating(D) ? D : DType::I64;
}

Tensor meanOf(const OpCall &Op, const Tensor &X, const Reduction &R,
              DType Result) {
  DType Acc = opmath(Result);
  Tensor S = sumOf(Op, X, R, Acc, Acc);
  int64_t N = R.Count;
  Tensor M = mapWith(Op, S, [Acc, N](Context &C, const Expr *V) {
    return fdiv(C, V, k(C, Acc, double(N)));
  });
  return castTensor(Op, M, Result);
}

/// Two-pass variance: sum((x - mean)^2) / max(0, N - correction), in the
/// computation dtype of X.
Tensor varianceOf(const OpCall &Op, const Tensor &X, const Reduction &R,
                  const Tensor &Mean, double Correction) {
  DType D = X.dtype();
  Reduction Keep = R;
  Keep.KeepDim = true;
  Keep.Out.clear();
  for (size_t I = 0; I < R.In.size(); ++I)
    Keep.Out.push_back(R.Reduced[I] ? 1 : R.In[I]);
  Tensor MeanKept = Mean;
  if (!R.KeepDim) // re-insert the reduced dims for broadcasting
    MeanKept = Tensor(D, Keep.Out, [Mean, R](const Index &I) {
      Index Squeezed;
      for (size_t K = 0; K < I.size(); ++K)
        if (!R.Reduced[K])
          Squeezed.push_back(I[K]);
      return Mean.at(Squeezed);
    });
  Tensor Dev =
      zipWith(Op, X, MeanKept, [](Context &C, const Expr *A, const Expr *B) {
        const Expr *T = fsub(C, A, B);
        return fmul(C, T, T);
      });
  Tensor S = sumOf(Op, Dev, R, D, D);
  double Denominator = std::max(0.0, double(R.Count) - Correction);
  return mapWith(Op, S, [D, Denominator](Context &C, const Expr *V) {
    return fdiv(C, V, k(C, D, Denominator));
  });
}

/// Removes the dims a keepdim reduction kept as 1 (for ops whose results
/// drop them).
Tensor squeezeReduced(const OpCall &Op, const Tensor &T, const Reduction &R) {
  Shape Out;
  for (size_t D = 0; D < R.In.size(); ++D)
    if (!R.Reduced[D])
      Out.push_back(R.In[D]);
  Context *C = &Op.C;
  return Tensor(T.dtype(), Out, [C, T, R](const Index &I) {
    Index Full;
    size_t K = 0;
    for (size_t D = 0; D < R.In.size(); ++D)
      Full.push_back(R.Reduced[D] ? i64(*C, 0) : I[K++]);
    return T.at(Full);
  });
}

//===-- Reductions --------------------------------------------------------===//

std::optional<std::vector<int64_t>> dimsArg(const OpCall &Op, unsigned Pos) {
  return Op.optionalIntegers(Pos, "dim");
}

/// sum(self, dim=None, keepdim=False, *, dtype=None).
OpResult atenSum(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  bool Full = Op.overload() == "default";
  std::optional<DType> Requested =
      Full ? Op.dtype(1, "dtype") : Op.dtype(~0u, "dtype");
  Reduction R = reduction(Op, X.shape(), Full ? std::nullopt : dimsArg(Op, 1),
                          Full ? false : Op.flag(2, "keepdim", false));
  DType Result = accumulatedDType(X.dtype(), Requested);
  Tensor In = castTensor(Op, X, Result);
  return sumOf(Op, In, R, opmath(Result), Result);
}

/// mean(self, dim=None, keepdim=False, *, dtype=None): sum / N in opmath.
OpResult atenMean(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  bool Full = Op.overload() == "default";
  std::optional<DType> Requested =
      Full ? Op.dtype(1, "dtype") : Op.dtype(~0u, "dtype");
  DType Result = Requested ? *Requested : X.dtype();
  if (!isFloating(Result))
    Op.invalid("mean of a non-floating dtype");
  Reduction R = reduction(Op, X.shape(), Full ? std::nullopt : dimsArg(Op, 1),
                          Full ? false : Op.flag(2, "keepdim", false));
  return meanOf(Op, castTensor(Op, X, Result), R, Result);
}

/// prod(self, dim, keepdim=False, *, dtype=None).
OpResult atenProd(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  bool Full = Op.overload() == "default";
  std::optional<DType> Requested =
      Full ? Op.dtype(1, "dtype") : Op.dtype(~0u, "dtype");
  std::optional<std::vector<int64_t>> Dims;
  if (!Full)
    Dims = std::vector<int64_t>{Op.integer(1, "dim")};
  Reduction R = reduction(Op, X.shape(), Dims,
                          Full ? false : Op.flag(2, "keepdim", false));
  DType Result = accumulatedDType(X.dtype(), Requested);
  DType Acc = opmath(Result);
  Tensor In = castTensor(Op, X, Acc);
  Tensor P = fold(
      Op, In, R, Acc,
      [Acc](Context &C, const Expr *A, const Expr *B) {
        if (isFloating(Acc))
          return fmul(C, A, B);
        return Acc == DType::Bool ? C.andOf(A, B) : C.mul(A, B);
      },
      [Acc](Context &C) { return k(C, Acc, 1); });
  return castTensor(Op, P, Result);
}

/// any/all(self), .dim(self, dim, keepdim=False), .dims(self, dim=None,
/// keepdim=False): whether some (every) element is nonzero (NaN is); bool,
/// or uint8 for a uint8 input (torch's exception). Empty: false (true).
OpResult atenAnyAll(const OpCall &Op) {
  bool IsAny = Op.op() == "aten.any";
  Tensor X = Op.tensor(0, "self");
  std::string Overload = Op.overload();
  std::optional<std::vector<int64_t>> Dims;
  bool KeepDim = false;
  if (Overload == "dim") {
    Dims = std::vector<int64_t>{Op.integer(1, "dim")};
    KeepDim = Op.flag(2, "keepdim", false);
  } else if (Overload == "dims") {
    Dims = dimsArg(Op, 1);
    KeepDim = Op.flag(2, "keepdim", false);
  } else if (Overload != "default") {
    Op.unsupported("unsupported op " + Op.op() + "." + Overload);
  }
  Reduction R = reduction(Op, X.shape(), Dims, KeepDim);
  Tensor Folded = fold(
      Op, castTensor(Op, X, DType::Bool), R, DType::Bool,
      [IsAny](Context &C, const Expr *A, const Expr *B) {
        return IsAny ? C.orOf(A, B) : C.andOf(A, B);
      },
      [IsAny](Context &C) { return C.boolean(!IsAny); });
  return castTensor(Op, Folded,
                    X.dtype() == DType::U8 ? DType::U8 : DType::Bool);
}

/// amax/amin(self, dim=[], keepdim=False): NaN-propagating.
OpResult atenAmax(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  Reduction R =
      reduction(Op, X.shape(), dimsArg(Op, 1), Op.flag(2, "keepdim", false));
  return extremumOf(Op, X, R, Op.op() == "aten.amax");
}

/// i1: V beats Best for an integer maximum (minimum) of dtype D: V > Best
/// (V < Best), or >= (<=) where OrEqual; signed as D is.
const Expr *integerBetter(Context &C, DType D, bool IsMax, bool OrEqual,
                          const Expr *V, const Expr *Best) {
  bool S = isSigned(D) && D != DType::Bool;
  ICmpPredicate P =
      IsMax ? (S ? (OrEqual ? ICmpPredicate::Sge : ICmpPredicate::Sgt)
                 : (OrEqual ? ICmpPredicate::Uge : ICmpPredicate::Ugt))
            : (S ? (OrEqual ? ICmpPredicate::Sle : ICmpPredicate::Slt)
                 : (OrEqual ? ICmpPredicate::Ule : ICmpPredicate::Ult));
  return C.icmp(P, V, Best);
}

/// The index of the first maximum (minimum) along the reduced elements; a
/// NaN counts as larger (smaller) than everything, the first NaN wins.
Tensor argExtremum(const OpCall &Op, const Tensor &X, const Reduction &R,
                   bool IsMax, Tensor *Values) {
  if (R.Count == 0)
    Op.invalid("arg-reduction over an empty dimension");
  if (uint64_t(R.Count) > Op.maxTermsPerElement())
    Op.unsupported("a reduction of " + std::to_string(R.Count) +
                   " terms per element");
  DType D = X.dtype();
  Context *C = &Op.C;
  // Each output element is a (value, index) pair, folded together.
  auto Pair = [C, X, R, D, IsMax](const Index &I) {
    std::vector<Index> Terms = foldedIndices(*C, R, I);
    const Expr *Best = X.at(Terms[0]);
    const Expr *Where = i64(*C, 0);
    for (size_t K = 1; K < Terms.size(); ++K) {
      const Expr *V = X.at(Terms[K]);
      const Expr *Better;
      if (isFloating(D)) {
        Better =
            C->fcmp(IsMax ? FCmpPredicate::Ogt : FCmpPredicate::Olt, V, Best);
        const Expr *NewNaN = C->andOf(C->fcmp(FCmpPredicate::Uno, V, V),
                                      C->fcmp(FCmpPredicate::Ord, Best, Best));
        Better = C->orOf(Better, NewNaN);
      } else {
        Better = integerBetter(*C, D, IsMax, /*OrEqual=*/false, V, Best);
      }
      Best = C->select(Better, V, Best);
      Where = C->select(Better, i64(*C, int64_t(K)), Where);
    }
    return std::make_pair(Best, Where);
  };
  if (Values)
    *Values =
        Tensor(D, R.Out, [Pair](const Index &I) { return Pair(I).first; });
  return Tensor(DType::I64, R.Out,
                [Pair](const Index &I) { return Pair(I).second; });
}

/// max/min: max.dim(self, dim, keepdim) -> (values, indices); max.default
/// is amax over everything; max.other is maximum (AtenPointwise).
OpResult atenMaxMin(const OpCall &Op) {
  bool IsMax = Op.op() == "aten.max";
  std::string Overload = Op.overload();
  Tensor X = Op.tensor(0, "self");
  if (Overload == "default" || Overload.empty()) {
    Reduction R = reduction(Op, X.shape(), std::nullopt, false);
    return extremumOf(Op, X, R, IsMax);
  }
  if (Overload != "dim")
    Op.unsupported("overload " + Overload);
  int64_t Dim = Op.integer(1, "dim");
  Reduction R = reduction(Op, X.shape(), std::vector<int64_t>{Dim},
                          Op.flag(2, "keepdim", false));
  Tensor Values;
  Tensor Indices = argExtremum(Op, X, R, IsMax, &Values);
  return OpResult(std::vector<Tensor>{Values, Indices});
}

/// argmax/argmin(self, dim=None, keepdim=False); with no dim, the index
/// into the flattened tensor.
OpResult atenArgExtremum(const OpCall &Op) {
  bool IsMax = Op.op() == "aten.argmax";
  Tensor X = Op.tensor(0, "self");
  if (!Op.has(1, "dim")) {
    Tensor Flat(X.dtype(), {X.numel()}, [X, C = &Op.C](const Index &I) {
      // Unravel the flat index (concrete in every fold) into X's index.
      int64_t Linear = int64_t(I[0]->constBits());
      Index Out(X.rank());
      for (size_t D = X.rank(); D-- > 0;) {
        Out[D] = i64(*C, Linear % X.size(D));
        Linear /= X.size(D);
      }
      return X.at(Out);
    });
    Reduction R = reduction(Op, Flat.shape(), std::nullopt, false);
    Tensor Indices = argExtremum(Op, Flat, R, IsMax, nullptr);
    if (Op.flag(2, "keepdim", false)) // every dim kept as 1
      return Tensor(DType::I64, Shape(X.rank(), 1),
                    [Indices](const Index &) { return Indices.at({}); });
    return Indices;
  }
  int64_t Dim = Op.integer(1, "dim");
  Reduction R = reduction(Op, X.shape(), std::vector<int64_t>{Dim},
                          Op.flag(2, "keepdim", false));
  return argExtremum(Op, X, R, IsMax, nullptr);
}

/// The dims and correction of var/std/var_mean/std_mean, across overloads:
/// .correction(self, dim=None, *, correction=None, keepdim=False),
/// .dim(self, dim, unbiased=True, keepdim=False), .default(self, unbiased).
struct VarianceArgs {
  std::optional<std::vector<int64_t>> Dims;
  double Correction = 1;
  bool KeepDim = false;
};

VarianceArgs varianceArgs(const OpCall &Op) {
  VarianceArgs A;
  std::string Overload = Op.overload();
  if (Overload == "default") {
    A.Correction = Op.flag(1, "unbiased", true) ? 1 : 0;
    return A;
  }
  A.Dims = Op.optionalIntegers(1, "dim");
  if (Overload == "correction") {
    A.Correction = Op.number(~0u, "correction", 1.0);
    A.KeepDim = Op.flag(~0u, "keepdim", false);
    return A;
  }
  A.Correction = Op.flag(2, "unbiased", true) ? 1 : 0;
  A.KeepDim = Op.flag(3, "keepdim", false);
  return A;
}

/// var, std, var_mean, std_mean.
OpResult atenVariance(const OpCall &Op) {
  std::string Name = Op.op();
  Tensor X = Op.tensor(0, "self");
  if (!isFloating(X.dtype()))
    Op.invalid("variance of a non-floating dtype");
  VarianceArgs A = varianceArgs(Op);
  Reduction R = reduction(Op, X.shape(), A.Dims, A.KeepDim);
  DType D = X.dtype(), Acc = opmath(D);
  Tensor In = castTensor(Op, X, Acc);
  Tensor Mean = meanOf(Op, In, R, Acc);
  Tensor Var = varianceOf(Op, In, R, Mean, A.Correction);
  bool IsStd = Name == "aten.std" || Name == "aten.std_mean";
  if (IsStd)
    Var = mapWith(Op, Var, [](Context &C, const Expr *V) {
      return C.unary(Op::FSqrt, V);
    });
  Var = castTensor(Op, Var, D);
  if (Name == "aten.var" || Name == "aten.std")
    return Var;
  return OpResult(std::vector<Tensor>{Var, castTensor(Op, Mean, D)});
}

/// logsumexp(self, dim, keepdim=False) (_refs.logsumexp): with m = amax
/// and an infinite m taken as 0, log(sum(exp(x - m))) + m.
OpResult atenLogsumexp(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  DType D = isFloating(X.dtype()) ? X.dtype() : DType::F32;
  Tensor In = castTensor(Op, X, opmath(D));
  DType Acc = In.dtype();
  bool KeepDim = Op.flag(2, "keepdim", false);
  Reduction Kept = reduction(Op, X.shape(), dimsArg(Op, 1), true);
  Reduction R = reduction(Op, X.shape(), dimsArg(Op, 1), KeepDim);
  Tensor Max = mapWith(
      Op, extremumOf(Op, In, Kept, true), [Acc](Context &C, const Expr *M) {
        const Expr *Inf = C.fcmp(FCmpPredicate::Oeq, C.unary(Op::FAbs, M),
                                 k(C, Acc, INFINITY));
        return C.select(Inf, k(C, Acc, 0), M);
      });
  Tensor Shifted = zipWith(Op, In, Max, fsub);
  Tensor Exp = mapWith(Op, Shifted, [](Context &C, const Expr *V) {
    return callFn(C, "exp", V);
  });
  Tensor Sum = sumOf(Op, Exp, R, Acc, Acc);
  Tensor MaxOut = KeepDim ? Max : squeezeReduced(Op, Max, Kept);
  Tensor Log = mapWith(
      Op, Sum, [](Context &C, const Expr *V) { return callFn(C, "log", V); });
  return castTensor(Op, zipWith(Op, Log, MaxOut, fadd), D);
}

//===-- Softmax -----------------------------------------------------------===//

struct SoftmaxParts {
  Tensor In, Max, Shifted;
  Reduction Kept;
  DType Result;
};

SoftmaxParts softmaxParts(const OpCall &Op, bool HalfToFloat) {
  Tensor X = Op.tensor(0, "self");
  int64_t Dim = Op.integer(1, "dim");
  if (!isFloating(X.dtype()))
    Op.invalid("softmax of a non-floating dtype");
  SoftmaxParts P;
  P.Result = HalfToFloat ? DType::F32 : X.dtype();
  P.In = castTensor(Op, X, opmath(X.dtype()));
  P.Kept = reduction(Op, X.shape(), std::vector<int64_t>{Dim}, true);
  P.Max = extremumOf(Op, P.In, P.Kept, true);
  P.Shifted = zipWith(Op, P.In, P.Max, fsub);
  return P;
}

Tensor expOf(const OpCall &Op, const Tensor &T) {
  return mapWith(Op, T,
                 [](Context &C, const Expr *V) { return callFn(C, "exp", V); });
}

/// _softmax(x, dim, half_to_float): exp(x - amax) / sum(exp(x - amax)).
OpResult atenSoftmax(const OpCall &Op) {
  SoftmaxParts P = softmaxParts(Op, Op.flag(2, "half_to_float", false));
  Tensor E = expOf(Op, P.Shifted);
  Tensor S = sumOf(Op, E, P.Kept, E.dtype(), E.dtype());
  return castTensor(Op, zipWith(Op, E, S, fdiv), P.Result);
}

/// _log_softmax(x, dim, half_to_float):
/// (x - amax) - log(sum(exp(x - amax))).
OpResult atenLogSoftmax(const OpCall &Op) {
  SoftmaxParts P = softmaxParts(Op, Op.flag(2, "half_to_float", false));
  Tensor E = expOf(Op, P.Shifted);
  Tensor S = sumOf(Op, E, P.Kept, E.dtype(), E.dtype());
  Tensor L = mapWith(
      Op, S, [](Context &C, const Expr *V) { return callFn(C, "log", V); });
  return castTensor(Op, zipWith(Op, P.Shifted, L, fsub), P.Result);
}

/// prims.prepare_softmax_online(x, dim) = (amax(x, dim, keepdim=True),
/// sum(exp(x - amax), dim, keepdim=True)), in x's dtype.
OpResult primsPrepareSoftmaxOnline(const OpCall &Op) {
  Tensor X = Op.tensor(0, "a");
  int64_t Dim = Op.integer(1, "dim");
  if (!isFloating(X.dtype()))
    Op.invalid("softmax of a non-floating dtype");
  Reduction Kept = reduction(Op, X.shape(), std::vector<int64_t>{Dim}, true);
  Tensor Max = extremumOf(Op, X, Kept, true);
  Tensor E = expOf(Op, zipWith(Op, X, Max, fsub));
  Tensor S = sumOf(Op, E, Kept, opmath(X.dtype()), X.dtype());
  return OpResult(std::vector<Tensor>{Max, S});
}

//===-- Scans -------------------------------------------------------------===//

/// cumsum/cumprod(self, dim, *, dtype=None): the inclusive prefix fold. At
/// a symbolic position the element selects among the prefixes, which share
/// their terms.
OpResult atenScan(const OpCall &Op) {
  bool IsSum = Op.op() == "aten.cumsum";
  Tensor X = Op.tensor(0, "self");
  if (X.rank() == 0)
    Op.unsupported("a scan of a 0-dim tensor");
  size_t Dim = wrapDim(Op, Op.integer(1, "dim"), X.rank());
  DType Result = accumulatedDType(X.dtype(), Op.dtype(~0u, "dtype"));
  DType Acc = opmath(Result);
  Tensor In = castTensor(Op, X, Acc);
  int64_t N = X.size(Dim);
  if (uint64_t(N) > Op.maxTermsPerElement())
    Op.unsupported("a scan of " + std::to_string(N) + " terms");
  Context *C = &Op.C;
  Binary Combine = [Acc, IsSum](Context &C, const Expr *A, const Expr *B) {
    if (isFloating(Acc))
      return IsSum ? fadd(C, A, B) : fmul(C, A, B);
    if (Acc == DType::Bool)
      return IsSum ? C.orOf(A, B) : C.andOf(A, B);
    return IsSum ? C.add(A, B) : C.mul(A, B);
  };
  Tensor S(Acc, X.shape(), [C, In, Dim, N, Combine](const Index &I) {
    Index J = I;
    J[Dim] = i64(*C, 0);
    const Expr *Prefix = In.at(J);
    if (I[Dim]->isConst() && I[Dim]->constBits() == 0)
      return Prefix;
    const Expr *Selected = Prefix;
    for (int64_t P = 1; P < N; ++P) {
      J[Dim] = i64(*C, P);
      Prefix = Combine(*C, Prefix, In.at(J));
      if (I[Dim]->isConst()) {
        if (int64_t(I[Dim]->constBits()) == P)
          return Prefix;
        continue;
      }
      Selected = C->select(C->eq(I[Dim], i64(*C, P)), Prefix, Selected);
    }
    return Selected;
  });
  return castTensor(Op, S, Result);
}

/// cummax/cummin(self, dim) -> (values, indices): the running maximum
/// (minimum) and where it was found. As ATen's kernels: an element replaces
/// the running one when it is a NaN, or when the running one is not and
/// the element is >= (<=) it, so ties and NaNs go to the latest index.
OpResult atenCumExtremum(const OpCall &Op) {
  bool IsMax = Op.op() == "aten.cummax";
  Tensor X = Op.tensor(0, "self");
  size_t Dim = X.rank() == 0 ? 0 : wrapDim(Op, Op.integer(1, "dim"), X.rank());
  int64_t N = X.rank() == 0 ? 1 : X.size(Dim);
  if (uint64_t(N) > Op.maxTermsPerElement())
    Op.unsupported("a scan of " + std::to_string(N) + " terms");
  DType D = X.dtype();
  Context *C = &Op.C;
  // The running pair at every position along Dim of the row through I,
  // selected by I's own position (a select chain where it is symbolic).
  auto Running = [C, X, Dim, N, D, IsMax](const Index &I, bool WantIndex) {
    if (X.rank() == 0)
      return WantIndex ? i64(*C, 0) : X.at(I);
    Index J = I;
    J[Dim] = i64(*C, 0);
    const Expr *Best = X.at(J), *Where = i64(*C, 0);
    auto Pick = [&]() { return WantIndex ? Where : Best; };
    if (I[Dim]->isConst() && I[Dim]->constBits() == 0)
      return Pick();
    const Expr *Selected = Pick();
    for (int64_t P = 1; P < N; ++P) {
      J[Dim] = i64(*C, P);
      const Expr *V = X.at(J);
      const Expr *Replaces;
      if (isFloating(D)) {
        Replaces = C->orOf(
            C->fcmp(FCmpPredicate::Uno, V, V),
            C->andOf(C->fcmp(FCmpPredicate::Ord, Best, Best),
                     C->fcmp(IsMax ? FCmpPredicate::Oge : FCmpPredicate::Ole,
                             V, Best)));
      } else {
        Replaces = integerBetter(*C, D, IsMax, /*OrEqual=*/true, V, Best);
      }
      Best = C->select(Replaces, V, Best);
      Where = C->select(Replaces, i64(*C, P), Where);
      if (I[Dim]->isConst()) {
        if (int64_t(I[Dim]->constBits()) == P)
          return Pick();
        continue;
      }
      Selected = C->select(C->eq(I[Dim], i64(*C, P)), Pick(), Selected);
    }
    return Selected;
  };
  Tensor Values(D, X.shape(),
                [Running](const Index &I) { return Running(I, false); });
  Tensor Indices(DType::I64, X.shape(),
                 [Running](const Index &I) { return Running(I, true); });
  return OpResult(std::vector<Tensor>{Values, Indices});
}

//===-- Normalization -----------------------------------------------------===//

/// Reshapes a per-channel vector [C] to broadcast against dim Axis of a
/// tensor of rank Rank.
Tensor alongAxis(const Tensor &V, size_t Axis, size_t Rank) {
  Shape S(Rank, 1);
  S[Axis] = V.size(0);
  return Tensor(V.dtype(), S,
                [V, Axis](const Index &I) { return V.at({I[Axis]}); });
}

/// _normalize of torch/_decomp: (x - mean) * rsqrt(biased var + eps), with
/// mean and rstd kept over the reduced dims; in opmath.
struct Normalized {
  Tensor Out, Mean, Rstd;
};

Normalized normalize(const OpCall &Op, const Tensor &X, const Reduction &Kept,
                     const Scalar &Eps) {
  DType Acc = opmath(X.dtype());
  Tensor In = castTensor(Op, X, Acc);
  Tensor Mean = meanOf(Op, In, Kept, Acc);
  Tensor Var = varianceOf(Op, In, Kept, Mean, 0);
  OpCall Copy = Op;
  Tensor Rstd = mapWith(Op, Var, [Copy, Eps, Acc](Context &C, const Expr *V) {
    return callFn(C, "rsqrt", fadd(C, V, scalarAs(Copy, Eps, Acc)));
  });
  Tensor Centered = zipWith(Op, In, Mean, fsub);
  return {zipWith(Op, Centered, Rstd, fmul), Mean, Rstd};
}

/// out * weight + bias as the decomposition applies them (each optional).
Tensor affine(const OpCall &Op, Tensor Out, const std::optional<Tensor> &W,
              const std::optional<Tensor> &B) {
  DType Acc = Out.dtype();
  if (W)
    Out = zipWith(Op, Out, castTensor(Op, *W, Acc), fmul);
  if (B)
    Out = zipWith(Op, Out, castTensor(Op, *B, Acc), fadd);
  return Out;
}

/// native_layer_norm(input, normalized_shape, weight, bias, eps) ->
/// (out, mean, rstd); mean and rstd stay in opmath, keeping the normalized
/// dims as 1.
OpResult atenNativeLayerNorm(const OpCall &Op) {
  Tensor X = Op.tensor(0, "input");
  std::vector<int64_t> NormShape = Op.integers(1, "normalized_shape");
  std::optional<Tensor> W = Op.optionalTensor(2, "weight");
  std::optional<Tensor> B = Op.optionalTensor(3, "bias");
  Scalar Eps = Op.scalar(4, "eps");
  if (!isFloating(X.dtype()))
    Op.invalid("layer norm of a non-floating dtype");
  if (NormShape.size() > X.rank())
    Op.invalid("normalized_shape longer than the input's shape");
  size_t Axis = X.rank() - NormShape.size();
  std::vector<int64_t> Dims;
  for (size_t D = Axis; D < X.rank(); ++D) {
    if (X.size(D) != NormShape[D - Axis])
      Op.invalid("normalized_shape does not match the input's trailing sizes");
    Dims.push_back(int64_t(D));
  }
  Reduction Kept = reduction(Op, X.shape(), Dims, true);
  if (Dims.empty()) // nothing normalized: every element is its own group
    Kept.Reduced.assign(X.rank(), false), Kept.Out = X.shape(), Kept.Count = 1;
  Normalized N = normalize(Op, X, Kept, Eps);
  Tensor Out = castTensor(Op, affine(Op, N.Out, W, B), X.dtype());
  return OpResult(std::vector<Tensor>{Out, N.Mean, N.Rstd});
}

/// Batch norm in inference: (x - running_mean) / sqrt(running_var + eps),
/// then weight and bias, per channel (dim 1). native_batch_norm(input,
/// weight, bias, running_mean, running_var, training, momentum, eps) and
/// _native_batch_norm_legit_no_training(input, weight, bias, running_mean,
/// running_var, momentum, eps) -> (out, save_mean, save_invstd).
OpResult atenBatchNorm(const OpCall &Op) {
  bool NoTraining = Op.op() == "aten._native_batch_norm_legit_no_training";
  Tensor X = Op.tensor(0, "input");
  std::optional<Tensor> W = Op.optionalTensor(1, "weight");
  std::optional<Tensor> B = Op.optionalTensor(2, "bias");
  std::optional<Tensor> Mean = Op.optionalTensor(3, "running_mean");
  std::optional<Tensor> Var = Op.optionalTensor(4, "running_var");
  if (!NoTraining && Op.flag(5, "training", false))
    Op.unsupported("batch norm in training mode");
  Scalar Eps = Op.scalar(NoTraining ? 6 : 7, "eps");
  if (!Mean || !Var)
    Op.unsupported("batch norm without running statistics");
  if (X.rank() < 2 || Mean->rank() != 1 || Mean->size(0) != X.size(1))
    Op.invalid("running statistics do not match the channel dimension");
  DType Acc = opmath(X.dtype());
  OpCall Copy = Op;
  Tensor M = castTensor(Op, *Mean, Acc);
  Tensor InvStd =
      mapWith(Op, castTensor(Op, *Var, Acc),
              [Copy, Eps, Acc](Context &C, const Expr *V) {
                const Expr *S =
                    C.unary(Op::FSqrt, fadd(C, V, scalarAs(Copy, Eps, Acc)));
                return fdiv(C, k(C, Acc, 1), S);
              });
  Tensor In = castTensor(Op, X, Acc);
  Tensor Out = zipWith(Op, zipWith(Op, In, alongAxis(M, 1, X.rank()), fsub),
                       alongAxis(InvStd, 1, X.rank()), fmul);
  std::optional<Tensor> WA, BA;
  if (W)
    WA = alongAxis(*W, 1, X.rank());
  if (B)
    BA = alongAxis(*B, 1, X.rank());
  Out = castTensor(Op, affine(Op, Out, WA, BA), X.dtype());
  return OpResult(std::vector<Tensor>{Out, M, InvStd});
}

/// native_group_norm(input, weight, bias, N, C, HxW, group, eps) ->
/// (out, mean, rstd): statistics over each group of C/group channels and
/// all spatial positions; mean and rstd are [N, group].
OpResult atenGroupNorm(const OpCall &Op) {
  Tensor X = Op.tensor(0, "input");
  std::optional<Tensor> W = Op.optionalTensor(1, "weight");
  std::optional<Tensor> B = Op.optionalTensor(2, "bias");
  int64_t N = Op.integer(3, "N"), Ch = Op.integer(4, "C"),
          HxW = Op.integer(5, "HxW"), G = Op.integer(6, "group");
  Scalar Eps = Op.scalar(7, "eps");
  if (X.rank() < 2 || X.size(0) != N || X.size(1) != Ch || G <= 0 ||
      Ch % G != 0 || X.numel() != N * Ch * HxW || HxW <= 0)
    Op.invalid("sizes do not describe the input");
  int64_t PerGroup = Ch / G;
  Context *C = &Op.C;
  // The input viewed as [N, G, C/G * HxW], row-major over (channel, spatial).
  Tensor Grouped(
      X.dtype(), {N, G, PerGroup * HxW}, [C, X, PerGroup, HxW](const Index &I) {
        const Expr *Channel = C->add(C->mul(I[1], i64(*C, PerGroup)),
                                     C->binary(Op::UDiv, I[2], i64(*C, HxW)));
        const Expr *Spatial = C->binary(Op::URem, I[2], i64(*C, HxW));
        Index Full = {I[0], Channel};
        int64_t Inner = HxW;
        for (size_t D = 2; D < X.rank(); ++D) {
          Inner /= X.size(D);
          const Expr *Q = C->binary(Op::UDiv, Spatial, i64(*C, Inner));
          Full.push_back(C->binary(Op::URem, Q, i64(*C, X.size(D))));
        }
        return X.at(Full);
      });
  Reduction Kept =
      reduction(Op, Grouped.shape(), std::vector<int64_t>{2}, true);
  Normalized Norm = normalize(Op, Grouped, Kept, Eps);
  DType Acc = Norm.Mean.dtype();
  Tensor In = castTensor(Op, X, Acc);
  Tensor Mean = Norm.Mean, Rstd = Norm.Rstd;
  Tensor Out(Acc, X.shape(), [C, In, Mean, Rstd, PerGroup](const Index &I) {
    Index Stat = {I[0], C->binary(Op::UDiv, I[1], i64(*C, PerGroup)),
                  i64(*C, 0)};
    return fmul(*C, fsub(*C, In.at(I), Mean.at(Stat)), Rstd.at(Stat));
  });
  std::optional<Tensor> WA, BA;
  if (W)
    WA = alongAxis(*W, 1, X.rank());
  if (B)
    BA = alongAxis(*B, 1, X.rank());
  Out = castTensor(Op, affine(Op, Out, WA, BA), X.dtype());
  return OpResult(std::vector<Tensor>{Out, squeezeReduced(Op, Mean, Kept),
                                      squeezeReduced(Op, Rstd, Kept)});
}

const OpDefinition Table[] = {
    {"aten.sum", atenSum},
    {"aten.mean", atenMean},
    {"aten.prod", atenProd},
    {"aten.any", atenAnyAll},
    {"aten.all", atenAnyAll},
    {"aten.amax", atenAmax},
    {"aten.amin", atenAmax},
    {"aten.max", atenMaxMin},
    {"aten.min", atenMaxMin},
    {"aten.argmax", atenArgExtremum},
    {"aten.argmin", atenArgExtremum},
    {"aten.var", atenVariance},
    {"aten.std", atenVariance},
    {"aten.var_mean", atenVariance},
    {"aten.std_mean", atenVariance},
    {"aten.logsumexp", atenLogsumexp},
    {"aten._softmax", atenSoftmax},
    {"aten._log_softmax", atenLogSoftmax},
    {"prims.prepare_softmax_online", primsPrepareSoftmaxOnline},
    {"aten.cumsum", atenScan},
    {"aten.cumprod", atenScan},
    {"aten.cummax", atenCumExtremum},
    {"aten.cummin", atenCumExtremum},
    {"aten.native_layer_norm", atenNativeLayerNorm},
    {"aten.native_batch_norm", atenBatchNorm},
    {"aten._native_batch_norm_legit_no_training", atenBatchNorm},
    {"aten.native_group_norm", atenGroupNorm},
};

} // namespace

Tensor sumOver(const OpCall &Op, const Tensor &X,
               const std::optional<std::vector<int64_t>> &Dims, bool KeepDim) {
  Reduction R = reduction(Op, X.shape(), Dims, KeepDim);
  DType Result = accumulatedDType(X.dtype(), std::nullopt);
  return sumOf(Op, castTensor(Op, X, Result), R, opmath(Result), Result);
}

Tensor meanOver(const OpCall &Op, const Tensor &X,
                const std::optional<std::vector<int64_t>> &Dims, bool KeepDim) {
  Reduction R = reduction(Op, X.shape(), Dims, KeepDim);
  return meanOf(Op, X, R, X.dtype());
}

std::span<const OpDefinition> reductionOps() { return Table; }

} // namespace stagecheck::fx

//===- AtenHelpers.cpp - Promotion, broadcasting, conversions -------------===//
#include "frontends/fx/AtenTable.h"

#include "ir/Errors.h"

#include <cmath>

using namespace stagecheck::ir;

namespace stagecheck::fx {

std::vector<OpDefinition> atenTable() {
  std::vector<OpDefinition> All;
  for (auto Part : {pointwiseOps(), reductionOps(), shapeOps(), nnOps()})
    All.insert(All.end(), Part.begin(), Part.end());
  return All;
}

const OpDefinition *lookupOp(const std::string &Target) {
  static const std::vector<OpDefinition> Table = atenTable();
  // An overload with a meaning of its own ("aten.max.other") first, then
  // the op ("aten.mul" for "aten.mul.Tensor").
  for (const OpDefinition &D : Table)
    if (Target == D.Name)
      return &D;
  std::string Name = Target;
  size_t First = Name.find('.');
  size_t Second =
      First == std::string::npos ? First : Name.find('.', First + 1);
  if (Second != std::string::npos)
    Name = Name.substr(0, Second);
  for (const OpDefinition &D : Table)
    if (Name == D.Name)
      return &D;
  return nullptr;
}

const Expr *i64(Context &C, int64_t V) { return C.intConst(Type::i(64), V); }

const Expr *constantOf(Context &C, DType D, double V) {
  if (isFloating(D))
    return C.floatConst(irType(D), V);
  if (D == DType::Bool)
    return C.boolean(V != 0);
  return C.intConst(irType(D), int64_t(V));
}

const Expr *callFn(Context &C, const char *Name, const Expr *X) {
  const Expr *Args[] = {X};
  return C.call(Name, X->type(), Args);
}

const Expr *callFn(Context &C, const char *Name, const Expr *X, const Expr *Y) {
  const Expr *Args[] = {X, Y};
  return C.call(Name, X->type(), Args);
}

/// i1: the float X truncates to a value of the integer dtype To. Outside,
/// C++'s conversion (and so torch's) is undefined.
static const Expr *truncatesInRange(Context &C, const Expr *X, DType To) {
  unsigned W = irType(To).bits();
  bool Signed = isSigned(To);
  const Expr *Wide = C.cast(Op::FPCast, X, Type::f64());
  double Hi = std::ldexp(1.0, Signed ? int(W) - 1 : int(W));
  double Lo = Signed ? -std::ldexp(1.0, int(W) - 1) : 0.0;
  // Lo - 1 is exact in f64 up to 53 bits; beyond, no double lies between
  // Lo - 1 and Lo, so x >= Lo says the same.
  const Expr *AboveLo =
      W < 53
          ? C.fcmp(FCmpPredicate::Ogt, Wide, C.floatConst(Type::f64(), Lo - 1))
          : C.fcmp(FCmpPredicate::Oge, Wide, C.floatConst(Type::f64(), Lo));
  const Expr *BelowHi =
      C.fcmp(FCmpPredicate::Olt, Wide, C.floatConst(Type::f64(), Hi));
  return C.andOf(AboveLo, BelowHi);
}

const Expr *convert(const OpCall &Op, const Expr *E, DType From, DType To) {
  Context &C = Op.C;
  if (From == To)
    return E;
  Type T = irType(To);
  if (To == DType::Bool) {
    if (isFloating(From))
      return C.fcmp(FCmpPredicate::Une, E, C.floatConst(E->type(), 0.0));
    return C.icmp(ICmpPredicate::Ne, E, C.intConst(E->type(), 0));
  }
  if (From == DType::Bool)
    return isFloating(To) ? C.cast(Op::UIToFP, E, T) : C.cast(Op::ZExt, E, T);
  if (isFloating(From) && isFloating(To))
    return C.cast(Op::FPCast, E, T);
  if (isFloating(To))
    return C.cast(isSigned(From) ? Op::SIToFP : Op::UIToFP, E, T);
  if (isFloating(From)) {
    // c10 converts floats to uint8 through int64 so that negative values
    // wrap the same way on every device.
    DType Via = To == DType::U8 ? DType::I64 : To;
    Op.undefinedWhen(
        C.notOf(truncatesInRange(C, E, Via)),
        std::string("conversion of a float outside the range of ") +
            abbreviation(Via));
    const Expr *I = C.cast(isSigned(Via) ? Op::FPToSI : Op::FPToUI, E,
                           irType(Via), RoundingMode::TowardZero);
    return Via == To ? I : C.cast(Op::Trunc, I, T);
  }
  // Integer to integer: wrap (truncate) or extend by the source's sign.
  if (T.bits() < E->type().bits())
    return C.cast(Op::Trunc, E, T);
  if (T.bits() == E->type().bits())
    return E;
  return C.cast(isSigned(From) ? Op::SExt : Op::ZExt, E, T);
}

const Expr *scalarAs(const OpCall &Op, const Scalar &S, DType To) {
  DType From = S.Cat == Category::Floating  ? DType::F64
               : S.Cat == Category::Integer ? DType::I64
                                            : DType::Bool;
  return convert(Op, S.E, From, To);
}

Shape broadcastShapes(const OpCall &Op, const std::vector<Shape> &Shapes) {
  size_t Rank = 0;
  for (const Shape &S : Shapes)
    Rank = std::max(Rank, S.size());
  Shape Out(Rank, 1);
  for (const Shape &S : Shapes)
    for (size_t K = 0; K < S.size(); ++K) {
      size_t D = Rank - S.size() + K;
      if (S[K] == Out[D] || S[K] == 1)
        continue;
      if (Out[D] != 1)
        Op.invalid("shapes cannot be broadcast together (size " +
                   std::to_string(S[K]) + " against " + std::to_string(Out[D]) +
                   " in dimension " + std::to_string(D) + ")");
      Out[D] = S[K];
    }
  return Out;
}

Index broadcastIndex(Context &C, const Index &I, const Shape &Out,
                     const Shape &In) {
  Index R(In.size());
  for (size_t K = 0; K < In.size(); ++K) {
    size_t D = Out.size() - In.size() + K;
    R[K] = In[K] == 1 && Out[D] != 1 ? i64(C, 0) : I[D];
  }
  return R;
}

Tensor broadcastTo(const OpCall &Op, const Tensor &T, const Shape &Out) {
  if (T.shape() == Out)
    return T;
  Shape B = broadcastShapes(Op, {T.shape(), Out});
  if (B != Out)
    Op.invalid("cannot expand a tensor to the requested shape");
  Context *C = &Op.C;
  return Tensor(T.dtype(), Out, [C, T, Out](const Index &I) {
    return T.at(broadcastIndex(*C, I, Out, T.shape()));
  });
}

size_t wrapDim(const OpCall &Op, int64_t Dim, size_t Rank) {
  int64_t R = int64_t(std::max<size_t>(Rank, 1)); // a scalar has dim 0 and -1
  if (Dim < -R || Dim >= R)
    Op.invalid("dimension " + std::to_string(Dim) + " out of range for rank " +
               std::to_string(Rank));
  return size_t(Dim < 0 ? Dim + R : Dim);
}

std::vector<size_t> wrapDims(const OpCall &Op, const std::vector<int64_t> &Dims,
                             size_t Rank) {
  std::vector<size_t> Out;
  for (int64_t D : Dims) {
    size_t W = wrapDim(Op, D, Rank);
    if (std::find(Out.begin(), Out.end(), W) != Out.end())
      Op.invalid("dimension " + std::to_string(D) + " repeated");
    Out.push_back(W);
  }
  return Out;
}

void promotedTypes(const OpCall &Op, const std::vector<Operand> &Operands,
                   Promotion P, DType &Result, DType &Compute) {
  std::vector<PromotionOperand> PO;
  for (const Operand &O : Operands) {
    if (O.isTensor())
      PO.push_back({O.T->rank() == 0 ? PromotionOperand::Rank::ZeroDim
                                     : PromotionOperand::Rank::Dimensioned,
                    O.T->dtype()});
    else
      PO.push_back({PromotionOperand::Rank::Scalar,
                    O.S.Cat == Category::Floating  ? DType::F64
                    : O.S.Cat == Category::Integer ? DType::I64
                                                   : DType::Bool});
  }
  DType R = resultType(PO.data(), PO.data() + PO.size());
  switch (P) {
  case Promotion::Default:
    Result = R;
    Compute = opmath(R);
    return;
  case Promotion::IntToFloat:
    Result = isFloating(R) ? R : DType::F32;
    Compute = opmath(Result);
    return;
  case Promotion::AlwaysBool:
    Result = DType::Bool;
    Compute = R;
    return;
  case Promotion::NoOpmath:
    Result = Compute = R;
    return;
  case Promotion::BoolToLong:
    Result = R == DType::Bool ? DType::I64 : R;
    Compute = opmath(Result);
    return;
  }
}

Tensor pointwise(const OpCall &Op, const std::vector<Operand> &Operands,
                 Promotion P, const PointwiseBody &Body) {
  DType Result, Compute;
  promotedTypes(Op, Operands, P, Result, Compute);
  std::vector<Shape> Shapes;
  for (const Operand &O : Operands)
    if (O.isTensor())
      Shapes.push_back(O.T->shape());
  if (Shapes.empty())
    Op.invalid("no tensor operand");
  Shape Out = broadcastShapes(Op, Shapes);
  return Tensor(
      Result, Out,
      [Op, Operands, Out, Compute, Result, P, Body](const Index &I) {
        std::vector<const Expr *> Args;
        for (const Operand &O : Operands)
          Args.push_back(
              O.isTensor()
                  ? convert(Op,
                            O.T->at(broadcastIndex(Op.C, I, Out, O.T->shape())),
                            O.T->dtype(), Compute)
                  : scalarAs(Op, O.S, Compute));
        const Expr *V = Body(Op, Args, Compute);
        if (P == Promotion::AlwaysBool)
          return V;
        return convert(Op, V, Compute, Result);
      });
}

Tensor mapFloat(const OpCall &Op, const Tensor &T,
                const std::function<const Expr *(const Expr *)> &F) {
  Operand O;
  O.T = T;
  return pointwise(Op, {O}, Promotion::IntToFloat,
                   [F](const OpCall &, std::span<const Expr *const> A, DType) {
                     return F(A[0]);
                   });
}

} // namespace stagecheck::fx

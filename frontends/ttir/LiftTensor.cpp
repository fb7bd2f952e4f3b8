//===- LiftTensor.cpp - Shape ops, reductions, scans and dots -------------===//
//
// Shape ops rename index symbols: broadcast fixes a size-1 dimension's index
// at 0, expand_dims shifts the indices after the new axis, trans permutes
// them. Ops that combine many elements (reduce, scan, dot, histogram) unroll
// over the concrete size of the dimension they consume, keeping the other
// indices symbolic; the order is canonical and documented in
// docs/lifting-conventions.md (reduce: a balanced tree in index order; scan
// and dot: sequential in index order).
//
//===----------------------------------------------------------------------===//
#include "frontends/ttir/LifterImpl.h"

#include <algorithm>
#include <functional>
#include <numeric>

using namespace stagecheck::ir;

namespace stagecheck::ttir {

namespace {

/// The axis of an op: `{axis = N}` or the first keyword (x, y, z).
std::optional<int64_t> axisOf(const Operation &O) {
  if (const Attr *A = O.attr("axis"))
    return A->asInt();
  if (!O.Words.empty()) {
    const std::string &W = O.Words.front();
    if (W == "x")
      return 0;
    if (W == "y")
      return 1;
    if (W == "z")
      return 2;
  }
  return std::nullopt;
}

int64_t product(const std::vector<int64_t> &Shape) {
  return std::accumulate(Shape.begin(), Shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// The shape without dimension Axis.
std::vector<int64_t> without(const std::vector<int64_t> &Shape, size_t Axis) {
  std::vector<int64_t> Out = Shape;
  Out.erase(Out.begin() + long(Axis));
  return Out;
}

} // namespace

/// Applies a combine region to element values: Lhs and Rhs hold one value
/// per reduced operand.
std::vector<Val> Lifter::combine(const Operation &O, const std::vector<Val> &Lhs,
                                 const std::vector<Val> &Rhs) {
  if (O.Regions.size() != 1 || O.Regions[0].Blocks.size() != 1)
    malformed(O, "expects one combine region with one block");
  std::vector<Val> Args = Lhs;
  Args.insert(Args.end(), Rhs.begin(), Rhs.end());
  Terminated T = liftBlock(O.Regions[0].Blocks.front(), Args);
  if (T.Values.size() != Lhs.size())
    malformed(O, "the combine region returns " + std::to_string(T.Values.size()) +
                     " values for " + std::to_string(Lhs.size()) + " operands");
  for (Val &V : T.Values)
    if (!V.Shape.empty())
      malformed(O, "the combine region must compute scalars");
  return T.Values;
}

/// A combine region of one operand whose one op, applied to its two
/// arguments and returned, is exactly associative and commutative (integer
/// add, mul and bit operations, min and max): any bracketing of its
/// applications gives one value.
bool Lifter::orderFreeCombine(const Operation &O) {
  static const char *const Free[] = {
      "arith.addi",    "arith.muli",    "arith.andi",    "arith.ori",
      "arith.xori",    "arith.maxsi",   "arith.minsi",   "arith.maxui",
      "arith.minui",   "arith.maxnumf", "arith.minnumf", "arith.maximumf",
      "arith.minimumf"};
  if (O.Operands.size() != 1 || O.Regions.size() != 1 ||
      O.Regions[0].Blocks.size() != 1)
    return false;
  const Block &B = O.Regions[0].Blocks.front();
  const std::vector<Operation> &Ops = B.Ops;
  if (B.Args.size() != 2 || Ops.size() != 2 || Ops[0].Operands.size() != 2 ||
      Ops[0].Results.size() != 1 || Ops[1].Operands.size() != 1 ||
      std::find(std::begin(Free), std::end(Free), Ops[0].Name) ==
          std::end(Free))
    return false;
  // f(a, b) or f(b, a), not f(a, a); and the region returns it.
  const std::string &L = Ops[0].Operands[0].Name, &R = Ops[0].Operands[1].Name;
  bool BothArguments = (L == B.Args[0].Name && R == B.Args[1].Name) ||
                       (L == B.Args[1].Name && R == B.Args[0].Name);
  return BothArguments && Ops[1].Operands[0].Name == Ops[0].Results[0].first;
}

/// The single operand, read with the shape the op declares for it (an
/// operand of another shape is ill-typed input: poison outside its shape).
Val Lifter::declaredSource(const Operation &O) {
  Val V = get(O, 0);
  if (O.Types.size() >= 2 && V.K == Val::Kind::Tensor &&
      O.Types.front()->shape().size() == V.Shape.size())
    V = adapt(V, O.Types.front()->shape(), O);
  return V;
}

bool Lifter::liftTensorOp(const Operation &O) {
  const std::string &N = O.Name;

  if (N == "tt.get_program_id" || N == "tt.get_num_programs") {
    std::optional<int64_t> Axis = axisOf(O);
    if (!Axis || *Axis < 0 || *Axis > 2)
      malformed(O, "needs an axis x, y or z");
    unsigned Dim = unsigned(*Axis);
    const Expr *Pid = programIdSymbol(C, Dim);
    const Expr *NProg = numProgramsSymbol(C, Dim);
    const Expr *Launch = programIdRange(C, Dim);
    if (std::find(R.Assumptions.begin(), R.Assumptions.end(), Launch) ==
        R.Assumptions.end())
      R.Assumptions.push_back(Launch);
    define(O, tensorOf(resultType(O), N == "tt.get_program_id" ? Pid : NProg));
    return true;
  }

  if (N == "tt.make_range") {
    const Attr *Start = O.attr("start"), *End = O.attr("end");
    if (!Start || !End || !Start->asInt() || !End->asInt())
      malformed(O, "needs integer start and end");
    TypePtr Ty = resultType(O);
    std::vector<int64_t> Shape = Ty->shape();
    if (Shape.size() != 1 || *End->asInt() - *Start->asInt() != Shape[0])
      malformed(O, "end - start must be the size of its 1-d result");
    define(O, tensorOf(Ty, C.add(C.intConst(Type::i(32), *Start->asInt()),
                                 idx(0))));
    return true;
  }

  if (N == "tt.splat") {
    expectOperands(O, 1, 1);
    Val V = get(O, 0);
    if (!V.Shape.empty())
      malformed(O, "splats a scalar");
    V.Ty = resultType(O);
    V.Shape = V.Ty->shape();
    define(O, V);
    return true;
  }

  if (N == "tt.broadcast") {
    expectOperands(O, 1, 1);
    Val V = declaredSource(O);
    TypePtr Ty = resultType(O);
    std::vector<int64_t> To = Ty->shape();
    if (V.Shape.size() != To.size())
      malformed(O, "broadcast keeps the rank");
    std::vector<std::pair<unsigned, const Expr *>> Map;
    for (size_t D = 0; D < To.size(); ++D) {
      if (V.Shape[D] == To[D])
        continue;
      if (V.Shape[D] != 1)
        malformed(O, "only dimensions of size 1 can be broadcast");
      Map.push_back({unsigned(D), C.intConst(Type::i(32), 0)});
    }
    Val Out = substVal(V, Map);
    Out.Ty = Ty;
    Out.Shape = To;
    define(O, Out);
    return true;
  }

  if (N == "tt.expand_dims") {
    expectOperands(O, 1, 1);
    Val V = declaredSource(O);
    std::optional<int64_t> Axis = axisOf(O);
    if (!Axis || *Axis < 0 || size_t(*Axis) > V.Shape.size())
      malformed(O, "axis out of range");
    std::vector<std::pair<unsigned, const Expr *>> Map;
    for (size_t D = size_t(*Axis); D < V.Shape.size(); ++D)
      Map.push_back({unsigned(D), idx(unsigned(D + 1))});
    Val Out = substVal(V, Map);
    Out.Ty = resultType(O);
    Out.Shape = Out.Ty->shape();
    define(O, Out);
    return true;
  }

  if (N == "tt.reshape" || N == "tt.trans" || N == "ttg.convert_layout") {
    expectOperands(O, 1, 1);
    Val V = N == "ttg.convert_layout" ? get(O, 0) : declaredSource(O);
    if (V.K != Val::Kind::Tensor)
      malformed(O, "expects a tensor");
    TypePtr Ty = resultType(O);
    std::vector<int64_t> To = Ty->shape();
    Val Out = V;
    if (N == "ttg.convert_layout") {
      // A change of layout changes no value. A convert_layout that changes
      // the shape is ill-typed (the verifier rejects it); its result is
      // poison, so that the difference surfaces as a counterexample that
      // names this op.
      if (To != V.Shape)
        Out.Defined = C.falseExpr();
    } else if (N == "tt.trans") {
      const Attr *Order = O.attr("order");
      std::optional<std::vector<int64_t>> Perm =
          Order ? Order->asInts() : std::nullopt;
      if (!Perm || Perm->size() != V.Shape.size())
        malformed(O, "needs an order over every dimension");
      std::vector<std::pair<unsigned, const Expr *>> Map;
      for (size_t I = 0; I < Perm->size(); ++I) {
        int64_t From = (*Perm)[I];
        if (From < 0 || size_t(From) >= V.Shape.size() ||
            V.Shape[size_t(From)] != To.at(I))
          malformed(O, "order does not match the shapes");
        Map.push_back({unsigned(From), idx(unsigned(I))});
      }
      Out = substVal(V, Map);
    } else { // tt.reshape: row-major (allow_reorder may reorder only in
             // lowering; both TTIR and TTGIR keep the op)
      if (product(To) != product(V.Shape))
        malformed(O, "reshape changes the number of elements");
      std::vector<int64_t> FromDims, ToDims; // the dimensions that are not 1
      for (int64_t D : V.Shape)
        if (D != 1)
          FromDims.push_back(D);
      for (int64_t D : To)
        if (D != 1)
          ToDims.push_back(D);
      std::vector<std::pair<unsigned, const Expr *>> Map;
      if (FromDims == ToDims) { // only unit dimensions come or go
        std::vector<unsigned> ToNonUnit;
        for (size_t D = 0; D < To.size(); ++D)
          if (To[D] != 1)
            ToNonUnit.push_back(unsigned(D));
        size_t Next = 0;
        for (size_t D = 0; D < V.Shape.size(); ++D)
          Map.push_back({unsigned(D), V.Shape[D] == 1
                                          ? C.intConst(Type::i(32), 0)
                                          : idx(ToNonUnit[Next++])});
      } else {
        const Expr *L = linearIndex(To);
        int64_t Stride = product(V.Shape);
        for (size_t D = 0; D < V.Shape.size(); ++D) {
          Stride /= V.Shape[D];
          const Expr *I = C.binary(
              Op::URem, C.binary(Op::UDiv, L, C.intConst(Type::i(64), Stride)),
              C.intConst(Type::i(64), V.Shape[D]));
          Map.push_back({unsigned(D), C.cast(Op::Trunc, I, Type::i(32))});
        }
      }
      Out = substVal(V, Map);
    }
    Out.Ty = Ty;
    Out.Shape = To;
    define(O, Out);
    return true;
  }

  if (N == "tt.join") {
    expectOperands(O, 2, 2);
    Val A = get(O, 0), B = get(O, 1);
    if (A.Shape != B.Shape || A.IsPtr != B.IsPtr || A.Buffer != B.Buffer)
      malformed(O, "joins two tensors of one type");
    unsigned Last = A.rank();
    const Expr *First = C.eq(idx(Last), C.intConst(Type::i(32), 0));
    Val Out = A;
    Out.Ty = resultType(O);
    Out.Shape = Out.Ty->shape();
    Out.E = C.select(First, A.E, B.E);
    Out.Defined = C.select(First, A.Defined, B.Defined);
    define(O, Out);
    return true;
  }

  if (N == "tt.split") {
    expectOperands(O, 1, 1);
    Val V = get(O, 0);
    if (V.Shape.empty() || V.Shape.back() != 2)
      malformed(O, "splits a last dimension of size 2");
    unsigned Last = V.rank() - 1;
    std::vector<Val> Outs;
    for (int64_t Half : {0, 1}) {
      Val H = substVal(V, {{Last, C.intConst(Type::i(32), Half)}});
      H.Ty = resultType(O);
      H.Shape = H.Ty->shape();
      Outs.push_back(H);
    }
    define(O, Outs);
    return true;
  }

  if (N == "tt.cat") {
    expectOperands(O, 2, 2);
    Val A = get(O, 0), B = get(O, 1);
    if (A.Shape.empty() || A.Shape != B.Shape || A.IsPtr != B.IsPtr ||
        A.Buffer != B.Buffer)
      malformed(O, "concatenates two tensors of one type");
    const Expr *N0 = C.intConst(Type::i(32), A.Shape[0]);
    const Expr *InA = C.icmp(ICmpPredicate::Ult, idx(0), N0);
    Val BS = substVal(B, {{0, C.sub(idx(0), N0)}});
    Val Out = A;
    Out.Ty = resultType(O);
    Out.Shape = Out.Ty->shape();
    Out.E = C.select(InA, A.E, BS.E);
    Out.Defined = C.select(InA, A.Defined, BS.Defined);
    define(O, Out);
    return true;
  }

  if (N == "tt.reduce") {
    if (O.Operands.empty())
      malformed(O, "reduces at least one tensor");
    std::optional<int64_t> Axis = axisOf(O);
    std::vector<Val> Srcs;
    for (size_t I = 0; I < O.Operands.size(); ++I)
      Srcs.push_back(get(O, I));
    std::vector<int64_t> Shape = Srcs.front().Shape;
    if (!Axis || *Axis < 0 || size_t(*Axis) >= Shape.size())
      malformed(O, "axis out of range");
    for (const Val &S : Srcs)
      if (S.Shape != Shape || S.IsPtr)
        malformed(O, "operands must be tensors of one shape");
    unsigned A = unsigned(*Axis);
    int64_t Extent = Shape[A];
    // Element k of every operand, over the result's index symbols.
    auto Leaf = [&](int64_t K) {
      std::vector<std::pair<unsigned, const Expr *>> Map{
          {A, C.intConst(Type::i(32), K)}};
      for (unsigned D = A + 1; D < Shape.size(); ++D)
        Map.push_back({D, idx(D - 1)});
      std::vector<Val> Out;
      for (const Val &S : Srcs) {
        Val E = substVal(S, Map);
        E.Shape.clear();
        E.Ty = S.Ty->Elem ? S.Ty->Elem : S.Ty;
        Out.push_back(E);
      }
      return Out;
    };
    std::function<std::vector<Val>(int64_t, int64_t)> Tree =
        [&](int64_t Lo, int64_t Hi) -> std::vector<Val> {
      if (Hi - Lo == 1)
        return Leaf(Lo);
      int64_t Half = 1;
      while (Half * 2 < Hi - Lo)
        Half *= 2;
      std::vector<Val> L = Tree(Lo, Lo + Half);
      std::vector<Val> Rt = Tree(Lo + Half, Hi);
      return combine(O, L, Rt);
    };
    std::vector<Val> Reduced = Opt.Lowering
                                   ? reduceLowered(O, Srcs, A, Leaf)
                                   : Tree(0, Extent);
    std::vector<Val> Results;
    for (size_t I = 0; I < Reduced.size(); ++I) {
      TypePtr Ty = resultType(O, I);
      if (Ty->shape() != without(Shape, A))
        malformed(O, "result shape does not match the reduction");
      Results.push_back(tensorOf(Ty, Reduced[I].E, Reduced[I].Defined));
    }
    define(O, Results);
    return true;
  }

  if (N == "tt.scan") {
    // Triton's lowering scans in parallel (each thread its registers, then
    // shuffles up across lanes, then warps through shared memory): for a
    // combine whose order matters the lowered lift takes its order
    // (scanLowered); the sequential prefixes below are its values only for
    // a combine whose order does not matter.
    std::optional<int64_t> Axis = axisOf(O);
    const Attr *Reverse = O.attr("reverse");
    std::vector<Val> Srcs;
    for (size_t I = 0; I < O.Operands.size(); ++I)
      Srcs.push_back(get(O, I));
    if (Srcs.empty())
      malformed(O, "scans at least one tensor");
    std::vector<int64_t> Shape = Srcs.front().Shape;
    if (!Axis || *Axis < 0 || size_t(*Axis) >= Shape.size())
      malformed(O, "axis out of range");
    unsigned A = unsigned(*Axis);
    bool Backward = Reverse && Reverse->asInt() && *Reverse->asInt();
    if (Opt.Lowering && !orderFreeCombine(O)) {
      define(O, scanLowered(O, Srcs, A, Backward));
      return true;
    }
    int64_t Extent = Shape[A];
    std::vector<std::vector<Val>> Prefix(static_cast<size_t>(Extent));
    std::vector<Val> Acc;
    for (int64_t Step = 0; Step < Extent; ++Step) {
      int64_t K = Backward ? Extent - 1 - Step : Step;
      std::vector<Val> X;
      for (const Val &S : Srcs) {
        Val E = substVal(S, {{A, C.intConst(Type::i(32), K)}});
        E.Shape.clear();
        E.Ty = S.Ty->Elem ? S.Ty->Elem : S.Ty;
        X.push_back(E);
      }
      Acc = Step == 0 ? X : combine(O, Acc, X);
      Prefix[size_t(K)] = Acc;
    }
    std::vector<Val> Results;
    for (size_t I = 0; I < Srcs.size(); ++I) {
      const Expr *E = Prefix.back()[I].E;
      const Expr *D = Prefix.back()[I].Defined;
      for (int64_t K = Extent - 1; K-- > 0;) {
        const Expr *Here = C.eq(idx(A), C.intConst(Type::i(32), K));
        E = C.select(Here, Prefix[size_t(K)][I].E, E);
        D = C.select(Here, Prefix[size_t(K)][I].Defined, D);
      }
      Results.push_back(tensorOf(resultType(O, I), E, D));
    }
    define(O, Results);
    return true;
  }

  if (N == "tt.dot" || N == "ttng.warp_group_dot") {
    if (O.Operands.size() < 3)
      malformed(O, "needs a, b and an accumulator");
    auto Operand = [&](size_t I) {
      const Val &V = get(O, I);
      return V.K == Val::Kind::MemDesc ? readView(V, O) : V;
    };
    Val A = Operand(0), B = Operand(1), Acc = Operand(2);
    if (O.Operands.size() > 3) { // warp_group_dot's useC flag
      const Val &UseC = get(O, 3);
      if (!UseC.Shape.empty() || !UseC.E->type().isBool())
        unsupported(O, "unsupported operands of " + N);
      Acc.E = C.select(UseC.E, Acc.E,
                       C.constant(Acc.E->type(), 0));
    }
    unsigned Rank = A.rank();
    if (Rank < 2 || B.rank() != Rank || Acc.rank() != Rank)
      malformed(O, "operands must be matrices (or batches of them)");
    int64_t K = A.Shape[Rank - 1];
    if (B.Shape[Rank - 2] != K)
      malformed(O, "inner dimensions differ");
    if (const Attr *Imprecise = O.attr("maxNumImpreciseAcc"))
      if (Imprecise->asInt() && *Imprecise->asInt() != 0)
        unsupported(O, "unsupported op " + N + " with maxNumImpreciseAcc");
    std::string Precision = "ieee";
    if (const Attr *P = O.attr("inputPrecision")) {
      if (P->K == Attr::Kind::Keyword)
        Precision = P->Text;
      else if (P->asInt()) // TT_InputPrecisionAttr: TF32, TF32x3, IEEE, ...
        Precision = *P->asInt() == 0   ? "tf32"
                    : *P->asInt() == 2 ? "ieee"
                                       : "other";
    }
    Type AccType = Acc.E->type();
    Type In = A.E->type();
    bool RoundTF32 = Precision == "tf32" && In == Type::f32();
    if (Precision != "ieee" && Precision != "tf32" && In == Type::f32())
      unsupported(O, "unsupported op " + N + " with inputPrecision " + Precision);
    auto Widen = [&](const Expr *X) -> const Expr * {
      if (X->type() == AccType)
        return X;
      if (AccType.isFloat() && X->type().isFloat())
        return C.cast(Op::FPCast, X, AccType);
      if (AccType.isInt() && X->type().isInt())
        return C.cast(Op::SExt, X, AccType);
      unsupported(O, "unsupported op " + N + " mixing integer and float types");
    };
    // tf32: the significand is rounded to 10 bits, to nearest, ties away
    // (cvt.rna.tf32.f32); NaN stays NaN.
    auto ToTF32 = [&](const Expr *X) -> const Expr * {
      if (!RoundTF32)
        return X;
      Type I32 = Type::i(32);
      const Expr *Bits = C.cast(Op::Bitcast, X, I32);
      const Expr *Rounded = C.andOf(C.add(Bits, C.intConst(I32, 0x1000)),
                                    C.intConst(I32, int64_t(0xFFFFE000u)));
      return C.select(C.fcmp(FCmpPredicate::Uno, X, X), X,
                      C.cast(Op::Bitcast, Rounded, Type::f32()));
    };
    std::vector<int64_t> Shape = Acc.Shape;
    Acc = adapt(Acc, Shape, O);
    if (Opt.Lowering && N == "tt.dot")
      if (std::optional<Val> D = dotLowered(O, A, B, Acc)) {
        define(O, *D);
        return true;
      }
    const Expr *Sum = Acc.E;
    const Expr *Defined = Acc.Defined;
    for (int64_t I = 0; I < K; ++I) {
      const Expr *KI = C.intConst(Type::i(32), I);
      Val AI = substVal(A, {{Rank - 1, KI}});
      Val BI = substVal(B, {{Rank - 2, KI}});
      const Expr *X = Widen(ToTF32(AI.E)), *Y = Widen(ToTF32(BI.E));
      Sum = AccType.isFloat() ? C.fma(X, Y, Sum) : C.add(C.mul(X, Y), Sum);
      Defined = C.andOf(Defined, C.andOf(AI.Defined, BI.Defined));
    }
    define(O, tensorOf(resultType(O), Sum, Defined));
    return true;
  }

  if (N == "ttng.warp_group_dot_wait") {
    std::vector<Val> Vs;
    for (size_t I = 0; I < O.Operands.size(); ++I)
      Vs.push_back(get(O, I));
    define(O, Vs);
    return true;
  }

  if (N == "tt.histogram") {
    expectOperands(O, 1, 2);
    Val Src = get(O, 0);
    if (Src.rank() != 1)
      malformed(O, "expects a 1-d tensor");
    TypePtr Ty = resultType(O);
    Type T = scalarType(*Ty, O);
    const Expr *Bin = C.sextOrTrunc(idx(0), Src.E->type());
    const Expr *Count = C.constant(T, 0);
    const Expr *Defined = C.trueExpr();
    for (int64_t K = 0; K < Src.Shape[0]; ++K) {
      Val X = substVal(Src, {{0, C.intConst(Type::i(32), K)}});
      const Expr *Hit = C.eq(X.E, Bin);
      if (O.Operands.size() == 2) {
        Val Mask = substVal(adapt(get(O, 1), Src.Shape, O),
                            {{0, C.intConst(Type::i(32), K)}});
        Hit = C.andOf(Hit, Mask.E);
        Defined = C.andOf(Defined, Mask.Defined);
      }
      Count = C.add(Count, C.cast(Op::ZExt, Hit, T));
      Defined = C.andOf(Defined, X.Defined);
    }
    define(O, tensorOf(Ty, Count, Defined));
    return true;
  }

  if (N == "tt.gather") {
    expectOperands(O, 2, 2);
    Val Src = get(O, 0), Index = get(O, 1);
    std::optional<int64_t> Axis = axisOf(O);
    if (!Axis || *Axis < 0 || size_t(*Axis) >= Src.Shape.size() ||
        Index.rank() != Src.rank())
      malformed(O, "axis or ranks do not match");
    unsigned A = unsigned(*Axis);
    const Expr *I32Index = C.sextOrTrunc(Index.E, Type::i(32));
    Val Out = substVal(Src, {{A, I32Index}});
    Out.Ty = resultType(O);
    Out.Shape = Out.Ty->shape();
    Out.Defined = C.andOf(Out.Defined, Index.Defined);
    addUndefined(C.icmp(ICmpPredicate::Uge, Index.E,
                        C.constant(Index.E->type(), uint64_t(Src.Shape[A]))),
                 Out.Shape, "tt.gather index out of range", O);
    define(O, Out);
    return true;
  }

  if (N == "tt.assert") {
    expectOperands(O, 1, 1);
    Val Cond = get(O, 0);
    std::string Message = O.Strings.empty() ? "" : O.Strings.front();
    addUndefined(C.orOf(C.notOf(Cond.Defined), C.notOf(Cond.E)), Cond.Shape,
                 "device assertion failed: " + Message, O);
    return true;
  }

  return false;
}

} // namespace stagecheck::ttir

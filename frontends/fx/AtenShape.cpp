//===- AtenShape.cpp - Views and layout ops -------------------------------===//
//
// Views copy nothing: each is a map from the result's index to the index of
// its input. A reshape maps groups of dimensions whose sizes multiply to the
// same count onto each other, so the common cases (merging or splitting
// adjacent dims, adding or dropping size-1 dims) stay free of division.
//
//===----------------------------------------------------------------------===//
#include "frontends/fx/AtenTable.h"

#include <cassert>

using namespace stagecheck::ir;

namespace stagecheck::fx {

namespace {

const Expr *udivBy(Context &C, const Expr *X, int64_t K) {
  return K == 1 ? X : C.binary(Op::UDiv, X, i64(C, K));
}

const Expr *uremBy(Context &C, const Expr *X, int64_t K) {
  return K == 1 ? i64(C, 0) : C.binary(Op::URem, X, i64(C, K));
}

/// The input index of a reshape from In to Out for output index I.
Index reshapeIndex(Context &C, const Index &I, const Shape &Out,
                   const Shape &In) {
  Index R(In.size(), nullptr);
  size_t IDim = 0, ODim = 0;
  while (IDim < In.size() || ODim < Out.size()) {
    if (IDim < In.size() && In[IDim] == 1) {
      R[IDim++] = i64(C, 0);
      continue;
    }
    if (ODim < Out.size() && Out[ODim] == 1) {
      ++ODim;
      continue;
    }
    assert(IDim < In.size() && ODim < Out.size() && "sizes do not match");
    size_t I0 = IDim, O0 = ODim;
    int64_t PIn = In[IDim++], POut = Out[ODim++];
    while (PIn != POut) {
      if (PIn < POut)
        PIn *= In[IDim++];
      else
        POut *= Out[ODim++];
    }
    // Absorb trailing size-1 dims into neither group: they are handled above.
    if (IDim - I0 == 1 && ODim - O0 == 1) {
      R[I0] = I[O0];
      continue;
    }
    const Expr *Linear = i64(C, 0);
    for (size_t D = O0; D < ODim; ++D)
      Linear = C.add(C.mul(Linear, i64(C, Out[D])), I[D]);
    int64_t Inner = PIn;
    for (size_t D = I0; D < IDim; ++D) {
      Inner /= In[D];
      const Expr *Q = udivBy(C, Linear, Inner);
      R[D] = In[D] == 1 ? i64(C, 0) : D == I0 ? Q : uremBy(C, Q, In[D]);
    }
  }
  return R;
}

/// The sizes of a view/reshape, with one -1 inferred.
Shape inferShape(const OpCall &Op, std::vector<int64_t> Sizes, int64_t Numel) {
  int64_t Known = 1;
  int Infer = -1;
  for (size_t D = 0; D < Sizes.size(); ++D) {
    if (Sizes[D] == -1) {
      if (Infer >= 0)
        Op.invalid("only one dimension can be inferred");
      Infer = int(D);
    } else if (Sizes[D] < 0) {
      Op.invalid("negative size " + std::to_string(Sizes[D]));
    } else {
      Known *= Sizes[D];
    }
  }
  if (Infer >= 0) {
    if (Known == 0 || Numel % Known != 0)
      Op.invalid("cannot infer the size of dimension " + std::to_string(Infer));
    Sizes[size_t(Infer)] = Numel / Known;
  }
  if (numElements(Sizes) != Numel)
    Op.invalid("shape of " + std::to_string(numElements(Sizes)) +
               " elements for a tensor of " + std::to_string(Numel));
  return Sizes;
}

Tensor reshaped(const OpCall &Op, const Tensor &X, const Shape &Out) {
  if (Out == X.shape())
    return X;
  Context *C = &Op.C;
  Shape In = X.shape();
  if (X.numel() == 0)
    return Tensor(X.dtype(), Out, [X, C](const Index &) {
      return constantOf(*C, X.dtype(), 0);
    });
  return Tensor(X.dtype(), Out, [C, X, Out, In](const Index &I) {
    return X.at(reshapeIndex(*C, I, Out, In));
  });
}

/// view, _unsafe_view, reshape, view_copy: the same elements in a new shape.
OpResult atenView(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  if (Op.has(1, "dtype") && Op.arg(1, "dtype")->K == Argument::Kind::DType)
    Op.unsupported("view as another dtype");
  return reshaped(Op, X, inferShape(Op, Op.integers(1, "size"), X.numel()));
}

Tensor permuted(const OpCall &Op, const Tensor &X,
                const std::vector<size_t> &Order) {
  Shape Out;
  for (size_t D : Order)
    Out.push_back(X.size(D));
  return Tensor(X.dtype(), Out, [X, Order](const Index &I) {
    Index J(I.size());
    for (size_t K = 0; K < Order.size(); ++K)
      J[Order[K]] = I[K];
    return X.at(J);
  });
}

OpResult atenPermute(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  std::vector<size_t> Order = wrapDims(Op, Op.integers(1, "dims"), X.rank());
  if (Order.size() != X.rank())
    Op.invalid("permute needs one entry per dimension");
  return permuted(Op, X, Order);
}

/// transpose.int(self, dim0, dim1), t(self).
OpResult atenTranspose(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  if (Op.op() == "aten.t" && X.rank() < 2)
    return X;
  size_t A =
      Op.op() == "aten.t" ? 0 : wrapDim(Op, Op.integer(1, "dim0"), X.rank());
  size_t B =
      Op.op() == "aten.t" ? 1 : wrapDim(Op, Op.integer(2, "dim1"), X.rank());
  if (X.rank() == 0)
    return X;
  std::vector<size_t> Order;
  for (size_t D = 0; D < X.rank(); ++D)
    Order.push_back(D);
  std::swap(Order[A], Order[B]);
  return permuted(Op, X, Order);
}

/// expand(self, size): -1 keeps a size; new dims lead.
OpResult atenExpand(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  std::vector<int64_t> Sizes = Op.integers(1, "size");
  if (Sizes.size() < X.rank())
    Op.invalid("expand to fewer dimensions");
  size_t Lead = Sizes.size() - X.rank();
  for (size_t D = 0; D < Sizes.size(); ++D) {
    if (Sizes[D] != -1)
      continue;
    if (D < Lead)
      Op.invalid("-1 for a new leading dimension");
    Sizes[D] = X.size(D - Lead);
  }
  return broadcastTo(Op, X, Sizes);
}

/// squeeze.default (every size-1 dim), squeeze.dim, squeeze.dims.
OpResult atenSqueeze(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  std::vector<bool> Drop(X.rank(), false);
  std::optional<std::vector<int64_t>> Dims = Op.optionalIntegers(1, "dim");
  if (!Dims)
    for (size_t D = 0; D < X.rank(); ++D)
      Drop[D] = X.size(D) == 1;
  else if (X.rank() > 0)
    for (size_t D : wrapDims(Op, *Dims, X.rank()))
      Drop[D] = X.size(D) == 1;
  Shape Out;
  for (size_t D = 0; D < X.rank(); ++D)
    if (!Drop[D])
      Out.push_back(X.size(D));
  return reshaped(Op, X, Out);
}

OpResult atenUnsqueeze(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  size_t Dim = wrapDim(Op, Op.integer(1, "dim"), X.rank() + 1);
  Shape Out = X.shape();
  Out.insert(Out.begin() + Dim, 1);
  return reshaped(Op, X, Out);
}

/// Python slice bounds: negative from the end, clamped to [0, size].
int64_t clampBound(int64_t V, int64_t Size) {
  if (V < 0)
    V += Size;
  return std::min(std::max<int64_t>(V, 0), Size);
}

Tensor sliced(const OpCall &Op, const Tensor &X, size_t Dim, int64_t Start,
              int64_t Length, int64_t Step) {
  Shape Out = X.shape();
  Out[Dim] = Length;
  Context *C = &Op.C;
  return Tensor(X.dtype(), Out, [C, X, Dim, Start, Step](const Index &I) {
    Index J = I;
    J[Dim] = C->add(i64(*C, Start), C->mul(I[Dim], i64(*C, Step)));
    return X.at(J);
  });
}

/// slice.Tensor(self, dim=0, start=None, end=None, step=1).
OpResult atenSlice(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  size_t Dim = wrapDim(Op, Op.integer(1, "dim", 0), X.rank());
  int64_t Size = X.size(Dim);
  const Argument *S = Op.arg(2, "start"), *E = Op.arg(3, "end");
  int64_t Start =
      S && S->K != Argument::Kind::None ? clampBound(S->I, Size) : 0;
  int64_t End =
      E && E->K != Argument::Kind::None ? clampBound(E->I, Size) : Size;
  int64_t Step = Op.integer(4, "step", 1);
  if (Step <= 0)
    Op.invalid("slice step must be positive");
  int64_t Length = End > Start ? (End - Start + Step - 1) / Step : 0;
  return sliced(Op, X, Dim, Start, Length, Step);
}

/// narrow(self, dim, start, length).
OpResult atenNarrow(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  size_t Dim = wrapDim(Op, Op.integer(1, "dim"), X.rank());
  int64_t Start = Op.integer(2, "start"), Length = Op.integer(3, "length");
  if (Start < 0)
    Start += X.size(Dim);
  if (Start < 0 || Length < 0 || Start + Length > X.size(Dim))
    Op.invalid("narrow out of range");
  return sliced(Op, X, Dim, Start, Length, 1);
}

Tensor selected(const OpCall &Op, const Tensor &X, size_t Dim, int64_t At) {
  Shape Out = X.shape();
  Out.erase(Out.begin() + Dim);
  Context *C = &Op.C;
  return Tensor(X.dtype(), Out, [C, X, Dim, At](const Index &I) {
    Index J = I;
    J.insert(J.begin() + Dim, i64(*C, At));
    return X.at(J);
  });
}

/// select.int(self, dim, index).
OpResult atenSelect(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  size_t Dim = wrapDim(Op, Op.integer(1, "dim"), X.rank());
  int64_t At = Op.integer(2, "index");
  if (At < -X.size(Dim) || At >= X.size(Dim))
    Op.invalid("select index out of range");
  return selected(Op, X, Dim, At < 0 ? At + X.size(Dim) : At);
}

/// flip(self, dims) and prims.rev(a, dims): each named dimension read from
/// its end (a dimension named twice is an error, as in torch).
OpResult atenFlip(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  std::vector<bool> Reversed(X.rank(), false);
  for (int64_t D : Op.integers(1, "dims")) {
    size_t Dim = wrapDim(Op, D, X.rank());
    if (Reversed[Dim])
      Op.invalid("dimension " + std::to_string(D) + " named twice");
    Reversed[Dim] = true;
  }
  Context *C = &Op.C;
  return Tensor(X.dtype(), X.shape(), [C, X, Reversed](const Index &I) {
    Index J = I;
    for (size_t D = 0; D < J.size(); ++D)
      if (Reversed[D])
        J[D] = C->sub(i64(*C, X.size(D) - 1), I[D]);
    return X.at(J);
  });
}

/// Concatenation along Dim of tensors of one rank; each piece converted to
/// the promoted dtype.
Tensor concatenated(const OpCall &Op, std::vector<Tensor> Pieces, size_t Dim) {
  std::vector<PromotionOperand> PO;
  for (const Tensor &T : Pieces)
    PO.push_back({PromotionOperand::Rank::Dimensioned, T.dtype()});
  DType D = resultType(PO.data(), PO.data() + PO.size());
  Shape Out = Pieces[0].shape();
  std::vector<int64_t> Offsets;
  int64_t Total = 0;
  for (const Tensor &T : Pieces) {
    for (size_t K = 0; K < Out.size(); ++K)
      if (K != Dim && T.size(K) != Out[K])
        Op.invalid("sizes of the tensors to concatenate differ");
    Offsets.push_back(Total);
    Total += T.size(Dim);
  }
  Out[Dim] = Total;
  Context *C = &Op.C;
  OpCall Copy = Op;
  return Tensor(D, Out, [C, Copy, Pieces, Offsets, Dim, D](const Index &I) {
    auto Piece = [&](size_t P) {
      Index J = I;
      J[Dim] = C->sub(I[Dim], i64(*C, Offsets[P]));
      return convert(Copy, Pieces[P].at(J), Pieces[P].dtype(), D);
    };
    if (I[Dim]->isConst()) {
      int64_t At = int64_t(I[Dim]->constBits());
      size_t P = Pieces.size() - 1;
      while (P > 0 && At < Offsets[P])
        --P;
      return Piece(P);
    }
    const Expr *V = Piece(Pieces.size() - 1);
    for (size_t P = Pieces.size() - 1; P-- > 0;)
      V = C->select(
          C->icmp(ICmpPredicate::Slt, I[Dim], i64(*C, Offsets[P + 1])),
          Piece(P), V);
    return V;
  });
}

/// cat(tensors, dim=0); 1-D empty tensors are skipped, as torch does.
OpResult atenCat(const OpCall &Op) {
  std::vector<Tensor> All = Op.tensors(0, "tensors"), Pieces;
  for (const Tensor &T : All)
    if (!(T.rank() == 1 && T.size(0) == 0))
      Pieces.push_back(T);
  if (Pieces.empty())
    return All.empty() ? (Op.invalid("cat of no tensors"), Tensor()) : All[0];
  size_t Dim = wrapDim(Op, Op.integer(1, "dim", 0), Pieces[0].rank());
  for (const Tensor &T : Pieces)
    if (T.rank() != Pieces[0].rank())
      Op.invalid("tensors of different ranks");
  return concatenated(Op, Pieces, Dim);
}

/// stack(tensors, dim=0): each unsqueezed at dim, then concatenated.
OpResult atenStack(const OpCall &Op) {
  std::vector<Tensor> All = Op.tensors(0, "tensors");
  if (All.empty())
    Op.invalid("stack of no tensors");
  size_t Dim = wrapDim(Op, Op.integer(1, "dim", 0), All[0].rank() + 1);
  std::vector<Tensor> Pieces;
  for (const Tensor &T : All) {
    if (T.shape() != All[0].shape())
      Op.invalid("stack of tensors of different shapes");
    Shape S = T.shape();
    S.insert(S.begin() + Dim, 1);
    Pieces.push_back(reshaped(Op, T, S));
  }
  return concatenated(Op, Pieces, Dim);
}

/// split.Tensor(self, split_size, dim=0), split_with_sizes(self, sizes,
/// dim=0), chunk(self, chunks, dim=0), unbind.int(self, dim=0).
OpResult atenSplit(const OpCall &Op) {
  std::string Name = Op.op();
  Tensor X = Op.tensor(0, "self");
  size_t Dim = wrapDim(Op, Op.integer(Name == "aten.unbind" ? 1 : 2, "dim", 0),
                       X.rank());
  int64_t Size = X.size(Dim);
  if (Name == "aten.unbind") {
    std::vector<Tensor> Out;
    for (int64_t I = 0; I < Size; ++I)
      Out.push_back(selected(Op, X, Dim, I));
    return OpResult(Out);
  }
  std::vector<int64_t> Sizes;
  if (Name == "aten.split_with_sizes") {
    Sizes = Op.integers(1, "split_sizes");
  } else {
    int64_t Each =
        Op.integer(1, Name == "aten.chunk" ? "chunks" : "split_size");
    if (Each <= 0)
      Op.invalid("split size must be positive");
    if (Name == "aten.chunk")
      Each = (Size + Each - 1) / Each;
    for (int64_t At = 0; At < Size || (Size == 0 && Sizes.empty()); At += Each)
      Sizes.push_back(std::min(Each, Size - At));
  }
  std::vector<Tensor> Out;
  int64_t At = 0;
  for (int64_t S : Sizes) {
    Out.push_back(sliced(Op, X, Dim, At, S, 1));
    At += S;
  }
  if (At != Size)
    Op.invalid("split sizes do not add up to the dimension");
  return OpResult(Out);
}

/// constant_pad_nd(self, pad, value=0): pad pairs start at the last dim;
/// negative padding crops.
OpResult atenConstantPad(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  std::vector<int64_t> Pad = Op.integers(1, "pad");
  std::optional<Scalar> Value = Op.optionalScalar(2, "value");
  if (Pad.size() % 2 || Pad.size() / 2 > X.rank())
    Op.invalid("padding of the wrong length");
  Shape Out = X.shape();
  std::vector<int64_t> Before(X.rank(), 0);
  for (size_t P = 0; P < Pad.size() / 2; ++P) {
    size_t Dim = X.rank() - 1 - P;
    Before[Dim] = Pad[2 * P];
    Out[Dim] += Pad[2 * P] + Pad[2 * P + 1];
    if (Out[Dim] < 0)
      Op.invalid("padding makes a negative size");
  }
  Scalar Fill = Value ? *Value : Scalar{i64(Op.C, 0), Category::Integer};
  Context *C = &Op.C;
  OpCall Copy = Op;
  Shape In = X.shape();
  return Tensor(X.dtype(), Out, [C, Copy, X, Before, In, Fill](const Index &I) {
    Index J(I.size());
    const Expr *Inside = C->trueExpr();
    for (size_t D = 0; D < I.size(); ++D) {
      J[D] = C->sub(I[D], i64(*C, Before[D]));
      Inside = C->andOf(
          Inside, C->andOf(C->icmp(ICmpPredicate::Sge, J[D], i64(*C, 0)),
                           C->icmp(ICmpPredicate::Slt, J[D], i64(*C, In[D]))));
    }
    const Expr *F = scalarAs(Copy, Fill, X.dtype());
    if (Inside->isFalse())
      return F;
    if (Inside->isTrue())
      return X.at(J);
    // Outside, J is out of range: clamp it so the read stays a real element.
    Index Safe(J.size());
    for (size_t D = 0; D < J.size(); ++D)
      Safe[D] = C->binary(Op::SMin, C->binary(Op::SMax, J[D], i64(*C, 0)),
                          i64(*C, std::max<int64_t>(In[D] - 1, 0)));
    return C->select(Inside, X.at(Safe), F);
  });
}

/// as_strided(self, size, stride, storage_offset=None) of a graph input: the
/// elements of its buffer at offset + sum(index * stride).
OpResult atenAsStrided(const OpCall &Op) {
  Tensor X = Op.tensor(0, "self");
  const Tensor::StorageFn *Storage = X.storage();
  if (!Storage)
    Op.unsupported("as_strided of a computed value (only graph inputs have a "
                   "known storage)");
  Shape Sizes = Op.integers(1, "size");
  std::vector<int64_t> Strides = Op.integers(2, "stride");
  if (Sizes.size() != Strides.size())
    Op.invalid("sizes and strides of different lengths");
  int64_t Offset = Op.integer(3, "storage_offset", X.storageOffset());
  Context *C = &Op.C;
  Tensor::StorageFn Read = *Storage;
  return Tensor(X.dtype(), Sizes, [C, Read, Strides, Offset](const Index &I) {
    const Expr *Linear = i64(*C, Offset);
    for (size_t D = 0; D < I.size(); ++D)
      Linear = C->add(Linear, C->mul(I[D], i64(*C, Strides[D])));
    return Read(Linear);
  });
}

const OpDefinition Table[] = {
    {"aten.view", atenView},
    {"aten._unsafe_view", atenView},
    {"aten.reshape", atenView},
    {"aten.view_copy", atenView},
    {"aten.permute", atenPermute},
    {"aten.transpose", atenTranspose},
    {"aten.t", atenTranspose},
    {"aten.expand", atenExpand},
    {"aten.squeeze", atenSqueeze},
    {"aten.unsqueeze", atenUnsqueeze},
    {"aten.slice", atenSlice},
    {"aten.narrow", atenNarrow},
    {"aten.select", atenSelect},
    {"aten.flip", atenFlip},
    {"prims.rev", atenFlip},
    {"aten.cat", atenCat},
    {"aten.stack", atenStack},
    {"aten.split", atenSplit},
    {"aten.split_with_sizes", atenSplit},
    {"aten.chunk", atenSplit},
    {"aten.unbind", atenSplit},
    {"aten.constant_pad_nd", atenConstantPad},
    {"aten.as_strided", atenAsStrided},
};

} // namespace

std::span<const OpDefinition> shapeOps() { return Table; }

} // namespace stagecheck::fx

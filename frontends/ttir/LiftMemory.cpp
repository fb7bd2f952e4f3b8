//===- LiftMemory.cpp - Pointers, loads, stores, atomics, shared memory ---===//
//
// Global memory: a pointer is a buffer and an element index; a load reads
// the buffer's initial content (a load from a buffer the kernel already
// wrote is not modelled); a masked-off lane yields `other`, or, without it,
// an unknown value named after the address (`undef.argK[i]`), so that two
// stages that leave the same lanes undetermined agree on them.
//
// Shared memory: each local_alloc is an array whose content is an
// expression over its index; writes (local_store, async copies) update it
// under their guard, reads substitute the view's index map. An async copy
// is pending until an async_wait covers its commit group; a read that may
// touch a pending copy's destination is undefined behaviour (a race the
// hardware does not order).
//
//===----------------------------------------------------------------------===//
#include "frontends/ttir/LifterImpl.h"

using namespace stagecheck::ir;

namespace stagecheck::ttir {

namespace {

TypePtr tensorType(const std::vector<int64_t> &Shape, TypePtr Elem) {
  if (Shape.empty())
    return Elem;
  auto T = std::make_shared<MType>();
  T->K = MType::Kind::Tensor;
  T->Shape = Shape;
  T->Elem = Elem;
  T->Text = "tensor<";
  for (int64_t D : Shape)
    T->Text += std::to_string(D) + "x";
  T->Text += Elem->Text + ">";
  return T;
}

/// The type a load of pointer type P produces.
TypePtr pointeeType(const TypePtr &P) {
  const MType &S = P->scalar();
  if (!S.isPtr() || !S.Elem)
    return nullptr;
  if (!P->isTensor())
    return S.Elem;
  auto T = std::make_shared<MType>(*P);
  T->Elem = S.Elem;
  T->Text = "tensor<...x" + S.Elem->Text + ">";
  return T;
}

} // namespace

const Expr *Lifter::viewOfStored(const Expr *Stored, Type View) {
  if (Stored->type() == View)
    return Stored;
  if (Stored->type().isBool()) // a bool read as its byte: 0 or 1
    return C.zextOrTrunc(Stored, View);
  return C.cast(Op::Bitcast, Stored, View);
}

const Expr *Lifter::storedOfView(const Expr *Value, Type Stored) {
  if (Value->type() == Stored)
    return Value;
  if (Stored.isBool()) // true unless 0; a byte above 1 is not defined
    return C.icmp(ICmpPredicate::Ne, Value, C.constant(Value->type(), 0));
  return C.cast(Op::Bitcast, Value, Stored);
}

const Expr *Lifter::isBoolByte(const Expr *Byte) {
  return C.icmp(ICmpPredicate::Ule, Byte, C.constant(Byte->type(), 1));
}

const Expr *Lifter::loadElement(const Val &Ptr, const Expr *Mask,
                                const Val *Other, const Operation &O) {
  if (!Ptr.IsPtr)
    malformed(O, "loads through a value that is not a pointer");
  if (WrittenBuffers.count(Ptr.Buffer))
    unsupported(O, "unsupported op " + O.Name + ": a load from " + Ptr.Buffer +
                       " after the kernel stored to it");
  const Expr *Value = viewOfStored(
      C.read(Ptr.Buffer, Ptr.BufferElem, Ptr.E), Ptr.ViewElem);
  if (!Mask)
    return Value;
  const Expr *Alternative =
      Other ? Other->E : C.read("undef." + Ptr.Buffer, Ptr.ViewElem, Ptr.E);
  return selectOf(Mask, Value, Alternative);
}

Val Lifter::readView(const Val &View, const Operation &O) {
  if (View.K != Val::Kind::MemDesc || View.Alloc < 0 ||
      size_t(View.Alloc) >= Allocs.size())
    malformed(O, "expects a shared-memory descriptor");
  checkPendingCopies(View, O);
  const SharedAlloc &A = Allocs[size_t(View.Alloc)];
  std::vector<std::pair<unsigned, const Expr *>> Map;
  for (size_t D = 0; D < View.IndexMap.size(); ++D)
    Map.push_back({unsigned(D), View.IndexMap[D]});
  Val Out;
  Out.Ty = tensorType(View.Shape, View.Ty->Elem);
  Out.Shape = View.Shape;
  Out.E = subst(A.Content, Map);
  Out.Defined = subst(A.Defined, Map);
  return Out;
}

void Lifter::writeView(const Val &View, const Val &Value, const Expr *Mask,
                       const Operation &O) {
  if (View.K != Val::Kind::MemDesc || View.Alloc < 0)
    malformed(O, "expects a shared-memory descriptor");
  SharedAlloc &A = Allocs[size_t(View.Alloc)];
  // Invert the index map: each allocation dimension is either fixed by the
  // view (a slot) or a view dimension plus an offset.
  std::vector<std::pair<unsigned, const Expr *>> Inverse;
  const Expr *Covered = C.trueExpr();
  std::vector<bool> Mapped(View.Shape.size(), false);
  for (size_t D = 0; D < View.IndexMap.size(); ++D) {
    const Expr *I = View.IndexMap[D];
    const Expr *Here = idx(unsigned(D));
    if (!deps(I)) {
      Covered = C.andOf(Covered, C.eq(Here, C.sextOrTrunc(I, Type::i(32))));
      continue;
    }
    const Expr *Offset = C.intConst(Type::i(32), 0);
    const Expr *Sym = I;
    if (I->op() == Op::Add && !deps(I->operand(0))) {
      Offset = I->operand(0);
      Sym = I->operand(1);
    } else if (I->op() == Op::Add && !deps(I->operand(1))) {
      Offset = I->operand(1);
      Sym = I->operand(0);
    }
    uint32_t Mask1 = deps(Sym);
    if (Sym->op() != Op::Symbol || (Mask1 & (Mask1 - 1)))
      unsupported(O, "unsupported shared-memory view in " + O.Name);
    unsigned J = unsigned(__builtin_ctz(Mask1));
    if (J >= View.Shape.size() || Mapped[J])
      unsupported(O, "unsupported shared-memory view in " + O.Name);
    Mapped[J] = true;
    const Expr *Local = C.sub(Here, Offset);
    Inverse.push_back({J, Local});
    // A view dimension that spans the whole allocation dimension covers
    // every index there is; only a narrower one needs the range test.
    if (!(Offset->isConst() && Offset->constBits() == 0 &&
          View.Shape[J] == A.Shape.at(D)))
      Covered = C.andOf(Covered,
                        C.icmp(ICmpPredicate::Ult, Local,
                               C.intConst(Type::i(32), View.Shape[J])));
  }
  for (bool M2 : Mapped)
    if (!M2)
      unsupported(O, "unsupported shared-memory view in " + O.Name);
  Val V = adapt(Value, View.Shape, O);
  const Expr *NewValue = subst(V.E, Inverse);
  const Expr *NewDefined = subst(V.Defined, Inverse);
  const Expr *Hit = C.andOf(Guard, Covered);
  if (Mask)
    Hit = C.andOf(Hit, subst(Mask, Inverse));
  if (NewValue->type() != A.Elem)
    malformed(O, "stores a " + NewValue->type().str() + " into shared memory of " +
                     A.Elem.str());
  A.Content = selectOf(Hit, NewValue, A.Content);
  A.Defined = selectOf(Hit, NewDefined, A.Defined);
}

void Lifter::checkPendingCopies(const Val &View, const Operation &O) {
  auto Check = [&](const PendingCopy &P) {
    if (P.Alloc != View.Alloc)
      return;
    const Expr *Overlap = C.andOf(Guard, P.Guard);
    for (size_t D = 0; D < View.IndexMap.size() && D < P.Fixed.size(); ++D)
      if (P.Fixed[D] && !deps(View.IndexMap[D]))
        Overlap = C.andOf(Overlap, C.eq(C.sextOrTrunc(P.Fixed[D], Type::i(32)),
                                        C.sextOrTrunc(View.IndexMap[D], Type::i(32))));
    std::string Where = P.From.Loc.known() ? " at " + P.From.Loc.str() : "";
    addUndefined(Overlap, {},
                 "reads shared memory an async copy" + Where +
                     " may not have written yet",
                 O);
  };
  for (const auto &Group : Groups)
    for (const PendingCopy &P : Group)
      Check(P);
  for (const PendingCopy &P : Uncommitted)
    Check(P);
}

bool Lifter::liftMemoryOp(const Operation &O) {
  const std::string &N = O.Name;
  auto NoSharedInSummary = [&] {
    if (!LoopBound.empty())
      throw SummaryAbort{"the loop uses shared memory or atomics"};
  };

  if (N == "tt.addptr") {
    expectOperands(O, 2, 2);
    if (O.Types.empty())
      malformed(O, "has no type");
    TypePtr Ty = O.Types.front();
    std::vector<int64_t> Shape = Ty->shape();
    Val P = adapt(get(O, 0), Shape, O);
    Val Off = adapt(get(O, 1), Shape, O);
    if (!P.IsPtr || Off.IsPtr || !Off.E->type().isInt())
      malformed(O, "adds an integer offset to a pointer");
    Val Out = P;
    Out.Ty = Ty;
    Out.Shape = Shape;
    Out.E = linear(Op::Add, P.E, C.sextOrTrunc(Off.E, Type::i(64)));
    Out.Defined = C.andOf(P.Defined, Off.Defined);
    define(O, Out);
    return true;
  }

  if (N == "tt.load") {
    expectOperands(O, 1, 3);
    if (O.Types.empty())
      malformed(O, "has no type");
    TypePtr PtrTy = O.Types.front();
    TypePtr Ty = pointeeType(PtrTy);
    if (!Ty)
      unsupported(O, "unsupported op tt.load through " + PtrTy->Text);
    std::vector<int64_t> Shape = PtrTy->shape();
    Val P = adapt(get(O, 0), Shape, O);
    const Expr *Defined = P.Defined;
    const Expr *Mask = nullptr;
    std::optional<Val> Other;
    if (O.Operands.size() >= 2) {
      Val M2 = adapt(get(O, 1), Shape, O);
      Mask = M2.E;
      Defined = C.andOf(Defined, M2.Defined);
    }
    if (O.Operands.size() == 3) {
      Other = adapt(get(O, 2), Shape, O);
      Defined = C.andOf(Defined, C.orOf(Mask, Other->Defined));
    }
    checkReach(P, Mask ? Mask : C.trueExpr(), Shape, "load", O);
    const Expr *E = loadElement(P, Mask, Other ? &*Other : nullptr, O);
    define(O, tensorOf(Ty, E, Defined));
    return true;
  }

  if (N == "tt.store") {
    expectOperands(O, 2, 3);
    if (O.Types.empty())
      malformed(O, "has no type");
    std::vector<int64_t> Shape = O.Types.front()->shape();
    Val P = adapt(get(O, 0), Shape, O);
    Val V = adapt(get(O, 1), Shape, O);
    if (!P.IsPtr)
      malformed(O, "stores through a value that is not a pointer");
    const Expr *When = Guard;
    const Expr *AddressDefined = P.Defined;
    if (O.Operands.size() == 3) {
      Val M2 = adapt(get(O, 2), Shape, O);
      When = C.andOf(When, M2.E);
      AddressDefined = C.andOf(AddressDefined, M2.Defined);
    }
    const Expr *Value = V.E;
    if (Value->type() != P.ViewElem)
      malformed(O, "stores a " + Value->type().str() + " through a pointer to " +
                       P.ViewElem.str());
    const Expr *ValueDefined = V.Defined;
    if (P.BufferElem.isBool() && !Value->type().isBool()) // a bool's byte
      ValueDefined = C.andOf(ValueDefined, isBoolByte(Value));
    Value = storedOfView(Value, P.BufferElem);
    addUndefined(C.notOf(AddressDefined), Shape,
                 "store through a poison address or mask", O);
    checkReach(P, When, Shape, "store", O);
    Write W{When, P.Buffer, P.E, Value, ValueDefined, origin(O), LoopBound};
    std::vector<BoundVariable> Elements = boundOf(Shape);
    W.Bound.insert(W.Bound.end(), Elements.begin(), Elements.end());
    for (const Expr *E : {W.Guard, W.Index, W.Value, W.Defined})
      recordProvenance(O, E);
    R.Trace.push_back({{O.Name, O.Pos, M.resolve(O.Location)},
                       {W.Guard, W.Index, W.Value, W.Defined},
                       CurrentInputs});
    R.Effects.Writes.push_back(std::move(W));
    WrittenBuffers.insert(P.Buffer);
    return true;
  }

  if (N == "tt.atomic_rmw" || N == "tt.atomic_cas") {
    NoSharedInSummary();
    bool CAS = N == "tt.atomic_cas";
    AtomicOp Kind = AtomicOp::CompareExchange;
    if (!CAS) {
      std::string Word;
      if (!O.Words.empty())
        Word = O.Words.front();
      static const std::pair<const char *, AtomicOp> Kinds[] = {
          {"add", AtomicOp::Add},   {"fadd", AtomicOp::FAdd},
          {"max", AtomicOp::Max},   {"min", AtomicOp::Min},
          {"umax", AtomicOp::UMax}, {"umin", AtomicOp::UMin},
          {"and", AtomicOp::And},   {"or", AtomicOp::Or},
          {"xor", AtomicOp::Xor},   {"exch", AtomicOp::Exchange}};
      bool Known = false;
      for (const auto &[Name, K] : Kinds)
        if (Word == Name) {
          Kind = K;
          Known = true;
        }
      if (!Known)
        unsupported(O, "unsupported op tt.atomic_rmw " + Word);
    }
    expectOperands(O, CAS ? 3 : 2, 3);
    TypePtr Ty = resultType(O);
    std::vector<int64_t> Shape = Ty->shape();
    Val P = adapt(get(O, 0), Shape, O);
    if (!P.IsPtr || P.ViewElem != P.BufferElem)
      unsupported(O, "unsupported op " + N + " through a reinterpreted pointer");
    Val V = adapt(get(O, CAS ? 2 : 1), Shape, O);
    std::optional<Val> Compare, Mask;
    if (CAS)
      Compare = adapt(get(O, 1), Shape, O);
    else if (O.Operands.size() == 3)
      Mask = adapt(get(O, 2), Shape, O);
    if (V.E->type().isFloat() &&
        (Kind == AtomicOp::Max || Kind == AtomicOp::Min ||
         Kind == AtomicOp::UMax || Kind == AtomicOp::UMin))
      unsupported(O, "unsupported op tt.atomic_rmw max/min on floats");
    std::string Name = "atomic" + std::to_string(AtomicCount++) + ".old";
    Type T = V.E->type();
    int64_t Count = 1;
    for (int64_t D : Shape)
      Count *= D;
    if (Count > 4096)
      unsupported(O, "unsupported op " + N + " over more than 4096 elements");
    std::vector<BoundVariable> B = boundOf(Shape);
    forEachInstance(C, B, 4096, [&](const auto &Map) {
      auto At = [&](const Expr *E) { return substitute(C, E, Map); };
      Atomic A{At(Mask ? C.andOf(Guard, Mask->E) : Guard), P.Buffer, At(P.E),
               Kind, At(V.E), Compare ? At(Compare->E) : nullptr, origin(O)};
      recordProvenance(O, A.Guard);
      recordProvenance(O, A.Value);
      R.Effects.Atomics.push_back(A);
    });
    WrittenBuffers.insert(P.Buffer);
    const Expr *Old = Shape.empty() ? C.symbol(Name, T)
                                    : C.read(Name, T, linearIndex(Shape));
    define(O, tensorOf(Ty, Old));
    return true;
  }

  if (N == "ttg.local_alloc") {
    NoSharedInSummary();
    TypePtr Ty = resultType(O);
    if (Ty->K != MType::Kind::MemDesc || !Ty->Elem)
      malformed(O, "allocates a memory descriptor");
    SharedAlloc A;
    A.Shape = Ty->Shape;
    A.Elem = scalarType(*Ty->Elem, O);
    int Id = int(Allocs.size());
    if (O.Operands.size() == 1) {
      Val Init = adapt(get(O, 0), A.Shape, O);
      A.Content = Init.E;
      A.Defined = Init.Defined;
    } else {
      A.Content = C.read("smem" + std::to_string(Id) + ".uninit", A.Elem,
                         linearIndex(A.Shape));
      A.Defined = C.trueExpr();
    }
    Allocs.push_back(A);
    Val V;
    V.K = Val::Kind::MemDesc;
    V.Ty = Ty;
    V.Shape = A.Shape;
    V.Alloc = Id;
    for (size_t D = 0; D < A.Shape.size(); ++D)
      V.IndexMap.push_back(idx(unsigned(D)));
    V.Defined = C.trueExpr();
    define(O, V);
    return true;
  }

  if (N == "ttg.memdesc_index" || N == "ttg.memdesc_subview" ||
      N == "ttg.memdesc_subslice" || N == "ttg.memdesc_trans") {
    NoSharedInSummary();
    Val V = get(O, 0);
    if (V.K != Val::Kind::MemDesc)
      malformed(O, "expects a memory descriptor");
    TypePtr Ty = resultType(O);
    std::vector<std::pair<unsigned, const Expr *>> Map;
    std::vector<int64_t> Shape = Ty->shape();
    if (N == "ttg.memdesc_index") {
      expectOperands(O, 2, 2);
      const Val &I = get(O, 1);
      if (!I.Shape.empty() || V.Shape.size() != Shape.size() + 1)
        malformed(O, "indexes the leading dimension with a scalar");
      Map.push_back({0, C.sextOrTrunc(I.E, Type::i(32))});
      for (unsigned D = 1; D < V.Shape.size(); ++D)
        Map.push_back({D, idx(D - 1)});
      addUndefined(C.icmp(ICmpPredicate::Uge, C.sextOrTrunc(I.E, Type::i(32)),
                          C.intConst(Type::i(32), V.Shape[0])),
                   {}, "shared-memory index out of range", O);
    } else if (N == "ttg.memdesc_trans") {
      const Attr *Order = O.attr("order");
      std::optional<std::vector<int64_t>> Perm =
          Order ? Order->asInts() : std::nullopt;
      if (!Perm || Perm->size() != V.Shape.size())
        malformed(O, "needs an order over every dimension");
      for (size_t I = 0; I < Perm->size(); ++I)
        Map.push_back({unsigned((*Perm)[I]), idx(unsigned(I))});
    } else {
      // Offsets per dimension (SSA operands or static indices); a rank
      // drop removes leading dimensions.
      std::vector<const Expr *> Offsets;
      for (size_t I = 1; I < O.Operands.size(); ++I)
        Offsets.push_back(C.sextOrTrunc(get(O, I).E, Type::i(32)));
      if (const Attr *S = O.attr("static_indices"))
        for (const AttrPtr &E : S->Elements)
          Offsets.push_back(C.intConst(Type::i(32), E->asInt().value_or(0)));
      if (const Attr *S = O.attr("offsets"))
        if (auto Ints = S->asInts())
          for (int64_t X : *Ints)
            Offsets.push_back(C.intConst(Type::i(32), X));
      if (Offsets.size() != V.Shape.size())
        unsupported(O, "unsupported op " + N + " with these offsets");
      size_t Dropped = V.Shape.size() - Shape.size();
      for (size_t D = 0; D < V.Shape.size(); ++D)
        Map.push_back({unsigned(D), D < Dropped
                                        ? Offsets[D]
                                        : C.add(idx(unsigned(D - Dropped)),
                                                Offsets[D])});
    }
    Val Out = V;
    for (const Expr *&I : Out.IndexMap)
      I = subst(I, Map);
    Out.Ty = Ty;
    Out.Shape = Shape;
    define(O, Out);
    return true;
  }

  if (N == "ttg.local_load") {
    NoSharedInSummary();
    const Val &V = get(O, 0);
    Val Out = readView(V, O);
    Out.Ty = resultType(O);
    if (Out.Ty->shape() != Out.Shape)
      Out = adapt(Out, Out.Ty->shape(), O);
    Out.Shape = Out.Ty->shape();
    define(O, Out);
    return true;
  }

  if (N == "ttg.local_store") {
    NoSharedInSummary();
    expectOperands(O, 2, 2);
    writeView(get(O, 1), get(O, 0), nullptr, O);
    return true;
  }

  if (N == "ttg.async_copy_global_to_local") {
    NoSharedInSummary();
    const OperandRef *MaskRef = nullptr, *OtherRef = nullptr;
    std::vector<const OperandRef *> Plain;
    for (const OperandRef &R2 : O.Operands) {
      if (R2.Tag == "mask")
        MaskRef = &R2;
      else if (R2.Tag == "other")
        OtherRef = &R2;
      else
        Plain.push_back(&R2);
    }
    if (Plain.size() != 2)
      malformed(O, "copies from pointers into a memory descriptor");
    const Val &View = get(*Plain[1]);
    Val P = adapt(get(*Plain[0]), View.Shape, O);
    const Expr *Mask = nullptr;
    const Expr *Defined = P.Defined;
    std::optional<Val> Other;
    if (MaskRef) {
      Val M2 = adapt(get(*MaskRef), View.Shape, O);
      Mask = M2.E;
      Defined = C.andOf(Defined, M2.Defined);
    }
    if (OtherRef) {
      Other = adapt(get(*OtherRef), View.Shape, O);
      Defined = C.andOf(Defined, C.orOf(Mask ? Mask : C.trueExpr(),
                                        Other->Defined));
    }
    checkReach(P, Mask ? Mask : C.trueExpr(), View.Shape, "load", O);
    Val Loaded;
    Loaded.Shape = View.Shape;
    Loaded.E = loadElement(P, Mask, Other ? &*Other : nullptr, O);
    Loaded.Defined = Defined;
    writeView(View, Loaded, nullptr, O);
    PendingCopy Copy{View.Alloc, {}, Guard, origin(O)};
    for (const Expr *I : View.IndexMap)
      Copy.Fixed.push_back(deps(I) ? nullptr : I);
    Uncommitted.push_back(Copy);
    Val Token;
    Token.K = Val::Kind::Token;
    define(O, Token);
    return true;
  }

  if (N == "ttg.async_commit_group" || N == "ttg.async_wait") {
    NoSharedInSummary();
    if (N == "ttg.async_commit_group") {
      Groups.push_back(std::move(Uncommitted));
      Uncommitted.clear();
    } else {
      const Attr *Num = O.attr("num");
      if (!Num || !Num->asInt() || *Num->asInt() < 0)
        malformed(O, "needs num");
      size_t Keep = size_t(*Num->asInt());
      if (Groups.size() > Keep)
        Groups.erase(Groups.begin(), Groups.end() - long(Keep));
    }
    if (O.numResults() > 0) {
      Val Token;
      Token.K = Val::Kind::Token;
      define(O, Token);
    }
    return true;
  }

  return false;
}

} // namespace stagecheck::ttir

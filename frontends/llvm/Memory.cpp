// Address arithmetic (getelementptr), loads, stores and atomics, through the
// ThreadModel so that LLVM IR and PTX name memory identically.
#include "frontends/llvm/FunctionLifter.h"

#include "ir/Errors.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

namespace {

/// The widest group of lanes (at most 64 bits, whole lanes) one access of
/// the ThreadModel moves: its values are bit vectors of at most 64 bits.
unsigned lanesPerAccess(unsigned LaneBits) {
  return std::max(1u, 64 / LaneBits);
}

} // namespace

AddressSpace FunctionLifter::space(unsigned LlvmSpace) {
  switch (LlvmSpace) {
  case 0:
    return AddressSpace::Generic;
  case 1:
    return AddressSpace::Global;
  case 3:
    return AddressSpace::Shared;
  case 5:
    return AddressSpace::Local;
  default:
    unsupported("access to address space " + std::to_string(LlvmSpace));
  }
}

const Expr *FunctionLifter::address(const llvm::Value *Pointer) {
  Lane A = scalar(Pointer);
  M.undefined(C.notOf(A.Def), "access at a poison address",
              origin(spell(*Current)));
  return A.V;
}

Lanes FunctionLifter::liftGep(const llvm::GEPOperator &G) {
  const llvm::DataLayout &DL = *Facts.Layout;
  unsigned Space = G.getPointerAddressSpace();
  unsigned IndexBits = DL.getIndexSizeInBits(Space);
  if (IndexBits != DL.getPointerSizeInBits(Space))
    unsupported("getelementptr whose index is narrower than the pointer");
  Type IT = Type::i(IndexBits);
  llvm::GEPNoWrapFlags Flags = G.getNoWrapFlags();
  bool Nusw = Flags.hasNoUnsignedSignedWrap(), Nuw = Flags.hasNoUnsignedWrap();
  const Lanes &Base = operand(G.getPointerOperand());
  unsigned N = 1;
  if (auto *V = llvm::dyn_cast<llvm::FixedVectorType>(G.getType()))
    N = V->getNumElements();
  auto SignedAddOverflows = [&](const Expr *X, const Expr *Y, const Expr *R) {
    return C.icmp(ICmpPredicate::Slt, C.andOf(C.xorOf(X, R), C.xorOf(Y, R)),
                  C.constant(IT, 0));
  };
  Lanes Out;
  for (unsigned L = 0; L < N; ++L) {
    const Lane &B = Base[Base.size() == 1 ? 0 : L];
    const Expr *Offset = C.constant(IT, 0), *Def = B.Def;
    const Expr *Wraps = C.falseExpr();
    for (auto GTI = llvm::gep_type_begin(G), E = llvm::gep_type_end(G);
         GTI != E; ++GTI) {
      const Lanes &Ix = operand(GTI.getOperand());
      const Lane &I = Ix[Ix.size() == 1 ? 0 : L];
      Def = C.andOf(Def, I.Def);
      const Expr *Term;
      if (llvm::StructType *S = GTI.getStructTypeOrNull()) {
        if (!I.V->isConst())
          unsupported("getelementptr with a variable struct field");
        Term = C.constant(IT, DL.getStructLayout(S)
                                  ->getElementOffset(unsigned(I.V->constBits()))
                                  .getFixedValue());
      } else {
        uint64_t Stride = GTI.getSequentialElementStride(DL).getFixedValue();
        const Expr *Index = C.sextOrTrunc(I.V, IT);
        const Expr *K = C.constant(IT, Stride);
        Term = C.mul(Index, K);
        if (Stride != 1 && Nusw)
          Wraps = C.orOf(
              Wraps,
              C.icmp(ICmpPredicate::Ne, C.binary(Op::SMulHi, Index, K),
                     C.binary(Op::AShr, Term, C.constant(IT, IndexBits - 1))));
        if (Stride != 1 && Nuw)
          Wraps = C.orOf(Wraps, C.icmp(ICmpPredicate::Ne,
                                       C.binary(Op::UMulHi, Index, K),
                                       C.constant(IT, 0)));
      }
      const Expr *Sum = C.add(Offset, Term);
      if (Nusw)
        Wraps = C.orOf(Wraps, SignedAddOverflows(Offset, Term, Sum));
      if (Nuw)
        Wraps = C.orOf(Wraps, C.icmp(ICmpPredicate::Ult, Sum, Offset));
      Offset = Sum;
    }
    const Expr *R = C.add(B.V, Offset);
    // nusw: the signed offset moves the unsigned address without wrapping;
    // nuw: the unsigned offset does. (inbounds implies nusw; the bounds of
    // the object itself are not modelled.)
    if (Nusw)
      Wraps = C.orOf(
          Wraps, C.select(C.icmp(ICmpPredicate::Slt, Offset, C.constant(IT, 0)),
                          C.icmp(ICmpPredicate::Ugt, R, B.V),
                          C.icmp(ICmpPredicate::Ult, R, B.V)));
    if (Nuw)
      Wraps = C.orOf(Wraps, C.icmp(ICmpPredicate::Ult, R, B.V));
    Out.push_back({R, C.andOf(Def, C.notOf(Wraps))});
  }
  return Out;
}

Lanes FunctionLifter::liftLoad(const llvm::LoadInst &I) {
  if (I.isAtomic())
    unsupported("unsupported instruction load atomic");
  llvm::Type *T = I.getType();
  if (T->isAggregateType())
    unsupported("load of an aggregate");
  AddressSpace S = space(I.getPointerAddressSpace());
  const Expr *Address = address(I.getPointerOperand());
  std::vector<Type> Types = laneTypes(T);
  Origin From = origin(spell(I));
  // A byte is the least memory moves: an i1 is loaded as a byte. Its other
  // bits are zero where an i1 was stored (the zero extension the NVPTX
  // backend relies on, loading the byte whole); otherwise the value is not
  // defined (LangRef: a store of another type wrote it).
  if (Types.size() == 1 && Types[0].bits() % 8) {
    unsigned Bits = unsigned(Facts.Layout->getTypeStoreSizeInBits(T));
    const Expr *RawDefined;
    const Expr *Raw = M.load(S, Address, Bits, C.trueExpr(), From, &RawDefined);
    const Expr *Value = C.cast(Op::Trunc, Raw, Types[0]);
    return {{Value, C.andOf(RawDefined, C.eq(C.cast(Op::ZExt, Value,
                                                    Raw->type()),
                                             Raw))}};
  }
  unsigned LaneBits = Types[0].bits();
  if (LaneBits % 8)
    unsupported("load of a vector of " + std::to_string(LaneBits) +
                "-bit lanes");
  unsigned Group = lanesPerAccess(LaneBits);
  Lanes Out;
  for (unsigned First = 0; First < Types.size(); First += Group) {
    unsigned Count = std::min<unsigned>(Group, Types.size() - First);
    const Expr *At =
        C.add(Address, C.constant(Address->type(), First * LaneBits / 8));
    // Memory a private object holds nothing defined in reads as poison.
    const Expr *RawDefined;
    const Expr *Raw =
        M.load(S, At, Count * LaneBits, C.trueExpr(), From, &RawDefined);
    std::vector<Type> Part(Types.begin() + First,
                           Types.begin() + First + Count);
    Lanes Loaded = reinterpret({{Raw, RawDefined}}, Part);
    Out.insert(Out.end(), Loaded.begin(), Loaded.end());
  }
  return Out;
}

Lanes FunctionLifter::liftAlloca(const llvm::AllocaInst &I) {
  std::optional<llvm::TypeSize> Size =
      I.getAllocationSize(*Facts.Layout);
  if (!Size || Size->isScalable())
    unsupported("alloca of a size known only at run time");
  std::string Name = I.hasName() ? "%" + I.getName().str() : "alloca";
  const Expr *Base =
      M.privateObject(Name, Size->getFixedValue(), {}, /*ReadOnly=*/false,
                      {AddressSpace::Generic, AddressSpace::Local});
  return {defined(C.zextOrTrunc(Base, Type::i(unsigned(
                                          Facts.Layout->getPointerSizeInBits(
                                              I.getAddressSpace())))))};
}

void FunctionLifter::liftStore(const llvm::StoreInst &I) {
  if (I.isAtomic())
    unsupported("unsupported instruction store atomic");
  const llvm::Value *V = I.getValueOperand();
  if (V->getType()->isAggregateType())
    unsupported("store of an aggregate");
  AddressSpace S = space(I.getPointerAddressSpace());
  const Expr *Address = address(I.getPointerOperand());
  Lanes Value = operand(V);
  Origin From = origin(spell(I));
  if (Value.size() == 1 && Value[0].V->type().bits() % 8) {
    unsigned Bits =
        unsigned(Facts.Layout->getTypeStoreSizeInBits(V->getType()));
    const Expr *Raw = C.cast(Op::ZExt, M.toBits(Value[0].V), Type::i(Bits));
    M.store(S, Address, Raw, C.trueExpr(), From, Value[0].Def);
    return;
  }
  unsigned LaneBits = Value[0].V->type().bits();
  if (LaneBits % 8)
    unsupported("store of a vector of " + std::to_string(LaneBits) +
                "-bit lanes");
  unsigned Group = lanesPerAccess(LaneBits);
  for (unsigned First = 0; First < Value.size(); First += Group) {
    unsigned Count = std::min<unsigned>(Group, Value.size() - First);
    Lanes Part(Value.begin() + First, Value.begin() + First + Count);
    const Expr *Bits = reinterpret(Part, {Type::i(Count * LaneBits)})[0].V;
    const Expr *At =
        C.add(Address, C.constant(Address->type(), First * LaneBits / 8));
    // A store of poison writes; the write says its value is not defined.
    M.store(S, At, Bits, C.trueExpr(), From, allDefined(Part));
  }
}

namespace {

bool atomicKind(llvm::AtomicRMWInst::BinOp Op, AtomicOp &Out) {
  using B = llvm::AtomicRMWInst::BinOp;
  switch (Op) {
  case B::Add:
    Out = AtomicOp::Add;
    return true;
  case B::FAdd:
    Out = AtomicOp::FAdd;
    return true;
  case B::Min:
    Out = AtomicOp::Min;
    return true;
  case B::Max:
    Out = AtomicOp::Max;
    return true;
  case B::UMin:
    Out = AtomicOp::UMin;
    return true;
  case B::UMax:
    Out = AtomicOp::UMax;
    return true;
  case B::And:
    Out = AtomicOp::And;
    return true;
  case B::Or:
    Out = AtomicOp::Or;
    return true;
  case B::Xor:
    Out = AtomicOp::Xor;
    return true;
  case B::Xchg:
    Out = AtomicOp::Exchange;
    return true;
  default:
    return false;
  }
}

} // namespace

Lanes FunctionLifter::liftAtomicRMW(const llvm::AtomicRMWInst &I) {
  AtomicOp Kind;
  if (!atomicKind(I.getOperation(), Kind))
    unsupported("unsupported instruction atomicrmw " +
                llvm::AtomicRMWInst::getOperationName(I.getOperation()).str());
  if (I.getPointerAddressSpace() > 1)
    unsupported("atomicrmw on address space " +
                std::to_string(I.getPointerAddressSpace()));
  const Expr *Address = address(I.getPointerOperand());
  // A poison operand is taken as the value it happens to have: the model's
  // atomics carry no definedness (stricter than LLVM, never weaker).
  Lane V = scalar(I.getValOperand());
  const Expr *Old =
      M.atomic(Kind, Address, V.V, nullptr, C.trueExpr(), origin(spell(I)));
  return {defined(M.fromBits(M.toBits(Old), scalarType(I.getType())))};
}

Lanes FunctionLifter::liftCmpXchg(const llvm::AtomicCmpXchgInst &I) {
  if (I.isWeak())
    unsupported("unsupported instruction cmpxchg weak");
  if (I.getPointerAddressSpace() > 1)
    unsupported("cmpxchg on address space " +
                std::to_string(I.getPointerAddressSpace()));
  const Expr *Address = address(I.getPointerOperand());
  Lane Compare = scalar(I.getCompareOperand());
  Lane New = scalar(I.getNewValOperand());
  const Expr *Old = M.atomic(AtomicOp::CompareExchange, Address, New.V,
                             Compare.V, C.trueExpr(), origin(spell(I)));
  Type T = scalarType(I.getCompareOperand()->getType());
  const Expr *OldBits = M.toBits(Old);
  return {defined(M.fromBits(OldBits, T)),
          defined(C.eq(OldBits, M.toBits(Compare.V)))};
}

} // namespace stagecheck::llvmir

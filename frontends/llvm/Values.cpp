// Types, lanes, constants, parameters and globals of the LLVM IR lift.
#include "frontends/llvm/FunctionLifter.h"

#include "ir/Errors.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

namespace {

std::string printed(const llvm::Type *T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  T->print(OS);
  return S;
}

} // namespace

Type FunctionLifter::scalarType(llvm::Type *T) {
  if (auto *I = llvm::dyn_cast<llvm::IntegerType>(T)) {
    if (I->getBitWidth() > 64)
      unsupported("integer of " + std::to_string(I->getBitWidth()) + " bits");
    return Type::i(I->getBitWidth());
  }
  if (T->isHalfTy())
    return Type::f16();
  if (T->isBFloatTy())
    return Type::bf16();
  if (T->isFloatTy())
    return Type::f32();
  if (T->isDoubleTy())
    return Type::f64();
  // Pointers are integer addresses (the ThreadModel resolves them), as wide
  // as the data layout makes their address space: 32 bits for shared memory.
  if (T->isPointerTy())
    return Type::i(
        Facts.Layout->getPointerSizeInBits(T->getPointerAddressSpace()));
  unsupported("value of type " + printed(T));
}

std::vector<Type> FunctionLifter::laneTypes(llvm::Type *T) {
  if (auto *V = llvm::dyn_cast<llvm::FixedVectorType>(T))
    return std::vector<Type>(V->getNumElements(),
                             scalarType(V->getElementType()));
  if (auto *S = llvm::dyn_cast<llvm::StructType>(T)) {
    std::vector<Type> Out;
    for (llvm::Type *Field : S->elements()) {
      std::vector<Type> Part = laneTypes(Field);
      Out.insert(Out.end(), Part.begin(), Part.end());
    }
    return Out;
  }
  if (auto *A = llvm::dyn_cast<llvm::ArrayType>(T)) {
    std::vector<Type> Element = laneTypes(A->getElementType()), Out;
    for (uint64_t K = 0; K < A->getNumElements(); ++K)
      Out.insert(Out.end(), Element.begin(), Element.end());
    return Out;
  }
  return {scalarType(T)};
}

const Lanes &FunctionLifter::operand(const llvm::Value *V) {
  auto It = Values.find(V);
  if (It != Values.end())
    return It->second;
  Lanes L;
  if (auto *G = llvm::dyn_cast<llvm::GlobalVariable>(V))
    L = globalLanes(*G);
  else if (auto *K = llvm::dyn_cast<llvm::Constant>(V))
    L = constantLanes(K);
  else if (auto *A = llvm::dyn_cast<llvm::Argument>(V))
    L = argumentLanes(*A);
  else if (llvm::isa<llvm::Instruction>(V)) {
    // Defined in a block no path reaches: only unreachable code uses it.
    for (Type T : laneTypes(V->getType()))
      L.push_back(poison(T));
    return Values[V] = L;
  } else
    unsupported("operand " + V->getName().str());
  return Values[V] = std::move(L);
}

Lane FunctionLifter::scalar(const llvm::Value *V) {
  const Lanes &L = operand(V);
  if (L.size() != 1)
    unsupported("vector operand where a scalar is expected");
  return L[0];
}

Lane FunctionLifter::constantScalar(const llvm::Constant *K, Type T) {
  if (auto *I = llvm::dyn_cast<llvm::ConstantInt>(K))
    return defined(C.constant(T, I->getValue().getZExtValue()));
  if (auto *F = llvm::dyn_cast<llvm::ConstantFP>(K))
    return defined(
        C.constant(T, F->getValueAPF().bitcastToAPInt().getZExtValue()));
  if (llvm::isa<llvm::ConstantPointerNull>(K) ||
      llvm::isa<llvm::ConstantAggregateZero>(K))
    return defined(C.constant(T, 0));
  if (llvm::isa<llvm::PoisonValue>(K))
    return poison(T);
  // undef is some value of the type, not poison: one symbol per constant.
  if (llvm::isa<llvm::UndefValue>(K))
    return defined(C.fresh("undef", T));
  unsupported("constant of type " + printed(K->getType()));
}

Lanes FunctionLifter::constantLanes(const llvm::Constant *K) {
  if (auto *E = llvm::dyn_cast<llvm::ConstantExpr>(K))
    return liftConstantExpr(*E);
  if (auto *G = llvm::dyn_cast<llvm::GlobalVariable>(K))
    return globalLanes(*G);
  llvm::Type *T = K->getType();
  if (T->isVectorTy() || T->isStructTy() || T->isArrayTy()) {
    std::vector<Type> Types = laneTypes(T);
    Lanes L;
    if (llvm::isa<llvm::ConstantAggregateZero>(K) ||
        llvm::isa<llvm::UndefValue>(K)) {
      for (Type LT : Types)
        L.push_back(constantScalar(K, LT));
      return L;
    }
    unsigned N =
        llvm::isa<llvm::ConstantDataSequential>(K)
            ? llvm::cast<llvm::ConstantDataSequential>(K)->getNumElements()
            : K->getNumOperands();
    for (unsigned I = 0; I < N; ++I) {
      const llvm::Constant *Element = K->getAggregateElement(I);
      if (!Element)
        unsupported("constant aggregate of type " + printed(T));
      Lanes Part = constantLanes(Element);
      L.insert(L.end(), Part.begin(), Part.end());
    }
    return L;
  }
  return {constantScalar(K, scalarType(T))};
}

Lanes FunctionLifter::argumentLanes(const llvm::Argument &A) {
  unsigned K = A.getArgNo();
  SourceLocation Where =
      Current ? llirLocation(*Current) : SourceLocation{Facts.FileName, 0, 0};
  const KernelInterface &I = M.interface();
  bool IsPointer = A.getType()->isPointerTy();
  if (K < I.Params.size() && I.Params[K].IsPointer != IsPointer)
    throw InputError(Where, "parameter " + std::to_string(K) + " of " +
                                F.getName().str() + " is " +
                                (IsPointer ? "a pointer" : "a scalar") +
                                " in the LLVM IR but not in the interface");
  if (A.getType()->isVectorTy() || A.getType()->isAggregateType())
    return aggregateArgument(A, Where);
  Type T = scalarType(A.getType());
  if (IsPointer) {
    if (A.getType()->getPointerAddressSpace() == 3)
      unsupported("shared-memory pointer parameter");
    return {defined(M.parameter(K, T.bits(), Where))};
  }
  return {defined(M.fromBits(M.parameter(K, T.bits(), Where), T))};
}

/// A vector or aggregate parameter (of a device function): one integer
/// parameter of its bytes, cut into lanes at their memory offsets.
Lanes FunctionLifter::aggregateArgument(const llvm::Argument &A,
                                        const SourceLocation &Where) {
  unsigned Bytes = unsigned(Facts.Layout->getTypeAllocSize(A.getType()));
  const KernelInterface &I = M.interface();
  unsigned K = A.getArgNo();
  if (Bytes > 8 || K >= I.Params.size() || I.Params[K].IsPointer ||
      I.Params[K].Element.isFloat() || I.Params[K].Element.bits() != Bytes * 8)
    unsupported("parameter of type " + printed(A.getType()));
  const Expr *Raw = M.parameter(K, Bytes * 8, Where);
  std::vector<Type> Types = laneTypes(A.getType());
  std::vector<unsigned> Offsets = laneOffsets(A.getType());
  Lanes L;
  for (size_t J = 0; J < Types.size(); ++J) {
    const Expr *Bits = Raw;
    if (Offsets[J])
      Bits = C.binary(Op::LShr, Bits, C.constant(Bits->type(), Offsets[J] * 8));
    Bits = C.zextOrTrunc(Bits, Type::i(Types[J].bits()));
    L.push_back(defined(Types[J].isBool() ? Bits : M.fromBits(Bits, Types[J])));
  }
  return L;
}

std::vector<unsigned> FunctionLifter::laneOffsets(llvm::Type *T) {
  if (auto *V = llvm::dyn_cast<llvm::FixedVectorType>(T)) {
    unsigned Bits = scalarType(V->getElementType()).bits();
    if (Bits % 8)
      unsupported("vector of " + printed(V->getElementType()) +
                  " in memory or at a call boundary");
    std::vector<unsigned> Out;
    for (unsigned K = 0; K < V->getNumElements(); ++K)
      Out.push_back(K * Bits / 8);
    return Out;
  }
  if (auto *S = llvm::dyn_cast<llvm::StructType>(T)) {
    const llvm::StructLayout *Layout = Facts.Layout->getStructLayout(S);
    std::vector<unsigned> Out;
    for (unsigned K = 0; K < S->getNumElements(); ++K)
      for (unsigned O : laneOffsets(S->getElementType(K)))
        Out.push_back(unsigned(Layout->getElementOffset(K)) + O);
    return Out;
  }
  if (auto *A = llvm::dyn_cast<llvm::ArrayType>(T)) {
    unsigned Size = unsigned(Facts.Layout->getTypeAllocSize(A->getElementType()));
    std::vector<unsigned> Element = laneOffsets(A->getElementType()), Out;
    for (uint64_t K = 0; K < A->getNumElements(); ++K)
      for (unsigned O : Element)
        Out.push_back(unsigned(K) * Size + O);
    return Out;
  }
  return {0};
}

namespace {

/// Every use of V (through address arithmetic) only loads.
bool onlyLoaded(const llvm::Value *V) {
  for (const llvm::User *U : V->users()) {
    if (llvm::isa<llvm::LoadInst>(U))
      continue;
    if (llvm::isa<llvm::GEPOperator>(U) || llvm::isa<llvm::BitCastOperator>(U) ||
        llvm::isa<llvm::AddrSpaceCastOperator>(U)) {
      if (!onlyLoaded(U))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

/// A table nothing writes: constant, or local to its module with every use
/// a load (libdevice's tables are not marked constant until linked).
bool readOnlyTable(const llvm::GlobalVariable &G) {
  if (!G.hasDefinitiveInitializer())
    return false;
  return G.isConstant() || (G.hasLocalLinkage() && onlyLoaded(&G));
}

} // namespace

Lanes FunctionLifter::globalLanes(const llvm::GlobalVariable &G) {
  // Triton's dynamic shared memory; any other global is not modelled.
  if (G.getName() == "global_smem" && G.getAddressSpace() == 3)
    return {defined(M.sharedBase(scalarType(G.getType()).bits()))};
  // A constant table (libdevice's 2/pi bits for sine and cosine): read
  // only, its bytes known.
  if (readOnlyTable(G)) {
    const llvm::Constant *Init = G.getInitializer();
    uint64_t Bytes = Facts.Layout->getTypeAllocSize(Init->getType());
    std::vector<uint8_t> Content;
    if (llvm::isa<llvm::ConstantAggregateZero>(Init))
      Content.assign(Bytes, 0);
    else if (auto *D = llvm::dyn_cast<llvm::ConstantDataSequential>(Init);
             D && D->getElementType()->isIntegerTy() &&
             D->getElementByteSize() * D->getNumElements() == Bytes &&
             Facts.Layout->isLittleEndian()) {
      llvm::StringRef Raw = D->getRawDataValues();
      Content.assign(Raw.bytes_begin(), Raw.bytes_end());
    }
    if (Content.size() == Bytes && Bytes > 0) {
      const Expr *Base =
          M.privateObject("@" + G.getName().str(), Bytes, std::move(Content),
                          /*ReadOnly=*/true,
                          {AddressSpace::Global, AddressSpace::Generic});
      return {defined(C.zextOrTrunc(
          Base, Type::i(scalarType(G.getType()).bits())))};
    }
  }
  unsupported("global @" + G.getName().str());
}

void FunctionLifter::define(const llvm::Instruction &I, Lanes L) {
  for (ActiveLoop &A : Active) {
    if (!A.LiveOut.count(&I))
      continue;
    auto It = A.Latest.find(&I);
    if (It == A.Latest.end()) {
      A.Latest.emplace(&I, L);
      continue;
    }
    for (unsigned K = 0; K < L.size(); ++K)
      It->second[K] = selectLane(Path, L[K], It->second[K]);
  }
  Values[&I] = std::move(L);
}

Lane FunctionLifter::selectLane(const Expr *Cond, const Lane &A,
                                const Lane &B) {
  return {C.select(Cond, A.V, B.V), C.select(Cond, A.Def, B.Def)};
}

const Expr *FunctionLifter::allDefined(const Lanes &L) {
  const Expr *D = C.trueExpr();
  for (const Lane &X : L)
    D = C.andOf(D, X.Def);
  return D;
}

Lanes FunctionLifter::reinterpret(const Lanes &From,
                                  const std::vector<Type> &To) {
  // A queue of pieces of bits, the lowest first; each target lane takes
  // whole pieces, cutting the last one when it is wider than needed.
  struct Piece {
    const Expr *Bits;
    unsigned Low, Width; // bits [Low, Low + Width) of Bits
    const Expr *Def;
  };
  std::vector<Piece> Queue;
  unsigned Total = 0;
  for (const Lane &L : From) {
    const Expr *Bits = M.toBits(L.V);
    Queue.push_back({Bits, 0, Bits->type().bits(), L.Def});
    Total += Bits->type().bits();
  }
  unsigned Want = 0;
  for (Type T : To)
    Want += T.bits();
  if (Want != Total)
    unsupported("reinterpretation of " + std::to_string(Total) + " bits as " +
                std::to_string(Want));
  auto Cut = [&](const Piece &P) {
    const Expr *E = P.Bits;
    if (P.Low)
      E = C.binary(Op::LShr, E, C.constant(E->type(), P.Low));
    return P.Width == E->type().bits() ? E
                                       : C.cast(Op::Trunc, E, Type::i(P.Width));
  };
  Lanes Out;
  size_t Next = 0;
  for (Type T : To) {
    std::vector<const Expr *> Parts;
    const Expr *Def = C.trueExpr();
    unsigned Need = T.bits();
    while (Need) {
      Piece &P = Queue[Next];
      unsigned Take = std::min(Need, P.Width);
      Parts.push_back(Cut({P.Bits, P.Low, Take, P.Def}));
      Def = C.andOf(Def, P.Def);
      Need -= Take;
      P.Low += Take;
      P.Width -= Take;
      if (!P.Width)
        ++Next;
    }
    Out.push_back({M.fromBits(M.concat(Parts), T), Def});
  }
  return Out;
}

} // namespace stagecheck::llvmir

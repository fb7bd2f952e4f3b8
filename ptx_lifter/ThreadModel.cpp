#include "ptx_lifter/ThreadModel.h"

#include "ir/Errors.h"

#include <algorithm>
#include <optional>
#include <set>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

const char *const DimNames[] = {"x", "y", "z"};

std::string dimName(unsigned Dim) {
  if (Dim > 2)
    throw IRError("thread dimension out of range");
  return DimNames[Dim];
}

/// The bytes an element of T occupies in memory (i1 is stored as a byte).
unsigned elementBytes(Type T) { return T.isBool() ? 1 : T.bits() / 8; }

bool isPowerOfTwo(unsigned V) { return V && !(V & (V - 1)); }

unsigned log2Of(unsigned V) {
  unsigned L = 0;
  while ((1u << L) < V)
    ++L;
  return L;
}

} // namespace

ThreadModel::ThreadModel(Context &C, KernelInterface Interface,
                         std::array<unsigned, 3> BlockDim)
    : C(C) {
  Result.Interface = std::move(Interface);
  for (unsigned D = 0; D < 3; ++D)
    Result.BlockDim[D] = BlockDim[D];
}

const Expr *ThreadModel::constant32(uint64_t V) {
  return C.constant(Type::i(32), V);
}

void ThreadModel::setConcreteThreadId(std::array<unsigned, 3> Tid) {
  for (unsigned D = 0; D < 3; ++D)
    if (Result.BlockDim[D] && Tid[D] >= Result.BlockDim[D])
      throw IRError("thread id beyond the block size");
  ConcreteTid = Tid;
}

const Expr *ThreadModel::threadId(unsigned Dim) {
  unsigned Extent = Result.BlockDim[Dim];
  if (Extent == 0)
    throw UnsupportedError({}, "thread id used in a kernel without a "
                               "required block size (reqntid)");
  if (Extent == 1)
    return constant32(0);
  if (ConcreteTid)
    return constant32((*ConcreteTid)[dimName(Dim) == "x" ? 0 : Dim]);
  const Expr *Tid =
      C.symbol("tid." + dimName(Dim), Type::i(32), SymbolRole::ThreadId);
  assume(C.icmp(ICmpPredicate::Ult, Tid, constant32(Extent)));
  return Tid;
}

const Expr *ThreadModel::programId(unsigned Dim) {
  // The same assumption the TTIR lifter states, so the two agree.
  assume(programIdRange(C, Dim));
  return programIdSymbol(C, Dim);
}

const Expr *ThreadModel::numPrograms(unsigned Dim) {
  assume(numProgramsRange(C, Dim));
  return numProgramsSymbol(C, Dim);
}

const Expr *ThreadModel::blockDim(unsigned Dim) {
  unsigned Extent = Result.BlockDim[dimName(Dim) == "x" ? 0 : Dim];
  if (Extent == 0)
    throw UnsupportedError({}, "ntid used in a kernel without a required "
                               "block size (reqntid)");
  return constant32(Extent);
}

const Expr *ThreadModel::laneId() {
  if (Result.BlockDim[1] > 1 || Result.BlockDim[2] > 1)
    throw UnsupportedError({}, "lane id of a multi-dimensional block");
  return C.binary(Op::And, threadId(0), constant32(31));
}

const Expr *ThreadModel::parameter(unsigned K, unsigned Bits,
                                   const SourceLocation &Where) {
  if (K >= Result.Interface.Params.size())
    throw InputError(Where, "parameter " + std::to_string(K) +
                                " is not a parameter of kernel " +
                                Result.Interface.Kernel);
  const KernelParam &P = Result.Interface.Params[K];
  if (P.IsPointer) {
    const Expr *Address = C.symbol(P.Name, Type::i(64), SymbolRole::Param);
    return Bits == 64 ? Address : C.zextOrTrunc(Address, Type::i(Bits));
  }
  const Expr *Scalar = C.symbol(P.Name, P.Element, SymbolRole::Param);
  const Expr *Raw = toBits(Scalar);
  unsigned Own = Raw->type().bits();
  if (Own == Bits)
    return Raw;
  if (DeviceFunction && Bits > Own) {
    char Ext = K < ParamExtension.size() ? ParamExtension[K] : 0;
    if (Ext == 'z' || Ext == 's')
      return C.cast(Ext == 'z' ? Op::ZExt : Op::SExt, Raw, Type::i(Bits));
    // What the caller leaves above the value is unspecified: the same
    // unknown bits for every read of the slot.
    const Expr *High = C.symbol(P.Name + ".hi", Type::i(64 - Own),
                                SymbolRole::Free);
    return concat({Raw, C.zextOrTrunc(High, Type::i(Bits - Own))});
  }
  // A bool parameter is passed as a byte; narrower reads take the low bits.
  return C.zextOrTrunc(Raw, Type::i(Bits));
}

std::string ThreadModel::returnBuffer(unsigned Lane) {
  return Lane ? "func_retval0." + std::to_string(Lane) : "func_retval0";
}

void ThreadModel::returnValue(unsigned Lane, const Expr *Value,
                              const Expr *Defined, const Origin &From) {
  std::string Buffer = returnBuffer(Lane);
  noteBuffer(Buffer, Value->type(), AddressSpace::Param);
  Result.Effects.Writes.push_back({C.trueExpr(), Buffer,
                                   C.constant(Type::i(64), 0), Value,
                                   Defined ? Defined : C.trueExpr(), From, {}});
  Result.WriteExchangeCounts.push_back(NextExchange);
}

const Expr *ThreadModel::sharedBase(unsigned Bits) {
  const Expr *Base = C.symbol("smem", Type::i(32), SymbolRole::Free);
  return Bits == 32 ? Base : C.zextOrTrunc(Base, Type::i(Bits));
}

namespace {

/// Address = Base + Offset where Base is one of the given symbols, found
/// through additions, subtractions, selects and pointer casts.
struct Split {
  const Expr *Base;
  const Expr *Offset;
};

bool mentions(const Expr *E, const std::vector<const Expr *> &Bases) {
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots))
    if (N->op() == Op::Symbol &&
        std::find(Bases.begin(), Bases.end(), N) != Bases.end())
      return true;
  return false;
}

std::optional<Split> splitBase(Context &C, const Expr *E,
                               const std::vector<const Expr *> &Bases) {
  if (std::find(Bases.begin(), Bases.end(), E) != Bases.end())
    return Split{E, C.constant(E->type(), 0)};
  switch (E->op()) {
  case Op::Add:
    for (unsigned I = 0; I < 2; ++I) {
      const Expr *Other = E->operand(1 - I);
      if (mentions(Other, Bases))
        continue;
      if (auto S = splitBase(C, E->operand(I), Bases))
        return Split{S->Base, C.add(S->Offset, Other)};
    }
    return std::nullopt;
  case Op::Sub:
    if (mentions(E->operand(1), Bases))
      return std::nullopt;
    if (auto S = splitBase(C, E->operand(0), Bases))
      return Split{S->Base, C.sub(S->Offset, E->operand(1))};
    return std::nullopt;
  case Op::Select: {
    if (mentions(E->operand(0), Bases))
      return std::nullopt;
    auto T = splitBase(C, E->operand(1), Bases);
    auto F = splitBase(C, E->operand(2), Bases);
    if (!T || !F || T->Base != F->Base)
      return std::nullopt;
    return Split{T->Base, C.select(E->operand(0), T->Offset, F->Offset)};
  }
  case Op::Trunc: {
    // Truncation is a ring homomorphism: trunc(zext(B) + X) = B + trunc(X)
    // (llc forms 32-bit shared addresses from 64-bit sums this way).
    Type Wide = E->operand(0)->type();
    std::vector<const Expr *> Widened = Bases;
    for (const Expr *B : Bases)
      if (B->type().bits() < Wide.bits())
        Widened.push_back(C.zextOrTrunc(B, Wide));
    auto S = splitBase(C, E->operand(0), Widened);
    if (!S)
      return std::nullopt;
    for (const Expr *B : Bases)
      if (S->Base == B || S->Base == C.zextOrTrunc(B, Wide))
        if (B->type() == E->type())
          return Split{B, C.zextOrTrunc(S->Offset, E->type())};
    return std::nullopt;
  }
  case Op::PtrToInt:
  case Op::IntToPtr:
    if (E->operand(0)->type().bits() != E->type().bits())
      return std::nullopt;
    if (auto S = splitBase(C, E->operand(0), Bases))
      return Split{S->Base, C.zextOrTrunc(S->Offset, E->type())};
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

} // namespace

ThreadModel::Place ThreadModel::resolve(AddressSpace Space,
                                        const Expr *Address,
                                        const Origin &From) {
  Type I64 = Type::i(64);
  if (Address->type().isPtr())
    Address = C.cast(Op::PtrToInt, Address, I64);
  if (Space == AddressSpace::Shared) {
    // Shared addresses are 32-bit offsets into the CTA's shared window; a
    // 64-bit shared address is its zero extension.
    if (Address->type().bits() == 64 && Address->op() == Op::ZExt)
      Address = Address->operand(0);
    std::vector<const Expr *> Bases = {sharedBase(Address->type().bits())};
    auto S = splitBase(C, Address, Bases);
    if (!S)
      throw UnsupportedError(From.Loc, "shared-memory address that is not "
                                       "the shared base plus an offset (" +
                                           From.Op + ")");
    return {"", C.zextOrTrunc(S->Offset, I64)};
  }
  if (auto P = resolvePrivate(Address)) {
    const std::vector<AddressSpace> &Spaces = Objects[size_t(P->Private)].AccessedAs;
    if (std::find(Spaces.begin(), Spaces.end(), Space) == Spaces.end())
      throw UnsupportedError(From.Loc, P->Buffer + " accessed in address "
                                                   "space " +
                                           std::to_string(unsigned(Space)) +
                                           " (" + From.Op + ")");
    return *P;
  }
  if (Space == AddressSpace::Local)
    throw UnsupportedError(From.Loc, "local address that is not a local "
                                     "object plus an offset (" +
                                         From.Op + ")");
  if (Space != AddressSpace::Global && Space != AddressSpace::Generic)
    throw UnsupportedError(From.Loc, "access to address space " +
                                         std::to_string(unsigned(Space)) +
                                         " (" + From.Op + ")");
  if (Address->type().bits() != 64)
    throw UnsupportedError(From.Loc, "global address narrower than 64 bits (" +
                                         From.Op + ")");
  std::vector<const Expr *> Bases;
  for (const KernelParam &P : Result.Interface.Params)
    if (P.IsPointer)
      Bases.push_back(C.symbol(P.Name, I64, SymbolRole::Param));
  auto S = splitBase(C, Address, Bases);
  if (!S || mentions(S->Offset, Bases))
    throw UnsupportedError(From.Loc, "global address that is not a pointer "
                                     "parameter plus an offset (" +
                                         From.Op + ")");
  return {S->Base->name(), S->Offset};
}

std::optional<ThreadModel::Place>
ThreadModel::resolvePrivate(const Expr *Address) {
  if (Objects.empty())
    return std::nullopt;
  // PTX forms 32-bit local addresses from the depot's 64-bit one.
  Type AddressType = Address->type();
  std::vector<const Expr *> Bases;
  for (const PrivateObject &O : Objects)
    Bases.push_back(C.zextOrTrunc(O.Base, AddressType));
  auto S = splitBase(C, Address, Bases);
  if (!S || mentions(S->Offset, Bases))
    return std::nullopt;
  for (unsigned K = 0; K < Objects.size(); ++K)
    if (Bases[K] == S->Base)
      return Place{Objects[K].Name, C.zextOrTrunc(S->Offset, Type::i(64)),
                   int(K)};
  return std::nullopt;
}

const Expr *ThreadModel::elementIndex(const Place &P, unsigned ElementBytes,
                                      const Expr *Guard, const Origin &From) {
  Type I64 = Type::i(64);
  if (!isPowerOfTwo(ElementBytes))
    throw UnsupportedError(From.Loc, "element of " +
                                         std::to_string(ElementBytes) +
                                         " bytes (" + From.Op + ")");
  if (ElementBytes == 1)
    return P.Offset;
  const Expr *Misaligned = C.icmp(
      ICmpPredicate::Ne,
      C.binary(Op::And, P.Offset, C.constant(I64, ElementBytes - 1)),
      C.constant(I64, 0));
  addUndefined(C.andOf(Guard, Misaligned),
               "misaligned access to " + P.Buffer, From);
  return C.binary(Op::AShr, P.Offset, C.constant(I64, log2Of(ElementBytes)));
}

void ThreadModel::noteBuffer(const std::string &Name, Type Element,
                             AddressSpace Space) {
  if (Result.Effects.buffer(Name))
    return;
  Result.Effects.Buffers.push_back({Name, Element, Space, std::nullopt});
}

const Expr *ThreadModel::definedWithOperands(const Expr *Part,
                                             const Expr *Defined) {
  if (OperandDefinedness.empty())
    return Defined;
  std::set<const Expr *> Within;
  for (const Expr *N : postOrder(std::span<const Expr *const>(&Part, 1)))
    Within.insert(N);
  for (const auto &[Value, Condition] : OperandDefinedness)
    if (Within.count(Value))
      Defined = C.andOf(Defined, Condition);
  return Defined;
}

const Expr *ThreadModel::sharedByte(const Expr *Offset) {
  std::string Content = "smem@" + std::to_string(Result.Phases);
  const Expr *Byte = C.read(Content, Type::i(8), Offset);
  // This thread's own writes of this phase, the latest last.
  for (const SharedByteWrite &W : PhaseWrites)
    Byte = C.select(C.andOf(W.Guard, C.eq(W.Offset, Offset)), W.Byte, Byte);
  return Byte;
}

namespace {

const KernelParam &paramOf(const KernelInterface &I, const std::string &Name) {
  for (const KernelParam &P : I.Params)
    if (P.Name == Name)
      return P;
  throw IRError("no parameter " + Name);
}

void checkWidth(unsigned Bits, unsigned ElementBits, const Origin &From) {
  if (Bits % ElementBits != 0)
    throw UnsupportedError(From.Loc, "access of " + std::to_string(Bits) +
                                         " bits to elements of " +
                                         std::to_string(ElementBits) +
                                         " bits (" + From.Op + ")");
}

} // namespace

const Expr *ThreadModel::load(AddressSpace Space, const Expr *Address,
                              unsigned Bits, const Expr *Guard,
                              const Origin &From, const Expr **Defined) {
  Guard = onPath(Guard);
  Place P = resolve(Space, Address, From);
  Type I64 = Type::i(64);
  if (Defined)
    *Defined = C.trueExpr();
  if (P.Private >= 0) {
    checkWidth(Bits, 8, From);
    addUndefined(C.andOf(Guard, C.notOf(privateInBounds(P, Bits))),
                 "read outside " + P.Buffer + " or misaligned", From);
    auto [Value, Written] = privateRead(P, Bits, Guard);
    if (Defined)
      *Defined = Written;
    else
      addUndefined(C.andOf(Guard, C.notOf(Written)),
                   "read of " + P.Buffer + " where nothing was stored", From);
    return Value;
  }
  std::vector<const Expr *> Parts;
  if (P.Buffer.empty()) {
    checkWidth(Bits, 8, From);
    for (unsigned K = 0; K < Bits / 8; ++K)
      Parts.push_back(sharedByte(C.add(P.Offset, C.constant(I64, K))));
    return concat(Parts);
  }
  Type Element = paramOf(Result.Interface, P.Buffer).Element;
  unsigned Bytes = elementBytes(Element);
  checkWidth(Bits, Bytes * 8, From);
  noteBuffer(P.Buffer, Element, AddressSpace::Global);
  const Expr *Index = elementIndex(P, Bytes, Guard, From);
  Result.GlobalReads.push_back(
      {Guard, P.Buffer, Index, Bits / (Bytes * 8), From});
  for (unsigned K = 0; K < Bits / (Bytes * 8); ++K) {
    const Expr *V = C.read(P.Buffer, Element, C.add(Index, C.constant(I64, K)));
    const Expr *Raw = toBits(V);
    Parts.push_back(Raw->type().bits() == Bytes * 8
                        ? Raw
                        : C.zextOrTrunc(Raw, Type::i(Bytes * 8)));
  }
  return concat(Parts);
}

void ThreadModel::store(AddressSpace Space, const Expr *Address,
                        const Expr *Value, const Expr *Guard,
                        const Origin &From, const Expr *Defined) {
  if (!Defined)
    Defined = C.trueExpr();
  Guard = onPath(Guard);
  Place P = resolve(Space, Address, From);
  Type I64 = Type::i(64);
  const Expr *Raw = toBits(Value);
  unsigned Bits = Raw->type().bits();
  if (P.Private >= 0) {
    checkWidth(Bits, 8, From);
    privateStore(P, Raw, Guard, Defined, From);
    return;
  }
  if (P.Buffer.empty()) {
    checkWidth(Bits, 8, From);
    std::string Buffer = "smem." + std::to_string(Result.Phases);
    noteBuffer(Buffer, Type::i(8), AddressSpace::Shared);
    std::vector<const Expr *> Bytes = split(Raw, Bits / 8);
    for (unsigned K = 0; K < Bytes.size(); ++K) {
      const Expr *Offset = C.add(P.Offset, C.constant(I64, K));
      Result.Effects.Writes.push_back(
          {Guard, Buffer, Offset, Bytes[K],
           definedWithOperands(Bytes[K], Defined), From, {}});
      Result.WriteExchangeCounts.push_back(NextExchange);
      PhaseWrites.push_back({Guard, Offset, Bytes[K]});
    }
    return;
  }
  Type Element = paramOf(Result.Interface, P.Buffer).Element;
  unsigned Bytes = elementBytes(Element);
  checkWidth(Bits, Bytes * 8, From);
  noteBuffer(P.Buffer, Element, AddressSpace::Global);
  const Expr *Index = elementIndex(P, Bytes, Guard, From);
  std::vector<const Expr *> Parts = split(Raw, Bits / (Bytes * 8));
  for (unsigned K = 0; K < Parts.size(); ++K) {
    const Expr *Part = Parts[K];
    const Expr *PartDefined = definedWithOperands(Part, Defined);
    if (Element.isBool()) {
      // A bool's byte: true unless 0, and not defined above 1 (a byte no
      // bool holds), as the TTIR lifter has it.
      PartDefined = C.andOf(PartDefined, C.icmp(ICmpPredicate::Ule, Part,
                                                C.constant(Part->type(), 1)));
      Part = C.icmp(ICmpPredicate::Ne, Part, C.constant(Part->type(), 0));
    }
    Result.Effects.Writes.push_back(
        {Guard, P.Buffer, C.add(Index, C.constant(I64, K)),
         Element.isBool() ? Part : fromBits(Part, Element), PartDefined, From,
         {}});
    Result.WriteExchangeCounts.push_back(NextExchange);
  }
}

const Expr *ThreadModel::atomic(AtomicOp Kind, const Expr *Address,
                                const Expr *Value, const Expr *Compare,
                                const Expr *Guard, const Origin &From) {
  Guard = onPath(Guard);
  Place P = resolve(AddressSpace::Global, Address, From);
  if (P.Private >= 0)
    throw UnsupportedError(From.Loc, "atomic on the private " + P.Buffer +
                                         " (" + From.Op + ")");
  Type Element = paramOf(Result.Interface, P.Buffer).Element;
  unsigned Bytes = elementBytes(Element);
  const Expr *Raw = toBits(Value);
  if (Raw->type().bits() != Bytes * 8)
    throw UnsupportedError(From.Loc, "atomic of " +
                                         std::to_string(Raw->type().bits()) +
                                         " bits on elements of " +
                                         std::to_string(Bytes * 8) + " bits");
  noteBuffer(P.Buffer, Element, AddressSpace::Global);
  const Expr *Index = elementIndex(P, Bytes, Guard, From);
  const Expr *V = fromBits(Raw, Element);
  const Expr *Cmp = Compare ? fromBits(toBits(Compare), Element) : nullptr;
  Result.Effects.Atomics.push_back({Guard, P.Buffer, Index, Kind, V, Cmp, From});
  std::vector<const Expr *> Operands = {Index, V};
  if (Cmp)
    Operands.push_back(Cmp);
  return addExchange(std::string("atom.") + spelling(Kind) + "." + P.Buffer,
                     Guard, Operands, {Element}, From)[0];
}

const Expr *ThreadModel::sharedOffset(const Expr *Address,
                                      const Origin &From) {
  return resolve(AddressSpace::Shared, Address, From).Offset;
}

const Expr *ThreadModel::onPath(const Expr *G) {
  return Path ? C.andOf(Path, G) : G;
}

std::vector<const Expr *>
ThreadModel::exchange(const std::string &Kind, const Expr *Guard,
                      std::vector<const Expr *> Operands,
                      const std::vector<Type> &ResultTypes,
                      const Origin &From) {
  return addExchange(Kind, onPath(Guard), std::move(Operands), ResultTypes,
                     From);
}

std::vector<const Expr *>
ThreadModel::addExchange(const std::string &Kind, const Expr *Guard,
                         std::vector<const Expr *> Operands,
                         const std::vector<Type> &ResultTypes,
                         const Origin &From) {
  unsigned N = NextExchange++;
  Exchange X{Kind, Guard, std::move(Operands), {}, From};
  for (unsigned R = 0; R < ResultTypes.size(); ++R)
    X.Results.push_back(C.symbol(ExchangePrefix + "xchg." +
                                     std::to_string(N) + "." +
                                     std::to_string(R),
                                 ResultTypes[R]));
  Result.Exchanges.push_back(X);
  return Result.Exchanges.back().Results;
}

bool ThreadModel::isUniform(const Expr *E) {
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots)) {
    if (N->op() != Op::Symbol)
      continue;
    switch (N->role()) {
    case SymbolRole::Param:
    case SymbolRole::ProgramId:
    case SymbolRole::NumPrograms:
    case SymbolRole::BlockDim:
      continue;
    default:
      // Thread ids, exchange results and fresh values differ per thread;
      // the shared base is one address for the whole CTA.
      if (N->name() != "smem")
        return false;
    }
  }
  return true;
}

void ThreadModel::barrier(const Expr *Guard, const Origin &From) {
  Guard = onPath(Guard);
  if (!Guard->isTrue() && !isUniform(Guard))
    throw UnsupportedError(From.Loc,
                           "barrier not reached by every thread (" + From.Op +
                               ")");
  addExchange("barrier", Guard, {}, {}, From);
  ++Result.Phases;
  PhaseWrites.clear();
}

void ThreadModel::undefined(const Expr *Condition, const std::string &Reason,
                            const Origin &From) {
  addUndefined(onPath(Condition), Reason, From);
}

void ThreadModel::addUndefined(const Expr *Condition, const std::string &Reason,
                               const Origin &From) {
  if (Condition->isFalse())
    return;
  Result.Effects.Undefined.push_back({Condition, Reason, From, {}});
}

void ThreadModel::assume(const Expr *Condition) {
  if (Condition->isTrue())
    return;
  auto &A = Result.Assumptions;
  if (std::find(A.begin(), A.end(), Condition) == A.end())
    A.push_back(Condition);
}

void ThreadModel::bound(const std::string &Line) {
  Result.Bounds.push_back(Line);
}

std::vector<const Expr *> rootsOf(const ThreadEffects &T) {
  std::vector<const Expr *> Roots;
  for (const Write &W : T.Effects.Writes)
    Roots.insert(Roots.end(), {W.Guard, W.Index, W.Value, W.Defined});
  for (const Atomic &A : T.Effects.Atomics) {
    Roots.insert(Roots.end(), {A.Guard, A.Index, A.Value});
    if (A.Compare)
      Roots.push_back(A.Compare);
  }
  for (const UndefinedBehavior &U : T.Effects.Undefined)
    Roots.push_back(U.Condition);
  for (const Exchange &X : T.Exchanges) {
    Roots.push_back(X.Guard);
    Roots.insert(Roots.end(), X.Operands.begin(), X.Operands.end());
  }
  return Roots;
}

ThreadEffects ThreadModel::finish() {
  refuseEscapedAddresses();
  return std::move(Result);
}

const Expr *ThreadModel::concat(const std::vector<const Expr *> &Parts) {
  if (Parts.empty())
    throw IRError("concat of nothing");
  if (Parts.size() == 1)
    return Parts[0];
  unsigned Width = 0;
  for (const Expr *P : Parts)
    Width += P->type().bits();
  if (Width > 64)
    throw UnsupportedError({}, "value of " + std::to_string(Width) + " bits");
  Type T = Type::i(Width);
  const Expr *R = nullptr;
  unsigned Shift = 0;
  for (const Expr *P : Parts) {
    const Expr *Piece = C.cast(Op::ZExt, P, T);
    if (Shift)
      Piece = C.binary(Op::Shl, Piece, C.constant(T, Shift));
    R = R ? C.orOf(R, Piece) : Piece;
    Shift += P->type().bits();
  }
  return R;
}

std::vector<const Expr *> ThreadModel::split(const Expr *Bits,
                                             unsigned Count) {
  unsigned Width = Bits->type().bits();
  if (Count == 0 || Width % Count != 0)
    throw IRError("split of " + std::to_string(Width) + " bits into " +
                  std::to_string(Count));
  if (Count == 1)
    return {Bits};
  // Taking apart what concat built gives back its parts.
  unsigned PieceBits = Width / Count;
  Type Piece = Type::i(PieceBits);
  std::vector<const Expr *> Parts;
  for (unsigned K = 0; K < Count; ++K) {
    const Expr *Shifted =
        K ? C.binary(Op::LShr, Bits, C.constant(Bits->type(), K * PieceBits))
          : Bits;
    Parts.push_back(C.cast(Op::Trunc, Shifted, Piece));
  }
  return Parts;
}

const Expr *ThreadModel::toBits(const Expr *V) {
  Type T = V->type();
  if (T.isInt())
    return V;
  if (T.isPtr())
    return C.cast(Op::PtrToInt, V, Type::i(64));
  return C.cast(Op::Bitcast, V, Type::i(T.bits()));
}

const Expr *ThreadModel::fromBits(const Expr *Bits, Type T) {
  if (Bits->type() == T)
    return Bits;
  if (T.isPtr())
    return C.cast(Op::IntToPtr, Bits, T);
  if (T.isBool())
    return C.icmp(ICmpPredicate::Ne, Bits, C.constant(Bits->type(), 0));
  return C.cast(Op::Bitcast, Bits, T);
}

} // namespace stagecheck::ptx

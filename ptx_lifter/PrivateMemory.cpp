// A thread's private memory: allocas, PTX's .local depot and the module's
// constant tables (libdevice's sine and cosine keep the 2/pi table and the
// partial products of their Payne-Hanek reduction there). Nothing here is
// an effect: a load reads back what this thread stored, forwarded through
// the guarded stores in program order, so two stages that lay the objects
// out differently (llc merges allocas into one depot) still read the same
// values.
#include "ptx_lifter/ThreadModel.h"

#include "ir/Errors.h"

#include <set>
#include <unordered_map>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

/// A forwarding chain longer than this is not built (a table of 4096
/// words already makes every read a 4096-way select).
constexpr uint64_t MaxPrivateWords = 4096;

/// The address an object is taken to have where a condition of the
/// lifted code (an inbounds getelementptr's wrap test) asks about the
/// address itself: object K at 2^40 + K * 2^32, so that no object wraps.
uint64_t layoutAddress(unsigned K) {
  return (uint64_t(1) << 40) + (uint64_t(K) << 32);
}

/// Whether every conjunct of Writer is one of Reader's: a store on every
/// path the load is on.
bool guardedAlike(const Expr *Writer, const std::set<const Expr *> &Reader) {
  for (const Expr *L : conjunctsOf(Writer))
    if (!Reader.count(L))
      return false;
  return true;
}

/// A stored value as the load sees it: a select whose condition the
/// load's guard implies is its first arm (the LLVM IR carries a value out
/// of a loop as select(path, new, old), which the PTX's register is
/// without the select).
const Expr *decidedUnder(const Expr *V, const std::set<const Expr *> &Reader) {
  while (V->op() == Op::Select && guardedAlike(V->operand(0), Reader))
    V = V->operand(1);
  return V;
}

} // namespace

const Expr *ThreadModel::privateObject(const std::string &Name,
                                       uint64_t Bytes,
                                       std::vector<uint8_t> Initial,
                                       bool ReadOnly,
                                       std::vector<AddressSpace> AccessedAs) {
  if (!Initial.empty() && Initial.size() != Bytes)
    throw IRError("private object " + Name + " has " +
                  std::to_string(Initial.size()) + " initial bytes, not " +
                  std::to_string(Bytes));
  if (Bytes > MaxPrivateWords * 8)
    throw UnsupportedError({}, "private object " + Name + " of " +
                                   std::to_string(Bytes) + " bytes");
  const Expr *Base =
      C.symbol("private." + std::to_string(Objects.size()) + "." + Name,
               Type::i(64), SymbolRole::Free);
  Objects.push_back({Name, Base, Bytes, std::move(Initial), ReadOnly,
                     std::move(AccessedAs)});
  return Base;
}

const Expr *ThreadModel::privateInBounds(const Place &P, unsigned Bits) {
  const PrivateObject &O = Objects[size_t(P.Private)];
  Type I64 = Type::i(64);
  uint64_t Width = Bits / 8;
  if (Width > O.Bytes)
    return C.falseExpr();
  const Expr *Inside =
      C.icmp(ICmpPredicate::Ule, P.Offset, C.constant(I64, O.Bytes - Width));
  if (Width & (Width - 1))
    return Inside;
  const Expr *Aligned =
      C.eq(C.binary(Op::And, P.Offset, C.constant(I64, Width - 1)),
           C.constant(I64, 0));
  return C.andOf(Inside, Aligned);
}

std::pair<const Expr *, const Expr *>
ThreadModel::privateRead(const Place &P, unsigned Bits, const Expr *Guard) {
  const PrivateObject &O = Objects[size_t(P.Private)];
  Type I64 = Type::i(64), T = Type::i(Bits);
  unsigned Width = Bits / 8;
  // A load's value matters only where it runs (Guard: its path and
  // predicate; elsewhere a select at the join discards it). A store whose
  // guard Guard implies took place there, so its guard need not be asked:
  // two stages that spell the same path differently then read alike.
  std::vector<const Expr *> GuardConjuncts = conjunctsOf(Guard);
  std::set<const Expr *> ReadConjuncts(GuardConjuncts.begin(),
                                       GuardConjuncts.end());
  std::vector<PrivateWrite> Writes;
  bool SameWidth = true;
  for (const PrivateWrite &W : PrivateWrites)
    if (W.Object == unsigned(P.Private)) {
      Writes.push_back(W);
      if (guardedAlike(W.Guard, ReadConjuncts)) {
        Writes.back().Guard = C.trueExpr();
        Writes.back().Bits = decidedUnder(W.Bits, ReadConjuncts);
      }
      SameWidth &= W.Bits->type().bits() == Bits;
    }
  // Every access is aligned to its width (privateInBounds), so where all
  // of them are as wide as this one, whole words are forwarded.
  if (SameWidth) {
    const Expr *Value = C.constant(T, 0);
    const Expr *Defined = C.falseExpr();
    if (!O.Initial.empty()) {
      if (O.Bytes / Width > MaxPrivateWords)
        throw UnsupportedError({}, "read of " + O.Name + " as " +
                                       std::to_string(O.Bytes / Width) +
                                       " words");
      for (uint64_t At = 0; At + Width <= O.Bytes; At += Width) {
        uint64_t Word = 0;
        for (unsigned K = 0; K < Width; ++K)
          Word |= uint64_t(O.Initial[At + K]) << (8 * K);
        Value = C.select(C.eq(P.Offset, C.constant(I64, At)),
                         C.constant(T, Word), Value);
      }
      Defined = C.trueExpr();
    }
    for (const PrivateWrite &W : Writes) {
      const Expr *Match = C.andOf(W.Guard, C.eq(W.Offset, P.Offset));
      Value = C.select(Match, W.Bits, Value);
      Defined = C.select(Match, W.Defined, Defined);
    }
    // Stores that all took place, of defined values, at every word of the
    // object: whatever word the load reads inside it is defined (sine's
    // partial products fill their array).
    std::set<uint64_t> Covered;
    bool AllTookPlace = O.Initial.empty();
    for (const PrivateWrite &W : Writes) {
      AllTookPlace &= W.Guard->isTrue() && W.Defined->isTrue();
      if (W.Offset->isConst())
        Covered.insert(W.Offset->constBits());
    }
    bool Filled = AllTookPlace;
    for (uint64_t At = 0; Filled && At + Width <= O.Bytes; At += Width)
      Filled = Covered.count(At) > 0;
    if (Filled)
      Defined = C.trueExpr();
    return {Value, Defined};
  }
  // Stores of other widths: byte by byte, each from the latest store that
  // covers it.
  if (!O.Initial.empty())
    throw UnsupportedError({}, "stores of several widths to " + O.Name +
                                   ", which has an initial content");
  std::vector<const Expr *> Parts;
  const Expr *Defined = C.trueExpr();
  for (unsigned J = 0; J < Width; ++J) {
    const Expr *At = C.add(P.Offset, C.constant(I64, J));
    const Expr *Byte = C.constant(Type::i(8), 0);
    const Expr *ByteDefined = C.falseExpr();
    for (const PrivateWrite &W : Writes) {
      Type WT = W.Bits->type();
      const Expr *Relative = C.sub(At, W.Offset);
      const Expr *Covers = C.andOf(
          W.Guard, C.icmp(ICmpPredicate::Ult, Relative,
                          C.constant(I64, WT.bits() / 8)));
      const Expr *Shift =
          C.zextOrTrunc(C.mul(Relative, C.constant(I64, 8)), WT);
      const Expr *Piece =
          C.cast(Op::Trunc, C.binary(Op::LShr, W.Bits, Shift), Type::i(8));
      if (WT.bits() == 8)
        Piece = W.Bits;
      Byte = C.select(Covers, Piece, Byte);
      ByteDefined = C.select(Covers, W.Defined, ByteDefined);
    }
    Parts.push_back(Byte);
    Defined = C.andOf(Defined, ByteDefined);
  }
  return {concat(Parts), Defined};
}

void ThreadModel::privateStore(const Place &P, const Expr *Raw,
                               const Expr *Guard, const Expr *Defined,
                               const Origin &From) {
  const PrivateObject &O = Objects[size_t(P.Private)];
  if (O.ReadOnly)
    throw UnsupportedError(From.Loc, "store to the constant " + O.Name +
                                         " (" + From.Op + ")");
  addUndefined(
      C.andOf(Guard, C.notOf(privateInBounds(P, Raw->type().bits()))),
      "store outside " + O.Name + " or misaligned", From);
  PrivateWrites.push_back({unsigned(P.Private), Guard, P.Offset, Raw,
                           definedWithOperands(Raw, Defined)});
}

void ThreadModel::refuseEscapedAddresses() {
  if (Objects.empty())
    return;
  std::unordered_map<const Expr *, const Expr *> Layout;
  std::set<const Expr *> Bases;
  for (unsigned K = 0; K < Objects.size(); ++K) {
    Layout[Objects[K].Base] = C.constant(Type::i(64), layoutAddress(K));
    Bases.insert(Objects[K].Base);
  }
  // The wrap tests of address arithmetic on an object ask about its
  // address; any layout in which no object wraps answers them alike.
  for (UndefinedBehavior &U : Result.Effects.Undefined)
    U.Condition = substitute(C, U.Condition, Layout);
  // (The undefined behaviour's conditions, substituted, hold no address.)
  std::vector<const Expr *> Roots = rootsOf(Result);
  for (const GlobalRead &R : Result.GlobalReads)
    Roots.insert(Roots.end(), {R.Guard, R.Index});
  Roots.insert(Roots.end(), Result.Assumptions.begin(),
               Result.Assumptions.end());
  for (const Expr *N : postOrder(Roots))
    if (Bases.count(N))
      throw UnsupportedError({}, "the address of " + N->name() +
                                     " is used as a value");
}

} // namespace stagecheck::ptx

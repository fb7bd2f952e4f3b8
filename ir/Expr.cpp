#include "ir/Expr.h"

#include "ir/FloatOps.h"
#include "ir/Functions.h"
#include "ir/Interpreter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace stagecheck::ir {

//===----------------------------------------------------------------------===//
// Op tables
//===----------------------------------------------------------------------===//

OpCategory category(Op O) {
  switch (O) {
#define OP(Name, Spelling, Category)                                           \
  case Op::Name:                                                               \
    return OpCategory::Category;
#include "ir/Ops.def"
  }
  return OpCategory::Leaf;
}

const char *spelling(Op O) {
  switch (O) {
#define OP(Name, Spelling, Category)                                           \
  case Op::Name:                                                               \
    return Spelling;
#include "ir/Ops.def"
  }
  return "?";
}

bool parseOp(std::string_view Text, Op &Out) {
#define OP(Name, Spelling, Category)                                           \
  if (Text == Spelling) {                                                      \
    Out = Op::Name;                                                            \
    return true;                                                               \
  }
#include "ir/Ops.def"
  return false;
}

bool isCommutative(Op O) {
  switch (O) {
  case Op::Add:
  case Op::Mul:
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::SMin:
  case Op::SMax:
  case Op::UMin:
  case Op::UMax:
  case Op::UMulHi:
  case Op::SMulHi:
  case Op::FAdd:
  case Op::FMul:
  case Op::FMinNum:
  case Op::FMaxNum:
  case Op::FMinimum:
  case Op::FMaximum:
    return true;
  default:
    return false;
  }
}

bool isSymmetricComparison(Op O, uint8_t Attr) {
  if (O == Op::ICmp)
    return ICmpPredicate(Attr) == ICmpPredicate::Eq ||
           ICmpPredicate(Attr) == ICmpPredicate::Ne;
  if (O != Op::FCmp)
    return false;
  switch (FCmpPredicate(Attr)) {
  case FCmpPredicate::Oeq:
  case FCmpPredicate::One:
  case FCmpPredicate::Ord:
  case FCmpPredicate::Ueq:
  case FCmpPredicate::Une:
  case FCmpPredicate::Uno:
    return true;
  default:
    return false;
  }
}

bool hasRounding(Op O) {
  switch (category(O)) {
  case OpCategory::FloatBinaryRounded:
  case OpCategory::FloatUnaryRounded:
  case OpCategory::FloatTernaryRounded:
  case OpCategory::FloatToFloat:
  case OpCategory::FloatToInt:
  case OpCategory::IntToFloat:
    return true;
  default:
    return false;
  }
}

static const char *const ICmpNames[] = {"eq",  "ne",  "ult", "ule", "ugt",
                                        "uge", "slt", "sle", "sgt", "sge"};
static const char *const FCmpNames[] = {"false", "oeq", "ogt", "oge", "olt",
                                        "ole",   "one", "ord", "ueq", "ugt",
                                        "uge",   "ult", "ule", "une", "uno",
                                        "true"};
static const char *const RoundingNames[] = {"rne", "rtz", "rdn", "rup", "rna"};
static const char *const RoleNames[] = {"free",         "param",    "program_id",
                                        "num_programs", "thread_id", "block_dim",
                                        "lane_id"};

const char *spelling(ICmpPredicate P) { return ICmpNames[unsigned(P)]; }
const char *spelling(FCmpPredicate P) { return FCmpNames[unsigned(P)]; }
const char *spelling(RoundingMode M) { return RoundingNames[unsigned(M)]; }
const char *spelling(SymbolRole R) { return RoleNames[unsigned(R)]; }

template <class E, size_t N>
static bool parseName(const char *const (&Names)[N], std::string_view Text,
                      E &Out) {
  for (size_t I = 0; I < N; ++I)
    if (Text == Names[I]) {
      Out = E(I);
      return true;
    }
  return false;
}

bool parseICmpPredicate(std::string_view T, ICmpPredicate &Out) {
  return parseName(ICmpNames, T, Out);
}
bool parseFCmpPredicate(std::string_view T, FCmpPredicate &Out) {
  return parseName(FCmpNames, T, Out);
}
bool parseRoundingMode(std::string_view T, RoundingMode &Out) {
  return parseName(RoundingNames, T, Out);
}
bool parseSymbolRole(std::string_view T, SymbolRole &Out) {
  return parseName(RoleNames, T, Out);
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

namespace {
struct NodeHash {
  size_t operator()(const Expr *E) const {
    // Each word is folded in through a full 64-bit mix (splitmix64's
    // finalizer): operands are small, dense node ids, and a shift-and-add
    // combine maps pairs of them onto the same hash by the dozen, which
    // turns every lookup of a large table into a walk down a long bucket.
    uint64_t H = uint64_t(E->op()) * 0x9E3779B97F4A7C15ull;
    auto Mix = [&](uint64_t V) {
      H = (H ^ V) + 0x9E3779B97F4A7C15ull;
      H = (H ^ (H >> 30)) * 0xBF58476D1CE4E5B9ull;
      H = (H ^ (H >> 27)) * 0x94D049BB133111EBull;
      H ^= H >> 31;
    };
    Mix(E->type().hashValue());
    Mix(E->rawAttribute());
    Mix(E->constBits());
    Mix(reinterpret_cast<uintptr_t>(E->op() == Op::Const ? nullptr
                                                          : nameOf(E)));
    for (const Expr *O : E->operands())
      Mix(O->id());
    return size_t(H);
  }
  static const std::string *nameOf(const Expr *E);
};
struct NodeEq {
  bool operator()(const Expr *A, const Expr *B) const;
};

/// The hash-consing table: open addressing with linear probing over
/// (hash, node) slots, so that a lookup reads the slot array and touches a
/// node only where the full hashes match, and a new node costs no
/// allocation of its own. Interning is most of what rebuilding an
/// expression costs, and a checker rebuilds one per output element.
class NodeTable {
public:
  struct Slot {
    uint64_t Hash = 0;
    const Expr *Node = nullptr;
  };
  /// The slot holding a node equal to Probe, else the empty slot where it
  /// belongs (valid until the next insert).
  Slot &find(const Expr *Probe, uint64_t Hash) {
    size_t Mask = Slots.size() - 1;
    for (size_t I = Hash & Mask;; I = (I + 1) & Mask) {
      Slot &S = Slots[I];
      if (!S.Node || (S.Hash == Hash && NodeEq()(S.Node, Probe)))
        return S;
    }
  }
  void insert(Slot &Empty, const Expr *Node, uint64_t Hash) {
    Empty = {Hash, Node};
    if (++Used * 2 > Slots.size())
      grow();
  }

private:
  void grow() {
    std::vector<Slot> Old(Slots.size() * 2);
    Old.swap(Slots);
    size_t Mask = Slots.size() - 1;
    for (const Slot &S : Old)
      if (S.Node) {
        size_t I = S.Hash & Mask;
        while (Slots[I].Node)
          I = (I + 1) & Mask;
        Slots[I] = S;
      }
  }
  std::vector<Slot> Slots = std::vector<Slot>(1024); // a power of two
  size_t Used = 0;
};
} // namespace

struct Context::Impl {
  std::deque<Expr> Nodes;
  /// Operand lists, carved out of large blocks (one allocation per block,
  /// not per node).
  std::vector<std::unique_ptr<const Expr *[]>> OperandBlocks;
  const Expr **BlockNext = nullptr;
  size_t BlockLeft = 0;
  const Expr **storeOperands(std::span<const Expr *const> Ops) {
    constexpr size_t BlockSize = 1 << 16;
    if (Ops.size() > BlockLeft) {
      size_t Size = std::max(BlockSize, Ops.size());
      OperandBlocks.push_back(std::make_unique<const Expr *[]>(Size));
      BlockNext = OperandBlocks.back().get();
      BlockLeft = Size;
    }
    const Expr **At = BlockNext;
    std::copy(Ops.begin(), Ops.end(), At);
    BlockNext += Ops.size();
    BlockLeft -= Ops.size();
    return At;
  }
  std::unordered_set<std::string> Names;
  NodeTable Table;
  std::unordered_map<std::string, unsigned> FreshCounters;
  Expr Probe; // a node under construction, for lookups
};

const std::string *NodeHash::nameOf(const Expr *E) {
  switch (E->op()) {
  case Op::Symbol:
  case Op::Read:
  case Op::Call:
    return &E->name();
  default:
    return nullptr;
  }
}

bool NodeEq::operator()(const Expr *A, const Expr *B) const {
  if (A->op() != B->op() || A->type() != B->type() ||
      A->rawAttribute() != B->rawAttribute() ||
      A->constBits() != B->constBits() ||
      NodeHash::nameOf(A) != NodeHash::nameOf(B) ||
      A->numOperands() != B->numOperands())
    return false;
  for (unsigned I = 0; I < A->numOperands(); ++I)
    if (A->operand(I) != B->operand(I))
      return false;
  return true;
}

Context::Context() : P(std::make_unique<Impl>()) {}
Context::~Context() = default;

const std::string &Context::intern(std::string_view Name) {
  return *P->Names.emplace(Name).first;
}

size_t Context::numNodes() const { return P->Nodes.size(); }

const Expr *Context::intern(Op O, Type T, std::span<const Expr *const> Ops,
                            uint8_t Attr, const std::string *Name,
                            uint64_t Bits) {
  Expr &Probe = P->Probe;
  Probe.Kind = O;
  Probe.Ty = T;
  Probe.Attr = Attr;
  Probe.Bits = Bits;
  Probe.Name = Name;
  Probe.Operands = Ops.data();
  Probe.NumOperands = unsigned(Ops.size());
  uint64_t Hash = NodeHash()(&Probe);
  NodeTable::Slot &Found = P->Table.find(&Probe, Hash);
  if (Found.Node)
    return Found.Node;
  const Expr **Stored = P->storeOperands(Ops);
  Expr &Node = P->Nodes.emplace_back(Probe);
  Node.Operands = Stored;
  Node.Id = unsigned(P->Nodes.size());
  Node.Symbols = 0;
  if (O == Op::Symbol)
    Node.Symbols = uint64_t(1) << (std::hash<std::string>{}(*Name) % 64);
  Node.Height = 0;
  for (const Expr *Operand : Ops) {
    Node.Symbols |= Operand->Symbols;
    Node.Height = std::max(Node.Height, Operand->Height + 1);
  }
  P->Table.insert(Found, &Node, Hash);
  return &Node;
}

const Expr *Context::constant(Type T, uint64_t Bits) {
  return intern(Op::Const, T, {}, 0, nullptr, Bits & Value::mask(T.bits()));
}

const Expr *Context::floatConst(Type T, double V) {
  return constant(T, fp::fromDouble(V, floatFormat(T), RoundingMode::NearestEven));
}

const Expr *Context::symbol(std::string_view Name, Type T, SymbolRole Role) {
  if (Name.empty())
    throw IRError("a symbol needs a name");
  return intern(Op::Symbol, T, {}, uint8_t(Role), &intern(Name), 0);
}

const Expr *Context::fresh(std::string_view Prefix, Type T, SymbolRole Role) {
  std::string Base(Prefix);
  for (;;) {
    std::string Name = Base + "!" + std::to_string(P->FreshCounters[Base]++);
    if (!P->Names.count(Name))
      return symbol(Name, T, Role);
  }
}

const Expr *Context::read(std::string_view Buffer, Type Elem,
                          const Expr *Index) {
  if (Index->type() != Type::i(64))
    throw IRError("buffer index must be i64, got " + Index->type().str());
  if (Elem.isPtr() && Elem.space() != AddressSpace::Generic &&
      Elem.space() != AddressSpace::Global)
    throw IRError("buffer elements are scalars");
  const Expr *Ops[] = {Index};
  return intern(Op::Read, Elem, Ops, 0, &intern(Buffer), 0);
}

static void expectOperands(Op O, size_t Got, size_t Want) {
  if (Got != Want)
    throw IRError(std::string(spelling(O)) + " takes " + std::to_string(Want) +
                  " operands, got " + std::to_string(Got));
}

static void expectSameTypes(Op O, std::span<const Expr *const> Ops) {
  for (const Expr *E : Ops)
    if (E->type() != Ops[0]->type())
      throw IRError(std::string(spelling(O)) + ": operand types differ (" +
                    Ops[0]->type().str() + " vs " + E->type().str() + ")");
}

static void expect(bool Ok, Op O, const std::string &What) {
  if (!Ok)
    throw IRError(std::string(spelling(O)) + ": " + What);
}

static void expectRounding(Op O, uint8_t Attr) {
  expect(Attr < NumRoundingModes, O, "bad rounding mode");
  expect(RoundingMode(Attr) != RoundingMode::NearestAway ||
             O == Op::FRoundInt || category(O) == OpCategory::FloatToInt,
         O, "rounding to nearest-away is only defined for rounding to integers");
}

Type Context::checkAndInferType(Op O, std::span<const Expr *const> Ops,
                                uint8_t Attr, Type Result,
                                std::string_view Name) {
  auto T0 = [&] { return Ops[0]->type(); };
  switch (category(O)) {
  case OpCategory::Leaf:
    throw IRError(std::string("leaf ") + spelling(O) +
                  " has its own constructor");
  case OpCategory::IntBinary:
    expectOperands(O, Ops.size(), 2);
    expectSameTypes(O, Ops);
    expect(T0().isInt(), O, "needs integers, got " + T0().str());
    return T0();
  case OpCategory::IntUnary:
    expectOperands(O, Ops.size(), 1);
    expect(T0().isInt(), O, "needs an integer, got " + T0().str());
    return T0();
  case OpCategory::ICmp:
    expectOperands(O, Ops.size(), 2);
    expectSameTypes(O, Ops);
    expect(T0().isBitVector(), O, "needs integers or pointers");
    expect(Attr < NumICmpPredicates, O, "bad predicate");
    return Type::boolean();
  case OpCategory::IntCast:
    expectOperands(O, Ops.size(), 1);
    switch (O) {
    case Op::ZExt:
    case Op::SExt:
      expect(T0().isInt() && Result.isInt() && Result.bits() >= T0().bits(), O,
             T0().str() + " cannot be extended to " + Result.str());
      break;
    case Op::Trunc:
      expect(T0().isInt() && Result.isInt() && Result.bits() <= T0().bits(), O,
             T0().str() + " cannot be truncated to " + Result.str());
      break;
    case Op::PtrToInt:
      expect(T0().isPtr() && Result == Type::i(64), O, "is ptr -> i64");
      break;
    default: // IntToPtr
      expect(T0() == Type::i(64) && Result.isPtr(), O, "is i64 -> ptr");
      break;
    }
    return Result;
  case OpCategory::FloatBinaryRounded:
    expectRounding(O, Attr);
    [[fallthrough]];
  case OpCategory::FloatBinary:
    expectOperands(O, Ops.size(), 2);
    expectSameTypes(O, Ops);
    expect(T0().isFloat(), O, "needs floats, got " + T0().str());
    return T0();
  case OpCategory::FloatUnaryRounded:
    expectRounding(O, Attr);
    [[fallthrough]];
  case OpCategory::FloatUnary:
    expectOperands(O, Ops.size(), 1);
    expect(T0().isFloat(), O, "needs a float, got " + T0().str());
    return T0();
  case OpCategory::FloatTernaryRounded:
    expectRounding(O, Attr);
    expectOperands(O, Ops.size(), 3);
    expectSameTypes(O, Ops);
    expect(T0().isFloat(), O, "needs floats, got " + T0().str());
    return T0();
  case OpCategory::FCmp:
    expectOperands(O, Ops.size(), 2);
    expectSameTypes(O, Ops);
    expect(T0().isFloat(), O, "needs floats, got " + T0().str());
    expect(Attr < NumFCmpPredicates, O, "bad predicate");
    return Type::boolean();
  case OpCategory::FloatToFloat:
    expectOperands(O, Ops.size(), 1);
    expectRounding(O, Attr);
    expect(T0().isFloat() && Result.isFloat(), O, "is float -> float");
    return Result;
  case OpCategory::FloatToInt:
    expectOperands(O, Ops.size(), 1);
    expectRounding(O, Attr);
    expect(T0().isFloat() && Result.isInt(), O, "is float -> int");
    return Result;
  case OpCategory::IntToFloat:
    expectOperands(O, Ops.size(), 1);
    expectRounding(O, Attr);
    expect(T0().isInt() && Result.isFloat(), O, "is int -> float");
    return Result;
  case OpCategory::Bitcast:
    expectOperands(O, Ops.size(), 1);
    expect(!T0().isPtr() && !Result.isPtr() && T0().bits() == Result.bits() &&
               (T0().isFloat() || Result.isFloat()),
           O, "cannot reinterpret " + T0().str() + " as " + Result.str());
    return Result;
  case OpCategory::Select:
    expectOperands(O, Ops.size(), 3);
    expect(T0().isBool(), O, "condition must be i1");
    expect(Ops[1]->type() == Ops[2]->type(), O, "arms have different types");
    return Ops[1]->type();
  case OpCategory::Call: {
    const FunctionInfo *F = lookupFunction(Name);
    if (!F)
      throw IRError("unknown function '" + std::string(Name) + "'");
    expectOperands(O, Ops.size(), F->Arity);
    return Result;
  }
  }
  throw IRError("unhandled op category");
}

namespace {
/// Nodes a chain of choices may cost extractBits, and those already cut.
struct ExtractionMemo {
  unsigned Budget = 4096;
  std::map<std::pair<const Expr *, unsigned>, const Expr *> Done; // by Low
};
} // namespace

static const Expr *extractBits(Context &C, const Expr *E, unsigned Low,
                               unsigned Width, ExtractionMemo &Memo);

/// Bits [Low, Low + Width) of E when they are visibly one operand's bits or
/// zero (what taking apart a concatenation of zero-extended, shifted pieces,
/// or a choice between such, gives); nullptr otherwise. The result has
/// Width bits.
static const Expr *extractBits(Context &C, const Expr *E, unsigned Low,
                               unsigned Width) {
  ExtractionMemo Memo;
  return extractBits(C, E, Low, Width, Memo);
}

static const Expr *extractBits(Context &C, const Expr *E, unsigned Low,
                               unsigned Width, ExtractionMemo &Memo) {
  unsigned Bits = E->type().bits();
  if (Low == 0 && Width == Bits)
    return E;
  if (Low >= Bits)
    return C.constant(Type::i(Width), 0);
  auto ConstAmount = [](const Expr *A) -> std::optional<uint64_t> {
    if (A->isConst())
      return A->constBits();
    return std::nullopt;
  };
  switch (E->op()) {
  case Op::ZExt: {
    const Expr *Inner = E->operand(0);
    unsigned InnerBits = Inner->type().bits();
    if (Low >= InnerBits)
      return C.constant(Type::i(Width), 0);
    if (Low + Width <= InnerBits)
      return extractBits(C, Inner, Low, Width, Memo);
    return nullptr;
  }
  case Op::Shl: {
    auto Amount = ConstAmount(E->operand(1));
    if (!Amount || *Amount >= Bits)
      return nullptr;
    if (Low + Width <= *Amount)
      return C.constant(Type::i(Width), 0);
    if (Low >= *Amount)
      return extractBits(C, E->operand(0), Low - unsigned(*Amount), Width, Memo);
    return nullptr;
  }
  case Op::LShr: {
    auto Amount = ConstAmount(E->operand(1));
    if (!Amount || *Amount >= Bits || Low + *Amount + Width > Bits)
      return nullptr;
    return extractBits(C, E->operand(0), Low + unsigned(*Amount), Width, Memo);
  }
  case Op::Or: {
    const Expr *A = extractBits(C, E->operand(0), Low, Width, Memo);
    const Expr *B = extractBits(C, E->operand(1), Low, Width, Memo);
    if (A && A->isConst() && A->constBits() == 0)
      return B;
    if (B && B->isConst() && B->constBits() == 0)
      return A;
    return nullptr;
  }
  case Op::Select: {
    // A choice between pieces is the piece chosen: the low word of a
    // 64-bit shared-memory word read from a choice of stored pairs.
    if (!E->type().isInt())
      return nullptr;
    if (auto It = Memo.Done.find({E, Low}); It != Memo.Done.end())
      return It->second;
    if (Memo.Budget == 0)
      return nullptr;
    --Memo.Budget;
    const Expr *R = nullptr;
    if (const Expr *A = extractBits(C, E->operand(1), Low, Width, Memo))
      if (const Expr *B = extractBits(C, E->operand(2), Low, Width, Memo))
        R = C.select(E->operand(0), A, B);
    Memo.Done[{E, Low}] = R;
    return R;
  }
  default:
    if (E->isConst() && E->type().isInt())
      return C.constant(Type::i(Width),
                        (E->constBits() >> Low) & Value::mask(Width));
    return nullptr;
  }
}

/// Comparisons have one spelling each: "greater" forms become "less" forms
/// with the operands swapped (a > b is b < a), and a negated comparison is
/// its complement; a select on a complemented comparison ("negative" forms:
/// ne, ule, sle, and the unordered float ones) swaps its arms instead. So
/// `select(a >= b, x, y)` and `select(b > a, y, x)` are one node.
static bool swapsOperands(Op O, uint8_t Attr) {
  if (O == Op::ICmp)
    switch (ICmpPredicate(Attr)) {
    case ICmpPredicate::Ugt:
    case ICmpPredicate::Uge:
    case ICmpPredicate::Sgt:
    case ICmpPredicate::Sge:
      return true;
    default:
      return false;
    }
  switch (FCmpPredicate(Attr)) {
  case FCmpPredicate::Ogt:
  case FCmpPredicate::Oge:
  case FCmpPredicate::Ugt:
  case FCmpPredicate::Uge:
    return true;
  default:
    return false;
  }
}

static uint8_t swappedPredicate(Op O, uint8_t Attr) {
  if (O == Op::ICmp)
    switch (ICmpPredicate(Attr)) {
    case ICmpPredicate::Ugt: return uint8_t(ICmpPredicate::Ult);
    case ICmpPredicate::Uge: return uint8_t(ICmpPredicate::Ule);
    case ICmpPredicate::Sgt: return uint8_t(ICmpPredicate::Slt);
    case ICmpPredicate::Sge: return uint8_t(ICmpPredicate::Sle);
    default: return Attr;
    }
  switch (FCmpPredicate(Attr)) {
  case FCmpPredicate::Ogt: return uint8_t(FCmpPredicate::Olt);
  case FCmpPredicate::Oge: return uint8_t(FCmpPredicate::Ole);
  case FCmpPredicate::Ugt: return uint8_t(FCmpPredicate::Ult);
  case FCmpPredicate::Uge: return uint8_t(FCmpPredicate::Ule);
  default: return Attr;
  }
}

/// The negation of a canonical comparison, as a comparison.
static const Expr *complement(Context &C, const Expr *Cmp) {
  const Expr *A = Cmp->operand(0), *B = Cmp->operand(1);
  if (Cmp->op() == Op::ICmp) {
    switch (Cmp->icmpPredicate()) {
    case ICmpPredicate::Eq: return C.icmp(ICmpPredicate::Ne, A, B);
    case ICmpPredicate::Ne: return C.icmp(ICmpPredicate::Eq, A, B);
    case ICmpPredicate::Ult: return C.icmp(ICmpPredicate::Ule, B, A);
    case ICmpPredicate::Ule: return C.icmp(ICmpPredicate::Ult, B, A);
    case ICmpPredicate::Slt: return C.icmp(ICmpPredicate::Sle, B, A);
    case ICmpPredicate::Sle: return C.icmp(ICmpPredicate::Slt, B, A);
    default: return nullptr;
    }
  }
  switch (Cmp->fcmpPredicate()) {
  case FCmpPredicate::Oeq: return C.fcmp(FCmpPredicate::Une, A, B);
  case FCmpPredicate::Une: return C.fcmp(FCmpPredicate::Oeq, A, B);
  case FCmpPredicate::One: return C.fcmp(FCmpPredicate::Ueq, A, B);
  case FCmpPredicate::Ueq: return C.fcmp(FCmpPredicate::One, A, B);
  case FCmpPredicate::Ord: return C.fcmp(FCmpPredicate::Uno, A, B);
  case FCmpPredicate::Uno: return C.fcmp(FCmpPredicate::Ord, A, B);
  case FCmpPredicate::Olt: return C.fcmp(FCmpPredicate::Ule, B, A);
  case FCmpPredicate::Ole: return C.fcmp(FCmpPredicate::Ult, B, A);
  case FCmpPredicate::Ult: return C.fcmp(FCmpPredicate::Ole, B, A);
  case FCmpPredicate::Ule: return C.fcmp(FCmpPredicate::Olt, B, A);
  default: return nullptr;
  }
}

/// A comparison whose select swaps arms rather than keep it.
static bool isNegativeForm(const Expr *Cmp) {
  if (Cmp->op() == Op::ICmp)
    switch (Cmp->icmpPredicate()) {
    case ICmpPredicate::Ne:
    case ICmpPredicate::Ule:
    case ICmpPredicate::Sle:
      return true;
    default:
      return false;
    }
  if (Cmp->op() == Op::FCmp)
    switch (Cmp->fcmpPredicate()) {
    case FCmpPredicate::Une:
    case FCmpPredicate::Ueq:
    case FCmpPredicate::Uno:
    case FCmpPredicate::Ult:
    case FCmpPredicate::Ule:
      return true;
    default:
      return false;
    }
  return false;
}

/// The least binary exponent of E's values when E is a normal constant, or
/// a choice between or a sign change of such; nullopt otherwise.
static std::optional<int> leastNormalExponent(const Expr *E, unsigned Depth = 4) {
  if (E->isConst()) {
    fp::Decoded D = fp::decode(E->constBits(), floatFormat(E->type()));
    if (D.Kind != fp::Class::Normal)
      return std::nullopt;
    // Significand * 2^Exponent with the significand's top bit set.
    return D.Exponent + int(std::bit_width(D.Significand)) - 1;
  }
  if (Depth == 0)
    return std::nullopt;
  if (E->op() == Op::FNeg || E->op() == Op::FAbs)
    return leastNormalExponent(E->operand(0), Depth - 1);
  if (E->op() == Op::Select) {
    auto A = leastNormalExponent(E->operand(1), Depth - 1);
    auto B = leastNormalExponent(E->operand(2), Depth - 1);
    if (A && B)
      return std::min(*A, *B);
  }
  return std::nullopt;
}

/// Whether E is never a subnormal, seen from its shape: a flushed value, a
/// constant, a choice between or a sign change of such, or a sum (fadd,
/// fsub, fma) with an addend z of exponent ez >= emin + 2p (f32: |z| >=
/// 2^-78). For the sum: every float x is a multiple of 2^(ex - p + 1), so
/// when x*y nearly cancels z (ex + ey >= ez - 2) the exact sum is a
/// multiple of 2^(ez - 2p), and otherwise it exceeds |z|/2; a nonzero
/// exact sum is thus at least 2^emin in magnitude, and so is its rounding
/// in any mode.
static bool neverSubnormal(const Expr *E, unsigned Depth = 4) {
  if (E->op() == Op::FFlushSubnormal)
    return true;
  if (E->isConst())
    return fp::decode(E->constBits(), floatFormat(E->type())).Kind !=
           fp::Class::Subnormal;
  if (Depth == 0)
    return false;
  switch (E->op()) {
  case Op::FNeg:
  case Op::FAbs:
    return neverSubnormal(E->operand(0), Depth - 1);
  case Op::Select:
    return neverSubnormal(E->operand(1), Depth - 1) &&
           neverSubnormal(E->operand(2), Depth - 1);
  case Op::FAdd:
  case Op::FSub:
  case Op::Fma: {
    FloatFormat F = floatFormat(E->type());
    int Precision = int(F.MantissaBits) + 1, MinExponent = 1 - F.bias();
    auto LargeAddend = [&](const Expr *Z) {
      auto Exponent = leastNormalExponent(Z);
      return Exponent && *Exponent >= MinExponent + 2 * Precision;
    };
    if (E->op() == Op::Fma)
      return LargeAddend(E->operand(2));
    return LargeAddend(E->operand(0)) || LargeAddend(E->operand(1));
  }
  default:
    return false;
  }
}

/// A value split into a low and a high piece and joined again (an i64 sent
/// through two 32-bit shuffles): `zext(lo) | zext(hi) << w`, lo of w bits,
/// is x when lo and hi are x's two halves, and sext(lo) when hi is lo's
/// sign copied (`ashr lo, w-1`: the high word of a sign extension).
/// nullptr when the pieces are anything else.
static const Expr *rejoinedPieces(Context &C, const Expr *A, const Expr *B,
                                  Type T) {
  for (auto [Low, High] : {std::pair{A, B}, std::pair{B, A}}) {
    if (Low->op() != Op::ZExt || High->op() != Op::Shl ||
        High->operand(0)->op() != Op::ZExt || !High->operand(1)->isConst())
      continue;
    const Expr *Lo = Low->operand(0), *Hi = High->operand(0)->operand(0);
    unsigned Width = Lo->type().bits();
    if (High->operand(1)->constBits() != Width ||
        Width + Hi->type().bits() != T.bits())
      continue;
    if (Lo->op() == Op::Trunc && Lo->operand(0)->type() == T) {
      const Expr *Whole = Lo->operand(0);
      if (Hi == C.cast(Op::Trunc,
                       C.binary(Op::LShr, Whole, C.constant(T, Width)),
                       Hi->type()))
        return Whole;
    }
    if (Hi->type() == Lo->type() &&
        Hi == C.binary(Op::AShr, Lo, C.constant(Lo->type(), Width - 1)))
      return C.cast(Op::SExt, Lo, T);
  }
  return nullptr;
}

/// Integer identities; returns nullptr when none applies.
static const Expr *foldIdentity(Context &C, Op O,
                                std::span<const Expr *const> Ops, Type T,
                                uint8_t Attr) {
  auto IsConst = [](const Expr *E, uint64_t V) {
    return E->isConst() && E->constBits() == (V & Value::mask(E->type().bits()));
  };
  const uint64_t AllOnes = ~uint64_t(0);
  if (category(O) == OpCategory::IntBinary) {
    const Expr *A = Ops[0], *B = Ops[1];
    switch (O) {
    case Op::Add:
    case Op::Or:
    case Op::Xor:
      if (IsConst(B, 0))
        return A;
      if (IsConst(A, 0))
        return B;
      if (A == B && O == Op::Or)
        return A;
      if (A == B && O == Op::Xor)
        return C.constant(T, 0);
      if (O == Op::Xor && T.isBool() && (IsConst(A, 1) || IsConst(B, 1)))
        return C.notOf(IsConst(A, 1) ? B : A);
      if (O == Op::Or && (IsConst(A, AllOnes) || IsConst(B, AllOnes)))
        return C.constant(T, AllOnes);
      if (O == Op::Or)
        return rejoinedPieces(C, A, B, T);
      break;
    case Op::Sub:
      if (IsConst(B, 0))
        return A;
      if (A == B)
        return C.constant(T, 0);
      break;
    case Op::Mul:
      if (IsConst(B, 1))
        return A;
      if (IsConst(A, 1))
        return B;
      if (IsConst(A, 0) || IsConst(B, 0))
        return C.constant(T, 0);
      break;
    case Op::And:
      if (IsConst(B, AllOnes))
        return A;
      if (IsConst(A, AllOnes))
        return B;
      if (IsConst(A, 0) || IsConst(B, 0))
        return C.constant(T, 0);
      if (A == B)
        return A;
      break;
    case Op::Shl:
    case Op::LShr:
    case Op::AShr:
      if (IsConst(B, 0))
        return A;
      break;
    default:
      break;
    }
    return nullptr;
  }
  if ((O == Op::Not || O == Op::Neg) && Ops[0]->op() == O)
    return Ops[0]->operand(0);
  // p | !p and p & !p, with !p spelled as a complemented comparison too
  // (the join after a branch on p and !p).
  if ((O == Op::Or || O == Op::And) && T.isBool()) {
    auto Negates = [&](const Expr *X, const Expr *Y) {
      if (X->op() == Op::Not && X->operand(0) == Y)
        return true;
      if (X->op() == Op::ICmp || X->op() == Op::FCmp)
        return complement(C, X) == Y;
      return false;
    };
    if (Negates(Ops[0], Ops[1]) || Negates(Ops[1], Ops[0]))
      return C.boolean(O == Op::Or);
  }
  if ((O == Op::ICmp || O == Op::FCmp) && swapsOperands(O, Attr)) {
    const Expr *Swapped[] = {Ops[1], Ops[0]};
    return C.make(O, Swapped, swappedPredicate(O, Attr));
  }
  // Booleans compared are boolean operations: a < b (unsigned: false <
  // true) is !a & b, a <= b is !a | b, signed the other way (true is -1),
  // a == b is !(a ^ b).
  if (O == Op::ICmp && Ops[0]->type().isBool()) {
    const Expr *A = Ops[0], *B = Ops[1];
    switch (ICmpPredicate(Attr)) {
    case ICmpPredicate::Eq:
      return C.notOf(C.xorOf(A, B));
    case ICmpPredicate::Ne:
      return C.xorOf(A, B);
    case ICmpPredicate::Ult:
      return C.andOf(C.notOf(A), B);
    case ICmpPredicate::Ule:
      return C.orOf(C.notOf(A), B);
    case ICmpPredicate::Slt:
      return C.andOf(A, C.notOf(B));
    case ICmpPredicate::Sle:
      return C.orOf(A, C.notOf(B));
    default:
      break; // the "greater" forms were swapped above
    }
  }
  // Against a constant, an integer comparison is `x < c` or its
  // complement `c <= x`: c < x is c+1 <= x, and x <= c is x < c+1.
  if (O == Op::ICmp && (Ops[0]->isConst() || Ops[1]->isConst())) {
    ICmpPredicate P = ICmpPredicate(Attr);
    bool Signed = P == ICmpPredicate::Slt || P == ICmpPredicate::Sle;
    unsigned Bits = Ops[0]->type().bits();
    uint64_t Top = Signed ? Value::mask(Bits) >> 1 : Value::mask(Bits);
    auto Next = [&](const Expr *K) -> const Expr * {
      if (K->constBits() == Top)
        return nullptr; // c+1 would wrap
      return C.constant(K->type(), K->constBits() + 1);
    };
    bool Strict = P == ICmpPredicate::Ult || P == ICmpPredicate::Slt;
    ICmpPredicate Loose = Signed ? ICmpPredicate::Sle : ICmpPredicate::Ule;
    ICmpPredicate Tight = Signed ? ICmpPredicate::Slt : ICmpPredicate::Ult;
    if (Strict && Ops[0]->isConst() && !Ops[1]->isConst())
      if (const Expr *K = Next(Ops[0]))
        return C.icmp(Loose, K, Ops[1]);
    if (!Strict && P != ICmpPredicate::Eq && P != ICmpPredicate::Ne &&
        Ops[1]->isConst() && !Ops[0]->isConst())
      if (const Expr *K = Next(Ops[1]))
        return C.icmp(Tight, Ops[0], K);
  }
  if (O == Op::Not && T.isBool() &&
      (Ops[0]->op() == Op::ICmp || Ops[0]->op() == Op::FCmp))
    if (const Expr *Negated = complement(C, Ops[0]))
      return Negated;
  if (O == Op::FNeg && Ops[0]->op() == Op::FNeg)
    return Ops[0]->operand(0);
  // Flushing what is never subnormal keeps it: fftz(fma(a, b, 0.5)) is the
  // fma, so a flushed and an unflushed spelling meet where they agree.
  if (O == Op::FFlushSubnormal && neverSubnormal(Ops[0]))
    return Ops[0];
  // A float compared with itself: only whether it is NaN matters.
  if (O == Op::FCmp && Ops[0] == Ops[1]) {
    switch (FCmpPredicate(Attr)) {
    case FCmpPredicate::Ogt:
    case FCmpPredicate::Olt:
    case FCmpPredicate::One:
      return C.falseExpr();
    case FCmpPredicate::Ueq:
    case FCmpPredicate::Uge:
    case FCmpPredicate::Ule:
      return C.trueExpr();
    case FCmpPredicate::Oeq:
    case FCmpPredicate::Oge:
    case FCmpPredicate::Ole:
      return C.fcmp(FCmpPredicate::Ord, Ops[0], Ops[0]);
    case FCmpPredicate::Une:
    case FCmpPredicate::Ugt:
    case FCmpPredicate::Ult:
      return C.fcmp(FCmpPredicate::Uno, Ops[0], Ops[0]);
    default:
      break;
    }
  }
  if (O == Op::ICmp && Ops[0] == Ops[1]) {
    switch (ICmpPredicate(Attr)) {
    case ICmpPredicate::Eq:
    case ICmpPredicate::Ule:
    case ICmpPredicate::Uge:
    case ICmpPredicate::Sle:
    case ICmpPredicate::Sge:
      return C.trueExpr();
    default:
      return C.falseExpr();
    }
  }
  if (O == Op::Select) {
    if (Ops[0]->isConst())
      return Ops[0]->isTrue() ? Ops[1] : Ops[2];
    // A negated condition swaps the arms.
    if (Ops[0]->op() == Op::Not)
      return C.select(Ops[0]->operand(0), Ops[2], Ops[1]);
    if (isNegativeForm(Ops[0]))
      if (const Expr *Positive = complement(C, Ops[0]))
        return C.select(Positive, Ops[2], Ops[1]);
    // An inner select on the same condition is decided by the outer one.
    if (Ops[1]->op() == Op::Select && Ops[1]->operand(0) == Ops[0])
      return C.select(Ops[0], Ops[1]->operand(1), Ops[2]);
    if (Ops[2]->op() == Op::Select && Ops[2]->operand(0) == Ops[0])
      return C.select(Ops[0], Ops[1], Ops[2]->operand(2));
    // So is an inner condition `c and x`: x where c holds, false where it
    // does not (two lowerings that join the paths of one branch in other
    // orders: sine's huge-argument and infinite cases).
    auto AndWith = [&](const Expr *Inner) -> const Expr * {
      if (Inner->op() != Op::Select || Inner->operand(0)->op() != Op::And)
        return nullptr;
      const Expr *Cond = Inner->operand(0);
      if (Cond->operand(0) == Ops[0])
        return Cond->operand(1);
      if (Cond->operand(1) == Ops[0])
        return Cond->operand(0);
      return nullptr;
    };
    if (const Expr *X = AndWith(Ops[1]))
      return C.select(Ops[0], C.select(X, Ops[1]->operand(1),
                                       Ops[1]->operand(2)),
                      Ops[2]);
    if (AndWith(Ops[2]))
      return C.select(Ops[0], Ops[1], Ops[2]->operand(2));
    // Nested selects that pick the same value merge their conditions, so
    // one choice spelled as `or`-ed predicates and as a chain is one node
    // (the inner select's arms may be either way round).
    if (Ops[2]->op() == Op::Select) {
      const Expr *Inner = Ops[2];
      if (Inner->operand(1) == Ops[1])
        return C.select(C.orOf(Ops[0], Inner->operand(0)), Ops[1],
                        Inner->operand(2));
      if (Inner->operand(2) == Ops[1])
        return C.select(C.orOf(Ops[0], C.notOf(Inner->operand(0))), Ops[1],
                        Inner->operand(1));
    }
    if (Ops[1]->op() == Op::Select) {
      const Expr *Inner = Ops[1];
      if (Inner->operand(2) == Ops[2])
        return C.select(C.andOf(Ops[0], Inner->operand(0)), Inner->operand(1),
                        Ops[2]);
      if (Inner->operand(1) == Ops[2])
        return C.select(C.andOf(Ops[0], C.notOf(Inner->operand(0))),
                        Inner->operand(2), Ops[2]);
    }
    if (Ops[1] == Ops[2])
      return Ops[1];
    if (T.isBool() && Ops[1]->isTrue() && Ops[2]->isFalse())
      return Ops[0];
    if (T.isBool() && Ops[1]->isFalse() && Ops[2]->isTrue())
      return C.notOf(Ops[0]);
  }
  if ((O == Op::ZExt || O == Op::SExt || O == Op::Trunc || O == Op::FPCast) &&
      Ops[0]->type() == T)
    return Ops[0];
  // A piece of a concatenation is that piece. extractBits only yields a
  // node when its bits are exactly the truncation's, so this is exact.
  if (O == Op::Trunc) {
    const Expr *Source = Ops[0];
    // Widened, then cut back to at most the width it had: the low bits of
    // an extension are its operand's (PTX cvt.s64.s32 then cvt.u32.u64).
    if ((Source->op() == Op::SExt || Source->op() == Op::ZExt) &&
        T.bits() <= Source->operand(0)->type().bits())
      return C.cast(Op::Trunc, Source->operand(0), T);
    unsigned Low = 0;
    if (Source->op() == Op::LShr && Source->operand(1)->isConst() &&
        Source->operand(1)->constBits() + T.bits() <= Source->type().bits()) {
      Low = unsigned(Source->operand(1)->constBits());
      Source = Source->operand(0);
    }
    if (Source->op() == Op::ZExt || Source->op() == Op::Or ||
        Source->op() == Op::Shl || Low != 0)
      if (const Expr *Piece = extractBits(C, Source, Low, T.bits()))
        if (Piece->type() == T)
          return Piece;
  }
  // Reinterpreting a choice is the choice of the reinterpretations: a
  // select made on a float's bits (PTX selp.b32) is the float select.
  if (O == Op::Bitcast && Ops[0]->op() == Op::Select)
    return C.select(Ops[0]->operand(0),
                    C.cast(Op::Bitcast, Ops[0]->operand(1), T),
                    C.cast(Op::Bitcast, Ops[0]->operand(2), T));
  // Whether x is NaN does not depend on which non-NaN value it is compared
  // with: uno(x, 0.0) is uno(x, x).
  if (O == Op::FCmp && Ops[0] != Ops[1] &&
      (FCmpPredicate(Attr) == FCmpPredicate::Uno ||
       FCmpPredicate(Attr) == FCmpPredicate::Ord)) {
    auto NotNaN = [](const Expr *E) {
      return E->isConst() &&
             !std::isnan(Value::ofBits(E->type(), E->constBits()).asDouble());
    };
    if (NotNaN(Ops[1]))
      return C.fcmp(FCmpPredicate(Attr), Ops[0], Ops[0]);
    if (NotNaN(Ops[0]))
      return C.fcmp(FCmpPredicate(Attr), Ops[1], Ops[1]);
  }
  // Reinterpreting there and back is the identity: bits that only move
  // (a bitcast, a select, a load and a store) keep a NaN's payload, as in
  // LLVM and on the hardware. Only arithmetic yields the canonical NaN.
  if (O == Op::Bitcast && Ops[0]->op() == Op::Bitcast &&
      Ops[0]->operand(0)->type() == T)
    return Ops[0]->operand(0);
  return nullptr;
}

const Expr *Context::fold(Op O, Type T, std::span<const Expr *const> Ops,
                          uint8_t Attr, const std::string *Name) {
  if (O == Op::Call)
    return nullptr;
  bool AllConst = std::all_of(Ops.begin(), Ops.end(),
                              [](const Expr *E) { return E->isConst(); });
  if (AllConst) {
    std::vector<Value> Values;
    for (const Expr *E : Ops)
      Values.push_back(Value::ofBits(E->type(), E->constBits()));
    Value R = applyOp(O, T, Values, Attr);
    return constant(R.Ty, R.Bits);
  }
  return foldIdentity(*this, O, Ops, T, Attr);
}

const Expr *Context::withOperands(const Expr *E,
                                  std::span<const Expr *const> Operands) {
  if (std::equal(Operands.begin(), Operands.end(), E->operands().begin(),
                 E->operands().end()))
    return E;
  switch (E->op()) {
  case Op::Const:
  case Op::Symbol:
    return E;
  case Op::Read:
    return read(E->name(), E->type(), Operands[0]);
  case Op::Call:
    return call(E->name(), E->type(), Operands);
  default:
    break;
  }
  // The checks and the type depend on the operands' types alone, and E
  // passed them: operands of the same types need them no more (most of a
  // rewrite's rebuilds).
  bool SameTypes = Operands.size() == E->numOperands();
  for (size_t I = 0; SameTypes && I < Operands.size(); ++I)
    SameTypes = Operands[I] && Operands[I]->type() == E->operand(I)->type();
  if (SameTypes)
    return makeTyped(E->op(), E->type(), Operands, E->rawAttribute(), {});
  return make(E->op(), Operands, E->rawAttribute(), E->type());
}

const Expr *Context::make(Op O, std::span<const Expr *const> Operands,
                          uint8_t Attr, Type Result, std::string_view Name) {
  for (const Expr *E : Operands)
    if (!E)
      throw IRError(std::string(spelling(O)) + ": null operand");
  Type T = checkAndInferType(O, Operands, Attr, Result, Name);
  return makeTyped(O, T, Operands, Attr, Name);
}

const Expr *Context::makeTyped(Op O, Type T,
                               std::span<const Expr *const> Operands,
                               uint8_t Attr, std::string_view Name) {
  // A copy to order, on the stack for the usual few operands.
  constexpr size_t Few = 4;
  const Expr *Stack[Few];
  std::vector<const Expr *> Heap;
  std::span<const Expr *> Ops;
  if (Operands.size() <= Few) {
    std::copy(Operands.begin(), Operands.end(), Stack);
    Ops = {Stack, Operands.size()};
  } else {
    Heap.assign(Operands.begin(), Operands.end());
    Ops = Heap;
  }
  if (isCommutative(O) && Ops[1]->id() < Ops[0]->id())
    std::swap(Ops[0], Ops[1]);
  if (O == Op::Fma && Ops[1]->id() < Ops[0]->id())
    std::swap(Ops[0], Ops[1]);
  if (isSymmetricComparison(O, Attr) && !Ops[1]->isConst() &&
      (Ops[0]->isConst() || Ops[1]->id() < Ops[0]->id()))
    std::swap(Ops[0], Ops[1]);
  const std::string *N = O == Op::Call ? &intern(Name) : nullptr;
  if (const Expr *Folded = fold(O, T, Ops, Attr, N))
    return Folded;
  return intern(O, T, Ops, Attr, N, 0);
}

const Expr *Context::icmp(ICmpPredicate P, const Expr *A, const Expr *B) {
  const Expr *Ops[] = {A, B};
  return make(Op::ICmp, Ops, uint8_t(P));
}

const Expr *Context::fcmp(FCmpPredicate P, const Expr *A, const Expr *B) {
  const Expr *Ops[] = {A, B};
  return make(Op::FCmp, Ops, uint8_t(P));
}

const Expr *Context::existing(Op O, Type T,
                              std::span<const Expr *const> Ops,
                              uint8_t Attr) const {
  Expr &Probe = P->Probe;
  Probe.Kind = O;
  Probe.Ty = T;
  Probe.Attr = Attr;
  Probe.Bits = 0;
  Probe.Name = nullptr;
  Probe.Operands = Ops.data();
  Probe.NumOperands = unsigned(Ops.size());
  return P->Table.find(&Probe, NodeHash()(&Probe)).Node;
}

/// X with each value a square of it could take put in one orientation:
/// a - b and b - a (in a rounding that is symmetric about zero), -y and y,
/// -k and k differ at most in sign, which a square loses; a select's arms
/// each, since the square takes one of them. Returns X when nothing turns.
/// A difference turns only to a reverse that exists already and is older:
/// an order by operands would separate the square from the difference's
/// other uses ((x - mean)^2 beside (x - mean) * rstd), while two spellings
/// of one kernel in one context meet on the one built first.
const Expr *squaredAlike(Context &C, const Expr *X) {
  switch (X->op()) {
  case Op::FSub: {
    RoundingMode M = X->rounding();
    bool Symmetric = M == RoundingMode::NearestEven ||
                     M == RoundingMode::TowardZero ||
                     M == RoundingMode::NearestAway;
    const Expr *Reversed[] = {X->operand(1), X->operand(0)};
    const Expr *Other =
        Symmetric ? C.existing(Op::FSub, X->type(), Reversed, X->rawAttribute())
                  : nullptr;
    return Other && Other->id() < X->id() ? Other : X;
  }
  case Op::FNeg:
    return squaredAlike(C, X->operand(0));
  case Op::Const: {
    uint64_t Sign = uint64_t(1) << (X->type().bits() - 1);
    return X->type().isFloat() && (X->constBits() & Sign)
               ? C.constant(X->type(), X->constBits() & ~Sign)
               : X;
  }
  case Op::Select: {
    const Expr *T = squaredAlike(C, X->operand(1));
    const Expr *F = squaredAlike(C, X->operand(2));
    if (T == X->operand(1) && F == X->operand(2))
      return X;
    return C.select(X->operand(0), T, F);
  }
  default:
    return X;
  }
}

const Expr *Context::floatBinary(Op O, const Expr *A, const Expr *B,
                                 RoundingMode M) {
  // x * x is (-x) * (-x) bit for bit in every rounding (the exact products
  // are one number): squares of a difference and of its reverse are one
  // node.
  if (O == Op::FMul && A == B)
    A = B = squaredAlike(*this, A);
  const Expr *Ops[] = {A, B};
  return make(O, Ops, hasRounding(O) ? uint8_t(M) : 0);
}

const Expr *Context::fma(const Expr *A, const Expr *B, const Expr *C,
                         RoundingMode M) {
  const Expr *Ops[] = {A, B, C};
  return make(Op::Fma, Ops, uint8_t(M));
}

const Expr *Context::select(const Expr *C, const Expr *T, const Expr *F) {
  const Expr *Ops[] = {C, T, F};
  return make(Op::Select, Ops);
}

const Expr *Context::cast(Op O, const Expr *A, Type To, RoundingMode M) {
  const Expr *Ops[] = {A};
  return make(O, Ops, hasRounding(O) ? uint8_t(M) : 0, To);
}

const Expr *Context::call(std::string_view Function, Type Result,
                          std::span<const Expr *const> Args) {
  return make(Op::Call, Args, 0, Result, Function);
}

const Expr *Context::zextOrTrunc(const Expr *A, Type To) {
  if (A->type().bits() < To.bits())
    return cast(Op::ZExt, A, To);
  return cast(Op::Trunc, A, To);
}

const Expr *Context::sextOrTrunc(const Expr *A, Type To) {
  if (A->type().bits() < To.bits())
    return cast(Op::SExt, A, To);
  return cast(Op::Trunc, A, To);
}

std::vector<const Expr *> conjunctsOf(const Expr *E) {
  std::vector<const Expr *> Out, Work = {E};
  while (!Work.empty()) {
    const Expr *N = Work.back();
    Work.pop_back();
    if (N->op() == Op::And && N->type().isBool()) {
      for (auto It = N->operands().rbegin(); It != N->operands().rend(); ++It)
        Work.push_back(*It);
    } else if (!N->isTrue()) {
      Out.push_back(N);
    }
  }
  return Out;
}

bool isProductOfVariables(const Expr *N) {
  switch (N->op()) {
  case Op::Mul:
    return !N->operand(0)->isConst() && !N->operand(1)->isConst();
  case Op::UMulHi:
  case Op::SMulHi:
  case Op::UDiv:
  case Op::SDiv:
  case Op::URem:
  case Op::SRem:
    return true;
  default:
    return false;
  }
}

std::vector<const Expr *> postOrder(std::span<const Expr *const> Roots) {
  std::vector<const Expr *> Order;
  std::unordered_set<const Expr *> Seen;
  std::vector<std::pair<const Expr *, bool>> Stack;
  for (auto It = Roots.rbegin(); It != Roots.rend(); ++It)
    Stack.push_back({*It, false});
  while (!Stack.empty()) {
    auto [E, Expanded] = Stack.back();
    Stack.pop_back();
    if (Expanded) {
      if (Seen.insert(E).second)
        Order.push_back(E);
      continue;
    }
    if (Seen.count(E))
      continue;
    Stack.push_back({E, true});
    for (unsigned I = E->numOperands(); I-- > 0;)
      if (!Seen.count(E->operand(I)))
        Stack.push_back({E->operand(I), false});
  }
  return Order;
}

} // namespace stagecheck::ir

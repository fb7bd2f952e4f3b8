#include "layout/Encoding.h"

#include "ir/Errors.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace stagecheck::layout {

//===----------------------------------------------------------------------===//
// The data model
//===----------------------------------------------------------------------===//

bool CTALayout::isTrivial() const {
  return std::all_of(CTAsPerCGA.begin(), CTAsPerCGA.end(),
                     [](unsigned C) { return C == 1; });
}

unsigned NVMMASharedEncoding::vec() const {
  return SwizzlingByteWidth == 0 ? 1 : 128 / ElementBitWidth;
}
unsigned NVMMASharedEncoding::perPhase() const {
  return SwizzlingByteWidth == 0 ? 1 : 128 / SwizzlingByteWidth;
}
unsigned NVMMASharedEncoding::maxPhase() const {
  return SwizzlingByteWidth == 0 ? 1 : SwizzlingByteWidth / 16;
}

std::optional<unsigned> Encoding::rank() const {
  switch (kind()) {
  case Kind::Blocked:
    return blocked().Order.size();
  case Kind::Slice:
    return *slice().Parent->rank() - 1;
  case Kind::NvidiaMma:
    return mma().WarpsPerCTA.size();
  case Kind::DotOperand:
    return dotOperand().Parent->rank();
  case Kind::SwizzledShared:
    return swizzledShared().Order.size();
  case Kind::NVMMAShared:
    if (nvmmaShared().CTA)
      return nvmmaShared().CTA->CTAOrder.size();
    return std::nullopt;
  }
  return std::nullopt;
}

static unsigned product(const std::vector<unsigned> &V) {
  unsigned P = 1;
  for (unsigned X : V)
    P *= X;
  return P;
}

unsigned Encoding::threadsPerWarp() const {
  switch (kind()) {
  case Kind::Blocked:
    return product(blocked().ThreadsPerWarp);
  case Kind::Slice:
    return slice().Parent->threadsPerWarp();
  case Kind::DotOperand:
    return dotOperand().Parent->threadsPerWarp();
  default:
    return 32;
  }
}

unsigned Encoding::warpsPerCTA() const {
  switch (kind()) {
  case Kind::Blocked:
    return product(blocked().WarpsPerCTA);
  case Kind::Slice:
    return slice().Parent->warpsPerCTA();
  case Kind::NvidiaMma:
    return product(mma().WarpsPerCTA);
  case Kind::DotOperand:
    return dotOperand().Parent->warpsPerCTA();
  default:
    return 1;
  }
}

static std::string list(const std::vector<unsigned> &V) {
  std::string S = "[";
  for (unsigned I = 0; I < V.size(); ++I)
    S += (I ? ", " : "") + std::to_string(V[I]);
  return S + "]";
}

static std::string ctaFields(const std::optional<CTALayout> &C) {
  if (!C)
    return "";
  return ", CTAsPerCGA = " + list(C->CTAsPerCGA) +
         ", CTASplitNum = " + list(C->CTASplitNum) +
         ", CTAOrder = " + list(C->CTAOrder);
}

std::string Encoding::str() const {
  switch (kind()) {
  case Kind::Blocked: {
    const auto &B = blocked();
    return "#ttg.blocked<{sizePerThread = " + list(B.SizePerThread) +
           ", threadsPerWarp = " + list(B.ThreadsPerWarp) +
           ", warpsPerCTA = " + list(B.WarpsPerCTA) +
           ", order = " + list(B.Order) + ctaFields(B.CTA) + "}>";
  }
  case Kind::Slice:
    return "#ttg.slice<{dim = " + std::to_string(slice().Dim) +
           ", parent = " + slice().Parent->str() + "}>";
  case Kind::NvidiaMma: {
    const auto &M = mma();
    return "#ttg.nvidia_mma<{versionMajor = " + std::to_string(M.VersionMajor) +
           ", versionMinor = " + std::to_string(M.VersionMinor) +
           ", warpsPerCTA = " + list(M.WarpsPerCTA) + ctaFields(M.CTA) +
           ", instrShape = " + list(M.InstrShape) + "}>";
  }
  case Kind::DotOperand:
    return "#ttg.dot_op<{opIdx = " + std::to_string(dotOperand().OpIdx) +
           ", parent = " + dotOperand().Parent->str() +
           ", kWidth = " + std::to_string(dotOperand().KWidth) + "}>";
  case Kind::SwizzledShared: {
    const auto &S = swizzledShared();
    return "#ttg.swizzled_shared<{vec = " + std::to_string(S.Vec) +
           ", perPhase = " + std::to_string(S.PerPhase) +
           ", maxPhase = " + std::to_string(S.MaxPhase) +
           ", order = " + list(S.Order) + ctaFields(S.CTA) + "}>";
  }
  case Kind::NVMMAShared: {
    const auto &N = nvmmaShared();
    return "#ttg.nvmma_shared<{swizzlingByteWidth = " +
           std::to_string(N.SwizzlingByteWidth) +
           ", transposed = " + (N.Transposed ? "true" : "false") +
           ", elementBitWidth = " + std::to_string(N.ElementBitWidth) +
           (N.FP4Padded ? ", fp4Padded = true" : "") + ctaFields(N.CTA) + "}>";
  }
  }
  return "";
}

std::vector<int64_t> layoutShapeOfMemDesc(const Encoding &E,
                                          const std::vector<int64_t> &Shape) {
  unsigned Rank = E.rank().value_or(2);
  if (Shape.size() <= Rank)
    return Shape;
  return std::vector<int64_t>(Shape.end() - Rank, Shape.end());
}

//===----------------------------------------------------------------------===//
// The parser
//===----------------------------------------------------------------------===//

namespace {

/// One field value: an integer, a boolean, a list of integers, or a nested
/// encoding; with the offset where it starts, for messages.
struct FieldValue {
  enum class Kind { Int, Bool, List, Encoding } K = Kind::Int;
  int64_t Int = 0;
  bool Bool = false;
  std::vector<int64_t> List;
  EncodingPtr Enc;
  size_t Offset = 0;
};

class Parser {
public:
  Parser(std::string_view Text, const AliasResolver &Aliases,
         const ir::SourceLocation &Where, unsigned Depth)
      : Text(Text), Aliases(Aliases), Where(Where), Depth(Depth) {}

  EncodingPtr parseAll() {
    EncodingPtr E = encoding();
    skipSpace();
    if (Pos != Text.size())
      fail(Pos, "unexpected text after the encoding");
    return E;
  }

private:
  std::string_view Text;
  const AliasResolver &Aliases;
  ir::SourceLocation Where;
  unsigned Depth;
  size_t Pos = 0;

  [[noreturn]] void fail(size_t At, const std::string &Message) const {
    ir::SourceLocation L = Where;
    if (L.Line)
      L.Column += unsigned(At);
    throw ir::InputError(L, Message);
  }
  [[noreturn]] void unsupported(size_t At, const std::string &What) const {
    ir::SourceLocation L = Where;
    if (L.Line)
      L.Column += unsigned(At);
    throw ir::UnsupportedError(L, What);
  }

  void skipSpace() {
    while (Pos < Text.size() && std::isspace((unsigned char)Text[Pos]))
      ++Pos;
  }
  bool peek(char C) {
    skipSpace();
    return Pos < Text.size() && Text[Pos] == C;
  }
  void expect(char C, const char *What) {
    if (!peek(C))
      fail(Pos, std::string("expected '") + C + "' " + What);
    ++Pos;
  }
  std::string name() {
    skipSpace();
    size_t Start = Pos;
    while (Pos < Text.size() && (std::isalnum((unsigned char)Text[Pos]) ||
                                 Text[Pos] == '_' || Text[Pos] == '.'))
      ++Pos;
    if (Start == Pos)
      fail(Pos, "expected a name");
    return std::string(Text.substr(Start, Pos - Start));
  }
  int64_t integer() {
    skipSpace();
    size_t Start = Pos;
    if (Pos < Text.size() && Text[Pos] == '-')
      ++Pos;
    size_t Digits = Pos;
    while (Pos < Text.size() && std::isdigit((unsigned char)Text[Pos]))
      ++Pos;
    if (Digits == Pos)
      fail(Start, "expected an integer");
    if (Pos - Digits > 9)
      fail(Start, "integer too large");
    return std::stoll(std::string(Text.substr(Start, Pos - Start)));
  }

  FieldValue value() {
    skipSpace();
    FieldValue V;
    V.Offset = Pos;
    if (peek('#')) {
      V.K = FieldValue::Kind::Encoding;
      V.Enc = encoding();
      return V;
    }
    if (peek('[')) {
      ++Pos;
      V.K = FieldValue::Kind::List;
      if (peek(']')) {
        ++Pos;
        return V;
      }
      while (true) {
        V.List.push_back(integer());
        if (peek(',')) {
          ++Pos;
          continue;
        }
        expect(']', "to close the list");
        return V;
      }
    }
    skipSpace();
    if (Pos < Text.size() &&
        (std::isdigit((unsigned char)Text[Pos]) || Text[Pos] == '-')) {
      V.Int = integer();
      return V;
    }
    std::string Word = name();
    if (Word == "true" || Word == "false") {
      V.K = FieldValue::Kind::Bool;
      V.Bool = Word == "true";
      return V;
    }
    fail(V.Offset, "expected a value, found '" + Word + "'");
  }

  EncodingPtr alias(const std::string &Name, size_t At) {
    std::optional<AliasText> Def = Aliases ? Aliases(Name) : std::nullopt;
    if (!Def)
      fail(At, "unknown attribute alias #" + Name);
    if (Depth > 16)
      fail(At, "attribute aliases nested too deeply at #" + Name);
    Parser Inner(Def->Text, Aliases, Def->Where, Depth + 1);
    return Inner.parseAll();
  }

  EncodingPtr encoding() {
    skipSpace();
    size_t Start = Pos;
    expect('#', "to start an encoding");
    std::string Name = name();
    if (!peek('<')) {
      if (Name.find('.') != std::string::npos)
        fail(Start, "#" + Name + " is not a layout encoding");
      return alias(Name, Start);
    }
    ++Pos;
    expect('{', "after '<'");
    std::map<std::string, FieldValue> Fields;
    std::vector<std::string> Order;
    if (!peek('}')) {
      while (true) {
        skipSpace();
        size_t KeyAt = Pos;
        std::string Key = name();
        expect('=', "after the field name");
        FieldValue V = value();
        if (Fields.count(Key))
          fail(KeyAt, "field '" + Key + "' given twice");
        Fields[Key] = std::move(V);
        Fields[Key].Offset = KeyAt;
        Order.push_back(Key);
        if (peek(',')) {
          ++Pos;
          continue;
        }
        break;
      }
    }
    expect('}', "to close the fields");
    expect('>', "to close the encoding");
    return build(Name, Start, Fields);
  }

  // --- Fields -------------------------------------------------------------

  struct FieldReader {
    Parser &P;
    std::string Kind;
    size_t Start;
    std::map<std::string, FieldValue> &Fields;
    std::set<std::string> Used;

    const FieldValue &get(const std::string &Key, FieldValue::Kind K,
                          const char *What) {
      auto It = Fields.find(Key);
      if (It == Fields.end())
        P.fail(Start, Kind + " needs field '" + Key + "'");
      if (It->second.K != K)
        P.fail(It->second.Offset,
               "field '" + Key + "' of " + Kind + " must be " + What);
      Used.insert(Key);
      return It->second;
    }
    bool has(const std::string &Key) const { return Fields.count(Key); }
    unsigned uint(const std::string &Key) {
      const FieldValue &V = get(Key, FieldValue::Kind::Int, "an integer");
      if (V.Int < 0)
        P.fail(V.Offset, "field '" + Key + "' must not be negative");
      return unsigned(V.Int);
    }
    bool boolean(const std::string &Key) {
      return get(Key, FieldValue::Kind::Bool, "true or false").Bool;
    }
    std::vector<unsigned> uints(const std::string &Key) {
      const FieldValue &V = get(Key, FieldValue::Kind::List, "a list");
      std::vector<unsigned> R;
      for (int64_t X : V.List) {
        if (X < 0)
          P.fail(V.Offset, "field '" + Key + "' must not hold negatives");
        R.push_back(unsigned(X));
      }
      return R;
    }
    EncodingPtr encoding(const std::string &Key) {
      return get(Key, FieldValue::Kind::Encoding, "an encoding").Enc;
    }
    size_t at(const std::string &Key) const { return Fields.at(Key).Offset; }

    std::optional<CTALayout> cta(size_t Rank) {
      bool Any = has("CTAsPerCGA") || has("CTASplitNum") || has("CTAOrder");
      if (!Any)
        return std::nullopt;
      CTALayout C{uints("CTAsPerCGA"), uints("CTASplitNum"), uints("CTAOrder")};
      if (C.CTAsPerCGA.size() != Rank || C.CTASplitNum.size() != Rank ||
          C.CTAOrder.size() != Rank)
        P.fail(at("CTAsPerCGA"), "CTA fields of " + Kind + " must have rank " +
                                     std::to_string(Rank));
      P.checkPermutation(C.CTAOrder, at("CTAOrder"), "CTAOrder");
      return C;
    }

    /// Every field must have been read: anything else is a typo or a
    /// field this parser does not know.
    void finish() {
      for (const auto &[Key, V] : Fields)
        if (!Used.count(Key))
          P.fail(V.Offset, "unknown field '" + Key + "' in " + Kind);
    }
  };

  void checkPermutation(const std::vector<unsigned> &Order, size_t At,
                        const std::string &Field) const {
    std::vector<unsigned> Sorted = Order;
    std::sort(Sorted.begin(), Sorted.end());
    for (unsigned I = 0; I < Sorted.size(); ++I)
      if (Sorted[I] != I)
        fail(At, Field + " must be a permutation of 0.." +
                     std::to_string(Order.size() - 1));
  }
  void checkPowersOf2(const std::vector<unsigned> &V, size_t At,
                      const std::string &Field) const {
    for (unsigned X : V)
      if (X == 0 || (X & (X - 1)))
        fail(At,
             Field + " must hold powers of two, found " + std::to_string(X));
  }
  void checkPowerOf2(unsigned X, size_t At, const std::string &Field) const {
    checkPowersOf2({X}, At, Field);
  }
  void checkRank(const std::vector<unsigned> &V, size_t Rank, size_t At,
                 const std::string &Field) const {
    if (V.size() != Rank)
      fail(At, Field + " has " + std::to_string(V.size()) +
                   " entries; the layout has rank " + std::to_string(Rank));
  }

  EncodingPtr build(const std::string &Name, size_t Start,
                    std::map<std::string, FieldValue> &Fields) {
    FieldReader R{*this, "#" + Name, Start, Fields, {}};
    if (Name == "ttg.blocked") {
      BlockedEncoding B;
      B.SizePerThread = R.uints("sizePerThread");
      B.ThreadsPerWarp = R.uints("threadsPerWarp");
      B.WarpsPerCTA = R.uints("warpsPerCTA");
      B.Order = R.uints("order");
      size_t Rank = B.Order.size();
      if (Rank == 0)
        fail(R.at("order"), "a blocked layout needs rank 1 or more");
      checkRank(B.SizePerThread, Rank, R.at("sizePerThread"), "sizePerThread");
      checkRank(B.ThreadsPerWarp, Rank, R.at("threadsPerWarp"),
                "threadsPerWarp");
      checkRank(B.WarpsPerCTA, Rank, R.at("warpsPerCTA"), "warpsPerCTA");
      checkPowersOf2(B.SizePerThread, R.at("sizePerThread"), "sizePerThread");
      checkPowersOf2(B.ThreadsPerWarp, R.at("threadsPerWarp"),
                     "threadsPerWarp");
      checkPowersOf2(B.WarpsPerCTA, R.at("warpsPerCTA"), "warpsPerCTA");
      checkPermutation(B.Order, R.at("order"), "order");
      B.CTA = R.cta(Rank);
      R.finish();
      return std::make_shared<Encoding>(std::move(B));
    }
    if (Name == "ttg.slice") {
      SliceEncoding S;
      S.Dim = R.uint("dim");
      S.Parent = R.encoding("parent");
      R.finish();
      if (!S.Parent->isDistributed())
        fail(R.at("parent"), "the parent of a slice must be a distributed "
                             "layout");
      if (*S.Parent->rank() < 2)
        fail(R.at("parent"), "the parent of a slice needs rank 2 or more");
      if (S.Dim >= *S.Parent->rank())
        fail(R.at("dim"), "slice dim " + std::to_string(S.Dim) +
                              " is outside the parent's rank " +
                              std::to_string(*S.Parent->rank()));
      return std::make_shared<Encoding>(std::move(S));
    }
    if (Name == "ttg.nvidia_mma") {
      NvidiaMmaEncoding M;
      M.VersionMajor = R.uint("versionMajor");
      M.VersionMinor = R.uint("versionMinor");
      M.WarpsPerCTA = R.uints("warpsPerCTA");
      M.InstrShape = R.uints("instrShape");
      size_t Rank = M.WarpsPerCTA.size();
      M.CTA = R.cta(Rank);
      R.finish();
      if (M.VersionMajor != 2 && M.VersionMajor != 3)
        unsupported(R.at("versionMajor"),
                    "unsupported nvidia_mma version " +
                        std::to_string(M.VersionMajor) +
                        " (only Ampere v2 and Hopper v3 are modelled)");
      if (Rank != 2 && Rank != 3)
        fail(R.at("warpsPerCTA"), "an mma layout has rank 2 or 3");
      checkPowersOf2(M.WarpsPerCTA, R.at("warpsPerCTA"), "warpsPerCTA");
      size_t InstrRank = M.isHopper() ? 3 : Rank;
      if (M.InstrShape.size() != InstrRank)
        fail(R.at("instrShape"),
             "instrShape of an mma v" + std::to_string(M.VersionMajor) +
                 " layout of rank " + std::to_string(Rank) + " needs " +
                 std::to_string(InstrRank) + " entries, found " +
                 std::to_string(M.InstrShape.size()));
      checkPowersOf2(M.InstrShape, R.at("instrShape"), "instrShape");
      if (M.isHopper() && Rank != 2)
        unsupported(R.at("warpsPerCTA"), "mma v3 layouts of rank 3");
      return std::make_shared<Encoding>(std::move(M));
    }
    if (Name == "ttg.dot_op") {
      DotOperandEncoding D;
      D.OpIdx = R.uint("opIdx");
      D.Parent = R.encoding("parent");
      D.KWidth = R.has("kWidth") ? R.uint("kWidth") : 0;
      R.finish();
      if (D.OpIdx > 1)
        fail(R.at("opIdx"), "opIdx is 0 or 1");
      auto PK = D.Parent->kind();
      if (PK != Encoding::Kind::NvidiaMma && PK != Encoding::Kind::Blocked)
        unsupported(R.at("parent"), "dot operands of a parent other than "
                                    "nvidia_mma or blocked");
      if (*D.Parent->rank() != 2 && *D.Parent->rank() != 3)
        fail(R.at("parent"), "a dot operand has rank 2 or 3");
      if (PK == Encoding::Kind::NvidiaMma) {
        if (!R.has("kWidth"))
          fail(Start, "a dot operand of an mma layout needs kWidth");
        checkPowerOf2(D.KWidth, R.at("kWidth"), "kWidth");
        if (D.Parent->mma().isHopper() && D.OpIdx == 1)
          unsupported(R.at("opIdx"), "operand B of an mma v3 (wgmma) dot "
                                     "in registers (wgmma reads it from "
                                     "shared memory)");
      }
      return std::make_shared<Encoding>(std::move(D));
    }
    if (Name == "ttg.swizzled_shared") {
      SwizzledSharedEncoding S;
      S.Vec = R.uint("vec");
      S.PerPhase = R.uint("perPhase");
      S.MaxPhase = R.uint("maxPhase");
      S.Order = R.uints("order");
      if (S.Order.empty())
        fail(R.at("order"), "a shared layout needs rank 1 or more");
      checkPermutation(S.Order, R.at("order"), "order");
      checkPowerOf2(S.Vec, R.at("vec"), "vec");
      checkPowerOf2(S.PerPhase, R.at("perPhase"), "perPhase");
      checkPowerOf2(S.MaxPhase, R.at("maxPhase"), "maxPhase");
      S.CTA = R.cta(S.Order.size());
      R.finish();
      return std::make_shared<Encoding>(std::move(S));
    }
    if (Name == "ttg.nvmma_shared") {
      NVMMASharedEncoding N;
      N.SwizzlingByteWidth = R.uint("swizzlingByteWidth");
      N.Transposed = R.has("transposed") ? R.boolean("transposed") : false;
      N.ElementBitWidth = R.uint("elementBitWidth");
      N.FP4Padded = R.has("fp4Padded") ? R.boolean("fp4Padded") : false;
      unsigned W = N.SwizzlingByteWidth;
      if (W != 0 && W != 32 && W != 64 && W != 128)
        fail(R.at("swizzlingByteWidth"),
             "swizzlingByteWidth is 0, 32, 64 or 128");
      unsigned E = N.ElementBitWidth;
      if (E != 8 && E != 16 && E != 32 && E != 64)
        fail(R.at("elementBitWidth"), "elementBitWidth is 8, 16, 32 or 64");
      if (R.has("CTAOrder"))
        N.CTA = R.cta(R.uints("CTAOrder").size());
      R.finish();
      if (N.FP4Padded)
        unsupported(R.at("fp4Padded"), "fp4-padded nvmma_shared layouts");
      return std::make_shared<Encoding>(std::move(N));
    }
    if (Name.rfind("ttg.", 0) == 0)
      unsupported(Start, "unsupported layout encoding #" + Name);
    fail(Start, "#" + Name + " is not a TritonGPU layout encoding");
  }
};

} // namespace

EncodingPtr parseEncoding(std::string_view Text, const AliasResolver &Aliases,
                          const ir::SourceLocation &Where) {
  Parser P(Text, Aliases, Where, 0);
  return P.parseAll();
}

std::map<std::string, AliasText>
parseAliasDefinitions(std::string_view ModuleText, const std::string &File) {
  std::map<std::string, AliasText> Table;
  unsigned Line = 0;
  size_t Start = 0;
  while (Start <= ModuleText.size()) {
    size_t End = ModuleText.find('\n', Start);
    if (End == std::string_view::npos)
      End = ModuleText.size();
    std::string_view L = ModuleText.substr(Start, End - Start);
    ++Line;
    if (!L.empty() && L.back() == '\r')
      L.remove_suffix(1);
    if (L.size() > 1 && L[0] == '#') {
      size_t Eq = L.find(" = ");
      size_t NameEnd = 1;
      while (NameEnd < L.size() &&
             (std::isalnum((unsigned char)L[NameEnd]) || L[NameEnd] == '_'))
        ++NameEnd;
      if (Eq != std::string_view::npos && Eq == NameEnd) {
        std::string Name(L.substr(1, NameEnd - 1));
        size_t TextAt = Eq + 3;
        Table[Name] = {std::string(L.substr(TextAt)),
                       {File, Line, unsigned(TextAt + 1)}};
      }
    }
    if (End == ModuleText.size())
      break;
    Start = End + 1;
  }
  return Table;
}

AliasResolver resolverFor(const std::map<std::string, AliasText> &Table) {
  return [&Table](std::string_view Name) -> std::optional<AliasText> {
    auto It = Table.find(std::string(Name));
    if (It == Table.end())
      return std::nullopt;
    return It->second;
  };
}

} // namespace stagecheck::layout

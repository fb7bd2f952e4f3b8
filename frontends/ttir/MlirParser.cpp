//===- MlirParser.cpp - Reads the MLIR text Triton writes -----------------===//
//
// A recursive-descent parser over characters: MLIR's grammar is
// context-sensitive in places (`32x32xf16` in a shape, `%c-1_i32` as a name),
// which a separate tokenizer would get wrong. Pretty op forms are read by one
// generic scanner (operands, keywords, `key = value` clauses, attribute
// dictionaries, the trailing type list, the location); ops whose syntax
// holds regions (scf.for, scf.if, scf.while, tt.func) have their own rules.
//
//===----------------------------------------------------------------------===//
#include "frontends/ttir/Mlir.h"

#include "ir/Errors.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace stagecheck::ttir {

//===----------------------------------------------------------------------===//
// Small accessors
//===----------------------------------------------------------------------===//

const Attr *Attr::get(std::string_view Key) const {
  for (const auto &[K, V] : Entries)
    if (K == Key)
      return V.get();
  return nullptr;
}

std::optional<int64_t> Attr::asInt() const {
  if (K == Kind::Int)
    return IntValue;
  if (K == Kind::Bool)
    return BoolValue ? 1 : 0;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Attr::asInts() const {
  if (K != Kind::Array)
    return std::nullopt;
  std::vector<int64_t> Out;
  for (const AttrPtr &E : Elements) {
    std::optional<int64_t> V = E->asInt();
    if (!V)
      return std::nullopt;
    Out.push_back(*V);
  }
  return Out;
}

const Attr *Operation::attr(std::string_view Key) const {
  for (const auto &[K, V] : Attributes)
    if (K == Key)
      return V.get();
  return nullptr;
}

unsigned Operation::numResults() const {
  unsigned N = 0;
  for (const auto &R : Results)
    N += R.second;
  return N;
}

const Function *Module::kernel() const {
  for (const Function &F : Functions)
    if (F.Public)
      return &F;
  return Functions.size() == 1 ? &Functions.front() : nullptr;
}

const Function *Module::function(std::string_view Name) const {
  for (const Function &F : Functions)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

std::optional<int64_t> Module::intAttribute(std::string_view Key) const {
  for (const auto &[K, V] : Attributes)
    if (K == Key)
      return V->asInt();
  return std::nullopt;
}

namespace {

/// Every known position a location leads to, innermost (callee) first.
void positions(const Module &M, const LocPtr &L,
               std::vector<ir::SourceLocation> &Out, unsigned Depth) {
  if (!L || Depth > 64)
    return;
  switch (L->K) {
  case Loc::Kind::Unknown:
    return;
  case Loc::Kind::FileLineCol:
    Out.push_back({L->Text, L->Line, L->Column});
    return;
  case Loc::Kind::Name:
  case Loc::Kind::Fused:
  case Loc::Kind::CallSite: // callee, then caller
    for (const LocPtr &C : L->Children)
      positions(M, C, Out, Depth + 1);
    return;
  case Loc::Kind::Alias: {
    auto It = M.LocAliases.find(L->Text);
    if (It != M.LocAliases.end())
      positions(M, It->second, Out, Depth + 1);
    return;
  }
  }
}

} // namespace

std::string Module::kernelFile() const {
  const Function *K = kernel();
  if (!K)
    return "";
  std::vector<ir::SourceLocation> P;
  positions(*this, K->Location, P, 0);
  return P.empty() ? "" : P.front().File;
}

ir::SourceLocation Module::resolve(const LocPtr &L) const {
  std::vector<ir::SourceLocation> P;
  positions(*this, L, P, 0);
  if (P.empty())
    return {};
  std::string Own = kernelFile();
  for (const ir::SourceLocation &S : P)
    if (S.File == Own)
      return S;
  return P.back();
}

std::string printType(const MType &T) { return T.Text; }

//===----------------------------------------------------------------------===//
// The parser
//===----------------------------------------------------------------------===//

namespace {

bool isIdentStart(char C) { return std::isalpha((unsigned char)C) || C == '_'; }
bool isIdentChar(char C) {
  return std::isalnum((unsigned char)C) || C == '_' || C == '$' || C == '.';
}
bool isSuffixChar(char C) { return isIdentChar(C) || C == '-'; }

std::vector<unsigned> toUnsigned(const std::vector<int64_t> &V) {
  return std::vector<unsigned>(V.begin(), V.end());
}

class Parser {
public:
  Parser(const std::string &Text, const std::string &Path) : S(Text) {
    M.Path = Path;
    LineStarts.push_back(0);
    for (size_t I = 0; I < S.size(); ++I)
      if (S[I] == '\n')
        LineStarts.push_back(I + 1);
  }

  Module parse() {
    readAliases();
    P = 0;
    for (;;) {
      ws();
      if (P >= S.size())
        break;
      if (peek() == '#') { // an alias definition, read before
        skipLine();
        continue;
      }
      if (eatWord("module")) {
        parseModuleOp();
        continue;
      }
      if (lookingAtWord("tt.func")) {
        parseFunction();
        continue;
      }
      fail("expected 'module' or an alias definition");
    }
    if (M.Functions.empty())
      fail("no function in the file");
    return std::move(M);
  }

private:
  const std::string &S;
  size_t P = 0;
  std::vector<size_t> LineStarts;
  Module M;

  //===--------------------------------------------------------------------===//
  // Positions and errors
  //===--------------------------------------------------------------------===//

  FilePos pos(size_t At) const {
    auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), At);
    size_t Line = size_t(It - LineStarts.begin());
    return {unsigned(Line), unsigned(At - LineStarts[Line - 1] + 1)};
  }
  FilePos pos() const { return pos(P); }

  [[noreturn]] void fail(const std::string &Message) const {
    FilePos F = pos(std::min(P, S.size()));
    throw ir::InputError({M.Path, F.Line, F.Column}, Message);
  }
  [[noreturn]] void failAt(FilePos F, const std::string &Message) const {
    throw ir::InputError({M.Path, F.Line, F.Column}, Message);
  }

  //===--------------------------------------------------------------------===//
  // Characters
  //===--------------------------------------------------------------------===//

  char peek(size_t Ahead = 0) const {
    return P + Ahead < S.size() ? S[P + Ahead] : '\0';
  }
  bool atEnd() const { return P >= S.size(); }

  void ws() {
    while (P < S.size()) {
      char C = S[P];
      if (C == ' ' || C == '\t' || C == '\n' || C == '\r')
        ++P;
      else if (C == '/' && peek(1) == '/')
        skipLine();
      else
        break;
    }
  }
  void wsInline() {
    while (P < S.size() && (S[P] == ' ' || S[P] == '\t' || S[P] == '\r'))
      ++P;
  }
  bool atLineEnd() {
    wsInline();
    return atEnd() || peek() == '\n' || (peek() == '/' && peek(1) == '/');
  }
  void skipLine() {
    while (P < S.size() && S[P] != '\n')
      ++P;
  }

  bool lookingAt(std::string_view T) const {
    return S.compare(P, T.size(), T) == 0;
  }
  bool eat(std::string_view T) {
    if (!lookingAt(T))
      return false;
    P += T.size();
    return true;
  }
  bool lookingAtWord(std::string_view W) const {
    return lookingAt(W) && !isSuffixChar(P + W.size() < S.size() ? S[P + W.size()] : ' ');
  }
  bool eatWord(std::string_view W) {
    if (!lookingAtWord(W))
      return false;
    P += W.size();
    return true;
  }
  void expect(std::string_view T) {
    ws();
    if (!eat(T))
      fail("expected '" + std::string(T) + "'");
  }

  std::string ident() {
    if (!isIdentStart(peek()))
      fail("expected an identifier");
    size_t Start = P;
    while (P < S.size() && isIdentChar(S[P]))
      ++P;
    return S.substr(Start, P - Start);
  }

  /// After '%', '^' or '#': a suffix id (letters, digits, $ . _ -).
  std::string suffixId() {
    size_t Start = P;
    while (P < S.size() && isSuffixChar(S[P]))
      ++P;
    if (P == Start)
      fail("expected a name");
    return S.substr(Start, P - Start);
  }

  std::string stringLiteral() {
    if (!eat("\""))
      fail("expected a string");
    std::string Out;
    while (P < S.size() && S[P] != '"') {
      char C = S[P++];
      if (C == '\n')
        fail("unterminated string");
      if (C != '\\') {
        Out += C;
        continue;
      }
      char E = peek();
      ++P;
      if (E == 'n')
        Out += '\n';
      else if (E == 't')
        Out += '\t';
      else if (E == '"' || E == '\\')
        Out += E;
      else if (std::isxdigit((unsigned char)E) &&
               std::isxdigit((unsigned char)peek())) {
        Out += char(std::stoi(S.substr(P - 1, 2), nullptr, 16));
        ++P;
      } else
        Out += E;
    }
    if (!eat("\""))
      fail("unterminated string");
    return Out;
  }

  unsigned unsignedNumber() {
    if (!std::isdigit((unsigned char)peek()))
      fail("expected a number");
    size_t Start = P;
    while (std::isdigit((unsigned char)peek()))
      ++P;
    return unsigned(std::stoul(S.substr(Start, P - Start)));
  }

  /// A numeric literal: integer, float, or 0x hex (a float's bit pattern
  /// where a float is expected).
  AttrPtr number() {
    size_t Start = P;
    auto A = std::make_shared<Attr>();
    if (peek() == '-' || peek() == '+')
      ++P;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      P += 2;
      while (std::isxdigit((unsigned char)peek()))
        ++P;
      A->K = Attr::Kind::Int;
      A->Text = S.substr(Start, P - Start);
      A->IntValue = int64_t(std::stoull(A->Text, nullptr, 16));
      return A;
    }
    if (!std::isdigit((unsigned char)peek()))
      fail("expected a number");
    bool IsFloat = false;
    while (std::isdigit((unsigned char)peek()))
      ++P;
    if (peek() == '.' && std::isdigit((unsigned char)peek(1))) {
      IsFloat = true;
      ++P;
      while (std::isdigit((unsigned char)peek()))
        ++P;
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (std::isdigit((unsigned char)peek(1)) ||
         ((peek(1) == '-' || peek(1) == '+') &&
          std::isdigit((unsigned char)peek(2))))) {
      IsFloat = true;
      P += 2;
      while (std::isdigit((unsigned char)peek()))
        ++P;
    }
    A->Text = S.substr(Start, P - Start);
    if (IsFloat) {
      A->K = Attr::Kind::Float;
      A->FloatValue = std::strtod(A->Text.c_str(), nullptr);
    } else {
      A->K = Attr::Kind::Int;
      errno = 0;
      A->IntValue = std::strtoll(A->Text.c_str(), nullptr, 10);
      if (errno == ERANGE) // e.g. an unsigned 64-bit literal
        A->IntValue = int64_t(std::strtoull(A->Text.c_str(), nullptr, 10));
    }
    return A;
  }

  //===--------------------------------------------------------------------===//
  // Aliases and locations
  //===--------------------------------------------------------------------===//

  /// Alias definitions sit at the start of lines, outside the module; #loc
  /// definitions often follow the module. Reading them first lets every
  /// use find its definition.
  void readAliases() {
    for (size_t Start : LineStarts) {
      if (Start >= S.size() || S[Start] != '#')
        continue;
      P = Start + 1;
      std::string Name = suffixId();
      ws();
      if (!eat("="))
        fail("expected '=' in the definition of #" + Name);
      ws();
      if (lookingAt("loc("))
        M.LocAliases[Name] = location();
      else
        M.Aliases[Name] = attribute();
    }
  }

  /// `loc(...)`.
  LocPtr location() {
    if (!eat("loc("))
      fail("expected 'loc('");
    ws();
    LocPtr L = locationInner();
    expect(")");
    return L;
  }

  LocPtr locationInner() {
    ws();
    auto L = std::make_shared<Loc>();
    if (eat("#")) {
      L->K = Loc::Kind::Alias;
      L->Text = suffixId();
      return L;
    }
    if (eatWord("unknown"))
      return L;
    if (eatWord("callsite")) {
      expect("(");
      L->K = Loc::Kind::CallSite;
      L->Children.push_back(locationInner());
      ws();
      if (!eatWord("at"))
        fail("expected 'at' in a callsite location");
      L->Children.push_back(locationInner());
      expect(")");
      return L;
    }
    if (eatWord("fused")) {
      L->K = Loc::Kind::Fused;
      if (peek() == '<') // fused<metadata>[...]
        skipBalanced('<', '>');
      expect("[");
      ws();
      while (!eat("]")) {
        L->Children.push_back(locationInner());
        ws();
        eat(",");
        ws();
      }
      return L;
    }
    if (peek() == '"') {
      std::string Text = stringLiteral();
      if (eat(":")) {
        L->K = Loc::Kind::FileLineCol;
        L->Text = Text;
        L->Line = unsignedNumber();
        if (eat(":"))
          L->Column = unsignedNumber();
        if (eat(" to ") || eat("to")) { // a range: keep its start
          while (P < S.size() && S[P] != ')')
            ++P;
        }
        return L;
      }
      L->K = Loc::Kind::Name;
      L->Text = Text;
      if (eat("(")) {
        L->Children.push_back(locationInner());
        expect(")");
      }
      return L;
    }
    fail("unrecognised location");
  }

  void skipBalanced(char Open, char Close) {
    int Depth = 0;
    do {
      if (atEnd())
        fail(std::string("unbalanced '") + Open + "'");
      char C = S[P++];
      if (C == '"') {
        --P;
        stringLiteral();
        continue;
      }
      if (C == Open)
        ++Depth;
      else if (C == Close)
        --Depth;
    } while (Depth > 0);
  }

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  static TypePtr intType(unsigned Bits, std::string Text) {
    auto T = std::make_shared<MType>();
    T->K = MType::Kind::Int;
    T->Bits = Bits;
    T->Text = std::move(Text);
    return T;
  }

  TypePtr type() {
    ws();
    size_t Start = P;
    TypePtr T = typeBody();
    auto Mutable = std::const_pointer_cast<MType>(T);
    if (Mutable->Text.empty())
      Mutable->Text = S.substr(Start, P - Start);
    return T;
  }

  TypePtr typeBody() {
    auto T = std::make_shared<MType>();
    if (peek() == '(') { // a function type
      T->K = MType::Kind::Function;
      T->Inputs = typeList('(', ')');
      ws();
      if (eat("->")) {
        ws();
        if (peek() == '(')
          T->Results = typeList('(', ')');
        else
          T->Results.push_back(type());
      }
      return T;
    }
    if (peek() == '<') { // the memdesc form async copies print: <32x32xf16, ...>
      ++P;
      memdescBody(*T);
      return T;
    }
    if (eat("!")) {
      std::string Name = suffixId();
      if (Name == "tt.ptr") {
        T->K = MType::Kind::Ptr;
        expect("<");
        T->Elem = type();
        ws();
        if (eat(",")) {
          ws();
          T->AddressSpace = unsignedNumber();
        }
        expect(">");
        return T;
      }
      if (Name == "ttg.memdesc") {
        expect("<");
        memdescBody(*T);
        return T;
      }
      if (Name == "ttg.async.token") {
        T->K = MType::Kind::Token;
        return T;
      }
      T->K = MType::Kind::Other;
      if (peek() == '<')
        skipBalanced('<', '>');
      return T;
    }
    size_t WordStart = P;
    std::string Word = ident();
    if (Word == "tensor") {
      T->K = MType::Kind::Tensor;
      expect("<");
      T->Shape = dimensions();
      T->Elem = type();
      ws();
      if (eat(",")) {
        ws();
        AttrPtr E = attribute();
        T->Encoding = E->Layout;
        ws();
      }
      expect(">");
      return T;
    }
    if (Word.size() > 1 && Word[0] == 'i' &&
        std::all_of(Word.begin() + 1, Word.end(), ::isdigit))
      return intType(unsigned(std::stoul(Word.substr(1))), Word);
    T->K = MType::Kind::Float;
    static const std::pair<const char *, std::pair<MType::FloatKind, unsigned>>
        Floats[] = {{"f16", {MType::FloatKind::F16, 16}},
                    {"bf16", {MType::FloatKind::BF16, 16}},
                    {"f32", {MType::FloatKind::F32, 32}},
                    {"f64", {MType::FloatKind::F64, 64}},
                    {"tf32", {MType::FloatKind::TF32, 19}},
                    {"f8E4M3FN", {MType::FloatKind::F8E4M3FN, 8}},
                    {"f8E5M2", {MType::FloatKind::F8E5M2, 8}}};
    for (const auto &[Name, Info] : Floats)
      if (Word == Name) {
        T->FK = Info.first;
        T->Bits = Info.second;
        return T;
      }
    if (Word.rfind("f8", 0) == 0 || Word.rfind("f4", 0) == 0 ||
        Word.rfind("f6", 0) == 0) {
      T->FK = MType::FloatKind::Other;
      T->Bits = 8;
      return T;
    }
    if (Word == "index") {
      T->K = MType::Kind::Index;
      T->Bits = 64;
      return T;
    }
    if (Word == "none") {
      T->K = MType::Kind::None;
      return T;
    }
    failAt(pos(WordStart), "unknown type '" + Word + "'");
  }

  /// `32x32x` before an element type (the trailing 'x' is consumed).
  std::vector<int64_t> dimensions() {
    std::vector<int64_t> Dims;
    for (;;) {
      ws();
      size_t Save = P;
      if (!std::isdigit((unsigned char)peek()))
        break;
      unsigned D = unsignedNumber();
      if (!eat("x")) {
        P = Save;
        break;
      }
      Dims.push_back(D);
    }
    return Dims;
  }

  /// After '<': dims x elem, encoding, memory space, `mutable`, alloc shape.
  void memdescBody(MType &T) {
    T.K = MType::Kind::MemDesc;
    T.Shape = dimensions();
    T.Elem = type();
    unsigned Attrs = 0;
    for (;;) {
      ws();
      if (eat(">"))
        return;
      if (!eat(","))
        fail("expected ',' or '>' in a memdesc type");
      ws();
      if (eatWord("mutable")) {
        T.Mutable = true;
        continue;
      }
      if (std::isdigit((unsigned char)peek())) { // the allocation's shape
        while (std::isdigit((unsigned char)peek()) || peek() == 'x')
          ++P;
        continue;
      }
      size_t Start = P;
      AttrPtr A = attribute();
      if (Attrs++ == 0)
        T.Encoding = A->Layout;
      else
        T.MemorySpace = S.substr(Start, P - Start);
    }
  }

  std::vector<TypePtr> typeList(char Open, char Close) {
    std::vector<TypePtr> Out;
    if (peek() != Open)
      fail(std::string("expected '") + Open + "'");
    ++P;
    ws();
    if (peek() == Close) {
      ++P;
      return Out;
    }
    for (;;) {
      Out.push_back(type());
      ws();
      if (peek() == '{') // result attributes of a function type
        skipBalanced('{', '}');
      ws();
      if (peek() == Close) {
        ++P;
        return Out;
      }
      if (!eat(","))
        fail("expected ',' in a type list");
    }
  }

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  AttrPtr dictionary() {
    auto D = std::make_shared<Attr>();
    D->K = Attr::Kind::Dict;
    expect("{");
    ws();
    if (eat("}"))
      return D;
    for (;;) {
      ws();
      std::string Key = peek() == '"' ? stringLiteral() : suffixId();
      ws();
      AttrPtr V;
      if (eat("=")) {
        ws();
        V = attribute();
      } else {
        auto U = std::make_shared<Attr>();
        U->K = Attr::Kind::Unit;
        V = U;
      }
      D->Entries.push_back({Key, V});
      ws();
      if (eat("}"))
        return D;
      if (!eat(","))
        fail("expected ',' or '}' in an attribute dictionary");
    }
  }

  /// `: type` after a literal, when present.
  void optionalType(Attr &A) {
    size_t Save = P;
    wsInline();
    if (peek() == ':' && peek(1) != ':') {
      ++P;
      wsInline();
      if (lookingAt("loc(")) {
        P = Save;
        return;
      }
      A.Ty = type();
      return;
    }
    P = Save;
  }

  AttrPtr attribute(bool WithType = true) {
    ws();
    char C = peek();
    if (C == '{')
      return dictionary();
    if (C == '[') {
      auto A = std::make_shared<Attr>();
      A->K = Attr::Kind::Array;
      ++P;
      ws();
      while (!eat("]")) {
        A->Elements.push_back(attribute());
        ws();
        if (!eat(",") && peek() != ']')
          fail("expected ',' or ']' in an array");
        ws();
      }
      return A;
    }
    if (C == '"') {
      auto A = std::make_shared<Attr>();
      A->K = Attr::Kind::String;
      A->Text = stringLiteral();
      if (WithType)
        optionalType(*A);
      return A;
    }
    if (C == '@') {
      ++P;
      auto A = std::make_shared<Attr>();
      A->K = Attr::Kind::Symbol;
      A->Text = peek() == '"' ? stringLiteral() : suffixId();
      return A;
    }
    if (C == '#')
      return hashAttribute();
    if (std::isdigit((unsigned char)C) || C == '-' || C == '+') {
      AttrPtr N = number();
      if (WithType)
        optionalType(*std::const_pointer_cast<Attr>(N));
      return N;
    }
    if (C == '!' || C == '(') {
      auto A = std::make_shared<Attr>();
      A->K = Attr::Kind::Type;
      A->Ty = type();
      return A;
    }
    if (!isIdentStart(C))
      fail("expected an attribute");
    size_t Start = P;
    std::string Word = ident();
    auto A = std::make_shared<Attr>();
    if (Word == "true" || Word == "false") {
      A->K = Attr::Kind::Bool;
      A->BoolValue = Word == "true";
      return A;
    }
    if (Word == "unit") {
      A->K = Attr::Kind::Unit;
      return A;
    }
    if (Word == "dense" && peek() == '<') {
      ++P;
      A->K = Attr::Kind::Dense;
      denseElements(*A);
      if (WithType)
        optionalType(*A);
      return A;
    }
    if ((Word == "array" || Word == "dense_resource") && peek() == '<') {
      ++P;
      A->K = Attr::Kind::Array;
      ws();
      A->Ty = type();
      ws();
      if (eat(":")) {
        ws();
        while (peek() != '>') {
          A->Elements.push_back(attribute(false));
          ws();
          eat(",");
          ws();
        }
      }
      expect(">");
      return A;
    }
    if (Word == "tensor" || Word == "index" || Word == "none" ||
        Word == "f16" || Word == "bf16" || Word == "f32" || Word == "f64" ||
        (Word.size() > 1 && Word[0] == 'i' &&
         std::all_of(Word.begin() + 1, Word.end(), ::isdigit))) {
      P = Start;
      A->K = Attr::Kind::Type;
      A->Ty = type();
      return A;
    }
    A->K = Attr::Kind::Keyword;
    A->Text = Word;
    if (peek() == '<') { // e.g. overflow<nsw>, fastmath<fast>
      size_t BodyStart = P;
      skipBalanced('<', '>');
      A->Text += S.substr(BodyStart, P - BodyStart);
    }
    return A;
  }

  void denseElements(Attr &A) {
    ws();
    if (eat(">"))
      return;
    if (peek() == '"') { // a hex blob "0x..."
      auto E = std::make_shared<Attr>();
      E->K = Attr::Kind::String;
      E->Text = stringLiteral();
      A.Elements.push_back(E);
      expect(">");
      return;
    }
    int Depth = 0;
    for (;;) {
      ws();
      if (eat("[")) {
        ++Depth;
        continue;
      }
      if (eat("]")) {
        --Depth;
        continue;
      }
      if (eat(","))
        continue;
      if (Depth == 0 && eat(">"))
        return;
      if (lookingAt("(")) // complex literals are not used by Triton
        fail("complex dense literals are not supported");
      A.Elements.push_back(attribute(false));
    }
  }

  AttrPtr hashAttribute() {
    ++P; // '#'
    std::string Name = suffixId();
    if (Name.find('.') == std::string::npos) {
      auto It = M.Aliases.find(Name);
      if (It == M.Aliases.end())
        fail("use of undefined attribute alias #" + Name);
      return It->second;
    }
    auto A = std::make_shared<Attr>();
    A->K = Attr::Kind::Dialect;
    A->Text = Name;
    size_t Start = P - Name.size() - 1;
    if (peek() == '<') {
      ++P;
      ws();
      if (peek() == '{')
        A->Body = dictionary();
      else {
        size_t BodyStart = P;
        --P;
        skipBalanced('<', '>');
        --P;
        auto B = std::make_shared<Attr>();
        B->K = Attr::Kind::Keyword;
        B->Text = S.substr(BodyStart, P - BodyStart);
        A->Body = B;
      }
      expect(">");
    }
    A->Layout = decodeLayout(*A, S.substr(Start, P - Start));
    return A;
  }

  LayoutPtr decodeLayout(const Attr &A, const std::string &Text) {
    static const std::pair<const char *, Layout::Kind> Kinds[] = {
        {"ttg.blocked", Layout::Kind::Blocked},
        {"ttg.slice", Layout::Kind::Slice},
        {"ttg.nvidia_mma", Layout::Kind::NvidiaMma},
        {"ttg.dot_op", Layout::Kind::DotOperand},
        {"ttg.swizzled_shared", Layout::Kind::SwizzledShared},
        {"ttg.nvmma_shared", Layout::Kind::NVMMAShared},
        {"ttg.shared_memory", Layout::Kind::SharedMemory}};
    auto L = std::make_shared<Layout>();
    L->Name = A.Text;
    L->Text = Text;
    for (const auto &[N, K] : Kinds)
      if (A.Text == N)
        L->K = K;
    const Attr *B = A.Body.get();
    auto Ints = [&](const char *Key) -> std::vector<unsigned> {
      const Attr *V = B ? B->get(Key) : nullptr;
      if (!V)
        return {};
      std::optional<std::vector<int64_t>> I = V->asInts();
      if (!I)
        fail(std::string("'") + Key + "' of #" + A.Text +
             " must be a list of integers");
      return toUnsigned(*I);
    };
    auto Int = [&](const char *Key, unsigned Default = 0) -> unsigned {
      const Attr *V = B ? B->get(Key) : nullptr;
      if (!V)
        return Default;
      std::optional<int64_t> I = V->asInt();
      if (!I)
        fail(std::string("'") + Key + "' of #" + A.Text + " must be an integer");
      return unsigned(*I);
    };
    auto ParentLayout = [&](const char *Key) -> LayoutPtr {
      const Attr *V = B ? B->get(Key) : nullptr;
      return V ? V->Layout : nullptr;
    };
    auto Require = [&](bool Ok, const char *What) {
      if (!Ok)
        fail("#" + A.Text + " lacks " + What);
    };
    L->CTAsPerCGA = Ints("CTAsPerCGA");
    L->CTASplitNum = Ints("CTASplitNum");
    L->CTAOrder = Ints("CTAOrder");
    switch (L->K) {
    case Layout::Kind::Blocked:
      L->SizePerThread = Ints("sizePerThread");
      L->ThreadsPerWarp = Ints("threadsPerWarp");
      L->WarpsPerCTA = Ints("warpsPerCTA");
      L->Order = Ints("order");
      Require(!L->SizePerThread.empty() &&
                  L->ThreadsPerWarp.size() == L->SizePerThread.size() &&
                  L->WarpsPerCTA.size() == L->SizePerThread.size() &&
                  L->Order.size() == L->SizePerThread.size(),
              "sizePerThread, threadsPerWarp, warpsPerCTA and order of one rank");
      break;
    case Layout::Kind::Slice:
      L->Dim = int(Int("dim"));
      L->Parent = ParentLayout("parent");
      Require(L->Parent != nullptr, "a parent layout");
      break;
    case Layout::Kind::NvidiaMma:
      L->VersionMajor = Int("versionMajor");
      L->VersionMinor = Int("versionMinor");
      L->WarpsPerCTA = Ints("warpsPerCTA");
      L->InstrShape = Ints("instrShape");
      Require(!L->WarpsPerCTA.empty(), "warpsPerCTA");
      break;
    case Layout::Kind::DotOperand:
      L->OpIdx = Int("opIdx");
      L->KWidth = Int("kWidth");
      L->Parent = ParentLayout("parent");
      Require(L->Parent != nullptr, "a parent layout");
      break;
    case Layout::Kind::SwizzledShared:
      L->Vec = Int("vec", 1);
      L->PerPhase = Int("perPhase", 1);
      L->MaxPhase = Int("maxPhase", 1);
      L->Order = Ints("order");
      break;
    case Layout::Kind::NVMMAShared:
      L->SwizzlingByteWidth = Int("swizzlingByteWidth");
      L->ElementBitWidth = Int("elementBitWidth");
      L->Transposed = Int("transposed") != 0;
      L->FP4Padded = Int("fp4Padded") != 0;
      break;
    default:
      break;
    }
    return L;
  }

  //===--------------------------------------------------------------------===//
  // Module, functions, regions
  //===--------------------------------------------------------------------===//

  void parseModuleOp() {
    ws();
    if (peek() == '@') { // a named module
      ++P;
      suffixId();
      ws();
    }
    if (eatWord("attributes")) {
      ws();
      AttrPtr D = dictionary();
      M.Attributes = D->Entries;
    }
    expect("{");
    for (;;) {
      ws();
      if (eat("}"))
        break;
      if (atEnd())
        fail("unterminated module");
      if (lookingAtWord("tt.func")) {
        parseFunction();
        continue;
      }
      Operation Ignored; // other module-level ops carry no kernel semantics
      parseOp(Ignored);
    }
    wsInline();
    if (lookingAt("loc("))
      location();
  }

  void parseFunction() {
    Function F;
    F.Pos = pos();
    eatWord("tt.func");
    ws();
    for (;;) {
      if (eatWord("public"))
        F.Public = true;
      else if (eatWord("private") || eatWord("nested"))
        F.Public = false;
      else
        break;
      ws();
    }
    if (!eat("@"))
      fail("expected the function's @name");
    F.Name = peek() == '"' ? stringLiteral() : suffixId();
    expect("(");
    ws();
    if (!eat(")")) {
      for (;;) {
        ws();
        BlockArg A;
        if (!eat("%"))
          fail("expected a function argument");
        A.Name = suffixId();
        expect(":");
        A.Ty = type();
        ws();
        if (peek() == '{')
          A.Attributes = dictionary()->Entries;
        ws();
        if (lookingAt("loc("))
          A.Location = location();
        F.Args.push_back(std::move(A));
        ws();
        if (eat(")"))
          break;
        if (!eat(","))
          fail("expected ',' or ')' after a function argument");
      }
    }
    ws();
    if (eat("->")) {
      ws();
      if (peek() == '(')
        F.ResultTypes = typeList('(', ')');
      else
        F.ResultTypes.push_back(type());
    }
    ws();
    if (eatWord("attributes")) {
      ws();
      F.Attributes = dictionary()->Entries;
    }
    ws();
    if (peek() == '{')
      region(F.Body);
    wsInline();
    if (lookingAt("loc("))
      F.Location = location();
    M.Functions.push_back(std::move(F));
  }

  /// `{ ops }` or `{ ^bb0(args): ops ^bb1: ... }`.
  void region(Region &R) {
    expect("{");
    R.Blocks.emplace_back();
    bool First = true;
    for (;;) {
      ws();
      if (eat("}"))
        break;
      if (atEnd())
        fail("unterminated region");
      if (peek() == '^') {
        if (!First || !R.Blocks.back().Ops.empty())
          R.Blocks.emplace_back();
        blockLabel(R.Blocks.back());
        First = false;
        continue;
      }
      First = false;
      R.Blocks.back().Ops.emplace_back();
      parseOp(R.Blocks.back().Ops.back());
    }
  }

  void blockLabel(Block &B) {
    ++P; // '^'
    B.Label = suffixId();
    ws();
    if (eat("(")) {
      ws();
      while (!eat(")")) {
        BlockArg A;
        ws();
        if (!eat("%"))
          fail("expected a block argument");
        A.Name = suffixId();
        expect(":");
        A.Ty = type();
        ws();
        if (lookingAt("loc("))
          A.Location = location();
        B.Args.push_back(std::move(A));
        ws();
        eat(",");
        ws();
      }
    }
    expect(":");
  }

  //===--------------------------------------------------------------------===//
  // Operations
  //===--------------------------------------------------------------------===//

  OperandRef operandRef(const std::string &Tag = "") {
    OperandRef R;
    R.Pos = pos();
    if (!eat("%"))
      fail("expected an SSA value");
    R.Name = suffixId();
    if (peek() == '#' && std::isdigit((unsigned char)peek(1))) {
      ++P;
      R.Index = unsignedNumber();
    }
    R.Tag = Tag;
    return R;
  }

  void resultList(Operation &O) {
    for (;;) {
      ws();
      ++P; // '%'
      std::string Name = suffixId();
      unsigned Count = 1;
      if (peek() == ':' && std::isdigit((unsigned char)peek(1))) {
        ++P;
        Count = unsignedNumber();
      }
      O.Results.push_back({Name, Count});
      ws();
      if (eat("="))
        return;
      if (!eat(","))
        fail("expected '=' after the results");
      ws();
      if (peek() != '%')
        fail("expected a result name");
    }
  }

  void parseOp(Operation &O) {
    ws();
    O.Pos = pos();
    if (peek() == '%')
      resultList(O);
    ws();
    if (peek() == '"') {
      O.Name = stringLiteral();
      genericForm(O);
      return;
    }
    O.Name = suffixId();
    if (O.Name == "scf.for")
      return scfFor(O);
    if (O.Name == "scf.if")
      return scfIf(O);
    if (O.Name == "scf.while")
      return scfWhile(O);
    prettyForm(O);
  }

  void trailingLocation(Operation &O) {
    wsInline();
    if (lookingAt("loc("))
      O.Location = location();
  }

  /// "name"(operands) [successors] <{properties}> (regions) {attributes}
  ///   : (types) -> (types) loc(...)
  void genericForm(Operation &O) {
    expect("(");
    ws();
    while (!eat(")")) {
      ws();
      O.Operands.push_back(operandRef());
      ws();
      eat(",");
      ws();
    }
    ws();
    if (peek() == '[')
      fail("ops with successors are not supported");
    if (eat("<")) {
      AttrPtr D = dictionary();
      O.Attributes.insert(O.Attributes.end(), D->Entries.begin(),
                          D->Entries.end());
      expect(">");
    }
    ws();
    if (peek() == '(' && (peek(1) == '{' || std::isspace((unsigned char)peek(1)))) {
      ++P;
      for (;;) {
        ws();
        O.Regions.emplace_back();
        region(O.Regions.back());
        ws();
        if (eat(")"))
          break;
        if (!eat(","))
          fail("expected ',' or ')' after a region");
      }
    }
    ws();
    if (peek() == '{') {
      AttrPtr D = dictionary();
      O.Attributes.insert(O.Attributes.end(), D->Entries.begin(),
                          D->Entries.end());
    }
    expect(":");
    ws();
    TypePtr F = type();
    if (F->K != MType::Kind::Function)
      fail("expected a function type after a generic op");
    O.Types = F->Inputs;
    O.ResultTypes = F->Results;
    trailingLocation(O);
  }

  /// Everything after a pretty op's name, up to the end of its line.
  void prettyForm(Operation &O) {
    std::string PendingTag;
    bool IsConstant = O.Name == "arith.constant";
    for (;;) {
      if (atLineEnd())
        break;
      char C = peek();
      if (C == '%') {
        O.Operands.push_back(operandRef(PendingTag));
        PendingTag.clear();
        continue;
      }
      PendingTag.clear();
      if (C == ',') {
        ++P;
        continue;
      }
      if (C == '[') {
        ++P;
        std::vector<AttrPtr> Statics;
        for (;;) {
          ws();
          if (eat("]"))
            break;
          if (peek() == '%')
            O.Operands.push_back(operandRef("[]"));
          else
            Statics.push_back(attribute(false));
          ws();
          eat(",");
        }
        if (!Statics.empty()) {
          auto A = std::make_shared<Attr>();
          A->K = Attr::Kind::Array;
          A->Elements = std::move(Statics);
          O.Attributes.push_back({"static_indices", A});
        }
        continue;
      }
      if (C == '(') {
        ++P;
        for (;;) {
          ws();
          if (eat(")"))
            break;
          if (peek() != '%')
            fail("expected an operand in parentheses");
          O.Operands.push_back(operandRef());
          ws();
          eat(",");
        }
        continue;
      }
      if (C == '{') {
        AttrPtr D = dictionary();
        O.Attributes.insert(O.Attributes.end(), D->Entries.begin(),
                            D->Entries.end());
        continue;
      }
      if (C == '<' && peek(1) == '{') {
        ++P;
        AttrPtr D = dictionary();
        O.Attributes.insert(O.Attributes.end(), D->Entries.begin(),
                            D->Entries.end());
        expect(">");
        continue;
      }
      if (C == ':') {
        ++P;
        typeSection(O);
        continue;
      }
      if (C == '"') {
        O.Strings.push_back(stringLiteral());
        continue;
      }
      if (C == '@') {
        ++P;
        auto A = std::make_shared<Attr>();
        A->K = Attr::Kind::Symbol;
        A->Text = peek() == '"' ? stringLiteral() : suffixId();
        O.Attributes.push_back({"callee", A});
        continue;
      }
      if (std::isdigit((unsigned char)C) || C == '-') {
        if (!IsConstant)
          fail("unexpected number in " + O.Name);
        O.Value = attribute(false);
        continue;
      }
      if (lookingAt("loc(")) {
        O.Location = location();
        continue;
      }
      if (!isIdentStart(C))
        fail("unexpected '" + std::string(1, C) + "' in " + O.Name);
      size_t WordStart = P;
      std::string Word = ident();
      if (IsConstant && (Word == "dense" || Word == "true" || Word == "false")) {
        P = WordStart;
        O.Value = attribute(false);
        continue;
      }
      wsInline();
      if (peek() == '=' && peek(1) != '=') {
        ++P;
        wsInline();
        O.Attributes.push_back({Word, attribute(false)});
        continue;
      }
      if (peek() == '<') {
        P = WordStart;
        O.Attributes.push_back({Word, attribute(false)});
        continue;
      }
      O.Words.push_back(Word);
      PendingTag = Word;
    }
  }

  /// The types after ':' in a pretty form: `T`, `T, T`, `T -> T`, `T to T`,
  /// `(T, T) -> T`, `T * T -> T`.
  void typeSection(Operation &O) {
    bool Arrow = false;
    for (;;) {
      wsInline();
      if (atLineEnd() || lookingAt("loc(") || peek() == '{' || peek() == '%')
        return;
      if (eat("->")) {
        Arrow = true;
        continue;
      }
      if (eat(",") || eat("*") || eatWord("to"))
        continue;
      if (peek() == '(' && !Arrow) {
        std::vector<TypePtr> Ins = typeList('(', ')');
        O.Types.insert(O.Types.end(), Ins.begin(), Ins.end());
        continue;
      }
      if (peek() == '(' && Arrow) {
        std::vector<TypePtr> Outs = typeList('(', ')');
        O.Types.insert(O.Types.end(), Outs.begin(), Outs.end());
        O.ResultTypes.insert(O.ResultTypes.end(), Outs.begin(), Outs.end());
        continue;
      }
      TypePtr T = type();
      O.Types.push_back(T);
      if (Arrow)
        O.ResultTypes.push_back(T);
    }
  }

  /// scf.for %iv = %lb to %ub step %s [iter_args(%a = %x, ...)]
  ///   [-> (types)] [: type] { body } [{attrs}] loc(...)
  void scfFor(Operation &O) {
    ws();
    BlockArg IV;
    OperandRef IVRef = operandRef();
    IV.Name = IVRef.Name;
    expect("=");
    ws();
    O.Operands.push_back(operandRef());
    ws();
    if (!eatWord("to"))
      fail("expected 'to' in scf.for");
    ws();
    O.Operands.push_back(operandRef());
    ws();
    if (!eatWord("step"))
      fail("expected 'step' in scf.for");
    ws();
    O.Operands.push_back(operandRef());
    ws();
    std::vector<BlockArg> Iter;
    if (eatWord("iter_args")) {
      expect("(");
      for (;;) {
        ws();
        BlockArg A;
        A.Name = operandRef().Name;
        expect("=");
        ws();
        O.Operands.push_back(operandRef());
        Iter.push_back(A);
        ws();
        if (eat(")"))
          break;
        if (!eat(","))
          fail("expected ',' or ')' in iter_args");
      }
    }
    ws();
    if (eat("->")) {
      ws();
      if (peek() == '(')
        O.ResultTypes = typeList('(', ')');
      else
        O.ResultTypes.push_back(type());
    }
    ws();
    if (eat(":"))
      IV.Ty = type();
    else {
      auto T = std::make_shared<MType>();
      T->K = MType::Kind::Index;
      T->Bits = 64;
      T->Text = "index";
      IV.Ty = T;
    }
    if (O.ResultTypes.size() != Iter.size())
      fail("scf.for has " + std::to_string(Iter.size()) +
           " iter_args but " + std::to_string(O.ResultTypes.size()) +
           " result types");
    for (size_t I = 0; I < Iter.size(); ++I)
      Iter[I].Ty = O.ResultTypes[I];
    ws();
    O.Regions.emplace_back();
    region(O.Regions.back());
    Block &Body = O.Regions.back().Blocks.front();
    Body.Args.insert(Body.Args.begin(), Iter.begin(), Iter.end());
    Body.Args.insert(Body.Args.begin(), IV);
    trailingAttributesAndLocation(O);
  }

  void trailingAttributesAndLocation(Operation &O) {
    wsInline();
    if (peek() == '{') {
      AttrPtr D = dictionary();
      O.Attributes.insert(O.Attributes.end(), D->Entries.begin(),
                          D->Entries.end());
    }
    trailingLocation(O);
  }

  /// scf.if %c [-> (types)] { then } [else { else }] loc(...)
  void scfIf(Operation &O) {
    ws();
    O.Operands.push_back(operandRef());
    ws();
    if (eat("->")) {
      ws();
      if (peek() == '(')
        O.ResultTypes = typeList('(', ')');
      else
        O.ResultTypes.push_back(type());
    }
    ws();
    O.Regions.emplace_back();
    region(O.Regions.back());
    size_t Save = P;
    ws();
    if (eatWord("else")) {
      ws();
      O.Regions.emplace_back();
      region(O.Regions.back());
    } else
      P = Save;
    trailingAttributesAndLocation(O);
  }

  /// scf.while (%a = %x, ...) : (T...) -> (T...) { before } do { after }
  void scfWhile(Operation &O) {
    ws();
    std::vector<BlockArg> Before;
    expect("(");
    ws();
    while (!eat(")")) {
      ws();
      BlockArg A;
      A.Name = operandRef().Name;
      expect("=");
      ws();
      O.Operands.push_back(operandRef());
      Before.push_back(A);
      ws();
      eat(",");
      ws();
    }
    expect(":");
    ws();
    TypePtr F = type();
    if (F->K != MType::Kind::Function || F->Inputs.size() != Before.size())
      fail("scf.while needs a function type matching its arguments");
    for (size_t I = 0; I < Before.size(); ++I)
      Before[I].Ty = F->Inputs[I];
    O.ResultTypes = F->Results;
    ws();
    O.Regions.emplace_back();
    region(O.Regions.back());
    Block &B = O.Regions.back().Blocks.front();
    B.Args.insert(B.Args.begin(), Before.begin(), Before.end());
    ws();
    if (!eatWord("do"))
      fail("expected 'do' in scf.while");
    ws();
    O.Regions.emplace_back();
    region(O.Regions.back());
    trailingAttributesAndLocation(O);
  }
};

} // namespace

Module parseModule(const std::string &Text, const std::string &Path) {
  return Parser(Text, Path).parse();
}

Module parseModuleFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw ir::InputError({Path, 0, 0}, std::string("cannot read '") + Path +
                                           "': " + std::strerror(errno));
  std::ostringstream S;
  S << In.rdbuf();
  return parseModule(S.str(), Path);
}

} // namespace stagecheck::ttir

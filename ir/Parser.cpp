#include "ir/Text.h"

#include "ir/FloatOps.h"
#include "ir/Value.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace stagecheck::ir {

ParseError::ParseError(const std::string &File, unsigned Line, unsigned Column,
                       const std::string &Msg)
    : InputError(SourceLocation{File, Line, Column}, Msg) {}

namespace {

struct Token {
  enum Kind { Word, Local, Global, String, Punct, End } K;
  std::string Text;
  unsigned Column;
};

/// Splits one line into tokens. Words may contain letters, digits and
/// `_ . : - + < >` so that `1.5:f32`, `fadd.rne` and `ptr<global>` are one
/// token each.
std::vector<Token> tokenize(const std::string &Line, unsigned &BadColumn) {
  std::vector<Token> Out;
  size_t I = 0;
  auto IsWordChar = [](char C) {
    return std::isalnum((unsigned char)C) || C == '_' || C == '.' ||
           C == ':' || C == '-' || C == '+' || C == '<' || C == '>' ||
           C == '!' || C == '/';
  };
  while (I < Line.size()) {
    char C = Line[I];
    if (C == '#' || C == ';')
      break;
    if (std::isspace((unsigned char)C)) {
      ++I;
      continue;
    }
    unsigned Col = unsigned(I + 1);
    if (C == '"') {
      size_t End = Line.find('"', I + 1);
      if (End == std::string::npos) {
        BadColumn = Col;
        return {};
      }
      Out.push_back({Token::String, Line.substr(I + 1, End - I - 1), Col});
      I = End + 1;
      continue;
    }
    if (C == '%' || C == '@') {
      size_t J = I + 1;
      while (J < Line.size() && IsWordChar(Line[J]) && Line[J] != ':')
        ++J;
      Out.push_back({C == '%' ? Token::Local : Token::Global,
                     Line.substr(I + 1, J - I - 1), Col});
      I = J;
      continue;
    }
    if (IsWordChar(C)) {
      size_t J = I;
      while (J < Line.size() && IsWordChar(Line[J]))
        ++J;
      Out.push_back({Token::Word, Line.substr(I, J - I), Col});
      I = J;
      continue;
    }
    if (C == '=' || C == ',' || C == '[' || C == ']' || C == '(' || C == ')') {
      Out.push_back({Token::Punct, std::string(1, C), Col});
      ++I;
      continue;
    }
    BadColumn = Col;
    return {};
  }
  Out.push_back({Token::End, "", unsigned(Line.size() + 1)});
  return Out;
}

class Parser {
public:
  Parser(Context &C, const std::string &File) : C(C), File(File) {}

  Effects run(const std::string &Text) {
    size_t Start = 0;
    while (Start <= Text.size()) {
      size_t End = Text.find('\n', Start);
      if (End == std::string::npos)
        End = Text.size();
      ++LineNo;
      std::string Line = Text.substr(Start, End - Start);
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      unsigned Bad = 0;
      Toks = tokenize(Line, Bad);
      if (Bad)
        fail(Bad, "unexpected character");
      Pos = 0;
      if (peek().K != Token::End)
        statement();
      Start = End + 1;
    }
    return std::move(Result);
  }

private:
  Context &C;
  std::string File;
  unsigned LineNo = 0;
  std::vector<Token> Toks;
  size_t Pos = 0;
  Effects Result;
  std::unordered_map<std::string, const Expr *> Values;

  [[noreturn]] void fail(unsigned Column, const std::string &Msg) {
    throw ParseError(File, LineNo, Column, Msg);
  }
  [[noreturn]] void fail(const std::string &Msg) { fail(peek().Column, Msg); }
  const Token &peek() const { return Toks[Pos]; }
  Token next() {
    Token T = Toks[Pos];
    if (T.K != Token::End)
      ++Pos;
    return T;
  }
  bool acceptPunct(const char *P) {
    if (peek().K == Token::Punct && peek().Text == P) {
      ++Pos;
      return true;
    }
    return false;
  }
  void expectPunct(const char *P) {
    if (!acceptPunct(P))
      fail(std::string("expected '") + P + "'");
  }
  bool acceptWord(const char *W) {
    if (peek().K == Token::Word && peek().Text == W) {
      ++Pos;
      return true;
    }
    return false;
  }
  std::string expectWord(const char *What) {
    if (peek().K != Token::Word)
      fail(std::string("expected ") + What);
    return next().Text;
  }
  void expectEnd() {
    if (peek().K != Token::End)
      fail("unexpected '" + peek().Text + "'");
  }

  Type parseType() {
    unsigned Col = peek().Column;
    std::string W = expectWord("a type");
    Type T = Type::boolean();
    if (!Type::parse(W, T))
      fail(Col, "unknown type '" + W + "'");
    return T;
  }

  const Expr *constant(const std::string &Literal, Type T, unsigned Col) {
    if (Literal == "true" || Literal == "false") {
      if (!T.isBool())
        fail(Col, "true/false are i1 constants");
      return C.boolean(Literal == "true");
    }
    bool Hex = Literal.rfind("0x", 0) == 0 || Literal.rfind("-0x", 0) == 0;
    if (T.isFloat() && !Hex) {
      double D;
      if (Literal == "inf")
        D = INFINITY;
      else if (Literal == "-inf")
        D = -INFINITY;
      else if (Literal == "nan")
        return C.constant(T, fp::canonicalNaN(floatFormat(T)));
      else {
        char *End = nullptr;
        D = std::strtod(Literal.c_str(), &End);
        if (*End || Literal.empty())
          fail(Col, "bad float literal '" + Literal + "'");
      }
      return C.floatConst(T, D);
    }
    char *End = nullptr;
    errno = 0;
    uint64_t Bits;
    if (!Literal.empty() && Literal[0] == '-')
      Bits = uint64_t(std::strtoll(Literal.c_str(), &End, 0));
    else
      Bits = std::strtoull(Literal.c_str(), &End, 0);
    if (*End || Literal.empty() || errno)
      fail(Col, "bad integer literal '" + Literal + "'");
    return C.constant(T, Bits);
  }

  const Expr *operand() {
    const Token &T = peek();
    unsigned Col = T.Column;
    if (T.K == Token::Local) {
      auto It = Values.find(T.Text);
      if (It == Values.end())
        fail(Col, "use of undefined value %" + T.Text);
      ++Pos;
      return It->second;
    }
    if (T.K == Token::Word) {
      std::string W = next().Text;
      if (W == "true" || W == "false")
        return C.boolean(W == "true");
      size_t Colon = W.rfind(':');
      if (Colon == std::string::npos)
        fail(Col, "constant '" + W + "' needs a type, e.g. " + W + ":i32");
      Type Ty = Type::boolean();
      if (!Type::parse(W.substr(Colon + 1), Ty))
        fail(Col, "unknown type in constant '" + W + "'");
      return constant(W.substr(0, Colon), Ty, Col);
    }
    fail(Col, "expected a value");
  }

  void define(const Token &Name, const Expr *E) {
    if (!Values.emplace(Name.Text, E).second)
      fail(Name.Column, "%" + Name.Text + " is defined twice");
  }

  Origin origin() {
    Origin O;
    for (;;) {
      if (acceptWord("at")) {
        unsigned Col = peek().Column;
        std::string Loc = expectWord("a location file:line[:col]");
        // file:line or file:line:col; the file may itself contain ':'.
        size_t Last = Loc.rfind(':');
        size_t Prev = Last == std::string::npos ? Last : Loc.rfind(':', Last - 1);
        auto AllDigits = [](const std::string &S) {
          return !S.empty() && S.find_first_not_of("0123456789") == std::string::npos;
        };
        if (Prev != std::string::npos &&
            AllDigits(Loc.substr(Prev + 1, Last - Prev - 1)) &&
            AllDigits(Loc.substr(Last + 1))) {
          O.Loc = {Loc.substr(0, Prev), unsigned(std::stoul(Loc.substr(Prev + 1, Last - Prev - 1))),
                   unsigned(std::stoul(Loc.substr(Last + 1)))};
        } else if (Last != std::string::npos && AllDigits(Loc.substr(Last + 1))) {
          O.Loc = {Loc.substr(0, Last), unsigned(std::stoul(Loc.substr(Last + 1))), 0};
        } else {
          fail(Col, "bad location '" + Loc + "'");
        }
        continue;
      }
      if (acceptWord("op")) {
        if (peek().K != Token::String)
          fail("expected a quoted op name");
        O.Op = next().Text;
        continue;
      }
      return O;
    }
  }

  const Expr *boolOperand(const char *What) {
    unsigned Col = peek().Column;
    const Expr *E = operand();
    if (!E->type().isBool())
      fail(Col, std::string(What) + " must be i1");
    return E;
  }

  void statement() {
    const Token First = peek();
    if (First.K == Token::Local) {
      next();
      expectPunct("=");
      define(First, instruction());
      expectEnd();
      return;
    }
    if (First.K != Token::Word)
      fail("expected a statement");
    std::string W = next().Text;
    if (W == "buffer")
      return bufferDecl();
    if (W == "symbol")
      return symbolDecl();
    if (W == "write")
      return writeStmt();
    if (W == "atomic")
      return atomicStmt();
    if (W == "ub")
      return ubStmt();
    fail(First.Column, "unknown statement '" + W + "'");
  }

  void bufferDecl() {
    Buffer B;
    B.Name = expectWord("a buffer name");
    if (Result.buffer(B.Name))
      fail("buffer " + B.Name + " is declared twice");
    if (peek().K == Token::Word && peek().Text == ":")
      next();
    else if (!acceptWord(":"))
      fail("expected ':' and the element type");
    B.Element = parseType();
    for (;;) {
      if (acceptWord("global"))
        B.Space = AddressSpace::Global;
      else if (acceptWord("shared"))
        B.Space = AddressSpace::Shared;
      else if (acceptWord("size")) {
        unsigned Col = peek().Column;
        std::string N = expectWord("a size");
        char *End;
        B.Size = std::strtoull(N.c_str(), &End, 10);
        if (*End)
          fail(Col, "bad size '" + N + "'");
      } else
        break;
    }
    expectEnd();
    Result.Buffers.push_back(B);
  }

  void symbolDecl() {
    if (peek().K != Token::Local)
      fail("expected %name");
    Token Name = next();
    if (!acceptWord(":"))
      fail("expected ':' and a type");
    Type T = parseType();
    SymbolRole Role = SymbolRole::Free;
    if (peek().K == Token::Word) {
      unsigned Col = peek().Column;
      std::string R = next().Text;
      if (!parseSymbolRole(R, Role))
        fail(Col, "unknown symbol role '" + R + "'");
    }
    expectEnd();
    define(Name, C.symbol(Name.Text, T, Role));
  }

  const Buffer &bufferRef() {
    unsigned Col = peek().Column;
    std::string Name = expectWord("a buffer name");
    const Buffer *B = Result.buffer(Name);
    if (!B)
      fail(Col, "undeclared buffer '" + Name + "'");
    return *B;
  }

  const Expr *indexOperand() {
    expectPunct("[");
    unsigned Col = peek().Column;
    const Expr *I = operand();
    if (I->type() != Type::i(64))
      fail(Col, "a buffer index must be i64");
    expectPunct("]");
    return I;
  }

  void writeStmt() {
    const Buffer &B = bufferRef();
    Write W{C.trueExpr(), B.Name, indexOperand(), nullptr, C.trueExpr(), {}, {}};
    expectPunct("=");
    unsigned Col = peek().Column;
    W.Value = operand();
    if (W.Value->type() != B.Element)
      fail(Col, "value of type " + W.Value->type().str() + " written to " +
                    B.Name + " of " + B.Element.str());
    if (acceptWord("if"))
      W.Guard = boolOperand("a guard");
    if (acceptWord("defined"))
      W.Defined = boolOperand("a definedness condition");
    W.Bound = boundVariables();
    W.From = origin();
    expectEnd();
    Result.Writes.push_back(W);
  }

  void atomicStmt() {
    unsigned Col = peek().Column;
    std::string K = expectWord("an atomic op");
    Atomic A{C.trueExpr(), "", nullptr, AtomicOp::Add, nullptr, nullptr, {}};
    if (!parseAtomicOp(K, A.Kind))
      fail(Col, "unknown atomic op '" + K + "'");
    const Buffer &B = bufferRef();
    A.Buffer = B.Name;
    A.Index = indexOperand();
    expectPunct(",");
    A.Value = operand();
    if (A.Kind == AtomicOp::CompareExchange) {
      expectPunct(",");
      A.Compare = operand();
    }
    if (acceptWord("if"))
      A.Guard = boolOperand("a guard");
    A.From = origin();
    expectEnd();
    Result.Atomics.push_back(A);
  }

  /// "for %e < 1024, %f < 4": the variables a family ranges over.
  std::vector<BoundVariable> boundVariables() {
    std::vector<BoundVariable> Out;
    if (!acceptWord("for"))
      return Out;
    do {
      unsigned Col = peek().Column;
      const Expr *S = operand();
      if (S->op() != Op::Symbol || !S->type().isInt())
        fail(Col, "a bound variable must be an integer symbol");
      if (peek().K != Token::Word || peek().Text != "<")
        fail("expected '<' and the extent");
      next();
      unsigned ExtentCol = peek().Column;
      std::string N = expectWord("an extent");
      char *End;
      uint64_t Extent = std::strtoull(N.c_str(), &End, 10);
      if (*End || N.empty())
        fail(ExtentCol, "bad extent '" + N + "'");
      Out.push_back({S, Extent});
    } while (acceptPunct(","));
    return Out;
  }

  void ubStmt() {
    UndefinedBehavior U{boolOperand("a condition"), "", {}, {}};
    if (peek().K != Token::String)
      fail("expected a quoted reason");
    U.Reason = next().Text;
    U.Bound = boundVariables();
    U.From = origin();
    expectEnd();
    Result.Undefined.push_back(U);
  }

  const Expr *instruction() {
    unsigned Col = peek().Column;
    std::string Mnemonic = expectWord("an op");
    try {
      return instructionBody(Mnemonic, Col);
    } catch (const IRError &E) {
      fail(Col, E.what());
    }
  }

  const Expr *instructionBody(const std::string &Mnemonic, unsigned Col) {
    if (Mnemonic == "read") {
      const Buffer &B = bufferRef();
      const Expr *Index = indexOperand();
      if (!acceptWord(":"))
        fail("expected ': type'");
      Type T = parseType();
      if (T != B.Element)
        fail("buffer " + B.Name + " holds " + B.Element.str());
      return C.read(B.Name, T, Index);
    }
    if (Mnemonic == "call") {
      if (peek().K != Token::Global)
        fail("expected @function");
      std::string F = next().Text;
      expectPunct("(");
      std::vector<const Expr *> Args;
      if (!acceptPunct(")")) {
        do
          Args.push_back(operand());
        while (acceptPunct(","));
        expectPunct(")");
      }
      if (!acceptWord(":"))
        fail("expected ': type'");
      return C.call(F, parseType(), Args);
    }
    // op[.attribute]
    std::string Base = Mnemonic, Attribute;
    if (size_t Dot = Mnemonic.find('.'); Dot != std::string::npos) {
      Base = Mnemonic.substr(0, Dot);
      Attribute = Mnemonic.substr(Dot + 1);
    }
    Op O;
    if (!parseOp(Base, O) || category(O) == OpCategory::Leaf ||
        O == Op::Call)
      fail(Col, "unknown op '" + Base + "'");
    uint8_t Attr = 0;
    if (O == Op::ICmp) {
      ICmpPredicate P;
      if (!parseICmpPredicate(Attribute, P))
        fail(Col, "icmp needs a predicate, e.g. icmp.slt");
      Attr = uint8_t(P);
    } else if (O == Op::FCmp) {
      FCmpPredicate P;
      if (!parseFCmpPredicate(Attribute, P))
        fail(Col, "fcmp needs a predicate, e.g. fcmp.olt");
      Attr = uint8_t(P);
    } else if (hasRounding(O)) {
      RoundingMode M = RoundingMode::NearestEven;
      if (!Attribute.empty() && !parseRoundingMode(Attribute, M))
        fail(Col, "unknown rounding mode '" + Attribute + "'");
      Attr = uint8_t(M);
    } else if (!Attribute.empty()) {
      fail(Col, std::string(spelling(O)) + " takes no attribute");
    }
    std::vector<const Expr *> Ops;
    do
      Ops.push_back(operand());
    while (acceptPunct(","));
    Type Result = Type::boolean();
    if (acceptWord("to"))
      Result = parseType();
    return C.make(O, Ops, Attr, Result);
  }
};

} // namespace

Effects parseEffects(Context &C, const std::string &Text,
                     const std::string &FileName) {
  return Parser(C, FileName).run(Text);
}

} // namespace stagecheck::ir

//===- PtxParser.cpp - PTX text to the syntax tree of Ptx.h ---------------===//
//
// A hand-written lexer and recursive-descent parser for the PTX that LLVM's
// NVPTX backend writes (and Triton's inline-asm templates). Directives that
// PTX ends at the end of the line (.version, .loc, .file, .reqntid, ...)
// take the tokens of their line; everything else ends with ';'. DWARF
// sections are skipped as balanced braces.
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/Ptx.h"

#include "ir/Errors.h"

#include <cctype>
#include <cstring>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

struct Token {
  enum Kind { Ident, Number, String, Punct, End } K = End;
  std::string Text;
  unsigned Line = 0, Column = 0;
  bool is(char C) const {
    return K == Punct && Text.size() == 1 && Text[0] == C;
  }
  bool isIdent(std::string_view S) const { return K == Ident && Text == S; }
};

bool isIdentStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_' || C == '$' ||
         C == '%' || C == '.';
}

bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$' ||
         C == '.';
}

class Lexer {
public:
  Lexer(std::string_view Text, const std::string &File)
      : Text(Text), File(File) {}

  std::vector<Token> run() {
    std::vector<Token> Out;
    while (true) {
      skipSpaceAndComments();
      Token T;
      T.Line = Line;
      T.Column = Column;
      if (Pos >= Text.size()) {
        Out.push_back(T);
        return Out;
      }
      char C = Text[Pos];
      if (isIdentStart(C))
        lexIdent(T);
      else if (std::isdigit(static_cast<unsigned char>(C)))
        lexNumber(T);
      else if (C == '"')
        lexString(T);
      else if (std::strchr(",;{}[]()<>+-|!@:=*", C)) {
        T.K = Token::Punct;
        T.Text = std::string(1, C);
        advance();
      } else {
        throw InputError({File, Line, Column},
                         std::string("unexpected character '") + C + "'");
      }
      Out.push_back(std::move(T));
    }
  }

private:
  char peek(size_t Ahead = 0) const {
    return Pos + Ahead < Text.size() ? Text[Pos + Ahead] : '\0';
  }
  void advance() {
    if (Text[Pos] == '\n') {
      ++Line;
      Column = 1;
    } else {
      ++Column;
    }
    ++Pos;
  }

  void skipSpaceAndComments() {
    while (Pos < Text.size()) {
      char C = Text[Pos];
      if (std::isspace(static_cast<unsigned char>(C))) {
        advance();
      } else if (C == '/' && peek(1) == '/') {
        while (Pos < Text.size() && Text[Pos] != '\n')
          advance();
      } else if (C == '/' && peek(1) == '*') {
        unsigned L = Line, Col = Column;
        advance();
        advance();
        while (Pos < Text.size() && !(Text[Pos] == '*' && peek(1) == '/'))
          advance();
        if (Pos >= Text.size())
          throw InputError({File, L, Col}, "unterminated comment");
        advance();
        advance();
      } else {
        return;
      }
    }
  }

  void lexIdent(Token &T) {
    T.K = Token::Ident;
    size_t Start = Pos;
    advance();
    while (Pos < Text.size()) {
      if (isIdentChar(Text[Pos])) {
        advance();
      } else if (Text[Pos] == ':' && peek(1) == ':') {
        // L1::evict_first, shared::cta: one qualifier of an opcode.
        advance();
        advance();
      } else {
        break;
      }
    }
    T.Text = std::string(Text.substr(Start, Pos - Start));
  }

  void lexNumber(Token &T) {
    T.K = Token::Number;
    size_t Start = Pos;
    while (Pos < Text.size() &&
           (std::isalnum(static_cast<unsigned char>(Text[Pos])) ||
            Text[Pos] == '.' || Text[Pos] == '_' ||
            ((Text[Pos] == '-' || Text[Pos] == '+') &&
             (Text[Pos - 1] == 'e' || Text[Pos - 1] == 'E') &&
             !isHexPrefixed(Start))))
      advance();
    T.Text = std::string(Text.substr(Start, Pos - Start));
  }

  bool isHexPrefixed(size_t Start) const {
    return Start + 1 < Text.size() && Text[Start] == '0' &&
           std::strchr("xXfFdD", Text[Start + 1]);
  }

  void lexString(Token &T) {
    T.K = Token::String;
    advance();
    size_t Start = Pos;
    while (Pos < Text.size() && Text[Pos] != '"' && Text[Pos] != '\n')
      advance();
    if (Pos >= Text.size() || Text[Pos] != '"')
      throw InputError({File, T.Line, T.Column}, "unterminated string");
    T.Text = std::string(Text.substr(Start, Pos - Start));
    advance();
  }

  std::string_view Text;
  const std::string &File;
  size_t Pos = 0;
  unsigned Line = 1, Column = 1;
};

int hexDigit(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return -1;
}

/// Digits in Base; false on any other character or on overflow.
bool parseUnsigned(std::string_view S, unsigned Base, uint64_t &Out) {
  if (S.empty())
    return false;
  Out = 0;
  for (char C : S) {
    int D = hexDigit(C);
    if (D < 0 || unsigned(D) >= Base)
      return false;
    if (Out > (~uint64_t(0) - uint64_t(D)) / Base)
      return false;
    Out = Out * Base + uint64_t(D);
  }
  return true;
}

/// A PTX numeric literal: 0fXXXXXXXX, 0dX{16}, 0x.., 0b.., octal, decimal
/// integers (an optional U suffix), decimal floats.
bool parseNumber(std::string_view S, Immediate &Out) {
  if (S.size() == 10 && (S[1] == 'f' || S[1] == 'F') && S[0] == '0') {
    Out.K = Immediate::F32Bits;
    return parseUnsigned(S.substr(2), 16, Out.Bits);
  }
  if (S.size() == 18 && (S[1] == 'd' || S[1] == 'D') && S[0] == '0') {
    Out.K = Immediate::F64Bits;
    return parseUnsigned(S.substr(2), 16, Out.Bits);
  }
  if (S.find_first_of(".eE") != std::string_view::npos &&
      !(S.size() > 1 && (S[1] == 'x' || S[1] == 'X'))) {
    Out.K = Immediate::Decimal;
    std::string Copy(S);
    char *End = nullptr;
    Out.Value = std::strtod(Copy.c_str(), &End);
    return End && *End == '\0';
  }
  Out.K = Immediate::Integer;
  if (!S.empty() && (S.back() == 'U' || S.back() == 'u'))
    S.remove_suffix(1);
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X'))
    return parseUnsigned(S.substr(2), 16, Out.Bits);
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'b' || S[1] == 'B'))
    return parseUnsigned(S.substr(2), 2, Out.Bits);
  if (S.size() > 1 && S[0] == '0')
    return parseUnsigned(S.substr(1), 8, Out.Bits);
  return parseUnsigned(S, 10, Out.Bits);
}

class Parser {
public:
  Parser(std::string_view Text, const std::string &File)
      : File(File), Tokens(Lexer(Text, File).run()) {}

  Module parseModule() {
    Module M;
    M.FileName = File;
    while (at().K != Token::End)
      parseTopLevel(M);
    return M;
  }

  std::vector<Statement> parseTemplate(std::vector<RegisterDecl> &Regs) {
    Function F;
    parseBody(F, /*InBraces=*/false);
    Regs.insert(Regs.end(), F.Registers.begin(), F.Registers.end());
    return std::move(F.Body);
  }

private:
  // --- Tokens --------------------------------------------------------------
  const Token &at(size_t Ahead = 0) const {
    size_t I = std::min(Pos + Ahead, Tokens.size() - 1);
    return Tokens[I];
  }
  Token take() {
    Token T = at();
    if (Pos < Tokens.size() - 1)
      ++Pos;
    return T;
  }
  [[noreturn]] void fail(const Token &T, const std::string &Message) const {
    throw InputError({File, T.Line, T.Column}, Message);
  }
  std::string describe(const Token &T) const {
    return T.K == Token::End ? "end of input" : "'" + T.Text + "'";
  }
  void expect(char C) {
    if (!at().is(C))
      fail(at(), std::string("expected '") + C + "', found " + describe(at()));
    take();
  }
  Token expectIdent(const char *What) {
    if (at().K != Token::Ident)
      fail(at(), std::string("expected ") + What + ", found " + describe(at()));
    return take();
  }
  unsigned expectUnsigned(const char *What) {
    Immediate I;
    if (at().K != Token::Number || !parseNumber(at().Text, I) ||
        I.K != Immediate::Integer || I.Bits > 0xffffffffu)
      fail(at(), std::string("expected ") + What + ", found " + describe(at()));
    take();
    return unsigned(I.Bits);
  }
  /// Skips the rest of the line Line (directives without a ';').
  void skipLine(unsigned Line) {
    while (at().K != Token::End && at().Line == Line)
      take();
  }
  void skipToSemicolon() {
    while (at().K != Token::End && !at().is(';'))
      take();
    expect(';');
  }

  // --- Module level --------------------------------------------------------
  void parseTopLevel(Module &M) {
    const Token &T = at();
    if (T.K != Token::Ident || T.Text[0] != '.')
      fail(T, "expected a directive, found " + describe(T));
    if (T.Text == ".version") {
      take();
      M.Version = take().Text;
    } else if (T.Text == ".target") {
      unsigned L = take().Line;
      while (at().K != Token::End && at().Line == L)
        M.Target += take().Text;
    } else if (T.Text == ".address_size") {
      take();
      M.AddressSize = expectUnsigned("an address size");
    } else if (T.Text == ".file") {
      parseFile(M);
    } else if (T.Text == ".section") {
      parseSection();
    } else if (T.Text == ".pragma") {
      take();
      skipToSemicolon();
    } else {
      parseDeclaration(M);
    }
  }

  void parseFile(Module &M) {
    unsigned L = take().Line;
    unsigned N = expectUnsigned("a file number");
    if (at().K != Token::String)
      fail(at(), "expected a file name, found " + describe(at()));
    std::string Path = take().Text;
    // .file N "dir" "name" (DWARF 5 style) names the file in a directory.
    if (at().K == Token::String && at().Line == L)
      Path = Path.empty() ? take().Text : Path + "/" + take().Text;
    M.Files[N] = Path;
    skipLine(L);
  }

  void parseSection() {
    take();
    expectIdent("a section name");
    expect('{');
    unsigned Depth = 1;
    while (Depth) {
      const Token &T = at();
      if (T.K == Token::End)
        fail(T, "unterminated section");
      if (T.is('{'))
        ++Depth;
      else if (T.is('}'))
        --Depth;
      take();
    }
  }

  void parseDeclaration(Module &M) {
    bool Extern = false;
    while (at().K == Token::Ident &&
           (at().Text == ".visible" || at().Text == ".extern" ||
            at().Text == ".weak" || at().Text == ".common")) {
      Extern |= at().Text == ".extern";
      take();
    }
    const Token &T = at();
    if (T.isIdent(".entry") || T.isIdent(".func")) {
      M.Functions.push_back(parseFunction());
      return;
    }
    if (T.isIdent(".shared") || T.isIdent(".global") || T.isIdent(".const") ||
        T.isIdent(".local")) {
      M.Variables.push_back(parseVariable(Extern));
      return;
    }
    fail(T, "unexpected " + describe(T) + " at module level");
  }

  /// .global .align 4 .b8 name[24] = {65, 144, ...}; (an initializer that
  /// is not a list of integers is skipped, and recorded as unread)
  Variable parseVariable(bool Extern) {
    Variable V;
    V.IsExtern = Extern;
    V.Line = at().Line;
    V.Space = take().Text.substr(1);
    while (at().K == Token::Ident && at().Text[0] == '.') {
      std::string D = take().Text;
      if (D == ".align")
        expectUnsigned("an alignment");
      else if (D != ".ptr" && D.rfind(".v", 0) != 0)
        V.Type = D.substr(1);
    }
    V.Name = expectIdent("a variable name").Text;
    if (at().is('[')) {
      take();
      if (!at().is(']'))
        V.ArraySize = expectUnsigned("an array size");
      expect(']');
    }
    if (at().is('=')) {
      take();
      V.HasInitializer = true;
      parseInitializer(V);
    }
    while (!at().is(';')) {
      if (at().K == Token::End)
        fail(at(), "expected ';' after variable " + V.Name);
      take();
    }
    take();
    return V;
  }

  /// {1, -2, 3}: integers only; anything else leaves Initializer empty.
  void parseInitializer(Variable &V) {
    if (!at().is('{'))
      return;
    take();
    std::vector<uint64_t> Values;
    while (!at().is('}')) {
      bool Negative = at().is('-');
      if (Negative)
        take();
      Immediate I;
      if (at().K != Token::Number || !parseNumber(at().Text, I) ||
          I.K != Immediate::Integer)
        return;
      take();
      Values.push_back(Negative ? uint64_t(0) - I.Bits : I.Bits);
      if (at().is(','))
        take();
      else if (!at().is('}'))
        return;
    }
    take();
    V.Initializer = std::move(Values);
  }

  Function parseFunction() {
    Function F;
    F.Line = at().Line;
    F.IsEntry = take().Text == ".entry";
    // .func (.param .b32 retval) name (...): a return parameter list.
    if (!F.IsEntry && at().is('('))
      F.Returns = parseParams();
    F.Name = expectIdent("a function name").Text;
    if (at().is('('))
      F.Params = parseParams();
    parsePerformanceDirectives(F);
    if (at().is(';')) {
      take();
      return F;
    }
    expect('{');
    F.HasBody = true;
    parseBody(F, /*InBraces=*/true);
    return F;
  }

  std::vector<Param> parseParams() {
    std::vector<Param> Params;
    expect('(');
    while (!at().is(')')) {
      Params.push_back(parseParam());
      if (at().is(','))
        take();
      else if (!at().is(')'))
        fail(at(), "expected ',' or ')' in a parameter list, found " +
                       describe(at()));
    }
    take();
    return Params;
  }

  Param parseParam() {
    Param P;
    P.Line = at().Line;
    Token Space = expectIdent("'.param'");
    if (Space.Text != ".param" && Space.Text != ".reg")
      fail(Space, "expected '.param', found " + describe(Space));
    while (at().K == Token::Ident && at().Text[0] == '.') {
      std::string D = take().Text;
      if (D == ".ptr")
        P.IsPointer = true;
      else if (D == ".align")
        expectUnsigned("an alignment");
      else if (D != ".global" && D != ".shared" && D != ".const" &&
               D != ".local" && P.Type.empty())
        P.Type = D.substr(1);
    }
    P.Name = expectIdent("a parameter name").Text;
    if (at().is('[')) {
      take();
      if (!at().is(']'))
        P.ArraySize = expectUnsigned("an array size");
      expect(']');
    }
    if (P.Type.empty())
      fail(at(), "parameter " + P.Name + " has no type");
    return P;
  }

  std::vector<unsigned> parseDims() {
    unsigned L = at().Line;
    std::vector<unsigned> Dims = {expectUnsigned("a dimension")};
    while (at().is(',') && at().Line == L) {
      take();
      Dims.push_back(expectUnsigned("a dimension"));
    }
    if (Dims.size() > 3)
      fail(at(), "more than three dimensions");
    return Dims;
  }

  void parsePerformanceDirectives(Function &F) {
    while (at().K == Token::Ident && at().Text[0] == '.') {
      Token D = take();
      if (D.Text == ".reqntid")
        F.ReqNtid = parseDims();
      else if (D.Text == ".maxntid")
        F.MaxNtid = parseDims();
      else if (D.Text == ".pragma")
        skipToSemicolon();
      else if (D.Text == ".noreturn")
        continue; // a declaration's attribute, before its ';'
      else
        skipLine(D.Line); // .maxnreg N, .minnctapersm N, ...
    }
  }

  // --- Bodies --------------------------------------------------------------
  void parseBody(Function &F, bool InBraces) {
    unsigned Depth = 0;
    Loc Current;
    while (true) {
      const Token &T = at();
      if (T.K == Token::End) {
        if (InBraces)
          fail(T, "missing '}' at the end of " + F.Name);
        return;
      }
      if (T.is('{')) {
        take();
        ++Depth;
      } else if (T.is('}')) {
        if (Depth == 0) {
          if (!InBraces)
            fail(T, "unbalanced '}'");
          take();
          return;
        }
        take();
        --Depth;
      } else if (T.is(';')) {
        take(); // an empty statement
      } else if (T.K == Token::Ident && T.Text[0] == '.') {
        parseBodyDirective(F, Current);
      } else if (T.K == Token::Ident && at(1).is(':') && !T.Text.empty() &&
                 T.Text[0] != '%') {
        Statement S;
        S.Label = take().Text;
        take();
        F.Body.push_back(std::move(S));
      } else {
        Statement S;
        S.Inst = parseInstruction(Current);
        F.Body.push_back(std::move(S));
      }
    }
  }

  struct Loc {
    unsigned File = 0, Line = 0, Column = 0;
  };

  void parseBodyDirective(Function &F, Loc &Current) {
    Token D = at();
    if (D.Text == ".reg") {
      take();
      parseRegisters(F, D.Line);
    } else if (D.Text == ".loc") {
      take();
      Current.File = expectUnsigned("a file number");
      Current.Line = expectUnsigned("a line");
      Current.Column = at().K == Token::Number && at().Line == D.Line
                           ? expectUnsigned("a column")
                           : 0;
      skipLine(D.Line); // , function_name ..., inlined_at ...
    } else if (D.Text == ".shared" || D.Text == ".local" ||
               D.Text == ".const" || D.Text == ".global" ||
               D.Text == ".param") {
      F.Variables.push_back(parseVariable(false));
    } else if (D.Text == ".pragma") {
      take();
      skipToSemicolon();
    } else {
      fail(D, "unexpected directive " + D.Text + " in a function body");
    }
  }

  void parseRegisters(Function &F, unsigned Line) {
    Token Type = expectIdent("a register type");
    if (Type.Text[0] != '.')
      fail(Type, "expected a register type, found " + describe(Type));
    while (true) {
      RegisterDecl R;
      R.Type = Type.Text.substr(1);
      R.Line = Line;
      R.Name = expectIdent("a register name").Text;
      if (at().is('<')) {
        take();
        R.Count = expectUnsigned("a register count");
        expect('>');
      }
      F.Registers.push_back(R);
      if (at().is(',')) {
        take();
        continue;
      }
      expect(';');
      return;
    }
  }

  Instruction parseInstruction(const Loc &Current) {
    Instruction I;
    I.Line = at().Line;
    I.Column = at().Column;
    I.LocFile = Current.File;
    I.LocLine = Current.Line;
    I.LocColumn = Current.Column;
    if (at().is('@')) {
      take();
      if (at().is('!')) {
        take();
        I.PredicateNegated = true;
      }
      I.Predicate = expectIdent("a predicate").Text;
    }
    Token Op = expectIdent("an instruction");
    if (Op.Text[0] == '.' || Op.Text[0] == '%')
      fail(Op, "expected an instruction, found " + describe(Op));
    I.Opcode = Op.Text;
    if (at().is(';')) {
      take();
      return I;
    }
    while (true) {
      I.Operands.push_back(parseOperand());
      if (at().is(',')) {
        take();
        continue;
      }
      if (!at().is(';'))
        fail(at(), "expected ',' or ';' after an operand of " + I.Opcode +
                       ", found " + describe(at()));
      take();
      return I;
    }
  }

  Immediate parseImmediate(bool Negative) {
    Token N = take();
    Immediate I;
    if (N.K != Token::Number || !parseNumber(N.Text, I))
      fail(N, "malformed number " + describe(N));
    if (Negative) {
      if (I.K == Immediate::Integer)
        I.Bits = ~I.Bits + 1;
      else if (I.K == Immediate::Decimal)
        I.Value = -I.Value;
      else
        I.Bits ^= I.K == Immediate::F32Bits ? 0x80000000u : uint64_t(1) << 63;
    }
    return I;
  }

  Operand parseOperand() {
    Operand O;
    O.Line = at().Line;
    O.Column = at().Column;
    if (at().is('!')) {
      take();
      Operand Inner = parseOperand();
      if (!Inner.isName())
        fail(at(), "'!' applies to a predicate");
      Inner.Negated = true;
      return Inner;
    }
    if (at().is('{')) {
      take();
      O.K = Operand::Vector;
      while (!at().is('}')) {
        O.Elements.push_back(parseOperand());
        if (at().is(','))
          take();
        else if (!at().is('}'))
          fail(at(),
               "expected ',' or '}' in a vector, found " + describe(at()));
      }
      take();
      if (O.Elements.empty())
        fail(at(), "empty vector operand");
      return O;
    }
    // call's (retval0) and (param0, param1): a list, possibly empty.
    if (at().is('(')) {
      take();
      O.K = Operand::Vector;
      while (!at().is(')')) {
        O.Elements.push_back(parseOperand());
        if (at().is(','))
          take();
        else if (!at().is(')'))
          fail(at(), "expected ',' or ')' in a list, found " + describe(at()));
      }
      take();
      return O;
    }
    if (at().is('['))
      return parseAddress();
    if (at().is('-') || at().K == Token::Number) {
      bool Negative = at().is('-');
      if (Negative)
        take();
      O.K = Operand::Imm;
      O.Value = parseImmediate(Negative);
      return O;
    }
    Token N = expectIdent("an operand");
    O.Text = N.Text;
    if (at().is('|')) {
      take();
      Operand Second;
      Second.Line = at().Line;
      Second.Column = at().Column;
      Second.Text = expectIdent("a second predicate").Text;
      Operand First = O;
      O.K = Operand::PredPair;
      O.Text.clear();
      O.Elements = {First, Second};
    }
    return O;
  }

  Operand parseAddress() {
    Operand O;
    O.Line = at().Line;
    O.Column = at().Column;
    O.K = Operand::Address;
    take(); // [
    Operand Base;
    Base.Line = at().Line;
    Base.Column = at().Column;
    if (at().K == Token::Number) {
      Base.K = Operand::Imm;
      Base.Value = parseImmediate(false);
    } else {
      Base.Text = expectIdent("an address").Text;
    }
    O.Elements.push_back(Base);
    O.Value.K = Immediate::Integer;
    while (at().is('+') || at().is('-')) {
      bool Negative = take().is('-');
      if (at().is('-')) { // [%rd1+-4]
        take();
        Negative = !Negative;
      }
      Immediate Off = parseImmediate(Negative);
      if (Off.K != Immediate::Integer)
        fail(at(), "address offset must be an integer");
      O.Value.Bits += Off.Bits;
    }
    expect(']');
    return O;
  }

  const std::string &File;
  std::vector<Token> Tokens;
  size_t Pos = 0;
};

} // namespace

const Function *Module::function(std::string_view Name) const {
  for (const Function &F : Functions)
    if (F.Name == Name && F.HasBody)
      return &F;
  return nullptr;
}

SourceLocation Module::source(const Instruction &I) const {
  if (!I.LocLine)
    return {};
  auto It = Files.find(I.LocFile);
  std::string Path = It == Files.end() ? "" : It->second;
  return {Path, I.LocLine, I.LocColumn};
}

Module parseModule(std::string_view Text, const std::string &FileName) {
  return Parser(Text, FileName).parseModule();
}

std::vector<Statement> parseStatements(std::string_view Text,
                                       const std::string &FileName,
                                       std::vector<RegisterDecl> &Registers) {
  return Parser(Text, FileName).parseTemplate(Registers);
}

} // namespace stagecheck::ptx

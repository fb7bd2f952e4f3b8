#include "frontends/fx/Graph.h"

#include "ir/Errors.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

namespace stagecheck::fx {

const Argument *Node::kwarg(const std::string &Name) const {
  for (const auto &[K, V] : Kwargs)
    if (K == Name)
      return &V;
  return nullptr;
}

const Node *Graph::node(const std::string &Name) const {
  auto It = ByName.find(Name);
  return It == ByName.end() ? nullptr : &Nodes[It->second];
}

bool Graph::append(Node N) {
  if (!ByName.emplace(N.Name, Nodes.size()).second)
    return false;
  Nodes.push_back(std::move(N));
  return true;
}

std::vector<const Node *> Graph::placeholders() const {
  std::vector<const Node *> Out;
  for (const Node &N : Nodes)
    if (N.K == Node::Kind::Placeholder)
      Out.push_back(&N);
  return Out;
}

std::string Argument::str() const {
  switch (K) {
  case Kind::None:
    return "None";
  case Kind::Bool:
    return B ? "True" : "False";
  case Kind::Int:
    return std::to_string(I);
  case Kind::Float:
    return Text;
  case Kind::String:
    return "'" + Text + "'";
  case Kind::NodeRef:
  case Kind::Dotted:
    return Text;
  case Kind::DType:
    return std::string("torch.") + abbreviation(Dt);
  case Kind::Device:
    return "device(" + Text + ")";
  case Kind::List:
  case Kind::Tuple: {
    std::string S = K == Kind::List ? "[" : "(";
    for (size_t I = 0; I < Items.size(); ++I)
      S += (I ? ", " : "") + Items[I].str();
    return S + (K == Kind::List ? "]" : ")");
  }
  }
  return "?";
}

namespace {

/// Reads one logical line of the printout: a cursor over its characters
/// that knows its position in the file.
class LineReader {
public:
  LineReader(const std::string &File, unsigned Line, std::string_view Text)
      : File(&File), Line(Line), Text(Text) {}

  [[noreturn]] void fail(const std::string &Message) const {
    throw ir::InputError({*File, Line, unsigned(Pos + 1)}, Message);
  }
  ir::SourceLocation here() const { return {*File, Line, unsigned(Pos + 1)}; }

  void skipSpaces() {
    while (Pos < Text.size() && (Text[Pos] == ' ' || Text[Pos] == '\t'))
      ++Pos;
  }
  bool atEnd() {
    skipSpaces();
    return Pos >= Text.size();
  }
  char peek() {
    skipSpaces();
    return Pos < Text.size() ? Text[Pos] : '\0';
  }
  bool consume(char C) {
    if (peek() != C)
      return false;
    ++Pos;
    return true;
  }
  void expect(char C) {
    if (!consume(C))
      fail(std::string("expected '") + C + "'" + found());
  }
  bool consumeWord(std::string_view W) {
    skipSpaces();
    if (Text.substr(Pos, W.size()) != W)
      return false;
    size_t End = Pos + W.size();
    if (End < Text.size() && isIdentChar(Text[End]))
      return false;
    Pos = End;
    return true;
  }
  std::string found() {
    if (atEnd())
      return ", found the end of the line";
    return ", found '" + std::string(Text.substr(Pos, 12)) + "'";
  }

  static bool isIdentStart(char C) {
    return std::isalpha(static_cast<unsigned char>(C)) || C == '_' || C == '<';
  }
  static bool isIdentChar(char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_';
  }

  std::string identifier() {
    skipSpaces();
    if (Pos >= Text.size() ||
        !(std::isalpha(static_cast<unsigned char>(Text[Pos])) ||
          Text[Pos] == '_'))
      fail("expected a name" + found());
    size_t Start = Pos;
    while (Pos < Text.size() && isIdentChar(Text[Pos]))
      ++Pos;
    return std::string(Text.substr(Start, Pos - Start));
  }

  /// A dotted name: torch.ops.aten.mul.Tensor.
  std::string dottedName() {
    std::string Name = identifier();
    while (peekRaw() == '.') {
      ++Pos;
      Name += "." + identifier();
    }
    return Name;
  }

  std::string stringLiteral() {
    char Quote = peek();
    if (Quote != '\'' && Quote != '"')
      fail("expected a string" + found());
    ++Pos;
    std::string S;
    while (Pos < Text.size() && Text[Pos] != Quote) {
      if (Text[Pos] == '\\' && Pos + 1 < Text.size())
        ++Pos;
      S += Text[Pos++];
    }
    if (Pos >= Text.size())
      fail("unterminated string");
    ++Pos;
    return S;
  }

  /// A number literal (sign handled by the caller): int, float, 1e-05.
  Argument number() {
    skipSpaces();
    Argument A;
    A.Loc = here();
    size_t Start = Pos;
    bool IsFloat = false;
    while (Pos < Text.size() &&
           (std::isdigit(static_cast<unsigned char>(Text[Pos])) ||
            Text[Pos] == '.' || Text[Pos] == 'e' || Text[Pos] == 'E' ||
            ((Text[Pos] == '-' || Text[Pos] == '+') && Pos > Start &&
             (Text[Pos - 1] == 'e' || Text[Pos - 1] == 'E')))) {
      if (!std::isdigit(static_cast<unsigned char>(Text[Pos])))
        IsFloat = true;
      ++Pos;
    }
    std::string Lit(Text.substr(Start, Pos - Start));
    if (Lit.empty())
      fail("expected a number" + found());
    if (IsFloat) {
      A.K = Argument::Kind::Float;
      A.Text = Lit;
      char *End = nullptr;
      A.F = std::strtod(Lit.c_str(), &End);
      if (End != Lit.c_str() + Lit.size())
        throw ir::InputError(A.Loc, "malformed number '" + Lit + "'");
    } else {
      A.K = Argument::Kind::Int;
      auto [Ptr, Ec] =
          std::from_chars(Lit.data(), Lit.data() + Lit.size(), A.I);
      if (Ec != std::errc() || Ptr != Lit.data() + Lit.size())
        throw ir::InputError(A.Loc, "malformed integer '" + Lit + "'");
    }
    return A;
  }

  char peekRaw() const { return Pos < Text.size() ? Text[Pos] : '\0'; }
  size_t position() const { return Pos; }
  std::string_view rest() const { return Text.substr(Pos); }
  void advance(size_t N) { Pos += N; }
  void seek(size_t P) { Pos = P; }

private:
  const std::string *File;
  unsigned Line;
  std::string_view Text;
  size_t Pos = 0;
};

Argument floatArg(double V, const std::string &Text, ir::SourceLocation L) {
  Argument A;
  A.K = Argument::Kind::Float;
  A.F = V;
  A.Text = Text;
  A.Loc = std::move(L);
  return A;
}

Argument negate(Argument A, const LineReader &R) {
  if (A.K == Argument::Kind::Int)
    A.I = -A.I;
  else if (A.K == Argument::Kind::Float) {
    A.F = -A.F;
    A.Text = "-" + A.Text;
  } else
    R.fail("'-' before something that is not a number");
  return A;
}

/// One argument expression: literals, names, lists, tuples, dtypes.
Argument parseValue(LineReader &R) {
  Argument A;
  A.Loc = R.here();
  char C = R.peek();
  if (C == '-') {
    R.advance(1);
    return negate(parseValue(R), R);
  }
  if (std::isdigit(static_cast<unsigned char>(C)) || C == '.')
    return R.number();
  if (C == '\'' || C == '"') {
    A.K = Argument::Kind::String;
    A.Text = R.stringLiteral();
    return A;
  }
  if (C == '[' || C == '(') {
    char Close = C == '[' ? ']' : ')';
    A.K = C == '[' ? Argument::Kind::List : Argument::Kind::Tuple;
    R.advance(1);
    bool TrailingComma = false;
    while (!R.consume(Close)) {
      A.Items.push_back(parseValue(R));
      TrailingComma = R.consume(',');
      if (!TrailingComma && R.peek() != Close)
        R.fail(std::string("expected ',' or '") + Close + "'" + R.found());
    }
    // "(x)" is a parenthesised value, "(x,)" a one-element tuple.
    if (A.K == Argument::Kind::Tuple && A.Items.size() == 1 && !TrailingComma)
      return A.Items[0];
    return A;
  }
  if (!LineReader::isIdentStart(C))
    R.fail("expected a value" + R.found());
  std::string Name = R.dottedName();
  if (Name == "None")
    return A.K = Argument::Kind::None, A;
  if (Name == "True" || Name == "False") {
    A.K = Argument::Kind::Bool;
    A.B = Name == "True";
    return A;
  }
  if (Name == "inf" || Name == "math.inf")
    return floatArg(std::numeric_limits<double>::infinity(), "inf", A.Loc);
  if (Name == "nan" || Name == "math.nan")
    return floatArg(std::numeric_limits<double>::quiet_NaN(), "nan", A.Loc);
  if (Name == "float" && R.peek() == '(') { // float('inf')
    R.expect('(');
    std::string S = R.stringLiteral();
    R.expect(')');
    double V = std::strtod(S.c_str(), nullptr);
    if (S != "inf" && S != "-inf" && S != "nan")
      R.fail("unexpected float('" + S + "')");
    return floatArg(V, S, A.Loc);
  }
  if (Name == "device" && R.peek() == '(') {
    R.expect('(');
    A.K = Argument::Kind::Device;
    size_t Depth = 1;
    while (Depth && !R.atEnd()) { // kept as text: only its presence matters
      char Ch = R.peekRaw();
      Depth += Ch == '(' ? 1 : Ch == ')' ? -1 : 0;
      if (Depth)
        A.Text += Ch;
      R.advance(1);
    }
    if (Depth)
      R.fail("unterminated device(...)");
    return A;
  }
  if (Name.rfind("torch.", 0) == 0) {
    DType D;
    if (parseTorchDType(Name.substr(6), D)) {
      A.K = Argument::Kind::DType;
      A.Dt = D;
      return A;
    }
    A.K = Argument::Kind::Dotted;
    A.Text = Name;
    return A;
  }
  if (Name.find('.') != std::string::npos)
    R.fail("unexpected name '" + Name + "' in an argument");
  A.K = Argument::Kind::NodeRef;
  A.Text = Name;
  return A;
}

std::vector<int64_t> parseIntList(LineReader &R) {
  std::vector<int64_t> Out;
  R.expect('[');
  while (!R.consume(']')) {
    Argument A = parseValue(R);
    if (A.K != Argument::Kind::Int)
      throw ir::InputError(A.Loc, "symbolic or non-integer size '" + A.str() +
                                      "' (only static shapes are supported)");
    Out.push_back(A.I);
    if (!R.consume(',') && R.peek() != ']')
      R.fail("expected ',' or ']'" + R.found());
  }
  return Out;
}

/// "f32[16, 64]", "f32[16, 64][64, 1]cuda:0", "i64[]".
TensorAnnotation parseAnnotation(const std::string &Text,
                                 const ir::SourceLocation &At) {
  LineReader R(At.File, At.Line, Text);
  TensorAnnotation A;
  std::string D = R.identifier();
  if (!parseDTypeAbbreviation(D, A.Dt))
    throw ir::InputError(At, "unsupported element type '" + D +
                                 "' in annotation \"" + Text + "\"");
  if (R.peek() != '[')
    throw ir::InputError(At, "annotation \"" + Text +
                                 "\" has no shape (symbolic values are not "
                                 "supported)");
  A.Shape = parseIntList(R);
  if (R.peek() == '[')
    A.Strides = parseIntList(R);
  if (A.Strides && A.Strides->size() != A.Shape.size())
    throw ir::InputError(At, "annotation \"" + Text +
                                 "\" has a different number of sizes and "
                                 "strides");
  // A device ("cuda:0") may follow; it does not change the meaning.
  return A;
}

/// Statement bodies that FX prints and that carry no meaning here.
bool isDeletion(std::string_view S) {
  // "x = None" or "x = y = None"
  size_t Eq = S.rfind('=');
  if (Eq == std::string_view::npos)
    return false;
  std::string_view Rhs = S.substr(Eq + 1);
  while (!Rhs.empty() && Rhs.front() == ' ')
    Rhs.remove_prefix(1);
  while (!Rhs.empty() && (Rhs.back() == ' ' || Rhs.back() == '\r'))
    Rhs.remove_suffix(1);
  return Rhs == "None" && S.find('(') == std::string_view::npos &&
         S.find('"') == std::string_view::npos;
}

/// Splits a line at top-level ';' (outside strings and brackets), keeping
/// each piece's starting column.
std::vector<std::pair<size_t, std::string_view>>
statements(std::string_view L) {
  std::vector<std::pair<size_t, std::string_view>> Out;
  size_t Start = 0;
  int Depth = 0;
  char Quote = 0;
  for (size_t I = 0; I <= L.size(); ++I) {
    // The line's end closes the last statement, balanced or not (the
    // parser then reports what is missing).
    if (I == L.size()) {
      Out.push_back({Start, L.substr(Start)});
      break;
    }
    char C = L[I];
    if (Quote) {
      if (C == Quote)
        Quote = 0;
      continue;
    }
    if (C == '\'' || C == '"')
      Quote = C;
    else if (C == '(' || C == '[')
      ++Depth;
    else if (C == ')' || C == ']')
      --Depth;
    else if (C == ';' && Depth == 0) {
      Out.push_back({Start, L.substr(Start, I - Start)});
      Start = I + 1;
    }
  }
  return Out;
}

class GraphParser {
public:
  GraphParser(const std::string &Text, const std::string &File)
      : Text(Text), File(File) {}

  Graph run() {
    G.File = File;
    splitLines();
    size_t I = findClass();
    I = parseSignature(I);
    for (; I < Lines.size(); ++I) {
      std::string_view L = Lines[I];
      size_t Indent = L.find_first_not_of(" \t");
      if (Indent == std::string_view::npos)
        continue;
      if (Indent <= SignatureIndent) // the forward method ended
        break;
      std::string_view Body = L.substr(Indent);
      if (Body.front() == '#') {
        comment(Body);
        continue;
      }
      if (Body.rfind("return", 0) == 0 &&
          (Body.size() == 6 || !LineReader::isIdentChar(Body[6]))) {
        parseReturn(I, Indent);
        Returned = true;
        break;
      }
      if (Body.rfind("class ", 0) == 0 || Body.rfind("def ", 0) == 0)
        throw ir::UnsupportedError(loc(I, Indent),
                                   "unsupported nested graph module");
      for (auto [Col, S] : statements(L))
        statement(I, L.substr(0, Col + S.size()), Col);
    }
    if (!Returned)
      throw ir::InputError({File, unsigned(Lines.size()), 1},
                           "the graph has no return statement");
    return std::move(G);
  }

private:
  const std::string &Text;
  const std::string &File;
  std::vector<std::string_view> Lines;
  Graph G;
  size_t SignatureIndent = 0;
  ModelSource Current;
  bool Returned = false;

  ir::SourceLocation loc(size_t Line, size_t Col) const {
    return {File, unsigned(Line + 1), unsigned(Col + 1)};
  }

  void splitLines() {
    std::string_view T = Text;
    size_t Start = 0;
    while (Start <= T.size()) {
      size_t End = T.find('\n', Start);
      if (End == std::string_view::npos)
        End = T.size();
      std::string_view L = T.substr(Start, End - Start);
      if (!L.empty() && L.back() == '\r')
        L.remove_suffix(1);
      Lines.push_back(L);
      Start = End + 1;
    }
  }

  size_t findClass() {
    for (size_t I = 0; I < Lines.size(); ++I) {
      std::string_view L = Lines[I];
      size_t Indent = L.find_first_not_of(" \t");
      if (Indent == std::string_view::npos)
        continue;
      std::string_view Body = L.substr(Indent);
      if (Body.rfind("class ", 0) == 0)
        return I + 1;
      if (Body == "ExportedProgram:" || Body.front() == '#' ||
          Body.rfind("import ", 0) == 0 || Body.rfind("from ", 0) == 0)
        continue;
      throw ir::InputError(loc(I, Indent),
                           "expected 'class ...(torch.nn.Module):' at the "
                           "start of an FX graph");
    }
    throw ir::InputError({File, 1, 1}, "no FX graph module in the file");
  }

  /// "def forward(self, a: "f32[4]", b: "f32[4]"):", possibly wrapped.
  size_t parseSignature(size_t I) {
    while (I < Lines.size() &&
           Lines[I].find_first_not_of(" \t") == std::string_view::npos)
      ++I;
    if (I >= Lines.size())
      throw ir::InputError({File, unsigned(I), 1}, "missing 'def forward'");
    std::string_view L = Lines[I];
    SignatureIndent = L.find_first_not_of(" \t");
    LineReader R(File, unsigned(I + 1), L);
    if (!R.consumeWord("def") || R.identifier() != "forward")
      R.fail("expected 'def forward(self, ...)'");
    R.expect('(');
    size_t Line = I;
    // Parameters may continue on the following lines.
    auto NextLine = [&]() {
      if (++Line >= Lines.size())
        R.fail("unterminated parameter list");
      R = LineReader(File, unsigned(Line + 1), Lines[Line]);
    };
    bool First = true;
    for (;;) {
      if (R.atEnd()) {
        NextLine();
        continue;
      }
      if (R.consume(')'))
        break;
      if (!First)
        R.expect(',');
      if (R.atEnd()) {
        NextLine();
      }
      if (R.consume(')'))
        break;
      First = false;
      ir::SourceLocation At = R.here();
      std::string Name = R.identifier();
      if (Name == "self")
        continue;
      Node N;
      N.K = Node::Kind::Placeholder;
      N.Name = Name;
      N.Loc = At;
      if (R.consume(':')) {
        R.skipSpaces();
        ir::SourceLocation AnnotAt = R.here();
        if (R.peek() != '"' && R.peek() != '\'')
          R.fail("expected a quoted annotation" + R.found());
        N.Annotation = parseAnnotation(R.stringLiteral(), AnnotAt);
      }
      add(std::move(N));
    }
    if (R.consume('-')) { // "-> ...": a return annotation
      while (!R.atEnd() && R.peekRaw() != ':')
        R.advance(1);
    }
    R.expect(':');
    return Line + 1;
  }

  void add(Node N) {
    ir::SourceLocation At = N.Loc;
    std::string Name = N.Name;
    if (!G.append(std::move(N)))
      throw ir::InputError(At, "'" + Name + "' is defined twice");
  }

  /// "# File: /path/model.py:33 in forward, code: return x * 2"
  void comment(std::string_view Body) {
    std::string_view Tag = "# File: ";
    if (Body.rfind(Tag, 0) != 0) {
      if (Body.rfind("# No stacktrace", 0) == 0)
        Current = ModelSource();
      return;
    }
    std::string_view Rest = Body.substr(Tag.size());
    size_t In = Rest.find(" in ");
    std::string_view Where = Rest.substr(0, In);
    size_t Colon = Where.rfind(':');
    Current = ModelSource();
    if (Colon != std::string_view::npos) {
      Current.File = std::string(Where.substr(0, Colon));
      Current.Line = unsigned(std::strtoul(
          std::string(Where.substr(Colon + 1)).c_str(), nullptr, 10));
    }
    size_t Code = Rest.find("code: ");
    if (Code != std::string_view::npos)
      Current.Code = std::string(Rest.substr(Code + 6));
  }

  /// One statement: the text of Line up to the statement's end, starting
  /// at column Col (so that every position reported is the line's own).
  void statement(size_t Line, std::string_view Upto, size_t Col) {
    std::string_view S = Upto.substr(Col);
    size_t Lead = S.find_first_not_of(" \t");
    if (Lead == std::string_view::npos)
      return;
    if (isDeletion(S))
      return;
    LineReader R(File, unsigned(Line + 1), Upto);
    R.seek(Col + Lead);
    Node N;
    N.Loc = loc(Line, Col + Lead);
    N.Source = Current;
    N.Name = R.identifier();
    if (R.consume(':')) {
      R.skipSpaces();
      ir::SourceLocation At = R.here();
      if (R.peek() != '"' && R.peek() != '\'')
        R.fail("expected a quoted annotation" + R.found());
      N.Annotation = parseAnnotation(R.stringLiteral(), At);
    }
    R.expect('=');
    expression(R, N);
    if (!R.atEnd())
      R.fail("unexpected text after the statement" + R.found());
    add(std::move(N));
  }

  /// torch.ops.aten.X.overload(args), operator.getitem(x, 0), getitem(x, 0),
  /// or x[0].
  void expression(LineReader &R, Node &N) {
    ir::SourceLocation At = R.here();
    std::string Callee = R.dottedName();
    if (R.consume('[')) { // x[0]
      N.K = Node::Kind::GetItem;
      N.Target = "operator.getitem";
      Argument Base;
      Base.K = Argument::Kind::NodeRef;
      Base.Text = Callee;
      Base.Loc = At;
      N.Args.push_back(Base);
      N.Args.push_back(parseValue(R));
      R.expect(']');
      checkRefs(N);
      return;
    }
    if (R.peek() != '(')
      R.fail("expected a call" + R.found());
    R.expect('(');
    std::string Target = Callee;
    if (Target.rfind("torch.ops.", 0) == 0)
      Target = Target.substr(10);
    if (Target == "getitem" || Target == "operator.getitem" ||
        Target == "_operator.getitem") {
      N.K = Node::Kind::GetItem;
      Target = "operator.getitem";
    }
    N.Target = Target;
    bool SawKeyword = false;
    while (!R.consume(')')) {
      // keyword = value (FX prints "correction = 0")
      size_t Save = R.position();
      R.skipSpaces();
      bool IsKeyword = false;
      if (LineReader::isIdentStart(R.peekRaw())) {
        std::string Word = R.identifier();
        if (R.peek() == '=' && R.rest().substr(0, 2) != "==") {
          R.expect('=');
          N.Kwargs.push_back({Word, parseValue(R)});
          IsKeyword = SawKeyword = true;
        }
      }
      if (!IsKeyword) {
        R.seek(Save);
        if (SawKeyword)
          R.fail("positional argument after a keyword argument");
        N.Args.push_back(parseValue(R));
      }
      if (!R.consume(',') && R.peek() != ')')
        R.fail("expected ',' or ')'" + R.found());
    }
    checkRefs(N);
  }

  void checkRefs(const Node &N) {
    for (const Argument &A : N.Args)
      checkRef(A);
    for (const auto &KV : N.Kwargs)
      checkRef(KV.second);
  }

  void checkRef(const Argument &A) {
    if (A.K == Argument::Kind::NodeRef && !G.node(A.Text))
      throw ir::InputError(A.Loc, "'" + A.Text + "' is not defined");
    for (const Argument &I : A.Items)
      checkRef(I);
  }

  void parseReturn(size_t Line, size_t Indent) {
    LineReader R(File, unsigned(Line + 1), Lines[Line]);
    R.seek(Indent + 6);
    G.ReturnLoc = loc(Line, Indent);
    if (R.atEnd())
      throw ir::InputError(G.ReturnLoc, "the graph returns nothing");
    Argument V = parseValue(R);
    if (!R.atEnd())
      R.fail("unexpected text after the return value" + R.found());
    flatten(V);
    for (const Argument &A : G.Outputs)
      checkRef(A);
  }

  void flatten(const Argument &V) {
    if (V.K == Argument::Kind::Tuple || V.K == Argument::Kind::List) {
      for (const Argument &I : V.Items)
        flatten(I);
      return;
    }
    G.Outputs.push_back(V);
  }
};

} // namespace

Graph parseGraph(const std::string &Text, const std::string &FileName) {
  return GraphParser(Text, FileName).run();
}

} // namespace stagecheck::fx

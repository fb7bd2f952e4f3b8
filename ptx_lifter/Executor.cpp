#include "ptx_lifter/Executor.h"

#include "ir/Errors.h"

#include <cstring>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

// --- Types and registers -----------------------------------------------------

std::optional<PtxType> PtxType::parse(std::string_view S) {
  PtxType T;
  if (S == "pred") {
    T.Kind = 'p';
    T.Bits = 1;
    return T;
  }
  if (S.size() > 2 && S.substr(S.size() - 2) == "x2") {
    S.remove_suffix(2);
    T.Lanes = 2;
  }
  if (S.rfind("bf", 0) == 0) {
    T.BFloat = true;
    S.remove_prefix(1);
  }
  if (S.size() < 2 || !std::strchr("busf", S[0]))
    return std::nullopt;
  T.Kind = S[0];
  std::string_view Digits = S.substr(1);
  if (Digits == "8")
    T.Bits = 8;
  else if (Digits == "16")
    T.Bits = 16;
  else if (Digits == "32")
    T.Bits = 32;
  else if (Digits == "64")
    T.Bits = 64;
  else
    return std::nullopt;
  // Only half formats pack in pairs; bf exists only as bf16.
  if ((T.Lanes == 2 && !(T.Kind == 'f' && T.Bits == 16)) ||
      (T.BFloat && !(T.Kind == 'f' && T.Bits == 16)) ||
      (T.Kind == 'f' && T.Bits == 8))
    return std::nullopt;
  return T;
}

Type PtxType::laneType() const {
  if (Kind == 'p')
    return Type::boolean();
  if (Kind != 'f')
    return Type::i(Bits);
  switch (Bits) {
  case 16:
    return BFloat ? Type::bf16() : Type::f16();
  case 32:
    return Type::f32();
  default:
    return Type::f64();
  }
}

void RegisterTable::declare(const RegisterDecl &D, const std::string &File) {
  auto T = PtxType::parse(D.Type);
  if (!T || T->totalBits() > 64)
    throw InputError({File, D.Line, 0},
                     "register type ." + D.Type + " is not supported");
  RegisterInfo Info{T->isPred() ? 1u : std::max(T->totalBits(), 16u),
                    T->isPred()};
  // .b8 registers do not exist in hardware; PTX widens them to 16 bits.
  if (D.Count)
    Ranges[D.Name] = {Info, *D.Count};
  else
    Named[D.Name] = Info;
}

void RegisterTable::declare(const std::string &Name, RegisterInfo Info) {
  Named[Name] = Info;
}

const RegisterInfo *RegisterTable::find(const std::string &Name) const {
  if (auto It = Named.find(Name); It != Named.end())
    return &It->second;
  size_t Digits = Name.size();
  while (Digits > 0 &&
         std::isdigit(static_cast<unsigned char>(Name[Digits - 1])))
    --Digits;
  if (Digits == Name.size() || Digits == 0)
    return nullptr;
  auto It = Ranges.find(Name.substr(0, Digits));
  if (It == Ranges.end())
    return nullptr;
  std::string Index = Name.substr(Digits);
  if (Index.size() > 1 && Index[0] == '0')
    return nullptr;
  if (Index.size() > 9 || std::stoul(Index) >= It->second.second)
    return nullptr;
  return &It->second.first;
}

PathState PathState::with(Context &C, const Expr *Literal) const {
  PathState S = *this;
  if (Literal->isTrue())
    return S;
  S.Conjuncts.push_back(Literal);
  S.Condition = Condition ? C.andOf(Condition, Literal) : Literal;
  return S;
}

// --- The executor ----------------------------------------------------------

SourceLocation Executor::ptxLocation(const Instruction &I) const {
  if (Site.FixedSource) // inline asm: the call's location
    return *Site.FixedSource;
  return {Site.PtxFile, I.Line, I.Column};
}

Origin Executor::origin(const Instruction &I) const {
  if (Site.FixedSource)
    return {I.Opcode, *Site.FixedSource};
  SourceLocation Source = Site.Mod ? Site.Mod->source(I) : SourceLocation{};
  return {I.Opcode, Source.known() ? Source : ptxLocation(I)};
}

const Expr *Executor::registerValue(const PathState &S,
                                    const std::string &Name) {
  std::string Canonical = Name;
  if (auto A = Names.Aliases.find(Name); A != Names.Aliases.end())
    Canonical = A->second;
  if (auto It = S.Registers.find(Canonical); It != S.Registers.end())
    return It->second;
  if (Canonical == CarryFlagRegister)
    return M.context().symbol("uninit.cc", Type::boolean());
  const RegisterInfo *R = Registers.find(Canonical);
  if (!R)
    throw IRError("no register " + Name);
  // One symbol per width, not per register: the LLVM IR frontend's inline
  // asm leaves the same garbage where PTX leaves an unwritten register.
  return M.context().symbol("uninit.b" + std::to_string(R->Bits),
                            Type::i(R->Bits));
}

void Executor::execute(const Instruction &I, PathState &S) {
  const ThreadEffects &Now = M.current();
  EffectCounts Before{Now.Effects.Writes.size(), Now.Exchanges.size(),
                      Now.Effects.Undefined.size(), Now.Effects.Atomics.size()};
  try {
    dispatch(I, S);
  } catch (const UnsupportedError &E) {
    if (Record && ContinueOnUnsupported) {
      skipUnsupported(I, S, E.What);
      return;
    }
    // The PTX line is what a reader of this stage needs.
    throw UnsupportedError(ptxLocation(I), E.What);
  } catch (const IRError &E) {
    throw InputError(ptxLocation(I),
                     "ill-typed instruction " + I.Opcode + ": " + E.what());
  }
  if (Record)
    recordProvenance(I, S, Before);
}

void Executor::skipUnsupported(const Instruction &I, PathState &S,
                               const std::string &Reason) {
  Record->Unsupported.push_back({I.Opcode, I.Line, Reason});
  if (I.Operands.empty())
    return;
  const Operand &D = I.Operands[0];
  std::vector<const Operand *> Names = {&D};
  if (D.K == Operand::Vector || D.K == Operand::PredPair)
    for (const Operand &E : D.Elements)
      Names.push_back(&E);
  for (const Operand *N : Names)
    if (N->K == Operand::Name)
      if (const RegisterInfo *R = Registers.find(N->Text))
        S.Registers[N->Text] =
            M.context().fresh("unsupported", Type::i(R->Bits));
}

namespace {

void expressionsOf(const ThreadEffects &T, const EffectCounts &From,
                   std::vector<const Expr *> &Out) {
  for (size_t K = From.Writes; K < T.Effects.Writes.size(); ++K) {
    const Write &W = T.Effects.Writes[K];
    Out.insert(Out.end(), {W.Guard, W.Index, W.Value, W.Defined});
  }
  for (size_t K = From.Exchanges; K < T.Exchanges.size(); ++K) {
    const Exchange &X = T.Exchanges[K];
    Out.push_back(X.Guard);
    Out.insert(Out.end(), X.Operands.begin(), X.Operands.end());
    Out.insert(Out.end(), X.Results.begin(), X.Results.end());
  }
  for (size_t K = From.Undefined; K < T.Effects.Undefined.size(); ++K)
    Out.push_back(T.Effects.Undefined[K].Condition);
  for (size_t K = From.Atomics; K < T.Effects.Atomics.size(); ++K) {
    const Atomic &A = T.Effects.Atomics[K];
    Out.insert(Out.end(), {A.Guard, A.Index, A.Value});
    if (A.Compare)
      Out.push_back(A.Compare);
  }
}

void noteLines(std::vector<unsigned> &Lines, size_t From, size_t To,
               unsigned Line) {
  for (size_t K = From; K < To; ++K)
    Lines.push_back(Line);
}

} // namespace

void Executor::undefinedAt(const Instruction &I, const Expr *Condition,
                           const std::string &Reason) {
  size_t Before = M.current().Effects.Undefined.size();
  M.undefined(Condition, Reason, origin(I));
  if (Record)
    noteLines(Record->UndefinedLines, Before,
              M.current().Effects.Undefined.size(), I.Line);
}

void Executor::recordProvenance(const Instruction &I, const PathState &S,
                                const EffectCounts &Before) {
  const ThreadEffects &Now = M.current();
  noteLines(Record->WriteLines, Before.Writes, Now.Effects.Writes.size(),
            I.Line);
  noteLines(Record->ExchangeLines, Before.Exchanges, Now.Exchanges.size(),
            I.Line);
  noteLines(Record->UndefinedLines, Before.Undefined,
            Now.Effects.Undefined.size(), I.Line);
  noteLines(Record->AtomicLines, Before.Atomics, Now.Effects.Atomics.size(),
            I.Line);
  // Nodes reached from what this instruction wrote and not attributed yet
  // are attributed to it: the first instruction whose result holds them.
  std::vector<const Expr *> Stack;
  for (const Operand &O : I.Operands) {
    std::vector<const Operand *> Names = {&O};
    for (const Operand &E : O.Elements)
      Names.push_back(&E);
    for (const Operand *N : Names)
      if (N->K == Operand::Name)
        if (auto It = S.Registers.find(N->Text); It != S.Registers.end())
          Stack.push_back(It->second);
  }
  expressionsOf(Now, Before, Stack);
  PtxSite Site{I.Opcode, I.Line, origin(I).Loc};
  while (!Stack.empty()) {
    const Expr *E = Stack.back();
    Stack.pop_back();
    if (!E || !Record->Provenance.emplace(E, Site).second)
      continue;
    for (const Expr *Operand : E->operands())
      Stack.push_back(Operand);
  }
}

void Executor::dispatch(const Instruction &I, PathState &S) {
  Step St(*this, I, S);
  if (liftIntegerOp(St) || liftFloatOp(St) || liftCompareOp(St) ||
      liftConvertOp(St) || liftMemoryOp(St) || liftCollectiveOp(St))
    return;
  St.unsupported("unsupported instruction " + I.Opcode);
}

// --- Steps -------------------------------------------------------------------

Step::Step(Executor &X, const Instruction &I, PathState &S)
    : C(X.M.context()), M(X.M), I(I), S(S), X(X) {
  size_t Start = 0;
  while (true) {
    size_t Dot = I.Opcode.find('.', Start);
    std::string Part = I.Opcode.substr(Start, Dot - Start);
    if (Start == 0)
      Base = Part;
    else
      Mods.push_back(Part);
    if (Dot == std::string::npos)
      break;
    Start = Dot + 1;
  }
}

bool Step::has(std::string_view Mod) const {
  for (const std::string &M : Mods)
    if (M == Mod)
      return true;
  return false;
}

std::string Step::mod(int Index) const {
  int N = int(Mods.size());
  int K = Index < 0 ? N + Index : Index;
  return K >= 0 && K < N ? Mods[K] : std::string();
}

PtxType Step::typeAt(int Index) const {
  std::string M = mod(Index);
  auto T = PtxType::parse(M);
  if (!T && M.empty())
    malformed(I.Opcode + " has no type");
  if (!T) // .b128, .tf32, .e4m3x2, .s16x2 ...
    unsupported("unsupported instruction " + I.Opcode + " (type ." + M + ")");
  return *T;
}

PtxType Step::type() const { return typeAt(-1); }

namespace {

struct RoundingName {
  const char *Name;
  RoundingMode Mode;
};
const RoundingName Roundings[] = {
    {"rn", RoundingMode::NearestEven},  {"rz", RoundingMode::TowardZero},
    {"rm", RoundingMode::Down},         {"rp", RoundingMode::Up},
    {"rni", RoundingMode::NearestEven}, {"rzi", RoundingMode::TowardZero},
    {"rmi", RoundingMode::Down},        {"rpi", RoundingMode::Up},
};

} // namespace

RoundingMode Step::rounding(RoundingMode Default) const {
  for (const RoundingName &R : Roundings)
    if (has(R.Name))
      return R.Mode;
  return Default;
}

bool Step::hasRounding() const {
  for (const RoundingName &R : Roundings)
    if (has(R.Name))
      return true;
  return false;
}

const Expr *Step::predicate() {
  if (Predicate)
    return Predicate;
  if (I.Predicate.empty())
    return Predicate = C.trueExpr();
  Operand P;
  P.Text = I.Predicate;
  P.Negated = I.PredicateNegated;
  return Predicate = pred(P);
}

void Executor::storeReturn(unsigned Offset, const Expr *Bits,
                           const Expr *Guard) {
  std::vector<const Expr *> Bytes = M.split(Bits, Bits->type().bits() / 8);
  for (unsigned K = 0; K < Bytes.size(); ++K)
    ReturnBytes[Offset + K] =
        M.context().select(Guard, Bytes[K], returnByte(Offset + K));
}

const Expr *Executor::returnByte(unsigned Offset) {
  auto It = ReturnBytes.find(Offset);
  if (It != ReturnBytes.end())
    return It->second;
  return ReturnBytes[Offset] = M.context().symbol(
             "retval.uninit." + std::to_string(Offset), Type::i(8),
             SymbolRole::Free);
}

const Expr *Step::guard() {
  const Expr *P = predicate();
  return S.Condition ? C.andOf(S.Condition, P) : P;
}

void Step::expectOperands(size_t Min, size_t Max) const {
  if (Max == 0)
    Max = Min;
  if (count() < Min || count() > Max)
    malformed(I.Opcode + " takes " +
              (Min == Max
                   ? std::to_string(Min)
                   : std::to_string(Min) + " to " + std::to_string(Max)) +
              " operands, not " + std::to_string(count()));
}

const Operand &Step::operand(unsigned K) const {
  if (K >= count())
    malformed(I.Opcode + " lacks operand " + std::to_string(K + 1));
  return I.Operands[K];
}

namespace {

const char *const SpecialDims[] = {"x", "y", "z"};

int specialDim(const std::string &Name, const std::string &Prefix) {
  for (int D = 0; D < 3; ++D)
    if (Name == Prefix + "." + SpecialDims[D])
      return D;
  return -1;
}

/// The special registers the model has no value for.
bool isSpecialRegister(const std::string &Name) {
  static const char *const Prefixes[] = {"%clock",
                                         "%warpid",
                                         "%nwarpid",
                                         "%smid",
                                         "%nsmid",
                                         "%gridid",
                                         "%lanemask",
                                         "%pm",
                                         "%envreg",
                                         "%globaltimer",
                                         "%cluster",
                                         "%nclusterid",
                                         "%is_explicit_cluster",
                                         "%dynamic_smem_size",
                                         "%total_smem_size",
                                         "%aggr_smem_size",
                                         "%reserved_smem",
                                         "%current_graph_exec"};
  for (const char *P : Prefixes)
    if (Name.rfind(P, 0) == 0)
      return true;
  return false;
}

} // namespace

const Expr *Step::nameValue(const Operand &O, unsigned Width) {
  const std::string &N = O.Text;
  if (auto It = X.Names.Immediates.find(N); It != X.Names.Immediates.end())
    return C.constant(Type::i(Width), uint64_t(It->second));
  std::string Canonical = N;
  if (auto A = X.Names.Aliases.find(N); A != X.Names.Aliases.end())
    Canonical = A->second;
  if (const RegisterInfo *R = X.Registers.find(Canonical)) {
    if (R->IsPred && Width != 1)
      malformed("predicate " + N + " used as a " + std::to_string(Width) +
                "-bit value");
    if (R->Bits < Width)
      malformed(N + " has " + std::to_string(R->Bits) + " bits, " + I.Opcode +
                " reads " + std::to_string(Width));
    const Expr *V = X.registerValue(S, Canonical);
    return R->Bits == Width ? V : C.cast(Op::Trunc, V, Type::i(Width));
  }
  const Expr *Special = nullptr;
  if (int D = specialDim(N, "%tid"); D >= 0)
    Special = M.threadId(unsigned(D));
  else if (int D = specialDim(N, "%ctaid"); D >= 0)
    Special = M.programId(unsigned(D));
  else if (int D = specialDim(N, "%nctaid"); D >= 0)
    Special = M.numPrograms(unsigned(D));
  else if (int D = specialDim(N, "%ntid"); D >= 0)
    Special = M.blockDim(unsigned(D));
  else if (N == "%laneid")
    Special = M.laneId();
  else if (N == "WARP_SZ")
    Special = M.warpSize();
  else if (X.Names.SharedVariables.count(N))
    return M.sharedBase(Width == 64 ? 64 : 32);
  else if (auto P = X.Names.PrivateVariables.find(N);
           P != X.Names.PrivateVariables.end())
    return C.zextOrTrunc(P->second, Type::i(Width == 64 ? 64 : 32));
  else if (isSpecialRegister(N))
    unsupported("special register " + N);
  else if (N[0] == '%')
    malformed("unknown register " + N);
  if (Special)
    return C.zextOrTrunc(Special, Type::i(Width));
  // The address of a parameter (llc selects between two and loads from
  // the result): a symbol that only ld.param resolves.
  if (auto It = X.Names.Params.find(N); It != X.Names.Params.end() && Width == 64)
    return C.symbol("param.address." + std::to_string(It->second.Index),
                    Type::i(64), SymbolRole::Free);
  if (X.Names.Params.count(N))
    unsupported("address of parameter " + N);
  malformed("unknown name " + N);
}

const Expr *Step::bits(const Operand &O, unsigned Width,
                       std::optional<PtxType> T) {
  switch (O.K) {
  case Operand::Imm:
    return immediateBits(C, O.Value, Width, T);
  case Operand::Name:
    if (O.Negated)
      malformed("'!' only negates a predicate operand");
    if (O.Text == "_")
      malformed("'_' is not a source operand");
    return nameValue(O, Width);
  case Operand::Vector:
    if (O.Elements.size() == 1)
      return bits(O.Elements[0], Width, T);
    malformed("a vector where " + I.Opcode + " takes a scalar");
  default:
    malformed("an address where " + I.Opcode + " takes a value");
  }
}

const Expr *Step::floatLane(unsigned K, PtxType T, unsigned Lane) {
  const Expr *All = value(K, T);
  const Expr *Bits = T.Lanes == 1 ? All : M.split(All, T.Lanes)[Lane];
  return M.fromBits(Bits, T.laneType());
}

const Expr *Step::pred(const Operand &O) {
  const Expr *V;
  if (O.K == Operand::Imm) {
    V = C.boolean(O.Value.Bits != 0);
  } else if (O.K == Operand::Name) {
    std::string Canonical = O.Text;
    if (auto A = X.Names.Aliases.find(O.Text); A != X.Names.Aliases.end())
      Canonical = A->second;
    if (auto It = X.Names.Immediates.find(O.Text);
        It != X.Names.Immediates.end()) {
      V = C.boolean(It->second != 0);
    } else {
      const RegisterInfo *R = X.Registers.find(Canonical);
      if (!R || !R->IsPred)
        malformed(O.Text + " is not a predicate");
      V = X.registerValue(S, Canonical);
    }
  } else {
    malformed("expected a predicate operand in " + I.Opcode);
  }
  return O.Negated ? C.notOf(V) : V;
}

const Expr *Step::address(unsigned K, unsigned SymbolWidth) {
  const Operand &O = operand(K);
  if (O.K != Operand::Address)
    malformed(I.Opcode + " takes an address [..] as operand " +
              std::to_string(K + 1));
  const Operand &B = O.base();
  const Expr *Base;
  if (B.K == Operand::Imm) {
    Base = immediateBits(C, B.Value, SymbolWidth, std::nullopt);
  } else if (const RegisterInfo *R = X.Registers.find(B.Text);
             R || X.Names.Aliases.count(B.Text)) {
    unsigned W = R ? R->Bits : registerBits(B);
    Base = bits(B, W);
  } else {
    Base = bits(B, SymbolWidth);
  }
  return C.add(Base, C.constant(Base->type(), O.Value.Bits));
}

std::vector<const Operand *> Step::elements(unsigned K) const {
  const Operand &O = operand(K);
  std::vector<const Operand *> Out;
  if (O.K == Operand::Vector)
    for (const Operand &E : O.Elements)
      Out.push_back(&E);
  else
    Out.push_back(&O);
  return Out;
}

unsigned Step::registerBits(const Operand &O) const {
  if (O.K != Operand::Name)
    return 0;
  std::string Canonical = O.Text;
  if (auto A = X.Names.Aliases.find(O.Text); A != X.Names.Aliases.end())
    Canonical = A->second;
  const RegisterInfo *R = X.Registers.find(Canonical);
  return R ? R->Bits : 0;
}

unsigned Step::destinationBits(const Operand &O) const {
  const Operand *D = &O;
  if (O.K == Operand::Vector && O.Elements.size() == 1)
    D = &O.Elements[0];
  unsigned Bits = registerBits(*D);
  if (!Bits)
    malformed("destination of " + I.Opcode + " is not a register");
  return Bits;
}

void Step::set(const Operand &O, const Expr *Value, bool SignExtend) {
  const Operand *D = &O;
  if (O.K == Operand::Vector && O.Elements.size() == 1)
    D = &O.Elements[0];
  if (D->K == Operand::Name && D->Text == "_")
    return;
  if (D->K != Operand::Name || D->Negated)
    malformed("destination of " + I.Opcode + " is not a register");
  std::string Canonical = D->Text;
  if (auto A = X.Names.Aliases.find(D->Text); A != X.Names.Aliases.end())
    Canonical = A->second;
  const RegisterInfo *R = X.Registers.find(Canonical);
  if (!R)
    malformed(D->Text + " is not a declared register");
  unsigned Bits = Value->type().bits();
  if (R->IsPred != (Bits == 1))
    malformed(D->Text +
              (R->IsPred ? " is a predicate; " : " is not a predicate; ") +
              I.Opcode + " writes " + std::to_string(Bits) + " bits");
  if (Bits > R->Bits)
    malformed(D->Text + " has " + std::to_string(R->Bits) + " bits, " +
              I.Opcode + " writes " + std::to_string(Bits));
  if (Bits < R->Bits)
    Value = SignExtend ? C.sextOrTrunc(Value, Type::i(R->Bits))
                       : C.zextOrTrunc(Value, Type::i(R->Bits));
  const Expr *P = predicate();
  if (!P->isTrue())
    Value = C.select(P, Value, X.registerValue(S, Canonical));
  S.Registers[Canonical] = Value;
}

void Step::setFloats(unsigned K, const std::vector<const Expr *> &Lanes) {
  std::vector<const Expr *> Bits;
  for (const Expr *L : Lanes)
    Bits.push_back(M.toBits(L));
  set(K, M.concat(Bits));
}

void Step::unsupported(const std::string &What) const {
  throw UnsupportedError(X.ptxLocation(I), What);
}

void Step::malformed(const std::string &Message) const {
  throw InputError(X.ptxLocation(I), Message);
}

// --- Immediates --------------------------------------------------------------

const Expr *immediateBits(Context &C, const Immediate &V, unsigned Width,
                          std::optional<PtxType> T) {
  Type I = Type::i(Width);
  bool FloatContext = T && T->isFloat() && T->Lanes == 1;
  Type F = FloatContext ? T->laneType() : Type::f32();
  switch (V.K) {
  case Immediate::Integer:
    if (FloatContext) // an integer literal in a float instruction: its value
      return C.cast(Op::Bitcast, C.floatConst(F, double(int64_t(V.Bits))), I);
    return C.constant(I, V.Bits);
  case Immediate::F32Bits:
  case Immediate::F64Bits: {
    Type Source = V.K == Immediate::F32Bits ? Type::f32() : Type::f64();
    if (!FloatContext || F == Source)
      return C.constant(I, V.Bits);
    const Expr *Raw = C.constant(Type::i(Source.bits()), V.Bits);
    const Expr *Float = C.cast(Op::Bitcast, Raw, Source);
    return C.cast(Op::Bitcast, C.cast(Op::FPCast, Float, F), I);
  }
  case Immediate::Decimal:
    if (!FloatContext) // a bit-typed use: the format of that width
      F = Width == 64 ? Type::f64() : Width == 16 ? Type::f16() : Type::f32();
    return C.cast(Op::Bitcast, C.floatConst(F, V.Value), I);
  }
  return C.constant(I, V.Bits);
}

} // namespace stagecheck::ptx

#include "frontends/fx/Lift.h"

#include "frontends/fx/AtenTable.h"
#include "ir/Errors.h"

#include <cmath>
#include <deque>
#include <set>

using namespace stagecheck::ir;

namespace stagecheck::fx {

const Expr *TensorBinding::linearIndex(Context &C, const Index &I) const {
  const Expr *Sum = i64(C, Offset);
  for (size_t D = 0; D < I.size(); ++D)
    Sum = C.add(Sum, C.mul(I[D], i64(C, Strides[D])));
  return Sum;
}

TensorBinding contiguousBinding(const std::string &Buffer, DType D,
                                const Shape &S) {
  return {Buffer, D, S, contiguousStrides(S), 0};
}

/// One past the largest element index a binding reaches.
static uint64_t extent(const TensorBinding &B) {
  int64_t Last = B.Offset;
  for (size_t D = 0; D < B.Sizes.size(); ++D) {
    if (B.Sizes[D] == 0)
      return uint64_t(B.Offset);
    Last += (B.Sizes[D] - 1) * B.Strides[D];
  }
  return uint64_t(Last + 1);
}

Tensor boundTensor(Context &C, const TensorBinding &B) {
  Type Element = irType(B.Dt);
  Tensor T(B.Dt, B.Sizes, [&C, B, Element](const Index &I) {
    return C.read(B.Buffer, Element, B.linearIndex(C, I));
  });
  std::string Buffer = B.Buffer;
  T.setStorage(
      [&C, Buffer, Element](const Expr *Linear) {
        return C.read(Buffer, Element, Linear);
      },
      B.Offset);
  return T;
}

//===----------------------------------------------------------------------===//
// Lowerer: evaluates nodes on demand.
//===----------------------------------------------------------------------===//

class Lowerer : public std::enable_shared_from_this<Lowerer> {
public:
  Lowerer(Context &C, const Graph *G, const LiftOptions &O)
      : C(C), G(G), Options(O) {}

  Context &C;
  const Graph *G;
  /// The lowerer's own copy of the graph G points into: the element
  /// functions of the tensors it made keep OpCalls, whose nodes they read
  /// (an undefined-behaviour condition's origin) whenever an element is
  /// asked for, after the caller's graph may be gone.
  std::shared_ptr<const Graph> OwnedGraph;
  LiftOptions Options;
  std::map<std::string, OpResult> Values;
  std::deque<Node> OwnedNodes; // nodes made up by applyOp
  std::vector<UndefinedBehavior> PendingUB;
  std::map<std::string, LiftedParam> UsedParams;
  std::set<std::string> InProgress;

  const OpResult &value(const std::string &Name, const SourceLocation &Use) {
    auto It = Values.find(Name);
    if (It != Values.end())
      return It->second;
    const Node *N = G ? G->node(Name) : nullptr;
    if (!N)
      throw InputError(Use, "'" + Name + "' has no value");
    if (!InProgress.insert(Name).second)
      throw InputError(N->Loc, "'" + Name + "' depends on itself");
    OpResult R = evaluate(*N);
    InProgress.erase(Name);
    checkAnnotation(*N, R);
    return Values[Name] = std::move(R);
  }

  OpResult evaluate(const Node &N) {
    if (N.K == Node::Kind::GetItem)
      return getItem(N);
    const OpDefinition *D = lookupOp(N.Target);
    if (!D)
      throw UnsupportedError(N.Loc, "unsupported op " + opName(N.Target));
    OpCall Call(shared_from_this(), C, N);
    return D->Fn(Call);
  }

  static std::string opName(const std::string &Target) {
    // "aten.mul.Tensor" -> "aten.mul"
    size_t First = Target.find('.');
    if (First == std::string::npos)
      return Target;
    size_t Second = Target.find('.', First + 1);
    return Second == std::string::npos ? Target : Target.substr(0, Second);
  }

  OpResult getItem(const Node &N) {
    if (N.Args.size() != 2 || N.Args[0].K != Argument::Kind::NodeRef ||
        N.Args[1].K != Argument::Kind::Int)
      throw InputError(N.Loc, "getitem needs a value and an integer index");
    const OpResult &Base = value(N.Args[0].Text, N.Args[0].Loc);
    int64_t I = N.Args[1].I;
    if (!Base.IsTuple)
      throw InputError(N.Loc, "getitem of '" + N.Args[0].Text +
                                  "', which is a single tensor");
    if (I < 0)
      I += int64_t(Base.Items.size());
    if (I < 0 || I >= int64_t(Base.Items.size()))
      throw InputError(N.Args[1].Loc, "index " + std::to_string(N.Args[1].I) +
                                          " out of range for a tuple of " +
                                          std::to_string(Base.Items.size()));
    return OpResult(Base.Items[size_t(I)]);
  }

  /// The table's result must be what the printed graph says it is; a
  /// disagreement means the table does not model this use of the op.
  void checkAnnotation(const Node &N, const OpResult &R) {
    if (!N.Annotation || R.IsTuple || R.Items.size() != 1)
      return;
    const Tensor &T = R.Items[0];
    if (T.dtype() == N.Annotation->Dt && T.shape() == N.Annotation->Shape)
      return;
    throw UnsupportedError(
        N.Loc, "unsupported use of " + opName(N.Target) +
                   ": the semantics table gives " +
                   describe(T.dtype(), T.shape()) + " where the graph says " +
                   describe(N.Annotation->Dt, N.Annotation->Shape));
  }

  static std::string describe(DType D, const Shape &S) {
    std::string Out = std::string(abbreviation(D)) + "[";
    for (size_t I = 0; I < S.size(); ++I)
      Out += (I ? ", " : "") + std::to_string(S[I]);
    return Out + "]";
  }

  /// A literal of node N that stands for a model parameter (Lift.h).
  std::optional<Scalar> parameter(const Node &N, const Argument &A) {
    if (N.Source.Code.empty())
      return std::nullopt;
    struct Candidate {
      const ParamValue *P;
      size_t Mention;
    };
    std::vector<Candidate> Candidates;
    for (const ParamValue &P : Options.Params) {
      bool Equal =
          A.K == Argument::Kind::Int ? double(A.I) == P.Value : A.F == P.Value;
      if (!Equal)
        continue;
      size_t At = mention(N.Source.Code, P.Name);
      if (At != std::string::npos)
        Candidates.push_back({&P, At});
    }
    if (Candidates.empty())
      return std::nullopt;
    std::sort(Candidates.begin(), Candidates.end(),
              [](const Candidate &X, const Candidate &Y) {
                return X.Mention < Y.Mention;
              });
    // Several parameters of equal value named on one line: the k-th such
    // literal of the line is the k-th parameter named.
    std::string Key =
        N.Source.File + ":" + std::to_string(N.Source.Line) + "=" + A.str();
    size_t K = LiteralUses[Key]++ % Candidates.size();
    const ParamValue &P = *Candidates[K].P;
    LiftedParam &Used = UsedParams[P.Name];
    if (!Used.Symbol) {
      Used.Name = P.Name;
      Used.Value = P.Value;
      Used.Symbol = C.symbol(P.Name, P.IsInteger ? Type::i(64) : Type::f64(),
                             SymbolRole::Param);
    }
    Used.Uses.push_back(A.Loc);
    return Scalar{Used.Symbol,
                  P.IsInteger ? Category::Integer : Category::Floating};
  }

  /// Where Code names Name as a whole identifier (self.name or name).
  static size_t mention(const std::string &Code, const std::string &Name) {
    auto IsIdent = [](char Ch) {
      return std::isalnum(static_cast<unsigned char>(Ch)) || Ch == '_';
    };
    for (size_t At = Code.find(Name); At != std::string::npos;
         At = Code.find(Name, At + 1)) {
      bool Start = At == 0 || !IsIdent(Code[At - 1]);
      bool End =
          At + Name.size() >= Code.size() || !IsIdent(Code[At + Name.size()]);
      if (Start && End)
        return At;
    }
    return std::string::npos;
  }

private:
  std::map<std::string, size_t> LiteralUses;
};

//===----------------------------------------------------------------------===//
// OpCall
//===----------------------------------------------------------------------===//

std::string OpCall::op() const { return Lowerer::opName(N.Target); }

std::string OpCall::overload() const {
  std::string Op = op();
  return N.Target.size() > Op.size() ? N.Target.substr(Op.size() + 1) : "";
}

const Argument *OpCall::arg(unsigned Pos, const char *Keyword) const {
  if (Pos < N.Args.size())
    return &N.Args[Pos];
  if (Keyword)
    return N.kwarg(Keyword);
  return nullptr;
}

bool OpCall::has(unsigned Pos, const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  return A && A->K != Argument::Kind::None;
}

static std::string argName(unsigned Pos, const char *Keyword) {
  return Keyword ? "'" + std::string(Keyword) + "'"
                 : "argument " + std::to_string(Pos + 1);
}

Operand OpCall::resolve(const Argument &A) const {
  Operand O;
  switch (A.K) {
  case Argument::Kind::NodeRef: {
    const OpResult &R = L->value(A.Text, A.Loc);
    if (R.IsTuple || R.Items.size() != 1)
      throw InputError(A.Loc, "'" + A.Text + "' is a tuple, not a tensor");
    O.T = R.Items[0];
    return O;
  }
  case Argument::Kind::Int:
  case Argument::Kind::Float:
    if (std::optional<Scalar> P = L->parameter(N, A)) {
      O.S = *P;
      return O;
    }
    if (A.K == Argument::Kind::Int)
      O.S = {i64(C, A.I), Category::Integer};
    else
      O.S = {C.floatConst(Type::f64(), A.F), Category::Floating};
    return O;
  case Argument::Kind::Bool:
    O.S = {C.boolean(A.B), Category::Bool};
    return O;
  default:
    throw InputError(A.Loc, "expected a tensor or a number, found " + A.str());
  }
}

Tensor OpCall::tensor(unsigned Pos, const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A)
    invalid("missing tensor " + argName(Pos, Keyword));
  Operand O = resolve(*A);
  if (!O.isTensor())
    throw InputError(A->Loc, "expected a tensor, found " + A->str());
  return *O.T;
}

std::optional<Tensor> OpCall::optionalTensor(unsigned Pos,
                                             const char *Keyword) const {
  if (!has(Pos, Keyword))
    return std::nullopt;
  return tensor(Pos, Keyword);
}

std::vector<Tensor> OpCall::tensors(unsigned Pos, const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A || (A->K != Argument::Kind::List && A->K != Argument::Kind::Tuple))
    invalid("expected a list of tensors as " + argName(Pos, Keyword));
  std::vector<Tensor> Out;
  for (const Argument &I : A->Items) {
    Operand O = resolve(I);
    if (!O.isTensor())
      throw InputError(I.Loc, "expected a tensor, found " + I.str());
    Out.push_back(*O.T);
  }
  return Out;
}

Operand OpCall::operand(unsigned Pos, const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A)
    invalid("missing " + argName(Pos, Keyword));
  return resolve(*A);
}

Scalar OpCall::scalar(unsigned Pos, const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A)
    invalid("missing number " + argName(Pos, Keyword));
  Operand O = resolve(*A);
  if (O.isTensor())
    unsupported("a tensor where a number is expected (" + A->str() + ")");
  return O.S;
}

std::optional<Scalar> OpCall::optionalScalar(unsigned Pos,
                                             const char *Keyword) const {
  if (!has(Pos, Keyword))
    return std::nullopt;
  return scalar(Pos, Keyword);
}

int64_t OpCall::integer(unsigned Pos, const char *Keyword,
                        std::optional<int64_t> Default) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A || A->K == Argument::Kind::None) {
    if (Default)
      return *Default;
    invalid("missing integer " + argName(Pos, Keyword));
  }
  if (A->K == Argument::Kind::Bool)
    return A->B;
  if (A->K != Argument::Kind::Int)
    throw InputError(A->Loc, "expected an integer, found " + A->str());
  return A->I;
}

std::vector<int64_t> OpCall::integers(unsigned Pos, const char *Keyword) const {
  std::optional<std::vector<int64_t>> L = optionalIntegers(Pos, Keyword);
  if (!L)
    invalid("missing integer list " + argName(Pos, Keyword));
  return *L;
}

std::optional<std::vector<int64_t>>
OpCall::optionalIntegers(unsigned Pos, const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A || A->K == Argument::Kind::None)
    return std::nullopt;
  if (A->K == Argument::Kind::Int)
    return std::vector<int64_t>{A->I};
  if (A->K != Argument::Kind::List && A->K != Argument::Kind::Tuple)
    throw InputError(A->Loc, "expected a list of integers, found " + A->str());
  std::vector<int64_t> Out;
  for (const Argument &I : A->Items) {
    if (I.K != Argument::Kind::Int)
      throw InputError(I.Loc, "expected an integer, found " + I.str());
    Out.push_back(I.I);
  }
  return Out;
}

bool OpCall::flag(unsigned Pos, const char *Keyword, bool Default) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A || A->K == Argument::Kind::None)
    return Default;
  if (A->K == Argument::Kind::Bool)
    return A->B;
  if (A->K == Argument::Kind::Int)
    return A->I != 0;
  throw InputError(A->Loc, "expected True or False, found " + A->str());
}

double OpCall::number(unsigned Pos, const char *Keyword,
                      std::optional<double> Default) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A || A->K == Argument::Kind::None) {
    if (Default)
      return *Default;
    invalid("missing number " + argName(Pos, Keyword));
  }
  if (A->K == Argument::Kind::Int)
    return double(A->I);
  if (A->K == Argument::Kind::Float)
    return A->F;
  if (A->K == Argument::Kind::Bool)
    return A->B;
  throw InputError(A->Loc, "expected a number, found " + A->str());
}

std::optional<DType> OpCall::dtype(unsigned Pos, const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A || A->K == Argument::Kind::None)
    return std::nullopt;
  if (A->K != Argument::Kind::DType)
    throw UnsupportedError(A->Loc,
                           "unsupported dtype " + A->str() + " in " + op());
  return A->Dt;
}

std::optional<std::string> OpCall::string(unsigned Pos,
                                          const char *Keyword) const {
  const Argument *A = arg(Pos, Keyword);
  if (!A || A->K == Argument::Kind::None)
    return std::nullopt;
  if (A->K != Argument::Kind::String)
    throw InputError(A->Loc, "expected a string, found " + A->str());
  return A->Text;
}

void OpCall::unsupported(const std::string &Why) const {
  throw UnsupportedError(N.Loc, "unsupported op " + op() + ": " + Why);
}

void OpCall::invalid(const std::string &Why) const {
  throw InputError(N.Loc, op() + ": " + Why);
}

void OpCall::undefinedWhen(const Expr *Condition,
                           const std::string &Reason) const {
  if (Condition->isFalse())
    return;
  L->PendingUB.push_back({Condition, Reason, {N.Target, N.Loc}, {}});
}

uint64_t OpCall::maxTermsPerElement() const {
  return L->Options.MaxTermsPerElement;
}

//===----------------------------------------------------------------------===//
// Lifting a graph
//===----------------------------------------------------------------------===//

namespace {

TensorBinding inputBinding(const Node &P, const LiftOptions &O) {
  auto It = O.Inputs.find(P.Name);
  if (It == O.Inputs.end()) {
    if (!P.Annotation)
      throw InputError(P.Loc, "placeholder '" + P.Name +
                                  "' has neither an annotation nor a binding");
    return contiguousBinding(P.Name, P.Annotation->Dt, P.Annotation->Shape);
  }
  const TensorBinding &B = It->second;
  if (P.Annotation &&
      (P.Annotation->Dt != B.Dt || P.Annotation->Shape != B.Sizes))
    throw InputError(
        P.Loc, "placeholder '" + P.Name + "' is " +
                   Lowerer::describe(P.Annotation->Dt, P.Annotation->Shape) +
                   " but is bound to " + B.Buffer + ", " +
                   Lowerer::describe(B.Dt, B.Sizes));
  if (B.Strides.size() != B.Sizes.size())
    throw InputError(P.Loc,
                     "binding of '" + P.Name +
                         "' has a different number of sizes and strides");
  return B;
}

void declareBuffer(Effects &E, const TensorBinding &B) {
  uint64_t Size = extent(B);
  for (Buffer &Existing : E.Buffers)
    if (Existing.Name == B.Buffer) {
      Existing.Size = std::max(Existing.Size.value_or(0), Size);
      return;
    }
  E.Buffers.push_back({B.Buffer, irType(B.Dt), AddressSpace::Global, Size});
}

} // namespace

LiftedGraph liftGraph(Context &C, const Graph &Given, const LiftOptions &O) {
  auto Own = std::make_shared<const Graph>(Given);
  const Graph &G = *Own;
  auto L = std::make_shared<Lowerer>(C, &G, O);
  L->OwnedGraph = std::move(Own);
  LiftedGraph Out;
  for (const Node *P : G.placeholders()) {
    TensorBinding B = inputBinding(*P, O);
    declareBuffer(Out.Effects, B);
    L->Values[P->Name] = OpResult(boundTensor(C, B));
  }
  for (size_t K = 0; K < G.Outputs.size(); ++K) {
    const Argument &A = G.Outputs[K];
    if (A.K != Argument::Kind::NodeRef)
      throw UnsupportedError(A.Loc, "unsupported graph output " + A.str());
    const OpResult &R = L->value(A.Text, A.Loc);
    if (R.IsTuple || R.Items.size() != 1)
      throw InputError(A.Loc, "output '" + A.Text + "' is not a tensor");
    const Tensor &T = R.Items[0];
    const Node *Producer = G.node(A.Text);
    TensorBinding B = K < O.Outputs.size()
                          ? O.Outputs[K]
                          : contiguousBinding(A.Text, T.dtype(), T.shape());
    if (B.Dt != T.dtype() || B.Sizes != T.shape())
      throw InputError(A.Loc, "output '" + A.Text + "' is " +
                                  Lowerer::describe(T.dtype(), T.shape()) +
                                  " but is bound to " + B.Buffer + ", " +
                                  Lowerer::describe(B.Dt, B.Sizes));
    if (B.Strides.size() != B.Sizes.size())
      throw InputError(A.Loc, "binding of output '" + A.Text +
                                  "' has a different number of sizes and "
                                  "strides");
    declareBuffer(Out.Effects, B);
    Out.Outputs.push_back(T);
    if (T.numel() == 0)
      continue;
    Index I;
    std::vector<BoundVariable> Bound;
    for (size_t D = 0; D < T.rank(); ++D) {
      const Expr *V =
          C.symbol(B.Buffer + ".i" + std::to_string(D), Type::i(64));
      I.push_back(V);
      Bound.push_back({V, uint64_t(T.size(D))});
    }
    L->PendingUB.clear();
    const Expr *Value = T.at(I);
    Origin From{Producer ? Producer->Target : "output", A.Loc};
    if (Producer)
      From.Loc = Producer->Loc;
    Out.Effects.Writes.push_back({C.trueExpr(), B.Buffer, B.linearIndex(C, I),
                                  Value, C.trueExpr(), From, Bound});
    for (UndefinedBehavior &U : L->PendingUB) {
      U.Bound = Bound;
      Out.Effects.Undefined.push_back(std::move(U));
    }
    L->PendingUB.clear();
  }
  for (auto &[Name, P] : L->UsedParams)
    Out.Params.push_back(P);
  for (const Node &N : G.Nodes) {
    auto It = L->Values.find(N.Name);
    if (N.K != Node::Kind::Call || It == L->Values.end() ||
        It->second.IsTuple || It->second.Items.size() != 1)
      continue;
    Out.Nodes.push_back({N.Name, N.Target, N.Source.Line, It->second.Items[0]});
  }
  // Element functions hold the lowerer; it must not hold them back.
  L->Values.clear();
  return Out;
}

std::vector<Tensor> applyOp(Context &C, const Node &Call,
                            const std::map<std::string, Tensor> &Inputs,
                            const LiftOptions &O) {
  auto L = std::make_shared<Lowerer>(C, nullptr, O);
  for (const auto &[Name, T] : Inputs)
    L->Values[Name] = OpResult(T);
  L->OwnedNodes.push_back(Call);
  OpResult R = L->evaluate(L->OwnedNodes.back());
  L->Values.clear();
  return R.Items;
}

} // namespace stagecheck::fx

//===- MisplacedWrite.cpp - Which instruction sends a thread astray -------===//

#include "stages/MisplacedWrite.h"

#include "ir/Expr.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

namespace stagecheck::stages {

using namespace ir;

namespace {

std::string siteText(const llvmir::LlvmSite &S, const std::string &File) {
  std::string Out = S.Instruction + " (" + File + ":" + std::to_string(S.LlirLine);
  if (S.Source.known())
    Out += ", " + S.Source.str();
  return Out + ")";
}

/// E's value on Inputs with the thread id set to Tid; nullopt when it
/// cannot be evaluated.
std::optional<uint64_t> valueAt(const Expr *E, Env Inputs,
                                const std::string &TidName, unsigned Tid) {
  Inputs.setSymbol(TidName, Value::ofBits(Type::i(32), Tid));
  try {
    Interpreter I(Inputs);
    return I.eval(E).Bits;
  } catch (const EvalError &) {
    return std::nullopt;
  }
}

} // namespace

std::vector<std::string> misplacedWriteNotes(Context &C,
                                             const MisplacedWriteQuery &Q) {
  // Two threads writing one element of the buffer on the inputs.
  const CtaEffects &Cta = Q.Cta;
  std::map<uint64_t, size_t> FirstAt; // index -> write
  std::optional<std::pair<size_t, size_t>> Pair;
  for (size_t K = 0; K < Cta.Effects.Writes.size() && !Pair; ++K) {
    const Write &W = Cta.Effects.Writes[K];
    if (W.Buffer != Q.Buffer)
      continue;
    try {
      Env In = Q.Inputs;
      for (const Expr *N : postOrder(std::vector<const Expr *>{W.Guard, W.Index}))
        if (N->op() == Op::Symbol && !In.symbol(N->name()))
          In.setSymbol(N->name(), Value::ofBits(N->type(), 0));
      Interpreter I(In);
      if (!I.eval(W.Guard).isTrue())
        continue;
      uint64_t At = I.eval(W.Index).Bits;
      auto [It, New] = FirstAt.emplace(At, K);
      if (!New && Cta.WriteThread[It->second] != Cta.WriteThread[K])
        Pair = {It->second, K};
    } catch (const EvalError &) {
    }
  }
  if (!Pair)
    return {};
  auto [First, Second] = *Pair;
  unsigned A = Cta.WriteThread[First], B = Cta.WriteThread[Second];
  unsigned LineA = Cta.WriteLines[First], LineB = Cta.WriteLines[Second];
  std::vector<std::string> Notes = {
      "LLVM IR: threads " + std::to_string(A) + " and " + std::to_string(B) +
      " write one element of " + Q.Buffer + " (" + Q.LlirName + ":" +
      std::to_string(LineA) +
      (LineA == LineB ? "" : " and " + std::to_string(LineB)) + ")"};

  // The same write with a symbolic thread id: thread B's occurrence of its
  // line among its own writes.
  unsigned Occurrence = 0;
  for (size_t K = 0; K < Second; ++K)
    Occurrence += Cta.WriteThread[K] == B && Cta.WriteLines[K] == Cta.WriteLines[Second];
  llvmir::LlvmLiftOptions LO = Q.Lift;
  LO.ThreadId.reset();
  LO.ExchangePrefix = "any.";
  llvmir::LlvmLift Any;
  try {
    Any = llvmir::LlvmModule::fromText(Q.LlirText, Q.LlirName)->lift(C, Q.Interface, LO);
  } catch (const std::exception &) { // what the CTA's lift read, read again
    return Notes;
  }
  const Write *Symbolic = nullptr;
  for (size_t K = 0, Seen = 0; K < Any.Thread.Effects.Writes.size(); ++K)
    if (Any.WriteLines[K] == Cta.WriteLines[Second] &&
        Any.Thread.Effects.Writes[K].Buffer == Q.Buffer && Seen++ == Occurrence) {
      Symbolic = &Any.Thread.Effects.Writes[K];
      break;
    }
  if (!Symbolic)
    return Notes;
  const std::string TidName = "tid.x";
  Env In = Q.Inputs;
  std::vector<const Expr *> Nodes = postOrder(std::vector<const Expr *>{Symbolic->Index});
  std::unordered_set<const Expr *> OnTid;
  for (const Expr *N : Nodes) {
    if (N->op() == Op::Symbol && N->name() != TidName && !In.symbol(N->name()))
      In.setSymbol(N->name(), Value::ofBits(N->type(), 0));
    if (N->op() == Op::Symbol ? N->name() == TidName
                              : std::any_of(N->operands().begin(), N->operands().end(),
                                            [&](const Expr *O) { return OnTid.count(O) > 0; }))
      OnTid.insert(N);
  }
  auto Same = [&](const Expr *N) {
    auto VA = valueAt(N, In, TidName, A), VB = valueAt(N, In, TidName, B);
    return VA && VB && *VA == *VB;
  };
  if (!Same(Symbolic->Index))
    return Notes; // the symbolic lift does not show the collision
  // Down from the address through nodes equal for both threads: a node
  // with an operand that tells them apart is where they meet.
  std::vector<const Expr *> Work = {Symbolic->Index};
  std::set<const Expr *> Seen;
  std::vector<llvmir::LlvmSite> Meet;
  while (!Work.empty()) {
    const Expr *N = Work.back();
    Work.pop_back();
    if (!OnTid.count(N) || !Seen.insert(N).second || N->op() == Op::Symbol)
      continue;
    bool Apart = std::any_of(N->operands().begin(), N->operands().end(),
                             [&](const Expr *O) { return OnTid.count(O) && !Same(O); });
    if (!Apart) {
      Work.insert(Work.end(), N->operands().begin(), N->operands().end());
      continue;
    }
    if (auto It = Any.Provenance.find(N); It != Any.Provenance.end())
      Meet.push_back(It->second);
  }
  std::sort(Meet.begin(), Meet.end(), [](const auto &X, const auto &Y) {
    return X.LlirLine < Y.LlirLine;
  });
  std::string Where;
  unsigned Last = 0;
  for (const llvmir::LlvmSite &S : Meet)
    if (S.LlirLine != Last) {
      Where += (Where.empty() ? "" : ", ") + siteText(S, Q.LlirName);
      Last = S.LlirLine;
    }
  if (!Where.empty())
    Notes.push_back("the addresses of threads " + std::to_string(A) + " and " +
                    std::to_string(B) + " meet at " + Where);
  return Notes;
}

} // namespace stagecheck::stages

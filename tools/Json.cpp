#include "tools/Json.h"

#include <fstream>
#include <sys/resource.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/raw_ostream.h>
#include <stdexcept>

using namespace stagecheck;
using llvm::json::Array;
using llvm::json::Object;

namespace stagecheck::tools {

static llvm::json::Value valueJson(const ir::Value &V) {
  return Object{{"type", V.Ty.str()},
                {"text", V.str()},
                {"bits", std::to_string(V.Bits)}};
}

static llvm::json::Value originJson(const ir::Origin &O) {
  Object J{{"op", O.Op}};
  if (O.Loc.known())
    J["location"] = Object{{"file", O.Loc.File},
                          {"line", int64_t(O.Loc.Line)},
                          {"column", int64_t(O.Loc.Column)}};
  return J;
}

static llvm::json::Value counterexampleJson(const stages::Counterexample &X) {
  Array Inputs;
  for (const auto &[Name, V] : X.Inputs.symbols())
    Inputs.push_back(Object{{"name", Name}, {"value", valueJson(V)}});
  for (const auto &[Key, V] : X.Inputs.reads())
    Inputs.push_back(Object{{"name", Key.first + "[" + std::to_string(Key.second) + "]"},
                            {"buffer", Key.first},
                            {"index", int64_t(Key.second)},
                            {"value", valueJson(V)}});
  // The values the counterexample takes for uninterpreted functions
  // (approximate instructions) where nothing fixes them: it shows a
  // difference only if the hardware computes these.
  Array Assumed;
  for (const ir::Env::CallPoint &P : X.Inputs.calls()) {
    Array Arguments;
    for (const ir::Value &A : P.Args)
      Arguments.push_back(valueJson(A));
    Assumed.push_back(Object{{"function", P.Function},
                             {"arguments", std::move(Arguments)},
                             {"value", valueJson(P.Result)}});
  }
  Array Notes;
  for (const std::string &N : X.Notes)
    Notes.push_back(N);
  Object J{{"query", X.Query},
           {"explanation", X.Explanation},
           {"notes", std::move(Notes)},
           {"inputs", std::move(Inputs)},
           {"assumed", std::move(Assumed)}};
  if (X.Index) {
    J["buffer"] = X.Buffer;
    J["index"] = int64_t(*X.Index);
    J["source"] = X.Source ? valueJson(*X.Source) : llvm::json::Value(nullptr);
    J["target"] = X.Target ? valueJson(*X.Target) : llvm::json::Value(nullptr);
    J["source_poison"] = X.SourcePoison;
    J["target_poison"] = X.TargetPoison;
  }
  J["source_origin"] = originJson(X.SourceOrigin);
  J["target_origin"] = originJson(X.TargetOrigin);
  return J;
}

llvm::json::Value pairToJson(const stages::PairResult &R) {
  Array Queries;
  for (const stages::QueryReport &Q : R.Queries)
    Queries.push_back(Object{{"name", Q.Name},
                             {"outcome", smt::spelling(Q.Outcome)},
                             {"reason", Q.Reason},
                             {"seconds", Q.Seconds}});
  Array Relaxations;
  for (const std::string &S : R.Relaxations)
    Relaxations.push_back(S);
  Object J{{"verdict", stages::spelling(R.Kind)},
           {"reason", R.Reason},
           {"arithmetic", smt::spelling(R.Arithmetic)},
           {"bound", R.Bound},
           {"relaxations", std::move(Relaxations)},
           {"seconds", R.Seconds},
           {"queries", std::move(Queries)}};
  J["counterexample"] =
      R.Cex ? counterexampleJson(*R.Cex) : llvm::json::Value(nullptr);
  return J;
}

namespace {

std::optional<ir::Value> valueFromJson(const llvm::json::Value *V) {
  const Object *O = V ? V->getAsObject() : nullptr;
  if (!O)
    return std::nullopt;
  auto TypeName = O->getString("type");
  auto Bits = O->getString("bits");
  ir::Type T = ir::Type::boolean();
  if (!TypeName || !Bits || !ir::Type::parse(TypeName->str(), T))
    return std::nullopt;
  return ir::Value::ofBits(T, std::stoull(Bits->str()));
}

ir::Origin originFromJson(const llvm::json::Value *V) {
  ir::Origin O;
  const Object *J = V ? V->getAsObject() : nullptr;
  if (!J)
    return O;
  if (auto Op = J->getString("op"))
    O.Op = Op->str();
  if (const Object *L = J->getObject("location")) {
    if (auto F = L->getString("file"))
      O.Loc.File = F->str();
    O.Loc.Line = unsigned(L->getInteger("line").value_or(0));
    O.Loc.Column = unsigned(L->getInteger("column").value_or(0));
  }
  return O;
}

std::optional<stages::Counterexample> counterexampleFromJson(const Object &J) {
  stages::Counterexample X;
  X.Query = J.getString("query").value_or("").str();
  X.Explanation = J.getString("explanation").value_or("").str();
  if (const Array *Notes = J.getArray("notes"))
    for (const llvm::json::Value &N : *Notes)
      if (auto Text = N.getAsString())
        X.Notes.push_back(Text->str());
  if (const Array *Inputs = J.getArray("inputs"))
    for (const llvm::json::Value &I : *Inputs) {
      const Object *O = I.getAsObject();
      if (!O)
        return std::nullopt;
      std::optional<ir::Value> V = valueFromJson(O->get("value"));
      if (!V)
        return std::nullopt;
      if (auto Buffer = O->getString("buffer"))
        X.Inputs.setRead(Buffer->str(), uint64_t(O->getInteger("index").value_or(0)), *V);
      else
        X.Inputs.setSymbol(O->getString("name").value_or("").str(), *V);
    }
  if (const Array *Assumed = J.getArray("assumed"))
    for (const llvm::json::Value &A : *Assumed) {
      const Object *O = A.getAsObject();
      const Array *Arguments = O ? O->getArray("arguments") : nullptr;
      std::optional<ir::Value> V =
          O ? valueFromJson(O->get("value")) : std::nullopt;
      if (!Arguments || !V)
        return std::nullopt;
      std::vector<ir::Value> Args;
      for (const llvm::json::Value &Arg : *Arguments) {
        std::optional<ir::Value> AV = valueFromJson(&Arg);
        if (!AV)
          return std::nullopt;
        Args.push_back(*AV);
      }
      X.Inputs.setCall(O->getString("function").value_or("").str(),
                       std::move(Args), *V);
    }
  if (auto B = J.getString("buffer")) {
    X.Buffer = B->str();
    X.Index = uint64_t(J.getInteger("index").value_or(0));
    X.Source = valueFromJson(J.get("source"));
    X.Target = valueFromJson(J.get("target"));
    X.SourcePoison = J.getBoolean("source_poison").value_or(false);
    X.TargetPoison = J.getBoolean("target_poison").value_or(false);
  }
  X.SourceOrigin = originFromJson(J.get("source_origin"));
  X.TargetOrigin = originFromJson(J.get("target_origin"));
  return X;
}

} // namespace

std::optional<stages::PairResult> pairFromJson(const llvm::json::Value &V) {
  const Object *J = V.getAsObject();
  if (!J)
    return std::nullopt;
  stages::PairResult R;
  std::string Verdict = J->getString("verdict").value_or("").str();
  bool Known = false;
  for (stages::Verdict K : {stages::Verdict::Proved, stages::Verdict::ProvedWithinTolerance,
                            stages::Verdict::Counterexample, stages::Verdict::Unknown,
                            stages::Verdict::Error})
    if (Verdict == stages::spelling(K)) {
      R.Kind = K;
      Known = true;
    }
  if (!Known || !smt::parseMode(J->getString("arithmetic").value_or("").str(), R.Arithmetic))
    return std::nullopt;
  R.Reason = J->getString("reason").value_or("").str();
  R.Bound = J->getString("bound").value_or("none").str();
  R.Seconds = J->getNumber("seconds").value_or(0);
  if (const Array *Relax = J->getArray("relaxations"))
    for (const llvm::json::Value &X : *Relax)
      if (auto S = X.getAsString())
        R.Relaxations.push_back(S->str());
  if (const Array *Queries = J->getArray("queries"))
    for (const llvm::json::Value &Q : *Queries) {
      const Object *O = Q.getAsObject();
      if (!O)
        return std::nullopt;
      std::string Outcome = O->getString("outcome").value_or("").str();
      smt::Outcome K = Outcome == "proved"           ? smt::Outcome::Proved
                       : Outcome == "counterexample" ? smt::Outcome::Counterexample
                                                     : smt::Outcome::Unknown;
      R.Queries.push_back({O->getString("name").value_or("").str(), K,
                           O->getString("reason").value_or("").str(),
                           O->getNumber("seconds").value_or(0), ""});
    }
  if (const Object *X = J->getObject("counterexample")) {
    R.Cex = counterexampleFromJson(*X);
    if (!R.Cex)
      return std::nullopt;
  }
  return R;
}

llvm::json::Value checkToJson(const std::string &Source,
                              const std::string &Target,
                              const stages::PairResult &R) {
  return Object{{"format", "stagecheck-check"},
                {"version", 1},
                {"source", Source},
                {"target", Target},
                {"exit_code", stages::exitCode(R.Kind)},
                {"result", pairToJson(R)}};
}

/// The largest resident set of this process and of the solver processes it
/// waited for, in MB.
static double peakMemoryMB() {
  struct rusage Self, Children;
  getrusage(RUSAGE_SELF, &Self);
  getrusage(RUSAGE_CHILDREN, &Children);
  return double(std::max(Self.ru_maxrss, Children.ru_maxrss)) / 1024.0;
}

llvm::json::Value auditToJson(const stages::AuditReport &R) {
  const bundle::Manifest &M = *R.Bundle;
  Array Kernels;
  for (const bundle::Launch *L : M.launches()) {
    Array Pairs;
    for (const stages::PairReport &P : R.Pairs)
      if (P.Kernel == L->Kernel)
        Pairs.push_back(Object{{"pair", P.Pair.id()},
                               {"title", P.Pair.title()},
                               {"cached", P.FromCache},
                               {"result", pairToJson(P.Result)}});
    Kernels.push_back(Object{
        {"kernel", L->Kernel},
        {"grid", Array{int64_t(L->Grid[0]), int64_t(L->Grid[1]), int64_t(L->Grid[2])}},
        {"num_warps", L->NumWarps},
        {"compile_time_s", L->CompileSeconds ? llvm::json::Value(*L->CompileSeconds)
                                             : llvm::json::Value(nullptr)},
        {"pairs", std::move(Pairs)}});
  }
  Array Program;
  for (const stages::PairReport &P : R.Pairs)
    if (P.Kernel.empty())
      Program.push_back(Object{{"pair", P.Pair.id()},
                               {"title", P.Pair.title()},
                               {"cached", P.FromCache},
                               {"result", pairToJson(P.Result)}});
  Object J{{"format", "stagecheck-audit"},
           {"version", 1},
           {"peak_memory_mb", peakMemoryMB()},
           {"bundle", M.Name},
           {"bundle_dir", M.Dir},
           {"verdict", stages::spelling(R.Overall)},
           {"exit_code", stages::exitCode(R.Overall)},
           {"seconds", R.Seconds},
           {"program", std::move(Program)},
           {"kernels", std::move(Kernels)}};
  if (R.FirstFailure) {
    const stages::PairReport &F = R.Pairs[*R.FirstFailure];
    J["first_failure"] = Object{{"pair", F.Pair.id()},
                                {"kernel", F.Kernel.empty()
                                               ? llvm::json::Value(nullptr)
                                               : llvm::json::Value(F.Kernel)}};
  } else {
    J["first_failure"] = nullptr;
  }
  return J;
}

void writeJson(const std::string &Path, const llvm::json::Value &V) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    throw std::runtime_error("cannot write '" + Path + "': " + EC.message());
  OS << llvm::formatv("{0:2}", V) << "\n";
}

} // namespace stagecheck::tools

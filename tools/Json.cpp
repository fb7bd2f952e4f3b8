#include "tools/Json.h"

#include <fstream>
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
  Object J{{"query", X.Query},
           {"explanation", X.Explanation},
           {"inputs", std::move(Inputs)}};
  if (X.Index) {
    J["buffer"] = X.Buffer;
    J["index"] = int64_t(*X.Index);
    J["source"] = X.Source ? valueJson(*X.Source) : llvm::json::Value(nullptr);
    J["target"] = X.Target ? valueJson(*X.Target) : llvm::json::Value(nullptr);
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

llvm::json::Value auditToJson(const stages::AuditReport &R) {
  const bundle::Manifest &M = *R.Bundle;
  Array Kernels;
  for (const bundle::Launch *L : M.launches()) {
    Array Pairs;
    for (const stages::PairReport &P : R.Pairs)
      if (P.Kernel == L->Kernel)
        Pairs.push_back(Object{{"pair", P.Pair.id()},
                               {"title", P.Pair.title()},
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
                               {"result", pairToJson(P.Result)}});
  Object J{{"format", "stagecheck-audit"},
           {"version", 1},
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

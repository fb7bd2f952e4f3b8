#include "smt/Solver.h"

#include "smt/ChildProcess.h"
#include "smt/Encoder.h"
#include "ir/Functions.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

using namespace stagecheck::ir;

namespace stagecheck::smt {

const char *spelling(Outcome O) {
  switch (O) {
  case Outcome::Proved:
    return "proved";
  case Outcome::Counterexample:
    return "counterexample";
  case Outcome::Unknown:
    return "unknown";
  }
  return "?";
}

namespace {

std::vector<const Expr *> roots(const Query &Q) {
  std::vector<const Expr *> R{Q.Violation};
  R.insert(R.end(), Q.Assumptions.begin(), Q.Assumptions.end());
  return R;
}

/// The inputs a model must fix: symbols, buffer reads and calls.
std::vector<const Expr *> modelLeaves(const Query &Q) {
  std::vector<const Expr *> Leaves;
  for (const Expr *E : postOrder(roots(Q)))
    if (E->op() == Op::Symbol || E->op() == Op::Read || E->op() == Op::Call)
      Leaves.push_back(E);
  return Leaves;
}

/// Encodes the query's assertions; IEEE queries lose their arrays and
/// uninterpreted functions (Ackermann) so Z3 can bit-blast them.
z3::expr_vector encodeQuery(Encoder &Enc, const Query &Q) {
  z3::expr_vector Assertions(Enc.context());
  Assertions.push_back(Enc.encode(Q.Violation));
  for (const Expr *A : Q.Assumptions)
    Assertions.push_back(Enc.encode(A));
  for (const z3::expr &F : Enc.functionalConsistency())
    Assertions.push_back(F);
  for (const z3::expr &F : Enc.bitPatternDefinitions())
    Assertions.push_back(F);
  return Assertions;
}

z3::solver makeSolver(z3::context &Z, const Encoder &Enc) {
  std::string Logic = Enc.logic();
  return Logic.empty() ? z3::solver(Z) : z3::solver(Z, Logic.c_str());
}

std::string smtLibScript(const Query &Q, z3::solver &S, const Encoder &Enc) {
  std::string Logic = Enc.logic();
  return "; stagecheck query: " + Q.Name + " (" + spelling(Q.Arithmetic) +
         ")\n(set-logic " + (Logic.empty() ? "ALL" : Logic) + ")\n" +
         S.to_smt2();
}

/// A context made once in the parent and inherited by every solver child:
/// making one costs several milliseconds, as much as a small query. The
/// parent never uses it, so each child starts from the same fresh copy.
z3::context &inheritedContext() {
  static z3::context *Made = new z3::context; // a child exits without freeing
  return *Made;
}

/// The child's whole job: encode, solve, and describe the answer in lines.
///   proved | unknown <reason> | sat, then per leaf "<i> <hex>..."
std::string solveInChild(const Query &Q, const std::vector<const Expr *> &Leaves,
                         unsigned TimeoutMs, unsigned Seed) {
  std::ostringstream Out;
  try {
    z3::context &Z = inheritedContext();
    Encoder Enc(Z, Q.Arithmetic, Q.Arithmetic == Mode::IEEE);
    z3::expr_vector Assertions = encodeQuery(Enc, Q);
    z3::solver S = makeSolver(Z, Enc);
    z3::params P(Z);
    P.set("timeout", TimeoutMs); // a hint; the parent enforces the limit
    P.set("random_seed", Seed);
    S.set(P);
    S.add(Assertions);
    switch (S.check()) {
    case z3::unsat:
      Out << "proved\n";
      return Out.str();
    case z3::unknown:
      Out << "unknown solver gave up: " << S.reason_unknown() << "\n";
      return Out.str();
    case z3::sat:
      break;
    }
    z3::model Model = S.get_model();
    Out << "sat\n";
    auto Bits = [&](const Expr *E) {
      uint64_t B = 0;
      if (!Enc.numeralBits(Model.eval(Enc.encode(E), true), E->type(), B))
        throw Unsupported("the model gives no concrete value for a " +
                          E->type().str());
      return B;
    };
    for (size_t I = 0; I < Leaves.size(); ++I) {
      const Expr *L = Leaves[I];
      Out << I;
      if (L->op() == Op::Read)
        Out << " " << std::hex << Bits(L->operand(0)) << std::dec;
      if (L->op() == Op::Call)
        for (const Expr *A : L->operands())
          Out << " " << std::hex << Bits(A) << std::dec;
      Out << " " << std::hex << Bits(L) << std::dec << "\n";
    }
  } catch (const Unsupported &U) {
    return std::string("unknown ") + U.what() + "\n";
  } catch (const z3::exception &E) {
    return std::string("unknown solver error: ") + E.msg() + "\n";
  } catch (const std::exception &E) {
    return std::string("unknown ") + E.what() + "\n";
  }
  return Out.str();
}

/// A call at a point whose result the PTX ISA fixes: the solver's value for
/// the function there is not used by the encoding, and not an assumption.
static bool isCornerCase(const Expr *Call, std::span<const Value> Args) {
  const ir::FunctionInfo *F = ir::lookupFunction(Call->name());
  if (!F)
    return false;
  std::vector<Value> Read;
  for (const Value &A : Args)
    Read.push_back(ir::canonicalArgument(*F, A));
  return ir::cornerCaseResult(*F, Read, Call->type()).has_value();
}

ir::Env parseModel(std::istream &In, const std::vector<const Expr *> &Leaves) {
  Env Model;
  std::string Line;
  while (std::getline(In, Line)) {
    std::istringstream L(Line);
    size_t I;
    L >> I;
    if (!L || I >= Leaves.size())
      continue;
    const Expr *E = Leaves[I];
    std::vector<uint64_t> Fields;
    uint64_t V;
    while (L >> std::hex >> V)
      Fields.push_back(V);
    if (Fields.empty())
      continue;
    Value Result = Value::ofBits(E->type(), Fields.back());
    if (E->op() == Op::Symbol)
      Model.setSymbol(E->name(), Result);
    else if (E->op() == Op::Read && Fields.size() == 2)
      Model.setRead(E->name(), Fields[0], Result);
    else if (E->op() == Op::Call && Fields.size() == E->numOperands() + 1) {
      std::vector<Value> Args;
      for (unsigned A = 0; A < E->numOperands(); ++A)
        Args.push_back(Value::ofBits(E->operand(A)->type(), Fields[A]));
      if (!isCornerCase(E, Args))
        Model.setCall(E->name(), Args, Result);
    }
  }
  return Model;
}

/// Writes the query with the answer it got as its SMT-LIB :status (unsat:
/// proved, sat: a model was found, unknown), which a re-check compares with
/// its own solver's answer.
void writeDump(const Query &Q, Outcome Answer, const std::string &Path) {
  std::string Script;
  try {
    Script = toSMTLib(Q);
  } catch (const std::exception &E) { // e.g. Unsupported: said in the answer
    std::ofstream(Path) << "; stagecheck query: " << Q.Name
                        << "\n; not written: " << E.what() << "\n";
    return;
  }
  const std::string Unset = "(set-info :status unknown)";
  size_t At = Script.find(Unset);
  if (At != std::string::npos && Answer != Outcome::Unknown)
    Script.replace(At, Unset.size(),
                   Answer == Outcome::Proved ? "(set-info :status unsat)"
                                             : "(set-info :status sat)");
  std::ofstream(Path) << Script;
}

std::string dumpPathFor(const Query &Q, const SolverOptions &O) {
  if (O.DumpDir.empty())
    return "";
  static unsigned Counter = 0;
  std::string Name;
  for (char C : Q.Name)
    Name += std::isalnum((unsigned char)C) ? C : '_';
  // Numbered in the order asked, with the width that keeps it in sort order.
  char Number[16];
  std::snprintf(Number, sizeof Number, "%05u", Counter++);
  return O.DumpDir + "/" + std::to_string(getpid()) + "-" + Number + "-" +
         Name + ".smt2";
}

} // namespace

namespace {

struct Attempt {
  enum { Answered, SliceOver, Failed } How;
  std::string Answer; // the child's lines when answered
  std::string Failure;
};

/// Runs one solver attempt in a child process, killed after SliceMs.
Attempt runAttempt(const Query &Q, const std::vector<const Expr *> &Leaves,
                   const SolverOptions &O, unsigned SliceMs, unsigned Seed) {
  prepareSolverChildren();
  ChildOptions Child;
  Child.KillAt =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(SliceMs);
  ChildOutcome C = runInChild(
      [&] {
        rlim_t Bytes = rlim_t(O.MemoryLimitMB) * 1024 * 1024;
        struct rlimit Limit = {Bytes, Bytes};
        setrlimit(RLIMIT_AS, &Limit);
        return solveInChild(Q, Leaves, SliceMs, Seed);
      },
      Child);
  switch (C.How) {
  case ChildOutcome::Answered:
    return {Attempt::Answered, C.Answer, ""};
  case ChildOutcome::TimedOut:
    return {Attempt::SliceOver, "", ""};
  case ChildOutcome::Failed:
    break;
  }
  std::string Why = "solver " + C.Failure;
  if (C.Failure.rfind("died", 0) == 0)
    Why += "; memory limit " + std::to_string(O.MemoryLimitMB) + " MB";
  return {Attempt::Failed, "", Why};
}

} // namespace

namespace {

QueryResult solveWithin(const Query &Q, const SolverOptions &O,
                        std::chrono::steady_clock::time_point Start);

} // namespace

QueryResult solve(const Query &Q, const SolverOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  if (!O.Deadline)
    return solveWithin(Q, O, Start);
  SolverOptions Limited = O;
  auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  *O.Deadline - Start).count();
  if (Left <= 0) {
    QueryResult R;
    R.Kind = Outcome::Unknown;
    R.Reason = "the check's time limit was reached";
    return R;
  }
  Limited.TimeoutMs = unsigned(std::min<int64_t>(Left, O.TimeoutMs));
  return solveWithin(Q, Limited, Start);
}

namespace {

QueryResult solveWithin(const Query &Q, const SolverOptions &O,
                        std::chrono::steady_clock::time_point Start) {
  using Clock = std::chrono::steady_clock;
  QueryResult R;
  auto Finish = [&](Outcome K, std::string Reason = "") {
    R.Kind = K;
    R.Reason = std::move(Reason);
    R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
    if (!R.DumpedTo.empty())
      writeDump(Q, K, R.DumpedTo);
    return R;
  };
  if (!Q.Violation->type().isBool())
    return Finish(Outcome::Unknown, "query '" + Q.Name + "' is not a condition");
  if (Q.Violation->isFalse())
    return Finish(Outcome::Proved);
  R.DumpedTo = dumpPathFor(Q, O);

  std::vector<const Expr *> Leaves = modelLeaves(Q);
  // Bit-blasted float queries have heavy-tailed running times that depend on
  // the solver's random seed: restart with a new seed in doubling slices.
  unsigned Slice = std::min(O.TimeoutMs, 1000u);
  for (unsigned Seed = 0;; ++Seed) {
    auto Used = std::chrono::duration_cast<std::chrono::milliseconds>(
                    Clock::now() - Start).count();
    if (Used >= O.TimeoutMs)
      return Finish(Outcome::Unknown, "timeout after " +
                                          std::to_string(O.TimeoutMs) + " ms");
    unsigned Left = unsigned(O.TimeoutMs - Used);
    // The last slice takes all that is left rather than a sliver.
    unsigned ThisSlice = Left < 2 * Slice ? Left : Slice;
    Attempt A = runAttempt(Q, Leaves, O, ThisSlice, Seed);
    if (A.How == Attempt::Failed)
      return Finish(Outcome::Unknown, A.Failure);
    if (A.How == Attempt::SliceOver) {
      Slice *= 2;
      continue;
    }
    std::istringstream In(A.Answer);
    std::string First;
    std::getline(In, First);
    if (First == "proved")
      return Finish(Outcome::Proved);
    if (First == "sat") {
      R.Model = parseModel(In, Leaves);
      return Finish(Outcome::Counterexample);
    }
    if (First.rfind("unknown solver gave up: timeout", 0) == 0 ||
        First.rfind("unknown solver gave up: canceled", 0) == 0) {
      Slice *= 2; // Z3's own timer fired first: same as the slice ending
      continue;
    }
    return Finish(Outcome::Unknown, First.rfind("unknown ", 0) == 0
                                        ? First.substr(8)
                                        : "unreadable solver answer");
  }
}

} // namespace

void prepareSolverChildren() { inheritedContext(); }

std::string solverVersion() {
  unsigned Major, Minor, Build, Revision;
  Z3_get_version(&Major, &Minor, &Build, &Revision);
  return std::to_string(Major) + "." + std::to_string(Minor) + "." +
         std::to_string(Build);
}

std::string toSMTLib(const Query &Q) {
  z3::context Z;
  Encoder Enc(Z, Q.Arithmetic, Q.Arithmetic == Mode::IEEE,
              /*StandardBitPatterns=*/true);
  z3::expr_vector Assertions = encodeQuery(Enc, Q);
  z3::solver S = makeSolver(Z, Enc);
  S.add(Assertions);
  return smtLibScript(Q, S, Enc);
}

} // namespace stagecheck::smt

#include "smt/Solver.h"

#include "smt/ChildProcess.h"
#include "smt/Encoder.h"
#include "ir/Functions.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
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

/// The resource units the solver's context has counted since it was made.
uint64_t unitsCounted(z3::solver &S) {
  z3::stats Stats = S.statistics();
  for (unsigned I = 0; I < Stats.size(); ++I)
    if (Stats.key(I) == "rlimit count")
      return Stats.is_uint(I) ? Stats.uint_value(I)
                              : uint64_t(Stats.double_value(I));
  return 0;
}

/// The context for the attempts made in this process, apart from the one
/// the children inherit (which must stay as made), and the units it has
/// counted so far.
struct OwnContext {
  std::unique_ptr<z3::context> Z;
  uint64_t Counted = 0;
};

OwnContext &ownContextSlot() {
  static OwnContext Own;
  return Own;
}

OwnContext &ownContext() {
  OwnContext &Own = ownContextSlot();
  if (!Own.Z)
    Own.Z = std::make_unique<z3::context>();
  return Own;
}

/// One attempt's whole job: encode, solve, and describe the answer in lines:
///   units <n>, then proved | unknown <reason> | sat, then per leaf
///   "<i> <hex>..."
std::string solveOnce(z3::context &Z, const Query &Q,
                      const std::vector<const Expr *> &Leaves, uint64_t Units,
                      unsigned Seed, uint64_t &Counted) {
  std::ostringstream Out;
  try {
    Encoder Enc(Z, Q.Arithmetic, Q.Arithmetic == Mode::IEEE);
    z3::expr_vector Assertions = encodeQuery(Enc, Q);
    z3::solver S = makeSolver(Z, Enc);
    z3::params P(Z);
    // Z3 counts these units whatever the machine's load, so an attempt
    // gets as far on a busy machine as on an idle one.
    P.set("rlimit", unsigned(std::min<uint64_t>(Units, UINT_MAX)));
    P.set("random_seed", Seed);
    S.set(P);
    S.add(Assertions);
    z3::check_result Answer = S.check();
    uint64_t Now = unitsCounted(S);
    Out << "units " << Now - std::min(Now, Counted) << "\n";
    Counted = Now;
    switch (Answer) {
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
  double CpuMs = 0; // the processor time it took
};

double threadCpuMs() {
  struct timespec T;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return double(T.tv_sec) * 1000 + double(T.tv_nsec) / 1e6;
}

/// Runs one solver attempt with Units of solver work: in this process
/// (Here), or in a child process killed once it has spent CpuLimitMs of
/// processor time, or at KillAt.
Attempt runAttempt(const Query &Q, const std::vector<const Expr *> &Leaves,
                   const SolverOptions &O, uint64_t Units, unsigned Seed,
                   std::chrono::steady_clock::time_point KillAt,
                   double CpuLimitMs, bool Here) {
  if (Here) {
    OwnContext &Own = ownContext();
    double Before = threadCpuMs();
    std::string Answer = solveOnce(*Own.Z, Q, Leaves, Units, Seed, Own.Counted);
    return {Attempt::Answered, std::move(Answer), "", threadCpuMs() - Before};
  }
  prepareSolverChildren();
  ChildOptions Child;
  Child.KillAt = KillAt;
  Child.CpuLimitMs = CpuLimitMs;
  ChildOutcome C = runInChild(
      [&] {
        rlim_t Bytes = rlim_t(O.MemoryLimitMB) * 1024 * 1024;
        struct rlimit Limit = {Bytes, Bytes};
        setrlimit(RLIMIT_AS, &Limit);
        uint64_t Counted = 0; // the inherited context was never used
        return solveOnce(inheritedContext(), Q, Leaves, Units, Seed, Counted);
      },
      Child);
  switch (C.How) {
  case ChildOutcome::Answered:
    return {Attempt::Answered, C.Answer, "", C.CpuMs};
  case ChildOutcome::TimedOut:
    return {Attempt::SliceOver, "", "", C.CpuMs};
  case ChildOutcome::Failed:
    break;
  }
  std::string Why = "solver " + C.Failure;
  if (C.Failure.rfind("died", 0) == 0)
    Why += "; memory limit " + std::to_string(O.MemoryLimitMB) + " MB";
  return {Attempt::Failed, "", Why, C.CpuMs};
}

/// Appends one line per attempt to the file STAGECHECK_SOLVER_LOG names:
/// the units it was given and used, its wall-clock milliseconds, where it
/// ran and how it ended, from which UnitsPerMs is calibrated
/// (scripts/calibrate_units.py).
void logAttempt(const Query &Q, uint64_t Given, uint64_t Used, double Ms,
                double CpuMs, bool Here, const std::string &Ending) {
  static const char *Path = std::getenv("STAGECHECK_SOLVER_LOG");
  if (!Path)
    return;
  if (FILE *F = std::fopen(Path, "a")) {
    std::fprintf(F, "%llu\t%llu\t%.1f\t%s\t%s\t%s\t%.1f\n",
                 (unsigned long long)Given, (unsigned long long)Used, Ms,
                 Here ? "here" : "child", Ending.c_str(), Q.Name.c_str(),
                 CpuMs);
    std::fclose(F);
  }
}

} // namespace

namespace {

/// The largest query whose first attempt runs in this process: in nodes,
/// and in the operations that bit-blast into thousands of clauses each
/// (its memory has no limit there, a child's has). Over the reals nothing
/// is bit-blasted, and the nodes may be ten times as many (a prefix sum's
/// 512 classes, up to 3000 nodes and 1000 additions each).
constexpr size_t InProcessMaxNodes = 2000, InProcessMaxRealNodes = 20000,
                 InProcessMaxHeavyOps = 64;

/// Over the reals, an operation that makes the query nonlinear: a product
/// or quotient of two variables, a rounding to an integer.
bool nonlinearOverTheReals(const Expr *N) {
  switch (N->op()) {
  case Op::FMul:
  case Op::Fma:
    return !N->operand(0)->isConst() && !N->operand(1)->isConst();
  case Op::FDiv:
    return !N->operand(1)->isConst();
  case Op::FRoundInt:
    return true;
  default:
    return isProductOfVariables(N);
  }
}

bool smallEnoughHere(const Query &Q) {
  std::vector<const Expr *> Nodes = postOrder(roots(Q));
  // Over the reals only linear queries: Z3's nonlinear real arithmetic does
  // not stop at its unit limit (inductor_softmax with its row sum made a
  // product: a query with the inputs pinned and the exponentials free ran
  // 300 s here on a limit of 40000 units), and this process cannot be
  // killed as a child is.
  if (Q.Arithmetic == Mode::Real)
    return Nodes.size() <= InProcessMaxRealNodes &&
           std::none_of(Nodes.begin(), Nodes.end(), nonlinearOverTheReals);
  if (Nodes.size() > InProcessMaxNodes)
    return false;
  size_t Heavy = 0;
  for (const Expr *N : Nodes)
    Heavy += hasRounding(N->op()) || isProductOfVariables(N);
  return Heavy <= InProcessMaxHeavyOps;
}

std::string budgetSpent(unsigned TimeoutMs) {
  return "timeout: the solver's budget of " + std::to_string(TimeoutMs) +
         " ms of work was spent";
}

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
  using std::chrono::milliseconds;
  QueryResult R;
  double WorkMs = 0;  // solver work spent, in units / UnitsPerMs
  double QuickMs = 0; // of it, in the quick look (below)
  auto Finish = [&](Outcome K, std::string Reason = "") {
    R.Kind = K;
    R.Reason = std::move(Reason);
    R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
    R.Work = (WorkMs + QuickMs) / 1000;
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
  // Bit-blasted (IEEE) queries: the budget is solver work, counted by the
  // solver; processor time only catches an attempt that stops counting
  // (and the check's deadline). Over the reals Z3's nonlinear arithmetic
  // counts few units (about 400 a millisecond), so there the budget is the
  // solver's processor time.
  bool Counted = Q.Arithmetic == Mode::IEEE;
  // A small query is first asked briefly in this process: starting a child
  // costs more than most such queries take (tens of milliseconds against
  // one), and the units bound it as they bound a child (over the reals,
  // RealQuickLookUnits). Unanswered, it is asked anew in children from the
  // first seed: this process's context, holding what earlier queries made,
  // searches differently from a fresh one, and worse for some queries.
  bool QuickLook = smallEnoughHere(Q);
  // An attempt is killed once its processor time passes Slack times its
  // slice (and the grace where counted), which a busy machine does not
  // change; the wall clock only backs that up, StarvedSlack times later.
  unsigned Slack = Counted ? AttemptSlack : 1;
  auto WallEnd =
      Start + milliseconds(int64_t(StarvedSlack) *
                           (int64_t(Slack) * O.TimeoutMs +
                            (Counted ? AttemptGraceMs : 0)));
  if (O.Deadline && *O.Deadline < WallEnd)
    WallEnd = *O.Deadline;
  // Bit-blasted float queries have heavy-tailed running times that depend on
  // the solver's random seed: restart with a new seed in doubling slices.
  double Slice = std::min(O.TimeoutMs, 1000u);
  for (unsigned Seed = 0;;) {
    if (WorkMs >= O.TimeoutMs)
      return Finish(Outcome::Unknown,
                    Counted ? budgetSpent(O.TimeoutMs)
                            : "timeout after " + std::to_string(O.TimeoutMs) +
                                  " ms of the solver's processor time");
    auto Now = Clock::now();
    if (Now >= WallEnd)
      return Finish(Outcome::Unknown,
                    "timeout after " +
                        std::to_string(std::chrono::duration_cast<milliseconds>(
                                           Now - Start)
                                           .count()) +
                        " ms of wall-clock time");
    double Left = O.TimeoutMs - WorkMs;
    // The last slice takes all that is left rather than a sliver.
    double ThisSlice = QuickLook ? std::min<double>(QuickLookMs, Left)
                       : Left < 2 * Slice ? Left
                                          : Slice;
    // No unit limit (0) where the units are not the budget, but in the
    // quick look.
    uint64_t Units =
        Counted    ? std::max<uint64_t>(1, uint64_t(ThisSlice * UnitsPerMs))
        : QuickLook ? RealQuickLookUnits
                    : 0;
    double CpuLimitMs = Slack * ThisSlice + (Counted ? AttemptGraceMs : 0);
    auto KillAt = std::min(
        WallEnd, Now + milliseconds(int64_t(StarvedSlack * CpuLimitMs)));
    bool WasHere = QuickLook;
    Attempt A =
        runAttempt(Q, Leaves, O, Units, Seed, KillAt, CpuLimitMs, QuickLook);
    QuickLook = false;
    // The next attempt: a new seed and a doubled slice, but after the
    // quick look, the first seed and slice in a child.
    auto Next = [&] {
      if (!WasHere) {
        Slice *= 2;
        ++Seed;
      }
    };
    double WallMs =
        std::chrono::duration<double, std::milli>(Clock::now() - Now).count();
    // What an attempt costs where the units are not the budget: its
    // processor time, not the time it took.
    double AttemptMs = A.CpuMs;
    if (A.How == Attempt::Failed) {
      logAttempt(Q, Units, Units, WallMs, AttemptMs, WasHere, "failed");
      return Finish(Outcome::Unknown, A.Failure);
    }
    // A query whose attempt ran out after counting far fewer units than its
    // processor time would give (Z3 bit-blasting a huge formula counts
    // little) is held to processor time from then on, as a query over the
    // reals is: its attempts would otherwise each run to AttemptSlack
    // times as long as the budget says.
    auto CountsSlowly = [&](uint64_t Used) {
      if (!Counted || AttemptMs < 500 ||
          double(Used) >= UnitsPerMs / AttemptSlack * AttemptMs)
        return;
      Counted = false;
      Slack = 1;
      WallEnd = std::min(
          WallEnd, Clock::now() + milliseconds(int64_t(StarvedSlack) *
                                               int64_t(O.TimeoutMs - WorkMs)));
    };
    if (A.How == Attempt::SliceOver) {
      // The solver stopped counting (or the machine is far slower than the
      // rate assumes): the slice counts as spent.
      logAttempt(Q, Units, Units, WallMs, AttemptMs, WasHere, "killed");
      WorkMs += ThisSlice;
      CountsSlowly(Counted ? 0 : Units);
      Next();
      continue;
    }
    std::istringstream In(A.Answer);
    std::string First;
    std::getline(In, First);
    uint64_t Used = Units;
    if (First.rfind("units ", 0) == 0) {
      Used = std::stoull(First.substr(6));
      if (Counted)
        Used = std::min(Units, Used);
      std::getline(In, First);
    }
    logAttempt(Q, Units, Used, WallMs, AttemptMs, WasHere, First);
    // The quick look comes on top of the budget, so that the attempts in
    // children are those a query asked in children only would make.
    (WasHere ? QuickMs : WorkMs) +=
        Counted ? double(Used) / UnitsPerMs : AttemptMs;
    if (First == "proved")
      return Finish(Outcome::Proved);
    if (First == "sat") {
      R.Model = parseModel(In, Leaves);
      return Finish(Outcome::Counterexample);
    }
    if (First.rfind("unknown solver gave up: max. resource limit", 0) == 0 ||
        First.rfind("unknown solver gave up: timeout", 0) == 0 ||
        First.rfind("unknown solver gave up: canceled", 0) == 0) {
      if (Counted) // the slice is spent
        (WasHere ? QuickMs : WorkMs) += double(Units - Used) / UnitsPerMs;
      CountsSlowly(Used);
      Next();
      continue;
    }
    return Finish(Outcome::Unknown, First.rfind("unknown ", 0) == 0
                                        ? First.substr(8)
                                        : "unreadable solver answer");
  }
}

} // namespace

WorkBudget::WorkBudget(unsigned Ms)
    : BudgetMs(Ms),
      WallEnd(std::chrono::steady_clock::now() +
              std::chrono::milliseconds(
                  int64_t(StarvedSlack) *
                  (int64_t(AttemptSlack) * Ms + AttemptGraceMs))) {}

bool WorkBudget::spent() const {
  return SpentMs >= BudgetMs || std::chrono::steady_clock::now() >= WallEnd;
}

SolverOptions WorkBudget::limit(SolverOptions O) const {
  double Left = std::max(0.0, BudgetMs - SpentMs);
  O.TimeoutMs = unsigned(std::min<double>(O.TimeoutMs, std::ceil(Left)));
  if (!O.Deadline || WallEnd < *O.Deadline)
    O.Deadline = WallEnd;
  return O;
}

std::string WorkBudget::spentReason() const {
  return budgetSpent(unsigned(BudgetMs));
}

void prepareSolverChildren() { inheritedContext(); }

void startAfresh() {
  OwnContext &Own = ownContextSlot();
  Own.Z.reset();
  Own.Counted = 0;
}

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

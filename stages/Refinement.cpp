#include "stages/Refinement.h"

#include "stages/Assumed.h"
#include "stages/DifferingSubterms.h"
#include "stages/Falsify.h"
#include "stages/SelectArms.h"
#include "stages/SplitDefinedness.h"
#include "stages/ZeroSign.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

const char *spelling(Verdict V) {
  switch (V) {
  case Verdict::Proved:
    return "proved";
  case Verdict::ProvedWithinTolerance:
    return "proved within tolerance";
  case Verdict::Counterexample:
    return "counterexample";
  case Verdict::Unknown:
    return "unknown";
  case Verdict::Error:
    return "error";
  }
  return "?";
}

int exitCode(Verdict V) {
  switch (V) {
  case Verdict::Proved:
  case Verdict::ProvedWithinTolerance:
    return 0;
  case Verdict::Counterexample:
    return 1;
  case Verdict::Unknown:
    return 2;
  case Verdict::Error:
    return 3;
  }
  return 3;
}

static int severity(Verdict V) {
  switch (V) {
  case Verdict::Proved:
    return 0;
  case Verdict::ProvedWithinTolerance:
    return 1;
  case Verdict::Unknown:
    return 2;
  case Verdict::Counterexample:
    return 3;
  case Verdict::Error:
    return 4;
  }
  return 4;
}

Verdict worst(Verdict A, Verdict B) { return severity(A) >= severity(B) ? A : B; }

namespace {

/// How many times a query is asked again with the allowed choices its
/// last input showed taken (CheckOptions::AllowedChoiceTaken).
constexpr unsigned AllowedChoiceRounds = 3;

/// The work, as milliseconds of testing (testingWork), that the queries
/// after the first unknown one share for testing.
constexpr double DeferredTestingMs = 10000;

/// A buffer's final content at one index, as seen by one side.
struct FinalContent {
  const Expr *Written; // i1: some write hits the index
  const Expr *Value;   // the last such write's value (initial content if none)
  const Expr *Defined; // i1: that value is not poison
};

FinalContent finalContent(Context &C, const std::vector<Write> &Writes,
                          const Buffer &B, const Expr *Index) {
  FinalContent F{C.falseExpr(), C.read(B.Name, B.Element, Index),
                 C.trueExpr()};
  for (const Write &W : Writes) {
    const Expr *Hits = C.andOf(W.Guard, C.eq(W.Index, Index));
    F.Written = C.orOf(F.Written, Hits);
    F.Value = C.select(Hits, W.Value, F.Value);
    F.Defined = C.select(Hits, W.Defined, F.Defined);
  }
  return F;
}

/// Rebuilds expressions with each node Cut selects replaced by a free
/// value, one per node, numbered in the order met: two expressions built
/// alike give one node, and an expression that never holds for any values
/// of the cut nodes never holds for theirs.
class FreeValueCutter {
public:
  FreeValueCutter(Context &C, std::string Prefix,
                  std::function<bool(const Expr *)> Cut)
      : C(C), Prefix(std::move(Prefix)), Cut(std::move(Cut)) {}

  const Expr *operator()(const Expr *N) {
    if (auto It = Memo.find(N); It != Memo.end())
      return It->second;
    const Expr *R = N;
    if (Cut(N)) {
      R = C.symbol(Prefix + std::to_string(++Cuts), N->type(),
                   SymbolRole::Free);
    } else if (N->numOperands() > 0) {
      std::vector<const Expr *> Ops;
      for (const Expr *O : N->operands())
        Ops.push_back((*this)(O));
      R = C.withOperands(N, Ops);
    }
    Memo[N] = R;
    return R;
  }

private:
  Context &C;
  std::string Prefix;
  std::function<bool(const Expr *)> Cut;
  std::unordered_map<const Expr *, const Expr *> Memo;
  unsigned Cuts = 0;
};

/// i1: the two values are different data in this mode.
const Expr *differs(Context &C, const Expr *A, const Expr *B, smt::Mode M) {
  Type T = A->type();
  if (!T.isFloat())
    return C.icmp(ICmpPredicate::Ne, A, B);
  if (M == smt::Mode::Real)
    return C.fcmp(FCmpPredicate::Une, A, B);
  Type Bits = Type::i(T.bits()); // NaNs canonicalize: all NaNs are one datum
  return C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, A, Bits),
                C.cast(Op::Bitcast, B, Bits));
}

/// What one side leaves at (Buffer, Index) under a concrete input: every
/// instance of every write is enumerated, the last one that hits wins.
struct Observed {
  bool Written = false;
  Value V;
  bool Defined = true;
  Origin From;
};

Observed observe(const Effects &E, const std::string &Buffer, uint64_t Index,
                 const Env &Model) {
  Observed O;
  for (const Write &W : E.Writes) {
    if (W.Buffer != Buffer)
      continue;
    std::vector<uint64_t> Counter(W.Bound.size(), 0);
    // A write in a summarised loop ranges over every iteration: too many
    // instances to enumerate, so such a model is not replayed here.
    constexpr uint64_t MaxInstances = uint64_t(1) << 20;
    uint64_t Instances = 1;
    for (const BoundVariable &B : W.Bound)
      Instances = B.Extent > MaxInstances / Instances ? MaxInstances + 1
                                                      : Instances * B.Extent;
    if (Instances > MaxInstances)
      throw EvalError("a write of " + Buffer +
                      " has too many instances to enumerate");
    Env Instance = Model; // each instance sets every bound symbol anew
    for (;;) {
      for (size_t I = 0; I < W.Bound.size(); ++I)
        Instance.setSymbol(W.Bound[I].Symbol->name(),
                           Value::ofBits(W.Bound[I].Symbol->type(), Counter[I]));
      Interpreter I(Instance);
      // The index first: it is small, while a guard may hold a whole
      // row's reduction, and only the instance that hits needs the rest.
      bool Hits;
      try {
        Hits = I.eval(W.Index).Bits == Index;
      } catch (const EvalError &) {
        Hits = true; // an index only a true guard makes defined: ask it
      }
      if (Hits && I.eval(W.Guard).isTrue() && I.eval(W.Index).Bits == Index) {
        O.Written = true;
        O.V = I.eval(W.Value);
        O.Defined = I.eval(W.Defined).isTrue();
        O.From = W.From;
      }
      size_t K = W.Bound.size();
      while (K > 0 && ++Counter[K - 1] >= W.Bound[K - 1].Extent)
        Counter[--K] = 0;
      if (K == 0)
        break;
    }
  }
  return O;
}

std::vector<Buffer> writtenBuffers(const Effects &S, const Effects &T) {
  std::vector<Buffer> Out;
  std::set<std::string> Seen;
  for (const Effects *E : {&S, &T})
    for (const Write &W : E->Writes)
      if (Seen.insert(W.Buffer).second) {
        const Buffer *B = S.buffer(W.Buffer);
        if (!B)
          B = T.buffer(W.Buffer);
        Out.push_back(B ? *B : Buffer{W.Buffer, W.Value->type(),
                                      AddressSpace::Global, std::nullopt});
      }
  return Out;
}

class RefinementCheck {
public:
  RefinementCheck(Context &C, const Effects &S, const Effects &T,
                  const CheckOptions &O)
      : C(C), Source(S), Target(T), Options(O) {}

  PairResult run() {
    auto Start = std::chrono::steady_clock::now();
    Result.Arithmetic = Options.Arithmetic;
    try {
      SourceDefined = C.notOf(Source.undefinedCondition(C));
      for (const Expr *A : Options.Assumptions)
        SourceDefined = C.andOf(SourceDefined, A);
      bool Defined = definedCondByCond();
      if (!Defined) {
        const Expr *TargetUndefined = Target.undefinedCondition(C);
        const Expr *Violation = C.andOf(SourceDefined, TargetUndefined);
        std::optional<bool> WayByWay = definedWayByWay(TargetUndefined, Violation);
        Defined = WayByWay ? *WayByWay
                           : check("target defined where source is",
                                   Violation, nullptr);
        // Unknown here does not hide a store that differs: the stores are
        // tested, and the verdict stays unknown unless one of them fails.
        Defined = Defined || deferUnknown();
      }
      if (Defined && checkBuffers())
        checkAtomics();
    } catch (const IRError &E) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = E.what();
    }
    if (Result.Kind == Verdict::Unknown && Result.Reason.empty())
      Result.Kind = Verdict::Proved;
    Result.Seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start).count();
    return Result;
  }

private:
  /// Definedness condition by condition: when the two sides list their
  /// undefined-behaviour conditions alike (same count, same families), each
  /// target condition implying the source's at the same instance proves the
  /// target defined wherever the source is, with small queries instead of
  /// one over every instance of every family. Any doubt falls back to the
  /// whole query.
  bool definedCondByCond() {
    const auto &S = Source.Undefined, &T = Target.Undefined;
    if (S.size() != T.size() || S.empty())
      return false;
    for (size_t K = 0; K < S.size(); ++K) {
      if (S[K].Bound.size() != T[K].Bound.size())
        return false;
      for (size_t D = 0; D < S[K].Bound.size(); ++D)
        if (S[K].Bound[D].Symbol != T[K].Bound[D].Symbol ||
            S[K].Bound[D].Extent != T[K].Bound[D].Extent)
          return false;
    }
    auto Start = std::chrono::steady_clock::now();
    smt::SolverOptions Quick = Options.Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, 5000u);
    for (size_t K = 0; K < S.size(); ++K) {
      if (T[K].Condition == S[K].Condition || T[K].Condition->isFalse())
        continue;
      const Expr *Q = C.andOf(C.andOf(T[K].Condition, C.notOf(S[K].Condition)),
                              inRange(C, T[K].Bound));
      for (const Expr *A : Options.Assumptions)
        Q = C.andOf(Q, A);
      smt::QueryResult R = smt::solve(
          {"definedness " + std::to_string(K + 1), Q, {}, Options.Arithmetic},
          Quick);
      if (R.Kind != smt::Outcome::Proved)
        return false;
    }
    double Took = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - Start).count();
    Result.Queries.push_back({"target defined where source is",
                              smt::Outcome::Proved,
                              "condition by condition (" +
                                  std::to_string(S.size()) + ")",
                              Took, ""});
    return true;
  }

  /// Each of the target's ways to be undefined ruled out on its own
  /// against the source's definedness (stages/SplitDefinedness.h): one
  /// thread's assertion against what every element asserts is a small
  /// question. True when every way is ruled out; false when a way's model
  /// is an input where the whole Violation holds (then confirmed as any
  /// counterexample is); nothing when the whole question must be asked.
  std::optional<bool> definedWayByWay(const Expr *TargetUndefined,
                                      const Expr *Violation) {
    const std::string Name = "target defined where source is";
    SplitProof Split = proveDisjunctByDisjunct(
        C, SourceDefined, TargetUndefined, {}, Options.Arithmetic,
        Options.Solver, Name);
    if (Split.Proved) {
      Result.Queries.push_back(
          {Name, smt::Outcome::Proved, splitDetail(Split), Split.Seconds, ""});
      return true;
    }
    // A way's model answers the whole question only if the facts the way
    // left out hold of it too: the launch's assumptions, which tie no
    // datum to the way, are met first by the launch the bundle ran, then
    // by zeros. Otherwise the whole question is asked, which can take the
    // solver far longer than the way did.
    if (!Split.Candidate)
      return std::nullopt;
    std::optional<Env> Candidate;
    for (bool AtLaunch : {true, false}) {
      Env Trial = AtLaunch ? preferredValues() : Env();
      for (const auto &[Symbol, V] : Split.Candidate->symbols())
        Trial.setSymbol(Symbol, V);
      for (const auto &[Key, V] : Split.Candidate->reads())
        Trial.setRead(Key.first, Key.second, V);
      Trial = completed(Trial, nullptr);
      try {
        if (Interpreter(Trial).eval(Violation).isTrue()) {
          Candidate = std::move(Trial);
          break;
        }
      } catch (const EvalError &) {
      }
    }
    if (!Candidate)
      return std::nullopt;
    Result.Queries.push_back({Name, smt::Outcome::Counterexample,
                              "found way by way", Split.Seconds, ""});
    confirm(Name, Violation, *Candidate, nullptr);
    return false;
  }

  Context &C;
  const Effects &Source, &Target;
  const CheckOptions &Options;
  PairResult Result;
  const Expr *SourceDefined = nullptr;
  /// Set when a pairwise store mismatch did not show in the final content.
  bool Unconfirmed = false;
  std::string Deferred; // the first unknown set aside (deferUnknown)
  uint64_t DeferredSpent = 0; // of the work shared after it (deferredWorkLeft)
  /// An input that satisfies the assumptions (asked once, when testing
  /// from random inputs finds nothing).
  std::optional<Env> AssumptionModel;
  bool AskedForModel = false;

  const Env *assumptionModel() {
    if (!AskedForModel) {
      AskedForModel = true;
      const Expr *All = C.trueExpr();
      for (const Expr *A : Options.Assumptions)
        All = C.andOf(All, A);
      // The solver's model, not testing's (satisfyByTesting): testing's is
      // the least launch (lane 0 of program 0, small sizes), where a scan's
      // wrong combine never shows (a running log-sum-exp's infinity test
      // turned: 62 s of value queries from testing's model, found by
      // testing in 3.7 s from the solver's).
      smt::SolverOptions Quick = Options.Solver;
      Quick.TimeoutMs = std::min(Quick.TimeoutMs, 2000u);
      smt::QueryResult R =
          smt::solve({"assumptions", All, {}, Options.Arithmetic}, Quick);
      if (R.Kind == smt::Outcome::Counterexample)
        AssumptionModel = R.Model;
    }
    return AssumptionModel ? &*AssumptionModel : nullptr;
  }

  /// Where a buffer query looks: the element whose index Index evaluates
  /// to (a checker symbol, or a store's index), and the variables the
  /// falsifier should steer.
  struct BufferQuery {
    Buffer B;
    const Expr *Index;
    std::vector<FalsifyOptions::IndexHint> Hints;
    std::vector<BoundVariable> Ranges;
    /// The source's guard and value (FalsifyOptions::SourceSide), or none.
    std::vector<const Expr *> SourceSide = {};
  };

  /// A query the violation implies (asked before it, shorter): proved, the
  /// violation is; a model of it is tested against the violation.
  struct ImpliedQuery {
    const Expr *Query;
    std::string Proved; // the reason printed when it is proved
    std::string Found;  // "found by testing <Found>"
    unsigned TimeoutMs;
    /// A stronger question whose proof proves Query, or null: the places'
    /// condition alone, wherever the write is and whatever it reads. It is
    /// asked with what varies from element to element cut out
    /// (elementShape), so one proof serves every element computed alike.
    const Expr *Alone = nullptr;
  };

  /// Shapes (elementShape) proved never to hold, and those not proved.
  std::unordered_set<const Expr *> ProvedShapes, UnprovedShapes;

  /// Q with what varies from one element to the next cut to free values
  /// numbered in the order they are met: each read, and each largest
  /// integer or boolean term of symbols and constants (an index, a mask, a
  /// lane's offset). Two elements computed alike give one node. Q never
  /// holds when its shape never holds, since each cut value may be any.
  const Expr *elementShape(const Expr *Q) {
    std::unordered_map<const Expr *, bool> OfSymbols;
    const Expr *Roots[] = {Q};
    for (const Expr *N : postOrder(Roots)) {
      bool Leaf = N->op() == Op::Symbol || N->isConst();
      bool Plain = Leaf || (N->op() != Op::Read && N->op() != Op::Call &&
                            (N->type().isInt() || N->type().isBool()));
      for (const Expr *O : N->operands())
        Plain = Plain && OfSymbols.at(O);
      OfSymbols[N] = Plain && (N->type().isInt() || N->type().isBool());
    }
    FreeValueCutter Shape(C, "element.cut", [&](const Expr *N) {
      return !N->isConst() && (N->op() == Op::Read || OfSymbols.at(N));
    });
    return Shape(Q);
  }

  /// Whether I.Alone is proved never to hold, through its Shape (asked
  /// until shapes have failed twice with none proved: then the elements
  /// are not alike).
  bool provedByShape(const std::string &Name, const ImpliedQuery &I,
                     const Expr *Shape, const smt::SolverOptions &Quick) {
    if (!Shape || UnprovedShapes.count(Shape) ||
        (ProvedShapes.empty() && UnprovedShapes.size() >= 2))
      return false;
    smt::QueryResult R =
        smt::solve({Name, Shape, {}, Options.Arithmetic}, Quick);
    if (R.Kind != smt::Outcome::Proved) {
      UnprovedShapes.insert(Shape);
      return false;
    }
    ProvedShapes.insert(Shape);
    Result.Queries.push_back({Name, smt::Outcome::Proved,
                              I.Proved + " (for any element computed alike)",
                              R.Seconds, R.DumpedTo});
    return true;
  }

  /// Whether Violation is proved never to hold through its Shape
  /// (elementShape), asked with the query's own limit until two such shapes
  /// have failed with none proved. A shape not proved is left to the
  /// element's own query.
  bool provedWholeByShape(const std::string &Name, const Expr *Violation,
                          const Expr *Shape) {
    if (Shape == Violation)
      return false; // nothing varies: the element's own query is the shape
    if (UnprovedShapes.count(Shape) ||
        (WholeShapesProved == 0 && WholeShapesUnproved >= 2))
      return false;
    smt::QueryResult R =
        smt::solve({Name, Shape, {}, Options.Arithmetic}, Options.Solver);
    if (R.Kind != smt::Outcome::Proved) {
      UnprovedShapes.insert(Shape);
      ++WholeShapesUnproved;
      return false;
    }
    ProvedShapes.insert(Shape);
    ++WholeShapesProved;
    Result.Queries.push_back({Name, smt::Outcome::Proved,
                              "for any element computed alike", R.Seconds,
                              R.DumpedTo});
    return true;
  }
  unsigned WholeShapesProved = 0, WholeShapesUnproved = 0;

  std::vector<FalsifyOptions::IndexHint> hints(const BufferQuery *Where) {
    return Where ? Where->Hints : std::vector<FalsifyOptions::IndexHint>{};
  }

  /// Runs one named query; returns true when it is proved. Precondition:
  /// the part of Violation that says where it matters (a write happens,
  /// defined): when the solver gives up, testing is tried once more from
  /// an input that satisfies it, since random launches rarely reach a
  /// guarded write that the assumptions' own model may miss.
  bool check(const std::string &Name, const Expr *Violation,
             const BufferQuery *Where, const Expr *Precondition = nullptr,
             const std::vector<ImpliedQuery> &AtThePlaces = {}) {
    // An element computed like one proved before is settled by its proof.
    const Expr *Shape = Precondition ? elementShape(Violation) : nullptr;
    if (Shape && Shape != Violation && ProvedShapes.count(Shape)) {
      Result.Queries.push_back({Name, smt::Outcome::Proved,
                                "the shape of an earlier element", 0.0, ""});
      return true;
    }
    // Bit-exact queries first meet random testing: a failing input found
    // that way is already a concrete, interpreter-checked counterexample.
    // (Over the reals the interpreter's IEEE answer would not count.)
    if (Options.Arithmetic == smt::Mode::IEEE && testingTimeLeft()) {
      auto Start = std::chrono::steady_clock::now();
      FalsifyOptions F;
      F.Hints = hints(Where);
      if (Where) {
        F.Ranges = Where->Ranges;
        F.SourceSide = Where->SourceSide;
      }
      F.Deadline = testingDeadline();
      withinDeferredBudget(F);
      // The launch the bundle ran meets the tensors' bounds that random
      // sizes almost never meet: a kernel wrong there is found there first.
      std::optional<Env> Found;
      if (!Options.Preferred.empty()) {
        F.Base = preferredValues();
        Found = falsify(Violation, F);
        F.Base = Env();
      }
      if (!Found)
        Found = falsify(Violation, F);
      if (!Found && !Options.Assumptions.empty() && assumptionModel()) {
        F.Base = *AssumptionModel;
        Found = falsify(Violation, F);
      }
      if (Found) {
        double Took = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start).count();
        Result.Queries.push_back({Name, smt::Outcome::Counterexample,
                                  "found by testing", Took, ""});
        confirm(Name, Violation, *Found, Where);
        return false;
      }
    }
    // Once a query is unknown the verdict can only become a counterexample:
    // later queries are tested, not proved.
    if (!Deferred.empty()) {
      // From an input where the write happens, within a budget shared by
      // every query after the first unknown.
      if (Precondition && Options.Arithmetic == smt::Mode::IEEE &&
          deferredWorkLeft() > 0)
        if (std::optional<Env> Found = testWhere(Violation, Precondition, Where)) {
          Result.Queries.push_back({Name, smt::Outcome::Counterexample,
                                    "found by testing", 0, ""});
          confirm(Name, Violation, *Found, Where);
          return false;
        }
      Result.Queries.push_back({Name, smt::Outcome::Unknown,
                                "tested only: an earlier query is unknown", 0,
                                ""});
      return true;
    }
    if (std::optional<bool> Decided =
            decidedAtThePlaces(Name, Violation, AtThePlaces, Where))
      return *Decided;
    // A value query whose elements are computed alike (an inlined libdevice
    // body per element) is asked through its shape: one proof for all.
    if (Shape && provedWholeByShape(Name, Violation, Shape))
      return true;
    smt::Query Q{Name, Violation, {}, Options.Arithmetic};
    smt::QueryResult R = smt::solve(Q, Options.Solver);
    Result.Queries.push_back({Name, R.Kind, R.Reason, R.Seconds, R.DumpedTo});
    if (R.Kind == smt::Outcome::Proved)
      return true;
    if (R.Kind == smt::Outcome::Unknown) {
      if (Precondition && Options.Arithmetic == smt::Mode::IEEE)
        if (std::optional<Env> Found = testWhere(Violation, Precondition, Where)) {
          Result.Queries.back().Reason += "; a counterexample found by testing";
          confirm(Name, Violation, *Found, Where);
          return false;
        }
      Result.Kind = Verdict::Unknown;
      Result.Reason = Name + ": " + R.Reason;
      return false;
    }
    confirm(Name, Violation, R.Model, Where);
    return false;
  }

  /// Testing stops with the check (its Solver.Deadline) and, once a query
  /// is unknown, with the work the queries after it share
  /// (withinDeferredBudget): hundreds of trials of a large tree per query
  /// would otherwise outlast the check.
  std::optional<std::chrono::steady_clock::time_point> testingDeadline() const {
    return Options.Solver.Deadline;
  }
  bool testingTimeLeft() const {
    auto End = testingDeadline();
    return (!End || std::chrono::steady_clock::now() < *End) &&
           deferredWorkLeft() > 0;
  }
  /// What is left of the work shared after the first unknown query: its
  /// testing, and the solver's search for where a write happens (all of it
  /// while no query is unknown).
  uint64_t deferredWorkLeft() const {
    if (Deferred.empty())
      return UINT64_MAX;
    uint64_t Budget = testingWork(DeferredTestingMs);
    return Budget > DeferredSpent ? Budget - DeferredSpent : 0;
  }
  /// Testing within what is left of that work, charged to it.
  void withinDeferredBudget(FalsifyOptions &F) {
    if (Deferred.empty())
      return;
    uint64_t Left = deferredWorkLeft();
    F.WorkLimit = F.WorkLimit ? std::min(*F.WorkLimit, Left) : Left;
    F.WorkSpent = &DeferredSpent;
  }

  /// Testing from a model of Precondition (asked of the solver briefly).
  std::optional<Env> testWhere(const Expr *Violation, const Expr *Precondition,
                               const BufferQuery *Where) {
    smt::SolverOptions Quick = Options.Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, 5000u);
    smt::QueryResult R =
        smt::solve({"where it matters", Precondition, {}, Options.Arithmetic}, Quick);
    if (!Deferred.empty())
      DeferredSpent += testingWork(R.Work * 1000);
    if (R.Kind != smt::Outcome::Counterexample)
      return std::nullopt;
    FalsifyOptions F;
    F.Hints = hints(Where);
    if (Where) {
      F.Ranges = Where->Ranges;
      F.SourceSide = Where->SourceSide;
    }
    F.Base = R.Model;
    F.Seed = 2;
    F.Deadline = testingDeadline();
    withinDeferredBudget(F);
    return falsify(Violation, F);
  }

  /// Replays a model through the interpreter; only a replay that shows the
  /// violation becomes a counterexample. Retesting is false for an input
  /// testing found after an implausible model: its own replay (through a
  /// preferred launch the solver may pick) does not test again.
  void confirm(const std::string &Name, const Expr *Violation,
               const Env &Model, const BufferQuery *Where,
               bool Retesting = true, const Expr *Searched = nullptr,
               unsigned ChoiceRounds = 0) {
    try {
      // Kept while shrinking: the preferred launch, once it is shown.
      const Expr *Shown = Violation;
      Env Replay = completed(Model, Where);
      if (std::optional<Env> AtLaunch =
              preferredModel(Name, Violation, Replay)) {
        Env There = completed(*AtLaunch, Where);
        if (Interpreter(There).eval(Violation).isTrue()) {
          Replay = std::move(There);
          Shown = C.andOf(Violation, preferred());
        }
      }
      if (!Interpreter(Replay).eval(Violation).isTrue()) {
        Result.Kind = Verdict::Unknown;
        Result.Reason =
            Name + ": the solver's counterexample does not reproduce in the "
                   "concrete interpreter" +
            (Options.Arithmetic == smt::Mode::Real
                 ? " (it holds over the reals only)"
                 : "");
        return;
      }
      // Shown with the functions' own values if it holds with them; a
      // value no approximation gives makes it no counterexample at all.
      if (!Replay.calls().empty()) {
        Env Own = completed(withFunctionsOwnValues(Replay), Where);
        bool Holds = false;
        try {
          Holds = Interpreter(Own).eval(Shown).isTrue();
        } catch (const EvalError &) {
        }
        if (Holds) {
          Replay = std::move(Own);
        } else if (std::optional<std::string> Far =
                       implausibleAssumption(Replay)) {
          // Testing from the model's inputs with the functions' own values
          // may still find one the hardware can show.
          if (Retesting) {
            FalsifyOptions F;
            F.Hints = hints(Where);
            if (Where)
              F.Ranges = Where->Ranges;
            F.Base = withFunctionsOwnValues(Model);
            F.Seed = 5;
            F.WorkLimit = testingWork(2000);
            F.Deadline = testingDeadline();
            withinDeferredBudget(F);
            if (std::optional<Env> Found = falsify(Violation, F);
                Found && Found->calls().empty())
              return confirm(Name, Violation, *Found, Where, false);
          }
          Result.Kind = Verdict::Unknown;
          Result.Reason = Name + ": the only counterexample found assumes " +
                          *Far +
                          " (an approximation's error is not modelled)";
          return;
        }
      }
      if (Options.AllowedChoiceTaken &&
          Options.AllowedChoiceTaken(Shown, Replay)) {
        // Only a difference the choices explain may have been found, with
        // a real one behind it: ask again with the choices taken (from
        // the violation, not the launch it was shown at).
        std::string Again;
        const Expr *Taken =
            Options.AllowedChoiceTaken(Searched ? Searched : Violation, Replay);
        if (Taken && ChoiceRounds < AllowedChoiceRounds) {
          smt::QueryResult R = smt::solve(
              {Name, Taken, {}, Options.Arithmetic}, Options.Solver);
          Result.Queries.push_back(
              {Name, R.Kind,
               "asked again with the choices the input found shows taken" +
                   (R.Reason.empty() ? "" : ": " + R.Reason),
               R.Seconds, R.DumpedTo});
          if (R.Kind == smt::Outcome::Counterexample)
            return confirm(Name, Violation, R.Model, Where, Retesting, Taken,
                           ChoiceRounds + 1);
          Again = R.Kind == smt::Outcome::Proved
                      ? "; with them taken it holds nowhere"
                      : "; asked again with them taken: " + R.Reason;
        }
        Result.Kind = Verdict::Unknown;
        Result.Reason = Name + ": " + Options.AllowedChoiceReason + Again;
        return;
      }
      Replay = shrink(Shown, Replay, hints(Where));
      Interpreter I(Replay);
      assert(I.eval(Violation).isTrue() && "shrinking keeps the violation");
      Counterexample X;
      X.Query = Name;
      X.Inputs = withoutCheckerSymbols(Replay);
      if (Where) {
        uint64_t Index = I.eval(Where->Index).Bits;
        X.Buffer = Where->B.Name;
        X.Index = Index;
        Observed S = observe(Source, X.Buffer, Index, Replay);
        Observed T = observe(Target, X.Buffer, Index, Replay);
        bool Differs = S.Written != T.Written ||
                       (S.Written && S.Defined && (!T.Defined || !S.V.sameAs(T.V)));
        if (!Differs) {
          Result.Kind = Verdict::Unknown;
          Result.Reason = Name + ": the stores differ element by element, but "
                                 "the final content of " +
                          X.Buffer + "[" + std::to_string(Index) +
                          "] agrees on the counterexample";
          Unconfirmed = true;
          return;
        }
        if (S.Written)
          X.Source = S.V;
        if (T.Written)
          X.Target = T.V;
        X.SourcePoison = S.Written && !S.Defined;
        X.TargetPoison = T.Written && !T.Defined;
        X.SourceOrigin = S.From;
        X.TargetOrigin = T.From;
        std::string At = X.Buffer + "[" + std::to_string(Index) + "]";
        if (X.Source && !X.Target)
          X.Explanation = "the target never writes " + At;
        else if (!X.Source && X.Target)
          X.Explanation = "the target writes " + At + ", the source does not";
        else if (X.TargetPoison)
          X.Explanation = "the target writes poison to " + At;
        else
          X.Explanation = "the two sides write different values to " + At;
      } else {
        X.Explanation = Name == "atomics"
                            ? "the atomic operations differ"
                            : "the target is undefined where the source is "
                              "defined";
        for (const UndefinedBehavior &U : Target.Undefined) {
          std::string Instance;
          if (firstInstance(U.Condition, U.Bound, Replay, Instance)) {
            X.Explanation += ": " + U.Reason + Instance;
            X.TargetOrigin = U.From;
            break;
          }
        }
      }
      Result.Kind = Verdict::Counterexample;
      Result.Cex = std::move(X);
    } catch (const EvalError &E) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = Name + ": counterexample could not be replayed: " +
                      E.what();
    }
  }

  /// The preferred values as an input (CheckOptions::Preferred).
  Env preferredValues() const {
    Env Out;
    for (auto [Symbol, Value] : Options.Preferred)
      Out.setSymbol(Symbol->name(),
                    Value::ofBits(Value->type(), Value->constBits()));
    return Out;
  }

  /// i1: every preferred value (CheckOptions::Preferred).
  const Expr *preferred() {
    const Expr *All = C.trueExpr();
    for (auto [Symbol, Value] : Options.Preferred) {
      Type Bits = Type::i(Symbol->type().bits());
      All = C.andOf(All, Symbol->type().isFloat()
                             ? C.eq(C.cast(Op::Bitcast, Symbol, Bits),
                                    C.cast(Op::Bitcast, Value, Bits))
                             : C.eq(Symbol, Value));
    }
    return All;
  }

  /// An input with the preferred values where the violation holds: the
  /// counterexample found with those values put in, else one found by
  /// testing from there, else one the solver finds briefly; none when
  /// there are no preferred values or none of these finds one.
  std::optional<Env> preferredModel(const std::string &Name,
                                    const Expr *Violation, const Env &Found) {
    if (Options.Preferred.empty())
      return std::nullopt;
    Env Start = Found;
    const Env Launch = preferredValues();
    for (const auto &[Name, V] : Launch.symbols())
      Start.setSymbol(Name, V);
    const Expr *There = C.andOf(Violation, preferred());
    try {
      if (Interpreter(Start).eval(There).isTrue())
        return Start;
    } catch (const EvalError &) {
    }
    FalsifyOptions F;
    F.Base = Start;
    F.Trials = 64;
    F.WorkLimit = testingWork(1000);
    if (std::optional<Env> Tested = falsify(There, F))
      return Tested;
    smt::SolverOptions Quick = Options.Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, 3000u);
    smt::QueryResult R = smt::solve(
        {Name + " at the preferred launch", There, {}, Options.Arithmetic},
        Quick);
    if (R.Kind != smt::Outcome::Counterexample)
      return std::nullopt;
    return R.Model;
  }

  /// The model, with symbols it leaves free set to zero: the violation does
  /// not depend on them, but the report evaluates every write (and a model
  /// of part of a question, a definedness way's, leaves out the assumptions).
  Env completed(const Env &Model, const BufferQuery *Where) {
    std::vector<const Expr *> Roots(Options.Assumptions.begin(),
                                    Options.Assumptions.end());
    for (const Effects *E : {&Source, &Target}) {
      for (const Write &W : E->Writes)
        Roots.insert(Roots.end(), {W.Guard, W.Index, W.Value, W.Defined});
      for (const UndefinedBehavior &U : E->Undefined)
        Roots.push_back(U.Condition);
    }
    if (Where)
      Roots.push_back(Where->Index);
    Env Out = Model;
    for (const Expr *E : postOrder(Roots))
      if (E->op() == Op::Symbol && !Out.symbol(E->name()))
        Out.setSymbol(E->name(), Value::ofBits(E->type(), 0));
    return Out;
  }

  /// Whether Condition holds for some instance of Bound under Model; names
  /// the instance (" at e = 16") in Where.
  static bool firstInstance(const Expr *Condition,
                            const std::vector<BoundVariable> &Bound,
                            const Env &Model, std::string &Where) {
    std::vector<uint64_t> Counter(Bound.size(), 0);
    for (;;) {
      Env Instance = Model;
      for (size_t I = 0; I < Bound.size(); ++I)
        Instance.setSymbol(Bound[I].Symbol->name(),
                           Value::ofBits(Bound[I].Symbol->type(), Counter[I]));
      if (Interpreter(Instance).eval(Condition).isTrue()) {
        for (size_t I = 0; I < Bound.size(); ++I)
          Where += (I ? ", " : " at ") + Bound[I].Symbol->name() + " = " +
                   std::to_string(Counter[I]);
        return true;
      }
      size_t K = Bound.size();
      while (K > 0 && ++Counter[K - 1] >= Bound[K - 1].Extent)
        Counter[--K] = 0;
      if (K == 0)
        return false;
    }
  }

  /// Symbols the checker made, and the variables families range over, are
  /// not inputs of the kernel: reports leave them out.
  bool isCheckerSymbol(const std::string &Name) const {
    if (Name.rfind("index(", 0) == 0)
      return true;
    for (const Effects *E : {&Source, &Target}) {
      for (const Write &W : E->Writes)
        for (const BoundVariable &B : W.Bound)
          if (B.Symbol->name() == Name)
            return true;
      for (const UndefinedBehavior &U : E->Undefined)
        for (const BoundVariable &B : U.Bound)
          if (B.Symbol->name() == Name)
            return true;
    }
    return false;
  }

  Env withoutCheckerSymbols(const Env &Model) const {
    Env Out;
    for (const auto &[Name, V] : Model.symbols())
      if (!isCheckerSymbol(Name))
        Out.setSymbol(Name, V);
    for (const auto &[Key, V] : Model.reads())
      Out.setRead(Key.first, Key.second, V);
    for (const Env::CallPoint &P : Model.calls())
      Out.setCall(P.Function, P.Args, P.Result);
    return Out;
  }

  bool checkBuffers() {
    for (const Buffer &B : writtenBuffers(Source, Target)) {
      std::vector<const Write *> S = writesTo(Source, B.Name);
      std::vector<const Write *> T = writesTo(Target, B.Name);
      bool Ok = aligned(S, T) ? checkStoresPairwise(B, S, T)
                              : checkFinalContent(B, S, T);
      if (!Ok && !deferUnknown())
        return false;
    }
    return !resumeDeferred();
  }

  static std::vector<const Write *> writesTo(const Effects &E,
                                             const std::string &Buffer) {
    std::vector<const Write *> Out;
    for (const Write &W : E.Writes)
      if (W.Buffer == Buffer)
        Out.push_back(&W);
    return Out;
  }

  /// Both sides store to the buffer with the same sequence of families
  /// (same number of stores, each over the same extents).
  static bool aligned(const std::vector<const Write *> &S,
                      const std::vector<const Write *> &T) {
    if (S.size() != T.size())
      return false;
    for (size_t K = 0; K < S.size(); ++K) {
      if (S[K]->Bound.size() != T[K]->Bound.size())
        return false;
      for (size_t I = 0; I < S[K]->Bound.size(); ++I)
        if (S[K]->Bound[I].Extent != T[K]->Bound[I].Extent ||
            S[K]->Bound[I].Symbol->type() != T[K]->Bound[I].Symbol->type())
          return false;
    }
    return true;
  }

  static std::string storeName(const std::string &Buffer, size_t K, size_t N) {
    return N == 1 ? "store to " + Buffer
                  : "store " + std::to_string(K + 1) + " of " +
                        std::to_string(N) + " to " + Buffer;
  }

  /// Stores that correspond one to one are compared element by element: the
  /// same guard, the same place and the same value for every instance. Equal
  /// instance sequences leave equal memory.
  bool checkStoresPairwise(const Buffer &B, const std::vector<const Write *> &S,
                           const std::vector<const Write *> &T) {
    if (comparePairwise(B, S, T))
      return true;
    if (!Unconfirmed)
      return false;
    // Stores that differ element by element may still leave the same
    // memory (two elements swap their writers): decide by the content.
    Unconfirmed = false;
    Result.Kind = Verdict::Unknown;
    Result.Reason.clear();
    Result.Queries.back().Outcome = smt::Outcome::Unknown;
    Result.Queries.back().Reason =
        "not confirmed on the final content; compared by content below";
    return checkFinalContent(B, S, T);
  }

  /// Queries implied by Name's violation, asked first with short limits:
  /// the final content with each value written one unknown, and the two
  /// values' difference asked only where they part and the levels above
  /// (DifferingSubterms.h): when no place can differ, neither can the
  /// values, since the operations above the places are one function of
  /// equal operands. Short solver calls that leave out that arithmetic (the
  /// polynomial above a mutated conversion, a division by it). A place that
  /// can differ sends the question one level up, and its input is tested
  /// against the whole violation (an input where the places differ is often
  /// one where the values do). True: proved; false: a counterexample;
  /// nullopt: the whole query is asked.
  std::optional<bool>
  decidedAtThePlaces(const std::string &Name, const Expr *Violation,
                     const std::vector<ImpliedQuery> &Implied,
                     const BufferQuery *Where) {
    std::vector<const Expr *> Shapes;
    for (const ImpliedQuery &I : Implied)
      Shapes.push_back(I.Alone ? elementShape(I.Alone) : nullptr);
    // A level whose shape an earlier element proved settles it at once
    // (the levels below it may still be asked, and fail, element by element).
    for (size_t K = 0; K < Implied.size(); ++K)
      if (Shapes[K] && ProvedShapes.count(Shapes[K])) {
        Result.Queries.push_back(
            {Name, smt::Outcome::Proved,
             Implied[K].Proved + " (the shape of an earlier element)", 0.0,
             ""});
        return true;
      }
    for (size_t K = 0; K < Implied.size(); ++K) {
      const ImpliedQuery &I = Implied[K];
      smt::SolverOptions Quick = Options.Solver;
      Quick.TimeoutMs = std::min(Quick.TimeoutMs, I.TimeoutMs);
      if (provedByShape(Name, I, Shapes[K], Quick))
        return true;
      smt::QueryResult R =
          smt::solve({Name, I.Query, {}, Options.Arithmetic}, Quick);
      if (R.Kind == smt::Outcome::Unknown)
        return std::nullopt; // a level above is larger still
      if (R.Kind == smt::Outcome::Counterexample) {
        if (std::optional<Env> Found = testNear(Violation, R.Model, Where)) {
          Result.Queries.push_back({Name, smt::Outcome::Counterexample,
                                    "found by testing " + I.Found, R.Seconds,
                                    R.DumpedTo});
          confirm(Name, Violation, *Found, Where);
          return false;
        }
        continue;
      }
      Result.Queries.push_back({Name, R.Kind, I.Proved, R.Seconds, R.DumpedTo});
      return true;
    }
    return std::nullopt;
  }

  /// Testing the violation briefly from a model of a query it implies: the
  /// model itself (what it leaves out read as 0), then inputs near it.
  std::optional<Env> testNear(const Expr *Violation, const Env &Model,
                              const BufferQuery *Where) {
    if (Options.Arithmetic != smt::Mode::IEEE)
      return std::nullopt;
    Env Exactly = completed(Model, Where);
    try {
      if (Interpreter(Exactly).eval(Violation).isTrue())
        return Exactly;
    } catch (const EvalError &) {
      // A call above the places that the model has no value for.
    }
    FalsifyOptions F;
    F.Hints = hints(Where);
    if (Where)
      F.Ranges = Where->Ranges;
    F.Base = Model;
    F.Seed = 3;
    F.Trials = 64;
    F.WorkLimit = testingWork(1000);
    F.Deadline = testingDeadline();
    withinDeferredBudget(F);
    return falsify(Violation, F);
  }

  static constexpr unsigned PlacesTimeoutMs = 4000, LevelTimeoutMs = 16000,
                            PlaceMergeTimeoutMs = 1000;

  /// The atoms a conjunction fixes: each conjunct true, the operand of a
  /// negated one false. A value query is asked where the write matters, so
  /// the values may be read under these: a load or select on the store's
  /// own mask is its loaded value there, whatever the other value is.
  static std::unordered_map<const Expr *, const Expr *>
  factsOf(Context &C, const Expr *Conjunction) {
    std::unordered_map<const Expr *, const Expr *> Facts;
    std::vector<const Expr *> Work = {Conjunction};
    while (!Work.empty()) {
      const Expr *E = Work.back();
      Work.pop_back();
      if (E->op() == Op::And) {
        Work.push_back(E->operand(0));
        Work.push_back(E->operand(1));
      } else if (E->op() == Op::Not) {
        Facts[E->operand(0)] = C.falseExpr();
      } else if (!E->isConst()) {
        Facts[E] = C.trueExpr();
      }
    }
    return Facts;
  }

  /// The store value violation asked at each level of where the values
  /// part: where the write matters, the target undefined or that level. A
  /// level above is asked once a place was seen to differ, which a
  /// harmless difference must be shown harmless from: it gets longer.
  std::vector<ImpliedQuery>
  whereTheyPart(const Expr *Matters, const Expr *TargetDefined,
                const std::vector<const Expr *> &Levels) {
    std::vector<ImpliedQuery> Out;
    for (size_t Level = 0; Level < Levels.size(); ++Level)
      Out.push_back(
          {C.andOf(Matters, C.orOf(C.notOf(TargetDefined), Levels[Level])),
           Level == 0 ? "where the two values part, they are equal"
                      : "where the two values part, they are equal " +
                            std::to_string(Level) + " level" +
                            (Level == 1 ? "" : "s") + " up",
           "where the two values part",
           Level == 0 ? PlacesTimeoutMs : LevelTimeoutMs,
           TargetDefined->isTrue() ? Levels[Level] : nullptr});
    return Out;
  }

  /// i1: the two values differ, with where they can (DifferingSubterms.h)
  /// when the two are one computation but for a few places; that second
  /// condition alone, and the levels above it, go to *Levels (none when
  /// there is no such place). Bit-exact values are compared with their
  /// choices between +0 and -0 that cannot reach the value made one way
  /// (ZeroSign.h).
  const Expr *valuesDiffer(const Expr *S, const Expr *T,
                           std::vector<const Expr *> *Levels = nullptr) {
    if (Levels)
      Levels->clear();
    Merged = {};
    if (S == T)
      return C.falseExpr(); // one node: the same data for every input
    if (Options.Arithmetic != smt::Mode::IEEE)
      return differs(C, S, T, Options.Arithmetic);
    S = settleZeroSignChoices(C, S);
    T = settleZeroSignChoices(C, T);
    T = mergedAtThePlaces(S, T);
    if (S == T)
      return C.falseExpr();
    const Expr *D = differs(C, S, T, Options.Arithmetic);
    if (Options.ZerosOfEitherSign && S->type().isFloat()) {
      const Expr *Zero = C.floatConst(S->type(), 0.0);
      D = C.andOf(D, C.notOf(C.andOf(C.fcmp(FCmpPredicate::Oeq, S, Zero),
                                     C.fcmp(FCmpPredicate::Oeq, T, Zero))));
    }
    std::vector<const Expr *> Up = differingLevels(C, S, T);
    if (!Up.empty()) {
      D = C.andOf(D, Up.front());
      if (Levels)
        *Levels = std::move(Up);
    }
    return D;
  }

  /// T with each place where it parts from S (DifferingSubterms.h) that
  /// is proved the same datum as S's side for every input replaced by it,
  /// or else the nearest pair above it that is, again while places merge.
  /// The rewrites an optimizer makes inside an inlined body (a select of
  /// booleans for an `or`, a test folded to a constant from a range it
  /// knows, a branch it drops where an outer test decides) are each a
  /// small query; what is left is where the two really part. Each pair is
  /// asked through its shape, so elements computed alike ask it once.
  const Expr *mergedAtThePlaces(const Expr *S, const Expr *T) {
    constexpr size_t MaxPlaces = 64, Above = 8;
    constexpr unsigned Rounds = 4;
    for (unsigned Round = 0; Round < Rounds && S != T; ++Round) {
      auto Places = differingPlacesAndAbove(C, S, T, Above, MaxPlaces);
      if (!Places)
        return T;
      // Pairs the select rewrite settles cost nothing; then the solver.
      std::unordered_map<const Expr *, const Expr *> Merge;
      for (bool AskSolver : {false, true})
        for (const auto &Chain : *Places) {
          if (Merge.count(Chain.front().second))
            continue;
          for (const auto &[X, Y] : Chain)
            if (AskSolver ? provedSameDatum(X, Y, Chain.front())
                          : sameUnderArms(X, Y)) {
              Merge[Chain.front().second] = Chain.front().second;
              Merge[Y] = X;
              ++(AskSolver ? (FromEarlierShape ? Merged.ByEarlierShape
                                               : Merged.ByQuery)
                           : Merged.ByArms);
              break;
            }
        }
      for (auto It = Merge.begin(); It != Merge.end();)
        It = It->first == It->second ? Merge.erase(It) : std::next(It);
      if (Merge.empty())
        return T;
      T = substitute(C, T, Merge);
    }
    return T;
  }

  /// Whether X and Y, which hold the place Place where they part, are
  /// proved the same datum for every input, through their shape: first
  /// with the float values both compute cut to free values (a branch an
  /// outer test decides, above a polynomial both share, costs a few
  /// compares); then cut only below the place, so what both compute above
  /// it from its inputs stays (a flushed subnormal whose product the
  /// polynomial around it absorbs); then whole. Within a budget of solver
  /// time shared by the check.
  bool provedSameDatum(const Expr *X, const Expr *Y,
                       std::pair<const Expr *, const Expr *> Place) {
    if (X->type() != Y->type() ||
        !(X->type().isFloat() || X->type().isInt() || X->type().isBool()))
      return false;
    // Each distinct form once, the whole pair last.
    std::vector<std::pair<const Expr *, const Expr *>> Cuts;
    for (auto Cut : {sharedFloatsCut(X, Y), sharedFloatsCutBelow(X, Y, Place),
                     std::pair<const Expr *, const Expr *>{X, Y}})
      if (std::find(Cuts.begin(), Cuts.end(), Cut) == Cuts.end())
        Cuts.push_back(Cut);
    std::stable_partition(Cuts.begin(), Cuts.end(), [&](const auto &Cut) {
      return Cut != std::pair<const Expr *, const Expr *>{X, Y};
    });
    for (auto [CutX, CutY] : Cuts) {
      if (provedNeverHolds(
              elementShape(differs(C, CutX, CutY, Options.Arithmetic))) ||
          provedFlushByFlush(CutX, CutY))
        return true;
    }
    return false;
  }

  /// Whether X and Y, which flush at most two values' subnormals, are the
  /// same datum in each case of each flush: the value not subnormal (the
  /// flush is the value), a positive or a negative subnormal (the flush is
  /// +0 or -0). A solver bit-blasting the arithmetic around a flush does
  /// not see that a subnormal leaves a polynomial above it constant; read
  /// as a constant, it folds, and what is left is small.
  bool provedFlushByFlush(const Expr *X, const Expr *Y) {
    constexpr size_t MaxFlushes = 2;
    const Expr *Roots[] = {X, Y};
    std::vector<const Expr *> Flushes;
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::FFlushSubnormal)
        Flushes.push_back(N);
    if (Flushes.empty() || Flushes.size() > MaxFlushes)
      return false;
    size_t Cases = 1;
    for (size_t K = 0; K < Flushes.size(); ++K)
      Cases *= 3;
    for (size_t Case = 0; Case < Cases; ++Case) {
      std::unordered_map<const Expr *, const Expr *> Read;
      const Expr *Holds = C.trueExpr();
      size_t Digits = Case;
      for (const Expr *Flush : Flushes) {
        const Expr *V = Flush->operand(0);
        Type T = V->type();
        FloatFormat F = floatFormat(T);
        const Expr *Zero = C.floatConst(T, 0.0);
        const Expr *Subnormal = C.andOf(
            C.fcmp(FCmpPredicate::Olt, C.unary(Op::FAbs, V),
                   C.floatConst(T, std::ldexp(1.0, 1 - F.bias()))),
            C.fcmp(FCmpPredicate::One, V, Zero));
        switch (Digits % 3) {
        case 0:
          Read[Flush] = V;
          Holds = C.andOf(Holds, C.notOf(Subnormal));
          break;
        case 1:
          Read[Flush] = Zero;
          Holds = C.andOf(Holds, C.andOf(Subnormal, C.fcmp(FCmpPredicate::Ogt,
                                                           V, Zero)));
          break;
        default:
          Read[Flush] = C.unary(Op::FNeg, Zero);
          Holds = C.andOf(Holds, C.andOf(Subnormal, C.fcmp(FCmpPredicate::Olt,
                                                           V, Zero)));
        }
        Digits /= 3;
      }
      const Expr *CaseX = substitute(C, X, Read), *CaseY = substitute(C, Y, Read);
      if (CaseX == CaseY || Holds->isFalse())
        continue;
      if (!provedNeverHolds(elementShape(
              C.andOf(Holds, differs(C, CaseX, CaseY, Options.Arithmetic)))))
        return false;
    }
    return true;
  }

  /// Whether X and Y, with the floats both compute cut to free values,
  /// are one node once each select's arms are read under its condition
  /// (SelectArms.h): the same datum for every input, with no query.
  bool sameUnderArms(const Expr *X, const Expr *Y) {
    if (X->type() != Y->type())
      return false;
    auto [CutX, CutY] = sharedFloatsCut(X, Y);
    return withArmsUnderTheirConditions(C, CutX) ==
           withArmsUnderTheirConditions(C, CutY);
  }

  /// Whether Shape never holds: known from an earlier element, shown to
  /// hold by a few random inputs (most pairs asked are not equal alone),
  /// or asked of the solver briefly.
  bool provedNeverHolds(const Expr *Shape) {
    FromEarlierShape = true;
    if (auto Known = PlaceShapes.find(Shape); Known != PlaceShapes.end())
      return Known->second;
    FromEarlierShape = false;
    constexpr double BudgetSeconds = 10;
    if (PlaceSeconds >= BudgetSeconds)
      return false;
    FalsifyOptions Sample;
    Sample.Trials = 32;
    Sample.WorkLimit = testingWork(50);
    if (falsify(Shape, Sample)) {
      PlaceShapes.emplace(Shape, false);
      return false;
    }
    smt::SolverOptions Quick = Options.Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, PlaceMergeTimeoutMs);
    smt::QueryResult R = smt::solve(
        {"a place where the values part", Shape, {}, Options.Arithmetic},
        Quick);
    PlaceSeconds += R.Work;
    bool Proved = R.Kind == smt::Outcome::Proved;
    PlaceShapes.emplace(Shape, Proved);
    return Proved;
  }

  /// X and Y with each largest float node both reach (not a constant) cut
  /// to a free value, one per node: equal for all cut values is equal.
  std::pair<const Expr *, const Expr *> sharedFloatsCut(const Expr *X,
                                                        const Expr *Y) {
    const Expr *RootsX[] = {X}, *RootsY[] = {Y};
    std::unordered_set<const Expr *> InX;
    for (const Expr *N : postOrder(RootsX))
      InX.insert(N);
    std::unordered_set<const Expr *> Shared;
    for (const Expr *N : postOrder(RootsY))
      if (InX.count(N) && N->type().isFloat() && !N->isConst())
        Shared.insert(N);
    FreeValueCutter Cut(C, "place.cut",
                        [&](const Expr *N) { return Shared.count(N) > 0; });
    return {Cut(X), Cut(Y)};
  }
  /// X and Y with each largest float node both reach that lies strictly
  /// below the place's two sides cut to a free value: what X and Y compute
  /// from the place's inputs is kept, the inputs' own arithmetic is not.
  std::pair<const Expr *, const Expr *>
  sharedFloatsCutBelow(const Expr *X, const Expr *Y,
                       std::pair<const Expr *, const Expr *> Place) {
    const Expr *RootsX[] = {X}, *RootsY[] = {Y};
    std::unordered_set<const Expr *> InX, Below;
    for (const Expr *N : postOrder(RootsX))
      InX.insert(N);
    for (const Expr *Side : {Place.first, Place.second})
      for (const Expr *O : Side->operands())
        for (const Expr *N : postOrder(std::vector<const Expr *>{O}))
          Below.insert(N);
    std::unordered_set<const Expr *> Shared;
    for (const Expr *N : postOrder(RootsY))
      if (InX.count(N) && Below.count(N) && N->type().isFloat() &&
          !N->isConst())
        Shared.insert(N);
    FreeValueCutter Cut(C, "place.below",
                        [&](const Expr *N) { return Shared.count(N) > 0; });
    return {Cut(X), Cut(Y)};
  }

  /// Places' shapes and whether each was proved never to differ.
  std::unordered_map<const Expr *, bool> PlaceShapes;
  double PlaceSeconds = 0;
  /// Whether provedNeverHolds answered from an earlier shape.
  bool FromEarlierShape = false;

  /// How the last valuesDiffer merged the places where the values part.
  struct PlaceMerges {
    unsigned ByQuery = 0, ByEarlierShape = 0, ByArms = 0;
    /// What a proof of the values owes to them, for its report; "" if none.
    std::string note() const {
      unsigned All = ByQuery + ByEarlierShape + ByArms;
      if (All == 0)
        return "";
      std::string Out;
      auto Add = [&](unsigned N, const char *How) {
        if (N != 0)
          Out += (Out.empty() ? "" : ", ") + std::to_string(N) + How;
      };
      Add(ByQuery, " proved equal for any element computed alike");
      Add(ByEarlierShape, " equal as the shape of an earlier element");
      Add(ByArms, " one node once each select's arms are read under its "
                  "condition");
      return "where the two values part (" + std::to_string(All) +
             (All == 1 ? " place): " : " places): ") + Out;
    }
  } Merged;

  /// Adds to a proof of values the merges it owes something to.
  void noteMerges() {
    std::string Note = Merged.note();
    if (Note.empty() || Result.Queries.empty() ||
        Result.Queries.back().Outcome != smt::Outcome::Proved)
      return;
    std::string &Reason = Result.Queries.back().Reason;
    Reason = Reason.empty() ? Note : Reason + "; " + Note;
  }

  bool comparePairwise(const Buffer &B, const std::vector<const Write *> &S,
                       const std::vector<const Write *> &T) {
    for (size_t K = 0; K < S.size(); ++K) {
      const Write &WS = *S[K], &WT = *T[K];
      std::unordered_map<const Expr *, const Expr *> Rename;
      for (size_t I = 0; I < WS.Bound.size(); ++I)
        Rename[WT.Bound[I].Symbol] = WS.Bound[I].Symbol;
      const Expr *GuardT = substitute(C, WT.Guard, Rename);
      const Expr *IndexT = substitute(C, WT.Index, Rename);
      const Expr *ValueT = substitute(C, WT.Value, Rename);
      const Expr *DefinedT = substitute(C, WT.Defined, Rename);
      const Expr *Context = C.andOf(inRange(C, WS.Bound), SourceDefined);
      BufferQuery Q{B, WS.Index, {}, WS.Bound};
      std::string Name = storeName(B.Name, K, S.size());
      std::vector<const Expr *> Levels;
      const Expr *Matters = C.andOf(Context, C.andOf(WS.Guard, WS.Defined));
      const auto Facts = factsOf(C, Matters);
      const Expr *SourceValue = substitute(C, WS.Value, Facts);
      const Expr *Mismatch = C.orOf(
          C.notOf(substitute(C, DefinedT, Facts)),
          valuesDiffer(SourceValue, substitute(C, ValueT, Facts), &Levels));
      BufferQuery Values = Q;
      Values.SourceSide = {Matters, SourceValue};
      bool Ok =
          check(Name + ": guards",
                C.andOf(Context, C.xorOf(WS.Guard, GuardT)), &Q) &&
          check(Name + ": places",
                C.andOf(Context, C.andOf(WS.Guard, C.icmp(ICmpPredicate::Ne,
                                                          WS.Index, IndexT))),
                &Q) &&
          check(Name + ": values", C.andOf(Matters, Mismatch), &Values, Matters,
                whereTheyPart(Matters, DefinedT, Levels));
      if (Ok)
        noteMerges();
      if (!Ok && !deferUnknown())
        return false;
    }
    return !resumeDeferred();
  }

  /// An unknown query does not hide a later one's counterexample: it is set
  /// aside and checking goes on; the verdict is unknown only if nothing
  /// later fails. Returns false when the failure is not an unknown (a
  /// counterexample, or one that does not confirm on the final content).
  bool deferUnknown() {
    if (Result.Kind != Verdict::Unknown || Unconfirmed)
      return false;
    if (Deferred.empty()) {
      Deferred = Result.Reason;
      DeferredSpent = 0;
    }
    Result.Reason.clear();
    return true;
  }
  /// Whether an unknown was set aside; it becomes the result again.
  bool resumeDeferred() {
    if (Deferred.empty())
      return false;
    Result.Kind = Verdict::Unknown;
    Result.Reason = Deferred;
    Deferred.clear();
    return true;
  }

  /// Stores that do not correspond are compared by the buffer's final
  /// content at a symbolic index, after expanding every family into its
  /// instances.
  bool checkFinalContent(const Buffer &B, const std::vector<const Write *> &S,
                         const std::vector<const Write *> &T) {
    std::vector<Write> SI, TI;
    if (!expand(S, SI) || !expand(T, TI)) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = "stores to " + B.Name +
                      " do not correspond one to one and have more than " +
                      std::to_string(MaxInstances) + " instances to compare";
      return false;
    }
    const Expr *Index = C.symbol("index(" + B.Name + ")", Type::i(64));
    FinalContent FS = finalContent(C, SI, B, Index);
    FinalContent FT = finalContent(C, TI, B, Index);
    FalsifyOptions::IndexHint Hint{Index, {}};
    for (const std::vector<Write> *Side : {&SI, &TI})
      for (const Write &W : *Side)
        Hint.Candidates.push_back(W.Index);
    BufferQuery Q{B, Index, {Hint}, {}};
    if (!check("elements written to " + B.Name,
               C.andOf(SourceDefined, C.xorOf(FS.Written, FT.Written)), &Q))
      return false;
    std::vector<const Expr *> Levels;
    const Expr *Matters =
        C.andOf(SourceDefined, C.andOf(FS.Written, FS.Defined));
    const auto Facts = factsOf(C, Matters);
    const Expr *Mismatch = C.orOf(
        C.notOf(substitute(C, FT.Defined, Facts)),
        valuesDiffer(substitute(C, FS.Value, Facts),
                     substitute(C, FT.Value, Facts), &Levels));
    std::vector<ImpliedQuery> Implied = {
        {C.andOf(Matters, valuesAsUnknowns(SI, TI, B, Index)),
         "decided by the writes' guards and places, each value written one "
         "unknown",
         "near a model with each value written one unknown", PlacesTimeoutMs}};
    for (ImpliedQuery &L : whereTheyPart(Matters, FT.Defined, Levels))
      Implied.push_back(std::move(L));
    bool Ok = check("values written to " + B.Name, C.andOf(Matters, Mismatch),
                    &Q, nullptr, Implied);
    if (Ok)
      noteMerges();
    return Ok;
  }

  /// i1: the final contents differ (or the target's is poison) with each
  /// value written one unknown, one per distinct value: what the writes'
  /// guards and places decide alone. Implied by the real mismatch (the
  /// unknowns may be the values), so its proof is a proof; it leaves out
  /// the values' arithmetic, which a value that several threads write
  /// (a row's mean from every lane that holds it) repeats per writer.
  const Expr *valuesAsUnknowns(std::vector<Write> SI, std::vector<Write> TI,
                               const Buffer &B, const Expr *Index) {
    std::unordered_map<const Expr *, const Expr *> Unknown;
    for (std::vector<Write> *Side : {&SI, &TI})
      for (Write &W : *Side) {
        auto [It, New] = Unknown.try_emplace(W.Value, nullptr);
        if (New)
          It->second = C.fresh("written", W.Value->type());
        W.Value = It->second;
      }
    FinalContent FS = finalContent(C, SI, B, Index);
    FinalContent FT = finalContent(C, TI, B, Index);
    return C.orOf(C.notOf(FT.Defined),
                  differs(C, FS.Value, FT.Value, Options.Arithmetic));
  }

  static constexpr uint64_t MaxInstances = 1 << 14;

  bool expand(const std::vector<const Write *> &Writes, std::vector<Write> &Out) {
    for (const Write *W : Writes) {
      if (W->Bound.empty()) {
        Out.push_back(*W);
        continue;
      }
      bool Fits = forEachInstance(C, W->Bound, MaxInstances, [&](const auto &Map) {
        Write I = *W;
        I.Bound.clear();
        I.Guard = substitute(C, W->Guard, Map);
        I.Index = substitute(C, W->Index, Map);
        I.Value = substitute(C, W->Value, Map);
        I.Defined = substitute(C, W->Defined, Map);
        Out.push_back(I);
      });
      if (!Fits || Out.size() > MaxInstances)
        return false;
    }
    return true;
  }

  void checkAtomics() {
    if (Source.Atomics.empty() && Target.Atomics.empty())
      return;
    if (Source.Atomics.size() != Target.Atomics.size()) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = "atomics: the source has " +
                      std::to_string(Source.Atomics.size()) +
                      " atomic operations, the target " +
                      std::to_string(Target.Atomics.size()) +
                      "; only matching sequences are compared";
      return;
    }
    const Expr *Violation = C.falseExpr();
    for (size_t K = 0; K < Source.Atomics.size(); ++K) {
      const Atomic &S = Source.Atomics[K], &T = Target.Atomics[K];
      const Expr *Differs = C.xorOf(S.Guard, T.Guard);
      bool SameShape = S.Kind == T.Kind && S.Buffer == T.Buffer &&
                       S.Value->type() == T.Value->type() &&
                       (S.Compare == nullptr) == (T.Compare == nullptr);
      const Expr *Payload = C.trueExpr();
      if (SameShape) {
        Payload = C.orOf(C.icmp(ICmpPredicate::Ne, S.Index, T.Index),
                         differs(C, S.Value, T.Value, Options.Arithmetic));
        if (S.Compare)
          Payload = C.orOf(Payload, differs(C, S.Compare, T.Compare,
                                            Options.Arithmetic));
      }
      Differs = C.orOf(Differs, C.andOf(S.Guard, Payload));
      Violation = C.orOf(Violation, Differs);
    }
    check("atomics", C.andOf(SourceDefined, Violation), nullptr);
  }
};

} // namespace

PairResult checkRefinement(Context &C, const Effects &Source,
                           const Effects &Target, const CheckOptions &O) {
  return RefinementCheck(C, Source, Target, O).run();
}

} // namespace stagecheck::stages

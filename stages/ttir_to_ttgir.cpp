//===- ttir_to_ttgir.cpp - The TTIR <-> TTGIR checker ---------------------===//
#include "stages/ttir_to_ttgir.h"

#include "frontends/ttir/Lifter.h"
#include "ir/Errors.h"
#include "smt/Solver.h"
#include "stages/Departure.h"
#include "stages/LinearArithmetic.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

using namespace stagecheck::ir;
using stagecheck::ttir::LiftOptions;
using stagecheck::ttir::LiftResult;
using stagecheck::ttir::LoopKey;

namespace stagecheck::stages {

namespace {

/// Why two kernel interfaces differ, or "" when they agree.
std::string interfaceDifference(const KernelInterface &S,
                                const KernelInterface &T) {
  if (S.Params.size() != T.Params.size())
    return "the TTIR kernel has " + std::to_string(S.Params.size()) +
           " parameters, the TTGIR kernel " + std::to_string(T.Params.size());
  for (size_t I = 0; I < S.Params.size(); ++I) {
    const KernelParam &A = S.Params[I], &B = T.Params[I];
    if (A.IsPointer != B.IsPointer || A.Element != B.Element)
      return "parameter " + A.Name + " is " +
             (A.IsPointer ? "a pointer to " : "") + A.Element.str() +
             " in the TTIR but " + (B.IsPointer ? "a pointer to " : "") +
             B.Element.str() + " in the TTGIR";
  }
  return "";
}

/// The loops of the two stages correspond when, in order, they have the
/// same bounds, initial values and body results (over the shared header
/// symbols): then by induction they carry the same values at every header.
bool summariesCorrespond(const LiftResult &S, const LiftResult &T,
                         std::string &Why) {
  if (S.Summaries.size() != T.Summaries.size()) {
    Why = "the stages have different numbers of loops";
    return false;
  }
  for (size_t K = 0; K < S.Summaries.size(); ++K) {
    const ttir::LoopSummary &A = S.Summaries[K], &B = T.Summaries[K];
    std::string Where = A.From.Loc.known() ? " at " + A.From.Loc.str() : "";
    if (!(A.Key == B.Key))
      Why = "the loop" + Where + " has different bounds";
    else if (A.Inits != B.Inits || A.Buffers != B.Buffers)
      Why = "the loop" + Where + " starts from different values";
    else if (A.Yields != B.Yields)
      Why = "the loop" + Where + " computes different values per iteration";
    else
      continue;
    return false;
  }
  return true;
}

std::vector<const Expr *> unionOf(std::vector<const Expr *> A,
                                  const std::vector<const Expr *> &B) {
  for (const Expr *E : B)
    if (std::find(A.begin(), A.end(), E) == A.end())
      A.push_back(E);
  return A;
}

std::string joined(const std::vector<std::string> &Lines) {
  std::vector<std::string> Unique;
  for (const std::string &L : Lines)
    if (std::find(Unique.begin(), Unique.end(), L) == Unique.end())
      Unique.push_back(L);
  std::string Out;
  for (const std::string &L : Unique)
    Out += (Out.empty() ? "" : "; ") + L;
  return Out;
}

/// Decides integer conditions under a case's facts: by linear integer
/// arithmetic (stages/LinearArithmetic.h), which settles loop predicates in
/// microseconds where bit-blasting takes seconds. Answers are remembered.
class CaseOracle {
public:
  CaseOracle(Context &C, std::vector<const Expr *> Facts,
             smt::SolverOptions Solver)
      : C(C), Facts(Facts), Linear(Facts), Solver(std::move(Solver)) {
    this->Solver.TimeoutMs = std::min(this->Solver.TimeoutMs, 4000u);
  }

  /// Whether some input satisfies the facts (unknown counts as yes).
  bool feasible() {
    if (Linear.refutes(C.trueExpr()))
      return false;
    const Expr *All = C.trueExpr();
    for (const Expr *F : Facts)
      All = C.andOf(All, F);
    smt::Query Q{"case condition", All, {}, smt::Mode::IEEE};
    return smt::solve(Q, Solver).Kind != smt::Outcome::Proved;
  }

  std::optional<bool> decide(const Expr *Cond) {
    if (auto It = Cache.find(Cond); It != Cache.end())
      return It->second;
    std::optional<bool> Answer;
    if (Linear.refutes(C.notOf(Cond)))
      Answer = true;
    else if (Linear.refutes(Cond))
      Answer = false;
    Cache[Cond] = Answer;
    return Answer;
  }

private:
  Context &C;
  std::vector<const Expr *> Facts;
  LinearFacts Linear;
  smt::SolverOptions Solver;
  std::unordered_map<const Expr *, std::optional<bool>> Cache;
};

class Checker {
public:
  Checker(Context &C, const ttir::Module &S, const ttir::Module &T,
          const CheckOptions &O, const ParameterReach &Reach)
      : C(C), Source(S), Target(T), Options(O), Reach(Reach) {}

  PairResult run() {
    auto Start = std::chrono::steady_clock::now();
    PairResult R;
    R.Arithmetic = Options.Arithmetic;
    try {
      R = correspondence();
    } catch (const UnsupportedError &E) {
      R = PairResult();
      R.Arithmetic = Options.Arithmetic;
      R.Kind = Verdict::Unknown;
      R.Reason = E.what();
    }
    R.Seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start).count();
    return R;
  }

private:
  Context &C;
  const ttir::Module &Source, &Target;
  const CheckOptions &Options;
  const ParameterReach &Reach;

  /// Steps 1 and 2: unrolled constant loops, summarised symbolic ones.
  PairResult correspondence() {
    LiftOptions LO;
    LO.Loops = LiftOptions::LoopMode::Summarize;
    LO.WhileBound = Options.LoopBound;
    LO.Reach = Reach;
    LiftResult LS = ttir::liftKernel(C, Source, LO);
    LiftResult LT = ttir::liftKernel(C, Target, LO);
    bool Complete = LS.NotSummarized.empty() && LT.NotSummarized.empty();
    bool Summarised = !LS.Summaries.empty() || !LT.Summaries.empty();
    std::string Why;
    if (Complete && (!Summarised || summariesCorrespond(LS, LT, Why))) {
      // Over summarised loops a proof is quick or the failure is decided
      // bounded anyway: the solver gets a short time there.
      CheckOptions Quick = Options;
      if (Summarised)
        Quick.Solver.TimeoutMs = std::min(Options.Solver.TimeoutMs, 2000u);
      PairResult R = compare(LS, LT, {}, Quick);
      if (!Summarised || R.Kind == Verdict::Proved) {
        for (const ttir::LoopSummary &L : LS.Summaries)
          R.Queries.insert(
              R.Queries.begin(),
              {"loop" + (L.From.Loc.known() ? " at " + L.From.Loc.str() : "") +
                   ": bodies correspond",
               smt::Outcome::Proved, "", 0, ""});
        return R;
      }
      // A failure over summarised loops may be one the summary's free
      // header values allow but no execution reaches: decide it bounded.
    }
    return bounded();
  }

  PairResult compare(const LiftResult &LS, const LiftResult &LT,
                     const std::vector<const Expr *> &Extra) {
    return compare(LS, LT, Extra, Options);
  }

  PairResult compare(const LiftResult &LS, const LiftResult &LT,
                     const std::vector<const Expr *> &Extra,
                     const CheckOptions &With) {
    PairResult R;
    R.Arithmetic = Options.Arithmetic;
    std::string Difference = interfaceDifference(LS.Interface, LT.Interface);
    if (!Difference.empty()) {
      R.Kind = Verdict::Unknown;
      R.Reason = Difference;
      return R;
    }
    CheckOptions CO = With;
    CO.Assumptions = unionOf(unionOf(unionOf(With.Assumptions, LS.Assumptions),
                                     LT.Assumptions),
                             Extra);
    R = checkRefinement(C, LS.Effects, LT.Effects, CO);
    std::vector<std::string> Bounds = LS.Bounds;
    Bounds.insert(Bounds.end(), LT.Bounds.begin(), LT.Bounds.end());
    R.Bound = Bounds.empty() ? "none" : joined(Bounds);
    if (R.Cex)
      blame(*R.Cex, LS, LT);
    return R;
  }

  /// Step 3: every combination of trip counts up to the bound.
  PairResult bounded() {
    LiftOptions Base;
    Base.Loops = LiftOptions::LoopMode::Cases;
    Base.WhileBound = Options.LoopBound;
    Base.Reach = Reach;
    std::vector<std::pair<LoopKey, Origin>> Keys;
    std::vector<const Expr *> Launch;
    auto Discover = [&](const LiftResult &L) {
      for (const auto &[K, From] : L.UnassignedLoops)
        if (std::none_of(Keys.begin(), Keys.end(),
                         [&](const auto &P) { return P.first == K; }))
          Keys.push_back({K, From});
    };
    for (const ttir::Module *M : {&Source, &Target}) {
      LiftResult L = ttir::liftKernel(C, *M, Base);
      Discover(L);
      Launch = unionOf(Launch, L.Assumptions); // launch ranges, while bounds
    }

    for (unsigned Restart = 0;; ++Restart) {
      if (Keys.size() > 3 || Restart > 3) {
        PairResult R;
        R.Kind = Verdict::Unknown;
        R.Reason = "more than 3 loops with independent symbolic trip counts";
        return R;
      }
      bool Restarted = false;
      PairResult Total = enumerate(Base, Keys, Launch, Discover, Restarted);
      if (!Restarted)
        return Total;
    }
  }

  PairResult enumerate(const LiftOptions &Base,
                       std::vector<std::pair<LoopKey, Origin>> &Keys,
                       const std::vector<const Expr *> &Launch,
                       const std::function<void(const LiftResult &)> &Discover,
                       bool &Restarted) {
    PairResult Total;
    Total.Arithmetic = Options.Arithmetic;
    Total.Kind = Verdict::Proved;
    std::vector<std::string> LoopNames;
    for (const auto &[K, From] : Keys)
      LoopNames.push_back("scf.for" +
                          (From.Loc.known() ? " at " + From.Loc.str() : ""));
    std::vector<std::string> Bounds;
    if (!Keys.empty())
      Bounds.push_back("trip counts 0.." + std::to_string(Options.LoopBound) +
                       " of " + joined(LoopNames));
    bool AnyFeasible = false;
    size_t KeysBefore = Keys.size();
    for (const std::vector<uint64_t> &Trips : caseOrder(Keys)) {
      std::vector<const Expr *> CaseFacts;
      std::string CaseName;
      for (size_t I = 0; I < Keys.size(); ++I) {
        CaseFacts.push_back(ttir::tripCountCase(C, Keys[I].first, Trips[I]));
        CaseName += (CaseName.empty() ? "" : ", ") + std::to_string(Trips[I]);
      }
      CaseName = Keys.empty() ? "" : (Keys.size() == 1 ? "[trip count " : "[trip counts ") +
                                         CaseName + "] ";
      CaseOracle Oracle(
          C, unionOf(unionOf(Options.Assumptions, Launch), CaseFacts),
          Options.Solver);
      if (Keys.empty() || Oracle.feasible()) {
        AnyFeasible = true;
        LiftOptions LO = Base;
        for (size_t I = 0; I < Keys.size(); ++I)
          LO.TripCounts[Keys[I].first] = Trips[I];
        LO.Facts = CaseFacts;
        if (!Keys.empty())
          LO.Oracle = [&](const Expr *Cond) { return Oracle.decide(Cond); };
        LiftResult LS = ttir::liftKernel(C, Source, LO);
        LiftResult LT = ttir::liftKernel(C, Target, LO);
        Discover(LS);
        Discover(LT);
        if (Keys.size() != KeysBefore) {
          Restarted = true;
          return Total;
        }
        PairResult R = compare(LS, LT, CaseFacts);
        for (QueryReport &Q : R.Queries) {
          Q.Name = CaseName + Q.Name;
          Total.Queries.push_back(Q);
        }
        Bounds.insert(Bounds.end(), LS.Bounds.begin(), LS.Bounds.end());
        Bounds.insert(Bounds.end(), LT.Bounds.begin(), LT.Bounds.end());
        if (R.Kind == Verdict::Counterexample) {
          Total.Kind = Verdict::Counterexample;
          Total.Cex = R.Cex;
          if (!CaseName.empty())
            Total.Cex->Notes.push_back("in the case " +
                                       CaseName.substr(1, CaseName.size() - 3) +
                                       " of " + joined(LoopNames));
          break;
        }
        if (R.Kind != Verdict::Proved && Total.Kind == Verdict::Proved) {
          Total.Kind = R.Kind;
          Total.Reason = CaseName + R.Reason;
        }
      }
    }
    // Only the trip counts from the loops' bounds are stated; the per-case
    // lines are that bound spelled out.
    std::vector<std::string> Stated;
    for (const std::string &B : Bounds)
      if (B.find(": trip count ") == std::string::npos)
        Stated.push_back(B);
    Total.Bound = Stated.empty() ? "none" : joined(Stated);
    if (!AnyFeasible) {
      Total.Kind = Verdict::Unknown;
      Total.Reason = "no input runs " + joined(LoopNames) + " at most " +
                     std::to_string(Options.LoopBound) +
                     " times; nothing was compared (raise --loop-bound)";
    }
    return Total;
  }

  /// Every combination of trip counts up to the bound: first the one the
  /// preferred launch runs (where a report is most useful and a bug most
  /// likely shows), then 1, 2, ..., LoopBound, then 0 for each loop, since
  /// a case where the loops run finds a difference inside them.
  std::vector<std::vector<uint64_t>>
  caseOrder(const std::vector<std::pair<LoopKey, Origin>> &Keys) const {
    std::vector<uint64_t> Order;
    for (uint64_t N = 1; N <= Options.LoopBound; ++N)
      Order.push_back(N);
    Order.push_back(0);
    std::vector<std::vector<uint64_t>> Combos{{}};
    for (size_t K = 0; K < Keys.size(); ++K) {
      std::vector<std::vector<uint64_t>> Longer;
      for (uint64_t N : Order) // the first loop varies fastest
        for (const std::vector<uint64_t> &Rest : Combos) {
          Longer.push_back({N});
          Longer.back().insert(Longer.back().end(), Rest.begin(), Rest.end());
        }
      Combos = std::move(Longer);
    }
    for (auto &Combo : Combos)
      std::reverse(Combo.begin(), Combo.end());
    std::vector<uint64_t> AtLaunch = launchTripCounts(Keys);
    auto It = std::find(Combos.begin(), Combos.end(), AtLaunch);
    if (!AtLaunch.empty() && It != Combos.end())
      std::rotate(Combos.begin(), It, It + 1);
    return Combos;
  }

  /// The trip count of each loop at the preferred launch, when its values
  /// fix every one within the bound; otherwise empty.
  std::vector<uint64_t>
  launchTripCounts(const std::vector<std::pair<LoopKey, Origin>> &Keys) const {
    std::unordered_map<const Expr *, const Expr *> Values;
    for (auto [Symbol, Value] : Options.Preferred)
      Values[Symbol] = Value;
    std::vector<uint64_t> Trips;
    if (Values.empty())
      return Trips;
    for (const auto &[Key, From] : Keys) {
      std::optional<uint64_t> Found;
      for (uint64_t N = 0; N <= Options.LoopBound && !Found; ++N)
        if (ir::substitute(C, ttir::tripCountCase(C, Key, N), Values)->isTrue())
          Found = N;
      if (!Found)
        return {};
      Trips.push_back(*Found);
    }
    return Trips;
  }

  /// Adds the op where the target departs from the source
  /// (stages/Departure.h) to the report; for a definedness failure, the op
  /// that made the target undefined.
  void blame(Counterexample &X, const LiftResult &LS, const LiftResult &LT) {
    std::optional<ttir::OpRef> Best;
    if (X.Index)
      Best = findDeparture(Target, LS, LT, X);
    if (!Best)
      for (const ttir::OpTrace &T : LT.Trace)
        if (T.Ref.Op == X.TargetOrigin.Op &&
            T.Ref.Source.str() == X.TargetOrigin.Loc.str()) {
          Best = T.Ref;
          break;
        }
    if (!Best)
      return;
    std::string Note = "the target first differs at " + Best->Op + " (" +
                       Target.Path + ":" + std::to_string(Best->Pos.Line) +
                       ":" + std::to_string(Best->Pos.Column);
    if (Best->Source.known())
      Note += ", " + Best->Source.str();
    X.Notes.push_back(Note + ")");
  }
};

} // namespace

PairResult checkTtirToTtgir(Context &C, const ttir::Module &Source,
                            const ttir::Module &Target, const CheckOptions &O,
                            const ParameterReach &Reach) {
  return Checker(C, Source, Target, O, Reach).run();
}

PairResult checkTtirToTtgir(Context &C, const std::string &TtirPath,
                            const std::string &TtgirPath,
                            const CheckOptions &O,
                            const ParameterReach &Reach) {
  ttir::Module Source = ttir::parseModuleFile(TtirPath);
  ttir::Module Target = ttir::parseModuleFile(TtgirPath);
  return checkTtirToTtgir(C, Source, Target, O, Reach);
}

} // namespace stagecheck::stages

#include "stages/Refinement.h"

#include "stages/Falsify.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <set>

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

/// A buffer's final content at one index, as seen by one side.
struct FinalContent {
  const Expr *Written; // i1: some write hits the index
  const Expr *Value;   // the last such write's value (initial content if none)
  const Expr *Defined; // i1: that value is not poison
};

FinalContent finalContent(Context &C, const Effects &E, const Buffer &B,
                          const Expr *Index) {
  FinalContent F{C.falseExpr(), C.read(B.Name, B.Element, Index),
                 C.trueExpr()};
  for (const Write &W : E.Writes) {
    if (W.Buffer != B.Name)
      continue;
    const Expr *Hits = C.andOf(W.Guard, C.eq(W.Index, Index));
    F.Written = C.orOf(F.Written, Hits);
    F.Value = C.select(Hits, W.Value, F.Value);
    F.Defined = C.select(Hits, W.Defined, F.Defined);
  }
  return F;
}

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

/// The origin of the last write to (Buffer, Index) under a concrete input.
Origin lastWriter(const Effects &E, const std::string &Buffer, uint64_t Index,
                  Interpreter &I) {
  Origin Found;
  for (const Write &W : E.Writes)
    if (W.Buffer == Buffer && I.eval(W.Guard).isTrue() &&
        I.eval(W.Index).Bits == Index)
      Found = W.From;
  return Found;
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
    SourceDefined = C.notOf(Source.undefinedCondition(C));
    if (check("target defined where source is",
              C.andOf(SourceDefined, Target.undefinedCondition(C)), nullptr) &&
        checkBuffers())
      checkAtomics();
    if (Result.Kind == Verdict::Unknown && Result.Reason.empty())
      Result.Kind = Verdict::Proved;
    Result.Seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start).count();
    return Result;
  }

private:
  Context &C;
  const Effects &Source, &Target;
  const CheckOptions &Options;
  PairResult Result;
  const Expr *SourceDefined = nullptr;

  struct BufferQuery {
    Buffer B;
    const Expr *Index;
    FinalContent S, T;
  };

  /// The checker's index symbol follows the indices writes use.
  std::vector<FalsifyOptions::IndexHint> hints(const BufferQuery *Where) {
    if (!Where)
      return {};
    FalsifyOptions::IndexHint Hint{Where->Index, {}};
    for (const Effects *E : {&Source, &Target})
      for (const Write &W : E->Writes)
        if (W.Buffer == Where->B.Name)
          Hint.Candidates.push_back(W.Index);
    return {Hint};
  }

  /// Runs one named query; returns true when it is proved.
  bool check(const std::string &Name, const Expr *Violation,
             const BufferQuery *Where) {
    // Bit-exact queries first meet random testing: a failing input found
    // that way is already a concrete, interpreter-checked counterexample.
    // (Over the reals the interpreter's IEEE answer would not count.)
    if (Options.Arithmetic == smt::Mode::IEEE) {
      auto Start = std::chrono::steady_clock::now();
      FalsifyOptions F;
      F.Hints = hints(Where);
      if (std::optional<Env> Found = falsify(Violation, F)) {
        double Took = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start).count();
        Result.Queries.push_back({Name, smt::Outcome::Counterexample,
                                  "found by testing", Took, ""});
        confirm(Name, Violation, *Found, Where);
        return false;
      }
    }
    smt::Query Q{Name, Violation, {}, Options.Arithmetic};
    smt::QueryResult R = smt::solve(Q, Options.Solver);
    Result.Queries.push_back({Name, R.Kind, R.Reason, R.Seconds, R.DumpedTo});
    if (R.Kind == smt::Outcome::Proved)
      return true;
    if (R.Kind == smt::Outcome::Unknown) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = Name + ": " + R.Reason;
      return false;
    }
    confirm(Name, Violation, R.Model, Where);
    return false;
  }

  /// Replays a model through the interpreter; only a replay that shows the
  /// violation becomes a counterexample.
  void confirm(const std::string &Name, const Expr *Violation,
               const Env &Model, const BufferQuery *Where) {
    try {
      Env Replay = completed(Model, Where);
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
      Replay = shrink(Violation, Replay, hints(Where));
      Interpreter I(Replay);
      assert(I.eval(Violation).isTrue() && "shrinking keeps the violation");
      Counterexample X;
      X.Query = Name;
      X.Inputs = withoutCheckerSymbols(Replay);
      if (Where) {
        uint64_t Index = I.eval(Where->Index).Bits;
        X.Buffer = Where->B.Name;
        X.Index = Index;
        if (I.eval(Where->S.Written).isTrue())
          X.Source = I.eval(Where->S.Value);
        if (I.eval(Where->T.Written).isTrue())
          X.Target = I.eval(Where->T.Value);
        X.SourcePoison = X.Source && !I.eval(Where->S.Defined).isTrue();
        X.TargetPoison = X.Target && !I.eval(Where->T.Defined).isTrue();
        X.SourceOrigin = lastWriter(Source, X.Buffer, Index, I);
        X.TargetOrigin = lastWriter(Target, X.Buffer, Index, I);
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
        for (const UndefinedBehavior &U : Target.Undefined)
          if (I.eval(U.Condition).isTrue()) {
            X.Explanation += ": " + U.Reason;
            X.TargetOrigin = U.From;
            break;
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

  /// The model, with symbols it leaves free set to zero: the violation does
  /// not depend on them, but the report evaluates every write.
  Env completed(const Env &Model, const BufferQuery *Where) {
    std::vector<const Expr *> Roots;
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

  static bool isCheckerSymbol(const std::string &Name) {
    return Name.rfind("index(", 0) == 0;
  }

  static Env withoutCheckerSymbols(const Env &Model) {
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
      BufferQuery Q{B, C.symbol("index(" + B.Name + ")", Type::i(64)), {}, {}};
      Q.S = finalContent(C, Source, B, Q.Index);
      Q.T = finalContent(C, Target, B, Q.Index);
      const Expr *WrittenDiffers = C.xorOf(Q.S.Written, Q.T.Written);
      if (!check("elements written to " + B.Name,
                 C.andOf(SourceDefined, WrittenDiffers), &Q))
        return false;
      const Expr *Mismatch =
          C.orOf(C.notOf(Q.T.Defined),
                 differs(C, Q.S.Value, Q.T.Value, Options.Arithmetic));
      const Expr *Violation = C.andOf(
          SourceDefined, C.andOf(C.andOf(Q.S.Written, Q.S.Defined), Mismatch));
      if (!check("values written to " + B.Name, Violation, &Q))
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

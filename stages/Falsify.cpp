#include "stages/Falsify.h"

#include "ir/FloatOps.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <unordered_set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

/// Testing's work a millisecond, a trial counted as its whole tree, and
/// shrinking's, counted as the nodes its tries evaluate and the values
/// they copy, on the 2-core machine of docs/BENCHMARKS.md
/// (STAGECHECK_TESTING_LOG over the corpus: testing calls of 5 ms or more
/// did 17000, 29000 and 42000 a millisecond at their quartiles; the two
/// long shrinks 6200 and 8000).
constexpr double InterpretedNodesPerMs = 30000;
constexpr uint64_t ShrinkingWorkPerMs = 8000;

/// Appends one line per testing or shrinking call to the file
/// STAGECHECK_TESTING_LOG names: "falsify" or "shrink", the work done (in
/// nodes) and its wall-clock milliseconds, from which InterpretedNodesPerMs
/// is calibrated.
void logTesting(const char *What, uint64_t Work,
                std::chrono::steady_clock::time_point Start) {
  static const char *Path = std::getenv("STAGECHECK_TESTING_LOG");
  if (!Path)
    return;
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  if (FILE *F = std::fopen(Path, "a")) {
    std::fprintf(F, "%s\t%llu\t%.2f\n", What, (unsigned long long)Work, Ms);
    std::fclose(F);
  }
}

class InputGenerator {
public:
  explicit InputGenerator(uint64_t Seed) : Rng(Seed) {}

  uint64_t below(uint64_t N) { return N ? Rng() % N : 0; }

  /// Tame values are ordinary numbers only: a kernel that sums hundreds of
  /// inputs turns almost every wild draw into a NaN on both sides, and only
  /// ordinary inputs show where its sides differ.
  Value value(Type T, bool Tame = false) {
    Value V = draw(T, Tame);
    if (Uniform && T.isFloat()) // drawn all the same: the stream stays
      return {T, fp::fromDouble(*Uniform, floatFormat(T),
                                RoundingMode::NearestEven)};
    return V;
  }

  /// Every float the same value (an infinity, a NaN, a signed zero, a
  /// one, the largest finite): a scan or reduction of equal infinities
  /// meets `inf - inf` in every combine, where its special cases live;
  /// nullopt for ordinary draws.
  void uniform(std::optional<double> V) { Uniform = V; }

  /// A value as drawn, before uniform applies.
  Value draw(Type T, bool Tame) {
    if (Tame && Ordinary && T.isFloat())
      return {T, ordinaryFloatBits(T)};
    if (Tame && !Pool.empty()) {
      double V = Pool[Rng() % Pool.size()];
      if (T.isFloat())
        return {T, fp::fromDouble(V, floatFormat(T), RoundingMode::NearestEven)};
      return Value::ofBits(T, uint64_t(int64_t(V)));
    }
    if (T.isFloat())
      return {T, Tame ? tameFloatBits(T) : floatBits(T)};
    return Value::ofBits(T, Tame ? Rng() % 8 : intBits(T.bits()));
  }

  /// Colliding inputs: tame values drawn from two of a few small numbers
  /// (signed zeros among them), so ties, comparisons of equal values and
  /// the sign of zero come up; empty for ordinary draws.
  /// Inputs at the program's own thresholds: the float constants its
  /// comparisons test against, with either sign and one step either side,
  /// so a `<` that became `<=` shows at the one value where they differ.
  void thresholds(const std::vector<double> &Constants) {
    Pool.clear();
    if (Constants.empty())
      return;
    double C = Constants[Rng() % Constants.size()];
    for (double V : {C, std::nextafter(C, INFINITY), std::nextafter(C, -INFINITY)})
      for (double S : {1.0, -1.0})
        Pool.push_back(S * V);
  }

  /// Signed zeros only: max and min reductions pick between +0 and -0 by
  /// their comparison's strictness alone.
  void zeros() { Pool = {0.0, -0.0}; }

  /// Ordinary numbers with full mantissas instead of small dyadic ones:
  /// sums of those are exact, so only these show a sum of hundreds of
  /// inputs associated in another order (and no NaN swallows it).
  void ordinary(bool On) { Ordinary = On; }

  void collide(bool On) {
    Pool.clear();
    if (!On)
      return;
    const double Choices[] = {0.0, -0.0, 1.0, -1.0};
    unsigned A = unsigned(Rng() % 4), B = unsigned(Rng() % 3);
    Pool = {Choices[A], Choices[B >= A ? B + 1 : B]};
  }

private:
  std::mt19937_64 Rng;
  std::vector<double> Pool;
  bool Ordinary = false;
  std::optional<double> Uniform;

  uint64_t intBits(unsigned W) {
    switch (Rng() % 6) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return ~uint64_t(0); // -1
    case 3:
      return Rng() % 16;
    case 4: // near the signed limits
      return (uint64_t(1) << (W - 1)) - (Rng() % 3);
    default:
      return Rng();
    }
  }

  uint64_t tameFloatBits(Type T) {
    FloatFormat F = floatFormat(T);
    double V = double(int64_t(Rng() % 17) - 8) / double(1 << (Rng() % 3));
    return fp::fromDouble(V, F, RoundingMode::NearestEven);
  }

  uint64_t floatBits(Type T) {
    FloatFormat F = floatFormat(T);
    switch (Rng() % 8) {
    case 0: {
      const double Specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 6.0};
      return fp::fromDouble(Specials[Rng() % 8], F, RoundingMode::NearestEven);
    }
    case 1: {
      uint64_t Options[] = {fp::infinity(F, false), fp::infinity(F, true),
                            fp::canonicalNaN(F), 1, fp::zero(F, true) | 1,
                            fp::infinity(F, false) - 1,
                            fp::infinity(F, true) - 1};
      return Options[Rng() % 7];
    }
    case 2: // large magnitude
      return fp::fromDouble(std::ldexp(double(Rng() % 1000) + 1, int(Rng() % 120)) *
                                (Rng() % 2 ? 1 : -1),
                            F, RoundingMode::NearestEven);
    case 3: { // tiny magnitudes, down to the subnormals: flushes, underflow
      int Below = 1 - F.bias() - int(F.MantissaBits);
      return fp::fromDouble(std::ldexp(double(Rng() % 1000) + 1,
                                       Below + int(Rng() % unsigned(-Below))) *
                                (Rng() % 2 ? 1 : -1),
                            F, RoundingMode::NearestEven);
    }
    default:
      return ordinaryFloatBits(T);
    }
  }

  /// Values around 1 (from 2^-4 to 2^7 in magnitude), either sign.
  uint64_t ordinaryFloatBits(Type T) {
    double V = (double(Rng() % 2000000) / 1000000.0 - 1.0) *
               std::ldexp(1.0, int(Rng() % 12) - 4);
    return fp::fromDouble(V, floatFormat(T), RoundingMode::NearestEven);
  }
};

/// Integer symbols that reach an int -> float conversion, each paired with
/// values just past the float's exact integers (2^(p+1) + 3, where
/// nearest-even and toward-zero part, and + 1, a tie; negated too for a
/// signed conversion): the only inputs where a conversion's rounding mode
/// shows, and ones random draws never hit.
std::vector<std::pair<const Expr *, uint64_t>>
precisionEdges(const Expr *Violation) {
  std::vector<std::pair<const Expr *, uint64_t>> Edges;
  std::vector<const Expr *> Roots{Violation};
  for (const Expr *E : postOrder(Roots)) {
    if (E->op() != Op::SIToFP && E->op() != Op::UIToFP)
      continue;
    unsigned Exact = floatFormat(E->type()).MantissaBits + 1;
    std::vector<const Expr *> Operand{E->operand(0)};
    for (const Expr *S : postOrder(Operand)) {
      if (S->op() != Op::Symbol || S->type().isFloat() ||
          S->type().bits() <= Exact + 1)
        continue;
      for (uint64_t Past : {uint64_t(3), uint64_t(1)}) {
        uint64_t V = (uint64_t(1) << Exact) + Past;
        std::pair<const Expr *, uint64_t> Up{S, V}, Down{S, uint64_t(0) - V};
        if (std::find(Edges.begin(), Edges.end(), Up) == Edges.end())
          Edges.push_back(Up);
        if (E->op() == Op::SIToFP &&
            std::find(Edges.begin(), Edges.end(), Down) == Edges.end())
          Edges.push_back(Down);
      }
    }
  }
  return Edges;
}

/// The integer parameters comparisons read: Masked, those a comparison
/// reads through sums and casts only (a mask's `offs < K - 32`), and
/// Compared, every one, the masked first (a stride reaches comparisons
/// only through a product, in an address bound).
struct ComparedSizes {
  std::vector<const Expr *> Masked, Compared;
};

ComparedSizes comparedSizes(const Expr *Violation) {
  ComparedSizes Out;
  auto IsSize = [](const Expr *S) {
    return S->op() == Op::Symbol && S->role() == SymbolRole::Param &&
           S->type().isInt() && S->type().bits() > 1;
  };
  // One walk each, shared by every comparison (the violation may hold
  // thousands of them over one tree).
  std::vector<const Expr *> Operands, Linear;
  std::vector<const Expr *> Roots{Violation};
  for (const Expr *E : postOrder(Roots))
    if (E->op() == Op::ICmp)
      Operands.insert(Operands.end(), E->operands().begin(),
                      E->operands().end());
  std::unordered_set<const Expr *> Seen;
  Linear = Operands;
  while (!Linear.empty()) { // through sums and casts: a size it tests
    const Expr *X = Linear.back();
    Linear.pop_back();
    if (!Seen.insert(X).second)
      continue;
    if (IsSize(X))
      Out.Masked.push_back(X);
    if (X->op() == Op::Add || X->op() == Op::Sub || X->op() == Op::SExt ||
        X->op() == Op::ZExt || X->op() == Op::Trunc)
      Linear.insert(Linear.end(), X->operands().begin(), X->operands().end());
  }
  std::sort(Out.Masked.begin(), Out.Masked.end(),
            [](const Expr *A, const Expr *B) { return A->name() < B->name(); });
  Out.Compared = Out.Masked;
  for (const Expr *S : postOrder(Operands))
    if (IsSize(S) &&
        std::find(Out.Compared.begin(), Out.Compared.end(), S) ==
            Out.Compared.end())
      Out.Compared.push_back(S);
  return Out;
}

/// The value every float takes in a uniform trial (InputGenerator::uniform).
double uniformFor(unsigned Round) {
  const double Values[] = {-INFINITY, INFINITY, NAN, 0.0, -0.0, 1.0, -1.0,
                           3.4028234663852886e38};
  return Values[Round % 8];
}

/// The value a differential trial gives what only the target reads.
double poisonFor(unsigned Round) {
  const double Poisons[] = {INFINITY, -INFINITY, NAN};
  return Poisons[Round % 3];
}

} // namespace

std::optional<Env> falsify(const Expr *Violation, const FalsifyOptions &O) {
  if (Violation->isFalse()) // folded away: no trial can make it hold
    return std::nullopt;
  std::vector<const Expr *> Symbols;
  // The source side is evaluated on its own in differential trials, so its
  // symbols (a size the violation no longer tests) need values too.
  std::vector<const Expr *> Roots{Violation};
  Roots.insert(Roots.end(), O.SourceSide.begin(), O.SourceSide.end());
  // Integer symbols whose bits are read as a float (a value received from
  // another thread travels as bits) are drawn as that float.
  std::map<const Expr *, Type> ReadAsFloat;
  std::vector<double> Thresholds;
  // Parameters compared with constants (a loop's trip count bounded by
  // the size: N >= 257, N >= 513): threshold trials set them at one of
  // the constants or just below it. A model of the assumptions alone
  // gives the smallest size, which runs no iteration, and wild sizes
  // break the bound.
  std::map<const Expr *, std::vector<uint64_t>> ParamThresholds;
  for (const Expr *E : postOrder(Roots)) {
    if (E->op() == Op::FCmp)
      for (const Expr *X : E->operands())
        if (X->isConst()) {
          double V = Value::ofBits(X->type(), X->constBits()).asDouble();
          if (std::isfinite(V) && V != 0 &&
              std::find(Thresholds.begin(), Thresholds.end(), V) ==
                  Thresholds.end())
            Thresholds.push_back(V);
        }
    if (E->op() == Op::ICmp)
      for (size_t K = 0; K < 2; ++K) {
        const Expr *S = E->operand(K), *X = E->operand(1 - K);
        if (S->op() == Op::Symbol && S->role() == SymbolRole::Param &&
            X->isConst()) {
          std::vector<uint64_t> &Cs = ParamThresholds[S];
          if (std::find(Cs.begin(), Cs.end(), X->constBits()) == Cs.end())
            Cs.push_back(X->constBits());
        }
      }
    if (E->op() == Op::Symbol)
      Symbols.push_back(E);
    if (E->op() == Op::Bitcast && E->type().isFloat() &&
        E->operand(0)->op() == Op::Symbol)
      ReadAsFloat.emplace(E->operand(0), E->type());
  }
  std::vector<std::pair<const Expr *, uint64_t>> Edges =
      precisionEdges(Violation);
  // Only trials that poison move sizes, and only from a base.
  ComparedSizes Sizes = !O.SourceSide.empty() && !O.Base.symbols().empty()
                            ? comparedSizes(Violation)
                            : ComparedSizes();
  // Each trial counted as interpreting every node once and giving every
  // symbol its value.
  const uint64_t PerTrial =
      postOrder(Roots).size() + SymbolSettingWork * Symbols.size();
  unsigned Trial = 0;
  struct CountOnExit {
    uint64_t *Spent;
    const unsigned &Trials;
    uint64_t PerTrial;
    std::chrono::steady_clock::time_point Start =
        std::chrono::steady_clock::now();
    ~CountOnExit() {
      if (Spent)
        *Spent += uint64_t(Trials) * PerTrial;
      logTesting("falsify", uint64_t(Trials) * PerTrial, Start);
    }
  } Count{O.WorkSpent, Trial, PerTrial};
  InputGenerator Gen(O.Seed);
  for (; Trial < O.Trials; ++Trial) {
    if (O.Deadline && std::chrono::steady_clock::now() > *O.Deadline)
      break;
    if (O.WorkLimit && uint64_t(Trial) * PerTrial >= *O.WorkLimit)
      break;
    // Every other trial draws tame buffer contents (symbols stay wild:
    // sizes and program ids need their edge values).
    // Reads only the target makes are poison (FalsifyOptions::SourceSide).
    bool Differential = !O.SourceSide.empty() && Trial % 8 == 2;
    bool Tame = Trial % 2 == 1 || Differential;
    Gen.collide(Trial % 8 == 5);
    // (From the base on these: the launch's sizes let the writes happen.)
    Gen.ordinary(Trial % 16 == 11);
    if (Trial % 16 == 3)
      Gen.zeros();
    if (Trial % 8 == 7)
      Gen.thresholds(Thresholds);
    Gen.uniform(Trial % 32 == 19 ? std::optional<double>(uniformFor(Trial / 32))
                                : std::nullopt);
    bool FromBase = !O.Base.symbols().empty() && Trial % 4 >= 2;
    // The base is a solver's model: its sizes and indices meet the
    // assumptions, but its floats are whatever the solver picked (often a
    // NaN or an infinity that every output then carries on both sides),
    // so half of these trials draw the float scalars afresh.
    bool FloatsFromBase = FromBase && Trial % 8 < 4;
    Env Inputs;
    for (const Expr *S : Symbols) {
      bool Float = S->type().isFloat() || ReadAsFloat.count(S);
      const Value *B = FromBase && (FloatsFromBase || !Float)
                           ? O.Base.symbol(S->name())
                           : nullptr;
      auto AsFloat = ReadAsFloat.find(S);
      if (!B && AsFloat != ReadAsFloat.end())
        Inputs.setSymbol(S->name(),
                         Value::ofBits(S->type(),
                                       Gen.value(AsFloat->second, Tame).Bits));
      else
        Inputs.setSymbol(S->name(), B ? *B
                                      : Gen.value(S->type(),
                                                  Tame && S->type().isFloat()));
    }
    // Sizes next to the base's: launches are captured at aligned sizes
    // (64), where a mask one too wide reads nothing; at 63 or 65 it does.
    // Two of every three trials that differ by poison (below) move sizes:
    // first every size a mask compares one down, then one up, then each
    // compared parameter alone, down and up, in turn.
    if (Differential && FromBase && (Trial / 8) % 3 != 0) {
      unsigned Turn = Trial / 8;
      auto Move = [&](const Expr *S, bool Down) {
        if (const Value *B = O.Base.symbol(S->name()))
          Inputs.setSymbol(S->name(),
                           Value::ofBits(S->type(),
                                         B->Bits + (Down ? uint64_t(0) - 1 : 1)));
      };
      // A size the base leaves free is drawn as 1 on every other turn: a
      // launch of one row and one column still reads past a mask one too
      // wide, and its one program writes (a wild size puts the program's
      // tile out of range).
      if (Turn % 2 == 0)
        for (const Expr *S : Sizes.Masked)
          if (!O.Base.symbol(S->name()))
            Inputs.setSymbol(S->name(), Value::ofBits(S->type(), 1));
      if (Turn < 3) {
        for (const Expr *S : Sizes.Masked)
          Move(S, Turn == 1);
      } else if (!Sizes.Compared.empty()) {
        Move(Sizes.Compared[(Turn / 3 - 1) % Sizes.Compared.size()],
             Turn % 3 == 1);
      }
    }
    if (Trial % 8 == 7)
      for (const auto &[S, Cs] : ParamThresholds) {
        unsigned Turn = Trial / 8;
        uint64_t Bits = Cs[(Turn / 2) % Cs.size()] - Turn % 2;
        Inputs.setSymbol(S->name(), Value::ofBits(S->type(), Bits));
      }
    // One integer at a precision edge of a conversion it feeds (drawn
    // apart from the generator, so every other trial is as before).
    if (Trial % 32 == 27 && !Edges.empty()) {
      const auto &[S, Bits] = Edges[(Trial / 32) % Edges.size()];
      Inputs.setSymbol(S->name(), Value::ofBits(S->type(), Bits));
    }
    // Program ids within the grid the trial has (its own draw or the
    // base's): a program past the grid runs nothing, so wild ids waste
    // the trial; the first and the last program are the usual edges.
    for (const Expr *S : Symbols) {
      if (S->role() != SymbolRole::ProgramId || Trial % 8 == 6 ||
          S->name().rfind("pid.", 0) != 0)
        continue;
      const Value *Count = Inputs.symbol("nprog." + S->name().substr(4));
      if (!Count || Count->asSigned() < 1 || Count->asSigned() > (1 << 24))
        continue;
      uint64_t N = uint64_t(Count->asSigned());
      uint64_t Pick = Gen.below(3);
      Inputs.setSymbol(S->name(),
                       Value::ofBits(S->type(), Pick == 0   ? 0
                                                : Pick == 1 ? N - 1
                                                            : Gen.below(N)));
    }
    // First, last, then anywhere, the first few or the first again: an
    // element past a small size that the trial drew is not written, and
    // the first is written by every launch that writes any.
    for (const BoundVariable &R : O.Ranges)
      Inputs.setSymbol(
          R.Symbol->name(),
          Value::ofBits(R.Symbol->type(),
                        Trial == 0       ? 0
                        : Trial == 1     ? R.Extent - 1
                        : Trial % 3 == 0 ? 0
                        : Trial % 3 == 1 ? Gen.below(std::min<uint64_t>(R.Extent, 16))
                                         : Gen.below(R.Extent)));
    Env Recorded; // the reads the trial made, so the result replays exactly
    std::optional<double> Poison; // set once the source's reads are made
    auto Supply = [&](const std::string &Buffer, uint64_t Index, Type T) {
      if (const Value *Known = Recorded.read(Buffer, Index))
        return *Known;
      Value V = Poison && T.isFloat()
                    ? Value{T, fp::fromDouble(*Poison, floatFormat(T),
                                              RoundingMode::NearestEven)}
                    : Gen.value(T, Tame);
      Recorded.setRead(Buffer, Index, V);
      return V;
    };
    try {
      for (const FalsifyOptions::IndexHint &H : O.Hints) {
        if (H.Candidates.empty())
          continue;
        Interpreter Probe(Inputs, Supply);
        const Expr *Pick = H.Candidates[Trial % H.Candidates.size()];
        Inputs.setSymbol(H.Symbol->name(), Probe.eval(Pick));
      }
      // Reads supplied while probing hints are part of the input too.
      for (const auto &[Key, V] : Recorded.reads())
        Inputs.setRead(Key.first, Key.second, V);
      if (Differential) {
        Interpreter Source(Inputs, Supply);
        for (const Expr *E : O.SourceSide)
          Source.eval(E);
        Poison = poisonFor(Trial / 8);
      }
      Interpreter I(Inputs, Supply);
      if (!I.eval(Violation).isTrue())
        continue;
      for (const auto &[Key, V] : Recorded.reads())
        Inputs.setRead(Key.first, Key.second, V);
      return Inputs;
    } catch (const EvalError &) {
      continue; // e.g. a call with no value: leave it to the solver
    }
  }
  return std::nullopt;
}

namespace {

std::vector<Value> simplerValues(const Value &V) {
  std::vector<Value> Out;
  Type T = V.Ty;
  if (T.isFloat()) {
    FloatFormat F = floatFormat(T);
    double D = V.asDouble();
    for (double C : {0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, 4.0, 8.0, 16.0})
      Out.push_back({T, fp::fromDouble(C, F, RoundingMode::NearestEven)});
    if (std::isfinite(D)) {
      Out.push_back({T, fp::fromDouble(std::trunc(D), F, RoundingMode::NearestEven)});
      Out.push_back({T, fp::fromDouble(std::round(D * 16) / 16, F, RoundingMode::NearestEven)});
      // Fewer significant bits, same magnitude.
      int Exp;
      double Mant = std::frexp(D, &Exp);
      for (int Bits : {1, 2, 4, 8})
        Out.push_back({T, fp::fromDouble(std::ldexp(std::round(std::ldexp(Mant, Bits)), Exp - Bits),
                                          F, RoundingMode::NearestEven)});
    }
  } else {
    int64_t S = V.asSigned();
    for (int64_t C : {int64_t(0), int64_t(1), int64_t(-1), S / 2, S - 1, S + 1})
      Out.push_back(Value::ofBits(T, uint64_t(C)));
    for (int P = 1; P < 12; ++P) // small powers of two and their neighbours
      Out.push_back(Value::ofBits(T, uint64_t(1) << P));
  }
  return Out;
}

/// Copying an input costs about a node's evaluation per value it holds.
uint64_t copyWork(const Env &In) {
  return In.symbols().size() + In.reads().size();
}

bool holdsAsIs(const Expr *Violation, Env &Inputs, uint64_t &Work) {
  Env Recorded;
  auto Supply = [&](const std::string &Buffer, uint64_t Index, Type T) {
    Value Zero = Value::ofBits(T, 0);
    Recorded.setRead(Buffer, Index, Zero);
    return Zero;
  };
  Interpreter I(Inputs, Supply);
  bool Holds = false;
  try {
    Holds = I.eval(Violation).isTrue();
  } catch (const EvalError &) {
  }
  Work += I.evaluatedNodes();
  if (!Holds)
    return false;
  for (const auto &[Key, V] : Recorded.reads()) // make unset reads explicit
    Inputs.setRead(Key.first, Key.second, V);
  return true;
}

/// Whether the violation holds, after placing each hint symbol on one of its
/// candidates (the first that works).
/// Work: the nodes evaluated, and the inputs copied, are added there.
bool holds(const Expr *Violation, Env &Inputs,
           const std::vector<FalsifyOptions::IndexHint> &Hints,
           uint64_t &Work) {
  // The input as it stands first: the hint symbols usually still sit on an
  // element that shows the violation, and trying every candidate costs a
  // full evaluation each.
  if (holdsAsIs(Violation, Inputs, Work))
    return true;
  if (Hints.empty())
    return false;
  const FalsifyOptions::IndexHint &H = Hints.front();
  std::vector<FalsifyOptions::IndexHint> Rest(Hints.begin() + 1, Hints.end());
  for (const Expr *Candidate : H.Candidates) {
    Env Trial = Inputs;
    Work += copyWork(Inputs);
    try {
      Trial.setSymbol(H.Symbol->name(), Interpreter(Trial).eval(Candidate));
    } catch (const EvalError &) {
      continue;
    }
    if (holds(Violation, Trial, Rest, Work)) {
      Inputs = Trial;
      return true;
    }
  }
  return false;
}

/// What shrinking has spent of its limit: the nodes its tries evaluated
/// and the inputs they copied.
class ShrinkWork {
public:
  explicit ShrinkWork(uint64_t Limit) : Limit(Limit) {}
  ~ShrinkWork() { logTesting("shrink", Spent, Start); }
  bool left() const { return Spent < Limit; }
  /// A copy of In for one more try, its cost counted.
  Env copy(const Env &In) {
    Spent += copyWork(In);
    return In;
  }
  uint64_t Spent = 0;

private:
  uint64_t Limit;
  std::chrono::steady_clock::time_point Start =
      std::chrono::steady_clock::now();
};

/// Groups of inputs (symbols and buffer elements) set to zero at once: all
/// of them, then halves, quarters and so on, each group in one evaluation.
/// A reduction's counterexample rarely needs more than a few of its
/// hundreds of elements, and element by element a pass over them does not
/// fit the work shrinking may do. Hint symbols follow their candidates and
/// are left alone.
void zeroGroups(const Expr *Violation, Env &Best,
                const std::vector<FalsifyOptions::IndexHint> &Hints,
                ShrinkWork &Work) {
  // A slot: a symbol's name, or a buffer element (name, index).
  struct Slot {
    std::string Name;
    std::optional<uint64_t> Element;
  };
  std::vector<Slot> Slots;
  for (const auto &[Name, V] : Best.symbols())
    if (std::none_of(Hints.begin(), Hints.end(),
                     [&](const FalsifyOptions::IndexHint &H) {
                       return H.Symbol->name() == Name;
                     }))
      Slots.push_back({Name, std::nullopt});
  for (const auto &[Key, V] : Best.reads())
    Slots.push_back({Key.first, Key.second});
  if (Slots.size() <= 8)
    return;
  auto Current = [&](const Slot &S) {
    return S.Element ? Best.read(S.Name, *S.Element) : Best.symbol(S.Name);
  };
  for (size_t Size = Slots.size();; Size = (Size + 1) / 2) {
    for (size_t First = 0; First < Slots.size(); First += Size) {
      if (!Work.left())
        return;
      Env Trial = Work.copy(Best);
      bool Differs = false;
      for (size_t K = First; K < std::min(First + Size, Slots.size()); ++K) {
        const Value *V = Current(Slots[K]);
        if (!V || V->Bits == 0)
          continue;
        Value Zero = Value::ofBits(V->Ty, 0);
        if (Slots[K].Element)
          Trial.setRead(Slots[K].Name, *Slots[K].Element, Zero);
        else
          Trial.setSymbol(Slots[K].Name, Zero);
        Differs = true;
      }
      if (Differs && holds(Violation, Trial, Hints, Work.Spent))
        Best = Trial;
    }
    if (Size <= 2)
      return;
  }
}

} // namespace

Env shrink(const Expr *Violation, const Env &Failing,
           const std::vector<FalsifyOptions::IndexHint> &Hints) {
  Env Best = Failing;
  uint64_t FirstLook = 0;
  if (!holds(Violation, Best, Hints, FirstLook))
    return Failing;
  auto IsHint = [&](const std::string &Name) {
    for (const FalsifyOptions::IndexHint &H : Hints)
      if (H.Symbol->name() == Name)
        return true;
    return false;
  };
  // Shrinking makes reports readable; it must not cost more than the check
  // (about a second, half of it for zeroing groups).
  ShrinkWork Groups(500 * ShrinkingWorkPerMs);
  zeroGroups(Violation, Best, Hints, Groups);
  ShrinkWork Work(1000 * ShrinkingWorkPerMs);
  for (int Pass = 0; Pass < 200; ++Pass) {
    bool Changed = false;
    const Env Snapshot = Best;
    for (const auto &[Name, V] : Snapshot.symbols())
      for (const Value &Candidate : simplerValues(V)) {
        if (IsHint(Name))
          break;
        if (Candidate.sameAs(V) || Candidate.Bits == V.Bits)
          continue;
        // Accept only values that are no larger than the current one.
        bool Smaller = V.Ty.isFloat()
                           ? std::fabs(Candidate.asDouble()) <= std::fabs(V.asDouble()) ||
                                 !std::isfinite(V.asDouble())
                           : std::llabs(Candidate.asSigned()) < std::llabs(V.asSigned()) ||
                                 (std::llabs(Candidate.asSigned()) == std::llabs(V.asSigned()) &&
                                  Candidate.asSigned() > V.asSigned());
        if (!Smaller)
          continue;
        if (!Work.left())
          break;
        Env Trial = Work.copy(Best);
        Trial.setSymbol(Name, Candidate);
        if (holds(Violation, Trial, Hints, Work.Spent)) {
          Best = Trial;
          Changed = true;
          break;
        }
      }
    const Env ReadSnapshot = Best;
    for (const auto &[Key, V] : ReadSnapshot.reads())
      for (const Value &Candidate : simplerValues(V)) {
        if (Candidate.Bits == V.Bits)
          continue;
        bool Smaller = V.Ty.isFloat()
                           ? std::fabs(Candidate.asDouble()) < std::fabs(V.asDouble()) ||
                                 !std::isfinite(V.asDouble())
                           : std::llabs(Candidate.asSigned()) < std::llabs(V.asSigned());
        if (!Smaller)
          continue;
        if (!Work.left())
          break;
        Env Trial = Work.copy(Best);
        Trial.setRead(Key.first, Key.second, Candidate);
        if (holds(Violation, Trial, Hints, Work.Spent)) {
          Best = Trial;
          Changed = true;
          break;
        }
      }
    if (!Changed)
      break;
  }
  return Best;
}

std::optional<Env> satisfyByTesting(const Expr *Holds, double Ms) {
  // Random inputs first, the most varied of a few: as a base for later
  // testing, a launch of many programs at a lane past the first reaches
  // more of a kernel than zeros do (where masks and scans hide most of
  // it). Testing's first trials are small values, so each search starts
  // from another seed and the one with the most symbols away from zero
  // wins.
  std::optional<Env> Best;
  size_t BestAway = 0;
  for (uint64_t Seed = 1; Seed <= 4; ++Seed) {
    FalsifyOptions F;
    F.Seed = Seed;
    F.WorkLimit = testingWork(Ms / 4);
    std::optional<Env> Found = falsify(Holds, F);
    if (!Found)
      continue;
    size_t Away = 0;
    for (const auto &[Name, V] : Found->symbols())
      Away += V.Bits != 0;
    if (!Best || Away > BestAway) {
      Best = std::move(Found);
      BestAway = Away;
    }
  }
  if (Best)
    return Best;
  // Then the least launch: the values conjuncts pin (a parameter the
  // program is specialized on, the grid), one program of one thread, every
  // other symbol zero (what alignments, bounds and window bases allow),
  // which random draws rarely meet all at once.
  Env Least;
  const Expr *Roots[] = {Holds};
  for (const Expr *N : postOrder(Roots))
    if (N->op() == Op::Symbol) {
      bool Count = N->role() == SymbolRole::NumPrograms ||
                   N->role() == SymbolRole::BlockDim;
      Least.setSymbol(N->name(), Value::ofBits(N->type(), Count ? 1 : 0));
    }
  std::vector<const Expr *> Conjuncts = {Holds};
  while (!Conjuncts.empty()) {
    const Expr *E = Conjuncts.back();
    Conjuncts.pop_back();
    if (E->op() == Op::And && E->type().isBool()) {
      Conjuncts.push_back(E->operand(0));
      Conjuncts.push_back(E->operand(1));
    } else if (E->op() == Op::ICmp && E->icmpPredicate() == ICmpPredicate::Eq) {
      for (unsigned I : {0u, 1u})
        if (E->operand(I)->op() == Op::Symbol && E->operand(1 - I)->isConst())
          Least.setSymbol(E->operand(I)->name(),
                          Value::ofBits(E->operand(I)->type(),
                                        E->operand(1 - I)->constBits()));
    }
  }
  try {
    if (Interpreter(Least).eval(Holds).isTrue())
      return Least;
  } catch (const EvalError &) {
  }
  return std::nullopt;
}

uint64_t testingWork(double Ms) {
  return uint64_t(Ms * InterpretedNodesPerMs);
}

} // namespace stagecheck::stages

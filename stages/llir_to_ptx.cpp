//===- llir_to_ptx.cpp - The LLVM IR <-> PTX checker ----------------------===//
#include "stages/llir_to_ptx.h"

#include "frontends/llvm/LlvmLifter.h"
#include "ir/Errors.h"
#include "ptx_lifter/PtxLifter.h"
#include "smt/Solver.h"
#include "stages/Assumed.h"
#include "stages/CaseSplit.h"
#include "stages/Falsify.h"
#include "stages/IntegerDivision.h"
#include "stages/DifferingSubterms.h"
#include "stages/Sweep.h"
#include "stages/Unify.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

using namespace stagecheck::ir;
using stagecheck::llvmir::LlvmLift;
using stagecheck::ptx::Exchange;
using stagecheck::ptx::PtxLift;
using stagecheck::ptx::ThreadEffects;
using stagecheck::ptx::rootsOf;

namespace stagecheck::stages {

namespace {

/// How many times a communication query is asked again with the
/// contractions its last input showed taken before it is left unknown.
constexpr unsigned ContractionRounds = 3;

/// The sm version of a PTX text's .target directive (0 when none).
unsigned ptxTarget(const std::string &PtxText) {
  size_t At = PtxText.find(".target");
  if (At == std::string::npos)
    return 0;
  size_t End = PtxText.find('\n', At);
  std::string_view Line(PtxText);
  Line = Line.substr(At, End == std::string::npos ? End : End - At);
  return ptx::targetSmVersion(Line);
}

using Clock = std::chrono::steady_clock;

double since(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

std::string readText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw InputError({Path, 0, 0}, "cannot read the stage file");
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Applies F to every expression of T (F is memoized by the caller).
void rewriteAll(ThreadEffects &T,
                const std::function<const Expr *(const Expr *)> &F) {
  for (Write &W : T.Effects.Writes) {
    W.Guard = F(W.Guard);
    W.Index = F(W.Index);
    W.Value = F(W.Value);
    W.Defined = F(W.Defined);
  }
  for (Atomic &A : T.Effects.Atomics) {
    A.Guard = F(A.Guard);
    A.Index = F(A.Index);
    A.Value = F(A.Value);
    if (A.Compare)
      A.Compare = F(A.Compare);
  }
  for (UndefinedBehavior &U : T.Effects.Undefined)
    U.Condition = F(U.Condition);
  for (Exchange &X : T.Exchanges) {
    X.Guard = F(X.Guard);
    for (const Expr *&O : X.Operands)
      O = F(O);
  }
  for (const Expr *&A : T.Assumptions)
    A = F(A);
}

/// A memoized rewrite that replaces the keys of Map by their values and
/// rebuilds (folding) what lies above them.
std::function<const Expr *(const Expr *)>
replacing(Context &C, std::unordered_map<const Expr *, const Expr *> Map) {
  auto Memo = std::make_shared<std::unordered_map<const Expr *, const Expr *>>(
      std::move(Map));
  return [&C, Memo](const Expr *E) {
    const Expr *Roots[] = {E};
    for (const Expr *N : postOrder(Roots)) {
      if (Memo->count(N))
        continue;
      std::vector<const Expr *> Ops;
      bool Same = true;
      for (const Expr *O : N->operands()) {
        Ops.push_back(Memo->at(O));
        Same &= Ops.back() == O;
      }
      (*Memo)[N] = Same ? N : C.withOperands(N, Ops);
    }
    return Memo->at(E);
  };
}

/// Rewrites of the LLVM IR that the backend may have made, each taken only
/// where the PTX computes the rewritten node, and counted:
///  - fma contraction (a relaxation: where the contract allows it, an
///    fadd/fsub of an fmul may be one fma; each choice is a behaviour the
///    kernel's compilation allows);
///  - integer division by a constant as the multiply-high expansion (exact
///    rule, stages/IntegerDivision.h).
class GuidedRewrite {
public:
  /// Also fuses where FmaMatches accepts the fma (the PTX computes one
  /// with the same operand values at an input), when given.
  GuidedRewrite(Context &C, std::unordered_set<const Expr *> &Allowed,
                const std::unordered_set<const Expr *> &InTarget,
                std::function<bool(const Expr *)> FmaMatches = nullptr)
      : C(C), Allowed(Allowed), InTarget(InTarget),
        FmaMatches(std::move(FmaMatches)) {}

  const Expr *operator()(const Expr *Root) {
    const Expr *Roots[] = {Root};
    for (const Expr *N : postOrder(Roots)) {
      if (Memo.count(N))
        continue;
      std::vector<const Expr *> Ops;
      bool Same = true;
      for (const Expr *O : N->operands()) {
        Ops.push_back(Memo.at(O));
        Same &= Ops.back() == O;
      }
      const Expr *Rebuilt = Same ? N : C.withOperands(N, Ops);
      const Expr *Better = Allowed.count(N) ? fuse(N) : nullptr;
      // A rewrite asked again later (once more PTX nodes are known to be
      // the LLVM IR's) may fuse what is left: the rebuilt add is as
      // contractible as the instruction it stands for.
      if (!Better && Allowed.count(N))
        Allowed.insert(Rebuilt);
      if (!Better)
        Better = divide(Rebuilt);
      Memo[N] = Better ? Better : Rebuilt;
    }
    return Memo.at(Root);
  }

  unsigned fused() const { return Fused; }
  unsigned divisions() const { return Divisions; }

private:
  static bool isProduct(const Expr *E) {
    return E->op() == Op::FMul && E->rounding() == RoundingMode::NearestEven;
  }

  const Expr *tryFma(const Expr *A, const Expr *B, const Expr *Addend) {
    const Expr *F = C.fma(A, B, Addend);
    if (!InTarget.count(F) && !(FmaMatches && FmaMatches(F)))
      return nullptr;
    ++Fused;
    return F;
  }

  const Expr *fuse(const Expr *N) {
    if (N->rounding() != RoundingMode::NearestEven)
      return nullptr;
    const Expr *L = N->operand(0), *R = N->operand(1);
    auto M = [&](const Expr *E) { return Memo.at(E); };
    if (N->op() == Op::FAdd) {
      for (auto [P, Q] : {std::pair{L, R}, std::pair{R, L}})
        if (isProduct(P))
          if (const Expr *F = tryFma(M(P->operand(0)), M(P->operand(1)), M(Q)))
            return F;
      return nullptr;
    }
    if (N->op() != Op::FSub)
      return nullptr;
    if (isProduct(L)) // a*b - c = fma(a, b, -c)
      if (const Expr *F = tryFma(M(L->operand(0)), M(L->operand(1)),
                                 C.unary(Op::FNeg, M(R))))
        return F;
    if (isProduct(R)) { // c - a*b = fma(-a, b, c) = fma(a, -b, c)
      const Expr *A = M(R->operand(0)), *B = M(R->operand(1));
      if (const Expr *F = tryFma(C.unary(Op::FNeg, A), B, M(L)))
        return F;
      if (const Expr *F = tryFma(A, C.unary(Op::FNeg, B), M(L)))
        return F;
    }
    return nullptr;
  }

  /// sdiv, srem, udiv and urem of n by a constant d.
  const Expr *divide(const Expr *N) {
    bool Division = N->op() == Op::SDiv || N->op() == Op::SRem ||
                    N->op() == Op::UDiv || N->op() == Op::URem;
    if (!Division || !N->operand(1)->isConst())
      return nullptr;
    const Expr *Dividend = N->operand(0), *Divisor = N->operand(1);
    if (N->op() == Op::UDiv || N->op() == Op::URem) {
      auto Q = unsignedDivisionByConstant(C, Dividend, Divisor->constBits());
      if (!Q)
        return nullptr;
      const Expr *R = N->op() == Op::UDiv
                          ? *Q
                          : C.sub(Dividend, C.mul(*Q, Divisor));
      if (!InTarget.count(R))
        return nullptr;
      ++Divisions;
      return R;
    }
    int64_t D = Value::ofBits(Divisor->type(), Divisor->constBits()).asSigned();
    for (bool SignBeforeShift : {false, true}) {
      auto Q = signedDivisionByConstant(C, Dividend, D, SignBeforeShift);
      if (!Q)
        return nullptr;
      const Expr *R = N->op() == Op::SDiv
                          ? *Q
                          : C.sub(Dividend, C.mul(*Q, Divisor));
      if (InTarget.count(R)) {
        ++Divisions;
        return R;
      }
    }
    return nullptr;
  }

  Context &C;
  std::unordered_set<const Expr *> &Allowed;
  const std::unordered_set<const Expr *> &InTarget;
  std::function<bool(const Expr *)> FmaMatches;
  std::unordered_map<const Expr *, const Expr *> Memo;
  unsigned Fused = 0, Divisions = 0;
};

/// A memoized rewrite that rebuilds bottom-up and offers each rebuilt node
/// to Rule, which returns its replacement or null.
std::function<const Expr *(const Expr *)>
rewritingBy(Context &C, std::function<const Expr *(const Expr *)> Rule) {
  auto Memo = std::make_shared<std::unordered_map<const Expr *, const Expr *>>();
  return [&C, Memo, Rule](const Expr *E) {
    const Expr *Roots[] = {E};
    for (const Expr *N : postOrder(Roots)) {
      if (Memo->count(N))
        continue;
      std::vector<const Expr *> Ops;
      bool Same = true;
      for (const Expr *O : N->operands()) {
        Ops.push_back(Memo->at(O));
        Same &= Ops.back() == O;
      }
      const Expr *Rebuilt = Same ? N : C.withOperands(N, Ops);
      const Expr *Better = Rule(Rebuilt);
      (*Memo)[N] = Better ? Better : Rebuilt;
    }
    return Memo->at(E);
  };
}

/// NVPTX's bypass of a slow 64-bit division (BypassSlowDivision): when
/// neither operand has a bit above the low 32, a 32-bit udiv / urem:
///   select(hi(a | b) != 0, div64(a, b), zext(udiv32(trunc a, trunc b)))
/// For 0 <= a, b < 2^32 and b != 0, sdiv, udiv, srem and urem of i64 all
/// equal the zero-extended 32-bit udiv / urem, so the select is exactly
///   select(hi(a | b) == 0 && b == 0, zext(op32(...)), div64(a, b))
/// which the refinement queries compare without deciding a division.
/// Returns that rewrite of N, or null when N is not the pattern.
const Expr *bypassedDivision(Context &C, const Expr *N) {
  if (N->op() != Op::Select || N->type() != Type::i(64))
    return nullptr;
  auto IsDiv64 = [](const Expr *E) {
    return E->op() == Op::SDiv || E->op() == Op::UDiv ||
           E->op() == Op::SRem || E->op() == Op::URem;
  };
  // hi(a | b) != 0 (Sense true) or == 0 (Sense false), a and b returned.
  auto HighTest = [](const Expr *Cond, bool &Sense, const Expr *&A,
                     const Expr *&B) {
    bool Negated = false;
    while (Cond->op() == Op::Not) {
      Negated = !Negated;
      Cond = Cond->operand(0);
    }
    if (Cond->op() != Op::ICmp)
      return false;
    ICmpPredicate P = Cond->icmpPredicate();
    if (P != ICmpPredicate::Ne && P != ICmpPredicate::Eq)
      return false;
    const Expr *L = Cond->operand(0), *R = Cond->operand(1);
    if (L->isConst())
      std::swap(L, R);
    if (!R->isConst() || R->constBits() != 0 || L->op() != Op::And)
      return false;
    const Expr *Or = L->operand(0), *Mask = L->operand(1);
    if (Or->isConst())
      std::swap(Or, Mask);
    if (!Mask->isConst() || Mask->constBits() != 0xFFFFFFFF00000000ull ||
        Or->op() != Op::Or)
      return false;
    A = Or->operand(0);
    B = Or->operand(1);
    Sense = (P == ICmpPredicate::Ne) != Negated;
    return true;
  };
  const Expr *Cond = N->operand(0);
  bool Sense;
  const Expr *A, *B;
  if (!HighTest(Cond, Sense, A, B))
    return nullptr;
  const Expr *Wide = Sense ? N->operand(1) : N->operand(2);
  const Expr *Narrow = Sense ? N->operand(2) : N->operand(1);
  if (!IsDiv64(Wide))
    return nullptr;
  const Expr *Dividend = Wide->operand(0), *Divisor = Wide->operand(1);
  if (!((A == Dividend && B == Divisor) || (A == Divisor && B == Dividend)))
    return nullptr;
  bool Rem = Wide->op() == Op::SRem || Wide->op() == Op::URem;
  Type I32 = Type::i(32);
  const Expr *Expected = C.zextOrTrunc(
      C.binary(Rem ? Op::URem : Op::UDiv, C.zextOrTrunc(Dividend, I32),
               C.zextOrTrunc(Divisor, I32)),
      Type::i(64));
  if (Narrow != Expected)
    return nullptr;
  const Expr *Low = Sense ? C.notOf(Cond) : Cond;
  const Expr *ByZero = C.eq(Divisor, C.constant(Type::i(64), 0));
  return C.select(C.andOf(Low, ByZero), Narrow, Wide);
}

/// i1: the two values are different data (all NaNs are one datum).
const Expr *differs(Context &C, const Expr *A, const Expr *B) {
  if (A == B)
    return C.falseExpr();
  Type T = A->type();
  if (!T.isFloat())
    return C.icmp(ICmpPredicate::Ne, A, B);
  Type Bits = Type::i(T.bits());
  return C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, A, Bits),
                C.cast(Op::Bitcast, B, Bits));
}

/// Symbols a model leaves free read as zero, so every expression evaluates.
Env completed(Env E, const std::vector<const Expr *> &Roots) {
  for (const Expr *N : postOrder(Roots))
    if (N->op() == Op::Symbol && !E.symbol(N->name()))
      E.setSymbol(N->name(), Value::ofBits(N->type(), 0));
  return E;
}

std::string lineNote(const char *Stage, const std::string &File,
                     unsigned Line, const std::string &Instruction,
                     const SourceLocation &Source) {
  std::string S = Stage;
  S += " " + File + ":" + std::to_string(Line);
  if (!Instruction.empty())
    S += "  " + Instruction;
  if (Source.known())
    S += "   (" + Source.str() + ")";
  return S;
}

class Checker {
public:
  Checker(Context &C, const StageText &Llir, const StageText &Ptx,
          const KernelInterface &KI, const LlirToPtxOptions &O,
          ThreadStage SourceStage = ThreadStage::Llir,
          ThreadStage TargetStage = ThreadStage::Ptx)
      : C(C), LlirFile(Llir), PtxFile(Ptx), Interface(KI), Options(O),
        SourceStage(SourceStage), TargetStage(TargetStage) {}

  PairResult run() {
    auto Start = Clock::now();
    R.Arithmetic = smt::Mode::IEEE;
    try {
      lift();
      if (sameBlockSize()) {
        // Integer nodes first: the floats the PTX fused are found only
        // once their loads sit at the same addresses on both sides.
        receivedFloatsAreCanonical();
        foldConstantConditions();
        shiftForms();
        mergeAlike();
        relax();
        if (sameCommunication())
          refine();
      }
    } catch (const UnsupportedError &E) {
      R.Kind = Verdict::Unknown;
      R.Reason = E.what();
    } catch (const IRError &E) {
      R.Kind = Verdict::Unknown;
      R.Reason = E.what();
    }
    noteRelaxations();
    R.Seconds = since(Start);
    return R;
  }

private:
  void lift() {
    llvmir::LlvmLiftOptions LO;
    LO.LoopBound = Options.Check.LoopBound;
    LO.FpFusion = Options.FpFusion;
    // Triton's LLVM IR names no target: the metadata's architecture, else
    // its PTX's .target, where it runs (what a .ftz form means depends on
    // it: ir::measuredFtzForm).
    LO.Capability = Options.Check.SmVersion;
    if (!LO.Capability && TargetStage == ThreadStage::Ptx)
      LO.Capability = ptxTarget(PtxFile.Text);
    ptx::PtxLiftOptions PO;
    PO.LoopBound = Options.Check.LoopBound;
    PO.Kernel = Interface.Kernel;
    if (!Options.Function.empty())
      LO.Kernel = PO.Kernel = Options.Function;
    // The same machinery compares two files of one stage: what a side
    // lacks (provenance of the other frontend) stays empty.
    if (SourceStage == ThreadStage::Llir) {
      Source = llvmir::liftLlvmText(C, LlirFile.Text, LlirFile.Name,
                                    Interface, LO);
    } else {
      ptx::PtxLift P =
          ptx::liftPtxText(C, LlirFile.Text, LlirFile.Name, Interface, PO);
      Source.Thread = std::move(P.Thread);
      Source.WriteLines = std::move(P.WriteLines);
      Source.ExchangeLines = std::move(P.ExchangeLines);
      Source.UndefinedLines = std::move(P.UndefinedLines);
      Source.AtomicLines = std::move(P.AtomicLines);
    }
    // A device function: the PTX's return parameter is read as the LLVM
    // IR's return value is laid out, its narrow parameters as marked.
    PO.ReturnLanes = Source.ReturnLanes;
    PO.ParamExtension = Source.ParamExtension;
    if (TargetStage == ThreadStage::Ptx) {
      Target = ptx::liftPtxText(C, PtxFile.Text, PtxFile.Name, Interface, PO);
    } else {
      LO.FpFusion = false;
      llvmir::LlvmLift L = llvmir::liftLlvmText(C, PtxFile.Text, PtxFile.Name,
                                                Interface, LO);
      Target.Thread = std::move(L.Thread);
      Target.WriteLines = std::move(L.WriteLines);
      Target.ExchangeLines = std::move(L.ExchangeLines);
      Target.UndefinedLines = std::move(L.UndefinedLines);
      Target.AtomicLines = std::move(L.AtomicLines);
    }
    std::vector<std::string> Bounds = Source.Thread.Bounds;
    for (const std::string &B : Target.Thread.Bounds)
      if (std::find(Bounds.begin(), Bounds.end(), B) == Bounds.end())
        Bounds.push_back(B);
    if (!Bounds.empty()) {
      R.Bound.clear();
      for (const std::string &B : Bounds)
        R.Bound += (R.Bound.empty() ? "" : "; ") + B;
    }
    Assumptions = Options.Check.Assumptions;
    for (const ThreadEffects *T : {&Source.Thread, &Target.Thread})
      for (const Expr *A : T->Assumptions)
        if (std::find(Assumptions.begin(), Assumptions.end(), A) ==
            Assumptions.end())
          Assumptions.push_back(A);
  }

  void fail(Counterexample X) {
    R.Kind = Verdict::Counterexample;
    R.Cex = std::move(X);
  }

  bool sameBlockSize() {
    const unsigned *S = Source.Thread.BlockDim, *T = Target.Thread.BlockDim;
    if (std::equal(S, S + 3, T)) {
      R.Queries.push_back({"block size", smt::Outcome::Proved, "", 0, ""});
      return true;
    }
    auto Dims = [](const unsigned *D) {
      return std::to_string(D[0]) + "x" + std::to_string(D[1]) + "x" +
             std::to_string(D[2]);
    };
    R.Queries.push_back({"block size", smt::Outcome::Counterexample, "", 0, ""});
    Counterexample X;
    X.Query = "block size";
    X.Explanation = "the LLVM IR requires " + Dims(S) +
                    " threads per CTA, the PTX " + Dims(T);
    fail(std::move(X));
    return false;
  }

  /// Exact on both sides: a division by a power of two as its shifts,
  /// then the shifts whose high bits a product never reads made logical
  /// (NVPTX's demanded-bits combines leave `x / 16 * 2032` so), before
  /// the sweep compares integer nodes.
  void shiftForms() {
    unsigned Shifted = 0;
    bool Changed = false;
    auto Shifts = [&](const Expr *N) -> const Expr * {
      if (N->op() == Op::SDiv && N->operand(1)->isConst()) {
        int64_t D = Value::ofBits(N->operand(1)->type(),
                                  N->operand(1)->constBits())
                        .asSigned();
        if (auto Q = signedDivisionByPowerOfTwo(C, N->operand(0), D)) {
          ++Shifted;
          return *Q;
        }
      }
      const Expr *Logical = logicalShiftWhereHighBitsUnread(C, N);
      Changed |= Logical != nullptr;
      return Logical;
    };
    auto ShiftRewrite = rewritingBy(C, Shifts);
    rewriteAll(Target.Thread, ShiftRewrite);
    rewriteAll(Source.Thread, ShiftRewrite);
    if (Shifted || Changed) {
      std::vector<const Expr *> Contractible(Source.Contractible.begin(),
                                             Source.Contractible.end());
      for (const Expr *N : Contractible)
        Source.Contractible.insert(ShiftRewrite(N));
      moveProvenance(ShiftRewrite);
    }
    PowerOfTwoDivisions += Shifted;
  }

  /// Rewrites the LLVM IR where the PTX shows the backend's rewrite (fma
  /// contraction where the contract allows it, division by a constant).
  void relax() {
    // Exact rules on the PTX side first, so that the LLVM IR's rewrites
    // see the nodes they produce.
    unsigned Bypassed = 0;
    rewriteAll(Target.Thread, rewritingBy(C, [&](const Expr *N) {
                 const Expr *R = bypassedDivision(C, N);
                 Bypassed += R != nullptr;
                 return R;
               }));
    BypassedDivisions += Bypassed;
    std::vector<const Expr *> Roots = rootsOf(Target.Thread);
    std::vector<const Expr *> Nodes = postOrder(Roots);
    std::unordered_set<const Expr *> InTarget(Nodes.begin(), Nodes.end());
    GuidedRewrite Rewrite(C, Source.Contractible, InTarget);
    rewriteAll(Source.Thread, [&](const Expr *E) { return Rewrite(E); });
    Fused += Rewrite.fused();
    Divisions += Rewrite.divisions();
  }

  /// The violation with the contractions the PTX makes at In taken, where
  /// that removes it there (null otherwise): a contractible add of a product the
  /// structural matching (relax) left unfused, whose operands have at In
  /// the values of a PTX fma's operands, becomes that fma. The PTX may
  /// compute an fma's operand through other nodes of equal value (a mean
  /// divided by the row length converted another way); a difference that
  /// such a choice removes is one the compilation allows, so the input is
  /// no counterexample. Only nodes the PTX does not share are rewritten;
  /// each rewrite is one the LLVM IR allows at every input.
  const Expr *contractionTaken(const Expr *Violation, const Env &In) {
    if (Source.Contractible.empty())
      return nullptr;
    std::vector<const Expr *> TargetNodes = postOrder(rootsOf(Target.Thread));
    std::unordered_set<const Expr *> InTarget(TargetNodes.begin(),
                                              TargetNodes.end());
    std::vector<const Expr *> Roots = rootsOf(Target.Thread);
    Roots.push_back(Violation);
    const Env Completed = completed(In, Roots);
    Interpreter I(Completed);
    using Triple = std::tuple<uint32_t, uint64_t, uint64_t, uint64_t>;
    std::set<Triple> PtxFmas;
    auto TripleOf = [&](const Expr *F) -> std::optional<Triple> {
      try {
        return Triple{F->type().hashValue(), I.eval(F->operand(0)).Bits,
                      I.eval(F->operand(1)).Bits, I.eval(F->operand(2)).Bits};
      } catch (const EvalError &) {
        return std::nullopt;
      }
    };
    for (const Expr *N : TargetNodes)
      if (N->op() == Op::Fma && N->rounding() == RoundingMode::NearestEven)
        if (std::optional<Triple> T = TripleOf(N))
          PtxFmas.insert(*T);
    if (PtxFmas.empty())
      return nullptr;
    std::unordered_set<const Expr *> Allowed;
    for (const Expr *N : Source.Contractible)
      if (!InTarget.count(N))
        Allowed.insert(N);
    GuidedRewrite Rewrite(C, Allowed, InTarget, [&](const Expr *F) {
      std::optional<Triple> T = TripleOf(F);
      if (!T)
        return false;
      auto [Ty, A, B, Addend] = *T;
      return PtxFmas.count(*T) || PtxFmas.count(Triple{Ty, B, A, Addend});
    });
    const Expr *Fused = Rewrite(Violation);
    if (Fused == Violation)
      return nullptr;
    try {
      return I.eval(Fused).isTrue() ? nullptr : Fused;
    } catch (const EvalError &) {
      return nullptr;
    }
  }

  void noteRelaxations() {
    if (Fused)
      R.Relaxations.push_back("fma contraction (" + std::to_string(Fused) +
                              ")");
    if (BypassedDivisions)
      R.Relaxations.push_back("rule: 64-bit division by its 32-bit bypass (" +
                              std::to_string(BypassedDivisions) + ")");
    if (Divisions)
      R.Relaxations.push_back("rule: integer division by a constant as a "
                              "multiply-high (" +
                              std::to_string(Divisions) + ")");
    if (PowerOfTwoDivisions)
      R.Relaxations.push_back("rule: signed division by a power of two as "
                              "shifts (" +
                              std::to_string(PowerOfTwoDivisions) + ")");
  }

  /// A branch condition on the parameters alone that the assumptions fix
  /// (an `shl nsw` of a size that cannot overflow, which the LLVM IR then
  /// freezes: `no overflow ? x << 1 : any`) is replaced by its constant on
  /// both sides, once the solver proves it: an equality under the
  /// assumptions, which every query conjoins. The PTX, which computes
  /// `x << 1` without the choice, then meets the LLVM IR structurally.
  void foldConstantConditions() {
    auto Start = Clock::now();
    std::vector<const Expr *> Roots = rootsOf(Source.Thread);
    std::vector<const Expr *> More = rootsOf(Target.Thread);
    Roots.insert(Roots.end(), More.begin(), More.end());
    std::vector<const Expr *> Conditions = uniformBranchConditions(Roots);
    if (Conditions.size() > 64)
      Conditions.resize(64);
    auto Fixed =
        fixedConditions(C, Conditions, Assumptions, Options.Check.Solver);
    if (Fixed.empty())
      return;
    std::unordered_map<const Expr *, const Expr *> Map;
    for (auto [Cond, Value] : Fixed)
      Map[Cond] = C.boolean(Value);
    auto Rewrite = replacing(C, std::move(Map));
    for (ThreadEffects *T : {&Source.Thread, &Target.Thread}) {
      std::vector<const Expr *> Kept = T->Assumptions;
      rewriteAll(*T, Rewrite);
      T->Assumptions = Kept;
    }
    std::vector<const Expr *> Contractible(Source.Contractible.begin(),
                                           Source.Contractible.end());
    for (const Expr *N : Contractible)
      Source.Contractible.insert(Rewrite(N));
    moveProvenance(Rewrite);
    R.Queries.push_back({"constant conditions", smt::Outcome::Proved,
                         std::to_string(Fixed.size()) + " of " +
                             std::to_string(Conditions.size()) +
                             " uniform branch conditions fixed by the "
                             "assumptions",
                         since(Start), ""});
  }

  void moveProvenance(const std::function<const Expr *(const Expr *)> &F) {
    std::unordered_map<const Expr *, ptx::PtxSite> Moved;
    for (const auto &[N, Site] : Target.Provenance)
      Moved.emplace(F(N), Site);
    Target.Provenance = std::move(Moved);
  }

  /// Replaces the PTX's integer nodes (addresses, guards, lane arithmetic)
  /// by the LLVM IR's nodes they are proved equal to, so that the values
  /// computed from them become the same nodes (stages/Sweep.h).
  void mergeAlike() {
    auto Start = Clock::now();
    SweepOptions SO;
    std::copy(Source.Thread.BlockDim, Source.Thread.BlockDim + 3,
              SO.BlockDim);
    SweepResult S = sweep(C, rootsOf(Source.Thread), rootsOf(Target.Thread),
                          Assumptions, Options.Check.Solver, SO);
    if (S.Merged.empty() && !S.Refuted && !S.Undecided)
      return;
    std::vector<const Expr *> Kept = Target.Thread.Assumptions;
    rewriteAll(Target.Thread, S.Rewrite);
    Target.Thread.Assumptions = Kept;
    std::unordered_map<const Expr *, ptx::PtxSite> Moved;
    for (const auto &[N, Site] : Target.Provenance)
      Moved.emplace(S.Rewrite(N), Site);
    Target.Provenance = std::move(Moved);
    R.Queries.push_back({"alike nodes", smt::Outcome::Proved,
                         std::to_string(S.Proved) +
                             " PTX integer values proved equal to LLVM IR "
                             "values; " +
                             std::to_string(S.Refuted) + " refuted, " +
                             std::to_string(S.Undecided) + " undecided",
                         since(Start), ""});
  }

  /// A shuffle hands on what a thread contributed. Where the LLVM IR
  /// contributes a float's bits, which are canonical when NaN (all NaNs are
  /// one datum), what it receives is canonical too; the PTX, which moves
  /// bits without looking at them, may not show that on its face. Stating
  /// it keeps a NaN's payload from separating the two.
  void receivedFloatsAreCanonical() {
    for (const Exchange &X : Source.Thread.Exchanges) {
      if (X.Kind.rfind("shfl.", 0) != 0 || X.Operands.empty() ||
          X.Results.empty())
        continue;
      const Expr *Sent = X.Operands[0], *Got = X.Results[0];
      if (Sent->op() != Op::Bitcast || !Sent->operand(0)->type().isFloat() ||
          Got->type() != Sent->type())
        continue;
      Type F = Sent->operand(0)->type();
      Assumptions.push_back(
          C.eq(Got, C.cast(Op::Bitcast, C.cast(Op::Bitcast, Got, F),
                           Got->type())));
    }
  }

  /// Query 2: the same exchanges, in order.
  bool sameCommunication() {
    auto Start = Clock::now();
    const auto &S = Source.Thread.Exchanges, &T = Target.Thread.Exchanges;
    size_t Common = std::min(S.size(), T.size());
    size_t Structural = Common;
    for (size_t I = 0; I < Common && Structural == Common; ++I)
      if (S[I].Kind != T[I].Kind ||
          S[I].Operands.size() != T[I].Operands.size())
        Structural = I;
    if (Structural < Common || S.size() != T.size())
      return structuralMismatch(Structural, Start);

    // Event by event: each query is small, and all of them proved is the
    // whole sequence proved (no event differs). The first that is not
    // proved decides. A proved exchange's PTX operands become the LLVM
    // IR's (mergeExchange), after which more of the LLVM IR may be fused;
    // then a second pass asks every exchange again of the final two sides
    // (most are one node by then), without merging, so the sequence
    // proved is the one the effects are compared under.
    const Expr *Defined = C.notOf(Source.Thread.Effects.undefinedCondition(C));
    unsigned Asked = 0, Merges = 0;
    double SolverSeconds = 0;
    CaseSplitStats Split;
    unsigned RewritesBefore = Fused + Divisions;
    for (int Pass = 0; Pass < 2; ++Pass) {
      if (Pass == 1) {
        if (Fused + Divisions == RewritesBefore)
          break;
        // The merges were proved where the LLVM IR was defined; a
        // contraction found since must not have moved that.
        if (C.notOf(Source.Thread.Effects.undefinedCondition(C)) != Defined) {
          R.Kind = Verdict::Unknown;
          R.Reason = "communication: the fma contractions found after the "
                     "exchanges change where the LLVM IR is defined";
          R.Queries.push_back({"communication", smt::Outcome::Unknown, R.Reason,
                               since(Start), ""});
          return false;
        }
      }
      for (size_t I = 0; I < Common; ++I) {
        const Expr *Violation = exchangeDiffers(S[I], T[I]);
        if (Violation->isFalse())
          continue;
        ++Asked;
        if (Pass == 0)
          if (std::optional<Env> Found = testExchangeFirst(Defined, Violation)) {
            R.Queries.push_back({"communication", smt::Outcome::Counterexample,
                                 "exchange " + std::to_string(I + 1) + " of " +
                                     std::to_string(Common) +
                                     ": found by testing",
                                 since(Start), ""});
            return replayExchange(*Found);
          }
        smt::Query Q{"communication", C.andOf(Defined, Violation), Assumptions,
                     smt::Mode::IEEE};
        smt::QueryResult QR =
            solveByCases(C, Q, Options.Check.Solver, {}, &Split);
        SolverSeconds += QR.Seconds;
        if (QR.Kind == smt::Outcome::Unknown) {
          // Undecided as a whole (by cases, which settles most exchanges
          // fast): the places where the operands part may still decide it.
          smt::QueryResult AtThePlaces =
              exchangeAtThePlaces(S[I], T[I], Defined);
          SolverSeconds += AtThePlaces.Seconds;
          if (AtThePlaces.Kind == smt::Outcome::Proved)
            QR = AtThePlaces;
        }
        if (QR.Kind == smt::Outcome::Proved) {
          if (Pass == 0)
            Merges += mergeExchange(I);
          continue;
        }
        R.Queries.push_back({"communication", QR.Kind,
                             "exchange " + std::to_string(I + 1) + " of " +
                                 std::to_string(Common) +
                                 (QR.Reason.empty() ? "" : ": " + QR.Reason),
                             since(Start), QR.DumpedTo});
        if (QR.Kind == smt::Outcome::Unknown) {
          // A query the solver could not finish may still have an input
          // any test finds (an add turned into a sub): a replayed one is a
          // counterexample whatever the solver said.
          if (std::optional<Env> Found = testExchange(Defined, Violation))
            return replayExchange(*Found);
          R.Kind = Verdict::Unknown;
          R.Reason = "communication: exchange " + std::to_string(I + 1) + ": " +
                     QR.Reason;
          return false;
        }
        // A model that needs a value no approximation gives: an input
        // testing finds, with the functions' own values, is shown instead.
        if (implausibleAssumption(QR.Model))
          if (std::optional<Env> Found = testExchange(Defined, Violation))
            return replayExchange(*Found);
        return replayExchange(QR.Model);
      }
    }
    R.Queries.push_back(
        {"communication", smt::Outcome::Proved,
         std::to_string(Common) + " exchanges" +
             (Asked ? ", " + std::to_string(Asked) + " asked of the solver"
                    : "") +
             splitNote(Split) +
             (Merges ? "; " + std::to_string(Merges) +
                           " PTX operands replaced by the "
                           "LLVM IR's"
                     : ""),
         since(Start), ""});
    return true;
  }

  /// An input, found by random testing, under which the assumptions hold,
  /// the LLVM IR is defined and the exchange differs; first from scratch,
  /// then starting from a model of the assumptions alone (launch sizes).
  /// Each: the testing work of each of the two, as milliseconds of it
  /// (testingWork); Spent, where that work is added.
  std::optional<Env> testExchange(const Expr *Defined, const Expr *Violation,
                                  std::chrono::milliseconds Each =
                                      std::chrono::seconds(5),
                                  uint64_t *Spent = nullptr) {
    const Expr *All = C.andOf(assumed(), C.andOf(Defined, Violation));
    FalsifyOptions F;
    F.WorkLimit = testingWork(double(Each.count()));
    F.Deadline = Options.Check.Solver.Deadline;
    F.WorkSpent = Spent;
    if (std::optional<Env> Found = falsify(All, F))
      return Found;
    if (!assumptionModel())
      return std::nullopt;
    F.Base = *AssumptionModel;
    return falsify(All, F);
  }

  /// Testing before each exchange's query, within a budget the whole
  /// sequence shares: a wrong exchange is usually wrong for most inputs
  /// (an add made a sub in a reduction), and found so in milliseconds
  /// where the solver would spend its limit first.
  std::optional<Env> testExchangeFirst(const Expr *Defined,
                                       const Expr *Violation) {
    if (TestingFirstSpent >= testingWork(2000))
      return std::nullopt;
    return testExchange(Defined, Violation, std::chrono::milliseconds(250),
                        &TestingFirstSpent);
  }

  const Expr *assumed() {
    const Expr *Assumed = C.trueExpr();
    for (const Expr *A : Assumptions)
      Assumed = C.andOf(Assumed, A);
    return Assumed;
  }

  /// A model of the assumptions alone (launch sizes, trip counts), asked
  /// once: random sizes rarely meet them. Asked of the solver, not met by
  /// testing (satisfyByTesting): testing's inputs are small, and an
  /// exchange tested from lane 0 of program 0 misses what a scan gets
  /// wrong past its first lanes (inductor_cumsum_wide's scan with an add
  /// made a sub was found from the solver's model in 0.1 s, and not from
  /// testing's in the 20 s budget).
  const std::optional<Env> &assumptionModel() {
    if (!AssumptionModelAsked) {
      AssumptionModelAsked = true;
      smt::SolverOptions Quick = Options.Check.Solver;
      Quick.TimeoutMs = std::min(Quick.TimeoutMs, 2000u);
      smt::QueryResult M =
          smt::solve({"assumptions", assumed(), {}, smt::Mode::IEEE}, Quick);
      if (M.Kind == smt::Outcome::Counterexample)
        AssumptionModel = M.Model;
    }
    return AssumptionModel;
  }

  /// Exchange I was proved alike: wherever the LLVM IR is defined and the
  /// assumptions hold, the guards are equal and, where the guard holds,
  /// so are the operands. Every later query conjoins both conditions, so
  /// the PTX's nodes may be replaced by the LLVM IR's: the guard always,
  /// the operands when the guard is true. What the PTX computes from them
  /// then meets the LLVM IR structurally (the mean a reduction hands on,
  /// the fma contraction of what follows), as the sweep's merges do.
  /// Returns how many nodes were replaced.
  unsigned mergeExchange(size_t I) {
    auto Map = exchangeReplacements(Source.Thread.Exchanges[I],
                                    Target.Thread.Exchanges[I]);
    if (Map.empty())
      return 0;
    unsigned Count = unsigned(Map.size());
    auto Rewrite = replacing(C, std::move(Map));
    std::vector<const Expr *> Kept = Target.Thread.Assumptions;
    rewriteAll(Target.Thread, Rewrite);
    Target.Thread.Assumptions = Kept;
    moveProvenance(Rewrite);
    // What the PTX fused over the replaced nodes can now be found.
    relax();
    return Count;
  }

  static std::string splitNote(const CaseSplitStats &S) {
    unsigned Cases = S.Folded + S.Infeasible + S.Solved;
    if (Cases <= 1)
      return "";
    return " (by cases on uniform branch conditions: " +
           std::to_string(S.Folded) + " folded, " +
           std::to_string(S.Infeasible) + " infeasible, " +
           std::to_string(S.Solved) + " solved)";
  }

  /// The exchanges' operands asked only where they part from the LLVM
  /// IR's, and the levels above (DifferingSubterms.h), with short limits:
  /// proved, no operand differs (each is one function of equal places).
  /// A place seen to differ sends the question one level up (it may
  /// differ harmlessly). Asked only after the whole query is
  /// undecided: asked first, it cost tutorial_layer_norm 16 s of limits
  /// reached on exchanges the whole query proves by cases.
  smt::QueryResult exchangeAtThePlaces(const Exchange &A, const Exchange &B,
                                       const Expr *Defined) {
    std::map<std::pair<const Expr *, const Expr *>, std::vector<const Expr *>>
        OperandLevels;
    size_t Deepest = 0;
    for (size_t J = 0; J < A.Operands.size(); ++J) {
      auto &L = OperandLevels[{A.Operands[J], B.Operands[J]}];
      L = differingLevels(C, A.Operands[J], B.Operands[J]);
      Deepest = std::max(Deepest, L.size());
    }
    smt::QueryResult Last;
    if (Deepest == 0)
      return Last; // no operand parts in a few places
    double Seconds = 0;
    for (size_t Level = 0;; ++Level) {
      // An operand with fewer levels is asked at its highest.
      const Expr *Violation =
          exchangeDiffers(A, B, [&](const Expr *X, const Expr *Y) {
            const std::vector<const Expr *> &L = OperandLevels.at({X, Y});
            return L.empty() ? differs(C, X, Y)
                             : L[std::min(Level, L.size() - 1)];
          });
      smt::SolverOptions Quick = Options.Check.Solver;
      Quick.TimeoutMs = std::min(Quick.TimeoutMs, Level == 0 ? 4000u : 16000u);
      Last = smt::solve({"communication", C.andOf(Defined, Violation),
                         Assumptions, smt::Mode::IEEE},
                        Quick);
      Seconds += Last.Seconds;
      // Only a place seen to differ is asked about from above (undecided,
      // a level above is larger still).
      if (Last.Kind != smt::Outcome::Counterexample || Level + 1 >= Deepest) {
        Last.Seconds = Seconds;
        return Last;
      }
    }
  }

  /// i1: the two exchanges differ: in their guards, or where the guard
  /// holds, in an operand, by OperandsDiffer (by default, as data).
  const Expr *exchangeDiffers(
      const Exchange &A, const Exchange &B,
      const std::function<const Expr *(const Expr *, const Expr *)>
          &OperandsDiffer = nullptr) {
    const Expr *Operands = C.falseExpr();
    for (size_t J = 0; J < A.Operands.size(); ++J)
      Operands = C.orOf(Operands,
                        OperandsDiffer
                            ? OperandsDiffer(A.Operands[J], B.Operands[J])
                            : differs(C, A.Operands[J], B.Operands[J]));
    return C.orOf(C.xorOf(A.Guard, B.Guard), C.andOf(A.Guard, Operands));
  }

  void exchangeNotes(size_t I, Counterexample &X) {
    const auto &S = Source.Thread.Exchanges, &T = Target.Thread.Exchanges;
    if (I < T.size()) {
      unsigned Line = I < Target.ExchangeLines.size() ? Target.ExchangeLines[I]
                                                      : 0;
      X.Notes.push_back(lineNote("PTX", PtxFile.Name, Line, T[I].Kind,
                                 T[I].From.Loc));
      X.TargetOrigin = T[I].From;
    }
    if (I < S.size()) {
      unsigned Line = I < Source.ExchangeLines.size() ? Source.ExchangeLines[I]
                                                      : 0;
      X.Notes.push_back(lineNote("LLVM IR", LlirFile.Name, Line, S[I].Kind,
                                 S[I].From.Loc));
      X.SourceOrigin = S[I].From;
    }
  }

  /// The sides' exchange sequences differ in kind or length at Position:
  /// a counterexample needs an input that reaches the first differing event.
  bool structuralMismatch(size_t Position, Clock::time_point Start) {
    const auto &S = Source.Thread.Exchanges, &T = Target.Thread.Exchanges;
    const Expr *Reached = C.falseExpr();
    if (Position < S.size())
      Reached = C.orOf(Reached, S[Position].Guard);
    if (Position < T.size())
      Reached = C.orOf(Reached, T[Position].Guard);
    const Expr *Defined = C.notOf(Source.Thread.Effects.undefinedCondition(C));
    smt::Query Q{"communication", C.andOf(Defined, Reached), Assumptions,
                 smt::Mode::IEEE};
    smt::QueryResult QR = smt::solve(Q, Options.Check.Solver);
    R.Queries.push_back({"communication", QR.Kind, QR.Reason,
                         since(Start), QR.DumpedTo});
    if (QR.Kind != smt::Outcome::Counterexample) {
      R.Kind = Verdict::Unknown;
      R.Reason = QR.Kind == smt::Outcome::Proved
                     ? "communication: the exchange sequences differ only in "
                       "events no input reaches"
                     : "communication: " + QR.Reason;
      return false;
    }
    auto Describe = [](const std::vector<Exchange> &E, size_t I) {
      return I < E.size() ? E[I].Kind : std::string("nothing");
    };
    // Replayed before it is shown: with the functions' own values where
    // the input reaches the event with them, else with the model's if an
    // approximation could give them.
    const Expr *Shown = Q.Violation;
    auto Reaches = [&](const Env &In) {
      try {
        const Env Replay = completed(In, {Shown});
        return Interpreter(Replay).eval(Shown).isTrue();
      } catch (const EvalError &) {
        return false;
      }
    };
    Env Inputs = withFunctionsOwnValues(QR.Model);
    if (QR.Model.calls().empty() || !Reaches(Inputs)) {
      Inputs = QR.Model;
      if (!Reaches(Inputs) || implausibleAssumption(Inputs)) {
        R.Kind = Verdict::Unknown;
        R.Reason = "communication: the exchange sequences differ at "
                   "exchange " +
                   std::to_string(Position + 1) +
                   ", but the solver's input that reaches it does not "
                   "replay on the interpreter with values the functions "
                   "can take";
        return false;
      }
    }
    Counterexample X;
    X.Query = "communication";
    X.Inputs = Inputs;
    X.Explanation = "exchange " + std::to_string(Position + 1) +
                    " of the thread differs: the LLVM IR has " +
                    Describe(S, Position) + ", the PTX " +
                    Describe(T, Position);
    exchangeNotes(Position, X);
    fail(std::move(X));
    return false;
  }

  /// The first exchange the two sides make differently on In: its
  /// position and why; none when they agree.
  std::optional<std::pair<size_t, std::string>>
  firstExchangeDifference(const Env &In) {
    const auto &S = Source.Thread.Exchanges, &T = Target.Thread.Exchanges;
    Interpreter I(In);
    for (size_t K = 0; K < S.size(); ++K) {
      bool GS = I.eval(S[K].Guard).isTrue(), GT = I.eval(T[K].Guard).isTrue();
      std::string Why;
      if (GS != GT)
        Why = std::string("the ") + (GS ? "LLVM IR" : "PTX") +
              " takes part and the " + (GS ? "PTX" : "LLVM IR") + " does not";
      else if (GS)
        for (size_t J = 0; J < S[K].Operands.size() && Why.empty(); ++J) {
          Value A = I.eval(S[K].Operands[J]), B = I.eval(T[K].Operands[J]);
          if (A.Ty != B.Ty || A.Bits != B.Bits)
            Why = "operand " + std::to_string(J) + " is " + A.str() +
                  " in the LLVM IR and " + B.str() + " in the PTX";
        }
      if (!Why.empty())
        return std::pair(K, Why);
    }
    return std::nullopt;
  }

  /// Confirms a model of the communication query on the interpreter and
  /// reports the first exchange that differs: with the functions' own
  /// values where it holds with them (stages/Assumed.h), else with the
  /// model's if an approximation could give them.
  ///
  /// Searched is what the solver was asked of exchange SearchedExchange
  /// (its difference with the contractions earlier inputs showed taken),
  /// after Round such questions.
  bool replayExchange(const Env &Model, const Expr *Searched = nullptr,
                      size_t SearchedExchange = 0, unsigned Round = 0) {
    const auto &S = Source.Thread.Exchanges;
    std::vector<const Expr *> Roots = rootsOf(Source.Thread);
    std::vector<const Expr *> More = rootsOf(Target.Thread);
    Roots.insert(Roots.end(), More.begin(), More.end());
    Env Shown = Model;
    std::optional<std::pair<size_t, std::string>> Differs;
    if (!Model.calls().empty()) {
      Env Own = withFunctionsOwnValues(Model);
      try {
        Differs = firstExchangeDifference(completed(Own, Roots));
      } catch (const EvalError &) {
      }
      if (Differs)
        Shown = std::move(Own);
    }
    try {
      if (!Differs)
        Differs = firstExchangeDifference(completed(Model, Roots));
    } catch (const EvalError &E) {
      R.Kind = Verdict::Unknown;
      R.Reason = std::string("communication: the counterexample does not "
                             "replay (") +
                 E.what() + ")";
      return false;
    }
    if (!Differs) {
      R.Kind = Verdict::Unknown;
      R.Reason = "communication: the solver's counterexample does not replay "
                 "on the interpreter";
      return false;
    }
    if (std::optional<std::string> Far = implausibleAssumption(Shown)) {
      R.Kind = Verdict::Unknown;
      R.Reason = "communication: the only counterexample found assumes " +
                 *Far + " (an approximation's error is not modelled)";
      return false;
    }
    auto [K, Why] = *Differs;
    const Expr *Differ = exchangeDiffers(S[K], Target.Thread.Exchanges[K]);
    Env At = completed(Shown, Roots);
    if (contractionTaken(Differ, At)) {
      // The solver may have found only differences the contractions
      // explain, and a real one (a wrong mask) stays unseen behind them:
      // ask again with the contractions this input shows taken. Proved so,
      // the verdict stays unknown: another query may need another choice.
      std::string Again;
      // Earlier choices are kept while the same exchange differs.
      const Expr *Taken = contractionTaken(
          Searched && SearchedExchange == K ? Searched : Differ, At);
      if (Taken && Round < ContractionRounds) {
        const Expr *Defined =
            C.notOf(Source.Thread.Effects.undefinedCondition(C));
        CaseSplitStats Split;
        smt::QueryResult QR = solveByCases(
            C, {"communication", C.andOf(Defined, Taken), Assumptions,
                smt::Mode::IEEE},
            Options.Check.Solver, {}, &Split);
        R.Queries.push_back({"communication", QR.Kind,
                             "exchange " + std::to_string(K + 1) +
                                 " asked again with the contractions the "
                                 "input found shows taken",
                             QR.Seconds, QR.DumpedTo});
        if (QR.Kind == smt::Outcome::Counterexample)
          return replayExchange(QR.Model, Taken, K, Round + 1);
        Again = QR.Kind == smt::Outcome::Proved
                    ? "; with them taken it differs nowhere"
                    : "; asked again with them taken: " + QR.Reason;
      }
      R.Kind = Verdict::Unknown;
      R.Reason = "communication: exchange " + std::to_string(K + 1) +
                 " differs on the input found, but an fma contraction the "
                 "LLVM IR allows removes the difference (the PTX fuses "
                 "operands of equal value built another way)" +
                 Again;
      return false;
    }
    Counterexample X;
    X.Query = "communication";
    X.Inputs = Shown;
    X.Explanation =
        "exchange " + std::to_string(K + 1) + " (" + S[K].Kind + ") differs: " +
        Why;
    exchangeNotes(K, X);
    nameDeparture(X, K);
    fail(std::move(X));
    return false;
  }

  /// Query 3: the effects. A write's value matters only where its guard
  /// holds, so each is first simplified under it (a load mask `x <= n`
  /// is true under the store's `x < n`).
  void refine() {
    CheckOptions O = Options.Check;
    O.Assumptions = Assumptions;
    O.Arithmetic = smt::Mode::IEEE;
    O.AllowedChoiceTaken = [this](const Expr *Violation, const Env &In) {
      return contractionTaken(Violation, In);
    };
    O.AllowedChoiceReason =
        "the two sides differ on the input found, but an fma contraction "
        "the LLVM IR allows removes the difference (the PTX fuses operands "
        "of equal value built another way)";
    GuardSimplifier Under(C);
    Effects S = Source.Thread.Effects, T = Target.Thread.Effects;
    for (Effects *E : {&S, &T})
      for (Write &W : E->Writes) {
        W.Value = Under(W.Value, W.Guard);
        W.Defined = Under(W.Defined, W.Guard);
      }
    PairResult E = checkRefinement(C, S, T, O);
    R.Kind = E.Kind;
    R.Reason = E.Reason;
    R.Queries.insert(R.Queries.end(), E.Queries.begin(), E.Queries.end());
    R.Cex = E.Cex;
    if (R.Cex)
      nameDeparture(*R.Cex);
  }

  /// Adds the PTX line where the PTX parts from the LLVM IR: among the PTX
  /// nodes the failing buffer's writes depend on that the LLVM IR never
  /// builds, the first (by PTX line) whose value under the counterexample
  /// no LLVM IR node of the same type has; else the PTX store.
  /// With AtExchange, the operands and guard of that exchange are what
  /// failed, and anything the LLVM IR computes counts as known.
  void nameDeparture(Counterexample &X,
                     std::optional<size_t> AtExchange = std::nullopt) {
    std::vector<const Expr *> TargetRoots, SourceRoots;
    auto Collect = [&](const ThreadEffects &T, std::vector<const Expr *> &Out) {
      for (const Write &W : T.Effects.Writes)
        if (X.Buffer.empty() || W.Buffer == X.Buffer)
          Out.insert(Out.end(), {W.Guard, W.Index, W.Value, W.Defined});
      for (const UndefinedBehavior &U : T.Effects.Undefined)
        if (X.Buffer.empty())
          Out.push_back(U.Condition);
      for (const Atomic &A : T.Effects.Atomics)
        if (X.Buffer.empty() || A.Buffer == X.Buffer)
          Out.insert(Out.end(), {A.Guard, A.Index, A.Value});
    };
    if (AtExchange) {
      const Exchange &T = Target.Thread.Exchanges[*AtExchange];
      TargetRoots.push_back(T.Guard);
      TargetRoots.insert(TargetRoots.end(), T.Operands.begin(),
                         T.Operands.end());
      SourceRoots = rootsOf(Source.Thread);
    } else {
      Collect(Target.Thread, TargetRoots);
      Collect(Source.Thread, SourceRoots);
    }
    std::vector<const Expr *> SourceNodes = postOrder(SourceRoots);
    std::unordered_set<const Expr *> InSource(SourceNodes.begin(),
                                              SourceNodes.end());
    std::vector<const Expr *> All = SourceRoots;
    All.insert(All.end(), TargetRoots.begin(), TargetRoots.end());
    Env In = completed(X.Inputs, All);
    Interpreter I(In);
    std::set<std::pair<uint32_t, uint64_t>> SourceValues;
    auto Key = [](const Value &V) {
      return std::make_pair(V.Ty.hashValue(), V.Bits);
    };
    try {
      for (const Expr *N : SourceNodes)
        SourceValues.insert(Key(I.eval(N)));
    } catch (const EvalError &) {
      SourceValues.clear();
    }
    // Ranked: a node on the frontier (every operand one the LLVM IR
    // computes too) whose value the LLVM IR never has, then a new bool on
    // the frontier (0 and 1 are values the LLVM IR has everywhere, so
    // every condition the PTX spells its own way, a shuffle's lane test,
    // would otherwise outrank the value that departs), then any frontier
    // node, then any new node; the first PTX line within a rank.
    const ptx::PtxSite *Ranked[4] = {nullptr, nullptr, nullptr, nullptr};
    for (const Expr *N : postOrder(TargetRoots)) {
      if (InSource.count(N) || N->isConst())
        continue;
      auto P = Target.Provenance.find(N);
      if (P == Target.Provenance.end())
        continue;
      bool Frontier = std::all_of(
          N->operands().begin(), N->operands().end(),
          [&](const Expr *O) { return O->isConst() || InSource.count(O); });
      bool Departs = true;
      try {
        Departs = !SourceValues.count(Key(I.eval(N)));
      } catch (const EvalError &) {
      }
      const ptx::PtxSite *Site = &P->second;
      unsigned Rank = !Frontier                ? 3
                      : N->type().isBool()     ? 1
                      : Departs                ? 0
                                               : 2;
      if (!Ranked[Rank] || Site->PtxLine < Ranked[Rank]->PtxLine)
        Ranked[Rank] = Site;
    }
    const ptx::PtxSite *Best =
        Ranked[0] ? Ranked[0] : Ranked[1] ? Ranked[1] : Ranked[2];
    const ptx::PtxSite *Fallback = Ranked[3];
    if (Best) {
      X.Notes.push_back("the PTX departs at " +
                        lineNote("PTX", PtxFile.Name, Best->PtxLine,
                                 Best->Instruction, Best->Source));
      return;
    }
    if (AtExchange)
      return; // the exchange's own lines are named already
    // No PTX value is new: the store itself (its guard, place or order).
    const auto &W = Target.Thread.Effects.Writes;
    for (size_t K = 0; K < W.size(); ++K)
      if (W[K].Buffer == X.Buffer && W[K].From.Op == X.TargetOrigin.Op &&
          W[K].From.Loc.str() == X.TargetOrigin.Loc.str() &&
          K < Target.WriteLines.size()) {
        X.Notes.push_back("the PTX departs at " +
                          lineNote("PTX", PtxFile.Name, Target.WriteLines[K],
                                   W[K].From.Op, W[K].From.Loc));
        return;
      }
    if (Fallback)
      X.Notes.push_back("the PTX departs near " +
                        lineNote("PTX", PtxFile.Name, Fallback->PtxLine,
                                 Fallback->Instruction, Fallback->Source));
  }

  Context &C;
  const StageText &LlirFile, &PtxFile;
  const KernelInterface &Interface;
  const LlirToPtxOptions &Options;
  ThreadStage SourceStage, TargetStage;
  LlvmLift Source;
  PtxLift Target;
  std::vector<const Expr *> Assumptions;
  bool AssumptionModelAsked = false;
  std::optional<Env> AssumptionModel;
  uint64_t TestingFirstSpent = 0; // testing work (testingWork)
  unsigned Fused = 0, Divisions = 0, BypassedDivisions = 0,
           PowerOfTwoDivisions = 0;
  PairResult R;
};

} // namespace

std::unordered_map<const Expr *, const Expr *>
exchangeReplacements(const Exchange &S, const Exchange &T) {
  std::unordered_map<const Expr *, const Expr *> Map;
  if (T.Guard != S.Guard)
    Map[T.Guard] = S.Guard;
  if (!S.Guard->isTrue() || S.Operands.size() != T.Operands.size())
    return Map;
  for (size_t J = 0; J < S.Operands.size(); ++J) {
    // Equal bits of a bitcast are equal bits of what it casts: the float
    // a shuffle's word carries is replaced too.
    const Expr *A = T.Operands[J], *B = S.Operands[J];
    while (A != B && A->type() == B->type() && !A->isConst()) {
      Map.emplace(A, B);
      if (A->op() != Op::Bitcast || B->op() != Op::Bitcast ||
          A->operand(0)->type() != B->operand(0)->type())
        break;
      A = A->operand(0);
      B = B->operand(0);
    }
  }
  return Map;
}

PairResult checkLlirToPtx(Context &C, const StageText &Llir,
                          const StageText &Ptx, const KernelInterface &KI,
                          const LlirToPtxOptions &O) {
  return Checker(C, Llir, Ptx, KI, O).run();
}

PairResult checkSameThreadStage(Context &C, ThreadStage Stage,
                                const StageText &Source,
                                const StageText &Target,
                                const KernelInterface &Interface,
                                const CheckOptions &O) {
  LlirToPtxOptions Strict;
  Strict.Check = O;
  Strict.FpFusion = false;
  return Checker(C, Source, Target, Interface, Strict, Stage, Stage).run();
}

PairResult checkLlirToPtx(Context &C, const std::string &LlirPath,
                          const std::string &PtxPath, const KernelInterface &KI,
                          const LlirToPtxOptions &O) {
  StageText Llir{readText(LlirPath), LlirPath}, Ptx{readText(PtxPath), PtxPath};
  return checkLlirToPtx(C, Llir, Ptx, KI, O);
}

} // namespace stagecheck::stages

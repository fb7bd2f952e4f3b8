//===- ttgir_to_llir.cpp - The TTGIR <-> LLVM IR checker ------------------===//
#include "stages/ttgir_to_llir.h"

#include "frontends/llvm/LlvmLifter.h"
#include "frontends/ttir/Lifter.h"
#include "ir/Errors.h"
#include "ir/FloatOps.h"
#include "ir/Functions.h"
#include "ir/Interpreter.h"
#include "ir/Text.h"
#include "ptx_lifter/PtxLifter.h"
#include "stages/CtaModel.h"
#include "stages/Libdevice.h"
#include "stages/MisplacedWrite.h"
#include "stages/Pipeline.h"
#include "stages/Unify.h"
#include <iostream>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

using namespace stagecheck::ir;

namespace stagecheck::stages {

const char *ttgirToLlirVersion() { return "ttgir->llir 1"; }

namespace {

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

/// A relaxation "NAME (COUNT)REST" of one case into the list of all cases:
/// one line per NAME and REST, with the largest case's count.
void mergeRelaxation(std::vector<std::string> &All, const std::string &X) {
  auto Split = [](const std::string &R) {
    size_t Open = R.find(" (");
    size_t Close = Open == std::string::npos ? Open : R.find(')', Open);
    if (Close == std::string::npos)
      return std::make_tuple(R, 0ul, std::string());
    unsigned long N = std::strtoul(R.c_str() + Open + 2, nullptr, 10);
    return std::make_tuple(R.substr(0, Open), N, R.substr(Close + 1));
  };
  auto [Name, Count, Rest] = Split(X);
  for (std::string &Y : All) {
    auto [YName, YCount, YRest] = Split(Y);
    if (YName == Name && YRest == Rest) {
      if (Count > YCount)
        Y = X;
      return;
    }
  }
  All.push_back(X);
}

void addUnique(std::vector<const Expr *> &To,
               const std::vector<const Expr *> &From) {
  for (const Expr *E : From)
    if (std::find(To.begin(), To.end(), E) == To.end())
      To.push_back(E);
}

/// One write of either side in the pairing, with where it came from.
struct Side {
  Write W;
  unsigned Thread = 0, Line = 0; // target only
  bool Dummy = false;            // stands for "no write"
  /// Target only: the write as the CTA's lift made it (its nodes have
  /// LLVM IR sites; W's are canonical).
  const Write *Lifted = nullptr;
};

/// The LLVM IR of a CTA, lifted thread by thread and resolved.
struct LlvmSide {
  std::string File;
  std::vector<llvmir::LlvmLift> Threads;
  CtaEffects Cta;
  int ReflectFtz = 0;
  unsigned Sm = 0;
};

unsigned targetCpu(const std::string &LlirText) {
  // "target-cpu"="sm_90a" (when absent, the capability must be given).
  size_t At = LlirText.find("\"target-cpu\"=\"sm_");
  if (At == std::string::npos)
    return 0;
  return ptx::targetSmVersion(std::string_view(LlirText).substr(At + 14));
}

int reflectFtz(const std::string &LlirText) {
  size_t At = LlirText.find("!\"nvvm-reflect-ftz\", i32 ");
  if (At == std::string::npos)
    return 0;
  return int(std::strtol(LlirText.c_str() + At + 25, nullptr, 10));
}

/// The TTGIR's trip count is exact (stages agree on it above this pair);
/// the lowered loop steps its induction variable in its own width and
/// would run on where lb + trips * step wraps around (a grid-stride loop
/// of more than 2^31 programs). A case assumes it does not; the bound says
/// so.
const Expr *inductionInRange(Context &C, const ttir::LoopKey &K,
                             uint64_t Trips) {
  Type I64 = Type::i(64);
  unsigned Bits = K.Lower->type().bits();
  const Expr *After =
      C.add(C.sextOrTrunc(K.Lower, I64),
            C.mul(C.intConst(I64, int64_t(Trips)), C.sextOrTrunc(K.Step, I64)));
  if (Bits >= 64)
    return C.trueExpr();
  int64_t Max = (int64_t(1) << (Bits - 1)) - 1, Min = -Max - 1;
  return C.andOf(C.icmp(ICmpPredicate::Sle, After, C.intConst(I64, Max)),
                 C.icmp(ICmpPredicate::Sge, After, C.intConst(I64, Min)));
}

/// Triton specialises a kernel on its integer arguments' divisibility
/// (tt.divisibility = 16 on n_elements) and the lowering relies on it (a
/// vector store predicated by its first element's mask): the launches the
/// kernel is compiled for, as assumptions, one line each for the bound.
void divisibility(Context &C, const ttir::Module &M,
                  std::vector<const Expr *> &Assumptions,
                  std::vector<std::string> &Lines) {
  const ttir::Function *K = M.kernel();
  if (!K)
    return;
  for (size_t I = 0; I < K->Args.size(); ++I) {
    const ttir::BlockArg &A = K->Args[I];
    if (!A.Ty || A.Ty->K != ttir::MType::Kind::Int || A.Ty->Bits < 2)
      continue;
    for (const auto &[Name, V] : A.Attributes) {
      if (Name != "tt.divisibility" || !V)
        continue;
      int64_t D = V->asInt().value_or(0);
      if (D <= 1)
        continue;
      Type T = Type::i(A.Ty->Bits);
      const Expr *Arg = C.symbol(paramName(unsigned(I)), T, SymbolRole::Param);
      Assumptions.push_back(
          C.eq(C.binary(Op::SRem, Arg, C.intConst(T, D)), C.intConst(T, 0)));
      Lines.push_back("tt.divisibility: " + paramName(unsigned(I)) + " % " +
                      std::to_string(D) + " == 0");
    }
  }
}

/// Triton computes a program's offsets in i32 (`pid * BLOCK + arange`) and
/// its lowering relies on them not wrapping: the axis analysis finds
/// consecutive offsets and the lowering loads them as one vector, the next
/// element's address taken as the first one's plus one, which holds only
/// while `pid * BLOCK + k` does not wrap. For each `arith.muli` of a program
/// id by a constant block size at the kernel's top level, the launches are
/// those that keep the program's last offset within i32, one line each for
/// the bound.
void programOffsetsInRange(Context &C, const ttir::Module &M,
                           std::vector<const Expr *> &Assumptions,
                           std::vector<std::string> &Lines) {
  const ttir::Function *K = M.kernel();
  if (!K || K->Body.Blocks.empty())
    return;
  std::map<std::string, unsigned> ProgramIds;
  std::map<std::string, int64_t> Constants;
  std::set<std::pair<unsigned, int64_t>> Done;
  for (const ttir::Operation &O : K->Body.Blocks.front().Ops) {
    if (O.Results.empty())
      continue;
    const std::string &Name = O.Results.front().first;
    if (O.Name == "tt.get_program_id") {
      std::optional<int64_t> Axis;
      for (const std::string &W : O.Words)
        if (W == "x" || W == "y" || W == "z")
          Axis = W[0] - 'x';
      if (!Axis)
        if (const ttir::Attr *A = O.attr("axis"))
          Axis = A->asInt();
      if (Axis && *Axis >= 0 && *Axis < 3)
        ProgramIds[Name] = unsigned(*Axis);
    } else if (O.Name == "arith.constant" && O.Value && O.Types.size() <= 1 &&
               (O.Types.empty() || O.Types.front()->shape().empty())) {
      if (std::optional<int64_t> V = O.Value->asInt())
        Constants[Name] = *V;
    } else if (O.Name == "arith.muli" && O.Operands.size() == 2) {
      for (unsigned Side = 0; Side < 2; ++Side) {
        auto Pid = ProgramIds.find(O.Operands[Side].Name);
        auto Block = Constants.find(O.Operands[1 - Side].Name);
        if (Pid == ProgramIds.end() || Block == Constants.end() ||
            Block->second <= 1 || Block->second > (int64_t(1) << 30) ||
            !Done.insert({Pid->second, Block->second}).second)
          continue;
        Type I64 = Type::i(64);
        const Expr *Last = C.add(
            C.mul(C.sextOrTrunc(programIdSymbol(C, Pid->second), I64),
                  C.intConst(I64, Block->second)),
            C.intConst(I64, Block->second - 1));
        Assumptions.push_back(C.icmp(ICmpPredicate::Sle, Last,
                                     C.intConst(I64, (int64_t(1) << 31) - 1)));
        std::string Axis(1, char('x' + Pid->second));
        Lines.push_back("program offsets within i32: pid." + Axis + " * " +
                        std::to_string(Block->second) + " + " +
                        std::to_string(Block->second - 1) + " < 2^31");
      }
    }
  }
}

/// The dynamic shared memory (global_smem, align 16) starts at an aligned
/// address of the CTA's shared window, which is far below 2^24 bytes.
std::vector<const Expr *> sharedWindow(Context &C) {
  const Expr *Smem = C.symbol("smem", Type::i(32));
  return {C.icmp(ICmpPredicate::Ult, Smem, C.intConst(Type::i(32), 1 << 24)),
          C.eq(C.andOf(Smem, C.intConst(Type::i(32), 15)),
               C.intConst(Type::i(32), 0))};
}

LlvmSide liftCta(Context &C, const std::string &Text, const std::string &File,
                 const KernelInterface &KI, const TtgirToLlirOptions &O) {
  LlvmSide S;
  S.File = File;
  std::unique_ptr<llvmir::LlvmModule> M =
      llvmir::LlvmModule::fromText(Text, File);
  std::array<unsigned, 3> Block = M->blockSize();
  if (Block[0] == 0)
    throw UnsupportedError({File, 0, 0}, "the kernel has no required block "
                                         "size (nvvm.reqntid)");
  if (Block[1] > 1 || Block[2] > 1)
    throw UnsupportedError({File, 0, 0}, "a block of more than one dimension");
  S.Sm = O.Capability ? O.Capability : targetCpu(Text);
  S.ReflectFtz = reflectFtz(Text);
  for (unsigned T = 0; T < Block[0]; ++T) {
    llvmir::LlvmLiftOptions LO;
    LO.Capability = S.Sm;
    LO.LoopBound = O.Check.LoopBound;
    LO.ThreadId = std::array<unsigned, 3>{T, 0, 0};
    LO.ExchangePrefix = threadPrefix(T);
    S.Threads.push_back(M->lift(C, KI, LO));
  }
  S.Cta = resolveCta(C, S.Threads);
  return S;
}

class Checker {
public:
  Checker(Context &C, const ttir::Module &Ttgir, const std::string &LlirText,
          const std::string &LlirName, const TtgirToLlirOptions &O)
      : C(C), Ttgir(Ttgir), LlirText(LlirText), LlirName(LlirName), O(O) {}

  PairResult run() {
    auto Start = std::chrono::steady_clock::now();
    if (O.TimeLimitSeconds > 0) {
      auto Limit =
          Start + std::chrono::milliseconds(int64_t(O.TimeLimitSeconds * 1000));
      if (!O.Check.Solver.Deadline || Limit < *O.Check.Solver.Deadline)
        O.Check.Solver.Deadline = Limit;
    }
    PairResult R;
    try {
      R = cases();
    } catch (const UnsupportedError &E) {
      R = PairResult();
      R.Kind = Verdict::Unknown;
      R.Reason = E.what();
    }
    R.Arithmetic = O.Check.Arithmetic;
    R.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    return R;
  }

private:
  Context &C;
  const ttir::Module &Ttgir;
  const std::string &LlirText, &LlirName;
  TtgirToLlirOptions O;
  std::optional<LlvmSide> Llvm;
  KernelInterface Interface;
  std::unique_ptr<Libdevice> Library;
  std::map<std::string, unsigned> Rules;
  /// Equalities proved in earlier cases, reused where their assumptions are.
  ProvedEqualities Proofs;
  /// The bounds of the last case compared, one line each.
  std::vector<std::string> CaseBounds;

  ttir::LiftOptions baseOptions() const {
    ttir::LiftOptions LO;
    LO.Loops = ttir::LiftOptions::LoopMode::Cases;
    LO.WhileBound = O.Check.LoopBound;
    LO.Lowering = true;
    return LO;
  }

  std::string LibdevicePath;

  bool pastDeadline() const {
    return O.Check.Solver.Deadline &&
           std::chrono::steady_clock::now() >= *O.Check.Solver.Deadline;
  }
  std::string timeLimitReason() const {
    std::ostringstream S;
    S << "the time limit of " << O.TimeLimitSeconds << " s was reached";
    return S.str();
  }

  void prepare(const ttir::LiftResult &First) {
    if (Llvm)
      return;
    Interface = O.Interface ? *O.Interface : First.Interface;
    Llvm = liftCta(C, LlirText, LlirName, Interface, O);
    LibdevicePath = chosenLibdevice(O.Libdevice, O.LinkedLibdevice);
    Library =
        std::make_unique<Libdevice>(LibdevicePath, Llvm->ReflectFtz, Llvm->Sm);
  }

  /// A counterexample of a kernel whose libdevice calls took their meaning
  /// from another libdevice than the one it was linked with may show the
  /// libraries' difference, not the compiler's: unknown, saying so. A
  /// library given with --libdevice is the one the user says the kernel was
  /// linked with (a copy of the metadata's, which often lies on another
  /// machine).
  void standIn(PairResult &R) {
    if (R.Kind != Verdict::Counterexample || Library->used().empty() ||
        O.LinkedLibdevice.empty() || LibdevicePath == O.LinkedLibdevice)
      return;
    if (!O.Libdevice.empty()) {
      R.Cex->Notes.push_back("libdevice calls mean what " + LibdevicePath +
                             " defines, given as the library the kernel was "
                             "linked with (its metadata names " +
                             O.LinkedLibdevice + ")");
      return;
    }
    std::string Functions;
    for (const auto &[F, N] : Library->used())
      Functions += (Functions.empty() ? "" : ", ") + F;
    R.Kind = Verdict::Unknown;
    R.Reason = "the LLVM IR differs from the TTGIR with " + Functions +
               " from " + LibdevicePath + ", but the kernel was linked with " +
               O.LinkedLibdevice +
               " (not used here: give it with --libdevice); the two "
               "libdevice versions may differ (" +
               R.Cex->Explanation + ")";
    R.Cex.reset();
  }

  /// Every combination of trip counts 0..LoopBound of the loops whose
  /// counts are not constants (as stages/ttir_to_ttgir.cpp enumerates them).
  PairResult cases() {
    ttir::LiftOptions Base = baseOptions();
    ttir::LiftResult Probe = ttir::liftKernel(C, Ttgir, Base);
    prepare(Probe);
    std::vector<std::pair<ttir::LoopKey, Origin>> Keys = Probe.UnassignedLoops;
    if (Keys.size() > 3) {
      PairResult R;
      R.Kind = Verdict::Unknown;
      R.Reason = "more than 3 loops with independent symbolic trip counts";
      return R;
    }
    // Loads within the tensors first: cheap, and a load outside them is a
    // bug whatever the slower value queries would have found.
    if (Keys.empty()) {
      PairResult Reads;
      Reads.Kind = Verdict::Proved;
      checkReads(Base, Probe, {}, "", Reads);
      if (Reads.Kind == Verdict::Counterexample)
        return Reads;
      PairResult R = compare(Probe, {}, "");
      R.Queries.insert(R.Queries.begin(), Reads.Queries.begin(),
                       Reads.Queries.end());
      if (R.Kind == Verdict::Proved && Reads.Kind != Verdict::Proved) {
        R.Kind = Reads.Kind;
        R.Reason = Reads.Reason;
      }
      return R;
    }
    std::vector<std::string> LoopNames;
    for (const auto &[K, From] : Keys)
      LoopNames.push_back("scf.for" +
                          (From.Loc.known() ? " at " + From.Loc.str() : ""));
    PairResult Total;
    Total.Kind = Verdict::Proved;
    std::vector<std::string> Bounds = {
        "trip counts 0.." + std::to_string(O.Check.LoopBound) + " of " +
            joined(LoopNames),
        "the induction variable of " + joined(LoopNames) +
            " does not wrap around"};
    std::vector<uint64_t> Trips(Keys.size(), 1);
    // Two passes over the cases: loads within the tensors (cheap, and a
    // load outside them is a bug whatever the slower queries would find),
    // then the effects.
    for (bool ReadsPass : {true, false}) {
      for (;;) {
        if (pastDeadline()) {
          Total.Kind = Verdict::Unknown;
          Total.Reason = timeLimitReason() + " before the case of trip count" +
                         std::string(Keys.size() > 1 ? "s " : " ");
          for (size_t I = 0; I < Trips.size(); ++I)
            Total.Reason += (I ? ", " : "") + std::to_string(Trips[I]);
          break;
        }
        std::vector<const Expr *> Facts;
        std::string Name;
        for (size_t I = 0; I < Keys.size(); ++I) {
          Facts.push_back(ttir::tripCountCase(C, Keys[I].first, Trips[I]));
          Facts.push_back(inductionInRange(C, Keys[I].first, Trips[I]));
          Name += (Name.empty() ? "" : ", ") + std::to_string(Trips[I]);
        }
        Name = "[trip count" + std::string(Keys.size() > 1 ? "s " : " ") +
               Name + "] ";
        ttir::LiftOptions LO = Base;
        for (size_t I = 0; I < Keys.size(); ++I)
          LO.TripCounts[Keys[I].first] = Trips[I];
        LO.Facts = Facts;
        ttir::LiftResult LS = ttir::liftKernel(C, Ttgir, LO);
        if (!LS.UnassignedLoops.empty())
          throw UnsupportedError({}, "nested loops with symbolic trip counts");
        PairResult R;
        if (ReadsPass) {
          R.Kind = Verdict::Proved;
          checkReads(LO, LS, Facts, Name, R);
        } else {
          R = compare(LS, Facts, Name);
          Bounds.insert(Bounds.end(), CaseBounds.begin(), CaseBounds.end());
        }
        for (QueryReport &Q : R.Queries)
          Total.Queries.push_back(Q);
        for (const std::string &X : R.Relaxations)
          mergeRelaxation(Total.Relaxations, X);
        if (R.Kind == Verdict::Counterexample) {
          Total.Kind = R.Kind;
          Total.Cex = R.Cex;
          Total.Cex->Notes.push_back("in the case " +
                                     Name.substr(1, Name.size() - 3) + " of " +
                                     joined(LoopNames));
          break;
        }
        if (R.Kind != Verdict::Proved && Total.Kind == Verdict::Proved) {
          Total.Kind = R.Kind;
          Total.Reason = Name + R.Reason;
        }
        // The next combination in the order 1, 2, ..., LoopBound, 0.
        size_t I = 0;
        for (; I < Trips.size(); ++I) {
          if (Trips[I] == 0) {
            Trips[I] = 1;
            continue;
          }
          Trips[I] = Trips[I] == O.Check.LoopBound ? 0 : Trips[I] + 1;
          break;
        }
        if (I == Trips.size())
          break; // Trips is back at its first combination
      }
      if (Total.Kind == Verdict::Counterexample || pastDeadline())
        break;
    }
    std::vector<std::string> Stated;
    for (const std::string &B : Bounds)
      if (B.find(": trip count ") == std::string::npos)
        Stated.push_back(B);
    Total.Bound = joined(Stated);
    return Total;
  }

  //===--- One case -------------------------------------------------------===//

  PairResult compare(const ttir::LiftResult &LS,
                     const std::vector<const Expr *> &Facts,
                     const std::string &CaseName);
  std::vector<const Expr *> assumptions(const ttir::LiftResult &LS,
                                        const std::vector<const Expr *> &Facts,
                                        std::vector<std::string> &Specialised);
  void checkReads(const ttir::LiftOptions &LO, const ttir::LiftResult &LS,
                  const std::vector<const Expr *> &Facts,
                  const std::string &CaseName, PairResult &R);
  std::vector<Side> instances(const Effects &E, uint64_t Limit);
  void blame(Counterexample &X, const std::vector<Side> &Source,
             const std::vector<Side> &Target, Canonicalizer &Canon,
             const std::unordered_map<const Expr *, const Expr *> &Lifted);
  std::string siteText(const CtaSite &S) const;
  std::optional<CtaSite>
  departure(const std::vector<const Expr *> &SourceRoots,
            const std::vector<const Expr *> &CulpritRoots, const Env &Inputs,
            Interpreter::ReadSupplier Reads,
            const std::unordered_map<const Expr *, const Expr *> &Lifted,
            bool ReadsByValue = false);
};

/// What every query of a case assumes: the caller's, the TTGIR's
/// divisibility hints (named in Specialised), both lifts' launch ranges and
/// bounds, the shared-memory window and the case's trip counts.
std::vector<const Expr *>
Checker::assumptions(const ttir::LiftResult &LS,
                     const std::vector<const Expr *> &Facts,
                     std::vector<std::string> &Specialised) {
  std::vector<const Expr *> Assumptions = O.Check.Assumptions;
  divisibility(C, Ttgir, Assumptions, Specialised);
  programOffsetsInRange(C, Ttgir, Assumptions, Specialised);
  addUnique(Assumptions, LS.Assumptions);
  addUnique(Assumptions, Llvm->Cta.Assumptions);
  addUnique(Assumptions, sharedWindow(C));
  addUnique(Assumptions, Facts);
  return Assumptions;
}

namespace {

/// The conditions that remain for some program of the launch once the
/// launch's values and that program's id are put in (thread ids are
/// constants already, so most fold to false), each with its program's id
/// conjoined; a program whose assumptions fold to false (another trip-count
/// case) has none. A launch of more than 4096 programs is not enumerated:
/// the conditions are returned as they are. Lines follow the conditions.
std::vector<UndefinedBehavior>
unfoldedPerProgram(Context &C, const std::vector<UndefinedBehavior> &Conditions,
                   const std::vector<const Expr *> &Assumptions,
                   std::unordered_map<const Expr *, const Expr *> Values,
                   std::vector<unsigned> &Lines) {
  Type I32 = Type::i(32);
  const char *Axes[] = {"x", "y", "z"};
  uint64_t Grid[3];
  for (unsigned D = 0; D < 3; ++D) {
    auto It = Values.find(C.symbol(std::string("nprog.") + Axes[D], I32,
                                   SymbolRole::NumPrograms));
    if (It == Values.end() || !It->second->isConst())
      return Conditions;
    Grid[D] = It->second->constBits();
  }
  if (Grid[0] * Grid[1] * Grid[2] > 4096)
    return Conditions;
  std::vector<UndefinedBehavior> Out;
  std::vector<unsigned> OutLines;
  for (uint64_t P = 0; P < Grid[0] * Grid[1] * Grid[2]; ++P) {
    uint64_t Id[3] = {P % Grid[0], (P / Grid[0]) % Grid[1],
                      P / (Grid[0] * Grid[1])};
    const Expr *Here = C.trueExpr();
    for (unsigned D = 0; D < 3; ++D) {
      const Expr *Pid =
          C.symbol(std::string("pid.") + Axes[D], I32, SymbolRole::ProgramId);
      Values[Pid] = C.intConst(I32, int64_t(Id[D]));
      Here = C.andOf(Here, C.eq(Pid, Values[Pid]));
    }
    bool Vacuous = false;
    for (const Expr *A : Assumptions)
      Vacuous |= substitute(C, A, Values)->isFalse();
    if (Vacuous)
      continue;
    for (size_t K = 0; K < Conditions.size(); ++K) {
      if (substitute(C, Conditions[K].Condition, Values)->isFalse())
        continue;
      UndefinedBehavior U = Conditions[K];
      U.Condition = C.andOf(U.Condition, Here);
      Out.push_back(U);
      OutLines.push_back(Lines[K]);
    }
  }
  Lines = OutLines;
  return Out;
}

} // namespace

/// "loads within the tensors", after a case is proved: at the launch
/// (O.Launch), is some global load of the LLVM IR outside the elements its
/// pointer may reach (O.Reach) where the TTGIR is defined? Loads are values
/// the refinement queries see only where they are used, so a load whose
/// value is discarded (a prefetch one row too far) shows only here. Asked
/// of the LLVM IR alone first (the TTGIR's own loads within their tensors
/// need no proof then); only when that finds an input is the TTGIR, lifted
/// with its loads and stores bounded alike, put against it.
void Checker::checkReads(const ttir::LiftOptions &LO,
                         const ttir::LiftResult &LS,
                         const std::vector<const Expr *> &Facts,
                         const std::string &CaseName, PairResult &R) {
  if (R.Kind != Verdict::Proved || O.Reach.empty() || O.Launch.empty())
    return;
  const CtaEffects &Cta = Llvm->Cta;
  Type I64 = Type::i(64);
  Effects Target;
  Target.Buffers = Cta.Effects.Buffers;
  std::vector<unsigned> Lines;
  for (size_t K = 0; K < Cta.GlobalReads.size(); ++K) {
    const ptx::GlobalRead &G = Cta.GlobalReads[K];
    auto It = O.Reach.find(G.Buffer);
    if (It == O.Reach.end())
      continue;
    auto [Low, High] = It->second;
    const Expr *Outside =
        C.orOf(C.icmp(ICmpPredicate::Slt, G.Index, C.intConst(I64, Low)),
               C.icmp(ICmpPredicate::Sgt, G.Index,
                      C.intConst(I64, High - int64_t(G.Count))));
    const Expr *When = C.andOf(G.Guard, Outside);
    if (When->isFalse())
      continue;
    Target.Undefined.push_back({When,
                                "a load outside the " +
                                    std::to_string(High - Low) + " elements " +
                                    G.Buffer + " may reach",
                                G.From,
                                {}});
    Lines.push_back(Cta.GlobalReadLines[K]);
  }
  auto Start = std::chrono::steady_clock::now();
  std::string Name = CaseName + "loads within the tensors at the launch";
  std::vector<std::string> Specialised;
  CheckOptions CO = O.Check;
  CO.Assumptions = assumptions(LS, Facts, Specialised);
  std::unordered_map<const Expr *, const Expr *> Values;
  for (auto [Symbol, Value] : O.Launch)
    if (!Symbol->type().isFloat()) { // sizes and grid; a float scale stays free
      CO.Assumptions.push_back(C.eq(Symbol, Value));
      Values[Symbol] = Value;
    }
  CO.Preferred.clear();
  Target.Undefined =
      unfoldedPerProgram(C, Target.Undefined, CO.Assumptions, Values, Lines);
  if (Target.Undefined.empty()) {
    R.Queries.push_back(
        {Name, smt::Outcome::Proved, "folded for each program of the launch",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
             .count(),
         ""});
    return;
  }
  Effects Source;
  Source.Buffers = LS.Effects.Buffers;
  PairResult Reads = checkRefinement(C, Source, Target, CO);
  if (Reads.Kind == Verdict::Counterexample) {
    // The LLVM IR may read outside: is the TTGIR defined there?
    ttir::LiftOptions Bounded = LO;
    Bounded.Reach = O.Reach;
    ttir::LiftResult LB = ttir::liftKernel(C, Ttgir, Bounded);
    Source = Library->apply(C, LB.Effects);
    Source.Writes.clear();
    Source.Atomics.clear();
    Reads = checkRefinement(C, Source, Target, CO);
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (Reads.Kind == Verdict::Proved) {
    R.Queries.push_back({Name, smt::Outcome::Proved, "", Seconds, ""});
    return;
  }
  if (Reads.Kind == Verdict::Counterexample) {
    R.Queries.push_back({Name, smt::Outcome::Counterexample, "", Seconds, ""});
    R.Kind = Verdict::Counterexample;
    R.Cex = Reads.Cex;
    R.Cex->Query = Name;
    for (size_t K = 0; K < Target.Undefined.size(); ++K)
      if (Target.Undefined[K].From.Op == R.Cex->TargetOrigin.Op &&
          Target.Undefined[K].From.Loc.str() == R.Cex->TargetOrigin.Loc.str()) {
        R.Cex->Notes.push_back("the load at " + LlirName + ":" +
                               std::to_string(Lines[K]) +
                               ", at the bundle's launch (its scalar "
                               "arguments and grid)");
        break;
      }
    return;
  }
  R.Queries.push_back({Name, smt::Outcome::Unknown, Reads.Reason, Seconds, ""});
  R.Kind = Verdict::Unknown;
  R.Reason = Name + ": " + Reads.Reason;
}

std::vector<Side> Checker::instances(const Effects &E, uint64_t Limit) {
  std::vector<Side> Out;
  for (const Write &W : E.Writes) {
    if (W.Bound.empty()) {
      Out.push_back({W});
      continue;
    }
    bool Fits = forEachInstance(C, W.Bound, Limit, [&](const auto &Map) {
      Write I = W;
      I.Bound.clear();
      I.Guard = substitute(C, W.Guard, Map);
      I.Index = substitute(C, W.Index, Map);
      I.Value = substitute(C, W.Value, Map);
      I.Defined = substitute(C, W.Defined, Map);
      Out.push_back({I});
    });
    if (!Fits || Out.size() > Limit)
      throw UnsupportedError(W.From.Loc, "a store of more than " +
                                             std::to_string(Limit) +
                                             " elements");
  }
  return Out;
}

namespace {

/// The named functions E's effects call.
std::set<std::string> calledFunctions(const Effects &E) {
  std::vector<const Expr *> Roots;
  for (const Write &W : E.Writes)
    Roots.insert(Roots.end(), {W.Guard, W.Index, W.Value, W.Defined});
  for (const Atomic &A : E.Atomics)
    Roots.insert(Roots.end(), {A.Guard, A.Index, A.Value});
  for (const UndefinedBehavior &U : E.Undefined)
    Roots.push_back(U.Condition);
  std::set<std::string> Names;
  for (const Expr *N : postOrder(Roots))
    if (N->op() == Op::Call)
      Names.insert(N->name());
  return Names;
}

/// A mathematical function the TTGIR leaves uninterpreted (math.tan, whose
/// lowering to libdevice is not modelled) and the LLVM IR does not call:
/// the two sides cannot be compared, since a value that differs may be
/// that function's own value. Throws ir::UnsupportedError.
void refuseUnloweredFunctions(const Effects &Source, const Effects &Target) {
  std::set<std::string> Called = calledFunctions(Target);
  for (const std::string &Name : calledFunctions(Source)) {
    const FunctionInfo *F = lookupFunction(Name);
    if (F && !F->Approximate && !Called.count(Name))
      throw UnsupportedError({}, "the TTGIR's " + Name +
                                     " has no modelled lowering (the LLVM "
                                     "IR computes it in its own way)");
  }
}

} // namespace

PairResult Checker::compare(const ttir::LiftResult &LS,
                            const std::vector<const Expr *> &Facts,
                            const std::string &CaseName) {
  const CtaEffects &Cta = Llvm->Cta;
  std::map<std::string, unsigned> UsedBefore = Library->used();
  Effects Source = Library->apply(C, LS.Effects);
  refuseUnloweredFunctions(Source, Cta.Effects);
  std::vector<std::string> Specialised;
  std::vector<const Expr *> Assumptions = assumptions(LS, Facts, Specialised);

  std::vector<Side> S = instances(Source, 1 << 14), T;
  for (size_t K = 0; K < Cta.Effects.Writes.size(); ++K)
    T.push_back({Cta.Effects.Writes[K], Cta.WriteThread[K], Cta.WriteLines[K],
                 false, &Cta.Effects.Writes[K]});

  std::vector<UndefinedBehavior> TargetUndefined = Cta.Effects.Undefined;
  // Both sides' integer arithmetic in canonical form first: launch
  // arithmetic that then has one spelling needs no proof below.
  std::unordered_map<const Expr *, const Expr *> Lifted; // canonical -> lifted
  {
    Canonicalizer Pre =
        Canonicalizer::integerOnly(C, alignmentsFrom(Assumptions));
    static const std::unordered_map<const Expr *, const Expr *> NoMap;
    auto Canonical = [&](const Expr *&E) {
      const Expr *R = Pre(E, NoMap);
      Lifted.emplace(R, E);
      E = R;
    };
    for (std::vector<Side> *Sides : {&S, &T})
      for (Side &X : *Sides)
        for (const Expr **E :
             {&X.W.Guard, &X.W.Index, &X.W.Value, &X.W.Defined})
          Canonical(*E);
    for (std::vector<UndefinedBehavior> *Ubs :
         {&Source.Undefined, &TargetUndefined})
      for (UndefinedBehavior &Ub : *Ubs)
        Canonical(Ub.Condition);
  }
  // Launch arithmetic the two sides spell differently, proved equal.
  // A write's place and value matter only where its guard holds.
  std::vector<UnifyRoot> SourceRoots, TargetRoots;
  for (const std::vector<Side> *Sides : {&S, &T})
    for (const Side &X : *Sides) {
      auto &Roots = Sides == &S ? SourceRoots : TargetRoots;
      Roots.push_back({X.W.Guard, nullptr});
      for (const Expr *E : {X.W.Index, X.W.Value, X.W.Defined})
        Roots.push_back({E, X.W.Guard->isTrue() ? nullptr : X.W.Guard});
    }
  for (const UndefinedBehavior &Ub : Source.Undefined)
    SourceRoots.push_back({Ub.Condition, nullptr});
  for (const UndefinedBehavior &Ub : TargetUndefined)
    TargetRoots.push_back({Ub.Condition, nullptr});
  Unification U = unifyLaunchTerms(C, SourceRoots, TargetRoots, Assumptions,
                                   O.Check.Solver, &Proofs);
  Canonicalizer Canon(C, alignmentsFrom(Assumptions));
  auto Canonical = [&](const Expr *E) {
    const Expr *R = Canon(E, U.Map);
    auto It = Lifted.find(E);
    Lifted.emplace(R, It != Lifted.end() ? It->second : E);
    return R;
  };
  for (std::vector<Side> *Sides : {&S, &T})
    for (Side &X : *Sides) {
      X.W.Guard = Canonical(X.W.Guard);
      X.W.Index = Canonical(X.W.Index);
      X.W.Value = Canonical(X.W.Value);
      X.W.Defined = Canonical(X.W.Defined);
    }

  // Each target write with the element it writes (the source instance at
  // the same index node); an unmatched one with a write that never happens.
  std::map<std::pair<std::string, const Expr *>, std::vector<size_t>> ByIndex;
  for (size_t K = 0; K < S.size(); ++K)
    if (!S[K].W.Guard->isFalse())
      ByIndex[{S[K].W.Buffer, S[K].W.Index}].push_back(K);
  std::vector<Side> PS, PT;
  std::vector<bool> Covered(S.size(), false);
  bool Ambiguous = false;
  for (const Side &X : T) {
    auto It = ByIndex.find({X.W.Buffer, X.W.Index});
    if (It == ByIndex.end()) {
      Side D{X.W};
      D.W.Guard = C.falseExpr();
      D.Dummy = true;
      PS.push_back(D);
      PT.push_back(X);
      continue;
    }
    Ambiguous |= It->second.size() > 1;
    size_t K = It->second.front();
    Covered[K] = true;
    PS.push_back(S[K]);
    PT.push_back(X);
  }
  for (size_t K = 0; K < S.size(); ++K)
    if (!Covered[K] && !S[K].W.Guard->isFalse()) {
      Side D = S[K];
      D.W.Guard = C.falseExpr();
      D.Dummy = true;
      PS.push_back(S[K]);
      PT.push_back(D);
    }
  if (Ambiguous)
    throw UnsupportedError({}, "the TTGIR writes one element more than once; "
                               "not matched to the LLVM IR's writes");
  // A write's value matters only where its guard holds: simplified under
  // the guard it has (a vector store's lanes under its first element's
  // mask), before that guard is replaced by the element's.
  GuardSimplifier Under(C);
  for (std::vector<Side> *Sides : {&PS, &PT})
    for (Side &X : *Sides) {
      X.W.Value = Canonical(Under(X.W.Value, X.W.Guard));
      X.W.Defined = Canonical(Under(X.W.Defined, X.W.Guard));
    }
  // Guards that differ in spelling only (a vector store predicated by its
  // first element's mask, equal to each element's under the launch's
  // divisibility), proved equal together and replaced.
  std::vector<std::pair<const Expr *, const Expr *>> Guards;
  std::vector<size_t> GuardPairs;
  for (size_t K = 0; K < PS.size(); ++K)
    if (!PS[K].Dummy && !PT[K].Dummy && PS[K].W.Guard != PT[K].W.Guard) {
      Guards.push_back({PT[K].W.Guard, PS[K].W.Guard});
      GuardPairs.push_back(K);
    }
  ProvedEqualities::Scope GuardProofs = Proofs.scope(Assumptions);
  if (U.Witnessed)
    GuardProofs.witnessed();
  std::vector<bool> SameGuard =
      proveEqual(C, Guards, Assumptions, O.Check.Solver, &GuardProofs);
  for (size_t I = 0; I < GuardPairs.size(); ++I)
    if (SameGuard[I])
      PT[GuardPairs[I]].W.Guard = PS[GuardPairs[I]].W.Guard;
  // And under the guard it now has.
  for (std::vector<Side> *Sides : {&PS, &PT})
    for (Side &X : *Sides) {
      X.W.Value = Canonical(Under(X.W.Value, X.W.Guard));
      X.W.Defined = Canonical(Under(X.W.Defined, X.W.Guard));
    }

  Effects PairedSource, PairedTarget;
  PairedSource.Buffers = Source.Buffers;
  PairedTarget.Buffers = Cta.Effects.Buffers;
  for (const Side &X : PS)
    PairedSource.Writes.push_back(X.W);
  for (const Side &X : PT)
    PairedTarget.Writes.push_back(X.W);
  for (UndefinedBehavior Ub : Source.Undefined) {
    Ub.Condition = Canonical(Ub.Condition);
    PairedSource.Undefined.push_back(Ub);
  }
  for (UndefinedBehavior Ub : TargetUndefined) {
    Ub.Condition = Canonical(Ub.Condition);
    if (!Ub.Condition->isFalse())
      PairedTarget.Undefined.push_back(Ub);
  }
  PairedSource.Atomics = Source.Atomics;
  PairedTarget.Atomics = Cta.Effects.Atomics;

  if (getenv("STAGECHECK_DEBUG_PAIRS")) {
    unsigned Shown = 0;
    for (size_t K = 0; K < PS.size() && Shown < 2; ++K) {
      if (PS[K].W.Guard == PT[K].W.Guard && PS[K].W.Value == PT[K].W.Value &&
          PS[K].W.Index == PT[K].W.Index && PT[K].W.Defined->isTrue())
        continue;
      if (PS[K].W.Guard->isFalse())
        continue;
      ++Shown;
      std::cerr << CaseName << "pair " << K << "\n S guard "
                << printExpr(PS[K].W.Guard) << "\n T guard "
                << printExpr(PT[K].W.Guard) << "\n S index "
                << printExpr(PS[K].W.Index) << "\n T index "
                << printExpr(PT[K].W.Index) << "\n S value "
                << printExpr(PS[K].W.Value) << "\n T value "
                << printExpr(PT[K].W.Value) << "\n T defined "
                << printExpr(PT[K].W.Defined) << "\n";
    }
  }
  if (pastDeadline())
    throw UnsupportedError({}, timeLimitReason());
  // The assumptions as they are: the substitution holds under them.
  CheckOptions CO = O.Check;
  CO.Assumptions = Assumptions;
  addUnique(CO.Assumptions, Canon.assumed()); // what its forms rely on
  // Lanes racing to store results they combined in their own orders may
  // leave the sign of a zero to the race: only other differences count
  // (and a proof is no proof, below).
  CO.ZerosOfEitherSign = !Cta.Races.empty();
  PairResult R = checkRefinement(C, PairedSource, PairedTarget, CO);
  for (QueryReport &Q : R.Queries)
    Q.Name = CaseName + Q.Name;
  if (U.Proposed)
    R.Queries.insert(
        R.Queries.begin(),
        {CaseName + "launch arithmetic: " + std::to_string(U.Proved) + " of " +
             std::to_string(U.Proposed) + " terms proved equal",
         smt::Outcome::Proved, "", U.Seconds, ""});
  std::vector<std::string> Bounds = LS.Bounds;
  Bounds.insert(Bounds.end(), Cta.Bounds.begin(), Cta.Bounds.end());
  Bounds.insert(Bounds.end(), Specialised.begin(), Specialised.end());
  if (!Canon.assumed().empty())
    Bounds.push_back("contiguity of %: the aligned part of a remainder's "
                     "dividend is non-negative");
  R.Bound = Bounds.empty() ? "none" : joined(Bounds);
  CaseBounds = Bounds;
  for (const auto &[Rule, Count] : LS.Rules)
    R.Relaxations.push_back(Rule + " (" + std::to_string(Count) + ")");
  // This case's calls (the library counts every case's).
  for (const auto &[Function, Count] : Library->used())
    if (unsigned Here = Count - UsedBefore[Function])
      R.Relaxations.push_back("libdevice " + Function + " (" +
                              std::to_string(Here) + ") from " + LibdevicePath);
  if (!Cta.RacingReads.empty())
    R.Relaxations.push_back("racing loads read any value (" +
                            std::to_string(Cta.RacingReads.size()) +
                            (Cta.RacingReads.size() == 8 ? " or more" : "") +
                            "): " + Cta.RacingReads.front());
  if (R.Cex) {
    blame(*R.Cex, PS, PT, Canon, Lifted);
    if (!Cta.RacingReads.empty())
      R.Cex->Notes.push_back(
          "a shared-memory load races with another thread's write, so it "
          "may read any value (t<K>.raced.smem@P[offset] is the one picked): " +
          Cta.RacingReads.front());
  }
  standIn(R);
  if (R.Kind == Verdict::Proved && !Cta.Races.empty()) {
    R.Kind = Verdict::Unknown;
    R.Reason = "a race on shared memory: " + Cta.Races.front() +
               " (what is written was proved the same up to the signs of "
               "zeros, which the race may decide)";
  }
  return R;
}

std::string Checker::siteText(const CtaSite &S) const {
  std::string Out = S.Site.Instruction + " (" + LlirName + ":" +
                    std::to_string(S.Site.LlirLine);
  if (S.Site.Source.known())
    Out += ", " + S.Site.Source.str();
  return Out + ")";
}

/// The earliest LLVM IR instruction on the culprit's way whose value, on
/// Inputs (unset reads from Reads, else zero), no TTGIR node has: an inner
/// node whose value some TTGIR node also has is taken as that value spelled
/// otherwise; a leaf (a read, a symbol) only when it is the TTGIR's own.
std::optional<CtaSite>
Checker::departure(const std::vector<const Expr *> &SourceRoots,
                   const std::vector<const Expr *> &CulpritRoots,
                   const Env &Inputs, Interpreter::ReadSupplier Reads,
                   const std::unordered_map<const Expr *, const Expr *> &Lifted,
                   bool ReadsByValue) {
  const CtaEffects &Cta = Llvm->Cta;
  Interpreter Replay(Inputs, std::move(Reads));
  // Values as bits of a width: the LLVM IR moves floats as integers.
  auto ValueOf =
      [&](const Expr *N) -> std::optional<std::pair<unsigned, uint64_t>> {
    try {
      return std::make_pair(N->type().bits(), Replay.eval(N).Bits);
    } catch (const EvalError &) {
      return std::nullopt;
    }
  };
  std::set<const Expr *> Known;
  std::set<std::pair<unsigned, uint64_t>> SourceValues;
  for (const Expr *N : postOrder(SourceRoots)) {
    Known.insert(N);
    if ((N->numOperands() > 0 || N->op() == Op::Read) && !N->type().isBool())
      if (auto V = ValueOf(N))
        SourceValues.insert(*V);
  }
  for (const Expr *N : postOrder(CulpritRoots)) {
    if (N->isConst() || Known.count(N) || N->numOperands() == 0 ||
        (N->op() == Op::Read && !ReadsByValue))
      continue;
    // Two values say nothing: as lifted, a condition counts as the TTGIR's,
    // and so does the address arithmetic (pointers the TTGIR spells as
    // element indices): the data is what is traced.
    if (N->type().isBool() || (ReadsByValue && !N->type().isFloat() &&
                               N->op() != Op::Read && N->op() != Op::Bitcast)) {
      if (ReadsByValue)
        Known.insert(N);
      continue;
    }
    if (auto V = ValueOf(N); V && SourceValues.count(*V))
      Known.insert(N);
  }
  std::optional<CtaSite> Best;
  for (const Expr *N : postOrder(CulpritRoots)) {
    if (Known.count(N) || N->isConst())
      continue;
    bool Minimal = std::all_of(
        N->operands().begin(), N->operands().end(),
        [&](const Expr *O) { return O->isConst() || Known.count(O) > 0; });
    if (!Minimal)
      continue;
    const Expr *Resolved = N;
    if (auto It = Lifted.find(N); It != Lifted.end())
      Resolved = It->second;
    std::optional<CtaSite> Site;
    if (auto It = Cta.Sites.find(Resolved); It != Cta.Sites.end())
      Site = It->second;
    else
      for (unsigned T = 0; T < Llvm->Threads.size() && !Site; ++T)
        if (auto P = Llvm->Threads[T].Provenance.find(Resolved);
            P != Llvm->Threads[T].Provenance.end())
          Site = CtaSite{P->second, T, Resolved};
    if (Site && Site->Site.LlirLine &&
        (!Best || Site->Site.LlirLine < Best->Site.LlirLine))
      Best = Site;
  }
  return Best;
}

/// Names the LLVM IR write that differs, and the first instruction on its
/// way whose value the TTGIR never computes.
void Checker::blame(
    Counterexample &X, const std::vector<Side> &Source,
    const std::vector<Side> &Target, Canonicalizer &Canon,
    const std::unordered_map<const Expr *, const Expr *> &Lifted) {
  const CtaEffects &Cta = Llvm->Cta;
  const Side *Culprit = nullptr;
  Env Inputs = X.Inputs;
  for (size_t K = 0; K < Target.size() && X.Index; ++K) {
    if (Target[K].Dummy || Target[K].W.Buffer != X.Buffer)
      continue;
    try {
      std::vector<const Expr *> Roots = {Target[K].W.Guard, Target[K].W.Index};
      for (const Expr *N : postOrder(Roots))
        if (N->op() == Op::Symbol && !Inputs.symbol(N->name()))
          Inputs.setSymbol(N->name(), Value::ofBits(N->type(), 0));
      Interpreter I(Inputs);
      if (I.eval(Target[K].W.Guard).isTrue() &&
          I.eval(Target[K].W.Index).Bits == *X.Index) {
        Culprit = &Target[K];
      }
    } catch (const EvalError &) {
    }
  }
  if (!Culprit) {
    for (size_t K = 0; K < Cta.Effects.Undefined.size(); ++K)
      if (Cta.Effects.Undefined[K].From.Op == X.TargetOrigin.Op &&
          Cta.Effects.Undefined[K].From.Loc.str() == X.TargetOrigin.Loc.str()) {
        X.Notes.push_back("LLVM IR: thread " +
                          std::to_string(Cta.UndefinedThread[K]) + ", " +
                          X.TargetOrigin.Op + " (" + LlirName + ":" +
                          std::to_string(Cta.UndefinedLines[K]) + ")");
        break;
      }
    // An element no thread writes: two threads may write one instead.
    if (X.Index) {
      llvmir::LlvmLiftOptions LO;
      LO.Capability = Llvm->Sm;
      LO.LoopBound = O.Check.LoopBound;
      MisplacedWriteQuery Q{LlirText, LlirName, Interface, LO,
                            Cta,      X.Buffer, X.Inputs};
      for (std::string &N : misplacedWriteNotes(C, Q))
        X.Notes.push_back(std::move(N));
    }
    return;
  }
  std::string Where = Culprit->W.From.Op + " (" + LlirName + ":" +
                      std::to_string(Culprit->Line);
  if (Culprit->W.From.Loc.known())
    Where += ", " + Culprit->W.From.Loc.str();
  X.Notes.push_back("LLVM IR: thread " + std::to_string(Culprit->Thread) +
                    " writes it at " + Where + ")");
  // Departure: the earliest instruction whose value is not a TTGIR value.
  std::vector<const Expr *> SourceRoots;
  for (const Side &S : Source)
    if (!S.Dummy)
      SourceRoots.insert(SourceRoots.end(), {S.W.Value, S.W.Guard, S.W.Index});
  std::vector<const Expr *> CulpritRoots = {Culprit->W.Value, Culprit->W.Guard,
                                            Culprit->W.Index};
  for (const Expr *N : postOrder(CulpritRoots))
    if (N->op() == Op::Symbol && !Inputs.symbol(N->name()))
      Inputs.setSymbol(N->name(), Value::ofBits(N->type(), 0));
  std::optional<CtaSite> Best =
      departure(SourceRoots, CulpritRoots, Inputs, nullptr, Lifted);
  // A shrunk counterexample reads mostly zeros, which many nodes of both
  // sides share, and canonical nodes the lift never made have no site: so
  // also the write as lifted, on the counterexample's launch with every
  // element read as a distinct ordinary number (the same bits whatever
  // type reads it: LLVM IR loads floats as integers), reads matched by
  // value. The earlier of the two instructions is named.
  if (Culprit->Lifted) {
    Env Launch;
    for (const auto &[Name, V] : Inputs.symbols())
      Launch.setSymbol(Name, V);
    auto DistinctReads = [](const std::string &, uint64_t Index, Type T) {
      uint64_t K = (Index * 37 + 11) % 251;
      Type AsFloat = T.isFloat()      ? T
                     : T.bits() == 16 ? Type::f16()
                     : T.bits() == 32 ? Type::f32()
                     : T.bits() == 64 ? Type::f64()
                                      : T;
      if (!AsFloat.isFloat())
        return Value::ofBits(T, K + 1);
      return Value::ofBits(T, fp::fromDouble(1.0 + double(K) / 64.0,
                                             floatFormat(AsFloat),
                                             RoundingMode::NearestEven));
    };
    const Write &L = *Culprit->Lifted;
    std::optional<CtaSite> AsLifted =
        departure(SourceRoots, {L.Value, L.Guard, L.Index}, Launch,
                  DistinctReads, Lifted, true);
    if (AsLifted && (!Best || AsLifted->Site.LlirLine < Best->Site.LlirLine))
      Best = AsLifted;
  }
  if (!Best)
    return;
  std::string Note = "the LLVM IR first differs from the TTGIR at " +
                     siteText(*Best) + " in thread " +
                     std::to_string(Best->Thread);
  // A value received from another thread: name the exchange too.
  // (A received value is often reinterpreted first: bitcast i32 to float.)
  if (Best->Lifted)
    for (const Expr *Operand : Best->Lifted->operands()) {
      while (Operand->numOperands() == 1 && !Cta.ExchangeSites.count(Operand))
        Operand = Operand->operand(0);
      if (auto It = Cta.ExchangeSites.find(Operand);
          It != Cta.ExchangeSites.end())
        Note += ", from what " + siteText(It->second) + " delivered";
    }
  X.Notes.push_back(Note);
}

std::string readText(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    throw InputError({Path, 0, 0}, "cannot read " + Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

} // namespace

std::string linkedLibdevice(const std::string &MetadataPath) {
  // "extern_libs": [["libdevice", "/path/libdevice.10.bc"]]
  std::ifstream In(MetadataPath);
  std::stringstream S;
  S << In.rdbuf();
  std::string Text = S.str();
  size_t At = Text.find("\"extern_libs\"");
  if (At == std::string::npos)
    return "";
  At = Text.find("\"libdevice\"", At);
  if (At == std::string::npos)
    return "";
  size_t Open = Text.find('"', Text.find(',', At) + 1);
  size_t Close = Open == std::string::npos ? Open : Text.find('"', Open + 1);
  if (Close == std::string::npos)
    return "";
  return Text.substr(Open + 1, Close - Open - 1);
}

PairResult checkTtgirToLlir(Context &C, const ttir::Module &Ttgir,
                            const std::string &LlirText,
                            const std::string &LlirName,
                            const TtgirToLlirOptions &O) {
  return Checker(C, Ttgir, LlirText, LlirName, O).run();
}

PairResult checkTtgirToLlir(Context &C, const std::string &TtgirPath,
                            const std::string &LlirPath,
                            const TtgirToLlirOptions &O) {
  ttir::Module M = ttir::parseModuleFile(TtgirPath);
  return checkTtgirToLlir(C, M, readText(LlirPath), LlirPath, O);
}

PairResult checkSameCta(Context &C, const std::string &SourceText,
                        const std::string &SourceName,
                        const std::string &TargetText,
                        const std::string &TargetName,
                        const KernelInterface &Interface,
                        const CheckOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  PairResult R;
  try {
    TtgirToLlirOptions TO;
    TO.Check = O;
    TO.Capability = O.SmVersion;
    LlvmSide S = liftCta(C, SourceText, SourceName, Interface, TO);
    LlvmSide T = liftCta(C, TargetText, TargetName, Interface, TO);
    if (S.Threads.size() != T.Threads.size())
      throw UnsupportedError({TargetName, 0, 0},
                             "the two kernels run CTAs of " +
                                 std::to_string(S.Threads.size()) + " and " +
                                 std::to_string(T.Threads.size()) + " threads");
    CheckOptions CO = O;
    addUnique(CO.Assumptions, S.Cta.Assumptions);
    addUnique(CO.Assumptions, T.Cta.Assumptions);
    CO.ZerosOfEitherSign = !S.Cta.Races.empty() || !T.Cta.Races.empty();
    addUnique(CO.Assumptions, sharedWindow(C));
    R = checkRefinement(C, S.Cta.Effects, T.Cta.Effects, CO);
    std::vector<std::string> Bounds = S.Cta.Bounds;
    for (const std::string &B : T.Cta.Bounds)
      if (std::find(Bounds.begin(), Bounds.end(), B) == Bounds.end())
        Bounds.push_back(B);
    R.Bound = Bounds.empty() ? "none" : joined(Bounds);
    for (const LlvmSide *X : {&S, &T})
      if (!X->Cta.RacingReads.empty())
        R.Relaxations.push_back("racing loads read any value in " + X->File +
                                ": " + X->Cta.RacingReads.front());
    for (const LlvmSide *X : {&S, &T})
      if (R.Kind == Verdict::Proved && !X->Cta.Races.empty()) {
        R.Kind = Verdict::Unknown;
        R.Reason = "a race on shared memory in " + X->File + ": " +
                   X->Cta.Races.front() +
                   " (what is written was proved the same up to the signs "
                   "of zeros, which the race may decide)";
      }
  } catch (const UnsupportedError &E) {
    R = PairResult();
    R.Kind = Verdict::Unknown;
    R.Reason = E.what();
  }
  R.Arithmetic = O.Arithmetic;
  R.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return R;
}

TtgirToLlirOptions optionsForLaunch(const bundle::Manifest &M,
                                    const bundle::Launch &L,
                                    const CheckOptions &O) {
  TtgirToLlirOptions T;
  T.Check = O;
  T.Check.SmVersion = unsigned(M.Capability);
  T.Capability = unsigned(M.Capability);
  T.Interface = L.interface(M.Tensors);
  std::string Meta = L.file("metadata");
  if (!Meta.empty())
    T.LinkedLibdevice = linkedLibdevice(Meta);
  if (!O.Libdevice.empty())
    T.Libdevice = O.Libdevice;
  return T;
}

PairResult checkTtgirToLlir(Context &C, const bundle::Manifest &M,
                            const bundle::Launch &L, const CheckOptions &O) {
  std::string Ttgir = L.file("ttgir"), Llir = L.file("llir");
  if (Ttgir.empty() || Llir.empty())
    throw InputError({}, "kernel " + L.Kernel +
                             " lists no TTGIR or no LLVM IR file");
  TtgirToLlirOptions T = optionsForLaunch(M, L, O);
  // Counterexamples are first sought at the launch the bundle ran.
  for (auto [Symbol, Value] : launchConstants(C, L, *T.Interface)) {
    T.Check.Preferred.push_back({Symbol, Value});
    T.Launch.push_back({Symbol, Value});
  }
  T.Reach = reachOf(M, L);
  return checkTtgirToLlir(C, Ttgir, Llir, T);
}

} // namespace stagecheck::stages

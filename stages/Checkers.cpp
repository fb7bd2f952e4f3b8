// The checkers this build has, registered for audit().
#include "stages/FxToTtir.h"
#include "stages/Pipeline.h"
#include "stages/llir_to_ptx.h"
#include "stages/ttgir_to_llir.h"
#include "stages/ttir_to_ttgir.h"

#include "frontends/ttir/Lifter.h"
#include "ir/Errors.h"

#include <map>
#include <optional>
#include <unordered_map>

namespace stagecheck::stages {

std::unordered_map<const ir::Expr *, const ir::Expr *>
launchConstants(ir::Context &C, const bundle::Launch &L,
                const ir::KernelInterface &KI) {
  std::unordered_map<const ir::Expr *, const ir::Expr *> Values;
  unsigned K = 0;
  for (const bundle::LaunchArg &A : L.Args) {
    if (A.isConstexpr())
      continue;
    unsigned Position = K++;
    if (A.isPointer() || Position >= KI.Params.size())
      continue;
    ir::Type T = KI.Params[Position].Element;
    const ir::Expr *V = nullptr;
    if (A.Value.K == bundle::ScalarValue::Integer ||
        A.Value.K == bundle::ScalarValue::Bool)
      V = T.isFloat() ? C.floatConst(T, double(A.Value.I))
                      : C.intConst(T, A.Value.I);
    else if (A.Value.K == bundle::ScalarValue::Float && T.isFloat())
      V = C.floatConst(T, A.Value.F);
    if (V)
      Values[C.symbol(ir::paramName(Position), T, ir::SymbolRole::Param)] = V;
  }
  const char *Axes[] = {"x", "y", "z"};
  for (unsigned D = 0; D < 3; ++D)
    Values[C.symbol(std::string("nprog.") + Axes[D], ir::Type::i(32),
                    ir::SymbolRole::NumPrograms)] =
        C.intConst(ir::Type::i(32), int64_t(L.Grid[D]));
  return Values;
}

ParameterReach reachOf(const bundle::Manifest &M, const bundle::Launch &L) {
  std::map<std::string, int64_t> End; // storage -> one past its last element
  auto StorageOf = [&](const bundle::Tensor &T) {
    return T.AliasOf.value_or(T.Name);
  };
  for (const auto &[Name, T] : M.Tensors) {
    int64_t Last = T.Offset;
    bool Empty = false;
    for (size_t D = 0; D < T.Shape.size(); ++D) {
      Empty |= T.Shape[D] == 0;
      Last += (T.Shape[D] - 1) * T.Strides[D];
    }
    int64_t &E = End[StorageOf(T)];
    E = std::max(E, Empty ? T.Offset : Last + 1);
  }
  ParameterReach Reach;
  unsigned K = 0;
  for (const bundle::LaunchArg &A : L.Args) {
    if (A.isConstexpr())
      continue;
    unsigned Position = K++;
    auto T = M.Tensors.find(A.Tensor);
    if (!A.isPointer() || T == M.Tensors.end())
      continue;
    int64_t Base = T->second.Offset + A.ElementOffset;
    Reach[ir::paramName(Position)] = {-Base, End[StorageOf(T->second)] - Base};
  }
  return Reach;
}

namespace {

PairResult ttirToTtgir(ir::Context &C, const bundle::Manifest &M,
                       const bundle::Launch *L, const CheckOptions &O) {
  std::string Source = L->file("ttir"), Target = L->file("ttgir");
  if (Source.empty() || Target.empty())
    throw ir::InputError({}, "kernel " + L->Kernel +
                                 " lists no TTIR or no TTGIR file");
  // Counterexamples are first sought at the launch the bundle ran.
  CheckOptions AtLaunch = O;
  for (auto [Symbol, Value] : launchConstants(C, *L, L->interface(M.Tensors)))
    AtLaunch.Preferred.push_back({Symbol, Value});
  return checkTtirToTtgir(C, Source, Target, AtLaunch, reachOf(M, *L));
}

/// The trip count of every loop of M under the given constants, found
/// round by round (nested loops show up once their outer loop runs).
/// Returns nothing when some loop's count is not fixed by them.
std::optional<std::map<ttir::LoopKey, uint64_t>> assignTripCounts(
    ir::Context &C, const ttir::Module &M, ttir::LiftOptions O,
    const std::unordered_map<const ir::Expr *, const ir::Expr *> &Constants) {
  for (unsigned Round = 0; Round < 16; ++Round) {
    ttir::LiftResult R = ttir::liftKernel(C, M, O);
    if (R.UnassignedLoops.empty())
      return O.TripCounts;
    for (const auto &[Key, From] : R.UnassignedLoops) {
      std::optional<uint64_t> Trips;
      for (uint64_t N = 0; N <= O.MaxUnroll && !Trips; ++N) {
        const ir::Expr *Case =
            ir::substitute(C, ttir::tripCountCase(C, Key, N), Constants);
        if (!Case->isConst())
          return std::nullopt;
        if (Case->isTrue())
          Trips = N;
      }
      if (!Trips)
        throw ir::UnsupportedError(From.Loc,
                                   "loop of more than " +
                                       std::to_string(O.MaxUnroll) +
                                       " iterations (" + From.Op + ")");
      O.TripCounts[Key] = *Trips;
    }
  }
  throw ir::UnsupportedError({}, "loops nested too deeply");
}

/// Effects E restricted to the launch instances where Member holds.
void appendRestricted(ir::Context &C, ir::Effects &All, ir::Effects E,
                      const ir::Expr *Member) {
  for (const ir::Buffer &B : E.Buffers)
    if (!All.buffer(B.Name))
      All.Buffers.push_back(B);
  for (ir::Write &W : E.Writes) {
    W.Guard = C.andOf(W.Guard, Member);
    All.Writes.push_back(std::move(W));
  }
  for (ir::Atomic &A : E.Atomics) {
    A.Guard = C.andOf(A.Guard, Member);
    All.Atomics.push_back(std::move(A));
  }
  for (ir::UndefinedBehavior &U : E.Undefined) {
    U.Condition = C.andOf(U.Condition, Member);
    All.Undefined.push_back(std::move(U));
  }
}

/// A launch's TTIR kernel lifted for FX <-> TTIR: loops whose bounds are
/// the launch's scalar arguments run the trip count those values give, so
/// the effects describe this launch exactly (no bound is assumed). Loops
/// whose bounds depend on the program id (a persistent kernel striding
/// over rows) are lifted once per group of programs that run them alike.
ir::Effects liftTtirForLaunch(ir::Context &C, const bundle::Launch &L,
                              const ir::KernelInterface &KI) {
  std::string Path = L.file("ttir");
  if (Path.empty())
    throw ir::InputError({}, "kernel " + L.Kernel + " lists no TTIR file");
  ttir::Module M = ttir::parseModuleFile(Path);
  ttir::LiftOptions O;
  O.Loops = ttir::LiftOptions::LoopMode::Cases;
  auto Constants = launchConstants(C, L, KI);
  if (auto Trips = assignTripCounts(C, M, O, Constants)) {
    O.TripCounts = *Trips;
    return std::move(ttir::liftKernel(C, M, O).Effects);
  }
  uint64_t Programs = L.Grid[0] * L.Grid[1] * L.Grid[2];
  if (Programs > 4096)
    throw ir::UnsupportedError(
        {}, "loops of " + L.Kernel + " whose trip counts vary over " +
                std::to_string(Programs) + " programs");
  ir::Type I32 = ir::Type::i(32);
  const char *Axes[] = {"x", "y", "z"};
  std::map<std::map<ttir::LoopKey, uint64_t>, const ir::Expr *> Groups;
  for (uint64_t P = 0; P < Programs; ++P) {
    uint64_t Id[3] = {P % L.Grid[0], (P / L.Grid[0]) % L.Grid[1],
                      P / (L.Grid[0] * L.Grid[1])};
    auto At = Constants;
    const ir::Expr *Here = C.trueExpr();
    for (unsigned D = 0; D < 3; ++D) {
      const ir::Expr *Pid = C.symbol(std::string("pid.") + Axes[D], I32,
                                     ir::SymbolRole::ProgramId);
      const ir::Expr *V = C.intConst(I32, int64_t(Id[D]));
      At[Pid] = V;
      Here = C.andOf(Here, C.eq(Pid, V));
    }
    auto Trips = assignTripCounts(C, M, O, At);
    if (!Trips)
      throw ir::UnsupportedError(
          {}, "loop of " + L.Kernel +
                  " whose trip count is not fixed by the launch (it depends "
                  "on data)");
    const ir::Expr *&Member = Groups[*Trips];
    Member = Member ? C.orOf(Member, Here) : Here;
  }
  ir::Effects All;
  for (const auto &[Trips, Member] : Groups) {
    O.TripCounts = Trips;
    appendRestricted(C, All, std::move(ttir::liftKernel(C, M, O).Effects),
                     Member);
  }
  return All;
}

PairResult llirToPtx(ir::Context &C, const bundle::Manifest &M,
                     const bundle::Launch *L, const CheckOptions &O) {
  std::string Source = L->file("llir"), Target = L->file("ptx");
  if (Source.empty() || Target.empty())
    throw ir::InputError({}, "kernel " + L->Kernel +
                                 " lists no LLVM IR or no PTX file");
  LlirToPtxOptions P;
  P.Check = O;
  P.Check.SmVersion = unsigned(M.Capability);
  std::string Meta = L->file("metadata");
  if (!Meta.empty())
    P.FpFusion = bundle::readKernelMetadata(Meta).FpFusion;
  return checkLlirToPtx(C, Source, Target, L->interface(M.Tensors), P);
}

} // namespace

void registerBuiltinCheckers() {
  static bool Done = false;
  if (Done)
    return;
  Done = true;
  registerFxToTtirChecker(liftTtirForLaunch);
  registerChecker({Stage::TTIR, Stage::TTGIR}, ttirToTtgir, "ttir-ttgir-12");
  registerChecker(
      {Stage::TTGIR, Stage::LLIR},
      [](ir::Context &C, const bundle::Manifest &M, const bundle::Launch *L,
         const CheckOptions &O) { return checkTtgirToLlir(C, M, *L, O); },
      "ttgir-llir-17");
  registerChecker({Stage::LLIR, Stage::PTX}, llirToPtx, "llir-ptx-12");
}

} // namespace stagecheck::stages

#include "stages/FxToTtir.h"

#include "ir/Functions.h"
#include "stages/RealNormalForm.h"

#include "frontends/fx/Graph.h"
#include "ir/Errors.h"
#include "ir/Interpreter.h"
#include "ir/Text.h"
#include "smt/Evaluate.h"
#include "stages/Assumed.h"
#include "stages/ConstantChoices.h"
#include "stages/SplitDefinedness.h"
#include "stages/Falsify.h"
#include "stages/Libdevice.h"
#include "stages/Pipeline.h"
#include "stages/ttgir_to_llir.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

//===----------------------------------------------------------------------===//
// Buffers and the reference
//===----------------------------------------------------------------------===//

std::map<std::string, std::string> bufferNames(const bundle::Manifest &M) {
  // Union the alias groups, then name each group.
  std::map<std::string, std::string> Parent;
  std::function<std::string(const std::string &)> Find =
      [&](const std::string &N) -> std::string {
    auto It = Parent.find(N);
    if (It == Parent.end() || It->second == N)
      return N;
    return It->second = Find(It->second);
  };
  for (const auto &[Name, T] : M.Tensors) {
    Parent.emplace(Name, Name);
    if (T.AliasOf && M.Tensors.count(*T.AliasOf))
      Parent[Find(Name)] = Find(*T.AliasOf);
  }
  auto Rank = [&](const std::string &N) {
    const std::string &R = M.Tensors.at(N).Role;
    return R == "output" ? 0 : R == "input" ? 1 : R == "param" ? 2 : 3;
  };
  std::map<std::string, std::string> GroupName;
  for (const auto &[Name, T] : M.Tensors) {
    std::string Root = Find(Name);
    auto It = GroupName.find(Root);
    if (It == GroupName.end() || Rank(Name) < Rank(It->second))
      GroupName[Root] = Name;
  }
  std::map<std::string, std::string> Out;
  for (const auto &[Name, T] : M.Tensors)
    Out[Name] = GroupName[Find(Name)];
  return Out;
}

namespace {

/// Testing trials before the solver asks whether a kernel is undefined
/// where the reference is defined (every pattern of InputGenerator four
/// times over).
constexpr unsigned KernelDefinedTrials = 64;

fx::DType dtypeOf(const bundle::Tensor &T, const std::string &Where) {
  fx::DType D;
  if (!fx::parseDTypeAbbreviation(T.DType == "bool" ? "b8" : T.DType, D))
    throw InputError({Where, 0, 0}, "tensor " + T.Name + " has dtype " +
                                        T.DType +
                                        ", unknown to the FX frontend");
  return D;
}

fx::TensorBinding binding(const bundle::Manifest &M,
                          const std::map<std::string, std::string> &Buffers,
                          const std::string &Tensor) {
  auto It = M.Tensors.find(Tensor);
  if (It == M.Tensors.end())
    throw InputError({M.Path, 0, 0}, "the reference names tensor '" + Tensor +
                                         "', which the manifest lacks");
  const bundle::Tensor &T = It->second;
  return {Buffers.at(Tensor), dtypeOf(T, M.Path), T.Shape, T.Strides, T.Offset};
}

std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw InputError({Path, 0, 0}, "cannot read the reference graph");
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

} // namespace

fx::LiftedGraph liftReference(Context &C, const bundle::Manifest &M) {
  std::map<std::string, std::string> Buffers = bufferNames(M);
  fx::Graph G = fx::parseGraph(slurp(M.Ref.Graph), M.Ref.Graph);
  fx::LiftOptions O;
  for (const auto &[Placeholder, Tensor] : M.Ref.Inputs)
    O.Inputs[Placeholder] = binding(M, Buffers, Tensor);
  for (const std::string &Out : M.Ref.Outputs)
    O.Outputs.push_back(binding(M, Buffers, Out));
  for (const auto &[Name, V] : M.Ref.Params)
    if (V.K == bundle::ScalarValue::Float ||
        V.K == bundle::ScalarValue::Integer)
      O.Params.push_back({Name,
                          V.K == bundle::ScalarValue::Float ? V.F : double(V.I),
                          V.K == bundle::ScalarValue::Integer});
  return fx::liftGraph(C, G, O);
}

void toleranceFor(const FxToTtirOptions &O, Type D, double &Rtol,
                  double &Atol) {
  double Ulp =
      D.isFloat() ? std::ldexp(1.0, -int(floatFormat(D).MantissaBits)) : 0.0;
  Rtol = O.Rtol > 0 ? O.Rtol : 4 * Ulp;
  Atol = O.Atol > 0 ? O.Atol : 4 * Ulp;
}

//===----------------------------------------------------------------------===//
// The checker
//===----------------------------------------------------------------------===//

namespace {

/// Whether the reals give A and B a meaning: no infinite or NaN constant
/// and no bitcast of a float (what the real encoding refuses). Flat sums
/// that reorder or cancel such a node would claim what the reals cannot
/// say: x * 1e30 compared with inf in nan_to_num is for IEEE arithmetic to
/// decide. (The polynomial comparison, beyond linear sides, does not ask
/// this: logsumexp's guard `|m| == inf ? 0 : m`, the same on both sides, is
/// one of its atoms.)
bool meaningfulOverTheReals(const Expr *A, const Expr *B) {
  const Expr *Roots[] = {A, B};
  for (const Expr *N : postOrder(Roots)) {
    if (N->isConst() && N->type().isFloat()) {
      Value V = Value::ofBits(N->type(), N->constBits());
      if (!std::isfinite(V.asDouble()))
        return false;
    }
    if (N->op() == Op::Bitcast &&
        (N->type().isFloat() || N->operand(0)->type().isFloat()))
      return false;
  }
  return true;
}

/// Rebuilds E bottom-up; Hook may replace a node given its new operands.
/// Kept, when given, is a memo kept between calls: what it holds is not
/// rebuilt again.
using Hook = std::function<const Expr *(const Expr *Original,
                                        const std::vector<const Expr *> &Ops)>;

const Expr *rewrite(Context &C, const Expr *Root, const Hook &H,
                    std::unordered_map<const Expr *, const Expr *> *Kept = nullptr) {
  std::unordered_map<const Expr *, const Expr *> Local;
  std::unordered_map<const Expr *, const Expr *> &Memo = Kept ? *Kept : Local;
  // Post-order, stopping at nodes a kept memo already holds.
  std::vector<const Expr *> Work = {Root};
  std::vector<const Expr *> Ops;
  while (!Work.empty()) {
    const Expr *E = Work.back();
    if (Memo.count(E)) {
      Work.pop_back();
      continue;
    }
    // Operands pushed last to first, so that they are rebuilt first to
    // last: a hook that names what it makes names it in the order met.
    bool Ready = true;
    Ops.resize(E->numOperands());
    for (size_t K = E->numOperands(); K-- > 0;) {
      auto It = Memo.find(E->operand(K));
      if (It == Memo.end()) {
        Work.push_back(E->operand(K));
        Ready = false;
      } else {
        Ops[K] = It->second;
      }
    }
    if (!Ready)
      continue;
    Work.pop_back();
    bool Same = true;
    for (size_t K = 0; K < Ops.size(); ++K)
      Same &= Ops[K] == E->operand(K);
    const Expr *R = H ? H(E, Ops) : nullptr;
    Memo.emplace(E, R ? R : Same ? E : C.withOperands(E, Ops));
  }
  return Memo.at(Root);
}

std::string describeIndex(uint64_t I) { return "[" + std::to_string(I) + "]"; }

/// One value a step left in memory.
struct ElementWrite {
  const Expr *Value;
  Origin From;
  std::string Step;
};

/// Why the candidate fails before any value is compared.
struct Violation {
  std::string Query, Buffer, Explanation;
  std::optional<uint64_t> Index;
  Origin From;
};

class Unsupported : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class FxToTtirCheck {
public:
  FxToTtirCheck(Context &C, const bundle::Manifest &M, const KernelLifter &L,
                const FxToTtirOptions &O)
      : C(C), M(M), Lift(L), Options(O) {}

  PairResult run() {
    auto Start = std::chrono::steady_clock::now();
    Result.Arithmetic = Options.Check.Arithmetic;
    try {
      Buffers = bufferNames(M);
      Ref = liftReference(C, M);
      bindParameters();
      declareBuffers();
      if (composeCandidate() && checkCoverage() && checkKernelDefined() &&
          checkDataDependentLoads())
        checkValues();
    } catch (const UnsupportedError &E) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = E.what();
    } catch (const Unsupported &E) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = E.what();
    } catch (const InputError &E) {
      Result.Kind = Verdict::Error;
      Result.Reason = E.what();
    } catch (const IRError &E) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = E.what();
    }
    Result.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    return Result;
  }

private:
  Context &C;
  const bundle::Manifest &M;
  const KernelLifter &Lift;
  const FxToTtirOptions &Options;
  PairResult Result;
  std::map<std::string, std::string> Buffers;
  fx::LiftedGraph Ref;
  /// A parameter's symbol, or its captured value for a specialized program.
  std::map<std::string, const Expr *> ParamValue;
  std::map<std::string, uint64_t> Extent;
  std::set<std::string> DefinedAtStart; // buffers holding inputs or params
  std::map<std::string, std::map<uint64_t, std::vector<ElementWrite>>> Memory;
  /// The kernels' undefined-behaviour conditions that depend on the data
  /// (a division by an element of a tensor), one per instance, in terms of
  /// the program's inputs.
  struct DataUndefined {
    const Expr *Condition;
    std::string Kernel, Reason;
    Origin From;
  };
  std::vector<DataUndefined> KernelUndefined;
  /// Loads whose address depends on the data (an embedding's row), read
  /// symbolically from an input no step wrote; each must lie inside its
  /// tensor wherever the reference and the kernels are defined.
  struct DataDependentLoad {
    std::string Buffer, Tensor;
    const Expr *Index; // i64, absolute in the buffer
    Origin From;
  };
  std::vector<DataDependentLoad> DataDependentLoads;
  bool ValuesWithinTolerance = false;
  /// Element classes (reference, kernel) whose two values are one
  /// polynomial: the same sums and products in another order. Where such a
  /// value overflows depends on that order, which the pair's contract
  /// leaves free (a product with a zero and two large factors is 0 when
  /// the zero comes first and NaN when the large ones meet first), so the
  /// range question is not asked of them.
  std::set<std::pair<const Expr *, const Expr *>> Reordered;
  RealNormalForm Normal{C}; // extrema as AC operations, for real queries
  /// The same for the operands of the rounding-error model.
  RealNormalForm RoundingNormal{C, RealNormalForm::Purpose::RoundingModel};
  Env RealModel;         // the last model that separated ref and cand exactly
  std::string StepLabel; // "step 2 (kernel)": the step being composed
  std::map<const Expr *, const Expr *> RoundedValues;
  uint64_t FalsifyCalls = 0; // seeds falsifyFinite's streams

  bool specialized() const { return M.Ref.GraphKind.rfind("inductor", 0) == 0; }

  /// Parameters are free symbols, except in a program compiled for (and
  /// guarded on) their captured values.
  void bindParameters() {
    std::unordered_map<const Expr *, const Expr *> Pin;
    for (const fx::LiftedParam &P : Ref.Params) {
      const Expr *V = P.Symbol;
      if (specialized())
        V = P.Symbol->type().isFloat()
                ? C.floatConst(P.Symbol->type(), P.Value)
                : C.intConst(P.Symbol->type(), int64_t(P.Value));
      ParamValue[P.Name] = V;
      Pin[P.Symbol] = V;
    }
    if (!specialized() || Pin.empty())
      return;
    for (Write &W : Ref.Effects.Writes)
      W.Value = substitute(C, W.Value, Pin);
    for (UndefinedBehavior &U : Ref.Effects.Undefined)
      U.Condition = substitute(C, U.Condition, Pin);
    Result.Relaxations.push_back(
        "parameters fixed at their captured values (the compiled program is "
        "specialized on them)");
  }

  void declareBuffers() {
    for (const auto &[Name, T] : M.Tensors) {
      const std::string &B = Buffers.at(Name);
      uint64_t End = uint64_t(T.Offset);
      bool Empty = false;
      for (size_t D = 0; D < T.Shape.size(); ++D) {
        if (T.Shape[D] == 0)
          Empty = true;
        End += uint64_t((T.Shape[D] - 1) * T.Strides[D]);
      }
      Extent[B] = std::max(Extent[B], Empty ? uint64_t(T.Offset) : End + 1);
      if (T.Role == "input" || T.Role == "param")
        DefinedAtStart.insert(B);
    }
  }

  //===-- The candidate's memory ------------------------------------------===//

  void fail(const Violation &V) {
    Result.Queries.push_back(
        {V.Query, smt::Outcome::Counterexample, "", 0, ""});
    Result.Kind = Verdict::Counterexample;
    Counterexample X;
    X.Query = V.Query;
    X.Buffer = V.Buffer;
    X.Explanation = V.Explanation;
    // Where the sides part structurally, the explanation names the element;
    // values are shown only where one side has one (an unwritten output).
    if (V.Query == "output elements written")
      X.Index = V.Index;
    else if (V.From.Loc.known())
      X.Explanation += " (" + V.From.Op + " at " + V.From.Loc.str() + ")";
    X.TargetOrigin = V.From;
    Result.Cex = std::move(X);
  }

  /// A load the candidate makes of buffer B at element I (absolute).
  const Expr *load(
      const std::string &B, Type T, int64_t I, const Origin &From,
      const std::string &Tensor,
      const std::map<std::string, std::map<uint64_t, std::vector<ElementWrite>>>
          &Before,
      std::optional<Violation> &Bad) {
    if (I < 0 || uint64_t(I) >= Extent[B]) {
      if (!Bad)
        Bad = Violation{"candidate memory", B,
                        "out-of-bounds load: " + Tensor +
                            describeIndex(uint64_t(I)) + " lies outside " + B +
                            " (" + std::to_string(Extent[B]) + " elements)",
                        uint64_t(I), From};
      return C.read(B, T, C.intConst(Type::i(64), I));
    }
    auto It = Before.find(B);
    if (It != Before.end()) {
      auto W = It->second.find(uint64_t(I));
      if (W != It->second.end())
        return W->second.back().Value;
    }
    if (!DefinedAtStart.count(B) && !Bad)
      Bad = Violation{"candidate memory", B,
                      "load of " + B + describeIndex(uint64_t(I)) +
                          ", which nothing wrote before",
                      uint64_t(I), From};
    return C.read(B, T, C.intConst(Type::i(64), I));
  }

  struct Pointer {
    std::string Buffer, Tensor;
    int64_t Base;
  };

  bool composeCandidate() {
    size_t StepNo = 0;
    for (const bundle::Step &S : M.Steps) {
      ++StepNo;
      std::map<std::string, std::map<uint64_t, std::vector<ElementWrite>>> New;
      std::optional<Violation> Bad;
      StepLabel = "step " + std::to_string(StepNo) + " (" +
                  (S.launch() ? S.launch()->Kernel : S.externCall()->Op) + ")";
      if (const bundle::Launch *L = S.launch())
        runLaunch(*L, New, Bad);
      else
        runExtern(*S.externCall(), New, Bad);
      if (Bad) {
        fail(*Bad);
        return false;
      }
      for (auto &[B, Elements] : New)
        for (auto &[I, Ws] : Elements)
          for (ElementWrite &W : Ws)
            Memory[B][I].push_back(W);
    }
    Result.Queries.push_back({"candidate memory", smt::Outcome::Proved,
                              "every access inside its tensor", 0, ""});
    return true;
  }

  void runLaunch(
      const bundle::Launch &L,
      std::map<std::string, std::map<uint64_t, std::vector<ElementWrite>>> &New,
      std::optional<Violation> &Bad) {
    KernelInterface KI = L.interface(M.Tensors);
    Effects E = Lift(C, L, KI);
    if (!E.Atomics.empty())
      throw Unsupported("unsupported: atomics in kernel " + L.Kernel);
    // Kernel parameters: pointers into tensors, scalars with their values.
    std::map<std::string, Pointer> Pointers;
    std::map<std::string, const Expr *> Scalars;
    size_t K = 0;
    for (const bundle::LaunchArg &A : L.Args) {
      if (A.isConstexpr())
        continue;
      std::string Name = paramName(unsigned(K));
      Type T = K < KI.Params.size() ? KI.Params[K].Element : Type::f32();
      ++K;
      if (A.isPointer()) {
        if (A.Tensor.empty())
          throw Unsupported("unsupported: kernel " + L.Kernel + " argument " +
                            A.Name + " points into memory no tensor owns");
        const bundle::Tensor &Tn = M.Tensors.at(A.Tensor);
        Pointers[Name] = {Buffers.at(A.Tensor), A.Tensor,
                          Tn.Offset + A.ElementOffset};
        continue;
      }
      Scalars[Name] = scalarArgument(A, T);
    }
    // The grid: program ids are enumerated, the grid size is a constant.
    const char *Axes[] = {"x", "y", "z"};
    std::map<std::string, uint64_t> ProgramExtent;
    for (int D = 0; D < 3; ++D) {
      ProgramExtent[std::string("pid.") + Axes[D]] = L.Grid[size_t(D)];
      Scalars[std::string("nprog.") + Axes[D]] =
          C.intConst(Type::i(32), int64_t(L.Grid[size_t(D)]));
    }
    for (const Write &W : E.Writes) {
      std::vector<BoundVariable> Vars = instanceVariables(
          W.Bound, {W.Guard, W.Index, W.Value, W.Defined}, ProgramExtent);
      FamilyResolver Resolve(*this, Vars, Scalars, Pointers, W.From, Bad);
      enumerate(Vars, [&](const std::unordered_map<const Expr *, const Expr *>
                              &At) {
        const Expr *G = Resolve(W.Guard, At);
        if (!G->isConst())
          throw Unsupported("unsupported: data-dependent store mask in " +
                            L.Kernel + " (" + W.From.Loc.str() + ")");
        if (!G->isTrue())
          return;
        const Expr *I = Resolve(W.Index, At);
        if (!I->isConst())
          throw Unsupported("unsupported: data-dependent store address in " +
                            L.Kernel + " (" + W.From.Loc.str() + ")");
        auto P = Pointers.find(W.Buffer);
        if (P == Pointers.end())
          return; // shared memory and scratch of the kernel's own
        int64_t Abs = P->second.Base + int64_t(I->constBits());
        if (Abs < 0 || uint64_t(Abs) >= Extent[P->second.Buffer]) {
          if (!Bad)
            Bad = Violation{
                "candidate memory", P->second.Buffer,
                "out-of-bounds store: " + L.Kernel + " writes " +
                    P->second.Tensor + describeIndex(uint64_t(Abs)) +
                    ", outside the tensor's " +
                    std::to_string(Extent[P->second.Buffer]) + " elements",
                uint64_t(Abs), W.From};
          return;
        }
        const Expr *V = Resolve(W.Value, At);
        New[P->second.Buffer][uint64_t(Abs)].push_back({V, W.From, StepLabel});
        // A value that is not defined (poison, a byte no bool holds) is
        // the kernel's undefinedness where it is stored.
        const Expr *D = Resolve(W.Defined, At);
        if (holdsForEveryConstantChoice(C, D)) // an arg-max's index cast
          D = C.trueExpr();
        std::string Reason = "it stores a value that is not defined to " +
                             P->second.Tensor + describeIndex(uint64_t(Abs));
        if (D->isFalse() && !Bad)
          Bad = Violation{"candidate memory", P->second.Buffer,
                          "kernel " + L.Kernel + " is undefined: " + Reason,
                          uint64_t(Abs), W.From};
        else if (!D->isConst())
          KernelUndefined.push_back({C.notOf(D), L.Kernel, Reason, W.From});
      });
    }
    for (const UndefinedBehavior &U : E.Undefined) {
      std::vector<BoundVariable> Vars =
          instanceVariables(U.Bound, {U.Condition}, ProgramExtent);
      enumerate(
          Vars, [&](const std::unordered_map<const Expr *, const Expr *> &At) {
            const Expr *Cond =
                resolve(U.Condition, At, Scalars, Pointers, U.From, Bad);
            if (Cond->isTrue() && !Bad)
              Bad =
                  Violation{"candidate memory", "",
                            "kernel " + L.Kernel + " is undefined: " + U.Reason,
                            std::nullopt, U.From};
            else if (!Cond->isConst())
              KernelUndefined.push_back({Cond, L.Kernel, U.Reason, U.From});
          });
    }
  }

  const Expr *scalarArgument(const bundle::LaunchArg &A, Type T) {
    auto P = ParamValue.find(A.Name);
    if (P != ParamValue.end()) { // the model's parameter, passed through
      const Expr *V = P->second;
      if (T.isFloat())
        return V->type().isFloat() ? C.cast(Op::FPCast, V, T)
                                   : C.cast(Op::SIToFP, V, T);
      return V->type().isFloat()
                 ? C.cast(Op::FPToSI, V, T, RoundingMode::TowardZero)
                 : C.sextOrTrunc(V, T);
    }
    switch (A.Value.K) {
    case bundle::ScalarValue::Integer:
    case bundle::ScalarValue::Bool:
      return T.isFloat() ? C.floatConst(T, double(A.Value.I))
                         : C.intConst(T, A.Value.I);
    case bundle::ScalarValue::Float:
      return T.isFloat() ? C.floatConst(T, A.Value.F)
                         : C.intConst(T, int64_t(A.Value.F));
    default:
      throw Unsupported("unsupported: scalar argument " + A.Name + " = " +
                        A.Value.str());
    }
  }

  /// The variables an instance fixes: the family's own, and the program ids
  /// the expressions use.
  std::vector<BoundVariable>
  instanceVariables(const std::vector<BoundVariable> &Family,
                    std::vector<const Expr *> Roots,
                    const std::map<std::string, uint64_t> &ProgramExtent) {
    std::vector<BoundVariable> Vars = Family;
    std::set<std::string> Seen;
    for (const Expr *E : postOrder(Roots))
      if (E->op() == Op::Symbol && ProgramExtent.count(E->name()) &&
          Seen.insert(E->name()).second)
        Vars.push_back({E, ProgramExtent.at(E->name())});
    return Vars;
  }

  void
  enumerate(const std::vector<BoundVariable> &Vars,
            const std::function<void(
                const std::unordered_map<const Expr *, const Expr *> &)> &F) {
    if (!forEachInstance(C, Vars, Options.MaxInstances, F))
      throw Unsupported("unsupported: more than " +
                        std::to_string(Options.MaxInstances) +
                        " instances of a kernel store");
  }

  /// resolve() for the instances of one family, remembered between them:
  /// what a node becomes depends only on the variables below it, so it is
  /// worked out once per assignment of those (a row's reduction once per
  /// row, not once per element of the row), and the loads of a node with
  /// every variable fixed are mapped once. Families of more than 64
  /// variables go through resolve() as they are.
  class FamilyResolver {
  public:
    FamilyResolver(FxToTtirCheck &Check, const std::vector<BoundVariable> &Vars,
                   const std::map<std::string, const Expr *> &Scalars,
                   const std::map<std::string, Pointer> &Pointers,
                   const Origin &From, std::optional<Violation> &Bad)
        : Check(Check), C(Check.C), Vars(Vars), Scalars(Scalars),
          Pointers(Pointers), From(From), Bad(Bad),
          Substituted(
              Check.C, Vars,
              [&Scalars](const Expr *Symbol) {
                auto S = Scalars.find(Symbol->name());
                return S == Scalars.end() ? nullptr : S->second;
              },
              InstanceSubstitution::Order::LastOperandFirst) {}

    const Expr *operator()(
        const Expr *E, const std::unordered_map<const Expr *, const Expr *> &At) {
      if (Vars.size() > 64)
        return Check.resolve(E, At, Scalars, Pointers, From, Bad);
      // Anything but an instance goes through resolve(): Substituted would
      // leave the scalars in.
      for (const BoundVariable &V : Vars) {
        auto It = At.find(V.Symbol);
        if (It == At.end() || !It->second->isConst() ||
            It->second->constBits() >= V.Extent)
          return Check.resolve(E, At, Scalars, Pointers, From, Bad);
      }
      return mapped(Substituted(E, At));
    }

  private:
    /// The loads of a node with every variable fixed, mapped into memory as
    /// resolve()'s second step, remembered between instances.
    const Expr *mapped(const Expr *Root) {
      return rewrite(
          C, Root,
          [&](const Expr *N, const std::vector<const Expr *> &Ops) {
            return Check.loaded(N, Ops, Pointers, From, Bad);
          },
          &Mapped);
    }

    FxToTtirCheck &Check;
    Context &C;
    const std::vector<BoundVariable> &Vars;
    const std::map<std::string, const Expr *> &Scalars;
    const std::map<std::string, Pointer> &Pointers;
    const Origin &From;
    std::optional<Violation> &Bad;
    /// The variables fixed and the scalars put in, as resolve()'s first
    /// step, remembered between instances.
    InstanceSubstitution Substituted;
    std::unordered_map<const Expr *, const Expr *> Mapped;
  };

  /// A kernel load (a read through a pointer parameter) with its operands
  /// resolved to Ops, mapped into its tensor's buffer; null for any other
  /// node.
  const Expr *loaded(const Expr *N, const std::vector<const Expr *> &Ops,
                     const std::map<std::string, Pointer> &Pointers,
                     const Origin &From, std::optional<Violation> &Bad) {
    if (N->op() != Op::Read)
      return nullptr;
    auto P = Pointers.find(N->name());
    if (P == Pointers.end())
      return nullptr;
    if (!Ops[0]->isConst()) {
      const std::string &B = P->second.Buffer;
      if (!DefinedAtStart.count(B) || Memory.count(B))
        throw Unsupported("unsupported: data-dependent load address into " +
                          P->second.Tensor + ", which an earlier step wrote (" +
                          From.Loc.str() + ")");
      const Expr *Abs =
          C.add(C.intConst(Type::i(64), P->second.Base),
                C.sextOrTrunc(Ops[0], Type::i(64)));
      DataDependentLoads.push_back({B, P->second.Tensor, Abs, From});
      return C.read(B, N->type(), Abs);
    }
    int64_t Abs = P->second.Base + int64_t(Ops[0]->constBits());
    return load(P->second.Buffer, N->type(), Abs, From, P->second.Tensor,
                Memory, Bad);
  }

  /// An expression of the kernel at one instance: variables fixed, scalar
  /// parameters replaced, loads mapped into the tensors' buffers.
  const Expr *resolve(const Expr *E,
                      const std::unordered_map<const Expr *, const Expr *> &At,
                      const std::map<std::string, const Expr *> &Scalars,
                      const std::map<std::string, Pointer> &Pointers,
                      const Origin &From, std::optional<Violation> &Bad) {
    // First fix the variables, so that masks fold and the loads they
    // disable disappear; then map the loads that remain.
    const Expr *Fixed = rewrite(
        C, E,
        [&](const Expr *N, const std::vector<const Expr *> &) -> const Expr * {
          if (N->op() != Op::Symbol)
            return nullptr;
          auto V = At.find(N);
          if (V != At.end())
            return V->second;
          auto S = Scalars.find(N->name());
          return S != Scalars.end() ? S->second : nullptr;
        });
    return rewrite(C, Fixed,
                   [&](const Expr *N, const std::vector<const Expr *> &Ops) {
                     return loaded(N, Ops, Pointers, From, Bad);
                   });
  }

  void runExtern(
      const bundle::Extern &X,
      std::map<std::string, std::map<uint64_t, std::vector<ElementWrite>>> &New,
      std::optional<Violation> &Bad) {
    fx::Node N;
    N.K = fx::Node::Kind::Call;
    N.Target = X.Overload.empty() ? X.Op : X.Overload;
    N.Loc = {M.Path, 0, 0};
    // Tensor inputs fill the positions the scalar arguments leave.
    std::map<int, fx::Argument> Positional;
    for (const auto &[Index, V] : X.Positional)
      Positional[Index] = scalarArgument(V);
    std::map<std::string, fx::Tensor> Inputs;
    size_t Next = 0;
    for (size_t I = 0; I < X.Inputs.size(); ++I) {
      while (Positional.count(int(Next)))
        ++Next;
      std::string Name = "in" + std::to_string(I);
      fx::Argument A;
      A.K = fx::Argument::Kind::NodeRef;
      A.Text = Name;
      Positional[int(Next++)] = A;
      Inputs[Name] = memoryTensor(X, I, Bad);
    }
    for (const auto &[Index, A] : Positional)
      N.Args.push_back(A);
    for (const auto &[Key, V] : X.Keywords)
      N.Kwargs.push_back({Key, scalarArgument(V)});
    std::vector<fx::Tensor> Results = fx::applyOp(C, N, Inputs);
    if (Results.size() != X.Outputs.size())
      throw Unsupported("unsupported: extern " + X.Op + " returns " +
                        std::to_string(Results.size()) + " tensors, the step " +
                        std::to_string(X.Outputs.size()));
    for (size_t K = 0; K < Results.size(); ++K) {
      const bundle::Tensor &T = M.Tensors.at(X.Outputs[K]);
      if (Results[K].shape() != T.Shape)
        throw Unsupported("unsupported: extern " + X.Op +
                          " result shape differs from tensor " + T.Name);
      fx::TensorBinding B = binding(M, Buffers, T.Name);
      Origin From{"extern " + X.Op, {M.Path, 0, 0}};
      forEachElement(T.Shape, [&](const fx::Index &I) {
        uint64_t Abs = B.linearIndex(C, I)->constBits();
        New[B.Buffer][Abs].push_back({Results[K].at(I), From, StepLabel});
      });
    }
  }

  fx::Argument scalarArgument(const bundle::ScalarValue &V) {
    fx::Argument A;
    switch (V.K) {
    case bundle::ScalarValue::Integer:
      A.K = fx::Argument::Kind::Int;
      A.I = V.I;
      break;
    case bundle::ScalarValue::Float:
      A.K = fx::Argument::Kind::Float;
      A.F = V.F;
      A.Text = std::to_string(V.F);
      break;
    case bundle::ScalarValue::Bool:
      A.K = fx::Argument::Kind::Bool;
      A.B = V.I != 0;
      break;
    case bundle::ScalarValue::Null:
      A.K = fx::Argument::Kind::None;
      break;
    case bundle::ScalarValue::Text:
      A.K = fx::Argument::Kind::String;
      A.Text = V.S;
      break;
    }
    return A;
  }

  /// Input I of an extern step as a tensor over the memory before the step,
  /// through the view that was passed.
  fx::Tensor memoryTensor(const bundle::Extern &X, size_t I,
                          std::optional<Violation> &Bad) {
    const bundle::Tensor &T = M.Tensors.at(X.Inputs[I]);
    fx::TensorBinding B = binding(M, Buffers, T.Name);
    auto V = X.InputViews.find(I);
    if (V != X.InputViews.end()) {
      B.Sizes = V->second.Shape;
      B.Strides = V->second.Strides;
      B.Offset = T.Offset + V->second.ElementOffset;
    }
    Type Elem = fx::irType(B.Dt);
    Origin From{"extern " + X.Op, {M.Path, 0, 0}};
    return fx::Tensor(B.Dt, B.Sizes,
                      [this, B, Elem, From, &Bad](const fx::Index &Ix) {
                        return load(B.Buffer, Elem,
                                    int64_t(B.linearIndex(C, Ix)->constBits()),
                                    From, B.Buffer, Memory, Bad);
                      });
  }

  void forEachElement(const fx::Shape &S,
                      const std::function<void(const fx::Index &)> &F) {
    if (uint64_t(fx::numElements(S)) > Options.MaxInstances)
      throw Unsupported("unsupported: a tensor of more than " +
                        std::to_string(Options.MaxInstances) + " elements");
    if (fx::numElements(S) == 0)
      return;
    std::vector<int64_t> Counter(S.size(), 0);
    for (;;) {
      fx::Index I;
      for (int64_t V : Counter)
        I.push_back(C.intConst(Type::i(64), V));
      F(I);
      size_t K = S.size();
      while (K > 0 && ++Counter[K - 1] >= S[K - 1])
        Counter[--K] = 0;
      if (K == 0)
        return;
    }
  }

  //===-- Coverage and values ---------------------------------------------===//

  struct Element {
    const Write *RefWrite;
    std::string Tensor;
    uint64_t Index;
    const Expr *Ref, *Cand;
    Origin CandFrom;
  };
  std::vector<Element> Elements;

  bool checkCoverage() {
    for (size_t K = 0; K < M.Ref.Outputs.size(); ++K) {
      const std::string &Tensor = M.Ref.Outputs[K];
      const std::string &B = Buffers.at(Tensor);
      const Write *W = nullptr;
      for (const Write &X : Ref.Effects.Writes)
        if (X.Buffer == B)
          W = &X;
      if (!W)
        continue; // an empty output
      bool Ok = true;
      InstanceSubstitution Fix(C, W->Bound);
      enumerate(
          W->Bound,
          [&](const std::unordered_map<const Expr *, const Expr *> &At) {
            if (!Ok)
              return;
            uint64_t I = Fix(W->Index, At)->constBits();
            auto Buf = Memory.find(B);
            const std::vector<ElementWrite> *Ws = nullptr;
            if (Buf != Memory.end()) {
              auto It = Buf->second.find(I);
              if (It != Buf->second.end())
                Ws = &It->second;
            }
            if (!Ws) {
              fail(
                  {"output elements written", Tensor,
                   "output elements not written: " + Tensor + describeIndex(I) +
                       " (and possibly more) is never written by the candidate",
                   I, W->From});
              showReferenceValue(Fix(W->Value, At), W->From);
              Ok = false;
              return;
            }
            // A later step may overwrite an element (in-place kernels); one
            // step writing an element twice must write one value.
            for (const ElementWrite &Other : *Ws)
              if (Other.Step == Ws->back().Step &&
                  Other.Value != Ws->back().Value &&
                  mayDiffer(Other.Value, Ws->back().Value)) {
                fail({"output elements written", Tensor,
                      Tensor + describeIndex(I) +
                          " is written twice with different "
                          "values (by " +
                          Other.Step + " and " + Ws->back().Step + ")",
                      I, Ws->back().From});
                Ok = false;
                return;
              }
            Elements.push_back(
                {W, Tensor, I,
                 whereDefined(Fix(W->Value, At), Ws->back().Value, At),
                 Ws->back().Value, Ws->back().From});
          });
      if (!Ok)
        return false;
    }
    Result.Queries.push_back(
        {"output elements written", smt::Outcome::Proved, "", 0, ""});
    return true;
  }

  /// The reference's value at an element the candidate leaves unwritten,
  /// on inputs that are all zero.
  void showReferenceValue(const Expr *RefValue, const Origin &From) {
    Env Zero;
    const Expr *Roots[] = {RefValue};
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Read && N->operand(0)->isConst())
        Zero.setRead(N->name(), N->operand(0)->constBits(),
                     Value::ofBits(N->type(), 0));
    Zero = completed(Zero, {RefValue});
    try {
      Result.Cex->Source = Interpreter(Zero).eval(RefValue);
      Result.Cex->Inputs = Zero;
    } catch (const EvalError &) {
    }
    Result.Cex->SourceOrigin = From;
    Result.Cex->TargetOrigin = {};
  }

  bool mayDiffer(const Expr *A, const Expr *B) {
    smt::Query Q{
        "double write", differs(A, B, smt::Mode::IEEE), {}, smt::Mode::IEEE};
    return smt::solve(Q, Options.Check.Solver).Kind != smt::Outcome::Proved;
  }

  const Expr *differs(const Expr *A, const Expr *B, smt::Mode Mode) {
    Type T = A->type();
    if (!T.isFloat())
      return C.icmp(ICmpPredicate::Ne, A, B);
    if (Mode == smt::Mode::Real)
      return C.fcmp(FCmpPredicate::Une, A, B);
    Type Bits = Type::i(T.bits());
    return C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, A, Bits),
                  C.cast(Op::Bitcast, B, Bits));
  }

  /// An element query with its input reads renamed to symbols numbered by
  /// first use: elements whose queries coincide after renaming are one.
  struct Canonical {
    const Expr *Ref, *Cand;
    std::vector<std::pair<std::string, const Expr *>> Reads; // symbol -> read
  };
  /// Per output, one element of each class, as the value queries met them.
  std::map<std::string, std::vector<std::pair<const Element *, Canonical>>>
      ClassesOf;

  /// The reference's value at an element (its write's instance At) where
  /// the reference is defined, the kernel's elsewhere: an undefined
  /// reference (an index out of range) allows any value. Only the
  /// conditions on this element's own inputs are taken (weaker than the
  /// whole program's definedness, so a proof still holds for it).
  const Expr *
  whereDefined(const Expr *RefValue, const Expr *CandValue,
               const std::unordered_map<const Expr *, const Expr *> &At) {
    if (Ref.Effects.Undefined.empty())
      return RefValue;
    std::vector<const Expr *> Roots{RefValue};
    std::set<const Expr *> Inputs;
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Read)
        Inputs.insert(N);
    const Expr *Defined = C.trueExpr();
    for (const UndefinedBehavior &U : Ref.Effects.Undefined) {
      bool Instance = true;
      for (const BoundVariable &V : U.Bound)
        Instance &= At.count(V.Symbol) > 0;
      if (!Instance)
        continue;
      std::vector<const Expr *> Cond{
          U.Bound.empty() ? U.Condition : substitute(C, U.Condition, At)};
      bool Own = true;
      for (const Expr *N : postOrder(Cond))
        Own &= N->op() != Op::Read || Inputs.count(N);
      if (Own)
        Defined = C.andOf(Defined, C.notOf(Cond.front()));
    }
    return Defined->isTrue() ? RefValue
                             : C.select(Defined, RefValue, CandValue);
  }

  Canonical canonical(const Element &E) {
    Canonical K;
    std::map<const Expr *, const Expr *> Renamed;
    auto Hook = [&](const Expr *N,
                    const std::vector<const Expr *> &Ops) -> const Expr * {
      if (N->op() != Op::Read || !Ops[0]->isConst())
        return nullptr;
      const Expr *Read = C.read(N->name(), N->type(), Ops[0]);
      auto It = Renamed.find(Read);
      if (It != Renamed.end())
        return It->second;
      std::string Name =
          "x" + std::to_string(K.Reads.size()) + "." + N->type().str();
      const Expr *S = C.symbol(Name, N->type());
      Renamed[Read] = S;
      K.Reads.push_back({Name, Read});
      return S;
    };
    K.Ref = rewrite(C, E.Ref, Hook);
    K.Cand = rewrite(C, E.Cand, Hook);
    return K;
  }

  /// The canonical model back in terms of the element's real reads.
  Env inputsOf(const Canonical &K, const Env &Model) {
    Env Out;
    for (const auto &[Name, V] : Model.symbols()) {
      bool IsRead = false;
      for (const auto &[S, Read] : K.Reads)
        if (S == Name) {
          Out.setRead(Read->name(), Read->operand(0)->constBits(), V);
          IsRead = true;
        }
      if (!IsRead)
        Out.setSymbol(Name, V);
    }
    // Reads at addresses that depend on the data keep the model's values.
    for (const auto &[Key, V] : Model.reads())
      Out.setRead(Key.first, Key.second, V);
    for (const Env::CallPoint &P : Model.calls())
      Out.setCall(P.Function, P.Args, P.Result);
    return Out;
  }

  /// Symbols the model leaves free read as zero.
  Env completed(Env E, const std::vector<const Expr *> &Roots) {
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Symbol && !E.symbol(N->name()))
        E.setSymbol(N->name(), Value::ofBits(N->type(), 0));
    return E;
  }

  /// i1: the reference is defined (no index out of range, no integer
  /// division by zero, ...).
  const Expr *referenceDefined() {
    if (!ReferenceDefined)
      ReferenceDefined = C.notOf(Ref.Effects.undefinedCondition(C));
    return ReferenceDefined;
  }
  const Expr *ReferenceDefined = nullptr;

  /// Every data-dependent load lies inside its tensor wherever the
  /// reference and the kernels are defined. A load is not known to be
  /// unmasked there, so an address that may lie outside is `unknown`, not a
  /// counterexample.
  bool checkDataDependentLoads() {
    if (DataDependentLoads.empty())
      return true;
    const std::string Name = "data-dependent loads";
    const Expr *KernelsDefined = C.trueExpr();
    for (const DataUndefined &U : KernelUndefined)
      KernelsDefined = C.andOf(KernelsDefined, C.notOf(U.Condition));
    const Expr *Outside = C.falseExpr();
    std::set<const Expr *> Seen;
    for (const DataDependentLoad &L : DataDependentLoads) {
      if (!Seen.insert(L.Index).second)
        continue;
      Type I64 = Type::i(64);
      Outside = C.orOf(
          Outside,
          C.orOf(C.icmp(ICmpPredicate::Slt, L.Index, C.intConst(I64, 0)),
                 C.icmp(ICmpPredicate::Sge, L.Index,
                        C.intConst(I64, int64_t(Extent.at(L.Buffer))))));
    }
    smt::QueryResult R = smt::solve(
        {Name, C.andOf(C.andOf(referenceDefined(), KernelsDefined), Outside),
         {}, smt::Mode::IEEE},
        Options.Check.Solver);
    std::string Detail = std::to_string(Seen.size()) +
                         " addresses that depend on the data, inside their "
                         "tensors wherever the reference is defined";
    Result.Queries.push_back({Name, R.Kind,
                              R.Kind == smt::Outcome::Proved ? Detail : R.Reason,
                              R.Seconds, R.DumpedTo});
    if (R.Kind == smt::Outcome::Proved)
      return true;
    const DataDependentLoad &First = DataDependentLoads.front();
    Result.Kind = Verdict::Unknown;
    Result.Reason =
        Name + ": " +
        (R.Kind == smt::Outcome::Counterexample
             ? "an address that depends on the data may lie outside its "
               "tensor (" + First.Tensor + ", " + First.From.Loc.str() +
                   "), and the loads are not known to be unmasked there"
             : R.Reason);
    return false;
  }

  /// Whether Condition holds on Model completed (unset reads and symbols
  /// zero) with the functions' own values, as a counterexample is replayed.
  bool replaysTrue(const Env &Model, const Expr *Condition) {
    try {
      const Env Replay = completed(withFunctionsOwnValues(Model), {Condition});
      return Interpreter(Replay).eval(Condition).isTrue();
    } catch (const EvalError &) {
      return false;
    }
  }

  /// The kernels are defined for every input where the reference is
  /// defined for all of them: no input makes a kernel divide by zero.
  /// Asked in the kernels' own (IEEE) arithmetic, testing first; an input
  /// is replayed before it is reported.
  bool checkKernelDefined() {
    if (KernelUndefined.empty())
      return true;
    const std::string Name = "kernels defined";
    auto Start = std::chrono::steady_clock::now();
    // Where the reference is undefined (an index out of range), a kernel
    // may be too.
    const Expr *Violation = C.falseExpr();
    for (const DataUndefined &U : KernelUndefined)
      Violation = C.orOf(Violation, U.Condition);
    Violation = C.andOf(referenceDefined(), Violation);
    // A few rounds of testing's input patterns (zeros, edges, collisions)
    // find a division by a zero element or an index out of range; past
    // them, a correct kernel's testing only delays the proof.
    FalsifyOptions Testing;
    Testing.Trials = KernelDefinedTrials;
    std::optional<Env> Found = falsify(Violation, Testing);
    std::string How = "found by testing";
    if (!Found) {
      const Expr *AnyUndefined = C.falseExpr();
      for (const DataUndefined &U : KernelUndefined)
        AnyUndefined = C.orOf(AnyUndefined, U.Condition);
      SplitProof Split = proveDisjunctByDisjunct(
          C, referenceDefined(), AnyUndefined, {}, smt::Mode::IEEE,
          Options.Check.Solver, Name);
      if (Split.Proved) {
        Result.Queries.push_back({Name, smt::Outcome::Proved,
                                  splitDetail(Split), Split.Seconds, ""});
        return true;
      }
      // A way's model is the whole question's only if the facts it left
      // out hold of it too: replayed before it is used.
      if (Split.Candidate && replaysTrue(*Split.Candidate, Violation)) {
        Found = Split.Candidate;
        How = "found way by way";
      }
    }
    if (!Found) {
      smt::QueryResult R = smt::solve({Name, Violation, {}, smt::Mode::IEEE},
                                      Options.Check.Solver);
      if (R.Kind != smt::Outcome::Counterexample) {
        Result.Queries.push_back({Name, R.Kind, R.Reason, R.Seconds, R.DumpedTo});
        if (R.Kind == smt::Outcome::Proved)
          return true;
        Result.Kind = Verdict::Unknown;
        Result.Reason = Name + ": " + R.Reason;
        return false;
      }
      Found = R.Model;
      How = "";
    }
    double Took = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - Start)
                      .count();
    try {
      // With the functions' own values (the host libm's), not values the
      // solver assumed for an uninterpreted exp.
      Env In = completed(withFunctionsOwnValues(*Found), {Violation});
      Interpreter I(In);
      if (I.eval(Violation).isTrue()) {
        In = shrink(Violation, In);
        Interpreter Shrunk(In);
        for (const DataUndefined &U : KernelUndefined)
          if (Shrunk.eval(U.Condition).isTrue()) {
            Result.Queries.push_back(
                {Name, smt::Outcome::Counterexample, How, Took, ""});
            Counterexample X;
            X.Query = Name;
            X.Inputs = In;
            X.Explanation = "kernel " + U.Kernel + " is undefined: " +
                            U.Reason + ", where the reference is defined";
            if (U.From.Loc.known())
              X.Explanation += " (" + U.From.Op + " at " + U.From.Loc.str() + ")";
            X.TargetOrigin = U.From;
            Result.Kind = Verdict::Counterexample;
            Result.Cex = std::move(X);
            return false;
          }
      }
    } catch (const EvalError &) {
    }
    Result.Queries.push_back({Name, smt::Outcome::Unknown,
                              "the input found does not replay", Took, ""});
    Result.Kind = Verdict::Unknown;
    Result.Reason = Name + ": the input found does not replay on the interpreter";
    return false;
  }

  void checkValues() {
    std::map<std::pair<const Expr *, const Expr *>, size_t> Classes;
    std::map<std::string, std::pair<size_t, double>> PerOutput; // classes, s
    for (const Element &E : Elements) {
      Canonical K = canonical(E);
      if (!Classes.emplace(std::make_pair(K.Ref, K.Cand), Classes.size())
               .second)
        continue;
      ClassesOf[E.Tensor].push_back({&E, K});
      auto Start = std::chrono::steady_clock::now();
      bool Ok = checkClass(E, K);
      auto &Stat = PerOutput[E.Tensor];
      ++Stat.first;
      Stat.second += std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - Start)
                         .count();
      if (!Ok) {
        // A class the solver could not decide may still overflow where the
        // reference stays finite: an input found by testing (and replayed)
        // is a counterexample whatever the solver said.
        if (Result.Kind == Verdict::Unknown) {
          std::string Undecided = Result.Reason;
          // Every class of the output is tested, not only those asked so
          // far: the first is often the element whose own input the
          // kernel's shift was taken from (exp(x0 - x0) never overflows).
          for (const Element &Other : Elements) {
            if (Other.Tensor != E.Tensor)
              continue;
            Canonical Rest = canonical(Other);
            if (Classes.emplace(std::make_pair(Rest.Ref, Rest.Cand),
                                Classes.size())
                    .second)
              ClassesOf[E.Tensor].push_back({&Other, Rest});
          }
          if (!checkRange(E.Tensor) && Result.Kind == Verdict::Counterexample) {
            Result.Reason.clear();
            if (Result.Cex)
              Result.Cex->Notes.push_back("the value question was not decided (" +
                                          Undecided + ")");
          }
        }
        return;
      }
    }
    if (Normal.extremaFlattened())
      Result.Relaxations.push_back(
          "over the reals: max/min trees as one associative operation (" +
          std::to_string(Normal.extremaFlattened()) + " nodes)");
    if (Normal.argExtremaFolded())
      Result.Relaxations.push_back(
          "over the reals: (value, index) selects as one lexicographic "
          "arg-max/min, ties to the first or last index as the selects "
          "break them (" +
          std::to_string(Normal.argExtremaFolded()) + " selects)");
    if (Normal.exponentialsCombined())
      Result.Relaxations.push_back(
          "over the reals: exp(a + b) = exp(a) * exp(b), quotients by sums of "
          "exponentials (" +
          std::to_string(Normal.exponentialsCombined()) + " element classes)");
    if (Normal.infinitiesAbsorbed())
      Result.Relaxations.push_back(
          "over the extended reals: -inf padding of masked lanes absorbed (" +
          std::to_string(Normal.infinitiesAbsorbed()) + ")");
    for (const auto &[Tensor, Stat] : PerOutput)
      Result.Queries.push_back({"values of " + Tensor, smt::Outcome::Proved,
                                std::to_string(Stat.first) + " element classes",
                                Stat.second, ""});
    for (const auto &[Tensor, Stat] : PerOutput)
      if (!checkRange(Tensor)) {
        if (Result.Cex)
          Result.Cex->Notes.push_back(
              std::string("the values are ") +
              (ValuesWithinTolerance ? "within tolerance" : "equal") +
              " over the reals (proved): the kernel breaks where the "
              "reference does not overflow");
        return;
      }
    if (ValuesWithinTolerance && Result.Kind != Verdict::Counterexample)
      Result.Kind = Verdict::ProvedWithinTolerance;
    else if (Result.Kind == Verdict::Unknown && Result.Reason.empty())
      Result.Kind = Verdict::Proved;
  }

  /// The value ladder of one class: equal in the check's arithmetic, else
  /// within tolerance in IEEE, else a counterexample.
  bool checkClass(const Element &E, const Canonical &K) {
    smt::Mode Mode = Options.Check.Arithmetic;
    const Expr *Ref = K.Ref, *Cand = K.Cand;
    if (Mode == smt::Mode::Real) {
      Cand = libdeviceAsMath(Cand);
      Ref = Normal.normalize(Ref);
      Cand = Normal.normalize(Cand);
      // Sums equal up to order (a row summed in a tree) are one sum, and
      // sums of products (a dot product summed in blocks) one polynomial:
      // equal with no solver. So are exp(x - m) / sum exp(x - m) and
      // exp(x) / sum exp(x).
      if (meaningfulOverTheReals(Ref, Cand) &&
          Normal.sumForm(Ref) == Normal.sumForm(Cand)) {
        Reordered.insert({K.Ref, K.Cand});
        return true;
      }
      if (Normal.equalAsPolynomials(Ref, Cand)) {
        if (Normal.polynomial(Ref) == Normal.polynomial(Cand))
          Reordered.insert({K.Ref, K.Cand});
        return true;
      }
    }
    smt::Query Q{"values of " + E.Tensor, differs(Ref, Cand, Mode), {}, Mode};
    smt::QueryResult R;
    if (Mode == smt::Mode::Real) {
      // Briefly first: a quick model over the reals makes the clearest
      // counterexample (it seeds the tolerance search below). Where the
      // solver does not settle, testing comes before the full limit.
      smt::SolverOptions Brief = Options.Check.Solver;
      Brief.TimeoutMs = std::min(Brief.TimeoutMs, 2000u);
      R = smt::solve(Q, Brief);
      if (R.Kind == smt::Outcome::Unknown) {
        std::optional<Env> Found = testedDifference(K, Ref, Cand);
        if (!Found)
          Found = testedDifferenceOnFiniteValues(K);
        if (Found) {
          reportCounterexample("values of " + E.Tensor + " within tolerance",
                               E, K, *Found);
          return false;
        }
        if (Options.Check.Solver.TimeoutMs > Brief.TimeoutMs)
          R = smt::solve(Q, Options.Check.Solver);
      }
    } else {
      R = smt::solve(Q, Options.Check.Solver);
    }
    if (R.Kind == smt::Outcome::Proved)
      return true;
    if (R.Kind == smt::Outcome::Unknown && Mode == smt::Mode::Real) {
      // Some values have no real meaning (inf constants, bitcasts): ask
      // bit-exactly instead.
      Q = {
          Q.Name, differs(K.Ref, K.Cand, smt::Mode::IEEE), {}, smt::Mode::IEEE};
      R = smt::solve(Q, Options.Check.Solver);
      if (R.Kind == smt::Outcome::Proved)
        return true;
    }
    if (R.Kind == smt::Outcome::Unknown) {
      Result.Queries.push_back({Q.Name, R.Kind, R.Reason, R.Seconds, ""});
      Result.Kind = Verdict::Unknown;
      Result.Reason = Q.Name + ": " + R.Reason;
      return false;
    }
    Result.Queries.push_back({Q.Name + " (" + smt::meaning(Q.Arithmetic) + ")",
                              R.Kind, "", R.Seconds, ""});
    RealModel = R.Model;
    return checkTolerance(E, K);
  }

  /// testedDifference where the class compares a value with an infinity
  /// (inductor's `|max| == inf` guard), which has no value over the reals:
  /// the exact values are asked with such comparisons of visibly finite
  /// values decided, at an input where testing found the IEEE values
  /// apart. A difference there is one on finite inputs; no proof is drawn
  /// from that reading (RealNormalForm).
  std::optional<Env> testedDifferenceOnFiniteValues(const Canonical &K) {
    RealNormalForm Finite(C, RealNormalForm::Purpose::FindingDifferences);
    const Expr *Ref = Finite.normalize(K.Ref);
    const Expr *Cand = Finite.normalize(libdeviceAsMath(K.Cand));
    if (Ref == Normal.normalize(K.Ref) &&
        Cand == Normal.normalize(libdeviceAsMath(K.Cand)))
      return std::nullopt; // no comparison with an infinity decided
    return testedDifference(K, Ref, Cand);
  }

  /// An input found by testing where the kernel's value is outside the
  /// tolerance of the reference's (the interpreter's IEEE values) and the
  /// exact values differ too (RealRef, RealCand: the class as the real
  /// query asks it, with every input pinned). That is where the value ladder
  /// would end, a counterexample, without the two solver questions before
  /// it, which a wrong kernel's large class can spend its whole time on.
  std::optional<Env> testedDifference(const Canonical &K, const Expr *RealRef,
                                      const Expr *RealCand) {
    if (!K.Ref->type().isFloat())
      return std::nullopt;
    auto Start = std::chrono::steady_clock::now();
    const Expr *V = outsideTolerance(K.Ref, K.Cand);
    std::optional<Env> Found = falsifyFinite(V, 16, testingWork(500));
    // A right kernel's rounding can be beyond the tolerance too (sums that
    // cancel): the exact question comes before any shrinking.
    if (!Found || !exactlyDifferentAt(*Found, RealRef, RealCand))
      return std::nullopt;
    Env Shrunk = shrink(V, *Found);
    if (exactlyDifferentAt(Shrunk, RealRef, RealCand))
      Found = Shrunk;
    Result.Queries.push_back(
        {"values within tolerance", smt::Outcome::Counterexample,
         "found by testing; the exact values differ there too",
         std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       Start)
             .count(),
         ""});
    return Found;
  }

  /// Whether Ref and Cand differ over the reals where every symbol has its
  /// value in In (asked of the solver with the inputs pinned).
  bool exactlyDifferentAt(const Env &In, const Expr *Ref, const Expr *Cand) {
    const Expr *Differs = differs(Ref, Cand, smt::Mode::Real);
    // Without named functions the encoding reduces to a numeral by exact
    // rational arithmetic; with them (their values over the reals are the
    // solver's to choose) the solver is asked.
    bool Calls = false;
    const Expr *Root[] = {Differs};
    for (const Expr *N : postOrder(Root))
      Calls |= N->op() == Op::Call || N->op() == Op::Read;
    if (!Calls)
      if (std::optional<Value> V =
              smt::EncodingEvaluator(Differs, smt::Mode::Real).evaluate(In))
        return V->isTrue();
    std::vector<const Expr *> Pins;
    const Expr *Roots[] = {Ref, Cand};
    for (const Expr *N : postOrder(Roots)) {
      if (N->op() != Op::Symbol)
        continue;
      const Value *X = In.symbol(N->name());
      if (!X)
        return false;
      const Expr *Is = C.constant(N->type(), X->Bits);
      Pins.push_back(N->type().isFloat() ? C.fcmp(FCmpPredicate::Oeq, N, Is)
                                         : C.eq(N, Is));
    }
    smt::SolverOptions Quick = Options.Check.Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, 5000u);
    smt::QueryResult R = smt::solve(
        {"exact values at a tested input", Differs, Pins, smt::Mode::Real},
        Quick);
    return R.Kind == smt::Outcome::Counterexample;
  }

  /// Over the reals every rounded op is the exact operation it rounds, and
  /// so a libdevice function is the function it computes (__nv_rsqrtf is
  /// rsqrt, __nv_erff is erf): the same abstraction, applied to the
  /// kernel's calls. Each function so read is listed with its count.
  const Expr *libdeviceAsMath(const Expr *E) {
    std::map<std::string, unsigned> Used;
    const Expr *R = rewrite(
        C, E,
        [&](const Expr *N,
            const std::vector<const Expr *> &Ops) -> const Expr * {
          if (N->op() != Op::Call || N->name().rfind("__nv_", 0) != 0)
            return nullptr;
          std::string Base = N->name().substr(5);
          if (!lookupFunction(Base) && Base.size() > 1 && Base.back() == 'f')
            Base.pop_back();
          ++Used[N->name() + " as " + Base];
          if (Base == "sqrt" && Ops.size() == 1)
            return C.make(Op::FSqrt, Ops, uint8_t(RoundingMode::NearestEven));
          // A real is never NaN or infinite.
          if ((Base == "isnan" || Base == "isinf" || Base == "finite" ||
               Base == "isnand" || Base == "isinfd" || Base == "isfinited") &&
              N->type().isBitVector())
            return C.intConst(N->type(), Base == "finite" || Base == "isfinited");
          // Rounding to an integral value is exact arithmetic.
          static const std::pair<const char *, RoundingMode> Integral[] = {
              {"floor", RoundingMode::Down},
              {"ceil", RoundingMode::Up},
              {"trunc", RoundingMode::TowardZero},
              {"rint", RoundingMode::NearestEven},
              {"nearbyint", RoundingMode::NearestEven},
              {"round", RoundingMode::NearestAway}};
          for (const auto &[Name, Mode] : Integral)
            if (Base == Name && Ops.size() == 1)
              return C.make(Op::FRoundInt, Ops, uint8_t(Mode));
          if (!lookupFunction(Base)) {
            --Used[N->name() + " as " + Base];
            return nullptr;
          }
          return C.call(Base, N->type(), Ops);
        });
    for (const auto &[Rule, Count] : Used) {
      if (!Count)
        continue;
      std::string Line = "libdevice over the reals: " + Rule;
      bool Known = false;
      for (std::string &X : Result.Relaxations)
        Known |= X.rfind(Line, 0) == 0;
      if (!Known)
        Result.Relaxations.push_back(Line);
    }
    return R;
  }

  /// i1: every float input of the class (its reads, the parameters) is
  /// finite. The contract is over the reals: NaN and infinite inputs have no
  /// meaning there, so the tolerance and range questions range over finite
  /// inputs too.
  const Expr *finiteInputs(const Expr *Ref, const Expr *Cand) {
    const Expr *All = C.trueExpr();
    const Expr *Roots[] = {Ref, Cand};
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Symbol && N->type().isFloat())
        All = C.andOf(All, isFinite(N));
    return All;
  }

  const Expr *isFinite(const Expr *X) {
    return C.fcmp(FCmpPredicate::Olt, C.unary(Op::FAbs, X),
                  C.floatConst(X->type(), INFINITY));
  }

  /// i1: for finite inputs and a finite reference, cand is not finite or
  /// |ref - cand| > Rtol*|ref| + Atol. The difference is rounded down and
  /// the bound up (in f32 at least), so an input that satisfies this breaks
  /// the stated bound exactly.
  const Expr *outsideTolerance(const Expr *Ref, const Expr *Cand) {
    Type T = Ref->type();
    double Rtol, Atol;
    toleranceFor(Options, T, Rtol, Atol);
    Type W = T.bits() < 32 ? Type::f32() : T;
    const Expr *A = C.cast(Op::FPCast, Ref, W),
               *B = C.cast(Op::FPCast, Cand, W);
    const Expr *Gap =
        C.binary(Op::FMaxNum, C.floatBinary(Op::FSub, A, B, RoundingMode::Down),
                 C.floatBinary(Op::FSub, B, A, RoundingMode::Down));
    const Expr *Bound =
        C.floatBinary(Op::FAdd,
                      C.floatBinary(Op::FMul, C.floatConst(W, Rtol),
                                    C.unary(Op::FAbs, A), RoundingMode::Up),
                      C.floatConst(W, Atol), RoundingMode::Up);
    const Expr *Beyond =
        C.orOf(C.notOf(isFinite(Cand)), C.fcmp(FCmpPredicate::Ogt, Gap, Bound));
    return C.andOf(C.andOf(finiteInputs(Ref, Cand), isFinite(Ref)), Beyond);
  }

  /// The bound, as the reports state it.
  std::string statedBound(Type T) {
    double Rtol, Atol;
    toleranceFor(Options, T, Rtol, Atol);
    std::ostringstream S;
    S.precision(3);
    S << "|ref - cand| <= " << Rtol << " * |ref| + " << Atol;
    return S.str();
  }

  /// E under the standard model of floating-point rounding, to be read
  /// over the reals: each rounded op becomes a fresh value r with
  /// |r - x| <= u * |x| + eta, x the exact result of the op on its (modelled)
  /// operands, u the unit roundoff (2u for directed rounding) and eta the
  /// format's smallest subnormal. That is the set x * (1 + d) + e with
  /// |d| <= u and |e| <= eta, written without the products x * d, so an
  /// expression whose ops scale by constants stays linear. One r per op
  /// node, so a computation both sides share rounds the same way on both.
  /// Valid as long as no intermediate overflows (the range question looks
  /// for that).
  const Expr *roundingModel(const Expr *E, std::vector<const Expr *> &Bounds) {
    return rewrite(
        C, E,
        [&](const Expr *N,
            const std::vector<const Expr *> &Ops) -> const Expr * {
          Type T = N->type();
          if (!T.isFloat() || !roundsResult(N))
            return nullptr;
          auto It = RoundedValues.find(N);
          if (It != RoundedValues.end())
            return It->second;
          // A narrowing conversion is bounded in the wider source type,
          // where the exact value lives.
          bool Narrowing = N->op() == Op::FPCast;
          const Expr *Exact = Narrowing ? Ops[0] : C.withOperands(N, Ops);
          Type W = Exact->type();
          FloatFormat F = floatFormat(T);
          int P = int(F.MantissaBits) + 1;
          bool Nearest = !hasRounding(N->op()) ||
                         N->rounding() == RoundingMode::NearestEven ||
                         N->rounding() == RoundingMode::NearestAway;
          double U = std::ldexp(1.0, Nearest ? -P : 1 - P);
          double Eta = std::ldexp(1.0, 2 - F.bias() - P); // smallest subnormal
          const Expr *R = C.symbol(
              "round.r" + std::to_string(RoundedValues.size()) + "." + T.str(),
              T);
          const Expr *Wide = Narrowing ? C.cast(Op::FPCast, R, W) : R;
          auto Abs = [&](const Expr *X) { return C.unary(Op::FAbs, X); };
          Bounds.push_back(C.fcmp(
              FCmpPredicate::Ole, Abs(C.floatBinary(Op::FSub, Wide, Exact)),
              C.floatBinary(Op::FAdd,
                            C.floatBinary(Op::FMul, C.floatConst(W, U),
                                          Abs(Exact)),
                            C.floatConst(W, Eta))));
          RoundedValues.emplace(N, R);
          return R;
        });
  }

  static bool roundsResult(const Expr *N) {
    switch (N->op()) {
    case Op::FAdd:
    case Op::FSub:
    case Op::FMul:
    case Op::FDiv:
    case Op::Fma:
    case Op::FSqrt:
      return true;
    case Op::FPCast:
      return floatFormat(N->type()).MantissaBits <
             floatFormat(N->operand(0)->type()).MantissaBits;
    case Op::SIToFP:
    case Op::UIToFP:
      return N->operand(0)->type().bits() >
             floatFormat(N->type()).MantissaBits + 1;
    default:
      return false;
    }
  }

  /// i1 over the reals: |Ref - Cand| > Rtol * |Ref| + Atol.
  const Expr *beyondBound(const Expr *Ref, const Expr *Cand) {
    Type T = Ref->type();
    double Rtol, Atol;
    toleranceFor(Options, T, Rtol, Atol);
    auto Abs = [&](const Expr *X) { return C.unary(Op::FAbs, X); };
    const Expr *Gap = Abs(C.floatBinary(Op::FSub, Ref, Cand));
    const Expr *Bound = C.floatBinary(
        Op::FAdd, C.floatBinary(Op::FMul, C.floatConst(T, Rtol), Abs(Ref)),
        C.floatConst(T, Atol));
    return C.fcmp(FCmpPredicate::Ogt, Gap, Bound);
  }

  /// Inputs the contract is about: every float symbol finite, drawn
  /// uniformly from [-s, s] for scales s from 1 to 1e4 (the generic
  /// falsifier's NaNs and infinities would make most trials vacuous when a
  /// class reads many elements). Integers small.
  /// Within WorkLimit (testingWork) when given, WorkSpent counting the
  /// nodes interpreted and the symbols set, as falsify's own budget does.
  std::optional<Env> falsifyFinite(const Expr *Violation, unsigned Trials,
                                   std::optional<uint64_t> WorkLimit = {},
                                   uint64_t *Tried = nullptr,
                                   uint64_t *WorkSpent = nullptr) {
    uint64_t Spent = 0;
    if (!WorkSpent)
      WorkSpent = &Spent;
    std::vector<const Expr *> Symbols;
    const Expr *Roots[] = {Violation};
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Symbol)
        Symbols.push_back(N);
    static const double Scales[] = {1, 4, 16, 100, 1e4};
    // A new stream per call: the classes of one output list their symbols
    // alike (the element's own first), and one stream for all of them
    // would give each element the same draw.
    uint64_t State = 0x9E3779B97F4A7C15ull ^
                     (++FalsifyCalls * 0xBF58476D1CE4E5B9ull);
    auto Next = [&]() {
      State ^= State << 13;
      State ^= State >> 7;
      State ^= State << 17;
      return double(State >> 11) / double(uint64_t(1) << 53);
    };
    for (unsigned T = 0; T < Trials; ++T) {
      if (WorkLimit && *WorkSpent >= *WorkLimit)
        break;
      if (Tried)
        ++*Tried;
      double Scale = Scales[T % 5];
      Env In;
      for (const Expr *S : Symbols) {
        Type Ty = S->type();
        if (Ty.isFloat())
          In.setSymbol(S->name(),
                       Value::ofDouble(Ty, (2 * Next() - 1) * Scale));
        else
          In.setSymbol(S->name(), Value::ofBits(Ty, uint64_t(Next() * 8)));
      }
      Interpreter I(In);
      *WorkSpent += SymbolSettingWork * Symbols.size();
      try {
        bool Holds = I.eval(Violation).isTrue();
        *WorkSpent += I.evaluatedNodes();
        if (Holds)
          return In;
      } catch (const EvalError &) {
        *WorkSpent += I.evaluatedNodes();
      }
    }
    return std::nullopt;
  }

  bool checkTolerance(const Element &E, const Canonical &K) {
    std::string Name = "values of " + E.Tensor + " within tolerance";
    if (!K.Ref->type().isFloat()) {
      // Integers (an argmax's index) differ or not: the model made small,
      // where it still differs on the interpreter.
      reportCounterexample(
          Name, E, K,
          shrink(differs(K.Ref, K.Cand, smt::Mode::IEEE), RealModel));
      return false;
    }
    double Rtol, Atol;
    toleranceFor(Options, K.Ref->type(), Rtol, Atol);
    const Expr *V = outsideTolerance(K.Ref, K.Cand);
    auto Start = std::chrono::steady_clock::now();
    // The input that separates the two over the reals is the first to try.
    std::optional<Env> Found;
    try {
      Env Seed = completed(withFunctionsOwnValues(RealModel), {V});
      if (Interpreter(Seed).eval(V).isTrue())
        Found = Seed;
    } catch (const EvalError &) {
    }
    FalsifyOptions F;
    if (!Found)
      Found = falsifyFinite(V, 200);
    if (!Found)
      Found = falsify(V, F);
    if (Found) {
      double Took = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
      Result.Queries.push_back(
          {Name, smt::Outcome::Counterexample, "found by testing", Took, ""});
      reportCounterexample(Name, E, K, shrink(V, *Found));
      return false;
    }
    // No input found: prove the bound under the rounding-error model.
    // Extrema in their normal form first (the model is over finite reals,
    // where a clamp's NaN handling is moot): a clamp spelled two ways is
    // then one node, and so is the product that rounds it.
    std::vector<const Expr *> Bounds;
    const Expr *RefM = roundingModel(RoundingNormal.normalize(K.Ref), Bounds);
    const Expr *CandM = roundingModel(RoundingNormal.normalize(K.Cand), Bounds);
    // Bounded tightly: where this model does not settle quickly, an IEEE
    // search for a violation is the better use of the time.
    smt::SolverOptions Quick = Options.Check.Solver;
    Quick.TimeoutMs = std::min(Quick.TimeoutMs, 5000u);
    smt::QueryResult R = smt::solve(
        {Name, beyondBound(RefM, CandM), Bounds, smt::Mode::Real}, Quick);
    std::string Bound = statedBound(K.Ref->type());
    if (R.Kind == smt::Outcome::Proved) {
      Result.Queries.push_back({Name, R.Kind, Bound, R.Seconds, ""});
      ValuesWithinTolerance = true;
      bool Known = false;
      for (const std::string &X : Result.Relaxations)
        Known |= X.rfind("within tolerance", 0) == 0;
      if (!Known)
        Result.Relaxations.push_back(
            "within tolerance: " + Bound +
            " for finite inputs, proved under the rounding-error model "
            "(|relative error| <= u per op, no overflow); equality over the "
            "reals fails");
      return true;
    }
    Result.Queries.push_back(
        {Name + " (rounding model)", R.Kind, R.Reason, R.Seconds, ""});
    // Where the model cannot read the class (an infinity that nan_to_num
    // replaces has no real value), the bit-exact question with libdevice's
    // bodies is the one that settles it: asked first, briefly, before the
    // IEEE search for a violation, which could only end unconfirmed there.
    BodiesAnswer WithBodies = BodiesAnswer::OutOfTime;
    if (R.Kind == smt::Outcome::Unknown) {
      smt::SolverOptions Brief = Options.Check.Solver;
      Brief.TimeoutMs = std::min(Brief.TimeoutMs, 5000u);
      WithBodies = bitExactWithBodies(E, K, Brief);
      if (WithBodies == BodiesAnswer::Proved)
        return true;
    }
    // Not proved: look for an IEEE input that breaks the bound, with a
    // shorter limit (bit-blasted divisions can take very long).
    smt::SolverOptions Short = Options.Check.Solver;
    Short.TimeoutMs = std::min(Short.TimeoutMs, 10000u);
    smt::QueryResult S = smt::solve({Name, V, {}, smt::Mode::IEEE}, Short);
    Result.Queries.push_back(
        {Name + " (ieee)", S.Kind, S.Reason, S.Seconds, ""});
    if (S.Kind == smt::Outcome::Counterexample) {
      try {
        Env Replay = completed(withFunctionsOwnValues(S.Model), {V});
        if (Interpreter(Replay).eval(V).isTrue()) {
          reportCounterexample(Name, E, K, shrink(V, Replay));
          return false;
        }
      } catch (const EvalError &) {
      }
    }
    if (WithBodies == BodiesAnswer::OutOfTime &&
        bitExactWithBodies(E, K, Options.Check.Solver) == BodiesAnswer::Proved)
      return true;
    Result.Kind = Verdict::Unknown;
    Result.Reason =
        Name + ": not proved (" +
        (R.Kind == smt::Outcome::Unknown
             ? R.Reason
             : "the rounding-error model admits a larger difference") +
        ") and no IEEE input found that breaks the bound";
    return false;
  }

  /// The last question of a class the reals do not settle (a value with no
  /// real meaning, such as an infinity that nan_to_num replaces): are the
  /// kernel's values the reference's, bit for bit, in IEEE arithmetic, with
  /// each libdevice call the kernel makes given its body (stages/Libdevice)?
  /// Asked with the bodies for either flush-to-zero flag (the kernel's is
  /// not known here), each defined everywhere; only a proof is drawn from
  /// it, and a difference found this way is not reported. OutOfTime: a
  /// query reached its limit, so a longer one may still prove it.
  enum class BodiesAnswer { Proved, NotProved, OutOfTime };
  BodiesAnswer bitExactWithBodies(const Element &E, const Canonical &K,
                                  const smt::SolverOptions &Limits) {
    const Expr *Roots[] = {K.Cand};
    bool Calls = false;
    for (const Expr *N : postOrder(Roots))
      Calls |= Libdevice::isLibdeviceCall(N);
    // The bodies TTGIR <-> LLVM IR gives the same calls, so that the two
    // proofs compose: the kernels' own libdevice where it can be read.
    std::set<std::string> Paths;
    for (const bundle::Launch *L : M.launches()) {
      std::string Meta = L->file("metadata");
      Paths.insert(chosenLibdevice(Options.Check.Libdevice,
                                   Meta.empty() ? "" : linkedLibdevice(Meta)));
    }
    if (!Calls || Paths.size() != 1 || Paths.begin()->empty() ||
        M.Capability == 0)
      return BodiesAnswer::NotProved;
    const std::string &Path = *Paths.begin();
    std::string Name = "values of " + E.Tensor + " (bit-exact, libdevice bodies)";
    double Seconds = 0;
    try {
      for (int Ftz : {0, 1}) {
        if (!Bodies[Ftz])
          Bodies[Ftz] =
              std::make_unique<Libdevice>(Path, Ftz, unsigned(M.Capability));
        auto [Cand, Defined] = Bodies[Ftz]->withBodies(C, K.Cand);
        if (!Defined->isTrue())
          return BodiesAnswer::NotProved;
        smt::QueryResult R = smt::solve(
            {Name, differs(K.Ref, Cand, smt::Mode::IEEE), {}, smt::Mode::IEEE},
            Limits);
        if (R.Kind == smt::Outcome::Unknown)
          return BodiesAnswer::OutOfTime;
        if (R.Kind != smt::Outcome::Proved)
          return BodiesAnswer::NotProved;
        Seconds += R.Seconds;
      }
    } catch (const ir::UnsupportedError &) {
      return BodiesAnswer::NotProved; // a body not modelled
    } catch (const ir::InputError &) {
      return BodiesAnswer::NotProved; // a libdevice that does not read
    }
    Result.Queries.push_back({Name, smt::Outcome::Proved,
                              "with either flush-to-zero flag", Seconds, ""});
    std::string Rule = "bit-exact in IEEE where the reals give a value no "
                       "meaning: the reference computed in its dtype, each "
                       "libdevice call the body in " + Path;
    if (std::find(Result.Relaxations.begin(), Result.Relaxations.end(),
                  Rule) == Result.Relaxations.end())
      Result.Relaxations.push_back(Rule);
    return BodiesAnswer::Proved;
  }
  std::unique_ptr<Libdevice> Bodies[2]; // by the flush-to-zero flag

  /// What the reference computes on the way to the element, at the
  /// counterexample: the values of the graph's call nodes that the
  /// element's value is built from (the attention scores a dropped clamp
  /// would have cut), a few nonzero ones per node. Views, whose
  /// elements are those of their input, are shown once.
  std::string referenceIntermediates(const Expr *RefValue, const Env &In) {
    const Expr *Roots[] = {RefValue};
    std::unordered_set<const Expr *> Used;
    for (const Expr *N : postOrder(Roots))
      Used.insert(N);
    std::unordered_set<const Expr *> Shown;
    std::ostringstream Line;
    unsigned Total = 0;
    constexpr unsigned PerNode = 3, MaxTotal = 12;
    constexpr int64_t MaxElements = 1 << 14;
    for (const fx::LiftedNode &N : Ref.Nodes) {
      const fx::Tensor &T = N.Value;
      if (!T.valid() || T.numel() == 0 || T.numel() > MaxElements)
        continue;
      std::vector<std::pair<fx::Index, Value>> Found;
      try {
        Interpreter I(In);
        for (int64_t L = 0; L < T.numel(); ++L) {
          fx::Index Idx(T.rank());
          for (int64_t D = int64_t(T.rank()) - 1, R = L; D >= 0; --D) {
            Idx[D] = C.intConst(Type::i(64), R % T.size(D));
            R /= T.size(D);
          }
          const Expr *V = T.at(Idx);
          if (!Used.count(V) || V->op() == Op::Read || V->isConst() ||
              V->op() == Op::Symbol || V == RefValue || !Shown.insert(V).second)
            continue;
          Found.push_back({Idx, I.eval(V)});
        }
      } catch (const std::exception &) {
        continue;
      }
      // Zeros only when nothing else is there to show.
      auto Zero = [](const auto &F) {
        return F.second.Ty.isFloat() ? F.second.asDouble() == 0
                                     : F.second.Bits == 0;
      };
      if (!std::all_of(Found.begin(), Found.end(), Zero))
        std::erase_if(Found, Zero);
      for (size_t K = 0; K < Found.size() && K < PerNode && Total < MaxTotal;
           ++K, ++Total) {
        Line << (Total ? "  " : "reference ") << N.Name << "[";
        for (size_t D = 0; D < Found[K].first.size(); ++D)
          Line << (D ? ", " : "") << Found[K].first[D]->constBits();
        Line << "] = " << plain(Found[K].second);
        if (K == 0 && N.ModelLine)
          Line << " (line " << N.ModelLine << ")";
      }
    }
    return Line.str();
  }

  /// A value without its bits: "5.25", "-3", "true".
  static std::string plain(const Value &V) {
    if (!V.Ty.isFloat())
      return V.str();
    std::ostringstream S;
    S.precision(9);
    S << V.asDouble();
    return S.str();
  }

  void reportCounterexample(const std::string &Query, const Element &E,
                            const Canonical &K, const Env &Model) {
    Env In = completed(inputsOf(K, Model), {E.Ref, E.Cand});
    Counterexample X;
    X.Query = Query;
    X.Inputs = In;
    X.Buffer = E.Tensor;
    X.Index = E.Index;
    try {
      Interpreter I(In);
      X.Source = I.eval(E.Ref);
      X.Target = I.eval(E.Cand);
    } catch (const EvalError &) {
    }
    X.SourceOrigin = E.RefWrite->From;
    X.TargetOrigin = E.CandFrom;
    // The input is the element's, mapped back from its class: the two
    // values it gives must still part, or nothing is shown.
    if (X.Source && X.Target && X.Source->Bits == X.Target->Bits) {
      Result.Kind = Verdict::Unknown;
      Result.Reason = Query + ": the input found does not replay on the "
                              "interpreter (" + E.Tensor +
                      describeIndex(E.Index) + " is the same on both sides)";
      return;
    }
    if (std::string Line = referenceIntermediates(E.Ref, In); !Line.empty())
      X.Notes.push_back(Line);
    std::string At = E.Tensor + describeIndex(E.Index);
    if (X.Source && X.Target &&
        std::isfinite(X.Source->Ty.isFloat() ? X.Source->asDouble() : 0) &&
        X.Target->Ty.isFloat() && !std::isfinite(X.Target->asDouble()))
      X.Explanation = "the kernel overflows to " + X.Target->str() + " at " +
                      At + " where the reference stays finite";
    else if (X.Source && X.Target && X.Source->Ty.isFloat()) {
      double Diff = std::fabs(X.Source->asDouble() - X.Target->asDouble());
      std::ostringstream S;
      S << "the kernel does not compute the reference at " << At
        << ": they differ by " << Diff;
      X.Explanation = S.str();
    } else {
      X.Explanation = "the kernel does not compute the reference at " + At;
    }
    Result.Kind = Verdict::Counterexample;
    Result.Cex = std::move(X);
  }

  /// The range question for one output: inf/NaN from the kernel where the
  /// reference is finite, searched by testing.
  bool checkRange(const std::string &Tensor) {
    auto Start = std::chrono::steady_clock::now();
    // The classes of one output are mostly the same computation over other
    // elements (the columns of a row reduction): the output's budget of
    // trials is shared among them, with a floor per class.
    std::vector<std::pair<const Element *, Canonical>> Classes;
    size_t Skipped = 0;
    for (const auto &Class : ClassesOf[Tensor])
      if (Reordered.count({Class.second.Ref, Class.second.Cand}))
        ++Skipped;
      else if (Class.first->Ref->type().isFloat())
        Classes.push_back(Class);
    const uint64_t Work = testingWork(Options.RangeMs);
    uint64_t Spent = 0;
    unsigned PerClass = std::max<unsigned>(
        8, Options.RangeTrials / std::max<size_t>(1, Classes.size()));
    uint64_t Tested = 0;
    for (const auto &[EP, K] : Classes) {
      const Element &E = *EP;
      const Expr *V =
          C.andOf(C.andOf(finiteInputs(K.Ref, K.Cand), isFinite(K.Ref)),
                  C.notOf(isFinite(K.Cand)));
      FalsifyOptions F;
      F.Trials = PerClass;
      F.Deadline = Options.Check.Solver.Deadline;
      F.WorkLimit = Work;
      F.WorkSpent = &Spent;
      std::optional<Env> Found =
          falsifyFinite(V, PerClass, Work, &Tested, &Spent);
      if (!Found && Spent < Work) {
        Tested += PerClass; // falsify() stops only when the work is done
        Found = falsify(V, F);
      }
      if (Found) {
        double Took = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
        Result.Queries.push_back({"range of " + Tensor,
                                  smt::Outcome::Counterexample,
                                  "found by testing", Took, ""});
        reportCounterexample("range of " + Tensor, E, K, shrink(V, *Found));
        return false;
      }
    }
    double Took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    Result.Queries.push_back(
        {"range of " + Tensor, smt::Outcome::Unknown,
         "no inf/NaN from finite reference values in at most " +
             std::to_string(Tested) + " tested inputs over " +
             std::to_string(Classes.size()) +
             " element classes" +
             (Spent >= Work ? " within its budget of testing" : "") +
             (Skipped ? "; not asked of " + std::to_string(Skipped) +
                            " element classes whose values are the "
                            "reference's sums and products in another "
                            "order (where those overflow depends on the "
                            "order, which the contract leaves free)"
                      : std::string()) +
             " (testing, not a proof; the verdict does not rest on it)",
         Took, ""});
    return true;
  }
};

} // namespace

PairResult checkFxToTtir(Context &C, const bundle::Manifest &M,
                         const KernelLifter &Lift, const FxToTtirOptions &O) {
  return FxToTtirCheck(C, M, Lift, O).run();
}

void registerFxToTtirChecker(KernelLifter Lift) {
  registerChecker(
      {Stage::FX, Stage::TTIR},
      [Lift](Context &C, const bundle::Manifest &M, const bundle::Launch *,
             const CheckOptions &O) {
        FxToTtirOptions F;
        F.Check = O;
        // The pair's contract is over the reals (design.md), whatever
        // arithmetic the kernel pairs of the same audit use.
        F.Check.Arithmetic = smt::Mode::Real;
        return checkFxToTtir(C, M, Lift, F);
      },
      "fx-ttir-8");
}

} // namespace stagecheck::stages

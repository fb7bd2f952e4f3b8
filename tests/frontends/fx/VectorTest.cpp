// The aten semantics table against torch itself. The vectors under
// vectors/ were captured on an H200 by scripts/capture_aten_vectors.py: for
// each case, the call as FX prints it, its inputs, torch's eager outputs and
// (where torch._decomp has one) the outputs of the op's decomposition run
// eagerly. Each case is lifted through the FX frontend as a one-node graph
// and evaluated by the concrete interpreter; it must reproduce torch:
//
//  - the reference is the decomposition's result where there is one (that
//    is what torch.compile and torch.export mean by the op), else eager's;
//  - bit for bit (NaN payloads aside, -0 != +0) when the element's value
//    involves no named function and no reassociated reduction;
//  - otherwise within a tolerance: named functions (exp, erf, tanh...)
//    take their value from the host libm, not from CUDA's, and torch's
//    reductions add in an order of their own. The tolerance is
//    |ours - torch| <= atol + rtol * |torch| with (rtol, atol) =
//    (1e-5, 1e-6) for f32 and f64 ((1e-4, 1e-4) where a reduction is
//    reassociated), (2e-3, 1e-3) for f16, (1.6e-2, 1e-2) for bf16, the
//    class of the value (NaN, +-inf, finite) being equal.
#include "frontends/fx/Graph.h"
#include "frontends/fx/Lift.h"
#include "ir/Errors.h"
#include "ir/Interpreter.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>
#include <sstream>

using namespace stagecheck;
using namespace stagecheck::fx;
namespace fs = std::filesystem;

namespace {

struct Tensor {
  DType Dt = DType::F32;
  Shape Sizes;
  std::vector<uint64_t> Bits;
};

unsigned elementBytes(DType D) {
  unsigned Bits = irType(D).bits();
  return Bits < 8 ? 1 : Bits / 8;
}

Tensor decode(const llvm::json::Object &O) {
  Tensor T;
  std::string D = O.getString("dtype").value_or("").str();
  if (!parseDTypeAbbreviation(D, T.Dt))
    throw std::runtime_error("bad dtype " + D);
  for (const llvm::json::Value &S : *O.getArray("shape"))
    T.Sizes.push_back(*S.getAsInteger());
  std::string Hex = O.getString("hex").value_or("").str();
  unsigned W = elementBytes(T.Dt);
  if (Hex.size() != size_t(numElements(T.Sizes)) * W * 2)
    throw std::runtime_error("hex of the wrong length");
  for (size_t E = 0; E < Hex.size() / (2 * W); ++E) {
    uint64_t V = 0;
    for (unsigned B = 0; B < W; ++B) // little-endian bytes
      V |= std::stoull(Hex.substr((E * W + B) * 2, 2), nullptr, 16) << (8 * B);
    T.Bits.push_back(V);
  }
  return T;
}

std::string annotation(const Tensor &T) {
  std::string S = std::string(abbreviation(T.Dt)) + "[";
  for (size_t I = 0; I < T.Sizes.size(); ++I)
    S += (I ? ", " : "") + std::to_string(T.Sizes[I]);
  return S + "]";
}

struct Case {
  std::string Id, Call;
  std::vector<std::pair<std::string, Tensor>> Inputs;
  std::vector<Tensor> Expected;
  bool Decomposed = false, Reassociates = false, Tuple = false;
};

std::vector<Case> loadCases(unsigned &Rejected) {
  std::vector<Case> Out;
  Rejected = 0;
  fs::path Dir = STAGECHECK_TEST_DIR "/frontends/fx/vectors";
  std::vector<fs::path> Files;
  for (const auto &E : fs::directory_iterator(Dir))
    if (E.path().extension() == ".json")
      Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  for (const fs::path &F : Files) {
    std::ifstream In(F);
    std::ostringstream S;
    S << In.rdbuf();
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(S.str());
    if (!V)
      throw std::runtime_error(F.string() + ": " +
                               llvm::toString(V.takeError()));
    for (const llvm::json::Value &CV : *V->getAsObject()->getArray("cases")) {
      const llvm::json::Object &CO = *CV.getAsObject();
      const llvm::json::Array *Ref = CO.getArray("decomposed");
      bool Decomposed = Ref != nullptr;
      if (!Ref)
        Ref = CO.getArray("eager");
      if (!Ref) { // torch rejected the arguments
        ++Rejected;
        continue;
      }
      Case C;
      C.Id = CO.getString("id").value_or("").str();
      C.Call = CO.getString("call").value_or("").str();
      C.Decomposed = Decomposed;
      C.Reassociates = CO.getBoolean("reassociates").value_or(false);
      C.Tuple = CO.getBoolean("tuple").value_or(false);
      for (const auto &[Name, T] : *CO.getObject("inputs"))
        C.Inputs.push_back({Name.str(), decode(*T.getAsObject())});
      std::sort(C.Inputs.begin(), C.Inputs.end(),
                [](const auto &A, const auto &B) { return A.first < B.first; });
      for (const llvm::json::Value &T : *Ref)
        C.Expected.push_back(decode(*T.getAsObject()));
      Out.push_back(std::move(C));
    }
  }
  return Out;
}

/// The one-node graph of a case, as FX would print it.
std::string graphText(const Case &C) {
  std::string S = "class Case(torch.nn.Module):\n    def forward(self";
  for (const auto &[Name, T] : C.Inputs)
    S += ", " + Name + ": \"" + annotation(T) + "\"";
  S += "):\n        r = " + C.Call + "\n";
  if (!C.Tuple)
    return S + "        return (r,)\n";
  std::string Ret = "        return (";
  for (size_t K = 0; K < C.Expected.size(); ++K) {
    S += "        o" + std::to_string(K) + " = r[" + std::to_string(K) + "]\n";
    Ret += "o" + std::to_string(K) + ", ";
  }
  return S + Ret + ")\n";
}

bool mentionsCall(const ir::Expr *E) {
  const ir::Expr *Roots[] = {E};
  for (const ir::Expr *N : ir::postOrder(Roots))
    if (N->op() == ir::Op::Call)
      return true;
  return false;
}

void tolerance(DType D, bool Reassociates, double &Rtol, double &Atol) {
  switch (D) {
  case DType::F16:
    Rtol = 2e-3, Atol = 1e-3;
    return;
  case DType::BF16:
    Rtol = 1.6e-2, Atol = 1e-2;
    return;
  default:
    // A sum of n terms in another order differs by up to n ulp of the
    // largest partial sum, which cancellation can make large against the
    // result: reassociated f32 results get an absolute slack.
    Rtol = Reassociates ? 1e-4 : 1e-5;
    Atol = Reassociates ? 1e-4 : 1e-6;
  }
}

bool close(const ir::Value &Ours, const ir::Value &Torch, DType D,
           bool Reassociates) {
  if (Ours.sameAs(Torch))
    return true;
  if (!Ours.Ty.isFloat())
    return false;
  double A = Ours.asDouble(), B = Torch.asDouble();
  if (std::isnan(A) || std::isnan(B) || std::isinf(A) || std::isinf(B))
    return false;
  double Rtol, Atol;
  tolerance(D, Reassociates, Rtol, Atol);
  return std::fabs(A - B) <= Atol + Rtol * std::fabs(B);
}

/// Where torch's eager CUDA result is known not to be the op's definition
/// the table follows, the reason and how many ulp apart the two may be.
///  - Division by a Python number: div_true_kernel_cuda multiplies by the
///    reciprocal of the number (so do the decompositions of hardsigmoid and
///    hardswish, which divide by 6, when run eagerly). The reference graph
///    means the quotient, and inductor's own x * 0.16666667f is what the
///    FX <-> TTIR check reports as "within tolerance".
///  - _native_batch_norm_legit_no_training: its decomposition calls
///    _native_batch_norm_legit, which runs the fused CUDA kernel, not the
///    decomposition's (x - mean) * invstd * weight + bias.
struct Deviation {
  std::string Reason;
  uint64_t MaxUlps = 0;
};

Deviation documentedDeviation(const Case &K) {
  const std::string &Call = K.Call;
  auto Has = [&](const char *S) { return Call.find(S) != std::string::npos; };
  if (Has("aten.hardsigmoid.") || Has("aten.hardswish."))
    return {"eager divides by 6 as a multiplication by its reciprocal", 1};
  if (Has("aten.div.Tensor(") && K.Inputs.size() == 1)
    return {"eager divides by a number as a multiplication by its reciprocal",
            1};
  // The kernel folds mean, invstd, weight and bias into one scale and shift.
  if (Has("aten._native_batch_norm_legit_no_training."))
    return {"the decomposition runs the fused CUDA batch norm kernel", 8};
  return {};
}

/// Distance in units in the last place between two finite floats of one
/// type (their positions in the ordered sequence of the type's values).
uint64_t ulpDistance(const ir::Value &A, const ir::Value &B) {
  unsigned W = A.Ty.bits();
  auto Ordered = [W](uint64_t Bits) {
    uint64_t Sign = uint64_t(1) << (W - 1);
    return (Bits & Sign) ? int64_t(0) - int64_t(Bits & ~Sign) : int64_t(Bits);
  };
  int64_t D = Ordered(A.Bits) - Ordered(B.Bits);
  return uint64_t(D < 0 ? -D : D);
}

struct Tally {
  unsigned Cases = 0, Decomposed = 0, Deviations = 0;
  uint64_t Exact = 0, Tolerated = 0;
};

/// Checks one case; returns the failures as text.
std::string checkCase(const Case &K, Tally &T) {
  ir::Context C;
  Graph G = parseGraph(graphText(K), K.Id);
  LiftedGraph L = liftGraph(C, G, {});
  if (L.Outputs.size() != K.Expected.size())
    return "the table gives " + std::to_string(L.Outputs.size()) +
           " outputs, torch " + std::to_string(K.Expected.size());
  ir::Env Base;
  for (const auto &[Name, In] : K.Inputs)
    for (size_t I = 0; I < In.Bits.size(); ++I)
      Base.setRead(Name, I, ir::Value::ofBits(irType(In.Dt), In.Bits[I]));
  std::ostringstream Fail;
  unsigned Shown = 0;
  size_t WriteIndex = 0;
  for (size_t O = 0; O < K.Expected.size(); ++O) {
    const Tensor &Want = K.Expected[O];
    const fx::Tensor &Got = L.Outputs[O];
    if (Got.dtype() != Want.Dt || Got.shape() != Want.Sizes) {
      Fail << "output " << O << ": the table gives "
           << abbreviation(Got.dtype()) << " of " << Got.numel()
           << " elements, torch " << annotation(Want) << "\n";
      continue;
    }
    if (Got.numel() == 0)
      continue;
    const ir::Write &W = L.Effects.Writes[WriteIndex++];
    bool Approximate = K.Reassociates || mentionsCall(W.Value);
    Deviation Dev = documentedDeviation(K);
    for (int64_t E = 0; E < Got.numel(); ++E) {
      ir::Env Env = Base;
      int64_t Rest = E;
      for (size_t D = W.Bound.size(); D-- > 0;) {
        Env.setSymbol(
            W.Bound[D].Symbol->name(),
            ir::Value::ofBits(ir::Type::i(64),
                              uint64_t(Rest % int64_t(W.Bound[D].Extent))));
        Rest /= int64_t(W.Bound[D].Extent);
      }
      ir::Interpreter I(Env);
      for (const ir::UndefinedBehavior &U : L.Effects.Undefined)
        if (U.Bound.size() == W.Bound.size() && I.eval(U.Condition).isTrue())
          Fail << "output " << O << "[" << E << "]: the inputs make the "
               << "reference undefined (" << U.Reason << ")\n";
      ir::Value Ours = I.eval(W.Value);
      ir::Value Torch =
          ir::Value::ofBits(irType(Want.Dt), Want.Bits[size_t(E)]);
      bool Ok = Approximate ? close(Ours, Torch, Want.Dt, K.Reassociates)
                            : Ours.sameAs(Torch);
      if (!Ok && Dev.MaxUlps && Ours.Ty.isFloat() && !Ours.isNaN() &&
          !Torch.isNaN())
        Ok = ulpDistance(Ours, Torch) <= Dev.MaxUlps;
      if (Ok) {
        ++(Ours.sameAs(Torch) ? T.Exact : T.Tolerated);
        continue;
      }
      if (Shown++ < 4)
        Fail << "output " << O << "[" << E << "]: table " << Ours.str()
             << ", torch " << Torch.str()
             << (Approximate ? " (beyond the tolerance)"
                             : " (bit-exact expected)")
             << "\n";
    }
  }
  ++T.Cases;
  T.Decomposed += K.Decomposed;
  T.Deviations += documentedDeviation(K).MaxUlps != 0;
  return Fail.str();
}

TEST(AtenVectors, TheTableReproducesTorch) {
  unsigned Rejected = 0;
  std::vector<Case> Cases = loadCases(Rejected);
  ASSERT_GE(Cases.size(), 300u) << "vectors missing";
  Tally T;
  std::map<std::string, unsigned> Ops;
  for (const Case &K : Cases) {
    std::string Failures;
    try {
      Failures = checkCase(K, T);
    } catch (const std::exception &E) {
      Failures = std::string("not lifted: ") + E.what();
    }
    EXPECT_TRUE(Failures.empty()) << K.Id << "\n  " << K.Call << "\n"
                                  << Failures;
    Ops[K.Id.substr(K.Id.rfind(':') + 1)]++;
  }
  std::cout << "[ vectors  ] " << T.Cases << " cases of " << Ops.size()
            << " overloads (" << T.Decomposed
            << " against torch._decomp's decomposition), " << T.Exact
            << " elements bit-exact, " << T.Tolerated << " within tolerance ("
            << T.Deviations
            << " cases with a documented eager deviation, within 1 to 8 ulp); "
            << Rejected << " argument sets rejected by torch\n";
}

} // namespace

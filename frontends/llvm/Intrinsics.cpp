// llvm.nvvm.* intrinsics, each lifted with the builder of the PTX
// instruction it lowers to (ptx_lifter/Semantics.h), so that LLVM IR and
// PTX lift one operation to one expression.
#include "frontends/llvm/FunctionLifter.h"

#include "ir/Errors.h"
#include "ptx_lifter/Collective.h"
#include "ptx_lifter/Semantics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

namespace {

/// An nvvm intrinsic's name after "llvm.nvvm.", split at dots, with its
/// float type suffix and .ftz taken out.
struct NvvmName {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  bool Ftz = false;
  bool Typed = false; // it ended in .f/.d/.f32/.f64/.f16/.bf16

  explicit NvvmName(llvm::StringRef Rest) {
    Rest.split(Parts, '.');
    static const char *const Suffixes[] = {"f",   "d",   "f32",
                                           "f64", "f16", "bf16"};
    for (const char *S : Suffixes)
      if (!Parts.empty() && Parts.back() == S) {
        Parts.pop_back();
        Typed = true;
        break;
      }
    auto It = llvm::find(Parts, "ftz");
    if (It != Parts.end()) {
      Ftz = true;
      Parts.erase(It);
    }
  }
  bool is(std::initializer_list<llvm::StringRef> Want) const {
    return Parts.size() == Want.size() &&
           std::equal(Want.begin(), Want.end(), Parts.begin());
  }
};

std::optional<RoundingMode> roundingOf(llvm::StringRef Token) {
  if (Token == "rn")
    return RoundingMode::NearestEven;
  if (Token == "rz")
    return RoundingMode::TowardZero;
  if (Token == "rm")
    return RoundingMode::Down;
  if (Token == "rp")
    return RoundingMode::Up;
  return std::nullopt;
}

unsigned dimension(llvm::StringRef Axis) {
  return Axis == "x" ? 0 : Axis == "y" ? 1 : Axis == "z" ? 2 : 3;
}

} // namespace

Lanes FunctionLifter::liftNvvmIntrinsic(const llvm::CallBase &Call,
                                        llvm::StringRef Name) {
  llvm::StringRef Rest = Name.drop_front(llvm::StringRef("llvm.nvvm.").size());
  bool Handled = false;
  Lanes R = liftNvvmArithmetic(Call, Rest, Handled);
  if (!Handled)
    R = liftNvvmCommunication(Call, Rest, Handled);
  if (!Handled)
    unsupported("unsupported instruction call @" + Name.str());
  return R;
}

Lanes FunctionLifter::liftNvvmArithmetic(const llvm::CallBase &Call,
                                         llvm::StringRef Rest, bool &Handled) {
  NvvmName N(Rest);
  auto Each = [&](auto Fn) { return mapLanes(Call, Fn); };
  using Args = std::span<const Expr *const>;
  // llvm.nvvm.f2i.rn.ftz and kin: cvt.rni.ftz.s32.f32 (saturating, NaN to
  // 0, as the IR's conversion is).
  if (N.Parts.size() == 2 && roundingOf(N.Parts[1]) &&
      (N.Parts[0].starts_with("f2") || N.Parts[0].starts_with("d2"))) {
    llvm::StringRef To = N.Parts[0].drop_front(2);
    bool Signed = To == "i" || To == "ll";
    if (To == "i" || To == "ui" || To == "ll" || To == "ull") {
      Handled = true;
      RoundingMode Mode = *roundingOf(N.Parts[1]);
      Type Result = Type::i(To.ends_with("ll") ? 64 : 32);
      bool Ftz = N.Ftz;
      return Each([&, Mode, Result, Signed, Ftz](Args A) {
        return C.cast(Signed ? Op::FPToSI : Op::FPToUI,
                      ptx::sem::flush(C, A[0], Ftz), Result, Mode);
      });
    }
  }
  if (!N.Typed && !N.is({"div", "full"}))
    return {};
  bool Ftz = N.Ftz;
  Handled = true;
  const auto &P = N.Parts;
  std::optional<RoundingMode> Mode =
      P.size() == 2 ? roundingOf(P[1]) : std::nullopt;
  if (Mode && P[0] == "fma")
    return Each(
        [&](Args A) { return ptx::sem::fma(C, A[0], A[1], A[2], *Mode, Ftz); });
  if (Mode && (P[0] == "add" || P[0] == "mul" || P[0] == "div")) {
    Op O = P[0] == "add" ? Op::FAdd : P[0] == "mul" ? Op::FMul : Op::FDiv;
    return Each([&, O](Args A) {
      return ptx::sem::arith(C, O, A[0], A[1], *Mode, Ftz);
    });
  }
  if (Mode && P[0] == "rcp")
    return Each(
        [&](Args A) { return ptx::sem::reciprocal(C, A[0], *Mode, Ftz); });
  if (Mode && P[0] == "sqrt")
    return Each([&](Args A) { return ptx::sem::sqrt(C, A[0], *Mode, Ftz); });
  // Approximate instructions are the named functions of their PTX spelling.
  if (N.is({"div", "full"}) || N.is({"div", "approx"}) ||
      N.is({"rcp", "approx"}) || N.is({"sqrt", "approx"}) ||
      N.is({"ex2", "approx"}) || N.is({"lg2", "approx"}) ||
      N.is({"rsqrt", "approx"}) || N.is({"sin", "approx"}) ||
      N.is({"cos", "approx"})) {
    std::string Function = (P[0] + "." + P[1]).str();
    return Each([&, Function](Args A) {
      return ptx::sem::approximate(C, Function, Ftz, A, Facts.SmVersion);
    });
  }
  // llvm.nvvm.round/trunc/floor/ceil are cvt.rni/rzi/rmi/rpi of a float to
  // its own type (round is to nearest even, unlike llvm.round).
  static const std::pair<const char *, RoundingMode> Integral[] = {
      {"round", RoundingMode::NearestEven},
      {"trunc", RoundingMode::TowardZero},
      {"floor", RoundingMode::Down},
      {"ceil", RoundingMode::Up}};
  for (const auto &[Spelling, M] : Integral)
    if (N.is({Spelling}))
      return Each([&, M](Args A) {
        return ptx::sem::roundToIntegral(C, A[0], M, Ftz);
      });
  if (N.is({"saturate"}))
    return Each([&](Args A) { return ptx::sem::saturate(C, A[0], Ftz); });
  if (N.is({"fabs"}))
    return Each([&](Args A) { return ptx::sem::abs(C, A[0], Ftz); });
  bool Min = !P.empty() && P[0] == "fmin", Max = !P.empty() && P[0] == "fmax";
  if ((Min || Max) && (P.size() == 1 || N.is({P[0], "nan"}))) {
    bool NaN = P.size() == 2;
    return Each([&, Max, NaN](Args A) {
      return ptx::sem::minMax(C, Max, A[0], A[1], NaN, Ftz);
    });
  }
  Handled = false;
  return {};
}

Lanes FunctionLifter::liftNvvmCommunication(const llvm::CallBase &Call,
                                            llvm::StringRef Rest,
                                            bool &Handled) {
  Handled = true;
  Origin From = origin(spell(Call));
  const Expr *True = C.trueExpr();
  if (Rest.consume_front("read.ptx.sreg.")) {
    auto [Register, Axis] = Rest.split('.');
    unsigned D = dimension(Axis);
    if (D < 3 && Register == "tid")
      return {defined(M.threadId(D))};
    if (D < 3 && Register == "ctaid")
      return {defined(M.programId(D))};
    if (D < 3 && Register == "nctaid")
      return {defined(M.numPrograms(D))};
    if (D < 3 && Register == "ntid")
      return {defined(M.blockDim(D))};
    if (Rest == "laneid")
      return {defined(M.laneId())};
    if (Rest == "warpsize")
      return {defined(M.warpSize())};
    Handled = false;
    return {};
  }
  // CTA-wide barriers (a count operand, which makes a partial barrier, is
  // not modelled).
  if (Rest == "barrier0" || Rest == "barrier.sync" || Rest == "bar.sync" ||
      Rest == "barrier.cta.sync.all" ||
      Rest == "barrier.cta.sync.aligned.all") {
    M.barrier(True, From);
    return {};
  }
  NvvmName N(Rest);
  const auto &P = N.Parts;
  if (P.size() == 4 && P[0] == "shfl" && P[1] == "sync") {
    static const std::pair<const char *, ptx::sem::ShuffleMode> Modes[] = {
        {"bfly", ptx::sem::ShuffleMode::Butterfly},
        {"idx", ptx::sem::ShuffleMode::Index},
        {"up", ptx::sem::ShuffleMode::Up},
        {"down", ptx::sem::ShuffleMode::Down}};
    llvm::StringRef Suffix = P[3];
    bool WithPredicate = Suffix.consume_back("p");
    for (const auto &[Spelling, Mode] : Modes) {
      if (P[2] != Spelling || (Suffix != "i32" && Suffix != "f32"))
        continue;
      // llvm.nvvm.shfl.sync.MODE(mask, value, lane, clamp).
      const Expr *Value = scalar(Call.getArgOperand(1)).V;
      auto [D, Pred] = ptx::sem::shuffle(
          M, Mode, M.toBits(Value), scalar(Call.getArgOperand(2)).V,
          scalar(Call.getArgOperand(3)).V, scalar(Call.getArgOperand(0)).V,
          True, From);
      Lanes R = {defined(M.fromBits(D, Value->type()))};
      if (WithPredicate)
        R.push_back(defined(Pred));
      return R;
    }
  }
  // llvm.nvvm.redux.sync.OP(value, membermask), OP as sem::warpReduce has it.
  if (P.size() == 3 && P[0] == "redux" && P[1] == "sync" &&
      ptx::sem::isWarpReduction(P[2].str())) {
    return {defined(ptx::sem::warpReduce(M, P[2].str(),
                                         scalar(Call.getArgOperand(0)).V,
                                         scalar(Call.getArgOperand(1)).V, True,
                                         From))};
  }
  // cp.async: the same builders as the PTX instructions (Collective.h).
  if (Rest == "cp.async.commit.group") {
    ptx::sem::cpAsyncCommit(M, True, From);
    return {};
  }
  if (Rest == "cp.async.wait.group") {
    auto *N = llvm::dyn_cast<llvm::ConstantInt>(Call.getArgOperand(0));
    if (!N)
      unsupported("cp.async.wait.group of a variable count");
    ptx::sem::cpAsyncWait(M, unsigned(N->getZExtValue()), True, From);
    return {};
  }
  if (Rest == "cp.async.wait.all") {
    // wait_all is commit_group then wait_group 0, as the PTX lifter has it.
    ptx::sem::cpAsyncCommit(M, True, From);
    ptx::sem::cpAsyncWait(M, 0, True, From);
    return {};
  }
  // llvm.nvvm.cp.async.{ca,cg}.shared.global.N[.s](dst, src[, src-size])
  bool WithSize = P.size() == 7 && P[6] == "s";
  unsigned Bytes = 0;
  if ((P.size() == 6 || WithSize) && P[0] == "cp" && P[1] == "async" &&
      (P[2] == "ca" || P[2] == "cg") && P[3] == "shared" && P[4] == "global" &&
      !P[5].getAsInteger(10, Bytes)) {
    ptx::sem::cpAsync(M, address(Call.getArgOperand(0)),
                      address(Call.getArgOperand(1)), Bytes,
                      WithSize ? scalar(Call.getArgOperand(2)).V : nullptr,
                      True, From);
    return {};
  }
  // Matrix loads and stores of shared memory: exchanges named by the PTX
  // instruction they lower to (ldmatrix...x4.trans.b16.p3 is
  // ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16).
  bool Load = Rest.starts_with("ldmatrix."),
       Store = Rest.starts_with("stmatrix.");
  if ((Load || Store) && Rest.ends_with(".p3")) {
    llvm::StringRef Body = Rest.drop_back(3);
    auto [Head, Element] = Body.rsplit('.');
    std::string Kind = (Head + ".shared." + Element).str();
    const Expr *Address = address(Call.getArgOperand(0));
    Lanes R;
    if (Load) {
      unsigned Count = unsigned(laneTypes(Call.getType()).size());
      for (const Expr *X :
           ptx::sem::matrixLoad(M, Kind, Address, Count, True, From))
        R.push_back(defined(X));
      return R;
    }
    std::vector<const Expr *> Fragments;
    for (unsigned K = 1; K < Call.arg_size(); ++K)
      Fragments.push_back(scalar(Call.getArgOperand(K)).V);
    ptx::sem::matrixStore(M, Kind, Address, Fragments, True, From);
    return R;
  }
  Handled = false;
  return {};
}

} // namespace stagecheck::llvmir

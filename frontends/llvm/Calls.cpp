// Calls: inline PTX, __nvvm_reflect, and the target-independent llvm.*
// intrinsics. llvm.nvvm.* intrinsics are in Intrinsics.cpp.
#include "frontends/llvm/FunctionLifter.h"

#include "ir/Errors.h"
#include "ptx_lifter/PtxLifter.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

/// The text of a pointer to a constant global string, up to its first NUL.
static std::optional<std::string> constantString(const llvm::Value *V) {
  auto *G = llvm::dyn_cast<llvm::GlobalVariable>(V->stripPointerCasts());
  auto *Text =
      G && G->hasInitializer()
          ? llvm::dyn_cast<llvm::ConstantDataSequential>(G->getInitializer())
          : nullptr;
  if (!Text || !Text->isString())
    return std::nullopt;
  return Text->getAsString().split('\0').first.str();
}

Lanes FunctionLifter::liftCall(const llvm::CallBase &Call) {
  if (Call.isInlineAsm())
    return liftInlineAsm(Call);
  const llvm::Function *Callee = Call.getCalledFunction();
  if (!Callee)
    unsupported("unsupported instruction indirect call");
  llvm::StringRef Name = Callee->getName();
  if (Name == "__nvvm_reflect")
    return liftReflect(Call);
  if (Name == "__assertfail") {
    // Triton's tt.assert: the thread stops the kernel with the message.
    // The TTGIR says "undefined where the assertion fails"; so does this.
    std::string Message =
        constantString(Call.getArgOperand(0)).value_or("");
    M.undefined(C.trueExpr(), "device assertion failed: " + Message,
                origin(spell(Call)));
    return {};
  }
  if (Name.starts_with("llvm.nvvm."))
    return liftNvvmIntrinsic(Call, Name);
  if (Name.starts_with("llvm."))
    return liftLlvmIntrinsic(Call, Name);
  unsupported("unsupported instruction call @" + Name.str());
}

//===----------------------------------------------------------------------===//
// Inline PTX
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::liftInlineAsm(const llvm::CallBase &Call) {
  auto *Asm = llvm::cast<llvm::InlineAsm>(Call.getCalledOperand());
  // Operands as PTX registers see them: a pointer is its address, a vector
  // its lanes' bits side by side.
  std::vector<const Expr *> Inputs;
  std::vector<std::pair<const Expr *, const Expr *>> LaneDefinedness;
  for (const llvm::Value *Arg : Call.args()) {
    const Lanes &L = operand(Arg);
    for (const Lane &X : L)
      if (!X.Def->isTrue())
        for (const Expr *V : {X.V, M.toBits(X.V)})
          LaneDefinedness.push_back({V, X.Def});
    if (L.size() == 1) {
      Inputs.push_back(L[0].V);
      continue;
    }
    unsigned Bits = 0;
    for (const Lane &X : L)
      Bits += X.V->type().bits();
    Inputs.push_back(reinterpret(L, {Type::i(Bits)})[0].V);
  }
  std::vector<llvm::Type *> Outputs;
  llvm::Type *RT = Call.getType();
  if (auto *S = llvm::dyn_cast<llvm::StructType>(RT))
    Outputs.assign(S->element_begin(), S->element_end());
  else if (!RT->isVoidTy())
    Outputs.push_back(RT);
  std::vector<Type> OutputTypes;
  for (llvm::Type *T : Outputs)
    OutputTypes.push_back(
        T->isVectorTy() ? Type::i(unsigned(Facts.Layout->getTypeSizeInBits(T)))
                        : scalarType(T));
  // What the asm stores from a poison operand lane is not defined (while
  // it is lifted, however that ends).
  struct OperandScope {
    ptx::ThreadModel &M;
    ~OperandScope() { M.setOperandDefinedness({}); }
  } Scope{M};
  M.setOperandDefinedness(std::move(LaneDefinedness));
  std::vector<const Expr *> Results = ptx::liftInlineAsm(
      M, Asm->getAsmString(), Asm->getConstraintString(), Inputs, OutputTypes,
      origin(spell(Call)), Facts.SmVersion);
  if (Results.size() != Outputs.size())
    unsupported("inline asm with " + std::to_string(Outputs.size()) +
                " outputs lifted to " + std::to_string(Results.size()));
  Lanes Out;
  for (unsigned K = 0; K < Outputs.size(); ++K) {
    Lanes Part = reinterpret({defined(Results[K])}, laneTypes(Outputs[K]));
    Out.insert(Out.end(), Part.begin(), Part.end());
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// __nvvm_reflect
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::liftReflect(const llvm::CallBase &Call) {
  std::optional<std::string> Key = constantString(Call.getArgOperand(0));
  if (!Key)
    unsupported("__nvvm_reflect of something other than a constant string");
  // What LLVM 22's NVVMReflect pass answers: __CUDA_FTZ from the module
  // flag, __CUDA_ARCH from the target; it reads no flag for
  // __CUDA_PREC_SQRT (the third key libdevice asks) and answers 0.
  int Answer;
  if (Key == "__CUDA_FTZ")
    Answer = Facts.ReflectFtz;
  else if (Key == "__CUDA_ARCH") {
    if (!Facts.SmVersion)
      unsupported("__nvvm_reflect(\"__CUDA_ARCH\") without a known target "
                  "architecture");
    Answer = int(Facts.SmVersion * 10);
  } else if (Key == "__CUDA_PREC_SQRT")
    Answer = 0;
  else
    unsupported("__nvvm_reflect(\"" + *Key + "\")");
  return {defined(C.intConst(scalarType(Call.getType()), Answer))};
}

//===----------------------------------------------------------------------===//
// llvm.* intrinsics
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::mapLanes(
    const llvm::CallBase &Call,
    const std::function<const Expr *(std::span<const Expr *const>)> &Fn) {
  std::vector<const Lanes *> Args;
  unsigned N = 1;
  for (const llvm::Value *A : Call.args()) {
    if (A->getType()->isMetadataTy())
      continue;
    Args.push_back(&operand(A));
    N = std::max<unsigned>(N, Args.back()->size());
  }
  Lanes Out;
  for (unsigned L = 0; L < N; ++L) {
    std::vector<const Expr *> Values;
    const Expr *Def = C.trueExpr();
    for (const Lanes *A : Args) {
      const Lane &X = (*A)[A->size() == 1 ? 0 : L];
      Values.push_back(X.V);
      Def = C.andOf(Def, X.Def);
    }
    const Expr *R = Fn(Values);
    const Expr *Poison = fastMathPoison(C, Call, {R});
    for (const Expr *V : Values)
      Poison = C.orOf(Poison, fastMathPoison(C, Call, {V}));
    Out.push_back({R, C.andOf(Def, C.notOf(Poison))});
  }
  return Out;
}

namespace {

/// A flag operand (is_zero_poison, is_int_min_poison): true when set.
bool flagSet(const llvm::CallBase &Call, unsigned K) {
  auto *F = llvm::dyn_cast<llvm::ConstantInt>(Call.getArgOperand(K));
  return F && !F->isZero();
}

} // namespace

Lanes FunctionLifter::liftLlvmIntrinsic(const llvm::CallBase &Call,
                                        llvm::StringRef Name) {
  namespace In = llvm::Intrinsic;
  auto Binary = [&](Op O) {
    return mapLanes(Call, [&, O](std::span<const Expr *const> A) {
      return A[0]->type().isFloat() ? C.floatBinary(O, A[0], A[1])
                                    : C.binary(O, A[0], A[1]);
    });
  };
  auto Unary = [&](Op O) {
    return mapLanes(Call, [&, O](std::span<const Expr *const> A) {
      return C.unary(O, A[0]);
    });
  };
  auto Rounded = [&](Op O, RoundingMode R) {
    return mapLanes(Call, [&, O, R](std::span<const Expr *const> A) {
      const Expr *Ops[] = {A[0]};
      return C.make(O, Ops, uint8_t(R));
    });
  };
  // The poison-flag operand of abs/ctlz/cttz is not a lane of the result.
  auto WithoutFlag = [&](auto Fn) {
    bool Flag = flagSet(Call, 1);
    Lanes Result;
    for (const Lane &X : operand(Call.getArgOperand(0))) {
      auto [R, PoisonIf] = Fn(X.V);
      Result.push_back({R, Flag ? C.andOf(X.Def, C.notOf(PoisonIf)) : X.Def});
    }
    return Result;
  };
  switch (Call.getIntrinsicID()) {
  // Funnel shifts of 32 bits are shf.l.wrap / shf.r.wrap, built as the PTX
  // lifter builds them: fshl(hi, lo, n) is shf.l.wrap(lo, hi, n).
  case In::fshl:
  case In::fshr: {
    bool Left = Call.getIntrinsicID() == In::fshl;
    return mapLanes(Call, [&, Left](std::span<const Expr *const> A) {
      Type T = A[0]->type();
      if (T.bits() != 32)
        unsupported("funnel shift of " + T.str());
      const Expr *Pair = M.concat({A[1], A[0]});
      const Expr *N = C.cast(Op::ZExt,
                             C.binary(Op::And, A[2], C.constant(T, 31)),
                             Type::i(64));
      return Left ? M.split(C.binary(Op::Shl, Pair, N), 2)[1]
                  : M.split(C.binary(Op::LShr, Pair, N), 2)[0];
    });
  }
  // LLVM's minnum may return either zero of -0/+0; fminnum orders -0
  // below +0 as PTX min does (docs/design-decisions.md).
  case In::minnum:
  case In::minimumnum:
    return Binary(Op::FMinNum);
  case In::maxnum:
  case In::maximumnum:
    return Binary(Op::FMaxNum);
  case In::minimum:
    return Binary(Op::FMinimum);
  case In::maximum:
    return Binary(Op::FMaximum);
  case In::copysign:
    return Binary(Op::FCopySign);
  case In::smin:
    return Binary(Op::SMin);
  case In::smax:
    return Binary(Op::SMax);
  case In::umin:
    return Binary(Op::UMin);
  case In::umax:
    return Binary(Op::UMax);
  case In::fabs:
    return Unary(Op::FAbs);
  case In::ctpop:
    return Unary(Op::Popc);
  case In::bitreverse:
    return Unary(Op::BitReverse);
  case In::sqrt:
    return Rounded(Op::FSqrt, RoundingMode::NearestEven);
  case In::floor:
    return Rounded(Op::FRoundInt, RoundingMode::Down);
  case In::ceil:
    return Rounded(Op::FRoundInt, RoundingMode::Up);
  case In::trunc:
    return Rounded(Op::FRoundInt, RoundingMode::TowardZero);
  case In::rint:
  case In::nearbyint:
  case In::roundeven:
    return Rounded(Op::FRoundInt, RoundingMode::NearestEven);
  case In::round:
    return Rounded(Op::FRoundInt, RoundingMode::NearestAway);
  case In::fptosi_sat:
  case In::fptoui_sat: {
    // The IR's conversions saturate and take NaN to 0, as these do: no
    // poison, unlike fptosi/fptoui.
    Op O = Call.getIntrinsicID() == In::fptosi_sat ? Op::FPToSI : Op::FPToUI;
    Type To = scalarType(Call.getType()->getScalarType());
    return mapLanes(Call, [&, O, To](std::span<const Expr *const> A) {
      return C.cast(O, A[0], To, RoundingMode::TowardZero);
    });
  }
  case In::fma:
    return mapLanes(Call, [&](std::span<const Expr *const> A) {
      return C.fma(A[0], A[1], A[2]);
    });
  case In::fmuladd:
    // Either fused or not: the unfused form, marked contractible.
    return mapLanes(Call, [&](std::span<const Expr *const> A) {
      const Expr *Sum =
          C.floatBinary(Op::FAdd, C.floatBinary(Op::FMul, A[0], A[1]), A[2]);
      if (Sum->op() == Op::FAdd)
        Out.Contractible.insert(Sum);
      return Sum;
    });
  case In::abs:
    return WithoutFlag([&](const Expr *X) {
      return std::pair{
          C.unary(Op::Abs, X),
          C.eq(X, C.constant(X->type(), 1ull << (X->type().bits() - 1)))};
    });
  case In::ctlz:
    return WithoutFlag([&](const Expr *X) {
      return std::pair{C.unary(Op::Clz, X), C.eq(X, C.constant(X->type(), 0))};
    });
  case In::cttz:
    return WithoutFlag([&](const Expr *X) {
      return std::pair{C.unary(Op::Clz, C.unary(Op::BitReverse, X)),
                       C.eq(X, C.constant(X->type(), 0))};
    });
  case In::assume: {
    // A false (or poison) assumption is undefined behaviour.
    Lane Cond = scalar(Call.getArgOperand(0));
    M.undefined(C.orOf(C.notOf(Cond.Def), C.notOf(Cond.V)),
                "llvm.assume does not hold", origin(spell(Call)));
    return {};
  }
  case In::lifetime_start:
  case In::lifetime_end:
  case In::donothing:
  case In::sideeffect:
  case In::experimental_noalias_scope_decl:
    return {}; // no meaning for a thread's effects
  default:
    unsupported("unsupported instruction call @" + Name.str());
  }
}

} // namespace stagecheck::llvmir

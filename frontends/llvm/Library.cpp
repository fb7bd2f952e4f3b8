// Device-function libraries (libdevice.10.bc): a function of scalars lifted
// to the expression it returns, so that a call the TTGIR leaves
// uninterpreted gets the meaning of the body the LLVM IR inlines.
#include "frontends/llvm/FunctionLifter.h"
#include "frontends/llvm/LlvmLifter.h"

#include "ir/Errors.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

struct LlvmLibrary::Impl {
  std::string Path;
  std::unique_ptr<llvm::LLVMContext> Context; // outlives Module
  std::unique_ptr<llvm::Module> Module;
};

LlvmLibrary::LlvmLibrary(std::unique_ptr<Impl> P) : P(std::move(P)) {}
LlvmLibrary::~LlvmLibrary() = default;

std::unique_ptr<LlvmLibrary> LlvmLibrary::open(const std::string &Path) {
  auto I = std::make_unique<Impl>();
  I->Path = Path;
  I->Context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic Err;
  // parseIRFile reads bitcode and text alike.
  I->Module = llvm::parseIRFile(Path, Err, *I->Context);
  if (!I->Module)
    throw InputError({Path, unsigned(std::max(Err.getLineNo(), 0)), 0},
                     "cannot read " + Path + ": " + Err.getMessage().str());
  return std::unique_ptr<LlvmLibrary>(new LlvmLibrary(std::move(I)));
}

bool LlvmLibrary::defines(const std::string &Function) const {
  const llvm::Function *F = P->Module->getFunction(Function);
  return F && !F->isDeclaration();
}

namespace {

bool scalarLlvmType(llvm::Type *T, Type &Out) {
  if (auto *I = llvm::dyn_cast<llvm::IntegerType>(T)) {
    if (I->getBitWidth() > 64)
      return false;
    Out = Type::i(I->getBitWidth());
    return true;
  }
  if (T->isHalfTy())
    Out = Type::f16();
  else if (T->isBFloatTy())
    Out = Type::bf16();
  else if (T->isFloatTy())
    Out = Type::f32();
  else if (T->isDoubleTy())
    Out = Type::f64();
  else
    return false;
  return true;
}

} // namespace

FunctionBody LlvmLibrary::lift(Context &C, const std::string &Function,
                               int ReflectFtz, unsigned SmVersion) const {
  SourceLocation Where{P->Path, 0, 0};
  const llvm::Function *F = P->Module->getFunction(Function);
  if (!F || F->isDeclaration())
    throw UnsupportedError(Where, "no function " + Function + " in " + P->Path);
  // Parameters are the interface of a one-thread "kernel": scalars named
  // after the function, so bodies of different functions never share them.
  KernelInterface I;
  I.Kernel = Function;
  for (const llvm::Argument &A : F->args()) {
    KernelParam Param;
    Param.Name = Function + ".p" + std::to_string(A.getArgNo());
    if (!scalarLlvmType(A.getType(), Param.Element))
      throw UnsupportedError(Where, Function + " takes a parameter that is "
                                              "not a scalar");
    I.Params.push_back(Param);
  }
  Type ResultType = Type::f32();
  if (!scalarLlvmType(F->getReturnType(), ResultType))
    throw UnsupportedError(Where, Function + " does not return a scalar");
  ModuleFacts Facts;
  Facts.Layout = &P->Module->getDataLayout();
  Facts.FileName = P->Path;
  Facts.ReflectFtz = ReflectFtz;
  Facts.SmVersion = SmVersion;
  ptx::ThreadModel M(C, I, {1, 1, 1});
  LlvmLiftOptions O;
  LlvmLift Out;
  FunctionLifter(C, M, *F, Facts, O, Out).run();
  Out.Thread = M.finish();
  const ptx::ThreadEffects &T = Out.Thread;
  if (!T.Effects.Writes.empty() || !T.Effects.Atomics.empty() ||
      !T.Exchanges.empty() || !T.Effects.Buffers.empty())
    throw UnsupportedError(Where, Function + " touches memory");
  if (!T.Bounds.empty())
    throw UnsupportedError(Where, Function + " has a loop that does not "
                                            "unroll completely");
  if (Out.ReturnValue.size() != 1)
    throw UnsupportedError(Where, Function + " returns no single value");
  FunctionBody B;
  for (const KernelParam &Param : I.Params)
    B.Params.push_back(C.symbol(Param.Name, Param.Element, SymbolRole::Param));
  B.Result = Out.ReturnValue[0];
  B.Defined = Out.ReturnDefined[0];
  B.Undefined = T.Effects.Undefined;
  return B;
}

} // namespace stagecheck::llvmir

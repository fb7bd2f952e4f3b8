// Reading a .llir file: parsing, the kernel, its block size and the
// module facts the lift needs; the sites (lines, !dbg locations,
// provenance) every lifted node and effect carries.
#include "frontends/llvm/LlvmLifter.h"
#include "frontends/llvm/FunctionLifter.h"

#include "ir/Errors.h"
#include "ptx_lifter/PtxLifter.h"

#include "llvm/AsmParser/AsmParserContext.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

namespace {

/// A parsed module with the file positions the parser recorded.
struct ParsedModule {
  std::unique_ptr<llvm::LLVMContext> Context; // outlives Module
  std::unique_ptr<llvm::Module> Module;
  std::unique_ptr<llvm::AsmParserContext> Locations;
};

ParsedModule parse(std::string_view Text, const std::string &FileName) {
  ParsedModule P;
  P.Context = std::make_unique<llvm::LLVMContext>();
  P.Locations = std::make_unique<llvm::AsmParserContext>();
  llvm::SMDiagnostic Err;
  llvm::MemoryBufferRef Buffer(llvm::StringRef(Text.data(), Text.size()),
                               FileName);
  P.Module = llvm::parseAssembly(
      Buffer, Err, *P.Context, nullptr,
      [](llvm::StringRef, llvm::StringRef) { return std::nullopt; },
      P.Locations.get());
  if (!P.Module)
    throw InputError({FileName, unsigned(std::max(Err.getLineNo(), 0)),
                      unsigned(Err.getColumnNo() + 1)},
                     Err.getMessage().str());
  std::string Problems;
  llvm::raw_string_ostream OS(Problems);
  if (llvm::verifyModule(*P.Module, &OS)) {
    std::string First = Problems.substr(0, Problems.find('\n'));
    throw InputError({FileName, 0, 0}, "invalid LLVM IR: " + First);
  }
  return P;
}

bool isKernel(const llvm::Function &F) {
  if (F.isDeclaration())
    return false;
  if (F.getCallingConv() == llvm::CallingConv::PTX_Kernel)
    return true;
  // Older modules mark kernels in !nvvm.annotations.
  if (const llvm::NamedMDNode *N =
          F.getParent()->getNamedMetadata("nvvm.annotations"))
    for (const llvm::MDNode *Entry : N->operands()) {
      if (Entry->getNumOperands() < 3)
        continue;
      auto *V =
          llvm::dyn_cast_or_null<llvm::ValueAsMetadata>(Entry->getOperand(0));
      auto *Key = llvm::dyn_cast_or_null<llvm::MDString>(Entry->getOperand(1));
      if (V && V->getValue() == &F && Key && Key->getString() == "kernel")
        return true;
    }
  return false;
}

const llvm::Function &findKernel(const llvm::Module &M, const std::string &Name,
                                 const std::string &FileName) {
  if (!Name.empty()) {
    const llvm::Function *F = M.getFunction(Name);
    if (!F || F->isDeclaration())
      throw InputError({FileName, 0, 0},
                       "no kernel " + Name + " in the module");
    return *F;
  }
  std::vector<const llvm::Function *> Kernels;
  for (const llvm::Function &F : M)
    if (isKernel(F))
      Kernels.push_back(&F);
  if (Kernels.size() != 1)
    throw InputError({FileName, 0, 0},
                     Kernels.empty() ? "no ptx_kernel function in the module"
                                     : "several kernels in the module; name "
                                       "the one to lift");
  return *Kernels[0];
}

/// The required block size: "nvvm.reqntid"="128[,y[,z]]", or the
/// reqntid{x,y,z} entries of !nvvm.annotations; {0,0,0} when none.
std::array<unsigned, 3> blockSize(const llvm::Function &F,
                                  const std::string &FileName) {
  std::array<unsigned, 3> D = {0, 0, 0};
  llvm::Attribute A = F.getFnAttribute("nvvm.reqntid");
  if (A.isStringAttribute()) {
    llvm::SmallVector<llvm::StringRef, 3> Parts;
    A.getValueAsString().split(Parts, ',');
    if (Parts.size() > 3)
      throw InputError({FileName, 0, 0}, "malformed nvvm.reqntid");
    D = {1, 1, 1};
    for (unsigned K = 0; K < Parts.size(); ++K)
      if (Parts[K].trim().getAsInteger(10, D[K]) || !D[K])
        throw InputError({FileName, 0, 0}, "malformed nvvm.reqntid \"" +
                                               A.getValueAsString().str() +
                                               "\"");
    return D;
  }
  const llvm::NamedMDNode *N =
      F.getParent()->getNamedMetadata("nvvm.annotations");
  if (!N)
    return D;
  bool Found = false;
  for (const llvm::MDNode *Entry : N->operands()) {
    auto *V = Entry->getNumOperands()
                  ? llvm::dyn_cast_or_null<llvm::ValueAsMetadata>(
                        Entry->getOperand(0))
                  : nullptr;
    if (!V || V->getValue() != &F)
      continue;
    for (unsigned K = 1; K + 1 < Entry->getNumOperands(); K += 2) {
      auto *Key = llvm::dyn_cast<llvm::MDString>(Entry->getOperand(K));
      auto *Value = llvm::mdconst::dyn_extract<llvm::ConstantInt>(
          Entry->getOperand(K + 1));
      if (!Key || !Value || !Key->getString().starts_with("reqntid") ||
          Key->getString().size() != 8)
        continue;
      unsigned Dim = unsigned(Key->getString().back() - 'x');
      if (Dim < 3) {
        D[Dim] = unsigned(Value->getZExtValue());
        Found = true;
      }
    }
  }
  if (Found)
    for (unsigned &X : D)
      X = X ? X : 1;
  return D;
}

/// sm_90 and sm_90a are 90.
unsigned smVersion(const llvm::Function &F, unsigned Capability) {
  if (Capability)
    return Capability;
  llvm::StringRef CPU = F.getFnAttribute("target-cpu").getValueAsString();
  return CPU.starts_with("sm_") ? ptx::targetSmVersion(CPU) : 0;
}

int reflectFtz(const llvm::Module &M) {
  auto *Flag = llvm::mdconst::extract_or_null<llvm::ConstantInt>(
      M.getModuleFlag("nvvm-reflect-ftz"));
  return Flag ? int(Flag->getSExtValue()) : 0;
}

/// Whether a line of .ll text starts an instruction (not a label, a
/// comment, a debug record or the closing brace).
bool startsInstruction(llvm::StringRef Line) {
  Line = Line.ltrim();
  if (Line.empty() || Line[0] == ';' || Line[0] == '#' || Line[0] == '}')
    return false;
  llvm::StringRef First = Line.take_until(
      [](char Ch) { return Ch == ' ' || Ch == '\t' || Ch == ';'; });
  return !First.ends_with(":");
}

/// The .llir line of each of F's instructions. The parser records where
/// each instruction it read starts; an instruction it replaced while
/// reading (an intrinsic call upgraded to its current form) has none, and
/// takes the next line after its predecessor's that starts an instruction
/// (the file and the module list instructions in the same order).
llvm::DenseMap<const llvm::Instruction *, unsigned>
instructionLines(const llvm::Function &F, const llvm::AsmParserContext &Where,
                 std::string_view Text) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  llvm::StringRef(Text.data(), Text.size()).split(Lines, '\n');
  llvm::DenseMap<const llvm::Instruction *, unsigned> Out;
  unsigned Cursor = 0;
  if (auto R = Where.getFunctionLocation(&F))
    Cursor = R->Start.Line + 1;
  for (const llvm::BasicBlock &B : F)
    for (const llvm::Instruction &I : B) {
      unsigned Line = 0;
      if (auto R = Where.getInstructionLocation(&I)) {
        Line = R->Start.Line + 1;
      } else {
        for (unsigned K = Cursor + 1; K <= Lines.size() && !Line; ++K)
          if (startsInstruction(Lines[K - 1]))
            Line = K;
      }
      Out[&I] = Line;
      Cursor = Line ? Line : Cursor;
    }
  return Out;
}

/// The first PTX instruction an inline-asm template runs that is not a
/// mov (which only sets defaults): "ld.global.b32".
std::string asmMnemonic(llvm::StringRef Template) {
  llvm::SmallVector<llvm::StringRef, 8> Statements;
  Template.split(Statements, ';');
  std::string First;
  for (llvm::StringRef S : Statements) {
    S = S.trim();
    if (S.consume_front("@")) // a guard predicate: @$2 or @!$2
      S = S.drop_until([](char Ch) { return Ch == ' ' || Ch == '\t'; }).ltrim();
    llvm::StringRef Op =
        S.take_until([](char Ch) { return Ch == ' ' || Ch == '\t'; });
    if (Op.empty())
      continue;
    if (!Op.starts_with("mov."))
      return Op.str();
    if (First.empty())
      First = Op.str();
  }
  return First;
}

} // namespace

//===----------------------------------------------------------------------===//
// Sites
//===----------------------------------------------------------------------===//

void FunctionLifter::unsupported(const std::string &What) const {
  throw UnsupportedError(Current ? llirLocation(*Current)
                                 : SourceLocation{Facts.FileName, 0, 0},
                         What);
}

SourceLocation FunctionLifter::llirLocation(const llvm::Instruction &I) const {
  return {Facts.FileName, Facts.Lines.lookup(&I), 0};
}

SourceLocation
FunctionLifter::sourceLocation(const llvm::Instruction &I) const {
  const llvm::DILocation *L = I.getDebugLoc().get();
  if (!L)
    return {};
  // Inlined code: the innermost position in the kernel's own file (what
  // the author wrote), else the outermost call site.
  llvm::StringRef Own =
      F.getSubprogram() ? F.getSubprogram()->getFilename() : "";
  const llvm::DILocation *Pick = L;
  for (const llvm::DILocation *X = L; X; X = X->getInlinedAt()) {
    Pick = X;
    if (X->getFilename() == Own)
      break;
  }
  return {Pick->getFilename().str(), Pick->getLine(), Pick->getColumn()};
}

Origin FunctionLifter::origin(std::string Op) const {
  return {std::move(Op), Current ? sourceLocation(*Current) : SourceLocation{}};
}

std::string FunctionLifter::spell(const llvm::Instruction &I) const {
  if (auto *Call = llvm::dyn_cast<llvm::CallBase>(&I)) {
    if (Call->isInlineAsm())
      return "asm " +
             asmMnemonic(llvm::cast<llvm::InlineAsm>(Call->getCalledOperand())
                             ->getAsmString());
    if (const llvm::Function *Callee = Call->getCalledFunction())
      return "call @" + Callee->getName().str();
  }
  return I.getOpcodeName();
}

void FunctionLifter::withSites(const llvm::Instruction &I,
                               const std::function<void()> &Lift) {
  const llvm::Instruction *Outer = Current;
  Current = &I;
  const ptx::ThreadEffects &T = M.current();
  size_t Writes = T.Effects.Writes.size(),
         Undefined = T.Effects.Undefined.size();
  size_t Atomics = T.Effects.Atomics.size(), Exchanges = T.Exchanges.size();
  unsigned Before = unsigned(C.numNodes());
  try {
    Lift();
  } catch (UnsupportedError &E) {
    if (E.Where.known())
      throw;
    throw UnsupportedError(llirLocation(I), E.What);
  }
  unsigned Line = Facts.Lines.lookup(&I);
  Out.WriteLines.resize(T.Effects.Writes.size(), Line);
  Out.UndefinedLines.resize(T.Effects.Undefined.size(), Line);
  Out.AtomicLines.resize(T.Effects.Atomics.size(), Line);
  Out.ExchangeLines.resize(T.Exchanges.size(), Line);
  Out.GlobalReadLines.resize(T.GlobalReads.size(), Line);
  // The nodes this instruction made, reachable from its value or effects.
  std::vector<const Expr *> Work;
  auto It = Values.find(&I);
  if (It != Values.end())
    for (const Lane &L : It->second)
      Work.insert(Work.end(), {L.V, L.Def});
  for (size_t K = Writes; K < T.Effects.Writes.size(); ++K) {
    const Write &W = T.Effects.Writes[K];
    Work.insert(Work.end(), {W.Guard, W.Index, W.Value, W.Defined});
  }
  for (size_t K = Undefined; K < T.Effects.Undefined.size(); ++K)
    Work.push_back(T.Effects.Undefined[K].Condition);
  for (size_t K = Atomics; K < T.Effects.Atomics.size(); ++K) {
    const Atomic &A = T.Effects.Atomics[K];
    Work.insert(Work.end(), {A.Guard, A.Index, A.Value});
  }
  for (size_t K = Exchanges; K < T.Exchanges.size(); ++K) {
    const ptx::Exchange &X = T.Exchanges[K];
    Work.push_back(X.Guard);
    Work.insert(Work.end(), X.Operands.begin(), X.Operands.end());
    Work.insert(Work.end(), X.Results.begin(), X.Results.end());
  }
  LlvmSite Site{spell(I), Line, sourceLocation(I)};
  while (!Work.empty()) {
    const Expr *E = Work.back();
    Work.pop_back();
    if (!E || E->id() < Before || !Out.Provenance.emplace(E, Site).second)
      continue;
    Work.insert(Work.end(), E->operands().begin(), E->operands().end());
  }
  Current = Outer;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

LlvmLift liftLlvmText(Context &C, std::string_view Text,
                      const std::string &FileName,
                      const KernelInterface &Interface,
                      const LlvmLiftOptions &O) {
  ParsedModule P = parse(Text, FileName);
  const llvm::Function &F = findKernel(*P.Module, O.Kernel, FileName);
  ModuleFacts Facts;
  Facts.Layout = &P.Module->getDataLayout();
  Facts.FileName = FileName;
  Facts.Lines = instructionLines(F, *P.Locations, Text);
  Facts.ReflectFtz = reflectFtz(*P.Module);
  Facts.SmVersion = smVersion(F, O.Capability);
  ptx::ThreadModel M(C, Interface, blockSize(F, FileName));
  if (O.ThreadId)
    M.setConcreteThreadId(*O.ThreadId);
  M.setExchangePrefix(O.ExchangePrefix);
  LlvmLift Out;
  FunctionLifter Lifter(C, M, F, Facts, O, Out);
  Lifter.run();
  if (!isKernel(F))
    Lifter.finishDeviceFunction();
  Out.Thread = M.finish();
  return Out;
}

//===----------------------------------------------------------------------===//
// A module read once
//===----------------------------------------------------------------------===//

struct LlvmModule::Impl {
  std::string Text, FileName;
  ParsedModule Parsed;
};

LlvmModule::LlvmModule(std::unique_ptr<Impl> P) : P(std::move(P)) {}
LlvmModule::~LlvmModule() = default;

std::unique_ptr<LlvmModule> LlvmModule::fromText(std::string Text,
                                                 const std::string &FileName) {
  auto I = std::make_unique<Impl>();
  I->Text = std::move(Text);
  I->FileName = FileName;
  I->Parsed = parse(I->Text, FileName);
  return std::unique_ptr<LlvmModule>(new LlvmModule(std::move(I)));
}

LlvmLift LlvmModule::lift(Context &C, const KernelInterface &Interface,
                          const LlvmLiftOptions &O) const {
  const llvm::Function &F =
      findKernel(*P->Parsed.Module, O.Kernel, P->FileName);
  ModuleFacts Facts;
  Facts.Layout = &P->Parsed.Module->getDataLayout();
  Facts.FileName = P->FileName;
  Facts.Lines = instructionLines(F, *P->Parsed.Locations, P->Text);
  Facts.ReflectFtz = reflectFtz(*P->Parsed.Module);
  Facts.SmVersion = smVersion(F, O.Capability);
  ptx::ThreadModel M(C, Interface, llvmir::blockSize(F, P->FileName));
  if (O.ThreadId)
    M.setConcreteThreadId(*O.ThreadId);
  M.setExchangePrefix(O.ExchangePrefix);
  LlvmLift Out;
  FunctionLifter Lifter(C, M, F, Facts, O, Out);
  Lifter.run();
  if (!isKernel(F))
    Lifter.finishDeviceFunction();
  Out.Thread = M.finish();
  return Out;
}

std::array<unsigned, 3> LlvmModule::blockSize(const std::string &Kernel) const {
  return llvmir::blockSize(findKernel(*P->Parsed.Module, Kernel, P->FileName),
                           P->FileName);
}

namespace {

std::string readFile(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    throw InputError({Path, 0, 0}, "cannot read " + Path + ": " +
                                       Buffer.getError().message());
  return (*Buffer)->getBuffer().str();
}

bool interfaceType(llvm::Type *T, Type &Out) {
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

/// A vector or aggregate of up to 64 bits (a device function's parameter)
/// is passed as the integer of its bytes.
bool packedType(llvm::Type *T, const llvm::DataLayout &Layout, Type &Out) {
  if (!T->isVectorTy() && !T->isAggregateType())
    return false;
  if (!T->isSized() || llvm::isa<llvm::ScalableVectorType>(T))
    return false;
  uint64_t Bytes = Layout.getTypeAllocSize(T).getFixedValue();
  if (Bytes == 0 || Bytes > 8)
    return false;
  Out = Type::i(unsigned(Bytes * 8));
  return true;
}

/// The element type the getelementptrs into a pointer parameter index by.
/// Byte offsets (i8) that LLVM's own folding introduces do not count
/// against another type; i8 when no type or several.
Type pointeeType(const llvm::Argument &A) {
  std::vector<const llvm::Value *> Work = {&A};
  llvm::SmallPtrSet<const llvm::Value *, 16> Seen;
  llvm::SmallPtrSet<llvm::Type *, 4> Types;
  while (!Work.empty()) {
    const llvm::Value *V = Work.back();
    Work.pop_back();
    if (!Seen.insert(V).second)
      continue;
    for (const llvm::User *U : V->users()) {
      if (auto *G = llvm::dyn_cast<llvm::GetElementPtrInst>(U)) {
        if (G->getPointerOperand() != V)
          continue;
        Type T = Type::i(8);
        if (interfaceType(G->getSourceElementType(), T) &&
            !G->getSourceElementType()->isIntegerTy(8))
          Types.insert(G->getSourceElementType());
        Work.push_back(G);
      } else if (llvm::isa<llvm::PHINode>(U) ||
                 llvm::isa<llvm::SelectInst>(U) ||
                 llvm::isa<llvm::AddrSpaceCastInst>(U)) {
        Work.push_back(U);
      }
    }
  }
  Type T = Type::i(8);
  if (Types.size() == 1)
    interfaceType(*Types.begin(), T);
  return T;
}

} // namespace

std::unique_ptr<LlvmModule> LlvmModule::readFile(const std::string &Path) {
  return fromText(llvmir::readFile(Path), Path);
}

std::vector<std::pair<std::string, bool>>
definedFunctions(const std::string &Path) {
  std::string Text = readFile(Path);
  ParsedModule P = parse(Text, Path);
  std::vector<std::pair<std::string, bool>> Out;
  for (const llvm::Function &F : *P.Module)
    if (!F.isDeclaration() && !F.isIntrinsic())
      Out.push_back({F.getName().str(), isKernel(F)});
  return Out;
}

int reflectFtzOf(const std::string &LlirPath) {
  std::string Text = readFile(LlirPath);
  ParsedModule P = parse(Text, LlirPath);
  return reflectFtz(*P.Module);
}

LlvmLift liftLlvmFile(Context &C, const std::string &Path,
                      const KernelInterface &Interface,
                      const LlvmLiftOptions &O) {
  std::string Text = readFile(Path);
  return liftLlvmText(C, Text, Path, Interface, O);
}

KernelInterface inferInterface(const std::string &Path,
                               const std::string &Kernel) {
  std::string Text = readFile(Path);
  ParsedModule P = parse(Text, Path);
  const llvm::Function &F = findKernel(*P.Module, Kernel, Path);
  KernelInterface I;
  I.Kernel = F.getName().str();
  for (const llvm::Argument &A : F.args()) {
    KernelParam Param;
    Param.Name = paramName(A.getArgNo());
    Param.IsPointer = A.getType()->isPointerTy();
    if (Param.IsPointer)
      Param.Element = pointeeType(A);
    else if (!interfaceType(A.getType(), Param.Element) &&
             !packedType(A.getType(), P.Module->getDataLayout(),
                         Param.Element))
      throw UnsupportedError({Path, 0, 0}, "kernel parameter " + Param.Name +
                                               " of a type "
                                               "that is not a scalar");
    I.Params.push_back(Param);
  }
  return I;
}

} // namespace stagecheck::llvmir

#include "ptx_lifter/PtxLifter.h"

#include "ptx_lifter/ControlFlow.h"
#include "ptx_lifter/Executor.h"

#include "ir/Errors.h"

#include <array>
#include <fstream>
#include <sstream>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

const Function &selectKernel(const Module &M, const PtxLiftOptions &O,
                             const KernelInterface &Interface) {
  SourceLocation Where{M.FileName, 0, 0};
  if (!O.Kernel.empty()) {
    const Function *F = M.function(O.Kernel);
    if (!F || !F->IsEntry)
      throw InputError(Where, "no kernel (.entry) named " + O.Kernel);
    return *F;
  }
  std::vector<const Function *> Entries;
  for (const Function &F : M.Functions)
    if (F.IsEntry && F.HasBody)
      Entries.push_back(&F);
  if (Entries.size() == 1)
    return *Entries[0];
  for (const Function *F : Entries)
    if (F->Name == Interface.Kernel)
      return *F;
  throw InputError(Where, Entries.empty()
                              ? "no kernel (.entry) in the file"
                              : "several kernels in the file; name one");
}

unsigned paramBits(const Param &P, const std::string &File) {
  auto T = PtxType::parse(P.Type);
  if (!T || T->isPred() || T->Lanes != 1)
    throw InputError({File, P.Line, 0}, "parameter " + P.Name + " of type ." +
                                            P.Type + " is not supported");
  return T->Bits;
}

/// The trailing scratch pointers Triton appends are not in a bundle's
/// interface; a kernel that reads one gets i8 buffers for them.
KernelInterface withScratch(KernelInterface I, const Function &F,
                            const NameScope &Names) {
  unsigned Highest = 0;
  bool Any = false;
  for (const Statement &S : F.Body) {
    if (S.isLabel() || S.Inst.Opcode.rfind("ld.param", 0) != 0)
      continue;
    for (const Operand &O : S.Inst.Operands)
      if (O.K == Operand::Address && O.base().K == Operand::Name)
        if (auto It = Names.Params.find(O.base().Text);
            It != Names.Params.end() && It->second.Index >= I.Params.size()) {
          Highest = std::max(Highest, It->second.Index);
          Any = true;
        }
  }
  while (Any && I.Params.size() <= Highest) {
    KernelParam P;
    P.Name = paramName(unsigned(I.Params.size()));
    P.IsPointer = F.Params[I.Params.size()].IsPointer ||
                  paramBits(F.Params[I.Params.size()], "") == 64;
    P.Element = P.IsPointer ? Type::i(8) : Type::i(32);
    I.Params.push_back(P);
  }
  return I;
}

NameScope namesOf(const Module &M, const Function &F) {
  NameScope Names;
  for (unsigned K = 0; K < F.Params.size(); ++K)
    Names.Params[F.Params[K].Name] = {K, paramBits(F.Params[K], M.FileName)};
  for (const std::vector<Variable> *Vars : {&M.Variables, &F.Variables})
    for (const Variable &V : *Vars)
      if (V.Space == "shared")
        Names.SharedVariables.insert(V.Name);
  return Names;
}

std::array<unsigned, 3> blockDim(const Function &F) {
  std::array<unsigned, 3> Dim = {0, 0, 0};
  if (!F.ReqNtid)
    return Dim;
  Dim = {1, 1, 1};
  for (size_t K = 0; K < F.ReqNtid->size(); ++K)
    Dim[K] = (*F.ReqNtid)[K];
  return Dim;
}

} // namespace

PtxLift liftPtxText(Context &C, std::string_view Text,
                    const std::string &FileName,
                    const KernelInterface &Interface, const PtxLiftOptions &O) {
  Module M = parseModule(Text, FileName);
  const Function &F = selectKernel(M, O, Interface);
  NameScope Names = namesOf(M, F);
  if (Names.SharedVariables.size() > 1)
    throw UnsupportedError({FileName, F.Line, 0},
                           "more than one shared-memory variable");
  RegisterTable Registers;
  for (const RegisterDecl &D : F.Registers)
    Registers.declare(D, FileName);
  ThreadModel Model(C, withScratch(Interface, F, Names), blockDim(F));
  PtxLift Result;
  Executor X(Model, Registers, std::move(Names), SiteInfo{FileName, &M, {}},
             &Result);
  X.ContinueOnUnsupported = O.ContinueOnUnsupported;
  FlowOptions Flow;
  Flow.MaxUnroll = O.MaxUnroll;
  Flow.LoopBound = O.LoopBound;
  PathMerger Paths(X, F.Body, Flow);
  PathState Start;
  Start.Condition = C.trueExpr();
  Paths.run(std::move(Start));
  Result.Thread = Model.finish();
  return Result;
}

PtxLift liftPtxFile(Context &C, const std::string &Path,
                    const KernelInterface &Interface, const PtxLiftOptions &O) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw InputError({Path, 0, 0}, "cannot read the PTX file");
  std::ostringstream Text;
  Text << In.rdbuf();
  return liftPtxText(C, Text.str(), Path, Interface, O);
}

} // namespace stagecheck::ptx

#include "ptx_lifter/PtxLifter.h"

#include "ptx_lifter/ControlFlow.h"
#include "ptx_lifter/Executor.h"

#include "ir/Errors.h"

#include <array>
#include <cctype>
#include <fstream>
#include <sstream>
#include <utility>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

const Function &selectKernel(const Module &M, const PtxLiftOptions &O,
                             const KernelInterface &Interface) {
  SourceLocation Where{M.FileName, 0, 0};
  if (!O.Kernel.empty()) {
    // A kernel (.entry) or a device function (.func) with a body.
    const Function *F = M.function(O.Kernel);
    if (!F)
      throw InputError(Where, "no kernel (.entry) or function (.func) named " +
                                  O.Kernel);
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
  if (!P.ArraySize)
    return T->Bits;
  uint64_t Bits = uint64_t(T->Bits) * P.ArraySize;
  if (Bits > 64)
    throw UnsupportedError({File, P.Line, 0},
                           "parameter " + P.Name + " of " +
                               std::to_string(Bits / 8) +
                               " bytes (wider than 64 bits)");
  return unsigned(Bits);
}

unsigned paramBytes(const Param &P, const std::string &File) {
  auto T = PtxType::parse(P.Type);
  if (!T || T->isPred() || T->Lanes != 1 || T->Bits % 8)
    throw InputError({File, P.Line, 0}, "parameter " + P.Name + " of type ." +
                                            P.Type + " is not supported");
  return T->Bits / 8 * (P.ArraySize ? P.ArraySize : 1);
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
  for (const Param &P : F.Returns)
    Names.Returns[P.Name] = paramBytes(P, M.FileName);
  for (const std::vector<Variable> *Vars : {&M.Variables, &F.Variables})
    for (const Variable &V : *Vars)
      if (V.Space == "shared")
        Names.SharedVariables.insert(V.Name);
  return Names;
}

/// Whether O names Name (itself, or as an address's base).
bool names(const Operand &O, const std::string &Name) {
  if (O.isName() && O.Text == Name)
    return true;
  for (const Operand &E : O.Elements)
    if (names(E, Name))
      return true;
  return false;
}

/// A .local variable, or a .global/.const table with an integer
/// initializer that no other function of the module uses (read only: a
/// store to it by the kernel is not modelled), as a private object of the
/// model; null for any other variable.
const Expr *privateVariable(ThreadModel &Model, const Module &M,
                            const Function &F, const Variable &V) {
  const std::string &FileName = M.FileName;
  bool Local = V.Space == "local";
  bool Table = (V.Space == "global" || V.Space == "const") && !V.IsExtern &&
               !V.Initializer.empty();
  if (!Local && !Table)
    return nullptr;
  // Another kernel of the module could write the table while this one
  // reads it.
  if (Table)
    for (const Function &Other : M.Functions)
      if (&Other != &F)
        for (const Statement &S : Other.Body)
          if (!S.isLabel())
            for (const Operand &O : S.Inst.Operands)
              if (names(O, V.Name))
                throw UnsupportedError({FileName, V.Line, 0},
                                       "the table " + V.Name +
                                           " is used by " + Other.Name +
                                           " too");
  unsigned ElementBits = 0;
  for (char Ch : V.Type.substr(V.Type.empty() ? 0 : 1))
    ElementBits = ElementBits * 10 + unsigned(Ch - '0');
  if (V.Type.size() < 2 || !std::isdigit(static_cast<unsigned char>(V.Type[1])) ||
      ElementBits % 8 || ElementBits == 0 || ElementBits > 64)
    throw UnsupportedError({FileName, V.Line, 0},
                           "variable " + V.Name + " of type ." + V.Type);
  uint64_t ElementBytes = ElementBits / 8;
  uint64_t Count = std::max<uint64_t>(V.ArraySize, 1);
  // PTX initializes only .global and .const variables: a .local one's
  // initial bytes would be a promise nothing keeps.
  if (Local && !V.Initializer.empty())
    throw InputError({FileName, V.Line, 0},
                     "variable " + V.Name + " of .local has initializers");
  if (Local)
    return Model.privateObject(V.Name, Count * ElementBytes, {},
                               /*ReadOnly=*/false, {AddressSpace::Local});
  if (V.Initializer.size() > Count)
    throw InputError({FileName, V.Line, 0},
                     "variable " + V.Name + " has more initializers than " +
                         "elements");
  // Elements not listed are zero; each is stored lowest byte first.
  std::vector<uint8_t> Bytes(Count * ElementBytes, 0);
  for (size_t K = 0; K < V.Initializer.size(); ++K)
    for (uint64_t B = 0; B < ElementBytes; ++B)
      Bytes[K * ElementBytes + B] = uint8_t(V.Initializer[K] >> (8 * B));
  return Model.privateObject(V.Name, Count * ElementBytes, std::move(Bytes),
                             /*ReadOnly=*/true,
                             {AddressSpace::Global, AddressSpace::Generic});
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

/// What the return parameter holds when the function returns, lane by
/// lane (PtxLiftOptions::ReturnLanes).
void writeReturn(Executor &X, const Function &F, const PtxLiftOptions &O,
                 PtxLift &Result) {
  ThreadModel &M = X.model();
  Context &C = M.context();
  const std::string &File = X.site().PtxFile;
  if (F.Returns.size() != 1)
    throw UnsupportedError({File, F.Line, 0}, "several return parameters");
  unsigned Bytes = paramBytes(F.Returns[0], File);
  std::vector<std::pair<unsigned, Type>> Lanes = O.ReturnLanes;
  if (Lanes.empty()) {
    if (Bytes <= 8)
      Lanes.push_back({0, Type::i(Bytes * 8)});
    else
      for (unsigned K = 0; K < Bytes; ++K)
        Lanes.push_back({K, Type::i(8)});
  }
  Origin From{"st.param", {File, F.Line, 0}};
  for (unsigned L = 0; L < Lanes.size(); ++L) {
    auto [Offset, T] = Lanes[L];
    unsigned Width = T.bits(), Count = (Width + 7) / 8;
    if (Offset + Count > Bytes)
      throw UnsupportedError({File, F.Line, 0},
                             "the LLVM IR returns more than the " +
                                 std::to_string(Bytes) + " bytes of " +
                                 F.Returns[0].Name);
    std::vector<const Expr *> Parts;
    for (unsigned K = 0; K < Count; ++K)
      Parts.push_back(X.returnByte(Offset + K));
    const Expr *Bits = C.zextOrTrunc(M.concat(Parts), Type::i(Width));
    const Expr *V = T.isBool() ? Bits : M.fromBits(Bits, T);
    M.returnValue(L, V, nullptr, From);
    Result.WriteLines.push_back(F.Line);
  }
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
  ThreadModel Model(C, F.IsEntry ? withScratch(Interface, F, Names)
                                  : Interface,
                    blockDim(F));
  if (!F.IsEntry)
    Model.setDeviceFunction(O.ParamExtension);
  for (const std::vector<Variable> *Vars :
       {&std::as_const(M.Variables), &F.Variables})
    for (const Variable &V : *Vars)
      if (const Expr *Base = privateVariable(Model, M, F, V))
        Names.PrivateVariables[V.Name] = Base;
  PtxLift Result;
  Executor X(Model, Registers, std::move(Names),
             SiteInfo{FileName, &M, {}, targetSmVersion(M.Target)}, &Result);
  X.ContinueOnUnsupported = O.ContinueOnUnsupported;
  FlowOptions Flow;
  Flow.MaxUnroll = O.MaxUnroll;
  Flow.LoopBound = O.LoopBound;
  PathMerger Paths(X, F.Body, Flow);
  PathState Start;
  Start.Condition = C.trueExpr();
  Paths.run(std::move(Start));
  if (!F.Returns.empty())
    writeReturn(X, F, O, Result);
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

unsigned targetSmVersion(std::string_view Target) {
  size_t At = Target.find("sm_");
  if (At == std::string_view::npos)
    return 0;
  unsigned V = 0;
  for (char Ch : Target.substr(At + 3)) {
    if (Ch < '0' || Ch > '9')
      break;
    V = V * 10 + unsigned(Ch - '0');
  }
  return V;
}

} // namespace stagecheck::ptx

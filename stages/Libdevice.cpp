//===- Libdevice.cpp - libdevice calls replaced by their bodies ------------===//
#include "stages/Libdevice.h"

#include "ir/Errors.h"
#include "stagecheck/Config.h"

#include <fstream>

using namespace stagecheck::ir;

namespace stagecheck::stages {

std::string defaultLibdevice() {
  return STAGECHECK_HAVE_CUDA ? STAGECHECK_LIBDEVICE_PATH : "";
}

std::string chosenLibdevice(const std::string &Given,
                            const std::string &Linked) {
  if (!Given.empty())
    return Given;
  if (!Linked.empty() && std::ifstream(Linked).good())
    return Linked;
  return defaultLibdevice();
}

Libdevice::Libdevice(std::string Path, int ReflectFtz, unsigned SmVersion)
    : Path(std::move(Path)), ReflectFtz(ReflectFtz), SmVersion(SmVersion) {}

Libdevice::~Libdevice() = default;

bool Libdevice::isLibdeviceCall(const Expr *E) {
  return E->op() == Op::Call && E->name().rfind("__nv_", 0) == 0;
}

const llvmir::FunctionBody &Libdevice::body(Context &C, const std::string &Name) {
  if (auto It = Bodies.find(Name); It != Bodies.end())
    return It->second;
  if (Path.empty())
    throw UnsupportedError({}, "the meaning of " + Name +
                                   " comes from libdevice, which this build "
                                   "does not have (no CUDA toolkit)");
  if (!Library)
    Library = llvmir::LlvmLibrary::open(Path);
  if (!Library->defines(Name))
    throw UnsupportedError({}, "libdevice (" + Path + ") has no " + Name);
  llvmir::FunctionBody B = Library->lift(C, Name, ReflectFtz, SmVersion);
  // Where the body would be undefined (an address computation that wraps,
  // a failed llvm.assume) its result is taken as poison instead: a stage
  // whose call means this body is then no less defined than it is, so no
  // difference the stricter reading would let through is hidden.
  for (const UndefinedBehavior &U : B.Undefined)
    B.Defined = C.andOf(B.Defined, C.notOf(U.Condition));
  B.Undefined.clear();
  return Bodies.emplace(Name, std::move(B)).first->second;
}

const Expr *Libdevice::rewrite(Context &C, const Expr *Root) {
  std::vector<std::pair<const Expr *, bool>> Work = {{Root, false}};
  while (!Work.empty()) {
    auto [N, Expanded] = Work.back();
    Work.pop_back();
    if (Done.count(N))
      continue;
    if (N->numOperands() == 0) {
      Done[N] = N;
      continue;
    }
    if (!Expanded) {
      Work.push_back({N, true});
      for (const Expr *O : N->operands())
        Work.push_back({O, false});
      continue;
    }
    std::vector<const Expr *> Ops;
    bool Changed = false;
    for (const Expr *O : N->operands()) {
      Ops.push_back(Done.at(O));
      Changed |= Ops.back() != O;
    }
    const Expr *R = N;
    if (isLibdeviceCall(N)) {
      const llvmir::FunctionBody &B = body(C, N->name());
      if (B.Params.size() != Ops.size())
        throw UnsupportedError({}, N->name() + " called with " +
                                       std::to_string(Ops.size()) +
                                       " arguments");
      std::unordered_map<const Expr *, const Expr *> Args;
      for (size_t K = 0; K < Ops.size(); ++K)
        Args[B.Params[K]] = Ops[K];
      R = substitute(C, B.Result, Args);
      DefinedOf[R] = substitute(C, B.Defined, Args);
      ++Used[N->name()];
    } else if (Changed) {
      R = N->op() == Op::Read
              ? C.read(N->name(), N->type(), Ops[0])
              : C.make(N->op(), Ops, N->rawAttribute(), N->type(),
                       N->op() == Op::Call ? std::string_view(N->name())
                                           : std::string_view());
    }
    Done[N] = R;
  }
  return Done.at(Root);
}

const Expr *Libdevice::definedness(Context &C, const Expr *E) {
  const Expr *D = C.trueExpr();
  const Expr *Roots[] = {E};
  for (const Expr *N : postOrder(Roots))
    if (isLibdeviceCall(N))
      if (auto It = DefinedOf.find(Done.at(N)); It != DefinedOf.end())
        D = C.andOf(D, It->second);
  return D;
}

std::pair<const Expr *, const Expr *> Libdevice::withBodies(Context &C,
                                                           const Expr *E) {
  const Expr *R = rewrite(C, E);
  return {R, definedness(C, E)};
}

Effects Libdevice::apply(Context &C, const Effects &E) {
  Effects Out = E;
  for (Write &W : Out.Writes) {
    const Expr *Value = W.Value;
    W.Guard = rewrite(C, W.Guard);
    W.Index = rewrite(C, W.Index);
    W.Value = rewrite(C, W.Value);
    W.Defined = C.andOf(rewrite(C, W.Defined), definedness(C, Value));
  }
  for (UndefinedBehavior &U : Out.Undefined)
    U.Condition = rewrite(C, U.Condition);
  for (Atomic &A : Out.Atomics) {
    A.Guard = rewrite(C, A.Guard);
    A.Index = rewrite(C, A.Index);
    A.Value = rewrite(C, A.Value);
    if (A.Compare)
      A.Compare = rewrite(C, A.Compare);
  }
  return Out;
}

} // namespace stagecheck::stages

//===- LiftMemory.cpp - Loads, stores, atomics, asynchronous copies -------===//
//
// ld and st on .global, .shared and generic addresses (scalars and
// .v2/.v4 vectors, element K at byte offset K * size) go through
// ThreadModel::load/store under the instruction's guard; a predicated-off
// load leaves its destination as it was. Cache qualifiers (.L1::*, .L2::*,
// .ca .cg .cs .lu .cv .nc) and the cache-policy operand change no value.
// ld.param reads a kernel parameter (ThreadModel::parameter). atom and red
// are ThreadModel::atomic. cp.async copies at issue (Collective.h).
// createpolicy makes a cache policy: a value only caches use, named by the
// instruction and its operand so that two stages that make the same policy
// hold the same value.
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/Collective.h"
#include "ptx_lifter/Executor.h"

#include "ir/Errors.h"

#include <cstdio>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

AddressSpace spaceOf(Step &S) {
  if (S.has("global"))
    return AddressSpace::Global;
  if (S.has("shared") || S.has("shared::cta"))
    return AddressSpace::Shared;
  if (S.has("local"))
    return AddressSpace::Local;
  for (const char *Other :
       {"const", "shared::cluster", "param::entry", "param::func"})
    if (S.has(Other))
      S.unsupported("unsupported instruction " + S.I.Opcode + " (." +
                    std::string(Other) + " memory)");
  return AddressSpace::Generic;
}

unsigned vectorLength(Step &S) {
  for (unsigned N : {2u, 4u, 8u})
    if (S.has("v" + std::to_string(N))) {
      if (N == 8)
        S.unsupported("unsupported instruction " + S.I.Opcode);
      return N;
    }
  return 1;
}

const Expr *plusBytes(Step &S, const Expr *Address, uint64_t Bytes) {
  return S.C.add(Address, S.C.constant(Address->type(), Bytes));
}

/// ld.param: the parameter's bits at [name+offset].
/// A parameter read through a register holding a parameter's address
/// (param.address.K), a select of such, plus a constant: the parameters'
/// bits, selected alike.
const Expr *paramThroughAddress(Step &S, const Expr *Address, unsigned Bits,
                                uint64_t Offset) {
  if (Address->op() == Op::Select)
    return S.C.select(Address->operand(0),
                      paramThroughAddress(S, Address->operand(1), Bits, Offset),
                      paramThroughAddress(S, Address->operand(2), Bits, Offset));
  if (Address->op() == Op::Add && Address->operand(1)->isConst())
    return paramThroughAddress(S, Address->operand(0), Bits,
                               Offset + Address->operand(1)->constBits());
  if (Address->op() == Op::Add && Address->operand(0)->isConst())
    return paramThroughAddress(S, Address->operand(1), Bits,
                               Offset + Address->operand(0)->constBits());
  const std::string Prefix = "param.address.";
  if (Address->op() != Op::Symbol || Address->name().rfind(Prefix, 0) != 0)
    S.unsupported("ld.param from an address that is not a parameter's");
  unsigned K = unsigned(std::stoul(Address->name().substr(Prefix.size())));
  for (const auto &[Name, P] : S.X.names().Params) {
    if (P.Index != K)
      continue;
    if ((Offset + Bits / 8) * 8 > P.Bits)
      S.unsupported("ld.param past the end of " + Name);
    const Expr *V = S.M.parameter(K, P.Bits, S.X.ptxLocation(S.I));
    if (Offset)
      V = S.C.binary(Op::LShr, V, S.C.constant(V->type(), Offset * 8));
    return S.C.zextOrTrunc(V, Type::i(Bits));
  }
  S.unsupported("ld.param from an address that is not a parameter's");
}

void liftLoadParam(Step &S, PtxType T, unsigned N) {
  const Operand &A = S.operand(1);
  if (A.K == Operand::Address && A.base().K == Operand::Name &&
      !S.X.names().Params.count(A.base().Text) &&
      A.base().Text.rfind("%", 0) == 0) {
    std::vector<const Operand *> Dst = S.elements(0);
    if (Dst.size() != N)
      S.malformed(S.I.Opcode + " loads " + std::to_string(N) + " values");
    const Expr *Address = S.address(1, 64);
    for (unsigned K = 0; K < N; ++K)
      S.set(*Dst[K], paramThroughAddress(S, Address, T.Bits, K * (T.Bits / 8)),
            T.isSigned());
    return;
  }
  if (A.K != Operand::Address || A.base().K != Operand::Name)
    S.malformed("ld.param takes [parameter]");
  auto It = S.X.names().Params.find(A.base().Text);
  if (It == S.X.names().Params.end())
    S.unsupported("ld.param from " + A.base().Text +
                  " (only kernel parameters by name)");
  const NameScope::ParamInfo &P = It->second;
  std::vector<const Operand *> Dst = S.elements(0);
  if (Dst.size() != N)
    S.malformed(S.I.Opcode + " loads " + std::to_string(N) + " values");
  const Expr *All = S.M.parameter(P.Index, P.Bits, S.X.ptxLocation(S.I));
  for (unsigned K = 0; K < N; ++K) {
    uint64_t Offset = A.Value.Bits + uint64_t(K) * (T.Bits / 8);
    if ((Offset + T.Bits / 8) * 8 > P.Bits)
      S.malformed("ld.param past the end of " + A.base().Text);
    const Expr *V = All;
    if (Offset)
      V = S.C.binary(Op::LShr, V, S.C.constant(V->type(), Offset * 8));
    S.set(*Dst[K], S.C.zextOrTrunc(V, Type::i(T.Bits)), T.isSigned());
  }
}

/// st.param to a device function's return parameter: its bytes at
/// [name+offset] (Executor::storeReturn). Stores to a call's argument
/// slots are not modelled (calls are not).
void liftStoreReturn(Step &S, PtxType T, unsigned N) {
  const Operand &A = S.operand(0);
  if (A.K != Operand::Address || A.base().K != Operand::Name)
    S.malformed("st.param takes [parameter]");
  auto It = S.X.names().Returns.find(A.base().Text);
  if (It == S.X.names().Returns.end())
    S.unsupported("st.param to " + A.base().Text +
                  " (only a device function's return parameter)");
  if (T.Bits % 8)
    S.unsupported("unsupported instruction " + S.I.Opcode);
  const Operand &Values = S.operand(1);
  std::vector<const Operand *> Src;
  if (Values.K == Operand::Vector)
    for (const Operand &E : Values.Elements)
      Src.push_back(&E);
  else
    Src.push_back(&Values);
  if (Src.size() != N)
    S.malformed(S.I.Opcode + " stores " + std::to_string(N) + " values");
  const Expr *Guard = S.guard();
  for (unsigned K = 0; K < N; ++K) {
    uint64_t Offset = A.Value.Bits + uint64_t(K) * (T.Bits / 8);
    if (Offset + T.Bits / 8 > It->second)
      S.malformed("st.param past the end of " + A.base().Text);
    S.X.storeReturn(unsigned(Offset), S.bits(*Src[K], T.Bits, T), Guard);
  }
}

void liftLoad(Step &S) {
  PtxType T = S.type();
  unsigned N = vectorLength(S);
  S.expectOperands(2, 3); // a cache policy may follow
  if (S.has("param")) {
    liftLoadParam(S, T, N);
    return;
  }
  AddressSpace Space = spaceOf(S);
  std::vector<const Operand *> Dst = S.elements(0);
  if (Dst.size() != N)
    S.malformed(S.I.Opcode + " loads " + std::to_string(N) + " values, not " +
                std::to_string(Dst.size()));
  const Expr *Address = S.address(1);
  const Expr *Guard = S.guard();
  for (unsigned K = 0; K < N; ++K) {
    const Expr *V = S.M.load(Space, plusBytes(S, Address, K * (T.Bits / 8)),
                             T.Bits, Guard, S.origin());
    S.set(*Dst[K], V, T.isSigned());
  }
}

void liftStore(Step &S) {
  PtxType T = S.type();
  unsigned N = vectorLength(S);
  S.expectOperands(2, 3);
  if (S.has("param")) {
    liftStoreReturn(S, T, N);
    return;
  }
  AddressSpace Space = spaceOf(S);
  const Operand &Values = S.operand(1);
  std::vector<const Operand *> Src;
  if (Values.K == Operand::Vector)
    for (const Operand &E : Values.Elements)
      Src.push_back(&E);
  else
    Src.push_back(&Values);
  if (Src.size() != N)
    S.malformed(S.I.Opcode + " stores " + std::to_string(N) + " values");
  const Expr *Address = S.address(0);
  const Expr *Guard = S.guard();
  for (unsigned K = 0; K < N; ++K)
    S.M.store(Space, plusBytes(S, Address, K * (T.Bits / 8)),
              S.bits(*Src[K], T.Bits, T), Guard, S.origin());
}

AtomicOp atomicOp(Step &S, PtxType T) {
  static const char *const Ops[] = {"add", "min",  "max", "and", "or",
                                    "xor", "exch", "cas", "inc", "dec"};
  std::string Name;
  for (const char *O : Ops)
    if (S.has(O))
      Name = O;
  if (Name == "add")
    return T.isFloat() ? AtomicOp::FAdd : AtomicOp::Add;
  if ((Name == "min" || Name == "max") && !T.isFloat()) {
    bool Max = Name == "max";
    if (T.isSigned())
      return Max ? AtomicOp::Max : AtomicOp::Min;
    return Max ? AtomicOp::UMax : AtomicOp::UMin;
  }
  if (Name == "and")
    return AtomicOp::And;
  if (Name == "or")
    return AtomicOp::Or;
  if (Name == "xor")
    return AtomicOp::Xor;
  if (Name == "exch")
    return AtomicOp::Exchange;
  if (Name == "cas")
    return AtomicOp::CompareExchange;
  S.unsupported("unsupported instruction " + S.I.Opcode);
}

/// atom d, [a], b{, c} and red [a], b.
void liftAtomic(Step &S) {
  bool Reduction = S.Base == "red";
  PtxType T = S.type();
  if (T.Lanes != 1 || vectorLength(S) != 1)
    S.unsupported("unsupported instruction " + S.I.Opcode);
  if (spaceOf(S) == AddressSpace::Shared)
    S.unsupported("unsupported instruction " + S.I.Opcode +
                  " (shared-memory atomics)");
  AtomicOp Kind = atomicOp(S, T);
  bool Cas = Kind == AtomicOp::CompareExchange;
  unsigned First = Reduction ? 0 : 1;
  unsigned Operands = First + 2 + (Cas ? 1 : 0);
  S.expectOperands(Operands, Operands + 1);
  const Expr *Address = S.address(First);
  const Expr *Value = S.value(First + 1 + (Cas ? 1 : 0), T);
  const Expr *Compare = Cas ? S.value(First + 1, T) : nullptr;
  const Expr *Old =
      S.M.atomic(Kind, Address, Value, Compare, S.guard(), S.origin());
  if (!Reduction)
    S.set(0, S.M.toBits(Old));
}

/// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size |
/// ignore-src}{, policy}.
void liftCpAsyncCopy(Step &S) {
  if (!(S.has("ca") || S.has("cg")) || !S.has("global") ||
      !(S.has("shared") || S.has("shared::cta")))
    S.unsupported("unsupported instruction " + S.I.Opcode);
  S.expectOperands(3, 5);
  const Operand &Size = S.operand(2);
  if (Size.K != Operand::Imm || Size.Value.K != Immediate::Integer)
    S.malformed("cp.async takes an immediate copy size");
  unsigned CpSize = unsigned(Size.Value.Bits);
  size_t Last = S.count();
  if (S.has("L2::cache_hint"))
    --Last; // the policy
  const Expr *SrcSize = nullptr;
  if (Last > 3) {
    const Operand &Extra = S.operand(3);
    if (Extra.K == Operand::Name && S.registerBits(Extra) == 1)
      SrcSize = S.C.select(S.pred(Extra), S.C.constant(Type::i(32), 0),
                           S.C.constant(Type::i(32), CpSize)); // ignore-src
    else
      SrcSize = S.bits(3, 32);
  }
  sem::cpAsync(S.M, S.address(0), S.address(1, 64), CpSize, SrcSize, S.guard(),
               S.origin());
}

void liftCpAsync(Step &S) {
  if (S.mod(0) != "async" || S.has("bulk") || S.has("mbarrier"))
    S.unsupported("unsupported instruction " + S.I.Opcode);
  std::string What = S.mod(1);
  if (What == "commit_group") {
    S.expectOperands(0);
    sem::cpAsyncCommit(S.M, S.guard(), S.origin());
  } else if (What == "wait_group") {
    S.expectOperands(1);
    const Operand &N = S.operand(0);
    if (N.K != Operand::Imm || N.Value.K != Immediate::Integer)
      S.malformed("cp.async.wait_group takes an immediate");
    sem::cpAsyncWait(S.M, unsigned(N.Value.Bits), S.guard(), S.origin());
  } else if (What == "wait_all") {
    // wait_all is commit_group then wait_group 0.
    S.expectOperands(0);
    sem::cpAsyncCommit(S.M, S.guard(), S.origin());
    sem::cpAsyncWait(S.M, 0, S.guard(), S.origin());
  } else {
    liftCpAsyncCopy(S);
  }
}

void liftCreatePolicy(Step &S) {
  S.expectOperands(2, 4);
  std::string Name = "createpolicy";
  for (const std::string &M : S.Mods) {
    std::string Part = M;
    for (size_t P; (P = Part.find("::")) != std::string::npos;)
      Part.replace(P, 2, "_");
    Name += "." + Part;
  }
  for (unsigned K = 1; K < S.count(); ++K) {
    const Operand &O = S.operand(K);
    if (O.K != Operand::Imm)
      S.unsupported("createpolicy with a register operand");
    char Buffer[32];
    if (O.Value.K == Immediate::Decimal)
      std::snprintf(Buffer, sizeof Buffer, "%g", O.Value.Value);
    else
      std::snprintf(Buffer, sizeof Buffer, "%llx",
                    (unsigned long long)O.Value.Bits);
    Name += std::string(".") + Buffer;
  }
  S.set(0, S.C.symbol(Name, Type::i(64)));
}

} // namespace

bool liftMemoryOp(Step &S) {
  const std::string &B = S.Base;
  if (B == "ld" || B == "ldu")
    liftLoad(S);
  else if (B == "st")
    liftStore(S);
  else if (B == "atom" || B == "red")
    liftAtomic(S);
  else if (B == "cp")
    liftCpAsync(S);
  else if (B == "createpolicy")
    liftCreatePolicy(S);
  else if (B == "prefetch" || B == "prefetchu") {
    // A hint: no value changes.
  } else
    return false;
  return true;
}

} // namespace stagecheck::ptx

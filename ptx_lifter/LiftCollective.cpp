//===- LiftCollective.cpp - Instructions that involve other threads -------===//
//
// shfl.sync (sem::shuffle), bar.sync / barrier.sync (ThreadModel::barrier),
// ldmatrix / stmatrix / mma.sync (warp-collective exchanges, Collective.h)
// vote.sync / activemask (exchanges of their own spelling) and redux.sync
// (sem::warpReduce). What the
// other threads contribute is the exchange's business; this thread's
// operands and fresh results are what the lift records.
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/Collective.h"
#include "ptx_lifter/Executor.h"
#include "ptx_lifter/Semantics.h"

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

void liftShuffle(Step &S) {
  if (S.mod(0) != "sync" || S.type().totalBits() != 32)
    S.unsupported("unsupported instruction " + S.I.Opcode);
  S.expectOperands(5);
  static const std::pair<const char *, sem::ShuffleMode> Modes[] = {
      {"up", sem::ShuffleMode::Up},
      {"down", sem::ShuffleMode::Down},
      {"bfly", sem::ShuffleMode::Butterfly},
      {"idx", sem::ShuffleMode::Index}};
  const std::pair<const char *, sem::ShuffleMode> *Mode = nullptr;
  for (const auto &M : Modes)
    if (S.mod(1) == M.first)
      Mode = &M;
  if (!Mode)
    S.malformed("." + S.mod(1) + " is not a shuffle mode");
  auto [Value, InRange] =
      sem::shuffle(S.M, Mode->second, S.bits(1, 32), S.bits(2, 32),
                   S.bits(3, 32), S.bits(4, 32), S.guard(), S.origin());
  const Operand &D = S.operand(0);
  if (D.K == Operand::PredPair) {
    S.set(D.Elements[0], Value);
    S.set(D.Elements[1], InRange);
  } else {
    S.set(0, Value);
  }
}

void liftBarrier(Step &S) {
  bool Sync = false;
  for (const std::string &M : S.Mods) {
    if (M == "sync")
      Sync = true;
    else if (M != "aligned" && M != "cta")
      S.unsupported("unsupported instruction " + S.I.Opcode);
  }
  if (!Sync)
    S.unsupported("unsupported instruction " + S.I.Opcode);
  S.expectOperands(1, 2);
  if (S.operand(0).K != Operand::Imm)
    S.unsupported(S.I.Opcode + " with a barrier number in a register");
  if (S.count() == 2) {
    // bar.sync a, b: b threads take part; all of them is a CTA barrier.
    const Operand &N = S.operand(1);
    const unsigned *Dim = S.M.current().BlockDim;
    uint64_t Threads = uint64_t(Dim[0]) * Dim[1] * Dim[2];
    if (N.K != Operand::Imm || N.Value.Bits != Threads)
      S.unsupported(S.I.Opcode + " for part of the CTA");
  }
  S.M.barrier(S.guard(), S.origin());
}

std::vector<const Expr *> fragments(Step &S, unsigned K) {
  std::vector<const Expr *> Out;
  for (const Operand *E : S.elements(K)) {
    unsigned Bits = S.registerBits(*E);
    if (!Bits)
      S.malformed("fragments of " + S.I.Opcode + " are registers");
    Out.push_back(S.bits(*E, Bits));
  }
  return Out;
}

void setResults(Step &S, unsigned K, const std::vector<const Expr *> &R) {
  std::vector<const Operand *> D = S.elements(K);
  for (size_t I = 0; I < D.size(); ++I)
    S.set(*D[I], R[I]);
}

void liftMatrix(Step &S) {
  if (S.mod(0) != "sync" || S.mod(1) != "aligned")
    S.unsupported("unsupported instruction " + S.I.Opcode);
  const std::string &Kind = S.I.Opcode;
  if (S.Base == "ldmatrix") {
    S.expectOperands(2);
    std::vector<const Operand *> D = S.elements(0);
    for (const Operand *E : D)
      if (S.registerBits(*E) != 32)
        S.malformed("ldmatrix writes 32-bit registers");
    setResults(S, 0,
               sem::matrixLoad(S.M, Kind, S.address(1), unsigned(D.size()),
                               S.guard(), S.origin()));
  } else if (S.Base == "stmatrix") {
    S.expectOperands(2);
    std::vector<const Expr *> F = fragments(S, 1);
    sem::matrixStore(S.M, Kind, S.address(0), F, S.guard(), S.origin());
  } else {
    S.expectOperands(4);
    std::vector<const Expr *> F;
    for (unsigned K = 1; K < 4; ++K) {
      std::vector<const Expr *> Part = fragments(S, K);
      F.insert(F.end(), Part.begin(), Part.end());
    }
    std::vector<Type> Types;
    for (const Operand *E : S.elements(0))
      Types.push_back(Type::i(S.destinationBits(*E)));
    setResults(S, 0,
               sem::matrixMultiply(S.M, Kind, F, Types, S.guard(), S.origin()));
  }
}

void liftVote(Step &S) {
  if (S.mod(0) != "sync")
    S.unsupported("unsupported instruction " + S.I.Opcode);
  S.expectOperands(3);
  bool Ballot = S.mod(1) == "ballot";
  Type R = Ballot ? Type::i(32) : Type::boolean();
  auto Results = S.M.exchange(S.I.Opcode, S.guard(), {S.pred(1), S.bits(2, 32)},
                              {R}, S.origin());
  S.set(0, Results[0]);
}

/// redux.sync.OP.TYPE: .add.{s32,u32}, .min/.max.{s32,u32} and
/// .and/.or/.xor.b32 (the float forms of sm_100a are not modelled).
void liftWarpReduce(Step &S) {
  if (S.mod(0) != "sync" || S.Mods.size() != 3)
    S.unsupported("unsupported instruction " + S.I.Opcode);
  std::string Operation = S.mod(1), Type = S.mod(2);
  bool Bitwise = Operation == "and" || Operation == "or" || Operation == "xor";
  bool Ordered = Operation == "min" || Operation == "max";
  if (Bitwise ? Type != "b32"
              : !(Operation == "add" || Ordered) ||
                    (Type != "s32" && Type != "u32"))
    S.unsupported("unsupported instruction " + S.I.Opcode);
  if (Ordered && Type == "u32")
    Operation = "u" + Operation;
  S.expectOperands(3);
  S.set(0, sem::warpReduce(S.M, Operation, S.bits(1, 32), S.bits(2, 32),
                           S.guard(), S.origin()));
}

} // namespace

bool liftCollectiveOp(Step &S) {
  const std::string &B = S.Base;
  if (B == "shfl")
    liftShuffle(S);
  else if (B == "bar" || B == "barrier")
    liftBarrier(S);
  else if (B == "ldmatrix" || B == "stmatrix" || B == "mma")
    liftMatrix(S);
  else if (B == "vote")
    liftVote(S);
  else if (B == "redux")
    liftWarpReduce(S);
  else if (B == "activemask") {
    S.expectOperands(1);
    S.set(0, S.M.exchange("activemask", S.guard(), {}, {Type::i(32)},
                          S.origin())[0]);
  } else
    return false;
  return true;
}

} // namespace stagecheck::ptx

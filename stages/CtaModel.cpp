//===- CtaModel.cpp - Resolving the communication of one CTA ---------------===//
#include "stages/CtaModel.h"

#include "ir/Errors.h"
#include "ir/Functions.h"
#include "ptx_lifter/Collective.h"
#include "ptx_lifter/Semantics.h"
#include "stages/Unify.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

using namespace stagecheck::ir;

namespace stagecheck::stages {

std::string threadPrefix(unsigned Thread) {
  return "t" + std::to_string(Thread) + ".";
}

namespace {

/// An exchange's identity across threads: its kind, its .llir line and how
/// many exchanges of that kind and line the thread made before it.
using EventKey = std::tuple<std::string, unsigned, unsigned>;

struct ByteWrite {
  unsigned Thread;
  const Expr *Guard; // resolved
  const Expr *Byte;  // as lifted (resolved on use)
  std::string Op;
  unsigned Line;
};

struct ThreadInfo {
  std::vector<EventKey> Keys;         // per exchange
  std::vector<unsigned> Phase;        // per exchange: barriers before it
  std::map<EventKey, unsigned> ByKey; // key -> exchange index
};

bool isThreadLocalName(const std::string &Name) {
  return Name.rfind("uninit.", 0) == 0;
}

/// A load of thread Thread in phase Phase of the byte at Offset.
using ByteLoad = std::tuple<unsigned, unsigned, uint64_t>;

class Resolver {
public:
  /// Raced: the loads that race with another thread's write (a first
  /// resolution finds them); they read unspecified values.
  Resolver(Context &C, const std::vector<llvmir::LlvmLift> &Threads,
           std::set<ByteLoad> Raced = {})
      : C(C), T(Threads), Raced(std::move(Raced)) {}

  const std::set<ByteLoad> &racedFound() const { return RacedFound; }

  CtaEffects run() {
    Out.Threads = unsigned(T.size());
    indexExchanges();
    collectSharedWrites();
    for (unsigned K = 0; K < T.size(); ++K)
      collectThread(K);
    for (unsigned K = 0; K < T.size(); ++K)
      collectReads(K);
    findRaces();
    return std::move(Out);
  }

private:
  Context &C;
  const std::vector<llvmir::LlvmLift> &T;
  const std::set<ByteLoad> Raced;
  std::set<ByteLoad> RacedFound;
  CtaEffects Out;
  GuardSimplifier UnderGuard{C};
  std::vector<ThreadInfo> Info;
  /// Per thread, its shared writes: (effective phase, write index).
  std::vector<std::vector<std::pair<unsigned, size_t>>> SharedOf;
  /// Per phase, per byte offset, the writes in thread and program order.
  std::map<unsigned, std::map<uint64_t, std::vector<ByteWrite>>> Writes;
  std::set<unsigned> PhasesIndexed;
  std::map<std::pair<unsigned, uint64_t>, const Expr *> Content;
  std::unordered_map<const Expr *, const Expr *> Memo;
  std::vector<std::unordered_map<const Expr *, const Expr *>> LocalMemo;
  std::unordered_map<const Expr *, bool> LocalDeps;
  std::map<std::pair<unsigned, unsigned>, std::vector<const Expr *>> Received;
  /// Reads of shared memory per thread: (phase, offset).
  std::vector<std::set<std::pair<unsigned, uint64_t>>> ReadsOf;

  //===--- Exchanges ------------------------------------------------------===//

  void indexExchanges() {
    Info.resize(T.size());
    LocalMemo.resize(T.size());
    ReadsOf.resize(T.size());
    for (unsigned K = 0; K < T.size(); ++K) {
      const auto &X = T[K].Thread.Exchanges;
      std::map<std::pair<std::string, unsigned>, unsigned> Seen;
      unsigned Phase = 0;
      for (size_t I = 0; I < X.size(); ++I) {
        unsigned Line = I < T[K].ExchangeLines.size() ? T[K].ExchangeLines[I] : 0;
        EventKey Key{X[I].Kind, Line, Seen[{X[I].Kind, Line}]++};
        Info[K].Keys.push_back(Key);
        Info[K].Phase.push_back(Phase);
        Info[K].ByKey[Key] = unsigned(I);
        if (X[I].Kind == "barrier")
          ++Phase;
        for (const Expr *R : X[I].Results)
          Out.ExchangeSites[R] = {siteOfExchange(K, I), K, R};
      }
    }
    // Every thread passes the same barriers (a barrier some thread skips
    // would hang the CTA, or split its phases apart).
    for (unsigned K = 1; K < T.size(); ++K)
      if (T[K].Thread.Phases != T[0].Thread.Phases)
        throw UnsupportedError({}, "threads 0 and " + std::to_string(K) +
                                       " pass different numbers of barriers");
  }

  llvmir::LlvmSite siteOfExchange(unsigned K, size_t I) const {
    llvmir::LlvmSite S;
    const ptx::Exchange &X = T[K].Thread.Exchanges[I];
    S.Instruction = X.From.Op;
    S.LlirLine = I < T[K].ExchangeLines.size() ? T[K].ExchangeLines[I] : 0;
    S.Source = X.From.Loc;
    return S;
  }

  /// The exchange of thread K with Key, if it made one.
  std::optional<unsigned> counterpart(unsigned K, const EventKey &Key) const {
    auto It = Info[K].ByKey.find(Key);
    if (It == Info[K].ByKey.end())
      return std::nullopt;
    return It->second;
  }

  uint64_t constantOf(unsigned K, const Expr *E, const std::string &What,
                      const Origin &From) {
    const Expr *R = resolve(K, E);
    if (!R->isConst())
      throw UnsupportedError(From.Loc, What + " that does not fold to a "
                                              "constant for thread " +
                                           std::to_string(K) + " (" + From.Op +
                                           ")");
    return R->constBits();
  }

  const Expr *unspecified(unsigned K, size_t I, unsigned R, Type Ty) {
    return C.symbol(threadPrefix(K) + "unspecified." + std::to_string(I) + "." +
                        std::to_string(R),
                    Ty);
  }

  const std::vector<const Expr *> &received(unsigned K, size_t I) {
    auto Key = std::make_pair(K, unsigned(I));
    if (auto It = Received.find(Key); It != Received.end())
      return It->second;
    const ptx::Exchange &X = T[K].Thread.Exchanges[I];
    std::vector<const Expr *> R;
    if (X.Kind.rfind("shfl.sync.", 0) == 0)
      R = shuffle(K, I);
    else if (X.Kind.rfind("redux.sync.", 0) == 0)
      R = warpReduce(K, I);
    else if (X.Kind.rfind("ldmatrix.", 0) == 0)
      R = matrixLoad(K, I);
    else if (X.Kind == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
      R = matrixMultiply(K, I);
    else
      throw UnsupportedError(X.From.Loc, "the result of " + X.Kind + " (" +
                                             X.From.Op + ") is not modelled "
                                             "across the threads of a CTA");
    return Received[Key] = std::move(R);
  }

  /// shfl.sync per the PTX ISA.
  std::vector<const Expr *> shuffle(unsigned K, size_t I) {
    const ptx::Exchange &X = T[K].Thread.Exchanges[I];
    std::string Mode = X.Kind.substr(std::string("shfl.sync.").size());
    int64_t B = int64_t(constantOf(K, X.Operands[1], "a shuffle lane", X.From));
    uint64_t Cv = constantOf(K, X.Operands[2], "a shuffle clamp", X.From);
    uint64_t Mask = constantOf(K, X.Operands[3], "a shuffle member mask", X.From);
    int64_t Lane = K & 31, Base = K & ~31u;
    int64_t Seg = (Cv >> 8) & 31, Clamp = Cv & 31;
    int64_t MaxLane = (Lane & Seg) | (Clamp & ~Seg), MinLane = Lane & Seg;
    int64_t J;
    bool In;
    if (Mode == "up") {
      J = Lane - (B & 31);
      In = J >= MaxLane;
    } else if (Mode == "down") {
      J = Lane + (B & 31);
      In = J <= MaxLane;
    } else if (Mode == "bfly") {
      J = Lane ^ (B & 31);
      In = J <= MaxLane;
    } else if (Mode == "idx") {
      J = MinLane | (B & 31 & ~Seg);
      In = J <= MaxLane;
    } else {
      throw UnsupportedError(X.From.Loc, "shuffle mode " + Mode);
    }
    if (!In)
      J = Lane;
    const Expr *Guard = resolve(K, X.Guard);
    if (!((Mask >> Lane) & 1) && !Guard->isFalse())
      Out.Effects.Undefined.push_back(
          {Guard, "shfl.sync by a thread outside its member mask", X.From, {}});
    unsigned Source = unsigned(Base + J);
    const Expr *Value = unspecified(K, I, 0, Type::i(32));
    auto There = Source < T.size() ? counterpart(Source, Info[K].Keys[I])
                                   : std::nullopt;
    if (((Mask >> J) & 1) && There) {
      const ptx::Exchange &S = T[Source].Thread.Exchanges[*There];
      const Expr *SourceGuard = resolve(Source, S.Guard);
      Value = C.select(SourceGuard, resolve(Source, S.Operands[0]), Value);
    }
    return {Value, C.boolean(In)};
  }

  /// redux.sync per the PTX ISA: the operation over the values of the
  /// member mask's threads, lane by lane upward (the operations are
  /// associative and commutative, so any order gives this value). A member
  /// that does not execute it gives a value of its own.
  std::vector<const Expr *> warpReduce(unsigned K, size_t I) {
    const ptx::Exchange &X = T[K].Thread.Exchanges[I];
    Op Fold = ptx::sem::warpReductionOp(
        X.Kind.substr(std::string("redux.sync.").size()));
    uint64_t Mask = constantOf(K, X.Operands[1], "a redux member mask", X.From);
    unsigned Lane = K & 31, Base = K & ~31u;
    const Expr *Guard = resolve(K, X.Guard);
    if (!((Mask >> Lane) & 1) && !Guard->isFalse())
      Out.Effects.Undefined.push_back(
          {Guard, "redux.sync by a thread outside its member mask", X.From, {}});
    const Expr *Result = nullptr;
    for (unsigned J = 0; J < 32; ++J) {
      if (!((Mask >> J) & 1))
        continue;
      unsigned Source = Base + J;
      const Expr *Value = unspecified(K, I, J, Type::i(32));
      auto There = Source < T.size() ? counterpart(Source, Info[K].Keys[I])
                                     : std::nullopt;
      if (There) {
        const ptx::Exchange &S = T[Source].Thread.Exchanges[*There];
        Value = C.select(resolve(Source, S.Guard),
                         resolve(Source, S.Operands[0]), Value);
      }
      Result = Result ? C.binary(Fold, Result, Value) : Value;
    }
    if (!Result) // an empty mask: undefined above, and no value
      Result = unspecified(K, I, 32, Type::i(32));
    return {Result};
  }

  /// ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 per the PTX ISA: the
  /// warp's threads 8i..8i+7 give the rows of matrix i (16 bytes each);
  /// lane l receives row l/4, elements 2(l%4) and 2(l%4)+1 (with .trans:
  /// column l/4 of rows 2(l%4) and 2(l%4)+1).
  std::vector<const Expr *> matrixLoad(unsigned K, size_t I) {
    const ptx::Exchange &X = T[K].Thread.Exchanges[I];
    if (X.Kind.find(".m8n8.") == std::string::npos ||
        X.Kind.find(".b16") == std::string::npos)
      throw UnsupportedError(X.From.Loc, X.Kind + " is not modelled");
    bool Trans = X.Kind.find(".trans") != std::string::npos;
    unsigned Count = unsigned(X.Results.size());
    unsigned Lane = K & 31, Base = K & ~31u;
    unsigned Phase = Info[K].Phase[I];
    std::vector<const Expr *> R;
    for (unsigned M = 0; M < Count; ++M) {
      auto RowAddress = [&](unsigned Row) {
        unsigned Thread = Base + 8 * M + Row;
        auto There = Thread < T.size() ? counterpart(Thread, Info[K].Keys[I])
                                       : std::nullopt;
        if (!There)
          throw UnsupportedError(X.From.Loc, X.Kind + " without thread " +
                                                 std::to_string(Thread));
        const ptx::Exchange &S = T[Thread].Thread.Exchanges[*There];
        return constantOf(Thread, S.Operands[0], "an ldmatrix row address",
                          S.From);
      };
      std::vector<const Expr *> Bytes;
      for (unsigned E = 0; E < 2; ++E) {
        uint64_t At = Trans ? RowAddress(2 * (Lane % 4) + E) + 2 * (Lane / 4)
                            : RowAddress(Lane / 4) + 4 * (Lane % 4) + 2 * E;
        for (unsigned B = 0; B < 2; ++B) {
          ReadsOf[K].insert({Phase, At + B});
          Bytes.push_back(loaded(K, Phase, At + B));
        }
      }
      R.push_back(concat(Bytes));
    }
    return R;
  }

  /// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: lane l's result c_r
  /// is element (i, j) = ptx::sem::mmaM16N8K16CDElement(l, r) of D, the
  /// uninterpreted ir::MmaM16N8K16F32F16 of C[i][j] (l's own c_r), row i of
  /// A and column j of B, each f16 taken from the lane and register half the
  /// PTX ISA puts it in. The warp's threads must all take part, under one
  /// guard (.aligned).
  std::vector<const Expr *> matrixMultiply(unsigned K, size_t I) {
    const ptx::Exchange &X = T[K].Thread.Exchanges[I];
    if (X.Operands.size() != 10 || X.Results.size() != 4)
      throw UnsupportedError(X.From.Loc, X.Kind + " with " +
                                             std::to_string(X.Operands.size()) +
                                             " operands");
    unsigned Lane = K & 31, Base = K & ~31u;
    const Expr *Guard = resolve(K, X.Guard);
    // Lane -> its exchange's operands.
    std::vector<const ptx::Exchange *> Warp(32);
    for (unsigned L = 0; L < 32; ++L) {
      unsigned Thread = Base + L;
      auto There = Thread < T.size() ? counterpart(Thread, Info[K].Keys[I])
                                     : std::nullopt;
      if (!There)
        throw UnsupportedError(X.From.Loc, X.Kind + " without thread " +
                                               std::to_string(Thread));
      Warp[L] = &T[Thread].Thread.Exchanges[*There];
      if (resolve(Thread, Warp[L]->Guard) != Guard)
        throw UnsupportedError(X.From.Loc,
                               X.Kind +
                                   " under guards that differ across "
                                   "the warp (threads " +
                                   std::to_string(K) + " and " +
                                   std::to_string(Thread) + ")");
    }
    auto Half = [&](const ptx::sem::MmaSlot &S, unsigned FirstRegister) {
      const Expr *Bits = resolve(
          Base + S.Lane, Warp[S.Lane]->Operands[FirstRegister + S.Register]);
      if (Bits->type() != Type::i(32))
        throw UnsupportedError(X.From.Loc, X.Kind + " with a fragment of " +
                                               Bits->type().str());
      const Expr *Piece =
          C.cast(Op::Trunc,
                 C.binary(Op::LShr, Bits, C.constant(Type::i(32), 16 * S.Half)),
                 Type::i(16));
      return C.cast(Op::Bitcast, Piece, Type::f16());
    };
    std::vector<const Expr *> R;
    for (unsigned Reg = 0; Reg < 4; ++Reg) {
      auto [Row, Col] = ptx::sem::mmaM16N8K16CDElement(Lane, Reg);
      std::vector<const Expr *> Args;
      const Expr *Acc = resolve(K, X.Operands[6 + Reg]);
      Args.push_back(
          Acc->type().isFloat() ? Acc : C.cast(Op::Bitcast, Acc, Type::f32()));
      for (unsigned Kk = 0; Kk < 16; ++Kk)
        Args.push_back(Half(ptx::sem::mmaM16N8K16A(Row, Kk), 0));
      for (unsigned Kk = 0; Kk < 16; ++Kk)
        Args.push_back(Half(ptx::sem::mmaM16N8K16B(Kk, Col), 4));
      const Expr *D = C.call(MmaM16N8K16F32F16, Type::f32(), Args);
      Type Want = X.Results[Reg]->type();
      R.push_back(Want == D->type() ? D : C.cast(Op::Bitcast, D, Want));
    }
    return R;
  }

  const Expr *concat(const std::vector<const Expr *> &Bytes) {
    Type Ty = Type::i(unsigned(8 * Bytes.size()));
    const Expr *V = nullptr;
    for (size_t K = 0; K < Bytes.size(); ++K) {
      const Expr *Piece = C.cast(Op::ZExt, Bytes[K], Ty);
      if (K)
        Piece = C.binary(Op::Shl, Piece, C.constant(Ty, 8 * K));
      V = V ? C.orOf(V, Piece) : Piece;
    }
    return V;
  }

  //===--- Shared memory --------------------------------------------------===//

  static bool isShared(const std::string &Buffer) {
    return Buffer.rfind("smem.", 0) == 0;
  }

  static bool isAsyncCopy(const Write &W) {
    return W.From.Op.find("cp.async") != std::string::npos;
  }

  /// The phase in which a write lands: its own, or for a cp.async copy the
  /// phase of the cp.async.wait_group that covers its group.
  std::optional<unsigned> landingPhase(unsigned K, size_t W) {
    const ptx::ThreadEffects &E = T[K].Thread;
    const Write &Wr = E.Effects.Writes[W];
    unsigned Issued = unsigned(std::stoul(Wr.Buffer.substr(5)));
    if (!isAsyncCopy(Wr))
      return Issued;
    unsigned At = W < E.WriteExchangeCounts.size() ? E.WriteExchangeCounts[W] : 0;
    // The group: the first commit at or after the copy; then the first
    // cp.async.wait_group N after at least N younger groups were committed
    // (it leaves only the N youngest pending: PTX ISA, cp.async.wait_group).
    std::optional<size_t> Commit;
    for (size_t I = At; I < E.Exchanges.size() && !Commit; ++I)
      if (E.Exchanges[I].Kind == "cp.async.commit_group")
        Commit = I;
    if (!Commit)
      return std::nullopt;
    unsigned Younger = 0;
    for (size_t I = *Commit + 1; I < E.Exchanges.size(); ++I) {
      const ptx::Exchange &X = E.Exchanges[I];
      if (X.Kind == "cp.async.commit_group")
        ++Younger;
      else if (X.Kind == "cp.async.wait_group" && X.Operands.size() == 1 &&
               X.Operands[0]->isConst() &&
               Younger >= X.Operands[0]->constBits())
        return Info[K].Phase[I];
    }
    return std::nullopt;
  }

  void collectSharedWrites() {
    SharedOf.resize(T.size());
    for (unsigned K = 0; K < T.size(); ++K) {
      const auto &Ws = T[K].Thread.Effects.Writes;
      for (size_t W = 0; W < Ws.size(); ++W) {
        if (!isShared(Ws[W].Buffer))
          continue;
        std::optional<unsigned> Phase = landingPhase(K, W);
        if (!Phase) {
          Out.Races.push_back("a cp.async copy of thread " + std::to_string(K) +
                              " is never waited for (" + Ws[W].From.Op + ")");
          continue;
        }
        SharedOf[K].push_back({*Phase, W});
      }
    }
  }

  /// Resolves the places and guards of every write that lands in Phase.
  void indexPhase(unsigned Phase) {
    if (!PhasesIndexed.insert(Phase).second)
      return;
    auto &ByOffset = Writes[Phase];
    for (unsigned K = 0; K < T.size(); ++K) {
      for (const auto &[P, W] : SharedOf[K]) {
        if (P != Phase)
          continue;
        const Write &Wr = T[K].Thread.Effects.Writes[W];
        const Expr *Guard = resolve(K, Wr.Guard);
        if (Guard->isFalse())
          continue;
        uint64_t At = constantOf(K, Wr.Index, "a shared-memory offset", Wr.From);
        unsigned Line = W < T[K].WriteLines.size() ? T[K].WriteLines[W] : 0;
        ByOffset[At].push_back({K, Guard, Wr.Value, Wr.From.Op, Line});
      }
      addMatrixStores(K, Phase, ByOffset);
    }
  }

  /// stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16: lane l's fragment i
  /// goes to row l/4 of matrix i, bytes 4(l%4).. (with .trans: column l/4
  /// of rows 2(l%4), 2(l%4)+1); row r of matrix i is at the address thread
  /// 8i+r gives.
  void addMatrixStores(unsigned K, unsigned Phase,
                       std::map<uint64_t, std::vector<ByteWrite>> &ByOffset) {
    const auto &X = T[K].Thread.Exchanges;
    for (size_t I = 0; I < X.size(); ++I) {
      if (X[I].Kind.rfind("stmatrix.", 0) != 0 || Info[K].Phase[I] != Phase)
        continue;
      if (X[I].Kind.find(".m8n8.") == std::string::npos ||
          X[I].Kind.find(".b16") == std::string::npos)
        throw UnsupportedError(X[I].From.Loc, X[I].Kind + " is not modelled");
      const Expr *Guard = resolve(K, X[I].Guard);
      if (Guard->isFalse())
        continue;
      bool Trans = X[I].Kind.find(".trans") != std::string::npos;
      unsigned Lane = K & 31, Base = K & ~31u;
      for (size_t M = 0; M + 1 < X[I].Operands.size(); ++M) {
        const Expr *Fragment = X[I].Operands[M + 1];
        auto RowAddress = [&](unsigned Row) {
          unsigned Thread = Base + 8 * unsigned(M) + Row;
          auto There = Thread < T.size() ? counterpart(Thread, Info[K].Keys[I])
                                         : std::nullopt;
          if (!There)
            throw UnsupportedError(X[I].From.Loc, X[I].Kind + " without thread " +
                                                      std::to_string(Thread));
          const ptx::Exchange &S = T[Thread].Thread.Exchanges[*There];
          return constantOf(Thread, S.Operands[0], "an stmatrix row address",
                            S.From);
        };
        for (unsigned E = 0; E < 2; ++E) {
          uint64_t At = Trans ? RowAddress(2 * (Lane % 4) + E) + 2 * (Lane / 4)
                              : RowAddress(Lane / 4) + 4 * (Lane % 4) + 2 * E;
          for (unsigned B = 0; B < 2; ++B) {
            const Expr *Byte = C.cast(
                Op::Trunc,
                C.binary(Op::LShr, Fragment,
                         C.constant(Fragment->type(), 16 * E + 8 * B)),
                Type::i(8));
            unsigned Line = I < T[K].ExchangeLines.size() ? T[K].ExchangeLines[I] : 0;
            ByOffset[At + B].push_back({K, Guard, Byte, X[I].From.Op, Line});
          }
        }
      }
    }
  }

  /// The byte thread K's load in Phase reads at Offset: the content at the
  /// phase's start, or an unspecified value where the load races.
  const Expr *loaded(unsigned K, unsigned Phase, uint64_t Offset) {
    if (!Raced.count({K, Phase, Offset}))
      return content(Phase, Offset);
    return C.symbol(threadPrefix(K) + "raced.smem@" + std::to_string(Phase) +
                        "[" + std::to_string(Offset) + "]",
                    Type::i(8));
  }

  /// The byte at Offset when phase Phase starts.
  const Expr *content(unsigned Phase, uint64_t Offset) {
    if (auto It = Content.find({Phase, Offset}); It != Content.end())
      return It->second;
    const Expr *V = C.read("smem@0", Type::i(8), C.constant(Type::i(64), Offset));
    for (unsigned Q = 0; Q < Phase; ++Q) {
      indexPhase(Q);
      auto It = Writes[Q].find(Offset);
      if (It == Writes[Q].end())
        continue;
      for (const ByteWrite &W : It->second)
        V = C.select(W.Guard, resolve(W.Thread, W.Byte), V);
    }
    return Content[{Phase, Offset}] = V;
  }

  //===--- Resolution -----------------------------------------------------===//

  bool dependsOnThreadLocal(const Expr *E) {
    if (auto It = LocalDeps.find(E); It != LocalDeps.end())
      return It->second;
    const Expr *Roots[] = {E};
    for (const Expr *N : postOrder(Roots)) {
      if (LocalDeps.count(N))
        continue;
      // With racing loads, what a load reads depends on the thread.
      bool D = (N->op() == Op::Symbol && isThreadLocalName(N->name())) ||
               (!Raced.empty() && N->op() == Op::Read &&
                N->name().rfind("smem@", 0) == 0);
      for (const Expr *O : N->operands())
        D |= LocalDeps.at(O);
      LocalDeps[N] = D;
    }
    return LocalDeps.at(E);
  }

  /// The exchange a result symbol names: "t5.xchg.3.0" -> (5, 3, 0).
  std::optional<std::tuple<unsigned, unsigned, unsigned>>
  exchangeResult(const Expr *E) const {
    auto It = Out.ExchangeSites.find(E);
    if (It == Out.ExchangeSites.end())
      return std::nullopt;
    const std::string &N = E->name();
    size_t X = N.find("xchg.");
    size_t Dot = N.find('.', X + 5);
    return std::make_tuple(It->second.Thread,
                           unsigned(std::stoul(N.substr(X + 5, Dot - X - 5))),
                           unsigned(std::stoul(N.substr(Dot + 1))));
  }

  const Expr *leaf(unsigned K, const Expr *E) {
    if (E->op() == Op::Symbol) {
      if (auto X = exchangeResult(E)) {
        auto [Thread, Index, Result] = *X;
        return received(Thread, Index).at(Result);
      }
      if (isThreadLocalName(E->name()))
        return C.symbol(threadPrefix(K) + E->name(), E->type(), E->role());
    }
    return E;
  }

  const Expr *rebuild(unsigned K, const Expr *E,
                      const std::vector<const Expr *> &Ops) {
    if (E->op() == Op::Read && E->name().rfind("smem@", 0) == 0) {
      if (!Ops[0]->isConst())
        throw UnsupportedError(
            {}, "a shared-memory load at an offset that does not fold to a "
                "constant for thread " + std::to_string(K));
      unsigned Phase = unsigned(std::stoul(E->name().substr(5)));
      return loaded(K, Phase, Ops[0]->constBits());
    }
    bool Changed = false;
    for (size_t I = 0; I < Ops.size(); ++I)
      Changed |= Ops[I] != E->operand(unsigned(I));
    if (!Changed)
      return E;
    if (E->op() == Op::Read)
      return C.read(E->name(), E->type(), Ops[0]);
    return C.make(E->op(), Ops, E->rawAttribute(), E->type(),
                  E->op() == Op::Call ? std::string_view(E->name())
                                      : std::string_view());
  }

  void noteSite(unsigned K, const Expr *Lifted, const Expr *Resolved) {
    if (Resolved == Lifted || Out.Sites.count(Resolved))
      return;
    auto It = T[K].Provenance.find(Lifted);
    if (It != T[K].Provenance.end())
      Out.Sites[Resolved] = {It->second, K, Lifted};
  }

  /// E from thread K's lift, with every exchange result and shared-memory
  /// load replaced by what the CTA delivers.
  const Expr *resolve(unsigned K, const Expr *E) {
    std::vector<std::pair<const Expr *, bool>> Work = {{E, false}};
    while (!Work.empty()) {
      auto [N, Expanded] = Work.back();
      Work.pop_back();
      auto &Table = dependsOnThreadLocal(N) ? LocalMemo[K] : Memo;
      if (Table.count(N))
        continue;
      if (N->numOperands() == 0) {
        Table[N] = leaf(K, N);
        continue;
      }
      if (!Expanded) {
        Work.push_back({N, true});
        for (const Expr *O : N->operands())
          Work.push_back({O, false});
        continue;
      }
      std::vector<const Expr *> Ops;
      for (const Expr *O : N->operands())
        Ops.push_back((dependsOnThreadLocal(O) ? LocalMemo[K] : Memo).at(O));
      const Expr *R = rebuild(K, N, Ops);
      noteSite(K, N, R);
      Table[N] = R;
    }
    return (dependsOnThreadLocal(E) ? LocalMemo[K] : Memo).at(E);
  }

  //===--- Results --------------------------------------------------------===//

  void collectThread(unsigned K) {
    const ptx::ThreadEffects &E = T[K].Thread;
    for (const Buffer &B : E.Effects.Buffers)
      if (!isShared(B.Name) && !Out.Effects.buffer(B.Name))
        Out.Effects.Buffers.push_back(B);
    for (size_t W = 0; W < E.Effects.Writes.size(); ++W) {
      const Write &Wr = E.Effects.Writes[W];
      if (isShared(Wr.Buffer))
        continue;
      Write R = Wr;
      R.Guard = resolve(K, Wr.Guard);
      if (R.Guard->isFalse())
        continue;
      R.Index = resolve(K, Wr.Index);
      R.Value = resolve(K, Wr.Value);
      R.Defined = resolve(K, Wr.Defined);
      Out.Effects.Writes.push_back(R);
      Out.WriteThread.push_back(K);
      Out.WriteLines.push_back(W < T[K].WriteLines.size() ? T[K].WriteLines[W] : 0);
    }
    for (size_t U = 0; U < E.Effects.Undefined.size(); ++U) {
      UndefinedBehavior R = E.Effects.Undefined[U];
      R.Condition = resolve(K, R.Condition);
      if (R.Condition->isFalse())
        continue;
      Out.Effects.Undefined.push_back(R);
      Out.UndefinedThread.push_back(K);
      Out.UndefinedLines.push_back(
          U < T[K].UndefinedLines.size() ? T[K].UndefinedLines[U] : 0);
    }
    for (size_t G = 0; G < E.GlobalReads.size(); ++G) {
      ptx::GlobalRead R = E.GlobalReads[G];
      R.Guard = resolve(K, R.Guard);
      if (R.Guard->isFalse())
        continue;
      R.Index = resolve(K, R.Index);
      Out.GlobalReads.push_back(R);
      Out.GlobalReadThread.push_back(K);
      Out.GlobalReadLines.push_back(
          G < T[K].GlobalReadLines.size() ? T[K].GlobalReadLines[G] : 0);
    }
    for (const Atomic &A : E.Effects.Atomics) {
      Atomic R = A;
      R.Guard = resolve(K, A.Guard);
      if (R.Guard->isFalse())
        continue;
      R.Index = resolve(K, A.Index);
      R.Value = resolve(K, A.Value);
      if (R.Compare)
        R.Compare = resolve(K, A.Compare);
      Out.Effects.Atomics.push_back(R);
    }
    // Resolved like the effects: an assumption on a thread's own unknown
    // (a freeze) is that thread's, not one every thread shares.
    for (const Expr *Lifted : E.Assumptions) {
      const Expr *A = resolve(K, Lifted);
      if (std::find(Out.Assumptions.begin(), Out.Assumptions.end(), A) ==
          Out.Assumptions.end())
        Out.Assumptions.push_back(A);
    }
    for (const std::string &B : E.Bounds)
      if (std::find(Out.Bounds.begin(), Out.Bounds.end(), B) == Out.Bounds.end())
        Out.Bounds.push_back(B);
  }

  /// The shared bytes thread K's loads read, by phase (its lift's loads are
  /// reads of "smem@P" at an offset that folds once resolved).
  void collectReads(unsigned K) {
    const ptx::ThreadEffects &E = T[K].Thread;
    std::vector<const Expr *> Roots;
    for (const Write &W : E.Effects.Writes)
      Roots.insert(Roots.end(), {W.Guard, W.Index, W.Value, W.Defined});
    for (const UndefinedBehavior &U : E.Effects.Undefined)
      Roots.push_back(U.Condition);
    for (const ptx::Exchange &X : E.Exchanges) {
      Roots.push_back(X.Guard);
      Roots.insert(Roots.end(), X.Operands.begin(), X.Operands.end());
    }
    for (const Expr *N : postOrder(Roots))
      if (N->op() == Op::Read && N->name().rfind("smem@", 0) == 0) {
        const Expr *At = resolve(K, N->operand(0));
        if (At->isConst())
          ReadsOf[K].insert(
              {unsigned(std::stoul(N->name().substr(5))), At->constBits()});
      }
  }

  /// Two threads that touch one byte in one phase, one writing.
  void findRaces() {
    // Every phase, not only those a later load looked back at: the last
    // phase's writes race with its loads too.
    for (unsigned P = 0; !T.empty() && P <= T[0].Thread.Phases; ++P)
      indexPhase(P);
    for (auto &[Phase, ByOffset] : Writes)
      for (auto &[Offset, List] : ByOffset) {
        for (size_t I = 1; I < List.size(); ++I)
          if (List[I].Thread != List[0].Thread &&
              writtenByte(List[I]) != writtenByte(List[0])) {
            race(Out.Races, Phase, Offset, List[0], List[I].Thread, "writes");
            break;
          }
        for (unsigned K = 0; K < T.size(); ++K)
          if (ReadsOf[K].count({Phase, Offset}))
            for (const ByteWrite &W : List)
              if (W.Thread != K) {
                RacedFound.insert({K, Phase, Offset});
                race(Out.RacingReads, Phase, Offset, W, K, "reads");
                break;
              }
      }
  }

  /// The byte W writes, simplified under W's guard: where two threads both
  /// write, each value equals its simplified form, so two writes of one
  /// node (a butterfly's result, which every lane of the warp holds) leave
  /// the byte that value in any order. What a thread receives from a lane
  /// that does not take part is named after the receiver, and drops out
  /// here where the guard says every lane takes part.
  const Expr *writtenByte(const ByteWrite &W) {
    return UnderGuard(resolve(W.Thread, W.Byte), W.Guard);
  }

  void race(std::vector<std::string> &Lines, unsigned Phase, uint64_t Offset,
            const ByteWrite &W, unsigned Other, const char *What) {
    if (Lines.size() >= 8)
      return;
    Lines.push_back("shared-memory byte " + std::to_string(Offset) +
                        " in phase " + std::to_string(Phase) + ": thread " +
                        std::to_string(W.Thread) + " writes it (" + W.Op +
                        ", line " + std::to_string(W.Line) + ") and thread " +
                        std::to_string(Other) + " " + What +
                        " it without a barrier between");
  }
};

} // namespace

CtaEffects resolveCta(Context &C, const std::vector<llvmir::LlvmLift> &Threads) {
  Resolver First(C, Threads);
  CtaEffects E = First.run();
  if (First.racedFound().empty())
    return E;
  // Again, with what the racing loads read left unspecified.
  Resolver Second(C, Threads, First.racedFound());
  CtaEffects Out = Second.run();
  // A load that races only once others read any value still reads one
  // interleaving's: no proof rests on it.
  for (const ByteLoad &L : Second.racedFound())
    if (!First.racedFound().count(L)) {
      Out.Races.push_back("thread " + std::to_string(std::get<0>(L)) +
                          " loads shared-memory byte " +
                          std::to_string(std::get<2>(L)) + " in phase " +
                          std::to_string(std::get<1>(L)) +
                          " in a race that depends on what other racing "
                          "loads read");
      break;
    }
  return Out;
}

} // namespace stagecheck::stages

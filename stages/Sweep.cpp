#include "stages/Sweep.h"

#include "ir/Interpreter.h"
#include "stages/Unify.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t mix(uint64_t X) {
  X ^= X >> 33;
  X *= 0xff51afd7ed558ccdull;
  X ^= X >> 33;
  X *= 0xc4ceb9fe1a85ec53ull;
  X ^= X >> 33;
  return X;
}

uint64_t hashName(const std::string &S) {
  uint64_t H = 1469598103934665603ull;
  for (char Ch : S)
    H = (H ^ uint8_t(Ch)) * 1099511628211ull;
  return H;
}

/// Random inputs that look like launches: ids in range, sizes small and
/// positive, data random. Inputs that violate an assumption are redrawn.
class Sampler {
public:
  Sampler(std::vector<const Expr *> Symbols,
          const std::vector<const Expr *> &Assumptions, const SweepOptions &O)
      : Symbols(std::move(Symbols)), Assumptions(Assumptions), Options(O) {}

  std::vector<Env> draw(unsigned Count) {
    std::vector<Env> Out;
    for (unsigned Try = 0; Out.size() < Count && Try < Count * 16; ++Try) {
      Env E = one(Try);
      if (satisfies(E))
        Out.push_back(std::move(E));
    }
    return Out;
  }

private:
  Env one(unsigned Seed) {
    Env E;
    uint64_t S = mix(Seed + 0x9E3779B97F4A7C15ull);
    auto Next = [&]() { return S = mix(S + 0x9E3779B97F4A7C15ull); };
    std::map<std::string, uint64_t> NumPrograms;
    for (const Expr *Sym : Symbols) {
      Type T = Sym->type();
      const std::string &N = Sym->name();
      uint64_t R = Next();
      uint64_t V;
      switch (Sym->role()) {
      case SymbolRole::ThreadId: {
        unsigned D = N.back() - 'x';
        V = R % std::max(1u, Options.BlockDim[D < 3 ? D : 0]);
        break;
      }
      case SymbolRole::NumPrograms:
        V = 1 + R % 64;
        break;
      case SymbolRole::ProgramId:
        V = R % 64;
        break;
      default:
        if (T.isFloat()) {
          double D = double(int64_t(R % 2001) - 1000) / 8.0;
          V = Value::ofDouble(T, D).Bits;
        } else if (T.isBool()) {
          V = R & 1;
        } else {
          // Sizes and strides: mostly small, sometimes anything.
          V = (R & 7) == 0 ? Next() : R % 4096;
        }
      }
      E.setSymbol(N, Value::ofBits(T, V));
    }
    // A program id below its grid size; half the time one of the first
    // two, whose elements a small tensor's mask keeps (elsewhere every
    // loaded value is the mask's zero, which tells nodes apart poorly).
    for (const Expr *Sym : Symbols)
      if (Sym->role() == SymbolRole::ProgramId) {
        std::string Grid = "nprog." + Sym->name().substr(4);
        if (const Value *G = E.symbol(Grid)) {
          uint64_t Bound = std::max<uint64_t>(1, G->Bits);
          if (Next() & 1)
            Bound = std::min<uint64_t>(Bound, 2);
          E.setSymbol(Sym->name(), Value::ofBits(Sym->type(), Next() % Bound));
        }
      }
    return E;
  }

  bool satisfies(const Env &E) {
    try {
      Interpreter I(E, reads());
      for (const Expr *A : Assumptions)
        if (!I.eval(A).isTrue())
          return false;
      return true;
    } catch (const EvalError &) {
      return false;
    }
  }

public:
  static Interpreter::ReadSupplier reads() {
    return [](const std::string &Buffer, uint64_t Index, Type T) {
      uint64_t R = mix(hashName(Buffer) ^ mix(Index));
      // Floats mostly small, a quarter of them any bits: what only huge
      // arguments reach (sine's Payne-Hanek reduction) is simulated too.
      if (T.isFloat() && (R >> 62) == 0)
        return Value::ofBits(T, R);
      if (T.isFloat())
        return Value::ofDouble(T, double(int64_t(R % 2001) - 1000) / 8.0);
      return Value::ofBits(T, R);
    };
  }

private:
  std::vector<const Expr *> Symbols;
  const std::vector<const Expr *> &Assumptions;
  const SweepOptions &Options;
};

/// T != S with the nodes they share cut off: a node both contain becomes a
/// free variable (one per node), so the query holds only what differs. A
/// proof for every value of the cut variables is a proof for the values
/// they have; a counterexample may be spurious and is not trusted.
const Expr *differenceWithCuts(Context &C, const Expr *T, const Expr *S,
                               bool OnlyProducts = false) {
  const Expr *TRoot[] = {T}, *SRoot[] = {S};
  std::vector<const Expr *> TNodes = postOrder(TRoot), SNodes = postOrder(SRoot);
  std::unordered_set<const Expr *> InT(TNodes.begin(), TNodes.end());
  // OnlyProducts: only shared products (and what lies above them) are cut;
  // the cheap bits they are chosen by keep what ties them together.
  std::unordered_set<const Expr *> AboveProducts;
  if (OnlyProducts)
    for (const std::vector<const Expr *> *Nodes : {&TNodes, &SNodes})
      for (const Expr *N : *Nodes) {
        bool Is = isProductOfVariables(N);
        for (const Expr *O : N->operands())
          Is |= AboveProducts.count(O) > 0;
        if (Is)
          AboveProducts.insert(N);
      }
  std::unordered_set<const Expr *> Shared;
  for (const Expr *N : SNodes)
    if (InT.count(N) && !N->isConst() && N->op() != Op::Symbol &&
        (!OnlyProducts || AboveProducts.count(N)))
      Shared.insert(N);
  std::unordered_map<const Expr *, const Expr *> Memo;
  std::function<const Expr *(const Expr *)> Cut = [&](const Expr *N) {
    if (auto It = Memo.find(N); It != Memo.end())
      return It->second;
    const Expr *R;
    if (Shared.count(N) && N != T && N != S) {
      R = C.fresh("cut", N->type());
    } else if (N->numOperands() == 0) {
      R = N;
    } else {
      std::vector<const Expr *> Ops;
      for (const Expr *O : N->operands())
        Ops.push_back(Cut(O));
      switch (N->op()) {
      case Op::Read:
        R = C.read(N->name(), N->type(), Ops[0]);
        break;
      case Op::Call:
        R = C.call(N->name(), N->type(), Ops);
        break;
      default:
        R = C.make(N->op(), Ops, N->rawAttribute(), N->type());
      }
    }
    Memo[N] = R;
    return R;
  };
  const Expr *A = Cut(T), *B = Cut(S);
  Type Ty = A->type();
  if (Ty.isFloat()) { // all NaNs are one datum
    Type Bits = Type::i(Ty.bits());
    return C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, A, Bits),
                  C.cast(Op::Bitcast, B, Bits));
  }
  return C.icmp(ICmpPredicate::Ne, A, B);
}

bool sweptType(Type T) { return T.isInt() || T.isFloat(); }

/// Whether a query holds integer multiplication or division by a
/// variable, which bit-blasting turns into large circuits.
bool multiplies(const Expr *Differs) {
  const Expr *Roots[] = {Differs};
  for (const Expr *N : postOrder(Roots))
    if (isProductOfVariables(N))
      return true;
  return false;
}

/// Float arithmetic that the query would bit-blast (after the cuts).
unsigned arithmeticCost(const Expr *Differs) {
  const Expr *Roots[] = {Differs};
  unsigned Cost = 0;
  for (const Expr *N : postOrder(Roots))
    switch (N->op()) {
    case Op::FAdd:
    case Op::FSub:
    case Op::FMul:
    case Op::FDiv:
    case Op::Fma:
    case Op::FSqrt:
    case Op::FRoundInt:
    case Op::FPCast:
    case Op::FPToSI:
    case Op::FPToUI:
    case Op::SIToFP:
    case Op::UIToFP:
      ++Cost;
      break;
    default:
      break;
    }
  return Cost;
}

/// Divisions and remainders by anything but a power of two in E, as
/// (operation, divisor) pairs.
std::set<std::pair<Op, const Expr *>> dividers(const Expr *E) {
  const Expr *Roots[] = {E};
  std::set<std::pair<Op, const Expr *>> Out;
  for (const Expr *N : postOrder(Roots)) {
    if (N->op() != Op::SDiv && N->op() != Op::UDiv && N->op() != Op::SRem &&
        N->op() != Op::URem)
      continue;
    const Expr *D = N->operand(1);
    uint64_t Bits = D->isConst() ? D->constBits() : 0;
    if (Bits == 0 || (Bits & (Bits - 1)) != 0)
      Out.insert({N->op(), D});
  }
  return Out;
}

/// Whether proving T == S would bit-blast a divider against something
/// else: one side divides by a number the other does not (an sdiv by 3
/// against the multiply-high a backend puts in its place). That takes a
/// SAT solver seconds to minutes; the exact rule (stages/IntegerDivision.h)
/// applied after the sweep makes the two one node without a query. The
/// same division on both sides is asked: it cancels.
bool dividesDifferently(const Expr *T, const Expr *S) {
  return dividers(T) != dividers(S);
}

} // namespace

SweepResult sweep(Context &C, const std::vector<const Expr *> &Source,
                  const std::vector<const Expr *> &Target,
                  const std::vector<const Expr *> &Assumptions,
                  const smt::SolverOptions &Solver, const SweepOptions &O) {
  auto Memo = std::make_shared<std::unordered_map<const Expr *, const Expr *>>();
  SweepResult R;

  // A candidate that the canonical form under the assumptions' alignments
  // makes the target node's own (an or into zero low bits as a sum, a
  // widening of an aligned sum) is merged without a query.
  Canonicalizer Form(C, alignmentsFrom(Assumptions));
  auto SameForm = [&](const Expr *A, const Expr *B) {
    static const std::unordered_map<const Expr *, const Expr *> Nothing;
    return Form(A, Nothing) == Form(B, Nothing) && Form.assumed().empty();
  };
  std::vector<const Expr *> SourceNodes = postOrder(Source);
  std::vector<const Expr *> TargetNodes = postOrder(Target);
  std::unordered_set<const Expr *> InSource(SourceNodes.begin(),
                                            SourceNodes.end());
  std::vector<const Expr *> Symbols;
  {
    std::vector<const Expr *> All = Source;
    All.insert(All.end(), Target.begin(), Target.end());
    All.insert(All.end(), Assumptions.begin(), Assumptions.end());
    for (const Expr *N : postOrder(All))
      if (N->op() == Op::Symbol)
        Symbols.push_back(N);
  }
  std::vector<Env> Inputs = Sampler(Symbols, Assumptions, O).draw(O.Samples);

  auto Rebuild = [&C](const Expr *E, const std::vector<const Expr *> &Ops) {
    switch (E->op()) {
    case Op::Const:
    case Op::Symbol:
      return E;
    case Op::Read:
      return C.read(E->name(), E->type(), Ops[0]);
    case Op::Call:
      return C.call(E->name(), E->type(), Ops);
    default:
      return C.make(E->op(), Ops, E->rawAttribute(), E->type());
    }
  };

  // Signatures of the source's integer nodes.
  std::vector<std::unique_ptr<Interpreter>> Runs;
  for (const Env &E : Inputs)
    Runs.push_back(std::make_unique<Interpreter>(E, Sampler::reads()));
  auto Signature = [&](const Expr *N, std::vector<uint64_t> &Out) {
    Out.clear();
    try {
      for (auto &I : Runs)
        Out.push_back(I->eval(N).Bits);
      return true;
    } catch (const EvalError &) {
      return false;
    }
  };
  std::map<std::pair<uint32_t, std::vector<uint64_t>>,
           std::vector<const Expr *>>
      BySignature;
  std::vector<uint64_t> Sig;
  bool Simulated = Inputs.size() >= 4;
  if (Simulated)
    for (const Expr *N : SourceNodes)
      if (sweptType(N->type()) && !N->isConst() && Signature(N, Sig))
        BySignature[{N->type().hashValue(), Sig}].push_back(N);

  // Bottom-up over the target: operands first, then the node itself. One
  // pass over the integers, then one over the floats of the rewritten
  // target: floats unify only once the addresses below them do, and the
  // integers must not wait for a float that takes its full time limit.
  using MemoMap = std::unordered_map<const Expr *, const Expr *>;
  auto Pass = [&](const std::vector<const Expr *> &Nodes, bool Floats,
                  MemoMap &Out, smt::WorkBudget &Budget) {
    for (const Expr *N : Nodes) {
      std::vector<const Expr *> Ops;
      bool Same = true;
      for (const Expr *Operand : N->operands()) {
        Ops.push_back(Out.at(Operand));
        Same &= Ops.back() == Operand;
      }
      const Expr *M = Same ? N : Rebuild(N, Ops);
      bool Wanted = Floats ? M->type().isFloat() : M->type().isInt();
      // A node that took one value on every sample says too little to
      // pick a partner by: such candidates are mostly refuted, slowly.
      auto Informative = [&]() {
        return std::any_of(Sig.begin(), Sig.end(),
                           [&](uint64_t V) { return V != Sig.front(); });
      };
      if (Simulated && Wanted && !InSource.count(M) && !M->isConst() &&
          !Budget.spent() && Signature(M, Sig) && Informative()) {
        auto It = BySignature.find({M->type().hashValue(), Sig});
        if (It != BySignature.end())
          for (const Expr *Candidate : It->second) {
            if (SameForm(M, Candidate)) {
              ++R.Proved;
              R.Merged[N] = Candidate;
              M = Candidate;
              break;
            }
            smt::SolverOptions S = Solver;
            S.TimeoutMs = std::min(S.TimeoutMs, O.QueryTimeoutMs);
            // Integers are asked whole (their facts, such as an index
            // being even, live in what they share) unless float arithmetic
            // lies below them; floats with the shared nodes cut off, since
            // bit-blasting those is what takes the time.
            const Expr *Differs =
                Floats ? nullptr : C.icmp(ICmpPredicate::Ne, M, Candidate);
            bool Cut = Floats || arithmeticCost(Differs) > 0;
            // Integers that differ only above products the two share (the
            // partial products of a multi-word multiplication, chosen by
            // offsets spelled differently) are proved at once with the
            // shared products cut off; asked whole, the products are
            // bit-blasted, mostly past the time limit. A refutation with
            // the products free may be spurious, so it is not trusted: the
            // node stays as it is (undecided). Only where products remain
            // after the cuts is the whole question asked.
            if (!Cut && multiplies(Differs)) {
              const Expr *WithCuts =
                  differenceWithCuts(C, M, Candidate, /*OnlyProducts=*/true);
              smt::SolverOptions CS = S;
              CS.TimeoutMs = std::min(CS.TimeoutMs, O.FloatQueryTimeoutMs);
              bool Proved = false;
              if (!multiplies(WithCuts)) {
                smt::QueryResult QR = smt::solve(
                    {"sweep", WithCuts, Assumptions, smt::Mode::IEEE},
                    CS);
                Budget.charge(QR);
                Proved = QR.Kind == smt::Outcome::Proved;
              }
              if (Proved) {
                ++R.Proved;
                R.Merged[N] = Candidate;
                M = Candidate;
                break;
              }
              if (!multiplies(WithCuts)) {
                ++R.Undecided;
                continue;
              }
            }
            if (Cut)
              Differs = differenceWithCuts(C, M, Candidate);
            // The float pass is for choices spelled differently (selects,
            // compares); arithmetic that differs is left to the checker,
            // which has the whole time limit for it.
            if ((Cut && arithmeticCost(Differs) > O.MaxFloatArithmetic) ||
                dividesDifferently(M, Candidate)) {
              ++R.Undecided;
              continue;
            }
            if (Cut)
              S.TimeoutMs = std::min(S.TimeoutMs, O.FloatQueryTimeoutMs);
            smt::Query Q{"sweep", Differs, Assumptions, smt::Mode::IEEE};
            smt::QueryResult QR = smt::solve(Q, S);
            Budget.charge(QR);
            if (QR.Kind == smt::Outcome::Proved) {
              ++R.Proved;
              R.Merged[N] = Candidate;
              M = Candidate;
              break;
            }
            ++(QR.Kind == smt::Outcome::Counterexample ? R.Refuted
                                                        : R.Undecided);
          }
      }
      Out[N] = M;
    }
  };
  MemoMap Integers;
  smt::WorkBudget IntegerBudget(O.TotalMs);
  Pass(TargetNodes, false, Integers, IntegerBudget);
  std::vector<const Expr *> Rewritten;
  for (const Expr *T : Target)
    Rewritten.push_back(Integers.at(T));
  // The floats get what the integers left, and at least half.
  smt::WorkBudget FloatBudget(unsigned(std::max<double>(
      O.TotalMs / 2, O.TotalMs - IntegerBudget.spentMs())));
  Pass(postOrder(Rewritten), true, *Memo, FloatBudget);
  // Compose: what the integer pass made of a node, then the float pass.
  for (auto &[N, M] : Integers)
    if (auto It = Memo->find(M); It != Memo->end())
      M = It->second;
  for (const auto &[N, M] : Integers)
    (*Memo)[N] = M;

  R.Rewrite = [Memo, Rebuild](const Expr *E) -> const Expr * {
    auto It = Memo->find(E);
    if (It != Memo->end())
      return It->second;
    // Not met while sweeping (an expression the caller built later):
    // rebuild through what is known.
    const Expr *Roots[] = {E};
    for (const Expr *N : postOrder(Roots)) {
      if (Memo->count(N))
        continue;
      std::vector<const Expr *> Ops;
      bool Same = true;
      for (const Expr *Operand : N->operands()) {
        Ops.push_back(Memo->at(Operand));
        Same &= Ops.back() == Operand;
      }
      (*Memo)[N] = Same ? N : Rebuild(N, Ops);
    }
    return Memo->at(E);
  };
  return R;
}

} // namespace stagecheck::stages

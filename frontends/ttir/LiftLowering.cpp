//===- LiftLowering.cpp - TTGIR as Triton's NVIDIA lowering computes it ---===//
//
// LiftOptions::Lowering: where Triton 3.6's lowering to LLVM IR is not a
// plain equality of the TTGIR op, the op is lifted as the lowering computes
// it, and the rule is counted in LiftResult::Rules:
//
//  - "reduction tree order": tt.reduce combines, for the operand's layout,
//    each thread's registers in register order, then the lanes of a warp by
//    butterfly shuffles (the highest lane bit along the axis first), then
//    the warps through shared memory by the same butterfly
//    (lib/Conversion/TritonGPUToLLVM/ReduceOpToLLVM.cpp: reduceWithinThreads,
//    warpReduce, accumulatePartialReductions). Each combine is
//    combine(own, received). A warp-synchronous reduction leaves each lane
//    its own tree, so the result depends on the thread that holds it: the
//    symbols ttgir.lane and ttgir.warp stand for "the thread that computes
//    this element", and ops whose lowering moves values between threads
//    (stores, layout conversions, shared memory, dots) first fix them to
//    the thread Triton takes the value from (the representative holder:
//    broadcast bits zero).
//  - "scan order": a forward tt.scan whose combine's order matters, with the
//    axis held by one warp's registers, then lanes, in axis order: each
//    thread's registers in order, the lanes' totals by shuffles up, then
//    each register's carry from the lane before (ScanOpToLLVM.cpp;
//    scanLowered below);
//  - "exp -> ex2.approx": math.exp on f32 is ex2.approx.f32(x * log2 e);
//  - "divf -> div.full": arith.divf on f32 is div.full.f32;
//  - "sqrt -> __nv_sqrtf", "log -> __nv_logf", "sin -> __nv_sinf", "cos ->
//    __nv_cosf": math.sqrt, math.log, math.sin and math.cos on f32 call
//    libdevice (its body gives them their meaning).
//  - "dot -> mma.sync m16n8k16 (per 16-wide k slice, in order)": tt.dot
//    with an MMAv2 result (#ttg.nvidia_mma versionMajor 2, instrShape
//    [16, 8]), f16 operands of kWidth 2 and an f32 accumulator is one
//    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 per 16-wide slice of
//    k, slice after slice, each taking the previous one's result as its
//    accumulator (third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/
//    MMAv2.cpp: convertMMAImpl loops k, then m, then n, and writes each
//    result back into fc): element (i, j) is
//    F(...F(F(c, A[i, 0:16], B[0:16, j]), A[i, 16:32], B[16:32, j])...)
//    with F the uninterpreted ir::MmaM16N8K16F32F16 (the instruction's
//    inner sum and rounding are the hardware's). Other MMAv2 dots are
//    unsupported (bf16, tf32, f16 or integer accumulators, kWidth > 2,
//    whose instructions take k out of order, batches, Turing's m16n8k8).
//
//===----------------------------------------------------------------------===//
#include "frontends/ttir/LifterImpl.h"

#include "ir/Functions.h"
#include "layout/Layouts.h"
#include "layout/Symbolic.h"

#include <algorithm>

using namespace stagecheck::ir;

namespace stagecheck::ttir {

namespace {

std::optional<layout::CTALayout> ctaOf(const Layout &L) {
  if (L.CTAsPerCGA.empty() && L.CTASplitNum.empty() && L.CTAOrder.empty())
    return std::nullopt;
  return layout::CTALayout{L.CTAsPerCGA, L.CTASplitNum, L.CTAOrder};
}

/// The compute capability of "ttg.target" = "cuda:90", or 0.
unsigned targetCapability(const Module &M) {
  for (const auto &[Key, Value] : M.Attributes)
    if (Key == "ttg.target" && Value && Value->Text.rfind("cuda:", 0) == 0)
      return unsigned(std::strtoul(Value->Text.c_str() + 5, nullptr, 10));
  return 0;
}

} // namespace

layout::EncodingPtr toEncoding(const Layout &L) {
  using layout::Encoding;
  switch (L.K) {
  case Layout::Kind::Blocked:
    return std::make_shared<Encoding>(layout::BlockedEncoding{
        L.SizePerThread, L.ThreadsPerWarp, L.WarpsPerCTA, L.Order, ctaOf(L)});
  case Layout::Kind::Slice:
    if (!L.Parent)
      break;
    return std::make_shared<Encoding>(
        layout::SliceEncoding{unsigned(L.Dim), toEncoding(*L.Parent)});
  case Layout::Kind::NvidiaMma:
    return std::make_shared<Encoding>(layout::NvidiaMmaEncoding{
        L.VersionMajor, L.VersionMinor, L.WarpsPerCTA, L.InstrShape,
        ctaOf(L)});
  case Layout::Kind::DotOperand:
    if (!L.Parent)
      break;
    return std::make_shared<Encoding>(layout::DotOperandEncoding{
        L.OpIdx, toEncoding(*L.Parent), L.KWidth});
  case Layout::Kind::SwizzledShared:
    return std::make_shared<Encoding>(layout::SwizzledSharedEncoding{
        L.Vec, L.PerPhase, L.MaxPhase, L.Order, ctaOf(L)});
  case Layout::Kind::NVMMAShared:
    return std::make_shared<Encoding>(layout::NVMMASharedEncoding{
        L.SwizzlingByteWidth, L.Transposed, L.ElementBitWidth, L.FP4Padded,
        ctaOf(L)});
  default:
    break;
  }
  throw UnsupportedError({}, "layout " + L.Text + " is not modelled");
}

//===----------------------------------------------------------------------===//
// The thread that computes an element
//===----------------------------------------------------------------------===//

void Lifter::initThreadSymbols() {
  LaneSym = C.symbol("ttgir.lane", Type::i(32));
  WarpSym = C.symbol("ttgir.warp", Type::i(32));
}

bool Lifter::mentionsThread(const Expr *E) {
  if (!LaneSym || !E)
    return false;
  std::vector<const Expr *> Work = {E};
  std::vector<const Expr *> Order;
  // Memoised over the DAG: most values never mention the thread.
  while (!Work.empty()) {
    const Expr *X = Work.back();
    if (ThreadDeps.count(X)) {
      Work.pop_back();
      continue;
    }
    bool Pending = false;
    for (const Expr *Operand : X->operands())
      if (!ThreadDeps.count(Operand)) {
        Work.push_back(Operand);
        Pending = true;
      }
    if (Pending)
      continue;
    Work.pop_back();
    bool Mentions = X == LaneSym || X == WarpSym;
    for (const Expr *Operand : X->operands())
      Mentions |= ThreadDeps.at(Operand);
    ThreadDeps[X] = Mentions;
  }
  return ThreadDeps.at(E);
}

const Lifter::Holder &Lifter::representative(const MType &Ty,
                                             const Operation &O) {
  std::string Key = Ty.Text;
  if (auto It = Representatives.find(Key); It != Representatives.end())
    return It->second;
  Holder H{C.intConst(Type::i(32), 0), C.intConst(Type::i(32), 0)};
  std::vector<int64_t> Shape = Ty.shape();
  if (Ty.isTensor() && !Shape.empty()) {
    if (!Ty.Encoding)
      unsupported(O, "a tensor without a layout (" + Ty.Text + ")");
    layout::DistributedLayout D(*toEncoding(*Ty.Encoding), Shape);
    const layout::LinearLayout &L = D.linear();
    // The element -> (lane, warp) map that picks, among an element's
    // holders, the one whose broadcast bits are zero: linear, so one
    // preimage per element bit gives it.
    std::vector<std::string> Ins = {layout::kRegister, layout::kLane,
                                    layout::kWarp, layout::kBlock};
    std::vector<uint64_t> Free;
    for (const std::string &In : Ins)
      Free.push_back(L.hasInDim(In) ? L.freeVariableMask(In) : 0);
    std::vector<layout::LinearLayout::InDim> Inverse;
    unsigned Rank = unsigned(Shape.size());
    for (unsigned Dim = 0; Dim < Rank; ++Dim) {
      layout::LinearLayout::InDim In{layout::outDimName(Dim), {}};
      int Out = L.outIndex(layout::outDimName(Dim));
      for (int64_t Bit = 1; Bit < Shape[Dim]; Bit <<= 1) {
        std::vector<int32_t> Unit(L.outs().size(), 0);
        Unit[size_t(Out)] = int32_t(Bit);
        std::optional<std::vector<int32_t>> Pick;
        for (const std::vector<int32_t> &S : L.preimage(Unit)) {
          bool Zero = true;
          for (size_t K = 0; K < L.ins().size(); ++K) {
            auto Pos = std::find(Ins.begin(), Ins.end(), L.ins()[K].Name);
            if (Pos != Ins.end() && (uint64_t(S[K]) & Free[size_t(Pos - Ins.begin())]))
              Zero = false;
          }
          if (Zero) {
            Pick = S;
            break;
          }
        }
        if (!Pick)
          unsupported(O, "a layout whose broadcast is not along single bits (" +
                             Ty.Text + ")");
        layout::LinearLayout::Basis B(2, 0);
        for (size_t K = 0; K < L.ins().size(); ++K) {
          if (L.ins()[K].Name == layout::kLane)
            B[0] = (*Pick)[K];
          else if (L.ins()[K].Name == layout::kWarp)
            B[1] = (*Pick)[K];
        }
        In.Bases.push_back(B);
      }
      Inverse.push_back(std::move(In));
    }
    layout::LinearLayout Inv(
        std::move(Inverse),
        std::vector<layout::LinearLayout::OutDim>{
            {layout::kLane, L.inDimSizeLog2(layout::kLane)},
            {layout::kWarp, L.inDimSizeLog2(layout::kWarp)}});
    std::map<std::string, const Expr *> Element;
    for (unsigned Dim = 0; Dim < Rank; ++Dim)
      Element[layout::outDimName(Dim)] = idx(Dim);
    std::vector<const Expr *> LW = layout::applySymbolic(C, Inv, Element);
    H = {LW[0], LW[1]};
  }
  return Representatives.emplace(Key, H).first->second;
}

const Expr *Lifter::withThread(const Expr *E, const Expr *Lane,
                               const Expr *Warp) {
  if (!mentionsThread(E))
    return E;
  return substitute(C, E, {{LaneSym, Lane}, {WarpSym, Warp}});
}

Val Lifter::pinned(const Val &V, const Operation &O) {
  if (V.K != Val::Kind::Tensor || (!mentionsThread(V.E) &&
                                   !mentionsThread(V.Defined)))
    return V;
  const Holder &H = V.Ty ? representative(*V.Ty, O)
                         : representative(MType(), O);
  Val Out = V;
  Out.E = withThread(V.E, H.Lane, H.Warp);
  Out.Defined = withThread(V.Defined, H.Lane, H.Warp);
  return Out;
}

const Expr *Lifter::pinnedForOp(const Expr *E, const Operation &O) {
  if (!mentionsThread(E))
    return E;
  TypePtr Ty;
  if (!O.ResultTypes.empty() || !O.Types.empty())
    Ty = resultType(O);
  if (!Ty || !Ty->isTensor())
    for (const TypePtr &T : O.Types)
      if (T && T->isTensor()) {
        Ty = T;
        break;
      }
  const Holder &H = Ty ? representative(*Ty, O) : representative(MType(), O);
  return withThread(E, H.Lane, H.Warp);
}

bool Lifter::crossesThreads(const std::string &Name) {
  static const char *const Ops[] = {
      "tt.store",         "tt.atomic_rmw",
      "tt.atomic_cas",    "ttg.convert_layout",
      "ttg.local_alloc",  "ttg.local_store",
      "ttg.async_copy_global_to_local",
      "tt.dot",           "ttng.warp_group_dot",
      "tt.scan",          "tt.histogram",
      "tt.gather",        "tt.descriptor_store",
      "ttng.async_tma_copy_global_to_local"};
  return std::find(std::begin(Ops), std::end(Ops), Name) != std::end(Ops);
}

void Lifter::pinOperands(const Operation &O,
                         std::vector<std::pair<std::string, std::vector<Val>>> &Saved) {
  auto &Frame = Frames.back();
  for (const OperandRef &Ref : O.Operands) {
    auto It = Frame.find(Ref.Name);
    if (It == Frame.end() || Ref.Index >= It->second.size())
      continue; // get() reports it
    Val P = pinned(It->second[Ref.Index], O);
    if (P.E == It->second[Ref.Index].E &&
        P.Defined == It->second[Ref.Index].Defined)
      continue;
    if (std::none_of(Saved.begin(), Saved.end(),
                     [&](const auto &S) { return S.first == Ref.Name; }))
      Saved.push_back({Ref.Name, It->second});
    It->second[Ref.Index] = P;
  }
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

void Lifter::noteRule(const std::string &Rule, const Operation &O) {
  RuleSites[Rule].insert({O.Pos.Line, O.Pos.Column});
  R.Rules[Rule] = unsigned(RuleSites[Rule].size());
}

bool Lifter::liftLoweredArith(const Operation &O) {
  const std::string &N = O.Name;
  // The ops the lowering hands to libdevice, and the function it calls.
  static const std::pair<const char *, const char *> LibdeviceCalls[] = {
      {"math.sqrt", "__nv_sqrtf"},
      {"math.log", "__nv_logf"},
      {"math.sin", "__nv_sinf"},
      {"math.cos", "__nv_cosf"}};
  const char *Libdevice = nullptr;
  for (const auto &[Name, Function] : LibdeviceCalls)
    if (N == Name)
      Libdevice = Function;
  bool Exp = N == "math.exp", Div = N == "arith.divf";
  if (!Exp && !Div && !Libdevice)
    return false;
  if (O.ResultTypes.empty() && O.Types.empty())
    return false;
  if (scalarType(*resultType(O), O) != Type::f32()) {
    if (Div)
      return false; // f64 divf is div.rn: the IEEE quotient
    unsupported(O, "the lowering of " + N + " on " +
                       scalarType(*resultType(O), O).str() +
                       " is not modelled");
  }
  std::vector<Val> V = elementwiseOperands(O);
  Type F32 = Type::f32();
  const Expr *E;
  if (Exp) {
    // log2(e) rounded to f32, as the lowering's constant.
    const Expr *Log2E = C.constant(F32, 0x3FB8AA3B);
    const Expr *Args[] = {C.floatBinary(Op::FMul, V[0].E, Log2E)};
    E = C.call("ex2.approx", F32, Args);
    noteRule("exp -> ex2.approx", O);
  } else if (Div) {
    const Expr *Args[] = {V[0].E, V[1].E};
    E = C.call(std::string(ir::measuredDivision("div.full", F32,
                                                 targetCapability(M))),
               F32, Args);
    noteRule("divf -> div.full", O);
  } else {
    const Expr *Args[] = {V[0].E};
    E = C.call(Libdevice, F32, Args);
    noteRule(N.substr(N.find('.') + 1) + " -> " + Libdevice, O);
  }
  define(O, elementwise(O, V, E));
  return true;
}

//===----------------------------------------------------------------------===//
// Dots on tensor cores
//===----------------------------------------------------------------------===//

namespace {

const Layout *encodingOf(const Val &V) {
  return V.Ty && V.Ty->Encoding ? V.Ty->Encoding.get() : nullptr;
}

} // namespace

std::optional<Val> Lifter::dotLowered(const Operation &O, const Val &A,
                                      const Val &B, const Val &Acc) {
  TypePtr Result = resultType(O);
  const Layout *L =
      Result && Result->Encoding ? Result->Encoding.get() : nullptr;
  if (!L || L->K != Layout::Kind::NvidiaMma || L->VersionMajor != 2)
    return std::nullopt;
  auto Unmodelled = [&](const std::string &What) {
    unsupported(O, "tt.dot lowered to mma.sync " + What + " is not modelled");
  };
  if (A.rank() != 2)
    Unmodelled("over a batch of matrices");
  if (L->InstrShape != std::vector<unsigned>{16, 8})
    Unmodelled("with instrShape " + L->Text);
  Type F16 = Type::f16(), F32 = Type::f32();
  if (A.E->type() != F16 || B.E->type() != F16 || Acc.E->type() != F32)
    Unmodelled("with " + A.E->type().str() + " x " + B.E->type().str() +
               " -> " + Acc.E->type().str() + " (only f16 x f16 -> f32)");
  unsigned Capability = targetCapability(M);
  if (Capability < 80)
    Unmodelled("for target cuda:" + std::to_string(Capability) +
               " (m16n8k16 needs sm_80 or later)");
  for (const auto &[V, Index] : {std::pair{&A, 0u}, std::pair{&B, 1u}}) {
    const Layout *E = encodingOf(*V);
    if (!E || E->K != Layout::Kind::DotOperand || E->OpIdx != Index)
      Unmodelled("with an operand not in a #ttg.dot_op layout");
    if (E->KWidth != 2)
      Unmodelled("with kWidth " + std::to_string(E->KWidth) +
                 " (its instructions take k out of order)");
  }
  int64_t K = A.Shape[1];
  if (K % 16 != 0)
    Unmodelled("with k = " + std::to_string(K) + ", not a multiple of 16");
  noteRule("dot -> mma.sync m16n8k16 (per 16-wide k slice, in order)", O);
  const Expr *Sum = Acc.E, *Defined = Acc.Defined;
  for (int64_t Slice = 0; Slice < K; Slice += 16) {
    std::vector<const Expr *> Args = {Sum}, Bs;
    for (int64_t I = Slice; I < Slice + 16; ++I) {
      const Expr *KI = C.intConst(Type::i(32), I);
      Val AI = substVal(A, {{1, KI}}), BI = substVal(B, {{0, KI}});
      Args.push_back(AI.E);
      Bs.push_back(BI.E);
      Defined = C.andOf(Defined, C.andOf(AI.Defined, BI.Defined));
    }
    Args.insert(Args.end(), Bs.begin(), Bs.end());
    Sum = C.call(MmaM16N8K16F32F16, F32, Args);
  }
  return tensorOf(Result, Sum, Defined);
}

//===----------------------------------------------------------------------===//
// The reduction tree of the lowering
//===----------------------------------------------------------------------===//

namespace {

/// The input bits of one hardware dimension that move the reduced axis,
/// and those that broadcast.
struct AxisBits {
  std::vector<unsigned> Bits;  // increasing
  std::vector<int32_t> Steps;  // the axis offset each one adds (XOR)
  uint32_t Mask = 0;           // Bits as a mask
  uint32_t Broadcast = 0;      // zero bases
  /// Sub-index X (bit j for Bits[j]) as the dimension's value.
  uint32_t spread(uint32_t X) const {
    uint32_t V = 0;
    for (unsigned J = 0; J < Bits.size(); ++J)
      if ((X >> J) & 1)
        V |= 1u << Bits[J];
    return V;
  }
  int32_t axis(uint32_t X) const {
    int32_t A = 0;
    for (unsigned J = 0; J < Bits.size(); ++J)
      if ((X >> J) & 1)
        A ^= Steps[J];
    return A;
  }
  uint32_t count() const { return 1u << Bits.size(); }
  bool contiguous() const {
    for (unsigned J = 1; J < Bits.size(); ++J)
      if (Bits[J] != Bits[J - 1] + 1)
        return false;
    return true;
  }
};

/// Which input bits of hardware dimension Name (register, lane, warp) of L
/// move output dimension AxisOut, and which broadcast. A bit that moves the
/// axis and another dimension too is named in Mixed.
AxisBits axisBitsOf(const layout::LinearLayout &L, const char *Name,
                    int AxisOut, std::string &Mixed) {
  AxisBits B;
  const auto &Bases = L.bases(Name);
  for (unsigned I = 0; I < Bases.size(); ++I) {
    bool Other = false;
    for (size_t K = 0; K < Bases[I].size(); ++K)
      if (int(K) != AxisOut && Bases[I][K] != 0)
        Other = true;
    int32_t Along = Bases[I][size_t(AxisOut)];
    if (Along && Other && Mixed.empty())
      Mixed = std::string(Name) + " bit " + std::to_string(I);
    if (Along) {
      B.Bits.push_back(I);
      B.Steps.push_back(Along);
      B.Mask |= 1u << I;
    } else if (!Other) {
      B.Broadcast |= 1u << I;
    }
  }
  return B;
}

} // namespace

std::vector<Val> Lifter::reduceLowered(
    const Operation &O, const std::vector<Val> &Srcs, unsigned Axis,
    const std::function<std::vector<Val>(int64_t)> &Leaf) {
  const Val &First = Srcs.front();
  if (!First.Ty || !First.Ty->Encoding)
    unsupported(O, "tt.reduce of a tensor without a layout");
  layout::DistributedLayout D(*toEncoding(*First.Ty->Encoding), First.Shape);
  const layout::LinearLayout &L = D.linear();
  int AxisOut = L.outIndex(layout::outDimName(Axis));
  auto Classify = [&](const char *Name) {
    std::string Mixed;
    AxisBits B = axisBitsOf(L, Name, AxisOut, Mixed);
    if (!Mixed.empty())
      unsupported(O, "tt.reduce over a layout whose " + Mixed +
                         " moves the axis and another dimension");
    return B;
  };
  AxisBits Regs = Classify(layout::kRegister), Lanes = Classify(layout::kLane),
           Warps = Classify(layout::kWarp);
  for (const auto &B : L.bases(layout::kBlock))
    if (std::any_of(B.begin(), B.end(), [](int32_t V) { return V != 0; }))
      unsupported(O, "tt.reduce over several CTAs");
  if (!Lanes.contiguous() || !Warps.contiguous())
    unsupported(O, "tt.reduce over a layout whose lanes or warps along the "
                   "axis are not contiguous bits");
  noteRule("reduction tree order", O);

  bool WarpSynchronous = Warps.Bits.empty();
  Type I32 = Type::i(32);
  auto Pin = [&](std::vector<Val> Vs, uint32_t LaneA, uint32_t WarpA) {
    // The leaf as the thread that holds it computed it: the reducing
    // thread with its axis bits replaced (and, for values published
    // through shared memory, its broadcast bits zero).
    uint32_t LaneClear = Lanes.Mask | (WarpSynchronous ? 0 : Lanes.Broadcast);
    uint32_t WarpClear = Warps.Mask | Warps.Broadcast;
    const Expr *Lane = C.orOf(C.andOf(LaneSym, C.intConst(I32, ~LaneClear)),
                              C.intConst(I32, Lanes.spread(LaneA)));
    const Expr *Warp = C.orOf(C.andOf(WarpSym, C.intConst(I32, ~WarpClear)),
                              C.intConst(I32, Warps.spread(WarpA)));
    for (Val &V : Vs) {
      V.E = withThread(V.E, Lane, Warp);
      V.Defined = withThread(V.Defined, Lane, Warp);
    }
    return Vs;
  };
  // One thread's registers, in register order: combine(acc, next).
  auto ThreadFold = [&](uint32_t LaneA, uint32_t WarpA) {
    std::vector<Val> Acc;
    for (uint32_t R = 0; R < Regs.count(); ++R) {
      int64_t A = Regs.axis(R) ^ Lanes.axis(LaneA) ^ Warps.axis(WarpA);
      std::vector<Val> X = Pin(Leaf(A), LaneA, WarpA);
      Acc = Acc.empty() ? X : combine(O, Acc, X);
    }
    return Acc;
  };
  // A butterfly over N sub-index bits, the highest first: every position
  // combines its own value with the one across: combine(own, received).
  auto Butterfly = [&](std::vector<std::vector<Val>> V, unsigned Bits) {
    for (unsigned J = Bits; J-- > 0;) {
      std::vector<std::vector<Val>> Next(V.size());
      for (uint32_t X = 0; X < V.size(); ++X)
        Next[X] = combine(O, V[X], V[X ^ (1u << J)]);
      V = std::move(Next);
    }
    return V;
  };
  auto WarpLevel = [&](uint32_t WarpA) {
    std::vector<std::vector<Val>> V;
    for (uint32_t LaneA = 0; LaneA < Lanes.count(); ++LaneA)
      V.push_back(ThreadFold(LaneA, WarpA));
    return Butterfly(std::move(V), unsigned(Lanes.Bits.size()));
  };
  if (!WarpSynchronous) {
    std::vector<std::vector<Val>> Partials;
    for (uint32_t WarpA = 0; WarpA < Warps.count(); ++WarpA)
      Partials.push_back(WarpLevel(WarpA)[0]);
    return Butterfly(std::move(Partials), unsigned(Warps.Bits.size()))[0];
  }
  // Each lane keeps its own tree: select it by the lane's axis bits.
  std::vector<std::vector<Val>> PerLane = WarpLevel(0);
  std::vector<Val> Out = PerLane[0];
  const Expr *LaneAxis = C.andOf(LaneSym, C.intConst(I32, Lanes.Mask));
  for (uint32_t LaneA = 1; LaneA < PerLane.size(); ++LaneA) {
    const Expr *Here = C.eq(LaneAxis, C.intConst(I32, Lanes.spread(LaneA)));
    for (size_t K = 0; K < Out.size(); ++K) {
      Out[K].E = C.select(Here, PerLane[LaneA][K].E, Out[K].E);
      Out[K].Defined = C.select(Here, PerLane[LaneA][K].Defined, Out[K].Defined);
    }
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// The scan order of the lowering
//===----------------------------------------------------------------------===//

// Triton's ScanOpToLLVM for an axis held by registers, then lanes, then
// warps, in axis order, that block repeated by further registers: each
// thread scans its contiguous registers in axis order (combine(acc, next));
// the lanes' totals are scanned by shuffles up at distances 1, 2, 4, ...
// (lane l >= d: combine(received, own)). Each warp's last lane publishes
// its block's total (through shared memory across warps); block k's
// running total folds, in order, the running total of the blocks before
// and the totals of its warps, and warp w's carry is that fold as far as
// warp w - 1 (none for warp 0 of block 0). A lane's inclusive total
// becomes combine(carry, total). A thread's last contiguous register is
// then that inclusive total, and each other register r is combine(carry
// in, its own prefix through r), the carry in being the inclusive total
// of the lane before (the warp's carry for lane 0). Every combine takes
// the earlier elements first.
//
// A reverse scan is that forward scan run on the axis mirrored: the
// lowering reverses each thread's registers, exchanges lane l with lane
// l ^ 31 and numbers the warps along the axis from the last, scans
// forward, and mirrors the result back. Each of those flips every bit of
// its index, and registers, lanes and warps hold the axis in order, so
// rank q of the forward scan holds element N-1-q (N the axis extent, read
// by the thread that holds it) and element p's result is rank N-1-p's.
std::vector<Val> Lifter::scanLowered(const Operation &O,
                                     const std::vector<Val> &Srcs,
                                     unsigned Axis, bool Backward) {
  const Val &First = Srcs.front();
  if (!First.Ty || !First.Ty->Encoding)
    unsupported(O, "tt.scan of a tensor without a layout");
  layout::DistributedLayout D(*toEncoding(*First.Ty->Encoding), First.Shape);
  const layout::LinearLayout &L = D.linear();
  int AxisOut = L.outIndex(layout::outDimName(Axis));
  std::string Mixed;
  AxisBits Regs = axisBitsOf(L, layout::kRegister, AxisOut, Mixed),
           Lanes = axisBitsOf(L, layout::kLane, AxisOut, Mixed),
           Warps = axisBitsOf(L, layout::kWarp, AxisOut, Mixed);
  if (!Mixed.empty())
    unsupported(O, "tt.scan over a layout whose " + Mixed +
                       " moves the axis and another dimension");
  for (const auto &B : L.bases(layout::kBlock))
    if (std::any_of(B.begin(), B.end(), [](int32_t V) { return V != 0; }))
      unsupported(O, "tt.scan over several CTAs");
  if (!Warps.Bits.empty() && Warps.Broadcast)
    unsupported(O, "tt.scan across warps that hold copies of the same "
                   "elements (which copy publishes a warp's total is not "
                   "modelled)");
  // The low register bits that step 1, 2, 4, ... hold a thread's
  // contiguous elements; the register bits above them repeat the block
  // that registers, lanes and warps cover together.
  unsigned GroupBits = 0;
  while (GroupBits < Regs.Bits.size() &&
         Regs.Steps[GroupBits] == int32_t(1u << GroupBits))
    ++GroupBits;
  uint32_t Group = 1u << GroupBits, NumLanes = Lanes.count(),
           NumWarps = Warps.count(), Blocks = Regs.count() / Group;
  uint32_t Span = Group * NumLanes * NumWarps;
  bool InOrder = int64_t(Span) * Blocks == First.Shape[Axis];
  for (unsigned J = GroupBits; J < Regs.Bits.size(); ++J)
    InOrder &= Regs.Steps[J] == int32_t(Span << (J - GroupBits));
  for (unsigned J = 0; J < Lanes.Bits.size(); ++J)
    InOrder &= Lanes.Steps[J] == int32_t(Group << J);
  for (unsigned J = 0; J < Warps.Bits.size(); ++J)
    InOrder &= Warps.Steps[J] == int32_t((Group * NumLanes) << J);
  if (!InOrder)
    unsupported(O, "tt.scan over a layout whose registers, then lanes, then "
                   "warps do not hold the axis in order (Triton's scan order "
                   "for it is not modelled)");
  // With one lane along the axis, the lowering carries a later block into
  // a thread's other registers with the block's own total included.
  if (Blocks > 1 && NumLanes == 1 && Group > 1)
    unsupported(O, "tt.scan whose threads hold several contiguous elements "
                   "of several blocks with one lane along the axis (the "
                   "lowering's carry for it is not modelled)");
  noteRule("scan order", O);

  Type I32 = Type::i(32);
  // Element K of every operand, as the thread of lane and warp sub-indices
  // LaneA and WarpA computed it.
  auto Leaf = [&](int64_t K, uint32_t LaneA, uint32_t WarpA) {
    const Expr *Lane = C.orOf(C.andOf(LaneSym, C.intConst(I32, ~Lanes.Mask)),
                              C.intConst(I32, Lanes.spread(LaneA)));
    const Expr *Warp = C.orOf(C.andOf(WarpSym, C.intConst(I32, ~Warps.Mask)),
                              C.intConst(I32, Warps.spread(WarpA)));
    std::vector<Val> Out;
    for (const Val &S : Srcs) {
      Val E = substVal(S, {{Axis, C.intConst(I32, K)}});
      E.Shape.clear();
      E.Ty = S.Ty->Elem ? S.Ty->Elem : S.Ty;
      E.E = withThread(E.E, Lane, Warp);
      E.Defined = withThread(E.Defined, Lane, Warp);
      Out.push_back(E);
    }
    return Out;
  };
  using Vals = std::vector<Val>;
  int64_t Extent = First.Shape[Axis];
  auto Index = [&](uint32_t B, uint32_t W, uint32_t Lane, uint32_t R) {
    return ((int64_t(B) * NumWarps + W) * NumLanes + Lane) * Group + R;
  };
  // The element at rank K of the forward scan, read by its own thread.
  auto Ranked = [&](int64_t K) {
    int64_t E = Backward ? Extent - 1 - K : K;
    return Leaf(E, uint32_t((E / Group) % NumLanes),
                uint32_t((E / (int64_t(Group) * NumLanes)) % NumWarps));
  };
  // Per block and warp: each lane's register prefixes and its inclusive
  // total within the warp.
  std::vector<std::vector<std::vector<std::vector<Vals>>>> Prefix(Blocks);
  std::vector<std::vector<std::vector<Vals>>> Total(Blocks);
  for (uint32_t B = 0; B < Blocks; ++B) {
    Prefix[B].assign(NumWarps, std::vector<std::vector<Vals>>(
                                   NumLanes, std::vector<Vals>(Group)));
    Total[B].assign(NumWarps, std::vector<Vals>(NumLanes));
    for (uint32_t W = 0; W < NumWarps; ++W) {
      auto &P = Prefix[B][W];
      for (uint32_t Lane = 0; Lane < NumLanes; ++Lane)
        for (uint32_t R = 0; R < Group; ++R) {
          Vals X = Ranked(Index(B, W, Lane, R));
          P[Lane][R] = R == 0 ? X : combine(O, P[Lane][R - 1], X);
        }
      std::vector<Vals> &T = Total[B][W];
      for (uint32_t Lane = 0; Lane < NumLanes; ++Lane)
        T[Lane] = P[Lane][Group - 1];
      for (uint32_t Delta = 1; Delta < NumLanes; Delta *= 2) {
        std::vector<Vals> Next = T;
        for (uint32_t Lane = Delta; Lane < NumLanes; ++Lane)
          Next[Lane] = combine(O, T[Lane - Delta], T[Lane]);
        T = std::move(Next);
      }
    }
  }
  // Warp W's carry in block B (empty: none), the running total after each
  // block, then each lane's inclusive total from the start of the axis.
  std::vector<std::vector<Vals>> Carry(Blocks, std::vector<Vals>(NumWarps));
  Vals Running;
  for (uint32_t B = 0; B < Blocks; ++B) {
    for (uint32_t W = 0; W < NumWarps; ++W) {
      Carry[B][W] = Running;
      const Vals &WarpTotal = Total[B][W][NumLanes - 1];
      Running = Running.empty() ? WarpTotal : combine(O, Running, WarpTotal);
    }
    for (uint32_t W = 0; W < NumWarps; ++W)
      if (!Carry[B][W].empty())
        for (uint32_t Lane = 0; Lane < NumLanes; ++Lane)
          Total[B][W][Lane] = combine(O, Carry[B][W], Total[B][W][Lane]);
  }
  auto At = [&](int64_t K) -> Vals {
    uint32_t R = uint32_t(K % Group), Lane = uint32_t((K / Group) % NumLanes),
             W = uint32_t((K / (int64_t(Group) * NumLanes)) % NumWarps),
             B = uint32_t(K / Span);
    if (R == Group - 1)
      return Total[B][W][Lane];
    const Vals &In = Lane == 0 ? Carry[B][W] : Total[B][W][Lane - 1];
    return In.empty() ? Prefix[B][W][Lane][R]
                      : combine(O, In, Prefix[B][W][Lane][R]);
  };
  std::vector<Vals> Values;
  for (int64_t K = 0; K < Extent; ++K)
    Values.push_back(At(Backward ? Extent - 1 - K : K));
  std::vector<Val> Results;
  for (size_t I = 0; I < Srcs.size(); ++I) {
    const Expr *E = Values.back()[I].E, *Def = Values.back()[I].Defined;
    for (int64_t K = Extent - 1; K-- > 0;) {
      const Expr *Here = C.eq(idx(Axis), C.intConst(I32, K));
      E = C.select(Here, Values[size_t(K)][I].E, E);
      Def = C.select(Here, Values[size_t(K)][I].Defined, Def);
    }
    Results.push_back(tensorOf(resultType(O, I), E, Def));
  }
  return Results;
}

} // namespace stagecheck::ttir

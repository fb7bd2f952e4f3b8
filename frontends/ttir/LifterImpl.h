//===- LifterImpl.h - The lifter's state, shared by its parts ---*- C++ -*-===//
//
// Private to frontends/ttir. Lifter.cpp holds the core (values, regions,
// control flow, dispatch); LiftArith.cpp the element-wise ops,
// LiftTensor.cpp the shape ops, reductions and dots, LiftMemory.cpp loads,
// stores, atomics and shared memory.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_TTIR_LIFTERIMPL_H
#define STAGECHECK_FRONTENDS_TTIR_LIFTERIMPL_H

#include "frontends/ttir/Lifter.h"
#include "ir/Errors.h"
#include "layout/Encoding.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace stagecheck::ttir {

/// A lifted SSA value.
using ir::Op;

struct Val {
  enum class Kind { Tensor, MemDesc, Token };
  Kind K = Kind::Tensor;
  TypePtr Ty;                  // as declared
  std::vector<int64_t> Shape;  // tensor or view shape; empty for a scalar
  /// Tensor: the element, over the index symbols e0..; pointer elements are
  /// the i64 element index into Buffer.
  const ir::Expr *E = nullptr;
  const ir::Expr *Defined = nullptr; // i1: the element is not poison
  bool IsPtr = false;
  std::string Buffer;
  ir::Type BufferElem = ir::Type::f32(), ViewElem = ir::Type::f32();
  /// MemDesc: the allocation, and per allocation dimension the index it
  /// reads as an expression over the view's index symbols.
  int Alloc = -1;
  std::vector<const ir::Expr *> IndexMap;

  unsigned rank() const { return unsigned(Shape.size()); }
};

/// A TTGIR encoding as the layout library describes it; throws
/// ir::UnsupportedError for one it does not model.
layout::EncodingPtr toEncoding(const Layout &L);

/// Thrown inside LoopMode::Summarize when a loop cannot be summarised; the
/// lift as a whole then reports NotSummarized.
struct SummaryAbort {
  std::string Why;
};

class Lifter {
public:
  Lifter(ir::Context &C, const Module &M, const LiftOptions &O);
  LiftResult run();

  ir::Context &C;
  const Module &M;
  const LiftOptions &Opt;
  LiftResult R;

  //===--- Values -------------------------------------------------------===//
  std::vector<std::unordered_map<std::string, std::vector<Val>>> Frames;
  const Val &get(const Operation &O, size_t I);
  const Val &get(const OperandRef &Ref);
  void bind(const std::string &Name, std::vector<Val> Vs);
  void define(const Operation &O, std::vector<Val> Vs);
  void define(const Operation &O, Val V) { define(O, std::vector<Val>{std::move(V)}); }

  //===--- Errors and origins -------------------------------------------===//
  ir::SourceLocation stagePos(FilePos P) const;
  ir::SourceLocation stagePos(const Operation &O) const { return stagePos(O.Pos); }
  ir::Origin origin(const Operation &O) const;
  [[noreturn]] void unsupported(const Operation &O, const std::string &What) const;
  [[noreturn]] void malformed(const Operation &O, const std::string &What) const;
  void expectOperands(const Operation &O, size_t Min, size_t Max) const;

  //===--- Types --------------------------------------------------------===//
  ir::Type scalarType(const MType &T, const Operation &O) const;
  TypePtr resultType(const Operation &O, size_t I = 0) const;
  Val tensorOf(TypePtr Ty, const ir::Expr *E,
               const ir::Expr *Defined = nullptr) const;

  //===--- Index algebra ------------------------------------------------===//
  const ir::Expr *idx(unsigned D) { return indexSymbol(C, D); }
  std::unordered_map<const ir::Expr *, uint32_t> DepCache;
  uint32_t deps(const ir::Expr *E);
  /// Replaces index symbols by expressions, all at once.
  const ir::Expr *subst(const ir::Expr *E,
                        const std::vector<std::pair<unsigned, const ir::Expr *>> &Map);
  Val substVal(const Val &V,
               const std::vector<std::pair<unsigned, const ir::Expr *>> &Map);
  /// The row-major element number of (e0, e1, ...) in Shape, as i64.
  const ir::Expr *linearIndex(const std::vector<int64_t> &Shape);
  /// V read over Shape: where V's own shape is smaller (ill-typed input, e.g.
  /// a convert_layout that changed the shape) the element is poison.
  Val adapt(const Val &V, const std::vector<int64_t> &Shape, const Operation &O);
  /// i1: 0 <= e_d < Shape[d] for every d.
  const ir::Expr *inShape(const std::vector<int64_t> &Shape);
  std::vector<ir::BoundVariable> boundOf(const std::vector<int64_t> &Shape);

  //===--- Canonical forms ----------------------------------------------===//
  // Two stages often compute one integer in different shapes (a pipelined
  // loop computes iv + step where the other computes lb + (j+1)*step); sums
  // of constant multiples are kept in one canonical form so that such values
  // are the same node. Exact in wrapping arithmetic.
  const ir::Expr *linear(Op Kind, const ir::Expr *A, const ir::Expr *B);
  /// select with the nested-select rules select(c, select(c, x, y), z) =
  /// select(c, x, z) and select(c, x, select(c, y, z)) = select(c, x, z).
  const ir::Expr *selectOf(const ir::Expr *Cond, const ir::Expr *T,
                           const ir::Expr *F);

  //===--- Control ------------------------------------------------------===//
  const ir::Expr *Guard = nullptr; // the path condition
  /// Bound variables of the summarised loops around the current op.
  std::vector<ir::BoundVariable> LoopBound;
  unsigned SummaryCount = 0;
  unsigned AtomicCount = 0;
  struct Terminated {
    std::string Op;
    std::vector<Val> Values;
  };
  Terminated liftBlock(const Block &B, const std::vector<Val> &Args);
  void liftOp(const Operation &O);
  const ir::Expr *decide(const ir::Expr *Cond);
  void liftFor(const Operation &O);
  void liftForUnrolled(const Operation &O, const Val &Lower, const Val &Step,
                       uint64_t Trips, std::vector<Val> Carried);
  void liftForSummarized(const Operation &O, const Val &Lower, const Val &Upper,
                         const Val &Step, std::vector<Val> Carried);
  void liftIf(const Operation &O);
  void liftWhile(const Operation &O);
  void liftCall(const Operation &O);
  Val select(const ir::Expr *Cond, const Val &T, const Val &F, const Operation &O);
  /// Adds an undefined-behaviour condition over the elements of Shape.
  /// Undefined behaviour where an access through P under When leaves the
  /// parameter's reach (LiftOptions::Reach).
  void checkReach(const Val &P, const ir::Expr *When,
                  const std::vector<int64_t> &Shape, const std::string &What,
                  const Operation &O);
  void addUndefined(const ir::Expr *Cond, const std::vector<int64_t> &Shape,
                    const std::string &Reason, const Operation &O);

  //===--- Ops by family (LiftArith.cpp, LiftTensor.cpp, LiftMemory.cpp) --===//
  bool liftArith(const Operation &O);
  bool liftTensorOp(const Operation &O);
  Val declaredSource(const Operation &O);
  bool liftMemoryOp(const Operation &O);

  // Element-wise helpers.
  std::vector<Val> elementwiseOperands(const Operation &O);
  Val elementwise(const Operation &O, const std::vector<Val> &Operands,
                  const ir::Expr *E, TypePtr Ty = nullptr);
  const ir::Expr *constantOf(const Attr &A, const MType &T, const Operation &O);

  // Combine regions (reduce, scan): applies the region to scalar operands.
  std::vector<Val> combine(const Operation &O, const std::vector<Val> &Lhs,
                           const std::vector<Val> &Rhs);
  static bool orderFreeCombine(const Operation &O);

  // Memory.
  std::set<std::string> WrittenBuffers;
  /// A buffer element as a view of another type reads it (a bool's byte is
  /// 0 or 1), and a view's value as the element it writes.
  const ir::Expr *viewOfStored(const ir::Expr *Stored, ir::Type View);
  const ir::Expr *storedOfView(const ir::Expr *Value, ir::Type Stored);
  /// i1: a byte written to a bool tensor is 0 or 1 (any other is not a bool
  /// torch can read, so writing it is a write of a value not defined).
  const ir::Expr *isBoolByte(const ir::Expr *Byte);
  const ir::Expr *loadElement(const Val &Ptr, const ir::Expr *Mask,
                              const Val *Other, const Operation &O);
  struct SharedAlloc {
    std::vector<int64_t> Shape;
    ir::Type Elem = ir::Type::f32();
    const ir::Expr *Content = nullptr; // over e0.. of Shape
    const ir::Expr *Defined = nullptr;
  };
  std::vector<SharedAlloc> Allocs;
  struct PendingCopy {
    int Alloc;
    std::vector<const ir::Expr *> Fixed; // per allocation dim, or null
    const ir::Expr *Guard;
    ir::Origin From;
  };
  std::vector<PendingCopy> Uncommitted;
  std::vector<std::vector<PendingCopy>> Groups; // committed, oldest first
  Val readView(const Val &View, const Operation &O);
  void writeView(const Val &View, const Val &Value, const ir::Expr *Mask,
                 const Operation &O);
  void checkPendingCopies(const Val &View, const Operation &O);

  // Lowering (LiftLowering.cpp, LiftOptions::Lowering).
  const ir::Expr *LaneSym = nullptr, *WarpSym = nullptr;
  std::unordered_map<const ir::Expr *, bool> ThreadDeps;
  struct Holder {
    const ir::Expr *Lane, *Warp; // i32 over the index symbols
  };
  std::map<std::string, Holder> Representatives;
  std::map<std::string, std::set<std::pair<unsigned, unsigned>>> RuleSites;
  void initThreadSymbols();
  bool mentionsThread(const ir::Expr *E);
  /// The thread Triton takes an element of a tensor of type Ty from.
  const Holder &representative(const MType &Ty, const Operation &O);
  const ir::Expr *withThread(const ir::Expr *E, const ir::Expr *Lane,
                             const ir::Expr *Warp);
  Val pinned(const Val &V, const Operation &O);
  const ir::Expr *pinnedForOp(const ir::Expr *E, const Operation &O);
  static bool crossesThreads(const std::string &Name);
  void pinOperands(const Operation &O,
                   std::vector<std::pair<std::string, std::vector<Val>>> &Saved);
  void noteRule(const std::string &Rule, const Operation &O);
  bool liftLoweredArith(const Operation &O);
  /// tt.dot with an MMAv2 (#ttg.nvidia_mma, versionMajor 2) result as
  /// Triton's mma.sync lowering computes it; nullopt for other dots.
  std::optional<Val> dotLowered(const Operation &O, const Val &A, const Val &B,
                                const Val &Acc);
  std::vector<Val>
  reduceLowered(const Operation &O, const std::vector<Val> &Srcs, unsigned Axis,
                const std::function<std::vector<Val>(int64_t)> &Leaf);
  /// tt.scan as Triton's lowering computes it (Backward: from the end of
  /// the axis), for a layout whose registers, lanes and warps hold the axis
  /// in order; unsupported otherwise.
  std::vector<Val> scanLowered(const Operation &O, const std::vector<Val> &Srcs,
                               unsigned Axis, bool Backward);

  // Provenance.
  unsigned NodesBefore = 0;
  std::vector<const ir::Expr *> CurrentInputs; // of the op being lifted
  std::vector<const ir::Expr *> inputsOf(const Operation &O);
  void recordProvenance(const Operation &O, const std::vector<Val> &Vs);
  void recordProvenance(const Operation &O, const ir::Expr *E);
};

} // namespace stagecheck::ttir

#endif

//===- FunctionLifter.h - One LLVM function lifted per thread ---*- C++ -*-===//
//
// The lifter behind liftLlvmText (LlvmLifter.h), private to this folder.
//
// Every LLVM value is a list of lanes: a scalar is one lane, a vector <N x T>
// N lanes, a struct its fields (flattened). A lane is an IR expression and
// its definedness: the i1 condition under which it is not poison, as Alive2
// pairs a value with its non-poison condition. Pointers are integer
// addresses of their address space's width.
//
// Control flow is merged by path condition: each block is lifted once per
// visit under the condition that it runs (ThreadModel's path condition, so
// every effect is guarded by it), a phi is a select over its incoming
// edges, and a loop is unrolled (ControlFlow.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_LLVM_FUNCTIONLIFTER_H
#define STAGECHECK_FRONTENDS_LLVM_FUNCTIONLIFTER_H

#include "frontends/llvm/LlvmLifter.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

namespace stagecheck::llvmir {

struct Lane {
  const ir::Expr *V;
  const ir::Expr *Def; // i1: V is not poison
};
using Lanes = std::vector<Lane>;

FastMathFlags fastMathOf(const llvm::Instruction &I);
/// nnan / ninf: the condition under which I is poison because one of
/// Values (its float operands and result) is NaN / infinite.
const ir::Expr *fastMathPoison(ir::Context &C, const llvm::Instruction &I,
                               std::initializer_list<const ir::Expr *> Values);

/// What a function's lift needs to know of its module and file.
struct ModuleFacts {
  const llvm::DataLayout *Layout = nullptr;
  std::string FileName;
  /// The .llir line of each instruction (1-based; see LlvmLifter.cpp).
  llvm::DenseMap<const llvm::Instruction *, unsigned> Lines;
  int ReflectFtz = 0;     // module flag nvvm-reflect-ftz
  unsigned SmVersion = 0; // 90 for sm_90; 0 when unknown
};

class FunctionLifter {
public:
  FunctionLifter(ir::Context &C, ptx::ThreadModel &M, const llvm::Function &F,
                 const ModuleFacts &Facts, const LlvmLiftOptions &O,
                 LlvmLift &Out);
  ~FunctionLifter();
  void run();
  /// After run(), for a device function (not a kernel) that returns a
  /// value: each lane of it becomes ThreadModel::returnValue, and
  /// Out.ReturnLanes / Out.ParamExtension describe the signature.
  void finishDeviceFunction();
  /// The byte offset of each lane of a value of type T in memory (the
  /// DataLayout's), in the order of laneTypes(T).
  std::vector<unsigned> laneOffsets(llvm::Type *T);

  // --- Types and lanes (Values.cpp) ----------------------------------------
  ir::Type scalarType(llvm::Type *T);
  /// The lanes' types of a value of type T.
  std::vector<ir::Type> laneTypes(llvm::Type *T);
  Lane defined(const ir::Expr *V) { return {V, C.trueExpr()}; }
  Lane poison(ir::Type T) { return {C.constant(T, 0), C.falseExpr()}; }
  /// The lanes of an operand (constants, arguments, globals, or what an
  /// instruction defined).
  const Lanes &operand(const llvm::Value *V);
  /// The single lane of a scalar operand.
  Lane scalar(const llvm::Value *V);
  /// select(Cond, A, B) lane by lane, poison included.
  Lane selectLane(const ir::Expr *Cond, const Lane &A, const Lane &B);
  /// Lanes re-cut into lanes of other types with the same bits, the lowest
  /// lane in the lowest bits (bitcast, and what memory and inline asm see).
  Lanes reinterpret(const Lanes &From, const std::vector<ir::Type> &To);
  const ir::Expr *allDefined(const Lanes &L);

  // --- Errors and sites (LlvmLifter.cpp) -----------------------------------
  [[noreturn]] void unsupported(const std::string &What) const;
  ir::SourceLocation llirLocation(const llvm::Instruction &I) const;
  ir::SourceLocation sourceLocation(const llvm::Instruction &I) const;
  ir::Origin origin(std::string Op) const;
  /// "fadd", "call @llvm.nvvm.shfl.sync.bfly.i32", "asm ld.global.b32".
  std::string spell(const llvm::Instruction &I) const;
  /// Runs Lift as the lift of I: errors, provenance of the nodes it makes
  /// and the .llir line of the effects it adds are I's.
  void withSites(const llvm::Instruction &I, const std::function<void()> &Lift);

private:
  // --- Instructions (Instructions.cpp) -------------------------------------
  void liftInstruction(const llvm::Instruction &I);
  Lanes liftValue(const llvm::Instruction &I);
  Lanes liftIntBinary(const llvm::BinaryOperator &I);
  Lane intBinary(const llvm::BinaryOperator &I, unsigned Opcode, Lane A,
                 Lane B);
  Lanes liftFloatBinary(const llvm::Instruction &I);
  Lanes liftCompare(const llvm::CmpInst &I);
  Lanes liftCast(const llvm::Operator &U, llvm::Type *To);
  Lane castLane(const llvm::Operator &U, unsigned Opcode, Lane A, ir::Type To);
  Lanes liftSelect(const llvm::SelectInst &I);
  Lanes liftFreeze(const llvm::FreezeInst &I);
  Lanes liftExtractElement(const llvm::ExtractElementInst &I);
  Lanes liftInsertElement(const llvm::InsertElementInst &I);
  Lanes liftShuffle(const llvm::ShuffleVectorInst &I);
  Lanes liftExtractValue(const llvm::ExtractValueInst &I);
  Lanes liftInsertValue(const llvm::InsertValueInst &I);
  Lanes liftConstantExpr(const llvm::ConstantExpr &E);
  void noteContraction(const llvm::Instruction &I, const ir::Expr *E);
  /// The flat lane offset of an aggregate index path.
  unsigned laneOffset(llvm::Type *Aggregate, llvm::ArrayRef<unsigned> Path,
                      llvm::Type *&Inner);

  // --- Values (Values.cpp) -------------------------------------------------
  Lanes constantLanes(const llvm::Constant *K);
  Lane constantScalar(const llvm::Constant *K, ir::Type T);
  Lanes argumentLanes(const llvm::Argument &A);
  Lanes aggregateArgument(const llvm::Argument &A,
                          const ir::SourceLocation &Where);
  Lanes globalLanes(const llvm::GlobalVariable &G);
  /// Records I's lanes, and the latest value of a loop's live-out.
  void define(const llvm::Instruction &I, Lanes L);

  // --- Memory (Memory.cpp) -------------------------------------------------
  Lanes liftGep(const llvm::GEPOperator &G);
  Lanes liftLoad(const llvm::LoadInst &I);
  Lanes liftAlloca(const llvm::AllocaInst &I);
  void liftStore(const llvm::StoreInst &I);
  Lanes liftAtomicRMW(const llvm::AtomicRMWInst &I);
  Lanes liftCmpXchg(const llvm::AtomicCmpXchgInst &I);
  ir::AddressSpace space(unsigned LlvmSpace);
  /// The address lane of a pointer operand; poison addresses are
  /// undefined behaviour.
  const ir::Expr *address(const llvm::Value *Pointer);

  // --- Calls (Calls.cpp, Intrinsics.cpp) ------------------------------------
  Lanes liftCall(const llvm::CallBase &Call);
  Lanes liftInlineAsm(const llvm::CallBase &Call);
  Lanes liftReflect(const llvm::CallBase &Call);
  Lanes liftLlvmIntrinsic(const llvm::CallBase &Call, llvm::StringRef Name);
  Lanes liftNvvmIntrinsic(const llvm::CallBase &Call, llvm::StringRef Name);
  Lanes liftNvvmArithmetic(const llvm::CallBase &Call, llvm::StringRef Name,
                           bool &Handled);
  Lanes liftNvvmCommunication(const llvm::CallBase &Call, llvm::StringRef Name,
                              bool &Handled);
  /// Applies F lane by lane to the call's arguments.
  Lanes mapLanes(
      const llvm::CallBase &Call,
      const std::function<const ir::Expr *(std::span<const ir::Expr *const>)>
          &F);

  // --- Control flow (ControlFlow.cpp) --------------------------------------
  struct EdgeIn {
    const llvm::BasicBlock *From;
    const ir::Expr *Cond;
    std::vector<Lanes> Phis; // the target's phis along this edge
  };
  struct ActiveLoop {
    const llvm::Loop *L;
    std::vector<EdgeIn> BackEdges;
    llvm::SmallPtrSet<const llvm::Instruction *, 16> LiveOut;
    /// Each live-out's value from its latest execution.
    std::map<const llvm::Instruction *, Lanes> Latest;
  };
  struct Region; // postdominance within one iteration of a loop

  void checkReducible();
  void liftRegion(const llvm::Loop *L);
  void liftLoop(const llvm::Loop &L);
  void liftBlock(const llvm::BasicBlock &B);
  void liftTerminator(const llvm::Instruction &I);
  void leave(const llvm::BasicBlock &From, const llvm::BasicBlock &To,
             const ir::Expr *Cond);
  /// A `ret` of a value on the current path: merged into Out.ReturnValue.
  void noteReturn(const Lanes &L);
  const ir::Expr *pathOf(const llvm::BasicBlock &B,
                         const std::vector<EdgeIn> &In);
  const ir::Expr *anyOf(const std::vector<EdgeIn> &In);
  Lanes mergePhi(const std::vector<EdgeIn> &In, unsigned K, llvm::Type *T,
                 const ir::Expr *BlockPath);
  const llvm::Loop *childOf(const llvm::Loop *Parent,
                            const llvm::BasicBlock *B) const;
  Region &region(const llvm::Loop *L);
  std::string loopName(const llvm::Loop &L) const;

  ir::Context &C;
  ptx::ThreadModel &M;
  const llvm::Function &F;
  const ModuleFacts &Facts;
  const LlvmLiftOptions &O;
  LlvmLift &Out;

  /// References to lanes stay valid while others are added (operand()
  /// returns them), hence not a DenseMap.
  std::unordered_map<const llvm::Value *, Lanes> Values;
  /// The instruction being lifted (sites, errors).
  const llvm::Instruction *Current = nullptr;
  const ir::Expr *Path = nullptr; // the current block's path condition

  llvm::DominatorTree Dom;
  llvm::LoopInfo Loops;
  std::vector<const llvm::BasicBlock *> Order; // reverse post-order
  llvm::DenseMap<const llvm::BasicBlock *, unsigned> OrderIndex;
  llvm::DenseMap<const llvm::BasicBlock *, std::vector<EdgeIn>> Incoming;
  llvm::DenseMap<const llvm::BasicBlock *, const ir::Expr *> BlockPath;
  /// A loop's header condition in its first iteration, the last time round.
  llvm::DenseMap<const llvm::Loop *, const ir::Expr *> LoopEntry;
  std::vector<ActiveLoop> Active;
  std::map<const llvm::Loop *, std::unique_ptr<Region>> Regions;
  /// Per .llir line (or function, without lines), the lanes of freezes of
  /// poison lifted so far.
  std::map<std::string, unsigned> FreezesMet;
};

} // namespace stagecheck::llvmir

#endif

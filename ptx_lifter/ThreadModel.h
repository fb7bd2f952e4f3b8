//===- ThreadModel.h - One GPU thread, as LLVM IR and PTX lift it -*- C++ -*-===//
//
// The per-thread machine both the LLVM IR frontend and the PTX lifter lift
// into, so that the two stages of one kernel name the same things the same
// way (docs/lifting-conventions.md):
//
//  - Special registers are symbols: tid.x/y/z (ThreadId), pid.x/y/z (ctaid,
//    ProgramId), nprog.x/y/z (nctaid, NumPrograms). ntid is the constant of
//    the kernel's required block size; the lane is tid.x & 31.
//  - Parameter K is the symbol argK: its value for a scalar, the address of
//    its buffer (i64) for a pointer. Addresses are i64 byte addresses.
//  - Global memory. An access is split into whole elements of the buffer its
//    address points into (argK + byte offset): element index = offset /
//    element size; a misaligned offset is undefined behaviour. Loads read
//    the buffer's initial content (read argK[i]); stores become writes of
//    this thread, guarded by the access's predicate. Values move in bits
//    (iN): an access of N bytes is the concatenation of its elements, the
//    lowest address in the lowest bits.
//  - Shared memory is byte-addressed (i8) and divided into phases by
//    barriers. A load in phase P reads the content at the phase's start
//    (buffer "smem@P"), except for bytes this thread itself wrote earlier in
//    the phase (forwarded). Stores in phase P are writes to buffer "smem.P".
//    Two sides whose threads write the same bytes in every phase and pass
//    the same barriers see the same content at every phase's start; the
//    LLVM IR <-> PTX check relies on exactly that.
//  - Communication with other threads (shuffles, barriers, matrix loads from
//    shared memory, atomics' old values) are Exchanges: events with this
//    thread's operands and fresh result symbols named by their position
//    ("xchg.N.R"), so two lifts that exchange alike receive the same
//    symbols. A checker either matches two sides' exchanges one for one or
//    resolves them over the threads of a CTA.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_PTX_LIFTER_THREADMODEL_H
#define STAGECHECK_PTX_LIFTER_THREADMODEL_H

#include "ir/Effects.h"
#include "ir/Kernel.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stagecheck::ptx {

/// One communication event of a thread with the others of its CTA.
struct Exchange {
  /// What happens, in a stable spelling both frontends use:
  /// "barrier", "shfl.bfly", "shfl.idx", "shfl.up", "shfl.down",
  /// "vote.ballot", "ldmatrix.x4.trans", "atom.global.add.f32", ...
  std::string Kind;
  const ir::Expr *Guard; // i1: this thread takes part
  /// What this thread contributes and the event's parameters (a shuffle's
  /// value, lane, clamp and member mask; a shared address...).
  std::vector<const ir::Expr *> Operands;
  /// What this thread receives: fresh symbols "xchg.N.R".
  std::vector<const ir::Expr *> Results;
  ir::Origin From;
};

/// A read of global memory: Count elements of Buffer from Index on, where
/// Guard holds. Reads are values (read Buffer[i]) and leave no effect; a
/// checker that knows how far each pointer reaches bounds them with these.
struct GlobalRead {
  const ir::Expr *Guard;
  std::string Buffer;
  const ir::Expr *Index; // i64 element index of the first element
  unsigned Count;
  ir::Origin From;
};

/// The lift of one kernel, seen from one thread with symbolic ids.
struct ThreadEffects {
  /// Global writes and atomics of this thread (single writes, no bound
  /// variables), shared-memory writes per phase ("smem.P"), undefined
  /// behaviour. Buffers lists every buffer written or read.
  ir::Effects Effects;
  std::vector<Exchange> Exchanges;
  /// Every load from global memory (cp.async copies' included), in order.
  std::vector<GlobalRead> GlobalReads;
  ir::KernelInterface Interface;
  /// Threads per CTA (the kernel's required block size, x y z).
  unsigned BlockDim[3] = {1, 1, 1};
  /// Ranges of the ids (0 <= tid.x < ntid.x, 0 <= pid.x < nprog.x,
  /// nprog.x >= 1, ...) and the bounds the lift relied on (a loop unrolled
  /// to a bound assumes it exits by then). Inputs outside them are not
  /// described by Effects.
  std::vector<const ir::Expr *> Assumptions;
  /// One line per bound the lift relied on ("loop at f.py:12: at most 4
  /// iterations"); empty when the lift is exact.
  std::vector<std::string> Bounds;
  /// Number of barriers passed: the phases of shared memory are 0..Phases.
  unsigned Phases = 0;
  /// Per write of Effects.Writes, how many exchanges this thread had
  /// recorded when it was made: where the write falls among the thread's
  /// communication events (a cp.async copy completes at a later wait).
  std::vector<unsigned> WriteExchangeCounts;
};

/// Every expression T's effects hold (writes, atomics, undefined
/// behaviour, exchanges), for walking what a side computes.
std::vector<const ir::Expr *> rootsOf(const ThreadEffects &T);

/// Builds a ThreadEffects while a frontend walks a kernel. Frontends keep
/// their own registers / SSA values; this class owns memory, special
/// registers, parameters and communication.
class ThreadModel {
public:
  /// BlockDim: the kernel's required threads per CTA (nvvm.reqntid /
  /// .reqntid); a frontend that finds none passes {0,0,0} and the lift is
  /// unsupported when an id is used.
  ThreadModel(ir::Context &C, ir::KernelInterface Interface,
              std::array<unsigned, 3> BlockDim);

  ir::Context &context() { return C; }
  const ir::KernelInterface &interface() const { return Result.Interface; }

  // --- Lifting one thread of a CTA -----------------------------------------
  /// Fixes the thread id to a constant (tid.x/y/z), so that lanes,
  /// shared-memory offsets and register-to-element maps fold. Each id must
  /// be below the block size.
  void setConcreteThreadId(std::array<unsigned, 3> Tid);
  /// Prepended to the names of exchange results ("t5." gives
  /// "t5.xchg.3.0"), so that the lifts of several threads of one CTA can
  /// share one Context without sharing what they receive.
  void setExchangePrefix(std::string Prefix) { ExchangePrefix = std::move(Prefix); }

  // --- Special registers (i32) ---------------------------------------------
  const ir::Expr *threadId(unsigned Dim);    // tid.x, tid.y, tid.z
  const ir::Expr *programId(unsigned Dim);   // pid.x ... (ctaid)
  const ir::Expr *numPrograms(unsigned Dim); // nprog.x ... (nctaid)
  const ir::Expr *blockDim(unsigned Dim);    // ntid: a constant
  const ir::Expr *laneId();                  // tid.x & 31 (1-D blocks)
  const ir::Expr *warpSize() { return constant32(32); }

  // --- Parameters ----------------------------------------------------------
  /// Parameter K as a value of Bits bits: the address (i64) of a pointer
  /// parameter, the scalar's bits otherwise. Throws ir::InputError when K
  /// is not a parameter of the interface (with Where).
  const ir::Expr *parameter(unsigned K, unsigned Bits,
                            const ir::SourceLocation &Where);
  /// A device function (.func) rather than a kernel: its caller passes a
  /// parameter narrower than its .param slot (an i16 in a .b32) with the
  /// bits above it unspecified, unless the LLVM IR marks it zeroext ('z')
  /// or signext ('s'). Extension[K] is parameter K's mark (0 for none).
  /// parameter() then reads those bits as the free symbol "argK.hi" (or
  /// the extension) instead of zeros.
  void setDeviceFunction(std::vector<char> Extension) {
    DeviceFunction = true;
    ParamExtension = std::move(Extension);
  }
  /// A device function's result: lane Lane of what it returns, a write of
  /// Value to the pseudo buffer returnBuffer(Lane) (element 0, of Value's
  /// type), so that the refinement queries compare what two stages return
  /// as they compare stores. Defined (null for true) says it is not poison.
  void returnValue(unsigned Lane, const ir::Expr *Value,
                   const ir::Expr *Defined, const ir::Origin &From);
  /// "func_retval0" for lane 0, "func_retval0.K" for lane K > 0.
  static std::string returnBuffer(unsigned Lane);
  /// The address of the dynamic shared memory (Triton's global_smem), as a
  /// value of Bits bits (32 or 64).
  const ir::Expr *sharedBase(unsigned Bits);

  // --- Memory (values in bits: iN) -----------------------------------------
  /// Loads Bits bits at Address when Guard holds. The result is the loaded
  /// bits where Guard holds and unspecified elsewhere (callers select their
  /// own fallback). Throws ir::UnsupportedError for an address that is not
  /// a parameter's buffer, shared memory or a private object plus an
  /// offset, or an access narrower than the buffer's element. A private
  /// object read outside it or misaligned is undefined behaviour; its
  /// bytes may hold nothing defined (never stored): Defined, when given,
  /// receives where they do (an LLVM IR load is then poison); without it,
  /// reading them where Guard holds is undefined behaviour too (PTX has
  /// no poison).
  const ir::Expr *load(ir::AddressSpace Space, const ir::Expr *Address,
                       unsigned Bits, const ir::Expr *Guard,
                       const ir::Origin &From,
                       const ir::Expr **Defined = nullptr);
  /// Stores Value's bits at Address when Guard holds. Defined (i1, null
  /// for true) says the value is not poison.
  void store(ir::AddressSpace Space, const ir::Expr *Address,
             const ir::Expr *Value, const ir::Expr *Guard,
             const ir::Origin &From, const ir::Expr *Defined = nullptr);
  /// A global atomic read-modify-write; returns the old value (an exchange
  /// result: what memory held, which depends on the other threads).
  const ir::Expr *atomic(ir::AtomicOp Kind, const ir::Expr *Address,
                         const ir::Expr *Value, const ir::Expr *Compare,
                         const ir::Expr *Guard, const ir::Origin &From);
  /// A memory object only this thread sees, never an effect: an alloca or
  /// PTX's .local depot (Initial empty: a byte holds what this thread
  /// stored there, nothing defined before), or a constant table of the
  /// module (Initial: its bytes, and ReadOnly). Returns its address (i64).
  /// AccessedAs: the state spaces whose accesses reach it (an alloca's
  /// generic address; PTX's depot address only through .local, the local
  /// window not being a generic address); another is not modelled.
  /// Two stages need not lay such objects out alike: only the values read
  /// back are compared. Accesses must be aligned to their width and inside
  /// the object. finish() refuses effects that depend on an object's
  /// address itself (an address that escapes).
  const ir::Expr *privateObject(const std::string &Name, uint64_t Bytes,
                                std::vector<uint8_t> Initial, bool ReadOnly,
                                std::vector<ir::AddressSpace> AccessedAs);

  /// The byte offset (i64) of a shared-memory address from the shared
  /// base, so that the operands of shared-memory events (ldmatrix,
  /// stmatrix) name one place alike in either stage. Throws
  /// ir::UnsupportedError as load does.
  const ir::Expr *sharedOffset(const ir::Expr *Address,
                               const ir::Origin &From);

  // --- Communication -------------------------------------------------------
  /// Records an exchange and returns its fresh results, one per type.
  std::vector<const ir::Expr *>
  exchange(const std::string &Kind, const ir::Expr *Guard,
           std::vector<const ir::Expr *> Operands,
           const std::vector<ir::Type> &ResultTypes, const ir::Origin &From);
  /// A CTA-wide barrier: records the exchange and starts a new phase of
  /// shared memory. Throws ir::UnsupportedError when Guard is not uniform
  /// (a barrier some threads may skip). A uniform guard depends only on
  /// parameters, program ids, the grid, the block size, the shared base and
  /// global memory, so every thread of a CTA passes the barrier or none
  /// does (a barrier in a loop unrolled to a bound). Code after a barrier
  /// that is not passed is not reached until the loop is left, so the
  /// phases such barriers open receive no writes and carry the content
  /// over unchanged until it is.
  void barrier(const ir::Expr *Guard, const ir::Origin &From);
  /// Whether E is the same for every thread of a CTA (see barrier()).
  static bool isUniform(const ir::Expr *E);

  // --- Path condition ------------------------------------------------------
  /// The condition under which the code being lifted runs (its block's path
  /// condition). While set, it is conjoined to the guard of every access,
  /// atomic, exchange and barrier and to every undefined-behaviour
  /// condition, so that code lifted on a caller's behalf (inline asm in
  /// LLVM IR) is guarded like the caller's own. Null (the default) is true.
  void setPathCondition(const ir::Expr *Path) { this->Path = Path; }
  const ir::Expr *pathCondition() const { return Path; }
  /// While set, a stored element whose bits hold one of these values (an
  /// operand of inline asm in LLVM IR, lane by lane) is defined only where
  /// that value's condition holds too: what asm stores from a poison
  /// operand is not defined. Empty (the default): nothing to add.
  void setOperandDefinedness(
      std::vector<std::pair<const ir::Expr *, const ir::Expr *>> Operands) {
    OperandDefinedness = std::move(Operands);
  }

  // --- Everything else -----------------------------------------------------
  void undefined(const ir::Expr *Condition, const std::string &Reason,
                 const ir::Origin &From);
  void assume(const ir::Expr *Condition);
  void bound(const std::string &Line);

  /// The effects lifted so far; the model is spent afterwards.
  ThreadEffects finish();
  /// The effects lifted so far, for a frontend that numbers them as they
  /// come (which instruction made the N-th write).
  const ThreadEffects &current() const { return Result; }

  // --- Bits helpers both frontends use, so that they build alike ------------
  /// Parts[0] in the lowest bits.
  const ir::Expr *concat(const std::vector<const ir::Expr *> &Parts);
  /// Count pieces of equal width, the lowest bits first.
  std::vector<const ir::Expr *> split(const ir::Expr *Bits, unsigned Count);
  /// The value's bits as iN (bitcast for floats, identity for integers,
  /// ptrtoint for pointers).
  const ir::Expr *toBits(const ir::Expr *V);
  /// Bits reinterpreted as T (same width).
  const ir::Expr *fromBits(const ir::Expr *Bits, ir::Type T);

private:
  struct Place {
    std::string Buffer; // "argK" or "" for shared memory
    const ir::Expr *Offset; // i64 bytes from the buffer's start
    int Private = -1;       // else the index of a private object
  };
  struct PrivateObject {
    std::string Name;
    const ir::Expr *Base; // i64 symbol
    uint64_t Bytes;
    std::vector<uint8_t> Initial;
    bool ReadOnly;
    std::vector<ir::AddressSpace> AccessedAs;
  };
  struct PrivateWrite {
    unsigned Object;
    const ir::Expr *Guard, *Offset, *Bits, *Defined;
  };
  std::vector<PrivateObject> Objects;
  std::vector<PrivateWrite> PrivateWrites;
  /// Splits Address against the private objects' bases (Place::Private
  /// stays -1 when it is none of theirs).
  std::optional<Place> resolvePrivate(const ir::Expr *Address);
  /// Bits bits of object P.Private at P.Offset, read where Guard holds,
  /// and where they hold what was stored (inside the object: the caller
  /// asks privateInBounds).
  std::pair<const ir::Expr *, const ir::Expr *>
  privateRead(const Place &P, unsigned Bits, const ir::Expr *Guard);
  void privateStore(const Place &P, const ir::Expr *Raw, const ir::Expr *Guard,
                    const ir::Expr *Defined, const ir::Origin &From);
  /// Where an access of Bits bits at P.Offset lies inside its object and
  /// is aligned to its width.
  const ir::Expr *privateInBounds(const Place &P, unsigned Bits);
  void refuseEscapedAddresses();
  Place resolve(ir::AddressSpace Space, const ir::Expr *Address,
                const ir::Origin &From);
  const ir::Expr *constant32(uint64_t V);
  const ir::Expr *elementIndex(const Place &P, unsigned ElementBytes,
                               const ir::Expr *Guard, const ir::Origin &From);
  const ir::Expr *sharedByte(const ir::Expr *Offset);
  void noteBuffer(const std::string &Name, ir::Type Element,
                  ir::AddressSpace Space);
  /// G conjoined with the path condition.
  const ir::Expr *onPath(const ir::Expr *G);
  /// exchange() and undefined() for guards already on the path.
  std::vector<const ir::Expr *>
  addExchange(const std::string &Kind, const ir::Expr *Guard,
              std::vector<const ir::Expr *> Operands,
              const std::vector<ir::Type> &ResultTypes, const ir::Origin &From);
  void addUndefined(const ir::Expr *Condition, const std::string &Reason,
                    const ir::Origin &From);

  ir::Context &C;
  ThreadEffects Result;
  unsigned NextExchange = 0;
  std::optional<std::array<unsigned, 3>> ConcreteTid;
  std::string ExchangePrefix;
  const ir::Expr *Path = nullptr;
  std::vector<std::pair<const ir::Expr *, const ir::Expr *>>
      OperandDefinedness;
  /// Defined, and the condition of every operand value Part holds.
  const ir::Expr *definedWithOperands(const ir::Expr *Part,
                                      const ir::Expr *Defined);
  bool DeviceFunction = false;
  std::vector<char> ParamExtension;
  /// This phase's shared writes, for forwarding: (guard, byte offset, byte).
  struct SharedByteWrite {
    const ir::Expr *Guard, *Offset, *Byte;
  };
  std::vector<SharedByteWrite> PhaseWrites;
};

} // namespace stagecheck::ptx

#endif

//===- CtaModel.h - The threads of one CTA, their communication resolved -*- C++ -*-===//
//
// The LLVM IR is lifted once per thread of a CTA with its thread id fixed
// (llvmir::LlvmLiftOptions::ThreadId) and its exchange results named after
// it ("t5.xchg.3.0"). resolveCta() replaces what each thread receives from
// the others by what they send, event by event:
//
//  - shfl.sync (up, down, bfly, idx): the source lane per the PTX ISA, from
//    the constant lane operand, clamp and segment mask; a lane out of range
//    reads its own value; a source outside the member mask, or one that
//    does not take part, gives an unspecified value; a thread outside the
//    member mask is undefined behaviour;
//  - shared memory: a load in phase P reads, byte by byte, the last write
//    of phases before P (any thread, program order within a thread), the
//    launch's initial content ("smem@0") where nothing was written; a
//    thread's own writes of phase P are already forwarded by the lift.
//    cp.async copies land at the first cp.async.wait_group N issued after
//    at least N younger groups were committed (it leaves only the N
//    youngest pending). Two threads that touch one byte in one phase, one
//    of them writing (or both writing different values: each value as
//    simplified under its own write's guard), race. A load of
//    a byte another thread writes in the same phase reads an unspecified
//    value, "t<K>.raced.smem@P[offset]" (LLVM IR's memory model gives a
//    racing non-atomic load undef), so a proof covers every interleaving
//    and every torn byte, and a counterexample names the value it picked;
//    the race is listed in CtaEffects::RacingReads. Two threads writing
//    different values to one byte in one phase leave its later content
//    undecided: that race is listed in CtaEffects::Races, and no proof
//    rests on it (later loads see the writes in thread order, one
//    interleaving);
//  - ldmatrix / stmatrix (m8n8, x1/x2/x4, .trans, b16): the warp's row
//    addresses and fragments as the PTX ISA lays them out;
//  - mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: each lane's
//    result register is one element of D, the uninterpreted function
//    ir::MmaM16N8K16F32F16 of its C element, its row of A and its column of
//    B, gathered from the warp's fragment registers as the PTX ISA lays
//    them out (ptx::sem::mmaM16N8K16A/B/CD); an f16 of a register is
//    bitcast(trunc(x >> 16 h)), as LLVM IR unpacks it. The warp takes part
//    as one, under one guard (.aligned), or the use is unsupported;
//  - other mma.sync shapes and types, and atomics' old values, are not
//    resolved: using one is ir::UnsupportedError with the reason.
//
// Every shared offset must fold to a constant once the thread id is fixed;
// one that does not is ir::UnsupportedError.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_CTAMODEL_H
#define STAGECHECK_STAGES_CTAMODEL_H

#include "frontends/llvm/LlvmLifter.h"
#include "ir/Effects.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace stagecheck::stages {

/// Where a resolved node came from.
struct CtaSite {
  llvmir::LlvmSite Site;
  unsigned Thread = 0;
  /// The node as the thread's lift made it (before resolution).
  const ir::Expr *Lifted = nullptr;
};

struct CtaEffects {
  /// Global writes and atomics of every thread (single writes, thread after
  /// thread) and every thread's undefined behaviour, resolved.
  ir::Effects Effects;
  std::vector<unsigned> WriteThread, WriteLines; // per write
  std::vector<unsigned> UndefinedThread, UndefinedLines;
  /// Every thread's global reads, resolved, with their thread and line.
  std::vector<ptx::GlobalRead> GlobalReads;
  std::vector<unsigned> GlobalReadThread, GlobalReadLines;
  /// Launch ranges and the bounds the lifts relied on (all threads).
  std::vector<const ir::Expr *> Assumptions;
  std::vector<std::string> Bounds;
  /// Races on shared memory a proof cannot rest on, one line each (two
  /// writes of one byte, a cp.async copy never waited for).
  std::vector<std::string> Races;
  /// Loads that race with another thread's write, one line each: they read
  /// an unspecified value ("t<K>.raced.smem@P[offset]"), so a proof holds
  /// whatever they read.
  std::vector<std::string> RacingReads;
  /// Resolved nodes that are not nodes of any lift.
  std::unordered_map<const ir::Expr *, CtaSite> Sites;
  /// Per exchange result symbol: the exchange's site and thread.
  std::unordered_map<const ir::Expr *, CtaSite> ExchangeSites;
  unsigned Threads = 0;
};

/// Threads[t] is the lift of thread t (tid.x = t, exchange prefix "t<t>.").
CtaEffects resolveCta(ir::Context &C,
                      const std::vector<llvmir::LlvmLift> &Threads);

/// "t5." for thread 5.
std::string threadPrefix(unsigned Thread);

} // namespace stagecheck::stages

#endif

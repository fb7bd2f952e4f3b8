//===- Collective.h - Asynchronous copies and warp-wide matrix ops -*- C++
//-*-===//
//
// Builders for the PTX operations that move data between threads or
// memories behind the program's back, shared by the PTX lifter and the
// LLVM IR frontend (whose llvm.nvvm.cp.async.*, ldmatrix and mma
// intrinsics are the same instructions), so that both stages record the
// same events:
//  - cp.async copies at issue: a global load and a shared store under the
//    guard (bytes at or past src-size are zero); commit_group and
//    wait_group are exchanges "cp.async.commit_group" and
//    "cp.async.wait_group" {N : i32}, so two stages that group alike match.
//  - ldmatrix, stmatrix and mma.sync are warp-collective: an exchange whose
//    kind is the full instruction spelling
//    ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), whose operands are
//    this thread's shared byte offset (i64, from ThreadModel::sharedOffset)
//    and fragment registers (bits), and whose results are fresh.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_PTX_LIFTER_COLLECTIVE_H
#define STAGECHECK_PTX_LIFTER_COLLECTIVE_H

#include "ptx_lifter/ThreadModel.h"

#include <span>
#include <string>
#include <utility>
#include <vector>

namespace stagecheck::ptx::sem {

/// cp.async.{ca,cg}.shared.global [Dst], [Src], CpSize{, SrcSize}: Dst a
/// shared address, Src a global one, CpSize 4, 8 or 16 bytes, SrcSize an
/// i32 (null: CpSize). The global load is guarded by Guard and
/// SrcSize > 0.
void cpAsync(ThreadModel &M, const ir::Expr *Dst, const ir::Expr *Src,
             unsigned CpSize, const ir::Expr *SrcSize, const ir::Expr *Guard,
             const ir::Origin &From);
void cpAsyncCommit(ThreadModel &M, const ir::Expr *Guard,
                   const ir::Origin &From);
void cpAsyncWait(ThreadModel &M, unsigned Pending, const ir::Expr *Guard,
                 const ir::Origin &From);

/// ldmatrix: Count fragments (i32) of this thread.
std::vector<const ir::Expr *> matrixLoad(ThreadModel &M,
                                         const std::string &Kind,
                                         const ir::Expr *SharedAddress,
                                         unsigned Count, const ir::Expr *Guard,
                                         const ir::Origin &From);
/// stmatrix: this thread's fragments (i32) to the warp's rows.
void matrixStore(ThreadModel &M, const std::string &Kind,
                 const ir::Expr *SharedAddress,
                 std::span<const ir::Expr *const> Fragments,
                 const ir::Expr *Guard, const ir::Origin &From);
/// Where one element of a warp's mma.m16n8k16 .row.col operand with 16-bit
/// elements (f16, bf16) lives: the lane, the fragment register of that
/// lane (A: a0..a3, B: b0..b1, C/D: c0..c3) and, for A and B, the half of
/// the 32-bit register (0: bits 0..15, the lower-numbered element).
struct MmaSlot {
  unsigned Lane, Register, Half;
};
/// Per the PTX ISA ("Matrix Fragments for mma.m16n8k16 with floating point
/// type"), with groupID = lane >> 2 and tig = lane % 4: A's element ai
/// (register i/2, half i%2) is at row groupID (+8 for i in 2,3,6,7), column
/// 2 tig + (i & 1) (+8 for i >= 4); B's bi at row 2 tig + (i & 1) (+8 for
/// i >= 2), column groupID; C's and D's ci (f32) at row groupID (+8 for
/// i >= 2), column 2 tig + (i & 1).
MmaSlot mmaM16N8K16A(unsigned Row, unsigned K);    // Row < 16, K < 16
MmaSlot mmaM16N8K16B(unsigned K, unsigned Col);    // K < 16, Col < 8
MmaSlot mmaM16N8K16CD(unsigned Row, unsigned Col); // Half = 0
/// The element (row, column) accumulator register Register of Lane holds.
std::pair<unsigned, unsigned> mmaM16N8K16CDElement(unsigned Lane,
                                                   unsigned Register);

/// mma.sync: A, B and C fragments (bits) in, D fragments (ResultTypes) out.
std::vector<const ir::Expr *>
matrixMultiply(ThreadModel &M, const std::string &Kind,
               std::span<const ir::Expr *const> Fragments,
               const std::vector<ir::Type> &ResultTypes, const ir::Expr *Guard,
               const ir::Origin &From);

} // namespace stagecheck::ptx::sem

#endif

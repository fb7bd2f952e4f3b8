//===- PtxMutants.h - Mutations of real PTX text -----------------*- C++ -*-===//
//
// One-instruction mutations of a PTX file, the kind of bug a backend could
// introduce: each yields the mutated text and the line it changed (the line
// a report must name).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TESTS_PTXMUTANTS_H
#define STAGECHECK_TESTS_PTXMUTANTS_H

#include <optional>
#include <string>

namespace stagecheck::test {

enum class PtxMutation {
  SetpPredicate, // setp.lt -> setp.le (and the other strict/loose pairs, eq <-> ne)
  Immediate,     // the integer immediate of an add/mul/and/or/shl/shr, +1
  DropGuard,     // @%p st... -> st... (the store runs unguarded)
  AddToSub,      // add.TYPE -> sub.TYPE
  ShuffleOffset, // shfl.sync lane offset halved
  CvtRounding,   // cvt.rn -> cvt.rz (rz -> rn, rm <-> rp)
  SwapV4Lanes,   // the first and third registers of a .v4 access swapped
  ReduxOperation, // redux.sync.or <-> and, min <-> max
};

const char *spelling(PtxMutation M);

struct PtxMutant {
  std::string Text; // the whole mutated file
  unsigned Line;    // 1-based
};

/// M applied at the first line that contains Anchor and where M applies.
std::optional<PtxMutant> mutatePtx(const std::string &Text, PtxMutation M,
                                   const std::string &Anchor);

} // namespace stagecheck::test

#endif

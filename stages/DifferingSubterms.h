//===- DifferingSubterms.h - Where two expressions part -*- C++ -*-===//
//
// Two spellings of one computation often differ in one small place: a
// mutated comparison (x < c against x <= c) deep inside a polynomial, a max
// that picks the other of two equal values. A solver asked whether the two
// ever differ must rediscover that place through everything above it; told
// that one of the places must differ, it starts there (x < c and x <= c
// differ only at x = c, after which the rest is arithmetic on constants).
//
// Walking both from the root, a pair of nodes with one operation and
// attributes (A rebuilt on B's operands is B) is entered; any other pair
// is a place where they differ. If every place's two sides are equal, so
// are the roots (each operation is a function of its operands), so the
// disjunction "some place differs" follows from "the roots differ" and may
// be added to any query that asks the latter.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_DIFFERINGSUBTERMS_H
#define STAGECHECK_STAGES_DIFFERINGSUBTERMS_H

#include "ir/Expr.h"

#include <optional>
#include <utility>
#include <vector>

namespace stagecheck::stages {

/// Whether A and B apply one operation, with one set of attributes, to
/// operands of the same types (B is A rebuilt on B's operands); false for
/// leaves.
bool sameOperation(ir::Context &C, const ir::Expr *A, const ir::Expr *B);

/// The maximal pairs of subterms where A and B differ, at most Limit of
/// them; none when A == B; nullopt when there are more, or when the roots
/// themselves are the only place (nothing learned).
std::optional<std::vector<std::pair<const ir::Expr *, const ir::Expr *>>>
differingSubterms(ir::Context &C, const ir::Expr *A, const ir::Expr *B,
                  size_t Limit = 8);

/// The places of differingSubterms(A, B), each followed by the pairs the
/// walk entered above it, nearest first, up to Above of them (by the first
/// pair that entered each; the roots excluded); nullopt as there.
std::optional<std::vector<std::vector<std::pair<const ir::Expr *, const ir::Expr *>>>>
differingPlacesAndAbove(ir::Context &C, const ir::Expr *A, const ir::Expr *B,
                        size_t Above, size_t Limit = 8);

/// i1: some place of differingSubterms(A, B) holds different data (bit for
/// bit); null when there is no such list. Implied by A and B differing.
const ir::Expr *someSubtermDiffers(ir::Context &C, const ir::Expr *A,
                                   const ir::Expr *B, size_t Limit = 8);

/// Conditions each implied by A and B differing, from the places up: the
/// first is someSubtermDiffers; the one at level k adds that a pair k
/// levels above the places differs, the pairs being those of the walk
/// above the last level's (every path from the roots down to a place
/// passes through them, so the roots differing implies one of them does).
/// A place that can differ harmlessly (a flushed subnormal whose product
/// is absorbed by a large addend) is shown harmless one level up, where
/// the solver still starts from the place. At most Levels above the
/// places, stopping below the roots; empty when there are no places.
std::vector<const ir::Expr *> differingLevels(ir::Context &C,
                                              const ir::Expr *A,
                                              const ir::Expr *B,
                                              size_t Levels = 2,
                                              size_t Limit = 8);

} // namespace stagecheck::stages

#endif

//===- Mutants.h - Mutations of real TTGIR text ------------------*- C++ -*-===//
//
// String-level mutations of one op of a TTGIR file, the kind of bug a
// compiler pass could introduce: each yields the mutated text, the line it
// changed and the op on that line (the op a report must name).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TESTS_MUTANTS_H
#define STAGECHECK_TESTS_MUTANTS_H

#include <optional>
#include <string>
#include <vector>

namespace stagecheck::test {

enum class Mutation {
  ChangeConstant,     // arith.constant: another value
  FlipPredicate,      // arith.cmpi/cmpf: the negated predicate
  DropMask,           // tt.store/tt.load/async copy: no mask (nor other)
  SwapOperands,       // arith.subf/divf: operands swapped
  WrongCombiner,      // an op of a reduce region: another combining op
  OffByOneRange,      // tt.make_range: start and end shifted by one
  ConvertLayoutShape, // ttg.convert_layout: a result dimension halved
};

const char *spelling(Mutation M);

struct Mutant {
  std::string Text; // the whole mutated file
  unsigned Line;    // 1-based
  std::string Op;   // the op on that line
};

/// The lines (1-based) where M applies.
std::vector<unsigned> sites(const std::string &Text, Mutation M);

/// M applied at the first line where it applies that contains Anchor.
std::optional<Mutant> mutate(const std::string &Text, Mutation M,
                             const std::string &Anchor);

/// The op a line of MLIR text holds ("arith.addf"), or "".
std::string opOnLine(const std::string &Line);

} // namespace stagecheck::test

#endif

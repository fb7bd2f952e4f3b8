//===- Encoder.h - The shared IR in Z3 (private to smt/) --------*- C++ -*-===//
//
// Included only by smt/*.cpp: nothing outside smt/ sees Z3.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_SMT_ENCODER_H
#define STAGECHECK_SMT_ENCODER_H

#include "ir/Expr.h"
#include "ir/Value.h"
#include "smt/Mode.h"

#include <stdexcept>
#include <unordered_map>
#include <z3++.h>

namespace stagecheck::smt {

/// An op this mode cannot express (e.g. a bitcast over reals).
class Unsupported : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class Encoder {
public:
  /// With EliminateArrays, buffer reads and calls become fresh constants
  /// tied together by functionalConsistency() (Ackermann's reduction), so
  /// IEEE queries stay in QF_FPBV, where Z3 is much faster.
  ///
  /// With StandardBitPatterns, a float's bit pattern is a fresh bit vector
  /// that bitPatternDefinitions() ties to the float, instead of Z3's own
  /// fp.to_ieee_bv, which SMT-LIB leaves out: the query then reads in any
  /// solver (cvc5 re-checks the dumps). Equisatisfiable: a non-NaN float
  /// has one pattern, and a NaN's pattern is never read (canonical NaN).
  Encoder(z3::context &Z, Mode M, bool EliminateArrays = false,
          bool StandardBitPatterns = false)
      : Z(Z), M(M), EliminateArrays(EliminateArrays),
        StandardBitPatterns(StandardBitPatterns) {}
  /// i1 becomes a Z3 Bool; other integers and pointers bit vectors; floats
  /// FP sorts (IEEE) or Real.
  z3::expr encode(const ir::Expr *E);
  z3::sort sortOf(ir::Type T);
  Mode mode() const { return M; }
  z3::context &context() const { return Z; }

  /// The Z3 array standing for the initial content of a buffer.
  z3::expr bufferArray(const std::string &Name, ir::Type Elem);
  z3::func_decl function(const ir::Expr *Call);
  /// Argument I of a call as the function reads it (ir::canonicalArgument):
  /// the point of the uninterpreted function it is applied to.
  z3::expr callArgument(const ir::Expr *Call, z3::expr Argument);

  /// A concrete value as a Z3 numeral of this encoding's sort for its type.
  z3::expr numeral(const ir::Value &V);
  /// The bit pattern of a numeral of type T (a real is rounded to nearest).
  /// Returns false if V is not a numeral.
  bool numeralBits(const z3::expr &V, ir::Type T, uint64_t &Bits);

  /// Reads of one buffer at equal indices are equal; calls of one function
  /// on equal arguments are equal. Needed only with EliminateArrays.
  z3::expr_vector functionalConsistency();
  /// With StandardBitPatterns: each fresh pattern, read as a float, is the
  /// float it stands for.
  z3::expr_vector bitPatternDefinitions() const;
  /// The logic Z3 should use for what was encoded so far ("" for default).
  std::string logic() const;

private:
  z3::expr encodeNode(const ir::Expr *E);
  z3::expr eliminated(const ir::Expr *E);
  z3::expr withFixedPoints(const ir::Expr *Call, const z3::expr &Argument,
                           z3::expr Free);
  z3::expr withSpecialQuotients(const ir::Expr *Call, const z3::expr &X,
                                const z3::expr &Y, z3::expr Free);
  z3::expr constant(ir::Type T, uint64_t Bits);
  z3::expr integerOp(const ir::Expr *E);
  z3::expr castOp(const ir::Expr *E);
  z3::expr ieeeOp(const ir::Expr *E);
  z3::expr realOp(const ir::Expr *E);
  z3::expr operand(const ir::Expr *E, unsigned I) { return Cache.at(E->operand(I)); }
  z3::expr rounding(ir::RoundingMode RM);

  z3::context &Z;
  Mode M;
  bool EliminateArrays;
  bool StandardBitPatterns;
  bool SawReal = false, SawFloat = false;
  std::unordered_map<const ir::Expr *, z3::expr> Cache;
  struct Application { // a read (key: buffer) or a call (key: typed name)
    std::string Key;
    std::vector<z3::expr> Args;
    z3::expr Result;
  };
  std::vector<Application> Applications;
  struct BitPattern { // a fresh bit vector standing for a float's pattern
    z3::expr Bits, Float;
  };
  std::vector<BitPattern> BitPatterns;
  z3::expr bitPattern(const z3::expr &Float, ir::Type T);
};

} // namespace stagecheck::smt

#endif

//===- Mode.h - Numeric modes of the SMT encoding ---------------*- C++ -*-===//
#ifndef STAGECHECK_SMT_MODE_H
#define STAGECHECK_SMT_MODE_H

#include <string_view>

namespace stagecheck::smt {

/// How floats are encoded. Integers are bit vectors in both modes.
enum class Mode {
  /// Bit-exact IEEE: Z3 floating point with the op's rounding mode.
  IEEE,
  /// Floats as exact reals: no rounding, no inf/NaN; literals keep their
  /// exact binary value. Bitcasts of floats have no meaning here. A
  /// conversion into a narrower format (f32 -> f16, f64 -> f32) still rounds
  /// to that format: what a tensor of that dtype can hold.
  Real,
};

inline const char *spelling(Mode M) { return M == Mode::IEEE ? "ieee" : "real"; }
inline bool parseMode(std::string_view S, Mode &Out) {
  if (S == "ieee")
    return Out = Mode::IEEE, true;
  if (S == "real")
    return Out = Mode::Real, true;
  return false;
}
/// What a verdict in this mode means, for reports.
inline const char *meaning(Mode M) {
  return M == Mode::IEEE ? "bit-exact" : "reals";
}

} // namespace stagecheck::smt

#endif

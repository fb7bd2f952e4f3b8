//===- TextLines.h - A stage file as lines, and back ------------*- C++ -*-===//
//
// The mutant generators of the stage-pair tests edit one line of a real
// stage file: they read it, split it into lines and join them again.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TESTS_SUPPORT_TEXTLINES_H
#define STAGECHECK_TESTS_SUPPORT_TEXTLINES_H

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace stagecheck::test {

inline std::vector<std::string> linesOf(const std::string &Text) {
  std::vector<std::string> Lines;
  std::istringstream In(Text);
  for (std::string L; std::getline(In, L);)
    Lines.push_back(L);
  return Lines;
}

/// A file's whole text ("" when it cannot be read: the caller's check of
/// what it parsed fails then).
inline std::string fileText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// The lines, each ending in a newline.
inline std::string joined(const std::vector<std::string> &Lines) {
  std::string Out;
  for (const std::string &L : Lines)
    Out += L + "\n";
  return Out;
}

} // namespace stagecheck::test

#endif

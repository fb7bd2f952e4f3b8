//===- TestData.h - Ground truth and TTGIR files for layout tests -*- C++
//-*-===//
//
// Readers for tests/layout/ground_truth/*.json (written by
// scripts/capture_layouts.py from Triton itself) and a scanner that finds
// every encoding a TTGIR file uses.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TESTS_LAYOUT_TESTDATA_H
#define STAGECHECK_TESTS_LAYOUT_TESTDATA_H

#include "layout/Encoding.h"
#include "layout/LinearLayout.h"

#include <map>
#include <string>
#include <vector>

namespace stagecheck::layout::test {

std::string testDir();
std::string readFile(const std::string &Path);

/// One layout Triton computed: the encoding as written (aliases kept), the
/// alias definitions it needs, the shape, and Triton's bases.
struct GroundTruthCase {
  std::string Label;
  std::string Encoding;
  std::map<std::string, std::string> Aliases;
  std::vector<int64_t> Shape;
  std::map<std::string, std::vector<std::vector<int32_t>>> Bases;
  std::vector<int32_t> Tids; // measured.json: thread of each element
  int NumWarps = 0;
};

/// Reads the array `Key` of a ground-truth file.
std::vector<GroundTruthCase> loadCases(const std::string &File,
                                       const std::string &Key);

/// The case's encoding, its aliases resolved from the case itself.
EncodingPtr parseCase(const GroundTruthCase &C);

/// Triton's layout, rebuilt from its bases: input dimensions in Triton's
/// order (register, lane, warp, block or offset, block), outputs
/// dim0.. sized by the shape.
LinearLayout tritonLayout(const GroundTruthCase &C);

/// An encoding as a TTGIR file uses it: in an alias definition or in a
/// tensor / memdesc type (then with the type's shape).
struct EncodingUse {
  std::string Text;
  ir::SourceLocation Where;
  bool InType = false;
  bool MemDesc = false;
  std::vector<int64_t> Shape;
};
std::vector<EncodingUse> encodingUses(const std::string &ModuleText,
                                      const std::string &File);

/// Every .ttgir of the corpus bundles and of tests/layout/ttgir.
std::vector<std::string> ttgirFiles();

/// Every element index of a shape, row-major.
std::vector<std::vector<int64_t>> allElements(const std::vector<int64_t> &S);

std::string shapeStr(const std::vector<int64_t> &S);

} // namespace stagecheck::layout::test

#endif

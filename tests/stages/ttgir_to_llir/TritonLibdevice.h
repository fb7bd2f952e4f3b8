//===- TritonLibdevice.h - The libdevice the corpus was linked with -*- C++ -*-===//
//
// Triton 3.6's copy of libdevice.10.bc, which differs from the CUDA 13
// toolkit's in __nv_erff: the corpus kernels were linked with it. And a
// launch's TTGIR against an LLVM IR text (its own or a mutant) with it.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TESTS_TTGIR_TO_LLIR_TRITONLIBDEVICE_H
#define STAGECHECK_TESTS_TTGIR_TO_LLIR_TRITONLIBDEVICE_H

#include "bundle/Manifest.h"
#include "frontends/ttir/Mlir.h"
#include "stages/Pipeline.h"
#include "stages/ttgir_to_llir.h"
#include "tests/support/TextLines.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace stagecheck::test {

/// Its path, or "" (the toolkit's is used then).
inline std::string tritonLibdevice() {
  std::filesystem::path P = std::filesystem::path(STAGECHECK_TEST_DIR) /
                            "stages" / "ttgir_to_llir" / "libdevice" /
                            "triton-3.6.0-libdevice.10.bc";
  return std::filesystem::exists(P) ? P.string() : "";
}

/// Ttgir (L's TTGIR or an edited copy) against Llir (text standing for
/// L's .llir file), with the launch's options and Triton's libdevice,
/// within Seconds, as an audit asks it: testing starts at the launch the
/// bundle ran, and loads are bounded by what its pointers reach.
inline stages::PairResult moduleAgainstLlir(const bundle::Manifest &M,
                                            const bundle::Launch &L,
                                            const ttir::Module &Ttgir,
                                            const std::string &Llir,
                                            double Seconds) {
  ir::Context C;
  stages::TtgirToLlirOptions O =
      stages::optionsForLaunch(M, L, stages::CheckOptions());
  O.Libdevice = O.LinkedLibdevice = tritonLibdevice();
  O.TimeLimitSeconds = Seconds;
  for (auto [Symbol, Value] : stages::launchConstants(C, L, *O.Interface)) {
    O.Check.Preferred.push_back({Symbol, Value});
    O.Launch.push_back({Symbol, Value});
  }
  O.Reach = stages::reachOf(M, L);
  return stages::checkTtgirToLlir(C, Ttgir, Llir, L.file("llir"), O);
}

/// L's TTGIR against Llir, as above.
inline stages::PairResult againstTtgir(const bundle::Manifest &M,
                                       const bundle::Launch &L,
                                       const std::string &Llir,
                                       double Seconds = 300) {
  return moduleAgainstLlir(M, L, ttir::parseModuleFile(L.file("ttgir")), Llir,
                           Seconds);
}

/// TtgirText (standing for L's .ttgir file) against Llir, as above.
inline stages::PairResult ttgirAgainstLlir(const bundle::Manifest &M,
                                           const bundle::Launch &L,
                                           const std::string &TtgirText,
                                           const std::string &Llir,
                                           double Seconds = 300) {
  return moduleAgainstLlir(M, L, ttir::parseModule(TtgirText, L.file("ttgir")),
                           Llir, Seconds);
}

/// A bundle's first launch and its LLVM IR, checked against its TTGIR as
/// given or edited, within 60 s.
struct BundleKernel {
  /// Bundle: a directory under tests/ (a corpus bundle by default).
  explicit BundleKernel(const std::string &Bundle,
                        const std::string &Under = "corpus")
      : M(bundle::loadBundle(STAGECHECK_TEST_DIR "/" + Under + "/" + Bundle)),
        L(*M.launches().front()), Llir(test::fileText(L.file("llir"))) {}

  bundle::Manifest M;
  const bundle::Launch &L;
  std::string Llir;

  stages::PairResult against(const std::string &Text) const {
    return test::againstTtgir(M, L, Text, 60);
  }
  /// The LLVM IR with line N (1-based), which must contain Before, replaced.
  std::string edited(size_t N, const std::string &Before,
                     const std::string &After) const {
    std::vector<std::string> Lines = test::linesOf(Llir);
    EXPECT_NE(Lines.at(N - 1).find(Before), std::string::npos) << Lines[N - 1];
    Lines[N - 1] = After;
    return test::joined(Lines);
  }
};

} // namespace stagecheck::test

#endif

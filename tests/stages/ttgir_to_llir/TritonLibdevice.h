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
#include "stages/ttgir_to_llir.h"

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

/// L's TTGIR against Llir (text standing for L's .llir file), with the
/// launch's options and Triton's libdevice, within Seconds.
inline stages::PairResult againstTtgir(const bundle::Manifest &M,
                                       const bundle::Launch &L,
                                       const std::string &Llir,
                                       double Seconds = 300) {
  ttir::Module Ttgir = ttir::parseModuleFile(L.file("ttgir"));
  stages::TtgirToLlirOptions O =
      stages::optionsForLaunch(M, L, stages::CheckOptions());
  O.Libdevice = O.LinkedLibdevice = tritonLibdevice();
  O.TimeLimitSeconds = Seconds;
  ir::Context C;
  return stages::checkTtgirToLlir(C, Ttgir, Llir, L.file("llir"), O);
}

} // namespace stagecheck::test

#endif

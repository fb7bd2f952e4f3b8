//===- TritonLibdevice.h - The libdevice the corpus was linked with -*- C++ -*-===//
//
// Triton 3.6's copy of libdevice.10.bc, which differs from the CUDA 13
// toolkit's in __nv_erff: the corpus kernels were linked with it.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TESTS_TTGIR_TO_LLIR_TRITONLIBDEVICE_H
#define STAGECHECK_TESTS_TTGIR_TO_LLIR_TRITONLIBDEVICE_H

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

} // namespace stagecheck::test

#endif

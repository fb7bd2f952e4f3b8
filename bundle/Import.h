//===- Import.h - Bundles from what PyTorch and Triton leave on disk -*- C++ -*-=//
//
// `stagecheck import` rebuilds bundles with no Python: from a
// TORCH_COMPILE_DEBUG run directory (fx_graph_*.py, output_code.py, whose
// call() binds kernels, buffers and extern calls) and the inductor and
// Triton caches, where the kernel files and the autotuning choices live.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_BUNDLE_IMPORT_H
#define STAGECHECK_BUNDLE_IMPORT_H

#include <string>
#include <vector>

namespace stagecheck::bundle {

struct ImportOptions {
  std::string TorchDebugDir; // TORCH_COMPILE_DEBUG_DIR or a parent
  std::string CacheDir;      // TORCHINDUCTOR_CACHE_DIR / TRITON_CACHE_DIR or a parent
  std::string OutputDir;
};

struct ImportedBundle {
  std::string Dir;
  std::string Name;
  unsigned Launches = 0, Externs = 0;
  std::vector<std::string> Notes; // what could not be recovered, said plainly
};

/// One bundle per compiled graph found (and per unchosen autotuning variant
/// when the choice is not recorded). Throws ir::InputError.
std::vector<ImportedBundle> importBundles(const ImportOptions &O);

} // namespace stagecheck::bundle

#endif

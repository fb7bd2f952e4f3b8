//===- ResultCache.h - Verdicts remembered on disk --------------*- C++ -*-===//
//
// One JSON file per key under a directory; the key is the SHA-256 of the
// pair, its checker's version, the options and the content of every file the
// pair reads. Writes go through a temporary file and a rename, so parallel
// audits sharing a cache never see half a file.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_TOOLS_RESULTCACHE_H
#define STAGECHECK_TOOLS_RESULTCACHE_H

#include "stages/Pipeline.h"

#include <string>

namespace stagecheck::tools {

class DiskResultCache : public stages::ResultCache {
public:
  explicit DiskResultCache(std::string Dir);
  std::optional<stages::PairResult> lookup(const Key &K) override;
  void store(const Key &K, const stages::PairResult &R) override;
  static std::string digest(const Key &K);

private:
  std::string Dir;
};

} // namespace stagecheck::tools

#endif

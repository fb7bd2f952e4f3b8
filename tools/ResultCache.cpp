#include "tools/ResultCache.h"

#include "tools/Json.h"

#include <filesystem>
#include <fstream>
#include <llvm/Support/SHA256.h>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace stagecheck::tools {

DiskResultCache::DiskResultCache(std::string D) : Dir(std::move(D)) {
  std::error_code EC;
  fs::create_directories(Dir, EC);
}

std::string DiskResultCache::digest(const Key &K) {
  llvm::SHA256 H;
  auto Add = [&](const std::string &S) {
    H.update(std::to_string(S.size()) + ":");
    H.update(S);
  };
  Add(K.Pair);
  Add(K.CheckerVersion);
  Add(K.Options);
  for (const std::string &F : K.Files) {
    std::ifstream In(F, std::ios::binary);
    std::ostringstream S;
    S << In.rdbuf();
    Add(In ? S.str() : "<missing>");
  }
  std::string Out;
  static const char *Hex = "0123456789abcdef";
  for (uint8_t B : H.final()) {
    Out += Hex[B >> 4];
    Out += Hex[B & 15];
  }
  return Out;
}

std::optional<stages::PairResult> DiskResultCache::lookup(const Key &K) {
  std::ifstream In(fs::path(Dir) / (digest(K) + ".json"));
  if (!In)
    return std::nullopt;
  std::ostringstream S;
  S << In.rdbuf();
  auto V = llvm::json::parse(S.str());
  if (!V) {
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  return pairFromJson(*V);
}

void DiskResultCache::store(const Key &K, const stages::PairResult &R) {
  fs::path Final = fs::path(Dir) / (digest(K) + ".json");
  fs::path Temp = Final;
  Temp += ".tmp" + std::to_string(getpid());
  try {
    writeJson(Temp.string(), pairToJson(R));
    fs::rename(Temp, Final);
  } catch (const std::exception &) {
    std::error_code EC;
    fs::remove(Temp, EC); // a cache that cannot write only costs time
  }
}

} // namespace stagecheck::tools

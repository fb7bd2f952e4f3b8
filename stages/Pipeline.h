//===- Pipeline.h - Auditing a bundle, stage pair by stage pair -*- C++ -*-===//
//
// audit() runs every stage-pair checker that exists, in pipeline order, for
// every kernel launch of a bundle, and composes the end-to-end verdict: the
// program means what the reference means when every pair is proved; the
// first pair that fails names where a bug entered. A pair without a checker
// is `unknown: no checker for X -> Y`.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_PIPELINE_H
#define STAGECHECK_STAGES_PIPELINE_H

#include "bundle/Manifest.h"
#include "stages/Refinement.h"

#include <functional>
#include <map>
#include <unordered_map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace stagecheck::stages {

enum class Stage { FX, TTIR, TTGIR, LLIR, PTX };
const char *spelling(Stage S);   // "FX", "TTIR", "TTGIR", "LLVM IR", "PTX"
const char *fileKey(Stage S);    // manifest files key: "ttir", ... ("" for FX)

struct StagePair {
  Stage From, To;
  std::string id() const; // "fx->ttir", "ttir->ttgir", "ttgir->llir", "llir->ptx"
  std::string title() const; // "FX -> TTIR"
  /// The whole program (FX -> TTIR) rather than one kernel.
  bool wholeProgram() const { return From == Stage::FX; }
};
/// The four adjacent pairs, in pipeline order.
const std::vector<StagePair> &pipelinePairs();
bool parsePairId(const std::string &Id, StagePair &Out);

/// A checker for one pair. Kernel pairs get the launch; the whole-program
/// pair gets a null launch.
using PairChecker = std::function<PairResult(
    ir::Context &, const bundle::Manifest &, const bundle::Launch *,
    const CheckOptions &)>;
/// Makes a checker available to audit (called once at start-up). Version
/// names the checker's semantics: cached verdicts of another version are
/// never reused, so bump it whenever what the checker proves changes.
void registerChecker(const StagePair &P, PairChecker Checker,
                     std::string Version);
/// The registered version and the identity of the running build (the
/// executable's size and modification time): a rebuilt stagecheck reuses no
/// verdict of the one before, even where nobody bumped a version.
std::string checkerVersion(const StagePair &P);
const PairChecker *findChecker(const StagePair &P);
/// Registers every checker this build has.
void registerBuiltinCheckers();

/// A launch's scalar arguments and grid size as constants, keyed by the
/// symbols every lifter names them with (argK, nprog.x;
/// docs/lifting-conventions.md).
std::unordered_map<const ir::Expr *, const ir::Expr *>
launchConstants(ir::Context &C, const bundle::Launch &L,
                const ir::KernelInterface &KI);

/// What each pointer argument of a launch may reach, keyed by its symbol
/// (argK): [Low, High) elements from where it points, its tensor's storage
/// (tensors that alias share one). Scratch pointers are not listed.
std::map<std::string, std::pair<int64_t, int64_t>>
reachOf(const bundle::Manifest &M, const bundle::Launch &L);

struct PairReport {
  StagePair Pair;
  std::string Kernel; // empty for the whole program
  PairResult Result;
  bool FromCache = false;
};

struct AuditReport {
  const bundle::Manifest *Bundle = nullptr;
  std::vector<PairReport> Pairs; // whole-program pair first, then per launch
  Verdict Overall = Verdict::Proved;
  /// The first pair, in pipeline order, that did not prove.
  std::optional<size_t> FirstFailure;
  /// Every pair of the pipeline ran (no --stages selection).
  bool AllPairs = true;
  double Seconds = 0;
};

/// Verdicts remembered across runs, keyed by everything a pair's verdict
/// depends on: the pair, its checker's version, the options, and the content
/// of the files it reads.
class ResultCache {
public:
  struct Key {
    std::string Pair, CheckerVersion, Options;
    std::vector<std::string> Files; // contents are hashed, not names
  };
  virtual ~ResultCache() = default;
  virtual std::optional<PairResult> lookup(const Key &K) = 0;
  virtual void store(const Key &K, const PairResult &R) = 0;
};

struct AuditOptions {
  CheckOptions Check;
  /// Pair ids to run ("fx->ttir"...); empty means all.
  std::set<std::string> Pairs;
  ResultCache *Cache = nullptr;
  /// A remembered timeout is run again rather than reused (a timeout
  /// depends on the machine and its load; by default an unchanged pair
  /// that timed out under the same limits is taken to time out again).
  bool RetryTimeouts = false;
  /// Each pair's wall-clock limit in seconds (0: none): its queries stop
  /// there (Solver.Deadline), and RunPairs, when set, stops the rest.
  double PairTimeLimitSeconds = 0;
  /// Runs the pairs' checks not found in the cache, in order, and returns
  /// their results; empty: one after another in this process. The command
  /// line runs them in a child process that is killed past a pair's limit.
  std::function<std::vector<PairResult>(
      const std::vector<std::function<PairResult()>> &Checks)>
      RunPairs;
};

AuditReport audit(const bundle::Manifest &M, const AuditOptions &O);

/// The report as a table, with the counterexample of the first failure.
void printAudit(std::ostream &OS, const AuditReport &R);

} // namespace stagecheck::stages

#endif

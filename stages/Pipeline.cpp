#include "stages/Pipeline.h"

#include "ir/Errors.h"
#include "smt/Solver.h"
#include "stages/Report.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>
#include <sys/stat.h>

namespace stagecheck::stages {

const char *spelling(Stage S) {
  switch (S) {
  case Stage::FX:
    return "FX";
  case Stage::TTIR:
    return "TTIR";
  case Stage::TTGIR:
    return "TTGIR";
  case Stage::LLIR:
    return "LLVM IR";
  case Stage::PTX:
    return "PTX";
  }
  return "?";
}

const char *fileKey(Stage S) {
  switch (S) {
  case Stage::FX:
    return "";
  case Stage::TTIR:
    return "ttir";
  case Stage::TTGIR:
    return "ttgir";
  case Stage::LLIR:
    return "llir";
  case Stage::PTX:
    return "ptx";
  }
  return "";
}

std::string StagePair::id() const {
  std::string F = From == Stage::FX ? "fx" : fileKey(From);
  return F + "->" + fileKey(To);
}

std::string StagePair::title() const {
  return std::string(spelling(From)) + " -> " + spelling(To);
}

const std::vector<StagePair> &pipelinePairs() {
  static const std::vector<StagePair> Pairs = {{Stage::FX, Stage::TTIR},
                                               {Stage::TTIR, Stage::TTGIR},
                                               {Stage::TTGIR, Stage::LLIR},
                                               {Stage::LLIR, Stage::PTX}};
  return Pairs;
}

bool parsePairId(const std::string &Id, StagePair &Out) {
  for (const StagePair &P : pipelinePairs())
    if (P.id() == Id) {
      Out = P;
      return true;
    }
  return false;
}

namespace {
struct Registered {
  PairChecker Checker;
  std::string Version;
};
std::map<std::string, Registered> &registry() {
  static std::map<std::string, Registered> R;
  return R;
}
} // namespace

void registerChecker(const StagePair &P, PairChecker Checker,
                     std::string Version) {
  registry()[P.id()] = {std::move(Checker), std::move(Version)};
}

const PairChecker *findChecker(const StagePair &P) {
  auto It = registry().find(P.id());
  return It == registry().end() ? nullptr : &It->second.Checker;
}

/// "size@mtime" of the running executable, "" where it cannot be read.
static const std::string &buildIdentity() {
  static const std::string Identity = [] {
    std::error_code Err;
    std::filesystem::path Exe =
        std::filesystem::read_symlink("/proc/self/exe", Err);
    struct stat S;
    if (Err || ::stat(Exe.c_str(), &S) != 0)
      return std::string();
    return std::to_string(S.st_size) + "@" + std::to_string(S.st_mtim.tv_sec) +
           "." + std::to_string(S.st_mtim.tv_nsec);
  }();
  return Identity;
}

std::string checkerVersion(const StagePair &P) {
  auto It = registry().find(P.id());
  if (It == registry().end())
    return "";
  return It->second.Version + "/build=" + buildIdentity();
}

/// The files a pair's verdict depends on.
static std::vector<std::string> inputsOf(const StagePair &P,
                                         const bundle::Manifest &M,
                                         const bundle::Launch *L) {
  std::vector<std::string> Files = {M.Path};
  if (P.wholeProgram()) {
    Files.push_back(M.Ref.Graph);
    for (const bundle::Launch *Each : M.launches())
      Files.push_back(Each->file("ttir"));
  } else {
    Files.push_back(L->file(fileKey(P.From)));
    Files.push_back(L->file(fileKey(P.To)));
    Files.push_back(L->file("metadata"));
  }
  return Files;
}

static std::string optionsKey(const CheckOptions &O) {
  return std::string(smt::spelling(O.Arithmetic)) + "/timeout=" +
         std::to_string(O.Solver.TimeoutMs) +
         "/memory=" + std::to_string(O.Solver.MemoryLimitMB) +
         "/loops=" + std::to_string(O.LoopBound) +
         (O.Libdevice.empty() ? "" : "/libdevice=" + O.Libdevice);
}

static PairResult runPair(const StagePair &P, const bundle::Manifest &M,
                          const bundle::Launch *L, const CheckOptions &O) {
  const PairChecker *Checker = findChecker(P);
  if (!Checker) {
    PairResult R;
    R.Kind = Verdict::Unknown;
    R.Reason = "no checker for " + P.title();
    return R;
  }
  ir::Context C;
  smt::startAfresh();
  try {
    return (*Checker)(C, M, L, O);
  } catch (const ir::UnsupportedError &E) {
    PairResult R;
    R.Kind = Verdict::Unknown;
    R.Reason = E.what();
    return R;
  } catch (const ir::InputError &) {
    throw; // bad input is the caller's error, exit code 3
  } catch (const ir::IRError &E) {
    PairResult R;
    R.Kind = Verdict::Unknown;
    R.Reason = std::string("could not model the pair: ") + E.what();
    return R;
  }
}

AuditReport audit(const bundle::Manifest &M, const AuditOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  AuditReport R;
  R.Bundle = &M;
  for (const StagePair &P : pipelinePairs())
    R.AllPairs &= O.Pairs.empty() || O.Pairs.count(P.id()) > 0;
  auto Selected = [&](const StagePair &P) {
    return O.Pairs.empty() || O.Pairs.count(P.id());
  };
  // Pairs found in the cache are done at once; the others are checked
  // together below, so that one child process can run them all.
  struct PendingPair {
    size_t Index;
    ResultCache::Key Key;
    bool Cacheable;
    StagePair Pair;
    const bundle::Launch *Launch;
  };
  std::vector<PendingPair> Pending;
  auto Run = [&](const StagePair &P, const bundle::Launch *L) {
    PairReport Report{P, L ? L->Kernel : "", {}, false};
    bool Cacheable = O.Cache && findChecker(P);
    std::ostringstream Limit;
    Limit << "/pair-limit=" << O.PairTimeLimitSeconds;
    ResultCache::Key Key{P.id(), checkerVersion(P),
                         optionsKey(O.Check) + Limit.str(),
                         Cacheable ? inputsOf(P, M, L) : std::vector<std::string>{}};
    auto TimedOut = [](const PairResult &X) {
      return X.Kind == Verdict::Unknown &&
             X.Reason.find("timeout") != std::string::npos;
    };
    if (Cacheable)
      if (std::optional<PairResult> Hit = O.Cache->lookup(Key);
          Hit && !(O.RetryTimeouts && TimedOut(*Hit))) {
        Report.Result = std::move(*Hit);
        Report.FromCache = true;
        R.Pairs.push_back(std::move(Report));
        return;
      }
    Pending.push_back({R.Pairs.size(), std::move(Key), Cacheable, P, L});
    R.Pairs.push_back(std::move(Report));
  };
  for (const StagePair &P : pipelinePairs())
    if (P.wholeProgram() && Selected(P))
      Run(P, nullptr);
  for (const bundle::Launch *L : M.launches())
    for (const StagePair &P : pipelinePairs())
      if (!P.wholeProgram() && Selected(P))
        Run(P, L);
  std::vector<std::function<PairResult()>> Checks;
  for (const PendingPair &Each : Pending)
    Checks.push_back([&O, &M, &Each] {
      // The pair's limit counts from its own start.
      CheckOptions Check = O.Check;
      if (O.PairTimeLimitSeconds > 0) {
        auto End = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(
                       int64_t(O.PairTimeLimitSeconds * 1000));
        if (!Check.Solver.Deadline || End < *Check.Solver.Deadline)
          Check.Solver.Deadline = End;
      }
      return runPair(Each.Pair, M, Each.Launch, Check);
    });
  std::vector<PairResult> Results;
  if (O.RunPairs) {
    Results = O.RunPairs(Checks);
  } else {
    for (const auto &Check : Checks)
      Results.push_back(Check());
  }
  for (size_t I = 0; I < Pending.size(); ++I) {
    R.Pairs[Pending[I].Index].Result = std::move(Results.at(I));
    if (Pending[I].Cacheable)
      O.Cache->store(Pending[I].Key, R.Pairs[Pending[I].Index].Result);
  }
  // The first failure in pipeline order: earlier stages first, so a bug is
  // blamed on the pair where it entered.
  for (const StagePair &P : pipelinePairs())
    for (size_t I = 0; I < R.Pairs.size(); ++I) {
      const PairReport &PR = R.Pairs[I];
      if (PR.Pair.id() != P.id())
        continue;
      R.Overall = worst(R.Overall, PR.Result.Kind);
      bool Failed = PR.Result.Kind == Verdict::Counterexample ||
                    PR.Result.Kind == Verdict::Unknown;
      if (Failed && (!R.FirstFailure ||
                     (PR.Result.Kind == Verdict::Counterexample &&
                      R.Pairs[*R.FirstFailure].Result.Kind != Verdict::Counterexample)))
        R.FirstFailure = I;
    }
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  return R;
}

namespace {
std::string padded(const std::string &S, size_t W) {
  return S.size() >= W ? S + " " : S + std::string(W - S.size(), ' ');
}

std::string pairLine(const PairReport &P) {
  const PairResult &R = P.Result;
  char Time[32];
  std::snprintf(Time, sizeof Time, "%.2f s", R.Seconds);
  std::string Line = "  " + padded(P.Pair.title(), 18) +
                     padded(spelling(R.Kind), 25) + padded(Time, 9);
  if (R.Kind == Verdict::Proved || R.Kind == Verdict::ProvedWithinTolerance ||
      R.Kind == Verdict::Counterexample) {
    Line += padded(smt::meaning(R.Arithmetic), 11);
    if (R.Bound != "none")
      Line += "  bound: " + R.Bound;
    if (!R.Relaxations.empty()) {
      Line += "  relaxations:";
      for (size_t I = 0; I < R.Relaxations.size(); ++I)
        Line += (I ? "; " : " ") + R.Relaxations[I];
    }
  } else if (!R.Reason.empty()) {
    Line += R.Reason;
  }
  return Line;
}
} // namespace

void printAudit(std::ostream &OS, const AuditReport &R) {
  const bundle::Manifest &M = *R.Bundle;
  OS << "bundle " << M.Name;
  if (!M.OriginMode.empty())
    OS << "   " << M.OriginMode;
  if (!M.Triton.empty())
    OS << "   triton " << M.Triton;
  if (!M.Device.empty())
    OS << "   " << M.Device;
  OS << "\n";
  std::string Kernel = "\x01";
  for (size_t I = 0; I < R.Pairs.size(); ++I) {
    const PairReport &P = R.Pairs[I];
    if (P.Kernel != Kernel) {
      Kernel = P.Kernel;
      if (Kernel.empty()) {
        OS << "program (" << M.launches().size() << " launch"
           << (M.launches().size() == 1 ? "" : "es") << ")\n";
      } else {
        for (const bundle::Launch *L : M.launches())
          if (L->Kernel == Kernel) {
            OS << "kernel " << Kernel << "   grid " << L->Grid[0] << "x"
               << L->Grid[1] << "x" << L->Grid[2] << "   " << L->NumWarps
               << " warps";
            if (M.Capability)
              OS << "   sm_" << M.Capability;
            OS << "\n";
            break;
          }
      }
    }
    OS << pairLine(P) << "\n";
    if (R.FirstFailure && *R.FirstFailure == I && P.Result.Cex)
      printCounterexample(OS, *P.Result.Cex, "      ");
  }
  int Exit = exitCode(R.Overall);
  OS << "verdict: ";
  if (R.Overall == Verdict::Proved || R.Overall == Verdict::ProvedWithinTolerance) {
    // Never more than was proved: a bound or a selection of pairs is said.
    size_t Bounded = 0;
    for (const PairReport &P : R.Pairs)
      Bounded += P.Result.Bound != "none";
    OS << (R.Overall == Verdict::Proved ? "proved" : "proved within tolerance");
    if (Bounded)
      OS << " up to the bounds stated above (" << Bounded << " pair"
         << (Bounded == 1 ? "" : "s") << ")";
    if (!R.AllPairs) {
      std::string Names;
      for (const StagePair &P : pipelinePairs())
        for (const PairReport &X : R.Pairs)
          if (X.Pair.id() == P.id()) {
            Names += (Names.empty() ? "" : ", ") + P.title();
            break;
          }
      OS << ": only " << (Names.empty() ? std::string("no pair") : Names)
         << " checked";
    } else if (R.Overall == Verdict::Proved) {
      OS << ": every stage keeps the reference's meaning";
    }
  } else if (R.FirstFailure) {
    const PairReport &F = R.Pairs[*R.FirstFailure];
    if (F.Result.Kind == Verdict::Counterexample)
      OS << "bug introduced at " << F.Pair.title()
         << (F.Kernel.empty() ? "" : " in " + F.Kernel) << ": "
         << (F.Result.Cex ? F.Result.Cex->Explanation : "the stages differ");
    else
      OS << "inconclusive: first at " << F.Pair.title()
         << (F.Kernel.empty() ? "" : " in " + F.Kernel) << ": "
         << F.Result.Reason;
  }
  OS << "   (exit " << Exit << ")\n";
}

} // namespace stagecheck::stages

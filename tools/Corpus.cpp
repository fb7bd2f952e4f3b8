#include "tools/Corpus.h"

#include "ir/Errors.h"
#include "stages/Refinement.h"
#include "tools/Json.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <llvm/Support/JSON.h>
#include <map>
#include <set>
#include <sstream>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
namespace fs = std::filesystem;
using llvm::json::Array;
using llvm::json::Object;

namespace stagecheck::tools {

namespace {

struct Row {
  std::string Bundle, Kernel, Pair, Verdict, Reason, Bound;
  double Seconds = 0;
  bool Cached = false;
  std::optional<double> CompileSeconds;
};

struct BundleRun {
  std::string Name, Dir;
  int ExitCode = 3;
  double Seconds = 0;
  double PeakMemoryMB = 0;
  std::string Error; // input error text, or why no report came
  std::vector<Row> Rows;
};

std::vector<std::string> findBundles(const std::vector<std::string> &Roots) {
  std::set<std::string> Found;
  for (const std::string &R : Roots) {
    std::error_code EC;
    if (!fs::is_directory(R, EC))
      throw ir::InputError({R, 0, 0}, "not a directory");
    if (fs::exists(fs::path(R) / "manifest.json"))
      Found.insert(fs::path(R).lexically_normal().string());
    for (auto It = fs::recursive_directory_iterator(R, EC);
         !EC && It != fs::recursive_directory_iterator(); It.increment(EC))
      if (It->path().filename() == "manifest.json" &&
          It->path().parent_path().filename() != "captured")
        Found.insert(It->path().parent_path().lexically_normal().string());
  }
  return {Found.begin(), Found.end()};
}

std::string slurp(const fs::path &P) {
  std::ifstream In(P);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

void readReport(BundleRun &B, const fs::path &Json, const fs::path &Log) {
  auto V = llvm::json::parse(slurp(Json));
  if (!V) {
    llvm::consumeError(V.takeError());
    std::string Log1 = slurp(Log);
    B.Error = Log1.empty() ? "no report" : Log1.substr(0, Log1.find('\n'));
    return;
  }
  const Object &R = *V->getAsObject();
  B.Name = R.getString("bundle").value_or(B.Name).str();
  B.PeakMemoryMB = R.getNumber("peak_memory_mb").value_or(0);
  auto Add = [&](const std::string &Kernel, const llvm::json::Value &P,
                 std::optional<double> Compile) {
    const Object &PO = *P.getAsObject();
    const Object &Res = *PO.getObject("result");
    Row Rw{B.Name, Kernel, PO.getString("pair")->str(),
           Res.getString("verdict")->str(), Res.getString("reason")->str(),
           Res.getString("bound")->str(), Res.getNumber("seconds").value_or(0),
           PO.getBoolean("cached").value_or(false), Compile};
    B.Rows.push_back(Rw);
  };
  for (const llvm::json::Value &P : *R.getArray("program"))
    Add("", P, std::nullopt);
  for (const llvm::json::Value &K : *R.getArray("kernels")) {
    const Object &KO = *K.getAsObject();
    for (const llvm::json::Value &P : *KO.getArray("pairs"))
      Add(KO.getString("kernel")->str(), P, KO.getNumber("compile_time_s"));
  }
}

std::string xmlEscape(const std::string &S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    default:
      if ((unsigned char)C < 0x20 && C != '\n' && C != '\t')
        Out += ' ';
      else
        Out += C;
    }
  }
  return Out;
}

void writeJUnit(const std::string &Path, const std::vector<BundleRun> &Runs,
                double Seconds) {
  std::ofstream OS(Path);
  if (!OS)
    throw std::runtime_error("cannot write '" + Path + "'");
  unsigned Tests = 0, Failures = 0, Errors = 0, Skipped = 0;
  for (const BundleRun &B : Runs) {
    Tests += B.Error.empty() ? unsigned(B.Rows.size()) : 1;
    Errors += !B.Error.empty();
    for (const Row &R : B.Rows) {
      Failures += R.Verdict == "counterexample";
      Skipped += R.Verdict == "unknown";
    }
  }
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%.3f", Seconds);
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"stagecheck corpus\" tests=\"" << Tests
     << "\" failures=\"" << Failures << "\" errors=\"" << Errors
     << "\" time=\"" << Buf << "\">\n";
  for (const BundleRun &B : Runs) {
    unsigned F = 0, S = 0;
    for (const Row &R : B.Rows) {
      F += R.Verdict == "counterexample";
      S += R.Verdict == "unknown";
    }
    std::snprintf(Buf, sizeof Buf, "%.3f", B.Seconds);
    OS << "  <testsuite name=\"" << xmlEscape(B.Name) << "\" tests=\""
       << (B.Error.empty() ? B.Rows.size() : 1) << "\" failures=\"" << F
       << "\" errors=\"" << (B.Error.empty() ? 0 : 1) << "\" skipped=\"" << S
       << "\" time=\"" << Buf << "\">\n";
    if (!B.Error.empty()) {
      OS << "    <testcase classname=\"" << xmlEscape(B.Name)
         << "\" name=\"bundle\" time=\"0\">\n      <error message=\""
         << xmlEscape(B.Error) << "\" type=\"input error\"/>\n    </testcase>\n";
    }
    for (const Row &R : B.Rows) {
      std::snprintf(Buf, sizeof Buf, "%.3f", R.Seconds);
      OS << "    <testcase classname=\"" << xmlEscape(B.Name + (R.Kernel.empty() ? "" : "." + R.Kernel))
         << "\" name=\"" << xmlEscape(R.Pair) << "\" time=\"" << Buf << "\"";
      if (R.Verdict == "proved" || R.Verdict == "proved within tolerance") {
        OS << "/>\n";
        continue;
      }
      OS << ">\n";
      if (R.Verdict == "counterexample")
        OS << "      <failure message=\"counterexample\" type=\"counterexample\">"
           << xmlEscape(R.Reason) << "</failure>\n";
      else if (R.Verdict == "unknown")
        OS << "      <skipped message=\"" << xmlEscape("unknown: " + R.Reason) << "\"/>\n";
      else
        OS << "      <error message=\"" << xmlEscape(R.Verdict + ": " + R.Reason)
           << "\" type=\"" << xmlEscape(R.Verdict) << "\"/>\n";
      OS << "    </testcase>\n";
    }
    OS << "  </testsuite>\n";
  }
  OS << "</testsuites>\n";
}

llvm::json::Value corpusJson(const std::vector<BundleRun> &Runs, double Seconds,
                             unsigned Jobs) {
  Array Bundles, Results;
  for (const BundleRun &B : Runs) {
    Bundles.push_back(Object{{"bundle", B.Name},
                             {"dir", B.Dir},
                             {"exit_code", B.ExitCode},
                             {"seconds", B.Seconds},
                             {"peak_memory_mb", B.PeakMemoryMB},
                             {"error", B.Error}});
    for (const Row &R : B.Rows)
      Results.push_back(Object{
          {"bundle", R.Bundle},
          {"kernel", R.Kernel.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(R.Kernel)},
          {"pair", R.Pair},
          {"verdict", R.Verdict},
          {"reason", R.Reason},
          {"bound", R.Bound},
          {"seconds", R.Seconds},
          {"cached", R.Cached},
          {"compile_time_s", R.CompileSeconds ? llvm::json::Value(*R.CompileSeconds)
                                              : llvm::json::Value(nullptr)}});
  }
  return Object{{"format", "stagecheck-corpus"},
                {"version", 1},
                {"seconds", Seconds},
                {"jobs", int64_t(Jobs)},
                {"bundles", std::move(Bundles)},
                {"results", std::move(Results)}};
}

bool provedVerdict(const std::string &V) {
  return V == "proved" || V == "proved within tolerance";
}

/// What changed since a previous `--json` run of the same corpus.
void compareBaseline(const std::string &Path, const std::vector<BundleRun> &Runs,
                     std::ostream &OS) {
  auto V = llvm::json::parse(slurp(Path));
  if (!V || !V->getAsObject() || !V->getAsObject()->getArray("results")) {
    if (!V)
      llvm::consumeError(V.takeError());
    throw ir::InputError({Path, 0, 0}, "not a stagecheck corpus report");
  }
  std::map<std::string, std::pair<std::string, double>> Old;
  for (const llvm::json::Value &R : *V->getAsObject()->getArray("results")) {
    const Object &O = *R.getAsObject();
    std::string Key = O.getString("bundle").value_or("").str() + " " +
                      O.getString("kernel").value_or("").str() + " " +
                      O.getString("pair").value_or("").str();
    Old[Key] = {O.getString("verdict").value_or("").str(),
                O.getNumber("seconds").value_or(0)};
  }
  unsigned Failing = 0, Proved = 0, Slower = 0;
  std::ostringstream Lines;
  for (const BundleRun &B : Runs)
    for (const Row &R : B.Rows) {
      std::string Key = R.Bundle + " " + R.Kernel + " " + R.Pair;
      auto It = Old.find(Key);
      if (It == Old.end())
        continue;
      auto [Verdict, Seconds] = It->second;
      std::string Where = R.Bundle + (R.Kernel.empty() ? "" : " " + R.Kernel) + " " + R.Pair;
      if (provedVerdict(Verdict) && !provedVerdict(R.Verdict)) {
        Lines << "  newly failing   " << Where << ": " << Verdict << " -> " << R.Verdict
              << (R.Reason.empty() ? "" : " (" + R.Reason + ")") << "\n";
        ++Failing;
      } else if (!provedVerdict(Verdict) && provedVerdict(R.Verdict)) {
        Lines << "  newly proved    " << Where << ": " << Verdict << " -> " << R.Verdict << "\n";
        ++Proved;
      } else if (!R.Cached && R.Seconds > 2 * Seconds && R.Seconds - Seconds > 0.5) {
        char Buf[128];
        std::snprintf(Buf, sizeof Buf, "%.2f s -> %.2f s", Seconds, R.Seconds);
        Lines << "  slower          " << Where << ": " << Buf << "\n";
        ++Slower;
      }
    }
  OS << "baseline " << Path << ": " << Failing << " newly failing, " << Proved
     << " newly proved, " << Slower << " markedly slower\n"
     << Lines.str();
}

std::string defaultCacheDir() {
  if (const char *X = std::getenv("XDG_CACHE_HOME"); X && *X)
    return std::string(X) + "/stagecheck";
  if (const char *H = std::getenv("HOME"); H && *H)
    return std::string(H) + "/.cache/stagecheck";
  return ".stagecheck-cache";
}

/// The audits running, for a signal that stops the corpus run to stop
/// them too: they share its process group, but a scheduler or a user may
/// signal the corpus process alone, and an audit left behind would go on
/// with its bundle for nothing. Slots are set before the handlers go in
/// and never reallocated while they are in.
std::vector<std::atomic<pid_t>> *RunningAudits = nullptr;

/// The signal that stopped the run, once one has: the run then reaps its
/// audits, removes its scratch directory and dies of that signal.
volatile sig_atomic_t StoppedBy = 0;

extern "C" void stopAudits(int Signal) {
  if (RunningAudits)
    for (std::atomic<pid_t> &Pid : *RunningAudits)
      if (pid_t P = Pid.load())
        kill(P, SIGTERM);
  StoppedBy = Signal;
}

/// Installs stopAudits for the signals that end a run, and restores what
/// was there when it goes. Without SA_RESTART, so that a run waiting for
/// its audits wakes up to the signal.
class AuditsStopWithTheRun {
public:
  explicit AuditsStopWithTheRun(std::vector<std::atomic<pid_t>> &Slots) {
    RunningAudits = &Slots;
    StoppedBy = 0;
    struct sigaction A = {};
    A.sa_handler = stopAudits;
    sigemptyset(&A.sa_mask);
    for (size_t I = 0; I < std::size(Signals); ++I)
      sigaction(Signals[I], &A, &Old[I]);
  }
  ~AuditsStopWithTheRun() { restore(); }
  /// After the run has cleaned up: dies of the signal that stopped it, as
  /// it would have without the handler (a shell or scheduler sees that).
  void dieIfStopped() {
    if (int Signal = StoppedBy) {
      restore();
      signal(Signal, SIG_DFL);
      raise(Signal);
    }
  }

private:
  void restore() {
    if (!RunningAudits)
      return;
    for (size_t I = 0; I < std::size(Signals); ++I)
      sigaction(Signals[I], &Old[I], nullptr);
    RunningAudits = nullptr;
  }

  static constexpr int Signals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction Old[std::size(Signals)];
};

} // namespace

int runCorpus(int Argc, char **Argv) {
  cxxopts::Options O("stagecheck corpus",
                     "Audits every bundle under the directories, in parallel, "
                     "with verdicts cached by content.");
  O.add_options()("j,jobs", "audits run at once",
                  cxxopts::value<unsigned>()->default_value(
                      std::to_string(std::max(1u, std::thread::hardware_concurrency()))))(
      "json", "write every result as JSON", cxxopts::value<std::string>())(
      "junit", "write a JUnit XML report", cxxopts::value<std::string>())(
      "baseline", "a previous --json report: print what changed since",
      cxxopts::value<std::string>())(
      "shard", "K/N: audit only the K-th of N equal shares (1 <= K <= N)",
      cxxopts::value<std::string>())(
      "cache", "verdict cache directory",
      cxxopts::value<std::string>()->default_value(defaultCacheDir()))(
      "no-cache", "neither read nor write the verdict cache")(
      "libdevice",
      "the libdevice.10.bc the kernels were linked with (default: each "
      "kernel's metadata's, else the CUDA toolkit's)",
      cxxopts::value<std::string>())(
      "retry-timeouts",
      "run pairs whose remembered verdict is a timeout again (by default an "
      "unchanged pair that timed out under the same limits is not rerun)")(
      "timeout-ms", "solver work allowed a query, in milliseconds of it",
      cxxopts::value<unsigned>()->default_value("20000"))(
      "pair-time-limit-s",
      "wall-clock limit for one stage pair's whole check, in seconds (0: "
      "none); a check past it is stopped and its verdict is unknown",
      cxxopts::value<double>()->default_value("300"))(
      "stages",
      "comma-separated pairs to check: fx->ttir, ttir->ttgir, ttgir->llir, "
      "llir->ptx (default: all)",
      cxxopts::value<std::string>())("h,help", "this help")(
      "dirs", "DIR...", cxxopts::value<std::vector<std::string>>());
  O.parse_positional({"dirs"});
  O.positional_help("DIR...");
  cxxopts::ParseResult P;
  try {
    P = O.parse(Argc, Argv);
  } catch (const cxxopts::exceptions::exception &E) {
    throw ir::InputError({}, E.what());
  }
  if (P.count("help")) {
    std::cout << O.help() << "\n";
    return 0;
  }
  if (!P.count("dirs"))
    throw ir::InputError({}, "corpus needs at least one directory");
  if (P.count("libdevice") &&
      !fs::is_regular_file(P["libdevice"].as<std::string>()))
    throw ir::InputError({P["libdevice"].as<std::string>(), 0, 0},
                         "--libdevice: no such file");
  // Checked here, not by each bundle's audit: one error, not one per bundle.
  if (!(P["pair-time-limit-s"].as<double>() >= 0))
    throw ir::InputError({}, "--pair-time-limit-s must be 0 or more");
  std::vector<std::string> Bundles = findBundles(P["dirs"].as<std::vector<std::string>>());
  if (P.count("shard")) {
    std::string S = P["shard"].as<std::string>();
    unsigned K = 0, N = 0;
    char Slash = 0;
    std::istringstream In(S);
    if (!(In >> K >> Slash >> N) || Slash != '/' || N == 0 || K == 0 || K > N)
      throw ir::InputError({}, "bad --shard '" + S + "' (want K/N with 1 <= K <= N)");
    std::vector<std::string> Mine;
    for (size_t I = 0; I < Bundles.size(); ++I)
      if (I % N == K - 1)
        Mine.push_back(Bundles[I]);
    Bundles = Mine;
  }
  unsigned Jobs = std::max(1u, P["jobs"].as<unsigned>());
  std::string Cache = P.count("no-cache") ? "" : P["cache"].as<std::string>();

  auto Start = std::chrono::steady_clock::now();
  fs::path Tmp = fs::temp_directory_path() / ("stagecheck-corpus-" + std::to_string(getpid()));
  fs::create_directories(Tmp);
  std::vector<BundleRun> Runs(Bundles.size());
  std::map<pid_t, size_t> Running;
  std::vector<std::atomic<pid_t>> AuditSlots(Jobs);
  AuditsStopWithTheRun StopTogether(AuditSlots);
  std::vector<std::chrono::steady_clock::time_point> Began(Bundles.size());
  size_t Next = 0, Done = 0;
  bool Tty = isatty(STDERR_FILENO);
  std::string Self = fs::read_symlink("/proc/self/exe").string();
  auto Launch = [&](size_t I) {
    Runs[I].Dir = Bundles[I];
    Runs[I].Name = fs::path(Bundles[I]).filename().string();
    std::string Json = (Tmp / (std::to_string(I) + ".json")).string();
    std::string Log = (Tmp / (std::to_string(I) + ".log")).string();
    std::vector<std::string> Args = {Self, "audit", "--json", Json,
                                     "--timeout-ms",
                                     std::to_string(P["timeout-ms"].as<unsigned>()),
                                     "--pair-time-limit-s",
                                     std::to_string(P["pair-time-limit-s"].as<double>())};
    if (!Cache.empty()) {
      Args.push_back("--cache");
      Args.push_back(Cache);
    }
    if (P.count("retry-timeouts"))
      Args.push_back("--retry-timeouts");
    if (P.count("libdevice")) {
      Args.push_back("--libdevice");
      Args.push_back(fs::absolute(P["libdevice"].as<std::string>()).string());
    }
    if (P.count("stages")) {
      Args.push_back("--stages");
      Args.push_back(P["stages"].as<std::string>());
    }
    Args.push_back(Bundles[I]);
    std::vector<char *> Argv2;
    for (std::string &A : Args)
      Argv2.push_back(A.data());
    Argv2.push_back(nullptr);
    posix_spawn_file_actions_t Actions;
    posix_spawn_file_actions_init(&Actions);
    posix_spawn_file_actions_addopen(&Actions, STDOUT_FILENO, Log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&Actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t Pid;
    int Err = posix_spawn(&Pid, Self.c_str(), &Actions, nullptr, Argv2.data(), environ);
    posix_spawn_file_actions_destroy(&Actions);
    if (Err != 0) {
      Runs[I].Error = std::string("cannot start an audit: ") + std::strerror(Err);
      ++Done;
      return;
    }
    Began[I] = std::chrono::steady_clock::now();
    Running[Pid] = I;
    for (std::atomic<pid_t> &Slot : AuditSlots)
      if (pid_t Empty = 0; Slot.compare_exchange_strong(Empty, Pid))
        break;
    // A signal that came while it was being started found no slot for it.
    if (StoppedBy)
      kill(Pid, SIGTERM);
  };
  while (Done < Bundles.size() && !StoppedBy) {
    while (Running.size() < Jobs && Next < Bundles.size() && !StoppedBy)
      Launch(Next++);
    if (Running.empty())
      continue;
    int Status = 0;
    pid_t Pid = waitpid(-1, &Status, 0);
    if (Pid < 0)
      continue;
    auto It = Running.find(Pid);
    if (It == Running.end())
      continue;
    size_t I = It->second;
    Running.erase(It);
    for (std::atomic<pid_t> &Slot : AuditSlots)
      if (pid_t Was = Pid; Slot.compare_exchange_strong(Was, 0))
        break;
    BundleRun &B = Runs[I];
    B.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Began[I]).count();
    B.ExitCode = WIFEXITED(Status) ? WEXITSTATUS(Status) : 3;
    fs::path Json = Tmp / (std::to_string(I) + ".json");
    fs::path Log = Tmp / (std::to_string(I) + ".log");
    if (B.ExitCode == 3 || !fs::exists(Json)) {
      std::string Text = slurp(Log);
      B.Error = Text.empty() ? "audit died" : Text.substr(0, Text.find('\n'));
      B.ExitCode = 3;
    } else {
      readReport(B, Json, Log);
    }
    ++Done;
    if (Tty)
      std::cerr << "\r[" << Done << "/" << Bundles.size() << "] " << B.Name
                << std::string(20, ' ') << std::flush;
  }
  if (StoppedBy) // every audit still running has been sent SIGTERM
    for (const auto &[Pid, I] : Running)
      waitpid(Pid, nullptr, 0);
  if (Tty)
    std::cerr << "\r" << std::string(70, ' ') << "\r";
  std::error_code EC;
  fs::remove_all(Tmp, EC);
  StopTogether.dieIfStopped();
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();

  // One row per kernel and pair.
  std::map<std::string, std::map<std::string, unsigned>> Counts; // pair -> verdict -> n
  int Worst = 0;
  auto Severity = [](int Code) { return Code == 3 ? 4 : Code == 1 ? 3 : Code == 2 ? 2 : 0; };
  for (const BundleRun &B : Runs) {
    if (Severity(B.ExitCode) > Severity(Worst))
      Worst = B.ExitCode;
    if (!B.Error.empty()) {
      std::cout << B.Name << "   error   " << B.Error << "\n";
      continue;
    }
    for (const Row &R : B.Rows) {
      char Buf[256];
      std::snprintf(Buf, sizeof Buf, "%-32s %-44s %-12s %-24s %7.2f s%s", R.Bundle.c_str(),
                    R.Kernel.empty() ? "(program)" : R.Kernel.c_str(), R.Pair.c_str(),
                    R.Verdict.c_str(), R.Seconds, R.Cached ? "  cached" : "");
      std::cout << Buf;
      if (R.Bound != "none" && !R.Bound.empty())
        std::cout << "  bound: " << R.Bound;
      if (!R.Reason.empty() && R.Verdict != "proved")
        std::cout << "  " << R.Reason;
      std::cout << "\n";
      ++Counts[R.Pair][R.Verdict];
    }
  }
  std::cout << "\n";
  for (const auto &[Pair, ByVerdict] : Counts) {
    std::cout << Pair << ":";
    for (const auto &[Verdict, N] : ByVerdict)
      std::cout << "  " << N << " " << Verdict;
    std::cout << "\n";
  }
  char Buf[128];
  std::snprintf(Buf, sizeof Buf, "%zu bundles in %.1f s with %u jobs", Runs.size(),
                Seconds, Jobs);
  std::cout << Buf << "\n";
  if (P.count("baseline"))
    compareBaseline(P["baseline"].as<std::string>(), Runs, std::cout);
  if (P.count("json"))
    writeJson(P["json"].as<std::string>(), corpusJson(Runs, Seconds, Jobs));
  if (P.count("junit"))
    writeJUnit(P["junit"].as<std::string>(), Runs, Seconds);
  return Worst;
}

} // namespace stagecheck::tools

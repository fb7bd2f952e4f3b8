//===- stagecheck.cpp - The command line ----------------------------------===//
//
// stagecheck SUBCOMMAND [options]. Exit codes: 0 all proved, 1 a
// counterexample, 2 inconclusive, 3 input error.
//
//===----------------------------------------------------------------------===//
#include "ir/Text.h"
#include "ir/Value.h"
#include "smt/Solver.h"
#include "bundle/Import.h"
#include "bundle/Manifest.h"
#include "stages/Pipeline.h"
#include "stages/Refinement.h"
#include "stages/Report.h"
#include "stages/llir_to_ptx.h"
#include "stages/ttgir_to_llir.h"
#include "stages/ttir_to_ttgir.h"
#include "frontends/llvm/LlvmLifter.h"
#include "ptx_lifter/PtxLifter.h"
#include "frontends/ttir/Lifter.h"
#include "stagecheck/Config.h"
#include "tools/Corpus.h"
#include "tools/Json.h"
#include "tools/PairLimit.h"
#include "tools/ResultCache.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cxxopts.hpp>
#include <fstream>
#include <filesystem>
#include <functional>
#include <iostream>
#include <malloc.h>
#include <map>
#include <optional>
#include <sstream>

using namespace stagecheck;

namespace {

constexpr int ExitInputError = 3;

/// Bad input: one line on stderr, exit code 3.
class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw InputError("cannot read '" + Path + "': " + std::strerror(errno));
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

void printVersion() {
  std::cout << "stagecheck " << STAGECHECK_VERSION << "\n"
            << "  LLVM " << STAGECHECK_LLVM_VERSION << ", Z3 "
            << smt::solverVersion() << "\n"
            << "  CUDA toolkit: "
            << (STAGECHECK_HAVE_CUDA ? STAGECHECK_LIBDEVICE_PATH
                                     : "not found (libdevice-based features "
                                       "disabled)")
            << "\n";
}

const char *TopHelp =
    "stagecheck: proves that a GPU kernel keeps its meaning through every\n"
    "stage of its compilation (FX -> TTIR -> TTGIR -> LLVM IR -> PTX).\n"
    "\n"
    "usage: stagecheck <command> [options]\n"
    "\n"
    "commands:\n"
    "  audit    check every stage pair of a bundle, kernel by kernel\n"
    "  check    check one stage file against another\n"
    "  lift     print what a TTIR or TTGIR file does, in the .sir text form\n"
    "  corpus   audit every bundle under directories, in parallel, cached\n"
    "  import   build bundles from a TORCH_COMPILE_DEBUG run and the caches\n"
    "\n"
    "options:\n"
    "  -h, --help     this help (stagecheck <command> --help for a command)\n"
    "      --version  version and the dependencies found\n"
    "\n"
    "exit codes: 0 all proved, 1 a counterexample, 2 inconclusive, 3 input "
    "error\n";

void addSolverOptions(cxxopts::Options &O) {
  O.add_options("solver")(
      "timeout-ms",
      "solver work allowed a query, in milliseconds of it (counted by the "
      "solver, so the verdict does not depend on the machine's load; the "
      "solver is also killed past 4 times that in processor time, and "
      "over the reals the budget is its processor time)",
      cxxopts::value<unsigned>()->default_value("20000"))(
      "memory-mb", "memory limit per query",
      cxxopts::value<unsigned>()->default_value("4096"))(
      "dump-smt",
      "write every query as SMT-LIB into this directory, with its answer "
      "as its :status (scripts/recheck_smt.py re-checks them with cvc5)",
      cxxopts::value<std::string>())(
      "pair-time-limit-s",
      "wall-clock limit for one stage pair's whole check, in seconds (0: "
      "none); a check past it is stopped and its verdict is unknown",
      cxxopts::value<double>()->default_value("300"));
}

double pairTimeLimit(const cxxopts::ParseResult &P) {
  double Limit = P["pair-time-limit-s"].as<double>();
  if (!(Limit >= 0))
    throw InputError("--pair-time-limit-s must be 0 or more");
  return Limit;
}

/// Runs one pair's check within the limit, in a child process (see
/// tools/PairLimit.h); its queries stop at the limit by themselves.
stages::PairResult
checkWithinLimit(double Limit, stages::CheckOptions &Options,
                 const std::function<stages::PairResult()> &Check) {
  if (Limit > 0) {
    auto End = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(int64_t(Limit * 1000));
    if (!Options.Solver.Deadline || End < *Options.Solver.Deadline)
      Options.Solver.Deadline = End;
  }
  return tools::runWithinLimit(
      [&] {
        try {
          return Check();
        } catch (const InputError &E) {
          throw ir::InputError({}, E.what());
        }
      },
      Limit);
}

smt::SolverOptions solverOptions(const cxxopts::ParseResult &P) {
  smt::SolverOptions S;
  S.TimeoutMs = P["timeout-ms"].as<unsigned>();
  S.MemoryLimitMB = P["memory-mb"].as<unsigned>();
  if (P.count("dump-smt")) {
    S.DumpDir = P["dump-smt"].as<std::string>();
    // Made here, so that a mistyped directory is an error at once rather
    // than a run that silently writes no query.
    std::error_code EC;
    std::filesystem::create_directories(S.DumpDir, EC);
    if (EC || !std::filesystem::is_directory(S.DumpDir))
      throw InputError("cannot write SMT-LIB queries into '" + S.DumpDir +
                       "': " + (EC ? EC.message() : "not a directory"));
  }
  return S;
}

cxxopts::ParseResult parseOrThrow(cxxopts::Options &O, int Argc, char **Argv) {
  try {
    return O.parse(Argc, Argv);
  } catch (const cxxopts::exceptions::exception &E) {
    throw InputError(E.what());
  }
}

/// An absolute path to a file that must exist (a missing one is an input
/// error, not a silent fallback).
std::string readablePath(const std::string &Path) {
  readFile(Path);
  return std::filesystem::absolute(Path).string();
}

ir::Effects loadEffects(ir::Context &C, const std::string &Path) {
  try {
    return ir::parseEffects(C, readFile(Path), Path);
  } catch (const ir::ParseError &E) {
    throw InputError(E.what());
  }
}

/// The stage pairs `check` knows, by their --from and --to names.
stages::PairResult checkPair(ir::Context &C, const std::string &From,
                             const std::string &To, const std::string &Source,
                             const std::string &Target,
                             const std::string &Meta,
                             const std::string &InterfaceFrom,
                             const stages::CheckOptions &Options,
                             const std::string &Function = {}) {
  if (From == "sir" && To == "sir")
    return stages::checkRefinement(C, loadEffects(C, Source),
                                   loadEffects(C, Target), Options);
  if (From == "ttir" && To == "ttgir") {
    readFile(Source); // a missing file is reported as such
    readFile(Target);
    return stages::checkTtirToTtgir(C, Source, Target, Options);
  }
  if (From == "llir" && To == "ptx") {
    readFile(Source);
    readFile(Target);
    stages::LlirToPtxOptions O;
    O.Check = Options;
    O.Function = Function;
    if (!Meta.empty())
      O.FpFusion = bundle::readKernelMetadata(Meta).FpFusion;
    return stages::checkLlirToPtx(C, Source, Target,
                                  llvmir::inferInterface(Source, Function), O);
  }
  if (From == "ttgir" && To == "llir") {
    readFile(Source);
    readFile(Target);
    stages::TtgirToLlirOptions O;
    O.Check = Options;
    O.Libdevice = Options.Libdevice;
    O.Interface = llvmir::inferInterface(Target);
    O.Capability = Options.SmVersion;
    if (!Meta.empty())
      O.LinkedLibdevice = stages::linkedLibdevice(Meta);
    return stages::checkTtgirToLlir(C, Source, Target, O);
  }
  // Two files of one stage (a mutant against its original): the same
  // machinery, bit-exact, no relaxation.
  if (From == To && (From == "ttir" || From == "ttgir")) {
    readFile(Source);
    readFile(Target);
    return stages::checkTtirToTtgir(C, Source, Target, Options);
  }
  if (From == To && (From == "llir" || From == "ptx")) {
    stages::StageText S{readFile(Source), Source}, T{readFile(Target), Target};
    std::string Llir = From == "llir" ? Source : InterfaceFrom;
    if (Llir.empty()) {
      std::filesystem::path Sibling(Source);
      Sibling.replace_extension(".llir");
      if (!std::filesystem::exists(Sibling))
        throw InputError("ptx -> ptx needs --llir FILE (the LLVM IR the "
                         "kernel's element types come from)");
      Llir = Sibling.string();
    }
    readFile(Llir);
    ir::KernelInterface Interface = llvmir::inferInterface(Llir);
    stages::PairResult PerThread = stages::checkSameThreadStage(
        C, From == "llir" ? stages::ThreadStage::Llir : stages::ThreadStage::Ptx,
        S, T, Interface, Options);
    if (From == "ptx" || PerThread.Kind == stages::Verdict::Proved ||
        PerThread.Kind == stages::Verdict::Error)
      return PerThread;
    // Threads that differ may still make one CTA's effects (another lane
    // writes a warp's sum): the CTA decides.
    stages::PairResult Cta = stages::checkSameCta(C, S.Text, S.Name, T.Text,
                                                  T.Name, Interface, Options);
    Cta.Seconds += PerThread.Seconds;
    if (Cta.Kind == stages::Verdict::Unknown)
      Cta.Reason = "per thread: " + std::string(stages::spelling(PerThread.Kind)) +
                   (PerThread.Reason.empty() ? "" : " (" + PerThread.Reason + ")") +
                   "; as one CTA: " + Cta.Reason;
    return Cta;
  }
  throw InputError("stage pair '" + From + " -> " + To +
                   "' is not supported by check (supported: sir -> sir, "
                   "ttir -> ttgir, ttgir -> llir, llir -> ptx, and any of "
                   "ttir, ttgir, llir, "
                   "ptx against itself)");
}

/// llir -> ptx for every function a module defines, one verdict each
/// (a problem with one function's input is its verdict `error`, and the
/// others are still checked); the exit code is the worst verdict's.
int checkEachFunction(const std::string &Source, const std::string &Target,
                      const std::string &Meta,
                      const std::vector<std::pair<std::string, bool>> &Functions,
                      const stages::CheckOptions &Options, double Limit,
                      const std::string &JsonPath) {
  std::cout << "check " << Source << " -> " << Target << "   "
            << smt::spelling(Options.Arithmetic) << " ("
            << smt::meaning(Options.Arithmetic) << "), "
            << Functions.size() << " functions\n";
  stages::Verdict All = stages::Verdict::Proved;
  std::map<stages::Verdict, unsigned> Counts;
  llvm::json::Array Results;
  for (const auto &[Name, IsKernel] : Functions) {
    stages::PairResult R;
    try {
      stages::CheckOptions Mine = Options;
      R = checkWithinLimit(Limit, Mine, [&] {
        ir::Context C; // symbols of one function never meet another's
        return checkPair(C, "llir", "ptx", Source, Target, Meta, "", Mine,
                         Name);
      });
    } catch (const ir::UnsupportedError &E) {
      R.Kind = stages::Verdict::Unknown;
      R.Reason = E.what();
    } catch (const ir::InputError &E) {
      R.Kind = stages::Verdict::Error;
      R.Reason = E.what();
    } catch (const InputError &E) {
      R.Kind = stages::Verdict::Error;
      R.Reason = E.what();
    }
    std::cout << "\n" << (IsKernel ? "kernel " : "function ") << Name << "\n";
    if (R.Kind != stages::Verdict::Error)
      stages::printPairResult(std::cout, R);
    std::cout << "function " << Name << ": " << stages::spelling(R.Kind);
    if (R.Kind == stages::Verdict::Proved && R.Bound != "none")
      std::cout << " within the bound: " << R.Bound;
    if ((R.Kind == stages::Verdict::Unknown ||
         R.Kind == stages::Verdict::Error) &&
        !R.Reason.empty())
      std::cout << ": " << R.Reason;
    std::cout << "\n";
    All = stages::worst(All, R.Kind);
    ++Counts[R.Kind];
    if (!JsonPath.empty()) {
      llvm::json::Value V = tools::checkToJson(Source, Target, R);
      if (auto *O = V.getAsObject())
        (*O)["function"] = Name;
      Results.push_back(std::move(V));
    }
  }
  int Exit = stages::exitCode(All);
  std::cout << "verdict: " << stages::spelling(All) << "   (";
  bool First = true;
  for (const auto &[V, N] : Counts) {
    std::cout << (First ? "" : ", ") << N << " " << stages::spelling(V);
    First = false;
  }
  std::cout << "; exit " << Exit << ")\n";
  if (!JsonPath.empty())
    tools::writeJson(JsonPath, llvm::json::Value(std::move(Results)));
  return Exit;
}

/// The launch of B whose Stage file is File (--launch): one, or an input
/// error saying why not.
const bundle::Launch *launchRunning(const bundle::Manifest &B,
                                    const std::string &Stage,
                                    const std::string &File) {
  std::error_code E;
  auto Same = [&](const std::string &Path) {
    return !Path.empty() && std::filesystem::equivalent(Path, File, E);
  };
  std::vector<const bundle::Launch *> Found;
  for (const bundle::Launch *L : B.launches())
    if (Same(L->file(Stage)))
      Found.push_back(L);
  if (Found.empty())
    throw InputError("no launch of " + B.Dir + " runs " + File +
                     " (--launch names the bundle whose " + Stage +
                     " file is SOURCE)");
  // Launches of one file that differ in grid or scalar arguments are
  // different launches: which one is meant is not for us to pick.
  auto Scalars = [](const bundle::Launch &L) {
    std::vector<std::string> V;
    for (const bundle::LaunchArg &A : L.Args)
      V.push_back(A.isPointer() ? "*" : A.Value.str());
    return V;
  };
  for (const bundle::Launch *L : Found)
    if (L->Grid != Found[0]->Grid || Scalars(*L) != Scalars(*Found[0]))
      throw InputError(B.Dir + " runs " + File + " at " +
                       std::to_string(Found.size()) +
                       " launches that differ: --launch needs one");
  return Found[0];
}

/// "at the launch of DIR: grid 2x1x1, arg2 = 16": what --launch assumed.
std::string launchBound(const bundle::Manifest &B, const bundle::Launch &L) {
  std::ostringstream OS;
  OS << "at the launch of " << B.Dir << ": grid " << L.Grid[0] << "x"
     << L.Grid[1] << "x" << L.Grid[2];
  ir::Context C;
  std::vector<std::string> Values;
  for (auto [Symbol, Value] : stages::launchConstants(C, L, L.interface(B.Tensors)))
    if (Symbol->role() == ir::SymbolRole::Param)
      Values.push_back(Symbol->name() + " = " +
                       ir::Value::ofBits(Value->type(), Value->constBits()).str());
  std::sort(Values.begin(), Values.end());
  for (const std::string &V : Values)
    OS << ", " << V;
  return OS.str();
}

int runCheck(int Argc, char **Argv) {
  cxxopts::Options O("stagecheck check",
                     "Checks that the target stage file means what the source "
                     "stage file means.");
  O.add_options()("from", "stage of the source file (sir, ttir, llir)",
                  cxxopts::value<std::string>()->default_value("sir"))(
      "to", "stage of the target file (sir, ttgir, ptx)",
      cxxopts::value<std::string>()->default_value("sir"))(
      "meta",
      "Triton's metadata of the kernel (<kernel>.json): its fp fusion, "
      "architecture and libdevice (ttgir -> llir, llir -> ptx, llir -> "
      "llir; default: SOURCE's <stem>.json beside it, when there is one)",
      cxxopts::value<std::string>())(
      "libdevice",
      "the libdevice.10.bc the kernel was linked with (ttgir -> llir; "
      "default: the metadata's, else the CUDA toolkit's)",
      cxxopts::value<std::string>())(
      "llir",
      "for ptx -> ptx: the LLVM IR the kernel's element types come from "
      "(default: SOURCE with the extension .llir)",
      cxxopts::value<std::string>())(
      "function",
      "llir -> ptx: the function to check, a kernel or a device function "
      "(default: the module's one kernel, else every function it defines, "
      "one verdict each)",
      cxxopts::value<std::string>())(
      "loop-bound",
      "loops that do not correspond are checked for trip counts up to this",
      cxxopts::value<unsigned>()->default_value("4"))(
      "mode", "arithmetic: ieee (bit-exact) or real (exact reals)",
      cxxopts::value<std::string>()->default_value("ieee"))(
      "launch",
      "only at the launch of this bundle that runs SOURCE: its grid and "
      "scalar arguments are assumed, and the verdict's bound says so",
      cxxopts::value<std::string>())(
      "json", "also write the result as JSON to this file",
      cxxopts::value<std::string>())("h,help", "this help")(
      "files", "SOURCE TARGET", cxxopts::value<std::vector<std::string>>());
  addSolverOptions(O);
  O.parse_positional({"files"});
  O.positional_help("SOURCE TARGET");
  cxxopts::ParseResult P = parseOrThrow(O, Argc, Argv);
  if (P.count("help")) {
    std::cout << O.help() << "\n";
    return 0;
  }
  if (!P.count("files") || P["files"].as<std::vector<std::string>>().size() != 2)
    throw InputError("check needs two files: SOURCE TARGET");
  auto Files = P["files"].as<std::vector<std::string>>();
  stages::CheckOptions Options;
  if (!smt::parseMode(P["mode"].as<std::string>(), Options.Arithmetic))
    throw InputError("unknown --mode '" + P["mode"].as<std::string>() +
                     "' (ieee or real)");
  Options.Solver = solverOptions(P);
  Options.LoopBound = P["loop-bound"].as<unsigned>();
  if (P.count("libdevice"))
    Options.Libdevice = readablePath(P["libdevice"].as<std::string>());

  std::string From = P["from"].as<std::string>(), To = P["to"].as<std::string>();
  std::string Meta = P.count("meta") ? P["meta"].as<std::string>() : "";
  // A bundle keeps a kernel's metadata beside its stage files; without it
  // a check of those files would not know the libdevice or architecture
  // the audit of the same bundle uses.
  bool MetaBeside = false;
  if (Meta.empty() && ((From == "ttgir" && To == "llir") ||
                       (From == "llir" && (To == "ptx" || To == "llir")))) {
    std::filesystem::path Beside =
        std::filesystem::path(Files[0]).replace_extension(".json");
    if (std::filesystem::is_regular_file(Beside)) {
      Meta = Beside.string();
      MetaBeside = true;
    }
  }
  if (!Meta.empty())
    Options.SmVersion = unsigned(bundle::readKernelMetadata(Meta).Capability);
  std::string Function =
      P.count("function") ? P["function"].as<std::string>() : "";
  if (!Function.empty() && !(From == "llir" && To == "ptx"))
    throw InputError("--function is for llir -> ptx");
  if (From == "llir" && To == "ptx" && Function.empty()) {
    readFile(Files[0]);
    auto Functions = llvmir::definedFunctions(Files[0]);
    unsigned Kernels = 0;
    for (const auto &F : Functions)
      Kernels += F.second;
    // A module of one kernel is checked as before; any other (LLVM's
    // codegen tests: device functions) function by function.
    if (Kernels != 1 || Functions.size() != 1)
      return checkEachFunction(Files[0], Files[1], Meta, Functions, Options,
                               pairTimeLimit(P),
                               P.count("json") ? P["json"].as<std::string>()
                                               : "");
  }

  std::string Llir = P.count("llir") ? P["llir"].as<std::string>() : "";
  std::optional<bundle::Manifest> Bundle;
  const bundle::Launch *AtLaunch = nullptr;
  if (P.count("launch")) {
    if (From == "sir" || To == "sir")
      throw InputError("--launch is for the files of a bundle's kernel");
    Bundle = bundle::loadBundle(P["launch"].as<std::string>());
    AtLaunch = launchRunning(*Bundle, From, Files[0]);
  }
  stages::PairResult R = checkWithinLimit(pairTimeLimit(P), Options, [&] {
    ir::Context C;
    stages::CheckOptions Mine = Options;
    if (AtLaunch)
      for (auto [Symbol, Value] : stages::launchConstants(
               C, *AtLaunch, AtLaunch->interface(Bundle->Tensors)))
        Mine.Assumptions.push_back(C.eq(Symbol, Value));
    stages::PairResult X =
        checkPair(C, From, To, Files[0], Files[1], Meta, Llir, Mine, Function);
    if (AtLaunch)
      X.Bound = launchBound(*Bundle, *AtLaunch) +
                (X.Bound == "none" ? "" : "; " + X.Bound);
    return X;
  });

  std::cout << "check " << Files[0] << " -> " << Files[1] << "   "
            << smt::spelling(Options.Arithmetic) << " ("
            << smt::meaning(Options.Arithmetic) << ")\n";
  if (MetaBeside)
    std::cout << "  metadata: " << Meta
              << " (beside the source; --meta names another)\n";
  stages::printPairResult(std::cout, R);
  int Exit = stages::exitCode(R.Kind);
  std::cout << "verdict: " << stages::spelling(R.Kind);
  if (R.Kind == stages::Verdict::Proved && R.Bound != "none")
    std::cout << " within the bound: " << R.Bound;
  if (R.Kind == stages::Verdict::Unknown && !R.Reason.empty())
    std::cout << ": " << R.Reason;
  std::cout << "   (exit " << Exit << ")\n";
  if (P.count("json"))
    tools::writeJson(P["json"].as<std::string>(),
                     tools::checkToJson(Files[0], Files[1], R));
  return Exit;
}

/// `stagecheck lift FILE`: the effects a TTIR/TTGIR file lifts to, for
/// people debugging a verdict. Loops with symbolic trip counts are unrolled
/// --trip-count times (the assumption is printed).
int runLift(int Argc, char **Argv) {
  cxxopts::Options O("stagecheck lift",
                     "Prints the effects a TTIR, TTGIR, LLVM IR or PTX file lifts to.");
  O.add_options()("trip-count",
                  "iterations of loops whose trip count is not a constant",
                  cxxopts::value<uint64_t>()->default_value("1"))(
      "llir", "for a PTX file: the LLVM IR its element types come from",
      cxxopts::value<std::string>())(
      "h,help", "this help")("file", "FILE", cxxopts::value<std::string>());
  O.parse_positional({"file"});
  O.positional_help("FILE");
  cxxopts::ParseResult P = parseOrThrow(O, Argc, Argv);
  if (P.count("help")) {
    std::cout << O.help() << "\n";
    return 0;
  }
  if (!P.count("file"))
    throw InputError("lift needs a file");
  std::string Path = P["file"].as<std::string>();
  readFile(Path);
  ir::Context C;
  auto EndsWith = [&](const std::string &Suffix) {
    return Path.size() >= Suffix.size() &&
           Path.compare(Path.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
  };
  if (EndsWith(".llir") || EndsWith(".ll") || EndsWith(".ptx")) {
    // One thread, with symbolic ids. PTX does not record element types:
    // they come from the LLVM IR (--llir, else the .llir beside the file).
    std::string Llir = Path;
    if (P.count("llir"))
      Llir = P["llir"].as<std::string>();
    else if (EndsWith(".ptx"))
      Llir = Path.substr(0, Path.size() - 4) + ".llir";
    readFile(Llir);
    ir::KernelInterface KI = llvmir::inferInterface(Llir);
    // LLVM IR names no architecture: the metadata beside it does, as in
    // an audit (what a .ftz form means depends on it).
    llvmir::LlvmLiftOptions LO;
    std::filesystem::path Meta =
        std::filesystem::path(Path).replace_extension(".json");
    if (!EndsWith(".ptx") && std::filesystem::is_regular_file(Meta))
      LO.Capability =
          unsigned(bundle::readKernelMetadata(Meta.string()).Capability);
    ptx::ThreadEffects T = EndsWith(".ptx")
                               ? ptx::liftPtxFile(C, Path, KI).Thread
                               : llvmir::liftLlvmFile(C, Path, KI, LO).Thread;
    std::cout << "# kernel " << KI.Kernel << "   one thread of "
              << T.BlockDim[0] << "x" << T.BlockDim[1] << "x" << T.BlockDim[2]
              << "\n";
    for (const std::string &B : T.Bounds)
      std::cout << "# bound: " << B << "\n";
    for (const ir::Expr *A : T.Assumptions)
      std::cout << "# assumes:\n" << ir::printExpr(A);
    for (size_t K = 0; K < T.Exchanges.size(); ++K) {
      const ptx::Exchange &X = T.Exchanges[K];
      std::cout << "# exchange " << K << " " << X.Kind << " under\n"
                << ir::printExpr(X.Guard);
      for (const ir::Expr *Operand : X.Operands)
        std::cout << "#   operand\n" << ir::printExpr(Operand);
    }
    ir::printEffects(std::cout, T.Effects);
    return 0;
  }
  ttir::Module M = ttir::parseModuleFile(Path);
  ttir::LiftOptions LO;
  LO.Loops = ttir::LiftOptions::LoopMode::Cases;
  ttir::LiftResult R = ttir::liftKernel(C, M, LO);
  for (const auto &[Key, From] : R.UnassignedLoops)
    LO.TripCounts[Key] = P["trip-count"].as<uint64_t>();
  if (!LO.TripCounts.empty())
    R = ttir::liftKernel(C, M, LO);
  std::cout << "# kernel " << R.Interface.Kernel << "\n";
  for (const std::string &B : R.Bounds)
    std::cout << "# bound: " << B << "\n";
  for (const ir::Expr *A : R.Assumptions)
    std::cout << "# assumes:\n" << ir::printExpr(A);
  ir::printEffects(std::cout, R.Effects);
  return 0;
}

int runAudit(int Argc, char **Argv) {
  cxxopts::Options O("stagecheck audit",
                     "Checks every stage pair of a bundle (FX -> TTIR -> TTGIR "
                     "-> LLVM IR -> PTX), kernel by kernel.");
  O.add_options()("json", "also write the report as JSON to this file",
                  cxxopts::value<std::string>())(
      "stages",
      "comma-separated pairs to check: fx->ttir, ttir->ttgir, ttgir->llir, "
      "llir->ptx (default: all)",
      cxxopts::value<std::vector<std::string>>())(
      "cache", "reuse and remember verdicts in this directory",
      cxxopts::value<std::string>())(
      "retry-timeouts", "run pairs whose remembered verdict is a timeout again")(
      "libdevice",
      "the libdevice.10.bc the kernels were linked with (default: each "
      "kernel's metadata's, else the CUDA toolkit's)",
      cxxopts::value<std::string>())(
      "h,help", "this help")(
      "bundle", "BUNDLE", cxxopts::value<std::vector<std::string>>());
  addSolverOptions(O);
  O.parse_positional({"bundle"});
  O.positional_help("BUNDLE");
  cxxopts::ParseResult P = parseOrThrow(O, Argc, Argv);
  if (P.count("help")) {
    std::cout << O.help() << "\n";
    return 0;
  }
  if (!P.count("bundle") || P["bundle"].as<std::vector<std::string>>().size() != 1)
    throw InputError("audit needs one bundle directory");
  std::string Dir = P["bundle"].as<std::vector<std::string>>()[0];
  stages::AuditOptions Options;
  Options.Check.Solver = solverOptions(P);
  if (P.count("libdevice"))
    Options.Check.Libdevice = readablePath(P["libdevice"].as<std::string>());
  if (P.count("stages"))
    for (const std::string &Id : P["stages"].as<std::vector<std::string>>()) {
      stages::StagePair Pair;
      if (!stages::parsePairId(Id, Pair))
        throw InputError("unknown stage pair '" + Id +
                         "' (fx->ttir, ttir->ttgir, ttgir->llir, llir->ptx)");
      Options.Pairs.insert(Id);
    }
  bundle::Manifest M = bundle::loadBundle(Dir);
  stages::registerBuiltinCheckers();
  std::optional<tools::DiskResultCache> Cache;
  if (P.count("cache")) {
    Cache.emplace(P["cache"].as<std::string>());
    Options.Cache = &*Cache;
  }
  Options.RetryTimeouts = P.count("retry-timeouts") > 0;
  Options.PairTimeLimitSeconds = pairTimeLimit(P);
  if (Options.PairTimeLimitSeconds > 0)
    Options.RunPairs =
        [Limit = Options.PairTimeLimitSeconds](
            const std::vector<std::function<stages::PairResult()>> &Checks) {
          return tools::runAllWithinLimit(Checks, Limit);
        };
  stages::AuditReport R = stages::audit(M, Options);
  stages::printAudit(std::cout, R);
  if (P.count("json"))
    tools::writeJson(P["json"].as<std::string>(), tools::auditToJson(R));
  return stages::exitCode(R.Overall);
}

int runImport(int Argc, char **Argv) {
  cxxopts::Options O("stagecheck import",
                     "Builds bundles, with no Python, from a TORCH_COMPILE_DEBUG "
                     "run directory and the inductor and Triton caches.");
  O.add_options()("torch-debug",
                  "the directory TORCH_COMPILE_DEBUG_DIR pointed at, or a parent "
                  "(searched recursively)",
                  cxxopts::value<std::string>())(
      "triton-cache",
      "the directory TRITON_CACHE_DIR / TORCHINDUCTOR_CACHE_DIR pointed at, or "
      "a parent (searched recursively)",
      cxxopts::value<std::string>())("o,output", "where the bundles go",
                                     cxxopts::value<std::string>())(
      "h,help", "this help");
  cxxopts::ParseResult P = parseOrThrow(O, Argc, Argv);
  if (P.count("help")) {
    std::cout << O.help() << "\n";
    return 0;
  }
  for (const char *Required : {"torch-debug", "triton-cache", "output"})
    if (!P.count(Required))
      throw InputError(std::string("import needs --") + Required);
  bundle::ImportOptions Options{P["torch-debug"].as<std::string>(),
                                P["triton-cache"].as<std::string>(),
                                P["output"].as<std::string>()};
  for (const bundle::ImportedBundle &B : bundle::importBundles(Options)) {
    std::cout << "bundle " << B.Dir << "   " << B.Launches << " launch"
              << (B.Launches == 1 ? "" : "es") << ", " << B.Externs
              << " extern call" << (B.Externs == 1 ? "" : "s") << "\n";
    for (const std::string &N : B.Notes)
      std::cout << "  note: " << N << "\n";
  }
  return 0;
}

} // namespace

/// Keeps freed memory in this process for the next allocation. Each pair's
/// check makes a solver context (about 20 MB of tables) and frees it; by
/// default glibc maps such blocks afresh and trims the heap, so every pair
/// would pay the page faults again (40 ms a context on a virtual machine).
static void keepFreedMemory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

int main(int Argc, char **Argv) {
  keepFreedMemory();
  try {
    if (Argc < 2) {
      std::cerr << TopHelp;
      return ExitInputError;
    }
    std::string Command = Argv[1];
    if (Command == "-h" || Command == "--help" || Command == "help") {
      std::cout << TopHelp;
      return 0;
    }
    if (Command == "--version" || Command == "version") {
      printVersion();
      return 0;
    }
    if (Command == "check")
      return runCheck(Argc - 1, Argv + 1);
    if (Command == "lift")
      return runLift(Argc - 1, Argv + 1);
    if (Command == "audit")
      return runAudit(Argc - 1, Argv + 1);
    if (Command == "import")
      return runImport(Argc - 1, Argv + 1);
    if (Command == "corpus")
      return tools::runCorpus(Argc - 1, Argv + 1);
    throw InputError("unknown command '" + Command +
                     "' (try stagecheck --help)");
  } catch (const InputError &E) {
    std::cerr << "stagecheck: error: " << E.what() << "\n";
    return ExitInputError;
  } catch (const ir::InputError &E) {
    std::cerr << "stagecheck: error: " << E.what() << "\n";
    return ExitInputError;
  } catch (const ir::IRError &E) {
    std::cerr << "stagecheck: error: " << E.what() << "\n";
    return ExitInputError;
  } catch (const std::exception &E) {
    std::cerr << "stagecheck: internal error: " << E.what() << "\n";
    return ExitInputError;
  }
}

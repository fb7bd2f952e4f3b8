//===- PairLimit.cpp - A stage pair's check within a wall-clock limit -----===//

#include "tools/PairLimit.h"

#include "ir/Errors.h"
#include "ir/Expr.h"
#include "smt/ChildProcess.h"
#include "smt/Solver.h"
#include "tools/Json.h"

#include "llvm/Support/JSON.h"

#include <chrono>
#include <cmath>
#include <sstream>

namespace stagecheck::tools {

namespace {

/// What the child sends back: the result, or the error it stopped on,
/// so the parent fails the way the check would have failed in-process.
std::string answerOf(const std::function<stages::PairResult()> &Check) {
  llvm::json::Object A;
  try {
    A["result"] = pairToJson(Check());
  } catch (const ir::InputError &E) {
    A["input_error"] = std::string(E.what());
  } catch (const ir::UnsupportedError &E) {
    A["unsupported"] = std::string(E.what());
  } catch (const ir::IRError &E) {
    A["ir_error"] = std::string(E.what());
  } catch (const std::exception &E) {
    A["internal_error"] = std::string(E.what());
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(std::move(A));
  OS.flush();
  return Text;
}

stages::PairResult unknown(const std::string &Reason) {
  stages::PairResult R;
  R.Kind = stages::Verdict::Unknown;
  R.Reason = Reason;
  return R;
}

stages::PairResult fromAnswer(const std::string &Answer) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Answer);
  if (!V) {
    llvm::consumeError(V.takeError());
    return unknown("the checker's process gave no readable answer");
  }
  const llvm::json::Object *A = V->getAsObject();
  if (!A)
    return unknown("the checker's process gave no readable answer");
  if (auto M = A->getString("input_error"))
    throw ir::InputError({}, M->str());
  if (auto M = A->getString("unsupported"))
    throw ir::UnsupportedError({}, M->str());
  if (auto M = A->getString("ir_error"))
    throw ir::IRError(M->str());
  if (auto M = A->getString("internal_error"))
    throw std::runtime_error(M->str());
  if (const llvm::json::Value *R = A->get("result"))
    if (std::optional<stages::PairResult> Result = pairFromJson(*R))
      return *Result;
  return unknown("the checker's process gave no readable answer");
}

std::string limitReason(double LimitSeconds) {
  std::ostringstream S;
  S << "timeout: the pair's time limit of " << LimitSeconds
    << " s was reached and the check was stopped (--pair-time-limit-s)";
  return S.str();
}

} // namespace

stages::PairResult
runWithinLimit(const std::function<stages::PairResult()> &Check,
               double LimitSeconds) {
  if (LimitSeconds <= 0)
    return Check();
  using Clock = std::chrono::steady_clock;
  auto Start = Clock::now();
  smt::ChildOptions Child;
  Child.OwnProcessGroup = true; // the solver processes it starts die with it
  double KilledAfter = LimitSeconds + std::min(LimitSeconds, 10.0);
  Child.KillAt = Start + std::chrono::milliseconds(
                             int64_t(std::ceil(KilledAfter * 1000)));
  smt::prepareSolverChildren(); // before the fork: the pair's queries share it
  smt::ChildOutcome C = smt::runInChild([&] { return answerOf(Check); }, Child);
  if (C.How == smt::ChildOutcome::Answered)
    return fromAnswer(C.Answer);
  stages::PairResult R =
      unknown(C.How == smt::ChildOutcome::TimedOut
                  ? limitReason(LimitSeconds)
                  : "the checker's process " + C.Failure);
  R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
  return R;
}

} // namespace stagecheck::tools

//===- PairLimit.cpp - A stage pair's check within a wall-clock limit -----===//

#include "tools/PairLimit.h"

#include "ir/Errors.h"
#include "ir/Expr.h"
#include "smt/ChildProcess.h"
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

std::vector<stages::PairResult>
runAllWithinLimit(const std::vector<std::function<stages::PairResult()>> &Checks,
                  double LimitSeconds) {
  std::vector<stages::PairResult> Results;
  if (LimitSeconds <= 0) {
    for (const auto &Check : Checks)
      Results.push_back(Check());
    return Results;
  }
  using Clock = std::chrono::steady_clock;
  // Checked pairs report by themselves at the limit (Solver.Deadline); the
  // child is killed only when one has not answered a while later.
  auto KilledAfter = std::chrono::milliseconds(int64_t(
      std::ceil((LimitSeconds + std::min(LimitSeconds, 10.0)) * 1000)));
  // The context solver children inherit is made in the pairs' child when
  // its first query needs one: most pairs of a small kernel need none, and
  // making one costs tens of milliseconds.
  while (Results.size() < Checks.size()) {
    smt::ChildSeries Series(
        Results.size(), Checks.size(),
        [&](size_t I) { return answerOf(Checks[I]); },
        /*OwnProcessGroup=*/true); // its solver processes die with it
    while (!Series.ended() && Results.size() < Checks.size()) {
      auto Start = Clock::now();
      smt::ChildOutcome C = Series.next(Start + KilledAfter);
      if (C.How == smt::ChildOutcome::Answered) {
        Results.push_back(fromAnswer(C.Answer));
        continue;
      }
      // This pair gets its verdict; the pairs after it, a new child.
      stages::PairResult R =
          unknown(C.How == smt::ChildOutcome::TimedOut
                      ? limitReason(LimitSeconds)
                      : "the checker's process " + C.Failure);
      R.Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
      Results.push_back(std::move(R));
    }
  }
  return Results;
}

stages::PairResult
runWithinLimit(const std::function<stages::PairResult()> &Check,
               double LimitSeconds) {
  return runAllWithinLimit({Check}, LimitSeconds).front();
}

} // namespace stagecheck::tools

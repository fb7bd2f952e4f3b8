//===- Json.h - Machine-readable results ------------------------*- C++ -*-===//
#ifndef STAGECHECK_TOOLS_JSON_H
#define STAGECHECK_TOOLS_JSON_H

#include "stages/Pipeline.h"
#include "stages/Refinement.h"

#include <llvm/Support/JSON.h>
#include <optional>
#include <string>

namespace stagecheck::tools {

llvm::json::Value pairToJson(const stages::PairResult &R);
/// The inverse of pairToJson (for cached verdicts); nullopt if malformed.
std::optional<stages::PairResult> pairFromJson(const llvm::json::Value &V);
llvm::json::Value checkToJson(const std::string &Source,
                              const std::string &Target,
                              const stages::PairResult &R);
/// The audit report (schema: docs/audit-report.schema.json).
llvm::json::Value auditToJson(const stages::AuditReport &R);
/// Writes V to Path; throws std::runtime_error when the file cannot be written.
void writeJson(const std::string &Path, const llvm::json::Value &V);

} // namespace stagecheck::tools

#endif

#include "LlirMutants.h"

#include "tests/support/TextLines.h"

#include <map>
#include <regex>
#include <sstream>
#include <vector>

namespace stagecheck::test {

const char *spelling(LlirMutation M) {
  switch (M) {
  case LlirMutation::ShuffleLane:
    return "shuffle_lane";
  case LlirMutation::DropBarrier:
    return "drop_barrier";
  case LlirMutation::SharedIndex:
    return "shared_index";
  case LlirMutation::ThreadElement:
    return "thread_element";
  case LlirMutation::AsmStoreLane:
    return "asm_store_lane";
  case LlirMutation::ReduxOperation:
    return "redux_operation";
  }
  return "?";
}

namespace {

/// The mutated line, or nullopt where M does not apply. Instructions added
/// go on the same line (LLVM's parser reads them as separate instructions).
std::optional<std::string> mutateLine(const std::string &L, LlirMutation M,
                                      const std::string &Tid) {
  std::smatch Match;
  switch (M) {
  case LlirMutation::ShuffleLane: {
    static const std::regex R(
        R"((@llvm\.nvvm\.shfl\.sync\.\w+\.(?:i32|f32)\(i32 -?\d+, (?:i32|float) [^,]+, i32 )(\d+))");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    long Lane = std::stol(Match[2].str());
    long To = Lane >= 2 ? Lane / 2 : Lane + 1;
    return Match.prefix().str() + Match[1].str() + std::to_string(To) +
           Match.suffix().str();
  }
  case LlirMutation::SharedIndex: {
    // The address of a shared-memory load moved by one element, on the
    // load's own line.
    static const std::regex R(
        R"(^(\s*)(.*(?:ld\.shared\.b32|= load \w+, ).*ptr addrspace\(3\) )(%[\w.]+))");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    return Match[1].str() + "%stagecheck.mutant = getelementptr i8, ptr " +
           "addrspace(3) " + Match[3].str() + ", i32 4 " + Match[2].str() +
           "%stagecheck.mutant" + Match.suffix().str();
  }
  case LlirMutation::ThreadElement: {
    if (Tid.empty())
      return std::nullopt;
    std::regex R("(= and i32 " + Tid + ", )(\\d+)");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    return Match.prefix().str() + Match[1].str() +
           std::to_string(std::stol(Match[2].str()) - 1) + Match.suffix().str();
  }
  case LlirMutation::AsmStoreLane: {
    static const std::regex R(
        R"((asm sideeffect "@\$\d+ st\.global\.v[24]\.b\d+ .*"\()(i\d+ %\w+), (i\d+ %\w+))");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    return Match.prefix().str() + Match[1].str() + Match[3].str() + ", " +
           Match[2].str() + Match.suffix().str();
  }
  case LlirMutation::ReduxOperation: {
    static const std::regex R(R"(call i32 @llvm\.nvvm\.redux\.sync\.(or|and|min|max)\()");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    static const std::map<std::string, std::string> Other = {
        {"or", "and"}, {"and", "or"}, {"min", "max"}, {"max", "min"}};
    return Match.prefix().str() + "call i32 @llvm.nvvm.redux.sync." +
           Other.at(Match[1].str()) + "(" + Match.suffix().str();
  }
  case LlirMutation::DropBarrier:
    break;
  }
  return std::nullopt;
}

} // namespace

std::optional<LlirMutant> mutateLlir(const std::string &Text, LlirMutation M) {
  std::vector<std::string> Lines = linesOf(Text);
  if (M == LlirMutation::DropBarrier) {
    static const std::regex Barrier(R"(^\s*(tail )?call void @llvm\.nvvm\.barrier)");
    static const std::regex SharedLoad(
        R"(ld\.shared|= load [^,]+, ptr addrspace\(3\))");
    for (size_t K = 0; K < Lines.size(); ++K) {
      if (!std::regex_search(Lines[K], Barrier))
        continue;
      for (size_t J = K + 1; J < Lines.size(); ++J)
        if (std::regex_search(Lines[J], SharedLoad)) {
          Lines[K] = "";
          return LlirMutant{joined(Lines), unsigned(J + 1)};
        }
    }
    return std::nullopt;
  }
  // The thread id's value name (for the element arithmetic).
  std::string Tid;
  static const std::regex TidRead(R"((%\w+) = (?:tail )?call i32 @llvm\.nvvm\.read\.ptx\.sreg\.tid\.x\(\))");
  for (const std::string &L : Lines) {
    std::smatch Match;
    if (std::regex_search(L, Match, TidRead)) {
      Tid = Match[1].str();
      break;
    }
  }
  for (size_t K = 0; K < Lines.size(); ++K)
    if (std::optional<std::string> Mutated = mutateLine(Lines[K], M, Tid)) {
      Lines[K] = *Mutated;
      return LlirMutant{joined(Lines), unsigned(K + 1)};
    }
  return std::nullopt;
}

} // namespace stagecheck::test

#include "PtxMutants.h"

#include "tests/support/TextLines.h"

#include <regex>
#include <sstream>
#include <vector>

namespace stagecheck::test {

const char *spelling(PtxMutation M) {
  switch (M) {
  case PtxMutation::SetpPredicate:
    return "setp_predicate";
  case PtxMutation::Immediate:
    return "immediate";
  case PtxMutation::DropGuard:
    return "drop_guard";
  case PtxMutation::AddToSub:
    return "add_to_sub";
  case PtxMutation::ShuffleOffset:
    return "shuffle_offset";
  case PtxMutation::CvtRounding:
    return "cvt_rounding";
  case PtxMutation::SwapV4Lanes:
    return "swap_v4_lanes";
  case PtxMutation::ReduxOperation:
    return "redux_operation";
  }
  return "?";
}

namespace {

/// The mutated line, or nullopt where M does not apply.
std::optional<std::string> mutateLine(const std::string &L, PtxMutation M) {
  std::smatch Match;
  switch (M) {
  case PtxMutation::SetpPredicate: {
    static const std::regex R(R"(setp\.(lt|le|gt|ge|ltu|leu|gtu|geu|eq|ne)\.)");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    static const std::pair<const char *, const char *> Flip[] = {
        {"lt", "le"},   {"le", "lt"},   {"gt", "ge"},   {"ge", "gt"},
        {"ltu", "leu"}, {"leu", "ltu"}, {"gtu", "geu"}, {"geu", "gtu"},
        {"eq", "ne"},   {"ne", "eq"}};
    for (auto [From, To] : Flip)
      if (Match[1] == From)
        return Match.prefix().str() + "setp." + To + "." + Match.suffix().str();
    return std::nullopt;
  }
  case PtxMutation::Immediate: {
    static const std::regex R(
        R"(((?:add|mul|and|or|shl|shr)\.[\w.]+\s+%\w+,\s*%\w+,\s*)(-?\d+);)");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    return Match.prefix().str() + Match[1].str() +
           std::to_string(std::stoll(Match[2].str()) + 1) + ";" +
           Match.suffix().str();
  }
  case PtxMutation::DropGuard: {
    static const std::regex R(R"(@%p\d+\s+(st\.))");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    return Match.prefix().str() + Match[1].str() + Match.suffix().str();
  }
  case PtxMutation::AddToSub: {
    static const std::regex R(R"(\badd\.(f32|s32|u32|s64|u64)\b)");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    return Match.prefix().str() + "sub." + Match[1].str() + Match.suffix().str();
  }
  case PtxMutation::ShuffleOffset: {
    static const std::regex R(R"((shfl\.sync\.\w+\.b32\s+%r\d+,\s*%r\d+,\s*)(\d+),)");
    if (!std::regex_search(L, Match, R) || std::stoi(Match[2].str()) < 2)
      return std::nullopt;
    return Match.prefix().str() + Match[1].str() +
           std::to_string(std::stoi(Match[2].str()) / 2) + "," +
           Match.suffix().str();
  }
  case PtxMutation::ReduxOperation: {
    static const std::regex R(R"(redux\.sync\.(or|and|min|max)\.)");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    std::string To = Match[1] == "or"    ? "and"
                     : Match[1] == "and" ? "or"
                     : Match[1] == "min" ? "max"
                                         : "min";
    return Match.prefix().str() + "redux.sync." + To + "." +
           Match.suffix().str();
  }
  case PtxMutation::CvtRounding: {
    static const std::regex R(R"(cvt\.(rn|rz|rm|rp)\.)");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    std::string To = Match[1] == "rn"   ? "rz"
                     : Match[1] == "rz" ? "rn"
                     : Match[1] == "rm" ? "rp"
                                        : "rm";
    return Match.prefix().str() + "cvt." + To + "." + Match.suffix().str();
  }
  case PtxMutation::SwapV4Lanes: {
    // Lanes 0 and 2: a swap of lanes 0 and 1 can be equivalent (a sum
    // that adds them first).
    static const std::regex R(
        R"((\.v4\.[\w.]+\s+(?:\[[^\]]*\],\s*)?\{\s*)(%\w+),\s*(%\w+),\s*(%\w+),)");
    if (!std::regex_search(L, Match, R))
      return std::nullopt;
    return Match.prefix().str() + Match[1].str() + Match[4].str() + ", " +
           Match[3].str() + ", " + Match[2].str() + "," + Match.suffix().str();
  }
  }
  return std::nullopt;
}

} // namespace

std::optional<PtxMutant> mutatePtx(const std::string &Text, PtxMutation M,
                                   const std::string &Anchor) {
  std::vector<std::string> Lines = linesOf(Text);
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (Lines[I].find(Anchor) == std::string::npos)
      continue;
    if (auto New = mutateLine(Lines[I], M)) {
      Lines[I] = *New;
      return PtxMutant{joined(Lines), unsigned(I + 1)};
    }
  }
  return std::nullopt;
}

} // namespace stagecheck::test

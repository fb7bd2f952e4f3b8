#include "Mutants.h"

#include "tests/support/TextLines.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

namespace stagecheck::test {

const char *spelling(Mutation M) {
  switch (M) {
  case Mutation::ChangeConstant:
    return "changed constant";
  case Mutation::FlipPredicate:
    return "flipped predicate";
  case Mutation::DropMask:
    return "dropped mask";
  case Mutation::SwapOperands:
    return "swapped operands";
  case Mutation::WrongCombiner:
    return "wrong reduce combiner";
  case Mutation::OffByOneRange:
    return "off-by-one make_range";
  case Mutation::ConvertLayoutShape:
    return "wrong convert_layout shape";
  }
  return "?";
}

std::string opOnLine(const std::string &Line) {
  static const std::regex Op(R"(^\s*(?:%[^=]+=\s*)?"?([a-z_]+\.[a-z_.]+))");
  std::smatch Match;
  return std::regex_search(Line, Match, Op) ? Match[1].str() : "";
}

namespace {

std::string changedValue(const std::string &V) {
  if (V == "true")
    return "false";
  if (V == "false")
    return "true";
  if (V.rfind("0x", 0) == 0) // a float's bit pattern: a plain other value
    return "1.250000e+00";
  if (V.find_first_of(".eE") != std::string::npos) {
    char Buf[64];
    std::snprintf(Buf, sizeof Buf, "%e", std::strtod(V.c_str(), nullptr) + 0.375);
    return Buf;
  }
  return std::to_string(std::strtoll(V.c_str(), nullptr, 10) + 3);
}

std::optional<std::string> changeConstant(const std::string &L) {
  if (opOnLine(L) != "arith.constant")
    return std::nullopt;
  static const std::regex Dense(R"(dense<([^>\[\]]+)>)");
  static const std::regex Plain(R"(arith\.constant (-?[0-9a-fx.e+-]+|true|false)( :| loc|$))");
  std::smatch M;
  if (std::regex_search(L, M, Dense))
    return M.prefix().str() + "dense<" + changedValue(M[1].str()) + ">" +
           M.suffix().str();
  if (std::regex_search(L, M, Plain))
    return M.prefix().str() + "arith.constant " + changedValue(M[1].str()) +
           M[2].str() + M.suffix().str();
  return std::nullopt;
}

std::optional<std::string> flipPredicate(const std::string &L) {
  static const std::map<std::string, std::string> Negated = {
      {"eq", "ne"},   {"ne", "eq"},   {"slt", "sge"}, {"sge", "slt"},
      {"sle", "sgt"}, {"sgt", "sle"}, {"ult", "uge"}, {"uge", "ult"},
      {"ule", "ugt"}, {"ugt", "ule"}, {"oeq", "une"}, {"une", "oeq"},
      {"olt", "uge"}, {"ole", "ugt"}, {"ogt", "ule"}, {"oge", "ult"},
      {"one", "ueq"}, {"ueq", "one"}, {"ord", "uno"}, {"uno", "ord"}};
  static const std::regex Cmp(R"((arith\.cmp[if]) ([a-z]+),)");
  std::smatch M;
  if (!std::regex_search(L, M, Cmp))
    return std::nullopt;
  auto It = Negated.find(M[2].str());
  if (It == Negated.end())
    return std::nullopt;
  return M.prefix().str() + M[1].str() + " " + It->second + "," +
         M.suffix().str();
}

std::optional<std::string> dropMask(const std::string &L) {
  std::string Op = opOnLine(L);
  std::smatch M;
  if (Op == "tt.store") {
    static const std::regex Store(R"(tt\.store (%[^,\s]+), (%[^,\s]+), (%[^\s:,]+))");
    if (std::regex_search(L, M, Store))
      return M.prefix().str() + "tt.store " + M[1].str() + ", " + M[2].str() +
             M.suffix().str();
  }
  if (Op == "tt.load") {
    static const std::regex Load(R"(tt\.load (%[^,\s]+), (%[^,\s:]+)(, %[^\s:,]+)?)");
    if (std::regex_search(L, M, Load))
      return M.prefix().str() + "tt.load " + M[1].str() + M.suffix().str();
  }
  if (Op == "ttg.async_copy_global_to_local") {
    static const std::regex Mask(R"( mask %[^\s]+( other %[^\s]+)?)");
    if (std::regex_search(L, M, Mask))
      return M.prefix().str() + M.suffix().str();
  }
  return std::nullopt;
}

std::optional<std::string> swapOperands(const std::string &L) {
  static const std::regex Binary(R"((arith\.(?:subf|divf)) (%[^,\s]+), (%[^\s:,]+))");
  std::smatch M;
  if (!std::regex_search(L, M, Binary) || M[2].str() == M[3].str())
    return std::nullopt;
  return M.prefix().str() + M[1].str() + " " + M[3].str() + ", " + M[2].str() +
         M.suffix().str();
}

std::optional<std::string> wrongCombiner(const std::string &L) {
  static const std::map<std::string, std::string> Other = {
      {"arith.addf", "arith.mulf"},       {"arith.mulf", "arith.addf"},
      {"arith.maxnumf", "arith.minnumf"}, {"arith.minnumf", "arith.maxnumf"},
      {"arith.maximumf", "arith.minimumf"}, {"arith.minimumf", "arith.maximumf"},
      {"arith.addi", "arith.muli"},       {"arith.maxsi", "arith.minsi"}};
  std::string Op = opOnLine(L);
  auto It = Other.find(Op);
  if (It == Other.end())
    return std::nullopt;
  size_t At = L.find(Op);
  return L.substr(0, At) + It->second + L.substr(At + Op.size());
}

std::optional<std::string> offByOneRange(const std::string &L) {
  if (opOnLine(L) != "tt.make_range")
    return std::nullopt;
  static const std::regex Bound(R"((start|end) = (-?[0-9]+))");
  std::string Out;
  std::string Rest = L;
  std::smatch M;
  int Changed = 0;
  while (std::regex_search(Rest, M, Bound)) {
    Out += M.prefix().str() + M[1].str() + " = " +
           std::to_string(std::stoll(M[2].str()) + 1);
    Rest = M.suffix().str();
    ++Changed;
  }
  if (Changed != 2)
    return std::nullopt;
  return Out + Rest;
}

std::optional<std::string> convertLayoutShape(const std::string &L) {
  if (opOnLine(L) != "ttg.convert_layout")
    return std::nullopt;
  size_t Arrow = L.find("-> tensor<");
  if (Arrow == std::string::npos)
    return std::nullopt;
  size_t Pos = Arrow + 10;
  // The first dimension of at least 2 is halved.
  while (Pos < L.size() && std::isdigit((unsigned char)L[Pos])) {
    size_t End = Pos;
    while (End < L.size() && std::isdigit((unsigned char)L[End]))
      ++End;
    if (End >= L.size() || L[End] != 'x')
      return std::nullopt;
    long D = std::stol(L.substr(Pos, End - Pos));
    if (D >= 2)
      return L.substr(0, Pos) + std::to_string(D / 2) + L.substr(End);
    Pos = End + 1;
  }
  return std::nullopt;
}

std::optional<std::string> mutateLine(const std::string &L, Mutation M,
                                      bool InReduce) {
  switch (M) {
  case Mutation::ChangeConstant:
    return changeConstant(L);
  case Mutation::FlipPredicate:
    return flipPredicate(L);
  case Mutation::DropMask:
    return dropMask(L);
  case Mutation::SwapOperands:
    return swapOperands(L);
  case Mutation::WrongCombiner:
    return InReduce ? wrongCombiner(L) : std::nullopt;
  case Mutation::OffByOneRange:
    return offByOneRange(L);
  case Mutation::ConvertLayoutShape:
    return convertLayoutShape(L);
  }
  return std::nullopt;
}

/// Per line: whether it lies inside a tt.reduce combine region.
std::vector<bool> reduceRegions(const std::vector<std::string> &Ls) {
  std::vector<bool> In(Ls.size(), false);
  bool Inside = false;
  for (size_t I = 0; I < Ls.size(); ++I) {
    if (Ls[I].find("\"tt.reduce\"(") != std::string::npos) {
      Inside = true;
      continue;
    }
    if (Inside && Ls[I].find("})") != std::string::npos) {
      Inside = false;
      continue;
    }
    In[I] = Inside;
  }
  return In;
}

} // namespace

std::vector<unsigned> sites(const std::string &Text, Mutation M) {
  std::vector<std::string> Ls = linesOf(Text);
  std::vector<bool> InReduce = reduceRegions(Ls);
  std::vector<unsigned> Out;
  for (size_t I = 0; I < Ls.size(); ++I)
    if (mutateLine(Ls[I], M, InReduce[I]))
      Out.push_back(unsigned(I + 1));
  return Out;
}

std::optional<Mutant> mutate(const std::string &Text, Mutation M,
                             const std::string &Anchor) {
  std::vector<std::string> Ls = linesOf(Text);
  std::vector<bool> InReduce = reduceRegions(Ls);
  for (size_t I = 0; I < Ls.size(); ++I) {
    if (Ls[I].find(Anchor) == std::string::npos)
      continue;
    std::optional<std::string> Changed = mutateLine(Ls[I], M, InReduce[I]);
    if (!Changed)
      continue;
    Mutant Out;
    Out.Line = unsigned(I + 1);
    Out.Op = opOnLine(*Changed);
    Ls[I] = *Changed;
    Out.Text = joined(Ls);
    return Out;
  }
  return std::nullopt;
}

} // namespace stagecheck::test

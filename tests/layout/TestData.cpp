#include "TestData.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace stagecheck::layout::test {

namespace fs = std::filesystem;

std::string testDir() { return STAGECHECK_TEST_DIR; }

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    throw std::runtime_error("cannot read " + Path);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

static std::vector<std::vector<int32_t>> basesOf(const llvm::json::Array &A) {
  std::vector<std::vector<int32_t>> R;
  for (const auto &V : A) {
    std::vector<int32_t> B;
    for (const auto &X : *V.getAsArray())
      B.push_back(int32_t(*X.getAsInteger()));
    R.push_back(std::move(B));
  }
  return R;
}

std::vector<GroundTruthCase> loadCases(const std::string &File,
                                       const std::string &Key) {
  std::string Path = testDir() + "/layout/ground_truth/" + File;
  auto Parsed = llvm::json::parse(readFile(Path));
  if (!Parsed)
    throw std::runtime_error("bad JSON in " + Path + ": " +
                             llvm::toString(Parsed.takeError()));
  std::vector<GroundTruthCase> Cases;
  const llvm::json::Array *Arr = Parsed->getAsObject()->getArray(Key);
  unsigned Index = 0;
  for (const auto &V : *Arr) {
    const llvm::json::Object &O = *V.getAsObject();
    GroundTruthCase C;
    C.Encoding = O.getString("encoding")->str();
    if (const auto *A = O.getObject("aliases"))
      for (const auto &[K, T] : *A)
        C.Aliases[K.str()] = T.getAsString()->str();
    for (const auto &X : *O.getArray("shape"))
      C.Shape.push_back(*X.getAsInteger());
    if (const auto *B = O.getObject("bases"))
      for (const auto &[K, A] : *B)
        C.Bases[K.str()] = basesOf(*A.getAsArray());
    if (const auto *T = O.getArray("tid"))
      for (const auto &X : *T)
        C.Tids.push_back(int32_t(*X.getAsInteger()));
    if (auto W = O.getInteger("num_warps"))
      C.NumWarps = int(*W);
    std::string Name;
    if (auto N = O.getString("name"))
      Name = N->str();
    else if (auto N = O.getString("test"))
      Name = N->str();
    C.Label = File + "[" + std::to_string(Index++) + "]" +
              (Name.empty() ? "" : " " + Name) + " " + C.Encoding + " " +
              shapeStr(C.Shape);
    Cases.push_back(std::move(C));
  }
  return Cases;
}

EncodingPtr parseCase(const GroundTruthCase &C) {
  AliasResolver R = [&C](std::string_view Name) -> std::optional<AliasText> {
    auto It = C.Aliases.find(std::string(Name));
    if (It == C.Aliases.end())
      return std::nullopt;
    return AliasText{It->second, {}};
  };
  return parseEncoding(C.Encoding, R, {});
}

LinearLayout tritonLayout(const GroundTruthCase &C) {
  std::vector<LinearLayout::InDim> Ins;
  for (const char *Name : {kRegister, kLane, kWarp, kOffset, kBlock}) {
    auto It = C.Bases.find(Name);
    if (It != C.Bases.end())
      Ins.push_back({Name, It->second});
  }
  std::vector<LinearLayout::OutDim> Outs;
  for (unsigned D = 0; D < C.Shape.size(); ++D) {
    unsigned Log = 0;
    while ((int64_t(1) << Log) < C.Shape[D])
      ++Log;
    Outs.push_back({outDimName(D), Log});
  }
  return LinearLayout(std::move(Ins), std::move(Outs));
}

static size_t balancedEnd(const std::string &L, size_t Open) {
  int Depth = 0;
  for (size_t I = Open; I < L.size(); ++I) {
    if (L[I] == '<')
      ++Depth;
    else if (L[I] == '>' && (I == 0 || L[I - 1] != '-')) {
      if (--Depth == 0)
        return I + 1;
    }
  }
  return std::string::npos;
}

std::vector<EncodingUse> encodingUses(const std::string &ModuleText,
                                      const std::string &File) {
  std::vector<EncodingUse> Uses;
  for (const auto &[Name, Def] : parseAliasDefinitions(ModuleText, File))
    if (Def.Text.rfind("#ttg.", 0) == 0 &&
        Def.Text.rfind("#ttg.shared_memory", 0) != 0)
      Uses.push_back({Def.Text, Def.Where, false, false, {}});

  std::istringstream In(ModuleText);
  std::string L;
  unsigned Line = 0;
  while (std::getline(In, L)) {
    ++Line;
    for (const char *Opener : {"tensor<", "!ttg.memdesc<"}) {
      bool MemDesc = Opener[0] == '!';
      size_t From = 0;
      while (true) {
        size_t At = L.find(Opener, From);
        if (At == std::string::npos)
          break;
        From = At + 1;
        if (!MemDesc && At > 0 &&
            (std::isalnum((unsigned char)L[At - 1]) || L[At - 1] == '_' ||
             L[At - 1] == '.'))
          continue;
        size_t Open = At + std::string(Opener).size() - 1;
        size_t End = balancedEnd(L, Open);
        if (End == std::string::npos)
          continue;
        // Split the body at top-level commas.
        std::vector<std::pair<size_t, std::string>> Parts;
        int Depth = 0;
        size_t PartStart = Open + 1;
        for (size_t I = Open + 1; I < End - 1; ++I) {
          char Ch = L[I];
          if (Ch == '<' || Ch == '{' || Ch == '[')
            ++Depth;
          else if ((Ch == '>' && L[I - 1] != '-') || Ch == '}' || Ch == ']')
            --Depth;
          if (Ch == ',' && Depth == 0) {
            Parts.push_back({PartStart, L.substr(PartStart, I - PartStart)});
            PartStart = I + 1;
          }
        }
        Parts.push_back({PartStart, L.substr(PartStart, End - 1 - PartStart)});
        if (Parts.size() < 2)
          continue;
        size_t EncAt = Parts[1].first;
        while (EncAt < L.size() && L[EncAt] == ' ')
          ++EncAt;
        std::string Enc =
            L.substr(EncAt, Parts[1].first + Parts[1].second.size() - EncAt);
        if (Enc.empty() || Enc[0] != '#')
          continue;
        std::vector<int64_t> Shape;
        const std::string &Dims = Parts[0].second;
        size_t P = 0;
        while (P < Dims.size() && std::isdigit((unsigned char)Dims[P])) {
          size_t Q = P;
          while (Q < Dims.size() && std::isdigit((unsigned char)Dims[Q]))
            ++Q;
          if (Q >= Dims.size() || Dims[Q] != 'x')
            break;
          Shape.push_back(std::stoll(Dims.substr(P, Q - P)));
          P = Q + 1;
        }
        Uses.push_back(
            {Enc, {File, Line, unsigned(EncAt + 1)}, true, MemDesc, Shape});
      }
    }
  }
  return Uses;
}

std::vector<std::string> ttgirFiles() {
  std::vector<std::string> Files;
  for (const std::string &Root :
       {testDir() + "/corpus", testDir() + "/layout/ttgir"}) {
    for (const auto &E : fs::recursive_directory_iterator(Root))
      if (E.is_regular_file() && E.path().extension() == ".ttgir")
        Files.push_back(E.path().string());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::vector<std::vector<int64_t>> allElements(const std::vector<int64_t> &S) {
  int64_t N = 1;
  for (int64_t D : S)
    N *= D;
  std::vector<std::vector<int64_t>> R;
  R.reserve(N);
  for (int64_t Flat = 0; Flat < N; ++Flat) {
    std::vector<int64_t> E(S.size());
    int64_t X = Flat;
    for (int K = int(S.size()) - 1; K >= 0; --K) {
      E[K] = X % S[K];
      X /= S[K];
    }
    R.push_back(std::move(E));
  }
  return R;
}

std::string shapeStr(const std::vector<int64_t> &S) {
  std::string R = "[";
  for (unsigned I = 0; I < S.size(); ++I)
    R += (I ? ", " : "") + std::to_string(S[I]);
  return R + "]";
}

} // namespace stagecheck::layout::test

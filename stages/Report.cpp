#include "stages/Report.h"

#include <cstdio>
#include <ostream>

using namespace stagecheck::ir;

namespace stagecheck::stages {

static std::string seconds(double S) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.2f s", S);
  return Buf;
}

static std::string padded(const std::string &S, size_t Width) {
  return S.size() >= Width ? S + " " : S + std::string(Width - S.size(), ' ');
}

static std::string origin(const Origin &O) {
  std::string S;
  if (O.Loc.known())
    S += O.Loc.str();
  if (!O.Op.empty())
    S += (S.empty() ? "" : "  ") + O.Op;
  return S;
}

void printCounterexample(std::ostream &OS, const Counterexample &X,
                         const std::string &Indent) {
  OS << Indent << X.Explanation << "\n";
  for (const std::string &Note : X.Notes)
    OS << Indent << Note << "\n";
  std::string Inputs;
  // A missing barrier leaves a CTA's racing loads ("t<K>.raced.smem@P[i]",
  // stages/CtaModel.h) free, bytes by the hundred: list those not zero.
  auto Raced = [](const std::string &Name) {
    return Name.find(".raced.") != std::string::npos;
  };
  size_t RacedCount = 0;
  for (const auto &Entry : X.Inputs.symbols())
    RacedCount += Raced(Entry.first);
  size_t RacedOmitted = 0;
  for (const auto &[Name, V] : X.Inputs.symbols()) {
    if (RacedCount > 8 && Raced(Name) && V.Bits == 0) {
      ++RacedOmitted;
      continue;
    }
    Inputs += "  " + Name + " = " + V.str();
  }
  if (RacedOmitted)
    Inputs += RacedOmitted == RacedCount
                  ? "  every racing load's byte = 0"
                  : "  every other racing load's byte = 0";
  // Many reads (a reduction's row): list those that are not zero.
  bool Summarize = X.Inputs.reads().size() > 8;
  bool Omitted = false, Listed = false;
  for (const auto &[Key, V] : X.Inputs.reads()) {
    if (Summarize && V.Bits == 0) {
      Omitted = true;
      continue;
    }
    Listed = true;
    Inputs +=
        "  " + Key.first + "[" + std::to_string(Key.second) + "] = " + V.str();
  }
  if (Omitted)
    Inputs += Listed ? "  every other element read = 0"
                     : "  every element read = 0";
  if (!Inputs.empty())
    OS << Indent << "input  " << Inputs << "\n";
  for (const Env::CallPoint &P : X.Inputs.calls()) {
    OS << Indent << "assumed " << P.Function << "(";
    for (size_t I = 0; I < P.Args.size(); ++I)
      OS << (I ? ", " : "") << P.Args[I].str();
    OS << ") = " << P.Result.str() << "\n";
  }
  if (!X.Index)
    return;
  std::string At = X.Buffer + "[" + std::to_string(*X.Index) + "]";
  auto Side = [&](const char *Label, const std::optional<Value> &V, bool Poison,
                  const Origin &O) {
    OS << Indent << Label << At << " = ";
    if (!V)
      OS << "(not written)";
    else
      OS << V->str() << (Poison ? " (poison)" : "");
    std::string Where = origin(O);
    if (!Where.empty())
      OS << "   from " << Where;
    OS << "\n";
  };
  Side("source  ", X.Source, X.SourcePoison, X.SourceOrigin);
  Side("target  ", X.Target, X.TargetPoison, X.TargetOrigin);
}

void printPairResult(std::ostream &OS, const PairResult &R,
                     const std::string &Indent) {
  for (const QueryReport &Q : R.Queries) {
    OS << Indent << padded(Q.Name, 36) << padded(smt::spelling(Q.Outcome), 16)
       << seconds(Q.Seconds);
    if (!Q.Reason.empty())
      OS << "   (" << Q.Reason << ")";
    OS << "\n";
    if (!Q.DumpedTo.empty())
      OS << Indent << "  smt-lib: " << Q.DumpedTo << "\n";
  }
  if (R.Bound != "none" && !R.Bound.empty())
    OS << Indent << "bound: " << R.Bound << "\n";
  for (size_t K = 0; K < R.Relaxations.size(); ++K)
    OS << Indent << (K ? "             " : "relaxations: ") << R.Relaxations[K]
       << "\n";
  if (R.Cex)
    printCounterexample(OS, *R.Cex, Indent + "    ");
  else if (R.Kind == Verdict::Unknown && !R.Reason.empty())
    OS << Indent << "    unknown: " << R.Reason << "\n";
}

} // namespace stagecheck::stages

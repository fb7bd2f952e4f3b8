#include "layout/LinearLayout.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <sstream>

namespace stagecheck::layout {

std::string outDimName(unsigned D) { return "dim" + std::to_string(D); }

std::vector<std::string> standardOutDimNames(unsigned Rank) {
  std::vector<std::string> Names;
  for (unsigned D = 0; D < Rank; ++D)
    Names.push_back(outDimName(D));
  return Names;
}

static bool isPowerOf2(int64_t X) { return X > 0 && (X & (X - 1)) == 0; }

static unsigned log2Exact(int64_t X) {
  assert(isPowerOf2(X) && "layout sizes are powers of two");
  unsigned L = 0;
  while ((int64_t(1) << L) < X)
    ++L;
  return L;
}

static unsigned bitLength(uint64_t X) {
  unsigned L = 0;
  while (X >> L)
    ++L;
  return L;
}

LinearLayout::LinearLayout(std::vector<InDim> InDims,
                           std::vector<std::string> OutNames)
    : Ins(std::move(InDims)) {
  for (unsigned K = 0; K < OutNames.size(); ++K) {
    uint64_t Reached = 0;
    for (const InDim &In : Ins)
      for (const Basis &B : In.Bases) {
        assert(B.size() == OutNames.size() && "one value per output dim");
        assert(B[K] >= 0);
        Reached |= uint64_t(B[K]);
      }
    Outs.push_back({OutNames[K], bitLength(Reached)});
  }
  checkInvariants();
}

LinearLayout::LinearLayout(std::vector<InDim> InDims,
                           std::vector<OutDim> OutDims)
    : Ins(std::move(InDims)), Outs(std::move(OutDims)) {
  checkInvariants();
}

void LinearLayout::checkInvariants() const {
  for (const InDim &In : Ins)
    for (const Basis &B : In.Bases) {
      assert(B.size() == Outs.size() && "one value per output dim");
      for (unsigned K = 0; K < Outs.size(); ++K)
        assert(B[K] >= 0 && (uint64_t(B[K]) >> Outs[K].SizeLog2) == 0 &&
               "basis value outside its output dimension");
    }
  assert(totalInBits() <= 64 && totalOutBits() <= 64);
  (void)this;
}

LinearLayout LinearLayout::identity1D(int32_t Size, const std::string &In,
                                      const std::string &Out) {
  unsigned L = log2Exact(Size);
  InDim D{In, {}};
  for (unsigned I = 0; I < L; ++I)
    D.Bases.push_back({int32_t(1) << I});
  return LinearLayout({D}, std::vector<OutDim>{{Out, L}});
}

LinearLayout LinearLayout::zeros1D(int32_t Size, const std::string &In,
                                   const std::string &Out, int32_t OutSize) {
  unsigned L = log2Exact(Size);
  InDim D{In, std::vector<Basis>(L, Basis{0})};
  return LinearLayout({D}, std::vector<OutDim>{{Out, log2Exact(OutSize)}});
}

int LinearLayout::inIndex(const std::string &Name) const {
  for (unsigned I = 0; I < Ins.size(); ++I)
    if (Ins[I].Name == Name)
      return int(I);
  return -1;
}

int LinearLayout::outIndex(const std::string &Name) const {
  for (unsigned K = 0; K < Outs.size(); ++K)
    if (Outs[K].Name == Name)
      return int(K);
  return -1;
}

unsigned LinearLayout::inDimSizeLog2(const std::string &Name) const {
  int I = inIndex(Name);
  return I < 0 ? 0 : unsigned(Ins[I].Bases.size());
}

unsigned LinearLayout::outDimSizeLog2(const std::string &Name) const {
  int K = outIndex(Name);
  return K < 0 ? 0 : Outs[K].SizeLog2;
}

const std::vector<LinearLayout::Basis> &
LinearLayout::bases(const std::string &Name) const {
  static const std::vector<Basis> None;
  int I = inIndex(Name);
  return I < 0 ? None : Ins[I].Bases;
}

unsigned LinearLayout::totalInBits() const {
  unsigned N = 0;
  for (const InDim &In : Ins)
    N += In.Bases.size();
  return N;
}

unsigned LinearLayout::totalOutBits() const {
  unsigned N = 0;
  for (const OutDim &Out : Outs)
    N += Out.SizeLog2;
  return N;
}

/// Merges two ordered lists, keeping the relative order of both; where the
/// order is open, X's elements come first (Triton's `supremum`).
static std::vector<std::string> supremum(const std::vector<std::string> &X,
                                         const std::vector<std::string> &Y) {
  auto PosIn = [](const std::vector<std::string> &L, const std::string &S,
                  size_t From) -> size_t {
    for (size_t P = From; P < L.size(); ++P)
      if (L[P] == S)
        return P;
    return std::numeric_limits<size_t>::max();
  };
  const size_t Inf = std::numeric_limits<size_t>::max();
  std::vector<std::string> R;
  auto Has = [&](const std::string &S) {
    return std::find(R.begin(), R.end(), S) != R.end();
  };
  size_t I = 0, J = 0;
  while (I < X.size() || J < Y.size()) {
    while (I < X.size() && Has(X[I]))
      ++I;
    while (J < Y.size() && Has(Y[J]))
      ++J;
    if (I >= X.size() && J >= Y.size())
      break;
    if (I < X.size() && J < Y.size() && X[I] == Y[J]) {
      R.push_back(X[I]);
      ++I, ++J;
      continue;
    }
    size_t CandX = I < X.size() ? PosIn(Y, X[I], J) : Inf;
    size_t CandY = J < Y.size() ? PosIn(X, Y[J], I) : Inf;
    if (I < X.size() && CandX == Inf) {
      R.push_back(X[I++]);
      continue;
    }
    if (J < Y.size() && CandY == Inf) {
      R.push_back(Y[J++]);
      continue;
    }
    if (CandX <= CandY)
      R.push_back(X[I++]);
    else
      R.push_back(Y[J++]);
  }
  return R;
}

LinearLayout operator*(const LinearLayout &Inner, const LinearLayout &Outer) {
  std::vector<std::string> InNames, OutNames, A, B;
  for (const auto &D : Inner.Ins)
    A.push_back(D.Name);
  for (const auto &D : Outer.Ins)
    B.push_back(D.Name);
  InNames = supremum(A, B);
  A.clear(), B.clear();
  for (const auto &D : Inner.Outs)
    A.push_back(D.Name);
  for (const auto &D : Outer.Outs)
    B.push_back(D.Name);
  OutNames = supremum(A, B);

  std::vector<LinearLayout::OutDim> Outs;
  for (const std::string &Name : OutNames)
    Outs.push_back(
        {Name, Inner.outDimSizeLog2(Name) + Outer.outDimSizeLog2(Name)});

  auto Remap = [&](const LinearLayout &L, const LinearLayout::Basis &V,
                   bool Shift) {
    LinearLayout::Basis R(OutNames.size(), 0);
    for (unsigned K = 0; K < OutNames.size(); ++K) {
      int Src = L.outIndex(OutNames[K]);
      if (Src < 0)
        continue;
      int32_t Value = V[Src];
      R[K] = Shift ? Value << Inner.outDimSizeLog2(OutNames[K]) : Value;
    }
    return R;
  };
  std::vector<LinearLayout::InDim> Ins;
  for (const std::string &Name : InNames) {
    LinearLayout::InDim D{Name, {}};
    for (const auto &V : Inner.bases(Name))
      D.Bases.push_back(Remap(Inner, V, false));
    for (const auto &V : Outer.bases(Name))
      D.Bases.push_back(Remap(Outer, V, true));
    Ins.push_back(std::move(D));
  }
  return LinearLayout(std::move(Ins), std::move(Outs));
}

LinearLayout
LinearLayout::transposeOuts(const std::vector<std::string> &Names) const {
  assert(Names.size() == Outs.size() && "a permutation of the output dims");
  std::vector<int> From;
  std::vector<OutDim> NewOuts;
  for (const std::string &Name : Names) {
    int K = outIndex(Name);
    assert(K >= 0 && "a permutation of the output dims");
    From.push_back(K);
    NewOuts.push_back(Outs[K]);
  }
  std::vector<InDim> NewIns = Ins;
  for (InDim &In : NewIns)
    for (Basis &B : In.Bases) {
      Basis Old = B;
      for (unsigned K = 0; K < From.size(); ++K)
        B[K] = Old[From[K]];
    }
  return LinearLayout(std::move(NewIns), std::move(NewOuts));
}

std::vector<int32_t>
LinearLayout::apply(const std::map<std::string, int32_t> &Input) const {
  std::vector<int32_t> Out(Outs.size(), 0);
  for (const InDim &In : Ins) {
    auto It = Input.find(In.Name);
    if (It == Input.end())
      continue;
    assert(It->second >= 0 && (uint64_t(It->second) >> In.Bases.size()) == 0 &&
           "input outside its dimension");
    for (unsigned Bit = 0; Bit < In.Bases.size(); ++Bit)
      if ((It->second >> Bit) & 1)
        for (unsigned K = 0; K < Outs.size(); ++K)
          Out[K] ^= In.Bases[Bit][K];
  }
  return Out;
}

std::vector<uint64_t> LinearLayout::flatColumns() const {
  std::vector<uint64_t> Columns;
  for (const InDim &In : Ins)
    for (const Basis &B : In.Bases) {
      uint64_t W = 0;
      unsigned Shift = 0;
      for (unsigned K = 0; K < Outs.size(); ++K) {
        W |= uint64_t(B[K]) << Shift;
        Shift += Outs[K].SizeLog2;
      }
      Columns.push_back(W);
    }
  return Columns;
}

uint64_t LinearLayout::flattenOut(const std::vector<int32_t> &Out) const {
  assert(Out.size() == Outs.size());
  uint64_t W = 0;
  unsigned Shift = 0;
  for (unsigned K = 0; K < Outs.size(); ++K) {
    W |= uint64_t(uint32_t(Out[K])) << Shift;
    Shift += Outs[K].SizeLog2;
  }
  return W;
}

namespace {
/// Row echelon form of a set of GF(2) columns, keyed by leading bit, with
/// the combination of input bits that produced each row.
struct Echelon {
  struct Row {
    uint64_t Value = 0;
    uint64_t Inputs = 0;
    bool Used = false;
  };
  Row Pivot[64];
  std::vector<uint64_t> Kernel;

  explicit Echelon(const std::vector<uint64_t> &Columns) {
    for (unsigned J = 0; J < Columns.size(); ++J) {
      uint64_t V = Columns[J], Comb = uint64_t(1) << J;
      for (int B = 63; B >= 0 && V; --B) {
        if (!((V >> B) & 1))
          continue;
        if (!Pivot[B].Used) {
          Pivot[B] = {V, Comb, true};
          V = 0;
          Comb = 0;
          break;
        }
        V ^= Pivot[B].Value;
        Comb ^= Pivot[B].Inputs;
      }
      if (Comb)
        Kernel.push_back(Comb);
    }
  }

  bool solve(uint64_t Y, uint64_t &X) const {
    X = 0;
    for (int B = 63; B >= 0 && Y; --B) {
      if (!((Y >> B) & 1))
        continue;
      if (!Pivot[B].Used)
        return false;
      Y ^= Pivot[B].Value;
      X ^= Pivot[B].Inputs;
    }
    return Y == 0;
  }

  unsigned rank() const {
    unsigned R = 0;
    for (const Row &P : Pivot)
      R += P.Used;
    return R;
  }
};
} // namespace

std::vector<std::vector<int32_t>>
LinearLayout::preimage(const std::vector<int32_t> &Out) const {
  for (unsigned K = 0; K < Outs.size(); ++K)
    if (Out[K] < 0 || (uint64_t(Out[K]) >> Outs[K].SizeLog2) != 0)
      return {};
  Echelon E(flatColumns());
  uint64_t X;
  if (!E.solve(flattenOut(Out), X))
    return {};
  std::vector<std::vector<int32_t>> Result;
  uint64_t Count = uint64_t(1) << E.Kernel.size();
  for (uint64_t Pick = 0; Pick < Count; ++Pick) {
    uint64_t Sol = X;
    for (unsigned K = 0; K < E.Kernel.size(); ++K)
      if ((Pick >> K) & 1)
        Sol ^= E.Kernel[K];
    std::vector<int32_t> Values;
    unsigned Shift = 0;
    for (const InDim &In : Ins) {
      unsigned N = In.Bases.size();
      Values.push_back(int32_t((Sol >> Shift) & ((uint64_t(1) << N) - 1)));
      Shift += N;
    }
    Result.push_back(std::move(Values));
  }
  std::sort(Result.begin(), Result.end());
  return Result;
}

unsigned LinearLayout::kernelDimension() const {
  return Echelon(flatColumns()).Kernel.size();
}

uint64_t LinearLayout::freeVariableMask(const std::string &Name) const {
  uint64_t Mask = 0;
  const auto &Bs = bases(Name);
  for (unsigned Bit = 0; Bit < Bs.size(); ++Bit)
    if (std::all_of(Bs[Bit].begin(), Bs[Bit].end(),
                    [](int32_t V) { return V == 0; }))
      Mask |= uint64_t(1) << Bit;
  return Mask;
}

bool LinearLayout::isSurjective() const {
  return Echelon(flatColumns()).rank() == totalOutBits();
}

LinearLayout LinearLayout::invert() const {
  const InDim *Only = nullptr;
  for (const InDim &In : Ins)
    if (!In.Bases.empty()) {
      assert(!Only && "invert needs a single input dimension");
      Only = &In;
    }
  std::string InName =
      Only ? Only->Name : (Ins.empty() ? kOffset : Ins[0].Name);
  assert(isInjective() && isSurjective() && "invert needs a bijection");
  std::vector<InDim> NewIns;
  for (unsigned K = 0; K < Outs.size(); ++K) {
    InDim D{Outs[K].Name, {}};
    for (unsigned Bit = 0; Bit < Outs[K].SizeLog2; ++Bit) {
      std::vector<int32_t> Unit(Outs.size(), 0);
      Unit[K] = int32_t(1) << Bit;
      auto Pre = preimage(Unit);
      assert(Pre.size() == 1);
      // The only non-empty input dimension carries the whole preimage.
      int32_t V = 0;
      for (unsigned I = 0; I < Ins.size(); ++I)
        if (Ins[I].Name == InName)
          V = Pre[0][I];
      D.Bases.push_back({V});
    }
    NewIns.push_back(std::move(D));
  }
  return LinearLayout(std::move(NewIns),
                      std::vector<OutDim>{{InName, totalInBits()}});
}

bool LinearLayout::operator==(const LinearLayout &O) const {
  if (Ins.size() != O.Ins.size() || Outs.size() != O.Outs.size())
    return false;
  for (unsigned I = 0; I < Ins.size(); ++I)
    if (Ins[I].Name != O.Ins[I].Name || Ins[I].Bases != O.Ins[I].Bases)
      return false;
  for (unsigned K = 0; K < Outs.size(); ++K)
    if (Outs[K].Name != O.Outs[K].Name ||
        Outs[K].SizeLog2 != O.Outs[K].SizeLog2)
      return false;
  return true;
}

std::string LinearLayout::str() const {
  std::ostringstream OS;
  for (const InDim &In : Ins) {
    OS << " - " << In.Name << ": [";
    for (unsigned B = 0; B < In.Bases.size(); ++B) {
      OS << (B ? ", " : "") << "[";
      for (unsigned K = 0; K < In.Bases[B].size(); ++K)
        OS << (K ? ", " : "") << In.Bases[B][K];
      OS << "]";
    }
    OS << "]\n";
  }
  OS << "where out dims are: [";
  for (unsigned K = 0; K < Outs.size(); ++K)
    OS << (K ? ", " : "") << Outs[K].Name << " (size "
       << (int64_t(1) << Outs[K].SizeLog2) << ")";
  OS << "]";
  return OS.str();
}

} // namespace stagecheck::layout

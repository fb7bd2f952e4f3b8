// The layout functions against Triton's own: the linear layouts Triton 3.6
// computed for every (encoding, shape) of the corpus and extra cases, the
// threads a GPU run saw computing each element, Triton's unit-test
// expectations for shared layouts, and the documented swizzles.

#include "TestData.h"

#include "layout/Layouts.h"

#include <gtest/gtest.h>

#include <iostream>
#include <set>

using namespace stagecheck;
using namespace stagecheck::layout;
using namespace stagecheck::layout::test;

namespace {

std::string elemStr(const std::vector<int64_t> &E) { return shapeStr(E); }

std::string holdersStr(const std::vector<HardwareIndex> &H) {
  std::string R = "{";
  for (unsigned I = 0; I < H.size() && I < 8; ++I)
    R += (I ? ", " : "") + std::string("(r") + std::to_string(H[I].Register) +
         " l" + std::to_string(H[I].Lane) + " w" + std::to_string(H[I].Warp) +
         ")";
  return R + (H.size() > 8 ? ", ...}" : "}");
}

std::vector<HardwareIndex> tritonHolders(const LinearLayout &T,
                                         const std::vector<int64_t> &E) {
  std::vector<int32_t> Out(E.begin(), E.end());
  std::vector<HardwareIndex> R;
  for (const auto &In : T.preimage(Out)) {
    HardwareIndex H;
    for (unsigned I = 0; I < T.ins().size(); ++I) {
      const std::string &N = T.ins()[I].Name;
      (N == kRegister ? H.Register
       : N == kLane   ? H.Lane
       : N == kWarp   ? H.Warp
                      : H.Block) = In[I];
    }
    R.push_back(H);
  }
  std::sort(R.begin(), R.end());
  return R;
}

TEST(LayoutGroundTruth, DistributedLayoutsAgreeWithTritonOnEveryElement) {
  auto Cases = loadCases("layouts.json", "cases");
  ASSERT_GT(Cases.size(), 100u);
  uint64_t Elements = 0, HardwareIndices = 0;
  unsigned Failed = 0;
  for (const auto &C : Cases) {
    SCOPED_TRACE(C.Label);
    DistributedLayout Mine(*parseCase(C), C.Shape);
    LinearLayout Theirs = tritonLayout(C);
    ASSERT_EQ(Mine.linear().inDimSize(kRegister), Theirs.inDimSize(kRegister));
    ASSERT_EQ(Mine.linear().inDimSize(kLane), Theirs.inDimSize(kLane));
    ASSERT_EQ(Mine.linear().inDimSize(kWarp), Theirs.inDimSize(kWarp));
    bool Ok = true;
    // Hardware index -> element, for every register of every thread.
    for (int32_t W = 0; W < Mine.numWarps() && Ok; ++W)
      for (int32_t L = 0; L < Mine.threadsPerWarp() && Ok; ++L)
        for (int32_t R = 0; R < Mine.numRegisters() && Ok; ++R) {
          auto Got = Mine.element({R, L, W, 0});
          auto Want = Theirs.apply({{kRegister, R}, {kLane, L}, {kWarp, W}});
          std::vector<int64_t> Want64(Want.begin(), Want.end());
          ++HardwareIndices;
          if (Got != Want64) {
            ADD_FAILURE() << "register " << R << " lane " << L << " warp " << W
                          << ": stagecheck " << elemStr(Got) << ", Triton "
                          << elemStr(Want64) << "\nstagecheck:\n"
                          << Mine.linear().str() << "\nTriton:\n"
                          << Theirs.str();
            Ok = false;
          }
        }
    // Element -> every hardware index that holds it.
    for (const auto &E : allElements(C.Shape)) {
      if (!Ok)
        break;
      ++Elements;
      auto Got = Mine.holders(E);
      auto Want = tritonHolders(Theirs, E);
      if (Got != Want || Got.empty()) {
        ADD_FAILURE() << "element " << elemStr(E) << ": stagecheck "
                      << holdersStr(Got) << ", Triton " << holdersStr(Want);
        Ok = false;
      }
    }
    Failed += !Ok;
  }
  std::cout << "[layout] " << Cases.size() << " Triton layouts, " << Elements
            << " elements and " << HardwareIndices
            << " (register, lane, warp) compared, " << Failed << " differ\n";
}

TEST(LayoutGroundTruth, MeasuredThreadsHoldTheElementsTheyComputed) {
  auto Kernels = loadCases("measured.json", "kernels");
  ASSERT_GE(Kernels.size(), 5u);
  uint64_t Elements = 0;
  for (const auto &K : Kernels) {
    SCOPED_TRACE(K.Label);
    DistributedLayout L(*parseCase(K), K.Shape);
    EXPECT_EQ(L.numThreads(), K.NumWarps * 32);
    auto All = allElements(K.Shape);
    ASSERT_EQ(All.size(), K.Tids.size());
    for (size_t I = 0; I < All.size(); ++I) {
      std::set<int32_t> Threads;
      auto Holders = L.holders(All[I]);
      for (const auto &H : Holders)
        Threads.insert(H.Warp * L.threadsPerWarp() + H.Lane);
      ++Elements;
      if (!Threads.count(K.Tids[I])) {
        ADD_FAILURE() << "element " << elemStr(All[I]) << " was computed by "
                      << "thread " << K.Tids[I] << "; the layout gives "
                      << holdersStr(Holders);
        break;
      }
    }
  }
  std::cout << "[layout] " << Kernels.size() << " measured tensors, "
            << Elements << " elements: each computed by a thread that holds "
            << "it\n";
}

TEST(LayoutGroundTruth, SharedLayoutsAgreeWithTritonUnitTests) {
  auto Cases = loadCases("shared_triton_unittests.json", "cases");
  ASSERT_GE(Cases.size(), 10u);
  for (const auto &C : Cases) {
    SCOPED_TRACE(C.Label);
    SharedLayout Mine(*parseCase(C), C.Shape);
    LinearLayout Theirs = tritonLayout(C);
    ASSERT_EQ(Mine.size(), Theirs.inDimSize(kOffset));
    for (int32_t Off = 0; Off < Mine.size(); ++Off) {
      auto Want = Theirs.apply({{kOffset, Off}});
      auto Got = Mine.element(Off);
      ASSERT_EQ(Got, std::vector<int64_t>(Want.begin(), Want.end()))
          << "offset " << Off;
      ASSERT_EQ(Mine.offset(Got), Off) << "element " << elemStr(Got);
    }
  }
}

/// The swizzle as TritonGPUAttrDefs.td documents it: within the two minor
/// dimensions (order[0] = column, order[1] = row), row r stores column c at
/// c ^ (vec * ((r / perPhase) % maxPhase)) (the xor wrapped to the row
/// width); rows follow each other, then the outer dimensions in order.
int64_t documentedSwizzledOffset(const SwizzledSharedEncoding &S,
                                 const std::vector<int64_t> &Shape,
                                 const std::vector<int64_t> &E) {
  if (Shape.size() == 1)
    return E[0];
  unsigned ColDim = S.Order[0], RowDim = S.Order[1];
  int64_t Cols = Shape[ColDim], Rows = Shape[RowDim];
  int64_t Row = E[RowDim], Col = E[ColDim];
  int64_t Phase = (Row / S.PerPhase) % S.MaxPhase;
  int64_t Offset = Row * Cols + (Col ^ ((S.Vec * Phase) % Cols));
  int64_t Stride = Rows * Cols;
  for (unsigned I = 2; I < S.Order.size(); ++I) {
    Offset += E[S.Order[I]] * Stride;
    Stride *= Shape[S.Order[I]];
  }
  return Offset;
}

/// The hardware swizzle of TMA and wgmma (CU_TENSOR_MAP_SWIZZLE_{32,64,128}B):
/// rows of W bytes (W the swizzle width); within each 8 x 128-byte block the
/// 16-byte chunk index (address bits 4..) is XORed with the row bits
/// (address bits 7..). A contiguous dimension wider than W is cut into
/// column blocks of W bytes, stored one after another.
int64_t hardwareSwizzledOffset(const NVMMASharedEncoding &N,
                               const std::vector<int64_t> &Shape,
                               const std::vector<int64_t> &E) {
  unsigned Contig = N.Transposed ? 0 : 1, Strided = 1 - Contig;
  int64_t Bytes = N.ElementBitWidth / 8;
  if (N.SwizzlingByteWidth == 0)
    return E[0] * Shape[1] + E[1];
  int64_t W = N.SwizzlingByteWidth;
  int64_t PerRow = W / Bytes;
  int64_t Block = E[Contig] / PerRow;
  int64_t Addr = E[Strided] * W + (E[Contig] % PerRow) * Bytes;
  int64_t Mask = W / 16 - 1;
  Addr ^= ((Addr >> 7) & Mask) << 4;
  return (Block * Shape[Strided] * W + Addr) / Bytes;
}

struct SharedCase {
  std::string Text;
  std::vector<int64_t> Shape;
  std::string From;
};

/// Shared encodings of the corpus and of the TTGIR of the measured kernels,
/// with their shapes, plus shapes no file uses (smaller and larger ones).
std::vector<SharedCase> sharedCases() {
  std::vector<SharedCase> Cases;
  std::set<std::string> Seen;
  for (const auto &File : ttgirFiles()) {
    std::string Text = readFile(File);
    auto Table = parseAliasDefinitions(Text, File);
    for (const auto &U : encodingUses(Text, File)) {
      if (!U.InType)
        continue;
      auto E = parseEncoding(U.Text, resolverFor(Table), U.Where);
      if (!E->isShared())
        continue;
      auto Shape = layoutShapeOfMemDesc(*E, U.Shape);
      std::string Key = E->str() + shapeStr(Shape);
      if (Seen.insert(Key).second)
        Cases.push_back({E->str(), Shape, U.Where.str()});
    }
  }
  const char *Swz = "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = "
                    "4, order = [1, 0]}>";
  for (std::vector<int64_t> S :
       {std::vector<int64_t>{16, 128}, {128, 16}, {64, 64}, {4, 4}, {1, 32}})
    Cases.push_back({Swz, S, "extra"});
  Cases.push_back({"#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = "
                   "8, order = [0, 1]}>",
                   {64, 32},
                   "extra"});
  Cases.push_back({"#ttg.swizzled_shared<{vec = 2, perPhase = 4, maxPhase = "
                   "2, order = [2, 1, 0]}>",
                   {2, 16, 32},
                   "extra"});
  Cases.push_back({"#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = "
                   "4, order = [0, 2, 1]}>",
                   {8, 4, 16},
                   "extra"});
  for (const char *Nv :
       {"#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
        "elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, "
        "elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, "
        "elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
        "elementBitWidth = 8}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
        "elementBitWidth = 32}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, "
        "elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, "
        "elementBitWidth = 16}>",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, "
        "elementBitWidth = 16}>"})
    for (std::vector<int64_t> S : {std::vector<int64_t>{128, 128},
                                   {256, 128},
                                   {128, 256},
                                   {512, 256},
                                   {8, 128}}) {
      // A transposed layout needs its contiguous dim0 as wide as a swizzle
      // row (128 elements at most); 8 rows is the smallest tile otherwise.
      if (std::string(Nv).find("transposed = true") != std::string::npos &&
          S[0] < 128)
        continue;
      Cases.push_back({Nv, S, "extra"});
    }
  return Cases;
}

TEST(LayoutGroundTruth, SharedLayoutsMatchTheDocumentedSwizzles) {
  auto Cases = sharedCases();
  unsigned FromFiles = 0;
  uint64_t Elements = 0;
  for (const auto &C : Cases) {
    SCOPED_TRACE(C.Text + " " + shapeStr(C.Shape) + " from " + C.From);
    FromFiles += C.From != "extra";
    auto E = parseEncoding(C.Text, nullptr, {});
    SharedLayout L(*E, C.Shape);
    std::set<int64_t> Offsets;
    for (const auto &Elem : allElements(C.Shape)) {
      int64_t Want =
          E->kind() == Encoding::Kind::SwizzledShared
              ? documentedSwizzledOffset(E->swizzledShared(), C.Shape, Elem)
              : hardwareSwizzledOffset(E->nvmmaShared(), C.Shape, Elem);
      int64_t Got = L.offset(Elem);
      ++Elements;
      ASSERT_EQ(Got, Want) << "element " << elemStr(Elem);
      ASSERT_EQ(L.element(Got), Elem);
      Offsets.insert(Got);
    }
    EXPECT_EQ(int64_t(Offsets.size()), L.size()) << "not a bijection";
  }
  EXPECT_GE(FromFiles, 5u);
  std::cout << "[layout] " << Cases.size() << " shared layouts (" << FromFiles
            << " from TTGIR files), " << Elements
            << " elements at their documented offsets\n";
}

} // namespace

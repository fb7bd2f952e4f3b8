// The GF(2) algebra under every layout, and the corner cases of fitting a
// layout to a shape, on small examples worked out by hand.

#include "TestData.h"

#include "layout/Layouts.h"

#include <gtest/gtest.h>

using namespace stagecheck::layout;
using namespace stagecheck::layout::test;

namespace {

TEST(LayoutLinear, ProductPutsTheInnerLayoutInTheLowBits) {
  // identity1D(4, lane, dim1) * identity1D(8, register, dim0):
  // L(register = 3, lane = 2) = (dim1 = 2, dim0 = 3).
  LinearLayout L = LinearLayout::identity1D(4, kLane, "dim1") *
                   LinearLayout::identity1D(8, kRegister, "dim0");
  EXPECT_EQ(L.outs()[0].Name, "dim1");
  EXPECT_EQ(L.apply({{kRegister, 3}, {kLane, 2}}),
            (std::vector<int32_t>{2, 3}));
  // The same output dimension twice: the outer factor's bits come above.
  LinearLayout Same = LinearLayout::identity1D(4, kLane, "dim0") *
                      LinearLayout::identity1D(8, kRegister, "dim0");
  EXPECT_EQ(Same.outDimSize("dim0"), 32);
  EXPECT_EQ(Same.apply({{kRegister, 5}, {kLane, 3}}),
            (std::vector<int32_t>{5 * 4 + 3}));
  // The same input dimension twice: x % 4 from the inner, x / 4 outer.
  LinearLayout Split = LinearLayout::identity1D(4, "i", "o1") *
                       LinearLayout::identity1D(8, "i", "o2");
  EXPECT_EQ(Split.apply({{"i", 29}}), (std::vector<int32_t>{29 % 4, 29 / 4}));
}

TEST(LayoutLinear, ZerosBroadcastAndPreimageFindsEveryHolder) {
  LinearLayout L = LinearLayout::zeros1D(4, kLane, "dim0") *
                   LinearLayout::identity1D(2, kRegister, "dim0");
  EXPECT_EQ(L.kernelDimension(), 2u);
  EXPECT_EQ(L.freeVariableMask(kLane), 3u);
  auto Pre = L.preimage({1});
  ASSERT_EQ(Pre.size(), 4u); // register 1 of all four lanes
  for (const auto &P : Pre)
    EXPECT_EQ(P[L.inIndex(kRegister)], 1);
  EXPECT_TRUE(L.preimage({2}).empty()); // outside the output
}

TEST(LayoutLinear, XorOfBasesAndItsInverse) {
  // A swizzle: offset bits 0-1 are columns, 2-3 rows XOR columns.
  LinearLayout L({{kOffset, {{0, 1}, {0, 2}, {1, 1}, {2, 2}}}},
                 std::vector<std::string>{"dim0", "dim1"});
  EXPECT_TRUE(L.isInjective());
  EXPECT_TRUE(L.isSurjective());
  EXPECT_EQ(L.apply({{kOffset, 0b1110}}), (std::vector<int32_t>{3, 2 ^ 1 ^ 2}));
  LinearLayout Inv = L.invert();
  for (int32_t Off = 0; Off < 16; ++Off) {
    auto E = L.apply({{kOffset, Off}});
    EXPECT_EQ(Inv.apply({{"dim0", E[0]}, {"dim1", E[1]}})[0], Off);
  }
}

TEST(LayoutLinear, TransposeOutsKeepsTheMap) {
  LinearLayout L = LinearLayout::identity1D(4, kRegister, "dim1") *
                   LinearLayout::identity1D(2, kLane, "dim0");
  LinearLayout T = L.transposeOuts({"dim0", "dim1"});
  for (int32_t R = 0; R < 4; ++R)
    for (int32_t La = 0; La < 2; ++La) {
      auto A = L.apply({{kRegister, R}, {kLane, La}});
      auto B = T.apply({{kRegister, R}, {kLane, La}});
      EXPECT_EQ(A[0], B[1]);
      EXPECT_EQ(A[1], B[0]);
    }
}

EncodingPtr enc(const char *Text) { return parseEncoding(Text, nullptr, {}); }

TEST(LayoutCorners, ShapeSmallerThanTheLayoutBroadcasts) {
  // 128 threads, one element: every thread holds it in its one register.
  DistributedLayout L(*enc("#ttg.blocked<{sizePerThread = [1], threadsPerWarp "
                           "= [32], warpsPerCTA = [4], order = [0]}>"),
                      {1});
  EXPECT_EQ(L.numRegisters(), 1);
  EXPECT_EQ(L.holders({0}).size(), 128u);
  // 8 elements over 4 per thread: lanes 0 and 1 of warp 0 own them, the
  // other lanes and warps repeat the same 8.
  DistributedLayout S(*enc("#ttg.blocked<{sizePerThread = [4], threadsPerWarp "
                           "= [32], warpsPerCTA = [4], order = [0]}>"),
                      {8});
  EXPECT_EQ(S.holders({5}).size(), 64u);
  EXPECT_EQ(S.elementOfThread(1, 1), (std::vector<int64_t>{5}));
  EXPECT_EQ(S.elementOfThread(33, 1), (std::vector<int64_t>{5}));
}

TEST(LayoutCorners, ShapeLargerThanTheLayoutRepeatsRegisters) {
  // 4 per thread x 32 lanes x 4 warps = 512; 2048 elements take 4 rounds.
  DistributedLayout L(*enc("#ttg.blocked<{sizePerThread = [4], threadsPerWarp "
                           "= [32], warpsPerCTA = [4], order = [0]}>"),
                      {2048});
  ASSERT_EQ(L.numRegisters(), 16);
  for (int32_t R = 0; R < 16; ++R)
    for (int32_t T = 0; T < 128; T += 5)
      EXPECT_EQ(L.elementOfThread(T, R)[0], R % 4 + 4 * T + 512 * (R / 4));
  for (int64_t E = 0; E < 2048; ++E)
    EXPECT_EQ(L.holders({E}).size(), 1u);
}

TEST(LayoutCorners, SliceOfASliceKeepsTheThreads) {
  auto B3 = "#ttg.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, "
            "8], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]}>";
  std::string S2 = std::string("#ttg.slice<{dim = 1, parent = #ttg.slice<{dim "
                               "= 2, parent = ") +
                   B3 + "}>}>";
  DistributedLayout L(*parseEncoding(S2, nullptr, {}), {16});
  EXPECT_EQ(L.numThreads(), 128);
  // Lanes spread over the two sliced dimensions: all 32 lanes and the
  // warps along dim 1 hold the same element.
  for (int64_t E = 0; E < 16; ++E)
    EXPECT_EQ(L.holders({E}).size(), 64u);
}

TEST(LayoutCorners, RankThreeBlockedCoversEveryElementOnce) {
  DistributedLayout L(*enc("#ttg.blocked<{sizePerThread = [1, 1, 4], "
                           "threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, "
                           "1], order = [2, 1, 0]}>"),
                      {4, 16, 64});
  EXPECT_EQ(L.numRegisters(), 4 * 16 * 64 / 128);
  for (const auto &E : allElements({4, 16, 64}))
    ASSERT_EQ(L.holders(E).size(), 1u) << shapeStr(E);
}

} // namespace

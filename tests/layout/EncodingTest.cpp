// The encoding parser: every encoding of the corpus TTGIR parses and prints
// back as Triton printed it; malformed text is an InputError at its
// file:line:column.

#include "TestData.h"

#include "ir/Errors.h"
#include "layout/Layouts.h"

#include <gtest/gtest.h>

#include <iostream>
#include <set>

using namespace stagecheck;
using namespace stagecheck::layout;
using namespace stagecheck::layout::test;

namespace {

/// Text with every alias replaced by its definition, as Encoding::str()
/// prints it.
std::string resolved(const std::string &Text,
                     const std::map<std::string, AliasText> &Table) {
  std::string R;
  for (size_t I = 0; I < Text.size();) {
    if (Text[I] == '#') {
      size_t J = I + 1;
      while (J < Text.size() && (std::isalnum((unsigned char)Text[J]) ||
                                 Text[J] == '_' || Text[J] == '.'))
        ++J;
      std::string Name = Text.substr(I + 1, J - I - 1);
      auto It = Table.find(Name);
      if (It != Table.end() && (J >= Text.size() || Text[J] != '<')) {
        R += resolved(It->second.Text, Table);
        I = J;
        continue;
      }
    }
    R += Text[I++];
  }
  return R;
}

TEST(LayoutEncoding, ParsesEveryEncodingOfTheCorpus) {
  auto Files = ttgirFiles();
  ASSERT_GE(Files.size(), 33u);
  unsigned Uses = 0, Aliases = 0, Typed = 0;
  std::set<std::string> Distinct, Kinds;
  for (const auto &File : Files) {
    SCOPED_TRACE(File);
    std::string Text = readFile(File);
    auto Table = parseAliasDefinitions(Text, File);
    for (const auto &U : encodingUses(Text, File)) {
      SCOPED_TRACE(U.Where.str() + ": " + U.Text);
      EncodingPtr E;
      ASSERT_NO_THROW(E = parseEncoding(U.Text, resolverFor(Table), U.Where));
      // Printing gives back Triton's text, aliases inlined.
      EXPECT_EQ(E->str(), resolved(U.Text, Table));
      ++Uses;
      Aliases += !U.InType;
      Distinct.insert(E->str());
      Kinds.insert(E->str().substr(0, E->str().find('<')));
      if (U.InType) {
        ++Typed;
        auto Shape = U.MemDesc ? layoutShapeOfMemDesc(*E, U.Shape) : U.Shape;
        EXPECT_NO_THROW(toLinearLayout(*E, Shape)) << shapeStr(Shape);
      }
    }
  }
  // blocked, slice, nvidia_mma, dot_op, swizzled_shared, nvmma_shared.
  EXPECT_EQ(Kinds.size(), 6u);
  std::cout << "[layout] " << Files.size() << " TTGIR files: " << Uses
            << " encodings parsed (" << Aliases << " alias definitions, "
            << Typed << " in types), " << Distinct.size()
            << " distinct, all laid out for their shapes\n";
}

struct Malformed {
  const char *Text;
  unsigned Offset;     // of the reported character in Text
  const char *Message; // part of the message
};

TEST(LayoutEncoding, RejectsMalformedTextAtItsLocation) {
  const Malformed Cases[] = {
      {"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], "
       "warpsPerCTA = [2, 1]}>",
       0, "needs field 'order'"},
      {"#ttg.blocked<{sizePerThread = [1, 4] threadsPerWarp = [1, 32]}>", 37,
       "expected '}'"},
      {"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], "
       "warpsPerCTA = [2, 1], order = [1, 1]}>",
       86, "permutation"},
      {"#ttg.blocked<{sizePerThread = [3, 4], threadsPerWarp = [1, 32], "
       "warpsPerCTA = [2, 1], order = [1, 0]}>",
       14, "powers of two"},
      {"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], "
       "warpsPerCTA = [2], order = [1, 0]}>",
       64, "rank 2"},
      {"#ttg.blocked<{sizePerThreads = [1, 4], threadsPerWarp = [1, 32], "
       "warpsPerCTA = [2, 1], order = [1, 0]}>",
       0, "needs field 'sizePerThread'"},
      {"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], "
       "warpsPerCTA = [2, 1], order = [1, 0], colour = 3}>",
       102, "unknown field 'colour'"},
      {"#ttg.slice<{dim = 1, parent = #blocked9}>", 30,
       "unknown attribute alias #blocked9"},
      {"#ttg.slice<{dim = 2, parent = #ttg.blocked<{sizePerThread = [1, 4], "
       "threadsPerWarp = [1, 32], warpsPerCTA = [2, 1], order = [1, 0]}>}>",
       12, "outside the parent's rank"},
      {"#ttg.slice<{dim = 1, parent = #blocked}", 39, "expected '>'"},
      {"#ttg.nvmma_shared<{swizzlingByteWidth = 48, transposed = false, "
       "elementBitWidth = 16}>",
       19, "0, 32, 64 or 128"},
      {"#ttg.shared_memory", 0, "not a layout encoding"},
      {"#ttg.dot_op<{opIdx = 0, opIdx = 1, parent = #blocked, kWidth = 2}>", 24,
       "given twice"},
      {"#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = "
       "[2, 2], instrShape = [16]}>",
       75, "needs 2 entries"},
      {"#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = "
       "[1, 0]}> junk",
       76, "unexpected text"},
      {"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], "
       "warpsPerCTA = [2, 1], order = [1, 0]>",
       100, "expected '}'"},
      {"blocked", 0, "expected '#'"},
  };
  std::map<std::string, AliasText> Table = {
      {"blocked",
       {"#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], "
        "warpsPerCTA = [2, 1], order = [1, 0]}>",
        {"kernel.ttgir", 1, 12}}}};
  for (const auto &C : Cases) {
    SCOPED_TRACE(C.Text);
    try {
      parseEncoding(C.Text, resolverFor(Table), {"kernel.ttgir", 7, 40});
      ADD_FAILURE() << "accepted";
    } catch (const ir::InputError &E) {
      EXPECT_EQ(E.Where.File, "kernel.ttgir");
      EXPECT_EQ(E.Where.Line, 7u);
      EXPECT_EQ(E.Where.Column, 40 + C.Offset) << E.what();
      EXPECT_NE(E.Message.find(C.Message), std::string::npos) << E.what();
    }
  }
}

TEST(LayoutEncoding, ErrorsInsideAnAliasPointAtItsDefinition) {
  std::string Module =
      "#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, "
      "32], warpsPerCTA = [4, 1], order = [1, 0]}>\n"
      "#bad = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
      "warpsPerCTA = [3], order = [0]}>\n";
  auto Table = parseAliasDefinitions(Module, "m.ttgir");
  ASSERT_EQ(Table.size(), 2u);
  EXPECT_EQ(Table.at("bad").Where.str(), "m.ttgir:2:8");
  EXPECT_NO_THROW(parseEncoding("#ttg.slice<{dim = 0, parent = #blocked}>",
                                resolverFor(Table), {"m.ttgir", 9, 5}));
  try {
    parseEncoding("#ttg.slice<{dim = 0, parent = #bad}>", resolverFor(Table),
                  {"m.ttgir", 9, 5});
    ADD_FAILURE() << "accepted";
  } catch (const ir::InputError &E) {
    EXPECT_EQ(E.Where.str(), "m.ttgir:2:66") << E.what();
  }
}

TEST(LayoutEncoding, WellFormedButUnmodelledIsUnsupported) {
  const char *Cases[] = {
      "#ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 1], instrShape = [32, "
      "32], isTransposed = true}>",
      "#ttg.nvidia_mma<{versionMajor = 5, versionMinor = 0, warpsPerCTA = "
      "[4, 1], instrShape = [16, 8]}>",
      "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
      "elementBitWidth = 8, fp4Padded = true}>",
  };
  for (const char *Text : Cases)
    EXPECT_THROW(parseEncoding(Text, nullptr, {"k.ttgir", 3, 1}),
                 ir::UnsupportedError)
        << Text;
  // A layout over several CTAs parses but has no layout function here.
  auto Multi = parseEncoding(
      "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], "
      "warpsPerCTA = [2, 1], order = [1, 0], CTAsPerCGA = [2, 1], "
      "CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
      nullptr, {});
  EXPECT_THROW(toLinearLayout(*Multi, {64, 128}), ir::UnsupportedError);
}

TEST(LayoutEncoding, ShapesTheEncodingCannotLayOutAreInputErrors) {
  auto Blocked = parseEncoding("#ttg.blocked<{sizePerThread = [1], "
                               "threadsPerWarp = [32], warpsPerCTA = [4], "
                               "order = [0]}>",
                               nullptr, {});
  EXPECT_THROW(toLinearLayout(*Blocked, {100}), ir::InputError);
  EXPECT_THROW(toLinearLayout(*Blocked, {16, 16}), ir::InputError);
  auto Nvmma = parseEncoding("#ttg.nvmma_shared<{swizzlingByteWidth = 128, "
                             "transposed = false, elementBitWidth = 16}>",
                             nullptr, {});
  // 32 halves are 64 bytes: narrower than the 128-byte swizzle.
  EXPECT_THROW(toLinearLayout(*Nvmma, {64, 32}), ir::InputError);
}

} // namespace

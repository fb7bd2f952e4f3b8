#include "ir/Text.h"

#include <gtest/gtest.h>
#include <sstream>

using namespace stagecheck::ir;

static const char *Sample = R"(# a snippet with every statement kind
buffer out : f32 global size 16
buffer acc : i32
symbol %pid : i32 program_id
symbol %x : f32 param
%i = zext %pid to i64
%in = icmp.slt %pid, 16:i32
%v = read out[%i] : f32
%y = fadd.rtz %v, 1.5:f32
%e = call @exp(%y) : f32
%n = fcmp.uno %e, %x
%h = fptosi.rne %e to i32
%b = bitcast %x to i32
%nan = fadd %x, nan:f32
write out[%i] = %e if %in at k.py:7:9 op "tt.store"
write out[0:i64] = %nan defined %n
atomic add acc[%i], %h if %in
ub %n "nan seen"
)";

TEST(Text, PrintParseRoundTrip) {
  Context C;
  Effects E = parseEffects(C, Sample, "sample.sir");
  ASSERT_EQ(E.Writes.size(), 2u);
  ASSERT_EQ(E.Atomics.size(), 1u);
  ASSERT_EQ(E.Undefined.size(), 1u);
  EXPECT_EQ(E.Writes[0].From.Loc.str(), "k.py:7:9");
  EXPECT_EQ(E.Writes[0].From.Op, "tt.store");
  EXPECT_EQ(*E.buffer("out")->Size, 16u);
  std::ostringstream First;
  printEffects(First, E);
  // Parsing the printout in the same context yields the very same nodes.
  Effects Again = parseEffects(C, First.str(), "printed.sir");
  EXPECT_EQ(Again.Writes[0].Value, E.Writes[0].Value);
  EXPECT_EQ(Again.Writes[1].Defined, E.Writes[1].Defined);
  EXPECT_EQ(Again.Atomics[0].Value, E.Atomics[0].Value);
  std::ostringstream Second;
  printEffects(Second, Again);
  EXPECT_EQ(First.str(), Second.str());
}

TEST(Text, ReadsOfUndeclaredBuffersPrintTheirDeclaration) {
  // A masked load's lanes read "undef.x", a buffer no argument declares:
  // the printout declares it, so `stagecheck lift` output parses again.
  Context C;
  Effects E;
  E.Buffers.push_back({"out", Type::i(32), AddressSpace::Global, std::nullopt});
  const Expr *I = C.symbol("i", Type::i(64));
  E.Writes.push_back({C.trueExpr(), "out", I, C.read("undef.x", Type::i(32), I),
                      C.trueExpr(), {}, {}});
  std::ostringstream Printed;
  printEffects(Printed, E);
  EXPECT_NE(Printed.str().find("buffer undef.x : i32 global"), std::string::npos)
      << Printed.str();
  Effects Again = parseEffects(C, Printed.str(), "printed.sir");
  EXPECT_EQ(Again.Writes[0].Value, E.Writes[0].Value);
}

TEST(Text, ConstantsPrintExactly) {
  Context C;
  for (uint64_t Bits : {0x3f800000ull, 0x80000000ull, 0x7fc00000ull,
                        0x00000001ull, 0x7f7fffffull, 0xff800000ull}) {
    const Expr *K = C.constant(Type::f32(), Bits);
    std::string Text = "buffer o : f32\nwrite o[0:i64] = " + printConstant(K) + "\n";
    Effects E = parseEffects(C, Text, "k.sir");
    EXPECT_EQ(E.Writes[0].Value->constBits(), Bits) << printConstant(K);
  }
}

struct BadInput {
  const char *Text;
  unsigned Line, Column;
  const char *Fragment;
};

TEST(Text, ErrorsNameLineAndColumn) {
  const BadInput Cases[] = {
      {"buffer o : f32\nwrite o[0:i64] = %nope\n", 2, 18, "undefined value %nope"},
      {"symbol %a : f33\n", 1, 13, "unknown type 'f33'"},
      {"symbol %a : f32\n%b = frobnicate %a\n", 2, 6, "unknown op 'frobnicate'"},
      {"symbol %a : f32\nsymbol %b : i32\n%c = fadd %a, %b\n", 3, 6, "operand types differ"},
      {"buffer o : f32\nwrite p[0:i64] = 1.0:f32\n", 2, 7, "undeclared buffer 'p'"},
      {"buffer o : f32\nwrite o[0:i32] = 1.0:f32\n", 2, 9, "index must be i64"},
      {"symbol %a : f32\nsymbol %a : f32\n", 2, 8, "defined twice"},
      {"%x = add 1, 2:i32\n", 1, 10, "needs a type"},
      {"ub true \"unterminated\n", 1, 9, "unexpected character"},
  };
  for (const BadInput &B : Cases) {
    Context C;
    try {
      parseEffects(C, B.Text, "bad.sir");
      ADD_FAILURE() << "accepted: " << B.Text;
    } catch (const ParseError &E) {
      EXPECT_EQ(E.Where.Line, B.Line) << E.what();
      EXPECT_EQ(E.Where.Column, B.Column) << E.what();
      EXPECT_NE(std::string(E.what()).find(B.Fragment), std::string::npos)
          << E.what();
      EXPECT_EQ(std::string(E.what()).rfind("bad.sir:", 0), 0u) << E.what();
    }
  }
}

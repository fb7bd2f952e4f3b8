// The function table says which libdevice functions give -0 and +0 one
// value (ir::FunctionInfo::IgnoresSignOfZero): an uninterpreted __nv_expf
// then takes them as one point. That is a claim about libdevice's bodies,
// proved here on the libdevice the corpus was linked with, for both
// answers of __nvvm_reflect's ftz flag, with every approximate instruction
// the bodies call left uninterpreted.
#include "TritonLibdevice.h"

#include "ir/Functions.h"
#include "smt/Solver.h"
#include "stages/Libdevice.h"

#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

Type argumentType(std::string_view Name) {
  return Name.back() == 'f' ? Type::f32() : Type::f64();
}

/// i1: the body of Function at -0 and at +0 differ, in value or definedness.
const Expr *differsAtSignedZeros(Context &C, stages::Libdevice &L,
                                 const std::string &Function) {
  Type T = argumentType(Function);
  const Expr *Results[2], *Defined[2];
  for (int Negative = 0; Negative < 2; ++Negative) {
    const Expr *Zero = C.floatConst(T, Negative ? -0.0 : 0.0);
    Effects E;
    E.Writes.push_back({C.trueExpr(), "out", C.constant(Type::i(64), 0),
                        C.call(Function, T, std::span(&Zero, 1)),
                        C.trueExpr(), {}, {}});
    Effects Bodies = L.apply(C, E);
    Results[Negative] = Bodies.Writes[0].Value;
    Defined[Negative] = Bodies.Writes[0].Defined;
  }
  Type Bits = Type::i(T.bits());
  return C.orOf(C.xorOf(Defined[0], Defined[1]),
                C.icmp(ICmpPredicate::Ne, C.cast(Op::Bitcast, Results[0], Bits),
                       C.cast(Op::Bitcast, Results[1], Bits)));
}

/// The libdevice the corpus was linked with, else the toolkit's, else "".
std::string libdevicePath() {
  std::string Path = test::tritonLibdevice();
  return Path.empty() ? stages::defaultLibdevice() : Path;
}

TEST(LibdeviceZeroSign, FunctionsMarkedEvenAtZeroAreSoInTheirBodies) {
  std::string Path = libdevicePath();
  if (Path.empty())
    GTEST_SKIP() << "no libdevice.10.bc in this build";
  unsigned Checked = 0;
  for (int Ftz = 0; Ftz < 2; ++Ftz) {
    // One context per libdevice: it keeps the bodies it lifted.
    Context C;
    stages::Libdevice L(Path, Ftz, 90);
    for (const FunctionInfo &F : allFunctions()) {
      if (!F.Name.starts_with("__nv_") || !F.IgnoresSignOfZero)
        continue;
      std::string Name(F.Name);
      smt::QueryResult R = smt::solve(
          {Name + " at -0 and +0", differsAtSignedZeros(C, L, Name), {},
           smt::Mode::IEEE},
          {});
      EXPECT_EQ(R.Kind, smt::Outcome::Proved)
          << Name << " (ftz " << Ftz << "): " << R.Reason;
      ++Checked;
    }
  }
  EXPECT_EQ(Checked, 12u); // six functions, two ftz answers
}

TEST(LibdeviceZeroSign, AnOddFunctionTellsTheSignsApart) {
  // The check above can fail: erff(-0) = -0 in libdevice too.
  std::string Path = libdevicePath();
  if (Path.empty())
    GTEST_SKIP() << "no libdevice.10.bc in this build";
  Context C;
  stages::Libdevice L(Path, 1, 90);
  for (const char *Odd : {"__nv_erff", "__nv_sqrtf", "__nv_rsqrtf"}) {
    smt::QueryResult R = smt::solve(
        {"odd", differsAtSignedZeros(C, L, Odd), {}, smt::Mode::IEEE}, {});
    EXPECT_EQ(R.Kind, smt::Outcome::Counterexample) << Odd << ": " << R.Reason;
  }
}

} // namespace

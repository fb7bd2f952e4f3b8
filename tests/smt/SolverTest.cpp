#include "ir/Interpreter.h"
#include "smt/Solver.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace stagecheck;
using namespace stagecheck::ir;

namespace {

/// (a + b) + c != a + (b + c) over f32 symbols.
const Expr *associativityViolation(Context &C) {
  const Expr *A = C.symbol("a", Type::f32());
  const Expr *B = C.symbol("b", Type::f32());
  const Expr *Cc = C.symbol("c", Type::f32());
  const Expr *Left = C.floatBinary(Op::FAdd, C.floatBinary(Op::FAdd, A, B), Cc);
  const Expr *Right = C.floatBinary(Op::FAdd, A, C.floatBinary(Op::FAdd, B, Cc));
  return C.fcmp(FCmpPredicate::One, Left, Right);
}

/// The processor time of this process's ended children (its solvers).
double childrensCpuSeconds() {
  struct rusage U;
  getrusage(RUSAGE_CHILDREN, &U);
  return double(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
         double(U.ru_utime.tv_usec + U.ru_stime.tv_usec) / 1e6;
}

TEST(Solver, RealProvesWhatIeeeRefutes) {
  Context C;
  const Expr *Violation = associativityViolation(C);
  smt::SolverOptions O;
  smt::QueryResult Real =
      smt::solve({"associativity", Violation, {}, smt::Mode::Real}, O);
  EXPECT_EQ(Real.Kind, smt::Outcome::Proved) << Real.Reason;
  smt::QueryResult Ieee =
      smt::solve({"associativity", Violation, {}, smt::Mode::IEEE}, O);
  ASSERT_EQ(Ieee.Kind, smt::Outcome::Counterexample) << Ieee.Reason;
  // The interpreter confirms the model: the two sums really differ.
  Interpreter I(Ieee.Model);
  EXPECT_TRUE(I.eval(Violation).isTrue());
  EXPECT_EQ(Ieee.Model.symbols().size(), 3u);
}

/// x * y = P * Q with 1 < x, y < 2^Bits: factoring by bit-blasting.
const Expr *factoring(Context &C, uint64_t P, uint64_t Q, unsigned Bits) {
  Type T = Type::i(64);
  const Expr *X = C.symbol("x", T), *Y = C.symbol("y", T);
  const Expr *Factors =
      C.andOf(C.eq(C.mul(X, Y), C.constant(T, P * Q)),
              C.andOf(C.icmp(ICmpPredicate::Ugt, X, C.constant(T, 1)),
                      C.icmp(ICmpPredicate::Ugt, Y, C.constant(T, 1))));
  const Expr *Small =
      C.andOf(C.icmp(ICmpPredicate::Ult, X, C.constant(T, 1ull << Bits)),
              C.icmp(ICmpPredicate::Ult, Y, C.constant(T, 1ull << Bits)));
  return C.andOf(Factors, Small);
}

/// Keeps every core of the machine busy while it lives.
struct BusyMachine {
  BusyMachine() {
    for (int I = 0; I < 4; ++I)
      if (pid_t P = fork(); P == 0)
        for (;;)
          asm volatile("" ::: "memory"); // a loop the compiler keeps
      else if (P > 0)
        Children.push_back(P);
  }
  ~BusyMachine() {
    for (pid_t P : Children) {
      kill(P, SIGKILL);
      waitpid(P, nullptr, 0);
    }
  }
  std::vector<pid_t> Children;
};

TEST(Solver, AHardQueryStopsWhenItsBudgetOfWorkIsSpent) {
  // Factor a 64-bit semiprime: far beyond a second of solver work.
  Context C;
  smt::SolverOptions O;
  O.TimeoutMs = 1000;
  double Before = childrensCpuSeconds();
  smt::QueryResult R = smt::solve(
      {"factor", factoring(C, 4294967291ull, 4294967279ull, 32), {},
       smt::Mode::IEEE},
      O);
  double Spent = childrensCpuSeconds() - Before;
  EXPECT_EQ(R.Kind, smt::Outcome::Unknown);
  EXPECT_NE(R.Reason.find("timeout"), std::string::npos) << R.Reason;
  EXPECT_NE(R.Reason.find("budget of 1000 ms"), std::string::npos) << R.Reason;
  // The budget, and the brief look in this process on top of it.
  EXPECT_NEAR(R.Work, 1.0 + smt::QuickLookMs / 1000.0, 0.001);
  // Each attempt is killed past its processor-time backstop at the latest.
  EXPECT_LT(Spent, smt::AttemptSlack * 1.1 + smt::AttemptGraceMs / 1000.0);
}

// The work a query takes is counted by the solver, not measured by a
// clock: a query that needs several attempts takes the same work, and
// comes to the same answer, with every core busy.
TEST(Solver, TheWorkAQueryTakesDoesNotDependOnTheMachinesLoad) {
  Context C;
  smt::SolverOptions O;
  O.TimeoutMs = 2000;
  const Expr *V = factoring(C, 65521, 65519, 17);
  // Made larger than a query asked in this process (its context's history
  // would make the two runs differ): every attempt runs in a fresh child.
  const Expr *Padding = C.trueExpr();
  const Expr *Z = C.symbol("z", Type::i(32));
  for (uint64_t K = 0; K < 1200; ++K)
    Padding = C.andOf(Padding, C.icmp(ICmpPredicate::Ne, Z,
                                      C.constant(Type::i(32), K * 7919 + 1)));
  smt::Query Q{"factor", C.andOf(V, Padding), {}, smt::Mode::IEEE};
  smt::QueryResult Idle = smt::solve(Q, O);
  smt::QueryResult Busy;
  {
    BusyMachine Load;
    Busy = smt::solve(Q, O);
  }
  ASSERT_EQ(Idle.Kind, smt::Outcome::Counterexample) << Idle.Reason;
  EXPECT_EQ(Busy.Kind, Idle.Kind) << Busy.Reason;
  EXPECT_EQ(Busy.Work, Idle.Work);
  EXPECT_GT(Idle.Work, 0.0);
}

TEST(Solver, ASharedBudgetIsSpentByTheWorkOfItsQueries) {
  Context C;
  smt::WorkBudget Budget(1500);
  smt::SolverOptions O;
  O.TimeoutMs = 1000;
  const Expr *Hard = factoring(C, 4294967291ull, 4294967279ull, 32);
  smt::QueryResult First = smt::solve({"factor", Hard, {}, smt::Mode::IEEE},
                                      Budget.limit(O));
  Budget.charge(First);
  EXPECT_FALSE(Budget.spent());
  // The second query gets only what is left (and its quick look).
  double Left = 1.5 - First.Work;
  smt::QueryResult Second = smt::solve({"factor", Hard, {}, smt::Mode::IEEE},
                                       Budget.limit(O));
  Budget.charge(Second);
  EXPECT_NEAR(Second.Work, Left + smt::QuickLookMs / 1000.0, 0.002);
  EXPECT_TRUE(Budget.spent());
  EXPECT_EQ(Budget.limit(O).TimeoutMs, 0u);
}

TEST(Solver, UnsupportedInRealModeIsUnknownWithAReason) {
  Context C;
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Bits = C.cast(Op::Bitcast, X, Type::i(32));
  const Expr *V = C.eq(Bits, C.constant(Type::i(32), 7));
  smt::QueryResult R = smt::solve({"bitcast", V, {}, smt::Mode::Real}, {});
  EXPECT_EQ(R.Kind, smt::Outcome::Unknown);
  EXPECT_NE(R.Reason.find("bitcast"), std::string::npos) << R.Reason;
}

TEST(Solver, ModelsCoverReadsAndCalls) {
  Context C;
  const Expr *I = C.symbol("i", Type::i(64));
  const Expr *R = C.read("x", Type::f32(), I);
  const Expr *Args[] = {R};
  const Expr *E = C.call("exp", Type::f32(), Args);
  // exp(x[i]) > 100 with x[i] < 1 and i = 3: only an uninterpreted exp allows it.
  const Expr *V = C.andOf(
      C.fcmp(FCmpPredicate::Ogt, E, C.floatConst(Type::f32(), 100.0)),
      C.andOf(C.fcmp(FCmpPredicate::Olt, R, C.floatConst(Type::f32(), 1.0)),
              C.eq(I, C.constant(Type::i(64), 3))));
  smt::QueryResult Res = smt::solve({"reads and calls", V, {}, smt::Mode::IEEE}, {});
  ASSERT_EQ(Res.Kind, smt::Outcome::Counterexample) << Res.Reason;
  EXPECT_NE(Res.Model.read("x", 3), nullptr);
  ASSERT_EQ(Res.Model.calls().size(), 1u);
  Interpreter In(Res.Model);
  EXPECT_TRUE(In.eval(V).isTrue());
  EXPECT_FALSE(In.usedHostFallback());
}

const Expr *sameBits(Context &C, const Expr *A, const Expr *B) {
  return C.eq(C.cast(Op::Bitcast, A, Type::i(32)),
              C.cast(Op::Bitcast, B, Type::i(32)));
}

/// f(x) != f(y) where x and y are zeros of opposite signs.
const Expr *differsAtSignedZeros(Context &C, const char *Function) {
  const Expr *X = C.symbol("x", Type::f32()), *Y = C.symbol("y", Type::f32());
  const Expr *FX = C.call(Function, Type::f32(), std::span(&X, 1));
  const Expr *FY = C.call(Function, Type::f32(), std::span(&Y, 1));
  const Expr *Zero = C.floatConst(Type::f32(), 0.0);
  return C.andOf(C.andOf(C.fcmp(FCmpPredicate::Oeq, X, Zero),
                         C.fcmp(FCmpPredicate::Oeq, Y, Zero)),
                 C.notOf(sameBits(C, FX, FY)));
}

TEST(Solver, FunctionsEvenAtZeroCannotTellItsSignsApart) {
  // exp(-0) = exp(+0) = 1 (IEEE 754), ex2.approx too (the PTX ISA), so an
  // uninterpreted exp may not give them different values ...
  for (const char *Even : {"exp", "cos", "log", "ex2.approx", "ex2.approx.ftz"}) {
    Context C;
    smt::QueryResult R = smt::solve(
        {"signed zeros", differsAtSignedZeros(C, Even), {}, smt::Mode::IEEE}, {});
    EXPECT_EQ(R.Kind, smt::Outcome::Proved) << Even << ": " << R.Reason;
  }
  // ... while sin(-0) = -0 and rcp(-0) = -inf: there they may differ, and the
  // model replays with -0 and +0 as two points.
  for (const char *Odd : {"sin", "tanh", "rcp.approx"}) {
    Context C;
    const Expr *Query = differsAtSignedZeros(C, Odd);
    smt::QueryResult R = smt::solve({"signed zeros", Query, {}, smt::Mode::IEEE}, {});
    ASSERT_EQ(R.Kind, smt::Outcome::Counterexample) << Odd << ": " << R.Reason;
    Interpreter In(R.Model);
    EXPECT_TRUE(In.eval(Query).isTrue()) << Odd;
    EXPECT_FALSE(In.usedHostFallback()) << Odd;
  }
}

TEST(Solver, OverTheRealsFunctionsKeepTheirExactPoints) {
  // x > 0 ? x : expm1(x) against x >= 0 ? x : expm1(x) (ELU's comparison
  // made non-strict): one function, as expm1(0) = 0 ...
  Context C;
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Zero = C.floatConst(Type::f32(), 0.0);
  auto Elu = [&](FCmpPredicate P, const char *F) {
    const Expr *Fx = C.call(F, Type::f32(), std::span(&X, 1));
    return C.select(C.fcmp(P, X, Zero), X, Fx);
  };
  auto Differ = [&](const char *F) {
    return C.fcmp(FCmpPredicate::One, Elu(FCmpPredicate::Ogt, F),
                  Elu(FCmpPredicate::Oge, F));
  };
  EXPECT_EQ(smt::solve({"elu", Differ("expm1"), {}, smt::Mode::Real}, {}).Kind,
            smt::Outcome::Proved);
  // ... not with exp (exp(0) = 1), nor with a function the table does not
  // know: there the value at 0 is free.
  for (const char *F : {"exp", "__nv_expm1f"})
    EXPECT_EQ(smt::solve({"elu", Differ(F), {}, smt::Mode::Real}, {}).Kind,
              smt::Outcome::Counterexample)
        << F;
  // The points hold over the reals only: IEEE mode leaves exp free.
  const Expr *AtZero = C.call("exp", Type::f32(), std::span(&Zero, 1));
  const Expr *NotOne =
      C.fcmp(FCmpPredicate::One, AtZero, C.floatConst(Type::f32(), 1.0));
  EXPECT_EQ(smt::solve({"exp(0)", NotOne, {}, smt::Mode::Real}, {}).Kind,
            smt::Outcome::Proved);
  EXPECT_EQ(smt::solve({"exp(0)", NotOne, {}, smt::Mode::IEEE}, {}).Kind,
            smt::Outcome::Counterexample);
}

TEST(Solver, FtzFunctionsReadSubnormalArgumentsAsZero) {
  Context C;
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Tiny = C.floatConst(Type::f32(), 1e-40); // subnormal
  const Expr *Zero = C.floatConst(Type::f32(), 0.0);
  auto Call = [&](const char *F, const Expr *A) {
    return C.call(F, Type::f32(), std::span(&A, 1));
  };
  // rcp.approx.ftz(1e-40) is rcp.approx.ftz(+0); rcp.approx may differ.
  const Expr *Ftz = C.notOf(sameBits(C, Call("rcp.approx.ftz", Tiny), Call("rcp.approx.ftz", Zero)));
  EXPECT_EQ(smt::solve({"ftz", Ftz, {}, smt::Mode::IEEE}, {}).Kind, smt::Outcome::Proved);
  const Expr *Exact = C.notOf(sameBits(C, Call("rcp.approx", Tiny), Call("rcp.approx", Zero)));
  EXPECT_EQ(smt::solve({"no ftz", Exact, {}, smt::Mode::IEEE}, {}).Kind,
            smt::Outcome::Counterexample);
  // The interpreter's environment keeps one point for the two arguments.
  Env E;
  E.setCall("ex2.approx.ftz", {Value::ofDouble(Type::f32(), -1e-40)},
            Value::ofDouble(Type::f32(), 1.0));
  const Expr *AtX = Call("ex2.approx.ftz", X);
  E.setSymbol("x", Value::ofDouble(Type::f32(), 0.0));
  Interpreter In(E);
  EXPECT_EQ(In.eval(AtX).asDouble(), 1.0);
  EXPECT_FALSE(In.usedHostFallback());
}

/// What cvc5 answers for an SMT-LIB script ("" when it is not installed).
std::string cvc5Answer(const std::string &Path) {
  if (std::system("command -v cvc5 >/dev/null 2>&1") != 0)
    return "";
  std::string Cmd = "cvc5 --lang smt2 " + Path + " 2>&1";
  FILE *Pipe = popen(Cmd.c_str(), "r");
  if (!Pipe)
    return "popen failed";
  char Buf[256] = {0};
  std::string Out;
  while (fgets(Buf, sizeof Buf, Pipe))
    Out += Buf;
  pclose(Pipe);
  return Out;
}

/// Solves Q, dumping it into Dir, and has cvc5 re-check the dump: the two
/// solvers must agree (cvc5 says unsat for proved, sat for a counterexample).
void expectCvc5Agrees(const smt::Query &Q, smt::Outcome Expected,
                      const std::filesystem::path &Dir) {
  smt::SolverOptions O;
  O.DumpDir = Dir.string();
  smt::QueryResult R = smt::solve(Q, O);
  ASSERT_EQ(R.Kind, Expected) << Q.Name << ": " << R.Reason;
  ASSERT_FALSE(R.DumpedTo.empty());
  std::ifstream In(R.DumpedTo);
  std::string Text((std::istreambuf_iterator<char>(In)), {});
  EXPECT_NE(Text.find("(check-sat)"), std::string::npos);
  // Z3's own extension is not SMT-LIB: another solver rejects it.
  EXPECT_EQ(Text.find("fp.to_ieee_bv"), std::string::npos) << Q.Name;
  std::string Answer = cvc5Answer(R.DumpedTo);
  if (Answer.empty())
    GTEST_SKIP() << "cvc5 not installed";
  const char *Want = Expected == smt::Outcome::Proved ? "unsat" : "sat";
  EXPECT_EQ(Answer.substr(0, Answer.find('\n')), Want) << Q.Name << ": " << Answer;
}

TEST(Solver, QueriesCanBeDumpedAsSmtLib) {
  Context C;
  std::filesystem::path Dir =
      std::filesystem::temp_directory_path() / "stagecheck-dump-test";
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  EXPECT_NE(smt::toSMTLib({"associativity", associativityViolation(C), {},
                           smt::Mode::IEEE})
                .find("(declare-fun a () (_ FloatingPoint 8 24))"),
            std::string::npos);
  expectCvc5Agrees({"associativity", associativityViolation(C), {}, smt::Mode::IEEE},
                   smt::Outcome::Counterexample, Dir);
  // A store's value query compares bit patterns (a float store is a bitcast
  // in LLVM IR and PTX): x * 2 and x + x agree bit for bit (a NaN's pattern
  // is canonical); x + 0 is not x at -0.
  const Expr *X = C.symbol("x", Type::f32());
  const Expr *Two = C.floatConst(Type::f32(), 2.0);
  const Expr *Zero = C.floatConst(Type::f32(), 0.0);
  expectCvc5Agrees({"x * 2 is x + x, bit for bit",
                    C.notOf(sameBits(C, C.floatBinary(Op::FMul, X, Two),
                                     C.floatBinary(Op::FAdd, X, X))),
                    {}, smt::Mode::IEEE},
                   smt::Outcome::Proved, Dir);
  expectCvc5Agrees({"x + 0 is not x, bit for bit",
                    C.notOf(sameBits(C, C.floatBinary(Op::FAdd, X, Zero), X)),
                    {}, smt::Mode::IEEE},
                   smt::Outcome::Counterexample, Dir);
}

} // namespace

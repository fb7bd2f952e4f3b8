// The symbolic layout functions, evaluated by ir::Interpreter for every
// thread id and register index, against the concrete ones.

#include "TestData.h"

#include "ir/Interpreter.h"
#include "layout/Symbolic.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace stagecheck;
using namespace stagecheck::layout;
using namespace stagecheck::layout::test;

namespace {

TEST(LayoutSymbolic, ElementOfThreadAgreesWithTheConcreteLayout) {
  auto Cases = loadCases("layouts.json", "cases");
  uint64_t Evaluations = 0;
  for (const auto &C : Cases) {
    SCOPED_TRACE(C.Label);
    DistributedLayout L(*parseCase(C), C.Shape);
    ir::Context Ctx;
    const ir::Expr *Tid =
        Ctx.symbol("tid.x", ir::Type::i(32), ir::SymbolRole::ThreadId);
    const ir::Expr *Reg = Ctx.symbol("reg", ir::Type::i(32));
    auto Index = elementOfThread(Ctx, L, Tid, Reg);
    ASSERT_EQ(Index.size(), C.Shape.size());
    for (int32_t T = 0; T < L.numThreads(); ++T)
      for (int32_t R = 0; R < L.numRegisters(); ++R) {
        ir::Env Env;
        Env.setSymbol("tid.x", ir::Value::ofBits(ir::Type::i(32), T));
        Env.setSymbol("reg", ir::Value::ofBits(ir::Type::i(32), R));
        ir::Interpreter I(Env);
        auto Want = L.elementOfThread(T, R);
        for (unsigned D = 0; D < Index.size(); ++D)
          ASSERT_EQ(int64_t(I.eval(Index[D]).asUnsigned()), Want[D])
              << "thread " << T << " register " << R << " dim " << D;
        ++Evaluations;
      }
  }
  std::cout << "[layout] symbolic element index evaluated for " << Evaluations
            << " (thread, register) pairs\n";
}

TEST(LayoutSymbolic, ConstantRegistersFoldToSmallExpressions) {
  // With the register a constant (as in LLVM IR, one value per register),
  // only the lane and warp bits stay symbolic.
  auto E = parseEncoding("#ttg.blocked<{sizePerThread = [1, 4], "
                         "threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], "
                         "order = [1, 0]}>",
                         nullptr, {});
  DistributedLayout L(*E, {16, 64});
  ir::Context Ctx;
  const ir::Expr *Tid =
      Ctx.symbol("tid.x", ir::Type::i(32), ir::SymbolRole::ThreadId);
  for (int32_t R = 0; R < L.numRegisters(); ++R) {
    auto Index = elementOfThread(Ctx, L, Tid, Ctx.intConst(ir::Type::i(32), R));
    for (int32_t T = 0; T < L.numThreads(); T += 7) {
      ir::Env Env;
      Env.setSymbol("tid.x", ir::Value::ofBits(ir::Type::i(32), T));
      ir::Interpreter I(Env);
      auto Want = L.elementOfThread(T, R);
      for (unsigned D = 0; D < 2; ++D)
        ASSERT_EQ(int64_t(I.eval(Index[D]).asUnsigned()), Want[D]);
    }
    // Register 0 contributes nothing: the index depends on tid.x alone.
    if (R == 0) {
      for (const ir::Expr *X : Index)
        for (const ir::Expr *N : ir::postOrder({&X, 1})) {
          EXPECT_TRUE(N->op() != ir::Op::Symbol || N->name() == "tid.x");
        }
    }
  }
}

TEST(LayoutSymbolic, SharedOffsetAgreesWithTheConcreteLayout) {
  auto Cases = loadCases("shared_triton_unittests.json", "cases");
  for (const auto &C : Cases) {
    SCOPED_TRACE(C.Label);
    SharedLayout L(*parseCase(C), C.Shape);
    ir::Context Ctx;
    std::vector<const ir::Expr *> Elem;
    for (unsigned D = 0; D < C.Shape.size(); ++D)
      Elem.push_back(Ctx.symbol("e" + std::to_string(D), ir::Type::i(32)));
    const ir::Expr *Off = sharedOffset(Ctx, L, Elem);
    for (const auto &E : allElements(C.Shape)) {
      ir::Env Env;
      for (unsigned D = 0; D < E.size(); ++D)
        Env.setSymbol("e" + std::to_string(D),
                      ir::Value::ofBits(ir::Type::i(32), E[D]));
      ir::Interpreter I(Env);
      ASSERT_EQ(int64_t(I.eval(Off).asUnsigned()), L.offset(E))
          << "element " << shapeStr(E);
    }
  }
}

} // namespace

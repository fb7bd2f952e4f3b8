//===- OpsTest.cpp - The meaning of TTIR/TTGIR ops the corpus lacks -------===//
//
// One small kernel per op (or per group of ops that undo each other), lifted
// and run through the concrete interpreter: the values a store writes must
// be the ones the op's Triton definition gives. Buffer element i of every
// parameter holds i + 1 (i32) or i + 0.5 (f32), so that every value read
// shows where it came from. docs/coverage.md points here for these ops.
//
//===----------------------------------------------------------------------===//
#include "frontends/ttir/Lifter.h"
#include "ir/Errors.h"
#include "ir/Interpreter.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace stagecheck;
using namespace stagecheck::ir;
using namespace stagecheck::ttir;

namespace {

/// A kernel @k(%x: !tt.ptr<T>, %out: !tt.ptr<T>, %n: i32) around Body, with
/// optional text before the module (aliases) and after the kernel (callees).
Module kernel(const std::string &Body, const std::string &T = "i32",
              const std::string &Aliases = "",
              const std::string &Functions = "") {
  return parseModule(Aliases + "module {\n  tt.func public @k(%x: !tt.ptr<" +
                         T + ">, %out: !tt.ptr<" + T + ">, %n: i32) {\n" +
                         Body + "    tt.return\n  }\n" + Functions + "}\n",
                     "k.ttir");
}

/// Stores %v (tensor<NxT>) to out[0..N).
std::string storeAll(const std::string &V, int N, const std::string &T = "i32") {
  std::string S = std::to_string(N);
  return "    %sr = tt.make_range {end = " + S + " : i32, start = 0 : i32} : tensor<" +
         S + "xi32>\n    %sp = tt.splat %out : !tt.ptr<" + T + "> -> tensor<" + S +
         "x!tt.ptr<" + T + ">>\n    %sq = tt.addptr %sp, %sr : tensor<" + S +
         "x!tt.ptr<" + T + ">>, tensor<" + S + "xi32>\n    tt.store %sq, " + V +
         " : tensor<" + S + "x!tt.ptr<" + T + ">>\n";
}

/// Loads x[0..N) as %v (tensor<NxT>).
std::string loadAll(int N, const std::string &T = "i32") {
  std::string S = std::to_string(N);
  return "    %lr = tt.make_range {end = " + S + " : i32, start = 0 : i32} : tensor<" +
         S + "xi32>\n    %lp = tt.splat %x : !tt.ptr<" + T + "> -> tensor<" + S +
         "x!tt.ptr<" + T + ">>\n    %lq = tt.addptr %lp, %lr : tensor<" + S +
         "x!tt.ptr<" + T + ">>, tensor<" + S + "xi32>\n    %v = tt.load %lq : tensor<" +
         S + "x!tt.ptr<" + T + ">>\n";
}

/// Concrete evaluation: index symbols and scalars by name, buffers as above.
struct Eval {
  std::map<std::string, int64_t> Symbols;

  Value operator()(const Expr *E, std::vector<int64_t> Index = {}) const {
    Env En;
    for (size_t D = 0; D < Index.size(); ++D)
      En.setSymbol("e" + std::to_string(D), Value::ofBits(Type::i(32), uint64_t(Index[D])));
    for (const auto &[Name, V] : Symbols)
      En.setSymbol(Name, Value::ofBits(Type::i(32), uint64_t(V)));
    Interpreter I(En, [](const std::string &, uint64_t At, Type T) {
      return T.isFloat() ? Value::ofDouble(T, double(At) + 0.5)
                         : Value::ofBits(T, At + 1);
    });
    return I.eval(E);
  }
  int64_t integer(const Expr *E, std::vector<int64_t> Index = {}) const {
    return (*this)(E, std::move(Index)).asSigned();
  }
  double real(const Expr *E, std::vector<int64_t> Index = {}) const {
    return (*this)(E, std::move(Index)).asDouble();
  }
};

/// The values the only write of R stores at out[0..N), checking that
/// element k goes to out[k].
std::vector<int64_t> stored(const LiftResult &R, int N, const Eval &E = {}) {
  EXPECT_EQ(R.Effects.Writes.size(), 1u);
  std::vector<int64_t> Out;
  if (R.Effects.Writes.empty())
    return Out;
  const Write &W = R.Effects.Writes[0];
  for (int K = 0; K < N; ++K) {
    EXPECT_TRUE(E(W.Guard, {K}).isTrue());
    EXPECT_TRUE(E(W.Defined, {K}).isTrue());
    EXPECT_EQ(E.integer(W.Index, {K}), K);
    Out.push_back(E.integer(W.Value, {K}));
  }
  return Out;
}

using Ints = std::vector<int64_t>;

TEST(Ops, JoinSplitAndCat) {
  // join(v, v + 10) is [[1, 11], [2, 12], ...]; split takes it apart again;
  // cat puts the halves one after the other along dimension 0.
  Context C;
  Module M = kernel(loadAll(4) + R"(
    %c10 = arith.constant dense<10> : tensor<4xi32>
    %w = arith.addi %v, %c10 : tensor<4xi32>
    %j = tt.join %v, %w : tensor<4xi32> -> tensor<4x2xi32>
    %l, %r = tt.split %j : tensor<4x2xi32> -> tensor<4xi32>
    %c = tt.cat %r, %l : tensor<4xi32> -> tensor<8xi32>
)" + storeAll("%c", 8));
  EXPECT_EQ(stored(liftKernel(C, M, {}), 8), (Ints{11, 12, 13, 14, 1, 2, 3, 4}));
}

TEST(Ops, TransAndReshapeMoveElements) {
  // v viewed as 2x4 (row major), transposed to 4x2, flattened again: the
  // element at (i, j) of the 4x2 is v[j * 4 + i].
  Context C;
  Module M = kernel(loadAll(8) + R"(
    %a = tt.reshape %v : tensor<8xi32> -> tensor<2x4xi32>
    %t = tt.trans %a {order = array<i32: 1, 0>} : tensor<2x4xi32> -> tensor<4x2xi32>
    %f = tt.reshape %t : tensor<4x2xi32> -> tensor<8xi32>
)" + storeAll("%f", 8));
  EXPECT_EQ(stored(liftKernel(C, M, {}), 8), (Ints{1, 5, 2, 6, 3, 7, 4, 8}));
}

TEST(Ops, ScanIsAPrefixInEitherDirection) {
  Context C;
  std::string Scan = R"(
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = REV}> ({
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tt.scan.return %c : i32
    }) : (tensor<4xi32>) -> tensor<4xi32>
)";
  auto With = [&](const std::string &Rev) {
    std::string S = Scan;
    S.replace(S.find("REV"), 3, Rev);
    return kernel(loadAll(4) + S + storeAll("%s", 4));
  };
  EXPECT_EQ(stored(liftKernel(C, With("false"), {}), 4), (Ints{1, 3, 6, 10}));
  EXPECT_EQ(stored(liftKernel(C, With("true"), {}), 4), (Ints{10, 9, 7, 4}));
}

// Lifted as Triton's lowering computes it, a scan is the sequential prefix
// only where the combine's order does not matter: the lowering scans in
// parallel, so a combine like subtraction (or an f32 add) takes the order
// its layout gives (scanLowered), and without a layout it is unsupported.
TEST(Ops, LoweredScanKeepsOnlyAnOrderFreeCombine) {
  Context C;
  auto With = [&](const std::string &Op, const std::string &Args = "%a, %b") {
    return kernel(loadAll(4) + R"(
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%a: i32, %b: i32):
      %c = )" + Op + " " + Args + R"( : i32
      tt.scan.return %c : i32
    }) : (tensor<4xi32>) -> tensor<4xi32>
)" + storeAll("%s", 4));
  };
  LiftOptions Lowered;
  Lowered.Lowering = true;
  EXPECT_EQ(stored(liftKernel(C, With("arith.addi"), Lowered), 4),
            (Ints{1, 3, 6, 10}));
  EXPECT_EQ(stored(liftKernel(C, With("arith.maxsi"), Lowered), 4),
            (Ints{1, 2, 3, 4}));
  EXPECT_EQ(stored(liftKernel(C, With("arith.addi", "%b, %a"), Lowered), 4),
            (Ints{1, 3, 6, 10}));
  // Subtraction, and an order-free op not applied to both arguments
  // (a + a is not associative as a combine).
  for (auto [Op, Args] : {std::pair{"arith.subi", "%a, %b"},
                          std::pair{"arith.addi", "%a, %a"}}) {
    try {
      liftKernel(C, With(Op, Args), Lowered);
      ADD_FAILURE() << "an order-dependent scan was lifted: " << Op << " "
                    << Args;
    } catch (const UnsupportedError &E) {
      EXPECT_NE(std::string(E.what()).find("tt.scan of a tensor without a layout"),
                std::string::npos)
          << E.what();
    }
  }
  // Not lowered (TTIR against TTGIR), the same scan is one op on both sides.
  EXPECT_EQ(stored(liftKernel(C, With("arith.subi"), {}), 4),
            (Ints{1, -1, -4, -8}));
}

TEST(Ops, HistogramCountsEachBin) {
  // Values 1..8 integer-divided by 3: 0, 0, 1, 1, 1, 2, 2, 2; bin 3 is empty
  // and the masked-off last element (2) is not counted.
  Context C;
  Module M = kernel(loadAll(8) + R"(
    %c3 = arith.constant dense<3> : tensor<8xi32>
    %q = arith.divsi %v, %c3 : tensor<8xi32>
    %c8 = arith.constant dense<8> : tensor<8xi32>
    %m = arith.cmpi slt, %v, %c8 : tensor<8xi32>
    %h = tt.histogram %q, %m : tensor<8xi32> -> tensor<4xi32>
)" + storeAll("%h", 4));
  EXPECT_EQ(stored(liftKernel(C, M, {}), 4), (Ints{2, 3, 2, 0}));
}

TEST(Ops, GatherReadsAlongItsAxisAndChecksTheIndex) {
  Context C;
  Module M = kernel(loadAll(4) + R"(
    %i = arith.constant dense<[3, 0, 2, 1]> : tensor<4xi32>
    %g = tt.gather %v[%i] {axis = 0 : i32} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
)" + storeAll("%g", 4));
  LiftResult R = liftKernel(C, M, {});
  EXPECT_EQ(stored(R, 4), (Ints{4, 1, 3, 2}));
  // An index outside the source is undefined behaviour, stated per element
  // (here the indices are in range: the condition holds nowhere).
  ASSERT_EQ(R.Effects.Undefined.size(), 1u);
  for (int K = 0; K < 4; ++K)
    EXPECT_FALSE(Eval()(R.Effects.Undefined[0].Condition, {K}).isTrue());
  Module Out = kernel(loadAll(4) + R"(
    %i = arith.constant dense<[3, 0, 4, 1]> : tensor<4xi32>
    %g = tt.gather %v[%i] {axis = 0 : i32} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
)" + storeAll("%g", 4));
  R = liftKernel(C, Out, {});
  ASSERT_EQ(R.Effects.Undefined.size(), 1u);
  EXPECT_EQ(R.Effects.Undefined[0].Reason, "tt.gather index out of range");
  EXPECT_TRUE(Eval()(R.Effects.Undefined[0].Condition, {2}).isTrue());
  EXPECT_FALSE(Eval()(R.Effects.Undefined[0].Condition, {1}).isTrue());
}

TEST(Ops, AtomicsAreOnePerElementUnderTheirMask) {
  Context C;
  Module M = kernel(R"(
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %p = tt.splat %out : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %q = tt.addptr %p, %r : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %ns = tt.splat %n : i32 -> tensor<4xi32>
    %m = arith.cmpi slt, %r, %ns : tensor<4xi32>
    %o = tt.atomic_rmw add, relaxed, gpu, %q, %r, %m : (tensor<4x!tt.ptr<i32>>, tensor<4xi32>, tensor<4xi1>) -> tensor<4xi32>
    %c0 = arith.constant 0 : i32
    %c7 = arith.constant 7 : i32
    %old = tt.atomic_cas acq_rel, gpu, %x, %c0, %c7 : (!tt.ptr<i32>, i32, i32) -> i32
)");
  LiftResult R = liftKernel(C, M, {});
  ASSERT_EQ(R.Effects.Atomics.size(), 5u);
  Eval E{{{"arg2", 2}}};
  for (int K = 0; K < 4; ++K) {
    const Atomic &A = R.Effects.Atomics[size_t(K)];
    EXPECT_EQ(A.Kind, AtomicOp::Add);
    EXPECT_EQ(A.Buffer, "arg1");
    EXPECT_EQ(E.integer(A.Index), K);
    EXPECT_EQ(E.integer(A.Value), K);
    EXPECT_EQ(E(A.Guard).isTrue(), K < 2); // n = 2
  }
  const Atomic &Cas = R.Effects.Atomics[4];
  EXPECT_EQ(Cas.Kind, AtomicOp::CompareExchange);
  EXPECT_EQ(Cas.Buffer, "arg0");
  ASSERT_NE(Cas.Compare, nullptr);
  EXPECT_EQ(E.integer(Cas.Compare), 0);
  EXPECT_EQ(E.integer(Cas.Value), 7);
}

TEST(Ops, AssertIsUndefinedWhereItFails) {
  Context C;
  Module M = kernel(R"(
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %ns = tt.splat %n : i32 -> tensor<4xi32>
    %ok = arith.cmpi slt, %r, %ns : tensor<4xi32>
    tt.assert %ok, "r < n" : tensor<4xi1>
)");
  LiftResult R = liftKernel(C, M, {});
  ASSERT_EQ(R.Effects.Undefined.size(), 1u);
  EXPECT_EQ(R.Effects.Undefined[0].Reason, "device assertion failed: r < n");
  Eval E{{{"arg2", 2}}};
  EXPECT_FALSE(E(R.Effects.Undefined[0].Condition, {1}).isTrue());
  EXPECT_TRUE(E(R.Effects.Undefined[0].Condition, {3}).isTrue());
}

TEST(Ops, FloatOpsOfTheTritonDialect) {
  // clampf, precise_sqrt, precise_divf, fp_to_fp (to f16 and back) and
  // bitcast (f32 -> i32 -> f32) on x[k] = k + 0.5.
  Context C;
  Module M = kernel(loadAll(4, "f32") + R"(
    %lo = arith.constant dense<1.0> : tensor<4xf32>
    %hi = arith.constant dense<3.0> : tensor<4xf32>
    %c = tt.clampf %v, %lo, %hi, propagateNan = none : tensor<4xf32>
    %s = tt.precise_sqrt %c : tensor<4xf32>
    %d = tt.precise_divf %s, %hi : tensor<4xf32>
    %h = tt.fp_to_fp %d, rounding = rtne : tensor<4xf32> -> tensor<4xf16>
    %e = tt.fp_to_fp %h : tensor<4xf16> -> tensor<4xf32>
    %b = tt.bitcast %e : tensor<4xf32> -> tensor<4xi32>
    %f = tt.bitcast %b : tensor<4xi32> -> tensor<4xf32>
)" + storeAll("%f", 4, "f32"), "f32");
  LiftResult R = liftKernel(C, M, {});
  ASSERT_EQ(R.Effects.Writes.size(), 1u);
  const Write &W = R.Effects.Writes[0];
  for (int K = 0; K < 4; ++K) {
    double Clamped = std::min(std::max(K + 0.5, 1.0), 3.0);
    float Quotient = std::sqrt(float(Clamped)) / 3.0f;
    Value Half = Value::ofDouble(Type::f16(), Quotient);
    EXPECT_EQ(Eval().real(W.Value, {K}), Half.asDouble()) << K;
  }
}

TEST(Ops, ScfIfWhileAndCalls) {
  // while (i < n) i += 3 from 0; then if (i > 4) i * 2 else i; through a
  // private function.
  Context C;
  Module M = kernel(R"(
    %c0 = arith.constant 0 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %i = scf.while (%a = %c0) : (i32) -> i32 {
      %go = arith.cmpi slt, %a, %n : i32
      scf.condition(%go) %a : i32
    } do {
    ^bb0(%b: i32):
      %b3 = arith.addi %b, %c3 : i32
      scf.yield %b3 : i32
    }
    %big = arith.cmpi sgt, %i, %c4 : i32
    %r = scf.if %big -> (i32) {
      %twice = tt.call @twice(%i) : (i32) -> i32
      scf.yield %twice : i32
    } else {
      scf.yield %i : i32
    }
    %p = tt.addptr %out, %c0 : !tt.ptr<i32>, i32
    tt.store %p, %r : !tt.ptr<i32>
)",
                    "i32", "",
                    R"(  tt.func private @twice(%y: i32) -> i32 {
    %s = arith.addi %y, %y : i32
    tt.return %s : i32
  }
)");
  LiftResult R = liftKernel(C, M, {});
  ASSERT_EQ(R.Effects.Writes.size(), 1u);
  ASSERT_EQ(R.Bounds.size(), 1u); // the while loop's bound is stated
  EXPECT_NE(R.Bounds[0].find("at most 4 iterations"), std::string::npos);
  auto At = [&](int64_t N) {
    return Eval{{{"arg2", N}}}.integer(R.Effects.Writes[0].Value);
  };
  EXPECT_EQ(At(0), 0);
  EXPECT_EQ(At(3), 3);  // i = 3: not > 4
  EXPECT_EQ(At(4), 12); // i = 6
  EXPECT_EQ(At(7), 18); // i = 9
}

const char *SharedAliases = R"(#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#s = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 32}>
#t = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = true, elementBitWidth = 32}>
#l = #ttg.linear<{register = [], lane = [[0, 1], [0, 2], [1, 0], [2, 0], [0, 4]], warp = [], block = []}>
#smem = #ttg.shared_memory
)";

TEST(Ops, SharedMemoryViews) {
  // A 4x8 tile stored to shared memory, read back transposed and as its
  // right half (memdesc_trans, memdesc_subslice), and back in a linear
  // layout: layouts change no value.
  Context C;
  Module M = kernel(loadAll(32) + R"(
    %a = tt.reshape %v : tensor<32xi32> -> tensor<4x8xi32, #b>
    %m = ttg.local_alloc : () -> !ttg.memdesc<4x8xi32, #s, #smem, mutable>
    ttg.local_store %a, %m : tensor<4x8xi32, #b> -> !ttg.memdesc<4x8xi32, #s, #smem, mutable>
    %t = ttg.memdesc_trans %m {order = array<i32: 1, 0>} : !ttg.memdesc<4x8xi32, #s, #smem, mutable> -> !ttg.memdesc<8x4xi32, #t, #smem, mutable>
    %h = ttg.memdesc_subslice %t [4, 0] : !ttg.memdesc<8x4xi32, #t, #smem, mutable> -> !ttg.memdesc<4x4xi32, #t, #smem, mutable, 8x4>
    %r = ttg.local_load %h : !ttg.memdesc<4x4xi32, #t, #smem, mutable, 8x4> -> tensor<4x4xi32, #b>
    %k = ttg.convert_layout %r : tensor<4x4xi32, #b> -> tensor<4x4xi32, #l>
    %f = tt.reshape %k : tensor<4x4xi32, #l> -> tensor<16xi32>
    ttg.local_dealloc %m : !ttg.memdesc<4x8xi32, #s, #smem, mutable>
)" + storeAll("%f", 16),
                    "i32", SharedAliases);
  ASSERT_EQ(M.Aliases.at("s")->Layout->K, Layout::Kind::NVMMAShared);
  EXPECT_EQ(M.Aliases.at("s")->Layout->SwizzlingByteWidth, 32u);
  EXPECT_TRUE(M.Aliases.at("t")->Layout->Transposed);
  EXPECT_EQ(M.Aliases.at("l")->Layout->K, Layout::Kind::Other);
  // Element (i, j) of the 4x4 is element (j, 4 + i) of the tile: v[j*8 + 4 + i].
  Ints Expected;
  for (int I = 0; I < 4; ++I)
    for (int J = 0; J < 4; ++J)
      Expected.push_back(J * 8 + 4 + I + 1);
  EXPECT_EQ(stored(liftKernel(C, M, {}), 16), Expected);
}

TEST(Ops, WarpGroupDotReadsSharedOperands) {
  // ttng.warp_group_dot on shared-memory operands is tt.dot: a 2x2 product
  // of x viewed as [[1, 2], [3, 4]] with itself, plus an accumulator of 1;
  // warp_group_dot_wait passes its operands through.
  Context C;
  Module M = kernel(loadAll(4) + R"(
    %a = tt.reshape %v : tensor<4xi32> -> tensor<2x2xi32, #b>
    %m = ttg.local_alloc %a : (tensor<2x2xi32, #b>) -> !ttg.memdesc<2x2xi32, #s, #smem>
    %acc = arith.constant dense<1> : tensor<2x2xi32, #b>
    %d = ttng.warp_group_dot %m, %m, %acc {inputPrecision = 0 : i32, isAsync = true} : !ttg.memdesc<2x2xi32, #s, #smem> * !ttg.memdesc<2x2xi32, #s, #smem> -> tensor<2x2xi32, #b>
    %w:3 = ttng.warp_group_dot_wait %d, %m, %m {pendings = 0 : i32} : tensor<2x2xi32, #b>, !ttg.memdesc<2x2xi32, #s, #smem>, !ttg.memdesc<2x2xi32, #s, #smem>
    %f = tt.reshape %w#0 : tensor<2x2xi32, #b> -> tensor<4xi32>
)" + storeAll("%f", 4),
                    "i32", SharedAliases);
  // [[1, 2], [3, 4]]^2 = [[7, 10], [15, 22]].
  EXPECT_EQ(stored(liftKernel(C, M, {}), 4), (Ints{8, 11, 16, 23}));
}

TEST(Ops, OpsOutsideTheModelAreUnsupportedWithTheirPlace) {
  struct Case {
    const char *Body;
    const char *Reason;
  };
  const Case Cases[] = {
      {"    %p = tt.int_to_ptr %n : i32 -> !tt.ptr<i32>\n",
       "unsupported op tt.int_to_ptr"},
      {"    %q = tt.atomic_rmw nand, relaxed, gpu, %x, %n : (!tt.ptr<i32>, i32) -> i32\n",
       "unsupported op tt.atomic_rmw nand"},
      {"    %e = tt.extern_elementwise %n {libname = \"\", libpath = \"\", pure = "
       "true, symbol = \"__nv_popc\"} : (i32) -> i32\n",
       "unsupported extern function __nv_popc"},
      {"    %f = tt.make_tensor_ptr %x, [%n], [%n], [%n] {order = array<i32: 0>} : "
       "<tensor<4xi32>>\n",
       "unsupported op tt.make_tensor_ptr"},
  };
  for (const Case &K : Cases) {
    Context C;
    Module M = kernel(K.Body);
    try {
      liftKernel(C, M, {});
      ADD_FAILURE() << "lifted " << K.Body;
    } catch (const UnsupportedError &E) {
      EXPECT_EQ(E.What, K.Reason);
      EXPECT_EQ(E.Where.File, "k.ttir");
      EXPECT_GE(E.Where.Line, 3u);
    }
  }
}

} // namespace

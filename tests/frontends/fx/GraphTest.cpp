// The FX frontend on the printed graphs of the corpus and on small graphs
// written here: parsing, locations of errors, lifting, parameters.
#include "frontends/fx/Graph.h"
#include "frontends/fx/Lift.h"
#include "ir/Errors.h"
#include "ir/Interpreter.h"
#include "ir/Text.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace stagecheck;
using namespace stagecheck::fx;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path &P) {
  std::ifstream In(P);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::vector<fs::path> corpusGraphs() {
  std::vector<fs::path> Out;
  for (const auto &B : fs::directory_iterator(STAGECHECK_TEST_DIR "/corpus")) {
    fs::path Ref = B.path() / "reference";
    if (!fs::exists(Ref))
      continue;
    for (const auto &F : fs::directory_iterator(Ref)) {
      std::string Name = F.path().filename().string();
      if (Name == "graph.py" || Name == "fx_graph_readable.py" ||
          Name == "fx_graph_transformed.py" || Name == "exported_program.txt")
        Out.push_back(F.path());
    }
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// A deterministic pseudo-random element for every (buffer, index): the
/// same input for every graph that reads the same buffers.
ir::Value pseudoRandom(const std::string &Buffer, uint64_t Index, ir::Type T) {
  uint64_t H =
      std::hash<std::string>()(Buffer) ^ (Index * 0x9E3779B97F4A7C15ull);
  H ^= H >> 31;
  H *= 0xBF58476D1CE4E5B9ull;
  H ^= H >> 29;
  if (T.isFloat()) {
    double V = (double(H % 20001) - 10000.0) / 1000.0; // [-10, 10]
    return ir::Value::ofDouble(T, V);
  }
  return ir::Value::ofBits(T, (H % 2001) - 1000);
}

/// Every element of every output of a lifted graph, in order.
std::vector<ir::Value> evaluateAll(const LiftedGraph &L) {
  std::vector<ir::Value> Out;
  for (const ir::Write &W : L.Effects.Writes) {
    std::vector<uint64_t> Counter(W.Bound.size(), 0);
    for (;;) {
      ir::Env E;
      for (size_t I = 0; I < W.Bound.size(); ++I)
        E.setSymbol(W.Bound[I].Symbol->name(),
                    ir::Value::ofBits(W.Bound[I].Symbol->type(), Counter[I]));
      for (const LiftedParam &P : L.Params)
        E.setSymbol(P.Name, ir::Value::ofDouble(P.Symbol->type(), P.Value));
      ir::Interpreter I(E, pseudoRandom);
      Out.push_back(I.eval(W.Value));
      size_t K = W.Bound.size();
      while (K > 0 && ++Counter[K - 1] >= W.Bound[K - 1].Extent)
        Counter[--K] = 0;
      if (K == 0)
        break;
    }
  }
  return Out;
}

TEST(FxGraph, ParsesEveryCorpusGraph) {
  std::vector<fs::path> Graphs = corpusGraphs();
  ASSERT_GE(Graphs.size(), 33u);
  for (const fs::path &P : Graphs) {
    SCOPED_TRACE(P.string());
    Graph G = parseGraph(slurp(P), P.string());
    EXPECT_FALSE(G.placeholders().empty());
    EXPECT_FALSE(G.Outputs.empty());
    for (const Node &N : G.Nodes)
      EXPECT_TRUE(N.Loc.known());
  }
}

TEST(FxGraph, LiftsEveryCorpusGraph) {
  for (const fs::path &P : corpusGraphs()) {
    SCOPED_TRACE(P.string());
    ir::Context C;
    Graph G = parseGraph(slurp(P), P.string());
    LiftedGraph L = liftGraph(C, G, {});
    ASSERT_EQ(L.Effects.Writes.size(), G.Outputs.size());
    for (const ir::Write &W : L.Effects.Writes) {
      EXPECT_FALSE(W.Bound.empty());
      // The value reads only the graph's inputs.
      const ir::Expr *Roots[] = {W.Value};
      for (const ir::Expr *E : ir::postOrder(Roots)) {
        if (E->op() != ir::Op::Read)
          continue;
        const Node *N = G.node(E->name());
        EXPECT_TRUE(N && N->K == Node::Kind::Placeholder) << E->name();
      }
    }
  }
}

/// The graph inductor was handed and the graph it compiled after its own
/// passes (fx_graph_readable.py, fx_graph_transformed.py) mean the same:
/// element for element, bit for bit, on the same inputs.
TEST(FxGraph, PostGradPassesKeepTheMeaning) {
  unsigned Compared = 0;
  for (const auto &B : fs::directory_iterator(STAGECHECK_TEST_DIR "/corpus")) {
    fs::path Before = B.path() / "reference" / "fx_graph_readable.py";
    fs::path After = B.path() / "reference" / "fx_graph_transformed.py";
    if (!fs::exists(Before) || !fs::exists(After))
      continue;
    SCOPED_TRACE(B.path().string());
    ir::Context C;
    Graph GB = parseGraph(slurp(Before), Before.string());
    Graph GA = parseGraph(slurp(After), After.string());
    std::vector<ir::Value> VB = evaluateAll(liftGraph(C, GB, {}));
    std::vector<ir::Value> VA = evaluateAll(liftGraph(C, GA, {}));
    ASSERT_EQ(VB.size(), VA.size());
    for (size_t I = 0; I < VB.size(); ++I)
      ASSERT_TRUE(VB[I].sameAs(VA[I]))
          << "element " << I << ": " << VB[I].str() << " vs " << VA[I].str();
    ++Compared;
  }
  EXPECT_GE(Compared, 17u);
}

TEST(FxGraph, ReadsInputsThroughTheirStrides) {
  std::string Text =
      "class M(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[2, 3]\"):\n"
      "        neg: \"f32[2, 3]\" = torch.ops.aten.neg.default(x)\n"
      "        return (neg,)\n";
  ir::Context C;
  Graph G = parseGraph(Text, "m.py");
  LiftOptions O;
  O.Inputs["x"] = {
      "input0", DType::F32, {2, 3}, {1, 2}, 5}; // column-major, offset 5
  O.Outputs.push_back({"output0", DType::F32, {2, 3}, {3, 1}, 0});
  LiftedGraph L = liftGraph(C, G, O);
  ASSERT_EQ(L.Effects.Writes.size(), 1u);
  const ir::Write &W = L.Effects.Writes[0];
  EXPECT_EQ(W.Buffer, "output0");
  // Element [1, 2] of the output is -input0[5 + 1*1 + 2*2] at output0[5].
  ir::Env E;
  E.setSymbol(W.Bound[0].Symbol->name(), ir::Value::ofBits(ir::Type::i(64), 1));
  E.setSymbol(W.Bound[1].Symbol->name(), ir::Value::ofBits(ir::Type::i(64), 2));
  E.setRead("input0", 10, ir::Value::ofDouble(ir::Type::f32(), 1.5));
  ir::Interpreter I(E);
  EXPECT_EQ(I.eval(W.Index).Bits, 5u);
  EXPECT_EQ(I.eval(W.Value).asDouble(), -1.5);
  ASSERT_NE(L.Effects.buffer("input0"), nullptr);
  EXPECT_EQ(L.Effects.buffer("input0")->Size, std::optional<uint64_t>(11));
}

// The output's element functions outlive the graph they were lifted from
// (a report asks for a reference intermediate long after the lift): an
// element that states an undefined-behaviour condition reads its op's
// origin from the lowerer's own copy of the graph, not the caller's.
TEST(FxGraph, ElementsAskedForAfterTheGraphIsGoneStillWork) {
  ir::Context C;
  LiftedGraph L;
  {
    Graph G = parseGraph(
        "class M(torch.nn.Module):\n"
        "    def forward(self, w: \"f32[4, 2]\", i: \"i64[3]\"):\n"
        "        e: \"f32[3, 2]\" = torch.ops.aten.embedding.default(w, i)\n"
        "        return (e,)\n",
        "m.py");
    L = liftGraph(C, G, {});
  }
  // Other allocations take the graph's memory.
  std::vector<std::string> Filler(64, std::string(64, 'x'));
  ASSERT_EQ(L.Outputs.size(), 1u);
  const ir::Expr *E =
      L.Outputs[0].at({C.intConst(ir::Type::i(64), 2), C.intConst(ir::Type::i(64), 1)});
  ir::Env In;
  In.setRead("i", 2, ir::Value::ofBits(ir::Type::i(64), 3));
  In.setRead("w", 7, ir::Value::ofDouble(ir::Type::f32(), 2.5));
  EXPECT_EQ(ir::Interpreter(In).eval(E).asDouble(), 2.5) << ir::printExpr(E);
}

// The bad forms of embedding and flip are input errors at the op's line,
// not lifts of something else.
TEST(FxGraph, BadEmbeddingsFlipsGathersAndIotasAreInputErrors) {
  auto Lift = [](const std::string &Call, const std::string &Out) {
    ir::Context C;
    Graph G = parseGraph("class M(torch.nn.Module):\n"
                         "    def forward(self, w: \"f32[4, 2]\", i: \"i64[3]\", "
                         "f: \"f32[3]\", j: \"i64[4, 3]\", k: \"i64[5, 1]\"):\n"
                         "        r: \"" + Out + "\" = " + Call + "\n"
                         "        return (r,)\n",
                         "m.py");
    liftGraph(C, G, {});
  };
  // Indices that are not integers; a weight that is not 2-D.
  EXPECT_THROW(Lift("torch.ops.aten.embedding.default(w, f)", "f32[3, 2]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.aten.embedding.default(f, i)", "f32[3, 2]"),
               ir::InputError);
  // A dimension named twice (-1 is 1), or one the tensor does not have.
  EXPECT_THROW(Lift("torch.ops.aten.flip.default(w, [1, -1])", "f32[4, 2]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.prims.rev.default(w, [2])", "f32[4, 2]"),
               ir::InputError);
  EXPECT_NO_THROW(Lift("torch.ops.aten.flip.default(w, [0, 1])", "f32[4, 2]"));
  // A gather by a float index, by an index of another rank, by one larger
  // than self along a dimension other than dim, along a dimension self
  // does not have.
  EXPECT_THROW(Lift("torch.ops.aten.gather.default(w, 0, f)", "f32[3]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.aten.gather.default(w, 0, i)", "f32[3]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.aten.gather.default(w, 1, k)", "f32[5, 1]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.aten.gather.default(w, 2, j)", "f32[4, 3]"),
               ir::InputError);
  EXPECT_NO_THROW(Lift("torch.ops.aten.gather.default(w, 1, j)", "f32[4, 3]"));
  // An iota of a float dtype, or of a negative length.
  const std::string IotaTail =
      ", start = 0, step = 1, device = device(type='cuda', index=0), "
      "requires_grad = False)";
  EXPECT_THROW(Lift("torch.ops.prims.iota.default(3, dtype = torch.float32" +
                        IotaTail,
                    "f32[3]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.prims.iota.default(-1, dtype = torch.int64" +
                        IotaTail,
                    "i64[0]"),
               ir::InputError);
  EXPECT_NO_THROW(Lift("torch.ops.prims.iota.default(3, dtype = torch.int64" +
                           IotaTail,
                       "i64[3]"));
  // any/all along a dimension the tensor does not have, or by a float
  // dimension; an overload the table does not know is unsupported.
  EXPECT_THROW(Lift("torch.ops.aten.any.dim(w, 2)", "b8[4]"), ir::InputError);
  EXPECT_THROW(Lift("torch.ops.aten.all.dims(w, [0, 5])", "b8[]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.aten.any.dim(w, 0.5)", "b8[2]"),
               ir::InputError);
  EXPECT_THROW(Lift("torch.ops.aten.any.str(w, 0)", "b8[2]"),
               ir::UnsupportedError);
  EXPECT_NO_THROW(Lift("torch.ops.aten.all.dim(w, -1)", "b8[4]"));
  // A running maximum along a dimension the tensor does not have.
  auto Cummax = [](const std::string &Dim) {
    ir::Context C;
    Graph G = parseGraph("class M(torch.nn.Module):\n"
                         "    def forward(self, w: \"f32[4, 2]\"):\n"
                         "        c = torch.ops.aten.cummax.default(w, " + Dim + ")\n"
                         "        v: \"f32[4, 2]\" = c[0]\n"
                         "        return (v,)\n",
                         "m.py");
    liftGraph(C, G, {});
  };
  EXPECT_THROW(Cummax("2"), ir::InputError);
  EXPECT_THROW(Cummax("-3"), ir::InputError);
  EXPECT_NO_THROW(Cummax("-1"));
}

TEST(FxGraph, ParametersBecomeSymbols) {
  fs::path P =
      STAGECHECK_TEST_DIR "/corpus/bug_b_scaling_hardcoded/reference/graph.py";
  ir::Context C;
  Graph G = parseGraph(slurp(P), P.string());
  LiftOptions O;
  O.Params = {{"min_val", -1.0, false},
              {"max_val", 1.0, false},
              {"scaling_factor", 2.0, false}};
  LiftedGraph L = liftGraph(C, G, O);
  std::set<std::string> Names;
  for (const LiftedParam &Q : L.Params) {
    Names.insert(Q.Name);
    EXPECT_EQ(Q.Symbol->role(), ir::SymbolRole::Param);
  }
  EXPECT_EQ(Names,
            (std::set<std::string>{"max_val", "min_val", "scaling_factor"}));
  // scaling_factor is used twice (line 31's mul, line 33's div); min_val and
  // max_val twice each (the two clamps).
  for (const LiftedParam &Q : L.Params)
    EXPECT_EQ(Q.Uses.size(), 2u) << Q.Name;
  // With the captured values the output is the model's: x = 0.75 gives
  // clamp(1.5, -1, 1) / 2 = 0.5; with scaling_factor 4 it is 0.25.
  const ir::Write &W = L.Effects.Writes[0];
  for (double S : {2.0, 4.0}) {
    ir::Env E;
    for (const ir::BoundVariable &V : W.Bound)
      E.setSymbol(V.Symbol->name(), ir::Value::ofBits(ir::Type::i(64), 0));
    E.setSymbol("min_val", ir::Value::ofDouble(ir::Type::f64(), -1.0));
    E.setSymbol("max_val", ir::Value::ofDouble(ir::Type::f64(), 1.0));
    E.setSymbol("scaling_factor", ir::Value::ofDouble(ir::Type::f64(), S));
    E.setRead("x", 0, ir::Value::ofDouble(ir::Type::f32(), 0.75));
    ir::Interpreter I(E);
    EXPECT_EQ(I.eval(W.Value).asDouble(), 1.0 / S);
  }
}

TEST(FxGraph, LiteralsNotNamedByTheLineStayConstants) {
  // 2.0 equals the parameter's value, but line 12 does not name it.
  std::string Text =
      "class M(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4]\"):\n"
      "        # File: /m.py:12 in forward, code: return x * 2.0\n"
      "        mul: \"f32[4]\" = torch.ops.aten.mul.Tensor(x, 2.0)\n"
      "        return (mul,)\n";
  ir::Context C;
  LiftOptions O;
  O.Params = {{"scale", 2.0, false}};
  LiftedGraph L = liftGraph(C, parseGraph(Text, "m.py"), O);
  EXPECT_TRUE(L.Params.empty());
}

void expectInputError(const std::string &Text, unsigned Line, unsigned Column,
                      const std::string &Fragment) {
  try {
    parseGraph(Text, "g.py");
    ADD_FAILURE() << "no error for:\n" << Text;
  } catch (const ir::InputError &E) {
    EXPECT_EQ(E.Where.File, "g.py");
    EXPECT_EQ(E.Where.Line, Line) << E.what();
    EXPECT_EQ(E.Where.Column, Column) << E.what();
    EXPECT_NE(std::string(E.what()).find(Fragment), std::string::npos)
        << E.what();
  }
}

TEST(FxGraph, MalformedTextNamesLineAndColumn) {
  const std::string Head = "class M(torch.nn.Module):\n"
                           "    def forward(self, x: \"f32[4]\"):\n";
  expectInputError(Head +
                       "        y: \"f32[4]\" = torch.ops.aten.neg.default(z)\n"
                       "        return (y,)\n",
                   3, 50, "'z' is not defined");
  expectInputError(Head +
                       "        y: \"f32[4]\" = torch.ops.aten.neg.default(x\n"
                       "        return (y,)\n",
                   3, 51, "expected ',' or ')'");
  expectInputError(Head +
                       "        y: \"q32[4]\" = torch.ops.aten.neg.default(x)\n"
                       "        return (y,)\n",
                   3, 12, "unsupported element type 'q32'");
  expectInputError(
      Head + "        y: \"f32[4]\" = torch.ops.aten.neg.default(x)\n", 4, 1,
      "no return statement");
  expectInputError("def forward(self):\n    return ()\n", 1, 1,
                   "expected 'class");
}

TEST(FxGraph, UnmodelledOpIsUnsupportedWithItsLocation) {
  std::string Text =
      "class M(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4]\"):\n"
      "        y: \"f32[4]\" = torch.ops.aten.digamma.default(x)\n"
      "        return (y,)\n";
  ir::Context C;
  Graph G = parseGraph(Text, "g.py");
  try {
    liftGraph(C, G, {});
    ADD_FAILURE() << "digamma lifted";
  } catch (const ir::UnsupportedError &E) {
    EXPECT_EQ(E.What, "unsupported op aten.digamma");
    EXPECT_EQ(E.Where.str(), "g.py:3:9");
  }
}

// A shift is defined on integer tensors only: of a float tensor it is bad
// input, named at its node.
TEST(FxGraph, ShiftOfAFloatTensorIsAnInputError) {
  std::string Text =
      "class M(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4]\"):\n"
      "        y: \"f32[4]\" = torch.ops.aten.__rshift__.Scalar(x, 2)\n"
      "        return (y,)\n";
  ir::Context C;
  Graph G = parseGraph(Text, "g.py");
  try {
    liftGraph(C, G, {});
    ADD_FAILURE() << "a float shift lifted";
  } catch (const ir::InputError &E) {
    EXPECT_EQ(E.Where.str(), "g.py:3:9");
    EXPECT_NE(std::string(E.what()).find("shift of a floating-point"),
              std::string::npos)
        << E.what();
  }
}

TEST(FxGraph, DeadNodesAreNotLifted) {
  // log_softmax's post-grad graph keeps a dead exp; an unmodelled dead node
  // must not fail the lift either.
  std::string Text =
      "class M(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4]\"):\n"
      "        dead: \"f32[4]\" = torch.ops.aten.digamma.default(x)\n"
      "        y: \"f32[4]\" = torch.ops.aten.neg.default(x)\n"
      "        return (y,)\n";
  ir::Context C;
  LiftedGraph L = liftGraph(C, parseGraph(Text, "g.py"), {});
  EXPECT_EQ(L.Effects.Writes.size(), 1u);
}

TEST(FxGraph, AnnotationsWithStridesAndDevice) {
  std::string Text =
      "class <lambda>(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[8, 64][64, 1]cuda:0\", arg1_1: "
      "\"i64[][]cuda:0\"):\n"
      "        mul: \"f32[8, 64][64, 1]cuda:0\" = "
      "torch.ops.aten.mul.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None\n"
      "        return (mul,)\n";
  Graph G = parseGraph(Text, "g.py");
  const Node *N = G.node("mul");
  ASSERT_TRUE(N && N->Annotation && N->Annotation->Strides);
  EXPECT_EQ(*N->Annotation->Strides, (std::vector<int64_t>{64, 1}));
  ir::Context C;
  LiftedGraph L = liftGraph(C, G, {});
  // f32 tensor times an i64 0-dim tensor stays f32 (type promotion).
  EXPECT_EQ(L.Effects.Writes[0].Value->type(), ir::Type::f32());
}

} // namespace

// cummax as ATen's kernels compute it: a NaN, or a value >= the running
// one, replaces it, so ties and NaNs go to the latest index; a NaN then
// stays until another NaN replaces it.
TEST(FxGraph, CummaxTiesAndNansGoToTheLatestIndex) {
  ir::Context C;
  Graph G = parseGraph(
      "class M(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[6]\"):\n"
      "        c = torch.ops.aten.cummax.default(x, 0)\n"
      "        v: \"f32[6]\" = c[0]\n"
      "        i: \"i64[6]\" = c[1]\n"
      "        return (v, i)\n",
      "m.py");
  LiftedGraph L = liftGraph(C, G, {});
  ASSERT_EQ(L.Outputs.size(), 2u);
  const double X[] = {1, 3, 3, NAN, 7, 2};
  ir::Env In;
  for (int K = 0; K < 6; ++K)
    In.setRead("x", K, ir::Value::ofDouble(ir::Type::f32(), X[K]));
  const double Values[] = {1, 3, 3, NAN, NAN, NAN};
  const int64_t Indices[] = {0, 1, 2, 3, 3, 3};
  for (int K = 0; K < 6; ++K) {
    Index At = {C.intConst(ir::Type::i(64), K)};
    ir::Interpreter I(In);
    double V = I.eval(L.Outputs[0].at(At)).asDouble();
    if (std::isnan(Values[K]))
      EXPECT_TRUE(std::isnan(V)) << K;
    else
      EXPECT_EQ(V, Values[K]) << K;
    EXPECT_EQ(I.eval(L.Outputs[1].at(At)).asSigned(), Indices[K]) << K;
  }
}

//===- ConstantChoices.cpp - Conditions on a choice among constants -------===//

#include "stages/ConstantChoices.h"

#include "ir/Effects.h"

#include <set>
#include <unordered_map>
#include <vector>

using namespace stagecheck::ir;

namespace stagecheck::stages {

namespace {

/// The constants a node can be: itself for a constant, the union of the
/// arms' for a select of two such nodes; empty for anything else (or for
/// more than Max constants).
class Choices {
public:
  explicit Choices(unsigned Max) : Max(Max) {}

  const std::vector<const Expr *> &of(const Expr *E) {
    if (auto It = Memo.find(E); It != Memo.end())
      return It->second;
    std::vector<const Expr *> Out;
    if (E->isConst()) {
      Out = {E};
    } else if (E->op() == Op::Select) {
      const std::vector<const Expr *> &T = of(E->operand(1));
      if (!T.empty()) {
        std::vector<const Expr *> Then = T;
        const std::vector<const Expr *> &F = of(E->operand(2));
        if (!F.empty()) {
          std::set<const Expr *> Union(Then.begin(), Then.end());
          Union.insert(F.begin(), F.end());
          if (Union.size() <= Max)
            Out.assign(Union.begin(), Union.end());
        }
      }
    }
    return Memo[E] = std::move(Out);
  }

private:
  unsigned Max;
  std::unordered_map<const Expr *, std::vector<const Expr *>> Memo;
};

} // namespace

bool holdsForEveryConstantChoice(Context &C, const Expr *Condition,
                                 unsigned MaxCases) {
  if (Condition->isTrue())
    return true;
  Choices Of(MaxCases);
  // The outermost choice nodes; any other leaf makes the question moot.
  std::vector<const Expr *> Chosen;
  std::set<const Expr *> Seen;
  std::vector<const Expr *> Stack = {Condition};
  while (!Stack.empty()) {
    const Expr *E = Stack.back();
    Stack.pop_back();
    if (!Seen.insert(E).second || E->isConst())
      continue;
    if (E->op() == Op::Select && !Of.of(E).empty()) {
      Chosen.push_back(E);
      continue;
    }
    if (E->numOperands() == 0)
      return false; // a symbol or a read outside any choice
    for (const Expr *O : E->operands())
      Stack.push_back(O);
  }
  if (Chosen.empty())
    return false;
  uint64_t Cases = 1;
  for (const Expr *E : Chosen) {
    Cases *= Of.of(E).size();
    if (Cases > MaxCases)
      return false;
  }
  // Every combination, as a counter over the choices' constants.
  std::vector<size_t> Pick(Chosen.size(), 0);
  for (;;) {
    std::unordered_map<const Expr *, const Expr *> At;
    for (size_t K = 0; K < Chosen.size(); ++K)
      At[Chosen[K]] = Of.of(Chosen[K])[Pick[K]];
    if (!substitute(C, Condition, At)->isTrue())
      return false;
    size_t K = 0;
    while (K < Pick.size() && ++Pick[K] == Of.of(Chosen[K]).size())
      Pick[K++] = 0;
    if (K == Pick.size())
      return true;
  }
}

} // namespace stagecheck::stages

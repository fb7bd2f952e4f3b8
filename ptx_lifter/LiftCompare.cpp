//===- LiftCompare.cpp - setp, selp and testp -----------------------------===//
//
// setp compares integers (signed for .s types, unsigned for .u/.b and for
// lo ls hi hs) and floats (eq ne lt le gt ge are ordered: false when an
// operand is NaN; equ neu ltu leu gtu geu are unordered: true then; num and
// nan test for NaN), optionally combined with a predicate (.and .or .xor);
// the second destination of p|q receives the negated comparison combined
// alike. For .f16x2, p and q are the comparisons of the low and high lanes.
//
//===----------------------------------------------------------------------===//

#include "ptx_lifter/Executor.h"
#include "ptx_lifter/Semantics.h"

#include <cstring>

using namespace stagecheck::ir;

namespace stagecheck::ptx {

namespace {

struct IntCompare {
  const char *Name;
  ICmpPredicate Signed, Unsigned;
};
const IntCompare IntCompares[] = {
    {"eq", ICmpPredicate::Eq, ICmpPredicate::Eq},
    {"ne", ICmpPredicate::Ne, ICmpPredicate::Ne},
    {"lt", ICmpPredicate::Slt, ICmpPredicate::Ult},
    {"le", ICmpPredicate::Sle, ICmpPredicate::Ule},
    {"gt", ICmpPredicate::Sgt, ICmpPredicate::Ugt},
    {"ge", ICmpPredicate::Sge, ICmpPredicate::Uge},
    {"lo", ICmpPredicate::Ult, ICmpPredicate::Ult},
    {"ls", ICmpPredicate::Ule, ICmpPredicate::Ule},
    {"hi", ICmpPredicate::Ugt, ICmpPredicate::Ugt},
    {"hs", ICmpPredicate::Uge, ICmpPredicate::Uge},
};

struct FloatCompare {
  const char *Name;
  FCmpPredicate Predicate;
};
const FloatCompare FloatCompares[] = {
    {"eq", FCmpPredicate::Oeq},  {"ne", FCmpPredicate::One},
    {"lt", FCmpPredicate::Olt},  {"le", FCmpPredicate::Ole},
    {"gt", FCmpPredicate::Ogt},  {"ge", FCmpPredicate::Oge},
    {"equ", FCmpPredicate::Ueq}, {"neu", FCmpPredicate::Une},
    {"ltu", FCmpPredicate::Ult}, {"leu", FCmpPredicate::Ule},
    {"gtu", FCmpPredicate::Ugt}, {"geu", FCmpPredicate::Uge},
    {"num", FCmpPredicate::Ord}, {"nan", FCmpPredicate::Uno},
};

/// The comparison of lane L of operands 1 and 2.
const Expr *compare(Step &S, const std::string &Cmp, PtxType T, unsigned L) {
  Context &C = S.C;
  if (T.isFloat()) {
    bool Ftz = S.has("ftz");
    for (const FloatCompare &F : FloatCompares)
      if (Cmp == F.Name)
        return C.fcmp(F.Predicate, sem::flush(C, S.floatLane(1, T, L), Ftz),
                      sem::flush(C, S.floatLane(2, T, L), Ftz));
  } else {
    for (const IntCompare &I : IntCompares)
      if (Cmp == I.Name)
        return C.icmp(T.isSigned() ? I.Signed : I.Unsigned, S.value(1, T),
                      S.value(2, T));
  }
  S.malformed("." + Cmp + " is not a comparison for ." + S.mod(-1) + " (" +
              S.I.Opcode + ")");
}

const Expr *combine(Step &S, const std::string &Bop, const Expr *A,
                    const Expr *B) {
  if (Bop.empty())
    return A;
  Op O = Bop == "and" ? Op::And : Bop == "or" ? Op::Or : Op::Xor;
  return S.C.binary(O, A, B);
}

void liftSetp(Step &S) {
  PtxType T = S.type();
  std::string Cmp = S.mod(0), Bop;
  if (S.Mods.size() > 2 &&
      (S.mod(1) == "and" || S.mod(1) == "or" || S.mod(1) == "xor"))
    Bop = S.mod(1);
  S.expectOperands(Bop.empty() ? 3 : 4);
  const Expr *Extra = Bop.empty() ? nullptr : S.pred(3);
  const Operand &D = S.operand(0);
  std::vector<const Operand *> Outs = {&D};
  if (D.K == Operand::PredPair)
    Outs = {&D.Elements[0], &D.Elements[1]};
  if (T.Lanes == 2) {
    if (Outs.size() != 2)
      S.malformed(S.I.Opcode + " writes two predicates p|q");
    for (unsigned L = 0; L < 2; ++L)
      S.set(*Outs[L], combine(S, Bop, compare(S, Cmp, T, L), Extra));
    return;
  }
  const Expr *R = compare(S, Cmp, T, 0);
  S.set(*Outs[0], combine(S, Bop, R, Extra));
  if (Outs.size() == 2)
    S.set(*Outs[1], combine(S, Bop, S.C.notOf(R), Extra));
}

void liftSelp(Step &S) {
  S.expectOperands(4);
  PtxType T = S.type();
  S.set(0, S.C.select(S.pred(3), S.value(1, T), S.value(2, T)));
}

/// testp.op.type p, a: a class test of a float.
void liftTestp(Step &S) {
  S.expectOperands(2);
  Context &C = S.C;
  PtxType T = S.type();
  if (!T.isFloat() || T.Lanes != 1)
    S.malformed(S.I.Opcode + " tests a float");
  const Expr *A = S.floatLane(1, T, 0);
  Type F = A->type();
  FloatFormat Fmt = floatFormat(F);
  const Expr *Mag = C.unary(Op::FAbs, A);
  const Expr *Inf =
      C.cast(Op::Bitcast,
             C.constant(Type::i(F.bits()), ((uint64_t(1) << Fmt.ExponentBits) -
                                            1) << Fmt.MantissaBits),
             F);
  const Expr *MinNormal =
      C.cast(Op::Bitcast,
             C.constant(Type::i(F.bits()), uint64_t(1) << Fmt.MantissaBits), F);
  const Expr *Zero = C.floatConst(F, 0.0);
  std::string What = S.mod(0);
  const Expr *R;
  if (What == "finite")
    R = C.fcmp(FCmpPredicate::Olt, Mag, Inf);
  else if (What == "infinite")
    R = C.fcmp(FCmpPredicate::Oeq, Mag, Inf);
  else if (What == "number")
    R = C.fcmp(FCmpPredicate::Ord, A, A);
  else if (What == "notanumber")
    R = C.fcmp(FCmpPredicate::Uno, A, A);
  else if (What == "normal")
    R = C.andOf(C.fcmp(FCmpPredicate::Oge, Mag, MinNormal),
                C.fcmp(FCmpPredicate::Olt, Mag, Inf));
  else if (What == "subnormal")
    R = C.andOf(C.fcmp(FCmpPredicate::Olt, Mag, MinNormal),
                C.fcmp(FCmpPredicate::One, Mag, Zero));
  else
    S.malformed("." + What + " is not a testp class");
  S.set(0, R);
}

} // namespace

bool liftCompareOp(Step &S) {
  if (S.Base == "setp")
    liftSetp(S);
  else if (S.Base == "selp")
    liftSelp(S);
  else if (S.Base == "testp")
    liftTestp(S);
  else
    return false;
  return true;
}

} // namespace stagecheck::ptx

// Arithmetic, comparisons, casts and vector/aggregate instructions, lane by
// lane, with the poison conditions LLVM's LangRef gives each flag.
#include "frontends/llvm/FunctionLifter.h"

#include "ir/Errors.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"

#include <cmath>

using namespace stagecheck::ir;

namespace stagecheck::llvmir {

namespace {

ICmpPredicate icmpPredicate(llvm::CmpInst::Predicate P) {
  using LP = llvm::CmpInst::Predicate;
  switch (P) {
  case LP::ICMP_EQ:
    return ICmpPredicate::Eq;
  case LP::ICMP_NE:
    return ICmpPredicate::Ne;
  case LP::ICMP_ULT:
    return ICmpPredicate::Ult;
  case LP::ICMP_ULE:
    return ICmpPredicate::Ule;
  case LP::ICMP_UGT:
    return ICmpPredicate::Ugt;
  case LP::ICMP_UGE:
    return ICmpPredicate::Uge;
  case LP::ICMP_SLT:
    return ICmpPredicate::Slt;
  case LP::ICMP_SLE:
    return ICmpPredicate::Sle;
  case LP::ICMP_SGT:
    return ICmpPredicate::Sgt;
  default:
    return ICmpPredicate::Sge;
  }
}

FCmpPredicate fcmpPredicate(llvm::CmpInst::Predicate P) {
  using LP = llvm::CmpInst::Predicate;
  switch (P) {
  case LP::FCMP_FALSE:
    return FCmpPredicate::False;
  case LP::FCMP_OEQ:
    return FCmpPredicate::Oeq;
  case LP::FCMP_OGT:
    return FCmpPredicate::Ogt;
  case LP::FCMP_OGE:
    return FCmpPredicate::Oge;
  case LP::FCMP_OLT:
    return FCmpPredicate::Olt;
  case LP::FCMP_OLE:
    return FCmpPredicate::Ole;
  case LP::FCMP_ONE:
    return FCmpPredicate::One;
  case LP::FCMP_ORD:
    return FCmpPredicate::Ord;
  case LP::FCMP_UNO:
    return FCmpPredicate::Uno;
  case LP::FCMP_UEQ:
    return FCmpPredicate::Ueq;
  case LP::FCMP_UGT:
    return FCmpPredicate::Ugt;
  case LP::FCMP_UGE:
    return FCmpPredicate::Uge;
  case LP::FCMP_ULT:
    return FCmpPredicate::Ult;
  case LP::FCMP_ULE:
    return FCmpPredicate::Ule;
  case LP::FCMP_UNE:
    return FCmpPredicate::Une;
  default:
    return FCmpPredicate::True;
  }
}

} // namespace

FastMathFlags fastMathOf(const llvm::Instruction &I) {
  FastMathFlags F;
  if (!llvm::isa<llvm::FPMathOperator>(I))
    return F;
  F.Reassoc = I.hasAllowReassoc();
  F.NoNaNs = I.hasNoNaNs();
  F.NoInfs = I.hasNoInfs();
  F.NoSignedZeros = I.hasNoSignedZeros();
  F.AllowReciprocal = I.hasAllowReciprocal();
  F.AllowContract = I.hasAllowContract();
  F.ApproxFunc = I.hasApproxFunc();
  return F;
}

/// nnan / ninf: the instruction is poison where an operand or its result is
/// NaN (infinite).
const Expr *fastMathPoison(Context &C, const llvm::Instruction &I,
                           std::initializer_list<const Expr *> Values) {
  FastMathFlags F = fastMathOf(I);
  const Expr *P = C.falseExpr();
  for (const Expr *V : Values) {
    if (!V->type().isFloat())
      continue;
    if (F.NoNaNs)
      P = C.orOf(P, C.fcmp(FCmpPredicate::Uno, V, V));
    if (F.NoInfs)
      P = C.orOf(P, C.fcmp(FCmpPredicate::Oeq, C.unary(Op::FAbs, V),
                           C.floatConst(V->type(), INFINITY)));
  }
  return P;
}

void FunctionLifter::liftInstruction(const llvm::Instruction &I) {
  if (I.isTerminator())
    return liftTerminator(I);
  if (auto *S = llvm::dyn_cast<llvm::StoreInst>(&I))
    return liftStore(*S);
  Lanes L = liftValue(I);
  if (!I.getType()->isVoidTy()) {
    FastMathFlags F = fastMathOf(I);
    if (F.any())
      for (const Lane &X : L)
        if (X.V->type().isFloat())
          Out.FastMath.emplace(X.V, F);
    define(I, std::move(L));
  }
}

Lanes FunctionLifter::liftValue(const llvm::Instruction &I) {
  if (auto *B = llvm::dyn_cast<llvm::BinaryOperator>(&I))
    return B->getType()->isFPOrFPVectorTy() ? liftFloatBinary(I)
                                            : liftIntBinary(*B);
  if (I.getOpcode() == llvm::Instruction::FNeg)
    return liftFloatBinary(I);
  if (auto *Cmp = llvm::dyn_cast<llvm::CmpInst>(&I))
    return liftCompare(*Cmp);
  if (llvm::isa<llvm::CastInst>(I))
    return liftCast(llvm::cast<llvm::Operator>(I), I.getType());
  if (auto *G = llvm::dyn_cast<llvm::GetElementPtrInst>(&I))
    return liftGep(llvm::cast<llvm::GEPOperator>(*G));
  if (auto *S = llvm::dyn_cast<llvm::SelectInst>(&I))
    return liftSelect(*S);
  if (auto *Fr = llvm::dyn_cast<llvm::FreezeInst>(&I))
    return liftFreeze(*Fr);
  if (auto *E = llvm::dyn_cast<llvm::ExtractElementInst>(&I))
    return liftExtractElement(*E);
  if (auto *E = llvm::dyn_cast<llvm::InsertElementInst>(&I))
    return liftInsertElement(*E);
  if (auto *S = llvm::dyn_cast<llvm::ShuffleVectorInst>(&I))
    return liftShuffle(*S);
  if (auto *E = llvm::dyn_cast<llvm::ExtractValueInst>(&I))
    return liftExtractValue(*E);
  if (auto *E = llvm::dyn_cast<llvm::InsertValueInst>(&I))
    return liftInsertValue(*E);
  if (auto *L = llvm::dyn_cast<llvm::LoadInst>(&I))
    return liftLoad(*L);
  if (auto *A = llvm::dyn_cast<llvm::AllocaInst>(&I))
    return liftAlloca(*A);
  if (auto *A = llvm::dyn_cast<llvm::AtomicRMWInst>(&I))
    return liftAtomicRMW(*A);
  if (auto *A = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&I))
    return liftCmpXchg(*A);
  if (auto *Call = llvm::dyn_cast<llvm::CallBase>(&I))
    return liftCall(*Call);
  unsupported(std::string("unsupported instruction ") + I.getOpcodeName());
}

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::liftIntBinary(const llvm::BinaryOperator &I) {
  const Lanes &A = operand(I.getOperand(0));
  const Lanes &B = operand(I.getOperand(1));
  Lanes Out;
  for (unsigned K = 0; K < A.size(); ++K)
    Out.push_back(intBinary(I, I.getOpcode(), A[K], B[K]));
  return Out;
}

Lane FunctionLifter::intBinary(const llvm::BinaryOperator &I, unsigned Opcode,
                               Lane A, Lane B) {
  using LI = llvm::Instruction;
  Type T = A.V->type();
  unsigned W = T.bits();
  const Expr *X = A.V, *Y = B.V;
  auto K = [&](int64_t V) { return C.intConst(T, V); };
  auto Slt0 = [&](const Expr *E) {
    return C.icmp(ICmpPredicate::Slt, E, K(0));
  };
  auto Ne = [&](const Expr *P, const Expr *Q) {
    return C.icmp(ICmpPredicate::Ne, P, Q);
  };
  bool Nsw =
      llvm::isa<llvm::OverflowingBinaryOperator>(I) && I.hasNoSignedWrap();
  bool Nuw =
      llvm::isa<llvm::OverflowingBinaryOperator>(I) && I.hasNoUnsignedWrap();
  bool Exact = llvm::isa<llvm::PossiblyExactOperator>(I) && I.isExact();
  const Expr *R = nullptr;
  const Expr *Poison = C.falseExpr();
  auto Also = [&](bool Flag, const Expr *Cond) {
    if (Flag)
      Poison = C.orOf(Poison, Cond);
  };
  switch (Opcode) {
  case LI::Add:
    R = C.add(X, Y);
    Also(Nsw, Slt0(C.andOf(C.xorOf(X, R), C.xorOf(Y, R))));
    Also(Nuw, C.icmp(ICmpPredicate::Ult, R, X));
    break;
  case LI::Sub:
    R = C.sub(X, Y);
    Also(Nsw, Slt0(C.andOf(C.xorOf(X, Y), C.xorOf(X, R))));
    Also(Nuw, C.icmp(ICmpPredicate::Ult, X, Y));
    break;
  case LI::Mul:
    R = C.mul(X, Y);
    Also(Nuw, Ne(C.binary(Op::UMulHi, X, Y), K(0)));
    Also(Nsw, Ne(C.binary(Op::SMulHi, X, Y), C.binary(Op::AShr, R, K(W - 1))));
    break;
  case LI::Shl:
  case LI::LShr:
  case LI::AShr: {
    Op O = Opcode == LI::Shl    ? Op::Shl
           : Opcode == LI::LShr ? Op::LShr
                                : Op::AShr;
    R = C.binary(O, X, Y);
    Poison = C.icmp(ICmpPredicate::Uge, Y, K(W));
    if (O == Op::Shl) {
      Also(Nuw, Ne(C.binary(Op::LShr, R, Y), X));
      Also(Nsw, Ne(C.binary(Op::AShr, R, Y), X));
    } else {
      Also(Exact, Ne(C.binary(Op::Shl, R, Y), X));
    }
    break;
  }
  case LI::And:
    R = C.andOf(X, Y);
    break;
  case LI::Or:
    R = C.orOf(X, Y);
    Also(llvm::cast<llvm::PossiblyDisjointInst>(I).isDisjoint(),
         Ne(C.andOf(X, Y), K(0)));
    break;
  case LI::Xor:
    R = C.xorOf(X, Y);
    break;
  case LI::UDiv:
  case LI::SDiv:
  case LI::URem:
  case LI::SRem: {
    bool Signed = Opcode == LI::SDiv || Opcode == LI::SRem;
    bool Div = Opcode == LI::UDiv || Opcode == LI::SDiv;
    // Division by zero (or by poison, which may be zero) is immediate
    // undefined behaviour, as is INT_MIN / -1.
    M.undefined(C.orOf(C.notOf(B.Def), C.eq(Y, K(0))), "division by zero",
                origin(spell(I)));
    if (Signed)
      M.undefined(
          C.andOf(A.Def, C.andOf(C.eq(X, C.constant(T, 1ull << (W - 1))),
                                 C.eq(Y, K(-1)))),
          "signed division overflow", origin(spell(I)));
    Op O = Signed ? (Div ? Op::SDiv : Op::SRem) : (Div ? Op::UDiv : Op::URem);
    R = C.binary(O, X, Y);
    Also(Exact && Div, Ne(C.binary(Signed ? Op::SRem : Op::URem, X, Y), K(0)));
    break;
  }
  default:
    unsupported(std::string("unsupported instruction ") + I.getOpcodeName());
  }
  return {R, C.andOf(C.andOf(A.Def, B.Def), C.notOf(Poison))};
}

//===----------------------------------------------------------------------===//
// Floats
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::liftFloatBinary(const llvm::Instruction &I) {
  using LI = llvm::Instruction;
  const Lanes &A = operand(I.getOperand(0));
  bool Unary = I.getOpcode() == LI::FNeg;
  const Lanes &B = Unary ? A : operand(I.getOperand(1));
  Lanes Out;
  for (unsigned K = 0; K < A.size(); ++K) {
    const Expr *X = A[K].V, *Y = B[K].V, *R = nullptr;
    switch (I.getOpcode()) {
    case LI::FNeg:
      R = C.unary(Op::FNeg, X);
      break;
    case LI::FAdd:
      R = C.floatBinary(Op::FAdd, X, Y);
      break;
    case LI::FSub:
      R = C.floatBinary(Op::FSub, X, Y);
      break;
    case LI::FMul:
      R = C.floatBinary(Op::FMul, X, Y);
      break;
    case LI::FDiv:
      R = C.floatBinary(Op::FDiv, X, Y);
      break;
    case LI::FRem: {
      // frem is C's fmod: exact, so the named exact function.
      const Expr *Args[] = {X, Y};
      R = C.call("fmod", X->type(), Args);
      break;
    }
    default:
      unsupported(std::string("unsupported instruction ") + I.getOpcodeName());
    }
    noteContraction(I, R);
    const Expr *Poison = fastMathPoison(C, I, {X, Y, R});
    Out.push_back({R, C.andOf(C.andOf(A[K].Def, B[K].Def), C.notOf(Poison))});
  }
  return Out;
}

void FunctionLifter::noteContraction(const llvm::Instruction &I,
                                     const Expr *E) {
  if (E->op() != Op::FAdd && E->op() != Op::FSub)
    return;
  // With fp fusion the backend fuses whatever fmul feeds the add, also
  // through vector lanes (extractelement of a <2 x float> fmul).
  if (O.FpFusion &&
      (E->operand(0)->op() == Op::FMul || E->operand(1)->op() == Op::FMul)) {
    Out.Contractible.insert(E);
    return;
  }
  for (unsigned K = 0; K < 2; ++K) {
    auto *Mul = llvm::dyn_cast<llvm::BinaryOperator>(I.getOperand(K));
    if (!Mul || Mul->getOpcode() != llvm::Instruction::FMul)
      continue;
    bool Allowed =
        O.FpFusion || (I.hasAllowContract() && Mul->hasAllowContract());
    bool MulOperand =
        E->operand(0)->op() == Op::FMul || E->operand(1)->op() == Op::FMul;
    if (Allowed && MulOperand)
      Out.Contractible.insert(E);
  }
}

//===----------------------------------------------------------------------===//
// Comparisons and selects
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::liftCompare(const llvm::CmpInst &I) {
  const Lanes &A = operand(I.getOperand(0));
  const Lanes &B = operand(I.getOperand(1));
  Lanes Out;
  for (unsigned K = 0; K < A.size(); ++K) {
    const Expr *X = A[K].V, *Y = B[K].V, *R, *Poison = C.falseExpr();
    if (auto *IC = llvm::dyn_cast<llvm::ICmpInst>(&I)) {
      R = C.icmp(icmpPredicate(I.getPredicate()), X, Y);
      // samesign: poison when the operands' signs differ.
      if (IC->hasSameSign())
        Poison =
            C.icmp(ICmpPredicate::Slt, C.xorOf(X, Y), C.constant(X->type(), 0));
    } else {
      R = C.fcmp(fcmpPredicate(I.getPredicate()), X, Y);
      Poison = fastMathPoison(C, I, {X, Y});
    }
    Out.push_back({R, C.andOf(C.andOf(A[K].Def, B[K].Def), C.notOf(Poison))});
  }
  return Out;
}

Lanes FunctionLifter::liftSelect(const llvm::SelectInst &I) {
  const Lanes &Cond = operand(I.getCondition());
  const Lanes &A = operand(I.getTrueValue());
  const Lanes &B = operand(I.getFalseValue());
  Lanes Out;
  for (unsigned K = 0; K < A.size(); ++K) {
    const Lane &Cd = Cond[Cond.size() == 1 ? 0 : K];
    Lane R = selectLane(Cd.V, A[K], B[K]);
    R.Def =
        C.andOf(Cd.Def, C.andOf(R.Def, C.notOf(fastMathPoison(C, I, {R.V}))));
    Out.push_back(R);
  }
  return Out;
}

Lanes FunctionLifter::liftFreeze(const llvm::FreezeInst &I) {
  Lanes Out;
  for (const Lane &L : operand(I.getOperand(0))) {
    if (L.Def->isTrue()) {
      Out.push_back(L);
      continue;
    }
    // Poison becomes some value of the type, fixed from here on: a thread's
    // own unknown, named by the instruction's line and how often this lift
    // met it, so that a kernel checked against a copy of itself gives the
    // same freeze the same value (a sound choice: the source's freeze may
    // be any value, so it may be the target's).
    // (A function read from bitcode has no lines: its name stands in.)
    unsigned Line = Facts.Lines.lookup(&I);
    std::string Where = Line ? std::to_string(Line) : F.getName().str();
    const Expr *Any = C.symbol("uninit.freeze." + Where + "." +
                                   std::to_string(FreezesMet[Where]++),
                               L.V->type());
    Out.push_back(defined(C.select(L.Def, L.V, Any)));
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::liftCast(const llvm::Operator &U, llvm::Type *To) {
  unsigned Opcode = U.getOpcode();
  const Lanes &A = operand(U.getOperand(0));
  std::vector<Type> Types = laneTypes(To);
  if (Opcode == llvm::Instruction::BitCast)
    return reinterpret(A, Types);
  Lanes Out;
  for (unsigned K = 0; K < A.size(); ++K)
    Out.push_back(castLane(U, Opcode, A[K], Types[K]));
  return Out;
}

Lane FunctionLifter::castLane(const llvm::Operator &U, unsigned Opcode, Lane A,
                              Type To) {
  using LI = llvm::Instruction;
  const Expr *X = A.V, *R = nullptr, *Poison = C.falseExpr();
  auto *Inst = llvm::dyn_cast<llvm::Instruction>(&U);
  bool NonNeg =
      Inst && llvm::isa<llvm::PossiblyNonNegInst>(Inst) && Inst->hasNonNeg();
  auto Negative = [&] {
    return C.icmp(ICmpPredicate::Slt, X, C.constant(X->type(), 0));
  };
  switch (Opcode) {
  case LI::Trunc:
    R = C.cast(Op::Trunc, X, To);
    if (Inst && Inst->hasNoUnsignedWrap())
      Poison = C.orOf(
          Poison, C.icmp(ICmpPredicate::Ne, C.cast(Op::ZExt, R, X->type()), X));
    if (Inst && Inst->hasNoSignedWrap())
      Poison = C.orOf(
          Poison, C.icmp(ICmpPredicate::Ne, C.cast(Op::SExt, R, X->type()), X));
    break;
  case LI::ZExt:
    R = C.cast(Op::ZExt, X, To);
    if (NonNeg)
      Poison = Negative();
    break;
  case LI::SExt:
    R = C.cast(Op::SExt, X, To);
    break;
  case LI::FPTrunc:
  case LI::FPExt:
    R = C.cast(Op::FPCast, X, To);
    break;
  case LI::SIToFP:
    R = C.cast(Op::SIToFP, X, To);
    break;
  case LI::UIToFP:
    R = C.cast(Op::UIToFP, X, To);
    if (NonNeg)
      Poison = Negative();
    break;
  case LI::FPToSI:
  case LI::FPToUI: {
    bool Signed = Opcode == LI::FPToSI;
    R = C.cast(Signed ? Op::FPToSI : Op::FPToUI, X, To,
               RoundingMode::TowardZero);
    // Poison unless the value, truncated, fits (NaN never does).
    Type T = X->type();
    const Expr *Ops[] = {X};
    const Expr *Truncated =
        C.make(Op::FRoundInt, Ops, uint8_t(RoundingMode::TowardZero));
    unsigned N = To.bits();
    double Low = Signed ? -std::ldexp(1.0, int(N) - 1) : 0.0;
    double High = std::ldexp(1.0, Signed ? int(N) - 1 : int(N));
    const Expr *LowK = C.floatConst(T, Low);
    bool LowInfinite = LowK == C.floatConst(T, -INFINITY);
    const Expr *Fits =
        C.andOf(C.fcmp(LowInfinite ? FCmpPredicate::Ogt : FCmpPredicate::Oge,
                       Truncated, LowK),
                C.fcmp(FCmpPredicate::Olt, Truncated, C.floatConst(T, High)));
    Poison = C.notOf(Fits);
    break;
  }
  case LI::PtrToInt:
  case LI::IntToPtr:
    R = X->type() == To ? X : C.zextOrTrunc(X, To);
    break;
  case LI::AddrSpaceCast: {
    // Global and generic addresses coincide on NVPTX; shared ones do not.
    unsigned From =
        U.getOperand(0)->getType()->getScalarType()->getPointerAddressSpace();
    unsigned Into = U.getType()->getScalarType()->getPointerAddressSpace();
    if (From > 1 || Into > 1)
      unsupported("unsupported instruction addrspacecast from " +
                  std::to_string(From) + " to " + std::to_string(Into));
    R = X;
    break;
  }
  default:
    unsupported(std::string("unsupported instruction ") +
                llvm::Instruction::getOpcodeName(Opcode));
  }
  return {R, C.andOf(A.Def, C.notOf(Poison))};
}

//===----------------------------------------------------------------------===//
// Vectors and aggregates
//===----------------------------------------------------------------------===//

Lanes FunctionLifter::liftExtractElement(const llvm::ExtractElementInst &I) {
  const Lanes &V = operand(I.getVectorOperand());
  Lane Index = scalar(I.getIndexOperand());
  Type T = V[0].V->type();
  if (Index.V->isConst()) {
    uint64_t K = Index.V->constBits();
    return {K < V.size() ? V[K] : poison(T)};
  }
  // A variable index selects among the lanes; past the end is poison.
  Type IT = Index.V->type();
  Lane R = poison(T);
  for (unsigned K = V.size(); K-- > 0;)
    R = selectLane(C.eq(Index.V, C.constant(IT, K)), V[K], R);
  R.Def = C.andOf(R.Def, Index.Def);
  return {R};
}

Lanes FunctionLifter::liftInsertElement(const llvm::InsertElementInst &I) {
  Lanes V = operand(I.getOperand(0));
  Lane New = scalar(I.getOperand(1));
  Lane Index = scalar(I.getOperand(2));
  if (Index.V->isConst()) {
    uint64_t K = Index.V->constBits();
    if (K < V.size())
      V[K] = New;
    else
      for (Lane &L : V)
        L = poison(L.V->type());
    return V;
  }
  Type IT = Index.V->type();
  const Expr *InRange =
      C.icmp(ICmpPredicate::Ult, Index.V, C.constant(IT, V.size()));
  for (unsigned K = 0; K < V.size(); ++K) {
    V[K] = selectLane(C.eq(Index.V, C.constant(IT, K)), New, V[K]);
    V[K].Def = C.andOf(V[K].Def, C.andOf(Index.Def, InRange));
  }
  return V;
}

Lanes FunctionLifter::liftShuffle(const llvm::ShuffleVectorInst &I) {
  Lanes Sources = operand(I.getOperand(0));
  const Lanes &Second = operand(I.getOperand(1));
  Sources.insert(Sources.end(), Second.begin(), Second.end());
  Type T = Sources[0].V->type();
  Lanes Out;
  for (int K : I.getShuffleMask())
    Out.push_back(K < 0 ? poison(T) : Sources[unsigned(K)]);
  return Out;
}

unsigned FunctionLifter::laneOffset(llvm::Type *Aggregate,
                                    llvm::ArrayRef<unsigned> Path,
                                    llvm::Type *&Inner) {
  unsigned Offset = 0;
  Inner = Aggregate;
  for (unsigned Index : Path) {
    if (auto *S = llvm::dyn_cast<llvm::StructType>(Inner)) {
      for (unsigned F = 0; F < Index; ++F)
        Offset += laneTypes(S->getElementType(F)).size();
      Inner = S->getElementType(Index);
    } else {
      llvm::Type *Element =
          llvm::cast<llvm::ArrayType>(Inner)->getElementType();
      Offset += Index * laneTypes(Element).size();
      Inner = Element;
    }
  }
  return Offset;
}

Lanes FunctionLifter::liftExtractValue(const llvm::ExtractValueInst &I) {
  const Lanes &A = operand(I.getAggregateOperand());
  llvm::Type *Inner;
  unsigned Offset =
      laneOffset(I.getAggregateOperand()->getType(), I.getIndices(), Inner);
  unsigned Count = laneTypes(Inner).size();
  return Lanes(A.begin() + Offset, A.begin() + Offset + Count);
}

Lanes FunctionLifter::liftInsertValue(const llvm::InsertValueInst &I) {
  Lanes A = operand(I.getAggregateOperand());
  const Lanes &New = operand(I.getInsertedValueOperand());
  llvm::Type *Inner;
  unsigned Offset =
      laneOffset(I.getAggregateOperand()->getType(), I.getIndices(), Inner);
  std::copy(New.begin(), New.end(), A.begin() + Offset);
  return A;
}

Lanes FunctionLifter::liftConstantExpr(const llvm::ConstantExpr &E) {
  if (auto *G = llvm::dyn_cast<llvm::GEPOperator>(&E))
    return liftGep(*G);
  if (E.isCast())
    return liftCast(llvm::cast<llvm::Operator>(E), E.getType());
  if (llvm::Instruction::isBinaryOp(E.getOpcode())) {
    llvm::Instruction *I = E.getAsInstruction();
    Lanes L = liftIntBinary(*llvm::cast<llvm::BinaryOperator>(I));
    I->deleteValue();
    return L;
  }
  unsupported(std::string("unsupported constant expression ") +
              E.getOpcodeName());
}

} // namespace stagecheck::llvmir

#include "ptx_lifter/Semantics.h"

#include "ir/Errors.h"
#include "ir/Functions.h"

using namespace stagecheck::ir;

namespace stagecheck::ptx::sem {

const Expr *flush(Context &C, const Expr *X, bool Ftz) {
  return Ftz ? C.unary(Op::FFlushSubnormal, X) : X;
}

const Expr *arith(Context &C, Op O, const Expr *A, const Expr *B,
                  RoundingMode M, bool Ftz) {
  return flush(C, C.floatBinary(O, flush(C, A, Ftz), flush(C, B, Ftz), M), Ftz);
}

const Expr *fma(Context &C, const Expr *A, const Expr *B, const Expr *Addend,
                RoundingMode M, bool Ftz) {
  return flush(C,
               C.fma(flush(C, A, Ftz), flush(C, B, Ftz), flush(C, Addend, Ftz),
                     M),
               Ftz);
}

const Expr *sqrt(Context &C, const Expr *A, RoundingMode M, bool Ftz) {
  const Expr *Ops[] = {flush(C, A, Ftz)};
  return flush(C, C.make(Op::FSqrt, Ops, uint8_t(M)), Ftz);
}

const Expr *reciprocal(Context &C, const Expr *A, RoundingMode M, bool Ftz) {
  return arith(C, Op::FDiv, C.floatConst(A->type(), 1.0), A, M, Ftz);
}

const Expr *roundToIntegral(Context &C, const Expr *A, RoundingMode M,
                            bool Ftz) {
  const Expr *Ops[] = {flush(C, A, Ftz)};
  return flush(C, C.make(Op::FRoundInt, Ops, uint8_t(M)), Ftz);
}

const Expr *abs(Context &C, const Expr *A, bool Ftz) {
  return flush(C, C.unary(Op::FAbs, flush(C, A, Ftz)), Ftz);
}

const Expr *neg(Context &C, const Expr *A, bool Ftz) {
  return flush(C, C.unary(Op::FNeg, flush(C, A, Ftz)), Ftz);
}

const Expr *minMax(Context &C, bool Max, const Expr *A, const Expr *B,
                   bool PropagateNaN, bool Ftz) {
  Op O = PropagateNaN ? (Max ? Op::FMaximum : Op::FMinimum)
                      : (Max ? Op::FMaxNum : Op::FMinNum);
  return flush(C, C.floatBinary(O, flush(C, A, Ftz), flush(C, B, Ftz)), Ftz);
}

const Expr *saturate(Context &C, const Expr *A) {
  Type T = A->type();
  const Expr *Zero = C.floatConst(T, 0.0), *One = C.floatConst(T, 1.0);
  const Expr *Clamped =
      C.floatBinary(Op::FMaxNum, C.floatBinary(Op::FMinNum, A, One), Zero);
  return C.select(C.fcmp(FCmpPredicate::Uno, A, A), Zero, Clamped);
}

const Expr *saturate(Context &C, const Expr *A, bool Ftz) {
  return saturate(C, flush(C, A, Ftz));
}

const Expr *approximate(Context &C, std::string_view Name, bool Ftz,
                        std::span<const Expr *const> Args, unsigned SmVersion) {
  Type T = Args[0]->type();
  if (Ftz && Args.size() == 1) {
    ir::FtzForm Form = ir::measuredFtzForm(Name, T, SmVersion);
    if (Form.IsFlushedPlain) {
      const Expr *Flushed[] = {flush(C, Args[0], true)};
      const Expr *Plain = C.call(std::string(Name), T, Flushed);
      return Form.ResultNeverSubnormal ? Plain : flush(C, Plain, true);
    }
  }
  std::string Function(Name);
  if (Ftz)
    Function += ".ftz";
  if (Args.size() == 2)
    Function = ir::measuredDivision(Function, T, SmVersion);
  return C.call(Function, Args[0]->type(), Args);
}

std::pair<const Expr *, const Expr *>
shuffle(ThreadModel &M, ShuffleMode Mode, const Expr *Value,
        const Expr *LaneOrOffset, const Expr *Clamp, const Expr *MemberMask,
        const Expr *Guard, const Origin &From) {
  static const char *const Kinds[] = {"shfl.sync.up", "shfl.sync.down",
                                      "shfl.sync.bfly", "shfl.sync.idx"};
  for (const Expr *E : {Value, LaneOrOffset, Clamp, MemberMask})
    if (E->type() != Type::i(32))
      throw IRError("shuffle operands are i32");
  auto R = M.exchange(Kinds[unsigned(Mode)], Guard,
                      {Value, LaneOrOffset, Clamp, MemberMask},
                      {Type::i(32), Type::boolean()}, From);
  return {R[0], R[1]};
}

namespace {

const std::pair<const char *, Op> WarpReductions[] = {
    {"add", Op::Add},   {"min", Op::SMin}, {"max", Op::SMax},
    {"umin", Op::UMin}, {"umax", Op::UMax}, {"and", Op::And},
    {"or", Op::Or},     {"xor", Op::Xor}};

} // namespace

bool isWarpReduction(const std::string &Operation) {
  for (const auto &[Name, O] : WarpReductions)
    if (Operation == Name)
      return true;
  return false;
}

Op warpReductionOp(const std::string &Operation) {
  for (const auto &[Name, O] : WarpReductions)
    if (Operation == Name)
      return O;
  throw IRError("no warp reduction " + Operation);
}

const Expr *warpReduce(ThreadModel &M, const std::string &Operation,
                       const Expr *Value, const Expr *MemberMask,
                       const Expr *Guard, const Origin &From) {
  if (!isWarpReduction(Operation))
    throw IRError("no warp reduction " + Operation);
  for (const Expr *E : {Value, MemberMask})
    if (E->type() != Type::i(32))
      throw IRError("redux.sync operands are i32");
  return M.exchange("redux.sync." + Operation, Guard, {Value, MemberMask},
                    {Type::i(32)}, From)[0];
}

} // namespace stagecheck::ptx::sem

//===- Executor.h - One PTX instruction on one path -------------*- C++ -*-===//
//
// The instruction semantics the PTX lifter and liftInlineAsm share. A path
// (PathState) is a path condition and the registers' values on it; the
// Executor runs one instruction on a path through a Step, which reads and
// writes operands in bits (registers are bit vectors of their declared
// width, .pred is i1) and knows the instruction's guard (path condition
// and predicate). The Lift*.cpp files hold the instructions, grouped by
// kind; each `lift...Op` returns false for an opcode it does not know.
//
// Internal to ptx_lifter/.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_PTX_LIFTER_EXECUTOR_H
#define STAGECHECK_PTX_LIFTER_EXECUTOR_H

#include "ptx_lifter/Ptx.h"
#include "ptx_lifter/PtxLifter.h"
#include "ptx_lifter/ThreadModel.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace stagecheck::ptx {

/// An instruction type suffix: .b32, .u64, .s16, .f32, .f16x2, .bf16, .pred.
struct PtxType {
  char Kind = 'b';    // b u s f p (pred)
  unsigned Bits = 32; // of one lane
  unsigned Lanes = 1; // 2 for f16x2 / bf16x2
  bool BFloat = false;

  static std::optional<PtxType> parse(std::string_view S);
  unsigned totalBits() const { return Bits * Lanes; }
  bool isFloat() const { return Kind == 'f'; }
  bool isSigned() const { return Kind == 's'; }
  bool isPred() const { return Kind == 'p'; }
  /// The IR type of one lane: f16, bf16, f32, f64, or iN.
  ir::Type laneType() const;
};

struct RegisterInfo {
  unsigned Bits = 32;
  bool IsPred = false;
};

/// The declared registers: single names and %r<N> ranges.
class RegisterTable {
public:
  /// Throws ir::InputError for a type a register cannot have.
  void declare(const RegisterDecl &D, const std::string &File);
  void declare(const std::string &Name, RegisterInfo Info);
  const RegisterInfo *find(const std::string &Name) const;

private:
  std::map<std::string, RegisterInfo> Named;
  std::map<std::string, std::pair<RegisterInfo, unsigned>> Ranges;
};

/// The carry flag CC.CF that add.cc, addc, mad.cc, madc... set and read,
/// kept on a path like a register (i1).
inline constexpr const char *CarryFlagRegister = "%cc.cf";

/// One path: its condition (a conjunction, kept as its conjuncts so that
/// joins can take the common part apart) and the registers' values.
struct PathState {
  std::vector<const ir::Expr *> Conjuncts;
  const ir::Expr *Condition = nullptr; // and of Conjuncts
  std::unordered_map<std::string, const ir::Expr *> Registers;

  /// This path with Literal added; a path whose condition folds to false
  /// is dead (Condition->isFalse()).
  PathState with(ir::Context &C, const ir::Expr *Literal) const;
};

/// What names mean in operands, besides registers.
struct NameScope {
  /// Kernel parameters by name (ld.param): position and declared width.
  struct ParamInfo {
    unsigned Index = 0, Bits = 64;
  };
  std::map<std::string, ParamInfo> Params;
  /// A device function's return parameters (st.param): name -> bytes.
  std::map<std::string, unsigned> Returns;
  /// Shared variables (the dynamic shared memory Triton calls
  /// global_smem): their address is the model's shared base.
  std::set<std::string> SharedVariables;
  /// .local variables (the depot llc keeps allocas in) and the module's
  /// initialized tables: their addresses, private objects of the model.
  std::map<std::string, const ir::Expr *> PrivateVariables;
  /// Inline asm: $N of an immediate operand ("n", "i").
  std::map<std::string, int64_t> Immediates;
  /// Inline asm: $N tied to an output ($4 -> $0).
  std::map<std::string, std::string> Aliases;
};

/// Where instructions come from, for origins and errors.
struct SiteInfo {
  std::string PtxFile;         // used in errors ("file.ptx:12:3")
  const Module *Mod = nullptr; // resolves .loc; null for inline asm
  /// Inline asm: every effect's location (the call's).
  std::optional<ir::SourceLocation> FixedSource;
  /// 90 for a module (or a kernel's inline asm) targeting sm_90 or
  /// sm_90a; 0 when not known.
  unsigned SmVersion = 0;
};

/// How many effects of each kind the model held before an instruction.
struct EffectCounts {
  size_t Writes = 0, Exchanges = 0, Undefined = 0, Atomics = 0;
};

class Executor {
public:
  Executor(ThreadModel &M, const RegisterTable &Registers, NameScope Names,
           SiteInfo Site, PtxLift *Record = nullptr)
      : M(M), Registers(Registers), Names(std::move(Names)),
        Site(std::move(Site)), Record(Record) {}

  /// Runs I (not a branch, ret or exit) on S. Throws ir::InputError for a
  /// malformed instruction and ir::UnsupportedError for one not modelled,
  /// both at the instruction's PTX location.
  void execute(const Instruction &I, PathState &S);

  /// Lists unsupported instructions in the record instead of throwing.
  bool ContinueOnUnsupported = false;

  ThreadModel &model() { return M; }
  const RegisterTable &registers() const { return Registers; }
  const NameScope &names() const { return Names; }
  const SiteInfo &site() const { return Site; }
  /// The PTX location of I (file:line:column).
  ir::SourceLocation ptxLocation(const Instruction &I) const;
  /// The origin effects of I carry: its spelling and source location.
  ir::Origin origin(const Instruction &I) const;
  /// The thread is undefined where Condition holds, at I (a failed
  /// assertion's trap): recorded with I's line like any effect of I.
  void undefinedAt(const Instruction &I, const ir::Expr *Condition,
                   const std::string &Reason);
  /// The value of a register on S; before any write the symbol
  /// "uninit.bN" of its width (a register nobody wrote holds an unknown
  /// value, named alike in every stage).
  const ir::Expr *registerValue(const PathState &S, const std::string &Name);
  /// st.param to a return parameter: byte Offset + K becomes byte K of
  /// Bits where Guard holds (path condition and predicate), so that after
  /// the lift each byte is what the path that returned last stored.
  void storeReturn(unsigned Offset, const ir::Expr *Bits,
                   const ir::Expr *Guard);
  /// Byte Offset of the return parameters after the lift; a byte no path
  /// stored is the free symbol "retval.uninit.N".
  const ir::Expr *returnByte(unsigned Offset);

private:
  void dispatch(const Instruction &I, PathState &S);
  void skipUnsupported(const Instruction &I, PathState &S,
                       const std::string &Reason);
  void recordProvenance(const Instruction &I, const PathState &S,
                        const EffectCounts &Before);

  ThreadModel &M;
  const RegisterTable &Registers;
  NameScope Names;
  SiteInfo Site;
  PtxLift *Record;
  std::map<unsigned, const ir::Expr *> ReturnBytes;
  friend class Step;
};

/// One instruction being lifted on one path.
class Step {
public:
  Step(Executor &X, const Instruction &I, PathState &S);

  ir::Context &C;
  ThreadModel &M;
  const Instruction &I;
  PathState &S;
  /// "ld" and {"global", "v4", "b32"} for ld.global.v4.b32.
  std::string Base;
  std::vector<std::string> Mods;

  bool has(std::string_view Mod) const;
  /// The modifier at Index (from the end when negative), or "".
  std::string mod(int Index) const;
  /// The last modifier, parsed as a type.
  PtxType type() const;
  PtxType typeAt(int Index) const;
  /// .rn .rz .rm .rp (and .rni ... for integer results); Default when none.
  ir::RoundingMode
  rounding(ir::RoundingMode Default = ir::RoundingMode::NearestEven) const;
  bool hasRounding() const;
  ir::Origin origin() const { return X.origin(I); }

  // --- Guards --------------------------------------------------------------
  /// The instruction's predicate (true when unpredicated).
  const ir::Expr *predicate();
  /// Path condition and predicate: when the instruction takes effect.
  const ir::Expr *guard();

  // --- Operands ------------------------------------------------------------
  size_t count() const { return I.Operands.size(); }
  void expectOperands(size_t Min, size_t Max = 0) const;
  const Operand &operand(unsigned K) const;
  /// Source operand K as Width bits. T (when given) says how an immediate
  /// is read (0f literals in a .f64 instruction, decimals); a wider
  /// register is truncated to Width (PTX allows wider source registers).
  const ir::Expr *bits(const Operand &O, unsigned Width,
                       std::optional<PtxType> T = std::nullopt);
  const ir::Expr *bits(unsigned K, unsigned Width,
                       std::optional<PtxType> T = std::nullopt) {
    return bits(operand(K), Width, T);
  }
  /// Operand K of type T (one value of T.totalBits()).
  const ir::Expr *value(unsigned K, PtxType T) {
    return bits(K, T.totalBits(), T);
  }
  /// Lane L of a float (or packed float) operand as an IR float.
  const ir::Expr *floatLane(unsigned K, PtxType T, unsigned Lane);
  /// A predicate operand (i1), honouring '!'.
  const ir::Expr *pred(const Operand &O);
  const ir::Expr *pred(unsigned K) { return pred(operand(K)); }
  /// The address of operand K ([base+offset]); Width is the base's width
  /// when it is a symbol.
  const ir::Expr *address(unsigned K, unsigned SymbolWidth = 32);
  /// The names of a destination: a vector's elements, or the operand.
  std::vector<const Operand *> elements(unsigned K) const;

  /// Writes Value (iN or i1) to destination O under the predicate; a value
  /// narrower than the register is extended (sign-extended when
  /// SignExtend). "_" discards.
  void set(const Operand &O, const ir::Expr *Value, bool SignExtend = false);
  void set(unsigned K, const ir::Expr *Value, bool SignExtend = false) {
    set(operand(K), Value, SignExtend);
  }
  /// Writes float lanes (lowest lane first) as the destination's bits.
  void setFloats(unsigned K, const std::vector<const ir::Expr *> &Lanes);
  /// The width of destination register O.
  unsigned destinationBits(const Operand &O) const;
  /// The declared width of a register operand (0 for other operands).
  unsigned registerBits(const Operand &O) const;

  [[noreturn]] void unsupported(const std::string &What) const;
  [[noreturn]] void malformed(const std::string &Message) const;

  Executor &X;

private:
  const ir::Expr *nameValue(const Operand &O, unsigned Width);
  const ir::Expr *Predicate = nullptr;
};

/// The IR constant of an immediate read as type T (Width bits).
const ir::Expr *immediateBits(ir::Context &C, const Immediate &V,
                              unsigned Width, std::optional<PtxType> T);

// Instruction groups (Lift*.cpp). Each returns false for an opcode that is
// not in its group.
bool liftIntegerOp(Step &S);    // add sub mul mad div rem min max abs neg, bits
bool liftFloatOp(Step &S);      // float arithmetic and approximate functions
bool liftCompareOp(Step &S);    // setp selp testp and or xor not on .pred
bool liftConvertOp(Step &S);    // cvt mov
bool liftMemoryOp(Step &S);     // ld st atom red cp.async createpolicy
bool liftCollectiveOp(Step &S); // shfl bar ldmatrix stmatrix mma vote

} // namespace stagecheck::ptx

#endif

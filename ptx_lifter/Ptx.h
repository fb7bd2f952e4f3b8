//===- Ptx.h - PTX text as a syntax tree ------------------------*- C++ -*-===//
//
// What the parser makes of a PTX module: its directives, its functions with
// their parameters, register declarations and bodies (labels and
// instructions), and the .file table that .loc refers to. Nothing here has
// meaning yet; the lifter gives it one.
//
// Operands keep their syntax: a register or symbol is a name, an address
// is [base+offset], a vector is {a, b}; the lifter resolves names against
// the register declarations. Immediates keep their spelling's kind
// (integer, 0f/0d bit pattern, decimal float).
//
// Malformed text throws ir::InputError with file:line:column.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_PTX_LIFTER_PTX_H
#define STAGECHECK_PTX_LIFTER_PTX_H

#include "ir/Effects.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stagecheck::ptx {

struct Immediate {
  enum Kind { Integer, F32Bits, F64Bits, Decimal } K = Integer;
  uint64_t Bits = 0; // Integer (two's complement), F32Bits, F64Bits
  double Value = 0;  // Decimal
};

struct Operand {
  enum Kind {
    Name,     // %r1, %tid.x, global_smem, $L__BB0_2, $0 (inline asm), _
    Imm,      // 0x10, -1, 0f3F800000, 1.0
    Address,  // [Base], [Base+Offset]: Base is a Name or an Imm
    Vector,   // {a, b, ...}
    PredPair, // %p1|%p2 (setp, shfl): Elements[0] | Elements[1]
  } K = Name;
  std::string Text;              // Name: the name
  bool Negated = false;          // !%p1
  Immediate Value;               // Imm; Address: the offset (Integer)
  std::vector<Operand> Elements; // Vector, PredPair; Address: {Base}
  unsigned Line = 0, Column = 0;

  bool isName() const { return K == Name; }
  const Operand &base() const { return Elements[0]; }
};

struct Instruction {
  /// "@%p1" / "@!%p1"; empty when unpredicated.
  std::string Predicate;
  bool PredicateNegated = false;
  std::string Opcode; // the full spelling: "ld.global.v4.b32"
  std::vector<Operand> Operands;
  unsigned Line = 0, Column = 0;
  /// The last .loc before the instruction: file index, line, column.
  unsigned LocFile = 0, LocLine = 0, LocColumn = 0;
};

/// One element of a body: a label or an instruction.
struct Statement {
  std::string Label; // non-empty for a label
  Instruction Inst;  // otherwise
  bool isLabel() const { return !Label.empty(); }
};

/// .reg .b32 %r<15>; declares %r0 ... %r14; .reg .pred %p; declares %p.
struct RegisterDecl {
  std::string Type; // "b32", "pred", "f32", ...
  std::string Name; // the name, or the prefix when Count is set
  std::optional<unsigned> Count;
  unsigned Line = 0;
};

struct Param {
  std::string Name;
  std::string Type; // "u64", "u32", "b8", ...
  bool IsPointer = false;
  /// .param .b8 name[16]: the element count of an array parameter (a
  /// device function's vector or aggregate); 0 for a scalar.
  unsigned ArraySize = 0;
  unsigned Line = 0;
};

/// A .shared / .global / .const variable (module or function scope).
struct Variable {
  std::string Space; // "shared", "global", "const", "local"
  std::string Name;
  std::string Type;
  bool IsExtern = false;
  unsigned Line = 0;
  /// name[N]: N elements of Type (0 for name[] or a scalar).
  uint64_t ArraySize = 0;
  /// = {v0, v1, ...}: the elements' integer values (empty when there is no
  /// initializer, or one that is not a list of integers).
  std::vector<uint64_t> Initializer;
  bool HasInitializer = false;
};

struct Function {
  std::string Name;
  bool IsEntry = false; // .entry (a kernel) rather than .func
  bool HasBody = false;
  std::vector<Param> Params;
  /// A .func's return parameters: (.param .b32 func_retval0).
  std::vector<Param> Returns;
  std::optional<std::vector<unsigned>> ReqNtid, MaxNtid;
  std::vector<RegisterDecl> Registers;
  std::vector<Variable> Variables;
  std::vector<Statement> Body;
  unsigned Line = 0;
};

struct Module {
  std::string FileName;
  std::string Version, Target;
  unsigned AddressSize = 64;
  std::vector<Variable> Variables;
  std::vector<Function> Functions;
  /// .file N "path": N -> path as the PTX records it.
  std::map<unsigned, std::string> Files;

  const Function *function(std::string_view Name) const;
  /// The location an instruction's .loc names ({} when none).
  ir::SourceLocation source(const Instruction &I) const;
};

/// Parses a PTX module. Throws ir::InputError (file:line:column).
Module parseModule(std::string_view Text, const std::string &FileName);

/// Parses a sequence of statements (an inline-asm template: instructions,
/// labels, .reg declarations and { } scopes), with $N operand names.
/// Declarations go to Registers. Throws ir::InputError.
std::vector<Statement> parseStatements(std::string_view Text,
                                       const std::string &FileName,
                                       std::vector<RegisterDecl> &Registers);

} // namespace stagecheck::ptx

#endif

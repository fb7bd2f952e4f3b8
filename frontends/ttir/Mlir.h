//===- Mlir.h - The MLIR text Triton writes, as data ------------*- C++ -*-===//
//
// One parser reads both TTIR and TTGIR (Triton 3.6 output): pretty and generic
// op forms, attributes, types with their `#ttg.*` encodings, and the `#loc`
// table. The result is a plain tree of operations; it gives no meaning to
// any op (that is the lifter's job), but it keeps everything a report or a
// later stage needs: each op's position in the stage file and its location
// (resolved to the Python source through the `#loc` aliases).
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_FRONTENDS_TTIR_MLIR_H
#define STAGECHECK_FRONTENDS_TTIR_MLIR_H

#include "frontends/ttir/Layout.h"
#include "ir/Effects.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stagecheck::ttir {

struct Attr;
struct MType;
struct Loc;
using AttrPtr = std::shared_ptr<const Attr>;
using TypePtr = std::shared_ptr<const MType>;
using LocPtr = std::shared_ptr<const Loc>;

/// A position in the stage file (1-based).
struct FilePos {
  unsigned Line = 0;
  unsigned Column = 0;
};

/// An MLIR type. Tensors and memory descriptors keep their encoding.
struct MType {
  enum class Kind { Int, Float, Index, Ptr, Tensor, MemDesc, Token, Function, None, Other };
  enum class FloatKind { F16, BF16, F32, F64, TF32, F8E4M3FN, F8E5M2, Other };
  Kind K = Kind::Other;
  unsigned Bits = 0;                  // Int and Float
  FloatKind FK = FloatKind::Other;    // Float
  TypePtr Elem;                       // Ptr pointee; Tensor and MemDesc element
  unsigned AddressSpace = 1;          // Ptr
  std::vector<int64_t> Shape;         // Tensor, MemDesc
  LayoutPtr Encoding;                 // Tensor, MemDesc (may be null)
  std::string MemorySpace;            // MemDesc ("#smem" spelled as the alias)
  bool Mutable = false;               // MemDesc
  std::vector<TypePtr> Inputs, Results; // Function
  std::string Text;                   // as written, for messages

  bool isTensor() const { return K == Kind::Tensor; }
  bool isPtr() const { return K == Kind::Ptr; }
  /// The element type of a tensor, else the type itself.
  const MType &scalar() const { return isTensor() ? *Elem : *this; }
  /// Shape of a tensor or memdesc; empty for scalars.
  std::vector<int64_t> shape() const {
    return (K == Kind::Tensor || K == Kind::MemDesc) ? Shape
                                                     : std::vector<int64_t>{};
  }
};

/// An attribute value. Dictionaries keep their order.
struct Attr {
  enum class Kind {
    Unit, Bool, Int, Float, String, Keyword, Array, Dict, Type, Dense, Dialect,
    Symbol
  };
  Kind K = Kind::Unit;
  bool BoolValue = false;
  int64_t IntValue = 0;
  double FloatValue = 0;
  std::string Text;                  // String, Keyword, Symbol, Dialect name; float and hex literal text
  TypePtr Ty;                        // the `: type` of Int/Float/Dense, or the Type of a Type attribute
  std::vector<AttrPtr> Elements;     // Array, Dense (one element: a splat)
  std::vector<std::pair<std::string, AttrPtr>> Entries; // Dict
  AttrPtr Body;                      // Dialect: what is inside <...>
  LayoutPtr Layout;                  // Dialect: decoded when it is an encoding

  const Attr *get(std::string_view Key) const;
  /// An integer (Int or Bool) or nullopt.
  std::optional<int64_t> asInt() const;
  /// A list of integers (Array of Int, or `array<i32: ...>`) or nullopt.
  std::optional<std::vector<int64_t>> asInts() const;
};

/// A location as written: unknown, "file":line:col, "name"(child),
/// callsite(callee at caller), fused[...], or a reference to a #loc alias.
struct Loc {
  enum class Kind { Unknown, FileLineCol, Name, CallSite, Fused, Alias };
  Kind K = Kind::Unknown;
  std::string Text; // file, name or alias
  unsigned Line = 0, Column = 0;
  std::vector<LocPtr> Children; // Name: 0 or 1; CallSite: callee, caller; Fused
};

struct OperandRef {
  std::string Name; // "%x" without the '%'
  unsigned Index = 0; // %x#2
  std::string Tag;  // the keyword before it in a pretty form ("mask", "other", "token")
  FilePos Pos;
};

struct BlockArg {
  std::string Name;
  TypePtr Ty;
  LocPtr Location;
  std::vector<std::pair<std::string, AttrPtr>> Attributes; // tt.func arguments
};

struct Operation;
struct Block {
  std::string Label;
  std::vector<BlockArg> Args;
  std::vector<Operation> Ops;
};
struct Region {
  std::vector<Block> Blocks;
};

struct Operation {
  std::string Name;
  /// Result groups: "%a" (1), "%a:3" (3), or several "%a, %b".
  std::vector<std::pair<std::string, unsigned>> Results;
  std::vector<OperandRef> Operands;
  /// Bare keywords of a pretty form, in order ("x", "slt", "fadd", "gpu").
  std::vector<std::string> Words;
  /// String literals of a pretty form (tt.assert's message).
  std::vector<std::string> Strings;
  /// Attribute dictionary, properties and `key = value` clauses, merged.
  std::vector<std::pair<std::string, AttrPtr>> Attributes;
  /// The trailing type list, in order, and the types after `->` (or the
  /// result types scf ops list).
  std::vector<TypePtr> Types;
  std::vector<TypePtr> ResultTypes;
  std::vector<Region> Regions;
  AttrPtr Value; // arith.constant's value
  LocPtr Location;
  FilePos Pos;

  const Attr *attr(std::string_view Key) const;
  unsigned numResults() const;
};

struct Function {
  std::string Name;
  bool Public = false;
  std::vector<BlockArg> Args;
  std::vector<TypePtr> ResultTypes;
  std::vector<std::pair<std::string, AttrPtr>> Attributes;
  Region Body;
  LocPtr Location;
  FilePos Pos;
};

struct Module {
  std::string Path; // the stage file
  std::vector<Function> Functions;
  std::vector<std::pair<std::string, AttrPtr>> Attributes; // module attributes
  std::map<std::string, AttrPtr> Aliases;                  // #blocked, #mma, ...
  std::map<std::string, LocPtr> LocAliases;                // #loc, #loc1, ...

  /// The kernel: the first public function (or the only function).
  const Function *kernel() const;
  const Function *function(std::string_view Name) const;
  /// A location as people read it: the innermost position in the kernel's
  /// own source file (call sites lead back to it), else the outermost known
  /// one; unknown when nothing is known.
  ir::SourceLocation resolve(const LocPtr &L) const;
  /// The file the kernel's `def` is in (from its location), or "".
  std::string kernelFile() const;
  /// "ttg.num-warps" and the like, when present.
  std::optional<int64_t> intAttribute(std::string_view Key) const;
};

/// Parses a stage file's text; throws ir::InputError (file:line:column) on
/// malformed input.
Module parseModule(const std::string &Text, const std::string &Path);
/// Reads and parses a stage file.
Module parseModuleFile(const std::string &Path);

/// A type as text (for messages and tests).
std::string printType(const MType &T);

} // namespace stagecheck::ttir

#endif

//===- Libdevice.h - libdevice calls given their bodies' meaning -*- C++ -*-===//
//
// TTGIR's tt.extern_elementwise calls libdevice (__nv_expf, __nv_erff, ...)
// by name, and the lowering (LiftOptions::Lowering) calls it for math.sqrt
// and math.log; the LLVM IR has the bodies inlined. The meaning of a call
// is the body of the function in the CUDA toolkit's libdevice.10.bc, lifted
// by the LLVM frontend with __nvvm_reflect answered as for the kernel
// (its nvvm-reflect-ftz flag, its target), its parameters replaced by the
// call's arguments.
//
//===----------------------------------------------------------------------===//
#ifndef STAGECHECK_STAGES_LIBDEVICE_H
#define STAGECHECK_STAGES_LIBDEVICE_H

#include "frontends/llvm/LlvmLifter.h"
#include "ir/Effects.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

namespace stagecheck::stages {

/// The default libdevice of this build, "" when the build has none.
std::string defaultLibdevice();

/// The libdevice whose bodies give a kernel's calls their meaning: Given
/// (--libdevice), else the one the kernel was linked with when it can be
/// read here, else the default; "" when there is none.
std::string chosenLibdevice(const std::string &Given,
                            const std::string &Linked);

class Libdevice {
public:
  /// Path: libdevice.10.bc; "" means none (every call is then unknown).
  Libdevice(std::string Path, int ReflectFtz, unsigned SmVersion);
  ~Libdevice();

  /// Whether E calls a libdevice function.
  static bool isLibdeviceCall(const ir::Expr *E);
  /// The effects with every libdevice call replaced by its body; a value
  /// that is poison where the body says so gets that in its definedness.
  /// Throws ir::UnsupportedError when a body is not available.
  ir::Effects apply(ir::Context &C, const ir::Effects &E);
  /// E with every libdevice call replaced by its body, and the i1 under
  /// which those bodies return no poison. Throws as apply() does.
  std::pair<const ir::Expr *, const ir::Expr *> withBodies(ir::Context &C,
                                                           const ir::Expr *E);
  /// Each function replaced, with the number of distinct calls.
  const std::map<std::string, unsigned> &used() const { return Used; }

private:
  std::string Path;
  int ReflectFtz;
  unsigned SmVersion;
  std::unique_ptr<llvmir::LlvmLibrary> Library;
  std::map<std::string, llvmir::FunctionBody> Bodies;
  std::unordered_map<const ir::Expr *, const ir::Expr *> Done, DefinedOf;
  std::map<std::string, unsigned> Used;

  const llvmir::FunctionBody &body(ir::Context &C, const std::string &Name);
  const ir::Expr *rewrite(ir::Context &C, const ir::Expr *E);
  /// i1: the bodies of the calls E makes return no poison.
  const ir::Expr *definedness(ir::Context &C, const ir::Expr *E);
};

} // namespace stagecheck::stages

#endif

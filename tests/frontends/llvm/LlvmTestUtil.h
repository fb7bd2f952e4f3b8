//===- LlvmTestUtil.h - Lifting small LLVM IR modules in tests --*- C++ -*-===//
#ifndef STAGECHECK_TESTS_FRONTENDS_LLVM_LLVMTESTUTIL_H
#define STAGECHECK_TESTS_FRONTENDS_LLVM_LLVMTESTUTIL_H

#include "frontends/llvm/LlvmLifter.h"

#include "ir/Interpreter.h"

#include <string>
#include <vector>

namespace stagecheck::llvmir::test {

/// A module with one kernel @k(Signature) { Body } of 128 threads, then
/// Tail (globals, declarations, metadata).
std::string kernel(const std::string &Signature, const std::string &Body,
                   const std::string &Tail = "");

/// Parameter K: a pointer to elements of type T, or a scalar of type T.
struct Param {
  bool Pointer;
  ir::Type T;
};
ir::KernelInterface interface(const std::vector<Param> &Params);

LlvmLift lift(ir::Context &C, const std::string &Module,
              const std::vector<Param> &Params, const LlvmLiftOptions &O = {});

/// Evaluates E with the given symbols (unset buffer elements read 0).
ir::Value eval(const ir::Expr *E, const ir::Env &Env = {});
/// The value of the only write of L.
const ir::Write &onlyWrite(const LlvmLift &L);

ir::Value i32(int64_t V);
ir::Value i64(int64_t V);
ir::Value f32(float F);
float asFloat(const ir::Value &V);

} // namespace stagecheck::llvmir::test

#endif

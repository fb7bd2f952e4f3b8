//===- TestUtil.h - Lifting small PTX snippets in tests ---------*- C++ -*-===//
#ifndef STAGECHECK_TESTS_PTX_LIFTER_TESTUTIL_H
#define STAGECHECK_TESTS_PTX_LIFTER_TESTUTIL_H

#include "ptx_lifter/PtxLifter.h"

#include "ir/Interpreter.h"

#include <string>
#include <vector>

namespace stagecheck::ptx::test {

/// A kernel `k` around Body: parameter 0 is a pointer (k_param_0) to
/// elements of Out, then one scalar parameter per entry of Scalars
/// (k_param_1, ...). Registers %p<16>, %rs<16>, %r<64>, %rd<16> are
/// declared; the block has 128 threads.
std::string kernel(const std::string &Body,
                   const std::vector<ir::Type> &Scalars,
                   const std::string &Directives = ".reqntid 128");
ir::KernelInterface interface(ir::Type Out,
                              const std::vector<ir::Type> &Scalars);

/// Lifts kernel(Body, Scalars) with arg0 pointing to Out elements.
ptx::PtxLift lift(ir::Context &C, const std::string &Body, ir::Type Out,
                  const std::vector<ir::Type> &Scalars = {},
                  const PtxLiftOptions &O = {});

/// Runs one instruction sequence on inputs: input K (0-based) arrives in
/// register %r<K+1> (i32), %rd<K+1> (i64), %rs<K+1> (i16) or %p<K+1> (i1)
/// by its type; the result is register Result (%r0, %rd0, %rs0 or %p0),
/// stored to arg0[0] and evaluated. Returns its bits.
uint64_t run(const std::string &Code, const std::vector<ir::Value> &Inputs,
             const std::string &Result = "%r0");

/// Bits of floats.
uint32_t f32Bits(float F);
float bitsF32(uint64_t Bits);
ir::Value f32(float F);
ir::Value i32(int64_t V);
ir::Value i64(int64_t V);
ir::Value i16(int64_t V);
ir::Value pred(bool B);

/// Evaluates E with the given symbols; calls take the host's value.
ir::Value eval(const ir::Expr *E, const ir::Env &Env = {});

} // namespace stagecheck::ptx::test

#endif

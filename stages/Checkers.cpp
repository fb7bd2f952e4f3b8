// The checkers this build has, registered for audit().
#include "stages/Pipeline.h"
#include "stages/ttir_to_ttgir.h"

#include "ir/Errors.h"

namespace stagecheck::stages {

namespace {

PairResult ttirToTtgir(ir::Context &C, const bundle::Manifest &,
                       const bundle::Launch *L, const CheckOptions &O) {
  std::string Source = L->file("ttir"), Target = L->file("ttgir");
  if (Source.empty() || Target.empty())
    throw ir::InputError({}, "kernel " + L->Kernel +
                                 " lists no TTIR or no TTGIR file");
  return checkTtirToTtgir(C, Source, Target, O);
}

} // namespace

void registerBuiltinCheckers() {
  static bool Done = false;
  if (Done)
    return;
  Done = true;
  registerChecker({Stage::TTIR, Stage::TTGIR}, ttirToTtgir, "ttir-ttgir-1");
}

} // namespace stagecheck::stages

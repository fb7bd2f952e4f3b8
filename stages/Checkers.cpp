// The checkers this build has, registered for audit().
#include "stages/Pipeline.h"

namespace stagecheck::stages {

void registerBuiltinCheckers() {
  static bool Done = false;
  if (Done)
    return;
  Done = true;
}

} // namespace stagecheck::stages

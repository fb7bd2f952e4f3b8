#include "frontends/ttir/Layout.h"

namespace stagecheck::ttir {

unsigned Layout::rank() const {
  switch (K) {
  case Kind::Blocked:
    return unsigned(SizePerThread.size());
  case Kind::Slice:
    return Parent && Parent->rank() > 0 ? Parent->rank() - 1 : 0;
  case Kind::NvidiaMma:
    return unsigned(WarpsPerCTA.size());
  case Kind::DotOperand:
    return Parent ? Parent->rank() : 0;
  case Kind::SwizzledShared:
    return unsigned(Order.size());
  default:
    return 0;
  }
}

} // namespace stagecheck::ttir

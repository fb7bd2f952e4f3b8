#include "stages/Assumed.h"

#include "ir/Functions.h"

using namespace stagecheck::ir;

namespace stagecheck::stages {

Env withFunctionsOwnValues(const Env &Inputs) {
  Env Out;
  for (const auto &[Name, V] : Inputs.symbols())
    Out.setSymbol(Name, V);
  for (const auto &[Key, V] : Inputs.reads())
    Out.setRead(Key.first, Key.second, V);
  return Out;
}

std::optional<std::string> implausibleAssumption(const Env &Inputs) {
  for (const Env::CallPoint &P : Inputs.calls()) {
    const FunctionInfo *F = lookupFunction(P.Function);
    if (!F || plausibleResult(*F, P.Args, P.Result))
      continue;
    std::string Call = P.Function + "(";
    for (size_t I = 0; I < P.Args.size(); ++I)
      Call += (I ? ", " : "") + P.Args[I].str();
    Value Own = Value::ofDouble(P.Result.Ty, hostResult(*F, P.Args));
    return Call + ") = " + P.Result.str() + " where it is about " + Own.str();
  }
  return std::nullopt;
}

} // namespace stagecheck::stages

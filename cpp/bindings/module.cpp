// The _core extension module: only wires the model-family submodules together.
#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "costmetrics compiled core (private; use the costmetrics package)";
  m.attr("__version__") = COSTMETRICS_VERSION;
#define COSTMETRICS_CALL_REGISTER(name) register_##name(m);
  COSTMETRICS_BOUND_FAMILIES(COSTMETRICS_CALL_REGISTER)
#undef COSTMETRICS_CALL_REGISTER
}

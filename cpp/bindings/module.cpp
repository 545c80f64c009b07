// The _core extension module: only wires the model-family submodules together.
#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "costmetrics compiled core (private; use the costmetrics package)";
  m.attr("__version__") = COSTMETRICS_VERSION;
  register_time(m);
  register_chain(m);
  register_energy(m);
  register_exasat(m);
}

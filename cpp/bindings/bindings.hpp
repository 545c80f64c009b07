// The one header through which every binding file includes pybind11, so that all
// translation units see the same type casters.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

// One registration function per model family, each defined in cpp/bindings/<family>.cpp.
// Each creates its own submodule of _core (e.g. _core.time, _core.chain).
void register_time(py::module_& m);
void register_chain(py::module_& m);

// The one header through which every binding file includes pybind11, so that all
// translation units see the same type casters.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "costmetrics/record.hpp"

namespace py = pybind11;

// One registration function per model family, each defined in cpp/bindings/<family>.cpp.
// Each creates its own submodule of _core (e.g. _core.time, _core.chain).
void register_time(py::module_& m);
void register_chain(py::module_& m);
void register_energy(py::module_& m);
void register_exasat(py::module_& m);

namespace costmetrics {
namespace bindings {

inline std::string type_name(py::handle obj) {
  return py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>();
}

inline std::string repr_of(py::handle obj) { return py::repr(obj).cast<std::string>(); }

// Raises Python's OverflowError with `message`.
[[noreturn]] inline void throw_overflow(const std::string& message) {
  PyErr_SetString(PyExc_OverflowError, message.c_str());
  throw py::error_already_set();
}

// Converts one Python value to the C++ type of a record field or argument. Wrong types
// raise TypeError, integers outside the C++ type's range OverflowError, both naming
// `what` and the value. Value checks (positivity, finiteness) belong to the core, in the
// record's validate().
template <typename T>
T from_python(py::handle obj, const std::string& what) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!PyBool_Check(obj.ptr())) {
      throw py::type_error(what + ": expected a bool, got " + type_name(obj) + " " + repr_of(obj));
    }
    return obj.ptr() == Py_True;
  } else if constexpr (std::is_integral_v<T>) {
    // Python ints and objects with __index__ (NumPy integers); never bool or float.
    if (PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr())) {
      throw py::type_error(what + ": expected an integer, got " + type_name(obj) + " " +
                           repr_of(obj));
    }
    auto value = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
    if (!value) throw py::error_already_set();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    const bool below = overflow < 0 || (std::is_signed_v<T> ? v < static_cast<long long>(
                                                                      std::numeric_limits<T>::min())
                                                            : v < 0);
    const bool above =
        overflow > 0 || (v > 0 && static_cast<unsigned long long>(v) >
                                      static_cast<unsigned long long>(std::numeric_limits<T>::max()));
    if (below || above) {
      throw_overflow(what + ": " + repr_of(obj) + " is outside the supported range [" +
                     std::to_string(std::numeric_limits<T>::min()) + ", " +
                     std::to_string(std::numeric_limits<T>::max()) + "]");
    }
    return static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    // float, int, NumPy scalars; not bool, str or None.
    if (PyBool_Check(obj.ptr()) || !(PyFloat_Check(obj.ptr()) || PyIndex_Check(obj.ptr()) ||
                                     py::hasattr(obj, "__float__")) ||
        PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr())) {
      throw py::type_error(what + ": expected a real number, got " + type_name(obj) + " " +
                           repr_of(obj));
    }
    const double v = PyFloat_AsDouble(obj.ptr());
    if (v == -1.0 && PyErr_Occurred()) {
      if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        throw_overflow(what + ": " + repr_of(obj) + " does not fit a double");
      }
      PyErr_Clear();
      throw py::type_error(what + ": expected a real number, got " + type_name(obj) + " " +
                           repr_of(obj));
    }
    return static_cast<T>(v);
  } else {
    try {
      return obj.cast<T>();
    } catch (const py::cast_error&) {
      throw py::type_error(what + ": cannot convert " + type_name(obj) + " " + repr_of(obj));
    }
  }
}

// Binds a record (costmetrics/record.hpp) as a Python class: read-only attributes with
// their docs, a keyword-only constructor taking every field (converted by from_python,
// then checked by the record's validate() if it has one), `_fields`, `_asdict()`,
// `__repr__`, `__eq__` and pickling. Results and inputs alike go through this one path.
template <typename Record>
py::class_<Record> bind_record(py::handle scope, const char* name, const char* doc) {
  py::class_<Record> cls(scope, name, doc);
  py::list field_names;
  for_each_field<Record>([&](auto f) {
    cls.def_readonly(f.name, f.member, f.doc);
    field_names.append(f.name);
  });
  const std::string record_name = name;
  cls.attr("_fields") = py::tuple(field_names);
  cls.def(py::init([record_name](const py::kwargs& kwargs) {
            Record r{};
            std::size_t used = 0;
            for_each_field<Record>([&](auto f) {
              using Value = typename decltype(f)::value_type;
              if (!kwargs.contains(f.name)) {
                throw py::type_error(record_name + "() missing keyword argument '" + f.name +
                                     "'");
              }
              r.*(f.member) = from_python<Value>(kwargs[f.name], record_name + "." + f.name);
              ++used;
            });
            if (used != kwargs.size()) {
              for (auto item : kwargs) {
                const auto key = py::str(item.first).cast<std::string>();
                bool known = false;
                for_each_field<Record>([&](auto f) { known = known || key == f.name; });
                if (!known) {
                  throw py::type_error(record_name + "() got an unexpected keyword argument '" +
                                       key + "'");
                }
              }
            }
            if constexpr (has_validate<Record>::value) r.validate();
            return r;
          }),
          (std::string("Keyword-only constructor: every field of ") + name + ", validated.")
              .c_str());
  cls.def("_asdict", [](const Record& r) {
    py::dict d;
    for_each_field<Record>([&](auto f) { d[f.name] = py::cast(r.*(f.member)); });
    return d;
  });
  cls.def("__repr__", [record_name](const Record& r) {
    std::string out = record_name + "(";
    bool first = true;
    for_each_field<Record>([&](auto f) {
      if (!first) out += ", ";
      first = false;
      out += std::string(f.name) + "=" + repr_of(py::cast(r.*(f.member)));
    });
    return out + ")";
  });
  cls.def("__eq__", [](const Record& a, py::object b) -> py::object {
    if (!py::isinstance<Record>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    const auto& other = b.cast<const Record&>();
    bool equal = true;
    for_each_field<Record>([&](auto f) {
      equal = equal && py::cast(a.*(f.member)).equal(py::cast(other.*(f.member)));
    });
    return py::bool_(equal);
  });
  cls.attr("__hash__") = py::none();
  cls.def(py::pickle(
      [](const Record& r) {
        py::list state;
        for_each_field<Record>([&](auto f) { state.append(py::cast(r.*(f.member))); });
        return py::tuple(state);
      },
      [record_name](const py::tuple& state) {
        Record r{};
        std::size_t i = 0;
        if (state.size() != std::tuple_size_v<decltype(Record::fields())>) {
          throw py::value_error(record_name + ": pickled state has the wrong number of fields");
        }
        for_each_field<Record>([&](auto f) {
          using Value = typename decltype(f)::value_type;
          r.*(f.member) = state[i++].template cast<Value>();
        });
        return r;
      }));
  return cls;
}

}  // namespace bindings
}  // namespace costmetrics

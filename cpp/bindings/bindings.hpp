// The one header through which every binding file includes pybind11, so that all
// translation units see the same type casters.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "costmetrics/record.hpp"

namespace py = pybind11;

// The model families with a C++ core, in registration order: one X(name) per family, whose
// cpp/bindings/<name>.cpp defines register_<name>(), creating the submodule _core.<name>.
// The same names, in the same order, as the families of costmetrics.families.FAMILIES with
// `core` set (tests/test_families.py checks it); module.cpp registers every one.
#define COSTMETRICS_BOUND_FAMILIES(X) \
  X(time)                             \
  X(chain)                            \
  X(energy)                           \
  X(exasat)                           \
  X(measure)                          \
  X(spu)                              \
  X(scratchpad)                       \
  X(area)                             \
  X(codesign)

#define COSTMETRICS_DECLARE_REGISTER(name) void register_##name(py::module_& m);
COSTMETRICS_BOUND_FAMILIES(COSTMETRICS_DECLARE_REGISTER)
#undef COSTMETRICS_DECLARE_REGISTER

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

template <typename T>
struct is_std_vector : std::false_type {};
template <typename T, typename A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};
template <typename T>
struct is_std_array : std::false_type {};
template <typename T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
template <typename T>
struct is_std_optional : std::false_type {};
template <typename T>
struct is_std_optional<std::optional<T>> : std::true_type {};
template <typename T>
struct is_std_tuple : std::false_type {};
template <typename... T>
struct is_std_tuple<std::tuple<T...>> : std::true_type {};
template <typename T>
struct is_py_array_t : std::false_type {};
template <typename T, int Flags>
struct is_py_array_t<py::array_t<T, Flags>> : std::true_type {
  using value_type = T;
};

// Whether `obj` may stand for an ordered list of values: a list, tuple, range, 1-D array or
// other sequence; never a str, bytes, bytearray, dict, set or other unordered collection.
inline bool is_ordered_sequence(py::handle obj) {
  if (PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()) || PyByteArray_Check(obj.ptr()) ||
      PyDict_Check(obj.ptr()) || PyAnySet_Check(obj.ptr())) {
    return false;
  }
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr()) || PyRange_Check(obj.ptr())) return true;
  if (py::isinstance<py::array>(obj)) return py::reinterpret_borrow<py::array>(obj).ndim() == 1;
  return PySequence_Check(obj.ptr()) != 0 && !py::hasattr(obj, "keys");
}

template <typename T>
T from_python(py::handle obj, const std::string& what);

// Whether from_python converts a T as a bound class (a record or another registered
// type): a class type that is none of the containers and Python types it converts itself.
template <typename T>
inline constexpr bool is_bound_class_v =
    std::is_class_v<T> && !std::is_same_v<T, std::string> && !std::is_base_of_v<py::handle, T> &&
    !is_py_array_t<T>::value && !is_std_tuple<T>::value && !is_std_optional<T>::value &&
    !is_std_vector<T>::value && !is_std_array<T>::value;

// The C++ object of an instance of the bound class T, held by `obj`; anything else is a
// TypeError naming `what`.
template <typename T>
const T& bound_instance(py::handle obj, const std::string& what) {
  const auto* type_info = py::detail::get_type_info(typeid(T));
  if (type_info == nullptr ||
      !py::isinstance(obj, py::handle(reinterpret_cast<PyObject*>(type_info->type)))) {
    throw py::type_error(what + ": expected a " +
                         (type_info != nullptr ? std::string(type_info->type->tp_name)
                                               : std::string("bound object")) +
                         ", got " + type_name(obj) + " " + repr_of(obj));
  }
  return obj.cast<const T&>();
}

// The value of a plain Python float (for a floating-point T) or int (for an integer T) that
// T holds exactly, else nothing. Only exact types qualify (not bool, not NumPy scalars, not
// subclasses), for which from_python's checks all pass: it skips them, and its attribute
// probes (each a raised and cleared AttributeError) and the argument's name, which cost
// more than many a model evaluation (2026-11-30: 5,800 of the 24,700 instructions of a
// call to scratchpad.evaluate_tiles with one tile size).
template <typename T>
std::optional<T> plain_number(py::handle obj) {
  if constexpr (std::is_floating_point_v<T>) {
    if (PyFloat_CheckExact(obj.ptr())) return static_cast<T>(PyFloat_AS_DOUBLE(obj.ptr()));
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (PyLong_CheckExact(obj.ptr())) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
      if (overflow != 0 || (v == -1 && PyErr_Occurred() != nullptr)) {
        PyErr_Clear();
        return std::nullopt;
      }
      const bool fits = std::is_signed_v<T>
                            ? v >= static_cast<long long>(std::numeric_limits<T>::min()) &&
                                  v <= static_cast<long long>(std::numeric_limits<T>::max())
                            : v >= 0 && static_cast<unsigned long long>(v) <=
                                            static_cast<unsigned long long>(
                                                std::numeric_limits<T>::max());
      if (fits) return static_cast<T>(v);
    }
  }
  return std::nullopt;
}

template <typename T, std::size_t... I>
T tuple_from_python(const py::sequence& seq, const std::string& what, std::index_sequence<I...>) {
  return T{from_python<std::tuple_element_t<I, T>>(seq[I], what + "[" + std::to_string(I) + "]")...};
}

// The Python value of a record field or result: enums with enum_names as their name,
// containers element-wise, records as their bound class, numbers and strings as themselves.
template <typename T>
py::object to_python(const T& value) {
  if constexpr (std::is_enum_v<T> && has_enum_names<T>::value) {
    return py::str(enum_name(value));
  } else if constexpr (is_std_vector<T>::value || is_std_array<T>::value) {
    py::list out;
    for (const auto& item : value) out.append(to_python(item));
    return std::move(out);
  } else if constexpr (is_std_optional<T>::value) {
    if (!value) return py::none();
    return to_python(*value);
  } else {
    return py::cast(value);
  }
}

namespace detail {
// The NumPy array behind an array argument: an ndarray, or a list/tuple (nested for more
// dimensions) of numbers. Its dtype must hold the element type's values exactly: integers
// for an integer array (a float array would be truncated silently), integers or reals for
// a real array; never bool, complex, str or object. Errors name `what` and the value.
template <typename U>
py::array checked_array(py::handle obj, const std::string& what) {
  constexpr bool integer = std::is_integral_v<U>;
  const char* expected = integer ? "an array of integers" : "an array of real numbers";
  const auto refuse = [&](const std::string& got) {
    throw py::type_error(what + ": expected " + expected + " (list, tuple or ndarray), got " + got);
  };
  py::array array;
  if (py::isinstance<py::array>(obj)) {
    array = py::reinterpret_borrow<py::array>(obj);
  } else if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr()) || PyRange_Check(obj.ptr())) {
    try {
      array = py::module_::import("numpy").attr("asarray")(obj);
    } catch (py::error_already_set& err) {
      if (!err.matches(PyExc_ValueError) && !err.matches(PyExc_TypeError)) throw;
      throw py::value_error(what + ": not a rectangular array of numbers: " + repr_of(obj));
    }
    const char kind = array.dtype().kind();
    if ((kind == 'O' || kind == 'b' || kind == 'U' || kind == 'S' || kind == 'c') &&
        array.ndim() == 1) {
      // Name the first bad entry (a bool, a str, an integer beyond 64 bits ...).
      const auto seq = py::reinterpret_borrow<py::sequence>(obj);
      for (std::size_t i = 0; i < seq.size(); ++i) {
        (void)from_python<U>(seq[i], what + "[" + std::to_string(i) + "]");
      }
    }
  } else {
    refuse(type_name(obj) + " " + repr_of(obj));
  }
  const char kind = array.dtype().kind();
  // An empty list becomes a float64 array (no value to truncate); a float ndarray, even an
  // empty one, is no integer array.
  const bool empty_list = array.size() == 0 && !py::isinstance<py::array>(obj);
  const bool ok = kind == 'i' || kind == 'u' || (kind == 'f' && (!integer || empty_list));
  if (!ok) {
    auto text = repr_of(obj);
    if (text.size() > 200) text = text.substr(0, 200) + "...";
    refuse("an array of dtype " + py::str(array.dtype()).cast<std::string>() + ": " + text);
  }
  if constexpr (integer) {
    const auto itemsize = array.dtype().itemsize();
    if (kind == 'u' && itemsize >= static_cast<py::ssize_t>(sizeof(U)) && array.size() > 0 &&
        py::module_::import("numpy")
            .attr("any")(array.attr("__gt__")(py::int_(std::numeric_limits<U>::max())))
            .template cast<bool>()) {
      throw_overflow(what + ": an entry is above " + std::to_string(std::numeric_limits<U>::max()));
    }
    if (kind == 'i' && itemsize > static_cast<py::ssize_t>(sizeof(U))) {
      throw py::type_error(what + ": expected " + expected + " of at most " +
                           std::to_string(8 * sizeof(U)) + " bits, got dtype " +
                           py::str(array.dtype()).cast<std::string>());
    }
  }
  return array;
}
}  // namespace detail

// Converts one Python value to the C++ type of a record field or argument. Wrong types
// raise TypeError, integers outside the C++ type's range OverflowError, both naming
// `what` and the value. Value checks (positivity, finiteness) belong to the core, in the
// record's validate().
template <typename T>
T from_python(py::handle obj, const std::string& what) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!PyBool_Check(obj.ptr()) && !(py::hasattr(obj, "dtype") && py::hasattr(obj, "item") &&
                                      py::str(obj.attr("dtype")).cast<std::string>() == "bool")) {
      throw py::type_error(what + ": expected a bool, got " + type_name(obj) + " " + repr_of(obj));
    }
    return PyObject_IsTrue(obj.ptr()) == 1;
  } else if constexpr (std::is_enum_v<T> && has_enum_names<T>::value) {
    std::string names;
    for (const auto& entry : enum_names<T>::values) {
      names += std::string(names.empty() ? "" : ", ") + "'" + entry.second + "'";
    }
    if (!PyUnicode_Check(obj.ptr())) {
      throw py::type_error(what + ": expected one of " + names + ", got " + type_name(obj) + " " +
                           repr_of(obj));
    }
    const auto text = obj.cast<std::string>();
    for (const auto& entry : enum_names<T>::values) {
      if (text == entry.second) return entry.first;
    }
    throw py::value_error(what + ": expected one of " + names + ", got " + repr_of(obj));
  } else if constexpr (std::is_integral_v<T>) {
    if (const auto plain = plain_number<T>(obj)) return *plain;
    // Python ints and objects with __index__ (NumPy integers); never bool or float.
    if (PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr()) ||
        (py::hasattr(obj, "dtype") &&
         py::str(obj.attr("dtype")).cast<std::string>() == "bool")) {
      throw py::type_error(what + ": expected an integer, got " + type_name(obj) + " " +
                           repr_of(obj));
    }
    auto value = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
    if (!value) {
      // An __index__ that refuses (a NumPy array of more than one element): the argument's
      // name, not NumPy's message.
      PyErr_Clear();
      throw py::type_error(what + ": expected an integer, got " + type_name(obj) + " " +
                           repr_of(obj));
    }
    auto out_of_range = [&]() {
      throw_overflow(what + ": " + repr_of(obj) + " is outside the supported range [" +
                     std::to_string(std::numeric_limits<T>::min()) + ", " +
                     std::to_string(std::numeric_limits<T>::max()) + "]");
    };
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow > 0 && std::is_unsigned_v<T>) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
      if (PyErr_Occurred()) {
        PyErr_Clear();
        out_of_range();
      }
      if (u > static_cast<unsigned long long>(std::numeric_limits<T>::max())) out_of_range();
      return static_cast<T>(u);
    }
    const bool below = overflow < 0 || (std::is_signed_v<T> ? v < static_cast<long long>(
                                                                      std::numeric_limits<T>::min())
                                                            : v < 0);
    const bool above =
        overflow > 0 || (v > 0 && static_cast<unsigned long long>(v) >
                                      static_cast<unsigned long long>(std::numeric_limits<T>::max()));
    if (below || above) out_of_range();
    return static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (const auto plain = plain_number<T>(obj)) return *plain;
    // float, int, NumPy scalars; not bool (Python's or NumPy's), str, bytes, None or complex.
    const std::string dtype =
        py::hasattr(obj, "dtype") ? py::str(obj.attr("dtype")).cast<std::string>() : "";
    if (PyBool_Check(obj.ptr()) || PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()) ||
        PyComplex_Check(obj.ptr()) ||
        !(PyFloat_Check(obj.ptr()) || PyIndex_Check(obj.ptr()) || py::hasattr(obj, "__float__")) ||
        dtype == "bool" || dtype.rfind("complex", 0) == 0) {
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
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!PyUnicode_Check(obj.ptr())) {
      throw py::type_error(what + ": expected a str, got " + type_name(obj) + " " + repr_of(obj));
    }
    return obj.cast<std::string>();
  } else if constexpr (std::is_same_v<T, py::handle>) {
    // Converted by the binding itself (callbacks, nested plain data).
    return obj;
  } else if constexpr (std::is_same_v<T, py::object>) {
    return py::reinterpret_borrow<py::object>(obj);
  } else if constexpr (is_py_array_t<T>::value) {
    return T::ensure(detail::checked_array<typename is_py_array_t<T>::value_type>(obj, what));
  } else if constexpr (is_std_tuple<T>::value) {
    if (!is_ordered_sequence(obj)) {
      throw py::type_error(what + ": expected a tuple of " +
                           std::to_string(std::tuple_size_v<T>) + " entries, got " +
                           type_name(obj) + " " + repr_of(obj));
    }
    const auto seq = py::reinterpret_borrow<py::sequence>(obj);
    if (seq.size() != std::tuple_size_v<T>) {
      throw py::value_error(what + ": expected " + std::to_string(std::tuple_size_v<T>) +
                            " entries, got " + std::to_string(seq.size()));
    }
    return tuple_from_python<T>(seq, what, std::make_index_sequence<std::tuple_size_v<T>>{});
  } else if constexpr (is_std_optional<T>::value) {
    if (obj.is_none()) return T{};
    return T{from_python<typename T::value_type>(obj, what)};
  } else if constexpr (is_std_vector<T>::value || is_std_array<T>::value) {
    if (!is_ordered_sequence(obj)) {
      throw py::type_error(what + ": expected a sequence (list, tuple or 1-D array), got " +
                           type_name(obj) + " " + repr_of(obj));
    }
    using Item = typename T::value_type;
    if constexpr (std::is_arithmetic_v<Item> && !std::is_same_v<Item, bool>) {
      // An ndarray's dtype is checked as a whole (an empty bool array is no list of numbers).
      if (py::isinstance<py::array>(obj)) (void)detail::checked_array<Item>(obj, what);
    }
    const auto seq = py::reinterpret_borrow<py::sequence>(obj);
    const std::size_t n = seq.size();
    T out{};
    if constexpr (is_std_array<T>::value) {
      if (n != out.size()) {
        throw py::value_error(what + ": expected " + std::to_string(out.size()) +
                              " entries, got " + std::to_string(n));
      }
    } else {
      out.reserve(n);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const py::object entry = seq[i];
      // A plain number needs no name for an error message (none can occur).
      const auto plain = plain_number<Item>(entry);
      auto item = plain ? *plain : from_python<Item>(entry, what + "[" + std::to_string(i) + "]");
      if constexpr (is_std_array<T>::value) {
        out[i] = std::move(item);
      } else {
        out.push_back(std::move(item));
      }
    }
    return out;
  } else {
    return bound_instance<T>(obj, what);  // a copy
  }
}

// Field-wise equality for records' __eq__: NaN equals NaN ("not measured" in both), so a
// record equals its pickled copy; containers and nested records element by element.
template <typename T>
bool values_equal(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a == b || (std::isnan(a) && std::isnan(b));
  } else if constexpr (is_std_vector<T>::value || is_std_array<T>::value) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!values_equal(a[i], b[i])) return false;
    }
    return true;
  } else if constexpr (is_std_optional<T>::value) {
    if (a.has_value() != b.has_value()) return false;
    return !a.has_value() || values_equal(*a, *b);
  } else if constexpr (is_record<T>::value) {
    bool equal = true;
    for_each_field<T>([&](auto f) { equal = equal && values_equal(a.*(f.member), b.*(f.member)); });
    return equal;
  } else {
    return a == b;
  }
}

// Binds a record (costmetrics/record.hpp) as a Python class: read-only attributes with
// their docs, a keyword-only constructor taking every field (converted by from_python,
// then checked by the record's validate() if it has one), `_fields`, `_asdict()`,
// `__repr__`, `__eq__` and pickling. Results and inputs alike go through this one path.
// Enum fields with enum_names travel as strings, containers as lists, nested records as
// their bound classes (bind those first).
template <typename Record>
py::class_<Record> bind_record(py::handle scope, const char* name, const char* doc) {
  py::class_<Record> cls(scope, name, doc);
  py::list field_names;
  for_each_field<Record>([&](auto f) {
    const auto member = f.member;
    cls.def_property_readonly(
        f.name, [member](const Record& r) { return to_python(r.*member); }, f.doc);
    field_names.append(f.name);
  });
  const std::string record_name = name;
  cls.attr("_fields") = py::tuple(field_names);
  cls.def(py::init([record_name](const py::args& args, const py::kwargs& kwargs) {
            if (!args.empty()) {
              throw py::type_error(record_name + "() takes keyword arguments only (" +
                                   std::to_string(args.size()) + " positional given)");
            }
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
  cls.def(
      "_asdict",
      [](const Record& r) {
        py::dict d;
        for_each_field<Record>([&](auto f) { d[f.name] = to_python(r.*(f.member)); });
        return d;
      },
      "Every field as a dict (nested records stay records).");
  cls.def("__repr__", [record_name](const Record& r) {
    std::string out = record_name + "(";
    bool first = true;
    for_each_field<Record>([&](auto f) {
      if (!first) out += ", ";
      first = false;
      out += std::string(f.name) + "=" + repr_of(to_python(r.*(f.member)));
    });
    return out + ")";
  });
  cls.def("__eq__", [](const Record& a, py::object b) -> py::object {
    if (!py::isinstance<Record>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return py::bool_(values_equal(a, b.cast<const Record&>()));
  });
  cls.attr("__hash__") = py::none();
  cls.def(py::pickle(
      [](const Record& r) {
        py::list state;
        for_each_field<Record>([&](auto f) { state.append(to_python(r.*(f.member))); });
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
          r.*(f.member) = from_python<Value>(state[i++], record_name + "." + f.name);
        });
        return r;
      }));
  return cls;
}

namespace detail {
template <std::size_t I>
using object_for = py::object;

// A bound class passed by const reference is borrowed from its Python object, which the
// call's arguments keep alive and which Python cannot change (bound classes have read-only
// attributes), also while the GIL is released; every other argument is converted into a
// value. Copying a problem of several references (names, coefficient vectors) cost about a
// fifth of a call to scratchpad.evaluate_tiles.
template <typename Arg>
inline constexpr bool borrowed_v = std::is_lvalue_reference_v<Arg> &&
                                   std::is_const_v<std::remove_reference_t<Arg>> &&
                                   is_bound_class_v<std::decay_t<Arg>>;
template <typename Arg>
using held_t = std::conditional_t<borrowed_v<Arg>, const std::decay_t<Arg>&, std::decay_t<Arg>>;
template <typename Arg>
held_t<Arg> held_from_python(py::handle obj, const char* name) {
  if constexpr (borrowed_v<Arg>) {
    return bound_instance<std::decay_t<Arg>>(obj, name);
  } else {
    return from_python<std::decay_t<Arg>>(obj, name);
  }
}

template <bool ReleaseGil, typename R, typename... Args, std::size_t... I, typename... Extra>
void def_function_impl(py::module_& scope, const char* name, R (*fn)(Args...),
                       std::array<const char*, sizeof...(Args)> names, std::index_sequence<I...>,
                       const Extra&... extra) {
  scope.def(
      name,
      [fn, names](object_for<I>... args) -> R {
        // Converted left to right (list initialization), so that an error names the first
        // bad argument.
        std::tuple<held_t<Args>...> converted{held_from_python<Args>(args, names[I])...};
        if constexpr (ReleaseGil) {
          py::gil_scoped_release release;
          return std::apply(fn, converted);
        } else {
          return std::apply(fn, converted);
        }
      },
      extra...);
}

template <bool ReleaseGil, typename R, typename... Args, typename... Extra>
void def_function(py::module_& scope, const char* name, R (*fn)(Args...), const Extra&... extra) {
  std::array<const char*, sizeof...(Args)> names{};
  std::size_t i = 0;
  const auto collect = [&](const auto& e) {
    if constexpr (std::is_base_of_v<py::arg, std::decay_t<decltype(e)>>) {
      if (i < names.size()) names[i] = e.name;
      ++i;
    }
  };
  (collect(extra), ...);
  if (i != sizeof...(Args)) throw std::logic_error(std::string(name) + ": one py::arg per parameter");
  def_function_impl<ReleaseGil>(scope, name, fn, names, std::index_sequence_for<Args...>{},
                                extra...);
}
}  // namespace detail

// Binds a core function so that every argument goes through from_python: a wrong argument
// raises TypeError/ValueError/OverflowError naming it and its value, never pybind11's
// signature dump. This is the one way every _core function is bound: `fn` is the core
// function itself or a capture-less lambda (`+[](const Kernel& k, IntArray sizes) {...}`)
// that adapts it (arrays are py::array_t, checked by from_python; None-or-X arguments
// std::optional<X>; arguments converted by the lambda itself py::object). `extra` is one
// py::arg per parameter (defaults allowed), then optionally a docstring.
template <typename R, typename... Args, typename... Extra>
void def_function(py::module_& scope, const char* name, R (*fn)(Args...), const Extra&... extra) {
  detail::def_function<false>(scope, name, fn, extra...);
}

// def_function for a pure C++ function that runs long (a benchmark, a sweep): arguments are
// converted with the GIL, the call itself runs without it.
template <typename R, typename... Args, typename... Extra>
void def_function_nogil(py::module_& scope, const char* name, R (*fn)(Args...),
                        const Extra&... extra) {
  detail::def_function<true>(scope, name, fn, extra...);
}

// The record protocol of bind_record (`_fields`, `_asdict()`, `__repr__`, `__eq__`, no hash,
// pickling) for a bound class whose state is not a plain list of fields (e.g. a kernel
// holding compiled expressions): `fields` name read-only attributes, and `from_state`
// rebuilds an object from their values in that order.
template <typename T, typename FromState>
void add_record_protocol(py::class_<T>& cls, const std::vector<std::string>& fields,
                         FromState from_state) {
  py::list names;
  for (const auto& f : fields) names.append(f);
  cls.attr("_fields") = py::tuple(names);
  const auto asdict = [fields](py::handle self) {
    py::dict d;
    for (const auto& f : fields) d[f.c_str()] = self.attr(f.c_str());
    return d;
  };
  cls.def("_asdict", asdict, "Every field as a dict.");
  cls.def("__repr__", [fields](py::handle self) {
    std::string out = type_name(self) + "(";
    for (std::size_t i = 0; i < fields.size(); ++i) {
      out += (i ? ", " : "") + fields[i] + "=" + repr_of(self.attr(fields[i].c_str()));
    }
    return out + ")";
  });
  cls.def("__eq__", [asdict](py::handle self, py::object other) -> py::object {
    if (!py::isinstance<T>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return py::bool_(asdict(self).equal(asdict(other)));
  });
  cls.attr("__hash__") = py::none();
  cls.def(py::pickle(
      [fields](py::handle self) {
        py::list state;
        for (const auto& f : fields) state.append(self.attr(f.c_str()));
        return py::tuple(state);
      },
      [from_state, fields](const py::tuple& state) {
        if (state.size() != fields.size()) {
          throw py::value_error("pickled state has the wrong number of fields");
        }
        return from_state(state);
      }));
}

}  // namespace bindings
}  // namespace costmetrics

// Overflow-checked integer arithmetic for operation and word counts, and the value checks
// shared by every model family.
// Every count in the core is a std::int64_t (or wider); products of user-given sizes go
// through these helpers so that overflow raises std::overflow_error (Python OverflowError)
// naming the quantity, never wraps silently. Value checks throw std::invalid_argument
// (Python ValueError) whose message names the parameter and the value:
// "tau_sync_s: must be finite and >= 0, got -3e-08".
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace costmetrics {

inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    // The operands, so that the message shows the values (a running product names its
    // partial value, the factor the next one).
    throw std::overflow_error(std::string(what) + ": " + std::to_string(a) + " x " +
                              std::to_string(b) + " overflows a 64-bit integer");
  }
  return r;
}

inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    throw std::overflow_error(std::string(what) + ": " + std::to_string(a) + " + " +
                              std::to_string(b) + " overflows a 64-bit integer");
  }
  return r;
}

// The shortest decimal text that reads back as `value` ("-3e-08", "0.1", "inf", "nan").
inline std::string format_value(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

template <typename T>
std::string format_value(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    return format_value(static_cast<double>(value));
  } else {
    return std::to_string(value);
  }
}

// Throws std::invalid_argument("<name>: must be positive, got <value>") unless value > 0
// (NaN is not positive).
template <typename T>
inline void require_positive(T value, const char* name) {
  if (!(value > 0)) {
    throw std::invalid_argument(std::string(name) + ": must be positive, got " +
                                format_value(value));
  }
}

// Throws std::invalid_argument unless lo <= value <= hi (NaN fails). `unit` is appended to
// the bounds in the message (e.g. " words").
template <typename T>
inline void require_in_range(T value, T lo, T hi, const char* name, const char* unit = "") {
  if (!(value >= lo && value <= hi)) {
    throw std::invalid_argument(std::string(name) + ": must be in [" + format_value(lo) + ", " +
                                format_value(hi) + "]" + unit + ", got " + format_value(value));
  }
}

}  // namespace costmetrics

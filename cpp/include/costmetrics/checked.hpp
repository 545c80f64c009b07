// Overflow-checked integer arithmetic for operation and word counts.
// Every count in the core is a std::int64_t (or wider); products of user-given sizes go
// through these helpers so that overflow raises std::overflow_error (Python OverflowError)
// naming the quantity, never wraps silently.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace costmetrics {

inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw std::overflow_error(std::string(what) + ": 64-bit integer overflow");
  }
  return r;
}

inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    throw std::overflow_error(std::string(what) + ": 64-bit integer overflow");
  }
  return r;
}

// Throws std::invalid_argument("<name> must be positive, got <value>") unless value > 0.
template <typename T>
inline void require_positive(T value, const char* name) {
  if (!(value > 0)) {
    throw std::invalid_argument(std::string(name) + " must be positive, got " +
                                std::to_string(value));
  }
}

}  // namespace costmetrics

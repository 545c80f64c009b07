// Minimal self-contained unit-test harness for the C++ core (no external dependency,
// so the C++ tests build on a fresh machine with nothing but a compiler and CMake).
//
// Usage, one executable per model family (cpp/tests/test_<family>.cpp):
//   #include "check.hpp"
//   int main() {
//     CHECK(1 + 1 == 2);
//     CHECK_CLOSE(0.1 + 0.2, 0.3, 1e-12);            // relative tolerance
//     CHECK_THROWS(f(-1), std::invalid_argument);
//     return cm_test::report("family");
//   }
#pragma once

#include <cmath>
#include <cstdio>
#include <exception>

namespace cm_test {

inline int& failures() {
  static int n = 0;
  return n;
}
inline int& checks() {
  static int n = 0;
  return n;
}

inline void record(bool ok, const char* what, const char* file, int line) {
  ++checks();
  if (!ok) {
    ++failures();
    std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
  }
}

inline bool close(double actual, double expected, double rel_tol) {
  if (std::isnan(actual) || std::isnan(expected)) return false;
  const double scale = std::fmax(std::fabs(expected), 1e-300);
  return std::fabs(actual - expected) <= rel_tol * scale;
}

// Under the sanitizers (COSTMETRICS_SANITIZE: the tests run 10-20x slower there) the
// longest random sweeps check every `kSanitizedStride`-th draw against their reference, or
// run a share of their trials: every code path still runs instrumented, and the Release
// build's ctest checks every draw. About 150 s of CPU time less in CI.
#ifdef COSTMETRICS_TEST_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
inline constexpr unsigned kSanitizedStride = kSanitized ? 8 : 1;

// Whether draw i of a long sweep is checked (every draw outside the sanitizers).
inline bool sampled(unsigned long long i) { return i % kSanitizedStride == 0; }

// Prints a one-line summary and returns the process exit code.
inline int report(const char* suite) {
  std::printf("%s: %d checks, %d failed\n", suite, checks(), failures());
  return failures() == 0 ? 0 : 1;
}

}  // namespace cm_test

#define CHECK(cond) ::cm_test::record(static_cast<bool>(cond), #cond, __FILE__, __LINE__)

#define CHECK_CLOSE(actual, expected, rel_tol)                                              \
  do {                                                                                      \
    const double cm_a_ = (actual), cm_e_ = (expected);                                      \
    const bool cm_ok_ = ::cm_test::close(cm_a_, cm_e_, (rel_tol));                          \
    ::cm_test::record(cm_ok_, #actual " ~= " #expected, __FILE__, __LINE__);               \
    if (!cm_ok_) std::fprintf(stderr, "    actual %.17g, expected %.17g\n", cm_a_, cm_e_); \
  } while (0)

#define CHECK_THROWS(expr, exception_type)                                   \
  do {                                                                       \
    bool cm_thrown_ = false;                                                 \
    try {                                                                    \
      (void)(expr);                                                          \
    } catch (const exception_type&) {                                        \
      cm_thrown_ = true;                                                     \
    } catch (...) {                                                          \
    }                                                                        \
    ::cm_test::record(cm_thrown_, #expr " throws " #exception_type, __FILE__, __LINE__); \
  } while (0)

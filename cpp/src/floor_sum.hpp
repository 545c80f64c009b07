// Internal: exact sums of floors used by the time model's compute terms.
#pragma once

#include <cstdint>
#include <utility>

namespace costmetrics {
namespace detail {

// floor(a / b) for 0 <= a < 2^53 and 1 <= b < 2^53, by one double division (a few cycles
// instead of a 64-bit integer division). Exact: the correctly rounded quotient of two such
// integers never reaches the next integer, because that lies at least 1/b above a/b while
// the rounding error is at most (a/b) 2^-53 < 1/b.
inline std::int64_t div_floor(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<double>(a) / static_cast<double>(b));
}

// ceil(a / b) for 0 <= a, a + b < 2^53, 1 <= b.
inline std::int64_t div_ceil(std::int64_t a, std::int64_t b) { return div_floor(a + b - 1, b); }

// sum_{j=0}^{n-1} floor((a j + b) / m) for n >= 0, m >= 1, a >= 0, b >= 0, in O(log m)
// steps (the Euclid-like recursion); exact integer arithmetic, callers keep a n + b small.
inline std::int64_t floor_sum(std::int64_t n, std::int64_t m, std::int64_t a, std::int64_t b) {
  // Every quotient below is of non-negative integers under 2^53 (div_floor's domain).
  std::int64_t total = 0;
  while (n > 0) {
    if (a >= m) {
      const std::int64_t q = div_floor(a, m);
      total += (n - 1) * n / 2 * q;
      a -= q * m;
    }
    if (b >= m) {
      const std::int64_t q = div_floor(b, m);
      total += n * q;
      b -= q * m;
    }
    const std::int64_t y_max = a * n + b;
    if (y_max < m) break;
    n = div_floor(y_max, m);
    b = y_max - n * m;
    std::swap(m, a);
  }
  return total;
}

// Vector steps of one hexagon (Eqs. A.10 / A.16 / A.28):
// sum_{x = tS1, tS1+2, ..., tS1+tT-2} ceil(x area / nV) = sum_{j<tT/2} floor(((tS1+2j) area
// + nV - 1) / nV).
// Short sums run as a loop of independent (pipelined) divisions, long ones (the codesign
// sweep's tT reaches ~170) in closed form; both are exact, measured break-even ~16 terms.
inline std::int64_t hexagon_row_steps(std::int64_t tS1, std::int64_t tT, std::int64_t area,
                                      std::int64_t n_v) {
  const std::int64_t h = tT / 2;
  if (h <= 16) {
    std::int64_t steps = 0;
    for (std::int64_t x = tS1; x <= tS1 + tT - 2; x += 2) steps += (x * area + n_v - 1) / n_v;
    return steps;
  }
  return floor_sum(h, n_v, 2 * area, tS1 * area + n_v - 1);
}

}  // namespace detail
}  // namespace costmetrics

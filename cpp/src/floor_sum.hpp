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

// Division by a divisor fixed for many quotients (nV, k nSM), by a multiplication with its
// rounded reciprocal instead of a division. For 0 <= y < 2^46 the product's error is below
// (y/d) 2^-52 < 2^-6, so the truncated product is the floor or one off, and one remainder
// step corrects it; larger y (sizes near the model's limits) take the integer division.
class Reciprocal {
 public:
  explicit Reciprocal(std::int64_t divisor = 1)
      : d_(divisor), inv_(1.0 / static_cast<double>(divisor)) {}

  std::int64_t divisor() const { return d_; }

  // floor(y / d) for 0 <= y.
  std::int64_t floor(std::int64_t y) const {
    if (y >= kFastLimit) return y / d_;
    const std::int64_t q = static_cast<std::int64_t>(static_cast<double>(y) * inv_);
    const std::int64_t r = y - q * d_;
    return q + (r >= d_ ? 1 : 0) - (r < 0 ? 1 : 0);
  }

  // ceil(y / d) for 0 <= y, y + d < 2^63.
  std::int64_t ceil(std::int64_t y) const { return floor(y + d_ - 1); }

 private:
  static constexpr std::int64_t kFastLimit = std::int64_t{1} << 46;
  std::int64_t d_;
  double inv_;
};

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

// The same sum with the divisions by nV done by its reciprocal (exact, Reciprocal): for
// callers that evaluate it for many tiles of one nV (the codesign search's bounds).
inline std::int64_t hexagon_row_steps(std::int64_t tS1, std::int64_t tT, std::int64_t area,
                                      const Reciprocal& n_v) {
  const std::int64_t h = tT / 2;
  if (h <= 16) {
    std::int64_t steps = 0;
    for (std::int64_t x = tS1; x <= tS1 + tT - 2; x += 2) steps += n_v.ceil(x * area);
    return steps;
  }
  return floor_sum(h, n_v.divisor(), 2 * area, tS1 * area + n_v.divisor() - 1);
}

}  // namespace detail
}  // namespace costmetrics

// Internal: the pieces of the execution-time model shared by the `paper` variant
// (time.cpp) and the `exact` variant (time_exact.cpp), written once: integer division,
// the transfer terms (Eqs. A.8/A.9, A.14/A.15, A.25/A.26), the tile-time assembly
// (Eqs. A.11/A.13, A.17, A.29/A.30) and the rounds of Eq. A.2.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>

#include "costmetrics/checked.hpp"
#include "costmetrics/time.hpp"

namespace costmetrics {
namespace time {
namespace detail {

// Ceiling of a / b for a >= 0, b > 0 (no intermediate a + b - 1, so no overflow).
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Floor of a / b for b > 0 and any sign of a (lattice coordinates can be negative).
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -ceil_div(-a, b);
}

// The step of the machine batch's group order (time.cpp, machine_group_order): buckets
// q * step mod n_buckets for q = 0, 1, ... visit every bucket once (gcd(step, n_buckets) =
// 1), and with step near the golden-ratio share of n_buckets any prefix of them spreads
// evenly over [0, n_buckets), so that threads taking contiguous runs get like shares of
// the keys (test_time_batch checks the halves for every n_buckets up to 20,000).
inline std::size_t group_scramble_step(std::size_t n_buckets) {
  if (n_buckets < 2) return 1;
  std::size_t step = std::max<std::size_t>(
      1, static_cast<std::size_t>(static_cast<double>(n_buckets) * 0.6180339887498949));
  while (std::gcd(step, n_buckets) != 1) ++step;
  return step;
}

// Points of one (sub)tile row per hexagon column: 1 in 1D, tS2 in 2D, tS2*tS3 in 3D.
// Bounded by M_tile for feasible tiles.
inline std::int64_t inner_cross_section(int n_space_dims, const TileSizes& tiles) {
  std::int64_t area = 1;
  for (int d = 1; d < n_space_dims; ++d) {
    area = checked_mul(area, tiles.space[d], "tile cross-section tS2*tS3");
  }
  return area;
}

// M_tile in words of positive tiles (Sec. A.4.1; Eq. A.20, for 3D extended by the factor
// (tS3 + tT + 1), docs/time.md), without the checks of time::m_tile_words (feasibility()
// has made them). In double: the tile sizes may be as large as int64 allows; the result is
// only compared with the shared-memory limits (<= 2^22 words), where it is exact.
inline double m_tile_words_positive(int n_space_dims, const TileSizes& tiles) {
  const double tT = static_cast<double>(tiles.time);
  if (n_space_dims == 1) return 2.0 * (static_cast<double>(tiles.space[0]) + tT);
  double m = 2.0;
  for (int d = 0; d < n_space_dims; ++d) m *= static_cast<double>(tiles.space[d]) + tT + 1.0;
  return m;
}

struct Transfer {
  double m_io_words = 0;  // m_i + m_o per (sub)tile
  double m_prime_s = 0;   // m'
};

// Eqs. A.8/A.14/A.25: m_i = m_o = (inner cross-section) * (tS1 + 2 tT);
// Eqs. A.9/A.15/A.26: m' = (m_i + m_o) L + 2 tau_sync.
inline Transfer transfer(const GpuParams& gpu, int n_space_dims, const TileSizes& tiles) {
  Transfer t;
  const double area = static_cast<double>(inner_cross_section(n_space_dims, tiles));
  t.m_io_words =
      2.0 * area * (static_cast<double>(tiles.space[0]) + 2.0 * static_cast<double>(tiles.time));
  t.m_prime_s = t.m_io_words * gpu.l_s_per_word + 2.0 * gpu.tau_sync_s;
  return t;
}

// Tile time from the per-sub-tile terms of one tile: `n_sub` sub-tiles, `sum_c` the sum of
// their compute times and `sum_max` the sum of max(m', c) over them (the paper variant has
// n_sub identical sub-tiles, so sum_c = n_sub c and sum_max = n_sub max(m', c)).
//   1D (one sub-tile):  T_tile(k) = m' + c + (k-1) max(m', c)          Eqs. A.11, A.13
//   2D/3D, k = 1:       n_sub m' + sum c                                Eqs. A.17, A.29
//   2D/3D, k > 1:       m' + k sum max(m', c)                           Eqs. A.17, A.30
inline double tile_time_s(int n_space_dims, std::int64_t k, double m_prime_s, double n_sub,
                          double sum_c_s, double sum_max_s) {
  const double kd = static_cast<double>(k);
  if (n_space_dims == 1) return m_prime_s + sum_c_s + (kd - 1.0) * std::max(m_prime_s, sum_c_s);
  if (k == 1) return n_sub * m_prime_s + sum_c_s;
  return m_prime_s + kd * sum_max_s;
}

// Eq. A.12 without the register bound (registers are not modeled):
// k = min(floor(M_SM / M_tile), MTB_SM), the minimum taken in double so that a tiny M_tile
// cannot overflow the integer conversion. Precondition: M_tile > 0.
inline std::int64_t k_factor(const GpuParams& gpu, double m_tile_words) {
  const double by_memory = std::floor(gpu.smem_per_sm_words / m_tile_words);
  return static_cast<std::int64_t>(
      std::min(by_memory, static_cast<double>(gpu.max_blocks_per_sm)));
}

// Eq. A.2: ceil(ceil(n_tiles / k) / nSM) rounds of k tiles per SM.
inline std::int64_t rounds(std::int64_t n_tiles, std::int64_t k, int n_sm) {
  return ceil_div(ceil_div(n_tiles, k), n_sm);
}

}  // namespace detail
}  // namespace time
}  // namespace costmetrics

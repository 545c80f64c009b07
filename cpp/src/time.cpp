// Execution-time model of tiled stencils, `paper` variant, feasibility, batch evaluation,
// exhaustive tile search and the Section 8.1.2 overhead analysis (thesis 000, Appendix A).
#include "costmetrics/time.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "costmetrics/checked.hpp"
#include "costmetrics/parallel.hpp"
#include "costmetrics/search.hpp"
#include "floor_sum.hpp"
#include "time_detail.hpp"
#include "time_exact.hpp"

// The T_alg-only batch has an AVX2 kernel, chosen at run time (the build stays for the
// baseline ISA): on x86-64 Linux with GCC or Clang; elsewhere, or when built with
// -DCOSTMETRICS_NO_SIMD (to test the fallback), the scalar kernel runs.
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(COSTMETRICS_NO_SIMD)
#define COSTMETRICS_BATCH_AVX2 1
#include <immintrin.h>
#else
#define COSTMETRICS_BATCH_AVX2 0
#endif

namespace costmetrics {
namespace time {

namespace {


using detail::ceil_div;

void require_dims(int n_space_dims) {
  if (n_space_dims < 1 || n_space_dims > kMaxSpaceDims) {
    throw std::invalid_argument("n_space_dims: must be 1, 2 or 3, got " +
                                std::to_string(n_space_dims));
  }
}

// Number of sub-prisms / sub-slabs per tile: ceil((S2+tT)/tS2) (2D, Sec. A.4.2) and
// ceil((S2+tT)/tS2) * ceil((S3+tT)/tS3) (3D, A.24 as read in docs).
std::int64_t n_subtiles(int n_space_dims, const ProblemSize& size, const TileSizes& tiles) {
  std::int64_t n = 1;
  for (int d = 1; d < n_space_dims; ++d) {
    n = checked_mul(n, ceil_div(checked_add(size.space[d], tiles.time, "S + tT"), tiles.space[d]),
                    "sub-tiles per tile");
  }
  return n;
}

// The limits of validate() keep every result finite; this guards that promise.
void require_finite_result(const Breakdown& b) {
  if (!std::isfinite(b.talg_s) || !std::isfinite(b.t_tile_s) || !std::isfinite(b.t_ideal_s)) {
    throw std::overflow_error("T_alg: not finite (" + format_value(b.talg_s) +
                              "); the inputs exceed the model's range");
  }
}

// The same guard where T_alg alone is computed (the `exact` batch): T_alg is a sum of
// nonnegative terms rounds x T_tile + T_sync with rounds >= 1 per wavefront, so a finite
// T_alg has a finite T_tile; T_ideal depends on the machine, stencil and size only.
void require_finite_talg(double talg_s, double t_ideal_s) {
  if (!std::isfinite(talg_s) || !std::isfinite(t_ideal_s)) {
    throw std::overflow_error("T_alg: not finite (" + format_value(talg_s) +
                              "); the inputs exceed the model's range");
  }
}

}  // namespace

std::string describe_infeasibility(std::uint32_t reasons) {
  if (reasons == kFeasible) return "feasible";
  constexpr std::uint32_t kKnown = kNonPositiveTile | kOddTimeTile | kInnermostNotWarpMultiple |
                                   kExceedsBlockSharedMemory | kExceedsSmSharedMemory;
  if ((reasons & ~kKnown) != 0) {
    // An unknown bit would otherwise describe a nonzero (infeasible) mask as "".
    throw std::invalid_argument("reasons: unknown bits " + std::to_string(reasons & ~kKnown) +
                                " in " + std::to_string(reasons) + " (the known bits sum to " +
                                std::to_string(kKnown) + ")");
  }
  std::string text;
  auto add = [&](std::uint32_t bit, const char* what) {
    if (reasons & bit) {
      if (!text.empty()) text += "; ";
      text += what;
    }
  };
  add(kNonPositiveTile, "tile sizes must be positive integers");
  add(kOddTimeTile, "tT must be even (hexagonal tiling, Eq. A.32)");
  add(kInnermostNotWarpMultiple,
      "innermost space tile (tS2 in 2D, tS3 in 3D) must be a multiple of 32 (Eq. A.32; of "
      "machine.innermost_multiple where set)");
  add(kExceedsBlockSharedMemory,
      "M_tile exceeds the shared memory per thread block (Eq. A.32)");
  add(kExceedsSmSharedMemory, "M_tile exceeds the shared memory per SM, so k = 0 (Eq. A.32)");
  return text;
}

namespace {
const char* const kLevelNames[kMemoryLevels] = {"L1", "L2", "L3", "DRAM"};
constexpr double kMaxCacheBytes = 1125899906842624.0;  // 2^50 bytes (1 PiB)
}  // namespace

void MachineTerms::validate() const {
  require_in_range(cache_l1_bytes, 0.0, kMaxCacheBytes, "machine.cache_l1_bytes", " bytes");
  require_in_range(cache_l2_bytes, 0.0, kMaxCacheBytes, "machine.cache_l2_bytes", " bytes");
  require_in_range(cache_l3_bytes, 0.0, kMaxCacheBytes, "machine.cache_l3_bytes", " bytes");
  const int points = dram_curve_points();
  // The point's name is built only for the message: validate() runs on every model call.
  const auto point_in_range = [](double value, double lo, double hi, const char* field,
                                 int k, const char* unit) {
    if (value >= lo && value <= hi) return;
    const std::string name = std::string(field) + "[" + std::to_string(k) + "]";
    require_in_range(value, lo, hi, name.c_str(), unit);
  };
  for (int k = 0; k < kDramCurvePoints; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (k >= points) {
      // Unused points are 0: a curve is the leading points with bytes > 0.
      point_in_range(dram_curve_bytes[i], 0.0, 0.0, "machine.dram_curve_bytes", k,
                     " bytes (points after the first 0 must be 0)");
      point_in_range(dram_curve_share[i], 0.0, 0.0, "machine.dram_curve_share", k,
                     " (the share of an unused point must be 0)");
      continue;
    }
    const double lo_bytes = k == 0 ? 1.0 : std::nextafter(dram_curve_bytes[i - 1], kMaxCacheBytes);
    point_in_range(dram_curve_bytes[i], lo_bytes, kMaxCacheBytes, "machine.dram_curve_bytes", k,
                   " bytes (increasing)");
    point_in_range(dram_curve_share[i], k == 0 ? 0.0 : dram_curve_share[i - 1], 1.0,
                   "machine.dram_curve_share", k, " (in [0, 1], not decreasing)");
  }
  if (points == 1) {
    throw std::invalid_argument(
        "machine.dram_curve_bytes: a DRAM-share curve needs at least 2 points, got 1");
  }
  require_in_range(l_seg_s, 0.0, kMaxTimeParameterS, "machine.l_seg_s", " s");
  for (int lv = 0; lv < kMemoryLevels; ++lv) {
    const std::string at = std::string("[") + kLevelNames[lv] + "]";
    require_in_range(l_level_s_per_word[static_cast<std::size_t>(lv)], -kMaxTimeParameterS,
                     kMaxTimeParameterS, ("machine.l_level_s_per_word" + at).c_str(), " s");
    require_in_range(l_shared_s_per_word[static_cast<std::size_t>(lv)], 0.0, kMaxTimeParameterS,
                     ("machine.l_shared_s_per_word" + at).c_str(), " s");
  }
  require_in_range(tau_line_s, 0.0, kMaxTimeParameterS, "machine.tau_line_s", " s");
  require_in_range(tau_line_3d_s, 0.0, kMaxTimeParameterS, "machine.tau_line_3d_s", " s");
  require_in_range(tau_line_3d_dram_s, 0.0, kMaxTimeParameterS, "machine.tau_line_3d_dram_s",
                   " s");
  require_in_range(prefetch_ahead_words, 0.0, kMaxPrefetchAheadWords,
                   "machine.prefetch_ahead_words", " words");
  require_in_range(l_prefetch_s_per_word, 0.0, kMaxTimeParameterS,
                   "machine.l_prefetch_s_per_word", " s");
  require_in_range(c_buffer_dram_s, 0.0, kMaxTimeParameterS, "machine.c_buffer_dram_s", " s");
  require_in_range(t_barrier_per_thread_s, 0.0, kMaxTimeParameterS,
                   "machine.t_barrier_per_thread_s", " s");
  require_in_range(t_share_line_s, 0.0, kMaxTimeParameterS, "machine.t_share_line_s", " s");
  require_in_range(l_buffer_s_per_word, 0.0, kMaxTimeParameterS, "machine.l_buffer_s_per_word",
                   " s");
  require_in_range(t_cross_row_s, 0.0, kMaxTimeParameterS, "machine.t_cross_row_s", " s");
  require_in_range(threads_ref, 0, kMaxSmCount, "machine.threads_ref");
  require_in_range(innermost_multiple, 0, 1024, "machine.innermost_multiple");
}

int MachineTerms::dram_curve_points() const {
  int n = 0;
  while (n < kDramCurvePoints && dram_curve_bytes[static_cast<std::size_t>(n)] > 0) ++n;
  return n;
}

bool MachineTerms::all_zero() const {
  bool zero = l_seg_s == 0 && tau_line_s == 0 && tau_line_3d_s == 0 && tau_line_3d_dram_s == 0 &&
              t_barrier_per_thread_s == 0 &&
              t_share_line_s == 0 && l_buffer_s_per_word == 0 && t_cross_row_s == 0 &&
              l_prefetch_s_per_word == 0 && c_buffer_dram_s == 0;
  for (int lv = 0; lv < kMemoryLevels; ++lv) {
    zero = zero && l_level_s_per_word[static_cast<std::size_t>(lv)] == 0 &&
           l_shared_s_per_word[static_cast<std::size_t>(lv)] == 0;
  }
  return zero;
}

namespace {
// 0 (a negligible cost) or in [kMinTimeParameterS, kMaxTimeParameterS]: no subnormals.
void require_time_parameter(double value, const char* name) {
  if (value == 0) return;
  if (!(value >= kMinTimeParameterS && value <= kMaxTimeParameterS)) {
    throw std::invalid_argument(std::string(name) + ": must be 0 or in [" +
                                format_value(kMinTimeParameterS) + ", " +
                                format_value(kMaxTimeParameterS) + "] s, got " +
                                format_value(value));
  }
}
}  // namespace

void GpuParams::validate() const {
  require_in_range(n_sm, 1, kMaxSmCount, "n_sm");
  require_in_range(n_v, 1, kMaxSmCount, "n_v");
  require_in_range(smem_per_sm_words, 1.0, kMaxSmemWords, "smem_per_sm_words", " words");
  require_in_range(smem_per_block_words, 1.0, kMaxSmemWords, "smem_per_block_words", " words");
  require_in_range(max_blocks_per_sm, 1, kMaxBlocksPerSm, "max_blocks_per_sm");
  require_time_parameter(l_s_per_word, "l_s_per_word");
  require_time_parameter(tau_sync_s, "tau_sync_s");
  require_time_parameter(t_sync_s, "t_sync_s");
  machine.validate();
  // The machine terms must leave every cost of one thread non-negative: the thread terms
  // are relative to threads_ref, so one core alone pays L + dL - g (threads_ref - 1) per
  // word and T_sync - t_barrier (threads_ref - 1) per barrier.
  const double ref = static_cast<double>(machine.threads_ref > 0 ? machine.threads_ref : n_sm);
  for (int lv = 0; lv < kMemoryLevels; ++lv) {
    const std::size_t i = static_cast<std::size_t>(lv);
    const double one_core = l_s_per_word + machine.l_level_s_per_word[i] -
                            machine.l_shared_s_per_word[i] * (ref - 1.0);
    if (!(one_core >= 0)) {
      throw std::invalid_argument(
          std::string("machine.l_level_s_per_word[") + kLevelNames[lv] +
          "]: the time per word of one core at this level, L + l_level - l_shared * "
          "(threads_ref - 1), must not be negative, got " + format_value(one_core) + " s");
    }
  }
  const double one_barrier = t_sync_s - machine.t_barrier_per_thread_s * (ref - 1.0);
  if (!(one_barrier >= 0)) {
    throw std::invalid_argument(
        "machine.t_barrier_per_thread_s: the barrier of one thread, T_sync - t_barrier * "
        "(threads_ref - 1), must not be negative, got " + format_value(one_barrier) + " s");
  }
}

void StencilParams::validate() const {
  require_dims(n_space_dims);
  if (!(c_iter_s > 0)) require_positive(c_iter_s, "c_iter_s");
  require_in_range(c_iter_s, kMinTimeParameterS, kMaxTimeParameterS, "c_iter_s", " s");
}

void ProblemSize::validate() const {
  static const char* const names[3] = {"S1", "S2", "S3"};
  for (int d = 0; d < 3; ++d) {
    if (space[d] < 0) {
      throw std::invalid_argument(std::string(names[d]) + ": must be positive, got " +
                                  std::to_string(space[d]));
    }
  }
  require_positive(time_steps, "T");
}

void validate_inputs(const GpuParams& gpu, const StencilParams& stencil,
                     const ProblemSize& size) {
  gpu.validate();
  stencil.validate();
  size.validate();
  static const char* const names[3] = {"S1", "S2", "S3"};
  for (int d = 0; d < stencil.n_space_dims; ++d) require_positive(size.space[d], names[d]);
  for (int d = stencil.n_space_dims; d < 3; ++d) {
    if (size.space[d] != 0) {
      throw std::invalid_argument(std::string(names[d]) + ": must be 0 for a " +
                                  std::to_string(stencil.n_space_dims) + "D stencil, got " +
                                  std::to_string(size.space[d]));
    }
  }
  // Keep every count comfortably inside int64 and double's exact-integer range.
  std::int64_t points = size.time_steps;
  for (int d = 0; d < stencil.n_space_dims; ++d) {
    points = checked_mul(points, size.space[d], "iteration-space size S1*...*T");
  }
  if (points > kMaxIterationPoints) {
    throw std::overflow_error("iteration-space size S1*...*T = " + std::to_string(points) +
                              " exceeds 2^53 points");
  }
}

namespace {

// M_tile of positive tiles (m_tile_words without its checks; feasibility() has made them).
inline double m_tile_of_positive(int n_space_dims, const TileSizes& tiles) {
  return detail::m_tile_words_positive(n_space_dims, tiles);
}

}  // namespace

double m_tile_words(int n_space_dims, const TileSizes& tiles) {
  require_dims(n_space_dims);
  static const char* const names[3] = {"tS1", "tS2", "tS3"};
  for (int d = 0; d < n_space_dims; ++d) require_positive(tiles.space[d], names[d]);
  require_positive(tiles.time, "tT");
  return m_tile_of_positive(n_space_dims, tiles);
}

std::int64_t hyperthreading_factor(const GpuParams& gpu, double m_tile) {
  gpu.validate();
  if (!(m_tile > 0) || !std::isfinite(m_tile)) {
    throw std::invalid_argument("m_tile_words: must be positive and finite, got " +
                                format_value(m_tile));
  }
  return detail::k_factor(gpu, m_tile);
}

std::uint32_t feasibility(const GpuParams& gpu, int n_space_dims, const TileSizes& tiles) {
  require_dims(n_space_dims);
  std::uint32_t reasons = kFeasible;
  bool positive = tiles.time > 0;
  for (int d = 0; d < n_space_dims; ++d) positive = positive && tiles.space[d] > 0;
  if (!positive) return kNonPositiveTile;
  if (tiles.time % 2 != 0) reasons |= kOddTimeTile;
  if (n_space_dims >= 2 &&
      tiles.space[n_space_dims - 1] % gpu.machine.innermost_multiple_in_effect() != 0) {
    reasons |= kInnermostNotWarpMultiple;
  }
  // M_tile in double (m_tile_words) cannot overflow; a feasible tile has M_tile <= 2^22
  // words, which bounds every product and loop of the evaluation.
  const double m_tile = m_tile_of_positive(n_space_dims, tiles);  // positive: checked above
  if (m_tile > gpu.smem_per_block_words) reasons |= kExceedsBlockSharedMemory;
  if (m_tile > gpu.smem_per_sm_words) reasons |= kExceedsSmSharedMemory;
  return reasons;
}

double t_ideal_s(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size) {
  // Eq. 8.3, generalized to any number of space dimensions.
  double points = static_cast<double>(size.time_steps);
  for (int d = 0; d < stencil.n_space_dims; ++d) points *= static_cast<double>(size.space[d]);
  return points * stencil.c_iter_s / (static_cast<double>(gpu.n_sm) * gpu.n_v);
}

namespace {

// Tile i of a batch: `dims` space sizes then tT per row of the row-major `tiles` array.
// T_alg for one thread's chunk of `n_tiles` tiles (T_alg alone, the same double as
// evaluate()'s): `exact`, or with `machine` (machine_setup(), a preset with machine terms)
// the machine variant. In 2D a chunk of at least exact_batch_group_min() tiles shares the
// work that depends on tT, (tS1, tT) or (tS2, tT) alone between its tiles (ExactTalgBatch,
// issue 15, eighth round; its machine mode, issue 21); fewer tiles do not repay its
// caches' set-up. `exact` groups on every preset: until 2026-11-29 it did not on presets
// with machine terms, only to keep the machine batch under 2x `exact`, which slowed the
// reference the ratio is measured against (docs/time.md).
auto talg_of_chunk(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                   const detail::MachineSetup* machine, std::size_t n_tiles) {
  std::unique_ptr<detail::ExactTalgBatch> batch;
  // 2D: the grouped plans of both variants; 3D, `machine`: its row shapes per (tS1, tT),
  // shared by the tiles of a group, which machine_group_order puts next to each other (1D
  // has no key shared between tiles).
  const int dims = stencil.n_space_dims;
  const bool grouped = dims == 2 || (machine != nullptr && dims == 3);
  if (grouped && n_tiles >= detail::exact_batch_group_min()) {
    batch = std::make_unique<detail::ExactTalgBatch>(gpu, stencil, size, machine);
  }
  return [&gpu, &stencil, &size, machine, batch = std::move(batch)](const TileSizes& t) {
    if (batch) return batch->talg(t);
    return machine != nullptr ? detail::evaluate_machine_talg(gpu, stencil, size, t, *machine)
                              : detail::evaluate_exact_talg(gpu, stencil, size, t);
  };
}

inline TileSizes batch_tile(const std::int64_t* tiles, std::size_t i, int dims) {
  const std::size_t stride = static_cast<std::size_t>(dims) + 1;
  TileSizes t;
  for (int d = 0; d < dims; ++d) t.space[d] = tiles[i * stride + d];
  t.time = tiles[i * stride + dims];
  return t;
}

// The machine variant's batch in 2D/3D: an order of the tiles that puts the tiles of one
// (tS1, tT) next to each other (a stable counting sort), and each tile's rank in it; both
// empty where it does not pay. The machine variant keeps the critical-thread counts of a
// (tS1, tT) in a per-thread group cache (time_exact.cpp, ClippedCache); in a random order
// most tiles missed it (default 2D space: 2,048 groups, and a direct-mapped table where
// they collide), and `machine` cost 2.6x `exact` on random tiles against 1.8x on the grid's
// own order (benchmarks/bench_validate_run.py's batch cost, issue 21). 1D has no key shared
// between tiles (tS1 and tT are the whole tile), so it keeps the given order; so do batches
// with keys spread wider than the batch (the counts would cost more than the groups save).
struct GroupOrder {
  std::vector<std::uint32_t> order;  // order[p]: the tile evaluated p-th
  std::vector<std::uint32_t> rank;   // rank[order[p]] = p
};

GroupOrder machine_group_order(const std::int64_t* tiles, std::size_t n_tiles, int dims) {
  GroupOrder g;
  if (dims < 2 || n_tiles < 2048 || n_tiles > std::numeric_limits<std::uint32_t>::max()) {
    return g;
  }
  const std::size_t stride = static_cast<std::size_t>(dims) + 1;
  std::int64_t max_s1 = 0, max_t = 0;
  for (std::size_t i = 0; i < n_tiles; ++i) {
    max_s1 = std::max(max_s1, tiles[i * stride]);
    max_t = std::max(max_t, tiles[i * stride + static_cast<std::size_t>(dims)]);
  }
  // Keys 1 + (tS1 - 1) max_t + (tT - 1) for tS1, tT >= 1; key 0 for the rest (infeasible:
  // they cost a check). At most 4 buckets a tile, so the counts cost O(n).
  const double buckets = static_cast<double>(max_s1) * static_cast<double>(max_t) + 1.0;
  if (max_s1 < 1 || max_t < 1 || buckets > 4.0 * static_cast<double>(n_tiles)) return g;
  auto key = [&](std::size_t i) -> std::size_t {
    const std::int64_t s1 = tiles[i * stride];
    const std::int64_t t = tiles[i * stride + static_cast<std::size_t>(dims)];
    if (s1 < 1 || t < 1) return 0;
    return 1 + static_cast<std::size_t>((s1 - 1) * max_t + (t - 1));
  };
  // The groups in a scrambled order (bucket q * step mod B for q = 0, 1, ...; a bijection
  // as gcd(step, B) = 1): each thread takes a contiguous run of the order, and in the keys'
  // own order one thread had the small tiles and the other the large ones (Heat 2D, 2
  // threads: one thread idle for a third of the batch). The step is the golden-ratio share
  // of B (group_scramble_step), whose multiples spread evenly over [0, B). (Knuth's constant
  // 2654435761 mod B, used before, is 1 for B = 961 = 31^2: the AMD guest's Heat 3D
  // preset kept the keys' order, its two halves cost 7.9 and 11.7 ms, and `machine` cost
  // 1.97x `exact` at 2 threads against 1.65x at 1; issue 21.)
  const std::size_t n_buckets = static_cast<std::size_t>(buckets);
  std::vector<std::uint32_t> start(n_buckets, 0);
  for (std::size_t i = 0; i < n_tiles; ++i) ++start[key(i)];
  const std::size_t step = detail::group_scramble_step(n_buckets);
  std::uint32_t running = 0;
  for (std::size_t q = 0, b = 0; q < n_buckets; ++q, b = (b + step) % n_buckets) {
    const std::uint32_t count = start[b];
    start[b] = running;
    running += count;
  }
  g.order.resize(n_tiles);
  g.rank.resize(n_tiles);
  for (std::size_t i = 0; i < n_tiles; ++i) {
    const std::uint32_t p = start[key(i)]++;
    g.order[p] = static_cast<std::uint32_t>(i);
    g.rank[i] = p;
  }
  return g;
}

Breakdown evaluate_paper(const GpuParams& gpu, const StencilParams& stencil,
                         const ProblemSize& size, const TileSizes& tiles) {
  const int dims = stencil.n_space_dims;
  const std::int64_t tS1 = tiles.space[0];
  const std::int64_t tT = tiles.time;
  const std::int64_t T = size.time_steps;
  Breakdown b;

  // Eq. A.3: N_w = 2 ceil(T/tT) + eps, eps = 0 iff 0 < T - floor(T/tT) tT <= tT/2.
  const std::int64_t remainder = T % tT;
  const std::int64_t eps = (remainder > 0 && 2 * remainder <= tT) ? 0 : 1;
  b.n_wavefronts = 2 * ceil_div(T, tT) + eps;

  // Eqs. A.4-A.6 (A.22-A.23 in 3D, with the pitch of A.5; docs/time.md).
  const std::int64_t w_tile = tS1 + tT - 2;
  const std::int64_t pitch = w_tile + tS1 + 2;
  b.w_tile = static_cast<double>(w_tile);
  b.pitch = static_cast<double>(pitch);
  b.tiles_per_wavefront = ceil_div(size.space[0], pitch);

  b.m_tile_words = m_tile_words(dims, tiles);
  b.k = detail::k_factor(gpu, b.m_tile_words);
  b.n_subtiles = n_subtiles(dims, size, tiles);

  // Eqs. A.8/A.14/A.25 and A.9/A.15/A.26.
  const detail::Transfer io = detail::transfer(gpu, dims, tiles);
  b.m_io_words = io.m_io_words;
  b.m_prime_s = io.m_prime_s;

  // Eqs. A.10/A.16/A.28: x = tS1, tS1+2, ..., w_tile inclusive (tT/2 rows per half),
  // sum of ceil(x area / nV) in closed form (exact integers, O(log nV)).
  const std::int64_t area = detail::inner_cross_section(dims, tiles);
  const std::int64_t row_steps = ::costmetrics::detail::hexagon_row_steps(tS1, tT, area, gpu.n_v);
  b.c_s = 2.0 * stencil.c_iter_s * static_cast<double>(row_steps) +
          static_cast<double>(tT) * gpu.tau_sync_s;

  // Eqs. A.13 / A.17 / A.29-A.30 with n_sub identical sub-tiles.
  const double n_sub = static_cast<double>(b.n_subtiles);
  b.t_tile_s = detail::tile_time_s(dims, b.k, b.m_prime_s, n_sub, n_sub * b.c_s,
                                   n_sub * std::max(b.m_prime_s, b.c_s));

  // Eqs. A.7 / A.18 / A.31.
  const std::int64_t rounds = detail::rounds(b.tiles_per_wavefront, b.k, gpu.n_sm);
  const double nw = static_cast<double>(b.n_wavefronts);
  b.t_sync_total_s = nw * gpu.t_sync_s;
  b.talg_s = nw * b.t_tile_s * static_cast<double>(rounds) + b.t_sync_total_s;
  b.t_ideal_s = t_ideal_s(gpu, stencil, size);
  return b;
}

// Feasible tiles of one block of the batch, gathered as doubles (structure of arrays) for
// the vector kernel, with their positions in the batch; padded to whole groups of 16.
struct PaperBatchBlock {
  static constexpr std::size_t kCapacity = 256;
  static constexpr std::size_t kPadded = kCapacity + 16;
  alignas(32) double space[3][kPadded];
  alignas(32) double time[kPadded];
  alignas(32) double m_tile[kPadded];
  std::size_t index[kPadded];
  std::size_t n = 0;
};

// The machine, stencil and size of a batch as doubles (every integer here is below 2^51).
struct PaperBatchConstants {
  double T = 0, S[3] = {0, 0, 0};
  double n_v = 1, smem_sm = 1, max_blocks = 1, n_sm = 1;
  double l = 0, tau = 0, two_tau = 0, two_c_iter = 0, t_sync = 0;
};

#if COSTMETRICS_BATCH_AVX2
#define COSTMETRICS_AVX2 __attribute__((target("avx2")))
#define COSTMETRICS_AVX2_INLINE inline __attribute__((target("avx2"), always_inline))

// floor(a / b) of integer-valued doubles 0 <= a < 2^53, b >= 1: exact (floor_sum.hpp's
// div_floor argument), the same integer as the scalar kernel's int64 arithmetic.
COSTMETRICS_AVX2_INLINE __m256d floor_div_v(__m256d a, __m256d b) {
  return _mm256_floor_pd(_mm256_div_pd(a, b));
}

COSTMETRICS_AVX2_INLINE __m256i join_v(__m128i low, __m128i high) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1);
}

// T_alg of every tile of `block` (feasible, tT/2 <= kVectorMaxHalf), 4 tiles per double
// vector; each term is formed in the order of evaluate_paper, so the result is
// bit-identical to the scalar kernel and to evaluate(). Integers are exact doubles.
template <int Dims>
COSTMETRICS_AVX2 void paper_talg_avx2(const PaperBatchConstants& k,
                                      const PaperBatchBlock& block, double* talg) {
  const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0);
  const __m256d half = _mm256_set1_pd(0.5), zero = _mm256_setzero_pd();
  const __m256d n_v = _mm256_set1_pd(k.n_v), n_v_minus_1 = _mm256_set1_pd(k.n_v - 1.0);
  const __m256d T = _mm256_set1_pd(k.T);
  const __m256i n_v_i = _mm256_set1_epi32(static_cast<int>(k.n_v));
  const __m256i n_v_minus_1_i = _mm256_set1_epi32(static_cast<int>(k.n_v) - 1);
  const __m256i one_i = _mm256_set1_epi32(1);
  for (std::size_t g = 0; g < block.n; g += 16) {
    // Vector steps of one hexagon (Eqs. A.10/A.16/A.28): sum_{j<h} floor((a j + b) / nV),
    // a = 2 area, b = tS1 area + nV - 1, h = tT/2. With a = qa nV + ra, b = qb nV + rb:
    // (h-1) h / 2 qa + h qb + sum_{j<h} floor((ra j + rb) / nV), the last sum counted
    // with 32-bit remainders (ra, rb < nV <= 2^20): a carry at step i adds h - i. Two
    // independent 8-lane chains hide the latency of the remainder's update.
    __m256d area[4], base[4];
    __m128i ra[4], rb[4], h[4];
    for (int p = 0; p < 4; ++p) {
      const std::size_t i = g + 4 * static_cast<std::size_t>(p);
      const __m256d tS1 = _mm256_load_pd(block.space[0] + i);
      const __m256d tT = _mm256_load_pd(block.time + i);
      area[p] = one;
      if (Dims >= 2) area[p] = _mm256_load_pd(block.space[1] + i);
      if (Dims == 3) area[p] = _mm256_mul_pd(area[p], _mm256_load_pd(block.space[2] + i));
      const __m256d a = _mm256_mul_pd(two, area[p]);
      const __m256d b = _mm256_add_pd(_mm256_mul_pd(tS1, area[p]), n_v_minus_1);
      const __m256d qa = floor_div_v(a, n_v);
      const __m256d qb = floor_div_v(b, n_v);
      const __m256d hd = _mm256_mul_pd(tT, half);
      base[p] = _mm256_add_pd(
          _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_sub_pd(hd, one), hd), half), qa),
          _mm256_mul_pd(hd, qb));
      ra[p] = _mm256_cvttpd_epi32(_mm256_sub_pd(a, _mm256_mul_pd(qa, n_v)));
      rb[p] = _mm256_cvttpd_epi32(_mm256_sub_pd(b, _mm256_mul_pd(qb, n_v)));
      h[p] = _mm256_cvttpd_epi32(hd);
    }
    __m256i step[2], r[2], left[2], carried[2];
    for (int q = 0; q < 2; ++q) {
      step[q] = join_v(ra[2 * q], ra[2 * q + 1]);
      r[q] = join_v(rb[2 * q], rb[2 * q + 1]);
      left[q] = join_v(h[2 * q], h[2 * q + 1]);
      carried[q] = _mm256_setzero_si256();
    }
    __m128i h_max = _mm_max_epi32(_mm_max_epi32(h[0], h[1]), _mm_max_epi32(h[2], h[3]));
    h_max = _mm_max_epi32(h_max, _mm_shuffle_epi32(h_max, 0x4E));
    h_max = _mm_max_epi32(h_max, _mm_shuffle_epi32(h_max, 0xB1));
    const int steps = _mm_cvtsi128_si32(h_max);
    for (int i = 1; i < steps; ++i) {
      for (int q = 0; q < 2; ++q) {
        r[q] = _mm256_add_epi32(r[q], step[q]);
        const __m256i carry = _mm256_cmpgt_epi32(r[q], n_v_minus_1_i);
        r[q] = _mm256_sub_epi32(r[q], _mm256_and_si256(carry, n_v_i));
        // max(h - i, 0): h < 2^16, so a saturating 16-bit subtraction (high halves 0 - 0).
        left[q] = _mm256_subs_epu16(left[q], one_i);
        carried[q] = _mm256_add_epi32(carried[q], _mm256_and_si256(carry, left[q]));
      }
    }
    for (int p = 0; p < 4; ++p) {
      const std::size_t i = g + 4 * static_cast<std::size_t>(p);
      const __m128i carried_p = p % 2 == 0 ? _mm256_castsi256_si128(carried[p / 2])
                                           : _mm256_extracti128_si256(carried[p / 2], 1);
      const __m256d row_steps = _mm256_add_pd(base[p], _mm256_cvtepi32_pd(carried_p));
      const __m256d tS1 = _mm256_load_pd(block.space[0] + i);
      const __m256d tT = _mm256_load_pd(block.time + i);
      // Eq. A.3: N_w = 2 ceil(T/tT) + eps, eps = 0 iff 0 < T mod tT <= tT/2.
      const __m256d q_T = floor_div_v(T, tT);
      const __m256d rem = _mm256_sub_pd(T, _mm256_mul_pd(q_T, tT));
      const __m256d rem_pos = _mm256_cmp_pd(rem, zero, _CMP_GT_OQ);
      const __m256d eps0 =
          _mm256_and_pd(rem_pos, _mm256_cmp_pd(_mm256_add_pd(rem, rem), tT, _CMP_LE_OQ));
      const __m256d n_w =
          _mm256_add_pd(_mm256_mul_pd(two, _mm256_add_pd(q_T, _mm256_and_pd(rem_pos, one))),
                        _mm256_andnot_pd(eps0, one));
      // Eqs. A.5-A.6: w = ceil(S1 / (2 tS1 + tT)).
      const __m256d pitch = _mm256_add_pd(_mm256_add_pd(tS1, tS1), tT);
      const __m256d w = floor_div_v(
          _mm256_add_pd(_mm256_set1_pd(k.S[0]), _mm256_sub_pd(pitch, one)), pitch);
      // Eq. A.12: k = min(floor(M_SM / M_tile), MTB_SM), the same double operations.
      const __m256d m_tile = _mm256_load_pd(block.m_tile + i);
      const __m256d kk = _mm256_min_pd(
          _mm256_floor_pd(_mm256_div_pd(_mm256_set1_pd(k.smem_sm), m_tile)),
          _mm256_set1_pd(k.max_blocks));
      // A.24 as read: n_sub = prod_{d >= 2} ceil((S_d + tT) / tS_d).
      __m256d n_sub = one;
      for (int d = 1; d < Dims; ++d) {
        const __m256d tS = _mm256_load_pd(block.space[d] + i);
        const __m256d q = floor_div_v(
            _mm256_add_pd(_mm256_set1_pd(k.S[d]), _mm256_add_pd(tT, _mm256_sub_pd(tS, one))), tS);
        n_sub = d == 1 ? q : _mm256_mul_pd(n_sub, q);
      }
      // Eqs. A.8-A.9 and A.10/A.16/A.28.
      const __m256d m_io = _mm256_mul_pd(_mm256_mul_pd(two, area[p]),
                                         _mm256_add_pd(tS1, _mm256_mul_pd(two, tT)));
      const __m256d m_prime = _mm256_add_pd(_mm256_mul_pd(m_io, _mm256_set1_pd(k.l)),
                                            _mm256_set1_pd(k.two_tau));
      const __m256d c = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(k.two_c_iter), row_steps),
                                      _mm256_mul_pd(tT, _mm256_set1_pd(k.tau)));
      // Eqs. A.13 / A.17 / A.29-A.30 (detail::tile_time_s).
      __m256d t_tile;
      if (Dims == 1) {
        t_tile = _mm256_add_pd(_mm256_add_pd(m_prime, c),
                               _mm256_mul_pd(_mm256_sub_pd(kk, one), _mm256_max_pd(m_prime, c)));
      } else {
        const __m256d sum_c = _mm256_mul_pd(n_sub, c);
        const __m256d sum_max = _mm256_mul_pd(n_sub, _mm256_max_pd(m_prime, c));
        const __m256d k1 = _mm256_add_pd(_mm256_mul_pd(n_sub, m_prime), sum_c);
        const __m256d kn = _mm256_add_pd(m_prime, _mm256_mul_pd(kk, sum_max));
        t_tile = _mm256_blendv_pd(kn, k1, _mm256_cmp_pd(kk, one, _CMP_EQ_OQ));
      }
      // Eq. A.2 as one division, then Eqs. A.7 / A.18 / A.31.
      const __m256d kn_sm = _mm256_mul_pd(kk, _mm256_set1_pd(k.n_sm));
      const __m256d rounds = floor_div_v(_mm256_add_pd(w, _mm256_sub_pd(kn_sm, one)), kn_sm);
      const __m256d result = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(n_w, t_tile), rounds),
                                           _mm256_mul_pd(n_w, _mm256_set1_pd(k.t_sync)));
      alignas(32) double lanes[4];
      _mm256_store_pd(lanes, result);
      for (std::size_t l = 0; l < 4 && i + l < block.n; ++l) talg[block.index[i + l]] = lanes[l];
    }
  }
}

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}
#undef COSTMETRICS_AVX2
#undef COSTMETRICS_AVX2_INLINE
#endif  // COSTMETRICS_BATCH_AVX2

// T_alg of the `paper` variant over many tiles (the batch path): everything that depends
// only on the machine, the stencil and the size is converted once, and each tile costs a
// few double operations and no 64-bit integer division. Every integer below is exact in a
// double (the limits of validate_inputs and a feasible M_tile <= 2^22 words keep them under
// 2^53), and the floating-point terms are formed in the order of evaluate_paper, so the
// result is bit-identical to evaluate() (cpp/tests/test_time_batch.cpp and tests/test_time.py
// check it). On x86-64 with AVX2 (run time), paper_talg_avx2 does the same 4 tiles at a time.
class PaperBatchKernel {
 public:
  PaperBatchKernel(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size)
      : gpu_(gpu), stencil_(stencil), dims_(stencil.n_space_dims) {
    T_ = size.time_steps;
    for (int d = 0; d < 3; ++d) space_[d] = size.space[d];
    n_v_ = ::costmetrics::detail::Reciprocal(gpu.n_v);
    max_blocks_ = static_cast<double>(gpu.max_blocks_per_sm);
    v_.T = static_cast<double>(T_);
    for (int d = 0; d < 3; ++d) v_.S[d] = static_cast<double>(space_[d]);
    v_.n_v = static_cast<double>(gpu.n_v);
    v_.smem_sm = gpu.smem_per_sm_words;
    v_.max_blocks = max_blocks_;
    v_.n_sm = static_cast<double>(gpu.n_sm);
    v_.l = gpu.l_s_per_word;
    v_.tau = gpu.tau_sync_s;
    v_.two_tau = 2.0 * gpu.tau_sync_s;
    v_.two_c_iter = 2.0 * stencil.c_iter_s;
    v_.t_sync = gpu.t_sync_s;
#if COSTMETRICS_BATCH_AVX2
    // The vector kernel keeps S + tT + tS and T in doubles: sizes below 2^51 (any real one).
    constexpr std::int64_t kLimit = std::int64_t{1} << 51;
    use_avx2_ = cpu_has_avx2() && T_ < kLimit && space_[0] < kLimit && space_[1] < kLimit &&
                space_[2] < kLimit;
#endif
  }

  // T_alg and the reasons of tiles [begin, end) of `tiles` (rows tS1, ..., tT).
  void run(const std::int64_t* tiles, std::size_t begin, std::size_t end, double* talg_out,
           std::uint32_t* reasons_out) const {
    const double nan = std::numeric_limits<double>::quiet_NaN();
#if COSTMETRICS_BATCH_AVX2
    if (use_avx2_) {
      if (dims_ == 1) run_avx2<1>(tiles, begin, end, talg_out, reasons_out);
      else if (dims_ == 2) run_avx2<2>(tiles, begin, end, talg_out, reasons_out);
      else run_avx2<3>(tiles, begin, end, talg_out, reasons_out);
      return;
    }
#endif
    for (std::size_t i = begin; i < end; ++i) {
      const TileSizes t = batch_tile(tiles, i, dims_);
      const std::uint32_t reasons = feasibility(gpu_, dims_, t);
      reasons_out[i] = reasons;
      talg_out[i] = reasons == kFeasible ? talg(t, m_tile_words(dims_, t)) : nan;
    }
  }

  // T_alg of a feasible tile whose M_tile is `m_tile`.
  double talg(const TileSizes& t, double m_tile) const {
    using ::costmetrics::detail::div_ceil;
    using ::costmetrics::detail::div_floor;
    const std::int64_t tS1 = t.space[0];
    const std::int64_t tT = t.time;
    const std::int64_t q_T = div_floor(T_, tT);
    const std::int64_t remainder = T_ - q_T * tT;
    const std::int64_t eps = (remainder > 0 && 2 * remainder <= tT) ? 0 : 1;
    const std::int64_t n_w = 2 * (q_T + (remainder > 0 ? 1 : 0)) + eps;  // Eq. A.3
    const std::int64_t w = div_ceil(space_[0], 2 * tS1 + tT);             // Eqs. A.5-A.6
    const double by_memory = std::floor(gpu_.smem_per_sm_words / m_tile);  // Eq. A.12
    const std::int64_t k = static_cast<std::int64_t>(std::min(by_memory, max_blocks_));
    std::int64_t n_sub = 1;  // A.24 as read
    std::int64_t area = 1;
    for (int d = 1; d < dims_; ++d) {
      n_sub *= div_ceil(space_[d] + tT, t.space[d]);
      area *= t.space[d];
    }
    const double n_sub_d = static_cast<double>(n_sub);
    // Eqs. A.8-A.9 (detail::transfer).
    const double m_io = 2.0 * static_cast<double>(area) *
                        (static_cast<double>(tS1) + 2.0 * static_cast<double>(tT));
    const double m_prime = m_io * gpu_.l_s_per_word + 2.0 * gpu_.tau_sync_s;
    const double c = 2.0 * stencil_.c_iter_s * row_steps(tS1, tT, area) +
                     static_cast<double>(tT) * gpu_.tau_sync_s;  // Eqs. A.10/A.16/A.28
    const double t_tile = detail::tile_time_s(dims_, k, m_prime, n_sub_d, n_sub_d * c,
                                              n_sub_d * std::max(m_prime, c));
    // Eq. A.2: ceil(ceil(w / k) / nSM) = ceil(w / (k nSM)), one division instead of two.
    const double rounds = static_cast<double>(div_ceil(w, k * gpu_.n_sm));
    const double nw = static_cast<double>(n_w);
    return nw * t_tile * rounds + nw * gpu_.t_sync_s;  // Eqs. A.7 / A.18 / A.31
  }

 private:
#if COSTMETRICS_BATCH_AVX2
  // run() with the vector kernel: classify a block of tiles with few branches (the mask of
  // feasibility(), branch-free), gather its feasible tiles with short hexagon sums and evaluate those 16 at
  // a time; long sums take the scalar closed form of talg().
  template <int Dims>
  void run_avx2(const std::int64_t* tiles, std::size_t begin, std::size_t end,
                double* talg_out, std::uint32_t* reasons_out) const {
    constexpr std::size_t stride = Dims + 1;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double smem_block = gpu_.smem_per_block_words, smem_sm = gpu_.smem_per_sm_words;
    // Eq. A.32's multiple (32 on every GPU preset: a mask, no division per tile).
    const std::int64_t multiple = gpu_.machine.innermost_multiple_in_effect();
    const bool multiple_pow2 = (multiple & (multiple - 1)) == 0;
    auto off_multiple = [&](std::int64_t inner) {
      return multiple_pow2 ? (inner & (multiple - 1)) != 0 : inner % multiple != 0;
    };
    PaperBatchBlock block;
    for (std::size_t start = begin; start < end; start += PaperBatchBlock::kCapacity) {
      const std::size_t stop = std::min(end, start + PaperBatchBlock::kCapacity);
      std::size_t n = 0;
      for (std::size_t i = start; i < stop; ++i) {
        const std::int64_t* row = tiles + i * stride;
        const std::int64_t tS1 = row[0];
        const std::int64_t tS2 = Dims >= 2 ? row[1] : 1;
        const std::int64_t tS3 = Dims == 3 ? row[2] : 1;
        const std::int64_t tT = row[Dims];
        const double s1 = static_cast<double>(tS1), s2 = static_cast<double>(tS2);
        const double s3 = static_cast<double>(tS3), tT_d = static_cast<double>(tT);
        double m_tile;  // m_tile_words(), the same operations
        if (Dims == 1) {
          m_tile = 2.0 * (s1 + tT_d);
        } else {
          m_tile = 2.0 * (s1 + tT_d + 1.0);
          m_tile *= s2 + tT_d + 1.0;
          if (Dims == 3) m_tile *= s3 + tT_d + 1.0;
        }
        const std::int64_t inner = Dims == 1 ? 0 : (Dims == 2 ? tS2 : tS3);
        const bool positive = (tS1 > 0) & (tS2 > 0) & (tS3 > 0) & (tT > 0);
        const std::uint32_t reasons =
            positive ? ((tT & 1) != 0 ? kOddTimeTile : 0u) |
                           (off_multiple(inner) ? kInnermostNotWarpMultiple : 0u) |
                           (m_tile > smem_block ? kExceedsBlockSharedMemory : 0u) |
                           (m_tile > smem_sm ? kExceedsSmSharedMemory : 0u)
                     : kNonPositiveTile;
        reasons_out[i] = reasons;
        talg_out[i] = nan;  // the feasible ones are overwritten below
        const bool feasible = reasons == kFeasible;
        const bool short_sum = tT <= 2 * kVectorMaxHalf;
        if (feasible && short_sum) {
          block.space[0][n] = s1;
          if (Dims >= 2) block.space[1][n] = s2;
          if (Dims == 3) block.space[2][n] = s3;
          block.time[n] = tT_d;
          block.m_tile[n] = m_tile;
          block.index[n] = i;
          ++n;
        } else if (feasible) {
          TileSizes t;
          t.space = {{tS1, Dims >= 2 ? tS2 : 0, Dims == 3 ? tS3 : 0}};
          t.time = tT;
          talg_out[i] = talg(t, m_tile);
        }
      }
      if (n == 0) continue;
      block.n = n;
      for (std::size_t pad = n; pad % 16 != 0; ++pad) {  // copies of a feasible tile
        for (int d = 0; d < Dims; ++d) block.space[d][pad] = block.space[d][0];
        block.time[pad] = block.time[0];
        block.m_tile[pad] = block.m_tile[0];
      }
      paper_talg_avx2<Dims>(v_, block, talg_out);
    }
  }
#endif

  // sum_{j < tT/2} ceil((tS1 + 2 j) area / nV), the vector steps of one hexagon, as a double
  // (an exact integer). Every division by nV goes through the reciprocal (detail::Reciprocal):
  // short sums term by term, long ones by the first step of the floor_sum recursion, which
  // leaves a sum with a modulus below nV (often none at all).
  double row_steps(std::int64_t tS1, std::int64_t tT, std::int64_t area) const {
    const std::int64_t h = tT / 2;
    const std::int64_t n_v = gpu_.n_v;
    const std::int64_t first = tS1 * area + n_v - 1;
    if (h <= kShortSum) {
      std::int64_t total = 0;
      for (std::int64_t j = 0; j < h; ++j) total += n_v_.floor(first + 2 * area * j);
      return static_cast<double>(total);
    }
    // sum_{j<h} floor((a j + b) / nV) with a = 2 area, b = first: reduce a and b mod nV,
    // then the remaining sum has n' = floor((a h' + b') / nV) terms and modulus a mod nV.
    std::int64_t a = 2 * area;
    std::int64_t b = first;
    const std::int64_t q_a = n_v_.floor(a);
    const std::int64_t q_b = n_v_.floor(b);
    std::int64_t total = (h - 1) * h / 2 * q_a + h * q_b;
    a -= q_a * n_v;
    b -= q_b * n_v;
    const std::int64_t y_max = a * h + b;
    if (y_max >= n_v) {
      const std::int64_t n = n_v_.floor(y_max);
      total += ::costmetrics::detail::floor_sum(n, a, n_v, y_max - n * n_v);
    }
    return static_cast<double>(total);
  }

  static constexpr std::int64_t kShortSum = 8;  // measured break-even
  // tT/2 above it: the scalar closed form (measured: 128 beats 64 on the default 1D space).
  static constexpr std::int64_t kVectorMaxHalf = 128;
  const GpuParams& gpu_;
  const StencilParams& stencil_;
  int dims_;
  std::int64_t T_ = 0;
  std::int64_t space_[3] = {0, 0, 0};
  ::costmetrics::detail::Reciprocal n_v_;  // divisions by nV
  double max_blocks_ = 1;
  PaperBatchConstants v_;
  bool use_avx2_ = false;
};

}  // namespace

Breakdown evaluate_unchecked(const GpuParams& gpu, const StencilParams& stencil,
                             const ProblemSize& size, const TileSizes& tiles, Variant variant) {
  switch (variant) {
    case Variant::paper:
      return evaluate_paper(gpu, stencil, size, tiles);
    case Variant::machine:
      return detail::evaluate_exact(gpu, stencil, size, tiles, detail::ExactPath::fast, true);
    case Variant::exact:
      break;
  }
  return detail::evaluate_exact(gpu, stencil, size, tiles);
}

namespace {
// Two time levels with a one-point halo (the harness' arrays), in bytes, in double.
double array_bytes(int n_space_dims, const ProblemSize& size) {
  double bytes = 2.0 * 4.0;
  for (int d = 0; d < n_space_dims; ++d) bytes *= static_cast<double>(size.space[d]) + 2.0;
  return bytes;
}
// The measured curve of its first n points at `bytes`: 0 below its first point, its last
// share past its last, linear in log(bytes) between (the copy curve's working sets grow
// geometrically).
double curve_dram_share(const MachineTerms& m, int n, double bytes) {
  const auto& b = m.dram_curve_bytes;
  const auto& s = m.dram_curve_share;
  if (bytes <= b[0]) return bytes < b[0] ? 0.0 : s[0];
  for (int k = 1; k < n; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (bytes <= b[i]) {
      const double w = std::log(bytes / b[i - 1]) / std::log(b[i] / b[i - 1]);
      return s[i - 1] + w * (s[i] - s[i - 1]);
    }
  }
  return s[static_cast<std::size_t>(n - 1)];
}
}  // namespace

MemoryPlacement memory_placement(const GpuParams& gpu, int n_space_dims,
                                 const ProblemSize& size) {
  require_dims(n_space_dims);
  const double bytes = array_bytes(n_space_dims, size);
  const MachineTerms& m = gpu.machine;
  const double per_core = bytes / static_cast<double>(std::max(gpu.n_sm, 1));
  if (m.cache_l1_bytes > 0 && per_core <= m.cache_l1_bytes) return {0, 0.0};
  if (m.cache_l2_bytes > 0 && per_core <= m.cache_l2_bytes) return {1, 0.0};
  if (const int n = m.dram_curve_points(); n > 0) {
    const double f = curve_dram_share(m, n, bytes);
    return {f > 0 ? 3 : 2, f};
  }
  const double l3 = m.cache_l3_bytes;
  if (l3 > 0 && bytes <= l3) return {2, 0.0};
  // An array streamed cyclically through a cache that holds part of it: the share that
  // fits stays resident between sweeps, the rest comes from DRAM (bytes > l3 here).
  return {3, l3 > 0 ? 1.0 - l3 / bytes : 1.0};
}

int memory_level(const GpuParams& gpu, int n_space_dims, const ProblemSize& size) {
  return memory_placement(gpu, n_space_dims, size).level;
}

double dram_share(const GpuParams& gpu, int n_space_dims, const ProblemSize& size) {
  return memory_placement(gpu, n_space_dims, size).dram_share;
}

double tile_buffer_floats(int n_space_dims, const ProblemSize& size, const TileSizes& tiles) {
  const double t_t = static_cast<double>(tiles.time);
  const double w = static_cast<double>(tiles.space[0]) + t_t;
  if (n_space_dims == 1) return 2.0 * w;
  // Sub-tiles at least S + tT wide hold the whole skewed extent; the harness clips them.
  auto clipped = [&](int d) {
    return static_cast<double>(std::min(tiles.space[d], size.space[d] + tiles.time));
  };
  const double u2 = clipped(1) + 2.0;
  if (n_space_dims == 2) return 2.0 * w * u2 + 2.0 * t_t * w;
  const double ts3 = clipped(2);
  const double u3 = ts3 + 2.0;
  // The most sub-slabs along u3 a tile has: floor((S3 + tT - 2) / tS3') + 1.
  const double n_b3 =
      static_cast<double>((size.space[2] + tiles.time - 2) / static_cast<std::int64_t>(ts3)) +
      1.0;
  return 2.0 * w * u2 * u3 + 2.0 * t_t * w * u2 + n_b3 * 2.0 * t_t * w * u3;
}

std::vector<std::string> design_parameter_names() {
  std::vector<std::string> names = {"l_s_per_word", "tau_sync_s", "t_sync_s", "c_iter_s",
                                    "l_seg_s"};
  for (const char* lv : kLevelNames) names.push_back(std::string("l_level_s_per_word[") + lv + "]");
  for (const char* lv : kLevelNames) {
    names.push_back(std::string("l_shared_s_per_word[") + lv + "]");
  }
  names.insert(names.end(),
               {"tau_line_s", "t_barrier_per_thread_s", "t_share_line_s", "l_buffer_s_per_word",
                "tau_line_3d_s", "t_cross_row_s", "tau_line_3d_dram_s", "l_prefetch_s_per_word",
                "c_buffer_dram_s"});
  return names;
}

std::array<double, kDesignParams> design_parameters(const GpuParams& gpu, double c_iter_s) {
  const MachineTerms& m = gpu.machine;
  std::array<double, kDesignParams> p{};
  p[0] = gpu.l_s_per_word;
  p[1] = gpu.tau_sync_s;
  p[2] = gpu.t_sync_s;
  p[3] = c_iter_s;
  p[4] = m.l_seg_s;
  for (std::size_t lv = 0; lv < kMemoryLevels; ++lv) {
    p[5 + lv] = m.l_level_s_per_word[lv];
    p[9 + lv] = m.l_shared_s_per_word[lv];
  }
  p[13] = m.tau_line_s;
  p[14] = m.t_barrier_per_thread_s;
  p[15] = m.t_share_line_s;
  p[16] = m.l_buffer_s_per_word;
  p[17] = m.tau_line_3d_s;
  p[18] = m.t_cross_row_s;
  p[19] = m.tau_line_3d_dram_s;
  p[20] = m.l_prefetch_s_per_word;
  p[21] = m.c_buffer_dram_s;
  return p;
}

namespace {

// design_row of the paper variant (evaluate_paper's terms; no machine terms).
std::array<double, kDesignParams> paper_design_row(const GpuParams& gpu,
                                                   const StencilParams& stencil,
                                                   const ProblemSize& size,
                                                   const TileSizes& tiles) {
  const Breakdown b = evaluate_paper(gpu, stencil, size, tiles);
  const int dims = stencil.n_space_dims;
  const std::int64_t area = detail::inner_cross_section(dims, tiles);
  const double steps =
      2.0 * static_cast<double>(::costmetrics::detail::hexagon_row_steps(
                tiles.space[0], tiles.time, area, gpu.n_v));
  const double tT = static_cast<double>(tiles.time);
  const double kd = static_cast<double>(b.k);
  const double n_sub = static_cast<double>(b.n_subtiles);
  const bool c_wins = b.m_prime_s < b.c_s;  // std::max keeps m' on a tie
  double coef_m = 0, fc = 0;  // T_tile = coef_m m' + fc c (tile_time_s)
  if (dims == 1) {
    coef_m = c_wins ? 1.0 : kd;
    fc = c_wins ? kd : 1.0;
  } else if (b.k == 1) {
    coef_m = n_sub;
    fc = n_sub;
  } else {
    coef_m = c_wins ? 1.0 : 1.0 + kd * n_sub;
    fc = c_wins ? kd * n_sub : 0.0;
  }
  const double nw = static_cast<double>(b.n_wavefronts);
  const double rounds = static_cast<double>(detail::rounds(b.tiles_per_wavefront, b.k, gpu.n_sm));
  std::array<double, kDesignParams> r{};
  r[0] = nw * rounds * coef_m * b.m_io_words;
  r[1] = nw * rounds * (coef_m * 2.0 + fc * tT);
  r[2] = nw;
  r[3] = nw * rounds * fc * steps;
  return r;
}

std::array<double, kDesignParams> design_row_unchecked(const GpuParams& gpu,
                                                       const StencilParams& stencil,
                                                       const ProblemSize& size,
                                                       const TileSizes& tiles, Variant variant) {
  if (variant == Variant::paper) return paper_design_row(gpu, stencil, size, tiles);
  std::array<double, kDesignParams> row{};
  if (variant == Variant::exact) {
    // The row on the gpu without its machine terms, which `exact` does not read: with only
    // the time terms at 0 the machine variant still counts the harness's words on a CPU
    // preset (its caches, schedule and thread reference), another model (row . theta
    // missed talg(exact) by up to 69% on calibrated CPU presets). Eq. A.32's
    // innermost_multiple stays: every variant's feasibility reads it.
    GpuParams plain = gpu;
    plain.machine = MachineTerms{};
    plain.machine.innermost_multiple = gpu.machine.innermost_multiple;
    detail::evaluate_exact(plain, stencil, size, tiles, detail::ExactPath::fast, true, &row);
  } else {
    detail::evaluate_exact(gpu, stencil, size, tiles, detail::ExactPath::fast, true, &row);
  }
  return row;
}

}  // namespace

std::array<double, kDesignParams> design_row(const GpuParams& gpu, const StencilParams& stencil,
                                             const ProblemSize& size, const TileSizes& tiles,
                                             Variant variant) {
  validate_inputs(gpu, stencil, size);
  const std::uint32_t reasons = feasibility(gpu, stencil.n_space_dims, tiles);
  if (reasons != kFeasible) {
    throw std::invalid_argument("tiles: infeasible: " + describe_infeasibility(reasons));
  }
  return design_row_unchecked(gpu, stencil, size, tiles, variant);
}

void design_rows(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                 const std::int64_t* tiles, std::size_t n_tiles, Variant variant, double* rows,
                 std::uint32_t* reasons, int n_threads) {
  validate_inputs(gpu, stencil, size);
  require_in_range(n_threads, 0, kMaxThreads, "threads");
  if (rows == nullptr || reasons == nullptr) {
    throw std::invalid_argument("design_rows: rows and reasons outputs are required");
  }
  const int dims = stencil.n_space_dims;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  parallel_for_chunks(
      n_tiles,
      [&](std::size_t begin, std::size_t end, std::size_t) {
        for (std::size_t i = begin; i < end; ++i) {
          const TileSizes t = batch_tile(tiles, i, dims);
          reasons[i] = feasibility(gpu, dims, t);
          double* out = rows + i * kDesignParams;
          if (reasons[i] != kFeasible) {
            std::fill(out, out + kDesignParams, nan);
            continue;
          }
          const auto r = design_row_unchecked(gpu, stencil, size, t, variant);
          std::copy(r.begin(), r.end(), out);
        }
      },
      n_threads, 256);
}

Breakdown evaluate(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                   const TileSizes& tiles, Variant variant) {
  validate_inputs(gpu, stencil, size);
  const std::uint32_t reasons = feasibility(gpu, stencil.n_space_dims, tiles);
  if (reasons != kFeasible) {
    throw std::invalid_argument("tiles: infeasible: " + describe_infeasibility(reasons));
  }
  const Breakdown b = evaluate_unchecked(gpu, stencil, size, tiles, variant);
  require_finite_result(b);
  return b;
}

void evaluate_batch(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                    const std::int64_t* tiles, std::size_t n_tiles, Variant variant,
                    const BatchOutputs& out, int n_threads) {
  validate_inputs(gpu, stencil, size);
  require_in_range(n_threads, 0, kMaxThreads, "threads");
  if (out.talg_s == nullptr || out.reasons == nullptr) {
    throw std::invalid_argument("evaluate_batch: talg_s and reasons outputs are required");
  }
  const int dims = stencil.n_space_dims;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto put = [](double* array, std::size_t i, double value) {
    if (array != nullptr) array[i] = value;
  };
  const bool talg_only = out.m_prime_s == nullptr && out.c_s == nullptr &&
                         out.t_tile_s == nullptr && out.m_tile_words == nullptr &&
                         out.k == nullptr && out.n_wavefronts == nullptr &&
                         out.tiles_per_wavefront == nullptr && out.n_subtiles == nullptr;
  if (talg_only && variant == Variant::paper) {
    // Fast path: T_alg only, no Breakdown assembled (same value as evaluate()).
    const PaperBatchKernel kernel(gpu, stencil, size);
    parallel_for_chunks(
        n_tiles,
        [&](std::size_t begin, std::size_t end, std::size_t) {
          kernel.run(tiles, begin, end, out.talg_s, out.reasons);
        },
        n_threads, 4096);
    return;
  }
  // `machine` without machine terms (every GPU preset) is `exact` bit for bit (docs/time.md,
  // "Machine variant"; test_time_machine), so it takes exact's T_alg-only path; with them,
  // the machine variant's T_alg alone, its per-batch set-up hoisted (issue 15).
  const bool machine_terms = variant == Variant::machine && !gpu.machine.all_zero();
  if (talg_only && (variant == Variant::exact || variant == Variant::machine)) {
    // T_alg only (issue 15, seventh round): no Breakdown assembled, T_ideal once per batch
    // (it depends on the machine, stencil and size only); the same T_alg as evaluate().
    const double t_ideal = t_ideal_s(gpu, stencil, size);
    // One loop for both evaluators: feasibility, T_alg where feasible, NaN elsewhere.
    // make_talg(begin, end) gives the evaluator of one thread's tiles [begin, end).
    // Where `group.order` is not empty, the tiles are evaluated in that order and their
    // results stored in it (each thread writes a contiguous run: in the batch's order the
    // threads' writes would share cache lines), then gathered to the tiles' positions.
    GroupOrder group;
    std::vector<double> talg_in_order;
    std::vector<std::uint32_t> reasons_in_order;
    const auto talg_loop = [&](const auto& make_talg) {
      const bool grouped = !group.order.empty();
      double* const talg_out = grouped ? talg_in_order.data() : out.talg_s;
      std::uint32_t* const reasons_out = grouped ? reasons_in_order.data() : out.reasons;
      parallel_for_chunks(
          n_tiles,
          [&](std::size_t begin, std::size_t end, std::size_t) {
            auto talg_of = make_talg(begin, end);
            for (std::size_t p = begin; p < end; ++p) {
              const TileSizes t = batch_tile(tiles, grouped ? group.order[p] : p, dims);
              const std::uint32_t reasons = feasibility(gpu, dims, t);
              reasons_out[p] = reasons;
              double talg = nan;
              if (reasons == kFeasible) {
                talg = talg_of(t);
                require_finite_talg(talg, t_ideal);
              }
              talg_out[p] = talg;
            }
          },
          n_threads, 1024);
      if (!grouped) return;
      parallel_for_chunks(
          n_tiles,
          [&](std::size_t begin, std::size_t end, std::size_t) {
            for (std::size_t i = begin; i < end; ++i) {
              out.talg_s[i] = talg_in_order[group.rank[i]];
              out.reasons[i] = reasons_in_order[group.rank[i]];
            }
          },
          n_threads, 16384);
    };
    if (machine_terms) {
      const detail::MachineSetup setup = detail::machine_setup(gpu, dims, size);
      // The tiles of one (tS1, tT) in a row, each thread a contiguous run of the order:
      // the same value per tile as in the given order (the group cache returns what the
      // computation stored), written to the tile's own position.
      group = machine_group_order(tiles, n_tiles, dims);
      if (!group.order.empty()) {
        talg_in_order.resize(n_tiles);
        reasons_in_order.resize(n_tiles);
      }
      talg_loop([&](std::size_t begin, std::size_t end) {
        return talg_of_chunk(gpu, stencil, size, &setup, end - begin);
      });
    } else {
      talg_loop([&](std::size_t begin, std::size_t end) {
        return talg_of_chunk(gpu, stencil, size, nullptr, end - begin);
      });
    }
    return;
  }
  parallel_for_chunks(
      n_tiles,
      [&](std::size_t begin, std::size_t end, std::size_t) {
        for (std::size_t i = begin; i < end; ++i) {
          const TileSizes t = batch_tile(tiles, i, dims);
          const std::uint32_t reasons = feasibility(gpu, dims, t);
          out.reasons[i] = reasons;
          Breakdown b;
          const bool ok = reasons == kFeasible;
          if (ok) {
            b = evaluate_unchecked(gpu, stencil, size, t, variant);
            require_finite_result(b);
          }
          out.talg_s[i] = ok ? b.talg_s : nan;
          put(out.m_prime_s, i, ok ? b.m_prime_s : nan);
          put(out.c_s, i, ok ? b.c_s : nan);
          put(out.t_tile_s, i, ok ? b.t_tile_s : nan);
          put(out.m_tile_words, i, ok ? b.m_tile_words : nan);
          put(out.k, i, ok ? static_cast<double>(b.k) : nan);
          put(out.n_wavefronts, i, ok ? static_cast<double>(b.n_wavefronts) : nan);
          put(out.tiles_per_wavefront, i, ok ? static_cast<double>(b.tiles_per_wavefront) : nan);
          put(out.n_subtiles, i, ok ? static_cast<double>(b.n_subtiles) : nan);
        }
      },
      n_threads, 1024);
}

void SearchSpace::validate() const {
  if (space.empty() || space.size() > 3) {
    throw std::invalid_argument("space: must have 1 to 3 space dimensions, got " +
                                std::to_string(space.size()));
  }
  if (time.empty()) throw std::invalid_argument("time: no tT candidates");
  std::size_t n = time.size();
  for (std::size_t d = 0; d < space.size(); ++d) {
    if (space[d].empty()) {
      throw std::invalid_argument("space[" + std::to_string(d) + "]: no candidates");
    }
    if (n > kMaxSearchPoints / space[d].size()) n = kMaxSearchPoints + 1;
    else n *= space[d].size();
  }
  if (n > kMaxSearchPoints) {
    throw std::invalid_argument("space: more than 2^24 points; search a smaller space");
  }
}

std::size_t SearchSpace::size() const {
  std::size_t n = time.size();
  for (const auto& values : space) n *= values.size();
  return n;
}

TileSizes SearchSpace::point(std::size_t index) const {
  TileSizes t;
  for (std::size_t d = space.size(); d-- > 0;) {
    t.space[d] = space[d][index % space[d].size()];
    index /= space[d].size();
  }
  t.time = time[index];
  return t;
}

namespace {

std::vector<std::int64_t> range(std::int64_t first, std::int64_t last, std::int64_t step) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = first; v <= last; v += step) values.push_back(v);
  return values;
}

void check_space(const SearchSpace& space, int n_space_dims) {
  space.validate();
  if (static_cast<int>(space.space.size()) != n_space_dims) {
    throw std::invalid_argument("search space has " + std::to_string(space.space.size()) +
                                " space dimensions, the stencil has " +
                                std::to_string(n_space_dims));
  }
  if (space.time.empty()) throw std::invalid_argument("search space: no tT candidates");
  for (const auto& values : space.space) {
    if (values.empty()) throw std::invalid_argument("search space: a dimension has no candidates");
  }
}

}  // namespace

SearchSpace default_search_space(int n_space_dims) {
  require_dims(n_space_dims);
  SearchSpace s;
  if (n_space_dims == 1) {
    s.space = {range(1, 1024, 1)};   // tS
    s.time = range(2, 256, 2);       // tT
  } else if (n_space_dims == 2) {
    s.space = {range(1, 64, 1), range(32, 1024, 32)};  // tS1, tS2
    s.time = range(2, 64, 2);
  } else {
    s.space = {range(1, 32, 1), range(1, 32, 1), range(32, 256, 32)};  // tS1, tS2, tS3
    s.time = range(2, 32, 2);
  }
  return s;
}

SearchResult search(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                    const SearchSpace& space, double within, Variant variant, int n_threads) {
  validate_inputs(gpu, stencil, size);
  require_in_range(n_threads, 0, kMaxThreads, "threads");
  check_space(space, stencil.n_space_dims);
  require_in_range(within, 0.0, 1e6, "within");
  const int dims = stencil.n_space_dims;
  // `exact` (and `machine` without machine terms, the same bit for bit) reads T_alg alone
  // (evaluate_exact_talg, the same double as the Breakdown's); in 2D a thread with many
  // tiles shares work between them (ExactTalgBatch, issue 15), as evaluate_batch does.
  // `machine` with machine terms reads its T_alg alone too (evaluate_machine_talg, grouped
  // in 2D as the batch is: talg_of_chunk).
  const bool exact_like = variant == Variant::exact ||
                          (variant == Variant::machine && gpu.machine.all_zero());
  const bool machine_terms = variant == Variant::machine && !exact_like;
  const detail::MachineSetup setup =
      machine_terms ? detail::machine_setup(gpu, dims, size) : detail::MachineSetup{};
  const bool talg_alone = exact_like || machine_terms;
  auto found = search::exhaustive_search_per_chunk(
      space, [&](const TileSizes& t) { return feasibility(gpu, dims, t) == kFeasible; },
      [&](std::size_t begin, std::size_t end) {
        // The T_alg-alone evaluator (no caches for the variants that do not use it).
        auto talg = talg_of_chunk(gpu, stencil, size, machine_terms ? &setup : nullptr,
                                  talg_alone ? end - begin : 0);
        return [&, talg = std::move(talg)](const TileSizes& t) {
          return talg_alone ? talg(t) : evaluate_unchecked(gpu, stencil, size, t, variant).talg_s;
        };
      },
      within, n_threads, 512);
  SearchResult r;
  r.best = found.best;
  r.talg_min_s = found.best_value;
  r.best_breakdown = evaluate_unchecked(gpu, stencil, size, r.best, variant);
  r.near_optimal = std::move(found.near_optimal);
  r.near_optimal_talg_s = std::move(found.near_optimal_values);
  r.n_points = found.n_points;
  r.n_feasible = found.n_feasible;
  return r;
}

double t_overhead_closed_form_s(const GpuParams& gpu, const StencilParams& stencil,
                                const ProblemSize& size, const TileSizes& tiles) {
  // Eq. 8.5 read as T_ideal / (tS1 + tT/2) (docs/time.md). Only tS1 and tT enter, but
  // the tile is checked as evaluate() checks it: an infeasible tile's overhead is not one
  // the model describes (it returned a value for (8, 63, 7) and for tiles of 2^62).
  validate_inputs(gpu, stencil, size);
  const std::uint32_t reasons = feasibility(gpu, stencil.n_space_dims, tiles);
  if (reasons != kFeasible) {
    throw std::invalid_argument("tiles: infeasible: " + describe_infeasibility(reasons));
  }
  const double face = static_cast<double>(tiles.space[0]) + 0.5 * static_cast<double>(tiles.time);
  return t_ideal_s(gpu, stencil, size) / face;
}

std::vector<TileSizes> max_hexagonal_face_tiles(const GpuParams& gpu, int n_space_dims,
                                                const SearchSpace& space) {
  gpu.validate();
  check_space(space, n_space_dims);
  // Group the feasible points by their inner tile sizes (tS2, tS3); in each group keep the
  // points whose face tS1 + tT/2 (doubled to stay integral) is largest.
  struct Group {
    std::int64_t best_face2 = -1;
    std::vector<TileSizes> tiles;
  };
  std::size_t n_inner = 1;
  for (int d = 1; d < n_space_dims; ++d) n_inner *= space.space[d].size();
  std::vector<Group> groups(n_inner);
  const std::size_t n = space.size();
  for (std::size_t i = 0; i < n; ++i) {
    const TileSizes t = space.point(i);
    if (feasibility(gpu, n_space_dims, t) != kFeasible) continue;
    std::size_t g = 0;
    for (int d = 1; d < n_space_dims; ++d) {
      const auto& values = space.space[d];
      g = g * values.size() +
          static_cast<std::size_t>(std::find(values.begin(), values.end(), t.space[d]) -
                                   values.begin());
    }
    const std::int64_t face2 = 2 * t.space[0] + t.time;
    Group& group = groups[g];
    if (face2 > group.best_face2) {
      group.best_face2 = face2;
      group.tiles.clear();
    }
    if (face2 == group.best_face2) group.tiles.push_back(t);
  }
  std::vector<TileSizes> result;
  for (const auto& group : groups) result.insert(result.end(), group.tiles.begin(), group.tiles.end());
  return result;
}

}  // namespace time
}  // namespace costmetrics

// Hardware/software codesign sweep (thesis 000, Appendix C, Eqs. C.8-C.19): the
// tile-optimal T_alg of every (design, instance) pair, exact over every feasible tile, by
// branch and bound with lower bounds on T_alg (docs/codesign.md, "Exact pruning").
#include "costmetrics/codesign.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "costmetrics/checked.hpp"
#include "costmetrics/parallel.hpp"
#include "floor_sum.hpp"
#include "codesign_detail.hpp"
#include "time_exact.hpp"

namespace costmetrics {
namespace codesign {

namespace {

using i64 = std::int64_t;
namespace tm = time;

constexpr i64 kWarp = 32;
constexpr double kWordsPerKb = 1024.0 / 4.0;
// A bound prunes only when it exceeds the incumbent by more than rounding can explain.
constexpr double kSafety = 1.0 - 1e-12;

// Lambdas that must be inlined into their caller (search_exact's tile loop; GCC honours
// the attribute on the call operator, other compilers get none rather than a warning).
#if defined(__GNUC__) && !defined(__clang__)
#define CODESIGN_LAMBDA_INLINE __attribute__((always_inline))
#else
#define CODESIGN_LAMBDA_INLINE
#endif
// Two doubles computed lane by lane (search_exact's per-tile bound: the interior wavefronts
// in lane 0, the first and last in lane 1). Each lane rounds as the scalar expression it
// replaces (-ffp-contract=off; no FMA), so the bound is the same double.
#if defined(__GNUC__)
typedef double Lanes2 __attribute__((vector_size(16)));
inline Lanes2 lanes_max(Lanes2 a, Lanes2 b) { return a < b ? b : a; }  // std::max per lane
#else
struct Lanes2 {
  double v[2];
  double operator[](int i) const { return v[i]; }
};
inline Lanes2 operator+(Lanes2 a, Lanes2 b) { return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}}; }
inline Lanes2 operator*(Lanes2 a, Lanes2 b) { return {{a.v[0] * b.v[0], a.v[1] * b.v[1]}}; }
inline Lanes2 operator*(double a, Lanes2 b) { return {{a * b.v[0], a * b.v[1]}}; }
inline Lanes2 operator*(Lanes2 a, double b) { return {{a.v[0] * b, a.v[1] * b}}; }
inline Lanes2 operator+(double a, Lanes2 b) { return {{a + b.v[0], a + b.v[1]}}; }
inline Lanes2 lanes_max(Lanes2 a, Lanes2 b) {
  return {{std::max(a.v[0], b.v[0]), std::max(a.v[1], b.v[1])}};
}
#endif
inline Lanes2 lanes_of(double a, double b) { return Lanes2{a, b}; }

// Designs claimed at once by a worker thread.
constexpr std::size_t kBlock = 16;

// ceil(a / b) for 0 <= a + b < 2^53 (sizes and tiles are bounded by validate_inputs and the
// shared memory), by one exact double division (floor_sum.hpp).
i64 ceil_div(i64 a, i64 b) { return costmetrics::detail::div_ceil(a, b); }

void require_finite_nonneg(double v, const char* name) {
  if (!(v >= 0) || !std::isfinite(v)) {
    throw std::invalid_argument(std::string(name) + ": must be finite and >= 0, got " +
                                format_value(v));
  }
}

// ceil(n / d) for integers 0 <= n < 2^45 and d >= 1, given inv_d = 1 / d rounded to
// nearest: n inv_d is within 3e-16 relative of n / d, so y below lies in
// (n/d (1 - 2e-15), n/d); it exceeds floor(n/d) unless d divides n (n/d (2e-15) < 1/d
// for n < 2^45), and is above n/d - 1 when it does. Used for the rounds in the bounds,
// where a wrong value would cost tightness, never soundness, as long as it is not above
// the true ceiling (which y < n/d guarantees).
inline double ceil_quotient(double n, double inv_d) {
  const double y = n * inv_d * (1.0 - 1.5e-15);
  const double f = static_cast<double>(static_cast<i64>(y));
  return y > f ? f + 1.0 : f;
}

bool valid_smem_kb(i64 kb) { return kb == 12 || kb == 24 || kb == 36 || (kb > 0 && kb % 48 == 0); }

// Every feasible tile of one shared-memory configuration (constraints C.10-C.16 and A.32):
// tT even, innermost space tile a multiple of 32, M_tile <= min(per-block limit, M_SM),
// and with thread limits (SweepOptions::thread_limits) a block of tS2 [tS3] threads that
// fits them. Stored as groups of equal (tT, tS1), inner tiles (tS2[, tS3]) ascending;
// groups that no tile survives are left out.
struct Inner {
  i64 s2 = 0, s3 = 0;  // s3 = 0 in 2D
  i64 area = 0;        // tS2 (2D) or tS2 tS3 (3D)
  double m_tile = 0;   // words (time::m_tile_words)
  i64 k = 0;           // min(floor(M_SM / M_tile), MTB_SM[, thread and register limits])
  double m_prime = 0;  // transfer time per (sub)tile (A.15 / A.26)
  std::uint32_t k_slot = 0;  // k's index in TileSet::k_values (its group's distinct k)
};
struct Group {
  i64 tT = 0, tS1 = 0;
  std::uint32_t begin = 0, end = 0;
  i64 k_min = 0;  // smallest hyper-threading factor of the group's inner tiles
  // The distinct hyper-threading factors of the group's inner tiles, ascending:
  // TileSet::k_values[k_begin, k_end). The `exact` group bound takes the fewest rounds
  // times k over them (search_exact).
  std::uint32_t k_begin = 0, k_end = 0;
};
struct TileSet {
  int dims = 0;
  std::vector<Group> groups;        // ordered by (tT, tS1)
  std::vector<std::uint32_t> tT_begin;  // group index where each tT starts (+ sentinel)
  std::vector<Inner> inner;
  std::vector<i64> k_values;  // per group, see Group::k_begin
  i64 n_tiles = 0;
};

double m_tile_of(int dims, i64 tS1, i64 s2, i64 s3, i64 tT) {
  tm::TileSizes t;
  t.space = {{tS1, s2, s3}};
  t.time = tT;
  return tm::m_tile_words(dims, t);
}

TileSet build_tiles(int dims, double smem_words, double limit_words, const MachineParams& m,
                    const ThreadLimits* threads) {
  TileSet ts;
  ts.dims = dims;
  if (dims != 2 && dims != 3) {
    throw std::invalid_argument("codesign: stencils must have 2 or 3 space dimensions, got " +
                                std::to_string(dims));
  }
  const double limit = std::min(limit_words, smem_words);
  auto fits = [&](i64 tS1, i64 s2, i64 s3, i64 tT) {
    return m_tile_of(dims, tS1, s2, s3 == 0 ? kWarp : s3, tT) <= limit;
  };
  for (i64 tT = 2;; tT += 2) {
    const i64 s2_min = dims == 2 ? kWarp : 1;
    if (!fits(1, s2_min, 0, tT)) break;
    ts.tT_begin.push_back(static_cast<std::uint32_t>(ts.groups.size()));
    for (i64 tS1 = 1; fits(tS1, s2_min, 0, tT); ++tS1) {
      Group g;
      g.tT = tT;
      g.tS1 = tS1;
      g.begin = static_cast<std::uint32_t>(ts.inner.size());
      auto add = [&](i64 s2, i64 s3) {
        Inner in;
        in.s2 = s2;
        in.s3 = s3;
        in.area = dims == 2 ? s2 : s2 * s3;
        in.m_tile = m_tile_of(dims, tS1, s2, s3, tT);
        const double by_memory = std::floor(smem_words / in.m_tile);
        in.k = std::min<i64>(static_cast<i64>(by_memory), m.max_blocks_per_sm);
        if (threads != nullptr) {
          // Extension: one thread per point of the inner cross-section (docs/codesign.md).
          in.k = std::min(in.k, threads->blocks_per_sm(in.area));
          if (in.k == 0) return;  // too many threads for a block, or for one SM
        }
        // Eqs. A.14-A.15 / A.25-A.26, in the operation order of time::evaluate.
        const double m_io = 2.0 * static_cast<double>(in.area) * static_cast<double>(tS1 + 2 * tT);
        in.m_prime = m_io * m.l_s_per_word + 2.0 * m.tau_sync_s;
        ts.inner.push_back(in);
      };
      if (dims == 2) {
        for (i64 s2 = kWarp; fits(tS1, s2, 0, tT); s2 += kWarp) add(s2, 0);
      } else {
        for (i64 s2 = 1; fits(tS1, s2, kWarp, tT); ++s2) {
          for (i64 s3 = kWarp; fits(tS1, s2, s3, tT); s3 += kWarp) add(s2, s3);
        }
      }
      g.end = static_cast<std::uint32_t>(ts.inner.size());
      if (g.end == g.begin) continue;  // every tile over the thread limits
      g.k_min = m.max_blocks_per_sm;
      for (std::uint32_t i = g.begin; i < g.end; ++i) g.k_min = std::min(g.k_min, ts.inner[i].k);
      g.k_begin = static_cast<std::uint32_t>(ts.k_values.size());
      for (std::uint32_t i = g.begin; i < g.end; ++i) ts.k_values.push_back(ts.inner[i].k);
      std::sort(ts.k_values.begin() + g.k_begin, ts.k_values.end());
      ts.k_values.erase(std::unique(ts.k_values.begin() + g.k_begin, ts.k_values.end()),
                        ts.k_values.end());
      g.k_end = static_cast<std::uint32_t>(ts.k_values.size());
      for (std::uint32_t i = g.begin; i < g.end; ++i) {
        const auto first = ts.k_values.begin() + g.k_begin;
        const auto at = std::lower_bound(first, ts.k_values.end(), ts.inner[i].k);
        ts.inner[i].k_slot = static_cast<std::uint32_t>(at - ts.k_values.begin());
      }
      ts.groups.push_back(g);
    }
  }
  ts.tT_begin.push_back(static_cast<std::uint32_t>(ts.groups.size()));
  ts.n_tiles = static_cast<i64>(ts.inner.size());
  return ts;
}

double block_limit_words(i64 smem_kb, const SweepOptions& o) {
  const double smem_words = static_cast<double>(smem_kb) * kWordsPerKb;
  switch (o.block_rule) {
    case BlockRule::half:
      return smem_words / 2.0;
    case BlockRule::full:
      return smem_words;
    case BlockRule::capped:
      return std::min(smem_words, o.block_cap_kb * kWordsPerKb);
  }
  return smem_words;
}

struct Best {
  double talg = std::numeric_limits<double>::infinity();
  i64 tS1 = 0, s2 = 0, s3 = 0, tT = 0;
  i64 evaluated = 0;
  i64 bounds = 0;
  std::uint32_t group = 0, inner = 0;  // where the best tile lies in its TileSet
  void offer(double v, i64 a, i64 b, i64 c, i64 t, std::uint32_t gi, std::uint32_t ii) {
    // Strictly better, or equal and earlier in the order (tT, tS1, tS2, tS3).
    if (v < talg || (v == talg && std::make_tuple(t, a, b, c) < std::make_tuple(tT, tS1, s2, s3))) {
      talg = v;
      tS1 = a;
      s2 = b;
      s3 = c;
      tT = t;
      group = gi;
      inner = ii;
    }
  }
};

// T_alg of the `paper` variant for one tile, with the tile-only terms precomputed; the
// same operations in the same order as time::evaluate (bit-identical result).
inline double paper_talg(const Instance& in, const MachineParams& m, i64 n_sm, i64 n_v, i64 tT,
                         i64 tS1, const Inner& t, i64 n_w, i64 w) {
  i64 n_sub = ceil_div(in.size.space[1] + tT, t.s2);
  if (t.s3 != 0) n_sub *= ceil_div(in.size.space[2] + tT, t.s3);
  // sum_{x = tS1, tS1+2, ..., tS1+tT-2} ceil(x area / nV) (Eqs. A.16 / A.28), in O(log nV).
  const i64 row_steps = costmetrics::detail::hexagon_row_steps(tS1, tT, t.area, n_v);
  const double c = 2.0 * in.stencil.c_iter_s * static_cast<double>(row_steps) +
                   static_cast<double>(tT) * m.tau_sync_s;
  const double k = static_cast<double>(t.k);
  const double ns = static_cast<double>(n_sub);
  // detail::tile_time_s(dims, k, m', n_sub, n_sub c, n_sub max(m', c)), same association.
  const double t_tile =
      t.k == 1 ? ns * t.m_prime + ns * c : t.m_prime + k * (ns * std::max(t.m_prime, c));
  const i64 rounds = ceil_div(ceil_div(w, t.k), n_sm);
  const double nw = static_cast<double>(n_w);
  return nw * t_tile * static_cast<double>(rounds) + nw * m.t_sync_s;
}

// T_alg of the `exact` variant for one tile of a tile set. evaluate_exact recomputes k from
// the machine (time::detail::k_factor: min(floor(M_SM / M_tile), MTB_SM)); the tile
// set's k never exceeds floor(M_SM / M_tile) and MTB_SM, so with MTB_SM := k it recomputes
// exactly the tile set's k, also when thread limits lowered it (then the search, its bounds
// and this evaluation use one k; without limits the k, and T_alg, are unchanged).
double exact_talg(tm::GpuParams gpu, const Instance& in, i64 tT, i64 tS1, const Inner& t) {
  gpu.max_blocks_per_sm = static_cast<int>(t.k);
  tm::TileSizes tile;
  tile.space = {{tS1, t.s2, t.s3}};
  tile.time = tT;
  return tm::detail::evaluate_exact_talg(gpu, in.stencil, in.size, tile);
}

i64 n_wavefronts_paper(i64 T, i64 tT) {
  const i64 remainder = T - costmetrics::detail::div_floor(T, tT) * tT;  // Eq. A.3
  const i64 eps = (remainder > 0 && 2 * remainder <= tT) ? 0 : 1;
  return 2 * ceil_div(T, tT) + eps;
}

// Branch and bound for the `paper` variant (docs/codesign.md, "Exact pruning"). For any
// feasible tile, with Q = prod_{d>=1} (S_d + tT), X = C_iter tT (tS1 + tT/2 - 1) Q / nV
// (compute) and M = 2 Q (tS1 + 2 tT) L (transfer):
//   T_alg >= N_w (max(1, w / nSM) max(X, M) + T_sync)                         (group bound)
// because rounds T_tile >= max(k, w / nSM) max(m', c) n_sub, c n_sub >= X, m' n_sub >= M.
// X and S1 X / (2 tS1 + tT) grow with tS1 and S1 M / (2 tS1 + tT) >= S1 Q L, which bounds
// every larger tS1 (tail bound); and N_w w X / nSM >= T S1 C_iter Q tT / ((tT + 2) nSM nV),
// growing with tT, bounds every larger tT.
void search_paper(const TileSet& ts, const Instance& in, const MachineParams& m, const Design& d,
                  bool prune, Best& best) {
  const i64 S1 = in.size.space[0];
  const i64 T = in.size.time_steps;
  const double C = in.stencil.c_iter_s;
  const double nsm = static_cast<double>(d.n_sm);
  const double nv = static_cast<double>(d.n_v);
  const double L = m.l_s_per_word;
  for (std::size_t q = 0; q + 1 < ts.tT_begin.size(); ++q) {
    const std::uint32_t g0 = ts.tT_begin[q];
    const std::uint32_t g1 = ts.tT_begin[q + 1];
    if (g0 == g1) continue;
    const i64 tT = ts.groups[g0].tT;
    const i64 h = tT / 2;
    double Q = static_cast<double>(in.size.space[1] + tT);
    if (ts.dims == 3) Q *= static_cast<double>(in.size.space[2] + tT);
    const i64 n_w = n_wavefronts_paper(T, tT);
    const double nw = static_cast<double>(n_w);
    if (prune) {
      ++best.bounds;
      const double tail_tT = static_cast<double>(T) * static_cast<double>(S1) * C * Q *
                             static_cast<double>(tT) / (static_cast<double>(tT + 2) * nsm * nv);
      if (tail_tT * kSafety > best.talg) break;
    }
    for (std::uint32_t gi = g0; gi < g1; ++gi) {
      const Group& g = ts.groups[gi];
      const i64 tS1 = g.tS1;
      const i64 w = ceil_div(S1, 2 * tS1 + tT);
      if (prune) {
        best.bounds += 2;
        const double X = C * static_cast<double>(tT) * static_cast<double>(tS1 + h - 1) * Q / nv;
        const double M = 2.0 * Q * static_cast<double>(tS1 + 2 * tT) * L;
        const double tail_c = std::max(X, static_cast<double>(S1) * X /
                                              (static_cast<double>(2 * tS1 + tT) * nsm));
        const double tail_m = std::max(M, static_cast<double>(S1) * Q * L / nsm);
        const double tail = nw * (std::max(tail_c, tail_m) + m.t_sync_s);
        if (tail * kSafety > best.talg) break;
        const double group =
            nw * (std::max(1.0, static_cast<double>(w) / nsm) * std::max(X, M) + m.t_sync_s);
        if (group * kSafety > best.talg) continue;
      }
      for (std::uint32_t i = g.begin; i < g.end; ++i) {
        const Inner& t = ts.inner[i];
        const double v = paper_talg(in, m, d.n_sm, d.n_v, tT, tS1, t, n_w, w);
        ++best.evaluated;
        best.offer(v, tS1, t.s2, t.s3, tT, gi, i);
      }
    }
  }
}

i64 floor_div_signed(i64 a, i64 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Geometry of the interior wavefronts of the `exact` variant for one (tT, tS1) group and one
// instance (docs/time.md, "Exact variant"): wavefront j (rows (j-1) tT/2 ...) lies
// wholly in [0, T) for 1 <= j <= T/h - 1; odd j (color A, offset 0) and even j (color B,
// offset P/2) are identical among themselves. n = tiles with a point, sum_w = sum over the
// tT rows of W(r), the widest tile's points in [0, S1) at row r.
struct ExactGeometry {
  i64 count[2] = {0, 0};  // interior A and B wavefronts
  i64 n[2] = {0, 0};
  double sum_w[2] = {0, 0};
  double rows[2] = {0, 0};  // rows with W(r) > 0
  // The first wavefront (j = 0, color B: the upper half rows [h, tT) of its tiles) and the
  // last one that starts inside [0, T) (j = floor(T/h), color A if j is odd: at least the
  // lower half rows [0, h)), bounded when whole rows fit (S1 >= 2P - 1) and T >= h: both
  // then hold half-hexagon rows of widths tS1 + 2e, e = 0..h-1 (sum_w_half = h tS1 +
  // h (h - 1) points per unit area, h rows), with at least n[B] resp. n[color] tiles.
  bool ends = false;
  int last_color = 0;
  double sum_w_half = 0;
  double ends_of[2] = {0, 0};  // how many of those two are of color A, B (n > 0 only)
};

ExactGeometry exact_geometry(i64 S1, i64 T, i64 tS1, i64 tT) {
  ExactGeometry geo;
  const i64 h = tT / 2;
  const i64 pitch = 2 * tS1 + tT - 2;
  const i64 n_interior = std::max<i64>(0, T / h - 1);
  geo.count[0] = (n_interior + 1) / 2;
  geo.count[1] = n_interior / 2;
  if (tm::detail::whole_rows_fit(S1, tS1, tT) && T >= h) {
    geo.ends = true;
    geo.last_color = (T / h) % 2 == 1 ? 0 : 1;
    geo.sum_w_half = static_cast<double>(h * tS1 + h * (h - 1));
  }
  for (int c = 0; c < 2; ++c) {
    const i64 off = c == 0 ? 0 : pitch / 2;
    const i64 e_max = h - 1;  // rows h-1 and h of an interior wavefront
    const i64 p_min = floor_div_signed(-tS1 - e_max - off, pitch) + 1;
    const i64 p_max = floor_div_signed(S1 + e_max - off - 1, pitch);
    geo.n[c] = std::max<i64>(0, p_max - p_min + 1);
    i64 sum = 0;
    i64 rows = 0;
    if (tm::detail::whole_rows_fit(S1, tS1, tT)) {
      // W(r) = tS1 + 2 e(r) on every row: sum_r W(r) = tT tS1 + 2 h (h - 1), the same
      // integer as the loop below adds up.
      geo.sum_w[c] = static_cast<double>(tT * tS1 + 2 * h * (h - 1));
      geo.rows[c] = static_cast<double>(tT);
      continue;
    }
    for (i64 r = 0; r < tT; ++r) {
      const i64 half = std::min(r, tT - 1 - r);
      const i64 w = tS1 + 2 * half;
      const i64 start0 = off - half;
      const i64 plateau_lo = std::min<i64>(0, S1 - w);
      const i64 x = start0 + floor_div_signed(plateau_lo - start0, pitch) * pitch;
      auto overlap = [&](i64 st) {
        return std::max<i64>(0, std::min(st + w, S1) - std::max<i64>(st, 0));
      };
      const i64 widest = std::max(overlap(x), overlap(x + pitch));
      sum += widest;
      rows += widest > 0 ? 1 : 0;
    }
    geo.sum_w[c] = static_cast<double>(sum);
    geo.rows[c] = static_cast<double>(rows);
  }
  if (geo.ends) {
    for (int c : {1, geo.last_color}) geo.ends_of[c] += geo.n[c] > 0 ? 1.0 : 0.0;
  }
  return geo;
}

// Per tile of a tile set and per inner extent (S2, S3): what the `exact` bound needs that
// depends on neither the hardware nor S1 and T, so that it is computed once per thread and
// M_SM rather than per design. s_min = prod ceil(S_d / tS_d), the fewest sub-tiles with a
// point on a row; n_full = the sub-tiles full on every row of an interior wavefront (rows
// [0, tT); subtile_classes in time_exact.cpp with ra = 0, rb = tT).
// Also, for the bound's sub-tiles that are not full when whole rows fit (N_full = n_full):
// their points per row Q - n_full area and their count s_min - n_full (else Q and s_min),
// and the area as a double.
// The tile's own k, k_slot and m' (Inner) are copied in, so that the per-tile bound reads
// one 64-byte record per tile (the Inner only for a tile it does not prune).
struct TileAux {
  double s_min = 1;
  double n_full = 1;
  double area = 1;
  double other_points = 0;
  double other_subtiles = 0;
  double m_prime = 0;
  i64 k = 0;
  std::uint32_t k_slot = 0;
};

void build_tile_aux(const TileSet& ts, const tm::ProblemSize& size, std::vector<TileAux>& out) {
  out.resize(ts.inner.size());
  for (const Group& g : ts.groups) {
    for (std::uint32_t i = g.begin; i < g.end; ++i) {
      const Inner& t = ts.inner[i];
      const i64 tiles[2] = {t.s2, t.s3};
      TileAux a;
      for (int d = 1; d < ts.dims; ++d) {
        const i64 S = size.space[d];
        const i64 tS = tiles[d - 1];
        const tm::detail::SubtileRange s = tm::detail::subtile_range(S, tS, 0, g.tT);
        a.s_min *= static_cast<double>(ceil_div(S, tS));
        a.n_full *= static_cast<double>(std::max<i64>(0, s.full_hi - s.full_lo + 1));
      }
      double Q = static_cast<double>(size.space[1]);  // as search_exact's Q
      if (ts.dims == 3) Q *= static_cast<double>(size.space[2]);
      a.area = static_cast<double>(t.area);
      a.other_points = Q - a.n_full * a.area;
      a.other_subtiles = a.s_min - a.n_full;
      a.m_prime = t.m_prime;
      a.k = t.k;
      a.k_slot = t.k_slot;
      out[i] = a;
    }
  }
}

// Tail bounds of the `exact` variant over a range of groups (docs/codesign.md, "Tail
// bounds"): for every group g (colors with n_c > 0 only), the first group bound of
// search_exact is at least
//   t_sync s + max(C Q/nV a1, 2 Q L a2, C Q/(nV nSM) a3, 2 Q L/nSM a4)
// with the hardware-independent a1 = k_min P, a2 = k_min s (tS1 + 2 tT), a3 = sum_c n_c P_c,
// a4 = (tS1 + 2 tT) sum_c n_c s_c, where P_c = count_c sum_w_c + ends_of_c sum_w_half (the
// points per unit area of color c's bounded wavefronts), P = sum_c P_c, s_c = count_c +
// ends_of_c and s = sum_c s_c: R k >= k_min and >= n_c / nSM, and work >= the compute and
// the transfer floors, each summed over the colors. The same expression with each a and s
// replaced by its minimum over a set of groups bounds every group of the set: `row` over
// the rest of the group's tT (tS1 >= its own), `all` over every later group in the order
// (tT, tS1). Computed once per M_SM and instance.
struct TailTerms {
  double a1 = 0, a2 = 0, a3 = 0, a4 = 0, s = 0;
  void min_with(const TailTerms& o) {
    a1 = std::min(a1, o.a1);
    a2 = std::min(a2, o.a2);
    a3 = std::min(a3, o.a3);
    a4 = std::min(a4, o.a4);
    s = std::min(s, o.s);
  }
};
// Per M_SM and instance: `row[gi]` over the groups of gi's tT from gi on, `all[q]` over
// every group from the first of the q-th tT on (TileSet::tT_begin).
struct GroupTails {
  std::vector<TailTerms> row;
  std::vector<TailTerms> all;
};

void build_group_tails(const TileSet& ts, const std::vector<ExactGeometry>& geometry,
                       GroupTails& out) {
  out.row.resize(ts.groups.size());
  const std::size_t n_rows = ts.tT_begin.size() - 1;
  out.all.resize(n_rows);
  for (std::size_t q = n_rows; q-- > 0;) {
    const std::uint32_t g0 = ts.tT_begin[q];
    const std::uint32_t g1 = ts.tT_begin[q + 1];
    for (std::uint32_t gi = g1; gi-- > g0;) {
      const Group& g = ts.groups[gi];
      const ExactGeometry& geo = geometry[gi];
      TailTerms t;
      double P = 0, NP = 0, NS = 0;
      for (int c = 0; c < 2; ++c) {
        if (geo.n[c] == 0) continue;
        const double count = static_cast<double>(geo.count[c]);
        const double p_c = count * geo.sum_w[c] + geo.ends_of[c] * geo.sum_w_half;
        const double s_c = count + geo.ends_of[c];
        const double n_c = static_cast<double>(geo.n[c]);
        P += p_c;
        t.s += s_c;
        NP += n_c * p_c;
        NS += n_c * s_c;
      }
      const double kmin = static_cast<double>(g.k_min);
      const double per_row = static_cast<double>(g.tS1 + 2 * g.tT);
      t.a1 = kmin * P;
      t.a2 = kmin * t.s * per_row;
      t.a3 = NP;
      t.a4 = NS * per_row;
      if (gi + 1 < g1) t.min_with(out.row[gi + 1]);
      out.row[gi] = t;
    }
    // Every row holds at least one group (build_tiles stops at the first tT without one).
    TailTerms a = g0 < g1 ? out.row[g0] : TailTerms{};
    if (g0 == g1) {
      const double inf = std::numeric_limits<double>::infinity();
      a = TailTerms{inf, inf, inf, inf, inf};
    }
    if (q + 1 < n_rows) a.min_with(out.all[q + 1]);
    out.all[q] = a;
  }
}

// The group rounds bound of search_exact: with rk_c = min over the group's distinct k of
// ceil(n_c / (k nSM)) k (the fewest rounds times k of color c), and work_c >= both the
// compute floor C_iter sum_w_c Q / nV and the transfer floor 2 Q (tS1 + 2 tT) L,
//   sum_c [count_c (rk_c work_c + T_sync) + ends_of_c (rk_c work_half + T_sync)]
//     >= T_sync s + max(C Q / nV a, 2 Q L b)
// with a = sum_c rk_c (count_c sum_w_c + ends_of_c sum_w_half), b = (tS1 + 2 tT) sum_c rk_c
// (count_c + ends_of_c) and s = sum_c (count_c + ends_of_c), over the colors with n_c > 0.
// a, b, s depend on nSM (through rk_c) but not on nV. s < 0: not computed yet.
struct RoundsTerms {
  double a = 0, b = 0, s = -1;
};
// The two bounds search_exact takes per group, each as S + max(C Q / nV A, B), with what
// does not depend on nV folded in (per M_SM, nSM and instance; T_sync, L and Q are the
// same for every design): the tail bound of the rest of the group's tT (TailTerms, as
// t_sync s + max(C Q/nV max(a1, a3/nSM), 2 Q L max(a2, a4/nSM))) and the group rounds
// bound (RoundsTerms: t_sync s + max(C Q/nV a, 2 Q L b)). Kept in two arrays (RoundsCache):
// scan_groups reads the rounds bounds of every group it passes and the tail bounds of one
// group in up to 16, so the bytes it streams are halved (24 per group, not 48).
struct GroupBound {
  double s = 0, a = 0, b = 0;
  double lb(double cq_nv) const { return s + std::max(cq_nv * a, b); }
};

// search_exact's group loop over groups [gi, end) of one tT (gi < end) with the incumbent
// fixed (no tile is evaluated between two groups that their bounds prune): the outcome of
// testing each group's two bounds in turn, the tail bound of the rest of the tT first
// (which stops the tT) and then the rounds bound (which skips the group), with the same
// test as search_exact's `prunes`. Returns the first group that is not pruned by its
// rounds bound, or whose tail bound prunes the rest of the tT (`*rest_pruned`), or `end`.
// The tail bound is non-decreasing along a tT: its s, a and b are products and
// maxima, with nonnegative factors, of suffix minima over the tT's groups (build_group_tails,
// search_exact), and lb(cq_nv) with cq_nv >= 0 is monotone in each of them (rounding
// is monotone). So the scan tests the rounds bounds of up to kChunk groups, then the tail
// bound of the last group it reached: if that does not prune, none before it does; if it
// does, the first group of the chunk whose tail bound prunes is where the tT stops (issue
// 15: about 30 instructions per group in the general loop, 20 in a loop testing both).
// The chunks are the aligned blocks of kScanBlock groups (the first one cut at gi, the last
// at end), or of kScanBlock2 where such a block is skipped whole. A whole block's rounds
// bounds are first tested at once through `block_min` (`block2_min`), the elementwise
// minimum of its groups' s, a and b: lb(cq_nv) is monotone in each of them (cq_nv >= 0,
// rounding is monotone), so the minimum's bound is at most every group's, bit for bit, and
// when it prunes every group of the block does (the same outcome, without reading the
// block's records; issue 15, sixth round). A block may reach into the next tT: its minimum
// still bounds the groups of this one.
constexpr std::uint32_t kScanBlock = 16;
constexpr std::uint32_t kScanRatio = 4;  // blocks of kScanBlock per block of kScanBlock2
constexpr std::uint32_t kScanBlock2 = kScanRatio * kScanBlock;
inline std::uint32_t scan_groups(const GroupBound* rounds, const GroupBound* rest,
                                 const GroupBound* block_min, const GroupBound* block2_min,
                                 std::uint32_t gi,
                                 std::uint32_t end, double cq_nv, double incumbent,
                                 bool* rest_pruned) {
  auto rest_prunes = [&](std::uint32_t q) { return rest[q].lb(cq_nv) * kSafety > incumbent; };
  for (;;) {
    const std::uint32_t block = gi / kScanBlock;
    std::uint32_t block_end = (block + 1) * kScanBlock;
    std::uint32_t q = gi;
    bool skipped = false;
    if (gi == block * kScanBlock) {
      // At an aligned block of kScanBlock2 groups, their minimum first (skipping 64 groups
      // with one test where it prunes; on the 48 sweep designs at 480 kB, 4,198.6 M ->
      // 4,163.6 M instructions, 4,176.9 M with blocks of 128).
      if (gi % kScanBlock2 == 0 && block2_min[gi / kScanBlock2].lb(cq_nv) * kSafety > incumbent) {
        block_end = gi + kScanBlock2;
        skipped = true;
      } else {
        skipped = block_min[block].lb(cq_nv) * kSafety > incumbent;
      }
    }
    const std::uint32_t chunk_end = end < block_end ? end : block_end;
    if (skipped) {
      q = chunk_end;
    } else {
      while (q < chunk_end && rounds[q].lb(cq_nv) * kSafety > incumbent) ++q;
    }
    if (rest_prunes(q < chunk_end ? q : chunk_end - 1)) {
      while (!rest_prunes(gi)) ++gi;  // ends at the group tested above at the latest
      *rest_pruned = true;
      return gi;
    }
    if (q < chunk_end || chunk_end == end) return q;
    gi = chunk_end;
  }
}
// The per-tile bound's weights of one of a group's distinct k (TileSet::k_values[q]), with
// R_c = ceil(n_c / (k nSM)): count_c R_c per color (0 for a color without tiles) and
// sum_c ends_of_c R_c. They depend on nSM, not nV: computed once per (M_SM, nSM) and group,
// when the group first survives its group bound.
struct KWeights {
  double interior[2] = {0, 0};
  double ends = 0;
  double same = 0;  // interior[0] + interior[1] (the weight of same-colors groups)
};
// Per instance, valid for one (M_SM, nSM): per group its rounds bound and the tail bound
// of the rest of its tT (GroupBound), KWeights per distinct k (computed for a group when
// `weights[group]` is 0).
struct RoundsCache {
  std::vector<GroupBound> rounds;
  std::vector<GroupBound> rest;
  std::vector<GroupBound> block_min;  // per aligned block of kScanBlock groups (scan_groups)
  std::vector<GroupBound> block2_min;  // per aligned block of kScanBlock2 groups
  std::vector<char> weights;
  std::vector<KWeights> k;
  void clear() {
    rounds.clear();
    rest.clear();
    block_min.clear();
    block2_min.clear();
    weights.clear();
    k.clear();
  }
};

template <class RoundsOf>
void k_weights(const TileSet& ts, const Group& g, const ExactGeometry& geo,
               const RoundsOf& rounds_of, KWeights* weights) {
  for (std::uint32_t q = g.k_begin; q < g.k_end; ++q) {
    KWeights w;
    for (int c = 0; c < 2; ++c) {
      if (geo.n[c] == 0) continue;
      const double rounds = rounds_of(static_cast<double>(geo.n[c]), ts.k_values[q]);
      w.interior[c] = static_cast<double>(geo.count[c]) * rounds;
      w.ends += geo.ends_of[c] * rounds;
    }
    w.same = w.interior[0] + w.interior[1];
    weights[q] = w;
  }
}

template <class RoundsOf>
RoundsTerms rounds_terms(const TileSet& ts, const Group& g, const ExactGeometry& geo,
                         const RoundsOf& rounds_of) {
  RoundsTerms r;
  r.s = 0;
  double b = 0;
  for (int c = 0; c < 2; ++c) {
    if (geo.n[c] == 0) continue;
    const double n_c = static_cast<double>(geo.n[c]);
    // k_values ascending, and ceil(n / (k nSM)) k >= k: no k >= the least so far lowers it.
    // Nor does any k once the least is ceil(n / nSM) (the k = 1 value): ceil(n / (k nSM)) k
    // >= n / nSM is an integer (issue 15, sixth round).
    const double least = rounds_of(n_c, 1);
    double rk = std::numeric_limits<double>::infinity();
    for (std::uint32_t q = g.k_begin; q < g.k_end; ++q) {
      const i64 k = ts.k_values[q];
      if (static_cast<double>(k) >= rk) break;
      rk = std::min(rk, rounds_of(n_c, k) * static_cast<double>(k));
      if (rk <= least) break;
    }
    const double count = static_cast<double>(geo.count[c]);
    r.a += rk * (count * geo.sum_w[c] + geo.ends_of[c] * geo.sum_w_half);
    b += rk * (count + geo.ends_of[c]);
    r.s += count + geo.ends_of[c];
  }
  r.b = b * static_cast<double>(g.tS1 + 2 * g.tT);
  return r;
}

// The `exact` variant (docs/codesign.md, "Exact pruning", where the bounds are derived).
// Only the interior wavefronts are bounded (the others cost >= 0). For one of them, with
// R = ceil(n / (k nSM)) rounds, >= s_min nonempty sub-tiles on every row, N_full sub-tiles
// full on every row costing c_full each (exact F when S1 >= 2P - 1), and the others at least
// their points / nV and one step per row each:
//   k > 1: T_i >= m' + k (N_full max(m', c_full) + max((s_min - N_full) m', rest)),
//   k = 1: T_i >= s_min m' + N_full c_full + rest,
// and T_alg >= sum over the interior wavefronts of (R T_i + T_sync). A group of tiles with
// equal (tT, tS1) is first bounded with R k >= max(k_min, n / nSM), no ceilings, and the
// larger of the compute and transfer floors; if that does not prune it, with the same
// floors and R k >= the least ceil(n / (k nSM)) k over the group's distinct k (the rounds'
// granularity, which the first form misses).
void search_exact(const TileSet& ts, const Instance& in, const MachineParams& m, const Design& d,
                  const tm::GpuParams& gpu, bool prune, Best& best,
                  const std::vector<ExactGeometry>* geometry, const std::vector<TileAux>* aux,
                  const GroupTails* tails, RoundsCache* rounds_cache,
                  std::vector<double>* steps_cache, detail::BoundAudit* audit = nullptr) {
  // With an audit (tests), nothing is pruned: every bound is computed, every tile evaluated,
  // and each bound that covers a tile is compared with the tile's T_alg.
  // The incumbent, kept in a local (refreshed after every offer) so that it stays in a
  // register across the stores of the loops.
  double incumbent = best.talg;
  const bool auditing = audit != nullptr;
  auto prunes = [&](double lb) { return !auditing && lb * kSafety > incumbent; };
  double group_lb = 0;  // audit: the largest group bound of the current group
  // Bounds computed, counted in a local (added to best.bounds at the end) so that the count
  // stays in a register across the stores of the loops.
  i64 n_bounds = 0;
  const double C = in.stencil.c_iter_s;
  const double nsm = static_cast<double>(d.n_sm);
  const double nv = static_cast<double>(d.n_v);
  double Q = static_cast<double>(in.size.space[1]);
  if (ts.dims == 3) Q *= static_cast<double>(in.size.space[2]);
  // Multiplications instead of divisions in the bounds: a relative error of an ulp or two,
  // far inside the 1e-12 margin (kSafety) with which a bound prunes.
  const double inv_nv = 1.0 / nv;
  const costmetrics::detail::Reciprocal recip_nv(d.n_v);  // exact ceil(x / nV), no division
  // Eq. A.2's rounds ceil(ceil(n/k)/nSM) = ceil(n / (k nSM)) for every tile, by the
  // reciprocal of k nSM, tabulated per k.
  thread_local std::vector<double> per_k;
  per_k.resize(static_cast<std::size_t>(m.max_blocks_per_sm) + 1);
  for (i64 k = 1; k <= m.max_blocks_per_sm; ++k) {
    per_k[static_cast<std::size_t>(k)] = 1.0 / static_cast<double>(k * d.n_sm);
  }
  auto rounds_of = [&](double n, i64 k) {
    return ceil_quotient(n, per_k[static_cast<std::size_t>(k)]);
  };
  const double inv_nsm = 1.0 / nsm;
  const double cq_nv = C * Q * inv_nv;                          // C_iter Q / nV
  const double transfer_per_row = 2.0 * Q * m.l_s_per_word;     // 2 Q L
  auto tail_lb = [&](const TailTerms& a) {
    return m.t_sync_s * a.s +
           std::max(std::max(cq_nv * a.a1, transfer_per_row * a.a2),
                    inv_nsm * std::max(cq_nv * a.a3, transfer_per_row * a.a4));
  };
  if (prune && rounds_cache->rounds.size() != ts.groups.size()) {
    // Every group's two bounds (the searches visit almost every group), per nSM.
    rounds_cache->rounds.resize(ts.groups.size());
    rounds_cache->rest.resize(ts.groups.size());
    rounds_cache->weights.assign(ts.groups.size(), 0);
    rounds_cache->k.assign(ts.k_values.size(), KWeights{});
    for (std::uint32_t gi = 0; gi < ts.groups.size(); ++gi) {
      const TailTerms& t = tails->row[gi];
      const RoundsTerms r = rounds_terms(ts, ts.groups[gi], (*geometry)[gi], rounds_of);
      GroupBound& rest = rounds_cache->rest[gi];
      rest.s = m.t_sync_s * t.s;
      rest.a = std::max(t.a1, inv_nsm * t.a3);
      rest.b = std::max(transfer_per_row * t.a2, inv_nsm * (transfer_per_row * t.a4));
      GroupBound& b = rounds_cache->rounds[gi];
      b.s = m.t_sync_s * r.s;
      b.a = r.a;
      b.b = transfer_per_row * r.b;
    }
    const std::size_t n_blocks = (ts.groups.size() + kScanBlock - 1) / kScanBlock;
    const double inf = std::numeric_limits<double>::infinity();
    rounds_cache->block_min.assign(n_blocks, GroupBound{inf, inf, inf});
    for (std::uint32_t gi = 0; gi < ts.groups.size(); ++gi) {
      GroupBound& m_b = rounds_cache->block_min[gi / kScanBlock];
      const GroupBound& b = rounds_cache->rounds[gi];
      m_b.s = std::min(m_b.s, b.s);
      m_b.a = std::min(m_b.a, b.a);
      m_b.b = std::min(m_b.b, b.b);
    }
    rounds_cache->block2_min.assign((n_blocks + kScanRatio - 1) / kScanRatio, GroupBound{inf, inf, inf});
    for (std::size_t q = 0; q < n_blocks; ++q) {
      GroupBound& m_b = rounds_cache->block2_min[q / kScanRatio];
      const GroupBound& b = rounds_cache->block_min[q];
      m_b.s = std::min(m_b.s, b.s);
      m_b.a = std::min(m_b.a, b.a);
      m_b.b = std::min(m_b.b, b.b);
    }
  }
  if (prune && steps_cache->size() != ts.inner.size()) steps_cache->assign(ts.inner.size(), -1.0);
  // The groups of one tT at a time: groups [tT_begin[row], tT_begin[row + 1]).
  const std::size_t n_rows = ts.tT_begin.size() - 1;
  for (std::size_t row = 0; row < n_rows; ++row) {
   const std::uint32_t row_end = ts.tT_begin[row + 1];
   double lb_all = 0;
   if (prune && ts.tT_begin[row] < row_end) {
     // Tail bound (build_group_tails): every group from this tT on.
     ++n_bounds;
     lb_all = tail_lb(tails->all[row]);
     if (prunes(lb_all)) break;
   }
   const GroupBound* rounds = prune ? rounds_cache->rounds.data() : nullptr;
   const GroupBound* rest = prune ? rounds_cache->rest.data() : nullptr;
   const GroupBound* block_min = prune ? rounds_cache->block_min.data() : nullptr;
   const GroupBound* block2_min = prune ? rounds_cache->block2_min.data() : nullptr;
   for (std::uint32_t gi = ts.tT_begin[row]; gi < row_end; ++gi) {
    if (prune && !auditing) {
      // The groups that their bounds prune, in a tight loop (scan_groups): two bounds
      // each; the group it stops at had one (its tail bound pruned the rest of the tT) or
      // two (it survives both, and is expanded below).
      bool rest_pruned = false;
      const std::uint32_t stop = scan_groups(rounds, rest, block_min, block2_min, gi, row_end, cq_nv, incumbent,
                                                   &rest_pruned);
      n_bounds += 2 * static_cast<i64>(stop - gi);
      gi = stop;
      if (rest_pruned) {
        ++n_bounds;
        break;
      }
      if (gi == row_end) break;
      n_bounds += 2;
    } else if (prune) {
      // Tail bound of the rest of this tT (GroupBound).
      ++n_bounds;
      const double lb_row = rest[gi].lb(cq_nv);
      if (prunes(lb_row)) break;
      // R T_i >= R k work for every tile (T_i >= k work for k > 1, >= work for k = 1), and
      // R k = ceil(n / (k nSM)) k takes only the values of the group's distinct k. Its
      // terms depend on nSM, not nV: cached per thread across the designs of one M_SM and
      // nSM (RoundsTerms, GroupBound).
      ++n_bounds;
      const double lb = rounds[gi].lb(cq_nv);
      if (auditing) {
        group_lb = std::max(std::max(gi == ts.tT_begin[row] ? lb_all : 0.0, lb_row), lb);
      }
      if (prunes(lb)) continue;
    }
    const Group& g = ts.groups[gi];
    const i64 tT = g.tT;
    const ExactGeometry* geo = prune ? &(*geometry)[gi] : nullptr;
    const bool wide_rows = tm::detail::whole_rows_fit(in.size.space[0], g.tS1, tT);
    if (prune && rounds_cache->weights[gi] == 0) {
      k_weights(ts, g, *geo, rounds_of, rounds_cache->k.data());
      rounds_cache->weights[gi] = 1;
    }
    // Per interior color: C_iter sum_w / nV and C_iter rows (the two floors of the cost of
    // the sub-tiles that are not full), and whether both colors have the same rows (then the
    // tile time below is the same for both, only the rounds differ).
    double points_cost[2] = {0, 0};
    double rows_cost[2] = {0, 0};
    double points_cost_half = 0;
    double rows_cost_half = 0;
    const bool ends_group = prune && geo->ends;
    if (prune) {
      for (int c = 0; c < 2; ++c) {
        points_cost[c] = C * geo->sum_w[c] * inv_nv;
        rows_cost[c] = C * geo->rows[c];
      }
      points_cost_half = C * geo->sum_w_half * inv_nv;
      rows_cost_half = C * static_cast<double>(tT / 2);
    }
    const bool same_colors_group = prune && geo->n[0] > 0 && geo->n[1] > 0 &&
                             geo->sum_w[0] == geo->sum_w[1] && geo->rows[0] == geo->rows[1];
    const double tT_d = static_cast<double>(tT);
    const double hex_points_per_area = tT_d * static_cast<double>(g.tS1 + tT / 2 - 1);
    const double tau_rows = m.tau_sync_s * tT_d;               // tT tau_sync
    const double tau_half_rows = m.tau_sync_s * (0.5 * tT_d);  // h tau_sync
    // The bound's weights of the last k seen (KWeights, with the rounds R_c =
    // ceil(ceil(n_c/k)/nSM), exact integers in double): the tile time of color c counts
    // count_c R_c times (interior) and ends_of_c R_c times (first and last wavefronts);
    // T_sync once per wavefront bounded.
    i64 rounds_k = 0;
    double weight_c[2] = {0, 0};  // count_c R_c (0 for a color without tiles)
    double weight_same = 0;       // weight_0 + weight_1
    double weight_ends = 0;       // sum_c ends_of_c R_c
    double sync_lb = 0;           // T_sync times the wavefronts bounded
    // The lanes of the same-colors, end-wavefronts bound: (weight_same, weight_ends), the
    // points and rows costs and the tau_sync terms of (interior, first and last).
    Lanes2 weights2 = lanes_of(0.0, 0.0);
    const Lanes2 points2 = lanes_of(points_cost[0], points_cost_half);
    const Lanes2 rows2 = lanes_of(rows_cost[0], rows_cost_half);
    const Lanes2 tau2 = lanes_of(tau_rows, tau_half_rows);
    if (prune) {
      double n_sync = 0;
      for (int c = 0; c < 2; ++c) {
        if (geo->n[c] == 0) continue;
        n_sync += static_cast<double>(geo->count[c]);
        if (ends_group) n_sync += geo->ends_of[c];
      }
      sync_lb = m.t_sync_s * n_sync;
    }
    // The tile loop with `wide`, `same_colors` and `ends` known at compile time (fixed per
    // group; as runtime flags they cost a test and a select per tile bound): the same
    // operations in the same order on every path.
    auto tile_loop = [&](auto wide_c, auto same_c, auto ends_c) CODESIGN_LAMBDA_INLINE {
      constexpr bool wide = decltype(wide_c)::value;
      constexpr bool same_colors = decltype(same_c)::value;
      constexpr bool ends = decltype(ends_c)::value;
      for (std::uint32_t i = g.begin; i < g.end; ++i) {
        if (prune) {
          ++n_bounds;
          const TileAux& t = (*aux)[i];  // the bound's fields of ts.inner[i]
          if (same_colors && ends) {
            // Both weights loaded for every tile: k changes at about every other tile, an
            // unpredictable branch.
            const KWeights& w = rounds_cache->k[t.k_slot];
            weights2 = lanes_of(w.same, w.ends);
          } else if (t.k != rounds_k) {
            rounds_k = t.k;
            const KWeights& w = rounds_cache->k[t.k_slot];
            weight_c[0] = w.interior[0];
            weight_c[1] = w.interior[1];
            weight_ends = w.ends;
            weight_same = w.same;
          }
          const TileAux& a = t;
          const double s_min = a.s_min;
          // Sub-tiles full on every row of an interior wavefront, and the cost c_full of one:
          // C_iter F + tT tau_sync with F = sum_r ceil(W(r) area / nV), twice the paper's
          // half-hexagon sum (docs/codesign.md). First F's cheap lower bound
          // max(points / nV, one step per row); if the tile survives, the exact F.
          // W(r) is the whole row (the N_full sub-tiles' exact cost) only when S1 >= 2P - 1.
          // (Q - 0 area = Q and s_min - 0 = s_min exactly when no sub-tile counts as full.)
          const double n_full = wide ? a.n_full : 0.0;
          const double area = a.area;
          const double kd = static_cast<double>(t.k);
          const double other_points = wide ? a.other_points : Q;
          const double other_subtiles = wide ? a.other_subtiles : s_min;
          double steps_full = std::max(area * hex_points_per_area * inv_nv, tT_d);
          // T_i of Eqs. A.17 / A.29-A.30 bounded below, for one color.
          auto tile_time_of = [&](double pc, double rc, double c_full) {
            // The full sub-tiles cost c_full; the others at least their points / nV, and one
            // step per row on each of the at least s_min - N_full that have a point there.
            const double rest = std::max(pc * other_points, rc * other_subtiles);
            if (t.k == 1) return s_min * t.m_prime + n_full * c_full + rest;
            return t.m_prime + kd * (n_full * std::max(t.m_prime, c_full) +
                                     std::max(other_subtiles * t.m_prime, rest));
          };
          auto tile_time = [&](int c, double c_full) {
            return tile_time_of(points_cost[c], rows_cost[c], c_full);
          };
          // With the same colors and the end wavefronts (most expanded groups), the two
          // tile_time_of of a stage lane by lane: lane 0 tile_time(0, c_full), lane 1 the
          // half rows' (the same operations per lane).
          Lanes2 rest2 = lanes_of(0.0, 0.0);
          double other_m = 0;
          if (same_colors && ends) {
            rest2 = lanes_max(points2 * other_points, rows2 * other_subtiles);
            other_m = other_subtiles * t.m_prime;
          }
          bool pruned = false;
          double tile_lb = group_lb;
          for (int stage = 0; stage < 2; ++stage) {
            if (stage == 1) {
              if (n_full == 0) break;  // the exact step count would change nothing
              ++n_bounds;
              // F depends on the tile and nV only: shared by the instances of one design.
              double& f = (*steps_cache)[i];
              if (f < 0) {
                f = static_cast<double>(
                    2 * costmetrics::detail::hexagon_row_steps(g.tS1, tT, ts.inner[i].area,
                                                               recip_nv));
              }
              steps_full = f;
            }
            double lb = sync_lb;
            if (same_colors && ends) {
              // c_full and c_half = C_iter F / 2 + h tau_sync (below), then T_i per lane.
              const Lanes2 c2 = C * lanes_of(steps_full, 0.5 * steps_full) + tau2;
              Lanes2 t2;
              if (t.k == 1) {
                t2 = s_min * t.m_prime + n_full * c2 + rest2;
              } else {
                t2 = t.m_prime + kd * (n_full * lanes_max(lanes_of(t.m_prime, t.m_prime), c2) +
                                       lanes_max(lanes_of(other_m, other_m), rest2));
              }
              const Lanes2 w2 = weights2 * t2;
              lb += w2[0];
              lb += w2[1];
              tile_lb = std::max(tile_lb, lb);
              if (prunes(lb)) {
                pruned = true;
                break;
              }
              continue;
            }
            const double c_full = C * steps_full + tau_rows;
            // sum over the colors with tiles of count_c (R_c T_i + T_sync), R_c =
            // ceil(ceil(n/k)/nSM) exact integers in double, as weights (above).
            if (same_colors) {
              lb += weight_same * tile_time(0, c_full);
            } else {
              for (int c = 0; c < 2; ++c) {
                if (geo->n[c] == 0) continue;
                lb += weight_c[c] * tile_time(c, c_full);
              }
            }
            if (ends) {
              // First and last wavefront: the half-hexagon rows; a full sub-tile costs
              // C_iter F / 2 + h tau_sync (F is symmetric in r and tT - 1 - r).
              const double c_half = C * (0.5 * steps_full) + tau_half_rows;
              lb += weight_ends * tile_time_of(points_cost_half, rows_cost_half, c_half);
            }
            tile_lb = std::max(tile_lb, lb);
            if (prunes(lb)) {
              pruned = true;
              break;
            }
          }
          if (pruned) continue;
          if (audit != nullptr) audit->bound = tile_lb;
        }
        const Inner& t = ts.inner[i];
        const double v = exact_talg(gpu, in, tT, g.tS1, t);
        if (audit != nullptr) {
          ++audit->tiles;
          if (audit->bound * kSafety > v) ++audit->violations;
          audit->worst_ratio = std::max(audit->worst_ratio, audit->bound / v);
        }
        ++best.evaluated;
        best.offer(v, g.tS1, t.s2, t.s3, tT, gi, i);
        incumbent = best.talg;
      }
    };
    using yes = std::true_type;
    using no = std::false_type;
    if (wide_rows) {
      if (same_colors_group) {
        if (ends_group) tile_loop(yes{}, yes{}, yes{}); else tile_loop(yes{}, yes{}, no{});
      } else {
        if (ends_group) tile_loop(yes{}, no{}, yes{}); else tile_loop(yes{}, no{}, no{});
      }
    } else {
      if (same_colors_group) {
        if (ends_group) tile_loop(no{}, yes{}, yes{}); else tile_loop(no{}, yes{}, no{});
      } else {
        if (ends_group) tile_loop(no{}, no{}, yes{}); else tile_loop(no{}, no{}, no{});
      }
    }
   }
  }
  best.bounds += n_bounds;
}

}  // namespace

void MachineParams::validate() const {
  require_finite_nonneg(l_s_per_word, "MachineParams.l_s_per_word");
  require_finite_nonneg(tau_sync_s, "MachineParams.tau_sync_s");
  require_finite_nonneg(t_sync_s, "MachineParams.t_sync_s");
  if (max_blocks_per_sm < 1 || max_blocks_per_sm > 1024) {
    throw std::invalid_argument("MachineParams.max_blocks_per_sm: must be in [1, 1024], got " +
                                std::to_string(max_blocks_per_sm));
  }
}

void ThreadLimits::validate() const {
  auto in_range = [](i64 v, i64 lo, i64 hi, const char* name, const char* why) {
    if (v < lo || v > hi) {
      throw std::invalid_argument(std::string("ThreadLimits.") + name + ": must be in [" +
                                  std::to_string(lo) + ", " + std::to_string(hi) + "]" + why +
                                  ", got " + std::to_string(v));
    }
  };
  constexpr i64 kMax = i64{1} << 20;
  in_range(max_threads_per_block, kWarp, kMax, "max_threads_per_block",
           " (the smallest tile is a block of one warp, Eq. A.32)");
  in_range(max_threads_per_sm, kWarp, kMax, "max_threads_per_sm",
           " (the smallest tile is a block of one warp, Eq. A.32)");
  in_range(registers_per_thread, 1, i64{1} << 16, "registers_per_thread", "");
  if (registers_per_sm < kWarp * registers_per_thread || registers_per_sm > (i64{1} << 32)) {
    throw std::invalid_argument(
        "ThreadLimits.registers_per_sm: must be in [32 * registers_per_thread, 2^32] = [" +
        std::to_string(kWarp * registers_per_thread) + ", " + std::to_string(i64{1} << 32) +
        "] (one warp's registers), got " + std::to_string(registers_per_sm));
  }
}

i64 ThreadLimits::blocks_per_sm(i64 threads) const {
  if (threads > max_threads_per_block) return 0;
  // threads <= 2^20 and registers_per_thread <= 2^16: the product fits.
  return std::min(max_threads_per_sm / threads, registers_per_sm / (registers_per_thread * threads));
}

void Design::validate() const {
  if (n_sm < 1 || n_sm > 4096) {
    throw std::invalid_argument("Design.n_sm: must be in [1, 4096], got " + std::to_string(n_sm));
  }
  if (n_v < 1 || n_v > 65536) {
    throw std::invalid_argument("Design.n_v: must be in [1, 65536], got " + std::to_string(n_v));
  }
  if (smem_kb < 1 || smem_kb > (1 << 20)) {
    throw std::invalid_argument("Design.smem_kb: must be in [1, 2^20], got " +
                                std::to_string(smem_kb));
  }
  require_finite_nonneg(area_mm2, "Design.area_mm2");
}

HardwareSpace default_hardware_space() {
  HardwareSpace s;
  for (i64 n = 2; n <= 32; n += 2) s.n_sm.push_back(n);        // C.16, Sec. C.3.2
  for (i64 v = 32; v <= 2048; v += 32) s.n_v.push_back(v);     // C.14
  s.smem_kb = {12, 24, 36};                                    // Sec. C.3.2
  for (i64 kb = 48; kb <= 480; kb += 48) s.smem_kb.push_back(kb);  // C.15
  return s;
}

std::vector<Design> enumerate_designs(const HardwareSpace& space, const area::Coefficients& c,
                                      double area_min_mm2, double area_max_mm2,
                                      bool rounded_form, const area::RoundedCoefficients* rounded,
                                      double regs_kb_per_vu) {
  if (!std::isfinite(area_min_mm2) || !std::isfinite(area_max_mm2) || area_min_mm2 < 0 ||
      area_max_mm2 <= 0) {
    throw std::invalid_argument("area range: bounds must be finite, area_min >= 0 and area_max > 0");
  }
  if (area_min_mm2 > area_max_mm2) {
    throw std::invalid_argument("area range: area_min_mm2 = " + format_value(area_min_mm2) +
                                " exceeds area_max_mm2 = " + format_value(area_max_mm2));
  }
  if (space.n_sm.empty() || space.n_v.empty() || space.smem_kb.empty()) {
    throw std::invalid_argument("hardware space: every parameter needs at least one value");
  }
  for (i64 n : space.n_sm) {
    if (n < 2 || n % 2 != 0 || n > 4096) {
      throw std::invalid_argument("n_sm: must be even and in [2, 4096] (C.16), got " +
                                  std::to_string(n));
    }
  }
  for (i64 v : space.n_v) {
    if (v < kWarp || v % kWarp != 0 || v > 65536) {
      throw std::invalid_argument("n_v: must be a multiple of 32 in [32, 65536] (C.14), got " +
                                  std::to_string(v));
    }
  }
  for (i64 kb : space.smem_kb) {
    if (!valid_smem_kb(kb) || kb > (1 << 20)) {
      throw std::invalid_argument(
          "smem_kb: must be 12, 24, 36 or a multiple of 48 (C.15, Sec. C.3.2), got " +
          std::to_string(kb));
    }
  }
  // A candidate given twice gave the same design twice (best_tiles refuses such spaces too).
  for (const auto& [values, name] : {std::pair{&space.n_sm, "n_sm"}, std::pair{&space.n_v, "n_v"},
                                     std::pair{&space.smem_kb, "smem_kb"}}) {
    std::vector<i64> sorted = *values;
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end()) {
      throw std::invalid_argument(std::string(name) + ": candidate " + std::to_string(*twice) +
                                  " appears twice");
    }
  }
  if (rounded_form && rounded == nullptr) {
    throw std::invalid_argument("enumerate_designs: rounded coefficients missing");
  }
  std::vector<Design> out;
  for (i64 kb : space.smem_kb) {
    for (i64 n : space.n_sm) {
      for (i64 v : space.n_v) {
        area::Config g;
        g.n_sm = n;
        g.n_v = v;
        g.smem_kb = static_cast<double>(kb);
        g.regs_kb_per_vu = regs_kb_per_vu;
        const double a = rounded_form ? area::rounded(*rounded, g) : area::structural(c, g).total_mm2;
        if (a >= area_min_mm2 && a <= area_max_mm2) out.push_back({n, v, kb, a});
      }
    }
  }
  if (out.empty()) {
    throw std::invalid_argument("area range [" + format_value(area_min_mm2) + ", " +
                                format_value(area_max_mm2) +
                                "] mm^2 holds no design of the hardware space");
  }
  return out;
}

tm::GpuParams design_gpu(const Design& d, const MachineParams& m, const SweepOptions& options) {
  tm::GpuParams g;
  g.n_sm = static_cast<int>(d.n_sm);
  g.n_v = static_cast<int>(d.n_v);
  g.smem_per_sm_words = static_cast<double>(d.smem_kb) * kWordsPerKb;
  g.smem_per_block_words = block_limit_words(d.smem_kb, options);
  g.max_blocks_per_sm = static_cast<int>(m.max_blocks_per_sm);
  g.l_s_per_word = m.l_s_per_word;
  g.tau_sync_s = m.tau_sync_s;
  g.t_sync_s = m.t_sync_s;
  return g;
}

SweepOutput sweep(const std::vector<Design>& designs, const std::vector<Instance>& instances,
                  const MachineParams& machine, const SweepOptions& options,
                  const std::function<void(std::size_t)>& progress) {
  machine.validate();
  if (designs.empty()) throw std::invalid_argument("sweep: no designs");
  if (instances.empty()) throw std::invalid_argument("sweep: empty workload (no instances)");
  // Checked whatever the block rule: an unused cap is still stored with the sweep's options.
  // At least one word: a smaller cap made every design's block limit fail the time model's
  // check, whose message named smem_per_block_words instead of this argument.
  if (!(options.block_cap_kb * kWordsPerKb >= 1.0) || !std::isfinite(options.block_cap_kb)) {
    throw std::invalid_argument("block_cap_kb: must be finite and hold at least one word (" +
                                format_value(1.0 / kWordsPerKb) + " kB), got " +
                                format_value(options.block_cap_kb));
  }
  // As every batch of the time model: a negative count read as "all cores" and a huge one
  // started a thread per design.
  require_in_range(options.n_threads, 0, tm::kMaxThreads, "threads");
  for (const Design& d : designs) d.validate();
  if (options.thread_limits) options.thread_limits->validate();
  const ThreadLimits* threads = options.thread_limits ? &*options.thread_limits : nullptr;
  for (std::size_t j = 0; j < instances.size(); ++j) {
    const Instance& in = instances[j];
    if (in.stencil.n_space_dims != 2 && in.stencil.n_space_dims != 3) {
      throw std::invalid_argument("instances[" + std::to_string(j) +
                                  "]: stencils must have 2 or 3 space dimensions");
    }
    tm::GpuParams probe = design_gpu(designs[0], machine, options);
    tm::validate_inputs(probe, in.stencil, in.size);
  }

  SweepOutput out;
  out.n_designs = designs.size();
  out.n_instances = instances.size();
  const std::size_t cells = out.n_designs * out.n_instances;
  out.talg_s.assign(cells, 0.0);
  out.tiles.assign(cells * 4, 0);
  out.n_feasible.assign(cells, 0);
  out.n_evaluated.assign(cells, 0);

  // One tile set per (M_SM, dimensionality), shared read-only by the threads (the thread
  // limits are the same for every design of a sweep, so they need not be in the key).
  std::map<std::pair<i64, int>, std::unique_ptr<TileSet>> tile_sets;
  for (const Design& d : designs) {
    for (int dims : {2, 3}) {
      bool used = false;
      for (const Instance& in : instances) used = used || in.stencil.n_space_dims == dims;
      if (!used) continue;
      auto key = std::make_pair(d.smem_kb, dims);
      if (tile_sets.count(key) == 0) {
        const double words = static_cast<double>(d.smem_kb) * kWordsPerKb;
        tile_sets[key] = std::make_unique<TileSet>(
            build_tiles(dims, words, block_limit_words(d.smem_kb, options), machine, threads));
      }
    }
  }

  // Instances of one shape (dimensions, S1, S2, S3, T; the workloads run each size with
  // several stencils) share the exact search's tables: the geometry and tail terms depend
  // on the tile set, S1 and T, the group bounds also on Q = S2 (S3) and the machine's L and
  // T_sync, the same for every design, and on nSM, not on the stencil (C_iter enters at
  // search time). shape_of[j]: the first instance of j's shape.
  std::vector<std::size_t> shape_of(instances.size());
  for (std::size_t j = 0; j < instances.size(); ++j) {
    shape_of[j] = j;
    const Instance& a = instances[j];
    for (std::size_t q = 0; q < j; ++q) {
      const Instance& b = instances[q];
      if (a.stencil.n_space_dims == b.stencil.n_space_dims && a.size.space == b.size.space &&
          a.size.time_steps == b.size.time_steps) {
        shape_of[j] = q;
        break;
      }
    }
  }
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<i64> n_bounds{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<bool> failed{false};
  auto worker = [&]() {
    try {
      // Designs are claimed in blocks of neighbours (same M_SM, adjacent nV), and each
      // search starts from the previous design's optimal tile: a good incumbent makes the
      // bounds prune more, and never changes the result (ties resolve by tile order).
      std::vector<Best> previous(instances.size());
      i64 previous_smem = -1;
      // Exact variant: interior-wavefront geometry per (instance, group) of the current
      // M_SM's tile sets, computed once per thread and M_SM (it does not depend on nSM, nV).
      std::vector<std::vector<ExactGeometry>> geometry(instances.size());
      // ... their tail bounds' terms (build_group_tails) ...
      std::vector<GroupTails> tails(instances.size());
      // ... the group rounds bound's terms per group, which depend on nSM (search_exact):
      // valid for rk_nsm ...
      std::vector<RoundsCache> rounds_cache(instances.size());
      i64 rk_nsm = -1;
      // ... and the tiles' hardware-independent terms per inner extent (S2, S3).
      std::map<std::pair<i64, i64>, std::vector<TileAux>> tile_aux;
      i64 geometry_smem = -1;
      // Per design of the current run (below): its GPU, whether it starts warm, and the
      // exact step count F of the full sub-tiles per tile, which depends on nV and the tile
      // only: valid for that design, per tile set (2D, 3D).
      std::vector<tm::GpuParams> run_gpu;
      std::vector<char> run_warm;
      std::vector<std::vector<double>> run_steps;  // [2 k + dims - 2] for design k of the run
      for (;;) {
        const std::size_t block = next.fetch_add(kBlock);
        if (block >= designs.size()) break;
        const std::size_t block_end = std::min(designs.size(), block + kBlock);
        // The block in runs of designs sharing (M_SM, nSM), each run instance by instance,
        // design by design within an instance: the per-instance tables of the exact search
        // (geometry, tail and rounds terms, ~1 MB per instance at M_SM = 480 kB) then stay
        // in cache across the run's designs instead of being streamed from memory once per
        // design and instance. Every search is the one the design-major order ran, with the
        // same warm start (the previous design of this thread, same instance), so the
        // results, evaluations and bounds are unchanged.
        for (std::size_t i0 = block; i0 < block_end;) {
          std::size_t i1 = i0 + 1;
          while (i1 < block_end && designs[i1].smem_kb == designs[i0].smem_kb &&
                 designs[i1].n_sm == designs[i0].n_sm) {
            ++i1;
          }
          const std::size_t n_run = i1 - i0;
          run_gpu.resize(n_run);
          run_warm.resize(n_run);
          if (run_steps.size() < 2 * n_run) run_steps.resize(2 * n_run);
          for (std::size_t k = 0; k < n_run; ++k) {
            const Design& d = designs[i0 + k];
            run_warm[k] = d.smem_kb == previous_smem ? 1 : 0;
            previous_smem = d.smem_kb;
            run_gpu[k] = design_gpu(d, machine, options);
            run_steps[2 * k].clear();  // per design (nV)
            run_steps[2 * k + 1].clear();
          }
          const Design& d0 = designs[i0];
          if (options.variant != tm::Variant::paper && options.prune) {
            if (geometry_smem != d0.smem_kb) {
              for (auto& v : geometry) v.clear();
              for (auto& v : tails) v = GroupTails{};
              rk_nsm = -1;
              tile_aux.clear();
              geometry_smem = d0.smem_kb;
            }
            if (rk_nsm != d0.n_sm) {
              for (auto& v : rounds_cache) v.clear();
              rk_nsm = d0.n_sm;
            }
          }
          for (std::size_t j = 0; j < instances.size(); ++j) {
            const Instance& in = instances[j];
            const TileSet& ts = *tile_sets.at({d0.smem_kb, in.stencil.n_space_dims});
            std::vector<TileAux>* aux = nullptr;
            const std::size_t shape = shape_of[j];
            if (options.variant != tm::Variant::paper && options.prune) {
              if (geometry[shape].empty()) {
                geometry[shape].reserve(ts.groups.size());
                for (const Group& g : ts.groups) {
                  geometry[shape].push_back(
                      exact_geometry(in.size.space[0], in.size.time_steps, g.tS1, g.tT));
                }
                build_group_tails(ts, geometry[shape], tails[shape]);
              }
              aux = &tile_aux[{in.size.space[1], in.size.space[2]}];
              if (aux->empty()) build_tile_aux(ts, in.size, *aux);
            }
            for (std::size_t k = 0; k < n_run; ++k) {
              const std::size_t i = i0 + k;
              const Design& d = designs[i];
              const tm::GpuParams& gpu = run_gpu[k];
              Best best;
              if (run_warm[k] != 0 && options.prune) {
                const Best& p = previous[j];
                const Group& g = ts.groups[p.group];
                const Inner& t = ts.inner[p.inner];
                double v = 0;
                if (options.variant == tm::Variant::paper) {
                  v = paper_talg(in, machine, d.n_sm, d.n_v, g.tT, g.tS1, t,
                                 n_wavefronts_paper(in.size.time_steps, g.tT),
                                 ceil_div(in.size.space[0], 2 * g.tS1 + g.tT));
                } else {
                  v = exact_talg(gpu, in, g.tT, g.tS1, t);
                }
                ++best.evaluated;
                best.offer(v, g.tS1, t.s2, t.s3, g.tT, p.group, p.inner);
              }
              if (options.variant == tm::Variant::paper) {
                search_paper(ts, in, machine, d, options.prune, best);
              } else {
                search_exact(ts, in, machine, d, gpu, options.prune, best, &geometry[shape], aux,
                             &tails[shape], &rounds_cache[shape],
                             &run_steps[2 * k + (ts.dims - 2)]);
              }
              if (!std::isfinite(best.talg)) {
                throw std::invalid_argument(
                    "no feasible tile for instance " + std::to_string(j) + " on design (n_sm=" +
                    std::to_string(d.n_sm) + ", n_v=" + std::to_string(d.n_v) +
                    ", smem_kb=" + std::to_string(d.smem_kb) + ")");
              }
              const std::size_t cell = i * instances.size() + j;
              out.talg_s[cell] = best.talg;
              out.tiles[cell * 4 + 0] = best.tS1;
              out.tiles[cell * 4 + 1] = best.s2;
              out.tiles[cell * 4 + 2] = best.s3;
              out.tiles[cell * 4 + 3] = best.tT;
              out.n_feasible[cell] = ts.n_tiles;
              out.n_evaluated[cell] = best.evaluated;
              n_bounds += best.bounds;
              previous[j] = best;
            }
          }
          done += n_run;
          i0 = i1;
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
      next = designs.size() + kBlock;
    }
  };
  const unsigned n_threads = std::min<unsigned>(resolve_threads(options.n_threads),
                                                static_cast<unsigned>(designs.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n_threads; ++t) pool.emplace_back(worker);
  if (progress) {
    // The calling thread reports progress while the workers run, then joins them. An
    // exception from the callback stops the workers and is rethrown after the joins.
    std::thread last(worker);
    std::size_t reported = 0;
    try {
      while (done.load() < designs.size() && !failed.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const std::size_t now = done.load();
        if (now != reported) {
          progress(now);
          reported = now;
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
      next = designs.size() + kBlock;
    }
    last.join();
    for (auto& t : pool) t.join();
    if (!failed.load() && done.load() != reported) progress(done.load());
  } else {
    worker();
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  out.n_bounds = n_bounds.load();
  return out;
}

std::vector<std::size_t> pareto_front(const std::vector<double>& area_mm2,
                                      const std::vector<double>& performance) {
  if (area_mm2.size() != performance.size()) {
    throw std::invalid_argument("pareto_front: area and performance must have the same length");
  }
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < area_mm2.size(); ++i) {
    if (!std::isfinite(area_mm2[i])) {
      throw std::invalid_argument("area_mm2[" + std::to_string(i) + "]: must be finite, got " +
                                  format_value(area_mm2[i]));
    }
    if (!std::isnan(performance[i])) order.push_back(i);
  }
  // Area ascending, then performance descending: a point is optimal iff its performance
  // exceeds that of every point before it.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (area_mm2[a] != area_mm2[b]) return area_mm2[a] < area_mm2[b];
    return performance[a] > performance[b];
  });
  std::vector<std::size_t> front;
  double best = -std::numeric_limits<double>::infinity();
  for (std::size_t i : order) {
    if (performance[i] > best) {
      front.push_back(i);
      best = performance[i];
    }
  }
  return front;
}

std::vector<double> workload_gflops(const std::vector<double>& talg_s, std::size_t n_designs,
                                    const std::vector<double>& flops,
                                    const std::vector<double>& weights) {
  const std::size_t n_inst = flops.size();
  if (weights.size() != n_inst) {
    throw std::invalid_argument("workload_gflops: flops and weights must have the same length");
  }
  if (n_inst == 0) throw std::invalid_argument("workload_gflops: empty workload");
  if (talg_s.size() != n_designs * n_inst) {
    throw std::invalid_argument("workload_gflops: talg_s must have n_designs x n_instances entries");
  }
  double total_weight = 0;
  for (std::size_t j = 0; j < n_inst; ++j) {
    if (!(weights[j] >= 0) || !std::isfinite(weights[j])) {
      throw std::invalid_argument("weights[" + std::to_string(j) + "]: must be finite and >= 0, got " +
                                  std::to_string(weights[j]));
    }
    if (!(flops[j] > 0) || !std::isfinite(flops[j])) {
      throw std::invalid_argument("flops[" + std::to_string(j) + "]: must be finite and > 0");
    }
    total_weight += weights[j];
  }
  if (!(total_weight > 0)) throw std::invalid_argument("weights: at least one must be positive");
  double work = 0;
  for (std::size_t j = 0; j < n_inst; ++j) work += weights[j] * flops[j];
  std::vector<double> out(n_designs);
  for (std::size_t i = 0; i < n_designs; ++i) {
    double s = 0;  // Eq. C.18: sum_j w_j T_j of design i (row i of talg_s)
    for (std::size_t j = 0; j < n_inst; ++j) s += talg_s[i * n_inst + j] * weights[j];
    if (!(s > 0) || !std::isfinite(s)) {
      throw std::invalid_argument("talg_s: weighted time of design " + std::to_string(i) +
                                  " is not finite and positive");
    }
    out[i] = work / s * 1e-9;
  }
  return out;
}

namespace detail {

BoundAudit audit_exact_bounds(const Design& d, const Instance& in, const MachineParams& m,
                              const SweepOptions& options) {
  m.validate();
  d.validate();
  const tm::GpuParams gpu = design_gpu(d, m, options);
  tm::validate_inputs(gpu, in.stencil, in.size);
  const int dims = in.stencil.n_space_dims;
  const TileSet ts =
      build_tiles(dims, static_cast<double>(d.smem_kb) * kWordsPerKb,
                  block_limit_words(d.smem_kb, options), m,
                  options.thread_limits ? &*options.thread_limits : nullptr);
  std::vector<ExactGeometry> geometry;
  for (const Group& g : ts.groups) {
    geometry.push_back(exact_geometry(in.size.space[0], in.size.time_steps, g.tS1, g.tT));
  }
  std::vector<TileAux> aux;
  build_tile_aux(ts, in.size, aux);
  GroupTails tails;
  build_group_tails(ts, geometry, tails);
  RoundsCache rounds_cache;
  std::vector<double> steps_cache;
  Best best;
  BoundAudit audit;
  search_exact(ts, in, m, d, gpu, true, best, &geometry, &aux, &tails, &rounds_cache,
               &steps_cache, &audit);
  audit.optimum_s = best.talg;
  return audit;
}

}  // namespace detail

}  // namespace codesign
}  // namespace costmetrics

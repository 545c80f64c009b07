// Tests of the `machine` time-model variant (docs/time.md, "Machine variant"):
// bit-identical to `exact` when its terms are 0, T_alg linear in the calibrated parameters
// (design_row), the direction of every term, the thread terms, and bad inputs.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../src/time_exact.hpp"
#include "check.hpp"
#include "costmetrics/time.hpp"
#include "gpu_fixtures.hpp"

namespace tmod = costmetrics::time;
using i64 = std::int64_t;

namespace {

using cm_test::gtx980;

struct Case {
  tmod::GpuParams gpu;
  tmod::StencilParams stencil;
  tmod::ProblemSize size;
  tmod::TileSizes tiles;
};

// A random feasible case: 1D-3D, small sizes (the general row walk) and large ones (the
// fast tables), machines with k = 1 (the CPU mapping) and k > 1.
Case random_case(std::mt19937_64& rng, int dims) {
  Case c;
  c.stencil.n_space_dims = dims;
  c.stencil.c_iter_s = 1e-9 * static_cast<double>(1 + rng() % 50);
  auto pick = [&](i64 lo, i64 hi) { return lo + static_cast<i64>(rng() % (hi - lo + 1)); };
  const bool big = rng() % 2 == 0;
  for (int d = 0; d < dims; ++d) {
    c.size.space[d] = big ? pick(200, dims == 1 ? 100000 : (dims == 2 ? 3000 : 300)) : pick(1, 60);
    if (d == 0) {
      c.tiles.space[d] = pick(1, dims == 1 ? 300 : 40);
    } else if (d == dims - 1) {
      c.tiles.space[d] = 32 * pick(1, 4);
    } else {
      c.tiles.space[d] = pick(1, 12);
    }
  }
  c.size.time_steps = big ? pick(20, 3000) : pick(1, 40);
  c.tiles.time = 2 * pick(1, dims == 1 ? 64 : 8);
  const double m_tile = tmod::m_tile_words(dims, c.tiles);
  tmod::GpuParams& g = c.gpu;
  const int n_v[] = {1, 3, 4, 8, 128};
  g.n_sm = static_cast<int>(pick(1, 8));
  g.n_v = n_v[rng() % 5];
  g.smem_per_sm_words = m_tile * static_cast<double>(pick(1, 4)) + 0.5;
  g.smem_per_block_words = g.smem_per_sm_words;
  g.max_blocks_per_sm = rng() % 2 == 0 ? 1 : 32;
  g.l_s_per_word = 1e-10 * static_cast<double>(pick(0, 40));
  g.tau_sync_s = 1e-9 * static_cast<double>(pick(0, 20));
  g.t_sync_s = 1e-8 * static_cast<double>(pick(0, 20));
  // Shape-only machine fields: with every time term 0 they must change nothing.
  g.machine.cache_l1_bytes = 32768;
  g.machine.cache_l2_bytes = 1 << 20;
  g.machine.cache_l3_bytes = 32 << 20;
  g.machine.threads_ref = static_cast<int>(pick(0, 4));
  g.machine.schedule = rng() % 2 == 0 ? tmod::TileSchedule::round_robin : tmod::TileSchedule::block;
  return c;
}

// Every machine time term positive (valid: one core's costs stay >= 0).
void set_machine_terms(std::mt19937_64& rng, tmod::GpuParams& g) {
  auto u = [&](double scale) { return scale * (0.1 + static_cast<double>(rng() % 1000) / 1000.0); };
  tmod::MachineTerms& m = g.machine;
  m.l_seg_s = u(2e-9);
  for (std::size_t lv = 0; lv < 4; ++lv) {
    m.l_level_s_per_word[lv] = u(1e-10);
    m.l_shared_s_per_word[lv] = u(2e-11);
  }
  m.tau_line_s = u(3e-9);
  m.tau_line_3d_s = u(6e-9);
  m.t_barrier_per_thread_s = u(1e-8);
  m.t_share_line_s = u(5e-9);
  m.l_buffer_s_per_word = u(5e-11);
  m.t_cross_row_s = u(5e-9);
  m.tau_line_3d_dram_s = u(1e-8);
  m.prefetch_ahead_words = static_cast<double>(rng() % 640);
  m.l_prefetch_s_per_word = u(2e-10);
  m.c_buffer_dram_s = u(3e-10);
  // One core's costs stay >= 0 also after the derivative test raises a term by 25%.
  const double ref = m.threads_ref > 0 ? m.threads_ref : g.n_sm;
  g.t_sync_s = std::max(g.t_sync_s, 1.5 * m.t_barrier_per_thread_s * ref);
  g.l_s_per_word += 4e-11 * ref;
}

// A CPU-like machine of n_sm cores with random machine terms: one tile per core (k = 1, so
// the clipped-tile count applies), nV = 4, a 1 MiB L2 and a 32 MiB L3.
tmod::GpuParams cpu_like_machine(std::mt19937_64& rng, int n_sm) {
  tmod::GpuParams g = gtx980();
  g.n_sm = n_sm;
  g.n_v = 4;
  g.max_blocks_per_sm = 1;
  g.smem_per_sm_words = 4e6;
  g.smem_per_block_words = 4e6;
  g.machine.cache_l1_bytes = 32768;
  g.machine.cache_l2_bytes = 1 << 20;
  g.machine.cache_l3_bytes = 32 << 20;
  g.machine.threads_ref = static_cast<int>(rng() % 5);
  set_machine_terms(rng, g);
  return g;
}

bool feasible(const Case& c) {
  return tmod::feasibility(c.gpu, c.stencil.n_space_dims, c.tiles) == tmod::kFeasible;
}

// Every field of two breakdowns bit for bit.
bool same(const tmod::Breakdown& a, const tmod::Breakdown& b) {
  return a.n_wavefronts == b.n_wavefronts && a.tiles_per_wavefront == b.tiles_per_wavefront &&
         a.k == b.k && a.n_subtiles == b.n_subtiles && a.w_tile == b.w_tile &&
         a.pitch == b.pitch && a.m_tile_words == b.m_tile_words && a.m_io_words == b.m_io_words &&
         a.m_prime_s == b.m_prime_s && a.c_s == b.c_s && a.t_tile_s == b.t_tile_s &&
         a.t_sync_total_s == b.t_sync_total_s && a.talg_s == b.talg_s &&
         a.t_ideal_s == b.t_ideal_s;
}

// With every time term 0 `machine` is `exact`, bit for bit, on both row walks, through
// evaluate(), evaluate_batch() and search().
void test_zero_terms_bit_identical() {
  std::mt19937_64 rng(21);
  int compared = 0;
  for (int i = 0; i < 6000; ++i) {
    const int dims = 1 + i % 3;
    const Case c = random_case(rng, dims);
    if (!feasible(c)) continue;
    const auto exact = tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::exact);
    const auto machine =
        tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::machine);
    CHECK(same(exact, machine));
    const auto general = tmod::detail::evaluate_exact(c.gpu, c.stencil, c.size, c.tiles,
                                                      tmod::detail::ExactPath::general, true);
    CHECK(general.talg_s == exact.talg_s);
    ++compared;
  }
  std::printf("  zero-term cases compared bit for bit: %d\n", compared);
  CHECK(compared > 3000);

  // Batch and search on the GTX 980 (a GPU preset: no machine terms at all).
  const tmod::GpuParams g = gtx980();
  tmod::StencilParams st;
  st.n_space_dims = 2;
  st.c_iter_s = 3.68e-8;
  tmod::ProblemSize size;
  size.space = {{8192, 8192, 0}};
  size.time_steps = 8192;
  const tmod::SearchSpace space = tmod::default_search_space(2);
  const std::vector<std::int64_t> tiles = cm_test::space_tiles(space, 2, 7);
  const std::size_t n = tiles.size() / 3;
  std::vector<double> a(n), b(n);
  std::vector<std::uint32_t> ra(n), rb(n);
  tmod::BatchOutputs oa, ob;
  oa.talg_s = a.data();
  oa.reasons = ra.data();
  ob.talg_s = b.data();
  ob.reasons = rb.data();
  tmod::evaluate_batch(g, st, size, tiles.data(), n, tmod::Variant::exact, oa, 2);
  tmod::evaluate_batch(g, st, size, tiles.data(), n, tmod::Variant::machine, ob, 2);
  bool equal = ra == rb;
  for (std::size_t i = 0; i < n; ++i) equal = equal && (ra[i] != 0 || a[i] == b[i]);
  CHECK(equal);
  const auto se = tmod::search(g, st, size, space, 0.1, tmod::Variant::exact, 2);
  const auto sm = tmod::search(g, st, size, space, 0.1, tmod::Variant::machine, 2);
  CHECK(se.talg_min_s == sm.talg_min_s);
  CHECK(se.near_optimal_talg_s == sm.near_optimal_talg_s);
}

double dot(const std::array<double, tmod::kDesignParams>& r,
           const std::array<double, tmod::kDesignParams>& p) {
  double s = 0;
  for (std::size_t i = 0; i < r.size(); ++i) s += r[i] * p[i];
  return s;
}

// Sets parameter i of the design vector on a copy of the case.
Case with_parameter(Case c, std::size_t i, double value) {
  tmod::MachineTerms& m = c.gpu.machine;
  switch (i) {
    case 0: c.gpu.l_s_per_word = value; break;
    case 1: c.gpu.tau_sync_s = value; break;
    case 2: c.gpu.t_sync_s = value; break;
    case 3: c.stencil.c_iter_s = value; break;
    case 4: m.l_seg_s = value; break;
    case 13: m.tau_line_s = value; break;
    case 14: m.t_barrier_per_thread_s = value; break;
    case 15: m.t_share_line_s = value; break;
    case 16: m.l_buffer_s_per_word = value; break;
    case 17: m.tau_line_3d_s = value; break;
    case 18: m.t_cross_row_s = value; break;
    case 19: m.tau_line_3d_dram_s = value; break;
    case 20: m.l_prefetch_s_per_word = value; break;
    case 21: m.c_buffer_dram_s = value; break;
    default:
      if (i < 9) m.l_level_s_per_word[i - 5] = value;
      else m.l_shared_s_per_word[i - 9] = value;
  }
  return c;
}

// T_alg = row . theta at every point, and with k = 1 every column is the exact derivative:
// T(theta + d e_p) - T(theta) = d row_p (checked by evaluating the model, not the row).
void test_linearity() {
  std::mt19937_64 rng(2121);
  int checked = 0, derivatives = 0;
  for (int i = 0; i < 1500; ++i) {
    const int dims = 1 + i % 3;
    Case c = random_case(rng, dims);
    set_machine_terms(rng, c.gpu);
    if (!feasible(c)) continue;
    const auto talg =
        tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::machine).talg_s;
    const auto row =
        tmod::design_row(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::machine);
    const auto theta = tmod::design_parameters(c.gpu, c.stencil.c_iter_s);
    CHECK_CLOSE(dot(row, theta), talg, 1e-12);
    // exact's row: the same columns at exact's branches; T_exact = row[:4] . theta[:4].
    const auto exact =
        tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::exact).talg_s;
    const auto erow = tmod::design_row(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::exact);
    auto theta_exact = theta;
    std::fill(theta_exact.begin() + 4, theta_exact.end(), 0.0);
    CHECK_CLOSE(dot(erow, theta_exact), exact, 1e-12);
    // paper's row likewise.
    const auto paper =
        tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::paper).talg_s;
    const auto prow = tmod::design_row(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::paper);
    CHECK_CLOSE(dot(prow, theta_exact), paper, 1e-12);
    ++checked;
    if (tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::exact).k != 1) continue;
    for (std::size_t p = 0; p < theta.size(); ++p) {
      const double d = theta[p] > 0 ? 0.25 * theta[p] : 1e-10;
      const Case moved = with_parameter(c, p, theta[p] + d);
      const double t2 =
          tmod::evaluate(moved.gpu, moved.stencil, moved.size, moved.tiles, tmod::Variant::machine)
              .talg_s;
      CHECK(std::fabs((t2 - talg) - d * row[p]) <= 1e-9 * std::max(talg, t2));
      ++derivatives;
    }
  }
  std::printf("  design rows checked: %d, derivatives: %d\n", checked, derivatives);
  CHECK(checked > 500 && derivatives > 2000);
}

// Brute force, as the harness' make_wavefronts (cpp/src/measure.cpp): per wavefront j of a
// 1D problem, the tiles that meet [0, S1) and the tile rows [r_lo, r_hi) inside [0, T).
// share: the sum over the tiles of the share of s1 points each holds (its points in
// [0, S1) over the rows' widest, sum_r max_p |row r of tile p ∩ [0, S1)|), as clipped_rounds
// charges them at one thread.
struct WaveRows {
  i64 n_tiles, r_lo, r_hi;
  double share;
};
std::vector<WaveRows> wave_rows_1d(i64 s1, i64 time_steps, i64 ts1, i64 tt) {
  const i64 h = tt / 2, pitch = 2 * ts1 + tt - 2;
  std::vector<WaveRows> out;
  for (i64 j = 0;; ++j) {
    const i64 t0 = (j - 1) * h;
    if (t0 >= time_steps) break;
    const i64 off = j % 2 == 0 ? pitch / 2 : 0;
    const i64 r_lo = std::max<i64>(0, -t0), r_hi = std::min(tt, time_steps - t0);
    i64 n = 0;
    std::vector<i64> points;                                   // per nonempty tile
    std::vector<i64> widest(static_cast<std::size_t>(tt), 0);  // per row
    for (i64 p = -(ts1 + h) / pitch - 2; p <= (s1 + h) / pitch + 2; ++p) {
      const i64 c0 = p * pitch + off;
      i64 sum = 0;
      for (i64 r = r_lo; r < r_hi; ++r) {
        const i64 e = std::min(r, tt - 1 - r);
        const i64 in = std::max<i64>(0, std::min(c0 + ts1 + e, s1) - std::max<i64>(c0 - e, 0));
        sum += in;
        widest[static_cast<std::size_t>(r)] = std::max(widest[static_cast<std::size_t>(r)], in);
      }
      if (sum > 0) {
        ++n;
        points.push_back(sum);
      }
    }
    i64 all_widest = 0;
    for (const i64 w : widest) all_widest += w;
    double share = 0;
    for (const i64 pts : points) {
      share += static_cast<double>(pts) / static_cast<double>(all_widest);
    }
    if (n > 0) out.push_back({n, r_lo, r_hi, share});
  }
  return out;
}

// Words the 1D harness copies for one tile holding rows [a, b) of a (tS1, tT) hexagon: the
// first row loads W + 2, a growing row 4 more, the widest row of an even tT 2; a row before a
// shrinking one stores 4, the row before the widest 2, the last row its W.
double row_words(i64 ts1, i64 tt, i64 a, i64 b) {
  auto e = [tt](i64 r) { return std::min(r, tt - 1 - r); };
  double words = static_cast<double>(ts1 + 2 * e(a) + 2 + ts1 + 2 * e(b - 1));
  for (i64 r = a + 1; r < b; ++r) words += e(r) > e(r - 1) ? 4 : e(r) == e(r - 1) ? 2 : 0;
  for (i64 r = a; r + 1 < b; ++r) words += e(r + 1) < e(r) ? 4 : e(r + 1) == e(r) ? 2 : 0;
  return words;
}

// Every positive term makes T_alg larger than exact's; with the counts known by hand on a
// small 1D case (one thread: no shared-bandwidth, barrier or false-sharing term).
void test_terms_by_hand() {
  tmod::GpuParams g = gtx980();
  g.n_sm = 1;
  g.max_blocks_per_sm = 1;
  tmod::StencilParams st;
  st.n_space_dims = 1;
  st.c_iter_s = 1e-9;
  tmod::ProblemSize size;
  size.space = {{10000, 0, 0}};
  size.time_steps = 64;
  tmod::TileSizes t;
  t.space = {{100, 0, 0}};
  t.time = 16;
  const auto exact = tmod::evaluate(g, st, size, t, tmod::Variant::exact);
  // n_sm = 1, k = 1: T_alg = sum over tiles of (m' + c) + N_w T_sync. Count the tiles
  // (sum of rounds) from exact's terms: T_alg - N_w T_sync = n_tiles (m' + c) only if all
  // tiles are alike, so use the L column instead: d T / d L = m_io n_tiles.
  tmod::GpuParams g2 = g;
  g2.l_s_per_word += 1e-9;
  const double n_tiles = (tmod::evaluate(g2, st, size, t, tmod::Variant::exact).talg_s -
                          exact.talg_s) / (1e-9 * exact.m_io_words);
  CHECK(std::fabs(n_tiles - std::round(n_tiles)) < 1e-3);
  // With a machine term set the preset describes the CPU harness: the words copied are
  // those of the rows each wavefront holds, counted row by row (row_words). tau_line alone
  // turns the harness counts on and adds nothing in 1D (a row is one line).
  tmod::GpuParams gh = g;
  gh.machine.tau_line_s = 1e-7;
  const double harness = tmod::evaluate(gh, st, size, t, tmod::Variant::machine).talg_s;
  double want_words = 0, tiles_seen = 0, full_words = 0;
  for (const WaveRows& w : wave_rows_1d(10000, 64, 100, 16)) {
    // The words scale with the share of s1 points a tile holds (clipped at the ends).
    want_words += w.share * row_words(100, 16, w.r_lo, w.r_hi);
    tiles_seen += static_cast<double>(w.n_tiles);
  }
  full_words = row_words(100, 16, 0, 16);
  CHECK(tiles_seen == std::round(n_tiles));
  CHECK(full_words == 2 * 100 + 4 * 16 - 2);
  // d T / d L: the words (the vector steps scale with the shares too, so T - T_exact
  // holds a C_iter part as well).
  tmod::GpuParams gh_l = gh;
  gh_l.l_s_per_word += 1e-9;
  CHECK_CLOSE(tmod::evaluate(gh_l, st, size, t, tmod::Variant::machine).talg_s - harness,
              1e-9 * want_words, 1e-9);
  CHECK(want_words < exact.m_io_words * std::round(n_tiles));
  // Per-segment cost: 2 rows + 2 segments per tile holding all of its rows, 2 rows in the
  // first and last wavefronts (which hold rows [h, tT) and [0, h)), in place of the
  // transfer's 2 tau_sync (the fixed cost of the copy, charged per segment instead).
  g2 = gh;
  g2.machine.l_seg_s = 1e-7;
  const double d_seg = tmod::evaluate(g2, st, size, t, tmod::Variant::machine).talg_s - harness;
  double want_seg = 0;
  for (const WaveRows& w : wave_rows_1d(10000, 64, 100, 16)) {
    const double segs = 2.0 * static_cast<double>(w.r_hi - w.r_lo) +
                        (w.r_lo < 8 && w.r_hi > 8 ? 2.0 : 0.0);
    want_seg += static_cast<double>(w.n_tiles) * (1e-7 * segs - 2 * g.tau_sync_s);
  }
  CHECK_CLOSE(d_seg, want_seg, 1e-9);
  // One thread: the false-sharing term is 0.
  g2 = gh;
  g2.machine.t_share_line_s = 1e-7;
  CHECK(tmod::evaluate(g2, st, size, t, tmod::Variant::machine).talg_s == harness);
  // Barrier per thread beyond threads_ref = 1: 0 at one thread; N_w (n - 1) t at n threads.
  g2 = gh;
  g2.machine.t_barrier_per_thread_s = 1e-7;
  g2.machine.threads_ref = 1;
  CHECK(tmod::evaluate(g2, st, size, t, tmod::Variant::machine).talg_s == harness);
  // Memory level: 2 * 10002 * 4 bytes = 80 KB: L2 with a 32 KiB L1 and 1 MiB L2.
  g2 = gh;
  g2.machine.cache_l1_bytes = 32768;
  g2.machine.cache_l2_bytes = 1 << 20;
  CHECK(tmod::memory_level(g2, 1, size) == 1);
  g2.machine.l_level_s_per_word = {{5e-9, 1e-9, 7e-9, 7e-9}};
  const double d_level =
      tmod::evaluate(g2, st, size, t, tmod::Variant::machine).talg_s - harness;
  CHECK_CLOSE(d_level, 1e-9 * want_words, 1e-9);
  // Buffer words: none in 1D (no face kept), and no per-line overhead (checked above).
  g2 = gh;
  g2.machine.l_buffer_s_per_word = 1e-7;
  CHECK(tmod::evaluate(g2, st, size, t, tmod::Variant::machine).talg_s == harness);
  g2 = gh;
  // ... in 2D the W(r) - 1 lines of s2 beyond the first of each row: sum_r (tS1 + 2 e(r) - 1)
  // = tT tS1 + 2 h (h - 1) - tT for a full sub-tile (S1 wide enough).
  st.n_space_dims = 2;
  size.space = {{10000, 640, 0}};
  t.space = {{20, 64, 0}};
  const auto exact2 = tmod::evaluate(g, st, size, t, tmod::Variant::exact);
  const auto line2 = tmod::evaluate(g2, st, size, t, tmod::Variant::machine);
  CHECK_CLOSE(line2.c_s - exact2.c_s, 1e-7 * (16 * 20 + 2 * 8 * 7 - 16), 1e-9);
  CHECK(line2.talg_s > exact2.talg_s);
  // Words copied within the tile buffer (the kept faces), per sub-tile in m': 2D 4 words
  // per s1 value of a row's plane, sum_r (W(r) + 2) = tT (tS1 + 2) + 2 h (h - 1) ...
  tmod::GpuParams gb = g;
  gb.machine.l_buffer_s_per_word = 1e-9;
  const double halo_rows = 16 * 22 + 2 * 8 * 7;
  const auto buf2 = tmod::evaluate(gb, st, size, t, tmod::Variant::machine);
  // (With a machine term set, the words are those inside the problem: m_io times
  // min(1, (S2 + 2) / (n_b tS2)), n_b = floor((S2 + tT - 2) / tS2) + 1 = 11 sub-tiles here,
  // and of a whole tile's rows as the harness copies them, 2 tS1 + 4 tT - 2 lines of the
  // 2 (tS1 + 2 tT) that m_io counts.)
  // Each row after the first also loads the 2 halo columns its skewed window moved onto,
  // for the W(r - 1) s1 values its previous row computed: 2 sum_{r < tT - 1} W(r)
  // = 2 (15 x 20 + 2 x 56) words per tile, over its 11 sub-tiles.
  // The stores of those lines (50 of the 102: the last row's 20, 7 x 4 and 2 edge runs)
  // cover the S2 computed values of u, the loads S2 + 2.
  const double clip2 = 642.0 / (11 * 64) * ((102.0 - 50.0 * 2.0 / 642.0) / 104.0);
  const double frame2 = 2.0 * (15 * 20 + 2 * 56) / 11.0;
  CHECK_CLOSE(buf2.m_prime_s - exact2.m_prime_s,
              1e-9 * 4 * halo_rows +
                  (exact2.m_io_words * (clip2 - 1.0) + frame2) * g.l_s_per_word,
              1e-9);
  CHECK(buf2.talg_s > exact2.talg_s);
  // ... 3D: per plane value of s1, 2 words per u2 line (tS2 + 2 lines kept, at most S2 + 2
  // read back) and 2 u2 lines (tS3 + 2 words kept, at most S3 + 2 read back), tS_d taken
  // at most S_d + tT as the harness clips it (tS3 = 32 runs as 24: 26 words kept) ...
  st.n_space_dims = 3;
  size.space = {{10000, 3, 20}};  // S3 + 2 = 22 < tS3 + 2: the face in u2 read back over 22
  t.space = {{2, 4, 32}};
  t.time = 4;
  const auto exact3 = tmod::evaluate(g, st, size, t, tmod::Variant::exact);
  const auto buf3 = tmod::evaluate(gb, st, size, t, tmod::Variant::machine);
  const double halo_rows3 = 4 * 4 + 2 * 2 * 1;
  // (Words clipped in s2, 2 sub-tiles of 4 over S2 + 2 = 5, and in s3, 1 of 32 over 22.)
  const double rows3 = 18.0 / 20.0;
  // (Of the 18 lines, the 8 stored (2 + 4 + 2) cover S2 S3 = 60 of the (S2 + 2)(S3 + 2) =
  // 110 values a load covers.)
  const double clip3 = (5.0 / 8.0) * (22.0 / 32.0) * ((18.0 - 8.0 * 50.0 / 110.0) / 20.0);
  // The halo frame of a row after the first, (S2 + 2)(S3 + 2) - S2 S3 = 50 words per s1
  // value, for sum_{r < 3} W(r) = 3 x 2 + 2 (0 + 1 + 1) = 10 of them, over the 2 sub-slabs.
  const double frame3 = 50.0 * 10.0 / 2.0;
  CHECK_CLOSE(buf3.m_prime_s - exact3.m_prime_s,
              1e-9 * 2 * halo_rows3 * (6 + 26 + 22 + 5) +
                  (exact3.m_io_words * (clip3 - 1.0) + frame3) * g.l_s_per_word,
              1e-9);
  // The segments of a 3D sub-tile (lines of tS3 words) are clipped in s2 only: with L_seg
  // alone set, m' = n_seg L_seg + m_io clip L, n_seg = m_io / tS3 * 5/8 (whole tile rows).
  tmod::GpuParams gl3 = g;
  gl3.machine.l_seg_s = 1e-8;
  const auto seg3 = tmod::evaluate(gl3, st, size, t, tmod::Variant::machine);
  CHECK_CLOSE(seg3.m_prime_s,
              exact3.m_io_words / 32.0 * (5.0 / 8.0) * rows3 * 1e-8 +
                  (exact3.m_io_words * clip3 + frame3) * g.l_s_per_word,
              1e-12);
}

// The shares of s1 points of the tiles clipped at the ends of [0, S1) (O(1) per tile in
// the model) against the brute-force replay of wave_rows_1d, on small problems where most
// tiles are clipped: at one thread d T / d L = sum over wavefronts of share x the words of
// the rows the wavefront holds (as in test_terms_by_hand).
void test_clipped_shares_brute_force() {
  std::mt19937_64 rng(2125);
  int checked = 0;
  for (int i = 0; i < 400; ++i) {
    tmod::GpuParams g = gtx980();
    g.n_sm = 1;
    g.max_blocks_per_sm = 1;
    g.machine.tau_line_s = 1e-7;  // a machine term: the harness counts (nothing in 1D)
    tmod::StencilParams st;
    st.n_space_dims = 1;
    st.c_iter_s = 1e-9;
    tmod::ProblemSize size;
    size.space = {{std::uniform_int_distribution<i64>(3, 300)(rng), 0, 0}};
    size.time_steps = std::uniform_int_distribution<i64>(2, 80)(rng);
    tmod::TileSizes t;
    t.space = {{std::uniform_int_distribution<i64>(1, 120)(rng), 0, 0}};
    t.time = 2 * std::uniform_int_distribution<i64>(1, 24)(rng);
    Case c{g, st, size, t};
    if (!feasible(c)) continue;
    const double base = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
    tmod::GpuParams gl = g;
    gl.l_s_per_word += 1e-9;
    const double d = tmod::evaluate(gl, st, size, t, tmod::Variant::machine).talg_s - base;
    double want = 0;
    for (const WaveRows& w : wave_rows_1d(size.space[0], size.time_steps, t.space[0], t.time)) {
      want += w.share * row_words(t.space[0], t.time, w.r_lo, w.r_hi);
    }
    CHECK_CLOSE(d, 1e-9 * want, 1e-7);
    ++checked;
  }
  std::printf("  clipped shares checked: %d\n", checked);
  CHECK(checked > 200);
}

// The fast path's per-thread cache of the clipped-tile counts per (tS1, tT)
// (time_exact.cpp, ClippedCache) against the same evaluations with the cache off (the
// per-tile computation), bit for bit, breakdowns and design rows: 1D/2D/3D, round-robin and
// blocks, 1-8 threads, S1 from a few tiles (most tiles clipped, the general row walk) to
// wide; tiles drawn from a few (tS1, tT) groups with random tS2/tS3 (hits), in 1D from
// more groups than the table has slots (collisions); then pairs of problems alternated that
// differ only in S1, T, the thread count or the schedule (a group stored for one must
// never serve the other); then the batch on two threads (per-thread caches).
void test_clipped_cache_bit_identical() {
  std::mt19937_64 rng(1521);
  auto pick = [&](i64 lo, i64 hi) { return lo + static_cast<i64>(rng() % (hi - lo + 1)); };
  struct Problem {
    tmod::GpuParams gpu;
    tmod::StencilParams stencil;
    tmod::ProblemSize size;
  };
  auto problem = [&](int dims) {
    Problem p;
    tmod::GpuParams& g = p.gpu;
    g = cpu_like_machine(rng, static_cast<int>(pick(1, 8)));
    g.machine.schedule =
        rng() % 2 == 0 ? tmod::TileSchedule::round_robin : tmod::TileSchedule::block;
    p.stencil.n_space_dims = dims;
    p.stencil.c_iter_s = 1e-9 * static_cast<double>(pick(1, 50));
    const bool wide = rng() % 2 == 0;
    p.size.space[0] = wide ? pick(300, dims == 1 ? 100000 : 3000) : pick(1, 150);
    for (int d = 1; d < dims; ++d) p.size.space[d] = pick(1, dims == 2 ? 400 : 60);
    p.size.time_steps = pick(1, dims == 1 ? 700 : 200);
    return p;
  };
  // Feasible tiles of `n_groups` random (tS1, tT) groups, random inner sizes.
  auto tiles_of = [&](int dims, int n_groups, int n) {
    std::vector<std::pair<i64, i64>> groups;
    for (int i = 0; i < n_groups; ++i) {
      groups.emplace_back(pick(1, dims == 1 ? 400 : 40), 2 * pick(1, dims == 1 ? 64 : 12));
    }
    std::vector<tmod::TileSizes> tiles;
    for (int i = 0; i < n; ++i) {
      const auto& [ts1, tt] = groups[static_cast<std::size_t>(rng() % groups.size())];
      tmod::TileSizes t;
      t.space[0] = ts1;
      for (int d = 1; d < dims; ++d) t.space[d] = d == dims - 1 ? 32 * pick(1, 3) : pick(1, 16);
      t.time = tt;
      tiles.push_back(t);
    }
    return tiles;
  };
  struct Result {
    tmod::Breakdown b;
    tmod::detail::DesignRow row;
  };
  auto evaluate = [](const Problem& p, const tmod::TileSizes& t) {
    Result r{};
    r.b = tmod::detail::evaluate_exact(p.gpu, p.stencil, p.size, t,
                                       tmod::detail::ExactPath::fast, true);
    tmod::detail::evaluate_exact(p.gpu, p.stencil, p.size, t, tmod::detail::ExactPath::fast,
                                 true, &r.row);
    return r;
  };
  // Evaluates the sequence with the cache on, then off, and compares.
  int compared = 0, k1 = 0;
  auto check_sequence = [&](const std::vector<std::pair<const Problem*, tmod::TileSizes>>& seq) {
    std::vector<Result> cached;
    for (const auto& [p, t] : seq) cached.push_back(evaluate(*p, t));
    tmod::detail::set_clipped_cache_enabled(false);
    for (std::size_t i = 0; i < seq.size(); ++i) {
      if (!cm_test::sampled(i)) continue;  // the cached pass ran them all
      const Result direct = evaluate(*seq[i].first, seq[i].second);
      CHECK(same(cached[i].b, direct.b));
      CHECK(cached[i].row == direct.row);
      ++compared;
      k1 += direct.b.k == 1 ? 1 : 0;
    }
    tmod::detail::set_clipped_cache_enabled(true);
  };
  const std::uint64_t hits_before = tmod::detail::clipped_cache_hits();
  for (int i = 0; i < 30; ++i) {
    const int dims = 1 + i % 3;
    const Problem p = problem(dims);
    const int n_groups = dims == 1 && i % 2 == 0 ? 6000 : 12;
    std::vector<std::pair<const Problem*, tmod::TileSizes>> seq;
    for (const auto& t : tiles_of(dims, n_groups, dims == 1 ? 8000 : 300)) seq.emplace_back(&p, t);
    check_sequence(seq);
  }
  const std::uint64_t hits = tmod::detail::clipped_cache_hits() - hits_before;
  // Alternated problems that differ in one of S1, T, threads, schedule.
  for (int i = 0; i < 40; ++i) {
    const int dims = 1 + i % 3;
    const Problem a = problem(dims);
    Problem b = a;
    switch (i % 4) {
      case 0: b.size.space[0] += pick(1, 40); break;
      case 1: b.size.time_steps += pick(1, 40); break;
      case 2: b.gpu.n_sm = a.gpu.n_sm % 8 + 1; break;
      default:
        b.gpu.machine.schedule = a.gpu.machine.schedule == tmod::TileSchedule::block
                                     ? tmod::TileSchedule::round_robin
                                     : tmod::TileSchedule::block;
    }
    std::vector<std::pair<const Problem*, tmod::TileSizes>> seq;
    for (const auto& t : tiles_of(dims, 3, 60)) {
      seq.emplace_back(&a, t);
      seq.emplace_back(&b, t);
      seq.emplace_back(&b, t);  // a hit for b, then a for a group b stored last
    }
    check_sequence(seq);
  }
  std::printf("  clipped-count cache vs per-tile: %d evaluations (%d with k = 1), %llu hits\n",
              compared, k1, static_cast<unsigned long long>(hits));
  CHECK(compared > static_cast<int>(80000 / cm_test::kSanitizedStride) && k1 > compared / 2);
  CHECK(hits > 20000);

  // The batch on two threads (each with its own cache) against per-tile evaluations.
  for (int dims = 1; dims <= 3; ++dims) {
    const Problem p = problem(dims);
    const auto tiles = tiles_of(dims, 20, 2000);
    const std::size_t stride = static_cast<std::size_t>(dims) + 1;
    std::vector<std::int64_t> flat;
    for (const auto& t : tiles) {
      for (int d = 0; d < dims; ++d) flat.push_back(t.space[d]);
      flat.push_back(t.time);
    }
    const std::size_t n = flat.size() / stride;
    std::vector<double> talg(n);
    std::vector<std::uint32_t> reasons(n);
    tmod::BatchOutputs out;
    out.talg_s = talg.data();
    out.reasons = reasons.data();
    tmod::evaluate_batch(p.gpu, p.stencil, p.size, flat.data(), n, tmod::Variant::machine, out, 2);
    tmod::detail::set_clipped_cache_enabled(false);
    bool equal = true;
    for (std::size_t i = 0; i < n; ++i) {
      equal = equal && reasons[i] == tmod::kFeasible &&
              talg[i] == evaluate(p, tiles[i]).b.talg_s;
    }
    tmod::detail::set_clipped_cache_enabled(true);
    CHECK(equal);
  }
}

// evaluate_batch's machine path in 2D/3D evaluates a batch of at least 2,048 tiles grouped
// by (tS1, tT) (time.cpp, machine_group_order) and gathers the results back: against one
// evaluate() per tile, bit for bit, reasons too, with tiles of many groups in a shuffled
// order, infeasible and nonpositive tiles among them (key 0 and odd tT), on 1 and 2
// threads; and a batch whose keys spread too wide for the counts (the given order).
void test_grouped_batch_order() {
  std::mt19937_64 rng(2190);
  auto pick = [&](i64 lo, i64 hi) { return lo + static_cast<i64>(rng() % (hi - lo + 1)); };
  int compared = 0, infeasible = 0;
  // A 2-thread CPU-like problem of `dims` dimensions: S1 = s1[dims - 1], the inner sizes
  // inner[dims - 1], T = t[dims - 1].
  struct MachineProblem {
    tmod::GpuParams gpu;
    tmod::StencilParams stencil;
    tmod::ProblemSize size;
  };
  auto machine_problem = [&](int dims, std::array<i64, 3> s1, std::array<i64, 3> inner,
                             std::array<i64, 3> t) {
    MachineProblem p{cpu_like_machine(rng, 2), {}, {}};
    p.stencil.n_space_dims = dims;
    p.stencil.c_iter_s = 2e-9;
    const std::size_t k = static_cast<std::size_t>(dims) - 1;
    p.size.space[0] = s1[k];
    for (int d = 1; d < dims; ++d) p.size.space[d] = inner[k];
    p.size.time_steps = t[k];
    return p;
  };
  // The machine variant's T_alg and reasons of a batch (`flat`: rows of tiles).
  auto machine_batch = [](const tmod::GpuParams& g, const tmod::StencilParams& st,
                          const tmod::ProblemSize& size, const std::vector<std::int64_t>& flat,
                          int threads) {
    const std::size_t n = flat.size() / (static_cast<std::size_t>(st.n_space_dims) + 1);
    std::pair<std::vector<double>, std::vector<std::uint32_t>> r{std::vector<double>(n),
                                                                 std::vector<std::uint32_t>(n)};
    tmod::BatchOutputs out;
    out.talg_s = r.first.data();
    out.reasons = r.second.data();
    tmod::evaluate_batch(g, st, size, flat.data(), n, tmod::Variant::machine, out, threads);
    return r;
  };
  for (int dims = 1; dims <= 3; ++dims) {
    for (int wide_key = 0; wide_key < 2; ++wide_key) {
      const auto [g, st, size] =
          machine_problem(dims, {20000, 400, 50}, {0, 300, 40}, {300, 60, 60});
      const std::size_t n = 5000;
      const std::size_t stride = static_cast<std::size_t>(dims) + 1;
      std::vector<std::int64_t> flat;
      for (std::size_t i = 0; i < n; ++i) {
        tmod::TileSizes t;
        t.space[0] = pick(1, dims == 1 ? 300 : 40);
        for (int d = 1; d < dims; ++d) t.space[d] = d == dims - 1 ? 32 * pick(1, 12) : pick(1, 20);
        t.time = 2 * pick(1, 16);
        const int kind = static_cast<int>(rng() % 20);
        if (kind == 0) t.space[0] = -pick(0, 5);  // nonpositive: key 0
        if (kind == 1) t.time = 2 * pick(1, 16) - 1;  // odd tT
        if (kind == 2) t.time = 0;
        for (int d = 0; d < dims; ++d) flat.push_back(t.space[d]);
        flat.push_back(t.time);
      }
      if (wide_key == 1) flat[0] = 10000000;  // buckets > 4 n: the given order
      for (int threads = 1; threads <= 2; ++threads) {
        const auto [talg, reasons] = machine_batch(g, st, size, flat, threads);
        bool equal = true;
        for (std::size_t i = 0; i < n; ++i) {
          tmod::TileSizes t;
          for (int d = 0; d < dims; ++d) {
            t.space[d] = flat[i * stride + static_cast<std::size_t>(d)];
          }
          t.time = flat[i * stride + static_cast<std::size_t>(dims)];
          const std::uint32_t r = tmod::feasibility(g, dims, t);
          equal = equal && reasons[i] == r;
          if (r == tmod::kFeasible) {
            // (under the sanitizers the batch runs whole, compared on a sample)
            if (!cm_test::sampled(i)) continue;
            const double ref = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
            equal = equal && talg[i] == ref;
          } else {
            equal = equal && std::isnan(talg[i]);
            ++infeasible;
          }
          ++compared;
        }
        CHECK(equal);
      }
    }
  }
  std::printf("  grouped batch tiles compared bit for bit: %d (%d infeasible)\n", compared,
              infeasible);
  CHECK(infeasible > 1000);

  // The grouped machine batch (ExactTalgBatch's machine mode, forced on every chunk; 2D:
  // the group plans, and the row shapes kept per (tS1, tT) for the tiles the plans do not
  // cover, tS2 > S2 or rows clipped in s1; 3D: the row shapes): random CPU-like presets
  // (1-8 threads, both schedules, random terms; arrays in every memory level, the DRAM
  // share included), S1 from a few tiles to wide, T from below tT up, tiles from a few
  // (tS1, tT) groups so that most find their group in the cache, on 1 and 3 threads;
  // every value against evaluate(), bit for bit.
  const std::size_t saved_min = tmod::detail::exact_batch_group_min();
  tmod::detail::set_exact_batch_group_min(1);
  int grouped[3] = {0, 0, 0};  // 2D on the plans, 2D by row shapes, 3D
  for (int i = 0; i < 400; ++i) {
    const int dims = i % 4 == 3 ? 3 : 2;
    const std::size_t stride = static_cast<std::size_t>(dims) + 1;
    tmod::GpuParams g = cpu_like_machine(rng, static_cast<int>(pick(1, 8)));
    g.machine.schedule =
        rng() % 2 == 0 ? tmod::TileSchedule::round_robin : tmod::TileSchedule::block;
    g.machine.cache_l3_bytes = static_cast<double>(1 + rng() % (8 << 20));
    tmod::StencilParams st;
    st.n_space_dims = dims;
    st.c_iter_s = 1e-9 * static_cast<double>(pick(1, 30));
    tmod::ProblemSize size;
    size.space[0] = rng() % 3 == 0 ? pick(1, 120) : pick(120, 5000);
    size.space[1] = dims == 2 ? pick(1, 3000) : pick(1, 200);
    if (dims == 3) size.space[2] = pick(1, 300);
    size.time_steps = pick(1, 400);
    std::vector<std::int64_t> flat;
    std::vector<std::pair<i64, i64>> groups;
    for (int k = 0; k < 6; ++k) groups.emplace_back(pick(1, 70), 2 * pick(1, 40));
    for (int k = 0; k < 200; ++k) {
      const auto& [ts1, tt] = groups[static_cast<std::size_t>(rng() % groups.size())];
      if (dims == 2) {
        flat.insert(flat.end(), {ts1, 32 * pick(1, 40), tt});
      } else {
        flat.insert(flat.end(), {ts1, pick(1, 24), 32 * pick(1, 8), tt});
      }
    }
    const std::size_t n = flat.size() / stride;
    for (int threads : {1, 3}) {
      const auto [talg, reasons] = machine_batch(g, st, size, flat, threads);
      bool equal = true;
      for (std::size_t k = 0; k < n; ++k) {
        tmod::TileSizes t;
        for (int d = 0; d < dims; ++d) t.space[d] = flat[stride * k + static_cast<std::size_t>(d)];
        t.time = flat[stride * k + static_cast<std::size_t>(dims)];
        const std::uint32_t r = tmod::feasibility(g, dims, t);
        equal = equal && reasons[k] == r;
        if (r != tmod::kFeasible || !cm_test::sampled(k)) continue;
        const double ref = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
        equal = equal && talg[k] == ref;
        const bool plans = dims == 2 && t.space[1] <= size.space[1] &&
                           tmod::detail::whole_rows_fit(size.space[0], t.space[0], t.time);
        ++grouped[dims == 3 ? 2 : plans ? 0 : 1];
      }
      CHECK(equal);
    }
  }
  tmod::detail::set_exact_batch_group_min(saved_min);
  std::printf("  grouped machine batch, feasible tiles compared bit for bit: 2D on the plans %d, "
              "2D by row shapes %d, 3D %d\n",
              grouped[0], grouped[1], grouped[2]);
  constexpr int kStride = static_cast<int>(cm_test::kSanitizedStride);
  CHECK(grouped[0] > 20000 / kStride && grouped[1] > 10000 / kStride &&
        grouped[2] > 5000 / kStride);

  // The machine search with machine terms (machine_talg_of_chunk: grouped in 2D): with
  // `within` large every feasible point comes back with evaluate()'s value, bit for bit;
  // 1D-3D, 1 and 2 threads.
  int searched = 0;
  for (int dims = 1; dims <= 3; ++dims) {
    const auto [g, st, size] =
        machine_problem(dims, {30000, 700, 60}, {0, 600, 50}, {500, 90, 90});
    tmod::SearchSpace space;
    // (3D under the sanitizers on 10 x 10 outer values, not 30 x 30: its 108,000 tiles
    // were a third of this test there)
    const std::int64_t outer = dims == 3 && cm_test::kSanitized ? 10 : 30;
    for (int d = 0; d < dims; ++d) {
      std::vector<std::int64_t> values;
      for (std::int64_t v = 1; v <= (d == dims - 1 && dims > 1 ? 8 : outer); ++v) {
        values.push_back(d == dims - 1 && dims > 1 ? 32 * v : v);
      }
      space.space.push_back(values);
    }
    for (std::int64_t v = 2; v <= 30; v += 2) space.time.push_back(v);
    for (int threads : {1, 2}) {
      const tmod::SearchResult found =
          tmod::search(g, st, size, space, 1e6, tmod::Variant::machine, threads);
      bool same_values = found.near_optimal.size() == found.n_feasible && found.n_feasible > 0;
      for (std::size_t k = 0; k < found.near_optimal.size() && same_values; ++k) {
        if (!cm_test::sampled(k)) continue;
        same_values = found.near_optimal_talg_s[k] ==
                      tmod::evaluate(g, st, size, found.near_optimal[k], tmod::Variant::machine)
                          .talg_s;
        ++searched;
      }
      CHECK(same_values);
    }
  }
  std::printf("  machine search values compared bit for bit: %d\n", searched);
  CHECK(searched > static_cast<int>(10000 / cm_test::kSanitizedStride));
}

// The fast path's critical thread (ExactModel::critical_thread, O(clipped tiles)) against
// the general path's loop over every thread (the reference), bit for bit, breakdowns and
// design rows: 1D/2D/3D, both schedules, 1 to 100 threads, S1 from less than a tile to
// many (fewer tiles than threads: empty blocks; n mod threads != 0), wide S1 too. With the
// cache off so that every evaluation computes, and on.
void test_critical_thread_fast_vs_general() {
  std::mt19937_64 rng(2115);
  auto pick = [&](i64 lo, i64 hi) { return lo + static_cast<i64>(rng() % (hi - lo + 1)); };
  const int threads[] = {1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100};
  int compared = 0, few_tiles = 0;
  for (int i = 0; i < 6000; ++i) {
    const int dims = 1 + i % 3;
    tmod::GpuParams g = cpu_like_machine(rng, threads[rng() % 11]);
    g.machine.schedule = i % 2 == 0 ? tmod::TileSchedule::round_robin : tmod::TileSchedule::block;
    tmod::StencilParams st;
    st.n_space_dims = dims;
    st.c_iter_s = 1e-9 * static_cast<double>(pick(1, 50));
    tmod::TileSizes t;
    t.space[0] = pick(1, dims == 1 ? 200 : 30);
    t.time = 2 * pick(1, dims == 1 ? 40 : 10);
    for (int d = 1; d < dims; ++d) t.space[d] = d == dims - 1 ? 32 * pick(1, 3) : pick(1, 12);
    const i64 pitch = 2 * t.space[0] + t.time - 2;
    tmod::ProblemSize size;
    size.space[0] = rng() % 4 == 0 ? pick(2 * pitch, 200 * pitch) : pick(1, 40 * pitch);
    for (int d = 1; d < dims; ++d) size.space[d] = pick(1, dims == 2 ? 300 : 50);
    size.time_steps = pick(1, 300);
    if (tmod::feasibility(g, dims, t) != tmod::kFeasible) continue;
    tmod::detail::set_clipped_cache_enabled(i % 4 < 2);
    const auto fast =
        tmod::detail::evaluate_exact(g, st, size, t, tmod::detail::ExactPath::fast, true);
    const auto general =
        tmod::detail::evaluate_exact(g, st, size, t, tmod::detail::ExactPath::general, true);
    CHECK(same(fast, general));
    tmod::detail::DesignRow rf{}, rg{};
    tmod::detail::evaluate_exact(g, st, size, t, tmod::detail::ExactPath::fast, true, &rf);
    tmod::detail::evaluate_exact(g, st, size, t, tmod::detail::ExactPath::general, true, &rg);
    CHECK(rf == rg);
    ++compared;
    few_tiles += general.tiles_per_wavefront < g.n_sm ? 1 : 0;
  }
  tmod::detail::set_clipped_cache_enabled(true);
  std::printf("  critical thread fast vs general: %d cases (%d with fewer tiles than threads)\n",
              compared, few_tiles);
  CHECK(compared > 5000 && few_tiles > 1000);
}

// The cache lines written by two threads follow the harness' schedule: round-robin, every
// tile of a wavefront with more than one tile (in m', on the critical path of each round);
// blocks, once per such wavefront (the ends of the threads' blocks, in parallel).
void test_schedules() {
  tmod::GpuParams g = gtx980();
  g.n_sm = 2;
  g.max_blocks_per_sm = 1;
  g.machine.threads_ref = 2;
  tmod::StencilParams st;
  st.n_space_dims = 1;
  st.c_iter_s = 1e-9;
  tmod::ProblemSize size;
  size.space = {{10000, 0, 0}};
  size.time_steps = 64;
  tmod::TileSizes t;
  t.space = {{100, 0, 0}};
  t.time = 16;
  const auto exact = tmod::evaluate(g, st, size, t, tmod::Variant::exact);
  // Rounds on the critical path, from the L column: d T / d L = m_io sum(rounds).
  tmod::GpuParams gl = g;
  gl.l_s_per_word += 1e-9;
  const double rounds =
      (tmod::evaluate(gl, st, size, t, tmod::Variant::exact).talg_s - exact.talg_s) /
      (1e-9 * exact.m_io_words);
  // One line per row and shared boundary: per tile, the rows of it the wavefront holds,
  // in every round of a wavefront of more than one tile (round-robin).
  auto shared_lines = [](i64 ts1, i64 tt) {
    double sum = 0;
    for (const WaveRows& w : wave_rows_1d(10000, 64, ts1, tt)) {
      if (w.n_tiles < 2) continue;
      const double n = static_cast<double>((w.n_tiles + 1) / 2);
      sum += n * static_cast<double>(w.r_hi - w.r_lo);
    }
    return sum;
  };
  double tiles_rounds = 0;
  for (const WaveRows& w : wave_rows_1d(10000, 64, 100, 16)) {
    tiles_rounds += static_cast<double>((w.n_tiles + 1) / 2);
  }
  CHECK(tiles_rounds == std::round(rounds));
  // Against the machine variant without the term (tau_line set instead, nothing in 1D, so
  // that both count the words the harness copies).
  tmod::GpuParams gh = g;
  gh.machine.tau_line_s = 1e-7;
  tmod::GpuParams rr = gh;
  rr.machine.t_share_line_s = 1e-6;
  const double harness = tmod::evaluate(gh, st, size, t, tmod::Variant::machine).talg_s;
  const double d_rr = tmod::evaluate(rr, st, size, t, tmod::Variant::machine).talg_s - harness;
  CHECK_CLOSE(d_rr, 1e-6 * shared_lines(100, 16), 1e-9);
  // Against the block schedule without the term (the clipped end tiles fall to other
  // threads than with round-robin, so the schedules' other terms differ too).
  tmod::GpuParams bl = rr;
  bl.machine.schedule = tmod::TileSchedule::block;
  tmod::GpuParams gh_bl = gh;
  gh_bl.machine.schedule = tmod::TileSchedule::block;
  const double d_bl = tmod::evaluate(bl, st, size, t, tmod::Variant::machine).talg_s -
                      tmod::evaluate(gh_bl, st, size, t, tmod::Variant::machine).talg_s;
  // Blocks charge none: the lines at the block ends were measured to cost nothing
  // (docs/time.md, "Lines at the block ends").
  CHECK(d_bl == 0.0);
  CHECK(d_rr > 0.0);
  // The count is one line per row whatever the width: tile (4, 2), narrower than a cache
  // line, pays 2 lines per tile round (1 in the first and last wavefronts); (50, 16) 16.
  for (const auto& [ts1, tt] : {std::pair<i64, i64>{4, 2}, std::pair<i64, i64>{50, 16}}) {
    t.space = {{ts1, 0, 0}};
    t.time = tt;
    const double d = tmod::evaluate(rr, st, size, t, tmod::Variant::machine).talg_s -
                     tmod::evaluate(gh, st, size, t, tmod::Variant::machine).talg_s;
    CHECK_CLOSE(d, 1e-6 * shared_lines(ts1, tt), 1e-9);
  }
}

// Memory levels: per core against L1/L2, in all against L3, DRAM beyond; none without sizes.
// The line cost is per dimension: tau_line_s charges the lines of 2D stencils only,
// tau_line_3d_s those of 3D stencils only, and each moves T_alg where it applies.
void test_line_cost_per_dimension() {
  std::mt19937_64 rng(2127);
  int moved = 0;
  for (int i = 0; i < 600; ++i) {
    const int dims = 2 + i % 2;
    Case c = random_case(rng, dims);
    set_machine_terms(rng, c.gpu);
    if (!feasible(c)) continue;
    auto talg = [&](const tmod::GpuParams& g) {
      return tmod::evaluate(g, c.stencil, c.size, c.tiles, tmod::Variant::machine).talg_s;
    };
    const double base = talg(c.gpu);
    tmod::GpuParams other = c.gpu, own = c.gpu;
    (dims == 3 ? other.machine.tau_line_s : other.machine.tau_line_3d_s) += 1e-6;
    (dims == 3 ? own.machine.tau_line_3d_s : own.machine.tau_line_s) += 1e-6;
    CHECK(talg(other) == base);
    // T_alg is linear in the terms where k = 1 (piecewise linear otherwise).
    if (tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::exact).k != 1) continue;
    const auto row = tmod::design_row(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::machine);
    CHECK(row[dims == 3 ? 13 : 17] == 0.0);
    CHECK_CLOSE(talg(own) - base, 1e-6 * row[dims == 3 ? 17 : 13], 1e-9);
    if (row[dims == 3 ? 17 : 13] > 0) ++moved;
  }
  CHECK(moved > 100);
}

void test_memory_level() {
  tmod::GpuParams g = gtx980();
  g.n_sm = 2;
  tmod::ProblemSize size;
  size.time_steps = 10;
  auto level = [&](i64 s1, i64 s2) {
    size.space = {{s1, s2, 0}};
    return tmod::memory_level(g, 2, size);
  };
  CHECK(level(100, 100) == 3);  // no cache sizes: DRAM
  g.machine.cache_l1_bytes = 32 * 1024;
  g.machine.cache_l2_bytes = 512 * 1024;
  g.machine.cache_l3_bytes = 32 * 1024 * 1024;
  CHECK(level(40, 40) == 0);      // 8 * 42^2 / 2 = 7 KB per core
  CHECK(level(200, 200) == 1);    // 8 * 202^2 / 2 = 163 KB
  CHECK(level(1000, 1000) == 2);  // 8 MB in all
  CHECK(level(4000, 4000) == 3);  // 128 MB
}

// Eq. A.32's multiple of the innermost tile: 32 by default (0), the preset's where set; the
// batch kernels (paper: the AVX2 mask, exact/machine: feasibility()) agree with feasibility().
void test_innermost_multiple() {
  std::mt19937_64 rng(31);
  tmod::StencilParams st;
  st.c_iter_s = 1e-9;
  int checked = 0;
  for (int multiple : {0, 1, 3, 16, 32, 48}) {
    for (int dims = 2; dims <= 3; ++dims) {
      tmod::GpuParams g = cpu_like_machine(rng, 2);
      g.machine.innermost_multiple = multiple;
      st.n_space_dims = dims;
      tmod::ProblemSize size;
      size.space = {{500, 300, dims == 3 ? 200 : 0}};
      size.time_steps = 64;
      std::vector<std::int64_t> tiles;
      for (int i = 0; i < 3000; ++i) {
        tiles.push_back(1 + static_cast<std::int64_t>(rng() % 40));
        tiles.push_back(1 + static_cast<std::int64_t>(rng() % 100));
        if (dims == 3) tiles.push_back(1 + static_cast<std::int64_t>(rng() % 100));
        tiles.push_back(2 * (1 + static_cast<std::int64_t>(rng() % 16)));
      }
      const std::size_t stride = static_cast<std::size_t>(dims) + 1;
      const std::size_t n = tiles.size() / stride;
      for (auto variant : {tmod::Variant::paper, tmod::Variant::exact, tmod::Variant::machine}) {
        std::vector<double> talg(n);
        std::vector<std::uint32_t> reasons(n);
        tmod::BatchOutputs out;
        out.talg_s = talg.data();
        out.reasons = reasons.data();
        tmod::evaluate_batch(g, st, size, tiles.data(), n, variant, out, 1);
        for (std::size_t i = 0; i < n; ++i) {
          tmod::TileSizes t;
          for (std::size_t d = 0; d < static_cast<std::size_t>(dims); ++d) {
            t.space[d] = tiles[i * stride + d];
          }
          t.time = tiles[i * stride + static_cast<std::size_t>(dims)];
          const std::uint32_t want = tmod::feasibility(g, dims, t);
          const std::int64_t inner = t.space[static_cast<std::size_t>(dims - 1)];
          const int in_effect = multiple > 0 ? multiple : 32;
          CHECK(reasons[i] == want);
          CHECK(((want & tmod::kInnermostNotWarpMultiple) != 0) == (inner % in_effect != 0));
          ++checked;
        }
      }
    }
  }
  CHECK(checked == 6 * 2 * 3 * 3000);
  tmod::GpuParams bad = gtx980();
  bad.machine.innermost_multiple = -1;
  bool refused = false;
  try {
    bad.validate();
  } catch (const std::invalid_argument& e) {
    refused = std::string(e.what()).find("machine.innermost_multiple") != std::string::npos;
  }
  CHECK(refused);
}

// A CPU-like machine with an 8 MiB L3 and Jacobi 1D on 2^21 - 2 points: 8 (S1 + 2) = 16
// MiB of arrays, half of them in the L3 (DRAM share 0.5), the set-up of the DRAM tests.
struct Dram1D {
  tmod::GpuParams g;
  tmod::StencilParams st;
  tmod::ProblemSize size;
};
Dram1D dram_1d(std::uint64_t seed, int threads, i64 time_steps) {
  std::mt19937_64 rng(seed);
  Dram1D d{cpu_like_machine(rng, threads), {}, {}};
  d.g.machine.cache_l3_bytes = 8 << 20;
  d.st.n_space_dims = 1;
  d.st.c_iter_s = 7e-10;
  d.size.time_steps = time_steps;
  d.size.space = {{(i64{1} << 21) - 2, 0, 0}};
  return d;
}

// Arrays larger than the L3 in effect: the share 1 - L3 / B streams from DRAM, and the word
// terms blend L3's and DRAM's by it. Checked against a machine without an L3 (everything
// DRAM) whose DRAM terms are set to the blend by hand: the same T_alg, bit for bit.
void test_dram_share() {
  auto [g, st, size] = dram_1d(77, 2, 64);
  CHECK(tmod::memory_level(g, 1, size) == 3);
  CHECK(tmod::dram_share(g, 1, size) == 0.5);
  tmod::TileSizes t;
  t.space = {{64, 0, 0}};
  t.time = 16;
  const auto blended = tmod::evaluate(g, st, size, t, tmod::Variant::machine);
  tmod::GpuParams by_hand = g;
  by_hand.machine.cache_l3_bytes = 0;  // no L3: all DRAM
  auto& m = by_hand.machine;
  m.l_level_s_per_word[3] = 0.5 * g.machine.l_level_s_per_word[2] +
                            0.5 * g.machine.l_level_s_per_word[3];
  m.l_shared_s_per_word[3] = 0.5 * g.machine.l_shared_s_per_word[2] +
                             0.5 * g.machine.l_shared_s_per_word[3];
  m.l_prefetch_s_per_word = 0.5 * g.machine.l_prefetch_s_per_word;  // gap words x the share
  m.c_buffer_dram_s = 0.5 * g.machine.c_buffer_dram_s;  // the buffer's share x the share
  CHECK(tmod::dram_share(by_hand, 1, size) == 1.0);
  const auto hand = tmod::evaluate(by_hand, st, size, t, tmod::Variant::machine);
  CHECK(same(blended, hand));
  // The design row splits the word coefficient between the L3 and DRAM columns.
  const auto row = tmod::design_row(g, st, size, t, tmod::Variant::machine);
  CHECK(row[7] > 0 && row[7] == row[8] && row[5] == 0 && row[6] == 0);
  CHECK_CLOSE(row[7] + row[8], row[0], 1e-15);
  CHECK_CLOSE(dot(row, tmod::design_parameters(g, st.c_iter_s)), blended.talg_s, 1e-12);
  // A quarter of the arrays in L3 at 32 MiB; none below the L3 size; 1 without caches.
  size.space = {{(i64{1} << 22) - 2, 0, 0}};
  CHECK(tmod::dram_share(g, 1, size) == 0.75);
  size.space = {{(i64{1} << 19) - 2, 0, 0}};
  CHECK(tmod::memory_level(g, 1, size) == 2 && tmod::dram_share(g, 1, size) == 0.0);
  CHECK(tmod::dram_share(gtx980(), 1, size) == 1.0);
}

// Words streamed into a 1D wavefront's gaps (docs/time.md): per tile of the critical thread
// (one thread: every tile), min(tS1 - 2, prefetch_ahead_words) words times the arrays' DRAM
// share, at l_prefetch_s_per_word each; nothing in the caches, in 2D, or with either term 0.
void test_prefetch_gap() {
  auto [g, st, size] = dram_1d(91, 1, 64);
  g.machine.prefetch_ahead_words = 320;
  CHECK(tmod::dram_share(g, 1, size) == 0.5);
  tmod::TileSizes t;
  t.space = {{64, 0, 0}};
  t.time = 16;
  double tiles = 0;
  for (const WaveRows& w : wave_rows_1d(size.space[0], size.time_steps, 64, 16)) {
    tiles += static_cast<double>(w.n_tiles);
  }
  const double l_gap = 3e-10;
  g.machine.l_prefetch_s_per_word = 0;
  const double without = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
  g.machine.l_prefetch_s_per_word = l_gap;
  const double with = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
  CHECK_CLOSE(with - without, tiles * 62.0 * 0.5 * l_gap, 1e-9);  // gap 62 < 320
  auto row = tmod::design_row(g, st, size, t, tmod::Variant::machine);
  CHECK_CLOSE(row[20], tiles * 62.0 * 0.5, 1e-12);
  CHECK_CLOSE(dot(row, tmod::design_parameters(g, st.c_iter_s)), with, 1e-12);
  // The prefetcher's reach bounds the gap's words.
  g.machine.prefetch_ahead_words = 40;
  const double reach = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
  CHECK_CLOSE(reach - without, tiles * 40.0 * 0.5 * l_gap, 1e-9);
  g.machine.prefetch_ahead_words = 0;  // no prefetcher: no gap words
  CHECK(tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s == without);
  g.machine.prefetch_ahead_words = 320;
  // In L3 (share 0) nothing; likewise a 2D problem in DRAM.
  size.space = {{(i64{1} << 19) - 2, 0, 0}};
  g.machine.l_prefetch_s_per_word = 0;
  const double l3_without = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
  g.machine.l_prefetch_s_per_word = l_gap;
  CHECK(tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s == l3_without);
  row = tmod::design_row(g, st, size, t, tmod::Variant::machine);
  CHECK(row[20] == 0.0);
  tmod::StencilParams st2 = st;
  st2.n_space_dims = 2;
  tmod::ProblemSize size2;
  size2.space = {{2046, 2046, 0}};  // 2 levels x 2048^2 x 4 B = 32 MiB: DRAM share 0.75
  size2.time_steps = 8;
  tmod::TileSizes t2;
  t2.space = {{16, 64, 0}};
  t2.time = 8;
  CHECK(tmod::dram_share(g, 2, size2) > 0.0);
  const double with2 = tmod::evaluate(g, st2, size2, t2, tmod::Variant::machine).talg_s;
  g.machine.l_prefetch_s_per_word = 0;
  CHECK(tmod::evaluate(g, st2, size2, t2, tmod::Variant::machine).talg_s == with2);
}

// A tile taller than the problem (tT > T) leaves wider gaps in the wavefront that holds
// its narrow rows: between two runs of a wavefront lie the pitch 2 tS1 + tT - 2 less the
// run, tS1 + 2 max e(r) + 2 over the rows it holds (found here by walking the rows), at
// most prefetch_ahead_words of them streamed, per tile of the wavefront.
void test_prefetch_gap_clipped() {
  auto [g, st, size] = dram_1d(92, 1, 4);  // DRAM share 0.5
  const double l_gap = 3e-10;
  for (const i64 reach : {320, 40}) {
    g.machine.prefetch_ahead_words = static_cast<double>(reach);
    for (const auto& [ts1, tt, time_steps] : {std::array<i64, 3>{1, 128, 4},
                                               std::array<i64, 3>{16, 32, 4},
                                               std::array<i64, 3>{64, 16, 6},
                                               std::array<i64, 3>{16, 8, 64}}) {
      size.time_steps = time_steps;
      tmod::TileSizes t;
      t.space = {{ts1, 0, 0}};
      t.time = tt;
      double words = 0;
      for (const WaveRows& w : wave_rows_1d(size.space[0], time_steps, ts1, tt)) {
        i64 e_max = 0;
        for (i64 r = w.r_lo; r < w.r_hi; ++r) e_max = std::max(e_max, std::min(r, tt - 1 - r));
        const i64 gap = std::max<i64>(0, (2 * ts1 + tt - 2) - (ts1 + 2 * e_max + 2));
        words += static_cast<double>(w.n_tiles) * static_cast<double>(std::min(gap, reach)) * 0.5;
      }
      g.machine.l_prefetch_s_per_word = 0;
      const double without = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
      g.machine.l_prefetch_s_per_word = l_gap;
      const double with = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
      CHECK_CLOSE(with - without, words * l_gap, 1e-9);
      CHECK_CLOSE(tmod::design_row(g, st, size, t, tmod::Variant::machine)[20], words, 1e-12);
    }
  }
  // (1, 128) on T = 4: the whole tile would leave no gap (tS1 - 2 < 0), its rows 0-3 leave
  // 1 + 128 - 4 - 6 = 119 points, so only one wavefront has words.
  g.machine.prefetch_ahead_words = 320;
  size.time_steps = 4;
  tmod::TileSizes t;
  t.space = {{1, 0, 0}};
  t.time = 128;
  CHECK(tmod::design_row(g, st, size, t, tmod::Variant::machine)[20] > 0.0);
}

// A problem, a tile and a stencil in one expression each (unused dimensions 0).
tmod::ProblemSize problem(i64 s1, i64 s2, i64 s3, i64 time_steps) {
  tmod::ProblemSize p;
  p.space = {{s1, s2, s3}};
  p.time_steps = time_steps;
  return p;
}
tmod::TileSizes tile(i64 ts1, i64 ts2, i64 ts3, i64 tt) {
  tmod::TileSizes t;
  t.space = {{ts1, ts2, ts3}};
  t.time = tt;
  return t;
}
tmod::StencilParams stencil_of(int dims, double c_iter_s) {
  tmod::StencilParams st;
  st.n_space_dims = dims;
  st.c_iter_s = c_iter_s;
  return st;
}

// Tile buffers evicted by DRAM streams (docs/time.md): C_iter grows by c_buffer_dram_s times
// the DRAM share times the buffer's bytes over the L2's, on every path (scalar, batch, the
// 2D fast path); nothing in the caches, without an L2 size, in 1D or 3D, or with the term 0.
void test_buffer_evicted() {
  std::mt19937_64 rng(93);
  tmod::GpuParams g = cpu_like_machine(rng, 2);
  g.machine.cache_l3_bytes = 8 << 20;
  g.machine.c_buffer_dram_s = 0;
  const tmod::StencilParams st = stencil_of(2, 1.4e-9);
  // 2 levels x 2048^2 x 4 B = 32 MiB: DRAM share 0.75.
  const tmod::ProblemSize size = problem(2046, 2046, 0, 8);
  CHECK(tmod::dram_share(g, 2, size) == 0.75);
  const tmod::TileSizes t = tile(16, 64, 0, 8);
  const double buffer_bytes = 4.0 * (2.0 * 24 * 66 + 2.0 * 8 * 24);
  const double factor = 0.75 * buffer_bytes / static_cast<double>(1 << 20);
  const double c_buffer = 3e-10;
  auto talg = [&](const tmod::StencilParams& s, const tmod::ProblemSize& p,
                  const tmod::TileSizes& u) {
    return tmod::evaluate(g, s, p, u, tmod::Variant::machine).talg_s;
  };
  const double without = talg(st, size, t);
  // The same as C_iter raised by c_buffer x factor, the term itself 0.
  const double by_c_iter = talg(stencil_of(2, st.c_iter_s + c_buffer * factor), size, t);
  g.machine.c_buffer_dram_s = c_buffer;
  const double with = talg(st, size, t);
  CHECK(with > without);
  CHECK(with == by_c_iter);
  // The design row: its column is the C_iter column times the factor.
  const auto row = tmod::design_row(g, st, size, t, tmod::Variant::machine);
  CHECK_CLOSE(row[21], row[3] * factor, 1e-12);
  CHECK_CLOSE(dot(row, tmod::design_parameters(g, st.c_iter_s)), with, 1e-12);
  // The batch (and its 2D fast path) gives the scalar's T_alg bit for bit.
  std::vector<std::int64_t> flat;
  for (i64 ts1 : {8, 16, 31}) {
    for (i64 ts2 : {32, 64, 224}) flat.insert(flat.end(), {ts1, ts2, 8});
  }
  std::vector<std::uint32_t> reasons;
  const std::vector<double> batch =
      cm_test::batch_talg(g, st, size, flat, tmod::Variant::machine, 2, reasons);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    CHECK(reasons[i] == 0);
    CHECK(batch[i] == talg(st, size, tile(flat[3 * i], flat[3 * i + 1], 0, 8)));
  }
  // In L3 (share 0), and without an L2 size, nothing.
  const tmod::ProblemSize in_l3 = problem(1022, 1022, 0, 8);  // 8 MiB
  g.machine.c_buffer_dram_s = 0;
  const double l3_without = talg(st, in_l3, t);
  g.machine.c_buffer_dram_s = c_buffer;
  CHECK(talg(st, in_l3, t) == l3_without);
  g.machine.cache_l2_bytes = 0;
  const double no_l2 = talg(st, size, t);
  g.machine.c_buffer_dram_s = 0;
  CHECK(talg(st, size, t) == no_l2);
  // 1D and 3D problems in DRAM: nothing (2D only).
  g.machine.cache_l2_bytes = 1 << 20;
  const tmod::StencilParams st3 = stencil_of(3, st.c_iter_s);
  const tmod::ProblemSize size3 = problem(254, 254, 254, 4);
  const tmod::TileSizes t3 = tile(16, 16, 32, 8);
  CHECK(tmod::dram_share(g, 3, size3) > 0.0);
  g.machine.c_buffer_dram_s = c_buffer;
  const double with3 = talg(st3, size3, t3);
  CHECK(tmod::design_row(g, st3, size3, t3, tmod::Variant::machine)[21] == 0.0);
  g.machine.c_buffer_dram_s = 0;
  CHECK(talg(st3, size3, t3) == with3);
  const tmod::StencilParams st1 = stencil_of(1, 7e-10);
  const tmod::ProblemSize size1 = problem((i64{1} << 23) - 2, 0, 0, 4);
  const tmod::TileSizes t1 = tile(512, 0, 0, 8);
  CHECK(tmod::dram_share(g, 1, size1) > 0.0);
  const double without1 = talg(st1, size1, t1);
  g.machine.c_buffer_dram_s = c_buffer;
  CHECK(talg(st1, size1, t1) == without1);
}

// A measured DRAM-share curve replaces 1 - C / B: 0 below its first point, linear in log B
// between points, its last share past the last; the level is DRAM where the share is above
// 0, whatever cache_l3_bytes says. Points by hand: 4, 16 and 64 MiB at 0, 0.4 and 1.
void test_dram_share_curve() {
  std::mt19937_64 rng(78);
  tmod::GpuParams g = cpu_like_machine(rng, 2);
  g.machine.cache_l3_bytes = 512.0 * (1 << 20);  // sysfs's size: not read with a curve
  auto& m = g.machine;
  m.dram_curve_bytes = {};
  m.dram_curve_share = {};
  m.dram_curve_bytes[0] = 4 << 20;
  m.dram_curve_bytes[1] = 16 << 20;
  m.dram_curve_bytes[2] = 64 << 20;
  m.dram_curve_share[1] = 0.4;
  m.dram_curve_share[2] = 1.0;
  g.validate();
  CHECK(m.dram_curve_points() == 3);
  tmod::ProblemSize size;
  size.time_steps = 8;
  const auto at = [&](i64 bytes) {  // 1D arrays of `bytes` in all: 8 (S1 + 2) bytes
    size.space = {{bytes / 8 - 2, 0, 0}};
    return std::make_pair(tmod::memory_level(g, 1, size), tmod::dram_share(g, 1, size));
  };
  CHECK(at(16 << 20).first == 3 && at(16 << 20).second == 0.4);
  CHECK(at(64 << 20).second == 1.0 && at(i64{1} << 34).second == 1.0);
  // 8 MiB: halfway between 4 and 16 MiB in log B, so halfway between 0 and 0.4.
  CHECK_CLOSE(at(8 << 20).second, 0.2, 1e-15);
  CHECK_CLOSE(at(32 << 20).second, 0.7, 1e-15);
  // At and below the first point (share 0): L3, nothing from DRAM; L2 below L2's size.
  CHECK(at(4 << 20).first == 2 && at(4 << 20).second == 0.0);
  CHECK(at(3 << 20).first == 2);
  // The transfer blends L3's and DRAM's terms by the curve's share, as by 1 - C / B: the
  // same T_alg as without a curve at the capacity that gives that share (C = 0.6 B).
  size.space = {{(16 << 20) / 8 - 2, 0, 0}};
  tmod::StencilParams st;
  st.n_space_dims = 1;
  st.c_iter_s = 7e-10;
  tmod::TileSizes t;
  t.space = {{64, 0, 0}};
  t.time = 8;
  tmod::GpuParams blend = g;
  blend.machine.dram_curve_bytes = {};
  blend.machine.dram_curve_share = {};
  blend.machine.cache_l3_bytes = 0.6 * (16 << 20);
  CHECK_CLOSE(tmod::dram_share(blend, 1, size), 0.4, 1e-15);
  const auto curved = tmod::evaluate(g, st, size, t, tmod::Variant::machine);
  const auto hand = tmod::evaluate(blend, st, size, t, tmod::Variant::machine);
  CHECK_CLOSE(curved.talg_s, hand.talg_s, 1e-15);
  // Bad curves are named: one point, bytes not increasing, shares decreasing or past 1,
  // a point after an unused one.
  const auto bad = [&](auto change) {
    tmod::GpuParams b = g;
    change(b.machine);
    CHECK_THROWS(b.validate(), std::invalid_argument);
  };
  bad([](tmod::MachineTerms& x) { x.dram_curve_bytes[1] = x.dram_curve_bytes[2] = 0; });
  bad([](tmod::MachineTerms& x) { x.dram_curve_bytes[1] = 2 << 20; });
  bad([](tmod::MachineTerms& x) { x.dram_curve_share[2] = 0.3; });
  bad([](tmod::MachineTerms& x) { x.dram_curve_share[2] = 1.5; });
  bad([](tmod::MachineTerms& x) { x.dram_curve_bytes[4] = 1e9; });
  bad([](tmod::MachineTerms& x) { x.dram_curve_share[5] = 0.5; });
  bad([](tmod::MachineTerms& x) { x.dram_curve_bytes[1] = std::nan(""); });
}

// Threads: the model can say that fewer threads are faster (barrier and false sharing on a
// small 1D problem), and the shared-bandwidth term grows with the cores streaming.
void test_threads() {
  tmod::GpuParams g = gtx980();
  g.max_blocks_per_sm = 1;
  g.machine.threads_ref = 2;
  g.t_sync_s = 4e-8;
  g.machine.t_barrier_per_thread_s = 3e-8;
  g.machine.t_share_line_s = 2e-7;
  tmod::StencilParams st;
  st.n_space_dims = 1;
  st.c_iter_s = 7e-10;
  tmod::ProblemSize size;
  size.space = {{4096, 0, 0}};
  size.time_steps = 512;
  tmod::TileSizes t;
  t.space = {{4, 0, 0}};
  t.time = 4;
  auto at = [&](int n) {
    tmod::GpuParams h = g;
    h.n_sm = n;
    return tmod::evaluate(h, st, size, t, tmod::Variant::machine).talg_s;
  };
  CHECK(at(1) < at(2));
  // exact always prefers more threads here (no thread cost but T_sync).
  tmod::GpuParams e1 = g, e2 = g;
  e1.n_sm = 1;
  e2.n_sm = 2;
  CHECK(tmod::evaluate(e1, st, size, t, tmod::Variant::exact).talg_s >
        tmod::evaluate(e2, st, size, t, tmod::Variant::exact).talg_s);
  // Shared bandwidth: more cores streaming cost more per word.
  tmod::GpuParams s = g;
  s.machine = tmod::MachineTerms{};
  s.machine.threads_ref = 1;
  s.machine.l_shared_s_per_word = {{1e-10, 1e-10, 1e-10, 1e-10}};
  tmod::GpuParams s1 = s, s4 = s;
  s4.n_sm = 4;
  s1.n_sm = 1;
  tmod::GpuParams h1 = s1, h4 = s4;  // without the term; tau_line adds nothing in 1D
  for (tmod::GpuParams* p : {&h1, &h4}) {
    p->machine.l_shared_s_per_word = {{0, 0, 0, 0}};
    p->machine.tau_line_s = 1e-7;
  }
  const auto b4 = tmod::evaluate(s4, st, size, t, tmod::Variant::machine);
  const auto x4 = tmod::evaluate(h4, st, size, t, tmod::Variant::machine);
  // 3 cores beyond threads_ref, the words of a whole (4, 4) tile: 2 tS1 + 4 tT - 2 = 22.
  CHECK_CLOSE(b4.m_prime_s - x4.m_prime_s, 3e-10 * 22.0, 1e-9);
  CHECK(tmod::evaluate(s1, st, size, t, tmod::Variant::machine).talg_s ==
        tmod::evaluate(h1, st, size, t, tmod::Variant::machine).talg_s);
}

void test_bad_inputs() {
  tmod::GpuParams g = gtx980();
  auto refuses = [&](auto change, const char* name) {
    tmod::GpuParams h = g;
    change(h.machine);
    bool threw = false;
    try {
      h.validate();
    } catch (const std::invalid_argument& e) {
      threw = std::string(e.what()).find(name) != std::string::npos;
      if (!threw) std::fprintf(stderr, "    message without %s: %s\n", name, e.what());
    }
    CHECK(threw);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  refuses([](tmod::MachineTerms& m) { m.l_seg_s = -1e-9; }, "machine.l_seg_s");
  refuses([&](tmod::MachineTerms& m) { m.tau_line_s = nan; }, "machine.tau_line_s");
  refuses([](tmod::MachineTerms& m) { m.tau_line_3d_s = -1e-12; }, "machine.tau_line_3d_s");
  refuses([](tmod::MachineTerms& m) { m.t_share_line_s = 2.0; }, "machine.t_share_line_s");
  refuses([](tmod::MachineTerms& m) { m.t_cross_row_s = -1e-9; }, "machine.t_cross_row_s");
  refuses([](tmod::MachineTerms& m) { m.prefetch_ahead_words = -1; },
          "machine.prefetch_ahead_words");
  refuses([](tmod::MachineTerms& m) { m.prefetch_ahead_words = 2e6; },
          "machine.prefetch_ahead_words");
  refuses([&](tmod::MachineTerms& m) { m.l_prefetch_s_per_word = nan; },
          "machine.l_prefetch_s_per_word");
  refuses([](tmod::MachineTerms& m) { m.l_prefetch_s_per_word = -1e-10; },
          "machine.l_prefetch_s_per_word");
  refuses([&](tmod::MachineTerms& m) { m.c_buffer_dram_s = nan; }, "machine.c_buffer_dram_s");
  refuses([](tmod::MachineTerms& m) { m.c_buffer_dram_s = -1e-10; }, "machine.c_buffer_dram_s");
  refuses([](tmod::MachineTerms& m) { m.l_buffer_s_per_word = -1e-12; },
          "machine.l_buffer_s_per_word");
  refuses([](tmod::MachineTerms& m) { m.cache_l2_bytes = -1; }, "machine.cache_l2_bytes");
  refuses([](tmod::MachineTerms& m) { m.threads_ref = -1; }, "machine.threads_ref");
  refuses([](tmod::MachineTerms& m) { m.l_shared_s_per_word[2] = -1e-12; },
          "machine.l_shared_s_per_word[L3]");
  refuses([](tmod::MachineTerms& m) { m.l_level_s_per_word[3] = -1.0; },
          "machine.l_level_s_per_word[DRAM]");
  refuses([](tmod::MachineTerms& m) { m.t_barrier_per_thread_s = 1e-3; },
          "machine.t_barrier_per_thread_s");
  // A level faster than L's by more than L: one core's time per word would be negative.
  refuses([&](tmod::MachineTerms& m) { m.l_level_s_per_word[0] = -2 * g.l_s_per_word; },
          "machine.l_level_s_per_word[L1]");
  // Shared bandwidth relative to threads_ref = 8 beyond what L leaves for one core.
  refuses(
      [&](tmod::MachineTerms& m) {
        m.threads_ref = 8;
        m.l_shared_s_per_word[3] = g.l_s_per_word;
      },
      "machine.l_level_s_per_word[DRAM]");
  // design_row refuses infeasible tiles and bad inputs like evaluate().
  tmod::StencilParams st;
  st.n_space_dims = 2;
  st.c_iter_s = 1e-8;
  tmod::ProblemSize size;
  size.space = {{512, 512, 0}};
  size.time_steps = 64;
  tmod::TileSizes t;
  t.space = {{8, 33, 0}};
  t.time = 8;
  CHECK_THROWS(tmod::design_row(g, st, size, t, tmod::Variant::machine), std::invalid_argument);
  CHECK_THROWS(tmod::memory_level(g, 4, size), std::invalid_argument);
}

}  // namespace

// The machine variant's T_alg alone (evaluate_machine_talg, with the per-batch set-up, and
// evaluate_batch's T_alg-only `machine` path) against evaluate_exact's Breakdown, bit for
// bit: random 1D-3D cases with and without machine terms, CPU-like machines whose arrays
// fall in every memory level (the DRAM share included).
void test_talg_alone_bit_identical() {
  std::mt19937_64 rng(1515);
  int compared = 0;
  for (int i = 0; i < 6000; ++i) {
    const int dims = 1 + i % 3;
    Case c = random_case(rng, dims);
    if (i % 3 == 1) set_machine_terms(rng, c.gpu);
    if (i % 3 == 2) {
      c.gpu = cpu_like_machine(rng, 1 + static_cast<int>(rng() % 8));
      c.gpu.machine.cache_l3_bytes = static_cast<double>(1 + rng() % (64 << 20));
    }
    if (!feasible(c)) continue;
    const tmod::detail::MachineSetup setup =
        tmod::detail::machine_setup(c.gpu, dims, c.size);
    const double alone = tmod::detail::evaluate_machine_talg(c.gpu, c.stencil, c.size,
                                                             c.tiles, setup);
    const auto b = tmod::detail::evaluate_exact(c.gpu, c.stencil, c.size, c.tiles,
                                                tmod::detail::ExactPath::fast, true);
    CHECK(alone == b.talg_s);
    // The batch (T_alg only) against evaluate(), one tile per call.
    double talg = 0;
    std::uint32_t reasons = 0;
    tmod::BatchOutputs out;
    out.talg_s = &talg;
    out.reasons = &reasons;
    std::vector<std::int64_t> flat;
    for (int d = 0; d < dims; ++d) flat.push_back(c.tiles.space[d]);
    flat.push_back(c.tiles.time);
    tmod::evaluate_batch(c.gpu, c.stencil, c.size, flat.data(), 1, tmod::Variant::machine, out,
                         1);
    CHECK(reasons == tmod::kFeasible);
    CHECK(talg == tmod::evaluate(c.gpu, c.stencil, c.size, c.tiles, tmod::Variant::machine).talg_s);
    ++compared;
  }
  std::printf("  machine T_alg alone compared bit for bit: %d\n", compared);
  CHECK(compared > 3000);
}

// The harness replayed on the (t, s1) plane (cpp/src/measure.cpp: make_wavefronts, the
// plane fill of tile_1d/2d/3d and their stores; the tile schedule of `execute`): per
// wavefront, the largest over the threads of the columns (level t, s1 value i) a thread's
// tiles load from the arrays that a tile on another thread stored; summed over the
// wavefronts. The reference of the machine variant's cross_columns, which counts whole
// tiles at the ends of [0, S1) and only the previous wavefront's writers.
double cross_columns_replayed(i64 S1, i64 T, i64 tS1, i64 tT, i64 threads, bool blocks) {
  const i64 h = tT / 2, pitch = 2 * tS1 + tT - 2;
  auto e = [&](i64 r) { return std::min(r, tT - 1 - r); };
  auto fdiv = [](i64 a, i64 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  std::vector<int> owner(static_cast<std::size_t>((T + 2) * S1), -1);  // [level][i]
  double total = 0;
  for (i64 j = 0;; ++j) {
    const i64 t0 = (j - 1) * h;
    if (t0 >= T) break;
    const i64 off = j % 2 == 0 ? pitch / 2 : 0;
    const i64 r_lo = std::max<i64>(0, -t0), r_hi = std::min(tT, T - t0);
    std::vector<i64> bases;
    for (i64 p = fdiv(-(tS1 + h) - off, pitch) - 1; p <= fdiv(S1 + h - off, pitch) + 1; ++p) {
      const i64 c0 = p * pitch + off;
      bool nonempty = false;
      for (i64 r = r_lo; r < r_hi && !nonempty; ++r) {
        nonempty = std::max<i64>(c0 - e(r), 0) < std::min(c0 + tS1 + e(r), S1);
      }
      if (nonempty) bases.push_back(c0);
    }
    const i64 n = static_cast<i64>(bases.size());
    if (n == 0) continue;
    std::vector<double> per(static_cast<std::size_t>(threads), 0.0);
    std::vector<std::pair<std::size_t, int>> writes;
    for (i64 k = 0; k < n; ++k) {
      const int th = static_cast<int>(blocks ? ((k + 1) * threads + n - 1) / n - 1 : k % threads);
      const i64 c0 = bases[static_cast<std::size_t>(k)];
      i64 plo = 0, phi = 0;
      for (i64 r = r_lo; r < r_hi; ++r) {
        const i64 lo = std::max<i64>(c0 - e(r), 0), hi = std::min(c0 + tS1 + e(r), S1);
        if (lo >= hi) {
          plo = phi = 0;
          continue;
        }
        const i64 t = t0 + r;
        for (i64 i = std::max<i64>(lo - 1, 0); i < std::min(hi + 1, S1); ++i) {
          if (i >= plo && i < phi) continue;
          const int w = owner[static_cast<std::size_t>(t * S1 + i)];
          if (w >= 0 && w != th) per[static_cast<std::size_t>(th)] += 1;
        }
        i64 ilo = 0, ihi = 0;  // not stored: read only by this tile's next row
        if (r + 1 < r_hi) {
          const i64 nlo = std::max<i64>(c0 - e(r + 1), 0), nhi = std::min(c0 + tS1 + e(r + 1), S1);
          if (nlo < nhi) {
            ilo = nlo == 0 ? 0 : nlo + 1;
            ihi = nhi == S1 ? S1 : nhi - 1;
          }
        }
        for (i64 i = lo; i < hi; ++i) {
          if (!(i >= ilo && i < ihi)) writes.emplace_back(static_cast<std::size_t>((t + 1) * S1 + i), th);
        }
        plo = lo;
        phi = hi;
      }
    }
    for (const auto& [at, th] : writes) owner[at] = th;
    total += *std::max_element(per.begin(), per.end());
  }
  return total;
}

// The machine variant's count of the rows another thread stored (t_cross_row_s's design
// column) against the harness replayed: 2D (one row per column) and 3D (S2 + 2 rows per
// column), 2-4 threads, both schedules. Exact on the tile shapes and sizes of the shipped
// Heat 3D validation problems at 2 threads in blocks and, over random problems of 10 to 200
// points along s1, within 3% on average (2.0% at the seed here: the tiles clipped at the
// ends of [0, S1), counted whole by the model, and writers older than the tile below make
// the rest; the largest differences are round-robin problems narrower than one pitch); 1
// thread and 1D have none.
void test_cross_rows_replayed() {
  std::mt19937_64 rng(2131);
  auto column = [&](const tmod::GpuParams& g, int dims, i64 S1, i64 S2, i64 T, i64 tS1, i64 tT) {
    tmod::StencilParams st;
    st.n_space_dims = dims;
    st.c_iter_s = 1e-9;
    tmod::ProblemSize size;
    tmod::TileSizes t;
    size.space = {{S1, dims >= 2 ? S2 : 0, dims == 3 ? S2 : 0}};
    size.time_steps = T;
    t.space = {{tS1, dims >= 2 ? 32 : 0, dims == 3 ? 32 : 0}};
    t.time = tT;
    if (tmod::feasibility(g, dims, t) != tmod::kFeasible) return -1.0;
    return tmod::design_row(g, st, size, t, tmod::Variant::machine)[18];
  };
  // The shipped Heat 3D problems' tile shapes (30^3 x 32, 62^3 x 16; data/measurements).
  tmod::GpuParams g2 = cpu_like_machine(rng, 2);
  g2.machine.schedule = tmod::TileSchedule::block;
  int exact = 0;
  for (const auto& [S1, T] : {std::pair<i64, i64>{30, 32}, {62, 16}}) {
    for (i64 tS1 : {1, 3, 4, 6, 7, 8, 14, 15, 16}) {
      for (i64 tT : {2, 6, 8, 22}) {
        const double model = column(g2, 3, S1, S1, T, tS1, tT);
        if (model < 0) continue;
        const double want = cross_columns_replayed(S1, T, tS1, tT, 2, true) * (S1 + 2);
        CHECK_CLOSE(model, want, 1e-12);
        if (std::fabs(model - want) > 1e-9 * want) {
          std::printf("  cross rows: S1 %lld T %lld tS1 %lld tT %lld: %g, replayed %g\n",
                      static_cast<long long>(S1), static_cast<long long>(T),
                      static_cast<long long>(tS1), static_cast<long long>(tT), model, want);
        }
        ++exact;
      }
    }
  }
  double sum_rel = 0;
  int random = 0;
  auto pick = [&](i64 lo, i64 hi) { return lo + static_cast<i64>(rng() % (hi - lo + 1)); };
  for (int i = 0; i < 600; ++i) {
    const int threads = static_cast<int>(pick(1, 4));
    tmod::GpuParams g = cpu_like_machine(rng, threads);
    const bool blocks = rng() % 3 != 0;
    g.machine.schedule = blocks ? tmod::TileSchedule::block : tmod::TileSchedule::round_robin;
    const int dims = i % 8 == 0 ? 1 : static_cast<int>(pick(2, 3));
    const i64 S1 = pick(10, 200), S2 = pick(4, 40), T = pick(3, 40);
    const i64 tS1 = pick(1, 16), tT = pick(2, 12);
    const double model = column(g, dims, S1, S2, T, tS1, tT);
    if (model < 0) continue;
    const double rows = dims == 3 ? static_cast<double>(S2 + 2) : dims == 2 ? 1.0 : 0.0;
    const double want = threads == 1 ? 0.0 : cross_columns_replayed(S1, T, tS1, tT, threads, blocks) * rows;
    if (threads == 1 || dims == 1) {
      CHECK(model == 0.0);
      continue;
    }
    CHECK(model >= 0.0 && model <= 1.5 * want + 4.0 * rows * static_cast<double>(tT));
    sum_rel += std::fabs(model - want) / std::max(want, 1.0);
    ++random;
  }
  std::printf("  cross rows replayed: %d exact, %d random (mean |rel| %.4f)\n", exact, random,
              random > 0 ? sum_rel / random : 0.0);
  CHECK(exact > 40 && random > 100);
  CHECK(sum_rel / std::max(random, 1) < 0.03);
}

// The AVX2 form of the cross-row walk (time_exact.cpp, cross_rows_avx2) against the scalar
// walk: the cross-row column of the design row and T_alg, bit for bit, on tiles whose walks
// run from one row to past three vectors (tT up to 80), odd and even tT, the first and the
// partial last wavefronts, 2-4 threads, both schedules, 2D and 3D.
void test_cross_rows_simd_vs_scalar() {
  std::mt19937_64 rng(4471);
  auto pick = [&](i64 lo, i64 hi) { return lo + static_cast<i64>(rng() % (hi - lo + 1)); };
  int compared = 0, nonzero = 0;
  tmod::detail::set_clipped_cache_enabled(false);  // each call walks its rows
  for (int i = 0; i < 3000; ++i) {
    const int threads = static_cast<int>(pick(2, 4));
    tmod::GpuParams g = cpu_like_machine(rng, threads);
    g.machine.schedule =
        rng() % 2 == 0 ? tmod::TileSchedule::block : tmod::TileSchedule::round_robin;
    g.machine.t_cross_row_s = 5e-8;
    tmod::StencilParams st;
    st.n_space_dims = static_cast<int>(pick(2, 3));
    st.c_iter_s = 1e-9;
    tmod::ProblemSize size;
    const i64 S2 = pick(4, 40);
    size.space = {{pick(10, 600), S2, st.n_space_dims == 3 ? S2 : 0}};
    size.time_steps = pick(3, 200);
    tmod::TileSizes t;
    t.space = {{pick(1, 40), 32, st.n_space_dims == 3 ? 32 : 0}};
    t.time = pick(2, 80);
    if (tmod::feasibility(g, st.n_space_dims, t) != tmod::kFeasible) continue;
    tmod::detail::set_cross_rows_simd(false);
    const double scalar_col = tmod::design_row(g, st, size, t, tmod::Variant::machine)[18];
    const double scalar_talg = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
    tmod::detail::set_cross_rows_simd(true);
    const double simd_col = tmod::design_row(g, st, size, t, tmod::Variant::machine)[18];
    const double simd_talg = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
    CHECK(simd_col == scalar_col);
    CHECK(simd_talg == scalar_talg);
    ++compared;
    if (scalar_col > 0) ++nonzero;
  }
  tmod::detail::set_clipped_cache_enabled(true);
  std::printf("  cross-row walk, AVX2 vs scalar: %d tiles (%d with cross rows)\n", compared,
              nonzero);
  CHECK(compared > 1000 && nonzero > 500);
}

// 3D machine T_alg on the kind tables (pair_loop_3d with the per-line term) against the
// general row walk, bit for bit, with s2 the outer dimension (tS2 <= tS3) and the tabulated
// one (tS3 < tS2): the lines are summed per run of both dimensions' kinds, by the s2 kind.
void test_machine_3d_lines_both_orders() {
  std::mt19937_64 rng(5003);
  auto pick = [&](i64 lo, i64 hi) { return lo + static_cast<i64>(rng() % (hi - lo + 1)); };
  int compared[2] = {0, 0};
  for (int i = 0; i < 4000; ++i) {
    tmod::GpuParams g = cpu_like_machine(rng, static_cast<int>(pick(1, 4)));
    g.machine.tau_line_3d_s = 3e-9 * static_cast<double>(pick(1, 5));
    tmod::StencilParams st;
    st.n_space_dims = 3;
    st.c_iter_s = 1e-9 * static_cast<double>(pick(1, 9));
    tmod::ProblemSize size;
    // Mostly tiles the kind tables take (rows whole in s1, tS2 <= S2, tS3 <= S3; tS3 a
    // multiple of the preset's 32).
    size.space = {{pick(60, 300), pick(40, 120), pick(40, 120)}};
    size.time_steps = pick(2, 60);
    tmod::TileSizes t;
    t.space = {{pick(1, 12), pick(1, 96), 32 * pick(1, 2)}};
    t.time = 2 * pick(1, 10);
    if (tmod::feasibility(g, 3, t) != tmod::kFeasible) continue;
    const double fast = tmod::evaluate(g, st, size, t, tmod::Variant::machine).talg_s;
    const double general = tmod::detail::evaluate_exact(g, st, size, t,
                                                        tmod::detail::ExactPath::general, true)
                               .talg_s;
    CHECK(fast == general);
    ++compared[t.space[1] <= t.space[2] ? 0 : 1];
  }
  std::printf("  3D machine lines, kind tables vs general walk: %d with s2 outer, %d tabulated\n",
              compared[0], compared[1]);
  CHECK(compared[0] > 500 && compared[1] > 500);
}

int main() {
  test_zero_terms_bit_identical();
  test_talg_alone_bit_identical();
  test_linearity();
  test_terms_by_hand();
  test_clipped_shares_brute_force();
  test_cross_rows_replayed();
  test_cross_rows_simd_vs_scalar();
  test_machine_3d_lines_both_orders();
  test_clipped_cache_bit_identical();
  test_grouped_batch_order();
  test_critical_thread_fast_vs_general();
  test_line_cost_per_dimension();
  test_memory_level();
  test_dram_share();
  test_dram_share_curve();
  test_prefetch_gap();
  test_prefetch_gap_clipped();
  test_buffer_evicted();
  test_innermost_multiple();
  test_schedules();
  test_threads();
  test_bad_inputs();
  return cm_test::report("time_machine");
}

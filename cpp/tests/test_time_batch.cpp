// The fast evaluation paths of the time model give the same numbers as the reference ones:
// the closed-form hexagon row steps equal the explicit sum of Eqs. A.10/A.16/A.28, and the
// T_alg-only batch path equals evaluate() bit for bit on every point of the default spaces.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "../src/floor_sum.hpp"
#include "../src/time_detail.hpp"
#include "../src/time_exact.hpp"
#include "check.hpp"
#include "costmetrics/time.hpp"
#include "gpu_fixtures.hpp"

namespace tmod = costmetrics::time;

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// A random tile size: mostly small positive values (feasible-ish), sometimes zero, negative,
// odd where it matters or far too large, so that every reason of Eq. A.32 occurs.
std::int64_t random_extent(std::mt19937_64& rng, std::int64_t typical, bool warp_multiple) {
  const unsigned pick = static_cast<unsigned>(rng() % 100);
  if (pick < 2) return -static_cast<std::int64_t>(rng() % 5);  // 0 or negative
  if (pick < 3) return std::int64_t{1} << (20 + rng() % 40);   // far too large
  if (pick < 4) {
    return std::numeric_limits<std::int64_t>::max() - static_cast<std::int64_t>(rng() % 3);
  }
  const std::int64_t v = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(typical));
  if (warp_multiple && pick < 90) {
    return 32 * (1 + (v - 1) / 32 + static_cast<std::int64_t>(rng() % 2));
  }
  return v;
}

// The T_alg-only batch of `tiles` (the same tiles as `points`) against evaluate() bit for
// bit and its reasons against feasibility() (the first mismatch printed); returns the
// feasible tiles compared and adds those with tT > 256 (the batch's scalar closed form) to
// *n_long.
std::size_t check_batch(const tmod::GpuParams& gpu, const tmod::StencilParams& stencil,
                        const tmod::ProblemSize& size, const std::vector<std::int64_t>& tiles,
                        const std::vector<tmod::TileSizes>& points, tmod::Variant variant,
                        int threads, std::size_t* n_long = nullptr) {
  const std::size_t n = points.size();
  std::vector<double> talg(n);
  std::vector<std::uint32_t> reasons(n);
  tmod::BatchOutputs out;
  out.talg_s = talg.data();
  out.reasons = reasons.data();
  tmod::evaluate_batch(gpu, stencil, size, tiles.data(), n, variant, out, threads);
  std::size_t mismatches = 0, n_feasible = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t expected = tmod::feasibility(gpu, stencil.n_space_dims, points[i]);
    if (reasons[i] != expected) {
      ++mismatches;
      continue;
    }
    if (expected != tmod::kFeasible) {
      if (!std::isnan(talg[i])) ++mismatches;
      continue;
    }
    if (!cm_test::sampled(i)) continue;  // the batch computed it; compared: a sample
    ++n_feasible;
    if (n_long != nullptr && points[i].time > 256) ++*n_long;
    const double ref = tmod::evaluate(gpu, stencil, size, points[i], variant).talg_s;
    if (bits(talg[i]) != bits(ref)) {
      if (mismatches == 0) {
        std::fprintf(stderr,
                     "dims %d nV %d nSM %d S (%lld %lld %lld) T %lld tile (%lld %lld %lld; %lld): "
                     "%.17g != %.17g\n",
                     stencil.n_space_dims, gpu.n_v, gpu.n_sm,
                     static_cast<long long>(size.space[0]), static_cast<long long>(size.space[1]),
                     static_cast<long long>(size.space[2]),
                     static_cast<long long>(size.time_steps),
                     static_cast<long long>(points[i].space[0]),
                     static_cast<long long>(points[i].space[1]),
                     static_cast<long long>(points[i].space[2]),
                     static_cast<long long>(points[i].time), talg[i], ref);
      }
      ++mismatches;
    }
  }
  CHECK(mismatches == 0);
  return n_feasible;
}

// T_alg-only `paper` and `exact` batches vs evaluate() bit for bit, and its reasons vs feasibility(), on
// random tiles of every kind; batch sizes that are no multiple of any vector width.
void check_batch_against_evaluate(const tmod::GpuParams& gpu, int dims,
                                  const tmod::ProblemSize& size, std::int64_t typical_space,
                                  std::int64_t typical_time, std::mt19937_64& rng,
                                  std::size_t& n_feasible, std::size_t& n_long) {
  tmod::StencilParams stencil;
  stencil.n_space_dims = dims;
  stencil.c_iter_s = 1e-9 * static_cast<double>(1 + rng() % 50) / 7.0;
  const std::size_t stride = static_cast<std::size_t>(dims) + 1;
  // Under the sanitizers without the largest batch (two thirds of this test's time there;
  // the grouped path it reaches at the default group_min is checked by its own test below).
  std::vector<std::size_t> batch_sizes = {1, 3, 7, 13, 4099, 9001};
  if (cm_test::kSanitized) batch_sizes.pop_back();
  for (std::size_t n : batch_sizes) {
    std::vector<std::int64_t> tiles(n * stride);
    std::vector<tmod::TileSizes> points(n);
    for (std::size_t i = 0; i < n; ++i) {
      tmod::TileSizes& t = points[i];
      for (std::size_t d = 0; d < stride - 1; ++d) {
        const bool innermost = d + 2 == stride && dims > 1;
        t.space[d] = random_extent(rng, typical_space, innermost);
        tiles[i * stride + d] = t.space[d];
      }
      t.time = random_extent(rng, typical_time, false);
      const bool make_even = t.time > 0 && t.time < (std::int64_t{1} << 62) && rng() % 10 != 0;
      if (make_even) t.time += t.time % 2;  // mostly even
      tiles[i * stride + stride - 1] = t.time;
    }
    for (int run = 0; run < 3; ++run) {
      // `paper` at 1 and 3 threads, then `exact` (its T_alg-only path) at 3 threads.
      const int threads = run == 0 ? 1 : 3;
      const tmod::Variant variant = run < 2 ? tmod::Variant::paper : tmod::Variant::exact;
      n_feasible += check_batch(gpu, stencil, size, tiles, points, variant, threads, &n_long);
    }
  }
}

// The 2D `exact` T_alg-only batch's grouped path (detail::ExactTalgBatch, issue 15 eighth
// round) vs evaluate() bit for bit: tiles drawn from small pools of tS1, tS2 and tT, so that
// many tiles share (tS1, tT), (tS2, tT) or tT, and duplicates; shuffled (no order), with
// infeasible tiles mixed in (odd tT, tS2 off the warp multiple, too much shared memory);
// pool values 64 and 128 apart so that different groups share a cache slot; sizes with
// S1 near 2P - 1 and tS2 > S2 (the tiles that fall back to evaluate_exact_talg), T
// from 1 to 8192. 1 and 3 threads, the grouped path forced (group_min 1) and by size.
// Returns the feasible tiles compared.
std::size_t check_grouped_exact(const tmod::GpuParams& gpu, const tmod::ProblemSize& size,
                                std::size_t n, std::size_t group_min, std::mt19937_64& rng) {
  tmod::StencilParams stencil;
  stencil.n_space_dims = 2;
  stencil.c_iter_s = 1e-9 * static_cast<double>(1 + rng() % 50) / 7.0;
  std::vector<std::int64_t> pool_s1, pool_s2, pool_t;
  for (int i = 0; i < 6; ++i) {
    const std::int64_t a = 1 + static_cast<std::int64_t>(rng() % 70);
    pool_s1.push_back(a);
    pool_s1.push_back(a + 64);  // the same lattice cache slot as a
  }
  for (int i = 0; i < 5; ++i) {
    const std::int64_t a = 32 * (1 + static_cast<std::int64_t>(rng() % 40));
    pool_s2.push_back(a);
    pool_s2.push_back(a + 32 * 32);  // the same class cache slot as a (often)
  }
  pool_s2.push_back(1 + static_cast<std::int64_t>(rng() % 100));  // off the warp multiple
  for (int i = 0; i < 5; ++i) {
    const std::int64_t a = 2 * (1 + static_cast<std::int64_t>(rng() % 40));
    pool_t.push_back(a);
    pool_t.push_back(a + 128);  // the same time cache slot as a
  }
  pool_t.push_back(3 + 2 * static_cast<std::int64_t>(rng() % 20));  // odd: infeasible
  std::vector<std::int64_t> tiles(3 * n);
  std::vector<tmod::TileSizes> points(n);
  for (std::size_t i = 0; i < n; ++i) {
    tmod::TileSizes& t = points[i];
    t.space[0] = pool_s1[rng() % pool_s1.size()];
    t.space[1] = pool_s2[rng() % pool_s2.size()];
    t.time = pool_t[rng() % pool_t.size()];
    tiles[3 * i] = t.space[0];
    tiles[3 * i + 1] = t.space[1];
    tiles[3 * i + 2] = t.time;
  }
  const std::size_t saved = tmod::detail::exact_batch_group_min();
  tmod::detail::set_exact_batch_group_min(group_min);
  std::size_t n_feasible = 0;
  for (int threads : {1, 3}) {
    n_feasible += check_batch(gpu, stencil, size, tiles, points, tmod::Variant::exact, threads);
  }
  tmod::detail::set_exact_batch_group_min(saved);
  return n_feasible;
}

// A machine of the random batches: its shape, and random transfer and sync costs.
struct Machine {
  int n_v, n_sm, mtb;
  double smem_sm, smem_block;
};

tmod::GpuParams with_machine(const tmod::GpuParams& base, const Machine& m,
                             std::mt19937_64& rng) {
  tmod::GpuParams g = base;
  g.n_v = m.n_v;
  g.n_sm = m.n_sm;
  g.max_blocks_per_sm = m.mtb;
  g.smem_per_sm_words = m.smem_sm;
  g.smem_per_block_words = m.smem_block;
  g.l_s_per_word = 1e-10 * static_cast<double>(1 + rng() % 100) / 3.0;
  g.tau_sync_s = 1e-9 * static_cast<double>(rng() % 20) / 3.0;
  g.t_sync_s = 1e-6 * static_cast<double>(rng() % 20) / 7.0;
  return g;
}

}  // namespace

// detail::Reciprocal against integer division: divisors up to 2^40 (k nSM, nV), numerators
// on both sides of the fast path's 2^46 limit and up to 2^62, multiples and their neighbours
// (where a truncated product is most likely one off).
void check_reciprocal() {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int c = 0; c < 200000; ++c) {
    const std::int64_t d =
        1 + static_cast<std::int64_t>(rng() % (std::uint64_t{1} << (1 + rng() % 40)));
    const costmetrics::detail::Reciprocal div(d);
    std::int64_t y = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << (1 + rng() % 62)));
    if (c % 3 == 0) y = (y / d) * d + static_cast<std::int64_t>(rng() % 3) - 1;  // near a multiple
    if (y < 0) y = 0;
    CHECK(div.floor(y) == y / d);
    CHECK(div.ceil(y) == y / d + (y % d != 0 ? 1 : 0));
    ++checked;
  }
  std::printf("  reciprocal divisions checked: %d\n", checked);
}

// The machine batch's group order (time.cpp, machine_group_order): with the step of
// group_scramble_step, buckets q * step mod B (q = 0, 1, ...) visit every bucket once, and
// the first half of them holds about half of the buckets below B / 2, so that two threads
// taking one half each get like shares of small and large tiles. Knuth's 2654435761 mod B,
// the step before, is 1 for B = 961 and kept the keys' order (issue 21).
void check_group_scramble() {
  int checked = 0;
  double worst = 0;
  for (std::size_t b = 2; b <= 20000; ++b) {
    const std::size_t step = tmod::detail::group_scramble_step(b);
    CHECK(step >= 1 && step < b && std::gcd(step, b) == 1);
    std::size_t low = 0;
    for (std::size_t q = 0, v = 0; q < b / 2; ++q, v = (v + step) % b) low += 2 * v < b ? 1 : 0;
    const double share = static_cast<double>(low) / static_cast<double>(b / 2);
    if (b >= 100) {
      CHECK(share > 0.45 && share < 0.55);
      worst = std::max(worst, std::fabs(share - 0.5));
    }
    ++checked;
  }
  CHECK(tmod::detail::group_scramble_step(961) != 1);
  std::printf("  group order steps checked: %d (worst half share off by %.3f)\n", checked, worst);
}

int main() {
  check_reciprocal();
  check_group_scramble();
  // Closed form vs the loop sum_{x = tS1, tS1+2, ..., tS1+tT-2} ceil(x area / nV).
  for (std::int64_t n_v : {1, 7, 32, 128, 1000, 2048}) {
    for (std::int64_t tS1 = 1; tS1 <= 40; tS1 += 3) {
      for (std::int64_t tT = 2; tT <= 80; tT += 6) {
        for (std::int64_t area : {1, 3, 32, 96, 1024, 4096}) {
          std::int64_t loop = 0;
          for (std::int64_t x = tS1; x <= tS1 + tT - 2; x += 2) loop += (x * area + n_v - 1) / n_v;
          CHECK(costmetrics::detail::hexagon_row_steps(tS1, tT, area, n_v) == loop);
        }
      }
    }
  }

  // Batch, T_alg only vs with every term vs evaluate(), all variants and dimensions.
  const tmod::GpuParams gpu = cm_test::gtx980();
  struct Case {
    int dims;
    tmod::ProblemSize size;
  };
  std::vector<Case> cases(3);
  cases[0].dims = 1;
  cases[0].size.space = {{5000, 0, 0}};
  cases[0].size.time_steps = 777;
  cases[1].dims = 2;
  cases[1].size.space = {{4096, 3000, 0}};
  cases[1].size.time_steps = 1023;
  cases[2].dims = 3;
  cases[2].size.space = {{384, 200, 512}};
  cases[2].size.time_steps = 129;
  for (const Case& c : cases) {
    tmod::StencilParams stencil;
    stencil.n_space_dims = c.dims;
    stencil.c_iter_s = 3.68e-8;
    const tmod::SearchSpace space = tmod::default_search_space(c.dims);
    const std::size_t n = space.size();
    const std::vector<std::int64_t> tiles = cm_test::space_tiles(space, c.dims);
    for (auto variant : {tmod::Variant::paper, tmod::Variant::exact}) {
      if (variant == tmod::Variant::exact && c.dims == 1) continue;  // keep the test quick
      std::vector<double> fast(n), full(n), m_prime(n);
      std::vector<std::uint32_t> r1(n), r2(n);
      tmod::BatchOutputs a;
      a.talg_s = fast.data();
      a.reasons = r1.data();
      tmod::evaluate_batch(gpu, stencil, c.size, tiles.data(), n, variant, a, 2);
      tmod::BatchOutputs b;
      b.talg_s = full.data();
      b.reasons = r2.data();
      b.m_prime_s = m_prime.data();
      tmod::evaluate_batch(gpu, stencil, c.size, tiles.data(), n, variant, b, 1);
      std::size_t n_feasible = 0;
      bool same = true;
      for (std::size_t i = 0; i < n; ++i) {
        same = same && r1[i] == r2[i];
        if (r1[i] != tmod::kFeasible) continue;
        ++n_feasible;
        const double ref = tmod::evaluate(gpu, stencil, c.size, space.point(i), variant).talg_s;
        same = same && fast[i] == ref && full[i] == ref;
      }
      CHECK(same);
      CHECK(n_feasible > 100);
      // The search (issue 15, eighth round: `exact` reads T_alg alone, grouped in 2D):
      // with `within` large, every feasible point comes back with its value; each must be
      // evaluate()'s bit for bit, with the grouped path at its default minimum and forced
      // on every chunk, at 1 and 2 threads, and for `machine` on this GPU (no terms).
      const std::size_t saved_min = tmod::detail::exact_batch_group_min();
      for (std::size_t group_min : {saved_min, std::size_t{1}}) {
        tmod::detail::set_exact_batch_group_min(group_min);
        for (int threads : {1, 2}) {
          const auto search_variant =
              (threads == 2 && variant == tmod::Variant::exact) ? tmod::Variant::machine : variant;
          const tmod::SearchResult found =
              tmod::search(gpu, stencil, c.size, space, 1e6, search_variant, threads);
          bool search_same = found.near_optimal.size() == n_feasible &&
                             found.n_feasible == n_feasible;
          for (std::size_t j = 0; j < found.near_optimal.size() && search_same; ++j) {
            const double ref =
                tmod::evaluate(gpu, stencil, c.size, found.near_optimal[j], variant).talg_s;
            search_same = bits(found.near_optimal_talg_s[j]) == bits(ref);
          }
          search_same = search_same && bits(found.talg_min_s) == bits(found.near_optimal_talg_s[0]);
          CHECK(search_same);
        }
      }
      tmod::detail::set_exact_batch_group_min(saved_min);
    }
  }
  // The grouped 2D `exact` batch on a preset with machine terms (a CPU calibration's:
  // `exact` reads none of them): evaluate()'s values bit for bit, grouped at the default
  // minimum and on every chunk, 1 and 2 threads.
  {
    tmod::GpuParams g = gpu;
    g.machine.l_seg_s = 3e-9;
    g.machine.tau_line_s = 2e-9;
    g.machine.t_cross_row_s = 5e-8;
    g.machine.t_share_line_s = 5e-8;
    CHECK(!g.machine.all_zero());
    tmod::StencilParams stencil;
    stencil.n_space_dims = 2;
    stencil.c_iter_s = 1e-9;
    tmod::ProblemSize size;
    size.space = {{8192, 8192, 0}};
    size.time_steps = 512;
    const std::vector<std::int64_t> tiles =
        cm_test::space_tiles(tmod::default_search_space(2), 2, 3);
    const std::size_t n = tiles.size() / 3;
    const std::size_t saved_min = tmod::detail::exact_batch_group_min();
    std::size_t compared = 0;
    for (std::size_t group_min : {saved_min, std::size_t{1}}) {
      tmod::detail::set_exact_batch_group_min(group_min);
      for (int threads : {1, 2}) {
        std::vector<double> talg(n);
        std::vector<std::uint32_t> reasons(n);
        tmod::BatchOutputs out;
        out.talg_s = talg.data();
        out.reasons = reasons.data();
        tmod::evaluate_batch(g, stencil, size, tiles.data(), n, tmod::Variant::exact, out,
                             threads);
        bool same = true;
        for (std::size_t i = 0; i < n; ++i) {
          if (reasons[i] != tmod::kFeasible) continue;
          const tmod::TileSizes t{{{tiles[3 * i], tiles[3 * i + 1], 0}}, tiles[3 * i + 2]};
          same = same && bits(talg[i]) ==
                             bits(tmod::evaluate(g, stencil, size, t, tmod::Variant::exact).talg_s);
          ++compared;
        }
        CHECK(same);
      }
    }
    tmod::detail::set_exact_batch_group_min(saved_min);
    std::printf("  grouped exact batch with machine terms: %zu tiles compared\n", compared);
    CHECK(compared > 4000);
  }
  // Random tiles on several machines (nV = 1 ... 2048, nSM = 1 ... 32, a fractional M_SM,
  // shared memory up to 2^22 words so that large tT are feasible and take the long sums)
  // and sizes (tiny T, T < tT, odd extents, S1 T close to 2^53).
  std::mt19937_64 rng(20240611);
  std::size_t n_feasible = 0, n_long = 0;
  const Machine machines[] = {{128, 16, 32, 24576, 12288},   {1, 1, 1, 4096, 4096},
                              {32, 7, 2, 65536.5, 49152},    {100, 32, 16, 4194304, 4194304},
                              {2048, 3, 32, 98304, 98304},   {127, 13, 65536, 1000.25, 999.75}};
  for (const Machine& m : machines) {
    const tmod::GpuParams g = with_machine(gpu, m, rng);
    tmod::ProblemSize s1, s2, s3;
    for (std::int64_t T : {1, 5, 1023, 8192}) {
      s1.space = {{8191, 0, 0}};
      s1.time_steps = T;
      check_batch_against_evaluate(g, 1, s1, 200, 400, rng, n_feasible, n_long);
      s2.space = {{8192, 777, 0}};
      s2.time_steps = T;
      const bool large = m.smem_sm > 1e6;  // tT up to ~1400 feasible in 2D
      check_batch_against_evaluate(g, 2, s2, 70, large ? 600 : 70, rng, n_feasible, n_long);
      s3.space = {{257, 100, 513}};
      s3.time_steps = T;
      check_batch_against_evaluate(g, 3, s3, 33, large ? 200 : 40, rng, n_feasible, n_long);
    }
    s1.space = {{std::int64_t{1} << 40, 0, 0}};  // S1 T = 2^53
    s1.time_steps = std::int64_t{1} << 13;
    check_batch_against_evaluate(g, 1, s1, 500, 3000, rng, n_feasible, n_long);
    s1.space = {{3, 0, 0}};  // T near 2^53
    s1.time_steps = (std::int64_t{1} << 53) / 3;
    check_batch_against_evaluate(g, 1, s1, 500, 3000, rng, n_feasible, n_long);
  }
  std::printf("random batches: %zu feasible tiles, %zu with tT > 256\n", n_feasible, n_long);
  // The grouped 2D `exact` path (ExactTalgBatch) on the same machines.
  std::size_t n_grouped = 0;
  for (const Machine& m : machines) {
    const tmod::GpuParams g = with_machine(gpu, m, rng);
    for (std::int64_t T : {1, 5, 77, 1023, 8192}) {
      tmod::ProblemSize s;
      s.space = {{8192, 8192, 0}};
      s.time_steps = T;
      n_grouped += check_grouped_exact(g, s, 3001, 1, rng);
      s.space = {{300 + static_cast<std::int64_t>(rng() % 200), 700, 0}};  // S1 near 2P - 1
      n_grouped += check_grouped_exact(g, s, 2003, 1, rng);
    }
  }
  {
    // By size: a batch whose threads' shares reach the default group_min.
    tmod::ProblemSize s;
    s.space = {{8192, 8192, 0}};
    s.time_steps = 8192;
    n_grouped += check_grouped_exact(gpu, s, 3 * tmod::detail::exact_batch_group_min() + 5,
                                     tmod::detail::exact_batch_group_min(), rng);
  }
  std::printf("grouped exact batches: %zu feasible tiles\n", n_grouped);
  CHECK(n_grouped > 40000 / cm_test::kSanitizedStride);
  CHECK(n_feasible > 100000 / cm_test::kSanitizedStride);
  CHECK(n_long > 10000 / cm_test::kSanitizedStride);
  return cm_test::report("time_batch");
}

// Unit tests of the execution-time model, `paper` variant (thesis 000, Appendix A).
// Expected values are computed by hand from the equations; the intermediate numbers are
// written out so that a reader can redo them.
#include <cmath>
#include <stdexcept>

#include <string>

#include "check.hpp"
#include "gpu_fixtures.hpp"
#include "costmetrics/time.hpp"

using namespace costmetrics::time;
using cm_test::gtx980;

namespace {

StencilParams stencil(int dims, double c_iter_s) {
  StencilParams s;
  s.n_space_dims = dims;
  s.c_iter_s = c_iter_s;
  return s;
}

ProblemSize size(std::int64_t s1, std::int64_t s2, std::int64_t s3, std::int64_t t) {
  ProblemSize p;
  p.space = {{s1, s2, s3}};
  p.time_steps = t;
  return p;
}

TileSizes tiles(std::int64_t t1, std::int64_t t2, std::int64_t t3, std::int64_t tt) {
  TileSizes t;
  t.space = {{t1, t2, t3}};
  t.time = tt;
  return t;
}

void test_1d_hand_computed() {
  // S = 1000, T = 100, tS = 10, tT = 4, C_iter = 3.39e-8 (Jacobi-like).
  const Breakdown b = evaluate(gtx980(), stencil(1, 3.39e-8), size(1000, 0, 0, 100),
                               tiles(10, 0, 0, 4));
  CHECK(b.n_wavefronts == 51);          // A.3: T % tT = 0 -> eps = 1 -> 2*25 + 1
  CHECK(b.w_tile == 12);                // A.4: 10 + 4 - 2
  CHECK(b.pitch == 24);                 // A.5: 12 + 10 + 2
  CHECK(b.tiles_per_wavefront == 42);   // A.6: ceil(1000 / 24)
  CHECK(b.m_tile_words == 28);          // 2 (tS + tT)
  CHECK(b.k == 32);                     // min(floor(24576 / 28) = 877, 32)
  CHECK(b.m_io_words == 36);            // A.8: 2 (10 + 8)
  CHECK_CLOSE(b.m_prime_s, 36 * 2.944e-11 + 2 * 7.96e-10, 1e-12);  // A.9 = 2.65184e-9
  CHECK_CLOSE(b.c_s, 2 * 3.39e-8 * 2 + 4 * 7.96e-10, 1e-12);      // A.10, x = 10, 12
  CHECK_CLOSE(b.t_tile_s, 2.65184e-9 + 32 * 1.38784e-7, 1e-12);   // A.13
  // A.7: rounds = ceil(ceil(42/32) / 16) = 1.
  CHECK_CLOSE(b.talg_s, 51 * 4.44373984e-6 + 51 * 9.24e-7, 1e-12);
  CHECK_CLOSE(b.talg_s, 2.7375473184e-4, 1e-10);
  CHECK_CLOSE(b.t_ideal_s, 1000.0 * 100 * 3.39e-8 / (16 * 128), 1e-12);
}

void test_2d_hand_computed_hyperthreading() {
  // S1 = S2 = 1024, T = 64, tS1 = 4, tS2 = 32, tT = 8, C_iter = 3.68e-8 (Heat2D, GTX 980).
  const Breakdown b = evaluate(gtx980(), stencil(2, 3.68e-8), size(1024, 1024, 0, 64),
                               tiles(4, 32, 0, 8));
  CHECK(b.n_wavefronts == 17);
  CHECK(b.tiles_per_wavefront == 64);   // ceil(1024 / 16)
  CHECK(b.m_tile_words == 1066);        // A.20: 2 * 13 * 41
  CHECK(b.k == 23);                     // floor(24576 / 1066)
  CHECK(b.n_subtiles == 33);            // ceil((1024 + 8) / 32)
  CHECK(b.m_io_words == 1280);          // A.14: 2 * 32 * (4 + 16)
  CHECK_CLOSE(b.m_prime_s, 3.92752e-8, 1e-12);   // A.15
  // A.16: ceil(x*32/128) for x = 4, 6, 8, 10 -> 1 + 2 + 2 + 3 = 8.
  CHECK_CLOSE(b.c_s, 2 * 3.68e-8 * 8 + 8 * 7.96e-10, 1e-12);
  CHECK_CLOSE(b.t_tile_s, 3.92752e-8 + 23 * 5.95168e-7 * 33, 1e-12);  // A.17, k > 1
  CHECK_CLOSE(b.talg_s, 7.6958283824e-3, 1e-10);                       // A.18
}

void test_2d_hand_computed_single_block() {
  // k = 1 needs M_tile > M_SM / 2: lift the per-block limit to the whole SM.
  GpuParams g = gtx980();
  g.smem_per_block_words = g.smem_per_sm_words;
  const Breakdown b = evaluate(g, stencil(2, 3.68e-8), size(1024, 1024, 0, 64),
                               tiles(90, 96, 0, 8));
  CHECK(b.m_tile_words == 20790);       // 2 * 99 * 105
  CHECK(b.k == 1);
  CHECK(b.tiles_per_wavefront == 6);    // ceil(1024 / 188)
  CHECK(b.n_subtiles == 11);            // ceil(1032 / 96)
  CHECK_CLOSE(b.m_prime_s, 6.0075488e-7, 1e-12);
  // ceil(x*96/128) for x = 90, 92, 94, 96 -> 68 + 69 + 71 + 72 = 280.
  CHECK_CLOSE(b.c_s, 2 * 3.68e-8 * 280 + 8 * 7.96e-10, 1e-12);
  CHECK_CLOSE(b.t_tile_s, (6.0075488e-7 + 2.0614368e-5) * 11, 1e-12);  // A.17, k = 1
  CHECK_CLOSE(b.talg_s, 3.98293597856e-3, 1e-10);
}

void test_3d_hand_computed() {
  // S = 64^3, T = 16, tS1 = 2, tS2 = 2, tS3 = 32, tT = 2, C_iter = 1.55e-7 (Heat3D).
  const Breakdown b = evaluate(gtx980(), stencil(3, 1.55e-7), size(64, 64, 64, 16),
                               tiles(2, 2, 32, 2));
  CHECK(b.n_wavefronts == 17);
  CHECK(b.pitch == 6);                  // pitch of A.5, not A.23's tS1 + tT
  CHECK(b.tiles_per_wavefront == 11);   // ceil(64 / 6)
  CHECK(b.m_tile_words == 1750);        // 2 * 5 * 5 * 35
  CHECK(b.k == 14);
  CHECK(b.n_subtiles == 99);            // ceil(66/2) * ceil(66/32) = 33 * 3
  CHECK(b.m_io_words == 768);           // A.25: 2 * 2 * 32 * (2 + 4)
  CHECK_CLOSE(b.c_s, 2 * 1.55e-7 * 1 + 2 * 7.96e-10, 1e-12);  // A.28, x = 2 only
  CHECK_CLOSE(b.t_tile_s, 2.420192e-8 + 14 * 3.11592e-7 * 99, 1e-12);  // A.30 = 4.3189071392e-4
  CHECK_CLOSE(b.talg_s, 17 * 4.3189071392e-4 + 17 * 9.24e-7, 1e-10);                       // A.31
}

void test_wavefront_epsilon() {
  // A.3: eps = 0 iff 0 < T - floor(T/tT) tT <= tT/2.
  const GpuParams g = gtx980();
  const StencilParams s = stencil(1, 3.39e-8);
  CHECK(evaluate(g, s, size(100, 0, 0, 10), tiles(4, 0, 0, 8)).n_wavefronts == 4);   // r = 2
  CHECK(evaluate(g, s, size(100, 0, 0, 12), tiles(4, 0, 0, 8)).n_wavefronts == 4);   // r = 4
  CHECK(evaluate(g, s, size(100, 0, 0, 13), tiles(4, 0, 0, 8)).n_wavefronts == 5);   // r = 5
  CHECK(evaluate(g, s, size(100, 0, 0, 16), tiles(4, 0, 0, 8)).n_wavefronts == 5);   // r = 0
}

void test_feasibility() {
  const GpuParams g = gtx980();
  CHECK(feasibility(g, 2, tiles(4, 32, 0, 8)) == kFeasible);
  CHECK(feasibility(g, 2, tiles(4, 32, 0, 7)) & kOddTimeTile);
  CHECK(feasibility(g, 2, tiles(4, 33, 0, 8)) & kInnermostNotWarpMultiple);
  CHECK(feasibility(g, 3, tiles(2, 3, 32, 2)) == kFeasible);  // tS2 free in 3D: 2*5*6*35 words
  CHECK(feasibility(g, 3, tiles(4, 32, 33, 8)) & kInnermostNotWarpMultiple);
  CHECK(feasibility(g, 2, tiles(0, 32, 0, 8)) == kNonPositiveTile);
  CHECK(feasibility(g, 2, tiles(4, 32, 0, -2)) == kNonPositiveTile);
  // M_tile = 2 (tS1+tT+1)(tS2+tT+1): 2 * 52 * 105 = 10920 fits, 2 * 61 * 105 = 12810 does not.
  CHECK(feasibility(g, 2, tiles(43, 96, 0, 8)) == kFeasible);
  CHECK(feasibility(g, 2, tiles(52, 96, 0, 8)) == kExceedsBlockSharedMemory);
  CHECK(feasibility(g, 1, tiles(std::int64_t{1} << 31, 0, 0, 2)) & kExceedsBlockSharedMemory);
  CHECK_THROWS(evaluate(g, stencil(2, 1e-8), size(64, 64, 0, 64), tiles(4, 33, 0, 8)),
               std::invalid_argument);
}

void test_bad_inputs() {
  const GpuParams g = gtx980();
  CHECK_THROWS(evaluate(g, stencil(2, 1e-8), size(0, 64, 0, 64), tiles(4, 32, 0, 8)),
               std::invalid_argument);
  CHECK_THROWS(evaluate(g, stencil(2, 1e-8), size(64, 64, 0, -1), tiles(4, 32, 0, 8)),
               std::invalid_argument);
  CHECK_THROWS(evaluate(g, stencil(4, 1e-8), size(64, 64, 0, 64), tiles(4, 32, 0, 8)),
               std::invalid_argument);
  CHECK_THROWS(evaluate(g, stencil(2, -1.0), size(64, 64, 0, 64), tiles(4, 32, 0, 8)),
               std::invalid_argument);
  CHECK_THROWS(evaluate(g, stencil(3, 1e-8), size(1 << 30, 1 << 30, 1 << 30, 64),
                        tiles(4, 4, 32, 8)),
               std::overflow_error);
}

// Issue 6: inputs whose results used to overflow, wrap or become non-finite are refused
// by validate(), naming the field; results at the limits are exact and finite.
void test_limits() {
  GpuParams g = gtx980();
  g.smem_per_sm_words = 0x1p80;  // was accepted; k became -2^63
  CHECK_THROWS(g.validate(), std::invalid_argument);
  g = gtx980();
  g.tau_sync_s = 1e308;  // was accepted; T_alg became inf
  CHECK_THROWS(g.validate(), std::invalid_argument);
  g = gtx980();
  g.t_sync_s = std::nan("");
  CHECK_THROWS(g.validate(), std::invalid_argument);
  CHECK_THROWS(stencil(2, 1.7e308).validate(), std::invalid_argument);
  // Messages name the field and print the value exactly (was "-0.000000").
  g = gtx980();
  g.tau_sync_s = -3e-8;
  bool named = false;
  try {
    g.validate();
  } catch (const std::invalid_argument& e) {
    named = std::string(e.what()) == "tau_sync_s: must be 0 or in [1e-290, 1] s, got -3e-08";
  }
  CHECK(named);
  // adv_a 7: subnormal times (5e-324 gave T_ideal = 0) are refused; 0 and the floor are not.
  CHECK_THROWS(stencil(2, 5e-324).validate(), std::invalid_argument);
  g = gtx980();
  g.tau_sync_s = 5e-324;
  CHECK_THROWS(g.validate(), std::invalid_argument);
  g.tau_sync_s = 0.0;
  g.validate();
  g.tau_sync_s = kMinTimeParameterS;
  g.validate();
  stencil(2, kMinTimeParameterS).validate();
  // hyperthreading_factor: M_tile = 0 was inf converted to int64.
  CHECK_THROWS(hyperthreading_factor(gtx980(), 0.0), std::invalid_argument);
  CHECK(hyperthreading_factor(gtx980(), 1e-300) == 32);  // min(huge, MTB_SM) in double
  // m_tile_words of tiles near 2^62: computed in double, no signed overflow.
  CHECK(m_tile_words(2, tiles(std::int64_t{1} << 62, std::int64_t{1} << 62, 0, 2)) > 1e37);
  CHECK(feasibility(gtx980(), 3, tiles(1 << 23, 1 << 20, 1 << 20, 2)) != kFeasible);
  // At the largest accepted shared memory, the largest feasible 1D tile evaluates finitely
  // in both variants: M_SM = 2^22 words, M_tile = 2 (2 + tT) <= 2^22, tT = 2^21 - 2.
  g = gtx980();
  g.smem_per_sm_words = g.smem_per_block_words = kMaxSmemWords;
  const auto big = tiles(2, 0, 0, (std::int64_t{1} << 21) - 2);
  CHECK(feasibility(g, 1, big) == kFeasible);
  CHECK(feasibility(g, 1, tiles(2, 0, 0, std::int64_t{1} << 21)) != kFeasible);
  for (const Variant v : {Variant::paper, Variant::exact}) {
    const Breakdown b = evaluate(g, stencil(1, 1.0), size(1 << 20, 0, 0, 1 << 10), big, v);
    CHECK(std::isfinite(b.talg_s) && b.talg_s > 0 && b.k == 1);
  }
  // The slowest accepted machine still gives finite times.
  g = gtx980();
  g.tau_sync_s = g.t_sync_s = g.l_s_per_word = 1.0;
  const Breakdown slow =
      evaluate(g, stencil(3, 1.0), size(1 << 17, 1 << 17, 1 << 9, 1 << 10), tiles(4, 4, 32, 6));
  CHECK(std::isfinite(slow.talg_s) && slow.talg_s >= slow.t_ideal_s);
  // Search spaces are bounded.
  SearchSpace huge;
  huge.space = {std::vector<std::int64_t>(5000, 8), std::vector<std::int64_t>(5000, 32)};
  huge.time = {2};
  CHECK_THROWS(huge.validate(), std::invalid_argument);
}

void test_invariants() {
  // T_alg grows with T and with S (paper variant, fixed tiles).
  const GpuParams g = gtx980();
  const StencilParams s = stencil(2, 3.68e-8);
  const TileSizes t = tiles(8, 64, 0, 8);
  double previous = 0;
  for (std::int64_t T = 8; T <= 4096; T *= 2) {
    const double talg = evaluate(g, s, size(2048, 2048, 0, T), t).talg_s;
    CHECK(talg > previous);
    previous = talg;
  }
  previous = 0;
  for (std::int64_t S = 64; S <= 16384; S *= 2) {
    const double talg = evaluate(g, s, size(S, S, 0, 512), t).talg_s;
    CHECK(talg > previous);
    previous = talg;
  }
}

void test_search() {
  const GpuParams g = gtx980();
  const StencilParams s = stencil(2, 3.68e-8);
  const SearchSpace space = default_search_space(2);
  const SearchResult r = search(g, s, size(8192, 8192, 0, 8192), space, 0.10);
  CHECK(r.n_points == space.size());
  CHECK(r.n_points >= 18000);  // at least the paper's ~18,000 points (A.6.3)
  CHECK(r.n_feasible > 4000 && r.n_feasible < r.n_points);  // the 48 KB limit binds
  CHECK(feasibility(g, 2, r.best) == kFeasible);
  CHECK(!r.near_optimal.empty());
  CHECK(r.near_optimal_talg_s.front() == r.talg_min_s);
  CHECK(r.near_optimal_talg_s.back() <= 1.10 * r.talg_min_s);
  // The minimum is a true minimum over the space: spot-check against single evaluations.
  for (std::size_t i = 0; i < space.size(); i += 97) {
    const TileSizes t = space.point(i);
    if (feasibility(g, 2, t) != kFeasible) continue;
    CHECK(evaluate(g, s, size(8192, 8192, 0, 8192), t).talg_s >= r.talg_min_s);
  }
  // Single- and multi-threaded searches agree.
  const SearchResult r1 = search(g, s, size(8192, 8192, 0, 8192), space, 0.10, Variant::paper, 1);
  CHECK(r1.talg_min_s == r.talg_min_s);
  CHECK(r1.near_optimal.size() == r.near_optimal.size());
}

void test_batch_matches_scalar() {
  const GpuParams g = gtx980();
  const StencilParams s = stencil(2, 3.68e-8);
  const std::int64_t rows[] = {4, 32, 8, 4, 33, 8, 16, 64, 12, 3, 32, 7};
  double talg[4];
  std::uint32_t reasons[4];
  BatchOutputs out;
  out.talg_s = talg;
  out.reasons = reasons;
  evaluate_batch(g, s, size(1024, 1024, 0, 64), rows, 4, Variant::paper, out);
  CHECK_CLOSE(talg[0], evaluate(g, s, size(1024, 1024, 0, 64), tiles(4, 32, 0, 8)).talg_s, 0);
  CHECK(std::isnan(talg[1]) && reasons[1] == kInnermostNotWarpMultiple);
  CHECK_CLOSE(talg[2], evaluate(g, s, size(1024, 1024, 0, 64), tiles(16, 64, 0, 12)).talg_s, 0);
  CHECK(std::isnan(talg[3]) && reasons[3] == kOddTimeTile);
}

void test_overhead() {
  const GpuParams g = gtx980();
  const StencilParams s = stencil(2, 3.68e-8);
  const ProblemSize p = size(8192, 8192, 0, 8192);
  const double ideal = t_ideal_s(g, s, p);
  CHECK_CLOSE(ideal, 8192.0 * 8192 * 8192 * 3.68e-8 / (16 * 128), 1e-12);
  CHECK_CLOSE(t_overhead_closed_form_s(g, s, p, tiles(8, 64, 0, 8)), ideal / 12.0, 1e-12);
  // The narrowed set keeps, for every tS2, only maximal faces.
  const auto narrowed = max_hexagonal_face_tiles(g, 2, default_search_space(2));
  CHECK(!narrowed.empty());
  for (const auto& t : narrowed) CHECK(feasibility(g, 2, t) == kFeasible);
}

}  // namespace

// SearchSpace::walk (the searches' feasibility pass) visits the points of point(index), in
// index order, on spaces of 1-3 dimensions including single-candidate ones; and the search
// over a space finds the same optimum as evaluating point(index) one by one.
void test_walk_matches_point() {
  std::vector<SearchSpace> spaces;
  for (int dims = 1; dims <= 3; ++dims) spaces.push_back(default_search_space(dims));
  SearchSpace odd;
  odd.space = {{5}, {7, 9, 11}, {64}};
  odd.time = {2, 6};
  spaces.push_back(odd);
  SearchSpace one;
  one.space = {{3}};
  one.time = {4};
  spaces.push_back(one);
  SearchSpace two;
  two.space = {{1, 2, 3}, {32, 64}};
  two.time = {2, 4, 8};
  spaces.push_back(two);
  for (const SearchSpace& s : spaces) {
    std::size_t expected = 0;
    bool same = true;
    s.walk([&](std::size_t index, const TileSizes& t) {
      const TileSizes p = s.point(index);
      same = same && index == expected && t.space == p.space && t.time == p.time;
      ++expected;
    });
    CHECK(same);
    CHECK(expected == s.size());
  }
  // The search's optimum and feasible count against a loop over point(index).
  const GpuParams gpu = gtx980();
  StencilParams st;
  st.n_space_dims = 2;
  st.c_iter_s = 3.68e-8;
  ProblemSize size;
  size.space = {{4096, 4096, 0}};
  size.time_steps = 2048;
  const SearchSpace space = default_search_space(2);
  for (Variant v : {Variant::paper, Variant::exact}) {
    const SearchResult r = search(gpu, st, size, space, 0.0, v, 1);
    double best = 1e300;
    std::size_t feasible = 0;
    TileSizes arg;
    for (std::size_t i = 0; i < space.size(); ++i) {
      const TileSizes t = space.point(i);
      if (feasibility(gpu, 2, t) != kFeasible) continue;
      ++feasible;
      const double value = evaluate(gpu, st, size, t, v).talg_s;
      if (value < best) best = value, arg = t;
    }
    CHECK(r.n_feasible == feasible);
    CHECK(r.talg_min_s == best);
    CHECK(r.best.space == arg.space && r.best.time == arg.time);
  }
}

int main() {
  test_walk_matches_point();
  test_1d_hand_computed();
  test_2d_hand_computed_hyperthreading();
  test_2d_hand_computed_single_block();
  test_3d_hand_computed();
  test_wavefront_epsilon();
  test_feasibility();
  test_bad_inputs();
  test_limits();
  test_invariants();
  test_search();
  test_batch_matches_scalar();
  test_overhead();
  return cm_test::report("time");
}

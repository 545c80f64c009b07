// Tests of the measurement harness (costmetrics/measure.hpp): every tiled run must equal
// the naive untiled stencil bitwise, in 1D and 2D, for tile shapes that leave partial tiles
// at every boundary (S not a multiple of the pitch or of tS2 / tS3, T not a multiple of
// tT), in 1D, 2D and 3D.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "costmetrics/measure.hpp"
#include "costmetrics/time.hpp"

namespace cm = costmetrics::measure;

namespace {

cm::RunConfig config(const std::string& stencil, std::int64_t s1, std::int64_t s2,
                     std::int64_t t, std::int64_t ts1, std::int64_t ts2, std::int64_t tt,
                     std::int64_t threads) {
  cm::RunConfig c;
  c.stencil = stencil;
  c.size_s1 = s1;
  c.size_s2 = s2;
  c.size_t = t;
  c.tile_s1 = ts1;
  c.tile_s2 = ts2;
  c.tile_t = tt;
  c.threads = threads;
  c.repeats = 1;
  c.warmup = 0;
  c.pin = false;
  return c;
}

bool same(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

int main() {
  // Hand check of the naive 1D stencil: S = 3, T = 1, boundary 0.5. The tiled code must
  // agree with it; here only the naive code's shape (S values) and range are checked.
  {
    const auto v = cm::naive("jacobi1d", 3, 0, 0, 1);
    CHECK(v.size() == 3);
    for (float x : v) CHECK(x > 0.0f && x < 1.0f);
  }
  // 1D: many tile shapes, including tS1 = 1, tT = 2 (degenerate) and tiles wider than S.
  const std::int64_t shapes_1d[][4] = {
      {37, 11, 1, 2},  {37, 11, 3, 4},   {37, 11, 5, 6},  {64, 16, 8, 8},  {50, 33, 4, 10},
      {19, 40, 2, 12}, {100, 7, 64, 16}, {5, 9, 16, 4},   {1, 3, 1, 2},    {257, 64, 31, 30},
  };
  for (const auto& s : shapes_1d) {
    for (std::int64_t threads : {1, 2, 3}) {
      for (const std::string schedule : {"round-robin", "block"}) {
        auto cfg = config("jacobi1d", s[0], 0, s[1], s[2], 0, s[3], threads);
        cfg.schedule = schedule;
        const auto got = cm::tiled(cfg);
        const auto want = cm::naive("jacobi1d", s[0], 0, 0, s[1]);
        CHECK(same(got, want));
      }
    }
  }
  // 2D: every stencil, shapes with partial prisms and sub-tiles on all boundaries.
  const std::int64_t shapes_2d[][6] = {
      {13, 17, 9, 1, 2, 2},  {13, 17, 9, 2, 3, 4},   {21, 10, 11, 3, 4, 6},
      {16, 32, 8, 4, 8, 8},  {9, 40, 13, 5, 32, 4},  {30, 7, 20, 2, 5, 10},
      {5, 5, 6, 8, 64, 2},   {33, 29, 17, 1, 7, 12}, {1, 1, 3, 1, 2, 2},
  };
  for (const std::string stencil : {"jacobi2d", "heat2d", "laplacian2d", "gradient2d"}) {
    for (const auto& s : shapes_2d) {
      for (std::int64_t threads : {1, 2, 3}) {
        for (const std::string schedule : {"round-robin", "block"}) {
          auto cfg = config(stencil, s[0], s[1], s[2], s[3], s[4], s[5], threads);
          cfg.schedule = schedule;
          const auto got = cm::tiled(cfg);
          const auto want = cm::naive(stencil, s[0], s[1], 0, s[2]);
          CHECK(same(got, want));
        }
      }
    }
  }
  // Hand check of the naive 3D stencil: one interior point of a 3 x 3 x 3 cube after one
  // step, from the harness' data (the center is the update of its six neighbours).
  {
    const auto v0 = cm::naive("heat3d", 3, 3, 3, 1);
    CHECK(v0.size() == 27);
    for (float x : v0) CHECK(x > 0.0f && x < 1.0f);
    // T = 2 from T = 1 by hand at the center (1, 1, 1): its neighbours are all interior.
    const auto v1 = cm::naive("heat3d", 3, 3, 3, 2);
    auto at = [&](const std::vector<float>& a, int i, int j, int k) { return a[(i * 3 + j) * 3 + k]; };
    const float c = at(v0, 1, 1, 1);
    const float want = c + 0.125f * (at(v0, 0, 1, 1) - 2.0f * c + at(v0, 2, 1, 1)) +
                       0.125f * (at(v0, 1, 0, 1) - 2.0f * c + at(v0, 1, 2, 1)) +
                       0.125f * (at(v0, 1, 1, 0) - 2.0f * c + at(v0, 1, 1, 2));
    CHECK(at(v1, 1, 1, 1) == want);
  }
  // 3D: partial slabs, sub-slabs on every boundary, tS2 / tS3 of 1, tiles wider than the
  // space, tT larger than tS2 and tS3.
  const std::int64_t shapes_3d[][8] = {
      // S1, S2, S3, T, tS1, tS2, tS3, tT
      {7, 6, 9, 5, 1, 1, 1, 2},    {9, 7, 11, 9, 2, 3, 4, 4},   {12, 10, 8, 11, 3, 4, 5, 6},
      {5, 13, 6, 7, 2, 2, 32, 4},  {10, 5, 17, 13, 4, 6, 3, 8}, {3, 4, 5, 6, 8, 16, 16, 2},
      {1, 1, 1, 3, 1, 1, 1, 2},    {16, 9, 12, 10, 1, 2, 7, 10}, {6, 11, 10, 8, 5, 1, 2, 4},
  };
  for (const auto& s : shapes_3d) {
    const auto want = cm::naive("heat3d", s[0], s[1], s[2], s[3]);
    for (std::int64_t threads : {1, 2, 3}) {
      for (const std::string schedule : {"round-robin", "block"}) {
        auto cfg = config("heat3d", s[0], s[1], s[3], s[4], s[5], s[7], threads);
        cfg.size_s3 = s[2];
        cfg.tile_s3 = s[6];
        cfg.schedule = schedule;
        const auto got = cm::tiled(cfg);
        CHECK(same(got, want));
      }
    }
  }
  // run() on 3D: checked, counters consistent with the problem.
  {
    auto cfg = config("heat3d", 14, 12, 10, 3, 4, 4, 2);
    cfg.size_s3 = 20;
    cfg.tile_s3 = 8;
    const auto r = cm::run(cfg);
    CHECK(r.checked && r.correct && r.max_abs_error == 0.0);
    CHECK(r.points == 14 * 12 * 20 * 10);
    CHECK(r.words_stored >= 14 * 12 * 20);  // at least the final level
    CHECK(r.words_loaded > 0 && r.n_subtiles >= r.n_tiles);
  }
  // A sub-tile wider than the skewed extent S + tT runs as the clipped one (harness 5):
  // the same result, sub-tiles and copies for tS2 (and tS3) of S + tT and far beyond.
  {
    auto cfg = config("laplacian2d", 30, 40, 12, 5, 40 + 6, 6, 2);
    const auto clipped = cm::run(cfg);
    for (const std::int64_t wide : {40 + 7, 200, 4000}) {
      cfg.tile_s2 = wide;
      const auto r = cm::run(cfg);
      CHECK(r.correct && clipped.correct);
      CHECK(r.n_subtiles == clipped.n_subtiles && r.n_subtiles == r.n_tiles);
      CHECK(r.words_loaded == clipped.words_loaded && r.words_stored == clipped.words_stored);
      CHECK(r.buffer_words == clipped.buffer_words);  // the buffer of the clipped tile
    }
    auto cfg3 = config("heat3d", 14, 12, 10, 3, 12 + 4, 4, 2);
    cfg3.size_s3 = 9;
    cfg3.tile_s3 = 9 + 4;
    const auto clipped3 = cm::run(cfg3);
    cfg3.tile_s2 = 100;
    cfg3.tile_s3 = 77;
    const auto r3 = cm::run(cfg3);
    CHECK(r3.correct && clipped3.correct);
    CHECK(r3.n_subtiles == clipped3.n_subtiles && r3.words_loaded == clipped3.words_loaded &&
          r3.words_stored == clipped3.words_stored);
    CHECK(same(cm::tiled(cfg3), cm::naive("heat3d", 14, 12, 9, 10)));
    CHECK(r3.buffer_words == clipped3.buffer_words);
    // The buffer limit applies to what is allocated: the widest tiles the harness takes
    // (2^16) on a small problem are accepted (unclipped, 2 planes of 7 x 65538 x 65538
    // floats would be refused).
    cfg3.tile_s2 = cfg3.tile_s3 = std::int64_t{1} << 16;
    const auto widest = cm::run(cfg3);
    CHECK(widest.correct && widest.buffer_words == clipped3.buffer_words);
    // as_run names the run: the clipped widths, everything else as given.
    const auto named = cm::as_run(cfg3);
    CHECK(named.tile_s2 == 12 + 4 && named.tile_s3 == 9 + 4);
    CHECK(named.tile_s1 == cfg3.tile_s1 && named.tile_t == cfg3.tile_t &&
          named.size_s3 == cfg3.size_s3 && named.threads == cfg3.threads);
    cfg3.tile_s2 = 3;  // narrower than S2 + tT: kept
    CHECK(cm::as_run(cfg3).tile_s2 == 3 && cm::as_run(cfg3).tile_s3 == 9 + 4);
    const auto one_d = cm::as_run(config("jacobi1d", 50, 0, 8, 400, 0, 4, 1));
    CHECK(one_d.tile_s1 == 400 && one_d.tile_s2 == 0 && one_d.tile_s3 == 0);  // 1D: as given
    cfg3.tile_t = 3;  // odd: refused like run()
    CHECK_THROWS(cm::as_run(cfg3), std::invalid_argument);
  }
  // The time model's copy of the harness' buffer size (time::tile_buffer_floats, read by
  // the machine variant's c_buffer_dram_s) is what make_plan allocates: 1D, 2D and 3D,
  // sub-tiles narrower than, at and past S + tT (clipped), one and several sub-slabs in u3.
  {
    struct Shape {
      const char* stencil;
      std::int64_t s1, s2, s3, t, ts1, ts2, ts3, tt;
    };
    const Shape shapes[] = {
        {"jacobi1d", 50, 0, 0, 8, 12, 0, 0, 4},      {"jacobi1d", 300, 0, 0, 20, 61, 0, 0, 16},
        {"heat2d", 30, 40, 0, 12, 5, 7, 0, 6},       {"laplacian2d", 30, 40, 0, 12, 5, 46, 0, 6},
        {"gradient2d", 20, 25, 0, 4, 9, 400, 0, 10}, {"jacobi2d", 64, 33, 0, 9, 3, 2, 0, 2},
        {"heat3d", 14, 12, 20, 10, 3, 4, 8, 4},     {"heat3d", 14, 12, 9, 10, 3, 16, 13, 4},
        {"heat3d", 10, 7, 30, 6, 2, 100, 5, 6},     {"heat3d", 9, 11, 13, 5, 4, 1, 77, 2},
    };
    for (const Shape& sh : shapes) {
      auto cfg = config(sh.stencil, sh.s1, sh.s2, sh.t, sh.ts1, sh.ts2, sh.tt, 1);
      cfg.size_s3 = sh.s3;
      cfg.tile_s3 = sh.ts3;
      const int dims = sh.s3 > 0 ? 3 : (sh.s2 > 0 ? 2 : 1);
      costmetrics::time::ProblemSize size;
      size.space = {{sh.s1, sh.s2, sh.s3}};
      size.time_steps = sh.t;
      costmetrics::time::TileSizes tiles;
      tiles.space = {{sh.ts1, sh.ts2, sh.ts3}};
      tiles.time = sh.tt;
      const auto r = cm::run(cfg);
      CHECK(r.correct);
      CHECK(static_cast<double>(r.buffer_words) ==
            costmetrics::time::tile_buffer_floats(dims, size, tiles));
    }
    // By hand (2D, tile (16, 64, 8) on S2 = 2046): 2 planes of 24 x 66 and 2 x 8 x 24 faces.
    costmetrics::time::ProblemSize size;
    size.space = {{2046, 2046, 0}};
    size.time_steps = 8;
    costmetrics::time::TileSizes tiles;
    tiles.space = {{16, 64, 0}};
    tiles.time = 8;
    CHECK(costmetrics::time::tile_buffer_floats(2, size, tiles) == 2.0 * 24 * 66 + 2.0 * 8 * 24);
  }
  // The names the Python side shows and checks.
  CHECK(cm::schedule_names() == std::vector<std::string>({"round-robin", "block"}));
  CHECK(!cm::harness_version().empty());
  // run(): timing fields ordered, counters consistent, check passes.
  {
    auto cfg = config("heat2d", 40, 45, 12, 3, 8, 4, 2);
    cfg.repeats = 3;
    cfg.warmup = 1;
    const auto r = cm::run(cfg);
    CHECK(r.checked && r.correct);
    CHECK(r.max_abs_error == 0.0);
    CHECK(r.time_min_s > 0 && r.time_min_s <= r.time_median_s && r.time_median_s <= r.time_max_s);
    CHECK(r.points == 40 * 45 * 12);
    CHECK(std::isnan(r.energy_j));
    // Every point's value is copied out at least where read by another tile; and at least
    // the final level reaches the main array: stored >= S1*S2.
    CHECK(r.words_stored >= 40 * 45);
    CHECK(r.words_loaded > 0);
    // Wavefronts: T = 12, tT = 4, h = 2: bottom rows -2, 0, 2, ..., 10 -> 7 wavefronts
    // (j = 0..6, t0 = (j-1) h < 12).
    CHECK(r.n_wavefronts == 7);
  }
  // 1D footprint on an interior tile: tS = 8, tT = 4, S large, T = 4. The wavefronts:
  // j=0 (B, rows -2..1, valid rows 0,1), j=1 (A, rows 0..3), j=2 (B, rows 2..5, valid 2,3).
  {
    auto cfg = config("jacobi1d", 1000, 0, 4, 8, 0, 4, 1);
    const auto r = cm::run(cfg);
    CHECK(r.correct);
    CHECK(r.n_wavefronts == 3);
  }
  // Bad configurations.
  {
    auto bad = config("heat2d", 10, 10, 10, 2, 4, 3, 1);  // odd tT
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat2d", 10, 10, 10, 2, 1, 4, 1);  // tS2 < 2
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("jacobi1d", 10, 5, 10, 2, 0, 4, 1);  // S2 given for 1D
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat2d", 10, 10, 10, 2, 4, 4, 1);
    bad.schedule = "zigzag";
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("nope", 10, 10, 10, 2, 4, 4, 1);
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat2d", 100000, 100000, 10, 2, 4, 4, 1);  // array too large
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat2d", 10, 10, 0, 2, 4, 4, 1);
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat2d", 10, 10, 10, 2, 4, 4, 0);
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat3d", 10, 10, 10, 2, 4, 4, 1);  // S3 missing
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad.size_s3 = 10;  // tS3 missing
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad.tile_s3 = 4;
    CHECK(cm::run(bad).correct);
    bad.tile_s2 = 0;
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat3d", 400, 400, 10, 2, 4, 4, 1);  // (S1+2)(S2+2)(S3+2) too large
    bad.size_s3 = 400;
    bad.tile_s3 = 4;
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat3d", 10, 10, 10, 2, 4, 4, 1);  // buffer: faces grow with S3 / tS3
    bad.size_s3 = 100000;
    bad.tile_s3 = 1;
    bad.tile_s1 = 1000;
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad = config("heat2d", 10, 10, 10, 2, 4, 4, 1);  // S3 given for 2D
    bad.size_s3 = 4;
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    bad.size_s3 = 0;
    bad.tile_s3 = 4;
    CHECK_THROWS(cm::run(bad), std::invalid_argument);
    CHECK_THROWS(cm::naive("heat3d", 4, 4, 0, 4), std::invalid_argument);
    CHECK_THROWS(cm::bench_copy(1, 10, 64, 1, false), std::invalid_argument);
    CHECK_THROWS(cm::bench_compute("heat2d", 1, 0, 1, 1, false), std::invalid_argument);
  }
  // Micro-benchmarks return positive, ordered statistics.
  {
    const auto b = cm::bench_barrier(2, 2, false);
    CHECK(b.value_s > 0 && b.value_s <= b.median_s && b.median_s <= b.max_s);
    const auto c = cm::bench_compute("jacobi2d", 1, 2, 1, 7, false);
    CHECK(c.value_s > 0 && c.units > 0);
    const auto c3 = cm::bench_compute("heat3d", 1, 2, 1, 7, false);
    CHECK(c3.value_s > 0 && c3.units > 0);
    const auto row3 = cm::bench_row("heat3d", 1, 1, false);
    CHECK(row3.value_s > 0);
    // The copy in both orders: the random order copies 2^20 words per thread and repeat;
    // the sequential one whole sweeps of the slice (half of it copied per sweep) until at
    // least as many, so 2^14 / 2 = 8192 words a sweep, 128 sweeps, and on the smallest
    // slice (4 segments) the words of one sweep rounded up: 2 segments of 64, 8192 sweeps.
    const auto random = cm::bench_copy(2, 1 << 15, 64, 2, false);
    CHECK(random.value_s > 0 && random.value_s <= random.median_s &&
          random.median_s <= random.max_s && random.units == 2 * (1 << 20));
    const auto sequential = cm::bench_copy(2, 1 << 15, 64, 2, false, true);
    CHECK(sequential.value_s > 0 && sequential.value_s <= sequential.median_s &&
          sequential.units == 2 * (1 << 20));
    const auto smallest = cm::bench_copy(1, 256, 64, 1, false, true);
    CHECK(smallest.value_s > 0 && smallest.units == 2 * (1 << 20));
    const auto odd = cm::bench_copy(1, 3 * 64 * 5, 64, 1, false, true);  // 15 segments: 7 a sweep
    CHECK(odd.value_s > 0 && odd.units == 2 * 7 * 64 * ((16384 + 6) / 7));
    // A longer untimed warm-up (here 3 repeats' words and one more) times the same words.
    const auto warmed = cm::bench_copy(1, 1 << 15, 64, 1, false, true, 3 * (1 << 21) + 1);
    CHECK(warmed.value_s > 0 && warmed.units == 1 << 21);
    CHECK_THROWS(cm::bench_copy(1, 1 << 15, 64, 1, false, true, -1), std::invalid_argument);
    // Interleaved: the same words as the in-order sweep, the even segments first; it needs
    // the in-order sweep.
    const auto gapped = cm::bench_copy(2, 1 << 15, 64, 1, false, true, 0, true);
    CHECK(gapped.value_s > 0 && gapped.units == sequential.units);
    const auto gapped_odd = cm::bench_copy(1, 3 * 64 * 5, 64, 1, false, true, 0, true);
    CHECK(gapped_odd.units == odd.units);
    CHECK_THROWS(cm::bench_copy(1, 1 << 15, 64, 1, false, false, 0, true), std::invalid_argument);
    for (std::int64_t half = 1; half <= 9; ++half) {
      std::vector<std::int64_t> order;
      for (std::int64_t j = 0; j < half; ++j) order.push_back(cm::interleaved_segment(j, half));
      CHECK(order.front() == 0);
      if (half >= 2) CHECK(order[static_cast<std::size_t>((half + 1) / 2)] == 1);
      std::sort(order.begin(), order.end());
      for (std::int64_t j = 0; j < half; ++j) CHECK(order[static_cast<std::size_t>(j)] == j);
    }
  }
  // The CPU probe: one entry per CPU, positive times, shares in [0, 1]; bad input named.
  {
    const auto p = cm::probe_cpus(1, 2, 0.01);
    CHECK(p.alone_s.size() == 1 && p.together_s.size() == 1 && p.stall_share.size() == 1 &&
          p.longest_stall_s.size() == 1);
    CHECK(p.alone_s[0] > 0 && p.together_s[0] > 0 && p.repeats == 2);
    CHECK(p.stall_share[0] >= 0 && p.stall_share[0] <= 1 && p.longest_stall_s[0] >= 0);
    CHECK_THROWS(cm::probe_cpus(0, 1, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_cpus(1 << 20, 1, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_cpus(1, 0, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_cpus(1, 1, -1.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_cpus(1, 1, std::numeric_limits<double>::infinity()),
                 std::invalid_argument);
  }
  // The host probe: at least one round however short the window, the fastest round never
  // slow, a reference below every round makes every round slow; bad input named.
  {
    const auto h = cm::probe_host(1, 1e-9, 0.0);
    CHECK(h.rounds >= 1 && h.fastest_round_s > 0 && h.reference_s == h.fastest_round_s);
    CHECK(h.slow_share >= 0 && h.slow_share < 1 && h.median_over_reference >= 1);
    // The reference from the fastest of many rounds: a single round can be one the thread
    // lost its CPU in, and if it took over 7.7x an undisturbed round, undisturbed rounds
    // are not 1.3x its tenth (a CI run under ASan failed so, 2026-12-04).
    const auto many = cm::probe_host(1, 0.01, 0.0);
    const auto fast = cm::probe_host(1, 0.01, many.fastest_round_s / 10);
    CHECK(fast.slow_share == 1.0 && fast.reference_s == many.fastest_round_s / 10);
    const auto slow = cm::probe_host(1, 0.01, 10.0);
    CHECK(slow.reference_s == slow.fastest_round_s && slow.slow_share < 1);
    const double inf = std::numeric_limits<double>::infinity();
    CHECK_THROWS(cm::probe_host(0, 0.01, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_host(1 << 20, 0.01, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_host(1, 0.0, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_host(1, 61.0, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_host(1, inf, 0.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_host(1, 0.01, -1.0), std::invalid_argument);
    CHECK_THROWS(cm::probe_host(1, 0.01, inf), std::invalid_argument);
  }
  CHECK(cm::simd_lanes_float() >= 1);
  return cm_test::report("measure");
}

// Unit tests of the codesign sweep (thesis 000, Appendix C, Eqs. C.8-C.19): the pruned
// optimum equals plain exhaustive search with time::evaluate over an independently
// enumerated tile space; the Pareto front equals a brute-force dominance check.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "check.hpp"
#include "gpu_fixtures.hpp"
#include "costmetrics/codesign.hpp"

namespace cd = costmetrics::codesign;
namespace tmod = costmetrics::time;

namespace {

using cm_test::gtx980_machine;

cd::Instance instance(int dims, double c_iter, std::int64_t s, std::int64_t t) {
  cd::Instance in;
  in.stencil.n_space_dims = dims;
  in.stencil.c_iter_s = c_iter;
  in.size.space = {{s, dims >= 2 ? s : 0, dims == 3 ? s : 0}};
  in.size.time_steps = t;
  return in;
}

// The machine one tile runs on under thread limits (the extension of docs/codesign.md): a
// block of `threads` threads; MTB_SM lowered to the blocks the threads and registers of an
// SM allow, so that time's k = min(floor(M_SM / M_tile), MTB_SM) is the sweep's k.
// Returns false when the tile is infeasible by the limits.
bool limited_gpu(const cd::ThreadLimits& lim, std::int64_t threads, tmod::GpuParams* gpu) {
  if (threads > lim.max_threads_per_block) return false;
  const std::int64_t by_threads = lim.max_threads_per_sm / threads;
  const std::int64_t by_registers = lim.registers_per_sm / (lim.registers_per_thread * threads);
  const std::int64_t cap = std::min<std::int64_t>(
      {by_threads, by_registers, static_cast<std::int64_t>(gpu->max_blocks_per_sm)});
  if (cap == 0) return false;
  gpu->max_blocks_per_sm = static_cast<int>(cap);
  return true;
}

// Plain exhaustive search: every tile with tT even, innermost tile a multiple of 32 and
// feasible by time::feasibility (and by the thread limits, when set), evaluated with
// time::evaluate.
double exhaustive(const cd::Design& d, const cd::Instance& in, const cd::MachineParams& m,
                  const cd::SweepOptions& o, std::int64_t* n_tiles) {
  const tmod::GpuParams base = cd::design_gpu(d, m, o);
  double best = std::numeric_limits<double>::infinity();
  *n_tiles = 0;
  const int dims = in.stencil.n_space_dims;
  for (std::int64_t tT = 2; tT <= 512; tT += 2) {
    for (std::int64_t a = 1; a <= 2048; ++a) {
      bool any_a = false;
      for (std::int64_t b = dims == 2 ? 32 : 1; b <= 16384; b += dims == 2 ? 32 : 1) {
        bool any_b = false;
        for (std::int64_t c = 32; c <= (dims == 3 ? 16384 : 32); c += 32) {
          tmod::TileSizes t;
          t.space = {{a, b, dims == 3 ? c : 0}};
          t.time = tT;
          if (tmod::feasibility(base, dims, t) != tmod::kFeasible) break;
          any_b = true;
          tmod::GpuParams gpu = base;
          if (o.thread_limits && !limited_gpu(*o.thread_limits, dims == 2 ? b : b * c, &gpu)) {
            continue;
          }
          ++*n_tiles;
          const double v = tmod::evaluate(gpu, in.stencil, in.size, t, o.variant).talg_s;
          if (v < best) best = v;
        }
        if (!any_b) break;
        any_a = true;
      }
      if (!any_a) break;
    }
  }
  return best;
}

}  // namespace

// Designs of two M_SM in the sweep's order (nSM, then nV), and the same with nSM
// alternating and M_SM changing between neighbours (every cache rebuilt).
static std::pair<std::vector<cd::Design>, std::vector<cd::Design>> exact_design_lists() {
  std::vector<cd::Design> same;
  for (std::int64_t kb : {24, 48}) {
    for (std::int64_t n_sm : {4, 6, 16}) {
      for (std::int64_t n_v : {96, 128, 416, 1920}) same.push_back({n_sm, n_v, kb, 0.0});
    }
  }
  std::vector<cd::Design> mixed;
  for (std::size_t q = 0; q < same.size(); ++q) mixed.push_back(same[(q * 7) % same.size()]);
  return {same, mixed};
}

int main() {
  const cd::MachineParams m = gtx980_machine();
  const cd::HardwareSpace space = cd::default_hardware_space();
  CHECK(space.n_sm.size() == 16);
  CHECK(space.n_v.size() == 64);
  CHECK(space.smem_kb.size() == 13);

  // Pruned == exhaustive on a random sample of designs (paper variant, 2D and 3D).
  std::mt19937 rng(12345);
  std::vector<cd::Design> designs;
  for (int i = 0; i < 6; ++i) {
    cd::Design d;
    d.n_sm = space.n_sm[rng() % space.n_sm.size()];
    d.n_v = space.n_v[rng() % space.n_v.size()];
    d.smem_kb = space.smem_kb[rng() % 6];  // up to 96 kB: keeps the exhaustive check fast
    designs.push_back(d);
  }
  std::vector<cd::Instance> instances = {instance(2, 3.39e-8, 4096, 1024),
                                         instance(2, 1.5e-7, 8192, 4096),
                                         instance(3, 1.55e-7, 384, 128)};
  for (auto variant : {tmod::Variant::paper, tmod::Variant::exact}) {
    cd::SweepOptions o;
    o.variant = variant;
    o.n_threads = 2;
    const cd::SweepOutput pruned = cd::sweep(designs, instances, m, o);
    o.prune = false;
    const cd::SweepOutput plain = cd::sweep(designs, instances, m, o);
    for (std::size_t i = 0; i < designs.size(); ++i) {
      for (std::size_t j = 0; j < instances.size(); ++j) {
        const std::size_t cell = i * instances.size() + j;
        CHECK(pruned.talg_s[cell] == plain.talg_s[cell]);
        for (int q = 0; q < 4; ++q) CHECK(pruned.tiles[cell * 4 + q] == plain.tiles[cell * 4 + q]);
        CHECK(pruned.n_evaluated[cell] <= plain.n_evaluated[cell]);
        CHECK(plain.n_evaluated[cell] == plain.n_feasible[cell]);
        if (variant == tmod::Variant::paper && i < 3) {
          std::int64_t n_tiles = 0;
          const double ref = exhaustive(designs[i], instances[j], m, o, &n_tiles);
          CHECK(ref == pruned.talg_s[cell]);
          CHECK(n_tiles == plain.n_feasible[cell]);
        }
      }
    }
  }

  // Thread limits (extension, docs/codesign.md): pruned == plain in both variants, the paper
  // optimum equals exhaustive search with time::evaluate on the limited machine, every
  // optimum satisfies the limits and its T_alg is time's on that machine (the exact
  // variant evaluates with the tile set's k). Tight limits, so that they bind.
  {
    cd::ThreadLimits lim;
    lim.max_threads_per_block = 256;
    lim.max_threads_per_sm = 1024;
    lim.registers_per_sm = 32768;
    lim.registers_per_thread = 64;
    for (auto variant : {tmod::Variant::paper, tmod::Variant::exact}) {
      cd::SweepOptions o;
      o.variant = variant;
      o.n_threads = 2;
      const cd::SweepOutput free = cd::sweep(designs, instances, m, o);
      o.thread_limits = lim;
      const cd::SweepOutput pruned = cd::sweep(designs, instances, m, o);
      o.prune = false;
      const cd::SweepOutput plain = cd::sweep(designs, instances, m, o);
      bool changed = false;
      for (std::size_t i = 0; i < designs.size(); ++i) {
        for (std::size_t j = 0; j < instances.size(); ++j) {
          const std::size_t cell = i * instances.size() + j;
          CHECK(pruned.talg_s[cell] == plain.talg_s[cell]);
          for (int q = 0; q < 4; ++q) {
            CHECK(pruned.tiles[cell * 4 + q] == plain.tiles[cell * 4 + q]);
          }
          CHECK(plain.n_evaluated[cell] == plain.n_feasible[cell]);
          CHECK(pruned.n_feasible[cell] <= free.n_feasible[cell]);
          changed = changed || pruned.talg_s[cell] != free.talg_s[cell];
          const std::int64_t* t = &pruned.tiles[cell * 4];
          const int dims = instances[j].stencil.n_space_dims;
          tmod::GpuParams gpu = cd::design_gpu(designs[i], m, o);
          CHECK(limited_gpu(lim, dims == 2 ? t[1] : t[1] * t[2], &gpu));
          tmod::TileSizes tile;
          tile.space = {{t[0], t[1], t[2]}};
          tile.time = t[3];
          CHECK(tmod::evaluate(gpu, instances[j].stencil, instances[j].size, tile, variant)
                    .talg_s == pruned.talg_s[cell]);
          // ... and so is the unconstrained optimum on the design's machine (every cell,
          // not only the designs checked against exhaustive search above).
          const std::int64_t* u = &free.tiles[cell * 4];
          tmod::TileSizes free_tile;
          free_tile.space = {{u[0], u[1], u[2]}};
          free_tile.time = u[3];
          CHECK(tmod::evaluate(cd::design_gpu(designs[i], m, o), instances[j].stencil,
                               instances[j].size, free_tile, variant)
                    .talg_s == free.talg_s[cell]);
          if (variant == tmod::Variant::paper && i < 3) {
            std::int64_t n_tiles = 0;
            const double ref = exhaustive(designs[i], instances[j], m, o, &n_tiles);
            CHECK(ref == pruned.talg_s[cell]);
            CHECK(n_tiles == plain.n_feasible[cell]);
          }
        }
      }
      CHECK(changed);
    }
    // Limits too loose to bind: the seed's results, tile for tile.
    cd::ThreadLimits loose;
    loose.max_threads_per_block = 1 << 20;
    loose.max_threads_per_sm = 1 << 20;
    loose.registers_per_sm = std::int64_t{1} << 32;
    loose.registers_per_thread = 1;
    cd::SweepOptions o;
    o.n_threads = 2;
    const cd::SweepOutput free = cd::sweep(designs, instances, m, o);
    o.thread_limits = loose;
    const cd::SweepOutput same = cd::sweep(designs, instances, m, o);
    CHECK(same.talg_s == free.talg_s);
    CHECK(same.tiles == free.tiles);
    CHECK(same.n_feasible == free.n_feasible);
    // Bad limits name the field.
    cd::ThreadLimits bad = lim;
    bad.max_threads_per_block = 16;
    o.thread_limits = bad;
    CHECK_THROWS(cd::sweep(designs, instances, m, o), std::invalid_argument);
    bad = lim;
    bad.registers_per_sm = 31 * lim.registers_per_thread;
    CHECK_THROWS(bad.validate(), std::invalid_argument);
    bad = lim;
    bad.registers_per_thread = 0;
    CHECK_THROWS(bad.validate(), std::invalid_argument);
    CHECK(lim.blocks_per_sm(256) == 2);  // min(1024 / 256, 32768 / (64 x 256))
    CHECK(lim.blocks_per_sm(288) == 0);  // over 256 threads per block
  }

  // The per-block rule: half of 96 kB is the reference GPUs' 48 kB.
  cd::Design g980{16, 128, 96, 0};
  cd::SweepOptions o;
  CHECK(cd::design_gpu(g980, m, o).smem_per_block_words == 12288);
  o.block_rule = cd::BlockRule::full;
  CHECK(cd::design_gpu(g980, m, o).smem_per_block_words == 24576);
  o.block_rule = cd::BlockRule::capped;
  o.block_cap_kb = 48;
  CHECK(cd::design_gpu(cd::Design{16, 128, 24, 0}, m, o).smem_per_block_words == 6144);

  // Pareto front against brute-force dominance on random points (synthetic).
  std::vector<double> area, perf;
  for (int i = 0; i < 300; ++i) {
    area.push_back(static_cast<double>(rng() % 50));
    perf.push_back(static_cast<double>(rng() % 40));
  }
  const std::vector<std::size_t> front = cd::pareto_front(area, perf);
  std::vector<bool> in_front(area.size(), false);
  for (std::size_t i : front) in_front[i] = true;
  for (std::size_t i = 0; i < area.size(); ++i) {
    bool dominated = false;
    bool duplicate_earlier = false;
    for (std::size_t j = 0; j < area.size(); ++j) {
      if (j == i) continue;
      if (area[j] <= area[i] && perf[j] >= perf[i] && (area[j] < area[i] || perf[j] > perf[i])) {
        dominated = true;
      }
      if (area[j] == area[i] && perf[j] == perf[i] && j < i) duplicate_earlier = true;
    }
    // Exact duplicates: only the first one is kept.
    CHECK(in_front[i] == (!dominated && !duplicate_earlier));
  }

  // Exact variant, the search's state shared across designs (docs/codesign.md, "Exact
  // pruning"): the group rounds bound's terms are kept per (M_SM, nSM) and the full
  // sub-tiles' step counts per design, across the instances. Designs of one M_SM in the
  // sweep's order (nSM, then nV), then with nSM alternating and M_SM changing between
  // neighbours (every cache rebuilt), on 1 and 2 threads: pruned == plain, bit for bit.
  {
    const auto [same, mixed] = exact_design_lists();
    // The last two share the shape (sizes) of the first and the fourth with another C_iter:
    // the sweep then shares their bound tables (geometry, tails, group bounds).
    const std::vector<cd::Instance> exact_instances = {
        instance(2, 3.39e-8, 4096, 1024), instance(2, 6.09e-8, 3000, 777),
        instance(2, 3.11e-8, 8192, 8192), instance(3, 1.55e-7, 200, 64),
        instance(2, 9.7e-8, 4096, 1024),  instance(3, 4.1e-8, 200, 64)};
    for (const auto* list : {&same, &mixed}) {
      for (int threads : {1, 2}) {
        cd::SweepOptions o;
        o.variant = tmod::Variant::exact;
        o.n_threads = threads;
        const cd::SweepOutput pruned = cd::sweep(*list, exact_instances, m, o);
        o.prune = false;
        const cd::SweepOutput plain = cd::sweep(*list, exact_instances, m, o);
        for (std::size_t cell = 0; cell < pruned.talg_s.size(); ++cell) {
          CHECK(pruned.talg_s[cell] == plain.talg_s[cell]);
          for (int q = 0; q < 4; ++q) {
            CHECK(pruned.tiles[cell * 4 + q] == plain.tiles[cell * 4 + q]);
          }
          CHECK(pruned.n_evaluated[cell] < plain.n_evaluated[cell]);
        }
      }
    }
    // One thread: design i's searches start from design i-1's optima (same M_SM), whatever
    // order the sweep runs the (design, instance) pairs in (it runs the designs sharing
    // (M_SM, nSM) instance by instance). The optima do not depend on the warm start, so each
    // cell's evaluations equal those of the second design in a sweep of {design i-1,
    // design i} alone (the first design of an M_SM: a sweep of it alone).
    for (const auto* list : {&same, &mixed}) {
      cd::SweepOptions o;
      o.variant = tmod::Variant::exact;
      o.n_threads = 1;
      const cd::SweepOutput all = cd::sweep(*list, exact_instances, m, o);
      const std::size_t n_in = exact_instances.size();
      for (std::size_t i = 0; i < list->size(); ++i) {
        std::vector<cd::Design> pair;
        if (i > 0) pair.push_back((*list)[i - 1]);
        pair.push_back((*list)[i]);
        const cd::SweepOutput two = cd::sweep(pair, exact_instances, m, o);
        const std::size_t at = (pair.size() - 1) * n_in;
        for (std::size_t j = 0; j < n_in; ++j) {
          CHECK(all.n_evaluated[i * n_in + j] == two.n_evaluated[at + j]);
          CHECK(all.talg_s[i * n_in + j] == two.talg_s[at + j]);
        }
      }
    }
  }

  // The pruning's own counts, a regression pin: issue 15's group scan (scan_groups: the
  // rounds bounds of a chunk, then the tail bound of the last group reached, which is
  // non-decreasing along a tT) must take the same decisions as testing both bounds of
  // every group in turn. The totals below are those of main at ac77d67 (before the scan),
  // the same lists on one thread (warm starts in list order), plus designs of 240 and
  // 480 kB where many groups are pruned and the tail bounds stop tTs.
  {
    const auto [same, mixed] = exact_design_lists();
    std::vector<cd::Design> big;
    for (std::int64_t kb : {240, 480}) {
      for (std::int64_t n_sm : {8, 16}) {
        for (std::int64_t n_v : {128, 512, 1024}) big.push_back({n_sm, n_v, kb, 0.0});
      }
    }
    const std::vector<cd::Instance> ins = {
        instance(2, 3.39e-8, 4096, 1024), instance(2, 6.09e-8, 3000, 777),
        instance(2, 3.11e-8, 8192, 8192), instance(3, 1.55e-7, 200, 64),
        instance(2, 9.7e-8, 4096, 1024),  instance(3, 4.1e-8, 200, 64)};
    struct Pin {
      const std::vector<cd::Design>* list;
      std::int64_t evaluated, bounds;
    };
    for (const Pin& pin : {Pin{&same, 2187, 141009}, Pin{&mixed, 3221, 143943},
                           Pin{&big, 8035, 575041}}) {
      cd::SweepOptions o;
      o.variant = tmod::Variant::exact;
      o.n_threads = 1;
      const cd::SweepOutput r = cd::sweep(*pin.list, ins, m, o);
      std::int64_t evaluated = 0;
      for (std::int64_t e : r.n_evaluated) evaluated += e;
      CHECK(evaluated == pin.evaluated);
      CHECK(r.n_bounds == pin.bounds);
    }
  }

  // Workload GFLOP/s (Eq. C.18): 2 designs x 2 instances, flops 10e9 and 30e9, weights 1, 3:
  // design 0 times 1 s and 2 s: (10 + 90) GFLOP / (1 + 6) s = 14.2857 GFLOP/s.
  const std::vector<double> g = cd::workload_gflops({1, 2, 4, 4}, 2, {10e9, 30e9}, {1, 3});
  CHECK_CLOSE(g[0], 100.0 / 7.0, 1e-12);
  CHECK_CLOSE(g[1], 100.0 / 16.0, 1e-12);

  // Bad input.
  costmetrics::area::Coefficients c;
  c.beta_vu_mm2 = 0.04282;
  c.alpha_oh_mm2 = 6.4156;
  cd::HardwareSpace odd = space;
  odd.n_sm = {3};
  CHECK_THROWS(cd::enumerate_designs(odd, c, 200, 650), std::invalid_argument);
  cd::HardwareSpace nv = space;
  nv.n_v = {48};
  CHECK_THROWS(cd::enumerate_designs(nv, c, 200, 650), std::invalid_argument);
  CHECK_THROWS(cd::enumerate_designs(space, c, -5, 650), std::invalid_argument);
  CHECK_THROWS(cd::enumerate_designs(space, c, 650, 200), std::invalid_argument);
  CHECK_THROWS(cd::enumerate_designs(space, c, 100000, 200000), std::invalid_argument);
  CHECK_THROWS(cd::sweep(designs, {}, m, cd::SweepOptions{}), std::invalid_argument);
  return cm_test::report("codesign");
}

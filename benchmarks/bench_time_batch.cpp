// Micro benchmark of the execution-time model's core (issue 15), no Python:
//
// - time::evaluate_batch (T_alg and the feasibility mask only) over random feasible
//   2D tiles of the default space (Heat2D, GTX 980 preset values, S1 = S2 = T = 8192), ns
//   per evaluation for the `paper`, `exact` and `machine` variants, 1 and 2 threads, and
//   each variant's cost relative to `paper` (and `machine` relative to `exact`);
//   `machine` twice: on the GTX 980 (no machine terms: the same numbers as `exact`) and on
//   a CPU-like machine with every machine term set (illustrative values) against `exact`
//   on that machine;
// - one exhaustive search (time::search) over the default 2D space, Heat2D, GTX 980,
//   8192^3, one thread, `paper` and `exact` (targets: < 1 ms and < 5 ms);
// - the `paper` batch over every point of the default 1D-3D spaces (infeasible included).
//
// Built by CMake with -DCOSTMETRICS_BUILD_BENCHMARKS=ON (target bench_time_batch, in the
// build folder); by hand, after a build of the core in build/dev:
//   g++ -O3 -std=c++17 -Icpp/include benchmarks/bench_time_batch.cpp
//       build/dev/libcostmetrics_core.a -lpthread -o build/bench_time_batch   (one line)
// Run: build/dev/bench_time_batch [--quick] [--tiles N] [--repeat R] [--only exact|...]
// (--quick: 10^4 tiles, one repeat; it checks that everything runs, its times mean little.)
// Wall-clock figures are meaningful only on a quiet machine; under valgrind --tool=callgrind
// run it with --quick --only VARIANT to count the instructions of one path.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "costmetrics/time.hpp"

namespace tmod = costmetrics::time;

namespace {

tmod::GpuParams gtx980() {
  tmod::GpuParams gpu;  // data/gpus/gtx980.yaml, in words and s/word
  gpu.n_sm = 16;
  gpu.n_v = 128;
  gpu.smem_per_sm_words = 24576;
  gpu.smem_per_block_words = 12288;
  gpu.max_blocks_per_sm = 32;
  gpu.l_s_per_word = 7.36e-3 * 4e-9;
  gpu.tau_sync_s = 7.96e-10;
  gpu.t_sync_s = 9.24e-7;
  return gpu;
}

// A CPU-like machine with every machine term set (as benchmarks/bench_time_machine.py;
// illustrative values, not a calibration).
tmod::GpuParams cpu_like() {
  tmod::GpuParams gpu;
  gpu.n_sm = 2;
  gpu.n_v = 4;
  gpu.smem_per_sm_words = 131072;
  gpu.smem_per_block_words = 131072;
  gpu.max_blocks_per_sm = 1;
  gpu.l_s_per_word = 0.04 * 4e-9;
  gpu.tau_sync_s = 1e-8;
  gpu.t_sync_s = 4e-8;
  tmod::MachineTerms& m = gpu.machine;
  m.cache_l1_bytes = 32768;
  m.cache_l2_bytes = 1 << 20;
  m.cache_l3_bytes = 32 << 20;
  m.l_seg_s = 3e-9;
  m.l_level_s_per_word = {{-2e-11, 0.0, 2e-11, 8e-11}};
  m.l_shared_s_per_word = {{0.0, 1e-12, 1e-11, 5e-11}};
  m.tau_line_s = 2e-9;
  m.tau_line_3d_s = 5e-9;
  m.t_barrier_per_thread_s = 2e-8;
  m.t_share_line_s = 5e-8;
  m.l_buffer_s_per_word = 6e-11;
  m.threads_ref = 2;
  return gpu;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Random feasible tiles of the default 2D space (tS1 1..64, tS2 32..1024 step 32, tT 2..64).
std::vector<std::int64_t> random_tiles(const tmod::GpuParams& gpu, std::size_t n,
                                       std::uint64_t seed) {
  std::vector<std::int64_t> tiles;
  tiles.reserve(3 * n);
  std::mt19937_64 rng(seed);
  while (tiles.size() < 3 * n) {
    tmod::TileSizes t;
    t.space[0] = static_cast<std::int64_t>(rng() % 64) + 1;
    t.space[1] = 32 * (static_cast<std::int64_t>(rng() % 32) + 1);
    t.time = 2 * (static_cast<std::int64_t>(rng() % 32) + 1);
    if (tmod::feasibility(gpu, 2, t) != tmod::kFeasible) continue;
    tiles.insert(tiles.end(), {t.space[0], t.space[1], t.time});
  }
  return tiles;
}

// Best wall time of `repeat` batches, ns per tile.
double batch_ns(const tmod::GpuParams& gpu, const tmod::StencilParams& stencil,
                const tmod::ProblemSize& size, const std::vector<std::int64_t>& tiles,
                tmod::Variant variant, int threads, int repeat, double& checksum) {
  const std::size_t n = tiles.size() / 3;
  std::vector<double> talg(n);
  std::vector<std::uint32_t> reasons(n);
  tmod::BatchOutputs out;
  out.talg_s = talg.data();
  out.reasons = reasons.data();
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < repeat; ++rep) {
    const double start = now_s();
    tmod::evaluate_batch(gpu, stencil, size, tiles.data(), n, variant, out, threads);
    best = std::min(best, now_s() - start);
    checksum += talg[static_cast<std::size_t>(rep) % n];
  }
  return best * 1e9 / static_cast<double>(n);
}

const char* name_of(tmod::Variant v) {
  return v == tmod::Variant::paper ? "paper" : v == tmod::Variant::exact ? "exact" : "machine";
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 1000000;
  int repeat = 7;
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--tiles" && i + 1 < argc) {
      n = static_cast<std::size_t>(std::strtoull(argv[++i], nullptr, 10));
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: bench_time_batch [--quick] [--tiles N] [--repeat R] "
                   "[--only paper|exact|machine|machine-cpu|search|spaces]\n");
      return 2;
    }
  }
  if (quick) {
    n = std::min<std::size_t>(n, 10000);
    repeat = 1;
  }
  if (n == 0 || repeat < 1) {
    std::fprintf(stderr, "--tiles and --repeat must be >= 1\n");
    return 2;
  }
  auto wanted = [&](const char* what) { return only.empty() || only == what; };

  const tmod::GpuParams gpu = gtx980();
  tmod::StencilParams stencil;
  stencil.n_space_dims = 2;
  stencil.c_iter_s = 3.68e-8;  // Heat2D on the GTX 980 (data/stencils/heat2d.yaml)
  tmod::ProblemSize size;
  size.space = {{8192, 8192, 0}};
  size.time_steps = 8192;
  double checksum = 0;
  std::printf("%zu random feasible 2D tiles, Heat2D, GTX 980, 8192^3; best of %d\n", n, repeat);

  const std::vector<std::int64_t> tiles = random_tiles(gpu, n, 42);
  for (int threads : {1, 2}) {
    double ns[3] = {0, 0, 0};
    for (tmod::Variant v : {tmod::Variant::paper, tmod::Variant::exact, tmod::Variant::machine}) {
      const int iv = v == tmod::Variant::paper ? 0 : v == tmod::Variant::exact ? 1 : 2;
      if (!wanted(name_of(v))) continue;
      ns[iv] = batch_ns(gpu, stencil, size, tiles, v, threads, repeat, checksum);
      std::printf("threads=%d %-7s: %8.2f ns per evaluation", threads, name_of(v), ns[iv]);
      if (iv > 0 && ns[0] > 0) std::printf(", %6.2fx paper", ns[iv] / ns[0]);
      if (iv == 2 && ns[1] > 0) std::printf(", %5.2fx exact", ns[2] / ns[1]);
      std::printf("\n");
    }
  }

  if (wanted("machine-cpu")) {
    // Machine terms set: machine vs exact on the same CPU-like machine and tiles.
    const tmod::GpuParams cpu = cpu_like();
    tmod::StencilParams st = stencil;
    st.c_iter_s = 1.4e-9;
    tmod::ProblemSize sz;
    sz.space = {{8192, 8192, 0}};
    sz.time_steps = 512;
    const std::vector<std::int64_t> cpu_tiles = random_tiles(cpu, n, 7);
    const double e = batch_ns(cpu, st, sz, cpu_tiles, tmod::Variant::exact, 1, repeat, checksum);
    const double m = batch_ns(cpu, st, sz, cpu_tiles, tmod::Variant::machine, 1, repeat, checksum);
    std::printf("CPU-like machine, every machine term set, 8192^2 x 512, threads=1: exact %.2f ns, "
                "machine %.2f ns per evaluation, machine %.2fx exact (target <= 2x)\n",
                e, m, m / e);
  }

  if (wanted("search")) {
    const tmod::SearchSpace space = tmod::default_search_space(2);
    double ms[2] = {0, 0};
    for (tmod::Variant v : {tmod::Variant::paper, tmod::Variant::exact}) {
      double best = std::numeric_limits<double>::infinity();
      tmod::SearchResult r;
      const int reps = quick ? 1 : std::max(repeat, 20);
      for (int rep = 0; rep < reps; ++rep) {
        const double start = now_s();
        r = tmod::search(gpu, stencil, size, space, 0.0, v, 1);
        best = std::min(best, now_s() - start);
      }
      checksum += r.talg_min_s;
      ms[v == tmod::Variant::paper ? 0 : 1] = best * 1e3;
      std::printf("search %-5s (default 2D space, %zu points, %zu feasible), threads=1: %.3f ms "
                  "(target %s), best (%lld, %lld, %lld) %.6g s\n",
                  name_of(v), r.n_points, r.n_feasible, best * 1e3,
                  v == tmod::Variant::paper ? "< 1 ms" : "< 5 ms",
                  static_cast<long long>(r.best.space[0]), static_cast<long long>(r.best.space[1]),
                  static_cast<long long>(r.best.time), r.talg_min_s);
    }
    std::printf("search exact / paper: %.2fx\n", ms[1] / ms[0]);
  }

  if (wanted("spaces")) {
    for (int dims = 1; dims <= 3; ++dims) {
      tmod::StencilParams st = stencil;
      st.n_space_dims = dims;
      tmod::ProblemSize sz;
      for (int d = 0; d < dims; ++d) sz.space[static_cast<std::size_t>(d)] = dims == 3 ? 512 : 8192;
      sz.time_steps = dims == 3 ? 512 : 8192;
      const tmod::SearchSpace space = tmod::default_search_space(dims);
      const std::size_t m = space.size();
      const std::size_t stride = static_cast<std::size_t>(dims) + 1;
      std::vector<std::int64_t> points(m * stride);
      for (std::size_t i = 0; i < m; ++i) {
        const tmod::TileSizes t = space.point(i);
        for (std::size_t d = 0; d + 1 < stride; ++d) points[i * stride + d] = t.space[d];
        points[i * stride + stride - 1] = t.time;
      }
      std::vector<double> talg_s(m);
      std::vector<std::uint32_t> why(m);
      tmod::BatchOutputs o;
      o.talg_s = talg_s.data();
      o.reasons = why.data();
      double best = std::numeric_limits<double>::infinity();
      for (int rep = 0; rep < repeat; ++rep) {
        const double start = now_s();
        tmod::evaluate_batch(gpu, st, sz, points.data(), m, tmod::Variant::paper, o, 1);
        best = std::min(best, now_s() - start);
      }
      std::size_t feasible = 0;
      for (std::size_t i = 0; i < m; ++i) feasible += why[i] == tmod::kFeasible ? 1 : 0;
      std::printf("paper, default %dD space (%zu points, %zu feasible), threads=1: %.2f ns per "
                  "point\n",
                  dims, m, feasible, best * 1e9 / static_cast<double>(m));
    }
  }
  std::printf("checksum %.17g\n", checksum);
  return 0;
}

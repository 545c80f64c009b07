// Micro benchmark of the T_alg-only `paper` batch path (time_model::evaluate_batch): ns per
// tile over 10^6 random feasible 2D tiles (Heat2D-like, GTX 980-like machine), 1 and 2
// threads, and over every point of the default search spaces (1D-3D, infeasible points
// included). Build after the C++ tests (build/cpp, Release), from the repository root:
//   g++ -O3 -std=c++17 -Icpp/include benchmarks/bench_time_batch.cpp build/cpp/libcostmetrics_core.a -lpthread -o build/bench_time_batch && build/bench_time_batch
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "costmetrics/time.hpp"

namespace tmod = costmetrics::time_model;

int main() {
  tmod::GpuParams gpu;
  gpu.n_sm = 16;
  gpu.n_v = 128;
  gpu.smem_per_sm_words = 24576;
  gpu.smem_per_block_words = 12288;
  gpu.max_blocks_per_sm = 32;
  gpu.l_s_per_word = 1.6e-10;
  gpu.tau_sync_s = 1e-8;
  gpu.t_sync_s = 5e-6;
  tmod::StencilParams stencil;
  stencil.n_space_dims = 2;
  stencil.c_iter_s = 1e-9;
  tmod::ProblemSize size;
  size.space = {{8192, 8192, 0}};
  size.time_steps = 8192;

  // tS1 in 1..64, tS2 in 32..1024 step 32, tT in 2..64 step 2; feasible ones only.
  const std::size_t n = 1000000;
  std::vector<std::int64_t> tiles;
  tiles.reserve(3 * n);
  std::mt19937_64 rng(42);
  while (tiles.size() < 3 * n) {
    tmod::TileSizes t;
    t.space[0] = static_cast<std::int64_t>(rng() % 64) + 1;
    t.space[1] = 32 * (static_cast<std::int64_t>(rng() % 32) + 1);
    t.time = 2 * (static_cast<std::int64_t>(rng() % 32) + 1);
    if (tmod::feasibility(gpu, 2, t) != tmod::kFeasible) continue;
    tiles.insert(tiles.end(), {t.space[0], t.space[1], t.time});
  }
  std::vector<double> talg(n);
  std::vector<std::uint32_t> reasons(n);
  tmod::BatchOutputs out;
  out.talg_s = talg.data();
  out.reasons = reasons.data();
  double checksum = 0;
  for (int threads : {1, 2}) {
    double best = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep < 7; ++rep) {
      const auto start = std::chrono::steady_clock::now();
      tmod::evaluate_batch(gpu, stencil, size, tiles.data(), n, tmod::Variant::paper, out,
                           threads);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      best = std::min(best, took.count());
      checksum += talg[static_cast<std::size_t>(rep) * 1000];
    }
    std::printf("threads=%d: %.2f ns per tile (wall, best of 7)\n", threads, best * 1e9 / n);
  }
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
    for (int rep = 0; rep < 7; ++rep) {
      const auto start = std::chrono::steady_clock::now();
      tmod::evaluate_batch(gpu, st, sz, points.data(), m, tmod::Variant::paper, o, 1);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      best = std::min(best, took.count());
    }
    std::size_t feasible = 0;
    for (std::size_t i = 0; i < m; ++i) feasible += why[i] == tmod::kFeasible ? 1 : 0;
    std::printf("default %dD space (%zu points, %zu feasible), threads=1: %.2f ns per point\n",
                dims, m, feasible, best * 1e9 / static_cast<double>(m));
  }
  std::printf("checksum %.17g\n", checksum);
  return 0;
}

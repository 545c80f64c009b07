// The fast evaluation paths of the time model give the same numbers as the reference ones:
// the closed-form hexagon row steps equal the explicit sum of Eqs. A.10/A.16/A.28, and the
// T_alg-only batch path equals evaluate() bit for bit on every point of the default spaces.
#include <cstdint>
#include <limits>
#include <vector>

#include "../src/floor_sum.hpp"
#include "check.hpp"
#include "costmetrics/time.hpp"
#include "gpu_fixtures.hpp"

namespace tmod = costmetrics::time_model;

int main() {
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
    const std::size_t stride = static_cast<std::size_t>(c.dims) + 1;
    std::vector<std::int64_t> tiles(n * stride);
    for (std::size_t i = 0; i < n; ++i) {
      const tmod::TileSizes t = space.point(i);
      for (int d = 0; d < c.dims; ++d) tiles[i * stride + static_cast<std::size_t>(d)] = t.space[static_cast<std::size_t>(d)];
      tiles[i * stride + static_cast<std::size_t>(c.dims)] = t.time;
    }
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
    }
  }
  return cm_test::report("time_fast");
}

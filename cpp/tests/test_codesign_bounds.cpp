// Soundness of the `exact` variant's lower bounds in the codesign search (docs/codesign.md,
// "Exact pruning"): on random designs, sizes and stencils (2D and 3D, with and without
// thread limits), every feasible tile is evaluated and the largest bound that covers it (its
// group's bound, its own two stages) must not exceed its exact T_alg; the audit's
// optimum must equal the pruned and the plain sweep's, bit for bit.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "../src/codesign_detail.hpp"
#include "check.hpp"
#include "gpu_fixtures.hpp"
#include "costmetrics/codesign.hpp"

namespace cd = costmetrics::codesign;
namespace tmod = costmetrics::time;

namespace {

using cm_test::gtx980_machine;

}  // namespace

int main() {
  std::mt19937_64 rng(20261125);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  const std::int64_t smem_small[] = {12, 24, 36, 48, 96};
  std::int64_t tiles = 0;
  double worst = 0;
  // Under the sanitizers the first 40 trials (every residue the trials vary by, check.hpp).
  const int trials = cm_test::kSanitized ? 40 : 160;
  for (int trial = 0; trial < trials; ++trial) {
    cd::MachineParams m = gtx980_machine();
    if (trial % 4 == 3) m.max_blocks_per_sm = pick(1, 40);
    if (trial % 6 == 5) m.l_s_per_word *= 50.0;  // transfer-bound designs
    cd::Design d;
    d.n_sm = 2 * pick(1, 20);
    d.n_v = 32 * pick(1, 70);
    // Mostly small M_SM (the audit evaluates every tile); a few large ones.
    d.smem_kb = trial % 8 == 7 ? 48 * pick(3, 10) : smem_small[pick(0, 4)];
    cd::Instance in;
    const int dims = trial % 3 == 2 ? 3 : 2;
    in.stencil.n_space_dims = dims;
    in.stencil.c_iter_s = 1e-8 * static_cast<double>(pick(1, 20));
    if (dims == 2) {
      const std::int64_t s = trial % 2 == 0 ? 4096 * pick(1, 4) : pick(200, 20000);
      in.size.space = {{s, trial % 5 == 0 ? pick(100, 20000) : s, 0}};
      in.size.time_steps = pick(2, std::min<std::int64_t>(s, 16384));
    } else {
      const std::int64_t s = pick(40, 640);
      in.size.space = {{s, s, trial % 5 == 0 ? pick(40, 640) : s}};
      in.size.time_steps = pick(2, s);
    }
    cd::SweepOptions o;
    o.variant = tmod::Variant::exact;
    o.n_threads = 1;
    if (trial % 7 == 6) o.thread_limits = cd::ThreadLimits{};
    if (trial % 5 == 4) o.block_rule = cd::BlockRule::full;
    const cd::detail::BoundAudit a = cd::detail::audit_exact_bounds(d, in, m, o);
    CHECK(a.tiles > 0);
    CHECK(a.violations == 0);
    CHECK(a.worst_ratio <= 1.0 + 1e-12);
    CHECK(a.worst_ratio > 0);  // the bounds are computed (not all zero)
    if (a.violations != 0) {
      std::printf("trial %d: design (%lld, %lld, %lld kB), S1 %lld T %lld: %lld violations, "
                  "worst bound/T_alg %.17g\n",
                  trial, static_cast<long long>(d.n_sm), static_cast<long long>(d.n_v),
                  static_cast<long long>(d.smem_kb), static_cast<long long>(in.size.space[0]),
                  static_cast<long long>(in.size.time_steps),
                  static_cast<long long>(a.violations), a.worst_ratio);
    }
    tiles += a.tiles;
    worst = std::max(worst, a.worst_ratio);
    // The audit's optimum (every tile evaluated) is the pruned and the plain sweep's.
    const cd::SweepOutput pruned = cd::sweep({d}, {in}, m, o);
    o.prune = false;
    const cd::SweepOutput plain = cd::sweep({d}, {in}, m, o);
    CHECK(pruned.talg_s[0] == a.optimum_s);
    CHECK(plain.talg_s[0] == a.optimum_s);
    CHECK(plain.n_feasible[0] == a.tiles);
    for (int q = 0; q < 4; ++q) CHECK(pruned.tiles[q] == plain.tiles[q]);
  }
  std::printf("bound audit: %lld tiles, largest bound / T_alg = %.17g\n",
              static_cast<long long>(tiles), worst);
  return cm_test::report("codesign_bounds");
}

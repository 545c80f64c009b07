// Unit tests of the energy model (thesis 000, Appendix B). Expected values are computed by
// hand from Eqs. B.2-B.6 with Table B.2's micro-benchmark parameters (Model A); the
// intermediate numbers are written out.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "check.hpp"
#include "costmetrics/energy.hpp"
#include "costmetrics/search.hpp"
#include "gpu_fixtures.hpp"

using namespace costmetrics::energy;
namespace tmod = costmetrics::time;

namespace {

// Table B.2, micro-benchmarks (Model A), K20c.
Params model_a() {
  Params p;
  p.p_stat_w = 48;
  p.e_gs_j = 2.2e-9;
  p.e_sr_j = 2.23e-10;
  p.e_fadd_j = 5.3e-11;
  p.e_fmul_j = 3.7e-11;
  p.e_iadd_j = 7.2e-11;
  p.e_imax_j = 4.8e-11;
  return p;
}

Run run(std::int64_t s1, std::int64_t s2, std::int64_t t, std::int64_t ts1, std::int64_t ts2,
        std::int64_t tt, std::int64_t ss = 0) {
  Run r;
  r.size.space = {{s1, s2, 0}};
  r.size.time_steps = t;
  r.tiles.space = {{ts1, ts2, 0}};
  r.tiles.time = tt;
  r.subtile = ss;
  return r;
}

void test_smith_waterman() {
  // S = 1000, T = 500, tS = 10, tT = 20, sS = 5, T_alg = 0.01 s.
  const Breakdown b = evaluate(smith_waterman(), run(1000, 0, 500, 10, 0, 20, 5), model_a(), 0.01);
  CHECK(b.v_tile == 200);         // tS tT
  CHECK(b.m_io_words == 127.5);   // 4.25 (10 + 20)
  CHECK(b.sr_words == 400);       // V + 5 tT tS / sS = 200 + 5*20*10/5
  CHECK(b.n_tiles == 2500);       // S T / V = 500000 / 200
  CHECK_CLOSE(b.e_iter_j, 6.0e-10, 1e-12);    // 5 (7.2e-11 + 4.8e-11)
  // E_tile = 2.2e-9*127.5 + 2.23e-10*400 + 6e-10*200 = 2.805e-7 + 8.92e-8 + 1.2e-7
  CHECK_CLOSE(b.e_tile_j, 4.897e-7, 1e-12);
  CHECK_CLOSE(b.e_dynamic_j, 1.22425e-3, 1e-12);  // 2500 * 4.897e-7
  CHECK_CLOSE(b.e_static_j, 0.48, 1e-12);         // 48 W * 0.01 s
  CHECK_CLOSE(b.e_alg_j, 0.48122425, 1e-12);
  CHECK_CLOSE(b.e_gs_j + b.e_sr_j + b.e_ar_j, b.e_dynamic_j, 1e-12);
  CHECK_CLOSE(b.e_gs_j, 2500 * 2.805e-7, 1e-12);
}

void test_jacobi1d() {
  // S = 1000, T = 500, tS = 10, tT = 20, sS = 5.
  const Breakdown b = evaluate(jacobi1d(), run(1000, 0, 500, 10, 0, 20, 5), model_a(), 1.0);
  CHECK(b.m_io_words == 100);     // 2 (2 tT + tS) = 2 (40 + 10)
  CHECK(b.sr_words == 720);       // 4 (2 tS + 4 tT tS / sS) = 4 (20 + 160); the other reading gives 800
  CHECK(b.v_tile == 200);
  CHECK(b.n_tiles == 2500);
  CHECK_CLOSE(b.e_iter_j, 1.43e-10, 1e-12);  // 2 * 5.3e-11 + 3.7e-11
  // E_tile = 2.2e-9*100 + 2.23e-10*720 + 1.43e-10*200 = 2.2e-7 + 1.6056e-7 + 2.86e-8
  CHECK_CLOSE(b.e_tile_j, 4.0916e-7, 1e-12);
  CHECK(b.e_static_j == 48.0);  // P_stat T_alg = 48 W * 1 s
  CHECK_CLOSE(b.e_alg_j, 48.0 + 2500 * 4.0916e-7, 1e-12);
  // sS = 0 means sS = tS: sr = 4 (20 + 4*20) = 400.
  CHECK(counts(jacobi1d(), run(1000, 0, 500, 10, 0, 20, 0)).sr_words == 400);
}

void test_jacobi2d() {
  // S1 = S2 = 1000, T = 100, tS1 = 10, tS2 = 32, tT = 8.
  const Breakdown b = evaluate(jacobi2d(), run(1000, 1000, 100, 10, 32, 8), model_a(), 0.5);
  CHECK(b.m_io_words == 1664);    // B.3: 2*32*(10 + 16)
  CHECK(b.v_tile == 3328);        // B.4: 32*8*(20 + 8 - 2)/2
  CHECK(b.sr_words == 19968);     // B.6: mu_sr V = 6 * 3328
  // B.5 with w_tile = tS1 + tT - 2 = 16: 2*100*1000*1008 / (8*32*26) = 201600000 / 6656
  CHECK_CLOSE(b.n_tiles, 201600000.0 / 6656.0, 1e-14);
  CHECK_CLOSE(b.e_iter_j, 2.49e-10, 1e-12);  // 4 * 5.3e-11 + 3.7e-11
  // E_tile = 2.2e-9*1664 + 2.23e-10*19968 + 2.49e-10*3328 = 3.6608e-6 + 4.452864e-6 + 8.28672e-7
  CHECK_CLOSE(b.e_tile_j, 8.942336e-6, 1e-12);
  CHECK_CLOSE(b.e_alg_j, 24.0 + 201600000.0 / 6656.0 * 8.942336e-6, 1e-12);
  // N_tile V_tile covers T S1 (S2 + tT) points exactly: 100*1000*1008.
  CHECK_CLOSE(b.n_tiles * b.v_tile, 100800000.0, 1e-14);
  CHECK_THROWS(evaluate(jacobi2d(), run(1000, 1000, 100, 10, 32, 7), model_a(), 0.5),
               std::invalid_argument);  // odd tT
}

void test_custom_kernel_matches_builtin() {
  // J2D described through expressions gives the built-in numbers.
  OpMix ops;
  ops.fadd = 4;
  ops.fmul = 1;
  const Kernel k = custom_kernel("j2d_again", 2, ops, "2*tS2*(tS1 + 2*tT)", "6*tS2*tT*(2*tS1+tT-2)/2",
                                 "tS2*tT*(2*tS1 + tT - 2)/2",
                                 "2*T*S1*(S2+tT)/(tT*tS2*(tS1 + (tS1+tT-2)))");
  const Run r = run(1000, 1000, 100, 10, 32, 8);
  CHECK_CLOSE(evaluate(k, r, model_a(), 0.5).e_alg_j, evaluate(jacobi2d(), r, model_a(), 0.5).e_alg_j,
              1e-13);
  const Expression e = Expression::parse("-2^2 + max(3, ceil(S/ tS)) * floor(1.5) - min(1,2)", "x");
  std::array<double, Expression::kNumVars> v{};
  v[Expression::kS1] = 7;
  v[Expression::ktS1] = 2;
  CHECK(e.eval(v) == -4 + 4 * 1 - 1);  // -(2^2) + max(3, ceil(3.5)) * 1 - 1
  CHECK_THROWS(Expression::parse("tS1 +", "m_io_words"), std::invalid_argument);
  CHECK_THROWS(Expression::parse("foo(1)", "m_io_words"), std::invalid_argument);
  CHECK_THROWS(Expression::parse("(((1)", "m_io_words"), std::invalid_argument);
  const Kernel bad = custom_kernel("bad", 1, ops, "tS - 100", "0", "tS*tT", "S*T/(tS*tT)");
  CHECK_THROWS(evaluate(bad, run(1000, 0, 100, 10, 0, 8), model_a(), 1.0), std::invalid_argument);
}

void test_validation() {
  Params p = model_a();
  p.e_gs_j = -1e-9;
  CHECK_THROWS(p.validate(), std::invalid_argument);
  p.e_gs_j = std::nan("");
  CHECK_THROWS(evaluate(jacobi1d(), run(100, 0, 10, 10, 0, 2), p, 1.0), std::invalid_argument);
  CHECK_THROWS(evaluate(jacobi1d(), run(100, 0, 10, 10, 0, 2), model_a(), -1.0),
               std::invalid_argument);
  CHECK_THROWS(evaluate(jacobi1d(), run(100, 0, 10, 10, 0, 2), model_a(), 0.0),
               std::invalid_argument);  // a run takes time
  CHECK_THROWS(energy_per_operation_j(60.0, 48.0, 0.0, 1e11), std::invalid_argument);
  CHECK_THROWS(evaluate(jacobi1d(), run(0, 0, 10, 10, 0, 2), model_a(), 1.0), std::invalid_argument);
  CHECK_THROWS(evaluate(jacobi1d(), run(100, 0, 10, 10, 0, 2, 11), model_a(), 1.0),
               std::invalid_argument);  // sS > tS
  CHECK_THROWS(evaluate(jacobi2d(), run(std::int64_t{1} << 40, std::int64_t{1} << 40, 10, 10, 32, 2),
                        model_a(), 1.0),
               std::overflow_error);
  CHECK_THROWS(energy_per_operation_j(1.0, 48, 1.0, 1e9), std::invalid_argument);  // E_dyn < 0
  CHECK_THROWS(energy_per_operation_j(10.0, 2.0, 0.5, 1e-320), std::overflow_error);  // 9 / 1e-320
}

void test_benchmark_form() {
  // B.7.1: e_j = (E_alg - P_stat T_alg) / op_j = (60 - 48 * 1) / 1e11 = 1.2e-10 J.
  CHECK_CLOSE(energy_per_operation_j(60.0, 48.0, 1.0, 1e11), 1.2e-10, 1e-12);
}

std::vector<double> design(const std::vector<std::pair<Kernel, Run>>& runs) {
  std::vector<double> a;
  double t = 0.1;
  for (const auto& kr : runs) {
    const auto row = design_row(kr.first, kr.second, t);
    a.insert(a.end(), row.begin(), row.end());
    t *= 1.37;
  }
  return a;
}

void test_identifiability_and_least_squares() {
  std::vector<std::pair<Kernel, Run>> runs;
  for (std::int64_t ts : {16, 32, 64}) {
    for (std::int64_t tt : {8, 16, 32}) {
      runs.push_back({smith_waterman(), run(4096, 0, 2048 + ts, ts, 0, tt, ts / 4)});
      runs.push_back({jacobi1d(), run(8192, 0, 1024 + tt, ts, 0, tt, ts / 2)});
      runs.push_back({jacobi2d(), run(2048, 2048 + ts, 256, ts / 4, 32, tt)});
    }
  }
  const std::vector<double> a = design(runs);
  const std::size_t n = runs.size();
  const Identifiability id = identifiability(a.data(), n);
  CHECK(id.rank == 6);  // e_iadd and e_imax enter only as a sum
  CHECK(!id.individually_identifiable[5] && !id.individually_identifiable[6]);
  for (int k = 0; k < 5; ++k) CHECK(id.individually_identifiable[static_cast<std::size_t>(k)]);
  bool found_sum = false;
  for (const auto& c : id.combinations) {
    if (c[5] != 0) found_sum = found_sum || (std::fabs(c[5] - 1) < 1e-9 && std::fabs(c[6] - 1) < 1e-9);
  }
  CHECK(found_sum);

  // Noise-free energies from Model A: least squares recovers the identifiable parameters.
  const auto x_true = to_vector(model_a());
  std::vector<double> e(n);
  for (std::size_t i = 0; i < n; ++i) {
    e[i] = 0;
    for (int k = 0; k < kNumParams; ++k) e[i] += a[i * kNumParams + k] * x_true[static_cast<std::size_t>(k)];
  }
  const LeastSquares ls = fit_least_squares(a.data(), e.data(), n);
  for (int k = 0; k < 5; ++k) {
    CHECK_CLOSE(ls.x[static_cast<std::size_t>(k)], x_true[static_cast<std::size_t>(k)], 1e-7);
  }
  CHECK_CLOSE(ls.x[5] + ls.x[6], 7.2e-11 + 4.8e-11, 1e-7);
  // Minimum-norm split of the unidentifiable pair: equal halves (no arbitrary choice).
  CHECK_CLOSE(ls.x[5], ls.x[6], 1e-7);

  // J2D alone: e_sr, e_fadd, e_fmul enter as 6 e_sr + 4 e_fadd + e_fmul.
  std::vector<double> a2;
  for (std::size_t i = 0; i < n; ++i) {
    if (runs[i].first.kind == KernelKind::jacobi2d) {
      a2.insert(a2.end(), a.begin() + static_cast<long>(i * kNumParams),
                a.begin() + static_cast<long>((i + 1) * kNumParams));
    }
  }
  const Identifiability id2 = identifiability(a2.data(), a2.size() / kNumParams);
  CHECK(id2.rank == 3);  // P_stat, e_gs, and one combination
  bool found = false;
  for (const auto& c : id2.combinations) {
    found = found || (std::fabs(c[2] - 6) < 1e-6 && std::fabs(c[3] - 4) < 1e-6 &&
                      std::fabs(c[4] - 1) < 1e-6);
  }
  CHECK(found);
  CHECK_THROWS(identifiability(a.data(), 0), std::invalid_argument);
}

void test_optimization_error() {
  // Two groups. Group 7: model picks row 1 (E_meas 11), best measured is row 0 (10):
  // error 10%. Group 3: both pick row 3: error 0.
  const std::int64_t group[] = {7, 7, 7, 3, 3};
  const double predicted[] = {5.0, 4.0, 6.0, 1.0, 2.0};
  const double measured[] = {10.0, 11.0, 12.0, 1.0, 1.5};
  const OptimizationError r = optimization_error(group, predicted, measured, 5);
  CHECK(r.n_groups == 2);
  CHECK(r.n_wrong == 1);
  CHECK_CLOSE(r.max_pct, 10.0, 1e-12);
  CHECK_CLOSE(r.rmse_pct, std::sqrt((100.0 + 0.0) / 2.0), 1e-12);
  const double bad[] = {10.0, 0.0, 12.0, 1.0, 1.5};
  CHECK_THROWS(optimization_error(group, predicted, bad, 5), std::invalid_argument);
}

void test_search() {
  // Constant T_alg: E_dyn of J1D falls with tile size, so the optimum is the largest tile.
  tmod::SearchSpace space;
  space.space = {{8, 16, 32}};
  space.time = {2, 4, 8};
  TimeSource fixed;
  fixed.talg_s = 1.0;
  tmod::ProblemSize size;
  size.space = {{4096, 0, 0}};
  size.time_steps = 1024;
  const SearchResult r = search(jacobi1d(), size, 0, model_a(), fixed, space, 0.0);
  CHECK(r.best.space[0] == 32 && r.best.time == 8);
  CHECK(r.n_points == 9 && r.n_feasible == 9);
  CHECK(r.near_optimal.size() == 1);
  // Brute force over the same space agrees.
  double best = 1e300;
  for (std::int64_t ts : space.space[0]) {
    for (std::int64_t tt : space.time) {
      Run x = run(4096, 0, 1024, ts, 0, tt);
      best = std::min(best, evaluate(jacobi1d(), x, model_a(), 1.0).e_alg_j);
    }
  }
  CHECK_CLOSE(r.e_min_j, best, 1e-14);

  // With the time model (GTX 980 preset, Jacobi2D C_iter): every near-optimal point is
  // feasible for Eq. A.32 and within 10% of the minimum.
  TimeSource model;
  model.use_time_model = true;
  model.gpu = cm_test::gtx980();
  model.stencil.n_space_dims = 2;
  model.stencil.c_iter_s = 3.39e-8;
  tmod::ProblemSize s2;
  s2.space = {{4096, 4096, 0}};
  s2.time_steps = 1024;
  const SearchResult r2 = search(jacobi2d(), s2, 0, model_a(), model, tmod::default_search_space(2), 0.1);
  CHECK(r2.n_feasible > 0 && r2.n_feasible < r2.n_points);
  for (std::size_t i = 0; i < r2.near_optimal.size(); ++i) {
    CHECK(r2.near_optimal_e_j[i] <= 1.1 * r2.e_min_j);
    CHECK(tmod::feasibility(model.gpu, 2, r2.near_optimal[i]) == tmod::kFeasible);
  }
  CHECK_CLOSE(r2.best_breakdown.e_alg_j, r2.e_min_j, 1e-14);
  model.stencil.n_space_dims = 1;
  CHECK_THROWS(search(jacobi2d(), s2, 0, model_a(), model, tmod::default_search_space(2), 0.1),
               std::invalid_argument);
}

void test_generic_search() {
  // search.hpp on a toy space: first minimum in index order wins ties.
  struct Line {
    std::size_t size() const { return 5; }
    int point(std::size_t i) const { return static_cast<int>(i); }
  };
  const double values[] = {3.0, 1.0, 2.0, 1.0, 1.05};
  const auto r = costmetrics::search::exhaustive_search(
      Line{}, [](int p) { return p != 0; }, [&](int p) { return values[p]; }, 0.06, 1);
  CHECK(r.best == 1);
  CHECK(r.n_feasible == 4);
  CHECK(r.near_optimal.size() == 3);  // 1, 3 (ties, index order), 4 (1.05 <= 1.06)
  CHECK(r.near_optimal[1] == 3 && r.near_optimal[2] == 4);
  CHECK_THROWS(costmetrics::search::exhaustive_search(
                   Line{}, [](int) { return false; }, [&](int p) { return values[p]; }, 0.1),
               std::invalid_argument);
  CHECK_THROWS(costmetrics::search::exhaustive_search(
                   Line{}, [](int) { return true; }, [](int) { return -1.0; }, 0.1),
               std::invalid_argument);
}

}  // namespace

int main() {
  test_smith_waterman();
  test_jacobi1d();
  test_jacobi2d();
  test_custom_kernel_matches_builtin();
  test_validation();
  test_benchmark_form();
  test_identifiability_and_least_squares();
  test_optimization_error();
  test_search();
  test_generic_search();
  return cm_test::report("energy");
}

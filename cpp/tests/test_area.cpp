// Unit tests of the silicon-area model (thesis 000, Appendix C, Eqs. C.4-C.7).
#include <stdexcept>
#include <vector>

#include "check.hpp"
#include "costmetrics/area.hpp"

namespace ar = costmetrics::area;

namespace {

// Sec. C.2.2 constants (the same numbers as data/area/maxwell.yaml).
ar::Coefficients maxwell() {
  ar::Coefficients c;
  c.beta_r_mm2_per_kb = 0.004305;
  c.alpha_r_mm2 = 0.001947;
  c.beta_m_mm2_per_kb = 0.01565;
  c.alpha_m_mm2 = 0.09281;
  c.beta_l1_mm2_per_kb = 0.1604;
  c.alpha_l1_mm2 = 0.08204;
  c.beta_l2_mm2_per_kb = 0.04197;
  c.alpha_l2_mm2 = 0.7685;
  c.beta_vu_mm2 = 0.04282;
  c.alpha_oh_mm2 = 6.4156;
  return c;
}

ar::RoundedCoefficients eq_c7() {
  ar::RoundedCoefficients r;
  r.vu_mm2 = 0.0447;
  r.reg_mm2_per_kb = 0.0043;
  r.smem_mm2_per_kb = 0.015;
  r.l1_mm2_per_kb_per_sm = 0.08;
  r.l2_mm2_per_kb = 0.041;
  r.per_sm_mm2 = 7.317;
  return r;
}

ar::Config config(std::int64_t n_sm, std::int64_t n_v, double smem, double l1, double l2) {
  ar::Config g;
  g.n_sm = n_sm;
  g.n_v = n_v;
  g.smem_kb = smem;
  g.regs_kb_per_vu = 2.0;
  g.l1_kb_per_pair = l1;
  g.l2_kb = l2;
  return g;
}

}  // namespace

int main() {
  const ar::Coefficients c = maxwell();
  // GTX 980 (16 SMs, 128 VUs, 96 kB, L1 48 kB per pair, L2 2048 kB), Eq. C.6:
  // VUs 16*128*0.04282 = 87.695; registers 2048*(0.004305*2 + 0.001947) = 21.621;
  // shared 16*(0.01565*96 + 0.09281) = 25.523; L1 8*(0.1604*48 + 0.08204) = 62.250;
  // L2 0.04197*2048 + 0.7685 = 86.72306; overhead 16*6.4156 = 102.6496; total 386.462036.
  const ar::AreaBreakdown g980 = ar::structural(c, config(16, 128, 96, 48, 2048));
  CHECK_CLOSE(g980.vector_units_mm2, 87.69536, 1e-9);
  CHECK_CLOSE(g980.registers_mm2, 21.620736, 1e-9);
  CHECK_CLOSE(g980.shared_memory_mm2, 25.52336, 1e-9);
  CHECK_CLOSE(g980.l1_mm2, 62.24992, 1e-9);
  CHECK_CLOSE(g980.l2_mm2, 86.72306, 1e-9);
  CHECK_CLOSE(g980.overhead_mm2, 102.6496, 1e-9);
  CHECK_CLOSE(g980.total_mm2, 386.462036, 1e-9);
  // Rounded Eq. C.7: 0.0447*2048 + 0.0043*2*2048 + 0.015*96*16 + 0.08*48*16 + 0.041*2048
  // + 7.317*16 = 91.5456 + 17.6128 + 23.04 + 61.44 + 83.968 + 117.072 = 394.6784.
  CHECK_CLOSE(ar::rounded(eq_c7(), config(16, 128, 96, 48, 2048)), 394.6784, 1e-12);
  // Cache-less GTX 980 (Sec. C.4.1 quotes 237 mm^2): 386.462036 - 62.24992 - 86.72306.
  CHECK_CLOSE(ar::structural(c, config(16, 128, 96, 0, 0)).total_mm2, 237.489056, 1e-9);
  // Table C.2, Jacobi 2D design (32, 128, 24 kB), cache-less: 4096*0.053377 = 218.632192;
  // 32*(0.01565*24 + 0.09281) = 14.98912; 32*6.4156 = 205.2992; total 438.920512 (438).
  CHECK_CLOSE(ar::structural(c, config(32, 128, 24, 0, 0)).total_mm2, 438.920512, 1e-9);

  // Least squares on synthetic points of an exact line (synthetic, not seed data).
  const ar::LinearFit fit = ar::fit_linear({24, 48, 96, 192, 384},
                                           {0.01565 * 24 + 0.09281, 0.01565 * 48 + 0.09281,
                                            0.01565 * 96 + 0.09281, 0.01565 * 192 + 0.09281,
                                            0.01565 * 384 + 0.09281});
  CHECK_CLOSE(fit.slope, 0.01565, 1e-10);
  CHECK_CLOSE(fit.intercept, 0.09281, 1e-9);
  CHECK_CLOSE(fit.r_squared, 1.0, 1e-12);
  // Hand-computed fit of (0,1), (1,2), (2,2): slope 0.5, intercept 7/6, residuals
  // (-1/6, 1/3, -1/6): rmse = sqrt((1/36 + 1/9 + 1/36)/3) = sqrt(1/18).
  const ar::LinearFit small = ar::fit_linear({0, 1, 2}, {1, 2, 2});
  CHECK_CLOSE(small.slope, 0.5, 1e-12);
  CHECK_CLOSE(small.intercept, 7.0 / 6.0, 1e-12);
  CHECK_CLOSE(small.rmse, 0.23570226039551584, 1e-12);
  CHECK_THROWS(ar::fit_linear({1}, {1}), std::invalid_argument);
  CHECK_THROWS(ar::fit_linear({1, 1}, {1, 2}), std::invalid_argument);
  CHECK_THROWS(ar::fit_linear({1, 2}, {1}), std::invalid_argument);

  // Die calibration (Sec. C.2.2): alpha_oh = 102.65 / 16 = 6.415625.
  const ar::DieCalibration cal = ar::calibrate_die(c, config(16, 128, 96, 48, 2048), 398, 102.65);
  CHECK_CLOSE(cal.alpha_oh_mm2, 6.415625, 1e-12);
  // beta_VU from the die: (398 - (386.462036 - 87.69536 + 16*(6.415625 - 6.4156))) / 2048.
  CHECK_CLOSE(cal.beta_vu_from_die_mm2, (398 - (386.462036 - 87.69536 + 0.0004)) / 2048, 1e-9);

  // Bad input.
  CHECK_THROWS(ar::structural(c, config(0, 128, 96, 0, 0)), std::invalid_argument);
  CHECK_THROWS(ar::structural(c, config(16, -1, 96, 0, 0)), std::invalid_argument);
  CHECK_THROWS(ar::structural(c, config(16, 128, -96, 0, 0)), std::invalid_argument);
  ar::Coefficients bad = c;
  bad.beta_vu_mm2 = -1;
  CHECK_THROWS(ar::structural(bad, config(16, 128, 96, 0, 0)), std::invalid_argument);

  // Results are finite: a size that overflows a term, or a sum of finite terms, raises.
  ar::Config huge = config(16, 128, 96, 0, 0);
  huge.regs_kb_per_vu = 1e308;
  CHECK_THROWS(ar::structural(c, huge), std::overflow_error);
  CHECK_THROWS(ar::rounded(eq_c7(), huge), std::overflow_error);
  CHECK_THROWS(ar::calibrate_die(c, huge, 398, 102.65), std::overflow_error);
  ar::Coefficients unit = c;  // 1 mm^2 per kB: each term is finite, their sum is not
  unit.beta_m_mm2_per_kb = 1;
  unit.beta_l2_mm2_per_kb = 1;
  CHECK_THROWS(ar::structural(unit, config(1, 1, 1e308, 0, 1e308)), std::overflow_error);
  {
    const std::size_t n = 2;
    const std::int64_t n_sm[] = {16, 16};
    const std::int64_t n_v[] = {128, 128};
    const double smem[] = {96, 96};
    const double regs[] = {2, 1e308};
    const double zero[] = {0, 0};
    double out[2] = {0, 0};
    CHECK_THROWS(ar::structural_batch(c, n, n_sm, n_v, smem, regs, zero, zero, out),
                 std::overflow_error);
    CHECK_THROWS(ar::rounded_batch(eq_c7(), n, n_sm, n_v, smem, regs, zero, zero, out),
                 std::overflow_error);
  }
  // A die smaller than its registers, memories and overhead leaves a negative beta_VU.
  CHECK_THROWS(ar::calibrate_die(c, config(16, 128, 96, 48, 2048), 1.5, 102.65),
               std::invalid_argument);
  return cm_test::report("area");
}

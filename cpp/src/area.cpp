// Silicon-area model (thesis 000, Appendix C, Eqs. C.4-C.7) and its calibration (Sec. C.2.2).
#include "costmetrics/area.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "costmetrics/checked.hpp"

namespace costmetrics {
namespace area {

namespace {

void require_nonnegative(double v, const char* name) {
  if (!(v >= 0) || !std::isfinite(v)) {
    throw std::invalid_argument(std::string(name) + ": must be finite and >= 0, got " +
                                format_value(v));
  }
}

void check_config(std::int64_t n_sm, std::int64_t n_v, double smem, double regs, double l1,
                  double l2, const std::string& where) {
  // Bound the counts so that nSM nV stays exact in a double and far from overflow.
  const std::int64_t limit = std::int64_t{1} << 24;
  if (n_sm < 1 || n_sm > limit) {
    throw std::invalid_argument(where + "n_sm: must be in [1, 2^24], got " + std::to_string(n_sm));
  }
  if (n_v < 1 || n_v > limit) {
    throw std::invalid_argument(where + "n_v: must be in [1, 2^24], got " + std::to_string(n_v));
  }
  require_nonnegative(smem, (where + "smem_kb").c_str());
  require_nonnegative(regs, (where + "regs_kb_per_vu").c_str());
  require_nonnegative(l1, (where + "l1_kb_per_pair").c_str());
  require_nonnegative(l2, (where + "l2_kb").c_str());
}

// One term of the area and the argument that scales it, for the message of an overflow.
struct Term {
  double mm2;
  const char* name;
  double value;
};

// Every result is finite: a term that overflows names its argument; a sum of finite terms
// that overflows names every size.
void require_finite_area(double total, std::initializer_list<Term> terms, double smem,
                         double regs, double l1, double l2, const std::string& where) {
  if (std::isfinite(total)) return;
  for (const Term& t : terms) {
    if (!std::isfinite(t.mm2)) {
      throw std::overflow_error(where + t.name + ": the area is not finite at " + t.name + " = " +
                                format_value(t.value) + " (inputs too large)");
    }
  }
  throw std::overflow_error(where + "area: the total is not finite (smem_kb = " +
                            format_value(smem) + ", regs_kb_per_vu = " + format_value(regs) +
                            ", l1_kb_per_pair = " + format_value(l1) +
                            ", l2_kb = " + format_value(l2) + "; inputs too large)");
}

// Eq. C.6 term by term.
AreaBreakdown structural_unchecked(const Coefficients& c, std::int64_t n_sm_i, std::int64_t n_v_i,
                                   double smem, double regs, double l1, double l2,
                                   const std::string& where) {
  const double n_sm = static_cast<double>(n_sm_i);
  const double n_v = static_cast<double>(n_v_i);
  AreaBreakdown b;
  b.vector_units_mm2 = n_sm * n_v * c.beta_vu_mm2;
  b.registers_mm2 = n_sm * n_v * (c.beta_r_mm2_per_kb * regs + c.alpha_r_mm2);
  b.shared_memory_mm2 = smem > 0 ? n_sm * (c.beta_m_mm2_per_kb * smem + c.alpha_m_mm2) : 0.0;
  b.l1_mm2 = l1 > 0 ? n_sm / 2.0 * (c.beta_l1_mm2_per_kb * l1 + c.alpha_l1_mm2) : 0.0;
  b.l2_mm2 = l2 > 0 ? c.beta_l2_mm2_per_kb * l2 + c.alpha_l2_mm2 : 0.0;
  b.overhead_mm2 = n_sm * c.alpha_oh_mm2;
  b.total_mm2 = b.vector_units_mm2 + b.registers_mm2 + b.shared_memory_mm2 + b.l1_mm2 +
                b.l2_mm2 + b.overhead_mm2;
  require_finite_area(b.total_mm2,
                      {{b.vector_units_mm2, "coefficients.beta_vu_mm2", c.beta_vu_mm2},
                       {b.registers_mm2, "regs_kb_per_vu", regs},
                       {b.shared_memory_mm2, "smem_kb", smem},
                       {b.l1_mm2, "l1_kb_per_pair", l1},
                       {b.l2_mm2, "l2_kb", l2},
                       {b.overhead_mm2, "coefficients.alpha_oh_mm2", c.alpha_oh_mm2}},
                      smem, regs, l1, l2, where);
  return b;
}

// Eq. C.7 as printed.
double rounded_unchecked(const RoundedCoefficients& c, std::int64_t n_sm_i, std::int64_t n_v_i,
                         double smem, double regs, double l1, double l2, const std::string& where) {
  const double n_sm = static_cast<double>(n_sm_i);
  const double n_v = static_cast<double>(n_v_i);
  const double vu = c.vu_mm2 * n_sm * n_v;
  const double reg = c.reg_mm2_per_kb * regs * n_sm * n_v;
  const double sm = c.smem_mm2_per_kb * smem * n_sm;
  const double l1_term = c.l1_mm2_per_kb_per_sm * l1 * n_sm;
  const double l2_term = c.l2_mm2_per_kb * l2;
  const double per_sm = c.per_sm_mm2 * n_sm;
  const double total = vu + reg + sm + l1_term + l2_term + per_sm;
  require_finite_area(total,
                      {{vu, "coefficients.vu_mm2", c.vu_mm2},
                       {reg, "regs_kb_per_vu", regs},
                       {sm, "smem_kb", smem},
                       {l1_term, "l1_kb_per_pair", l1},
                       {l2_term, "l2_kb", l2},
                       {per_sm, "coefficients.per_sm_mm2", c.per_sm_mm2}},
                      smem, regs, l1, l2, where);
  return total;
}

}  // namespace

void Coefficients::validate() const {
  for_each_field<Coefficients>([&](auto f) {
    require_nonnegative(this->*(f.member), (std::string("Coefficients.") + f.name).c_str());
  });
}

void RoundedCoefficients::validate() const {
  for_each_field<RoundedCoefficients>([&](auto f) {
    require_nonnegative(this->*(f.member), (std::string("RoundedCoefficients.") + f.name).c_str());
  });
}

void Config::validate() const {
  check_config(n_sm, n_v, smem_kb, regs_kb_per_vu, l1_kb_per_pair, l2_kb, "Config.");
}

AreaBreakdown structural(const Coefficients& c, const Config& g) {
  c.validate();
  g.validate();
  return structural_unchecked(c, g.n_sm, g.n_v, g.smem_kb, g.regs_kb_per_vu, g.l1_kb_per_pair,
                              g.l2_kb, "");
}

double rounded(const RoundedCoefficients& c, const Config& g) {
  c.validate();
  g.validate();
  return rounded_unchecked(c, g.n_sm, g.n_v, g.smem_kb, g.regs_kb_per_vu, g.l1_kb_per_pair,
                           g.l2_kb, "");
}

void structural_batch(const Coefficients& c, std::size_t n, const std::int64_t* n_sm,
                      const std::int64_t* n_v, const double* smem_kb, const double* regs_kb,
                      const double* l1_kb, const double* l2_kb, double* out_mm2) {
  c.validate();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string where = "[" + std::to_string(i) + "] ";
    check_config(n_sm[i], n_v[i], smem_kb[i], regs_kb[i], l1_kb[i], l2_kb[i], where);
    out_mm2[i] = structural_unchecked(c, n_sm[i], n_v[i], smem_kb[i], regs_kb[i], l1_kb[i],
                                      l2_kb[i], where)
                     .total_mm2;
  }
}

void rounded_batch(const RoundedCoefficients& c, std::size_t n, const std::int64_t* n_sm,
                   const std::int64_t* n_v, const double* smem_kb, const double* regs_kb,
                   const double* l1_kb, const double* l2_kb, double* out_mm2) {
  c.validate();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string where = "[" + std::to_string(i) + "] ";
    check_config(n_sm[i], n_v[i], smem_kb[i], regs_kb[i], l1_kb[i], l2_kb[i], where);
    out_mm2[i] =
        rounded_unchecked(c, n_sm[i], n_v[i], smem_kb[i], regs_kb[i], l1_kb[i], l2_kb[i], where);
  }
}

LinearFit fit_linear(const std::vector<double>& size_kb, const std::vector<double>& area_mm2) {
  if (size_kb.size() != area_mm2.size()) {
    throw std::invalid_argument("fit_linear: size_kb and area_mm2 must have the same length, got " +
                                std::to_string(size_kb.size()) + " and " +
                                std::to_string(area_mm2.size()));
  }
  const std::size_t n = size_kb.size();
  if (n < 2) {
    throw std::invalid_argument("fit_linear: needs at least 2 points, got " + std::to_string(n));
  }
  bool distinct = false;
  double mean_x = 0;
  double mean_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string where = "[" + std::to_string(i) + "]";
    if (!std::isfinite(size_kb[i]) || size_kb[i] < 0) {
      throw std::invalid_argument("size_kb" + where + ": must be finite and >= 0, got " +
                                  format_value(size_kb[i]));
    }
    if (!std::isfinite(area_mm2[i]) || area_mm2[i] <= 0) {
      throw std::invalid_argument("area_mm2" + where + ": must be finite and > 0, got " +
                                  format_value(area_mm2[i]));
    }
    distinct = distinct || size_kb[i] != size_kb[0];
    // Running means: a plain sum of values near the double range overflows.
    const double k = static_cast<double>(i + 1);
    mean_x += (size_kb[i] - mean_x) / k;
    mean_y += (area_mm2[i] - mean_y) / k;
  }
  if (!distinct) {
    throw std::invalid_argument("fit_linear: needs at least 2 distinct sizes");
  }
  // Least squares for (slope, intercept) by a column-pivoting QR of [x - mean_x, 1]
  // (centered, so the two columns are orthogonal and the problem as well conditioned as
  // the data allow); intercept = mean_y + b - slope mean_x with b the centered fit's constant.
  const auto rows = static_cast<Eigen::Index>(n);
  Eigen::MatrixXd design(rows, 2);
  Eigen::VectorXd y(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto k = static_cast<std::size_t>(i);
    design(i, 0) = size_kb[k] - mean_x;
    design(i, 1) = 1.0;
    y(i) = area_mm2[k] - mean_y;
  }
  const Eigen::Vector2d coef = design.colPivHouseholderQr().solve(y);
  const double slope = coef(0);
  const double intercept = mean_y + coef(1) - slope * mean_x;
  const Eigen::VectorXd residual = y - design * coef;
  const double ss_res = residual.squaredNorm();
  const double ss_tot = y.squaredNorm();
  LinearFit fit;
  fit.slope = slope;
  fit.intercept = intercept;
  fit.r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  fit.rmse = std::sqrt(ss_res / static_cast<double>(n));
  fit.n_points = static_cast<std::int64_t>(n);
  // Values near the double range overflow the squares: refuse rather than return NaN.
  if (!std::isfinite(fit.slope) || !std::isfinite(fit.intercept) ||
      !std::isfinite(fit.r_squared) || !std::isfinite(fit.rmse)) {
    throw std::overflow_error(
        "fit_linear: the fit is not finite for these points (size_kb up to " +
        format_value(*std::max_element(size_kb.begin(), size_kb.end())) + ", area_mm2 up to " +
        format_value(*std::max_element(area_mm2.begin(), area_mm2.end())) + ")");
  }
  return fit;
}

DieCalibration calibrate_die(const Coefficients& memory, const Config& g, double die_mm2,
                             double overhead_mm2) {
  memory.validate();
  g.validate();
  if (!(die_mm2 > 0) || !std::isfinite(die_mm2)) {
    throw std::invalid_argument("die_mm2: must be finite and > 0, got " + format_value(die_mm2));
  }
  require_nonnegative(overhead_mm2, "overhead_mm2");
  DieCalibration d;
  d.alpha_oh_mm2 = overhead_mm2 / static_cast<double>(g.n_sm);  // Sec. C.2.2: 102.65 / 16
  Coefficients rest = memory;
  rest.beta_vu_mm2 = 0;
  rest.alpha_oh_mm2 = d.alpha_oh_mm2;
  const AreaBreakdown b = structural_unchecked(rest, g.n_sm, g.n_v, g.smem_kb, g.regs_kb_per_vu,
                                               g.l1_kb_per_pair, g.l2_kb, "");
  if (die_mm2 < b.total_mm2) {
    // beta_VU would be negative: an area coefficient is >= 0 (Coefficients::validate).
    throw std::invalid_argument(
        "die_mm2: " + format_value(die_mm2) + " mm^2 is smaller than the die's other components (" +
        format_value(b.total_mm2) + " mm^2 of registers, memories and overhead_mm2 = " +
        format_value(overhead_mm2) +
        ", Eq. C.6), so the vector-unit area beta_VU would be negative");
  }
  d.beta_vu_from_die_mm2 =
      (die_mm2 - b.total_mm2) / (static_cast<double>(g.n_sm) * static_cast<double>(g.n_v));
  return d;
}

}  // namespace area
}  // namespace costmetrics

// Silicon-area model of GPU accelerators (thesis 000, Appendix C, Eqs. C.4-C.7).
// Areas in mm^2, memory sizes in kB (1 kB = 1024 bytes). The calibration constants are
// data (data/area/maxwell.yaml), passed in by the caller.
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include "costmetrics/record.hpp"

namespace costmetrics {
namespace area {

// Constants of the structural model, Eq. C.6 (Sec. C.2.2).
struct Coefficients {
  double beta_r_mm2_per_kb = 0;   // beta_R: register file, per kB per vector unit
  double alpha_r_mm2 = 0;         // alpha_R: register-file overhead per vector unit
  double beta_m_mm2_per_kb = 0;   // beta_M: shared memory, per kB per SM
  double alpha_m_mm2 = 0;         // alpha_M: shared-memory overhead per SM
  double beta_l1_mm2_per_kb = 0;  // beta_L1: L1, per kB per SM pair
  double alpha_l1_mm2 = 0;        // alpha_L1: L1 overhead per SM pair
  double beta_l2_mm2_per_kb = 0;  // beta_L2: L2, per kB
  double alpha_l2_mm2 = 0;        // alpha_L2: L2 overhead, once per chip
  double beta_vu_mm2 = 0;         // beta_VU: core logic of one vector unit
  double alpha_oh_mm2 = 0;        // alpha_oh: common overhead per SM

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Coefficients, beta_r_mm2_per_kb, "beta_R, mm^2 per kB per vector unit"),
        COSTMETRICS_FIELD(Coefficients, alpha_r_mm2, "alpha_R, mm^2 per vector unit"),
        COSTMETRICS_FIELD(Coefficients, beta_m_mm2_per_kb, "beta_M, mm^2 per kB per SM"),
        COSTMETRICS_FIELD(Coefficients, alpha_m_mm2, "alpha_M, mm^2 per SM"),
        COSTMETRICS_FIELD(Coefficients, beta_l1_mm2_per_kb, "beta_L1, mm^2 per kB per SM pair"),
        COSTMETRICS_FIELD(Coefficients, alpha_l1_mm2, "alpha_L1, mm^2 per SM pair"),
        COSTMETRICS_FIELD(Coefficients, beta_l2_mm2_per_kb, "beta_L2, mm^2 per kB"),
        COSTMETRICS_FIELD(Coefficients, alpha_l2_mm2, "alpha_L2, mm^2 per chip"),
        COSTMETRICS_FIELD(Coefficients, beta_vu_mm2, "beta_VU, mm^2 per vector unit"),
        COSTMETRICS_FIELD(Coefficients, alpha_oh_mm2, "alpha_oh, mm^2 per SM"));
  }
  void validate() const;  // every constant finite and >= 0
};

// Constants of the published rounded form, Eq. C.7.
struct RoundedCoefficients {
  double vu_mm2 = 0;                // 0.0447 = beta_VU + alpha_R
  double reg_mm2_per_kb = 0;        // 0.0043 = beta_R
  double smem_mm2_per_kb = 0;       // 0.015 = beta_M
  double l1_mm2_per_kb_per_sm = 0;  // 0.08 = beta_L1 / 2
  double l2_mm2_per_kb = 0;         // 0.041 = beta_L2
  double per_sm_mm2 = 0;            // 7.317 = alpha_oh + alpha_M + alpha_L1 / 2 + alpha_L2

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(RoundedCoefficients, vu_mm2, "per vector unit, mm^2"),
        COSTMETRICS_FIELD(RoundedCoefficients, reg_mm2_per_kb, "per kB of registers per vector unit"),
        COSTMETRICS_FIELD(RoundedCoefficients, smem_mm2_per_kb, "per kB of shared memory per SM"),
        COSTMETRICS_FIELD(RoundedCoefficients, l1_mm2_per_kb_per_sm, "per kB of L1 per pair, per SM"),
        COSTMETRICS_FIELD(RoundedCoefficients, l2_mm2_per_kb, "per kB of L2"),
        COSTMETRICS_FIELD(RoundedCoefficients, per_sm_mm2, "per SM, mm^2"));
  }
  void validate() const;
};

// One GPU configuration (Table C.1): nSM, nV, M_SM, R_VU, L1 per SM pair, L2.
struct Config {
  std::int64_t n_sm = 0;
  std::int64_t n_v = 0;
  double smem_kb = 0;
  double regs_kb_per_vu = 2.0;  // 512 32-bit registers (GTX 980, Sec. C.2.1)
  double l1_kb_per_pair = 0;
  double l2_kb = 0;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Config, n_sm, "nSM, streaming multiprocessors"),
        COSTMETRICS_FIELD(Config, n_v, "nV, vector units per SM"),
        COSTMETRICS_FIELD(Config, smem_kb, "M_SM, shared memory per SM, kB"),
        COSTMETRICS_FIELD(Config, regs_kb_per_vu, "R_VU, register file per vector unit, kB"),
        COSTMETRICS_FIELD(Config, l1_kb_per_pair, "L1 per SM pair, kB (0: no L1)"),
        COSTMETRICS_FIELD(Config, l2_kb, "L2 per chip, kB (0: no L2)"));
  }
  void validate() const;  // n_sm, n_v >= 1; sizes finite and >= 0
};

// Every term of Eq. C.6 for one configuration.
struct AreaBreakdown {
  double vector_units_mm2 = 0;   // nSM nV beta_VU
  double registers_mm2 = 0;      // nSM nV (beta_R R_VU + alpha_R)
  double shared_memory_mm2 = 0;  // nSM (beta_M M_SM + alpha_M)
  double l1_mm2 = 0;             // nSM/2 (beta_L1 L1 + alpha_L1), 0 without L1
  double l2_mm2 = 0;             // beta_L2 L2 + alpha_L2, 0 without L2
  double overhead_mm2 = 0;       // nSM alpha_oh
  double total_mm2 = 0;          // A_tot

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(AreaBreakdown, vector_units_mm2, "nSM nV beta_VU"),
        COSTMETRICS_FIELD(AreaBreakdown, registers_mm2, "nSM nV (beta_R R_VU + alpha_R)"),
        COSTMETRICS_FIELD(AreaBreakdown, shared_memory_mm2, "nSM (beta_M M_SM + alpha_M)"),
        COSTMETRICS_FIELD(AreaBreakdown, l1_mm2, "nSM/2 (beta_L1 L1 + alpha_L1)"),
        COSTMETRICS_FIELD(AreaBreakdown, l2_mm2, "beta_L2 L2 + alpha_L2"),
        COSTMETRICS_FIELD(AreaBreakdown, overhead_mm2, "nSM alpha_oh"),
        COSTMETRICS_FIELD(AreaBreakdown, total_mm2, "A_tot, Eq. C.6"));
  }
};

// Eq. C.6. A cache of size zero contributes no area, its overhead term included.
AreaBreakdown structural(const Coefficients& c, const Config& g);

// Eq. C.7 (the rounded form; its per-SM constant includes alpha_L2, so an L2 of size zero
// still costs alpha_L2 per SM there, as printed).
double rounded(const RoundedCoefficients& c, const Config& g);

// Vectorized Eq. C.6 / C.7 over n configurations (arrays of length n). Unchecked inputs are
// validated per element; throws std::invalid_argument naming the first bad element.
void structural_batch(const Coefficients& c, std::size_t n, const std::int64_t* n_sm,
                      const std::int64_t* n_v, const double* smem_kb, const double* regs_kb,
                      const double* l1_kb, const double* l2_kb, double* out_mm2);
void rounded_batch(const RoundedCoefficients& c, std::size_t n, const std::int64_t* n_sm,
                   const std::int64_t* n_v, const double* smem_kb, const double* regs_kb,
                   const double* l1_kb, const double* l2_kb, double* out_mm2);

// Least-squares line y = slope x + intercept (Sec. C.2.2: per-memory-type linear fits of
// CACTI areas), in closed form on centered data. Needs >= 2 points with distinct x, all finite.
struct LinearFit {
  double slope = 0;      // beta, mm^2 per kB
  double intercept = 0;  // alpha, mm^2
  double r_squared = 0;
  double rmse = 0;       // root-mean-square residual, mm^2
  std::int64_t n_points = 0;

  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(LinearFit, slope, "beta: slope, mm^2 per kB"),
                           COSTMETRICS_FIELD(LinearFit, intercept, "alpha: intercept, mm^2"),
                           COSTMETRICS_FIELD(LinearFit, r_squared, "coefficient of determination"),
                           COSTMETRICS_FIELD(LinearFit, rmse, "root-mean-square residual, mm^2"),
                           COSTMETRICS_FIELD(LinearFit, n_points, "number of points"));
  }
};
LinearFit fit_linear(const std::vector<double>& size_kb, const std::vector<double>& area_mm2);

// Sec. C.2.2, die measurements: alpha_oh = (overhead region) / nSM; beta_VU either as
// measured (per-core logic area) or, for comparison, solved from the published die area
// with every other term of Eq. C.6 fixed.
struct DieCalibration {
  double alpha_oh_mm2 = 0;
  double beta_vu_from_die_mm2 = 0;  // (A_die - all other terms) / (nSM nV)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(DieCalibration, alpha_oh_mm2, "overhead area / nSM, mm^2"),
        COSTMETRICS_FIELD(DieCalibration, beta_vu_from_die_mm2,
                          "beta_VU solved from the published die area, mm^2"));
  }
};
DieCalibration calibrate_die(const Coefficients& memory, const Config& g, double die_mm2,
                             double overhead_mm2);

}  // namespace area
}  // namespace costmetrics

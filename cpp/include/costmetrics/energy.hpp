// Energy model of tiled nested-loop codes on GPUs, its parameter regression and
// energy-optimal tile selection.
// Source: thesis 000, Appendix B (Eqs. B.1-B.7, Tables B.1-B.3).
// Energies in joules, power in watts, times in seconds, memory in 4-byte words.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "costmetrics/record.hpp"
#include "costmetrics/time.hpp"

namespace costmetrics {
namespace energy {

// Elementary hardware (EH) parameters of Table B.1 that Table B.2 gives values for.
struct Params {
  double p_stat_w = 0;  // P_stat, static power of the device
  double e_gs_j = 0;    // e_gs, energy per word global<->shared
  double e_sr_j = 0;    // e_sr, energy per word shared<->register
  double e_fadd_j = 0;  // e_j, floating-point add
  double e_fmul_j = 0;  // e_j, floating-point multiply
  double e_iadd_j = 0;  // e_j, integer add
  double e_imax_j = 0;  // e_j, integer max (compare)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Params, p_stat_w, "P_stat, static power of the device, W"),
        COSTMETRICS_FIELD(Params, e_gs_j, "e_gs, energy per word global<->shared, J"),
        COSTMETRICS_FIELD(Params, e_sr_j, "e_sr, energy per word shared<->register, J"),
        COSTMETRICS_FIELD(Params, e_fadd_j, "e_fadd, energy per floating-point add, J"),
        COSTMETRICS_FIELD(Params, e_fmul_j, "e_fmultiply, energy per floating-point multiply, J"),
        COSTMETRICS_FIELD(Params, e_iadd_j, "e_iadd, energy per integer add, J"),
        COSTMETRICS_FIELD(Params, e_imax_j, "e_imax, energy per integer max, J"));
  }
  // Every field finite and >= 0 (energies and powers are physical quantities).
  void validate() const;
};

constexpr int kNumParams = 7;
// Parameter names in the order of design-matrix columns (the fields of Params).
extern const std::array<const char*, kNumParams> kParamNames;
std::array<double, kNumParams> to_vector(const Params& p);
Params from_vector(const std::array<double, kNumParams>& v);

// Operation counts op_j of one loop-body iteration (Table B.1).
struct OpMix {
  double fadd = 0;
  double fmul = 0;
  double iadd = 0;
  double imax = 0;

  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(OpMix, fadd, "floating-point adds per iteration"),
                           COSTMETRICS_FIELD(OpMix, fmul, "floating-point multiplies per iteration"),
                           COSTMETRICS_FIELD(OpMix, iadd, "integer adds per iteration"),
                           COSTMETRICS_FIELD(OpMix, imax, "integer max operations per iteration"));
  }
  void validate() const;
};

// Arithmetic closed form over the problem, tile and subtile sizes, compiled once and
// evaluated many times (a custom kernel's M_io, V_tile, N_tiles, ...). Grammar: numbers,
// + - * / ^, parentheses, ceil() floor() min(,) max(,), and the variables
// S1 S2 S3 T tS1 tS2 tS3 tT sS1 (aliases S = S1, tS = tS1, sS = sS1).
class Expression {
 public:
  enum Var { kS1, kS2, kS3, kT, ktS1, ktS2, ktS3, ktT, ksS1, kNumVars };
  Expression() = default;
  // Throws std::invalid_argument naming `what` and the position of a syntax error.
  static Expression parse(const std::string& text, const std::string& what);
  double eval(const std::array<double, kNumVars>& vars) const;
  const std::string& text() const { return text_; }
  bool empty() const { return code_.empty(); }
  // Whether the expression reads variable v.
  bool uses(Var v) const;

  struct Op {
    enum Code { kConst, kVar, kAdd, kSub, kMul, kDiv, kPow, kNeg, kCeil, kFloor, kMin, kMax } code;
    double value;
    int var;
  };

 private:
  std::string text_;
  std::vector<Op> code_;  // postfix
};

enum class KernelKind { smith_waterman, jacobi1d, jacobi2d, custom };

// A kernel: its op mix and how its tile counts follow from sizes and tiles.
struct Kernel {
  KernelKind kind = KernelKind::custom;
  std::string name;
  int n_space_dims = 0;
  OpMix ops;
  // Custom kernels only: closed forms of the Table B.1 composite parameters.
  Expression m_io_words;  // M_io, words global<->shared per tile
  Expression sr_words;    // words shared<->register per tile (E_sr = e_sr * sr_words)
  Expression v_tile;      // V_tile, iteration points per tile
  Expression n_tiles;     // N_tiles

  // Whether a subtile sS changes the kernel's counts: SW and J1D (B.6.2), a custom kernel
  // whose expressions read sS; J2D has none (a subtile given for it is refused, not ignored).
  bool uses_subtile() const;
};

// The three kernels of Sec. B.3 with their op mixes (B.6.2-B.6.3).
Kernel smith_waterman();
Kernel jacobi1d();
Kernel jacobi2d();
// A kernel described by the user; every expression must be non-empty.
Kernel custom_kernel(const std::string& name, int n_space_dims, const OpMix& ops,
                     const std::string& m_io_words, const std::string& sr_words,
                     const std::string& v_tile, const std::string& n_tiles);

// One run's software and program parameters (EP and ES of Table B.1).
struct Run {
  time::ProblemSize size;
  time::TileSizes tiles;
  std::int64_t subtile = 0;  // sS (SW, J1D); 0 means sS = tS (no subtiling along S)
};

// Composite parameters of one run (Table B.1).
struct TileCounts {
  double n_tiles = 0;     // N_tiles
  double v_tile = 0;      // V_tile
  double m_io_words = 0;  // M_io
  double sr_words = 0;    // shared<->register words per tile
};

// Validates a run for a kernel (positive sizes, tiles and subtile; kernel constraints);
// throws std::invalid_argument naming the offending entry.
void validate_run(const Kernel& kernel, const Run& run);

// N_tiles, V_tile, M_io and shared<->register words (Sec. B.6.2, Eqs. B.3-B.6). No
// validation (hot path); call validate_run first.
TileCounts counts_unchecked(const Kernel& kernel, const Run& run);
TileCounts counts(const Kernel& kernel, const Run& run);

// E_iter = sum_j op_j e_j (Sec. B.6.2).
double e_iter_j(const OpMix& ops, const Params& params);

// Every term of the model for one run.
struct Breakdown {
  double e_alg_j = 0;      // E_alg = E_stat + E_dyn (Sec. B.6.1)
  double e_static_j = 0;   // E_stat = P_stat T_alg
  double e_dynamic_j = 0;  // E_dyn = N_tiles E_tile
  double e_gs_j = 0;       // N_tiles E_gs, all tiles
  double e_sr_j = 0;       // N_tiles E_sr, all tiles
  double e_ar_j = 0;       // N_tiles E_ar, all tiles
  double e_tile_j = 0;     // E_tile (B.2 / B.6), one tile
  double e_iter_j = 0;     // E_iter, one iteration
  double talg_s = 0;       // T_alg used
  double n_tiles = 0;      // N_tiles
  double v_tile = 0;       // V_tile
  double m_io_words = 0;   // M_io
  double sr_words = 0;     // shared<->register words per tile

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Breakdown, e_alg_j, "E_alg = E_stat + E_dyn, J"),
        COSTMETRICS_FIELD(Breakdown, e_static_j, "E_stat = P_stat T_alg, J"),
        COSTMETRICS_FIELD(Breakdown, e_dynamic_j, "E_dyn = N_tiles E_tile, J"),
        COSTMETRICS_FIELD(Breakdown, e_gs_j, "N_tiles E_gs (global<->shared, all tiles), J"),
        COSTMETRICS_FIELD(Breakdown, e_sr_j, "N_tiles E_sr (shared<->register, all tiles), J"),
        COSTMETRICS_FIELD(Breakdown, e_ar_j, "N_tiles E_ar (arithmetic, all tiles), J"),
        COSTMETRICS_FIELD(Breakdown, e_tile_j, "E_tile (Eq. B.2 / B.6), one tile, J"),
        COSTMETRICS_FIELD(Breakdown, e_iter_j, "E_iter, one iteration, J"),
        COSTMETRICS_FIELD(Breakdown, talg_s, "T_alg used for the static energy, s"),
        COSTMETRICS_FIELD(Breakdown, n_tiles, "N_tiles, number of tiles"),
        COSTMETRICS_FIELD(Breakdown, v_tile, "V_tile, iteration points per tile"),
        COSTMETRICS_FIELD(Breakdown, m_io_words, "M_io, words global<->shared per tile"),
        COSTMETRICS_FIELD(Breakdown, sr_words, "words shared<->register per tile"));
  }
};

// E_alg and its terms (B.2, B.6) given T_alg. Validates everything.
Breakdown evaluate(const Kernel& kernel, const Run& run, const Params& params, double talg_s);
Breakdown evaluate_unchecked(const Kernel& kernel, const Run& run, const Params& params,
                             double talg_s);

// Where T_alg comes from: a fixed value, or the time model of Appendix A.
struct TimeSource {
  bool use_time_model = false;
  double talg_s = 0;                  // when !use_time_model
  time::GpuParams gpu;          // when use_time_model
  time::StencilParams stencil;  // when use_time_model (n_space_dims must match)
  time::Variant variant = time::Variant::paper;
};

// E_alg with T_alg from `time` (the time model validates the tiles, Eq. A.32).
Breakdown evaluate_with(const Kernel& kernel, const Run& run, const Params& params,
                        const TimeSource& time);

// Vectorized over n runs sharing a kernel: sizes (n x 4: S1, S2, S3, T), tiles (n x 4:
// tS1, tS2, tS3, tT), subtiles (n) and talg (n) as flat row-major arrays; entries for
// dimensions the kernel lacks are ignored. `out` receives n Breakdowns. Throws
// std::invalid_argument naming the first bad row. Multi-threaded.
void evaluate_batch(const Kernel& kernel, const std::int64_t* sizes, const std::int64_t* tiles,
                    const std::int64_t* subtiles, const double* talg_s, std::size_t n,
                    const Params& params, Breakdown* out, int n_threads = 0);

// Row of the regression's design matrix (Sec. B.7.1): E_alg = row . to_vector(params).
// Columns: T_alg, N M_io, N sr_words, N V op_fadd, N V op_fmul, N V op_iadd, N V op_imax.
std::array<double, kNumParams> design_row(const Kernel& kernel, const Run& run, double talg_s);

// Benchmarking form of B.7.1: e_j = (E_alg - P_stat T_alg) / op_j.
double energy_per_operation_j(double e_alg_j, double p_stat_w, double talg_s, double op_count);

// Identifiability of the parameters from a design matrix.
struct Identifiability {
  int rank = 0;
  std::vector<double> singular_values;  // of the column-scaled matrix, descending
  // rank x kNumParams, reduced row echelon form of the row space: each row is a linear
  // combination sum_k c_k x_k that the data determine; a row with one non-zero is an
  // individually identifiable parameter. Rows normalized so the smallest |c_k| is 1.
  std::vector<std::array<double, kNumParams>> combinations;
  std::array<bool, kNumParams> individually_identifiable{};
};

// Rank and identifiable combinations of an n x kNumParams design matrix (row-major).
// Columns are scaled to unit norm first; singular values below rel_tol times the largest
// count as zero.
Identifiability identifiability(const double* design, std::size_t n_rows, double rel_tol = 1e-10);

// Least-squares fit min ||A x - b||_2 (Eigen SVD on the column-scaled matrix; minimum-norm
// solution in the scaled coordinates when A is rank deficient, so non-identifiable
// directions are never set arbitrarily). No sign constraint.
struct LeastSquares {
  std::array<double, kNumParams> x{};
  Identifiability ident;
};
LeastSquares fit_least_squares(const double* design, const double* energy_j, std::size_t n_rows,
                               double rel_tol = 1e-10);

// Table B.3: over groups of runs (one group per program-parameter combination gamma),
// compare the tile chosen by the model with the best measured one. `group` holds a group
// id per row; ties resolve to the first row.
struct OptimizationError {
  std::size_t n_groups = 0;            // "# Experim."
  std::size_t n_wrong = 0;             // "# Wrong": model argmin != measured argmin
  double rmse_pct = 0;                 // RMSE of E_err / E_meas(measured optimum), %
  double max_pct = 0;                  // max of the same, %
  std::vector<double> error_pct;       // per group, in order of first appearance
};
OptimizationError optimization_error(const std::int64_t* group, const double* predicted_j,
                                     const double* measured_j, std::size_t n);

// Result of the energy-optimal tile search (Eq. B.7).
struct SearchResult {
  time::TileSizes best;
  Breakdown best_breakdown;
  double e_min_j = 0;
  std::vector<time::TileSizes> near_optimal;  // E_alg <= (1 + within) E_min
  std::vector<double> near_optimal_e_j;             // ascending
  std::size_t n_points = 0;
  std::size_t n_feasible = 0;
};

// Whether a tile is feasible for the energy search: positive entries, sS dividing tS1
// when sS > 0, tT even for J2D (B.4-B.5 assume it), and Eq. A.32 when T_alg comes from
// the time model.
bool tile_feasible(const Kernel& kernel, const Run& run, const TimeSource& time);

// Exhaustive multi-threaded search of E_alg over `space` (search.hpp).
SearchResult search(const Kernel& kernel, const time::ProblemSize& size,
                    std::int64_t subtile, const Params& params, const TimeSource& time,
                    const time::SearchSpace& space, double within = 0.10,
                    int n_threads = 0);

}  // namespace energy
}  // namespace costmetrics

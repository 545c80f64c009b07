// Execution-time model of hexagonal (1D) and hybrid hexagonal/classic (2D prisms,
// 3D slabs) tiled stencils on GPUs, and optimal tile-size selection.
// Source: thesis 000, Appendix A (Eqs. A.2-A.32) and Section 8.1.2 (Eqs. 8.3-8.5).
// Memory sizes are in 4-byte words; times in seconds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "costmetrics/record.hpp"

namespace costmetrics {
namespace time_model {

// Ranges the model computes exactly (docs/time-model.md, "Limits"). Every count stays an
// exact int64 and every time a finite double for inputs inside them; the records' validate()
// refuses anything outside, naming the field and the value.
inline constexpr int kMaxSmCount = 1 << 20;             // nSM, nV
inline constexpr int kMaxBlocksPerSm = 1 << 16;         // MTB_SM
inline constexpr double kMaxSmemWords = 4194304.0;      // 2^22 words = 16 MiB per SM or block
inline constexpr double kMaxTimeParameterS = 1.0;       // L (s/word), tau_sync, T_sync, C_iter
inline constexpr std::int64_t kMaxIterationPoints = std::int64_t{1} << 53;  // S1*...*T
inline constexpr std::size_t kMaxSearchPoints = std::size_t{1} << 24;       // search space
inline constexpr int kMaxThreads = 1024;                                      // n_threads

// Hardware parameters (Tables A.1-A.3), already converted to words and s/word.
struct GpuParams {
  int n_sm = 0;                       // nSM, streaming multiprocessors
  int n_v = 0;                        // nV, vector units per SM
  double smem_per_sm_words = 0;       // M_SM
  double smem_per_block_words = 0;    // shared memory limit per thread block
  int max_blocks_per_sm = 0;          // MTB_SM
  double l_s_per_word = 0;            // L, global-memory time per word
  double tau_sync_s = 0;              // tau_sync, one __syncthreads
  double t_sync_s = 0;                // T_sync, one host-GPU synchronization (kernel call)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(GpuParams, n_sm, "nSM, streaming multiprocessors"),
        COSTMETRICS_FIELD(GpuParams, n_v, "nV, vector units per SM"),
        COSTMETRICS_FIELD(GpuParams, smem_per_sm_words, "M_SM, shared memory per SM, words"),
        COSTMETRICS_FIELD(GpuParams, smem_per_block_words,
                          "shared memory limit per thread block, words"),
        COSTMETRICS_FIELD(GpuParams, max_blocks_per_sm, "MTB_SM, thread blocks per SM"),
        COSTMETRICS_FIELD(GpuParams, l_s_per_word, "L, global-memory time per word, s"),
        COSTMETRICS_FIELD(GpuParams, tau_sync_s, "tau_sync, one __syncthreads, s"),
        COSTMETRICS_FIELD(GpuParams, t_sync_s, "T_sync, one kernel call, s"));
  }
  // Throws std::invalid_argument naming the field unless every value is in its range.
  void validate() const;
};

// Problem parameters: the number of space dimensions (1, 2 or 3) and C_iter (Table A.4).
struct StencilParams {
  int n_space_dims = 0;
  double c_iter_s = 0;  // time of one loop-body iteration per vector unit

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(StencilParams, n_space_dims, "space dimensions, 1, 2 or 3"),
        COSTMETRICS_FIELD(StencilParams, c_iter_s, "C_iter, one iteration per vector unit, s"));
  }
  void validate() const;
};

// Iteration-space extents: space[0..n_space_dims) = S1, S2, S3 and T; unused entries 0.
struct ProblemSize {
  std::array<std::int64_t, 3> space{{0, 0, 0}};
  std::int64_t time_steps = 0;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(ProblemSize, space, "S1, S2, S3 (unused dimensions 0)"),
        COSTMETRICS_FIELD(ProblemSize, time_steps, "T, time steps"));
  }
  // Entries >= 0 and T > 0; validate_inputs() checks them against the stencil.
  void validate() const;
};

// Tile sizes: space[0..n_space_dims) = tS1, tS2, tS3 and tT; unused entries 0. Any values
// are accepted here: feasibility() classifies them (Eq. A.32).
struct TileSizes {
  std::array<std::int64_t, 3> space{{0, 0, 0}};
  std::int64_t time = 0;

  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(TileSizes, space, "tS1, tS2, tS3 (unused 0)"),
                           COSTMETRICS_FIELD(TileSizes, time, "tT"));
  }
};

enum class Variant {
  paper,  // the published formulas (A.3-A.31), used for reproduction
  exact,  // point and tile counts exact for a gap-free hexagonal tiling (docs/time-model.md)
};

// Reasons a tile is infeasible (bit mask; Eq. A.32 plus input validity).
enum InfeasibleReason : std::uint32_t {
  kFeasible = 0,
  kNonPositiveTile = 1u << 0,        // a tile size <= 0
  kOddTimeTile = 1u << 1,            // tT must be even (hexagonal tiling)
  kInnermostNotWarpMultiple = 1u << 2,  // innermost space tile (tS2 in 2D, tS3 in 3D) % 32 != 0
  kExceedsBlockSharedMemory = 1u << 3,  // M_tile > shared memory per thread block
  kExceedsSmSharedMemory = 1u << 4,     // M_tile > M_SM, so k would be 0
};

// Human-readable description of every bit set in `reasons`, joined by "; ".
std::string describe_infeasibility(std::uint32_t reasons);

// Every intermediate quantity of the model for one tile choice.
struct Breakdown {
  std::int64_t n_wavefronts = 0;         // N_w (A.3 / A.21)
  std::int64_t tiles_per_wavefront = 0;  // w (A.6 / A.23)
  std::int64_t k = 0;                    // hyper-threading factor, threadblocks per SM (A.12)
  std::int64_t n_subtiles = 1;           // sub-prisms (2D) or sub-slabs (A.24) per tile; 1 in 1D
  double w_tile = 0;                     // widest row of a hexagon (A.4), points
  double pitch = 0;                      // distance between tiles of a wavefront (A.5), points
  double m_tile_words = 0;               // shared memory per tile (A.20 and its 3D extension)
  double m_io_words = 0;                 // words moved global<->shared per (sub)tile (A.8/A.14/A.25)
  double m_prime_s = 0;                  // transfer time per (sub)tile (A.9/A.15/A.26)
  double c_s = 0;                        // compute time per (sub)tile (A.10/A.16/A.28)
  double t_tile_s = 0;                   // T_tile(k) / T_prism(k) / T_slab(k) (A.13/A.17/A.29-30)
  double t_sync_total_s = 0;             // N_w * T_sync
  double talg_s = 0;                     // T_alg (A.7/A.18/A.31)
  double t_ideal_s = 0;                  // T_ideal (Eq. 8.3)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Breakdown, n_wavefronts, "N_w, wavefronts (A.3 / A.21)"),
        COSTMETRICS_FIELD(Breakdown, tiles_per_wavefront, "w, tiles per wavefront (A.6 / A.23)"),
        COSTMETRICS_FIELD(Breakdown, k, "hyper-threading factor, thread blocks per SM (A.12)"),
        COSTMETRICS_FIELD(Breakdown, n_subtiles, "sub-prisms (2D) or sub-slabs (3D) per tile"),
        COSTMETRICS_FIELD(Breakdown, w_tile, "widest row of a hexagon (A.4), points"),
        COSTMETRICS_FIELD(Breakdown, pitch, "distance between tiles of a wavefront (A.5)"),
        COSTMETRICS_FIELD(Breakdown, m_tile_words, "shared memory per tile (A.20), words"),
        COSTMETRICS_FIELD(Breakdown, m_io_words, "words moved per (sub)tile (A.8/A.14/A.25)"),
        COSTMETRICS_FIELD(Breakdown, m_prime_s, "transfer time per (sub)tile, s"),
        COSTMETRICS_FIELD(Breakdown, c_s, "compute time per (sub)tile, s"),
        COSTMETRICS_FIELD(Breakdown, t_tile_s, "T_tile(k) (A.13/A.17/A.29-30), s"),
        COSTMETRICS_FIELD(Breakdown, t_sync_total_s, "N_w * T_sync, s"),
        COSTMETRICS_FIELD(Breakdown, talg_s, "T_alg (A.7/A.18/A.31), s"),
        COSTMETRICS_FIELD(Breakdown, t_ideal_s, "T_ideal (Eq. 8.3), s"));
  }
};

// Validates the machine / stencil / size triple; throws std::invalid_argument naming the
// offending parameter.
void validate_inputs(const GpuParams& gpu, const StencilParams& stencil,
                     const ProblemSize& size);

// Feasibility mask of Eq. A.32 for one tile (kFeasible == 0 when feasible).
std::uint32_t feasibility(const GpuParams& gpu, int n_space_dims, const TileSizes& tiles);

// Shared memory needed per tile, words (1D: 2(tS+tT); A.20; 3D extension by (tS3+tT+1)).
double m_tile_words(int n_space_dims, const TileSizes& tiles);

// Hyper-threading factor k = min(floor(M_SM / M_tile), MTB_SM) (A.12 without registers).
std::int64_t hyperthreading_factor(const GpuParams& gpu, double m_tile_words);

// Ideal time S1*...*T*C_iter / (nSM*nV) (Eq. 8.3).
double t_ideal_s(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size);

// Full model for one tile choice. Throws std::invalid_argument naming the violated
// constraint when the tile is infeasible.
Breakdown evaluate(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                   const TileSizes& tiles, Variant variant = Variant::paper);

// Same as evaluate() for a feasible tile; no validation of the inputs (hot path).
Breakdown evaluate_unchecked(const GpuParams& gpu, const StencilParams& stencil,
                             const ProblemSize& size, const TileSizes& tiles, Variant variant);

// Vectorized evaluation over n tiles stored row-major as n x (n_space_dims + 1) integers
// (tS1, [tS2, [tS3,]] tT). Infeasible rows get NaN in every output and their reason mask in
// `reasons`. Outputs may be null except talg_s and reasons. Multi-threaded.
struct BatchOutputs {
  double* talg_s = nullptr;
  std::uint32_t* reasons = nullptr;
  double* m_prime_s = nullptr;
  double* c_s = nullptr;
  double* t_tile_s = nullptr;
  double* m_tile_words = nullptr;
  double* k = nullptr;
  double* n_wavefronts = nullptr;
  double* tiles_per_wavefront = nullptr;
  double* n_subtiles = nullptr;
};
void evaluate_batch(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                    const std::int64_t* tiles, std::size_t n_tiles, Variant variant,
                    const BatchOutputs& out, int n_threads = 0);

// Candidate values per tile dimension; the search space is their Cartesian product.
struct SearchSpace {
  std::vector<std::vector<std::int64_t>> space;  // one list per space dimension
  std::vector<std::int64_t> time;                // tT candidates
  std::size_t size() const;
  // The point with flat index `index` in [0, size()): tT varies slowest, the last space
  // dimension fastest.
  TileSizes point(std::size_t index) const;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(SearchSpace, space, "candidates per space dimension (tS1, tS2, tS3)"),
        COSTMETRICS_FIELD(SearchSpace, time, "tT candidates"));
  }
  // 1 to 3 space dimensions, no empty list, at most kMaxSearchPoints points.
  void validate() const;
};

// The documented default space (docs/time-model.md), at least the paper's ~18,000 points.
SearchSpace default_search_space(int n_space_dims);

struct SearchResult {
  TileSizes best;
  Breakdown best_breakdown;
  double talg_min_s = 0;
  std::vector<TileSizes> near_optimal;     // every feasible point with T_alg <= (1+within)*min
  std::vector<double> near_optimal_talg_s;  // sorted ascending, same order as near_optimal
  std::size_t n_points = 0;                 // size of the search space
  std::size_t n_feasible = 0;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(SearchResult, best, "the argmin"),
        COSTMETRICS_FIELD(SearchResult, best_breakdown, "every term at the argmin"),
        COSTMETRICS_FIELD(SearchResult, talg_min_s, "T_alg at the argmin, s"),
        COSTMETRICS_FIELD(SearchResult, near_optimal, "feasible points within the cutoff"),
        COSTMETRICS_FIELD(SearchResult, near_optimal_talg_s, "their T_alg, ascending, s"),
        COSTMETRICS_FIELD(SearchResult, n_points, "points in the search space"),
        COSTMETRICS_FIELD(SearchResult, n_feasible, "feasible points"));
  }
};

// Exhaustive multi-threaded search (A.6.1, A.6.3). Throws std::invalid_argument if no point
// of the space is feasible.
SearchResult search(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                    const SearchSpace& space, double within = 0.10,
                    Variant variant = Variant::paper, int n_threads = 0);

// Closed-form overhead (Eq. 8.5 as read in docs/time-model.md):
// T_ideal / (tS1 + tT/2), the first-order term of T_alg - T_ideal in the compute-bound regime.
double t_overhead_closed_form_s(const GpuParams& gpu, const StencilParams& stencil,
                                const ProblemSize& size, const TileSizes& tiles);

// Section 8.1.2 narrowing: among the feasible points of `space`, those that maximize the
// hexagonal face tS1 + tT/2 for each value of the remaining tile sizes.
std::vector<TileSizes> max_hexagonal_face_tiles(const GpuParams& gpu, int n_space_dims,
                                                const SearchSpace& space);

}  // namespace time_model

// The variant's names, parsed once by the bindings' from_python for every family
// (time, energy, codesign): one error message listing the valid values.
template <>
struct enum_names<time_model::Variant> {
  static constexpr std::array<std::pair<time_model::Variant, const char*>, 2> values{
      {{time_model::Variant::paper, "paper"}, {time_model::Variant::exact, "exact"}}};
};

}  // namespace costmetrics

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
namespace time {

// Ranges the model computes exactly (docs/time.md, "Limits"). Every count stays an
// exact int64 and every time a finite double for inputs inside them; the records' validate()
// refuses anything outside, naming the field and the value.
inline constexpr int kMaxSmCount = 1 << 20;             // nSM, nV
inline constexpr int kMaxBlocksPerSm = 1 << 16;         // MTB_SM
inline constexpr double kMaxSmemWords = 4194304.0;      // 2^22 words = 16 MiB per SM or block
inline constexpr double kMaxTimeParameterS = 1.0;       // L (s/word), tau_sync, T_sync, C_iter
// Smallest nonzero L, tau_sync, T_sync and C_iter: the times divide them by at most
// nSM nV <= 2^40, and 1e-290 / 2^40 ~ 1e-302 is still a normal double (DBL_MIN ~ 2.2e-308),
// so T_ideal is positive and every term keeps full precision (5e-324 gave T_ideal = 0).
inline constexpr double kMinTimeParameterS = 1e-290;
inline constexpr double kMaxPrefetchAheadWords = 1048576.0;  // 2^20 words = 4 MiB ahead
inline constexpr std::int64_t kMaxIterationPoints = std::int64_t{1} << 53;  // S1*...*T
inline constexpr std::size_t kMaxSearchPoints = std::size_t{1} << 24;       // search space
inline constexpr int kMaxThreads = 1024;                                      // n_threads
inline constexpr int kMaxSpaceDims = 3;                                       // n_space_dims

// Memory levels where a problem's arrays live (the `machine` variant, docs/time.md).
inline constexpr int kMemoryLevels = 4;  // 0 = L1, 1 = L2, 2 = L3, 3 = DRAM
// Points of a measured DRAM-share curve (MachineTerms::dram_curve_bytes).
inline constexpr int kDramCurvePoints = 16;
// Bytes of one cache line and words per line (64-byte lines, the x86-64 and ARMv8 norm).
inline constexpr std::int64_t kCacheLineWords = 16;

// How the harness deals a wavefront's tiles to the threads (measure.hpp's `schedule`):
// round-robin (tile p to thread p mod n) or contiguous blocks. It decides which tiles have
// a neighbour on another thread, hence the cache lines written by two threads.
enum class TileSchedule { round_robin, block };

// The extra terms of the `machine` variant (docs/time.md, "Machine variant"). Every
// term defaults to 0, and with every term 0 the `machine` variant is bit-identical to
// `exact`; the GPU presets have none. T_alg stays linear in every time parameter here (for
// k = 1; piecewise linear with the max() of Eqs. A.13/A.17/A.30 otherwise).
struct MachineTerms {
  // Cache sizes deciding the memory level of the problem's arrays: L1 and L2 per core, L3
  // for the whole machine; 0 = no such cache.
  double cache_l1_bytes = 0;
  double cache_l2_bytes = 0;
  double cache_l3_bytes = 0;
  // The share of arrays of dram_curve_bytes[k] bytes that streams from DRAM, read off a
  // measured copy curve (docs/time.md, "The DRAM share from the copy curve"): the leading
  // points with bytes > 0 (none, or at least 2, bytes increasing, shares in [0, 1] not
  // decreasing, the rest 0). Where set, it replaces 1 - cache_l3_bytes / B (dram_share).
  std::array<double, kDramCurvePoints> dram_curve_bytes{};
  std::array<double, kDramCurvePoints> dram_curve_share{};
  double l_seg_s = 0;  // per contiguous segment (run of words) copied, s
  // Per word copied at the level of the arrays (L1, L2, L3, DRAM), added to L, s/word (may
  // be negative: a level faster than the one L was measured at).
  std::array<double, kMemoryLevels> l_level_s_per_word{{0, 0, 0, 0}};
  // Per word and per core streaming at once beyond `threads_ref` (shared bandwidth), s/word.
  std::array<double, kMemoryLevels> l_shared_s_per_word{{0, 0, 0, 0}};
  double tau_line_s = 0;              // per line (innermost run of points) computed, s
  // Per line of a 3D stencil (a run of s3 points of one sub-slab plane) computed, s: the 3D
  // harness does more per line than the 2D one (face copies, short loads), docs/time.md.
  double tau_line_3d_s = 0;
  // The same, more per line times the share of the arrays streamed from DRAM (dram_share):
  // a line of a 3D tile's plane lies a row of S3 words from the next, so in DRAM each line
  // starts a stream of its own (docs/validate-log.md, "The levels misses at 1 thread"), s.
  double tau_line_3d_dram_s = 0;
  // Words the hardware prefetcher streams past the end of a run it follows (0: none): a
  // 1D wavefront's tiles read runs a gap apart (tS - 2 words for whole tiles, up to
  // tS + tT - 4 for the rows of a tile clipped by T), and the streamer fetches at most
  // prefetch_ahead_words of each gap, which the next wavefront reads again from DRAM
  // (docs/time.md, "Words streamed into a 1D wavefront's gaps").
  double prefetch_ahead_words = 0;
  // Per such word, times the arrays' DRAM share (1D), s/word.
  double l_prefetch_s_per_word = 0;
  // Per vector step computed (2D), times the tile buffer's share of the L2 (the harness'
  // per-thread buffer bytes, tile_buffer_floats, over cache_l2_bytes) and the arrays' DRAM
  // share: a stream from DRAM passes through the L2 and evicts the buffer's lines the more
  // of the L2 the buffer takes, so the steps read them back from further out
  // (docs/time.md, "Tile buffers evicted by DRAM streams"), s.
  double c_buffer_dram_s = 0;
  double t_barrier_per_thread_s = 0;  // per wavefront and thread beyond `threads_ref`, s
  double t_share_line_s = 0;          // per cache line written by two threads, s
  // Per row of the cross-section (2D: a column's row; 3D: a line of s3 points) that a tile
  // loads after a tile of the previous wavefront on another thread stored it, on the
  // busiest thread of each wavefront: a cache-to-cache move per row, s (docs/time.md).
  double t_cross_row_s = 0;
  // Per word copied within a thread's tile buffer (2D/3D: the faces a sub-tile keeps for
  // the next sub-tile and the next one reads back), s/word.
  double l_buffer_s_per_word = 0;
  // The thread count at which L and T_sync were measured: the thread terms are relative to
  // it (0: the GPU's own n_sm, so that they vanish).
  int threads_ref = 0;
  TileSchedule schedule = TileSchedule::round_robin;  // the harness' tile schedule
  // The innermost space tile (tS2 in 2D, tS3 in 3D) must be a multiple of this (Eq. A.32:
  // the GPU's warp of 32 threads, so that a row's loads coalesce). 0: 32, the paper's rule;
  // a CPU preset has no warp (its vector steps are counted by nV) and takes 1.
  int innermost_multiple = 0;
  // The multiple in effect.
  int innermost_multiple_in_effect() const {
    return innermost_multiple > 0 ? innermost_multiple : 32;
  }

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(MachineTerms, cache_l1_bytes, "L1 data cache per core, bytes (0: none)"),
        COSTMETRICS_FIELD(MachineTerms, cache_l2_bytes, "L2 cache per core, bytes (0: none)"),
        COSTMETRICS_FIELD(MachineTerms, cache_l3_bytes, "L3 cache in all, bytes (0: none)"),
        COSTMETRICS_FIELD(MachineTerms, dram_curve_bytes,
                          "arrays' bytes of the measured DRAM-share curve (0: unused point)"),
        COSTMETRICS_FIELD(MachineTerms, dram_curve_share,
                          "share of those arrays streamed from DRAM, in [0, 1]"),
        COSTMETRICS_FIELD(MachineTerms, l_seg_s, "per contiguous segment copied, s"),
        COSTMETRICS_FIELD(MachineTerms, l_level_s_per_word,
                          "per word copied, added to L, at L1/L2/L3/DRAM, s/word"),
        COSTMETRICS_FIELD(MachineTerms, l_shared_s_per_word,
                          "per word per core streaming beyond threads_ref, L1/L2/L3/DRAM, s/word"),
        COSTMETRICS_FIELD(MachineTerms, tau_line_s, "per line of points computed (1D/2D), s"),
        COSTMETRICS_FIELD(MachineTerms, tau_line_3d_s, "per line of points computed (3D), s"),
        COSTMETRICS_FIELD(MachineTerms, tau_line_3d_dram_s,
                          "per line computed (3D) times the arrays' DRAM share, s"),
        COSTMETRICS_FIELD(MachineTerms, prefetch_ahead_words,
                          "words the prefetcher streams past a run's end (0: none)"),
        COSTMETRICS_FIELD(MachineTerms, l_prefetch_s_per_word,
                          "per word streamed into a 1D wavefront's gaps, x DRAM share, s/word"),
        COSTMETRICS_FIELD(MachineTerms, c_buffer_dram_s,
                          "per vector step (2D), x buffer bytes / L2 bytes x DRAM share, s"),
        COSTMETRICS_FIELD(MachineTerms, t_barrier_per_thread_s,
                          "per wavefront barrier and thread beyond threads_ref, s"),
        COSTMETRICS_FIELD(MachineTerms, t_share_line_s, "per cache line written by two threads, s"),
        COSTMETRICS_FIELD(MachineTerms, t_cross_row_s,
                          "per row a tile loads that another thread stored, 2D/3D, s"),
        COSTMETRICS_FIELD(MachineTerms, l_buffer_s_per_word,
                          "per word copied within the tile buffer (kept faces), s/word"),
        COSTMETRICS_FIELD(MachineTerms, threads_ref,
                          "threads L and T_sync were measured with (0: n_sm)"),
        COSTMETRICS_FIELD(MachineTerms, schedule,
                          "tile schedule of the harness: 'round-robin' or 'block'"),
        COSTMETRICS_FIELD(MachineTerms, innermost_multiple,
                          "innermost space tile must be a multiple of this (0: 32, Eq. A.32)"));
  }
  // Ranges (docs/time.md); throws std::invalid_argument naming the field.
  void validate() const;
  bool all_zero() const;
  // Points of the DRAM-share curve in use (0: none).
  int dram_curve_points() const;
};

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
  MachineTerms machine;               // extra terms of the `machine` variant (all 0 on GPUs)

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
        COSTMETRICS_FIELD(GpuParams, t_sync_s, "T_sync, one kernel call, s"),
        COSTMETRICS_FIELD(GpuParams, machine, "extra terms of the machine variant (0: none)"));
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
  exact,  // point and tile counts exact for a gap-free hexagonal tiling (docs/time.md)
  machine,  // exact plus the MachineTerms of the GPU (bit-identical to exact when all are 0)
};

// Reasons a tile is infeasible (bit mask; Eq. A.32 plus input validity).
enum InfeasibleReason : std::uint32_t {
  kFeasible = 0,
  kNonPositiveTile = 1u << 0,        // a tile size <= 0
  kOddTimeTile = 1u << 1,            // tT must be even (hexagonal tiling)
  kInnermostNotWarpMultiple = 1u << 2,  // innermost space tile (tS2 in 2D, tS3 in 3D) % 32 != 0
  //                                       (% machine.innermost_multiple where set)
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

// Memory level (0 = L1, 1 = L2, 2 = L3, 3 = DRAM) where the problem's arrays live, for the
// `machine` variant: two time levels with a one-point halo, 4 * 2 * prod(S_d + 2) bytes,
// per core (divided by nSM) against the L1 and L2 sizes, in all against L3. A level whose
// size is 0 is skipped. With a DRAM-share curve, past L2 the level is DRAM where the
// curve's share is above 0, else L3.
int memory_level(const GpuParams& gpu, int n_space_dims, const ProblemSize& size);

// Share of the problem's arrays that streams from DRAM, for the `machine` variant: 0 below
// DRAM; at the DRAM level, with a DRAM-share curve, the curve at B (B the arrays' bytes, as
// memory_level; linear in log B between points, the last share past the last point);
// without one, 1 - cache_l3_bytes / B when the machine has an L3 (the rest of the arrays
// stays in it, docs/time.md, "Arrays partly in L3"), else 1.
double dram_share(const GpuParams& gpu, int n_space_dims, const ProblemSize& size);

// Both at once (memory_level and dram_share read them from here): one pass over the
// arrays' bytes and the DRAM-share curve, for callers that need the two.
struct MemoryPlacement {
  int level = 3;
  double dram_share = 1.0;
};
MemoryPlacement memory_placement(const GpuParams& gpu, int n_space_dims, const ProblemSize& size);

// Floats of the CPU harness' per-thread tile buffer (make_plan in measure.cpp, checked
// against RunResult::buffer_words in the tests): two planes of the tile's rows (1D: w
// words, 2D: w (tS2' + 2), 3D: w (tS2' + 2)(tS3' + 2), with w = tS1 + tT and each sub-tile
// clipped to S + tT, harness 5) and, in 2D/3D, the faces a sub-tile keeps for the next (2D:
// 2 tT w; 3D: 2 tT w (tS2' + 2), and 2 tT w (tS3' + 2) per sub-slab along u3). The
// machine variant's c_buffer_dram_s reads it. Sizes and tiles are not checked here.
double tile_buffer_floats(int n_space_dims, const ProblemSize& size, const TileSizes& tiles);

// The calibrated parameters of the `machine` variant in the order of design_row(): L,
// tau_sync, T_sync, C_iter, then the MachineTerms (arrays expanded per level).
inline constexpr int kDesignParams = 22;
std::vector<std::string> design_parameter_names();
// The same parameters of `gpu` and `c_iter_s` as a vector, in that order.
std::array<double, kDesignParams> design_parameters(const GpuParams& gpu, double c_iter_s);

// Coefficients of T_alg in the calibrated parameters at this point: T_alg = row . theta
// (theta = design_parameters(gpu, C_iter)), exactly linear where k = 1 and piecewise linear
// (the branch of each max() taken at theta) otherwise. `exact` gives the row of the gpu
// without its machine terms (which exact does not read): T_alg(exact) = row . theta with
// theta[4:] = 0, and the row is machine's on a gpu without machine terms; `paper` its own.
// Throws like evaluate().
std::array<double, kDesignParams> design_row(const GpuParams& gpu, const StencilParams& stencil,
                                             const ProblemSize& size, const TileSizes& tiles,
                                             Variant variant);
// design_row for n tiles (layout of evaluate_batch) into `rows` (n x kDesignParams,
// row-major); infeasible tiles get NaN rows and their mask in `reasons`. Multi-threaded.
void design_rows(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                 const std::int64_t* tiles, std::size_t n_tiles, Variant variant, double* rows,
                 std::uint32_t* reasons, int n_threads = 0);

// Candidate values per tile dimension; the search space is their Cartesian product.
struct SearchSpace {
  std::vector<std::vector<std::int64_t>> space;  // one list per space dimension
  std::vector<std::int64_t> time;                // tT candidates
  std::size_t size() const;
  // The point with flat index `index` in [0, size()): tT varies slowest, the last space
  // dimension fastest.
  TileSizes point(std::size_t index) const;
  // Calls f(index, point) for every point, in index order, as point(index) would give it
  // (an odometer: no division per point). The searches use it for their feasibility pass.
  template <typename F>
  void walk(F&& f) const {
    const std::size_t dims = space.size();
    if (dims == 0 || dims > 3 || time.empty()) return;
    for (const auto& values : space) {
      if (values.empty()) return;
    }
    TileSizes t;
    std::size_t digit[3] = {0, 0, 0};
    for (std::size_t d = 0; d < dims; ++d) t.space[d] = space[d][0];
    std::size_t index = 0;
    for (std::int64_t tt : time) {
      t.time = tt;
      bool wrapped = false;  // every space digit back at 0: next tT
      while (!wrapped) {
        f(index++, static_cast<const TileSizes&>(t));
        wrapped = true;
        for (std::size_t d = dims; d-- > 0;) {  // the last dimension fastest
          if (++digit[d] < space[d].size()) {
            t.space[d] = space[d][digit[d]];
            wrapped = false;
            break;
          }
          digit[d] = 0;
          t.space[d] = space[d][0];
        }
      }
    }
  }

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(SearchSpace, space, "candidates per space dimension (tS1, tS2, tS3)"),
        COSTMETRICS_FIELD(SearchSpace, time, "tT candidates"));
  }
  // 1 to 3 space dimensions, no empty list, at most kMaxSearchPoints points.
  void validate() const;
};

// The documented default space (docs/time.md), at least the paper's ~18,000 points.
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

// Closed-form overhead (Eq. 8.5 as read in docs/time.md):
// T_ideal / (tS1 + tT/2), the first-order term of T_alg - T_ideal in the compute-bound regime.
double t_overhead_closed_form_s(const GpuParams& gpu, const StencilParams& stencil,
                                const ProblemSize& size, const TileSizes& tiles);

// Section 8.1.2 narrowing: among the feasible points of `space`, those that maximize the
// hexagonal face tS1 + tT/2 for each value of the remaining tile sizes.
std::vector<TileSizes> max_hexagonal_face_tiles(const GpuParams& gpu, int n_space_dims,
                                                const SearchSpace& space);

}  // namespace time

// The variant's names, parsed once by the bindings' from_python for every family
// (time, energy, codesign): one error message listing the valid values.
template <>
struct enum_names<time::Variant> {
  static constexpr std::array<std::pair<time::Variant, const char*>, 3> values{
      {{time::Variant::paper, "paper"},
       {time::Variant::exact, "exact"},
       {time::Variant::machine, "machine"}}};
};

// The harness' schedule names (measure.hpp), for MachineTerms::schedule.
template <>
struct enum_names<time::TileSchedule> {
  static constexpr std::array<std::pair<time::TileSchedule, const char*>, 2> values{
      {{time::TileSchedule::round_robin, "round-robin"},
       {time::TileSchedule::block, "block"}}};
};

}  // namespace costmetrics

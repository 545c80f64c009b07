// Measurement harness: real hexagonal (1D) and hybrid hexagonal/classic (2D, 3D) tiled stencils
// on the CPU, executed wavefront by wavefront by worker threads, each tile through an
// explicitly managed per-thread buffer; every run checked against a naive untiled stencil.
// Plus the micro-benchmarks of the time model's machine parameters (seed 000, Sec. A.5.1):
// L, tau_sync, T_sync and C_iter.
//
// Mapping of the GPU model onto the CPU (docs/validate.md):
//   SM = one core running one worker thread;  nV = SIMD lanes for float;
//   shared memory = the per-thread tile buffer;  kernel call = one wavefront, ended by one
//   barrier;  one tile per core at a time (MTB_SM = 1, so k = 1).
//
// The tiling is the gap-free hexagonal lattice of docs/time.md ("Exact variant"):
// pitch P = 2 tS1 + tT - 2, rows e(r) = min(r, tT-1-r) wider on each side, two colors;
// inner dimension s2 time-skewed per tile (u = s2 + r), cut in sub-tiles of tS2; in 3D
// (Sec. A.4.3) both inner dimensions skewed (u2 = s2 + r, u3 = s3 + r), the slab cut into
// sub-slabs of tS2 x tS3 run in lexicographic (u2, u3) order by the tile's thread.
// Arrays hold 4-byte floats (the model's words); time levels alternate between two arrays.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "costmetrics/record.hpp"

namespace costmetrics {
namespace measure {

// The stencils of the harness: Jacobi 1D, the four 2D stencils of Table A.4 and Heat 3D.
enum class Kernel { jacobi1d, jacobi2d, heat2d, laplacian2d, gradient2d, heat3d };

// Kernel names in a fixed order ("jacobi1d", "jacobi2d", "heat2d", "laplacian2d",
// "gradient2d", "heat3d").
std::vector<std::string> kernel_names();
// Throws std::invalid_argument naming the value for an unknown name.
Kernel parse_kernel(const std::string& name);
int kernel_space_dims(Kernel kernel);

// Version of the harness (tiling, schedules, timing protocol of one run). Bumped whenever
// a change can alter measured times, so that tables measured with another harness are
// refused instead of mixed (python/costmetrics/measure.py records it in every table).
std::string harness_version();

// How a wavefront's tiles are dealt to the worker threads: "round-robin" (tile i to thread
// i mod threads; neighbouring tiles on different threads) or "block" (contiguous blocks of
// ceil-balanced size: thread j takes tiles [j n / threads, (j + 1) n / threads)).
std::vector<std::string> schedule_names();

// SIMD lanes for a 4-byte float in the instruction set this file was compiled for (nV).
int simd_lanes_float();
// The compiler and the instruction-set macros this file was compiled with.
std::string compiler_description();

// One measured configuration. size_s2 / tile_s2 must be 0 for 1D stencils, size_s3 /
// tile_s3 must be 0 for 1D and 2D stencils.
struct RunConfig {
  std::string stencil;
  std::int64_t size_s1 = 0;
  std::int64_t size_s2 = 0;
  std::int64_t size_s3 = 0;
  std::int64_t size_t = 0;
  std::int64_t tile_s1 = 0;
  std::int64_t tile_s2 = 0;
  std::int64_t tile_s3 = 0;
  std::int64_t tile_t = 0;
  std::int64_t threads = 1;
  std::int64_t repeats = 3;  // timed runs; the minimum is kept
  std::int64_t warmup = 1;   // untimed runs first
  bool pin = true;           // pin worker i to the i-th allowed CPU where the OS allows
  bool check = true;         // compare with the naive stencil after the runs
  std::string energy_path;   // powercap energy_uj file, or empty for no energy counter
  double energy_range_uj = 0;  // max_energy_range_uj of that counter (wrap-around)
  std::string schedule = "round-robin";  // schedule_names(): how tiles go to threads

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(RunConfig, stencil, "stencil name (kernel_names())"),
        COSTMETRICS_FIELD(RunConfig, size_s1, "S1 (S in 1D), points"),
        COSTMETRICS_FIELD(RunConfig, size_s2, "S2, points (0 in 1D)"),
        COSTMETRICS_FIELD(RunConfig, size_s3, "S3, points (0 in 1D and 2D)"),
        COSTMETRICS_FIELD(RunConfig, size_t, "T, time steps"),
        COSTMETRICS_FIELD(RunConfig, tile_s1, "tS1 (tS in 1D)"),
        COSTMETRICS_FIELD(RunConfig, tile_s2, "tS2 (0 in 1D), at least 2 in 2D, 1 in 3D"),
        COSTMETRICS_FIELD(RunConfig, tile_s3, "tS3 (0 in 1D and 2D), at least 1"),
        COSTMETRICS_FIELD(RunConfig, tile_t, "tT, even"),
        COSTMETRICS_FIELD(RunConfig, threads, "worker threads (cores), n_SM"),
        COSTMETRICS_FIELD(RunConfig, repeats, "timed runs (minimum kept)"),
        COSTMETRICS_FIELD(RunConfig, warmup, "untimed warm-up runs"),
        COSTMETRICS_FIELD(RunConfig, pin, "pin threads to cores"),
        COSTMETRICS_FIELD(RunConfig, check, "compare with the naive stencil"),
        COSTMETRICS_FIELD(RunConfig, energy_path, "powercap energy_uj file or empty"),
        COSTMETRICS_FIELD(RunConfig, energy_range_uj, "max_energy_range_uj of that file"),
        COSTMETRICS_FIELD(RunConfig, schedule, "tiles to threads: round-robin or block"));
  }
  void validate() const;
};

struct RunResult {
  double time_min_s = 0;     // fastest timed run
  double time_median_s = 0;  // median timed run
  double time_max_s = 0;     // slowest timed run
  double cpu_time_s = -1;    // min over timed runs of the largest thread CPU time; -1: none
  double energy_j = std::numeric_limits<double>::quiet_NaN();  // NaN when not measured
  bool checked = false;      // compared with the naive stencil
  bool correct = false;      // bitwise equal to the naive stencil (same float operations)
  double max_abs_error = 0;  // largest |tiled - naive| over the final array
  std::int64_t n_wavefronts = 0;
  std::int64_t n_tiles = 0;         // tiles (prisms) over all wavefronts
  std::int64_t n_subtiles = 0;      // sub-tiles executed (= n_tiles in 1D)
  std::int64_t points = 0;          // stencil updates per run (S1 S2 S3 T)
  std::int64_t words_loaded = 0;    // floats copied main arrays -> tile buffers per run
  std::int64_t words_stored = 0;    // floats copied tile buffers -> main arrays per run
  std::int64_t buffer_words = 0;    // per-thread tile buffer (planes + faces), floats
  std::int64_t pinned_threads = 0;  // threads successfully pinned

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(RunResult, time_min_s, "fastest timed run, s"),
        COSTMETRICS_FIELD(RunResult, time_median_s, "median timed run, s"),
        COSTMETRICS_FIELD(RunResult, time_max_s, "slowest timed run, s"),
        COSTMETRICS_FIELD(RunResult, cpu_time_s,
                          "min over runs of the largest thread CPU time, s (-1: none)"),
        COSTMETRICS_FIELD(RunResult, energy_j, "package energy of the fastest run, J (NaN: not measured)"),
        COSTMETRICS_FIELD(RunResult, checked, "compared with the naive stencil"),
        COSTMETRICS_FIELD(RunResult, correct, "bitwise equal to the naive stencil"),
        COSTMETRICS_FIELD(RunResult, max_abs_error, "largest abs(tiled - naive)"),
        COSTMETRICS_FIELD(RunResult, n_wavefronts, "wavefronts (barriers) per run"),
        COSTMETRICS_FIELD(RunResult, n_tiles, "tiles over all wavefronts"),
        COSTMETRICS_FIELD(RunResult, n_subtiles, "sub-tiles executed"),
        COSTMETRICS_FIELD(RunResult, points, "stencil updates per run"),
        COSTMETRICS_FIELD(RunResult, words_loaded, "floats copied into tile buffers per run"),
        COSTMETRICS_FIELD(RunResult, words_stored, "floats copied out of tile buffers per run"),
        COSTMETRICS_FIELD(RunResult, buffer_words, "per-thread tile buffer, floats"),
        COSTMETRICS_FIELD(RunResult, pinned_threads, "threads pinned to a core"));
  }
};

// The configuration as the harness runs it: a sub-tile wider than S + tT (tS2 in 2D, tS2
// and tS3 in 3D) clipped to S + tT, as the run does. Two configurations with the same
// result run the same points, copies, sub-tiles and buffers (harness 5, checked in
// cpp/tests/test_measure.cpp): one run under two names, which a tuner measures once.
// Throws std::invalid_argument for a config run() refuses.
RunConfig as_run(const RunConfig& cfg);

// Runs the tiled stencil `warmup + repeats` times (each from the same initial data) and,
// if cfg.check, the naive stencil once. Throws std::invalid_argument for bad configs.
RunResult run(const RunConfig& cfg);

// The naive untiled stencil on the harness' initial data; returns the final time level
// (S1 values in 1D, S1*S2 row-major in 2D, S1*S2*S3 row-major in 3D). Bounded like run().
std::vector<float> naive(const std::string& stencil, std::int64_t size_s1, std::int64_t size_s2,
                         std::int64_t size_s3, std::int64_t size_t);
// The tiled stencil once (one thread per worker, no timing); same layout as naive().
std::vector<float> tiled(const RunConfig& cfg);

// ---- micro-benchmarks (Sec. A.5.1) -------------------------------------------------------

// Summary of one micro-benchmark: the minimum over repeats is the estimate.
struct MicroResult {
  double value_s = 0;   // the estimate (minimum over repeats), seconds per unit
  double median_s = 0;  // median over repeats
  double max_s = 0;     // maximum over repeats
  std::int64_t repeats = 0;
  std::int64_t units = 0;  // units timed per repeat per thread (words, barriers, rows, vectors)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(MicroResult, value_s, "estimate: minimum over repeats, s per unit"),
        COSTMETRICS_FIELD(MicroResult, median_s, "median over repeats, s per unit"),
        COSTMETRICS_FIELD(MicroResult, max_s, "maximum over repeats, s per unit"),
        COSTMETRICS_FIELD(MicroResult, repeats, "repeats"),
        COSTMETRICS_FIELD(MicroResult, units, "units per repeat per thread"));
  }
};

// The segment that the j-th copy of an interleaved sweep over `half` segments reads: the
// even ones in order, then the odd ones (a permutation of [0, half)).
inline std::int64_t interleaved_segment(std::int64_t j, std::int64_t half) {
  const std::int64_t evens = (half + 1) / 2;
  return j < evens ? 2 * j : 2 * (j - evens) + 1;
}

// L: seconds per float copied between a main array of `working_set_words` floats and a
// per-thread buffer (half loads, half stores, in segments of `segment_words`), all threads
// copying at once; time per word of one thread. The segments are drawn at random from the
// thread's slice, or, with `sequential`, read in order from the slice's first half and
// written in order to its second half, whole sweeps as a stencil's wavefronts stream
// their arrays (the DRAM-share curve of the `machine` variant, docs/time.md). Before the
// timed repeats, untimed ones (at least one) until `warmup_words` words have been copied:
// the dirty lines a previous benchmark left in the last-level cache are written back then,
// not in the first timed repeat (docs/validate-log.md, "A slow mode of the copy"). With
// `interleaved` (requires `sequential`) each sweep copies the even segments first, then the
// odd ones: runs of `segment_words` a gap of as many apart, as a 1D stencil's two
// wavefronts of equal tiles read their arrays (the prefetch term, docs/time.md).
MicroResult bench_copy(int threads, std::int64_t working_set_words, std::int64_t segment_words,
                       int repeats, bool pin, bool sequential = false,
                       std::int64_t warmup_words = 0, bool interleaved = false);
// T_sync: seconds per wavefront barrier with `threads` threads and no work.
MicroResult bench_barrier(int threads, int repeats, bool pin);
// C_iter: seconds per SIMD vector (nV points) of the stencil's loop body, data in the tile
// buffer, averaged over `n_configs` random tile shapes (seeded), all threads at once.
MicroResult bench_compute(const std::string& stencil, int threads, int n_configs, int repeats,
                          std::uint64_t seed, bool pin);
// tau_sync stand-in: seconds of fixed cost per tile row (rows of one SIMD vector each),
// minus nothing: the caller subtracts C_iter. All threads at once.
MicroResult bench_row(const std::string& stencil, int threads, int repeats, bool pin);
// Seconds per write of one cache line that `threads` (>= 2) threads write in turn: each
// write moves the line from another core (the `machine` variant's t_share_line_s).
MicroResult bench_share(int threads, int repeats, bool pin);
// Every micro-benchmark runs one untimed warm-up repeat before its timed repeats.

// How the CPUs this process may use run side by side (issue 21: the two modes of the
// 2-thread run times). Not a model parameter: a check of the machine before measuring.
// Each of the first `threads` allowed CPUs runs a fixed throughput-bound kernel (vector
// adds from an L1-resident buffer, no memory traffic, no barrier while timed) alone and
// while every other one runs it too, `repeats` times each in interleaved rounds; then all
// spin reading the clock for `spin_s` seconds, and every gap above 50 us counts as time
// the virtual CPU did not run.
struct CpuProbe {
  std::vector<double> alone_s;     // per CPU: median time of the kernel run alone on it, s
  std::vector<double> together_s;  // per CPU: median time while every CPU runs it, s
  std::vector<double> stall_share;       // per CPU: share of spin_s lost in gaps > 50 us
  std::vector<double> longest_stall_s;   // per CPU: the longest such gap, s
  std::int64_t repeats = 0;
  std::int64_t pinned_cpus = 0;  // CPUs the threads were pinned to (0: pinning not possible)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(CpuProbe, alone_s, "per CPU: median kernel time alone on it, s"),
        COSTMETRICS_FIELD(CpuProbe, together_s,
                          "per CPU: median kernel time while every CPU runs it, s"),
        COSTMETRICS_FIELD(CpuProbe, stall_share,
                          "per CPU: share of the spin time lost in gaps above 50 us"),
        COSTMETRICS_FIELD(CpuProbe, longest_stall_s, "per CPU: longest gap while spinning, s"),
        COSTMETRICS_FIELD(CpuProbe, repeats, "timed runs per CPU and phase"),
        COSTMETRICS_FIELD(CpuProbe, pinned_cpus, "CPUs the threads were pinned to"));
  }
};
// `threads` in [1, CPUs this process may use], `repeats` in [1, 1000], `spin_s` in [0, 10].
CpuProbe probe_cpus(int threads, int repeats, double spin_s);

// Whether the host runs this guest's CPUs at full speed right now (issue 21: the host's
// slow stretches of 0.2-1 s slow even pure-L1 compute 1.3-1.5x on every virtual CPU).
// The probe kernel of probe_cpus runs on the first `threads` allowed CPUs at once, round
// after round, for `duration_s` seconds; a round's time is its slowest CPU's (as a barrier
// would wait). A round is slow when it takes more than kSlowRound times the reference:
// the fastest round of this window, or `reference_s` when that is faster (a caller that
// probes again passes the fastest round seen so far, so that a window spent wholly in a
// slow stretch is still seen as slow).
struct HostSpeed {
  double slow_share = 0;      // share of the rounds above kSlowRound x the reference
  double median_over_reference = 0;  // median round over the reference
  double fastest_round_s = 0;  // the fastest round of this window, s
  double reference_s = 0;      // the reference the rounds were judged against, s
  std::int64_t rounds = 0;
  std::int64_t pinned_cpus = 0;  // CPUs the threads were pinned to (0: pinning not possible)

  static constexpr double kSlowRound = 1.3;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(HostSpeed, slow_share,
                          "share of rounds over 1.3x the reference (the host ran slow)"),
        COSTMETRICS_FIELD(HostSpeed, median_over_reference, "median round over the reference"),
        COSTMETRICS_FIELD(HostSpeed, fastest_round_s, "fastest round of this window, s"),
        COSTMETRICS_FIELD(HostSpeed, reference_s, "the reference round time, s"),
        COSTMETRICS_FIELD(HostSpeed, rounds, "rounds timed"),
        COSTMETRICS_FIELD(HostSpeed, pinned_cpus, "CPUs the threads were pinned to"));
  }
};
// `threads` in [1, CPUs this process may use], `duration_s` in (0, 60], `reference_s`
// 0 (none) or a positive finite time.
HostSpeed probe_host(int threads, double duration_s, double reference_s);

}  // namespace measure
}  // namespace costmetrics

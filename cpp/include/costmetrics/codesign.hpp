// Hardware/software codesign of GPU accelerators for stencil workloads (thesis 000,
// Appendix C, Eqs. C.8-C.19): for every hardware design (nSM, nV, M_SM) and every
// workload instance (stencil, problem size), the tile-optimal T_alg of the time model
// (costmetrics/time.hpp), found exactly over every feasible tile by branch and bound.
// Eq. C.19 separates the problem: the per-(design, instance) optima are kept, and any
// weighting of the workload (Eq. C.18) is a recombination of them.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "costmetrics/area.hpp"
#include "costmetrics/record.hpp"
#include "costmetrics/time.hpp"

namespace costmetrics {
namespace codesign {

// Shared memory one thread block may use (constraint C.10, "M_SM/threadblock"):
//   half:   M_SM / 2 (48 of 96 kB on both reference GPUs; the default reading),
//   full:   M_SM,
//   capped: min(block_cap_kb, M_SM) (48 kB on the reference GPUs, fixed for every design).
enum class BlockRule { half, full, capped };

// Machine parameters shared by every design (the seed uses the GTX 980's; Sec. C.3.2).
struct MachineParams {
  double l_s_per_word = 0;         // L, global-memory time per 4-byte word
  double tau_sync_s = 0;           // one __syncthreads
  double t_sync_s = 0;             // one kernel launch
  std::int64_t max_blocks_per_sm = 0;  // MTB_SM (C.11)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(MachineParams, l_s_per_word, "L, seconds per 4-byte word"),
        COSTMETRICS_FIELD(MachineParams, tau_sync_s, "tau_sync, seconds"),
        COSTMETRICS_FIELD(MachineParams, t_sync_s, "T_sync, seconds"),
        COSTMETRICS_FIELD(MachineParams, max_blocks_per_sm, "MTB_SM, thread blocks per SM"));
  }
  void validate() const;
};

// One hardware design point (the elementary hardware parameters of Sec. C.3.1).
struct Design {
  std::int64_t n_sm = 0;
  std::int64_t n_v = 0;
  std::int64_t smem_kb = 0;  // M_SM
  double area_mm2 = 0;       // from the area model (informational here)

  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(Design, n_sm, "nSM"),
                           COSTMETRICS_FIELD(Design, n_v, "nV"),
                           COSTMETRICS_FIELD(Design, smem_kb, "M_SM, kB"),
                           COSTMETRICS_FIELD(Design, area_mm2, "die area, mm^2"));
  }
  void validate() const;  // n_sm >= 1, n_v >= 1, smem_kb in [1, 2^20]
};

// One workload instance: a stencil (dimensions, C_iter) and a problem size.
struct Instance {
  time::StencilParams stencil;
  time::ProblemSize size;
};

// Thread and register limits of real GPUs: an extension, off by default (the seed's Eq. A.12
// mentions a register bound but does not model it; docs/codesign.md, "Thread and register
// limits"). A tile runs as a block of one thread per point of a hexagon row's inner cross
// section, tS2 (2D) or tS2 tS3 (3D) threads (why Eq. A.32 makes the innermost tile a
// multiple of the warp size). The per-SM limits are the same for every design. Defaults: the
// GTX 980's limits, and 32 registers per thread (a property of the kernel, not of the GPU:
// the most that still lets 2048 threads share 65536 registers).
struct ThreadLimits {
  std::int64_t max_threads_per_block = 1024;
  std::int64_t max_threads_per_sm = 2048;
  std::int64_t registers_per_sm = 65536;
  std::int64_t registers_per_thread = 32;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(ThreadLimits, max_threads_per_block, "threads per block, at most"),
        COSTMETRICS_FIELD(ThreadLimits, max_threads_per_sm, "resident threads per SM, at most"),
        COSTMETRICS_FIELD(ThreadLimits, registers_per_sm, "32-bit registers per SM"),
        COSTMETRICS_FIELD(ThreadLimits, registers_per_thread, "registers one thread uses"));
  }
  // max_threads_per_block and max_threads_per_sm in [32, 2^20], registers_per_thread in
  // [1, 2^16], registers_per_sm in [32 registers_per_thread, 2^32] (a one-warp block fits).
  void validate() const;
  // Blocks of `threads` threads that may be resident on one SM by these limits:
  // min(floor(max_threads_per_sm / threads), floor(registers_per_sm / (registers_per_thread
  // threads))), and 0 when threads > max_threads_per_block. Precondition: threads >= 1.
  std::int64_t blocks_per_sm(std::int64_t threads) const;
};

struct SweepOptions {
  time::Variant variant = time::Variant::paper;
  BlockRule block_rule = BlockRule::half;
  double block_cap_kb = 48;
  bool prune = true;   // false: plain exhaustive search over every feasible tile
  int n_threads = 0;   // 0: every core
  // Unset (the default): the seed's constraints only. Set: a tile whose block exceeds
  // max_threads_per_block is infeasible, and k = min(floor(M_SM / M_tile), MTB_SM,
  // blocks_per_sm(threads)) (Eq. A.12 with the register bound); a tile with k = 0 is
  // infeasible. Both variants and the pruning bounds use this k.
  std::optional<ThreadLimits> thread_limits;
};

// Hardware space of Sec. C.3.2 (the candidate values of each parameter).
struct HardwareSpace {
  std::vector<std::int64_t> n_sm;     // even, 2..32
  std::vector<std::int64_t> n_v;      // multiples of 32, 32..2048
  std::vector<std::int64_t> smem_kb;  // 12, 24, 36 and multiples of 48 up to 480
};
HardwareSpace default_hardware_space();

// Every design of the space with area_min <= A_tot <= area_max (cache-less, structural
// Eq. C.6 or rounded Eq. C.7), in the order (M_SM, nSM, nV). Throws std::invalid_argument
// for an odd nSM, an nV that is not a multiple of 32, an M_SM that is not 12, 24, 36 or a
// multiple of 48, bad area bounds, or an empty result.
std::vector<Design> enumerate_designs(const HardwareSpace& space, const area::Coefficients& c,
                                      double area_min_mm2, double area_max_mm2,
                                      bool rounded_form = false,
                                      const area::RoundedCoefficients* rounded = nullptr,
                                      double regs_kb_per_vu = 2.0);

// The time-model machine a design stands for (per-block limit from the rule).
time::GpuParams design_gpu(const Design& d, const MachineParams& m,
                                 const SweepOptions& options);

struct SweepOutput {
  std::size_t n_designs = 0;
  std::size_t n_instances = 0;
  std::vector<double> talg_s;        // [design][instance], tile-optimal T_alg
  std::vector<std::int64_t> tiles;   // [design][instance][4]: tS1, tS2, tS3 (0 if unused), tT
  std::vector<std::int64_t> n_feasible;  // [design][instance]: feasible tiles (the candidates)
  std::vector<std::int64_t> n_evaluated; // [design][instance]: tiles whose T_alg was computed
  std::int64_t n_bounds = 0;         // lower bounds computed (groups and tails)
};

// Eq. C.19: for every design and instance, min over feasible tiles of T_alg (exact: every
// tile skipped is proven no better by a lower bound; ties resolve to the first tile in the
// order (tT, tS1, tS2, tS3)). Throws std::invalid_argument when an instance has no feasible
// tile on a design. `progress(done_designs)` is called from the calling thread.
SweepOutput sweep(const std::vector<Design>& designs, const std::vector<Instance>& instances,
                  const MachineParams& machine, const SweepOptions& options,
                  const std::function<void(std::size_t)>& progress = nullptr);

// Indices of the Pareto-optimal points: minimal area, maximal performance (no other point
// has area <= and performance >= with one strict). Sorted by area. NaN performance is never
// optimal.
std::vector<std::size_t> pareto_front(const std::vector<double>& area_mm2,
                                      const std::vector<double>& performance);

// Workload throughput of every design (Eq. C.18 with weights w = fr(c) fr(c, Sz)):
// sum_j w_j flops_j / sum_j w_j T_j, in GFLOP/s. talg is [design][instance] row-major.
std::vector<double> workload_gflops(const std::vector<double>& talg_s, std::size_t n_designs,
                                    const std::vector<double>& flops,
                                    const std::vector<double>& weights);

}  // namespace codesign

template <>
struct enum_names<codesign::BlockRule> {
  static constexpr std::array<std::pair<codesign::BlockRule, const char*>, 3> values{
      {{codesign::BlockRule::half, "half"},
       {codesign::BlockRule::full, "full"},
       {codesign::BlockRule::capped, "capped"}}};
};

}  // namespace costmetrics

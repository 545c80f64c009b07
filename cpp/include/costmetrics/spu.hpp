// Stencil Processing Unit (SPU) model: off-chip accesses of the 3D-dependence ("2-D")
// stencil of Eq. 3.1 on a GPU and on an SPU with a p x p grid of SMs executed in passes,
// spill/restore overhead, compute-to-communication ratios, the energy split, and the
// counts behind Tables 6.2, 6.3, 6.4 and A.1 (seed 003: R. Rajasree, "Extending and
// Validating the Stencil Processing Unit", MS thesis, Colorado State University, 2016).
//
// Conventions:
//   * The iteration space is N x N x K (Chapter 3 uses K = N), tiled into b x b x b tiles;
//     a thread block (CTA) computes the column of tiles along k at one (i, j) position.
//   * Off-chip accesses are counted in words (one load or store instruction per element),
//     exact integers; the seed's closed forms, which divide by b or p b, are doubles.
//   * "exact" counts handle N (and K) that are not multiples of b or p b: blocks and
//     passes at the east and south boundary are partial (ceil(N/b), ceil(N/(p b))).
#pragma once

#include <cstdint>
#include <tuple>

#include "costmetrics/record.hpp"

namespace costmetrics::spu {

// Problem sizes of one sweep (costmetrics.spu.sweep, one off_chip per size): bounds the
// memory and time of a call whatever iterable it is given.
inline constexpr std::int64_t kMaxSweepSizes = std::int64_t{1} << 20;

// One problem: the stencil's iteration space, the tile edge and the SPU grid.
struct Problem {
  std::int64_t n = 0;     // N: extent of i and of j (the CTA grid is over (i, j))
  std::int64_t k = 0;     // K: extent of the k axis, the tiles each CTA computes in sequence
  std::int64_t tile = 0;  // b: tile edge (cubic b x b x b tiles)
  std::int64_t grid = 0;  // p: the SPU has p x p SMs

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Problem, n, "N, extent of the i and j axes (elements)"),
        COSTMETRICS_FIELD(Problem, k, "K, extent of the k axis (elements); K = N in Chapter 3"),
        COSTMETRICS_FIELD(Problem, tile, "b, edge of the cubic b x b x b tiles (elements)"),
        COSTMETRICS_FIELD(Problem, grid, "p, the SPU has a p x p grid of SMs"));
  }
  // Every field positive; the tile no larger than N and K. Throws std::invalid_argument.
  void validate() const;
};

// Off-chip accesses (words) and compute-to-communication ratios of one problem.
struct OffChip {
  std::int64_t flops = 0;          // 3 N^2 K (each point is the mean of three neighbours)
  std::int64_t lower_bound = 0;    // Sec. 3.1.1: inputs + outputs, 2 N^2 + 4 N K (6 N^2 at K = N)
  double gpu_closed_form = 0;      // Eq. 3.3 before the approximation: 4 N^2 K / b + 2 N^2
  std::int64_t gpu_exact = 0;      // sum over CTAs of Eq. 3.2: 4 N K ceil(N/b) + 2 N^2
  double spu_closed_form = 0;      // Eq. 3.8: 4 N^2 K / (p b) + 2 N^2
  std::int64_t spu_exact = 0;      // sum over passes of Eq. 3.7: 4 N K ceil(N/(p b)) + 2 N^2
  double spill_restore_closed_form = 0;  // Eq. 3.9: Eq. 3.8 - lower bound
  std::int64_t spill_restore_exact = 0;  // spu_exact - lower bound = 4 N K (ceil(N/(p b)) - 1)
  double ccr_gpu_closed_form = 0;  // Eq. 3.4: 3 b / 4
  double ccr_gpu_exact = 0;        // flops / gpu_exact
  double ccr_spu_closed_form = 0;  // Eq. 3.10: 3 p b / 4
  double ccr_spu_exact = 0;        // flops / spu_exact
  std::int64_t blocks_per_dim = 0;  // ceil(N / b): the CTA grid is blocks_per_dim^2
  std::int64_t passes_per_dim = 0;  // ceil(N / (p b)): Eq. 3.6 with partial passes
  bool partial_passes = false;      // N is not a multiple of p b

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(OffChip, flops, "3 N^2 K floating-point operations"),
        COSTMETRICS_FIELD(OffChip, lower_bound, "2 N^2 + 4 N K words (6 N^2 when K = N), Sec. 3.1.1"),
        COSTMETRICS_FIELD(OffChip, gpu_closed_form, "4 N^2 K / b + 2 N^2 words, Eq. 3.3"),
        COSTMETRICS_FIELD(OffChip, gpu_exact, "4 N K ceil(N/b) + 2 N^2 words (partial blocks)"),
        COSTMETRICS_FIELD(OffChip, spu_closed_form, "4 N^2 K / (p b) + 2 N^2 words, Eq. 3.8"),
        COSTMETRICS_FIELD(OffChip, spu_exact, "4 N K ceil(N/(p b)) + 2 N^2 words (partial passes)"),
        COSTMETRICS_FIELD(OffChip, spill_restore_closed_form, "Eq. 3.9, words"),
        COSTMETRICS_FIELD(OffChip, spill_restore_exact, "spu_exact - lower_bound, words"),
        COSTMETRICS_FIELD(OffChip, ccr_gpu_closed_form, "3 b / 4 flops per word, Eq. 3.4"),
        COSTMETRICS_FIELD(OffChip, ccr_gpu_exact, "flops / gpu_exact"),
        COSTMETRICS_FIELD(OffChip, ccr_spu_closed_form, "3 p b / 4 flops per word, Eq. 3.10"),
        COSTMETRICS_FIELD(OffChip, ccr_spu_exact, "flops / spu_exact"),
        COSTMETRICS_FIELD(OffChip, blocks_per_dim, "ceil(N / b) thread blocks along i and j"),
        COSTMETRICS_FIELD(OffChip, passes_per_dim, "ceil(N / (p b)) passes along i and j, Eq. 3.6"),
        COSTMETRICS_FIELD(OffChip, partial_passes, "whether N is not a multiple of p b"));
  }
};

OffChip off_chip(const Problem& problem);

// A test-case configuration as listed in Tables 6.2 and A.1.
struct Configuration {
  std::int64_t blocks_per_dim = 0;   // ceil(N / b)
  std::int64_t threads_per_dim = 0;  // b / subtile (each thread computes a subtile^2 column)
  std::int64_t tiles_per_block = 0;  // ceil(K / b)
  std::int64_t passes_per_dim = 0;   // ceil(N / (p b))
  bool partial_passes = false;       // "Passes with partial grids"
  // Largest fraction of the p^2 SMs a partial pass keeps busy, counting the SMs that act as
  // IUs at its cut east/south edge (Sec. 6.1.2: "<= 3/4" for N = 320); 1 without partial passes.
  double partial_pass_max_occupancy = 1.0;
  std::int64_t cb_words_per_tile_face = 0;  // b^2 words a CB must hold

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Configuration, blocks_per_dim, "thread blocks along i and j, ceil(N/b)"),
        COSTMETRICS_FIELD(Configuration, threads_per_dim, "threads per block along i and j, b/subtile"),
        COSTMETRICS_FIELD(Configuration, tiles_per_block, "tiles each block computes, ceil(K/b)"),
        COSTMETRICS_FIELD(Configuration, passes_per_dim, "passes along i and j, ceil(N/(p b))"),
        COSTMETRICS_FIELD(Configuration, partial_passes, "some passes do not fill the p x p grid"),
        COSTMETRICS_FIELD(Configuration, partial_pass_max_occupancy,
                          "largest fraction of SMs busy in a partial pass (SMs acting as IUs included)"),
        COSTMETRICS_FIELD(Configuration, cb_words_per_tile_face, "b^2 words per communicated tile face"));
  }
};

// Throws std::invalid_argument unless subtile > 0 divides b.
Configuration configuration(const Problem& problem, std::int64_t subtile);

// Largest square tile edge b whose b x b face fits one communication buffer:
// floor(sqrt(cb_bytes / word_bytes)) (Sec. 6.3.4: 4 KB -> 32, 16 KB -> 64).
std::int64_t max_tile_for_cb(std::int64_t cb_bytes, std::int64_t word_bytes);

// Eq. 5.1: total CB storage (4 x #SMs + 1 x #IUs) x size of one CB, in bytes.
std::int64_t total_cb_bytes(std::int64_t n_sms, std::int64_t n_ius, std::int64_t cb_bytes);

// Off-chip accesses with the original global block synchronization (Sec. 4.1, Table 6.3).
// Every thread block runs the whole wavefront loop of Algorithm 1, T_i + T_j + T_k - 2
// iterations (t from 0 to the last wavefront), each ending in syncblocks(); every spilling
// VIU spills one b x b tile per syncblocks() it meets and its restoring partner loads as
// many. `extra_syncs_per_pass` adds barriers per pass beyond Algorithm 1's loop.
struct GlobalSync {
  std::int64_t syncs_per_block = 0;         // T_i + T_j + T_k - 2 (Algorithm 1)
  std::int64_t spilling_vius = 0;           // VIU positions on internal pass boundaries
  std::int64_t useful_spills_per_viu = 0;   // T_k: the spills localized sync keeps
  std::int64_t spills_per_viu = 0;          // syncs_per_block + extra_syncs_per_pass
  std::int64_t accesses = 0;                // lower bound + 2 * spilling_vius * spills_per_viu * b^2
  std::int64_t localized_accesses = 0;      // lower bound + 2 * spilling_vius * T_k * b^2 (= Eq. 3.8)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(GlobalSync, syncs_per_block, "syncblocks() per block, T_i+T_j+T_k-2"),
        COSTMETRICS_FIELD(GlobalSync, spilling_vius, "spilling VIUs on internal pass boundaries"),
        COSTMETRICS_FIELD(GlobalSync, useful_spills_per_viu, "T_k tiles each spilling VIU must spill"),
        COSTMETRICS_FIELD(GlobalSync, spills_per_viu, "spills per VIU with global sync"),
        COSTMETRICS_FIELD(GlobalSync, accesses, "off-chip accesses with global sync, words"),
        COSTMETRICS_FIELD(GlobalSync, localized_accesses,
                          "off-chip accesses with localized (producer-consumer) sync, words"));
  }
};

// Throws std::invalid_argument unless b divides N and K (Algorithm 1's setting) and
// extra_syncs_per_pass >= 0.
GlobalSync global_sync(const Problem& problem, std::int64_t extra_syncs_per_pass = 0);

// The spills per VIU that an observed global-sync access count implies (inverse of
// global_sync): (observed - lower bound) / (2 * spilling_vius * b^2). Throws when the
// problem has no spilling VIU (a single pass) or observed < lower bound.
double spills_per_viu_from_accesses(const Problem& problem, std::int64_t observed_accesses);

// Eq. 3.5: total energy = compute + memory (dynamic) + static.
struct EnergySplit {
  double compute_j = 0;  // flops * e_comp
  double memory_j = 0;   // accesses * e_mem
  double static_j = 0;   // static power * time (Eq. 7.1)
  double dynamic_j = 0;  // compute + memory
  double total_j = 0;    // dynamic + static

  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(EnergySplit, compute_j, "flops x e_comp (J)"),
                           COSTMETRICS_FIELD(EnergySplit, memory_j, "accesses x e_mem (J)"),
                           COSTMETRICS_FIELD(EnergySplit, static_j, "static power x time (J)"),
                           COSTMETRICS_FIELD(EnergySplit, dynamic_j, "compute + memory (J)"),
                           COSTMETRICS_FIELD(EnergySplit, total_j, "dynamic + static (J)"));
  }
};

// Every argument finite and >= 0, else std::invalid_argument naming it.
EnergySplit energy_split(double flops, double accesses, double e_comp_j, double e_mem_j,
                         double static_power_w, double time_s);

// Eq. 6.1: energy (mJ) = cycles x power (W) / (frequency (MHz) x 1000).
double energy_mj_from_cycles(double cycles, double power_w, double frequency_mhz);

// Static power of the SPU at which its total energy equals the GPU's, when both do the same
// flops (equal compute energy) and differ in off-chip accesses and run time:
// P_spu* = ((A_gpu - A_spu) e_mem + P_gpu t_gpu) / t_spu. Not printed in the seed.
double break_even_static_power_w(double accesses_gpu, double accesses_spu, double e_mem_j,
                                 double static_power_gpu_w, double time_gpu_s,
                                 double time_spu_s);

// (value - reference) / reference, e.g. the leakage ratios of Table 6.4.
double relative_change(double value, double reference);

}  // namespace costmetrics::spu

// Internal: the `exact` variant of the execution-time model (docs/time.md, "Exact
// variant"). Declared apart from time.hpp because it is an implementation detail of
// time::evaluate_unchecked(); tests include it to compare against brute force.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "costmetrics/time.hpp"
#include "floor_sum.hpp"
#include "time_detail.hpp"

namespace costmetrics {
namespace time {
namespace detail {

// Whether every row of every tile fits whole in [0, S1) at some lattice start: a row is at
// most tS1 + tT - 2 <= P wide, and an interval of S1 - w + 1 >= P starts holds one of each
// residue mod P, so S1 >= 2P - 1 (P = 2 tS1 + tT - 2) gives W(r) = tS1 + 2 e(r) on every row.
inline bool whole_rows_fit(std::int64_t S1, std::int64_t tS1, std::int64_t tT) {
  return S1 >= 2 * (2 * tS1 + tT - 2) - 1;
}

// The sub-tiles of one time-skewed inner dimension (extent S, tile tS) over the relative rows
// [ra, rb) (docs/time.md, rule 5): b_min..b_max have a point on some row, and
// full_lo..full_hi (empty when full_lo > full_hi) are full on every row.
struct SubtileRange {
  std::int64_t b_min = 0, b_max = 0, full_lo = 0, full_hi = -1;
};
inline SubtileRange subtile_range(std::int64_t S, std::int64_t tS, std::int64_t ra,
                                  std::int64_t rb) {
  // Quotients of non-negative integers below 2^53 by one exact double division each
  // (floor_sum.hpp), not a 64-bit integer division: this runs a few times per wavefront.
  using ::costmetrics::detail::div_ceil;
  using ::costmetrics::detail::div_floor;
  SubtileRange s;
  s.b_min = div_floor(ra, tS);                                // (b+1) tS > ra
  s.b_max = div_floor(S + rb - 2, tS);                        // b tS - S < rb - 1
  s.full_lo = std::max(s.b_min, div_ceil(rb - 1, tS));        // b tS >= rb - 1
  s.full_hi = std::min(s.b_max, div_floor(S + ra, tS) - 1);   // (b+1) tS <= S + ra
  return s;
}

// How evaluate_exact walks the rows. `fast` (the default) uses, when S1 >= 2 P - 1, the
// closed-form row widths, the per-evaluation row tables and the reuse of equal wavefronts;
// `general` always walks every row of every wavefront. Both give the same numbers; the
// tests compare them.
enum class ExactPath { fast, general };

// Coefficients of T_alg in the parameters of design_parameter_names() (time.hpp).
using DesignRow = std::array<double, kDesignParams>;

// T_alg and its breakdown for a gap-free hexagonal tiling with exact point counts.
// With `machine`, the MachineTerms of `gpu` are added (docs/time.md, "Machine
// variant"); with every term 0 the result is bit-identical to machine = false. With `row`
// non-null, it receives the coefficients of T_alg in the calibrated parameters (the machine
// variant's row; T_alg = row . design_parameters()).
// Preconditions: inputs validated, tiles feasible.
Breakdown evaluate_exact(const GpuParams& gpu, const StencilParams& stencil,
                         const ProblemSize& size, const TileSizes& tiles,
                         ExactPath path = ExactPath::fast, bool machine = false,
                         DesignRow* row = nullptr);

// T_alg of evaluate_exact(gpu, stencil, size, tiles) (the fast path, `exact`), bit for bit,
// without the Breakdown's other terms (for the callers that read T_alg alone: the batch's
// T_alg-only path, the codesign search). Preconditions: those of evaluate_exact.
double evaluate_exact_talg(const GpuParams& gpu, const StencilParams& stencil,
                           const ProblemSize& size, const TileSizes& tiles);

// What the machine variant reads of (gpu, dims, size) alone, once per batch: whether the
// preset has machine terms (MachineTerms::all_zero false), the arrays' memory level and,
// at the DRAM level, their DRAM share (memory_level, dram_share).
struct MachineSetup {
  bool terms = false;
  int level = 3;
  double dram = 0.0;
};
MachineSetup machine_setup(const GpuParams& gpu, int dims, const ProblemSize& size);

// evaluate_exact_talg for the tiles of one batch (gpu, stencil and size fixed), bit for bit,
// with work shared between tiles (issue 15, eighth round): in 2D on the kind tables, what
// depends on tT alone (the wavefronts evaluated, their counts and rows), on (tS1, tT) (each
// wavefront's tile count n_i, and its rounds for the last k) and on (tS2, tT) (each row
// range's sub-tile classes and their kind runs) is computed once per group and kept in
// direct-mapped caches; per tile remain k, m', the kind tables and the class sums. Other
// tiles (1D, 3D, S1 < 2P - 1, tS2 > S2) take evaluate_exact_talg. The machine variant
// (`machine` given) groups the same 2D tiles, and keeps the row shapes of m' per (tS1, tT)
// for the others and for 3D (evaluate_machine_talg with them). Not thread-safe: one per
// thread. Preconditions: those of evaluate_exact_talg, for every tile passed.
class ExactTalgBatch {
 public:
  // `machine` (machine_setup(), kept by the caller): the machine variant's T_alg instead,
  // evaluate_machine_talg's bit for bit (on a preset with machine terms).
  ExactTalgBatch(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
                 const MachineSetup* machine = nullptr);
  ~ExactTalgBatch();
  ExactTalgBatch(const ExactTalgBatch&) = delete;
  ExactTalgBatch& operator=(const ExactTalgBatch&) = delete;
  double talg(const TileSizes& tiles);
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The fewest tiles of one thread's share of a T_alg-only `exact` batch for which
// evaluate_batch uses ExactTalgBatch (its caches cost about 390 kB to set up); tests
// lower it to run the grouped path on small batches. Not thread-safe (set it before).
std::size_t exact_batch_group_min();
void set_exact_batch_group_min(std::size_t n);

// T_alg of evaluate_exact(gpu, stencil, size, tiles, ExactPath::fast, true) (`machine`), bit
// for bit, without the Breakdown's other terms (c_s, m' of a whole tile, the sub-tile
// count, T_ideal) and with `setup` = machine_setup(gpu, dims, size) computed by the caller
// (the batch's T_alg-only path). Preconditions: those of evaluate_exact.
double evaluate_machine_talg(const GpuParams& gpu, const StencilParams& stencil,
                             const ProblemSize& size, const TileSizes& tiles,
                             const MachineSetup& setup);

// Test hooks: the fast path's per-thread cache of the machine variant's clipped-tile counts
// per (tS1, tT) (time_exact.cpp, ClippedCache), turned off or on (on by default) in the
// calling thread, and how many evaluations of the calling thread it has served.
void set_clipped_cache_enabled(bool enabled);
std::uint64_t clipped_cache_hits();
// Test hook: whether the machine variant's cross-row walk (ExactModel::cross_side) may use
// its AVX2 form (on by default, in every thread), so that tests compare it with the scalar
// walk.
void set_cross_rows_simd(bool enabled);

}  // namespace detail
}  // namespace time
}  // namespace costmetrics

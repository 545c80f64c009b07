// ExaSAT-style performance model of stencil loop nests: weighted flops C, DRAM traffic D from
// a working-set (cell / pencil / plane reuse) cache model with X/Y cache blocking and loop
// fusion, T = max(C/alpha, D/beta), bytes per flop; plus a brute-force LRU cache simulation
// of the same access stream to check the working-set rules.
// Source: seed 002, Chan, Unat, Lijewski, Zhang, Bell, Shalf, "Software Design Space
// Exploration for Exascale Combustion Co-design" (LBNL), Sections 3.1, 3.2 and 4.2.
// The seed prints no cache formulas; the rules implemented here are written out in
// docs/exasat.md.
//
// Conventions: a kernel is a sequence of loop nests over the same 3D box (nx, ny, nz), swept
// with X innermost and Z outermost; every array is a 3D field of words of the same box plus
// ghost zones. Traffic is counted in words (machine.word_bytes each); working sets in bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "costmetrics/record.hpp"

namespace costmetrics {
namespace exasat {

// Limits that bound the work of one call (offsets, accesses, loops).
inline constexpr int kMaxOffset = 64;               // |dx|, |dy|, |dz| per stencil point
inline constexpr std::size_t kMaxPointsPerAccess = 4096;
inline constexpr std::size_t kMaxLoops = 4096;
inline constexpr std::int64_t kMaxBoxEdge = 1LL << 20;  // per dimension
inline constexpr std::int64_t kDefaultMaxSimAccesses = 20'000'000;
inline constexpr std::int64_t kHardMaxSimAccesses = 400'000'000;
inline constexpr std::size_t kMaxBlockCandidates = 256;  // best_blocking's block edges
inline constexpr std::size_t kMaxCacheSizes = 1024;      // simulate_sweep's cache sizes

// Machine description (Section 4.2: aggregate throughput, aggregate bandwidth, cache or
// scratchpad size, line and word sizes, cost of special functions).
struct Machine {
  double alpha_flops_per_s = 0;       // aggregate (weighted) flop throughput
  double beta_bytes_per_s = 0;        // aggregate DRAM bandwidth
  std::int64_t cache_bytes = 0;       // on-chip memory per group of cooperating threads
  std::int64_t word_bytes = 8;        // size of one array element
  std::int64_t line_bytes = 64;       // cache line (a multiple of word_bytes)
  double divide_weight = 39;          // a divide costs this many adds (Fig. 7)
  double transcendental_weight = 125; // a transcendental costs this many adds (Fig. 7)
  bool write_allocate = true;         // false: stores bypass the cache (streaming stores)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Machine, alpha_flops_per_s, "aggregate weighted flop throughput, flop/s"),
        COSTMETRICS_FIELD(Machine, beta_bytes_per_s, "aggregate DRAM bandwidth, bytes/s"),
        COSTMETRICS_FIELD(Machine, cache_bytes, "on-chip memory per cooperating thread group, bytes"),
        COSTMETRICS_FIELD(Machine, word_bytes, "bytes per array element"),
        COSTMETRICS_FIELD(Machine, line_bytes, "cache line size, bytes (multiple of word_bytes)"),
        COSTMETRICS_FIELD(Machine, divide_weight, "cost of a divide in adds (seed: 39)"),
        COSTMETRICS_FIELD(Machine, transcendental_weight,
                          "cost of a transcendental in adds (seed: 125)"),
        COSTMETRICS_FIELD(Machine, write_allocate,
                          "stores allocate lines (read for ownership); false = cache bypass"));
  }
  void validate() const;
  std::int64_t line_words() const { return line_bytes / word_bytes; }
};

// Floating-point operations per cell of one loop, by type.
struct Flops {
  double adds = 0;
  double muls = 0;
  double divides = 0;
  double transcendentals = 0;

  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(Flops, adds, "additions/subtractions per cell"),
                           COSTMETRICS_FIELD(Flops, muls, "multiplications per cell"),
                           COSTMETRICS_FIELD(Flops, divides, "divisions per cell"),
                           COSTMETRICS_FIELD(Flops, transcendentals,
                                             "transcendental functions (exp, log, pow) per cell"));
  }
  void validate() const;
};

// Weighted flops of one cell: adds + muls + w_div divides + w_trans transcendentals (Sec. 4.2).
double weighted_flops(const Flops& flops, const Machine& machine);

// Machine balance beta / alpha in bytes per weighted flop (Table 2's "Peak B/F Ratio").
double peak_bytes_per_flop(const Machine& machine);

struct Offset {
  int dx = 0, dy = 0, dz = 0;
  bool operator==(const Offset& o) const { return dx == o.dx && dy == o.dy && dz == o.dz; }
  bool operator<(const Offset& o) const {
    return std::tie(dz, dy, dx) < std::tie(o.dz, o.dy, o.dx);
  }
};

// One array accessed by one loop: the stencil points it reads, or the point it writes.
struct Access {
  int array = 0;        // index into Kernel::arrays
  bool write = false;   // false: read
  std::vector<Offset> offsets;
};

struct Loop {
  std::string name;
  std::vector<Access> accesses;  // in a loop body, reads happen before writes
  Flops flops;
};

struct Kernel {
  std::string name;
  std::vector<std::string> arrays;
  // temporary[a]: array a is not needed after the kernel (an intermediate); fusion may
  // replace it by a scalar or an on-chip buffer.
  std::vector<bool> temporary;
  std::vector<Loop> loops;
  void validate() const;  // names, indices, offsets within +-kMaxOffset, one point per write
};

struct Box {
  std::int64_t nx = 0, ny = 0, nz = 0;
  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(Box, nx, "cells along X (innermost)"),
                           COSTMETRICS_FIELD(Box, ny, "cells along Y"),
                           COSTMETRICS_FIELD(Box, nz, "cells along Z (outermost)"));
  }
  void validate() const;
  std::int64_t cells() const;  // checked nx*ny*nz
};

// Cache blocking of X and Y (Sec. 3.1); Z is swept whole. A block edge larger than the box
// edge means the box edge.
struct Blocking {
  std::int64_t bx = 0, by = 0;
  static constexpr auto fields() {
    return std::make_tuple(COSTMETRICS_FIELD(Blocking, bx, "block edge along X, cells"),
                           COSTMETRICS_FIELD(Blocking, by, "block edge along Y, cells"));
  }
  void validate() const;
};

// Reuse levels of the working-set model (Fig. 8).
enum Level : int { kNone = 0, kCell = 1, kPencil = 2, kPlane = 3 };
const char* level_name(int level);

// Fusion: a partition of the loops into consecutive groups, each group one fused loop nest.
enum class FusionStrategy { None = 0, Simple = 1, Aggressive = 2 };
using Groups = std::vector<std::vector<int>>;

// True when loop j reads with a non-zero offset an array loop i writes, or the reverse
// (the seed's "stencil dependency", Sec. 5.2).
bool stencil_dependency(const Kernel& kernel, int i, int j);
// None: one group per loop. Simple: consecutive loops fused while no stencil dependency
// links the next loop to any loop of the current group. Aggressive: one group.
Groups fusion_groups(const Kernel& kernel, FusionStrategy strategy);
// Throws std::invalid_argument unless `groups` lists every loop once, in order, in
// consecutive runs.
void validate_groups(const Kernel& kernel, const Groups& groups);

// Number of distinct points of block + offsets (the Minkowski sum of a box with a point
// set): the words a block touches at full reuse. Exact, in O(|offsets|^2 log) time.
std::int64_t footprint_words(const std::array<std::int64_t, 3>& block,
                             const std::vector<Offset>& offsets);

// Traffic of one array in one fused group.
struct ArrayTraffic {
  std::string array;
  std::string role;  // "read", "write", "read-write", "produced", "scratch"
  std::int64_t read_words = 0;   // includes write-allocate fills
  std::int64_t write_words = 0;
  int need_level = 0;            // produced/scratch: level that keeps it on chip
  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(ArrayTraffic, array, "array name"),
        COSTMETRICS_FIELD(ArrayTraffic, role,
                          "read, write, read-write, produced (written then read in the group) "
                          "or scratch (produced and temporary: no DRAM copy if it fits)"),
        COSTMETRICS_FIELD(ArrayTraffic, read_words, "words read from DRAM (incl. write-allocate)"),
        COSTMETRICS_FIELD(ArrayTraffic, write_words, "words written to DRAM"),
        COSTMETRICS_FIELD(ArrayTraffic, need_level,
                          "produced/scratch arrays: reuse level that keeps them on chip"));
  }
};

// One fused loop nest (a group of loops) evaluated at one blocking.
struct GroupResult {
  std::vector<int> loops;
  std::int64_t bx = 0, by = 0;       // effective block (clamped to the box)
  int level = 0;                     // reuse level of the full-size blocks
  std::vector<double> ws_bytes;      // working set of the full-size block at levels 0..3
  double weighted_flops = 0;         // C of this group
  std::int64_t read_words = 0, write_words = 0;
  std::vector<ArrayTraffic> arrays;
  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(GroupResult, loops, "indices of the fused loops"),
        COSTMETRICS_FIELD(GroupResult, bx, "effective block edge along X"),
        COSTMETRICS_FIELD(GroupResult, by, "effective block edge along Y"),
        COSTMETRICS_FIELD(GroupResult, level, "reuse level of the full blocks: 0 none .. 3 plane"),
        COSTMETRICS_FIELD(GroupResult, ws_bytes, "working set per level (none, cell, pencil, plane)"),
        COSTMETRICS_FIELD(GroupResult, weighted_flops, "weighted flops of the group"),
        COSTMETRICS_FIELD(GroupResult, read_words, "words read from DRAM"),
        COSTMETRICS_FIELD(GroupResult, write_words, "words written to DRAM"),
        COSTMETRICS_FIELD(GroupResult, arrays, "traffic per array"));
  }
};

// Whole-kernel estimate.
struct Estimate {
  std::vector<GroupResult> groups;
  double weighted_flops = 0;    // C
  double read_bytes = 0, write_bytes = 0;
  double traffic_bytes = 0;     // D
  double t_compute_s = 0;       // C / alpha
  double t_memory_s = 0;        // D / beta
  double t_s = 0;               // max of the two (Sec. 4.2)
  double bytes_per_flop = 0;    // D / C
  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Estimate, groups, "one entry per fused loop nest"),
        COSTMETRICS_FIELD(Estimate, weighted_flops, "C, weighted flops"),
        COSTMETRICS_FIELD(Estimate, read_bytes, "bytes read from DRAM"),
        COSTMETRICS_FIELD(Estimate, write_bytes, "bytes written to DRAM"),
        COSTMETRICS_FIELD(Estimate, traffic_bytes, "D, total DRAM traffic, bytes"),
        COSTMETRICS_FIELD(Estimate, t_compute_s, "T_c = C / alpha, s"),
        COSTMETRICS_FIELD(Estimate, t_memory_s, "T_d = D / beta, s"),
        COSTMETRICS_FIELD(Estimate, t_s, "T = max(T_c, T_d), s"),
        COSTMETRICS_FIELD(Estimate, bytes_per_flop, "D / C"));
  }
};

// The model. `blockings` has one entry per group, or a single entry used for all groups.
// `force_level` in 0..3 evaluates every block at that reuse level regardless of the cache
// (to tabulate the levels); -1 picks the highest level whose working set fits.
Estimate evaluate(const Kernel& kernel, const Machine& machine, const Box& box,
                  const Groups& groups, const std::vector<Blocking>& blockings,
                  int force_level = -1);

// Per group, the blocking among the candidate pairs (bx, by) from `candidates` x
// `candidates` with the least DRAM traffic (ties: the larger block). Candidates above the
// box edge are clamped; at most 256 candidate edges.
Estimate best_blocking(const Kernel& kernel, const Machine& machine, const Box& box,
                       const Groups& groups, const std::vector<std::int64_t>& candidates);

// Brute-force check: the access stream of the same loop nests through a fully associative
// LRU cache of machine.cache_bytes with machine.line_bytes lines (docs/exasat.md lists the
// stream's order and the write policy). The cache is empty at the start of each group and
// written back at its end. Refuses streams longer than `max_accesses`.
struct Simulation {
  std::int64_t accesses = 0;
  std::int64_t read_bytes = 0, write_bytes = 0, traffic_bytes = 0;
  std::vector<std::int64_t> group_traffic_bytes;
  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Simulation, accesses, "word accesses simulated"),
        COSTMETRICS_FIELD(Simulation, read_bytes, "bytes fetched from DRAM"),
        COSTMETRICS_FIELD(Simulation, write_bytes, "bytes written back or written through"),
        COSTMETRICS_FIELD(Simulation, traffic_bytes, "total DRAM traffic, bytes"),
        COSTMETRICS_FIELD(Simulation, group_traffic_bytes, "traffic per group, bytes"));
  }
};

// Number of word accesses simulate_lru would make (checked arithmetic).
std::int64_t simulated_accesses(const Kernel& kernel, const Box& box, const Groups& groups);

Simulation simulate_lru(const Kernel& kernel, const Machine& machine, const Box& box,
                        const Groups& groups, const std::vector<Blocking>& blockings,
                        std::int64_t max_accesses = kDefaultMaxSimAccesses);

// simulate_lru for each cache size (in parallel; `threads` <= 0: hardware concurrency).
std::vector<Simulation> simulate_lru_sweep(const Kernel& kernel, const Machine& machine,
                                           const Box& box, const Groups& groups,
                                           const std::vector<Blocking>& blockings,
                                           const std::vector<std::int64_t>& cache_bytes,
                                           std::int64_t max_accesses = kDefaultMaxSimAccesses,
                                           int threads = 0);

}  // namespace exasat
}  // namespace costmetrics

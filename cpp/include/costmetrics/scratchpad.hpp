// Scratchpad (explicitly managed local memory) data movement: local arrays from loop nests
// and affine access functions (Section 3, Algorithm 2, Fig. 1), the movement cost
// C = N ((P x S) + V x L / P) and the tile-size search of Section 4.3, solved exactly over
// the integers (seed 004: M. M. Baskaran, U. Bondhugula, S. Krishnamoorthy, J. Ramanujam,
// A. Rountev, P. Sadayappan, "Automatic Data Movement and Computation Mapping for
// Multi-level Parallel Architectures with Explicitly Managed Memories", PPoPP 2008).
//
// Conventions:
//   * Iteration spaces are boxes: each loop runs over constant inclusive bounds. An array
//     reference is an affine map of the loop indices, one row of integer coefficients per
//     array dimension plus a constant offset.
//   * Sizes and volumes are in array elements ("words").
//   * In the tile problem the loop indices are tile-local: loop l runs over [0, t_l - 1], so
//     every bounding-box extent is affine in the tile sizes (coefficient signs are fixed),
//     which is what lets the same formula serve integer and relaxed (real) tile sizes.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "costmetrics/record.hpp"

namespace costmetrics::scratchpad {

// Candidate values of one loop in integer_optimum (bounds the memory of the lists).
inline constexpr std::size_t kMaxCandidatesPerLoop = std::size_t{1} << 24;
// Upper bound of local_arrays' max_points (statement-instance x reference pairs): each
// distinct element is kept in a set, about 150 bytes (2^24 pairs of a 1-D statement
// measured at 2.4 GB peak), so a call stays near 2.5 GB whatever max_points says.
inline constexpr std::int64_t kMaxEnumerationPoints = std::int64_t{1} << 24;
// Upper bound of integer_optimum's max_points (tile vectors): no memory, but time, about
// 0.3 us per vector on one core, so at most about 20 min on one core.
inline constexpr std::int64_t kMaxTileVectors = std::int64_t{1} << 32;

// Section 4.3: C = N x ((P x S) + V x L / P) for N occurrences of a movement of V words by P
// inner-level processes, S the synchronization cost per process per occurrence and L the
// cost per word. All inputs finite, P > 0, the others >= 0, else std::invalid_argument.
double movement_cost(double occurrences, double processes, double sync_cost,
                     double volume_words, double cost_per_word);

// One affine array reference: subscript d = sum_l coeffs[d][l] * x_l + offsets[d].
struct Reference {
  std::string array;
  bool write = false;
  std::vector<std::vector<std::int64_t>> coeffs;  // [array dims][loops]
  std::vector<std::int64_t> offsets;              // [array dims]

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Reference, array, "name of the array"),
        COSTMETRICS_FIELD(Reference, write, "whether the reference writes"),
        COSTMETRICS_FIELD(Reference, coeffs, "coefficients, one row per array dimension"),
        COSTMETRICS_FIELD(Reference, offsets, "constant term per array dimension"));
  }
};

// One statement: its loops' inclusive constant bounds (outermost first) and its references.
struct Statement {
  std::vector<std::int64_t> lower;
  std::vector<std::int64_t> upper;
  std::vector<Reference> refs;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(Statement, lower, "inclusive lower loop bounds, outermost first"),
        COSTMETRICS_FIELD(Statement, upper, "inclusive upper loop bounds"),
        COSTMETRICS_FIELD(Statement, refs, "the array references"));
  }

  // Bounds paired and nonempty, within [-2^40, 2^40]; at least one reference, each with
  // one coefficient per loop. Throws std::invalid_argument naming `what` and the field.
  void validate(const std::string& what = "statement") const;
};

// How local arrays are formed from an array's data spaces.
//   per_array:     one local array per original array, the bounding box of all its data
//                  spaces (this reproduces Fig. 1: LA[19][10], LB[19][24]).
//   per_partition: one local array per maximal set of overlapping data spaces, Algorithm 2
//                  read literally (Fig. 1's arrays then split in two each).
enum class Reading { per_array = 0, per_partition = 1 };

struct LocalArray {
  std::string array;
  std::int64_t partition = 0;  // index among the array's local arrays (always 0 per_array)
  std::vector<std::int64_t> lower;    // lb_k of each dimension (Algorithm 2, line 8)
  std::vector<std::int64_t> upper;    // ub_k
  std::vector<std::int64_t> extents;  // ub_k - lb_k + 1
  std::int64_t size_words = 0;        // product of extents (line 9)
  // Sec. 3.1.3 upper bounds: the read (write) data spaces split into maximal overlapping
  // sets, summing the bounding-box size of each set.
  std::int64_t move_in_bound_words = 0;
  std::int64_t move_out_bound_words = 0;
  // Distinct elements read (written): what the CLooG-generated move-in (move-out) loops scan.
  std::int64_t move_in_exact_words = 0;
  std::int64_t move_out_exact_words = 0;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(LocalArray, array, "name of the original (global) array"),
        COSTMETRICS_FIELD(LocalArray, partition, "index of this local array among the array's"),
        COSTMETRICS_FIELD(LocalArray, lower, "lower bound of each dimension (lb_k)"),
        COSTMETRICS_FIELD(LocalArray, upper, "upper bound of each dimension (ub_k)"),
        COSTMETRICS_FIELD(LocalArray, extents, "ub_k - lb_k + 1 per dimension"),
        COSTMETRICS_FIELD(LocalArray, size_words, "local storage, product of the extents"),
        COSTMETRICS_FIELD(LocalArray, move_in_bound_words, "upper bound on words moved in (3.1.3)"),
        COSTMETRICS_FIELD(LocalArray, move_out_bound_words, "upper bound on words moved out (3.1.3)"),
        COSTMETRICS_FIELD(LocalArray, move_in_exact_words, "distinct elements read"),
        COSTMETRICS_FIELD(LocalArray, move_out_exact_words, "distinct elements written"));
  }
};

// Local arrays of a program block, in order of first appearance of each array. Overlap of
// data spaces is decided exactly, by enumerating the accessed elements; the enumeration is
// refused (std::overflow_error) beyond `max_points` statement-instance x reference pairs.
std::vector<LocalArray> local_arrays(const std::vector<Statement>& statements, Reading reading,
                                     std::int64_t max_points = std::int64_t{1} << 24);

// ---------------------------------------------------------------------------------------------
// Tile-size search (Section 4.3).

struct TileProblem {
  std::vector<std::int64_t> extents;  // N_l, index range of each tiled loop (outermost first)
  std::vector<Reference> refs;        // affine in the m tile-local loop indices
  double processes = 0;               // P, inner-level processes
  double sync_cost = 0;               // S, per process per occurrence
  double cost_per_word = 0;           // L
  double memory_limit_words = 0;      // M_up
  bool ceil_occurrences = false;      // ceil(N_l / t_l) occurrences instead of N_l / t_l

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(TileProblem, extents, "N_l, index range of each tiled loop"),
        COSTMETRICS_FIELD(TileProblem, refs, "references, affine in the tile-local indices"),
        COSTMETRICS_FIELD(TileProblem, processes, "P, inner-level processes"),
        COSTMETRICS_FIELD(TileProblem, sync_cost, "S, per process per occurrence"),
        COSTMETRICS_FIELD(TileProblem, cost_per_word, "L, cost of moving one word"),
        COSTMETRICS_FIELD(TileProblem, memory_limit_words, "M_up, local memory (words)"),
        COSTMETRICS_FIELD(TileProblem, ceil_occurrences,
                          "ceil(N_l / t_l) occurrences instead of N_l / t_l"));
  }

  // Throws std::invalid_argument naming the offending field.
  void validate() const;
};

// One local array of a tile at given tile sizes (the per_array reading).
struct TileArray {
  std::string array;
  std::int64_t placement = 0;      // r_j: movement code sits inside tiling loops 1..r_j
  double occurrences = 0;          // prod_{l <= r_j} N_l / t_l
  double size_words = 0;           // M_j, bounding box of all its references
  double move_in_words = 0;        // V_j^in (0 when the array is not read)
  double move_out_words = 0;       // V_j^out (0 when the array is not written)
  double cost = 0;                 // its terms of the objective

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(TileArray, array, "name of the original array"),
        COSTMETRICS_FIELD(TileArray, placement, "r_j, depth of the movement code in the tiling loops"),
        COSTMETRICS_FIELD(TileArray, occurrences, "prod_{l <= r_j} N_l / t_l"),
        COSTMETRICS_FIELD(TileArray, size_words, "M_j, local array size (words)"),
        COSTMETRICS_FIELD(TileArray, move_in_words, "V_j^in (words)"),
        COSTMETRICS_FIELD(TileArray, move_out_words, "V_j^out (words)"),
        COSTMETRICS_FIELD(TileArray, cost, "the array's terms of the objective"));
  }
};

struct TileEvaluation {
  double cost = 0;            // the objective of Section 4.3
  double memory_words = 0;    // sum_j M_j
  double product = 0;         // t_1 x ... x t_m
  bool within_extents = false;      // 1 <= t_l <= N_l
  bool fits_memory = false;         // sum_j M_j <= M_up
  bool enough_parallelism = false;  // product >= P
  bool feasible = false;            // all three

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(TileEvaluation, cost, "data movement cost (objective of Sec. 4.3)"),
        COSTMETRICS_FIELD(TileEvaluation, memory_words, "sum of the local array sizes (words)"),
        COSTMETRICS_FIELD(TileEvaluation, product, "product of the tile sizes"),
        COSTMETRICS_FIELD(TileEvaluation, within_extents, "1 <= t_l <= N_l for every loop"),
        COSTMETRICS_FIELD(TileEvaluation, fits_memory, "memory_words <= M_up"),
        COSTMETRICS_FIELD(TileEvaluation, enough_parallelism, "product >= P"),
        COSTMETRICS_FIELD(TileEvaluation, feasible, "every constraint holds"));
  }
};

// Tile sizes may be real (the relaxed problem); each must be finite and >= 1.
TileEvaluation evaluate_tiles(const TileProblem& problem, const std::vector<double>& tiles);
std::vector<TileArray> tile_arrays(const TileProblem& problem, const std::vector<double>& tiles);

struct TileSearchResult {
  std::vector<std::int64_t> tiles;  // the integer optimum (empty when none is feasible)
  double cost = 0;
  double memory_words = 0;
  std::int64_t points_visited = 0;  // tile vectors evaluated
  std::int64_t feasible_points = 0;
  bool found = false;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(TileSearchResult, tiles, "optimal integer tile sizes"),
        COSTMETRICS_FIELD(TileSearchResult, cost, "their data movement cost"),
        COSTMETRICS_FIELD(TileSearchResult, memory_words, "their local memory (words)"),
        COSTMETRICS_FIELD(TileSearchResult, points_visited, "tile vectors evaluated"),
        COSTMETRICS_FIELD(TileSearchResult, feasible_points, "feasible tile vectors seen"),
        COSTMETRICS_FIELD(TileSearchResult, found, "whether any tile vector is feasible"));
  }
};

// Exact integer optimum by enumeration with pruning: the local memory is nondecreasing in
// every tile size, so once a prefix (t_1..t_d, 1, ..., 1) exceeds M_up no larger t_d can fit.
// Ties go to the lexicographically smallest tile vector. Refuses (std::overflow_error) to
// evaluate more than `max_points` tile vectors. `threads` <= 0: hardware concurrency.
// `candidates`, when not empty, restricts loop l to the strictly increasing values
// candidates[l] (e.g. powers of two); empty means every integer 1..N_l.
TileSearchResult integer_optimum(const TileProblem& problem,
                                 std::int64_t max_points = 50'000'000, int threads = 0,
                                 const std::vector<std::vector<std::int64_t>>& candidates = {});

}  // namespace costmetrics::scratchpad

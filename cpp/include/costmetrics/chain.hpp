// Matrix chain products: minimum op count, closed-form off-chip data movement for one and two
// fused matrix multiplications, and the hyper-node parenthesization of the minimum op-count
// tree (seed 000, Appendix D). Plus, beyond the seed, the exact Pareto front of
// (op count, off-chip words) over all parenthesizations and fusion choices.
//
// Conventions used throughout:
//   * A chain A1 ... An has dims P[0..n]; matrix Ai is P[i-1] x P[i]. Node <i,j> (1-based,
//     i <= j) is the product Ai...Aj, a P[i-1] x P[j] matrix.
//   * Op counts are scalar multiplications, exact integers.
//   * Data movement is counted in words (matrix elements) between off-chip and on-chip
//     memory; on-chip capacity M is in words. The closed forms involve sqrt(M) and so are
//     real numbers (double).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "costmetrics/record.hpp"

namespace costmetrics::chain {

// Largest chain the joint Pareto DP (pareto_front) accepts: its cost grows as n^4 times the
// front sizes (about 1 s at n = 32 on one core of a 2020s laptop).
inline constexpr int kMaxParetoMatrices = 32;
// Longest chain optimal_order() accepts: its tables take 16 (n+1)^2 bytes (64 MB).
inline constexpr int kMaxOrderMatrices = 2000;
// Capacities random_chain_reductions() and joint_comparisons() take in one call.
inline constexpr int kMaxCapacities = 16;
// Records (chains x capacities) one random_chain_reductions() or joint_comparisons() call
// returns: about 150 bytes each once in Python (2 M records measured at 0.37 GB), so at
// most about 2.5 GB.
inline constexpr std::int64_t kMaxChainRecords = std::int64_t{1} << 24;
// Default work per thread below which optimal_order() fills an anti-diagonal on one thread.
inline constexpr std::int64_t kDefaultMinWorkPerThread = std::int64_t{1} << 18;

// ---------------------------------------------------------------------------------------------
// Minimum op count (Algorithm 10, "OP-opcount").

struct OpOrder {
  std::vector<std::int64_t> dims;  // P[0..n]
  int n = 0;                       // number of matrices
  std::int64_t min_ops = 0;        // opcount[1][n], scalar multiplications
  // split[i * (n + 1) + j] = k, the optimal split of <i,j> (1 <= i < j <= n), else 0.
  std::vector<std::int32_t> split;

  int split_at(int i, int j) const { return split[static_cast<std::size_t>(i) * (n + 1) + j]; }

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(OpOrder, dims, "P0..Pn"),
        COSTMETRICS_FIELD(OpOrder, n, "number of matrices"),
        COSTMETRICS_FIELD(OpOrder, min_ops, "minimum op count, scalar multiplications"),
        COSTMETRICS_FIELD(OpOrder, split, "split[i*(n+1)+j] = optimal k of <i,j>, else 0"));
  }
  // dims and split consistent (a pickled or hand-built order).
  void validate() const;
};

// Throws std::invalid_argument for fewer than two dims, more than kMaxOrderMatrices matrices
// or a non-positive dim, and std::overflow_error when the minimum op count does not fit in
// 64 bits (intermediate candidates may exceed it: they are computed in saturating 128-bit
// arithmetic). Ties between splits go to the smallest k (the strict '<' of Algorithm 10, as
// NumPy's multi_dot also does). `threads` <= 0 means hardware concurrency, and more than
// the hardware has (at least 2) are not started; an anti-diagonal is split over threads
// only when each thread gets at least `min_work_per_thread` inner iterations (the default
// pays for thread start-up; 1 forces the threaded path).
OpOrder optimal_order(const std::vector<std::int64_t>& dims, int threads = 0,
                      std::int64_t min_work_per_thread = kDefaultMinWorkPerThread);

// "((A1(A2A3))((A4A5)A6))" for the tree given by `order.split`; "A1" for a single matrix.
std::string parenthesization(const OpOrder& order);

// One internal node of the minimum op-count tree. Nodes are listed bottom-up: sorted by height
// (a node whose children are both leaves has height 1), then by i, which reproduces the labels
// T1..T5 of Fig. D.10. `left`/`right` index into the same list, or are -1 for a leaf.
struct TreeNode {
  std::string label;  // "T1", "T2", ... in this order
  int i = 0, j = 0, k = 0;
  int height = 0;
  int left = -1, right = -1;
  int parent = -1;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(TreeNode, label, "T1, T2, ...: bottom-up by height, then i (Fig. D.10)"),
        COSTMETRICS_FIELD(TreeNode, i, "first matrix of the product Ai...Aj"),
        COSTMETRICS_FIELD(TreeNode, j, "last matrix"),
        COSTMETRICS_FIELD(TreeNode, k, "split: (Ai...Ak)(Ak+1...Aj)"),
        COSTMETRICS_FIELD(TreeNode, height, "1 when both children are input matrices"),
        COSTMETRICS_FIELD(TreeNode, left, "index of the left child node, -1 for a matrix"),
        COSTMETRICS_FIELD(TreeNode, right, "index of the right child node, -1 for a matrix"),
        COSTMETRICS_FIELD(TreeNode, parent, "index of the parent node, -1 for the root"));
  }
};
std::vector<TreeNode> tree_nodes(const OpOrder& order);

// ---------------------------------------------------------------------------------------------
// Single matrix multiply R = A1 A2, R is P0 x P2 (Eqs. D.2-D.6, Table D.2).

enum class Resident { Output = 0, Input1 = 1, Input2 = 2 };  // which matrix stays on chip

struct SingleMMCase {
  Resident resident = Resident::Output;
  // The two tile edges of the resident tile, with the problem dimension each one tiles:
  //   Output: x along P0, y along P2 (x = y = sqrt(M)).
  //   Input1: x along P0, z along P1 (x = sqrt(M/2), z = sqrt(2M)).
  //   Input2: z along P1, y along P2 (z = sqrt(2M), y = sqrt(M/2)).
  std::array<double, 2> tile{{0.0, 0.0}};
  std::array<std::string, 2> tile_dims;  // "P0", "P1" or "P2" per tile edge
  // Off-chip words at the closed-form optimum (D.3, D.5, D.6); empty when !valid.
  std::optional<double> words;
  // The closed form holds only when the resident tile fits inside the matrix it tiles (the
  // seed's "problem sizes larger than sqrt(M)"); otherwise the printed formula can go negative.
  bool valid = false;
  std::string reason;  // why not valid; empty when valid

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(SingleMMCase, resident, "matrix kept on chip: 'R', 'A1' or 'A2'"),
        COSTMETRICS_FIELD(SingleMMCase, tile, "edges of the resident tile, words"),
        COSTMETRICS_FIELD(SingleMMCase, tile_dims, "problem dimension each tile edge runs along"),
        COSTMETRICS_FIELD(SingleMMCase, words, "off-chip words (D.3/D.5/D.6); None if not valid"),
        COSTMETRICS_FIELD(SingleMMCase, valid, "the tile fits inside the matrix it tiles"),
        COSTMETRICS_FIELD(SingleMMCase, reason, "why not valid; empty when valid"));
  }
};

struct SingleMM {
  std::array<SingleMMCase, 3> cases;  // R, A1, A2 on chip
  std::optional<Resident> best;       // the valid case with the fewest words, if any

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(SingleMM, cases, "the cases R, A1, A2 (Table D.2), in this order"),
        COSTMETRICS_FIELD(SingleMM, best, "the valid case with the fewest words; None if none"));
  }
};

SingleMM single_mm(std::int64_t p0, std::int64_t p1, std::int64_t p2,
                   std::int64_t onchip_capacity_words);

// ---------------------------------------------------------------------------------------------
// Two fused multiplies R = A1 A2 A3 (Eqs. D.7-D.14, Table D.3).

// Which beta the right-fused closed form (D.12-D.14, D.22) uses. The seed defines
// beta = P0/P1, and every number it reports (App. D.7, Table D.1) follows from that. Minimizing
// the seed's own count D.11 instead gives beta = P0/P2 (D.11 regroups as
// P1P2P3 ((1+beta) x + (1+2 beta) y)/xy only for that beta). See docs/chain.md.
enum class BetaReading {
  Printed = 0,  // beta = P0/P1, as printed: reproduces the seed's numbers
  Derived = 1,  // beta = P0/P2, the minimizer of D.11
};

struct FusedTwoMM {
  double ratio = 0.0;        // alpha = P3/P1 (left) or beta = P0/P1 (right)
  double ratio_prime = 0.0;  // alpha' = (1+2 alpha)/(1+alpha), likewise beta'; in (1, 2)
  // Tile (x, y) of the on-chip intermediate T: x along T's rows, y along its columns.
  // Left fuse (T = A1A2, P0 x P2): x = sqrt(M/alpha'), y = sqrt(M alpha').
  // Right fuse (T = A2A3, P1 x P3): x = sqrt(M beta'), y = sqrt(M/beta').
  std::array<double, 2> tile{{0.0, 0.0}};
  std::optional<double> words;  // D.10 / D.14; empty when !valid
  bool valid = false;
  std::string reason;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(FusedTwoMM, ratio, "alpha = P3/P1 (left) or beta (right)"),
        COSTMETRICS_FIELD(FusedTwoMM, ratio_prime, "alpha' or beta' = (1+2r)/(1+r)"),
        COSTMETRICS_FIELD(FusedTwoMM, tile, "(x, y) tile of the on-chip intermediate T"),
        COSTMETRICS_FIELD(FusedTwoMM, words, "off-chip words (D.10/D.14); None if not valid"),
        COSTMETRICS_FIELD(FusedTwoMM, valid, "the tile fits inside T"),
        COSTMETRICS_FIELD(FusedTwoMM, reason, "why not valid; empty when valid"));
  }
};

struct TwoMM {
  FusedTwoMM left;   // (A1A2)A3 with T = A1A2 kept on chip
  FusedTwoMM right;  // A1(A2A3) with T = A2A3 kept on chip
  // The unfused counterparts, both products storing their output on chip (D.16, D.17);
  // empty unless every size exceeds sqrt(M).
  std::optional<double> unfused_left_words;
  std::optional<double> unfused_right_words;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(TwoMM, left, "(A1A2)A3 with T = A1A2 kept on chip (D.10)"),
        COSTMETRICS_FIELD(TwoMM, right, "A1(A2A3) with T = A2A3 kept on chip (D.14)"),
        COSTMETRICS_FIELD(TwoMM, unfused_left_words, "(A1A2)A3 unfused (D.16), words"),
        COSTMETRICS_FIELD(TwoMM, unfused_right_words, "A1(A2A3) unfused (D.17), words"));
  }
};

TwoMM two_mm(std::int64_t p0, std::int64_t p1, std::int64_t p2, std::int64_t p3,
             std::int64_t onchip_capacity_words, BetaReading beta_reading = BetaReading::Printed);

// ---------------------------------------------------------------------------------------------
// OP-DM (D.18) and the hyper-node parenthesization (D.19-D.26) over the minimum op-count tree.

enum class Fusion { None = 0, Left = 1, Right = 2 };

struct NodeCost {
  std::string label;                       // as in TreeNode
  int i = 0, j = 0, k = 0;
  int height = 0;
  int left = -1, right = -1, parent = -1;  // as in TreeNode
  double S = 0.0;                          // S(i,j), Eq. D.18
  double hp = 0.0;                         // Eq. D.20
  std::optional<double> hl, hr;            // Eqs. D.21, D.22 (absent when that child is a leaf)
  double Fp = 0.0;                         // Eq. D.24
  std::optional<double> Fl, Fr;            // Eqs. D.25, D.26
  double F = 0.0;                          // Eq. D.23
  Fusion choice = Fusion::None;            // argmin of D.23 at this node (ties: none, left, right)
  std::array<std::int64_t, 2> tile{{0, 0}};     // tile (x, y) of the output, rounded
  std::array<double, 2> tile_exact{{0.0, 0.0}};  // the same before rounding
  bool tile_fits = true;                   // the tile fits inside the fused intermediate
  // Top-down reading of the optimum: true when the parent's chosen fusion keeps this node on
  // chip, so this node is part of its parent's hyper-node and its own `choice` is not applied.
  bool absorbed = false;

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(NodeCost, label, "T1, T2, ... (Fig. D.10)"),
        COSTMETRICS_FIELD(NodeCost, i, "first matrix of the product Ai...Aj"),
        COSTMETRICS_FIELD(NodeCost, j, "last matrix"),
        COSTMETRICS_FIELD(NodeCost, k, "split: (Ai...Ak)(Ak+1...Aj)"),
        COSTMETRICS_FIELD(NodeCost, height, "1 when both children are input matrices"),
        COSTMETRICS_FIELD(NodeCost, left, "index of the left child node, -1 for a matrix"),
        COSTMETRICS_FIELD(NodeCost, right, "index of the right child node, -1 for a matrix"),
        COSTMETRICS_FIELD(NodeCost, parent, "index of the parent node, -1 for the root"),
        COSTMETRICS_FIELD(NodeCost, S, "S(i,j), Eq. D.18, words"),
        COSTMETRICS_FIELD(NodeCost, hp, "Eq. D.20, words"),
        COSTMETRICS_FIELD(NodeCost, hl, "Eq. D.21, words; None when the left child is a matrix"),
        COSTMETRICS_FIELD(NodeCost, hr, "Eq. D.22, words; None when the right child is a matrix"),
        COSTMETRICS_FIELD(NodeCost, Fp, "Eq. D.24, words"),
        COSTMETRICS_FIELD(NodeCost, Fl, "Eq. D.25, words; None when not applicable"),
        COSTMETRICS_FIELD(NodeCost, Fr, "Eq. D.26, words; None when not applicable"),
        COSTMETRICS_FIELD(NodeCost, F, "Eq. D.23, words"),
        COSTMETRICS_FIELD(NodeCost, choice, "argmin of D.23: 'none', 'left' or 'right'"),
        COSTMETRICS_FIELD(NodeCost, tile, "tile (x, y) of the output for `choice`, rounded"),
        COSTMETRICS_FIELD(NodeCost, tile_exact, "the same tile before rounding"),
        COSTMETRICS_FIELD(NodeCost, tile_fits, "the tile fits inside the matrix it tiles"),
        COSTMETRICS_FIELD(NodeCost, absorbed,
                          "the parent's applied fusion keeps this node on chip"));
  }
};

struct DataMovement {
  std::vector<std::int64_t> dims;    // P0..Pn
  std::int64_t M = 0;                // on-chip capacity, words
  BetaReading beta = BetaReading::Printed;
  std::int64_t op_count = 0;         // minimum op count of the tree
  std::string parenthesization;      // the minimum op-count tree
  double single_mm_total = 0.0;      // S(1,n), includes the final write P0*Pn
  double fused_internal = 0.0;       // F(1,n), excludes the final write
  double output_words = 0.0;         // P0*Pn
  double fused_total = 0.0;          // F(1,n) + P0*Pn
  double reduction_percent = 0.0;    // 100 (S - fused_total) / S
  std::string hypernode_parenthesization;  // fused pairs in braces, e.g. "({A1(A2A3)}{(A4A5)A6})"
  std::vector<NodeCost> nodes;       // bottom-up, as tree_nodes()

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(DataMovement, dims, "P0..Pn"),
        COSTMETRICS_FIELD(DataMovement, M, "on-chip capacity, words"),
        COSTMETRICS_FIELD(DataMovement, beta, "reading of beta: 'printed' or 'derived'"),
        COSTMETRICS_FIELD(DataMovement, op_count, "minimum op count of the tree"),
        COSTMETRICS_FIELD(DataMovement, parenthesization, "the minimum op-count tree"),
        COSTMETRICS_FIELD(DataMovement, single_mm_total, "S(1,n), Eq. D.18, incl. final write"),
        COSTMETRICS_FIELD(DataMovement, fused_internal, "F(1,n), Eq. D.23, excl. final write"),
        COSTMETRICS_FIELD(DataMovement, output_words, "P0*Pn, the final write"),
        COSTMETRICS_FIELD(DataMovement, fused_total, "F(1,n) + P0*Pn"),
        COSTMETRICS_FIELD(DataMovement, reduction_percent, "100 (S - fused_total) / S"),
        COSTMETRICS_FIELD(DataMovement, hypernode_parenthesization,
                          "the tree with each fused pair in braces"),
        COSTMETRICS_FIELD(DataMovement, nodes, "one record per internal node, bottom-up"));
  }
};

// Requires at least two matrices and every dim > sqrt(M) (the seed's validity condition for
// the closed forms); throws std::invalid_argument (fewer than two matrices) or
// std::domain_error otherwise.
DataMovement data_movement(const std::vector<std::int64_t>& dims,
                           std::int64_t onchip_capacity_words,
                           BetaReading beta_reading = BetaReading::Printed, int threads = 1);

// ---------------------------------------------------------------------------------------------
// Beyond the seed: the joint problem over all trees and fusion choices.

struct ParetoPoint {
  std::int64_t ops = 0;   // scalar multiplications of the tree
  double words = 0.0;     // off-chip words, including the final write P0*Pn
  std::string plan;       // parenthesization with fused pairs in braces

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(ParetoPoint, ops, "scalar multiplications of the tree"),
        COSTMETRICS_FIELD(ParetoPoint, words, "off-chip words, including the final write"),
        COSTMETRICS_FIELD(ParetoPoint, plan, "parenthesization with fused pairs in braces"));
  }
};

// Exact Pareto front of (ops, words), ops ascending and words strictly descending.
// Dims must satisfy the data_movement() condition, with at most kMaxParetoMatrices matrices
// (the cost grows as n^4 times the front sizes); std::invalid_argument otherwise.
std::vector<ParetoPoint> pareto_front(const std::vector<std::int64_t>& dims,
                                      std::int64_t onchip_capacity_words,
                                      BetaReading beta_reading = BetaReading::Printed);

// ---------------------------------------------------------------------------------------------
// Random chains (Table D.1) and the joint-versus-fixed-tree comparison.
// Limits (validate()): 2 <= n_min <= n_max <= 1000 (n_max <= kMaxParetoMatrices for the
// joint comparison), 1 <= chains_per_length <= 10^6, 1 to kMaxCapacities (16) capacities,
// at most kMaxChainRecords (2^24) records in all: lengths x chains_per_length x capacities.

enum class DimDistribution {
  UniformStep = 0,  // uniform over the multiples of `step` in [lo, hi]
  LogUniform = 1,   // exp(uniform(log lo, log hi)), rounded to the nearest multiple of step
};

struct RandomChainSpec {
  std::int64_t n_min = 2, n_max = 20;  // 64-bit so that validate() names any value
  int chains_per_length = 1000;
  std::vector<std::int64_t> capacities_words{65536, 98304};
  DimDistribution distribution = DimDistribution::UniformStep;
  std::int64_t lo = 320, hi = 1024, step = 8;
  std::uint64_t seed = 2024;
  BetaReading beta_reading = BetaReading::Printed;
  int threads = 0;

  void validate() const;
};

// Dims of chain `index` of length n: a pure function of (spec.seed, n, index), so results do
// not depend on the thread count.
std::vector<std::int64_t> random_chain(const RandomChainSpec& spec, int n, int index);

// One synthetic chain of the Table D.1 experiment at one capacity. The statistics over
// chains (Table D.1's average, min, max) are computed by the experiment
// (python/costmetrics/experiments/chain.py).
struct ChainReduction {
  int n = 0;                     // chain length
  int index = 0;                 // chain number, 0-based
  std::int64_t M = 0;            // on-chip capacity, words
  double reduction_percent = 0;  // of F(1,n) + P0Pn over S(1,n)

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(ChainReduction, n, "chain length"),
        COSTMETRICS_FIELD(ChainReduction, index, "chain number, 0-based"),
        COSTMETRICS_FIELD(ChainReduction, M, "on-chip capacity, words"),
        COSTMETRICS_FIELD(ChainReduction, reduction_percent, "% of F(1,n)+P0Pn below S(1,n)"));
  }
};

// Every chain of lengths n_min..n_max (chains_per_length each) at every capacity, in the
// order capacity, n, index. Multi-threaded over chains.
std::vector<ChainReduction> random_chain_reductions(const RandomChainSpec& spec);

// One synthetic chain: the joint Pareto front against the fixed minimum-op tree.
struct JointComparison {
  int n = 0;
  int index = 0;
  std::int64_t M = 0;
  double traffic_gain_percent = 0;  // % fewer words at the joint min-words point than F + P0Pn
  double ops_increase_percent = 0;  // % more ops at that point than the minimum op count
  int front_size = 0;               // Pareto points

  static constexpr auto fields() {
    return std::make_tuple(
        COSTMETRICS_FIELD(JointComparison, n, "chain length"),
        COSTMETRICS_FIELD(JointComparison, index, "chain number, 0-based"),
        COSTMETRICS_FIELD(JointComparison, M, "on-chip capacity, words"),
        COSTMETRICS_FIELD(JointComparison, traffic_gain_percent,
                          "% fewer words at the joint minimum-words point than F(1,n)+P0Pn"),
        COSTMETRICS_FIELD(JointComparison, ops_increase_percent,
                          "% more ops at that point than the minimum op count"),
        COSTMETRICS_FIELD(JointComparison, front_size, "number of Pareto points"));
  }
};

std::vector<JointComparison> joint_comparisons(const RandomChainSpec& spec);

}  // namespace costmetrics::chain

namespace costmetrics {
template <>
struct enum_names<chain::Resident> {
  static constexpr std::array<std::pair<chain::Resident, const char*>, 3> values{
      {{chain::Resident::Output, "R"},
       {chain::Resident::Input1, "A1"},
       {chain::Resident::Input2, "A2"}}};
};
template <>
struct enum_names<chain::Fusion> {
  static constexpr std::array<std::pair<chain::Fusion, const char*>, 3> values{
      {{chain::Fusion::None, "none"}, {chain::Fusion::Left, "left"}, {chain::Fusion::Right, "right"}}};
};
template <>
struct enum_names<chain::BetaReading> {
  static constexpr std::array<std::pair<chain::BetaReading, const char*>, 2> values{
      {{chain::BetaReading::Printed, "printed"}, {chain::BetaReading::Derived, "derived"}}};
};
template <>
struct enum_names<chain::DimDistribution> {
  static constexpr std::array<std::pair<chain::DimDistribution, const char*>, 2> values{
      {{chain::DimDistribution::UniformStep, "uniform"},
       {chain::DimDistribution::LogUniform, "loguniform"}}};
};
}  // namespace costmetrics

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

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace costmetrics::chain {

// ---------------------------------------------------------------------------------------------
// Minimum op count (Algorithm 10, "OP-opcount").

struct OpOrder {
  std::vector<std::int64_t> dims;  // P[0..n]
  int n = 0;                       // number of matrices
  std::int64_t min_ops = 0;        // opcount[1][n], scalar multiplications
  // split[i * (n + 1) + j] = k, the optimal split of <i,j> (1 <= i < j <= n), else 0.
  std::vector<std::int32_t> split;

  int split_at(int i, int j) const { return split[static_cast<std::size_t>(i) * (n + 1) + j]; }
};

// Throws std::invalid_argument for fewer than two dims or a non-positive dim, and
// std::overflow_error when the minimum op count does not fit in 64 bits. Ties between splits
// go to the smallest k (the strict '<' of Algorithm 10, as NumPy's multi_dot also does).
// `threads` <= 0 means hardware concurrency; the anti-diagonals are split over threads only
// when a diagonal carries enough work to pay for thread start-up.
OpOrder optimal_order(const std::vector<std::int64_t>& dims, int threads = 0);

// "((A1(A2A3))((A4A5)A6))" for the tree given by `order.split`; "A1" for a single matrix.
std::string parenthesization(const OpOrder& order);

// One internal node of the minimum op-count tree. Nodes are listed bottom-up: sorted by height
// (a node whose children are both leaves has height 1), then by i, which reproduces the labels
// T1..T5 of Fig. D.10. `left`/`right` index into the same list, or are -1 for a leaf.
struct TreeNode {
  int i = 0, j = 0, k = 0;
  int height = 0;
  int left = -1, right = -1;
  int parent = -1;
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
  double tile1 = 0.0, tile2 = 0.0;
  // Off-chip words at the closed-form optimum (D.3, D.5, D.6). NaN when !valid.
  double words = 0.0;
  // The closed form holds only when the resident tile fits inside the matrix it tiles (the
  // seed's "problem sizes larger than sqrt(M)"); otherwise the printed formula can go negative.
  bool valid = false;
  std::string reason;  // why not valid; empty when valid
};

struct SingleMM {
  SingleMMCase cases[3];
  int best = -1;  // index of the valid case with the fewest words, -1 when none is valid
};

SingleMM single_mm(std::int64_t p0, std::int64_t p1, std::int64_t p2,
                   std::int64_t onchip_capacity_words);

// ---------------------------------------------------------------------------------------------
// Two fused multiplies R = A1 A2 A3 (Eqs. D.7-D.14, Table D.3).

// Which beta the right-fused closed form (D.12-D.14, D.22) uses. The seed defines
// beta = P0/P1, and every number it reports (App. D.7, Table D.1) follows from that. Minimizing
// the seed's own count D.11 instead gives beta = P0/P2 (D.11 regroups as
// P1P2P3 ((1+beta) x + (1+2 beta) y)/xy only for that beta). See docs/matrix-chain.md.
enum class BetaReading {
  Printed = 0,  // beta = P0/P1, as printed: reproduces the seed's numbers
  Derived = 1,  // beta = P0/P2, the minimizer of D.11
};

struct FusedTwoMM {
  double ratio = 0.0;        // alpha = P3/P1 (left) or beta = P0/P1 (right)
  double ratio_prime = 0.0;  // alpha' = (1+2 alpha)/(1+alpha), likewise beta'; in (1, 2)
  // Tile of the on-chip intermediate T: x along T's rows, y along its columns.
  // Left fuse (T = A1A2, P0 x P2): x = sqrt(M/alpha'), y = sqrt(M alpha').
  // Right fuse (T = A2A3, P1 x P3): x = sqrt(M beta'), y = sqrt(M/beta').
  double tile_x = 0.0, tile_y = 0.0;
  double words = 0.0;  // D.10 / D.14; NaN when !valid
  bool valid = false;
  std::string reason;
};

struct TwoMM {
  FusedTwoMM left;   // (A1A2)A3 with T = A1A2 kept on chip
  FusedTwoMM right;  // A1(A2A3) with T = A2A3 kept on chip
  // The unfused counterparts, both products storing their output on chip (D.16, D.17).
  double unfused_left_words = 0.0;
  double unfused_right_words = 0.0;
  bool unfused_valid = false;
};

TwoMM two_mm(std::int64_t p0, std::int64_t p1, std::int64_t p2, std::int64_t p3,
             std::int64_t onchip_capacity_words, BetaReading beta_reading = BetaReading::Printed);

// ---------------------------------------------------------------------------------------------
// OP-DM (D.18) and the hyper-node parenthesization (D.19-D.26) over the minimum op-count tree.

enum class Fusion { None = 0, Left = 1, Right = 2 };

struct NodeCost {
  int i = 0, j = 0, k = 0;
  int height = 0;
  int left = -1, right = -1, parent = -1;  // as in TreeNode
  double single_mm = 0.0;                  // S(i,j), Eq. D.18
  double hp = 0.0;                         // Eq. D.20
  std::optional<double> hl, hr;            // Eqs. D.21, D.22 (absent when that child is a leaf)
  double Fp = 0.0;                         // Eq. D.24
  std::optional<double> Fl, Fr;            // Eqs. D.25, D.26
  double F = 0.0;                          // Eq. D.23
  Fusion choice = Fusion::None;            // argmin of D.23 at this node (ties: none, left, right)
  double tile_x = 0.0, tile_y = 0.0;       // tile of this node's output for `choice`
  bool tile_fits = true;                   // the tile fits inside the fused intermediate
  // Top-down reading of the optimum: true when the parent's chosen fusion keeps this node on
  // chip, so this node is part of its parent's hyper-node and its own `choice` is not applied.
  bool absorbed = false;
};

struct DataMovement {
  OpOrder order;
  std::vector<NodeCost> nodes;  // bottom-up, as tree_nodes()
  double single_mm_total = 0.0;      // S(1,n), includes the final write P0*Pn
  double fused_internal = 0.0;       // F(1,n), excludes the final write
  double output_words = 0.0;         // P0*Pn
  double fused_total = 0.0;          // F(1,n) + P0*Pn
  double reduction_percent = 0.0;    // 100 (S - fused_total) / S
  std::string hypernode_parenthesization;  // fused pairs in braces, e.g. "({A1(A2A3)}{(A4A5)A6})"
};

// Requires every dim > sqrt(M) (the seed's validity condition for the closed forms);
// throws std::domain_error otherwise.
DataMovement data_movement(const std::vector<std::int64_t>& dims,
                           std::int64_t onchip_capacity_words,
                           BetaReading beta_reading = BetaReading::Printed, int threads = 1);

// ---------------------------------------------------------------------------------------------
// Beyond the seed: the joint problem over all trees and fusion choices.

struct ParetoPoint {
  std::int64_t ops = 0;   // scalar multiplications of the tree
  double words = 0.0;     // off-chip words, including the final write P0*Pn
  std::string plan;       // parenthesization with fused pairs in braces
};

// Exact Pareto front of (ops, words), ops ascending and words strictly descending.
// Dims must satisfy the data_movement() condition. Cost grows as n^4 times the front sizes;
// intended for n <= 20-ish.
std::vector<ParetoPoint> pareto_front(const std::vector<std::int64_t>& dims,
                                      std::int64_t onchip_capacity_words,
                                      BetaReading beta_reading = BetaReading::Printed);

// ---------------------------------------------------------------------------------------------
// Random chains (Table D.1) and the joint-versus-fixed-tree comparison.

enum class DimDistribution {
  UniformStep = 0,  // uniform over the multiples of `step` in [lo, hi]
  LogUniform = 1,   // exp(uniform(log lo, log hi)), rounded to the nearest multiple of step
};

struct RandomChainSpec {
  int n_min = 2, n_max = 20;
  int chains_per_length = 1000;
  std::vector<std::int64_t> capacities_words{65536, 98304};
  DimDistribution distribution = DimDistribution::UniformStep;
  std::int64_t lo = 320, hi = 1024, step = 8;
  std::uint64_t seed = 2024;
  BetaReading beta_reading = BetaReading::Printed;
  int threads = 0;
};

// Dims of chain `index` of length n: a pure function of (spec.seed, n, index), so results do
// not depend on the thread count.
std::vector<std::int64_t> random_chain(const RandomChainSpec& spec, int n, int index);

struct ReductionStats {
  int n = 0;  // chain length; 0 for the all-lengths row
  double avg = 0.0, min = 0.0, max = 0.0;  // % reduction of F(1,n)+P0Pn over S(1,n)
  int chains = 0;
};

struct RandomChainTable {
  std::vector<std::int64_t> capacities_words;
  // rows[c] for capacity c: one entry per n, then the overall row (n = 0).
  std::vector<std::vector<ReductionStats>> rows;
};

RandomChainTable random_chain_experiment(const RandomChainSpec& spec);

struct JointStats {
  int n = 0;  // 0 for the all-lengths row
  int chains = 0;
  // % traffic reduction of the joint minimum-traffic point over the fixed-tree F total.
  double avg_traffic_gain = 0.0, max_traffic_gain = 0.0;
  // % op-count increase of that minimum-traffic point over the minimum op count.
  double avg_ops_increase = 0.0, max_ops_increase = 0.0;
  double avg_front_size = 0.0;
  int chains_with_gain = 0;  // chains where the joint optimum beats the fixed tree by > 1e-9
};

// For each capacity: per-length and overall statistics of the joint Pareto front against the
// fixed minimum-op tree.
std::vector<std::vector<JointStats>> joint_experiment(const RandomChainSpec& spec);

}  // namespace costmetrics::chain

// Unit tests for the matrix-chain models (seed 000, Appendix D).
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "costmetrics/chain.hpp"

using namespace costmetrics::chain;

namespace {

// Brute force over all parenthesizations, for cross-checking OP-opcount.
std::int64_t brute_min_ops(const std::vector<std::int64_t>& p, int i, int j) {
  if (i == j) return 0;
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  for (int k = i; k < j; ++k) {
    const std::int64_t c =
        brute_min_ops(p, i, k) + brute_min_ops(p, k + 1, j) + p[i - 1] * p[k] * p[j];
    if (c < best) best = c;
  }
  return best;
}

const std::vector<std::int64_t> kD7{936, 1008, 552, 368, 1016, 616, 544};  // 000 App. D.7

void test_d7() {
  // 000 App. D.7: tree, op count, S(1,6), F(1,6) + P0*P6 and the table of Fig. D.11.
  const OpOrder order = optimal_order(kD7);
  CHECK(order.min_ops == 1092977664);
  CHECK(parenthesization(order) == "((A1(A2A3))((A4A5)A6))");

  const DataMovement dm = data_movement(kD7, 65536);
  CHECK(dm.single_mm_total == 10190344.0);  // exact: every term is an integer here
  CHECK(std::floor(dm.fused_internal) == 7882874.0);
  CHECK(dm.output_words == 509184.0);
  CHECK(std::floor(dm.fused_total) == 8392058.0);
  CHECK(std::round(dm.reduction_percent * 10) == 176.0);  // 17.6 %
  CHECK(dm.hypernode_parenthesization == "({A1(A2A3)}{(A4A5)A6})");

  // Fig. D.11, values in units of 1e5 words (the caption says 1e4; see docs).
  struct Row {
    int i, j;
    double hp, hl, hr, Fp, Fl, Fr, F;  // -1 = absent
    Fusion choice;
    int tile_x, tile_y;
  };
  const Row rows[] = {
      {2, 3, 16, -1, -1, 16, -1, -1, 16, Fusion::None, 256, 256},   // T1
      {4, 5, 18, -1, -1, 18, -1, -1, 18, Fusion::None, 256, 256},   // T2
      {1, 3, 31, -1, 31, 47, -1, 31, 31, Fusion::Right, 312, 210},  // T3
      {4, 6, 12, 28, -1, 30, 28, -1, 28, Fusion::Left, 220, 297},   // T4 (seed prints y = 296)
      {1, 6, 20, 44, 40, 79, 88, 89, 79, Fusion::None, 256, 256},   // T5
  };
  CHECK(dm.nodes.size() == 5);
  auto scaled = [](double v) { return std::round(v / 1e5); };
  auto opt = [&](const std::optional<double>& v) { return v ? scaled(*v) : -1.0; };
  for (std::size_t t = 0; t < 5 && t < dm.nodes.size(); ++t) {
    const NodeCost& nc = dm.nodes[t];
    const Row& r = rows[t];
    CHECK(nc.i == r.i && nc.j == r.j);
    CHECK(scaled(nc.hp) == r.hp);
    CHECK(opt(nc.hl) == r.hl);
    CHECK(opt(nc.hr) == r.hr);
    CHECK(scaled(nc.Fp) == r.Fp);
    CHECK(opt(nc.Fl) == r.Fl);
    CHECK(opt(nc.Fr) == r.Fr);
    CHECK(scaled(nc.F) == r.F);
    CHECK(nc.choice == r.choice);
    CHECK(nc.tile[0] == r.tile_x && std::lround(nc.tile_exact[0]) == r.tile_x);
    CHECK(nc.tile[1] == r.tile_y && std::lround(nc.tile_exact[1]) == r.tile_y);
  }
  CHECK(dm.nodes[0].absorbed && dm.nodes[1].absorbed);
  CHECK(!dm.nodes[2].absorbed && !dm.nodes[3].absorbed && !dm.nodes[4].absorbed);
  // Derived beta reading (docs/chain.md): right-fusing T3 no longer pays (48 > 47 in
  // units of 1e5), and T5 fuses with T3 on the left instead.
  const DataMovement dd = data_movement(kD7, 65536, BetaReading::Derived);
  CHECK(dd.single_mm_total == dm.single_mm_total);
  CHECK(dd.nodes[2].choice == Fusion::None && std::round(*dd.nodes[2].Fr / 1e5) == 48);
  CHECK(dd.nodes[4].choice == Fusion::Left);
  CHECK(std::floor(dd.fused_total) == 9323278.0);
  CHECK(dd.hypernode_parenthesization == "{(A1(A2A3)){(A4A5)A6}}");
  // Fp(T5) = F(T3) + F(T4) + hp(T5), the sum spelled out in App. D.7.
  CHECK_CLOSE(dm.nodes[4].Fp, dm.nodes[2].F + dm.nodes[3].F + dm.nodes[4].hp, 1e-12);
}

void test_opcount() {
  // Against brute force on small chains.
  const std::vector<std::vector<std::int64_t>> chains{
      {10, 20}, {10, 20, 30}, {30, 35, 15, 5, 10, 20, 25}, {5, 1, 7, 2, 9, 3, 8, 4}, kD7};
  for (const auto& p : chains) {
    const int n = static_cast<int>(p.size()) - 1;
    CHECK(optimal_order(p).min_ops == brute_min_ops(p, 1, n));
  }
  // CLRS 15.2: 15,125 for <30,35,15,5,10,20,25>, ((A1(A2A3))((A4A5)A6)).
  const OpOrder clrs = optimal_order({30, 35, 15, 5, 10, 20, 25});
  CHECK(clrs.min_ops == 15125);
  CHECK(parenthesization(clrs) == "((A1(A2A3))((A4A5)A6))");
  CHECK(parenthesization(optimal_order({7, 3})) == "A1");
  CHECK(optimal_order({7, 3}).min_ops == 0);
  // Threaded and single-threaded fills agree on a long chain.
  std::vector<std::int64_t> longp;
  for (int t = 0; t < 400; ++t) longp.push_back(1 + (t * 7919) % 997);
  const OpOrder a = optimal_order(longp, 1), b = optimal_order(longp, 4);
  CHECK(a.min_ops == b.min_ops);
  CHECK(a.split == b.split);
  // The same with the threshold lowered so that every anti-diagonal really is split over
  // threads (the default starts threads only for n >= ~1500).
  const OpOrder c = optimal_order(longp, 4, 1);
  CHECK(a.min_ops == c.min_ops);
  CHECK(a.split == c.split);
  CHECK_THROWS(optimal_order(longp, 2, 0), std::invalid_argument);
  // Issue 6: 2^43 * 1 * 1 = 2^43 fits, although (n-1) max(P)^3 overflows even 128 bits.
  const std::int64_t p43 = std::int64_t{1} << 43;
  CHECK(optimal_order({p43, 1, 1}).min_ops == p43);
  CHECK(optimal_order({p43, 1, 1}, 2, 1).min_ops == p43);
  // The 128-bit path: values above 2^63 in candidates, but a result that fits.
  const std::int64_t big = 1500000;  // big^3 = 3.4e18, (n-1) * big^3 > 2^63
  const OpOrder wide = optimal_order({big, big, big, 1});
  CHECK(wide.min_ops == big * big * 1 + big * big * 1);
  CHECK(parenthesization(wide) == "(A1(A2A3))");
  // A result that does not fit in 64 bits is an error, never a wrong answer.
  CHECK_THROWS(optimal_order({3000000, 3000000, 3000000}), std::overflow_error);
  CHECK_THROWS(optimal_order({std::int64_t{1} << 62, std::int64_t{1} << 62, 2}),
               std::overflow_error);
  try {  // the message names the argument and its value
    optimal_order({3000000, 3000000, 3000000});
    CHECK(false);
  } catch (const std::overflow_error& e) {
    CHECK(std::string(e.what()).rfind("dims: ", 0) == 0);
    CHECK(std::string(e.what()).find("[3000000, 3000000, 3000000]") != std::string::npos);
  }
  CHECK_THROWS(optimal_order({5}), std::invalid_argument);
  CHECK_THROWS(optimal_order({}), std::invalid_argument);
  CHECK_THROWS(optimal_order({5, 0, 3}), std::invalid_argument);
  CHECK_THROWS(optimal_order({5, -2, 3}), std::invalid_argument);
}

void test_tree() {
  const auto tree = tree_nodes(optimal_order(kD7));
  CHECK(tree.size() == 5);
  CHECK(tree[4].i == 1 && tree[4].j == 6 && tree[4].k == 3 && tree[4].parent == -1);
  CHECK(tree[4].left == 2 && tree[4].right == 3);
  CHECK(tree[2].left == -1 && tree[2].right == 0 && tree[0].parent == 2);
  CHECK(tree[3].left == 1 && tree[3].right == -1 && tree[1].parent == 3);
}

void test_single_mm() {
  // Fig. D.3 example: P0 = 60, P2 = 50, M = 64 gives x = y = 8.
  const SingleMM s = single_mm(60, 40, 50, 64);
  CHECK(s.cases[0].valid);
  CHECK(s.cases[0].tile[0] == 8.0 && s.cases[0].tile[1] == 8.0);
  CHECK_CLOSE(*s.cases[0].words, 2.0 * 60 * 40 * 50 / 8 + 60 * 50, 1e-12);  // D.3
  CHECK_CLOSE(*s.cases[1].words, 2 * std::sqrt(2.0) * 60 * 40 * 50 / 8 + 60 * 40 - 60 * 50,
              1e-12);  // D.5
  CHECK_CLOSE(*s.cases[2].words, 2 * std::sqrt(2.0) * 60 * 40 * 50 / 8 + 40 * 50 - 60 * 50,
              1e-12);  // D.6
  CHECK(s.best == Resident::Output);
  // Outside the closed-form range (P1 = 1, App. D.2): flagged, never a negative count.
  const SingleMM bad = single_mm(1000, 1, 1000, 65536);
  CHECK(!bad.cases[1].valid && !bad.cases[1].words);
  CHECK(!bad.cases[2].valid && !bad.cases[2].words);
  CHECK(bad.cases[0].valid);
  const SingleMM tiny = single_mm(10, 10, 10, 65536);
  CHECK(!tiny.best);
  for (const auto& c : tiny.cases) CHECK(!c.valid && !c.reason.empty());
  CHECK_THROWS(single_mm(0, 1, 1, 64), std::invalid_argument);
  CHECK_THROWS(single_mm(1, 1, 1, 0), std::invalid_argument);
}

void test_two_mm() {
  // T4 of App. D.7: (A4A5)A6 with P = 368, 1016, 616, 544.
  const TwoMM t = two_mm(368, 1016, 616, 544, 65536);
  CHECK(t.left.valid);
  CHECK_CLOSE(t.left.ratio, 544.0 / 1016.0, 1e-15);
  CHECK_CLOSE(t.left.ratio_prime, (1 + 2 * t.left.ratio) / (1 + t.left.ratio), 1e-15);
  CHECK_CLOSE(t.left.tile[0] * t.left.tile[1], 65536.0, 1e-12);
  CHECK_CLOSE(t.left.tile[1] / t.left.tile[0], t.left.ratio_prime, 1e-12);
  // D.10 equals D.7 evaluated at the tile: P0P1P2 (x+y)/xy + P0P2P3 (2x+y)/xy - P0P3.
  const double x = t.left.tile[0], y = t.left.tile[1];
  const double d7 = 368.0 * 1016 * 616 * (x + y) / (x * y) +
                    368.0 * 616 * 544 * (2 * x + y) / (x * y) - 368.0 * 544;
  CHECK_CLOSE(*t.left.words, d7, 1e-12);
  // ... and any other tile of the same area does worse.
  const double x2 = x * 1.1, y2 = 65536.0 / x2;
  CHECK(368.0 * 1016 * 616 * (x2 + y2) / (x2 * y2) +
            368.0 * 616 * 544 * (2 * x2 + y2) / (x2 * y2) - 368.0 * 544 >
        *t.left.words);
  CHECK(*t.left.words < *t.unfused_left_words);  // fusion saves the intermediate's round trip
  // Right fuse, T3 of App. D.7: A1(A2A3) with P = 936, 1008, 552, 368.
  // Printed reading (beta = P0/P1): the seed's tile (312, 210), and D.14 as printed.
  const TwoMM r = two_mm(936, 1008, 552, 368, 65536);
  CHECK(r.right.valid);
  CHECK(std::lround(r.right.tile[0]) == 312 && std::lround(r.right.tile[1]) == 210);
  const double beta = 936.0 / 1008.0, beta_p = (1 + 2 * beta) / (1 + beta);
  CHECK_CLOSE(*r.right.words,
              2.0 * 1008 * 552 * 368 * (1 + beta) * std::sqrt(beta_p) / 256 - 936.0 * 368, 1e-12);
  // Derived reading (beta = P0/P2): D.14 equals D.11 at its tile, the minimum of D.11.
  auto d11 = [](double x, double y) {
    return 1008.0 * 552 * 368 * (x + y) / (x * y) + 936.0 * 1008 * 368 * (x + 2 * y) / (x * y) -
           936.0 * 368;
  };
  const TwoMM rd = two_mm(936, 1008, 552, 368, 65536, BetaReading::Derived);
  CHECK_CLOSE(rd.right.ratio, 936.0 / 552.0, 1e-15);
  CHECK_CLOSE(*rd.right.words, d11(rd.right.tile[0], rd.right.tile[1]), 1e-12);
  CHECK(d11(rd.right.tile[0] * 1.05, rd.right.tile[1] / 1.05) > *rd.right.words);
  CHECK(d11(rd.right.tile[0] / 1.05, rd.right.tile[1] * 1.05) > *rd.right.words);
  // The printed reading's count sits below the true minimum of D.11 here.
  CHECK(*r.right.words < *rd.right.words);
  CHECK(d11(r.right.tile[0], r.right.tile[1]) > *rd.right.words);
  // Fused intermediate larger than its matrix: flagged.
  const TwoMM small = two_mm(100, 1000, 100, 1000, 65536);
  CHECK(!small.left.valid && !small.left.words);
  CHECK_THROWS(two_mm(1, 2, 3, -4, 64), std::invalid_argument);
}

void test_data_movement_rules() {
  CHECK_THROWS(data_movement({936, 200, 552}, 65536), std::domain_error);  // 200 < sqrt(M)
  CHECK_THROWS(data_movement({936, 1008, 552}, -1), std::invalid_argument);
  // Issue 6: a single matrix used to report fused_total 0 beside output_words P0*P1.
  CHECK_THROWS(data_movement({936, 1008}, 65536), std::invalid_argument);
  // n = 2: nothing can be fused, F + P0P2 = S.
  const DataMovement two = data_movement({1000, 2000, 3000}, 65536);
  CHECK_CLOSE(two.fused_total, two.single_mm_total, 1e-15);
  CHECK(two.reduction_percent == 0.0);
  // F <= S always (no fusion is one of the choices).
  RandomChainSpec spec;
  for (int t = 0; t < 200; ++t) {
    const auto dims = random_chain(spec, 2 + t % 15, t);
    const DataMovement dm = data_movement(dims, 65536);
    CHECK(dm.fused_total <= dm.single_mm_total * (1 + 1e-12));
    // Exactly one node is the root; absorbed nodes are never absorbed twice over a fused edge.
    for (const auto& nc : dm.nodes) {
      if (nc.absorbed) CHECK(nc.parent >= 0 && !dm.nodes[nc.parent].absorbed);
    }
  }
}

void test_pareto() {
  const auto front = pareto_front(kD7, 65536);
  CHECK(!front.empty());
  // The cheapest-op point is the min-op tree; its traffic cannot exceed the fixed-tree optimum.
  const DataMovement dm = data_movement(kD7, 65536);
  CHECK(front.front().ops == 1092977664);
  CHECK(front.front().words <= dm.fused_total * (1 + 1e-12));
  for (std::size_t t = 1; t < front.size(); ++t) {
    CHECK(front[t].ops > front[t - 1].ops);
    CHECK(front[t].words < front[t - 1].words);
  }
  // Structural checks on small chains (the brute-force comparison of whole fronts, over every
  // tree and every legal set of fused edges, is in tests/test_chain.py).
  RandomChainSpec spec;
  for (int t = 0; t < 20; ++t) {
    const int n = 3 + t % 4;
    const auto dims = random_chain(spec, n, 1000 + t);
    const auto fr = pareto_front(dims, 65536);
    // The min-op point matches OP-opcount.
    CHECK(fr.front().ops == optimal_order(dims).min_ops);
    // Its plan string names every matrix once.
    for (const auto& p : fr) {
      int count = 0;
      for (char ch : p.plan) count += ch == 'A' ? 1 : 0;
      CHECK(count == n);
    }
  }
  CHECK_THROWS(pareto_front({100, 200, 300}, 65536), std::domain_error);
  CHECK_THROWS(pareto_front({std::int64_t{1} << 62, std::int64_t{1} << 62, std::int64_t{1} << 62},
                            65536),
               std::overflow_error);
  CHECK_THROWS(pareto_front({1000, 2000}, 100), std::invalid_argument);  // one matrix
  CHECK_THROWS(pareto_front(std::vector<std::int64_t>(kMaxParetoMatrices + 2, 1000), 65536),
               std::invalid_argument);
}

void test_random_experiment() {
  RandomChainSpec spec;
  spec.n_min = 2;
  spec.n_max = 6;
  spec.chains_per_length = 50;
  spec.threads = 2;
  const auto values = random_chain_reductions(spec);
  CHECK(values.size() == 2 * 5 * 50);  // capacities x lengths x chains
  CHECK(values[0].n == 2 && values[0].index == 0 && values[0].M == 65536);
  CHECK(values.back().n == 6 && values.back().index == 49 && values.back().M == 98304);
  for (const auto& v : values) {
    CHECK(v.reduction_percent >= 0.0 && v.reduction_percent < 100.0);
    if (v.n == 2) CHECK(v.reduction_percent == 0.0);  // nothing to fuse with one product
  }
  spec.threads = 1;
  const auto again = random_chain_reductions(spec);
  bool same = again.size() == values.size();
  for (std::size_t t = 0; same && t < values.size(); ++t) {
    same = again[t].reduction_percent == values[t].reduction_percent;  // thread-independent
  }
  CHECK(same);
  // Dims follow the distribution.
  spec.distribution = DimDistribution::LogUniform;
  for (int t = 0; t < 100; ++t) {
    for (auto d : random_chain(spec, 10, t)) CHECK(d >= 320 && d <= 1024 && d % 8 == 0);
  }
  spec.n_min = 1;
  CHECK_THROWS(random_chain_reductions(spec), std::invalid_argument);
  spec.n_min = 2;
  spec.n_max = kMaxParetoMatrices + 1;
  CHECK_THROWS(joint_comparisons(spec), std::invalid_argument);
  spec.n_max = std::int64_t{1} << 31;  // beyond a 32-bit int: still "lengths: ..."
  CHECK_THROWS(joint_comparisons(spec), std::invalid_argument);
  CHECK_THROWS(random_chain_reductions(spec), std::invalid_argument);
}

}  // namespace

int main() {
  test_d7();
  test_opcount();
  test_tree();
  test_single_mm();
  test_two_mm();
  test_data_movement_rules();
  test_pareto();
  test_random_experiment();
  return cm_test::report("chain");
}

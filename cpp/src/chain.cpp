// Matrix chain products (seed 000, Appendix D). See chain.hpp for conventions and
// docs/chain.md for every recurrence as implemented and the readings chosen.
#include "costmetrics/chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "costmetrics/checked.hpp"
#include "costmetrics/parallel.hpp"

namespace costmetrics::chain {

namespace {

__extension__ typedef __int128 i128;  // GCC/Clang extension; exact 128-bit accumulation

void validate_dims(const std::vector<std::int64_t>& dims) {
  if (dims.size() < 2) {
    throw std::invalid_argument("dims: need at least two sizes (one matrix), got " +
                                std::to_string(dims.size()));
  }
  for (std::size_t t = 0; t < dims.size(); ++t) {
    if (dims[t] <= 0) {
      throw std::invalid_argument("dims[" + std::to_string(t) + "]: must be positive, got " +
                                  std::to_string(dims[t]));
    }
  }
}

// "[320, 640, 1024]", or "[320, 640, ..., 1024] (1001 sizes)" for a long chain: for messages.
std::string dims_text(const std::vector<std::int64_t>& dims) {
  const std::size_t shown = dims.size() <= 8 ? dims.size() : 6;
  std::string out = "[";
  for (std::size_t t = 0; t < shown; ++t) out += (t ? ", " : "") + std::to_string(dims[t]);
  if (shown < dims.size()) {
    out += ", ..., " + std::to_string(dims.back()) + "] (" + std::to_string(dims.size()) +
           " sizes)";
    return out;
  }
  return out + "]";
}

void validate_capacity(std::int64_t onchip_capacity_words) {
  require_positive(onchip_capacity_words, "M (on-chip capacity, words)");
}

// The seed's validity condition of the closed forms ("problem sizes must be greater than
// sqrt(M)", after Eq. D.6): strictly greater, in one place for every closed form.
bool exceeds_sqrt_m(std::int64_t dim, double sqrt_m) { return static_cast<double>(dim) > sqrt_m; }

// The closed forms of App. D assume every matrix is larger than the on-chip memory
// ("problem sizes must be greater than sqrt(M)", after Eq. D.6).
void validate_dims_against_capacity(const std::vector<std::int64_t>& dims,
                                    std::int64_t onchip_capacity_words) {
  validate_dims(dims);
  if (dims.size() < 3) {
    throw std::invalid_argument(
        "dims: data movement needs at least two matrices (three sizes), got " +
        std::to_string(dims.size()) + " sizes; a single matrix is neither computed nor moved");
  }
  validate_capacity(onchip_capacity_words);
  const double sqrt_m = std::sqrt(static_cast<double>(onchip_capacity_words));
  for (std::size_t t = 0; t < dims.size(); ++t) {
    if (!exceeds_sqrt_m(dims[t], sqrt_m)) {
      throw std::domain_error("dims[" + std::to_string(t) + "]: " + std::to_string(dims[t]) +
                              " must exceed sqrt(M) = " + format_value(sqrt_m) +
                              ": the closed forms of App. D hold only for matrices larger than "
                              "the on-chip memory");
    }
  }
}

// Fills the OP-opcount tables for one accumulator type. `row` holds opcount[i][j] at i*N+j and
// `col` its transpose, so that for fixed (i, j) both operands of the inner loop over k are
// contiguous in memory. Caller guarantees no value can overflow Acc.
// Saturating 128-bit arithmetic for chains whose candidates may exceed 64 bits: a candidate
// that overflows is larger than any answer that fits 64 bits, so it saturates and loses.
struct Sat128 {
  i128 v;
};
constexpr i128 kSat = ~(static_cast<i128>(1) << 127);  // max i128
inline Sat128 operator+(Sat128 a, Sat128 b) {
  i128 r = 0;
  return {__builtin_add_overflow(a.v, b.v, &r) ? kSat : r};
}
inline Sat128 operator*(Sat128 a, Sat128 b) {
  i128 r = 0;
  return {__builtin_mul_overflow(a.v, b.v, &r) ? kSat : r};
}
inline bool operator<(Sat128 a, Sat128 b) { return a.v < b.v; }

template <typename Acc>
Acc fill_opcount(int n, const std::vector<std::int64_t>& dims, std::vector<std::int32_t>& split,
                 int threads, std::int64_t min_work_per_thread) {
  const std::size_t N = static_cast<std::size_t>(n) + 1;
  std::vector<Acc> row(N * N, Acc{0}), col(N * N, Acc{0});
  std::vector<Acc> p;
  p.reserve(dims.size());
  for (const std::int64_t d : dims) p.push_back(Acc{d});
  // Threads are started afresh for each of the n - 1 anti-diagonals, so threads beyond the
  // cores only add start-ups (threads=1024 at n = 400: 5.7 s, against 0.02 s on one). At
  // least two are kept, so that a forced threaded path (the tests') still runs on one core.
  // Each item is computed alone: the result does not depend on the number of threads.
  const int workers = static_cast<int>(
      std::min(resolve_threads(threads), std::max(resolve_threads(0), 2U)));
  for (int len = 1; len < n; ++len) {
    const std::size_t count = static_cast<std::size_t>(n - len);
    auto body = [&](std::size_t begin, std::size_t end, std::size_t) {
      for (std::size_t t = begin; t < end; ++t) {
        const int i = static_cast<int>(t) + 1;
        const int j = i + len;
        const Acc* r = &row[static_cast<std::size_t>(i) * N];
        const Acc* c = &col[static_cast<std::size_t>(j) * N];
        const Acc pij = p[i - 1] * p[j];
        Acc best = r[i] + c[i + 1] + pij * p[i];
        int best_k = i;
        for (int k = i + 1; k < j; ++k) {
          const Acc v = r[k] + c[k + 1] + pij * p[k];
          if (v < best) {  // strict: the first (smallest) k wins ties, as in Algorithm 10
            best = v;
            best_k = k;
          }
        }
        row[static_cast<std::size_t>(i) * N + j] = best;
        col[static_cast<std::size_t>(j) * N + i] = best;
        split[static_cast<std::size_t>(i) * N + j] = best_k;
      }
    };
    // One item costs `len` inner iterations; only split a diagonal when each thread gets
    // enough work (default ~256k iterations, ~0.2 ms) to amortize starting it; measured on
    // n = 1000, smaller thresholds made two threads slower than one.
    const std::size_t min_items = std::max<std::size_t>(
        1, static_cast<std::size_t>(min_work_per_thread) / static_cast<std::size_t>(len));
    parallel_for_chunks(count, body, workers, min_items);
  }
  return row[N + static_cast<std::size_t>(n)];
}

double word(std::int64_t v) { return static_cast<double>(v); }

// Eq. D.3: words moved by R = A B (A is a x b, B is b x c) with the output kept on chip and
// written once: 2 a b c / sqrt(M) reads of A and B, plus a c for the write. The one place
// D.3 is written (single_mm case R, S(i,j) of D.18, the unfused D.16/D.17, hp of D.20).
double d3_reads(double a, double b, double c, double sqrt_m) { return 2.0 * a * b * c / sqrt_m; }
double d3_words(double a, double b, double c, double sqrt_m) {
  return d3_reads(a, b, c, sqrt_m) + a * c;
}

// alpha' = (1 + 2 alpha) / (1 + alpha) (D.8), and likewise beta' (D.12).
double ratio_prime(double ratio) { return (1.0 + 2.0 * ratio) / (1.0 + ratio); }

// Local data-movement costs of App. D.6 for dims P, shared by OP-DM, the hyper-node DP and the
// joint Pareto DP.
struct LocalCosts {
  const std::vector<std::int64_t>& P;
  double capacity;  // M, words
  double sqrt_m;
  BetaReading beta_reading;

  double w(int i, int j) const { return i == j ? 0.0 : word(P[i - 1]) * word(P[j]); }  // D.19
  double mm(int a, int b, int c) const {  // third term of D.20, from D.3
    return d3_reads(word(P[a]), word(P[b]), word(P[c]), sqrt_m);
  }
  // S(i,j) local term (D.18): compute with output on chip, then write the output once (D.3).
  double s_local(int i, int j, int k) const {
    return d3_words(word(P[i - 1]), word(P[k]), word(P[j]), sqrt_m);
  }
  double hp(int i, int j, int k) const { return w(i, k) + w(k + 1, j) + mm(i - 1, k, j); }  // D.20
  // D.21: the left child <i,k> (split k1) stays on chip. D.10 already subtracts one w(i,j)
  // (the skipped first read of the output); the second one removes the final write, which the
  // parent (or the final + P0 Pn) accounts for.
  double hl(int i, int j, int k, int k1) const {
    return w(i, k1) + w(k1 + 1, k) + w(k + 1, j) + fused_left_d10(i - 1, k1, k, j) - w(i, j);
  }
  // D.22: the right child <k+1,j> (split k2) stays on chip.
  double hr(int i, int j, int k, int k2) const {
    return w(k + 1, k2) + w(k2 + 1, j) + w(i, k) + fused_right_d14(i - 1, k, k2, j) - w(i, j);
  }
  // D.10 with local sizes P[a], P[b], P[c], P[d] in the roles of P0..P3.
  double fused_left_d10(int a, int b, int c, int d) const {
    const double alpha = word(P[d]) / word(P[b]);
    const double alpha_p = alpha_prime(b, d);
    return 2.0 * word(P[a]) * word(P[b]) * word(P[c]) * (1.0 + alpha) * std::sqrt(alpha_p) /
               sqrt_m -
           word(P[a]) * word(P[d]);
  }
  // beta of D.12 for local sizes P[a], P[b], P[c] in the roles of P0, P1, P2.
  double beta(int a, int b, int c) const {
    return word(P[a]) / word(beta_reading == BetaReading::Printed ? P[b] : P[c]);
  }
  double beta_prime(int a, int b, int c) const { return ratio_prime(beta(a, b, c)); }
  // D.14 with local sizes P[a], P[b], P[c], P[d] in the roles of P0..P3.
  double fused_right_d14(int a, int b, int c, int d) const {
    const double beta = this->beta(a, b, c);
    const double beta_p = beta_prime(a, b, c);
    return 2.0 * word(P[b]) * word(P[c]) * word(P[d]) * (1.0 + beta) * std::sqrt(beta_p) /
               sqrt_m -
           word(P[a]) * word(P[d]);
  }
  double alpha_prime(int b, int d) const { return ratio_prime(word(P[d]) / word(P[b])); }
};

// Sets valid / reason / words of a closed-form case. `why` lists the tile edges that do not
// fit their matrix ("...; " each); the closed forms also need a positive count.
template <typename Case>
void set_validity(Case& c, std::string why, double words) {
  if (why.empty() && !(words > 0.0 && std::isfinite(words))) {
    why = "closed form is not positive and finite; ";
  }
  c.valid = why.empty();
  c.reason = c.valid ? "" : why.substr(0, why.size() - 2);
  c.words = c.valid ? std::optional<double>(words) : std::nullopt;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

void OpOrder::validate() const {
  validate_dims(dims);
  if (n != static_cast<int>(dims.size()) - 1) {
    throw std::invalid_argument("n: must be len(dims) - 1 = " + std::to_string(dims.size() - 1) +
                                ", got " + std::to_string(n));
  }
  const std::size_t N = dims.size();
  if (split.size() != N * N) {
    throw std::invalid_argument("split: must have (n+1)^2 = " + std::to_string(N * N) +
                                " entries, got " + std::to_string(split.size()));
  }
  for (int i = 1; i <= n; ++i) {
    for (int j = i + 1; j <= n; ++j) {
      const int k = split_at(i, j);
      if (k < i || k >= j) {
        throw std::invalid_argument("split: entry of <" + std::to_string(i) + "," +
                                    std::to_string(j) + "> must be in [i, j), got " +
                                    std::to_string(k));
      }
    }
  }
}

OpOrder optimal_order(const std::vector<std::int64_t>& dims, int threads,
                      std::int64_t min_work_per_thread) {
  validate_dims(dims);
  if (dims.size() - 1 > static_cast<std::size_t>(kMaxOrderMatrices)) {
    throw std::invalid_argument("dims: at most " + std::to_string(kMaxOrderMatrices) +
                                " matrices, got " + std::to_string(dims.size() - 1));
  }
  require_in_range<std::int64_t>(min_work_per_thread, 1, std::int64_t{1} << 40,
                                 "min_work_per_thread");
  require_in_range(threads, 0, 1024, "threads");
  OpOrder order;
  order.dims = dims;
  order.n = static_cast<int>(dims.size()) - 1;
  const std::size_t N = dims.size();
  order.split.assign(N * N, 0);
  if (order.n == 1) return order;

  // Every candidate value is the op count of some (partial) tree, so it is at most
  // (n - 1) * max(P)^3. When that bound fits 64 bits, use exact int64 arithmetic; otherwise
  // saturating 128-bit arithmetic, where a candidate beyond 128 bits loses every comparison
  // (it cannot be the minimum when the minimum fits 64 bits).
  const std::int64_t p_max = *std::max_element(dims.begin(), dims.end());
  i128 bound = 0;
  const bool bound_overflows = __builtin_mul_overflow(static_cast<i128>(p_max), p_max, &bound) ||
                               __builtin_mul_overflow(bound, static_cast<i128>(p_max), &bound) ||
                               __builtin_mul_overflow(bound, static_cast<i128>(order.n), &bound);
  if (!bound_overflows && bound <= static_cast<i128>(std::numeric_limits<std::int64_t>::max())) {
    order.min_ops =
        fill_opcount<std::int64_t>(order.n, dims, order.split, threads, min_work_per_thread);
  } else {
    const Sat128 best =
        fill_opcount<Sat128>(order.n, dims, order.split, threads, min_work_per_thread);
    if (best.v > static_cast<i128>(std::numeric_limits<std::int64_t>::max())) {
      throw std::overflow_error("dims: the minimum op count of the chain exceeds the 64-bit "
                                "integer range, dims = " +
                                dims_text(dims));
    }
    order.min_ops = static_cast<std::int64_t>(best.v);
  }
  return order;
}

std::string parenthesization(const OpOrder& order) {
  order.validate();
  std::string out;
  std::function<void(int, int)> emit = [&](int i, int j) {
    if (i == j) {
      out += "A" + std::to_string(i);
      return;
    }
    const int k = order.split_at(i, j);
    out += '(';
    emit(i, k);
    emit(k + 1, j);
    out += ')';
  };
  emit(1, order.n);
  return out;
}

std::vector<TreeNode> tree_nodes(const OpOrder& order) {
  order.validate();
  std::vector<TreeNode> nodes;
  // Build in post-order, then relabel bottom-up by (height, i).
  std::function<int(int, int)> build = [&](int i, int j) -> int {
    if (i == j) return -1;
    const int k = order.split_at(i, j);
    const int l = build(i, k);
    const int r = build(k + 1, j);
    TreeNode node;
    node.i = i;
    node.j = j;
    node.k = k;
    node.left = l;
    node.right = r;
    node.height = 1 + std::max(l < 0 ? 0 : nodes[l].height, r < 0 ? 0 : nodes[r].height);
    nodes.push_back(node);
    return static_cast<int>(nodes.size()) - 1;
  };
  if (order.n >= 2) build(1, order.n);
  std::vector<int> perm(nodes.size());
  for (std::size_t t = 0; t < perm.size(); ++t) perm[t] = static_cast<int>(t);
  std::sort(perm.begin(), perm.end(), [&](int a, int b) {
    if (nodes[a].height != nodes[b].height) return nodes[a].height < nodes[b].height;
    return nodes[a].i < nodes[b].i;
  });
  std::vector<int> new_index(nodes.size());
  for (std::size_t t = 0; t < perm.size(); ++t) new_index[perm[t]] = static_cast<int>(t);
  std::vector<TreeNode> sorted(nodes.size());
  for (std::size_t t = 0; t < perm.size(); ++t) {
    TreeNode node = nodes[perm[t]];
    if (node.left >= 0) node.left = new_index[node.left];
    if (node.right >= 0) node.right = new_index[node.right];
    sorted[t] = node;
  }
  for (std::size_t t = 0; t < sorted.size(); ++t) {
    sorted[t].label = "T" + std::to_string(t + 1);
    if (sorted[t].left >= 0) sorted[sorted[t].left].parent = static_cast<int>(t);
    if (sorted[t].right >= 0) sorted[sorted[t].right].parent = static_cast<int>(t);
  }
  return sorted;
}

// ---------------------------------------------------------------------------------------------

SingleMM single_mm(std::int64_t p0, std::int64_t p1, std::int64_t p2,
                   std::int64_t onchip_capacity_words) {
  require_positive(p0, "P0");
  require_positive(p1, "P1");
  require_positive(p2, "P2");
  validate_capacity(onchip_capacity_words);
  const double m = word(onchip_capacity_words);
  const double sqrt_m = std::sqrt(m);
  const double d0 = word(p0), d1 = word(p1), d2 = word(p2);
  const double cube = d0 * d1 * d2;

  SingleMM out;
  auto finish = [&](SingleMMCase& c, double dim1, const char* name1, double dim2,
                    const char* name2, double words) {
    c.tile_dims = {name1, name2};
    std::string why;
    if (c.tile[0] > dim1) why += std::string("tile along ") + name1 + " exceeds " + name1 + "; ";
    if (c.tile[1] > dim2) why += std::string("tile along ") + name2 + " exceeds " + name2 + "; ";
    set_validity(c, why, words);
  };
  // Case 1, R on chip (D.3): x = y = sqrt(M).
  SingleMMCase& r = out.cases[0];
  r.resident = Resident::Output;
  r.tile = {sqrt_m, sqrt_m};
  finish(r, d0, "P0", d2, "P2", d3_words(d0, d1, d2, sqrt_m));
  // Case 2, A1 on chip (D.5): z = 2x, xz = M.
  SingleMMCase& a1 = out.cases[1];
  a1.resident = Resident::Input1;
  a1.tile = {std::sqrt(m / 2.0), std::sqrt(2.0 * m)};
  finish(a1, d0, "P0", d1, "P1", 2.0 * std::sqrt(2.0) * cube / sqrt_m + d0 * d1 - d0 * d2);
  // Case 3, A2 on chip (D.6): the mirror of case 2, the A2 tile is z x y with z = 2y, zy = M.
  SingleMMCase& a2 = out.cases[2];
  a2.resident = Resident::Input2;
  a2.tile = {std::sqrt(2.0 * m), std::sqrt(m / 2.0)};
  finish(a2, d1, "P1", d2, "P2", 2.0 * std::sqrt(2.0) * cube / sqrt_m + d1 * d2 - d0 * d2);

  int best = -1;
  for (int t = 0; t < 3; ++t) {
    if (out.cases[t].valid && (best < 0 || *out.cases[t].words < *out.cases[best].words)) best = t;
  }
  if (best >= 0) out.best = out.cases[best].resident;
  return out;
}

TwoMM two_mm(std::int64_t p0, std::int64_t p1, std::int64_t p2, std::int64_t p3,
             std::int64_t onchip_capacity_words, BetaReading beta_reading) {
  require_positive(p0, "P0");
  require_positive(p1, "P1");
  require_positive(p2, "P2");
  require_positive(p3, "P3");
  validate_capacity(onchip_capacity_words);
  const std::vector<std::int64_t> dims{p0, p1, p2, p3};
  const double m = word(onchip_capacity_words);
  const LocalCosts lc{dims, m, std::sqrt(m), beta_reading};

  TwoMM out;
  // Left fuse (D.7-D.10): T = A1A2 (P0 x P2) on chip, tile alpha' x = y.
  {
    FusedTwoMM& f = out.left;
    f.ratio = word(p3) / word(p1);
    f.ratio_prime = lc.alpha_prime(1, 3);
    f.tile = {std::sqrt(m / f.ratio_prime), std::sqrt(m * f.ratio_prime)};
    const double words = lc.fused_left_d10(0, 1, 2, 3);
    std::string why;
    if (f.tile[0] > word(p0)) why += "tile x exceeds P0; ";
    if (f.tile[1] > word(p2)) why += "tile y exceeds P2; ";
    set_validity(f, why, words);
  }
  // Right fuse (D.11-D.14): T = A2A3 (P1 x P3) on chip, tile x = beta' y.
  {
    FusedTwoMM& f = out.right;
    f.ratio = lc.beta(0, 1, 2);
    f.ratio_prime = lc.beta_prime(0, 1, 2);
    f.tile = {std::sqrt(m * f.ratio_prime), std::sqrt(m / f.ratio_prime)};
    const double words = lc.fused_right_d14(0, 1, 2, 3);
    std::string why;
    if (f.tile[0] > word(p1)) why += "tile x exceeds P1; ";
    if (f.tile[1] > word(p3)) why += "tile y exceeds P3; ";
    set_validity(f, why, words);
  }
  // D.16 and D.17: each product with its output on chip (D.3); the intermediate goes off chip.
  // Valid under the same condition as every closed form: all sizes exceed sqrt(M).
  const double sqrt_m = lc.sqrt_m;
  const bool unfused_valid = exceeds_sqrt_m(p0, sqrt_m) && exceeds_sqrt_m(p1, sqrt_m) &&
                             exceeds_sqrt_m(p2, sqrt_m) && exceeds_sqrt_m(p3, sqrt_m);
  if (unfused_valid) {
    const double d0 = word(p0), d1 = word(p1), d2 = word(p2), d3 = word(p3);
    out.unfused_left_words = d3_words(d0, d1, d2, sqrt_m) + d3_words(d0, d2, d3, sqrt_m);
    out.unfused_right_words = d3_words(d1, d2, d3, sqrt_m) + d3_words(d0, d1, d3, sqrt_m);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

DataMovement data_movement(const std::vector<std::int64_t>& dims,
                           std::int64_t onchip_capacity_words, BetaReading beta_reading,
                           int threads) {
  validate_dims_against_capacity(dims, onchip_capacity_words);
  DataMovement out;
  const OpOrder order = optimal_order(dims, threads);
  out.dims = dims;
  out.M = onchip_capacity_words;
  out.beta = beta_reading;
  out.op_count = order.min_ops;
  out.parenthesization = parenthesization(order);
  const auto tree = tree_nodes(order);
  const double m = word(onchip_capacity_words);
  const LocalCosts lc{dims, m, std::sqrt(m), beta_reading};
  out.output_words = word(dims.front()) * word(dims.back());

  out.nodes.resize(tree.size());
  auto F_of = [&](int idx) { return idx < 0 ? 0.0 : out.nodes[idx].F; };
  auto S_of = [&](int idx) { return idx < 0 ? 0.0 : out.nodes[idx].S; };
  // Bottom-up order guarantees both children are done before their parent.
  for (std::size_t t = 0; t < tree.size(); ++t) {
    const TreeNode& tn = tree[t];
    NodeCost& nc = out.nodes[t];
    nc.label = tn.label;
    nc.i = tn.i;
    nc.j = tn.j;
    nc.k = tn.k;
    nc.height = tn.height;
    nc.left = tn.left;
    nc.right = tn.right;
    nc.parent = tn.parent;
    const int i = tn.i, j = tn.j, k = tn.k;
    nc.S = S_of(tn.left) + S_of(tn.right) + lc.s_local(i, j, k);  // D.18
    nc.hp = lc.hp(i, j, k);
    nc.Fp = F_of(tn.left) + F_of(tn.right) + nc.hp;  // D.24
    nc.F = nc.Fp;
    nc.choice = Fusion::None;
    if (tn.left >= 0) {  // D.21, D.25
      const TreeNode& l = tree[tn.left];
      nc.hl = lc.hl(i, j, k, l.k);
      nc.Fl = F_of(l.left) + F_of(l.right) + F_of(tn.right) + *nc.hl;
      if (*nc.Fl < nc.F) {
        nc.F = *nc.Fl;
        nc.choice = Fusion::Left;
      }
    }
    if (tn.right >= 0) {  // D.22, D.26
      const TreeNode& r = tree[tn.right];
      nc.hr = lc.hr(i, j, k, r.k);
      nc.Fr = F_of(tn.left) + F_of(r.left) + F_of(r.right) + *nc.hr;
      if (*nc.Fr < nc.F) {
        nc.F = *nc.Fr;
        nc.choice = Fusion::Right;
      }
    }
    // Tile sizes (Table D.2 row "Output", Table D.3).
    auto& tile = nc.tile_exact;
    switch (nc.choice) {
      case Fusion::None:
        tile = {lc.sqrt_m, lc.sqrt_m};
        nc.tile_fits = tile[0] <= word(dims[i - 1]) && tile[1] <= word(dims[j]);
        break;
      case Fusion::Left: {  // T = <i,k>, P[i-1] x P[k]
        const double ap = lc.alpha_prime(tree[tn.left].k, j);
        tile = {std::sqrt(m / ap), std::sqrt(m * ap)};
        nc.tile_fits = tile[0] <= word(dims[i - 1]) && tile[1] <= word(dims[k]);
        break;
      }
      case Fusion::Right: {  // T = <k+1,j>, P[k] x P[j]
        const double bp = lc.beta_prime(i - 1, k, tree[tn.right].k);
        tile = {std::sqrt(m * bp), std::sqrt(m / bp)};
        nc.tile_fits = tile[0] <= word(dims[k]) && tile[1] <= word(dims[j]);
        break;
      }
    }
    nc.tile = {std::llround(tile[0]), std::llround(tile[1])};
  }

  const int root = static_cast<int>(out.nodes.size()) - 1;
  out.single_mm_total = out.nodes[root].S;
  out.fused_internal = out.nodes[root].F;
  out.fused_total = out.fused_internal + out.output_words;  // D.26, last sentence
  out.reduction_percent = 100.0 * (out.single_mm_total - out.fused_total) / out.single_mm_total;
  // With no fused edge S and F add the same terms in different orders; do not report the
  // resulting ~1e-14 % as a (negative) reduction.
  if (std::fabs(out.reduction_percent) < 1e-9) out.reduction_percent = 0.0;

  // Top-down: apply the chosen decisions, marking the children kept on chip, and render the
  // hyper-node tree.
  std::function<std::string(int, int)> render = [&](int idx, int leaf) -> std::string {
    if (idx < 0) return "A" + std::to_string(leaf);
    NodeCost& nc = out.nodes[idx];
    if (nc.choice == Fusion::Left) {
      NodeCost& l = out.nodes[nc.left];
      l.absorbed = true;
      return "{(" + render(l.left, l.i) + render(l.right, l.k + 1) + ")" +
             render(nc.right, nc.k + 1) + "}";
    }
    if (nc.choice == Fusion::Right) {
      NodeCost& r = out.nodes[nc.right];
      r.absorbed = true;
      return "{" + render(nc.left, nc.i) + "(" + render(r.left, r.i) + render(r.right, r.k + 1) +
             ")}";
    }
    return "(" + render(nc.left, nc.i) + render(nc.right, nc.k + 1) + ")";
  };
  out.hypernode_parenthesization = render(root, 1);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Joint Pareto front.

namespace {

struct Point {
  std::int64_t ops;
  double words;
  std::int32_t id;  // derivation, for rendering the plan
};

enum class DerivKind : std::uint8_t { Leaf, Pair, None, Left, Right };

struct Deriv {
  DerivKind kind;
  std::int32_t i;  // leaf index
  std::int32_t a, b;
};

// Keeps the points not dominated in (ops, words): sorted by ops ascending, words strictly
// descending. Words are compared with a tiny relative tolerance so that float noise in equal
// costs reached by different association orders does not keep duplicates.
void prune(std::vector<Point>& pts) {
  std::sort(pts.begin(), pts.end(), [](const Point& x, const Point& y) {
    return x.ops != y.ops ? x.ops < y.ops : x.words < y.words;
  });
  std::size_t kept = 0;
  double best = std::numeric_limits<double>::infinity();
  for (const Point& p : pts) {
    if (kept == 0 || p.words < best - 1e-12 * std::fabs(best)) {
      pts[kept++] = p;
      best = p.words;
    }
  }
  pts.resize(kept);
}

class JointSolver {
 public:
  JointSolver(const std::vector<std::int64_t>& dims, std::int64_t capacity, BetaReading beta)
      : dims_(dims),
        n_(static_cast<int>(dims.size()) - 1),
        lc_{dims_, word(capacity), std::sqrt(word(capacity)), beta} {}

  std::vector<Point> solve() {
    const int n = n_;
    G_.assign(idx(n + 1, 0), {});
    C_.assign(idx(n + 1, 0), {});
    for (int i = 1; i <= n; ++i) {
      arena_.push_back({DerivKind::Leaf, i, -1, -1});
      G_[idx(i, i)] = {Point{0, 0.0, static_cast<std::int32_t>(arena_.size() - 1)}};
    }
    for (int len = 1; len < n; ++len) {
      for (int i = 1; i + len <= n; ++i) {
        const int j = i + len;
        auto& splits = C_[idx(i, j)];
        splits.assign(static_cast<std::size_t>(len), {});
        for (int k = i; k < j; ++k) splits[k - i] = sum(G_[idx(i, k)], G_[idx(k + 1, j)]);
        std::vector<Point> cand;
        for (int k = i; k < j; ++k) {
          const std::int64_t ops = mul_ops(i - 1, k, j);
          // Node <i,j> not fused with either child (D.20).
          add(cand, splits[k - i], DerivKind::None, ops, lc_.hp(i, j, k));
          // Fused with the left child <i,k>, which must then be unfused with split k1 (D.21).
          for (int k1 = i; k1 < k; ++k1) {
            const auto& inner = C_[idx(i, k)][k1 - i];
            const std::int64_t extra = checked_add(ops, mul_ops(i - 1, k1, k), "op count");
            add(cand, sum(inner, G_[idx(k + 1, j)]), DerivKind::Left, extra,
                lc_.hl(i, j, k, k1));
          }
          // Fused with the right child <k+1,j>, unfused with split k2 (D.22).
          for (int k2 = k + 1; k2 < j; ++k2) {
            const auto& inner = C_[idx(k + 1, j)][k2 - k - 1];
            const std::int64_t extra = checked_add(ops, mul_ops(k, k2, j), "op count");
            add(cand, sum(G_[idx(i, k)], inner), DerivKind::Right, extra,
                lc_.hr(i, j, k, k2));
          }
        }
        prune(cand);
        for (Point& p : cand) {
          arena_.push_back(pending_[p.id]);
          p.id = static_cast<std::int32_t>(arena_.size() - 1);
        }
        pending_.clear();
        G_[idx(i, j)] = std::move(cand);
      }
    }
    std::vector<Point> front = G_[idx(1, n)];
    const double out_words = word(dims_.front()) * word(dims_.back());
    for (Point& p : front) p.words += out_words;
    return front;
  }

  std::string render(std::int32_t id) const {
    const Deriv& d = arena_[id];
    switch (d.kind) {
      case DerivKind::Leaf:
        return "A" + std::to_string(d.i);
      case DerivKind::Pair:
        return render(d.a) + render(d.b);
      case DerivKind::None:
        return "(" + render(d.a) + ")";
      case DerivKind::Left: {  // a = Pair(Pair(x, y), z)
        const Deriv& p = arena_[d.a];
        return "{(" + render(p.a) + ")" + render(p.b) + "}";
      }
      case DerivKind::Right: {  // a = Pair(x, Pair(y, z))
        const Deriv& p = arena_[d.a];
        return "{" + render(p.a) + "(" + render(p.b) + ")}";
      }
    }
    return {};
  }

 private:
  std::size_t idx(int i, int j) const {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(n_ + 1) + j;
  }
  std::int64_t mul_ops(int a, int b, int c) const {
    return checked_mul(checked_mul(dims_[a], dims_[b], "op count"), dims_[c], "op count");
  }
  // Minkowski sum of two fronts, pruned; each surviving point records its two parts.
  std::vector<Point> sum(const std::vector<Point>& x, const std::vector<Point>& y) {
    std::vector<Point> out;
    out.reserve(x.size() * y.size());
    std::vector<std::pair<std::int32_t, std::int32_t>> parts;
    for (const Point& p : x) {
      for (const Point& q : y) {
        out.push_back({checked_add(p.ops, q.ops, "op count"), p.words + q.words,
                       static_cast<std::int32_t>(parts.size())});
        parts.emplace_back(p.id, q.id);
      }
    }
    prune(out);
    for (Point& p : out) {
      const auto [a, b] = parts[p.id];
      arena_.push_back({DerivKind::Pair, 0, a, b});
      p.id = static_cast<std::int32_t>(arena_.size() - 1);
    }
    return out;
  }
  // Candidates refer to pending_ until pruning has decided which ones get an arena entry.
  void add(std::vector<Point>& cand, const std::vector<Point>& parts, DerivKind kind,
           std::int64_t ops, double words) {
    for (const Point& p : parts) {
      pending_.push_back({kind, 0, p.id, -1});
      cand.push_back({checked_add(p.ops, ops, "op count"), p.words + words,
                      static_cast<std::int32_t>(pending_.size() - 1)});
    }
  }

  const std::vector<std::int64_t>& dims_;
  int n_;
  LocalCosts lc_;
  std::vector<std::vector<Point>> G_;               // front of <i,j>, any fusion state
  std::vector<std::vector<std::vector<Point>>> C_;  // C_[<i,j>][k-i]: G(i,k) + G(k+1,j)
  std::vector<Deriv> arena_;
  std::vector<Deriv> pending_;
};

std::vector<Point> joint_front_points(const std::vector<std::int64_t>& dims,
                                      std::int64_t capacity, BetaReading beta) {
  JointSolver solver(dims, capacity, beta);
  return solver.solve();
}

}  // namespace

std::vector<ParetoPoint> pareto_front(const std::vector<std::int64_t>& dims,
                                      std::int64_t onchip_capacity_words,
                                      BetaReading beta_reading) {
  validate_dims_against_capacity(dims, onchip_capacity_words);
  if (dims.size() - 1 > static_cast<std::size_t>(kMaxParetoMatrices)) {
    throw std::invalid_argument("dims: the joint Pareto front supports at most " +
                                std::to_string(kMaxParetoMatrices) + " matrices, got " +
                                std::to_string(dims.size() - 1));
  }
  JointSolver solver(dims, onchip_capacity_words, beta_reading);
  std::vector<Point> pts;
  try {
    pts = solver.solve();
  } catch (const std::overflow_error&) {
    // The joint front weighs every tree, so one whose op count overflows makes the front
    // inexact even when the minimum op count (optimal_order, data_movement) fits.
    throw std::overflow_error(
        "dims: the op count of some parenthesization exceeds the 64-bit integer range (the "
        "joint front counts every tree, not only the minimum op-count one, which may fit: "
        "see optimal_order), dims = " +
        dims_text(dims));
  }
  std::vector<ParetoPoint> out;
  out.reserve(pts.size());
  for (const Point& p : pts) out.push_back({p.ops, p.words, solver.render(p.id)});
  return out;
}

// ---------------------------------------------------------------------------------------------
// Random chains.

void RandomChainSpec::validate() const {
  if (n_min < 2 || n_max < n_min || n_max > 1000) {
    throw std::invalid_argument("lengths: need 2 <= n_min <= n_max <= 1000, got (" +
                                std::to_string(n_min) + ", " + std::to_string(n_max) + ")");
  }
  require_in_range(chains_per_length, 1, 1000000, "chains_per_length");
  if (capacities_words.empty() ||
      capacities_words.size() > static_cast<std::size_t>(kMaxCapacities)) {
    throw std::invalid_argument("capacities: need 1 to " + std::to_string(kMaxCapacities) +
                                " capacities, got " +
                                std::to_string(capacities_words.size()));
  }
  // The records are all held at once (and again as Python objects): the total, not the
  // count per capacity, bounds the memory. Each factor is bounded above, so no overflow.
  const std::int64_t total = (n_max - n_min + 1) * static_cast<std::int64_t>(chains_per_length) *
                             static_cast<std::int64_t>(capacities_words.size());
  if (total > kMaxChainRecords) {
    throw std::invalid_argument(
        "lengths, chains_per_length, capacities: at most 2^24 records (lengths x "
        "chains_per_length x capacities), got " +
        std::to_string(n_max - n_min + 1) + " x " + std::to_string(chains_per_length) + " x " +
        std::to_string(capacities_words.size()) + " = " + std::to_string(total));
  }
  for (const auto c : capacities_words) validate_capacity(c);
  require_positive(step, "step");
  require_positive(lo, "lo");
  if (hi < lo) {
    throw std::invalid_argument("hi: must be >= lo = " + std::to_string(lo) + ", got " +
                                std::to_string(hi));
  }
  if (hi / step < (lo + step - 1) / step) {
    throw std::invalid_argument("lo, hi: [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "] contains no multiple of step = " + std::to_string(step));
  }
  require_in_range(threads, 0, 1024, "threads");
}

std::vector<std::int64_t> random_chain(const RandomChainSpec& spec, int n, int index) {
  require_in_range(n, 1, 1000, "n");
  if (index < 0) {
    throw std::invalid_argument("index: must be >= 0, got " + std::to_string(index));
  }
  require_positive(spec.step, "step");
  require_positive(spec.lo, "lo");
  if (spec.hi < spec.lo) throw std::invalid_argument("hi: must be >= lo");
  const std::int64_t lo_m = spec.lo / spec.step + (spec.lo % spec.step != 0 ? 1 : 0);
  const std::int64_t hi_m = spec.hi / spec.step;
  if (hi_m < lo_m) throw std::invalid_argument("lo, hi: [lo, hi] contains no multiple of step");
  std::uint64_t state = spec.seed ^ (0xD1B54A32D192ED03ULL * (static_cast<std::uint64_t>(n) << 32 |
                                                              static_cast<std::uint32_t>(index)));
  splitmix64(state);
  std::vector<std::int64_t> dims(static_cast<std::size_t>(n) + 1);
  const auto span = static_cast<std::uint64_t>(hi_m - lo_m) + 1;
  for (auto& d : dims) {
    const std::uint64_t r = splitmix64(state);
    if (spec.distribution == DimDistribution::UniformStep) {
      d = (lo_m + static_cast<std::int64_t>(r % span)) * spec.step;
    } else {
      const double u = static_cast<double>(r >> 11) * 0x1.0p-53;
      const double lg = std::log(word(lo_m)) + u * (std::log(word(hi_m)) - std::log(word(lo_m)));
      const auto mult = std::clamp<std::int64_t>(std::llround(std::exp(lg)), lo_m, hi_m);
      d = mult * spec.step;
    }
  }
  return dims;
}

namespace {

// Calls fn(dims, n, index, capacity) for every chain of every capacity, in parallel, and
// returns the results in the order capacity, n, index.
template <typename Result, typename PerChain>
std::vector<Result> per_chain(const RandomChainSpec& spec, PerChain&& fn, std::size_t min_chunk) {
  spec.validate();
  const std::size_t lengths = static_cast<std::size_t>(spec.n_max - spec.n_min + 1);
  const std::size_t per = static_cast<std::size_t>(spec.chains_per_length);
  const std::size_t per_capacity = lengths * per;
  std::vector<Result> out(per_capacity * spec.capacities_words.size());
  parallel_for_chunks(
      out.size(),
      [&](std::size_t begin, std::size_t end, std::size_t) {
        for (std::size_t t = begin; t < end; ++t) {
          const std::int64_t capacity = spec.capacities_words[t / per_capacity];
          const std::size_t u = t % per_capacity;
          const int n = static_cast<int>(spec.n_min) + static_cast<int>(u / per);
          const int index = static_cast<int>(u % per);
          out[t] = fn(random_chain(spec, n, index), n, index, capacity);
        }
      },
      spec.threads, min_chunk);
  return out;
}

}  // namespace

std::vector<ChainReduction> random_chain_reductions(const RandomChainSpec& spec) {
  return per_chain<ChainReduction>(
      spec,
      [&](const std::vector<std::int64_t>& dims, int n, int index, std::int64_t capacity) {
        const DataMovement dm = data_movement(dims, capacity, spec.beta_reading, 1);
        return ChainReduction{n, index, capacity, dm.reduction_percent};
      },
      64);
}

std::vector<JointComparison> joint_comparisons(const RandomChainSpec& spec) {
  if (spec.n_max > kMaxParetoMatrices) {
    throw std::invalid_argument("lengths: the joint comparison supports n_max <= " +
                                std::to_string(kMaxParetoMatrices) + ", got " +
                                std::to_string(spec.n_max));
  }
  return per_chain<JointComparison>(
      spec,
      [&](const std::vector<std::int64_t>& dims, int n, int index, std::int64_t capacity) {
        const DataMovement dm = data_movement(dims, capacity, spec.beta_reading, 1);
        const auto front = joint_front_points(dims, capacity, spec.beta_reading);
        const Point& least_words = front.back();
        JointComparison r;
        r.n = n;
        r.index = index;
        r.M = capacity;
        r.traffic_gain_percent = 100.0 * (dm.fused_total - least_words.words) / dm.fused_total;
        r.ops_increase_percent =
            100.0 * word(least_words.ops - dm.op_count) / word(dm.op_count);
        r.front_size = static_cast<int>(front.size());
        return r;
      },
      4);
}

}  // namespace costmetrics::chain

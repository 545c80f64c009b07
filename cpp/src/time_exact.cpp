// The `exact` variant of the execution-time model (docs/time.md, "Exact variant").
//
// Same hexagon as the paper (Sec. A.4.1), but on the gap-free lattice of pitch
// P = 2 tS1 + tT - 2, with every count of points, tiles, wavefronts and sub-tiles exact:
//   color A tiles: base column p P,       bottom row m tT;
//   color B tiles: base column p P + P/2, bottom row m tT - tT/2.
// Wavefront j = 0, 1, 2, ... is B(j/2) for even j and A((j-1)/2) for odd j; its tiles have
// bottom row t0 = (j - 1) tT/2. Inner dimensions (2D prisms, 3D slabs) are time-skewed per
// tile relative to t0 (classic tiling, Sec. A.4.2-A.4.3).
//
// Lower bound T_alg >= T_ideal: every point lies in exactly one tile, so with R_i rounds,
// R_i >= n_i / (k nSM), T_i >= k sum_b c_{i,b} and c_{i,b} >= C_iter sum_r (points of any one
// tile in sub-tile b, row r) / nV, we get R_i T_i >= C_iter (points of wavefront i) / (nSM nV);
// summing over the wavefronts gives T_alg >= S1...T C_iter / (nSM nV) = T_ideal (Eq. 8.3).
#include "time_exact.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "floor_sum.hpp"
#include "time_detail.hpp"

// The 2D kind tables have an AVX2 fill, chosen at run time (the build stays for the baseline
// ISA), as the paper variant's batch kernel (time.cpp); -DCOSTMETRICS_NO_SIMD builds the
// scalar fill alone.
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(COSTMETRICS_NO_SIMD)
#define COSTMETRICS_EXACT_AVX2 1
#include <immintrin.h>
#else
#define COSTMETRICS_EXACT_AVX2 0
#endif

namespace costmetrics {
namespace time {
namespace detail {

namespace {

using i64 = std::int64_t;
using detail::ceil_div;

// Inlines a lambda into its caller (GCC honours the attribute on the call operator; other
// compilers get no attribute rather than a warning).
#if defined(__GNUC__) && !defined(__clang__)
#define COSTMETRICS_LAMBDA_INLINE __attribute__((always_inline))
#else
#define COSTMETRICS_LAMBDA_INLINE
#endif
using ::costmetrics::detail::div_ceil;
using ::costmetrics::detail::div_floor;

// floor(a / b) for |a| < 2^52, 1 <= b < 2^52 and either sign of a (lattice coordinates), by
// exact double divisions (floor_sum.hpp) instead of 64-bit integer divisions.
inline i64 floor_div(i64 a, i64 b) { return a >= 0 ? div_floor(a, b) : -div_ceil(-a, b); }

// Closed interval of relative rows; empty when lo > hi.
struct Rows {
  i64 lo = 0;
  i64 hi = -1;
  bool empty() const { return lo > hi; }
  i64 size() const { return empty() ? 0 : hi - lo + 1; }
};

inline __attribute__((always_inline)) Rows intersect(Rows a, Rows b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

// One inner space dimension (s2 or s3) with classic time skewing relative to the tile's
// bottom row (rule 5), or a placeholder with one point per row when the stencil has fewer
// dimensions, so that 1D, 2D and 3D share one code path.
struct InnerDim {
  bool skewed = false;
  i64 S = 1;
  i64 tS = 1;

  // Points per row of a sub-tile that is full at that row.
  i64 full_count() const { return skewed ? tS : 1; }

  // n_sj(b, r) = |[b tS - r, (b+1) tS - r) ∩ [0, S)|.
  i64 count(i64 b, i64 r) const {
    if (!skewed) return 1;
    const i64 lo = std::max<i64>(b * tS - r, 0);
    const i64 hi = std::min<i64>((b + 1) * tS - r, S);
    return std::max<i64>(hi - lo, 0);
  }

  // Rows of [ra, rb) where sub-tile b has points: b tS - S < r < (b+1) tS.
  __attribute__((always_inline)) Rows nonzero_rows(i64 b, i64 ra, i64 rb) const {
    if (!skewed) return {ra, rb - 1};
    return {std::max(ra, b * tS - S + 1), std::min(rb - 1, (b + 1) * tS - 1)};
  }

  // Rows of [ra, rb) where sub-tile b is full (count == tS): (b+1) tS - S <= r <= b tS.
  // Empty when tS > S. Always a sub-interval of nonzero_rows().
  Rows full_rows(i64 b, i64 ra, i64 rb) const {
    if (!skewed) return {ra, rb - 1};
    return {std::max(ra, (b + 1) * tS - S), std::min(rb - 1, b * tS)};
  }

  // Row kinds (fast path, tS <= S): on a row r where sub-tile b has points, n(b, r) is
  //   kTrail: (S + r) mod tS, clipped by S   (b tS - S < r < (b+1) tS - S),
  //   kFull:  tS                             ((b+1) tS - S <= r <= b tS),
  //   kLead:  tS - (r mod tS), clipped by 0  (b tS < r < (b+1) tS),
  // because with tS <= S the two clips of n(b, r) = min((b+1) tS - r, S) - max(b tS - r, 0)
  // are never active together. The value of each kind depends on the row only, not on b, so
  // one prefix table per kind serves every sub-tile. A placeholder dimension is all kFull.
  // segments() splits the rows [lo, hi] (with points) of sub-tile b into the three kinds.
  __attribute__((always_inline)) void segments(i64 b, i64 lo, i64 hi, Rows out[3]) const {
    if (!skewed) {
      out[kTrail] = {0, -1};
      out[kFull] = {lo, hi};
      out[kLead] = {0, -1};
      return;
    }
    out[kTrail] = {lo, std::min(hi, (b + 1) * tS - S - 1)};
    out[kFull] = {std::max(lo, (b + 1) * tS - S), std::min(hi, b * tS)};
    out[kLead] = {std::max(lo, b * tS + 1), hi};
  }
  static constexpr int kTrail = 0, kFull = 1, kLead = 2;
};

// A sub-tile index b standing for `mult` sub-tiles with identical point counts on every row.
struct SubtileClass {
  i64 b = 0;
  i64 mult = 1;
};

// Nonempty sub-tiles of one inner dimension over the rows [ra, rb): the boundary ones one by
// one, the ones full on every row as a single class (rule 10). There are at most about
// 2 (rb - ra) / tS + 3 classes, independent of S.
void subtile_classes(const InnerDim& d, i64 ra, i64 rb, std::vector<SubtileClass>& out) {
  out.clear();
  if (!d.skewed) {
    out.push_back({0, 1});
    return;
  }
  const auto [b_min, b_max, full_lo, full_hi] = subtile_range(d.S, d.tS, ra, rb);
  if (full_lo <= full_hi) {
    for (i64 b = b_min; b < full_lo; ++b) out.push_back({b, 1});
    out.push_back({full_lo, full_hi - full_lo + 1});
    for (i64 b = full_hi + 1; b <= b_max; ++b) out.push_back({b, 1});
  } else {
    for (i64 b = b_min; b <= b_max; ++b) out.push_back({b, 1});
  }
}

// The same classes in the same order, without a buffer: f(b, mult, ordinal) per class.
template <typename F>
inline __attribute__((always_inline)) void for_each_subtile_class(const InnerDim& d, i64 ra,
                                                                  i64 rb, F&& f) {
  if (!d.skewed) {
    f(i64{0}, i64{1}, std::size_t{0});
    return;
  }
  const auto [b_min, b_max, full_lo, full_hi] = subtile_range(d.S, d.tS, ra, rb);
  std::size_t q = 0;
  if (full_lo <= full_hi) {
    for (i64 b = b_min; b < full_lo; ++b) f(b, i64{1}, q++);
    f(full_lo, full_hi - full_lo + 1, q++);
    for (i64 b = full_hi + 1; b <= b_max; ++b) f(b, i64{1}, q++);
  } else {
    for (i64 b = b_min; b <= b_max; ++b) f(b, i64{1}, q++);
  }
}

// The sub-tiles of one inner dimension over the rows [0, tT): b in [0, b_max], those in
// [full_lo, full_hi] full on every row (one class), the others boundary sub-tiles. A
// wavefront's rows are a sub-range of [0, tT), so each of its sub-tiles is one of these or
// lies in the full class, and shares its points per row with that entry.
struct RowClasses {
  bool skewed = false;
  i64 b_max = 0;
  i64 full_lo = 1;  // empty full class: full_lo > full_hi
  i64 full_hi = 0;

  RowClasses() = default;
  RowClasses(const InnerDim& d, i64 tT) : skewed(d.skewed) {
    if (!skewed) return;
    const SubtileRange s = subtile_range(d.S, d.tS, 0, tT);
    b_max = s.b_max;
    full_lo = s.full_lo;
    full_hi = s.full_hi;
  }
  bool has_full() const { return full_lo <= full_hi; }
  i64 size() const { return skewed ? b_max + 1 - (has_full() ? full_hi - full_lo : 0) : 1; }
  i64 index(i64 b) const {
    if (!skewed || !has_full() || b < full_lo) return skewed ? b : 0;
    return b <= full_hi ? full_lo : b - (full_hi - full_lo);
  }
  // A sub-tile b standing for entry `index`.
  i64 representative(i64 index) const {
    if (!skewed || !has_full() || index < full_lo) return skewed ? index : 0;
    return index == full_lo ? full_lo : index + (full_hi - full_lo);
  }
};

// Scratch buffers of one evaluation, kept per thread so that the batch and search paths do
// not allocate per tile (an evaluation never nests another one).
struct Scratch {
  std::vector<i64> w;
  std::vector<i64> prefix;
  std::vector<i64> line_prefix;  // machine variant, W(r) not wide: lines per s2 class
  std::vector<double> row_table;   // prefix sums per pair of sub-tile classes (wide S1)
  std::vector<double> row_counts;  // points per row of each class, per inner dimension
  std::vector<double> row_widths;
  std::vector<double> width_prefix;  // machine variant: prefix sums of W(r) over [0, tT)
  std::vector<double> line_table;    // machine variant, 3D: prefix sums of W(r) n_s2(b, r)
  std::vector<SubtileClass> table_classes;
  std::vector<i64> kind_table;     // prefix sums of vector steps per pair of row kinds
  std::vector<double> kind_lines;  // machine variant, 3D: prefix sums of W(r) n_s2 per kind
  std::vector<std::pair<i64, double>> deficit;  // machine variant: clipped tiles' deficits
};

Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

// sum_{r < n} e(r), e(r) = min(r, tT - 1 - r) (the hexagon's half-widening at relative
// row r), for 0 <= n <= tT: n (n - 1) / 2 on the rising rows r < ceil(tT / 2), mirrored
// after.
inline __attribute__((always_inline)) i64 e_prefix_of(i64 tT, i64 n) {
  const i64 h = tT / 2;
  if (n <= tT - h) return n * (n - 1) / 2;
  const i64 m = tT - n;
  return h * ((tT - 1) / 2) - m * (m - 1) / 2;
}

// The machine variant's per-(sub)tile counts that depend on which rows of the tile a
// wavefront holds (docs/time.md, "Machine variant").
struct RowCounts {
  double words = 0;  // words copied between the arrays and the tile (m_io)
  double seg = 0;    // segments copied (n_seg)
  double share = 0;  // cache lines written by two threads (n_share, 1D)
  double buf = 0;    // words copied within the tile buffer (n_buf, 2D/3D)
  double gap = 0;    // words streamed into the wavefront's gap after the tile, x DRAM share (1D)
};

struct WavefrontCost {
  bool nonempty = false;
  i64 n_tiles = 0;
  double t_tile_s = 0;
  double m_prime_s = 0;
  // With coefficients requested: T_i = coef_m m' + counts . (C_iter, tau_sync, tau_line).
  double coef_m = 0;
  double counts[3] = {0, 0, 0};  // vector steps, rows, lines
  // Machine variant with k = 1 (clipped_rounds), tracked without the coefficients: the
  // vector steps over every sub-tile and the sub-tiles, so that T_i's per-point part is
  // (1D: 1, 2D/3D: n_sub) m'_points + steps C_iter (the k = 1 branches of tile_time_s).
  double steps_all = 0;
  double n_sub = 0;
  RowCounts rows;                // machine variant: the counts of m' in this wavefront
};

// What `exact` reads of a wavefront (WavefrontCost holds the machine variant's terms too):
// smaller, so that the fast path does not zero and copy the rest per wavefront.
struct WavefrontCostExact {
  bool nonempty = false;
  i64 n_tiles = 0;
  double t_tile_s = 0;
  double m_prime_s = 0;
};
template <bool Extras>
using WavefrontCostOf = std::conditional_t<Extras, WavefrontCost, WavefrontCostExact>;

// The transfer time m' of one (sub)tile (Eqs. A.9/A.15/A.26). For `exact` a constant; for
// `machine` it depends on the cores streaming at once, min(n_i, nSM), and on the tile rows
// [r_lo, r_hi) the wavefront holds (docs/time.md):
// m' = m_io (L + dL[level] + g[level] (active - threads_ref)) + 2 tau_sync
//      + n_seg L_seg + n_buf l_buffer + n_share t_share.
struct TransferTerms {
  bool machine = false;
  double m_prime_exact = 0;
  double m_io = 0, l_word = 0, gamma = 0, two_tau = 0;
  double l_seg = 0, l_buf = 0;
  // 1D: the prefetcher's reach past a run (gap_reach, words; 0: no gap words), the
  // arrays' DRAM share it is charged at (gap_dram) and the cost per word (l_gap); the gap
  // itself depends on the rows a wavefront holds (gap_after).
  double gap_reach = 0, gap_dram = 0, l_gap = 0;
  double t_share = 0;  // t_share per line in m' (round-robin; 0 with blocks)
  i64 n_sm = 1, ref = 1;
  // The set-up's choices the design rows read: the arrays split between L3 and DRAM, and
  // the tau_sync per transfer (2, or 0 where L_seg replaces it).
  bool partly_l3 = false;
  double tau_per_transfer = 2.0;
  // Count rules (set in evaluate_exact_impl).
  int dims = 1;
  i64 tT = 2, h = 1;
  bool row_words = false;  // count the words of the rows held (harness), else m_io
  double tS1 = 1;
  double seg_2d = 0;      // 2D/3D: segments per (sub)tile, m_io / (innermost tile)
  double buf_per_row = 0;  // 2D/3D: buffer words per s1 value of a row's plane
  double tS1_halo = 0;     // tS1 + 2: the plane's s1 values on a row with e(r) = 0
  bool share_lines = false;  // 1D with more than one thread
  // 2D/3D with the harness' counts: per inner dimension d, the sub-tiles of the rows
  // [r_lo, r_hi) span n_b(r_lo, r_hi) tS_d values of u_d, of which S_d + 2 hold points;
  // m_io carries the share of a whole tile's rows, clip_full (u_d = s_d + r: the harness
  // runs sub-tiles b in [floor(r_lo / tS_d), floor((S_d + r_hi - 2) / tS_d)], tile_2d and
  // tile_3d). A row range of fewer sub-tiles (a tile clipped in time, most of all one
  // taller than the problem, tT > T) holds a larger share: words_clip_ratio.
  // (Read only where clip_n > 0, which transfer_terms sets with them: left uninitialized
  // otherwise, so that `exact`, which builds a TransferTerms per evaluation, does not
  // zero them.)
  int clip_n = 0;
  i64 clip_size[2], clip_tile[2];
  i64 clip_q_full[2], clip_rem_full[2];  // (S_d + tT - 2) = q tS_d + rem
  double clip_full = 1.0, clip_lines_full = 1.0;
  // 2D/3D with the harness' counts: the halo frame per s1 value a row after the first
  // loads, (S2 + 2) - S2 in 2D, (S2 + 2)(S3 + 2) - S2 S3 in 3D, and the same over the
  // whole tile's sub-tiles (0 in 1D and without the harness' counts).
  double frame_words = 0, frame_per_subtile = 0;
  double store_scale = 1.0;  // 2D/3D, harness counts: prod_d S_d / (S_d + 2)

  double e_prefix(i64 n) const { return static_cast<double>(e_prefix_of(tT, n)); }
  // 1D: the points between a tile's run over the rows [r_lo, r_hi) and the next run of
  // the wavefront. The runs are [c0 - e_max - 1, c0 + tS1 + e_max + 1) a pitch 2 tS1 + tT
  // - 2 apart (tile_1d, make_wavefronts), e_max the widest of those rows' e(r): a whole
  // tile leaves tS1 - 2; rows clipped by T (a tile taller than the problem) leave up to
  // tS1 + tT - 4. The prefetcher streams at most gap_reach words of it.
  double gap_after(i64 r_lo, i64 r_hi) const {
    if (gap_reach <= 0.0) return 0.0;
    const i64 r = std::clamp<i64>((tT - 1) / 2, r_lo, r_hi - 1);  // e(r) peaks at (tT - 1) / 2
    const i64 e_max = std::min(r, tT - 1 - r);
    const double gap = std::max(0.0, tS1 + static_cast<double>(tT - 4 - 2 * e_max));
    return std::min(gap, gap_reach) * gap_dram;
  }
  // Words (1D), or lines of the cross-section (2D/3D), that the harness copies for the
  // tile rows [a, b) (tile_1d/2d/3d, counted by hand; replayed in tests): the first row
  // loads its span and its halo (W(a) + 2), each later row loads its new edge runs (2 + 2
  // while the tile grows, 1 + 1 at the widest row of an even tT), each row but the last
  // stores its edge runs read by the next tiles (2 + 2 while the tile shrinks, 1 + 1
  // before the widest row), the last row stores its span. A whole tile: 2 tS1 + 4 tT - 2.
  double row_profile(i64 a, i64 b) const {
    const i64 r_rise = (tT - 1) / 2;  // e(r) > e(r - 1) for r <= r_rise
    const bool even = tT % 2 == 0;
    const i64 loads4 = std::max<i64>(0, std::min(b - 1, r_rise) - a);
    const i64 loads2 = even && a + 1 <= h && h <= b - 1 ? 1 : 0;
    const i64 stores4 = std::max<i64>(0, b - 1 - std::max(a, h));
    const i64 stores2 = even && a <= h - 1 && h - 1 <= b - 2 ? 1 : 0;
    auto w = [&](i64 r) { return tS1 + 2.0 * static_cast<double>(std::min(r, tT - 1 - r)); };
    return w(a) + 2.0 + w(b - 1) + static_cast<double>(4 * (loads4 + stores4) +
                                                       2 * (loads2 + stores2));
  }
  // The stores of row_profile alone (the last row's span and the edge runs it and the
  // rows before it store): in 2D/3D each of them covers the computed u values (S_d per
  // inner dimension), where a load covers the halo too (S_d + 2): store_scale.
  double store_profile(i64 a, i64 b) const {
    const bool even = tT % 2 == 0;
    const i64 stores4 = std::max<i64>(0, b - 1 - std::max(a, h));
    const i64 stores2 = even && a <= h - 1 && h - 1 <= b - 2 ? 1 : 0;
    const double w_last = tS1 + 2.0 * static_cast<double>(std::min(b - 1, tT - b));
    return w_last + static_cast<double>(4 * stores4 + 2 * stores2);
  }
  // What counts() reads of the rows [r_lo, r_hi) that depends on tS1 and tT alone (the
  // grouped machine batch keeps it per (tS1, tT): computed per tile it was a tenth of the
  // batch's time).
  struct RowShape {
    double held = 1.0;       // the share of m_io the rows copy (row_words)
    double halo_rows = 0.0;  // 2D/3D: sum over the rows of W(r) + 2
    double prev_rows = 0.0;  // 2D/3D, row_words: sum of W(r) over [r_lo, r_hi - 1)
    double held_words = 1.0;  // held with the stores scaled by store_scale (row_words)
  };
  RowShape row_shape(i64 r_lo, i64 r_hi) const {
    RowShape s;
    // m_io (Eqs. A.8/A.14/A.25) holds 2 (tS1 + 2 tT) of these per cross-section.
    if (row_words) {
      const double per_m_io = 1.0 / (2.0 * (tS1 + 2.0 * static_cast<double>(tT)));
      s.held = row_profile(r_lo, r_hi) * per_m_io;
      if (dims != 1) {  // 1D: no halo in u (counts() reads held alone)
        s.held_words = s.held - store_profile(r_lo, r_hi) * (1.0 - store_scale) * per_m_io;
      }
    }
    if (dims != 1) {
      s.halo_rows = static_cast<double>(r_hi - r_lo) * tS1_halo +
                    2.0 * (e_prefix(r_hi) - e_prefix(r_lo));  // sum (W(r) + 2)
      if (row_words && r_hi - r_lo >= 2) {
        s.prev_rows = static_cast<double>(r_hi - 1 - r_lo) * tS1 +
                      2.0 * (e_prefix(r_hi - 1) - e_prefix(r_lo));  // sum W(r)
      }
    }
    return s;
  }
  // Row shapes a caller computed already for this tile's (tS1, tT) under the same count
  // rules (the grouped batch's LatticePlan::rows, by its TimePlan's row ranges [lo, hi)),
  // which counts() reads instead of computing them again (issue 21: per tile they were 5%
  // of a Heat 2D machine batch); none by default.
  struct KnownRowShapes {
    const i64* lo = nullptr;
    const i64* hi = nullptr;
    const RowShape* shapes = nullptr;
    int n = 0;
  };
  KnownRowShapes known;
  RowCounts counts(i64 r_lo, i64 r_hi) const {
    if (r_lo >= r_hi) return {};
    for (int q = 0; q < known.n; ++q) {
      if (known.lo[q] == r_lo && known.hi[q] == r_hi) return counts(r_lo, r_hi, known.shapes[q]);
    }
    return counts(r_lo, r_hi, row_shape(r_lo, r_hi));
  }
  // The rows [r_lo, r_hi)'s share of u values holding points over the whole tile's, of
  // the words (every inner dimension) and of the lines (3D: the outer one, u2); 1 for the
  // whole rows, the case of every wavefront but the first and last ones.
  struct ClipRatio {
    double words = 1.0, lines = 1.0;
    double frame = 0.0;  // frame_words over the rows' sub-tiles (2D) or sub-slabs (3D)
  };
  ClipRatio clip_ratio(i64 r_lo, i64 r_hi) const {
    ClipRatio out;
    out.frame = frame_per_subtile;
    if (clip_n == 0 || (r_lo == 0 && r_hi == tT)) return out;
    i64 q_lo[2] = {0, 0}, q_hi[2] = {0, 0};
    bool same = true;
    for (int d = 0; d < clip_n; ++d) {
      const i64 ts = clip_tile[d];
      // floor((S + r_hi - 2) / ts) from the whole tile's quotient: r_hi <= tT, and the
      // gap tT - r_hi is mostly under the remainder or under ts (no division).
      const i64 gap = tT - r_hi;
      q_hi[d] = gap <= clip_rem_full[d] ? clip_q_full[d]
                : gap - clip_rem_full[d] <= ts
                    ? clip_q_full[d] - 1
                    : clip_q_full[d] - div_ceil(gap - clip_rem_full[d], ts);
      q_lo[d] = r_lo < ts ? 0 : div_floor(r_lo, ts);
      same = same && q_lo[d] == 0 && q_hi[d] == clip_q_full[d];
    }
    // The first wavefront's rows [h, tT) and most last ones run the whole tile's sub-tiles.
    if (same) return out;
    double clip = 1.0, n_b_all = 1.0;
    for (int d = 0; d < clip_n; ++d) {
      const double n_b = static_cast<double>(q_hi[d] - q_lo[d] + 1);
      n_b_all *= n_b;
      const double span = n_b * static_cast<double>(clip_tile[d]);
      const double share = std::min(1.0, static_cast<double>(clip_size[d] + 2) / span);
      clip *= share;
      if (d == 0 && clip_n == 2) out.lines = share / clip_lines_full;
    }
    out.words = clip / clip_full;
    out.frame = frame_words / n_b_all;
    return out;
  }
  // The counts of m' for the rows [r_lo, r_hi) (r_lo < r_hi), their shape given.
  RowCounts counts(i64 r_lo, i64 r_hi, const RowShape& shape) const {
    RowCounts c;
    const double rows = static_cast<double>(r_hi - r_lo);
    const double held = shape.held;
    if (dims == 1) {
      c.words = row_words ? m_io * held : m_io;
      // The harness' copies of one 1D tile (tile_1d, counted by hand): the first row loads
      // its span, each later row loads its two new edge runs or stores its two edge runs,
      // the last row stores its span, and the two widest rows (h - 1, h), where the tile
      // stops growing, load and store both: 2 rows + 2 with both of them, else 2 rows.
      c.seg = 2.0 * rows + (r_lo < h && r_hi > h ? 2.0 : 0.0);
      c.share = share_lines ? rows : 0.0;
      c.gap = gap_after(r_lo, r_hi);
      return c;
    }
    if (!row_words) {
      c.words = m_io;
      c.seg = seg_2d;
    } else {
      const ClipRatio clip = clip_ratio(r_lo, r_hi);
      // Each row after the first loads, for the s1 values its previous row computed
      // (W(r - 1) of them), the halo frame its skewed window moved onto: u = r - 2 and
      // u = S + r - 1 per inner dimension (tile_2d/tile_3d), spread over the sub-tiles.
      c.words = m_io * shape.held_words * clip.words + clip.frame * shape.prev_rows;
      c.seg = seg_2d * held * clip.lines;
    }
    c.buf = buf_per_row * shape.halo_rows;
    return c;
  }
  double active(i64 n_tiles) const { return static_cast<double>(std::min(n_tiles, n_sm)); }
  double m_prime(i64 n_tiles, const RowCounts& c) const {
    if (!machine) return m_prime_exact;
    const double l = l_word + gamma * (active(n_tiles) - static_cast<double>(ref));
    const double m = c.words * l + two_tau + (c.seg * l_seg + c.buf * l_buf) + c.gap * l_gap;
    return n_tiles > 1 ? m + c.share * t_share : m;
  }
};

// The machine variant's critical thread in one wavefront (ExactModel::clipped_rounds).
struct ClippedRounds {
  double tiles = 0;  // tiles of the critical thread (the rounds)
  double share = 0;  // the sum of their shares of s1 points
  double cross = 0;  // s1 columns the busiest thread loads that another stored (cross_columns)
};

// clipped_rounds of the wavefront classes of one evaluation (at most five: j = 0, 1, 2 and
// the last one or two) depend on S1, T, the thread count, the schedule, tS1 and tT only,
// not on tS2, tS3, nV or any cost, while a batch or a search evaluates each (tS1, tT) for
// many tS2 (x tS3). So the fast path keeps them per thread, per (tS1, tT), in a
// direct-mapped table valid for one (S1, T, threads, schedule) (issue 15: computed per
// tile they made `machine` cost about 2x `exact`). A hit returns the values the
// computation stored, so the results are those of the per-tile computation bit for bit
// (cpp/tests/test_time_machine.cpp compares them).
struct ClippedGroup {
  std::uint64_t key = 0;  // tS1 << 32 | tT
  std::uint64_t gen = 0;  // valid when equal to the cache's generation (0: never)
  ClippedRounds rounds[5];
};

class ClippedCache {
 public:
  static constexpr int kSlotBits = 12;  // 4096 (tS1, tT) groups of 136 bytes: 544 KiB a thread

  // The group of (tS1, tT) under (S1, T, threads, blocks, cross), with `fresh` true where
  // the caller must fill it; nullptr where the cache is off or the sizes do not fit the key.
  // `cross`: whether the groups hold the cross-row counts (2D/3D at 2 threads or more;
  // 1D skips them, so a 1D group must not serve a 2D evaluation of the same S1 and T).
  ClippedGroup* find(std::int64_t S1, std::int64_t T, std::int64_t threads, bool blocks,
                     bool cross, std::int64_t tS1, std::int64_t tT, bool& fresh) {
    constexpr std::int64_t kKeyMax = std::int64_t{1} << 31;
    if (!enabled || tS1 < 1 || tT < 1 || tS1 >= kKeyMax || tT >= kKeyMax) return nullptr;
    if (S1 != S1_ || T != T_ || threads != threads_ || blocks != blocks_ || cross != cross_) {
      S1_ = S1;
      T_ = T;
      threads_ = threads;
      blocks_ = blocks;
      cross_ = cross;
      ++gen_;  // every stored group is now stale
    }
    if (slots_.empty()) slots_.resize(std::size_t{1} << kSlotBits);
    const std::uint64_t key = key_of(tS1, tT);
    ClippedGroup& g = slots_[slot_of(key)];
    fresh = g.gen != gen_ || g.key != key;
    if (fresh) {
      g.key = key;
      g.gen = gen_;
    } else {
      ++hits;
    }
    return &g;
  }

  bool enabled = true;
  std::uint64_t hits = 0;

 private:
  static std::uint64_t key_of(std::int64_t tS1, std::int64_t tT) {
    return static_cast<std::uint64_t>(tS1) << 32 | static_cast<std::uint64_t>(tT);
  }
  // Fibonacci hashing: the top bits of key x 2^64 / golden ratio.
  static std::size_t slot_of(std::uint64_t key) {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - kSlotBits));
  }
  std::int64_t S1_ = -1, T_ = -1, threads_ = -1;
  bool blocks_ = false;
  bool cross_ = false;
  std::uint64_t gen_ = 1;
  std::vector<ClippedGroup> slots_;
};

ClippedCache& clipped_cache() {
  thread_local ClippedCache cache;
  return cache;
}

#if COSTMETRICS_EXACT_AVX2
#define COSTMETRICS_EXACT_TARGET_AVX2 __attribute__((target("avx2")))
#define COSTMETRICS_EXACT_TARGET_AVX2_INLINE inline __attribute__((target("avx2"), always_inline))

bool exact_cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has;
}

// The state of the AVX2 2D fill: the row, W(r), the trail and lead counts, the prefix sums.
struct Fill2dState {
  std::int64_t r = 0, w = 0, trail = 0, lead = 0;
  __m256i acc;
};

// Rows [s.r, r_end) of the AVX2 2D fill with W(r) stepping by dw, in the stretches between
// the wraps of the trail count (to 0 after tS - 1) and the lead count (to tS after 1), as
// the scalar fill runs them.
COSTMETRICS_EXACT_TARGET_AVX2_INLINE void fill_2d_stretches_avx2(
    Fill2dState& s, std::int64_t* t4, std::int64_t r_end, std::int64_t dw, std::int64_t tso,
    __m256i round_up, __m128i count) {
  const __m256i step = _mm256_set_epi64x(0, -1, 0, 1);  // per row: trail + 1, lead - 1
  const __m256i dwv = _mm256_set1_epi64x(dw);
  __m256i wv = _mm256_set1_epi64x(s.w);
  __m256i acc = s.acc;
  while (s.r < r_end) {
    const std::int64_t n = std::min(std::min(r_end - s.r, tso - s.trail), s.lead);
    __m256i nv = _mm256_set_epi64x(0, s.lead, tso, s.trail);
    std::int64_t* out = t4 + 4 * (s.r + 1);
    for (std::int64_t i = 0; i < n; ++i, out += 4) {
      const __m256i x = _mm256_add_epi64(_mm256_mul_epu32(wv, nv), round_up);
      acc = _mm256_add_epi64(acc, _mm256_srl_epi64(x, count));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), acc);
      nv = _mm256_add_epi64(nv, step);
      wv = _mm256_add_epi64(wv, dwv);
    }
    s.r += n;
    s.w += n * dw;
    s.trail += n;
    s.lead -= n;
    if (s.trail == tso) s.trail = 0;
    if (s.lead == 0) s.lead = tso;
  }
  s.acc = acc;
}

// The 2D kind tables (ExactModel::build_kind_tables, by row) for nV = 2^shift, one row per
// vector: the lanes trail, full, lead (and a pad) hold the points per row of each kind
// n = (S + r) mod tS, tS, tS - (r mod tS), multiplied by W(r) = tS1 + 2 e(r) and divided by
// ceil(x / 2^shift) = (x + 2^shift - 1) >> shift, the integers of the scalar fill (lane by
// lane: W(r) unit and n are below 2^31, so _mm256_mul_epu32's 32 x 32 -> 64 bit product is
// exact; unit is S of a flattened dimension, else 1). Row 0 (zeros) is the caller's.
COSTMETRICS_EXACT_TARGET_AVX2 void fill_2d_rows_avx2(std::int64_t* t4, std::int64_t tT,
                                                     std::int64_t tS1, std::int64_t unit,
                                                     std::int64_t tso, std::int64_t trail,
                                                     std::int64_t lead, int shift) {
  const __m256i round_up = _mm256_set1_epi64x((std::int64_t{1} << shift) - 1);
  const __m128i count = _mm_cvtsi32_si128(shift);
  Fill2dState s;
  s.w = tS1 * unit;
  s.trail = trail;
  s.lead = lead;
  s.acc = _mm256_setzero_si256();
  // W(r) = tS1 + 2 e(r): +2 per row up to ceil(tT / 2), then -2 (as the scalar fill).
  const std::int64_t split = (tT + 1) / 2;
  fill_2d_stretches_avx2(s, t4, split, 2 * unit, tso, round_up, count);
  s.w = (tS1 + 2 * (tT - 1 - split)) * unit;
  fill_2d_stretches_avx2(s, t4, tT, -2 * unit, tso, round_up, count);
}
// ExactModel::cross_side's row walk, eight rows a vector (int32 lanes: the caller checks
// that every column and the sum fit), the same integers as the scalar walk: per row r in
// [r_begin, r_end), with e(x) = min(x, tT - 1 - x) and rho = r - 1 + dt, the columns
// [lo - 1, hi + 1) = [-e(r) - 1, tS1 + e(r) + 1) less the previous row's [-e(r - 1),
// tS1 + e(r - 1)) (none on row r_lo: an empty [0, 0) gives the same 0), each counted where
// it lies in the writer's [cn - e(rho), cn + tS1 + e(rho)) and not in the writer's next row's
// interior [cn - e(rho + 1) + 1, cn + tS1 + e(rho + 1) - 1) (none where rho + 1 >= n_hi).
// Cross_side's scalar walk was most of the machine batch's per-group work (issue 21).
COSTMETRICS_EXACT_TARGET_AVX2_INLINE __m256i cross_e(__m256i x, __m256i last_row) {
  return _mm256_min_epi32(x, _mm256_sub_epi32(last_row, x));
}
COSTMETRICS_EXACT_TARGET_AVX2_INLINE __m256i cross_overlap(__m256i a0, __m256i a1, __m256i b0,
                                                           __m256i b1) {
  return _mm256_max_epi32(_mm256_setzero_si256(),
                          _mm256_sub_epi32(_mm256_min_epi32(a1, b1), _mm256_max_epi32(a0, b0)));
}
// |[x0, x1) ∩ [a, b)| less |[x0, x1) ∩ [a, b) ∩ [in_lo, in_hi)| (cross_side's `stored`).
COSTMETRICS_EXACT_TARGET_AVX2_INLINE __m256i cross_stored(__m256i x0, __m256i x1, __m256i a,
                                                          __m256i b, __m256i in_lo,
                                                          __m256i in_hi) {
  return _mm256_sub_epi32(cross_overlap(x0, x1, a, b),
                          cross_overlap(_mm256_max_epi32(x0, a), _mm256_min_epi32(x1, b), in_lo,
                                        in_hi));
}
COSTMETRICS_EXACT_TARGET_AVX2 std::int64_t cross_rows_avx2(std::int32_t tT, std::int32_t tS1,
                                                           std::int32_t r_lo, std::int32_t dt,
                                                           std::int32_t n_hi, std::int32_t cn,
                                                           std::int32_t r_begin,
                                                           std::int32_t r_end) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i last_row = _mm256_set1_epi32(tT - 1);
  const __m256i width = _mm256_set1_epi32(tS1);
  const __m256i base = _mm256_set1_epi32(cn);
  const __m256i first_row = _mm256_set1_epi32(r_lo);
  const __m256i writer_end = _mm256_set1_epi32(n_hi);
  const __m256i end = _mm256_set1_epi32(r_end);
  const __m256i dt_less_one = _mm256_set1_epi32(dt - 1);
  __m256i acc = zero;
  __m256i r =
      _mm256_add_epi32(_mm256_set1_epi32(r_begin), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i eight = _mm256_set1_epi32(8);
  for (std::int32_t r0 = r_begin; r0 < r_end; r0 += 8, r = _mm256_add_epi32(r, eight)) {
    const __m256i e_r = cross_e(r, last_row);
    const __m256i rho = _mm256_add_epi32(r, dt_less_one);
    const __m256i e_rho = cross_e(rho, last_row);
    const __m256i e_next = cross_e(_mm256_add_epi32(rho, one), last_row);
    const __m256i lo = _mm256_sub_epi32(_mm256_sub_epi32(zero, e_r), one);  // lo - 1
    const __m256i hi = _mm256_add_epi32(_mm256_add_epi32(width, e_r), one);  // hi + 1
    const __m256i first = _mm256_cmpeq_epi32(r, first_row);
    const __m256i e_prev = cross_e(_mm256_sub_epi32(r, one), last_row);
    const __m256i skip_lo = _mm256_andnot_si256(first, _mm256_sub_epi32(zero, e_prev));
    const __m256i skip_hi = _mm256_andnot_si256(first, _mm256_add_epi32(width, e_prev));
    const __m256i a = _mm256_sub_epi32(base, e_rho);
    const __m256i b = _mm256_add_epi32(_mm256_add_epi32(base, width), e_rho);
    const __m256i has_in = _mm256_cmpgt_epi32(writer_end, _mm256_add_epi32(rho, one));
    const __m256i in_lo =
        _mm256_and_si256(has_in, _mm256_add_epi32(_mm256_sub_epi32(base, e_next), one));
    const __m256i in_hi = _mm256_and_si256(
        has_in, _mm256_sub_epi32(_mm256_add_epi32(_mm256_add_epi32(base, width), e_next), one));
    const __m256i loaded_all = cross_stored(lo, hi, a, b, in_lo, in_hi);
    const __m256i loaded_skip = cross_stored(_mm256_max_epi32(lo, skip_lo),
                                             _mm256_min_epi32(hi, skip_hi), a, b, in_lo, in_hi);
    const __m256i valid = _mm256_cmpgt_epi32(end, r);
    acc = _mm256_add_epi32(acc, _mm256_and_si256(valid, _mm256_sub_epi32(loaded_all, loaded_skip)));
  }
  alignas(32) std::int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  std::int64_t sum = 0;
  for (const std::int32_t x : lanes) sum += x;
  return sum;
}

// Whether cross_side's rows may take cross_rows_avx2 (set_cross_rows_simd).
std::atomic<bool> g_cross_rows_simd{true};

#undef COSTMETRICS_EXACT_TARGET_AVX2_INLINE
#undef COSTMETRICS_EXACT_TARGET_AVX2
#endif  // COSTMETRICS_EXACT_AVX2

// Extras: the machine variant's terms or the design row are wanted. Templated so that the
// `exact` variant compiles without their branches (its cost stays what it was).
template <bool Extras>
class ExactModel {
 public:
  // talg_only: the caller reads T_alg alone (evaluate_exact_talg), so the tabulated
  // dimension may be flattened (below), which changes c_s but not T_alg.
  ExactModel(const GpuParams& gpu, const StencilParams& stencil, const ProblemSize& size,
             const TileSizes& tiles, ExactPath path, bool machine, bool want_coef,
             bool talg_only = false, double dram = 0.0)
      : gpu_(gpu), stencil_(stencil), machine_(Extras && machine),
        want_coef_(Extras && want_coef) {
    need_lines_ = Extras && (machine || want_coef);
    dims_ = stencil.n_space_dims;
    tau_line_ = machine ? (dims_ == 3 ? gpu.machine.tau_line_3d_s : gpu.machine.tau_line_s) : 0.0;
    // 3D lines in DRAM cost more: tau_line_3d_dram_s times the arrays' DRAM share, `dram`
    // (dram_share, which the caller has computed for the transfer already; 0 by default,
    // where the term is not read: 1D/2D and `exact`).
    if (machine && dims_ == 3 && gpu.machine.tau_line_3d_dram_s > 0.0) {
      tau_line_ += gpu.machine.tau_line_3d_dram_s * dram;
    }
    S1_ = size.space[0];
    T_ = size.time_steps;
    tS1_ = tiles.space[0];
    tT_ = tiles.time;
    h_ = tT_ / 2;
    pitch_ = 2 * tS1_ + tT_ - 2;
    half_pitch_ = pitch_ / 2;
    // Iterate explicitly over the dimension with the smaller tile (its boundary sub-tiles
    // have at most 2 (tS - 1) partial rows each) and tabulate the other one per row.
    InnerDim inner[2];
    for (int d = 1; d < dims_; ++d) inner[d - 1] = {true, size.space[d], tiles.space[d]};
    s2_is_outer_ = true;
    if (dims_ == 3 && inner[1].tS < inner[0].tS) {
      std::swap(inner[0], inner[1]);
      s2_is_outer_ = false;
    }
    outer_dim_ = inner[0];
    table_dim_ = inner[1];
    n_v_ = ::costmetrics::detail::Reciprocal(gpu.n_v);
    // log2(nV) when nV is a power of two (the kind tables then divide by a shift), else -1.
    n_v_shift_ = -1;
    if (gpu.n_v > 0 && (gpu.n_v & (gpu.n_v - 1)) == 0) {
      n_v_shift_ = __builtin_ctzll(static_cast<unsigned long long>(gpu.n_v));
    }
    // Other nV below 2^22: floor(y / nV) = (y M) >> k for 0 <= y < 2^31, with
    // k = 31 + ceil(log2 nV) and M = ceil(2^k / nV). With y = q nV + r (0 <= r < nV) and
    // e = M nV - 2^k in [0, nV): y M / 2^k = q + (r + y e / 2^k) / nV, and y e < 2^31 nV
    // <= 2^k, so r + y e / 2^k < nV and the shift drops exactly the fraction. M < 2^32 + 1,
    // so y M < 2^64: the product is exact in 64 unsigned bits.
    n_v_magic_shift_ = -1;
    if (n_v_shift_ < 0 && gpu.n_v > 0 && gpu.n_v < (1 << 22)) {
      // ceil(log2 nV) for nV >= 3 (not a power of two): the bit length of nV - 1.
      const int log2_ceil = 64 - __builtin_clzll(static_cast<unsigned long long>(gpu.n_v - 1));
      n_v_magic_shift_ = kMagicBits + log2_ceil;  // <= 53
      const std::uint64_t two_k = std::uint64_t{1} << n_v_magic_shift_;
      const std::uint64_t d = static_cast<std::uint64_t>(gpu.n_v);
      n_v_magic_ = (two_k - 1) / d + 1;  // ceil(2^k / nV)
    }
    path_ = path;
    wide_s1_ = path == ExactPath::fast && whole_rows_fit(S1_, tS1_, tT_);
    // W(r) per row, read only where rows do not fit whole (the tables hold it otherwise).
    if (!wide_s1_) w_.resize(static_cast<std::size_t>(tT_));
    // 3D `exact`, T_alg alone: a tabulated dimension with tS >= S + tT - 1 has one sub-tile,
    // b = 0, with n(0, r) = min(tS - r, S) - max(-r, 0) = S points on every row of [0, tT)
    // (and no point of b = 1 there: b tS - S >= tT - 1). Every sub-tile pair of a wavefront
    // is then (outer class, b = 0), with the outer class's rows and S times its points per
    // row, so the 2D kind tables with W(r) S in place of W(r) give the same integers and
    // the same classes in the same order as the per-class row tables (test_time_exact
    // compares evaluate_exact_talg with the row walk on such tiles). Where the products
    // (tS1 + tT) S tS_outer stay below 2^31, every division of the tables is exact.
    if (!Extras && talg_only && wide_s1_ && dims_ == 3 && outer_dim_.tS <= outer_dim_.S &&
        table_dim_.tS >= table_dim_.S + tT_ - 1 &&
        static_cast<double>(tS1_ + tT_) * static_cast<double>(table_dim_.S) *
                static_cast<double>(outer_dim_.tS) <
            static_cast<double>(i64{1} << kMagicBits)) {
      flat_points_ = table_dim_.S;
      table_dim_ = InnerDim{};  // a placeholder: one class, every row full
    }
    kinds_ = wide_s1_ && (!outer_dim_.skewed || outer_dim_.tS <= outer_dim_.S) &&
             (!table_dim_.skewed || table_dim_.tS <= table_dim_.S);
  }

  i64 pitch() const { return pitch_; }

  // With wide_s1_, W(r) is the same for every wavefront, so the vector steps of a sub-tile
  // row depend on (sub-tile, row) only: tabulate them once per evaluation for the sub-tile
  // classes of the rows [0, tT) (prefix sums over the rows), and every wavefront's sub-tile
  // costs two lookups instead of a pass over its rows.
  void build_row_tables() {
    outer_rows_ = RowClasses(outer_dim_, tT_);
    table_rows_ = RowClasses(table_dim_, tT_);
    const i64 n_outer = outer_rows_.size();
    const i64 n_table = table_rows_.size();
    const std::size_t rows = static_cast<std::size_t>(tT_);
    const std::size_t stride = rows + 1;
    auto& counts = scratch_.row_counts;
    counts.resize(static_cast<std::size_t>(n_outer + n_table) * rows);
    auto fill_counts = [&](const InnerDim& d, const RowClasses& c, i64 n, double* out) {
      for (i64 q = 0; q < n; ++q) {
        const i64 b = c.representative(q);
        for (i64 r = 0; r < tT_; ++r) {
          out[static_cast<std::size_t>(q) * rows + static_cast<std::size_t>(r)] =
              static_cast<double>(d.count(b, r));
        }
      }
    };
    double* outer_counts = counts.data();
    double* table_counts = counts.data() + static_cast<std::size_t>(n_outer) * rows;
    fill_counts(outer_dim_, outer_rows_, n_outer, outer_counts);
    fill_counts(table_dim_, table_rows_, n_table, table_counts);
    std::vector<double>& w = scratch_.row_widths;
    w.resize(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      w[r] = static_cast<double>(widest_row(0, static_cast<i64>(r)));
    }
    auto& table = scratch_.row_table;
    table.resize(static_cast<std::size_t>(n_outer * n_table) * stride);
    for (i64 qo = 0; qo < n_outer; ++qo) {
      const double* co = outer_counts + static_cast<std::size_t>(qo) * rows;
      for (i64 qt = 0; qt < n_table; ++qt) {
        const double* ct = table_counts + static_cast<std::size_t>(qt) * rows;
        double* pre = table.data() + static_cast<std::size_t>(qo * n_table + qt) * stride;
        pre[0] = 0;
        for (std::size_t r = 0; r < rows; ++r) {
          const i64 points = static_cast<i64>(w[r] * co[r] * ct[r]);
          const double steps = static_cast<double>(ceil_n_v(points));
          pre[r + 1] = pre[r] + steps;
        }
      }
    }
    if constexpr (Extras) {
      if (need_lines_) build_line_tables();
    }
    tables_ready_ = true;
  }

  // Machine variant (wide S1): prefix sums over the rows [0, tT) of W(r) (2D lines) and, in
  // 3D, of W(r) n_s2(b, r) per class of the s2 dimension (its lines along s3).
  void build_line_tables() {
    const std::size_t rows = static_cast<std::size_t>(tT_);
    const std::vector<double>& w = scratch_.row_widths;
    auto& wp = scratch_.width_prefix;
    wp.resize(rows + 1);
    wp[0] = 0;
    for (std::size_t r = 0; r < rows; ++r) wp[r + 1] = wp[r] + w[r];
    if (dims_ != 3) return;
    const InnerDim& d = s2_is_outer_ ? outer_dim_ : table_dim_;
    const RowClasses& c = s2_is_outer_ ? outer_rows_ : table_rows_;
    const i64 n = c.size();
    auto& lt = scratch_.line_table;
    lt.resize(static_cast<std::size_t>(n) * (rows + 1));
    for (i64 q = 0; q < n; ++q) {
      const i64 b = c.representative(q);
      double* pre = lt.data() + static_cast<std::size_t>(q) * (rows + 1);
      pre[0] = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        pre[r + 1] = pre[r] + w[r] * static_cast<double>(d.count(b, static_cast<i64>(r)));
      }
    }
  }

  // Lines computed by sub-tile (b_outer, b_table) over its rows [lo, hi] (rows with points):
  // 1D one per row; 2D W(r) lines of s2 per row; 3D W(r) n_s2(r) lines of s3 per row. With
  // W(r) the same in every wavefront (wide_s1_), from the evaluation's tables; otherwise
  // prefix_lines, from the wavefront's.
  double subtile_lines(i64 b_outer, i64 b_table, Rows rows) const {
    if (dims_ == 1) return static_cast<double>(rows.size());
    if (kinds_) return kind_lines(b_outer, b_table, rows);
    if (dims_ == 2) {
      const auto& wp = scratch_.width_prefix;
      return wp[static_cast<std::size_t>(rows.hi + 1)] - wp[static_cast<std::size_t>(rows.lo)];
    }
    const RowClasses& c = s2_is_outer_ ? outer_rows_ : table_rows_;
    const i64 q = c.index(s2_is_outer_ ? b_outer : b_table);
    const double* pre =
        scratch_.line_table.data() + static_cast<std::size_t>(q) * (static_cast<std::size_t>(tT_) + 1);
    return pre[rows.hi + 1] - pre[rows.lo];
  }

  // subtile_lines where W(r) is not the same in every wavefront (not wide_s1_): per
  // wavefront, prefix sums over its rows [ra, rb) of W(r) (2D) or of W(r) n_s2(b, r) per
  // class of the s2 dimension (3D: the table's classes in table_classes_' order, or the
  // outer ones in for_each_subtile_class's), so that a sub-tile's lines cost two look-ups
  // instead of a pass over its rows (issue 21: the pass was a third of what the machine
  // variant added to a Heat 3D batch). The integers of subtile_lines' row walk: each term
  // and partial sum is an integer below 2^53, so its double sum is this integer exactly.
  // (1D needs none: one line per row.)
  void build_line_prefix(i64 ra, i64 rb) {
    const std::size_t stride = static_cast<std::size_t>(rb - ra + 1);
    auto fill = [&](std::size_t q, auto&& n_s2) {
      i64* pre = &line_prefix_[q * stride];
      pre[0] = 0;
      for (i64 r = ra; r < rb; ++r) {
        pre[r - ra + 1] = pre[r - ra] + w_[static_cast<std::size_t>(r)] * n_s2(r);
      }
    };
    if (dims_ == 1) return;
    if (dims_ == 2) {
      line_prefix_.resize(stride);
      fill(0, [](i64) { return i64{1}; });
    } else if (!s2_is_outer_) {
      line_prefix_.resize(table_classes_.size() * stride);
      for (std::size_t q = 0; q < table_classes_.size(); ++q) {
        const i64 b = table_classes_[q].b;
        fill(q, [&](i64 r) { return table_dim_.count(b, r); });
      }
    } else {
      std::size_t n = 0;
      for_each_subtile_class(outer_dim_, ra, rb, [&](i64, i64, std::size_t) { ++n; });
      line_prefix_.resize(n * stride);
      for_each_subtile_class(outer_dim_, ra, rb, [&](i64 ob, i64, std::size_t q) {
        fill(q, [&](i64 r) { return outer_dim_.count(ob, r); });
      });
    }
  }
  // The lines of sub-tile (outer class o_ord, table class q) over `rows` (in [ra, rb))
  // from build_line_prefix (1D: one per row).
  double prefix_lines(std::size_t o_ord, std::size_t q, Rows rows, i64 ra,
                      std::size_t stride) const {
    if (dims_ == 1) return static_cast<double>(rows.size());
    const std::size_t cls = dims_ == 2 ? 0 : s2_is_outer_ ? o_ord : q;
    const i64* pre = &line_prefix_[cls * stride];
    return static_cast<double>(pre[rows.hi - ra + 1] - pre[rows.lo - ra]);
  }

  // Lines of a sub-tile full on every row of an interior wavefront (Breakdown::c_s).
  double full_subtile_lines() const {
    if (dims_ == 1) return static_cast<double>(tT_);
    double widths = 0;
    if (wide_s1_) {
      widths = static_cast<double>(tT_ * tS1_ + 2 * h_ * (h_ - 1));  // sum of tS1 + 2 e(r)
    } else {
      for (i64 r = 0; r < tT_; ++r) widths += static_cast<double>(widest_row(0, r));
    }
    const double s2 = dims_ == 3 ? static_cast<double>(s2_is_outer_ ? outer_dim_.full_count()
                                                                    : table_dim_.full_count())
                                 : 1.0;
    return widths * s2;
  }

  // With wide_s1_ and tS <= S in every inner dimension (kinds_): one prefix table over the
  // rows [0, tT) per pair of row kinds (InnerDim::segments; 3 pairs in 2D, 9 in 3D, 1 in
  // 1D) instead of one per pair of sub-tile classes, so that building them costs O(tT)
  // vector-step divisions whatever tS is, and a sub-tile's steps are at most five range
  // sums. The integers are those of the row-by-row walk (same rows, same products).
  void build_kind_tables() {
    const std::size_t stride = static_cast<std::size_t>(tT_) + 1;
    auto& table = scratch_.kind_table;
    if (table.size() < 9 * stride) table.resize(9 * stride);  // grow only: no refill
    // The pairs of kinds present (a placeholder dimension: kFull) and their columns, for
    // generic_rows (the 2D and 3D `exact` fills below write their own tables).
    int kinds[9];
    int n_pairs = 0;
    i64 acc[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    i64* pre[9];
    auto prepare_generic = [&] {
      const int n_outer = outer_dim_.skewed ? 3 : 1;
      const int n_table = table_dim_.skewed ? 3 : 1;
      for (int a = 0; a < n_outer; ++a) {
        for (int c = 0; c < n_table; ++c) {
          const int ko = outer_dim_.skewed ? a : InnerDim::kFull;
          const int kt = table_dim_.skewed ? c : InnerDim::kFull;
          kinds[n_pairs++] = ko * 3 + kt;
        }
      }
      for (int p = 0; p < n_pairs; ++p) {
        pre[p] = table.data() + static_cast<std::size_t>(kinds[p]) * stride;
        pre[p][0] = 0;
      }
    };
    // r mod tS and (S + r) mod tS, advanced row by row.
    const i64 tso = outer_dim_.tS, tst = table_dim_.tS;
    auto mod = [](i64 a, i64 b) { return a - div_floor(a, b) * b; };
    i64 mod_o = 0, trail_o = outer_dim_.skewed ? mod(outer_dim_.S, tso) : 0;
    i64 mod_t = 0, trail_t = table_dim_.skewed ? mod(table_dim_.S, tst) : 0;
    const bool lines3 = Extras && need_lines_ && dims_ == 3;
    double* lpre[3] = {nullptr, nullptr, nullptr};
    double lacc[3] = {0, 0, 0};
    if (lines3) {
      if (scratch_.kind_lines.size() < 3 * stride) scratch_.kind_lines.resize(3 * stride);
      for (int k = 0; k < 3; ++k) {
        lpre[k] = scratch_.kind_lines.data() + static_cast<std::size_t>(k) * stride;
        lpre[k][0] = 0;
      }
    }
    if (outer_dim_.skewed && !table_dim_.skewed && !lines3) {
      // 2D: the three kinds of the s2 dimension, unrolled, stored by row (row r's prefix
      // sums of the kinds trail, full, lead at 4 r, 4 r + 1, 4 r + 2; kind_table_2d()), so
      // that a row is one vector store in the AVX2 fill.
      i64* const t4 = table.data();
      t4[0] = t4[1] = t4[2] = t4[3] = 0;
      bool filled = false;
#if COSTMETRICS_EXACT_AVX2
      if (n_v_shift_ >= 0 && exact_cpu_has_avx2()) {
        fill_2d_rows_avx2(t4, tT_, tS1_, flat_points_, tso, trail_o, tso - mod_o, n_v_shift_);
        filled = true;
      }
#endif
      auto fill = [&](auto ceil_div_n_v) COSTMETRICS_LAMBDA_INLINE {
        i64 at = 0, af = 0, al = 0;
        // The lead count tso - (r mod tso) (in [1, tso]) and the trail count
        // (S + r) mod tso (trail_o) change by -1 and +1 per row and wrap (to tso, to 0)
        // after the rows where they are 1 and tso - 1: the rows run in stretches without
        // a wrap (no test per row; the same integers as testing each row).
        i64 lead = tso - mod_o;
        i64 r = 0;
        i64 w = tS1_ * flat_points_;  // W(r), times S of a flattened dimension
        auto rows = [&](i64 r_end, i64 dw) COSTMETRICS_LAMBDA_INLINE {
          while (r < r_end) {
            const i64 n = std::min(std::min(r_end - r, tso - trail_o), lead);
            const i64 stop = r + n;
            for (; r < stop; ++r, w += dw, ++trail_o, --lead) {
              const std::size_t next = static_cast<std::size_t>(r) + 1;
              at += ceil_div_n_v(w * trail_o);
              af += ceil_div_n_v(w * tso);
              al += ceil_div_n_v(w * lead);
              i64* const row = t4 + 4 * next;
              row[InnerDim::kTrail] = at;
              row[InnerDim::kFull] = af;
              row[InnerDim::kLead] = al;
            }
            if (trail_o == tso) trail_o = 0;
            if (lead == 0) lead = tso;
          }
        };
        // W(r) = tS1 + 2 e(r): e(r) = r for r < ceil(tT / 2), tT - 1 - r after, so the
        // width steps by +2 then by -2 (no min() per row).
        const i64 split = (tT_ + 1) / 2;
        rows(split, 2 * flat_points_);
        w = (tS1_ + 2 * (tT_ - 1 - split)) * flat_points_;
        rows(tT_, -2 * flat_points_);
      };
      if (!filled) with_ceil_n_v(magic_fits(tso * flat_points_), fill);
    }
    // The multiply-and-shift division (n_v_magic_) where every numerator is below 2^31.
    const bool magic_ok = magic_fits(outer_dim_.full_count() * table_dim_.full_count());
    // The loop with the lines of 3D known at compile time (with them a runtime flag, the
    // loop of the other cases compiled slower: issue 15, `machine` against `exact` in 1D).
    auto generic_rows = [&](auto with_lines3) COSTMETRICS_LAMBDA_INLINE {
      constexpr bool kLines3 = decltype(with_lines3)::value;
      for (i64 r = 0; r < tT_; ++r) {
        const i64 w = tS1_ + 2 * e(r);
        i64 no[3] = {1, 1, 1};
        i64 nt[3] = {1, 1, 1};
        if (outer_dim_.skewed) no[0] = trail_o, no[1] = tso, no[2] = tso - mod_o;
        if (table_dim_.skewed) nt[0] = trail_t, nt[1] = tst, nt[2] = tst - mod_t;
        const std::size_t next = static_cast<std::size_t>(r) + 1;
        for (int p = 0; p < n_pairs; ++p) {
          const i64 points = w * no[kinds[p] / 3] * nt[kinds[p] % 3];
          i64 steps = 0;
          if (n_v_shift_ >= 0) {
            steps = (points + ((i64{1} << n_v_shift_) - 1)) >> n_v_shift_;
          } else if (magic_ok) {
            steps = static_cast<i64>(
                (static_cast<std::uint64_t>(points + gpu_.n_v - 1) * n_v_magic_) >> n_v_magic_shift_);
          } else {
            steps = ceil_n_v(points);
          }
          acc[p] += steps;
          pre[p][next] = acc[p];
        }
        if constexpr (kLines3) {
          const i64* n2 = s2_is_outer_ ? no : nt;
          for (int k = 0; k < 3; ++k) {
            lacc[k] += static_cast<double>(w) * static_cast<double>(n2[k]);
            lpre[k][next] = lacc[k];
          }
        }
        if (++mod_o == tso) mod_o = 0;
        if (++trail_o == tso) trail_o = 0;
        if (++mod_t == tst) mod_t = 0;
        if (++trail_t == tst) trail_t = 0;
      }
    };
    // 3D `exact` (both inner dimensions skewed, no lines): the nine pairs of kinds written
    // out (kind pair p = ko * 3 + kt, as kinds[] holds them here): per row three products
    // W(r) n_outer, then nine divisions, with no look-up of the pair's kinds (the integers
    // of generic_rows, in the same tables).
    auto fill3 = [&](auto ceil_div_n_v) COSTMETRICS_LAMBDA_INLINE {
      i64* const base = table.data();
      // Row 0 of each pair's column (prefix sums start at 0).
      base[0] = base[stride] = base[2 * stride] = base[3 * stride] = base[4 * stride] = 0;
      base[5 * stride] = base[6 * stride] = base[7 * stride] = base[8 * stride] = 0;
      i64 a[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
      for (i64 r = 0; r < tT_; ++r) {
        const i64 w = tS1_ + 2 * e(r);
        const i64 wo[3] = {w * trail_o, w * tso, w * (tso - mod_o)};
        const i64 nt[3] = {trail_t, tst, tst - mod_t};
        i64* const row = base + static_cast<std::size_t>(r) + 1;
        for (int ko = 0; ko < 3; ++ko) {
          for (int kt = 0; kt < 3; ++kt) {
            a[ko * 3 + kt] += ceil_div_n_v(wo[ko] * nt[kt]);
            row[static_cast<std::size_t>(ko * 3 + kt) * stride] = a[ko * 3 + kt];
          }
        }
        if (++mod_o == tso) mod_o = 0;
        if (++trail_o == tso) trail_o = 0;
        if (++mod_t == tst) mod_t = 0;
        if (++trail_t == tst) trail_t = 0;
      }
    };
    if (lines3) {
      prepare_generic();
      generic_rows(std::true_type{});
    } else if (outer_dim_.skewed && table_dim_.skewed) {
      with_ceil_n_v(magic_ok, fill3);
    } else if (!(outer_dim_.skewed && !table_dim_.skewed)) {
      prepare_generic();
      generic_rows(std::false_type{});
    }
    if constexpr (Extras) {
      // 2D lines: prefix sums of W(r) (kind_lines; 1D counts rows, 3D the lines3 tables),
      // read only by the class loop that tracks coefficients (the other one sums W(r) in
      // closed form).
      if (want_coef_ && dims_ == 2) {
        auto& wp = scratch_.width_prefix;
        if (wp.size() < stride) wp.resize(stride);
        wp[0] = 0;
        for (i64 r = 0; r < tT_; ++r) {
          wp[static_cast<std::size_t>(r) + 1] =
              wp[static_cast<std::size_t>(r)] + static_cast<double>(tS1_ + 2 * e(r));
        }
      }
    }
    tables_ready_ = true;
  }

  // Vector steps of sub-tile (b_outer, b_table) over its rows [rows.lo, rows.hi] with points
  // (kinds_ tables).
  __attribute__((always_inline)) double kind_steps(i64 b_outer, i64 b_table, Rows rows) const {
    Rows so[3];
    Rows st[3];
    outer_dim_.segments(b_outer, rows.lo, rows.hi, so);
    if (table_dim_.skewed) table_dim_.segments(b_table, rows.lo, rows.hi, st);
    const std::size_t stride = static_cast<std::size_t>(tT_) + 1;
    const i64* table = scratch_.kind_table.data();
    i64 sum = 0;
    if (!table_dim_.skewed) {  // 1D, 2D: the placeholder's rows are all kFull
      for (int ko = 0; ko < 3; ++ko) {
        if (so[ko].empty()) continue;
        if (outer_dim_.skewed) {  // 2D: by row
          const i64* t4 = kind_table_2d();
          sum += t4[4 * static_cast<std::size_t>(so[ko].hi + 1) + static_cast<std::size_t>(ko)] -
                 t4[4 * static_cast<std::size_t>(so[ko].lo) + static_cast<std::size_t>(ko)];
          continue;
        }
        const i64* pre = table + static_cast<std::size_t>(ko * 3 + InnerDim::kFull) * stride;
        sum += pre[so[ko].hi + 1] - pre[so[ko].lo];
      }
      return static_cast<double>(sum);
    }
    for (int ko = 0; ko < 3; ++ko) {
      if (so[ko].empty()) continue;
      for (int kt = 0; kt < 3; ++kt) {
        const Rows x = intersect(so[ko], st[kt]);
        if (x.empty()) continue;
        const i64* pre = table + static_cast<std::size_t>(ko * 3 + kt) * stride;
        sum += pre[x.hi + 1] - pre[x.lo];
      }
    }
    return static_cast<double>(sum);
  }

  // 3D `exact` on the kind tables: c of every pair (outer class ob, table class) of one
  // wavefront, accumulated as the class loop of wavefront() does. Row r of a dimension's
  // sub-tile b is of kind trail for r < (b+1) tS - S, full up to r = b tS, lead after
  // (InnerDim::segments; the two switches are in this order as tS <= S), so the pair's
  // rows split into at most five runs of one (outer kind, table kind), each one range sum
  // of that pair's kind table: the same integer as kind_steps' nine intersections.
  // KOne (k = 1): tile_time_s reads n_sub and sum c only, else sum max(m', c) only, so only
  // those are accumulated (the same operations on them, in the same order).
  // Machine: the machine variant without coefficients (issue 21: its generic pair loop made
  // a 3D DRAM-sized batch 2.7x `exact`): the generic loop's c with its per-line overhead
  // (kind_lines, tau_line), and every sum it keeps, steps_all included, in its order.
  template <bool KOne, bool Machine = false>
  __attribute__((always_inline)) void pair_loop_3d(i64 ob, i64 omult, Rows nz_o,
                                                   const SubtileRange& tr, double m_prime,
                                                   double c_iter, double tau, double& sum_c,
                                                   double& sum_max, i64& n_sub,
                                                   double* steps_all = nullptr) const {
    const i64 tso = outer_dim_.tS, tst = table_dim_.tS, St = table_dim_.S;
    const i64 xa = (ob + 1) * tso - outer_dim_.S;  // outer: first full row
    const i64 xb = ob * tso + 1;                    // outer: first lead row
    const std::size_t stride = static_cast<std::size_t>(tT_) + 1;
    const i64* table = scratch_.kind_table.data();
    const double* line_table = Machine ? scratch_.kind_lines.data() : nullptr;
    // Pair (ob, tb) standing for `mult` sub-tiles (mult_d = double(mult)).
    auto pair = [&](i64 tb, i64 mult, double mult_d) COSTMETRICS_LAMBDA_INLINE {
      // Rows with points of both sub-tiles (nonzero_rows of each, intersected).
      const i64 lo = std::max(nz_o.lo, tb * tst - St + 1);
      const i64 hi = std::min(nz_o.hi, (tb + 1) * tst - 1);
      if (lo > hi) return;  // no point in this wavefront: the sub-tile is skipped
      const i64 ya = (tb + 1) * tst - St;  // table: first full row
      const i64 yb = tb * tst + 1;         // table: first lead row
      const i64 end = hi + 1;
      // The kinds at row lo, then run by run (xa < xb and ya < yb: one switch at a time
      // per dimension).
      i64 r = lo;
      i64 sum = 0;
      // Machine: the lines, sum of W(r) n_s2(r) (kind_lines), run by run, the s2 dimension's
      // kind being constant on a run. The same integer as kind_lines' sum over its kinds'
      // segments (prefix sums of integers, exact in a double), without the segments (issue
      // 21: the segments cost about 7% of a DRAM-sized 3D machine batch).
      double lines_all = 0;
      for (;;) {
        const int ko = (r >= xa ? 1 : 0) + (r >= xb ? 1 : 0);
        const int kt = (r >= ya ? 1 : 0) + (r >= yb ? 1 : 0);
        const i64 next_o = ko == 0 ? xa : ko == 1 ? xb : end;
        const i64 next_t = kt == 0 ? ya : kt == 1 ? yb : end;
        const i64 stop = std::min(std::min(next_o, next_t), end);
        const i64* pre = table + static_cast<std::size_t>(ko * 3 + kt) * stride;
        sum += pre[stop] - pre[r];
        if constexpr (Machine) {
          const double* lpre =
              line_table + static_cast<std::size_t>(s2_is_outer_ ? ko : kt) * stride;
          lines_all += lpre[stop] - lpre[r];
        }
        if (stop == end) break;
        r = stop;
      }
      // Rule 6 (exact Eqs. A.10/A.16/A.28), as in wavefront().
      if constexpr (Machine) {
        const double steps = static_cast<double>(sum);
        double c = c_iter * steps + tau * static_cast<double>(end - lo);
        const double lines = lines_all - static_cast<double>(end - lo);
        c += tau_line_ * lines;
        sum_c += mult_d * c;
        sum_max += mult_d * std::max(m_prime, c);
        n_sub += mult;
        *steps_all += mult_d * steps;
        return;
      }
      const double c = c_iter * static_cast<double>(sum) + tau * static_cast<double>(end - lo);
      if constexpr (KOne) {
        sum_c += mult_d * c;
        n_sub += mult;
      } else {
        sum_max += mult_d * std::max(m_prime, c);
      }
    };
    // for_each_subtile_class(table_dim_, ra, rb) with the range computed once per wavefront;
    // a boundary class stands for omult x 1 sub-tiles.
    const double omult_d = static_cast<double>(omult);
    if (tr.full_lo <= tr.full_hi) {
      for (i64 b = tr.b_min; b < tr.full_lo; ++b) pair(b, omult, omult_d);
      const i64 full_mult = omult * (tr.full_hi - tr.full_lo + 1);
      pair(tr.full_lo, full_mult, static_cast<double>(full_mult));
      for (i64 b = tr.full_hi + 1; b <= tr.b_max; ++b) pair(b, omult, omult_d);
    } else {
      for (i64 b = tr.b_min; b <= tr.b_max; ++b) pair(b, omult, omult_d);
    }
  }

  // Lines of sub-tile (b_outer, b_table) over its rows with points (kinds_ tables): 2D the
  // sum of W(r), 3D of W(r) n_s2(b, r) by the kinds of the s2 dimension.
  double kind_lines(i64 b_outer, i64 b_table, Rows rows) const {
    const std::size_t lo = static_cast<std::size_t>(rows.lo);
    const std::size_t hi = static_cast<std::size_t>(rows.hi) + 1;
    if (dims_ == 2) return scratch_.width_prefix[hi] - scratch_.width_prefix[lo];
    Rows seg[3];
    if (s2_is_outer_) {
      outer_dim_.segments(b_outer, rows.lo, rows.hi, seg);
    } else {
      table_dim_.segments(b_table, rows.lo, rows.hi, seg);
    }
    const std::size_t stride = static_cast<std::size_t>(tT_) + 1;
    double lines = 0;
    for (int k = 0; k < 3; ++k) {
      if (seg[k].empty()) continue;
      const double* pre = scratch_.kind_lines.data() + static_cast<std::size_t>(k) * stride;
      lines += pre[seg[k].hi + 1] - pre[seg[k].lo];
    }
    return lines;
  }

  // Vector steps of outer sub-tile b_outer x table sub-tile b_table over the rows [lo, hi].
  double table_steps(i64 b_outer, i64 b_table, i64 lo, i64 hi) const {
    const std::size_t stride = static_cast<std::size_t>(tT_) + 1;
    const std::size_t pair = static_cast<std::size_t>(
        outer_rows_.index(b_outer) * table_rows_.size() + table_rows_.index(b_table));
    const double* pre = scratch_.row_table.data() + pair * stride;
    return pre[hi + 1] - pre[lo];
  }

  // The 2D kind tables, by row: the prefix sums of the kinds trail, full, lead over the rows
  // [0, r) at 4 r + kind (build_kind_tables).
  const i64* kind_table_2d() const { return scratch_.kind_table.data(); }

  // e(r) = min(r, tT - 1 - r): the hexagon's half-widening at relative row r.
  i64 e(i64 r) const { return std::min(r, tT_ - 1 - r); }
  __attribute__((always_inline)) i64 e_prefix(i64 n) const { return e_prefix_of(tT_, n); }

  // Base column of the tiles p = 0 of wavefront j (rule 2).
  i64 offset(i64 j) const { return (j & 1) != 0 ? 0 : half_pitch_; }  // j >= 0

  // The machine variant on the CPU harness: the rounds of wavefront j weighted by the
  // share of the s1 points each tile holds (docs/time.md, "Tiles clipped at the ends of
  // [0, S1)"). T_i charges every tile of the wavefront as the widest one (W(r), rule 6);
  // the harness computes and copies only the points of a tile in [0, S1), so the tiles
  // clipped at the two ends do less. A tile's share is sum_r |row r of the tile ∩ [0, S1)|
  // over sum_r W(r) (the rows [r_lo, r_hi) in [0, T)); tiles entirely inside have share 1.
  // The harness deals tile i of n (ordered by p, cpp/src/measure.cpp) to thread t's
  // block [t n / threads, (t+1) n / threads) (or i mod threads, round-robin); the critical
  // thread is the one with the largest sum of shares (ties: the most tiles), whose tiles
  // (at most ceil(n / threads), the rounds) and shares are returned. Choosing it by the
  // shares, not by times, keeps T_alg linear in the parameters.
  // Only the few tiles at the two ends (within tS1 + 2 h of them) are clipped, so this
  // costs O(tT) per clipped tile and O(threads) per wavefront.
  ClippedRounds clipped_rounds(i64 j, i64 threads, bool blocks) const {
    const i64 t0 = (j - 1) * h_;
    const i64 r_lo = std::max<i64>(0, -t0);
    const i64 r_hi = std::min(tT_, T_ - t0);
    const i64 off = offset(j);
    if (r_lo >= r_hi || threads < 1) return {};
    const i64 e_max = std::max(e(std::clamp(h_ - 1, r_lo, r_hi - 1)),
                               e(std::clamp(h_, r_lo, r_hi - 1)));
    const i64 p_min = floor_div(-tS1_ - e_max - off, pitch_) + 1;
    const i64 p_max = floor_div(S1_ + e_max - off - 1, pitch_);
    const i64 n = std::max<i64>(0, p_max - p_min + 1);
    if (n == 0) return {};
    // The rows [r_lo, r_hi) as two runs of e: rising (e = r, r <= (tT-1)/2) and falling
    // (e = tT-1-r), each a contiguous range of e, so that sums over the rows are O(1).
    const i64 mid = (tT_ - 1) / 2;  // last row of the rising run
    const i64 up_lo = r_lo, up_hi = std::min(r_hi - 1, mid);          // e = r
    const i64 dn_lo = std::max(r_lo, mid + 1), dn_hi = r_hi - 1;      // e = tT-1-r
    // sum over e in [a, b] of max(0, g(e)), g(e) = min(c0 + tS1 + e, S1) - max(c0 - e, 0):
    // g is nondecreasing and linear between e = c0 and e = S1 - c0 - tS1 (slopes 2, 1, 0).
    auto sum_points = [&](i64 c0, i64 a, i64 b) {
      if (a > b) return i64{0};
      const i64 e1 = c0, e2 = S1_ - c0 - tS1_;
      const i64 c1 = std::clamp(e1, a, b + 1), c2 = std::clamp(e2, a, b + 1);
      const i64 cuts[4] = {a, std::min(c1, c2), std::max(c1, c2), b + 1};
      i64 sum = 0;
      for (int k = 0; k < 3; ++k) {
        const i64 lo = cuts[k], hi = cuts[k + 1] - 1;  // g linear on [lo, hi]
        if (lo > hi) continue;
        // g(e) = alpha + beta e on this piece (from its two clips at e = lo).
        const i64 beta = (lo < e1 ? 1 : 0) + (lo < e2 ? 1 : 0);
        const i64 alpha = (std::min(c0 + tS1_ + lo, S1_) - std::max<i64>(c0 - lo, 0)) - beta * lo;
        i64 first = lo;  // first e of the piece with g(e) > 0
        if (beta == 0) {
          if (alpha <= 0) continue;
        } else if (alpha + beta * lo <= 0) {
          first = floor_div(-alpha, beta) + 1;
        }
        if (first > hi) continue;
        const i64 cnt = hi - first + 1;
        sum += alpha * cnt + beta * (first + hi) * cnt / 2;
      }
      return sum;
    };
    const bool same_runs = up_lo == tT_ - 1 - dn_hi && up_hi == tT_ - 1 - dn_lo;
    auto points_of = [&](i64 c0) {
      const i64 up = sum_points(c0, up_lo, up_hi);
      return same_runs ? 2 * up : up + sum_points(c0, tT_ - 1 - dn_hi, tT_ - 1 - dn_lo);
    };
    i64 widest = 0;
    if (wide_s1_) {
      // W(r) = tS1 + 2 e(r): a tile with all its points in [0, S1) (c0 = S1 stands far
      // enough inside for the sum only through its formula, not its clips).
      auto sum_e = [](i64 a, i64 b) { return a > b ? i64{0} : (a + b) * (b - a + 1) / 2; };
      const i64 rows = r_hi - r_lo;
      widest = tS1_ * rows + 2 * (sum_e(up_lo, up_hi) + sum_e(tT_ - 1 - dn_hi, tT_ - 1 - dn_lo));
    } else {
      for (i64 r = r_lo; r < r_hi; ++r) widest += widest_row(off, r);
    }
    if (widest <= 0) {
      const double rounds = static_cast<double>(div_ceil(n, threads));
      return {rounds, rounds};
    }
    // Points of tile p (index i = p - p_min) in [0, S1), summed over its rows.
    auto points = [&](i64 i) { return points_of(off + (p_min + i) * pitch_); };
    // Deficits 1 - share of the clipped tiles: those whose widest row crosses 0
    // (c0 - e_max < 0) or S1 (c0 + tS1 + e_max > S1); every other tile is whole.
    auto& deficit = scratch_.deficit;  // reused: no allocation per wavefront
    deficit.clear();
    auto add_deficit = [&](i64 i) {
      const i64 pts = points(i);
      if (pts < widest) {
        deficit.emplace_back(i, 1.0 - static_cast<double>(pts) / static_cast<double>(widest));
      }
    };
    i64 left = 0;
    for (; left < n && off + (p_min + left) * pitch_ - e_max < 0; ++left) add_deficit(left);
    for (i64 i = n - 1; i >= left && off + (p_min + i) * pitch_ + tS1_ + e_max > S1_; --i) {
      add_deficit(i);
    }
    if (path_ == ExactPath::fast) return critical_thread(n, threads, blocks, deficit);
    // The general path, the reference of critical_thread: every thread. With n < threads,
    // the blocks [t n / threads, (t+1) n / threads) of some threads are empty, and not
    // necessarily the last ones.
    ClippedRounds most;
    for (i64 t = 0; t < threads; ++t) {
      i64 tiles = 0;
      double share = 0;
      if (blocks) {
        const i64 lo = t * n / threads, hi = (t + 1) * n / threads;
        tiles = hi - lo;
        share = static_cast<double>(tiles);
        for (const auto& [i, d] : deficit) {
          if (i >= lo && i < hi) share -= d;
        }
      } else {
        tiles = t < n ? (n - 1 - t) / threads + 1 : 0;
        share = static_cast<double>(tiles);
        for (const auto& [i, d] : deficit) {
          if (i % threads == t) share -= d;
        }
      }
      const double tiles_d = static_cast<double>(tiles);
      if (share > most.share || (share == most.share && tiles_d > most.tiles)) {
        most = {tiles_d, share};
      }
    }
    return most;
  }

  // First tile index p and tile count of wavefront j, as clipped_rounds and the harness'
  // make_wavefronts count them (empty: {0, 0}).
  std::pair<i64, i64> tile_range(i64 j) const {
    const i64 t0 = (j - 1) * h_;
    const i64 r_lo = std::max<i64>(0, -t0);
    const i64 r_hi = std::min(tT_, T_ - t0);
    if (r_lo >= r_hi) return {0, 0};
    const i64 off = offset(j);
    const i64 e_max = std::max(e(std::clamp(h_ - 1, r_lo, r_hi - 1)),
                               e(std::clamp(h_, r_lo, r_hi - 1)));
    const i64 p_min = floor_div(-tS1_ - e_max - off, pitch_) + 1;
    const i64 p_max = floor_div(S1_ + e_max - off - 1, pitch_);
    return {p_min, std::max<i64>(0, p_max - p_min + 1)};
  }

  // s1 columns of the previous time levels that a tile of wavefront j loads from the arrays
  // and that its left (or right) neighbour in wavefront j - 1, or the tile below it in
  // j - 2, computed and stored: the
  // harness' plane fill (tile_1d/2d/3d: every column of the first row's halo, then the
  // columns a row adds to the previous one) and stores (the points a later tile reads, and
  // the last row) replayed on one tile away from the ends of [0, S1), O(tT). An even tT
  // gives 2h = tT per side; an odd tT 2h on one side and h or h + 1 on the other.
  enum class Writer { left, right, below };
  double cross_side(i64 j, Writer writer) const {
    const i64 t0 = (j - 1) * h_, t0n = t0 - (writer == Writer::below ? 2 * h_ : h_);
    const i64 r_lo = std::max<i64>(0, -t0), r_hi = std::min(tT_, T_ - t0);
    const i64 n_lo = std::max<i64>(0, -t0n), n_hi = std::min(tT_, T_ - t0n);
    // Both whole in time with an even tT (every interior wavefront of the usual tiles): the
    // replay below gives tT per side (test_time_machine checks it against the harness).
    if (writer != Writer::below && tT_ % 2 == 0 && r_lo == 0 && r_hi == tT_ && n_lo == 0 &&
        n_hi == tT_) {
      return static_cast<double>(tT_);
    }
    // The writer's base column relative to the tile's (offset(j) - offset(j - 1); the
    // tile below, in j - 2, has the same base).
    const i64 c_left = (j & 1) == 0 ? -half_pitch_ : half_pitch_ - pitch_;
    const i64 cn = writer == Writer::below ? 0 : writer == Writer::left ? c_left : c_left + pitch_;
    auto overlap = [](i64 a0, i64 a1, i64 b0, i64 b1) {
      return std::max<i64>(0, std::min(a1, b1) - std::max(a0, b0));
    };
    i64 count = 0;
    // Only the rows whose level the writer computed, rho in [n_lo, n_hi): for the tile
    // below (rows 2h above) in an interior wavefront, the first row alone. And only rows
    // that load: past the first, a row r >= h + 1 has e(r) = e(r - 1) - 1, so its span with
    // the halo is the previous row's span and it loads nothing.
    const i64 dt = t0 - t0n;
    const i64 r_begin = std::max(r_lo, n_lo + 1 - dt);
    const i64 r_end = std::min({r_hi, n_hi + 1 - dt, std::max(h_ + 1, r_lo + 1)});
#if COSTMETRICS_EXACT_AVX2
    // In int32 lanes where every column (within |cn| + tS1 + 2 tT) and every lane's sum (at
    // most (tS1 + 2 tT + 2) per row) fits.
    constexpr i64 kLane = i64{1} << 30;
    if (r_begin < r_end && g_cross_rows_simd.load(std::memory_order_relaxed) &&
        exact_cpu_has_avx2() && (cn < 0 ? -cn : cn) + tS1_ + 2 * tT_ + 4 < kLane &&
        (tS1_ + 2 * tT_ + 4) * (r_end - r_begin) < kLane) {
      return static_cast<double>(cross_rows_avx2(
          static_cast<std::int32_t>(tT_), static_cast<std::int32_t>(tS1_),
          static_cast<std::int32_t>(r_lo), static_cast<std::int32_t>(dt),
          static_cast<std::int32_t>(n_hi), static_cast<std::int32_t>(cn),
          static_cast<std::int32_t>(r_begin), static_cast<std::int32_t>(r_end)));
    }
#endif
    for (i64 r = r_begin; r < r_end; ++r) {
      const i64 rho = r - 1 + dt;  // the writer's row that computed this level
      // Loaded: [lo - 1, hi + 1) less the previous row's [lo', hi') (none on the first).
      const i64 lo = -e(r), hi = tS1_ + e(r);
      const i64 skip_lo = r > r_lo ? -e(r - 1) : 0, skip_hi = r > r_lo ? tS1_ + e(r - 1) : 0;
      // Stored by the neighbour: its row rho less the points only its next row reads.
      const i64 a = cn - e(rho), b = cn + tS1_ + e(rho);
      const i64 in_lo = rho + 1 < n_hi ? cn - e(rho + 1) + 1 : 0;
      const i64 in_hi = rho + 1 < n_hi ? cn + tS1_ + e(rho + 1) - 1 : 0;
      // |L ∩ S| with L = [lo-1, hi+1) \ [skip), S = [a, b) \ [in): inclusion-exclusion.
      auto stored = [&](i64 x0, i64 x1) {
        return overlap(x0, x1, a, b) - overlap(std::max(x0, a), std::min(x1, b), in_lo, in_hi);
      };
      const i64 loaded_all = stored(lo - 1, hi + 1);
      const i64 loaded_skip =
          skip_lo < skip_hi ? stored(std::max(lo - 1, skip_lo), std::min(hi + 1, skip_hi)) : 0;
      count += loaded_all - loaded_skip;
    }
    return static_cast<double>(count);
  }

  // Of a thread's tiles of a wavefront of n tiles, those whose neighbour (index k + d in
  // the previous wavefront of m tiles) exists and belongs to another thread. Blocks: the
  // thread's tiles are [lo, hi) and its tiles of the previous wavefront [w_lo, w_hi).
  static double foreign_tiles_block(i64 lo, i64 hi, i64 n, i64 m, i64 d, i64 w_lo, i64 w_hi) {
    const i64 a = std::max<i64>(0, -d), b = std::min(n, m - d);  // k with a neighbour
    const i64 v0 = std::max(lo, a), v1 = std::min(hi, b);
    if (v0 >= v1) return 0;
    const i64 s0 = std::max(v0, w_lo - d), s1 = std::min(v1, w_hi - d);
    return static_cast<double>((v1 - v0) - std::max<i64>(0, s1 - s0));
  }
  // Round-robin: thread t's tiles are those with k mod threads = t.
  static double foreign_tiles_round_robin(i64 t, i64 n, i64 m, i64 d, i64 threads) {
    const i64 a = std::max<i64>(0, -d), b = std::min(n, m - d);  // k with a neighbour
    if (d % threads == 0 || a >= b) return 0;  // the same residue: the same thread
    auto upto = [&](i64 x) { return x > t ? (x - 1 - t) / threads + 1 : i64{0}; };
    return static_cast<double>(upto(b) - upto(a));
  }

  // The machine variant's cache-to-cache moves in wavefront j (docs/time.md, "Rows another
  // thread stored"): the largest, over the threads, of the s1 columns its tiles load that a
  // tile on another thread stored: a neighbour in wavefront j - 1, or the tile below in
  // j - 2 (another thread's where the two wavefronts' tile counts, hence blocks, differ:
  // the partial last wavefronts). cross_side per writer, foreign_tiles_* per thread; the
  // tiles clipped at the ends of [0, S1) count as whole ones, older writers not at all.
  // O(threads + tT).
  double cross_columns(i64 j, i64 threads, bool blocks) const {
    if (j < 1 || threads < 2) return 0;
    const auto [p0, n] = tile_range(j);
    const auto [q0, m] = tile_range(j - 1);
    if (n == 0) return 0;
    // Tile k's left neighbour has index k + d_left in wavefront j - 1 (offset(j) above or
    // below offset(j - 1) by half a pitch), its right one k + d_left + 1; the tile below
    // has index k + d_below in j - 2.
    const i64 d_left = ((j & 1) == 0 ? p0 : p0 - 1) - q0;
    const auto [q2, m2] = j >= 2 ? tile_range(j - 2) : std::pair<i64, i64>{0, 0};
    const i64 d_below = p0 - q2;
    // A side's count (O(tT)) is replayed once, when the first thread loads from a foreign
    // writer on that side (-1: not yet).
    double side[3] = {-1, -1, -1};
    // Blocks: thread t's tiles [t n / threads, (t+1) n / threads) in wavefront j, and the
    // same of m and m2 in j - 1 and j - 2; each bound is computed once, carried from one
    // thread to the next (issue 21: recomputed per writer, these divisions were a third
    // of this function's time).
    i64 n_lo = 0, m_lo = 0, m2_lo = 0;
    double most = 0;
    for (i64 t = 0; t < threads; ++t) {
      const i64 n_hi = blocks ? (t + 1) * n / threads : 0;
      const i64 m_hi = blocks ? (t + 1) * m / threads : 0;
      const i64 m2_hi = blocks ? (t + 1) * m2 / threads : 0;
      double x = 0;
      auto add = [&](Writer w, i64 m_w, i64 d, i64 w_lo, i64 w_hi) {
        if (m_w == 0) return;
        const double f = blocks ? foreign_tiles_block(n_lo, n_hi, n, m_w, d, w_lo, w_hi)
                                : foreign_tiles_round_robin(t, n, m_w, d, threads);
        if (f == 0) return;
        double& s = side[static_cast<int>(w)];
        if (s < 0) s = cross_side(j, w);
        x += s * f;
      };
      add(Writer::left, m, d_left, m_lo, m_hi);
      add(Writer::right, m, d_left + 1, m_lo, m_hi);
      add(Writer::below, m2, d_below, m2_lo, m2_hi);
      most = std::max(most, x);
      n_lo = n_hi;
      m_lo = m_hi;
      m2_lo = m2_hi;
    }
    return most;
  }

  // The critical thread of clipped_rounds in O(clipped tiles) instead of O(threads x
  // clipped tiles) (issue 15: with 64 threads the loop over every thread made a 1D machine
  // evaluation cost 3.7x exact): the threads that hold a clipped tile one by one, with
  // their shares computed as the loop computes them (the same subtractions in the same
  // order), and of the others, whose share is their tile count, the one with the most
  // tiles. The maximum of (share, tiles) in lexicographic order does not depend on the
  // order the threads are visited in, so the result is the loop's bit for bit.
  static ClippedRounds critical_thread(i64 n, i64 threads, bool blocks,
                                       const std::vector<std::pair<i64, double>>& deficit) {
    // Blocks: tile i is thread t's iff t n / threads <= i < (t+1) n / threads (integer
    // quotients), i.e. t = ceil((i + 1) threads / n) - 1. The clipped tiles lie at the two
    // ends, in the first block [0, first_end) or the last [last_begin, n), whose bounds
    // answer their owners and tile counts without a division.
    const i64 first_end = blocks ? n / threads : 0;
    const i64 last_begin = blocks ? (threads - 1) * n / threads : 0;
    auto owner = [&](i64 i) {
      if (!blocks) return i % threads;
      if (i < first_end) return i64{0};
      if (i >= last_begin) return threads - 1;
      return ((i + 1) * threads + n - 1) / n - 1;
    };
    auto tiles_of = [&](i64 t) {
      if (blocks) {
        if (t == 0) return first_end;
        if (t == threads - 1) return n - last_begin;
        return (t + 1) * n / threads - t * n / threads;
      }
      return t < n ? (n - 1 - t) / threads + 1 : i64{0};
    };
    ClippedRounds most;
    auto consider = [&](i64 tiles, double share) {
      const double tiles_d = static_cast<double>(tiles);
      if (share > most.share || (share == most.share && tiles_d > most.tiles)) {
        most = {tiles_d, share};
      }
    };
    // The threads holding a clipped tile (few: at most two clipped tiles per end), each
    // with its share: its tile count less its deficits, subtracted in the list's order as
    // the loop over every thread subtracts them. Each tile's owner is found once (issue
    // 21: found again per owner, with a division each, this was a quarter of the 1D
    // machine variant's clipped_rounds).
    constexpr std::size_t kFew = 8;
    i64 owners[kFew];
    i64 owner_tiles[kFew];
    double owner_share[kFew];
    std::size_t n_owners = 0;
    for (const auto& [i, d] : deficit) {
      const i64 t = owner(i);
      std::size_t k = 0;
      while (k < n_owners && owners[k] != t) ++k;
      if (k == n_owners) {
        if (n_owners == kFew) {  // not reached (kept correct anyway): the loop over every thread
          most = {};
          for (i64 u = 0; u < threads; ++u) {
            double share = static_cast<double>(tiles_of(u));
            for (const auto& [i2, d2] : deficit) {
              if (owner(i2) == u) share -= d2;
            }
            consider(tiles_of(u), share);
          }
          return most;
        }
        owners[k] = t;
        owner_tiles[k] = tiles_of(t);
        owner_share[k] = static_cast<double>(owner_tiles[k]);
        ++n_owners;
      }
      owner_share[k] -= d;
    }
    i64 big_owners = 0;  // owners with ceil(n / threads) tiles (blocks)
    const i64 n_big = blocks ? n - threads * first_end : 0;  // blocks: n mod threads
    for (std::size_t k = 0; k < n_owners; ++k) {
      consider(owner_tiles[k], owner_share[k]);
      if (blocks && n_big != 0 && owner_tiles[k] == first_end + 1) ++big_owners;
    }
    // The other threads: share = tiles, so the one with the most tiles.
    if (static_cast<i64>(n_owners) < threads) {
      i64 tiles = 0;
      if (blocks) {
        // n mod threads of the threads hold n / threads + 1 tiles, the others n / threads.
        tiles = first_end + (n_big > big_owners ? 1 : 0);
      } else {
        // Round-robin: the counts fall with t, so the first thread without a clipped tile.
        i64 t = 0;
        while (std::find(owners, owners + n_owners, t) != owners + n_owners) ++t;
        tiles = tiles_of(t);
      }
      consider(tiles, static_cast<double>(tiles));
    }
    return most;
  }

  // W(r) of rule 6: the most s1 points in [0, S1) that one tile of the wavefront with base
  // offset `off` has at relative row r. The overlap of [x, x + w) with [0, S1) is unimodal
  // in x with its plateau on [min(0, S1 - w), max(0, S1 - w)], so the two lattice starts
  // around the plateau's left end bound every other tile.
  i64 widest_row(i64 off, i64 r) const {
    const i64 half = e(r);
    const i64 w = tS1_ + 2 * half;
    if (wide_s1_) return w;
    const i64 start0 = off - half;  // first column of tile p = 0 at this row
    const i64 plateau_lo = std::min<i64>(0, S1_ - w);
    const i64 x = start0 + floor_div(plateau_lo - start0, pitch_) * pitch_;
    auto overlap = [&](i64 s) {
      return std::max<i64>(0, std::min(s + w, S1_) - std::max<i64>(s, 0));
    };
    return std::max(overlap(x), overlap(x + pitch_));
  }

  // c of a sub-tile full in every inner dimension and every row of an interior color-A
  // wavefront (Breakdown::c_s; exact counterpart of Eqs. A.10/A.16/A.28).
  double full_subtile_c() {
    const i64 area = outer_dim_.full_count() * table_dim_.full_count();
    i64 steps = 0;
    if (kinds_) {
      // The (full, full) kind table over the rows [0, tT): the same sum of
      // ceil(W(r) area / nV), row by row, as twice the half-hexagon sum below.
      if (!tables_ready_) build_kind_tables();
      steps = dims_ == 2 ? kind_table_2d()[4 * static_cast<std::size_t>(tT_) + InnerDim::kFull]
                         : scratch_.kind_table[static_cast<std::size_t>(InnerDim::kFull * 3 +
                                                                        InnerDim::kFull) *
                                                   (static_cast<std::size_t>(tT_) + 1) +
                                               static_cast<std::size_t>(tT_)];
    } else if (wide_s1_) {
      // W(r) = tS1 + 2 e(r): rows r and tT - 1 - r are alike, each half is the paper's sum.
      steps = 2 * ::costmetrics::detail::hexagon_row_steps(tS1_, tT_, area, gpu_.n_v);
    } else {
      for (i64 r = 0; r < tT_; ++r) steps += ceil_n_v(widest_row(0, r) * area);
    }
    double c = stencil_.c_iter_s * static_cast<double>(steps) +
               gpu_.tau_sync_s * static_cast<double>(tT_);
    if constexpr (Extras) {
      if (machine_) c += tau_line_ * (full_subtile_lines() - static_cast<double>(tT_));
    }
    return c;
  }

  // n_i, and T_i of rule 8, for wavefront j.
  WavefrontCostOf<Extras> wavefront(i64 j, i64 k, const TransferTerms& transfer) {
    WavefrontCostOf<Extras> out;
    const i64 t0 = (j - 1) * h_;
    const i64 r_lo = std::max<i64>(0, -t0);
    const i64 r_hi = std::min(tT_, T_ - t0);  // rows [r_lo, r_hi) lie in [0, T)
    if (r_lo >= r_hi) return out;
    const i64 off = offset(j);

    // Rule 4: a tile's rows are nested intervals around its center, so it meets [0, S1) iff
    // its widest valid row does: c0 - e_max < S1 and c0 + tS1 + e_max > 0.
    const i64 e_max = std::max(e(std::clamp(h_ - 1, r_lo, r_hi - 1)),
                               e(std::clamp(h_, r_lo, r_hi - 1)));
    // floor(-(tS1 + e_max + off) / P) + 1 with a negative numerator (tS1 >= 1).
    const i64 p_min = 1 - div_ceil(tS1_ + e_max + off, pitch_);
    const i64 p_max = floor_div(S1_ + e_max - off - 1, pitch_);
    out.n_tiles = std::max<i64>(0, p_max - p_min + 1);
    double m_prime = transfer.m_prime_exact;
    if constexpr (Extras) {
      // The counts depend on the rows alone (transfer is fixed per evaluation): the
      // interior B wavefront takes interior A's.
      out.rows = reuse_valid_ && reuse_lo_ == r_lo && reuse_hi_ == r_hi
                     ? reuse_.rows
                     : transfer.counts(r_lo, r_hi);
      m_prime = transfer.m_prime(out.n_tiles, out.rows);
    }
    out.m_prime_s = m_prime;

    // With W(r) = tS1 + 2 e(r) on every row (wide_s1_), the cost of a wavefront depends on
    // its rows only, not on its color: the interior B wavefronts cost what the interior A
    // ones do (the same k and m' hold for every wavefront of one evaluation).
    if (wide_s1_ && reuse_valid_ && reuse_lo_ == r_lo && reuse_hi_ == r_hi &&
        (!Extras || reuse_.m_prime_s == m_prime)) {
      out.nonempty = true;
      out.t_tile_s = reuse_.t_tile_s;
      if constexpr (Extras) {
        out.coef_m = reuse_.coef_m;
        for (int p = 0; p < 3; ++p) out.counts[p] = reuse_.counts[p];
        out.steps_all = reuse_.steps_all;
        out.n_sub = reuse_.n_sub;
      }
      return out;
    }

    // Rows with points: W(r) > 0 holds where e(r) reaches a threshold, a contiguous run.
    i64 ra = -1;
    i64 rb = -1;
    if (wide_s1_) {  // W(r) >= tS1 > 0 on every row; the tables hold the widths
      ra = r_lo;
      rb = r_hi;
    }
    for (i64 r = r_lo; r < r_hi && !wide_s1_; ++r) {
      const i64 w = widest_row(off, r);
      w_[static_cast<std::size_t>(r)] = w;
      if (w > 0) {
        if (ra < 0) ra = r;
        rb = r + 1;
      }
    }
    if (ra < 0) {
      out.n_tiles = 0;
      return out;
    }
    out.nonempty = true;

    // Per class of the tabulated dimension: prefix sums over rows of the vector steps
    // ceil(W n_outer n_table / nV) with the outer sub-tile full (n_outer = tS), so that the
    // rows where an outer sub-tile is full cost O(1). With wide_s1_, the per-evaluation row
    // tables replace them (every sub-tile costs two look-ups).
    const i64 n_rows = rb - ra;
    const std::size_t stride = static_cast<std::size_t>(n_rows + 1);
    if (wide_s1_) {
      if (!tables_ready_) {
        if (kinds_) {
          build_kind_tables();
        } else {
          build_row_tables();
        }
      }
    } else {
      subtile_classes(table_dim_, ra, rb, table_classes_);
      prefix_.assign(table_classes_.size() * stride, 0);
      const i64 outer_full = outer_dim_.full_count();
      for (std::size_t q = 0; q < table_classes_.size(); ++q) {
        i64* pre = &prefix_[q * stride];
        const i64 b = table_classes_[q].b;
        for (i64 r = ra; r < rb; ++r) {
          const i64 n = table_dim_.count(b, r);
          const i64 steps =
              n > 0 ? ceil_n_v(w_[static_cast<std::size_t>(r)] * outer_full * n) : 0;
          pre[r - ra + 1] = pre[r - ra] + steps;
        }
      }
      if constexpr (Extras) {
        if (need_lines_) build_line_prefix(ra, rb);
      }
    }

    const double c_iter = stencil_.c_iter_s;
    const double tau = gpu_.tau_sync_s;
    double sum_c = 0;    // sum_b c_{i,b}
    double sum_max = 0;  // sum_b max(m', c_{i,b})
    i64 n_sub = 0;
    // Coefficients: counts (steps, rows, lines) over every sub-tile and over those where c
    // wins the max(), and the sub-tiles where m' wins it (std::max keeps m' on a tie).
    double cnt_all[3] = {0, 0, 0};
    double cnt_c_wins[3] = {0, 0, 0};
    double n_m_wins = 0;
    double steps_all = 0;
    // The (outer kind, kFull) columns of the kind tables (1D/2D: the inner one is kFull).
    const i64* kind_pre[3] = {nullptr, nullptr, nullptr};
    if (!Extras && kinds_ && !table_dim_.skewed) {
      const std::size_t kind_stride = static_cast<std::size_t>(tT_) + 1;
      for (int ko = 0; ko < 3; ++ko) {
        kind_pre[ko] = scratch_.kind_table.data() +
                       static_cast<std::size_t>(ko * 3 + InnerDim::kFull) * kind_stride;
      }
    }
    // 3D `exact` on the kind tables: the table dimension's sub-tile range once per
    // wavefront (it does not depend on the outer class), not once per outer class.
    const bool kinds_3d = !Extras && kinds_ && table_dim_.skewed;
    // The same for the machine variant without coefficients (pair_loop_3d<.., true>).
    const bool machine_3d = Extras && !want_coef_ && machine_ && kinds_ && table_dim_.skewed;
    SubtileRange table_range;
    if (kinds_3d || machine_3d) table_range = subtile_range(table_dim_.S, table_dim_.tS, ra, rb);
    // 2D `exact` on the kind tables in a class loop of its own (no test of the case per class);
    // also `machine` where no coefficient is tracked (its lines and steps_all added below).
    if ((!Extras || !want_coef_) && kinds_ && outer_dim_.skewed && !table_dim_.skewed) {
      // 2D `exact` on the kind tables: the loop below with its one-class inner dimension
      // written out (rows = nz_outer, kind_steps' 1D/2D branch): the same integers and the
      // same floating-point operations in the same order. The three kind segments of
      // InnerDim::segments are the runs [lo, a), [a, b), [b, end): a and b are the first full
      // and the first lead row clamped into the rows (a <= b as tS <= S); an empty run adds
      // t4[x] - t4[x] = 0, so there is no branch per kind.
      const i64* const t4 = kind_table_2d();  // by row: kinds trail, full, lead at 4 r + kind
      const i64 tS = outer_dim_.tS, S = outer_dim_.S;
      for_each_subtile_class(outer_dim_, ra, rb, [&](i64 ob, i64 omult, std::size_t)
                                                     COSTMETRICS_LAMBDA_INLINE {
        // nonzero_rows(ob, ra, rb)
        const i64 lo = std::max(ra, ob * tS - S + 1);
        const i64 end = std::min(rb, (ob + 1) * tS);
        if (lo >= end) return;
        const i64 a = std::min(std::max((ob + 1) * tS - S, lo), end);
        const i64 b = std::min(std::max(ob * tS + 1, a), end);
        const i64 sum = (t4[4 * a + InnerDim::kTrail] - t4[4 * lo + InnerDim::kTrail]) +
                        (t4[4 * b + InnerDim::kFull] - t4[4 * a + InnerDim::kFull]) +
                        (t4[4 * end + InnerDim::kLead] - t4[4 * b + InnerDim::kLead]);
        double c = c_iter * static_cast<double>(sum) + tau * static_cast<double>(end - lo);
        if constexpr (Extras) {
          // The loop below's lines (subtile_lines: kind_lines' 2D sum of W(r)) and
          // per-line overhead, the same operations in the same order.
          // (wp[end] - wp[lo]) - (end - lo) with wp the prefix sums of W(r) = tS1 + 2 e(r),
          // in closed form: every term is an integer below 2^53, so the double is this
          // integer exactly (no width_prefix to fill).
          if (need_lines_) {
            const double lines = static_cast<double>((tS1_ - 1) * (end - lo) +
                                                     2 * (e_prefix(end) - e_prefix(lo)));
            if (machine_) c += tau_line_ * lines;
          }
        }
        sum_c += static_cast<double>(omult) * c;
        sum_max += static_cast<double>(omult) * std::max(m_prime, c);
        n_sub += omult;
        if constexpr (Extras) steps_all += static_cast<double>(omult) * static_cast<double>(sum);
      });
    } else if (Extras && !want_coef_ && kinds_ && dims_ == 1) {
      // 1D `machine` without coefficients on the kind table: the class loop below for
      // its one class (the placeholder dimensions: rows [ra, rb), all kFull), with exact's
      // c (its lines beyond the first of each row are none in 1D: subtile_lines counts
      // one per row) and steps_all; the same values in the same order (the class's
      // multiplicity is 1, and 1.0 x is x). A branch of its own, outside the loop's lambda
      // (issue 21: inside it, the 3D loop ran 5% slower).
      const std::size_t kind_stride = static_cast<std::size_t>(tT_) + 1;
      const i64* full = scratch_.kind_table.data() +
                        static_cast<std::size_t>(InnerDim::kFull * 3 + InnerDim::kFull) * kind_stride;
      const Rows rows = outer_dim_.nonzero_rows(0, ra, rb);
      if (!rows.empty()) {
        const i64 sum = full[rows.hi + 1] - full[rows.lo];
        const double c =
            c_iter * static_cast<double>(sum) + tau * static_cast<double>(rows.size());
        sum_c += c;
        sum_max += std::max(m_prime, c);
        n_sub += 1;
        steps_all += static_cast<double>(sum);
      }
    } else {
      for_each_subtile_class(outer_dim_, ra, rb, [&](i64 ob, i64 omult, std::size_t o_ord)
                                                     COSTMETRICS_LAMBDA_INLINE {
        if (kinds_3d || machine_3d) {
          // The loop below for 3D `exact` on the kind tables, its pairs written out: the
          // same classes in the same order (for_each_subtile_class), the same rows, the same
          // integer steps, and the same floating-point operations in the same order.
          const Rows nz_o = outer_dim_.nonzero_rows(ob, ra, rb);
          if (nz_o.empty()) return;  // every pair of this outer class is empty
          if (machine_3d) {
            pair_loop_3d<false, true>(ob, omult, nz_o, table_range, m_prime, c_iter, tau,
                                      sum_c, sum_max, n_sub, &steps_all);
          } else if (k == 1) {
            pair_loop_3d<true>(ob, omult, nz_o, table_range, m_prime, c_iter, tau, sum_c,
                               sum_max, n_sub);
          } else {
            pair_loop_3d<false>(ob, omult, nz_o, table_range, m_prime, c_iter, tau, sum_c,
                                sum_max, n_sub);
          }
          return;
        }
        if (!Extras && kinds_) {
          // 1D `exact` on the kind tables: the placeholder's rows are all kFull.
          const Rows rows = outer_dim_.nonzero_rows(ob, ra, rb);
          if (rows.empty()) return;
          const i64 sum =
              kind_pre[InnerDim::kFull][rows.hi + 1] - kind_pre[InnerDim::kFull][rows.lo];
          const double c =
              c_iter * static_cast<double>(sum) + tau * static_cast<double>(rows.size());
          sum_c += static_cast<double>(omult) * c;
          sum_max += static_cast<double>(omult) * std::max(m_prime, c);
          n_sub += omult;
          return;
        }
        const SubtileClass oc{ob, omult};
        const Rows nz_outer = outer_dim_.nonzero_rows(oc.b, ra, rb);
        // Inlined into the class loop (a call per sub-tile class cost as much as its work).
        for_each_subtile_class(table_dim_, ra, rb, [&](i64 tb, i64 tmult, std::size_t q)
                                                       COSTMETRICS_LAMBDA_INLINE {
          const SubtileClass tc{tb, tmult};
          const Rows nz_table = table_dim_.nonzero_rows(tc.b, ra, rb);
          const Rows rows = intersect(nz_outer, nz_table);
          if (rows.empty()) return;  // no point in this wavefront: the sub-tile is skipped
          double steps = 0;
          if (wide_s1_) {
            steps = kinds_ ? kind_steps(oc.b, tc.b, rows)
                           : table_steps(oc.b, tc.b, rows.lo, rows.hi);
          } else {
            const Rows full = intersect(outer_dim_.full_rows(oc.b, ra, rb), nz_table);
            i64 sum = 0;
            auto explicit_rows = [&](i64 lo, i64 hi) {
              for (i64 r = lo; r <= hi; ++r) {
                const i64 n = outer_dim_.count(oc.b, r) * table_dim_.count(tc.b, r);
                sum += ceil_n_v(w_[static_cast<std::size_t>(r)] * n);
              }
            };
            if (full.empty()) {
              explicit_rows(rows.lo, rows.hi);
            } else {
              const i64* pre = &prefix_[q * stride];
              sum += pre[full.hi - ra + 1] - pre[full.lo - ra];
              explicit_rows(rows.lo, full.lo - 1);
              explicit_rows(full.hi + 1, rows.hi);
            }
            steps = static_cast<double>(sum);
          }
          // Rule 6 (exact Eqs. A.10/A.16/A.28): one __syncthreads per row with points.
          double c = c_iter * steps + tau * static_cast<double>(rows.size());
          // Lines beyond the first of each row (the first is tau_sync's row cost).
          double lines = 0;
          if constexpr (Extras) {
            if (need_lines_) {
              lines = (wide_s1_ ? subtile_lines(oc.b, tc.b, rows)
                                : prefix_lines(o_ord, q, rows, ra, stride)) -
                      static_cast<double>(rows.size());
            }
            if (machine_) c += tau_line_ * lines;  // per-line overhead (machine variant)
          }
          const i64 mult = oc.mult * tc.mult;
          sum_c += static_cast<double>(mult) * c;
          sum_max += static_cast<double>(mult) * std::max(m_prime, c);
          n_sub += mult;
          if constexpr (Extras) steps_all += static_cast<double>(mult) * steps;
          if constexpr (Extras) {
            if (!want_coef_) return;
            const double md = static_cast<double>(mult);
            const double v[3] = {steps, static_cast<double>(rows.size()), lines};
            const bool c_wins = m_prime < c;
            for (int p = 0; p < 3; ++p) {
              cnt_all[p] += md * v[p];
              if (c_wins) cnt_c_wins[p] += md * v[p];
            }
            if (!c_wins) n_m_wins += md;
          }
        });
      });
    }

    // Eqs. A.13 / A.17 / A.29-A.30, with max(m', c) taken per sub-tile.
    out.t_tile_s =
        detail::tile_time_s(dims_, k, m_prime, static_cast<double>(n_sub), sum_c, sum_max);
    if constexpr (Extras) {
      if (want_coef_) {
        // The same branches as tile_time_s (time_detail.hpp).
        const double kd = static_cast<double>(k);
        double fc = 1;
        const double* counts = cnt_all;
        if (dims_ == 1) {
          const bool c_wins = m_prime < sum_c;
          out.coef_m = c_wins ? 1.0 : kd;
          fc = c_wins ? kd : 1.0;
        } else if (k == 1) {
          out.coef_m = static_cast<double>(n_sub);
        } else {
          out.coef_m = 1.0 + kd * n_m_wins;
          fc = kd;
          counts = cnt_c_wins;
        }
        for (int p = 0; p < 3; ++p) out.counts[p] = fc * counts[p];
      }
    }
    if constexpr (Extras) {
      out.steps_all = steps_all;
      out.n_sub = static_cast<double>(n_sub);
    }
    reuse_valid_ = true;
    reuse_lo_ = r_lo;
    reuse_hi_ = r_hi;
    if constexpr (Extras) {
      reuse_ = out;
    } else {
      reuse_.t_tile_s = out.t_tile_s;
    }
    return out;
  }

 private:
  const GpuParams& gpu_;
  const StencilParams& stencil_;
  int dims_ = 1;
  // ceil(x / nV) of a row's points x, by the reciprocal of nV.
  i64 ceil_n_v(i64 x) const { return n_v_.ceil(x); }
  // Calls fill(ceil_div) with the cheapest exact ceil(x / nV) for the kind tables: for nV a
  // power of two (every GPU preset) an add and a shift; otherwise, where `magic_ok` (every
  // numerator below 2^31), a multiplication and a shift; else the reciprocal. The same
  // integers in every case.
  template <typename Fill>
  COSTMETRICS_LAMBDA_INLINE void with_ceil_n_v(bool magic_ok, Fill& fill) const {
    if (n_v_shift_ >= 0) {
      const int shift = n_v_shift_;
      const i64 round_up = (i64{1} << shift) - 1;
      fill([shift, round_up](i64 x) { return (x + round_up) >> shift; });
    } else if (magic_ok) {
      const std::uint64_t magic = n_v_magic_;
      const int shift = n_v_magic_shift_;
      const i64 round_up = static_cast<i64>(gpu_.n_v) - 1;
      fill([magic, shift, round_up](i64 x) {
        return static_cast<i64>((static_cast<std::uint64_t>(x + round_up) * magic) >> shift);
      });
    } else {
      fill([this](i64 x) { return ceil_n_v(x); });
    }
  }

  i64 S1_ = 0, T_ = 0, tS1_ = 0, tT_ = 0, h_ = 0, pitch_ = 0, half_pitch_ = 0;
  ::costmetrics::detail::Reciprocal n_v_;
  int n_v_shift_ = -1;  // log2(nV) for a power-of-two nV (kind tables), else -1
  // Other nV (kind tables): ceil(y / nV) = ((y + nV - 1) M) >> k for y + nV - 1 < 2^31.
  static constexpr int kMagicBits = 31;
  int n_v_magic_shift_ = -1;  // k, or -1 where unused
  std::uint64_t n_v_magic_ = 0;  // M
  // Whether every numerator W(r) n (+ nV - 1) of the kind tables, n <= ts points per row
  // of the inner dimensions, is below 2^31.
  bool magic_fits(i64 ts) const {
    if (n_v_magic_shift_ < 0) return false;
    const double max_numerator = static_cast<double>(tS1_ + tT_) * static_cast<double>(ts) +
                                 static_cast<double>(gpu_.n_v);
    return max_numerator < static_cast<double>(i64{1} << kMagicBits);
  }
  ExactPath path_ = ExactPath::fast;
  bool wide_s1_ = false;
  bool kinds_ = false;  // wide_s1_ and tS <= S in every inner dimension: kind tables
  // Points per row of the flattened tabulated dimension (constructor, talg_only), else 1.
  i64 flat_points_ = 1;
  bool tables_ready_ = false;
  RowClasses outer_rows_;
  RowClasses table_rows_;
  // The last wavefront's rows and cost, reused by the next one with the same rows and m'.
  bool reuse_valid_ = false;
  i64 reuse_lo_ = 0, reuse_hi_ = 0;
  WavefrontCostOf<Extras> reuse_;
  bool machine_ = false;     // add the MachineTerms
  bool want_coef_ = false;   // track the coefficients of T_alg
  bool need_lines_ = false;  // count lines (machine_ or want_coef_)
  bool s2_is_outer_ = true;  // 3D: which inner dimension is s2
  double tau_line_ = 0;
  InnerDim outer_dim_;
  InnerDim table_dim_;
  // Scratch reused across wavefronts of one evaluation (and across evaluations, per thread).
  Scratch& scratch_ = thread_scratch();
  std::vector<i64>& w_ = scratch_.w;
  std::vector<i64>& prefix_ = scratch_.prefix;
  std::vector<i64>& line_prefix_ = scratch_.line_prefix;
  std::vector<SubtileClass>& table_classes_ = scratch_.table_classes;
};

}  // namespace

namespace {

// TalgOnly (the machine variant's T_alg alone, evaluate_machine_talg): `setup` holds what
// depends on (gpu, dims, size) alone, and the Breakdown's terms other than T_alg (m' of a
// whole tile, c_s, the sub-tile count, T_ideal) are not computed; T_alg's arithmetic is
// the same.
// The critical thread's counts of the wavefront classes of one evaluation, by slot: 0, 1, 2
// for j = 0, 1, 2 and 3, 4 for the last ones, j = n_interior + 1 and + 2 (evaluate_exact_impl's
// clipped_at; what a ClippedCache group holds).
template <bool Extras>
void fill_clipped(const ExactModel<Extras>& model, i64 n_sm, bool blocks, bool cross_terms,
                  i64 n_interior, i64 j_last, ClippedRounds* out) {
  std::fill(out, out + 5, ClippedRounds{});
  auto at = [&](i64 j) {
    ClippedRounds c = model.clipped_rounds(j, n_sm, blocks);
    if (cross_terms) c.cross = model.cross_columns(j, n_sm, blocks);
    return c;
  };
  out[0] = at(0);
  if (n_interior >= 1) out[1] = at(1);
  // Class 1 stands for every odd interior wavefront, but only j = 1 loads from the
  // partial j = 0 (rows below 0 are nobody's): the others load as j = 3 does. The
  // class's mean keeps the sum over its wavefronts.
  if (cross_terms && n_interior >= 3) {
    const double count = static_cast<double>((n_interior + 1) / 2);
    out[1].cross = (out[1].cross + (count - 1.0) * model.cross_columns(3, n_sm, blocks)) / count;
  }
  if (n_interior >= 2) out[2] = at(2);
  for (i64 j = n_interior + 1; j <= j_last; ++j) out[3 + (j - n_interior - 1)] = at(j);
}

// The transfer terms m' reads for one tile (TransferTerms; docs/time.md, "Machine
// variant"): evaluate_exact_impl's set-up, shared with the grouped machine batch
// (ExactTalgBatch) so that both compute the same doubles. `level` and `dram` are the
// arrays' memory level and DRAM share (machine_setup).
TransferTerms transfer_terms(const GpuParams& gpu, int dims, const ProblemSize& size,
                             const TileSizes& tiles, const detail::Transfer& io, bool machine,
                             bool has_terms, int level, double dram) {
  const MachineTerms& mt = gpu.machine;
  const i64 tS1 = tiles.space[0];
  const i64 tT = tiles.time;
  const i64 h = tT / 2;
  const i64 n_sm = gpu.n_sm;
  const i64 ref = mt.threads_ref > 0 ? mt.threads_ref : n_sm;
  const bool blocks = mt.schedule == TileSchedule::block;
  // Counts of m' (TransferTerms::counts, per wavefront: they follow the tile rows
  // [r_lo, r_hi) that lie in [0, T), so the first and last, partial wavefronts and tiles
  // taller than the problem (tT > T) pay for the rows they hold, as the harness does).
  // Segments (contiguous runs) copied per (sub)tile: 1D 2 rows + 2 (one run per side and
  // row of the oblique faces, as the harness copies them, plus 2 for the two widest rows);
  // 2D/3D m_io / (innermost tile): lines of tS2 (2D) or tS3 (3D) words.
  // Cache lines written by two threads (1D only: 2D/3D neighbours in s1 write other rows
  // of the arrays). Every row of a 1D tile loads and stores the points at its two edges,
  // which lie in the cache lines its neighbours (on other cores, computing at the same
  // time) load and store in their rows too: one line moves between the cores per row and
  // shared boundary, i.e. one line per row of a tile (two boundaries, each shared by two
  // tiles). Fitted on the shipped protocol sweep this count beats the faces' span
  // 4 (1 + ceil(tT / 32)) (docs/time.md, the Jacobi 1D over-charge). Round-robin: every
  // tile's neighbours run on other threads, so every tile pays them (in m'); blocks: only
  // the tiles at the ends of the threads' blocks do, i.e. the same lines once per
  // wavefront (below). Only in wavefronts where more than one thread works.
  // Words copied within the thread's tile buffer per (sub)tile (2D/3D), counted from the
  // harness (cpp/src/measure.cpp, tile_2d/tile_3d): on each of its rows a sub-tile keeps
  // the last two columns of its plane (s1 in [lo-1, hi+1), W(r) + 2 values) for the next
  // sub-tile and reads the previous sub-tile's two back. 2D: 2 + 2 words per s1 value.
  // 3D: the face in u3 is 2 words per plane line (tS2 + 2 lines, kept; read back over
  // the lines that lie in the problem, at most S2 + 2), the face in u2 2 lines of the
  // plane (tS3 + 2 words, kept by memcpy; read back over at most S3 + 2 words); summed
  // over the rows, sum_r (W(r) + 2) = rows (tS1 + 2) + 2 sum_r e(r). The paper's model
  // keeps these faces in shared memory for free; on a CPU they are copies in L1.
  TransferTerms transfer;
  transfer.machine = machine;
  transfer.m_prime_exact = io.m_prime_s;
  // Words and lines a (sub)tile copies. The paper's footprint (Eqs. A.14/A.25) counts the
  // whole tS2 (x tS3) cross-section of every sub-tile; the harness copies only what lies
  // in the problem: per inner dimension d the n_b sub-tiles of a tile span n_b tS_d values
  // of u_d of which S_d + 2 (the halo included) hold points. A preset with machine terms
  // describes the CPU harness, so there the counts are clipped by
  // min(1, (S_d + 2) / (n_b tS_d)) per inner dimension (the words of every dimension, the
  // lines of the outer one in 3D); without them (every GPU preset) machine stays exact.
  double words_clip = 1.0, lines_clip = 1.0;
  const bool harness_counts = machine && has_terms;
  if (harness_counts) {
    double nb = 1.0, with_halo = 1.0, inner = 1.0;  // products over the inner dimensions
    for (int d = 1; d < dims; ++d) {
      const i64 s_d = size.space[d], ts_d = tiles.space[d];
      const i64 q = div_floor(s_d + tT - 2, ts_d);
      const double span = static_cast<double>(q + 1) * static_cast<double>(ts_d);
      const double clip = std::min(1.0, static_cast<double>(s_d + 2) / span);
      words_clip *= clip;
      if (d < dims - 1) lines_clip *= clip;
      transfer.clip_size[d - 1] = s_d;
      transfer.clip_tile[d - 1] = ts_d;
      transfer.clip_q_full[d - 1] = q;
      transfer.clip_rem_full[d - 1] = s_d + tT - 2 - q * ts_d;
      nb *= static_cast<double>(q + 1);
      with_halo *= static_cast<double>(s_d + 2);
      inner *= static_cast<double>(s_d);
    }
    transfer.clip_n = dims - 1;
    transfer.clip_full = words_clip;
    transfer.clip_lines_full = lines_clip;
    transfer.frame_words = with_halo - inner;  // 0 in 1D (empty products)
    transfer.frame_per_subtile = transfer.frame_words / nb;
    transfer.store_scale = inner / with_halo;
  }
  const double m_io_words = io.m_io_words * words_clip;
  transfer.m_io = m_io_words;
  transfer.l_word = gpu.l_s_per_word + mt.l_level_s_per_word[static_cast<std::size_t>(level)];
  transfer.gamma = mt.l_shared_s_per_word[static_cast<std::size_t>(level)];
  // Arrays larger than the L3 in effect: the share 1 - l3 / B streams from DRAM, the rest
  // from L3 (dram_share; 1 without an L3, every GPU preset, where nothing changes).
  // Only the machine variant and the design rows (Extras) read l_word and gamma (`exact`
  // takes m'_exact): without them the share is not computed (issue 15, sixth round: about
  // 50 instructions per `exact` evaluation in the codesign sweep).
  transfer.partly_l3 = level == 3 && dram < 1.0;
  if (transfer.partly_l3) {
    transfer.l_word = gpu.l_s_per_word + ((1.0 - dram) * mt.l_level_s_per_word[2] +
                                          dram * mt.l_level_s_per_word[3]);
    transfer.gamma = (1.0 - dram) * mt.l_shared_s_per_word[2] + dram * mt.l_shared_s_per_word[3];
  }
  transfer.dims = dims;
  transfer.tT = tT;
  transfer.h = h;
  transfer.share_lines = dims == 1 && n_sm > 1;
  // The words of the rows each wavefront holds (as the segments), on the same presets.
  transfer.row_words = harness_counts;
  transfer.tS1 = static_cast<double>(tS1);
  if (dims >= 2) {
    transfer.seg_2d = io.m_io_words / static_cast<double>(tiles.space[dims - 1]) * lines_clip;
    transfer.tS1_halo = static_cast<double>(tS1 + 2);
    if (dims == 2) {
      transfer.buf_per_row = 4.0;
    } else {
      // The harness clips a sub-slab to the skewed extent S_d + tT (make_plan, harness 5).
      const i64 w2 = std::min(tiles.space[1], size.space[1] + tT) + 2;
      const i64 w3 = std::min(tiles.space[2], size.space[2] + tT) + 2;
      const i64 face =
          w2 + w3 + std::min(w3, size.space[2] + 2) + std::min(w2, size.space[1] + 2);
      transfer.buf_per_row = 2.0 * static_cast<double>(face);
    }
  }
  // The transfer's 2 tau_sync (Eqs. A.9/A.15/A.26: a GPU tile's synchronizations around
  // its copy) is, on a CPU, the fixed cost of the copy calls; the machine variant charges
  // that per segment (L_seg), so with L_seg > 0 it replaces the 2 tau_sync rather than
  // adding to it (docs/time.md, "the Jacobi 1D over-charge").
  const bool seg_replaces_tau = machine && mt.l_seg_s > 0.0;
  transfer.tau_per_transfer = seg_replaces_tau ? 0.0 : 2.0;
  transfer.two_tau = transfer.tau_per_transfer * gpu.tau_sync_s;
  transfer.l_seg = mt.l_seg_s;
  transfer.l_buf = mt.l_buffer_s_per_word;
  // Words streamed into a 1D wavefront's gaps (docs/time.md): the next tile of a wavefront
  // starts some points after this one's run (TransferTerms::gap_after); the prefetcher
  // streams at most prefetch_ahead_words of that gap, which the next wavefront reads again.
  // In DRAM only: in the caches the gap is still there when the next wavefront reads it.
  if (machine && dims == 1 && dram > 0.0 && mt.prefetch_ahead_words > 0.0) {
    transfer.gap_reach = mt.prefetch_ahead_words;
    transfer.gap_dram = dram;
    transfer.l_gap = mt.l_prefetch_s_per_word;
  }
  transfer.t_share = blocks ? 0.0 : mt.t_share_line_s;
  transfer.n_sm = n_sm;
  transfer.ref = ref;
  return transfer;
}

// Tile buffers evicted by DRAM streams (docs/time.md, "Tile buffers evicted by DRAM
// streams"): the buffer's bytes over the L2's, times the arrays' DRAM share; each vector
// step costs c_buffer_dram_s times this more (also where that is 0: the design row's
// column). 2D only: the 3D buffers reach past the L2, where a share of it evicted means
// nothing, and 3D lines in DRAM have their own term; 1D's buffer is two rows. 0 in the
// caches and without an L2 size.
double buffer_evicted_share(const GpuParams& gpu, int dims, const ProblemSize& size,
                            const TileSizes& tiles, double dram) {
  const MachineTerms& mt = gpu.machine;
  if (dims != 2 || !(dram > 0.0 && mt.cache_l2_bytes > 0.0)) return 0.0;
  return dram * (4.0 * tile_buffer_floats(dims, size, tiles) / mt.cache_l2_bytes);
}

template <bool Extras, bool TalgOnly = false>
Breakdown evaluate_exact_impl(const GpuParams& gpu, const StencilParams& stencil,
                              const ProblemSize& size, const TileSizes& tiles, ExactPath path,
                              bool machine, DesignRow* row,
                              const MachineSetup* setup = nullptr,
                              const TransferTerms::KnownRowShapes* known = nullptr) {
  static_assert(!TalgOnly || Extras, "T_alg alone through this path is the machine variant's");
  const int dims = stencil.n_space_dims;
  const i64 tS1 = tiles.space[0];
  const i64 tT = tiles.time;
  const i64 T = size.time_steps;
  const i64 h = tT / 2;
  // On presets that describe the CPU harness (below, clipped_rounds).
  const bool has_terms = TalgOnly ? setup->terms : !gpu.machine.all_zero();
  const bool clip_s1 = Extras && machine && has_terms;
  // Level and DRAM share in one pass (memory_placement); without the machine terms the
  // level is taken as DRAM, as before, with the share dram_share gives.
  const MemoryPlacement placed =
      TalgOnly                    ? MemoryPlacement{setup->level, setup->dram}
      : machine || row != nullptr ? memory_placement(gpu, dims, size)
                                  : MemoryPlacement{3, Extras ? dram_share(gpu, dims, size) : 0.0};
  const int level = placed.level;
  const double dram = Extras && level == 3 ? placed.dram_share : 0.0;
  const MachineTerms& mt = gpu.machine;
  // Charged as part of C_iter, so that every count of vector steps charges it alike.
  const double buffer_evicted = Extras && machine ? buffer_evicted_share(gpu, dims, size, tiles,
                                                                         dram)
                                                  : 0.0;
  StencilParams charged = stencil;
  charged.c_iter_s += mt.c_buffer_dram_s * buffer_evicted;
  ExactModel<Extras> model(gpu, charged, size, tiles, path, machine, row != nullptr, false,
                           dram);
  Breakdown b;

  b.w_tile = static_cast<double>(tS1 + tT - 2);  // Eq. A.4
  b.pitch = static_cast<double>(model.pitch());
  b.m_tile_words = m_tile_words_positive(dims, tiles);  // tiles feasible: no checks
  b.k = detail::k_factor(gpu, b.m_tile_words);

  // Rule 7: the data footprints stay the paper's (Eqs. A.8/A.14/A.25, A.9/A.15/A.26).
  const detail::Transfer io = detail::transfer(gpu, dims, tiles);
  b.m_io_words = io.m_io_words;

  // The machine variant's terms (docs/time.md, "Machine variant"); each adds +0.0
  // when its parameter is 0, so that the result is then bit-identical to `exact`.
  const i64 n_sm = gpu.n_sm;
  const bool blocks = mt.schedule == TileSchedule::block;
  TransferTerms transfer =
      transfer_terms(gpu, dims, size, tiles, io, machine, has_terms, level, dram);
  if (known != nullptr) transfer.known = *known;
  const i64 ref = transfer.ref;  // threads_ref, or every thread where unset
  // One barrier per wavefront: T_sync (+ t_barrier per thread beyond threads_ref).
  const double barrier_threads = static_cast<double>(n_sm - ref);
  const double t_sync =
      machine ? gpu.t_sync_s + mt.t_barrier_per_thread_s * barrier_threads : gpu.t_sync_s;
  if constexpr (!TalgOnly) {
    // With every core streaming, every row of the tile.
    b.m_prime_s = transfer.m_prime(n_sm, transfer.counts(0, tT));

    // Nonempty sub-tiles of a tile whose rows 0..tT-1 all lie in [0, T) (rule 5).
    b.n_subtiles = 1;
    for (int d = 1; d < dims; ++d) {
      b.n_subtiles *= div_floor(size.space[d] + tT - 2, tiles.space[d]) + 1;
    }
    b.c_s = model.full_subtile_c();
  }

  // Wavefront classes (rule 10). Wavefront j has rows [(j-1) h, (j+1) h); it is interior
  // (all rows in [0, T)) for 1 <= j <= T/h - 1, and the interior ones of one color are
  // identical. The last candidate is j = (T-1)/h + 1, the last one starting below T.
  const i64 n_interior = std::max<i64>(0, div_floor(T, h) - 1);
  const i64 j_last = div_floor(T - 1, h) + 1;
  i64 n_wavefronts = 0;
  i64 max_tiles = 0;
  double talg = 0;
  double t_tile_interior_a = -1;
  double t_tile_largest = 0;
  if (row != nullptr) row->fill(0.0);
  // The critical thread of each wavefront class (clipped_rounds), by slot: 0, 1, 2 for
  // j = 0, 1, 2 and 3, 4 for the last ones, j = n_interior + 1 and + 2 (at most two, as
  // j_last <= n_interior + 2); computed only for the classes that are evaluated below.
  const bool clipped_terms = Extras && clip_s1 && b.k == 1;
  // Rows of the cross-section per s1 column that another thread stored (cross_columns):
  // 3D, the S2 + 2 lines of s3 points of a column's plane; 2D, the column's one row; 1D,
  // none (its one word per row is t_share_line_s's shared line).
  const double rows_per_column = dims == 3   ? static_cast<double>(size.space[1] + 2)
                                 : dims == 2 ? 1.0
                                             : 0.0;
  // The counts are computed only where they are charged (O(threads + tT) per class).
  const bool cross_terms = clipped_terms && rows_per_column > 0 && n_sm > 1;
  ClippedRounds clipped_at[5];
  if (clipped_terms) {
    auto fill = [&](ClippedRounds* out) {
      fill_clipped(model, n_sm, blocks, cross_terms, n_interior, j_last, out);
    };
    bool fresh = true;
    ClippedGroup* group =
        path == ExactPath::fast
            ? clipped_cache().find(size.space[0], T, n_sm, blocks, cross_terms, tS1, tT, fresh)
            : nullptr;
    if (group == nullptr) {
      fill(clipped_at);
    } else {
      if (fresh) fill(group->rounds);
      std::copy(group->rounds, group->rounds + 5, clipped_at);
    }
  }
  auto add = [&](i64 j, i64 count, int slot) {
    const auto w = model.wavefront(j, b.k, transfer);
    if (!w.nonempty) return;
    // Eq. A.2 with the exact n_i: ceil(ceil(n_i / k) / nSM) rounds of k tiles per SM.
    // = detail::rounds(n_i, k, nSM) = ceil(ceil(n_i / k) / nSM), one exact double division.
    double rounds = static_cast<double>(div_ceil(w.n_tiles, b.k * n_sm));
    // On presets that describe the CPU harness (k = 1), the terms that scale with a tile's
    // s1 points (words copied to and from the arrays and within the buffer, vector steps)
    // are charged for the share of the points the critical thread's tiles hold, the ones
    // per row, segment or line for its tiles (clipped_rounds); otherwise Eq. A.2.
    double share = rounds;
    double cross_rows = 0;  // rows another thread stored that the busiest thread loads
    double t_points_s = 0;  // the part of T_i that scales with the tile's s1 points
    if constexpr (Extras) {  // (the machine variant's terms: not in `exact`'s wavefront)
      if (clipped_terms) {
        const ClippedRounds& clipped = clipped_at[slot];
        rounds = clipped.tiles;
        share = clipped.share;
        cross_rows = clipped.cross * rows_per_column;
        const double l_word =
            transfer.l_word + transfer.gamma * (transfer.active(w.n_tiles) -
                                                static_cast<double>(ref));
        // k = 1: coef_m = 1 (1D) or n_sub (2D/3D) and the counts are every sub-tile's.
        const double coef_m = dims == 1 ? 1.0 : w.n_sub;
        t_points_s = coef_m * (w.rows.words * l_word + w.rows.buf * transfer.l_buf) +
                     w.steps_all * charged.c_iter_s;
      }
    }
    double wavefront_s = rounds * w.t_tile_s - (rounds - share) * t_points_s + t_sync;
    // Blocks charge no shared line: the lines at the threads' block ends were measured to
    // cost nothing (docs/time.md, "Lines at the block ends"); round-robin's are in m'.
    if constexpr (Extras) {
      if (machine) wavefront_s += cross_rows * mt.t_cross_row_s;
    }
    talg += static_cast<double>(count) * wavefront_s;
    if constexpr (!TalgOnly) {  // the Breakdown's counts and T_tile, not read by T_alg alone
      n_wavefronts += count;
      max_tiles = std::max(max_tiles, w.n_tiles);
      t_tile_largest = std::max(t_tile_largest, w.t_tile_s);
      if (j == 1 && n_interior >= 1) t_tile_interior_a = w.t_tile_s;
    }
    if constexpr (Extras) {
      if (row != nullptr) {
        // d T_alg / d theta for this wavefront class (design_parameter_names() order).
        DesignRow& r = *row;
        const double n = static_cast<double>(count);
        const double nm = n * rounds * w.coef_m;  // times m'
        const double nc = n * rounds;             // times the counts
        const double nm_p = n * share * w.coef_m;  // the same for the per-point terms
        const double nc_p = n * share;
        const std::size_t lv = static_cast<std::size_t>(level);
        r[0] += nm_p * w.rows.words;                                        // L
        r[1] += nm * transfer.tau_per_transfer + nc * w.counts[1];          // tau_sync
        r[2] += n;                                                          // T_sync
        r[3] += nc_p * w.counts[0];                                         // C_iter
        r[4] += nm * w.rows.seg;                                            // L_seg
        const double active = transfer.active(w.n_tiles) - static_cast<double>(ref);
        if (transfer.partly_l3) {  // dL and g of L3 and DRAM, by the arrays' DRAM share
          r[5 + 2] += (1.0 - dram) * (nm_p * w.rows.words);
          r[5 + 3] += dram * (nm_p * w.rows.words);
          r[9 + 2] += (1.0 - dram) * (nm_p * w.rows.words * active);
          r[9 + 3] += dram * (nm_p * w.rows.words * active);
        } else {
          r[5 + lv] += nm_p * w.rows.words;            // dL[level]
          r[9 + lv] += nm_p * w.rows.words * active;   // g[level]
        }
        r[dims == 3 ? 17 : 13] += nc * w.counts[2];                         // tau_line (3D)
        if (dims == 3) r[19] += dram * (nc * w.counts[2]);                 // ... in DRAM
        r[14] += n * barrier_threads;                                       // t_barrier
        if (!blocks) r[15] += w.n_tiles > 1 ? nm * w.rows.share : 0.0;  // t_share
        r[16] += nm_p * w.rows.buf;                                         // l_buffer
        r[18] += n * cross_rows;                                            // t_cross_row
        r[20] += nm * w.rows.gap;                                           // l_prefetch
        r[21] += buffer_evicted * (nc_p * w.counts[0]);                     // c_buffer_dram
      }
    }
  };
  add(0, 1, 0);                                          // first, partial B wavefront
  if (n_interior >= 1) add(1, (n_interior + 1) / 2, 1);  // interior A (odd j)
  if (n_interior >= 2) add(2, n_interior / 2, 2);        // interior B (even j)
  for (i64 j = n_interior + 1; j <= j_last; ++j) {       // last one or two, partial
    add(j, 1, 3 + static_cast<int>(j - n_interior - 1));
  }

  b.n_wavefronts = n_wavefronts;
  b.tiles_per_wavefront = max_tiles;
  b.t_tile_s = t_tile_interior_a >= 0 ? t_tile_interior_a : t_tile_largest;
  b.t_sync_total_s = static_cast<double>(n_wavefronts) * t_sync;
  b.talg_s = talg;
  if constexpr (!TalgOnly) b.t_ideal_s = t_ideal_s(gpu, stencil, size);
  return b;
}

}  // namespace

void set_clipped_cache_enabled(bool enabled) { clipped_cache().enabled = enabled; }

void set_cross_rows_simd(bool enabled) {
#if COSTMETRICS_EXACT_AVX2
  g_cross_rows_simd.store(enabled, std::memory_order_relaxed);
#else
  (void)enabled;
#endif
}

std::uint64_t clipped_cache_hits() { return clipped_cache().hits; }

Breakdown evaluate_exact(const GpuParams& gpu, const StencilParams& stencil,
                         const ProblemSize& size, const TileSizes& tiles, ExactPath path,
                         bool machine, DesignRow* row) {
  if (machine || row != nullptr) {
    return evaluate_exact_impl<true>(gpu, stencil, size, tiles, path, machine, row);
  }
  return evaluate_exact_impl<false>(gpu, stencil, size, tiles, path, false, nullptr);
}

// T_alg alone (issue 15, seventh round): the wavefront classes of evaluate_exact_impl<false>
// without the Breakdown's other terms (c_s, m' of a whole tile, the sub-tile count, T_ideal)
// and without the machine variant's transfer terms, which `exact` does not read (it takes
// m'_exact). There a class costs rounds T_i - (rounds - share) t_points + T_sync with
// share = rounds and t_points = 0, i.e. (rounds T_i - 0.0) + T_sync, the same double as
// rounds T_i + T_sync. The classes are evaluated in the same order (the reuse of the
// interior wavefront depends on it), so T_alg is the same bit for bit.
double evaluate_exact_talg(const GpuParams& gpu, const StencilParams& stencil,
                           const ProblemSize& size, const TileSizes& tiles) {
  const int dims = stencil.n_space_dims;
  const i64 T = size.time_steps;
  const i64 h = tiles.time / 2;
  ExactModel<false> model(gpu, stencil, size, tiles, ExactPath::fast, false, false, true);
  const i64 k = detail::k_factor(gpu, m_tile_words_positive(dims, tiles));
  TransferTerms transfer;
  transfer.m_prime_exact = detail::transfer(gpu, dims, tiles).m_prime_s;
  const double t_sync = gpu.t_sync_s;
  const i64 k_n_sm = k * static_cast<i64>(gpu.n_sm);
  const i64 n_interior = std::max<i64>(0, div_floor(T, h) - 1);
  const i64 j_last = div_floor(T - 1, h) + 1;
  double talg = 0;
  auto add = [&](i64 j, i64 count) COSTMETRICS_LAMBDA_INLINE {
    const auto w = model.wavefront(j, k, transfer);
    if (!w.nonempty) return;
    // Eq. A.2 with the exact n_i, as in evaluate_exact_impl.
    const double rounds = static_cast<double>(div_ceil(w.n_tiles, k_n_sm));
    talg += static_cast<double>(count) * (rounds * w.t_tile_s + t_sync);
  };
  add(0, 1);                                          // first, partial B wavefront
  if (n_interior >= 1) add(1, (n_interior + 1) / 2);  // interior A (odd j)
  if (n_interior >= 2) add(2, n_interior / 2);        // interior B (even j)
  for (i64 j = n_interior + 1; j <= j_last; ++j) add(j, 1);  // last one or two, partial
  return talg;
}

// What the machine variant reads of (gpu, dims, size) alone (evaluate_exact_impl computes
// the same per evaluation).
MachineSetup machine_setup(const GpuParams& gpu, int dims, const ProblemSize& size) {
  MachineSetup s;
  s.terms = !gpu.machine.all_zero();
  const MemoryPlacement placed = memory_placement(gpu, dims, size);
  s.level = placed.level;
  s.dram = placed.dram_share;
  return s;
}

double evaluate_machine_talg(const GpuParams& gpu, const StencilParams& stencil,
                             const ProblemSize& size, const TileSizes& tiles,
                             const MachineSetup& setup) {
  return evaluate_exact_impl<true, true>(gpu, stencil, size, tiles, ExactPath::fast, true,
                                         nullptr, &setup)
      .talg_s;
}

// ExactTalgBatch (issue 15, eighth round): the 2D `exact` T_alg of evaluate_exact_talg on
// the kind tables (S1 >= 2P - 1, tS2 <= S2), with the work that does not depend on the
// whole tile shared between the tiles of a batch. evaluate_exact_talg computes, for
// wavefront j of the list below, T_alg += count (rounds_j T_j + T_sync) (Eq. A.2 with the
// exact n_j), T_j = tile_time_s(2, k, m', n_sub, sum_c, sum_max) (Eqs. A.13/A.17) over the
// sub-tile classes of its rows [r_lo, r_hi) (exact Eq. A.16 per class:
// c = C_iter steps + tau_sync rows). Of these:
// - the list (j, count, rows) depends on tT (and T) alone;
// - n_j (the tile lattice of rule 2/4) on (tS1, tT) (and S1, T), rounds_j on k too;
// - the classes of a row range (InnerDim::segments' runs [lo, a), [a, b), [b, end) and the
//   class multiplicity) on (tS2, tT) (and S2);
// - the steps (kind tables: W(r) depends on tS1, the counts on tS2) on the whole tile.
// Each group's part is computed once and cached (direct-mapped, keyed by the group; a
// collision recomputes); the per-tile part runs the same integer and floating-point
// operations in the same order as evaluate_exact_talg, so T_alg is the same bit for bit
// (test_time_batch compares the batch with evaluate()).
namespace {
// The floor_div of ExactModel (this file's, not time_detail.hpp's), for ExactTalgBatch.
inline i64 exact_floor_div(i64 a, i64 b) { return floor_div(a, b); }
}  // namespace

struct ExactTalgBatch::Impl {
  static constexpr int kMaxWavefronts = 6;  // 1 + 2 + at most 2 (evaluate_exact_talg)
  // Wavefronts of one tT (T fixed): those with rows in [0, T), in evaluate_exact_talg's order.
  struct TimePlan {
    i64 tT = -1;
    int n = 0;        // wavefronts with rows
    int n_ranges = 0;  // distinct row ranges among them
    i64 j[kMaxWavefronts];
    i64 count[kMaxWavefronts];
    int range[kMaxWavefronts];  // index into lo/hi
    int slot[kMaxWavefronts];   // the machine variant's ClippedGroup::rounds entry
    i64 lo[kMaxWavefronts], hi[kMaxWavefronts];  // distinct rows [lo, hi)
  };
  // n_j of one (tS1, tT), and its rounds for k.
  struct LatticePlan {
    i64 tS1 = -1, tT = -1;
    i64 n_tiles[kMaxWavefronts];
    i64 k = -1;
    double rounds[kMaxWavefronts];
    // The machine variant: the shape of each row range of the time plan (rows_shaped).
    bool rows_shaped = false;
    TransferTerms::RowShape rows[kMaxWavefronts];
  };
  // One sub-tile class of a row range: t4 offsets of its run bounds and its multiplicity.
  struct ClassRun {
    std::size_t lo, a, b, end;  // 4 x row
    double rows;                // end - lo, rows with points
    double mult;                // omult
    i64 n_rows;                 // end - lo (the machine variant's lines)
    i64 e_sum;                  // sum of e(r) over the rows [lo, end) (the same)
  };
  // The classes of every row range of one (tS2, tT).
  struct ClassPlan {
    i64 tS2 = -1, tT = -1;
    int start[kMaxWavefronts + 1];  // classes of range q: [start[q], start[q + 1])
    i64 n_sub[kMaxWavefronts];      // sum of the multiplicities of range q
    i64 trail = 0;                  // S2 mod tS2: the trail count at row 0 (kind tables)
    std::vector<ClassRun> runs;
  };
  static constexpr std::size_t kTimeSlots = 64, kLatticeSlots = 2048, kClassSlots = 1024;

  const GpuParams& gpu;
  const StencilParams& stencil;
  const ProblemSize& size;
  std::vector<TimePlan> time_plans;
  std::vector<LatticePlan> lattice_plans;
  std::vector<ClassPlan> class_plans;
  // nV = 2^shift with AVX2 (every GPU preset on x86-64): the 2D kind tables are filled here
  // by fill_2d_rows_avx2, as ExactModel::build_kind_tables fills them, without an ExactModel
  // per tile; else -1 (an ExactModel fills them).
  int avx2_shift = -1;
  std::vector<i64> kind_table;

  // The machine variant (with machine terms), else null: `exact`.
  const MachineSetup* machine = nullptr;
  // machine_talg's per-row-range sums of one tile.
  RowCounts range_counts[kMaxWavefronts];
  double range_sum_c[kMaxWavefronts];
  i64 range_n_sub[kMaxWavefronts];
  double range_steps[kMaxWavefronts];

  Impl(const GpuParams& g, const StencilParams& st, const ProblemSize& sz,
       const MachineSetup* machine_setup = nullptr)
      : gpu(g), stencil(st), size(sz), machine(machine_setup) {
#if COSTMETRICS_EXACT_AVX2
    // ExactModel's n_v_shift_ and its test for the AVX2 fill.
    if (gpu.n_v > 0 && (gpu.n_v & (gpu.n_v - 1)) == 0 && exact_cpu_has_avx2()) {
      avx2_shift = __builtin_ctzll(static_cast<unsigned long long>(gpu.n_v));
    }
#endif
    if (stencil.n_space_dims == 2 || machine != nullptr) {
      // (the machine variant keeps its row shapes per (tS1, tT) in 3D too)
      time_plans.resize(kTimeSlots);
      lattice_plans.resize(kLatticeSlots);
    }
    if (stencil.n_space_dims == 2) class_plans.resize(kClassSlots);
  }

  static std::size_t time_slot(i64 tT) { return static_cast<std::size_t>(tT >> 1) & (kTimeSlots - 1); }
  static std::size_t lattice_slot(i64 tS1, i64 tT) {
    return ((static_cast<std::size_t>(tT >> 1) & 31) << 6) | (static_cast<std::size_t>(tS1) & 63);
  }
  static std::size_t class_slot(i64 tS2, i64 tT) {
    const std::size_t s = static_cast<std::size_t>(tS2);
    return ((static_cast<std::size_t>(tT >> 1) & 31) << 5) | (((s >> 5) ^ s) & 31);
  }

  // The vector steps of one class run from the 2D kind tables t4 (by row: kinds trail,
  // full, lead at 4 r + kind): its three kind segments [lo, a), [a, b), [b, end).
  static i64 run_steps(const i64* t4, const ClassRun& run) {
    return (t4[run.a + InnerDim::kTrail] - t4[run.lo + InnerDim::kTrail]) +
           (t4[run.b + InnerDim::kFull] - t4[run.a + InnerDim::kFull]) +
           (t4[run.end + InnerDim::kLead] - t4[run.b + InnerDim::kLead]);
  }

  // The wavefront list of evaluate_exact_talg (tT even, so h >= 1); false if it has more
  // than kMaxWavefronts entries (not reached: at most 5).
  bool plan_time(TimePlan& p, i64 tT) const {
    const i64 T = size.time_steps;
    const i64 h = tT / 2;
    p.tT = -1;
    p.n = 0;
    p.n_ranges = 0;
    const i64 n_interior = std::max<i64>(0, div_floor(T, h) - 1);
    const i64 j_last = div_floor(T - 1, h) + 1;
    auto add = [&](i64 j, i64 count, int slot) {
      const i64 t0 = (j - 1) * h;
      const i64 r_lo = std::max<i64>(0, -t0);
      const i64 r_hi = std::min(tT, T - t0);
      if (r_lo >= r_hi) return true;  // not nonempty: evaluate_exact_talg skips it
      if (p.n == kMaxWavefronts) return false;
      p.slot[p.n] = slot;
      int q = 0;
      while (q < p.n_ranges && !(p.lo[q] == r_lo && p.hi[q] == r_hi)) ++q;
      if (q == p.n_ranges) {
        p.lo[q] = r_lo;
        p.hi[q] = r_hi;
        ++p.n_ranges;
      }
      p.j[p.n] = j;
      p.count[p.n] = count;
      p.range[p.n] = q;
      ++p.n;
      return true;
    };
    // (the slots of evaluate_exact_impl's clipped_at)
    bool ok = add(0, 1, 0);
    if (n_interior >= 1) ok = ok && add(1, (n_interior + 1) / 2, 1);
    if (n_interior >= 2) ok = ok && add(2, n_interior / 2, 2);
    for (i64 j = n_interior + 1; ok && j <= j_last; ++j) {
      ok = add(j, 1, 3 + static_cast<int>(j - n_interior - 1));
    }
    if (ok) p.tT = tT;
    return ok;
  }

  // n_j of each wavefront of `tp` for tS1 (ExactModel::wavefront, rules 2 and 4).
  void plan_lattice(LatticePlan& p, const TimePlan& tp, i64 tS1) const {
    const i64 tT = tp.tT;
    const i64 h = tT / 2;
    const i64 S1 = size.space[0];
    const i64 pitch = 2 * tS1 + tT - 2;
    const i64 half_pitch = pitch / 2;
    auto e = [tT](i64 r) { return std::min(r, tT - 1 - r); };
    for (int w = 0; w < tp.n; ++w) {
      const i64 j = tp.j[w];
      const i64 r_lo = tp.lo[tp.range[w]], r_hi = tp.hi[tp.range[w]];
      const i64 off = (j & 1) != 0 ? 0 : half_pitch;
      const i64 e_max = std::max(e(std::clamp(h - 1, r_lo, r_hi - 1)),
                                 e(std::clamp(h, r_lo, r_hi - 1)));
      const i64 p_min = 1 - div_ceil(tS1 + e_max + off, pitch);
      const i64 p_max = exact_floor_div(S1 + e_max - off - 1, pitch);
      p.n_tiles[w] = std::max<i64>(0, p_max - p_min + 1);
    }
    p.tS1 = tS1;
    p.tT = tT;
    p.k = -1;
    p.rows_shaped = false;
  }

  // The sub-tile classes of each row range of `tp` for tS2 (ExactModel::wavefront's 2D
  // class loop on the kind tables: for_each_subtile_class's order, empty classes dropped).
  void plan_classes(ClassPlan& p, const TimePlan& tp, i64 tS2) const {
    const i64 S = size.space[1];
    const InnerDim d{true, S, tS2};
    p.runs.clear();
    for (int q = 0; q < tp.n_ranges; ++q) {
      const i64 ra = tp.lo[q], rb = tp.hi[q];
      p.start[q] = static_cast<int>(p.runs.size());
      i64 n_sub = 0;
      for_each_subtile_class(d, ra, rb, [&](i64 ob, i64 omult, std::size_t) {
        const i64 lo = std::max(ra, ob * tS2 - S + 1);
        const i64 end = std::min(rb, (ob + 1) * tS2);
        if (lo >= end) return;
        const i64 a = std::min(std::max((ob + 1) * tS2 - S, lo), end);
        const i64 b = std::min(std::max(ob * tS2 + 1, a), end);
        ClassRun c;
        c.lo = 4 * static_cast<std::size_t>(lo);
        c.a = 4 * static_cast<std::size_t>(a);
        c.b = 4 * static_cast<std::size_t>(b);
        c.end = 4 * static_cast<std::size_t>(end);
        c.rows = static_cast<double>(end - lo);
        c.mult = static_cast<double>(omult);
        c.n_rows = end - lo;
        c.e_sum = e_prefix_of(tp.tT, end) - e_prefix_of(tp.tT, lo);
        p.runs.push_back(c);
        n_sub += omult;
      });
      p.n_sub[q] = n_sub;
    }
    p.start[tp.n_ranges] = static_cast<int>(p.runs.size());
    p.trail = S - div_floor(S, tS2) * tS2;  // build_kind_tables' mod(S, tS)
    p.tS2 = tS2;
    p.tT = tp.tT;
  }

  // The 2D kind tables of tile (tS1, tS2, tT) by the AVX2 fill (nV a power of two), in
  // kind_table; nullptr without AVX2.
  const i64* kind_tables_avx2(i64 tS1, i64 tS2, i64 tT, const ClassPlan& cp) {
#if COSTMETRICS_EXACT_AVX2
    if (avx2_shift >= 0) {
      const std::size_t need = 4 * (static_cast<std::size_t>(tT) + 1);
      if (kind_table.size() < need) kind_table.resize(need);
      i64* const out = kind_table.data();
      out[0] = out[1] = out[2] = out[3] = 0;
      fill_2d_rows_avx2(out, tT, tS1, 1, tS2, cp.trail, tS2, avx2_shift);
      return out;
    }
#else
    (void)tS1, (void)tS2, (void)tT, (void)cp;
#endif
    return nullptr;
  }

  double talg(const TileSizes& tiles) {
    if (machine != nullptr) return machine_talg(tiles);
    const i64 tS1 = tiles.space[0], tT = tiles.time;
    const i64 tS2 = stencil.n_space_dims == 2 ? tiles.space[1] : 0;
    if (stencil.n_space_dims != 2 || !whole_rows_fit(size.space[0], tS1, tT) ||
        tS2 > size.space[1]) {
      return evaluate_exact_talg(gpu, stencil, size, tiles);
    }
    TimePlan& tp = time_plans[time_slot(tT)];
    if (tp.tT != tT && !plan_time(tp, tT)) return evaluate_exact_talg(gpu, stencil, size, tiles);
    LatticePlan& lp = lattice_plans[lattice_slot(tS1, tT)];
    if (lp.tS1 != tS1 || lp.tT != tT) plan_lattice(lp, tp, tS1);
    ClassPlan& cp = class_plans[class_slot(tS2, tT)];
    if (cp.tS2 != tS2 || cp.tT != tT) plan_classes(cp, tp, tS2);

    // Per tile, as evaluate_exact_talg: k (Eq. A.12), m' (Eq. A.15), the rounds of Eq. A.2.
    const i64 k = detail::k_factor(gpu, m_tile_words_positive(2, tiles));
    const double m_prime = detail::transfer(gpu, 2, tiles).m_prime_s;
    if (lp.k != k) {
      const i64 k_n_sm = k * static_cast<i64>(gpu.n_sm);
      for (int w = 0; w < tp.n; ++w) lp.rounds[w] = static_cast<double>(div_ceil(lp.n_tiles[w], k_n_sm));
      lp.k = k;
    }
    // The kind tables of this tile (ExactModel::build_kind_tables, the 2D fill: row 0 zero,
    // then W(r) = tS1 + 2 e(r) times the counts trail (S2 + r) mod tS2, full tS2, lead
    // tS2 - (r mod tS2), starting at trail = S2 mod tS2 and lead = tS2).
    const i64* t4 = kind_tables_avx2(tS1, tS2, tT, cp);
    // Other nV (or no AVX2): an ExactModel's own fill (out of line: an ExactModel on this
    // path's frame cost about 50 instructions per tile even where unused).
    if (t4 == nullptr) return talg_with_model(tiles, tp, lp, cp, k, m_prime);
    return talg_of_tables(tp, lp, cp, t4, k, m_prime);
  }

  // The machine variant's T_alg (evaluate_machine_talg) of a 2D tile on the kind tables,
  // bit for bit, with the group plans above: evaluate_exact_impl's wavefront classes in
  // its order, each as ExactModel::wavefront's 2D kind loop (its c with the per-line
  // overhead, its sums) and as its add() (the critical thread's rounds, share and
  // cross-row count of the group, from the ClippedCache, filled by fill_clipped as
  // evaluate_exact_impl fills it). Tiles it does not cover (k > 1, rows that do not fit
  // whole, tS2 > S2, no AVX2 fill, the cache off) take evaluate_machine_talg.
  double machine_talg(const TileSizes& tiles) {
    const i64 tS1 = tiles.space[0], tS2 = tiles.space[1], tT = tiles.time;
    const i64 S1 = size.space[0], T = size.time_steps;
    auto one_tile = [&] { return evaluate_machine_talg(gpu, stencil, size, tiles, *machine); };
    const MachineTerms& mt = gpu.machine;
    const i64 n_sm = gpu.n_sm;
    const bool blocks = mt.schedule == TileSchedule::block;
    if (!machine->terms) return one_tile();
    if (stencil.n_space_dims != 2 || !whole_rows_fit(S1, tS1, tT) || avx2_shift < 0 ||
        tS2 > size.space[1] || detail::k_factor(gpu, m_tile_words_positive(2, tiles)) != 1) {
      return one_tile_with_shapes(tiles);
    }
    // The group's critical-thread counts, computed as evaluate_exact_impl computes them
    // where the cache does not hold them yet.
    bool fresh = true;
    ClippedGroup* group =
        clipped_cache().find(S1, T, n_sm, blocks, n_sm > 1, tS1, tT, fresh);
    if (group == nullptr) return one_tile();  // the cache is off
    if (fresh) {
      const i64 h = tT / 2;
      const ExactModel<true> model(gpu, stencil, size, tiles, ExactPath::fast, true, false);
      fill_clipped(model, n_sm, blocks, n_sm > 1, std::max<i64>(0, div_floor(T, h) - 1),
                   div_floor(T - 1, h) + 1, group->rounds);
    }
    TimePlan& tp = time_plans[time_slot(tT)];
    if (tp.tT != tT && !plan_time(tp, tT)) return one_tile();
    LatticePlan& lp = lattice_plans[lattice_slot(tS1, tT)];
    if (lp.tS1 != tS1 || lp.tT != tT) plan_lattice(lp, tp, tS1);
    ClassPlan& cp = class_plans[class_slot(tS2, tT)];
    if (cp.tS2 != tS2 || cp.tT != tT) plan_classes(cp, tp, tS2);
    const i64* t4 = kind_tables_avx2(tS1, tS2, tT, cp);
    if (t4 == nullptr) return one_tile();
    const TransferTerms transfer =
        transfer_terms(gpu, 2, size, tiles, detail::transfer(gpu, 2, tiles), true, true,
                       machine->level, machine->dram);
    const i64 ref = transfer.ref;
    const double c_iter =
        stencil.c_iter_s +
        mt.c_buffer_dram_s * buffer_evicted_share(gpu, 2, size, tiles, machine->dram);
    const double tau = gpu.tau_sync_s;
    const double tau_line = mt.tau_line_s;
    const double t_sync =
        gpu.t_sync_s + mt.t_barrier_per_thread_s * static_cast<double>(n_sm - ref);
    shape_rows(lp, tp, transfer);
    // Per row range, what its wavefronts share: the counts of m' and the class loop of
    // ExactModel::wavefront (c of each class with the per-line overhead; with k = 1,
    // tile_time_s reads sum_c and n_sub alone, not sum_max). The wavefronts of one range
    // (j = 1 and 2 hold every row) differ only in their tile counts. (Member arrays: a
    // local RowCounts[6] was zeroed on every tile.)
    for (int q = 0; q < tp.n_ranges; ++q) {
      range_counts[q] = transfer.counts(tp.lo[q], tp.hi[q], lp.rows[q]);
      double sum_c = 0;
      i64 n_sub = 0;
      double steps_all = 0;
      const ClassRun* run = cp.runs.data() + cp.start[q];
      const ClassRun* const last = cp.runs.data() + cp.start[q + 1];
      for (; run != last; ++run) {
        const i64 sum = run_steps(t4, *run);
        double c = c_iter * static_cast<double>(sum) + tau * run->rows;
        const double lines = static_cast<double>((tS1 - 1) * run->n_rows + 2 * run->e_sum);
        c += tau_line * lines;
        sum_c += run->mult * c;
        n_sub += static_cast<i64>(run->mult);
        steps_all += run->mult * static_cast<double>(sum);
      }
      range_sum_c[q] = sum_c;
      range_n_sub[q] = n_sub;
      range_steps[q] = steps_all;
    }
    double talg = 0;
    for (int w = 0; w < tp.n; ++w) {
      const int q = tp.range[w];
      const i64 n_tiles = lp.n_tiles[w];
      const RowCounts& rows = range_counts[q];
      const double m_prime = transfer.m_prime(n_tiles, rows);
      const i64 n_sub = range_n_sub[q];
      const double steps_all = range_steps[q];
      const double t_tile =
          detail::tile_time_s(2, 1, m_prime, static_cast<double>(n_sub), range_sum_c[q], 0.0);
      const ClippedRounds& clipped = group->rounds[tp.slot[w]];
      const double l_word =
          transfer.l_word + transfer.gamma * (transfer.active(n_tiles) - static_cast<double>(ref));
      const double t_points =
          static_cast<double>(n_sub) * (rows.words * l_word + rows.buf * transfer.l_buf) +
          steps_all * c_iter;
      double wavefront_s =
          clipped.tiles * t_tile - (clipped.tiles - clipped.share) * t_points + t_sync;
      wavefront_s += clipped.cross * mt.t_cross_row_s;  // 2D: one row per s1 column
      talg += static_cast<double>(tp.count[w]) * wavefront_s;
    }
    return talg;
  }

  // The row shapes of m' of each row range of `tp` in `lp`, once per (tS1, tT) group (they
  // depend on tS1, tT and the problem alone; `transfer`: any tile's of the group).
  static void shape_rows(LatticePlan& lp, const TimePlan& tp, const TransferTerms& transfer) {
    if (lp.rows_shaped) return;
    for (int q = 0; q < tp.n_ranges; ++q) lp.rows[q] = transfer.row_shape(tp.lo[q], tp.hi[q]);
    lp.rows_shaped = true;
  }

  // evaluate_machine_talg of a tile the grouped path does not cover (3D; 2D with rows that
  // do not fit whole, tS2 > S2, k > 1 or no AVX2 fill), with the row shapes of the
  // wavefronts' row ranges kept per (tS1, tT) in its LatticePlan (computed once per group,
  // as machine_talg does; they depend on tS1, tT and the problem alone): the same values,
  // computed once instead of per tile.
  __attribute__((noinline)) double one_tile_with_shapes(const TileSizes& tiles) {
    const int dims = stencil.n_space_dims;
    const i64 tS1 = tiles.space[0], tT = tiles.time;
    TimePlan& tp = time_plans[time_slot(tT)];
    if (tp.tT != tT && !plan_time(tp, tT)) {
      return evaluate_machine_talg(gpu, stencil, size, tiles, *machine);
    }
    LatticePlan& lp = lattice_plans[lattice_slot(tS1, tT)];
    if (lp.tS1 != tS1 || lp.tT != tT) plan_lattice(lp, tp, tS1);
    if (!lp.rows_shaped) {
      shape_rows(lp, tp,
                 transfer_terms(gpu, dims, size, tiles, detail::transfer(gpu, dims, tiles), true,
                                true, machine->level, machine->dram));
    }
    const TransferTerms::KnownRowShapes known{tp.lo, tp.hi, lp.rows, tp.n_ranges};
    return evaluate_exact_impl<true, true>(gpu, stencil, size, tiles, ExactPath::fast, true,
                                           nullptr, machine, &known)
        .talg_s;
  }

  __attribute__((noinline)) double talg_with_model(const TileSizes& tiles, const TimePlan& tp,
                                                   const LatticePlan& lp, const ClassPlan& cp,
                                                   i64 k, double m_prime) const {
    ExactModel<false> model(gpu, stencil, size, tiles, ExactPath::fast, false, false, true);
    model.build_kind_tables();
    return talg_of_tables(tp, lp, cp, model.kind_table_2d(), k, m_prime);
  }

  // T_alg from the tile's 2D kind tables t4 (by row) and its group plans.
  double talg_of_tables(const TimePlan& tp, const LatticePlan& lp, const ClassPlan& cp,
                        const i64* t4, i64 k, double m_prime) const {
    const double c_iter = stencil.c_iter_s;
    const double tau = gpu.tau_sync_s;
    // T_j per row range: the 2D class loop of ExactModel::wavefront (exact Eq. A.16 per
    // class; Eqs. A.13/A.17 for the tile), the same operations in the same order.
    double t_tile[kMaxWavefronts];
    for (int q = 0; q < tp.n_ranges; ++q) {
      double sum_c = 0;
      double sum_max = 0;
      const ClassRun* run = cp.runs.data() + cp.start[q];
      const ClassRun* const last = cp.runs.data() + cp.start[q + 1];
      for (; run != last; ++run) {
        const i64 sum = run_steps(t4, *run);
        const double c = c_iter * static_cast<double>(sum) + tau * run->rows;
        sum_c += run->mult * c;
        sum_max += run->mult * std::max(m_prime, c);
      }
      t_tile[q] = detail::tile_time_s(2, k, m_prime, static_cast<double>(cp.n_sub[q]), sum_c,
                                      sum_max);
    }
    // Eq. A.2 with the exact n_j, in evaluate_exact_talg's order.
    const double t_sync = gpu.t_sync_s;
    double talg = 0;
    for (int w = 0; w < tp.n; ++w) {
      talg += static_cast<double>(tp.count[w]) * (lp.rounds[w] * t_tile[tp.range[w]] + t_sync);
    }
    return talg;
  }
};

ExactTalgBatch::ExactTalgBatch(const GpuParams& gpu, const StencilParams& stencil,
                               const ProblemSize& size, const MachineSetup* machine)
    : impl_(std::make_unique<Impl>(gpu, stencil, size, machine)) {}
ExactTalgBatch::~ExactTalgBatch() = default;
double ExactTalgBatch::talg(const TileSizes& tiles) { return impl_->talg(tiles); }

namespace {
// Under about 300 tiles the caches' set-up (about 390 kB zeroed) costs more instructions
// than the groups save (callgrind, bench_time_batch's random default-space tiles, 1 thread:
// 2,647.8 against 2,586.6 per tile at 300 tiles, 2,102.2 against 2,551.6 at 600, 1,512.2
// against 2,554.1 at 2,000); 2048 leaves a margin for what callgrind does not count (the
// pages' first-touch faults, the caches' misses).
std::size_t g_exact_batch_group_min = 2048;
}  // namespace
std::size_t exact_batch_group_min() { return g_exact_batch_group_min; }
void set_exact_batch_group_min(std::size_t n) { g_exact_batch_group_min = n; }

}  // namespace detail
}  // namespace time
}  // namespace costmetrics

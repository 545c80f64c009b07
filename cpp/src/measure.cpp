// Measurement harness and micro-benchmarks (see costmetrics/measure.hpp and
// docs/validate.md). Seed 000, Appendix A: hexagonal tiling (Sec. A.4.1, Fig. B.4),
// hybrid hexagonal/classic tiling in 2D (Sec. A.4.2, Fig. A.3) and 3D (Sec. A.4.3),
// micro-benchmarks (Sec. A.5.1).
#include "costmetrics/measure.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "costmetrics/checked.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <time.h>
#endif

namespace costmetrics {
namespace measure {

namespace {

using Clock = std::chrono::steady_clock;

// Bounds on the work one call may do (HELPERS: bounded work).
constexpr std::int64_t kMaxArrayFloats = std::int64_t{1} << 25;  // 128 MiB per time level
constexpr std::int64_t kMaxPoints = std::int64_t{1} << 36;       // stencil updates per run
constexpr std::int64_t kMaxTile = std::int64_t{1} << 16;         // tS1, tS2, tT
constexpr std::int64_t kMaxBufferFloats = std::int64_t{1} << 24;  // per-thread tile buffer
constexpr std::int64_t kMaxThreads = 256;
constexpr std::int64_t kMaxRepeats = 1000;
constexpr float kBoundary = 0.5f;  // Dirichlet boundary value (halo of both time levels)

// ---- the stencils ---------------------------------------------------------------------
// One inline update per stencil, used by the naive and the tiled code alike, so both
// perform the same float operations in the same order (results compare bitwise).
// 2D arguments: center c, north n = (s1-1, s2), south s = (s1+1, s2), west w = (s1, s2-1),
// east e = (s1, s2+1). Definitions chosen for the harness (docs/validate.md).
struct Jacobi1D {
  static inline float f(float l, float c, float r) { return 0.33333334f * (l + c + r); }
};
struct Jacobi2D {
  static inline float f(float c, float n, float s, float w, float e) {
    return 0.2f * (c + n + s + w + e);
  }
};
struct Heat2D {
  static inline float f(float c, float n, float s, float w, float e) {
    return c + 0.125f * (n - 2.0f * c + s) + 0.125f * (w - 2.0f * c + e);
  }
};
struct Laplacian2D {
  static inline float f(float c, float n, float s, float w, float e) {
    return 0.25f * (n + s + w + e) + 0.0f * c;
  }
};
struct Gradient2D {
  static inline float f(float c, float n, float s, float w, float e) {
    const float dn = c - n, ds = c - s, dw = c - w, de = c - e;
    return c + 0.01f / std::sqrt(1.0f + dn * dn + ds * ds + dw * dw + de * de);
  }
};
// 3D arguments: as in 2D, plus b = (s1, s2, s3-1), f = (s1, s2, s3+1). The 2D Heat update
// with a third term; the center keeps weight 0.25 > 0, so values stay in [0, 1].
struct Heat3D {
  static inline float f(float c, float n, float s, float w, float e, float b, float f) {
    return c + 0.125f * (n - 2.0f * c + s) + 0.125f * (w - 2.0f * c + e) +
           0.125f * (b - 2.0f * c + f);
  }
};

// out[i] = f(in[i-1], in[i], in[i+1]) for i in [0, n).
template <typename K>
inline void row_1d(float* __restrict out, const float* __restrict in, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = K::f(in[i - 1], in[i], in[i + 1]);
}

// One s1-row of a 2D tile row in skewed coordinates (docs/validate.md): the point at u
// reads center in[u-1], north/south up[u-1]/down[u-1], west in[u-2], east in[u].
template <typename K>
inline void row_2d(float* __restrict out, const float* __restrict in,
                   const float* __restrict up, const float* __restrict down, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = K::f(in[i - 1], up[i - 1], down[i - 1], in[i - 2], in[i]);
  }
}

// One s3-line of a 3D sub-slab row in skewed coordinates: the point at u3 reads center
// in[u3-1], b/f in[u3-2]/in[u3], and n, s, w, e at [u3-1] of their own lines.
template <typename K>
inline void row_3d(float* __restrict out, const float* __restrict in,
                   const float* __restrict up, const float* __restrict down,
                   const float* __restrict west, const float* __restrict east, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = K::f(in[i - 1], up[i - 1], down[i - 1], west[i - 1], east[i - 1], in[i - 2], in[i]);
  }
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// A sub-tile at least S + tT wide along u = s + r holds the whole skewed extent: a tile
// runs as one sub-tile per tile either way, with the same points, copies and result. The
// harness clips it to S + tT so that the plane's stride and the face copies are those of
// the clipped tile; unclipped, the unused width cost up to 10% (Laplacian 2D 256^2, tS2 480
// against 288, measured 2026-11-25) that no model counts (harness 5). 0 stays 0 (no such
// dimension).
std::int64_t clipped_sub_tile(std::int64_t tile, std::int64_t size, std::int64_t tile_t) {
  return std::min(tile, size + tile_t);
}

// ---- synchronization and threads ---------------------------------------------------------

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Sense-reversing barrier: spins briefly, then yields (the machine may be oversubscribed).
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void wait() {
    const int gen = generation_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
      count_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    for (int i = 0; generation_.load(std::memory_order_acquire) == gen; ++i) {
      if (i < 256) {
        cpu_relax();
      } else {
        std::this_thread::yield();
      }
    }
  }

 private:
  const int n_;
  std::atomic<int> count_{0};
  std::atomic<int> generation_{0};
};

// Pins the calling thread to the index-th CPU it is allowed to run on; false if not possible.
bool pin_to_cpu(int index) {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return false;
  const int n_allowed = CPU_COUNT(&allowed);
  if (n_allowed <= 0) return false;
  int target = index % n_allowed;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (target-- == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      return pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
    }
  }
  return false;
#else
  (void)index;
  return false;
#endif
}

// The median of a sorted, non-empty sample (the mean of the middle two for an even count).
double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs body(thread_index) on `threads` threads (the caller is thread 0), optionally pinned.
// Returns how many were pinned. Exceptions in workers are rethrown in the caller.
template <typename Body>
int run_threads(int threads, bool pin, Body&& body) {
  std::vector<std::thread> workers;
  std::vector<int> pinned(static_cast<std::size_t>(threads), 0);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  auto wrapped = [&](int i) {
    try {
      if (pin) pinned[static_cast<std::size_t>(i)] = pin_to_cpu(i) ? 1 : 0;
      body(i);
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();
    }
  };
  workers.reserve(static_cast<std::size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) workers.emplace_back(wrapped, i);
  // Thread 0 is the caller: pin it for the duration, then restore its affinity.
#if defined(__linux__)
  cpu_set_t saved;
  const bool have_saved = sched_getaffinity(0, sizeof(saved), &saved) == 0;
#endif
  wrapped(0);
#if defined(__linux__)
  if (pin && have_saved) pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
#endif
  for (auto& w : workers) w.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  int n = 0;
  for (int p : pinned) n += p;
  return n;
}

// CPU time consumed by the calling thread (excludes time it was descheduled), or -1.
double thread_cpu_seconds() {
#if defined(__linux__)
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
#endif
  return -1.0;
}

// ---- energy counter -----------------------------------------------------------------------

bool read_energy_uj(const std::string& path, double& value) {
  if (path.empty()) return false;
  std::ifstream in(path);
  long long v = 0;
  if (!(in >> v) || v < 0) return false;
  value = static_cast<double>(v);
  return true;
}

// ---- the problem: two time levels with a halo of one point --------------------------------

struct Grid {
  std::int64_t s1 = 0, s2 = 0, s3 = 0, t = 0;  // s2 = 1 in 1D, s3 = 1 in 1D and 2D (no halo)
  std::int64_t stride = 0;  // floats per s1 row: (s2 + 2)(s3 + 2) (3D), s2 + 2 (2D), 1 (1D)
  std::int64_t row3 = 0;    // floats per s2 row in 3D: s3 + 2 (1 otherwise)
  int dims = 1;
  bool two_d = false;
  std::vector<float> level[2];
  std::vector<float> initial;

  Grid(std::int64_t size_s1, std::int64_t size_s2, std::int64_t size_s3, std::int64_t size_t,
       int space_dims)
      : s1(size_s1),
        s2(space_dims >= 2 ? size_s2 : 1),
        s3(space_dims == 3 ? size_s3 : 1),
        t(size_t),
        dims(space_dims),
        two_d(space_dims == 2) {
    row3 = dims == 3 ? s3 + 2 : 1;
    stride = dims == 3 ? (s2 + 2) * row3 : (dims == 2 ? s2 + 2 : 1);
    const std::int64_t n = dims == 1 ? s1 + 2 : (s1 + 2) * stride;
    initial.assign(static_cast<std::size_t>(n), kBoundary);
    // Deterministic pseudo-random interior in [0, 1) (xorshift64*).
    std::uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (std::int64_t i = 0; i < s1; ++i) {
      for (std::int64_t j = 0; j < s2; ++j) {
        for (std::int64_t k = 0; k < s3; ++k) {
          state ^= state >> 12;
          state ^= state << 25;
          state ^= state >> 27;
          const std::uint64_t r = state * 0x2545F4914F6CDD1DULL;
          initial[static_cast<std::size_t>(index(i, j, k))] =
              static_cast<float>(static_cast<double>(r >> 40) / static_cast<double>(1ULL << 24));
        }
      }
    }
    reset();
  }
  // Flat index of (s1, s2, s3), each in [-1, S] of its dimension (s2 = 0 in 1D, s3 = 0 in
  // 1D and 2D).
  std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t k = 0) const {
    if (dims == 3) return (i + 1) * stride + (j + 1) * row3 + (k + 1);
    return two_d ? (i + 1) * stride + (j + 1) : i + 1;
  }
  void reset() {
    level[0] = initial;
    level[1] = initial;
  }
  std::vector<float> final_interior() const {
    const auto& a = level[t & 1];
    std::vector<float> out;
    out.reserve(static_cast<std::size_t>(s1 * s2 * s3));
    for (std::int64_t i = 0; i < s1; ++i) {
      for (std::int64_t j = 0; j < s2; ++j) {
        for (std::int64_t k = 0; k < s3; ++k) {
          out.push_back(a[static_cast<std::size_t>(index(i, j, k))]);
        }
      }
    }
    return out;
  }
};

template <typename K>
void naive_1d(Grid& g) {
  for (std::int64_t t = 0; t < g.t; ++t) {
    const float* src = g.level[t & 1].data() + 1;
    float* dst = g.level[(t + 1) & 1].data() + 1;
    row_1d<K>(dst, src, g.s1);
  }
}

template <typename K>
void naive_2d(Grid& g) {
  for (std::int64_t t = 0; t < g.t; ++t) {
    const float* src = g.level[t & 1].data();
    float* dst = g.level[(t + 1) & 1].data();
    for (std::int64_t i = 0; i < g.s1; ++i) {
      const float* c = src + g.index(i, 0);
      const float* n = src + g.index(i - 1, 0);
      const float* s = src + g.index(i + 1, 0);
      float* o = dst + g.index(i, 0);
      for (std::int64_t j = 0; j < g.s2; ++j) o[j] = K::f(c[j], n[j], s[j], c[j - 1], c[j + 1]);
    }
  }
}

template <typename K>
void naive_3d(Grid& g) {
  for (std::int64_t t = 0; t < g.t; ++t) {
    const float* src = g.level[t & 1].data();
    float* dst = g.level[(t + 1) & 1].data();
    for (std::int64_t i = 0; i < g.s1; ++i) {
      for (std::int64_t j = 0; j < g.s2; ++j) {
        const float* c = src + g.index(i, j, 0);
        const float* n = src + g.index(i - 1, j, 0);
        const float* s = src + g.index(i + 1, j, 0);
        const float* w = src + g.index(i, j - 1, 0);
        const float* e = src + g.index(i, j + 1, 0);
        float* o = dst + g.index(i, j, 0);
        for (std::int64_t k = 0; k < g.s3; ++k) {
          o[k] = K::f(c[k], n[k], s[k], w[k], e[k], c[k - 1], c[k + 1]);
        }
      }
    }
  }
}

// ---- the tiling ---------------------------------------------------------------------------

struct Hex {
  std::int64_t ts1 = 0, tt = 0, h = 0, pitch = 0;
  Hex(std::int64_t tile_s1, std::int64_t tile_t)
      : ts1(tile_s1), tt(tile_t), h(tile_t / 2), pitch(2 * tile_s1 + tile_t - 2) {}
  std::int64_t e(std::int64_t r) const { return std::min(r, tt - 1 - r); }
};

struct TileRef {
  std::int64_t c0 = 0;  // base column (row 0 spans [c0, c0 + tS1))
  std::int64_t t0 = 0;  // bottom row (time step of relative row 0)
};

// Wavefront j: color B for even j (offset P/2), A for odd j, bottom row (j-1) h.
std::vector<std::vector<TileRef>> make_wavefronts(const Hex& hex, std::int64_t s1,
                                                  std::int64_t t) {
  std::vector<std::vector<TileRef>> out;
  for (std::int64_t j = 0;; ++j) {
    const std::int64_t t0 = (j - 1) * hex.h;
    if (t0 >= t) break;
    const std::int64_t offset = (j % 2 == 0) ? hex.pitch / 2 : 0;
    const std::int64_t r_lo = std::max<std::int64_t>(0, -t0);
    const std::int64_t r_hi = std::min(hex.tt, t - t0);
    std::vector<TileRef> tiles;
    const std::int64_t p_lo = floor_div(-(hex.ts1 + hex.h) - offset, hex.pitch) - 1;
    const std::int64_t p_hi = floor_div(s1 + hex.h - offset, hex.pitch) + 1;
    for (std::int64_t p = p_lo; p <= p_hi; ++p) {
      const std::int64_t c0 = p * hex.pitch + offset;
      bool nonempty = false;
      for (std::int64_t r = r_lo; r < r_hi && !nonempty; ++r) {
        const std::int64_t e = hex.e(r);
        nonempty = std::max<std::int64_t>(c0 - e, 0) < std::min(c0 + hex.ts1 + e, s1);
      }
      if (nonempty) tiles.push_back({c0, t0});
    }
    if (!tiles.empty()) out.push_back(std::move(tiles));
  }
  return out;
}

struct Counters {
  std::int64_t loaded = 0, stored = 0, subtiles = 0;
};

// The s1 interval [ilo, ihi) of row-r points whose readers in row r+1 all lie in the
// tile's clipped row r+1 [nlo, nhi) (those need not be written back). Empty if nlo >= nhi.
inline void interior(std::int64_t nlo, std::int64_t nhi, std::int64_t size, std::int64_t& ilo,
                     std::int64_t& ihi) {
  if (nlo >= nhi) {
    ilo = ihi = 0;
    return;
  }
  ilo = nlo == 0 ? 0 : nlo + 1;
  ihi = nhi == size ? size : nhi - 1;
}

// Per-thread tile buffers ("shared memory").
struct Buffers {
  std::vector<float> plane0, plane1, face;
  std::vector<float> face2;  // 3D: the u2 faces of a whole row of sub-slabs
  std::vector<char> face_ok;
};

// One hexagonal tile of Jacobi 1D (Sec. A.4.1): the rows of the hexagon bottom to top.
// Row r reads, at the previous time level, the span [lo-1, hi+1); what this tile computed
// in its row r-1 is already in the buffer, the rest is copied in from the main array.
// Points with a reader outside the tile (and the tile's last row) are copied out.
template <typename K>
void tile_1d(Grid& g, const Hex& hex, const TileRef& tile, Buffers& buf, Counters& cnt) {
  const std::int64_t base = tile.c0 - hex.h;  // buffer index = s - base
  float* cur = buf.plane0.data();
  float* nxt = buf.plane1.data();
  const std::int64_t r_lo = std::max<std::int64_t>(0, -tile.t0);
  const std::int64_t r_hi = std::min(hex.tt, g.t - tile.t0);
  std::int64_t plo = 0, phi = 0;
  bool counted = false;
  for (std::int64_t r = r_lo; r < r_hi; ++r) {
    const std::int64_t t = tile.t0 + r;
    const std::int64_t e = hex.e(r);
    const std::int64_t lo = std::max<std::int64_t>(tile.c0 - e, 0);
    const std::int64_t hi = std::min(tile.c0 + hex.ts1 + e, g.s1);
    if (lo >= hi) {
      plo = phi = 0;
      continue;
    }
    if (!counted) {
      ++cnt.subtiles;
      counted = true;
    }
    const float* src = g.level[t & 1].data() + 1;
    float* dst = g.level[(t + 1) & 1].data() + 1;
    auto load = [&](std::int64_t a, std::int64_t b) {
      if (a >= b) return;
      std::memcpy(cur + (a - base), src + a, static_cast<std::size_t>(b - a) * sizeof(float));
      cnt.loaded += b - a;
    };
    if (plo < phi) {
      load(lo - 1, std::min(plo, hi + 1));
      load(std::max(phi, lo - 1), hi + 1);
    } else {
      load(lo - 1, hi + 1);
    }
    row_1d<K>(nxt + (lo - base), cur + (lo - base), hi - lo);
    auto store = [&](std::int64_t a, std::int64_t b) {
      if (a >= b) return;
      std::memcpy(dst + a, nxt + (a - base), static_cast<std::size_t>(b - a) * sizeof(float));
      cnt.stored += b - a;
    };
    std::int64_t ilo = 0, ihi = 0;
    if (r + 1 < r_hi) {
      const std::int64_t e1 = hex.e(r + 1);
      interior(std::max<std::int64_t>(tile.c0 - e1, 0), std::min(tile.c0 + hex.ts1 + e1, g.s1),
               g.s1, ilo, ihi);
    }
    if (ilo < ihi) {
      store(lo, std::min(hi, ilo));
      store(std::max(lo, ihi), hi);
    } else {
      store(lo, hi);
    }
    std::swap(cur, nxt);
    plo = lo;
    phi = hi;
  }
}

// One prism of a 2D stencil (Sec. A.4.2, Fig. A.3): hexagon in (t, s1), time-skewed in s2
// with u = s2 + r, cut into sub-tiles b of tS2 values of u executed in increasing b. The
// buffer plane of row r holds the previous time level at s1 in [lo-1, hi+1) and
// u' in [ub-2, ub+tS2) (index u' - ub + 2); its two columns below ub come from the previous
// sub-tile ("face", kept in the buffer as the seed's oblique faces), the rest is either
// computed by this sub-tile's row r-1 or copied in from the main array.
template <typename K>
void tile_2d(Grid& g, const Hex& hex, std::int64_t ts2, const TileRef& tile, Buffers& buf,
             Counters& cnt) {
  const std::int64_t w1 = hex.ts1 + hex.tt;  // s1 extent of a plane
  const std::int64_t w2 = ts2 + 2;           // u extent of a plane
  const std::int64_t base1 = tile.c0 - hex.h;
  const std::int64_t r_lo = std::max<std::int64_t>(0, -tile.t0);
  const std::int64_t r_hi = std::min(hex.tt, g.t - tile.t0);
  const std::int64_t s2 = g.s2;
  const std::int64_t stride = g.stride;
  std::fill(buf.face_ok.begin(), buf.face_ok.end(), 0);
  const std::int64_t b_lo = floor_div(r_lo, ts2);
  const std::int64_t b_hi = floor_div(s2 + r_hi - 2, ts2);
  for (std::int64_t b = b_lo; b <= b_hi; ++b) {
    const std::int64_t ub = b * ts2;
    float* cur = buf.plane0.data();
    float* nxt = buf.plane1.data();
    std::int64_t plo = 0, phi = 0, pulo = 0, puhi = 0;
    bool counted = false;
    for (std::int64_t r = r_lo; r < r_hi; ++r) {
      const std::int64_t e = hex.e(r);
      const std::int64_t lo = std::max<std::int64_t>(tile.c0 - e, 0);
      const std::int64_t hi = std::min(tile.c0 + hex.ts1 + e, g.s1);
      const std::int64_t ulo = std::max(ub, r);
      const std::int64_t uhi = std::min(ub + ts2, s2 + r);
      char& face_ok = buf.face_ok[static_cast<std::size_t>(r)];
      if (lo >= hi) {
        plo = phi = 0;
        face_ok = 0;
        continue;
      }
      if (ulo >= uhi) {
        // No point of row r in this sub-tile (s2 = u - r outside [0, S2)), but the next
        // sub-tile may need the previous level at u' in [ub+tS2-2, ub+tS2): this sub-tile's
        // row r-1 computed some of them; the rest (halo) comes from the main array.
        const float* src = g.level[(tile.t0 + r) & 1].data();
        float* face = buf.face.data() + r * w1 * 2;
        for (std::int64_t i = lo - 1; i < hi + 1; ++i) {
          const float* row = cur + (i - base1) * w2 + 2 - ub;
          const float* grow = src + (i + 1) * stride + 2 - r;
          float* f = face + (i - base1) * 2 - (ub + ts2 - 2);
          for (std::int64_t u = ub + ts2 - 2; u < ub + ts2; ++u) {
            const std::int64_t s2p = u - (r - 1);
            if (i >= plo && i < phi && u >= pulo && u < puhi) {
              f[u] = row[u];
            } else if (s2p >= -1 && s2p <= s2) {
              f[u] = grow[u];
              ++cnt.loaded;
            }
          }
        }
        face_ok = 1;
        plo = phi = 0;
        continue;
      }
      if (!counted) {
        ++cnt.subtiles;
        counted = true;
      }
      const std::int64_t t = tile.t0 + r;
      const float* src = g.level[t & 1].data();
      float* dst = g.level[(t + 1) & 1].data();
      float* face = buf.face.data() + r * w1 * 2;
      // Fill the plane (previous level) for s1 in [lo-1, hi+1), u' in [ulo-2, uhi).
      for (std::int64_t i = lo - 1; i < hi + 1; ++i) {
        float* row = cur + (i - base1) * w2 + 2 - ub;  // row[u']
        // main-array value at (i, s2' = u' - (r-1)): flat index (i+1)*stride + u' - r + 2
        const float* grow = src + (i + 1) * stride + 2 - r;
        auto load = [&](std::int64_t a, std::int64_t z) {
          if (a >= z) return;
          std::memcpy(row + a, grow + a, static_cast<std::size_t>(z - a) * sizeof(float));
          cnt.loaded += z - a;
        };
        std::int64_t a = ulo - 2;
        const std::int64_t face_end = std::min(uhi, ub);
        if (a < face_end) {
          if (face_ok) {
            const float* f = face + (i - base1) * 2 - (ub - 2);  // f[u']
            for (std::int64_t u = a; u < face_end; ++u) row[u] = f[u];
          } else {
            load(a, face_end);
          }
          a = face_end;
        }
        if (i >= plo && i < phi) {
          load(a, std::min(uhi, pulo));
          load(std::max(a, puhi), uhi);
        } else {
          load(a, uhi);
        }
      }
      // Keep the two last columns for the next sub-tile.
      if (uhi == ub + ts2) {
        for (std::int64_t i = lo - 1; i < hi + 1; ++i) {
          const float* row = cur + (i - base1) * w2 + 2 - ub;
          float* f = face + (i - base1) * 2 - (ub + ts2 - 2);
          f[ub + ts2 - 2] = row[ub + ts2 - 2];
          f[ub + ts2 - 1] = row[ub + ts2 - 1];
        }
        face_ok = 1;
      } else {
        face_ok = 0;
      }
      // Compute row r.
      for (std::int64_t i = lo; i < hi; ++i) {
        const float* in = cur + (i - base1) * w2 + 2 - ub;
        float* out = nxt + (i - base1) * w2 + 2 - ub;
        row_2d<K>(out + ulo, in + ulo, in - w2 + ulo, in + w2 + ulo, uhi - ulo);
      }
      // Copy out the points read by other tiles (all of them in the tile's last row).
      std::int64_t ilo = 0, ihi = 0;
      if (r + 1 < r_hi) {
        const std::int64_t e1 = hex.e(r + 1);
        interior(std::max<std::int64_t>(tile.c0 - e1, 0), std::min(tile.c0 + hex.ts1 + e1, g.s1),
                 g.s1, ilo, ihi);
      }
      auto store_rows = [&](std::int64_t i0, std::int64_t i1) {
        for (std::int64_t i = i0; i < i1; ++i) {
          const float* out = nxt + (i - base1) * w2 + 2 - ub;
          float* grow = dst + (i + 1) * stride + 1 - r;  // (i, s2 = u - r)
          std::memcpy(grow + ulo, out + ulo, static_cast<std::size_t>(uhi - ulo) * sizeof(float));
          cnt.stored += uhi - ulo;
        }
      };
      if (ilo < ihi) {
        store_rows(lo, std::min(hi, ilo));
        store_rows(std::max(lo, ihi), hi);
      } else {
        store_rows(lo, hi);
      }
      std::swap(cur, nxt);
      plo = lo;
      phi = hi;
      pulo = ulo;
      puhi = uhi;
    }
  }
}

// One slab of a 3D stencil (Sec. A.4.3): hexagon in (t, s1), both inner dimensions
// time-skewed per tile (u2 = s2 + r, u3 = s3 + r) and cut into sub-slabs (b2, b3) of
// tS2 x tS3 values of (u2, u3), run in lexicographic order by the same thread. The buffer
// plane of row r holds the previous time level at s1 in [lo-1, hi+1), u2' in
// [ub2-2, ub2+tS2), u3' in [ub3-2, ub3+tS3), filled over that whole extent (positions whose
// s2 = u2' - (r-1) and s3 = u3' - (r-1) lie in [-1, S]): what this sub-slab's row r-1
// computed is already there; the two u3' columns below ub3 come from sub-slab (b2, b3-1)
// ("face3", kept per row), the two u2' columns below ub2 from sub-slab (b2-1, b3) ("face2",
// kept per row and per b3); the rest is copied in from the main array. Because each plane
// is filled over its whole extent, the faces a sub-slab passes on are complete, corners
// (u2' < ub2 and u3' < ub3) included. Points read by another tile (s1 direction, Eq. A.25's
// output faces) and the tile's last row are copied out.
template <typename K>
void tile_3d(Grid& g, const Hex& hex, std::int64_t ts2, std::int64_t ts3, const TileRef& tile,
             Buffers& buf, Counters& cnt) {
  const std::int64_t w1 = hex.ts1 + hex.tt;  // s1 extent of a plane
  const std::int64_t w2 = ts2 + 2;           // u2 extent of a plane
  const std::int64_t w3 = ts3 + 2;           // u3 extent of a plane
  const std::int64_t base1 = tile.c0 - hex.h;
  const std::int64_t r_lo = std::max<std::int64_t>(0, -tile.t0);
  const std::int64_t r_hi = std::min(hex.tt, g.t - tile.t0);
  const std::int64_t s2 = g.s2, s3 = g.s3;
  const std::int64_t stride = g.stride, row3 = g.row3;
  const std::int64_t b2_lo = floor_div(r_lo, ts2), b2_hi = floor_div(s2 + r_hi - 2, ts2);
  const std::int64_t b3_lo = floor_div(r_lo, ts3), b3_hi = floor_div(s3 + r_hi - 2, ts3);
  for (std::int64_t b2 = b2_lo; b2 <= b2_hi; ++b2) {
    const std::int64_t ub2 = b2 * ts2;
    for (std::int64_t b3 = b3_lo; b3 <= b3_hi; ++b3) {
      const std::int64_t ub3 = b3 * ts3;
      const bool face3_ok = b3 > b3_lo;
      const bool face2_ok = b2 > b2_lo;
      float* cur = buf.plane0.data();
      float* nxt = buf.plane1.data();
      // Region computed by this sub-slab's previous row (empty: plo = phi).
      std::int64_t plo = 0, phi = 0, pu2lo = 0, pu2hi = 0, pu3lo = 0, pu3hi = 0;
      bool counted = false;
      for (std::int64_t r = r_lo; r < r_hi; ++r) {
        const std::int64_t e = hex.e(r);
        const std::int64_t lo = std::max<std::int64_t>(tile.c0 - e, 0);
        const std::int64_t hi = std::min(tile.c0 + hex.ts1 + e, g.s1);
        if (lo >= hi) {
          plo = phi = 0;
          continue;
        }
        const std::int64_t t = tile.t0 + r;
        const float* src = g.level[t & 1].data();
        float* dst = g.level[(t + 1) & 1].data();
        // plane[i][u2'][u3'] and the main array at (i, s2 = u2' - (r-1), s3 = u3' - (r-1)).
        auto line = [&](float* plane, std::int64_t i, std::int64_t u2) {
          return plane + ((i - base1) * w2 + (u2 - ub2 + 2)) * w3 + 2 - ub3;
        };
        float* face3 = buf.face.data() + r * w1 * w2 * 2;
        auto face3_line = [&](std::int64_t i, std::int64_t u2, std::int64_t first_u3) {
          return face3 + ((i - base1) * w2 + (u2 - ub2 + 2)) * 2 - first_u3;
        };
        float* face2 = buf.face2.data() + ((b3 - b3_lo) * hex.tt + r) * w1 * 2 * w3;
        auto face2_line = [&](std::int64_t i, std::int64_t u2, std::int64_t first_u2) {
          return face2 + ((i - base1) * 2 + (u2 - first_u2)) * w3 + 2 - ub3;
        };
        // Fill the plane (previous level) over the sub-slab's extent.
        const std::int64_t u2a = std::max(ub2 - 2, r - 2), u2z = std::min(ub2 + ts2, s2 + r);
        const std::int64_t u3a = std::max(ub3 - 2, r - 2), u3z = std::min(ub3 + ts3, s3 + r);
        for (std::int64_t i = lo - 1; i < hi + 1; ++i) {
          for (std::int64_t u2 = u2a; u2 < u2z; ++u2) {
            float* row = line(cur, i, u2);
            const float* grow = src + (i + 1) * stride + (u2 - r + 2) * row3 + 2 - r;
            auto load = [&](std::int64_t a, std::int64_t z) {
              if (a >= z) return;
              std::memcpy(row + a, grow + a, static_cast<std::size_t>(z - a) * sizeof(float));
              cnt.loaded += z - a;
            };
            const bool from_face2 = face2_ok && u2 < ub2;
            auto copy_face2 = [&](std::int64_t a, std::int64_t z) {
              const float* f = face2_line(i, u2, ub2 - 2);
              for (std::int64_t u = a; u < z; ++u) row[u] = f[u];
            };
            std::int64_t a = u3a;
            const std::int64_t e3 = std::min(u3z, ub3);
            if (a < e3) {
              if (face3_ok) {
                const float* f = face3_line(i, u2, ub3 - 2);
                for (std::int64_t u = a; u < e3; ++u) row[u] = f[u];
              } else if (from_face2) {
                copy_face2(a, e3);
              } else {
                load(a, e3);
              }
              a = e3;
            }
            if (a < u3z) {
              if (from_face2) {
                copy_face2(a, u3z);
              } else if (i >= plo && i < phi && u2 >= pu2lo && u2 < pu2hi) {
                load(a, std::min(u3z, pu3lo));
                load(std::max(a, pu3hi), u3z);
              } else {
                load(a, u3z);
              }
            }
          }
        }
        // Keep the faces for the next sub-slabs: last two u3' columns (for (b2, b3+1)) and
        // last two u2' columns (for (b2+1, b3)).
        for (std::int64_t i = lo - 1; i < hi + 1; ++i) {
          for (std::int64_t u2 = ub2 - 2; u2 < ub2 + ts2; ++u2) {
            const float* row = line(cur, i, u2);
            float* f = face3_line(i, u2, ub3 + ts3 - 2);
            f[ub3 + ts3 - 2] = row[ub3 + ts3 - 2];
            f[ub3 + ts3 - 1] = row[ub3 + ts3 - 1];
          }
          for (std::int64_t u2 = ub2 + ts2 - 2; u2 < ub2 + ts2; ++u2) {
            const float* row = line(cur, i, u2);
            float* f = face2_line(i, u2, ub2 + ts2 - 2);
            std::memcpy(f + ub3 - 2, row + ub3 - 2, static_cast<std::size_t>(w3) * sizeof(float));
          }
        }
        const std::int64_t u2lo = std::max(ub2, r), u2hi = std::min(ub2 + ts2, s2 + r);
        const std::int64_t u3lo = std::max(ub3, r), u3hi = std::min(ub3 + ts3, s3 + r);
        if (u2lo >= u2hi || u3lo >= u3hi) {
          plo = phi = 0;  // no point of row r in this sub-slab
          std::swap(cur, nxt);
          continue;
        }
        if (!counted) {
          ++cnt.subtiles;
          counted = true;
        }
        // Compute row r.
        for (std::int64_t i = lo; i < hi; ++i) {
          for (std::int64_t u2 = u2lo; u2 < u2hi; ++u2) {
            const float* in = line(cur, i, u2 - 1);
            row_3d<K>(line(nxt, i, u2) + u3lo, in + u3lo, line(cur, i - 1, u2 - 1) + u3lo,
                      line(cur, i + 1, u2 - 1) + u3lo, line(cur, i, u2 - 2) + u3lo,
                      line(cur, i, u2) + u3lo, u3hi - u3lo);
          }
        }
        // Copy out the points read by other tiles (all of them in the tile's last row).
        std::int64_t ilo = 0, ihi = 0;
        if (r + 1 < r_hi) {
          const std::int64_t e1 = hex.e(r + 1);
          interior(std::max<std::int64_t>(tile.c0 - e1, 0),
                   std::min(tile.c0 + hex.ts1 + e1, g.s1), g.s1, ilo, ihi);
        }
        auto store_rows = [&](std::int64_t i0, std::int64_t i1) {
          for (std::int64_t i = i0; i < i1; ++i) {
            for (std::int64_t u2 = u2lo; u2 < u2hi; ++u2) {
              const float* out = line(nxt, i, u2);
              float* grow = dst + (i + 1) * stride + (u2 - r + 1) * row3 + 1 - r;  // s = u - r
              std::memcpy(grow + u3lo, out + u3lo,
                          static_cast<std::size_t>(u3hi - u3lo) * sizeof(float));
              cnt.stored += u3hi - u3lo;
            }
          }
        };
        if (ilo < ihi) {
          store_rows(lo, std::min(hi, ilo));
          store_rows(std::max(lo, ihi), hi);
        } else {
          store_rows(lo, hi);
        }
        std::swap(cur, nxt);
        plo = lo;
        phi = hi;
        pu2lo = u2lo;
        pu2hi = u2hi;
        pu3lo = u3lo;
        pu3hi = u3hi;
      }
    }
  }
}

// ---- the run ------------------------------------------------------------------------------

struct Plan {
  Kernel kernel = Kernel::jacobi1d;
  Hex hex{1, 2};
  std::int64_t ts2 = 0, ts3 = 0;
  std::vector<std::vector<TileRef>> wavefronts;
  std::int64_t n_tiles = 0;
  std::int64_t plane_floats = 0, face_floats = 0, face2_floats = 0;
  bool block_schedule = false;  // contiguous blocks of a wavefront per thread
};

Plan make_plan(const RunConfig& cfg, Kernel kernel) {
  Plan p;
  p.kernel = kernel;
  p.hex = Hex(cfg.tile_s1, cfg.tile_t);
  p.ts2 = clipped_sub_tile(cfg.tile_s2, cfg.size_s2, cfg.tile_t);
  p.ts3 = clipped_sub_tile(cfg.tile_s3, cfg.size_s3, cfg.tile_t);
  p.block_schedule = cfg.schedule == "block";
  p.wavefronts = make_wavefronts(p.hex, cfg.size_s1, cfg.size_t);
  for (const auto& w : p.wavefronts) p.n_tiles += static_cast<std::int64_t>(w.size());
  const std::int64_t w1 = cfg.tile_s1 + cfg.tile_t;
  const int dims = kernel_space_dims(kernel);
  if (dims == 1) {
    p.plane_floats = w1;
  } else if (dims == 2) {
    p.plane_floats = w1 * (p.ts2 + 2);
    p.face_floats = cfg.tile_t * w1 * 2;
  } else {
    p.plane_floats = w1 * (p.ts2 + 2) * (p.ts3 + 2);
    p.face_floats = cfg.tile_t * w1 * (p.ts2 + 2) * 2;
    // One u2 face per b3 (the most sub-slabs along u3 a tile has, r_lo = 0, r_hi = tT).
    const std::int64_t n_b3 = floor_div(cfg.size_s3 + cfg.tile_t - 2, p.ts3) + 1;
    p.face2_floats = n_b3 * cfg.tile_t * w1 * 2 * (p.ts3 + 2);
  }
  return p;
}

template <typename K, int Dims>
void run_tile(Grid& g, const Plan& p, const TileRef& tile, Buffers& buf, Counters& cnt) {
  if constexpr (Dims == 3) {
    tile_3d<K>(g, p.hex, p.ts2, p.ts3, tile, buf, cnt);
  } else if constexpr (Dims == 2) {
    tile_2d<K>(g, p.hex, p.ts2, tile, buf, cnt);
  } else {
    tile_1d<K>(g, p.hex, tile, buf, cnt);
  }
}

struct Execution {
  double seconds = 0;
  double cpu_seconds = -1;  // largest thread CPU time (-1 where the OS has no such clock)
  double energy_uj = -1;
  Counters counters;
  int pinned = 0;
};

template <typename K, int Dims>
Execution execute(Grid& g, const Plan& p, int threads, bool pin, const RunConfig& cfg) {
  Barrier barrier(threads);
  std::vector<Counters> counters(static_cast<std::size_t>(threads));
  std::vector<double> cpu(static_cast<std::size_t>(threads), -1.0);
  Execution ex;
  Clock::time_point start, stop;
  double e0 = 0, e1 = 0;
  bool energy_ok = false;
  ex.pinned = run_threads(threads, pin, [&](int id) {
    Buffers buf;
    buf.plane0.assign(static_cast<std::size_t>(p.plane_floats + 2), 0.0f);
    buf.plane1.assign(static_cast<std::size_t>(p.plane_floats + 2), 0.0f);
    buf.face.assign(static_cast<std::size_t>(std::max<std::int64_t>(p.face_floats, 1)), 0.0f);
    buf.face2.assign(static_cast<std::size_t>(std::max<std::int64_t>(p.face2_floats, 1)), 0.0f);
    buf.face_ok.assign(static_cast<std::size_t>(p.hex.tt), 0);
    // Counted on this thread's stack and stored once at the end: the threads' counters side
    // by side in one vector share a cache line, and the per-row updates made it bounce
    // between the cores (false sharing) on every small tile.
    Counters cnt;
    barrier.wait();
    if (id == 0) {
      energy_ok = read_energy_uj(cfg.energy_path, e0);
      start = Clock::now();
    }
    barrier.wait();
    const double cpu0 = thread_cpu_seconds();
    const std::size_t n_threads = static_cast<std::size_t>(threads);
    const std::size_t me = static_cast<std::size_t>(id);
    for (const auto& wave : p.wavefronts) {
      if (p.block_schedule) {
        // Contiguous block: neighbouring tiles (which share cache lines at their common
        // boundary) stay on one thread; sizes differ by at most one tile.
        const std::size_t lo = me * wave.size() / n_threads;
        const std::size_t hi = (me + 1) * wave.size() / n_threads;
        for (std::size_t i = lo; i < hi; ++i) run_tile<K, Dims>(g, p, wave[i], buf, cnt);
      } else {
        for (std::size_t i = me; i < wave.size(); i += n_threads) {
          run_tile<K, Dims>(g, p, wave[i], buf, cnt);
        }
      }
      barrier.wait();  // one barrier per wavefront (T_sync)
    }
    cpu[static_cast<std::size_t>(id)] = thread_cpu_seconds() - cpu0;
    counters[static_cast<std::size_t>(id)] = cnt;
    if (id == 0) {
      stop = Clock::now();
      if (energy_ok) energy_ok = read_energy_uj(cfg.energy_path, e1);
    }
  });
  ex.seconds = std::chrono::duration<double>(stop - start).count();
  ex.cpu_seconds = *std::max_element(cpu.begin(), cpu.end());
  if (energy_ok) {
    double d = e1 - e0;
    if (d < 0 && cfg.energy_range_uj > 0) d += cfg.energy_range_uj;  // counter wrapped
    if (d >= 0) ex.energy_uj = d;
  }
  for (const auto& c : counters) {
    ex.counters.loaded += c.loaded;
    ex.counters.stored += c.stored;
    ex.counters.subtiles += c.subtiles;
  }
  return ex;
}

template <typename F>
auto dispatch(Kernel k, F&& f) {
  switch (k) {
    case Kernel::jacobi1d:
      return f(Jacobi1D{}, std::false_type{});
    case Kernel::jacobi2d:
      return f(Jacobi2D{}, std::true_type{});
    case Kernel::heat2d:
      return f(Heat2D{}, std::true_type{});
    case Kernel::laplacian2d:
      return f(Laplacian2D{}, std::true_type{});
    case Kernel::gradient2d:
      return f(Gradient2D{}, std::true_type{});
    case Kernel::heat3d:
      break;  // 3D kernels: dispatch_dims
  }
  throw std::invalid_argument("stencil: a 3D kernel here (internal error)");
}

// Every kernel, with its space dimensions as std::integral_constant<int, d>.
template <typename F>
auto dispatch_dims(Kernel k, F&& f) {
  using D1 = std::integral_constant<int, 1>;
  using D2 = std::integral_constant<int, 2>;
  using D3 = std::integral_constant<int, 3>;
  switch (k) {
    case Kernel::jacobi1d:
      return f(Jacobi1D{}, D1{});
    case Kernel::jacobi2d:
      return f(Jacobi2D{}, D2{});
    case Kernel::heat2d:
      return f(Heat2D{}, D2{});
    case Kernel::laplacian2d:
      return f(Laplacian2D{}, D2{});
    case Kernel::gradient2d:
      return f(Gradient2D{}, D2{});
    case Kernel::heat3d:
      return f(Heat3D{}, D3{});
  }
  throw std::invalid_argument("unknown kernel");
}

void validate_problem(const std::string& stencil, std::int64_t s1, std::int64_t s2,
                      std::int64_t s3, std::int64_t t) {
  const Kernel k = parse_kernel(stencil);
  const int dims = kernel_space_dims(k);
  auto positive = [](std::int64_t v, const char* name) {
    if (v <= 0) {
      throw std::invalid_argument(std::string(name) + ": must be positive, got " +
                                  std::to_string(v));
    }
  };
  positive(s1, "size_s1");
  positive(t, "size_t");
  if (dims >= 2) {
    positive(s2, "size_s2");
  } else if (s2 != 0) {
    throw std::invalid_argument("size_s2: must be 0 for the 1D stencil " + stencil + ", got " +
                                std::to_string(s2));
  }
  if (dims == 3) {
    positive(s3, "size_s3");
  } else if (s3 != 0) {
    throw std::invalid_argument("size_s3: must be 0 for the " + std::to_string(dims) +
                                "D stencil " + stencil + ", got " + std::to_string(s3));
  }
  const std::int64_t floats = checked_mul(
      checked_mul(checked_add(s1, 2, "size_s1 + 2"), dims >= 2 ? checked_add(s2, 2, "size_s2 + 2") : 1,
                  "array size (S1+2)(S2+2)"),
      dims == 3 ? checked_add(s3, 2, "size_s3 + 2") : 1, "array size (S1+2)(S2+2)(S3+2)");
  if (floats > kMaxArrayFloats) {
    throw std::invalid_argument(std::string(dims == 3 ? "size_s1, size_s2, size_s3" : "size_s1, size_s2") +
                                ": the array of " + std::to_string(floats) +
                                " floats exceeds the harness limit of " +
                                std::to_string(kMaxArrayFloats));
  }
  const std::int64_t points =
      checked_mul(checked_mul(checked_mul(s1, dims >= 2 ? s2 : 1, "S1*S2"), dims == 3 ? s3 : 1,
                              "S1*S2*S3"),
                  t, "S1*S2*S3*T");
  if (points > kMaxPoints) {
    throw std::invalid_argument("size_t: " + std::to_string(points) +
                                " stencil updates exceed the harness limit of " +
                                std::to_string(kMaxPoints));
  }
}

}  // namespace

// ---- public API ---------------------------------------------------------------------------

std::vector<std::string> kernel_names() {
  return {"jacobi1d", "jacobi2d", "heat2d", "laplacian2d", "gradient2d", "heat3d"};
}

Kernel parse_kernel(const std::string& name) {
  if (name == "jacobi1d") return Kernel::jacobi1d;
  if (name == "jacobi2d") return Kernel::jacobi2d;
  if (name == "heat2d") return Kernel::heat2d;
  if (name == "laplacian2d") return Kernel::laplacian2d;
  if (name == "gradient2d") return Kernel::gradient2d;
  if (name == "heat3d") return Kernel::heat3d;
  throw std::invalid_argument(
      "stencil: unknown harness stencil '" + name +
      "' (known: jacobi1d, jacobi2d, heat2d, laplacian2d, gradient2d, heat3d)");
}

// 3: Heat 3D added (tables of version 2 lack it and its size_s3 / tile_s3 columns).
// 4: per-thread counters off the shared cache line (2-thread times of small tiles fell up to
// 2x); tables measured with 3 are not resumed with 4.
// 5: sub-tiles wider than the problem's skewed extent clipped to it (make_plan); tables
// measured with 4 are not resumed with 5.
std::string harness_version() { return "5"; }

std::vector<std::string> schedule_names() { return {"round-robin", "block"}; }

int kernel_space_dims(Kernel kernel) {
  if (kernel == Kernel::jacobi1d) return 1;
  return kernel == Kernel::heat3d ? 3 : 2;
}

int simd_lanes_float() {
#if defined(__AVX512F__)
  return 16;
#elif defined(__AVX__)
  return 8;
#elif defined(__SSE2__) || defined(__ARM_NEON) || defined(__aarch64__)
  return 4;
#else
  return 1;
#endif
}

std::string compiler_description() {
  std::ostringstream out;
#if defined(__clang__)
  out << "clang " << __clang_major__ << "." << __clang_minor__ << "." << __clang_patchlevel__;
#elif defined(__GNUC__)
  out << "gcc " << __GNUC__ << "." << __GNUC_MINOR__ << "." << __GNUC_PATCHLEVEL__;
#else
  out << "unknown compiler";
#endif
#if defined(__OPTIMIZE__)
  out << ", optimized";
#endif
#if defined(NDEBUG)
  out << ", NDEBUG";
#endif
  out << ", C++" << __cplusplus;
  out << ", ISA:";
#if defined(__AVX512F__)
  out << " avx512f";
#endif
#if defined(__AVX2__)
  out << " avx2";
#endif
#if defined(__AVX__)
  out << " avx";
#endif
#if defined(__FMA__)
  out << " fma";
#endif
#if defined(__SSE2__)
  out << " sse2";
#endif
#if defined(__aarch64__)
  out << " aarch64";
#endif
  return out.str();
}

RunConfig as_run(const RunConfig& cfg) {
  cfg.validate();
  RunConfig out = cfg;
  out.tile_s2 = clipped_sub_tile(cfg.tile_s2, cfg.size_s2, cfg.tile_t);
  out.tile_s3 = clipped_sub_tile(cfg.tile_s3, cfg.size_s3, cfg.tile_t);
  return out;
}

void RunConfig::validate() const {
  validate_problem(stencil, size_s1, size_s2, size_s3, size_t);
  const int dims = kernel_space_dims(parse_kernel(stencil));
  auto in_range = [](std::int64_t v, std::int64_t lo, std::int64_t hi, const char* name) {
    if (v < lo || v > hi) {
      throw std::invalid_argument(std::string(name) + ": must be in [" + std::to_string(lo) +
                                  ", " + std::to_string(hi) + "], got " + std::to_string(v));
    }
  };
  in_range(tile_s1, 1, kMaxTile, "tile_s1");
  in_range(tile_t, 2, kMaxTile, "tile_t");
  if (tile_t % 2 != 0) {
    throw std::invalid_argument("tile_t: must be even (hexagonal tiling), got " +
                                std::to_string(tile_t));
  }
  if (dims == 2) {
    in_range(tile_s2, 2, kMaxTile, "tile_s2");
  } else if (dims == 3) {
    in_range(tile_s2, 1, kMaxTile, "tile_s2");
  } else if (tile_s2 != 0) {
    throw std::invalid_argument("tile_s2: must be 0 for the 1D stencil " + stencil + ", got " +
                                std::to_string(tile_s2));
  }
  if (dims == 3) {
    in_range(tile_s3, 1, kMaxTile, "tile_s3");
  } else if (tile_s3 != 0) {
    throw std::invalid_argument("tile_s3: must be 0 for the " + std::to_string(dims) +
                                "D stencil " + stencil + ", got " + std::to_string(tile_s3));
  }
  const std::int64_t w1 = tile_s1 + tile_t;
  // The buffer make_plan allocates: sub-tiles clipped to the problem's skewed extent.
  const std::int64_t ts2 = clipped_sub_tile(tile_s2, size_s2, tile_t);
  const std::int64_t ts3 = clipped_sub_tile(tile_s3, size_s3, tile_t);
  if (dims == 3) {
    // Two planes, the u3 faces of every row and the u2 faces of a row of sub-slabs (these
    // grow with S3 / tS3), per thread.
    const std::int64_t plane =
        checked_mul(checked_mul(w1, ts2 + 2, "tile buffer"), ts3 + 2, "tile buffer");
    const std::int64_t face =
        checked_mul(checked_mul(tile_t, w1, "tile buffer"), 2 * (ts2 + 2), "tile buffer");
    const std::int64_t n_b3 = (size_s3 + tile_t - 2) / ts3 + 1;
    const std::int64_t face2 = checked_mul(
        checked_mul(checked_mul(n_b3, tile_t, "tile buffer"), w1, "tile buffer"),
        2 * (ts3 + 2), "tile buffer");
    const std::int64_t total =
        checked_add(checked_add(checked_mul(2, plane, "tile buffer"), face, "tile buffer"),
                    face2, "tile buffer");
    if (total > kMaxBufferFloats) {
      throw std::invalid_argument(
          "tile_s1, tile_s2, tile_s3, tile_t: the tile buffer (planes and faces, with size_s3 = " +
          std::to_string(size_s3) + ") of " + std::to_string(total) + " floats exceeds " +
          std::to_string(kMaxBufferFloats) + " floats");
    }
  } else {
    const std::int64_t plane = dims == 2 ? w1 * (ts2 + 2) : w1;
    if (2 * plane + tile_t * w1 * 2 > kMaxBufferFloats) {
      throw std::invalid_argument("tile_s1, tile_s2, tile_t: the tile buffer exceeds " +
                                  std::to_string(kMaxBufferFloats) + " floats");
    }
  }
  in_range(threads, 1, kMaxThreads, "threads");
  if (schedule != "round-robin" && schedule != "block") {
    throw std::invalid_argument("schedule: must be 'round-robin' or 'block', got '" + schedule +
                                "'");
  }
  in_range(repeats, 1, kMaxRepeats, "repeats");
  in_range(warmup, 0, kMaxRepeats, "warmup");
  if (!(energy_range_uj >= 0) || !std::isfinite(energy_range_uj)) {
    throw std::invalid_argument("energy_range_uj: must be finite and >= 0, got " +
                                std::to_string(energy_range_uj));
  }
}

std::vector<float> naive(const std::string& stencil, std::int64_t size_s1, std::int64_t size_s2,
                         std::int64_t size_s3, std::int64_t size_t) {
  validate_problem(stencil, size_s1, size_s2, size_s3, size_t);
  const Kernel k = parse_kernel(stencil);
  Grid g(size_s1, size_s2, size_s3, size_t, kernel_space_dims(k));
  dispatch_dims(k, [&](auto kern, auto dims) {
    using K = decltype(kern);
    if constexpr (decltype(dims)::value == 3) {
      naive_3d<K>(g);
    } else if constexpr (decltype(dims)::value == 2) {
      naive_2d<K>(g);
    } else {
      naive_1d<K>(g);
    }
    return 0;
  });
  return g.final_interior();
}

std::vector<float> tiled(const RunConfig& cfg) {
  cfg.validate();
  const Kernel k = parse_kernel(cfg.stencil);
  Grid g(cfg.size_s1, cfg.size_s2, cfg.size_s3, cfg.size_t, kernel_space_dims(k));
  const Plan p = make_plan(cfg, k);
  dispatch_dims(k, [&](auto kern, auto dims) {
    return execute<decltype(kern), decltype(dims)::value>(g, p, static_cast<int>(cfg.threads),
                                                          false, cfg)
        .seconds;
  });
  return g.final_interior();
}

namespace {

// Naive results of recent problems, so that a sweep that visits problems in a shuffled
// order (passes of measure()) computes each reference once: least recently used first
// out, at most kNaiveCacheFloats floats in all (thread-safe; a copy is returned).
constexpr std::size_t kNaiveCacheFloats = std::size_t{1} << 26;  // 256 MiB

std::vector<float> cached_naive(const std::string& stencil, std::int64_t s1, std::int64_t s2,
                                std::int64_t s3, std::int64_t t) {
  using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  static std::mutex mutex;
  static std::vector<std::pair<Key, std::vector<float>>> entries;  // most recent last
  const Key wanted = std::make_tuple(stencil, s1, s2, s3, t);
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].first == wanted) {
        std::rotate(entries.begin() + static_cast<std::ptrdiff_t>(i),
                    entries.begin() + static_cast<std::ptrdiff_t>(i) + 1, entries.end());
        return entries.back().second;
      }
    }
  }
  std::vector<float> computed = naive(stencil, s1, s2, s3, t);
  std::lock_guard<std::mutex> lock(mutex);
  entries.emplace_back(wanted, computed);
  std::size_t total = 0;
  for (const auto& e : entries) total += e.second.size();
  while (total > kNaiveCacheFloats && entries.size() > 1) {
    total -= entries.front().second.size();
    entries.erase(entries.begin());
  }
  return computed;
}

}  // namespace

RunResult run(const RunConfig& cfg) {
  cfg.validate();
  const Kernel k = parse_kernel(cfg.stencil);
  const int dims = kernel_space_dims(k);
  Grid g(cfg.size_s1, cfg.size_s2, cfg.size_s3, cfg.size_t, dims);
  const Plan p = make_plan(cfg, k);
  std::vector<double> times;
  RunResult res;
  res.cpu_time_s = -1;
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t rep = 0; rep < cfg.warmup + cfg.repeats; ++rep) {
    g.reset();
    const Execution ex = dispatch_dims(k, [&](auto kern, auto d) {
      return execute<decltype(kern), decltype(d)::value>(g, p, static_cast<int>(cfg.threads),
                                                         cfg.pin, cfg);
    });
    res.words_loaded = ex.counters.loaded;
    res.words_stored = ex.counters.stored;
    res.n_subtiles = ex.counters.subtiles;
    res.pinned_threads = ex.pinned;
    if (rep < cfg.warmup) continue;
    times.push_back(ex.seconds);
    if (ex.cpu_seconds >= 0 && (res.cpu_time_s < 0 || ex.cpu_seconds < res.cpu_time_s)) {
      res.cpu_time_s = ex.cpu_seconds;
    }
    if (ex.seconds < best) {
      best = ex.seconds;
      res.energy_j =
          ex.energy_uj >= 0 ? ex.energy_uj * 1e-6 : std::numeric_limits<double>::quiet_NaN();
    }
  }
  std::sort(times.begin(), times.end());
  res.time_min_s = times.front();
  res.time_max_s = times.back();
  res.time_median_s = median_of_sorted(times);
  res.n_wavefronts = static_cast<std::int64_t>(p.wavefronts.size());
  res.n_tiles = p.n_tiles;
  res.points = cfg.size_s1 * (dims >= 2 ? cfg.size_s2 : 1) * (dims == 3 ? cfg.size_s3 : 1) *
               cfg.size_t;
  res.buffer_words = 2 * p.plane_floats + p.face_floats + p.face2_floats;
  if (cfg.check) {
    const std::vector<float> got = g.final_interior();
    const std::vector<float> want =
        cached_naive(cfg.stencil, cfg.size_s1, cfg.size_s2, cfg.size_s3, cfg.size_t);
    // Bitwise comparison: both codes apply the same float operations in the same order.
    bool equal = got.size() == want.size();
    double worst = equal ? 0.0 : std::numeric_limits<double>::max();
    for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
      const double d = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
      worst = std::isfinite(d) ? std::max(worst, d) : std::numeric_limits<double>::max();
      if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) equal = false;
    }
    if (!equal && worst == 0.0) worst = std::numeric_limits<double>::min();
    res.checked = true;
    res.correct = equal;
    res.max_abs_error = worst;
  }
  return res;
}

// ---- micro-benchmarks ---------------------------------------------------------------------

namespace {

void check_micro(int threads, int repeats) {
  if (threads < 1 || threads > kMaxThreads) {
    throw std::invalid_argument("threads: must be in [1, 256], got " + std::to_string(threads));
  }
  if (repeats < 1 || repeats > kMaxRepeats) {
    throw std::invalid_argument("repeats: must be in [1, 1000], got " + std::to_string(repeats));
  }
}

MicroResult summarize(std::vector<double> per_unit, std::int64_t units) {
  std::sort(per_unit.begin(), per_unit.end());
  MicroResult r;
  r.value_s = per_unit.front();
  r.max_s = per_unit.back();
  r.median_s = median_of_sorted(per_unit);
  r.repeats = static_cast<std::int64_t>(per_unit.size());
  r.units = units;
  return r;
}

// Times body(thread_index) on all threads between two barriers; returns seconds.
template <typename Setup, typename Body>
double timed_parallel(int threads, bool pin, Setup&& setup, Body&& body) {
  Barrier barrier(threads);
  Clock::time_point start, stop;
  run_threads(threads, pin, [&](int id) {
    setup(id);
    barrier.wait();
    if (id == 0) start = Clock::now();
    barrier.wait();
    body(id);
    barrier.wait();
    if (id == 0) stop = Clock::now();
  });
  return std::chrono::duration<double>(stop - start).count();
}

volatile float g_sink = 0.0f;

}  // namespace

MicroResult bench_copy(int threads, std::int64_t working_set_words, std::int64_t segment_words,
                       int repeats, bool pin, bool sequential, std::int64_t warmup_words,
                       bool interleaved) {
  check_micro(threads, repeats);
  if (interleaved && !sequential) {
    throw std::invalid_argument("interleaved: needs sequential = true (the runs of one sweep)");
  }
  if (warmup_words < 0 || warmup_words > (std::int64_t{1} << 40)) {
    throw std::invalid_argument("warmup_words: must be in [0, 2^40], got " +
                                std::to_string(warmup_words));
  }
  if (segment_words < 1 || segment_words > 4096) {
    throw std::invalid_argument("segment_words: must be in [1, 4096], got " +
                                std::to_string(segment_words));
  }
  if (working_set_words < segment_words * threads * 4 || working_set_words > kMaxArrayFloats) {
    throw std::invalid_argument("working_set_words: must be in [4 * segment_words * threads, " +
                                std::to_string(kMaxArrayFloats) + "], got " +
                                std::to_string(working_set_words));
  }
  std::vector<float> array(static_cast<std::size_t>(working_set_words), 1.0f);
  const std::int64_t slice = working_set_words / threads;
  const std::int64_t n_segments = slice / segment_words;
  // 2 Mi words per thread per repeat (1-3 ms): short repeats, so that on a shared machine
  // some fall in a quiet time slice (the minimum is kept).
  const std::int64_t random_copies =
      std::max<std::int64_t>(16, (std::int64_t{1} << 20) / segment_words);
  // Sequential: whole sweeps of the slice (half read, half written), as many as reach the
  // random order's words, so that the cache holds what a stencil's next sweep finds.
  const std::int64_t half = n_segments / 2;
  const std::int64_t sweeps = (random_copies + half - 1) / half;
  const std::int64_t copies = sequential ? sweeps * half : random_copies;
  std::vector<double> per_word;
  // Negative reps are untimed warm-ups (caches, page faults, the threads' first run): one,
  // or as many as copy warmup_words words (words per repeat: 2 * copies * segment_words).
  const std::int64_t words_per_rep = 2 * copies * segment_words;
  const auto warmups = static_cast<int>(std::min<std::int64_t>(
      std::max<std::int64_t>(1, (warmup_words + words_per_rep - 1) / words_per_rep), 1 << 20));
  for (int rep = -warmups; rep < repeats; ++rep) {
    std::vector<std::vector<float>> bufs(static_cast<std::size_t>(threads));
    const double s = timed_parallel(
        threads, pin,
        [&](int id) { bufs[static_cast<std::size_t>(id)].assign(static_cast<std::size_t>(segment_words), 0.0f); },
        [&](int id) {
          float* buf = bufs[static_cast<std::size_t>(id)].data();
          float* mine = array.data() + static_cast<std::ptrdiff_t>(id) * slice;
          std::uint64_t state = 0x12345ULL + static_cast<std::uint64_t>(id) * 7919ULL +
                                static_cast<std::uint64_t>(rep);
          for (std::int64_t c = 0; c < copies; ++c) {
            std::int64_t a = 0;
            std::int64_t b = 0;
            if (sequential) {
              a = c % half;
              if (interleaved) a = interleaved_segment(a, half);
              b = half + a;
            } else {
              state = state * 6364136223846793005ULL + 1442695040888963407ULL;
              a = static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(n_segments));
              state = state * 6364136223846793005ULL + 1442695040888963407ULL;
              b = static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(n_segments));
            }
            std::memcpy(buf, mine + a * segment_words,
                        static_cast<std::size_t>(segment_words) * sizeof(float));
            buf[0] += 1.0f;
            std::memcpy(mine + b * segment_words, buf,
                        static_cast<std::size_t>(segment_words) * sizeof(float));
          }
        });
    if (rep >= 0) per_word.push_back(s / static_cast<double>(words_per_rep));
  }
  g_sink = array[0];
  return summarize(std::move(per_word), words_per_rep);
}

MicroResult bench_barrier(int threads, int repeats, bool pin) {
  check_micro(threads, repeats);
  const std::int64_t iterations = 2000;  // short repeats: more chances of a quiet slice
  std::vector<double> per_barrier;
  for (int rep = -1; rep < repeats; ++rep) {  // rep = -1: untimed warm-up
    Barrier inner(threads);
    const double s = timed_parallel(
        threads, pin, [](int) {},
        [&](int) {
          for (std::int64_t i = 0; i < iterations; ++i) inner.wait();
        });
    if (rep >= 0) per_barrier.push_back(s / static_cast<double>(iterations));
  }
  return summarize(std::move(per_barrier), iterations);
}

namespace {

// Compute-only rows of one tile (no copies): the hexagon's rows of widths
// x = tS1 + 2 e(r) points in s1 times tS2 in u (2D), as in the tiled code. Returns the SIMD
// vectors counted as the model counts them: sum over rows of ceil(x tS2 / nV) (Eq. A.16).
template <typename K, bool TwoD>
std::int64_t compute_tile(float* cur, float* nxt, std::int64_t ts1, std::int64_t ts2,
                          std::int64_t tt, int lanes) {
  const Hex hex(ts1, tt);
  const std::int64_t w2 = ts2 + 2;
  std::int64_t vectors = 0;
  for (std::int64_t r = 0; r < tt; ++r) {
    const std::int64_t x = ts1 + 2 * hex.e(r);
    const std::int64_t off = hex.h - 1 - hex.e(r) + 1;  // first s1 of the row in the plane
    if constexpr (TwoD) {
      for (std::int64_t i = off; i < off + x; ++i) {
        const float* in = cur + i * w2 + 2;
        row_2d<K>(nxt + i * w2 + 2, in, in - w2, in + w2, ts2);
      }
      vectors += (x * ts2 + lanes - 1) / lanes;
    } else {
      row_1d<K>(nxt + off, cur + off, x);
      vectors += (x + lanes - 1) / lanes;
    }
    std::swap(cur, nxt);
  }
  return vectors;
}

// The 3D counterpart: rows of x points in s1 times tS2 x tS3 in (u2, u3), counted as
// sum over rows of ceil(x tS2 tS3 / nV) (Eq. A.28).
template <typename K>
std::int64_t compute_tile_3d(float* cur, float* nxt, std::int64_t ts1, std::int64_t ts2,
                             std::int64_t ts3, std::int64_t tt, int lanes) {
  const Hex hex(ts1, tt);
  const std::int64_t w3 = ts3 + 2;
  const std::int64_t w2 = ts2 + 2;
  std::int64_t vectors = 0;
  for (std::int64_t r = 0; r < tt; ++r) {
    const std::int64_t x = ts1 + 2 * hex.e(r);
    const std::int64_t off = hex.h - 1 - hex.e(r) + 1;
    for (std::int64_t i = off; i < off + x; ++i) {
      for (std::int64_t j = 2; j < w2; ++j) {
        const float* in = cur + (i * w2 + j - 1) * w3 + 2;
        row_3d<K>(nxt + (i * w2 + j) * w3 + 2, in, in - w2 * w3, in + w2 * w3, in - w3, in + w3,
                  ts3);
      }
    }
    vectors += (x * ts2 * ts3 + lanes - 1) / lanes;
    std::swap(cur, nxt);
  }
  return vectors;
}

}  // namespace

MicroResult bench_compute(const std::string& stencil, int threads, int n_configs, int repeats,
                          std::uint64_t seed, bool pin) {
  check_micro(threads, repeats);
  if (n_configs < 1 || n_configs > 1000) {
    throw std::invalid_argument("n_configs: must be in [1, 1000], got " +
                                std::to_string(n_configs));
  }
  const Kernel k = parse_kernel(stencil);
  const bool two_d = kernel_space_dims(k) == 2;
  const bool three_d = kernel_space_dims(k) == 3;
  const int lanes = simd_lanes_float();
  // Random tile shapes (the seed averages over 70 random tile and problem sizes).
  struct Shape {
    std::int64_t ts1, ts2, tt, reps, ts3;
  };
  std::vector<Shape> shapes;
  std::uint64_t state = seed * 2862933555777941757ULL + 3037000493ULL;
  auto next = [&](std::int64_t lo, std::int64_t hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
  };
  for (int i = 0; i < n_configs; ++i) {
    Shape s{};
    s.ts3 = 1;
    if (three_d) {
      s.ts1 = next(1, 16);
      s.ts2 = next(1, 16);
      s.ts3 = 32 * next(1, 4);
      s.tt = 2 * next(1, 8);
    } else if (two_d) {
      s.ts1 = next(1, 32);
      s.ts2 = 32 * next(1, 8);
      s.tt = 2 * next(1, 16);
    } else {
      s.ts1 = next(1, 1024);
      s.ts2 = 1;
      s.tt = 2 * next(1, 128);
    }
    const std::int64_t pts = std::max<std::int64_t>(1, s.tt * (s.ts1 + s.tt / 2) * s.ts2 * s.ts3);
    s.reps = std::max<std::int64_t>(1, (std::int64_t{1} << 19) / pts);  // ~0.5 M points each
    shapes.push_back(s);
  }
  // Per shape: the minimum (median, maximum) over repeats; the estimate is the sum of the
  // per-shape minima over the sum of vectors, i.e. the vector-weighted average over shapes.
  double sum_min = 0, sum_median = 0, sum_max = 0;
  std::int64_t total_vectors = 0;
  for (const Shape& s : shapes) {
    const std::int64_t w1 = s.ts1 + s.tt + 2;
    const std::int64_t floats = three_d  ? w1 * (s.ts2 + 2) * (s.ts3 + 2) + 4
                                : two_d ? w1 * (s.ts2 + 2) + 4
                                        : w1 + 4;
    std::vector<double> times;
    std::int64_t vectors_of_shape = 0;
    for (int rep = -1; rep < repeats; ++rep) {  // rep = -1: untimed warm-up
      std::vector<std::vector<float>> p0(static_cast<std::size_t>(threads)),
          p1(static_cast<std::size_t>(threads));
      std::vector<std::int64_t> vectors(static_cast<std::size_t>(threads), 0);
      const double seconds = timed_parallel(
          threads, pin,
          [&](int id) {
            p0[static_cast<std::size_t>(id)].assign(static_cast<std::size_t>(floats), 0.25f);
            p1[static_cast<std::size_t>(id)].assign(static_cast<std::size_t>(floats), 0.75f);
          },
          [&](int id) {
            float* a = p0[static_cast<std::size_t>(id)].data() + 2;
            float* b = p1[static_cast<std::size_t>(id)].data() + 2;
            std::int64_t v = 0;
            for (std::int64_t i = 0; i < s.reps; ++i) {
              // tT is even, so after a tile the newest values are back in `a`.
              if (three_d) {
                v += compute_tile_3d<Heat3D>(a, b, s.ts1, s.ts2, s.ts3, s.tt, lanes);
                continue;
              }
              v += dispatch(k, [&](auto kern, auto td) {
                return compute_tile<decltype(kern), decltype(td)::value>(a, b, s.ts1, s.ts2,
                                                                         s.tt, lanes);
              });
            }
            vectors[static_cast<std::size_t>(id)] = v;
            g_sink = a[0];
          });
      if (rep >= 0) times.push_back(seconds);
      vectors_of_shape = vectors[0];
    }
    std::sort(times.begin(), times.end());
    sum_min += times.front();
    sum_max += times.back();
    sum_median += median_of_sorted(times);
    total_vectors += vectors_of_shape;
  }
  MicroResult r;
  const double v = static_cast<double>(total_vectors);
  r.value_s = sum_min / v;
  r.median_s = sum_median / v;
  r.max_s = sum_max / v;
  r.repeats = repeats;
  r.units = total_vectors;
  return r;
}

MicroResult bench_row(const std::string& stencil, int threads, int repeats, bool pin) {
  check_micro(threads, repeats);
  const Kernel k = parse_kernel(stencil);
  const int lanes = simd_lanes_float();
  const std::int64_t rows = 200000;
  std::vector<double> per_row;
  for (int rep = -1; rep < repeats; ++rep) {  // rep = -1: untimed warm-up
    std::vector<std::vector<float>> p0(static_cast<std::size_t>(threads)),
        p1(static_cast<std::size_t>(threads));
    const std::int64_t w2 = lanes + 2;
    const std::int64_t floats = 3 * w2 + 8;
    const double s = timed_parallel(
        threads, pin,
        [&](int id) {
          p0[static_cast<std::size_t>(id)].assign(static_cast<std::size_t>(floats), 0.25f);
          p1[static_cast<std::size_t>(id)].assign(static_cast<std::size_t>(floats), 0.75f);
        },
        [&](int id) {
          float* a = p0[static_cast<std::size_t>(id)].data() + w2 + 2;
          float* b = p1[static_cast<std::size_t>(id)].data() + w2 + 2;
          for (std::int64_t i = 0; i < rows; ++i) {
            if (k == Kernel::heat3d) {
              // A row of one vector; its four off-line neighbours read from the lines
              // above and below (timing only, the addresses need not be a real 3D grid).
              row_3d<Heat3D>(b, a, a - w2, a + w2, a - w2 + 1, a + w2 - 1, lanes);
              std::swap(a, b);
              continue;
            }
            dispatch(k, [&](auto kern, auto td) {
              using K = decltype(kern);
              if constexpr (decltype(td)::value) {
                row_2d<K>(b, a, a - w2, a + w2, lanes);
              } else {
                row_1d<K>(b, a, lanes);
              }
              return 0;
            });
            std::swap(a, b);
          }
          g_sink = a[0];
        });
    if (rep >= 0) per_row.push_back(s / static_cast<double>(rows));
  }
  return summarize(std::move(per_row), rows);
}

MicroResult bench_share(int threads, int repeats, bool pin) {
  check_micro(threads, repeats);
  if (threads < 2) {
    throw std::invalid_argument("threads: a cache line written by two threads needs at least "
                                "2, got " + std::to_string(threads));
  }
  // One 64-byte line; thread i writes it when the count says it is its turn, so every
  // write follows a write of another thread: one line transfer between cores per write.
  const std::int64_t writes = 20000;
  std::vector<double> per_write;
  for (int rep = -1; rep < repeats; ++rep) {  // rep = -1: untimed warm-up
    alignas(64) std::atomic<std::int64_t> line{0};
    const double s = timed_parallel(
        threads, pin, [](int) {},
        [&](int id) {
          for (std::int64_t turn = id; turn < writes; turn += threads) {
            for (int i = 0; line.load(std::memory_order_acquire) != turn; ++i) {
              if (i < 4096) {
                cpu_relax();
              } else {
                std::this_thread::yield();  // an oversubscribed machine
              }
            }
            line.store(turn + 1, std::memory_order_release);
          }
        });
    if (rep >= 0) per_write.push_back(s / static_cast<double>(writes));
  }
  return summarize(std::move(per_write), writes);
}

}  // namespace measure
}  // namespace costmetrics

// ---- the CPUs side by side (issue 21) -------------------------------------------------------

namespace costmetrics {
namespace measure {

namespace {

int allowed_cpus() {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) return CPU_COUNT(&allowed);
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// Throughput-bound work with no memory traffic: 32 independent float sums over a 16 KiB
// buffer (L1), which the compiler keeps in vector registers; about 1 ms on a 2020s core.
// Latency-bound code would hide a core shared with another (it leaves the ports idle).
constexpr std::int64_t kProbeFloats = 4096;
constexpr int kProbeSweeps = 6144;

double probe_kernel_s(const float* buf) {
  float acc[32] = {};
  const Clock::time_point start = Clock::now();
  for (int s = 0; s < kProbeSweeps; ++s) {
    for (std::int64_t i = 0; i < kProbeFloats; i += 32) {
      for (int j = 0; j < 32; ++j) acc[j] += buf[i + j];
    }
  }
  const Clock::time_point stop = Clock::now();
  float sum = 0.0f;
  for (float a : acc) sum += a;
  g_sink = sum;
  return std::chrono::duration<double>(stop - start).count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return median_of_sorted(v);
}

}  // namespace

namespace {
// The probes run one thread per CPU: at most the CPUs this process may use.
void require_probe_threads(int threads) {
  const int cpus = allowed_cpus();
  if (threads < 1 || threads > cpus) {
    throw std::invalid_argument("threads: must be in [1, " + std::to_string(cpus) +
                                "] (the CPUs this process may use), got " +
                                std::to_string(threads));
  }
}
}  // namespace

CpuProbe probe_cpus(int threads, int repeats, double spin_s) {
  require_probe_threads(threads);
  if (repeats < 1 || repeats > kMaxRepeats) {
    throw std::invalid_argument("repeats: must be in [1, " + std::to_string(kMaxRepeats) +
                                "], got " + std::to_string(repeats));
  }
  if (!std::isfinite(spin_s) || spin_s < 0.0 || spin_s > 10.0) {
    throw std::invalid_argument("spin_s: must be in [0, 10] seconds, got " +
                                std::to_string(spin_s));
  }
  const auto n = static_cast<std::size_t>(threads);
  std::vector<std::vector<float>> bufs(n, std::vector<float>(kProbeFloats, 1.0f));
  std::vector<std::vector<double>> alone(n), together(n);
  auto run_alone = [&](int cpu, bool keep) {
    double s = 0;
    std::thread worker([&] {
      (void)pin_to_cpu(cpu);
      s = probe_kernel_s(bufs[static_cast<std::size_t>(cpu)].data());
    });
    worker.join();
    if (keep) alone[static_cast<std::size_t>(cpu)].push_back(s);
  };
  auto run_together = [&](bool keep) {
    Barrier barrier(threads);
    std::vector<double> s(n, 0.0);
    run_threads(threads, true, [&](int id) {
      barrier.wait();
      s[static_cast<std::size_t>(id)] = probe_kernel_s(bufs[static_cast<std::size_t>(id)].data());
    });
    if (keep) {
      for (std::size_t i = 0; i < n; ++i) together[i].push_back(s[i]);
    }
  };
  // Phases in rounds, each round starting one phase later, so that no phase always follows
  // the same one (back-to-back runs share the machine's momentary state). Round -1 warms up.
  const int phases = threads + 1;  // alone on each CPU, then all together
  for (int rep = -1; rep < repeats; ++rep) {
    for (int k = 0; k < phases; ++k) {
      const int phase = (k + std::max(rep, 0)) % phases;
      if (phase < threads) {
        run_alone(phase, rep >= 0);
      } else {
        run_together(rep >= 0);
      }
    }
  }
  CpuProbe r;
  r.repeats = repeats;
  r.stall_share.assign(n, 0.0);
  r.longest_stall_s.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    r.alone_s.push_back(median_of(alone[i]));
    r.together_s.push_back(median_of(together[i]));
  }
  // Every CPU spins on the clock at once; a gap longer than any clock read is time the
  // virtual CPU was not running (the host ran something else on that core).
  const double gap_s = 50e-6;
  Barrier barrier(threads);
  r.pinned_cpus = run_threads(threads, true, [&](int id) {
    barrier.wait();
    const Clock::time_point start = Clock::now();
    Clock::time_point last = start;
    double lost = 0, longest = 0;
    while (std::chrono::duration<double>(last - start).count() < spin_s) {
      const Clock::time_point now = Clock::now();
      const double d = std::chrono::duration<double>(now - last).count();
      if (d > gap_s) {
        lost += d;
        longest = std::max(longest, d);
      }
      last = now;
    }
    const auto i = static_cast<std::size_t>(id);
    r.stall_share[i] = spin_s > 0 ? std::min(1.0, lost / spin_s) : 0.0;
    r.longest_stall_s[i] = longest;
  });
  return r;
}

HostSpeed probe_host(int threads, double duration_s, double reference_s) {
  require_probe_threads(threads);
  if (!std::isfinite(duration_s) || duration_s <= 0.0 || duration_s > 60.0) {
    throw std::invalid_argument("duration_s: must be in (0, 60] seconds, got " +
                                std::to_string(duration_s));
  }
  if (!std::isfinite(reference_s) || reference_s < 0.0) {
    throw std::invalid_argument("reference_s: must be 0 (none) or a positive time, got " +
                                std::to_string(reference_s));
  }
  const auto n = static_cast<std::size_t>(threads);
  std::vector<std::vector<float>> bufs(n, std::vector<float>(kProbeFloats, 1.0f));
  std::vector<double> rounds;
  std::vector<double> s(n, 0.0);
  Barrier start(threads);
  Barrier done(threads);
  // One team of threads for the whole window (no thread start per round); thread 0
  // decides when the window is over, and every thread reads the decision after the barrier.
  bool stop = false;
  HostSpeed r;
  const Clock::time_point t0 = Clock::now();
  r.pinned_cpus = run_threads(threads, true, [&](int id) {
    const auto i = static_cast<std::size_t>(id);
    for (int round = -1;; ++round) {  // round -1 warms up
      start.wait();
      if (stop) break;
      s[i] = probe_kernel_s(bufs[i].data());
      done.wait();
      if (id == 0) {
        if (round >= 0) rounds.push_back(*std::max_element(s.begin(), s.end()));
        // At least one timed round, however short the window.
        stop = !rounds.empty() &&
               (std::chrono::duration<double>(Clock::now() - t0).count() >= duration_s ||
                rounds.size() >= 1000000);
      }
    }
  });
  r.rounds = static_cast<std::int64_t>(rounds.size());
  if (rounds.empty()) throw std::runtime_error("probe_host: no round was timed");
  std::sort(rounds.begin(), rounds.end());
  r.fastest_round_s = rounds.front();
  r.reference_s = reference_s > 0.0 ? std::min(reference_s, r.fastest_round_s)
                                    : r.fastest_round_s;
  const double slow_above = HostSpeed::kSlowRound * r.reference_s;
  const auto fast = std::upper_bound(rounds.begin(), rounds.end(), slow_above) - rounds.begin();
  r.slow_share = 1.0 - static_cast<double>(fast) / static_cast<double>(rounds.size());
  r.median_over_reference = median_of_sorted(rounds) / r.reference_s;
  return r;
}

}  // namespace measure
}  // namespace costmetrics

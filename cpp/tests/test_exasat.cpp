// Unit tests of the ExaSAT-style model (seed 002) and its LRU cross-check.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "check.hpp"
#include "costmetrics/exasat.hpp"

namespace ex = costmetrics::exasat;

namespace {

ex::Machine machine(std::int64_t cache_bytes, std::int64_t line_bytes, bool write_allocate) {
  ex::Machine m;
  m.alpha_flops_per_s = 1e9;
  m.beta_bytes_per_s = 1e9;
  m.cache_bytes = cache_bytes;
  m.word_bytes = 8;
  m.line_bytes = line_bytes;
  m.write_allocate = write_allocate;
  return m;
}

ex::Access read(int array, std::vector<ex::Offset> points) {
  return ex::Access{array, false, std::move(points)};
}
ex::Access write(int array) { return ex::Access{array, true, {{0, 0, 0}}}; }

std::vector<ex::Offset> seven_point() {
  return {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
}

// Fig. 4, Scenario 1: L1: B = f(A); L2: C = g(A, B); B is an intermediate.
ex::Kernel fig4() {
  ex::Kernel k;
  k.name = "fig4";
  k.arrays = {"A", "B", "C"};
  k.temporary = {false, true, false};
  ex::Loop l1{"L1", {read(0, {{0, 0, 0}}), write(1)}, ex::Flops{1, 0, 0, 0}};
  ex::Loop l2{"L2", {read(0, {{0, 0, 0}}), read(1, {{0, 0, 0}}), write(2)}, ex::Flops{1, 0, 0, 0}};
  k.loops = {l1, l2};
  return k;
}

// B = 7pt(A) (one loop).
ex::Kernel stencil7() {
  ex::Kernel k;
  k.name = "stencil7";
  k.arrays = {"A", "B"};
  k.temporary = {false, false};
  k.loops = {ex::Loop{"S", {read(0, seven_point()), write(1)}, ex::Flops{6, 1, 0, 0}}};
  return k;
}

// Two sweeps: B = 7pt(A); C = 7pt(B), B an intermediate (a stencil dependency).
ex::Kernel two_sweeps() {
  ex::Kernel k;
  k.name = "two_sweeps";
  k.arrays = {"A", "B", "C"};
  k.temporary = {false, true, false};
  k.loops = {ex::Loop{"S1", {read(0, seven_point()), write(1)}, ex::Flops{6, 1, 0, 0}},
             ex::Loop{"S2", {read(1, seven_point()), write(2)}, ex::Flops{6, 1, 0, 0}}};
  return k;
}

double words(const ex::Estimate& e) { return e.traffic_bytes / 8.0; }
double words(const ex::Simulation& s) { return static_cast<double>(s.traffic_bytes) / 8.0; }

}  // namespace

int main() {
  const ex::Box box{8, 8, 8};
  const double n = 512.0;  // N = 8^3 words per array
  const std::vector<ex::Blocking> whole{{8, 8}};

  // --- Fig. 4: 5N -> 2N with cache bypass, 7N -> 3N with write-allocate (Sec. 3.2).
  {
    const auto k = fig4();
    const auto none = ex::fusion_groups(k, ex::FusionStrategy::None);
    const auto fused = ex::fusion_groups(k, ex::FusionStrategy::Aggressive);
    CHECK(none.size() == 2);
    CHECK(fused.size() == 1);
    // No stencil dependency (B is read point-wise), so simple fusion fuses too.
    CHECK(ex::fusion_groups(k, ex::FusionStrategy::Simple).size() == 1);
    for (std::int64_t line : {8, 64}) {
      const auto bypass = machine(4096, line, false);
      const auto alloc = machine(4096, line, true);
      // Bypass: L1 reads A, writes B (2N); L2 reads A, B, writes C (3N): 5N. Fused: A, C: 2N.
      CHECK_CLOSE(words(ex::evaluate(k, bypass, box, none, whole)), 5 * n, 1e-12);
      CHECK_CLOSE(words(ex::evaluate(k, bypass, box, fused, whole)), 2 * n, 1e-12);
      // Write-allocate: each store also reads its line: 3N + 4N = 7N; fused 3N.
      CHECK_CLOSE(words(ex::evaluate(k, alloc, box, none, whole)), 7 * n, 1e-12);
      CHECK_CLOSE(words(ex::evaluate(k, alloc, box, fused, whole)), 3 * n, 1e-12);
      // The LRU simulation of the same streams agrees exactly.
      CHECK_CLOSE(words(ex::simulate_lru(k, bypass, box, none, whole)), 5 * n, 1e-12);
      CHECK_CLOSE(words(ex::simulate_lru(k, bypass, box, fused, whole)), 2 * n, 1e-12);
      CHECK_CLOSE(words(ex::simulate_lru(k, alloc, box, none, whole)), 7 * n, 1e-12);
      CHECK_CLOSE(words(ex::simulate_lru(k, alloc, box, fused, whole)), 3 * n, 1e-12);
    }
  }

  // --- Weighted flops (Sec. 4.2, Fig. 7): 619 + 815 + 39*39 + 125*51 = 9330 (Table 1, SMC
  // chemistry, 9 species).
  {
    ex::Machine m = machine(4096, 64, true);
    CHECK_CLOSE(ex::weighted_flops(ex::Flops{619, 815, 39, 51}, m), 9330.0, 1e-15);
  }

  // --- Footprint of a block: 7-point stencil on a 4x4x4 block = 64 + 6 faces of 16 = 160.
  CHECK(ex::footprint_words({4, 4, 4}, seven_point()) == 160);
  // Two points 10 apart along x with a 4-wide block do not overlap: 2 * 4 = 8.
  CHECK(ex::footprint_words({4, 1, 1}, {{0, 0, 0}, {10, 0, 0}}) == 8);
  CHECK(ex::footprint_words({4, 1, 1}, {{0, 0, 0}, {2, 0, 0}}) == 6);

  // --- Reuse levels of the 7-point stencil (Fig. 8), whole 8^3 box, one-word lines.
  {
    const auto k = stencil7();
    const auto g = ex::fusion_groups(k, ex::FusionStrategy::None);
    const auto m = machine(1 << 20, 8, false);  // bypass: B costs N writes at every level
    // none: 7 reads/cell; cell: 5 rows x (8 + x-halo) per pencil; pencil: 3 planes;
    // plane: the footprint 8^3 + 6*64 = 896.
    CHECK_CLOSE(words(ex::evaluate(k, m, box, g, whole, ex::kNone)), 7 * n + n, 1e-12);
    // cell: rows (0,0) covers x in [-1, 9): 10 words; 4 other rows 8 words; x 64 pencils.
    CHECK_CLOSE(words(ex::evaluate(k, m, box, g, whole, ex::kCell)), (10 + 32) * 64 + n, 1e-12);
    // pencil: dz=0 plane footprint 8*8 + 4*8 = 96, dz=+-1 planes 64 each; x 8 planes.
    CHECK_CLOSE(words(ex::evaluate(k, m, box, g, whole, ex::kPencil)), (96 + 128) * 8 + n, 1e-12);
    CHECK_CLOSE(words(ex::evaluate(k, m, box, g, whole, ex::kPlane)), 896 + n, 1e-12);
    // Working sets (one-word lines): cell 3+1+1+1+1 = 7 words; pencil 10 + 4*8 = 42 words;
    // plane: dz=0: 10 rows x 10 words, dz=+-1: 8 rows x 8 words each -> 228 words.
    const auto e = ex::evaluate(k, m, box, g, whole);
    CHECK(e.groups[0].level == ex::kPlane);
    CHECK_CLOSE(e.groups[0].ws_bytes[1], 7 * 8.0, 1e-12);
    CHECK_CLOSE(e.groups[0].ws_bytes[2], 42 * 8.0, 1e-12);
    CHECK_CLOSE(e.groups[0].ws_bytes[3], 228 * 8.0, 1e-12);

    // LRU simulation: a cache just above each working set shows that level's traffic.
    // Points inside a plateau agree within the boundary effects described in docs/exasat.md.
    const std::vector<std::int64_t> caches{8, 7 * 8, 42 * 8, 228 * 8, 1 << 20};
    const auto sims = ex::simulate_lru_sweep(k, m, box, g, whole, caches);
    CHECK_CLOSE(words(sims[0]), 7 * n + n, 1e-12);  // one-word cache: every access misses
    for (std::size_t i = 1; i < caches.size(); ++i) {
      const auto mi = machine(caches[i], 8, false);
      const auto model = words(ex::evaluate(k, mi, box, g, whole));
      std::fprintf(stderr, "stencil7 cache %lld B: model %.0f, LRU %.0f words\n",
                   static_cast<long long>(caches[i]), model, words(sims[i]));
      CHECK(words(sims[i]) <= model * 1.0000001);  // the model is conservative
      CHECK(words(sims[i]) >= model * 0.85);
    }
    // Unlimited cache: compulsory traffic, exactly the footprint.
    CHECK_CLOSE(words(sims.back()), 896 + n, 1e-12);
    CHECK_THROWS(ex::simulate_lru_sweep(k, m, box, g, whole, caches,
                                        ex::kDefaultMaxSimAccesses, -5),
                 std::invalid_argument);
    CHECK_THROWS(ex::simulate_lru_sweep(k, m, box, g, whole, caches,
                                        ex::kDefaultMaxSimAccesses, 1025),
                 std::invalid_argument);
  }

  // --- Two 7-point sweeps fused aggressively: B becomes a buffer of 3 planes.
  {
    const auto k = two_sweeps();
    CHECK(ex::stencil_dependency(k, 0, 1));
    CHECK(ex::fusion_groups(k, ex::FusionStrategy::Simple).size() == 2);
    const auto agg = ex::fusion_groups(k, ex::FusionStrategy::Aggressive);
    const auto m = machine(1 << 20, 8, false);
    const auto e = ex::evaluate(k, m, box, agg, whole);
    // Fused, everything fits: A's footprint grows by the stagger (one more cell in each
    // direction of B's stencil); B is never in DRAM; C written once.
    CHECK(e.groups[0].arrays.size() == 3);
    CHECK(e.groups[0].arrays[1].role == std::string("scratch"));
    CHECK(e.groups[0].arrays[1].read_words == 0);
    CHECK(e.groups[0].arrays[1].write_words == 0);
    const auto s = ex::simulate_lru(k, m, box, agg, whole);
    std::fprintf(stderr, "two_sweeps fused: model %.0f, LRU %.0f words\n", words(e), words(s));
    // The stagger leaves B's low-side halo unwritten inside the sweep: the simulation fetches
    // those lines from DRAM where the model assumes them on chip. The gap is bounded by the
    // halo, fp(R u W) - fp(W) = 918 - 512 = 406 words here (docs/exasat.md).
    CHECK(words(s) >= words(e));
    CHECK(words(s) <= words(e) + 406);
    // Unfused: B is written (N) and read back at plane reuse (footprint 896).
    const auto unf = ex::evaluate(k, m, box, ex::fusion_groups(k, ex::FusionStrategy::None), whole);
    CHECK_CLOSE(words(unf), (896 + n) * 2, 1e-12);
  }

  // --- Bad input.
  {
    const auto k = stencil7();
    const auto g = ex::fusion_groups(k, ex::FusionStrategy::None);
    CHECK_THROWS(ex::evaluate(k, machine(0, 64, true), box, g, whole), std::invalid_argument);
    CHECK_THROWS(ex::evaluate(k, machine(32, 64, true), box, g, whole), std::invalid_argument);
    CHECK_THROWS(ex::evaluate(k, machine(4096, 60, true), box, g, whole), std::invalid_argument);
    CHECK_THROWS(ex::evaluate(k, machine(4096, 64, true), ex::Box{0, 8, 8}, g, whole),
                 std::invalid_argument);
    CHECK_THROWS(ex::evaluate(k, machine(4096, 64, true), box, g, {{-1, 8}}),
                 std::invalid_argument);
    CHECK_THROWS(ex::evaluate(k, machine(4096, 64, true), box, {{0}, {0}}, whole),
                 std::invalid_argument);
    ex::Machine nan_m = machine(4096, 64, true);
    nan_m.alpha_flops_per_s = std::nan("");
    CHECK_THROWS(ex::evaluate(k, nan_m, box, g, whole), std::invalid_argument);
    auto bad = k;
    bad.loops[0].accesses[0].offsets.push_back({100, 0, 0});
    CHECK_THROWS(ex::evaluate(bad, machine(4096, 64, true), box, g, whole), std::invalid_argument);
    // Huge boxes: the model is fine, the simulation refuses.
    const ex::Box huge{1 << 20, 1 << 20, 1 << 20};
    CHECK(ex::evaluate(k, machine(4096, 64, true), huge, g, whole).bytes_per_flop > 0);
    CHECK_THROWS(ex::simulate_lru(k, machine(4096, 64, true), huge, g, whole),
                 std::invalid_argument);
    const ex::Box big{4096, 4096, 512};
    const auto e = ex::evaluate(k, machine(4096, 64, true), big, g, whole);
    CHECK(e.traffic_bytes > 0);
    CHECK_THROWS(ex::simulate_lru(k, machine(4096, 64, true), big, g, whole),
                 std::invalid_argument);
  }

  return cm_test::report("exasat");
}

// Micro benchmark of the codesign sweep's core (codesign::sweep, `paper` and `exact`), no
// Python: a slice of designs (nSM, nV, M_SM) x the 2D workload of Sec. C.3.1 (4 stencils x
// 16 sizes, GTX 980 machine parameters; with --workload 3d the 3D one, 2 stencils x 12
// sizes), one thread by default. Reports wall time, tile
// evaluations and bounds. Meant for instruction counts under valgrind --tool=callgrind
// (repeatable on a loaded machine) and for quick checks; the issue-15 sweep target is
// measured by benchmarks/bench_codesign.py --exact (both workloads, 200-650 mm^2).
//
// Built by CMake with -DCOSTMETRICS_BUILD_BENCHMARKS=ON (target bench_codesign_core).
// Run: build/dev/bench_codesign_core [--quick] [--variant paper|exact] [--threads N]
//      [--smem KB[,KB...]] [--designs FILE] [--workload 2d|3d]
// (--quick: 4 designs instead of 24; --smem: the M_SM values, default 24,96; the full
// sweep's time goes mostly to large M_SM, e.g. --smem 480, whose tile sets are ~30x larger;
// --designs: the designs from a file instead, one "nSM nV M_SM_kB" per line, e.g. those of
// the full sweep at one M_SM, where ~18 designs share each (M_SM, nSM).)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "costmetrics/codesign.hpp"

namespace cd = costmetrics::codesign;
namespace tmod = costmetrics::time;

int main(int argc, char** argv) {
  bool quick = false;
  std::string variant = "exact";
  int threads = 1;
  std::vector<std::int64_t> smem_kb = {24, 96};
  std::string designs_file;
  std::string workload = "2d";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--variant" && i + 1 < argc) {
      variant = argv[++i];
    } else if (a == "--threads" && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (a == "--smem" && i + 1 < argc) {
      smem_kb.clear();
      std::stringstream list(argv[++i]);
      std::string item;
      while (std::getline(list, item, ',')) {
        const long long kb = std::atoll(item.c_str());
        if (kb != 12 && kb != 24 && kb != 36 && (kb <= 0 || kb % 48 != 0)) {
          std::fprintf(stderr, "--smem: 12, 24, 36 or a multiple of 48 kB, got %s\n",
                       item.c_str());
          return 2;
        }
        smem_kb.push_back(kb);
      }
    } else if (a == "--designs" && i + 1 < argc) {
      designs_file = argv[++i];
    } else if (a == "--workload" && i + 1 < argc) {
      workload = argv[++i];
    } else {
      std::fprintf(stderr, "usage: bench_codesign_core [--quick] [--variant paper|exact] "
                           "[--threads N] [--smem KB[,KB...]] [--designs FILE] "
                           "[--workload 2d|3d]\n");
      return 2;
    }
  }
  if (variant != "paper" && variant != "exact") {
    std::fprintf(stderr, "--variant must be paper or exact, got %s\n", variant.c_str());
    return 2;
  }
  if (workload != "2d" && workload != "3d") {
    std::fprintf(stderr, "--workload must be 2d or 3d, got %s\n", workload.c_str());
    return 2;
  }
  cd::MachineParams m;  // GTX 980 (data/gpus/gtx980.yaml)
  m.l_s_per_word = 7.36e-3 * 4e-9;
  m.tau_sync_s = 7.96e-10;
  m.t_sync_s = 9.24e-7;
  m.max_blocks_per_sm = 32;
  std::vector<cd::Instance> instances;
  if (workload == "2d") {
    // Jacobi2D, Heat2D, Laplacian2D, Gradient2D on the GTX 980 (data/stencils/*.yaml).
    for (double c_iter : {3.39e-8, 3.68e-8, 3.11e-8, 6.09e-8}) {
      for (std::int64_t s : {4096, 8192, 12288, 16384}) {
        for (std::int64_t t : {1024, 2048, 4096, 8192, 16384}) {
          if (t > s) continue;
          cd::Instance in;
          in.stencil.n_space_dims = 2;
          in.stencil.c_iter_s = c_iter;
          in.size.space = {{s, s, 0}};
          in.size.time_steps = t;
          instances.push_back(in);
        }
      }
    }
  } else {
    // Heat3D, Laplacian3D on the GTX 980 (codesign.workload("3d"), data/stencils/*.yaml).
    for (double c_iter : {1.55e-7, 1.36e-7}) {
      for (std::int64_t s : {384, 512, 640}) {
        for (std::int64_t t : {128, 256, 384, 512, 640}) {
          if (t > s) continue;
          cd::Instance in;
          in.stencil.n_space_dims = 3;
          in.stencil.c_iter_s = c_iter;
          in.size.space = {{s, s, s}};
          in.size.time_steps = t;
          instances.push_back(in);
        }
      }
    }
  }
  std::vector<cd::Design> designs;
  for (std::int64_t kb : smem_kb) {
    for (std::int64_t n_sm : {4, 16}) {
      for (std::int64_t n_v : {128, 160, 192, 416, 1024, 1920}) {
        designs.push_back({n_sm, n_v, kb, 0.0});
        if (quick && designs.size() == 4) break;
      }
      if (quick && designs.size() == 4) break;
    }
    if (quick && designs.size() == 4) break;
  }
  if (!designs_file.empty()) {
    std::ifstream f(designs_file);
    if (!f) {
      std::fprintf(stderr, "--designs: cannot read %s\n", designs_file.c_str());
      return 2;
    }
    designs.clear();
    long long n_sm = 0, n_v = 0, kb = 0;
    while (f >> n_sm >> n_v >> kb) designs.push_back({n_sm, n_v, kb, 0.0});
    if (designs.empty()) {
      std::fprintf(stderr, "--designs: no design in %s\n", designs_file.c_str());
      return 2;
    }
  }
  cd::SweepOptions o;
  o.variant = variant == "paper" ? tmod::Variant::paper : tmod::Variant::exact;
  o.n_threads = threads;
  const auto start = std::chrono::steady_clock::now();
  cd::SweepOutput r;
  try {
    r = cd::sweep(designs, instances, m, o);
  } catch (const std::exception& e) {  // e.g. a bad design in --designs
    std::fprintf(stderr, "bench_codesign_core: %s\n", e.what());
    return 2;
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::int64_t evaluated = 0, feasible = 0;
  double checksum = 0;
  for (std::size_t c = 0; c < r.talg_s.size(); ++c) {
    evaluated += r.n_evaluated[c];
    feasible += r.n_feasible[c];
    checksum += r.talg_s[c];
  }
  std::printf("%s sweep, %zu designs x %zu instances, threads=%d: %.3f s wall; %lld of %lld "
              "feasible tiles evaluated, %lld bounds; checksum %.17g\n",
              variant.c_str(), designs.size(), instances.size(), threads, took.count(),
              static_cast<long long>(evaluated), static_cast<long long>(feasible),
              static_cast<long long>(r.n_bounds), checksum);
  return 0;
}

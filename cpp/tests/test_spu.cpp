// Unit tests for the Stencil Processing Unit model (seed 003, Chapters 3 and 6).
#include <cstdint>
#include <stdexcept>

#include "check.hpp"
#include "costmetrics/spu.hpp"

using namespace costmetrics::spu;

namespace {

Problem cube(std::int64_t n, std::int64_t b = 32, std::int64_t p = 4) {
  Problem pr;
  pr.n = n;
  pr.k = n;
  pr.tile = b;
  pr.grid = p;
  return pr;
}

void test_table_6_3_localized() {
  // 003 Table 6.3 (localized sync), p = 4, b = 32: 98,304 and 655,360 (Eq. 3.8).
  CHECK(off_chip(cube(128)).spu_exact == 98304);  // 4*128^3/128 + 2*128^2 = 65536 + 32768
  CHECK(off_chip(cube(256)).spu_exact == 655360);  // 524288 + 131072
  CHECK(off_chip(cube(256)).spu_closed_form == 655360.0);
}

void test_partial_passes() {
  // N = 320, p b = 128: Eq. 3.8 gives 4*320^3/128 + 2*320^2 = 1,024,000 + 204,800 = 1,228,800;
  // 3 x 3 passes (two full, one 64 wide): 4*320*320*3 + 2*320^2 = 1,228,800 + 204,800.
  const OffChip r = off_chip(cube(320));
  CHECK(r.spu_closed_form == 1228800.0);
  CHECK(r.spu_exact == 1433600);
  CHECK(r.passes_per_dim == 3);
  CHECK(r.partial_passes);
  CHECK(r.lower_bound == 6 * 320 * 320);
}

void test_gpu_and_ratios() {
  // Eq. 3.3 with N = 256, b = 32: 4*256^3/32 + 2*256^2 = 2,097,152 + 131,072 = 2,228,224.
  const OffChip r = off_chip(cube(256));
  CHECK(r.gpu_exact == 2228224);
  CHECK(r.gpu_closed_form == 2228224.0);
  CHECK(r.flops == 3LL * 256 * 256 * 256);
  CHECK_CLOSE(r.ccr_gpu_closed_form, 24.0, 1e-15);   // 3 * 32 / 4
  CHECK_CLOSE(r.ccr_spu_closed_form, 96.0, 1e-15);   // 3 * 4 * 32 / 4
  CHECK_CLOSE(r.ccr_spu_exact, 50331648.0 / 655360.0, 1e-15);
  // Eq. 3.9: 4 N^3/(p b) - 4 N^2 = 524,288 - 262,144.
  CHECK(r.spill_restore_exact == 262144);
  CHECK(r.spill_restore_closed_form == 262144.0);
}

void test_global_sync() {
  // 003 Table 6.3, N = 256: 8 x 8 x 8 tiles, 2 x 2 passes, 16 spilling VIUs. Algorithm 1
  // runs 8 + 8 + 8 - 2 = 22 iterations: 393,216 + 2*16*22*1024 = 1,114,112. The table's
  // 1,179,648 = 393,216 + 2*16*24*1024 implies 24 spills per VIU.
  const GlobalSync g = global_sync(cube(256));
  CHECK(g.syncs_per_block == 22);
  CHECK(g.spilling_vius == 16);
  CHECK(g.accesses == 1114112);
  CHECK(g.localized_accesses == 655360);
  CHECK(global_sync(cube(256), 2).accesses == 1179648);
  CHECK(spills_per_viu_from_accesses(cube(256), 1179648) == 24.0);
  // N = 128: a single pass, no VIU, both syncs give 98,304.
  CHECK(global_sync(cube(128)).accesses == 98304);
  CHECK_THROWS(spills_per_viu_from_accesses(cube(128), 98304), std::invalid_argument);
  CHECK_THROWS(global_sync(cube(320 + 16)), std::invalid_argument);
}

void test_configurations() {
  // 003 Table 6.2: 320^3, b = 32, subtile 4 -> 10x10 blocks, 8x8 threads, 3x3 passes, partial.
  Configuration c = configuration(cube(320), 4);
  CHECK(c.blocks_per_dim == 10 && c.threads_per_dim == 8 && c.passes_per_dim == 3);
  CHECK(c.partial_passes);
  CHECK(c.partial_pass_max_occupancy == 0.75);  // "<= 3/4 of the processors"
  c = configuration(cube(384), 4);
  CHECK(c.blocks_per_dim == 12 && c.passes_per_dim == 3 && !c.partial_passes);
  // Table A.1: 1024^3, b = 64 -> 16x16 blocks, 16x16 threads, 4x4 passes.
  c = configuration(cube(1024, 64), 4);
  CHECK(c.blocks_per_dim == 16 && c.threads_per_dim == 16 && c.passes_per_dim == 4);
  CHECK_THROWS(configuration(cube(256), 5), std::invalid_argument);
}

void test_cb_and_energy() {
  CHECK(max_tile_for_cb(4096, 4) == 32);   // Sec. 6.3.4: 4 KB -> 32 x 32
  CHECK(max_tile_for_cb(16384, 4) == 64);  // 16 KB -> 64 x 64
  CHECK(max_tile_for_cb(4095, 4) == 31);   // 1023 words: 31^2 = 961 <= 1023 < 1024
  CHECK(total_cb_bytes(16, 16, 4096) == 80 * 4096);  // Eq. 5.1: (4*16 + 16) x 4 KB
  // Eq. 6.1: 7e8 cycles at 700 MHz is 1 s; at 100 W that is 100 J = 100,000 mJ.
  CHECK_CLOSE(energy_mj_from_cycles(7e8, 100.0, 700.0), 1e5, 1e-15);
  const EnergySplit e = energy_split(10.0, 4.0, 0.5, 2.0, 3.0, 2.0);
  CHECK(e.compute_j == 5.0 && e.memory_j == 8.0 && e.static_j == 6.0 && e.total_j == 19.0);
  // Break-even: ((10 - 4) * 2 + 3 * 2) / 3 = 6 W.
  CHECK_CLOSE(break_even_static_power_w(10.0, 4.0, 2.0, 3.0, 2.0, 3.0), 6.0, 1e-15);
  CHECK_THROWS(break_even_static_power_w(0.0, 100.0, 1.0, 0.0, 1.0, 1.0), std::domain_error);
  CHECK_CLOSE(relative_change(79.1, 46.4), 32.7 / 46.4, 1e-12);
  CHECK_THROWS(relative_change(1.0, 1e-320), std::overflow_error);  // (1 - 1e-320) / 1e-320
  CHECK_THROWS(relative_change(-1e308, 1e-10), std::overflow_error);
}

void test_bad_input() {
  CHECK_THROWS(off_chip(cube(0)), std::invalid_argument);
  CHECK_THROWS(off_chip(cube(16, 32)), std::invalid_argument);  // tile > N
  CHECK_THROWS(off_chip(cube(3037000500LL, 1)), std::overflow_error);
  CHECK_THROWS(energy_split(-1.0, 0, 0, 0, 0, 0), std::invalid_argument);
  CHECK_THROWS(energy_mj_from_cycles(1.0, 1.0, 0.0), std::invalid_argument);
  CHECK_THROWS(max_tile_for_cb(2, 4), std::invalid_argument);
}

}  // namespace

int main() {
  test_table_6_3_localized();
  test_partial_passes();
  test_gpu_and_ratios();
  test_global_sync();
  test_configurations();
  test_cb_and_energy();
  test_bad_input();
  return cm_test::report("spu");
}

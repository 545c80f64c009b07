// Stencil Processing Unit model (seed 003, Chapters 3 and 6). See spu.hpp for conventions
// and docs/spu.md for the equations as implemented and the readings chosen.
#include "costmetrics/spu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "costmetrics/checked.hpp"

namespace costmetrics::spu {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

void require_finite_nonnegative(double value, const char* name) {
  if (!std::isfinite(value) || value < 0) {
    throw std::invalid_argument(std::string(name) + ": must be finite and >= 0, got " +
                                format_value(value));
  }
}

void require_finite_positive(double value, const char* name) {
  if (!std::isfinite(value) || !(value > 0)) {
    throw std::invalid_argument(std::string(name) + ": must be finite and > 0, got " +
                                format_value(value));
  }
}

std::int64_t square(std::int64_t v, const char* what) { return checked_mul(v, v, what); }

// 2 N^2 + 4 N K: the faces of the N x N x K space (A at k = 0 and H at k = K-1, N x N each;
// B, C and the two side outputs, N x K each).
std::int64_t lower_bound(const Problem& p) {
  const std::int64_t nn = square(p.n, "2 N^2");
  const std::int64_t nk = checked_mul(p.n, p.k, "4 N K");
  return checked_add(checked_mul(2, nn, "2 N^2"), checked_mul(4, nk, "4 N K"), "lower bound");
}

// Sum over a grid of blocks of width w (elements) of Eq. 3.2 / 3.7 generalized to partial
// blocks: each block loads its west and north faces (w x K each), stores its east and south
// faces, and loads/stores w_i x w_j at k = 0 / k = K-1. Summed over a g x g grid whose
// widths add up to N along each axis: 2 K (g N + g N) + 2 N^2 = 4 N K g + 2 N^2.
std::int64_t grid_accesses(const Problem& p, std::int64_t blocks_per_dim) {
  const std::int64_t nk = checked_mul(p.n, p.k, "4 N K ceil(...)");
  const std::int64_t faces = checked_mul(checked_mul(4, nk, "4 N K ceil(...)"), blocks_per_dim,
                                         "4 N K ceil(...)");
  return checked_add(faces, checked_mul(2, square(p.n, "2 N^2"), "2 N^2"), "off-chip accesses");
}

}  // namespace

void Problem::validate() const {
  require_positive(n, "n (N)");
  require_positive(k, "k (K)");
  require_positive(tile, "tile (b)");
  require_positive(grid, "grid (p)");
  if (tile > n) {
    throw std::invalid_argument("tile (b) = " + std::to_string(tile) + " exceeds n (N) = " +
                                std::to_string(n));
  }
  if (tile > k) {
    throw std::invalid_argument("tile (b) = " + std::to_string(tile) + " exceeds k (K) = " +
                                std::to_string(k));
  }
  // p b must be representable; larger grids than 2^31 SMs are not a machine.
  checked_mul(tile, grid, "p b");
}

OffChip off_chip(const Problem& p) {
  p.validate();
  // Eqs. 3.6-3.9 count N^2/(p^2 b^2) whole p x p passes; with p b > N that is less than one
  // pass, and Eq. 3.8 falls below the lower bound (Eq. 3.9 negative). Refuse rather than
  // return a count outside its physical range (docs/spu.md, "Domain of the closed forms").
  if (checked_mul(p.tile, p.grid, "p b") > p.n) {
    throw std::invalid_argument(
        "off_chip: Eq. 3.8 needs p b <= N (whole passes), got p b = " + std::to_string(p.grid) +
        " x " + std::to_string(p.tile) + " = " + std::to_string(p.tile * p.grid) +
        " > N = " + std::to_string(p.n) + "; use a smaller grid (p) or tile (b)");
  }
  OffChip r;
  const double n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  const double b = static_cast<double>(p.tile), g = static_cast<double>(p.grid);
  r.flops = checked_mul(3, checked_mul(square(p.n, "3 N^2 K"), p.k, "3 N^2 K"), "3 N^2 K");
  r.lower_bound = lower_bound(p);
  r.blocks_per_dim = ceil_div(p.n, p.tile);
  r.passes_per_dim = ceil_div(p.n, p.tile * p.grid);
  r.partial_passes = r.blocks_per_dim % p.grid != 0;
  // Eq. 3.3 (K = N in the seed): N^2/b^2 CTAs x (4 N b + 2 b^2).
  r.gpu_closed_form = 4.0 * n * n * k / b + 2.0 * n * n;
  r.gpu_exact = grid_accesses(p, r.blocks_per_dim);
  // Eq. 3.8: N^2/(p^2 b^2) passes x (4 N p b + 2 p^2 b^2).
  r.spu_closed_form = 4.0 * n * n * k / (g * b) + 2.0 * n * n;
  r.spu_exact = grid_accesses(p, r.passes_per_dim);
  // Eq. 3.9: (4 N^3/(p b) + 2 N^2) - 6 N^2, with 6 N^2 -> 2 N^2 + 4 N K.
  r.spill_restore_closed_form = r.spu_closed_form - static_cast<double>(r.lower_bound);
  r.spill_restore_exact = r.spu_exact - r.lower_bound;
  // Eqs. 3.4 and 3.10: 3 N^3 flops over the dominant term 4 N^3 / b (resp. / (p b)).
  r.ccr_gpu_closed_form = 3.0 * b / 4.0;
  r.ccr_spu_closed_form = 3.0 * g * b / 4.0;
  r.ccr_gpu_exact = static_cast<double>(r.flops) / static_cast<double>(r.gpu_exact);
  r.ccr_spu_exact = static_cast<double>(r.flops) / static_cast<double>(r.spu_exact);
  return r;
}

Configuration configuration(const Problem& p, std::int64_t subtile) {
  p.validate();
  require_positive(subtile, "subtile");
  if (p.tile % subtile != 0) {
    throw std::invalid_argument("subtile = " + std::to_string(subtile) +
                                " must divide tile (b) = " + std::to_string(p.tile));
  }
  Configuration c;
  c.blocks_per_dim = ceil_div(p.n, p.tile);
  c.threads_per_dim = p.tile / subtile;
  c.tiles_per_block = ceil_div(p.k, p.tile);
  c.passes_per_dim = ceil_div(c.blocks_per_dim, p.grid);
  const std::int64_t rest = c.blocks_per_dim % p.grid;
  c.partial_passes = rest != 0;
  c.cb_words_per_tile_face = square(p.tile, "b^2");
  if (c.partial_passes) {
    // A pass cut to w < p columns uses w SMs to compute and the next column of SMs as its
    // east IUs (Sec. 6.1.2); likewise for rows. The fullest partial pass is a full-width
    // pass cut along one axis only (when there is more than one pass along the other).
    const std::int64_t cut = rest + 1;
    const double pp = static_cast<double>(p.grid);
    const double edge = c.passes_per_dim > 1 ? pp * static_cast<double>(cut) / (pp * pp)
                                             : static_cast<double>(cut * cut) / (pp * pp);
    c.partial_pass_max_occupancy = edge;
  }
  return c;
}

std::int64_t max_tile_for_cb(std::int64_t cb_bytes, std::int64_t word_bytes) {
  require_positive(cb_bytes, "cb_bytes");
  require_positive(word_bytes, "word_bytes");
  const std::int64_t words = cb_bytes / word_bytes;
  if (words < 1) {
    throw std::invalid_argument("cb_bytes = " + std::to_string(cb_bytes) +
                                " holds no word of " + std::to_string(word_bytes) + " bytes");
  }
  // Integer square root, exact for any int64.
  auto b = static_cast<std::int64_t>(std::sqrt(static_cast<double>(words)));
  while (b > 0 && b > words / b) --b;
  while ((b + 1) <= words / (b + 1)) ++b;
  return b;
}

std::int64_t total_cb_bytes(std::int64_t n_sms, std::int64_t n_ius, std::int64_t cb_bytes) {
  require_positive(n_sms, "n_sms");
  if (n_ius < 0) {
    throw std::invalid_argument("n_ius must be >= 0, got " + std::to_string(n_ius));
  }
  require_positive(cb_bytes, "cb_bytes");
  const std::int64_t buffers =
      checked_add(checked_mul(4, n_sms, "4 x #SMs"), n_ius, "4 x #SMs + #IUs");  // Eq. 5.1
  return checked_mul(buffers, cb_bytes, "total CB bytes");
}

GlobalSync global_sync(const Problem& p, std::int64_t extra_syncs_per_pass) {
  p.validate();
  if (p.n % p.tile != 0 || p.k % p.tile != 0) {
    throw std::invalid_argument(
        "global_sync: tile (b) = " + std::to_string(p.tile) + " must divide n (N) = " +
        std::to_string(p.n) + " and k (K) = " + std::to_string(p.k) +
        " (Algorithm 1 iterates over whole tiles)");
  }
  if (extra_syncs_per_pass < 0) {
    throw std::invalid_argument("extra_syncs_per_pass must be >= 0, got " +
                                std::to_string(extra_syncs_per_pass));
  }
  GlobalSync g;
  const std::int64_t t_ij = p.n / p.tile, t_k = p.k / p.tile;
  const std::int64_t passes = ceil_div(t_ij, p.grid);
  // Algorithm 1: t from 0 to (T_i - 1) + (T_j - 1) + (T_k - 1).
  g.syncs_per_block = checked_add(checked_mul(2, t_ij, "syncs"), t_k - 2, "syncs");
  g.useful_spills_per_viu = t_k;
  g.spills_per_viu = checked_add(g.syncs_per_block, extra_syncs_per_pass, "spills per VIU");
  // (passes - 1) internal cuts along each axis, each crossed by T_ij block columns/rows.
  g.spilling_vius = checked_mul(2 * (passes - 1), t_ij, "spilling VIUs");
  const std::int64_t lb = lower_bound(p);
  const std::int64_t face = square(p.tile, "b^2");
  auto total = [&](std::int64_t spills) {
    const std::int64_t moved = checked_mul(
        checked_mul(2, g.spilling_vius, "spill/restore words"),
        checked_mul(spills, face, "spill/restore words"), "spill/restore words");
    return checked_add(lb, moved, "off-chip accesses");
  };
  g.accesses = total(g.spills_per_viu);
  g.localized_accesses = total(g.useful_spills_per_viu);
  return g;
}

double spills_per_viu_from_accesses(const Problem& p, std::int64_t observed_accesses) {
  const GlobalSync g = global_sync(p, 0);
  if (g.spilling_vius == 0) {
    throw std::invalid_argument("spills_per_viu_from_accesses: a single pass has no spilling VIU");
  }
  const std::int64_t lb = lower_bound(p);
  if (observed_accesses < lb) {
    throw std::invalid_argument("observed_accesses = " + std::to_string(observed_accesses) +
                                " is below the lower bound " + std::to_string(lb));
  }
  const double per_spill = 2.0 * static_cast<double>(g.spilling_vius) *
                           static_cast<double>(p.tile) * static_cast<double>(p.tile);
  return static_cast<double>(observed_accesses - lb) / per_spill;
}

EnergySplit energy_split(double flops, double accesses, double e_comp_j, double e_mem_j,
                         double static_power_w, double time_s) {
  require_finite_nonnegative(flops, "flops");
  require_finite_nonnegative(accesses, "accesses");
  require_finite_nonnegative(e_comp_j, "e_comp_j");
  require_finite_nonnegative(e_mem_j, "e_mem_j");
  require_finite_nonnegative(static_power_w, "static_power_w");
  require_finite_positive(time_s, "time_s");  // a run's duration: > 0 (docs/api-conventions.md)
  EnergySplit e;
  e.compute_j = flops * e_comp_j;  // Eq. 3.5, first term
  e.memory_j = accesses * e_mem_j;  // Eq. 3.5, second term
  e.static_j = static_power_w * time_s;  // Eq. 7.1
  e.dynamic_j = e.compute_j + e.memory_j;
  e.total_j = e.dynamic_j + e.static_j;
  if (!std::isfinite(e.total_j)) {
    throw std::overflow_error("energy_split: total energy is not finite (inputs too large)");
  }
  return e;
}

double energy_mj_from_cycles(double cycles, double power_w, double frequency_mhz) {
  require_finite_nonnegative(cycles, "cycles");
  require_finite_nonnegative(power_w, "power_w");
  require_finite_positive(frequency_mhz, "frequency_mhz");
  const double e = cycles * power_w / (frequency_mhz * 1000.0);  // Eq. 6.1
  if (!std::isfinite(e)) {
    throw std::overflow_error("energy_mj_from_cycles: energy is not finite (inputs too large)");
  }
  return e;
}

double break_even_static_power_w(double accesses_gpu, double accesses_spu, double e_mem_j,
                                 double static_power_gpu_w, double time_gpu_s,
                                 double time_spu_s) {
  require_finite_nonnegative(accesses_gpu, "accesses_gpu");
  require_finite_nonnegative(accesses_spu, "accesses_spu");
  require_finite_nonnegative(e_mem_j, "e_mem_j");
  require_finite_nonnegative(static_power_gpu_w, "static_power_gpu_w");
  require_finite_positive(time_gpu_s, "time_gpu_s");
  require_finite_positive(time_spu_s, "time_spu_s");
  const double p =
      ((accesses_gpu - accesses_spu) * e_mem_j + static_power_gpu_w * time_gpu_s) / time_spu_s;
  if (!std::isfinite(p)) {
    throw std::overflow_error("break_even_static_power_w: result is not finite");
  }
  if (p < 0) {
    throw std::domain_error(
        "break_even_static_power_w: no static power >= 0 breaks even (the SPU spends more "
        "memory energy than the GPU's whole memory and static energy)");
  }
  return p;
}

double relative_change(double value, double reference) {
  if (!std::isfinite(value)) {
    throw std::invalid_argument("value must be finite, got " + format_value(value));
  }
  require_finite_positive(reference, "reference");
  const double r = (value - reference) / reference;
  if (!std::isfinite(r)) {
    throw std::overflow_error("relative_change: result is not finite (value = " +
                              format_value(value) + ", reference = " + format_value(reference) +
                              ")");
  }
  return r;
}

}  // namespace costmetrics::spu

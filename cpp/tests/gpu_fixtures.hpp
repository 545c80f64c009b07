// GPU parameters shared by the time-model tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "costmetrics/codesign.hpp"
#include "costmetrics/time.hpp"

namespace cm_test {

// GTX 980, Tables A.2-A.3 of thesis 000: 96 KB / SM = 24576 words, 48 KB / block = 12288
// words, L = 7.36e-3 s/GB * 4e-9 GB/word = 2.944e-11 s/word.
inline costmetrics::time::GpuParams gtx980() {
  costmetrics::time::GpuParams g;
  g.n_sm = 16;
  g.n_v = 128;
  g.smem_per_sm_words = 24576;
  g.smem_per_block_words = 12288;
  g.max_blocks_per_sm = 32;
  g.l_s_per_word = 7.36e-3 * 4e-9;
  g.tau_sync_s = 7.96e-10;
  g.t_sync_s = 9.24e-7;
  return g;
}

// The same GTX 980's machine-wide parameters in the codesign search's form (the area
// model chooses n_SM, n_V and M_SM).
inline costmetrics::codesign::MachineParams gtx980_machine() {
  const costmetrics::time::GpuParams g = gtx980();
  costmetrics::codesign::MachineParams m;
  m.l_s_per_word = g.l_s_per_word;
  m.tau_sync_s = g.tau_sync_s;
  m.t_sync_s = g.t_sync_s;
  m.max_blocks_per_sm = g.max_blocks_per_sm;
  return m;
}

// Every `every`-th point of `space` (dims space sizes, then tT) as the row-major tile array
// of evaluate_batch.
inline std::vector<std::int64_t> space_tiles(const costmetrics::time::SearchSpace& space,
                                             int dims, std::size_t every = 1) {
  std::vector<std::int64_t> tiles;
  for (std::size_t i = 0; i < space.size(); i += every) {
    const costmetrics::time::TileSizes t = space.point(i);
    for (int d = 0; d < dims; ++d) tiles.push_back(t.space[static_cast<std::size_t>(d)]);
    tiles.push_back(t.time);
  }
  return tiles;
}

// T_alg of evaluate_batch over the row-major tiles (dims + 1 integers each), with each
// row's reason mask in `reasons` (0: feasible).
inline std::vector<double> batch_talg(const costmetrics::time::GpuParams& gpu,
                                      const costmetrics::time::StencilParams& stencil,
                                      const costmetrics::time::ProblemSize& size,
                                      const std::vector<std::int64_t>& tiles,
                                      costmetrics::time::Variant variant, int threads,
                                      std::vector<std::uint32_t>& reasons) {
  const std::size_t n = tiles.size() / static_cast<std::size_t>(stencil.n_space_dims + 1);
  std::vector<double> talg(n);
  reasons.assign(n, 0);
  costmetrics::time::BatchOutputs out;
  out.talg_s = talg.data();
  out.reasons = reasons.data();
  costmetrics::time::evaluate_batch(gpu, stencil, size, tiles.data(), n, variant, out, threads);
  return talg;
}

}  // namespace cm_test

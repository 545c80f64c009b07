// Internals of the codesign sweep exposed for the C++ tests only (not part of the API).
#pragma once

#include <cstdint>

#include "costmetrics/codesign.hpp"

namespace costmetrics {
namespace codesign {
namespace detail {

// Soundness audit of the `exact` variant's lower bounds (docs/codesign.md, "Exact
// pruning"): for one design and instance, every feasible tile is evaluated, and the largest
// bound that covers it (its group's bounds, the tile's two stages) is compared with its
// T_alg. A violation is a bound that would prune the tile even if its T_alg were the
// incumbent (bound (1 - 1e-12) > T_alg).
struct BoundAudit {
  std::int64_t tiles = 0;       // tiles evaluated (every feasible tile)
  std::int64_t violations = 0;  // tiles whose bound exceeds their T_alg beyond the margin
  double worst_ratio = 0;       // max over tiles of bound / T_alg (<= 1 when sound)
  double optimum_s = 0;         // min over tiles of T_alg (the search's result)
  double bound = 0;             // scratch: the bound of the tile being evaluated
};

BoundAudit audit_exact_bounds(const Design& d, const Instance& in, const MachineParams& m,
                              const SweepOptions& options);

}  // namespace detail
}  // namespace codesign
}  // namespace costmetrics

// Internal: the `exact` variant of the execution-time model (docs/time-model.md, "Exact
// variant"). Declared apart from time.hpp because it is an implementation detail of
// time_model::evaluate_unchecked(); tests include it to compare against brute force.
#pragma once

#include "costmetrics/time.hpp"

namespace costmetrics {
namespace time_model {
namespace detail {

// T_alg and its breakdown for a gap-free hexagonal tiling with exact point counts.
// Preconditions: inputs validated, tiles feasible.
Breakdown evaluate_exact(const GpuParams& gpu, const StencilParams& stencil,
                         const ProblemSize& size, const TileSizes& tiles);

}  // namespace detail
}  // namespace time_model
}  // namespace costmetrics

// Internal: the `exact` variant of the execution-time model (docs/time-model.md, "Exact
// variant"). Declared apart from time.hpp because it is an implementation detail of
// time_model::evaluate_unchecked(); tests include it to compare against brute force.
#pragma once

#include "costmetrics/time.hpp"

namespace costmetrics {
namespace time_model {
namespace detail {

// How evaluate_exact walks the rows. `fast` (the default) uses, when S1 >= 2 P - 1, the
// closed-form row widths, the per-evaluation row tables and the reuse of equal wavefronts;
// `general` always walks every row of every wavefront. Both give the same numbers; the
// tests compare them.
enum class ExactPath { fast, general };

// T_alg and its breakdown for a gap-free hexagonal tiling with exact point counts.
// Preconditions: inputs validated, tiles feasible.
Breakdown evaluate_exact(const GpuParams& gpu, const StencilParams& stencil,
                         const ProblemSize& size, const TileSizes& tiles,
                         ExactPath path = ExactPath::fast);

}  // namespace detail
}  // namespace time_model
}  // namespace costmetrics

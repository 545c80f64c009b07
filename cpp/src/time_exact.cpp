// PLACEHOLDER, being replaced by the exact-variant implementation.
#include "time_exact.hpp"

#include <stdexcept>

namespace costmetrics {
namespace time_model {
namespace detail {

Breakdown evaluate_exact(const GpuParams&, const StencilParams&, const ProblemSize&,
                         const TileSizes&) {
  throw std::logic_error("variant='exact' is not implemented yet");
}

}  // namespace detail
}  // namespace time_model
}  // namespace costmetrics

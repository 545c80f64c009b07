// Generic exhaustive search over a tile space: one routine, any objective.
//
// The time model minimizes T_alg (Eq. A.32), the energy model E_alg (Eq. B.7); both
// evaluate every feasible point of a Cartesian product of candidate tile sizes and keep the
// argmin and the near-optimal set (points within a fraction of the best, Sec. A.6.3). This
// header holds that loop once; each model supplies its feasibility test and objective.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "costmetrics/checked.hpp"
#include "costmetrics/parallel.hpp"

namespace costmetrics {
namespace search {

namespace detail {
struct WalkProbe {
  template <typename I, typename P>
  void operator()(I, const P&) const {}
};
// Whether a space has walk(f): f(index, point) for every point in index order.
template <typename S, typename = void>
struct has_walk : std::false_type {};
template <typename S>
struct has_walk<S, std::void_t<decltype(std::declval<const S&>().walk(WalkProbe{}))>>
    : std::true_type {};
}  // namespace detail

// Outcome of exhaustive_search over a space whose points have type Point.
template <typename Point>
struct Outcome {
  Point best{};                             // first minimum in index order
  double best_value = 0;                    // objective at `best`
  std::vector<Point> near_optimal;          // every feasible point with value <= cutoff
  std::vector<double> near_optimal_values;  // ascending (stable: ties keep index order)
  std::size_t n_points = 0;                 // size of the space
  std::size_t n_feasible = 0;               // feasible points evaluated
};

// Evaluates `objective(point)` at every point of `space` (anything with size() and
// point(index)) for which `feasible(point)` is true; the objective runs on
// `n_threads` threads (0: all cores), in chunks of at least `min_per_thread` points.
//
// The objective must return a finite value >= 0 (a time, an energy). The near-optimal
// set holds the points with value <= best * (1 + within), sorted ascending; ties in the
// minimum resolve to the lowest index. Throws std::invalid_argument when `within` is not
// a finite fraction >= 0, when no point is feasible, or when the objective returns a
// negative or non-finite value.
//
// exhaustive_search_per_chunk is the same search with `make_objective(begin, end)` called
// once per chunk of the feasible points (one thread's share, `end - begin` points) to give
// that chunk's objective: an objective that keeps state between points (caches shared by
// neighbouring tiles) gets one instance per thread.
template <typename Space, typename Feasible, typename MakeObjective>
auto exhaustive_search_per_chunk(const Space& space, Feasible&& feasible,
                                 MakeObjective&& make_objective, double within,
                                 int n_threads = 0, std::size_t min_per_thread = 512)
    -> Outcome<std::decay_t<decltype(space.point(std::size_t{0}))>> {
  using Point = std::decay_t<decltype(space.point(std::size_t{0}))>;
  if (!(within >= 0) || !std::isfinite(within)) {
    throw std::invalid_argument("within: must be a finite fraction >= 0, got " +
                                format_value(within));
  }
  const std::size_t n = space.size();
  // Feasibility is cheap and often concentrated in one corner of the space (small tiles),
  // so filter first and spread only the feasible points over the threads.
  std::vector<std::size_t> indices;
  if constexpr (detail::has_walk<Space>::value) {  // the same points, without point(i)
    space.walk([&](std::size_t i, const Point& p) {
      if (feasible(p)) indices.push_back(i);
    });
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      if (feasible(space.point(i))) indices.push_back(i);
    }
  }
  Outcome<Point> r;
  r.n_points = n;
  r.n_feasible = indices.size();
  if (indices.empty()) throw std::invalid_argument("no feasible tile in the search space");

  std::vector<double> values(indices.size());
  parallel_for_chunks(
      indices.size(),
      [&](std::size_t begin, std::size_t end, std::size_t) {
        auto objective = make_objective(begin, end);
        for (std::size_t j = begin; j < end; ++j) values[j] = objective(space.point(indices[j]));
      },
      n_threads, min_per_thread);
  for (double v : values) {
    if (!(v >= 0) || !std::isfinite(v)) {
      throw std::invalid_argument("search objective must be finite and >= 0 at every feasible point");
    }
  }

  const std::size_t best =
      static_cast<std::size_t>(std::min_element(values.begin(), values.end()) - values.begin());
  r.best = space.point(indices[best]);
  r.best_value = values[best];
  const double cutoff = r.best_value * (1.0 + within);
  std::vector<std::size_t> near;
  for (std::size_t j = 0; j < values.size(); ++j) {
    if (values[j] <= cutoff) near.push_back(j);
  }
  std::stable_sort(near.begin(), near.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  r.near_optimal.reserve(near.size());
  r.near_optimal_values.reserve(near.size());
  for (std::size_t j : near) {
    r.near_optimal.push_back(space.point(indices[j]));
    r.near_optimal_values.push_back(values[j]);
  }
  return r;
}

// One objective for every point, stateless or safe to call from several threads.
template <typename Space, typename Feasible, typename Objective>
auto exhaustive_search(const Space& space, Feasible&& feasible, Objective&& objective,
                       double within, int n_threads = 0, std::size_t min_per_thread = 512)
    -> Outcome<std::decay_t<decltype(space.point(std::size_t{0}))>> {
  return exhaustive_search_per_chunk(
      space, std::forward<Feasible>(feasible),
      [&objective](std::size_t, std::size_t) { return std::ref(objective); }, within,
      n_threads, min_per_thread);
}

}  // namespace search
}  // namespace costmetrics

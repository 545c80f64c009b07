// A small static-partition parallel loop over an index range, on std::thread.
// Used where the work is large (tile-space searches, batches of chains); below
// `min_per_thread` items it runs inline, because thread start-up costs ~10-50 us.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace costmetrics {

// Number of worker threads to use: `requested` if > 0, else the hardware concurrency.
inline unsigned resolve_threads(int requested) {
  if (requested > 0) return static_cast<unsigned>(requested);
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1U : hw;
}

// Calls body(begin, end, thread_index) on disjoint chunks covering [0, n).
// The first exception thrown by any chunk is rethrown in the caller.
template <typename Body>
void parallel_for_chunks(std::size_t n, Body&& body, int requested_threads = 0,
                         std::size_t min_per_thread = 256) {
  const std::size_t max_useful = std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_per_thread));
  const std::size_t n_threads =
      std::min<std::size_t>(resolve_threads(requested_threads), max_useful);
  if (n_threads <= 1) {
    body(std::size_t{0}, n, std::size_t{0});
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(n_threads);
  std::exception_ptr first_error;
  std::mutex error_mutex;
  const std::size_t chunk = (n + n_threads - 1) / n_threads;
  for (std::size_t t = 0; t < n_threads; ++t) {
    const std::size_t begin = t * chunk;
    const std::size_t end = std::min(n, begin + chunk);
    if (begin >= end) break;
    workers.emplace_back([&, begin, end, t] {
      try {
        body(begin, end, t);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace costmetrics

// Unit tests for the scratchpad data-movement model (seed 004, Sections 3 and 4.3).
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.hpp"
#include "costmetrics/scratchpad.hpp"

using namespace costmetrics::scratchpad;

namespace {

Reference ref(const std::string& array, bool write, std::vector<std::vector<std::int64_t>> coeffs,
              std::vector<std::int64_t> offsets) {
  Reference r;
  r.array = array;
  r.write = write;
  r.coeffs = std::move(coeffs);
  r.offsets = std::move(offsets);
  return r;
}

// 004 Fig. 1: S1 (i, j in 10..14): A[i][j+1] = A[i+j][j+1]*3;
//             S2 (.. k in 11..20): B[i][j+k] = A[i][k] + B[i+j][k];
std::vector<Statement> figure1() {
  Statement s1;
  s1.lower = {10, 10};
  s1.upper = {14, 14};
  s1.refs = {ref("A", true, {{1, 0}, {0, 1}}, {0, 1}), ref("A", false, {{1, 1}, {0, 1}}, {0, 1})};
  Statement s2;
  s2.lower = {10, 10, 11};
  s2.upper = {14, 14, 20};
  s2.refs = {ref("B", true, {{1, 0, 0}, {0, 1, 1}}, {0, 0}),
             ref("A", false, {{1, 0, 0}, {0, 0, 1}}, {0, 0}),
             ref("B", false, {{1, 1, 0}, {0, 0, 1}}, {0, 0})};
  return {s1, s2};
}

void test_figure1_per_array() {
  const auto las = local_arrays(figure1(), Reading::per_array);
  CHECK(las.size() == 2);
  // LA: rows 10..28 (i and i+j), cols 11..20 (j+1 and k): LA[19][10].
  CHECK(las[0].array == "A");
  CHECK((las[0].lower == std::vector<std::int64_t>{10, 11}));
  CHECK((las[0].extents == std::vector<std::int64_t>{19, 10}));
  CHECK(las[0].size_words == 190);
  // Move in: A[i][k] is 5 x 10 = 50, A[i+j][j+1] has 25 distinct elements in a 9 x 5 box:
  // exact 75 (the two printed move-in loops), bound 50 + 45 = 95. Move out: 5 x 5 = 25.
  CHECK(las[0].move_in_exact_words == 75);
  CHECK(las[0].move_in_bound_words == 95);
  CHECK(las[0].move_out_exact_words == 25 && las[0].move_out_bound_words == 25);
  // LB: rows 10..28, cols 11..34: LB[19][24]; in 9 x 10 = 90, out 5 x 14 = 70.
  CHECK(las[1].array == "B");
  CHECK((las[1].extents == std::vector<std::int64_t>{19, 24}));
  CHECK(las[1].size_words == 456);
  CHECK(las[1].move_in_exact_words == 90 && las[1].move_in_bound_words == 90);
  CHECK(las[1].move_out_exact_words == 70 && las[1].move_out_bound_words == 70);
}

void test_figure1_per_partition() {
  const auto las = local_arrays(figure1(), Reading::per_partition);
  CHECK(las.size() == 4);
  CHECK((las[0].extents == std::vector<std::int64_t>{5, 10}));  // A[i][j+1] with A[i][k]
  CHECK((las[1].extents == std::vector<std::int64_t>{9, 5}));   // A[i+j][j+1]
  CHECK((las[2].extents == std::vector<std::int64_t>{5, 14}));  // B[i][j+k]
  CHECK((las[3].extents == std::vector<std::int64_t>{9, 10}));  // B[i+j][k]
}

void test_movement_cost() {
  // C = N ((P S) + V L / P) = 10 * (4 * 2 + 100 * 0.5 / 4) = 10 * 20.5 = 205.
  CHECK_CLOSE(movement_cost(10, 4, 2, 100, 0.5), 205.0, 1e-15);
  CHECK_THROWS(movement_cost(10, 0, 2, 100, 0.5), std::invalid_argument);
}

TileProblem toy() {
  // One loop of 100 iterations, X[i] read, Y[i] written, P = S = L = 1, M_up = 40:
  // cost = 2 (100/t)(1 + t) = 200/t + 200, memory 2 t <= 40 -> t* = 20, cost 210.
  TileProblem p;
  p.extents = {100};
  p.refs = {ref("X", false, {{1}}, {0}), ref("Y", true, {{1}}, {0})};
  p.processes = 1;
  p.sync_cost = 1;
  p.cost_per_word = 1;
  p.memory_limit_words = 40;
  return p;
}

void test_toy_search() {
  const TileSearchResult r = integer_optimum(toy());
  CHECK(r.found);
  CHECK((r.tiles == std::vector<std::int64_t>{20}));
  CHECK_CLOSE(r.cost, 210.0, 1e-15);
  CHECK(r.memory_words == 40.0);
  CHECK_CLOSE(evaluate_tiles(toy(), {12.5}).cost, 200.0 / 12.5 * 1 + 200.0, 1e-15);
}

// A 2-D problem with a halo, checked against plain enumeration of every tile vector.
TileProblem halo2d() {
  TileProblem p;
  p.extents = {40, 30};
  p.refs = {ref("u", false, {{1, 0}, {0, 1}}, {-1, 0}), ref("u", false, {{1, 0}, {0, 1}}, {1, 0}),
            ref("u", false, {{1, 0}, {0, 1}}, {0, 2}), ref("v", true, {{1, 0}, {0, 1}}, {0, 0}),
            ref("w", false, {{0, 0}, {0, 1}}, {0, 0})};
  p.processes = 8;
  p.sync_cost = 3;
  p.cost_per_word = 2;
  p.memory_limit_words = 300;
  return p;
}

void test_search_matches_enumeration() {
  const TileProblem p = halo2d();
  double best = 1e300;
  std::vector<std::int64_t> arg;
  for (std::int64_t a = 1; a <= 40; ++a) {
    for (std::int64_t b = 1; b <= 30; ++b) {
      const TileEvaluation e =
          evaluate_tiles(p, {static_cast<double>(a), static_cast<double>(b)});
      if (e.feasible && e.cost < best) {
        best = e.cost;
        arg = {a, b};
      }
    }
  }
  for (int threads : {1, 2}) {
    const TileSearchResult r = integer_optimum(p, 50'000'000, threads);
    CHECK(r.found);
    CHECK(r.tiles == arg);
    CHECK(r.cost == best);
  }
  // Restricted to powers of two, against enumeration over the same values.
  const std::vector<std::vector<std::int64_t>> pow2{{1, 2, 4, 8, 16, 32}, {1, 2, 4, 8, 16}};
  double best2 = 1e300;
  std::vector<std::int64_t> arg2;
  for (std::int64_t a : pow2[0]) {
    for (std::int64_t b : pow2[1]) {
      const TileEvaluation e = evaluate_tiles(p, {static_cast<double>(a), static_cast<double>(b)});
      if (e.feasible && e.cost < best2) {
        best2 = e.cost;
        arg2 = {a, b};
      }
    }
  }
  const TileSearchResult r2 = integer_optimum(p, 50'000'000, 1, pow2);
  CHECK(r2.tiles == arg2 && r2.cost == best2);
  CHECK_THROWS(integer_optimum(p, 1000, 1, {{1, 2}}), std::invalid_argument);
  CHECK_THROWS(integer_optimum(p, 1000, 1, {{2, 1}, {1}}), std::invalid_argument);
  // u at (t1, t2) = (4, 5): rows -1..4 (6), cols 0..6 (7) -> 42 words; v 20; w 5 (cols 0..4).
  const auto arrays = tile_arrays(p, {4, 5});
  CHECK(arrays[0].size_words == 42.0 && arrays[1].size_words == 20.0);
  CHECK(arrays[2].size_words == 5.0);
  CHECK(arrays[2].placement == 2 && arrays[0].placement == 2);
}

// The search's own evaluator (TileEvaluator) against evaluate_tiles over every tile vector
// of random problems: several arrays of 1-4 references each, reads and writes, negative and
// zero coefficients, boxes that overlap or not, ceil occurrences, candidate lists. The
// optimum, its cost and memory bit for bit, and the count of feasible vectors (memory only
// grows with a tile size, so the search's pruning drops no feasible vector).
void test_search_matches_enumeration_on_random_problems() {
  std::mt19937_64 rng(20261130);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  // The last problems are large enough (over 16,384 vectors) for the search's threads.
  const int small = cm_test::kSanitized ? 40 : 300, large = cm_test::kSanitized ? 2 : 16;
  for (int trial = 0; trial < small + large; ++trial) {
    TileProblem p;
    const bool is_large = trial >= small;
    const std::size_t m = static_cast<std::size_t>(uniform(is_large ? 2 : 1, 3));
    for (std::size_t l = 0; l < m; ++l) {
      p.extents.push_back(is_large ? (m == 3 ? uniform(26, 40) : uniform(130, 220))
                                   : uniform(1, m == 3 ? 9 : 16));
    }
    const int arrays = static_cast<int>(uniform(1, 3));
    for (int a = 0; a < arrays; ++a) {
      const std::size_t dims = static_cast<std::size_t>(uniform(1, 2));
      const int refs = static_cast<int>(uniform(1, 4));
      for (int r = 0; r < refs; ++r) {
        std::vector<std::vector<std::int64_t>> coeffs(dims, std::vector<std::int64_t>(m));
        std::vector<std::int64_t> offsets(dims);
        for (std::size_t d = 0; d < dims; ++d) {
          for (std::size_t l = 0; l < m; ++l) {
            const std::int64_t u = uniform(0, 9);
            coeffs[d][l] = u < 4 ? 0 : u < 7 ? 1 : u < 8 ? -1 : 2;
          }
          offsets[d] = uniform(-6, 6);
        }
        p.refs.push_back(ref("a" + std::to_string(a), uniform(0, 2) == 0, coeffs, offsets));
      }
    }
    p.processes = static_cast<double>(uniform(1, 8)) * (uniform(0, 1) == 0 ? 1.0 : 1.5);
    p.sync_cost = static_cast<double>(uniform(0, 6)) * 0.5;
    p.cost_per_word = static_cast<double>(uniform(0, 4)) * 0.75;
    p.memory_limit_words = static_cast<double>(uniform(1, is_large ? 4000 : 400));
    p.ceil_occurrences = uniform(0, 1) == 1;
    std::vector<std::vector<std::int64_t>> candidates;
    if (uniform(0, 3) == 0) {
      for (std::size_t l = 0; l < m; ++l) {
        std::vector<std::int64_t> values;
        for (std::int64_t v = 1; v <= p.extents[l]; ++v) {
          if (v == 1 || uniform(0, 2) == 0) values.push_back(v);
        }
        candidates.push_back(values);
      }
    }
    auto values_of = [&](std::size_t l) {
      if (!candidates.empty()) return candidates[l];
      std::vector<std::int64_t> all;
      for (std::int64_t v = 1; v <= p.extents[l]; ++v) all.push_back(v);
      return all;
    };
    // Every tile vector in lexicographic order: the first of the least cost wins ties.
    bool found = false;
    double best_cost = 0.0, best_memory = 0.0;
    std::vector<std::int64_t> best_tiles;
    std::int64_t feasible = 0;
    std::vector<std::vector<std::int64_t>> lists;
    for (std::size_t l = 0; l < m; ++l) lists.push_back(values_of(l));
    std::vector<std::size_t> idx(m, 0);
    while (true) {
      std::vector<double> t(m);
      std::vector<std::int64_t> ti(m);
      for (std::size_t l = 0; l < m; ++l) {
        ti[l] = lists[l][idx[l]];
        t[l] = static_cast<double>(ti[l]);
      }
      const TileEvaluation e = evaluate_tiles(p, t);
      if (e.feasible) {
        ++feasible;
        if (!found || e.cost < best_cost) {
          found = true;
          best_cost = e.cost;
          best_memory = e.memory_words;
          best_tiles = ti;
        }
      }
      std::size_t l = m;
      while (l > 0 && ++idx[l - 1] == lists[l - 1].size()) idx[--l] = 0;
      if (l == 0) break;
    }
    std::int64_t visited_one_thread = -1;
    for (int threads : {1, 2, 3}) {
      const TileSearchResult r = integer_optimum(p, 50'000'000, threads, candidates);
      CHECK(r.found == found);
      CHECK(r.feasible_points == feasible);
      // The count of vectors visited does not depend on the thread count.
      if (threads == 1) visited_one_thread = r.points_visited;
      CHECK(r.points_visited == visited_one_thread && r.points_visited >= feasible);
      if (found && r.found) {
        CHECK(r.tiles == best_tiles);
        CHECK(r.cost == best_cost);
        CHECK(r.memory_words == best_memory);
      }
    }
  }
}

// The message of the std::invalid_argument `f` throws ("" when it throws none).
template <typename F>
std::string invalid_argument_message(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// TileProblem::validate names the field of each failure (the names are built only on
// failure, since evaluate_tiles validates its problem on every call).
void test_problem_messages_name_the_field() {
  auto bad = [](auto change) {
    TileProblem p = halo2d();
    change(p);
    return invalid_argument_message([&] { evaluate_tiles(p, {2.0, 2.0}); });
  };
  CHECK(bad([](TileProblem& p) { p.extents[1] = 0; }) == "extents[1]: must be positive, got 0");
  CHECK(bad([](TileProblem& p) { p.refs[2].coeffs[0] = {1, 0, 0}; }) ==
        "refs[2].coeffs[0]: 3 coefficients for 2 loops");
  CHECK(bad([](TileProblem& p) { p.refs[1].offsets = {0}; }) ==
        "refs[1].offsets: 1 offsets for 2 subscripts");
  CHECK(bad([](TileProblem& p) { p.refs[3].array = ""; }) == "refs[3].array: empty name");
  CHECK(bad([](TileProblem& p) { p.refs[2].coeffs[1][0] = (std::int64_t{1} << 31) + 1; }) ==
        "refs[2].coeffs[1][0] = 2147483649 is outside [-2^31, 2^31]");
  CHECK(bad([](TileProblem& p) {
          p.refs[2].coeffs = {{1, 0}};
          p.refs[2].offsets = {0};
        }) == "refs[2]: array u has 2 subscripts elsewhere");
  CHECK(bad([](TileProblem&) {}).empty());
  // A statement's references are named after the statement.
  auto statements = figure1();
  statements[1].refs[2].offsets = {0};
  CHECK(invalid_argument_message([&] { local_arrays(statements, Reading::per_array); }) ==
        "statements[1].refs[2].offsets: 1 offsets for 2 subscripts");
}

void test_bad_input() {
  TileProblem p = toy();
  CHECK_THROWS(evaluate_tiles(p, {0.5}), std::invalid_argument);
  CHECK_THROWS(evaluate_tiles(p, {1.0, 2.0}), std::invalid_argument);
  p.memory_limit_words = -1;
  CHECK_THROWS(integer_optimum(p), std::invalid_argument);
  p = toy();
  p.extents = {1'000'000'000};
  p.memory_limit_words = 1e12;
  CHECK_THROWS(integer_optimum(p, 1000), std::overflow_error);
  auto big = figure1();
  big[1].upper = {100000, 100000, 100000};
  CHECK_THROWS(local_arrays(big, Reading::per_array), std::overflow_error);
  auto bad = figure1();
  bad[0].refs[0].offsets = {0};
  CHECK_THROWS(local_arrays(bad, Reading::per_array), std::invalid_argument);
}

}  // namespace

int main() {
  test_figure1_per_array();
  test_figure1_per_partition();
  test_movement_cost();
  test_toy_search();
  test_search_matches_enumeration();
  test_search_matches_enumeration_on_random_problems();
  test_problem_messages_name_the_field();
  test_bad_input();
  return cm_test::report("scratchpad");
}

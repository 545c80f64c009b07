// Bindings of the scratchpad data-movement model (costmetrics/scratchpad.hpp) as
// _core.scratchpad.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/scratchpad.hpp"

namespace sp = costmetrics::scratchpad;
using costmetrics::bindings::bind_record;

namespace {

sp::Reading parse_reading(const std::string& name) {
  if (name == "per_array") return sp::Reading::per_array;
  if (name == "per_partition") return sp::Reading::per_partition;
  throw py::value_error("reading must be 'per_array' or 'per_partition', got '" + name + "'");
}

}  // namespace

void register_scratchpad(py::module_& m) {
  auto s = m.def_submodule(
      "scratchpad", "Scratchpad data movement and tile-size search (Baskaran et al., PPoPP 2008)");

  bind_record<sp::Reference>(s, "Reference", "One affine array reference");
  bind_record<sp::Statement>(s, "Statement", "A statement: constant loop bounds and references");
  bind_record<sp::TileProblem>(s, "TileProblem", "The tile-size problem of Section 4.3");

  bind_record<sp::LocalArray>(s, "LocalArray", "A local-memory array (Algorithm 2)");
  bind_record<sp::TileArray>(s, "TileArray", "One local array of a tile at given tile sizes");
  bind_record<sp::TileEvaluation>(s, "TileEvaluation", "Objective and constraints at tile sizes");
  bind_record<sp::TileSearchResult>(s, "TileSearchResult", "Exact integer optimum");
  s.attr("MAX_CANDIDATES_PER_LOOP") = sp::kMaxCandidatesPerLoop;
  s.attr("MAX_ENUMERATION_POINTS") = sp::kMaxEnumerationPoints;
  s.attr("MAX_TILE_VECTORS") = sp::kMaxTileVectors;

  costmetrics::bindings::def_function(s, "movement_cost", &sp::movement_cost, py::arg("occurrences"), py::arg("processes"),
        py::arg("sync_cost"), py::arg("volume_words"), py::arg("cost_per_word"));
  costmetrics::bindings::def_function(
      s, "local_arrays",
      +[](const std::vector<sp::Statement>& statements, const std::string& reading,
         std::int64_t max_points) {
        const sp::Reading r = parse_reading(reading);
        py::gil_scoped_release release;
        return sp::local_arrays(statements, r, max_points);
      },
      py::arg("statements"), py::arg("reading") = "per_array",
      py::arg("max_points") = std::int64_t{1} << 24);
  costmetrics::bindings::def_function(s, "evaluate_tiles", &sp::evaluate_tiles, py::arg("problem"), py::arg("tiles"));
  costmetrics::bindings::def_function(s, "tile_arrays", &sp::tile_arrays, py::arg("problem"), py::arg("tiles"));
  costmetrics::bindings::def_function(
      s, "integer_optimum",
      +[](const sp::TileProblem& problem, std::int64_t max_points, int threads,
         const std::vector<std::vector<std::int64_t>>& candidates) {
        py::gil_scoped_release release;
        return sp::integer_optimum(problem, max_points, threads, candidates);
      },
      py::arg("problem"), py::arg("max_points") = 50'000'000, py::arg("threads") = 0,
      py::arg("candidates") = std::vector<std::vector<std::int64_t>>{});
}

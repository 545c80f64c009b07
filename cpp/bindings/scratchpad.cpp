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

  py::class_<sp::Reference>(s, "Reference", "One affine array reference")
      .def(py::init([](const std::string& array, bool write,
                       const std::vector<std::vector<std::int64_t>>& coeffs,
                       const std::vector<std::int64_t>& offsets) {
             sp::Reference r;
             r.array = array;
             r.write = write;
             r.coeffs = coeffs;
             r.offsets = offsets;
             return r;
           }),
           py::kw_only(), py::arg("array"), py::arg("write"), py::arg("coeffs"),
           py::arg("offsets"))
      .def_readonly("array", &sp::Reference::array)
      .def_readonly("write", &sp::Reference::write)
      .def_readonly("coeffs", &sp::Reference::coeffs)
      .def_readonly("offsets", &sp::Reference::offsets);

  py::class_<sp::Statement>(s, "Statement", "A statement: constant loop bounds and references")
      .def(py::init([](const std::vector<std::int64_t>& lower,
                       const std::vector<std::int64_t>& upper,
                       const std::vector<sp::Reference>& refs) {
             sp::Statement st;
             st.lower = lower;
             st.upper = upper;
             st.refs = refs;
             st.validate();
             return st;
           }),
           py::kw_only(), py::arg("lower"), py::arg("upper"), py::arg("refs"))
      .def_readonly("lower", &sp::Statement::lower)
      .def_readonly("upper", &sp::Statement::upper)
      .def_readonly("refs", &sp::Statement::refs);

  py::class_<sp::TileProblem>(s, "TileProblem", "The tile-size problem of Section 4.3")
      .def(py::init([](const std::vector<std::int64_t>& extents,
                       const std::vector<sp::Reference>& refs, double processes,
                       double sync_cost, double cost_per_word, double memory_limit_words,
                       bool ceil_occurrences) {
             sp::TileProblem p;
             p.extents = extents;
             p.refs = refs;
             p.processes = processes;
             p.sync_cost = sync_cost;
             p.cost_per_word = cost_per_word;
             p.memory_limit_words = memory_limit_words;
             p.ceil_occurrences = ceil_occurrences;
             p.validate();
             return p;
           }),
           py::kw_only(), py::arg("extents"), py::arg("refs"), py::arg("processes"),
           py::arg("sync_cost"), py::arg("cost_per_word"), py::arg("memory_limit_words"),
           py::arg("ceil_occurrences") = false)
      .def_readonly("extents", &sp::TileProblem::extents)
      .def_readonly("refs", &sp::TileProblem::refs)
      .def_readonly("processes", &sp::TileProblem::processes)
      .def_readonly("sync_cost", &sp::TileProblem::sync_cost)
      .def_readonly("cost_per_word", &sp::TileProblem::cost_per_word)
      .def_readonly("memory_limit_words", &sp::TileProblem::memory_limit_words)
      .def_readonly("ceil_occurrences", &sp::TileProblem::ceil_occurrences);

  bind_record<sp::LocalArray>(s, "LocalArray", "A local-memory array (Algorithm 2)");
  bind_record<sp::TileArray>(s, "TileArray", "One local array of a tile at given tile sizes");
  bind_record<sp::TileEvaluation>(s, "TileEvaluation", "Objective and constraints at tile sizes");
  bind_record<sp::TileSearchResult>(s, "TileSearchResult", "Exact integer optimum");

  s.def("movement_cost", &sp::movement_cost, py::arg("occurrences"), py::arg("processes"),
        py::arg("sync_cost"), py::arg("volume_words"), py::arg("cost_per_word"));
  s.def(
      "local_arrays",
      [](const std::vector<sp::Statement>& statements, const std::string& reading,
         std::int64_t max_points) {
        const sp::Reading r = parse_reading(reading);
        py::gil_scoped_release release;
        return sp::local_arrays(statements, r, max_points);
      },
      py::arg("statements"), py::arg("reading") = "per_array",
      py::arg("max_points") = std::int64_t{1} << 24);
  s.def("evaluate_tiles", &sp::evaluate_tiles, py::arg("problem"), py::arg("tiles"));
  s.def("tile_arrays", &sp::tile_arrays, py::arg("problem"), py::arg("tiles"));
  s.def(
      "integer_optimum",
      [](const sp::TileProblem& problem, std::int64_t max_points, int threads,
         const std::vector<std::vector<std::int64_t>>& candidates) {
        py::gil_scoped_release release;
        return sp::integer_optimum(problem, max_points, threads, candidates);
      },
      py::arg("problem"), py::arg("max_points") = 50'000'000, py::arg("threads") = 0,
      py::arg("candidates") = std::vector<std::vector<std::int64_t>>{});
}

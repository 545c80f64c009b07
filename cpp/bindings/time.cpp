// Bindings of the execution-time model (costmetrics/time.hpp) as _core.time.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/time.hpp"

namespace tmod = costmetrics::time_model;

namespace {

tmod::Variant parse_variant(const std::string& name) {
  if (name == "paper") return tmod::Variant::paper;
  if (name == "exact") return tmod::Variant::exact;
  throw py::value_error("variant must be 'paper' or 'exact', got '" + name + "'");
}


std::array<std::int64_t, 3> to_array3(const std::vector<std::int64_t>& values, const char* what) {
  if (values.empty() || values.size() > 3) {
    throw py::value_error(std::string(what) + " must have 1 to 3 space entries");
  }
  std::array<std::int64_t, 3> out{{0, 0, 0}};
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return out;
}

py::array_t<std::int64_t> tiles_to_array(const std::vector<tmod::TileSizes>& tiles, int dims) {
  py::array_t<std::int64_t> out({static_cast<py::ssize_t>(tiles.size()),
                                 static_cast<py::ssize_t>(dims + 1)});
  auto view = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const auto row = static_cast<py::ssize_t>(i);
    for (int d = 0; d < dims; ++d) view(row, d) = tiles[i].space[d];
    view(row, dims) = tiles[i].time;
  }
  return out;
}

}  // namespace

void register_time(py::module_& m) {
  auto t = m.def_submodule("time", "Execution-time model of tiled stencils (thesis 000, App. A)");

  py::class_<tmod::GpuParams>(t, "GpuParams")
      .def(py::init([](int n_sm, int n_v, double smem_per_sm_words, double smem_per_block_words,
                       int max_blocks_per_sm, double l_s_per_word, double tau_sync_s,
                       double t_sync_s) {
             tmod::GpuParams g;
             g.n_sm = n_sm;
             g.n_v = n_v;
             g.smem_per_sm_words = smem_per_sm_words;
             g.smem_per_block_words = smem_per_block_words;
             g.max_blocks_per_sm = max_blocks_per_sm;
             g.l_s_per_word = l_s_per_word;
             g.tau_sync_s = tau_sync_s;
             g.t_sync_s = t_sync_s;
             return g;
           }),
           py::kw_only(), py::arg("n_sm"), py::arg("n_v"), py::arg("smem_per_sm_words"),
           py::arg("smem_per_block_words"), py::arg("max_blocks_per_sm"),
           py::arg("l_s_per_word"), py::arg("tau_sync_s"), py::arg("t_sync_s"))
      .def_readonly("n_sm", &tmod::GpuParams::n_sm)
      .def_readonly("n_v", &tmod::GpuParams::n_v)
      .def_readonly("smem_per_sm_words", &tmod::GpuParams::smem_per_sm_words)
      .def_readonly("smem_per_block_words", &tmod::GpuParams::smem_per_block_words)
      .def_readonly("max_blocks_per_sm", &tmod::GpuParams::max_blocks_per_sm)
      .def_readonly("l_s_per_word", &tmod::GpuParams::l_s_per_word)
      .def_readonly("tau_sync_s", &tmod::GpuParams::tau_sync_s)
      .def_readonly("t_sync_s", &tmod::GpuParams::t_sync_s);

  py::class_<tmod::StencilParams>(t, "StencilParams")
      .def(py::init([](int n_space_dims, double c_iter_s) {
             tmod::StencilParams s;
             s.n_space_dims = n_space_dims;
             s.c_iter_s = c_iter_s;
             return s;
           }),
           py::kw_only(), py::arg("n_space_dims"), py::arg("c_iter_s"))
      .def_readonly("n_space_dims", &tmod::StencilParams::n_space_dims)
      .def_readonly("c_iter_s", &tmod::StencilParams::c_iter_s);

  py::class_<tmod::ProblemSize>(t, "ProblemSize")
      .def(py::init([](const std::vector<std::int64_t>& space, std::int64_t time_steps) {
             tmod::ProblemSize p;
             p.space = to_array3(space, "sizes");
             p.time_steps = time_steps;
             return p;
           }),
           py::arg("space"), py::arg("time_steps"))
      .def_readonly("space", &tmod::ProblemSize::space)
      .def_readonly("time_steps", &tmod::ProblemSize::time_steps);

  py::class_<tmod::TileSizes>(t, "TileSizes")
      .def(py::init([](const std::vector<std::int64_t>& space, std::int64_t time) {
             tmod::TileSizes s;
             s.space = to_array3(space, "tiles");
             s.time = time;
             return s;
           }),
           py::arg("space"), py::arg("time"))
      .def_readonly("space", &tmod::TileSizes::space)
      .def_readonly("time", &tmod::TileSizes::time);

  costmetrics::bindings::bind_record<tmod::Breakdown>(
      t, "Breakdown", "Every intermediate quantity of the time model for one tile choice");

  py::class_<tmod::SearchSpace>(t, "SearchSpace")
      .def(py::init([](const std::vector<std::vector<std::int64_t>>& space,
                       const std::vector<std::int64_t>& time) {
             tmod::SearchSpace s;
             s.space = space;
             s.time = time;
             return s;
           }),
           py::arg("space"), py::arg("time"))
      .def_readonly("space", &tmod::SearchSpace::space)
      .def_readonly("time", &tmod::SearchSpace::time)
      .def("__len__", &tmod::SearchSpace::size);

  t.attr("FEASIBLE") = static_cast<std::uint32_t>(tmod::kFeasible);
  t.attr("NON_POSITIVE_TILE") = static_cast<std::uint32_t>(tmod::kNonPositiveTile);
  t.attr("ODD_TIME_TILE") = static_cast<std::uint32_t>(tmod::kOddTimeTile);
  t.attr("INNERMOST_NOT_WARP_MULTIPLE") = static_cast<std::uint32_t>(tmod::kInnermostNotWarpMultiple);
  t.attr("EXCEEDS_BLOCK_SHARED_MEMORY") = static_cast<std::uint32_t>(tmod::kExceedsBlockSharedMemory);
  t.attr("EXCEEDS_SM_SHARED_MEMORY") = static_cast<std::uint32_t>(tmod::kExceedsSmSharedMemory);

  t.def("describe_infeasibility", &tmod::describe_infeasibility, py::arg("reasons"));
  t.def("validate_inputs", &tmod::validate_inputs, py::arg("gpu"), py::arg("stencil"),
        py::arg("size"));
  t.def("feasibility", &tmod::feasibility, py::arg("gpu"), py::arg("n_space_dims"),
        py::arg("tiles"));
  t.def("m_tile_words", &tmod::m_tile_words, py::arg("n_space_dims"), py::arg("tiles"));
  t.def("hyperthreading_factor", &tmod::hyperthreading_factor, py::arg("gpu"),
        py::arg("m_tile_words"));
  t.def("t_ideal_s", &tmod::t_ideal_s, py::arg("gpu"), py::arg("stencil"), py::arg("size"));
  t.def("t_overhead_closed_form_s", &tmod::t_overhead_closed_form_s, py::arg("gpu"),
        py::arg("stencil"), py::arg("size"), py::arg("tiles"));
  t.def(
      "evaluate",
      [](const tmod::GpuParams& gpu, const tmod::StencilParams& stencil, const tmod::ProblemSize& size,
         const tmod::TileSizes& tiles, const std::string& variant) {
        return tmod::evaluate(gpu, stencil, size, tiles, parse_variant(variant));
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("tiles"),
      py::arg("variant") = "paper");

  t.def(
      "evaluate_batch",
      [](const tmod::GpuParams& gpu, const tmod::StencilParams& stencil, const tmod::ProblemSize& size,
         py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> tiles,
         const std::string& variant, int n_threads, bool with_terms) {
        const int dims = stencil.n_space_dims;
        if (tiles.ndim() != 2 || tiles.shape(1) != dims + 1) {
          throw py::value_error("tiles must be an (n, " + std::to_string(dims + 1) +
                                ") integer array: tS1" + (dims > 1 ? ", tS2" : "") +
                                (dims > 2 ? ", tS3" : "") + ", tT per row");
        }
        const auto n = static_cast<std::size_t>(tiles.shape(0));
        const tmod::Variant v = parse_variant(variant);
        const char* names[] = {"talg_s", "m_prime_s",     "c_s",          "t_tile_s",
                               "k",      "m_tile_words",  "n_wavefronts", "tiles_per_wavefront",
                               "n_subtiles"};
        // Only T_alg and the reasons unless the terms are asked for (they cost eight more
        // output arrays, i.e. memory traffic, and the full Breakdown per row).
        const std::size_t n_arrays = with_terms ? 9 : 1;
        std::vector<py::array_t<double>> arrays;
        for (std::size_t i = 0; i < n_arrays; ++i) arrays.emplace_back(static_cast<py::ssize_t>(n));
        py::array_t<std::uint32_t> reasons(static_cast<py::ssize_t>(n));
        tmod::BatchOutputs out;
        out.talg_s = arrays[0].mutable_data();
        if (with_terms) {
          out.m_prime_s = arrays[1].mutable_data();
          out.c_s = arrays[2].mutable_data();
          out.t_tile_s = arrays[3].mutable_data();
          out.k = arrays[4].mutable_data();
          out.m_tile_words = arrays[5].mutable_data();
          out.n_wavefronts = arrays[6].mutable_data();
          out.tiles_per_wavefront = arrays[7].mutable_data();
          out.n_subtiles = arrays[8].mutable_data();
        }
        out.reasons = reasons.mutable_data();
        const std::int64_t* data = tiles.data();
        {
          py::gil_scoped_release release;
          tmod::evaluate_batch(gpu, stencil, size, data, n, v, out, n_threads);
        }
        py::dict result;
        for (std::size_t i = 0; i < n_arrays; ++i) result[names[i]] = arrays[i];
        result["reasons"] = reasons;
        return result;
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("tiles"),
      py::arg("variant") = "paper", py::arg("n_threads") = 0, py::arg("with_terms") = true);

  t.def("default_search_space", &tmod::default_search_space, py::arg("n_space_dims"));

  t.def(
      "search",
      [](const tmod::GpuParams& gpu, const tmod::StencilParams& stencil, const tmod::ProblemSize& size,
         const tmod::SearchSpace& space, double within, const std::string& variant,
         int n_threads) {
        const tmod::Variant v = parse_variant(variant);
        tmod::SearchResult r;
        {
          py::gil_scoped_release release;
          r = tmod::search(gpu, stencil, size, space, within, v, n_threads);
        }
        const int dims = stencil.n_space_dims;
        py::dict out;
        out["best"] = tiles_to_array({r.best}, dims)[py::int_(0)];
        out["best_breakdown"] = r.best_breakdown;
        out["talg_min_s"] = r.talg_min_s;
        out["near_optimal"] = tiles_to_array(r.near_optimal, dims);
        out["near_optimal_talg_s"] = py::array_t<double>(
            static_cast<py::ssize_t>(r.near_optimal_talg_s.size()), r.near_optimal_talg_s.data());
        out["n_points"] = r.n_points;
        out["n_feasible"] = r.n_feasible;
        return out;
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("space"),
      py::arg("within") = 0.10, py::arg("variant") = "paper", py::arg("n_threads") = 0);

  t.def(
      "max_hexagonal_face_tiles",
      [](const tmod::GpuParams& gpu, int n_space_dims, const tmod::SearchSpace& space) {
        return tiles_to_array(tmod::max_hexagonal_face_tiles(gpu, n_space_dims, space),
                              n_space_dims);
      },
      py::arg("gpu"), py::arg("n_space_dims"), py::arg("space"));
}

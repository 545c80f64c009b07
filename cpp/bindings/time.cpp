// Bindings of the execution-time model (costmetrics/time.hpp) as _core.time.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/time.hpp"

namespace tmod = costmetrics::time;

namespace {

using costmetrics::bindings::from_python;

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

// An (n, dims + 1) C-contiguous int64 copy of `tiles`, refusing non-integer dtypes and
// unsigned values beyond int64 (which a cast would wrap).
py::array_t<std::int64_t> tiles_array(py::handle tiles, int dims) {
  if (!py::isinstance<py::array>(tiles)) {
    throw py::type_error("tiles: expected a NumPy integer array, got " +
                         costmetrics::bindings::type_name(tiles));
  }
  auto array = py::reinterpret_borrow<py::array>(tiles);
  const char kind = array.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    throw py::type_error("tiles: expected an integer array, got dtype " +
                         py::str(array.dtype()).cast<std::string>());
  }
  if (array.ndim() != 2 || array.shape(1) != dims + 1) {
    throw py::value_error("tiles: must be an (n, " + std::to_string(dims + 1) +
                          ") integer array: tS1" + (dims > 1 ? ", tS2" : "") +
                          (dims > 2 ? ", tS3" : "") + ", tT per row");
  }
  if (kind == 'u' && array.itemsize() == 8 && array.size() > 0) {
    const auto max = py::module_::import("numpy").attr("max")(array);
    (void)from_python<std::int64_t>(max, "tiles (largest entry)");
  }
  return py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(array);
}

}  // namespace

void register_time(py::module_& m) {
  namespace cb = costmetrics::bindings;
  auto t = m.def_submodule("time", "Execution-time model of tiled stencils (thesis 000, App. A)");

  cb::bind_record<tmod::MachineTerms>(
      t, "MachineTerms", "Extra terms of the machine variant (docs/time.md); all 0: exact")
      .def("all_zero", &tmod::MachineTerms::all_zero,
           "Whether every time term is 0 (machine is then bit-identical to exact).");
  cb::bind_record<tmod::GpuParams>(t, "GpuParams",
                                   "Hardware parameters of the time model (Tables A.1-A.3)");
  cb::bind_record<tmod::StencilParams>(t, "StencilParams",
                                       "Stencil parameters: space dimensions and C_iter");
  cb::bind_record<tmod::ProblemSize>(t, "ProblemSize", "Iteration-space extents S1..S3, T");
  cb::bind_record<tmod::TileSizes>(t, "TileSizes", "Tile sizes tS1..tS3, tT");
  cb::bind_record<tmod::Breakdown>(
      t, "Breakdown", "Every intermediate quantity of the time model for one tile choice")
      .def_property_readonly(
          "t_overhead_s", [](const tmod::Breakdown& b) { return b.talg_s - b.t_ideal_s; },
          "T_alg - T_ideal (Eq. 8.4), s")
      .def_property_readonly(
          "below_ideal", [](const tmod::Breakdown& b) { return b.talg_s < b.t_ideal_s; },
          "Whether T_alg < T_ideal: the paper variant's known artefact for small tiles "
          "(docs/time.md); never true for the exact variant");
  cb::bind_record<tmod::SearchSpace>(t, "SearchSpace", "Candidate tile sizes per dimension")
      .def("__len__", &tmod::SearchSpace::size);
  cb::bind_record<tmod::SearchResult>(t, "SearchResult", "Result of the exhaustive tile search");

  t.attr("FEASIBLE") = static_cast<std::uint32_t>(tmod::kFeasible);
  t.attr("NON_POSITIVE_TILE") = static_cast<std::uint32_t>(tmod::kNonPositiveTile);
  t.attr("ODD_TIME_TILE") = static_cast<std::uint32_t>(tmod::kOddTimeTile);
  t.attr("INNERMOST_NOT_WARP_MULTIPLE") = static_cast<std::uint32_t>(tmod::kInnermostNotWarpMultiple);
  t.attr("EXCEEDS_BLOCK_SHARED_MEMORY") = static_cast<std::uint32_t>(tmod::kExceedsBlockSharedMemory);
  t.attr("EXCEEDS_SM_SHARED_MEMORY") = static_cast<std::uint32_t>(tmod::kExceedsSmSharedMemory);
  t.attr("MAX_SM_COUNT") = tmod::kMaxSmCount;
  t.attr("MAX_BLOCKS_PER_SM") = tmod::kMaxBlocksPerSm;
  t.attr("MAX_SMEM_WORDS") = tmod::kMaxSmemWords;
  t.attr("MAX_TIME_PARAMETER_S") = tmod::kMaxTimeParameterS;
  t.attr("MIN_TIME_PARAMETER_S") = tmod::kMinTimeParameterS;
  t.attr("MAX_ITERATION_POINTS") = tmod::kMaxIterationPoints;
  t.attr("MAX_SEARCH_POINTS") = tmod::kMaxSearchPoints;
  t.attr("MAX_SPACE_DIMS") = tmod::kMaxSpaceDims;
  t.attr("MEMORY_LEVELS") = py::make_tuple("L1", "L2", "L3", "DRAM");
  t.attr("CACHE_LINE_WORDS") = tmod::kCacheLineWords;

  // Where the problem's arrays live (machine variant): the same arguments and checks.
  auto def_level_query = [&t](const char* name, auto fn, const char* doc) {
    t.def(
        name,
        [fn](py::handle gpu, py::handle n_space_dims, py::handle size) {
          const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
          const int dims = from_python<int>(n_space_dims, "n_space_dims");
          const auto p = from_python<tmod::ProblemSize>(size, "size");
          g.validate();
          p.validate();
          return fn(g, dims, p);
        },
        py::arg("gpu"), py::arg("n_space_dims"), py::arg("size"), doc);
  };
  def_level_query("memory_level", &tmod::memory_level,
                  "Memory level (0 = L1, 1 = L2, 2 = L3, 3 = DRAM) of the problem's arrays.");
  def_level_query("dram_share", &tmod::dram_share,
                  "Share of the problem's arrays streaming from DRAM (0 below DRAM).");
  t.def("design_parameter_names", &tmod::design_parameter_names,
        "Names of the calibrated parameters, in the order of design_row().");
  t.def(
      "design_parameters",
      [](py::handle gpu, py::handle c_iter) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const double c = from_python<double>(c_iter, "c_iter_s");
        g.validate();
        const auto p = tmod::design_parameters(g, c);
        py::array_t<double> out(static_cast<py::ssize_t>(p.size()));
        std::copy(p.begin(), p.end(), out.mutable_data());
        return out;
      },
      py::arg("gpu"), py::arg("c_iter_s"), "The calibrated parameters as a vector.");
  t.def(
      "design_row",
      [](py::handle gpu, py::handle stencil, py::handle size, py::handle tiles,
         py::handle variant) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const auto s = from_python<tmod::StencilParams>(stencil, "stencil");
        const auto p = from_python<tmod::ProblemSize>(size, "size");
        const auto t = from_python<tmod::TileSizes>(tiles, "tiles");
        const auto v = from_python<tmod::Variant>(variant, "variant");
        const auto r = tmod::design_row(g, s, p, t, v);
        py::array_t<double> out(static_cast<py::ssize_t>(r.size()));
        std::copy(r.begin(), r.end(), out.mutable_data());
        return out;
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("tiles"),
      py::arg("variant") = "exact",
      "Coefficients of T_alg in the calibrated parameters (T_alg = row . parameters).");

  // Every function takes plain objects and converts them with from_python, so that a wrong
  // argument raises TypeError naming it (never pybind11's signature dump).
  // The one parser of variant names, for Python code that stores a variant before any
  // evaluation (every evaluating binding parses it the same way, through from_python).
  t.def(
      "check_variant",
      [](py::handle variant) {
        return std::string(
            costmetrics::enum_name(from_python<tmod::Variant>(variant, "variant")));
      },
      py::arg("variant"), "The variant's name, or ValueError/TypeError listing the valid ones.");
  t.def(
      "describe_infeasibility",
      [](py::handle reasons) {
        return tmod::describe_infeasibility(from_python<std::uint32_t>(reasons, "reasons"));
      },
      py::arg("reasons"));
  t.def(
      "validate_inputs",
      [](py::handle gpu, py::handle stencil, py::handle size) {
        // Converted in argument order, so that an error names the first bad argument.
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const auto s = from_python<tmod::StencilParams>(stencil, "stencil");
        const auto p = from_python<tmod::ProblemSize>(size, "size");
        tmod::validate_inputs(g, s, p);
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"));
  t.def(
      "feasibility",
      [](py::handle gpu, py::handle n_space_dims, py::handle tiles) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const int dims = from_python<int>(n_space_dims, "n_space_dims");
        const auto t = from_python<tmod::TileSizes>(tiles, "tiles");
        g.validate();
        return tmod::feasibility(g, dims, t);
      },
      py::arg("gpu"), py::arg("n_space_dims"), py::arg("tiles"));
  t.def(
      "m_tile_words",
      [](py::handle n_space_dims, py::handle tiles) {
        const int dims = from_python<int>(n_space_dims, "n_space_dims");
        return tmod::m_tile_words(dims, from_python<tmod::TileSizes>(tiles, "tiles"));
      },
      py::arg("n_space_dims"), py::arg("tiles"));
  t.def(
      "hyperthreading_factor",
      [](py::handle gpu, py::handle m_tile) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        return tmod::hyperthreading_factor(g, from_python<double>(m_tile, "m_tile_words"));
      },
      py::arg("gpu"), py::arg("m_tile_words"));
  t.def(
      "t_ideal_s",
      [](py::handle gpu, py::handle stencil, py::handle size) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const auto s = from_python<tmod::StencilParams>(stencil, "stencil");
        const auto p = from_python<tmod::ProblemSize>(size, "size");
        tmod::validate_inputs(g, s, p);
        return tmod::t_ideal_s(g, s, p);
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"));
  t.def(
      "t_overhead_closed_form_s",
      [](py::handle gpu, py::handle stencil, py::handle size, py::handle tiles) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const auto s = from_python<tmod::StencilParams>(stencil, "stencil");
        const auto p = from_python<tmod::ProblemSize>(size, "size");
        const auto t = from_python<tmod::TileSizes>(tiles, "tiles");
        return tmod::t_overhead_closed_form_s(g, s, p, t);
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("tiles"));
  t.def(
      "evaluate",
      [](py::handle gpu, py::handle stencil, py::handle size, py::handle tiles,
         py::handle variant) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const auto s = from_python<tmod::StencilParams>(stencil, "stencil");
        const auto p = from_python<tmod::ProblemSize>(size, "size");
        const auto t = from_python<tmod::TileSizes>(tiles, "tiles");
        return tmod::evaluate(g, s, p, t, from_python<tmod::Variant>(variant, "variant"));
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("tiles"),
      py::arg("variant") = "exact");

  t.def(
      "evaluate_batch",
      [](py::handle gpu_obj, py::handle stencil_obj, py::handle size_obj, py::handle tiles_obj,
         py::handle variant, py::handle threads_obj, py::handle with_terms_obj) {
        const auto gpu = from_python<tmod::GpuParams>(gpu_obj, "gpu");
        const auto stencil = from_python<tmod::StencilParams>(stencil_obj, "stencil");
        const auto size = from_python<tmod::ProblemSize>(size_obj, "size");
        const tmod::Variant v = from_python<tmod::Variant>(variant, "variant");
        const int n_threads = from_python<int>(threads_obj, "threads");
        const bool with_terms = from_python<bool>(with_terms_obj, "with_terms");
        stencil.validate();
        const int dims = stencil.n_space_dims;
        const auto tiles = tiles_array(tiles_obj, dims);
        const auto n = static_cast<std::size_t>(tiles.shape(0));
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
      py::arg("variant") = "exact", py::arg("threads") = 0, py::arg("with_terms") = true);

  t.def(
      "design_rows",
      [](py::handle gpu_obj, py::handle stencil_obj, py::handle size_obj, py::handle tiles_obj,
         py::handle variant, py::handle threads_obj) {
        const auto gpu = from_python<tmod::GpuParams>(gpu_obj, "gpu");
        const auto stencil = from_python<tmod::StencilParams>(stencil_obj, "stencil");
        const auto size = from_python<tmod::ProblemSize>(size_obj, "size");
        const tmod::Variant v = from_python<tmod::Variant>(variant, "variant");
        const int n_threads = from_python<int>(threads_obj, "threads");
        stencil.validate();
        const auto tiles = tiles_array(tiles_obj, stencil.n_space_dims);
        const auto n = static_cast<std::size_t>(tiles.shape(0));
        py::array_t<double> rows({static_cast<py::ssize_t>(n),
                                  static_cast<py::ssize_t>(tmod::kDesignParams)});
        py::array_t<std::uint32_t> reasons(static_cast<py::ssize_t>(n));
        double* rows_data = rows.mutable_data();
        std::uint32_t* reasons_data = reasons.mutable_data();
        const std::int64_t* data = tiles.data();
        {
          py::gil_scoped_release release;
          tmod::design_rows(gpu, stencil, size, data, n, v, rows_data, reasons_data, n_threads);
        }
        py::dict result;
        result["rows"] = rows;
        result["reasons"] = reasons;
        return result;
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("tiles"),
      py::arg("variant") = "exact", py::arg("threads") = 0);

  t.def(
      "default_search_space",
      [](py::handle n_space_dims) {
        return tmod::default_search_space(from_python<int>(n_space_dims, "n_space_dims"));
      },
      py::arg("n_space_dims"));

  t.def(
      "search",
      [](py::handle gpu_obj, py::handle stencil_obj, py::handle size_obj, py::handle space_obj,
         py::handle within_obj, py::handle variant, py::handle threads_obj) {
        const auto gpu = from_python<tmod::GpuParams>(gpu_obj, "gpu");
        const auto stencil = from_python<tmod::StencilParams>(stencil_obj, "stencil");
        const auto size = from_python<tmod::ProblemSize>(size_obj, "size");
        const auto space = from_python<tmod::SearchSpace>(space_obj, "space");
        const double within = from_python<double>(within_obj, "within");
        const tmod::Variant v = from_python<tmod::Variant>(variant, "variant");
        const int n_threads = from_python<int>(threads_obj, "threads");
        py::gil_scoped_release release;
        return tmod::search(gpu, stencil, size, space, within, v, n_threads);
      },
      py::arg("gpu"), py::arg("stencil"), py::arg("size"), py::arg("space"),
      py::arg("within") = 0.10, py::arg("variant") = "exact", py::arg("threads") = 0);

  t.def(
      "tiles_to_array",
      [](py::handle tiles, py::handle n_space_dims) {
        const int dims = from_python<int>(n_space_dims, "n_space_dims");
        if (dims < 1 || dims > 3) throw py::value_error("n_space_dims: must be 1, 2 or 3");
        return tiles_to_array(from_python<std::vector<tmod::TileSizes>>(tiles, "tiles"), dims);
      },
      py::arg("tiles"), py::arg("n_space_dims"),
      "Rows (tS1, [tS2, [tS3,]] tT) of a list of TileSizes.");

  t.def(
      "max_hexagonal_face_tiles",
      [](py::handle gpu, py::handle n_space_dims, py::handle space) {
        const auto g = from_python<tmod::GpuParams>(gpu, "gpu");
        const int dims = from_python<int>(n_space_dims, "n_space_dims");
        const auto s = from_python<tmod::SearchSpace>(space, "space");
        return tiles_to_array(tmod::max_hexagonal_face_tiles(g, dims, s), dims);
      },
      py::arg("gpu"), py::arg("n_space_dims"), py::arg("space"));
}

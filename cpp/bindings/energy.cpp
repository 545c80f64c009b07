// Bindings of the energy model (costmetrics/energy.hpp) as _core.energy.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/energy.hpp"

namespace en = costmetrics::energy;
namespace tmod = costmetrics::time;

namespace {

using IntArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using RealArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

en::Kernel builtin_kernel(const std::string& name) {
  if (name == "smith_waterman") return en::smith_waterman();
  if (name == "jacobi1d") return en::jacobi1d();
  if (name == "jacobi2d") return en::jacobi2d();
  throw py::value_error("kernel must be 'smith_waterman', 'jacobi1d' or 'jacobi2d', got '" + name +
                        "'");
}

std::string kind_name(en::KernelKind kind) {
  switch (kind) {
    case en::KernelKind::smith_waterman: return "smith_waterman";
    case en::KernelKind::jacobi1d: return "jacobi1d";
    case en::KernelKind::jacobi2d: return "jacobi2d";
    case en::KernelKind::custom: return "custom";
  }
  return "custom";
}

en::TimeSource time_source(const py::object& talg_s, const py::object& gpu,
                           const py::object& stencil, py::handle variant) {
  en::TimeSource t;
  // The variant is parsed with or without a time model: a bad one is refused with the same
  // message in every family, not ignored because talg_s was given (docs/api-conventions.md).
  t.variant = costmetrics::bindings::from_python<tmod::Variant>(variant, "variant");
  if (!gpu.is_none()) {
    t.use_time_model = true;
    t.gpu = costmetrics::bindings::from_python<tmod::GpuParams>(gpu, "gpu");
    t.stencil = costmetrics::bindings::from_python<tmod::StencilParams>(stencil, "stencil");
  } else {
    if (talg_s.is_none()) throw py::value_error("give talg_s or a GPU for the time model");
    t.talg_s = costmetrics::bindings::from_python<double>(talg_s, "talg_s");
  }
  return t;
}

// Checks an (n, 4) integer array (S1, S2, S3, T or tS1, tS2, tS3, tT per row).
void check_rows(const IntArray& a, const char* what) {
  if (a.ndim() != 2 || a.shape(1) != 4) {
    throw py::value_error(std::string(what) + " must be an (n, 4) integer array");
  }
}

void check_vector(py::ssize_t n, py::ssize_t got, const char* what) {
  if (got != n) {
    throw py::value_error(std::string(what) + " must have one entry per row (" +
                          std::to_string(n) + "), got " + std::to_string(got));
  }
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

py::dict identifiability_dict(const en::Identifiability& id) {
  py::dict out;
  out["rank"] = id.rank;
  out["singular_values"] = id.singular_values;
  py::array_t<double> comb({static_cast<py::ssize_t>(id.combinations.size()),
                            static_cast<py::ssize_t>(en::kNumParams)});
  auto view = comb.mutable_unchecked<2>();
  for (std::size_t i = 0; i < id.combinations.size(); ++i) {
    for (int k = 0; k < en::kNumParams; ++k) {
      view(static_cast<py::ssize_t>(i), k) = id.combinations[i][static_cast<std::size_t>(k)];
    }
  }
  out["combinations"] = comb;
  out["individually_identifiable"] =
      std::vector<bool>(id.individually_identifiable.begin(), id.individually_identifiable.end());
  return out;
}

}  // namespace

void register_energy(py::module_& m) {
  auto e = m.def_submodule("energy", "Energy model of tiled loop codes (thesis 000, App. B)");
  std::vector<std::string> names(en::kParamNames.begin(), en::kParamNames.end());
  e.attr("PARAM_NAMES") = py::tuple(py::cast(names));

  costmetrics::bindings::bind_record<en::Params>(
      e, "Params", "Energy parameters of Table B.1/B.2 (W and J), each finite and >= 0");
  costmetrics::bindings::bind_record<en::OpMix>(
      e, "OpMix", "Operations per loop-body iteration (op_j of Table B.1)");
  costmetrics::bindings::bind_record<en::Breakdown>(
      e, "Breakdown", "Every term of the energy model for one run (J, words, counts)");

  py::class_<en::Kernel> kernel_class(e, "Kernel", "A kernel: op mix and tile counts (B.6)");
  kernel_class
      .def_property_readonly("name", [](const en::Kernel& k) { return k.name; })
      .def_property_readonly("kind", [](const en::Kernel& k) { return kind_name(k.kind); })
      .def_property_readonly("n_space_dims", [](const en::Kernel& k) { return k.n_space_dims; })
      .def_property_readonly("ops", [](const en::Kernel& k) { return k.ops; })
      .def_property_readonly("expressions",
                             [](const en::Kernel& k) {
                               py::dict d;
                               if (k.kind == en::KernelKind::custom) {
                                 d["m_io_words"] = k.m_io_words.text();
                                 d["sr_words"] = k.sr_words.text();
                                 d["v_tile"] = k.v_tile.text();
                                 d["n_tiles"] = k.n_tiles.text();
                               }
                               return d;
                             });
  // A kernel is its name, kind, op mix and (custom kernels) expressions: pickling rebuilds
  // it from them, compiling the expressions again.
  costmetrics::bindings::add_record_protocol(
      kernel_class, {"name", "kind", "n_space_dims", "ops", "expressions"},
      [](const py::tuple& state) {
        using costmetrics::bindings::from_python;
        const auto kind = from_python<std::string>(state[1], "kind");
        if (kind != "custom") return builtin_kernel(kind);
        const auto exprs = state[4].cast<py::dict>();
        const auto text = [&](const char* key) {
          return from_python<std::string>(exprs[key], std::string("expressions.") + key);
        };
        return en::custom_kernel(from_python<std::string>(state[0], "name"),
                                 from_python<int>(state[2], "n_space_dims"),
                                 from_python<en::OpMix>(state[3], "ops"), text("m_io_words"),
                                 text("sr_words"), text("v_tile"), text("n_tiles"));
      });

  costmetrics::bindings::def_function(e, "builtin_kernel", &builtin_kernel, py::arg("name"));
  costmetrics::bindings::def_function(e, "custom_kernel", &en::custom_kernel, py::arg("name"), py::arg("n_space_dims"),
        py::arg("ops"), py::arg("m_io_words"), py::arg("sr_words"), py::arg("v_tile"),
        py::arg("n_tiles"));

  costmetrics::bindings::def_function(
      e, "evaluate",
      +[](const en::Kernel& kernel, const tmod::ProblemSize& size, const tmod::TileSizes& tiles,
         std::int64_t subtile, const en::Params& params, const py::object& talg_s,
         const py::object& gpu, const py::object& stencil, py::handle variant) {
        en::Run r;
        r.size = size;
        r.tiles = tiles;
        r.subtile = subtile;
        return en::evaluate_with(kernel, r, params, time_source(talg_s, gpu, stencil, variant));
      },
      py::arg("kernel"), py::arg("size"), py::arg("tiles"), py::arg("subtile"), py::arg("params"),
      py::arg("talg_s") = py::none(), py::arg("gpu") = py::none(),
      py::arg("stencil") = py::none(), py::arg("variant") = "exact");

  costmetrics::bindings::def_function(
      e, "evaluate_batch",
      +[](const en::Kernel& kernel, const IntArray& sizes, const IntArray& tiles,
         const IntArray& subtiles, const RealArray& talg_s, const en::Params& params,
         py::handle threads) {
        const int n_threads = costmetrics::bindings::from_python<int>(threads, "threads");
        check_rows(sizes, "sizes");
        check_rows(tiles, "tiles");
        const py::ssize_t n = sizes.shape(0);
        check_vector(n, tiles.shape(0), "tiles");
        check_vector(n, subtiles.size(), "subtiles");
        check_vector(n, talg_s.size(), "talg_s");
        std::vector<en::Breakdown> out(static_cast<std::size_t>(n));
        {
          py::gil_scoped_release release;
          en::evaluate_batch(kernel, sizes.data(), tiles.data(), subtiles.data(), talg_s.data(),
                             static_cast<std::size_t>(n), params, out.data(), n_threads);
        }
        py::dict result;
        costmetrics::for_each_field<en::Breakdown>([&](auto f) {
          py::array_t<double> column(n);
          double* data = column.mutable_data();
          for (py::ssize_t i = 0; i < n; ++i) data[i] = out[static_cast<std::size_t>(i)].*(f.member);
          result[f.name] = column;
        });
        return result;
      },
      py::arg("kernel"), py::arg("sizes"), py::arg("tiles"), py::arg("subtiles"),
      py::arg("talg_s"), py::arg("params"), py::arg("threads") = 0);

  costmetrics::bindings::def_function(
      e, "design_matrix",
      +[](const en::Kernel& kernel, const IntArray& sizes, const IntArray& tiles,
         const IntArray& subtiles, const RealArray& talg_s) {
        check_rows(sizes, "sizes");
        check_rows(tiles, "tiles");
        const py::ssize_t n = sizes.shape(0);
        check_vector(n, tiles.shape(0), "tiles");
        check_vector(n, subtiles.size(), "subtiles");
        check_vector(n, talg_s.size(), "talg_s");
        py::array_t<double> a({n, static_cast<py::ssize_t>(en::kNumParams)});
        auto view = a.mutable_unchecked<2>();
        const std::int64_t* s = sizes.data();
        const std::int64_t* t = tiles.data();
        for (py::ssize_t i = 0; i < n; ++i) {
          en::Run r;
          for (int d = 0; d < 3; ++d) {
            r.size.space[d] = s[4 * i + d];
            r.tiles.space[d] = t[4 * i + d];
          }
          r.size.time_steps = s[4 * i + 3];
          r.tiles.time = t[4 * i + 3];
          r.subtile = subtiles.data()[i];
          std::array<double, en::kNumParams> row;
          try {
            row = en::design_row(kernel, r, talg_s.data()[i]);
          } catch (const std::invalid_argument& err) {
            throw py::value_error("row " + std::to_string(i) + ": " + err.what());
          } catch (const std::overflow_error& err) {  // pybind11: OverflowError
            throw std::overflow_error("row " + std::to_string(i) + ": " + err.what());
          }
          for (int k = 0; k < en::kNumParams; ++k) view(i, k) = row[static_cast<std::size_t>(k)];
        }
        return a;
      },
      py::arg("kernel"), py::arg("sizes"), py::arg("tiles"), py::arg("subtiles"),
      py::arg("talg_s"));

  costmetrics::bindings::def_function(
      e, "identifiability",
      +[](const RealArray& design, double rel_tol) {
        if (design.ndim() != 2 || design.shape(1) != en::kNumParams) {
          throw py::value_error("design must be an (n, 7) array");
        }
        return identifiability_dict(
            en::identifiability(design.data(), static_cast<std::size_t>(design.shape(0)), rel_tol));
      },
      py::arg("design"), py::arg("rel_tol") = 1e-10);

  costmetrics::bindings::def_function(
      e, "fit_least_squares",
      +[](const RealArray& design, const RealArray& energy_j, double rel_tol) {
        if (design.ndim() != 2 || design.shape(1) != en::kNumParams) {
          throw py::value_error("design must be an (n, 7) array");
        }
        check_vector(design.shape(0), energy_j.size(), "energy_j");
        const en::LeastSquares ls = en::fit_least_squares(
            design.data(), energy_j.data(), static_cast<std::size_t>(design.shape(0)), rel_tol);
        py::dict out = identifiability_dict(ls.ident);
        out["x"] = std::vector<double>(ls.x.begin(), ls.x.end());
        return out;
      },
      py::arg("design"), py::arg("energy_j"), py::arg("rel_tol") = 1e-10);

  costmetrics::bindings::def_function(
      e, "optimization_error",
      +[](const IntArray& group, const RealArray& predicted_j, const RealArray& measured_j) {
        check_vector(group.size(), predicted_j.size(), "predicted_j");
        check_vector(group.size(), measured_j.size(), "measured_j");
        const en::OptimizationError r =
            en::optimization_error(group.data(), predicted_j.data(), measured_j.data(),
                                   static_cast<std::size_t>(group.size()));
        py::dict out;
        out["n_groups"] = r.n_groups;
        out["n_wrong"] = r.n_wrong;
        out["rmse_pct"] = r.rmse_pct;
        out["max_pct"] = r.max_pct;
        out["error_pct"] = r.error_pct;
        return out;
      },
      py::arg("group"), py::arg("predicted_j"), py::arg("measured_j"));

  costmetrics::bindings::def_function(e, "energy_per_operation_j", &en::energy_per_operation_j, py::arg("e_alg_j"),
        py::arg("p_stat_w"), py::arg("talg_s"), py::arg("op_count"));

  costmetrics::bindings::def_function(
      e, "search",
      +[](const en::Kernel& kernel, const tmod::ProblemSize& size, std::int64_t subtile,
         const en::Params& params, const tmod::SearchSpace& space, double within,
         const py::object& talg_s, const py::object& gpu, const py::object& stencil,
         py::handle variant, py::handle threads) {
        const en::TimeSource t = time_source(talg_s, gpu, stencil, variant);
        const int n_threads = costmetrics::bindings::from_python<int>(threads, "threads");
        en::SearchResult r;
        {
          py::gil_scoped_release release;
          r = en::search(kernel, size, subtile, params, t, space, within, n_threads);
        }
        const int dims = kernel.n_space_dims;
        py::dict out;
        out["best"] = tiles_to_array({r.best}, dims)[py::int_(0)];
        out["best_breakdown"] = r.best_breakdown;
        out["e_min_j"] = r.e_min_j;
        out["near_optimal"] = tiles_to_array(r.near_optimal, dims);
        out["near_optimal_e_j"] = py::array_t<double>(
            static_cast<py::ssize_t>(r.near_optimal_e_j.size()), r.near_optimal_e_j.data());
        out["n_points"] = r.n_points;
        out["n_feasible"] = r.n_feasible;
        return out;
      },
      py::arg("kernel"), py::arg("size"), py::arg("subtile"), py::arg("params"),
      py::arg("space"), py::arg("within") = 0.10, py::arg("talg_s") = py::none(),
      py::arg("gpu") = py::none(), py::arg("stencil") = py::none(),
      py::arg("variant") = "exact", py::arg("threads") = 0);
}

// Bindings of the ExaSAT-style model (costmetrics/exasat.hpp) as _core.exasat.
// Conversion only. A kernel travels as plain Python data:
//   (name, [array names], [temporary flags],
//    [(loop name, [(array index, is_write, [(dx, dy, dz), ...]), ...], Flops), ...])
// which costmetrics.exasat builds from its Kernel objects.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/exasat.hpp"

namespace ex = costmetrics::exasat;
using costmetrics::bindings::from_python;

namespace {

py::sequence as_sequence(py::handle obj, const std::string& what) {
  if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj)) {
    throw py::type_error(what + ": expected a sequence, got " +
                         costmetrics::bindings::type_name(obj) + " " +
                         costmetrics::bindings::repr_of(obj));
  }
  return py::reinterpret_borrow<py::sequence>(obj);
}

ex::Offset to_offset(py::handle obj, const std::string& what) {
  const auto seq = as_sequence(obj, what);
  if (seq.size() != 3) {
    throw py::value_error(what + ": a stencil point has 3 coordinates (dx, dy, dz), got " +
                          std::to_string(seq.size()));
  }
  return ex::Offset{from_python<int>(seq[0], what + "[0]"), from_python<int>(seq[1], what + "[1]"),
                    from_python<int>(seq[2], what + "[2]")};
}

std::vector<ex::Offset> to_offsets(py::handle obj, const std::string& what) {
  const auto seq = as_sequence(obj, what);
  std::vector<ex::Offset> out;
  if (seq.size() > ex::kMaxPointsPerAccess) {
    throw py::value_error(what + ": at most " + std::to_string(ex::kMaxPointsPerAccess) +
                          " points, got " + std::to_string(seq.size()));
  }
  for (std::size_t i = 0; i < seq.size(); ++i) {
    out.push_back(to_offset(seq[i], what + "[" + std::to_string(i) + "]"));
  }
  return out;
}

ex::Kernel to_kernel(py::handle obj) {
  const auto seq = as_sequence(obj, "kernel");
  if (seq.size() != 4) {
    throw py::value_error("kernel: expected (name, arrays, temporary, loops), got " +
                          std::to_string(seq.size()) + " items");
  }
  ex::Kernel k;
  k.name = from_python<std::string>(seq[0], "kernel.name");
  for (auto a : as_sequence(seq[1], "kernel.arrays")) {
    k.arrays.push_back(from_python<std::string>(a, "kernel.arrays[]"));
  }
  for (auto t : as_sequence(seq[2], "kernel.temporary")) {
    k.temporary.push_back(from_python<bool>(t, "kernel.temporary[]"));
  }
  const auto loops = as_sequence(seq[3], "kernel.loops");
  if (loops.size() > ex::kMaxLoops) {
    throw py::value_error("kernel.loops: at most " + std::to_string(ex::kMaxLoops) + " loops");
  }
  for (std::size_t l = 0; l < loops.size(); ++l) {
    const std::string where = "kernel.loops[" + std::to_string(l) + "]";
    const auto item = as_sequence(loops[l], where);
    if (item.size() != 3) throw py::value_error(where + ": expected (name, accesses, flops)");
    ex::Loop loop;
    loop.name = from_python<std::string>(item[0], where + ".name");
    const auto accesses = as_sequence(item[1], where + ".accesses");
    for (std::size_t i = 0; i < accesses.size(); ++i) {
      const std::string aw = where + ".accesses[" + std::to_string(i) + "]";
      const auto acc = as_sequence(accesses[i], aw);
      if (acc.size() != 3) throw py::value_error(aw + ": expected (array, is_write, points)");
      loop.accesses.push_back(ex::Access{from_python<int>(acc[0], aw + ".array"),
                                         from_python<bool>(acc[1], aw + ".write"),
                                         to_offsets(acc[2], aw + ".points")});
    }
    loop.flops = from_python<ex::Flops>(item[2], where + ".flops");
    k.loops.push_back(std::move(loop));
  }
  return k;
}

ex::FusionStrategy parse_strategy(const std::string& name) {
  if (name == "none") return ex::FusionStrategy::None;
  if (name == "simple") return ex::FusionStrategy::Simple;
  if (name == "aggressive") return ex::FusionStrategy::Aggressive;
  throw py::value_error("fusion: must be 'none', 'simple' or 'aggressive', got '" + name + "'");
}

}  // namespace

void register_exasat(py::module_& m) {
  auto e = m.def_submodule("exasat", "ExaSAT-style working-set performance model (seed 002)");
  namespace cb = costmetrics::bindings;

  cb::bind_record<ex::Machine>(e, "Machine", "Machine description (seed 002, Sec. 4.2)");
  cb::bind_record<ex::Flops>(e, "Flops", "Floating-point operations per cell, by type");
  cb::bind_record<ex::Box>(e, "Box", "The 3D box every loop nest sweeps");
  cb::bind_record<ex::Blocking>(e, "Blocking", "Cache blocking of X and Y (Sec. 3.1)");
  cb::bind_record<ex::ArrayTraffic>(e, "ArrayTraffic", "DRAM traffic of one array in one group");
  cb::bind_record<ex::GroupResult>(e, "GroupResult", "One fused loop nest at one blocking");
  cb::bind_record<ex::Estimate>(e, "Estimate", "Whole-kernel estimate: C, D, T, bytes per flop");
  cb::bind_record<ex::Simulation>(e, "Simulation", "LRU simulation of the access stream");

  e.attr("MAX_OFFSET") = ex::kMaxOffset;
  e.attr("MAX_POINTS_PER_ACCESS") = ex::kMaxPointsPerAccess;
  e.attr("MAX_LOOPS") = ex::kMaxLoops;
  e.attr("MAX_BOX_EDGE") = ex::kMaxBoxEdge;
  e.attr("DEFAULT_MAX_SIM_ACCESSES") = ex::kDefaultMaxSimAccesses;
  e.attr("HARD_MAX_SIM_ACCESSES") = ex::kHardMaxSimAccesses;
  e.attr("MAX_BLOCK_CANDIDATES") = ex::kMaxBlockCandidates;
  e.attr("MAX_CACHE_SIZES") = ex::kMaxCacheSizes;

  costmetrics::bindings::def_function(e, "weighted_flops", &ex::weighted_flops, py::arg("flops"), py::arg("machine"));
  costmetrics::bindings::def_function(e, "peak_bytes_per_flop", &ex::peak_bytes_per_flop, py::arg("machine"));
  costmetrics::bindings::def_function(e, "level_name", &ex::level_name, py::arg("level"));
  e.def(
      "footprint_words",
      [](py::handle block, py::handle offsets) {
        const auto seq = as_sequence(block, "block");
        if (seq.size() != 3) throw py::value_error("block: expected (bx, by, bz)");
        std::array<std::int64_t, 3> b{};
        for (std::size_t i = 0; i < 3; ++i) {
          b[i] = from_python<std::int64_t>(seq[i], "block[" + std::to_string(i) + "]");
        }
        return ex::footprint_words(b, to_offsets(offsets, "offsets"));
      },
      py::arg("block"), py::arg("offsets"));
  costmetrics::bindings::def_function(
      e, "fusion_groups",
      +[](py::handle kernel, const std::string& strategy) {
        return ex::fusion_groups(to_kernel(kernel), parse_strategy(strategy));
      },
      py::arg("kernel"), py::arg("strategy"));
  costmetrics::bindings::def_function(
      e, "stencil_dependency",
      +[](py::handle kernel, int i, int j) {
        const auto k = to_kernel(kernel);
        k.validate();
        return ex::stencil_dependency(k, i, j);
      },
      py::arg("kernel"), py::arg("i"), py::arg("j"));
  costmetrics::bindings::def_function(
      e, "evaluate",
      +[](py::handle kernel, const ex::Machine& machine, const ex::Box& box,
         const ex::Groups& groups, const std::vector<ex::Blocking>& blockings, int force_level) {
        const auto k = to_kernel(kernel);
        py::gil_scoped_release release;
        return ex::evaluate(k, machine, box, groups, blockings, force_level);
      },
      py::arg("kernel"), py::arg("machine"), py::arg("box"), py::arg("groups"),
      py::arg("blockings"), py::arg("force_level") = -1);
  costmetrics::bindings::def_function(
      e, "best_blocking",
      +[](py::handle kernel, const ex::Machine& machine, const ex::Box& box,
         const ex::Groups& groups, const std::vector<std::int64_t>& candidates) {
        const auto k = to_kernel(kernel);
        py::gil_scoped_release release;
        return ex::best_blocking(k, machine, box, groups, candidates);
      },
      py::arg("kernel"), py::arg("machine"), py::arg("box"), py::arg("groups"),
      py::arg("candidates"));
  costmetrics::bindings::def_function(
      e, "simulated_accesses",
      +[](py::handle kernel, const ex::Box& box, const ex::Groups& groups) {
        return ex::simulated_accesses(to_kernel(kernel), box, groups);
      },
      py::arg("kernel"), py::arg("box"), py::arg("groups"));
  costmetrics::bindings::def_function(
      e, "simulate_lru",
      +[](py::handle kernel, const ex::Machine& machine, const ex::Box& box,
         const ex::Groups& groups, const std::vector<ex::Blocking>& blockings,
         std::int64_t max_accesses) {
        const auto k = to_kernel(kernel);
        py::gil_scoped_release release;
        return ex::simulate_lru(k, machine, box, groups, blockings, max_accesses);
      },
      py::arg("kernel"), py::arg("machine"), py::arg("box"), py::arg("groups"),
      py::arg("blockings"), py::arg("max_accesses") = ex::kDefaultMaxSimAccesses);
  costmetrics::bindings::def_function(
      e, "simulate_lru_sweep",
      +[](py::handle kernel, const ex::Machine& machine, const ex::Box& box,
         const ex::Groups& groups, const std::vector<ex::Blocking>& blockings,
         const std::vector<std::int64_t>& cache_bytes, std::int64_t max_accesses, int threads) {
        const auto k = to_kernel(kernel);
        py::gil_scoped_release release;
        return ex::simulate_lru_sweep(k, machine, box, groups, blockings, cache_bytes,
                                      max_accesses, threads);
      },
      py::arg("kernel"), py::arg("machine"), py::arg("box"), py::arg("groups"),
      py::arg("blockings"), py::arg("cache_bytes"),
      py::arg("max_accesses") = ex::kDefaultMaxSimAccesses, py::arg("threads") = 0);
}

// Bindings of the codesign sweep (costmetrics/codesign.hpp) as _core.codesign.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/codesign.hpp"

namespace cd = costmetrics::codesign;
namespace tmod = costmetrics::time;

namespace {

using IntArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using FloatArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using costmetrics::bindings::from_python;

template <typename T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

std::vector<cd::Design> designs_from(IntArray n_sm, IntArray n_v, IntArray smem, FloatArray area) {
  const py::ssize_t n = n_sm.size();
  if (n_v.size() != n || smem.size() != n || area.size() != n) {
    throw py::value_error("designs: n_sm, n_v, smem_kb and area_mm2 must have the same length");
  }
  std::vector<cd::Design> out(static_cast<std::size_t>(n));
  for (py::ssize_t i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = {n_sm.data()[i], n_v.data()[i], smem.data()[i],
                                        area.data()[i]};
  }
  return out;
}

// SweepOptions::thread_limits from Python: None (off), a ThreadLimits, or a dict of some of
// its fields (the others keep their defaults). A dict goes through ThreadLimits' own
// keyword constructor (bind_record: conversion and validation, errors naming the field),
// after its keys are checked here.
std::optional<cd::ThreadLimits> thread_limits_from(py::handle obj) {
  using costmetrics::bindings::repr_of;
  using costmetrics::bindings::type_name;
  if (obj.is_none()) return std::nullopt;
  if (py::isinstance<cd::ThreadLimits>(obj)) {
    const auto out = obj.cast<cd::ThreadLimits>();
    out.validate();
    return out;
  }
  if (!PyDict_Check(obj.ptr())) {
    throw py::type_error("thread_limits: expected None, a dict or a ThreadLimits, got " +
                         type_name(obj) + " " + repr_of(obj));
  }
  const py::object cls = py::type::of<cd::ThreadLimits>();
  py::dict fields = py::cast(cd::ThreadLimits{}).attr("_asdict")();
  for (auto item : py::reinterpret_borrow<py::dict>(obj)) {
    if (!PyUnicode_Check(item.first.ptr())) {
      throw py::type_error("thread_limits: keys must be field names (str), got " +
                           repr_of(item.first));
    }
    if (!fields.contains(item.first)) {
      const auto names = py::str(", ").attr("join")(cls.attr("_fields")).cast<std::string>();
      throw py::type_error("thread_limits: unknown field '" + item.first.cast<std::string>() +
                           "' (fields: " + names + ")");
    }
    fields[item.first] = item.second;
  }
  return cls(**fields).cast<cd::ThreadLimits>();
}

}  // namespace

void register_codesign(py::module_& m) {
  auto c = m.def_submodule("codesign",
                           "Hardware/software codesign sweep (thesis 000, App. C, Eqs. C.8-C.19)");
  using costmetrics::bindings::bind_record;
  bind_record<cd::MachineParams>(c, "MachineParams", "Machine parameters shared by all designs");
  bind_record<cd::Design>(c, "Design", "One hardware design point (nSM, nV, M_SM, area)");
  bind_record<cd::ThreadLimits>(
      c, "ThreadLimits",
      "Thread and register limits of real GPUs (an extension of the sweep, docs/codesign.md)");

  c.def(
      "thread_limits",
      [](py::object value) -> py::object {
        const auto limits = thread_limits_from(value);
        if (!limits) return py::none();
        return py::cast(*limits);
      },
      py::arg("thread_limits"),
      "The sweep's thread limits from None, a dict of some fields (the others default) or a "
      "ThreadLimits; validated.");

  c.def("default_hardware_space", [] {
    const cd::HardwareSpace s = cd::default_hardware_space();
    py::dict d;
    d["n_sm"] = to_numpy(s.n_sm);
    d["n_v"] = to_numpy(s.n_v);
    d["smem_kb"] = to_numpy(s.smem_kb);
    return d;
  });

  costmetrics::bindings::def_function(
      c, "enumerate_designs",
      +[](const std::vector<std::int64_t>& n_sm, const std::vector<std::int64_t>& n_v,
         const std::vector<std::int64_t>& smem_kb, const costmetrics::area::Coefficients& coeffs,
         double area_min, double area_max,
         const std::optional<costmetrics::area::RoundedCoefficients>& rounded,
         double regs_kb_per_vu) {
        cd::HardwareSpace s{n_sm, n_v, smem_kb};
        const auto designs =
            cd::enumerate_designs(s, coeffs, area_min, area_max, rounded.has_value(),
                                  rounded ? &*rounded : nullptr, regs_kb_per_vu);
        std::vector<std::int64_t> a, b, k;
        std::vector<double> area;
        for (const auto& d : designs) {
          a.push_back(d.n_sm);
          b.push_back(d.n_v);
          k.push_back(d.smem_kb);
          area.push_back(d.area_mm2);
        }
        py::dict out;
        out["n_sm"] = to_numpy(a);
        out["n_v"] = to_numpy(b);
        out["smem_kb"] = to_numpy(k);
        out["area_mm2"] = to_numpy(area);
        return out;
      },
      py::arg("n_sm"), py::arg("n_v"), py::arg("smem_kb"), py::arg("coefficients"),
      py::arg("area_min_mm2"), py::arg("area_max_mm2"), py::arg("rounded") = py::none(),
      py::arg("regs_kb_per_vu") = 2.0);

  costmetrics::bindings::def_function(
      c, "sweep",
      +[](IntArray n_sm, IntArray n_v, IntArray smem, FloatArray area,
         const std::vector<std::tuple<int, double, std::vector<std::int64_t>>>& instances,
         const cd::MachineParams& machine, py::handle variant, py::handle block_rule,
         double block_cap_kb, bool prune, py::handle threads,
         py::object progress, py::object thread_limits) {
        const std::vector<cd::Design> designs = designs_from(n_sm, n_v, smem, area);
        std::vector<cd::Instance> inst;
        for (std::size_t j = 0; j < instances.size(); ++j) {
          const auto& [dims, c_iter, sizes] = instances[j];
          if (static_cast<int>(sizes.size()) != dims + 1 || dims < 1 || dims > 3) {
            throw py::value_error("instances[" + std::to_string(j) +
                                  "]: sizes must have n_space_dims + 1 entries");
          }
          cd::Instance in;
          in.stencil.n_space_dims = dims;
          in.stencil.c_iter_s = c_iter;
          for (int d = 0; d < dims; ++d) in.size.space[static_cast<std::size_t>(d)] = sizes[static_cast<std::size_t>(d)];
          in.size.time_steps = sizes.back();
          inst.push_back(in);
        }
        cd::SweepOptions o;
        o.variant = from_python<tmod::Variant>(variant, "variant");
        o.block_rule = from_python<cd::BlockRule>(block_rule, "block_smem");
        o.block_cap_kb = block_cap_kb;
        o.prune = prune;
        o.n_threads = from_python<int>(threads, "threads");
        o.thread_limits = thread_limits_from(thread_limits);
        std::function<void(std::size_t)> cb;
        if (!progress.is_none()) {
          cb = [progress](std::size_t done) {
            py::gil_scoped_acquire gil;
            progress(done);
          };
        }
        cd::SweepOutput r;
        {
          py::gil_scoped_release release;
          r = cd::sweep(designs, inst, machine, o, cb);
        }
        const auto nd = static_cast<py::ssize_t>(r.n_designs);
        const auto ni = static_cast<py::ssize_t>(r.n_instances);
        py::array_t<double> talg({nd, ni});
        std::copy(r.talg_s.begin(), r.talg_s.end(), talg.mutable_data());
        py::array_t<std::int64_t> tiles({nd, ni, py::ssize_t{4}});
        std::copy(r.tiles.begin(), r.tiles.end(), tiles.mutable_data());
        py::array_t<std::int64_t> feasible({nd, ni});
        std::copy(r.n_feasible.begin(), r.n_feasible.end(), feasible.mutable_data());
        py::array_t<std::int64_t> evaluated({nd, ni});
        std::copy(r.n_evaluated.begin(), r.n_evaluated.end(), evaluated.mutable_data());
        py::dict out;
        out["talg_s"] = talg;
        out["tiles"] = tiles;
        out["n_feasible"] = feasible;
        out["n_evaluated"] = evaluated;
        out["n_bounds"] = r.n_bounds;
        return out;
      },
      py::arg("n_sm"), py::arg("n_v"), py::arg("smem_kb"), py::arg("area_mm2"),
      py::arg("instances"), py::arg("machine"), py::arg("variant") = "exact",
      py::arg("block_smem") = "half", py::arg("block_cap_kb") = 48.0, py::arg("prune") = true,
      py::arg("threads") = 0, py::arg("progress") = py::none(),
      py::arg("thread_limits") = py::none());

  costmetrics::bindings::def_function(
      c, "pareto_front",
      +[](const std::vector<double>& area, const std::vector<double>& perf) {
        if (area.size() != perf.size()) {
          throw py::value_error("performance: " + std::to_string(perf.size()) +
                                " entries, area_mm2 has " + std::to_string(area.size()));
        }
        const auto idx = cd::pareto_front(area, perf);
        std::vector<std::int64_t> out(idx.begin(), idx.end());
        return to_numpy(out);
      },
      py::arg("area_mm2"), py::arg("performance"));

  costmetrics::bindings::def_function(
      c, "workload_gflops",
      +[](FloatArray talg, const std::vector<double>& flops, const std::vector<double>& weights) {
        if (talg.ndim() != 2 || talg.shape(1) != static_cast<py::ssize_t>(flops.size())) {
          throw py::value_error("talg_s must be a (designs, instances) array matching flops");
        }
        std::vector<double> t(talg.data(), talg.data() + talg.size());
        return to_numpy(cd::workload_gflops(t, static_cast<std::size_t>(talg.shape(0)), flops, weights));
      },
      py::arg("talg_s"), py::arg("flops"), py::arg("weights"));
}

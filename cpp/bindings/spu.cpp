// Bindings of the Stencil Processing Unit model (costmetrics/spu.hpp) as _core.spu.
#include <cstdint>

#include "bindings.hpp"
#include "costmetrics/spu.hpp"

namespace spu = costmetrics::spu;
using costmetrics::bindings::bind_record;

void register_spu(py::module_& m) {
  auto s = m.def_submodule(
      "spu", "Stencil Processing Unit: off-chip accesses, passes and energy (thesis 003)");

  bind_record<spu::Problem>(s, "Problem", "N x N x K stencil, b x b x b tiles, p x p SPU grid");
  bind_record<spu::OffChip>(s, "OffChip", "Off-chip accesses on GPU and SPU (Eqs. 3.2-3.10)");
  bind_record<spu::Configuration>(s, "Configuration", "A test case of Tables 6.2 / A.1");
  bind_record<spu::GlobalSync>(s, "GlobalSync",
                               "Off-chip accesses with global block synchronization (Sec. 4.1)");
  bind_record<spu::EnergySplit>(s, "EnergySplit", "Energy split of Eq. 3.5 (J)");
  s.attr("MAX_SWEEP_SIZES") = spu::kMaxSweepSizes;

  costmetrics::bindings::def_function(s, "off_chip", &spu::off_chip, py::arg("problem"));
  costmetrics::bindings::def_function(s, "configuration", &spu::configuration, py::arg("problem"), py::arg("subtile"));
  costmetrics::bindings::def_function(s, "max_tile_for_cb", &spu::max_tile_for_cb, py::arg("cb_bytes"), py::arg("word_bytes"));
  costmetrics::bindings::def_function(s, "total_cb_bytes", &spu::total_cb_bytes, py::arg("n_sms"), py::arg("n_ius"),
        py::arg("cb_bytes"));
  costmetrics::bindings::def_function(s, "global_sync", &spu::global_sync, py::arg("problem"),
        py::arg("extra_syncs_per_pass") = 0);
  costmetrics::bindings::def_function(s, "spills_per_viu_from_accesses", &spu::spills_per_viu_from_accesses, py::arg("problem"),
        py::arg("observed_accesses"));
  costmetrics::bindings::def_function(s, "energy_split", &spu::energy_split, py::arg("flops"), py::arg("accesses"),
        py::arg("e_comp_j"), py::arg("e_mem_j"), py::arg("static_power_w"), py::arg("time_s"));
  costmetrics::bindings::def_function(s, "energy_mj_from_cycles", &spu::energy_mj_from_cycles, py::arg("cycles"),
        py::arg("power_w"), py::arg("frequency_mhz"));
  costmetrics::bindings::def_function(s, "break_even_static_power_w", &spu::break_even_static_power_w, py::arg("accesses_gpu"),
        py::arg("accesses_spu"), py::arg("e_mem_j"), py::arg("static_power_gpu_w"),
        py::arg("time_gpu_s"), py::arg("time_spu_s"));
  costmetrics::bindings::def_function(s, "relative_change", &spu::relative_change, py::arg("value"), py::arg("reference"));
}

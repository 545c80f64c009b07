// Bindings of the measurement harness and micro-benchmarks (costmetrics/measure.hpp) as
// _core.measure. Thin: records through bind_record, runs without the GIL.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/measure.hpp"

namespace cmm = costmetrics::measure;
namespace cmb = costmetrics::bindings;

namespace {

py::array_t<float> to_array(const std::vector<float>& values, std::int64_t s1, std::int64_t s2,
                            std::int64_t s3) {
  std::vector<py::ssize_t> shape;
  if (s3 > 0) {
    shape = {static_cast<py::ssize_t>(s1), static_cast<py::ssize_t>(s2),
             static_cast<py::ssize_t>(s3)};
  } else if (s2 > 0) {
    shape = {static_cast<py::ssize_t>(s1), static_cast<py::ssize_t>(s2)};
  } else {
    shape = {static_cast<py::ssize_t>(s1)};
  }
  py::array_t<float> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace

void register_measure(py::module_& m) {
  auto sub = m.def_submodule(
      "measure", "Tiled-stencil measurement harness and micro-benchmarks (CPU)");

  cmb::bind_record<cmm::RunConfig>(sub, "RunConfig", "One measured configuration.");
  cmb::bind_record<cmm::RunResult>(sub, "RunResult", "Timings and counters of one run.");
  cmb::bind_record<cmm::MicroResult>(sub, "MicroResult", "Result of one micro-benchmark.");
  cmb::bind_record<cmm::CpuProbe>(sub, "CpuProbe",
                                 "How the allowed CPUs run alone and side by side.");
  cmb::bind_record<cmm::HostSpeed>(sub, "HostSpeed",
                                  "Whether the host runs the CPUs at full speed now.");

  sub.def("kernel_names", &cmm::kernel_names, "Names of the harness stencils.");
  costmetrics::bindings::def_function(
      sub, "kernel_space_dims",
      +[](const std::string& name) { return cmm::kernel_space_dims(cmm::parse_kernel(name)); },
      py::arg("stencil"), "Space dimensions of a harness stencil.");
  sub.def("harness_version", &cmm::harness_version,
          "Version of the harness (tables from another version are refused).");
  sub.def("schedule_names", &cmm::schedule_names,
          "Schedules of a wavefront's tiles on the threads (round-robin, block).");
  sub.def("simd_lanes_float", &cmm::simd_lanes_float,
          "SIMD lanes for a 4-byte float in the compiled instruction set.");
  sub.def("compiler_description", &cmm::compiler_description,
          "Compiler and instruction-set macros of the compiled harness.");
  costmetrics::bindings::def_function(
      sub, "run",
      +[](const cmm::RunConfig& cfg) {
        cfg.validate();
        py::gil_scoped_release release;
        return cmm::run(cfg);
      },
      py::arg("config"), "Run a tiled stencil (warm-up, repeats, check).");
  costmetrics::bindings::def_function(
      sub, "as_run", &cmm::as_run, py::arg("config"),
      "The configuration as the harness runs it (sub-tiles wider than S + tT clipped).");
  costmetrics::bindings::def_function(
      sub, "tiled",
      +[](const cmm::RunConfig& cfg) {
        cfg.validate();
        std::vector<float> values;
        {
          py::gil_scoped_release release;
          values = cmm::tiled(cfg);
        }
        return to_array(values, cfg.size_s1, cfg.size_s2, cfg.size_s3);
      },
      py::arg("config"), "Final time level of one tiled run.");
  costmetrics::bindings::def_function(
      sub, "naive",
      +[](const std::string& stencil, std::int64_t s1, std::int64_t s2, std::int64_t s3,
         std::int64_t t) {
        std::vector<float> values;
        {
          py::gil_scoped_release release;
          values = cmm::naive(stencil, s1, s2, s3, t);
        }
        return to_array(values, s1, s2, s3);
      },
      py::arg("stencil"), py::arg("size_s1"), py::arg("size_s2"), py::arg("size_s3"),
      py::arg("size_t"),
      "Final time level of the naive untiled stencil.");
  cmb::def_function_nogil(sub, "bench_copy", &cmm::bench_copy, py::arg("threads"), py::arg("working_set_words"),
          py::arg("segment_words"), py::arg("repeats"), py::arg("pin"), py::arg("sequential") = false,
          py::arg("warmup_words") = 0, py::arg("interleaved") = false,
          "Micro-benchmark of L (s per word); segments in random order, or swept in order "
          "(interleaved: even segments, then odd ones); untimed repeats first until "
          "warmup_words words are copied (at least one).");
  cmb::def_function_nogil(sub, "bench_barrier", &cmm::bench_barrier, py::arg("threads"), py::arg("repeats"),
          py::arg("pin"),           "Micro-benchmark of T_sync (s per wavefront barrier).");
  cmb::def_function_nogil(sub, "bench_compute", &cmm::bench_compute, py::arg("stencil"), py::arg("threads"),
          py::arg("n_configs"), py::arg("repeats"), py::arg("seed"), py::arg("pin"),
                    "Micro-benchmark of C_iter (s per SIMD vector of loop-body iterations).");
  cmb::def_function_nogil(sub, "bench_row", &cmm::bench_row, py::arg("stencil"), py::arg("threads"),
          py::arg("repeats"), py::arg("pin"),           "Micro-benchmark of the fixed cost of one tile row (s per row of one vector).");
  cmb::def_function_nogil(sub, "bench_share", &cmm::bench_share, py::arg("threads"), py::arg("repeats"),
          py::arg("pin"),           "Seconds per write of a cache line written by the threads in turn.");
  cmb::def_function_nogil(sub, "probe_cpus", &cmm::probe_cpus, py::arg("threads"),
                          py::arg("repeats"), py::arg("spin_s"),
                          "A fixed kernel alone on each CPU and on all at once; gaps while "
                          "all spin.");
  cmb::def_function_nogil(sub, "probe_host", &cmm::probe_host, py::arg("threads"),
                          py::arg("duration_s"), py::arg("reference_s"),
                          "The probe kernel on every CPU at once, round after round: the "
                          "share of slow rounds.");
}

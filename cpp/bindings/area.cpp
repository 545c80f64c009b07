// Bindings of the silicon-area model (costmetrics/area.hpp) as _core.area.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/area.hpp"

namespace ar = costmetrics::area;

namespace {

using IntArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using FloatArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

template <typename Coeffs, typename Fn>
py::array_t<double> batch(const Coeffs& c, IntArray n_sm, IntArray n_v, FloatArray smem,
                          FloatArray regs, FloatArray l1, FloatArray l2, Fn fn) {
  const py::ssize_t n = n_sm.size();
  const std::pair<const char*, py::ssize_t> others[] = {
      {"n_v", n_v.size()},   {"smem_kb", smem.size()}, {"regs_kb_per_vu", regs.size()},
      {"l1_kb_per_pair", l1.size()}, {"l2_kb", l2.size()}};
  for (const auto& [name, size] : others) {
    if (size != n) {
      throw py::value_error(std::string(name) + ": " + std::to_string(size) +
                            " entries, n_sm has " + std::to_string(n) +
                            " (every array has one entry per configuration)");
    }
  }
  py::array_t<double> out(n);
  fn(c, static_cast<std::size_t>(n), n_sm.data(), n_v.data(), smem.data(), regs.data(), l1.data(),
     l2.data(), out.mutable_data());
  return out;
}

}  // namespace

void register_area(py::module_& m) {
  auto a = m.def_submodule("area", "Silicon-area model of GPUs (thesis 000, App. C, Eqs. C.4-C.7)");
  using costmetrics::bindings::bind_record;
  bind_record<ar::Coefficients>(a, "Coefficients", "Constants of the structural model, Eq. C.6");
  bind_record<ar::RoundedCoefficients>(a, "RoundedCoefficients", "Constants of Eq. C.7");
  bind_record<ar::Config>(a, "Config", "One GPU configuration (Table C.1)");
  bind_record<ar::AreaBreakdown>(a, "AreaBreakdown", "Every term of Eq. C.6, mm^2");
  bind_record<ar::LinearFit>(a, "LinearFit", "Least-squares line area = slope size + intercept");
  bind_record<ar::DieCalibration>(a, "DieCalibration", "alpha_oh and beta_VU from a die");
  costmetrics::bindings::def_function(a, "structural", &ar::structural, py::arg("coefficients"), py::arg("config"));
  costmetrics::bindings::def_function(a, "rounded", &ar::rounded, py::arg("coefficients"), py::arg("config"));
  // One batch function for both forms: the coefficient record says which (Eq. C.6 or C.7).
  costmetrics::bindings::def_function(
      a, "die_area_batch",
      +[](py::handle coefficients, IntArray n_sm, IntArray n_v, FloatArray smem, FloatArray regs,
          FloatArray l1, FloatArray l2) {
        if (py::isinstance<ar::RoundedCoefficients>(coefficients)) {
          return batch(coefficients.cast<ar::RoundedCoefficients>(), n_sm, n_v, smem, regs, l1,
                       l2, ar::rounded_batch);
        }
        if (!py::isinstance<ar::Coefficients>(coefficients)) {
          throw py::type_error(
              "coefficients: expected a Coefficients (Eq. C.6) or RoundedCoefficients (Eq. C.7), "
              "got " + costmetrics::bindings::type_name(coefficients) + " " +
              costmetrics::bindings::repr_of(coefficients));
        }
        return batch(coefficients.cast<ar::Coefficients>(), n_sm, n_v, smem, regs, l1, l2,
                     ar::structural_batch);
      },
      py::arg("coefficients"), py::arg("n_sm"), py::arg("n_v"), py::arg("smem_kb"),
      py::arg("regs_kb_per_vu"), py::arg("l1_kb_per_pair"), py::arg("l2_kb"));
  costmetrics::bindings::def_function(a, "fit_linear", &ar::fit_linear, py::arg("size_kb"), py::arg("area_mm2"));
  costmetrics::bindings::def_function(a, "calibrate_die", &ar::calibrate_die, py::arg("memory"), py::arg("config"),
        py::arg("die_mm2"), py::arg("overhead_mm2"));
}

// Bindings of the matrix-chain models (costmetrics/chain.hpp) as _core.chain.
// Conversion only: records through bind_record, enums as short strings, every argument
// converted by from_python (TypeError/OverflowError naming it) and validated by the core.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/chain.hpp"

namespace ch = costmetrics::chain;

namespace {

using costmetrics::bindings::from_python;
using Dims = std::vector<std::int64_t>;

ch::RandomChainSpec make_spec(py::handle n_min, py::handle n_max, py::handle chains_per_length,
                              py::handle capacities, py::handle distribution, py::handle lo,
                              py::handle hi, py::handle step, py::handle seed, py::handle beta,
                              py::handle threads) {
  ch::RandomChainSpec spec;
  spec.n_min = from_python<std::int64_t>(n_min, "n_min");
  spec.n_max = from_python<std::int64_t>(n_max, "n_max");
  spec.chains_per_length = from_python<int>(chains_per_length, "chains_per_length");
  spec.capacities_words = from_python<Dims>(capacities, "capacities");
  spec.distribution = from_python<ch::DimDistribution>(distribution, "distribution");
  spec.lo = from_python<std::int64_t>(lo, "lo");
  spec.hi = from_python<std::int64_t>(hi, "hi");
  spec.step = from_python<std::int64_t>(step, "step");
  spec.seed = from_python<std::uint64_t>(seed, "seed");
  spec.beta_reading = from_python<ch::BetaReading>(beta, "beta");
  spec.threads = from_python<int>(threads, "threads");
  spec.validate();
  return spec;
}

}  // namespace

void register_chain(py::module_& m) {
  namespace cb = costmetrics::bindings;
  auto c = m.def_submodule("chain", "Matrix chain products: op count and data movement (000 App. D)");

  cb::bind_record<ch::OpOrder>(c, "OpOrder", "Minimum op-count order (Algorithm 10)")
      .def(
          "split_at",
          [](const ch::OpOrder& o, py::handle i_obj, py::handle j_obj) {
            const int i = from_python<int>(i_obj, "i");
            const int j = from_python<int>(j_obj, "j");
            if (!(1 <= i && i < j && j <= o.n)) {
              throw py::value_error("i, j: need 1 <= i < j <= " + std::to_string(o.n) +
                                    ", got i=" + std::to_string(i) + ", j=" + std::to_string(j));
            }
            return o.split_at(i, j);
          },
          py::arg("i"), py::arg("j"))
      .def_property_readonly("parenthesization",
                             [](const ch::OpOrder& o) { return ch::parenthesization(o); });
  cb::bind_record<ch::TreeNode>(c, "TreeNode", "An internal node <i,j> of the tree");
  cb::bind_record<ch::SingleMMCase>(c, "SingleMMCase", "One resident choice of R = A1 A2");
  cb::bind_record<ch::SingleMM>(c, "SingleMM", "Data movement of R = A1 A2 (Table D.2)");
  cb::bind_record<ch::FusedTwoMM>(c, "FusedTwoMM", "One fused two-multiply schedule");
  cb::bind_record<ch::TwoMM>(c, "TwoMM", "Fused and unfused R = A1 A2 A3 (Table D.3)");
  cb::bind_record<ch::NodeCost>(c, "NodeCost", "OP-DM and hyper-node terms of one node");
  cb::bind_record<ch::DataMovement>(c, "DataMovement", "OP-DM and hyper-node totals");
  cb::bind_record<ch::ParetoPoint>(c, "ParetoPoint", "One (ops, words) Pareto point");
  cb::bind_record<ch::ChainReduction>(c, "ChainReduction", "Table D.1 value of one chain");
  cb::bind_record<ch::JointComparison>(c, "JointComparison",
                                       "Joint front against the fixed tree, one chain");

  c.attr("MAX_PARETO_MATRICES") = ch::kMaxParetoMatrices;
  c.attr("MAX_ORDER_MATRICES") = ch::kMaxOrderMatrices;
  c.attr("MAX_CAPACITIES") = ch::kMaxCapacities;
  c.attr("MAX_CHAIN_RECORDS") = ch::kMaxChainRecords;
  c.attr("DEFAULT_MIN_WORK_PER_THREAD") = ch::kDefaultMinWorkPerThread;

  c.def(
      "optimal_order",
      [](py::handle dims, py::handle threads, py::handle min_work) {
        const auto p = from_python<Dims>(dims, "dims");
        const int t = from_python<int>(threads, "threads");
        const auto w = from_python<std::int64_t>(min_work, "min_work_per_thread");
        py::gil_scoped_release release;
        return ch::optimal_order(p, t, w);
      },
      py::arg("dims"), py::arg("threads") = 0,
      py::arg("min_work_per_thread") = ch::kDefaultMinWorkPerThread);
  c.def(
      "tree_nodes",
      [](py::handle order) { return ch::tree_nodes(from_python<ch::OpOrder>(order, "order")); },
      py::arg("order"));
  c.def(
      "single_mm",
      [](py::handle p0, py::handle p1, py::handle p2, py::handle m) {
        // Converted in argument order, so that an error names the first bad argument.
        const auto a = from_python<std::int64_t>(p0, "P0");
        const auto b = from_python<std::int64_t>(p1, "P1");
        const auto c = from_python<std::int64_t>(p2, "P2");
        return ch::single_mm(a, b, c, from_python<std::int64_t>(m, "M"));
      },
      py::arg("P0"), py::arg("P1"), py::arg("P2"), py::arg("M"));
  c.def(
      "two_mm",
      [](py::handle p0, py::handle p1, py::handle p2, py::handle p3, py::handle m,
         py::handle beta) {
        const auto a = from_python<std::int64_t>(p0, "P0");
        const auto b = from_python<std::int64_t>(p1, "P1");
        const auto c = from_python<std::int64_t>(p2, "P2");
        const auto d = from_python<std::int64_t>(p3, "P3");
        const auto capacity = from_python<std::int64_t>(m, "M");
        return ch::two_mm(a, b, c, d, capacity, from_python<ch::BetaReading>(beta, "beta"));
      },
      py::arg("P0"), py::arg("P1"), py::arg("P2"), py::arg("P3"), py::arg("M"),
      py::arg("beta") = "printed");
  c.def(
      "data_movement",
      [](py::handle dims, py::handle m, py::handle beta, py::handle threads) {
        const auto p = from_python<Dims>(dims, "dims");
        const auto capacity = from_python<std::int64_t>(m, "M");
        const auto reading = from_python<ch::BetaReading>(beta, "beta");
        return ch::data_movement(p, capacity, reading, from_python<int>(threads, "threads"));
      },
      py::arg("dims"), py::arg("M"), py::arg("beta") = "printed", py::arg("threads") = 1);
  c.def(
      "pareto_front",
      [](py::handle dims, py::handle m, py::handle beta) {
        const auto p = from_python<Dims>(dims, "dims");
        const auto capacity = from_python<std::int64_t>(m, "M");
        const auto reading = from_python<ch::BetaReading>(beta, "beta");
        py::gil_scoped_release release;
        return ch::pareto_front(p, capacity, reading);
      },
      py::arg("dims"), py::arg("M"), py::arg("beta") = "printed");
  c.def(
      "random_chain",
      [](py::handle n, py::handle index, py::handle distribution, py::handle lo, py::handle hi,
         py::handle step, py::handle seed) {
        const auto spec = make_spec(py::int_(2), py::int_(2), py::int_(1),
                                    py::make_tuple(65536), distribution, lo, hi, step, seed,
                                    py::str("printed"), py::int_(1));
        const int length = from_python<int>(n, "n");
        return ch::random_chain(spec, length, from_python<int>(index, "index"));
      },
      py::arg("n"), py::arg("index"), py::arg("distribution"), py::arg("lo"), py::arg("hi"),
      py::arg("step"), py::arg("seed"));
  c.def(
      "random_chain_reductions",
      [](py::handle n_min, py::handle n_max, py::handle chains_per_length, py::handle capacities,
         py::handle distribution, py::handle lo, py::handle hi, py::handle step, py::handle seed,
         py::handle beta, py::handle threads) {
        const auto spec = make_spec(n_min, n_max, chains_per_length, capacities, distribution, lo,
                                    hi, step, seed, beta, threads);
        py::gil_scoped_release release;
        return ch::random_chain_reductions(spec);
      },
      py::arg("n_min"), py::arg("n_max"), py::arg("chains_per_length"), py::arg("capacities"),
      py::arg("distribution"), py::arg("lo"), py::arg("hi"), py::arg("step"), py::arg("seed"),
      py::arg("beta"), py::arg("threads"));
  c.def(
      "joint_comparisons",
      [](py::handle n_min, py::handle n_max, py::handle chains_per_length, py::handle capacities,
         py::handle distribution, py::handle lo, py::handle hi, py::handle step, py::handle seed,
         py::handle beta, py::handle threads) {
        const auto spec = make_spec(n_min, n_max, chains_per_length, capacities, distribution, lo,
                                    hi, step, seed, beta, threads);
        py::gil_scoped_release release;
        return ch::joint_comparisons(spec);
      },
      py::arg("n_min"), py::arg("n_max"), py::arg("chains_per_length"), py::arg("capacities"),
      py::arg("distribution"), py::arg("lo"), py::arg("hi"), py::arg("step"), py::arg("seed"),
      py::arg("beta"), py::arg("threads"));
}

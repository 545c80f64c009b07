// Bindings of the matrix-chain models (costmetrics/chain.hpp) as _core.chain.
// Conversion only: enums travel as short strings, structs as read-only classes.
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "costmetrics/chain.hpp"

namespace ch = costmetrics::chain;

namespace {

ch::BetaReading parse_beta(const std::string& name) {
  if (name == "printed") return ch::BetaReading::Printed;
  if (name == "derived") return ch::BetaReading::Derived;
  throw py::value_error("beta must be 'printed' or 'derived', got '" + name + "'");
}

ch::DimDistribution parse_distribution(const std::string& name) {
  if (name == "uniform") return ch::DimDistribution::UniformStep;
  if (name == "loguniform") return ch::DimDistribution::LogUniform;
  throw py::value_error("distribution must be 'uniform' or 'loguniform', got '" + name + "'");
}

const char* fusion_name(ch::Fusion f) {
  switch (f) {
    case ch::Fusion::Left:
      return "left";
    case ch::Fusion::Right:
      return "right";
    case ch::Fusion::None:
      break;
  }
  return "none";
}

const char* resident_name(ch::Resident r) {
  switch (r) {
    case ch::Resident::Input1:
      return "A1";
    case ch::Resident::Input2:
      return "A2";
    case ch::Resident::Output:
      break;
  }
  return "R";
}

ch::RandomChainSpec make_spec(int n_min, int n_max, int chains_per_length,
                              const std::vector<std::int64_t>& capacities,
                              const std::string& distribution, std::int64_t lo, std::int64_t hi,
                              std::int64_t step, std::uint64_t seed, const std::string& beta,
                              int threads) {
  ch::RandomChainSpec spec;
  spec.n_min = n_min;
  spec.n_max = n_max;
  spec.chains_per_length = chains_per_length;
  spec.capacities_words = capacities;
  spec.distribution = parse_distribution(distribution);
  spec.lo = lo;
  spec.hi = hi;
  spec.step = step;
  spec.seed = seed;
  spec.beta_reading = parse_beta(beta);
  spec.threads = threads;
  return spec;
}

}  // namespace

void register_chain(py::module_& m) {
  auto c = m.def_submodule("chain", "Matrix chain products: op count and data movement (000 App. D)");

  py::class_<ch::OpOrder>(c, "OpOrder")
      .def_readonly("dims", &ch::OpOrder::dims)
      .def_readonly("n", &ch::OpOrder::n)
      .def_readonly("min_ops", &ch::OpOrder::min_ops)
      .def("split_at", &ch::OpOrder::split_at, py::arg("i"), py::arg("j"))
      .def_property_readonly("parenthesization", [](const ch::OpOrder& o) {
        return ch::parenthesization(o);
      });

  py::class_<ch::TreeNode>(c, "TreeNode")
      .def_readonly("i", &ch::TreeNode::i)
      .def_readonly("j", &ch::TreeNode::j)
      .def_readonly("k", &ch::TreeNode::k)
      .def_readonly("height", &ch::TreeNode::height)
      .def_readonly("left", &ch::TreeNode::left)
      .def_readonly("right", &ch::TreeNode::right)
      .def_readonly("parent", &ch::TreeNode::parent);

  c.def("optimal_order", &ch::optimal_order, py::arg("dims"), py::arg("threads") = 0,
        py::call_guard<py::gil_scoped_release>());
  c.def("tree_nodes", &ch::tree_nodes, py::arg("order"));

  py::class_<ch::SingleMMCase>(c, "SingleMMCase")
      .def_property_readonly("resident",
                             [](const ch::SingleMMCase& s) { return resident_name(s.resident); })
      .def_readonly("tile1", &ch::SingleMMCase::tile1)
      .def_readonly("tile2", &ch::SingleMMCase::tile2)
      .def_readonly("words", &ch::SingleMMCase::words)
      .def_readonly("valid", &ch::SingleMMCase::valid)
      .def_readonly("reason", &ch::SingleMMCase::reason);
  py::class_<ch::SingleMM>(c, "SingleMM")
      .def_property_readonly("cases",
                             [](const ch::SingleMM& s) {
                               return std::vector<ch::SingleMMCase>(s.cases, s.cases + 3);
                             })
      .def_readonly("best", &ch::SingleMM::best);
  c.def("single_mm", &ch::single_mm, py::arg("P0"), py::arg("P1"), py::arg("P2"), py::arg("M"));

  py::class_<ch::FusedTwoMM>(c, "FusedTwoMM")
      .def_readonly("ratio", &ch::FusedTwoMM::ratio)
      .def_readonly("ratio_prime", &ch::FusedTwoMM::ratio_prime)
      .def_readonly("tile_x", &ch::FusedTwoMM::tile_x)
      .def_readonly("tile_y", &ch::FusedTwoMM::tile_y)
      .def_readonly("words", &ch::FusedTwoMM::words)
      .def_readonly("valid", &ch::FusedTwoMM::valid)
      .def_readonly("reason", &ch::FusedTwoMM::reason);
  py::class_<ch::TwoMM>(c, "TwoMM")
      .def_readonly("left", &ch::TwoMM::left)
      .def_readonly("right", &ch::TwoMM::right)
      .def_readonly("unfused_left_words", &ch::TwoMM::unfused_left_words)
      .def_readonly("unfused_right_words", &ch::TwoMM::unfused_right_words)
      .def_readonly("unfused_valid", &ch::TwoMM::unfused_valid);
  c.def(
      "two_mm",
      [](std::int64_t p0, std::int64_t p1, std::int64_t p2, std::int64_t p3, std::int64_t m,
         const std::string& beta) { return ch::two_mm(p0, p1, p2, p3, m, parse_beta(beta)); },
      py::arg("P0"), py::arg("P1"), py::arg("P2"), py::arg("P3"), py::arg("M"),
      py::arg("beta") = "printed");

  py::class_<ch::NodeCost>(c, "NodeCost")
      .def_readonly("i", &ch::NodeCost::i)
      .def_readonly("j", &ch::NodeCost::j)
      .def_readonly("k", &ch::NodeCost::k)
      .def_readonly("height", &ch::NodeCost::height)
      .def_readonly("left", &ch::NodeCost::left)
      .def_readonly("right", &ch::NodeCost::right)
      .def_readonly("parent", &ch::NodeCost::parent)
      .def_readonly("single_mm", &ch::NodeCost::single_mm)
      .def_readonly("hp", &ch::NodeCost::hp)
      .def_readonly("hl", &ch::NodeCost::hl)
      .def_readonly("hr", &ch::NodeCost::hr)
      .def_readonly("Fp", &ch::NodeCost::Fp)
      .def_readonly("Fl", &ch::NodeCost::Fl)
      .def_readonly("Fr", &ch::NodeCost::Fr)
      .def_readonly("F", &ch::NodeCost::F)
      .def_property_readonly("choice", [](const ch::NodeCost& n) { return fusion_name(n.choice); })
      .def_readonly("tile_x", &ch::NodeCost::tile_x)
      .def_readonly("tile_y", &ch::NodeCost::tile_y)
      .def_readonly("tile_fits", &ch::NodeCost::tile_fits)
      .def_readonly("absorbed", &ch::NodeCost::absorbed);
  py::class_<ch::DataMovement>(c, "DataMovement")
      .def_readonly("order", &ch::DataMovement::order)
      .def_readonly("nodes", &ch::DataMovement::nodes)
      .def_readonly("single_mm_total", &ch::DataMovement::single_mm_total)
      .def_readonly("fused_internal", &ch::DataMovement::fused_internal)
      .def_readonly("output_words", &ch::DataMovement::output_words)
      .def_readonly("fused_total", &ch::DataMovement::fused_total)
      .def_readonly("reduction_percent", &ch::DataMovement::reduction_percent)
      .def_readonly("hypernode_parenthesization", &ch::DataMovement::hypernode_parenthesization);
  c.def(
      "data_movement",
      [](const std::vector<std::int64_t>& dims, std::int64_t m, const std::string& beta,
         int threads) { return ch::data_movement(dims, m, parse_beta(beta), threads); },
      py::arg("dims"), py::arg("M"), py::arg("beta") = "printed", py::arg("threads") = 1);

  py::class_<ch::ParetoPoint>(c, "ParetoPoint")
      .def_readonly("ops", &ch::ParetoPoint::ops)
      .def_readonly("words", &ch::ParetoPoint::words)
      .def_readonly("plan", &ch::ParetoPoint::plan);
  c.def(
      "pareto_front",
      [](const std::vector<std::int64_t>& dims, std::int64_t m, const std::string& beta) {
        const auto reading = parse_beta(beta);
        py::gil_scoped_release release;
        return ch::pareto_front(dims, m, reading);
      },
      py::arg("dims"), py::arg("M"), py::arg("beta") = "printed");

  py::class_<ch::ReductionStats>(c, "ReductionStats")
      .def_readonly("n", &ch::ReductionStats::n)
      .def_readonly("avg", &ch::ReductionStats::avg)
      .def_readonly("min", &ch::ReductionStats::min)
      .def_readonly("max", &ch::ReductionStats::max)
      .def_readonly("chains", &ch::ReductionStats::chains);
  py::class_<ch::RandomChainTable>(c, "RandomChainTable")
      .def_readonly("capacities_words", &ch::RandomChainTable::capacities_words)
      .def_readonly("rows", &ch::RandomChainTable::rows);
  py::class_<ch::JointStats>(c, "JointStats")
      .def_readonly("n", &ch::JointStats::n)
      .def_readonly("chains", &ch::JointStats::chains)
      .def_readonly("avg_traffic_gain", &ch::JointStats::avg_traffic_gain)
      .def_readonly("max_traffic_gain", &ch::JointStats::max_traffic_gain)
      .def_readonly("avg_ops_increase", &ch::JointStats::avg_ops_increase)
      .def_readonly("max_ops_increase", &ch::JointStats::max_ops_increase)
      .def_readonly("avg_front_size", &ch::JointStats::avg_front_size)
      .def_readonly("chains_with_gain", &ch::JointStats::chains_with_gain);

  c.def(
      "random_chain",
      [](int n, int index, const std::string& distribution, std::int64_t lo, std::int64_t hi,
         std::int64_t step, std::uint64_t seed) {
        const auto spec =
            make_spec(2, 2, 1, {65536}, distribution, lo, hi, step, seed, "printed", 1);
        return ch::random_chain(spec, n, index);
      },
      py::arg("n"), py::arg("index"), py::arg("distribution"), py::arg("lo"), py::arg("hi"),
      py::arg("step"), py::arg("seed"));
  c.def(
      "random_chain_experiment",
      [](int n_min, int n_max, int chains_per_length, const std::vector<std::int64_t>& capacities,
         const std::string& distribution, std::int64_t lo, std::int64_t hi, std::int64_t step,
         std::uint64_t seed, const std::string& beta, int threads) {
        const auto spec = make_spec(n_min, n_max, chains_per_length, capacities, distribution, lo,
                                    hi, step, seed, beta, threads);
        py::gil_scoped_release release;
        return ch::random_chain_experiment(spec);
      },
      py::arg("n_min"), py::arg("n_max"), py::arg("chains_per_length"), py::arg("capacities"),
      py::arg("distribution"), py::arg("lo"), py::arg("hi"), py::arg("step"), py::arg("seed"),
      py::arg("beta"), py::arg("threads"));
  c.def(
      "joint_experiment",
      [](int n_min, int n_max, int chains_per_length, const std::vector<std::int64_t>& capacities,
         const std::string& distribution, std::int64_t lo, std::int64_t hi, std::int64_t step,
         std::uint64_t seed, const std::string& beta, int threads) {
        const auto spec = make_spec(n_min, n_max, chains_per_length, capacities, distribution, lo,
                                    hi, step, seed, beta, threads);
        py::gil_scoped_release release;
        return ch::joint_experiment(spec);
      },
      py::arg("n_min"), py::arg("n_max"), py::arg("chains_per_length"), py::arg("capacities"),
      py::arg("distribution"), py::arg("lo"), py::arg("hi"), py::arg("step"), py::arg("seed"),
      py::arg("beta"), py::arg("threads"));
}

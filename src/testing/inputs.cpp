#include "testing/inputs.hpp"

#include <utility>

namespace kubesim::testing {

SimulationInputs make_inputs(std::vector<Node> nodes, std::vector<WorkloadJob> jobs,
                             std::vector<PodTemplate> templates) {
  SimulationInputs in;
  in.nodes = std::move(nodes);
  in.workload.templates = std::move(templates);
  in.workload.jobs = std::move(jobs);
  in.scheduler = default_scheduler_config(in.resource_names);
  return in;
}

SimulationOptions ideal_options(std::uint64_t seed) {
  SimulationOptions o;
  o.seed = seed;
  o.model = ModelConfig::ideal();
  return o;
}

std::vector<Node> numbered_nodes(std::size_t count, const NodeBuilder& node, const std::string& prefix) {
  std::vector<Node> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    Node n = node.build();
    n.name = prefix + std::to_string(i);
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace kubesim::testing

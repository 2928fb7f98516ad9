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

std::string kueue_config(const KueueQueue& queue) {
  std::string text =
      "kind: ResourceFlavor\nmetadata: {name: f}\n---\n"
      "kind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  namespaceSelector: {}\n";
  if (!queue.preemption.empty()) text += "  preemption: " + queue.preemption + "\n";
  text +=
      "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
      "      resources: [{name: cpu, nominalQuota: " +
      std::to_string(queue.cpu_quota) + "}]\n---\n";
  text += "kind: LocalQueue\nmetadata: {name: lq, namespace: " + queue.local_queue_ns +
          "}\nspec: {clusterQueue: cq}\n---\n";
  text += "kind: Configuration\nclientConnection: {qps: 1000000, burst: 1000000}\nkubesim: {apiLatencyMicros: 0}\n";
  if (!queue.frameworks.empty()) text += "integrations: {frameworks: " + queue.frameworks + "}\n";
  return text;
}

}  // namespace kubesim::testing

// Whole-simulation inputs built in code: the small cluster fixture of the engine, setups and
// calibrate tests (engine/simulation.hpp SimulationInputs).
//   make_inputs(numbered_nodes(2, NodeBuilder("").cpu("4").memory("16Gi")),
//               {JobBuilder("a", 0, 10)}, {PodTemplateBuilder().cpu("1")})
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/simulation.hpp"
#include "testing/builders.hpp"

namespace kubesim::testing {

// The nodes, the workload's templates and jobs (namespace "default" only), and kube-scheduler's
// default profile (default_scheduler_config) as scheduler 0.
SimulationInputs make_inputs(std::vector<Node> nodes, std::vector<WorkloadJob> jobs,
                             std::vector<PodTemplate> templates);

// The ideal latency model (ModelConfig::ideal(): every delay zero, so every time is exact).
SimulationOptions ideal_options(std::uint64_t seed = 1);

// `count` copies of `node` named "<prefix>0", "<prefix>1", ... (labels and taints kept).
std::vector<Node> numbered_nodes(std::size_t count, const NodeBuilder& node, const std::string& prefix = "node-");

// The Kueue configuration of the setups tests (sched/kueue/kueue_config.hpp reads it): one
// ResourceFlavor "f", ClusterQueue "cq" for every namespace with `cpu_quota` cores of nominal
// quota, LocalQueue "lq" in namespace `local_queue_ns`, and an unthrottled client with zero API
// latency so that every time is exact.
struct KueueQueue {
  std::string local_queue_ns = "default";
  int cpu_quota = 1;
  std::string preemption;  // the ClusterQueue's spec.preemption, e.g. "{withinClusterQueue: LowerPriority}"; "": none
  std::string frameworks;  // the Configuration's integrations.frameworks, e.g. "[batch/job, pod]"; "": Kueue's default
};
std::string kueue_config(const KueueQueue& queue);

}  // namespace kubesim::testing

#include "sched/kube/plugins/node_resources_allocatable/node_resources_allocatable.hpp"

#include <limits>

namespace kubesim {

// resource_allocation.go score with allocatable.go's scorer: Σ alloc_r·w_r / Σ w_r (int64,
// truncating), negated in mode Least. The pod and the node's usage play no part.
std::int64_t NodeResourcesAllocatable::raw_score(const NodeInfo& node) const {
  std::int64_t sum = 0;
  std::int64_t weights = 0;
  for (const auto& [slot, w] : args_.resources) {
    const std::int64_t alloc = node.allocatable[slot];
    sum += (args_.mode == NodeResourcesAllocatableArgs::Mode::kLeast ? -alloc : alloc) * w;
    weights += w;
  }
  return weights == 0 ? 0 : sum / weights;
}

void NodeResourcesAllocatable::score(const CycleContext&, std::span<const NodeInfo* const> nodes,
                                     std::span<std::int64_t> scores) const {
  std::int64_t highest = -std::numeric_limits<std::int64_t>::max();
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    scores[i] = raw_score(*nodes[i]);
    if (scores[i] > highest) highest = scores[i];
    if (scores[i] < lowest) lowest = scores[i];
  }
  // allocatable.go NormalizeScore: onto [MinNodeScore, MaxNodeScore]; all MinNodeScore when
  // every node scored the same.
  const std::int64_t old_range = highest - lowest;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    scores[i] = old_range == 0 ? 0 : (scores[i] - lowest) * kMaxNodeScore / old_range;
}

}  // namespace kubesim

// NodeResourcesBalancedAllocation (pkg/scheduler/framework/plugins/noderesources/
// balanced_allocation.go, v1.26): favours nodes whose resource fractions stay balanced after
// placing the pod. Uses the real requests (useRequested=true), not the non-zero defaults.
#pragma once

#include <vector>

#include "sched/kube/framework.hpp"
#include "sched/kube/plugins/node_resources_fit/node_resources_fit.hpp"

namespace kubesim {

// balancedResourceScorer over (requested, allocatable) pairs; exposed for unit tests.
std::int64_t balanced_resource_score(std::span<const std::int64_t> requested, std::span<const std::int64_t> allocatable);

class BalancedAllocation final : public ScorePlugin {
 public:
  explicit BalancedAllocation(std::vector<ResourceWeight> resources = {{kCpu, 1}, {kMemory, 1}})
      // Validation refuses a resource named twice (as upstream); merged here too, so that the
      // per-node arrays of kMaxResources entries bound every list (weights are unused).
      : resources_(merge_duplicate_resources(resources)) {}
  const char* name() const override { return "NodeResourcesBalancedAllocation"; }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;
  bool scores_node_alone() const override { return true; }  // the NodeInfo's sums and the template's requests
  std::int64_t score_node(const PodTemplate& spec, const NodeInfo& node) const;

 private:
  std::vector<ResourceWeight> resources_;
};

}  // namespace kubesim

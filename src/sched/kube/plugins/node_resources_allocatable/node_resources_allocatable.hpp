// NodeResourcesAllocatable from kubernetes-sigs/scheduler-plugins
// (pkg/noderesources/allocatable.go, resource_allocation.go): scores a node by its static
// allocatable, weighted per resource; mode Least prefers the smallest nodes, Most the largest.
#pragma once

#include <vector>

#include "sched/kube/framework.hpp"

namespace kubesim {

struct NodeResourcesAllocatableArgs {
  enum class Mode : std::uint8_t { kLeast, kMost };
  Mode mode = Mode::kLeast;
  // apis/config/v1 defaults.go: cpu 1<<20 (per millicore), memory 1 (per byte).
  std::vector<std::pair<std::size_t, std::int64_t>> resources = {{kCpu, 1 << 20}, {kMemory, 1}};
};

class NodeResourcesAllocatable final : public ScorePlugin {
 public:
  explicit NodeResourcesAllocatable(NodeResourcesAllocatableArgs args) : args_(std::move(args)) {}
  const char* name() const override { return "NodeResourcesAllocatable"; }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;
  // Score before NormalizeScore.
  std::int64_t raw_score(const NodeInfo& node) const;

 private:
  NodeResourcesAllocatableArgs args_;
};

}  // namespace kubesim

// GpuPackingScore of the FGD authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/gpu_packing_score.go getPackingScore): a GPU pod prefers, in order,
// GPUs already shared (the fuller the better), then wholly free GPUs on a node in use, then an
// idle node; a pod without GPU scores 0 everywhere. No normalisation.
#pragma once

#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"

namespace kubesim {

// getPackingScore; -1 when the node cannot hold the pod's GPUs.
std::int64_t gpu_packing_score(const GpuNodeState& node, const GpuShape& pod);

class GpuPackingScore final : public GpuScorePlugin {
 public:
  const char* name() const override { return "GpuPackingScore"; }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;
};

}  // namespace kubesim

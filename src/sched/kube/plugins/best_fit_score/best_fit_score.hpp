// BestFitScore of the FGD authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/best_fit_score.go getBestFitScore): the weighted free cpu and GPU left
// after the pod, each over the largest node's, turned into "less left is better" on 0..100,
// then min-max normalised (plugin_utils.go NormalizeScore).
#pragma once

#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"

namespace kubesim {

// getBestFitScore before normalisation; -1 when the node lacks cpu or GPU milli for the pod.
std::int64_t best_fit_score(const GpuNodeState& node, const GpuShape& pod);

class BestFitScore final : public GpuScorePlugin {
 public:
  const char* name() const override { return "BestFitScore"; }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;
};

}  // namespace kubesim

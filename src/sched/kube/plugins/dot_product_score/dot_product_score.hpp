// DotProductScore of the FGD authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/dot_product_score.go calculateDotProductScore, after Tetris): the dot
// product of the node's free and the pod's requested (cpu, GPU milli), normalised, the smaller
// the better; the node's GPUs seen as one dimension ("merge") or as one virtual node per shared
// GPU plus one for the wholly free GPUs ("share", "divide"), or as one dimension per shared GPU
// plus one for the wholly free GPUs of a single node vector ("extend": pkg/type/resource.go
// ToVirtualNodeResourceList, ToVirtualPodResourceList, ToFormalizedGpuResourceList; utils.go
// GenerateSchedulingMatchGroups). No normalisation.
#pragma once

#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"

namespace kubesim {

// GpuPluginCfg (pkg/type/config.go): dimExtMethod and normMethod.
struct DotProductArgs {
  enum class Dim : std::uint8_t { kMerge, kShare, kDivide, kExtend } dim = Dim::kShare;
  enum class Norm : std::uint8_t { kMax, kNode, kPod } norm = Norm::kMax;
};

// The score (0..100) and the devices of the best virtual node (none: "merge", or a pod without
// GPU); score 0 and no devices when no virtual node fits.
struct DotProductChoice {
  std::int64_t score = 0;
  DeviceGrants devices;
};
DotProductChoice dot_product_choice(const GpuNodeState& node, const GpuShape& pod, const DotProductArgs& args);

class DotProductScore final : public GpuScorePlugin {
 public:
  explicit DotProductScore(DotProductArgs args) : args_(args) {}
  const char* name() const override { return "DotProductScore"; }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;

 private:
  DotProductArgs args_;
};

}  // namespace kubesim

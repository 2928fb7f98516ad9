// What the FGD authors' GPU score plugins share (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/plugin_utils.go, pkg/utils/utils.go): the pod's shape, a node's state
// (NodeResource) from the scheduler cache, the fork's NormalizeScore and their constants.
// Not a plugin itself: the base of the plugins of the sibling folders.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "cluster/gpu_frag.hpp"
#include "sched/kube/framework.hpp"

namespace kubesim {

// open-gpu-share/utils/const.go: the largest node the scores normalise by.
inline constexpr std::int64_t kMaxSpecCpu = 128000;  // milli
inline constexpr std::int64_t kMaxSpecGpu = 8000;    // GPU milli

class GpuScorePlugin : public ScorePlugin, public GpuPlugin {
 public:
  void set_gpu_handle(GpuHandle* handle) override { handle_ = handle; }

 protected:
  // GetPodResource of the cycle's pod.
  static GpuShape pod_shape(const CycleContext& ctx) {
    return gpu_shape(ctx.spec, ctx.store.resource_names().find(kGpuDeviceClass));
  }
  // GetNodeResourceViaNodeInfo: the node's cpu and GPUs left in the scheduler cache.
  GpuNodeState node_state(const NodeInfo& node) const { return gpu_node_state(handle_->node_cache(), node.id); }

  GpuHandle* handle_ = nullptr;
};

// plugin_utils.go NormalizeScore: min-max scaling to 0..100 (all equal: every score 0).
void fork_normalize_score(std::span<std::int64_t> scores);

// plugin_utils.go sigmoid.
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace kubesim

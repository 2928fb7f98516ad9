// Open-Gpu-Share of the FGD authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/open_gpu_share.go; its node view open-gpu-share/cache/gpunodeinfo.go):
// Filter rejects a node without GPUs, of a GPU model the pod does not accept, or without room
// for the pod's GPUs (AllocateGpuId); Reserve chooses the pod's GPUs on the chosen node by the
// configured gpuSelMethod — best (the tightest GPU), worst, random, or the score plugin's own
// choice (FGDScore, DotProductScore) — and records them as the pod's devices. Pods asking for
// no GPU pass both. A profile with this plugin also takes the fork's tie-break
// (Profile::lowest_name_ties).
#pragma once

#include "core/random.hpp"
#include "sched/kube/framework.hpp"
#include "sched/kube/plugins/dot_product_score/dot_product_score.hpp"

namespace kubesim {

inline constexpr const char* kOpenGpuSharePlugin = "Open-Gpu-Share";
// The seeded stream of gpuSelMethod random's draws (the run's seed). The openb protocol mode
// draws its Random policy's GPUs from the same stream, so both choose the same GPUs.
inline constexpr const char* kOpenGpuShareStream = "plugins/open-gpu-share";

// OpenGpuSharePluginCfg (pkg/type/config.go).
struct OpenGpuShareArgs {
  enum class Sel : std::uint8_t { kBest, kWorst, kRandom, kFgd, kDotProduct } sel = Sel::kBest;
  DotProductArgs dot;  // dimExtMethod, normMethod (for gpuSelMethod DotProductScore)
};

class OpenGpuShare final : public FilterPlugin, public ReservePlugin, public GpuPlugin {
 public:
  explicit OpenGpuShare(OpenGpuShareArgs args) : args_(args) {}
  const char* name() const override { return kOpenGpuSharePlugin; }
  std::uint32_t events_to_register() const override { return kEventPodDelete | kEventNodeAdd | kEventNodeUpdateAny; }
  void set_gpu_handle(GpuHandle* handle) override;
  bool applies(const CycleContext& ctx) const override;
  FilterResult filter(const CycleContext& ctx, const NodeInfo& node) const override;
  PluginStatus reserve(PodId pod, NodeId node, SimTime now) override;
  void unreserve(PodId, NodeId, SimTime) override {}  // the cache forgets the pod's devices

  // The GPUs (node device indices) gpuSelMethod gives `pod` on a node in state `node` (before
  // the pod); empty when none fits.
  DeviceGrants choose(const GpuNodeState& node, const GpuShape& pod);

 private:
  OpenGpuShareArgs args_;
  GpuHandle* handle_ = nullptr;
  RandomStream rng_;
  mutable GpuShape shape_;  // the cycle's pod (applies)
};

// GpuNodeInfo.AllocateGpuId's test: whether the node's GPUs hold `pod` (one GPU with room for
// a one-GPU pod; `count` placements of `milli` packed greedily in GPU order otherwise).
bool gpus_hold(const GpuNodeState& node, const GpuShape& pod);

// allocateGpuIdBasedOnBestFit / WorstFit / RandomFit for a share pod (`sel` kBest, kWorst or
// kRandom): the one GPU with room the method picks (the tightest, the loosest, or uniformly
// drawn from `random_draw`: one draw per GPU with room, reservoir sampling); empty when none
// has room. The plugin's Reserve and the openb protocol mode's Random policy both call it.
DeviceGrants fit_shared_gpu(const GpuNodeState& node, const GpuShape& pod, OpenGpuShareArgs::Sel sel,
                            RandomStream& random_draw);

}  // namespace kubesim

// FGDScore, the paper's policy (Fragmentation Gradient Descent; hkust-adsl/
// kubernetes-scheduler-simulator, pkg/simulator/plugin/fgd_score.go
// calculateGpuShareFragExtendScore): the node whose fragmentation for the typical pods grows
// least when the pod lands there, as sigmoid((frag before - frag after) / 1000) on 0..100; a
// share pod is tried on each GPU with room, the best GPU being the one Reserve gives it. No
// normalisation.
//
// Cost: a node's fragmentation before the pod, and its scores for the pod shapes seen since,
// are kept per node and dropped only when the node's device use or cpu requests change
// (NodeCache::device_generation): a cycle recomputes the nodes that changed since the last
// pod of its shape (one per binding). A share pod is tried once per distinct free milli
// (equal GPUs give equal scores, the first one wins).
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"

namespace kubesim {

// The score of a node for the pod, given the node's fragmentation `frag_before`, and the GPUs
// the pod gets there (a share pod: the best GPU; else the wholly free ones, or none for a pod
// without GPU); `with_devices` false leaves them out (the score alone).
struct FgdChoice {
  std::int64_t score = 0;
  DeviceGrants devices;
};
FgdChoice fgd_choice(const GpuNodeState& node, double frag_before, const GpuShape& pod, const TypicalPods& typical,
                     std::span<const std::uint8_t> access, bool with_devices = true);

class FgdScore final : public GpuScorePlugin {
 public:
  const char* name() const override { return "FGDScore"; }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;

 private:
  struct NodeFrag {
    std::uint64_t generation = ~std::uint64_t{0};
    std::int64_t cpu_left = 0;
    double frag = 0;
    const std::string* model = nullptr;
    std::vector<std::uint8_t> access;  // model_access for the node's model
    std::vector<std::pair<std::uint32_t, std::int64_t>> scores;  // (shape id, score) in this state
  };
  const NodeFrag& node_frag(const GpuNodeState& state, NodeId node) const;
  std::int64_t node_score(const GpuShape& pod, std::uint32_t shape_id, const NodeInfo& node) const;
  mutable std::vector<NodeFrag> frags_;  // by NodeId
  mutable std::map<GpuShape, std::uint32_t> shape_ids_;  // the pod shapes seen, numbered
  mutable const TypicalPods* typical_ = nullptr;  // the pods frags_ was computed for
};

}  // namespace kubesim

// GpuClusteringScore of the FGD authors' simulator (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/gpu_clustering_score.go): a GPU pod prefers nodes whose GPU pods are all
// of its own kind ("share-gpu", "k-gpu": open-gpu-share/utils/pod.go GetGpuAffinityFromPodAnnotation),
// then nodes with its kind among others, then idle nodes, then nodes of other kinds; within each
// band, the fewer GPU milli left the better. A pod without GPU scores 0. No normalisation.
#pragma once

#include <span>

#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"

namespace kubesim {

// The affinity tag of a shape: 0 no GPU, 1 a share of one GPU, else 1 + the number of whole GPUs.
std::int32_t gpu_affinity(const GpuShape& shape);
// The score of a node with `gpu_left` free GPU milli whose GPU pods have the tags `node_tags`
// (one entry per pod, 0s ignored), for a GPU pod of tag `pod_tag` (> 0).
std::int64_t gpu_clustering_score(std::int64_t gpu_left, std::span<const std::int32_t> node_tags, std::int32_t pod_tag);

class GpuClusteringScore final : public GpuScorePlugin {
 public:
  const char* name() const override { return "GpuClusteringScore"; }
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;

 private:
  mutable std::vector<std::int32_t> tags_;  // scratch: the tags of one node's pods
};

}  // namespace kubesim

#include "sched/kube/plugins/gpu_packing_score/gpu_packing_score.hpp"

#include <algorithm>
#include <array>

namespace kubesim {

std::int64_t gpu_packing_score(const GpuNodeState& node, const GpuShape& pod) {
  const std::int64_t fully_free = node.fully_free();
  // case 3: every GPU of the node is free (the fork caps the score at the free count).
  if (fully_free == node.gpus) return std::max(kMaxNodeScore / 3 - fully_free, fully_free);
  // The GPUs the pod would use, the least free first (SortedMilliGpuLeftIndexList, stable).
  std::array<std::uint8_t, kMaxGpusPerNode> order{};
  for (std::uint8_t i = 0; i < node.gpus; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.begin() + node.gpus,
                   [&](std::uint8_t a, std::uint8_t b) { return node.left[a] < node.left[b]; });
  std::int32_t wanted = pod.count;
  std::int64_t free_to_use = 0;
  std::int64_t free_ratio_on_used = 0;  // sum of each used GPU's free percent
  for (std::size_t k = 0; k < node.gpus && wanted > 0; ++k) {
    const std::int32_t left = node.left[order[k]];
    if (pod.milli > left) continue;
    --wanted;
    if (left == kDeviceShareUnits) ++free_to_use;
    free_ratio_on_used += static_cast<std::int64_t>(left) * 100 / kDeviceShareUnits;
  }
  if (wanted != 0) return -1;
  // case 2: wholly free GPUs on a node in use.
  if (free_to_use > 0) return std::max(kMaxNodeScore / 2 - free_to_use, kMaxNodeScore / 3);
  // case 1: shared GPUs only.
  return std::max(kMaxNodeScore - free_ratio_on_used / 10, kMaxNodeScore / 2);
}

void GpuPackingScore::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                            std::span<std::int64_t> scores) const {
  const GpuShape pod = pod_shape(ctx);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (pod.milli <= 0) {
      scores[i] = 0;
      continue;
    }
    const std::int64_t s = gpu_packing_score(node_state(*nodes[i]), pod);
    scores[i] = s < 0 ? 0 : s;  // the filters keep such nodes out (upstream: an error status)
  }
}

}  // namespace kubesim

#include "sched/kube/plugins/gpu_clustering_score/gpu_clustering_score.hpp"

#include <algorithm>

namespace kubesim {
namespace {

// gpu_affinity of a pod template's GPU request, without building its shape's text.
std::int32_t template_affinity(const PodTemplate& spec, int gpu_slot) {
  for (const DeviceRequest& r : spec.device_requests)
    if (r.device_class == kGpuDeviceClass) return gpu_affinity(GpuShape{0, std::min(r.share, kDeviceShareUnits), r.count, {}});
  const std::int64_t whole = gpu_slot >= 0 ? spec.requests[static_cast<std::size_t>(gpu_slot)] : 0;
  return whole > 0 ? 1 + static_cast<std::int32_t>(whole) : 0;
}

}  // namespace

std::int32_t gpu_affinity(const GpuShape& shape) {
  if (shape.count == 0 || shape.milli == 0) return 0;
  if (shape.is_share()) return 1;
  return 1 + shape.count;
}

std::int64_t gpu_clustering_score(std::int64_t gpu_left, std::span<const std::int32_t> node_tags, std::int32_t pod_tag) {
  bool has_own = false;
  bool has_other = false;
  for (const std::int32_t t : node_tags) {
    if (t == 0) continue;
    (t == pod_tag ? has_own : has_other) = true;
  }
  // Go's integer arithmetic: MaxNodeScore/4*(MaxSpecGpu-left)/MaxSpecGpu + band.
  const std::int64_t fill = kMaxNodeScore / 4 * (kMaxSpecGpu - gpu_left) / kMaxSpecGpu;
  if (has_own) return fill + (has_other ? kMaxNodeScore * 2 / 4 : kMaxNodeScore * 3 / 4);
  return fill + (has_other ? 0 : kMaxNodeScore / 4);
}

void GpuClusteringScore::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                               std::span<std::int64_t> scores) const {
  const GpuShape pod = pod_shape(ctx);
  const std::int32_t tag = gpu_affinity(pod);
  const NodeCache& cache = handle_->node_cache();
  const int gpu_slot = ctx.store.resource_names().find(kGpuDeviceClass);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (tag == 0) {
      scores[i] = 0;
      continue;
    }
    tags_.clear();
    for (const PodTemplateId spec : cache.specs_on(nodes[i]->id))
      tags_.push_back(template_affinity(ctx.store.spec(spec), gpu_slot));
    scores[i] = gpu_clustering_score(node_state(*nodes[i]).total_left(), tags_, tag);
  }
}

}  // namespace kubesim

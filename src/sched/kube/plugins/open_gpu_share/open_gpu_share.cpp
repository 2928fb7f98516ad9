#include "sched/kube/plugins/open_gpu_share/open_gpu_share.hpp"

#include "sched/kube/plugins/fgd_score/fgd_score.hpp"

namespace kubesim {

bool gpus_hold(const GpuNodeState& node, const GpuShape& pod) {
  if (pod.milli <= 0 || pod.count <= 0) return false;
  std::array<std::int32_t, kMaxGpusPerNode> left = node.left;
  std::int32_t placed = 0;
  for (std::size_t g = 0; g < node.gpus && placed < pod.count;) {  // two pointers
    if (left[g] >= pod.milli) {
      left[g] -= pod.milli;
      ++placed;
    } else {
      ++g;
    }
  }
  return placed == pod.count;
}

void OpenGpuShare::set_gpu_handle(GpuHandle* handle) {
  handle_ = handle;
  rng_ = RandomStream(handle->seed(), kOpenGpuShareStream);
}

bool OpenGpuShare::applies(const CycleContext& ctx) const {
  shape_ = gpu_shape(ctx.spec, ctx.store.resource_names().find(kGpuDeviceClass));
  return shape_.milli > 0;
}

FilterResult OpenGpuShare::filter(const CycleContext&, const NodeInfo& node) const {
  const GpuNodeState s = gpu_node_state(handle_->node_cache(), node.id);
  if (s.gpus == 0) return FilterResult::failure(StatusCode::kUnschedulable, "Open-Gpu-Share: node has no GPU");
  if (!accepts_model(shape_, s.model ? *s.model : std::string()))
    return FilterResult::failure(StatusCode::kUnschedulable, "Open-Gpu-Share: GPU model not requested");
  if (!gpus_hold(s, shape_)) return FilterResult::failure(StatusCode::kUnschedulable, "Open-Gpu-Share: insufficient GPU");
  return FilterResult{};
}

DeviceGrants OpenGpuShare::choose(const GpuNodeState& node, const GpuShape& pod) {
  using Sel = OpenGpuShareArgs::Sel;
  if (args_.sel == Sel::kFgd) {
    const TypicalPods& typical = handle_->typical_pods();
    const std::vector<std::uint8_t> access = model_access(typical, node.model);
    return fgd_choice(node, node_frag_amount(node, typical, access), pod, typical, access).devices;
  }
  if (args_.sel == Sel::kDotProduct) return dot_product_choice(node, pod, args_.dot).devices;
  if (!pod.is_share()) return exclusive_gpus(node, pod);
  return fit_shared_gpu(node, pod, args_.sel, rng_);
}

DeviceGrants fit_shared_gpu(const GpuNodeState& node, const GpuShape& pod, OpenGpuShareArgs::Sel sel,
                            RandomStream& random_draw) {
  using Sel = OpenGpuShareArgs::Sel;
  int pick = -1;
  std::uint64_t seen = 0;
  for (std::uint8_t i = 0; i < node.gpus; ++i) {
    if (node.left[i] < pod.milli) continue;
    const bool better = pick < 0 || (sel == Sel::kBest && node.left[i] < node.left[static_cast<std::size_t>(pick)]) ||
                        (sel == Sel::kWorst && node.left[i] > node.left[static_cast<std::size_t>(pick)]);
    if (sel == Sel::kRandom ? random_draw.uniform_below(++seen) == 0 : better) pick = i;
  }
  DeviceGrants out;
  if (pick >= 0) out.push_back(DeviceGrant{node.device[static_cast<std::size_t>(pick)], pod.milli});
  return out;
}

PluginStatus OpenGpuShare::reserve(PodId pod, NodeId node, SimTime) {
  const ObjectStore& store = handle_->store();
  const PodTemplate& spec = store.spec_of(pod);
  const GpuShape shape = gpu_shape(spec, store.resource_names().find(kGpuDeviceClass));
  if (shape.milli <= 0) return {};
  // The node as the cycle saw it (the fork's snapshot): without the assumed pod.
  const NodeCache& cache = handle_->node_cache();
  GpuNodeState s = gpu_node_state(cache, node);
  s.cpu_left += spec.requests[kCpu];
  for (const DeviceGrant& g : cache.grants_of(pod))
    for (std::size_t i = 0; i < s.gpus; ++i)
      if (s.device[i] == g.device) s.left[i] += g.share;
  DeviceGrants grants = choose(s, shape);
  if (grants.empty())
    return {StatusCode::kError, "Open-Gpu-Share: failed to allocate a GPU on node " + store.node(node).name};
  handle_->set_device_grants(pod, std::move(grants));
  return {};
}

}  // namespace kubesim

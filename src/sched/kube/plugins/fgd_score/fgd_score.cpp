#include "sched/kube/plugins/fgd_score/fgd_score.hpp"

#include <algorithm>

namespace kubesim {
namespace {

std::int64_t fgd_score_of(double frag_before, double frag_after) {
  return static_cast<std::int64_t>(sigmoid((frag_before - frag_after) / 1000) * static_cast<double>(kMaxNodeScore));
}

}  // namespace

FgdChoice fgd_choice(const GpuNodeState& node, double frag_before, const GpuShape& pod, const TypicalPods& typical,
                     std::span<const std::uint8_t> access, bool with_devices) {
  FgdChoice out;
  if (!pod.is_share()) {
    // NodeResource.Sub, and AllocateExclusiveGpuId for the devices.
    out.score = fgd_score_of(frag_before, node_frag_amount(after_placement(node, pod), typical, access));
    if (with_devices && pod.count > 0) out.devices = exclusive_gpus(node, pod);
    return out;
  }
  int best = -1;
  std::array<std::int32_t, kMaxGpusPerNode> tried{};
  std::size_t n_tried = 0;
  for (std::uint8_t i = 0; i < node.gpus; ++i) {
    const std::int32_t left = node.left[i];
    if (left < pod.milli) continue;
    // An earlier GPU with the same free milli scored the same and keeps the choice.
    if (std::find(tried.begin(), tried.begin() + static_cast<std::ptrdiff_t>(n_tried), left) !=
        tried.begin() + static_cast<std::ptrdiff_t>(n_tried))
      continue;
    tried[n_tried++] = left;
    const std::int64_t s = fgd_score_of(frag_before, node_frag_amount(after_placement(node, pod, i), typical, access));
    if (best < 0 || s > out.score) {
      out.score = s;
      best = i;
    }
  }
  if (with_devices && best >= 0) out.devices.push_back(DeviceGrant{node.device[static_cast<std::size_t>(best)], pod.milli});
  return out;
}

const FgdScore::NodeFrag& FgdScore::node_frag(const GpuNodeState& state, NodeId node) const {
  const TypicalPods& typical = handle_->typical_pods();
  if (typical_ != &typical) {
    frags_.clear();
    typical_ = &typical;
  }
  if (frags_.size() <= node.value()) frags_.resize(node.value() + 1);
  NodeFrag& f = frags_[node.value()];
  const std::uint64_t generation = handle_->node_cache().device_generation(node);
  if (f.model != state.model || f.access.size() != typical.size()) {
    f.model = state.model;
    f.access = model_access(typical, state.model);
    f.generation = ~std::uint64_t{0};
  }
  if (f.generation != generation || f.cpu_left != state.cpu_left) {
    f.generation = generation;
    f.cpu_left = state.cpu_left;
    f.frag = node_frag_amount(state, typical, f.access);
    f.scores.clear();
  }
  return f;
}

std::int64_t FgdScore::node_score(const GpuShape& pod, std::uint32_t shape_id, const NodeInfo& node) const {
  // A node unchanged since it scored this shape scores it the same: no state built.
  if (typical_ == &handle_->typical_pods() && node.id.value() < frags_.size()) {
    const NodeFrag& f = frags_[node.id.value()];
    if (f.generation == handle_->node_cache().device_generation(node.id) &&
        f.cpu_left == node.allocatable[kCpu] - node.requested[kCpu])
      for (const auto& [id, score] : f.scores)
        if (id == shape_id) return score;
  }
  const GpuNodeState state = node_state(node);
  const NodeFrag& f = node_frag(state, node.id);
  const std::int64_t score = fgd_choice(state, f.frag, pod, handle_->typical_pods(), f.access, false).score;
  NodeFrag& kept = frags_[node.id.value()];
  if (kept.scores.size() >= 64) kept.scores.clear();  // bounded: shapes beyond that are recomputed
  kept.scores.emplace_back(shape_id, score);
  return score;
}

void FgdScore::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                     std::span<std::int64_t> scores) const {
  if (ctx.spec.requested_slots == 0 && ctx.spec.device_requests.empty()) {  // PodRequestsAndLimits empty
    std::fill(scores.begin(), scores.end(), kMaxNodeScore);
    return;
  }
  const GpuShape pod = pod_shape(ctx);
  const auto [it, added] = shape_ids_.emplace(pod, static_cast<std::uint32_t>(shape_ids_.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) scores[i] = node_score(pod, it->second, *nodes[i]);
}

}  // namespace kubesim

#include "sched/plugins/node_resources_fit/node_resources_fit.hpp"

#include <cmath>

namespace kubesim {

std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity) {
  // least_allocated.go leastRequestedScore
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity) {
  // most_allocated.go mostRequestedScore: requested can exceed capacity because of the
  // non-zero defaults, so it is capped.
  if (capacity == 0) return 0;
  if (requested > capacity) requested = capacity;
  return requested * kMaxNodeScore / capacity;
}

std::int64_t broken_linear(const std::vector<UtilizationShapePoint>& shape, std::int64_t p) {
  // framework/plugins/helper/shape_score.go BuildBrokenLinearFunction
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      return shape[i - 1].score + (shape[i].score - shape[i - 1].score) * (p - shape[i - 1].utilization) /
                                      (shape[i].utilization - shape[i - 1].utilization);
    }
  }
  return shape.back().score;
}

bool allocatable_and_requested(const NodeInfo& node, const PodTemplate& spec, std::size_t slot, bool use_requested,
                               std::int64_t* allocatable, std::int64_t* requested) {
  std::int64_t alloc = node.node->allocatable[slot];
  std::int64_t req = 0;
  switch (slot) {
    case kCpu:
      req = use_requested ? node.requested[kCpu] + spec.requests[kCpu] : node.nonzero_cpu + spec.nonzero_requests[kCpu];
      break;
    case kMemory:
      req = use_requested ? node.requested[kMemory] + spec.requests[kMemory]
                          : node.nonzero_memory + spec.nonzero_requests[kMemory];
      break;
    case kEphemeralStorage: req = node.requested[slot] + spec.requests[slot]; break;
    default:
      // An extended resource the pod does not request is bypassed.
      if (spec.requests[slot] == 0) return false;
      req = node.requested[slot] + spec.requests[slot];
  }
  if (alloc == 0) return false;  // "Only fill the extended resource entry when it's non-zero."
  *allocatable = alloc;
  *requested = req;
  return true;
}

NodeResourcesFit::NodeResourcesFit(ScoringStrategy strategy) : strategy_(std::move(strategy)) {
  // requested_to_capacity_ratio.go: shape scores are scaled by MaxNodeScore/MaxCustomPriorityScore.
  for (auto p : strategy_.shape) scaled_shape_.push_back({p.utilization, p.score * (kMaxNodeScore / 10)});
}

const char* first_insufficient_resource(const PodTemplate& spec, const NodeInfo& node) {
  const Node& n = *node.node;
  if (node.pod_count + 1 > n.allowed_pods) return "Too many pods";
  const Resources& want = spec.requests;
  bool all_zero = true;
  for (auto v : want.amount) all_zero = all_zero && v == 0;
  if (all_zero) return nullptr;
  static const char* const kInsufficient[kMaxResources] = {
      "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage", "Insufficient extended resource",
      "Insufficient extended resource", "Insufficient extended resource", "Insufficient extended resource",
      "Insufficient extended resource"};
  for (std::size_t i = 0; i < kMaxResources; ++i) {
    if (i > kEphemeralStorage && want[i] == 0) continue;  // only resources the pod requests
    if (want[i] > n.allocatable[i] - node.requested[i]) return kInsufficient[i];
  }
  return nullptr;
}

FilterResult NodeResourcesFit::filter(const CycleContext& ctx, const NodeInfo& node) const {
  if (const char* reason = first_insufficient_resource(ctx.spec, node))
    return {StatusCode::kUnschedulable, reason};
  return {};
}

std::int64_t NodeResourcesFit::score_node(const PodTemplate& spec, const NodeInfo& node) const {
  std::int64_t node_score = 0;
  std::int64_t weight_sum = 0;
  for (const auto& rw : strategy_.resources) {
    std::int64_t alloc = 0;
    std::int64_t req = 0;
    if (!allocatable_and_requested(node, spec, rw.slot, /*use_requested=*/false, &alloc, &req)) continue;
    switch (strategy_.type) {
      case ScoringStrategy::Type::kLeastAllocated:
        node_score += least_requested_score(req, alloc) * rw.weight;
        weight_sum += rw.weight;
        break;
      case ScoringStrategy::Type::kMostAllocated:
        node_score += most_requested_score(req, alloc) * rw.weight;
        weight_sum += rw.weight;
        break;
      case ScoringStrategy::Type::kRequestedToCapacityRatio: {
        const std::int64_t utilization = req > alloc ? 100 : req * 100 / alloc;
        const std::int64_t s = broken_linear(scaled_shape_, utilization);
        if (s > 0) {  // only resources with a positive score count
          node_score += s * rw.weight;
          weight_sum += rw.weight;
        }
        break;
      }
    }
  }
  if (weight_sum == 0) return 0;
  if (strategy_.type == ScoringStrategy::Type::kRequestedToCapacityRatio)
    return static_cast<std::int64_t>(std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  return node_score / weight_sum;
}

void NodeResourcesFit::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                             std::span<std::int64_t> scores) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) scores[i] = score_node(ctx.spec, *nodes[i]);
}

}  // namespace kubesim

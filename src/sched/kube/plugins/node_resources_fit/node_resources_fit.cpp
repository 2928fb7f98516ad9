#include "sched/kube/plugins/node_resources_fit/node_resources_fit.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

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
  std::int64_t alloc = node.allocatable[slot];
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

std::vector<ResourceWeight> merge_duplicate_resources(const std::vector<ResourceWeight>& resources) {
  std::vector<ResourceWeight> merged;
  for (const auto& rw : resources) {
    auto same = std::find_if(merged.begin(), merged.end(), [&](const ResourceWeight& m) { return m.slot == rw.slot; });
    if (same == merged.end())
      merged.push_back(rw);
    else
      same->weight += rw.weight;
  }
  return merged;
}

NodeResourcesFit::NodeResourcesFit(ScoringStrategy strategy, std::uint32_t ignored_slots,
                                   std::vector<std::string> ignored_groups)
    : strategy_(std::move(strategy)), ignored_slots_(ignored_slots), ignored_groups_(std::move(ignored_groups)) {
  // Upstream accepts a resource listed twice and scores it once per entry; merged, the
  // weighted sums are the same and the per-cycle terms fit in kMaxResources slots.
  strategy_.resources = merge_duplicate_resources(strategy_.resources);
  // requested_to_capacity_ratio.go: shape scores are scaled by MaxNodeScore/MaxCustomPriorityScore.
  for (auto p : strategy_.shape) scaled_shape_.push_back({p.utilization, p.score * (kMaxNodeScore / 10)});
}

FilterResult fit_failure(std::uint32_t insufficient, const ResourceNames& names) {
  FilterResult r;
  r.code = kFitFailureCode;
  if (insufficient & kTooManyPodsBit) r.reasons[r.reason_count++] = "Too many pods";
  for (std::uint32_t slots = insufficient & ~kTooManyPodsBit; slots != 0; slots &= slots - 1)
    r.reasons[r.reason_count++] = names.insufficient_reason(static_cast<std::size_t>(__builtin_ctz(slots)));
  return r;
}

std::uint32_t NodeResourcesFit::group_slots(const ResourceNames& names) const {
  // fit.go fitsRequest: rNamePrefix = strings.Split(rName, "/")[0] of an extended resource.
  for (; group_names_seen_ < names.size(); ++group_names_seen_) {
    const std::string& name = names.name(group_names_seen_);
    if (!is_extended_resource_name(name)) continue;
    const std::string_view prefix = std::string_view(name).substr(0, name.find('/'));
    if (std::find(ignored_groups_.begin(), ignored_groups_.end(), prefix) != ignored_groups_.end())
      group_slots_ |= 1u << group_names_seen_;
  }
  return group_slots_;
}

FilterResult NodeResourcesFit::filter(const CycleContext& ctx, const NodeInfo& node) const {
  // fit.go fitsRequest: an ignored extended resource is not checked (ignoredExtendedResources,
  // ignoredResourceGroups).
  std::uint32_t ignored = ignored_slots_;
  if (!ignored_groups_.empty()) ignored |= group_slots(ctx.store.resource_names());
  const std::uint32_t insufficient = insufficient_resources(ctx.spec, node) & ~ignored;
  return insufficient ? fit_failure(insufficient, ctx.store.resource_names()) : FilterResult{};
}

std::size_t NodeResourcesFit::terms(const PodTemplate& spec, Term* out) const {
  // resource_allocation.go calculateResourceAllocatableRequest, with the pod's side hoisted
  // out of the per-node loop: cpu and memory use the non-zero sums (useRequested=false),
  // extended resources the pod does not request are bypassed.
  std::size_t n = 0;
  for (const auto& rw : strategy_.resources) {
    if (rw.slot > kEphemeralStorage && spec.requests[rw.slot] == 0) continue;
    Term t{rw.slot, rw.weight, spec.requests[rw.slot]};
    if (rw.slot == kCpu || rw.slot == kMemory) t.pod_request = spec.nonzero_requests[rw.slot];
    out[n++] = t;
  }
  return n;
}

std::int64_t NodeResourcesFit::score_terms(const Term* terms, std::size_t n, const NodeInfo& node) const {
  std::int64_t node_score = 0;
  std::int64_t weight_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Term& t = terms[i];
    const std::int64_t alloc = node.allocatable[t.slot];
    if (alloc == 0) continue;  // "Only fill the extended resource entry when it's non-zero."
    const std::int64_t base =
        t.slot == kCpu ? node.nonzero_cpu : t.slot == kMemory ? node.nonzero_memory : node.requested[t.slot];
    const std::int64_t req = base + t.pod_request;
    switch (strategy_.type) {
      case ScoringStrategy::Type::kLeastAllocated:
        node_score += least_requested_score(req, alloc) * t.weight;
        weight_sum += t.weight;
        break;
      case ScoringStrategy::Type::kMostAllocated:
        node_score += most_requested_score(req, alloc) * t.weight;
        weight_sum += t.weight;
        break;
      case ScoringStrategy::Type::kRequestedToCapacityRatio: {
        const std::int64_t utilization = req > alloc ? 100 : req * 100 / alloc;
        const std::int64_t s = broken_linear(scaled_shape_, utilization);
        if (s > 0) {  // only resources with a positive score count
          node_score += s * t.weight;
          weight_sum += t.weight;
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

std::int64_t NodeResourcesFit::score_node(const PodTemplate& spec, const NodeInfo& node) const {
  Term t[kMaxResources];
  return score_terms(t, terms(spec, t), node);
}

void NodeResourcesFit::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                             std::span<std::int64_t> scores) const {
  Term t[kMaxResources];
  const std::size_t n = terms(ctx.spec, t);
  // The default configuration (LeastAllocated over cpu and memory) inlined: the same
  // integer formulas as score_terms, with the divisions by the node's capacity and by the
  // weight sum done by exact reciprocal multiplication.
  if (strategy_.type == ScoringStrategy::Type::kLeastAllocated && n == 2 && t[0].slot == kCpu &&
      t[1].slot == kMemory) {
    const std::int64_t weight_sum = t[0].weight + t[1].weight;
    const double inverse_weight_sum = 1.0 / static_cast<double>(weight_sum);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& ni = *nodes[i];
      const std::int64_t alloc_cpu = ni.allocatable[kCpu];
      const std::int64_t alloc_mem = ni.allocatable[kMemory];
      if (alloc_cpu == 0 || alloc_mem == 0) {
        scores[i] = score_terms(t, n, ni);
        continue;
      }
      const std::int64_t req_cpu = ni.nonzero_cpu + t[0].pod_request;
      const std::int64_t req_mem = ni.nonzero_memory + t[1].pod_request;
      const std::int64_t s_cpu =
          req_cpu > alloc_cpu ? 0
                              : divide_exact((alloc_cpu - req_cpu) * kMaxNodeScore, alloc_cpu, ni.inverse_allocatable[kCpu]);
      const std::int64_t s_mem =
          req_mem > alloc_mem ? 0
                              : divide_exact((alloc_mem - req_mem) * kMaxNodeScore, alloc_mem, ni.inverse_allocatable[kMemory]);
      scores[i] = divide_exact(s_cpu * t[0].weight + s_mem * t[1].weight, weight_sum, inverse_weight_sum);
    }
    return;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) scores[i] = score_terms(t, n, *nodes[i]);
}

}  // namespace kubesim

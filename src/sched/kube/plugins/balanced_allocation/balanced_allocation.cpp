#include "sched/kube/plugins/balanced_allocation/balanced_allocation.hpp"

#include <cmath>

namespace kubesim {

std::int64_t balanced_resource_score(std::span<const std::int64_t> requested, std::span<const std::int64_t> allocatable) {
  double fractions[kMaxResources];
  double total = 0;
  const std::size_t n = requested.size();
  for (std::size_t i = 0; i < n; ++i) {
    double f = static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    if (f > 1) f = 1;
    fractions[i] = f;
    total += f;
  }
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::abs((fractions[0] - fractions[1]) / 2);
  } else if (n > 2) {
    const double mean = total / static_cast<double>(n);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

std::int64_t BalancedAllocation::score_node(const PodTemplate& spec, const NodeInfo& node) const {
  std::int64_t req[kMaxResources];
  std::int64_t alloc[kMaxResources];
  std::size_t n = 0;
  for (const auto& rw : resources_)
    if (allocatable_and_requested(node, spec, rw.slot, /*use_requested=*/true, &alloc[n], &req[n])) ++n;
  return balanced_resource_score(std::span<const std::int64_t>(req, n), std::span<const std::int64_t>(alloc, n));
}

void BalancedAllocation::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                               std::span<std::int64_t> scores) const {
  // The common configuration (cpu and memory, both requested) inlined; the result is the
  // same expression as balanced_resource_score with two fractions.
  const bool plain = resources_.size() == 2 && resources_[0].slot == kCpu && resources_[1].slot == kMemory;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo& ni = *nodes[i];
    if (!plain || ni.allocatable[kCpu] == 0 || ni.allocatable[kMemory] == 0) {
      scores[i] = score_node(ctx.spec, ni);
      continue;
    }
    double f0 = static_cast<double>(ni.requested[kCpu] + ctx.spec.requests[kCpu]) / static_cast<double>(ni.allocatable[kCpu]);
    double f1 = static_cast<double>(ni.requested[kMemory] + ctx.spec.requests[kMemory]) /
                static_cast<double>(ni.allocatable[kMemory]);
    if (f0 > 1) f0 = 1;
    if (f1 > 1) f1 = 1;
    const double std_dev = std::abs((f0 - f1) / 2);
    scores[i] = static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
  }
}

}  // namespace kubesim

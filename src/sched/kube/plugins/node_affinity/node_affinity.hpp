// NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go).
// Filter: the pod's nodeSelector and requiredDuringSchedulingIgnoredDuringExecution terms
// (component-helpers/scheduling/corev1/nodeaffinity). Score: the sum of the weights of the
// matching preferred terms, normalized with DefaultNormalizeScore(reverse=false).
#pragma once

#include "cluster/predicates.hpp"  // node_selector_term_matches, pod_matches_node_selector_and_affinity
#include "sched/kube/framework.hpp"

namespace kubesim {

class NodeAffinityPlugin final : public FilterPlugin, public ScorePlugin {
 public:
  const char* name() const override { return "NodeAffinity"; }
  std::uint32_t events_to_register() const override { return kEventNodeAdd | kEventNodeLabel; }
  bool applies(const CycleContext& ctx) const override {
    return !ctx.spec.node_selector.empty() || !ctx.spec.affinity.required_terms.empty();
  }
  FilterResult filter(const CycleContext& ctx, const NodeInfo& node) const override;
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;
  // No preferred terms: every sum is 0, which normalization keeps.
  std::optional<std::int64_t> uniform_score(const CycleContext& ctx) const override {
    if (ctx.spec.affinity.preferred.empty()) return 0;
    return std::nullopt;
  }
};

}  // namespace kubesim

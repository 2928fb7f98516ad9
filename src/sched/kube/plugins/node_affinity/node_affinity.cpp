#include "sched/kube/plugins/node_affinity/node_affinity.hpp"

namespace kubesim {
FilterResult NodeAffinityPlugin::filter(const CycleContext& ctx, const NodeInfo& node) const {
  if (pod_matches_node_selector_and_affinity(ctx.spec, *node.node)) return {};
  return FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable,
                               "node(s) didn't match Pod's node affinity/selector");
}

void NodeAffinityPlugin::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                               std::span<std::int64_t> scores) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::int64_t sum = 0;
    for (const auto& pref : ctx.spec.affinity.preferred)
      if (pref.weight != 0 && node_selector_term_matches(pref.preference, *nodes[i]->node)) sum += pref.weight;
    scores[i] = sum;
  }
  default_normalize_score(kMaxNodeScore, /*reverse=*/false, scores);
}

}  // namespace kubesim

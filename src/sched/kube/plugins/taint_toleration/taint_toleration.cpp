#include "sched/kube/plugins/taint_toleration/taint_toleration.hpp"

namespace kubesim {
FilterResult TaintToleration::filter(const CycleContext& ctx, const NodeInfo& node) const {
  const Taint* taint = first_untolerated_schedule_taint(*node.node, ctx.spec.tolerations);
  if (!taint) return {};
  // taint_toleration.go: fmt.Sprintf("node(s) had untolerated taint {%s: %s}", key, value);
  // texts are interned so the reason outlives the cycle without an allocation per node.
  const std::string text = "node(s) had untolerated taint {" + taint->key + ": " + taint->value + "}";
  auto it = reasons_.insert(text).first;
  return FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable, *it);
}

void TaintToleration::score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
                            std::span<std::int64_t> scores) const {
  // PreScore keeps only tolerations whose effect is empty or PreferNoSchedule
  // (getAllTolerationPreferNoSchedule); Score counts intolerable PreferNoSchedule taints.
  std::vector<Toleration> prefer;
  for (const auto& t : ctx.spec.tolerations)
    if (!t.effect || *t.effect == TaintEffect::kPreferNoSchedule) prefer.push_back(t);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::int64_t count = 0;
    for (const auto& taint : nodes[i]->node->taints)
      if (taint.effect == TaintEffect::kPreferNoSchedule && !tolerations_tolerate(prefer, taint)) ++count;
    scores[i] = count;
  }
  default_normalize_score(kMaxNodeScore, /*reverse=*/true, scores);
}

}  // namespace kubesim

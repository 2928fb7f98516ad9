#include "sched/kube/plugins/node_unschedulable/node_unschedulable.hpp"

namespace kubesim {

FilterResult NodeUnschedulable::filter(const CycleContext& ctx, const NodeInfo& node) const {
  if (!node.node->unschedulable) return {};
  static const Taint kUnschedulableTaint{"node.kubernetes.io/unschedulable", "", TaintEffect::kNoSchedule};
  for (const auto& t : ctx.spec.tolerations)
    if (t.tolerates(kUnschedulableTaint)) return {};
  return FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable, "node(s) were unschedulable");
}

}  // namespace kubesim

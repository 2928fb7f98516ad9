#include "sched/kube/plugins/node_unschedulable/node_unschedulable.hpp"

namespace kubesim {

FilterResult NodeUnschedulable::filter(const CycleContext& ctx, const NodeInfo& node) const {
  if (passes_unschedulable(ctx.spec, *node.node)) return {};
  return FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable, "node(s) were unschedulable");
}

}  // namespace kubesim

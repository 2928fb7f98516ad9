// NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go):
// rejects nodes with spec.unschedulable unless the pod tolerates
// node.kubernetes.io/unschedulable:NoSchedule.
#pragma once

#include "cluster/predicates.hpp"
#include "sched/kube/framework.hpp"

namespace kubesim {

class NodeUnschedulable final : public FilterPlugin {
 public:
  const char* name() const override { return "NodeUnschedulable"; }
  std::uint32_t events_to_register() const override { return kEventNodeAdd | kEventNodeUnschedulable; }
  bool applies(const CycleContext& ctx) const override { return ctx.cluster.unschedulable_nodes > 0; }
  FilterResult filter(const CycleContext& ctx, const NodeInfo& node) const override;
};

}  // namespace kubesim

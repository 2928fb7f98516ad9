// NodeName (pkg/scheduler/framework/plugins/nodename/node_name.go): a pod with spec.nodeName
// fits only the node of that name.
#pragma once

#include "sched/kube/framework.hpp"

namespace kubesim {

class NodeName final : public FilterPlugin {
 public:
  const char* name() const override { return "NodeName"; }
  std::uint32_t events_to_register() const override { return kEventNodeAdd | kEventNodeUpdateAny; }
  bool applies(const CycleContext& ctx) const override { return !ctx.spec.node_name.empty(); }
  FilterResult filter(const CycleContext& ctx, const NodeInfo& node) const override {
    if (ctx.spec.node_name.empty() || ctx.spec.node_name == node.node->name) return {};
    return FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable,
                                 "node(s) didn't match the requested node name");
  }
};

}  // namespace kubesim

// TaintToleration (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go).
// Filter: a node with a NoSchedule/NoExecute taint the pod does not tolerate is rejected.
// Score: the number of PreferNoSchedule taints the pod does not tolerate, normalized with
// DefaultNormalizeScore(reverse=true), so fewer intolerable taints score higher.
#pragma once

#include <set>
#include <string>

#include "cluster/predicates.hpp"  // first_untolerated_schedule_taint, tolerations_tolerate
#include "sched/kube/framework.hpp"

namespace kubesim {

class TaintToleration final : public FilterPlugin, public ScorePlugin {
 public:
  const char* name() const override { return "TaintToleration"; }
  std::uint32_t events_to_register() const override { return kEventNodeAdd | kEventNodeTaint; }
  bool applies(const CycleContext& ctx) const override { return ctx.cluster.hard_tainted_nodes > 0; }
  FilterResult filter(const CycleContext& ctx, const NodeInfo& node) const override;
  void score(const CycleContext& ctx, std::span<const NodeInfo* const> nodes,
             std::span<std::int64_t> scores) const override;

  // No PreferNoSchedule taint anywhere: every count is 0, reverse normalization gives 100.
  std::optional<std::int64_t> uniform_score(const CycleContext& ctx) const override {
    if (ctx.cluster.soft_tainted_nodes == 0) return kMaxNodeScore;
    return std::nullopt;
  }

 private:
  mutable std::set<std::string> reasons_;  // interned filter reasons
};

}  // namespace kubesim

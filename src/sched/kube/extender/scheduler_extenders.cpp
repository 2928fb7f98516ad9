// The Scheduler's extender steps (kube-scheduler v1.26 schedule_one.go, preemption.go), kept
// out of scheduler.cpp: they run only when `extenders:` is configured.
#include <algorithm>

#include "sched/kube/scheduler.hpp"

namespace kubesim {

// schedule_one.go findNodesThatFitPod after findNodesThatPassFilters: the extenders narrow the
// feasible nodes; a node they reject gets their status (its reason counted in the FitError
// message, UnschedulableAndUnresolvable ones out of preemption's reach), a node they drop
// without a reason none, as upstream (no status: preemption may try it).
bool Scheduler::find_nodes_that_pass_extenders(const CycleContext& ctx, Decision& d) {
  if (feasible_.empty()) return true;
  owned_reasons_.clear();  // reason_names_ holds this cycle's filter reasons only (none of these)
  const auto n = static_cast<std::uint32_t>(node_order_.size());
  // Nodes the search did not reach have no status this cycle (node_code_ may hold an earlier
  // cycle's): they follow nextStartNodeIndex, which the search left after the nodes it saw.
  for (std::uint32_t k = 0; k < n - std::min(n, d.processed); ++k)
    node_code_[node_order_[(next_start_node_index_ + k) % n].value()] = static_cast<std::uint8_t>(StatusCode::kSuccess);
  for (const NodeInfo* ni : feasible_) node_code_[ni->id.value()] = static_cast<std::uint8_t>(StatusCode::kUnschedulable);
  const std::string error = extenders_->filter(ctx.pod, feasible_,
                                               [&](NodeId node, const std::string& reason, bool unresolvable) {
    owned_reasons_.push_back(reason);
    count_reason(owned_reasons_.back(), 1);
    node_code_[node.value()] = static_cast<std::uint8_t>(unresolvable ? StatusCode::kUnschedulableAndUnresolvable
                                                                      : StatusCode::kUnschedulable);
    if (unresolvable) ++d.unresolvable;
  });
  for (const NodeInfo* ni : feasible_) node_code_[ni->id.value()] = static_cast<std::uint8_t>(StatusCode::kSuccess);
  d.feasible = static_cast<std::uint32_t>(feasible_.size());
  if (error.empty()) return true;
  d.message = error;
  d.error = true;
  return false;
}

// schedule_one.go evaluateNominatedNode: the nominated node, having passed the filters, must
// pass the extenders too. An extender's error there does not fail the cycle: findNodesThatFitPod
// logs it ("Evaluation failed on nominated node") and goes on with the full search, whose
// extender calls decide (v1.26 as today's upstream).
bool Scheduler::nominated_passes_extenders(PodId pod, NodeId node) {
  std::vector<const NodeInfo*> one{&cache_.info(node)};
  const std::string error = extenders_->filter(pod, one, [](NodeId, const std::string&, bool) {});
  return error.empty() && !one.empty();
}

// schedule_one.go bind: extendersBinding first. The extender binds the pod through the API
// itself; kubesim makes that binding for it when it answers without an Error. An error is a
// binding-cycle failure (handleBindingCycleError).
bool Scheduler::extender_refused_binding(PodId pod, NodeId node, SimTime now) {
  std::string error;
  if (!extenders_->bind(pod, node, error) || error.empty()) return false;
  binding_cycle_error(pod, node, error, now);
  return true;
}

// preemption.go callExtenders (v1.26): the candidates become the nodes and victims the
// preempting extenders approve. False when preempt()'s result is final: an extender's error
// (an Error status, the nomination kept) or no candidate left.
bool Scheduler::call_extenders(PodId pod) {
  if (!extenders_->any_preempt()) return true;
  std::vector<Extenders::Victims> victims;
  for (const Candidate& c : candidates_)
    victims.push_back({c.node, std::vector<PodId>(victim_pool_.begin() + c.begin, victim_pool_.begin() + c.end),
                       static_cast<std::int64_t>(c.violations)});
  const std::string error =
      extenders_->process_preemption(pod, victims, [this](NodeId node) -> const std::vector<PodId>& { return pods_on(node); });
  if (!error.empty() || victims.empty()) {
    preemption_.mode = Preemption::Mode::kNoop;
    preemption_.error = !error.empty();
    if (error.empty()) preemption_.message = "no candidate node for preemption";
    return false;
  }
  candidates_.clear();
  for (const Extenders::Victims& v : victims) {
    const auto begin = static_cast<std::uint32_t>(victim_pool_.size());
    victim_pool_.insert(victim_pool_.end(), v.pods.begin(), v.pods.end());
    candidates_.push_back({v.node, begin, static_cast<std::uint32_t>(victim_pool_.size()),
                           static_cast<std::uint32_t>(std::max<std::int64_t>(v.pdb_violations, 0))});
  }
  return true;
}

}  // namespace kubesim

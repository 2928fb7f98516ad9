// decide()'s node search when NodeResourcesFit is the only filter that can reject the pod, no
// pod is nominated anywhere and the pod asks for no devices (issue 30: the hot path of a large
// cluster). It visits the nodes exactly as find_nodes_that_pass_filters' general loop does
// (schedule_one.go findNodesThatPassFilters, v1.26: from nextStartNodeIndex on, stopping at
// the first feasible node beyond the ones needed), with the fit test of a pod asking for cpu,
// memory and ephemeral storage only (fit.go fitsRequest: those three are checked even when the
// pod asks for none of one) written out, so that a node that fits costs a few compares. A node
// that does not fit is tallied by its insufficient bits, as in the general loop (the tally is
// counted as failed nodes after the loop).
#include <algorithm>

#include "sched/kube/scheduler.hpp"

namespace kubesim {

bool Scheduler::fit_scan_applies(const PodTemplate& spec) const {
  // A pod asking for nothing is checked for the pod count alone (insufficient_resources); a
  // pod asking for another resource has more slots to check: both take the general loop.
  constexpr std::uint32_t kFixedSlots = (1u << kCpu) | (1u << kMemory) | (1u << kEphemeralStorage);
  return only_fit_ && nominated_total_ == 0 && !wants_devices_ && spec.requested_slots != 0 &&
         (spec.requested_slots & ~kFixedSlots) == 0;
}

void Scheduler::tally_fit_failure(std::uint32_t insufficient) {
  auto it = std::find_if(fit_tally_.begin(), fit_tally_.end(), [&](const auto& t) { return t.first == insufficient; });
  if (it == fit_tally_.end()) {
    fit_tally_.emplace_back(insufficient, 1);
  } else {
    ++it->second;
  }
}

void Scheduler::scan_fitting_nodes(const PodTemplate& spec, std::uint32_t to_find, NodeId nominated,
                                   bool& nominated_seen) {
  const auto n = static_cast<std::uint32_t>(node_order_.size());
  const std::int64_t cpu = spec.requests[kCpu];
  const std::int64_t memory = spec.requests[kMemory];
  const std::int64_t storage = spec.requests[kEphemeralStorage];
  const NodeInfo* infos = cache_.infos().data();
  const NodeId* order = node_order_.data();
  bool seen = false;
  std::uint32_t index = next_start_node_index_;
  for (std::uint32_t i = 0; i < n; ++i, ++index) {
    if (index == n) index = 0;
    const NodeInfo& ni = infos[order[index].value()];
    seen |= ni.id == nominated;
    const auto& allocatable = ni.allocatable.amount;
    const auto& requested = ni.requested.amount;
    // insufficient_resources(spec, ni) == 0 for a pod of these three slots, without branches.
    // Bitwise & of ints, not &&: no branch per comparison (the node scan's hot loop).
    const bool fits = (static_cast<int>(ni.pod_count < ni.allowed_pods) &
                       static_cast<int>(cpu <= allocatable[kCpu] - requested[kCpu]) &
                       static_cast<int>(memory <= allocatable[kMemory] - requested[kMemory]) &
                       static_cast<int>(storage <= allocatable[kEphemeralStorage] - requested[kEphemeralStorage])) != 0;
    if (!fits) {
      node_code_[ni.id.value()] = static_cast<std::uint8_t>(kFitFailureCode);
      tally_fit_failure(insufficient_resources(spec, ni));
      continue;
    }
    if (feasible_.size() == to_find) break;
    feasible_.push_back(&ni);
  }
  nominated_seen = seen;
}

}  // namespace kubesim

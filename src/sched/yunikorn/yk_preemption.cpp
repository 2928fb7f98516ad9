// YuniKorn core's preemption for an ask that found no node or no headroom.
//
// Upstream: yunikorn-core pkg/scheduler/objects/preemption.go (Preemptor: CheckPreconditions,
// checkPreemptionQueueGuarantees, calculateVictimsByNode, tryNodes, getSolutionScore,
// calculateAdditionalVictims, TryPreemption; QueuePreemptionSnapshot IsWithinGuaranteedResource,
// IsAtOrAboveGuaranteedResource; sortVictimsForPreemption, compareAllocationLess) and queue.go
// (findPreemptionFenceRoot).
#include <algorithm>

#include "sched/cluster_client.hpp"
#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

bool YuniKorn::try_preemption(int slot, const Res& head, SimTime now, bool* reserved) {
  // Preemptor.TryPreemption: victims that bring the ask's queue within its guarantee and free
  // the best node, then the node reserved for the ask.
  Ask& ask = asks_[slot];
  const int leaf = apps_[ask.app].queue;
  if (!check_preconditions(ask, now)) return false;
  find_eligible_victims(ask);
  if (candidates_.empty()) return false;
  if (!check_queue_guarantees(leaf, ask.res)) return false;
  const int best_node = try_preemption_nodes(ask);
  if (best_node < 0) return false;
  if (!calculate_additional_victims(leaf, ask.res)) return false;

  // Victims are marked preempted and the shim deletes their pods (handleReleaseAppAllocationEvent,
  // with its 3 s grace period: kShimDeleteGrace); their resources stay allocated until the
  // pods are gone.
  last_victims_ = best_victims_;
  for (PodId v : best_victims_) {
    pods_[v.value()].preempted = true;
    host_.client().delete_pod(v, kShimDeleteGrace, DisruptionReason::kPreemptionByScheduler, now);
  }
  ask.triggered = true;
  ++preemptions_;
  victims_ += best_victims_.size();
  // The ask reserves the node when it fits the headroom and the node is free of reservations.
  *reserved = false;
  if (fit_in_max_undef(head, ask.res) && nodes_[best_node].reserved_ask < 0) {
    if (ask.reserved_node >= 0) unreserve(slot);
    reserve(slot, best_node);
    *reserved = true;
  }
  return true;
}

bool YuniKorn::check_preconditions(Ask& ask, SimTime now) {
  // Preemptor.CheckPreconditions: the ask may preempt, has not triggered a preemption, needs
  // no particular node, has waited the queue's preemption delay and preemptAttemptFrequency
  // since its last check; the check time is then updated.
  if (!ask.allow_preempt_other || ask.triggered) return false;
  if (!store_.spec_of(ask.pod).node_name.empty()) return false;
  if (now - ask.created < config_.queues[apps_[ask.app].queue].preemption_delay) return false;
  if (!ask.last_check.is_never() && now - ask.last_check < kPreemptAttemptFrequency) return false;
  ask.last_check = now;
  ask.checked_version = version_;
  return true;
}

void YuniKorn::find_eligible_victims(const Ask& ask) {
  // queue.go findPreemptionFenceRoot: up from the leaf adding offsets (fence: the offset)
  // until root or a queue with preemption.policy fence; FindEligiblePreemptionVictims below it.
  path_priority_.assign(queues_.size(), kNotOnPath);
  std::int64_t p = ask.priority;
  int fence = apps_[ask.app].queue;
  while (true) {
    const QueueConf& qc = config_.queues[fence];
    p = qc.priority_fence ? qc.priority_offset : p + qc.priority_offset;
    path_priority_[fence] = p;
    if (qc.parent < 0 || qc.preemption == PreemptionPolicy::kFence) break;
    fence = qc.parent;
  }
  candidates_.clear();
  collect_victims(fence, p, apps_[ask.app].queue, ask.priority);
}

bool YuniKorn::check_queue_guarantees(int leaf, const Res& ask) {
  // checkPreemptionQueueGuarantees: with the ask added, remove candidates (keeping each
  // victim queue at or above its guarantee) until the ask's queue is within guaranteed.
  clear_preempting();
  bool ok = within_guaranteed(leaf, &ask);
  for (std::size_t i = 0; i < candidates_.size() && !ok; ++i) {
    mark_preempting(candidates_[i], +1);
    if (!at_or_above_guaranteed(apps_[pods_[candidates_[i].value()].app].queue)) mark_preempting(candidates_[i], -1);
    ok = within_guaranteed(leaf, &ask);
  }
  clear_preempting();
  return ok;
}

int YuniKorn::try_preemption_nodes(const Ask& ask) {
  // Preemptor.tryNodes: calculateVictimsByNode on every schedulable node (full iterator,
  // reserved included) that passes the predicates, the lowest getSolutionScore wins.
  sort_nodes();
  int best_node = -1;
  std::uint64_t best_score = 0;
  for (int n : node_order_) {
    if (!predicates(ask.pod, n)) continue;  // PreemptionPredicates (approximated by the predicates)
    std::uint64_t score = 0;
    if (!victims_by_node(n, ask.res, &score)) continue;
    if (best_node < 0 || score < best_score) {
      best_node = n;
      best_score = score;
      best_victims_ = node_victims_;
    }
  }
  return best_node;
}

bool YuniKorn::victims_by_node(int n, const Res& ask, std::uint64_t* score) {
  // calculateVictimsByNode; victims ordered by sortVictimsForPreemption.
  Res avail = available(n);
  node_victims_.clear();
  if (fit_in(avail, ask)) {
    *score = 0;
    return true;
  }
  head_.clear();
  tail_.clear();
  std::vector<PodId>& on_node = tail_;
  for (PodId v : candidates_)
    if (pods_[v.value()].node == n) on_node.push_back(v);
  std::sort(on_node.begin(), on_node.end(), [&](PodId l, PodId r) { return victim_before(l, r); });
  // Pass 1: keep victims whose queue stays at or above guaranteed; those that reduce the
  // node's shortfall first.
  Res shortfall = ask - avail;
  std::vector<PodId> list = on_node;
  tail_.clear();
  for (PodId v : list) {
    mark_preempting(v, +1);
    if (!at_or_above_guaranteed(apps_[pods_[v.value()].app].queue)) {
      mark_preempting(v, -1);
      continue;
    }
    const Res& vr = pods_[v.value()].res;
    bool reduces = false;
    for (std::size_t i = 0; i < kSlots; ++i)
      if (shortfall.has(i) && shortfall.v[i] > 0 && vr.v[i] > 0) reduces = true;
    if (reduces) {
      head_.push_back(v);
      shortfall -= vr;
    } else {
      tail_.push_back(v);
    }
  }
  clear_preempting();
  // Pass 2: re-check the guarantees; the index is the first victim after which the ask fits.
  head_.insert(head_.end(), tail_.begin(), tail_.end());
  int index = -1;
  for (PodId v : head_) {
    mark_preempting(v, +1);
    if (!at_or_above_guaranteed(apps_[pods_[v.value()].app].queue)) {
      mark_preempting(v, -1);
      continue;
    }
    node_victims_.push_back(v);
    avail += pods_[v.value()].res;
    if (fit_in(avail, ask)) {
      index = static_cast<int>(node_victims_.size()) - 1;
      break;
    }
  }
  clear_preempting();
  if (index < 0) return false;
  // getSolutionScore: index + 1, plus penalties for originators (2^33) and victims that
  // do not allow preemption (2^34; every pod allows it here: no annotations modelled).
  *score = static_cast<std::uint64_t>(index) + 1;
  for (PodId v : node_victims_)
    if (pods_[v.value()].originator) *score |= std::uint64_t{1} << 33;
  return true;
}

bool YuniKorn::calculate_additional_victims(int leaf, const Res& ask) {
  // calculateAdditionalVictims: other nodes' victims until the ask's queue is within its
  // guarantee (compareAllocationLess: lower priority, then newest first).
  for (PodId v : best_victims_) mark_preempting(v, +1);
  if (!within_guaranteed(leaf, &ask)) {
    std::vector<PodId> rest;
    for (PodId v : candidates_)
      if (std::find(best_victims_.begin(), best_victims_.end(), v) == best_victims_.end()) rest.push_back(v);
    std::sort(rest.begin(), rest.end(), [&](PodId l, PodId r) {
      if (pods_[l.value()].priority != pods_[r.value()].priority) return pods_[l.value()].priority < pods_[r.value()].priority;
      return victim_before(l, r);
    });
    for (PodId v : rest) {
      if (within_guaranteed(leaf, &ask)) break;
      mark_preempting(v, +1);
      if (!at_or_above_guaranteed(apps_[pods_[v.value()].app].queue)) {
        mark_preempting(v, -1);
        continue;
      }
      best_victims_.push_back(v);
    }
    if (!within_guaranteed(leaf, &ask)) {
      clear_preempting();
      return false;
    }
  }
  clear_preempting();
  return true;
}

void YuniKorn::mark_preempting(PodId victim, int sign) {
  const PodState& ps = pods_[victim.value()];
  add_to_queues(apps_[ps.app].queue, ps.res, &QueueState::preempting, sign);
}

void YuniKorn::clear_preempting() {
  for (QueueState& q : queues_) q.preempting = Res{};
}

bool YuniKorn::victim_before(PodId l, PodId r) const {
  const PodState& L = pods_[l.value()];
  const PodState& R = pods_[r.value()];
  if (L.originator != R.originator) return !L.originator;
  if (L.created != R.created) return L.created > R.created;
  return l > r;
}

bool YuniKorn::within_guaranteed(int q, const Res* extra) const {
  // QueuePreemptionSnapshot.IsWithinGuaranteedResource: used - preempting fits in the
  // guaranteed (capped by max) for the queue and every parent; types absent are unlimited
  // (YUNIKORN-1685).
  for (int x = q; x >= 0; x = config_.queues[x].parent) {
    const Res g = effective_guaranteed(x);
    if (g.empty()) continue;
    Res used = queues_[x].allocated - queues_[x].preempting;
    if (extra) used += *extra;
    if (!fit_in_max_undef(g, used)) return false;
  }
  return true;
}

bool YuniKorn::at_or_above_guaranteed(int q) const {
  // QueuePreemptionSnapshot.IsAtOrAboveGuaranteedResource for the victim's queue (and its
  // parents that have a guarantee): used - preempting >= guaranteed.
  for (int x = q; x >= 0; x = config_.queues[x].parent) {
    const Res g = effective_guaranteed(x);
    if (g.empty()) continue;
    const Res used = queues_[x].allocated - queues_[x].preempting;
    for (std::size_t i = 0; i < kSlots; ++i)
      if (g.has(i) && used.v[i] < g.v[i]) return false;
  }
  return true;
}

}  // namespace kubesim::yunikorn

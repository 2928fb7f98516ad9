#include "sched/kube/plugins/capacity_scheduling/capacity_scheduling.hpp"

#include <algorithm>
#include <limits>

#include "sched/kube/plugins/coscheduling/coscheduling.hpp"  // kPodGroupApiGroup

namespace kubesim {

bool CapacityScheduling::sync_quotas() {
  const ObjectStore& s = handle_->store();
  if (!quotas_) {
    const std::optional<ObjectKind> kind = s.find_kind(kPodGroupApiGroup, kElasticQuotaPlural);
    if (!kind) return false;
    kind_ = *kind;
    quotas_ = &s.typed_table<ElasticQuotaObject>(*kind);
  }
  std::size_t alive = 0;
  for (std::size_t q = 0; q < quotas_->size(); ++q) alive += live(q) ? 1 : 0;
  if (quotas_->size() != seen_ || alive != live_) {  // a quota created or deleted: look again
    seen_ = quotas_->size();
    live_ = alive;
    std::fill(by_ns_.begin(), by_ns_.end(), -2);
    used_.resize(seen_);  // a new quota's Used starts empty (newElasticQuotaInfo(..., nil))
  }
  return live_ != 0;
}

// elasticQuotaInfos is keyed by namespace; the first ElasticQuota of a namespace wins (after
// its delete, the next live one of the namespace: upstream keeps none until one is added).
int CapacityScheduling::quota_of_namespace(NamespaceId ns) {
  if (!quotas_) return -1;
  if (by_ns_.size() <= ns.value()) by_ns_.resize(ns.value() + 1, -2);
  int& q = by_ns_[ns.value()];
  if (q == -2) {
    q = -1;
    const std::string& name = handle_->store().namespace_(ns).name;
    for (std::size_t i = 0; i < quotas_->size(); ++i)
      if (live(i) && quotas_->get(static_cast<std::uint32_t>(i)).ns == name) {
        q = static_cast<int>(i);
        break;
      }
  }
  return q;
}

// elasticquota.go usedOverMaxWith -> cmp2(Used + x, Max, bound): any resource over max;
// an extended resource missing from max is bounded by MaxInt64.
bool CapacityScheduling::used_over_max_with(const Usage& u, int q, const Resources& x) const {
  const ElasticQuotaObject& eq = quota(q);
  const Resources& used = u[static_cast<std::size_t>(q)];
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (x[r] == 0 && used[r] == 0) continue;
    std::int64_t max = eq.max[r];
    if (!eq.max_set[r]) max = r <= kEphemeralStorage ? 0 : std::numeric_limits<std::int64_t>::max();
    if (used[r] + x[r] > max) return true;
  }
  return false;
}

// usedOverMinWith -> cmp(Used + x, Min): any resource over min.
bool CapacityScheduling::used_over_min_with(const Usage& u, int q, const Resources& x) const {
  const Resources& used = u[static_cast<std::size_t>(q)];
  const Resources& min = quota(q).min;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (used[r] + x[r] > min[r]) return true;
  return false;
}

bool CapacityScheduling::used_over_min(const Usage& u, int q) const { return used_over_min_with(u, q, Resources{}); }

// elasticQuotaInfos.aggregatedUsedOverMinWith: Σ Used + x > Σ Min over every quota.
bool CapacityScheduling::aggregated_used_over_min_with(const Usage& u, const Resources& x) const {
  Resources used = x;
  Resources min;
  for (std::size_t q = 0; q < quotas_->size(); ++q) {
    if (!live(q)) continue;
    used += u[q];
    min += quotas_->get(static_cast<std::uint32_t>(q)).min;
  }
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (used[r] > min[r]) return true;
  return false;
}

void CapacityScheduling::add_pod(PodId pod) {
  const int q = quota_of_namespace(handle_->store().pod(pod).ns);
  if (q < 0 || counted(pod, q)) return;
  if (counted_.size() <= pod.value()) counted_.resize(pod.value() + 1, 0);
  counted_[pod.value()] = static_cast<std::uint32_t>(q) + 1;
  used_[static_cast<std::size_t>(q)] += handle_->store().spec_of(pod).requests;  // computePodResourceRequest
}

void CapacityScheduling::remove_pod(PodId pod) {
  const int q = quota_of_namespace(handle_->store().pod(pod).ns);
  if (!counted(pod, q)) return;  // (or counted by a quota since deleted: its Used went with it)
  counted_[pod.value()] = 0;
  used_[static_cast<std::size_t>(q)] -= handle_->store().spec_of(pod).requests;
}

// The assigned-pod informer: addPod on an assigned pod, deletePod when it goes (the
// scheduler's informer delivers terminal pods as deletions).
void CapacityScheduling::on_pod_change(const Change& c, SimTime) {
  if (!sync_quotas()) return;
  const PodId pod(c.id);
  const bool gone = c.type == ChangeType::kDeleted || is_terminal(c.phase);
  if (gone) {
    remove_pod(pod);
  } else if (c.node.valid()) {
    add_pod(pod);
  }
}

PluginStatus CapacityScheduling::reserve(PodId pod, NodeId, SimTime) {
  add_pod(pod);
  return {};
}

void CapacityScheduling::unreserve(PodId pod, NodeId, SimTime) { remove_pod(pod); }

// capacity_scheduling.go PreFilter.
PluginStatus CapacityScheduling::pre_filter(const CycleContext& ctx, SimTime) {
  cycle_pod_ = ctx.pod;
  sync_quotas();
  snapshot_ = used_;  // the ElasticQuota snapshot in the CycleState
  const ObjectStore& s = ctx.store;
  const NamespaceId ns = s.pod(ctx.pod).ns;
  const int q = quota_of_namespace(ns);
  in_eq_ = ctx.spec.requests;
  all_ = ctx.spec.requests;
  if (q < 0) return {};  // no ElasticQuota in the namespace: no checks
  // calculateNominatedPodsResourceRequest... : nominated pods of the same namespace with
  // priority >= the pod's count in both sums; those of another quota's namespace whose
  // quota is not over its min count in the total.
  for (const PodId p : handle_->nominated_pods()) {
    if (p == ctx.pod) continue;
    const Pod& np = s.pod(p);
    const int pq = quota_of_namespace(np.ns);
    if (pq < 0) continue;
    const PodTemplate& ps = s.spec_of(p);
    if (np.ns == ns && ps.priority >= ctx.spec.priority) {
      in_eq_ += ps.requests;
      all_ += ps.requests;
    } else if (np.ns != ns && !used_over_min(snapshot_, pq)) {
      all_ += ps.requests;
    }
  }
  const Pod& pod = s.pod(ctx.pod);
  const std::string who = s.namespace_(ns).name + "/" + pod.name;
  if (used_over_max_with(snapshot_, q, in_eq_))
    return {StatusCode::kUnschedulable, "Pod " + who + " is rejected in PreFilter because ElasticQuota " +
                                            quota(q).name + " is more than Max"};
  if (aggregated_used_over_min_with(snapshot_, all_))
    return {StatusCode::kUnschedulable,
            "Pod " + who + " is rejected in PreFilter because total ElasticQuota used is more than min"};
  return {};
}

// preemptor.PodEligibleToPreemptOthers (after the preemptionPolicy check).
bool CapacityScheduling::eligible(PodId pod, NodeId nominated, bool nominated_unresolvable) {
  if (!nominated.valid() || nominated_unresolvable) return true;
  if (pod != cycle_pod_) return true;  // no ElasticQuota snapshot in this CycleState: "eligible"
  const ObjectStore& s = handle_->store();
  const NamespaceId ns = s.pod(pod).ns;
  const std::int32_t priority = s.spec_of(pod).priority;
  const int q = quota_of_namespace(ns);
  if (q >= 0) {
    // moreThanMinWithPreemptor = usedOverMinWith(nominatedPodsReqInEQWithPodReq): the pod's
    // quota with the nominated pods PreFilter counted in it, as in SelectVictimsOnNode. A pod
    // over its min so is eligible although another quota's victim still terminates on its
    // node; its dry run then finds no victim and its nomination goes.
    const bool more_than_min = used_over_min_with(snapshot_, q, in_eq_);
    for (const PodId p : handle_->cached_pods_on(nominated)) {
      if (!s.pod(p).terminating()) continue;
      const int pq = quota_of_namespace(s.pod(p).ns);
      if (pq < 0) continue;
      if (s.pod(p).ns == ns && s.spec_of(p).priority < priority) return false;
      if (s.pod(p).ns != ns && !more_than_min && used_over_min(snapshot_, pq)) return false;
    }
  } else {
    for (const PodId p : handle_->cached_pods_on(nominated)) {
      if (quota_of_namespace(s.pod(p).ns) >= 0) continue;
      if (s.pod(p).terminating() && s.spec_of(p).priority < priority) return false;
    }
  }
  return true;
}

// preemptor.SelectVictimsOnNode, quota side. The dry run clones the CycleState per node.
void CapacityScheduling::begin_node(PodId preemptor) {
  node_snapshot_ = snapshot_;
  node_removed_.clear();
  const int q = quota_of_namespace(handle_->store().pod(preemptor).ns);
  // moreThanMinWithPreemptor = usedOverMinWith(nominatedPodsReqInEQWithPodReq).
  more_than_min_ = q >= 0 && used_over_min_with(node_snapshot_, q, in_eq_);
}

// Called least important pod first, with the node clone's quota use as pods are removed:
// - preemptor over its min (with its request): pods of its own namespace of lower priority;
// - preemptor within its min: pods of any namespace whose quota is over its min, of any
//   priority (it takes back what they borrowed);
// - preemptor without a quota: lower-priority pods of namespaces without a quota.
bool CapacityScheduling::potential_victim(PodId preemptor, PodId pod) {
  const ObjectStore& s = handle_->store();
  const NamespaceId ns = s.pod(preemptor).ns;
  const int q = quota_of_namespace(ns);
  const int pq = quota_of_namespace(s.pod(pod).ns);
  if (q >= 0) {
    if (pq < 0) return false;
    if (more_than_min_) return s.pod(pod).ns == ns && s.spec_of(pod).priority < s.spec_of(preemptor).priority;
    return used_over_min(node_snapshot_, pq);
  }
  return pq < 0 && s.spec_of(pod).priority < s.spec_of(preemptor).priority;
}

// RemovePod/AddPod (PreFilterExtensions) on the clone: deletePodIfPresent/addPodIfNotPresent.
void CapacityScheduling::adjust_node_snapshot(PodId pod, int sign) {
  const int q = quota_of_namespace(handle_->store().pod(pod).ns);
  if (q < 0) return;
  const auto it = std::find(node_removed_.begin(), node_removed_.end(), pod);
  const bool in_set = it == node_removed_.end() ? counted(pod, q) : false;
  if (sign < 0 && in_set) {
    node_snapshot_[static_cast<std::size_t>(q)] -= handle_->store().spec_of(pod).requests;
    node_removed_.push_back(pod);
  } else if (sign > 0 && !in_set) {
    node_snapshot_[static_cast<std::size_t>(q)] += handle_->store().spec_of(pod).requests;
    if (it != node_removed_.end()) node_removed_.erase(it);
  }
}

// "global quota max exceeded" unless the preemptor's request fits its max and the sum of mins.
bool CapacityScheduling::fits_after_removal(PodId preemptor) {
  const int q = quota_of_namespace(handle_->store().pod(preemptor).ns);
  if (q < 0) return true;
  const Resources& req = handle_->store().spec_of(preemptor).requests;
  return !(used_over_max_with(node_snapshot_, q, req) || aggregated_used_over_min_with(node_snapshot_, req));
}

bool CapacityScheduling::fits_on_reprieve(PodId preemptor) {
  const int q = quota_of_namespace(handle_->store().pod(preemptor).ns);
  if (q < 0) return true;
  return !(used_over_max_with(node_snapshot_, q, in_eq_) || aggregated_used_over_min_with(node_snapshot_, all_));
}

}  // namespace kubesim

// CapacityScheduling from kubernetes-sigs/scheduler-plugins
// (pkg/capacityscheduling/capacity_scheduling.go, elasticquota.go): ElasticQuota min/max per
// namespace. PreFilter admits a pod while its quota stays within max and the quotas' total
// use stays within the sum of their mins (so a namespace borrows only the other quotas'
// unused min); Reserve/Unreserve and the assigned-pod informer keep each quota's Used; its
// PostFilter is a preemption whose victims follow the quotas (PreemptionPlugin).
//
// The quotas are the store's ElasticQuota objects (sched/scheduler_plugins_objects.hpp
// install_elastic_quotas; served by `kubesim serve` once the CRD is applied), read as the
// plugin's ElasticQuota informer keeps elasticQuotaInfos: a quota created through the API
// starts with no Used, an update keeps Used and takes the new min/max, a delete drops it
// (capacity_scheduling.go addElasticQuota / updateElasticQuota / deleteElasticQuota).
#pragma once

#include <string>
#include <vector>

#include "sched/kube/framework.hpp"

namespace kubesim {

// scheduling.x-k8s.io/v1alpha1 ElasticQuota. A resource missing from a list that is present
// is 0 (min) or 0 (max, cpu/memory/ephemeral-storage) or unbounded (max, extended
// resources: cmp2's bound); an absent list is 0 (min) or unbounded (max).
struct ElasticQuotaObject {
  std::string ns;
  std::string name;
  Resources min;
  Resources max;
  std::array<bool, kMaxResources> max_set{};  // max has this resource (or the list is absent)
};

// ElasticQuota's resource (group scheduling.x-k8s.io, as PodGroup's).
inline constexpr const char* kElasticQuotaPlural = "elasticquotas";

class CapacityScheduling final : public PreFilterPlugin,
                                 public ReservePlugin,
                                 public PreemptionPlugin,
                                 public InformerPlugin {
 public:
  CapacityScheduling() = default;
  const char* name() const override { return "CapacityScheduling"; }
  std::uint32_t events_to_register() const override { return kEventPodDelete; }  // Pod/Delete, ElasticQuota/All

  void set_handle(FrameworkHandle* handle) override { handle_ = handle; }
  void on_pod_change(const Change& change, SimTime now) override;
  PluginStatus pre_filter(const CycleContext& ctx, SimTime now) override;
  PluginStatus reserve(PodId pod, NodeId node, SimTime now) override;
  void unreserve(PodId pod, NodeId node, SimTime now) override;

  bool eligible(PodId pod, NodeId nominated, bool nominated_unresolvable) override;
  std::pair<std::int32_t, std::int32_t> offset_and_num_candidates(std::int32_t nodes) override { return {0, nodes}; }
  void begin_node(PodId preemptor) override;
  bool potential_victim(PodId preemptor, PodId pod) override;
  void removed(PodId pod) override { adjust_node_snapshot(pod, -1); }
  void added(PodId pod) override { adjust_node_snapshot(pod, +1); }
  bool fits_after_removal(PodId preemptor) override;
  bool fits_on_reprieve(PodId preemptor) override;

  // The live quota state (tests).
  int quota_of_namespace(NamespaceId ns);
  const Resources& used(int quota) const { return used_[static_cast<std::size_t>(quota)]; }
  void set_used(int q, const Resources& r) {
    sync_quotas();
    used_[static_cast<std::size_t>(q)] = r;
  }

 private:
  using Usage = std::vector<Resources>;
  // elasticquota.go predicates on a usage vector.
  bool used_over_max_with(const Usage& u, int q, const Resources& x) const;
  bool used_over_min_with(const Usage& u, int q, const Resources& x) const;
  bool used_over_min(const Usage& u, int q) const;
  bool aggregated_used_over_min_with(const Usage& u, const Resources& x) const;
  void add_pod(PodId pod);     // addPodIfNotPresent on the live state
  void remove_pod(PodId pod);  // deletePodIfPresent
  void adjust_node_snapshot(PodId pod, int sign);
  // In quota q's pods set (live).
  bool counted(PodId pod, int q) const {
    return q >= 0 && pod.value() < counted_.size() && counted_[pod.value()] == static_cast<std::uint32_t>(q) + 1;
  }
  // Follows the store's ElasticQuota objects (created / deleted since the last call); true
  // when there is at least one live quota.
  bool sync_quotas();
  bool live(std::size_t q) const { return !handle_->store().meta(kind_, static_cast<std::uint32_t>(q)).deleted; }
  const ElasticQuotaObject& quota(int q) const { return quotas_->get(static_cast<std::uint32_t>(q)); }

  FrameworkHandle* handle_ = nullptr;
  ObjectKind kind_{};
  const TypedKindTable<ElasticQuotaObject>* quotas_ = nullptr;  // the store's, by object id
  std::size_t seen_ = 0;                 // objects of the kind when by_ns_ was last valid
  std::size_t live_ = 0;                 // live quotas then
  std::vector<int> by_ns_;              // NamespaceId -> quota id (-1 none, -2 not looked up yet)
  Usage used_;                           // live Used per quota id
  std::vector<std::uint32_t> counted_;   // by PodId: 1 + the quota whose pods set has it, 0 none
  // This cycle's CycleState: the snapshot PreFilter took, the nominated-pod sums, and a
  // per-node clone for the preemption dry run.
  PodId cycle_pod_;
  Usage snapshot_;
  Resources in_eq_;   // nominatedPodsReqInEQWithPodReq
  Resources all_;     // nominatedPodsReqWithPodReq
  Usage node_snapshot_;
  std::vector<PodId> node_removed_;  // pods the node clone took out of their quota's set
  bool more_than_min_ = false;
};

}  // namespace kubesim

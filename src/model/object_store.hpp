// The object store: the simulated API server's storage. Every write bumps the global
// resourceVersion, stamps it on the object, and is announced on the change feed, which
// controllers, schedulers and metrics consume (through informers that may add delay).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/huge_pages.hpp"
#include "model/objects.hpp"

namespace kubesim {

enum class ObjectKind : std::uint8_t { kNamespace, kNode, kPod, kJob, kQuota };
enum class ChangeType : std::uint8_t { kAdded, kModified, kDeleted };

// One entry of the change feed. It carries a snapshot of the pod fields that change over a
// pod's life, so a consumer that hears of it late still sees the state as of this change.
struct Change {
  ObjectKind kind;
  ChangeType type;
  std::uint32_t id;
  // No resourceVersion: consumers that need it (a watch cache) listen synchronously and
  // read the object's, which keeps the delivered events small.
  NodeId node;      // pods: spec.nodeName at this change
  PodPhase phase;   // pods: status.phase at this change
  PodPhase old_phase;
  NodeId old_node;
  bool became_terminating = false;  // pods: this change set the deletion timestamp
  bool gated = false;               // pods: spec.schedulingGates not empty at this change
};

class ChangeListener {
 public:
  virtual ~ChangeListener() = default;
  virtual void on_change(const Change& change) = 0;
};

class ObjectStore {
 public:
  NamespaceId ensure_namespace(const std::string& name);
  NodeId create_node(Node node);
  PodTemplateId add_template(PodTemplate spec);  // finalizes the derived requests
  PodId create_pod(Pod pod);
  JobId create_job(Job job);
  QuotaId create_quota(ResourceQuota quota);
  void add_priority_class(PriorityClass pc);
  void add_pod_disruption_budget(PodDisruptionBudget pdb);

  // The DELETE of a pod: sets the deletion timestamp (now + grace) and the disruption
  // reason; the kubelet then stops the containers. A pod that was never bound is removed
  // at once. No-op for pods already terminating or deleted.
  void delete_pod(PodId id, SimTime now, Duration grace, DisruptionReason reason);
  // The final removal from the API (after the kubelet confirmed the containers stopped):
  // announces a Deleted change.
  void remove_pod(PodId id);
  // The DELETE of a Job: removed from the API at once (announces Deleted); its pods are
  // the caller's (garbage collection) to delete or orphan.
  void remove_job(JobId id);
  // A namespace deleted through the API: removed at once (announces Deleted); its objects
  // are the caller's to delete. ensure_namespace() with the same name restores it.
  void remove_namespace(NamespaceId id);
  // A binding to a node that does not exist, which kube-apiserver accepts (assignPod sets
  // spec.nodeName without looking the node up: pkg/registry/core/pod/storage/storage.go):
  // the pod is scheduled (PodScheduled=True, spec.nodeName `node_name`) but `Pod::node`
  // stays unset and no kubelet runs it, until a node of that name is created (create_node
  // binds it there) or the pod garbage collector deletes it (control/pod_gc.hpp).
  void bind_to_missing_node(PodId id, std::string node_name, SimTime now);
  // spec.nodeName of a pod bound to a node that does not exist; null for every other pod.
  const std::string* missing_node(PodId id) const;
  // A resourceVersion for an object kept outside this store (events, leases, ...): the
  // API has one resourceVersion sequence across all kinds, as etcd's revision.
  std::uint64_t next_resource_version() { return ++resource_version_; }

  // Applies `mutate` to the pod, then stamps a new resourceVersion and announces it.
  template <class Mutate>
  void update_pod(PodId id, Mutate&& mutate) {
    Pod& p = pods_[id.value()];
    const PodPhase old_phase = p.phase;
    const NodeId old_node = p.node;
    const bool was_terminating = p.terminating();
    mutate(p);
    p.resource_version = ++resource_version_;
    announce(Change{ObjectKind::kPod, ChangeType::kModified, id.value(), p.node, p.phase,
                    old_phase, old_node, p.terminating() && !was_terminating, !p.scheduling_gates.empty()});
  }
  template <class Mutate>
  void update_node(NodeId id, Mutate&& mutate) {
    Node& n = nodes_[id.value()];
    mutate(n);
    n.resource_version = ++resource_version_;
    announce(Change{ObjectKind::kNode, ChangeType::kModified, id.value(), id, PodPhase::kPending,
                    PodPhase::kPending, id});
  }
  template <class Mutate>
  void update_job(JobId id, Mutate&& mutate) {
    Job& j = jobs_[id.value()];
    mutate(j);
    j.resource_version = ++resource_version_;
    announce(Change{ObjectKind::kJob, ChangeType::kModified, id.value(), NodeId(),
                    PodPhase::kPending, PodPhase::kPending, NodeId()});
  }
  template <class Mutate>
  void update_quota(QuotaId id, Mutate&& mutate) {
    ResourceQuota& q = quotas_[id.value()];
    mutate(q);
    q.resource_version = ++resource_version_;
    announce(Change{ObjectKind::kQuota, ChangeType::kModified, id.value(), NodeId(),
                    PodPhase::kPending, PodPhase::kPending, NodeId()});
  }
  // Simulator statistics that are not API fields: no new resourceVersion, no change event.
  Pod& pod_statistics(PodId id) { return pods_[id.value()]; }

  const Pod& pod(PodId id) const { return pods_[id.value()]; }
  const Node& node(NodeId id) const { return nodes_[id.value()]; }
  const Namespace& namespace_(NamespaceId id) const { return namespaces_[id.value()]; }
  const PodTemplate& spec(PodTemplateId id) const { return templates_[id.value()]; }
  const PodTemplate& spec_of(PodId id) const { return templates_[pods_[id.value()].spec.value()]; }
  const Job& job(JobId id) const { return jobs_[id.value()]; }
  const ResourceQuota& quota(QuotaId id) const { return quotas_[id.value()]; }
  // The quotas of a namespace, in creation order.
  const std::vector<QuotaId>& quotas_in(NamespaceId ns) const;
  // nullptr when there is no PriorityClass of that name.
  const PriorityClass* find_priority_class(const std::string& name) const;
  // The globalDefault PriorityClass (the one with the highest value if several), or nullptr.
  const PriorityClass* default_priority_class() const;
  const std::vector<PriorityClass>& priority_classes() const { return priority_classes_; }
  const std::vector<PodDisruptionBudget>& pod_disruption_budgets() const { return pdbs_; }
  std::optional<NamespaceId> find_namespace(const std::string& name) const;

  std::size_t pod_count() const { return pods_.size(); }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t namespace_count() const { return namespaces_.size(); }
  std::size_t job_count() const { return jobs_.size(); }
  std::size_t quota_count() const { return quotas_.size(); }
  std::uint64_t resource_version() const { return resource_version_; }
  ResourceNames& resource_names() { return resource_names_; }
  const ResourceNames& resource_names() const { return resource_names_; }

  void add_listener(ChangeListener* listener) { listeners_.push_back(listener); }
  void remove_listener(ChangeListener* listener) { std::erase(listeners_, listener); }
  void reserve_pods(std::size_t n) { pods_.reserve(n); }
  std::size_t reserved_pods() const { return pods_.capacity(); }
  void reserve_jobs(std::size_t n) { jobs_.reserve(n); }

 private:
  void announce(const Change& change) {
    for (auto* l : listeners_) l->on_change(change);
  }

  std::vector<Namespace> namespaces_;
  std::unordered_map<std::string, NamespaceId> namespace_index_;  // lookups only, never iterated
  std::vector<Node> nodes_;
  std::vector<PodTemplate> templates_;
  HugePageVector<Pod> pods_;  // the largest array of a run (core/huge_pages.hpp)
  std::vector<Job> jobs_;
  std::vector<ResourceQuota> quotas_;
  std::vector<std::vector<QuotaId>> quotas_by_namespace_;
  std::vector<PriorityClass> priority_classes_;
  std::vector<PodDisruptionBudget> pdbs_;
  std::vector<ChangeListener*> listeners_;
  std::map<std::uint32_t, std::string> missing_nodes_;  // by pod: bind_to_missing_node (rare)
  ResourceNames resource_names_;
  std::uint64_t resource_version_ = 0;
};

}  // namespace kubesim

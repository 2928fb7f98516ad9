// The object store: the simulated API server's storage. Every write bumps the global
// resourceVersion, stamps it on the object, and is announced on the change feed, which
// controllers, schedulers and metrics consume (through informers that may add delay).
// The five built-in kinds have typed tables of their own (the Pod table is the hot one);
// every other kind is registered (model/kind_registry.hpp) and kept in a KindTable.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/ids.hpp"
#include "core/huge_pages.hpp"
#include "model/kind_registry.hpp"
#include "model/kind_table.hpp"
#include "model/objects.hpp"

namespace kubesim {

enum class ChangeType : std::uint8_t { kAdded, kModified, kDeleted };

// One entry of the change feed (`kind` a built-in or a registered kind). It carries a snapshot of the pod fields that change over a
// pod's life, so a consumer that hears of it late still sees the state as of this change.
struct Change {
  ObjectKind kind;
  ChangeType type;
  std::uint32_t id;  // the object's index in its kind's table
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

  // ---- Registered kinds (model/kind_registry.hpp) ----
  // Registers a typed kind whose objects are of type T; returns its id. Objects of a
  // registered kind are delivered only to listeners that subscribed to its id.
  template <class T>
  ObjectKind register_kind(KindInfo info) {
    info.storage = KindStorage::kTyped;
    return add_kind(std::make_unique<TypedKindTable<T>>(std::move(info)));
  }
  // The kind served at info's group/plural, registered as a typed kind of T on first use
  // (a setup and a CRD applied to serve may each ask for it first).
  template <class T>
  ObjectKind ensure_kind(KindInfo info) {
    if (const std::optional<ObjectKind> known = find_kind(info.group, info.plural)) return *known;
    return register_kind<T>(std::move(info));
  }
  // Registers an opaque custom resource (a CustomResourceDefinition's kind): its objects
  // are OpaqueObject (JSON text).
  ObjectKind register_custom_kind(KindInfo info) {
    info.storage = KindStorage::kOpaque;
    return add_kind(std::make_unique<TypedKindTable<OpaqueObject>>(std::move(info)));
  }
  // Every kind id, built-ins first: 0 .. kind_count()-1.
  std::size_t kind_count() const { return kBuiltinKinds + kinds_.size(); }
  const KindInfo& kind_info(ObjectKind kind) const;
  // The kind served at group/plural (the resource of a URL), if any.
  std::optional<ObjectKind> find_kind(std::string_view group, std::string_view plural) const;
  // The API layer's JSON codec of a registered kind (KindCodec).
  void set_codec(ObjectKind kind, KindCodec codec) { table(kind).info().codec = std::move(codec); }

  // Create / get / list / update / delete of a registered kind's objects. Ids are indexes
  // in the kind's table, in creation order; a deleted object keeps its slot (meta().deleted).
  // Each write stamps a new resourceVersion and announces a Change{kind, ..., id}.
  template <class T>
  std::uint32_t create(ObjectKind kind, ObjectMeta meta, T object) {
    meta.resource_version = ++resource_version_;
    meta.deleted = false;
    const std::uint32_t id = typed<T>(kind).add(std::move(meta), std::move(object));
    announce(Change{kind, ChangeType::kAdded, id, NodeId(), PodPhase::kPending, PodPhase::kPending, NodeId()});
    return id;
  }
  template <class T>
  const T& get(ObjectKind kind, std::uint32_t id) const {
    return const_cast<ObjectStore*>(this)->typed<T>(kind).get(id);
  }
  template <class T, class Mutate>
  void update(ObjectKind kind, std::uint32_t id, Mutate&& mutate) {
    TypedKindTable<T>& t = typed<T>(kind);
    mutate(t.get(id));
    t.meta(id).resource_version = ++resource_version_;
    announce(Change{kind, ChangeType::kModified, id, NodeId(), PodPhase::kPending, PodPhase::kPending, NodeId()});
  }
  // create / update through the kind's own type without naming it (the API layer's writes of
  // a typed kind, KindTable::Fill): stored, stamped and announced only when `fill` succeeds.
  std::optional<std::uint32_t> create_filled(ObjectKind kind, ObjectMeta meta, const KindTable::Fill& fill);
  bool update_filled(ObjectKind kind, std::uint32_t id, const KindTable::Fill& fill);
  // The DELETE: removed from the API at once (announces Deleted). No-op if already deleted.
  void remove(ObjectKind kind, std::uint32_t id);
  std::size_t object_count(ObjectKind kind) const { return table(kind).size(); }
  const ObjectMeta& meta(ObjectKind kind, std::uint32_t id) const { return table(kind).meta(id); }
  // A typed kind's table, for a reader that keeps it (a plugin's lister: the table lives as
  // long as the store; its objects are read by id, as they move when it grows).
  template <class T>
  const TypedKindTable<T>& typed_table(ObjectKind kind) const {
    return const_cast<ObjectStore*>(this)->typed<T>(kind);
  }
  // The object as its kind's C++ type, for the codec (KindCodec::encode).
  const void* object(ObjectKind kind, std::uint32_t id) const { return table(kind).object(id); }
  // The live object of that namespace (invalid for cluster-scoped kinds) and name (indexed).
  std::optional<std::uint32_t> find(ObjectKind kind, NamespaceId ns, std::string_view name) const;

  // ---- The change feed ----
  // Subscribes to the built-in kinds (every listener before registered kinds existed).
  void add_listener(ChangeListener* listener) { add_listener(listener, KindSet::builtins()); }
  // Subscribes to exactly these kinds: a listener is never delivered a kind it did not ask for.
  void add_listener(ChangeListener* listener, KindSet kinds) { listeners_.push_back(Subscription{listener, kinds}); }
  // Changes what a listener subscribed to (its place among the listeners stays).
  void set_listener_kinds(ChangeListener* listener, KindSet kinds) {
    for (Subscription& s : listeners_)
      if (s.listener == listener) s.kinds = kinds;
  }
  void remove_listener(ChangeListener* listener) {
    std::erase_if(listeners_, [&](const Subscription& s) { return s.listener == listener; });
  }
  void reserve_pods(std::size_t n) { pods_.reserve(n); }
  std::size_t reserved_pods() const { return pods_.capacity(); }
  void reserve_jobs(std::size_t n) { jobs_.reserve(n); }

 private:
  struct Subscription {
    ChangeListener* listener;
    KindSet kinds;
  };
  void announce(const Change& change) {
    for (const Subscription& s : listeners_)
      if (s.kinds.contains(change.kind)) s.listener->on_change(change);
  }
  ObjectKind add_kind(std::unique_ptr<KindTable> table);
  const KindTable& table(ObjectKind kind) const;
  KindTable& table(ObjectKind kind) { return const_cast<KindTable&>(std::as_const(*this).table(kind)); }
  template <class T>
  TypedKindTable<T>& typed(ObjectKind kind) {
    KindTable& t = table(kind);
    KUBESIM_ASSERT(t.type() == typeid(T));
    return static_cast<TypedKindTable<T>&>(t);
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
  std::vector<Subscription> listeners_;
  std::vector<std::unique_ptr<KindTable>> kinds_;  // registered kinds: id kBuiltinKinds + index
  std::map<std::uint32_t, std::string> missing_nodes_;  // by pod: bind_to_missing_node (rare)
  ResourceNames resource_names_;
  std::uint64_t resource_version_ = 0;
};

}  // namespace kubesim

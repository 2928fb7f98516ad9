#include "model/object_store.hpp"

#include <array>

namespace kubesim {

NamespaceId ObjectStore::ensure_namespace(const std::string& name) {
  if (auto it = namespace_index_.find(name); it != namespace_index_.end()) {
    Namespace& ns = namespaces_[it->second.value()];
    if (ns.deleted) {
      ns.deleted = false;
      ns.resource_version = ++resource_version_;
      announce(Change{ObjectKind::kNamespace, ChangeType::kAdded, it->second.value(), NodeId(), PodPhase::kPending,
                      PodPhase::kPending, NodeId()});
    }
    return it->second;
  }
  const NamespaceId id(static_cast<std::uint32_t>(namespaces_.size()));
  namespaces_.push_back(Namespace{name, ++resource_version_, false});
  namespace_index_.emplace(name, id);
  announce(Change{ObjectKind::kNamespace, ChangeType::kAdded, id.value(), NodeId(), PodPhase::kPending,
                  PodPhase::kPending, NodeId()});
  return id;
}

NodeId ObjectStore::create_node(Node node) {
  const NodeId id(static_cast<std::uint32_t>(nodes_.size()));
  node.resource_version = ++resource_version_;
  nodes_.push_back(std::move(node));
  announce(Change{ObjectKind::kNode, ChangeType::kAdded, id.value(), id, PodPhase::kPending,
                  PodPhase::kPending, id});
  // Pods bound to this name before the node existed are its pods now (their kubelet
  // finds them when it registers).
  for (auto it = missing_nodes_.begin(); it != missing_nodes_.end();) {
    if (it->second != nodes_[id.value()].name) {
      ++it;
      continue;
    }
    const PodId pod(it->first);
    it = missing_nodes_.erase(it);
    if (!pods_[pod.value()].deleted) update_pod(pod, [&](Pod& x) { x.node = id; });
  }
  return id;
}

void ObjectStore::bind_to_missing_node(PodId id, std::string node_name, SimTime now) {
  missing_nodes_[id.value()] = std::move(node_name);
  update_pod(id, [&](Pod& x) {
    x.scheduled = now;
    x.unschedulable_message.clear();
  });
}

const std::string* ObjectStore::missing_node(PodId id) const {
  if (missing_nodes_.empty()) return nullptr;
  const auto it = missing_nodes_.find(id.value());
  return it == missing_nodes_.end() ? nullptr : &it->second;
}

PodTemplateId ObjectStore::add_template(PodTemplate spec) {
  spec.finalize();
  templates_.push_back(std::move(spec));
  return PodTemplateId(static_cast<std::uint32_t>(templates_.size() - 1));
}

PodId ObjectStore::create_pod(Pod pod) {
  KUBESIM_ASSERT(pod.spec.valid() && pod.spec.value() < templates_.size());
  const PodId id(static_cast<std::uint32_t>(pods_.size()));
  pod.resource_version = ++resource_version_;
  pods_.push_back(std::move(pod));
  const Pod& p = pods_.back();
  announce(Change{ObjectKind::kPod, ChangeType::kAdded, id.value(), p.node, p.phase, p.phase,
                  p.node, false, !p.scheduling_gates.empty()});
  return id;
}

JobId ObjectStore::create_job(Job job) {
  const JobId id(static_cast<std::uint32_t>(jobs_.size()));
  job.resource_version = ++resource_version_;
  jobs_.push_back(std::move(job));
  announce(Change{ObjectKind::kJob, ChangeType::kAdded, id.value(), NodeId(), PodPhase::kPending,
                  PodPhase::kPending, NodeId()});
  return id;
}

QuotaId ObjectStore::create_quota(ResourceQuota quota) {
  KUBESIM_ASSERT(quota.ns.valid() && quota.ns.value() < namespaces_.size());
  const QuotaId id(static_cast<std::uint32_t>(quotas_.size()));
  quota.resource_version = ++resource_version_;
  if (quotas_by_namespace_.size() <= quota.ns.value()) quotas_by_namespace_.resize(quota.ns.value() + 1);
  quotas_by_namespace_[quota.ns.value()].push_back(id);
  quotas_.push_back(std::move(quota));
  announce(Change{ObjectKind::kQuota, ChangeType::kAdded, id.value(), NodeId(), PodPhase::kPending,
                  PodPhase::kPending, NodeId()});
  return id;
}

const std::vector<QuotaId>& ObjectStore::quotas_in(NamespaceId ns) const {
  static const std::vector<QuotaId> kNone;
  return ns.value() < quotas_by_namespace_.size() ? quotas_by_namespace_[ns.value()] : kNone;
}

void ObjectStore::add_priority_class(PriorityClass pc) { priority_classes_.push_back(std::move(pc)); }

void ObjectStore::add_pod_disruption_budget(PodDisruptionBudget pdb) { pdbs_.push_back(std::move(pdb)); }

const PriorityClass* ObjectStore::find_priority_class(const std::string& name) const {
  for (const auto& pc : priority_classes_)
    if (pc.name == name) return &pc;
  return nullptr;
}

const PriorityClass* ObjectStore::default_priority_class() const {
  // plugin/pkg/admission/priority/admission.go getDefaultPriorityClass: the globalDefault
  // class with the highest value.
  const PriorityClass* best = nullptr;
  for (const auto& pc : priority_classes_)
    if (pc.global_default && (!best || pc.value > best->value)) best = &pc;
  return best;
}

std::optional<NamespaceId> ObjectStore::find_namespace(const std::string& name) const {
  if (auto it = namespace_index_.find(name); it != namespace_index_.end()) return it->second;
  return std::nullopt;
}

void ObjectStore::delete_pod(PodId id, SimTime now, Duration grace, DisruptionReason reason) {
  const Pod& p = pods_[id.value()];
  if (p.deleted || p.terminating()) return;
  if (!p.node.valid() || is_terminal(p.phase)) {
    // Nothing runs on a node (or it already stopped): the API server deletes at once.
    update_pod(id, [&](Pod& x) {
      x.deletion_requested = now;
      x.disruption = reason;
    });
    remove_pod(id);
    return;
  }
  update_pod(id, [&](Pod& x) {
    x.deletion_requested = now;
    x.deletion_grace = grace;
    x.disruption = reason;
  });
}

void ObjectStore::remove_pod(PodId id) {
  Pod& p = pods_[id.value()];
  if (p.deleted) return;
  p.deleted = true;
  p.resource_version = ++resource_version_;
  announce(Change{ObjectKind::kPod, ChangeType::kDeleted, id.value(), p.node, p.phase, p.phase,
                  p.node});
}

void ObjectStore::remove_job(JobId id) {
  Job& j = jobs_[id.value()];
  if (j.deleted) return;
  j.deleted = true;
  j.resource_version = ++resource_version_;
  announce(Change{ObjectKind::kJob, ChangeType::kDeleted, id.value(), NodeId(), PodPhase::kPending,
                  PodPhase::kPending, NodeId()});
}

void ObjectStore::remove_namespace(NamespaceId id) {
  Namespace& ns = namespaces_[id.value()];
  if (ns.deleted) return;
  ns.deleted = true;
  ns.resource_version = ++resource_version_;
  announce(Change{ObjectKind::kNamespace, ChangeType::kDeleted, id.value(), NodeId(), PodPhase::kPending,
                  PodPhase::kPending, NodeId()});
}

namespace {

// The built-in kinds as discovery names them (api/resources.cpp serves the same).
const KindInfo& builtin_kind(ObjectKind kind) {
  static const std::array<KindInfo, kBuiltinKinds> kInfos{{
      {"", "v1", "Namespace", "namespaces", false, KindStorage::kBuiltin, {}},
      {"", "v1", "Node", "nodes", false, KindStorage::kBuiltin, {}},
      {"", "v1", "Pod", "pods", true, KindStorage::kBuiltin, {}},
      {"batch", "v1", "Job", "jobs", true, KindStorage::kBuiltin, {}},
      {"", "v1", "ResourceQuota", "resourcequotas", true, KindStorage::kBuiltin, {}},
  }};
  return kInfos[static_cast<std::size_t>(kind)];
}

}  // namespace

ObjectKind ObjectStore::add_kind(std::unique_ptr<KindTable> table) {
  const KindInfo& info = table->info();
  if (find_kind(info.group, info.plural))
    throw InputError("", 0, "kind " + info.kind + " (" + info.plural + "." + info.group + ") is already registered");
  if (kind_count() >= kMaxKinds) throw InputError("", 0, "too many object kinds (at most 256)");
  kinds_.push_back(std::move(table));
  return static_cast<ObjectKind>(kind_count() - 1);
}

const KindTable& ObjectStore::table(ObjectKind kind) const {
  const auto i = static_cast<std::size_t>(kind);
  KUBESIM_ASSERT(i >= kBuiltinKinds && i < kind_count());
  return *kinds_[i - kBuiltinKinds];
}

const KindInfo& ObjectStore::kind_info(ObjectKind kind) const {
  return is_builtin(kind) ? builtin_kind(kind) : table(kind).info();
}

std::optional<ObjectKind> ObjectStore::find_kind(std::string_view group, std::string_view plural) const {
  for (std::size_t i = 0; i < kind_count(); ++i) {
    const auto kind = static_cast<ObjectKind>(i);
    const KindInfo& info = kind_info(kind);
    if (info.group == group && info.plural == plural) return kind;
  }
  return std::nullopt;
}

void ObjectStore::remove(ObjectKind kind, std::uint32_t id) {
  KindTable& t = table(kind);
  ObjectMeta& m = t.meta(id);
  if (m.deleted) return;
  t.mark_deleted(id);
  m.resource_version = ++resource_version_;
  announce(Change{kind, ChangeType::kDeleted, id, NodeId(), PodPhase::kPending, PodPhase::kPending, NodeId()});
}

std::optional<std::uint32_t> ObjectStore::create_filled(ObjectKind kind, ObjectMeta meta, const KindTable::Fill& fill) {
  meta.resource_version = resource_version_ + 1;
  meta.deleted = false;
  const std::optional<std::uint32_t> id = table(kind).add_filled(std::move(meta), fill);
  if (!id) return std::nullopt;
  ++resource_version_;
  announce(Change{kind, ChangeType::kAdded, *id, NodeId(), PodPhase::kPending, PodPhase::kPending, NodeId()});
  return id;
}

bool ObjectStore::update_filled(ObjectKind kind, std::uint32_t id, const KindTable::Fill& fill) {
  KindTable& t = table(kind);
  if (!t.replace_filled(id, fill)) return false;
  t.meta(id).resource_version = ++resource_version_;
  announce(Change{kind, ChangeType::kModified, id, NodeId(), PodPhase::kPending, PodPhase::kPending, NodeId()});
  return true;
}

std::optional<std::uint32_t> ObjectStore::find(ObjectKind kind, NamespaceId ns, std::string_view name) const {
  return table(kind).find(ns, name);
}

}  // namespace kubesim

#include "sched/volcano/vc_queues.hpp"

#include <limits>

#include "sched/volcano/volcano.hpp"

namespace kubesim::volcano {

KindInfo queue_kind() {
  return KindInfo{kVolcanoSchedulingGroup, "v1beta1", "Queue", kQueuePlural, false, KindStorage::kTyped, {}};
}

ObjectKind install_queues(ObjectStore& store, const std::vector<QueueSpec>& queues) {
  const ObjectKind kind = store.ensure_kind<QueueSpec>(queue_kind());
  for (const QueueSpec& q : queues)
    if (!store.find(kind, NamespaceId(), q.name)) store.create(kind, ObjectMeta{q.name, NamespaceId(), 0, false}, q);
  return kind;
}

KindInfo pod_group_kind() {
  return KindInfo{kVolcanoSchedulingGroup, "v1beta1", "PodGroup", kVolcanoPodGroupPlural, true, KindStorage::kTyped, {}};
}

ObjectKind install_pod_groups(ObjectStore& store) {
  return store.ensure_kind<GroupObject>(pod_group_kind());
}

void Volcano::publish_group(std::int32_t j) {
  Job& job = jobs_[static_cast<std::size_t>(j)];
  if (job.store_id >= 0) {
    if (job.published == job.phase) return;
    job.published = job.phase;
    store_.update<GroupObject>(group_kind_, static_cast<std::uint32_t>(job.store_id),
                               [&](GroupObject& o) { o.phase = job.phase; });
    return;
  }
  GroupObject o;
  o.spec.name = job.name;
  o.spec.ns = store_.namespace_(job.ns).name;
  o.spec.min_member = job.min_member;
  o.spec.has_min_resources = job.has_min_resources;
  for (std::size_t i = 0; i < kMaxResources; ++i) o.spec.min_resources[i] = static_cast<std::int64_t>(job.min_resources.v[i]);
  o.spec.queue = job.queue_name;
  o.spec.priority_class = job.priority_class;
  o.spec.created = job.created;
  o.spec.min_task_member = job.task_min;
  o.phase = job.phase;
  job.published = job.phase;
  job.store_id = store_.create(group_kind_, ObjectMeta{job.name, job.ns, 0, false}, std::move(o));
}

// cache.go Snapshot: the session sees each queue as the informer last delivered it (a new
// weight or capability from this session on), a new queue once it exists, none once deleted.
// Only the queues whose resourceVersion moved are copied; when a queue came or went, every
// job's queue is looked up again by name (the job's PodGroup names its queue: a group whose
// queue is created later is scheduled from then on, one whose queue went is not).
void Volcano::sync_queues() {
  constexpr std::uint64_t kGone = std::numeric_limits<std::uint64_t>::max();
  const TypedKindTable<QueueSpec>& table = store_.typed_table<QueueSpec>(queue_kind_);
  bool changed_set = false;
  for (std::uint32_t id = 0; id < table.size(); ++id) {
    const ObjectMeta& m = store_.meta(queue_kind_, id);
    if (id == queue_seen_.size()) {
      queue_seen_.push_back(0);
      config_.queues.emplace_back();
      queue_attrs_.emplace_back();
      queue_created_.push_back(static_cast<std::int64_t>(id));  // ids follow creation
      changed_set = true;
    }
    const std::uint64_t seen = m.deleted ? kGone : m.resource_version;
    if (queue_seen_[id] == seen) continue;
    queue_seen_[id] = seen;
    QueueSpec& q = config_.queues[id];
    if (m.deleted) {
      q = QueueSpec{};  // no name: no job finds it
      q.open = false;
      changed_set = true;
    } else {
      q = table.get(id);
    }
  }
  if (!changed_set) return;
  for (Job& job : jobs_) job.queue = config_.find_queue(job.queue_name);
}

}  // namespace kubesim::volcano

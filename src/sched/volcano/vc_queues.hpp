// Volcano's Queue (scheduling.volcano.sh/v1beta1, cluster-scoped) as a typed kind of the
// store, shared by the model and the API: the setup's queues (and the `default` queue) are
// its first objects, a Queue applied, changed or deleted through `kubesim serve` (once the
// CRD is applied) is one more, and the model reads the table when a session opens
// (Volcano::sync_queues), as vc-scheduler's cache snapshots its queue informer's state at
// OpenSession (pkg/scheduler/cache/cache.go Snapshot: every QueueInfo cloned into the
// session). A queue's store id is its index in Config::queues; a deleted one keeps its slot
// (an empty name: no job finds it).
#pragma once

#include <vector>

#include "model/object_store.hpp"
#include "sched/volcano/vc_config.hpp"

namespace kubesim::volcano {

inline constexpr const char* kVolcanoSchedulingGroup = "scheduling.volcano.sh";
inline constexpr const char* kQueuePlural = "queues";
inline constexpr const char* kVolcanoPodGroupPlural = "podgroups";

KindInfo queue_kind();
// Registers the Queue kind once (its id if already there) and creates those of `queues` the
// store has no Queue of that name for.
ObjectKind install_queues(ObjectStore& store, const std::vector<QueueSpec>& queues);

// Volcano's PodGroup (namespaced), objects of type GroupObject (volcano.hpp) that the model
// writes: each job's PodGroup once a session has seen it, with the phase each session's close
// gives it, as vc-scheduler writes status.phase (framework/session.go jobStatus). Served
// read-only: the model does not read PodGroups created through the API.
KindInfo pod_group_kind();
ObjectKind install_pod_groups(ObjectStore& store);

}  // namespace kubesim::volcano

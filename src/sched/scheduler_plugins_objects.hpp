// The scheduler-plugins CRD objects a cluster holds (ElasticQuota, PodGroup), read from a
// multi-document YAML file as `kubectl apply` takes it (the study's all-cap-quota.yaml).
#pragma once

#include <string>
#include <vector>

#include "model/object_store.hpp"
#include "sched/kube/plugins/capacity_scheduling/capacity_scheduling.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"

namespace kubesim {

struct SchedulerPluginsObjects {
  std::vector<ElasticQuotaObject> elastic_quotas;
  std::vector<PodGroupObject> pod_groups;
};

// Throws InputError (file:line) on anything else than ElasticQuota and PodGroup objects of
// scheduling.x-k8s.io/v1alpha1 (or the older scheduling.sigs.k8s.io/v1alpha1).
SchedulerPluginsObjects read_scheduler_plugins_objects(const std::string& path, ResourceNames& names);

// PodGroup (scheduler-plugins apis/scheduling/v1alpha1, the CRD
// config/crd/bases/scheduling.x-k8s.io_podgroups.yaml): a namespaced, typed kind whose
// objects are PodGroupObject.
KindInfo pod_group_kind();
// Registers PodGroup in the store (once: the kind id if already there) and creates `groups`
// in it, in order (create_pod_group). The Coscheduling plugin reads these objects. Returns
// the kind id.
ObjectKind install_pod_groups(ObjectStore& store, const std::vector<PodGroupObject>& groups);
// The PodGroup CREATE: false (nothing created) when the store has no PodGroup kind, the
// group's namespace does not exist (kube-apiserver's NamespaceLifecycle admission refuses
// it), or the namespace has a PodGroup of that name (AlreadyExists).
bool create_pod_group(ObjectStore& store, const PodGroupObject& group);

// ElasticQuota (scheduler-plugins apis/scheduling/v1alpha1, the CRD
// config/crd/bases/scheduling.x-k8s.io_elasticquotas.yaml), the same way: a namespaced typed
// kind whose objects (ElasticQuotaObject) CapacityScheduling reads from the store, so an
// ElasticQuota created, changed or deleted through the API is the one its next cycle uses.
KindInfo elastic_quota_kind();
ObjectKind install_elastic_quotas(ObjectStore& store, const std::vector<ElasticQuotaObject>& quotas);
bool create_elastic_quota(ObjectStore& store, const ElasticQuotaObject& quota);

}  // namespace kubesim

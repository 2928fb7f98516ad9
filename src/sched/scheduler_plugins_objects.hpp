// The scheduler-plugins CRD objects a cluster holds (ElasticQuota, PodGroup), read from a
// multi-document YAML file as `kubectl apply` takes it (the study's all-cap-quota.yaml).
#pragma once

#include <string>
#include <vector>

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

}  // namespace kubesim

// The JSON codecs of the typed kinds the API layer knows (model/kind_registry.hpp KindCodec:
// model/ has no JSON). PodGroup (scheduler-plugins apis/scheduling/v1alpha1 types.go
// PodGroupSpec: minMember, minResources, scheduleTimeoutSeconds; served at
// scheduling.x-k8s.io/v1alpha1 podgroups as its CRD declares). A kind registered without a
// codec is served with its metadata only.
#pragma once

#include "api/json_codec.hpp"
#include "model/object_store.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"

namespace kubesim::api {

// Sets the codec of each kind above that `store` has registered and that has none yet.
void install_kind_codecs(ObjectStore& store, TimeFormat time);

// PodGroup's body: {"spec": {...}, "metadata": {"creationTimestamp": ...}}.
nlohmann::json pod_group_json(const PodGroupObject& group, const ResourceNames& names, const TimeFormat& time);

}  // namespace kubesim::api

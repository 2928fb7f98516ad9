// The JSON codecs of the typed kinds the API layer knows (model/kind_registry.hpp KindCodec:
// model/ has no JSON). PodGroup (scheduler-plugins apis/scheduling/v1alpha1 types.go
// PodGroupSpec: minMember, minResources, scheduleTimeoutSeconds; served at
// scheduling.x-k8s.io/v1alpha1 podgroups as its CRD declares) and ElasticQuota (the same
// group's elasticquotas: ElasticQuotaSpec min, max, read by CapacityScheduling). A kind registered without a
// codec is served with its metadata only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/json_codec.hpp"
#include "model/object_store.hpp"
#include "sched/kube/plugins/capacity_scheduling/capacity_scheduling.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"

namespace kubesim::api {

// Sets the codec of each kind above that `store` has registered and that has none yet.
void install_kind_codecs(ObjectStore& store, TimeFormat time);
// Registers the model's typed kind served at group/plural (PodGroup: the one Coscheduling
// reads; ElasticQuota: CapacityScheduling's) when a CustomResourceDefinition defines it; nullopt for a kind no model has.
std::optional<ObjectKind> register_model_kind(ObjectStore& store, std::string_view group, std::string_view plural);

// A PodGroup from its JSON (the whole object: metadata name, namespace, creationTimestamp;
// spec minMember, minResources, scheduleTimeoutSeconds), as the CRD's schema types them;
// the error's text, empty on success.
std::string decode_pod_group(std::string_view json, PodGroupObject& out, ResourceNames& names, const TimeFormat& time);

// PodGroup's body: {"spec": {...}, "metadata": {"creationTimestamp": ...}}.
nlohmann::json pod_group_json(const PodGroupObject& group, const ResourceNames& names, const TimeFormat& time);

// An ElasticQuota from its JSON (metadata name and namespace; spec min and max, resource
// lists; min <= max per resource, as the file reader requires); the error's text, empty on
// success. Its body: {"spec": {"min": {...}, "max": {...}}} (max left out when unbounded).
std::string decode_elastic_quota(std::string_view json, ElasticQuotaObject& out, ResourceNames& names);
nlohmann::json elastic_quota_json(const ElasticQuotaObject& quota, const ResourceNames& names);

}  // namespace kubesim::api

// The JSON codecs of the typed kinds the API layer knows (model/kind_registry.hpp KindCodec:
// model/ has no JSON). PodGroup (scheduler-plugins apis/scheduling/v1alpha1 types.go
// PodGroupSpec: minMember, minResources, scheduleTimeoutSeconds; served at
// scheduling.x-k8s.io/v1alpha1 podgroups as its CRD declares) and ElasticQuota (the same
// group's elasticquotas: ElasticQuotaSpec min, max, read by CapacityScheduling). A kind registered without a
// codec is served with its metadata only.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "api/json_codec.hpp"
#include "core/quantity.hpp"
#include "model/object_store.hpp"
#include "sched/kube/plugins/capacity_scheduling/capacity_scheduling.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"

namespace kubesim::api {

// A v1.ResourceList of the resources `keep` selects (cpu in millicores, the others in units).
template <typename Keep>
nlohmann::json resource_list_json(const Resources& r, const ResourceNames& names, Keep&& keep) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < kMaxResources && i < names.size(); ++i)
    if (keep(i)) out[names.name(i)] = format_quantity(r[i], i == kCpu);
  return out;
}
// A v1.ResourceList (quantities as the CRD's int-or-string schema allows) into `out`, marking
// the resources present; the error's text (at `where`), empty on success.
std::string decode_resource_list(const nlohmann::json& list, const std::string& where, ResourceNames& names,
                                 Resources& out, std::array<bool, kMaxResources>* present);

// Sets `kind`'s codec (when the store has it and it has none yet) from its encode / decode.
template <typename T, typename Encode, typename Decode>
void set_codec_once(ObjectStore& store, const KindInfo& info, Encode encode, Decode decode) {
  const auto kind = store.find_kind(info.group, info.plural);
  if (!kind || store.kind_info(*kind).codec.encode) return;
  store.set_codec(*kind, KindCodec{[encode](const void* object) { return encode(*static_cast<const T*>(object)).dump(); },
                                   [decode](std::string_view json, void* object) {
                                     return decode(json, *static_cast<T*>(object));
                                   }});
}

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

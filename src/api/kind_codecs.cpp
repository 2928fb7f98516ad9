#include "api/kind_codecs.hpp"

#include <limits>

#include "api/volcano_kind_codecs.hpp"
#include "core/quantity.hpp"
#include "sched/scheduler_plugins_objects.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

Json pod_group_json(const PodGroupObject& group, const ResourceNames& names, const TimeFormat& time) {
  Json spec = {{"minMember", group.min_member}};
  if (group.min_resources)
    spec["minResources"] =
        resource_list_json(*group.min_resources, names, [&](std::size_t i) { return (*group.min_resources)[i] != 0; });
  if (group.schedule_timeout_seconds != 0) spec["scheduleTimeoutSeconds"] = group.schedule_timeout_seconds;
  return {{"spec", std::move(spec)}, {"metadata", {{"creationTimestamp", time.time(group.created)}}}};
}

namespace {

// An int32 field of the spec; false (with `error`) when present and not one.
bool int32_field(const Json& spec, const char* key, std::int32_t& out, std::string& error) {
  const auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) return true;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > (std::int64_t{1} << 30)) {
    error = std::string("spec.") + key + ": Invalid value: " + it->dump() + ": expected an integer in [0, 2^30]";
    return false;
  }
  out = static_cast<std::int32_t>(it->get<std::int64_t>());
  return true;
}


}  // namespace

std::string decode_resource_list(const Json& list, const std::string& where, ResourceNames& names, Resources& out,
                                 std::array<bool, kMaxResources>* present) {
  if (!list.is_object()) return where + ": Invalid value: " + list.dump() + ": expected a map of quantities";
  for (const auto& [name, value] : list.items()) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.is_number_integer() ? value.dump() : "";
    std::string why;
    const auto q = Quantity::parse(text, &why);
    if (!q || q->negative() || q->out_of_range())
      return where + "." + name + ": Invalid value: " + value.dump() +
             ": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    const int slot = names.slot(name);
    if (slot < 0) continue;
    const auto i = static_cast<std::size_t>(slot);
    out[i] = i == kCpu ? q->milli_value() : q->value();
    if (present) (*present)[i] = true;
  }
  return {};
}

std::string decode_pod_group(std::string_view json, PodGroupObject& out, ResourceNames& names, const TimeFormat& time) {
  const Json o = Json::parse(json);
  const Json& meta = o["metadata"];
  out.name = meta.value("name", std::string());
  out.ns = meta.value("namespace", std::string());
  if (const auto micros = parse_rfc3339_micros(meta.value("creationTimestamp", std::string())))
    out.created = time.from_unix_micros(*micros);
  const Json spec = o.value("spec", Json::object());
  if (!spec.is_object()) return "spec: Invalid value: " + spec.dump() + ": expected an object";
  std::string error;
  if (!int32_field(spec, "minMember", out.min_member, error) ||
      !int32_field(spec, "scheduleTimeoutSeconds", out.schedule_timeout_seconds, error))
    return error;
  out.min_resources.reset();
  const auto min = spec.find("minResources");
  if (min == spec.end() || min->is_null()) return {};
  Resources r{};
  if (std::string e = decode_resource_list(*min, "spec.minResources", names, r, nullptr); !e.empty()) return e;
  out.min_resources = r;
  return {};
}

Json elastic_quota_json(const ElasticQuotaObject& quota, const ResourceNames& names) {
  Json spec = Json::object();
  spec["min"] = resource_list_json(quota.min, names, [&](std::size_t i) { return quota.min[i] != 0; });
  constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();
  bool bounded = false;  // an absent max reads as every resource unbounded
  for (std::size_t i = 0; i < kMaxResources; ++i) bounded = bounded || !quota.max_set[i] || quota.max[i] != kUnbounded;
  if (bounded)
    spec["max"] = resource_list_json(quota.max, names,
                                     [&](std::size_t i) { return quota.max_set[i] && quota.max[i] != kUnbounded; });
  return {{"spec", std::move(spec)}};
}

std::string decode_elastic_quota(std::string_view json, ElasticQuotaObject& out, ResourceNames& names) {
  const Json o = Json::parse(json);
  const Json& meta = o["metadata"];
  out = ElasticQuotaObject{};
  out.name = meta.value("name", std::string());
  out.ns = meta.value("namespace", std::string());
  const Json spec = o.value("spec", Json::object());
  if (!spec.is_object()) return "spec: Invalid value: " + spec.dump() + ": expected an object";
  // newElasticQuotaInfo: an absent min is 0, an absent max unbounded (as read from a file:
  // sched/scheduler_plugins_objects.cpp).
  if (const auto min = spec.find("min"); min != spec.end() && !min->is_null())
    if (std::string e = decode_resource_list(*min, "spec.min", names, out.min, nullptr); !e.empty()) return e;
  if (const auto max = spec.find("max"); max != spec.end() && !max->is_null()) {
    if (std::string e = decode_resource_list(*max, "spec.max", names, out.max, &out.max_set); !e.empty()) return e;
  } else {
    for (std::size_t i = 0; i < kMaxResources; ++i) out.max[i] = std::numeric_limits<std::int64_t>::max();
    out.max_set.fill(true);
  }
  // min <= max, as the file reader requires (the capacity-scheduling KEP's guarantee).
  for (std::size_t i = 0; i < kMaxResources && i < names.size(); ++i)
    if (out.max_set[i] && out.min[i] > out.max[i])
      return "spec.min." + names.name(i) + ": Invalid value: \"" + format_quantity(out.min[i], i == kCpu) +
             "\": must be less than or equal to spec.max." + names.name(i) + " (" +
             format_quantity(out.max[i], i == kCpu) + ")";
  return {};
}

void install_kind_codecs(ObjectStore& store, TimeFormat time) {
  ResourceNames* names = &store.resource_names();
  set_codec_once<PodGroupObject>(
      store, pod_group_kind(), [names, time](const PodGroupObject& g) { return pod_group_json(g, *names, time); },
      [names, time](std::string_view json, PodGroupObject& g) { return decode_pod_group(json, g, *names, time); });
  set_codec_once<ElasticQuotaObject>(
      store, elastic_quota_kind(), [names](const ElasticQuotaObject& q) { return elastic_quota_json(q, *names); },
      [names](std::string_view json, ElasticQuotaObject& q) { return decode_elastic_quota(json, q, *names); });
  install_volcano_codecs(store, time);
}

std::optional<ObjectKind> register_model_kind(ObjectStore& store, std::string_view group, std::string_view plural) {
  if (group == kPodGroupApiGroup && plural == kPodGroupPlural) return install_pod_groups(store, {});
  if (group == kPodGroupApiGroup && plural == kElasticQuotaPlural) return install_elastic_quotas(store, {});
  return std::nullopt;
}

}  // namespace kubesim::api

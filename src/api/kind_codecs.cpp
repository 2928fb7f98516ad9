#include "api/kind_codecs.hpp"

#include "core/quantity.hpp"
#include "sched/scheduler_plugins_objects.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

Json pod_group_json(const PodGroupObject& group, const ResourceNames& names, const TimeFormat& time) {
  Json spec = {{"minMember", group.min_member}};
  if (group.min_resources) {
    Json resources = Json::object();
    for (std::size_t i = 0; i < kMaxResources && i < names.size(); ++i)
      if ((*group.min_resources)[i] != 0) resources[names.name(i)] = format_quantity((*group.min_resources)[i], i == kCpu);
    spec["minResources"] = std::move(resources);
  }
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
  if (!min->is_object()) return "spec.minResources: Invalid value: " + min->dump() + ": expected a map of quantities";
  Resources r{};
  for (const auto& [name, value] : min->items()) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.is_number_integer() ? value.dump() : "";
    std::string why;
    const auto q = Quantity::parse(text, &why);
    if (!q || q->negative() || q->out_of_range())
      return "spec.minResources." + name + ": Invalid value: " + value.dump() + ": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    const int slot = names.slot(name);
    if (slot >= 0) r[static_cast<std::size_t>(slot)] = slot == static_cast<int>(kCpu) ? q->milli_value() : q->value();
  }
  out.min_resources = r;
  return {};
}

void install_kind_codecs(ObjectStore& store, TimeFormat time) {
  const KindInfo pod_groups = pod_group_kind();
  if (const auto kind = store.find_kind(pod_groups.group, pod_groups.plural);
      kind && !store.kind_info(*kind).codec.encode) {
    ResourceNames* names = &store.resource_names();
    store.set_codec(*kind, KindCodec{[names, time](const void* object) {
                                       return pod_group_json(*static_cast<const PodGroupObject*>(object), *names, time)
                                           .dump();
                                     },
                                     [names, time](std::string_view json, void* object) {
                                       return decode_pod_group(json, *static_cast<PodGroupObject*>(object), *names, time);
                                     }});
  }
}

std::optional<ObjectKind> register_model_kind(ObjectStore& store, std::string_view group, std::string_view plural) {
  if (group == kPodGroupApiGroup && plural == kPodGroupPlural) return install_pod_groups(store, {});
  return std::nullopt;
}

}  // namespace kubesim::api

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

void install_kind_codecs(ObjectStore& store, TimeFormat time) {
  const KindInfo pod_groups = pod_group_kind();
  if (const auto kind = store.find_kind(pod_groups.group, pod_groups.plural);
      kind && !store.kind_info(*kind).codec.encode) {
    const ResourceNames* names = &store.resource_names();
    store.set_codec(*kind, KindCodec{[names, time](const void* object) {
                                       return pod_group_json(*static_cast<const PodGroupObject*>(object), *names, time)
                                           .dump();
                                     },
                                     {}});
  }
}

}  // namespace kubesim::api

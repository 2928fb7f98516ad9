#include "api/volcano_kind_codecs.hpp"

#include <limits>

#include "api/kind_codecs.hpp"
#include "sched/volcano/vc_queues.hpp"
#include "sched/volcano/volcano.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

namespace {

Json slots_json(const Resources& r, std::uint32_t slots, const ResourceNames& names) {
  return resource_list_json(r, names, [&](std::size_t i) { return (slots >> i & 1u) != 0; });
}

// A resource list into `out` and the bit set of the resources it names.
std::string decode_slots(const Json& list, const std::string& where, ResourceNames& names, Resources& out,
                         std::uint32_t& slots) {
  std::array<bool, kMaxResources> present{};
  out = Resources{};
  if (std::string e = decode_resource_list(list, where, names, out, &present); !e.empty()) return e;
  slots = 0;
  for (std::size_t i = 0; i < kMaxResources; ++i)
    if (present[i]) slots |= 1u << i;
  return {};
}

}  // namespace

Json volcano_queue_json(const volcano::QueueSpec& q, const ResourceNames& names) {
  Json spec = {{"weight", q.weight}, {"reclaimable", q.reclaimable}};
  if (q.capability_slots != 0) spec["capability"] = slots_json(q.capability, q.capability_slots, names);
  if (q.guarantee_slots != 0) spec["guarantee"] = {{"resource", slots_json(q.guarantee, q.guarantee_slots, names)}};
  // No status: v1.7.0's CRD requires status.allocated, which its queue controller does not
  // write, so its status update is refused and a Queue created with kubectl has none
  // (volcano-sh/volcano#2963, fixed in v1.9 by #3206); a status served here without it would
  // make every later update of the object fail the CRD's schema.
  return {{"spec", std::move(spec)}};
}

std::string decode_volcano_queue(std::string_view json, volcano::QueueSpec& out, ResourceNames& names) {
  const Json o = Json::parse(json);
  out = volcano::QueueSpec{};
  out.name = o["metadata"].value("name", std::string());
  const Json spec = o.value("spec", Json::object());
  if (!spec.is_object()) return "spec: Invalid value: " + spec.dump() + ": expected an object";
  if (const auto w = spec.find("weight"); w != spec.end() && !w->is_null()) {
    // The mutating webhook writes 1 over an absent (0) weight; the validating one refuses
    // any other weight below 1.
    const std::int64_t weight = w->is_number_integer() ? w->get<std::int64_t>() : -1;
    if (weight != 0 && (weight < 1 || weight > std::numeric_limits<std::int32_t>::max()))
      return "spec.weight: Invalid value: " + w->dump() + ": queue weight must be a positive integer";
    out.weight = weight == 0 ? 1 : static_cast<std::int32_t>(weight);
  }
  if (const auto c = spec.find("capability"); c != spec.end() && !c->is_null())
    if (std::string e = decode_slots(*c, "spec.capability", names, out.capability, out.capability_slots); !e.empty())
      return e;
  if (const auto g = spec.find("guarantee"); g != spec.end() && g->is_object())
    if (const auto r = g->find("resource"); r != g->end() && !r->is_null())
      if (std::string e = decode_slots(*r, "spec.guarantee.resource", names, out.guarantee, out.guarantee_slots);
          !e.empty())
        return e;
  if (const auto r = spec.find("reclaimable"); r != spec.end() && r->is_boolean()) out.reclaimable = r->get<bool>();
  // A state written through the status subresource is kept (Closed: no new jobs are
  // enqueued); none is Open, as the scheduler reads a queue v1.7.0's controller left without
  // status.
  const Json status = o.value("status", Json::object());
  const std::string state = status.is_object() ? status.value("state", std::string("Open")) : "Open";
  if (state != "Open" && state != "Closed")
    return "status.state: Invalid value: \"" + state + "\": queue state must be in [Open Closed]";
  out.open = state == "Open";
  return {};
}

Json volcano_pod_group_json(const volcano::GroupObject& group, const ResourceNames& names, const TimeFormat& time) {
  const volcano::PodGroupSpec& g = group.spec;
  Json spec = {{"minMember", g.min_member}, {"queue", g.queue}};
  if (g.has_min_resources)
    spec["minResources"] = resource_list_json(g.min_resources, names, [&](std::size_t i) { return g.min_resources[i] != 0; });
  if (!g.priority_class.empty()) spec["priorityClassName"] = g.priority_class;
  if (!g.min_task_member.empty()) {
    Json tasks = Json::object();
    for (const auto& [task, min] : g.min_task_member) tasks[task] = min;
    spec["minTaskMember"] = std::move(tasks);
  }
  return {{"spec", std::move(spec)},
          {"status", {{"phase", volcano::to_string(group.phase)}}},
          {"metadata", {{"creationTimestamp", time.time(g.created)}}}};
}

void install_volcano_codecs(ObjectStore& store, TimeFormat time) {
  // The model's PodGroups: encode only (served read-only, 405 on writes).
  const KindInfo groups = volcano::pod_group_kind();
  if (const auto kind = store.find_kind(groups.group, groups.plural); kind && !store.kind_info(*kind).codec.encode) {
    const ResourceNames* names = &store.resource_names();
    store.set_codec(*kind, KindCodec{[names, time](const void* object) {
                                       return volcano_pod_group_json(*static_cast<const volcano::GroupObject*>(object),
                                                                     *names, time)
                                           .dump();
                                     },
                                     nullptr});
  }
  ResourceNames* names = &store.resource_names();
  set_codec_once<volcano::QueueSpec>(
      store, volcano::queue_kind(), [names](const volcano::QueueSpec& q) { return volcano_queue_json(q, *names); },
      [names](std::string_view json, volcano::QueueSpec& q) { return decode_volcano_queue(json, q, *names); });
}

}  // namespace kubesim::api

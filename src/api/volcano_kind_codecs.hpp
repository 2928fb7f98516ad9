// The JSON codecs of the Volcano model's kinds (api/kind_codecs.hpp does the same for
// scheduler-plugins'): Queue, scheduling.volcano.sh/v1beta1 queues (volcano.sh/apis
// pkg/apis/scheduling/v1beta1/types.go QueueSpec: weight, capability, guarantee.resource,
// reclaimable), served from the store's table the model reads
// (sched/volcano/vc_queues.hpp); PodGroup, the same group's podgroups, as the model writes
// them (spec and status.phase), read-only.
#pragma once

#include <string>
#include <string_view>

#include "api/json_codec.hpp"
#include "model/object_store.hpp"
#include "sched/volcano/volcano.hpp"

namespace kubesim::api {

// Sets the codecs of the Volcano kinds `store` has registered (and that have none yet).
void install_volcano_codecs(ObjectStore& store, TimeFormat time);

// A Queue from its JSON (metadata.name; spec weight, capability, guarantee.resource,
// reclaimable; status.state), defaulted and validated as Volcano's admission webhooks do
// (pkg/webhooks/admission/queues/mutate: weight 1 and reclaimable true when absent;
// validate/validate_queue.go: a positive weight, a state Open or Closed); the error's text,
// empty on success.
std::string decode_volcano_queue(std::string_view json, volcano::QueueSpec& out, ResourceNames& names);
// Its body: {"spec": {...}} (see the .cpp on why no status).
nlohmann::json volcano_queue_json(const volcano::QueueSpec& queue, const ResourceNames& names);

// The model's PodGroup (served read-only): {"spec": {minMember, queue, minResources,
// priorityClassName, minTaskMember}, "status": {"phase": ...}, "metadata": {creationTimestamp}}.
nlohmann::json volcano_pod_group_json(const volcano::GroupObject& group, const ResourceNames& names,
                                      const TimeFormat& time);

}  // namespace kubesim::api

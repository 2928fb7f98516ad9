// The Events the kubelet and the scheduler record about a pod, in the two forms the API
// serves (core/v1 and events.k8s.io/v1 are one stored object; the API server converts,
// pkg/apis/events/v1/conversion.go):
// - the scheduler records through the events.k8s.io/v1 recorder (k8s.io/client-go
//   tools/events, pkg/scheduler/schedule_one.go handleBindingCycle / bind): reason
//   Scheduled, action Binding, note "Successfully assigned <ns>/<pod> to <node>",
//   reportingController = the profile's schedulerName, eventTime in microseconds;
// - the kubelet records through the legacy core/v1 recorder (client-go tools/record
//   event.go makeEvent): source {component: kubelet, host: node}, firstTimestamp =
//   lastTimestamp in whole seconds, count 1, involvedObject.fieldPath
//   "spec.containers{<name>}"; reasons and messages of pkg/kubelet/events/event.go and
//   kuberuntime: Pulling `Pulling image "<image>"`, Pulled `Successfully pulled image
//   "<image>" in <Go duration>` (images/image_manager.go), Created `Created container <c>`,
//   Started `Started container <c>`, Killing `Stopping container <c>`
//   (kuberuntime_container.go killContainer).
// Names are "<pod>.<unix nanoseconds in hex>" as both recorders make them.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "api/json_codec.hpp"
#include "core/time.hpp"

namespace kubesim::api {

struct PodEvent {
  std::string pod_name, pod_namespace, pod_uid, pod_resource_version;
  std::string reason, message;
  std::string field_path;  // empty for pod-level events
  bool from_scheduler = false;  // events.k8s.io/v1 recorder; else the kubelet's core/v1 one
  std::string component;        // the scheduler name, or "kubelet"
  std::string host;             // the node (kubelet events)
  SimTime at;
  std::int64_t name_nanos = 0;  // unix nanoseconds in the event's name
  std::uint64_t resource_version = 0;
};

// "1.234567s", "950.5ms", "2m3.5s": Go's time.Duration.String() of a whole number of
// microseconds (the kubelet's Pulled message).
std::string go_duration_string(Duration d);

nlohmann::json pod_event_core_v1(const PodEvent& e, const TimeFormat& tf);
nlohmann::json pod_event_events_v1(const PodEvent& e, const TimeFormat& tf);

}  // namespace kubesim::api

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
//
// PodEventRecorder decides, from a pod's changes, when each of those Events is recorded, and
// deletes Events older than kube-apiserver's --event-ttl, as the apiserver's storage does
// (pkg/registry/core/event/storage: events are stored with a TTL).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_codec.hpp"
#include "api/watch_cache.hpp"
#include "core/time.hpp"
#include "engine/simulation.hpp"

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

// Records the Events about pods into the watch cache (both APIs' resources). Not thread-safe:
// the ApiServer calls it under its lock.
class PodEventRecorder {
 public:
  PodEventRecorder(WatchCache& cache, TimeFormat time);

  // Records the Events the scheduler and the kubelet would have recorded about `pod` by its
  // current state, each once (after the pod's own state is in the cache: the Events name its
  // uid and resourceVersion), first deleting Events older than the TTL.
  void on_pod_change(Simulation& sim, PodId pod);

 private:
  void record(Simulation& sim, PodEvent e);
  void expire(Simulation& sim);

  WatchCache& cache_;
  TimeFormat time_;
  std::uint8_t pods_resource_, core_events_resource_, events_v1_resource_;
  // By PodId: which Events were recorded (kScheduled | kStarted | kKilling of pod_events.cpp).
  std::vector<std::uint8_t> recorded_;
  // Recorded Events (key, when) in order, for the TTL.
  std::deque<std::pair<std::string, SimTime>> expiry_;
};

}  // namespace kubesim::api

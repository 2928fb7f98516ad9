#include "api/pod_events.hpp"

#include <algorithm>
#include <cstdio>

#include "api/api_responses.hpp"
#include "api/resources.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

std::string go_duration_string(Duration d) {
  // time.Duration.String: under a second in the largest fitting unit ("950.5ms", "12µs"),
  // otherwise [h][m]s with the seconds' fraction trimmed of trailing zeros.
  std::int64_t us = d.micros();
  std::string sign;
  if (us < 0) {
    sign = "-";
    us = -us;
  }
  auto trim = [](std::string s) {
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  };
  char buf[64];
  if (us == 0) return "0s";
  if (us < 1000) return sign + std::to_string(us) + "µs";
  if (us < 1'000'000) {
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(us / 1000), static_cast<long long>(us % 1000));
    return sign + trim(buf) + "ms";
  }
  std::string out = sign;
  const std::int64_t hours = us / 3'600'000'000LL;
  const std::int64_t minutes = us / 60'000'000LL % 60;
  const std::int64_t sec_us = us % 60'000'000LL;
  if (hours) out += std::to_string(hours) + "h";
  if (hours || minutes) out += std::to_string(minutes) + "m";
  std::snprintf(buf, sizeof buf, "%lld.%06lld", static_cast<long long>(sec_us / 1'000'000),
                static_cast<long long>(sec_us % 1'000'000));
  return out + trim(buf) + "s";
}

namespace {

std::string event_name(const PodEvent& e) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(e.name_nanos));
  return e.pod_name + "." + hex;
}

Json regarding(const PodEvent& e) {
  Json ref = {{"kind", "Pod"},
              {"namespace", e.pod_namespace},
              {"name", e.pod_name},
              {"uid", e.pod_uid},
              {"apiVersion", "v1"},
              {"resourceVersion", e.pod_resource_version}};
  if (!e.field_path.empty()) ref["fieldPath"] = e.field_path;
  return ref;
}

Json metadata(const PodEvent& e, const TimeFormat& tf) {
  return {{"name", event_name(e)},
          {"namespace", e.pod_namespace},
          {"uid", object_uid("Event", static_cast<std::uint32_t>(e.resource_version))},
          {"resourceVersion", std::to_string(e.resource_version)},
          {"creationTimestamp", tf.time(e.at)}};
}

}  // namespace

Json pod_event_core_v1(const PodEvent& e, const TimeFormat& tf) {
  Json out = {{"apiVersion", "v1"},     {"kind", "Event"},       {"metadata", metadata(e, tf)},
              {"involvedObject", regarding(e)}, {"reason", e.reason}, {"message", e.message},
              {"type", "Normal"}};
  if (e.from_scheduler) {
    out["source"] = Json::object();
    out["firstTimestamp"] = nullptr;
    out["lastTimestamp"] = nullptr;
    out["eventTime"] = tf.micro_time(e.at);
    out["action"] = "Binding";
    out["reportingComponent"] = e.component;
    out["reportingInstance"] = e.component + "-kubesim";
  } else {
    out["source"] = {{"component", e.component}, {"host", e.host}};
    out["firstTimestamp"] = tf.time(e.at);
    out["lastTimestamp"] = tf.time(e.at);
    out["count"] = 1;
    out["eventTime"] = nullptr;
    out["reportingComponent"] = "";
    out["reportingInstance"] = "";
  }
  return out;
}

Json pod_event_events_v1(const PodEvent& e, const TimeFormat& tf) {
  Json out = {{"apiVersion", "events.k8s.io/v1"}, {"kind", "Event"}, {"metadata", metadata(e, tf)},
              {"regarding", regarding(e)}, {"reason", e.reason}, {"note", e.message}, {"type", "Normal"}};
  if (e.from_scheduler) {
    out["eventTime"] = tf.micro_time(e.at);
    out["action"] = "Binding";
    out["reportingController"] = e.component;
    out["reportingInstance"] = e.component + "-kubesim";
  } else {
    out["eventTime"] = nullptr;
    out["reportingController"] = "";
    out["reportingInstance"] = "";
    out["deprecatedSource"] = {{"component", e.component}, {"host", e.host}};
    out["deprecatedFirstTimestamp"] = tf.time(e.at);
    out["deprecatedLastTimestamp"] = tf.time(e.at);
    out["deprecatedCount"] = 1;
  }
  return out;
}

namespace {
constexpr std::uint8_t kScheduled = 1, kStarted = 2, kKilling = 4;
// kube-apiserver --event-ttl default (cmd/kube-apiserver/app/options/options.go EventTTL).
constexpr Duration kEventTtl = Duration::seconds(3600);

// The container the kubelet's events name and its image: the pod's first (kubesim runs one
// workload container per pod).
std::pair<std::string, std::string> first_container(const Json& pod) {
  std::string container = "main", image = "registry.k8s.io/pause:3.9";
  const Json& containers = pod["spec"]["containers"];
  if (containers.is_array() && !containers.empty()) {
    container = json_string_of(containers[0].value("name", Json(container)));
    image = json_string_of(containers[0].value("image", Json(image)));
  }
  return {std::move(container), std::move(image)};
}
}  // namespace

PodEventRecorder::PodEventRecorder(WatchCache& cache, TimeFormat time)
    : cache_(cache),
      time_(time),
      pods_resource_(resource_index("", "pods")),
      core_events_resource_(resource_index("", "events")),
      events_v1_resource_(resource_index("events.k8s.io", "events")) {}

void PodEventRecorder::on_pod_change(Simulation& sim, PodId pod) {
  if (recorded_.size() <= pod.value()) recorded_.resize(pod.value() + 1, 0);
  std::uint8_t& done = recorded_[pod.value()];
  const ObjectStore& store = sim.store();
  const Pod& p = store.pod(pod);
  const PodTemplate& spec = store.spec(p.spec);
  const SnapshotPtr snap = cache_.find(pods_resource_, store.namespace_(p.ns).name + "/" + p.name);
  if (!snap) return;
  const Json& meta = snap->object["metadata"];
  PodEvent base;
  base.pod_name = p.name;
  base.pod_namespace = store.namespace_(p.ns).name;
  base.pod_uid = json_string_of(meta["uid"]);
  base.pod_resource_version = json_string_of(meta["resourceVersion"]);
  const std::pair<std::string, std::string> first = first_container(snap->object);
  const std::string& container = first.first;
  const std::string& image = first.second;
  const std::string node = p.node.valid() ? store.node(p.node).name : "";
  auto event = [&](int ordinal, const char* reason, std::string message, SimTime at, bool kubelet) {
    PodEvent e = base;
    e.reason = reason;
    e.message = std::move(message);
    e.at = at;
    e.from_scheduler = !kubelet;
    e.component = kubelet ? "kubelet" : spec.scheduler_name;
    if (kubelet) {
      e.host = node;
      e.field_path = "spec.containers{" + container + "}";
    }
    e.name_nanos = (time_.epoch_unix_micros + at.micros()) * 1000 + ordinal;
    record(sim, std::move(e));
  };
  // The built-in schedulers record Scheduled when the binding succeeded; an external
  // scheduler records its own through the API.
  if (!(done & kScheduled) && p.node.valid() && !p.scheduled.is_never() && sim.served_internally(spec.scheduler_name)) {
    done |= kScheduled;
    event(0, "Scheduled", "Successfully assigned " + base.pod_namespace + "/" + p.name + " to " + node, p.scheduled,
          false);
  }
  // The kubelet's start-up events, recorded when the container's start is reported (their
  // timestamps are the steps' own instants; a watcher sees them with the Running status).
  if (!(done & kStarted) && !p.started.is_never() && !p.pulling.is_never()) {
    done |= kStarted;
    event(1, "Pulling", "Pulling image \"" + image + "\"", p.pulling, true);
    event(2, "Pulled", "Successfully pulled image \"" + image + "\" in " + go_duration_string(p.pulled - p.pulling),
          p.pulled, true);
    event(3, "Created", "Created container " + container, p.container_created, true);
    event(4, "Started", "Started container " + container, p.started, true);
  }
  // killContainer on a graceful deletion of a running container.
  if (!(done & kKilling) && p.terminating() && (done & kStarted) && !is_terminal(p.phase)) {
    done |= kKilling;
    event(5, "Killing", "Stopping container " + container, std::max(p.deletion_requested, p.started), true);
  }
}

void PodEventRecorder::expire(Simulation& sim) {
  const SimTime now = sim.now();
  while (!expiry_.empty() && expiry_.front().second + kEventTtl <= now) {
    const std::string key = std::move(expiry_.front().first);
    expiry_.pop_front();
    const std::uint64_t rv = sim.store().next_resource_version();
    for (const std::uint8_t resource : {core_events_resource_, events_v1_resource_}) {
      const SnapshotPtr last = cache_.find(resource, key);
      if (!last) continue;  // deleted by a client already
      Json object = last->object;
      object["metadata"]["resourceVersion"] = std::to_string(rv);
      cache_.record_object(resource, WatchEventType::kDeleted, std::move(object));
    }
  }
}

void PodEventRecorder::record(Simulation& sim, PodEvent e) {
  expire(sim);
  e.resource_version = sim.store().next_resource_version();
  // One stored object, served by both APIs (same name and resourceVersion).
  Json core = pod_event_core_v1(e, time_);
  expiry_.emplace_back(e.pod_namespace + "/" + json_string_of(core["metadata"]["name"]), sim.now());
  cache_.record_object(core_events_resource_, WatchEventType::kAdded, std::move(core));
  cache_.record_object(events_v1_resource_, WatchEventType::kAdded, pod_event_events_v1(e, time_));
}

}  // namespace kubesim::api

#include "api/pod_events.hpp"

#include <cstdio>

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

}  // namespace kubesim::api

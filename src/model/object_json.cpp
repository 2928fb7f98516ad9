#include "model/object_json.hpp"

#include <algorithm>
#include <cstdio>

#include "core/quantity.hpp"

namespace kubesim::api {

using nlohmann::json;

namespace {

// Howard Hinnant's civil_from_days: days since 1970-01-01 -> (year, month, day).
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::string format_unix(std::int64_t unix_micros, bool micro) {
  std::int64_t secs = unix_micros >= 0 ? unix_micros / 1'000'000 : -((-unix_micros + 999'999) / 1'000'000);
  const std::int64_t frac = unix_micros - secs * 1'000'000;
  std::int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  const std::int64_t sod = secs - days * 86400;
  std::int64_t y = 0;
  unsigned mo = 0, d = 0;
  civil_from_days(days, y, mo, d);
  char buf[64];
  if (micro) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06lldZ", static_cast<long long>(y), mo, d,
                  static_cast<long long>(sod / 3600), static_cast<long long>(sod / 60 % 60),
                  static_cast<long long>(sod % 60), static_cast<long long>(frac));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ", static_cast<long long>(y), mo, d,
                  static_cast<long long>(sod / 3600), static_cast<long long>(sod / 60 % 60),
                  static_cast<long long>(sod % 60));
  }
  return buf;
}

std::string rv(std::uint64_t v) { return std::to_string(v); }

std::string quantity_of(const ResourceNames& names, std::size_t slot, std::int64_t amount) {
  (void)names;
  return format_quantity(amount, slot == kCpu);
}

json labels_json(const Labels& labels) {
  json out = json::object();
  for (const auto& [k, v] : labels) out[k] = v;
  return out;
}

json resources_json(const Resources& r, std::uint32_t mask, const ResourceNames& names) {
  json out = json::object();
  for (std::size_t i = 0; i < kMaxResources && i < names.size(); ++i)
    if (mask & (1u << i)) out[names.name(i)] = quantity_of(names, i, r[i]);
  return out;
}

const char* op_name(NodeSelectorRequirement::Operator op) {
  using Op = NodeSelectorRequirement::Operator;
  switch (op) {
    case Op::kIn: return "In";
    case Op::kNotIn: return "NotIn";
    case Op::kExists: return "Exists";
    case Op::kDoesNotExist: return "DoesNotExist";
    case Op::kGt: return "Gt";
    case Op::kLt: return "Lt";
  }
  return "In";
}

json requirements_json(const std::vector<NodeSelectorRequirement>& reqs) {
  json out = json::array();
  for (const auto& r : reqs) {
    json x = {{"key", r.key}, {"operator", op_name(r.op)}};
    if (!r.values.empty()) x["values"] = r.values;
    out.push_back(std::move(x));
  }
  return out;
}

json term_json(const NodeSelectorTerm& t) {
  json out = json::object();
  if (!t.match_expressions.empty()) out["matchExpressions"] = requirements_json(t.match_expressions);
  if (!t.match_fields.empty()) out["matchFields"] = requirements_json(t.match_fields);
  return out;
}

json affinity_json(const NodeAffinity& a) {
  json na = json::object();
  if (!a.required_terms.empty()) {
    json terms = json::array();
    for (const auto& t : a.required_terms) terms.push_back(term_json(t));
    na["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
  }
  if (!a.preferred.empty()) {
    json pref = json::array();
    for (const auto& p : a.preferred) pref.push_back({{"weight", p.weight}, {"preference", term_json(p.preference)}});
    na["preferredDuringSchedulingIgnoredDuringExecution"] = pref;
  }
  return {{"nodeAffinity", na}};
}

json tolerations_json(const std::vector<Toleration>& tols) {
  json out = json::array();
  for (const auto& t : tols) {
    json x = json::object();
    if (!t.key.empty()) x["key"] = t.key;
    x["operator"] = t.op == Toleration::Operator::kExists ? "Exists" : "Equal";
    if (!t.value.empty()) x["value"] = t.value;
    if (t.effect) x["effect"] = to_string(*t.effect);
    out.push_back(std::move(x));
  }
  return out;
}

json container_json(const Container& c, const ResourceNames& names, const json& command) {
  json out = {{"name", c.name},
              {"image", "registry.k8s.io/pause:3.9"},
              {"imagePullPolicy", "IfNotPresent"},
              {"terminationMessagePath", "/dev/termination-log"},
              {"terminationMessagePolicy", "File"}};
  if (!command.is_null()) out["command"] = command;
  json res = json::object();
  if (c.requested_mask) res["requests"] = resources_json(c.requests, c.requested_mask, names);
  if (c.limited_mask) res["limits"] = resources_json(c.limits, c.limited_mask, names);
  out["resources"] = res;
  return out;
}

const char* preemption_policy_name(PreemptionPolicy p) {
  return p == PreemptionPolicy::kNever ? "Never" : "PreemptLowerPriority";
}

// metadata.uid, resourceVersion, creationTimestamp and the labels/annotations the model has.
json& ensure_object(json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_object()) j[key] = json::object();
  return j[key];
}

json base_object(const json* original, const char* api_version, const char* kind) {
  json out = original && original->is_object() ? *original : json::object();
  out["apiVersion"] = api_version;
  out["kind"] = kind;
  ensure_object(out, "metadata");
  return out;
}

void set_common_meta(json& md, const std::string& name, const std::string* ns, const std::string& uid,
                     std::uint64_t resource_version, const std::string& created) {
  md["name"] = name;
  if (ns) md["namespace"] = *ns;
  md["uid"] = uid;
  md["resourceVersion"] = rv(resource_version);
  md["creationTimestamp"] = created;
  md.erase("selfLink");
}

SimTime or_zero(SimTime t) { return t.is_never() ? SimTime::zero() : t; }

// Pod conditions as the kubelet (pkg/kubelet/status/generate.go), the scheduler and the
// disruption paths write them.
json pod_condition(const char* type, const char* status, const std::string& time, const std::string& reason = "",
                   const std::string& message = "") {
  json c = {{"type", type}, {"status", status}, {"lastProbeTime", nullptr}, {"lastTransitionTime", time}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

// The DisruptionTarget message of each path (v1.26): framework/preemption/preemption.go,
// pkg/controller/nodelifecycle/scheduler/taint_manager.go, pkg/registry/core/pod/storage/eviction.go,
// pkg/controller/podgc/gc_controller.go (gcOrphaned).
std::string disruption_message(DisruptionReason r, const std::string& scheduler_name) {
  switch (r) {
    case DisruptionReason::kPreemptionByScheduler:
      return scheduler_name + ": preempting to accommodate a higher priority pod";
    case DisruptionReason::kDeletionByTaintManager: return "Taint manager: deleting due to NoExecute taint";
    case DisruptionReason::kEvictionByEvictionAPI: return "Eviction API: evicting";
    case DisruptionReason::kDeletionByPodGC: return "PodGC: node no longer exists";
    default: return "";
  }
}

// The pod's conditions: the kubelet's (pkg/kubelet/status/generate.go) once it accepted the
// pod, the scheduler's PodScheduled, and DisruptionTarget.
json pod_conditions_json(const Pod& p, const PodTemplate& t, const TimeFormat& tf, bool kubelet_rejected) {
  json conds = json::array();
  if (!p.start_time.is_never()) {
    const std::string since = tf.time(p.start_time);
    // generate.go GeneratePodInitializedCondition: True without init containers.
    if (t.init_containers.empty() || !p.started.is_never() || is_terminal(p.phase)) {
      conds.push_back(pod_condition("Initialized", "True", since));
    } else {
      std::string names;
      for (const auto& c : t.init_containers) names += (names.empty() ? "" : " ") + c.name;
      conds.push_back(pod_condition("Initialized", "False", since, "ContainersNotInitialized",
                                    "containers with incomplete status: [" + names + "]"));
    }
    // GeneratePodReadyCondition / GenerateContainersReadyCondition.
    const bool running = p.phase == PodPhase::kRunning && !p.started.is_never();
    std::string names;
    for (const auto& c : t.containers) names += (names.empty() ? "" : " ") + c.name;
    for (const char* type : {"Ready", "ContainersReady"}) {
      if (running) {
        conds.push_back(pod_condition(type, "True", tf.time(p.started)));
      } else if (is_terminal(p.phase)) {
        conds.push_back(pod_condition(type, "False", tf.time(or_zero(kubelet_rejected ? p.start_time : p.finished)),
                                      "PodCompleted"));
      } else {
        conds.push_back(pod_condition(type, "False", since, "ContainersNotReady",
                                      "containers with unready status: [" + names + "]"));
      }
    }
  }
  // PodScheduled: True at binding; False/Unschedulable after a failed attempt (SchedulerError
  // when it failed with an error).
  if (p.node.valid()) {
    conds.push_back(pod_condition("PodScheduled", "True", tf.time(or_zero(p.scheduled.is_never() ? p.created : p.scheduled))));
  } else if (!p.unschedulable_message.empty()) {
    conds.push_back(pod_condition("PodScheduled", "False", tf.time(or_zero(p.created)),
                                  p.scheduler_error ? "SchedulerError" : "Unschedulable",
                                  p.unschedulable_message));
  }
  if (p.disruption != DisruptionReason::kNone && p.disruption != DisruptionReason::kDeletionByUser)
    conds.push_back(pod_condition("DisruptionTarget", "True", tf.time(or_zero(p.deletion_requested)),
                                  to_string(p.disruption), disruption_message(p.disruption, t.scheduler_name)));
  return conds;
}

// Container statuses (pkg/kubelet/kubelet_pods.go convertToAPIContainerStatuses): the
// state follows the phase; Pod::finished is known in advance and only read once terminal.
json container_statuses_json(const Pod& p, const PodTemplate& t, PodId id, const TimeFormat& tf) {
  json statuses = json::array();
  for (const auto& c : t.containers) {
    json cs = {{"name", c.name},
               {"image", "registry.k8s.io/pause:3.9"},
               {"imageID", ""},
               {"ready", false},
               {"restartCount", 0},
               {"started", false}};
    if (is_terminal(p.phase)) {
      const bool ok = p.exit_code == 0;
      cs["state"] = {{"terminated",
                      {{"exitCode", p.exit_code},
                       {"reason", ok ? "Completed" : "Error"},
                       {"startedAt", tf.time(or_zero(p.started))},
                       {"finishedAt", tf.time(or_zero(p.finished))}}}};
    } else if (p.phase == PodPhase::kRunning && !p.started.is_never()) {
      cs["state"] = {{"running", {{"startedAt", tf.time(p.started)}}}};
      cs["ready"] = true;
      cs["started"] = true;
    } else {
      cs["state"] = {{"waiting", {{"reason", "ContainerCreating"}}}};
    }
    if (!p.started.is_never()) {
      cs["imageID"] = "registry.k8s.io/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097";
      cs["containerID"] = "containerd://" + object_uid("Container", id.value());
    }
    statuses.push_back(std::move(cs));
  }
  return statuses;
}

json pod_status_json(const ObjectStore& store, PodId id, const TimeFormat& tf) {
  const Pod& p = store.pod(id);
  const PodTemplate& t = store.spec_of(id);
  json st = json::object();
  st["phase"] = to_string(p.phase);
  if (!p.reason.empty()) st["reason"] = p.reason.str();
  if (!p.message.empty()) st["message"] = p.message.str();
  st["qosClass"] = pod_qos_class(t, store.resource_names());
  if (p.nominated_node.valid()) st["nominatedNodeName"] = store.node(p.nominated_node).name;
  const bool kubelet_rejected = is_terminal(p.phase) && p.started.is_never();
  json conds = pod_conditions_json(p, t, tf, kubelet_rejected);
  if (!conds.empty()) st["conditions"] = std::move(conds);

  if (p.node.valid()) st["hostIP"] = node_ip(p.node);
  if (!p.started.is_never() && !kubelet_rejected) {
    st["podIP"] = pod_ip(id);
    st["podIPs"] = json::array({{{"ip", pod_ip(id)}}});
  }
  if (!p.start_time.is_never()) st["startTime"] = tf.time(p.start_time);
  if (p.node.valid() && !kubelet_rejected) st["containerStatuses"] = container_statuses_json(p, t, id, tf);
  return st;
}

std::string job_uid(JobId id) { return object_uid("Job", id.value()); }

}  // namespace

// ---- time --------------------------------------------------------------------------

std::string TimeFormat::time(SimTime t) const {
  // metav1.Time truncates to seconds.
  const std::int64_t us = epoch_unix_micros + t.micros();
  const std::int64_t floor_s = us >= 0 ? us / 1'000'000 : -((-us + 999'999) / 1'000'000);
  return format_unix(floor_s * 1'000'000, false);
}

std::string TimeFormat::micro_time(SimTime t) const { return format_unix(epoch_unix_micros + t.micros(), true); }

std::optional<std::int64_t> parse_rfc3339_micros(std::string_view s) {
  auto digits = [&](std::size_t pos, std::size_t n) -> std::optional<std::int64_t> {
    if (pos + n > s.size()) return std::nullopt;
    std::int64_t v = 0;
    for (std::size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  auto y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2), h = digits(11, 2), mi = digits(14, 2), se = digits(17, 2);
  if (!y || !mo || !d || !h || !mi || !se || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':')
    return std::nullopt;
  if (*mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *se > 60) return std::nullopt;
  std::size_t pos = 19;
  std::int64_t frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::size_t n = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (n < 6) frac = frac * 10 + (s[pos] - '0');
      ++n;
      ++pos;
    }
    if (n == 0) return std::nullopt;
    for (std::size_t i = n; i < 6; ++i) frac *= 10;
  }
  if (pos >= s.size()) return std::nullopt;
  std::int64_t offset = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    auto oh = digits(pos + 1, 2), om = digits(pos + 4, 2);
    if (!oh || !om || pos + 3 >= s.size() || s[pos + 3] != ':') return std::nullopt;
    offset = (*oh * 60 + *om) * 60 * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d));
  const std::int64_t secs = days * 86400 + *h * 3600 + *mi * 60 + *se - offset;
  return secs * 1'000'000 + frac;
}

// ---- ids and addresses ---------------------------------------------------------------

std::string object_uid(std::string_view kind, std::uint32_t index) {
  std::uint32_t h = 2166136261u;  // FNV-1a of the kind
  for (char c : kind) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  char buf[40];
  // Version 4 and variant bits set so that UUID parsers accept it.
  std::snprintf(buf, sizeof buf, "%08x-%04x-4000-8000-%012x", h, 0u, index);
  return buf;
}

std::string node_ip(NodeId node) {
  const std::uint32_t i = node.value() + 1;
  return "10." + std::to_string((i >> 16) & 0x3f) + "." + std::to_string((i >> 8) & 0xff) + "." +
         std::to_string(i & 0xff);
}

std::string pod_ip(PodId pod) {
  const std::uint32_t i = pod.value() + 1;
  return "10." + std::to_string(64 + ((i >> 16) & 0xbf)) + "." + std::to_string((i >> 8) & 0xff) + "." +
         std::to_string(i & 0xff);
}

std::string pod_qos_class(const PodTemplate& spec, const ResourceNames& names) {
  (void)names;
  // qos.go: only cpu and memory count; zero quantities are ignored; requests and limits
  // are summed over all containers (init containers included).
  std::int64_t req[2] = {0, 0}, lim[2] = {0, 0};
  bool any_request = false, any_limit = false, guaranteed = true;
  auto visit = [&](const Container& c) {
    bool cpu_limit = false, mem_limit = false;
    for (std::size_t r : {kCpu, kMemory}) {
      const std::uint32_t bit = 1u << r;
      if ((c.requested_mask & bit) && c.requests[r] != 0) {
        any_request = true;
        req[r] += c.requests[r];
      }
      if ((c.limited_mask & bit) && c.limits[r] != 0) {
        any_limit = true;
        lim[r] += c.limits[r];
        (r == kCpu ? cpu_limit : mem_limit) = true;
      }
    }
    if (!cpu_limit || !mem_limit) guaranteed = false;
  };
  for (const auto& c : spec.containers) visit(c);
  for (const auto& c : spec.init_containers) visit(c);
  if (!any_request && !any_limit) return "BestEffort";
  if (guaranteed && req[0] == lim[0] && req[1] == lim[1]) return "Guaranteed";
  return "Burstable";
}

// ---- pods ----------------------------------------------------------------------------

nlohmann::json pod_spec_to_json(const PodTemplate& t, const ResourceNames& names, Duration run_time,
                                Duration active_deadline) {
  json command = nullptr;
  if (run_time != Duration::max() && run_time >= Duration()) {
    std::string secs = format_seconds(run_time);
    while (secs.back() == '0') secs.pop_back();  // "12.500000" -> "12.5", "30.000000" -> "30"
    if (secs.back() == '.') secs.pop_back();
    command = json::array({"sleep", secs});
  }
  json spec = json::object();
  json containers = json::array();
  for (const auto& c : t.containers) containers.push_back(container_json(c, names, command));
  spec["containers"] = containers;
  if (!t.init_containers.empty()) {
    json init = json::array();
    for (const auto& c : t.init_containers) init.push_back(container_json(c, names, nullptr));
    spec["initContainers"] = init;
  }
  spec["restartPolicy"] = "Never";
  spec["terminationGracePeriodSeconds"] = t.termination_grace_period_seconds;
  if (active_deadline > Duration()) spec["activeDeadlineSeconds"] = (active_deadline.micros() + 999'999) / 1'000'000;
  spec["dnsPolicy"] = "ClusterFirst";
  spec["schedulerName"] = t.scheduler_name;
  spec["priority"] = t.priority;
  if (!t.priority_class_name.empty()) spec["priorityClassName"] = t.priority_class_name;
  spec["preemptionPolicy"] = preemption_policy_name(t.preemption_policy);
  if (!t.node_selector.empty()) spec["nodeSelector"] = labels_json(t.node_selector);
  if (t.has_affinity) spec["affinity"] = affinity_json(t.affinity);
  if (!t.tolerations.empty()) spec["tolerations"] = tolerations_json(t.tolerations);
  if (!t.node_name.empty()) spec["nodeName"] = t.node_name;
  spec["securityContext"] = json::object();
  spec["enableServiceLinks"] = true;
  return spec;
}

namespace {

// A Job's pod (p.job valid): its labels, owner and generateName; `from_client`: the pod's
// object came from a client's Job template.
void add_job_metadata(const ObjectStore& store, const Pod& p, bool from_client, json& md) {
  // pkg/controller/job/job_controller.go: the Job's pods carry its selector labels
  // (controller-uid, job-name) and a controller ownerReference.
  const Job& j = store.job(p.job);
  json& labels = ensure_object(md, "labels");
  labels["controller-uid"] = job_uid(p.job);
  labels["job-name"] = j.name;
  md["ownerReferences"] = json::array({{{"apiVersion", "batch/v1"},
                                        {"kind", "Job"},
                                        {"name", j.name},
                                        {"uid", job_uid(p.job)},
                                        {"controller", true},
                                        {"blockOwnerDeletion", true}}});
  // An Indexed Job's pods: generateName <job>-<index>- (the name less its 5 random characters).
  if (!from_client) md["generateName"] = p.completion_index >= 0 && p.name.size() > 5 ? p.name.substr(0, p.name.size() - 5) : j.name + "-";
}

// An Indexed Job's pod (p.completion_index >= 0).
void add_completion_index(const ObjectStore& store, const Pod& p, json& md, json& spec) {
  // pkg/controller/job/indexed_job_utils.go (v1.26): addCompletionIndexAnnotation,
  // addCompletionIndexEnvVariables (each container and init container, unless it has one),
  // and the hostname <job>-<index>.
  const std::string index = std::to_string(p.completion_index);
  ensure_object(md, "annotations")["batch.kubernetes.io/job-completion-index"] = index;
  spec["hostname"] = store.job(p.job).name + "-" + index;
  const json env_var = {{"name", "JOB_COMPLETION_INDEX"},
                        {"valueFrom",
                         {{"fieldRef",
                           {{"apiVersion", "v1"},
                            {"fieldPath", "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}}}};
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (json& c : spec[list]) {
      json& env = c["env"];
      if (!env.is_array()) env = json::array();
      bool has = false;
      for (const json& e : env) has = has || (e.is_object() && e.value("name", "") == "JOB_COMPLETION_INDEX");
      if (!has) env.push_back(env_var);
    }
  }
}

}  // namespace

nlohmann::json pod_to_json(const ObjectStore& store, PodId id, const TimeFormat& tf, const nlohmann::json* original) {
  const Pod& p = store.pod(id);
  const PodTemplate& t = store.spec_of(id);
  json out = base_object(original, "v1", "Pod");
  json& md = out["metadata"];
  const std::string& ns = store.namespace_(p.ns).name;
  set_common_meta(md, p.name, &ns, object_uid("Pod", id.value()), p.resource_version, tf.time(or_zero(p.created)));
  if (!original) {
    json labels = labels_json(t.labels);
    if (labels.empty()) md.erase("labels");
    else md["labels"] = labels;
    // Pods kubesim creates (workload pods, the Job controller's, YuniKorn's placeholders)
    // carry their template's annotations; a client's pod keeps the ones it sent.
    if (!t.annotations.empty()) md["annotations"] = labels_json(t.annotations);
  }
  if (p.job.valid()) add_job_metadata(store, p, original != nullptr, md);
  if (p.terminating()) {
    md["deletionTimestamp"] = tf.time(p.deletion_requested + p.deletion_grace);
    md["deletionGracePeriodSeconds"] = p.deletion_grace.micros() / 1'000'000;
  } else {
    md.erase("deletionTimestamp");
    md.erase("deletionGracePeriodSeconds");
  }
  if (original && out.contains("spec") && out["spec"].is_object()) {
    // The apiserver's defaults (pkg/apis/core/v1/defaults.go) and admission (priority).
    json& spec = out["spec"];
    spec["schedulerName"] = t.scheduler_name;
    spec["priority"] = t.priority;
    spec["preemptionPolicy"] = preemption_policy_name(t.preemption_policy);
    if (!spec.contains("terminationGracePeriodSeconds"))
      spec["terminationGracePeriodSeconds"] = t.termination_grace_period_seconds;
    if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
    if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
  } else {
    out["spec"] = pod_spec_to_json(t, store.resource_names(), p.run_time, p.active_deadline);
  }
  if (p.completion_index >= 0 && p.job.valid()) add_completion_index(store, p, md, out["spec"]);
  if (p.node.valid()) out["spec"]["nodeName"] = store.node(p.node).name;
  if (const std::string* missing = store.missing_node(id)) out["spec"]["nodeName"] = *missing;
  // spec.schedulingGates is model-owned (a webhook sets it, a controller removes it).
  if (p.scheduling_gates.empty()) {
    out["spec"].erase("schedulingGates");
  } else {
    json gates = json::array();
    for (const std::string& g : p.scheduling_gates) gates.push_back({{"name", g}});
    out["spec"]["schedulingGates"] = std::move(gates);
  }
  out["status"] = pod_status_json(store, id, tf);
  return out;
}

// ---- nodes and namespaces ----------------------------------------------------------

nlohmann::json node_to_json(const ObjectStore& store, NodeId id, const TimeFormat& tf, const nlohmann::json* original) {
  const Node& n = store.node(id);
  const ResourceNames& names = store.resource_names();
  json out = base_object(original, "v1", "Node");
  json& md = out["metadata"];
  const std::string created = tf.time(SimTime::zero());
  set_common_meta(md, n.name, nullptr, object_uid("Node", id.value()), n.resource_version, created);
  md.erase("namespace");
  // Labels, taints and unschedulable are model-owned: the scheduler reads them.
  md["labels"] = labels_json(n.labels);
  json& spec = ensure_object(out, "spec");
  if (n.unschedulable) spec["unschedulable"] = true;
  else spec.erase("unschedulable");
  if (n.taints.empty()) {
    spec.erase("taints");
  } else {
    json taints = json::array();
    for (const auto& t : n.taints) {
      json x = {{"key", t.key}, {"effect", to_string(t.effect)}};
      if (!t.value.empty()) x["value"] = t.value;
      taints.push_back(std::move(x));
    }
    spec["taints"] = taints;
  }
  auto resource_list = [&](const Resources& r) {
    json out_list = json::object();
    for (std::size_t i = 0; i < names.size() && i < kMaxResources; ++i)
      if (i <= kMemory || r[i] != 0) out_list[names.name(i)] = quantity_of(names, i, r[i]);
    out_list["pods"] = std::to_string(n.allowed_pods);
    return out_list;
  };
  json st = json::object();
  st["capacity"] = resource_list(n.capacity);
  st["allocatable"] = resource_list(n.allocatable);
  // pkg/kubelet/nodestatus/setters.go (ReadyCondition, MemoryPressureCondition, ...) and
  // pkg/controller/nodelifecycle (NodeStatusUnknown when the kubelet stops posting).
  auto cond = [&](const char* type, const char* status, const char* reason, const char* message) {
    return json{{"type", type},     {"status", status},   {"lastHeartbeatTime", created},
                {"lastTransitionTime", created}, {"reason", reason}, {"message", message}};
  };
  json conds = json::array();
  if (n.ready) {
    conds.push_back(cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"));
    conds.push_back(cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"));
    conds.push_back(cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"));
    conds.push_back(cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"));
  } else {
    for (const char* type : {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"})
      conds.push_back(cond(type, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."));
  }
  st["conditions"] = conds;
  st["addresses"] = json::array({{{"type", "InternalIP"}, {"address", node_ip(id)}}, {{"type", "Hostname"}, {"address", n.name}}});
  st["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
  const std::string uid = object_uid("Node", id.value());
  st["nodeInfo"] = {{"architecture", "amd64"},
                    {"bootID", uid},
                    {"containerRuntimeVersion", "containerd://1.6.20"},
                    {"kernelVersion", "6.1.0-kubesim"},
                    {"kubeProxyVersion", "v1.26.7"},
                    {"kubeletVersion", "v1.26.7"},
                    {"machineID", uid.substr(0, 8) + uid.substr(24)},
                    {"operatingSystem", "linux"},
                    {"osImage", "kubesim"},
                    {"systemUUID", uid}};
  out["status"] = st;
  return out;
}

nlohmann::json namespace_to_json(const ObjectStore& store, NamespaceId id, const TimeFormat& tf,
                                 const nlohmann::json* original) {
  const Namespace& n = store.namespace_(id);
  json out = base_object(original, "v1", "Namespace");
  json& md = out["metadata"];
  set_common_meta(md, n.name, nullptr, object_uid("Namespace", id.value()), n.resource_version, tf.time(SimTime::zero()));
  // pkg/registry/core/namespace/strategy.go: the immutable kubernetes.io/metadata.name label.
  ensure_object(md, "labels")["kubernetes.io/metadata.name"] = n.name;
  out["spec"] = {{"finalizers", json::array({"kubernetes"})}};
  out["status"] = {{"phase", "Active"}};
  return out;
}

// ---- Jobs --------------------------------------------------------------------------

nlohmann::json job_to_json(const ObjectStore& store, JobId id, const TimeFormat& tf, const nlohmann::json* original) {
  const Job& j = store.job(id);
  const PodTemplate& t = store.spec(j.spec);
  json out = base_object(original, "batch/v1", "Job");
  json& md = out["metadata"];
  const std::string& ns = store.namespace_(j.ns).name;
  set_common_meta(md, j.name, &ns, job_uid(id), j.resource_version, tf.time(or_zero(j.created)));
  md["generation"] = 1;
  // pkg/registry/batch/job/strategy.go generateSelector: controller-uid and job-name.
  json selector_labels = {{"controller-uid", job_uid(id)}};
  json template_labels = labels_json(t.labels);
  template_labels["controller-uid"] = job_uid(id);
  template_labels["job-name"] = j.name;
  // pkg/apis/batch/v1/defaults.go SetDefaults_Job: a Job without labels takes its template's.
  if (!md.contains("labels") || !md["labels"].is_object() || md["labels"].empty())
    md["labels"] = j.labels.empty() ? template_labels : labels_json(j.labels);
  json& spec = ensure_object(out, "spec");
  spec["parallelism"] = j.parallelism;
  spec["completions"] = j.completions;
  spec["backoffLimit"] = j.backoff_limit;
  spec["completionMode"] = j.indexed ? "Indexed" : "NonIndexed";
  spec["suspend"] = j.suspend;
  spec["selector"] = {{"matchLabels", selector_labels}};
  json& tmpl = ensure_object(spec, "template");
  json& tmd = ensure_object(tmpl, "metadata");
  tmd["labels"] = template_labels;
  if (!t.annotations.empty() && !tmd.contains("annotations")) tmd["annotations"] = labels_json(t.annotations);
  if (!tmpl.contains("spec") || !original) {
    // The template does not carry the pods' run time: the generated spec has no command.
    tmpl["spec"] = pod_spec_to_json(t, store.resource_names(), Duration::max(), Duration());
  }
  json st = json::object();
  if (j.active > 0) st["active"] = j.active;
  if (j.ready > 0 || !j.start_time.is_never()) st["ready"] = j.ready;
  if (j.succeeded > 0) st["succeeded"] = j.succeeded;
  if (j.failed > 0) st["failed"] = j.failed;
  if (!j.completed_indexes.empty()) st["completedIndexes"] = j.completed_indexes;
  if (!j.start_time.is_never()) st["startTime"] = tf.time(j.start_time);
  if (!j.completion_time.is_never()) st["completionTime"] = tf.time(j.completion_time);
  st["uncountedTerminatedPods"] = json::object();
  if (j.condition != JobCondition::kNone) {
    const std::string when = tf.time(or_zero(j.condition_time));
    json c = {{"type", j.condition == JobCondition::kComplete ? "Complete" : "Failed"},
              {"status", "True"},
              {"lastProbeTime", when},
              {"lastTransitionTime", when}};
    if (!j.condition_reason.empty()) c["reason"] = j.condition_reason;
    if (!j.condition_message.empty()) c["message"] = j.condition_message;
    st["conditions"] = json::array({c});
  }
  out["status"] = st;
  return out;
}

// ---- quotas, priority classes, PDBs ----------------------------------------------

nlohmann::json quota_to_json(const ObjectStore& store, QuotaId id, const TimeFormat& tf, const nlohmann::json* original) {
  const ResourceQuota& q = store.quota(id);
  json out = base_object(original, "v1", "ResourceQuota");
  json& md = out["metadata"];
  const std::string& ns = store.namespace_(q.ns).name;
  set_common_meta(md, q.name, &ns, object_uid("ResourceQuota", id.value()), q.resource_version,
                  tf.time(SimTime::zero()));
  json hard = json::object(), used = json::object();
  for (const auto& item : q.items) {
    const bool milli = (item.kind == QuotaItem::Kind::kRequests || item.kind == QuotaItem::Kind::kLimits) &&
                       item.slot == kCpu;
    hard[item.name] = format_quantity(item.hard, milli);
    used[item.name] = format_quantity(item.used, milli);
  }
  ensure_object(out, "spec")["hard"] = hard;
  out["status"] = {{"hard", hard}, {"used", used}};
  return out;
}

nlohmann::json priority_class_to_json(const PriorityClass& pc, std::uint32_t index, std::uint64_t resource_version,
                                      const TimeFormat& tf, const nlohmann::json* original) {
  json out = base_object(original, "scheduling.k8s.io/v1", "PriorityClass");
  set_common_meta(out["metadata"], pc.name, nullptr, object_uid("PriorityClass", index), resource_version,
                  tf.time(SimTime::zero()));
  out["value"] = pc.value;
  out["globalDefault"] = pc.global_default;
  out["preemptionPolicy"] = preemption_policy_name(pc.preemption_policy);
  return out;
}

nlohmann::json pdb_to_json(const ObjectStore& store, const PodDisruptionBudget& pdb, std::uint32_t index,
                           std::uint64_t resource_version, const PdbStatus& status, const TimeFormat& tf,
                           const nlohmann::json* original) {
  json out = base_object(original, "policy/v1", "PodDisruptionBudget");
  const std::string& ns = store.namespace_(pdb.ns).name;
  set_common_meta(out["metadata"], pdb.name, &ns, object_uid("PodDisruptionBudget", index), resource_version,
                  tf.time(SimTime::zero()));
  out["metadata"]["generation"] = 1;
  json& spec = ensure_object(out, "spec");
  if (!original) {
    json sel = json::object();
    if (!pdb.selector.match_labels.empty()) sel["matchLabels"] = labels_json(pdb.selector.match_labels);
    if (!pdb.selector.match_expressions.empty())
      sel["matchExpressions"] = requirements_json(pdb.selector.match_expressions);
    spec["selector"] = sel;
    auto value = [](const IntOrPercent& v) -> json {
      if (v.percent) return std::to_string(v.value) + "%";
      return v.value;
    };
    if (pdb.min_available) spec["minAvailable"] = value(*pdb.min_available);
    if (pdb.max_unavailable) spec["maxUnavailable"] = value(*pdb.max_unavailable);
  }
  // disruption.go updatePdbStatus.
  const std::int32_t allowed = pdb.disruptions_allowed(status.expected_pods, status.current_healthy);
  std::int32_t desired = 0;
  if (pdb.min_available) {
    desired = pdb.min_available->scaled(status.expected_pods);
  } else if (pdb.max_unavailable) {
    desired = std::max(0, status.expected_pods - pdb.max_unavailable->scaled(status.expected_pods));
  }
  const std::string now = tf.time(SimTime::zero());
  out["status"] = {{"currentHealthy", status.current_healthy},
                   {"desiredHealthy", desired},
                   {"disruptionsAllowed", allowed},
                   {"expectedPods", status.expected_pods},
                   {"observedGeneration", 1},
                   {"conditions",
                    json::array({{{"type", "DisruptionAllowed"},
                                  {"status", allowed > 0 ? "True" : "False"},
                                  {"reason", allowed > 0 ? "SufficientPods" : "InsufficientPods"},
                                  {"message", ""},
                                  {"observedGeneration", 1},
                                  {"lastTransitionTime", now}}})}};
  return out;
}

}  // namespace kubesim::api

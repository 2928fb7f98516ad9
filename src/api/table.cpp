// meta.k8s.io/v1 Table responses; see table.hpp for the upstream files this follows.
#include "api/table.hpp"

#include "api/json_codec.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

namespace kubesim::api {

using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// Small JSON accessors (absent or null fields read as Go's zero values).

const json& field(const json& obj, std::string_view key) {
  static const json null_json;
  if (!obj.is_object()) return null_json;
  auto it = obj.find(key);
  return it == obj.end() ? null_json : *it;
}

template <typename... Keys>
const json& path(const json& obj, std::string_view key, Keys... rest) {
  const json& v = field(obj, key);
  if constexpr (sizeof...(rest) == 0) {
    return v;
  } else {
    return path(v, rest...);
  }
}

std::string str(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

std::int64_t integer(const json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) return static_cast<std::int64_t>(v.get<double>());
  return 0;
}

bool boolean(const json& v) { return v.is_boolean() && v.get<bool>(); }

std::size_t array_size(const json& v) { return v.is_array() ? v.size() : 0; }

const json& array_or_empty(const json& v) {
  static const json empty = json::array();
  return v.is_array() ? v : empty;
}

// ---------------------------------------------------------------------------------------------
// Time.

// time.Time.UTC().Format(time.RFC3339) of unix seconds.
std::string format_rfc3339(std::int64_t unix_seconds) {
  return TimeFormat{0}.time(SimTime::at(Duration::seconds(unix_seconds)));
}

// printers.go translateTimestampSince / translateMicroTimestampSince: "<unknown>" for a zero
// (here: absent, null or unparsable) timestamp, else HumanDuration(now - t).
std::string since(const json& timestamp, std::int64_t now) {
  if (!timestamp.is_string()) return "<unknown>";
  auto t = parse_rfc3339_micros(timestamp.get_ref<const std::string&>());
  if (!t) return "<unknown>";
  return human_duration(now - *t);
}

bool is_zero_time(const json& timestamp) {
  return !timestamp.is_string() || !parse_rfc3339_micros(timestamp.get_ref<const std::string&>());
}

// ---------------------------------------------------------------------------------------------
// Column definitions (printers.go AddHandlers; rest/table.go for the default).

struct Column {
  const char* name;
  const char* type;
  const char* format;
  int priority;
  const char* description;
};

// metav1.ObjectMeta{}.SwaggerDoc()["name"] and ["creationTimestamp"].
constexpr const char* kNameDoc =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "http://kubernetes.io/docs/user-guide/identifiers#names";
constexpr const char* kCreationDoc =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It "
    "is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More "
    "info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

const std::vector<Column> kPodColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Ready", "string", "", 0, "The aggregate readiness state of this pod for accepting traffic."},
    {"Status", "string", "", 0, "The aggregate status of the containers in this pod."},
    {"Restarts", "string", "", 0,
     "The number of times the containers in this pod have been restarted and when the last container in this pod "
     "has restarted."},
    {"Age", "string", "", 0, kCreationDoc},
    {"IP", "string", "", 1,
     "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."},
    {"Node", "string", "", 1,
     "NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply "
     "schedules this pod onto that node, assuming that it fits resource requirements."},
    {"Nominated Node", "string", "", 1,
     "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right "
     "away as preemption victims receive their graceful termination periods."},
    {"Readiness Gates", "string", "", 1,
     "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers "
     "are ready AND all conditions specified in the readiness gates have status equal to \"True\"."},
};

const std::vector<Column> kNodeColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Status", "string", "", 0, "The status of the node"},
    {"Roles", "string", "", 0, "The roles of the node"},
    {"Age", "string", "", 0, kCreationDoc},
    {"Version", "string", "", 0, "Kubelet Version reported by the node."},
    {"Internal-IP", "string", "", 1, "List of addresses reachable to the node."},
    {"External-IP", "string", "", 1, "List of addresses reachable to the node."},
    {"OS-Image", "string", "", 1,
     "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."},
    {"Kernel-Version", "string", "", 1, "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."},
    {"Container-Runtime", "string", "", 1,
     "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."},
};

// v1.26: no Status column yet (added in v1.30).
const std::vector<Column> kJobColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Completions", "string", "", 0, "The number of pods which reached phase Succeeded."},
    {"Duration", "string", "", 0, "Time required to complete the job."},
    {"Age", "string", "", 0, kCreationDoc},
    {"Containers", "string", "", 1, "Names of each container in the template."},
    {"Images", "string", "", 1, "Images referenced by each container in the template."},
    {"Selector", "string", "", 1, "A label query over pods that should match the pod count."},
};

const std::vector<Column> kNamespaceColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Status", "string", "", 0, "The status of the namespace"},
    {"Age", "string", "", 0, kCreationDoc},
};

const std::vector<Column> kEventColumns = {
    {"Last Seen", "string", "", 0, "The time at which the most recent occurrence of this event was recorded."},
    {"Type", "string", "", 0, "Type of this event (Normal, Warning), new types could be added in the future"},
    {"Reason", "string", "", 0,
     "This should be a short, machine understandable string that gives the reason for the transition into the "
     "object's current status."},
    {"Object", "string", "", 0, "The object that this event is about."},
    {"Subobject", "string", "", 1,
     "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go "
     "field access statement, such as desiredState.manifest.containers[2]."},
    {"Source", "string", "", 1, "The component reporting this event. Should be a short machine understandable string."},
    {"Message", "string", "", 0, "A human-readable description of the status of this operation."},
    {"First Seen", "string", "", 1, "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"},
    {"Count", "string", "", 1, "The number of times this event has occurred."},
    {"Name", "string", "name", 1, kNameDoc},
};

const std::vector<Column> kResourceQuotaColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Age", "string", "", 0, kCreationDoc},
    {"Request", "string", "", 0, "Request represents a minimum amount of cpu/memory that a container may consume."},
    {"Limit", "string", "", 0,
     "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the "
     "node."},
};

const std::vector<Column> kPriorityClassColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Value", "integer", "", 0,
     "The value of this priority class. This is the actual priority that pods receive when they have the name of "
     "this class in their pod spec."},
    {"Global-Default", "boolean", "", 0,
     "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that "
     "do not have any priority class."},
    {"Age", "string", "", 0, kCreationDoc},
};

const std::vector<Column> kLeaseColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Holder", "string", "", 0, "holderIdentity contains the identity of the holder of a current lease."},
    {"Age", "string", "", 0, kCreationDoc},
};

const std::vector<Column> kPodDisruptionBudgetColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Min Available", "string", "", 0, "The minimum number of pods that must be available."},
    {"Max Unavailable", "string", "", 0, "The maximum number of pods that may be unavailable."},
    {"Allowed Disruptions", "integer", "", 0, "Calculated number of pods that may be disrupted at this time."},
    {"Age", "string", "", 0, kCreationDoc},
};

// rest/table.go defaultTableConvertor.
const std::vector<Column> kDefaultColumns = {
    {"Name", "string", "name", 0, kNameDoc},
    {"Created At", "date", "", 0, kCreationDoc},
};

enum class Kind { Pod, Node, Job, Namespace, Event, ResourceQuota, PriorityClass, Lease, PodDisruptionBudget, Default };

Kind kind_of(std::string_view resource) {
  static const std::map<std::string_view, Kind> kinds = {
      {"pods", Kind::Pod},
      {"nodes", Kind::Node},
      {"jobs", Kind::Job},
      {"namespaces", Kind::Namespace},
      {"events", Kind::Event},
      {"resourcequotas", Kind::ResourceQuota},
      {"priorityclasses", Kind::PriorityClass},
      {"leases", Kind::Lease},
      {"poddisruptionbudgets", Kind::PodDisruptionBudget},
  };
  auto it = kinds.find(resource);
  return it == kinds.end() ? Kind::Default : it->second;
}

const std::vector<Column>& columns_of(Kind kind) {
  switch (kind) {
    case Kind::Pod: return kPodColumns;
    case Kind::Node: return kNodeColumns;
    case Kind::Job: return kJobColumns;
    case Kind::Namespace: return kNamespaceColumns;
    case Kind::Event: return kEventColumns;
    case Kind::ResourceQuota: return kResourceQuotaColumns;
    case Kind::PriorityClass: return kPriorityClassColumns;
    case Kind::Lease: return kLeaseColumns;
    case Kind::PodDisruptionBudget: return kPodDisruptionBudgetColumns;
    case Kind::Default: break;
  }
  return kDefaultColumns;
}

// ---------------------------------------------------------------------------------------------
// Cells.

// printPod's running summary of a pod's containers (printers.go v1.26, printPod).
struct PodSummary {
  std::string reason;
  std::int64_t restarts = 0;
  std::size_t ready_containers = 0;
  std::optional<std::int64_t> last_restart;  // lastRestartDate; zero time = nullopt
};

// printPod's loops: a container's last termination moves the last restart date.
void note_restart(const json& container_status, PodSummary& summary) {
  if (!path(container_status, "lastState", "terminated").is_object()) return;
  const json& finished = path(container_status, "lastState", "terminated", "finishedAt");
  // metav1.Time.Before on a zero time: any set time is after it.
  std::optional<std::int64_t> t =
      finished.is_string() ? parse_rfc3339_micros(finished.get_ref<const std::string&>()) : std::nullopt;
  if (t && (!summary.last_restart || *summary.last_restart < *t)) summary.last_restart = t;
}

// "Signal:N" or "ExitCode:N" of a terminated container without a reason.
std::string exit_reason(const json& terminated) {
  if (integer(field(terminated, "signal")) != 0) return "Signal:" + std::to_string(integer(field(terminated, "signal")));
  return "ExitCode:" + std::to_string(integer(field(terminated, "exitCode")));
}

// printPod's loop over the init container statuses: true (and the reason set) while the pod
// is still initializing.
bool init_containers_reason(const json& spec, const json& status, PodSummary& summary) {
  const json& init_statuses = array_or_empty(field(status, "initContainerStatuses"));
  const std::size_t init_containers = array_size(field(spec, "initContainers"));
  for (std::size_t i = 0; i < init_statuses.size(); ++i) {
    const json& container = init_statuses[i];
    summary.restarts += integer(field(container, "restartCount"));
    note_restart(container, summary);
    const json& terminated = path(container, "state", "terminated");
    const json& waiting = path(container, "state", "waiting");
    if (terminated.is_object() && integer(field(terminated, "exitCode")) == 0) continue;
    if (terminated.is_object()) {
      // initialization is failed
      const std::string reason = str(field(terminated, "reason"));
      summary.reason = "Init:" + (reason.empty() ? exit_reason(terminated) : reason);
    } else if (waiting.is_object() && !str(field(waiting, "reason")).empty() &&
               str(field(waiting, "reason")) != "PodInitializing") {
      summary.reason = "Init:" + str(field(waiting, "reason"));
    } else {
      summary.reason = "Init:" + std::to_string(i) + "/" + std::to_string(init_containers);
    }
    return true;
  }
  return false;
}

// printers.go hasPodReadyCondition.
bool has_pod_ready_condition(const json& status) {
  for (const json& c : array_or_empty(field(status, "conditions")))
    if (str(field(c, "type")) == "Ready" && str(field(c, "status")) == "True") return true;
  return false;
}

// printPod's loop over the container statuses (last first), once initialized.
void containers_reason(const json& status, PodSummary& summary) {
  summary.restarts = 0;
  bool has_running = false;
  const json& statuses = array_or_empty(field(status, "containerStatuses"));
  for (std::size_t k = statuses.size(); k-- > 0;) {
    const json& container = statuses[k];
    summary.restarts += integer(field(container, "restartCount"));
    note_restart(container, summary);
    const json& waiting = path(container, "state", "waiting");
    const json& terminated = path(container, "state", "terminated");
    if (waiting.is_object() && !str(field(waiting, "reason")).empty()) {
      summary.reason = str(field(waiting, "reason"));
    } else if (terminated.is_object() && !str(field(terminated, "reason")).empty()) {
      summary.reason = str(field(terminated, "reason"));
    } else if (terminated.is_object()) {
      summary.reason = exit_reason(terminated);
    } else if (boolean(field(container, "ready")) && path(container, "state", "running").is_object()) {
      has_running = true;
      ++summary.ready_containers;
    }
  }
  // change pod status back to "Running" if there is at least one container still reporting as "Running"
  if (summary.reason == "Completed" && has_running) summary.reason = has_pod_ready_condition(status) ? "Running" : "NotReady";
}

// printPod's row conditions: podSuccessConditions / podFailedConditions.
void pod_row_conditions(const std::string& phase, json& conditions) {
  if (phase == "Succeeded") {
    conditions = json::array({{{"type", "Completed"},
                               {"status", "True"},
                               {"reason", "Succeeded"},
                               {"message", "The pod has completed successfully."}}});
  } else if (phase == "Failed") {
    conditions = json::array(
        {{{"type", "Completed"}, {"status", "True"}, {"reason", "Failed"}, {"message", "The pod failed."}}});
  }
}

// printPod's wide columns: IP, node, nominated node, readiness gates ("<none>" when empty).
void pod_wide_cells(const json& spec, const json& status, json& cells) {
  std::string pod_ip;
  const json& pod_ips = field(status, "podIPs");
  if (array_size(pod_ips) > 0) pod_ip = str(field(pod_ips[0], "ip"));
  std::string node_name = str(field(spec, "nodeName"));
  std::string nominated = str(field(status, "nominatedNodeName"));
  std::string gates = "<none>";
  const json& readiness_gates = array_or_empty(field(spec, "readinessGates"));
  if (!readiness_gates.empty()) {
    std::size_t true_conditions = 0;
    for (const json& gate : readiness_gates) {
      const std::string type = str(field(gate, "conditionType"));
      for (const json& c : array_or_empty(field(status, "conditions"))) {
        if (str(field(c, "type")) == type) {
          if (str(field(c, "status")) == "True") ++true_conditions;
          break;
        }
      }
    }
    gates = std::to_string(true_conditions) + "/" + std::to_string(readiness_gates.size());
  }
  cells.push_back(pod_ip.empty() ? "<none>" : pod_ip);
  cells.push_back(node_name.empty() ? "<none>" : node_name);
  cells.push_back(nominated.empty() ? "<none>" : nominated);
  cells.push_back(gates);
}

// printers.go printPod (v1.26).
json pod_cells(const json& pod, std::int64_t now, json& conditions) {
  const json& spec = field(pod, "spec");
  const json& status = field(pod, "status");
  const json& meta = field(pod, "metadata");

  const std::string phase = str(field(status, "phase"));
  PodSummary summary;
  summary.reason = phase;
  if (!str(field(status, "reason")).empty()) summary.reason = str(field(status, "reason"));
  // If the Pod carries {type:PodScheduled, reason:SchedulingGated}, the reason is SchedulingGated.
  for (const json& c : array_or_empty(field(status, "conditions"))) {
    if (str(field(c, "type")) == "PodScheduled" && str(field(c, "reason")) == "SchedulingGated") {
      summary.reason = "SchedulingGated";
    }
  }
  pod_row_conditions(phase, conditions);
  if (!init_containers_reason(spec, status, summary)) containers_reason(status, summary);

  const bool deleting = !field(meta, "deletionTimestamp").is_null();
  if (deleting && str(field(status, "reason")) == "NodeLost") {  // node.NodeUnreachablePodReason
    summary.reason = "Unknown";
  } else if (deleting) {
    summary.reason = "Terminating";
  }

  std::string restarts = std::to_string(summary.restarts);
  if (summary.last_restart) restarts += " (" + human_duration(now - *summary.last_restart) + " ago)";

  json cells = json::array();
  cells.push_back(str(field(meta, "name")));
  cells.push_back(std::to_string(summary.ready_containers) + "/" + std::to_string(array_size(field(spec, "containers"))));
  cells.push_back(summary.reason);
  cells.push_back(restarts);
  cells.push_back(since(field(meta, "creationTimestamp"), now));
  pod_wide_cells(spec, status, cells);
  return cells;
}

// printers.go printNode / findNodeRoles / getNodeInternalIP / getNodeExternalIP.
json node_cells(const json& node, std::int64_t now) {
  const json& meta = field(node, "metadata");
  const json& status = field(node, "status");

  std::vector<std::string> parts;
  // NodeAllConditions = [Ready]; with several Ready entries the last one wins (conditionMap).
  const json* ready = nullptr;
  for (const json& c : array_or_empty(field(status, "conditions"))) {
    if (str(field(c, "type")) == "Ready") ready = &c;
  }
  if (ready) parts.push_back(str(field(*ready, "status")) == "True" ? "Ready" : "NotReady");
  if (parts.empty()) parts.push_back("Unknown");
  if (boolean(path(node, "spec", "unschedulable"))) parts.push_back("SchedulingDisabled");
  std::string status_str;
  for (std::size_t i = 0; i < parts.size(); ++i) status_str += (i ? "," : "") + parts[i];

  std::set<std::string> roles;
  const json& labels = field(meta, "labels");
  if (labels.is_object()) {
    constexpr std::string_view prefix = "node-role.kubernetes.io/";
    for (auto it = labels.begin(); it != labels.end(); ++it) {
      const std::string& k = it.key();
      if (k.size() > prefix.size() && k.compare(0, prefix.size(), prefix) == 0) {
        roles.insert(k.substr(prefix.size()));
      } else if (k == "kubernetes.io/role" && !str(it.value()).empty()) {
        roles.insert(str(it.value()));
      }
    }
  }
  std::string roles_str;
  for (const std::string& r : roles) roles_str += (roles_str.empty() ? "" : ",") + r;
  if (roles_str.empty()) roles_str = "<none>";

  auto address = [&](std::string_view type) -> std::string {
    for (const json& a : array_or_empty(field(status, "addresses"))) {
      if (str(field(a, "type")) == type) return str(field(a, "address"));
    }
    return "<none>";
  };
  auto or_unknown = [](std::string s) { return s.empty() ? std::string("<unknown>") : s; };
  const json& info = field(status, "nodeInfo");

  return json::array({str(field(meta, "name")), status_str, roles_str, since(field(meta, "creationTimestamp"), now),
                      str(field(info, "kubeletVersion")), address("InternalIP"), address("ExternalIP"),
                      or_unknown(str(field(info, "osImage"))), or_unknown(str(field(info, "kernelVersion"))),
                      or_unknown(str(field(info, "containerRuntimeVersion")))});
}

// metav1.FormatLabelSelector(LabelSelectorAsSelector(s).String()): requirements sorted by key,
// "k=v", "k in (a,b)", "k notin (a,b)", "k", "!k"; "<none>" when empty; "<error>" when invalid.
std::string format_label_selector(const json& selector) {
  if (!selector.is_object()) return "<none>";
  std::vector<std::pair<std::string, std::string>> requirements;  // (key, text)
  const json& match_labels = field(selector, "matchLabels");
  if (match_labels.is_object()) {
    for (auto it = match_labels.begin(); it != match_labels.end(); ++it) {
      requirements.emplace_back(it.key(), it.key() + "=" + str(it.value()));
    }
  }
  for (const json& e : array_or_empty(field(selector, "matchExpressions"))) {
    const std::string key = str(field(e, "key"));
    const std::string op = str(field(e, "operator"));
    std::set<std::string> values;
    for (const json& v : array_or_empty(field(e, "values"))) values.insert(str(v));
    std::string joined;
    for (const std::string& v : values) joined += (joined.empty() ? "" : ",") + v;
    if (op == "In" || op == "NotIn") {
      if (values.empty()) return "<error>";
      requirements.emplace_back(key, key + (op == "In" ? " in (" : " notin (") + joined + ")");
    } else if (op == "Exists") {
      requirements.emplace_back(key, key);
    } else if (op == "DoesNotExist") {
      requirements.emplace_back(key, "!" + key);
    } else {
      return "<error>";
    }
  }
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& r : requirements) out += (out.empty() ? "" : ",") + r.second;
  return out.empty() ? "<none>" : out;
}

// printers.go layoutContainerCells.
std::pair<std::string, std::string> container_cells(const json& pod_spec) {
  std::string names, images;
  bool first = true;
  for (const json& c : array_or_empty(field(pod_spec, "containers"))) {
    if (!first) {
      names += ",";
      images += ",";
    }
    first = false;
    names += str(field(c, "name"));
    images += str(field(c, "image"));
  }
  return {names, images};
}

// printers.go printJob (v1.26).
json job_cells(const json& job, std::int64_t now) {
  const json& meta = field(job, "metadata");
  const json& spec = field(job, "spec");
  const json& status = field(job, "status");
  const std::int64_t succeeded = integer(field(status, "succeeded"));

  std::string completions;
  if (field(spec, "completions").is_number()) {
    completions = std::to_string(succeeded) + "/" + std::to_string(integer(field(spec, "completions")));
  } else {
    const std::int64_t parallelism = integer(field(spec, "parallelism"));
    completions = std::to_string(succeeded) + "/1";
    if (parallelism > 1) completions += " of " + std::to_string(parallelism);
  }

  std::string duration;
  const json& start = field(status, "startTime");
  const json& completion = field(status, "completionTime");
  // StartTime nil: ""; CompletionTime nil: HumanDuration(time.Since(start)); else completion - start.
  if (auto s = start.is_string() ? parse_rfc3339_micros(str(start)) : std::nullopt) {
    auto c = completion.is_string() ? parse_rfc3339_micros(str(completion)) : std::nullopt;
    duration = human_duration((c ? *c : now) - *s);
  }

  auto [names, images] = container_cells(path(spec, "template", "spec"));
  return json::array({str(field(meta, "name")), completions, duration, since(field(meta, "creationTimestamp"), now),
                      names, images, format_label_selector(field(spec, "selector"))});
}

// printers.go printEvent (server side, wide). Reads core/v1 Events and events.k8s.io/v1 Events
// (the apiserver prints both from the internal Event: regarding -> involvedObject, note ->
// message, deprecatedFirstTimestamp/deprecatedLastTimestamp/deprecatedCount/deprecatedSource,
// reportingController -> reportingComponent).
json event_cells(const json& ev, std::int64_t now) {
  auto first_of = [&](std::string_view a, std::string_view b) -> const json& {
    const json& v = field(ev, a);
    return v.is_null() ? field(ev, b) : v;
  };
  const json& first_ts = first_of("firstTimestamp", "deprecatedFirstTimestamp");
  const json& last_ts = first_of("lastTimestamp", "deprecatedLastTimestamp");
  const json& series = field(ev, "series");

  std::string first_seen = since(first_ts, now);
  if (is_zero_time(first_ts)) first_seen = since(field(ev, "eventTime"), now);
  std::string last_seen = since(last_ts, now);
  if (is_zero_time(last_ts)) last_seen = first_seen;

  std::int64_t count = integer(first_of("count", "deprecatedCount"));
  if (series.is_object()) {
    last_seen = since(field(series, "lastObservedTime"), now);
    count = integer(field(series, "count"));
  } else if (count == 0) {
    count = 1;  // Singleton events don't have a count set in the new API.
  }

  const json& involved = first_of("involvedObject", "regarding");
  std::string kind = str(field(involved, "kind"));
  std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string name = str(field(involved, "name"));
  const std::string target = name.empty() ? kind : kind + "/" + name;

  // formatEventSource: source.component (else reportingController), then ", " + source.host (else
  // reportingInstance) when non-empty.
  const json& source = first_of("source", "deprecatedSource");
  std::string component = str(field(source, "component"));
  if (component.empty()) component = str(first_of("reportingComponent", "reportingController"));
  std::string host = str(field(source, "host"));
  if (host.empty()) host = str(field(ev, "reportingInstance"));
  const std::string source_str = host.empty() ? component : component + ", " + host;

  std::string message = str(first_of("message", "note"));
  const auto is_space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!message.empty() && is_space(message.back())) message.pop_back();
  message.erase(message.begin(), std::find_if_not(message.begin(), message.end(), is_space));

  return json::array({last_seen, str(field(ev, "type")), str(field(ev, "reason")), target,
                      str(field(involved, "fieldPath")), source_str, message, first_seen, count,
                      str(path(ev, "metadata", "name"))});
}

// printers.go printResourceQuota: "resource: used/hard, ..." sorted by resource name; names
// "limits.*" go to the Limit column, all others to Request.
json resource_quota_cells(const json& quota, std::int64_t now) {
  const json& meta = field(quota, "metadata");
  const json& hard = path(quota, "status", "hard");
  const json& used = path(quota, "status", "used");
  std::vector<std::string> names;
  if (hard.is_object()) {
    for (auto it = hard.begin(); it != hard.end(); ++it) names.push_back(it.key());
  }
  std::sort(names.begin(), names.end());
  std::string request, limit;
  auto quantity = [](const json& q) {
    if (q.is_string()) return q.get<std::string>();
    if (q.is_number()) return q.dump();
    return std::string("0");  // resource.Quantity{}.String()
  };
  for (const std::string& name : names) {
    std::string& w = name.rfind("limits.", 0) == 0 ? limit : request;
    if (!w.empty()) w += ", ";
    w += name + ": " + quantity(field(used, name)) + "/" + quantity(field(hard, name));
  }
  return json::array({str(field(meta, "name")), since(field(meta, "creationTimestamp"), now), request, limit});
}

// intstr.IntOrString.String().
std::string int_or_string(const json& v) {
  if (v.is_number()) return std::to_string(integer(v));
  return str(v);
}

json row_cells(Kind kind, const json& obj, std::int64_t now, json& conditions) {
  const json& meta = field(obj, "metadata");
  const std::string name = str(field(meta, "name"));
  const std::string age = since(field(meta, "creationTimestamp"), now);
  switch (kind) {
    case Kind::Pod: return pod_cells(obj, now, conditions);
    case Kind::Node: return node_cells(obj, now);
    case Kind::Job: return job_cells(obj, now);
    case Kind::Namespace: return json::array({name, str(path(obj, "status", "phase")), age});
    case Kind::Event: return event_cells(obj, now);
    case Kind::ResourceQuota: return resource_quota_cells(obj, now);
    case Kind::PriorityClass:
      return json::array({name, integer(field(obj, "value")), boolean(field(obj, "globalDefault")), age});
    case Kind::Lease: return json::array({name, str(path(obj, "spec", "holderIdentity")), age});
    case Kind::PodDisruptionBudget: {
      const json& spec = field(obj, "spec");
      const std::string min_available =
          field(spec, "minAvailable").is_null() ? "N/A" : int_or_string(field(spec, "minAvailable"));
      const std::string max_unavailable =
          field(spec, "maxUnavailable").is_null() ? "N/A" : int_or_string(field(spec, "maxUnavailable"));
      return json::array(
          {name, min_available, max_unavailable, integer(path(obj, "status", "disruptionsAllowed")), age});
    }
    case Kind::Default: break;
  }
  // rest/table.go: m.GetCreationTimestamp().Time.UTC().Format(time.RFC3339); a zero time prints
  // as "0001-01-01T00:00:00Z".
  const json& created = field(meta, "creationTimestamp");
  std::optional<std::int64_t> t = created.is_string() ? parse_rfc3339_micros(str(created)) : std::nullopt;
  std::int64_t secs = -62135596800;  // 0001-01-01T00:00:00Z
  if (t) secs = *t >= 0 ? *t / 1'000'000 : -((-*t + 999'999) / 1'000'000);
  return json::array({name, format_rfc3339(secs)});
}

json row_object(const json& obj, TableObjects include) {
  switch (include) {
    case TableObjects::None: return nullptr;
    case TableObjects::Object: return obj;
    case TableObjects::Metadata: break;
  }
  // meta.AsPartialObjectMetadata with the Table's group version (response.go asTable).
  json partial = {{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}};
  const json& meta = field(obj, "metadata");
  partial["metadata"] = meta.is_object() ? meta : json::object();
  return partial;
}

json empty_table() {
  return json{{"kind", "Table"},
              {"apiVersion", "meta.k8s.io/v1"},
              {"metadata", json::object()},
              {"columnDefinitions", nullptr},
              {"rows", json::array()}};
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::optional<TableObjects> parse_include_object(std::string_view value) {
  if (value.empty() || value == "Metadata") return TableObjects::Metadata;
  if (value == "None") return TableObjects::None;
  if (value == "Object") return TableObjects::Object;
  return std::nullopt;
}

bool wants_table(std::string_view accept_header) {
  struct Clause {
    double q = 1.0;
    bool table = false;
    bool plain = false;  // servable as plain JSON
  };
  std::vector<Clause> clauses;
  std::size_t pos = 0;
  while (pos <= accept_header.size()) {
    std::size_t comma = accept_header.find(',', pos);
    if (comma == std::string_view::npos) comma = accept_header.size();
    std::string_view clause = accept_header.substr(pos, comma - pos);
    pos = comma + 1;

    std::size_t semi = clause.find(';');
    const std::string type = lower(trim(clause.substr(0, semi)));
    if (type.empty()) continue;
    std::map<std::string, std::string> params;
    while (semi != std::string_view::npos) {
      const std::size_t next = clause.find(';', semi + 1);
      std::string_view param = trim(clause.substr(semi + 1, next == std::string_view::npos ? next : next - semi - 1));
      semi = next;
      const std::size_t eq = param.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view value = trim(param.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      params[lower(trim(param.substr(0, eq)))] = std::string(value);
    }
    Clause c;
    if (auto q = params.find("q"); q != params.end()) {
      try {
        c.q = std::stod(q->second);
      } catch (...) {
        c.q = 0;
      }
    }
    if (c.q <= 0) continue;
    if (type != "application/json" && type != "application/*" && type != "*/*") continue;
    auto as = params.find("as");
    if (as == params.end()) {
      c.plain = true;
    } else if (as->second == "Table" && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1")) {
      c.table = true;
    } else {
      continue;  // PartialObjectMetadata(List) or another group version: not served here
    }
    clauses.push_back(c);
  }
  std::stable_sort(clauses.begin(), clauses.end(), [](const Clause& a, const Clause& b) { return a.q > b.q; });
  return !clauses.empty() && clauses.front().table;
}

std::string human_duration(std::int64_t micros) {
  // Go: seconds := int(d.Seconds()) truncates toward zero, as C++ integer division does.
  const std::int64_t seconds = micros / 1'000'000;
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const std::int64_t minutes = micros / 60'000'000;
  if (minutes < 10) {
    const std::int64_t s = seconds % 60;
    if (s == 0) return std::to_string(minutes) + "m";
    return std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const std::int64_t hours = micros / 3'600'000'000LL;
  if (hours < 8) {
    const std::int64_t m = minutes % 60;
    if (m == 0) return std::to_string(hours) + "h";
    return std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    const std::int64_t h = hours % 24;
    if (h == 0) return std::to_string(hours / 24) + "d";
    return std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const std::int64_t dy = hours / 24 % 365;
    if (dy == 0) return std::to_string(hours / 24 / 365) + "y";
    return std::to_string(hours / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}


json table_column_definitions(std::string_view resource) {
  json out = json::array();
  for (const Column& c : columns_of(kind_of(resource))) {
    out.push_back({{"name", c.name},
                   {"type", c.type},
                   {"format", c.format},
                   {"description", c.description},
                   {"priority", c.priority}});
  }
  return out;
}

json table_row(std::string_view resource, const json& object, std::int64_t now_unix_micros, TableObjects include) {
  json conditions;
  json row = json::object();
  row["cells"] = row_cells(kind_of(resource), object, now_unix_micros, conditions);
  if (!conditions.is_null()) row["conditions"] = std::move(conditions);
  row["object"] = row_object(object, include);
  return row;
}

json to_table(std::string_view resource, const std::vector<const json*>& objects, std::int64_t now_unix_micros,
              TableObjects include, const json& list_metadata) {
  json table = empty_table();
  json& meta = table["metadata"];
  for (const char* key : {"resourceVersion", "continue"}) {
    const json& v = field(list_metadata, key);
    if (v.is_string() && !v.get_ref<const std::string&>().empty()) meta[key] = v;
  }
  if (const json& rem = field(list_metadata, "remainingItemCount"); rem.is_number_integer()) {
    meta["remainingItemCount"] = rem;
  }
  table["columnDefinitions"] = table_column_definitions(resource);
  json& rows = table["rows"];
  for (const json* obj : objects) {
    if (obj) rows.push_back(table_row(resource, *obj, now_unix_micros, include));
  }
  return table;
}

json to_table_row_object(std::string_view resource, const json& object, std::int64_t now_unix_micros,
                         TableObjects include, bool first_event) {
  json table = empty_table();
  // rest/table.go: a single object's table carries the object's resourceVersion.
  const json& rv = path(object, "metadata", "resourceVersion");
  if (rv.is_string() && !rv.get_ref<const std::string&>().empty()) table["metadata"]["resourceVersion"] = rv;
  if (first_event) table["columnDefinitions"] = table_column_definitions(resource);
  table["rows"].push_back(table_row(resource, object, now_unix_micros, include));
  return table;
}

}  // namespace kubesim::api

#include "api/api_server.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "api/patch.hpp"
#include "api/selector.hpp"
#include "api/table.hpp"
#include "sched/kube/plugins/node_affinity/node_affinity.hpp"
#include "control/node_lifecycle.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

const std::string* ApiRequest::param(std::string_view name) const {
  for (const auto& [k, v] : query)
    if (k == name) return &v;
  return nullptr;
}

namespace {

// The continue token is base64 (RFC 4648, padded) of a small JSON document, as the
// apiserver's storage.EncodeContinue.
std::string encode_base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// Throws std::invalid_argument on characters outside the alphabet.
std::string decode_base64(std::string_view in) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (const char c : in) {
    if (c == '=') break;
    int d = -1;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    if (c >= '0' && c <= '9') d = c - '0' + 52;
    if (c == '+' || c == '-') d = 62;
    if (c == '/' || c == '_') d = 63;
    if (d < 0) throw std::invalid_argument("illegal base64 data");
    v = (v << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xff);
    }
  }
  return out;
}

}  // namespace

// A list or watch filter: ?labelSelector= and ?fieldSelector= of one resource.
class Selection {
 public:
  // False with `error` set (the 400 message) when a selector does not parse or names a
  // field the resource cannot select on.
  bool parse(std::string_view resource, const std::string* labels, const std::string* fields, std::string* error) {
    resource_ = resource;
    try {
      if (labels) labels_ = parse_label_selector(*labels);
      if (fields) fields_ = parse_field_selector(*fields);
    } catch (const SelectorError& e) {
      *error = e.what();
      return false;
    }
    const nlohmann::json none = nlohmann::json::object();
    if (auto bad = fields_.unsupported_field(field_getter(resource_, none))) {
      *error = "field label not supported: " + *bad;
      return false;
    }
    return true;
  }
  bool matches(const nlohmann::json& object) const {
    if (!labels_.empty() && !labels_.matches_object(object)) return false;
    return fields_.empty() || fields_.matches(field_getter(resource_, object));
  }

 private:
  std::string resource_;
  LabelQuery labels_;
  FieldQuery fields_;
};

// An open watch: what it selects and how far it has read the log.
struct Watch {
  std::uint8_t resource = 0;
  std::string ns;  // empty: every namespace
  Selection selection;
  bool send_initial = false;  // resourceVersion "" or "0": first the current objects as ADDED
  std::size_t cursor = 0;     // the next log index to read
  bool bookmarks = false;
  bool table = false;
  bool first_event = true;
  TableObjects include = TableObjects::Metadata;
  std::chrono::steady_clock::time_point deadline;
  std::chrono::steady_clock::time_point next_bookmark;
};

namespace {

// staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go: bookmarks go out every minute
// and 2 s before the watch's deadline.
constexpr auto kBookmarkFrequency = std::chrono::minutes(1);
constexpr auto kBookmarkBeforeDeadline = std::chrono::seconds(2);
// The apiserver's --min-request-timeout (1800 s) is the default watch timeout.
constexpr int kDefaultWatchTimeoutSeconds = 1800;

// error_handler_t::replace: a string kubesim echoes (a name, a path, a message) may hold
// bytes that are not UTF-8; they become U+FFFD instead of throwing while answering.
ApiResponse json_response(int status, const Json& body) {
  return ApiResponse{status, body.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json"};
}

// A request body nested deeper than this is refused before it is stored: the apiserver's
// JSON decoder (sigs.k8s.io/json, from Go's encoding/json) stops at a nesting depth of 10000
// ("exceeded max depth"). nlohmann parses and destroys iteratively, but serializing and
// patching recurse, so the bound also keeps those within a thread's stack.
constexpr int kMaxJsonDepth = 10000;

struct BodyTooDeep : std::runtime_error {
  BodyTooDeep() : std::runtime_error("exceeded max depth " + std::to_string(kMaxJsonDepth)) {}
};

Json parse_body(const std::string& body) {
  return Json::parse(body, [](int depth, Json::parse_event_t event, Json&) {
    if (depth >= kMaxJsonDepth && (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start))
      throw BodyTooDeep();
    return true;
  });
}

// metav1.Status (staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go).
ApiResponse status_response(int code, std::string_view reason, const std::string& message, const std::string& name = {},
                            std::string_view kind = {}, std::string_view group = {}) {
  Json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", Json::object()}, {"status", "Failure"},
                 {"message", message}, {"reason", reason}, {"code", code}};
  if (!name.empty() || !kind.empty()) {
    Json details = Json::object();
    if (!name.empty()) details["name"] = name;
    if (!group.empty()) details["group"] = group;
    if (!kind.empty()) details["kind"] = kind;
    status["details"] = details;
  }
  return json_response(code, status);
}

ApiResponse success_status(int code) {
  return json_response(code, Json{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", Json::object()},
                                  {"status", "Success"}, {"code", code}});
}

ApiResponse not_found_path() {
  return status_response(404, "NotFound", "the server could not find the requested resource");
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

const std::string& string_at(const Json& object, const char* a, const char* b) {
  static const std::string kEmpty;
  const auto ia = object.find(a);
  if (ia == object.end() || !ia->is_object()) return kEmpty;
  const auto ib = ia->find(b);
  return ib != ia->end() && ib->is_string() ? ib->get_ref<const std::string&>() : kEmpty;
}

std::string json_string_of(const Json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

// The grace period of a DELETE: the DeleteOptions body wins over the query parameter.
std::optional<std::int64_t> grace_period(const ApiRequest& r, const Json& options) {
  if (auto it = options.find("gracePeriodSeconds"); it != options.end() && it->is_number_integer())
    return it->get<std::int64_t>();
  if (const std::string* q = r.param("gracePeriodSeconds")) return parse_int(*q);
  return std::nullopt;
}

std::string propagation_policy(const ApiRequest& r, const Json& options) {
  if (auto it = options.find("propagationPolicy"); it != options.end() && it->is_string()) return it->get<std::string>();
  if (const std::string* q = r.param("propagationPolicy")) return *q;
  return {};
}

// A boolean query parameter as Go's strconv.ParseBool reads it (the apiserver's conversion
// of query parameters): the Python client sends watch=True.
bool query_flag(const ApiRequest& r, std::string_view name) {
  const std::string* v = r.param(name);
  if (!v) return false;
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"})
    if (*v == yes) return true;
  return false;
}

// An update of an object whose spec kubesim owns: the client's labels and annotations are
// kept with the object (in `originals`, by model index).
void keep_metadata(std::unordered_map<std::uint32_t, Json>& originals, std::uint32_t id, const Snapshot& current,
                   const Json& updated) {
  auto it = originals.find(id);
  Json original = it != originals.end() ? it->second : current.object;
  original["metadata"]["labels"] = updated["metadata"].value("labels", Json::object());
  original["metadata"]["annotations"] = updated["metadata"].value("annotations", Json::object());
  original.erase("status");
  originals[id] = std::move(original);
}

DisruptionReason disruption_reason_named(const std::string& reason) {
  if (reason == "PreemptionByKubeScheduler") return DisruptionReason::kPreemptionByScheduler;
  if (reason == "DeletionByTaintManager") return DisruptionReason::kDeletionByTaintManager;
  if (reason == "EvictionByEvictionAPI") return DisruptionReason::kEvictionByEvictionAPI;
  return DisruptionReason::kDeletionByUser;
}

}  // namespace

// A request path: /api/v1/... or /apis/GROUP/VERSION/..., then [watch/] [namespaces/NS/]
// RESOURCE [/NAME [/SUBRESOURCE]].
struct ApiServer::Target {
  std::uint8_t resource = 0;
  std::string ns;
  std::string name;
  std::string sub;
  bool watch_path = false;
  const ResourceInfo& info() const { return served_resources()[resource]; }
};

ApiServer::ApiServer(Simulation& sim, ApiOptions options)
    : sim_(sim),
      options_(std::move(options)),
      time_{options_.epoch_unix_micros},
      cache_(served_resources().size(), options_.watch_log_capacity),
      name_rng_(options_.seed, "api/generate-name"),
      pods_resource_(resource_index("", "pods")),
      nodes_resource_(resource_index("", "nodes")),
      namespaces_resource_(resource_index("", "namespaces")),
      jobs_resource_(resource_index("batch", "jobs")),
      quotas_resource_(resource_index("", "resourcequotas")),
      priority_classes_resource_(resource_index("scheduling.k8s.io", "priorityclasses")),
      pdbs_resource_(resource_index("policy", "poddisruptionbudgets")),
      core_events_resource_(resource_index("", "events")),
      events_v1_resource_(resource_index("events.k8s.io", "events")),
      last_activity_(std::chrono::steady_clock::now()) {
  std::lock_guard<std::mutex> lock(mutex_);
  const ObjectStore& store = sim_.store();
  // The objects that exist before the server starts, in the order they were created.
  for (std::uint32_t i = 0; i < store.namespace_count(); ++i) publish_model(ObjectKind::kNamespace, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.node_count(); ++i) publish_model(ObjectKind::kNode, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.quota_count(); ++i) publish_model(ObjectKind::kQuota, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.job_count(); ++i) publish_model(ObjectKind::kJob, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) publish_model(ObjectKind::kPod, i, ChangeType::kAdded);
  const auto& pcs = store.priority_classes();
  for (std::uint32_t i = 0; i < pcs.size(); ++i)
    record(priority_classes_resource_, WatchEventType::kAdded,
           priority_class_to_json(pcs[i], i, sim_.store().next_resource_version(), time_));
  const auto& pdbs = store.pod_disruption_budgets();
  for (std::uint32_t i = 0; i < pdbs.size(); ++i) {
    record(pdbs_resource_, WatchEventType::kAdded,
           pdb_to_json(store, pdbs[i], i, sim_.store().next_resource_version(), PdbStatus{}, time_));
  }
  sim_.add_listener(this);
}

ApiServer::~ApiServer() { sim_.store().remove_listener(this); }

void ApiServer::shutdown() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  events_cv_.notify_all();
}

void ApiServer::touch() {
  last_activity_ = std::chrono::steady_clock::now();
  if (on_activity_) on_activity_();
}

void ApiServer::notify_watchers() {
  // Only when something was recorded: waking every watch thread on every request (most are
  // reads, or writes the scheduler's own watch already saw) cost serve about half its CPU
  // under a real scheduler's load, CPU the scheduler then lacked on a small machine.
  if (!watchers_behind_) return;
  watchers_behind_ = false;
  events_cv_.notify_all();
}

void ApiServer::hold_request_changes() {
  hold_ = true;
  visible_end_ = cache_.end_index();
}

void ApiServer::release_watch_events() {
  if (!hold_ || visible_end_ == cache_.end_index()) return;
  visible_end_ = cache_.end_index();
  watchers_behind_ = true;
  notify_watchers();
}

std::string ApiServer::generate_name(const std::string& base) {
  // apiserver's names.SimpleNameGenerator: base + 5 characters of utilrand's alphabet.
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string name = base;
  for (int i = 0; i < 5; ++i) name += kAlphabet[name_rng_.uniform_below(sizeof(kAlphabet) - 1)];
  return name;
}

std::string ApiServer::key_of(const Target& t, const std::string& name) const {
  return t.info().namespaced ? t.ns + "/" + name : name;
}

// ---- The change feed -------------------------------------------------------------------

void ApiServer::record(std::uint8_t resource, WatchEventType type, Json object, std::uint32_t model_id) {
  auto snap = std::make_shared<Snapshot>();
  const Json& meta = object["metadata"];
  const std::string& ns = string_at(object, "metadata", "namespace");
  snap->key = ns.empty() ? json_string_of(meta["name"]) : ns + "/" + json_string_of(meta["name"]);
  snap->resource_version = static_cast<std::uint64_t>(parse_int(json_string_of(meta["resourceVersion"])).value_or(0));
  snap->model_id = model_id;
  snap->text = object.dump();
  snap->object = std::move(object);
  cache_.record(resource, type, std::move(snap));
  watchers_behind_ = true;
}

void ApiServer::publish_model(ObjectKind kind, std::uint32_t id, ChangeType change) {
  const WatchEventType type = change == ChangeType::kAdded     ? WatchEventType::kAdded
                              : change == ChangeType::kDeleted ? WatchEventType::kDeleted
                                                               : WatchEventType::kModified;
  const ObjectStore& store = sim_.store();
  auto original_of = [](const std::unordered_map<std::uint32_t, Json>& m, std::uint32_t i) -> const Json* {
    const auto it = m.find(i);
    return it == m.end() ? nullptr : &it->second;
  };
  switch (kind) {
    case ObjectKind::kPod: {
      const Pod& p = store.pod(PodId(id));
      if (change == ChangeType::kAdded && p.job.valid() && !pod_originals_.count(id)) {
        // A pod the Job controller created from a client's Job: its template's fields.
        if (const Json* job = original_of(job_originals_, p.job.value())) {
          const auto spec = job->find("spec");
          if (spec != job->end() && spec->contains("template")) {
            Json pod = (*spec)["template"];
            pod["metadata"]["name"] = p.name;
            pod["metadata"]["namespace"] = store.namespace_(p.ns).name;
            pod_originals_.emplace(id, std::move(pod));
          }
        }
      }
      record(pods_resource_, type, pod_to_json(store, PodId(id), time_, original_of(pod_originals_, id)), id);
      track_external(PodId(id));
      account_on_node(PodId(id));
      if (!p.deleted) record_pod_events(PodId(id));
      if (p.deleted) {
        pod_originals_.erase(id);
        disruption_marks_.erase(id);
      }
      return;
    }
    case ObjectKind::kNode:
      record(nodes_resource_, type, node_to_json(store, NodeId(id), time_, original_of(node_originals_, id)), id);
      return;
    case ObjectKind::kNamespace:
      record(namespaces_resource_, type, namespace_to_json(store, NamespaceId(id), time_), id);
      return;
    case ObjectKind::kJob:
      record(jobs_resource_, type, job_to_json(store, JobId(id), time_, original_of(job_originals_, id)), id);
      return;
    case ObjectKind::kQuota:
      record(quotas_resource_, type, quota_to_json(store, QuotaId(id), time_), id);
      return;
  }
}

void ApiServer::on_change(const Change& change) {
  // Called synchronously by the store, always under mutex_ (requests and the clock driver
  // touch the simulation only under it).
  publish_model(change.kind, change.id, change.type);
  if (change.kind == ObjectKind::kNode ||
      (change.kind == ObjectKind::kPod &&
       (change.type == ChangeType::kDeleted || (is_terminal(change.phase) && !is_terminal(change.old_phase)))))
    capacity_freed_ = true;
  given_up_fit_.reset();
  touch();
}

void ApiServer::account_on_node(PodId pod) {
  const Pod& p = sim_.store().pod(pod);
  const NodeId node = !p.deleted && !is_terminal(p.phase) ? p.node : NodeId();
  if (accounted_node_.size() <= pod.value()) accounted_node_.resize(pod.value() + 1);
  NodeId& was = accounted_node_[pod.value()];
  if (was == node) return;
  const PodTemplate& spec = sim_.store().spec(p.spec);
  const Resources& requests = spec.requests;
  if (was.valid()) {
    node_requested_[was.value()] -= requests;
    --node_pod_count_[was.value()];
    if (--bound_priorities_[spec.priority] == 0) bound_priorities_.erase(spec.priority);
  }
  if (node.valid()) {
    if (node_requested_.size() <= node.value()) {
      node_requested_.resize(node.value() + 1);
      node_pod_count_.resize(node.value() + 1, 0);
    }
    node_requested_[node.value()] += requests;
    ++node_pod_count_[node.value()];
    ++bound_priorities_[spec.priority];
  }
  was = node;
}

bool ApiServer::given_up_pod_fits() {
  if (given_up_fit_) return *given_up_fit_;
  const ObjectStore& store = sim_.store();
  auto fits = [&](const PodTemplate& spec, NodeId id) {
    const Node& node = store.node(id);
    // NodeUnschedulable (nodeunschedulable/node_unschedulable.go): tolerated by the
    // node.kubernetes.io/unschedulable:NoSchedule toleration only.
    if (node.unschedulable &&
        std::none_of(spec.tolerations.begin(), spec.tolerations.end(), [](const Toleration& t) {
          return t.tolerates(Taint{"node.kubernetes.io/unschedulable", "", TaintEffect::kNoSchedule});
        }))
      return false;
    // TaintToleration's filter: every NoSchedule/NoExecute taint tolerated.
    for (const Taint& taint : node.taints) {
      if (taint.effect == TaintEffect::kPreferNoSchedule) continue;
      if (std::none_of(spec.tolerations.begin(), spec.tolerations.end(),
                       [&](const Toleration& t) { return t.tolerates(taint); }))
        return false;
    }
    if (!pod_matches_node_selector_and_affinity(spec, node)) return false;
    // NodeResourcesFit (noderesources/fit.go fitsRequest): pod count, then each requested resource.
    const std::size_t n = id.value();
    const std::int64_t pods = n < node_pod_count_.size() ? node_pod_count_[n] : 0;
    if (pods + 1 > node.allowed_pods) return false;
    const Resources used = n < node_requested_.size() ? node_requested_[n] : Resources{};
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (spec.requests[r] > 0 && spec.requests[r] > node.allocatable[r] - used[r]) return false;
    return true;
  };
  bool any = false;
  for (const std::uint32_t id : given_up_pods_) {
    const Pod& p = store.pod(PodId(id));
    const PodTemplate& spec = store.spec(p.spec);
    for (std::uint32_t n = 0; n < store.node_count() && !any; ++n) any = fits(spec, NodeId(n));
    if (any) break;
  }
  given_up_fit_ = any;
  return any;
}

bool ApiServer::given_up_pod_may_preempt() const {
  if (bound_priorities_.empty()) return false;
  const std::int32_t lowest = bound_priorities_.begin()->first;
  const ObjectStore& store = sim_.store();
  return std::any_of(given_up_pods_.begin(), given_up_pods_.end(), [&](std::uint32_t id) {
    const PodTemplate& spec = store.spec(store.pod(PodId(id)).spec);
    return spec.preemption_policy != PreemptionPolicy::kNever && spec.priority > lowest;
  });
}

std::vector<std::string> ApiServer::pending_external_pods() const {
  std::vector<std::string> names;
  const ObjectStore& store = sim_.store();
  for (std::uint32_t id = 0; id < external_state_.size(); ++id)
    if (external_state_[id] != 0) names.push_back(store.namespace_(store.pod(PodId(id)).ns).name + "/" + store.pod(PodId(id)).name);
  return names;
}

void ApiServer::track_external(PodId pod) {
  if (external_state_.size() <= pod.value()) external_state_.resize(pod.value() + 1, 0);
  std::uint8_t& state = external_state_[pod.value()];
  const Pod& p = sim_.store().pod(pod);
  std::uint8_t now = 0;
  if (!p.deleted && !p.terminating() && !p.node.valid() && !sim_.store().missing_node(pod) && p.phase == PodPhase::kPending &&
      !sim_.served_internally(sim_.store().spec(p.spec).scheduler_name))
    now = p.unschedulable_message.empty() ? 1 : 2;
  if (state == now) return;
  if (delivered_at_.size() <= pod.value()) delivered_at_.resize(pod.value() + 1);
  auto& delivered = delivered_at_[pod.value()];
  if (state == 1 && !p.deleted && delivered.time_since_epoch().count() != 0) {
    reactions_[next_reaction_] = std::chrono::steady_clock::now() - delivered;
    next_reaction_ = (next_reaction_ + 1) % std::size(reactions_);
  }
  delivered = {};
  if (state == 1) --undecided_;
  if (state == 2) --given_up_;
  if (now == 1) ++undecided_;
  if (now == 2) ++given_up_;
  if (state == 2) given_up_pods_.erase(pod.value());
  if (now == 2) given_up_pods_.insert(pod.value());
  state = now;
}

namespace {
constexpr std::uint8_t kEventScheduled = 1, kEventStarted = 2, kEventKilling = 4;
// kube-apiserver --event-ttl default (cmd/kube-apiserver/app/options/options.go EventTTL).
constexpr Duration kEventTtl = Duration::seconds(3600);
}  // namespace

void ApiServer::record_pod_events(PodId pod) {
  if (pod_events_recorded_.size() <= pod.value()) pod_events_recorded_.resize(pod.value() + 1, 0);
  std::uint8_t& done = pod_events_recorded_[pod.value()];
  const ObjectStore& store = sim_.store();
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
  // The container the kubelet's events name: the pod's first (kubesim runs one workload
  // container per pod).
  std::string container = "main", image = "registry.k8s.io/pause:3.9";
  const Json& containers = snap->object["spec"]["containers"];
  if (containers.is_array() && !containers.empty()) {
    container = json_string_of(containers[0].value("name", Json(container)));
    image = json_string_of(containers[0].value("image", Json(image)));
  }
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
    record_event(std::move(e));
  };
  // The built-in schedulers record Scheduled when the binding succeeded; an external
  // scheduler records its own through the API.
  if (!(done & kEventScheduled) && p.node.valid() && !p.scheduled.is_never() &&
      sim_.served_internally(spec.scheduler_name)) {
    done |= kEventScheduled;
    event(0, "Scheduled", "Successfully assigned " + base.pod_namespace + "/" + p.name + " to " + node, p.scheduled,
          false);
  }
  // The kubelet's start-up events, recorded when the container's start is reported (their
  // timestamps are the steps' own instants; a watcher sees them with the Running status).
  if (!(done & kEventStarted) && !p.started.is_never() && !p.pulling.is_never()) {
    done |= kEventStarted;
    event(1, "Pulling", "Pulling image \"" + image + "\"", p.pulling, true);
    event(2, "Pulled", "Successfully pulled image \"" + image + "\" in " + go_duration_string(p.pulled - p.pulling),
          p.pulled, true);
    event(3, "Created", "Created container " + container, p.container_created, true);
    event(4, "Started", "Started container " + container, p.started, true);
  }
  // killContainer on a graceful deletion of a running container.
  if (!(done & kEventKilling) && p.terminating() && (done & kEventStarted) && !is_terminal(p.phase)) {
    done |= kEventKilling;
    event(5, "Killing", "Stopping container " + container, std::max(p.deletion_requested, p.started), true);
  }
}

void ApiServer::record_event(PodEvent e) {
  const SimTime now = sim_.now();
  while (!event_expiry_.empty() && event_expiry_.front().second + kEventTtl <= now) {
    const std::string key = std::move(event_expiry_.front().first);
    event_expiry_.pop_front();
    const std::uint64_t rv = sim_.store().next_resource_version();
    for (const std::uint8_t resource : {core_events_resource_, events_v1_resource_}) {
      const SnapshotPtr last = cache_.find(resource, key);
      if (!last) continue;  // deleted by a client already
      Json object = last->object;
      object["metadata"]["resourceVersion"] = std::to_string(rv);
      record(resource, WatchEventType::kDeleted, std::move(object));
    }
  }
  e.resource_version = sim_.store().next_resource_version();
  // One stored object, served by both APIs (same name and resourceVersion).
  Json core = pod_event_core_v1(e, time_);
  event_expiry_.emplace_back(e.pod_namespace + "/" + json_string_of(core["metadata"]["name"]), now);
  record(core_events_resource_, WatchEventType::kAdded, std::move(core));
  record(events_v1_resource_, WatchEventType::kAdded, pod_event_events_v1(e, time_));
}

std::chrono::steady_clock::duration ApiServer::recent_reaction_time() const {
  // Capped, so that one stall of the scheduler cannot stretch every later step.
  return std::min<std::chrono::steady_clock::duration>(*std::max_element(std::begin(reactions_), std::end(reactions_)),
                                                       std::chrono::seconds(1));
}

// ---- Requests --------------------------------------------------------------------------

ApiResponse ApiServer::handle(const ApiRequest& request, std::shared_ptr<Watch>* watch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return status_response(503, "ServiceUnavailable", "kubesim is shutting down");
  if (before_request_) before_request_(request);
  // The count is released however the request ends: a request that escaped with an
  // exception once left it raised, and cosim then waited for it forever.
  struct InFlight {
    int& count;
    explicit InFlight(int& c) : count(++c) {}
    ~InFlight() { --count; }
  } in_flight(in_flight_);
  ++requests_;
  ApiResponse response;
  try {
    response = dispatch(request, watch);
  } catch (const Json::exception& e) {
    response = status_response(400, "BadRequest", std::string("malformed request: ") + e.what());
  } catch (const BodyTooDeep& e) {
    response = status_response(400, "BadRequest", std::string("malformed request: ") + e.what());
  } catch (const PatchError& e) {
    response = status_response(422, "Invalid", e.what());
  } catch (const std::exception& e) {
    // The apiserver answers a handler's failure with 500 InternalError
    // (apimachinery/pkg/api/errors NewInternalError); the server keeps serving.
    response = status_response(500, "InternalError", std::string("Internal error occurred: ") + e.what());
  }
  touch();
  notify_watchers();
  return response;
}

ApiResponse ApiServer::dispatch(const ApiRequest& r, std::shared_ptr<Watch>* watch) {
  const auto parts = split_path(r.path);
  if (r.method == "GET") {
    if (r.path == "/version" || r.path == "/version/") return json_response(200, version_document(options_.kubesim_version));
    if (r.path == "/healthz" || r.path == "/readyz" || r.path == "/livez") return ApiResponse{200, "ok", "text/plain"};
    if (parts.size() == 1 && parts[0] == "api") return json_response(200, core_versions_document(options_.server_address));
    if (parts.size() == 1 && parts[0] == "apis") return json_response(200, group_list_document());
    if (parts.size() == 2 && parts[0] == "openapi" && parts[1] == "v3") return json_response(200, openapi_v3_root());
    if (parts.size() >= 4 && parts[0] == "openapi" && parts[1] == "v3") {
      const std::string_view rest = std::string_view(r.path).substr(std::string_view("/openapi/v3/").size());
      if (auto doc = openapi_v3_document(rest)) return json_response(200, *doc);
      return not_found_path();
    }
    if (parts.size() == 2 && parts[0] == "api") {
      if (auto doc = resource_list_document("", parts[1])) return json_response(200, *doc);
      return not_found_path();
    }
    if (parts.size() == 3 && parts[0] == "apis") {
      if (auto doc = resource_list_document(parts[1], parts[2])) return json_response(200, *doc);
      return not_found_path();
    }
    if (parts.size() == 2 && parts[0] == "apis") {
      for (const auto& g : group_list_document()["groups"])
        if (g["name"] == parts[1]) return json_response(200, Json{{"kind", "APIGroup"}, {"apiVersion", "v1"}, {"name", g["name"]}, {"versions", g["versions"]}, {"preferredVersion", g["preferredVersion"]}});
      return not_found_path();
    }
  }
  // Resource paths.
  std::size_t i = 0;
  std::string_view group, version;
  if (parts.size() >= 3 && parts[0] == "api") {
    version = parts[1];
    i = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
    i = 3;
  } else {
    return not_found_path();
  }
  Target t;
  if (i < parts.size() && parts[i] == "watch") {
    t.watch_path = true;
    ++i;
  }
  std::vector<std::string_view> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    const auto res = find_resource(group, version, rest[2]);
    if (res && served_resources()[*res].namespaced) {
      t.ns = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (rest.empty() || rest.size() > 3) return not_found_path();
  const auto res = find_resource(group, version, rest[0]);
  if (!res) return not_found_path();
  t.resource = *res;
  if (rest.size() >= 2) t.name = rest[1];
  if (rest.size() == 3) {
    t.sub = rest[2];
    if (("," + std::string(t.info().subresources) + ",").find("," + t.sub + ",") == std::string::npos)
      return not_found_path();
  }
  if (t.info().namespaced && t.ns.empty() && !t.name.empty()) return not_found_path();

  const bool has_body = r.method == "POST" || r.method == "PUT" || r.method == "PATCH";
  if (has_body && r.content_type.find("protobuf") != std::string::npos)
    return status_response(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format - accepted media types include: "
                           "application/json, application/yaml (kubesim serves JSON only: run clients with "
                           "--kube-api-content-type=application/json)");
  if (const std::string* dry = r.param("dryRun"); dry && !dry->empty()) {
    // staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go: "All" is the only value.
    if (*dry != "All") return status_response(400, "BadRequest", "unsupported dry run value \"" + *dry + "\" (expected All)");
    if (r.method != "POST" || !t.sub.empty() || !t.name.empty())
      return status_response(400, "BadRequest", "dryRun is supported by kubesim for create (POST) only");
  }

  if (r.method == "GET") {
    if (t.name.empty()) {
      if (t.watch_path || query_flag(r, "watch")) return start_watch(t, r, watch);
      return list(t, r);
    }
    if (t.watch_path) return start_watch(t, r, watch);
    return get(t, r);
  }
  if (r.method == "POST") {
    if (t.sub == "binding" && t.resource == pods_resource_) return bind(t, r);
    if (t.info().plural == "bindings" && t.name.empty()) {
      // POST namespaces/NS/bindings (BindingREST, what CoreV1Api.create_namespaced_binding
      // calls): the pod is named by the body's metadata.name.
      Target pod = t;
      pod.resource = pods_resource_;
      const Json body = parse_body(r.body);
      pod.name = body.contains("metadata") ? json_string_of(body["metadata"].value("name", Json())) : std::string();
      return bind(pod, r);
    }
    if (t.sub == "eviction" && t.resource == pods_resource_) return evict(t, r);
    if (!t.name.empty()) return status_response(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    return create(t, r);
  }
  if (t.name.empty() || (!t.sub.empty() && t.sub != "status"))
    return status_response(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  if (r.method == "PUT") return replace(t, r, parse_body(r.body));
  if (r.method == "PATCH") return patch(t, r);
  if (r.method == "DELETE") return remove(t, r);
  return status_response(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

ApiResponse ApiServer::get(const Target& t, const ApiRequest& r) {
  const SnapshotPtr snap = cache_.find(t.resource, key_of(t, t.name));
  if (!snap) return status_response(404, "NotFound", std::string(t.info().plural) + " \"" + t.name + "\" not found", t.name, t.info().plural, t.info().group);
  if (wants_table(r.accept)) {
    const auto include = parse_include_object(r.param("includeObject") ? *r.param("includeObject") : std::string());
    if (!include) return status_response(400, "BadRequest", "unrecognized includeObject value");
    return json_response(200, to_table(t.info().plural, {&snap->object}, time_.epoch_unix_micros + sim_.now().micros(), *include));
  }
  return ApiResponse{200, snap->text, "application/json"};
}

ApiResponse ApiServer::list(const Target& t, const ApiRequest& r) {
  std::string error;
  Selection sel;
  if (!sel.parse(t.info().plural, r.param("labelSelector"), r.param("fieldSelector"), &error))
    return status_response(400, "BadRequest", error);
  const auto& live = cache_.live(t.resource);
  auto it = t.ns.empty() ? live.begin() : live.lower_bound(t.ns + "/");
  const std::string ns_prefix = t.ns.empty() ? std::string() : t.ns + "/";
  std::uint64_t list_rv = cache_.latest_resource_version();
  // limit/continue (apiserver's pagination). A list with resourceVersion=0 is served from
  // the watch cache, which ignores limit (staging/src/k8s.io/apiserver/pkg/storage/cacher).
  std::int64_t limit = 0;
  const std::string* rv_param = r.param("resourceVersion");
  if (const std::string* l = r.param("limit"); l && !(rv_param && *rv_param == "0")) limit = parse_int(*l).value_or(0);
  if (const std::string* c = r.param("continue"); c && !c->empty()) {
    Json token;
    try {
      token = Json::parse(decode_base64(*c));
    } catch (const std::exception&) {
      return status_response(400, "BadRequest", "continue key is not valid: illegal base64 data");
    }
    if (!token.contains("start") || !token["start"].is_string() || !token.contains("rv"))
      return status_response(400, "BadRequest", "continue key is not valid");
    if (!cache_.covers(token["rv"].get<std::uint64_t>()))
      return status_response(410, "Expired",
                             "The provided continue parameter is too old to display a consistent list result. You "
                             "can start a new list without the continue parameter.");
    list_rv = token["rv"].get<std::uint64_t>();
    it = live.lower_bound(token["start"].get<std::string>());
  }
  const bool table = wants_table(r.accept);
  std::vector<const Json*> table_objects;
  std::string items;
  std::int64_t count = 0;
  std::string next_key;
  std::int64_t remaining = 0;
  for (; it != live.end(); ++it) {
    if (!ns_prefix.empty() && it->first.compare(0, ns_prefix.size(), ns_prefix) != 0) break;
    const Snapshot& s = *it->second;
    if (!sel.matches(s.object)) continue;
    if (limit > 0 && count == limit) {
      if (next_key.empty()) next_key = it->first;
      ++remaining;
      continue;
    }
    ++count;
    if (table) {
      table_objects.push_back(&s.object);
    } else {
      if (!items.empty()) items += ',';
      items += s.text;
    }
  }
  Json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (!next_key.empty()) {
    meta["continue"] = encode_base64(Json{{"v", "meta.k8s.io/v1"}, {"rv", list_rv}, {"start", next_key}}.dump());
    meta["remainingItemCount"] = remaining;
  }
  if (table) {
    const auto include = parse_include_object(r.param("includeObject") ? *r.param("includeObject") : std::string());
    if (!include) return status_response(400, "BadRequest", "unrecognized includeObject value");
    return json_response(200, to_table(t.info().plural, table_objects, time_.epoch_unix_micros + sim_.now().micros(), *include, meta));
  }
  std::string body;
  body.reserve(items.size() + 200);
  body += R"({"kind":")";
  body += t.info().kind;
  body += R"(List","apiVersion":")";
  body += t.info().api_version();
  body += R"(","metadata":)";
  body += meta.dump();
  body += R"(,"items":[)";
  body += items;
  body += "]}";
  return ApiResponse{200, std::move(body), "application/json"};
}

ApiResponse ApiServer::start_watch(const Target& t, const ApiRequest& r, std::shared_ptr<Watch>* watch) {
  auto w = std::make_shared<Watch>();
  w->resource = t.resource;
  w->ns = t.ns;
  std::string error;
  std::string field_selector = r.param("fieldSelector") ? *r.param("fieldSelector") : std::string();
  if (!t.name.empty()) field_selector += (field_selector.empty() ? "" : ",") + std::string("metadata.name=") + t.name;
  if (!w->selection.parse(t.info().plural, r.param("labelSelector"), &field_selector, &error))
    return status_response(400, "BadRequest", error);
  const std::string* rv = r.param("resourceVersion");
  if (!rv || rv->empty() || *rv == "0") {
    w->send_initial = true;
  } else {
    const auto parsed = parse_int(*rv);
    if (!parsed || *parsed < 0) return status_response(400, "BadRequest", "invalid resourceVersion: " + *rv);
    const auto from = static_cast<std::uint64_t>(*parsed);
    if (!cache_.covers(from))
      return status_response(410, "Expired", "too old resource version: " + *rv + " (" + std::to_string(cache_.latest_resource_version()) + ")");
    w->cursor = cache_.position(from);
  }
  w->bookmarks = query_flag(r, "allowWatchBookmarks");
  w->table = wants_table(r.accept);
  if (w->table) {
    const auto include = parse_include_object(r.param("includeObject") ? *r.param("includeObject") : std::string());
    if (!include) return status_response(400, "BadRequest", "unrecognized includeObject value");
    w->include = *include;
  }
  std::int64_t timeout = kDefaultWatchTimeoutSeconds;
  if (const std::string* ts = r.param("timeoutSeconds")) timeout = parse_int(*ts).value_or(timeout);
  const auto now = std::chrono::steady_clock::now();
  if (!options_.wall_clock_watch_timers) {
    timeout = std::numeric_limits<std::int32_t>::max();  // about 68 years: never in a run
    w->bookmarks = false;
  }
  w->deadline = now + std::chrono::seconds(timeout);
  w->next_bookmark = std::min(now + kBookmarkFrequency, w->deadline - kBookmarkBeforeDeadline);
  watches_.push_back(w);
  *watch = std::move(w);
  // The apiserver's watch media type (endpoints/handlers/watch.go); it also keeps the
  // HTTP layer from compressing (and so buffering) the stream.
  return ApiResponse{200, {}, "application/json;stream=watch"};
}

bool ApiServer::watches_delivered() {
  if (watch_writes_.load() != 0) return false;
  std::erase_if(watches_, [](const std::weak_ptr<Watch>& w) { return w.expired(); });
  const std::size_t end = hold_ ? visible_end_ : cache_.end_index();
  for (const auto& weak : watches_)
    if (const auto w = weak.lock(); w && (w->send_initial || w->cursor < end)) return false;
  return true;
}

bool ApiServer::poll_watch(Watch& w, std::string& out, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  const ResourceInfo& info = served_resources()[w.resource];
  const auto sim_now_unix = [&] { return time_.epoch_unix_micros + sim_.now().micros(); };
  auto emit = [&](const char* type, const Snapshot& s, const std::string* text) {
    if (w.resource == pods_resource_ && s.model_id < external_state_.size() && external_state_[s.model_id] == 1) {
      auto& delivered = delivered_at_[s.model_id];
      if (delivered.time_since_epoch().count() == 0) delivered = std::chrono::steady_clock::now();
    }
    out += R"({"type":")";
    out += type;
    out += R"(","object":)";
    if (w.table) {
      out += to_table_row_object(info.plural, s.object, sim_now_unix(), w.include, w.first_event).dump();
      w.first_event = false;
    } else {
      out += text ? *text : s.text;
    }
    out += "}\n";
  };
  auto in_namespace = [&](const Snapshot& s) {
    return w.ns.empty() || (s.key.size() > w.ns.size() && s.key.compare(0, w.ns.size(), w.ns) == 0 && s.key[w.ns.size()] == '/');
  };
  auto drain = [&] {
    if (w.send_initial) {
      w.send_initial = false;
      w.cursor = cache_.end_index();
      for (const auto& [key, snap] : cache_.live(w.resource))
        if (in_namespace(*snap) && w.selection.matches(snap->object)) emit("ADDED", *snap, nullptr);
    }
    for (const std::size_t end = hold_ ? visible_end_ : cache_.end_index(); w.cursor < end; ++w.cursor) {
      const LoggedEvent& e = cache_.at(w.cursor);
      if (e.resource != w.resource || !in_namespace(*e.object)) continue;
      // cacher.go convertToWatchEvent: filter the new and the previous state; an object that
      // stops matching is DELETED (with its previous content), one that starts is ADDED.
      const bool current = e.type != WatchEventType::kDeleted && w.selection.matches(e.object->object);
      const bool previous = e.previous && w.selection.matches(e.previous->object);
      if (e.type == WatchEventType::kDeleted) {
        if (previous || w.selection.matches(e.object->object)) emit("DELETED", *e.object, nullptr);
      } else if (current) {
        emit(previous ? "MODIFIED" : "ADDED", *e.object, nullptr);
      } else if (previous) {
        Json old = e.previous->object;
        old["metadata"]["resourceVersion"] = std::to_string(e.resource_version);
        Snapshot s{std::move(old), {}, e.object->key, e.resource_version, e.object->model_id};
        s.text = s.object.dump();
        emit("DELETED", s, nullptr);
      }
    }
  };
  drain();
  // Events handed out count as undelivered until the HTTP layer has written them.
  if (!out.empty()) {
    ++watch_writes_;
    return true;
  }
  if (stopping_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now >= w.deadline) return false;
  if (w.bookmarks && now >= w.next_bookmark) {
    const Json bookmark = {{"kind", info.kind}, {"apiVersion", info.api_version()},
                           {"metadata", {{"resourceVersion", std::to_string(cache_.latest_resource_version())},
                                         {"annotations", {{"k8s.io/initial-events-end", "true"}}}}}};
    Snapshot s{bookmark, bookmark.dump(), {}, 0, UINT32_MAX};
    emit("BOOKMARK", s, nullptr);
    w.next_bookmark = std::min(now + kBookmarkFrequency, w.deadline - kBookmarkBeforeDeadline);
    if (w.next_bookmark <= now) w.next_bookmark = w.deadline;
    ++watch_writes_;
    return true;
  }
  auto until = now + wait;
  if (w.bookmarks) until = std::min(until, w.next_bookmark);
  until = std::min(until, w.deadline);
  events_cv_.wait_until(lock, until);
  drain();
  if (!out.empty()) ++watch_writes_;
  return !stopping_ || !out.empty();
}

// ---- Writes ----------------------------------------------------------------------------

ApiResponse ApiServer::create(const Target& t, const ApiRequest& r) {
  Json body = parse_body(r.body);
  if (!body.is_object()) return status_response(400, "BadRequest", "the body of the request must be a JSON object");
  // The endpoint's kind fills a body that leaves it out (the apiserver decodes with the
  // endpoint's GroupVersionKind as default).
  if (!body.contains("kind")) body["kind"] = t.info().kind;
  if (!body.contains("apiVersion")) body["apiVersion"] = t.info().api_version();
  if (body["kind"] != t.info().kind)
    return status_response(400, "BadRequest", "the kind of the object (" + json_string_of(body["kind"]) + ") does not match the resource (" + std::string(t.info().plural) + ")");
  Json& meta = body["metadata"];
  if (!meta.is_object()) meta = Json::object();
  if (t.info().namespaced) {
    const std::string ns = json_string_of(meta.value("namespace", Json()));
    if (!ns.empty() && ns != t.ns)
      return status_response(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request");
    meta["namespace"] = t.ns;
    const auto ns_id = sim_.store().find_namespace(t.ns);
    if (!ns_id || sim_.store().namespace_(*ns_id).deleted)
      return status_response(404, "NotFound", "namespaces \"" + t.ns + "\" not found", t.ns, "namespaces");
  }
  std::string name = json_string_of(meta.value("name", Json()));
  if (name.empty()) {
    const std::string base = json_string_of(meta.value("generateName", Json()));
    if (base.empty())
      return status_response(422, "Invalid", std::string(t.info().kind) + " \"\" is invalid: metadata.name: Required value: name or generateName is required", "", t.info().plural);
    do {
      name = generate_name(base);
    } while (cache_.find(t.resource, key_of(t, name)));
    meta["name"] = name;
  }
  if (cache_.find(t.resource, key_of(t, name)))
    return status_response(409, "AlreadyExists", std::string(t.info().plural) + " \"" + name + "\" already exists", name, t.info().plural, t.info().group);
  meta.erase("resourceVersion");
  meta.erase("uid");
  // dryRun=All (kubectl apply --dry-run=server): the same decoding and validation as a
  // create, nothing stored, the object answered as the request gave it.
  const std::string* dry = r.param("dryRun");
  if (dry && *dry == "All") {
    try {
      switch (t.info().backend) {
        case Backend::kPod:
        case Backend::kJob: parse_pod_or_job(body, t.info().kind, t.ns, sim_.store().resource_names()); break;
        case Backend::kNamespace: parse_namespace(body); break;
        case Backend::kNode: parse_node(body, sim_.store().resource_names()); break;
        case Backend::kQuota: parse_quota(body, t.ns, sim_.store().resource_names()); break;
        case Backend::kGeneric: break;
      }
    } catch (const InputError& e) {
      return status_response(422, "Invalid", std::string(t.info().kind) + " \"" + name + "\" is invalid: " + e.problem(), name, t.info().plural);
    }
    return json_response(201, body);
  }
  try {
    switch (t.info().backend) {
      case Backend::kPod:
      case Backend::kJob: return create_pod_or_job(t, std::move(body));
      case Backend::kNamespace: {
        parse_namespace(body);
        sim_.ensure_namespace(name);
        break;
      }
      case Backend::kNode: {
        Node node = parse_node(body, sim_.store().resource_names());
        Json original = body;
        original.erase("status");
        const std::uint32_t next = static_cast<std::uint32_t>(sim_.store().node_count());
        node_originals_[next] = std::move(original);
        sim_.store().create_node(std::move(node));
        break;
      }
      case Backend::kQuota: {
        ParsedQuota q = parse_quota(body, t.ns, sim_.store().resource_names());
        q.quota.ns = *sim_.store().find_namespace(t.ns);
        sim_.store().create_quota(std::move(q.quota));
        break;
      }
      case Backend::kGeneric: return create_generic(t, std::move(body));
    }
  } catch (const InputError& e) {
    return status_response(422, "Invalid", std::string(t.info().kind) + " \"" + name + "\" is invalid: " + e.problem(), name, t.info().plural, t.info().group);
  }
  return ApiResponse{201, cache_.find(t.resource, key_of(t, name))->text, "application/json"};
}

ApiResponse ApiServer::create_pod_or_job(const Target& t, Json body) {
  const std::string name = body["metadata"]["name"].get<std::string>();
  ParsedJob parsed = parse_pod_or_job(body, t.info().kind, t.ns, sim_.store().resource_names());
  WorkloadJob job = std::move(parsed.job.job);
  job.ns = *sim_.store().find_namespace(t.ns);
  job.name = name;
  // The object as created keeps the fields kubesim does not model. It is filed under the
  // index the new object will get, so that its ADDED event already carries them.
  body.erase("status");
  const bool is_job = t.info().backend == Backend::kJob;
  auto& originals = is_job ? job_originals_ : pod_originals_;
  const auto index = static_cast<std::uint32_t>(is_job ? sim_.store().job_count() : sim_.store().pod_count());
  originals[index] = std::move(body);
  auto created = sim_.create_from_api(std::move(job), std::move(parsed.job.spec));
  if (auto* refused = std::get_if<std::string>(&created)) {
    originals.erase(index);
    // ResourceQuota's message names the pod already; the priority admission's does not.
    const std::string prefix = std::string(t.info().plural) + " \"" + name + "\" is forbidden: ";
    return status_response(403, "Forbidden", refused->rfind(prefix, 0) == 0 ? *refused : prefix + *refused, name,
                           t.info().plural, t.info().group);
  }
  return ApiResponse{201, cache_.find(t.resource, key_of(t, name))->text, "application/json"};
}

ApiResponse ApiServer::create_generic(const Target& t, Json body) {
  const std::string name = body["metadata"]["name"].get<std::string>();
  if (t.resource == priority_classes_resource_) {
    sim_.store().add_priority_class(parse_priority_class(body));
  } else if (t.resource == pdbs_resource_) {
    ParsedPdb p = parse_pdb(body, t.ns);
    p.pdb.ns = *sim_.store().find_namespace(t.ns);
    sim_.store().add_pod_disruption_budget(std::move(p.pdb));
  }
  Json& meta = body["metadata"];
  meta["uid"] = object_uid(t.info().kind, generic_uid_++);
  meta["creationTimestamp"] = time_.time(sim_.now());
  meta["resourceVersion"] = std::to_string(sim_.store().next_resource_version());
  record(t.resource, WatchEventType::kAdded, std::move(body));
  return ApiResponse{201, cache_.find(t.resource, key_of(t, name))->text, "application/json"};
}

ApiResponse ApiServer::patch(const Target& t, const ApiRequest& r) {
  const SnapshotPtr current = cache_.find(t.resource, key_of(t, t.name));
  if (!current) return status_response(404, "NotFound", std::string(t.info().plural) + " \"" + t.name + "\" not found", t.name, t.info().plural, t.info().group);
  enum class PatchType { kJson, kMerge, kStrategic };
  PatchType type;
  const std::string& ct = r.content_type;
  if (ct.rfind("application/json-patch+json", 0) == 0) {
    type = PatchType::kJson;
  } else if (ct.rfind("application/merge-patch+json", 0) == 0) {
    type = PatchType::kMerge;
  } else if (ct.rfind("application/strategic-merge-patch+json", 0) == 0 || ct.rfind("application/apply-patch+yaml", 0) == 0) {
    // Server-side apply is approximated by a strategic merge of the applied fields (the
    // scheduler applies only the DisruptionTarget condition, which merges by type).
    type = PatchType::kStrategic;
  } else {
    return status_response(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json");
  }
  const Json body = parse_body(r.body);
  Json patched = type == PatchType::kJson    ? json_patch(current->object, body)
                 : type == PatchType::kMerge ? merge_patch(current->object, body)
                                             : strategic_merge_patch(current->object, body);
  return replace(t, r, std::move(patched));
}

ApiResponse ApiServer::replace(const Target& t, const ApiRequest&, Json updated) {
  const SnapshotPtr current = cache_.find(t.resource, key_of(t, t.name));
  if (!current) return status_response(404, "NotFound", std::string(t.info().plural) + " \"" + t.name + "\" not found", t.name, t.info().plural, t.info().group);
  if (!updated.is_object()) return status_response(400, "BadRequest", "the body of the request must be a JSON object");
  Json& meta = updated["metadata"];
  if (!meta.is_object()) meta = Json::object();
  const std::string rv = json_string_of(meta.value("resourceVersion", Json()));
  if (!rv.empty() && rv != string_at(current->object, "metadata", "resourceVersion"))
    return status_response(409, "Conflict", "Operation cannot be fulfilled on " + std::string(t.info().plural) +
                                                (t.info().group.empty() ? "" : "." + std::string(t.info().group)) + " \"" + t.name +
                                                "\": the object has been modified; please apply your changes to the latest version and try again",
                           t.name, t.info().plural, t.info().group);
  const std::string body_name = json_string_of(meta.value("name", Json()));
  if (!body_name.empty() && body_name != t.name)
    return status_response(400, "BadRequest", "the name of the object (" + body_name + ") does not match the name on the URL (" + t.name + ")");
  const std::uint32_t id = current->model_id;
  ObjectStore& store = sim_.store();
  switch (t.info().backend) {
    case Backend::kPod: {
      const PodId pod(id);
      if (t.sub == "status") return update_pod_status(t, updated);
      // Pods are immutable but for metadata (pkg/apis/core/validation ValidatePodUpdate).
      keep_metadata(pod_originals_, id, *current, updated);
      store.update_pod(pod, [](Pod&) {});
      break;
    }
    case Backend::kJob: {
      const JobId job(id);
      keep_metadata(job_originals_, id, *current, updated);
      store.update_job(job, [](Job&) {});
      break;
    }
    case Backend::kNode: {
      const NodeId node(id);
      Node parsed;
      try {
        parsed = parse_node(updated, store.resource_names());
      } catch (const InputError& e) {
        return status_response(422, "Invalid", "Node \"" + t.name + "\" is invalid: " + e.problem(), t.name, "nodes");
      }
      Json original = updated;
      original.erase("status");
      node_originals_[node.value()] = std::move(original);
      store.update_node(node, [&](Node& n) {
        n.labels = std::move(parsed.labels);
        n.taints = std::move(parsed.taints);
        n.unschedulable = parsed.unschedulable;
      });
      break;
    }
    case Backend::kQuota: {
      ParsedQuota q;
      try {
        q = parse_quota(updated, t.ns, store.resource_names());
      } catch (const InputError& e) {
        return status_response(422, "Invalid", "ResourceQuota \"" + t.name + "\" is invalid: " + e.problem(), t.name, "resourcequotas");
      }
      const QuotaId quota(id);
      store.update_quota(quota, [&](ResourceQuota& existing) {
        // spec.hard changes; status.used is kept for the names that stay.
        for (auto& item : q.quota.items)
          for (const auto& old : existing.items)
            if (old.name == item.name) item.used = old.used;
        existing.items = std::move(q.quota.items);
      });
      break;
    }
    case Backend::kNamespace: break;  // nothing a client may change is modelled
    case Backend::kGeneric: return replace_generic(t, current, std::move(updated));
  }
  return ApiResponse{200, cache_.find(t.resource, key_of(t, t.name))->text, "application/json"};
}

ApiResponse ApiServer::update_pod_status(const Target& t, const Json& updated) {
  ObjectStore& store = sim_.store();
  const PodId pod(cache_.find(t.resource, key_of(t, t.name))->model_id);
  // What a scheduler writes: PodScheduled=False/Unschedulable with its message
  // (schedule_one.go updatePod), status.nominatedNodeName, and DisruptionTarget on a victim.
  std::string unschedulable = store.pod(pod).unschedulable_message;
  NodeId nominated = store.pod(pod).nominated_node;
  const Json status = updated.value("status", Json::object());
  for (const auto& c : status.value("conditions", Json::array())) {
    const std::string type = json_string_of(c.value("type", Json()));
    const std::string value = json_string_of(c.value("status", Json()));
    if (type == "PodScheduled" && value == "False") unschedulable = json_string_of(c.value("message", Json()));
    if (type == "PodScheduled" && value == "False" && unschedulable.empty()) unschedulable = json_string_of(c.value("reason", Json()));
    if (type == "DisruptionTarget" && value == "True")
      disruption_marks_[pod.value()] = disruption_reason_named(json_string_of(c.value("reason", Json())));
  }
  if (const auto it = status.find("nominatedNodeName"); it != status.end()) {
    const std::string name = json_string_of(*it);
    const SnapshotPtr node = name.empty() ? nullptr : cache_.find(nodes_resource_, name);
    nominated = node ? NodeId(node->model_id) : NodeId();
  }
  const Pod& p = store.pod(pod);
  if (p.unschedulable_message != unschedulable || p.nominated_node != nominated) {
    store.update_pod(pod, [&](Pod& x) {
      x.unschedulable_message = unschedulable;
      x.nominated_node = nominated;
    });
  }
  return ApiResponse{200, cache_.find(t.resource, key_of(t, t.name))->text, "application/json"};
}

ApiResponse ApiServer::replace_generic(const Target& t, const SnapshotPtr& current, Json body) {
  Json& meta = body["metadata"];
  const Json& old = current->object["metadata"];
  meta["name"] = t.name;
  if (t.info().namespaced) meta["namespace"] = t.ns;
  meta["uid"] = old["uid"];
  meta["creationTimestamp"] = old["creationTimestamp"];
  meta["resourceVersion"] = std::to_string(sim_.store().next_resource_version());
  if (!body.contains("apiVersion")) body["apiVersion"] = t.info().api_version();
  if (!body.contains("kind")) body["kind"] = t.info().kind;
  record(t.resource, WatchEventType::kModified, std::move(body));
  return ApiResponse{200, cache_.find(t.resource, key_of(t, t.name))->text, "application/json"};
}

ApiResponse ApiServer::remove(const Target& t, const ApiRequest& r) {
  const SnapshotPtr current = cache_.find(t.resource, key_of(t, t.name));
  if (!current) return status_response(404, "NotFound", std::string(t.info().plural) + " \"" + t.name + "\" not found", t.name, t.info().plural, t.info().group);
  Json options = Json::object();
  if (!r.body.empty()) options = parse_body(r.body);
  if (!options.is_object()) return status_response(400, "BadRequest", "the body of the request must be a DeleteOptions object");
  if (const auto pre = options.find("preconditions"); pre != options.end() && pre->is_object()) {
    const std::string uid = json_string_of(pre->value("uid", Json()));
    if (!uid.empty() && uid != string_at(current->object, "metadata", "uid"))
      return status_response(409, "Conflict", "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + string_at(current->object, "metadata", "uid"), t.name, t.info().plural, t.info().group);
    const std::string rv = json_string_of(pre->value("resourceVersion", Json()));
    if (!rv.empty() && rv != string_at(current->object, "metadata", "resourceVersion"))
      return status_response(409, "Conflict", "Precondition failed: ResourceVersion in precondition: " + rv + ", ResourceVersion in object meta: " + string_at(current->object, "metadata", "resourceVersion"), t.name, t.info().plural, t.info().group);
  }
  ObjectStore& store = sim_.store();
  const auto grace = grace_period(r, options);
  switch (t.info().backend) {
    case Backend::kPod: {
      const PodId pod(current->model_id);
      const Pod& p = store.pod(pod);
      const std::int64_t seconds = grace.value_or(store.spec(p.spec).termination_grace_period_seconds);
      const auto mark = disruption_marks_.find(pod.value());
      store.delete_pod(pod, sim_.now(), Duration::seconds(std::max<std::int64_t>(seconds, 0)),
                       mark == disruption_marks_.end() ? DisruptionReason::kDeletionByUser : mark->second);
      break;
    }
    case Backend::kJob: {
      // batch/v1 Jobs default to orphaning their pods (pkg/registry/batch/job/strategy.go
      // DefaultGarbageCollectionPolicy); kubectl and the Python client send Background.
      const std::string policy = propagation_policy(r, options);
      sim_.delete_job(JobId(current->model_id), policy.empty() || policy == "Orphan");
      break;
    }
    case Backend::kNamespace: sim_.delete_namespace(NamespaceId(current->model_id)); break;
    case Backend::kNode:
    case Backend::kQuota:
      return status_response(405, "MethodNotAllowed", std::string("kubesim cannot delete ") + std::string(t.info().plural) + " (cordon and drain a node instead)");
    case Backend::kGeneric: return remove_generic(t, current);
  }
  const SnapshotPtr after = cache_.find(t.resource, key_of(t, t.name));
  return ApiResponse{200, after ? after->text : current->text, "application/json"};
}

ApiResponse ApiServer::remove_generic(const Target& t, const SnapshotPtr& current) {
  Json last = current->object;
  last["metadata"]["resourceVersion"] = std::to_string(sim_.store().next_resource_version());
  record(t.resource, WatchEventType::kDeleted, last);
  return ApiResponse{200, last.dump(), "application/json"};
}

ApiResponse ApiServer::bind(const Target& t, const ApiRequest& r) {
  const Json body = parse_body(r.body);
  const SnapshotPtr current = cache_.find(t.resource, key_of(t, t.name));
  if (!current) return status_response(404, "NotFound", "pods \"" + t.name + "\" not found", t.name, "pods");
  const PodId pod(current->model_id);
  const std::string uid = body.contains("metadata") ? json_string_of(body["metadata"].value("uid", Json())) : std::string();
  if (!uid.empty() && uid != string_at(current->object, "metadata", "uid"))
    return status_response(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + t.name + "\": Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + string_at(current->object, "metadata", "uid"), t.name, "pods/binding");
  const Json target = body.value("target", Json::object());
  const std::string node_name = json_string_of(target.value("name", Json()));
  const SnapshotPtr node = cache_.find(nodes_resource_, node_name);
  // A node that does not exist is no error: assignPod does not look it up, and the pod
  // garbage collector deletes the pod later (control/pod_gc.hpp).
  const std::string conflict = node ? sim_.bind(pod, NodeId(node->model_id)) : sim_.bind_to_missing_node(pod, node_name);
  if (!conflict.empty()) return status_response(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + t.name + "\": " + conflict, t.name, "pods/binding");
  return success_status(201);
}

ApiResponse ApiServer::evict(const Target& t, const ApiRequest&) {
  ObjectStore& store = sim_.store();
  const SnapshotPtr current = cache_.find(t.resource, key_of(t, t.name));
  if (!current) return status_response(404, "NotFound", "pods \"" + t.name + "\" not found", t.name, "pods");
  const PodId pod(current->model_id);
  const Pod& p = store.pod(pod);
  // pkg/registry/core/pod/storage/eviction.go: a pod covered by a PDB with no disruption
  // left is refused with 429.
  const Labels& labels = store.spec(p.spec).labels;
  for (const auto& pdb : store.pod_disruption_budgets()) {
    if (pdb.ns != p.ns || !pdb.selector.matches(labels)) continue;
    if (disruptions_allowed(store, pdb) <= 0)
      return status_response(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.");
  }
  store.delete_pod(pod, sim_.now(), Duration::seconds(store.spec(p.spec).termination_grace_period_seconds),
                   DisruptionReason::kEvictionByEvictionAPI);
  return success_status(201);
}

}  // namespace kubesim::api

// The ApiServer's core: construction (the objects that exist before serving), the change
// feed from the simulation into the watch cache, and request routing. The handlers live in
// files of their own: reads (api_reads.cpp), watches (watch_stream.cpp), the writes' common
// steps (api_writes.cpp) and each resource family's (pod_handlers.cpp, cluster_handlers.cpp,
// generic_handlers.cpp); request paths and discovery in request_path.*, the cosim
// bookkeeping in cosim_state.*, the pods' Events in pod_events.*. Routing follows
// staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (which verbs each path serves)
// and handlers/rest.go (dryRun).
#include "api/api_server.hpp"

#include <algorithm>

#include "api/api_responses.hpp"
#include "api/patch.hpp"
#include "api/kind_codecs.hpp"
#include "api/request_path.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

const std::string* ApiRequest::param(std::string_view name) const {
  for (const auto& [k, v] : query)
    if (k == name) return &v;
  return nullptr;
}

ApiServer::ApiServer(Simulation& sim, ApiOptions options)
    : sim_(sim),
      options_(std::move(options)),
      time_{options_.epoch_unix_micros},
      resources_(resources_with_registered(sim.store(), resource_names_)),
      cache_(kMaxKinds, options_.watch_log_capacity),  // room for the CRDs' resources
      pod_events_(cache_, time_),
      cosim_(sim),
      name_rng_(options_.seed, "api/generate-name"),
      pods_resource_(resource_index("", "pods")),
      nodes_resource_(resource_index("", "nodes")),
      namespaces_resource_(resource_index("", "namespaces")),
      jobs_resource_(resource_index("batch", "jobs")),
      quotas_resource_(resource_index("", "resourcequotas")),
      priority_classes_resource_(resource_index("scheduling.k8s.io", "priorityclasses")),
      pdbs_resource_(resource_index("policy", "poddisruptionbudgets")),
      crds_resource_(resource_index("apiextensions.k8s.io", "customresourcedefinitions")),
      last_activity_(std::chrono::steady_clock::now()) {
  std::lock_guard<std::mutex> lock(mutex_);
  resources_.reserve(kMaxKinds);  // a resource added by a CRD moves no ResourceInfo
  const ObjectStore& store = sim_.store();
  // The objects that exist before the server starts, in the order they were created.
  for (std::uint32_t i = 0; i < store.namespace_count(); ++i) publish_model(ObjectKind::kNamespace, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.node_count(); ++i) publish_model(ObjectKind::kNode, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.quota_count(); ++i) publish_model(ObjectKind::kQuota, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.job_count(); ++i) publish_model(ObjectKind::kJob, i, ChangeType::kAdded);
  for (std::uint32_t i = 0; i < store.pod_count(); ++i) publish_model(ObjectKind::kPod, i, ChangeType::kAdded);
  const auto& pcs = store.priority_classes();
  for (std::uint32_t i = 0; i < pcs.size(); ++i)
    cache_.record_object(priority_classes_resource_, WatchEventType::kAdded,
           priority_class_to_json(pcs[i], i, sim_.store().next_resource_version(), time_));
  const auto& pdbs = store.pod_disruption_budgets();
  for (std::uint32_t i = 0; i < pdbs.size(); ++i) {
    cache_.record_object(pdbs_resource_, WatchEventType::kAdded,
           pdb_to_json(store, pdbs[i], i, sim_.store().next_resource_version(), PdbStatus{}, time_));
  }
  // Registered kinds: their codecs (the kinds api/ knows), their objects, their changes.
  install_kind_codecs(sim_.store(), time_);
  for (std::size_t r = served_resources().size(); r < resources_.size(); ++r) {
    const ObjectKind kind = resources_[r].registered_kind;
    subscribed_.add(kind);
    resource_of_kind_[static_cast<std::size_t>(kind)] = static_cast<std::uint8_t>(r);
    for (std::uint32_t i = 0; i < store.object_count(kind); ++i)
      if (!store.meta(kind, i).deleted) publish_registered(kind, i, WatchEventType::kAdded);
  }
  sim_.store().add_listener(this, subscribed_);
}

ApiServer::~ApiServer() { sim_.store().remove_listener(this); }

void ApiServer::shutdown() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
  events_cv_.notify_all();
  gate_cv_.notify_all();
}

void ApiServer::touch() {
  last_activity_ = std::chrono::steady_clock::now();
  if (on_activity_) on_activity_();
}

std::string ApiServer::generate_name(const std::string& base) {
  // apiserver's names.SimpleNameGenerator: base + 5 characters of utilrand's alphabet.
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string name = base;
  for (int i = 0; i < 5; ++i) name += kAlphabet[name_rng_.uniform_below(sizeof(kAlphabet) - 1)];
  return name;
}

// ---- The change feed -------------------------------------------------------------------

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
    case ObjectKind::kPod: return publish_pod(PodId(id), type, change);
    case ObjectKind::kNode:
      cache_.record_object(nodes_resource_, type, node_to_json(store, NodeId(id), time_, original_of(node_originals_, id)), id);
      return;
    case ObjectKind::kNamespace:
      cache_.record_object(namespaces_resource_, type, namespace_to_json(store, NamespaceId(id), time_), id);
      return;
    case ObjectKind::kJob:
      cache_.record_object(jobs_resource_, type, job_to_json(store, JobId(id), time_, original_of(job_originals_, id)), id);
      return;
    case ObjectKind::kQuota:
      cache_.record_object(quotas_resource_, type, quota_to_json(store, QuotaId(id), time_), id);
      return;
  }
  publish_registered(kind, id, type);
}

void ApiServer::publish_pod(PodId pod, WatchEventType type, ChangeType change) {
  const ObjectStore& store = sim_.store();
  const std::uint32_t id = pod.value();
  const Pod& p = store.pod(pod);
  if (change == ChangeType::kAdded && p.job.valid() && !pod_originals_.count(id)) {
    // A pod the Job controller created from a client's Job: its template's fields.
    if (const auto job = job_originals_.find(p.job.value()); job != job_originals_.end()) {
      const auto spec = job->second.find("spec");
      if (spec != job->second.end() && spec->contains("template")) {
        Json object = (*spec)["template"];
        object["metadata"]["name"] = p.name;
        object["metadata"]["namespace"] = store.namespace_(p.ns).name;
        pod_originals_.emplace(id, std::move(object));
      }
    }
  }
  const auto original = pod_originals_.find(id);
  cache_.record_object(pods_resource_, type,
                       pod_to_json(store, pod, time_, original == pod_originals_.end() ? nullptr : &original->second), id);
  cosim_.on_pod_change(pod);
  if (!p.deleted) pod_events_.on_pod_change(sim_, pod);
  if (p.deleted) {
    pod_originals_.erase(id);
    disruption_marks_.erase(id);
  }
}

void ApiServer::on_change(const Change& change) {
  // Called synchronously by the store, always under mutex_ (requests and the clock driver
  // touch the simulation only under it).
  publish_model(change.kind, change.id, change.type);
  cosim_.on_change(change);
  touch();
}

// ---- Requests --------------------------------------------------------------------------

bool ApiServer::wait_at_gate(const ApiRequest& request, std::unique_lock<std::mutex>& lock) {
  std::string key = request.method + ' ' + request.path;
  for (const auto& [name, value] : request.query) key += '&' + name + '=' + value;
  key += '\n' + request.body;
  const std::uint64_t ticket = next_gate_ticket_++;
  gated_.push_back({std::move(key), ticket});
  touch();
  gate_cv_.wait(lock, [&] { return stopping_ || (!gate_order_.empty() && gate_order_.front() == ticket); });
  return !stopping_;
}

void ApiServer::open_write_gate() {
  // By key; identical writes keep their arrival order (they act alike).
  const auto by_key = [](const GatedWrite& a, const GatedWrite& b) { return a.key < b.key; };
  if (gate_one_) {
    const auto first = std::min_element(gated_.begin(), gated_.end(), by_key);
    gate_order_.push_back(first->ticket);
    gated_.erase(first);
  } else {
    std::stable_sort(gated_.begin(), gated_.end(), by_key);
    for (const GatedWrite& g : gated_) gate_order_.push_back(g.ticket);
    gated_.clear();
  }
  gate_cv_.notify_all();
}

void ApiServer::stop_gating_writes() {
  gate_writes_ = false;
  for (const GatedWrite& g : gated_) gate_order_.push_back(g.ticket);
  gated_.clear();
  gate_cv_.notify_all();
}

ApiResponse ApiServer::handle(const ApiRequest& request, std::shared_ptr<Watch>* watch) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) return status_response(503, "ServiceUnavailable", "kubesim is shutting down");
  const bool gated = gate_writes_ && (gate_reads_ || request.method != "GET");
  if (gated && !wait_at_gate(request, lock)) return status_response(503, "ServiceUnavailable", "kubesim is shutting down");
  // The next released write acts once this one has (the lock serializes them).
  struct GateTurn {
    ApiServer* server;
    ~GateTurn() {
      if (!server) return;
      server->gate_order_.pop_front();
      server->gate_cv_.notify_all();
    }
  } turn{gated ? this : nullptr};
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
  if (r.method == "GET")
    if (auto doc = discovery_response(resources_, r.path, options_.kubesim_version, options_.server_address))
      return *doc;
  const std::optional<ResourcePath> t = parse_resource_path(resources_, r.path);
  if (!t) return not_found_path();
  const bool has_body = r.method == "POST" || r.method == "PUT" || r.method == "PATCH";
  if (has_body && r.content_type.find("protobuf") != std::string::npos)
    return status_response(415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format - accepted media types include: "
                           "application/json, application/yaml (kubesim serves JSON only: run clients with "
                           "--kube-api-content-type=application/json)");
  if (const std::string* dry = r.param("dryRun"); dry && !dry->empty()) {
    // staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go: "All" is the only value.
    if (*dry != "All") return status_response(400, "BadRequest", "unsupported dry run value \"" + *dry + "\" (expected All)");
    if (r.method != "POST" || !t->sub.empty() || !t->name.empty())
      return status_response(400, "BadRequest", "dryRun is supported by kubesim for create (POST) only");
  }
  return route(*t, r, watch);
}

ApiResponse ApiServer::route(const ResourcePath& t, const ApiRequest& r, std::shared_ptr<Watch>* watch) {
  if (r.method == "GET") {
    if (t.watch_path || (t.name.empty() && query_flag(r, "watch"))) return start_watch(t, r, watch);
    return t.name.empty() ? list(t, r) : get(t, r);
  }
  if (r.method == "POST") {
    if (t.sub == "binding" && t.resource == pods_resource_) return bind(t, r);
    if (t.info().plural == "bindings" && t.name.empty()) return bind_named_in_body(t, r);
    if (t.sub == "eviction" && t.resource == pods_resource_) return evict(t);
    if (!t.name.empty()) return method_not_allowed();
    return create(t, r);
  }
  if (t.name.empty() || (!t.sub.empty() && t.sub != "status")) return method_not_allowed();
  if (r.method == "PUT") return replace(t, parse_body(r.body));
  if (r.method == "PATCH") return patch(t, r);
  if (r.method == "DELETE") return remove(t, r);
  return method_not_allowed();
}

}  // namespace kubesim::api

// Pods and batch/v1 Jobs through the API: create (with the simulation's admission),
// metadata-only updates, the status a scheduler writes, graceful deletion, binding and
// eviction. Follows pkg/registry/core/pod/storage/storage.go (BindingREST, StatusREST),
// pkg/registry/core/pod/storage/eviction.go, pkg/registry/core/pod/strategy.go and
// pkg/registry/batch/job/strategy.go.
#include <algorithm>

#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/request_path.hpp"
#include "control/node_lifecycle.hpp"
#include "core/parse_number.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

namespace {

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

}  // namespace

ApiResponse ApiServer::create_pod_or_job(const ResourcePath& t, Json body) {
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
  return stored(t, name, 201);
}

ApiResponse ApiServer::update_pod(const ResourcePath& t, const SnapshotPtr& current, Json updated) {
  if (t.sub == "status") return update_pod_status(t, updated);
  // Pods are immutable but for metadata (pkg/apis/core/validation ValidatePodUpdate).
  keep_metadata(pod_originals_, current->model_id, *current, updated);
  sim_.store().update_pod(PodId(current->model_id), [](Pod&) {});
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::update_job_status(const ResourcePath& t, const SnapshotPtr& current, const Json& updated) {
  // The status subresource (pkg/registry/batch/job/strategy.go jobStatusStrategy: the spec
  // stays the stored one; the status is the client's). Of the status, kubesim takes from a
  // client only status.startTime, which Kueue's Job.Stop (pkg/controller/jobs/job/
  // job_controller.go, "reset status") clears when it suspends a Job; the Job controller owns
  // the counts and conditions. Written only when it changes (an unchanged update writes
  // nothing: etcd3 GuaranteedUpdate): a startTime that stayed set sent Kueue's Job
  // reconciler round and round (a status patch per reconcile, conflicts on each rewrite).
  const Job& job = sim_.store().job(JobId(current->model_id));
  const Json status = updated.value("status", Json::object());
  const auto start = status.find("startTime");
  SimTime start_time = SimTime::never();
  if (start != status.end() && start->is_string()) {
    const std::string text = start->get<std::string>();
    if (!job.start_time.is_never() && text == time_.time(job.start_time)) {
      start_time = job.start_time;  // metav1.Time has whole seconds: the stored instant stays
    } else if (const auto micros = parse_rfc3339_micros(text)) {
      start_time = time_.from_unix_micros(*micros);
    } else {
      return status_response(422, "Invalid", "Job.batch \"" + t.name + "\" is invalid: status.startTime: Invalid value: \"" +
                             text + "\": not an RFC 3339 time", t.name, t.info().plural, t.info().group);
    }
  }
  if (start_time != job.start_time)
    sim_.store().update_job(JobId(current->model_id), [&](Job& j) { j.start_time = start_time; });
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::update_job(const ResourcePath& t, const SnapshotPtr& current, Json updated) {
  if (t.sub == "status") return update_job_status(t, current, updated);
  // pkg/apis/batch/validation ValidateJobSpecUpdate (v1.26): of the spec, suspend and
  // parallelism may change (e.g. Kueue's startJob/stopJob merge patches); the rest is
  // immutable (the template's scheduling directives of a suspended Job are not modelled).
  const Json& before = current->object["spec"];
  Json& after = updated["spec"];
  const Json* suspend = nullptr;
  const Json* parallelism = nullptr;
  for (const auto& [field, value] : after.items()) {
    if (field == "suspend" && value.is_boolean()) suspend = &value;
    else if (field == "parallelism" && value.is_number_integer() && value.get<std::int64_t>() >= 0) parallelism = &value;
    else if (before.value(field, Json()) != value)
      return status_response(422, "Invalid", "Job.batch \"" + t.name + "\" is invalid: spec." + field +
                             ": Invalid value: field is immutable", t.name, t.info().plural, t.info().group);
  }
  // A patch that changes nothing is not written (same_object): Kueue's Job.Stop patches a
  // stopped Job on every reconcile ("restore info"), and each stored no-op woke it again.
  if (same_object(updated, current->object)) return stored(t, t.name, 200);
  keep_metadata(job_originals_, current->model_id, *current, updated);
  sim_.store().update_job(JobId(current->model_id), [&](Job& j) {
    if (suspend) j.suspend = suspend->get<bool>();
    if (parallelism) j.parallelism = static_cast<std::int32_t>(parallelism->get<std::int64_t>());
  });
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::update_pod_status(const ResourcePath& t, const Json& updated) {
  ObjectStore& store = sim_.store();
  const PodId pod(cache_.find(t.resource, t.key())->model_id);
  // What a scheduler writes: PodScheduled=False/Unschedulable with its message
  // (schedule_one.go updatePod), status.nominatedNodeName, and DisruptionTarget on a victim.
  std::string unschedulable = store.pod(pod).unschedulable_message;
  bool scheduler_error = store.pod(pod).scheduler_error;  // reason SchedulerError
  const Json status = updated.value("status", Json::object());
  for (const auto& c : status.value("conditions", Json::array())) {
    const std::string type = json_string_of(c.value("type", Json()));
    const std::string value = json_string_of(c.value("status", Json()));
    if (type == "PodScheduled" && value == "False") {
      unschedulable = json_string_of(c.value("message", Json()));
      scheduler_error = json_string_of(c.value("reason", Json())) == "SchedulerError";
    }
    if (type == "PodScheduled" && value == "False" && unschedulable.empty()) unschedulable = json_string_of(c.value("reason", Json()));
    if (type == "DisruptionTarget" && value == "True")
      disruption_marks_[pod.value()] = disruption_reason_named(json_string_of(c.value("reason", Json())));
  }
  // `updated` is the whole object after the patch or update: a nominatedNodeName it lacks was
  // cleared, as by the patch {"nominatedNodeName": null} that updatePod sends for a
  // NominatingInfo of "" (schedule_one.go; the preemption Evaluator's "no candidate").
  const auto nnn = status.find("nominatedNodeName");
  const std::string nominated_name = nnn == status.end() ? std::string() : json_string_of(*nnn);
  const SnapshotPtr nominated_node = nominated_name.empty() ? nullptr : cache_.find(nodes_resource_, nominated_name);
  const NodeId nominated = nominated_node ? NodeId(nominated_node->model_id) : NodeId();
  const Pod& p = store.pod(pod);
  if (p.unschedulable_message != unschedulable || p.scheduler_error != scheduler_error || p.nominated_node != nominated) {
    store.update_pod(pod, [&](Pod& x) {
      x.unschedulable_message = unschedulable;
      x.scheduler_error = scheduler_error;
      x.nominated_node = nominated;
    });
  }
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::remove_pod(const ResourcePath& t, const ApiRequest& r, const Json& options,
                                  const SnapshotPtr& current) {
  ObjectStore& store = sim_.store();
  const PodId pod(current->model_id);
  const Pod& p = store.pod(pod);
  const std::int64_t seconds = grace_period(r, options).value_or(store.spec(p.spec).termination_grace_period_seconds);
  const auto mark = disruption_marks_.find(pod.value());
  store.delete_pod(pod, sim_.now(), Duration::seconds(std::max<std::int64_t>(seconds, 0)),
                   mark == disruption_marks_.end() ? DisruptionReason::kDeletionByUser : mark->second);
  return after_delete(t, current);
}

ApiResponse ApiServer::remove_job(const ResourcePath& t, const ApiRequest& r, const Json& options,
                                  const SnapshotPtr& current) {
  // batch/v1 Jobs default to orphaning their pods (pkg/registry/batch/job/strategy.go
  // DefaultGarbageCollectionPolicy); kubectl and the Python client send Background.
  const std::string policy = propagation_policy(r, options);
  sim_.delete_job(JobId(current->model_id), policy.empty() || policy == "Orphan");
  return after_delete(t, current);
}

ApiResponse ApiServer::bind(const ResourcePath& t, const ApiRequest& r) {
  const Json body = parse_body(r.body);
  const SnapshotPtr current = cache_.find(t.resource, t.key());
  if (!current) return status_response(404, "NotFound", "pods \"" + t.name + "\" not found", t.name, "pods");
  const PodId pod(current->model_id);
  const std::string uid = body.contains("metadata") ? json_string_of(body["metadata"].value("uid", Json())) : std::string();
  if (!uid.empty() && uid != string_at(current->object, "metadata", "uid"))
    return status_response(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + t.name + "\": Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + string_at(current->object, "metadata", "uid"), t.name, "pods/binding");
  const Json target = body.value("target", Json::object());
  const std::string node_name = json_string_of(target.value("name", Json()));
  // pkg/apis/core/validation/validation.go ValidatePodBinding, which BindingREST.Create
  // (pkg/registry/core/pod/storage/storage.go) runs first: the target is a Node, named.
  const std::string kind = target.is_object() ? json_string_of(target.value("kind", Json())) : std::string();
  std::string invalid;
  if (!kind.empty() && kind != "Node")
    invalid = "target.kind: Unsupported value: \"" + kind + "\": supported values: \"Node\", \"<empty>\"";
  if (node_name.empty()) invalid += (invalid.empty() ? "" : ", ") + std::string("target.name: Required value");
  if (!invalid.empty())
    return status_response(422, "Invalid", "Binding \"" + t.name + "\" is invalid: " + invalid, t.name, "Binding");
  const SnapshotPtr node = cache_.find(nodes_resource_, node_name);
  // A node that does not exist is no error: assignPod does not look it up, and the pod
  // garbage collector deletes the pod later (control/pod_gc.hpp).
  const std::string conflict = node ? sim_.bind(pod, NodeId(node->model_id)) : sim_.bind_to_missing_node(pod, node_name);
  if (!conflict.empty()) return status_response(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + t.name + "\": " + conflict, t.name, "pods/binding");
  return success_status(201);
}

ApiResponse ApiServer::bind_named_in_body(const ResourcePath& t, const ApiRequest& r) {
  // POST namespaces/NS/bindings (BindingREST, what CoreV1Api.create_namespaced_binding
  // calls): the pod is named by the body's metadata.name.
  ResourcePath pod = t;
  pod.resource = pods_resource_;
  const Json body = parse_body(r.body);
  pod.name = body.contains("metadata") ? json_string_of(body["metadata"].value("name", Json())) : std::string();
  return bind(pod, r);
}

ApiResponse ApiServer::evict(const ResourcePath& t) {
  ObjectStore& store = sim_.store();
  const SnapshotPtr current = cache_.find(t.resource, t.key());
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

// Writes: the steps of create, update, patch and delete that are the same for every
// resource (the body's kind and namespace, generateName, AlreadyExists, resourceVersion and
// name checks, the three patch types, DeleteOptions and preconditions, dryRun), then each
// resource family's own step from a table by backend. Follows
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go, patch.go and
// delete.go, and the generic store (apiserver/pkg/registry/generic/registry/store.go) whose
// per-resource strategies the handlers of pod_handlers.cpp, cluster_handlers.cpp and
// generic_handlers.cpp stand for.
#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/patch.hpp"
#include "api/request_path.hpp"
#include "core/error.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

namespace {
// The largest object stored: kube-apiserver's request body limit (3 MiB), which a patch may
// not exceed either.
constexpr std::size_t kMaxObjectBytes = 3 * 1024 * 1024;
}  // namespace

struct ApiServer::BackendHandlers {
  // dryRun=All: the decoding and validation of a create, nothing stored (throws InputError).
  void (*validate)(const Json& body, const ResourcePath& t, ObjectStore& store);
  ApiResponse (ApiServer::*create)(const ResourcePath& t, Json body);
  ApiResponse (ApiServer::*update)(const ResourcePath& t, const SnapshotPtr& current, Json updated);
  ApiResponse (ApiServer::*remove)(const ResourcePath& t, const ApiRequest& r, const Json& options,
                                   const SnapshotPtr& current);
};

const ApiServer::BackendHandlers& ApiServer::handlers_of(Backend backend) {
  static const BackendHandlers kPod{
      [](const Json& body, const ResourcePath& t, ObjectStore& store) {
        parse_pod_or_job(body, t.info().kind, t.ns, store.resource_names());
      },
      &ApiServer::create_pod_or_job, &ApiServer::update_pod, &ApiServer::remove_pod};
  static const BackendHandlers kJob{kPod.validate, &ApiServer::create_pod_or_job, &ApiServer::update_job,
                                    &ApiServer::remove_job};
  static const BackendHandlers kNamespace{
      [](const Json& body, const ResourcePath&, ObjectStore&) { parse_namespace(body); },
      &ApiServer::create_namespace, &ApiServer::update_namespace, &ApiServer::remove_namespace};
  static const BackendHandlers kNode{
      [](const Json& body, const ResourcePath&, ObjectStore& store) { parse_node(body, store.resource_names()); },
      &ApiServer::create_node, &ApiServer::update_node, &ApiServer::remove_refused};
  static const BackendHandlers kQuota{
      [](const Json& body, const ResourcePath& t, ObjectStore& store) {
        parse_quota(body, t.ns, store.resource_names());
      },
      &ApiServer::create_quota, &ApiServer::update_quota, &ApiServer::remove_refused};
  static const BackendHandlers kGeneric{[](const Json&, const ResourcePath&, ObjectStore&) {},
                                        &ApiServer::create_generic, &ApiServer::replace_generic,
                                        &ApiServer::remove_generic};
  static const BackendHandlers kRegistered{[](const Json&, const ResourcePath&, ObjectStore&) {},
                                           &ApiServer::create_registered, &ApiServer::update_registered,
                                           &ApiServer::remove_registered};
  static const BackendHandlers kCrd{[](const Json&, const ResourcePath&, ObjectStore&) {}, &ApiServer::create_crd,
                                    &ApiServer::update_crd, &ApiServer::remove_crd};
  switch (backend) {
    case Backend::kCrd: return kCrd;
    case Backend::kRegistered: return kRegistered;
    case Backend::kPod: return kPod;
    case Backend::kJob: return kJob;
    case Backend::kNamespace: return kNamespace;
    case Backend::kNode: return kNode;
    case Backend::kQuota: return kQuota;
    case Backend::kGeneric: break;
  }
  return kGeneric;
}

ApiResponse ApiServer::stored(const ResourcePath& t, const std::string& name, int status) const {
  return ApiResponse{status, cache_.find(t.resource, t.key_of(name))->text, "application/json"};
}

ApiResponse ApiServer::after_delete(const ResourcePath& t, const SnapshotPtr& current) const {
  // A graceful deletion answers the object as it is now (deletionTimestamp set); one that
  // removed it at once answers its last state.
  const SnapshotPtr after = cache_.find(t.resource, t.key());
  return ApiResponse{200, after ? after->text : current->text, "application/json"};
}

ApiResponse ApiServer::create(const ResourcePath& t, const ApiRequest& r) {
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
    } while (cache_.find(t.resource, t.key_of(name)));
    meta["name"] = name;
  }
  if (cache_.find(t.resource, t.key_of(name)))
    return status_response(409, "AlreadyExists", std::string(t.info().plural) + " \"" + name + "\" already exists", name, t.info().plural, t.info().group);
  meta.erase("resourceVersion");
  meta.erase("uid");
  if (const std::string* dry = r.param("dryRun"); dry && *dry == "All") return create_dry_run(t, body);
  try {
    return (this->*handlers_of(t.info().backend).create)(t, std::move(body));
  } catch (const InputError& e) {
    return status_response(422, "Invalid", std::string(t.info().kind) + " \"" + name + "\" is invalid: " + e.problem(), name, t.info().plural, t.info().group);
  }
}

ApiResponse ApiServer::create_dry_run(const ResourcePath& t, const Json& body) {
  // kubectl apply --dry-run=server: the object answered as the request gave it.
  try {
    handlers_of(t.info().backend).validate(body, t, sim_.store());
  } catch (const InputError& e) {
    const std::string name = body["metadata"]["name"].get<std::string>();
    return status_response(422, "Invalid", std::string(t.info().kind) + " \"" + name + "\" is invalid: " + e.problem(), name, t.info().plural);
  }
  return json_response(201, body);
}

ApiResponse ApiServer::patch(const ResourcePath& t, const ApiRequest& r) {
  const SnapshotPtr current = cache_.find(t.resource, t.key());
  if (!current) return object_not_found(t.info(), t.name);
  enum class PatchType { kJson, kMerge, kStrategic };
  PatchType type;
  const std::string& ct = r.content_type;
  if (ct.rfind("application/json-patch+json", 0) == 0) {
    type = PatchType::kJson;
  } else if (ct.rfind("application/merge-patch+json", 0) == 0) {
    type = PatchType::kMerge;
  } else if (t.info().backend == Backend::kRegistered && ct.rfind("application/strategic-merge-patch+json", 0) == 0) {
    // Custom resources have no patch strategy (apiextensions-apiserver's
    // customresource_handler.go lists no strategic merge among their patch types).
    return status_response(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  } else if (t.info().backend == Backend::kRegistered && ct.rfind("application/apply-patch+yaml", 0) == 0) {
    type = PatchType::kMerge;  // server-side apply of a custom object: a merge of the applied fields
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
  // A body is at most 3 MiB (the HTTP layer); a patch could still grow an object without
  // bound. etcd refuses a request over its --max-request-bytes, which kube-apiserver answers
  // 413 (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go, "request is too large").
  if (patched.dump().size() > kMaxObjectBytes)
    return status_response(413, "RequestEntityTooLarge", "etcdserver: request is too large");
  return replace(t, std::move(patched));
}

ApiResponse ApiServer::replace(const ResourcePath& t, Json updated) {
  const SnapshotPtr current = cache_.find(t.resource, t.key());
  if (!current) return object_not_found(t.info(), t.name);
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
  return (this->*handlers_of(t.info().backend).update)(t, current, std::move(updated));
}

namespace {

// DeleteOptions.preconditions (store.go Delete, checkPreconditions): 409 Conflict when the
// uid or the resourceVersion named differs from the stored object's.
std::optional<ApiResponse> failed_precondition(const ResourcePath& t, const Json& options, const Snapshot& current) {
  const auto pre = options.find("preconditions");
  if (pre == options.end() || !pre->is_object()) return std::nullopt;
  const std::string& current_uid = string_at(current.object, "metadata", "uid");
  const std::string uid = json_string_of(pre->value("uid", Json()));
  if (!uid.empty() && uid != current_uid)
    return status_response(409, "Conflict", "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + current_uid, t.name, t.info().plural, t.info().group);
  const std::string& current_rv = string_at(current.object, "metadata", "resourceVersion");
  const std::string rv = json_string_of(pre->value("resourceVersion", Json()));
  if (!rv.empty() && rv != current_rv)
    return status_response(409, "Conflict", "Precondition failed: ResourceVersion in precondition: " + rv + ", ResourceVersion in object meta: " + current_rv, t.name, t.info().plural, t.info().group);
  return std::nullopt;
}

}  // namespace

ApiResponse ApiServer::remove(const ResourcePath& t, const ApiRequest& r) {
  const SnapshotPtr current = cache_.find(t.resource, t.key());
  if (!current) return object_not_found(t.info(), t.name);
  Json options = Json::object();
  if (!r.body.empty()) options = parse_body(r.body);
  if (!options.is_object()) return status_response(400, "BadRequest", "the body of the request must be a DeleteOptions object");
  if (auto refused = failed_precondition(t, options, *current)) return *refused;
  return (this->*handlers_of(t.info().backend).remove)(t, r, options, current);
}

}  // namespace kubesim::api

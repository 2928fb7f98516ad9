// Resources kubesim stores as JSON only (Events, Leases, Services, ...): create, replace and
// delete keep the object as the client wrote it, with the metadata the apiserver sets (uid,
// creationTimestamp, resourceVersion), as the generic registry store does
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go, rest.BeforeCreate /
// BeforeUpdate fill metadata). PriorityClasses and PodDisruptionBudgets are also mirrored
// into the simulation when created (pkg/registry/scheduling/priorityclass,
// pkg/registry/policy/poddisruptionbudget).
#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/request_path.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

ApiResponse ApiServer::create_generic(const ResourcePath& t, Json body) {
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
  cache_.record_object(t.resource, WatchEventType::kAdded, std::move(body));
  return stored(t, name, 201);
}

ApiResponse ApiServer::replace_generic(const ResourcePath& t, const SnapshotPtr& current, Json body) {
  Json& meta = body["metadata"];
  const Json& old = current->object["metadata"];
  meta["name"] = t.name;
  if (t.info().namespaced) meta["namespace"] = t.ns;
  meta["uid"] = old["uid"];
  meta["creationTimestamp"] = old["creationTimestamp"];
  meta["resourceVersion"] = std::to_string(sim_.store().next_resource_version());
  if (!body.contains("apiVersion")) body["apiVersion"] = t.info().api_version();
  if (!body.contains("kind")) body["kind"] = t.info().kind;
  cache_.record_object(t.resource, WatchEventType::kModified, std::move(body));
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::remove_generic(const ResourcePath& t, const ApiRequest&, const Json&, const SnapshotPtr& current) {
  Json last = current->object;
  last["metadata"]["resourceVersion"] = std::to_string(sim_.store().next_resource_version());
  cache_.record_object(t.resource, WatchEventType::kDeleted, last);
  return ApiResponse{200, last.dump(), "application/json"};
}

}  // namespace kubesim::api

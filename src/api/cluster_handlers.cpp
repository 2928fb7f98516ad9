// Nodes, namespaces and ResourceQuotas through the API: create, and the updates kubesim
// models (a node's labels, taints and unschedulable flag; a quota's spec.hard). Deleting a
// namespace deletes its objects (the namespace controller's work, done by the simulation);
// nodes and quotas are not deleted through the API. Follows pkg/registry/core/node/strategy.go,
// pkg/registry/core/namespace/storage/storage.go and pkg/registry/core/resourcequota/strategy.go
// (an update keeps status.used).
#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/request_path.hpp"
#include "core/error.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

ApiResponse ApiServer::create_node(const ResourcePath& t, Json body) {
  const std::string name = body["metadata"]["name"].get<std::string>();
  Node node = parse_node(body, sim_.store().resource_names());
  body.erase("status");
  const std::uint32_t next = static_cast<std::uint32_t>(sim_.store().node_count());
  node_originals_[next] = std::move(body);
  sim_.store().create_node(std::move(node));
  return stored(t, name, 201);
}

ApiResponse ApiServer::create_namespace(const ResourcePath& t, Json body) {
  const std::string name = body["metadata"]["name"].get<std::string>();
  parse_namespace(body);
  sim_.ensure_namespace(name);
  return stored(t, name, 201);
}

ApiResponse ApiServer::create_quota(const ResourcePath& t, Json body) {
  const std::string name = body["metadata"]["name"].get<std::string>();
  ParsedQuota q = parse_quota(body, t.ns, sim_.store().resource_names());
  q.quota.ns = *sim_.store().find_namespace(t.ns);
  sim_.store().create_quota(std::move(q.quota));
  return stored(t, name, 201);
}

namespace {

ApiResponse invalid(const ResourcePath& t, const InputError& e) {
  return status_response(422, "Invalid", std::string(t.info().kind) + " \"" + t.name + "\" is invalid: " + e.problem(),
                         t.name, t.info().plural);
}

}  // namespace

ApiResponse ApiServer::update_node(const ResourcePath& t, const SnapshotPtr& current, Json updated) {
  ObjectStore& store = sim_.store();
  const NodeId node(current->model_id);
  Node parsed;
  try {
    parsed = parse_node(updated, store.resource_names());
  } catch (const InputError& e) {
    return invalid(t, e);
  }
  updated.erase("status");
  node_originals_[node.value()] = std::move(updated);
  store.update_node(node, [&](Node& n) {
    n.labels = std::move(parsed.labels);
    n.taints = std::move(parsed.taints);
    n.unschedulable = parsed.unschedulable;
  });
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::update_namespace(const ResourcePath& t, const SnapshotPtr&, Json) {
  return stored(t, t.name, 200);  // nothing a client may change is modelled
}

ApiResponse ApiServer::update_quota(const ResourcePath& t, const SnapshotPtr& current, Json updated) {
  ObjectStore& store = sim_.store();
  ParsedQuota q;
  try {
    q = parse_quota(updated, t.ns, store.resource_names());
  } catch (const InputError& e) {
    return invalid(t, e);
  }
  store.update_quota(QuotaId(current->model_id), [&](ResourceQuota& existing) {
    // spec.hard changes; status.used is kept for the names that stay.
    for (auto& item : q.quota.items)
      for (const auto& old : existing.items)
        if (old.name == item.name) item.used = old.used;
    existing.items = std::move(q.quota.items);
  });
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::remove_namespace(const ResourcePath& t, const ApiRequest&, const Json&,
                                        const SnapshotPtr& current) {
  sim_.delete_namespace(NamespaceId(current->model_id));
  return after_delete(t, current);
}

ApiResponse ApiServer::remove_refused(const ResourcePath& t, const ApiRequest&, const Json&, const SnapshotPtr&) {
  return status_response(405, "MethodNotAllowed", std::string("kubesim cannot delete ") + std::string(t.info().plural) +
                                                      " (cordon and drain a node instead)");
}

}  // namespace kubesim::api

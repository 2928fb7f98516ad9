// The kinds registered in the store (model/kind_registry.hpp: a typed kind such as
// scheduling.x-k8s.io PodGroup, or an opaque custom resource), served generically: their
// JSON (metadata from the store's ObjectMeta, the body from the opaque object's JSON or the
// kind's codec), and create / update / delete of opaque objects, as apiextensions-apiserver
// serves a CustomResourceDefinition's objects through the generic store
// (staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/etcd.go,
// strategy.go: metadata, then the object as the client wrote it). A typed kind's objects are
// its model's: the API serves them read-only (create/update/delete answer 405).
#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/request_path.hpp"
#include "model/object_store.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

namespace {

std::uint64_t meta_key(ObjectKind kind, std::uint32_t id) {
  return (static_cast<std::uint64_t>(kind) << 32) | id;
}

// The object's body (everything but metadata) as the store keeps it, parsed; an empty object
// when there is none (a typed kind without a codec).
Json registered_body(const ObjectStore& store, ObjectKind kind, std::uint32_t id) {
  const KindInfo& info = store.kind_info(kind);
  std::string text;
  if (info.storage == KindStorage::kOpaque) text = store.get<OpaqueObject>(kind, id).json;
  else if (info.codec.encode) text = info.codec.encode(store.object(kind, id));
  Json body = text.empty() ? Json::object() : Json::parse(text);
  return body.is_object() ? body : Json::object();
}

ApiResponse typed_kind_refused(const ResourcePath& t) {
  return status_response(405, "MethodNotAllowed",
                         "kubesim serves " + std::string(t.info().plural) + " read-only: their model owns them");
}

// A client's object for an opaque kind: the body the store keeps (no metadata, apiVersion or
// kind), and the metadata kept beside it (labels, annotations, ...) without what the store owns.
std::pair<Json, Json> split_client_object(Json object) {
  Json meta = object.value("metadata", Json::object());
  object.erase("metadata");
  object.erase("apiVersion");
  object.erase("kind");
  for (const char* owned : {"name", "namespace", "resourceVersion", "uid", "creationTimestamp"}) meta.erase(owned);
  return {std::move(object), std::move(meta)};
}

}  // namespace

Json ApiServer::registered_object_json(ObjectKind kind, std::uint32_t id) {
  const ObjectStore& store = sim_.store();
  const KindInfo& info = store.kind_info(kind);
  const ObjectMeta& m = store.meta(kind, id);
  Json out = registered_body(store, kind, id);
  // The metadata the API adds (uid, creationTimestamp, a client's labels and annotations),
  // fixed when the object is first published; a codec may give its own (creationTimestamp).
  Json& extra = registered_meta_[meta_key(kind, id)];
  if (extra.is_null()) {
    extra = out.value("metadata", Json::object());
    extra["uid"] = object_uid(info.kind, id);
    if (!extra.contains("creationTimestamp")) extra["creationTimestamp"] = time_.time(sim_.now());
  }
  Json meta = extra;
  meta["name"] = m.name;
  if (info.namespaced && m.ns.valid()) meta["namespace"] = store.namespace_(m.ns).name;
  meta["resourceVersion"] = std::to_string(m.resource_version);
  out["metadata"] = std::move(meta);
  out["apiVersion"] = info.api_version();
  out["kind"] = info.kind;
  return out;
}

void ApiServer::publish_registered(ObjectKind kind, std::uint32_t id, WatchEventType type) {
  const std::size_t resource = served_resources().size() + static_cast<std::size_t>(kind) - kBuiltinKinds;
  if (resource >= resources_.size()) return;  // registered after the server started: not served
  cache_.record_object(static_cast<std::uint8_t>(resource), type, registered_object_json(kind, id), id);
  if (type == WatchEventType::kDeleted) registered_meta_.erase(meta_key(kind, id));
}

ApiResponse ApiServer::create_registered(const ResourcePath& t, Json body) {
  ObjectStore& store = sim_.store();
  const ObjectKind kind = t.info().registered_kind;
  if (store.kind_info(kind).storage != KindStorage::kOpaque) return typed_kind_refused(t);
  const std::string name = body["metadata"]["name"].get<std::string>();
  auto [object, meta] = split_client_object(std::move(body));
  const auto id = static_cast<std::uint32_t>(store.object_count(kind));
  meta["uid"] = object_uid(t.info().kind, id);
  meta["creationTimestamp"] = time_.time(sim_.now());
  registered_meta_[meta_key(kind, id)] = std::move(meta);
  const NamespaceId ns = t.info().namespaced ? *store.find_namespace(t.ns) : NamespaceId();
  store.create(kind, ObjectMeta{name, ns, 0, false}, OpaqueObject{object.dump()});
  return stored(t, name, 201);
}

ApiResponse ApiServer::update_registered(const ResourcePath& t, const SnapshotPtr& current, Json updated) {
  ObjectStore& store = sim_.store();
  const ObjectKind kind = t.info().registered_kind;
  if (store.kind_info(kind).storage != KindStorage::kOpaque) return typed_kind_refused(t);
  auto [object, meta] = split_client_object(std::move(updated));
  Json& extra = registered_meta_[meta_key(kind, current->model_id)];
  for (const char* kept : {"uid", "creationTimestamp"}) meta[kept] = extra[kept];
  extra = std::move(meta);
  // (The text is made outside the lambda: clang 14, the sanitizer build's compiler, does not
  // capture structured bindings.)
  std::string json = object.dump();
  store.update<OpaqueObject>(kind, current->model_id, [&json](OpaqueObject& o) { o.json = std::move(json); });
  return stored(t, t.name, 200);
}

ApiResponse ApiServer::remove_registered(const ResourcePath& t, const ApiRequest&, const Json&,
                                         const SnapshotPtr& current) {
  const ObjectKind kind = t.info().registered_kind;
  if (sim_.store().kind_info(kind).storage != KindStorage::kOpaque) return typed_kind_refused(t);
  sim_.store().remove(kind, current->model_id);
  return after_delete(t, current);
}

}  // namespace kubesim::api

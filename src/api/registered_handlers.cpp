// The kinds registered in the store (model/kind_registry.hpp: a typed kind such as
// scheduling.x-k8s.io PodGroup, or an opaque custom resource), served generically: their
// JSON (metadata from the store's ObjectMeta, the body from the opaque object's JSON, the
// typed object as a client last wrote it, or the kind's codec), and create / update /
// delete, as apiextensions-apiserver serves a CustomResourceDefinition's objects through
// the generic store (staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/
// etcd.go, strategy.go: metadata, then the object as the client wrote it). A typed kind's
// write goes through its codec's decode into the model's object (a PodGroup created with
// kubectl is the one Coscheduling reads); a kind without a decode is read-only (405).
#include <optional>
#include <utility>

#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/custom_resources.hpp"
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
Json registered_body(const ObjectStore& store, ObjectKind kind, std::uint32_t id, const Json* written) {
  const KindInfo& info = store.kind_info(kind);
  if (written) return *written;
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

bool has_status_subresource(const ResourceInfo& r) {
  return ("," + std::string(r.subresources) + ",").find(",status,") != std::string::npos;
}

bool writable(const KindInfo& info) { return info.storage == KindStorage::kOpaque || info.codec.decode; }

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

// An update that changes nothing is not written: no new resourceVersion, no watch event
// (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go GuaranteedUpdate: "if the new
// object is the same as the existing one, skip the write"). Controllers that update status
// on every reconcile rely on it (Kueue v0.9.5's ClusterQueue reconciler compares a status
// with a pointer to its copy, so it always updates; each stored update would wake it again).
bool same_object(Json updated, const Json& old) {
  const Json& meta = old["metadata"];
  Json& m = updated["metadata"];
  for (const char* owned : {"resourceVersion", "uid", "creationTimestamp"}) {
    if (meta.contains(owned)) m[owned] = meta[owned];
    else m.erase(owned);
  }
  // An object stored without a generation (created by the simulation, not the API) has 1.
  if (!meta.contains("generation") && m.value("generation", std::int64_t{0}) == 1) m.erase("generation");
  if (!updated.contains("apiVersion")) updated["apiVersion"] = old.value("apiVersion", Json());
  if (!updated.contains("kind")) updated["kind"] = old.value("kind", Json());
  return updated == old;
}

Json ApiServer::registered_object_json(ObjectKind kind, std::uint32_t id) {
  const ObjectStore& store = sim_.store();
  const KindInfo& info = store.kind_info(kind);
  const ObjectMeta& m = store.meta(kind, id);
  const auto written = registered_bodies_.find(meta_key(kind, id));
  Json out = registered_body(store, kind, id, written == registered_bodies_.end() ? nullptr : &written->second);
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
  const auto resource = resource_of(kind);
  out["apiVersion"] = resource ? resources_[*resource].api_version() : info.api_version();
  out["kind"] = info.kind;
  return out;
}

void ApiServer::publish_registered(ObjectKind kind, std::uint32_t id, WatchEventType type) {
  const auto resource = resource_of(kind);
  if (!resource) return;  // registered after the server started, and no CRD serves it
  cache_.record_object(*resource, type, registered_object_json(kind, id), id);
  if (type == WatchEventType::kDeleted) {
    registered_meta_.erase(meta_key(kind, id));
    registered_bodies_.erase(meta_key(kind, id));
  }
}

ApiResponse ApiServer::create_registered(const ResourcePath& t, Json body) {
  if (!writable(sim_.store().kind_info(t.info().registered_kind))) return typed_kind_refused(t);
  // customresource/strategy.go PrepareForCreate: status is the status subresource's to
  // write; generation starts at 1.
  if (has_status_subresource(t.info())) body.erase("status");
  body["metadata"]["generation"] = 1;
  // The schema's nulls are pruned before it is checked (custom_resources.hpp).
  if (const auto c = custom_.find(t.resource); c != custom_.end()) prune_non_nullable_nulls(body, c->second.spec.schema);
  if (auto refused = refused_custom_object(t, body)) return *refused;
  return store_registered(t, std::move(body), nullptr);
}

ApiResponse ApiServer::update_registered(const ResourcePath& t, const SnapshotPtr& current, Json updated) {
  if (!writable(sim_.store().kind_info(t.info().registered_kind))) return typed_kind_refused(t);
  const Json& old = current->object;
  if (t.sub == "status") {
    // statusStrategy.PrepareForUpdate: only status changes; the rest stays as stored.
    Json status = updated.contains("status") ? updated["status"] : Json();
    updated = old;
    if (status.is_null()) updated.erase("status");
    else updated["status"] = std::move(status);
  } else {
    // strategy.go PrepareForUpdate: with the status subresource, status stays as stored;
    // generation counts changes of anything but metadata and status.
    if (has_status_subresource(t.info())) {
      if (old.contains("status")) updated["status"] = old["status"];
      else updated.erase("status");
    }
    const auto rest = [](Json o) {
      o.erase("metadata");
      o.erase("status");
      return o;
    };
    const std::int64_t generation = old["metadata"].value("generation", std::int64_t{1});
    updated["metadata"]["generation"] = rest(updated) == rest(old) ? generation : generation + 1;
  }
  if (const auto c = custom_.find(t.resource); c != custom_.end()) prune_non_nullable_nulls(updated, c->second.spec.schema);
  if (auto refused = refused_custom_object(t, updated)) return *refused;
  if (same_object(updated, old)) return ApiResponse{200, current->text, "application/json"};
  return store_registered(t, std::move(updated), current);
}

ApiResponse ApiServer::store_registered(const ResourcePath& t, Json object, const SnapshotPtr& current) {
  ObjectStore& store = sim_.store();
  const ObjectKind kind = t.info().registered_kind;
  const KindInfo& info = store.kind_info(kind);
  const std::string name = object["metadata"]["name"].get<std::string>();
  const std::uint32_t id = current ? current->model_id : static_cast<std::uint32_t>(store.object_count(kind));
  const std::uint64_t key = meta_key(kind, id);
  auto [body, meta] = split_client_object(object);
  Json& extra = registered_meta_[key];
  if (current) {
    for (const char* kept : {"uid", "creationTimestamp"}) meta[kept] = extra[kept];
  } else {
    meta["uid"] = object_uid(t.info().kind, id);
    meta["creationTimestamp"] = time_.time(sim_.now());
  }
  Json previous_meta = std::exchange(extra, meta);
  const auto written = registered_bodies_.find(key);
  std::optional<Json> previous_body;
  if (written != registered_bodies_.end()) previous_body = written->second;
  // The typed object is decoded from the whole object (its metadata included: a PodGroup's
  // name, namespace and creationTimestamp); an opaque one keeps its body's text.
  std::string error;
  std::string text;
  if (info.storage == KindStorage::kOpaque) {
    text = body.dump();
  } else {
    Json whole = body;
    whole["metadata"] = meta;
    whole["metadata"]["name"] = name;
    if (t.info().namespaced) whole["metadata"]["namespace"] = t.ns;
    text = whole.dump();
    registered_bodies_[key] = body;
  }
  const KindTable::Fill fill = [&info, &text, &error](void* o) {
    if (info.storage == KindStorage::kOpaque) {
      static_cast<OpaqueObject*>(o)->json = std::move(text);
      return true;
    }
    error = info.codec.decode(text, o);
    return error.empty();
  };
  const NamespaceId ns = t.info().namespaced ? *store.find_namespace(t.ns) : NamespaceId();
  const bool ok = current ? store.update_filled(kind, id, fill) : store.create_filled(kind, ObjectMeta{name, ns, 0, false}, fill).has_value();
  if (!ok) {
    if (current) extra = std::move(previous_meta);
    else registered_meta_.erase(key);
    if (previous_body) registered_bodies_[key] = std::move(*previous_body);
    else registered_bodies_.erase(key);
    return json_response(422, invalid_status(std::string(t.info().group), std::string(t.info().kind), name, {error}));
  }
  return stored(t, name, current ? 200 : 201);
}

ApiResponse ApiServer::remove_registered(const ResourcePath& t, const ApiRequest&, const Json&,
                                         const SnapshotPtr& current) {
  const ObjectKind kind = t.info().registered_kind;
  if (!writable(sim_.store().kind_info(kind))) return typed_kind_refused(t);
  sim_.store().remove(kind, current->model_id);
  return after_delete(t, current);
}

}  // namespace kubesim::api

// CustomResourceDefinitions and the checks of a custom object, as apiextensions-apiserver
// v1.26 serves them: a CRD create validates and defaults the definition
// (pkg/apis/apiextensions/validation/validation.go), and once stored its kind is served at
// /apis/GROUP/VERSION/PLURAL (pkg/apiserver/customresource_handler.go: the storage version;
// discovery from pkg/apiserver/customresource_discovery_controller.go, with short names and
// categories) and the CRD gets the status the naming and establishing controllers write
// (NamesAccepted, Established). Deleting a CRD deletes its objects
// (pkg/controller/finalizer/crd_finalizer.go) and stops serving it. A kind a model already
// has (the store's typed PodGroup, or one the setup registered) is served as that kind, so
// the model reads what clients write.
#include <string>
#include <vector>

#include "api/api_responses.hpp"
#include "api/api_server.hpp"
#include "api/kind_codecs.hpp"
#include "api/request_path.hpp"
#include "model/object_store.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

namespace {

std::string comma_joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

ApiResponse crd_invalid(const std::string& name, const std::vector<std::string>& errors) {
  return json_response(422, invalid_status("apiextensions.k8s.io", "CustomResourceDefinition", name, errors));
}

}  // namespace

std::optional<std::string> ApiServer::serve_crd(const CrdSpec& spec) {
  ObjectStore& store = sim_.store();
  for (std::size_t r = 0; r < served_resources().size(); ++r)
    if (resources_[r].group == spec.group && resources_[r].plural == spec.plural)
      return "spec.names.plural: Invalid value: \"" + spec.plural + "\": " + spec.plural + "." + spec.group +
             " is a resource kubesim serves itself";
  std::optional<ObjectKind> kind = store.find_kind(spec.group, spec.plural);
  if (!kind) kind = register_model_kind(store, spec.group, spec.plural);
  if (!kind)
    kind = store.register_custom_kind(
        KindInfo{spec.group, spec.version, spec.kind, spec.plural, spec.namespaced, KindStorage::kOpaque, {}});
  install_kind_codecs(store, time_);
  const KindInfo& info = store.kind_info(*kind);
  if (info.namespaced != spec.namespaced)
    return std::string("spec.scope: Invalid value: \"") + (spec.namespaced ? "Namespaced" : "Cluster") +
           "\": kubesim's model of " + info.kind + " is " + (info.namespaced ? "Namespaced" : "Cluster");
  if (info.kind != spec.kind)
    return "spec.names.kind: Invalid value: \"" + spec.kind + "\": kubesim's model of " + spec.plural + "." +
           spec.group + " is kind " + info.kind;
  std::uint8_t r = 0;
  if (const auto existing = resource_of(*kind)) {
    r = *existing;
  } else {
    if (resources_.size() >= kMaxKinds) return std::string("too many resources (kubesim serves at most 256)");
    r = static_cast<std::uint8_t>(resources_.size());
    resources_.push_back(resources_[crds_resource_]);  // a placeholder, filled below
    resource_of_kind_[static_cast<std::size_t>(*kind)] = r;
    subscribed_.add(*kind);
    store.set_listener_kinds(this, subscribed_);
  }
  CustomResource& c = custom_[r];
  c.spec = spec;
  c.short_names = comma_joined(spec.short_names);
  c.categories = comma_joined(spec.categories);
  c.subresources = spec.status_subresource ? "status" : "";
  resources_[r] = ResourceInfo{c.spec.group, c.spec.version, c.spec.plural, c.spec.singular, c.spec.kind,
                               c.spec.namespaced, Backend::kRegistered, c.short_names, c.subresources, *kind,
                               c.categories, true};
  return std::nullopt;
}

ApiResponse ApiServer::create_crd(const ResourcePath& t, Json body) {
  const std::string name = body["metadata"]["name"].get<std::string>();
  const std::vector<std::string> errors = default_and_validate_crd(body);
  if (!errors.empty()) return crd_invalid(name, errors);
  const CrdSpec spec = crd_spec(body);
  if (auto problem = serve_crd(spec)) return crd_invalid(name, {*problem});
  body["status"] = crd_status(spec, time_.time(sim_.now()));
  body["metadata"]["generation"] = 1;
  return create_generic(t, std::move(body));
}

ApiResponse ApiServer::update_crd(const ResourcePath& t, const SnapshotPtr& current, Json updated) {
  const Json& old = current->object;
  if (t.sub == "status") {
    updated["spec"] = old["spec"];
    updated["metadata"]["generation"] = old["metadata"].value("generation", 1);
    return replace_generic(t, current, std::move(updated));
  }
  std::vector<std::string> errors = default_and_validate_crd(updated);
  for (std::string& e : validate_crd_update(updated, old)) errors.push_back(std::move(e));
  if (!errors.empty()) return crd_invalid(t.name, errors);
  const CrdSpec spec = crd_spec(updated);
  if (auto problem = serve_crd(spec)) return crd_invalid(t.name, {*problem});
  // The status stays the controllers' (its conditions' times), with the names now accepted.
  updated["status"] = old.value("status", Json::object());
  updated["status"]["acceptedNames"] = crd_status(spec, "")["acceptedNames"];
  updated["status"]["storedVersions"] = crd_status(spec, "")["storedVersions"];
  const std::int64_t generation = old["metadata"].value("generation", std::int64_t{1});
  updated["metadata"]["generation"] = updated["spec"] == old["spec"] ? generation : generation + 1;
  return replace_generic(t, current, std::move(updated));
}

ApiResponse ApiServer::remove_crd(const ResourcePath& t, const ApiRequest& r, const Json& options,
                                  const SnapshotPtr& current) {
  const CrdSpec spec = crd_spec(current->object);
  ObjectStore& store = sim_.store();
  if (const auto kind = store.find_kind(spec.group, spec.plural)) {
    for (std::uint32_t id = 0; id < store.object_count(*kind); ++id)
      if (!store.meta(*kind, id).deleted) store.remove(*kind, id);
    if (const auto resource = resource_of(*kind)) resources_[*resource].served = false;
  }
  return remove_generic(t, r, options, current);
}

ApiResponse ApiServer::create_object(const Json& object) {
  ApiRequest request{"POST", "", {}, "application/json", "application/json", object.dump()};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string api_version = json_string_of(object.value("apiVersion", Json()));
    const std::string kind = json_string_of(object.value("kind", Json()));
    for (const ResourceInfo& r : resources_) {
      if (!r.served || r.api_version() != api_version || r.kind != kind || r.plural == "bindings") continue;
      std::string ns = string_at(object, "metadata", "namespace");
      if (ns.empty()) ns = "default";
      request.path = (r.group.empty() ? "/api/" : "/apis/") + api_version +
                     (r.namespaced ? "/namespaces/" + ns : std::string()) + "/" + std::string(r.plural);
      break;
    }
  }
  if (request.path.empty())
    return status_response(404, "NotFound", "no kind \"" + json_string_of(object.value("kind", Json())) +
                                                "\" is served in version \"" + json_string_of(object.value("apiVersion", Json())) + "\"");
  return handle(request, nullptr);
}

std::optional<ApiResponse> ApiServer::refused_custom_object(const ResourcePath& t, const Json& object) const {
  const ResourceInfo& info = t.info();
  const std::string api_version = json_string_of(object.value("apiVersion", Json()));
  if (!api_version.empty() && api_version != info.api_version())
    // apiserver/pkg/endpoints/handlers: the body's group/version must be the endpoint's.
    return status_response(400, "BadRequest", "the API version in the data (" + api_version +
                                                  ") does not match the expected API version (" + info.api_version() + ")");
  const std::string name = string_at(object, "metadata", "name");
  std::vector<std::string> errors;
  if (const std::string e = dns_subdomain_error(name); !e.empty())
    errors.push_back("metadata.name: Invalid value: \"" + name + "\": " + e);
  if (const auto c = custom_.find(t.resource); c != custom_.end() && c->second.spec.schema.is_object())
    for (std::string& e : validate_against_schema(object, c->second.spec.schema)) errors.push_back(std::move(e));
  if (errors.empty()) return std::nullopt;
  return json_response(422, invalid_status(std::string(info.group), std::string(info.kind), name, errors));
}

}  // namespace kubesim::api

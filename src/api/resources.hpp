// The resources kubesim serves and their discovery documents (/api, /apis, the
// group/version resource lists), as kube-apiserver v1.26 publishes them
// (staging/src/k8s.io/apiserver/pkg/endpoints/discovery). A server's table is the built-in
// resources followed by every kind registered in its store (model/kind_registry.hpp), served
// as apiextensions-apiserver serves a CustomResourceDefinition's resource.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <deque>

#include <nlohmann/json.hpp>

#include "model/kind_registry.hpp"

namespace kubesim {
class ObjectStore;
}

namespace kubesim::api {

// Which part of kubesim holds the objects of a resource.
enum class Backend : std::uint8_t {
  kPod,        // the simulation's pods
  kNode,       // the simulation's nodes
  kNamespace,  // the simulation's namespaces
  kJob,        // the simulation's batch/v1 Jobs
  kQuota,      // the simulation's ResourceQuotas
  kGeneric,    // stored as JSON only (events, leases, ...); PriorityClasses and PDBs are
               // mirrored into the simulation when created
  kRegistered, // a kind registered in the store (ResourceInfo::registered_kind)
  kCrd,        // apiextensions.k8s.io CustomResourceDefinitions (custom_resource_handlers.cpp)
};

struct ResourceInfo {
  std::string_view group;  // "" for core
  std::string_view version;
  std::string_view plural;
  std::string_view singular;
  std::string_view kind;
  bool namespaced;
  Backend backend;
  std::string_view short_names;  // comma-separated
  std::string_view subresources;  // comma-separated, e.g. "binding,status"
  ObjectKind registered_kind = ObjectKind::kNamespace;  // with Backend::kRegistered: its kind id
  std::string_view categories = {};  // comma-separated, e.g. "all"
  bool served = true;           // false: a deleted CRD's resource (its slot stays, unserved)
  std::string api_version() const { return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version); }
};

// The built-in resources, in a fixed order (its index is the resource's id).
const std::vector<ResourceInfo>& served_resources();
// A server's resources: served_resources(), then one per kind registered in `store` (the
// strings they name live in the store's KindInfo and in `names`), then those of the
// CustomResourceDefinitions created while serving. At most 256 in all.
std::vector<ResourceInfo> resources_with_registered(const ObjectStore& store, std::deque<std::string>& names);
using ResourceTable = std::vector<ResourceInfo>;
// The served resource of that group, version and plural (unserved ones are skipped).
std::optional<std::uint8_t> find_resource(const ResourceTable& all, std::string_view group, std::string_view version,
                                          std::string_view plural);
std::uint8_t resource_index(std::string_view group, std::string_view plural);  // a built-in; asserts it exists

nlohmann::json version_document(std::string_view kubesim_version);
nlohmann::json core_versions_document(std::string_view server_address);
nlohmann::json group_list_document(const ResourceTable& all);
// nullopt for an unknown group/version.
std::optional<nlohmann::json> resource_list_document(const ResourceTable& all, std::string_view group,
                                                     std::string_view version);

// A minimal OpenAPI v3 (the /openapi/v3 discovery root and one document per group/version,
// staging/src/k8s.io/kube-openapi/pkg/handler3): the paths of every served resource with
// their x-kubernetes-group-version-kind and the fieldValidation query parameter, which is
// what kubectl reads to learn that the server validates fields itself
// (cli-runtime/pkg/resource/query_param_verifier_v3.go). No schemas.
nlohmann::json openapi_v3_root(const ResourceTable& all);
// `path` is "api/v1" or "apis/GROUP/VERSION"; nullopt when unknown.
std::optional<nlohmann::json> openapi_v3_document(const ResourceTable& all, std::string_view path);

}  // namespace kubesim::api

#include "api/resources.hpp"

#include <cctype>

#include "core/error.hpp"
#include "model/object_store.hpp"

namespace kubesim::api {

const std::vector<ResourceInfo>& served_resources() {
  // The resources kube-scheduler v1.26 lists and watches at start-up
  // (cmd/kube-scheduler informers: pkg/scheduler/eventhandlers.go, the framework's shared
  // informer factory), what kubectl and the study's client use
  // (namespaces, jobs, events, resourcequotas), and leases for leader election.
  static const std::vector<ResourceInfo> kResources = {
      {"", "v1", "pods", "pod", "Pod", true, Backend::kPod, "po", "binding,status,eviction"},
      {"", "v1", "bindings", "binding", "Binding", true, Backend::kGeneric, "", ""},
      {"", "v1", "nodes", "node", "Node", false, Backend::kNode, "no", "status"},
      {"", "v1", "namespaces", "namespace", "Namespace", false, Backend::kNamespace, "ns", "status"},
      {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, Backend::kQuota, "quota", "status"},
      {"", "v1", "events", "event", "Event", true, Backend::kGeneric, "ev", ""},
      {"", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false, Backend::kGeneric, "pv", "status"},
      {"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, Backend::kGeneric,
       "pvc", "status"},
      {"", "v1", "services", "service", "Service", true, Backend::kGeneric, "svc", "status"},
      {"", "v1", "replicationcontrollers", "replicationcontroller", "ReplicationController", true, Backend::kGeneric,
       "rc", "status"},
      {"", "v1", "configmaps", "configmap", "ConfigMap", true, Backend::kGeneric, "cm", ""},
      {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, Backend::kGeneric, "sa", ""},
      // Kueue's MultiKueue controller watches them (pkg/controller/admissionchecks/multikueue).
      {"", "v1", "secrets", "secret", "Secret", true, Backend::kGeneric, "", ""},
      // Kueue's manager indexes and watches these (pkg/controller/core/indexer, workload_controller.go).
      {"", "v1", "limitranges", "limitrange", "LimitRange", true, Backend::kGeneric, "limits", ""},
      {"node.k8s.io", "v1", "runtimeclasses", "runtimeclass", "RuntimeClass", false, Backend::kGeneric, "", ""},
      {"apps", "v1", "replicasets", "replicaset", "ReplicaSet", true, Backend::kGeneric, "rs", "status"},
      {"apps", "v1", "statefulsets", "statefulset", "StatefulSet", true, Backend::kGeneric, "sts", "status"},
      {"batch", "v1", "jobs", "job", "Job", true, Backend::kJob, "", "status"},
      {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, Backend::kGeneric,
       "pdb", "status"},
      {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false, Backend::kGeneric, "pc",
       ""},
      {"storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false, Backend::kGeneric, "sc", ""},
      {"storage.k8s.io", "v1", "csinodes", "csinode", "CSINode", false, Backend::kGeneric, "", ""},
      {"storage.k8s.io", "v1", "csidrivers", "csidriver", "CSIDriver", false, Backend::kGeneric, "", ""},
      {"storage.k8s.io", "v1", "csistoragecapacities", "csistoragecapacity", "CSIStorageCapacity", true,
       Backend::kGeneric, "", ""},
      {"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, Backend::kGeneric, "", ""},
      {"events.k8s.io", "v1", "events", "event", "Event", true, Backend::kGeneric, "ev", ""},
      {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition",
       "CustomResourceDefinition", false, Backend::kCrd, "crd,crds", "status", ObjectKind::kNamespace, "api-extensions"},
  };
  return kResources;
}

std::vector<ResourceInfo> resources_with_registered(const ObjectStore& store, std::deque<std::string>& names) {
  std::vector<ResourceInfo> all = served_resources();
  for (std::size_t k = kBuiltinKinds; k < store.kind_count() && all.size() < 256; ++k) {
    const auto kind = static_cast<ObjectKind>(k);
    const KindInfo& info = store.kind_info(kind);
    // A CRD's spec.names.singular defaults to the lowercase kind (apiextensions
    // validation SetDefaults_CustomResourceDefinitionSpec); its status subresource is served.
    std::string singular = info.kind;
    for (char& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    names.push_back(std::move(singular));
    all.push_back(ResourceInfo{info.group, info.version, info.plural, names.back(), info.kind, info.namespaced,
                               Backend::kRegistered, "", "status", kind});
  }
  return all;
}

std::optional<std::uint8_t> find_resource(const ResourceTable& all, std::string_view group, std::string_view version,
                                          std::string_view plural) {
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].served && all[i].group == group && all[i].version == version && all[i].plural == plural)
      return static_cast<std::uint8_t>(i);
  return std::nullopt;
}

std::uint8_t resource_index(std::string_view group, std::string_view plural) {
  const auto& all = served_resources();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].group == group && all[i].plural == plural) return static_cast<std::uint8_t>(i);
  KUBESIM_ASSERT(false);
  return 0;
}

nlohmann::json version_document(std::string_view kubesim_version) {
  // k8s.io/apimachinery/pkg/version.Info. The API kubesim models is v1.26's.
  return {{"major", "1"},
          {"minor", "26"},
          {"gitVersion", "v1.26.0-kubesim." + std::string(kubesim_version)},
          {"gitCommit", ""},
          {"gitTreeState", "clean"},
          {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "kubesim"},
          {"compiler", "kubesim"},
          {"platform", "linux/amd64"}};
}

nlohmann::json core_versions_document(std::string_view server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

nlohmann::json group_list_document(const ResourceTable& all) {
  nlohmann::json groups = nlohmann::json::array();
  std::vector<std::string_view> seen;
  for (const auto& r : all) {
    if (r.group.empty() || !r.served) continue;
    bool known = false;
    for (auto g : seen) known = known || g == r.group;
    if (known) continue;
    seen.push_back(r.group);
    const nlohmann::json gv = {{"groupVersion", r.api_version()}, {"version", r.version}};
    groups.push_back({{"name", r.group}, {"versions", {gv}}, {"preferredVersion", gv}});
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

namespace {

nlohmann::json comma_list(std::string_view rest) {
  nlohmann::json names = nlohmann::json::array();
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    names.push_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return names;
}

nlohmann::json subresource_entry(const ResourceInfo& r, std::string_view sub) {
  std::string kind(r.kind);
  nlohmann::json verbs = {"get", "patch", "update"};
  if (sub == "binding") {
    kind = "Binding";
    verbs = {"create"};
  } else if (sub == "eviction") {
    kind = "Eviction";
    verbs = {"create"};
  }
  return {{"name", std::string(r.plural) + "/" + std::string(sub)},
          {"singularName", ""},
          {"namespaced", r.namespaced},
          {"kind", kind},
          {"verbs", verbs}};
}

}  // namespace

std::optional<nlohmann::json> resource_list_document(const ResourceTable& all, std::string_view group,
                                                     std::string_view version) {
  nlohmann::json resources = nlohmann::json::array();
  std::string group_version;
  for (const auto& r : all) {
    if (r.group != group || r.version != version || !r.served) continue;
    group_version = r.api_version();
    nlohmann::json entry = {{"name", r.plural},
                            {"singularName", r.singular},
                            {"namespaced", r.namespaced},
                            {"kind", r.kind},
                            {"verbs", r.plural == "bindings" ? nlohmann::json{"create"}
                                                             : nlohmann::json{"create", "delete", "get", "list", "patch",
                                                                              "update", "watch"}}};
    if (!r.short_names.empty()) entry["shortNames"] = comma_list(r.short_names);
    if (!r.categories.empty()) entry["categories"] = comma_list(r.categories);
    resources.push_back(entry);
    std::string_view subs = r.subresources;
    while (!subs.empty()) {
      const auto comma = subs.find(',');
      resources.push_back(subresource_entry(r, subs.substr(0, comma)));
      subs = comma == std::string_view::npos ? std::string_view() : subs.substr(comma + 1);
    }
  }
  if (group_version.empty()) return std::nullopt;
  return nlohmann::json{{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", group_version},
                        {"resources", resources}};
}

namespace {

std::string openapi_path_of(const ResourceInfo& r) {
  return r.group.empty() ? "api/" + std::string(r.version) : "apis/" + r.api_version();
}

}  // namespace

nlohmann::json openapi_v3_root(const ResourceTable& all) {
  nlohmann::json paths = nlohmann::json::object();
  for (const auto& r : all) {
    if (!r.served) continue;
    const std::string path = openapi_path_of(r);
    paths[path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=kubesim"}};
  }
  return {{"paths", paths}};
}

std::optional<nlohmann::json> openapi_v3_document(const ResourceTable& all, std::string_view path) {
  nlohmann::json paths = nlohmann::json::object();
  const nlohmann::json params = {
      {{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}, {"uniqueItems", true}}}},
      {{"name", "fieldManager"}, {"in", "query"}, {"schema", {{"type", "string"}, {"uniqueItems", true}}}},
      {{"name", "dryRun"}, {"in", "query"}, {"schema", {{"type", "string"}, {"uniqueItems", true}}}}};
  const nlohmann::json responses = {{"200", {{"description", "OK"}}}};
  for (const auto& r : all) {
    if (!r.served || openapi_path_of(r) != path) continue;
    const nlohmann::json gvk = {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
    const std::string base = "/" + openapi_path_of(r) + (r.namespaced ? "/namespaces/{namespace}/" : "/") + std::string(r.plural);
    const nlohmann::json op = {{"x-kubernetes-group-version-kind", gvk}, {"parameters", params}, {"responses", responses}};
    paths[base] = {{"post", op}};
    paths[base + "/{name}"] = {{"put", op}, {"patch", op}};
  }
  if (paths.empty()) return std::nullopt;
  return nlohmann::json{{"openapi", "3.0.0"},
                        {"info", {{"title", "Kubernetes"}, {"version", "v1.26.0"}}},
                        {"paths", paths},
                        {"components", nlohmann::json::object()}};
}

}  // namespace kubesim::api

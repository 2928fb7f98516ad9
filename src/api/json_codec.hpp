// Model objects <-> Kubernetes JSON for the HTTP API facade (`kubesim serve`): the encoders
// (model -> JSON, as the apiserver returns the objects) are model/object_json.hpp's; here the
// parsing of the bodies clients send.
//
// Input (creates) reuses the manifest reader (workload/k8s_manifest) with
// ManifestOptions::api_object, which accepts everything a real client sends.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/time.hpp"
#include "model/object_json.hpp"  // the encoding half (model -> JSON)
#include "model/object_store.hpp"
#include "model/objects.hpp"
#include "workload/k8s_manifest.hpp"

namespace kubesim::api {

// ---- JSON to model (API creates) ----------------------------------------------------
// Each throws InputError whose problem() reads like a field error, e.g.
// `expected spec.containers to be a non-empty list` (file "" and line 0): the server
// answers 422 `Pod "name" is invalid: <problem>`.

// A Pod (kind "Pod") or batch/v1 Job (kind "Job") body. `default_namespace` is the URL's
// namespace; a body naming another namespace is an error. The ManifestJob's namespace id
// is left invalid: `ns` names it (metadata.namespace or the default).
struct ParsedJob {
  ManifestJob job;
  std::string ns;
};
ParsedJob parse_pod_or_job(const nlohmann::json& body, std::string_view kind, std::string_view default_namespace,
                           ResourceNames& names);

// A core/v1 Node: name, labels, taints, unschedulable, status.capacity/allocatable (pods
// too; allocatable defaults to capacity), Ready unless a Ready condition says otherwise.
Node parse_node(const nlohmann::json& body, ResourceNames& names);

// ResourceQuota, PriorityClass, PodDisruptionBudget and Namespace bodies. The namespaced
// ones return the namespace name beside the object (its NamespaceId is left invalid).
struct ParsedQuota {
  ResourceQuota quota;
  std::string ns;
};
ParsedQuota parse_quota(const nlohmann::json& body, std::string_view default_namespace, ResourceNames& names);
PriorityClass parse_priority_class(const nlohmann::json& body);
struct ParsedPdb {
  PodDisruptionBudget pdb;
  std::string ns;
};
ParsedPdb parse_pdb(const nlohmann::json& body, std::string_view default_namespace);
std::string parse_namespace(const nlohmann::json& body);

// Reads one API object body (any kind the manifest reader knows) with
// ManifestOptions::api_object; the building block of the parse_* functions above.
Manifests read_api_object(const nlohmann::json& body, std::string_view default_namespace, ResourceNames& names);

}  // namespace kubesim::api

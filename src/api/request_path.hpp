// Request paths of the Kubernetes API: which served resource, namespace, object and
// subresource a path names (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go
// RequestInfoFactory.NewRequestInfo), the discovery paths answered without a resource
// (/version, /healthz, /api, /apis, /openapi/v3: apiserver/pkg/endpoints/discovery,
// kube-openapi/pkg/handler3), and the query flags as the apiserver converts them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_server.hpp"
#include "api/resources.hpp"
#include "api/table.hpp"

namespace kubesim::api {

// A resource path: /api/v1/... or /apis/GROUP/VERSION/..., then [watch/] [namespaces/NS/]
// RESOURCE [/NAME [/SUBRESOURCE]].
struct ResourcePath {
  const ResourceTable* table = nullptr;  // the server's resources
  std::uint8_t resource = 0;             // index into *table
  std::string ns;
  std::string name;
  std::string sub;
  bool watch_path = false;
  const ResourceInfo& info() const { return (*table)[resource]; }
  // The object's key in the watch cache: "<ns>/<name>" for namespaced resources.
  std::string key_of(const std::string& object_name) const { return info().namespaced ? ns + "/" + object_name : object_name; }
  std::string key() const { return key_of(name); }
};

// The non-empty segments of a path.
std::vector<std::string_view> split_path(std::string_view path);

// nullopt when the path names no served resource, an unknown subresource, or an object of a
// namespaced resource without its namespace (all 404).
std::optional<ResourcePath> parse_resource_path(const ResourceTable& table, std::string_view path);

// The answer to a GET of a discovery or health path; nullopt for any other path.
std::optional<ApiResponse> discovery_response(const ResourceTable& table, const std::string& path,
                                              std::string_view kubesim_version, std::string_view server_address);

// A boolean query parameter as Go's strconv.ParseBool reads it (the apiserver's conversion
// of query parameters): the Python client sends watch=True.
bool query_flag(const ApiRequest& r, std::string_view name);
// ?includeObject= of a Table request (absent: the default); nullopt when not recognized.
std::optional<TableObjects> include_object_param(const ApiRequest& r);

}  // namespace kubesim::api

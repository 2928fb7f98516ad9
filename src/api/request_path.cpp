#include "api/request_path.hpp"

#include "api/api_responses.hpp"

namespace kubesim::api {

using Json = nlohmann::json;

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

std::optional<ResourcePath> parse_resource_path(const ResourceTable& table, std::string_view path) {
  const auto parts = split_path(path);
  std::size_t i = 0;
  std::string_view group, version;
  if (parts.size() >= 3 && parts[0] == "api") {
    version = parts[1];
    i = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    group = parts[1];
    version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  ResourcePath t;
  t.table = &table;
  if (i < parts.size() && parts[i] == "watch") {
    t.watch_path = true;
    ++i;
  }
  std::vector<std::string_view> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    const auto res = find_resource(table, group, version, rest[2]);
    if (res && table[*res].namespaced) {
      t.ns = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  const auto res = find_resource(table, group, version, rest[0]);
  if (!res) return std::nullopt;
  t.resource = *res;
  if (rest.size() >= 2) t.name = rest[1];
  if (rest.size() == 3) {
    t.sub = rest[2];
    if (("," + std::string(t.info().subresources) + ",").find("," + t.sub + ",") == std::string::npos)
      return std::nullopt;
  }
  if (t.info().namespaced && t.ns.empty() && !t.name.empty()) return std::nullopt;
  return t;
}

namespace {

// GET /apis/GROUP: the APIGroup document, from the group list.
ApiResponse api_group_response(const ResourceTable& table, std::string_view name) {
  for (const auto& g : group_list_document(table)["groups"])
    if (g["name"] == name)
      return json_response(200, Json{{"kind", "APIGroup"}, {"apiVersion", "v1"}, {"name", g["name"]},
                                     {"versions", g["versions"]}, {"preferredVersion", g["preferredVersion"]}});
  return not_found_path();
}

ApiResponse document_or_not_found(const std::optional<Json>& doc) {
  return doc ? json_response(200, *doc) : not_found_path();
}

}  // namespace

std::optional<ApiResponse> discovery_response(const ResourceTable& table, const std::string& path,
                                              std::string_view kubesim_version, std::string_view server_address) {
  if (path == "/version" || path == "/version/") return json_response(200, version_document(kubesim_version));
  if (path == "/healthz" || path == "/readyz" || path == "/livez") return ApiResponse{200, "ok", "text/plain"};
  const auto parts = split_path(path);
  if (parts.size() == 1 && parts[0] == "api") return json_response(200, core_versions_document(server_address));
  if (parts.size() == 1 && parts[0] == "apis") return json_response(200, group_list_document(table));
  if (parts.size() == 2 && parts[0] == "openapi" && parts[1] == "v3") return json_response(200, openapi_v3_root(table));
  if (parts.size() >= 4 && parts[0] == "openapi" && parts[1] == "v3")
    return document_or_not_found(openapi_v3_document(table, std::string_view(path).substr(std::string_view("/openapi/v3/").size())));
  if (parts.size() == 2 && parts[0] == "api") return document_or_not_found(resource_list_document(table, "", parts[1]));
  if (parts.size() == 3 && parts[0] == "apis") return document_or_not_found(resource_list_document(table, parts[1], parts[2]));
  if (parts.size() == 2 && parts[0] == "apis") return api_group_response(table, parts[1]);
  return std::nullopt;
}

bool query_flag(const ApiRequest& r, std::string_view name) {
  const std::string* v = r.param(name);
  if (!v) return false;
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"})
    if (*v == yes) return true;
  return false;
}

std::optional<TableObjects> include_object_param(const ApiRequest& r) {
  const std::string* v = r.param("includeObject");
  return parse_include_object(v ? *v : std::string());
}

}  // namespace kubesim::api

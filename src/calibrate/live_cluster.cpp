#include "calibrate/live_cluster.hpp"

#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include "core/error.hpp"
#include "core/yaml_input.hpp"

namespace kubesim::calibrate {

using Json = nlohmann::json;

namespace {

// The named entry of a kubeconfig list (clusters, contexts, users) whose `name` is `name`, and
// its member `member` (a map); an undefined node when there is none.
YAML::Node named_entry(const YamlInput& in, const YAML::Node& root, const char* list, const std::string& name,
                       const char* member) {
  const YAML::Node entries = root[list];
  if (!entries || entries.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
  in.require_list(entries, list);
  for (const auto& entry : entries) {
    in.require_map(entry, std::string("an entry of ") + list);
    if (entry["name"] && in.string_or_null(entry["name"], std::string(list) + "[].name") == name && entry[member]) {
      in.require_map(entry[member], std::string(list) + "[]." + member);
      return entry[member];
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string member_text(const YamlInput& in, const YAML::Node& map, const char* key) {
  return map && map[key] ? in.string_or_null(map[key], key) : std::string();
}

ClusterEndpoint endpoint_in(const YamlInput& in, const YAML::Node& root) {
  const std::string& path = in.path();
  if (!root.IsNull()) in.require_map(root, "the kubeconfig");
  const std::string context = member_text(in, root, "current-context");
  const YAML::Node ctx = named_entry(in, root, "contexts", context, "context");
  const std::string cluster = member_text(in, ctx, "cluster"), user = member_text(in, ctx, "user");
  ClusterEndpoint e;
  e.server = member_text(in, named_entry(in, root, "clusters", cluster, "cluster"), "server");
  e.token = member_text(in, named_entry(in, root, "users", user, "user"), "token");
  if (e.server.empty()) throw InputError(path, 0, "no cluster server for the current context \"" + context + "\"");
  if (e.server.rfind("http://", 0) != 0)
    throw InputError(path, 0,
                     "server " + e.server + ": only plain http is read (run `kubectl proxy` and point a kubeconfig at it)");
  return e;
}

// GET a list, following `continue` (pages of 500, as kubectl does).
Json get_list(httplib::Client& client, const ClusterEndpoint& e, const std::string& path, const std::string& kubeconfig) {
  Json all = Json::object();
  all["items"] = Json::array();
  std::string token;
  httplib::Headers headers;
  if (!e.token.empty()) headers.emplace("Authorization", "Bearer " + e.token);
  do {
    const std::string url = path + "?limit=500" + (token.empty() ? "" : "&continue=" + httplib::detail::encode_query_param(token));
    auto res = client.Get(url, headers);
    if (!res) throw InputError(kubeconfig, 0, "cannot reach " + e.server + path + ": " + httplib::to_string(res.error()));
    if (res->status != 200)
      throw InputError(kubeconfig, 0, "GET " + e.server + path + ": HTTP " + std::to_string(res->status));
    Json page = Json::parse(res->body, nullptr, false);
    if (!page.is_object() || !page["items"].is_array())
      throw InputError(kubeconfig, 0, "GET " + e.server + path + ": not a Kubernetes list");
    for (auto& item : page["items"]) all["items"].push_back(std::move(item));
    const Json& metadata = page["metadata"];
    token = metadata.is_object() && metadata["continue"].is_string() ? metadata["continue"].get<std::string>() : "";
  } while (!token.empty());
  return all;
}

}  // namespace

// client-go's kubeconfig (k8s.io/client-go/tools/clientcmd/api/v1/types.go: Config): the
// named lists clusters, contexts and users, and current-context.
ClusterEndpoint read_kubeconfig_endpoint(const std::string& path) {
  const YAML::Node root = load_yaml_file(path, "invalid YAML: ");
  const YamlInput in(path);
  try {
    return endpoint_in(in, root);
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e, "unexpected value: ");
  }
}

MeasuredRun read_live_cluster(const LiveClusterQuery& q) {
  const ClusterEndpoint e = read_kubeconfig_endpoint(q.kubeconfig);
  httplib::Client client(e.server);
  client.set_read_timeout(60, 0);
  const std::string ns = "/namespaces/" + q.namespace_name;
  const Json pods = get_list(client, e, "/api/v1" + ns + "/pods", q.kubeconfig);
  const Json events = get_list(client, e, "/apis/events.k8s.io/v1" + ns + "/events", q.kubeconfig);
  return timelines_from_cluster(pods, events, "cluster " + e.server + " namespace " + q.namespace_name, q.since_unix,
                                q.until_unix);
}

}  // namespace kubesim::calibrate

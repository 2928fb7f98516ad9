#include "calibrate/live_cluster.hpp"

#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include "core/error.hpp"

namespace kubesim::calibrate {

using Json = nlohmann::json;

namespace {

struct Endpoint {
  std::string server;  // http://host:port
  std::string token;
};

Endpoint endpoint_of(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError(path, 0, "cannot read the kubeconfig");
  } catch (const YAML::Exception& e) {
    throw InputError(path, e.mark.line + 1, "invalid YAML: " + e.msg);
  }
  const std::string context = root["current-context"] ? root["current-context"].as<std::string>() : "";
  std::string cluster, user;
  for (const auto& c : root["contexts"])
    if (c["name"] && c["name"].as<std::string>() == context && c["context"]) {
      cluster = c["context"]["cluster"] ? c["context"]["cluster"].as<std::string>() : "";
      user = c["context"]["user"] ? c["context"]["user"].as<std::string>() : "";
    }
  Endpoint e;
  for (const auto& c : root["clusters"])
    if (c["name"] && c["name"].as<std::string>() == cluster && c["cluster"] && c["cluster"]["server"])
      e.server = c["cluster"]["server"].as<std::string>();
  for (const auto& u : root["users"])
    if (u["name"] && u["name"].as<std::string>() == user && u["user"] && u["user"]["token"])
      e.token = u["user"]["token"].as<std::string>();
  if (e.server.empty()) throw InputError(path, 0, "no cluster server for the current context \"" + context + "\"");
  if (e.server.rfind("http://", 0) != 0)
    throw InputError(path, 0,
                     "server " + e.server + ": only plain http is read (run `kubectl proxy` and point a kubeconfig at it)");
  return e;
}

// GET a list, following `continue` (pages of 500, as kubectl does).
Json get_list(httplib::Client& client, const Endpoint& e, const std::string& path, const std::string& kubeconfig) {
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
    if (page.is_discarded() || !page["items"].is_array())
      throw InputError(kubeconfig, 0, "GET " + e.server + path + ": not a Kubernetes list");
    for (auto& item : page["items"]) all["items"].push_back(std::move(item));
    token = page["metadata"].value("continue", "");
  } while (!token.empty());
  return all;
}

}  // namespace

MeasuredRun read_live_cluster(const LiveClusterQuery& q) {
  const Endpoint e = endpoint_of(q.kubeconfig);
  httplib::Client client(e.server);
  client.set_read_timeout(60, 0);
  const std::string ns = "/namespaces/" + q.namespace_name;
  const Json pods = get_list(client, e, "/api/v1" + ns + "/pods", q.kubeconfig);
  const Json events = get_list(client, e, "/apis/events.k8s.io/v1" + ns + "/events", q.kubeconfig);
  return timelines_from_cluster(pods, events, "cluster " + e.server + " namespace " + q.namespace_name, q.since_unix,
                                q.until_unix);
}

}  // namespace kubesim::calibrate

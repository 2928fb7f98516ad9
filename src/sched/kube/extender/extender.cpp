#include "sched/kube/extender/extender.hpp"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

#include "model/object_json.hpp"
#include "sched/yunikorn/yk_config.hpp"  // parse_go_duration

namespace kubesim {

using nlohmann::json;

namespace {

// framework.MaxNodeScore / extenderv1.MaxExtenderPriority (schedule_one.go prioritizeNodes).
constexpr std::int64_t kExtenderScoreScale = 100 / 10;

// encoding/json matches keys case-insensitively: the member `key` whatever its case, or null.
const json* member(const json& o, std::string_view key) {
  if (!o.is_object()) return nullptr;
  if (const auto it = o.find(key); it != o.end()) return &*it;
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() == key.size() &&
        std::equal(k.begin(), k.end(), key.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
      return &*it;
  }
  return nullptr;
}

std::string string_member(const json& o, std::string_view key) {
  const json* v = member(o, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

// A FailedNodesMap (node name -> reason), sorted by node name (Go ranges over the map in random
// order; the order only affects the order reasons are counted in, which the message sorts).
std::vector<std::pair<std::string, std::string>> failed_nodes(const json* v) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!v || !v->is_object()) return out;
  for (auto it = v->begin(); it != v->end(); ++it)
    out.emplace_back(it.key(), it->is_string() ? it->get<std::string>() : it->dump());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// extender.go HTTPExtender.
class HttpExtender {
 public:
  HttpExtender(ExtenderConfig config, const ObjectStore& store) : c_(std::move(config)), store_(store) {
    // urlPrefix "http://host:port/path": the client for scheme://host:port, the path before the verb.
    const std::size_t host_start = c_.url_prefix.find("://") + 3;
    const std::size_t path_start = c_.url_prefix.find('/', host_start);
    client_ = make_extender_client(c_.url_prefix.substr(0, path_start), c_.tls);
    path_ = path_start == std::string::npos ? std::string() : c_.url_prefix.substr(path_start);
    while (!path_.empty() && path_.back() == '/') path_.pop_back();  // strings.TrimRight(url, "/")
    const auto us = c_.http_timeout.micros();
    client_->set_connection_timeout(us / 1'000'000, us % 1'000'000);
    client_->set_read_timeout(us / 1'000'000, us % 1'000'000);
    client_->set_write_timeout(us / 1'000'000, us % 1'000'000);
    client_->set_keep_alive(true);
    // One small request per call: without TCP_NODELAY a body written after its headers waits
    // for the delayed ACK of the first segment (40-200 ms per call on Linux; measured by
    // bench/byo_overhead_bench.py: 440 ms per decision before, see docs/python.md).
    client_->set_tcp_nodelay(true);
  }

  const ExtenderConfig& config() const { return c_; }

  // IsInterested: no managed resources, or a container or init container requests or limits one.
  bool interested(PodId pod) const {
    if (c_.managed_resources.empty()) return true;
    const PodTemplate& spec = store_.spec_of(pod);
    const ResourceNames& names = store_.resource_names();
    auto has = [&](const Container& ct) {
      for (const std::string& r : c_.managed_resources) {
        const int slot = names.find(r);  // in the container's requests or limits map
        if (slot >= 0 && (((ct.requested_mask | ct.limited_mask) >> slot) & 1u) != 0) return true;
      }
      return false;
    };
    return std::any_of(spec.containers.begin(), spec.containers.end(), has) ||
           std::any_of(spec.init_containers.begin(), spec.init_containers.end(), has);
  }

  // ExtenderArgs: the pod and the nodes (NodeNames when nodeCacheCapable, else a NodeList).
  json args(PodId pod, const std::vector<const NodeInfo*>& nodes) const {
    json a = {{"Pod", api::pod_to_json(store_, pod, tf_)}, {"Nodes", nullptr}, {"NodeNames", nullptr}};
    json& list = c_.node_cache_capable ? (a["NodeNames"] = json::array()) : (a["Nodes"] = {{"items", json::array()}})["items"];
    for (const NodeInfo* ni : nodes)
      list.push_back(c_.node_cache_capable ? json(ni->node->name) : api::node_to_json(store_, ni->id, tf_));
    return a;
  }

  // send: POST <urlPrefix>/<verb>, JSON both ways; a status other than 200 is an error.
  json send(const std::string& verb, const json& body) {
    const std::string path = path_ + "/" + verb;
    const httplib::Result r = client_->Post(path, body.dump(), "application/json");
    if (!r) throw std::runtime_error("POST " + c_.url_prefix + "/" + verb + ": " + extender_client_error(*client_, r.error()));
    if (r->status != 200)
      throw std::runtime_error("failed " + verb + " with extender at URL " + c_.url_prefix + "/" + verb + ", code " +
                               std::to_string(r->status));
    json out = json::parse(r->body, nullptr, false);
    if (out.is_discarded()) throw std::runtime_error(verb + " with extender at URL " + c_.url_prefix + ": the reply is not JSON");
    return out;
  }

  // One stderr line per extender for its first failure (not per pod).
  void report(const std::string& what, const std::exception& e, bool skipped) {
    if (reported_) return;
    reported_ = true;
    std::fprintf(stderr, "kubesim: extender %s: %s failed: %s (%s; further failures not shown)\n", c_.url_prefix.c_str(),
                 what.c_str(), e.what(),
                 !skipped ? "the pod fails scheduling with this error"
                 : what == "prioritize" ? "no score from this extender"
                                        : "ignorable: skipped");
  }

 private:
  ExtenderConfig c_;
  const ObjectStore& store_;
  api::TimeFormat tf_;
  std::unique_ptr<httplib::ClientImpl> client_;
  std::string path_;
  bool reported_ = false;
};

Extenders::Extenders(std::vector<ExtenderConfig> configs, const ObjectStore& store) : store_(store) {
  for (auto& c : configs) extenders_.push_back(std::make_unique<HttpExtender>(std::move(c), store));
}

Extenders::~Extenders() = default;

// schedule_one.go findNodesThatPassExtenders + extender.go Filter.
std::string Extenders::filter_impl(PodId pod, std::vector<const NodeInfo*>& nodes, std::vector<FilterFailure>& failures) {
  for (auto& ext : extenders_) {
    if (nodes.empty()) break;
    if (ext->config().filter_verb.empty() || !ext->interested(pod)) continue;  // Filter: no verb keeps every node
    try {
      const json result = ext->send(ext->config().filter_verb, ext->args(pod, nodes));
      if (const std::string err = string_member(result, "Error"); !err.empty()) throw std::runtime_error(err);
      std::unordered_map<std::string, const NodeInfo*> by_name;  // the input nodes (lookup only)
      for (const NodeInfo* ni : nodes) by_name.emplace(ni->node->name, ni);
      std::vector<const NodeInfo*> kept;
      auto keep = [&](const std::string& name) {
        const auto it = by_name.find(name);
        if (it == by_name.end())
          throw std::runtime_error("extender \"" + ext->config().url_prefix + "\" claims a filtered node \"" + name +
                                   "\" which is not found in the input node list");
        kept.push_back(it->second);
      };
      const json* names = member(result, "NodeNames");
      const json* list = member(result, "Nodes");
      if (ext->config().node_cache_capable && names && names->is_array()) {
        for (const json& n : *names) keep(n.is_string() ? n.get<std::string>() : n.dump());
      } else if (list && list->is_object()) {
        if (const json* items = member(*list, "items"); items && items->is_array())
          for (const json& n : *items)
            if (const json* md = member(n, "metadata")) keep(string_member(*md, "name"));
      }
      // FailedAndUnresolvableNodes take precedence over FailedNodes for a node in both.
      const auto unresolvable = failed_nodes(member(result, "FailedAndUnresolvableNodes"));
      for (const auto& [name, why] : unresolvable)
        if (const auto it = by_name.find(name); it != by_name.end()) failures.push_back({it->second->id, why, true});
      for (const auto& [name, why] : failed_nodes(member(result, "FailedNodes"))) {
        const std::string& failed = name;  // clang 14 (the sanitizer build) cannot capture a structured binding
        const bool also =
            std::any_of(unresolvable.begin(), unresolvable.end(), [&](const auto& u) { return u.first == failed; });
        if (const auto it = by_name.find(name); it != by_name.end() && !also) failures.push_back({it->second->id, why, false});
      }
      nodes.swap(kept);
    } catch (const std::exception& e) {
      ext->report("filter", e, ext->config().ignorable);
      if (!ext->config().ignorable) return e.what();
    }
  }
  return {};
}

// schedule_one.go prioritizeNodes (the extenders' part) + extender.go Prioritize.
void Extenders::prioritize(PodId pod, const std::vector<const NodeInfo*>& nodes, std::vector<std::int64_t>& totals) {
  std::unordered_map<std::string, std::size_t> index;  // node name -> position (lookup only)
  for (auto& ext : extenders_) {
    if (ext->config().prioritize_verb.empty() || !ext->interested(pod)) continue;  // no verb: scores 0, weight 0
    try {
      const json result = ext->send(ext->config().prioritize_verb, ext->args(pod, nodes));
      if (!result.is_array()) throw std::runtime_error("the reply is not a HostPriorityList");
      if (index.empty())
        for (std::size_t i = 0; i < nodes.size(); ++i) index.emplace(nodes[i]->node->name, i);
      for (const json& hp : result) {
        const json* score = member(hp, "Score");
        const auto it = index.find(string_member(hp, "Host"));
        if (it == index.end() || !score || !score->is_number_integer()) continue;  // combinedScores of another host
        totals[it->second] += score->get<std::int64_t>() * ext->config().weight * kExtenderScoreScale;
      }
    } catch (const std::exception& e) {
      ext->report("prioritize", e, true);  // "No score given by this extender": always skipped
    }
  }
}

// schedule_one.go extendersBinding + extender.go Bind: the first binder interested in the pod.
bool Extenders::bind(PodId pod, NodeId node, std::string& error) {
  for (auto& ext : extenders_) {
    if (ext->config().bind_verb.empty() || !ext->interested(pod)) continue;
    const Pod& p = store_.pod(pod);
    const json args = {{"PodName", p.name},
                       {"PodNamespace", store_.namespace_(p.ns).name},
                       {"PodUID", api::object_uid("Pod", pod.value())},
                       {"Node", store_.node(node).name}};
    try {
      error = string_member(ext->send(ext->config().bind_verb, args), "Error");
    } catch (const std::exception& e) {
      ext->report("bind", e, false);
      error = e.what();
    }
    return true;
  }
  return false;
}

bool Extenders::any_preempt() const {
  return std::any_of(extenders_.begin(), extenders_.end(), [](const auto& e) { return !e->config().preempt_verb.empty(); });
}

// preemption.go callExtenders + extender.go ProcessPreemption (NodeNameToVictims with whole
// pods, or NodeNameToMetaVictims with UIDs when nodeCacheCapable; the reply always has
// NodeNameToMetaVictims, resolved against the cache's pods on each node).
std::string Extenders::process_preemption(PodId pod, std::vector<Victims>& victims,
                                          const std::function<const std::vector<PodId>&(NodeId)>& pods_on) {
  api::TimeFormat tf;
  std::unordered_map<std::string, NodeId> node_ids;  // every node by name (lookup only)
  for (std::uint32_t i = 0; i < store_.node_count(); ++i) node_ids.emplace(store_.node(NodeId(i)).name, NodeId(i));
  for (auto& ext : extenders_) {
    if (victims.empty()) break;
    if (ext->config().preempt_verb.empty() || !ext->interested(pod)) continue;
    const bool meta = ext->config().node_cache_capable;
    json map = json::object();
    for (const Victims& v : victims) {
      json pods = json::array();
      for (const PodId q : v.pods)
        pods.push_back(meta ? json{{"UID", api::object_uid("Pod", q.value())}} : api::pod_to_json(store_, q, tf));
      map[store_.node(v.node).name] = {{"Pods", pods}, {"NumPDBViolations", v.pdb_violations}};
    }
    const json args = {{"Pod", api::pod_to_json(store_, pod, tf)},
                       {meta ? "NodeNameToMetaVictims" : "NodeNameToVictims", map}};
    try {
      const json result = ext->send(ext->config().preempt_verb, args);
      std::vector<Victims> approved;
      const json* m = member(result, "NodeNameToMetaVictims");
      for (auto it = m && m->is_object() ? m->begin() : json::const_iterator(); m && m->is_object() && it != m->end(); ++it) {
        const auto id = node_ids.find(it.key());
        if (id == node_ids.end()) throw std::runtime_error("extender returned a victim on unknown node " + it.key());
        Victims v{id->second, {}, 0};
        if (const json* n = member(*it, "NumPDBViolations"); n && n->is_number_integer()) v.pdb_violations = n->get<std::int64_t>();
        const json* ps = member(*it, "Pods");
        for (const json& mp : ps && ps->is_array() ? *ps : json::array()) {
          const std::string uid = string_member(mp, "UID");
          const auto& on = pods_on(v.node);
          const auto q = std::find_if(on.begin(), on.end(), [&](PodId x) { return api::object_uid("Pod", x.value()) == uid; });
          if (q == on.end())
            throw std::runtime_error("extender: " + ext->config().url_prefix + " claims to preempt pod (UID: " + uid +
                                     ") on node: " + it.key() + ", but the pod is not found on that node");
          v.pods.push_back(*q);
        }
        if (v.pods.empty()) {
          if (ext->config().ignorable) continue;  // "Ignoring node without victims"
          throw std::runtime_error("expected at least one victim pod on node \"" + it.key() + "\"");
        }
        approved.push_back(std::move(v));
      }
      // Go's map order is random: kubesim keeps the candidates' order, then node order.
      std::sort(approved.begin(), approved.end(), [&](const Victims& a, const Victims& b) {
        auto rank = [&](NodeId n) {
          const auto it = std::find_if(victims.begin(), victims.end(), [&](const Victims& x) { return x.node == n; });
          return std::pair<std::size_t, std::uint32_t>(static_cast<std::size_t>(it - victims.begin()), n.value());
        };
        return rank(a.node) < rank(b.node);
      });
      victims.swap(approved);
    } catch (const std::exception& e) {
      ext->report("preempt", e, ext->config().ignorable);
      if (!ext->config().ignorable) return e.what();
    }
  }
  return {};
}

// config/v1 Extender, checked as validation.go validateExtenders (v1.26) does.
std::vector<ExtenderConfig> read_extender_configs(const YAML::Node& list, const YamlInput& in) {
  in.require_list(list, "extenders");
  std::vector<ExtenderConfig> out;
  std::uint32_t binders = 0;
  std::vector<std::string> managed;
  for (const YAML::Node& e : list) {
    in.check_keys(e, {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb", "enableHTTPS",
                      "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable"},
                  "extenders[]");
    ExtenderConfig c;
    if (!e["urlPrefix"]) in.fail(e, "extenders[].urlPrefix is required");
    c.url_prefix = in.scalar(e["urlPrefix"], "extenders[].urlPrefix");
    const std::size_t scheme = c.url_prefix.rfind("https://", 0) == 0 ? 8 : c.url_prefix.rfind("http://", 0) == 0 ? 7 : 0;
    if (scheme == 0 || c.url_prefix.size() <= scheme)
      in.fail(e["urlPrefix"], "extenders[].urlPrefix must be an http:// or https:// URL");
    c.tls = read_extender_tls(e, in);
    auto verb = [&](const char* key) { return e[key] ? in.string_or_null(e[key], std::string("extenders[].") + key) : std::string(); };
    c.filter_verb = verb("filterVerb");
    c.prioritize_verb = verb("prioritizeVerb");
    c.bind_verb = verb("bindVerb");
    c.preempt_verb = verb("preemptVerb");
    if (e["weight"]) c.weight = in.integer(e["weight"], "extenders[].weight", INT64_MIN / 1000, INT64_MAX / 1000);
    if (!c.prioritize_verb.empty() && c.weight <= 0) in.fail(e, "extenders[].weight: must have a positive weight applied to it");
    if (e["httpTimeout"]) {
      Duration d;
      const std::string text = in.scalar(e["httpTimeout"], "extenders[].httpTimeout");
      if (!yunikorn::parse_go_duration(text, &d) || d < Duration()) in.fail(e["httpTimeout"], "extenders[].httpTimeout must be a duration such as 5s");
      if (d > Duration()) c.http_timeout = d;
    }
    if (e["nodeCacheCapable"]) c.node_cache_capable = in.boolean(e["nodeCacheCapable"], "extenders[].nodeCacheCapable");
    if (e["ignorable"]) c.ignorable = in.boolean(e["ignorable"], "extenders[].ignorable");
    if (const YAML::Node mr = e["managedResources"]) {
      in.require_list(mr, "extenders[].managedResources");
      for (const YAML::Node& r : mr) {
        in.check_keys(r, {"name", "ignoredByScheduler"}, "extenders[].managedResources[]");
        const std::string name = in.scalar(r["name"], "extenders[].managedResources[].name");
        if (std::find(managed.begin(), managed.end(), name) != managed.end())
          in.fail(r, "extenders[].managedResources[].name: duplicate extender managed resource name");
        managed.push_back(name);
        c.managed_resources.push_back(name);
        if (r["ignoredByScheduler"] && in.boolean(r["ignoredByScheduler"], "extenders[].managedResources[].ignoredByScheduler"))
          c.ignored_by_scheduler.push_back(name);
      }
    }
    binders += c.bind_verb.empty() ? 0 : 1;
    out.push_back(std::move(c));
  }
  if (binders > 1) in.fail(list, "extenders: found " + std::to_string(binders) + " extenders implementing bind, only one extender can implement bind");
  return out;
}

}  // namespace kubesim

#include "sched/volcano/vc_config.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/split.hpp"
#include "core/yaml_input.hpp"

namespace kubesim::volcano {

const char* const kDefaultConf = R"(actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
)";

namespace {

constexpr std::pair<const char*, Action> kActions[] = {{"enqueue", Action::kEnqueue},
                                                       {"allocate", Action::kAllocate},
                                                       {"backfill", Action::kBackfill},
                                                       {"preempt", Action::kPreempt},
                                                       {"reclaim", Action::kReclaim}};
constexpr std::pair<const char*, Plugin> kPlugins[] = {
    {"priority", Plugin::kPriority},   {"gang", Plugin::kGang},           {"conformance", Plugin::kConformance},
    {"drf", Plugin::kDrf},             {"proportion", Plugin::kProportion}, {"predicates", Plugin::kPredicates},
    {"nodeorder", Plugin::kNodeorder}, {"binpack", Plugin::kBinpack},     {"overcommit", Plugin::kOvercommit}};

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Line numbers of an embedded text shifted to the enclosing file's.
class ConfReader : public YamlInput {
 public:
  ConfReader(const std::string& path, int offset) : YamlInput(path), offset_(offset) {}

  [[noreturn]] void fail_at(const YAML::Node& n, const std::string& what) const {
    throw InputError(path(), line_of(n) + offset_, what);
  }

  SchedulerConf read(const YAML::Node& root) {
    SchedulerConf c;
    if (!root.IsMap()) fail_at(root, "expected the Volcano scheduler configuration to be a map");
    for (const auto& kv : root) {
      const std::string key = kv.first.as<std::string>();
      if (key != "actions" && key != "tiers" && key != "configurations" && key != "metrics")
        fail_at(kv.first, "unknown key \"" + key + "\" in the Volcano scheduler configuration (expected actions, tiers, "
                          "configurations, metrics)");
    }
    if (!root["actions"] || !root["actions"].IsScalar()) fail_at(root, "expected actions: \"enqueue, allocate, ...\"");
    read_actions(root["actions"], c);
    if (!root["tiers"] || !root["tiers"].IsSequence()) fail_at(root, "expected tiers: a list of {plugins: [...]}");
    for (const auto& t : root["tiers"]) c.tiers.push_back(read_tier(t));
    // drf's PreemptableFn (share comparisons between jobs) is not modelled.
    if (c.has(Action::kPreempt))
      for (const auto& t : root["tiers"])
        for (const auto& p : t["plugins"])
          if (p["name"].as<std::string>() == "drf" && c.find(Plugin::kDrf)->preemptable)
            fail_at(p, "drf's preemption (enablePreemptable) is not modelled by kubesim: set enablePreemptable: false under "
                       "the preempt action");
    return c;
  }

 private:
  void read_actions(const YAML::Node& n, SchedulerConf& c) {
    // scheduler/util.go unmarshalSchedulerConf: split on ",", trimmed; an unknown name fails
    // the scheduler's start ("failed to find Action %s").
    for (const std::string& part : split(n.as<std::string>(), ',')) {
      const std::string name = trim(part);
      auto it = std::find_if(std::begin(kActions), std::end(kActions), [&](const auto& a) { return name == a.first; });
      if (it == std::end(kActions))
        fail_at(n, "unknown action \"" + name + "\" (expected enqueue, allocate, backfill, preempt, reclaim)");
      c.actions.push_back(it->second);
    }
  }

  Tier read_tier(const YAML::Node& t) {
    if (!t.IsMap() || !t["plugins"] || !t["plugins"].IsSequence()) fail_at(t, "expected a tier to be {plugins: [...]}");
    Tier tier;
    for (const auto& p : t["plugins"]) tier.plugins.push_back(read_plugin(p));
    return tier;
  }

  PluginOption read_plugin(const YAML::Node& p) {
    if (!p.IsMap() || !p["name"]) fail_at(p, "expected a plugin to be a map with a name");
    PluginOption o;
    const std::string name = p["name"].as<std::string>();
    auto it = std::find_if(std::begin(kPlugins), std::end(kPlugins), [&](const auto& x) { return name == x.first; });
    if (it == std::end(kPlugins))
      fail_at(p["name"], "unknown plugin \"" + name +
                             "\" (kubesim models priority, gang, conformance, drf, proportion, predicates, nodeorder, "
                             "binpack, overcommit)");
    o.plugin = it->second;
    const std::pair<const char*, bool PluginOption::*> switches[] = {
        {"enableJobOrder", &PluginOption::job_order},         {"enableNamespaceOrder", &PluginOption::namespace_order},
        {"enableJobReady", &PluginOption::job_ready},         {"enableJobPipelined", &PluginOption::job_pipelined},
        {"enableTaskOrder", &PluginOption::task_order},       {"enablePreemptable", &PluginOption::preemptable},
        {"enableReclaimable", &PluginOption::reclaimable},    {"enableQueueOrder", &PluginOption::queue_order},
        {"enablePredicate", &PluginOption::predicate},        {"enableBestNode", &PluginOption::best_node},
        {"enableNodeOrder", &PluginOption::node_order},       {"enableTargetJob", &PluginOption::target_job},
        {"enableReservedNodes", &PluginOption::reserved_nodes}, {"enableJobEnqueued", &PluginOption::job_enqueued},
        {"enabledVictim", &PluginOption::victim},             {"enableJobStarving", &PluginOption::job_starving}};
    for (const auto& kv : p) {
      const std::string key = kv.first.as<std::string>();
      if (key == "name") continue;
      if (key == "arguments") {
        if (kv.second.IsNull()) continue;
        if (!kv.second.IsMap()) fail_at(kv.second, "expected the arguments of plugin " + name + " to be a map");
        for (const auto& a : kv.second) {
          if (!a.second.IsScalar()) fail_at(a.second, "expected argument " + a.first.as<std::string>() + " to be a scalar");
          const std::string value = a.second.as<std::string>();
          char* end = nullptr;
          std::strtod(value.c_str(), &end);
          if (value.empty() || *end != '\0')
            fail_at(a.second, "expected argument " + a.first.as<std::string>() + " of plugin " + name + " to be a number, got \"" + value + "\"");
          o.arguments[a.first.as<std::string>()] = value;
        }
        continue;
      }
      auto sw = std::find_if(std::begin(switches), std::end(switches), [&](const auto& s) { return key == s.first; });
      if (sw == std::end(switches)) fail_at(kv.first, "unknown key \"" + key + "\" in plugin " + name);
      const std::string v = kv.second.IsScalar() ? kv.second.as<std::string>() : "";
      if (v != "true" && v != "false") fail_at(kv.second, "expected " + key + " to be true or false");
      o.*(sw->second) = v == "true";
    }
    return o;
  }

  int offset_;
};

class ObjectReader : public YamlInput {
 public:
  ObjectReader(const std::string& path, ResourceNames& names) : YamlInput(path), names_(names) {}

  void read(const std::vector<YAML::Node>& docs, Config& c) {
    bool conf_seen = false;
    for (const YAML::Node& d : docs) {
      if (!d || d.IsNull()) continue;
      require_map(d, "a document of the Volcano configuration");
      if (d["actions"] || d["tiers"]) {
        if (conf_seen) fail(d, "a second Volcano scheduler configuration");
        conf_seen = true;
        c.conf = ConfReader(path(), 0).read(d);
        continue;
      }
      const std::string kind = d["kind"] ? scalar(d["kind"], "kind") : "";
      if (kind == "Job" && d["apiVersion"] && d["apiVersion"].as<std::string>() == kVolcanoJobApi) continue;  // the setup's
      if (kind == "ConfigMap") {
        const YAML::Node data = d["data"] ? d["data"]["volcano-scheduler.conf"] : YAML::Node();
        if (!data) fail(d, "expected the ConfigMap to have data.volcano-scheduler.conf");
        if (conf_seen) fail(d, "a second Volcano scheduler configuration");
        conf_seen = true;
        // A block scalar's text starts on the line after its indicator.
        const int offset = line_of(data);
        YAML::Node inner;
        try {
          inner = YAML::Load(scalar(data, "data.volcano-scheduler.conf"));
        } catch (const YAML::Exception& e) {
          throw InputError(path(), line_of(e.mark) + offset, "malformed volcano-scheduler.conf: " + e.msg);
        }
        c.conf = ConfReader(path(), offset).read(inner);
      } else if (kind == "Queue") {
        read_queue(d, c);
      } else if (kind == "PodGroup") {
        read_pod_group(d, c);
      } else {
        fail(d, "expected a Volcano scheduler configuration, a ConfigMap holding volcano-scheduler.conf, a Queue, a "
                "PodGroup or a Volcano Job, got kind \"" + kind + "\"");
      }
    }
  }

 private:
  void check_api(const YAML::Node& d, const std::string& kind) {
    check_keys(d, {"apiVersion", "kind", "metadata", "spec", "status"}, kind);
    const std::string api = d["apiVersion"] ? scalar(d["apiVersion"], "apiVersion") : "";
    if (api != "scheduling.volcano.sh/v1beta1")
      fail(d["apiVersion"] ? d["apiVersion"] : d, "expected apiVersion scheduling.volcano.sh/v1beta1 for a " + kind);
    if (!d["metadata"] || !d["metadata"]["name"]) fail(d, "expected the " + kind + " to have metadata.name");
  }

  void resources(const YAML::Node& n, const std::string& where, Resources& out, std::uint32_t& slots) {
    require_map(n, where);
    for (const auto& kv : n) {
      const std::string name = kv.first.as<std::string>();
      const int slot = names_.slot(name);
      if (slot < 0) fail(kv.first, "too many resource names (at \"" + name + "\")");
      const Quantity q = quantity(kv.second, where + "." + name);
      out[static_cast<std::size_t>(slot)] = slot == static_cast<int>(kCpu) ? q.milli_value() : q.value();
      slots |= 1u << slot;
    }
  }

  void read_queue(const YAML::Node& d, Config& c) {
    check_api(d, "Queue");
    QueueSpec q;
    q.name = scalar(d["metadata"]["name"], "metadata.name");
    const std::string w = "Queue " + q.name;
    if (const YAML::Node s = d["spec"]) {
      require_map(s, w + ".spec");
      check_keys(s, {"weight", "capability", "guarantee", "reclaimable"}, {}, {"affinity", "extendClusters", "type"},
                 w + ".spec");
      if (s["weight"]) q.weight = static_cast<std::int32_t>(integer(s["weight"], w + ".spec.weight", 1, 65535));
      if (s["capability"]) resources(s["capability"], w + ".spec.capability", q.capability, q.capability_slots);
      if (const YAML::Node g = s["guarantee"]) {
        require_map(g, w + ".spec.guarantee");
        check_keys(g, {"resource"}, w + ".spec.guarantee");
        if (g["resource"]) resources(g["resource"], w + ".spec.guarantee.resource", q.guarantee, q.guarantee_slots);
      }
      if (s["reclaimable"]) q.reclaimable = boolean(s["reclaimable"], w + ".spec.reclaimable");
    }
    if (const YAML::Node st = d["status"]; st && st["state"]) {
      const std::string state = scalar(st["state"], w + ".status.state");
      if (state != "Open" && state != "Closed" && state != "Closing")
        fail(st["state"], "expected " + w + ".status.state to be Open, Closed or Closing");
      q.open = state == "Open";
    }
    const int existing = c.find_queue(q.name);
    if (existing == 0) {
      c.queues[0] = q;  // the file's own default queue
    } else if (existing > 0) {
      fail(d, "duplicate Queue \"" + q.name + "\"");
    } else {
      c.queues.push_back(q);
    }
  }

  void read_pod_group(const YAML::Node& d, Config& c) {
    check_api(d, "PodGroup");
    PodGroupSpec g;
    g.name = scalar(d["metadata"]["name"], "metadata.name");
    if (d["metadata"]["namespace"]) g.ns = scalar(d["metadata"]["namespace"], "metadata.namespace");
    const std::string w = "PodGroup " + g.ns + "/" + g.name;
    for (const PodGroupSpec& other : c.pod_groups)
      if (other.name == g.name && other.ns == g.ns) fail(d, "duplicate " + w);
    if (const YAML::Node s = d["spec"]) {
      require_map(s, w + ".spec");
      check_keys(s, {"minMember", "minResources", "queue", "priorityClassName", "minTaskMember"}, {}, {}, w + ".spec");
      if (s["minMember"]) g.min_member = static_cast<std::int32_t>(integer(s["minMember"], w + ".spec.minMember", 0, 1000000));
      if (s["minResources"]) {
        std::uint32_t slots = 0;
        resources(s["minResources"], w + ".spec.minResources", g.min_resources, slots);
        g.has_min_resources = true;
      }
      if (s["queue"]) g.queue = scalar(s["queue"], w + ".spec.queue");
      if (s["priorityClassName"]) g.priority_class = scalar(s["priorityClassName"], w + ".spec.priorityClassName");
      if (const YAML::Node m = s["minTaskMember"]) {
        require_map(m, w + ".spec.minTaskMember");
        for (const auto& kv : m) {
          const std::string task = scalar(kv.first, w + ".spec.minTaskMember key");
          g.min_task_member.emplace_back(task, static_cast<std::int32_t>(integer(kv.second, w + ".spec.minTaskMember." + task, 0, 1000000)));
        }
        std::sort(g.min_task_member.begin(), g.min_task_member.end());
      }
    }
    pending_queues_.emplace_back(g.queue, d["spec"] && d["spec"]["queue"] ? d["spec"]["queue"] : d);
    c.pod_groups.push_back(std::move(g));
  }

 public:
  // A PodGroup naming a queue no document defines (the webhook refuses it: "unable to find
  // job queue").
  void check_queues(const Config& c) const {
    for (const auto& [name, node] : pending_queues_)
      if (c.find_queue(name) < 0) fail(node, "PodGroup names queue \"" + name + "\", which is not defined");
  }

 private:
  ResourceNames& names_;
  std::vector<std::pair<std::string, YAML::Node>> pending_queues_;
};

}  // namespace

const char* to_string(Action a) {
  for (const auto& [name, x] : kActions)
    if (x == a) return name;
  return "?";
}

const char* to_string(Plugin p) {
  for (const auto& [name, x] : kPlugins)
    if (x == p) return name;
  return "?";
}

double PluginOption::number(const std::string& key, double fallback) const {
  auto it = arguments.find(key);
  return it == arguments.end() ? fallback : std::strtod(it->second.c_str(), nullptr);
}

bool SchedulerConf::has(Action a) const { return std::find(actions.begin(), actions.end(), a) != actions.end(); }

const PluginOption* SchedulerConf::find(Plugin p) const {
  for (const Tier& t : tiers)
    for (const PluginOption& o : t.plugins)
      if (o.plugin == p) return &o;
  return nullptr;
}

int Config::find_queue(const std::string& name) const {
  for (std::size_t i = 0; i < queues.size(); ++i)
    if (queues[i].name == name) return static_cast<int>(i);
  return -1;
}

SchedulerConf parse_scheduler_conf(const std::string& text, const std::string& path, int line_offset) {
  try {
    return ConfReader(path, line_offset).read(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    throw InputError(path, line_of(e.mark) + line_offset, "malformed volcano-scheduler.conf: " + e.msg);
  }
}

Config default_config() {
  Config c;
  c.conf = parse_scheduler_conf(kDefaultConf, "volcano-scheduler.conf");
  QueueSpec q;
  q.name = "default";
  c.queues.push_back(q);
  return c;
}

Config load_config(const std::string& path, ResourceNames& names) {
  Config c = default_config();
  const std::vector<YAML::Node> docs = load_yaml_documents(path);
  try {
    ObjectReader r(path, names);
    r.read(docs, c);
    r.check_queues(c);
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e, "unexpected value: ");
  }
  return c;
}

}  // namespace kubesim::volcano

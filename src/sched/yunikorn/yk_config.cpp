#include "sched/yunikorn/yk_config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/quantity.hpp"
#include "core/read_file.hpp"
#include "core/yaml_input.hpp"

namespace kubesim::yunikorn {

int Config::find(const std::string& path) const {
  for (std::size_t i = 0; i < queues.size(); ++i)
    if (queues[i].path == path) return static_cast<int>(i);
  return -1;
}

bool parse_go_duration(const std::string& s, Duration* out) {
  // time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+, or "0".
  if (s == "0") {
    *out = Duration();
    return true;
  }
  std::size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i >= s.size()) return false;
  double total = 0;  // microseconds
  while (i < s.size()) {
    const std::size_t start = i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    if (i == start) return false;
    double value = 0;
    try {
      value = std::stod(s.substr(start, i - start));
    } catch (...) {
      return false;
    }
    const std::size_t ustart = i;
    while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.') ++i;
    const std::string unit = s.substr(ustart, i - ustart);
    double us = 0;
    if (unit == "ns") us = 1e-3;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") us = 1;
    else if (unit == "ms") us = 1e3;
    else if (unit == "s") us = 1e6;
    else if (unit == "m") us = 60e6;
    else if (unit == "h") us = 3600e6;
    else return false;
    total += value * us;
  }
  if (!std::isfinite(total) || total > 9e15) return false;
  *out = Duration::micros(static_cast<std::int64_t>(std::llround(neg ? -total : total)));
  return true;
}

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class Reader : private YamlInput {
 public:
  Reader(std::string path, const ResourceNames& names) : YamlInput(std::move(path)), names_(names) {}

  Config read(const YAML::Node& root) {
    Config c;
    c.source = path();
    require_map(root, "queues.yaml");
    check_keys(root, {"partitions", "checksum"}, "queues.yaml");
    const YAML::Node parts = root["partitions"];
    if (!parts) fail(root, "expected queues.yaml to have partitions");
    require_list(parts, "partitions");
    if (parts.size() == 0) fail(parts, "expected partitions to have one partition");
    if (parts.size() > 1) fail(parts[1], "partitions: kubesim models one partition (the Kubernetes shim's \"default\")");
    const YAML::Node p = parts[0];
    require_map(p, "partitions[0]");
    check_keys(p, {"name", "queues", "nodesortpolicy", "preemption", "placementrules", "limits", "statedumpfilepath"},
               "partitions[0]");
    if (p["name"]) c.partition = lower(scalar(p["name"], "partitions[0].name"));
    if (const YAML::Node pr = p["placementrules"]) {
      // configs.PlacementRule: only the implicit provided rule (no rules configured) is modelled.
      require_list(pr, "partitions[0].placementrules");
      if (pr.size() > 0) fail(pr, "partitions[0].placementrules is not supported by kubesim (only the implicit provided rule)");
    }
    if (const YAML::Node l = p["limits"]) {
      require_list(l, "partitions[0].limits");
      if (l.size() > 0) fail(l, "partitions[0].limits is not supported by kubesim");
    }
    if (const YAML::Node ns = p["nodesortpolicy"]) {
      require_map(ns, "nodesortpolicy");
      check_keys(ns, {"type", "resourceweights"}, "nodesortpolicy");
      if (ns["type"]) {
        const std::string t = lower(scalar(ns["type"], "nodesortpolicy.type"));
        // policies.SortingPolicyFromString: "" and fair -> fair, binpacking.
        if (t == "" || t == "fair") c.node_sort = NodeSort::kFair;
        else if (t == "binpacking") c.node_sort = NodeSort::kBinpacking;
        else fail(ns["type"], "expected nodesortpolicy.type to be fair or binpacking, got \"" + t + "\"");
      }
      if (const YAML::Node w = ns["resourceweights"]) {
        require_map(w, "nodesortpolicy.resourceweights");
        c.resource_weights.clear();
        for (const auto& kv : w) {
          const std::string key = scalar(kv.first, "nodesortpolicy.resourceweights key");
          double weight = 0;
          try {
            weight = std::stod(scalar(kv.second, "nodesortpolicy.resourceweights." + key));
          } catch (...) {
            fail(kv.second, "expected nodesortpolicy.resourceweights." + key + " to be a number");
          }
          if (weight < 0) fail(kv.second, "expected nodesortpolicy.resourceweights." + key + " to be >= 0");
          const int slot = slot_of(key);
          if (slot >= 0) c.resource_weights.emplace_back(static_cast<std::size_t>(slot), weight);
        }
      }
    }
    if (const YAML::Node pre = p["preemption"]) {
      require_map(pre, "partitions[0].preemption");
      check_keys(pre, {"enabled"}, "partitions[0].preemption");
      if (pre["enabled"]) c.preemption_enabled = boolean(pre["enabled"], "partitions[0].preemption.enabled");
    }
    const YAML::Node qs = p["queues"];
    if (!qs) fail(p, "expected partitions[0] to have queues");
    require_list(qs, "partitions[0].queues");
    if (qs.size() != 1) fail(qs, "expected partitions[0].queues to hold the one queue root");
    read_queue(c, qs[0], -1);
    if (c.queues[0].name != "root") fail(qs[0], "expected the top queue to be named root, got \"" + c.queues[0].name + "\"");
    return c;
  }

 private:
  int slot_of(const std::string& key) const {
    // configs: "vcore" is cpu, "pods" the shim's pod count, other names the node resources.
    if (key == "vcore") return static_cast<int>(kCpu);
    if (key == "pods") return static_cast<int>(kPods);
    return names_.find(key);
  }

  Res resource(const YAML::Node& n, const std::string& where) {
    // resources.NewResourceFromConf: vcore via ParseVCore (milli), the rest Quantity.Value().
    require_map(n, where);
    Res r;
    for (const auto& kv : n) {
      const std::string key = scalar(kv.first, where + " key");
      const std::string w = where + "." + key;
      const Quantity q = quantity(kv.second, w);
      const int slot = slot_of(key);
      if (slot < 0) continue;  // a type no pod or node of this run has: no effect on any check
      r.set(static_cast<std::size_t>(slot), key == "vcore" ? q.milli_value() : q.value());
    }
    // queue.go setResources: an all-zero resource counts as not set.
    bool zero = true;
    for (std::int64_t x : r.v) zero = zero && x == 0;
    if (zero) r = Res{};
    return r;
  }

  // queue.go UpdateQueueProperties: the properties that change decisions modelled here.
  void read_properties(const YAML::Node& props, const std::string& w, QueueConf& qc) {
    require_map(props, w + ".properties");
    for (const auto& kv : props) {
      const std::string key = scalar(kv.first, w + ".properties key");
      const std::string value = lower(string_or_null(kv.second, w + ".properties." + key));
      const std::string pw = w + ".properties." + key;
      if (key == "application.sort.policy") {
        // policies.SortPolicyFromString: fifo (and unknown values), fair; stateaware is fifo
        // with one app starting at a time, which kubesim does not model.
        if (value == "fair") qc.app_sort = AppSort::kFair;
        else if (value == "stateaware") fail(kv.second, pw + ": stateaware is not supported by kubesim");
        else qc.app_sort = AppSort::kFifo;
      } else if (key == "application.sort.priority") {
        qc.priority_sort = value != "disabled";
      } else if (key == "priority.policy") {
        qc.priority_fence = value == "fence";
      } else if (key == "priority.offset") {
        qc.priority_offset = static_cast<std::int32_t>(integer(kv.second, pw, std::numeric_limits<std::int32_t>::min(),
                                                               std::numeric_limits<std::int32_t>::max()));
      } else if (key == "preemption.policy") {
        if (value == "fence") qc.preemption = PreemptionPolicy::kFence;
        else if (value == "disabled") qc.preemption = PreemptionPolicy::kDisabled;
        else qc.preemption = PreemptionPolicy::kDefault;
      } else if (key == "preemption.delay") {
        // queue.go UpdateQueueProperties: a value that does not parse or is <= 0 keeps the default.
        Duration d;
        if (parse_go_duration(value, &d) && d > Duration()) qc.preemption_delay = d;
      }
      // Other properties (guaranteed/max app counts per user etc.) do not change decisions
      // modelled here and are ignored, as upstream ignores unknown keys.
    }
  }

  void read_queue(Config& c, const YAML::Node& q, int parent) {
    const std::string where = parent < 0 ? "queue" : "queue " + c.queues[parent].path;
    require_map(q, where);
    check_keys(q, {"name", "parent", "resources", "maxapplications", "properties", "adminacl", "submitacl",
                   "childtemplate", "queues", "limits"},
               where);
    if (!q["name"]) fail(q, "expected " + where + " to have a name");
    QueueConf qc;
    qc.name = lower(scalar(q["name"], where + ".name"));
    if (qc.name.empty() || qc.name.find('.') != std::string::npos)
      fail(q["name"], "expected a queue name without dots, got \"" + qc.name + "\"");
    qc.path = parent < 0 ? qc.name : c.queues[parent].path + "." + qc.name;
    qc.parent = parent;
    qc.line = line_of(q);
    const std::string w = "queue " + qc.path;
    for (int sib : parent < 0 ? std::vector<int>{} : c.queues[parent].children)
      if (c.queues[sib].name == qc.name) fail(q["name"], "duplicate queue " + qc.path);
    if (const YAML::Node l = q["limits"]) {
      require_list(l, w + ".limits");
      if (l.size() > 0) fail(l, w + ".limits is not supported by kubesim");
    }
    if (q["childtemplate"]) fail(q["childtemplate"], w + ".childtemplate is not supported by kubesim");
    if (const YAML::Node r = q["resources"]) {
      require_map(r, w + ".resources");
      check_keys(r, {"guaranteed", "max"}, w + ".resources");
      if (r["guaranteed"]) qc.guaranteed = resource(r["guaranteed"], w + ".resources.guaranteed");
      if (r["max"]) qc.max = resource(r["max"], w + ".resources.max");
    }
    if (q["maxapplications"])
      qc.max_applications = integer(q["maxapplications"], w + ".maxapplications", 0, std::numeric_limits<std::int32_t>::max());
    // queue.go mergeProperties / UpdateQueueProperties: the parent's properties are inherited
    // except priority.offset and priority.policy, and preemption.policy only when disabled.
    if (parent >= 0) {
      const QueueConf& pq = c.queues[parent];
      qc.app_sort = pq.app_sort;
      qc.priority_sort = pq.priority_sort;
      qc.preemption = pq.preemption == PreemptionPolicy::kDisabled ? PreemptionPolicy::kDisabled : PreemptionPolicy::kDefault;
      qc.preemption_delay = pq.preemption_delay;
    }
    if (const YAML::Node props = q["properties"]) read_properties(props, w, qc);
    const int index = static_cast<int>(c.queues.size());
    c.queues.push_back(qc);
    if (parent >= 0) {
      auto& ch = c.queues[parent].children;
      ch.push_back(index);
      std::sort(ch.begin(), ch.end(), [&](int a, int b) { return c.queues[a].name < c.queues[b].name; });
      c.queues[parent].leaf = false;
    }
    const bool is_parent = q["parent"] && boolean(q["parent"], w + ".parent");
    if (const YAML::Node sub = q["queues"]) {
      require_list(sub, w + ".queues");
      for (const auto& s : sub) read_queue(c, s, index);
    }
    if (is_parent || !c.queues[index].children.empty()) c.queues[index].leaf = false;
    // A parent queue's applications are always sorted fair (UpdateQueueProperties).
  }

  const ResourceNames& names_;
};

}  // namespace

Config parse_queues_yaml(const std::string& text, const std::string& path, int line_offset, const ResourceNames& names) {
  try {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw yaml_error(path, e);
    }
    return Reader(path, names).read(root);
  } catch (const InputError& e) {
    throw InputError(path, e.line() > 0 ? e.line() + line_offset : 0, e.problem());
  }
}

Config load_config(const std::string& path, const ResourceNames& names) {
  return load_config_text(read_input_file(path), path, names);
}

Config load_config_text(const std::string& text, const std::string& path, const ResourceNames& names) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw yaml_error(path, e);
  }
  YamlInput in(path);
  in.require_map(root, path);
  // A bare queues.yaml.
  if (!root["kind"]) return Reader(path, names).read(root);
  // The yunikorn-configs ConfigMap (the Helm chart's, as the study applied it).
  if (in.scalar(root["kind"], "kind") != "ConfigMap")
    in.fail(root["kind"], "expected kind ConfigMap (yunikorn-configs) or a bare queues.yaml");
  const YAML::Node data = root["data"];
  if (!data) in.fail(root, "expected the ConfigMap to have data");
  in.require_map(data, "data");
  const YAML::Node q = data["queues.yaml"];
  if (!q) in.fail(data, "expected data to have queues.yaml");
  // A block scalar's text starts on the line after its key.
  Config c = parse_queues_yaml(in.scalar(q, "data.queues.yaml"), path, line_of(q), names);
  for (const auto& kv : data) {
    const std::string key = in.scalar(kv.first, "data key");
    if (key == "kubesim.yunikornVersion") {
      const std::string v = in.scalar(kv.second, "data." + key);
      if (v != "1.5" && v != "1.6") in.fail(kv.second, "expected data." + key + " to be \"1.5\" or \"1.6\", got \"" + v + "\"");
      c.ratios_only = v == "1.6";
    } else if (key == "kubesim.bindLatency") {
      c.bind_latency = Distribution::parse(in.scalar(kv.second, "data." + key), path, line_of(kv.second));
    } else if (key == "kubesim.cycleLatency") {
      c.cycle_latency = Distribution::parse(in.scalar(kv.second, "data." + key), path, line_of(kv.second));
    } else if (key.rfind("kubesim.", 0) == 0) {
      in.fail(kv.first, "unknown key data." + key +
                            " (expected kubesim.yunikornVersion, kubesim.bindLatency or kubesim.cycleLatency)");
    }
    // Other keys (service.*, log.*, admissionController.*) configure the shim's service,
    // not scheduling decisions modelled here.
  }
  return c;
}

}  // namespace kubesim::yunikorn

#include "sweep/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "core/limits.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/quantity.hpp"
#include "core/split.hpp"
#include "core/yaml_input.hpp"
#include "engine/model_config.hpp"
#include "workload/openb_csv.hpp"

namespace kubesim {

namespace fs = std::filesystem;

namespace {

// FNV-1a, 64 bits, then MurmurHash3's fmix64 so that keys differing in their last bytes
// differ in every digit: a stable, platform-independent hash for cell ids.
std::uint64_t cell_hash(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// A YAML value as one line of text: a scalar as written, anything else in flow style.
std::string value_label(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n;
  return e.c_str();
}

class PlanReader : YamlInput {
 public:
  PlanReader(std::string path, const PolicyLoader& load_policies)
      : YamlInput(std::move(path)), dir_(fs::path(this->path()).parent_path()), load_policies_(load_policies) {}

  SweepPlan read() {
    const YAML::Node root = load_yaml_file(path());
    try {
      read_root(root);
    } catch (const YAML::Exception& e) {
      throw yaml_error(path(), e);
    }
    return std::move(p_);
  }

 private:
  std::string file(const YAML::Node& n, const std::string& where) const {
    const std::string given = scalar(n, where);
    if (given.empty()) fail(n, "expected " + where + " to be a file path");
    fs::path f(given);
    if (f.is_relative()) f = dir_ / f;
    std::error_code ec;
    if (!fs::is_regular_file(f, ec)) fail(n, "expected " + where + " \"" + given + "\" to be a file (looked for " + f.string() + ")");
    return f.string();
  }
  // A non-empty list (the axis).
  void axis(const YAML::Node& n, const std::string& where) const {
    require_list(n, where);
    if (n.size() == 0) fail(n, "expected " + where + " to list at least one value (an empty axis has no cells)");
  }
  template <class T>
  void unique(const std::vector<T>& labels, const YAML::Node& n, const std::string& where) const {
    std::set<std::string> seen;
    for (const auto& l : labels)
      if (!seen.insert(l).second) fail(n, where + " lists \"" + l + "\" twice");
  }

  void read_root(const YAML::Node& root) {
    if (!root.IsDefined() || root.IsNull()) throw InputError(path(), 0, "expected a sweep plan map, got an empty document");
    require_map(root, "the sweep plan");
    check_keys(root, {"name", "scenarios", "schedulers", "models", "seeds", "overrides", "collect", "cellsPerTask", "kubernetes",
                      "policies", "tune", "pythonPolicies"},
               "the sweep plan");
    p_.path = path();
    p_.name = fs::path(path()).stem().string();
    if (const YAML::Node n = root["name"]) {
      p_.name = scalar(n, "name");
      if (p_.name.empty()) fail(n, "expected name to be non-empty");
    }
    const YAML::Node scenarios = root["scenarios"];
    if (!scenarios) throw InputError(path(), line_of(root), "expected the sweep plan to have scenarios (scenario files or {platform, workload} pairs)");
    read_inputs(scenarios);
    if (p_.inputs.front().openb()) {
      read_openb_axes(root);
    } else {
      for (const char* key : {"policies", "tune"})
        if (const YAML::Node n = root[key]) fail(n, std::string(key) + " goes with openb traces ({openbNodes, openbPods} scenarios)");
      read_python_policies(root["pythonPolicies"]);
      read_schedulers(root["schedulers"]);
      read_models(root["models"]);
    }
    read_seeds(root["seeds"]);
    if (const YAML::Node n = root["overrides"]) read_overrides(n);
    read_collect(root["collect"]);
    if (const YAML::Node n = root["cellsPerTask"]) p_.cells_per_task = static_cast<std::size_t>(integer(n, "cellsPerTask", 1, 1'000'000));
    if (const YAML::Node n = root["kubernetes"]) read_kubernetes(n);
    check_cell_count(root);
    expand();
  }

  void read_inputs(const YAML::Node& list) {
    axis(list, "scenarios");
    std::vector<std::string> labels;
    for (const YAML::Node& n : list) {
      SweepInput in;
      if (n.IsMap() && (n["openbNodes"] || n["openbPods"])) {
        check_keys(n, {"openbNodes", "openbPods"}, "a scenarios entry");
        if (!n["openbNodes"] || !n["openbPods"]) fail(n, "expected an openb scenarios entry to give openbNodes and openbPods");
        in.openb_nodes = file(n["openbNodes"], "openbNodes");
        in.openb_pods = file(n["openbPods"], "openbPods");
        in.label = openb_workload_name(in.openb_pods);
      } else if (n.IsMap()) {
        read_cluster_workload(n, in);
      } else {
        in.files.scenario = file(n, "a scenarios entry");
        in.label = scalar(n, "a scenarios entry");
      }
      if (!p_.inputs.empty() && p_.inputs.front().openb() != in.openb())
        fail(n, "expected every scenarios entry to be an openb trace, or none (the protocol and the simulation do not mix)");
      labels.push_back(in.label);
      p_.inputs.push_back(std::move(in));
    }
    unique(labels, list, "scenarios");
  }

  // {platform|cluster: F, workload|swf: F}, with an swf trace run's --swf-* options as
  // swfCpuPerProcessor, swfMemory and swfProcessors (checked as run checks them).
  void read_cluster_workload(const YAML::Node& n, SweepInput& in) const {
    check_keys(n, {"platform", "cluster", "workload", "swf", "swfCpuPerProcessor", "swfMemory", "swfProcessors"},
               "a scenarios entry");
    if (n["platform"] && n["cluster"]) fail(n, "expected a scenarios entry to give platform or cluster, not both");
    if (n["workload"] && n["swf"]) fail(n, "expected a scenarios entry to give workload or swf, not both");
    if (!n["platform"] && !n["cluster"]) fail(n, "expected a scenarios entry to give a platform or a cluster");
    if (!n["workload"] && !n["swf"]) fail(n, "expected a scenarios entry to give a workload or an swf trace");
    InputFiles& f = in.files;
    if (n["platform"]) f.platform = file(n["platform"], "platform");
    if (n["cluster"]) f.cluster = file(n["cluster"], "cluster");
    if (n["workload"]) f.workload = file(n["workload"], "workload");
    if (n["swf"]) f.swf = file(n["swf"], "swf");
    in.label = cluster_workload_title(f);
    // Run's defaults, and the values each key may take there (its CLI::IsMember checks).
    struct SwfKey {
      const char* key;
      std::string value;
      std::vector<std::string> allowed;  // empty: a positive cpu quantity
    };
    SwfKey keys[] = {{"swfCpuPerProcessor", "1", {}},
                     {"swfMemory", "none", {"none", "requested", "used"}},
                     {"swfProcessors", "machines", {"machines", "cores"}}};
    std::string given;
    for (SwfKey& k : keys) {
      const YAML::Node v = n[k.key];
      if (!v) continue;
      if (f.swf.empty()) fail(v, std::string("expected ") + k.key + " only with an swf trace");
      k.value = scalar(v, k.key);
      if (k.allowed.empty()) {
        if (parse_resource_quantity(k.value, path(), line_of(v), k.key).is_zero())
          fail(v, std::string("expected ") + k.key + " to be positive, got \"" + k.value + "\"");
      } else if (std::find(k.allowed.begin(), k.allowed.end(), k.value) == k.allowed.end()) {
        std::string allowed;
        for (const std::string& a : k.allowed) allowed += (allowed.empty() ? "" : ", ") + a;
        fail(v, std::string("expected ") + k.key + " to be one of " + allowed + ", got \"" + k.value + "\"");
      }
      given += (given.empty() ? "" : ", ") + std::string(k.key) + "=" + k.value;
    }
    f.swf_options = swf_options(keys[0].value, keys[1].value, keys[2].value);
    if (!given.empty()) in.label += " (" + given + ")";  // run's defaults keep the label (and the cells' ids)
  }

  // pythonPolicies: NAME: FILE:CLASS, loaded by the caller's loader (with sweep's --policy).
  void read_python_policies(const YAML::Node& map) {
    std::vector<std::string> specs;
    if (map) {
      require_map(map, "pythonPolicies");
      if (!load_policies_) fail(map, "pythonPolicies: this command does not load Python policies (use kubesim sweep)");
      for (const auto& entry : map) {
        const std::string name = scalar(entry.first, "a pythonPolicies name");
        const std::string value = scalar(entry.second, "pythonPolicies." + name);
        const std::size_t colon = value.rfind(':');
        if (name.empty() || colon == std::string::npos || colon == 0 || colon + 1 == value.size())
          fail(entry.second, "expected pythonPolicies." + name + " to be FILE:CLASS, got \"" + value + "\"");
        fs::path f(value.substr(0, colon));
        if (f.is_relative()) f = dir_ / f;
        std::error_code ec;
        if (!fs::is_regular_file(f, ec))
          fail(entry.second, "expected the policy file \"" + value.substr(0, colon) + "\" to be a file (looked for " + f.string() + ")");
        specs.push_back(name + "=" + f.string() + value.substr(colon));
      }
    }
    if (load_policies_) p_.policies = load_policies_(specs);
  }

  void read_schedulers(const YAML::Node& list) {
    if (!list) {
      p_.schedulers.push_back({"scenario", {}});
      return;
    }
    axis(list, "schedulers");
    std::vector<std::string> labels;
    for (const YAML::Node& n : list) {
      SweepSchedulers s;
      s.label = scalar(n, "a schedulers entry");
      // Configuration files are relative to the plan: resolve them before parsing the entry.
      std::string resolved;
      for (const std::string& part : split(s.label, '+')) {
        const std::size_t eq = part.find('=');
        std::string piece = part;
        if (eq != std::string::npos && eq + 1 < part.size()) {
          fs::path f(part.substr(eq + 1));
          if (f.is_relative()) f = dir_ / f;
          std::error_code ec;
          if (!fs::is_regular_file(f, ec))
            fail(n, "expected the configuration file \"" + part.substr(eq + 1) + "\" of " + part.substr(0, eq) +
                        " to be a file (looked for " + f.string() + ")");
          piece = part.substr(0, eq + 1) + f.string();
        }
        resolved += (resolved.empty() ? "" : "+") + piece;
      }
      try {
        s.setups = parse_setup_choices(resolved, "schedulers", p_.policies);
      } catch (const InputError& e) {
        fail(n, e.problem());
      }
      labels.push_back(s.label);
      p_.schedulers.push_back(std::move(s));
    }
    unique(labels, list, "schedulers");
  }

  // A plan of openb traces: the policies axis (as the scheduler column), the tune, no models
  // or overrides.
  void read_openb_axes(const YAML::Node& root) {
    for (const char* key : {"schedulers", "models", "overrides"})
      if (const YAML::Node n = root[key]) fail(n, std::string(key) + " does not apply to openb traces (give policies)");
    const YAML::Node list = root["policies"];
    if (!list) throw InputError(path(), line_of(root), "expected a plan of openb traces to list policies (" + openb::policy_names() + ")");
    axis(list, "policies");
    std::vector<std::string> labels;
    for (const YAML::Node& n : list) {
      SweepSchedulers s;
      if (!openb::parse_policy(scalar(n, "a policies entry"), s.openb_policy))
        fail(n, "expected a policy, one of " + openb::policy_names() + ", got \"" + scalar(n, "a policies entry") + "\"");
      s.label = std::string(openb::policy_label(s.openb_policy));
      labels.push_back(s.label);
      p_.schedulers.push_back(std::move(s));
    }
    unique(labels, list, "policies");
    if (const YAML::Node n = root["tune"]) {
      const std::optional<double> t = parse_double(scalar(n, "tune"));
      if (!t || !(*t >= 0 && *t <= 100)) fail(n, "expected tune to be a ratio from 0 to 100");
      p_.openb_tune = *t;
    }
    p_.models.push_back("");
    p_.model_labels.push_back("protocol");
  }

  void read_models(const YAML::Node& list) {
    if (!list) {
      p_.models.push_back("");
      p_.model_labels.push_back("scenario");
      return;
    }
    axis(list, "models");
    for (const YAML::Node& n : list) {
      const std::string v = scalar(n, "a models entry");
      p_.model_labels.push_back(v);
      p_.models.push_back(v == "realistic" || v == "ideal" ? v : file(n, "a models entry (realistic, ideal or a model YAML file)"));
    }
    unique(p_.model_labels, list, "models");
  }

  void read_seeds(const YAML::Node& n) {
    if (!n) {
      p_.seeds.push_back(1);
      return;
    }
    if (n.IsScalar()) {
      const std::int64_t count = integer(n, "seeds", 1, kMaxSweepCells);
      for (std::int64_t s = 1; s <= count; ++s) p_.seeds.push_back(static_cast<std::uint64_t>(s));
      return;
    }
    axis(n, "seeds");
    std::vector<std::string> labels;
    for (const YAML::Node& s : n) {
      p_.seeds.push_back(static_cast<std::uint64_t>(integer(s, "a seed", 0, INT64_MAX)));
      labels.push_back(s.Scalar());
    }
    unique(labels, n, "seeds");
  }

  void read_overrides(const YAML::Node& map) {
    require_map(map, "overrides");
    for (const auto& kv : map) {
      SweepOverride o;
      o.path = scalar(kv.first, "an override path");
      o.line = line_of(kv.first);
      axis(kv.second, "override " + o.path);
      o.keys = split(o.path, '.');
      for (const std::string& k : o.keys)
        if (k.empty()) fail(kv.first, "expected an override path of dot-separated keys, got \"" + o.path + "\"");
      if (o.keys[0] == "model" && o.keys.size() > 1) {
        o.model = true;
        o.keys.erase(o.keys.begin());
        if (o.keys.size() != 1) fail(kv.first, "override path \"" + o.path + "\" does not exist (a model parameter is model.<name>)");
      }
      for (const YAML::Node& v : kv.second) {
        o.values.push_back(v);
        o.labels.push_back(value_label(v));
      }
      unique(o.labels, kv.second, "override " + o.path);
      p_.overrides.push_back(std::move(o));
    }
  }

  void read_collect(const YAML::Node& list) {
    if (!list) {
      p_.collect = {"summary"};
      return;
    }
    require_list(list, "collect");
    std::set<std::string> given;
    for (const YAML::Node& n : list) {
      const std::string k = scalar(n, "a collect entry");
      if (std::find_if(std::begin(kCollectKinds), std::end(kCollectKinds), [&](const char* c) { return k == c; }) == std::end(kCollectKinds))
        fail(n, "expected a collect entry to be one of jobs, schedule, pods, timeseries, queue, summary, charts, report; got \"" + k + "\"");
      given.insert(k);
    }
    for (const char* c : kCollectKinds)
      if (given.count(c)) p_.collect.push_back(c);
  }

  void read_kubernetes(const YAML::Node& n) {
    require_map(n, "kubernetes");
    check_keys(n, {"image", "parallelism", "claimName", "hostPath", "mountPath"}, "kubernetes");
    if (n["image"]) p_.kubernetes.image = scalar(n["image"], "kubernetes.image");
    if (n["parallelism"]) p_.kubernetes.parallelism = static_cast<std::uint32_t>(integer(n["parallelism"], "kubernetes.parallelism", 1, 100000));
    if (n["claimName"]) p_.kubernetes.claim_name = scalar(n["claimName"], "kubernetes.claimName");
    if (n["hostPath"]) p_.kubernetes.host_path = scalar(n["hostPath"], "kubernetes.hostPath");
    if (n["mountPath"]) p_.kubernetes.mount_path = scalar(n["mountPath"], "kubernetes.mountPath");
    if (!p_.kubernetes.claim_name.empty() && !p_.kubernetes.host_path.empty())
      fail(n, "expected kubernetes to give claimName or hostPath, not both");
  }

  // Every override path must exist in every scenario of the plan (a model override: be a
  // model parameter), so that a typo fails here and not in the middle of the sweep.
  void check_override_paths() const {
    std::vector<YAML::Node> docs;  // by input; undefined for a cluster + workload input
    for (const SweepInput& in : p_.inputs)
      docs.push_back(in.files.scenario.empty() ? YAML::Node(YAML::NodeType::Undefined) : load_yaml_file(in.files.scenario));
    for (const SweepOverride& o : p_.overrides) {
      if (o.model) {
        YAML::Node m(YAML::NodeType::Map);
        for (const YAML::Node& v : o.values) {
          m[o.keys[0]] = v;
          try {
            ModelConfig::apply(ModelConfig::realistic(), m, path());
          } catch (const InputError& e) {
            throw InputError(path(), o.line, "override " + o.path + " = " + value_label(v) + ": " + e.problem());
          }
        }
        continue;
      }
      for (std::size_t i = 0; i < p_.inputs.size(); ++i) {
        const SweepInput& in = p_.inputs[i];
        if (in.files.scenario.empty())
          throw InputError(path(), o.line, "override path \"" + o.path + "\" does not exist in " + in.label + " (scenario keys need a scenario file)");
        std::string why;
        if (!find_yaml_path(docs[i], o.keys, &why))
          throw InputError(path(), o.line, "override path \"" + o.path + "\" does not exist in " + in.label + ": " + why);
      }
    }
  }

  // The plan's cells (the product of its axes) at most kMaxSweepCells, refused before any is
  // made: a plan of 10^9 cells once grew past 4.6 GB.
  void check_cell_count(const YAML::Node& root) const {
    std::int64_t cells = 1;
    auto times = [&](std::size_t n) {
      cells = static_cast<std::int64_t>(n) > kMaxSweepCells / cells ? kMaxSweepCells + 1 : cells * static_cast<std::int64_t>(n);
    };
    times(p_.inputs.size());
    times(p_.schedulers.size());
    times(p_.models.size());
    times(p_.seeds.size());
    for (const SweepOverride& o : p_.overrides) times(o.values.size());
    if (cells > kMaxSweepCells)
      throw InputError(path(), line_of(root), "the plan's axes multiply to more than " + std::to_string(kMaxSweepCells) +
                                                  " cells (the limit of one sweep); split it into several plans");
  }

  void expand() {
    check_override_paths();
    std::vector<std::size_t> odometer(p_.overrides.size(), 0);
    std::set<std::string> ids;
    const std::vector<std::string> names = p_.axis_names();
    for (std::size_t in = 0; in < p_.inputs.size(); ++in)
      for (std::size_t s = 0; s < p_.schedulers.size(); ++s)
        for (std::size_t m = 0; m < p_.models.size(); ++m) {
          std::fill(odometer.begin(), odometer.end(), 0);
          for (;;) {
            for (std::uint64_t seed : p_.seeds) {
              SweepCell c;
              c.input = in;
              c.schedulers = s;
              c.model = m;
              c.overrides = odometer;
              c.seed = seed;
              std::string key;
              const std::vector<std::string> values = p_.axis_values(c);
              for (std::size_t a = 0; a < names.size(); ++a) key += names[a] + "=" + values[a] + "\n";
              char hex[17];
              std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(cell_hash(key)));
              c.id = std::string(hex, 12);
              if (!ids.insert(c.id).second) throw InputError(path(), 0, "two cells hash to the id " + c.id + "; rename a value");
              p_.cells.push_back(std::move(c));
            }
            // Next combination of override values, the last override fastest.
            std::size_t k = odometer.size();
            while (k > 0 && ++odometer[k - 1] == p_.overrides[k - 1].values.size()) odometer[--k] = 0;
            if (k == 0) break;
          }
        }
  }

  fs::path dir_;
  const PolicyLoader& load_policies_;
  SweepPlan p_;
};

}  // namespace

YAML::Node find_yaml_path(YAML::Node node, const std::vector<std::string>& keys, std::string* why) {
  std::string where;
  for (const std::string& k : keys) {
    YAML::Node next;  // a default Node is a defined null: `found` says whether one matched
    bool found = false;
    if (node.IsMap()) {
      for (auto it = node.begin(); it != node.end(); ++it)
        if (it->first.IsScalar() && it->first.Scalar() == k) {
          next = it->second;
          found = true;
        }
      if (!found) {
        *why = "no key \"" + k + "\"" + (where.empty() ? "" : " in " + where);
        return YAML::Node(YAML::NodeType::Undefined);
      }
    } else if (node.IsSequence()) {
      const auto index = parse_int(k);
      if (index && *index >= 0 && static_cast<std::size_t>(*index) < node.size()) {
        next = node[static_cast<std::size_t>(*index)];
        found = true;
      } else {
        for (const YAML::Node& e : node)
          if (e.IsMap())
            for (const char* field : {"namespace", "name"})
              if (const YAML::Node f = e[field]; f && f.IsScalar() && f.Scalar() == k) {
                next = e;
                found = true;
              }
      }
      if (!found) {
        *why = "no element \"" + k + "\" (an index or a namespace/name)" + (where.empty() ? "" : " in " + where);
        return YAML::Node(YAML::NodeType::Undefined);
      }
    } else {
      *why = (where.empty() ? std::string("the document") : where) + " is " + type_name(node) + ", not a map or a list";
      return YAML::Node(YAML::NodeType::Undefined);
    }
    where += (where.empty() ? "" : ".") + k;
    node.reset(next);
  }
  return node;
}

std::vector<std::string> SweepPlan::axis_names() const {
  std::vector<std::string> n = {"scenario", "scheduler", "model"};
  for (const SweepOverride& o : overrides) n.push_back(o.path);
  n.push_back("seed");
  return n;
}

std::vector<std::string> SweepPlan::axis_values(const SweepCell& c) const {
  std::vector<std::string> v = {inputs[c.input].label, schedulers[c.schedulers].label, model_labels[c.model]};
  for (std::size_t k = 0; k < overrides.size(); ++k) v.push_back(overrides[k].labels[c.overrides[k]]);
  v.push_back(std::to_string(c.seed));
  return v;
}

std::string SweepPlan::configuration_key(const SweepCell& c) const {
  std::string key = std::to_string(c.input) + "/" + std::to_string(c.schedulers) + "/" + std::to_string(c.model);
  for (std::size_t o : c.overrides) key += "/" + std::to_string(o);
  return key;
}

SweepPlan read_sweep_plan(const std::string& path, const PolicyLoader& load_policies) {
  return PlanReader(path, load_policies).read();
}

}  // namespace kubesim

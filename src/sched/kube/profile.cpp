#include "sched/kube/profile.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <utility>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/yaml_input.hpp"
#include "sched/kube/plugins/open_gpu_share/open_gpu_share.hpp"
#include "sched/scheduler_plugins_objects.hpp"

namespace kubesim {
namespace {

struct PluginRef {
  std::string name;
  std::int64_t weight = 0;
};

// apis/config/v1/default_plugins.go getDefaultPlugins (v1.26), MultiPoint order and weights.
const std::vector<PluginRef>& default_multi_point() {
  static const std::vector<PluginRef> kDefault = {
      {"SchedulingGates", 0},   {"PrioritySort", 0},     {"NodeUnschedulable", 0},
      {"NodeName", 0},          {"TaintToleration", 3},  {"NodeAffinity", 2},
      {"NodePorts", 0},         {"NodeResourcesFit", 1}, {"VolumeRestrictions", 0},
      {"EBSLimits", 0},         {"GCEPDLimits", 0},      {"NodeVolumeLimits", 0},
      {"AzureDiskLimits", 0},   {"VolumeBinding", 0},    {"VolumeZone", 0},
      {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"DefaultPreemption", 0},
      {"NodeResourcesBalancedAllocation", 1}, {"ImageLocality", 1}, {"DefaultBinder", 0},
  };
  return kDefault;
}

// Builds a profile from the plugin lists of each extension point, following
// runtime/framework.go expandMultiPointPlugins: plugins configured at a specific extension
// point come first (overriding MultiPoint), then MultiPoint plugins, in their order.
Profile build_profile(const std::string& scheduler_name, const std::vector<PluginRef>& multi_point,
                      const std::vector<PluginRef>& filter_point, const std::vector<PluginRef>& score_point,
                      const std::vector<PluginRef>& post_filter_point, const PluginArgs& args,
                      const PluginRegistry& registry, const std::vector<PluginRef>& reserve_point = {}) {
  Profile p;
  p.scheduler_name = scheduler_name;
  std::map<std::string, Plugin*> instances;  // lookup only
  auto instance = [&](const std::string& name) -> Plugin* {
    if (auto it = instances.find(name); it != instances.end()) return it->second;
    auto made = registry.make(name, args);
    Plugin* raw = made.get();
    if (made) p.plugins.push_back(std::move(made));
    instances[name] = raw;
    return raw;
  };
  auto expand = [&](const std::vector<PluginRef>& specific, auto&& add) {
    // Entries "!name" (and "!*") mark plugins disabled at this specific extension point.
    std::vector<std::string> seen;
    for (const auto& ref : specific) {
      if (ref.name[0] == '!') {
        seen.push_back(ref.name.substr(1));
        continue;
      }
      add(ref);
      seen.push_back(ref.name);
    }
    if (std::find(seen.begin(), seen.end(), "*") != seen.end()) return;
    for (const auto& ref : multi_point)
      if (std::find(seen.begin(), seen.end(), ref.name) == seen.end()) add(ref);
  };
  expand(filter_point, [&](const PluginRef& ref) {
    if (auto* f = dynamic_cast<const FilterPlugin*>(instance(ref.name))) p.filters.push_back(f);
  });
  expand(score_point, [&](const PluginRef& ref) {
    if (auto* s = dynamic_cast<const ScorePlugin*>(instance(ref.name)))
      p.scorers.push_back({s, ref.weight == 0 ? 1 : ref.weight});  // framework: weight 0 means 1
  });
  // PostFilter: DefaultPreemption is the only in-tree PostFilter plugin; out-of-tree ones
  // follow it in MultiPoint order (runtime/framework.go runPostFilterPlugins order).
  expand(post_filter_point, [&](const PluginRef& ref) {
    if (ref.name == "DefaultPreemption" && !p.preemption) p.preemption = args.preemption;
    Plugin* pl = instance(ref.name);
    Profile::PostFilter pf{dynamic_cast<PostFilterPlugin*>(pl), dynamic_cast<PreemptionPlugin*>(pl)};
    if (pf.plain || pf.preemption) p.post_filters.push_back(pf);
  });
  // Reserve plugins enabled at that point (the FGD authors' Open-Gpu-Share) come first.
  for (const auto& ref : reserve_point)
    if (auto* x = dynamic_cast<ReservePlugin*>(instance(ref.name))) p.reserves.push_back(x);
  // The other out-of-tree extension points come from MultiPoint only.
  for (const auto& ref : multi_point) {
    Plugin* pl = instance(ref.name);
    if (!pl) continue;
    if (auto* q = dynamic_cast<const QueueSortPlugin*>(pl); q && !p.queue_sort) p.queue_sort = q;
    if (auto* x = dynamic_cast<PreFilterPlugin*>(pl)) p.pre_filters.push_back(x);
    if (auto* x = dynamic_cast<ReservePlugin*>(pl); x && std::find(p.reserves.begin(), p.reserves.end(), x) == p.reserves.end())
      p.reserves.push_back(x);
    if (auto* x = dynamic_cast<PermitPlugin*>(pl)) p.permits.push_back(x);
    if (auto* x = dynamic_cast<InformerPlugin*>(pl)) p.informers.push_back(x);
  }
  for (const auto& pl : p.plugins)
    if (auto* x = dynamic_cast<GpuPlugin*>(pl.get())) p.gpu_plugins.push_back(x);
  p.lowest_name_ties = instances.count(kOpenGpuSharePlugin) && instances[kOpenGpuSharePlugin];
  return p;
}

// The messages here follow kube-scheduler's validation, not kubesim's other readers: only
// fail() and the file loading are shared (core/yaml_input).
class ConfigReader : YamlInput {
 public:
  ConfigReader(std::string path, ResourceNames& names, const PluginRegistry& registry)
      : YamlInput(std::move(path)), names_(names), registry_(registry) {}

  void expect_keys(const YAML::Node& map, std::initializer_list<const char*> allowed) const {
    if (!map.IsMap()) fail(map, "expected a mapping");
    for (const auto& kv : map) {
      const auto key = kv.first.as<std::string>();
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }))
        fail(kv.first, "unknown field \"" + key + "\"");
    }
  }
  // A list to iterate: yaml-cpp iterates a map too, and its entries then throw InvalidNode,
  // which has no line. Null (or absent) is an empty list.
  YAML::Node entries(const YAML::Node& n, const std::string& what) const {
    if (n && !n.IsNull() && !n.IsSequence()) fail(n, "expected " + what + " to be a list, got " + type_name(n));
    return n;
  }
  std::int64_t integer(const YAML::Node& n, const std::string& what) const {
    try {
      return n.as<std::int64_t>();
    } catch (const YAML::Exception&) {
      fail(n, "expected " + what + " to be an integer");
    }
  }
  std::size_t resource_slot(const YAML::Node& n) const {
    const auto name = n.as<std::string>();
    const int slot = names_.slot(name);
    if (slot < 0) fail(n, "too many distinct resources (at most 8), cannot add \"" + name + "\"");
    return static_cast<std::size_t>(slot);
  }
  // fit.go fitsRequest ignores extended resources only; cpu, memory and the like are always
  // checked.
  // validation_pluginargs.go validateFitArgs: no '/', and a valid label name (a DNS-1123-like
  // name part of at most 63 characters: alphanumerics, '-', '_', '.', alphanumeric at both ends).
  std::string resource_group(const YAML::Node& at) const {
    if (!at.IsScalar()) fail(at, "ignoredResourceGroups: expected a resource group name");
    const std::string g = at.as<std::string>();
    if (g.find('/') != std::string::npos) fail(at, "ignoredResourceGroups: resource group name can't contain '/'");
    if (!is_qualified_name_part(g))
      fail(at, "ignoredResourceGroups: \"" + g + "\" is not a valid name (at most 63 alphanumerics, '-', '_' or '.', "
                   "starting and ending with an alphanumeric)");
    return g;
  }
  std::uint32_t ignored_slot_bit(const YAML::Node& at, const std::string& name) const {
    if (!is_extended_resource_name(name)) return 0;
    const int slot = names_.slot(name);
    if (slot < 0) fail(at, "too many distinct resources (at most 8), cannot add \"" + name + "\"");
    return 1u << slot;
  }
  // refuse_duplicates: validation_pluginargs.go ValidateNodeResourcesBalancedAllocationArgs
  // refuses a resource named twice (field.Duplicate); ValidateNodeResourcesFitArgs accepts it
  // (each entry counts with its weight, which NodeResourcesFit's constructor merges).
  std::vector<ResourceWeight> resources(const YAML::Node& list, bool refuse_duplicates) const {
    if (!list.IsSequence()) fail(list, "expected a list of {name, weight}");
    std::vector<ResourceWeight> out;
    for (const auto& r : list) {
      expect_keys(r, {"name", "weight"});
      if (!r["name"]) fail(r, "resource entry needs a name");
      std::int64_t w = r["weight"] ? integer(r["weight"], "weight") : 1;
      if (w < 1 || w > 100) fail(r, "resource weight must be in 1..100");
      const std::size_t slot = resource_slot(r["name"]);
      if (refuse_duplicates && std::any_of(out.begin(), out.end(), [&](const ResourceWeight& o) { return o.slot == slot; }))
        fail(r["name"], "resources: duplicate value \"" + r["name"].as<std::string>() + "\"");
      out.push_back({slot, w});
    }
    return out;
  }
  std::vector<PluginRef> plugin_list(const YAML::Node& set, const std::vector<PluginRef>& defaults) const {
    // default_plugins.go mergePluginSet: disabled removes defaults ("*" all of them), an
    // enabled plugin that is a default replaces it in place, others are appended.
    if (!set) return defaults;
    expect_keys(set, {"enabled", "disabled"});
    std::vector<std::string> disabled;
    if (const auto d = set["disabled"]) {
      for (const auto& e : entries(d, "disabled")) {
        expect_keys(e, {"name"});
        const auto name = e["name"].as<std::string>();
        if (name != "*" && !registry_.contains(name)) fail(e, "unknown plugin \"" + name + "\"");
        disabled.push_back(name);
      }
    }
    std::vector<PluginRef> enabled;
    if (const auto en = set["enabled"]) {
      for (const auto& e : entries(en, "enabled")) {
        expect_keys(e, {"name", "weight"});
        const auto name = e["name"].as<std::string>();
        if (!registry_.contains(name)) fail(e, "unknown plugin \"" + name + "\"");
        enabled.push_back({name, e["weight"] ? integer(e["weight"], "weight") : 0});
      }
    }
    const bool all_disabled = std::find(disabled.begin(), disabled.end(), "*") != disabled.end();
    std::vector<PluginRef> out;
    std::vector<bool> used(enabled.size(), false);
    if (!all_disabled) {
      for (auto ref : defaults) {
        if (std::find(disabled.begin(), disabled.end(), ref.name) != disabled.end()) continue;
        for (std::size_t i = 0; i < enabled.size(); ++i) {
          if (enabled[i].name == ref.name) {
            ref = enabled[i];
            used[i] = true;
          }
        }
        out.push_back(ref);
      }
    }
    for (std::size_t i = 0; i < enabled.size(); ++i)
      if (!used[i]) out.push_back(enabled[i]);
    return out;
  }

  // The FGD authors' args (pkg/type/config.go GpuPluginCfg, OpenGpuSharePluginCfg); FGDScore
  // accepts the same keys and uses none.
  // One of the named values of an enum-like argument, or fail(n, message).
  template <typename T>
  T one_of(const YAML::Node& n, std::initializer_list<std::pair<const char*, T>> values, const char* message) const {
    const auto v = n.as<std::string>();
    for (const auto& [name, value] : values)
      if (v == name) return value;
    fail(n, message);
  }

  // The FGD authors' args (pkg/type/config.go GpuPluginCfg, OpenGpuSharePluginCfg); FGDScore
  // accepts the same keys and uses none.
  void gpu_plugin_args(const std::string& name, const YAML::Node& a, PluginArgs& args) const {
    using Dim = DotProductArgs::Dim;
    using Norm = DotProductArgs::Norm;
    using Sel = OpenGpuShareArgs::Sel;
    expect_keys(a, {"apiVersion", "kind", "dimExtMethod", "normMethod", "gpuSelMethod"});
    DotProductArgs dot;
    if (const auto d = a["dimExtMethod"])
      dot.dim = one_of<Dim>(
          d, {{"merge", Dim::kMerge}, {"share", Dim::kShare}, {"divide", Dim::kDivide}, {"extend", Dim::kExtend}},
          "dimExtMethod must be merge, share, divide or extend");
    if (const auto n = a["normMethod"])
      dot.norm = one_of<Norm>(n, {{"max", Norm::kMax}, {"node", Norm::kNode}, {"pod", Norm::kPod}},
                              "normMethod must be max, node or pod");
    if (name == "DotProductScore") args.dot_product = dot;
    if (name != kOpenGpuSharePlugin) {
      if (a["gpuSelMethod"]) fail(a["gpuSelMethod"], "gpuSelMethod is an Open-Gpu-Share argument");
      return;
    }
    args.open_gpu_share.dot = dot;
    if (const auto g = a["gpuSelMethod"]) {
      args.open_gpu_share.sel =
          one_of<Sel>(g,
                      {{"best", Sel::kBest}, {"worst", Sel::kWorst}, {"random", Sel::kRandom}, {"FGDScore", Sel::kFgd},
                       {"DotProductScore", Sel::kDotProduct}},
                      "gpuSelMethod must be best, worst, random, FGDScore or DotProductScore");
      // With "merge" the fork's choice has no GPU (its Reserve fails): its scripts use "best".
      if (args.open_gpu_share.sel == Sel::kDotProduct && dot.dim == Dim::kMerge)
        fail(g, "gpuSelMethod DotProductScore needs dimExtMethod share, divide or extend");
    }
  }

  PluginArgs plugin_args(const YAML::Node& plugin_config) const {
    PluginArgs args;
    args.fit_ignored_slots = extenders_ignored_;
    if (!plugin_config) return args;
    for (const auto& pc : entries(plugin_config, "pluginConfig")) {
      expect_keys(pc, {"name", "args"});
      const auto name = pc["name"].as<std::string>();
      const YAML::Node a = pc["args"];
      if (!a) continue;
      if (name == "NodeResourcesFit") {
        expect_keys(a, {"apiVersion", "kind", "scoringStrategy", "ignoredResources", "ignoredResourceGroups"});
        // fit.go fitsRequest skips the extended resources whose prefix (before "/") is in
        // ignoredResourceGroups; validation_pluginargs.go validateFitArgs checks each group.
        if (const auto groups = a["ignoredResourceGroups"]) {
          if (!groups.IsSequence()) fail(groups, "ignoredResourceGroups: expected a list of resource group names");
          for (const auto& g : groups) args.fit_ignored_groups.push_back(resource_group(g));
        }
        if (const auto ig = a["ignoredResources"]) {
          if (!ig.IsSequence()) fail(ig, "ignoredResources: expected a list of resource names");
          for (const auto& r : ig) args.fit_ignored_slots |= ignored_slot_bit(r, r.as<std::string>());
        }
        if (const auto s = a["scoringStrategy"]) {
          expect_keys(s, {"type", "resources", "requestedToCapacityRatio"});
          const auto type = s["type"] ? s["type"].as<std::string>() : "LeastAllocated";
          if (type == "LeastAllocated") {
            args.fit_strategy.type = ScoringStrategy::Type::kLeastAllocated;
          } else if (type == "MostAllocated") {
            args.fit_strategy.type = ScoringStrategy::Type::kMostAllocated;
          } else if (type == "RequestedToCapacityRatio") {
            args.fit_strategy.type = ScoringStrategy::Type::kRequestedToCapacityRatio;
          } else {
            fail(s["type"], "scoringStrategy.type must be LeastAllocated, MostAllocated or RequestedToCapacityRatio");
          }
          if (s["resources"]) args.fit_strategy.resources = resources(s["resources"], /*refuse_duplicates=*/false);
          if (const auto r = s["requestedToCapacityRatio"]) {
            expect_keys(r, {"shape"});
            std::int64_t last = -1;
            for (const auto& pt : entries(r["shape"], "requestedToCapacityRatio.shape")) {
              expect_keys(pt, {"utilization", "score"});
              const auto u = integer(pt["utilization"], "utilization");
              const auto sc = integer(pt["score"], "score");
              // validation_pluginargs.go: utilization 0..100 strictly increasing, score 0..10.
              if (u < 0 || u > 100 || u <= last) fail(pt, "shape utilization must increase within 0..100");
              if (sc < 0 || sc > 10) fail(pt, "shape score must be within 0..10");
              last = u;
              args.fit_strategy.shape.push_back({u, sc});
            }
          }
          if (args.fit_strategy.type == ScoringStrategy::Type::kRequestedToCapacityRatio &&
              args.fit_strategy.shape.empty())
            fail(s, "RequestedToCapacityRatio needs requestedToCapacityRatio.shape");
        }
      } else if (name == "DefaultPreemption") {
        // validation_pluginargs.go ValidateDefaultPreemptionArgs.
        expect_keys(a, {"apiVersion", "kind", "minCandidateNodesPercentage", "minCandidateNodesAbsolute"});
        if (const auto v = a["minCandidateNodesPercentage"]) {
          const auto x = integer(v, "minCandidateNodesPercentage");
          if (x < 0 || x > 100) fail(v, "minCandidateNodesPercentage must be within 0..100");
          args.preemption.min_candidate_nodes_percentage = static_cast<std::int32_t>(x);
        }
        if (const auto v = a["minCandidateNodesAbsolute"]) {
          const auto x = integer(v, "minCandidateNodesAbsolute");
          if (x < 0 || x > std::numeric_limits<std::int32_t>::max())
            fail(v, "minCandidateNodesAbsolute must not be negative");
          args.preemption.min_candidate_nodes_absolute = static_cast<std::int32_t>(x);
        }
        if (args.preemption.min_candidate_nodes_percentage == 0 && args.preemption.min_candidate_nodes_absolute == 0)
          fail(a, "minCandidateNodesPercentage and minCandidateNodesAbsolute cannot be both zero");
      } else if (name == "NodeResourcesBalancedAllocation") {
        expect_keys(a, {"apiVersion", "kind", "resources"});
        if (a["resources"]) args.balanced_resources = resources(a["resources"], /*refuse_duplicates=*/true);
      } else if (name == kOpenGpuSharePlugin || name == "DotProductScore" || name == "FGDScore") {
        gpu_plugin_args(name, a, args);
      } else if (!registry_.contains(name)) {
        fail(pc, "unknown plugin \"" + name + "\" in pluginConfig");
      }
    }
    return args;
  }

  SchedulerConfig read() {
    const YAML::Node root = load_yaml_file(path(), "invalid YAML: ");
    try {
      return read_root(root);
    } catch (const YAML::Exception& e) {
      throw yaml_error(path(), e, "unexpected value: ");
    }
  }

  // componentbaseconfig ClientConnectionConfiguration; SetDefaults_KubeSchedulerConfiguration
  // replaces qps 0 by 50 and burst 0 by 100; validation refuses a negative burst.
  void client_connection(const YAML::Node& cc, SchedulerConfig& config) const {
    expect_keys(cc, {"kubeconfig", "acceptContentTypes", "contentType", "qps", "burst"});
    if (const auto q = cc["qps"]) {
      double v = 0;
      try {
        v = q.as<double>();
      } catch (const YAML::Exception&) {
        fail(q, "expected clientConnection.qps to be a number");
      }
      if (!std::isfinite(v)) fail(q, "expected clientConnection.qps to be a finite number");
      if (v != 0) config.client_qps = v;
    }
    if (const auto b = cc["burst"]) {
      const auto v = integer(b, "clientConnection.burst");
      if (v < 0 || v > std::numeric_limits<std::int32_t>::max())
        fail(b, "clientConnection.burst must be a non-negative 32-bit integer");
      if (v != 0) config.client_burst = static_cast<std::int32_t>(v);
    }
  }

  // One entry of `profiles` (KubeSchedulerProfile); `config` holds the profiles read before it.
  Profile profile(const YAML::Node& prof, const SchedulerConfig& config) const {
    expect_keys(prof, {"schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"});
    const std::string name = prof["schedulerName"] ? prof["schedulerName"].as<std::string>() : "default-scheduler";
    for (const auto& existing : config.profiles)
      if (existing.scheduler_name == name) fail(prof, "duplicate profile schedulerName \"" + name + "\"");
    std::vector<PluginRef> multi = default_multi_point();
    std::vector<PluginRef> filter;
    std::vector<PluginRef> score;
    std::vector<PluginRef> post_filter;
    std::vector<PluginRef> reserve;
    if (const auto plugins = prof["plugins"]) {
      expect_keys(plugins, {"multiPoint", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
                            "reserve", "permit", "preBind", "bind", "postBind", "preEnqueue"});
      multi = plugin_list(plugins["multiPoint"], default_multi_point());
      filter = plugin_list(plugins["filter"], {});
      score = plugin_list(plugins["score"], {});
      post_filter = plugin_list(plugins["postFilter"], {});
      reserve = plugin_list(plugins["reserve"], {});
      // A plugin disabled at a specific point is removed from that point's MultiPoint share.
      auto drop_disabled = [&](const YAML::Node& set, std::vector<PluginRef>& point) {
        if (!set || !set["disabled"]) return;
        for (const auto& d : entries(set["disabled"], "disabled")) {
          const auto n = d["name"].as<std::string>();
          point.push_back({"!" + n, 0});
        }
      };
      drop_disabled(plugins["filter"], filter);
      drop_disabled(plugins["score"], score);
      drop_disabled(plugins["postFilter"], post_filter);
    }
    Profile p = build_profile(name, multi, filter, score, post_filter, plugin_args(prof["pluginConfig"]), registry_,
                              reserve);
    if (const auto pct = prof["percentageOfNodesToScore"]) {
      const auto v = integer(pct, "percentageOfNodesToScore");
      if (v < 0 || v > 100) fail(pct, "percentageOfNodesToScore must be within 0..100");
      p.percentage_of_nodes_to_score = static_cast<std::int32_t>(v);
    }
    return p;
  }

  SchedulerConfig read_root(const YAML::Node& root) {
    expect_keys(root, {"apiVersion", "kind", "profiles", "percentageOfNodesToScore", "podInitialBackoffSeconds",
                       "podMaxBackoffSeconds", "parallelism", "leaderElection", "clientConnection",
                       "healthzBindAddress", "metricsBindAddress", "enableProfiling", "enableContentionProfiling",
                       "extenders"});
    if (const auto k = root["kind"]; k && k.as<std::string>() != "KubeSchedulerConfiguration")
      fail(k, "expected kind KubeSchedulerConfiguration");
    SchedulerConfig config;
    config.source = path();
    if (const auto p = root["percentageOfNodesToScore"]) {
      const auto v = integer(p, "percentageOfNodesToScore");
      if (v < 0 || v > 100) fail(p, "percentageOfNodesToScore must be within 0..100");
      config.percentage_of_nodes_to_score = static_cast<std::int32_t>(v);
    }
    if (const auto par = root["parallelism"]) {
      const auto v = integer(par, "parallelism");
      if (v <= 0 || v > std::numeric_limits<std::int32_t>::max()) fail(par, "parallelism must be greater than 0");
      config.parallelism = static_cast<std::int32_t>(v);
    }
    if (const auto cc = root["clientConnection"]) client_connection(cc, config);
    if (const auto ex = root["extenders"]) {
      config.extenders = read_extender_configs(ex, *this);
      for (const ExtenderConfig& e : config.extenders)
        for (const std::string& name : e.ignored_by_scheduler) extenders_ignored_ |= ignored_slot_bit(ex, name);
    }
    // Upstream validates only that both are positive (ValidateKubeSchedulerConfiguration); Go's
    // time.Duration(s) * time.Second would overflow past 292 years. kubesim bounds them as any
    // delay of the model (src/core/limits.hpp), so that a backoff's microseconds always fit.
    const auto backoff_seconds = [&](const YAML::Node& b, const char* key) {
      const auto v = integer(b, key);
      if (v <= 0 || v > static_cast<std::int64_t>(kMaxLatencySeconds))
        fail(b, std::string(key) + " must be a whole number of seconds from 1 to 86400 (the model's delay limit)");
      return Duration::seconds(v);
    };
    if (const auto b = root["podInitialBackoffSeconds"])
      config.queue.initial_backoff = backoff_seconds(b, "podInitialBackoffSeconds");
    if (const auto b = root["podMaxBackoffSeconds"]) config.queue.max_backoff = backoff_seconds(b, "podMaxBackoffSeconds");
    if (config.queue.max_backoff < config.queue.initial_backoff)
      fail(root, "podMaxBackoffSeconds must not be less than podInitialBackoffSeconds");
    const YAML::Node profiles = entries(root["profiles"], "profiles");
    if (!profiles || profiles.size() == 0) {
      config.profiles.push_back(
          build_profile("default-scheduler", default_multi_point(), {}, {}, {}, plugin_args(YAML::Node()), registry_));
      return config;
    }
    for (const auto& prof : profiles) config.profiles.push_back(profile(prof, config));
    return config;
  }

 private:
  ResourceNames& names_;
  const PluginRegistry& registry_;
  std::uint32_t extenders_ignored_ = 0;  // extenders' ignoredByScheduler resources (1 << slot)
};

}  // namespace

SchedulerConfig default_scheduler_config(ResourceNames&) {
  SchedulerConfig config;
  config.profiles.push_back(
      build_profile("default-scheduler", default_multi_point(), {}, {}, {}, PluginArgs{}, in_tree_registry()));
  return config;
}

SchedulerConfig scheduler_plugins_config(ResourceNames&, const SchedulerPluginsObjects& objects) {
  // default_plugins.go mergePluginSet: the defaults in order without the disabled
  // PrioritySort, then the chart's enabled plugins appended (a MultiPoint weight 0 scores as 1).
  std::vector<PluginRef> multi;
  for (const auto& ref : default_multi_point())
    if (ref.name != "PrioritySort") multi.push_back(ref);
  for (const char* name : {"Coscheduling", "CapacityScheduling", "NodeResourceTopologyMatch", "NodeResourcesAllocatable"})
    multi.push_back({name, 0});
  PluginArgs args;
  args.objects = &objects;
  args.coscheduling.permit_waiting_time_seconds = 10;  // the chart's pluginConfig
  SchedulerConfig config;
  config.source = "scheduler-plugins release-1.26 chart";
  config.profiles.push_back(
      build_profile("scheduler-plugins-scheduler", multi, {}, {}, {}, args, out_of_tree_registry()));
  return config;
}

SchedulerConfig load_scheduler_config(const std::string& path, ResourceNames& names) {
  const PluginRegistry registry = in_tree_registry();
  return ConfigReader(path, names, registry).read();
}

}  // namespace kubesim

#include "engine/model_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>

#include "core/limits.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/quantity.hpp"
#include "core/read_file.hpp"
#include "engine/shipped_models.hpp"

namespace kubesim {

ModelConfig ModelConfig::ideal() {
  ModelConfig m;
  m.name = "ideal";
  m.kubelet.pleg_relist_period = Duration();
  return m;  // every Distribution defaults to fixed 0
}

ModelConfig ModelConfig::realistic() {
  // Documented assumptions (docs/evidence/simulated.md, "Latency model") except the scheduling cycle's parts,
  // which are fitted against the real kube-scheduler (below).
  ModelConfig m;
  m.name = "realistic";
  auto d = [](const char* spec) { return Distribution::parse(spec, "built-in model", 0); };
  m.watch_delay = d("uniform:0.0005:0.002");         // watch event delivery on a local API server
  // The scheduling cycle (sched/kube/scheduler.hpp CycleCost), fitted against kube-scheduler v1.26.7
  // (the oracle beside the repository) on `kubesim serve --clock realtime=1 --builtin-scheduler off`, 10,000
  // one-cpu pods created at once on nodes of 32 cpus, clientConnection qps/burst 5000, JSON:
  // scripts/measure-scheduler-throughput.py re-measures it. Measured on a 2-core AMD EPYC VM
  // under a load average of 17-29 from other users' compiles, serve and the scheduler in
  // autogroups of nice -20; the binding rate (the cycle is the bottleneck: bindings are
  // asynchronous) gave the wall time per pod t(K), K = nodes filtered and scored
  // (numFeasibleNodesToFind): 2.28 and 2.26 ms at K=100 (100 nodes), 3.41 ms at 230 (500
  // nodes), 4.21, 4.72 and 4.26 ms at 420 (1000 nodes), 5.36, 5.57 and 4.99 ms at 500 (5000
  // nodes) (one more run at 500 nodes, 5.19 ms, left out as disturbed); the least-squares
  // line is 1.55 ms + 7.24 us per node. With every score plugin disabled, 5000 nodes took
  // 2.94 ms, so filtering is 2.77 us per node and scoring 4.46 us. The parallel part runs on
  // both cores (parallelism 16 > 2): per node and plugin (5 modelled filter plugins, 7 score
  // plugins in the default profile) 2.77 * 2 / 5 = 1.11 us and 4.46 * 2 / 7 = 1.27 us of CPU.
  // Failed cycles (100 and 16 nodes, pods beyond capacity) took 4.95 and 3.1-3.5 ms including
  // the synchronous status PATCH; their difference beyond filtering (1.42 ms for 84 more
  // dry-run nodes holding 2,688 more pods) gives the preemption dry run 0.53 us of wall
  // (1.05 us CPU) per pod on a dry-run node (DryRunPreemption clones each NodeInfo with its
  // pods). 10,000 pods of 100m on 100 nodes (up to 100 pods a node) took 2.59 ms instead of
  // 2.27 ms: 0.13 us of CPU per pod on a scored node. The intercept is the fixed part.
  // Re-measured on the same machine with nothing else running (load average 0.9 before the
  // runs; the runs themselves keep both cores busy: the scheduler took 1.25 cores and serve
  // 0.7): 5000 nodes 190.9 pods/s (model 192.5), 1000 nodes 234.2 (model 211.9), and with
  // clientConnection qps 50 / burst 100 51.7 at both sizes (model 51.7).
  m.scheduler.cycle = d("uniform:0.00105:0.00205");  // the fixed part: mean 1.55 ms
  m.scheduler.cost.per_filtered_node_plugin = 1.11e-6;
  m.scheduler.cost.per_scored_node_plugin = 1.27e-6;
  m.scheduler.cost.per_pod_on_scored_node = 0.13e-6;
  m.scheduler.cost.per_dry_run_node = 0;              // not separable from the per-pod cost here
  m.scheduler.cost.per_pod_on_dry_run_node = 1.05e-6;
  m.scheduler.cost.cores = 2;                         // the measuring machine's
  m.scheduler.client_rate_limit = true;               // clientConnection qps/burst (default 50/100)
  m.controller_manager_client = {20, 30};             // kube-controller-manager --kube-api-qps/-burst
  m.scheduler.bind = d("uniform:0.002:0.006");       // POST pods/binding (an etcd write)
  m.scheduler.status_patch = d("uniform:0.002:0.006");  // PATCH pods/status (an etcd write)
  m.kubelet.startup = d("normal:1.0:0.2");           // sandbox + container start, image present
  m.kubelet.status_update = d("uniform:0.002:0.006");   // kubelet status manager PATCH
  m.kubelet.pleg_relist_period = Duration::seconds(1);  // pkg/kubelet/kubelet.go plegRelistPeriod
  return m;
}

std::vector<std::string> ModelConfig::shipped_model_names() {
  std::vector<std::string> names;
  for (const auto& m : shipped_models()) names.emplace_back(m.name);
  return names;
}

ModelConfig ModelConfig::batsim() {
  // Batsim 4.2.1's message latencies on its platform_cluster128.xml (sched/batch/
  // batsim_protocol.hpp): master -> master 50 us + 500 us + 50 us, compute host -> master
  // 50 + 500 + 500 + 500 + 50 us (the cluster links, backbones and the zone route).
  ModelConfig m = ideal();
  m.name = "batsim";
  m.batsim_server_latency = Duration::micros(600);
  m.batsim_node_latency = Duration::micros(1600);
  return m;
}

ModelConfig ModelConfig::load(const std::string& name_or_path) {
  if (name_or_path == "ideal") return ideal();
  if (name_or_path == "realistic") return realistic();
  for (const auto& shipped : shipped_models()) {
    if (name_or_path != shipped.name) continue;
    ModelConfig m = parse(std::string(shipped.text), "model " + name_or_path);
    m.name = name_or_path;
    return m;
  }
  if (name_or_path == "batsim") return batsim();
  if (!std::filesystem::exists(name_or_path)) {
    std::string names;
    for (const auto& n : shipped_model_names()) names += ", " + n;
    throw InputError(name_or_path, 0, "expected --model ideal, realistic, batsim" + names + " or a model YAML file");
  }
  ModelConfig m = parse(read_input_file(name_or_path), name_or_path);
  m.name = name_or_path;
  return m;
}

namespace {

std::vector<AddonPod> parse_addon_pods(const YAML::Node& list, const std::string& file, int line) {
  if (!list.IsSequence()) throw InputError(file, line, "addonPods: expected a list of {namespace, name, cpu, memory, priorityClassName}");
  std::vector<AddonPod> out;
  for (const auto& item : list) {
    const int item_line = item.Mark().line + 1;
    if (!item.IsMap()) throw InputError(file, item_line, "addonPods: expected a mapping");
    AddonPod a;
    for (const auto& kv : item) {
      const auto key = kv.first.as<std::string>();
      const auto value = kv.second.as<std::string>();
      if (key == "namespace") a.ns = value;
      else if (key == "name") a.name = value;
      else if (key == "cpu") a.cpu_milli = parse_resource_quantity(value, file, item_line, "cpu").milli_value();
      else if (key == "memory") a.memory_bytes = parse_resource_quantity(value, file, item_line, "memory").value();
      else if (key == "priorityClassName") {
        // The two classes every cluster has (pkg/apis/scheduling/types.go).
        if (value == "system-cluster-critical") a.priority = 2000000000;
        else if (value == "system-node-critical") a.priority = 2000001000;
        else throw InputError(file, item_line, "addonPods: priorityClassName must be system-cluster-critical or system-node-critical");
      } else {
        throw InputError(file, item_line, "addonPods: unknown key \"" + key + "\" (expected namespace, name, cpu, memory, priorityClassName)");
      }
    }
    if (a.name.empty()) throw InputError(file, item_line, "addonPods: every pod needs a name");
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

ModelConfig ModelConfig::parse(const std::string& text, const std::string& name_or_path) {
  ModelConfig m = realistic();
  m.name = name_or_path;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(name_or_path, e.mark.line + 1, "invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw InputError(name_or_path, 1, "expected a mapping of model parameters");
  // A node of the wrong kind (a map as a key, a list as a value) throws from yaml-cpp's
  // conversions: reported with its line (found by fuzz/model_yaml_fuzz).
  try {
    return apply(std::move(m), root, name_or_path);
  } catch (const YAML::Exception& e) {
    throw InputError(name_or_path, e.mark.line + 1, "unexpected value: " + e.msg);
  }
}

namespace {

// The parameters whose value is a distribution (core/distribution.hpp), by key; null: none.
Distribution* distribution_parameter(ModelConfig& m, const std::string& key) {
  if (key == "watchDelay") return &m.watch_delay;
  if (key == "schedulingCycle") return &m.scheduler.cycle;
  if (key == "bindLatency") return &m.scheduler.bind;
  if (key == "statusPatchLatency") return &m.scheduler.status_patch;
  if (key == "podStartup") return &m.kubelet.startup;
  if (key == "podStartupStall") return &m.kubelet.startup_stall;
  if (key == "imagePull") return &m.kubelet.image_pull;
  if (key == "imagePullFirst") return &m.kubelet.image_pull_first;
  if (key == "containerCreate") return &m.kubelet.container_create;
  if (key == "containerStart") return &m.kubelet.container_start;
  if (key == "statusUpdateLatency") return &m.kubelet.status_update;
  return nullptr;
}

// A latency, period or delay of the model: its mean and standard deviation at most a day
// (core/limits.hpp); a status update after 1e9 s once made a 39-job run last hours.
void check_latency_bound(const Distribution& d, const std::string& key, const std::string& file, int line) {
  if (!(d.mean() <= kMaxLatencySeconds) || !(std::sqrt(d.variance()) <= kMaxLatencySeconds))
    throw InputError(file, line,
                     key + " " + d.to_string() + " is beyond the model's latency limit (mean and deviation at most 86400 s)");
}

// The parameters whose value is a number (probabilities, seconds, the cycle's cost, the
// controller-manager's client); false: `key` is none of them.
bool apply_number(ModelConfig& m, const std::string& key, const std::string& value, const std::string& file, int line) {
  if (key == "podStartupStallProbabilityFirst" || key == "podStartupStallProbabilityAfterUnstalled" ||
      key == "podStartupStallProbabilityAfterStalled") {
    const auto v = parse_double(value);
    if (!v || !(*v >= 0 && *v <= 1))
      throw InputError(file, line, key + " must be a probability between 0 and 1, got \"" + value + "\"");
    (key == "podStartupStallProbabilityFirst"            ? m.kubelet.stall_probability_first
     : key == "podStartupStallProbabilityAfterUnstalled" ? m.kubelet.stall_probability_after_unstalled
                                                         : m.kubelet.stall_probability_after_stalled) = *v;
  } else if (key == "cyclePerFilteredNodePlugin" || key == "cyclePerScoredNodePlugin" ||
             key == "cyclePerPodOnScoredNode" || key == "cyclePerDryRunNode" || key == "cyclePerPodOnDryRunNode" ||
             key == "schedulerCores") {
    const auto v = parse_double(value);
    if (!v || !std::isfinite(*v) || *v < 0 || (key == "schedulerCores" ? *v < 1 : *v > kMaxLatencySeconds))
      throw InputError(file, line,
                       key + (key == "schedulerCores" ? " must be a number >= 1" : " must be a number of seconds from 0 to 86400") +
                           ", got \"" + value + "\"");
    CycleCost& c = m.scheduler.cost;
    (key == "cyclePerFilteredNodePlugin" ? c.per_filtered_node_plugin
     : key == "cyclePerScoredNodePlugin" ? c.per_scored_node_plugin
     : key == "cyclePerPodOnScoredNode"  ? c.per_pod_on_scored_node
     : key == "cyclePerDryRunNode"       ? c.per_dry_run_node
     : key == "cyclePerPodOnDryRunNode"  ? c.per_pod_on_dry_run_node
                                         : c.cores) = *v;
  } else if (key == "controllerManagerKubeAPIQPS" || key == "controllerManagerKubeAPIBurst") {
    const auto v = parse_double(value);
    const bool qps = key == "controllerManagerKubeAPIQPS";
    if (!v || !std::isfinite(*v) || (qps ? *v < 0 : (*v < 1 || *v != std::floor(*v) || *v > 1e9)))
      throw InputError(file, line,
                       key + (qps ? " must be a number >= 0 (0: no limit)" : " must be a whole number >= 1") +
                           ", got \"" + value + "\"");
    if (qps) m.controller_manager_client.qps = *v;
    else m.controller_manager_client.burst = static_cast<std::int32_t>(*v);
  } else if (key == "nodeMonitorGracePeriod" || key == "defaultTolerationSeconds" || key == "batsimServerLatency" ||
             key == "batsimNodeLatency") {
    const auto seconds = parse_double(value);
    if (!seconds || !(*seconds >= 0 && *seconds <= kMaxLatencySeconds))
      throw InputError(file, line, key + " must be a number of seconds from 0 to 86400 (the model's latency limit), got \"" +
                                       value + "\"");
    (key == "nodeMonitorGracePeriod"     ? m.node_lifecycle.node_monitor_grace_period
     : key == "defaultTolerationSeconds" ? m.node_lifecycle.default_toleration_seconds
     : key == "batsimServerLatency"      ? m.batsim_server_latency
                                         : m.batsim_node_latency) = Duration::from_seconds(*seconds);
  } else {
    return false;
  }
  return true;
}

// The parameters that choose among a few values (switches, versions, the PLEG period);
// false: `key` is none of them.
bool apply_choice(ModelConfig& m, const std::string& key, const std::string& value, const std::string& file, int line) {
  const auto flag = [&](bool& field) {
    if (value != "true" && value != "false") throw InputError(file, line, key + " must be true or false, got \"" + value + "\"");
    field = value == "true";
  };
  if (key == "clientRateLimit") {
    flag(m.scheduler.client_rate_limit);
  } else if (key == "containersExitOnSigterm") {
    flag(m.kubelet.containers_exit_on_sigterm);
  } else if (key == "plegRelistPeriod") {
    const Distribution period = Distribution::parse(value, file, line);
    if (period.to_string().rfind("fixed:", 0) != 0)
      throw InputError(file, line, "plegRelistPeriod must be a fixed number of seconds");
    check_latency_bound(period, key, file, line);
    RandomStream unused;
    m.kubelet.pleg_relist_period = period.sample(unused);
  } else if (key == "jobControllerVersion") {
    bool ok = false;
    const auto v = JobControllerConfig::parse_version(value, &ok);
    if (!ok) throw InputError(file, line, "jobControllerVersion must be 1.26 to 1.30, got \"" + value + "\"");
    m.job_controller = JobControllerConfig::for_version(v);
  } else if (key == "schedulerVersion") {
    const auto minor = value.rfind("1.", 0) == 0 ? parse_int(value.substr(2)) : std::nullopt;
    if (!minor || *minor < 18 || *minor > 26)
      throw InputError(file, line, "schedulerVersion must be 1.18 to 1.26, got \"" + value + "\"");
    m.scheduler_minor_version = static_cast<int>(*minor);
  } else if (key == "queueFlushPhase") {
    if (value != "zero" && value != "random")
      throw InputError(file, line, "queueFlushPhase must be zero or random, got \"" + value + "\"");
    m.random_queue_flush_phase = value == "random";
  } else {
    return false;
  }
  return true;
}

}  // namespace

ModelConfig ModelConfig::apply(ModelConfig m, const YAML::Node& root, const std::string& name_or_path) {
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    const int line = kv.first.Mark().line + 1;
    if (key == "addonPods") {
      m.addon_pods = parse_addon_pods(kv.second, name_or_path, line);
      continue;
    }
    if (!kv.second.IsScalar()) throw InputError(name_or_path, line, "expected a distribution for \"" + key + "\"");
    const auto value = kv.second.as<std::string>();
    if (Distribution* d = distribution_parameter(m, key)) {
      *d = Distribution::parse(value, name_or_path, line);
      check_latency_bound(*d, key, name_or_path, line);
      continue;
    }
    if (apply_number(m, key, value, name_or_path, line) || apply_choice(m, key, value, name_or_path, line)) continue;
    if (key == "base") {
      if (value != "ideal" && value != "realistic" && value != "batsim")
        throw InputError(name_or_path, line, "base must be ideal, realistic or batsim, got \"" + value + "\"");
      m = load(value);  // the keys after it override it
      m.name = name_or_path;
      continue;
    }
    throw InputError(name_or_path, line,
                     "unknown model parameter \"" + key +
                         "\" (expected watchDelay, schedulingCycle, cyclePerFilteredNodePlugin, cyclePerScoredNodePlugin, "
                         "cyclePerPodOnScoredNode, cyclePerDryRunNode, cyclePerPodOnDryRunNode, schedulerCores, "
                         "clientRateLimit, controllerManagerKubeAPIQPS, controllerManagerKubeAPIBurst, bindLatency, statusPatchLatency, podStartup, podStartupStall, "
                         "podStartupStallProbabilityFirst, podStartupStallProbabilityAfterUnstalled, "
                         "podStartupStallProbabilityAfterStalled, imagePull, imagePullFirst, containerCreate, "
                         "containerStart, statusUpdateLatency, plegRelistPeriod, jobControllerVersion, "
                         "nodeMonitorGracePeriod, defaultTolerationSeconds, containersExitOnSigterm, schedulerVersion, "
                         "queueFlushPhase, addonPods, base, batsimServerLatency or batsimNodeLatency)");
  }
  return m;
}

std::string ModelConfig::describe() const {
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  const CycleCost& c = scheduler.cost;
  return name + " (watchDelay " + watch_delay.to_string() + ", schedulingCycle " + scheduler.cycle.to_string() +
         ", cyclePerFilteredNodePlugin " + num(c.per_filtered_node_plugin) + ", cyclePerScoredNodePlugin " +
         num(c.per_scored_node_plugin) + ", cyclePerPodOnScoredNode " + num(c.per_pod_on_scored_node) +
         ", cyclePerDryRunNode " + num(c.per_dry_run_node) + ", cyclePerPodOnDryRunNode " +
         num(c.per_pod_on_dry_run_node) + ", schedulerCores " + num(c.cores) + ", clientRateLimit " +
         (scheduler.client_rate_limit ? "true" : "false") +
         ", controllerManagerKubeAPIQPS " + num(controller_manager_client.qps) + ", controllerManagerKubeAPIBurst " +
         std::to_string(controller_manager_client.burst) +
         ", bindLatency " + scheduler.bind.to_string() + ", statusPatchLatency " + scheduler.status_patch.to_string() +
         ", podStartup " + kubelet.startup.to_string() +
         (kubelet.startup_stall.is_zero()
              ? ""
              : ", podStartupStall " + kubelet.startup_stall.to_string() + " with probability " +
                    num(kubelet.stall_probability_first) + " (first) / " + num(kubelet.stall_probability_after_unstalled) +
                    " / " + num(kubelet.stall_probability_after_stalled)) +
         (kubelet.image_pull.is_zero() ? "" : ", imagePull " + kubelet.image_pull.to_string()) +
         (kubelet.image_pull_first.is_zero() ? "" : ", imagePullFirst " + kubelet.image_pull_first.to_string()) +
         (kubelet.container_create.is_zero() ? "" : ", containerCreate " + kubelet.container_create.to_string()) +
         (kubelet.container_start.is_zero() ? "" : ", containerStart " + kubelet.container_start.to_string()) +
         ", statusUpdateLatency " + kubelet.status_update.to_string() +
         ", plegRelistPeriod " + format_seconds(kubelet.pleg_relist_period) +
         (scheduler_minor_version != 26 ? ", schedulerVersion 1." + std::to_string(scheduler_minor_version) : "") +
         (random_queue_flush_phase ? ", queueFlushPhase random" : "") +
         (addon_pods.empty() ? "" : ", " + std::to_string(addon_pods.size()) + " addon pod(s)") + ")";
}

}  // namespace kubesim

#include "engine/model_config.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/parse_number.hpp"

namespace kubesim {

ModelConfig ModelConfig::ideal() {
  ModelConfig m;
  m.name = "ideal";
  m.kubelet.pleg_relist_period = Duration();
  return m;  // every Distribution defaults to fixed 0
}

ModelConfig ModelConfig::realistic() {
  // Documented assumptions (README "Latency model"); each is a parameter, none is fitted.
  ModelConfig m;
  m.name = "realistic";
  auto d = [](const char* spec) { return Distribution::parse(spec, "built-in model", 0); };
  m.watch_delay = d("uniform:0.0005:0.002");         // watch event delivery on a local API server
  m.scheduler.cycle = d("uniform:0.0005:0.0015");    // one scheduling attempt (small cluster)
  m.scheduler.bind = d("uniform:0.002:0.006");       // POST pods/binding (an etcd write)
  m.scheduler.status_patch = d("uniform:0.002:0.006");  // PATCH pods/status (an etcd write)
  m.kubelet.startup = d("normal:1.0:0.2");           // sandbox + container start, image present
  m.kubelet.status_update = d("uniform:0.002:0.006");   // kubelet status manager PATCH
  m.kubelet.pleg_relist_period = Duration::seconds(1);  // pkg/kubelet/kubelet.go plegRelistPeriod
  return m;
}

ModelConfig ModelConfig::load(const std::string& name_or_path) {
  if (name_or_path == "ideal") return ideal();
  if (name_or_path == "realistic") return realistic();
  if (!std::filesystem::exists(name_or_path))
    throw InputError(name_or_path, 0, "expected --model ideal, realistic or a model YAML file");
  ModelConfig m = realistic();
  m.name = name_or_path;
  YAML::Node root;
  try {
    root = YAML::LoadFile(name_or_path);
  } catch (const YAML::Exception& e) {
    throw InputError(name_or_path, e.mark.line + 1, "invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw InputError(name_or_path, 1, "expected a mapping of model parameters");
  return apply(std::move(m), root, name_or_path);
}

ModelConfig ModelConfig::apply(ModelConfig m, const YAML::Node& root, const std::string& name_or_path) {
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    const int line = kv.first.Mark().line + 1;
    if (!kv.second.IsScalar()) throw InputError(name_or_path, line, "expected a distribution for \"" + key + "\"");
    const auto value = kv.second.as<std::string>();
    auto dist = [&] { return Distribution::parse(value, name_or_path, line); };
    if (key == "watchDelay") {
      m.watch_delay = dist();
    } else if (key == "schedulingCycle") {
      m.scheduler.cycle = dist();
    } else if (key == "bindLatency") {
      m.scheduler.bind = dist();
    } else if (key == "statusPatchLatency") {
      m.scheduler.status_patch = dist();
    } else if (key == "podStartup") {
      m.kubelet.startup = dist();
    } else if (key == "statusUpdateLatency") {
      m.kubelet.status_update = dist();
    } else if (key == "plegRelistPeriod") {
      const Distribution period = dist();
      if (period.to_string().rfind("fixed:", 0) != 0)
        throw InputError(name_or_path, line, "plegRelistPeriod must be a fixed number of seconds");
      RandomStream unused;
      m.kubelet.pleg_relist_period = period.sample(unused);
    } else if (key == "jobControllerVersion") {
      bool ok = false;
      const auto v = JobControllerConfig::parse_version(value, &ok);
      if (!ok) throw InputError(name_or_path, line, "jobControllerVersion must be 1.26 to 1.30, got \"" + value + "\"");
      m.job_controller = JobControllerConfig::for_version(v);
    } else if (key == "nodeMonitorGracePeriod" || key == "defaultTolerationSeconds") {
      const auto seconds = parse_double(value);
      if (!seconds || *seconds < 0)
        throw InputError(name_or_path, line, key + " must be a number of seconds >= 0, got \"" + value + "\"");
      (key == "nodeMonitorGracePeriod" ? m.node_lifecycle.node_monitor_grace_period
                                       : m.node_lifecycle.default_toleration_seconds) = Duration::from_seconds(*seconds);
    } else if (key == "containersExitOnSigterm") {
      if (value != "true" && value != "false")
        throw InputError(name_or_path, line, "containersExitOnSigterm must be true or false, got \"" + value + "\"");
      m.kubelet.containers_exit_on_sigterm = value == "true";
    } else {
      throw InputError(name_or_path, line,
                       "unknown model parameter \"" + key +
                           "\" (expected watchDelay, schedulingCycle, bindLatency, statusPatchLatency, podStartup, "
                           "statusUpdateLatency, plegRelistPeriod, jobControllerVersion, nodeMonitorGracePeriod, "
                           "defaultTolerationSeconds or containersExitOnSigterm)");
    }
  }
  return m;
}

std::string ModelConfig::describe() const {
  return name + " (watchDelay " + watch_delay.to_string() + ", schedulingCycle " + scheduler.cycle.to_string() +
         ", bindLatency " + scheduler.bind.to_string() + ", statusPatchLatency " + scheduler.status_patch.to_string() +
         ", podStartup " + kubelet.startup.to_string() + ", statusUpdateLatency " + kubelet.status_update.to_string() +
         ", plegRelistPeriod " + format_seconds(kubelet.pleg_relist_period) + ")";
}

}  // namespace kubesim

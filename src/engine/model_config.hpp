// The latency model: how long the things a real cluster does take. "realistic" (the
// default) gives every step a small duration, because the real scheduler's queue dynamics
// depend on them (reference/scheduler-semantics.md section 9); "ideal" sets all of them to
// zero, which must reproduce analytic results. A YAML file can override any parameter.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "control/job_controller.hpp"
#include "control/kubelet.hpp"
#include "control/node_lifecycle.hpp"
#include "core/distribution.hpp"
#include "sched/scheduler.hpp"

namespace kubesim {

struct ModelConfig {
  std::string name = "realistic";
  Distribution watch_delay;  // API server -> informer delivery (scheduler and kubelets)
  SchedulerLatencies scheduler;
  KubeletLatencies kubelet;
  // Controller behaviour (upstream mechanisms and their defaults, not latencies: the ideal
  // model keeps them).
  JobControllerConfig job_controller;
  NodeLifecycleConfig node_lifecycle;

  static ModelConfig ideal();
  static ModelConfig realistic();
  // "ideal", "realistic", or a YAML file whose keys override "realistic":
  // watchDelay, schedulingCycle, bindLatency, statusPatchLatency, podStartup,
  // statusUpdateLatency (distributions, see core/distribution.hpp) and plegRelistPeriod
  // (seconds), jobControllerVersion ("1.26" or "1.28": the Job controller's back-off
  // rules), nodeMonitorGracePeriod and defaultTolerationSeconds (seconds) and
  // containersExitOnSigterm (true/false). Throws InputError on bad input.
  static ModelConfig load(const std::string& name_or_path);
  // `base` with the parameters of the map `root` (the keys load() reads) overridden; errors
  // name `source` and the key's line. `kubesim sweep` overrides model keys with it.
  static ModelConfig apply(ModelConfig base, const YAML::Node& root, const std::string& source);
  std::string describe() const;
};

}  // namespace kubesim

// The latency model: how long the things a real cluster does take. "realistic" (the
// default) gives every step a small duration, because the real scheduler's queue dynamics
// depend on them (reference/scheduler-semantics.md section 9); "ideal" sets all of them to
// zero, which must reproduce analytic results. A YAML file can override any parameter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "control/job_controller.hpp"
#include "control/kubelet.hpp"
#include "control/node_lifecycle.hpp"
#include "core/distribution.hpp"
#include "sched/kube/scheduler.hpp"

// Only named here (a parameter of ModelConfig::apply): yaml-cpp stays out of the
// translation units that include this header.
namespace YAML {
class Node;
}

namespace kubesim {

// A pod a Kubernetes distribution deploys with the cluster and that holds node resources
// (k3s's packaged CoreDNS: manifests/coredns.yaml, one replica requesting cpu 100m and
// memory 70Mi, priorityClassName system-cluster-critical). Created at time zero, before the
// workload, in its namespace, scheduled by kube-scheduler like any pod, runs until the end;
// it is no workload job (absent from jobs.csv and the tenant metrics).
struct AddonPod {
  std::string ns = "kube-system";
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::int32_t priority = 0;
};

struct ModelConfig {
  std::string name = "realistic";
  Distribution watch_delay;  // API server -> informer delivery (scheduler and kubelets)
  SchedulerLatencies scheduler;
  KubeletLatencies kubelet;
  // Controller behaviour (upstream mechanisms and their defaults, not latencies: the ideal
  // model keeps them).
  JobControllerConfig job_controller;
  // The Job controller's client rate limit (control/job_controller.hpp): kube-controller-
  // manager's --kube-api-qps / --kube-api-burst, 20 / 30 by default. A latency, not a rule of
  // the controller: the ideal model has none.
  JobControllerClient controller_manager_client;
  NodeLifecycleConfig node_lifecycle;
  std::vector<AddonPod> addon_pods;
  // kube-scheduler's minor version (1.N): below 22 the scheduling queue moves pods left in
  // unschedulableQ for 60 s back on its 30 s flush (v1.18 pkg/scheduler/internal/queue/
  // scheduling_queue.go unschedulableQTimeInterval = 60 * time.Second); v1.22 made it
  // podMaxInUnschedulablePodsDuration, default 5 min (DefaultPodMaxInUnschedulablePodsDuration),
  // which the scheduler model otherwise follows (v1.26).
  int scheduler_minor_version = 26;
  // Where kube-scheduler's queue flush loops tick in their periods (sched/kube/scheduling_queue.hpp
  // QueueConfig): false, at multiples of the period since time 0; true, at a phase drawn per
  // seed (stream "scheduler/queue-flush-phase"), the same instant for both loops as upstream's
  // PriorityQueue.Run starts them together: a real scheduler ran long before a run's time 0.
  // Decides on the Batkube burst whether the waves lock to the 30 s flush (docs/fidelity.md).
  bool random_queue_flush_phase = false;

  // Batsim's protocol latencies (sched/batch/batsim_protocol.hpp) for rigid parallel jobs
  // under the batch policies: a message from the master host to Batsim's server, and from a
  // compute host. Zero (every built-in model but "batsim"): decisions take no time.
  Duration batsim_server_latency;
  Duration batsim_node_latency;

  static ModelConfig ideal();
  static ModelConfig realistic();
  // ideal, plus Batsim 4.2.1's message latencies on platform_cluster128.xml.
  static ModelConfig batsim();
  // "ideal", "realistic", "batsim", a shipped model by name (shipped_model_names()), or a YAML
  // file whose keys override "realistic" (or the model named by a first key `base`;
  // batsimServerLatency and batsimNodeLatency in seconds):
  // watchDelay, schedulingCycle, bindLatency, statusPatchLatency, podStartup (admission ->
  // image pull begins), podStartupStall (a stalled start's extra delay) with
  // podStartupStallProbabilityFirst, ...AfterUnstalled, ...AfterStalled (control/kubelet.hpp),
  // imagePull, imagePullFirst (a node's first pull: the download), containerCreate, containerStart (zero unless given),
  // the cycle's cost (sched/kube/scheduler.hpp CycleCost: cyclePerFilteredNodePlugin,
  // cyclePerScoredNodePlugin, cyclePerPodOnScoredNode, cyclePerDryRunNode,
  // cyclePerPodOnDryRunNode in CPU seconds, schedulerCores), clientRateLimit (true/false),
  // controllerManagerKubeAPIQPS (> 0, or 0: no limit) and controllerManagerKubeAPIBurst (>= 1),
  // statusUpdateLatency (distributions, see core/distribution.hpp) and plegRelistPeriod
  // (seconds), jobControllerVersion ("1.26" or "1.28": the Job controller's back-off
  // rules), nodeMonitorGracePeriod and defaultTolerationSeconds (seconds) and
  // containersExitOnSigterm (true/false), schedulerVersion ("1.18" to "1.26"), queueFlushPhase
  // ("zero" or "random"), addonPods (a list of {namespace, name, cpu,
  // memory, priorityClassName}). Throws InputError on bad input.
  static ModelConfig load(const std::string& name_or_path);
  // Parses a model file's text (`file` names it in errors) over the realistic defaults.
  static ModelConfig parse(const std::string& text, const std::string& file);
  // The models shipped inside kubesim (src/engine/models/<name>.yaml), e.g. "k3s-batkube".
  static std::vector<std::string> shipped_model_names();
  // `base` with the parameters of the map `root` (the keys load() reads) overridden; errors
  // name `source` and the key's line. `kubesim sweep` overrides model keys with it.
  static ModelConfig apply(ModelConfig base, const YAML::Node& root, const std::string& source);
  std::string describe() const;
};

}  // namespace kubesim

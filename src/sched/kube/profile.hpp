// Scheduler profiles and the KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
// that selects them: plugins per extension point with weights, plugin args, the
// percentage of nodes to score and the back-off durations.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/resources.hpp"
#include "sched/kube/framework.hpp"
#include "sched/kube/plugins/registry.hpp"
#include "sched/kube/scheduling_queue.hpp"

namespace kubesim {

struct WeightedScorer {
  const ScorePlugin* plugin;
  std::int64_t weight;
};

struct Profile {
  std::string scheduler_name = "default-scheduler";
  std::optional<std::int32_t> percentage_of_nodes_to_score;
  std::vector<std::unique_ptr<Plugin>> plugins;  // owns every plugin instance of the profile
  std::vector<const FilterPlugin*> filters;      // in execution order
  std::vector<WeightedScorer> scorers;
  // The DefaultPreemption PostFilter plugin, when enabled (the default), and its args.
  std::optional<DefaultPreemptionArgs> preemption;
  // Out-of-tree extension points (empty in the default profile). queue_sort null: PrioritySort.
  const QueueSortPlugin* queue_sort = nullptr;
  std::vector<PreFilterPlugin*> pre_filters;
  std::vector<ReservePlugin*> reserves;
  std::vector<PermitPlugin*> permits;
  // PostFilter plugins after DefaultPreemption, in order: each is one of the two kinds.
  struct PostFilter {
    PostFilterPlugin* plain = nullptr;
    PreemptionPlugin* preemption = nullptr;
  };
  std::vector<PostFilter> post_filters;
  std::vector<InformerPlugin*> informers;
  std::vector<GpuPlugin*> gpu_plugins;  // every plugin of the profile that is one
  // selectHost of the FGD authors' fork (vendor/k8s.io/kubernetes/pkg/scheduler/core/
  // generic_scheduler.go): the smallest node name among the best totals, not reservoir
  // sampling. Set for a profile with their Open-Gpu-Share plugin, which only their fork runs.
  bool lowest_name_ties = false;
};

struct SchedulerConfig {
  std::vector<Profile> profiles;
  std::int32_t percentage_of_nodes_to_score = 0;  // 0: adaptive (defaults.go)
  QueueConfig queue;
  // clientConnection.qps and .burst: the token bucket of the scheduler's API client
  // (core/client_rate_limiter.hpp); defaults 50 and 100 (apis/config/v1/defaults.go, v1.26).
  // qps 0 in a file means the default; a negative qps, no limiter.
  double client_qps = 50;
  // parallelism: the goroutines that filter, score and dry-run preemption (default 16).
  std::int32_t parallelism = 16;
  std::int32_t client_burst = 100;
  std::string source = "built-in default";
  // v1.26's FitError.Error (framework/types.go) appends the PostFilter message
  // (" preemption: 0/N nodes are available: ...") to the PodScheduled=False message. Off by
  // default for now: the condition keeps the filter-only text that existing outputs and
  // tests expect (Scheduler::last_preemption().message has the PostFilter part).
  bool post_filter_message_in_condition = false;
  // The typical pods the GPU plugins weigh (cluster/gpu_frag.hpp). Null: the Simulation
  // computes them from its workload's pods when a profile has GPU plugins; a caller may set
  // them (e.g. from a trace before its inflation, as the FGD authors do).
  std::shared_ptr<const TypicalPods> typical_pods;
  bool has_gpu_plugins() const {
    for (const auto& p : profiles)
      if (!p.gpu_plugins.empty()) return true;
    return false;
  }

  // The profile serving pods of this spec.schedulerName, or null.
  const Profile* profile(const std::string& scheduler_name) const {
    for (const auto& p : profiles)
      if (p.scheduler_name == scheduler_name) return &p;
    return nullptr;
  }
};

// v1.26's default configuration: one profile "default-scheduler" with the default plugins
// and weights (apis/config/v1/default_plugins.go).
SchedulerConfig default_scheduler_config(ResourceNames& names);
// The profile scheduler-plugins' release-1.26 chart (manifests/install/charts/as-a-second-scheduler)
// installs: schedulerName scheduler-plugins-scheduler, MultiPoint enabled Coscheduling,
// CapacityScheduling, NodeResourceTopologyMatch, NodeResourcesAllocatable and disabled
// PrioritySort, Coscheduling args permitWaitingTimeSeconds 10. The ElasticQuota and PodGroup
// objects are the cluster's (read by read_scheduler_plugins_objects).
struct SchedulerPluginsObjects;
SchedulerConfig scheduler_plugins_config(ResourceNames& names, const SchedulerPluginsObjects& objects);
// Reads a KubeSchedulerConfiguration YAML file; throws InputError (file:line) on bad input.
SchedulerConfig load_scheduler_config(const std::string& path, ResourceNames& names);

}  // namespace kubesim

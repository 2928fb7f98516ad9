// Scheduler profiles and the KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
// that selects them: plugins per extension point with weights, plugin args, the
// percentage of nodes to score and the back-off durations.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/resources.hpp"
#include "sched/framework.hpp"
#include "sched/scheduling_queue.hpp"

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
};

struct SchedulerConfig {
  std::vector<Profile> profiles;
  std::int32_t percentage_of_nodes_to_score = 0;  // 0: adaptive (defaults.go)
  QueueConfig queue;
  std::string source = "built-in default";
};

// v1.26's default configuration: one profile "default-scheduler" with the default plugins
// and weights (apis/config/v1/default_plugins.go).
SchedulerConfig default_scheduler_config(ResourceNames& names);
// Reads a KubeSchedulerConfiguration YAML file; throws InputError (file:line) on bad input.
SchedulerConfig load_scheduler_config(const std::string& path, ResourceNames& names);

}  // namespace kubesim

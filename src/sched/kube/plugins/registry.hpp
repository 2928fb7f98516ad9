// The plugin registry (pkg/scheduler/framework/runtime/registry.go Registry, v1.26): plugin
// name -> factory. in_tree_registry() is plugins/registry.go NewInTreeRegistry;
// scheduler-plugins' binary adds its out-of-tree plugins to it (cmd/scheduler/main.go
// app.WithPlugin), which is out_of_tree_registry(). Profiles (profile.cpp) create their
// plugins by name from a registry, and the KubeSchedulerConfiguration reader refuses names a
// registry does not hold. A registry is a value built on demand: no global registration.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "sched/kube/framework.hpp"
#include "sched/kube/plugins/node_resources_allocatable/node_resources_allocatable.hpp"
#include "sched/kube/plugins/node_resources_fit/node_resources_fit.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"
#include "sched/kube/plugins/open_gpu_share/open_gpu_share.hpp"

namespace kubesim {

struct SchedulerPluginsObjects;

// DefaultPreemptionArgs (apis/config/v1/defaults.go SetDefaults_DefaultPreemptionArgs).
struct DefaultPreemptionArgs {
  std::int32_t min_candidate_nodes_percentage = 10;
  std::int32_t min_candidate_nodes_absolute = 100;
};

// The decoded pluginConfig args of one profile (each factory reads its plugin's part), and the
// framework.Handle's informer objects of scheduler-plugins (null: not available).
struct PluginArgs {
  ScoringStrategy fit_strategy;
  std::uint32_t fit_ignored_slots = 0;  // NodeResourcesFit's ignored extended resources (1 << slot)
  std::vector<std::string> fit_ignored_groups;  // NodeResourcesFitArgs.ignoredResourceGroups
  DefaultPreemptionArgs preemption;
  std::vector<ResourceWeight> balanced_resources = {{kCpu, 1}, {kMemory, 1}};
  const SchedulerPluginsObjects* objects = nullptr;
  CoschedulingArgs coscheduling;
  NodeResourcesAllocatableArgs allocatable;
  OpenGpuShareArgs open_gpu_share;  // the FGD authors' plugins (registry.cpp)
  DotProductArgs dot_product;
};

// framework/runtime PluginFactory. A null result is a plugin kubesim accepts but has no object
// for: its extension points act only on what kubesim does not model (host ports, volumes,
// scheduling gates), or it is structural (PrioritySort, DefaultBinder), or the Scheduler runs
// it itself (DefaultPreemption: Profile::preemption).
using PluginFactory = std::unique_ptr<Plugin> (*)(const PluginArgs& args);

class PluginRegistry {
 public:
  struct Entry {
    std::string_view name;
    PluginFactory factory;
  };
  // Registry.Register; the name must not be registered yet (upstream: an error).
  void add(std::string_view name, PluginFactory factory);
  // Registry.Merge.
  void merge(const PluginRegistry& other);
  // The entry of `name`, or null when the registry does not hold it.
  const Entry* find(std::string_view name) const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  // Runs the factory of `name`; null for an unknown name or a plugin without object.
  std::unique_ptr<Plugin> make(std::string_view name, const PluginArgs& args) const;

 private:
  std::vector<Entry> entries_;  // in registration order; looked up only when profiles are built
};

// plugins/registry.go NewInTreeRegistry: the v1.26 default plugins, and the plugins of the FGD
// authors' fork (hkust-adsl/kubernetes-scheduler-simulator, pkg/type/const.go names):
// Open-Gpu-Share, FGDScore, BestFitScore, DotProductScore, GpuPackingScore,
// GpuClusteringScore, RandomScore, and their binder Simon (kubesim's binding: no object).
PluginRegistry in_tree_registry();
// The in-tree registry with scheduler-plugins' (release-1.26): Coscheduling,
// CapacityScheduling (both need args.objects), NodeResourceTopologyMatch (not modelled:
// without NodeResourceTopology objects it neither filters nor scores) and
// NodeResourcesAllocatable.
PluginRegistry out_of_tree_registry();

}  // namespace kubesim

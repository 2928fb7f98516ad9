#include "sched/kube/plugins/registry.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "sched/kube/plugins/balanced_allocation/balanced_allocation.hpp"
#include "sched/kube/plugins/best_fit_score/best_fit_score.hpp"
#include "sched/kube/plugins/fgd_score/fgd_score.hpp"
#include "sched/kube/plugins/gpu_clustering_score/gpu_clustering_score.hpp"
#include "sched/kube/plugins/gpu_packing_score/gpu_packing_score.hpp"
#include "sched/kube/plugins/random_score/random_score.hpp"
#include "sched/kube/plugins/capacity_scheduling/capacity_scheduling.hpp"
#include "sched/kube/plugins/node_affinity/node_affinity.hpp"
#include "sched/kube/plugins/node_name/node_name.hpp"
#include "sched/kube/plugins/node_unschedulable/node_unschedulable.hpp"
#include "sched/kube/plugins/taint_toleration/taint_toleration.hpp"
#include "sched/kube/plugins/unmodelled_scores/unmodelled_scores.hpp"
#include "sched/scheduler_plugins_objects.hpp"

namespace kubesim {

void PluginRegistry::add(std::string_view name, PluginFactory factory) {
  KUBESIM_ASSERT(!contains(name));
  entries_.push_back(Entry{name, factory});
}

void PluginRegistry::merge(const PluginRegistry& other) {
  for (const Entry& e : other.entries_) add(e.name, e.factory);
}

const PluginRegistry::Entry* PluginRegistry::find(std::string_view name) const {
  const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  return it == entries_.end() ? nullptr : &*it;
}

std::unique_ptr<Plugin> PluginRegistry::make(std::string_view name, const PluginArgs& args) const {
  const Entry* e = find(name);
  return e && e->factory ? e->factory(args) : nullptr;
}

namespace {

template <class T>
std::unique_ptr<Plugin> plain(const PluginArgs&) {
  return std::make_unique<T>();
}

// unmodelled_scores.hpp: the constant each of these returns for kubesim's pods.
template <const char* kName, std::int64_t kValue>
std::unique_ptr<Plugin> constant_score(const PluginArgs&) {
  return std::make_unique<ConstantScore>(kName, kValue);
}
constexpr char kPodTopologySpread[] = "PodTopologySpread";
constexpr char kInterPodAffinity[] = "InterPodAffinity";
constexpr char kImageLocality[] = "ImageLocality";

}  // namespace

PluginRegistry in_tree_registry() {
  PluginRegistry r;
  r.add("SchedulingGates", nullptr);
  r.add("PrioritySort", nullptr);
  r.add("NodeUnschedulable", plain<NodeUnschedulable>);
  r.add("NodeName", plain<NodeName>);
  r.add("TaintToleration", plain<TaintToleration>);
  r.add("NodeAffinity", plain<NodeAffinityPlugin>);
  r.add("NodePorts", nullptr);
  r.add("NodeResourcesFit",
        [](const PluginArgs& a) -> std::unique_ptr<Plugin> { return std::make_unique<NodeResourcesFit>(a.fit_strategy, a.fit_ignored_slots,
                                                                                                 a.fit_ignored_groups); });
  r.add("VolumeRestrictions", nullptr);
  r.add("EBSLimits", nullptr);
  r.add("GCEPDLimits", nullptr);
  r.add("NodeVolumeLimits", nullptr);
  r.add("AzureDiskLimits", nullptr);
  r.add("VolumeBinding", nullptr);
  r.add("VolumeZone", nullptr);
  r.add("PodTopologySpread", constant_score<kPodTopologySpread, kMaxNodeScore>);
  r.add("InterPodAffinity", constant_score<kInterPodAffinity, 0>);
  r.add("DefaultPreemption", nullptr);
  r.add("NodeResourcesBalancedAllocation", [](const PluginArgs& a) -> std::unique_ptr<Plugin> {
    return std::make_unique<BalancedAllocation>(a.balanced_resources);
  });
  r.add("ImageLocality", constant_score<kImageLocality, 0>);
  r.add("DefaultBinder", nullptr);
  // The FGD authors' fork.
  r.add(kOpenGpuSharePlugin, [](const PluginArgs& a) -> std::unique_ptr<Plugin> {
    return std::make_unique<OpenGpuShare>(a.open_gpu_share);
  });
  r.add("FGDScore", plain<FgdScore>);
  r.add("BestFitScore", plain<BestFitScore>);
  r.add("DotProductScore", [](const PluginArgs& a) -> std::unique_ptr<Plugin> {
    return std::make_unique<DotProductScore>(a.dot_product);
  });
  r.add("GpuPackingScore", plain<GpuPackingScore>);
  r.add("GpuClusteringScore", plain<GpuClusteringScore>);
  r.add("RandomScore", plain<RandomScore>);
  r.add("Simon", nullptr);
  return r;
}

PluginRegistry out_of_tree_registry() {
  PluginRegistry r;
  r.add("Coscheduling", [](const PluginArgs& a) -> std::unique_ptr<Plugin> {
    if (!a.objects) return nullptr;
    return std::make_unique<Coscheduling>(a.coscheduling);
  });
  r.add("CapacityScheduling", [](const PluginArgs& a) -> std::unique_ptr<Plugin> {
    if (!a.objects) return nullptr;
    return std::make_unique<CapacityScheduling>();  // its quotas: the store's ElasticQuotas
  });
  r.add("NodeResourceTopologyMatch", nullptr);
  r.add("NodeResourcesAllocatable", [](const PluginArgs& a) -> std::unique_ptr<Plugin> {
    return std::make_unique<NodeResourcesAllocatable>(a.allocatable);
  });
  r.merge(in_tree_registry());
  return r;
}

}  // namespace kubesim

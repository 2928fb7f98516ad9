// Coscheduling from kubernetes-sigs/scheduler-plugins (pkg/coscheduling/coscheduling.go and
// pkg/coscheduling/core/core.go, the line the release-1.26 chart installs): PodGroups with
// minMember, minResources and scheduleTimeoutSeconds; pods join one by the label
// scheduling.x-k8s.io/pod-group in the PodGroup's namespace. QueueSort keeps a group's pods
// together, PreFilter refuses a group that cannot be complete, Permit holds the pods of a
// group until minMember of them are assumed, PostFilter and Unreserve reject the whole group.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sched/kube/framework.hpp"

namespace kubesim {

inline constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";  // v1alpha1.PodGroupLabel

// scheduling.x-k8s.io/v1alpha1 PodGroup (the spec fields the plugin reads).
struct PodGroupObject {
  std::string ns;
  std::string name;
  std::int32_t min_member = 0;
  std::optional<Resources> min_resources;  // nil: no cluster-resource pre-check
  std::int32_t schedule_timeout_seconds = 0;  // 0: unset
  SimTime created = SimTime::zero();          // metadata.creationTimestamp
};

// CoschedulingArgs (apis/config/v1 defaults.go: permitWaitingTimeSeconds 60,
// podGroupBackoffSeconds 0).
struct CoschedulingArgs {
  std::int64_t permit_waiting_time_seconds = 60;
  std::int64_t pod_group_backoff_seconds = 0;
};

class Coscheduling final : public QueueSortPlugin,
                           public PreFilterPlugin,
                           public PostFilterPlugin,
                           public ReservePlugin,
                           public PermitPlugin,
                           public InformerPlugin {
 public:
  Coscheduling(CoschedulingArgs args, std::vector<PodGroupObject> groups);
  // A PodGroup created while the run goes on (a workload that creates its own group, as the
  // BSP job does: src/bsp/gang_run.cpp), seen by the plugin's PodGroup informer. Contract:
  // called before the group's pods are created (upstream a PodGroup Add also re-queues
  // unschedulable pods, which such pods cannot be yet). False (nothing added) when the
  // namespace already has a PodGroup of that name (the API server's AlreadyExists).
  bool add_group(PodGroupObject group);
  const char* name() const override { return "Coscheduling"; }
  // EventsToRegister: Pod/Add (and PodGroup Add/Update, which kubesim's fixed groups never emit).
  std::uint32_t events_to_register() const override { return kEventPodAdd; }

  void set_handle(FrameworkHandle* handle) override { handle_ = handle; }
  void on_pod_change(const Change& change, SimTime now) override;
  bool less(PodId a, SimTime initial_a, PodId b, SimTime initial_b) const override;
  PluginStatus pre_filter(const CycleContext& ctx, SimTime now) override;
  PluginStatus post_filter(PodId pod, SimTime now) override;
  PluginStatus reserve(PodId, NodeId, SimTime) override { return {}; }
  void unreserve(PodId pod, NodeId node, SimTime now) override;
  Result permit(PodId pod, NodeId node, SimTime now) override;

  // The group of a pod (its label names a PodGroup of its namespace), or -1.
  int group_of(PodId pod) const;
  // CalculateAssignedPods: the group's pods in the scheduler cache (assumed or bound).
  std::int32_t assigned(int group, PodId except = PodId()) const;
  // The group's pods the pod informer holds (non-terminal).
  std::size_t members(int group) const { return members_[static_cast<std::size_t>(group)].size(); }

 private:
  // The PodGroup a label value names in a namespace, or -1.
  int find_group(NamespaceId ns, const std::string& label) const;
  SimTime sort_time(PodId pod, SimTime initial) const;
  bool check_cluster_resource(int group, std::string* gap) const;
  void reject_waiting(int group, const char* message);

  CoschedulingArgs args_;
  std::vector<PodGroupObject> groups_;
  std::map<std::pair<std::string, std::string>, int> by_name_;  // (namespace, name) -> group
  FrameworkHandle* handle_ = nullptr;
  std::vector<std::vector<PodId>> members_;  // by group, non-terminal pods in arrival order
  std::vector<int> group_of_;                // by PodId (-1: none), set when the pod is added
  std::vector<SimTime> permitted_until_;     // permittedPG (go-cache TTL), by group
  std::vector<SimTime> backed_off_until_;    // backedOffPG, by group
};

}  // namespace kubesim

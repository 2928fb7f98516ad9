// Coscheduling from kubernetes-sigs/scheduler-plugins (pkg/coscheduling/coscheduling.go and
// pkg/coscheduling/core/core.go, the line the release-1.26 chart installs): PodGroups with
// minMember, minResources and scheduleTimeoutSeconds; pods join one by the label
// scheduling.x-k8s.io/pod-group in the PodGroup's namespace. QueueSort keeps a group's pods
// together, PreFilter refuses a group that cannot be complete, Permit holds the pods of a
// group until minMember of them are assumed, PostFilter and Unreserve reject the whole group.
// The PodGroups are the store's objects of the registered PodGroup kind
// (sched/scheduler_plugins_objects.hpp install_pod_groups), read through the kind registry by
// namespace/name as core.go reads its PodGroup lister; a pod's group is looked up once, when
// its Added change arrives (the group must exist by then: kubesim's groups are created before
// their pods, and never updated or deleted).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sched/kube/framework.hpp"

namespace kubesim {

inline constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";  // v1alpha1.PodGroupLabel
// The PodGroup kind's API group and resource (config/crd/bases/scheduling.x-k8s.io_podgroups.yaml).
inline constexpr const char* kPodGroupApiGroup = "scheduling.x-k8s.io";
inline constexpr const char* kPodGroupPlural = "podgroups";

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
  explicit Coscheduling(CoschedulingArgs args) : args_(args) {}
  const char* name() const override { return "Coscheduling"; }
  // EventsToRegister: Pod/Add (and PodGroup Add/Update, which kubesim's groups never emit
  // while their pods wait: they are created before them).
  std::uint32_t events_to_register() const override { return kEventPodAdd; }

  void set_handle(FrameworkHandle* handle) override { handle_ = handle; }
  void on_pod_change(const Change& change, SimTime now) override;
  bool less(PodId a, SimTime initial_a, PodId b, SimTime initial_b) const override;
  PluginStatus pre_filter(const CycleContext& ctx, SimTime now) override;
  PluginStatus post_filter(PodId pod, SimTime now) override;
  PluginStatus reserve(PodId, NodeId, SimTime) override { return {}; }
  void unreserve(PodId pod, NodeId node, SimTime now) override;
  Result permit(PodId pod, NodeId node, SimTime now) override;

  // The group of a pod (its label names a PodGroup of its namespace): the PodGroup's id in
  // the store's PodGroup kind, or -1.
  int group_of(PodId pod) const;
  // CalculateAssignedPods: the group's pods in the scheduler cache (assumed or bound).
  std::int32_t assigned(int group, PodId except = PodId()) const;
  // The group's pods the pod informer holds (non-terminal).
  std::size_t members(int group) const { return members_[static_cast<std::size_t>(group)].size(); }

 private:
  // The PodGroup a label value names in a namespace, or -1 (also while the store has no
  // PodGroup kind).
  int find_group(NamespaceId ns, const std::string& label);
  const PodGroupObject& pod_group(int g) const { return groups_->get(static_cast<std::uint32_t>(g)); }
  SimTime sort_time(PodId pod, SimTime initial) const;
  bool check_cluster_resource(int group, std::string* gap) const;
  void reject_waiting(int group, const char* message);

  CoschedulingArgs args_;
  // The store's PodGroup objects (its lister), once the kind is registered.
  const TypedKindTable<PodGroupObject>* groups_ = nullptr;
  ObjectKind kind_{};
  FrameworkHandle* handle_ = nullptr;
  // By group (sized to the groups seen so far):
  std::vector<std::vector<PodId>> members_;  // non-terminal pods in arrival order
  std::vector<int> group_of_;                // by PodId (-1: none), set when the pod is added
  std::vector<SimTime> permitted_until_;     // permittedPG (go-cache TTL), by group
  std::vector<SimTime> backed_off_until_;    // backedOffPG, by group
};

}  // namespace kubesim

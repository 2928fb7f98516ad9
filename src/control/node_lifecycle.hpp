// Node failures, recovery, cordon and drain, as the cluster's controllers handle them
// (v1.26 defaults; reference: pkg/controller/nodelifecycle/node_lifecycle_controller.go,
// its taint manager, plugin/pkg/admission/defaulttolerationseconds, kubectl drain):
// - fail: the machine stops; its kubelet and containers are gone (Kubelets::on_node_down).
//   After nodeMonitorGracePeriod (40 s) without heartbeats the node lifecycle controller
//   sets Ready=Unknown and taints the node node.kubernetes.io/unreachable with NoSchedule
//   (TaintNodesByCondition: the scheduler stops placing pods there) and NoExecute. Pods
//   tolerate NoExecute for defaultTolerationSeconds (300 s, added to every pod by the
//   DefaultTolerationSeconds admission plugin) unless they tolerate the taint themselves;
//   then the taint manager marks them DisruptionTarget/DeletionByTaintManager and deletes
//   them. With the kubelet gone they stay Terminating (the Job controller counts them as
//   failed at once) until the node comes back.
// - recover: the kubelet is back and heartbeats: Ready=True, the taints are removed, and
//   the kubelet syncs the pods bound to it (Kubelets::on_node_up).
// - cordon/uncordon: spec.unschedulable.
// - drain: cordon, then evict each pod through the Eviction API: allowed when every PDB
//   selecting the pod has a disruption left, else retried every 5 s (kubectl drain);
//   evicted pods get DisruptionTarget/EvictionByEvictionAPI and their own grace period.
#pragma once

#include <cstdint>
#include <vector>

#include "control/cluster_actions.hpp"
#include "control/kubelet.hpp"
#include "core/event_queue.hpp"
#include "model/object_store.hpp"

namespace kubesim {

struct NodeLifecycleConfig {
  Duration node_monitor_grace_period = Duration::seconds(40);
  Duration default_toleration_seconds = Duration::seconds(300);
  Duration drain_retry = Duration::seconds(5);
};

struct NodeLifecycleEvent {
  enum class Kind : std::uint8_t { kAction, kMarkUnreachable, kTaintEviction, kDrainRetry };
  Kind kind;
  std::uint32_t index;  // kAction: the action; else the node
  std::uint32_t epoch;  // the node's failure epoch when posted (stale events are ignored)
};

class NodeLifecycleHost {
 public:
  virtual ~NodeLifecycleHost() = default;
  virtual void post(SimTime at, Phase phase, NodeLifecycleEvent event) = 0;
};

class NodeLifecycle {
 public:
  // `actions` must name existing nodes (resolved here; throws InputError otherwise).
  NodeLifecycle(ObjectStore& store, Kubelets& kubelets, NodeLifecycleConfig config, std::vector<ClusterAction> actions,
                NodeLifecycleHost& host);
  void start();  // posts the actions
  void on_event(const NodeLifecycleEvent& event, SimTime now);
  const NodeLifecycleConfig& config() const { return config_; }

 private:
  void fail(NodeId node, SimTime now);
  void recover(NodeId node, SimTime now);
  void drain(NodeId node, SimTime now);
  void set_unschedulable(NodeId node, bool value);

  ObjectStore& store_;
  Kubelets& kubelets_;
  NodeLifecycleConfig config_;
  std::vector<ClusterAction> actions_;
  std::vector<NodeId> action_nodes_;
  std::vector<std::uint32_t> epoch_;  // by node: bumped on every failure and recovery
  NodeLifecycleHost& host_;
};

// The PDB's disruptionsAllowed over the store's live pods (healthy: running, not
// terminating). Scans the store: meant for rare operations (drain).
std::int32_t disruptions_allowed(const ObjectStore& store, const PodDisruptionBudget& pdb);

}  // namespace kubesim

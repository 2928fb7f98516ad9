// The kubelets of all nodes (pkg/kubelet). For each pod bound to its node a kubelet:
// - admits it like pkg/kubelet/lifecycle/predicate.go: the pod must fit next to the node's
//   active (non-terminal) pods, else phase Failed with reason OutOf<resource> (OutOfcpu,
//   OutOfmemory, OutOfpods, ...) and "Pod was rejected: Node didn't have enough resource: ...";
// - starts its container after the start-up latency (sandbox, image present, start);
// - learns of state changes through PLEG, which relists containers every plegRelistPeriod
//   (1 s, pkg/kubelet/kubelet.go) at a per-node phase, and reports the status to the API
//   server after the status-update latency; reports for one pod stay in order;
// - frees the pod's resources (for its own admission) when PLEG sees the container exit;
// - enforces spec.activeDeadlineSeconds from status.startTime (reason DeadlineExceeded).
#pragma once

#include <cstdint>
#include <vector>

#include "core/distribution.hpp"
#include "core/event_queue.hpp"
#include "core/random.hpp"
#include "model/object_store.hpp"

namespace kubesim {

struct KubeletEvent {
  enum class Kind : std::uint8_t { kContainerStarted, kContainerExitSeen, kDeadline, kReport };
  Kind kind;
  PodId pod;
};

class KubeletHost {
 public:
  virtual ~KubeletHost() = default;
  virtual void post(SimTime at, Phase phase, KubeletEvent event) = 0;
};

struct KubeletLatencies {
  Distribution startup;        // admission -> container running
  Distribution status_update;  // status change seen by the kubelet -> stored by the API server
  Duration pleg_relist_period = Duration::seconds(1);  // zero: changes are seen at once
};

class Kubelets {
 public:
  Kubelets(ObjectStore& store, KubeletLatencies latencies, std::uint64_t seed, KubeletHost& host);

  // Informer delivery of pod changes (the kubelet watches pods bound to its node).
  void on_pod_change(const Change& change, SimTime now);
  void on_node_added(NodeId node);
  void on_event(const KubeletEvent& event, SimTime now);

  // Pods whose containers the kubelets consider running or starting.
  std::size_t active_pods() const { return active_; }

 private:
  enum class State : std::uint8_t { kNone, kStarting, kRunning, kDone };
  struct PodState {
    State state = State::kNone;
    bool deadline_exceeded = false;
    SimTime exit_at = SimTime::never();
    SimTime last_report = SimTime::never();
  };
  struct NodeState {
    Resources used;
    std::int64_t pods = 0;
    Duration pleg_offset;
  };

  void admit(PodId pod, NodeId node, SimTime now);
  void release(PodId pod);
  SimTime pleg_sees(NodeId node, SimTime t) const;
  void report(PodId pod, SimTime seen);
  PodState& state(PodId pod);

  ObjectStore& store_;
  KubeletLatencies latencies_;
  RandomStream startup_rng_;
  RandomStream status_rng_;
  RandomStream pleg_rng_;
  KubeletHost& host_;
  std::vector<NodeState> nodes_;
  std::vector<PodState> pods_;
  std::size_t active_ = 0;
};

}  // namespace kubesim

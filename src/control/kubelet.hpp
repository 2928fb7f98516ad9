// The kubelets of all nodes (pkg/kubelet). For each pod bound to its node a kubelet:
// - admits it like pkg/kubelet/lifecycle/predicate.go: the pod must fit next to the node's
//   active (non-terminal) pods, else phase Failed with reason OutOf<resource> (OutOfcpu,
//   OutOfmemory, OutOfpods, ...) and "Pod was rejected: Node didn't have enough resource: ...";
// - starts its container as kuberuntime_manager.go SyncPod does: the pod sandbox (the
//   start-up latency), then the image (images/image_manager.go EnsureImageExists: events
//   Pulling, Pulled), the container's creation (Created) and start (Started), each step its
//   own latency; the steps' instants are kept on the Pod (Pod::pulling, pulled, container_created)
//   for the API's Events;
// - learns of state changes through PLEG, which relists containers every plegRelistPeriod
//   (1 s, pkg/kubelet/kubelet.go) at a per-node phase, and reports the status to the API
//   server after the status-update latency; reports for one pod stay in order;
// - frees the pod's resources (for its own admission) when PLEG sees the container exit;
// - enforces spec.activeDeadlineSeconds from status.startTime (reason DeadlineExceeded);
// - stops the containers of a deleted pod (graceful termination): SIGTERM, then SIGKILL when
//   the grace period ends (pkg/kubelet/kuberuntime/kuberuntime_container.go killContainer).
//   The study's busybox `sleep` runs as PID 1 and ignores SIGTERM, so by default a deleted
//   pod keeps running (and holding its node's resources) for its whole grace period; it then
//   ends Failed with exit code 137 and the kubelet removes it from the API;
// - goes down with its node (node failure): nothing on the node is started, stopped or
//   reported until the node recovers; containers that were running are gone.
// The ranks of a rigid parallel job (Pod::machines > 1: one pod per machine of a Batsim job)
// are one program, as the processes of an MPI job: a rank whose container has started waits,
// Running and holding its node, until all the job's ranks are running at once (MPI_Init's
// rendezvous); from that instant each rank runs its run time, so the job's ranks end
// together. A rank waits until then, or until its activeDeadlineSeconds (the walltime) or a
// deletion stops it: under a scheduler that places pods one by one, a job holding part of the
// machines while another holds the rest never starts (the deadlock a gang scheduler avoids).
// This is kubesim's model of the application, not a Kubernetes rule: Kubernetes itself runs
// every container on its own.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/node_cache.hpp"
#include "core/distribution.hpp"
#include "core/event_queue.hpp"
#include "core/huge_pages.hpp"
#include "core/random.hpp"
#include "model/object_store.hpp"

namespace kubesim {

struct KubeletEvent {
  enum class Kind : std::uint8_t { kContainerStarted, kContainerExitSeen, kDeadline, kReport, kKilled };
  Kind kind;
  PodId pod;
};

class KubeletHost {
 public:
  virtual ~KubeletHost() = default;
  virtual void post(SimTime at, Phase phase, KubeletEvent event) = 0;
};

struct KubeletLatencies {
  Distribution startup;          // admission -> sandbox ready, image pull begins (Pulling)
  Distribution image_pull;       // Pulling -> Pulled
  // The first pull on a node, which downloads the image (not on the node yet); later pulls
  // (policy Always: images/image_manager.go EnsureImageExists pulls every time) find its
  // layers present and only resolve the reference. Zero: every pull is image_pull.
  Distribution image_pull_first;
  Distribution container_create; // Pulled -> Created
  Distribution container_start;  // Created -> Started (container running)
  // A stalled start: some starts take `startup_stall` longer before the image pull begins.
  // Measured on the Batkube k3s testbed (docs/fidelity.md): Scheduled -> Pulling is 0.4-1 s or
  // 2.4 s more, and whether a start stalls depends on the node's previous start: never twice
  // in a row (1 of 361), 40% after one that did not, 73% for a node's first pod. The upstream
  // step that stalls was not identified from the columns measured; the delay's size matches
  // the kubelet's volume set-up retry path for the pod's service-account secret (pkg/kubelet/
  // util/manager/watch_based_manager.go Get waits up to 1 s for the secret's cache, the failed
  // mount is retried after nestedpendingoperations' 500 ms back-off and seen by
  // volumemanager WaitForAttachAndMount's 300 ms poll), without proof. So the rule is kept
  // as measured: the probability of a stall given the node's history (its first pod, after a
  // start that did not stall, after one that did), all fitted by `kubesim calibrate`.
  // Zero stall (every built-in model): no draw, no state.
  Distribution startup_stall;
  double stall_probability_first = 0;
  double stall_probability_after_unstalled = 0;
  double stall_probability_after_stalled = 0;
  Distribution status_update;  // status change seen by the kubelet -> stored by the API server
  Duration pleg_relist_period = Duration::seconds(1);  // zero: changes are seen at once
  // Whether containers exit when sent SIGTERM. False models the study's busybox `sleep` as
  // PID 1 (the kernel drops signals PID 1 has no handler for): it runs until SIGKILL.
  bool containers_exit_on_sigterm = false;
};

class Kubelets {
 public:
  Kubelets(ObjectStore& store, KubeletLatencies latencies, std::uint64_t seed, KubeletHost& host);

  // Informer delivery of pod changes (the kubelet watches pods bound to its node).
  void on_pod_change(const Change& change, SimTime now);
  void on_node_added(NodeId node);
  // Room for the state of this many pods, so the per-pod table is not moved as pods arrive.
  void reserve(std::size_t pods) { pods_.reserve(pods); }
  void on_event(const KubeletEvent& event, SimTime now);
  // True when the event can no longer do anything: a container event for a container that
  // was stopped earlier (killed, deadline, node down). The run skips it without moving the
  // clock, so a pod stopped early does not stretch the run to its natural exit time.
  bool is_stale(const KubeletEvent& event) const;
  // The node's machine stops (its containers die) or comes back (its kubelet restarts and
  // syncs the pods bound to it: terminating ones are finished, others are restarted as new).
  void on_node_down(NodeId node, SimTime now);
  void on_node_up(NodeId node, SimTime now);
  bool node_up(NodeId node) const { return !nodes_[node.value()].down; }

  // Pods whose containers the kubelets consider running or starting.
  std::size_t active_pods() const { return active_; }

 private:
  enum class State : std::uint8_t { kNone, kStarting, kRunning, kDone };
  struct PodState {
    State state = State::kNone;
    bool deadline_exceeded = false;
    bool killed = false;  // stopped by SIGKILL at the end of a graceful deletion
    bool in_rendezvous = false;  // a rank counted in its job's running ranks
    SimTime exit_at = SimTime::never();  // never: not running, or a rank waiting for the others
    SimTime last_report = SimTime::never();
  };
  // The running ranks of one rigid parallel job, by workload job index.
  struct Rendezvous {
    std::uint32_t running = 0;
    std::vector<PodId> waiting;  // ranks running whose work has not begun, in start order
  };
  struct NodeState {
    Duration pleg_offset;
    bool down = false;
    enum class LastStart : std::uint8_t { kNone, kUnstalled, kStalled } last_start = LastStart::kNone;
    bool has_image = false;  // a pull on this node downloaded the image (image_pull_first)
  };

  void admit(PodId pod, NodeId node, SimTime now);
  void terminate(PodId pod, SimTime now);
  void stop(PodId pod, SimTime now, bool killed);
  void release(PodId pod);
  // Admission (lifecycle/predicate.go): whether the node refuses the pod, with the rejected
  // pod's status reason and message.
  bool refused(PodId pod, NodeId node, std::string& reason, std::string& message) const;
  bool devices_refused(PodId pod, NodeId node, std::string& reason, std::string& message) const;
  // Arms the end of a running container's work (its exit, or the deadline that comes first).
  void run_container(PodId pod, SimTime now);
  // A rank whose container started joins its job's rendezvous; the last one starts them all.
  void join_rendezvous(PodId pod, SimTime now);
  void leave_rendezvous(PodId pod);
  SimTime pleg_sees(NodeId node, SimTime t) const;
  void report(PodId pod, SimTime seen);
  PodState& state(PodId pod);

  ObjectStore& store_;
  KubeletLatencies latencies_;
  RandomStream startup_rng_;
  RandomStream stall_rng_;
  RandomStream pull_rng_;
  RandomStream pull_first_rng_;
  RandomStream create_rng_;
  RandomStream start_rng_;
  RandomStream status_rng_;
  RandomStream pleg_rng_;
  KubeletHost& host_;
  std::vector<NodeState> nodes_;
  // The admitted pods on each node (requests, pod count, devices): the kubelets' view, as
  // the device manager's and the admit handlers' (pods admitted and not yet released). Sums
  // only: admission never lists a node's pods, and a pod's node is its binding's.
  NodeCache admitted_;
  HugePageVector<PodState> pods_;  // by PodId: as large as the pod table (core/huge_pages.hpp)
  std::vector<Rendezvous> rendezvous_;  // by workload job index (rigid parallel jobs only)
  std::size_t active_ = 0;
};

}  // namespace kubesim

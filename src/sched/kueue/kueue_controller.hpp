// Kueue's manager (kueue-controller-manager, v0.9) in front of kube-scheduler: it
// admits whole batch/v1 Jobs by un-suspending them and never places a pod (kube-scheduler
// schedules the pods the Job controller then creates).
//
// It is a Controller (cluster/controller.hpp) watching Pods, Nodes (which it ignores: its
// informer stream has them, as the manager's cache does) and Jobs: its own informer stream
// (the watch delay, plus the setup's informer delay), its own timers (Timer: its API writes
// landing and its scheduling cycles), its pod webhook (admit_pod_on_create) and a say in
// when the run ends (busy() while a write or a cycle is pending). It reads the store and
// writes through its host's client (cluster/api_client.hpp: gate removals, Job suspend
// updates, pod deletions).
//
// Life of a Job labelled kueue.x-k8s.io/queue-name (created suspended, as Kueue's webhook
// does):
//  1. Job added (informer) -> jobframework reconciler creates the Workload (API write).
//  2. The Workload joins its ClusterQueue's heap (LocalQueue -> ClusterQueue; the
//     namespace must match the ClusterQueue's namespaceSelector); a cycle runs
//     (scheduler.go: cycles back to back while there are heads; no fixed interval).
//  3. Admitted: quota reserved in the cache at once; status.admission written (API write);
//     then the reconciler un-suspends the Job (API write). The Job controller creates pods.
//  4. Job Complete/Failed (informer) -> Workload Finished (API write) -> quota released,
//     the cohort's inadmissible workloads requeued.
//  5. Preempted: Evicted condition (API write) -> the reconciler suspends the Job (API
//     write; the Job controller deletes its pods) -> once the Job reports no active pod
//     (informer), the reservation is unset (API write), releasing the quota and requeueing
//     the workload (jobframework reconciler.go: "The job is no longer active, clear the
//     workloads admission").
//
// Plain pods (Kueue v0.6+, when the Configuration's integrations.frameworks lists "pod";
// pkg/controller/jobs/pod/pod_webhook.go, pod_controller.go, read at v0.9.0):
//  1. The pod webhook (Default) gates every new pod labelled kueue.x-k8s.io/queue-name in a
//     namespace matching podOptions.namespaceSelector (and podSelector) with the scheduling
//     gate kueue.x-k8s.io/admission, unless a Job owns it; its validation refuses a pod with
//     kueue.x-k8s.io/pod-group-name but no valid kueue.x-k8s.io/pod-group-total-count (an
//     integer >= 1), or the reverse. kube-scheduler leaves gated pods alone.
//  2. A pod without a group name is a Workload of its own; the pods sharing a group name in a
//     namespace are one Workload named after the group, created once the group has
//     total-count runnable pods (ConstructComposableWorkload: fewer is "fewer runnable pods
//     than expected", retried on the next pod event), with one PodSet per role (pods of equal
//     requests and priority; more than 8 roles is refused for good); its quota is the sum of
//     the first total-count runnable pods' requests.
//  3. Admitted: the reconciler's startJob ungates every gated pod of the group (Run: one
//     patch per pod, in parallel), and kube-scheduler schedules them.
//  4. Finished (Pod.Finished): every pod Succeeded (count = total-count), or, in a group with
//     kueue.x-k8s.io/retriable-in-group: "false", no pod left active (all terminated): the
//     Workload gets its Finished condition and the quota is released. A group all of whose
//     pods are gone has its Workload garbage-collected (its owners are the pods), which
//     releases the quota too; a new pod of that group name starts a new Workload.
//  5. Preempted: Stop deletes the group's running pods (one write here); once no pod runs
//     (IsActive), the reservation is unset and the Workload requeued; re-admitted, it ungates
//     the group's gated (replacement) pods.
// Only kube-scheduler honours the gate (sched/kube/scheduler.cpp): the pods of a group must be
// kube-scheduler's (the BSP job checks it); the other scheduler models ignore gates.
// Not modelled for pods: the kueue.x-k8s.io/managed label and finalizer (upstream a deleted
// pod's object stays until Kueue's finalize patch, one API write later; it holds no node
// resources then), the role-hash annotation, excess pods (upstream deletes the pods beyond
// total-count), pod-group-fast-admission, waitingForReplacementPods, node selectors injected
// from flavors, gates set by API clients (kubesim serve drops a created pod's own gates).
// Every API request waits for the manager's one token bucket (clientConnection qps 20,
// burst 30) and lands after Config::api_latency. One bucket for all: cmd/kueue/main.go sets
// kubeConfig.RateLimiter (flowcontrol.NewTokenBucketRateLimiter(qps, burst)) before
// ctrl.NewManager, and client-go's RESTClientForConfigAndClient (rest/config.go) builds a
// limiter only when the config has none, so controller-runtime's per-type REST clients, the
// informers and the event recorder's clientset (controller-runtime
// pkg/internal/recorder/recorder.go NewProvider: corev1client.NewForConfigAndClient) all
// share it. Besides the Workload and Job writes, the bucket carries:
//  - Events (one create or patch each; which one is client-go's correlator's affair and
//    costs the same): QuotaReserved and Admitted (scheduler.go applyAdmission), Pending on
//    every requeue of a nominated head that was not admitted (scheduler.go
//    requeueAndUpdate), Preempted (preemption.go), EvictedDueToPreempted (workload
//    controller, workload.ReportEvictedWorkload), CreatedWorkload, Started, Stopped and
//    FinishedWorkload on the Job (jobframework reconciler.go). client-go's spam filter
//    (tools/record/events_cache.go EventSourceObjectSpamFilter: per source component and
//    involved object, a bucket of 25 refilled at 1 per 300 s) drops the rest unsent.
//  - ClusterQueue and LocalQueue status updates: every Workload event (create, every update,
//    the finalizer's removal too: workload_controller.go Create/Update/Delete ->
//    notifyWatchers -> NotifyWorkloadUpdate) queues both reconcilers after
//    constants.UpdatesBatchPeriod (1 s; clusterqueue_controller.go cqWorkloadHandler,
//    localqueue_controller.go qWorkloadHandler: AddAfter, which keeps one pending request
//    per queue). In v0.9.5 each reconcile writes the status (updateCqStatusIfChanged /
//    UpdateStatusIfChanged compare a pointer with a value), and an update that changed the
//    status comes back as a watch event of the queue (For(&ClusterQueue{}) /
//    For(&LocalQueue{})) which reconciles it once more; serve, as etcd3's GuaranteedUpdate,
//    does not store an update that changes nothing, so that one ends it.
// A finished Workload's finalizer is removed with an update (reconciler.go: after the
// FinishedWorkload Event, workload.RemoveFinalizer). A Workload's Pending condition
// (QuotaReserved False, reason Pending, the entry's inadmissibleMsg) is patched whenever a
// requeue changes it (scheduler.go requeueAndUpdate: UnsetQuotaReservationWithCondition on a
// copy of the queue's Workload, applied if changed). Its message names the quota missing
// ("N more needed"), so it changes with the usage; the queue's copy has the new message once
// the patch has landed (the workload controller's Update event).
// Not modelled: Workload objects in the API (kubectl get workloads), waitForPodsReady,
// fair sharing, admission checks, partial admission, the Eviction requeuing timestamp
// (applies to PodsReadyTimeout evictions only), Jobs created unsuspended.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/kueue/kueue_cache.hpp"
#include "cluster/controller.hpp"

namespace kubesim::kueue {

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
// pod_webhook.go's names.
inline constexpr const char* kPodGroupNameLabel = "kueue.x-k8s.io/pod-group-name";
inline constexpr const char* kPodGroupTotalCountAnnotation = "kueue.x-k8s.io/pod-group-total-count";
inline constexpr const char* kRetriableInGroupAnnotation = "kueue.x-k8s.io/retriable-in-group";
inline constexpr const char* kAdmissionGate = "kueue.x-k8s.io/admission";  // pkg/constants

class Controller final : public kubesim::Controller {
 public:
  // Reads the store; writes through host.client().
  Controller(const ObjectStore& store, ControllerHost& host, Config config);

  KindSet watches() const override { return {ObjectKind::kNode, ObjectKind::kPod, ObjectKind::kJob}; }
  void on_change(const Change& change, SimTime now) override;
  std::string admit_pod_on_create(Pod& pod) const override;
  void on_timer(TimerPayload payload, SimTime now) override;
  bool busy() const override { return cycle_posted_ || writes_in_flight_ > 0; }
  std::uint64_t attempts() const override { return cache_.nominations(); }

  const Cache& cache() const { return cache_; }
  std::uint64_t admissions() const { return admissions_; }
  std::uint64_t evictions() const { return evictions_; }
  std::uint64_t api_writes() const { return api_writes_; }
  // Of the API requests: Events sent, Events the spam filter dropped, queue status updates
  // (all, and those that changed nothing).
  std::uint64_t events() const { return events_; }
  std::uint64_t events_dropped() const { return events_dropped_; }
  std::uint64_t queue_status_writes() const { return queue_status_writes_; }
  std::uint64_t queue_status_unchanged() const { return queue_status_unchanged_; }
  // The Workload of a plain pod's group, -1 while it has none.
  std::int32_t workload_of_pod(PodId pod) const;

 private:
  enum class Write : std::uint8_t { kCreateWorkload, kCreateGroupWorkload, kAdmit, kUnsuspendJob, kUngatePod, kEvict,
                                    kSuspendJob, kStopPods, kUnsetReservation, kFinish, kPendingCondition,
                                    kEvent, kQueueStatus, kQueueStatusUnchanged, kRemoveFinalizer };
  // Who records an Event: the spam filter keys on the source component and the object.
  enum class EventSource : std::uint8_t { kAdmission, kWorkloadController, kJobController };
  struct Op {
    Write what;
    // JobId for kCreateWorkload, the pod group for kCreateGroupWorkload, PodId for
    // kUngatePod, the queue (queue_count's index) for kQueueStatus*, else the workload
    std::uint32_t target;
  };
  struct WlState {
    bool finish_requested = false;
    bool unset_requested = false;
    // The Pending condition's message (Cache::CycleResult::pending_message): the one the
    // queue's copy has, and the last one sent.
    bool has_pending = false;
    std::uint64_t pending_message = 0, pending_sent = 0;
    std::int32_t group = -1;  // the plain-pod group it admits; -1: a Job's
    std::int32_t local_queue = -1;  // index into Config::local_queues
  };
  // client-go's spam filter state of one (source, object): a token bucket of its own.
  struct SpamBucket {
    double tokens;
    SimTime at;
  };
  // Plain pods: a group (pod-group-name in a namespace), or a single pod (empty name).
  static constexpr std::int32_t kNoWorkload = -1, kCreating = -2, kRefused = -3;
  struct PodGroup {
    std::int32_t total = 1;       // pod-group-total-count
    bool unretriable = false;     // a pod has retriable-in-group: "false"
    std::vector<PodId> pods;      // in creation order
    std::int32_t workload = kNoWorkload;  // or kCreating, kRefused, or the workload
  };

  // Its timers: a scheduling cycle, or the API write in ops_[slot] landing.
  struct Timer {
    enum class Kind : std::uint32_t { kCycle, kWriteLanded, kQueueReconcile } kind;
    std::uint32_t slot;
  };

  void on_pod_change(const Change& change, SimTime now);
  void on_job_change(const Change& change, SimTime now);
  void run_cycle(SimTime now);
  // The rest of a cycle: the blocking writes (cycle_waits_), then the requeues in order;
  // then the next cycle.
  void cycle_step(SimTime now);
  void write(Write what, std::uint32_t target, SimTime now);
  // An Event about workload w (or its Job) from `source`, unless the spam filter drops it.
  void event(EventSource source, std::uint32_t w, SimTime now);
  // Workload w changed: its ClusterQueue's and LocalQueue's reconciles, 1 s later. Every
  // change counts as one the queues' status shows (their pending, reserving and admitted
  // counts move with it, and the pending count while the scheduler holds a head too).
  void queues_changed(std::uint32_t w, SimTime now);
  // Queues as one index: ClusterQueues first, then LocalQueues.
  std::uint32_t queue_count() const;
  // A write landing (the API call done): its effect, split along jobframework's reconciler
  // (reconciler.go: constructWorkload + Create, startJob, stopJob) and Pod's Run / Stop.
  void landed(const Op& op, SimTime now);
  void create_job_workload(JobId id, SimTime now);
  void start_job(std::uint32_t w, SimTime now);
  void ungate_pod(PodId pod, SimTime now);
  void stop_pods(std::uint32_t w, SimTime now);
  void kick(SimTime now);
  void maybe_unset(std::uint32_t w, SimTime now);
  void sync_group(std::uint32_t g, SimTime now);
  void create_group_workload(std::uint32_t g, SimTime now);
  // The LocalQueue's ClusterQueue for a workload in namespace `ns` (-1: the LocalQueue does
  // not exist or the ClusterQueue's namespaceSelector does not match; the workload stays
  // pending for good).
  // local_queue: set to the LocalQueue's index when it exists.
  std::int32_t cluster_queue_for(NamespaceId ns, const std::string& queue, std::int32_t& local_queue) const;
  std::int32_t workload_of(JobId job) const {
    return job.value() < job_wl_.size() ? job_wl_[job.value()] : -1;
  }

  const ObjectStore& store_;
  ControllerHost& host_;
  Cache cache_;
  std::vector<std::int32_t> job_wl_;  // by JobId: the Workload, -1 none
  std::vector<WlState> wl_state_;     // by workload
  std::vector<PodGroup> groups_;
  std::map<std::pair<std::uint32_t, std::string>, std::uint32_t> group_index_;  // (namespace, name) -> group
  std::vector<std::int32_t> pod_group_;  // by PodId: its group, -1 none
  std::vector<Op> ops_;               // writes in flight (slots reused)
  std::vector<std::uint32_t> free_ops_;
  Cache::CycleResult cycle_result_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, SpamBucket> spam_;  // (source, workload)
  // The event broadcaster's one goroutine (client-go tools/record/event.go
  // StartRecordingToSink: recordToSink per Event in turn): one request at a time, the next
  // once the last is answered, so it holds at most one place in the token bucket's line.
  std::deque<std::uint32_t> events_waiting_;  // workloads
  bool event_sending_ = false;
  void event_done(SimTime now);
  // The ClusterQueue and the LocalQueue reconciler: one worker each (groupKindConcurrency
  // 1) on client-go's workqueue (util/workqueue/queue.go): a FIFO of keys where a key
  // added while queued is one item (the dirty set), and a key added while it is processed
  // is queued once that reconcile is done (Done). Each reconcile is one status update.
  struct QueueWorker {
    std::deque<std::uint32_t> fifo;  // queue indexes
    std::int64_t processing = -1;
  };
  std::array<QueueWorker, 2> workers_;  // ClusterQueues', LocalQueues'
  std::vector<bool> queued_;            // by queue index: in its worker's dirty set
  std::vector<bool> queue_reconcile_posted_;  // by queue index: an AddAfter waiting
  // By queue index: Workload changes of the queue, and how many its last status update saw;
  // an update changes the status when they differ.
  std::vector<std::uint64_t> queue_changes_, queue_changes_written_;
  QueueWorker& worker_of(std::uint32_t queue);
  void queue_add(std::uint32_t queue, SimTime now);
  void queue_next(QueueWorker& worker, SimTime now);
  std::uint64_t events_ = 0, events_dropped_ = 0, queue_status_writes_ = 0, queue_status_unchanged_ = 0;
  // client-go flowcontrol token bucket (golang.org/x/time/rate reservations).
  double tokens_;
  SimTime tokens_at_;
  bool cycle_posted_ = false;  // a cycle is posted or running
  struct Requeue {
    std::uint32_t w;
    bool patch;  // its Pending condition changes
  };
  std::deque<Requeue> requeues_;    // of the running cycle, not yet done
  std::uint32_t cycle_waits_ = 0;  // its writes it waits for
  std::uint64_t writes_in_flight_ = 0;
  std::uint64_t admissions_ = 0;
  std::uint64_t evictions_ = 0;
  std::uint64_t api_writes_ = 0;
};

}  // namespace kubesim::kueue

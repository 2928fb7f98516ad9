// Volcano v1.7.0's vc-scheduler as a SchedulerModel, with the part of vc-controller-manager
// that gives plain pods their PodGroups. docs/derivations/volcano.md states the rules read
// from the source (volcano-sh/volcano at v1.7.0); each function cites its upstream file.
//
// The loop (pkg/scheduler/scheduler.go runOnce, framework/framework.go OpenSession/
// CloseSession): every schedulePeriod (1 s) a session runs over the scheduler's cache as it is
// at that instant (the snapshot: a session takes no simulated time, so the cache itself is
// the snapshot and the session's allocations are undone at its close unless committed); the
// configured actions run in order (vc_actions.cpp: enqueue, allocate, backfill; vc_reclaim.cpp,
// vc_preempt.cpp); the plugins' callbacks (vc_plugins.cpp)
// order namespaces, queues, jobs and tasks, vote on enqueueing and readiness, filter and
// score nodes. A Statement commits a job's allocations (binds them, asynchronously: the
// session does not wait, cache/cache.go Bind) only when the gang is ready (JobReady), keeps
// them for the session when it is pipelined, and discards them otherwise.
//
// Objects (vc_config.hpp): Queues and PodGroups from the setup's file; the `default` queue.
// The Queues are the store's (vc_queues.hpp: served by `kubesim serve`, re-read at each
// session's open, as upstream's Snapshot).
// A pod of schedulerName volcano without the annotation scheduling.k8s.io/group-name gets the
// PodGroup the podgroup controller creates (pkg/controllers/podgroup/pg_controller_handler.go
// createNormalPodPGIfNotExist): podgroup-<owner uid> (its Job's, else its own), minMember 1,
// minResources = the pod's requests, queue = its scheduling.volcano.sh/queue-name annotation
// (else default), priorityClassName = the pod's.
//
// Deliberate simplifications (said where they matter):
// - the podgroup controller's API round trips take no time; its start-up (informer sync) and
//   its client's rate limit are modelled (volcano_controller.cpp);
// - a PodGroup whose pods have all ended leaves the sessions (upstream keeps it until its
//   pods are deleted; it only weighs in proportion's water-filling with a zero request);
// - scores that are the same on every node in kubesim's clusters are left out (image
//   locality, inter-pod affinity, topology spread, taint toleration with no PreferNoSchedule
//   taint: a constant added to every node changes no choice);
// - fit-error messages are shorter than upstream's (the phase and decisions are exact).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cluster/node_cache.hpp"
#include "core/distribution.hpp"
#include "core/random.hpp"
#include "sched/scheduler_model.hpp"
#include "sched/volcano/vc_config.hpp"
#include "sched/volcano/vc_priority_queue.hpp"

namespace kubesim::volcano {

// cmd/scheduler/app/options/options.go defaultSchedulerPeriod.
inline constexpr Duration kSchedulePeriod = Duration::seconds(1);
// volcano.sh/apis pkg/apis/scheduling/v1beta1/labels.go KubeGroupNameAnnotationKey, and
// QueueNameAnnotationKey.
inline constexpr const char* kGroupNameAnnotation = "scheduling.k8s.io/group-name";
inline constexpr const char* kQueueNameAnnotation = "scheduling.volcano.sh/queue-name";
// volcano.sh/apis batch/v1alpha1 TaskSpecKey: a Volcano Job pod's task (api/job_info.go getTaskID).
inline constexpr const char* kTaskSpecAnnotation = "volcano.sh/task-spec";

// api.Resource (pkg/scheduler/api/resource_info.go): float64 amounts, milli-cpu, bytes, and
// scalar resources (kubesim's extended slots; ephemeral-storage is not a Volcano dimension).
// A scalar counts as present when non-zero (upstream keeps a map of the names a pod or node
// lists; a zero entry behaves as an absent one in every comparison used here).
struct VRes {
  double v[kMaxResources] = {};
  static VRes of(const Resources& r);
  VRes& operator+=(const VRes& o);
  VRes& operator-=(const VRes& o);
  VRes operator*(double f) const;
  // LessEqual(rr, defaultValue) with the 0.1 tolerance (minResource): `infinite_default`
  // treats a scalar missing on the right as unbounded (api.Infinity), else as 0 (api.Zero).
  bool less_equal(const VRes& r, bool infinite_default) const;
  bool is_empty() const;  // IsEmpty: every dimension below the tolerance
};

// api/pod_info.go GetPodPreemptable: whether the pod may be a victim of preempt or reclaim.
bool preemptable_pod(const PodTemplate& spec);

enum class GroupPhase : std::uint8_t { kPending, kInqueue, kRunning, kUnknown };
const char* to_string(GroupPhase p);

// A PodGroup as the store keeps it for the API (vc_queues.hpp install_pod_groups): its spec as
// the model has it and the phase the model's last session wrote (session.go jobStatus).
struct GroupObject {
  PodGroupSpec spec;
  GroupPhase phase = GroupPhase::kPending;
};

class Volcano final : public SchedulerModel {
 public:
  // bind_latency: from the session's instant to the binding. Not the latency model's
  // bindLatency (0 under --model ideal): the binary's binds leave after its session has run
  // a while, so a pod running whole seconds ends just after the session of the same phase;
  // binding at the session's instant made the model one session early against the binary
  // (tests/peers/volcano_oracle.py gang, proportion, early).
  Volcano(Config config, ObjectStore& store, SchedulerHost& host, std::uint64_t seed,
          Distribution bind_latency = Distribution::parse("uniform:0.002:0.006", "", 0),
          std::string scheduler_name = "volcano");

  bool serves(const std::string& scheduler_name) const override { return scheduler_name == scheduler_name_; }
  void on_pod_change(const Change& change, SimTime now) override;
  void on_node_change(const Change& change, SimTime now) override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override { return !armed_.is_never(); }
  // The payload of the podgroup controller's timers (volcano_controller.cpp), for a host
  // that delivers them alone (bench/volcano_bench.cpp).
  static std::uint8_t controller_timer_tag();
  // The podgroup controller's pending annotations make pods schedulable.
  bool expects_change() const override { return !controller_queue_.empty(); }
  std::uint64_t attempts() const override { return attempts_; }
  std::uint64_t bindings() const override { return bindings_; }

  // A PodGroup created through the API at `now` (as a user or a job controller creates one):
  // its pods (annotated scheduling.k8s.io/group-name) join it. False: one of that name
  // exists in the namespace already.
  bool add_pod_group(const PodGroupSpec& group, SimTime now);

  // ---- Introspection (tests, the decision log) ----
  // One session at `now` (what the period timer runs).
  void run_session(SimTime now);
  std::uint64_t sessions() const { return sessions_; }
  std::uint64_t evictions() const { return evictions_; }  // pods reclaim and preempt deleted
  const Config& config() const { return config_; }
  // The PodGroup of a pod ("" when it has none) and its phase.
  std::string group_of(PodId pod) const;
  GroupPhase group_phase(const std::string& ns, const std::string& name) const;
  // The node the pod was committed to (invalid: none yet).
  NodeId committed_node(PodId pod) const;
  // Called for each committed allocation (the bind is posted): the pod, its node and every
  // node that had the best score (empty when only one candidate was scored), as
  // kube-scheduler's observer, for `kubesim run --decisions`.
  using DecisionObserver = std::function<void(PodId pod, NodeId chosen, const std::vector<NodeId>& best)>;
  void set_decision_observer(DecisionObserver f) { observer_ = std::move(f); }

 private:
  // api.TaskStatus (pkg/scheduler/api/types.go), as the cache derives it from the pod.
  enum class Status : std::uint8_t { kNone, kPending, kAllocated, kPipelined, kBinding, kBound, kReleasing, kSucceeded, kFailed };
  static bool allocated_status(Status s) {
    return s == Status::kAllocated || s == Status::kBinding || s == Status::kBound;
  }
  struct Task {
    std::int32_t job = -1;
    Status status = Status::kNone;
    bool foreign = false;    // another scheduler's pod on a node: only node resources
    bool releasing = false;  // terminating on its node: counted in releasing_
    NodeId node;           // the node it is accounted on (allocated, binding, bound, releasing)
  };
  struct Job {
    std::string name;
    NamespaceId ns;
    std::int32_t queue = -1;  // -1: a queue that does not exist (not scheduled while so)
    std::string queue_name;   // spec.queue: looked up again when queues come or go
    std::int64_t store_id = -1;  // its GroupObject in the store (-1: not published yet)
    GroupPhase published = GroupPhase::kPending;
    std::int32_t min_member = 1;
    VRes min_resources;
    bool has_min_resources = false;
    std::int32_t priority = 0;
    std::string priority_class;  // a PodGroup's spec.priorityClassName, resolved each session
    std::vector<std::pair<std::string, std::int32_t>> task_min;  // spec.minTaskMember
    std::int32_t task_min_total = 0;                              // its sum
    GroupPhase phase = GroupPhase::kPending;
    std::int64_t created_second = 0;  // creationTimestamp (whole seconds, as the API keeps it)
    SimTime created;                  // when the PodGroup exists (it joins the sessions then)
    bool had_task = false;            // a task has joined it
    std::uint64_t uid = 0;            // a random UID: upstream's tie-break after the timestamp
    std::vector<PodId> tasks;
    bool active = false;  // in active_jobs_
    // Session state.
    VRes drf_allocated;
    double drf_share = 0;
    std::string fit_message;  // the last unschedulable reason of a task of this job
  };
  struct QueueAttr {  // proportion's queueAttr (plugins/proportion/proportion.go)
    bool in_session = false;
    VRes deserved, allocated, request, inqueue, elastic, guarantee, real_capability;
    double share = 0;
  };
  // The session's orders as function objects, for the action's priority queues.
  struct JobLess {
    const Volcano* v;
    bool operator()(std::int32_t l, std::int32_t r) const { return v->job_less(l, r); }
  };
  struct QueueLess {
    const Volcano* v;
    bool operator()(std::int32_t l, std::int32_t r) const { return v->queue_less(l, r); }
  };
  struct TaskLess {
    const Volcano* v;
    bool operator()(PodId l, PodId r) const { return v->task_less(l, r); }
  };
  using JobQueue = PriorityQueue<std::int32_t, JobLess>;
  using QueueQueue = PriorityQueue<std::int32_t, QueueLess>;
  using TaskQueue = PriorityQueue<PodId, TaskLess>;
  // The job's pending tasks (allocate: only those with a request), in TaskOrderFn order.
  TaskQueue pending_tasks(std::int32_t job, bool with_request_only) const;

  struct Op {  // a Statement operation (framework/statement.go)
    PodId pod;
    NodeId node;
    bool pipelined = false;
    std::uint32_t index = 0;  // its place in session_ops_
    bool evict = false;       // an eviction (statement.go Evict), deleted at commit
  };

  // volcano.cpp: informers, controller, session loop, bind.
  Task& task(PodId pod);
  void on_new_pod(PodId pod, SimTime now);
  std::int32_t controller_group(PodId pod, SimTime now);
  // volcano_controller.cpp: the podgroup controller's queue of pods waiting for their group.
  void controller_enqueue(PodId pod, SimTime now);
  void controller_run(SimTime now);
  SimTime take_token(SimTime at);
  void join_group(PodId pod, std::int32_t job, SimTime now);
  std::int32_t new_job(std::string name, NamespaceId ns, const std::string& queue, SimTime now);
  void set_group_spec(std::int32_t job, const PodGroupSpec& g);
  void activate(std::int32_t job);
  void activate_created(SimTime now);
  void arm(SimTime now);
  bool has_work() const;
  void open_session();
  // vc_queues.cpp: the store's Queues into config_.queues (those changed since last time).
  void sync_queues();
  // vc_queues.cpp: the job's PodGroup and phase into the store (created at its first session's
  // close, updated when the phase changes).
  void publish_group(std::int32_t job);
  void close_session(SimTime now);
  void commit(std::vector<Op>& ops, SimTime now);
  void discard(std::vector<Op>& ops);
  void account(PodId pod, NodeId node);
  void unaccount(PodId pod);

  // vc_actions.cpp
  void enqueue();
  void allocate(SimTime now);
  void allocate_job(std::int32_t job, std::int32_t queue, TaskQueue& pending, SimTime now, bool& push_back);
  // allocate's node for the task: the feasible nodes (FutureIdle, predicates), the best
  // score, a random one among ties (`best`: the tied nodes when several were scored). None:
  // invalid, and `fit_message` says why (FitErrors.Error).
  NodeId choose_node(PodId pod, std::vector<NodeId>& best, std::string& fit_message);
  std::string fit_errors(const PodTemplate& spec) const;
  void backfill(SimTime now);
  // Allocates (or pipelines) the task on the node in the session: every plugin's event handler.
  void session_allocate(PodId pod, NodeId node, bool pipelined);
  void session_deallocate(PodId pod);
  bool predicate(const PodTemplate& spec, const NodeInfo& node, std::string* reason) const;

  // vc_reclaim.cpp (and the evictions preempt shares)
  void reclaim(SimTime now);
  bool reclaim_on_some_node(PodId task, std::int32_t job, SimTime now);
  // Reclaimable (`reclaim`) or Preemptable: the victims the plugins allow among `pool`.
  std::vector<PodId> victims(PodId by, const std::vector<PodId>& pool, bool reclaim) const;
  bool victims_make_room(const PodTemplate& spec, const NodeInfo& node, const std::vector<PodId>& chosen) const;
  void session_evict(PodId victim);
  void session_unevict(PodId victim);
  void delete_victim(PodId victim, SimTime now);
  void evict(PodId victim, SimTime now);  // session_evict + delete_victim (ssn.Evict)
  // The plugins' AllocateFunc (+1) / DeallocateFunc (-1) bookkeeping: queue and drf shares.
  void account_allocation(std::int32_t job, const VRes& req, int sign);

  // vc_preempt.cpp
  void preempt(SimTime now);
  bool job_starving(std::int32_t job) const;
  // preempt(): the task on the best-scored node where evicting victims (chosen by `same_job`:
  // tasks of its own job, else of other jobs of its queue) makes room; pipelined there.
  bool preempt_task(PodId task, std::vector<Op>& stmt, bool same_job);

  // vc_plugins.cpp
  bool job_less(std::int32_t l, std::int32_t r) const;    // JobOrderFn
  bool queue_less(std::int32_t l, std::int32_t r) const;  // QueueOrderFn
  bool task_less(PodId l, PodId r) const;                 // TaskOrderFn
  bool job_valid(std::int32_t job) const;
  // job_info.go CheckTaskValid / Ready / Pipelined: each task's count of tasks in `counted`
  // statuses (with `best_effort_pending`, also its pending tasks without a request) reaches
  // its minTaskMember; skipped when minMember < their sum.
  bool task_minimums_met(std::int32_t job, bool (*counted)(Status), bool best_effort_pending) const;
  bool job_ready(std::int32_t job) const;
  bool job_pipelined(std::int32_t job) const;
  bool job_enqueueable(std::int32_t job);
  void job_enqueued(std::int32_t job);
  bool overused(std::int32_t queue) const;
  bool allocatable(std::int32_t queue, const VRes& request) const;
  void open_proportion();
  void open_drf();
  void open_overcommit();
  void update_share(QueueAttr& a) const;
  void update_drf(std::int32_t job);
  double node_score(const PodTemplate& spec, const NodeInfo& node) const;
  std::int32_t ready_tasks(std::int32_t job) const;
  std::int32_t count_tasks(std::int32_t job, bool (*pred)(Status)) const;
  // Tasks whose pod runs (api.Running: bound, phase Running, not being deleted).
  std::int32_t running_tasks(std::int32_t job) const;
  VRes allocated_of(std::int32_t job) const;
  bool plugin_on(Plugin p) const { return plugin_mask_ & (1u << static_cast<unsigned>(p)); }

  // The nodeorder and binpack weights (plugin arguments), read once.
  struct ScoreWeights {
    bool nodeorder = false, binpack = false;
    double least = 1, most = 0, balanced = 1;
    double binpack_weight = 1;
    double binpack_slot[kMaxResources] = {};  // by resource slot (cpu, memory, binpack.resources.*)
  };
  void read_score_weights();
  // Whether the request fits the node's FutureIdle (idle + releasing - pipelined) or, with
  // `idle_only`, its Idle: allocate's resource check, in the cache's integers.
  bool fits(const Resources& req, const NodeInfo& node, bool idle_only) const;

  Config config_;
  ScoreWeights weights_;
  ObjectStore& store_;
  SchedulerHost& host_;
  std::string scheduler_name_;
  Distribution bind_latency_;
  RandomStream rng_;       // bind latencies
  RandomStream tie_rng_;   // SelectBestNode's rand.Intn, backfill's map order
  RandomStream uid_rng_;   // PodGroup UIDs
  std::uint32_t plugin_mask_ = 0;
  int gpu_slot_ = -1;  // nvidia.com/gpu (balanced allocation's third resource), -1: none

  NodeCache cache_;
  std::vector<Resources> releasing_;  // by node: requests of terminating pods still on it
  std::vector<Resources> pipelined_;  // by node: the session's pipelined requests
  VRes total_;                        // Σ node allocatable (ssn.TotalResource)
  std::vector<Task> tasks_;           // by PodId
  std::vector<Job> jobs_;
  std::vector<std::int32_t> active_jobs_;  // jobs with a task that has not ended, or none yet
  // PodGroups made before any pod (the file's, a Volcano Job's, a BSP set's) not yet in the
  // sessions, by creation time: cache.go Snapshot takes every job that has its PodGroup.
  std::vector<std::int32_t> taskless_jobs_;
  std::map<std::tuple<std::uint32_t, std::string>, std::int32_t> job_index_;  // (ns, name)
  std::map<std::uint32_t, std::int32_t> owner_groups_;  // batch Job id -> its pods' group
  std::vector<QueueAttr> queue_attrs_;  // by queue index
  ObjectKind queue_kind_{};                 // the store's Queue kind (vc_queues.hpp)
  std::vector<std::uint64_t> queue_seen_;   // by queue index: the resourceVersion last read
  ObjectKind group_kind_{};                 // the store's PodGroup kind (read-only for the API)
  // The podgroup controller (volcano_controller.cpp): its kube client's token bucket (the
  // instant it is full again, on the binary's clock), when its worker is free, and the pods
  // waiting for their group with the instant each joins (non-decreasing: one worker).
  struct ControllerItem {
    SimTime at;
    PodId pod;
    std::int32_t job = -1;
  };
  SimTime bucket_full_ = SimTime::zero();
  SimTime controller_free_ = SimTime::zero();
  std::deque<ControllerItem> controller_queue_;
  std::vector<std::int64_t> queue_created_;

  // Session state.
  // allocate's per-node feasibility and score for the last few templates asked about, valid
  // while the node's cache generation and node_version_ (its releasing / pipelined sums)
  // stay: a memo of what upstream recomputes for every task (same results, same tie draws).
  struct NodeMemo {
    std::uint32_t generation = 0;
    std::uint32_t version = 0;
    bool valid = false;
    bool feasible = false;
    double score = 0;
  };
  static constexpr std::size_t kMemoTemplates = 8;
  std::vector<std::pair<PodTemplateId, std::vector<NodeMemo>>> memos_;  // at most kMemoTemplates
  std::size_t memo_next_ = 0;  // the entry a new template replaces when all are taken
  std::vector<NodeMemo>& memo_for(PodTemplateId spec);
  std::vector<std::uint32_t> node_version_;  // by node: bumped when releasing_ or pipelined_ change
  void bump(NodeId node) { ++node_version_[node.value()]; }
  VRes oc_idle_, oc_inqueue_;  // overcommit
  std::vector<Op> session_ops_;  // every allocation of the session, to undo what is not committed
  std::vector<std::vector<NodeId>> best_of_;  // by op index, for the observer

  SimTime armed_ = SimTime::never();
  SimTime last_session_ = SimTime::never();
  std::uint64_t attempts_ = 0;
  std::uint64_t bindings_ = 0;
  std::uint64_t sessions_ = 0;
  std::uint64_t evictions_ = 0;
  DecisionObserver observer_;
};

}  // namespace kubesim::volcano

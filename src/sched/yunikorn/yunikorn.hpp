// Apache YuniKorn (yunikorn-core + yunikorn-k8shim, 1.5) as a SchedulerModel: the core's
// partition with its queue hierarchy (queues.yaml), applications and asks, the scheduling
// loop of one allocation or reservation per cycle, node sorting, reservations and
// preemption; the shim's pod -> application/ask mapping, predicates and asynchronous Bind.
// The implementation is split along upstream's files, each .cpp naming the ones it follows:
// yk_shim_context.cpp, yk_application.cpp, yk_application_gang.cpp, yk_placeholders.cpp,
// yk_queue.cpp, yk_partition.cpp, yk_preemption.cpp (and yunikorn.cpp: construction and
// introspection).
//
// Upstream files (apache/yunikorn-core unless noted):
//   pkg/scheduler/scheduler.go          internalSchedule: the loop (activity or 100 ms)
//   pkg/scheduler/context.go            schedule: TryReservedAllocate, TryAllocate per partition
//   pkg/scheduler/objects/queue.go      TryAllocate, getHeadRoom, priorities, victims
//   pkg/scheduler/objects/sorters.go    sortQueue, sortApplications, sortAskByPriority
//   pkg/scheduler/objects/application.go tryAllocate, tryNodes, tryNode, tryReservedAllocate
//   pkg/scheduler/objects/preemption.go Preemptor (CheckPreconditions, TryPreemption)
//   pkg/scheduler/objects/nodesorting.go fair / binpacking node scores
//   yunikorn-k8shim pkg/common/resource.go, pkg/common/utils/utils.go (app id, queue)
// Gang scheduling (task groups, placeholders, their timeout):
//   pkg/scheduler/objects/application.go tryPlaceholderAllocate, canReplace, addAllocationInternal,
//                                       ReplaceAllocation, removeAllocationInternal,
//                                       initPlaceholderTimer, timeoutPlaceholderProcessing
//   pkg/scheduler/objects/application_state.go the application state machine
//   pkg/scheduler/partition.go          AddApplication (SupportTaskGroup, max), tryPlaceholderAllocate,
//                                       removeAllocation (PLACEHOLDER_REPLACED)
//   pkg/scheduler/context.go            schedule: a replacement releases the placeholder first
//   yunikorn-k8shim pkg/cache/application.go, application_state.go (Reserving, Resuming, Running),
//   placeholder_manager.go, placeholder.go, scheduler_callback.go, context.go (AddApplication)
// Checked against v1.5.0 (k8shim application.go onReservationStateChange, placeholder_manager.go
// createAppPlaceholders; core application.go removeAllocationInternal): a placeholder the
// kubelet refuses (OutOfcpu) is Failed, never Bound and never created again, so its task
// group stays short and the application Reserving until the placeholder timeout.
// Not verified against the 1.5 sources (the stored copies are of other versions), taken as
// described: the shim deletes a pending placeholder whose ask the core released at the
// timeout (handleReleaseAppAllocationAskEvent); placeholders request minResource without
// limits and carry the legacy labels applicationId, queue, placeholder; resources.go
// ComponentWiseMin counts a missing type as 0. Not modelled: the Starting state's own 5 min
// timer (Starting and Running act alike), Completed (and the application's removal), the
// shim's scheduling interval (real pods are submitted as soon as the application runs), the
// garbage collection of placeholders owned by a deleted originator pod, and a task group's
// pod (anti-)affinity and topology spread constraints.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cluster/node_cache.hpp"
#include "core/random.hpp"
#include "sched/scheduler_model.hpp"
#include "sched/yunikorn/yk_config.hpp"
#include "sched/yunikorn/yk_gang.hpp"

namespace kubesim::yunikorn {

inline constexpr std::int32_t kMinPriority = INT32_MIN;  // configs.MinPriority
// application.go reservationDelay; preemption.go preemptAttemptFrequency;
// queue.go maxPreemptionsPerQueue; scheduler.go the core loop's idle wait.
inline constexpr Duration kReservationDelay = Duration::seconds(2);
inline constexpr Duration kPreemptAttemptFrequency = Duration::seconds(15);
inline constexpr int kMaxPreemptionsPerQueue = 10;
inline constexpr Duration kScheduleInterval = Duration::millis(100);
// The grace period of every pod the shim deletes (preemption victims, placeholders):
// yunikorn-k8shim v1.3-v1.5 pkg/client/kubeclient.go SchedulerKubeClient.Delete passes
// GracePeriodSeconds 3 ("TODO make this configurable for pods"), whatever the pod's own
// terminationGracePeriodSeconds; v1.6.0 (YUNIKORN-2817) switched to the pod's own.
inline constexpr Duration kShimDeleteGrace = Duration::seconds(3);
// application.go completingTimeout: an application in Completing with placeholders left
// releases them after this long.
inline constexpr Duration kCompletingTimeout = Duration::seconds(30);

// application_state.go (yunikorn-core). Completed and Expired are not modelled: an application
// stays Completing, and a new pod with its ID makes it run again.
enum class AppState : std::uint8_t { kNew, kAccepted, kStarting, kRunning, kCompleting, kResuming, kFailing, kFailed };
const char* to_string(AppState s);
// The shim's application state as far as gang scheduling goes (k8shim application_state.go):
// Reserving holds the real pods back while the placeholders are created and allocated.
enum class ShimState : std::uint8_t { kRunning, kReserving, kResuming, kFailed };
const char* to_string(ShimState s);

class YuniKorn final : public SchedulerModel {
 public:
  YuniKorn(Config config, ObjectStore& store, SchedulerHost& host, std::uint64_t seed,
           std::string scheduler_name = "yunikorn");

  bool serves(const std::string& scheduler_name) const override { return scheduler_name == scheduler_name_; }
  void on_pod_change(const Change& change, SimTime now) override;
  void on_node_change(const Change& change, SimTime now) override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override { return !armed_.is_never(); }
  // A placeholder timeout (or an application's Completing timer with placeholders left) is due.
  bool expects_change() const override { return timers_ > 0; }
  std::uint64_t attempts() const override { return cycles_; }
  std::uint64_t bindings() const override { return bindings_; }

  // ---- Introspection (tests, reports) ----
  // One ClusterContext.schedule() call at `now`: true when it allocated or reserved.
  bool schedule(SimTime now);
  const Config& config() const { return config_; }
  // The children of `queue` with pending asks, in sortQueue order (current state).
  std::vector<std::string> queue_order(const std::string& parent_path);
  // Schedulable nodes in node-sort order.
  std::vector<std::string> node_order();
  std::int32_t queue_priority(const std::string& path);
  // The node the core allocated the pod on (invalid when not allocated).
  NodeId allocated_node(PodId pod) const;
  // The node the pod's ask reserved (invalid when none).
  NodeId reserved_node(PodId pod) const;
  bool rejected(PodId pod) const;
  std::uint64_t preemptions() const { return preemptions_; }
  std::uint64_t victims() const { return victims_; }
  const std::vector<PodId>& last_victims() const { return last_victims_; }
  // Gang scheduling, per application ID (the states of an unknown application are kNew and
  // kRunning, its lists empty).
  AppState app_state(const std::string& app_id) const;
  ShimState shim_state(const std::string& app_id) const;
  // The placeholder pods the shim created for the application, in creation order.
  std::vector<PodId> placeholders(const std::string& app_id) const;
  // When the application's placeholder timer fires (never when not running).
  SimTime placeholder_timer(const std::string& app_id) const;
  // Why the application's task groups were ignored or it was rejected (empty: not).
  std::string gang_message(const std::string& app_id) const;

 private:
  struct QueueState {
    Res allocated;
    Res pending;
    std::vector<int> apps;  // leaf: apps with pending asks, in submission order
    std::int32_t priority = kMinPriority;
    int reservations = 0;   // reserved asks in the subtree
    int running_apps = 0;
    Res preempting;         // preemption snapshot scratch
  };
  struct App {
    std::string id;
    int queue = -1;
    SimTime submitted;
    std::vector<int> asks;  // pending asks
    Res allocated;          // allocatedResource: real allocations (placeholders: Gang::allocated_ph)
    Res pending;
    int pods = 0;           // allocations
    int reservations = 0;
    std::int32_t max_priority = kMinPriority;
    PodId originator;       // the pod the shim created the application from
    AppState state = AppState::kNew;
    int gang = -1;          // index into gangs_ when the application has task groups
  };
  // A task group of an application and its PlaceholderData (application.go).
  struct TaskGroupState {
    std::string name;
    std::int32_t min_member = 0;
    std::int64_t count = 0;      // placeholder asks added
    std::int64_t replaced = 0;   // placeholders replaced by real allocations
    std::int64_t timed_out = 0;  // placeholders timed out or removed
    // Placeholders of the group the shim created (Gang::placeholders) whose task is Bound:
    // kept where PodState::bound is set and cleared, for shim_reservation_check.
    std::int32_t bound = 0;
  };
  struct Gang {
    std::vector<TaskGroupState> groups;
    Res placeholder_ask;   // Σ minResource x minMember, pods included (k8shim GetTGResource)
    Res allocated_ph;      // allocatedPlaceholder
    Duration timeout;      // execTimeout, adjusted by the first pod's creation time
    bool hard = false;     // gangSchedulingStyle Hard
    SimTime ph_timer = SimTime::never();     // placeholderTimer
    SimTime state_timer = SimTime::never();  // the Completing state timer (placeholders left)
    ShimState shim = ShimState::kReserving;
    std::vector<PodId> placeholders;  // created, in creation order
    std::vector<PodId> held;          // real pods the shim has not submitted yet
    int live = 0;                     // placeholder pods not seen terminated or deleted yet
  };
  struct Ask {
    PodId pod;
    int app = -1;
    std::int32_t priority = 0;
    SimTime created;
    Res res;
    bool allow_preempt_other = true;
    bool triggered = false;  // MarkTriggeredPreemption
    bool placeholder = false;
    std::int16_t group = -1;  // task group index (-1: none, or a name the app does not have)
    SimTime last_check = SimTime::never();
    std::uint64_t checked_version = 0;
    int reserved_node = -1;
  };
  struct PodState {
    // kHeld: a real pod of a gang application the shim has not submitted (Reserving,
    // Resuming, or Failed); kReplacing: a real pod that took a placeholder, waiting for the
    // placeholder to be released before it is allocated (and bound).
    enum Kind : std::uint8_t { kNone, kAsk, kAllocated, kForeign, kRejected, kHeld, kReplacing };
    // How the shim reports a placeholder's end (si.TerminationType): STOPPED_BY_RM unless the
    // core released it itself (TIMEOUT: timeout or a larger real pod).
    enum Term : std::uint8_t { kStoppedByRM, kTimeout };
    Kind kind = kNone;
    bool preempted = false;
    bool originator = false;
    bool placeholder = false;
    bool released = false;  // placeholders: IsReleased (replacement, timeout)
    bool bound = false;     // placeholders: the shim's bind landed (task Bound)
    bool shim_created = false;  // placeholders: created by the shim (in Gang::placeholders)
    bool gone = false;      // placeholders: seen terminated or deleted
    Term term = kStoppedByRM;
    std::int16_t group = -1;
    int ask = -1;  // kAsk
    int app = -1;
    int node = -1;  // kAllocated / kForeign / kReplacing
    std::int32_t priority = 0;
    PodId partner;  // placeholder <-> the real pod replacing it
    SimTime created;
    Res res;
    // When it was added to its node (add_to_node), in the partition's order: the victims'
    // order of collect_victims (a node's allocations as node.go keeps them, oldest first).
    std::uint64_t node_seq = 0;
  };
  // The core's node beyond what the shared cache keeps (cache_: the pods on it, the sums of
  // their requests). node.go keeps allocatedResource (the core's allocations) apart from
  // occupiedResource (other schedulers' pods); only their sum enters the decisions modelled
  // here (GetAvailableResource), which is the cache's one sum over all its pods.
  struct NodeState {
    Res total;
    bool schedulable = true;
    int reserved_ask = -1;
    double score = 0;
  };
  enum class AppResult : std::uint8_t { kNone, kDone, kNextApp };
  // The payload of the model's own timers (SchedulerEvent::timer): the core's scheduling
  // cycle, or one of an application's gang timers.
  enum class TimerKind : std::uint8_t { kCycle, kPlaceholder, kCompleting };
  struct Timer {
    TimerKind kind = TimerKind::kCycle;
    std::int32_t app = -1;  // kPlaceholder, kCompleting: the application's index
  };
  // collect_victims: a queue not on the path from the ask's leaf to the fence root.
  static constexpr std::int64_t kNotOnPath = INT64_MIN;

  PodState& state(PodId pod);
  // node.go GetAvailableResource: the node's capacity less the requests of every pod on it.
  Res available(int node) const;

  // ---- The shim's cache and the core's applications (yk_shim_context.cpp: k8shim
  // pkg/cache/context.go, core partition.go AddApplication) ----
  void on_new_pod(PodId pod, SimTime now);
  int create_app(const std::string& app_id, const std::string& queue_label, int q, PodId pod, SimTime now);
  static Res task_group_resource(const std::vector<TaskGroupSpec>& groups);
  // partition.go AddApplication's task group checks: why the leaf queue `q` cannot take an
  // application asking `placeholder_ask` for its task groups (empty: it can).
  std::string task_group_refusal(int q, const std::string& app_id, const Res& placeholder_ask) const;
  // application.go NewApplication's part for task groups: the gang, placeholders not created.
  Gang new_gang(const std::vector<TaskGroupSpec>& groups, const Res& placeholder_ask, const std::string& params,
                SimTime first_pod_created, SimTime now) const;

  // ---- Applications: asks, allocations, tryAllocate (yk_application.cpp: application.go) ----
  void add_ask(PodId pod, int app, bool placeholder, SimTime now);
  void remove_ask(int ask);
  void update_app_priority(App& app);
  void allocate(int ask, int node, SimTime now);
  // Committing an allocation (allocate, a replacement, a placeholder's replacement on another
  // node): the node's side (node.AddAllocation); the queues' usage, running applications and
  // the pod's scheduling attempt; the shim's asynchronous bind.
  void add_to_node(int node, PodId pod);
  void count_allocation(int app, PodId pod, const Res& res);
  void post_bind(PodId pod, int node, SimTime now);
  void release(PodId pod, SimTime now);
  void reserve(int ask, int node);
  void unreserve(int ask);
  AppResult try_allocate(int app, const Res& headroom, int* preempt_remaining, SimTime now);
  // tryNodes for one ask: allocated or reserved a node.
  bool try_nodes(int ask, SimTime now);
  bool try_reserved(int app, const Res& headroom, SimTime now);
  bool try_node(int node, const Ask& ask) const;
  bool predicates(PodId pod, int node) const;
  // sortAskByPriority: the application's pending asks into scratch_asks_.
  void sort_asks(const App& app);

  // ---- Gang scheduling in the core (yk_application_gang.cpp: application.go placeholders,
  // application_state.go) ----
  int group_of(int app, const PodTemplate& spec) const;
  void set_state(int app, AppState next, SimTime now);
  void run_app(int app, SimTime now);       // RunApplication
  void complete_app(int app, SimTime now);  // CompleteApplication
  void set_timer(int app, SimTime Gang::*timer, SimTime at, TimerKind kind);
  void clear_timer(int app, SimTime Gang::*timer);
  void remove_placeholder(PodId ph, SimTime now);
  // The allocated placeholders not released yet are released (TIMEOUT); `count_timed_out`
  // also counts each in its task group's timed_out.
  void release_unused_placeholders(int app, bool count_timed_out, SimTime now);
  void placeholder_timeout(int app, SimTime now);
  void completing_timeout(int app, SimTime now);
  bool try_placeholder_allocate(int app, SimTime now);
  // The real ask `slot` takes placeholder `ph`, to be allocated on `node` once it is gone.
  void replace_placeholder(int slot, PodId ph, int node, SimTime now);

  // ---- The shim's placeholders and gang states (yk_placeholders.cpp: k8shim
  // placeholder_manager.go, placeholder.go, application.go) ----
  // `tg_def` and `params`: the originator's task-groups and scheduling-policy annotations
  // (copied onto each placeholder), as create_app read them.
  void create_placeholders(int app, const std::vector<TaskGroupSpec>& specs, const std::string& queue_label,
                           const std::string& tg_def, const std::string& params, SimTime now);
  PodTemplate placeholder_template(const TaskGroupSpec& group, const std::string& app_id, const std::string& queue_label,
                                   const std::string& tg_def, const std::string& params,
                                   const std::string& priority_class) const;
  void release_to_shim(PodId ph, SimTime now);  // the shim deletes a released placeholder
  // release_to_shim with the placeholder's end reported as TIMEOUT (si.TerminationType: not
  // counted as stopped by the shim when its allocation is removed).
  void release_timeout(PodId ph, SimTime now);
  void shim_reservation_check(int app, SimTime now);
  void shim_run(int app, SimTime now);
  void shim_fail(int app, SimTime now);

  // ---- Queues (yk_queue.cpp: queue.go, sorters.go) ----
  void add_to_queues(int leaf, const Res& r, Res QueueState::*field, int sign);
  void refresh_priorities();
  void sort_children(int q, bool reserved_only, std::vector<int>& out);
  void sort_apps(int q, std::vector<int>& out);
  Res headroom(int q, const Res& parent) const;
  bool can_run_app(const App& app) const;
  bool walk(int q, const Res& parent_headroom, bool reserved, int depth, SimTime now);
  bool walk_placeholders(int q, int depth, SimTime now);
  Res effective_guaranteed(int q) const;
  void collect_victims(int q, std::int64_t priority, int ask_leaf, std::int64_t ask_priority);

  // ---- The loop and the nodes (yk_partition.cpp: scheduler.go, context.go, partition.go,
  // nodesorting.go) ----
  void activity(SimTime now);
  void arm(SimTime t);
  void arm_timed(SimTime now);
  void on_timer(const Timer& timer, SimTime now);
  void sort_nodes();

  // ---- Preemption (yk_preemption.cpp: preemption.go) ----
  // Preemptor.TryPreemption; returns true when it preempted, *reserved when it reserved.
  bool try_preemption(int ask, const Res& headroom, SimTime now, bool* reserved);
  bool check_preconditions(Ask& ask, SimTime now);
  // queue.go findPreemptionFenceRoot + FindEligiblePreemptionVictims into candidates_.
  void find_eligible_victims(const Ask& ask);
  // checkPreemptionQueueGuarantees: whether taking candidates can bring the ask's queue
  // within its guarantee.
  bool check_queue_guarantees(int leaf, const Res& ask);
  // calculateVictimsByNode into node_victims_ with getSolutionScore: false when preempting on
  // the node cannot make the ask fit.
  bool victims_by_node(int node, const Res& ask, std::uint64_t* score);
  // tryNodes: the node with the best solution (-1: none), its victims in best_victims_.
  int try_preemption_nodes(const Ask& ask);
  // calculateAdditionalVictims: appends to best_victims_; false when the ask's queue cannot
  // get within its guarantee.
  bool calculate_additional_victims(int leaf, const Res& ask);
  // The queue snapshots' preempting resources: a victim taken (+1) or put back (-1); cleared.
  void mark_preempting(PodId victim, int sign);
  void clear_preempting();
  // sortVictimsForPreemption: non-originators first, then newest first.
  bool victim_before(PodId l, PodId r) const;
  bool within_guaranteed(int q, const Res* extra) const;
  bool at_or_above_guaranteed(int q) const;

  Config config_;
  ObjectStore& store_;
  SchedulerHost& host_;
  std::string scheduler_name_;
  RandomStream rng_;
  RandomStream names_rng_;  // placeholder name nonces
  std::vector<QueueState> queues_;
  std::vector<App> apps_;
  std::map<std::string, int> app_index_;
  std::vector<Ask> asks_;
  std::vector<int> free_asks_;
  std::vector<PodState> pods_;
  std::vector<Gang> gangs_;
  std::vector<std::pair<std::string, std::string>> gang_messages_;  // app ID -> message
  // Applications the partition rejected for their task groups: app ID, leaf queue, task-groups
  // annotation (the rejection depends on nothing else; such an application has no entry in
  // app_index_, so each of its pods comes to create_app).
  std::set<std::tuple<std::string, int, std::string>, std::less<>> rejected_gangs_;
  int placeholder_allocs_ = 0;  // allocated placeholders in the partition
  int timers_ = 0;              // gang timers pending (expects_change)
  std::vector<NodeState> nodes_;
  // What the shim's cache knows is on each node: the core's allocations (from the moment the
  // core makes them, before the binding lands) and other schedulers' bound pods.
  NodeCache cache_;
  std::uint64_t node_seq_ = 0;  // PodState::node_seq of the next add_to_node
  std::vector<int> node_order_;  // schedulable nodes, sorted
  bool node_order_dirty_ = true;
  Res partition_total_;
  int reservations_ = 0;
  std::uint64_t version_ = 0;  // bumped by every change of the core's state
  SimTime armed_ = SimTime::never();
  SimTime busy_until_;
  std::uint64_t cycles_ = 0;
  std::uint64_t bindings_ = 0;
  std::uint64_t preemptions_ = 0;
  std::uint64_t victims_ = 0;
  // Scratch, reused across cycles.
  std::vector<std::vector<int>> scratch_order_;
  std::vector<int> scratch_asks_;
  std::vector<double> shares_l_, shares_r_;
  std::vector<PodId> candidates_;
  std::vector<PodId> node_victims_, best_victims_, head_, tail_;
  std::vector<PodId> last_victims_;
  std::vector<std::int64_t> path_priority_;  // preemption: queue -> priority on the ask's path
};

}  // namespace kubesim::yunikorn

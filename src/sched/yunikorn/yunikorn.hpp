// Apache YuniKorn (yunikorn-core + yunikorn-k8shim, 1.5) as a SchedulerModel: the core's
// partition with its queue hierarchy (queues.yaml), applications and asks, the scheduling
// loop of one allocation or reservation per cycle, node sorting, reservations and
// preemption; the shim's pod -> application/ask mapping, predicates and asynchronous Bind.
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
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "sched/scheduler_model.hpp"
#include "sched/yunikorn/yk_config.hpp"

namespace kubesim::yunikorn {

inline constexpr std::int32_t kMinPriority = INT32_MIN;  // configs.MinPriority
// application.go reservationDelay; preemption.go preemptAttemptFrequency;
// queue.go maxPreemptionsPerQueue; scheduler.go the core loop's idle wait.
inline constexpr Duration kReservationDelay = Duration::seconds(2);
inline constexpr Duration kPreemptAttemptFrequency = Duration::seconds(15);
inline constexpr int kMaxPreemptionsPerQueue = 10;
inline constexpr Duration kScheduleInterval = Duration::millis(100);

class YuniKorn final : public SchedulerModel {
 public:
  YuniKorn(Config config, ObjectStore& store, SchedulerHost& host, std::uint64_t seed,
           std::string scheduler_name = "yunikorn");

  bool serves(const std::string& scheduler_name) const override { return scheduler_name == scheduler_name_; }
  void on_pod_change(const Change& change, SimTime now) override;
  void on_node_change(const Change& change, SimTime now) override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override { return !armed_.is_never(); }
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
    Res allocated;
    Res pending;
    int pods = 0;           // allocations
    int reservations = 0;
    std::int32_t max_priority = kMinPriority;
    bool has_originator = false;
  };
  struct Ask {
    PodId pod;
    int app = -1;
    std::int32_t priority = 0;
    SimTime created;
    Res res;
    bool allow_preempt_other = true;
    bool triggered = false;  // MarkTriggeredPreemption
    SimTime last_check = SimTime::never();
    std::uint64_t checked_version = 0;
    int reserved_node = -1;
  };
  struct PodState {
    enum Kind : std::uint8_t { kNone, kAsk, kAllocated, kForeign, kRejected };
    Kind kind = kNone;
    bool preempted = false;
    bool originator = false;
    int ask = -1;  // kAsk
    int app = -1;
    int node = -1;  // kAllocated / kForeign
    std::int32_t priority = 0;
    SimTime created;
    Res res;
  };
  struct NodeState {
    Res total;
    Res allocated;
    Res occupied;  // pods of other schedulers
    bool schedulable = true;
    int reserved_ask = -1;
    std::vector<PodId> allocs;
    double score = 0;
    Res available() const { return total - allocated - occupied; }
  };
  enum class AppResult : std::uint8_t { kNone, kDone, kNextApp };

  PodState& state(PodId pod);
  void add_ask(PodId pod, SimTime now);
  void remove_ask(int ask);
  void update_app_priority(App& app);
  void allocate(int ask, int node, SimTime now);
  void release(PodId pod);
  void reserve(int ask, int node);
  void unreserve(int ask);
  void add_to_queues(int leaf, const Res& r, Res QueueState::*field, int sign);
  void activity(SimTime now);
  void arm(SimTime t);
  void arm_timed(SimTime now);
  void refresh_priorities();
  void sort_nodes();
  void sort_children(int q, bool reserved_only, std::vector<int>& out);
  void sort_apps(int q, std::vector<int>& out);
  Res headroom(int q, const Res& parent) const;
  bool can_run_app(const App& app) const;
  bool walk(int q, const Res& parent_headroom, bool reserved, int depth, SimTime now);
  AppResult try_allocate(int app, const Res& headroom, int* preempt_remaining, SimTime now);
  bool try_reserved(int app, const Res& headroom, SimTime now);
  bool try_node(int node, const Ask& ask) const;
  bool predicates(PodId pod, int node) const;
  // Preemption (preemption.go); returns true when it preempted, *reserved when it reserved.
  bool try_preemption(int ask, const Res& headroom, SimTime now, bool* reserved);
  void collect_victims(int q, std::int64_t priority, int ask_leaf, std::int64_t ask_priority);
  bool within_guaranteed(int q, const Res* extra) const;
  bool at_or_above_guaranteed(int q) const;
  Res effective_guaranteed(int q) const;

  Config config_;
  ObjectStore& store_;
  SchedulerHost& host_;
  std::string scheduler_name_;
  RandomStream rng_;
  std::vector<QueueState> queues_;
  std::vector<App> apps_;
  std::map<std::string, int> app_index_;
  std::vector<Ask> asks_;
  std::vector<int> free_asks_;
  std::vector<PodState> pods_;
  std::vector<NodeState> nodes_;
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

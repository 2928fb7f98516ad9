// A model of kube-scheduler v1.26 (pkg/scheduler/schedule_one.go, eventhandlers.go,
// internal/cache): one scheduling queue and one cache shared by its profiles, one pod per
// scheduling cycle, node sampling from a rotating start index, filtering, scoring and a
// seeded random tie-break, asynchronous binding, and the queue moves on cluster events.
//
// Time model: a cycle that starts at t decides on the cache as it is at t (upstream takes a
// snapshot) and ends at t + cycle latency, when the pod is assumed (success) or re-queued
// (failure). Events that reach the scheduler meanwhile count as arriving during the cycle
// (moveRequestCycle). A failure whose PodScheduled condition changed is patched to the API
// before the next cycle starts. Binding runs concurrently: the bind call lands after the
// bind latency. With zero latencies every cycle is instantaneous.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/distribution.hpp"
#include "core/event_queue.hpp"
#include "core/random.hpp"
#include "model/object_store.hpp"
#include "sched/node_info.hpp"
#include "sched/profile.hpp"
#include "sched/scheduling_queue.hpp"

namespace kubesim {

struct SchedulerEvent {
  enum class Kind : std::uint8_t { kCycle, kCycleEnd, kPatchDone, kBindDone, kBackoffTick, kLeftoverTick };
  Kind kind;
  PodId pod;
  NodeId node;
};

class SchedulerHost {
 public:
  virtual ~SchedulerHost() = default;
  virtual void post(SimTime at, Phase phase, SchedulerEvent event) = 0;
};

struct SchedulerLatencies {
  Distribution cycle;        // duration of one scheduling attempt
  Distribution bind;         // the binding API call
  Distribution status_patch; // the PodScheduled=False status patch after a failure
};

class Scheduler {
 public:
  Scheduler(ObjectStore& store, SchedulerConfig config, SchedulerLatencies latencies, std::uint64_t seed,
            SchedulerHost& host);

  // True if one of this scheduler's profiles serves `scheduler_name`.
  bool serves(const std::string& scheduler_name) const;
  // Informer deliveries (the change as it was when made).
  void on_pod_change(const Change& change, SimTime now);
  void on_node_change(const Change& change, SimTime now);
  void on_event(const SchedulerEvent& event, SimTime now);

  // True while the scheduler has work that does not wait for a cluster change.
  bool busy() const { return in_cycle_ || !queue_.active_empty() || !queue_.backoff_empty(); }
  const SchedulingQueue& queue() const { return queue_; }
  std::uint64_t bindings() const { return bindings_; }
  std::uint64_t attempts() const { return attempts_total_; }

  // One scheduling decision on the current cache, without side effects on the queue: the
  // chosen node or an invalid id. Exposed for tests and what-if tools.
  struct Decision {
    NodeId node;
    std::uint32_t feasible = 0;
    std::uint32_t processed = 0;
    std::uint32_t interested_events = 0;
    std::string message;  // FitError message when no node fits
  };
  Decision decide(PodId pod);
  static std::int32_t num_feasible_nodes_to_find(std::int32_t percentage, std::int32_t num_all_nodes);

 private:
  const Profile* profile_for(const PodTemplate& spec) const;
  void ensure_node_order();
  void refresh_nodes();  // re-reads node objects into the cache and recounts ClusterStats
  void count_node(const Node& node);  // adds a node to ClusterStats
  void start_cycle(SimTime now);
  void finish_cycle(SimTime now);
  void schedule_next_cycle(SimTime now);
  void arm_ticks(SimTime now);
  void cache_add(PodId pod, NodeId node);
  void cache_remove(PodId pod);

  ObjectStore& store_;
  SchedulerConfig config_;
  SchedulerLatencies latencies_;
  RandomStream tie_break_rng_;
  RandomStream latency_rng_;
  SchedulerHost& host_;
  SchedulingQueue queue_;

  std::vector<NodeInfo> nodes_;          // by NodeId
  ClusterStats stats_;
  std::vector<NodeId> node_order_;       // nodeTree order: zones round-robin
  bool node_order_dirty_ = false;
  std::uint32_t next_start_node_index_ = 0;
  std::vector<NodeId> cached_node_;      // by PodId: node the cache accounts the pod on

  bool in_cycle_ = false;
  bool cycle_posted_ = false;
  PodId cycle_pod_;
  std::uint64_t cycle_number_ = 0;
  Decision cycle_decision_;
  SimTime last_backoff_tick_ = SimTime::never();
  SimTime armed_backoff_tick_ = SimTime::never();
  SimTime last_leftover_tick_ = SimTime::never();
  SimTime armed_leftover_tick_ = SimTime::never();
  bool waiting_for_patch_ = false;           // the failure's status patch is in flight

  std::vector<const NodeInfo*> feasible_;
  std::vector<std::int64_t> totals_;
  std::vector<std::int64_t> plugin_scores_;
  std::vector<const FilterPlugin*> active_filters_;
  std::vector<std::uint32_t> reason_counts_;
  std::vector<std::string_view> reason_names_;
  std::uint64_t bindings_ = 0;
  std::uint64_t attempts_total_ = 0;
};

}  // namespace kubesim

// kube-scheduler's PriorityQueue (pkg/scheduler/internal/queue/scheduling_queue.go, v1.26):
// activeQ (a heap in QueueSort order), backoffQ (a heap by back-off expiry) and
// unschedulablePods, with upstream's rules for moving pods between them:
// - Pop increments the pod's Attempts and the scheduling cycle.
// - AddUnschedulableIfNotPresent stamps Timestamp=now and sends the pod to backoffQ if a
//   move request arrived while it was being scheduled (moveRequestCycle >= its cycle),
//   otherwise to unschedulablePods.
// - A cluster event moves the unschedulable pods that a plugin registered for it rejected,
//   to backoffQ while still backing off, else to activeQ; every move request (even one that
//   moves nothing) sets moveRequestCycle = schedulingCycle.
// - Back-off is initial * 2^(Attempts-1), capped at max, counted from Timestamp.
// - Flushes: backoffQ every second (completed back-offs to activeQ) and unschedulablePods
//   every 30 s (pods unschedulable for more than 5 min, as UnschedulableTimeout).
// Ties in the heaps (same priority and Timestamp) are broken by the first attempt time and
// then by creation order, where upstream's heap order is arbitrary but deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "sched/scheduler_model.hpp"

namespace kubesim {

class QueueSortPlugin;

struct QueueConfig {
  Duration initial_backoff = Duration::seconds(1);          // podInitialBackoffSeconds
  Duration max_backoff = Duration::seconds(10);             // podMaxBackoffSeconds
  Duration max_in_unschedulable = Duration::seconds(300);   // DefaultPodMaxInUnschedulablePodsDuration
  Duration backoff_flush_period = Duration::seconds(1);     // flushBackoffQCompleted
  Duration leftover_flush_period = Duration::seconds(30);   // flushUnschedulablePodsLeftover
  // Where in its period each flush loop ticks: at phase + k * period. The loops start with
  // the scheduler process (wait.Until), which in a real cluster ran long before the run's
  // time 0: the model's queueFlushPhase random draws them; zero: at multiples of the period.
  Duration backoff_flush_phase;
  Duration leftover_flush_phase;
};

class SchedulingQueue {
 public:
  enum class Where : std::uint8_t { kNone, kActive, kBackoff, kUnschedulable };

  explicit SchedulingQueue(QueueConfig config) : config_(config) {}
  // The profile's QueueSort plugin; null: PrioritySort.
  void set_queue_sort(const QueueSortPlugin* sort) { sort_ = sort; }

  // Add(): a new pending pod enters activeQ with Timestamp = now.
  void add(PodId pod, std::int32_t priority, SimTime now);
  // Pop(): the head of activeQ; nullopt if empty.
  std::optional<PodId> pop();
  // The pod Pop() would return, without popping it (invalid: activeQ is empty).
  PodId peek() const { return active_.empty() ? PodId() : active_.top(); }
  // AddUnschedulableIfNotPresent(pod, podSchedulingCycle). `interested_events` is the union
  // of the ClusterEvents registered by the plugins that rejected the pod (0: none known,
  // then any event moves it, as upstream does for pods without UnschedulablePlugins).
  void add_unschedulable_if_not_present(PodId pod, std::uint32_t interested_events, std::uint64_t pod_cycle,
                                        SimTime now);
  // MoveAllToActiveOrBackoffQueue(event, preCheck).
  void move_all(std::uint32_t event, SimTime now, const std::function<bool(PodId)>* pre_check = nullptr);
  // AssignedPodAdded/Updated: without inter-pod affinity no pod matches, but the move
  // request is still recorded (moveRequestCycle).
  void record_move_request() { move_request_cycle_ = static_cast<std::int64_t>(scheduling_cycle_); }
  void flush_backoff_completed(SimTime now);
  void flush_unschedulable_leftover(SimTime now);
  // Activate(): moves the pod from unschedulablePods or backoffQ to activeQ; false if it
  // is in neither.
  bool activate(PodId pod);
  // The ClusterEvents the pod's last rejection waits for (its UnschedulablePlugins).
  std::uint32_t interested_events(PodId pod) const {
    return pod.value() < info_.size() ? info_[pod.value()].interested_events : 0;
  }
  // Delete(): the pod left the scheduler's responsibility (bound elsewhere, deleted).
  void remove(PodId pod);

  std::uint64_t scheduling_cycle() const { return scheduling_cycle_; }
  std::uint32_t attempts(PodId pod) const { return pod.value() < info_.size() ? info_[pod.value()].attempts : 0; }
  Where where(PodId pod) const { return pod.value() < info_.size() ? info_[pod.value()].where : Where::kNone; }
  bool active_empty() const { return active_.empty(); }
  bool backoff_empty() const { return backoff_.empty(); }
  std::size_t active_size() const { return active_.size(); }
  std::size_t backoff_size() const { return backoff_.size(); }
  std::size_t unschedulable_size() const { return unschedulable_count_; }
  // Earliest back-off expiry in backoffQ, or never.
  SimTime next_backoff_expiry() const;
  // The oldest Timestamp in unschedulablePods, or never.
  SimTime oldest_unschedulable() const;
  // The pod longest in unschedulablePods (the first inserted of those left), or invalid.
  PodId first_unschedulable() const { return unschedulable_head_; }
  // The pod after `pod` in unschedulablePods (invalid: `pod` is the last).
  PodId next_unschedulable(PodId pod) const { return info_[pod.value()].next; }
  Duration backoff_duration(std::uint32_t attempts) const;
  const QueueConfig& config() const { return config_; }

 private:
  struct Info {
    SimTime timestamp;
    SimTime initial_attempt;
    std::uint32_t attempts = 0;
    std::uint32_t interested_events = 0;
    std::uint32_t heap_pos = 0;
    std::int32_t priority = 0;
    PodId prev, next;  // unschedulablePods list links, in insertion (= Timestamp) order
    Where where = Where::kNone;
  };
  class Heap {
   public:
    using Less = bool (*)(const SchedulingQueue&, PodId, PodId);
    Heap(SchedulingQueue& q, Less less) : q_(q), less_(less) {}
    void push(PodId p);
    PodId top() const { return items_.front(); }
    void erase(PodId p);
    bool empty() const { return items_.empty(); }
    std::size_t size() const { return items_.size(); }

   private:
    void up(std::size_t i);
    void down(std::size_t i);
    void place(std::size_t i, PodId p) {
      items_[i] = p;
      q_.info_[p.value()].heap_pos = static_cast<std::uint32_t>(i);
    }
    SchedulingQueue& q_;
    Less less_;
    std::vector<PodId> items_;
  };

  static bool active_less(const SchedulingQueue& q, PodId a, PodId b);
  static bool backoff_less(const SchedulingQueue& q, PodId a, PodId b);
  SimTime backoff_expiry(const Info& i) const { return i.timestamp + backoff_duration(i.attempts); }
  Info& info(PodId pod);
  void to_active(PodId pod);
  void to_backoff(PodId pod);
  void to_unschedulable(PodId pod);
  void take_out(PodId pod);
  void move_pods(const std::vector<PodId>& pods, std::uint32_t event, SimTime now);

  QueueConfig config_;
  const QueueSortPlugin* sort_ = nullptr;
  std::vector<Info> info_;
  Heap active_{*this, &SchedulingQueue::active_less};
  Heap backoff_{*this, &SchedulingQueue::backoff_less};
  PodId unschedulable_head_, unschedulable_tail_;
  std::size_t unschedulable_count_ = 0;
  std::uint64_t scheduling_cycle_ = 0;
  std::int64_t move_request_cycle_ = -1;
  std::vector<PodId> scratch_;
};

// The queue's periodic flushes (internal/queue/scheduling_queue.go Run: the wait.Until loops
// flushBackoffQCompleted every backoff_flush_period and flushUnschedulablePodsLeftover every
// leftover_flush_period), as timer events armed only while they have work. Ticks fall on
// the loop's phase plus multiples of its period (QueueConfig). Shared by every scheduler
// built on this queue.
class QueueFlushTicks {
 public:
  // Posts (through `host`, at Phase::kQueueTimer) a kBackoffTick / kLeftoverTick for the
  // next tick of each loop that has work and is not armed already at or before that time.
  void arm(const SchedulingQueue& queue, const QueueConfig& config, SimTime now, SchedulerHost& host);
  // A tick fired: flushes the queue.
  void on_tick(SchedulingQueue& queue, bool backoff, SimTime now);

 private:
  SimTime last_backoff_ = SimTime::never(), armed_backoff_ = SimTime::never();
  SimTime last_leftover_ = SimTime::never(), armed_leftover_ = SimTime::never();
};

}  // namespace kubesim

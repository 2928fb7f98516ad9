// What the Simulation needs of a scheduler, so that several can share one cluster: each pod's
// schedulerName picks the scheduler that serves it, and schedulers see each other's pods only
// through the object store's change feed (their own informer stream, with its delay).
// kube-scheduler (sched/kube/scheduler.hpp) is one model; batch schedulers and others implement
// the same interface.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "cluster/api_client.hpp"
#include "core/event_queue.hpp"
#include "core/timer_payload.hpp"
#include "core/time.hpp"
#include "model/object_store.hpp"

namespace kubesim {

struct SchedulerEvent {
  // kCycle .. kLeftoverTick are kube-scheduler's; kTimer is any other model's own timer.
  // kBindJob: a model's binding of several pods at once (the batch policies' machine job:
  // `pod` is its first rank); like kBindDone, it counts as a pending cluster change.
  // kDeleteVictim: kube-scheduler's DELETE of a preemption victim (`pod`) once its client's
  // token came, a pending cluster change too; kPreemptionDone: that preemption's last request
  // went, the failed cycle of `pod` goes on (handleSchedulingFailure).
  enum class Kind : std::uint8_t {
    kCycle,
    kCycleEnd,
    kPatchDone,
    kBindDone,
    kBackoffTick,
    kLeftoverTick,
    kTimer,
    kBindJob,
    kDeleteVictim,
    kPreemptionDone
  };
  SchedulerEvent() = default;
  SchedulerEvent(Kind k, PodId p, NodeId n) : kind(k), pod(p), node(n) {}
  // A change of the cluster the model made through the API (a binding, a victim's DELETE), as
  // opposed to one of its own timers or cycle steps.
  bool changes_cluster() const {
    return kind == Kind::kBindDone || kind == Kind::kBindJob || kind == Kind::kDeleteVictim;
  }

  // A kTimer carrying a value of the posting model's own type (core/timer_payload.hpp), read
  // back with `payload.as<T>()`; `pod` and `node` stay invalid (the engine's progress guard
  // reads `pod` as a pod).
  template <class T>
  static SchedulerEvent timer(const T& value) {
    SchedulerEvent e(Kind::kTimer, PodId(), NodeId());
    e.payload = TimerPayload::of(value);
    return e;
  }

  Kind kind = Kind::kCycle;
  std::uint8_t scheduler = 0;  // which scheduler posted it (set by the Simulation)
  // The pod (kBindJob: the first rank) and node the event is about; invalid in a timer().
  PodId pod;
  NodeId node;
  TimerPayload payload;  // timer() only
};
// The event queue stores every event inline in a variant as large as its largest alternative,
// an informer delivery (1 + sizeof(Change) = 28 bytes): the payload must not widen it.
static_assert(sizeof(SchedulerEvent) <= 28 && std::is_trivially_copyable_v<SchedulerEvent>);

// A scheduler's host: its own events, and the API client (cluster/api_client.hpp: the
// writes, client(), and the pod CREATE, as YuniKorn's shim creates placeholder pods).
class SchedulerHost : public ApiClientHost {
 public:
  // A kBindDone or kBindJob event counts as a pending cluster change (the run is not over
  // while one is in flight); every other kind is the scheduler's own business.
  virtual void post(SimTime at, Phase phase, SchedulerEvent event) = 0;
};

class SchedulerModel {
 public:
  virtual ~SchedulerModel() = default;
  // True if this scheduler schedules pods with this spec.schedulerName.
  virtual bool serves(const std::string& scheduler_name) const = 0;
  // Informer deliveries (the change as it was when made).
  virtual void on_pod_change(const Change& change, SimTime now) = 0;
  virtual void on_node_change(const Change& change, SimTime now) = 0;
  // Whether on_pod_change can do anything with this change of `pod` (as it is now in the
  // store). False lets the Simulation skip a delivery that it would only ignore (batch
  // policies ignore the bindings and status updates of their machine jobs' ranks); see
  // Simulation::deliver for when a skip is allowed. Must depend only on the change and on
  // what the pod cannot change (its spec, machines).
  virtual bool wants_pod_change(const Change& /*change*/, const Pod& /*pod*/) const { return true; }
  // True when, as long as no pod template has a schedulerName it serves, all it keeps of the
  // cluster's pods is what a replay of the bound, non-terminal pods (on_pod_change with an
  // Added change each, in PodId order) rebuilds: the Simulation then delivers it no pod
  // changes until such a template appears, and replays the bound pods then. kube-scheduler
  // without informer plugins: its cache of assigned pods (Scheduler::idle_without_own_pods).
  virtual bool idle_without_own_pods() const { return false; }
  // The admission webhooks of the scheduler's (e.g. Kueue's pod webhook adding its scheduling
  // gate and validating its group labels): called on every pod the API is about to create,
  // before the ResourceQuota admission (webhooks run before it). A non-empty result refuses
  // the creation with that message.
  virtual std::string admit_pod_on_create(Pod& /*pod*/) const { return {}; }
  virtual void on_event(const SchedulerEvent& event, SimTime now) = 0;
  // True while the scheduler has work that does not wait for a cluster change (a run ends
  // only when no scheduler is busy and nothing external is pending).
  virtual bool busy() const = 0;
  // True while a timer of the scheduler's own will change the cluster when it fires (YuniKorn's
  // placeholder timeout deletes pods): the run is not over while one is pending, even if the
  // cluster is otherwise frozen.
  virtual bool expects_change() const { return false; }
  // How long after the cluster last changed a timer the busy scheduler has (or re-arms) can
  // still fire with an outcome of its own; the run waits at least that long in a frozen
  // cluster before it ends (Simulation::stop_reason). Zero: the Simulation's default window.
  virtual Duration retry_window() const { return Duration(); }
  // Deadlock detection (Simulation::run ends a run in which nothing can change any more).
  // stuck(): every pod the scheduler holds failed its last attempt in the cluster as it is
  // now, and it has nothing else under way (no cycle, no Permit wait, no patch): all it
  // would still do is retry them in vain. would_fail(spec): a new pod of this template would
  // fail too, now (asked only while stuck). False (the default): the model cannot tell.
  virtual bool stuck() { return false; }
  virtual bool would_fail(PodTemplateId /*spec*/) { return false; }
  // A count that changes whenever the cluster the scheduler decides on changes (would_fail's
  // answers hold while it stays).
  virtual std::uint64_t cluster_generation() const { return 0; }
  virtual std::uint64_t attempts() const = 0;
  virtual std::uint64_t bindings() const = 0;
};

}  // namespace kubesim

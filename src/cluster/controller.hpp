// A controller in the simulated control plane that owns no pods' placement (Kueue, a
// PodGroup controller, an operator of a custom resource): what the Simulation needs of it.
// The Simulation gives each controller what kube-controller-manager gives one of its
// controllers (k8s.io/client-go/tools/cache shared informers + a workqueue + a client):
//  - its own informer stream of the kinds it watches (watches()), delivered to on_change
//    with the watch delay plus its informer delay, like a scheduler's;
//  - its own timers, with a payload of its own type (post_timer / on_timer), for its API
//    writes in flight and its periodic work;
//  - a say in the end of a run: busy() while it has work that does not wait for a cluster
//    change, expects_change() while a timer of its will change the cluster;
//  - the store to read objects, and the API client to write them (ApiClientHost,
//    cluster/api_client.hpp: the same writes and pod CREATE as a scheduler model's).
// Registering one is SimulationInputs::controllers (engine/simulation.hpp): no edit of
// engine/ per controller.
#pragma once

#include <cstdint>
#include <string>

#include "cluster/api_client.hpp"
#include "core/event_queue.hpp"
#include "core/timer_payload.hpp"
#include "core/time.hpp"
#include "model/object_store.hpp"

namespace kubesim {

// A controller's timer in the Simulation's event queue.
struct ControllerEvent {
  TimerPayload payload;
  std::uint8_t controller = 0;  // which controller posted it (set by the Simulation)
};

class ControllerHost : public ApiClientHost {
 public:
  // A timer of the controller's own: not a pending cluster change (busy() and
  // expects_change() say what it means for the end of the run).
  virtual void post(SimTime at, Phase phase, TimerPayload payload) = 0;
  template <class T>
  void post_timer(SimTime at, Phase phase, const T& payload) {
    post(at, phase, TimerPayload::of(payload));
  }
};

class Controller {
 public:
  virtual ~Controller() = default;
  // The kinds its informer stream delivers (built-in or registered). Fixed for the run.
  virtual KindSet watches() const = 0;
  // An informer delivery: the change as it was when made (the object may have changed since).
  virtual void on_change(const Change& change, SimTime now) = 0;
  virtual void on_timer(TimerPayload payload, SimTime now) = 0;
  // A mutating/validating admission webhook on every pod CREATE (before ResourceQuota
  // admission, after the schedulers' own): a non-empty result refuses the pod.
  virtual std::string admit_pod_on_create(Pod& /*pod*/) const { return {}; }
  // As SchedulerModel's: work that does not wait for a cluster change (a run ends only when
  // nobody is busy and nothing external is pending), a timer that will change the cluster,
  // and how long a busy controller's timers may still have an outcome in a frozen cluster.
  virtual bool busy() const = 0;
  virtual bool expects_change() const { return false; }
  virtual Duration retry_window() const { return Duration(); }
  // Scheduling attempts it made (Kueue's nominations), added to the run's count.
  virtual std::uint64_t attempts() const { return 0; }
};

}  // namespace kubesim

// What the Simulation needs of a scheduler, so that several can share one cluster: each pod's
// schedulerName picks the scheduler that serves it, and schedulers see each other's pods only
// through the object store's change feed (their own informer stream, with its delay).
// kube-scheduler (sched/scheduler.hpp) is one model; batch schedulers and others implement
// the same interface.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "core/event_queue.hpp"
#include "core/time.hpp"
#include "model/object_store.hpp"

namespace kubesim {

class ClusterClient;  // sched/cluster_client.hpp

struct SchedulerEvent {
  // kCycle .. kLeftoverTick are kube-scheduler's; kTimer is any other model's own timer
  // (`pod` may carry a model-defined tag).
  // kBindJob: a model's binding of several pods at once (the batch policies' machine job:
  // `pod` is its first rank); like kBindDone, it counts as a pending cluster change.
  enum class Kind : std::uint8_t { kCycle, kCycleEnd, kPatchDone, kBindDone, kBackoffTick, kLeftoverTick, kTimer, kBindJob };
  Kind kind;
  PodId pod;
  NodeId node;
  std::uint8_t scheduler = 0;  // which scheduler posted it (set by the Simulation)
};

class SchedulerHost {
 public:
  virtual ~SchedulerHost() = default;
  // A kBindDone or kBindJob event counts as a pending cluster change (the run is not over
  // while one is in flight); every other kind is the scheduler's own business.
  virtual void post(SimTime at, Phase phase, SchedulerEvent event) = 0;
  // The model's API client (sched/cluster_client.hpp): bindings with their devices, status
  // writes, deletions. The Simulation's writes to its store; the default (a test's host
  // without a cluster) throws std::logic_error.
  virtual ClusterClient& client();

  // ---- A scheduler acting as an API client that creates pods (YuniKorn's shim creates
  // placeholder pods: k8shim pkg/cache/placeholder_manager.go createAppPlaceholders) ----
  // Registers a pod template (priority admission resolves spec.priorityClassName as for any
  // pod CREATE). Returns the template, or the API's refusal message.
  virtual std::variant<PodTemplateId, std::string> add_pod_template(PodTemplate spec) {
    (void)spec;
    return std::string("this cluster does not accept pods from its schedulers");
  }
  // The pod CREATE (ResourceQuota admission, then the store) of a pod with that name,
  // namespace and registered template whose container runs until the pod is deleted. It
  // runs no workload job (Pod::workload_job = kNoWorkloadJob). Returns the pod, or the
  // API's refusal message (nothing is created then).
  virtual std::variant<PodId, std::string> create_pod(std::string name, NamespaceId ns, PodTemplateId spec) {
    (void)name, (void)ns, (void)spec;
    return std::string("this cluster does not accept pods from its schedulers");
  }
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
  // batch/v1 Job changes, delivered only to schedulers that want them (Kueue admits whole
  // Jobs); the others' informer streams (and random draws) are unchanged.
  virtual bool wants_jobs() const { return false; }
  // The admission webhooks of the scheduler's (e.g. Kueue's pod webhook adding its scheduling
  // gate and validating its group labels): called on every pod the API is about to create,
  // before the ResourceQuota admission (webhooks run before it). A non-empty result refuses
  // the creation with that message.
  virtual std::string admit_pod_on_create(Pod& /*pod*/) const { return {}; }
  virtual void on_job_change(const Change& /*change*/, SimTime /*now*/) {}
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
  virtual std::uint64_t attempts() const = 0;
  virtual std::uint64_t bindings() const = 0;
};

// The binding API call landing (pkg/registry/core/pod/storage/storage.go assignPod): sets
// spec.nodeName and PodScheduled=True unless the pod was bound, deleted or ended meanwhile.
// Returns whether it bound.
bool apply_binding(ObjectStore& store, PodId pod, NodeId node, SimTime now);

}  // namespace kubesim

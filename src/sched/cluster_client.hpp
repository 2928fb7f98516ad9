// The client interface of scheduler models (and controllers) to the cluster: what a model
// writes through the API server, instead of calling the object store. The Simulation
// implements it (engine/simulation.*) over its store with the semantics models had by hand:
// bind_in_store is apply_binding's rule plus the binding's devices.
//
// Upstream: pods/binding (pkg/registry/core/pod/storage/storage.go BindingREST.Create:
// assignPod refuses a pod already bound or being deleted), the status patch of a failed
// attempt (pkg/scheduler/schedule_one.go updatePod: PodScheduled=False, nominatedNodeName),
// and DELETE with a grace period and DisruptionTarget reason (preemption, eviction).
#pragma once

#include <string>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "model/devices.hpp"
#include "model/object_store.hpp"

namespace kubesim {

// A binding with its payload: the node and the devices of that node given to the pod
// (indices into Node::devices or the node's anonymous GPUs; empty: none recorded).
struct Binding {
  PodId pod;
  NodeId node;
  DeviceGrants devices;
};

class ClusterClient {
 public:
  virtual ~ClusterClient() = default;
  // POST pods/binding. False: refused (the pod is terminal, deleted, already bound, or bound
  // to a node that does not exist), and nothing was written.
  virtual bool bind(const Binding& binding, SimTime now) = 0;
  // The status patch of a failed scheduling attempt: PodScheduled=False/Unschedulable with
  // this message (empty: no such condition).
  virtual void set_unschedulable(PodId pod, const std::string& message, SimTime now) = 0;
  // status.nominatedNodeName (invalid: cleared).
  virtual void set_nominated_node(PodId pod, NodeId node, SimTime now) = 0;
  // Both in one status patch, as kube-scheduler's updatePod writes them (schedule_one.go v1.26).
  virtual void set_unschedulable_and_nominated(PodId pod, const std::string& message, NodeId node, SimTime now) = 0;
  // DELETE with a grace period and the disruption reason (ObjectStore::delete_pod).
  virtual void delete_pod(PodId pod, Duration grace, DisruptionReason reason, SimTime now) = 0;
};

// The binding's write to the store: apply_binding's rule (sched/scheduler_model.hpp), and the
// devices recorded on the pod (Pod::devices()).
bool bind_in_store(ObjectStore& store, const Binding& binding, SimTime now);

// The client over an object store, as the Simulation gives its schedulers.
class StoreClusterClient final : public ClusterClient {
 public:
  explicit StoreClusterClient(ObjectStore& store) : store_(store) {}
  bool bind(const Binding& binding, SimTime now) override { return bind_in_store(store_, binding, now); }
  void set_unschedulable(PodId pod, const std::string& message, SimTime now) override;
  void set_nominated_node(PodId pod, NodeId node, SimTime now) override;
  void set_unschedulable_and_nominated(PodId pod, const std::string& message, NodeId node, SimTime now) override;
  void delete_pod(PodId pod, Duration grace, DisruptionReason reason, SimTime now) override;

 private:
  ObjectStore& store_;
};

}  // namespace kubesim

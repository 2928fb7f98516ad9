// What a scheduler model or a controller is given to act on the cluster as an API client
// does: the writes (ClusterClient: bindings with their devices, status patches, gate
// removals, Job updates, deletions) and the pod CREATE (ApiClientHost). SchedulerHost
// (sched/scheduler_model.hpp) and ControllerHost (cluster/controller.hpp) are both
// ApiClientHosts, so a model and a controller write through one path. The Simulation
// implements both over its store (engine/simulation.*; the store's rules are in
// sched/cluster_client.hpp StoreClusterClient, the one implementation).
//
// Upstream: pods/binding (pkg/registry/core/pod/storage/storage.go BindingREST.Create:
// assignPod refuses a pod already bound or being deleted), the status patch of a failed
// attempt (pkg/scheduler/schedule_one.go updatePod: PodScheduled=False, nominatedNodeName),
// the pod update removing a scheduling gate (the one spec change allowed on a pod,
// pkg/apis/core/validation ValidatePodUpdate), a Job's spec.suspend update, and DELETE with a
// grace period and DisruptionTarget reason (preemption, eviction).
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "core/ids.hpp"
#include "core/time.hpp"
#include "model/devices.hpp"
#include "model/objects.hpp"

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
  // The status patch of an attempt that failed with an error (not a FitError): PodScheduled=
  // False/SchedulerError with this message, nominatedNodeName cleared (schedule_one.go v1.26:
  // clearNominatedNode). set_unschedulable* write the reason Unschedulable again.
  virtual void set_scheduler_error(PodId pod, const std::string& message, SimTime now) = 0;
  // DELETE with a grace period and the disruption reason (ObjectStore::delete_pod).
  virtual void delete_pod(PodId pod, Duration grace, DisruptionReason reason, SimTime now) = 0;
  // The pod update removing spec.schedulingGates' entry of that name. False: the pod has no
  // such gate, and nothing was written.
  virtual bool remove_scheduling_gate(PodId pod, std::string_view gate, SimTime now) = 0;
  // The Job update setting spec.suspend (written even if it already has that value).
  virtual void set_job_suspend(JobId job, bool suspend, SimTime now) = 0;
  // A status update that fails a pod not yet bound: phase Failed with this reason and message
  // (YuniKorn's shim failing a gang's pods: k8shim KubeClient.UpdateStatus).
  virtual void set_failed(PodId pod, const std::string& reason, const std::string& message, SimTime now) = 0;
};

// The host of a scheduler model or a controller, as an API client of the cluster.
class ApiClientHost {
 public:
  virtual ~ApiClientHost() = default;
  // The writes. The Simulation's over its store; the default (a test's host without a
  // cluster) throws std::logic_error.
  virtual ClusterClient& client();

  // ---- Creating pods (YuniKorn's shim creates placeholder pods: k8shim
  // pkg/cache/placeholder_manager.go createAppPlaceholders) ----
  // Registers a pod template (priority admission resolves spec.priorityClassName as for any
  // pod CREATE). Returns the template, or the API's refusal message.
  virtual std::variant<PodTemplateId, std::string> add_pod_template(PodTemplate spec) {
    (void)spec;
    return std::string("this cluster does not accept pods from its schedulers");
  }
  // The pod CREATE (the webhooks, ResourceQuota admission, then the store) of a pod with that
  // name, namespace and registered template whose container runs until the pod is deleted.
  // It runs no workload job (Pod::workload_job = kNoWorkloadJob). Returns the pod, or the
  // API's refusal message (nothing is created then).
  virtual std::variant<PodId, std::string> create_pod(std::string name, NamespaceId ns, PodTemplateId spec) {
    (void)name, (void)ns, (void)spec;
    return std::string("this cluster does not accept pods from its schedulers");
  }
};

}  // namespace kubesim

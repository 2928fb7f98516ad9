// The pod garbage collector's orphan rule (kube-controller-manager v1.26,
// pkg/controller/podgc/gc_controller.go gcOrphaned): what becomes of a pod bound to a node
// that does not exist. kube-apiserver accepts such a binding (assignPod sets spec.nodeName
// without looking the node up); no kubelet runs the pod. The collector runs every
// gcCheckPeriod (20 s) from the controller manager's start (simulated time 0); a pass that
// sees a pod on an unknown node puts that node in quarantine for quarantineTime (40 s, a
// delaying work queue that keeps the earliest deadline), and the first pass after the
// quarantine that still cannot find the node (GET -> 404) marks each of its pods Failed
// with the condition DisruptionTarget/DeletionByPodGC "PodGC: node no longer exists"
// (feature PodDisruptionConditions, beta and on in v1.26) and deletes it with grace period 0.
// Passes slide (wait.Until: the next period starts when a pass ends), so the pass 40 s
// after the first one that saw the pod finds the quarantine over: a pod bound at b is
// deleted at the first multiple of 20 s after b, plus 40 s.
// A node of that name created meanwhile adopts the pod (ObjectStore::create_node) and the
// collector leaves it alone.
#pragma once

#include "core/event_queue.hpp"
#include "model/object_store.hpp"

namespace kubesim {

struct PodGcConfig {
  Duration check_period = Duration::seconds(20);    // gcCheckPeriod
  Duration quarantine = Duration::seconds(40);      // quarantineTime
};

struct PodGcEvent {
  PodId pod;  // a pod bound to a missing node when the event was posted
};

class PodGcHost {
 public:
  virtual ~PodGcHost() = default;
  virtual void post(SimTime at, Phase phase, PodGcEvent event) = 0;
};

class PodGarbageCollector {
 public:
  PodGarbageCollector(ObjectStore& store, PodGcConfig config, PodGcHost& host)
      : store_(store), config_(config), host_(host) {}
  // A pod was just bound to a node that does not exist: posts its collection.
  void on_bound_to_missing_node(PodId pod, SimTime now);
  void on_event(const PodGcEvent& event, SimTime now);

 private:
  ObjectStore& store_;
  PodGcConfig config_;
  PodGcHost& host_;
};

}  // namespace kubesim

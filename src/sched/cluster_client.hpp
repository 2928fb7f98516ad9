// The models' client (cluster/api_client.hpp: Binding, ClusterClient) over an object store:
// the one implementation, which the Simulation gives its schedulers and controllers
// (engine/simulation.*), with the semantics models had by hand: bind_in_store is
// the binding API call's rule plus the binding's devices.
#pragma once

#include <string>
#include <string_view>

#include "cluster/api_client.hpp"
#include "core/ids.hpp"
#include "core/time.hpp"
#include "model/object_store.hpp"

namespace kubesim {

// The binding API call landing (pkg/registry/core/pod/storage/storage.go assignPod): sets
// spec.nodeName and PodScheduled=True unless the pod was bound, deleted or ended meanwhile,
// and records the binding's devices on the pod (Pod::devices()). Returns whether it bound.
bool bind_in_store(ObjectStore& store, const Binding& binding, SimTime now);

// The client over an object store, as the Simulation gives its schedulers and controllers.
class StoreClusterClient final : public ClusterClient {
 public:
  explicit StoreClusterClient(ObjectStore& store) : store_(store) {}
  bool bind(const Binding& binding, SimTime now) override { return bind_in_store(store_, binding, now); }
  void set_unschedulable(PodId pod, const std::string& message, SimTime now) override;
  void set_nominated_node(PodId pod, NodeId node, SimTime now) override;
  void set_unschedulable_and_nominated(PodId pod, const std::string& message, NodeId node, SimTime now) override;
  void set_scheduler_error(PodId pod, const std::string& message, SimTime now) override;
  void delete_pod(PodId pod, Duration grace, DisruptionReason reason, SimTime now) override;
  bool remove_scheduling_gate(PodId pod, std::string_view gate, SimTime now) override;
  void set_job_suspend(JobId job, bool suspend, SimTime now) override;
  void set_failed(PodId pod, const std::string& reason, const std::string& message, SimTime now) override;

 private:
  ObjectStore& store_;
};

}  // namespace kubesim

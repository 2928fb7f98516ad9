#include "sched/cluster_client.hpp"

#include <stdexcept>

#include "sched/scheduler_model.hpp"

namespace kubesim {

ClusterClient& SchedulerHost::client() { throw std::logic_error("this scheduler host has no cluster client"); }

bool bind_in_store(ObjectStore& store, const Binding& binding, SimTime now) {
  const Pod& p = store.pod(binding.pod);
  if (is_terminal(p.phase) || p.node.valid() || p.deleted || store.missing_node(binding.pod)) return false;
  store.update_pod(binding.pod, [&](Pod& x) {
    x.node = binding.node;
    x.scheduled = now;
    x.unschedulable_message.clear();
    if (!binding.devices.empty()) x.scheduling_gates.set_devices(binding.devices);
  });
  return true;
}

// The callers that have no client yet (sched/scheduler_model.hpp): a binding without devices.
bool apply_binding(ObjectStore& store, PodId pod, NodeId node, SimTime now) {
  return bind_in_store(store, Binding{pod, node, {}}, now);
}

void StoreClusterClient::set_unschedulable(PodId pod, const std::string& message, SimTime now) {
  (void)now;  // the store stamps no time on a status patch
  store_.update_pod(pod, [&](Pod& x) { x.unschedulable_message = message; });
}

void StoreClusterClient::set_nominated_node(PodId pod, NodeId node, SimTime now) {
  (void)now;
  store_.update_pod(pod, [&](Pod& x) { x.nominated_node = node; });
}

void StoreClusterClient::set_unschedulable_and_nominated(PodId pod, const std::string& message, NodeId node,
                                                         SimTime now) {
  (void)now;
  store_.update_pod(pod, [&](Pod& x) {
    x.unschedulable_message = message;
    x.nominated_node = node;
  });
}

void StoreClusterClient::delete_pod(PodId pod, Duration grace, DisruptionReason reason, SimTime now) {
  store_.delete_pod(pod, now, grace, reason);
}

}  // namespace kubesim

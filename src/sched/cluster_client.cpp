#include "sched/cluster_client.hpp"

#include <algorithm>

namespace kubesim {

bool bind_in_store(ObjectStore& store, const Binding& binding, SimTime now) {
  const Pod& p = store.pod(binding.pod);
  if (is_terminal(p.phase) || p.node.valid() || p.deleted || store.missing_node(binding.pod)) return false;
  store.update_pod(binding.pod, [&](Pod& x) {
    x.node = binding.node;
    x.scheduled = now;
    x.unschedulable_message.clear();
    x.scheduler_error = false;
    if (!binding.devices.empty()) x.scheduling_gates.set_devices(binding.devices);
  });
  return true;
}

void StoreClusterClient::set_unschedulable(PodId pod, const std::string& message, SimTime now) {
  (void)now;  // the store stamps no time on a status patch
  store_.update_pod(pod, [&](Pod& x) {
    x.unschedulable_message = message;
    x.scheduler_error = false;
  });
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
    x.scheduler_error = false;
    x.nominated_node = node;
  });
}

void StoreClusterClient::set_scheduler_error(PodId pod, const std::string& message, SimTime now) {
  (void)now;
  store_.update_pod(pod, [&](Pod& x) {
    x.unschedulable_message = message;
    x.scheduler_error = true;
    x.nominated_node = NodeId();
  });
}

void StoreClusterClient::delete_pod(PodId pod, Duration grace, DisruptionReason reason, SimTime now) {
  store_.delete_pod(pod, now, grace, reason);
}

bool StoreClusterClient::remove_scheduling_gate(PodId pod, std::string_view gate, SimTime now) {
  (void)now;
  const Pod& p = store_.pod(pod);
  const auto it = std::find(p.scheduling_gates.begin(), p.scheduling_gates.end(), gate);
  if (it == p.scheduling_gates.end()) return false;
  const auto at = it - p.scheduling_gates.begin();
  store_.update_pod(pod, [at](Pod& x) { x.scheduling_gates.erase(x.scheduling_gates.begin() + at); });
  return true;
}

void StoreClusterClient::set_job_suspend(JobId job, bool suspend, SimTime now) {
  (void)now;
  store_.update_job(job, [suspend](Job& j) { j.suspend = suspend; });
}

void StoreClusterClient::set_failed(PodId pod, const std::string& reason, const std::string& message, SimTime now) {
  (void)now;  // the store stamps no time on a status update
  store_.update_pod(pod, [&](Pod& x) {
    x.phase = PodPhase::kFailed;
    x.reason = reason;
    x.message = message;
  });
}

}  // namespace kubesim

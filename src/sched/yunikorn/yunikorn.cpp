// The YuniKorn model's construction and introspection; its parts are split along upstream's
// files (see yunikorn.hpp).
#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

YuniKorn::YuniKorn(Config config, ObjectStore& store, SchedulerHost& host, std::uint64_t seed, std::string scheduler_name)
    : config_(std::move(config)),
      store_(store),
      host_(host),
      scheduler_name_(std::move(scheduler_name)),
      rng_(seed, "yunikorn"),
      names_rng_(seed, "yunikorn/placeholder-names"),
      queues_(config_.queues.size()),
      cache_(store) {}

YuniKorn::PodState& YuniKorn::state(PodId pod) {
  if (pod.value() >= pods_.size()) pods_.resize(pod.value() + 1);
  return pods_[pod.value()];
}

Res YuniKorn::available(int node) const {
  // The cache's sums are kube's (NodeInfo.requested: each pod's effective requests; pod_count);
  // in Res units a type the node lacks holds minus the requests, as node.go's Sub does, and
  // a type no pod requests is absent (FitIn reads it as 0, as upstream reads a missing key).
  const NodeInfo& info = cache_.info(NodeId(static_cast<std::uint32_t>(node)));
  Res r = nodes_[node].total;
  for (std::size_t i = 0; i < kMaxResources; ++i) {
    if (info.requested[i] == 0) continue;
    r.set(i, r.v[i] - info.requested[i]);
  }
  if (info.pod_count != 0) r.set(kPods, r.v[kPods] - info.pod_count);
  return r;
}

NodeId YuniKorn::allocated_node(PodId pod) const {
  if (pod.value() >= pods_.size() || pods_[pod.value()].kind != PodState::kAllocated) return NodeId();
  return NodeId(static_cast<std::uint32_t>(pods_[pod.value()].node));
}

NodeId YuniKorn::reserved_node(PodId pod) const {
  if (pod.value() >= pods_.size() || pods_[pod.value()].kind != PodState::kAsk) return NodeId();
  const int n = asks_[pods_[pod.value()].ask].reserved_node;
  return n < 0 ? NodeId() : NodeId(static_cast<std::uint32_t>(n));
}

bool YuniKorn::rejected(PodId pod) const {
  return pod.value() < pods_.size() && pods_[pod.value()].kind == PodState::kRejected;
}

AppState YuniKorn::app_state(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  return it == app_index_.end() ? AppState::kNew : apps_[it->second].state;
}

ShimState YuniKorn::shim_state(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  if (it == app_index_.end() || apps_[it->second].gang < 0) return ShimState::kRunning;
  return gangs_[apps_[it->second].gang].shim;
}

std::vector<PodId> YuniKorn::placeholders(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  if (it == app_index_.end() || apps_[it->second].gang < 0) return {};
  return gangs_[apps_[it->second].gang].placeholders;
}

SimTime YuniKorn::placeholder_timer(const std::string& app_id) const {
  const auto it = app_index_.find(app_id);
  if (it == app_index_.end() || apps_[it->second].gang < 0) return SimTime::never();
  return gangs_[apps_[it->second].gang].ph_timer;
}

std::string YuniKorn::gang_message(const std::string& app_id) const {
  std::string out;
  for (const auto& [id, message] : gang_messages_)
    if (id == app_id) out += (out.empty() ? "" : "; ") + message;
  return out;
}

const char* to_string(AppState s) {
  switch (s) {
    case AppState::kNew: return "New";
    case AppState::kAccepted: return "Accepted";
    case AppState::kStarting: return "Starting";
    case AppState::kRunning: return "Running";
    case AppState::kCompleting: return "Completing";
    case AppState::kResuming: return "Resuming";
    case AppState::kFailing: return "Failing";
    case AppState::kFailed: return "Failed";
  }
  return "";
}

const char* to_string(ShimState s) {
  switch (s) {
    case ShimState::kRunning: return "Running";
    case ShimState::kReserving: return "Reserving";
    case ShimState::kResuming: return "Resuming";
    case ShimState::kFailed: return "Failed";
  }
  return "";
}

}  // namespace kubesim::yunikorn

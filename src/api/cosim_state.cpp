#include "api/cosim_state.hpp"

#include <algorithm>
#include <iterator>

#include "cluster/predicates.hpp"

namespace kubesim::api {

bool passes_default_filters(const PodTemplate& spec, const Node& node, const Resources& requested,
                            std::int64_t pod_count) {
  // NodeUnschedulable, TaintToleration's filter (every NoSchedule/NoExecute taint tolerated),
  // NodeAffinity/nodeSelector, then NodeResourcesFit's fitsRequest (pod count and each
  // resource the pod requests) against the bound, non-terminal pods. Kube's other filters
  // (inter-pod affinity, topology spread, volumes, devices) are taken as passing: see
  // ApiServer::given_up_pod_fits.
  if (!passes_unschedulable(spec, node) || first_untolerated_schedule_taint(node, spec.tolerations) ||
      !pod_matches_node_selector_and_affinity(spec, node))
    return false;
  return (insufficient_resources(spec, node.allocatable, requested, pod_count, node.allowed_pods) &
          (kTooManyPodsBit | spec.requested_slots)) == 0;
}

void CosimState::on_pod_change(PodId pod) {
  track_decision(pod);
  account_on_node(pod);
}

void CosimState::on_change(const Change& change) {
  if (change.kind == ObjectKind::kNode ||
      (change.kind == ObjectKind::kPod &&
       (change.type == ChangeType::kDeleted || (is_terminal(change.phase) && !is_terminal(change.old_phase)))))
    capacity_freed_ = true;
  given_up_fit_.reset();
}

void CosimState::on_delivered(std::uint32_t pod) {
  if (pod >= external_state_.size() || external_state_[pod] != kUndecided) return;
  auto& delivered = delivered_at_[pod];
  if (delivered.time_since_epoch().count() == 0) delivered = std::chrono::steady_clock::now();
}

void CosimState::track_decision(PodId pod) {
  if (external_state_.size() <= pod.value()) external_state_.resize(pod.value() + 1, kNotWaiting);
  std::uint8_t& state = external_state_[pod.value()];
  const Pod& p = sim_.store().pod(pod);
  std::uint8_t now = kNotWaiting;
  if (!p.deleted && !p.terminating() && !p.node.valid() && !sim_.store().missing_node(pod) && p.phase == PodPhase::kPending &&
      !sim_.served_internally(sim_.store().spec(p.spec).scheduler_name))
    now = p.unschedulable_message.empty() ? kUndecided : kGivenUp;
  if (state == now) return;
  if (delivered_at_.size() <= pod.value()) delivered_at_.resize(pod.value() + 1);
  auto& delivered = delivered_at_[pod.value()];
  if (state == kUndecided && !p.deleted && delivered.time_since_epoch().count() != 0) {
    reactions_[next_reaction_] = std::chrono::steady_clock::now() - delivered;
    next_reaction_ = (next_reaction_ + 1) % std::size(reactions_);
  }
  delivered = {};
  if (state == kUndecided) --undecided_;
  if (state == kGivenUp) --given_up_;
  if (now == kUndecided) ++undecided_;
  if (now == kGivenUp) ++given_up_;
  if (state == kGivenUp) given_up_pods_.erase(pod.value());
  if (now == kGivenUp) given_up_pods_.insert(pod.value());
  state = now;
}

void CosimState::account_on_node(PodId pod) {
  const Pod& p = sim_.store().pod(pod);
  const NodeId node = !p.deleted && !is_terminal(p.phase) ? p.node : NodeId();
  if (accounted_node_.size() <= pod.value()) accounted_node_.resize(pod.value() + 1);
  NodeId& was = accounted_node_[pod.value()];
  if (was == node) return;
  const PodTemplate& spec = sim_.store().spec(p.spec);
  const Resources& requests = spec.requests;
  if (was.valid()) {
    node_requested_[was.value()] -= requests;
    --node_pod_count_[was.value()];
    if (--bound_priorities_[spec.priority] == 0) bound_priorities_.erase(spec.priority);
  }
  if (node.valid()) {
    if (node_requested_.size() <= node.value()) {
      node_requested_.resize(node.value() + 1);
      node_pod_count_.resize(node.value() + 1, 0);
    }
    node_requested_[node.value()] += requests;
    ++node_pod_count_[node.value()];
    ++bound_priorities_[spec.priority];
  }
  was = node;
}

bool CosimState::given_up_pod_fits() {
  if (given_up_fit_) return *given_up_fit_;
  const ObjectStore& store = sim_.store();
  auto fits = [&](const PodTemplate& spec, NodeId id) {
    const std::size_t n = id.value();
    const std::int64_t pods = n < node_pod_count_.size() ? node_pod_count_[n] : 0;
    const Resources used = n < node_requested_.size() ? node_requested_[n] : Resources{};
    return passes_default_filters(spec, store.node(id), used, pods);
  };
  bool any = false;
  for (const std::uint32_t id : given_up_pods_) {
    const PodTemplate& spec = store.spec(store.pod(PodId(id)).spec);
    for (std::uint32_t n = 0; n < store.node_count() && !any; ++n) any = fits(spec, NodeId(n));
    if (any) break;
  }
  given_up_fit_ = any;
  return any;
}

bool CosimState::given_up_pod_may_preempt() const {
  if (bound_priorities_.empty()) return false;
  const std::int32_t lowest = bound_priorities_.begin()->first;
  const ObjectStore& store = sim_.store();
  return std::any_of(given_up_pods_.begin(), given_up_pods_.end(), [&](std::uint32_t id) {
    const PodTemplate& spec = store.spec(store.pod(PodId(id)).spec);
    return spec.preemption_policy != PreemptionPolicy::kNever && spec.priority > lowest;
  });
}

std::vector<std::string> CosimState::pending_pods() const {
  std::vector<std::string> names;
  const ObjectStore& store = sim_.store();
  for (std::uint32_t id = 0; id < external_state_.size(); ++id)
    if (external_state_[id] != kNotWaiting)
      names.push_back(store.namespace_(store.pod(PodId(id)).ns).name + "/" + store.pod(PodId(id)).name);
  return names;
}

std::chrono::steady_clock::duration CosimState::recent_reaction_time() const {
  // Capped, so that one stall of the scheduler cannot stretch every later step.
  return std::min<std::chrono::steady_clock::duration>(*std::max_element(std::begin(reactions_), std::end(reactions_)),
                                                       std::chrono::seconds(1));
}

}  // namespace kubesim::api

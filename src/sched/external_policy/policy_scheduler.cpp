#include "sched/external_policy/policy_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "cluster/predicates.hpp"

namespace kubesim {

namespace {
// The scheduler's own timers: the opportunity of an instant, and a retry the policy asked.
enum class Timer : std::uint8_t { kDecision, kRetry };
}  // namespace

// ---- PolicyContext ----

SimTime PolicyContext::now() const { return s_.now_; }
std::span<const PodId> PolicyContext::pending() const { return s_.pending_; }
std::span<const Resources> PolicyContext::pending_requests() const { return s_.pending_requests_; }
bool PolicyContext::is_pending(PodId pod) const {
  return pod.value() < s_.slot_.size() && s_.slot_[pod.value()] != PolicyScheduler::kNotPending;
}
const NodeCache& PolicyContext::nodes() const { return s_.cache_; }
const ObjectStore& PolicyContext::store() const { return s_.store_; }

bool PolicyContext::fits(PodId pod, NodeId node) const {
  if (pod.value() >= s_.store_.pod_count() || node.value() >= s_.cache_.node_count()) return false;
  const PodTemplate& spec = s_.store_.spec_of(pod);
  const NodeInfo& info = s_.cache_.info(node);
  if (info.node == nullptr) return false;
  const Node& n = *info.node;
  if (!node_name_matches(spec, n) || !passes_unschedulable(spec, n)) return false;
  if ((spec.has_affinity || !spec.node_selector.empty()) && !pod_matches_node_selector_and_affinity(spec, n)) return false;
  if (first_untolerated_schedule_taint(n, spec.tolerations) != nullptr) return false;
  if (insufficient_resources(spec, info) != 0) return false;
  if (!s_.cache_.wants_devices(spec)) return true;
  DeviceGrants grants;
  return s_.cache_.fit_devices(spec, node, grants);
}

void PolicyContext::bind(PodId pod, NodeId node) {
  if (!is_pending(pod)) throw std::invalid_argument("bind: pod " + std::to_string(pod.value()) + " is not pending for scheduler " + s_.name_);
  if (node.value() >= s_.cache_.node_count() || s_.cache_.info(node).node == nullptr)
    throw std::invalid_argument("bind: no node " + std::to_string(node.value()));
  s_.bind_now(pod, node);
}

void PolicyContext::preempt(PodId victim) {
  if (victim.value() >= s_.store_.pod_count() || !s_.cache_.node_of(victim).valid())
    throw std::invalid_argument("preempt: pod " + std::to_string(victim.value()) + " is not on a node");
  s_.preempt_now(victim);
}

void PolicyContext::retry_at(SimTime at) { s_.ask_retry(std::max(at, s_.now_)); }

// ---- PolicyScheduler ----

PolicyScheduler::PolicyScheduler(ObjectStore& store, SchedulerHost& host, std::string scheduler_name,
                                 std::shared_ptr<SchedulingPolicy> policy, Distribution bind_latency, std::uint64_t seed)
    : store_(store),
      host_(host),
      name_(std::move(scheduler_name)),
      policy_(std::move(policy)),
      bind_latency_(bind_latency),
      latency_rng_(seed, "policy/" + name_),
      cache_(store) {}

void PolicyScheduler::sync_nodes() {
  nodes_synced_ = true;
  for (std::size_t i = cache_.node_count(); i < store_.node_count(); ++i) {
    const NodeId id(static_cast<std::uint32_t>(i));
    cache_.set_node(id, store_.node(id));
  }
}

void PolicyScheduler::add_pending(PodId pod) {
  if (pod.value() >= slot_.size()) slot_.resize(std::max<std::size_t>(pod.value() + 1, slot_.size() * 2), kNotPending);
  if (slot_[pod.value()] != kNotPending) return;
  slot_[pod.value()] = static_cast<std::uint32_t>(pending_.size());
  pending_.push_back(pod);
  pending_requests_.push_back(store_.spec_of(pod).requests);
  ++pending_count_;
  pending_inverse_run_time_ += inverse_run_time(pod);
}

double PolicyScheduler::inverse_run_time(PodId pod) const {
  const double seconds = store_.pod(pod).run_time.to_seconds();
  return seconds > 0 ? 1.0 / seconds : 1.0;
}

std::size_t PolicyScheduler::head(std::span<PodId> out) {
  while (head_scan_ < pending_.size() && slot_[pending_[head_scan_].value()] != head_scan_) ++head_scan_;
  std::size_t n = 0;
  for (std::size_t i = head_scan_; i < pending_.size() && n < out.size(); ++i)
    if (slot_[pending_[i].value()] == i) out[n++] = pending_[i];
  return n;
}

void PolicyScheduler::remove_pending(PodId pod) {
  // The entry stays in pending_ (a policy may be reading it) until the next compaction.
  if (pod.value() >= slot_.size() || slot_[pod.value()] == kNotPending) return;
  slot_[pod.value()] = kNotPending;
  --pending_count_;
  pending_inverse_run_time_ = pending_count_ == 0 ? 0.0 : pending_inverse_run_time_ - inverse_run_time(pod);
}

void PolicyScheduler::compact_pending() {
  if (pending_.size() == pending_count_) return;
  std::size_t out = 0;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    const PodId pod = pending_[i];
    if (slot_[pod.value()] != i) continue;  // left, or pending again at a later entry
    slot_[pod.value()] = static_cast<std::uint32_t>(out);
    pending_[out] = pod;
    pending_requests_[out] = pending_requests_[i];
    ++out;
  }
  pending_.resize(out);
  pending_requests_.resize(out);
  head_scan_ = 0;
}

void PolicyScheduler::on_node_change(const Change& change, SimTime now) {
  if (!nodes_synced_) sync_nodes();
  if (change.type != ChangeType::kDeleted) cache_.set_node(NodeId(change.id), store_.node(NodeId(change.id)));
  request_decision(now);
}

void PolicyScheduler::on_pod_change(const Change& c, SimTime now) {
  if (!nodes_synced_) sync_nodes();
  const PodId pod(c.id);
  const bool terminal = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  if (terminal) {
    remove_pending(pod);
    if (cache_.remove_pod(pod).valid()) request_decision(now);  // resources freed
    return;
  }
  if (c.node.valid()) {
    remove_pending(pod);
    if (cache_.node_of(pod).valid()) return;  // our own assumption confirmed, or known
    if (c.node.value() >= cache_.node_count()) cache_.set_node(c.node, store_.node(c.node));
    cache_.add_pod(pod, c.node);
    return;
  }
  const Pod& p = store_.pod(pod);
  if (c.gated || p.terminating()) {
    remove_pending(pod);  // gated again cannot happen (gates are only removed); being deleted can
    return;
  }
  if (cache_.node_of(pod).valid() || !serves(store_.spec_of(pod).scheduler_name)) return;
  add_pending(pod);
  request_decision(now);
}

void PolicyScheduler::request_decision(SimTime now) {
  if (decision_posted_) return;
  decision_posted_ = true;
  host_.post(now, Phase::kScheduler, SchedulerEvent::timer(Timer::kDecision));
}

void PolicyScheduler::ask_retry(SimTime at) {
  longest_retry_ = std::max(longest_retry_, at - now_);
  if (!retry_at_.is_never() && retry_at_ <= at) return;
  retry_at_ = at;
  host_.post(at, Phase::kScheduler, SchedulerEvent::timer(Timer::kRetry));
}

void PolicyScheduler::on_event(const SchedulerEvent& event, SimTime now) {
  now_ = now;
  if (event.kind == SchedulerEvent::Kind::kBindDone) {
    DeviceGrants devices(cache_.grants_of(event.pod).begin(), cache_.grants_of(event.pod).end());
    if (host_.client().bind(Binding{event.pod, event.node, std::move(devices)}, now)) {
      ++bindings_;
    } else if (cache_.remove_pod(event.pod).valid()) {
      // Refused (deleted or bound meanwhile): forget the assumption; a pod still pending
      // (not deleted) is offered again.
      const Pod& p = store_.pod(event.pod);
      if (!p.deleted && !is_terminal(p.phase) && !p.node.valid() && !p.terminating()) add_pending(event.pod);
      request_decision(now);
    }
    return;
  }
  if (event.kind != SchedulerEvent::Kind::kTimer) return;
  if (event.payload.as<Timer>() == Timer::kRetry) {
    if (retry_at_ != now) return;  // superseded by an earlier retry
    retry_at_ = SimTime::never();
  } else {
    decision_posted_ = false;
  }
  decide(now);
}

PolicyContext PolicyScheduler::context() {
  compact_pending();
  return PolicyContext(*this);
}

void PolicyScheduler::decide(SimTime /*now*/) {
  if (!nodes_synced_) sync_nodes();
  if (pending_count_ == 0) return;
  ++attempts_;
  if (!policy_) {
    opportunity_ = true;
    return;
  }
  PolicyContext ctx = context();
  policy_->schedule(ctx);
}

void PolicyScheduler::bind_now(PodId pod, NodeId node) {
  remove_pending(pod);
  cache_.add_pod(pod, node);  // assumed: the policy's later reads see it
  store_.pod_statistics(pod).scheduling_attempts += 1;
  host_.post(now_ + bind_latency_.sample(latency_rng_), Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kBindDone, pod, node});
}

void PolicyScheduler::preempt_now(PodId victim) {
  const Pod& p = store_.pod(victim);
  if (p.terminating() || p.deleted) return;  // already on its way out
  const Duration grace = Duration::seconds(store_.spec_of(victim).termination_grace_period_seconds);
  host_.client().delete_pod(victim, grace, DisruptionReason::kPreemptionByScheduler, now_);
}

}  // namespace kubesim

// Futile scheduling attempts of kube-scheduler's model, skipped exactly (issue 30).
//
// kube-scheduler v1.26 retries every unschedulable pod at least every
// podMaxInUnschedulablePodsDuration (5 minutes, internal/queue/scheduling_queue.go
// flushUnschedulablePodsLeftover), whether or not a cluster event it registered for
// (framework/types.go ClusterEvent, each plugin's EventsToRegister) happened. In a saturated or
// deadlocked cluster nearly all these attempts fail as the previous one did. The model still
// makes each attempt (its Pop, attempt count, cycle latency and re-queue are what the outputs
// record), but the decision is a function of what the cycle reads:
// - the scheduler's cache (nodes, assumed and bound pods, their terminating state), the
//   nominator and the cluster statistics: Scheduler::generation_ counts their changes;
// - the pod's template and status.nominatedNodeName;
// - plugin state, which the in-tree plugins of a pure_profile do not keep (no PreFilter,
//   Reserve, Permit, PostFilter or informer plugins: those read time or their own caches), and
//   no extenders (they answer from outside the model).
// A failure under a pure profile is recorded with its outcome (the FitError's counts and
// message, DefaultPreemption's verdict, its offset draw and dry-run counts); an attempt of the
// pod at the same generation with the same template and nomination replays it. A FitError
// visits every node, so nextStartNodeIndex advances by a multiple of the node count (not at
// all); only failures that did are recorded. The preemption's candidate offset is drawn again
// from the same stream with the same bound, so later draws stay aligned.
#include <algorithm>

#include "core/error.hpp"
#include "sched/kube/scheduler.hpp"

namespace kubesim {

void Scheduler::record_futile_attempt() {
  // An extender is state outside the model (an HTTP server): its answers are never replayed.
  if (!replay_futile_ || decision_observer_ || extenders_ || cycle_decision_.error || cycle_decision_.node.valid())
    return;
  const Profile* profile = profile_for(store_.spec_of(cycle_pod_));
  if (profile == nullptr || !pure_profile(*profile)) return;
  const Preemption& pre = preemption_;
  if (pre.error || pre.node.valid() || !pre.victims.empty() || preemption_draws_ > 1) return;
  const auto n = static_cast<std::uint32_t>(node_order_.size());
  if (n != 0 && cycle_decision_.processed != n) return;  // the search did not visit every node once
  const Pod& p = store_.pod(cycle_pod_);
  FutileOutcome o;
  o.spec = p.spec;
  o.nominated = p.nominated_node;
  o.processed = cycle_decision_.processed;
  o.interested_events = cycle_decision_.interested_events;
  o.unresolvable = cycle_decision_.unresolvable;
  o.draw_bound = preemption_draws_ == 1 ? last_draw_bound_ : 0;
  o.dry_run_nodes = dry_run_nodes_;
  o.dry_run_pods = dry_run_pods_;
  o.message = cycle_decision_.message;
  o.pre_message = pre.message;
  o.pre_ran = pre.ran;
  o.pre_mode = pre.mode;
  auto [it, added] = outcome_index_.emplace(std::move(o), static_cast<std::uint32_t>(outcomes_.size()));
  if (added) outcomes_.push_back(&it->first);
  if (futile_.size() <= cycle_pod_.value()) futile_.resize(cycle_pod_.value() + 1);
  futile_[cycle_pod_.value()] = FutileMark{generation_, it->second};
}

bool Scheduler::replay_futile_attempt() {
  if (!replay_futile_ || decision_observer_ || cycle_pod_.value() >= futile_.size()) return false;
  const FutileMark mark = futile_[cycle_pod_.value()];
  if (mark.generation != generation_) return false;
  const FutileOutcome& o = *outcomes_[mark.outcome];
  const Pod& p = store_.pod(cycle_pod_);
  if (p.spec != o.spec || p.nominated_node != o.nominated) return false;
  // decide(): the FitError (nextStartNodeIndex moved by the node count: not at all).
  Decision& d = cycle_decision_;
  d.node = NodeId();
  d.feasible = 0;
  d.processed = o.processed;
  d.interested_events = o.interested_events;
  d.unresolvable = o.unresolvable;
  d.scored = 0;
  d.pods_on_scored = 0;
  d.message = o.message;
  // run_post_filters(): DefaultPreemption's verdict, its offset draw and the dry runs' work.
  Preemption& pre = preemption_;
  pre.ran = o.pre_ran;
  pre.mode = o.pre_mode;
  pre.node = NodeId();
  pre.victims.clear();
  pre.pdb_violations = 0;
  pre.message = o.pre_message;
  pre.error = false;
  if (o.draw_bound != 0) preemption_rng_.uniform_below(o.draw_bound);
  dry_run_nodes_ = o.dry_run_nodes;
  dry_run_pods_ = o.dry_run_pods;
  ++replayed_attempts_;
  return true;
}

// Every pod waits in unschedulablePods with a failure recorded at this generation, and
// nothing else is under way. The scan of the unschedulable pods runs once per state (the
// generation, the attempts made and the list's size identify it: a pod enters the list only
// after an attempt).
bool Scheduler::stuck() {
  if (in_cycle_ || cycle_posted_ || waiting_for_patch_ || !waiting_.empty() || !rejected_.empty() ||
      !queue_.active_empty() || !queue_.backoff_empty() || nominated_total_ != 0)
    return false;
  if (stuck_key_gen_ == generation_ && stuck_key_attempts_ == attempts_total_ &&
      stuck_key_size_ == queue_.unschedulable_size())
    return stuck_answer_;
  stuck_key_gen_ = generation_;
  stuck_key_attempts_ = attempts_total_;
  stuck_key_size_ = queue_.unschedulable_size();
  stuck_answer_ = true;
  for (PodId p = queue_.first_unschedulable(); p.valid(); p = queue_.next_unschedulable(p)) {
    if (p.value() >= futile_.size() || futile_[p.value()].generation != generation_) {
      stuck_answer_ = false;
      break;
    }
  }
  return stuck_answer_;
}

// A new pod of `spec` fails now if its profile is pure, NodeResourcesFit is the only filter
// that applies to it (with no devices and no nominations in play), no node has room for its
// requests, and DefaultPreemption finds no pod of lower priority to evict.
bool Scheduler::would_fail(PodTemplateId id) {
  if (template_fails_at_.size() <= id.value()) template_fails_at_.resize(id.value() + 1, 0);
  if (template_fails_at_[id.value()] == generation_) return true;
  const PodTemplate& spec = store_.spec(id);
  const Profile* profile = profile_for(spec);
  if (profile == nullptr || !pure_profile(*profile) || nominated_total_ != 0 || cache_.wants_devices(spec))
    return false;
  if (profile->preemption && spec.preemption_policy != PreemptionPolicy::kNever && !priority_counts_.empty() &&
      priority_counts_.begin()->first < spec.priority)
    return false;
  const CycleContext ctx{store_, PodId(), spec, stats_};
  for (const FilterPlugin* f : profile->filters)
    if (f->applies(ctx) && !f->is_fits_request()) return false;
  for (const NodeInfo& ni : cache_.infos())
    if (insufficient_resources(spec, ni) == 0) return false;
  template_fails_at_[id.value()] = generation_;
  return true;
}

}  // namespace kubesim

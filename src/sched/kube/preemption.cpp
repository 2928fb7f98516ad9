// DefaultPreemption, the PostFilter plugin of kube-scheduler v1.26
// (pkg/scheduler/framework/preemption/preemption.go Evaluator.Preempt and
// pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go), run by the
// Scheduler on its own cache after a FitError. The dry run is sequential: upstream's
// parallel DryRunPreemption checks nodes from the random offset on and cancels once enough
// candidates are found; a sequential run in that order is the same as its best case.
#include <algorithm>
#include <tuple>

#include "sched/kube/scheduler.hpp"

namespace kubesim {
namespace {

constexpr std::string_view kNoVictims = "No preemption victims found for incoming pod";
constexpr std::string_view kNotHelpful = "Preemption is not helpful for scheduling";

bool empty_selector(const LabelSelector& s) { return s.match_labels.empty() && s.match_expressions.empty(); }

}  // namespace

// util.GetPodStartTime: status.startTime, or "now" for a pod without one. The API keeps
// metav1.Time at whole seconds (RFC 3339), so start times compare at second granularity.
SimTime Scheduler::pod_start_key(PodId pod, SimTime now) const {
  const SimTime t = store_.pod(pod).start_time;
  if (t.is_never()) return now;
  const std::int64_t us = t.micros();
  return SimTime::at(Duration::micros(us - us % 1'000'000));
}

// PodDisruptionBudget status.disruptionsAllowed as the disruption controller
// (pkg/controller/disruption/disruption.go) computes it, from the pods the scheduler's
// cache holds (assumed or bound, not terminal) of the PDB's namespace matching its selector:
// expectedCount = those pods (upstream asks the owning controller's scale for percentages
// and maxUnavailable; Jobs have none, which upstream reports as an error), currentHealthy =
// those running with started containers and no deletion timestamp (ready),
// desiredHealthy = minAvailable, or expectedCount - maxUnavailable; allowed =
// max(0, currentHealthy - desiredHealthy), 0 when expectedCount is 0.
void Scheduler::compute_pdb_budgets() {
  const auto& pdbs = store_.pod_disruption_budgets();
  pdb_allowed_.assign(pdbs.size(), 0);
  for (std::size_t i = 0; i < pdbs.size(); ++i) {
    const PodDisruptionBudget& pdb = pdbs[i];
    std::int32_t expected = 0;
    std::int32_t healthy = 0;
    for (std::size_t n = 0; n < cache_.node_count(); ++n) {
      for (const PodId q : cache_.pods_on(NodeId(static_cast<std::uint32_t>(n)))) {
        const Pod& p = store_.pod(q);
        if (p.ns != pdb.ns || !pdb.selector.matches(store_.spec_of(q).labels)) continue;
        ++expected;
        if (p.phase == PodPhase::kRunning && !p.started.is_never() && !p.terminating()) ++healthy;
      }
    }
    pdb_allowed_[i] = pdb.disruptions_allowed(expected, healthy);
  }
}

// default_preemption.go SelectVictimsOnNode (v1.26) on a copy of the node.
StatusCode Scheduler::select_victims_on_node(const CycleContext& ctx, NodeId node, SimTime now,
                                             std::uint32_t* violations, FilterResult* failure) {
  const std::int32_t priority = ctx.spec.priority;
  victim_node_ = cache_.info(node);
  victims_.clear();
  // First remove every lower-priority pod and check that the pod then fits.
  const std::vector<PodId>& pods = cache_.pods_on(node);
  const std::span<const PodTemplateId> specs = cache_.specs_on(node);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const PodTemplate& qs = store_.spec(specs[i]);
    if (qs.priority >= priority) continue;
    victims_.push_back(Victim{qs.priority, SimTime::never(), pods[i], specs[i]});
    victim_node_.add_pod(qs, -1);
  }
  if (victims_.empty()) {
    *failure = FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable, kNoVictims);
    return failure->code;
  }
  const FilterPlugin* plugin = nullptr;
  if (!passes_filters(ctx, victim_node_, &plugin, failure)) return failure->code;

  for (Victim& v : victims_) v.start = pod_start_key(v.pod, now);
  sort_victims_and_split_by_pdb();

  // Reprieve as many pods as possible, PDB-violating ones first, each group from the most
  // important: add the pod back; if the preemptor no longer fits, it stays a victim.
  *violations = 0;
  auto reprieve = [&](const Victim& v) {
    const PodTemplate& qs = store_.spec(v.spec);
    victim_node_.add_pod(qs, +1);
    if (passes_filters(ctx, victim_node_, nullptr, nullptr)) return true;
    victim_node_.add_pod(qs, -1);
    victim_pool_.push_back(v.pod);
    return false;
  };
  for (const Victim& v : violating_pods_)
    if (!reprieve(v)) ++*violations;
  for (const Victim& v : non_violating_pods_) reprieve(v);
  return StatusCode::kSuccess;
}

// capacity_scheduling.go preemptor.SelectVictimsOnNode (the quota rules are the plugin's):
// the node's pods least important first, each removed when the plugin takes it as a
// potential victim; then the filters and the quota must pass; then the reprieve, most
// important first and PDB-violating first, where a reprieved pod goes back to the victims if
// the quota check fails with it.
StatusCode Scheduler::select_victims_custom(const CycleContext& ctx, NodeId node, SimTime now,
                                            PreemptionPlugin& plugin, std::uint32_t* violations,
                                            FilterResult* failure) {
  victim_node_ = cache_.info(node);
  victims_.clear();
  plugin.begin_node(ctx.pod);
  const std::vector<PodId>& pods = cache_.pods_on(node);
  const std::span<const PodTemplateId> specs = cache_.specs_on(node);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const PodTemplate& qs = store_.spec(specs[i]);
    victims_.push_back(Victim{qs.priority, pod_start_key(pods[i], now), pods[i], specs[i]});
  }
  // !MoreImportantPod order: lower priority first, then the later start; the pod id
  // (creation order, later first) stands in for sort.Slice's order of equal pods.
  std::sort(victims_.begin(), victims_.end(), [](const Victim& a, const Victim& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.start != b.start) return a.start > b.start;
    return a.pod.value() > b.pod.value();
  });
  std::size_t kept = 0;
  for (const Victim& v : victims_) {
    if (!plugin.potential_victim(ctx.pod, v.pod)) continue;
    victim_node_.add_pod(store_.spec(v.spec), -1);
    plugin.removed(v.pod);
    victims_[kept++] = v;
  }
  victims_.resize(kept);
  if (victims_.empty()) {
    owned_reasons_.push_back("No victims found on node " + victim_node_.node->name + " for preemptor pod " +
                             store_.pod(ctx.pod).name);
    *failure = FilterResult::failure(StatusCode::kUnschedulableAndUnresolvable, owned_reasons_.back());
    return failure->code;
  }
  const FilterPlugin* fp = nullptr;
  if (!passes_filters(ctx, victim_node_, &fp, failure)) return failure->code;
  if (!plugin.fits_after_removal(ctx.pod)) {
    *failure = FilterResult::failure(StatusCode::kUnschedulable, "global quota max exceeded");
    return failure->code;
  }
  sort_victims_and_split_by_pdb();
  *violations = 0;
  // reprievePod: upstream re-checks the quota for every pod, which can list a pod twice and
  // remove it twice; kubesim re-checks only pods the filters let back, so none is listed twice.
  // Returns whether the filters passed with the pod back (upstream's `fits`).
  auto reprieve = [&](const Victim& v) {
    const PodTemplate& qs = store_.spec(v.spec);
    victim_node_.add_pod(qs, +1);
    plugin.added(v.pod);
    const bool fits = passes_filters(ctx, victim_node_, nullptr, nullptr);
    if (!fits || !plugin.fits_on_reprieve(ctx.pod)) {
      victim_node_.add_pod(qs, -1);
      plugin.removed(v.pod);
      victim_pool_.push_back(v.pod);
    }
    return fits;
  };
  for (const Victim& v : violating_pods_)
    if (!reprieve(v)) ++*violations;
  for (const Victim& v : non_violating_pods_) reprieve(v);
  return StatusCode::kSuccess;
}

// preemption.go Evaluator.Preempt (v1.26): PodEligibleToPreemptOthers, findCandidates
// (with DryRunPreemption), SelectCandidate. prepareCandidate runs when the cycle ends
// (Scheduler::prepare_candidate).
const Scheduler::Preemption& Scheduler::preempt(PodId pod, const Decision& decision, SimTime now,
                                                PreemptionPlugin* custom) {
  Preemption& out = preemption_;
  out.mode = Preemption::Mode::kNoop;
  out.node = NodeId();
  out.victims.clear();
  out.pdb_violations = 0;
  out.message.clear();
  out.ran = false;
  out.error = false;
  owned_reasons_.clear();
  const PodTemplate& spec = store_.spec_of(pod);
  const Profile* profile = profile_for(spec);
  if (profile == nullptr || (!custom && !profile->preemption) || decision.node.valid() || node_order_.empty()) return out;
  out.ran = true;
  const CycleContext ctx{store_, pod, spec, stats_};  // active_filters_ are decide()'s
  // 1) PodEligibleToPreemptOthers. A nil PostFilterResult keeps the nomination.
  if (!pod_eligible_to_preempt_others(pod, spec, custom)) return out;
  // From here on the result carries a NominatingInfo: the chosen node, or "" to clear.
  out.mode = Preemption::Mode::kOverride;
  reason_names_.clear();
  reason_counts_.clear();
  // 2) findCandidates.
  candidates_.clear();
  const bool error = find_candidates(ctx, *profile, decision, now, custom);
  if (candidates_.empty()) {
    if (error) {  // an Error status: no PostFilter message, the nomination is kept
      out.mode = Preemption::Mode::kNoop;
      out.error = true;
      return out;
    }
    // No candidate: a FitError over every node's preemption status ("preemption: " + its
    // Error(), framework/types.go FitError.Error).
    out.message = "preemption: " + fit_error_message(static_cast<std::uint32_t>(node_order_.size()));
    return out;
  }
  // 4) callExtenders (v1.26 numbers SelectCandidate 5).
  if (extenders_ && !call_extenders(pod)) return out;
  // 3) SelectCandidate.
  const Candidate& chosen = candidates_[select_candidate(now)];
  out.node = chosen.node;
  out.victims.assign(victim_pool_.begin() + chosen.begin, victim_pool_.begin() + chosen.end);
  out.pdb_violations = chosen.violations;
  return out;  // Success: no message
}

// default_preemption.go PodEligibleToPreemptOthers (v1.26), or the custom plugin's; false
// with preemption_.message set when the pod may not preempt.
bool Scheduler::pod_eligible_to_preempt_others(PodId pod, const PodTemplate& spec, PreemptionPlugin* custom) {
  if (spec.preemption_policy == PreemptionPolicy::kNever) {
    preemption_.message = "preemption: not eligible due to preemptionPolicy=Never.";
    return false;
  }
  const NodeId nominated = store_.pod(pod).nominated_node;
  const bool known = nominated.valid() && nominated.value() < cache_.node_count();
  const bool unresolvable =
      known && static_cast<StatusCode>(node_code_[nominated.value()]) == StatusCode::kUnschedulableAndUnresolvable;
  if (custom) {
    if (custom->eligible(pod, nominated, unresolvable)) return true;
    preemption_.message = "preemption: not eligible";
    return false;
  }
  if (!known || unresolvable) return true;
  for (const PodId q : pods_on(nominated)) {
    if (store_.pod(q).terminating() && store_.spec_of(q).priority < spec.priority) {
      preemption_.message = "preemption: not eligible due to a terminating pod on the nominated node.";
      return false;
    }
  }
  return true;
}

// preemption.go findCandidates (v1.26): only nodes whose filter status was Unschedulable
// (kubesim's UnschedulableAndUnresolvable filters: NodeUnschedulable, NodeName,
// TaintToleration, NodeAffinity; NodeResourcesFit says Unschedulable); with none, preemption
// cannot help. Then GetOffsetAndNumCandidates and DryRunPreemption. Fills candidates_ and the
// diagnosis; returns whether a node's dry run ended in an Error.
bool Scheduler::find_candidates(const CycleContext& ctx, const Profile& profile, const Decision& decision, SimTime now,
                                PreemptionPlugin* custom) {
  const auto n = static_cast<std::uint32_t>(node_order_.size());
  const std::uint32_t unresolvable = decision.unresolvable;
  count_reason(kNotHelpful, unresolvable);
  const std::uint32_t potential = n - unresolvable;
  if (potential == 0) return false;
  // GetOffsetAndNumCandidates: rand.Int31n(len(potentialNodes)) and calculateNumCandidates.
  std::uint32_t offset = 0;
  std::int64_t num_candidates = 0;
  if (custom) {
    const auto [o, k] = custom->offset_and_num_candidates(static_cast<std::int32_t>(potential));
    offset = static_cast<std::uint32_t>(o);
    num_candidates = k;
  } else {
    offset = static_cast<std::uint32_t>(preemption_rng_.uniform_below(potential));
    ++preemption_draws_;  // a replayed futile attempt draws the same (futile_retry.cpp)
    last_draw_bound_ = potential;
    const auto& args = *profile.preemption;
    num_candidates = static_cast<std::int64_t>(potential) * args.min_candidate_nodes_percentage / 100;
    if (num_candidates < args.min_candidate_nodes_absolute) num_candidates = args.min_candidate_nodes_absolute;
    if (num_candidates > potential) num_candidates = potential;
  }
  // Cluster-wide fast exit: when no pod in the cache has a lower priority, SelectVictimsOnNode
  // fails on every potential node with "No preemption victims found for incoming pod"
  // (UnschedulableAndUnresolvable) and there is no candidate; upstream reaches the same
  // result by dry-running every potential node, which the cycle's cost counts.
  if (!custom && (priority_counts_.empty() || priority_counts_.begin()->first >= ctx.spec.priority)) {
    dry_run_nodes_ += potential;
    if (latencies_.cost.per_pod_on_dry_run_node != 0)
      for (const NodeId id : node_order_)
        if (static_cast<StatusCode>(node_code_[id.value()]) != StatusCode::kUnschedulableAndUnresolvable)
          dry_run_pods_ += static_cast<std::uint64_t>(cache_.info(id).pod_count);
    count_reason(kNoVictims, potential);
    return false;
  }
  potential_nodes_.clear();
  for (const NodeId id : node_order_)
    if (static_cast<StatusCode>(node_code_[id.value()]) != StatusCode::kUnschedulableAndUnresolvable)
      potential_nodes_.push_back(id);
  if (store_.pod_disruption_budgets().empty()) {
    pdb_allowed_.clear();
  } else {
    compute_pdb_budgets();
  }
  return dry_run_preemption(ctx, offset, num_candidates, now, custom);
}

// preemption.go DryRunPreemption (v1.26): candidates from the offset on, until at least one
// non-violating candidate is found and the total reaches numCandidates. Each list holds at
// most numCandidates (candidateList.add drops the rest); candidates_ is the non-violating
// ones, then the violating ones. Returns whether a node's dry run ended in an Error.
bool Scheduler::dry_run_preemption(const CycleContext& ctx, std::uint32_t offset, std::int64_t num_candidates,
                                   SimTime now, PreemptionPlugin* custom) {
  const auto potential = static_cast<std::uint32_t>(potential_nodes_.size());
  victim_pool_.clear();
  non_violating_.clear();
  violating_.clear();
  bool error = false;
  for (std::uint32_t i = 0; i < potential; ++i) {
    const NodeId node = potential_nodes_[(offset + i) % potential];
    ++dry_run_nodes_;
    dry_run_pods_ += static_cast<std::uint64_t>(cache_.info(node).pod_count);
    if (!custom && node_min_priority(node) >= ctx.spec.priority) {  // per-node fast path, same status
      count_reason(kNoVictims, 1);
      continue;
    }
    const auto begin = static_cast<std::uint32_t>(victim_pool_.size());
    std::uint32_t violations = 0;
    FilterResult failure;
    const StatusCode code = custom ? select_victims_custom(ctx, node, now, *custom, &violations, &failure)
                                   : select_victims_on_node(ctx, node, now, &violations, &failure);
    if (code == StatusCode::kSuccess && victim_pool_.size() > begin) {
      const Candidate c{node, begin, static_cast<std::uint32_t>(victim_pool_.size()), violations};
      auto& list = violations == 0 ? non_violating_ : violating_;
      if (static_cast<std::int64_t>(list.size()) < num_candidates) list.push_back(c);
      if (!non_violating_.empty() &&
          static_cast<std::int64_t>(non_violating_.size() + violating_.size()) >= num_candidates)
        break;
      continue;
    }
    if (code == StatusCode::kSuccess) {  // "expected at least one victim pod on node": an Error
      error = true;
      continue;
    }
    for (std::size_t k = 0; k < failure.reason_count; ++k) count_reason(failure.reasons[k], 1);
  }
  candidates_.insert(candidates_.end(), non_violating_.begin(), non_violating_.end());
  candidates_.insert(candidates_.end(), violating_.begin(), violating_.end());
  return error;
}

// preemption.go SelectCandidate / pickOneNodeForPreemption (v1.26), lexicographically: fewest
// PDB violations; lowest priority of the first victim (the most important of the first
// reprieve group); lowest sum of (priority + 2^31); fewest victims; latest earliest start
// time among the highest-priority victims (GetEarliestPodStartTime). A full tie goes to the
// first tied node of a Go map walk: each step keeps its nodes in walk order and the last
// returns the first of them. The map (CandidatesToVictimsMap) is filled in candidates_'s order:
// DryRunPreemption's workers (Parallelizer.Until, one node per piece) take the pieces in
// order, and on one CPU, as the binary has under kubesim-timeshim, finish them in that order.
// A map of at most 8 entries is one bucket whose slots fill in insertion order, and a walk
// starts at one of its 8 slots drawn uniformly and wraps (Go 1.19 runtime/map.go mapiterinit:
// it.offset = r >> h.B & 7, mapiternext's offi = (i + it.offset) & 7): the walk meets first
// the first tied candidate at or after the drawn slot, else the first tied one, so with k
// candidates all tied the first wins with probability (9-k)/8. With more than 8 candidates the
// hash seed scatters them over buckets: every tied one is taken as equally likely. This
// matters with CapacityScheduling, whose dry run starts at offset 0
// (GetOffsetAndNumCandidates): preemptors favour the first nodes, but not all of them. One draw
// from its own stream per full tie, so a run without full ties draws nothing. Returns the
// index in candidates_.
std::size_t Scheduler::select_candidate(SimTime now) {
  if (candidates_.size() <= 1) return 0;
  struct Key {
    std::uint32_t violations;
    std::int32_t highest;
    std::int64_t sum;
    std::uint32_t count;
    SimTime earliest;
    // The ranking above, as one lexicographic order (a latest earliest start ranks first).
    auto rank() const { return std::tuple(violations, highest, sum, count, -earliest.micros()); }
  };
  auto key = [&](const Candidate& c) {
    Key k{c.violations, store_.spec_of(victim_pool_[c.begin]).priority, 0, c.end - c.begin, SimTime::never()};
    std::int32_t max_priority = k.highest;
    k.earliest = pod_start_key(victim_pool_[c.begin], now);
    for (std::uint32_t v = c.begin; v < c.end; ++v) {
      const std::int32_t pr = store_.spec_of(victim_pool_[v]).priority;
      k.sum += static_cast<std::int64_t>(pr) + (std::int64_t{1} << 31);
      const SimTime st = pod_start_key(victim_pool_[v], now);
      if (pr == max_priority) {
        if (st < k.earliest) k.earliest = st;
      } else if (pr > max_priority) {
        max_priority = pr;
        k.earliest = st;
      }
    }
    return k;
  };
  tied_candidates_.clear();
  auto best = key(candidates_[0]).rank();
  tied_candidates_.push_back(0);
  for (std::size_t i = 1; i < candidates_.size(); ++i) {
    const auto rank = key(candidates_[i]).rank();
    if (rank < best) {
      best = rank;
      tied_candidates_.clear();
    }
    if (rank == best) tied_candidates_.push_back(static_cast<std::uint32_t>(i));
  }
  if (tied_candidates_.size() == 1) return tied_candidates_[0];
  constexpr std::uint64_t kBucketSlots = 8;  // runtime/map.go bucketCnt
  if (candidates_.size() > kBucketSlots)
    return tied_candidates_[candidate_tie_rng_.uniform_below(tied_candidates_.size())];
  const auto start = static_cast<std::uint32_t>(candidate_tie_rng_.uniform_below(kBucketSlots));
  for (const std::uint32_t slot : tied_candidates_)
    if (slot >= start) return slot;
  return tied_candidates_[0];
}

void Scheduler::sort_victims_and_split_by_pdb() {
  // util.MoreImportantPod order: higher priority, then the earlier start. sort.Slice is not
  // stable; the pod id (creation order) stands in for its arbitrary order of equal pods.
  std::sort(victims_.begin(), victims_.end(), [](const Victim& a, const Victim& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.start != b.start) return a.start < b.start;
    return a.pod.value() < b.pod.value();
  });
  // filterPodsWithPDBViolation: each matching PDB's budget is decremented per pod; a pod
  // whose budget goes below zero violates it. Pods without labels and PDBs with an empty
  // selector match nothing.
  violating_pods_.clear();
  non_violating_pods_.clear();
  const auto& pdbs = store_.pod_disruption_budgets();
  pdb_remaining_.assign(pdb_allowed_.begin(), pdb_allowed_.end());
  for (const Victim& v : victims_) {
    bool violated = false;
    const PodTemplate& qs = store_.spec(v.spec);
    if (!qs.labels.empty()) {
      for (std::size_t i = 0; i < pdbs.size(); ++i) {
        if (pdbs[i].ns != store_.pod(v.pod).ns || empty_selector(pdbs[i].selector) ||
            !pdbs[i].selector.matches(qs.labels))
          continue;
        if (--pdb_remaining_[i] < 0) violated = true;
      }
    }
    (violated ? violating_pods_ : non_violating_pods_).push_back(v);
  }
}

}  // namespace kubesim

#include "sched/kueue/kueue_cache.hpp"

#include <algorithm>
#include <string>

#include "core/random.hpp"

namespace kubesim::kueue {

Cache::Cache(Config config) : config_(std::move(config)) {
  frs_ = std::max<std::size_t>(1, config_.flavors.size()) * kMaxResources;
  std::vector<std::string> cohort_names;
  cqs_.resize(config_.cluster_queues.size());
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    const ClusterQueueSpec& spec = config_.cluster_queues[i];
    ClusterQueue& c = cqs_[i];
    c.quota.assign(frs_, Quota{});
    c.usage.assign(frs_, 0);
    for (const auto& g : spec.groups)
      for (const auto& fq : g.flavors)
        for (std::size_t k = 0; k < g.covered.size(); ++k) c.quota[fr(fq.flavor, g.covered[k])] = {true, fq.resources[k]};
    if (!spec.cohort.empty()) {
      auto it = std::find(cohort_names.begin(), cohort_names.end(), spec.cohort);
      if (it == cohort_names.end()) {
        cohort_names.push_back(spec.cohort);
        cohorts_.emplace_back();
        it = cohort_names.end() - 1;
      }
      c.cohort = static_cast<std::int32_t>(it - cohort_names.begin());
      cohorts_[static_cast<std::size_t>(c.cohort)].push_back(static_cast<std::uint32_t>(i));
    }
  }
}

std::uint32_t Cache::add_workload(JobId job, std::uint32_t cq, std::int32_t priority, SimTime created,
                                  const Resources& total) {
  Workload w;
  w.job = job;
  w.cq = cq;
  w.priority = priority;
  w.created = created;
  w.total = total;
  w.flavor.fill(-1);
  const auto id = static_cast<std::uint32_t>(wls_.size());
  wls_.push_back(w);
  cqs_[cq].pending.push_back(id);
  cqs_[cq].tried = false;  // it may be the new head
  return id;
}

// ---- quota arithmetic ----------------------------------------------------------------

std::int64_t Cache::guaranteed(const ClusterQueue& c, std::size_t f) const {
  // resource_node.go (v0.9) guaranteedQuota: the part of the nominal quota not lent to the
  // cohort, max(0, nominal - lendingLimit); 0 without a lending limit.
  const Quota& q = c.quota[f];
  return q.covered && q.spec.lending_limit ? std::max<std::int64_t>(0, q.spec.nominal - *q.spec.lending_limit) : 0;
}

// The v0.9 cache is hierarchical (resource_node.go: a ClusterQueue's SubtreeQuota is its
// nominal quota; a cohort's is the sum of its members' SubtreeQuota - guaranteedQuota, and
// its Usage the sum of their usage above guaranteedQuota). For a flat cohort its
// available(cq) = max(0, g - u) + min(available(cohort), N - g - max(0, u - g) + borrowingLimit)
// equals the v0.8 clusterqueue.go form used here:
// min(RequestableCohortQuota - UsedCohortQuota, N + borrowingLimit - u).

std::int64_t Cache::requestable_cohort_quota(std::uint32_t cq, std::size_t f) const {
  // clusterqueue.go (v0.8) RequestableCohortQuota: what the cohort's members lend
  // (nominal - guaranteed, i.e. the lendingLimit if set, else the nominal quota) plus this
  // queue's guaranteed part.
  const ClusterQueue& c = cqs_[cq];
  if (c.cohort < 0) return c.quota[f].spec.nominal;
  std::int64_t sum = 0;
  for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(c.cohort)]) {
    const Quota& q = cqs_[m].quota[f];
    if (q.covered) sum += q.spec.nominal - guaranteed(cqs_[m], f);
  }
  return sum + guaranteed(c, f);
}

std::int64_t Cache::used_cohort_quota(std::uint32_t cq, std::size_t f) const {
  // clusterqueue.go (v0.8) UsedCohortQuota: the members' usage above their guaranteed
  // parts, plus this queue's usage within its guaranteed part.
  const ClusterQueue& c = cqs_[cq];
  if (c.cohort < 0) return c.usage[f];
  std::int64_t sum = 0;
  for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(c.cohort)])
    sum += std::max<std::int64_t>(0, cqs_[m].usage[f] - guaranteed(cqs_[m], f));
  return sum + std::min(c.usage[f], guaranteed(c, f));
}

std::int64_t Cache::available(std::uint32_t cq, std::size_t f) const {
  // clusterqueue_snapshot.go Available = max(0, available(c, fr, enforceBorrowLimit=true)).
  const ClusterQueue& c = cqs_[cq];
  const Quota& q = c.quota[f];
  if (!q.covered) return 0;
  if (c.cohort < 0) return std::max<std::int64_t>(0, q.spec.nominal - c.usage[f]);
  std::int64_t a = requestable_cohort_quota(cq, f) - used_cohort_quota(cq, f);
  if (q.spec.borrowing_limit) a = std::min(a, q.spec.nominal + *q.spec.borrowing_limit - c.usage[f]);
  return std::max<std::int64_t>(0, a);
}

std::int64_t Cache::potential_available(std::uint32_t cq, std::size_t f) const {
  // resource_node.go (v0.9) potentialAvailable, "the largest workload this ClusterQueue
  // could possibly admit": without a parent its SubtreeQuota (the nominal quota); else
  // guaranteedQuota + potentialAvailable(cohort) (= the cohort's SubtreeQuota, everything
  // its members lend), capped at SubtreeQuota + borrowingLimit when that is set.
  const ClusterQueue& c = cqs_[cq];
  const Quota& q = c.quota[f];
  if (!q.covered) return 0;
  if (c.cohort < 0) return q.spec.nominal;
  std::int64_t a = requestable_cohort_quota(cq, f);
  if (q.spec.borrowing_limit) a = std::min(a, q.spec.nominal + *q.spec.borrowing_limit);
  return a;
}

namespace {
// One reason or message part as a fingerprint (splitmix64 of its fields).
std::uint64_t fingerprint(std::uint64_t kind, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
  std::uint64_t h = kind;
  for (const std::uint64_t x : {a, b, c}) {
    std::uint64_t state = h + x;
    h = splitmix64(state);
  }
  return h;
}
// The messages that are not the flavor assigner's (scheduler.go setSkipped, schedule).
enum MessageKind : std::uint64_t { kOverCapacity = 1, kMoreNeeded, kOverlapping, kNoLongerFits, kPendingPreemption };
}  // namespace

Cache::Granular Cache::fits_resource_quota(std::uint32_t w, std::size_t f, std::int64_t v, bool rank_reclaim,
                                           bool* borrow, std::uint64_t* message) {
  // flavorassigner.go (v0.9) fitsResourceQuota:
  //   borrow := cq.BorrowingWith(fr, val) && cq.HasParent()
  //   val > PotentialAvailable -> noFit ("request > maximum capacity")
  //   val <= Available         -> fit
  //   val <= nominal           -> preempt, or reclaim if oracle.IsReclaimPossible
  //   else canPreemptWhileBorrowing (borrowWithinCohort policy != Never) -> preempt
  //   else noFit.
  // Reclaim and preempt differ only in how assign_flavors ranks a group's flavors (both
  // give Mode::kPreempt), so without `rank_reclaim` (a group of one flavor) the oracle,
  // whose preemption search changes nothing, is not asked and Preempt stands for both.
  const std::uint32_t cq = wls_[w].cq;
  const ClusterQueue& c = cqs_[cq];
  const ResourceQuotaSpec& q = c.quota[f].spec;
  *borrow = c.cohort >= 0 && borrowing_with(cq, f, v);
  const std::int64_t maximum = potential_available(cq, f);
  if (v > maximum) {
    *borrow = false;
    *message += fingerprint(kOverCapacity, f, static_cast<std::uint64_t>(v), static_cast<std::uint64_t>(maximum));
    return Granular::kNoFit;
  }
  const std::int64_t avail = available(cq, f);
  if (v <= avail) return Granular::kFit;
  *message += fingerprint(kMoreNeeded, f, static_cast<std::uint64_t>(v - avail));
  if (v <= q.nominal)
    return rank_reclaim && is_reclaim_possible(w, f, v) ? Granular::kReclaim : Granular::kPreempt;
  if (config_.cluster_queues[cq].borrow_within_cohort != Policy::kNever) return Granular::kPreempt;
  return Granular::kNoFit;
}

bool Cache::borrowing_with(std::uint32_t cq, std::size_t f, std::int64_t v) const {
  // clusterqueue_snapshot.go BorrowingWith: usage + v > nominal.
  return cqs_[cq].usage[f] + v > cqs_[cq].quota[f].spec.nominal;
}

bool Cache::is_reclaim_possible(std::uint32_t w, std::size_t f, std::int64_t v) {
  // preemption_oracle.go (v0.9) IsReclaimPossible: the queue would not borrow with v, and
  // getTargets for {fr: v} alone picks no workload of the queue itself (an empty target
  // list counts as possible).
  const std::uint32_t cq = wls_[w].cq;
  if (borrowing_with(cq, f, v)) return false;
  const std::size_t slot = f % kMaxResources;
  Request req;
  req.flavor.fill(-1);
  req.flavor[slot] = static_cast<std::int8_t>(f / kMaxResources);
  req.qty[slot] = v;
  req.needs = 1u << slot;
  for (const std::uint32_t t : get_targets(w, req))
    if (wls_[t].cq == cq) return false;
  return true;
}

Cache::Assignment Cache::assign_flavors(std::uint32_t w) {
  // flavorassigner.go (v0.9) assignFlavors / findFlavorForPodSetResource with the
  // FlavorFungibility gate on and the default flavorFungibility (whenCanBorrow: Borrow,
  // whenCanPreempt: TryNextFlavor), shouldTryNextFlavor: the flavors of a resource group are
  // tried in order; a flavor where every requested resource of the group fits (borrowing or
  // not) is taken at once; otherwise the best granular mode seen first wins (reclaim beats
  // preempt), or NoFit. All requested resources of a group get the same flavor. The
  // assignment borrows if any chosen flavor-resource borrows (Assignment.Borrowing).
  const Workload& wl = wls_[w];
  const ClusterQueueSpec& spec = config_.cluster_queues[wl.cq];
  Assignment res;
  res.flavor.fill(-1);
  res.mode = Mode::kFit;
  std::uint32_t requested = 0;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (wl.total[r] > 0) requested |= 1u << r;
  std::uint32_t covered = 0;
  for (const auto& g : spec.groups) {
    std::uint32_t group_requested = 0;
    for (const auto s : g.covered) group_requested |= requested & (1u << s);
    covered |= group_requested;
    if (group_requested == 0) continue;
    const bool rank_reclaim = g.flavors.size() > 1;  // reclaim beats preempt only between flavors
    Granular best = Granular::kNoFit;
    std::int32_t best_flavor = -1;
    bool best_borrow = false;
    std::uint32_t best_needs = 0;
    for (const auto& fq : g.flavors) {
      Granular mode = Granular::kFit;
      bool borrow = false;
      std::uint32_t needs = 0;
      for (const auto s : g.covered) {
        if (!(group_requested & (1u << s))) continue;
        bool b = false;
        const Granular m = fits_resource_quota(w, fr(fq.flavor, s), wl.total[s], rank_reclaim, &b, &res.message);
        if (m != Granular::kFit) needs |= 1u << s;
        mode = std::min(mode, m);
        borrow = borrow || b;
        if (mode == Granular::kNoFit) break;
      }
      if (mode > best) {
        best = mode;
        best_flavor = static_cast<std::int32_t>(fq.flavor);
        best_borrow = borrow;
        best_needs = needs;
      }
      if (mode == Granular::kFit) break;  // !shouldTryNextFlavor
    }
    if (best == Granular::kNoFit) {
      res.mode = Mode::kNoFit;
      continue;
    }
    for (const auto s : g.covered)
      if (group_requested & (1u << s)) res.flavor[s] = static_cast<std::int8_t>(best_flavor);
    res.mode = std::min(res.mode, best == Granular::kFit ? Mode::kFit : Mode::kPreempt);
    res.borrows = res.borrows || best_borrow;
    res.needs_preemption |= best_needs;
  }
  // "resource ... unavailable in ClusterQueue": a requested resource no group covers.
  if ((requested & ~covered) != 0) res.mode = Mode::kNoFit;
  return res;
}

// ---- preemption ------------------------------------------------------------------------

void Cache::add_usage(std::uint32_t w, std::int64_t sign) {
  const Workload& wl = wls_[w];
  ClusterQueue& c = cqs_[wl.cq];
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (wl.total[r] > 0 && wl.flavor[r] >= 0) c.usage[fr(static_cast<std::uint32_t>(wl.flavor[r]), r)] += sign * wl.total[r];
}

bool Cache::workload_fits(const Request& req, std::uint32_t cq, bool allow_borrowing) const {
  // preemption.go workloadFits: for every requested flavor-resource, (allowBorrowing or not
  // cq.BorrowingWith(fr, v)) and v <= cq.Available(fr).
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (req.qty[r] <= 0) continue;
    const std::size_t f = fr(static_cast<std::uint32_t>(req.flavor[r]), r);
    if (!allow_borrowing && borrowing_with(cq, f, req.qty[r])) return false;
    if (req.qty[r] > available(cq, f)) return false;
  }
  return true;
}

bool Cache::is_borrowing(std::uint32_t cq, const Request& req) const {
  // preemption.go cqIsBorrowing: false without a cohort; else usage > nominal for one of
  // the flavor-resources that need preemption.
  const ClusterQueue& c = cqs_[cq];
  if (c.cohort < 0) return false;
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (!(req.needs & (1u << r))) continue;
    const std::size_t f = fr(static_cast<std::uint32_t>(req.flavor[r]), r);
    if (c.quota[f].covered && c.usage[f] > c.quota[f].spec.nominal) return true;
  }
  return false;
}

bool Cache::uses_resources(std::uint32_t candidate, const Request& req) const {
  // preemption.go workloadUsesResources.
  const Workload& wl = wls_[candidate];
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if ((req.needs & (1u << r)) && wl.total[r] > 0 && wl.flavor[r] == req.flavor[r]) return true;
  return false;
}

std::vector<std::uint32_t> Cache::minimal_preemptions(const Request& req, std::uint32_t cq,
                                                      const std::vector<std::uint32_t>& candidates,
                                                      bool allow_borrowing, const std::int32_t* borrow_below_priority) {
  // preemption.go minimalPreemptions (read in the v0.8 and v0.9 shapes; same logic): remove
  // candidates in order, skipping those of other queues that are no longer borrowing (in
  // the simulated usage), until the preemptor fits; a removed candidate of another queue
  // at or above allowBorrowingBelowPriority turns allowBorrowing off. If it never fits: no
  // targets. Then fillBackWorkloads: for i from len-2 down to 0, re-add targets[i]; if the
  // preemptor still fits, drop it (targets[i] = last; shrink), else remove it again. The
  // last target removed is never re-added.
  std::vector<std::uint32_t> targets;
  bool fits = false;
  for (const std::uint32_t cand : candidates) {
    const std::uint32_t ccq = wls_[cand].cq;
    if (ccq != cq && !is_borrowing(ccq, req)) continue;
    if (ccq != cq && borrow_below_priority && wls_[cand].priority >= *borrow_below_priority) allow_borrowing = false;
    add_usage(cand, -1);
    targets.push_back(cand);
    if (workload_fits(req, cq, allow_borrowing)) {
      fits = true;
      break;
    }
  }
  if (!fits) {
    for (const std::uint32_t t : targets) add_usage(t, +1);
    return {};
  }
  for (std::size_t i = targets.size() >= 2 ? targets.size() - 1 : 0; i-- > 0;) {
    add_usage(targets[i], +1);
    if (workload_fits(req, cq, allow_borrowing)) {
      targets[i] = targets.back();  // O(1) removal, as upstream
      targets.pop_back();
    } else {
      add_usage(targets[i], -1);
    }
  }
  for (const std::uint32_t t : targets) add_usage(t, +1);
  return targets;
}

std::vector<std::uint32_t> Cache::preemption_targets(std::uint32_t w, const Assignment& a) {
  // preemption.go GetTargets: the requests are the whole assignment (TotalRequestsFor), the
  // flavor-resources needing preemption those whose mode is Preempt.
  Request req;
  req.flavor = a.flavor;
  req.qty = wls_[w].total;
  req.needs = a.needs_preemption;
  return get_targets(w, req);
}

std::vector<std::uint32_t> Cache::get_targets(std::uint32_t w, const Request& req) {
  // preemption.go getTargets (kubernetes-sigs/kueue, the v0.8 shape with cq.Cohort.Members
  // and the v0.9 shape with cq.Parent().Root().SubtreeClusterQueues(); identical for flat
  // cohorts; fair sharing off).
  const Workload& wl = wls_[w];
  const std::uint32_t cq = wl.cq;
  const ClusterQueueSpec& spec = config_.cluster_queues[cq];
  const ClusterQueue& c = cqs_[cq];
  // findCandidates: within the queue per withinClusterQueue (LowerOrNewerEqualPriority also
  // takes equal priorities whose queue-order timestamp is after the preemptor's); from the
  // other members of the cohort that are borrowing (cqIsBorrowing) per reclaimWithinCohort
  // (LowerPriority: priority < the preemptor's; Any: every priority). Only workloads using
  // a flavor-resource that needs preemption.
  std::vector<std::uint32_t> candidates;
  if (spec.within_cluster_queue != Policy::kNever) {
    const bool same_prio = spec.within_cluster_queue == Policy::kLowerOrNewerEqualPriority;
    for (const std::uint32_t cand : c.admitted) {
      const Workload& cw = wls_[cand];
      if (cw.priority > wl.priority) continue;
      if (cw.priority == wl.priority && !(same_prio && wl.created < cw.created)) continue;
      if (!uses_resources(cand, req)) continue;
      candidates.push_back(cand);
    }
  }
  if (c.cohort >= 0 && spec.reclaim_within_cohort != Policy::kNever) {
    for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(c.cohort)]) {
      if (m == cq || !is_borrowing(m, req)) continue;  // only from queues that borrow
      for (const std::uint32_t cand : cqs_[m].admitted) {
        if (spec.reclaim_within_cohort == Policy::kLowerPriority && wls_[cand].priority >= wl.priority) continue;
        if (!uses_resources(cand, req)) continue;
        candidates.push_back(cand);
      }
    }
  }
  if (candidates.empty()) return {};
  // candidatesOrdering: evicted first, other queues first, lower priority first, most
  // recently admitted (QuotaReserved transition time) first, then UID.
  std::sort(candidates.begin(), candidates.end(), [&](std::uint32_t x, std::uint32_t y) {
    const Workload& a1 = wls_[x];
    const Workload& b1 = wls_[y];
    if (a1.evicted != b1.evicted) return a1.evicted;
    const bool ax = a1.cq != cq, bx = b1.cq != cq;
    if (ax != bx) return ax;
    if (a1.priority != b1.priority) return a1.priority < b1.priority;
    if (a1.admitted_at != b1.admitted_at) return a1.admitted_at > b1.admitted_at;
    return x < y;
  });
  std::vector<std::uint32_t> same_queue;
  for (const std::uint32_t cand : candidates)
    if (wls_[cand].cq == cq) same_queue.push_back(cand);
  // All candidates in the preemptor's queue: minimalPreemptions with borrowing.
  if (same_queue.size() == candidates.size()) return minimal_preemptions(req, cq, candidates, true, nullptr);
  bool under_nominal = true;  // queueUnderNominalInResourcesNeedingPreemption: usage < nominal
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (!(req.needs & (1u << r))) continue;
    const std::size_t f = fr(static_cast<std::uint32_t>(req.flavor[r]), r);
    if (c.usage[f] >= c.quota[f].spec.nominal) under_nominal = false;
  }
  if (spec.borrow_within_cohort != Policy::kNever) {
    // canBorrowWithinCohort: threshold = the preemptor's priority, or maxPriorityThreshold + 1
    // when that is lower. Not under nominal: only candidates of the own queue or strictly
    // below the threshold (candidatesFromCQOrUnderThreshold).
    std::int32_t threshold = wl.priority;
    if (spec.max_priority_threshold && *spec.max_priority_threshold < threshold) threshold = *spec.max_priority_threshold + 1;
    if (!under_nominal) {
      std::erase_if(candidates, [&](std::uint32_t x) { return wls_[x].cq != cq && wls_[x].priority >= threshold; });
    }
    return minimal_preemptions(req, cq, candidates, true, &threshold);
  }
  // Under nominal: try all candidates without borrowing; a non-empty result is returned.
  if (under_nominal) {
    auto targets = minimal_preemptions(req, cq, candidates, false, nullptr);
    if (!targets.empty()) return targets;
  }
  // Final attempt: own-queue candidates only, with borrowing.
  return minimal_preemptions(req, cq, same_queue, true, nullptr);
}

// ---- queues and cycles -------------------------------------------------------------------

bool Cache::before_in_queue(std::uint32_t a, std::uint32_t b) const {
  // cluster_queue_strict_fifo.go queueOrderingFunc (both strategies' heap): priority
  // (desc), then workload.Ordering GetQueueOrderTimestamp. That is the creationTimestamp
  // unless the workload was evicted by a PodsReady timeout with requeuingStrategy
  // timestamp Eviction (apis/config/v1beta1 defaults.go defaults it to Eviction, but only
  // inside waitForPodsReady, which is not modelled), evicted by an admission check (not
  // modelled), or PrioritySortingWithinCohort is off (it is on by default). A preempted
  // workload keeps its creation time (pkg/workload/workload.go).
  const Workload& x = wls_[a];
  const Workload& y = wls_[b];
  if (x.priority != y.priority) return x.priority > y.priority;
  if (x.created != y.created) return x.created < y.created;
  return a < b;
}

bool Cache::has_heads() const {
  for (const auto& c : cqs_)
    if (!c.pending.empty() && !c.tried) return true;
  return false;
}

void Cache::changed(std::uint32_t cq) {
  const std::int32_t cohort = cqs_[cq].cohort;
  if (cohort < 0) {
    cqs_[cq].tried = false;
    return;
  }
  for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(cohort)]) cqs_[m].tried = false;
}

void Cache::requeue_inadmissible(std::uint32_t cq) {
  // manager.go (v0.9) requeueWorkloadsCQ: every inadmissible workload of the queue's
  // cohort tree (or of the queue alone) goes back to its heap. Called
  // (QueueAssociatedInadmissibleWorkloadsAfter, workload_controller.go) when a workload
  // holding quota is deleted, finishes, or has its quota reservation unset (evicted ->
  // pending); ClusterQueue/cohort changes (QueueInadmissibleWorkloads) do not happen here.
  auto move = [&](std::uint32_t m) {
    ClusterQueue& c = cqs_[m];
    for (const std::uint32_t w : c.inadmissible) {
      wls_[w].state = State::kPending;
      c.pending.push_back(w);
    }
    c.inadmissible.clear();
  };
  const std::int32_t cohort = cqs_[cq].cohort;
  if (cohort < 0) {
    move(cq);
  } else {
    for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(cohort)]) move(m);
  }
  changed(cq);
}

void Cache::release(std::uint32_t w, bool finished) {
  Workload& wl = wls_[w];
  if (wl.state != State::kAdmitted) return;
  add_usage(w, -1);
  std::erase(cqs_[wl.cq].admitted, w);
  wl.evicted = false;
  if (finished) {
    wl.state = State::kDone;
  } else {
    // Eviction done: the quota reservation is unset and the workload queues again with
    // its creation timestamp.
    wl.state = State::kPending;
    wl.flavor.fill(-1);
    cqs_[wl.cq].pending.push_back(w);
  }
  requeue_inadmissible(wl.cq);
}

void Cache::remove_pending(std::uint32_t w) {
  Workload& wl = wls_[w];
  if (wl.state != State::kPending && wl.state != State::kInadmissible) return;
  std::erase(cqs_[wl.cq].pending, w);
  std::erase(cqs_[wl.cq].inadmissible, w);
  wl.state = State::kDone;
  cqs_[wl.cq].tried = false;
}

void Cache::cycle(SimTime now, CycleResult& out) {
  // scheduler.go schedule with MultiplePreemptions on (Beta and on by default in v0.9,
  // pkg/features/kube_features.go; CHANGELOG-0.9 "Graduated MultiplePreemptions to Beta").
  // Read: the v0.8 scheduler.go that holds both paths behind the gate (stored id
  // 2255040910); the v0.9 release file itself is not in the index. One head per
  // ClusterQueue (manager.go heads), all nominated against the state at the cycle's start
  // (one snapshot), sorted by entryOrdering, then processed in order against the snapshot,
  // which each processed entry updates.
  out.clear();
  nominate();
  snapshot_adds_.clear();
  if (preempted_.size() < wls_.size()) preempted_.resize(wls_.size(), 0);
  for (const Entry& e : entries_) process_entry(e, now, out);
  finish_cycle(out);
}

void Cache::nominate() {
  // manager.go Heads (one head per ClusterQueue), scheduler.go nominate, then
  // sort.Sort(entryOrdering).
  entries_.clear();
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    ClusterQueue& c = cqs_[i];
    if (c.pending.empty()) continue;
    auto head = c.pending.begin();
    for (auto it = c.pending.begin() + 1; it < c.pending.end(); ++it)
      if (before_in_queue(*it, *head)) head = it;
    const std::uint32_t w = *head;
    c.pending.erase(head);
    c.tried = false;
    entries_.push_back(Entry{w, {}, {}});
  }
  for (Entry& e : entries_) {
    ++nominations_;
    e.a = assign_flavors(e.w);
    if (e.a.mode == Mode::kPreempt) e.targets = preemption_targets(e.w, e.a);
  }
  // entryOrdering.Less: not borrowing first, then priority (PrioritySortingWithinCohort),
  // then the queue-order timestamp (sort.Sort: ties in no defined order; here by queue).
  std::stable_sort(entries_.begin(), entries_.end(), [&](const Entry& x, const Entry& y) {
    if (x.a.borrows != y.a.borrows) return !x.a.borrows;
    const Workload& a = wls_[x.w];
    const Workload& b = wls_[y.w];
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.created < b.created;
  });
}

void Cache::snapshot_add(std::uint32_t cq, std::size_t f, std::int64_t v) {
  cqs_[cq].usage[f] += v;  // cq.AddUsage on the cycle's snapshot
  snapshot_adds_.push_back(UsageDelta{cq, f, v});
}

void Cache::requeue(std::uint32_t w, bool immediate, std::uint64_t message, CycleResult& out) {
  // requeueAndUpdate -> manager.go RequeueWorkload -> cluster_queue.go
  // requeueIfNotPresent(immediate): BestEffortFIFO is immediate for the reasons
  // FailedAfterNomination (an entry skipped after nomination) and PendingPreemption;
  // StrictFIFO for every reason but NamespaceMismatch. Immediate: back into the heap
  // (where it is the head again); else into the inadmissible set.
  Workload& wl = wls_[w];
  ClusterQueue& c = cqs_[wl.cq];
  out.not_admitted.push_back(w);
  out.pending_message.push_back(message);
  if (immediate || config_.cluster_queues[wl.cq].strategy == QueueingStrategy::kStrictFIFO) {
    wl.state = State::kPending;
    c.pending.push_back(w);
    c.tried = true;  // the same head, nominated again, would meet the same state
  } else {
    wl.state = State::kInadmissible;
    c.inadmissible.push_back(w);
  }
}

void Cache::reserve_blocked_quota(const Entry& e) {
  // "requires preemption, but there are no candidate workloads": resourcesToReserve
  // blocks the quota it could use in the snapshot, so that entries after it cannot
  // take it: borrowing, up to the borrowing limit (min(v, N + BL - u); all of v
  // without a limit); not borrowing, max(0, min(v, N - u)).
  const Workload& wl = wls_[e.w];
  const ClusterQueue& c = cqs_[wl.cq];
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (wl.total[r] <= 0) continue;
    const std::size_t f = fr(static_cast<std::uint32_t>(e.a.flavor[r]), r);
    const ResourceQuotaSpec& q = c.quota[f].spec;
    std::int64_t v = wl.total[r];
    if (e.a.borrows) {
      if (q.borrowing_limit) v = std::min(v, q.nominal + *q.borrowing_limit - c.usage[f]);
    } else {
      v = std::max<std::int64_t>(0, std::min(v, q.nominal - c.usage[f]));
    }
    snapshot_add(wl.cq, f, v);
  }
}

void Cache::process_entry(const Entry& e, SimTime now, CycleResult& out) {
  // scheduler.go schedule's loop over the sorted entries.
  Workload& wl = wls_[e.w];
  const std::uint32_t cq = wl.cq;
  if (e.a.mode == Mode::kNoFit) {
    requeue(e.w, false, e.a.message, out);
    return;
  }
  if (e.a.mode == Mode::kPreempt && e.targets.empty()) {
    reserve_blocked_quota(e);
    requeue(e.w, false, e.a.message, out);  // RequeueReasonGeneric, not nominated
    return;
  }
  // "Workload has overlapping preemption targets with another workload": skipped.
  bool overlap = false;
  for (const std::uint32_t t : e.targets) overlap = overlap || preempted_[t] != 0;
  if (overlap) {
    requeue(e.w, true, fingerprint(kOverlapping, 0), out);
    return;
  }
  // netUsage: the request minus what the targets free on the same flavor-resources
  // (clamped at 0); cq.Fits(netUsage): Available >= it for each. That is workloadFits
  // with borrowing allowed: a slot with net 0 (nothing requested, or all of it freed by
  // the targets) always fits, as Available is never negative.
  Resources net = wl.total;
  if (e.a.mode != Mode::kFit) {
    for (const std::uint32_t t : e.targets)
      for (std::size_t r = 0; r < kMaxResources; ++r)
        if (net[r] > 0 && wls_[t].flavor[r] == e.a.flavor[r]) net[r] = std::max<std::int64_t>(0, net[r] - wls_[t].total[r]);
  }
  if (!workload_fits(Request{e.a.flavor, net, 0}, cq, true)) {
    requeue(e.w, true, fingerprint(kNoLongerFits, 0), out);  // "Workload no longer fits after processing another workload"
    return;
  }
  for (const std::uint32_t t : e.targets) preempted_[t] = 1;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (wl.total[r] > 0) snapshot_add(cq, fr(static_cast<std::uint32_t>(e.a.flavor[r]), r), net[r]);
  if (e.a.mode != Mode::kFit) {
    // Preemptor.IssuePreemptions: victims not already evicted get Evicted (Preempted);
    // the preemptor is requeued with RequeueReasonPendingPreemption (immediate).
    for (const std::uint32_t t : e.targets) {
      if (wls_[t].evicted) continue;
      wls_[t].evicted = true;
      out.evicted.push_back(t);
    }
    // ". Pending the preemption of N workload(s)": IssuePreemptions counts every target.
    requeue(e.w, true, e.a.message + fingerprint(kPendingPreemption, e.targets.size()), out);
    return;
  }
  // admit: quota reserved (cache.AssumeWorkload), written asynchronously.
  wl.state = State::kAdmitted;
  wl.flavor = e.a.flavor;
  wl.admitted_at = now;
  out.admitted.push_back(e.w);
}

void Cache::finish_cycle(const CycleResult& out) {
  // The snapshot is dropped; the cache holds the assumed workloads.
  for (const UsageDelta& d : snapshot_adds_) cqs_[d.cq].usage[d.fr] -= d.v;
  for (const Entry& e : entries_)
    for (const std::uint32_t t : e.targets) preempted_[t] = 0;
  for (const std::uint32_t w : out.admitted) {
    add_usage(w, +1);
    cqs_[wls_[w].cq].admitted.push_back(w);
    changed(wls_[w].cq);
  }
  // Upstream cycles run back to back (wait.UntilWithBackoff), so heads requeued at once
  // are nominated again. Here a queue whose head met an unchanged state waits (`tried`)
  // until its cohort changes; new evictions change the state (candidate ordering puts
  // evicted workloads first, and a skipped entry may now pick other targets), so the
  // cohort's heads are nominated once more.
  for (const std::uint32_t t : out.evicted) changed(wls_[t].cq);
}

}  // namespace kubesim::kueue

#include "sched/kueue/kueue_cache.hpp"

#include <algorithm>
#include <string>

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
  cycle_usage_.assign(cohorts_.size() * frs_, 0);
  cycle_has_.assign(cohorts_.size() * frs_, 0);
  skip_preemption_.assign(cohorts_.size(), 0);
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
  // clusterqueue.go guaranteedQuota: the part of the nominal quota not lent to the cohort.
  const Quota& q = c.quota[f];
  return q.covered && q.spec.lending_limit ? q.spec.nominal - *q.spec.lending_limit : 0;
}

std::int64_t Cache::requestable_cohort_quota(std::uint32_t cq, std::size_t f) const {
  // clusterqueue.go RequestableCohortQuota: what the cohort lends (lendingLimit, else the
  // nominal quota) plus this queue's guaranteed part.
  const ClusterQueue& c = cqs_[cq];
  if (c.cohort < 0) return c.quota[f].spec.nominal;
  std::int64_t sum = 0;
  for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(c.cohort)]) {
    const Quota& q = cqs_[m].quota[f];
    if (q.covered) sum += q.spec.lending_limit ? *q.spec.lending_limit : q.spec.nominal;
  }
  return sum + guaranteed(c, f);
}

std::int64_t Cache::used_cohort_quota(std::uint32_t cq, std::size_t f) const {
  // clusterqueue.go UsedCohortQuota: the members' usage above their guaranteed parts, plus
  // this queue's usage within its guaranteed part.
  const ClusterQueue& c = cqs_[cq];
  if (c.cohort < 0) return c.usage[f];
  std::int64_t sum = 0;
  for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(c.cohort)])
    sum += std::max<std::int64_t>(0, cqs_[m].usage[f] - guaranteed(cqs_[m], f));
  return sum + std::min(c.usage[f], guaranteed(c, f));
}

std::int64_t Cache::available(std::uint32_t cq, std::size_t f) const {
  // clusterqueue_snapshot.go Available.
  const ClusterQueue& c = cqs_[cq];
  const Quota& q = c.quota[f];
  if (!q.covered) return 0;
  if (c.cohort < 0) return std::max<std::int64_t>(0, q.spec.nominal - c.usage[f]);
  std::int64_t a = requestable_cohort_quota(cq, f) - used_cohort_quota(cq, f);
  if (q.spec.borrowing_limit) a = std::min(a, q.spec.nominal + *q.spec.borrowing_limit - c.usage[f]);
  return std::max<std::int64_t>(0, a);
}

Mode Cache::fits_resource_quota(std::uint32_t cq, std::size_t f, std::int64_t v, bool* borrow) const {
  // flavorassigner.go fitsResourceQuota (v0.8).
  const ClusterQueue& c = cqs_[cq];
  const ResourceQuotaSpec& q = c.quota[f].spec;
  const std::int64_t used = c.usage[f];
  Mode mode = Mode::kNoFit;
  *borrow = false;
  // "The request can be satisfied by the nominal quota, assuming quota is reclaimed from
  // the cohort or assuming all active workloads in the ClusterQueue are preempted."
  if (v <= q.nominal) mode = Mode::kPreempt;
  const std::int64_t cohort_available = c.cohort >= 0 ? requestable_cohort_quota(cq, f) : q.nominal;
  if (config_.cluster_queues[cq].borrow_within_cohort != Policy::kNever) {
    // canPreemptWhileBorrowing.
    if ((!q.borrowing_limit || v <= q.nominal + *q.borrowing_limit) && v <= cohort_available) {
      mode = Mode::kPreempt;
      *borrow = v > q.nominal;
    }
  }
  if (q.borrowing_limit && used + v > q.nominal + *q.borrowing_limit) return mode;  // "borrowing limit ... exceeded"
  const std::int64_t cohort_used = c.cohort >= 0 ? used_cohort_quota(cq, f) : used;
  if (cohort_used + v - cohort_available <= 0) {
    *borrow = used + v > q.nominal;
    return Mode::kFit;
  }
  return mode;
}

Cache::Assignment Cache::assign_flavors(std::uint32_t w) const {
  // flavorassigner.go Assign / assignFlavors / findFlavorForPodSetResource with the default
  // flavorFungibility (whenCanBorrow: Borrow, whenCanPreempt: TryNextFlavor): the flavors of
  // a resource group are tried in order; the first that fits (borrowing or not) is taken;
  // otherwise the first one that fits by preempting; otherwise NoFit. All requested
  // resources of a group get the same flavor.
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
    Mode best = Mode::kNoFit;
    std::int32_t best_flavor = -1;
    bool best_borrow = false;
    std::uint32_t best_needs = 0;
    for (const auto& fq : g.flavors) {
      Mode mode = Mode::kFit;
      bool borrow = false;
      std::uint32_t needs = 0;
      for (const auto s : g.covered) {
        if (!(group_requested & (1u << s))) continue;
        bool b = false;
        const Mode m = fits_resource_quota(wl.cq, fr(fq.flavor, s), wl.total[s], &b);
        if (m != Mode::kFit) needs |= 1u << s;
        mode = std::min(mode, m);
        borrow = borrow || b;
      }
      if (best_flavor < 0 || mode > best) {
        best = mode;
        best_flavor = static_cast<std::int32_t>(fq.flavor);
        best_borrow = borrow;
        best_needs = needs;
      }
      if (mode == Mode::kFit) break;  // whenCanBorrow: Borrow
    }
    for (const auto s : g.covered)
      if (group_requested & (1u << s)) res.flavor[s] = static_cast<std::int8_t>(best_flavor);
    res.mode = std::min(res.mode, best);
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

bool Cache::workload_fits(std::uint32_t w, const Assignment& a, std::uint32_t cq, bool allow_borrowing) const {
  // preemption.go workloadFits: every requested flavor-resource fits in Available, and
  // without borrowing when not allowed.
  const Workload& wl = wls_[w];
  const ClusterQueue& c = cqs_[cq];
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (wl.total[r] <= 0) continue;
    const std::size_t f = fr(static_cast<std::uint32_t>(a.flavor[r]), r);
    if (!allow_borrowing && c.usage[f] + wl.total[r] > c.quota[f].spec.nominal) return false;
    if (wl.total[r] > available(cq, f)) return false;
  }
  return true;
}

bool Cache::is_borrowing(std::uint32_t cq, const Assignment& a) const {
  // preemption.go cqIsBorrowing: over the flavor-resources that need preemption.
  const ClusterQueue& c = cqs_[cq];
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (!(a.needs_preemption & (1u << r))) continue;
    const std::size_t f = fr(static_cast<std::uint32_t>(a.flavor[r]), r);
    if (c.quota[f].covered && c.usage[f] > c.quota[f].spec.nominal) return true;
  }
  return false;
}

bool Cache::uses_resources(std::uint32_t candidate, const Assignment& a) const {
  // preemption.go workloadUsesResources.
  const Workload& wl = wls_[candidate];
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if ((a.needs_preemption & (1u << r)) && wl.total[r] > 0 && wl.flavor[r] == a.flavor[r]) return true;
  return false;
}

std::vector<std::uint32_t> Cache::minimal_preemptions(std::uint32_t w, const Assignment& a,
                                                      const std::vector<std::uint32_t>& candidates,
                                                      bool allow_borrowing, const std::int32_t* borrow_below_priority) {
  // preemption.go minimalPreemptions: remove candidates in order until the preemptor fits,
  // skipping those of other queues that stopped borrowing; then fillBackWorkloads re-adds
  // targets from the second-last down to the first while the preemptor still fits.
  const std::uint32_t cq = wls_[w].cq;
  std::vector<std::uint32_t> targets;
  bool fits = false;
  for (const std::uint32_t cand : candidates) {
    const std::uint32_t ccq = wls_[cand].cq;
    if (ccq != cq && !is_borrowing(ccq, a)) continue;
    if (ccq != cq && borrow_below_priority && wls_[cand].priority >= *borrow_below_priority) allow_borrowing = false;
    add_usage(cand, -1);
    targets.push_back(cand);
    if (workload_fits(w, a, cq, allow_borrowing)) {
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
    if (workload_fits(w, a, cq, allow_borrowing)) {
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
  const Workload& wl = wls_[w];
  const std::uint32_t cq = wl.cq;
  const ClusterQueueSpec& spec = config_.cluster_queues[cq];
  const ClusterQueue& c = cqs_[cq];
  // findCandidates.
  std::vector<std::uint32_t> candidates;
  if (spec.within_cluster_queue != Policy::kNever) {
    const bool same_prio = spec.within_cluster_queue == Policy::kLowerOrNewerEqualPriority;
    for (const std::uint32_t cand : c.admitted) {
      const Workload& cw = wls_[cand];
      if (cw.priority > wl.priority) continue;
      if (cw.priority == wl.priority && !(same_prio && wl.created < cw.created)) continue;
      if (!uses_resources(cand, a)) continue;
      candidates.push_back(cand);
    }
  }
  if (c.cohort >= 0 && spec.reclaim_within_cohort != Policy::kNever) {
    for (const std::uint32_t m : cohorts_[static_cast<std::size_t>(c.cohort)]) {
      if (m == cq || !is_borrowing(m, a)) continue;  // only from queues that borrow
      for (const std::uint32_t cand : cqs_[m].admitted) {
        if (spec.reclaim_within_cohort == Policy::kLowerPriority && wls_[cand].priority >= wl.priority) continue;
        if (!uses_resources(cand, a)) continue;
        candidates.push_back(cand);
      }
    }
  }
  if (candidates.empty()) return {};
  // CandidatesOrdering: evicted first, other queues first, lower priority first, most
  // recently admitted first, then UID.
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
  // GetTargets.
  if (same_queue.size() == candidates.size()) return minimal_preemptions(w, a, candidates, true, nullptr);
  bool under_nominal = true;  // queueUnderNominalInResourcesNeedingPreemption
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (!(a.needs_preemption & (1u << r))) continue;
    const std::size_t f = fr(static_cast<std::uint32_t>(a.flavor[r]), r);
    if (c.usage[f] >= c.quota[f].spec.nominal) under_nominal = false;
  }
  if (spec.borrow_within_cohort != Policy::kNever) {
    // canBorrowWithinCohort: candidates of other queues below the threshold priority.
    std::int32_t threshold = wl.priority;
    if (spec.max_priority_threshold && *spec.max_priority_threshold < threshold) threshold = *spec.max_priority_threshold + 1;
    if (!under_nominal) {
      std::erase_if(candidates, [&](std::uint32_t x) { return wls_[x].cq != cq && wls_[x].priority >= threshold; });
    }
    return minimal_preemptions(w, a, candidates, true, &threshold);
  }
  if (under_nominal) {
    auto targets = minimal_preemptions(w, a, candidates, false, nullptr);
    if (!targets.empty()) return targets;
  }
  return minimal_preemptions(w, a, same_queue, true, nullptr);
}

// ---- queues and cycles -------------------------------------------------------------------

bool Cache::before_in_queue(std::uint32_t a, std::uint32_t b) const {
  // queue Ordering: priority (desc), then the queue-order timestamp (creation time; the
  // Eviction timestamp applies only to PodsReadyTimeout evictions, not modelled).
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
  // manager.go QueueInadmissibleWorkloads for the queue's cohort (or the queue alone).
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
  // scheduler.go schedule: one head per ClusterQueue, nominated against the state at the
  // cycle's start, processed in entryOrdering.
  out.clear();
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
  // entryOrdering: not borrowing first, then priority (PrioritySortingWithinCohort), then
  // the queue-order timestamp.
  std::stable_sort(entries_.begin(), entries_.end(), [&](const Entry& x, const Entry& y) {
    if (x.a.borrows != y.a.borrows) return !x.a.borrows;
    const Workload& a = wls_[x.w];
    const Workload& b = wls_[y.w];
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.created < b.created;
  });
  std::fill(cycle_usage_.begin(), cycle_usage_.end(), 0);
  std::fill(cycle_has_.begin(), cycle_has_.end(), 0);
  std::fill(skip_preemption_.begin(), skip_preemption_.end(), 0);

  auto requeue = [&](std::uint32_t w, bool immediate) {
    // manager.go RequeueWorkload: StrictFIFO keeps the head in the heap; BestEffortFIFO
    // moves it to the inadmissible set unless the reason is immediate (skipped after
    // nomination, pending preemption).
    Workload& wl = wls_[w];
    ClusterQueue& c = cqs_[wl.cq];
    out.not_admitted.push_back(w);
    if (immediate || config_.cluster_queues[wl.cq].strategy == QueueingStrategy::kStrictFIFO) {
      wl.state = State::kPending;
      c.pending.push_back(w);
      c.tried = true;  // the same head, nominated again, would meet the same state
    } else {
      wl.state = State::kInadmissible;
      c.inadmissible.push_back(w);
    }
  };

  for (const Entry& e : entries_) {
    Workload& wl = wls_[e.w];
    const std::int32_t cohort = cqs_[wl.cq].cohort;
    if (e.a.mode == Mode::kNoFit) {
      requeue(e.w, false);
      continue;
    }
    if (cohort >= 0) {
      // "other workloads in the cohort were prioritized": an earlier entry of this cycle
      // used common flavor-resources and this one no longer fits in the cohort, or needs
      // preemption after a preemption in the cohort.
      const std::size_t base = static_cast<std::size_t>(cohort) * frs_;
      bool common = false, fits = true;
      for (std::size_t r = 0; r < kMaxResources; ++r) {
        if (wl.total[r] <= 0) continue;
        const std::size_t f = fr(static_cast<std::uint32_t>(e.a.flavor[r]), r);
        if (!cycle_has_[base + f]) continue;
        common = true;
        const std::int64_t sum = cycle_usage_[base + f] + wl.total[r];
        if (requestable_cohort_quota(wl.cq, f) - used_cohort_quota(wl.cq, f) < sum) fits = false;  // FitInCohort
      }
      if (common && ((e.a.mode == Mode::kFit && !fits) ||
                     (e.a.mode == Mode::kPreempt && skip_preemption_[static_cast<std::size_t>(cohort)]))) {
        requeue(e.w, true);
        continue;
      }
      for (std::size_t r = 0; r < kMaxResources; ++r) {
        if (wl.total[r] <= 0) continue;
        const std::size_t f = fr(static_cast<std::uint32_t>(e.a.flavor[r]), r);
        cycle_usage_[base + f] += wl.total[r];
        cycle_has_[base + f] = 1;
      }
    }
    if (e.a.mode != Mode::kFit) {
      if (!e.targets.empty()) {
        // Preemptor.IssuePreemptions: victims not already evicted get Evicted (Preempted).
        for (const std::uint32_t t : e.targets) {
          if (wls_[t].evicted) continue;
          wls_[t].evicted = true;
          out.evicted.push_back(t);
        }
        if (cohort >= 0) skip_preemption_[static_cast<std::size_t>(cohort)] = 1;
        requeue(e.w, true);  // RequeueReasonPendingPreemption
      } else {
        requeue(e.w, false);  // "no candidate workloads allowed for preemption"
      }
      continue;
    }
    wl.state = State::kAdmitted;
    wl.flavor = e.a.flavor;
    wl.admitted_at = now;
    out.admitted.push_back(e.w);
  }
  // cache.AssumeWorkload for every admitted entry, after the cycle's checks (which use the
  // snapshot taken at its start).
  for (const std::uint32_t w : out.admitted) {
    add_usage(w, +1);
    cqs_[wls_[w].cq].admitted.push_back(w);
    changed(wls_[w].cq);
  }
}

}  // namespace kubesim::kueue

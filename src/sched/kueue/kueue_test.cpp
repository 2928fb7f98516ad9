// Hand-computed Kueue cases (derived in docs/derivations/kueue.md from
// clusterqueue.go / clusterqueue_snapshot.go / flavorassigner.go / preemption.go /
// scheduler.go), on the decision core (Cache) with one resource (cpu, raw units) unless
// stated, and the config reader's messages.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sched/kueue/kueue_cache.hpp"
#include "sched/kueue/kueue_config.hpp"

namespace kubesim::kueue {
namespace {

ClusterQueueSpec cq(const std::string& name, std::int64_t nominal, std::optional<std::int64_t> borrowing = {},
                    std::optional<std::int64_t> lending = {}, std::string cohort = "c") {
  ClusterQueueSpec s;
  s.name = name;
  s.cohort = std::move(cohort);
  s.has_namespace_selector = true;
  ResourceGroup g;
  g.covered = {static_cast<std::uint8_t>(kCpu)};
  g.flavors.push_back(FlavorQuotas{0, {ResourceQuotaSpec{nominal, borrowing, lending}}});
  s.groups.push_back(g);
  return s;
}

Config config(std::vector<ClusterQueueSpec> cqs) {
  Config c;
  c.flavors = {"default-flavor"};
  c.cluster_queues = std::move(cqs);
  return c;
}

Resources cpu(std::int64_t v) {
  Resources r;
  r[kCpu] = v;
  return r;
}

SimTime t(int s) { return SimTime::at(Duration::seconds(s)); }
const std::size_t kFr = Cache::fr(0, kCpu);

// Runs cycles at `now` until no queue has an untried head; returns everything admitted.
std::vector<std::uint32_t> run(Cache& c, SimTime now, std::vector<std::uint32_t>* evicted = nullptr) {
  std::vector<std::uint32_t> admitted;
  Cache::CycleResult r;
  while (c.has_heads()) {
    c.cycle(now, r);
    admitted.insert(admitted.end(), r.admitted.begin(), r.admitted.end());
    if (evicted) evicted->insert(evicted->end(), r.evicted.begin(), r.evicted.end());
  }
  return admitted;
}

// Case 1: cohort {A: N=10, B: N=6, C: N=0}; u_A = 12, u_B = 2. Cohort free = 16 - 14 = 2.
TEST(KueueQuota, AvailableWithBorrowingLimit) {
  for (const bool limit : {false, true}) {
    Cache c(config({cq("A", 10, limit ? std::optional<std::int64_t>(3) : std::nullopt), cq("B", 6), cq("C", 0)}));
    c.add_workload(JobId(0), 0, 0, t(0), cpu(12));
    c.add_workload(JobId(1), 1, 0, t(0), cpu(2));
    // Cycle 1: B's entry (not borrowing) goes first; A's (borrowing) shares cpu with it and
    // 2 + 12 = 14 <= 16 still fits the cohort: both admitted.
    EXPECT_EQ(run(c, t(1)).size(), 2u);
    EXPECT_EQ(c.usage(0, 0, kCpu), 12);
    // A: min(2, inf) = 2; with borrowingLimit 3: min(2, 10 + 3 - 12) = 1.
    EXPECT_EQ(c.available(0, kFr), limit ? 1 : 2);
    // B: 2, although 4 under its nominal quota (A borrowed it).
    EXPECT_EQ(c.available(1, kFr), 2);
    EXPECT_EQ(c.available(2, kFr), 2);
  }
}

// Case 2: lendingLimit L_B = 2 => g_B = 4; Requestable = 10 + 2 + 0 = 12.
TEST(KueueQuota, LendingLimit) {
  Cache c(config({cq("A", 10), cq("B", 6, std::nullopt, 2), cq("C", 0)}));
  const auto a = c.add_workload(JobId(0), 0, 0, t(0), cpu(12));
  const auto b = c.add_workload(JobId(1), 1, 0, t(0), cpu(2));
  EXPECT_EQ(c.requestable_cohort_quota(0, kFr), 12);
  EXPECT_EQ(c.requestable_cohort_quota(1, kFr), 16);
  Cache::CycleResult r;
  // One cycle, v0.9 MultiplePreemptions path: B (not borrowing) first and admitted; the
  // snapshot then holds u_B = 2, within g_B = 4, so A's view is unchanged: Available(A) =
  // 12 - (max(0,0-0) + max(0,2-4) + 0) - min(0,0) = 12 >= 12 -> A admitted too. (The legacy
  // path's FitInCohort summed the cycle's usage, 2 + 12 > 12, and skipped A.)
  c.cycle(t(1), r);
  ASSERT_EQ(r.admitted, (std::vector<std::uint32_t>{b, a}));
  // Usage(cohort) = 12 + 0 + 0 = 12. A: 12 - 12 = 0 (it can borrow only 2 of B's 6).
  EXPECT_EQ(c.used_cohort_quota(0, kFr), 12);
  EXPECT_EQ(c.available(0, kFr), 0);
  // B: Requestable 16, Used 12 + min(2, 4) = 14 -> 2.
  EXPECT_EQ(c.used_cohort_quota(1, kFr), 14);
  EXPECT_EQ(c.available(1, kFr), 2);
}

// A borrowing limit turns a request that would exceed it into Preempt (v <= nominal) or
// NoFit (v > nominal); within the limit it fits, borrowing.
TEST(KueueQuota, BorrowingLimitModes) {
  Cache c(config({cq("A", 10, 2), cq("B", 10)}));
  c.add_workload(JobId(0), 0, 0, t(0), cpu(10));
  run(c, t(1));
  const auto w3 = c.add_workload(JobId(1), 0, 0, t(2), cpu(3));
  const auto w2 = c.add_workload(JobId(2), 0, 0, t(2), cpu(2));
  const auto w11 = c.add_workload(JobId(3), 0, 0, t(2), cpu(11));
  EXPECT_EQ(c.assign_flavors(w3).mode, Mode::kPreempt);  // 10 + 3 > 12, 3 <= N
  const auto a2 = c.assign_flavors(w2);
  EXPECT_EQ(a2.mode, Mode::kFit);  // 12 <= 12
  EXPECT_TRUE(a2.borrows);
  EXPECT_EQ(c.assign_flavors(w11).mode, Mode::kNoFit);  // 11 > N and > N + B - u
}

// Case 3: reclaimWithinCohort Any. u_A = 14 as a1 (4, admitted t=1), a2 (4, t=2), a3 (6,
// t=3); u_B = 2; B submits w (4): candidates newest first a3, a2, a1; B is under nominal,
// so minimalPreemptions without borrowing: removing a3 leaves u_A = 8 and B fits (2 + 4 <=
// 6, 16 - 10 >= 4). Targets [a3].
TEST(KueuePreemption, ReclaimWithinCohort) {
  auto b = cq("B", 6);
  b.reclaim_within_cohort = Policy::kAny;
  Cache c(config({cq("A", 10), b, cq("C", 0)}));
  const auto a1 = c.add_workload(JobId(0), 0, 0, t(0), cpu(4));
  run(c, t(1));
  const auto a2 = c.add_workload(JobId(1), 0, 0, t(0), cpu(4));
  run(c, t(2));
  const auto a3 = c.add_workload(JobId(2), 0, 0, t(0), cpu(6));
  c.add_workload(JobId(3), 1, 0, t(0), cpu(2));
  EXPECT_EQ(run(c, t(3)).size(), 2u);
  EXPECT_EQ(c.usage(0, 0, kCpu), 14);
  const auto w = c.add_workload(JobId(4), 1, 0, t(4), cpu(4));
  const auto asg = c.assign_flavors(w);
  EXPECT_EQ(asg.mode, Mode::kPreempt);  // Available(B) = 0, 4 <= N_B
  EXPECT_EQ(c.preemption_targets(w, asg), std::vector<std::uint32_t>{a3});
  EXPECT_EQ(c.usage(0, 0, kCpu), 14);  // the simulation restored the usage
  std::vector<std::uint32_t> evicted;
  EXPECT_TRUE(run(c, t(4), &evicted).empty());  // w waits for the eviction
  EXPECT_EQ(evicted, std::vector<std::uint32_t>{a3});
  EXPECT_FALSE(c.has_heads());  // pending preemption: nothing new until quota is released
  // The eviction completes: a3 queues again in A. Next cycle: w (not borrowing) first and
  // admitted; a3 (6, borrowing) no longer fits after it (4 + 6 > 16 - 10): skipped and
  // requeued at once. The next cycle nominates it again: Available(A) = 16 - 14 = 2 < 6,
  // 6 <= N_A -> Preempt, but A may not preempt (no policy) -> inadmissible (BestEffortFIFO).
  c.release(a3, false);
  EXPECT_EQ(run(c, t(5)), std::vector<std::uint32_t>{w});
  EXPECT_EQ(c.workload(a3).state, Cache::State::kInadmissible);
  (void)a1;
  (void)a2;
}

// Case 4: withinClusterQueue LowerPriority, A alone (N = 10): x (prio 0, 6), y (prio -1, 4).
TEST(KueuePreemption, WithinClusterQueueLowerPriority) {
  auto a = cq("A", 10, std::nullopt, std::nullopt, "");
  a.within_cluster_queue = Policy::kLowerPriority;
  Cache c(config({a}));
  c.add_workload(JobId(0), 0, 0, t(0), cpu(6));
  const auto y = c.add_workload(JobId(1), 0, -1, t(0), cpu(4));
  EXPECT_EQ(run(c, t(1)).size(), 2u);
  // z prio 5: candidates y (-1) then x (0); removing y frees 4 -> [y]. Prio 0: only y -> [y].
  for (const int prio : {5, 0}) {
    const auto z = c.add_workload(JobId(2 + static_cast<std::uint32_t>(prio)), 0, prio, t(2), cpu(4));
    const auto asg = c.assign_flavors(z);
    EXPECT_EQ(asg.mode, Mode::kPreempt);
    EXPECT_EQ(c.preemption_targets(z, asg), std::vector<std::uint32_t>{y}) << prio;
    c.remove_pending(z);
  }
  // Prio -1: no candidate.
  const auto z = c.add_workload(JobId(9), 0, -1, t(2), cpu(4));
  EXPECT_TRUE(c.preemption_targets(z, c.assign_flavors(z)).empty());
  // z prio 5 needing 8: y alone frees 4 (not enough), y then x frees 10; fill back re-adds
  // nothing before x... targets from the second-last (y) down: with y back u = 4, 4 + 8 > 10
  // -> y stays. Targets [y, x].
  const auto big = c.add_workload(JobId(10), 0, 5, t(3), cpu(8));
  auto targets = c.preemption_targets(big, c.assign_flavors(big));
  std::sort(targets.begin(), targets.end());
  EXPECT_EQ(targets, (std::vector<std::uint32_t>{0, y}));
}

// LowerOrNewerEqualPriority: an equal-priority workload is a candidate only if it is newer.
TEST(KueuePreemption, LowerOrNewerEqualPriority) {
  auto a = cq("A", 10, std::nullopt, std::nullopt, "");
  a.within_cluster_queue = Policy::kLowerOrNewerEqualPriority;
  Cache c(config({a}));
  const auto newer = c.add_workload(JobId(0), 0, 0, t(5), cpu(10));
  run(c, t(5));
  const auto older = c.add_workload(JobId(1), 0, 0, t(1), cpu(4));
  EXPECT_EQ(c.preemption_targets(older, c.assign_flavors(older)), std::vector<std::uint32_t>{newer});
  const auto newest = c.add_workload(JobId(2), 0, 0, t(9), cpu(4));
  EXPECT_TRUE(c.preemption_targets(newest, c.assign_flavors(newest)).empty());
}

// Case 5: A alone, N = 10, u = 4; h1 (8, t=1), h2 (4, t=2); no preemption.
TEST(KueueQueueing, BestEffortVersusStrictFIFO) {
  for (const auto strategy : {QueueingStrategy::kBestEffortFIFO, QueueingStrategy::kStrictFIFO}) {
    auto a = cq("A", 10, std::nullopt, std::nullopt, "");
    a.strategy = strategy;
    Cache c(config({a}));
    const auto u = c.add_workload(JobId(0), 0, 0, t(0), cpu(4));
    run(c, t(0));
    const auto h1 = c.add_workload(JobId(1), 0, 0, t(1), cpu(8));
    const auto h2 = c.add_workload(JobId(2), 0, 0, t(2), cpu(4));
    const auto admitted = run(c, t(3));
    if (strategy == QueueingStrategy::kBestEffortFIFO) {
      // h1 does not fit (8 > 6) -> inadmissible; h2 becomes the head and fits.
      EXPECT_EQ(admitted, std::vector<std::uint32_t>{h2});
      EXPECT_EQ(c.workload(h1).state, Cache::State::kInadmissible);
      // Both running workloads finish: h1 is requeued and admitted.
      c.release(u, true);
      c.release(h2, true);
      EXPECT_EQ(run(c, t(4)), std::vector<std::uint32_t>{h1});
    } else {
      // h1 stays the head: h2 is not admitted.
      EXPECT_TRUE(admitted.empty());
      EXPECT_EQ(c.workload(h2).state, Cache::State::kPending);
      // u finishes: h1 (8 <= 10) admitted; h2 (4) no longer fits (8 + 4 > 10).
      c.release(u, true);
      EXPECT_EQ(run(c, t(4)), std::vector<std::uint32_t>{h1});
      EXPECT_EQ(c.workload(h2).state, Cache::State::kPending);
    }
  }
}

// The Pending condition's message (scheduler.go requeueAndUpdate patches it when it changes)
// names the quota missing (flavorassigner.go fitsResourceQuota: "N more needed"). A alone,
// N = 10; u (6) and z (1) admitted; h (8): 8 - 3 = 5 more needed. z finishes, h is requeued:
// 4 more needed. x (1) and y (1) admitted, y finishes: 5 more needed again, the first message.
TEST(KueueQueueing, PendingMessageNamesTheQuotaMissing) {
  Cache c(config({cq("A", 10, std::nullopt, std::nullopt, "")}));
  c.add_workload(JobId(0), 0, 0, t(0), cpu(6));
  const auto z = c.add_workload(JobId(1), 0, 0, t(0), cpu(1));
  run(c, t(0));
  const auto h = c.add_workload(JobId(2), 0, 0, t(1), cpu(8));
  Cache::CycleResult r;
  const auto pending = [&](SimTime now) {
    c.cycle(now, r);
    EXPECT_EQ(r.not_admitted, std::vector<std::uint32_t>{h});
    return r.pending_message.size() == 1 ? r.pending_message[0] : 0;
  };
  const std::uint64_t five_more = pending(t(1));
  c.release(z, true);
  EXPECT_NE(pending(t(2)), five_more);
  c.add_workload(JobId(3), 0, 0, t(3), cpu(1));
  const auto y = c.add_workload(JobId(4), 0, 0, t(3), cpu(1));
  EXPECT_EQ(run(c, t(3)).size(), 2u);
  c.release(y, true);
  EXPECT_EQ(pending(t(4)), five_more);
}

// Case 6: entries that do not borrow go first, before priority and age.
TEST(KueueQueueing, NonBorrowingFirstInACycle) {
  Cache c(config({cq("A", 4), cq("B", 4)}));
  const auto wa = c.add_workload(JobId(0), 0, 100, t(0), cpu(6));  // borrows 2, older, higher priority
  const auto wb = c.add_workload(JobId(1), 1, 0, t(1), cpu(4));    // within B's nominal
  Cache::CycleResult r;
  c.cycle(t(2), r);
  // w_b admitted first; w_a: 4 + 6 > 8 in the cohort -> skipped.
  EXPECT_EQ(r.admitted, std::vector<std::uint32_t>{wb});
  EXPECT_EQ(c.workload(wa).state, Cache::State::kPending);
  // Within a queue: priority, then creation time.
  Cache d(config({cq("A", 4, std::nullopt, std::nullopt, "")}));
  d.add_workload(JobId(0), 0, 0, t(0), cpu(4));
  const auto hi = d.add_workload(JobId(1), 0, 5, t(1), cpu(4));
  d.cycle(t(2), r);
  EXPECT_EQ(r.admitted, std::vector<std::uint32_t>{hi});
}

// Flavors are tried in order; the first that fits is taken.
TEST(KueueFlavors, FirstFlavorThatFits) {
  Config cfg;
  cfg.flavors = {"small", "big"};
  ClusterQueueSpec s;
  s.name = "A";
  s.has_namespace_selector = true;
  ResourceGroup g;
  g.covered = {static_cast<std::uint8_t>(kCpu)};
  g.flavors.push_back(FlavorQuotas{0, {ResourceQuotaSpec{4, {}, {}}}});
  g.flavors.push_back(FlavorQuotas{1, {ResourceQuotaSpec{8, {}, {}}}});
  s.groups.push_back(g);
  cfg.cluster_queues = {s};
  Cache c(cfg);
  const auto w6 = c.add_workload(JobId(0), 0, 0, t(0), cpu(6));
  const auto w3 = c.add_workload(JobId(1), 0, 0, t(0), cpu(3));
  EXPECT_EQ(c.assign_flavors(w6).flavor[kCpu], 1);  // 6 > 4 on "small"
  EXPECT_EQ(c.assign_flavors(w3).flavor[kCpu], 0);
  // A resource no group covers: NoFit.
  Resources mem = cpu(1);
  mem[kMemory] = 1;
  const auto wm = c.add_workload(JobId(2), 0, 0, t(0), mem);
  EXPECT_EQ(c.assign_flavors(wm).mode, Mode::kNoFit);
}

// flavorassigner.go (v0.9) fitsResourceQuota with resource_node.go potentialAvailable.
// Cohort {A: N=4, borrowingLimit 2; B: N=10}: PotentialAvailable(A) = min(0 + (4 + 10),
// 4 + 2) = 6; alone (no cohort) it is the nominal quota.
TEST(KueueQuota, PotentialAvailableBoundsTheRequest) {
  for (const bool bwc : {false, true}) {
    auto a = cq("A", 4, 2);
    if (bwc) {
      a.reclaim_within_cohort = Policy::kAny;
      a.borrow_within_cohort = Policy::kLowerPriority;
    }
    Cache c(config({a, cq("B", 10), cq("D", 4, std::nullopt, std::nullopt, "")}));
    EXPECT_EQ(c.potential_available(0, kFr), 6);
    EXPECT_EQ(c.potential_available(1, kFr), 14);
    EXPECT_EQ(c.potential_available(2, kFr), 4);
    // 7 > 6: NoFit ("request > maximum capacity") whatever the policies.
    const auto w7 = c.add_workload(JobId(0), 0, 0, t(0), cpu(7));
    EXPECT_EQ(c.assign_flavors(w7).mode, Mode::kNoFit);
    // 6 <= Available(A) = min(14 - 0, 4 + 2 - 0) = 6: Fit, borrowing (0 + 6 > 4).
    const auto w6 = c.add_workload(JobId(1), 0, 0, t(0), cpu(6));
    const auto a6 = c.assign_flavors(w6);
    EXPECT_EQ(a6.mode, Mode::kFit);
    EXPECT_TRUE(a6.borrows);
    c.remove_pending(w6);
    c.remove_pending(w7);
    // u_A = 3: a request of 5 has Available = min(14 - 3, 6 - 3) = 3 < 5 and 5 > N = 4:
    // NoFit, unless borrowWithinCohort is enabled (canPreemptWhileBorrowing) -> Preempt.
    c.add_workload(JobId(2), 0, 0, t(0), cpu(3));
    EXPECT_EQ(run(c, t(1)).size(), 1u);
    const auto w5 = c.add_workload(JobId(3), 0, 0, t(2), cpu(5));
    EXPECT_EQ(c.assign_flavors(w5).mode, bwc ? Mode::kPreempt : Mode::kNoFit);
  }
}

// v0.9 fitsResourceQuota computes borrow = BorrowingWith(fr, v) && HasParent for every
// mode, so a Preempt assignment borrows when u + v > N (it orders after non-borrowing
// entries, and reserves up to the borrowing limit). Cohort {A: 10, B: 10}; u_A = 6,
// u_B = 14: a request of 5 in A: Available = 20 - 20 = 0 < 5 <= 10 -> Preempt; 6 + 5 > 10.
TEST(KueueQuota, PreemptAssignmentBorrows) {
  Cache c(config({cq("A", 10), cq("B", 10)}));
  c.add_workload(JobId(0), 0, 0, t(0), cpu(6));
  c.add_workload(JobId(1), 1, 0, t(0), cpu(14));
  EXPECT_EQ(run(c, t(1)).size(), 2u);
  const auto w = c.add_workload(JobId(2), 0, 0, t(2), cpu(5));
  const auto a = c.assign_flavors(w);
  EXPECT_EQ(a.mode, Mode::kPreempt);
  EXPECT_TRUE(a.borrows);
  // 4 would not borrow (6 + 4 <= 10).
  const auto w4 = c.add_workload(JobId(3), 0, 0, t(2), cpu(4));
  EXPECT_FALSE(c.assign_flavors(w4).borrows);
}

// scheduler.go, MultiplePreemptions path: an entry in Preempt mode without candidates
// reserves quota in the cycle's snapshot (resourcesToReserve; not borrowing: max(0, min(v,
// N - u))), so a later entry of the cohort cannot take it. Cohort {A: 10, B: 10}; u_A = 4,
// u_B = 12 (B borrows 2). w_a (6, A): Available(A) = 20 - 16 = 4 < 6 <= 10 -> Preempt,
// no policy -> no candidates; reserves min(6, 10 - 4) = 6. w_b (2, B): Fit at nomination
// (Available(B) = 4), but it borrows (12 + 2 > 10) so it comes after w_a, and then
// Available(B) = 20 - (4 + 6 + 12) < 0 -> "no longer fits": skipped, not admitted.
TEST(KueueCycle, PreemptWithoutCandidatesReservesQuota) {
  Cache c(config({cq("A", 10), cq("B", 10)}));
  c.add_workload(JobId(0), 0, 0, t(0), cpu(4));
  c.add_workload(JobId(1), 1, 0, t(0), cpu(12));
  EXPECT_EQ(run(c, t(1)).size(), 2u);
  const auto wa = c.add_workload(JobId(2), 0, 0, t(2), cpu(6));
  const auto wb = c.add_workload(JobId(3), 1, 0, t(3), cpu(2));
  EXPECT_EQ(c.assign_flavors(wa).mode, Mode::kPreempt);
  EXPECT_EQ(c.assign_flavors(wb).mode, Mode::kFit);
  EXPECT_TRUE(run(c, t(4)).empty());
  EXPECT_EQ(c.workload(wa).state, Cache::State::kInadmissible);  // BestEffortFIFO, generic reason
  EXPECT_EQ(c.workload(wb).state, Cache::State::kPending);       // skipped: requeued at once
  EXPECT_EQ(c.usage(0, 0, kCpu), 4);                             // the snapshot's reservation is gone
}

// scheduler.go, MultiplePreemptions path: two preemptors choosing the same victim in one
// cycle: the second is skipped ("overlapping preemption targets"), the victim is evicted
// once. Cohort {A: 5, B: 5, C: 0}; c1 (10) in C borrows everything. w_a (5, A, t=2) and
// w_b (5, B, t=3), reclaimWithinCohort Any: Available = 0 < 5 <= 5 -> Preempt, targets [c1]
// each. Order: neither borrows, same priority, w_a older. After c1's eviction completes
// both fit (5 + 5 <= 10).
TEST(KueueCycle, OverlappingTargetsSkipTheSecondPreemptor) {
  auto a = cq("A", 5);
  a.reclaim_within_cohort = Policy::kAny;
  auto b = cq("B", 5);
  b.reclaim_within_cohort = Policy::kAny;
  Cache c(config({a, b, cq("C", 0)}));
  const auto c1 = c.add_workload(JobId(0), 2, 0, t(0), cpu(10));
  EXPECT_EQ(run(c, t(1)).size(), 1u);
  const auto wa = c.add_workload(JobId(1), 0, 0, t(2), cpu(5));
  const auto wb = c.add_workload(JobId(2), 1, 0, t(3), cpu(5));
  std::vector<std::uint32_t> evicted;
  Cache::CycleResult r;
  c.cycle(t(4), r);
  EXPECT_EQ(r.evicted, std::vector<std::uint32_t>{c1});
  EXPECT_EQ(r.not_admitted, (std::vector<std::uint32_t>{wa, wb}));
  // Later cycles of the same instant re-nominate both against c1 (already evicted): nothing
  // new is evicted.
  EXPECT_TRUE(run(c, t(4), &evicted).empty());
  EXPECT_TRUE(evicted.empty());
  c.release(c1, false);
  auto admitted = run(c, t(5));
  std::sort(admitted.begin(), admitted.end());
  EXPECT_EQ(admitted, (std::vector<std::uint32_t>{wa, wb}));
}

// flavorassigner.go (v0.9, granularMode) with preemption_oracle.go IsReclaimPossible: among
// flavors that need preemption, one where the queue can reclaim quota it lent (no target
// in its own queue) beats one where it would preempt its own workloads, although tried
// later. A: f0 N=4, f1 N=4, reclaimWithinCohort Any; B: f0 N=0, f1 N=0. x (4) fills A's
// f0; y (4) in B: f0 NoFit (0 available, 4 > N_B = 0), f1 Fit (borrows A's 4). w (4) in A:
// f0: 4 + 4 > 4 -> not reclaim, preempt; f1: 0 + 4 <= 4 and getTargets -> [y] (B's) ->
// reclaim. w gets f1 and targets [y].
TEST(KueueFlavors, ReclaimBeatsPreemptAcrossFlavors) {
  Config cfg;
  cfg.flavors = {"f0", "f1"};
  auto two = [](const std::string& name, std::int64_t n) {
    ClusterQueueSpec s;
    s.name = name;
    s.cohort = "c";
    s.has_namespace_selector = true;
    ResourceGroup g;
    g.covered = {static_cast<std::uint8_t>(kCpu)};
    g.flavors.push_back(FlavorQuotas{0, {ResourceQuotaSpec{n, {}, {}}}});
    g.flavors.push_back(FlavorQuotas{1, {ResourceQuotaSpec{n, {}, {}}}});
    s.groups.push_back(g);
    return s;
  };
  auto a = two("A", 4);
  a.reclaim_within_cohort = Policy::kAny;
  cfg.cluster_queues = {a, two("B", 0)};
  Cache c(cfg);
  const auto x = c.add_workload(JobId(0), 0, 0, t(0), cpu(4));
  EXPECT_EQ(run(c, t(1)).size(), 1u);
  EXPECT_EQ(c.workload(x).flavor[kCpu], 0);
  const auto y = c.add_workload(JobId(1), 1, 0, t(1), cpu(4));
  EXPECT_EQ(run(c, t(2)).size(), 1u);
  EXPECT_EQ(c.workload(y).flavor[kCpu], 1);
  const auto w = c.add_workload(JobId(2), 0, 0, t(3), cpu(4));
  const auto asg = c.assign_flavors(w);
  EXPECT_EQ(asg.mode, Mode::kPreempt);
  EXPECT_EQ(asg.flavor[kCpu], 1);
  EXPECT_EQ(c.preemption_targets(w, asg), std::vector<std::uint32_t>{y});
}

TEST(KueueConfig, ReadsObjectsAndNamesFileLine) {
  ResourceNames names;
  const std::string text =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n---\n"
      "kind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  cohort: all\n  namespaceSelector: {}\n"
      "  queueingStrategy: StrictFIFO\n  preemption: {reclaimWithinCohort: Any, borrowWithinCohort: {policy: "
      "LowerPriority, maxPriorityThreshold: 10}}\n"
      "  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n    - name: f\n      resources:\n"
      "      - {name: cpu, nominalQuota: 1500m, borrowingLimit: 2}\n      - {name: memory, nominalQuota: 1Gi, "
      "lendingLimit: 1Mi}\n---\n"
      "kind: LocalQueue\nmetadata: {name: lq, namespace: ns1}\nspec: {clusterQueue: cq}\n";
  const Config c = parse_config(text, "k.yaml", names);
  ASSERT_EQ(c.cluster_queues.size(), 1u);
  const auto& q = c.cluster_queues[0];
  EXPECT_EQ(q.strategy, QueueingStrategy::kStrictFIFO);
  EXPECT_EQ(q.borrow_within_cohort, Policy::kLowerPriority);
  EXPECT_EQ(*q.max_priority_threshold, 10);
  EXPECT_EQ(q.groups[0].flavors[0].resources[0].nominal, 1500);
  EXPECT_EQ(*q.groups[0].flavors[0].resources[0].borrowing_limit, 2000);
  EXPECT_EQ(q.groups[0].flavors[0].resources[1].nominal, 1024LL * 1024 * 1024);
  EXPECT_EQ(c.local_queues[0].ns, "ns1");
  try {
    parse_config("kind: ResourceFlavor\nmetadata: {name: f}\n---\nkind: LocalQueue\nmetadata: {name: lq, namespace: n}\n"
                 "spec: {clusterQueue: nope}\n---\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {}\n",
                 "k.yaml", names);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "k.yaml:6: no ClusterQueue named \"nope\"");
  }
  try {
    parse_config("kind: Cohort\nmetadata: {name: x}\n", "k.yaml", names);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k.yaml:1: unsupported kind \"Cohort\""), std::string::npos);
  }
  // Hardening (issue 16): a node of the wrong kind once escaped as yaml-cpp's bare message
  // (exit 1, no file or line).
  try {
    parse_config("kind: ResourceFlavor\nmetadata: {name: f}\n---\nkind: {a: b}\nmetadata: {name: cq}\n", "k.yaml", names);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k.yaml:4:"), std::string::npos) << e.what();
  }
}

// The pod integration (defaults.go): off unless integrations.frameworks lists "pod"; the
// pod webhook skips kube-system and the manager's namespace unless podOptions says otherwise.
TEST(KueueConfig, PodIntegrationAndItsNamespaces) {
  ResourceNames names;
  const std::string objects =
      "kind: ResourceFlavor\nmetadata: {name: f}\n---\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {}\n---\n";
  const Config off = parse_config(objects + "kind: Configuration\nintegrations: {frameworks: [batch/job]}\n", "k.yaml", names);
  EXPECT_FALSE(off.pod_integration);
  const Config on = parse_config(
      objects + "kind: Configuration\nnamespace: queues\nintegrations: {frameworks: [batch/job, pod]}\n", "k.yaml", names);
  EXPECT_TRUE(on.pod_integration);
  const auto ns = [](const char* name) { return Labels{{"kubernetes.io/metadata.name", name}}; };
  EXPECT_FALSE(on.pod_namespace_selector.matches(ns("kube-system")));
  EXPECT_FALSE(on.pod_namespace_selector.matches(ns("queues")));
  EXPECT_TRUE(on.pod_namespace_selector.matches(ns("kueue-system")));
  EXPECT_TRUE(on.pod_namespace_selector.matches(ns("bsp")));
  const Config only = parse_config(objects +
                                       "kind: Configuration\nintegrations:\n  frameworks: [pod]\n  podOptions:\n"
                                       "    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: bsp}}\n",
                                   "k.yaml", names);
  EXPECT_TRUE(only.pod_namespace_selector.matches(ns("bsp")));
  EXPECT_FALSE(only.pod_namespace_selector.matches(ns("tenant1")));
  try {
    parse_config(objects + "kind: Configuration\nintegrations: {podOptions: {nodeSelector: {}}}\n", "k.yaml", names);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "k.yaml:9: unknown key \"nodeSelector\" in integrations.podOptions (expected one of: namespaceSelector, "
              "podSelector)");
  }
}

}  // namespace
}  // namespace kubesim::kueue

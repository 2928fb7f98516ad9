// Hand-checked whole-simulation tests of the batch semantics: ResourceQuota admission and
// the Job controller's retries, Job back-off, preemption with graceful termination, node
// failure, drain with a PodDisruptionBudget, and run-to-run determinism.
//
// Every case uses the ideal latency model (ModelConfig::ideal(): watch, scheduling, binding,
// start-up, status and PLEG delays all zero) so every time is exact, and each expectation is
// derived by hand from the upstream rules (docs/derivations/job-quota.md, and the head
// comments of src/control/*.hpp) in the comment above the assertion. Pod names come from the
// seeded generator and are only checked by prefix.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "core/test_paths.hpp"
#include "engine/simulation.hpp"
#include "scenario/scenario.hpp"
#include "testing/inputs.hpp"

namespace kubesim {
namespace {

using testing::JobBuilder;
using testing::make_inputs;
using testing::NodeBuilder;
using testing::PodTemplateBuilder;

SimTime at(double seconds) { return SimTime::from_seconds(seconds); }

SimulationOptions ideal(JobControllerConfig::Version v = JobControllerConfig::Version::kV1_26) {
  SimulationOptions o = testing::ideal_options();
  o.model.job_controller = JobControllerConfig::for_version(v);
  return o;
}

// All pods a Job's controller created, oldest first (PodIds are handed out in creation order).
std::vector<PodId> pod_ids_of(const Simulation& sim, std::uint32_t workload_job) {
  const JobId job = sim.job_objects()[workload_job];
  std::vector<PodId> out;
  for (std::size_t i = 0; i < sim.store().pod_count(); ++i) {
    const PodId id(static_cast<std::uint32_t>(i));
    if (sim.store().pod(id).job == job) out.push_back(id);
  }
  return out;
}

std::vector<const Pod*> pods_of(const Simulation& sim, std::uint32_t workload_job) {
  std::vector<const Pod*> out;
  for (const PodId id : pod_ids_of(sim, workload_job)) out.push_back(&sim.store().pod(id));
  return out;
}

const Pod& job_pod(const Simulation& sim, std::uint32_t workload_job) {
  return sim.store().pod(sim.job_pods()[workload_job]);
}

// Records every store change with the simulated time it was made at.
struct Recorder final : ChangeListener {
  struct Entry {
    SimTime time;
    Change change;
    bool node_ready = true;
    std::size_t node_taints = 0;
  };
  const Simulation* sim = nullptr;
  std::vector<Entry> entries;
  void on_change(const Change& c) override {
    Entry e{sim->now(), c};
    if (c.kind == ObjectKind::kNode) {
      const Node& n = sim->store().node(NodeId(c.id));
      e.node_ready = n.ready;
      e.node_taints = n.taints.size();
    }
    entries.push_back(e);
  }
  std::vector<Entry> of(ObjectKind kind, std::uint32_t id) const {
    std::vector<Entry> out;
    for (const auto& e : entries)
      if (e.change.kind == kind && e.change.id == id) out.push_back(e);
    return out;
  }
};

// ---------------------------------------------------------------------------------------
// 1. ResourceQuota rejection and the Job controller's retry timing.
//
// Namespace "team" with ResourceQuota q: requests.cpu=4; a 64-cpu node; Jobs job-1, job-2,
// job-3 (2 cpu, sleep 100 s) submitted at t=0 in that order.
SimulationInputs quota_inputs(bool probe) {
  std::vector<WorkloadJob> jobs = {JobBuilder("job-1", 0, 100).as_job().ns(NamespaceId(1)),
                                   JobBuilder("job-2", 0, 100).as_job().ns(NamespaceId(1)),
                                   JobBuilder("job-3", 0, 100).as_job().ns(NamespaceId(1))};
  if (probe) jobs.push_back(JobBuilder("probe", 1, 10).ns(NamespaceId(1)));
  SimulationInputs in = make_inputs({NodeBuilder("node-0").cpu_milli(64000).memory("64Gi")}, std::move(jobs),
                                    {PodTemplateBuilder().cpu_milli(2000)});
  in.workload.namespaces = {"default", "team"};
  ResourceQuota q;
  q.name = "q";
  q.ns = NamespaceId(1);
  q.items.push_back(QuotaItem{"requests.cpu", QuotaItem::Kind::kRequests, static_cast<std::uint8_t>(kCpu), 4000, 0});
  in.quotas.push_back(q);
  return in;
}

TEST(BatchSemantics, QuotaRejectsThirdJobWithUpstreamMessage) {
  // t=0: the three Jobs' first syncs run in submission order. job-1's and job-2's pods are
  // admitted (used requests.cpu 0 -> 2 -> 4); job-3's pod would make 6 > 4 and is refused.
  // A bare pod "probe" (2 cpu) created at t=1 meets the same 403, whose text is upstream's
  // CheckRequest format with only the exceeded key, quantities canonical ("2", not "2000m").
  Simulation sim(quota_inputs(true), ideal());
  sim.run();
  ASSERT_EQ(sim.rejected_pods().size(), 1u);
  EXPECT_EQ(sim.rejected_pods()[0].first, 3u);
  EXPECT_EQ(sim.rejected_pods()[0].second,
            "pods \"probe\" is forbidden: exceeded quota: q, requested: requests.cpu=2, used: requests.cpu=4, "
            "limited: requests.cpu=4");
  for (std::uint32_t j = 0; j < 2; ++j) {
    const Pod& p = job_pod(sim, j);
    EXPECT_EQ(p.created, at(0)) << j;
    EXPECT_EQ(p.started, at(0)) << j;
    EXPECT_EQ(p.finished, at(100)) << j;
    EXPECT_EQ(p.phase, PodPhase::kSucceeded) << j;
    EXPECT_EQ(p.name.rfind("job-" + std::to_string(j + 1) + "-", 0), 0u) << p.name;
    EXPECT_EQ(p.name.size(), std::string("job-1-").size() + 5) << p.name;  // generateName: 5 random chars
  }
  // job-3's pod is only created once the quota was given back (t=100), by a rate-limited
  // retry: four refused creates before (the syncs at 0 and 0 — the second one triggered by the
  // Job status write of the first —, then two rate-limited retries; see the v1.26 and v1.28
  // timing tests below for their times; both versions refuse 4 resp. 7 times).
  const Pod& third = job_pod(sim, 2);
  EXPECT_GT(third.created, at(100));
  EXPECT_EQ(third.phase, PodPhase::kSucceeded);
  EXPECT_EQ(sim.job_controller().failed_creates(), 4u);
  // Everything finished: the quota controller gave all usage back.
  EXPECT_EQ(sim.store().quota(QuotaId(0)).items[0].used, 0);
  for (std::uint32_t j = 0; j < 3; ++j) {
    const Job& job = sim.store().job(sim.job_objects()[j]);
    EXPECT_EQ(job.condition, JobCondition::kComplete) << j;
    EXPECT_EQ(job.succeeded, 1) << j;
    EXPECT_EQ(job.failed, 0) << j;  // a refused create is not a failed pod
  }
}

// Upstream v1.26 (job_controller.go with client-go's rate-limiting delaying queue):
//   t=0    sync #1 of job-3: startTime set, manageJob's create -> 403. The status write
//          (startTime, ready=0 vs nil) is a Job update -> updateJob -> enqueueController
//          (immediate, AddAfter(0) = Add). The sync returns the error -> AddRateLimited:
//          10 s * 2^0 -> waiting entry at t=10, NumRequeues=1.
//   t=0    sync #2 (the immediate Add): 403 again, no status change -> AddRateLimited:
//          20 s -> t=20, but the delaying queue keeps the *earlier* waiting entry (insert():
//          "update the time only if it would cause the item to be queued sooner"), so the
//          entry stays at t=10; NumRequeues=2. An immediate Add never removes a waiting entry.
//   t=10   sync #3: 403 -> 40 s -> t=50, NumRequeues=3.
//   t=50   sync #4: 403 -> 80 s -> t=130, NumRequeues=4.
//   t=100  job-1's and job-2's pods succeed; the quota controller (zero delay) releases 4 cpu.
//   t=130  sync #5: the create is admitted -> job-3's pod created at 130, runs to 230.
TEST(BatchSemantics, QuotaRetryTimingV126) {
  Simulation sim(quota_inputs(false), ideal(JobControllerConfig::Version::kV1_26));
  sim.run();
  const Pod& third = job_pod(sim, 2);
  EXPECT_EQ(third.created, at(130));
  EXPECT_EQ(third.started, at(130));
  EXPECT_EQ(third.finished, at(230));
  EXPECT_EQ(sim.job_controller().failed_creates(), 4u);  // t = 0, 0, 10, 50
}

TEST(BatchSemantics, QuotaRetryTimingV128) {
  // v1.28 (PR #118615): API errors back off 1 s doubling to 60 s; a status-only Job update
  // is batched by 1 s (enqueueSyncJobBatched).
  //   t=0  sync: 403; the status write enqueues at 0+1; AddRateLimited 1 s -> 1 (same
  //        time, one entry). t=1: 403 -> +2 -> 3; t=3: +4 -> 7; t=7: +8 -> 15; t=15: +16
  //        -> 31; t=31: +32 -> 63; t=63: +64 capped at 60 -> 123.
  //   t=100 the quota is released; t=123 the create is admitted.
  Simulation sim(quota_inputs(false), ideal(JobControllerConfig::Version::kV1_28));
  sim.run();
  const Pod& third = job_pod(sim, 2);
  EXPECT_EQ(third.created, at(123));
  EXPECT_EQ(third.started, at(123));
  EXPECT_EQ(third.finished, at(223));
  EXPECT_EQ(sim.job_controller().failed_creates(), 7u);  // t = 0, 1, 3, 7, 15, 31, 63
  const Job& job = sim.store().job(sim.job_objects()[2]);
  EXPECT_EQ(job.condition, JobCondition::kComplete);
  EXPECT_EQ(job.completion_time, at(224));  // pod Succeeded at 223 -> sync after the 1 s batch
}

// ---------------------------------------------------------------------------------------
// 2. Job back-off and BackoffLimitExceeded: backoffLimit 2, every pod exits 1 after 10 s.
SimulationInputs failing_job_inputs() {
  WorkloadJob j = JobBuilder("flaky", 0, 100).as_job();
  j.backoff_limit = 2;
  j.failure.probability = 1;
  j.failure.exit_code = 1;
  j.failure.after = Duration::seconds(10);
  return make_inputs({NodeBuilder("node-0").cpu_milli(8000).memory("64Gi")}, {j},
                     {PodTemplateBuilder().cpu_milli(1000)});
}

// kube-controller-manager's client rate limit on the Job controller (control/
// job_controller.hpp): qps 20 (a token every 50 ms), burst 30; a new Job's sync spends three
// tokens (the pod POST, its SuccessfulCreate event, the status PUT). 40 Jobs at t=0 whose pods
// fit nowhere (so no pod ever changes and no other request is made): Jobs 1-10 take the 30
// tokens of the full bucket at t=0; Job 11 waits for the next token (50 ms) and leaves the
// bucket at -2, so Job 12 waits until it holds one again, 3 x 50 ms later: Job k >= 11 gets
// its pod at 0.05 + (k - 11) * 0.15 s.
TEST(BatchSemantics, JobControllerClientRateLimitSpacesPodCreations) {
  std::vector<WorkloadJob> jobs;
  for (int k = 1; k <= 40; ++k) jobs.push_back(JobBuilder("j" + std::to_string(k), 0, 10).as_job());
  SimulationOptions o = ideal();
  o.model.controller_manager_client = {20, 30};
  Simulation sim(make_inputs({NodeBuilder("n0").cpu_milli(1000).memory("64Gi")}, std::move(jobs),
                             {PodTemplateBuilder().cpu_milli(2000)}),
                 o);
  sim.run();
  for (std::uint32_t k = 1; k <= 40; ++k) {
    const auto pods = pods_of(sim, k - 1);
    ASSERT_EQ(pods.size(), 1u) << k;
    EXPECT_EQ(pods[0]->created, k <= 10 ? at(0) : at(0.05 + (k - 11) * 0.15)) << k;
  }
  // Without the limit (the ideal model) every pod is created at t=0.
  Simulation free(make_inputs({NodeBuilder("n0").cpu_milli(1000).memory("64Gi")},
                              {JobBuilder("a", 0, 10).as_job(), JobBuilder("b", 0, 10).as_job()},
                              {PodTemplateBuilder().cpu_milli(2000)}),
                  ideal());
  free.run();
  EXPECT_EQ(pods_of(free, 1)[0]->created, at(0));
}

TEST(BatchSemantics, JobBackoffLimitExceededV126) {
  // v1.26:
  //   t=0   Job added -> sync: pod #1 created (scheduled and started at 0, exits 1 at 10).
  //   t=10  pod #1 Failed -> updatePod with a failed pod: getBackoff = 0 (NumRequeues 0)
  //         -> sync at 10: failed=1 (not > 2) -> pod #2 created at 10; the sync returns
  //         "failed pod(s) detected" -> AddRateLimited (entry at 20, NumRequeues 1). Its
  //         status write (failed=1) is a Job update -> immediate sync at 10, which is clean
  //         -> Forget: NumRequeues back to 0.
  //   t=20  pod #2 Failed -> getBackoff = 0 again -> sync at 20: failed=2 -> pod #3 at 20.
  //   t=30  pod #3 Failed -> sync at 30: failed=3 > backoffLimit 2, a new failure and
  //         active(0) != parallelism(1) -> Failed/BackoffLimitExceeded at 30.
  // (The status-write-triggered clean sync cancels the doubling: with backoffLimit 2 no
  // replacement is ever delayed.)
  Simulation sim(failing_job_inputs(), ideal(JobControllerConfig::Version::kV1_26));
  sim.run();
  const auto pods = pods_of(sim, 0);
  ASSERT_EQ(pods.size(), 3u);
  const double created[] = {0, 10, 20};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pods[i]->created, at(created[i])) << i;
    EXPECT_EQ(pods[i]->started, at(created[i])) << i;
    EXPECT_EQ(pods[i]->finished, at(created[i] + 10)) << i;
    EXPECT_EQ(pods[i]->phase, PodPhase::kFailed) << i;
    EXPECT_EQ(pods[i]->exit_code, 1) << i;
  }
  const Job& job = sim.store().job(sim.job_objects()[0]);
  EXPECT_EQ(job.condition, JobCondition::kFailed);
  EXPECT_EQ(job.condition_reason, "BackoffLimitExceeded");
  EXPECT_EQ(job.condition_message, "Job has reached the specified backoff limit");
  EXPECT_EQ(job.condition_time, at(30));
  EXPECT_EQ(job.failed, 3);
  EXPECT_EQ(job.succeeded, 0);
  EXPECT_EQ(job.active, 0);
}

TEST(BatchSemantics, JobBackoffLimitExceededV128) {
  // v1.28: pod events are batched by 1 s; replacements wait for the backoff record,
  // 10 s * 2^(failures-1) from the last failure's finish time.
  //   t=0   pod #1 created; exits 1 at 10.
  //   t=11  sync (10 + 1 s batch): failed=1, remaining = 10 - (11-10) = 9 -> requeue at 20
  //         (the status write's batched sync at 12 finds 8 s left -> 20 again).
  //   t=20  pod #2 created; exits 1 at 30.
  //   t=31  failed=2, remaining = 20 - 1 = 19 -> 50.   t=50 pod #3 created; exits at 60.
  //   t=61  failed=3 > backoffLimit 2 (v1.28: no new-failure / active terms) -> Failed.
  Simulation sim(failing_job_inputs(), ideal(JobControllerConfig::Version::kV1_28));
  sim.run();
  const auto pods = pods_of(sim, 0);
  ASSERT_EQ(pods.size(), 3u);
  const double created[] = {0, 20, 50};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pods[i]->created, at(created[i])) << i;
    EXPECT_EQ(pods[i]->finished, at(created[i] + 10)) << i;
    EXPECT_EQ(pods[i]->phase, PodPhase::kFailed) << i;
  }
  const Job& job = sim.store().job(sim.job_objects()[0]);
  EXPECT_EQ(job.condition, JobCondition::kFailed);
  EXPECT_EQ(job.condition_reason, "BackoffLimitExceeded");
  EXPECT_EQ(job.condition_time, at(61));
  EXPECT_EQ(job.failed, 3);
}

// ---------------------------------------------------------------------------------------
// 3. Preemption: victim choice and graceful termination.
//
// One node of 4 cpu. low-1 (t=0) and low-2 (t=10), PriorityClass "low" (-10), 2 cpu,
// 1000 s; at t=100 "high" (no class: priority 0), 2 cpu, 1000 s.
SimulationInputs preemption_inputs(std::int64_t victim_grace) {
  std::vector<WorkloadJob> jobs = {JobBuilder("low-1", 0, 1000).as_job(), JobBuilder("low-2", 10, 1000).as_job(),
                                   JobBuilder("high", 100, 1000).as_job().tmpl(1)};
  SimulationInputs in =
      make_inputs({NodeBuilder("node-0").cpu_milli(4000).memory("64Gi")}, std::move(jobs),
                  {PodTemplateBuilder().cpu_milli(2000).priority_class("low").grace_seconds(victim_grace),
                   PodTemplateBuilder().cpu_milli(2000)});
  PriorityClass low;
  low.name = "low";
  low.value = -10;
  in.priority_classes.push_back(low);
  return in;
}

void check_preemption(std::int64_t grace) {
  // t=100: high does not fit (4/4 cpu used) -> PostFilter. SelectVictimsOnNode removes both
  // lower-priority pods, sorts them by MoreImportantPod (equal priority: earlier start time
  // first: low-1 (0) before low-2 (10)) and reprieves in that order: low-1 fits back (2+2 <=
  // 4) and is kept, low-2 does not -> exactly one victim, low-2, the later-started.
  // The victim is DELETEd at 100 with its own grace (DisruptionTarget PreemptionByScheduler);
  // sleep ignores SIGTERM, so it runs until SIGKILL at 100 + grace: Failed, exit 137, and
  // removed once the kubelet stored the final status. Only then is high's 2 cpu free: it
  // binds and starts at 100 + grace. The victim's Job counts the terminating pod as failed
  // (isPodFailed) in its sync at 100 + 1 s (pod update batch) and creates a replacement at
  // 101, which (priority -10) stays pending until low-1 finishes at 1000.
  Simulation sim(preemption_inputs(grace), ideal());
  sim.run();
  const double end = 100.0 + static_cast<double>(grace);
  ASSERT_EQ(pods_of(sim, 0).size(), 1u);
  const Pod& low1 = *pods_of(sim, 0)[0];
  EXPECT_EQ(low1.deletion_requested, SimTime::never());
  EXPECT_EQ(low1.phase, PodPhase::kSucceeded);
  EXPECT_EQ(low1.finished, at(1000));

  const auto low2_pods = pods_of(sim, 1);
  ASSERT_EQ(low2_pods.size(), 2u);
  const Pod& victim = *low2_pods[0];
  EXPECT_EQ(victim.started, at(10));
  EXPECT_EQ(victim.disruption, DisruptionReason::kPreemptionByScheduler);
  EXPECT_EQ(victim.deletion_requested, at(100));
  EXPECT_EQ(victim.deletion_grace, Duration::seconds(grace));
  EXPECT_EQ(victim.finished, at(end));
  EXPECT_EQ(victim.phase, PodPhase::kFailed);
  EXPECT_EQ(victim.exit_code, 137);
  EXPECT_TRUE(victim.deleted);

  const Pod& high = job_pod(sim, 2);
  EXPECT_EQ(high.created, at(100));
  EXPECT_EQ(high.scheduled, at(end));
  EXPECT_EQ(high.started, at(end));
  EXPECT_EQ(high.finished, at(end + 1000));
  EXPECT_EQ(high.node, NodeId(0));

  const Pod& replacement = *low2_pods[1];
  EXPECT_EQ(replacement.created, at(101));
  EXPECT_EQ(replacement.started, at(1000));  // pending until low-1 frees its 2 cpu
  const Job& low2_job = sim.store().job(sim.job_objects()[1]);
  EXPECT_EQ(low2_job.failed, 1);
  EXPECT_EQ(low2_job.succeeded, 1);
}

TEST(BatchSemantics, PreemptionVictimAndDefaultGrace) { check_preemption(30); }
TEST(BatchSemantics, PreemptionVictimShortGrace) { check_preemption(5); }

// ---------------------------------------------------------------------------------------
// 4. Node failure. node-0 (8 cpu) and node-1 (4 cpu): the 2-cpu Job pod goes to node-0
// (LeastAllocated 75 vs 50, BalancedAllocation also prefers it). node-0 fails at 50 and
// recovers at 1000.
TEST(BatchSemantics, NodeFailureTaintEvictionAndRecovery) {
  SimulationInputs in = make_inputs(
      {NodeBuilder("node-0").cpu_milli(8000).memory("64Gi"), NodeBuilder("node-1").cpu_milli(4000).memory("64Gi")},
      {JobBuilder("work", 0, 1000).as_job()}, {PodTemplateBuilder().cpu_milli(2000)});
  in.actions.push_back(ClusterAction{at(50), ClusterAction::Kind::kFail, "node-0", 0});
  in.actions.push_back(ClusterAction{at(1000), ClusterAction::Kind::kRecover, "node-0", 0});
  Simulation sim(std::move(in), ideal());
  Recorder rec;
  rec.sim = &sim;
  sim.add_listener(&rec);
  sim.run();

  // Node: t=50+40 (nodeMonitorGracePeriod) Ready -> Unknown with the unreachable taint as
  // NoSchedule and NoExecute; t=1000 Ready again, taints removed.
  const auto node0 = rec.of(ObjectKind::kNode, 0);
  ASSERT_EQ(node0.size(), 2u);
  EXPECT_EQ(node0[0].time, at(90));
  EXPECT_FALSE(node0[0].node_ready);
  EXPECT_EQ(node0[0].node_taints, 2u);
  EXPECT_EQ(node0[1].time, at(1000));
  EXPECT_TRUE(node0[1].node_ready);
  EXPECT_EQ(node0[1].node_taints, 0u);
  const Node& n0 = sim.store().node(NodeId(0));
  EXPECT_TRUE(n0.ready);
  EXPECT_TRUE(n0.taints.empty());
  EXPECT_FALSE(n0.unschedulable);
  EXPECT_TRUE(rec.of(ObjectKind::kNode, 1).empty());

  const auto pods = pods_of(sim, 0);
  ASSERT_EQ(pods.size(), 2u);
  // The first pod: on node-0 from 0; its container dies with the machine at 50. The taint
  // manager deletes it at 90 + 300 (DefaultTolerationSeconds) with DeletionByTaintManager;
  // with no kubelet it stays Terminating until node-0 is back at 1000, when the kubelet
  // reports it Failed (137) and it is removed.
  const Pod& first = *pods[0];
  EXPECT_EQ(first.node, NodeId(0));
  EXPECT_EQ(first.started, at(0));
  EXPECT_EQ(first.finished, at(50));
  EXPECT_EQ(first.exit_code, 137);
  EXPECT_EQ(first.disruption, DisruptionReason::kDeletionByTaintManager);
  EXPECT_EQ(first.deletion_requested, at(390));
  EXPECT_EQ(first.phase, PodPhase::kFailed);
  EXPECT_TRUE(first.deleted);
  const auto first_changes = rec.of(ObjectKind::kPod, pod_ids_of(sim, 0)[0].value());
  ASSERT_FALSE(first_changes.empty());
  EXPECT_EQ(first_changes.back().change.type, ChangeType::kDeleted);
  EXPECT_EQ(first_changes.back().time, at(1000));
  // The Job counts the terminating pod as failed in the sync 1 s later (pod update batch)
  // and creates a replacement at 391, which avoids node-0's NoSchedule taint.
  const Pod& second = *pods[1];
  EXPECT_EQ(second.created, at(391));
  EXPECT_EQ(second.node, NodeId(1));
  EXPECT_EQ(second.started, at(391));
  EXPECT_EQ(second.finished, at(1391));
  EXPECT_EQ(second.phase, PodPhase::kSucceeded);
  const Job& job = sim.store().job(sim.job_objects()[0]);
  EXPECT_EQ(job.failed, 1);
  EXPECT_EQ(job.succeeded, 1);
  EXPECT_EQ(job.condition, JobCondition::kComplete);
}

// ---------------------------------------------------------------------------------------
// 5. Drain with a PodDisruptionBudget minAvailable 1 over two pods (app=web).
SimulationInputs drain_inputs(bool jobs, std::vector<Node> nodes, double run_b) {
  std::vector<WorkloadJob> w = {jobs ? JobBuilder("a", 0, 1000).as_job() : JobBuilder("a", 0, 1000),
                                jobs ? JobBuilder("b", 0, run_b).as_job() : JobBuilder("b", 0, run_b)};
  SimulationInputs in =
      make_inputs(std::move(nodes), std::move(w), {PodTemplateBuilder().cpu_milli(2000).label("app", "web")});
  in.pod_disruption_budgets.push_back(testing::min_available_pdb("web", NamespaceId(0), "app", "web", 1));
  in.actions.push_back(ClusterAction{at(100), ClusterAction::Kind::kDrain, "node-0", 0});
  return in;
}

TEST(BatchSemantics, DrainWithPdbWaitsForReplacement) {
  // node-0 16 cpu, node-1 4 cpu: both Job pods go to node-0 (LeastAllocated 87/75 vs 50).
  // t=100 drain: cordon; pod a: 2 healthy - minAvailable 1 = 1 disruption allowed -> evicted
  // (EvictionByEvictionAPI, grace 30). Pod b: a is terminating, so 1 healthy - 1 = 0 -> 429,
  // retried every 5 s. a's Job syncs at 101 (terminating pod = failed) and its replacement
  // runs on node-1 (node-0 is cordoned) from 101. At the retry at 105 b and the replacement
  // are healthy: 2 - 1 = 1 -> b is evicted at 105. a is killed at 130, b at 135; b's
  // replacement (created 106) fits next to a's on node-1.
  Simulation sim(drain_inputs(true,
                              {NodeBuilder("node-0").cpu_milli(16000).memory("64Gi"),
                               NodeBuilder("node-1").cpu_milli(4000).memory("64Gi")},
                              1000),
                 ideal());
  sim.run();
  const auto a = pods_of(sim, 0);
  const auto b = pods_of(sim, 1);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0]->node, NodeId(0));
  EXPECT_EQ(b[0]->node, NodeId(0));
  EXPECT_EQ(a[0]->disruption, DisruptionReason::kEvictionByEvictionAPI);
  EXPECT_EQ(a[0]->deletion_requested, at(100));
  EXPECT_EQ(a[0]->finished, at(130));
  EXPECT_EQ(a[0]->exit_code, 137);
  EXPECT_TRUE(a[0]->deleted);
  EXPECT_EQ(a[1]->created, at(101));
  EXPECT_EQ(a[1]->node, NodeId(1));
  EXPECT_EQ(a[1]->started, at(101));
  EXPECT_EQ(b[0]->disruption, DisruptionReason::kEvictionByEvictionAPI);
  EXPECT_EQ(b[0]->deletion_requested, at(105));
  EXPECT_EQ(b[0]->finished, at(135));
  EXPECT_TRUE(b[0]->deleted);
  EXPECT_EQ(b[1]->created, at(106));
  EXPECT_EQ(b[1]->node, NodeId(1));
  EXPECT_EQ(b[1]->started, at(106));
  EXPECT_TRUE(sim.store().node(NodeId(0)).unschedulable);
}

TEST(BatchSemantics, DrainWithPdbBlockedUntilPodEnds) {
  // One node, two bare pods (no controller, no replacement): a is evicted at 100; b is
  // refused at every 5-s retry (1 healthy - 1 = 0, also after a is gone at 130) and is never
  // evicted: it runs to its own end at 300 (Succeeded); the retry at 300 then finds nothing
  // left to evict and the drain is over.
  Simulation sim(drain_inputs(false, {NodeBuilder("node-0").cpu_milli(4000).memory("64Gi")}, 300), ideal());
  Recorder rec;
  rec.sim = &sim;
  sim.add_listener(&rec);
  sim.run();
  ASSERT_FALSE(rec.entries.empty());
  EXPECT_EQ(rec.entries.back().time, at(300));  // the last change: b Succeeded
  const Pod& a = job_pod(sim, 0);
  const Pod& b = job_pod(sim, 1);
  EXPECT_EQ(a.deletion_requested, at(100));
  EXPECT_EQ(a.disruption, DisruptionReason::kEvictionByEvictionAPI);
  EXPECT_EQ(a.finished, at(130));
  EXPECT_TRUE(a.deleted);
  EXPECT_EQ(b.deletion_requested, SimTime::never());
  EXPECT_EQ(b.disruption, DisruptionReason::kNone);
  EXPECT_EQ(b.phase, PodPhase::kSucceeded);
  EXPECT_EQ(b.finished, at(300));
}

// The same run ends at 300, when the last thing happens (b Succeeded, the drain finds
// nothing left), not at a's natural exit (1000): killing a at 130 leaves the container-exit
// event posted at its start in the queue, and the run must skip it without moving the clock.
TEST(BatchSemantics, RunEndsAtLastChangeAfterGracefulKill) {
  Simulation sim(drain_inputs(false, {NodeBuilder("node-0").cpu_milli(4000).memory("64Gi")}, 300), ideal());
  sim.run();
  EXPECT_EQ(sim.now(), at(300));
}

// ---------------------------------------------------------------------------------------
// 6. Determinism: E4 twice with one seed gives identical pods; another seed differs.
using PodRow = std::tuple<std::string, std::uint32_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::string>;

std::vector<PodRow> run_e4(std::uint64_t seed) {
  Scenario s = read_scenario(kubesim::testing::source_dir() + "/examples/multitenant/e4.yaml");
  SimulationOptions o;
  o.seed = seed;
  o.model = ModelConfig::realistic();
  Simulation sim(std::move(s.inputs), o);
  sim.run();
  std::vector<PodRow> rows;
  for (std::size_t i = 0; i < sim.store().pod_count(); ++i) {
    const Pod& p = sim.store().pod(PodId(static_cast<std::uint32_t>(i)));
    rows.emplace_back(p.name, p.node.value(), p.created.micros(), p.scheduled.micros(), p.started.micros(),
                      p.finished.micros(), to_string(p.phase));
  }
  return rows;
}

TEST(BatchSemantics, E4SameSeedSameRunOtherSeedDiffers) {
  const auto a = run_e4(7);
  const auto b = run_e4(7);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  const auto c = run_e4(8);
  EXPECT_NE(a, c);
  // Other seeds draw other generated pod names.
  ASSERT_FALSE(c.empty());
  EXPECT_NE(std::get<0>(a[0]), std::get<0>(c[0]));
}

}  // namespace
}  // namespace kubesim

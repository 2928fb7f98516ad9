// DefaultPreemption (framework/preemption/preemption.go, plugins/defaultpreemption, v1.26),
// the nominator (internal/queue/scheduling_queue.go) and RunFilterPluginsWithNominatedPods
// (framework/runtime/framework.go), on hand-computed cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "sched/kube/scheduler.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"

namespace kubesim {
namespace {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

struct Cluster {
  ObjectStore store;
  testing::FakeSchedulerHost loop{&store};  // runs the posted events; the zero-delay informer
  std::unique_ptr<Scheduler> scheduler;

  explicit Cluster(SchedulerConfig config = {}, std::uint64_t seed = 1) {
    store.ensure_namespace("default");
    if (config.profiles.empty()) config = default_scheduler_config(store.resource_names());
    scheduler = std::make_unique<Scheduler>(store, std::move(config), SchedulerLatencies{}, seed, loop);
    loop.attach(scheduler.get());
    store.add_listener(&loop);
  }
  NodeId add_node(const std::string& name, std::int64_t cpu_milli, bool unschedulable = false) {
    return store.create_node(
        testing::NodeBuilder(name).cpu_milli(cpu_milli).memory_bytes(64 * kGi).unschedulable(unschedulable));
  }
  PodTemplateId add_template(std::int64_t cpu_milli, std::int32_t priority, Labels labels = {},
                             PreemptionPolicy policy = PreemptionPolicy::kPreemptLowerPriority) {
    PodTemplate t = testing::PodTemplateBuilder()
                        .cpu_milli(cpu_milli)
                        .memory_bytes(1 * kGi)
                        .priority(priority)
                        .preemption_policy(policy)
                        .grace_seconds(30)
                        .build();
    t.labels = std::move(labels);
    return store.add_template(std::move(t));
  }
  // A running pod bound to `node` (started at `started`), or a pending pod.
  PodId add_pod(PodTemplateId spec, NodeId node = NodeId(), SimTime started = SimTime::zero(),
                NodeId nominated = NodeId()) {
    testing::PodBuilder p(spec);
    p.name("pod" + std::to_string(store.pod_count()));
    if (node.valid()) p.on(node, started);
    if (nominated.valid()) p.nominated(nominated);
    return store.create_pod(p);
  }
  // decide() then preempt(), as a scheduling cycle does (without applying anything).
  const Scheduler::Preemption& attempt(PodId pod, SimTime now = SimTime::zero()) {
    const auto d = scheduler->decide(pod);
    EXPECT_FALSE(d.node.valid());
    return scheduler->preempt(pod, d, now);
  }
};

SimTime at_s(std::int64_t s) { return SimTime::at(Duration::seconds(s)); }

TEST(SelectVictims, ReprievesMostImportantFirst) {
  // Node 4000m full with a(prio 1, 1000m), b(prio 2, 1000m), c(prio 3, 2000m), and an
  // equal-priority pod e(prio 10, 0m) that is never a victim. The preemptor (prio 10, 2000m)
  // fits once all three are removed; reprieve in MoreImportantPod order: c back (2000+2000
  // = 4000 fits), b back (5000: no, victim), a back (5000: no, victim).
  Cluster c;
  const NodeId n = c.add_node("n0", 4000);
  const PodId a = c.add_pod(c.add_template(1000, 1), n);
  const PodId b = c.add_pod(c.add_template(1000, 2), n);
  const PodId cc = c.add_pod(c.add_template(2000, 3), n);
  c.add_pod(c.add_template(0, 10), n);
  const PodId p = c.add_pod(c.add_template(2000, 10));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.mode, Scheduler::Preemption::Mode::kOverride);
  EXPECT_EQ(r.node, n);
  EXPECT_EQ(r.victims, (std::vector<PodId>{b, a}));
  EXPECT_EQ(r.pdb_violations, 0u);
  EXPECT_TRUE(r.message.empty());
  (void)cc;
}

TEST(SelectVictims, KeepsLowestPriorityWhenHigherMustGo) {
  // 3000m node: x(prio 5, 2000m), y(prio 1, 1000m). Preemptor (prio 9) needs 2000m: with
  // both removed it fits; reprieve x (2000+2000 > 3000: victim), then y (1000+2000 fits).
  Cluster c;
  const NodeId n = c.add_node("n0", 3000);
  const PodId x = c.add_pod(c.add_template(2000, 5), n);
  c.add_pod(c.add_template(1000, 1), n);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.node, n);
  EXPECT_EQ(r.victims, (std::vector<PodId>{x}));
}

TEST(SelectVictims, PdbViolatingVictimsAreReprievedFirst) {
  // 3000m node: v(prio 1, 1000m, app=db, PDB minAvailable 1 -> 0 disruptions allowed) and
  // w(prio 2, 1000m), u(prio 3, 1000m). Preemptor (prio 9) needs 2000m. Order: violating
  // [v], non-violating [u, w]. Reprieve v (1000+2000 fits), u (2000+2000 > 3000: victim),
  // w (victim). v survives although it has the lowest priority.
  Cluster c;
  PodDisruptionBudget pdb;
  pdb.name = "db";
  pdb.ns = NamespaceId(0);
  pdb.selector.match_labels = {{"app", "db"}};
  pdb.min_available = IntOrPercent{1, false};
  c.store.add_pod_disruption_budget(pdb);
  const NodeId n = c.add_node("n0", 3000);
  c.add_pod(c.add_template(1000, 1, {{"app", "db"}}), n);
  const PodId w = c.add_pod(c.add_template(1000, 2), n);
  const PodId u = c.add_pod(c.add_template(1000, 3), n);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.node, n);
  EXPECT_EQ(r.victims, (std::vector<PodId>{u, w}));
  EXPECT_EQ(r.pdb_violations, 0u);
}

TEST(PickNode, FewerPdbViolations) {
  // n0's only victim (prio 1) is protected by a PDB with no disruption allowed; n1's victim
  // has a higher priority (5) but no PDB. Fewest violations wins first: n1.
  Cluster c;
  PodDisruptionBudget pdb;
  pdb.name = "db";
  pdb.ns = NamespaceId(0);
  pdb.selector.match_labels = {{"app", "db"}};
  pdb.max_unavailable = IntOrPercent{0, false};
  c.store.add_pod_disruption_budget(pdb);
  const NodeId n0 = c.add_node("n0", 2000);
  const NodeId n1 = c.add_node("n1", 2000);
  c.add_pod(c.add_template(2000, 1, {{"app", "db"}}), n0);
  const PodId v1 = c.add_pod(c.add_template(2000, 5), n1);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.node, n1);
  EXPECT_EQ(r.victims, (std::vector<PodId>{v1}));
  EXPECT_EQ(r.pdb_violations, 0u);
}

TEST(PickNode, PdbViolationCountedWhenUnavoidable) {
  Cluster c;
  PodDisruptionBudget pdb;
  pdb.name = "db";
  pdb.ns = NamespaceId(0);
  pdb.selector.match_labels = {{"app", "db"}};
  pdb.min_available = IntOrPercent{100, true};  // 100%: nothing may go
  c.store.add_pod_disruption_budget(pdb);
  const NodeId n0 = c.add_node("n0", 2000);
  const PodId v = c.add_pod(c.add_template(2000, 1, {{"app", "db"}}), n0);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.node, n0);
  EXPECT_EQ(r.victims, (std::vector<PodId>{v}));
  EXPECT_EQ(r.pdb_violations, 1u);
}

TEST(PickNode, LowestHighestVictimPriority) {
  Cluster c;
  const NodeId n0 = c.add_node("n0", 2000);
  const NodeId n1 = c.add_node("n1", 2000);
  c.add_pod(c.add_template(2000, 5), n0);
  c.add_pod(c.add_template(2000, 3), n1);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  EXPECT_EQ(c.attempt(p).node, n1);
}

TEST(PickNode, LowestPrioritySum) {
  // Both nodes' highest victim has priority 3; n0: 3+3, n1: 3+1 (plus 2^31 each): n1.
  Cluster c;
  const NodeId n0 = c.add_node("n0", 2000);
  const NodeId n1 = c.add_node("n1", 2000);
  c.add_pod(c.add_template(1000, 3), n0);
  c.add_pod(c.add_template(1000, 3), n0);
  c.add_pod(c.add_template(1000, 3), n1);
  c.add_pod(c.add_template(1000, 1), n1);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.node, n1);
  EXPECT_EQ(r.victims.size(), 2u);
}

TEST(PickNode, FewestVictims) {
  // Sums tie only through the 2^31 offset: n0 one victim of priority 0 (sum 2^31), n1 two
  // victims of priority 0 and INT32_MIN (sum 2^31 + 0). Highest is 0 on both: fewer wins.
  Cluster c;
  const NodeId n0 = c.add_node("n0", 2000);
  const NodeId n1 = c.add_node("n1", 2000);
  c.add_pod(c.add_template(1000, 0), n1);
  c.add_pod(c.add_template(1000, std::numeric_limits<std::int32_t>::min()), n1);
  c.add_pod(c.add_template(2000, 0), n0);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.node, n0);
  EXPECT_EQ(r.victims.size(), 1u);
}

TEST(PickNode, LatestStartTime) {
  // Same victims but n0's started at 10 s and n1's at 100.4 s (second granularity): n1.
  Cluster c;
  const NodeId n0 = c.add_node("n0", 2000);
  const NodeId n1 = c.add_node("n1", 2000);
  c.add_pod(c.add_template(2000, 1), n0, at_s(10));
  c.add_pod(c.add_template(2000, 1), n1, SimTime::at(Duration::millis(100400)));
  const PodId p = c.add_pod(c.add_template(2000, 9));
  EXPECT_EQ(c.attempt(p, at_s(200)).node, n1);
}

TEST(PickNode, FullTieGoesToTheFirstTiedNodeOfAGoMapWalk) {
  // Three alike nodes: every candidate ties. The candidates are in dry-run order from the
  // offset (drawn first from the "scheduler/preemption" stream); a walk of their one-bucket map
  // starts at one of 8 slots, so it meets the offset's node first with probability 6/8 and each
  // of the two others with 1/8 (preemption.cpp select_candidate).
  constexpr int kRuns = 2000;
  int at_position[3] = {0, 0, 0};
  for (std::uint64_t seed = 1; seed <= kRuns; ++seed) {
    Cluster c({}, seed);
    NodeId nodes[3];
    for (int i = 0; i < 3; ++i) {
      nodes[i] = c.add_node("n" + std::to_string(i), 2000);
      c.add_pod(c.add_template(2000, 1), nodes[i]);
    }
    const NodeId chosen = c.attempt(c.add_pod(c.add_template(2000, 9))).node;
    const auto offset = static_cast<int>(RandomStream(seed, "scheduler/preemption").uniform_below(3));
    const auto index = static_cast<int>(std::find(std::begin(nodes), std::end(nodes), chosen) - std::begin(nodes));
    ASSERT_LT(index, 3);
    ++at_position[(index - offset + 3) % 3];
  }
  EXPECT_NEAR(at_position[0] / double(kRuns), 0.75, 0.035);
  EXPECT_NEAR(at_position[1] / double(kRuns), 0.125, 0.025);
  EXPECT_NEAR(at_position[2] / double(kRuns), 0.125, 0.025);
}

TEST(Eligibility, PreemptionPolicyNever) {
  Cluster c;
  const NodeId n0 = c.add_node("n0", 2000);
  c.add_pod(c.add_template(2000, 1), n0);
  const PodId p = c.add_pod(c.add_template(2000, 9, {}, PreemptionPolicy::kNever));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.mode, Scheduler::Preemption::Mode::kNoop);
  EXPECT_FALSE(r.node.valid());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message, "preemption: not eligible due to preemptionPolicy=Never.");
}

TEST(Eligibility, NoLowerPriorityPods) {
  // Cluster-wide fast exit; the message is what the per-node dry run would give.
  Cluster c;
  const NodeId n0 = c.add_node("n0", 2000);
  const NodeId n1 = c.add_node("n1", 2000);
  c.add_node("cordoned", 8000, true);
  c.add_pod(c.add_template(2000, 9), n0);
  c.add_pod(c.add_template(2000, 12), n1);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.mode, Scheduler::Preemption::Mode::kOverride);
  EXPECT_FALSE(r.node.valid());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message,
            "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption "
            "victims found for incoming pod.");
}

TEST(Eligibility, PerNodeStatusesWhenNoNodeHelps) {
  // n0 has a lower-priority pod but is too small even when emptied; n1 only has an
  // equal-priority pod.
  Cluster c;
  const NodeId n0 = c.add_node("n0", 1000);
  const NodeId n1 = c.add_node("n1", 2000);
  c.add_pod(c.add_template(1000, 1), n0);
  c.add_pod(c.add_template(2000, 9), n1);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_FALSE(r.node.valid());
  EXPECT_EQ(r.message,
            "preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming "
            "pod.");
}

TEST(Eligibility, OnlyUnresolvableNodes) {
  Cluster c;
  c.add_node("cordoned", 8000, true);
  const PodId p = c.add_pod(c.add_template(2000, 9));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.mode, Scheduler::Preemption::Mode::kOverride);
  EXPECT_EQ(r.message, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
}

TEST(Nominator, NominatedNodeIsEvaluatedFirst) {
  // n1 is fuller (n0 would win on score) but it is the pod's nominated node and fits.
  Cluster c;
  c.add_node("n0", 8000);
  const NodeId n1 = c.add_node("n1", 8000);
  c.add_pod(c.add_template(4000, 0), n1);
  const PodId p = c.add_pod(c.add_template(1000, 5), NodeId(), SimTime::zero(), n1);
  const auto d = c.scheduler->decide(p);
  EXPECT_EQ(d.node, n1);
  EXPECT_EQ(d.feasible, 1u);
}

TEST(Nominator, NominatedPodsReserveRoomForLowerPriority) {
  // n0 (4000m) runs t (prio 0, 3000m). P (prio 10, 2000m, preemptionPolicy Never) is
  // nominated to n0 and fails: the nominator keeps P on n0 from its status. A lower-priority
  // pod L (prio 5, 1000m) then does not fit (3000 + 2000 reserved + 1000 > 4000), while a
  // higher-priority pod H (prio 20, 1000m) ignores P's reservation.
  Cluster c;
  const NodeId n0 = c.add_node("n0", 4000);
  c.add_pod(c.add_template(3000, 0), n0);
  const PodId p = c.add_pod(c.add_template(2000, 10, {}, PreemptionPolicy::kNever), NodeId(), SimTime::zero(), n0);
  c.loop.run_until(SimTime::zero());
  EXPECT_FALSE(c.store.pod(p).node.valid());
  EXPECT_EQ(c.scheduler->nominated_node_of(p), n0);
  EXPECT_EQ(c.scheduler->nominated_pods_on(n0), (std::vector<PodId>{p}));

  const PodId low = c.add_pod(c.add_template(1000, 5));
  const auto dl = c.scheduler->decide(low);
  EXPECT_FALSE(dl.node.valid());
  EXPECT_EQ(dl.message, "0/1 nodes are available: 1 Insufficient cpu.");
  const PodId high = c.add_pod(c.add_template(1000, 20));
  EXPECT_EQ(c.scheduler->decide(high).node, n0);
}

TEST(Nominator, PreemptionClearsLowerPriorityNominations) {
  // Q (prio 5) is nominated to n0 (kept by the nominator after a failed attempt). A
  // preemptor of priority 9 that preempts on n0 takes the nomination away from Q.
  Cluster c;
  const NodeId n0 = c.add_node("n0", 2000);
  const PodId v = c.add_pod(c.add_template(2000, 1), n0);
  // Q: Never, so its attempt keeps its status nomination without preempting anybody.
  const PodId q = c.add_pod(c.add_template(2000, 5, {}, PreemptionPolicy::kNever), NodeId(), SimTime::zero(), n0);
  c.loop.run_until(SimTime::zero());
  ASSERT_EQ(c.scheduler->nominated_node_of(q), n0);
  const PodId p = c.add_pod(c.add_template(1000, 9));
  c.loop.run_until(SimTime::zero());
  EXPECT_TRUE(c.store.pod(v).terminating());
  EXPECT_EQ(c.store.pod(v).disruption, DisruptionReason::kPreemptionByScheduler);
  EXPECT_EQ(c.store.pod(p).nominated_node, n0);
  EXPECT_EQ(c.scheduler->nominated_node_of(p), n0);
  EXPECT_FALSE(c.scheduler->nominated_node_of(q).valid());
  EXPECT_FALSE(c.store.pod(q).nominated_node.valid());
}

TEST(PreemptionEndToEnd, HighPriorityPodBindsAfterVictimIsGone) {
  Cluster c;
  const NodeId n0 = c.add_node("n0", 4000);
  const PodId low = c.add_pod(c.add_template(3000, 0), n0);
  const PodId high = c.add_pod(c.add_template(2000, 100));
  c.loop.run_until(SimTime::zero());
  // The attempt failed, preempted `low` (graceful delete, 30 s) and nominated n0.
  EXPECT_FALSE(c.store.pod(high).node.valid());
  EXPECT_EQ(c.store.pod(high).nominated_node, n0);
  EXPECT_EQ(c.scheduler->queue().where(high), SchedulingQueue::Where::kUnschedulable);
  EXPECT_EQ(c.store.pod(low).deletion_requested, SimTime::zero());
  EXPECT_EQ(c.store.pod(low).deletion_grace, Duration::seconds(30));
  EXPECT_EQ(c.store.pod(low).disruption, DisruptionReason::kPreemptionByScheduler);
  EXPECT_EQ(c.scheduler->last_preemption().victims, (std::vector<PodId>{low}));

  // Another pod's deletion wakes `high` at 5 s: the victim is still terminating on its
  // nominated node, so it is not eligible to preempt again and stays unbound.
  const NodeId n1 = c.add_node("n1", 500);
  const PodId other = c.add_pod(c.add_template(100, 0), n1);
  c.loop.run_until(at_s(5));
  c.loop.set_now(at_s(5));
  c.store.update_pod(other, [](Pod& x) { x.phase = PodPhase::kSucceeded; });
  c.loop.run_until(at_s(6));
  EXPECT_FALSE(c.store.pod(high).node.valid());
  EXPECT_EQ(c.scheduler->last_preemption().message,
            "preemption: not eligible due to a terminating pod on the nominated node.");
  EXPECT_EQ(c.store.pod(high).nominated_node, n0);

  // The kubelet stops the victim after its grace period: the pod fails and is removed.
  c.loop.run_until(at_s(30));
  c.store.update_pod(low, [](Pod& x) {
    x.phase = PodPhase::kFailed;
    x.finished = SimTime::at(Duration::seconds(30));
  });
  c.store.remove_pod(low);
  c.loop.run_until(at_s(31));
  EXPECT_EQ(c.store.pod(high).node, n0);
  EXPECT_GE(c.store.pod(high).scheduled, at_s(30));
  EXPECT_FALSE(c.scheduler->nominated_node_of(high).valid());
  EXPECT_TRUE(c.scheduler->nominated_pods_on(n0).empty());
}

TEST(SchedulerCache, PodListsAndMinPriority) {
  Cluster c;
  const NodeId n0 = c.add_node("n0", 8000);
  const PodId a = c.add_pod(c.add_template(100, 3), n0);
  const PodId b = c.add_pod(c.add_template(100, 1), n0);
  const PodId d = c.add_pod(c.add_template(100, 2), n0);
  EXPECT_EQ(c.scheduler->pods_on(n0), (std::vector<PodId>{a, b, d}));
  c.store.update_pod(b, [](Pod& x) { x.phase = PodPhase::kSucceeded; });
  EXPECT_EQ(c.scheduler->pods_on(n0), (std::vector<PodId>{a, d}));  // swap-remove
  // Only a prio-2 pod is below 3 now: a preemptor of priority 3 still finds a victim.
  const PodId p = c.add_pod(c.add_template(7900, 3));
  const auto& r = c.attempt(p);
  EXPECT_EQ(r.victims, (std::vector<PodId>{d}));
  (void)a;
}

TEST(PreemptionConfig, DefaultPreemptionArgs) {
  const std::string path = ::testing::TempDir() + "/preempt-config.yaml";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n"
        "- schedulerName: default-scheduler\n"
        "  pluginConfig:\n"
        "  - name: DefaultPreemption\n"
        "    args:\n"
        "      minCandidateNodesPercentage: 20\n"
        "      minCandidateNodesAbsolute: 3\n"
        "- schedulerName: no-preemption\n"
        "  plugins:\n"
        "    postFilter:\n"
        "      disabled:\n"
        "      - name: DefaultPreemption\n",
        f);
    std::fclose(f);
  }
  ResourceNames names;
  const SchedulerConfig config = load_scheduler_config(path, names);
  ASSERT_EQ(config.profiles.size(), 2u);
  ASSERT_TRUE(config.profiles[0].preemption.has_value());
  EXPECT_EQ(config.profiles[0].preemption->min_candidate_nodes_percentage, 20);
  EXPECT_EQ(config.profiles[0].preemption->min_candidate_nodes_absolute, 3);
  EXPECT_FALSE(config.profiles[1].preemption.has_value());
  const SchedulerConfig def = default_scheduler_config(names);
  ASSERT_TRUE(def.profiles[0].preemption.has_value());
  EXPECT_EQ(def.profiles[0].preemption->min_candidate_nodes_percentage, 10);
  EXPECT_EQ(def.profiles[0].preemption->min_candidate_nodes_absolute, 100);
}

TEST(PreemptionEndToEnd, VictimRequestsWaitForTheClientsTokens) {
  // prepareCandidate's requests take tokens of the scheduler's client (qps 10, burst 2 here):
  // per victim a DisruptionTarget status patch and a DELETE. Four victims on n0: the first's
  // two requests use the burst (deleted at 0), each further victim waits 0.2 s for two tokens
  // (deleted at 0.2, 0.4, 0.6 s). The cycle goes on after the last one (PostFilter is
  // synchronous): the preemptor's nomination patch takes the next token, at 0.7 s.
  ObjectStore store;
  store.ensure_namespace("default");
  testing::FakeSchedulerHost loop{&store};
  SchedulerConfig config = default_scheduler_config(store.resource_names());
  config.client_qps = 10;
  config.client_burst = 2;
  SchedulerLatencies latencies;
  latencies.client_rate_limit = true;
  Scheduler scheduler(store, std::move(config), latencies, 1, loop);
  loop.attach(&scheduler);
  store.add_listener(&loop);
  const NodeId n0 = store.create_node(testing::NodeBuilder("n0").cpu_milli(4000).memory_bytes(64 * kGi));
  const PodTemplateId low =
      store.add_template(testing::PodTemplateBuilder().cpu_milli(1000).memory_bytes(kGi).grace_seconds(30).build());
  std::vector<PodId> victims;
  for (int i = 0; i < 4; ++i)
    victims.push_back(store.create_pod(testing::PodBuilder(low).name("v" + std::to_string(i)).on(n0, at_s(i))));
  const PodTemplateId high = store.add_template(
      testing::PodTemplateBuilder().cpu_milli(4000).memory_bytes(kGi).priority(100).grace_seconds(30).build());
  const PodId p = store.create_pod(testing::PodBuilder(high).name("p"));
  const auto ms = [](std::int64_t m) { return SimTime::at(Duration::millis(m)); };
  loop.run_until(ms(599));
  std::vector<SimTime> deleted;
  for (const PodId v : victims)
    if (store.pod(v).terminating()) deleted.push_back(store.pod(v).deletion_requested);
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, (std::vector<SimTime>{ms(0), ms(200), ms(400)}));
  EXPECT_FALSE(store.pod(p).nominated_node.valid());
  loop.run_until(ms(699));
  for (const PodId v : victims) EXPECT_TRUE(store.pod(v).terminating());
  EXPECT_FALSE(store.pod(p).nominated_node.valid());  // its status patch waits for a token
  loop.run_until(ms(700));
  EXPECT_EQ(store.pod(p).nominated_node, n0);
}

}  // namespace
}  // namespace kubesim

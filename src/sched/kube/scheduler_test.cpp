// Scheduler decisions (pkg/scheduler/schedule_one.go v1.26): numFeasibleNodesToFind,
// findNodesThatPassFilters from nextStartNodeIndex, FitError message, selectHost's seeded
// reservoir tie-break, and the default profile's scores (LeastAllocated + BalancedAllocation
// are the only node-dependent ones for pods without taints/affinity).
#include "sched/kube/scheduler.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kubesim {
namespace {

TEST(NumFeasibleNodesToFind, Table) {
  struct Case {
    std::int32_t percentage, nodes, want;
  };
  const Case cases[] = {
      {0, 0, 0},         {0, 1, 1},        {0, 50, 50},       {0, 99, 99},
      {0, 100, 100},     // 50 - 0 = 50% -> 50 -> floored at 100
      {0, 200, 100},     // 49% -> 98 -> 100
      {0, 1000, 420},    // 50 - 1000/125 = 42%
      {0, 5000, 500},    // 50 - 40 = 10%
      {0, 5624, 337},    // 50 - 5624/125 (44) = 6% -> 337.44 -> 337
      {0, 6000, 300},    // 50 - 48 = 2% -> min 5% -> 300
      {0, 100000, 5000}, // 5%
      {30, 1000, 300},   {30, 99, 99},       {10, 500, 100},  // 50 -> floored at 100
      {100, 1000, 1000}, {50, 1000, 500},    {1, 20000, 200},
  };
  for (const auto& c : cases)
    EXPECT_EQ(Scheduler::num_feasible_nodes_to_find(c.percentage, c.nodes), c.want)
        << c.percentage << "% of " << c.nodes;
}

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

struct Cluster {
  ObjectStore store;
  testing::FakeSchedulerHost host{&store};  // a sink for posted events and the zero-delay informer
  std::unique_ptr<Scheduler> scheduler;

  explicit Cluster(std::uint64_t seed = 1, SchedulerLatencies latencies = {},
                   std::optional<SchedulerConfig> config = std::nullopt) {
    store.ensure_namespace("default");
    scheduler = std::make_unique<Scheduler>(
        store, config ? std::move(*config) : default_scheduler_config(store.resource_names()), latencies, seed, host);
    host.attach(scheduler.get());
    store.add_listener(&host);
  }
  NodeId add_node(const std::string& name, std::int64_t cpu_milli, std::int64_t mem) {
    return store.create_node(testing::NodeBuilder(name).cpu_milli(cpu_milli).memory_bytes(mem));
  }
  PodTemplateId add_template(std::int64_t cpu_milli, std::int64_t mem) {
    return store.add_template(testing::PodTemplateBuilder().cpu_milli(cpu_milli).memory_bytes(mem));
  }
  // A pod already bound to `node` (accounted in the scheduler's cache), or a pending pod.
  PodId add_pod(PodTemplateId spec, NodeId node = NodeId()) {
    Pod p = testing::PodBuilder(spec).name("pod" + std::to_string(store.pod_count()));
    if (node.valid()) {  // bound, without a start time
      p.node = node;
      p.phase = PodPhase::kRunning;
    }
    return store.create_pod(std::move(p));
  }
};

TEST(SchedulerDecide, NoNodes) {
  Cluster c;
  const PodId p = c.add_pod(c.add_template(100, 0));
  const auto d = c.scheduler->decide(p);
  EXPECT_FALSE(d.node.valid());
  EXPECT_EQ(d.message, "no nodes available to schedule pods");
}

TEST(SchedulerDecide, LeastAllocatedPicksEmptiestNode) {
  Cluster c;
  const NodeId n0 = c.add_node("n0", 4000, 8 * kGi);
  const NodeId n1 = c.add_node("n1", 4000, 8 * kGi);
  const NodeId n2 = c.add_node("n2", 4000, 8 * kGi);
  c.add_pod(c.add_template(2000, 2 * kGi), n0);
  c.add_pod(c.add_template(1000, 1 * kGi), n1);
  c.add_pod(c.add_template(3000, 3 * kGi), n2);
  const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
  // Fit + Balanced (the other default scores are equal on every node):
  // n0: cpu 3000/4000 -> 25, mem 3/8 -> 62 => 43; balanced |.75-.375|/2 -> 81 => 124
  // n1: cpu 50, mem 75 => 62; balanced |.5-.25|/2 -> 87 => 149
  // n2: cpu 0, mem 50 => 25; balanced |1-.5|/2 -> 75 => 100
  const auto d = c.scheduler->decide(p);
  EXPECT_EQ(d.node, n1);
  EXPECT_EQ(d.feasible, 3u);
  EXPECT_EQ(d.processed, 3u);
  EXPECT_TRUE(d.message.empty());
}

TEST(SchedulerDecide, BalancedAllocationBreaksLeastAllocatedTie) {
  Cluster c;
  const NodeId a = c.add_node("a", 4000, 4 * kGi);
  const NodeId b = c.add_node("b", 4000, 4 * kGi);
  c.add_pod(c.add_template(2000, 0), a);  // memory explicitly 0
  c.add_pod(c.add_template(1000, 1 * kGi), b);
  const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
  // LeastAllocated: a: cpu 25, mem 75 -> 50; b: cpu 50, mem 50 -> 50 (tie).
  // Balanced: a: (.75, .25) -> 75; b: (.5, .5) -> 100.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c.scheduler->decide(p).node, b);
}

TEST(SchedulerDecide, TooBigForEveryNode) {
  Cluster c;
  for (int i = 0; i < 3; ++i) c.add_node("n" + std::to_string(i), 4000, 8 * kGi);
  const PodId p = c.add_pod(c.add_template(8000, 1 * kGi));
  const auto d = c.scheduler->decide(p);
  EXPECT_FALSE(d.node.valid());
  EXPECT_EQ(d.feasible, 0u);
  EXPECT_EQ(d.processed, 3u);
  EXPECT_EQ(d.message, "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_EQ(d.interested_events, kEventPodDelete | kEventNodeAdd | kEventNodeUpdateAny);
}

TEST(SchedulerDecide, FitErrorCountsReasonsSorted) {
  Cluster c;
  c.add_node("small-cpu", 1000, 8 * kGi);
  c.add_node("small-mem", 8000, 1 * kGi);
  c.add_node("small-cpu-2", 1000, 8 * kGi);
  Node cordoned;  // NodeUnschedulable runs first in the default profile
  cordoned.name = "cordoned";
  cordoned.allocatable[kCpu] = 8000;
  cordoned.allocatable[kMemory] = 8 * kGi;
  cordoned.unschedulable = true;
  c.store.create_node(cordoned);
  const PodId p = c.add_pod(c.add_template(2000, 2 * kGi));
  const auto d = c.scheduler->decide(p);
  EXPECT_FALSE(d.node.valid());
  // FitError.Error: "<count> <reason>" strings sorted, joined by ", ".
  EXPECT_EQ(d.message,
            "0/4 nodes are available: 1 Insufficient memory, 1 node(s) were unschedulable, 2 Insufficient cpu.");
}

// fit.go (v1.26) Filter keeps every insufficient resource as a failure reason, and FitError
// counts each reason per node, so kube-scheduler says
// "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory."
TEST(SchedulerDecide, FitErrorListsEveryInsufficientResource) {
  Cluster c;
  c.add_node("n0", 1000, 1 * kGi);
  c.add_node("n1", 1000, 1 * kGi);
  const PodId p = c.add_pod(c.add_template(2000, 2 * kGi));
  EXPECT_EQ(c.scheduler->decide(p).message, "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory.");
}

TEST(SchedulerDecide, SingleFeasibleNodeChosenDirectly) {
  Cluster c;
  c.add_node("small", 1000, 8 * kGi);
  const NodeId big = c.add_node("big", 8000, 8 * kGi);
  const PodId p = c.add_pod(c.add_template(2000, 1 * kGi));
  const auto d = c.scheduler->decide(p);
  EXPECT_EQ(d.node, big);
  EXPECT_EQ(d.feasible, 1u);
  EXPECT_EQ(d.processed, 2u);
}

TEST(SchedulerDecide, RotatingStartIndexAdvancesByProcessedNodes) {
  // 200 identical nodes: adaptive 49% -> 98 -> at least 100 feasible nodes to find. Each
  // decision processes 100 nodes, so nextStartNodeIndex goes 0 -> 100 -> 0 and the chosen
  // node (a tie among the 100 found) alternates between the two halves.
  Cluster c;
  std::vector<NodeId> nodes;
  for (int i = 0; i < 200; ++i) nodes.push_back(c.add_node("n" + std::to_string(i), 4000, 8 * kGi));
  const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
  for (int round = 0; round < 6; ++round) {
    const auto d = c.scheduler->decide(p);
    ASSERT_TRUE(d.node.valid());
    EXPECT_EQ(d.feasible, 100u);
    EXPECT_EQ(d.processed, 100u);
    if (round % 2 == 0) {
      EXPECT_LT(d.node.value(), 100u) << round;
    } else {
      EXPECT_GE(d.node.value(), 100u) << round;
    }
  }
}

TEST(SchedulerDecide, RotatingStartIndexCountsFailedNodes) {
  // Nodes 0..49 are too small, 50..249 fit: the first search processes 50 failures and 100
  // feasible nodes (50..149), so the next one starts at 150 and finds 150..249.
  Cluster c;
  for (int i = 0; i < 250; ++i) c.add_node("n" + std::to_string(i), i < 50 ? 500 : 4000, 8 * kGi);
  const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
  // 250 nodes: 50 - 2 = 48% -> 120 feasible nodes to find.
  ASSERT_EQ(Scheduler::num_feasible_nodes_to_find(0, 250), 120);
  auto d = c.scheduler->decide(p);
  EXPECT_EQ(d.feasible, 120u);
  EXPECT_EQ(d.processed, 170u);
  EXPECT_GE(d.node.value(), 50u);
  EXPECT_LT(d.node.value(), 170u);
  d = c.scheduler->decide(p);  // starts at 170: 170..249 (80) + wraps: 0..49 fail, 50..89 (40)
  EXPECT_EQ(d.feasible, 120u);
  EXPECT_EQ(d.processed, 170u);
  EXPECT_TRUE(d.node.value() >= 170u || (d.node.value() >= 50u && d.node.value() < 90u)) << d.node.value();
}

std::uint32_t first_choice(std::uint64_t seed, int nodes) {
  Cluster c(seed);
  for (int i = 0; i < nodes; ++i) c.add_node("n" + std::to_string(i), 4000, 8 * kGi);
  const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
  return c.scheduler->decide(p).node.value();
}

TEST(SchedulerDecide, TieBreakIsSeeded) {
  EXPECT_EQ(first_choice(7, 4), first_choice(7, 4));
  std::set<std::uint32_t> seen;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) seen.insert(first_choice(seed, 4));
  EXPECT_GT(seen.size(), 1u);
  // The same seed gives the same sequence of choices over repeated decisions.
  auto sequence = [](std::uint64_t seed) {
    Cluster c(seed);
    for (int i = 0; i < 5; ++i) c.add_node("n" + std::to_string(i), 4000, 8 * kGi);
    const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
    std::vector<std::uint32_t> out;
    for (int i = 0; i < 20; ++i) out.push_back(c.scheduler->decide(p).node.value());
    return out;
  };
  EXPECT_EQ(sequence(3), sequence(3));
  EXPECT_NE(sequence(3), sequence(4));
}

TEST(SchedulerDecide, TieBreakIsUniformOverTiedNodes) {
  // selectHost's reservoir sampling picks each of k tied nodes with probability 1/k.
  constexpr int kNodes = 4;
  constexpr int kSeeds = 4000;
  int count[kNodes] = {};
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) ++count[first_choice(seed, kNodes)];
  for (int i = 0; i < kNodes; ++i) EXPECT_NEAR(count[i], kSeeds / kNodes, 150) << i;  // sd ~27
}

TEST(SchedulerDecide, DecideHasNoQueueSideEffects) {
  Cluster c;
  c.add_node("n0", 4000, 8 * kGi);
  const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
  // The pending pod was added to activeQ (and a cycle posted) by the change feed.
  EXPECT_EQ(c.scheduler->queue().active_size(), 1u);
  ASSERT_FALSE(c.host.posted().empty());
  EXPECT_EQ(c.host.posted().back().event.kind, SchedulerEvent::Kind::kCycle);
  EXPECT_EQ(c.host.posted().back().phase, Phase::kScheduler);
  const std::size_t posted = c.host.posted().size();
  c.scheduler->decide(p);
  EXPECT_EQ(c.scheduler->queue().active_size(), 1u);
  EXPECT_EQ(c.scheduler->queue().scheduling_cycle(), 0u);
  EXPECT_EQ(c.host.posted().size(), posted);
}

TEST(SchedulerCycle, ZeroLatencyCycleAssumesAndBinds) {
  Cluster c;
  const NodeId n0 = c.add_node("n0", 4000, 8 * kGi);
  const PodId p = c.add_pod(c.add_template(1000, 1 * kGi));
  ASSERT_EQ(c.host.posted().size(), 1u);
  c.scheduler->on_event(c.host.posted()[0].event, SimTime::zero());
  ASSERT_EQ(c.host.posted().size(), 2u);
  const auto& bind = c.host.posted()[1];
  EXPECT_EQ(bind.event.kind, SchedulerEvent::Kind::kBindDone);
  EXPECT_EQ(bind.phase, Phase::kApi);
  EXPECT_EQ(bind.at, SimTime::zero());
  EXPECT_EQ(bind.event.pod, p);
  EXPECT_EQ(bind.event.node, n0);
  EXPECT_EQ(c.store.pod(p).scheduling_attempts, 1u);
  c.scheduler->on_event(bind.event, SimTime::zero());
  EXPECT_EQ(c.store.pod(p).node, n0);
  EXPECT_EQ(c.store.pod(p).scheduled, SimTime::zero());
  EXPECT_EQ(c.scheduler->bindings(), 1u);
}

TEST(SchedulerCycle, FailureSetsPodScheduledMessage) {
  Cluster c;
  c.add_node("n0", 1000, 8 * kGi);
  const PodId p = c.add_pod(c.add_template(2000, 1 * kGi));
  c.scheduler->on_event(c.host.posted().at(0).event, SimTime::zero());
  EXPECT_EQ(c.store.pod(p).unschedulable_message, "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_FALSE(c.store.pod(p).node.valid());
  EXPECT_EQ(c.scheduler->queue().where(p), SchedulingQueue::Where::kUnschedulable);
  EXPECT_FALSE(c.scheduler->busy());
}

// The cycle's duration grows with its work (CycleCost): the nodes filtered times the enabled
// filter plugins, the nodes scored times the score plugins, the pods on scored nodes, on
// min(parallelism, cores) cores, plus the fixed part.
TEST(SchedulerCycle, DurationGrowsWithTheWork) {
  struct Case {
    const char* name;
    int nodes;
    int bound_per_node;      // pods already on each node
    std::int64_t pod_cpu;    // the new pod's request (milli)
    double cores;
    std::int32_t parallelism;
    std::int64_t want_us;
  };
  // Default profile: 5 modelled filter plugins, 7 score plugins. Coefficients: filter 1 us,
  // score 2 us per node and plugin, 10 us per pod on a scored node, fixed part 100 us.
  const Case cases[] = {
      {"one node: filtered, not scored", 1, 0, 1000, 1, 16, 100 + 5},
      {"ten nodes filtered and scored", 10, 0, 1000, 1, 16, 100 + 10 * 5 + 10 * 7 * 2},
      {"pods on the scored nodes", 10, 2, 1000, 1, 16, 100 + 10 * 5 + 10 * 7 * 2 + 20 * 10},
      {"two cores halve the parallel part", 10, 0, 1000, 2, 16, 100 + (10 * 5 + 10 * 7 * 2) / 2},
      {"parallelism caps the cores", 10, 0, 1000, 8, 1, 100 + 10 * 5 + 10 * 7 * 2},
      {"no node fits: filtered only", 10, 0, 8000, 1, 16, 100 + 10 * 5},
  };
  for (const Case& k : cases) {
    SchedulerLatencies lat;
    lat.cycle = Distribution::parse("fixed:0.0001", "test", 0);
    lat.cost.per_filtered_node_plugin = 1e-6;
    lat.cost.per_scored_node_plugin = 2e-6;
    lat.cost.per_pod_on_scored_node = 10e-6;
    lat.cost.cores = k.cores;
    Cluster c(1, lat);
    SchedulerConfig config = default_scheduler_config(c.store.resource_names());
    config.parallelism = k.parallelism;
    c.scheduler = std::make_unique<Scheduler>(c.store, std::move(config), lat, 1, c.host);
    c.host.attach(c.scheduler.get());
    for (int i = 0; i < k.nodes; ++i) {
      const NodeId n = c.add_node("n" + std::to_string(i), 4000, 8 * kGi);
      for (int j = 0; j < k.bound_per_node; ++j) c.add_pod(c.add_template(100, 0), n);
    }
    c.add_pod(c.add_template(k.pod_cpu, 0));
    c.host.posted().clear();
    c.scheduler->on_event(SchedulerEvent{SchedulerEvent::Kind::kCycle, PodId(), NodeId()}, SimTime::zero());
    ASSERT_FALSE(c.host.posted().empty()) << k.name;
    EXPECT_EQ(c.host.posted()[0].event.kind, SchedulerEvent::Kind::kCycleEnd) << k.name;
    EXPECT_EQ(c.host.posted()[0].at, SimTime::at(Duration::micros(k.want_us))) << k.name;
  }
}

// A failed cycle runs the preemption dry run on every potential node (here: no pod of lower
// priority, so none is a candidate) and pays per node and per pod on it.
TEST(SchedulerCycle, PreemptionDryRunCosts) {
  SchedulerLatencies lat;
  lat.cost.per_dry_run_node = 3e-6;
  lat.cost.per_pod_on_dry_run_node = 1e-6;
  Cluster c(1, lat);
  for (int i = 0; i < 4; ++i) {
    const NodeId n = c.add_node("n" + std::to_string(i), 1000, 8 * kGi);
    c.add_pod(c.add_template(1000, 0), n);
  }
  c.add_pod(c.add_template(1000, 0));
  c.host.posted().clear();
  c.scheduler->on_event(SchedulerEvent{SchedulerEvent::Kind::kCycle, PodId(), NodeId()}, SimTime::zero());
  ASSERT_FALSE(c.host.posted().empty());
  EXPECT_EQ(c.host.posted()[0].at, SimTime::at(Duration::micros(4 * 3 + 4 * 1)));
}

// Bindings wait for the client's token bucket (clientConnection qps/burst): with qps 10 and
// burst 2, the third binding of pods assumed at once goes 100 ms later, the fourth 200 ms.
TEST(SchedulerCycle, BindingsWaitForTheClientRateLimiter) {
  SchedulerLatencies lat;
  lat.client_rate_limit = true;
  SchedulerConfig config;
  {
    ObjectStore scratch;
    config = default_scheduler_config(scratch.resource_names());
  }
  config.client_qps = 10;
  config.client_burst = 2;
  Cluster c(1, lat, std::move(config));
  c.add_node("n0", 8000, 8 * kGi);
  for (int i = 0; i < 4; ++i) c.add_pod(c.add_template(100, 0));
  std::vector<SimTime> binds;
  for (std::size_t i = 0; i < c.host.posted().size(); ++i) {
    const auto ev = c.host.posted()[i];
    if (ev.event.kind == SchedulerEvent::Kind::kBindDone) {
      binds.push_back(ev.at);
      continue;
    }
    if (ev.event.kind == SchedulerEvent::Kind::kCycle) c.scheduler->on_event(ev.event, ev.at);
  }
  ASSERT_EQ(binds.size(), 4u);
  EXPECT_EQ(binds[0], SimTime::zero());
  EXPECT_EQ(binds[1], SimTime::zero());
  EXPECT_EQ(binds[2], SimTime::at(Duration::millis(100)));
  EXPECT_EQ(binds[3], SimTime::at(Duration::millis(200)));
}

}  // namespace
}  // namespace kubesim

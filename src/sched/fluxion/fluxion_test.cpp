// Fluxion / KubeFlux: hand-computed cases, derived in docs/derivations/fluxion.md (flux-sched
// match policies; kubeflux.go with and without the informer).
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/simulation.hpp"
#include "sched/fluxion/fluxion.hpp"
#include "sched/fluxion/resource_graph.hpp"
#include "workload/workload.hpp"

namespace kubesim {
namespace {

using fluxion::JobSpec;
using fluxion::MatchPolicy;
using fluxion::ResourceGraph;

MatchPolicy policy(const char* name) {
  auto p = fluxion::parse_policy(name);
  EXPECT_TRUE(p.has_value()) << name;
  return *p;
}

ResourceGraph two_nodes(std::uint32_t cores = 16) {
  ResourceGraph g;
  g.add_node({"n0", cores, 1, 64, 0});
  g.add_node({"n1", cores, 1, 64, 0});
  return g;
}

// (node, first core, last core) of each slot of a job.
std::string where(const ResourceGraph& g, std::uint64_t job) {
  std::string s;
  for (const auto& a : g.allocation(job)) {
    if (!s.empty()) s += " ";
    s += g.node(a.node).name + "[" + std::to_string(a.cores.front()) + "-" + std::to_string(a.cores.back()) + "]";
  }
  return s;
}

TEST(FluxionGraph, PolicyNames) {
  for (const char* n : {"first", "firstnodex", "high", "low", "lonode", "lonodex", "hinode", "hinodex", "locality"})
    EXPECT_EQ(fluxion::policy_name(policy(n)), n);
  EXPECT_FALSE(fluxion::parse_policy("variation").has_value());  // var_aware_t is not modelled
}

// §3.4: two free 16-core nodes, three single-pod jobs of 8 cores.
TEST(FluxionGraph, LonodePacksLowestNodeLowestCores) {
  ResourceGraph g = two_nodes();
  const JobSpec j{1, {8, 0, 0}};
  EXPECT_EQ(where(g, g.match_allocate(j, policy("lonode"))), "n0[0-7]");
  EXPECT_EQ(where(g, g.match_allocate(j, policy("lonode"))), "n0[8-15]");
  EXPECT_EQ(where(g, g.match_allocate(j, policy("lonode"))), "n1[0-7]");
}

TEST(FluxionGraph, HinodePacksHighestNodeHighestCores) {
  ResourceGraph g = two_nodes();
  const JobSpec j{1, {8, 0, 0}};
  EXPECT_EQ(where(g, g.match_allocate(j, policy("hinode"))), "n1[8-15]");
  EXPECT_EQ(where(g, g.match_allocate(j, policy("hinode"))), "n1[0-7]");
  EXPECT_EQ(where(g, g.match_allocate(j, policy("hinode"))), "n0[8-15]");
}

TEST(FluxionGraph, FirstIsHighestNodeThatFits) {
  ResourceGraph g = two_nodes();
  EXPECT_EQ(where(g, g.match_allocate({1, {12, 0, 0}}, policy("first"))), "n1[4-15]");
  // n1 has 4 cores left: a 6-core job goes to n0.
  EXPECT_EQ(where(g, g.match_allocate({1, {6, 0, 0}}, policy("first"))), "n0[10-15]");
}

TEST(FluxionGraph, LowSpreadsSlotsHighToo) {
  // §3.4 multi-slot: 2 slots x 4 cores; lonode puts both on n0, low one per node.
  {
    ResourceGraph g = two_nodes();
    EXPECT_EQ(where(g, g.match_allocate({2, {4, 0, 0}}, policy("lonode"))), "n0[0-3] n0[4-7]");
  }
  {
    ResourceGraph g = two_nodes();
    EXPECT_EQ(where(g, g.match_allocate({2, {4, 0, 0}}, policy("low"))), "n0[0-3] n1[0-3]");
    // A third single 4-core job: both nodes' 4th-lowest free id is 7: tie -> n0.
    EXPECT_EQ(where(g, g.match_allocate({1, {4, 0, 0}}, policy("low"))), "n0[4-7]");
    // Now n0's 4th-lowest free id is 11, n1's 7 -> n1.
    EXPECT_EQ(where(g, g.match_allocate({1, {4, 0, 0}}, policy("low"))), "n1[4-7]");
  }
  {
    // high: each node's best slot is its cores 12-15 (score 13+14+15+16 = 58 on both);
    // dom_finish_graph's std::sort of the 8 candidates keeps node order on ties, so the two
    // best are n0's and n1's first slots.
    ResourceGraph g = two_nodes();
    EXPECT_EQ(where(g, g.match_allocate({2, {4, 0, 0}}, policy("high"))), "n0[12-15] n1[12-15]");
    // A single 4-core job: n0's next slot 8-11 scores 42, n1's 8-11 the same: n0.
    EXPECT_EQ(where(g, g.match_allocate({1, {4, 0, 0}}, policy("high"))), "n0[8-11]");
  }
}

// low compares the sum of the slot's ids + 1, not its highest id: n0 free {0, 4}, n1 free
// {2, 3}; a 2-core slot scores (0+1) + (4+1) = 6 on n0 and (2+1) + (3+1) = 7 on n1 -> n0
// (by its highest id, 4 > 3, it would be n1).
TEST(FluxionGraph, LowComparesIdSums) {
  ResourceGraph g;
  g.add_node({"n0", 5, 1, 0, 0});
  g.add_node({"n1", 4, 1, 0, 0});
  const auto a = g.match_allocate({1, {1, 0, 0}}, policy("lonode"));
  EXPECT_EQ(where(g, a), "n0[0-0]");
  EXPECT_EQ(where(g, g.match_allocate({1, {3, 0, 0}}, policy("lonode"))), "n0[1-3]");
  g.cancel(a);
  EXPECT_EQ(where(g, g.allocate_on(1, {2, 0, 0})), "n1[0-1]");
  EXPECT_EQ(where(g, g.match_allocate({1, {2, 0, 0}}, policy("low"))), "n0[0-4]");
}

TEST(FluxionGraph, NodeExclusiveTakesTheWholeNode) {
  ResourceGraph g = two_nodes();
  const std::uint64_t a = g.match_allocate({1, {2, 0, 0}}, policy("lonodex"));
  EXPECT_EQ(where(g, a), "n0[0-15]");  // 2 cores asked, the node's 16 held
  EXPECT_EQ(g.free_memory(0), 0u);
  const std::uint64_t b = g.match_allocate({1, {2, 0, 0}}, policy("lonodex"));
  EXPECT_EQ(where(g, b), "n1[0-15]");
  EXPECT_EQ(g.match_allocate({1, {1, 0, 0}}, policy("lonode")), 0u);  // nothing left for anyone
  EXPECT_TRUE(g.cancel(a));
  // A non-exclusive job on n0 makes it unusable for a node-exclusive one.
  EXPECT_EQ(where(g, g.match_allocate({1, {1, 0, 0}}, policy("lonode"))), "n0[0-0]");
  EXPECT_EQ(g.match_allocate({1, {1, 0, 0}}, policy("hinodex")), 0u);
}

// dfu_match_locality.cpp greater_interval_first_t: high's vertex order, slots compared by the
// interval (runs of consecutive scores) their score falls in.
TEST(FluxionGraph, LocalityComparesScoreIntervals) {
  ResourceGraph g = two_nodes(8);
  const std::uint64_t a = g.match_allocate({1, {6, 0, 0}}, policy("lonode"));
  EXPECT_EQ(where(g, a), "n0[0-5]");
  const std::uint64_t b = g.match_allocate({1, {2, 0, 0}}, policy("lonode"));
  EXPECT_EQ(where(g, b), "n0[6-7]");
  g.cancel(a);
  EXPECT_EQ(where(g, g.match_allocate({1, {2, 0, 0}}, policy("lonode"))), "n0[0-1]");
  EXPECT_EQ(where(g, g.match_allocate({1, {2, 0, 0}}, policy("lonode"))), "n0[2-3]");
  // n0 free {4, 5}: one slot {5, 4}, score 6 + 5 = 11. n1 free 0-7: slots {7,6} 15, {5,4} 11,
  // {3,2} 7, {1,0} 3. Intervals [3], [7], [11], [15] (no two consecutive): the highest, n1's
  // {6, 7}.
  EXPECT_EQ(where(g, g.match_allocate({1, {2, 0, 0}}, policy("locality"))), "n1[6-7]");
  // Consecutive scores merge: n0 with 14 cores (1-core slots score 14..1) and n1 with 15
  // (15..1) make the single interval [1, 15]; every slot ties and node order wins: n0's
  // core 13, where high takes the highest score, n1's core 14.
  ResourceGraph h;
  h.add_node({"n0", 14, 1, 0, 0});
  h.add_node({"n1", 15, 1, 0, 0});
  EXPECT_EQ(where(h, h.match_allocate({1, {1, 0, 0}}, policy("locality"))), "n0[13-13]");
  EXPECT_EQ(where(h, h.match_allocate({1, {1, 0, 0}}, policy("high"))), "n1[14-14]");
}

TEST(FluxionGraph, SocketsAndGpusAndMemory) {
  ResourceGraph g;
  g.add_node({"n0", 16, 2, 4, 2});
  EXPECT_EQ(g.socket_of(0, 7), 0u);
  EXPECT_EQ(g.socket_of(0, 8), 1u);
  const std::uint64_t j = g.match_allocate({1, {1, 3, 1}}, policy("lonode"));
  ASSERT_NE(j, 0u);
  EXPECT_EQ(g.allocation(j)[0].gpus, std::vector<std::uint32_t>{0});
  EXPECT_EQ(g.free_memory(0), 1u);
  EXPECT_EQ(g.allocation(j)[0].memory_ids, (std::vector<std::uint32_t>{0, 1, 2}));  // lowest ids
  EXPECT_EQ(g.match_allocate({1, {1, 2, 0}}, policy("lonode")), 0u);  // memory exhausted
  const std::uint64_t h = g.match_allocate({1, {1, 1, 1}}, policy("hinode"));
  EXPECT_EQ(where(g, h), "n0[15-15]");
  EXPECT_EQ(g.allocation(h)[0].memory_ids, std::vector<std::uint32_t>{3});
  EXPECT_EQ(g.free_gpus(0), 0u);
  g.cancel(j);
  EXPECT_EQ(g.free_memory(0), 3u);
}

TEST(FluxionGraph, CancelFreesAndRejectedMatchConsumesNoId) {
  ResourceGraph g;
  g.add_node({"n0", 16, 1, 16, 0});
  const std::uint64_t a = g.match_allocate({1, {8, 0, 0}}, policy("lonode"));
  const std::uint64_t b = g.match_allocate({1, {8, 0, 0}}, policy("lonode"));
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(b, 2u);
  EXPECT_EQ(g.match_allocate({1, {8, 0, 0}}, policy("lonode")), 0u);
  EXPECT_TRUE(g.cancel(a));
  EXPECT_FALSE(g.cancel(a));
  EXPECT_EQ(g.free_cores(0), 8u);
  const std::uint64_t c = g.match_allocate({1, {8, 0, 0}}, policy("lonode"));
  EXPECT_EQ(c, 3u);
  EXPECT_EQ(where(g, c), "n0[0-7]");
  EXPECT_EQ(g.live_jobs(), 2u);
}

// ---- Whole runs (ideal model: no latencies) ----

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;

WorkloadJob job(int id, double submit, double run, std::uint32_t tmpl, bool as_job = false) {
  WorkloadJob j;
  j.id = std::to_string(id);
  j.name = "p" + std::to_string(id);
  j.profile = "p";
  j.submit = SimTime::from_seconds(submit);
  j.run_time = Duration::from_seconds(run);
  j.pod_template = tmpl;
  j.as_job = as_job;
  return j;
}

FluxionConfig config(bool informer, bool fit = true, const char* policy_name = "lonode") {
  FluxionConfig c;
  c.informer = informer;
  c.reflect_other_schedulers = informer;
  c.node_resources_fit = fit;
  c.policy = policy(policy_name);
  c.cycle = Distribution();
  c.bind = Distribution();
  return c;
}

struct FluxRun {
  std::unique_ptr<Simulation> sim;
  FluxionScheduler* flux = nullptr;
};

// One control-plane node (excluded from the graph) and `workers` worker nodes of `cpu` millicores.
FluxRun simulate(std::vector<WorkloadJob> jobs, std::vector<PodTemplate> templates, FluxionConfig c, int workers = 1,
             std::int64_t cpu = 16000, double until = -1) {
  SimulationInputs in;
  Node cp;
  cp.name = "control-plane";
  set_label(cp.labels, "node-role.kubernetes.io/control-plane", "");
  cp.taints.push_back(Taint{"node-role.kubernetes.io/control-plane", "", TaintEffect::kNoSchedule});
  cp.allocatable[kCpu] = 4000;
  cp.allocatable[kMemory] = 8 * kGi;
  cp.capacity = cp.allocatable;
  in.nodes.push_back(cp);
  for (int i = 0; i < workers; ++i) {
    Node n;
    n.name = "worker-" + std::to_string(i);
    n.allocatable[kCpu] = cpu;
    n.allocatable[kMemory] = 64 * kGi;
    n.capacity = n.allocatable;
    in.nodes.push_back(n);
  }
  in.workload.templates = std::move(templates);
  in.workload.jobs = std::move(jobs);
  in.scheduler = default_scheduler_config(in.resource_names);
  FluxRun r;
  FluxionScheduler** slot = &r.flux;
  in.other_schedulers.push_back(SchedulerFactory{
      [c, slot](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) -> std::unique_ptr<SchedulerModel> {
        auto s = std::make_unique<FluxionScheduler>(store, host, options.seed, c);
        *slot = s.get();
        return s;
      },
      Duration()});
  SimulationOptions o;
  o.model = ModelConfig::ideal();
  if (until >= 0) o.until = SimTime::from_seconds(until);
  r.sim = std::make_unique<Simulation>(std::move(in), o);
  r.sim->run();
  return r;
}

PodTemplate flux_pod(std::int64_t cpu_milli) { return batch_job_template(cpu_milli, kGi, "fluxion"); }

// §3.1: informer off: p1, p2 take cores 0-7 and 8-15; p3 waits forever with "no fit".
TEST(FluxionRun, StaleGraphWithoutInformerWaitsForever) {
  FluxRun r = simulate({job(1, 0, 10, 0), job(2, 0, 10, 0), job(3, 0, 10, 0)}, {flux_pod(8000)}, config(false));
  const ObjectStore& s = r.sim->store();
  const auto& pods = r.sim->job_pods();
  EXPECT_EQ(s.pod(pods[0]).phase, PodPhase::kSucceeded);
  EXPECT_EQ(s.pod(pods[1]).phase, PodPhase::kSucceeded);
  EXPECT_EQ(s.pod(pods[2]).phase, PodPhase::kPending);
  EXPECT_FALSE(s.pod(pods[2]).node.valid());
  EXPECT_EQ(s.pod(pods[2]).unschedulable_message,
            "0/2 nodes are available: Pod cannot be scheduled by KubeFlux, nodename NONE.");
  EXPECT_EQ(r.sim->pending_pods(), 1u);
  // The finished pods' jobs are still allocated: the graph shows 16/16 cores taken.
  EXPECT_EQ(r.flux->graph().node_count(), 1u);  // the control-plane node is not in the graph
  EXPECT_EQ(r.flux->graph().free_cores(0), 0u);
  EXPECT_EQ(r.flux->cancellations(), 0u);
  EXPECT_GE(r.flux->attempts(), 4u);  // p3 retried after the pods' deletion events
}

// §3.2: informer on: p1's Succeeded cancels job 1; p3 gets cores 0-7 and runs at t = 10.
TEST(FluxionRun, InformerCancelsOnTermination) {
  FluxRun r = simulate({job(1, 0, 10, 0), job(2, 0, 10, 0), job(3, 0, 10, 0)}, {flux_pod(8000)}, config(true));
  const ObjectStore& s = r.sim->store();
  const auto& pods = r.sim->job_pods();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s.pod(pods[i]).phase, PodPhase::kSucceeded) << i;
  EXPECT_EQ(s.pod(pods[2]).started, SimTime::from_seconds(10));
  EXPECT_EQ(r.sim->pending_pods(), 0u);
  EXPECT_EQ(r.flux->cancellations(), 3u);
  EXPECT_EQ(r.flux->graph().free_cores(0), 16u);
  EXPECT_EQ(r.flux->graph().live_jobs(), 0u);
  EXPECT_EQ(r.flux->graph().jobs_allocated(), 3u);
}

// Fluence jobspec.go: memory counts MB (bytes >> 20); the graph's 1 GiB vertices (1024 MB
// each) are taken whole. A 64 GiB worker has 64 vertices; 1.5 GiB = 1536 MB takes 2, and
// 1 GiB + 512 KiB = 1024 MB (floored) takes 1.
TEST(FluxionRun, MemoryInWholeGiBVertices) {
  std::vector<PodTemplate> t{batch_job_template(1000, kGi + kGi / 2, "fluxion"),
                             batch_job_template(1000, kGi + 512 * 1024, "fluxion")};
  FluxRun r = simulate({job(1, 0, 100, 0), job(2, 0, 100, 0), job(3, 0, 100, 1)}, t, config(true), 1, 16000, 1);
  EXPECT_EQ(r.flux->graph().node(0).memory, 64u);
  EXPECT_EQ(r.flux->graph().free_memory(0), 64u - 2 - 2 - 1);
}

// §3.5: 1500m -> 2 exclusive cores: a 4-core node takes two such pods; a third 100m pod
// finds no core in Flux although Kubernetes has 1 cpu free.
TEST(FluxionRun, WholeCoresRounding) {
  const std::vector<WorkloadJob> jobs{job(1, 0, 100, 0), job(2, 0, 100, 0), job(3, 1, 100, 1)};
  const std::vector<PodTemplate> templates{flux_pod(1500), flux_pod(100)};
  {
    // At t = 50: the graph shows 4/4 cores used while Kubernetes sees 3.0/4.
    FluxRun mid = simulate(jobs, templates, config(true), 1, 4000, 50);
    const auto& pods = mid.sim->job_pods();
    EXPECT_EQ(where(mid.flux->graph(), mid.flux->job_of(pods[0])), "worker-0[0-1]");
    EXPECT_EQ(where(mid.flux->graph(), mid.flux->job_of(pods[1])), "worker-0[2-3]");
    EXPECT_EQ(mid.flux->graph().free_cores(0), 0u);
    EXPECT_EQ(mid.sim->store().pod(pods[2]).phase, PodPhase::kPending);
  }
  FluxRun r = simulate(jobs, templates, config(true), 1, 4000);
  const ObjectStore& s = r.sim->store();
  const auto& pods = r.sim->job_pods();
  EXPECT_EQ(s.pod(pods[0]).started, SimTime::zero());
  EXPECT_EQ(s.pod(pods[1]).started, SimTime::zero());
  // p3 waited for a whole core until t = 100.
  EXPECT_EQ(s.pod(pods[2]).started, SimTime::from_seconds(100));
}

// §3.3: another scheduler's pod d (8 cores) on the node; Fluxion's k1, k2 (8 cores each).
std::vector<PodTemplate> mixed_templates() {
  return {batch_job_template(8000, kGi, "default-scheduler"), flux_pod(8000)};
}
std::vector<WorkloadJob> mixed_jobs(bool as_job) {
  return {job(1, 0, 100, 0), job(2, 1, 50, 1, as_job), job(3, 1, 50, 1, as_job)};
}

TEST(FluxionRun, OtherSchedulersPodUnseenFitRejects) {
  // Informer off, NodeResourcesFit in the profile: k2 is given cores 8-15 by Flux and
  // rejected by NodeResourcesFit; it leaks a job on every retry until d ends at t = 100.
  FluxRun r = simulate(mixed_jobs(false), mixed_templates(), config(false));
  const ObjectStore& s = r.sim->store();
  const auto& pods = r.sim->job_pods();
  EXPECT_EQ(s.pod(pods[1]).started, SimTime::from_seconds(1));
  EXPECT_EQ(s.pod(pods[2]).phase, PodPhase::kPending);  // the graph filled up with leaked jobs
  EXPECT_EQ(s.pod(pods[2]).unschedulable_message,
            "0/2 nodes are available: Pod cannot be scheduled by KubeFlux, nodename NONE.");
  EXPECT_EQ(r.flux->graph().free_cores(0), 0u);
}

TEST(FluxionRun, OtherSchedulersPodUnseenKubeletRejectsOutOfcpu) {
  // Informer off, no NodeResourcesFit: k2 binds and the kubelet rejects it (OutOfcpu).
  FluxRun r = simulate(mixed_jobs(false), mixed_templates(), config(false, false));
  const Pod& k2 = r.sim->store().pod(r.sim->job_pods()[2]);
  EXPECT_EQ(k2.phase, PodPhase::kFailed);
  EXPECT_EQ(k2.reason, "OutOfcpu");
}

TEST(FluxionRun, InformerReflectsOtherSchedulersPods) {
  // State sync: d holds 8 graph cores, so k2 waits in Flux (no rejection) and runs when k1
  // ends at t = 51.
  FluxRun r = simulate(mixed_jobs(true), mixed_templates(), config(true, false));
  const ObjectStore& s = r.sim->store();
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(s.pod(r.sim->job_pods()[i]).phase, PodPhase::kSucceeded) << i;
  EXPECT_EQ(s.pod(r.sim->job_pods()[2]).started, SimTime::from_seconds(51));
  for (std::size_t i = 0; i < s.pod_count(); ++i) EXPECT_NE(s.pod(PodId(static_cast<std::uint32_t>(i))).reason, "OutOfcpu");
  EXPECT_EQ(r.flux->graph().live_jobs(), 0u);
}

TEST(FluxionRun, PodGroupGetsAllSlotsAtOnce) {
  PodTemplate t = flux_pod(4000);
  set_label(t.labels, "scheduling.x-k8s.io/pod-group", "g");
  FluxionConfig c = config(true, true, "low");
  c.pod_groups.push_back({"g", 2});
  FluxRun r = simulate({job(1, 0, 10, 0), job(2, 0, 10, 0)}, {t}, c, 2);
  const ObjectStore& s = r.sim->store();
  const auto& pods = r.sim->job_pods();
  // low spreads the group's two slots over both workers (store nodes 1 and 2).
  EXPECT_EQ(s.pod(pods[0]).node.value(), 1u);
  EXPECT_EQ(s.pod(pods[1]).node.value(), 2u);
  EXPECT_EQ(r.flux->graph().jobs_allocated(), 1u);
}

TEST(FluxionConfigFile, ReadsKeysAndNamesBadLines) {
  const std::string path = ::testing::TempDir() + "fluxion.yaml";
  {
    std::ofstream f(path);
    f << "matchPolicy: hinodex\ninformer: false\nsocketsPerNode: 2\npodGroups:\n  - {name: g, minMember: 3}\n";
  }
  FluxionConfig c = load_fluxion_config(path);
  EXPECT_EQ(fluxion::policy_name(c.policy), "hinodex");
  EXPECT_FALSE(c.informer);
  EXPECT_FALSE(c.reflect_other_schedulers);
  EXPECT_EQ(c.sockets_per_node, 2u);
  ASSERT_EQ(c.pod_groups.size(), 1u);
  EXPECT_EQ(c.pod_groups[0].min_member, 3u);
  {
    std::ofstream f(path);
    f << "informer: true\nmatchPolicy: variation\n";
  }
  try {
    load_fluxion_config(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("matchPolicy"), std::string::npos);
  }
}

}  // namespace
}  // namespace kubesim

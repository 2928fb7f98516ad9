// Whole runs through Simulation with inputs built in code.
#include "engine/simulation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "sched/batch/batch_scheduler.hpp"
#include "testing/inputs.hpp"

namespace kubesim {
namespace {

using testing::JobBuilder;
using testing::NodeBuilder;
using testing::PodTemplateBuilder;

// `nodes` nodes "node-<i>" of `node_cpu` milli-cores and 16Gi.
SimulationInputs inputs(std::size_t nodes, std::int64_t node_cpu, std::vector<WorkloadJob> jobs,
                        std::vector<PodTemplate> templates) {
  return testing::make_inputs(testing::numbered_nodes(nodes, NodeBuilder("").cpu_milli(node_cpu).memory("16Gi")),
                              std::move(jobs), std::move(templates));
}

SimulationInputs bag_of_tasks() {
  std::vector<WorkloadJob> jobs;
  for (int i = 0; i < 200; ++i) jobs.push_back(JobBuilder(i + 1, 0, 170));
  return inputs(16, 1000, std::move(jobs), {PodTemplateBuilder().cpu_milli(1000)});
}

SimulationOptions options(ModelConfig model, std::uint64_t seed = 1) {
  SimulationOptions o;
  o.seed = seed;
  o.model = std::move(model);
  return o;
}

using PodOutcome = std::tuple<std::uint32_t, std::int64_t, std::int64_t, std::string>;

std::vector<PodOutcome> outcomes(const Simulation& sim) {
  std::vector<PodOutcome> out;
  for (PodId id : sim.job_pods()) {
    const Pod& p = sim.store().pod(id);
    out.emplace_back(p.node.value(), p.started.micros(), p.finished.micros(), to_string(p.phase));
  }
  return out;
}

TEST(Simulation, IdealBagOfTasksMakespanAndMeanWait) {
  // 200 one-core pods of 170 s on 16 one-core nodes, all submitted at 0, zero latencies:
  // 13 waves (12 full waves of 16, then 8), each starting when the previous one ends.
  // Makespan 13 * 170 = 2210 s. Waiting times: 16 pods wait 170 k s for k = 0..11 and 8
  // pods wait 12 * 170 s: (16 * 170 * 66 + 8 * 2040) / 200 = 195840 / 200 = 979.2 s.
  Simulation sim(bag_of_tasks(), options(ModelConfig::ideal()));
  sim.run();
  ASSERT_EQ(sim.job_pods().size(), 200u);
  std::int64_t makespan = 0;
  std::int64_t total_wait = 0;
  for (PodId id : sim.job_pods()) {
    const Pod& p = sim.store().pod(id);
    ASSERT_EQ(p.phase, PodPhase::kSucceeded) << p.name;
    EXPECT_EQ(p.finished - p.started, Duration::seconds(170)) << p.name;
    EXPECT_EQ((p.started.micros() % 170'000'000), 0) << p.name;  // starts exactly at a wave boundary
    makespan = std::max(makespan, p.finished.micros());
    total_wait += (p.started - p.created).micros();
  }
  EXPECT_EQ(makespan, 2'210'000'000);
  EXPECT_EQ(total_wait, 195'840'000'000);  // mean 979.2 s exactly
  EXPECT_EQ(format_seconds(total_wait / 200), "979.200000");
  EXPECT_EQ(sim.finished_pods(), 200u);
  EXPECT_EQ(sim.pending_pods(), 0u);
  // Never more than 16 pods at once, never two on one node at once.
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> by_node(16);
  for (PodId id : sim.job_pods()) {
    const Pod& p = sim.store().pod(id);
    by_node[p.node.value()].emplace_back(p.started.micros(), p.finished.micros());
  }
  for (auto& v : by_node) {
    std::sort(v.begin(), v.end());
    for (std::size_t i = 1; i < v.size(); ++i) EXPECT_LE(v[i - 1].second, v[i].first);
  }
}

TEST(Simulation, SameSeedSameRunIdeal) {
  Simulation a(bag_of_tasks(), options(ModelConfig::ideal(), 5));
  Simulation b(bag_of_tasks(), options(ModelConfig::ideal(), 5));
  a.run();
  b.run();
  EXPECT_EQ(outcomes(a), outcomes(b));
  EXPECT_EQ(a.events_processed(), b.events_processed());
}

TEST(Simulation, SameSeedSameRunRealistic) {
  Simulation a(bag_of_tasks(), options(ModelConfig::realistic(), 11));
  Simulation b(bag_of_tasks(), options(ModelConfig::realistic(), 11));
  a.run();
  b.run();
  const auto oa = outcomes(a);
  EXPECT_EQ(oa, outcomes(b));
  EXPECT_EQ(a.now(), b.now());
  for (const auto& o : oa) EXPECT_EQ(std::get<3>(o), "Succeeded");
  // Another seed draws other latencies.
  Simulation c(bag_of_tasks(), options(ModelConfig::realistic(), 12));
  c.run();
  EXPECT_NE(oa, outcomes(c));
}

TEST(Simulation, RealisticIsSlowerThanIdeal) {
  Simulation ideal(bag_of_tasks(), options(ModelConfig::ideal()));
  Simulation real(bag_of_tasks(), options(ModelConfig::realistic()));
  ideal.run();
  real.run();
  std::int64_t m_ideal = 0, m_real = 0;
  for (PodId id : ideal.job_pods()) m_ideal = std::max(m_ideal, ideal.store().pod(id).finished.micros());
  for (PodId id : real.job_pods()) m_real = std::max(m_real, real.store().pod(id).finished.micros());
  EXPECT_GT(m_real, m_ideal);
}

TEST(Simulation, PodThatNeverFitsEndsTheRun) {
  std::vector<WorkloadJob> jobs = {JobBuilder(1, 0, 10), JobBuilder(2, 0, 10).tmpl(1), JobBuilder(3, 5, 10)};
  Simulation sim(
      inputs(2, 1000, std::move(jobs), {PodTemplateBuilder().cpu_milli(1000), PodTemplateBuilder().cpu_milli(2000)}),
      options(ModelConfig::ideal()));
  sim.run();  // returns: nothing can change any more
  const Pod& big = sim.store().pod(sim.job_pods()[1]);
  EXPECT_EQ(big.phase, PodPhase::kPending);
  EXPECT_FALSE(big.node.valid());
  EXPECT_EQ(big.unschedulable_message, "0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_EQ(sim.pending_pods(), 1u);
  EXPECT_EQ(sim.finished_pods(), 2u);
  EXPECT_EQ(sim.store().pod(sim.job_pods()[0]).phase, PodPhase::kSucceeded);
  EXPECT_EQ(sim.store().pod(sim.job_pods()[2]).finished, SimTime::from_seconds(15));
}

TEST(Simulation, ActiveDeadlineKillsPod) {
  // walltime 50 s (activeDeadlineSeconds) for a 100 s container; a second job without one.
  std::vector<WorkloadJob> jobs = {JobBuilder(1, 0, 100).walltime(50), JobBuilder(2, 0, 100),
                                   JobBuilder(3, 0, 30).walltime(50)};
  Simulation sim(inputs(3, 1000, std::move(jobs), {PodTemplateBuilder().cpu_milli(1000)}),
                 options(ModelConfig::ideal()));
  sim.run();
  const Pod& killed = sim.store().pod(sim.job_pods()[0]);
  EXPECT_EQ(killed.active_deadline, Duration::seconds(50));
  EXPECT_EQ(killed.phase, PodPhase::kFailed);
  EXPECT_EQ(killed.reason, "DeadlineExceeded");
  EXPECT_EQ(killed.started, SimTime::zero());
  EXPECT_EQ(killed.finished, SimTime::from_seconds(50));
  const Pod& normal = sim.store().pod(sim.job_pods()[1]);
  EXPECT_EQ(normal.phase, PodPhase::kSucceeded);
  EXPECT_EQ(normal.finished, SimTime::from_seconds(100));
  const Pod& in_time = sim.store().pod(sim.job_pods()[2]);  // finishes before its deadline
  EXPECT_EQ(in_time.phase, PodPhase::kSucceeded);
  EXPECT_EQ(in_time.finished, SimTime::from_seconds(30));
}

TEST(Simulation, UntilStopsEarly) {
  SimulationOptions o = options(ModelConfig::ideal());
  o.until = SimTime::from_seconds(500);
  Simulation sim(bag_of_tasks(), o);
  sim.run();
  EXPECT_LE(sim.now(), SimTime::from_seconds(500));
  // Waves end at 170, 340: 32 pods finished; the third wave (510) has not.
  EXPECT_EQ(sim.finished_pods(), 32u);
}

// A scheduler caught in a loop at one instant: each of its timers re-arms itself at the
// same time and touches its pod, which never changes. Time cannot advance, so the progress
// guard stops the run and names the instant, the pod's schedulerName and the pod.
class SpinningScheduler final : public SchedulerModel {
 public:
  explicit SpinningScheduler(SchedulerHost& host) : host_(host) {}
  bool serves(const std::string& name) const override { return name == "spinner"; }
  void on_pod_change(const Change& c, SimTime now) override {
    if (c.type == ChangeType::kAdded) host_.post(now, Phase::kScheduler, {SchedulerEvent::Kind::kTimer, PodId(c.id), NodeId()});
  }
  void on_node_change(const Change&, SimTime) override {}
  void on_event(const SchedulerEvent& e, SimTime now) override { host_.post(now, Phase::kScheduler, e); }
  bool busy() const override { return true; }
  std::uint64_t attempts() const override { return 0; }
  std::uint64_t bindings() const override { return 0; }

 private:
  SchedulerHost& host_;
};

TEST(Simulation, ProgressGuardStopsALoopAtOneInstant) {
  SimulationInputs in = inputs(1, 1000, {JobBuilder(1, 7, 10)}, {batch_job_template(1000, std::nullopt, "spinner")});
  in.other_schedulers.push_back(SchedulerFactory{
      [](ObjectStore&, SchedulerHost& host, const SimulationOptions&) -> std::unique_ptr<SchedulerModel> {
        return std::make_unique<SpinningScheduler>(host);
      },
      Duration()});
  SimulationOptions o = options(ModelConfig::ideal());
  o.no_progress_event_limit = 100'000;
  Simulation sim(std::move(in), o);
  try {
    sim.run();
    FAIL() << "the run should have stopped";
  } catch (const NoProgressError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no progress at simulated time 7.000000 s: 100001 events without a pod created, bound, started, ended or "
              "deleted, or a node or Job changed (a loop that time cannot end); scheduler(s) \"spinner\" keep handling "
              "pod(s) default/w0-1");
  }
  EXPECT_EQ(sim.now(), SimTime::from_seconds(7));
}

// A long run at one instant that makes progress (200 pods created, bound, started and ended
// at 0 s under the ideal model, 13 waves on 16 nodes) is no loop: the guard counts only the
// events since the last progress (each wave's 184 or fewer failed attempts, a few events each).
TEST(Simulation, ProgressGuardLetsProgressThrough) {
  SimulationInputs in = bag_of_tasks();
  for (WorkloadJob& j : in.workload.jobs) j.run_time = Duration();
  SimulationOptions o = options(ModelConfig::ideal());
  o.no_progress_event_limit = 1000;
  Simulation sim(std::move(in), o);
  sim.run();
  EXPECT_EQ(sim.finished_pods(), 200u);
  EXPECT_EQ(sim.now(), SimTime::zero());
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

// Two one-cpu nodes; job "1" of 2 machines (100 s) under FCFS (sched/batch), as Batsim's
// rigid jobs are (Pod::machines); kube-scheduler (default profile) serves no template then.
SimulationInputs machine_job_under_fcfs(std::uint32_t machines) {
  WorkloadJob j = JobBuilder(1, 0, 100);
  j.machines = machines;
  PodTemplate t = PodTemplateBuilder().cpu_milli(1000);
  t.scheduler_name = "fcfs";
  SimulationInputs in = inputs(machines, 1000, {j}, {t});
  in.other_schedulers.push_back(SchedulerFactory{
      [](ObjectStore& store, SchedulerHost& host, const SimulationOptions&) -> std::unique_ptr<SchedulerModel> {
        return std::make_unique<BatchScheduler>(store, host, "fcfs", 0);
      },
      Duration()});
  return in;
}

// kube-scheduler hears of no pod while no template has its schedulerName (the run skips its
// deliveries); when a client creates one (10 s) it replays the bound pods first, so it knows
// both nodes are taken by the job and binds the pod only once the job ended (100 s), as it
// would have had it heard every change: the kubelet does not reject it (OutOfcpu).
TEST(Simulation, IdleKubeSchedulerWakesWithTheBoundPods) {
  Simulation sim(machine_job_under_fcfs(2), options(ModelConfig::ideal()));
  sim.advance_to(SimTime::from_seconds(10));
  ASSERT_TRUE(sim.store().pod(sim.job_pods()[0]).node.valid());
  WorkloadJob client;
  client.name = "client";
  client.run_time = Duration::seconds(5);
  auto created = sim.create_from_api(std::move(client), PodTemplateBuilder().cpu_milli(1000));
  ASSERT_TRUE(std::holds_alternative<Simulation::Created>(created));
  const PodId pod = std::get<Simulation::Created>(created).pod;
  sim.run();
  const Pod& p = sim.store().pod(pod);
  EXPECT_EQ(p.phase, PodPhase::kSucceeded) << p.reason.str();
  EXPECT_EQ(p.scheduled, SimTime::from_seconds(100));
  EXPECT_EQ(p.finished, SimTime::from_seconds(105));
}

// A 64-rank job under FCFS with the ideal model: the run skips the pod changes no scheduler
// acts on (kube-scheduler serves none of them; FCFS needs a rank's creation and end only),
// binds the ranks with one event and handles the ranks' ends and final reports as one run
// each. Every rank still runs 0-100 s on its own node. Events per rank: its creation's and
// end's deliveries to FCFS and its binding's to the kubelet, the container start and the
// Running report (and the 64 nodes' creation, to each scheduler). Handled events: 13 per
// rank (the 6 skipped deliveries, the end and the final report count one each; the
// binding, one for the job).
TEST(Simulation, MachineJobRanksCostFewQueueEntries) {
  Simulation sim(machine_job_under_fcfs(64), options(ModelConfig::ideal()));
  sim.run();
  for (std::uint32_t k = 0; k < 64; ++k) {
    const Pod& p = sim.store().pod(PodId(sim.job_pods()[0].value() + k));
    EXPECT_EQ(p.node, NodeId(k));
    EXPECT_EQ(p.started, SimTime::zero());
    EXPECT_EQ(p.finished, SimTime::from_seconds(100));
    EXPECT_EQ(p.phase, PodPhase::kSucceeded);
  }
  EXPECT_EQ(sim.finished_pods(), 64u);
  EXPECT_EQ((sim.events_processed() - 2 * 64) / 64, 13u);
  EXPECT_LE(sim.queue_entries_processed(), 64u * (5 + 2) + 16);
}

}  // namespace
}  // namespace kubesim

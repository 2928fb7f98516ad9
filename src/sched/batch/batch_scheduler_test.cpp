// The batch setups end to end through a Simulation with the ideal model (no latencies):
// docs/derivations/backfill.md §3.3 (EASY delays the second waiting job, conservative does not) as pods on
// one 4-cpu node, each pod's walltime its activeDeadlineSeconds.
#include "sched/batch/batch_scheduler.hpp"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>


#include "engine/simulation.hpp"
#include "setups/scheduler_setup.hpp"
#include "testing/builders.hpp"

namespace kubesim {
namespace {

struct J {
  const char* id;
  double submit;
  std::uint32_t cpus;
  double walltime, run;  // walltime 0: none
};

SimulationInputs one_node(const std::vector<J>& jobs) {
  SimulationInputs in;
  in.nodes.push_back(testing::NodeBuilder("node-0").cpu_milli(4000).memory_bytes(16LL << 30));
  for (std::int64_t c = 1; c <= 4; ++c) in.workload.templates.push_back(batch_job_template(c * 1000, std::nullopt));
  for (const J& j : jobs) {
    WorkloadJob w;
    w.id = j.id;
    w.profile = "p";
    w.submit = SimTime::from_seconds(j.submit);
    w.run_time = Duration::from_seconds(j.run);
    w.walltime = Duration::from_seconds(j.walltime);
    w.requested_resources = j.cpus;
    w.pod_template = j.cpus - 1;
    in.workload.jobs.push_back(w);
  }
  in.scheduler = default_scheduler_config(in.resource_names);
  return in;
}

SimulationInputs case3(bool with_walltime = true) {
  const double w = with_walltime ? 1 : 0;
  return one_node({{"A", 0, 2, 10 * w, 10}, {"B", 1, 3, 10 * w, 10}, {"C", 2, 4, 10 * w, 10}, {"D", 3, 1, 30 * w, 30}});
}

std::map<std::string, double> run(const std::string& setup, SimulationInputs in) {
  apply_setup(find_setup(setup), in, SetupOptions{});
  SimulationOptions o;
  o.model = ModelConfig::ideal();
  Simulation sim(std::move(in), o);
  sim.run();
  std::map<std::string, double> started;
  for (std::size_t i = 0; i < sim.job_pods().size(); ++i) {
    const Pod& p = sim.store().pod(sim.job_pods()[i]);
    EXPECT_EQ(p.phase, PodPhase::kSucceeded) << sim.workload().jobs[i].id;
    started[sim.workload().jobs[i].id] = p.started.to_seconds();
  }
  return started;
}

TEST(BatchScheduler, SetupsDistinguishThePolicies) {
  using S = std::map<std::string, double>;
  EXPECT_EQ(run("fcfs", case3()), (S{{"A", 0}, {"B", 10}, {"C", 20}, {"D", 30}}));
  EXPECT_EQ(run("easy-backfill", case3()), (S{{"A", 0}, {"B", 10}, {"C", 33}, {"D", 3}}));
  EXPECT_EQ(run("conservative-backfill", case3()), (S{{"A", 0}, {"B", 10}, {"C", 20}, {"D", 30}}));
}

// Without walltimes the setup gives each job 2 x its run time (Batsim's converter rule). EASY:
// B reserves [20, 40) behind A's walltime; D ([3, 63)) fits beside it and starts at 3; A ends
// at 10 (early), B starts; C waits for D (33).
TEST(BatchScheduler, MissingWalltimeBecomesTwiceRunTime) {
  using S = std::map<std::string, double>;
  EXPECT_EQ(run("easy-backfill", case3(false)), (S{{"A", 0}, {"B", 10}, {"C", 33}, {"D", 3}}));
}

// batsched plans with walltime + rjms_delay (json_workload.cpp; main.cpp default 5 s) while
// the job still ends by its own walltime. Conservative, 4 cpus: A(0, 3 cpus, 10 s) plans
// [0, 15); B(1, 3) reserves [15, 30); C(2, 4) reserves [30, 45); D(3, 1 cpu, 20 s) plans
// [3, 28): 1 cpu is free beside A and B and it ends before C's 30 -> starts at 3. (Planned
// with the bare walltimes, C would reserve [20, 30), D would not fit and would start at 30.)
// A ends at 10 -> B starts; C re-planned after D's planned end 28; D really ends at 23 -> C
// starts at 23.
TEST(BatchScheduler, PlansWithRjmsDelay) {
  using S = std::map<std::string, double>;
  const std::vector<J> jobs = {{"A", 0, 3, 10, 10}, {"B", 1, 3, 10, 10}, {"C", 2, 4, 10, 10}, {"D", 3, 1, 20, 20}};
  EXPECT_EQ(run("conservative-backfill", one_node(jobs)), (S{{"A", 0}, {"B", 10}, {"C", 23}, {"D", 3}}));
}

// conservative_bf.cpp rejects a job without walltime on release; EASY queues it with an
// infinite walltime. A job without walltime and a zero run time has none even after the
// setups' 2 x run time rule.
TEST(BatchScheduler, ConservativeRejectsAJobWithoutWalltime) {
  for (const std::string setup : {"conservative-backfill", "easy-backfill"}) {
    SimulationInputs in = one_node({{"A", 0, 1, 0, 0}});
    apply_setup(find_setup(setup), in, SetupOptions{});
    SimulationOptions o;
    o.model = ModelConfig::ideal();
    Simulation sim(std::move(in), o);
    sim.run();
    const Pod& p = sim.store().pod(sim.job_pods()[0]);
    if (setup == "conservative-backfill") {
      EXPECT_FALSE(p.node.valid());
      EXPECT_NE(p.unschedulable_message.str().find("no walltime"), std::string::npos) << p.unschedulable_message.str();
    } else {
      EXPECT_EQ(p.phase, PodPhase::kSucceeded);
    }
  }
}

TEST(BatchScheduler, ServesItsName) {
  ObjectStore store;
  struct NullHost final : SchedulerHost {
    void post(SimTime, Phase, SchedulerEvent) override {}
  } host;
  BatchScheduler s(store, host, "easy-backfill", 1);
  EXPECT_TRUE(s.serves("easy-backfill"));
  EXPECT_FALSE(s.serves("default-scheduler"));
}

}  // namespace
}  // namespace kubesim

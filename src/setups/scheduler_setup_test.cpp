// Installing scheduler setups: one setup takes every pod; several run side by side, each pod's
// schedulerName picking its scheduler, each scheduler seeing the others' pods only through its
// own informer cache (with its cache delay). Whole simulations use the ideal model (no
// latencies), so every time below is exact.
#include "setups/scheduler_setup.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/test_paths.hpp"
#include "testing/inputs.hpp"

namespace kubesim {
namespace {

// One 4-cpu node; job "A" (4 cpu, 10 s) at t = 0 for `scheduler_a`, job "B" (4 cpu, 10 s) at
// t = 1 for `scheduler_b`; bare pods (no Job controller retries).
SimulationInputs two_pods(const std::string& scheduler_a, const std::string& scheduler_b) {
  SimulationInputs in;
  in.nodes.push_back(testing::NodeBuilder("node-0").cpu("4").memory("16Gi"));
  in.workload.templates = {testing::PodTemplateBuilder().cpu("4").scheduler(scheduler_a),
                           testing::PodTemplateBuilder().cpu("4").scheduler(scheduler_b)};
  in.workload.jobs = {testing::JobBuilder(1, 0, 10).id("A").walltime(10).requested_resources(4),
                      testing::JobBuilder(2, 1, 10).id("B").walltime(10).requested_resources(4).tmpl(1)};
  in.scheduler = default_scheduler_config(in.resource_names);  // the cluster's kube-scheduler
  return in;
}

SetupChoice choice(const std::string& setup, double cache_delay_s = 0, const std::string& config = "") {
  return SetupChoice{setup, config, Duration::from_seconds(cache_delay_s)};
}

TEST(InstallSetups, OneSetupTakesEveryPodAndItsCacheDelay) {
  SimulationInputs in = two_pods("default-scheduler", "someone-else");
  install_setups({choice("fluxion", 3)}, in);
  for (const PodTemplate& t : in.workload.templates) EXPECT_EQ(t.scheduler_name, "fluxion");
  ASSERT_EQ(in.other_schedulers.size(), 1u);
  EXPECT_EQ(in.other_schedulers[0].informer_delay, Duration::seconds(3));
  EXPECT_EQ(in.scheduler_informer_delay, Duration());

  // default-scheduler deploys no model of its own: the delay is scheduler 0's.
  SimulationInputs d = two_pods("x", "y");
  install_setups({choice("default-scheduler", 2)}, d);
  EXPECT_TRUE(d.other_schedulers.empty());
  EXPECT_EQ(d.scheduler_informer_delay, Duration::seconds(2));
}

// Pod 0 (kube-scheduler) is created at t = 0, pod 1 (fcfs) at t = 1. With a current cache,
// kube-scheduler binds pod 0 at once and fcfs, seeing the node full, starts pod 1 when pod 0
// ends (t = 10). With a 5 s cache delay kube-scheduler learns of pod 0 at t = 5 with the
// view of t = 0 (node empty) and binds it, although fcfs has run pod 1 there since t = 1: the
// kubelet rejects pod 0 (OutOfcpu), the stale-view failure of schedulers sharing a cluster.
TEST(InstallSetups, SideBySideEachSeesTheOthersPodsThroughItsCache) {
  for (const double delay : {0.0, 5.0}) {
    SimulationInputs in = two_pods("default-scheduler", "fcfs");
    install_setups({choice("default-scheduler", delay), choice("fcfs")}, in);
    EXPECT_EQ(in.workload.templates[0].scheduler_name, "default-scheduler");  // pods keep their own names
    EXPECT_EQ(in.workload.templates[1].scheduler_name, "fcfs");
    Simulation sim(std::move(in), testing::ideal_options());
    sim.run();
    const Pod& first = sim.store().pod(sim.job_pods()[0]);
    const Pod& second = sim.store().pod(sim.job_pods()[1]);
    EXPECT_EQ(second.phase, PodPhase::kSucceeded);
    if (delay == 0) {
      EXPECT_EQ(first.phase, PodPhase::kSucceeded);
      EXPECT_DOUBLE_EQ(first.started.to_seconds(), 0);
      EXPECT_DOUBLE_EQ(second.started.to_seconds(), 10);
    } else {
      EXPECT_DOUBLE_EQ(second.started.to_seconds(), 1);
      EXPECT_EQ(first.phase, PodPhase::kFailed);
      EXPECT_EQ(first.reason, "OutOfcpu");
    }
  }
}

// scheduler-plugins beside the cluster's kube-scheduler is its own Deployment (the chart's
// second scheduler): scheduler 0 keeps the default profile and does not serve its pods. Pod a
// (scheduler-plugins, t = 0) runs first; pod b (t = 1) waits for it.
TEST(InstallSetups, SecondKubeSchedulerIsItsOwnDeployment) {
  SimulationInputs in = two_pods("scheduler-plugins-scheduler", "default-scheduler");
  install_setups({choice("default-scheduler", 0.5), choice("scheduler-plugins")}, in);
  ASSERT_EQ(in.other_schedulers.size(), 1u);
  EXPECT_EQ(in.other_schedulers[0].informer_delay, Duration());
  EXPECT_EQ(in.scheduler_informer_delay, Duration::from_seconds(0.5));
  Simulation sim(std::move(in), testing::ideal_options());
  EXPECT_TRUE(sim.scheduler().serves("default-scheduler"));
  EXPECT_FALSE(sim.scheduler().serves("scheduler-plugins-scheduler"));
  EXPECT_TRUE(sim.served_internally("scheduler-plugins-scheduler"));
  sim.run();
  const Pod& a = sim.store().pod(sim.job_pods()[0]);
  const Pod& b = sim.store().pod(sim.job_pods()[1]);
  EXPECT_EQ(a.phase, PodPhase::kSucceeded) << a.reason.str() << " " << a.message.str();
  EXPECT_DOUBLE_EQ(a.started.to_seconds(), 0);
  EXPECT_EQ(b.phase, PodPhase::kSucceeded) << b.reason.str() << " " << b.message.str();
  EXPECT_DOUBLE_EQ(b.started.to_seconds(), 10.5);  // kube-scheduler learns of a's end 0.5 s late
}

TEST(InstallSetups, DefaultSchedulersFileConfiguresTheClustersKubeScheduler) {
  const std::string file = kubesim::testing::source_dir() + "/examples/scheduler-config/most-allocated.yaml";
  SimulationInputs in = two_pods("fluxion", "default-scheduler");
  install_setups({choice("default-scheduler", 0, file), choice("fluxion")}, in);
  EXPECT_EQ(in.scheduler.source, file);
  EXPECT_EQ(in.other_schedulers.size(), 1u);
}

TEST(InstallSetups, TwoSetupsForOneSchedulerNameAreAnError) {
  SimulationInputs in = two_pods("fluxion", "default-scheduler");
  EXPECT_THROW(install_setups({choice("fluxion"), choice("kubeflux-noinformer")}, in), InputError);
  // Kueue admits Jobs whose pods kube-scheduler schedules: it may share default-scheduler's name.
  SimulationInputs k = two_pods("fluxion", "default-scheduler");
  const std::string kueue = kubesim::testing::source_dir() + "/examples/kueue/tenants.yaml";
  EXPECT_NO_THROW(install_setups({choice("default-scheduler"), choice("kueue", 0, kueue)}, k));
}

TEST(ParseSetupChoices, JoinedByPlus) {
  const auto c = parse_setup_choices("default-scheduler+fluxion", "--scheduler");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].setup, "default-scheduler");
  EXPECT_EQ(c[1].setup, "fluxion");
  EXPECT_EQ(setups_label(c), "default-scheduler+fluxion");
  EXPECT_THROW(parse_setup_choices("fluxion++fcfs", "--scheduler"), InputError);
  EXPECT_THROW(parse_setup_choices("fcfs+fcfs", "--scheduler"), InputError);
  EXPECT_THROW(parse_setup_choices("nope", "--scheduler"), InputError);
}

}  // namespace
}  // namespace kubesim

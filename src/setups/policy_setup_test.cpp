// Policies as scheduler setups (setups/policy_setup.hpp) over PolicyScheduler
// (sched/external_policy/): which pods they get, when they are asked, what their bindings and
// retries do. Ideal model: every time below is exact.
#include "setups/policy_setup.hpp"

#include <gtest/gtest.h>

#include "testing/inputs.hpp"

namespace kubesim {
namespace {

// One 4-cpu node; job "A" (4 cpu, 10 s) at t = 0 and job "B" (4 cpu, 10 s) at t = 1.
SimulationInputs two_pods() {
  SimulationInputs in;
  in.nodes.push_back(testing::NodeBuilder("node-0").cpu("4").memory("16Gi"));
  in.workload.templates = {testing::PodTemplateBuilder().cpu("4")};
  in.workload.jobs = {testing::JobBuilder(1, 0, 10).id("A").requested_resources(4),
                      testing::JobBuilder(2, 1, 10).id("B").requested_resources(4)};
  in.scheduler = default_scheduler_config(in.resource_names);
  return in;
}

// First fit, not before `not_before` (asks to be called then); records the instants it was asked.
struct FirstFit final : SchedulingPolicy {
  SimTime not_before = SimTime::zero();
  std::vector<double>* calls = nullptr;
  void schedule(PolicyContext& c) override {
    calls->push_back(c.now().to_seconds());
    if (c.now() < not_before) {
      c.retry_at(not_before);
      return;
    }
    for (const PodId pod : c.pending())
      for (std::uint32_t n = 0; n < c.nodes().node_count(); ++n)
        if (c.fits(pod, NodeId(n))) {
          c.bind(pod, NodeId(n));
          EXPECT_FALSE(c.is_pending(pod));
          EXPECT_EQ(c.nodes().info(NodeId(n)).requested[kCpu], 4000);  // assumed at once
          break;
        }
  }
};

std::vector<double> run(SimTime not_before, double* start_a, double* start_b) {
  std::vector<double> calls;
  const std::vector<SchedulerSetup> policies = {policy_setup("ff", [&] {
    auto p = std::make_shared<FirstFit>();
    p->not_before = not_before;
    p->calls = &calls;
    return p;
  }, "test")};
  SimulationInputs in = two_pods();
  install_setups(with_policies({}, policies), in, policies);
  for (const PodTemplate& t : in.workload.templates) EXPECT_EQ(t.scheduler_name, "ff");
  Simulation sim(std::move(in), testing::ideal_options());
  sim.run();
  *start_a = sim.store().pod(sim.job_pods()[0]).started.to_seconds();
  *start_b = sim.store().pod(sim.job_pods()[1]).started.to_seconds();
  EXPECT_EQ(sim.store().pod(sim.job_pods()[1]).phase, PodPhase::kSucceeded);
  return calls;
}

TEST(PolicySetup, AskedAtEachChangeAndBindsWhatFits) {
  double a = 0, b = 0;
  const std::vector<double> calls = run(SimTime::zero(), &a, &b);
  EXPECT_DOUBLE_EQ(a, 0);
  EXPECT_DOUBLE_EQ(b, 10);  // the node is full until A ends
  // A's arrival, B's arrival (nothing fits), A's end.
  EXPECT_EQ(calls, (std::vector<double>{0, 1, 10}));
}

TEST(PolicySetup, RetryAtAsksAgainWithoutAChange) {
  double a = 0, b = 0;
  const std::vector<double> calls = run(SimTime::from_seconds(5), &a, &b);
  EXPECT_DOUBLE_EQ(a, 5);
  EXPECT_DOUBLE_EQ(b, 15);
  EXPECT_EQ(calls, (std::vector<double>{0, 1, 5, 15}));
}

TEST(PolicySetup, WithPoliciesUnlessTheListNamesOne) {
  const std::vector<SchedulerSetup> policies = {policy_setup("p", [] { return nullptr; }, "test")};
  const std::vector<SetupChoice> given = {SetupChoice{"fcfs", "", Duration()}};
  ASSERT_EQ(with_policies(given, policies).size(), 1u);
  EXPECT_EQ(with_policies(given, policies)[0].setup, "p");
  const std::vector<SetupChoice> named = {SetupChoice{"fcfs", "", Duration()}, SetupChoice{"p", "", Duration()}};
  EXPECT_EQ(with_policies(named, policies).size(), 2u);
  EXPECT_EQ(with_policies(given, {}).size(), 1u);
  EXPECT_EQ(find_setup("p", policies).scheduler_name, "p");
}

}  // namespace
}  // namespace kubesim

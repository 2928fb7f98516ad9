// The BSP job on the simulated cluster: in ideal mode it is the study's simulator; on E3 with
// the tenants every reconfiguration costs more than the penalty.
#include <gtest/gtest.h>

#include <cmath>

#include "bsp/gang_run.hpp"
#include "core/test_paths.hpp"
#include "scenario/scenario.hpp"
#include "setups/scheduler_setup.hpp"

namespace kubesim::bsp {
namespace {

GangRunResult run_scenario(const std::string& file, ModelConfig model, int steps) {
  Scenario sc = read_scenario(testing::source_dir() + "/examples/bsp/" + file);
  EXPECT_TRUE(sc.bsp.has_value());
  install_setups(sc.schedulers, sc.inputs);
  SimulationOptions options;
  options.model = std::move(model);
  Simulation sim(std::move(sc.inputs), options);
  GangSpec spec = *sc.bsp;
  spec.steps = steps;
  GangRun job(sim, spec);
  job.run(SimTime::never());
  return job.result();
}

TEST(GangRun, IdealClusterIsTheStudysSimulator) {
  const GangRunResult r = run_scenario("ideal.yaml", ModelConfig::ideal(), 120);
  ASSERT_EQ(r.steps.size(), 120u);
  const StrategyResult& study = r.study_table.back();  // Dynamic MPC, same data and settings
  ASSERT_EQ(study.name, "Dynamic MPC");
  EXPECT_EQ(r.checkpoints, study.checkpoints);
  EXPECT_NEAR(r.duration_without_penalty, study.duration_without_penalty, 1e-9 * study.duration_without_penalty);
  EXPECT_NEAR(r.study_total, study.total_duration, 1e-9 * study.total_duration);
  for (std::size_t t = 0; t < r.steps.size(); ++t) {
    EXPECT_EQ(r.steps[t].shares, study.steps[t].shares) << t;
    EXPECT_EQ(r.steps[t].superstep, study.steps[t].duration) << t;
  }
  // Zero latencies: the cluster adds only the rounding of superstep times to microseconds.
  EXPECT_EQ(r.deletion_total + r.gang_wait_total + r.startup_total, 0.0);
  EXPECT_NEAR(r.cluster_total, r.study_total, 1e-6 * static_cast<double>(r.steps.size()));
}

TEST(GangRun, SharedClusterChargesTheRealReconfigurationCost) {
  const GangRunResult r = run_scenario("e3-bsp.yaml", ModelConfig::realistic(), 20);
  ASSERT_EQ(r.steps.size(), 20u);
  EXPECT_GT(r.checkpoints, 0);
  EXPECT_GT(r.startup_total, 0.0);  // pod start-up at every (re)creation
  EXPECT_GT(r.cluster_total, r.study_total);
  for (const auto& s : r.steps)
    if (s.reconfigured) EXPECT_GT(s.startup, 0.0) << s.step;
}

}  // namespace
}  // namespace kubesim::bsp

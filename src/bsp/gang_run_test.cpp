// The BSP job on the simulated cluster: in ideal mode it is the study's simulator; on E3 with
// the tenants every reconfiguration costs more than the penalty.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "bsp/gang_run.hpp"
#include "core/test_paths.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"
#include "sched/kube/scheduler.hpp"
#include "sched/scheduler_plugins_objects.hpp"
#include "sched/yunikorn/yk_gang.hpp"
#include "scenario/scenario.hpp"
#include "setups/scheduler_setup.hpp"

namespace kubesim::bsp {
namespace {

// Runs the scenario's BSP job for `steps` supersteps; `inspect` sees the simulation after.
GangRunResult run_scenario(const std::string& file, ModelConfig model, int steps,
                           const std::function<void(Simulation&)>& inspect = {}) {
  Scenario sc = read_scenario(testing::source_dir() + "/examples/bsp/" + file);
  const std::optional<GangSpec> gang = read_gang_spec(sc);
  EXPECT_TRUE(gang.has_value());
  install_setups(sc.schedulers, sc.inputs);
  SimulationOptions options;
  options.model = std::move(model);
  Simulation sim(std::move(sc.inputs), options);
  GangSpec spec = *gang;
  spec.steps = steps;
  GangRun job(sim, spec);
  job.run(SimTime::never());
  if (inspect) inspect(sim);
  return job.result();
}

// The task pods of the run, in creation order.
std::vector<PodId> task_pods(const ObjectStore& store) {
  std::vector<PodId> out;
  for (std::size_t i = 0; i < store.pod_count(); ++i) {
    const PodId pod(static_cast<std::uint32_t>(i));
    if (find_label(store.spec_of(pod).labels, "kubesim.io/bsp-task")) out.push_back(pod);
  }
  return out;
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
  for (const auto& s : r.steps) {
    if (s.reconfigured) {
      EXPECT_GT(s.startup, 0.0) << s.step;
    }
  }
}

TEST(GangRun, CreatesItsOwnPodGroup) {
  // No PodGroup manifest: the job creates bsp/bsp (minMember 8) at its start, and
  // Coscheduling counts every set of task pods as that group's members.
  run_scenario("e3-bsp.yaml", ModelConfig::realistic(), 6, [](Simulation& sim) {
    auto* scheduler = dynamic_cast<Scheduler*>(sim.scheduler_serving("scheduler-plugins-scheduler"));
    ASSERT_NE(scheduler, nullptr);
    auto* coscheduling = dynamic_cast<Coscheduling*>(scheduler->plugin("Coscheduling"));
    ASSERT_NE(coscheduling, nullptr);
    const std::vector<PodId> pods = task_pods(sim.store());
    ASSERT_GE(pods.size(), 16u);  // the launch and at least one reconfiguration
    for (const PodId pod : pods) EXPECT_EQ(coscheduling->group_of(pod), 0) << sim.store().pod(pod).name;
    PodGroupObject again;
    again.ns = "bsp";
    again.name = "bsp";
    EXPECT_FALSE(create_pod_group(sim.store(), again));  // AlreadyExists
  });
}

TEST(GangRun, YuniKornTaskGroupsWithPlaceholders) {
  const GangRunResult r = run_scenario("e3-bsp-yunikorn.yaml", ModelConfig::realistic(), 8, [](Simulation& sim) {
    const ObjectStore& store = sim.store();
    const std::vector<PodId> pods = task_pods(store);
    ASSERT_GE(pods.size(), 16u);
    // One application per set of task pods, one task group per task.
    const PodTemplate& first = store.spec_of(pods.front());
    EXPECT_EQ(*find_label(first.labels, "applicationId"), "bsp-1");
    EXPECT_EQ(*find_label(first.labels, "queue"), "root.bsp");
    EXPECT_EQ(*find_label(first.annotations, yunikorn::kAnnotationTaskGroupName), "affinity");
    EXPECT_EQ(find_label(first.annotations, yunikorn::kAnnotationTaskGroups)->rfind("[{\"name\":\"affinity\",\"minMember\":1,", 0), 0u);
    EXPECT_EQ(*find_label(store.spec_of(pods.back()).labels, "applicationId"), "bsp-" + std::to_string(pods.size() / 8));
    // YuniKorn placed a placeholder for every task group of every application.
    std::size_t placeholders = 0;
    for (std::size_t i = 0; i < store.pod_count(); ++i)
      placeholders += yunikorn::is_placeholder(store.spec_of(PodId(static_cast<std::uint32_t>(i))));
    EXPECT_EQ(placeholders, pods.size());
    for (const PodId pod : pods) EXPECT_FALSE(store.pod(pod).scheduled.is_never());
  });
  ASSERT_EQ(r.steps.size(), 8u);
  for (const auto& s : r.steps) {
    if (s.reconfigured) {
      EXPECT_GT(s.gang_wait + s.startup, 0.0) << s.step;
    }
  }
}

}  // namespace
}  // namespace kubesim::bsp

// Whole-simulation checks of the kueue setup with the ideal latency model and zero Kueue API
// latency, so every time is exact: admission by un-suspending Jobs, quota release on
// completion, preemption by suspending (the Job controller deletes the pods without counting
// them as failed) and re-admission.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "model/test_nodes.hpp"

#include "engine/simulation.hpp"
#include "sched/kueue/kueue_controller.hpp"
#include "setups/scheduler_setup.hpp"

namespace kubesim {
namespace {

constexpr const char* kConfig = R"(kind: ResourceFlavor
metadata: {name: f}
---
kind: ClusterQueue
metadata: {name: a}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources: [{name: cpu, nominalQuota: 2}]
---
kind: LocalQueue
metadata: {name: lq, namespace: t1}
spec: {clusterQueue: a}
---
kind: Configuration
clientConnection: {qps: 1000000, burst: 1000000}
kubesim: {apiLatencyMicros: 0}
)";

std::string config_file() {
  // One file per test: ctest runs the tests of this suite in parallel processes.
  const std::string path = testing::TempDir() + "/kueue-setup-" +
                           testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml";
  std::ofstream(path) << kConfig;
  return path;
}

WorkloadJob job(const std::string& name, double submit, double run, std::uint32_t tmpl) {
  WorkloadJob j;
  j.id = j.name = name;
  j.ns = NamespaceId(1);
  j.as_job = true;
  j.submit = SimTime::from_seconds(submit);
  j.run_time = Duration::from_seconds(run);
  j.pod_template = tmpl;
  return j;
}

SimulationInputs inputs(std::vector<WorkloadJob> jobs) {
  SimulationInputs in;
  in.nodes.push_back(test_node("n1", 4000, 64LL << 30));
  in.workload.namespaces = {"default", "t1"};
  for (const char* pc : {"low", "high"}) {
    PodTemplate t = batch_job_template(pc[0] == 'l' ? 2000 : 1000, std::nullopt);
    t.priority_class_name = pc;
    in.workload.templates.push_back(t);
  }
  in.priority_classes = {PriorityClass{"low", -10}, PriorityClass{"high", 10}};
  in.workload.jobs = std::move(jobs);
  in.scheduler = default_scheduler_config(in.resource_names);  // the cluster's kube-scheduler
  apply_setup(find_setup("kueue"), in, SetupOptions{config_file()});
  return in;
}

SimulationOptions ideal() {
  SimulationOptions o;
  o.model = ModelConfig::ideal();
  return o;
}

std::vector<const Pod*> pods_of(const Simulation& sim, std::uint32_t workload_job) {
  std::vector<const Pod*> out;
  for (const PodId p : sim.pods_of_job(sim.job_objects()[workload_job])) out.push_back(&sim.store().pod(p));
  return out;
}

TEST(KueueSetup, JobsAreCreatedSuspendedWithTheQueueLabel) {
  SimulationInputs in = inputs({job("a", 0, 10, 1)});
  ASSERT_TRUE(in.workload.jobs[0].suspend);
  EXPECT_EQ(*find_label(in.workload.jobs[0].job_labels, kueue::kQueueNameLabel), "lq");
  ASSERT_EQ(in.other_schedulers.size(), 1u);
}

// Nominal quota 2 cpu; three Jobs of 1 cpu, 10 s, at t=0. Two are admitted at once; the
// third when the first finishes: its pod succeeds at 10 s, the Job controller syncs after
// the 1 s pod-update batch (11 s) and marks it Complete, Kueue finishes the Workload, admits
// the third Job and un-suspends it, and its pod is created at 11 s.
TEST(KueueSetup, AdmitsWithinNominalQuota) {
  Simulation sim(inputs({job("j0", 0, 10, 1), job("j1", 0, 10, 1), job("j2", 0, 10, 1)}), ideal());
  sim.run();
  ASSERT_EQ(pods_of(sim, 0).size(), 1u);
  EXPECT_EQ(pods_of(sim, 0)[0]->created, SimTime::zero());
  EXPECT_EQ(pods_of(sim, 1)[0]->created, SimTime::zero());
  ASSERT_EQ(pods_of(sim, 2).size(), 1u);
  EXPECT_EQ(pods_of(sim, 2)[0]->created, SimTime::from_seconds(11));
  for (std::uint32_t i = 0; i < 3; ++i) {
    const Job& j = sim.store().job(sim.job_objects()[i]);
    EXPECT_EQ(j.condition, JobCondition::kComplete);
    EXPECT_FALSE(j.suspend);
  }
  // startTime is set when the Job is first un-suspended (JobResumed resets it).
  EXPECT_EQ(sim.store().job(sim.job_objects()[2]).start_time, SimTime::from_seconds(11));
}

// withinClusterQueue LowerPriority: "low" (2 cpu, 100 s) runs from 0; "high" (1 cpu, 10 s)
// arrives at 5: Preempt mode (1 <= nominal), target low. low's Job is suspended, the Job
// controller deletes its pod (not counted as failed) and reports active 0; the reservation
// is unset, high is admitted and its pod created at 5 s. high completes at 15 s + 1 s batch;
// low is admitted again and gets a second pod at 16 s.
TEST(KueueSetup, PreemptsBySuspendingTheJob) {
  Simulation sim(inputs({job("low", 0, 100, 0), job("high", 5, 10, 1)}), ideal());
  sim.run();
  const auto low = pods_of(sim, 0);
  const auto high = pods_of(sim, 1);
  ASSERT_EQ(high.size(), 1u);
  EXPECT_EQ(high[0]->created, SimTime::from_seconds(5));
  ASSERT_EQ(low.size(), 2u);
  EXPECT_EQ(low[0]->created, SimTime::zero());
  EXPECT_EQ(low[0]->deletion_requested, SimTime::from_seconds(5));
  EXPECT_EQ(low[1]->created, SimTime::from_seconds(16));
  const Job& lj = sim.store().job(sim.job_objects()[0]);
  EXPECT_EQ(lj.failed, 0);
  EXPECT_EQ(lj.condition, JobCondition::kComplete);
  EXPECT_EQ(lj.start_time, SimTime::from_seconds(16));
}

}  // namespace
}  // namespace kubesim

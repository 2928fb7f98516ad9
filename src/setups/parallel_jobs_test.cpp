// The gang metadata each scheduler setup gives a rigid parallel job (setups/parallel_jobs.hpp),
// and whole runs of two such jobs under each setup (ideal model: exact times).
#include "setups/parallel_jobs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/test_paths.hpp"
#include "platform/simgrid_platform.hpp"
#include "sched/yunikorn/yk_gang.hpp"
#include "setups/scheduler_setup.hpp"
#include "testing/inputs.hpp"
#include "testing/scratch_dir.hpp"
#include "workload/batsim_workload.hpp"

namespace kubesim {
namespace {

// Template 0: one core, the given schedulerName. Jobs: "7" of 4 machines at 5 s, "8" of 4
// machines at 6 s (same template), "9" of 1 machine, "10" a one-pod cpu job (machines 0).
Workload workload(const std::string& scheduler_name = "default-scheduler") {
  Workload w;
  w.templates.push_back(batch_job_template(1000, std::nullopt, scheduler_name));
  const struct {
    const char* id;
    std::uint32_t machines;
    double submit;
  } jobs[] = {{"7", 4, 5}, {"8", 4, 6}, {"9", 1, 7}, {"10", 0, 8}};
  for (const auto& spec : jobs)
    w.jobs.push_back(testing::JobBuilder(spec.id, spec.submit, 10)
                         .unnamed()
                         .machines(spec.machines)
                         .requested_resources(spec.machines));
  return w;
}

TEST(ParallelJobs, OnePodGroupPerJobOfSeveralMachines) {
  const Workload w = workload();
  const std::vector<PodGroupObject> groups = parallel_job_pod_groups(w);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].ns, "default");
  EXPECT_EQ(groups[0].name, "w0-7");  // the job's pods are w0-7-0 .. w0-7-3
  EXPECT_EQ(groups[0].min_member, 4);
  EXPECT_FALSE(groups[0].min_resources.has_value());
  EXPECT_EQ(groups[0].schedule_timeout_seconds, 0);
  EXPECT_EQ(groups[0].created, SimTime::from_seconds(5));
  EXPECT_EQ(groups[1].name, "w0-8");
}

TEST(ParallelJobs, PodGroupLabelOnEachJobsOwnTemplate) {
  Workload w = workload("scheduler-plugins-scheduler");
  w.jobs[1].name = "named";
  label_parallel_job_pod_groups(w, "scheduler-plugins-scheduler");
  ASSERT_EQ(w.templates.size(), 3u);
  EXPECT_EQ(w.jobs[0].pod_template, 1u);
  EXPECT_EQ(*find_label(w.templates[1].labels, kPodGroupLabel), "w0-7");
  EXPECT_EQ(w.jobs[1].pod_template, 2u);
  EXPECT_EQ(*find_label(w.templates[2].labels, "scheduling.x-k8s.io/pod-group"), "named");
  EXPECT_EQ(w.jobs[2].pod_template, 0u);  // one machine, or a cpu job: no gang
  EXPECT_EQ(w.jobs[3].pod_template, 0u);
  EXPECT_EQ(find_label(w.templates[0].labels, kPodGroupLabel), nullptr);

  Workload other = workload("default-scheduler");  // not this setup's pods
  label_parallel_job_pod_groups(other, "scheduler-plugins-scheduler");
  EXPECT_EQ(other.templates.size(), 1u);
}

TEST(ParallelJobs, TaskGroupAnnotationsReadAsTheShimReadsThem) {
  Workload w = workload("yunikorn");
  ResourceNames names;
  annotate_parallel_job_task_groups(w, names, "yunikorn");
  const PodTemplate& t = w.templates[w.jobs[0].pod_template];
  EXPECT_EQ(*find_label(t.annotations, yunikorn::kAnnotationTaskGroupName), "ranks");
  const std::string& groups = *find_label(t.annotations, yunikorn::kAnnotationTaskGroups);
  EXPECT_EQ(groups, R"([{"name": "ranks", "minMember": 4, "minResource": {"cpu": "1"}}])");
  const yunikorn::TaskGroupsResult parsed = yunikorn::parse_task_groups(groups, names);
  ASSERT_EQ(parsed.error, "");
  ASSERT_EQ(parsed.groups.size(), 1u);
  EXPECT_EQ(parsed.groups[0].name, "ranks");
  EXPECT_EQ(parsed.groups[0].min_member, 4);
  EXPECT_EQ(parsed.groups[0].min_resource[kCpu], 1000);
  EXPECT_EQ(find_label(w.templates[0].annotations, yunikorn::kAnnotationTaskGroups), nullptr);
}

TEST(ParallelJobs, KueueGetsIndexedJobsOfParallelismP) {
  Workload w = workload();
  parallel_jobs_as_indexed_jobs(w, "default-scheduler");
  const WorkloadJob& j = w.jobs[0];
  EXPECT_TRUE(j.as_job);
  EXPECT_TRUE(j.indexed);
  EXPECT_EQ(j.parallelism, 4);
  EXPECT_EQ(j.completions, 4);
  EXPECT_EQ(j.backoff_limit, 0);
  EXPECT_TRUE(w.jobs[2].as_job);  // one machine: through Kueue's quota too
  EXPECT_EQ(w.jobs[2].parallelism, 1);
  EXPECT_FALSE(w.jobs[3].as_job);  // a cpu job (one pod of that request): unchanged
}

// Four one-core nodes; job "7" (4 machines, 10 s) at 5 s and job "8" (4 machines) at 6 s:
// under every setup "7" runs first on all four nodes and "8" after it (kube-scheduler's
// default profile too: the jobs arrive one after the other, so its ranks do not interleave).
TEST(ParallelJobs, EverySetupRunsTheTwoJobsOneAfterTheOther) {
  const testing::ScratchDir dir;
  const std::string kueue = dir.write(
      "kueue.yaml",
      testing::kueue_config({.local_queue_ns = "default", .cpu_quota = 4, .preemption = "", .frameworks = ""}));

  for (const std::string setup : {"default-scheduler", "scheduler-plugins", "yunikorn", "kueue", "volcano", "fcfs"}) {
    SCOPED_TRACE(setup);
    SimulationInputs in;
    in.nodes = testing::numbered_nodes(4, testing::NodeBuilder("").cpu("1").memory("4Gi"), "n");
    in.workload = workload();
    in.workload.jobs.resize(2);
    in.scheduler = default_scheduler_config(in.resource_names);
    const std::string config = setup == "kueue"      ? kueue
                               : setup == "yunikorn" ? testing::source_dir() + "/examples/parallel-jobs/yunikorn.yaml"
                                                     : "";
    install_setups({SetupChoice{setup, config, Duration()}}, in);
    SimulationOptions options;
    options.model = ModelConfig::ideal();
    Simulation sim(std::move(in), options);
    sim.run();
    std::size_t ranks = 0;
    SimTime finished[2] = {SimTime::never(), SimTime::never()};
    SimTime first_start[2] = {SimTime::never(), SimTime::never()};
    for (std::size_t i = 0; i < sim.store().pod_count(); ++i) {
      const Pod& p = sim.store().pod(PodId(static_cast<std::uint32_t>(i)));
      if (p.workload_job == kNoWorkloadJob) continue;  // YuniKorn's placeholders
      ++ranks;
      ASSERT_LT(p.workload_job, 2u);
      EXPECT_EQ(p.machines, 4u);
      EXPECT_EQ(p.phase, PodPhase::kSucceeded) << p.name;
      // A job's ranks end together, at least 10 s after its last rank started.
      if (finished[p.workload_job].is_never()) finished[p.workload_job] = p.finished;
      EXPECT_EQ(p.finished, finished[p.workload_job]) << p.name;
      EXPECT_GE(p.finished, p.started + Duration::seconds(10)) << p.name;
      first_start[p.workload_job] = std::min(first_start[p.workload_job], p.started);
    }
    // "7" at 5 s (within a second of scheduling work), "8" once "7" has freed the machines.
    EXPECT_GE(finished[0], SimTime::from_seconds(15));
    EXPECT_LT(finished[0], SimTime::from_seconds(16));
    EXPECT_GE(first_start[1], finished[0]);
    EXPECT_EQ(ranks, 8u);
    EXPECT_EQ(sim.stuck_parallel_jobs().jobs, 0u);
  }
}

// examples/parallel-jobs/deadlock.json on the 16 one-core machines of graphene under `setup`
// (configured by `config`, "" for none).
SimulationInputs deadlock_inputs(const std::string& setup, const std::string& config) {
  SimulationInputs in;
  in.nodes =
      read_simgrid_platform(testing::data_dir() + "/batsim/platform_graphene_16nodes.xml", in.resource_names).nodes;
  in.workload =
      read_batsim_workload(testing::source_dir() + "/examples/parallel-jobs/deadlock.json", in.resource_names);
  in.scheduler = default_scheduler_config(in.resource_names);
  install_setups({SetupChoice{setup, config, Duration()}}, in);
  return in;
}

// examples/parallel-jobs/deadlock.json on 16 one-core machines (realistic model, seed 1, as
// `kubesim run` by default): without a gang, A holds 11 machines and B 5, both wait for ever
// and the run ends with them stuck; Coscheduling runs both.
TEST(ParallelJobs, PartialPlacementDeadlocksWithoutAGang) {
  for (const std::string setup : {"default-scheduler", "scheduler-plugins"}) {
    SCOPED_TRACE(setup);
    SimulationOptions options;
    options.model = ModelConfig::realistic();
    Simulation sim(deadlock_inputs(setup, ""), options);
    sim.run();
    const Simulation::StuckJobs stuck = sim.stuck_parallel_jobs();
    if (setup == "default-scheduler") {
      EXPECT_EQ(stuck.jobs, 2u);
      EXPECT_EQ(stuck.waiting_pods, 16u);
      EXPECT_EQ(stuck.pending_pods, 8u);
      EXPECT_EQ(stuck.example, "w0-A: 11 of 12 ranks placed");
      EXPECT_EQ(sim.finished_pods(), 16u);  // the one-machine jobs only
    } else {
      EXPECT_EQ(stuck.jobs, 0u);
      EXPECT_EQ(sim.finished_pods(), 40u);
    }
  }
}

// Jobs A and B of deadlock.json ("A"/"B" in jobs order: 16 and 17) under scheduler-plugins.
struct AB {
  SimTime a_start, a_end, b_start, b_end;
  SimTime run_end;
};

AB run_deadlock_example(const std::string& config, const ModelConfig& model) {
  SimulationOptions options;
  options.model = model;
  Simulation sim(deadlock_inputs("scheduler-plugins", config), options);
  sim.run();
  AB out{SimTime::never(), SimTime::zero(), SimTime::never(), SimTime::zero(), sim.now()};
  for (std::size_t i = 0; i < sim.store().pod_count(); ++i) {
    const Pod& p = sim.store().pod(PodId(static_cast<std::uint32_t>(i)));
    if (p.workload_job != 16 && p.workload_job != 17) continue;
    EXPECT_EQ(p.phase, PodPhase::kSucceeded) << p.name;
    SimTime& start = p.workload_job == 16 ? out.a_start : out.b_start;
    SimTime& end = p.workload_job == 16 ? out.a_end : out.b_end;
    start = std::min(start, p.started);
    end = std::max(end, p.finished);
  }
  return out;
}

// Under the ideal model Coscheduling's loop (a rank of A waits at Permit and activates its
// siblings, the next finds no node and PostFilter rejects the group, the next takes the
// freed node...) runs at one instant while fewer than 12 machines are free; it used never to
// end. The scheduler now parks until the next change, so A starts when the twelfth machine
// is free (s12 ends at 120 s) and B when A's 12 and s13-s15's machines are (150 s).
TEST(ParallelJobs, CoschedulingLoopUnderTheIdealModelLetsTimeAdvance) {
  const AB r = run_deadlock_example("", ModelConfig::ideal());
  EXPECT_EQ(r.a_start, SimTime::from_seconds(120));
  EXPECT_EQ(r.a_end, SimTime::from_seconds(150));
  EXPECT_EQ(r.b_start, SimTime::from_seconds(150));
  EXPECT_EQ(r.b_end, SimTime::from_seconds(180));
}

// PodGroups with minResources (cpu 12): A and B fail Coscheduling's PreFilter (a resource
// gap) while the one-machine jobs run; that plugin registers only Pod Add, so the machines
// freed later do not move them and only the 5-minute flush of unschedulable pods retries
// them. The run used to end at 160 s with both REJECTED; now A is retried at the first 30 s
// flush after 1 s + 5 min (330 s) and runs; B, which failed again at 330 s while A held the
// machines, at the first flush after 330 s + 5 min (660 s).
TEST(ParallelJobs, MinResourcesGroupsWaitForTheUnschedulableFlush) {
  const testing::ScratchDir dir;
  const std::string config = dir.write("pod-groups.yaml", R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: w0-A, namespace: default}
spec: {minMember: 12, minResources: {cpu: 12}}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: w0-B, namespace: default}
spec: {minMember: 12, minResources: {cpu: 12}}
)");
  const AB r = run_deadlock_example(config, ModelConfig::ideal());
  EXPECT_EQ(r.a_start, SimTime::from_seconds(330));
  EXPECT_EQ(r.a_end, SimTime::from_seconds(360));
  EXPECT_EQ(r.b_start, SimTime::from_seconds(660));
  EXPECT_EQ(r.b_end, SimTime::from_seconds(690));
  EXPECT_EQ(r.run_end, SimTime::from_seconds(690));
}

}  // namespace
}  // namespace kubesim

#include "report/batsim_csv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "testing/builders.hpp"
#include "testing/scratch_dir.hpp"
#include "testing/text_files.hpp"

namespace kubesim {
namespace {

SimTime at(double seconds) { return SimTime::from_seconds(seconds); }

using testing::lines_of;
using testing::NodeBuilder;
using testing::PodBuilder;
using testing::read_file;

WorkloadJob make_job(std::string id, std::string profile, double submit, double walltime = 0, std::int64_t res = 1) {
  WorkloadJob j;
  j.id = std::move(id);
  j.profile = std::move(profile);
  j.submit = at(submit);
  j.walltime = Duration::from_seconds(walltime);
  j.requested_resources = res;
  return j;
}

// jobs.csv has the rows `jobs` after its header; schedule.csv has the one row `schedule`.
void expect_csv_rows(const RunOutputs& run, const std::vector<std::string>& jobs, const std::string& schedule) {
  const std::vector<std::string> job_lines = lines_of(batsim_jobs_csv(run));
  ASSERT_EQ(job_lines.size(), jobs.size() + 1);
  for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(job_lines[i + 1], jobs[i]) << "job row " << i;
  const std::vector<std::string> schedule_lines = lines_of(batsim_schedule_csv(run));
  ASSERT_EQ(schedule_lines.size(), 2u);
  EXPECT_EQ(schedule_lines[1], schedule);
}

// A pod "w0-<job id><suffix>" of workload job `job` (in namespace 0), created at 0, that ran on
// `node` over [start, end] s and succeeded.
PodBuilder succeeded(PodTemplateId tpl, const Workload& workload, std::uint32_t job, NodeId node, double start,
                     double end, const std::string& suffix = "") {
  return PodBuilder(tpl).name("w0-" + workload.jobs[job].id + suffix).of_job(job).on(node, at(start)).finished(at(end));
}

// Seven jobs on three nodes covering every Batsim final state; times are chosen so that every
// expected figure is easy to compute by hand (see the comments in the tests).
class BatsimCsvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tpl_ = store_.add_template(testing::PodTemplateBuilder().cpu("500m").memory("1Gi").no_limits());

    for (const char* name : {"node-a", "node-b", "node-c"}) nodes_.push_back(store_.create_node(NodeBuilder(name)));
    ns_ = store_.ensure_namespace("default");

    workload_.name = "w0";
    workload_.jobs = {
        make_job("1", "delay10", 0),        // 0: succeeds on node-a [2, 12]
        make_job("2", "delay5", 1),         // 1: kubelet rejects it (OutOfcpu) at 3
        make_job("3", "delay100", 2, 20),   // 2: walltime 20 reached on node-b [4.25, 24.25]
        make_job("4", "delay10", 5),        // 3: still Pending at the end
        make_job("5", "delay10", 6),        // 4: pod never created
        make_job("6", "fail", 3),           // 5: exits 1 on node-a [10, 11]
        make_job("7", "delay10", 7, 0, 2),  // 6: evicted on node-a [13, 15]
    };
    job_pods_.assign(workload_.jobs.size(), PodId());

    // Pods are created in this order, so PodIds are 0..5 for jobs 0, 1, 2, 3, 5, 6.
    const PodId p0 = create(0, 0);
    const PodId p1 = create(1, 1);
    const PodId p2 = create(2, 2);
    const PodId p3 = create(3, 5);
    const PodId p4 = create(5, 3);
    const PodId p5 = create(6, 7);

    run(p0, nodes_[0], 1, 2, 12, PodPhase::kSucceeded, "");
    store_.update_pod(p1, [&](Pod& p) {
      p.node = nodes_[1];
      p.scheduled = at(1.5);
      p.phase = PodPhase::kFailed;
      p.reason = "OutOfcpu";
    });
    run(p2, nodes_[1], 2.5, 4.25, 24.25, PodPhase::kFailed, "DeadlineExceeded");
    store_.update_pod(p3, [&](Pod& p) { p.reason = "Unschedulable, \"cpu\""; });
    store_.pod_statistics(p3).scheduling_attempts = 3;
    store_.update_pod(p4, [&](Pod& p) { p.exit_code = 1; });
    run(p4, nodes_[0], 9, 10, 11, PodPhase::kFailed, "");
    run(p5, nodes_[0], 12.5, 13, 15, PodPhase::kFailed, "Evicted");

    // The order in which the pods became terminal.
    completion_ = {p1, p4, p0, p5, p2};
  }

  PodId create(std::uint32_t job, double created) {
    Pod p;
    p.name = "w0-" + workload_.jobs[job].id;
    p.ns = ns_;
    p.spec = tpl_;
    p.workload_job = job;
    p.created = at(created);
    const PodId id = store_.create_pod(p);
    job_pods_[job] = id;
    return id;
  }

  void run(PodId id, NodeId node, double scheduled, double started, double finished, PodPhase phase,
           const std::string& reason) {
    store_.update_pod(id, [&](Pod& p) {
      p.node = node;
      p.scheduled = at(scheduled);
      p.start_time = at(started);
      p.started = at(started);
      p.finished = at(finished);
      p.phase = phase;
      p.reason = reason;
    });
    store_.pod_statistics(id).scheduling_attempts = 1;
  }

  RunOutputs outputs() const { return RunOutputs{store_, workload_, completion_, job_pods_, at(30), "0.1.0"}; }

  ObjectStore store_;
  Workload workload_;
  PodTemplateId tpl_;
  NamespaceId ns_;
  std::vector<NodeId> nodes_;
  std::vector<PodId> completion_;
  std::vector<PodId> job_pods_;
};

TEST_F(BatsimCsvTest, JobsHeaderIsBatsims) {
  const auto lines = lines_of(batsim_jobs_csv(outputs()));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0],
            "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
            "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
            "allocated_resources,consumed_energy,metadata");
}

TEST_F(BatsimCsvTest, JobsRowsInCompletionOrderThenUnfinishedInWorkloadOrder) {
  const std::string csv = batsim_jobs_csv(outputs());
  const auto lines = lines_of(csv);
  ASSERT_EQ(lines.size(), 8u);
  // Kubelet rejection: no start, so Batsim's rejected layout with every time field empty.
  EXPECT_EQ(lines[1], "2,w0,delay5,1.000000,1,-1.000000,0,REJECTED,,,,,,,,,\"\"");
  // Non-zero exit: wait 10-3=7, exec 1, turnaround 8, stretch 8.
  EXPECT_EQ(lines[2],
            "6,w0,fail,3.000000,1,-1.000000,0,COMPLETED_FAILED,10.000000,1.000000,11.000000,7.000000,8.000000,"
            "8.000000,0,-1.000000,\"\"");
  // Success: wait 2, exec 10, turnaround 12, stretch 1.2.
  EXPECT_EQ(lines[3],
            "1,w0,delay10,0.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,2.000000,10.000000,12.000000,2.000000,"
            "12.000000,1.200000,0,-1.000000,\"\"");
  // Evicted: wait 6, exec 2, turnaround 8, stretch 4; requested 2 resources.
  EXPECT_EQ(lines[4],
            "7,w0,delay10,7.000000,2,-1.000000,0,COMPLETED_KILLED,13.000000,2.000000,15.000000,6.000000,8.000000,"
            "4.000000,0,-1.000000,\"\"");
  // Walltime: requested_time 20, wait 2.25, exec 20, turnaround 22.25, stretch 1.1125; node 1.
  EXPECT_EQ(lines[5],
            "3,w0,delay100,2.000000,1,20.000000,0,COMPLETED_WALLTIME_REACHED,4.250000,20.000000,24.250000,2.250000,"
            "22.250000,1.112500,1,-1.000000,\"\"");
  // Still Pending at the end, then never created: submission from pod.created, then job.submit.
  EXPECT_EQ(lines[6], "4,w0,delay10,5.000000,1,-1.000000,0,REJECTED,,,,,,,,,\"\"");
  EXPECT_EQ(lines[7], "5,w0,delay10,6.000000,1,-1.000000,0,REJECTED,,,,,,,,,\"\"");
  EXPECT_EQ(csv.back(), '\n');
  EXPECT_EQ(csv, batsim_jobs_csv(outputs()));  // deterministic
}

TEST_F(BatsimCsvTest, RunningAtEndIsKilledAtEndTime) {
  const PodId p3 = job_pods_[3];
  store_.update_pod(p3, [&](Pod& p) {
    p.node = nodes_[2];
    p.started = at(20);
    p.phase = PodPhase::kRunning;
    p.reason.clear();
  });
  const auto lines = lines_of(batsim_jobs_csv(outputs()));
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[6],
            "4,w0,delay10,5.000000,1,-1.000000,0,COMPLETED_KILLED,20.000000,10.000000,30.000000,15.000000,"
            "25.000000,2.500000,2,-1.000000,\"\"");
}

TEST_F(BatsimCsvTest, ScheduleHeaderAndValues) {
  const auto lines = lines_of(batsim_schedule_csv(outputs()));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "batsim_version,consumed_joules,makespan,max_slowdown,max_turnaround_time,max_waiting_time,mean_slowdown,"
            "mean_turnaround_time,mean_waiting_time,nb_computing_machines,nb_grouped_switches,nb_jobs,"
            "nb_jobs_finished,nb_jobs_killed,nb_jobs_rejected,nb_jobs_success,nb_machine_switches,scheduling_time,"
            "simulation_time,success_rate,time_computing,time_idle,time_sleeping,time_switching_off,"
            "time_switching_on,time_unavailable");
  // Finished jobs: waits 7+2+6+2.25 = 17.25, turnarounds 8+12+8+22.25 = 50.25, slowdowns
  // 8+1.2+4+1.1125 = 14.3125; Batsim divides by nb_jobs = 7, rejected jobs included:
  // 2.464285.., 7.178571.., 2.044642... success_rate 1/7. Makespan = last finish 24.25.
  // node-a busy [2,12] u [10,11] u [13,15] = 12 s, idle before: 2 + 1 = 3 s (after 15: not
  // counted); node-b busy [4.25,24.25] = 20 s, idle 4.25 s; node-c unused: 0.
  EXPECT_EQ(lines[1],
            "kubesim-0.1.0,0.000000,24.250000,8.000000,22.250000,7.000000,2.044643,7.178571,2.464286,3,0,7,4,3,3,1,"
            "0,0.000000,0.000000,0.142857,32.000000,7.250000,0.000000,0.000000,0.000000,0.000000");
}

TEST(BatsimCsv, ScheduleOfEmptyWorkloadDividesByZeroLikeBatsim) {
  ObjectStore store;
  Workload workload;
  std::vector<PodId> none;
  const RunOutputs run{store, workload, none, none, SimTime::zero(), "x"};
  const auto lines = lines_of(batsim_schedule_csv(run));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1],
            "kubesim-x,0.000000,0.000000,0.000000,0.000000,0.000000,-nan,-nan,-nan,0,0,0,0,0,0,0,0,0.000000,"
            "0.000000,-nan,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000");
  EXPECT_EQ(lines_of(batsim_jobs_csv(run)).size(), 1u);
}

TEST(BatsimCsv, ZeroExecutionStretchIsInfOrNan) {
  ObjectStore store;
  const PodTemplateId tpl = store.add_template(PodTemplate{});
  store.ensure_namespace("default");  // NamespaceId(0), the pods' namespace
  const NodeId node = store.create_node(NodeBuilder("n"));
  Workload workload;
  workload.jobs = {make_job("a", "p", 0), make_job("b", "p", 1)};
  std::vector<PodId> pods;
  for (std::uint32_t j = 0; j < 2; ++j) {
    pods.push_back(store.create_pod(succeeded(tpl, workload, j, node, 1, 1).created(at(j))));
  }
  // Slowdown sum inf + NaN = NaN; the max ignores the NaN. Both containers ran for 0 s at t=1
  // on node n: idle [0, 1], computing 0.
  expect_csv_rows(RunOutputs{store, workload, pods, pods, at(1), "v"},
                  {"a,w0,p,0.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,1.000000,0.000000,1.000000,1.000000,"
                   "1.000000,inf,0,-1.000000,\"\"",
                   "b,w0,p,1.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,1.000000,0.000000,1.000000,0.000000,"
                   "0.000000,-nan,0,-1.000000,\"\""},
                  "kubesim-v,0.000000,1.000000,inf,1.000000,1.000000,-nan,0.500000,0.500000,1,0,2,2,0,0,2,0,0.000000,"
                  "0.000000,1.000000,0.000000,1.000000,0.000000,0.000000,0.000000,0.000000");
}

// A rigid parallel job holds every machine of its allocation from its start to its end
// (batsim src/machines.cpp@v4.2.1, Machines::update_machines_on_job_run/_end over the
// allocation): schedule.csv's machine times count each of them, not one.
TEST(BatsimCsv, ParallelJobComputesOnEveryMachineOfItsAllocation) {
  ObjectStore store;
  const PodTemplateId tpl = store.add_template(PodTemplate{});
  store.ensure_namespace("default");  // NamespaceId(0), the pods' namespace
  std::vector<NodeId> nodes;
  for (const char* name : {"a", "b", "c"}) nodes.push_back(store.create_node(NodeBuilder(name)));
  Workload workload;
  workload.name = "w0";
  workload.jobs = {make_job("p", "d10", 0, 0, 2), make_job("s", "d5", 0)};
  workload.jobs[0].machines = 2;
  const auto create = [&](std::uint32_t job, std::uint32_t machines, std::uint32_t rank, NodeId node, double start,
                          double end) {
    return store.create_pod(
        succeeded(tpl, workload, job, node, start, end, "-" + std::to_string(rank)).of_job(job, machines, rank));
  };
  // Job p: ranks on machines 1 and 0 over [2, 12]; job s: machine 0 over [15, 20].
  const PodId rank0 = create(0, 2, 0, nodes[1], 2, 12);
  const PodId rank1 = create(0, 2, 1, nodes[0], 2, 12);
  const PodId single = create(1, 0, 0, nodes[0], 15, 20);
  const std::vector<PodId> completion = {rank0, rank1, single};
  const std::vector<PodId> job_pods = {rank0, single};
  // Machine 0: idle [0, 2], computing [2, 12], idle [12, 15], computing [15, 20]; machine 1:
  // idle [0, 2], computing [2, 12]; machine 2 unused. Computing 15 + 10, idle 5 + 2.
  expect_csv_rows(RunOutputs{store, workload, completion, job_pods, at(20), "v"},
                  {"p,w0,d10,0.000000,2,-1.000000,1,COMPLETED_SUCCESSFULLY,2.000000,10.000000,12.000000,2.000000,"
                   "12.000000,1.200000,0-1,-1.000000,\"\"",
                   // Job s: waited 15 s for machine 0, ran 5 s: stretch 20 / 5.
                   "s,w0,d5,0.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,15.000000,5.000000,20.000000,15.000000,"
                   "20.000000,4.000000,0,-1.000000,\"\""},
                  "kubesim-v,0.000000,20.000000,4.000000,20.000000,15.000000,2.600000,16.000000,8.500000,3,0,2,2,0,0,2,"
                  "0,0.000000,0.000000,1.000000,25.000000,7.000000,0.000000,0.000000,0.000000,0.000000");
}

TEST_F(BatsimCsvTest, StreamedPodsCsvIsTheSameText) {
  std::string streamed;
  std::size_t pieces = 0;
  stream_pods_csv(outputs(), [&](std::string_view piece) {
    streamed += piece;
    ++pieces;
  });
  EXPECT_EQ(streamed, pods_csv(outputs()));
  EXPECT_EQ(pieces, 1u);  // a small file: one piece at the end
}

TEST_F(BatsimCsvTest, PodsCsvRowsAndQuoting) {
  const auto lines = lines_of(pods_csv(outputs()));
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[0],
            "namespace,pod,job_id,node,phase,reason,cpu_request_milli,memory_request_bytes,created,scheduled,started,"
            "finished,scheduling_attempts");
  EXPECT_EQ(lines[1], "default,w0-1,1,node-a,Succeeded,,500,1073741824,0.000000,1.000000,2.000000,12.000000,1");
  EXPECT_EQ(lines[2], "default,w0-2,2,node-b,Failed,OutOfcpu,500,1073741824,1.000000,1.500000,,,0");
  EXPECT_EQ(lines[4], "default,w0-4,4,,Pending,\"Unschedulable, \"\"cpu\"\"\",500,1073741824,5.000000,,,,3");
  EXPECT_EQ(lines[6], "default,w0-7,7,node-a,Failed,Evicted,500,1073741824,7.000000,12.500000,13.000000,15.000000,1");
}

TEST(BatsimCsv, CsvFieldQuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

TEST_F(BatsimCsvTest, WriteRunOutputsCreatesDirectoriesAndFiles) {
  namespace fs = std::filesystem;
  const testing::ScratchDir scratch;
  const fs::path root = scratch.path();
  const fs::path dir = root / "a" / "b";
  const RunOutputs run = outputs();
  write_run_outputs(dir.string(), run);
  EXPECT_EQ(read_file(dir / "jobs.csv"), batsim_jobs_csv(run));
  EXPECT_EQ(read_file(dir / "schedule.csv"), batsim_schedule_csv(run));
  EXPECT_EQ(read_file(dir / "pods.csv"), pods_csv(run));
  // Rewriting replaces the files; no temporary files are left behind.
  write_run_outputs(dir.string(), run);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"jobs.csv", "pods.csv", "schedule.csv"}));

  // A regular file where the directory should be: a one-line error naming the path.
  const fs::path blocker = root / "file";
  std::ofstream(blocker) << "x";
  try {
    write_run_outputs((blocker / "out").string(), run);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((blocker / "out").string()), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace kubesim

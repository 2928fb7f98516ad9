// A BSP job of the study on the simulated cluster: a gang of one task pod per task (cpu
// request = limit = the task's shares in millicores, as the study's Jobs set them), advancing
// in supersteps behind a barrier; a superstep lasts as long as its slowest task (the
// performance model at the executed workload size and the task's shares). When the controller
// (controllers.hpp) reconfigures, the job checkpoints (the penalty, in simulated seconds),
// deletes its task pods and waits until they are gone (the study deletes its Jobs with
// propagationPolicy Foreground), then creates new pods with the new requests and waits until
// the gang scheduler has placed the whole gang and every container has started. Other
// tenants share the cluster, so a plan may wait for resources.
//
// The gang, as each real gang scheduler sees it (GangSpec::gang_scheduler):
//  - coscheduling (scheduler-plugins, pkg/coscheduling): at its start the job creates its
//    PodGroup (scheduling.x-k8s.io/v1alpha1, minMember = the task count, in its namespace);
//    every task pod carries the label scheduling.x-k8s.io/pod-group. One PodGroup serves
//    every set of task pods: the plugin counts the group's current (non-terminal) pods.
//  - yunikorn (yunikorn-k8shim, docs/user_guide/gang_scheduling.md): each set of task pods is
//    one application (label applicationId "<podGroup>-<generation>", label queue) whose pods
//    carry the annotation yunikorn.apache.org/task-groups, one task group per task (minMember
//    1, minResource its cpu shares: the tasks' requests differ, and a task group's members
//    share one shape), and yunikorn.apache.org/task-group-name; YuniKorn reserves the gang
//    with placeholder pods, then swaps in the real pods.
//  - kueue (Kueue v0.6+ plain pods, pkg/controller/jobs/pod/): each set of task pods is one pod
//    group (label kueue.x-k8s.io/pod-group-name "<podGroup>-<generation>", annotation
//    kueue.x-k8s.io/pod-group-total-count = the task count, retriable-in-group "false" so the
//    group ends when the job deletes it; label kueue.x-k8s.io/queue-name = the LocalQueue).
//    Kueue gates the pods, admits the group's Workload all or nothing against its
//    ClusterQueue's quota and ungates them; kube-scheduler then places them one by one (the
//    quota is a gang, the placement is not).
//
// Follows: simulation/simulator.py (MPCSimulator.simulate, real_simulation=True: delete_jobs,
// create_workloads_from_configuration; the barrier of N+1 members). Modelled, not measured:
// the barrier and ZooKeeper hand-offs take no time; the task containers exit at SIGTERM
// (stress-ng stops on it), so a deletion takes the kubelet's termination path without the
// grace period. A task pod that fails (e.g. rejected by the kubelet) is replaced.
// In ideal mode (zero latencies) on a cluster where the gang always fits, the superstep times
// and the checkpoint count equal the study's simulator (gang_study.hpp) exactly.
#pragma once

#include <string>
#include <vector>

#include "bsp/controllers.hpp"
#include "bsp/gang_spec.hpp"
#include "bsp/gang_study.hpp"
#include "engine/simulation.hpp"

namespace kubesim::bsp {

struct GangStepRecord {
  int step = 0;
  int plan_window = 0;       // 0: kept the shares
  bool reconfigured = false;  // new pods before this step (always at step 0)
  Shares shares;
  double start = 0;           // s, when the step's reconfiguration (or superstep) began
  double penalty = 0;         // s, checkpoint penalty charged
  double deletion = 0;        // s, from the delete requests until every old pod was gone
  double gang_wait = 0;       // s, from the creations until the last pod was bound
  double startup = 0;         // s, from the last binding until the last container started
  double superstep = 0;       // s, the model's superstep time (slowest task)
  double end = 0;             // s, when the superstep ended
  int replaced_pods = 0;      // task pods that failed and were created again
};

struct GangRunResult {
  std::string controller;
  std::vector<GangStepRecord> steps;
  double duration_without_penalty = 0;  // Σ superstep (the study's figure)
  int checkpoints = 0;
  double study_total = 0;               // + penalty x checkpoints (the study's Total Duration)
  double penalty_total = 0, deletion_total = 0, gang_wait_total = 0, startup_total = 0;
  double cluster_total = 0;             // end - start on the cluster
  std::vector<StrategyResult> study_table;  // the study's strategies in ideal mode, same data
  std::vector<std::string> task_names;
};

class GangRun {
 public:
  // Loads the study's data (InputError naming the files) and checks the traces cover rows
  // first_row .. first_row + steps - 1 (and the plan's columns).
  GangRun(Simulation& sim, const GangSpec& spec, int first_row = 0);
  // Runs the spec's controller over the job's steps (rows 0 ..), ends the job, then the rest of
  // the simulation (sim.run()); stops at `until`. A gang that can never be placed (shares
  // that fit no node, a cluster too small) is an InputError at the scenario's bsp: line.
  void run(SimTime until);

  // ---- Step by step, for a controller outside (the Python environment); run() uses them ----
  // Moves to the job's start and creates its PodGroup (coscheduling). False if `until` comes
  // first. InputError when no scheduler serves the task pods' schedulerName with the gang
  // scheduler's machinery.
  bool start(SimTime until);
  // Creates the task pods with the current shares and waits for the gang (no superstep):
  // the job's launch before its first step. False if `until` came first.
  bool launch(SimTime until);
  // Superstep at trace row `row`: w = 0 keeps the shares, w > 0 re-plans them with
  // plan(row, w, 0) (a checkpoint, the deletion and the new gang when the gang runs; the
  // first gang when none runs yet); then the superstep. Appends its record to result().steps.
  // False if `until` came first (nothing recorded).
  bool step(int row, int w, SimTime until);
  // The job ends: its pods are deleted, the totals and the study's ideal table computed.
  void finish(SimTime until);
  // The controller's name in the report, for a controller outside (run() names its own).
  void name_controller(std::string name) { result_.controller = std::move(name); }

  const GangRunResult& result() const { return result_; }
  Planner& planner() { return planner_; }
  const Shares& current_shares() const { return current_; }
  const StudySettings& settings() const { return settings_; }
  // The launch's record (its gang wait and start-up).
  const GangStepRecord& launch_record() const { return launch_record_; }

 private:
  void create_gang(const Shares& shares, GangStepRecord& record, SimTime until);
  void delete_gang(GangStepRecord& record, SimTime until);
  PodId create_task_pod(std::size_t task, int shares);
  void check_fits(const Shares& shares, int step) const;
  // Checks the gang scheduler serves the task pods; creates the PodGroup (coscheduling).
  void set_up_gang_scheduler();
  bool advance_one(SimTime until);

  Simulation& sim_;
  GangSpec spec_;
  StudyData data_;
  StudySettings settings_;
  Planner planner_, executed_;
  Shares current_;
  std::string task_groups_;  // yunikorn: the task-groups annotation of the current gang
  std::vector<PodId> pods_;
  int generation_ = 0;
  GangRunResult result_;
  GangStepRecord launch_record_;
  bool stopped_ = false;  // reached `until`
};

// bsp_steps.csv, bsp_summary.csv, bsp_study.csv, the charts and report.html's section.
struct GangReport {
  std::vector<std::pair<std::string, std::string>> files;  // name, content
  std::string html_section;
};
GangReport build_gang_report(const GangRunResult& result);

}  // namespace kubesim::bsp

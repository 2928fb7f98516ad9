// The HPC batch policies (FCFS, EASY and conservative backfilling, batsched's
// src/algo/fcfs_fast.cpp, easy_bf.cpp, conservative_bf.cpp) as a kubesim scheduler: one
// BackfillSchedule (sched/batch/backfill.hpp) with a reservation depth, fed by this
// scheduler's informer stream.
//
// - Jobs: the pending pods whose schedulerName this scheduler serves, in order of creation
//   (Batsim's release date); walltime = Pod::active_deadline (the workload's requested time).
// - Occupancy: every assigned, non-terminal pod of the store as the informer reports it (also
//   other schedulers' pods: until their activeDeadline, else for ever), and the pods decided
//   here from the decision on.
// - Decision points: batsched's make_decisions runs once per Batsim message, after the
//   message's job releases and completions. Here: one decision per instant at which a queued
//   pod arrived, a pod ended or was deleted, or a node changed, posted as a kTimer in the
//   scheduler phase, after all of that instant's informer deliveries.
// - Binding: each start is a binding API call (ClusterClient::bind) landing as kBindDone after
//   `bind_latency` (the setups use zero: Batsim executes a decision at the decision's date).
//   The kubelet's admission and start-up latency then apply as for any pod.
// - Planned walltime: batsched adds its rjms_delay to every job's walltime when it reads the
//   job (json_workload.cpp Workload::add_job_from_json_object: "Let's apply the RJMS delay
//   on the job: job->walltime += _rjms_delay"), and main.cpp's --rjms_delay defaults to 5 s
//   (read in hpc/batsched4's early, unmodified versions of batsched; kBatschedRjmsDelay). So
//   reservations and backfill windows use walltime + `rjms_delay` (the setups and the
//   constructor's default use batsched's 5 s); the pod is still killed at its own walltime
//   (activeDeadlineSeconds), as Batsim kills at the job's walltime.
// - A pod without walltime (no activeDeadlineSeconds; e.g. every job of the NASA iPSC SWF
//   trace, whose field 9 is -1): Batsim users convert such traces with walltime =
//   max(jwf * run time, requested time), jwf = 2 by default (Batsim
//   tools/swf_to_batsim_workload_compute_only.py -jwf; kubesim's convert swf2batsim). With
//   `missing_walltime_factor` k > 0 the plan uses k * the pod's run time (+ rjms_delay), as
//   that converted workload would (the setups use 2); nothing kills the pod at that time, as
//   no deadline was asked for. A job still without walltime (k = 0, or a zero run time):
//   conservative_bf.cpp rejects it on release ("Rejecting job '%s' as it has no walltime");
//   easy_bf.cpp and fcfs_fast.cpp queue it, and schedule.cpp add_job_first_fit gives it an
//   infinite walltime.
// - Rejection: a pod that no node could ever hold is rejected on arrival as batsched does
//   (add_reject_job); kubesim leaves it Pending with PodScheduled=False and the reason.
// - Rigid parallel jobs (pods with Pod::machines > 0, Batsim's `res` machines): batsched's own
//   machine-level schedule (machine_schedule.hpp). Machine i is NodeId i (the platform's hosts
//   in order, as Batsim numbers its machines); a job is released once all its pods were seen,
//   it starts when batsched would start it, all its pods bound at once (pod of rank k on the
//   k-th machine of the allocation), and it ends when its last pod ends. Other schedulers'
//   pods and node changes are not seen by this mode (Batsim's machines are all the scheduler's).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sched/batch/backfill.hpp"
#include "sched/batch/batsim_protocol.hpp"
#include "sched/batch/machine_decider.hpp"
#include "sched/batch/machine_schedule.hpp"
#include "sched/scheduler_model.hpp"

namespace kubesim {

class BatchScheduler final : public SchedulerModel {
 public:
  // batsched's --rjms_delay default (main.cpp).
  static constexpr Duration kBatschedRjmsDelay = Duration::seconds(5);

  // rjms_delay (not negative) is added to every walltime the plan uses; a job without walltime
  // keeps none.
  BatchScheduler(ObjectStore& store, SchedulerHost& host, std::string scheduler_name, std::uint32_t depth,
                 Duration bind_latency = Duration(), std::int64_t missing_walltime_factor = 0,
                 Duration rjms_delay = kBatschedRjmsDelay, Duration batsim_server_latency = Duration(),
                 Duration batsim_node_latency = Duration(), std::uint32_t batsim_jobs = 0);

  bool serves(const std::string& scheduler_name) const override { return scheduler_name == name_; }
  void on_pod_change(const Change& change, SimTime now) override;
  // A machine job's rank matters only when it is created (unbound) and when it ends; its
  // binding and status updates, and other schedulers' ranks, change nothing here.
  bool wants_pod_change(const Change& change, const Pod& pod) const override;
  void on_node_change(const Change& change, SimTime now) override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override { return decision_posted_ || protocol_timer_posted_ || !call_timer_at_.is_never(); }
  // Machine jobs decided by `decider` (an external scheduler) instead of batsched's modelled
  // algorithms; its CALL_ME_LATER requests become timers (not with Batsim's message latencies).
  void set_machine_decider(std::unique_ptr<MachineDecider> decider) { decider_ = std::move(decider); }
  std::uint64_t attempts() const override {
    return schedule_.attempts() + (machine_schedule_ ? machine_schedule_->attempts() : 0);
  }
  std::uint64_t bindings() const override { return bindings_; }
  const BackfillSchedule& schedule() const { return schedule_; }

 private:
  void request_decision(SimTime now);
  // Rigid parallel jobs (machine mode).
  void on_machine_pod_change(const Change& change, const Pod& pod, SimTime now);
  void decide_machine_jobs(SimTime now);
  void kill_machine_jobs(SimTime now);
  void delete_machine_job(std::uint32_t job, SimTime now);
  void decide_builtin_machine_jobs(SimTime now);  // machine_schedule_'s decisions
  void apply_machine_decisions(SimTime now);      // machine_starts_ and machine_rejects_
  void bind_machine_job(std::uint32_t job, SimTime now);
  // kBindJob: the binding of every rank of the job whose first rank is `first`.
  void apply_machine_job_binding(PodId first, SimTime now);
  void arm_protocol(SimTime now);
  void run_protocol(SimTime now);
  struct MachineJob {
    PodId first;          // the pods are first .. first + size - 1
    std::uint32_t seen = 0;
    std::uint32_t ended = 0;
  };
  BackfillSchedule::Demand demand_of(PodId pod) const;

  ObjectStore& store_;
  SchedulerHost& host_;
  std::string name_;
  Duration bind_latency_;
  std::int64_t missing_walltime_factor_;
  Duration rjms_delay_;
  BackfillSchedule schedule_;
  bool decision_posted_ = false;
  std::vector<BackfillSchedule::Start> starts_;  // scratch, reused
  std::vector<std::pair<PodId, BackfillSchedule::Rejection>> rejected_;  // written at the next decision
  std::uint64_t bindings_ = 0;
  std::uint32_t depth_;
  std::uint32_t batsim_jobs_;  // the workload's machine jobs (the per-job tables' size)
  std::unique_ptr<MachineSchedule> machine_schedule_;  // built at the first machine job
  std::vector<MachineJob> machine_jobs_;               // by workload job index
  std::vector<std::uint32_t> machine_ended_;           // since the last decision, in order
  std::vector<std::pair<std::uint32_t, MachineSchedule::Job>> machine_released_;
  std::vector<MachineSchedule::Start> machine_starts_;  // scratch
  std::vector<std::uint32_t> machine_rejects_;          // scratch
  std::vector<std::uint32_t> machine_kills_;  // the decider's KILL_JOBs (kill_machine_jobs)
  std::vector<bool> pod_ended_;                         // by PodId: its end was counted
  // With Batsim's message latencies (model batsim*): jobs go through the protocol model.
  std::unique_ptr<BatsimProtocol> protocol_;
  std::vector<MachineSchedule::Job> machine_job_info_;  // by workload job, for the protocol's calls
  std::vector<MachineSet> machine_allocs_;              // by workload job: its decided machines (kBindJob)
  bool protocol_timer_posted_ = false;
  SimTime protocol_timer_at_ = SimTime::never();
  std::unique_ptr<MachineDecider> decider_;  // null: machine_schedule_ decides
  SimTime call_timer_at_ = SimTime::never();  // the decider's requested call, posted
  void arm_requested_call(SimTime now);
};

}  // namespace kubesim

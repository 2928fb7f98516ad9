#include "sched/batch/batch_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

#include "cluster/predicates.hpp"
#include "sched/cluster_client.hpp"

namespace kubesim {

namespace {
// The pod's unschedulable message (after the scheduler's name) for a job rejected on release.
const char* rejection_message(BackfillSchedule::Rejection r) {
  switch (r) {
    case BackfillSchedule::Rejection::kNoWalltime: return ": the job has no walltime (rejected on release)";
    case BackfillSchedule::Rejection::kTooLarge: return ": the job requests more than any node can hold (rejected on release)";
    case BackfillSchedule::Rejection::kNone: break;
  }
  return "";
}
}  // namespace

BatchScheduler::BatchScheduler(ObjectStore& store, SchedulerHost& host, std::string scheduler_name, std::uint32_t depth,
                               Duration bind_latency, std::int64_t missing_walltime_factor, Duration rjms_delay,
                               Duration batsim_server_latency, Duration batsim_node_latency,
                               std::uint32_t batsim_jobs)
    : store_(store),
      host_(host),
      name_(std::move(scheduler_name)),
      bind_latency_(bind_latency),
      missing_walltime_factor_(missing_walltime_factor),
      rjms_delay_(rjms_delay),
      // conservative_bf.cpp rejects a job without walltime on release; easy_bf.cpp and
      // fcfs_fast.cpp queue it (infinite walltime).
      schedule_(depth, depth == BackfillSchedule::kAll),
      depth_(depth),
      batsim_jobs_(batsim_jobs) {
  if (batsim_server_latency > Duration() || batsim_node_latency > Duration())
    protocol_ = std::make_unique<BatsimProtocol>(batsim_server_latency, batsim_node_latency, batsim_jobs);
  // The per-job tables, by workload job index: a Batsim workload's jobs are all machine jobs.
  machine_jobs_.reserve(batsim_jobs);
  machine_allocs_.reserve(batsim_jobs);
  if (protocol_) machine_job_info_.reserve(batsim_jobs);
  // Which nodes a pod may use at all: what kubelet admission and kube-scheduler's filters
  // would refuse regardless of load (spec.nodeName, nodeSelector/affinity, NoSchedule and
  // NoExecute taints). Deliberately a subset of kube-scheduler's filters: a cordoned or
  // NotReady node is the schedule's own (set_node's `schedulable`, which no toleration
  // overrides), and resources are the backfill plan's, over time. Batsched's machines have
  // no such constraints.
  schedule_.set_eligible([this](std::uint32_t key, NodeId node) {
    const PodTemplate& spec = store_.spec_of(PodId(key));
    const Node& n = store_.node(node);
    if (!node_name_matches(spec, n)) return false;
    if (spec.has_affinity || !spec.node_selector.empty())
      if (!pod_matches_node_selector_and_affinity(spec, n)) return false;
    return first_untolerated_schedule_taint(n, spec.tolerations) == nullptr;
  });
}

BackfillSchedule::Demand BatchScheduler::demand_of(PodId pod) const {
  const PodTemplate& spec = store_.spec_of(pod);
  return BackfillSchedule::Demand{spec.requests, spec.requested_slots};
}

void BatchScheduler::request_decision(SimTime now) {
  if (decision_posted_) return;
  decision_posted_ = true;
  host_.post(now, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(), NodeId()});
}

void BatchScheduler::on_machine_pod_change(const Change& c, const Pod& p, SimTime now) {
  const std::uint32_t job = p.workload_job;
  if (job >= machine_jobs_.size()) machine_jobs_.resize(job + 1);
  MachineJob& mj = machine_jobs_[job];
  const bool terminal = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  if (terminal) {
    if (c.id >= pod_ended_.size()) pod_ended_.resize(c.id + 1, false);
    if (pod_ended_[c.id]) return;
    pod_ended_[c.id] = true;
    // Batsim's JOB_COMPLETED: the job's machines are free once its last pod ended.
    if (++mj.ended == p.machines) {
      if (protocol_) {
        protocol_->completed(job, now);
        arm_protocol(now);
      } else {
        machine_ended_.push_back(job);
        request_decision(now);
      }
    }
    return;
  }
  if (c.type != ChangeType::kAdded || c.node.valid()) return;
  if (mj.seen++ == 0) mj.first = PodId(c.id - p.machine_rank);
  if (mj.seen != p.machines) return;
  // The whole job is known: Batsim's JOB_SUBMITTED. batsched plans with walltime + rjms_delay
  // (the machine schedule adds it, in batsched's arithmetic).
  const Duration walltime =
      p.active_deadline > Duration() ? p.active_deadline : p.run_time * missing_walltime_factor_;
  // FCFSOrder's tie-break compares Batsim job ids ("w0!<id>"): the pods' common name prefix
  // ("w0-<id>") orders the same way.
  const Pod& first = store_.pod(mj.first);
  std::string id = first.name;
  if (p.machines > 1) id.resize(id.rfind('-'));
  MachineSchedule::Job info{std::move(id), p.machines, walltime, first.created.is_never() ? now : first.created};
  if (protocol_) {
    if (job >= machine_job_info_.size()) machine_job_info_.resize(job + 1);
    machine_job_info_[job] = std::move(info);
    protocol_->submitted(job, now);
    arm_protocol(now);
    return;
  }
  machine_released_.emplace_back(job, std::move(info));
  request_decision(now);
}

void BatchScheduler::arm_protocol(SimTime now) {
  const SimTime next = std::max(protocol_->next_time(), now);
  if (protocol_->next_time().is_never() || (protocol_timer_posted_ && protocol_timer_at_ <= next)) return;
  protocol_timer_posted_ = true;
  protocol_timer_at_ = next;
  // NodeId(0) tags the protocol's timer (the decision timer has none).
  host_.post(next, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(), NodeId(0)});
}

void BatchScheduler::run_protocol(SimTime now) {
  if (protocol_timer_at_ != now) return;  // superseded by an earlier timer
  protocol_timer_posted_ = false;
  protocol_timer_at_ = SimTime::never();
  protocol_->run(
      now,
      [&](SimTime date, const std::vector<std::uint32_t>& ended, const std::vector<std::uint32_t>& released,
          std::vector<BatsimProtocol::Decision>& decisions) {
        machine_ended_ = ended;
        for (const std::uint32_t job : released) machine_released_.emplace_back(job, machine_job_info_[job]);
        decide_machine_jobs(date);
        for (const std::uint32_t job : machine_rejects_) decisions.push_back({job, false});
        for (const auto& st : machine_starts_) decisions.push_back({st.key, true});
      },
      [&](const BatsimProtocol::Decision& d, SimTime at) {
        if (d.execute) bind_machine_job(d.job, at);
      });
  arm_protocol(now);
}

void BatchScheduler::bind_machine_job(std::uint32_t job, SimTime now) {
  // One event binds the job's ranks in rank order (pod of rank k on the k-th machine of
  // machine_allocs_[job]): the same as one binding event per rank posted together, since a
  // binding posts nothing that would run between them (its changes reach the informers in
  // a later phase).
  host_.post(now + bind_latency_, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kBindJob, machine_jobs_[job].first, NodeId()});
}

void BatchScheduler::apply_machine_job_binding(PodId first, SimTime now) {
  const MachineSet& machines = machine_allocs_[store_.pod(first).workload_job];
  std::uint32_t rank = 0;
  for (const std::uint32_t machine : machines.ids())
    if (host_.client().bind(Binding{PodId(first.value() + rank++), NodeId(machine), {}}, now)) ++bindings_;
}

// The decider's CALL_ME_LATER: a decision call at that date (REQUESTED_CALL), posted as a
// timer with a non-zero payload (the decision timer's is zero).
struct RequestedCallTimer {
  std::int64_t tag;  // 1 (a zero payload is the decision timer)
  std::int64_t at_micros;
};

void BatchScheduler::arm_requested_call(SimTime now) {
  const SimTime at = decider_->requested_call();
  if (at.is_never() || at == call_timer_at_) return;
  if (protocol_)
    throw std::runtime_error("the external scheduler sent CALL_ME_LATER or a decision dated after its message, which "
                             "kubesim does not model with Batsim's message latencies (use --model ideal)");
  call_timer_at_ = std::max(at, now);
  host_.post(call_timer_at_, Phase::kScheduler, SchedulerEvent::timer(RequestedCallTimer{1, call_timer_at_.micros()}));
}

void BatchScheduler::decide_machine_jobs(SimTime now) {
  if (decider_) {
    machine_starts_.clear();
    machine_rejects_.clear();
    MachineSchedule::sort_released(machine_released_);
    const bool called = call_timer_at_ == now;
    if (called) call_timer_at_ = SimTime::never();
    decider_->make_decisions(now, machine_ended_, machine_released_, called, machine_starts_, machine_rejects_);
    machine_ended_.clear();
    machine_released_.clear();
    kill_machine_jobs(now);
    arm_requested_call(now);
  } else {
    decide_builtin_machine_jobs(now);
  }
  apply_machine_decisions(now);
}

// A KILL_JOB's deletion of one job's pods, in the scheduler phase of its instant: after the
// bindings and container starts of that instant, so that a job started and killed at the same
// date ran (Batsim: for an epsilon) as in Batsim.
struct KillTimer {
  std::int64_t tag;  // 2 (1: RequestedCallTimer, 0: the decision timer)
  std::int64_t job;
};

// Batsim's KILL_JOB: the job's pods that still run are deleted without grace (Batsim kills the
// job's processes at once); their ends come back as the job's end (JOB_KILLED).
void BatchScheduler::kill_machine_jobs(SimTime now) {
  machine_kills_.clear();
  decider_->take_kills(machine_kills_);
  for (const std::uint32_t job : machine_kills_)
    host_.post(now, Phase::kScheduler, SchedulerEvent::timer(KillTimer{2, job}));
}

void BatchScheduler::delete_machine_job(std::uint32_t job, SimTime now) {
  const MachineJob& mj = machine_jobs_[job];
  const std::uint32_t size = store_.pod(mj.first).machines;
  for (std::uint32_t k = 0; k < size; ++k) {
    const PodId pod(mj.first.value() + k);
    const Pod& p = store_.pod(pod);
    if (!p.deleted && !is_terminal(p.phase)) host_.client().delete_pod(pod, Duration(), DisruptionReason::kDeletionByUser, now);
  }
}

void BatchScheduler::decide_builtin_machine_jobs(SimTime now) {
  if (!machine_schedule_) {
    const auto policy = depth_ == 0 ? MachineSchedule::Policy::kFcfs
                        : depth_ == 1 ? MachineSchedule::Policy::kEasy
                                      : MachineSchedule::Policy::kConservative;
    const auto machines = static_cast<std::uint32_t>(std::max<std::size_t>(store_.node_count(), 1));
    machine_schedule_ = std::make_unique<MachineSchedule>(policy, machines, now, rjms_delay_);
    machine_schedule_->reserve(batsim_jobs_);
  }
  machine_starts_.clear();
  machine_rejects_.clear();
  MachineSchedule::sort_released(machine_released_);
  machine_schedule_->make_decisions(now, machine_ended_, machine_released_, machine_starts_, machine_rejects_);
  machine_ended_.clear();
  machine_released_.clear();
}

void BatchScheduler::apply_machine_decisions(SimTime now) {
  const auto machines = static_cast<std::uint32_t>(std::max<std::size_t>(store_.node_count(), 1));
  for (const std::uint32_t job : machine_rejects_) {
    const MachineJob& mj = machine_jobs_[job];
    const std::uint32_t size = store_.pod(mj.first).machines;
    const std::string message =
        name_ + (size > machines
                     ? ": the job needs more machines than the cluster has (rejected on release)"
                     : rejection_message(BackfillSchedule::Rejection::kNoWalltime));
    for (std::uint32_t k = 0; k < size; ++k) host_.client().set_unschedulable(PodId(mj.first.value() + k), message, now);
  }
  for (const auto& st : machine_starts_) {
    if (st.key >= machine_allocs_.size()) machine_allocs_.resize(st.key + 1);
    machine_allocs_[st.key] = st.machines;
    // With the protocol, the job starts when Batsim's server receives the decision (run_protocol).
    if (!protocol_) bind_machine_job(st.key, now);
  }
}

void BatchScheduler::on_pod_change(const Change& c, SimTime now) {
  const PodId pod(c.id);
  const std::uint32_t key = pod.value();
  if (const Pod& p = store_.pod(pod); p.machines > 0) {
    if (serves(store_.spec_of(pod).scheduler_name)) on_machine_pod_change(c, p, now);
    return;
  }
  const bool terminal = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
  if (terminal) {
    // batsched: the job is in _jobs_ended_recently; remove_job frees its machines.
    if (schedule_.tracks(key)) {
      schedule_.release(key);
      request_decision(now);
    }
    return;
  }
  if (c.node.valid()) {
    // A bound pod: decided here (already accounted) or placed by someone else.
    if (!schedule_.tracks(key) || schedule_.queued(key)) {
      const Pod& p = store_.pod(pod);
      const SimTime end = p.active_deadline > Duration() ? now + p.active_deadline : SimTime::never();
      schedule_.occupy(key, c.node, now, end, demand_of(pod));
      request_decision(now);
    }
    return;
  }
  if (c.type != ChangeType::kAdded) return;  // status updates of pending pods
  const PodTemplate& spec = store_.spec_of(pod);
  if (!serves(spec.scheduler_name)) return;
  const Pod& p = store_.pod(pod);
  const SimTime release = p.created.is_never() ? now : p.created;
  Duration walltime = p.active_deadline > Duration() ? p.active_deadline : p.run_time * missing_walltime_factor_;
  // json_workload.cpp: job->walltime += _rjms_delay. A job without walltime keeps none.
  if (walltime > Duration()) walltime = walltime + rjms_delay_;
  const BackfillSchedule::Rejection rejection = schedule_.submit(key, release, demand_of(pod), walltime);
  if (rejection != BackfillSchedule::Rejection::kNone) rejected_.emplace_back(pod, rejection);
  request_decision(now);
}

bool BatchScheduler::wants_pod_change(const Change& c, const Pod& p) const {
  if (p.machines == 0) return true;
  if (!serves(store_.spec(p.spec).scheduler_name)) return false;  // on_pod_change ignores it
  // on_machine_pod_change: the end of a rank, or its creation.
  return is_terminal(c.phase) || c.type == ChangeType::kDeleted || (c.type == ChangeType::kAdded && !c.node.valid());
}

void BatchScheduler::on_node_change(const Change& c, SimTime now) {
  const NodeId id(c.id);
  const Node& n = store_.node(id);
  schedule_.set_node(id, n.allocatable, n.allowed_pods, n.ready && !n.unschedulable);
  request_decision(now);
}

void BatchScheduler::on_event(const SchedulerEvent& event, SimTime now) {
  switch (event.kind) {
    case SchedulerEvent::Kind::kTimer: {
      if (event.node.valid()) {
        run_protocol(now);
        break;
      }
      if (const auto kill = event.payload.as<KillTimer>(); kill.tag == 2) {
        delete_machine_job(static_cast<std::uint32_t>(kill.job), now);
        break;
      }
      if (const auto call = event.payload.as<RequestedCallTimer>(); call.tag != 0) {
        // After this instant's deliveries (an earlier phase): their ends and releases go with it.
        if (call_timer_at_ == now && call.at_micros == now.micros()) decide_machine_jobs(now);
        break;
      }
      decision_posted_ = false;
      if (decider_ && call_timer_at_.is_never()) arm_requested_call(now);  // asked before any job
      for (const auto& [pod, rejection] : rejected_) {
        const Pod& p = store_.pod(pod);
        if (p.deleted || p.node.valid() || is_terminal(p.phase)) continue;
        host_.client().set_unschedulable(pod, name_ + rejection_message(rejection), now);
      }
      rejected_.clear();
      starts_.clear();
      schedule_.decide(now, starts_);
      if (!machine_ended_.empty() || !machine_released_.empty()) decide_machine_jobs(now);
      for (const auto& s : starts_)
        host_.post(now + bind_latency_, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kBindDone, PodId(s.key), s.node});
      break;
    }
    case SchedulerEvent::Kind::kBindJob: apply_machine_job_binding(event.pod, now); break;
    case SchedulerEvent::Kind::kBindDone:
      if (host_.client().bind(Binding{event.pod, event.node, {}}, now)) {
        ++bindings_;
      } else if (store_.pod(event.pod).machines == 0) {
        // Deleted or bound elsewhere meanwhile: forget the decision.
        schedule_.release(event.pod.value());
        request_decision(now);
      }
      break;
    default:
      break;  // kube-scheduler's kinds are never posted by this model
  }
}

}  // namespace kubesim

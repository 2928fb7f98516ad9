#include "sched/batch/batch_scheduler.hpp"

#include "sched/plugins/node_affinity/node_affinity.hpp"
#include "sched/plugins/taint_toleration/taint_toleration.hpp"

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
                               Duration bind_latency, std::int64_t missing_walltime_factor, Duration rjms_delay)
    : store_(store),
      host_(host),
      name_(std::move(scheduler_name)),
      bind_latency_(bind_latency),
      missing_walltime_factor_(missing_walltime_factor),
      rjms_delay_(rjms_delay),
      // conservative_bf.cpp rejects a job without walltime on release; easy_bf.cpp and
      // fcfs_fast.cpp queue it (infinite walltime).
      schedule_(depth, depth == BackfillSchedule::kAll) {
  // Which nodes a pod may use at all: what kubelet admission and kube-scheduler's filters
  // would refuse regardless of load (spec.nodeName, nodeSelector/affinity, NoSchedule and
  // NoExecute taints). Batsched's machines have no such constraints.
  schedule_.set_eligible([this](std::uint32_t key, NodeId node) {
    const PodTemplate& spec = store_.spec_of(PodId(key));
    const Node& n = store_.node(node);
    if (!spec.node_name.empty() && spec.node_name != n.name) return false;
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

void BatchScheduler::on_pod_change(const Change& c, SimTime now) {
  const PodId pod(c.id);
  const std::uint32_t key = pod.value();
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

void BatchScheduler::on_node_change(const Change& c, SimTime now) {
  const NodeId id(c.id);
  const Node& n = store_.node(id);
  schedule_.set_node(id, n.allocatable, n.allowed_pods, n.ready && !n.unschedulable);
  request_decision(now);
}

void BatchScheduler::on_event(const SchedulerEvent& event, SimTime now) {
  switch (event.kind) {
    case SchedulerEvent::Kind::kTimer: {
      decision_posted_ = false;
      for (const auto& [pod, rejection] : rejected_) {
        const Pod& p = store_.pod(pod);
        if (p.deleted || p.node.valid() || is_terminal(p.phase)) continue;
        store_.update_pod(pod, [&](Pod& x) { x.unschedulable_message = name_ + rejection_message(rejection); });
      }
      rejected_.clear();
      starts_.clear();
      schedule_.decide(now, starts_);
      for (const auto& s : starts_)
        host_.post(now + bind_latency_, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kBindDone, PodId(s.key), s.node});
      break;
    }
    case SchedulerEvent::Kind::kBindDone:
      if (apply_binding(store_, event.pod, event.node, now)) {
        ++bindings_;
      } else {
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

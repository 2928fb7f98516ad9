#include "sched/kueue/kueue_controller.hpp"

#include <algorithm>

namespace kubesim::kueue {

Controller::Controller(ObjectStore& store, SchedulerHost& host, Config config)
    : store_(store), host_(host), cache_(std::move(config)), tokens_(cache_.config().burst), tokens_at_(SimTime::zero()) {}

void Controller::write(Write what, std::uint32_t target, SimTime now) {
  // client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter(qps, burst)): the
  // request waits until a token is available; tokens refill at qps up to burst.
  const Config& c = cache_.config();
  const double elapsed = static_cast<double>((now - tokens_at_).micros()) / 1e6;
  tokens_ = std::min(static_cast<double>(c.burst), tokens_ + elapsed * c.qps);
  tokens_at_ = now;
  tokens_ -= 1;
  const Duration wait = tokens_ < 0 ? Duration::from_seconds(-tokens_ / c.qps) : Duration();
  std::uint32_t slot;
  if (!free_ops_.empty()) {
    slot = free_ops_.back();
    free_ops_.pop_back();
    ops_[slot] = Op{what, target};
  } else {
    slot = static_cast<std::uint32_t>(ops_.size());
    ops_.push_back(Op{what, target});
  }
  ++writes_in_flight_;
  ++api_writes_;
  host_.post(now + wait + c.api_latency, Phase::kApi, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(slot), NodeId()});
}

void Controller::kick(SimTime now) {
  if (cycle_posted_ || !cache_.has_heads()) return;
  cycle_posted_ = true;
  host_.post(now, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(), NodeId()});
}

void Controller::maybe_unset(std::uint32_t w, SimTime now) {
  // jobframework reconciler.go, Evicted workload: stopJob (suspend), then "if
  // !job.IsActive()" (batch Job: status.active == 0) UnsetQuotaReservationWithCondition.
  const Cache::Workload& wl = cache_.workload(w);
  if (wl.state != Cache::State::kAdmitted || !wl.evicted || wl_state_[w].unset_requested) return;
  const Job& job = store_.job(wl.job);
  if (!job.suspend || job.active != 0) return;
  wl_state_[w].unset_requested = true;
  write(Write::kUnsetReservation, w, now);
}

void Controller::on_job_change(const Change& c, SimTime now) {
  const JobId id(c.id);
  const Job& job = store_.job(id);
  if (job_wl_.size() <= id.value()) job_wl_.resize(id.value() + 1, -1);
  const std::int32_t w = job_wl_[id.value()];
  if (c.type == ChangeType::kAdded) {
    // The Job webhook suspends labelled Jobs on creation; jobframework then creates the
    // Workload. Jobs without the label are not Kueue's (manageJobsWithoutQueueName: false).
    if (w != -1 || !find_label(job.labels, kQueueNameLabel) || !job.suspend) return;
    job_wl_[id.value()] = -2;  // being created
    write(Write::kCreateWorkload, id.value(), now);
    return;
  }
  if (w < 0) return;
  const auto wu = static_cast<std::uint32_t>(w);
  const Cache::Workload& wl = cache_.workload(wu);
  if (c.type == ChangeType::kDeleted || job.deleted) {
    // The Workload is owned by the Job: the garbage collector deletes it with the Job.
    if (wl.state == Cache::State::kAdmitted) {
      cache_.release(wu, true);
      kick(now);
    } else {
      cache_.remove_pending(wu);
    }
    return;
  }
  if (job.finished()) {
    // jobframework: the Job finished -> the Workload gets its Finished condition, and the
    // cache drops its usage.
    if (wl.state == Cache::State::kAdmitted && !wl_state_[wu].finish_requested) {
      wl_state_[wu].finish_requested = true;
      write(Write::kFinish, wu, now);
    } else if (wl.state != Cache::State::kAdmitted) {
      cache_.remove_pending(wu);
    }
    return;
  }
  maybe_unset(wu, now);
}

void Controller::landed(const Op& op, SimTime now) {
  switch (op.what) {
    case Write::kCreateWorkload: {
      const JobId id(op.target);
      const Job& job = store_.job(id);
      job_wl_[id.value()] = -1;
      if (job.deleted || job.finished()) return;
      const std::string* queue = find_label(job.labels, kQueueNameLabel);
      const std::string& ns = store_.namespace_(job.ns).name;
      const Config& cfg = cache_.config();
      const LocalQueueSpec* lq = nullptr;
      for (const auto& q : cfg.local_queues)
        if (q.ns == ns && q.name == *queue) lq = &q;
      // "LocalQueue ... doesn't exist" / "Workload namespace doesn't match ClusterQueue
      // selector": the Workload stays pending (and the Job suspended) for good here.
      if (!lq) return;
      const ClusterQueueSpec& cq = cfg.cluster_queues[lq->cluster_queue];
      if (!cq.has_namespace_selector || !cq.namespace_selector.matches({{"kubernetes.io/metadata.name", ns}})) return;
      // jobframework: one PodSet, count = min(parallelism, completions), requests = the pod
      // template's (as the scheduler computes them); priority from its PriorityClass.
      const PodTemplate& t = store_.spec(job.spec);
      const std::int64_t count = std::min(job.parallelism, job.completions);
      Resources total;
      for (std::size_t r = 0; r < kMaxResources; ++r) total[r] = t.requests[r] * count;
      const std::uint32_t w = cache_.add_workload(id, lq->cluster_queue, t.priority, now, total);
      job_wl_[id.value()] = static_cast<std::int32_t>(w);
      wl_state_.resize(cache_.workload_count());
      kick(now);
      return;
    }
    case Write::kAdmit:
      write(Write::kUnsuspendJob, op.target, now);  // jobframework startJob
      return;
    case Write::kUnsuspendJob: {
      const Cache::Workload& wl = cache_.workload(op.target);
      if (wl.state != Cache::State::kAdmitted || wl.evicted) return;
      const Job& job = store_.job(wl.job);
      if (job.deleted || job.finished() || !job.suspend) return;
      store_.update_job(wl.job, [](Job& j) { j.suspend = false; });
      return;
    }
    case Write::kEvict:
      write(Write::kSuspendJob, op.target, now);  // jobframework stopJob
      return;
    case Write::kSuspendJob: {
      const Cache::Workload& wl = cache_.workload(op.target);
      if (wl.state != Cache::State::kAdmitted) return;
      const Job& job = store_.job(wl.job);
      if (job.deleted || job.finished()) return;
      if (!job.suspend) store_.update_job(wl.job, [](Job& j) { j.suspend = true; });
      maybe_unset(op.target, now);
      return;
    }
    case Write::kUnsetReservation:
      if (cache_.workload(op.target).state == Cache::State::kAdmitted) cache_.release(op.target, false);
      wl_state_[op.target] = WlState{};
      kick(now);
      return;
    case Write::kFinish:
      cache_.release(op.target, true);
      kick(now);
      return;
    case Write::kPendingCondition: return;
  }
}

void Controller::on_event(const SchedulerEvent& e, SimTime now) {
  if (e.kind != SchedulerEvent::Kind::kTimer) return;
  if (!e.pod.valid()) {
    cycle_posted_ = false;
    if (!cache_.has_heads()) return;
    cache_.cycle(now, cycle_result_);
    for (const std::uint32_t w : cycle_result_.admitted) {
      ++admissions_;
      write(Write::kAdmit, w, now);  // applyAdmission: status.admission (QuotaReserved, Admitted)
    }
    for (const std::uint32_t w : cycle_result_.evicted) {
      ++evictions_;
      write(Write::kEvict, w, now);  // IssuePreemptions: Evicted, reason Preempted
    }
    for (const std::uint32_t w : cycle_result_.not_admitted) {
      if (wl_state_[w].pending_written) continue;
      wl_state_[w].pending_written = true;
      write(Write::kPendingCondition, w, now);
    }
    kick(now);
    return;
  }
  const Op op = ops_[e.pod.value()];
  free_ops_.push_back(e.pod.value());
  --writes_in_flight_;
  landed(op, now);
}

}  // namespace kubesim::kueue

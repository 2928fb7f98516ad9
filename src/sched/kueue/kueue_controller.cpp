#include "sched/kueue/kueue_controller.hpp"

#include <algorithm>
#include <limits>

namespace kubesim::kueue {

Controller::Controller(const ObjectStore& store, ControllerHost& host, Config config)
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
  host_.post_timer(now + wait + c.api_latency, Phase::kApi, Timer{Timer::Kind::kWriteLanded, slot});
}

void Controller::event(EventSource source, std::uint32_t w, SimTime now) {
  // client-go tools/record/events_cache.go: EventCorrelate runs every Event through
  // EventSourceObjectSpamFilter (getSpamKey: source component and host, involved object) with
  // defaultSpamBurst 25 and defaultSpamQPS 1/300 per key before it is sent.
  constexpr double kSpamBurst = 25, kSpamQps = 1.0 / 300.0;
  auto [it, fresh] = spam_.try_emplace({static_cast<std::uint32_t>(source), w}, SpamBucket{kSpamBurst, now});
  SpamBucket& b = it->second;
  if (!fresh) {
    b.tokens = std::min(kSpamBurst, b.tokens + static_cast<double>((now - b.at).micros()) / 1e6 * kSpamQps);
    b.at = now;
  }
  if (b.tokens < 1) {
    ++events_dropped_;
    return;
  }
  b.tokens -= 1;
  ++events_;
  if (event_sending_) {
    events_waiting_.push_back(w);
    return;
  }
  event_sending_ = true;
  write(Write::kEvent, w, now);
}

void Controller::event_done(SimTime now) {
  event_sending_ = false;
  if (events_waiting_.empty()) return;
  const std::uint32_t w = events_waiting_.front();
  events_waiting_.pop_front();
  event_sending_ = true;
  write(Write::kEvent, w, now);
}

Controller::QueueWorker& Controller::worker_of(std::uint32_t queue) {
  return workers_[queue < cache_.config().cluster_queues.size() ? 0 : 1];
}

void Controller::queue_add(std::uint32_t q, SimTime now) {
  // client-go util/workqueue/queue.go Add: nothing if the key is dirty; else dirty, and
  // into the FIFO unless it is being processed (then Done queues it).
  if (queued_[q]) return;
  queued_[q] = true;
  QueueWorker& worker = worker_of(q);
  if (worker.processing != q) worker.fifo.push_back(q);
  queue_next(worker, now);
}

void Controller::queue_next(QueueWorker& worker, SimTime now) {
  if (worker.processing >= 0 || worker.fifo.empty()) return;
  const std::uint32_t q = worker.fifo.front();
  worker.fifo.pop_front();
  queued_[q] = false;  // Get: out of the dirty set, into processing
  worker.processing = q;
  ++queue_status_writes_;
  const bool changes = queue_changes_[q] != queue_changes_written_[q];
  queue_changes_written_[q] = queue_changes_[q];
  queue_status_unchanged_ += !changes;
  write(changes ? Write::kQueueStatus : Write::kQueueStatusUnchanged, q, now);
}

std::uint32_t Controller::queue_count() const {
  return static_cast<std::uint32_t>(cache_.config().cluster_queues.size() + cache_.config().local_queues.size());
}

void Controller::queues_changed(std::uint32_t w, SimTime now) {
  // The workload controller's NotifyWorkloadUpdate feeds both queue reconcilers' Generic
  // handlers, which AddAfter(UpdatesBatchPeriod): one pending reconcile per queue.
  if (queue_reconcile_posted_.empty()) {
    queue_reconcile_posted_.assign(queue_count(), false);
    queued_.assign(queue_count(), false);
    queue_changes_.assign(queue_count(), 0);
    queue_changes_written_.assign(queue_count(), 0);
  }
  const std::uint32_t queues[] = {cache_.workload(w).cq,
                                  wl_state_[w].local_queue < 0
                                      ? queue_count()
                                      : static_cast<std::uint32_t>(cache_.config().cluster_queues.size()) +
                                            static_cast<std::uint32_t>(wl_state_[w].local_queue)};
  for (const std::uint32_t q : queues) {
    if (q >= queue_count()) continue;
    ++queue_changes_[q];
    if (queue_reconcile_posted_[q]) continue;
    queue_reconcile_posted_[q] = true;
    host_.post_timer(now + Duration::seconds(1), Phase::kApi, Timer{Timer::Kind::kQueueReconcile, q});
  }
}

void Controller::kick(SimTime now) {
  if (cycle_posted_ || !cache_.has_heads()) return;
  cycle_posted_ = true;
  host_.post_timer(now, Phase::kScheduler, Timer{Timer::Kind::kCycle, 0});
}

void Controller::maybe_unset(std::uint32_t w, SimTime now) {
  // jobframework reconciler.go, Evicted workload: stopJob (suspend), then "if
  // !job.IsActive()" (batch Job: status.active == 0) UnsetQuotaReservationWithCondition.
  // Pod.IsActive (pod_controller.go): a pod of the group is Running.
  const Cache::Workload& wl = cache_.workload(w);
  if (wl.state != Cache::State::kAdmitted || !wl.evicted || wl_state_[w].unset_requested) return;
  if (const std::int32_t g = wl_state_[w].group; g >= 0) {
    for (const PodId pod : groups_[g].pods)
      if (store_.pod(pod).phase == PodPhase::kRunning && !store_.pod(pod).deleted) return;
  } else {
    const Job& job = store_.job(wl.job);
    if (!job.suspend || job.active != 0) return;
  }
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

void Controller::create_job_workload(JobId id, SimTime now) {
  const Job& job = store_.job(id);
  job_wl_[id.value()] = -1;
  if (job.deleted || job.finished()) return;
  std::int32_t lq = -1;
  const std::int32_t cq = cluster_queue_for(job.ns, *find_label(job.labels, kQueueNameLabel), lq);
  if (cq < 0) return;
  // jobframework: one PodSet, count = min(parallelism, completions), requests = the pod
  // template's (as the scheduler computes them); priority from its PriorityClass.
  const PodTemplate& t = store_.spec(job.spec);
  const std::int64_t count = std::min(job.parallelism, job.completions);
  Resources total;
  for (std::size_t r = 0; r < kMaxResources; ++r) total[r] = t.requests[r] * count;
  const std::uint32_t w = cache_.add_workload(id, static_cast<std::uint32_t>(cq), t.priority, now, total);
  job_wl_[id.value()] = static_cast<std::int32_t>(w);
  wl_state_.resize(cache_.workload_count());
  wl_state_[w].local_queue = lq;
  event(EventSource::kJobController, w, now);  // CreatedWorkload
  queues_changed(w, now);
  kick(now);
}

void Controller::start_job(std::uint32_t w, SimTime now) {
  if (const std::int32_t g = wl_state_[w].group; g >= 0) {
    // jobframework startJob -> Pod.Run: every gated pod of the group ungated, one patch each.
    for (const PodId pod : groups_[g].pods)
      if (!store_.pod(pod).deleted && !store_.pod(pod).scheduling_gates.empty()) write(Write::kUngatePod, pod.value(), now);
    return;
  }
  write(Write::kUnsuspendJob, w, now);  // jobframework startJob
}

void Controller::ungate_pod(PodId pod, SimTime now) {
  const std::int32_t w = workload_of_pod(pod);
  if (w < 0 || cache_.workload(w).state != Cache::State::kAdmitted || cache_.workload(w).evicted) return;
  const Pod& p = store_.pod(pod);
  if (p.deleted || p.terminating()) return;
  host_.client().remove_scheduling_gate(pod, kAdmissionGate, now);
}

void Controller::stop_pods(std::uint32_t w, SimTime now) {
  // Pod.Stop: every pod of the group not already terminating, terminated or gated.
  if (cache_.workload(w).state != Cache::State::kAdmitted) return;
  for (const PodId pod : groups_[wl_state_[w].group].pods) {
    const Pod& p = store_.pod(pod);
    if (p.deleted || p.terminating() || is_terminal(p.phase) || !p.scheduling_gates.empty()) continue;
    host_.client().delete_pod(pod, Duration::seconds(store_.spec(p.spec).termination_grace_period_seconds),
                              DisruptionReason::kDeletionByUser, now);
  }
  maybe_unset(w, now);
}

void Controller::landed(const Op& op, SimTime now) {
  switch (op.what) {
    case Write::kCreateWorkload: create_job_workload(JobId(op.target), now); return;
    case Write::kCreateGroupWorkload: create_group_workload(op.target, now); return;
    case Write::kAdmit:
      // applyAdmission succeeded: QuotaReserved, then Admitted (no admission checks).
      event(EventSource::kAdmission, op.target, now);
      event(EventSource::kAdmission, op.target, now);
      queues_changed(op.target, now);
      start_job(op.target, now);
      return;
    case Write::kUngatePod: ungate_pod(PodId(op.target), now); return;
    case Write::kUnsuspendJob: {
      const Cache::Workload& wl = cache_.workload(op.target);
      if (wl.state != Cache::State::kAdmitted || wl.evicted) return;
      const Job& job = store_.job(wl.job);
      if (job.deleted || job.finished() || !job.suspend) return;
      host_.client().set_job_suspend(wl.job, false, now);
      event(EventSource::kJobController, op.target, now);  // Started
      return;
    }
    case Write::kEvict:
      // Preempted (preemption.go, once the Evicted patch succeeded), EvictedDueToPreempted
      // (the workload controller); jobframework stopJob: the Job is suspended; a pod group's
      // pods are deleted (Pod.Stop).
      event(EventSource::kAdmission, op.target, now);
      event(EventSource::kWorkloadController, op.target, now);
      queues_changed(op.target, now);
      write(wl_state_[op.target].group >= 0 ? Write::kStopPods : Write::kSuspendJob, op.target, now);
      --cycle_waits_;
      cycle_step(now);
      return;
    case Write::kStopPods: stop_pods(op.target, now); return;
    case Write::kSuspendJob: {
      const Cache::Workload& wl = cache_.workload(op.target);
      if (wl.state != Cache::State::kAdmitted) return;
      const Job& job = store_.job(wl.job);
      if (job.deleted || job.finished()) return;
      if (!job.suspend) {
        host_.client().set_job_suspend(wl.job, true, now);
        event(EventSource::kJobController, op.target, now);  // Stopped
      }
      maybe_unset(op.target, now);
      return;
    }
    case Write::kUnsetReservation:
      if (cache_.workload(op.target).state == Cache::State::kAdmitted) cache_.release(op.target, false);
      // Requeued: what it admits (a Job or a pod group) and its LocalQueue stay.
      wl_state_[op.target] = WlState{.group = wl_state_[op.target].group, .local_queue = wl_state_[op.target].local_queue};
      queues_changed(op.target, now);
      kick(now);
      return;
    case Write::kFinish:
      if (cache_.workload(op.target).state != Cache::State::kAdmitted) return;  // its pods all gone first
      cache_.release(op.target, true);
      event(EventSource::kJobController, op.target, now);  // FinishedWorkload
      write(Write::kRemoveFinalizer, op.target, now);
      queues_changed(op.target, now);
      kick(now);
      return;
    case Write::kPendingCondition:
      wl_state_[op.target].has_pending = true;
      wl_state_[op.target].pending_message = wl_state_[op.target].pending_sent;
      queues_changed(op.target, now);
      event(EventSource::kAdmission, op.target, now);  // Pending
      --cycle_waits_;
      cycle_step(now);
      return;
    case Write::kRemoveFinalizer: queues_changed(op.target, now); return;  // an update event too
    case Write::kEvent: event_done(now); return;
    case Write::kQueueStatus:
    case Write::kQueueStatusUnchanged: {
      // The reconcile is done (Done: queued again if added meanwhile); an update that changed
      // the status comes back as the queue's own watch event.
      QueueWorker& worker = worker_of(op.target);
      worker.processing = -1;
      if (queued_[op.target]) worker.fifo.push_back(op.target);
      if (op.what == Write::kQueueStatus) queue_add(op.target, now);
      queue_next(worker, now);
      return;
    }
  }
}

std::int32_t Controller::cluster_queue_for(NamespaceId ns_id, const std::string& queue, std::int32_t& local_queue) const {
  const std::string& ns = store_.namespace_(ns_id).name;
  const Config& cfg = cache_.config();
  const LocalQueueSpec* lq = nullptr;
  for (std::size_t i = 0; i < cfg.local_queues.size(); ++i)
    if (cfg.local_queues[i].ns == ns && cfg.local_queues[i].name == queue) {
      lq = &cfg.local_queues[i];
      local_queue = static_cast<std::int32_t>(i);
    }
  // "LocalQueue ... doesn't exist" / "Workload namespace doesn't match ClusterQueue
  // selector": the Workload stays pending (and the Job suspended) for good here.
  if (!lq) return -1;
  const ClusterQueueSpec& cq = cfg.cluster_queues[lq->cluster_queue];
  if (!cq.has_namespace_selector || !cq.namespace_selector.matches({{"kubernetes.io/metadata.name", ns}})) return -1;
  return static_cast<std::int32_t>(lq->cluster_queue);
}

std::string Controller::admit_pod_on_create(Pod& pod) const {
  // pod_webhook.go Default, then ValidateCreate (validatePodGroupMetadata).
  const Config& cfg = cache_.config();
  if (!cfg.pod_integration || pod.job.valid()) return {};  // a Job's pods: the Job integration's
  const PodTemplate& spec = store_.spec(pod.spec);
  if (!find_label(spec.labels, kQueueNameLabel)) return {};  // manageJobsWithoutQueueName: false
  if (!cfg.pod_selector.matches(spec.labels) ||
      !cfg.pod_namespace_selector.matches({{"kubernetes.io/metadata.name", store_.namespace_(pod.ns).name}}))
    return {};
  const std::string* group = find_label(spec.labels, kPodGroupNameLabel);
  const std::string* count = find_label(spec.annotations, kPodGroupTotalCountAnnotation);
  const std::string both = std::string("both the '") + kPodGroupTotalCountAnnotation + "' annotation and the '" +
                           kPodGroupNameLabel + "' label should be set";
  if (!group && count) return "metadata.labels[" + std::string(kPodGroupNameLabel) + "]: Required value: " + both;
  if (group && !count) return "metadata.annotations[" + std::string(kPodGroupTotalCountAnnotation) + "]: Required value: " + both;
  if (count) {
    // groupTotalCount: strconv.Atoi, then >= 1.
    std::size_t used = 0;
    long n = 0;
    try {
      n = std::stol(*count, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != count->size() || n < 1 || n > std::numeric_limits<std::int32_t>::max())
      return "metadata.annotations[" + std::string(kPodGroupTotalCountAnnotation) + "]: Invalid value: \"" + *count +
             "\": group total count should be an integer greater than zero";
  }
  pod.scheduling_gates.push_back(kAdmissionGate);
  return {};
}

std::int32_t Controller::workload_of_pod(PodId pod) const {
  if (pod.value() >= pod_group_.size() || pod_group_[pod.value()] < 0) return -1;
  return std::max(groups_[pod_group_[pod.value()]].workload, -1);
}

void Controller::on_pod_change(const Change& c, SimTime now) {
  const PodId id(c.id);
  if (c.type == ChangeType::kAdded) {
    // The pods the webhook gated are Kueue's (the managed label it sets).
    if (!c.gated) return;
    const Pod& pod = store_.pod(id);
    const PodTemplate& spec = store_.spec(pod.spec);
    if (!find_label(spec.labels, kQueueNameLabel)) return;
    std::uint32_t g;
    const std::string* name = find_label(spec.labels, kPodGroupNameLabel);
    const auto key = std::make_pair(pod.ns.value(), name ? *name : std::string());
    auto it = name ? group_index_.find(key) : group_index_.end();
    if (it != group_index_.end()) {
      g = it->second;
    } else {
      g = static_cast<std::uint32_t>(groups_.size());
      groups_.emplace_back();
      if (name) {
        group_index_.emplace(key, g);
        groups_[g].total = std::stoi(*find_label(spec.annotations, kPodGroupTotalCountAnnotation));
      }
    }
    // isUnretriableGroup: one pod with retriable-in-group "false" is enough.
    const std::string* retriable = find_label(spec.annotations, kRetriableInGroupAnnotation);
    groups_[g].unretriable |= retriable && *retriable == "false";
    groups_[g].pods.push_back(id);
    if (pod_group_.size() <= id.value()) pod_group_.resize(id.value() + 1, -1);
    pod_group_[id.value()] = static_cast<std::int32_t>(g);
    sync_group(g, now);
    return;
  }
  if (id.value() < pod_group_.size() && pod_group_[id.value()] >= 0)
    sync_group(static_cast<std::uint32_t>(pod_group_[id.value()]), now);
}

namespace {
// isPodRunnableOrSucceeded (pod_controller.go): not Failed, and not deleted before binding.
bool runnable(const Pod& p) { return !p.deleted && p.phase != PodPhase::kFailed && !(p.terminating() && !p.node.valid()); }
}  // namespace

void Controller::sync_group(std::uint32_t g, SimTime now) {
  PodGroup& group = groups_[g];
  if (group.workload == kCreating || group.workload == kRefused) return;
  if (group.workload == kNoWorkload) {
    // handleJobWithNoWorkload -> ConstructComposableWorkload once total-count pods are runnable.
    std::int32_t n = 0;
    for (const PodId pod : group.pods) n += runnable(store_.pod(pod));
    if (n < group.total) return;
    group.workload = kCreating;
    write(Write::kCreateGroupWorkload, g, now);
    return;
  }
  const auto w = static_cast<std::uint32_t>(group.workload);
  std::int32_t live = 0, active = 0, succeeded = 0;
  for (const PodId pod : group.pods) {
    const Pod& p = store_.pod(pod);
    if (p.deleted) continue;
    ++live;
    active += !is_terminal(p.phase);
    succeeded += p.phase == PodPhase::kSucceeded;
  }
  const Cache::Workload& wl = cache_.workload(w);
  if (live == 0) {
    // Every owner gone: the garbage collector deletes the Workload (quota released); a new pod
    // of this group name starts a new one.
    group.workload = kNoWorkload;
    if (wl.state == Cache::State::kAdmitted) {
      cache_.release(w, true);
      kick(now);
    } else if (wl.state != Cache::State::kDone) {
      cache_.remove_pending(w);
    }
    return;
  }
  // Pod.Finished for a group: every pod Succeeded, or nothing active in an unretriable group.
  if (wl.state == Cache::State::kAdmitted && !wl_state_[w].finish_requested &&
      (succeeded >= group.total || (active == 0 && group.unretriable))) {
    wl_state_[w].finish_requested = true;
    write(Write::kFinish, w, now);
    return;
  }
  maybe_unset(w, now);
}

void Controller::create_group_workload(std::uint32_t g, SimTime now) {
  PodGroup& group = groups_[g];
  group.workload = kNoWorkload;
  // The first total-count runnable pods (upstream deletes the excess ones, created last).
  std::vector<PodId> members;
  for (const PodId pod : group.pods)
    if (runnable(store_.pod(pod)) && members.size() < static_cast<std::size_t>(group.total)) members.push_back(pod);
  if (members.size() < static_cast<std::size_t>(group.total)) return;  // "fewer runnable pods than expected"
  // One PodSet per role (getRoleHash: the containers' requests, priority, scheduling
  // constraints; here requests and priority); more than 8 is errMsgIncorrectGroupRoleCount.
  std::vector<const PodTemplate*> roles;
  Resources total;
  for (const PodId pod : members) {
    const PodTemplate& t = store_.spec(store_.pod(pod).spec);
    total += t.requests;
    const bool known = std::any_of(roles.begin(), roles.end(), [&](const PodTemplate* o) {
      return o->requests == t.requests && o->priority == t.priority;
    });
    if (!known) roles.push_back(&t);
  }
  if (roles.size() > 8) {
    group.workload = kRefused;  // an unretryable error: the pods stay gated
    return;
  }
  const Pod& first = store_.pod(members.front());
  const PodTemplate& t = store_.spec(first.spec);
  std::int32_t lq = -1;
  const std::int32_t cq = cluster_queue_for(first.ns, *find_label(t.labels, kQueueNameLabel), lq);
  if (cq < 0) {
    group.workload = kRefused;
    return;
  }
  const std::uint32_t w = cache_.add_workload(JobId(), static_cast<std::uint32_t>(cq), t.priority, now, total);
  group.workload = static_cast<std::int32_t>(w);
  wl_state_.resize(cache_.workload_count());
  wl_state_[w].group = static_cast<std::int32_t>(g);
  wl_state_[w].local_queue = lq;
  event(EventSource::kJobController, w, now);  // CreatedWorkload
  queues_changed(w, now);
  kick(now);
}

void Controller::on_change(const Change& c, SimTime now) {
  if (c.kind == ObjectKind::kPod) {
    on_pod_change(c, now);
  } else if (c.kind == ObjectKind::kJob) {
    on_job_change(c, now);
  }  // Nodes: in the manager's cache, unused by what is modelled
}

void Controller::on_timer(TimerPayload payload, SimTime now) {
  const auto timer = payload.as<Timer>();
  if (timer.kind == Timer::Kind::kCycle) {
    run_cycle(now);
    return;
  }
  if (timer.kind == Timer::Kind::kQueueReconcile) {
    queue_reconcile_posted_[timer.slot] = false;
    queue_add(timer.slot, now);
    return;
  }
  const Op op = ops_[timer.slot];
  free_ops_.push_back(timer.slot);
  --writes_in_flight_;
  landed(op, now);
}

void Controller::run_cycle(SimTime now) {
  // scheduler.go schedule runs in one goroutine; the next cycle starts once this one has
  // returned: IssuePreemptions waits for its Evicted patches (sent in parallel), and each
  // requeueAndUpdate for its Pending patch (one after another, each Event after its patch).
  // Admissions are applied in goroutines of their own (admissionRoutineWrapper).
  if (!cache_.has_heads()) {
    cycle_posted_ = false;
    return;
  }
  cache_.cycle(now, cycle_result_);
  for (const std::uint32_t w : cycle_result_.admitted) {
    ++admissions_;
    write(Write::kAdmit, w, now);  // applyAdmission: status.admission (QuotaReserved, Admitted)
  }
  for (const std::uint32_t w : cycle_result_.evicted) {
    ++evictions_;
    ++cycle_waits_;
    write(Write::kEvict, w, now);  // IssuePreemptions: Evicted, reason Preempted
  }
  for (std::size_t i = 0; i < cycle_result_.not_admitted.size(); ++i) {
    const std::uint32_t w = cycle_result_.not_admitted[i];
    const std::uint64_t message = cycle_result_.pending_message[i];
    WlState& s = wl_state_[w];
    const bool patch = !s.has_pending || s.pending_message != message;
    if (patch) s.pending_sent = message;
    requeues_.push_back(Requeue{w, patch});
  }
  cycle_step(now);
}

void Controller::cycle_step(SimTime now) {
  while (cycle_waits_ == 0 && !requeues_.empty()) {
    const Requeue r = requeues_.front();
    requeues_.pop_front();
    if (r.patch) {
      ++cycle_waits_;
      write(Write::kPendingCondition, r.w, now);  // its Pending Event once it has landed
      return;
    }
    event(EventSource::kAdmission, r.w, now);  // Pending, on every requeue
  }
  if (cycle_waits_ != 0) return;
  cycle_posted_ = false;
  kick(now);
}

}  // namespace kubesim::kueue

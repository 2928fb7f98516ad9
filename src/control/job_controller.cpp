#include "control/job_controller.hpp"

#include <algorithm>

namespace kubesim {

JobControllerConfig JobControllerConfig::for_version(Version v) {
  JobControllerConfig c;
  c.version = v;
  if (v == Version::kV1_28) {
    // job_controller.go (v1.28): DefaultJobApiBackOff, MaxJobApiBackOff,
    // DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff, syncJobBatchPeriod.
    c.api_backoff_base = Duration::seconds(1);
    c.api_backoff_max = Duration::seconds(60);
    c.pod_failure_backoff_base = Duration::seconds(10);
    c.pod_failure_backoff_max = Duration::seconds(600);
  }
  return c;
}

JobControllerConfig::Version JobControllerConfig::parse_version(const std::string& s, bool* ok) {
  std::string v = !s.empty() && s[0] == 'v' ? s.substr(1) : s;
  *ok = true;
  if (v == "1.26" || v == "1.27") return Version::kV1_26;  // 1.27's backoff record keeps 10 s / 6 min
  if (v == "1.28" || v == "1.29" || v == "1.30") return Version::kV1_28;
  *ok = false;
  return Version::kV1_26;
}

JobController::JobController(ObjectStore& store, JobControllerConfig config, JobControllerClient client,
                             std::uint64_t seed, JobControllerHost& host)
    : store_(store),
      config_(config),
      name_rng_(seed, "job-controller/pod-names"),
      host_(host),
      client_(client.qps, client.burst) {}

void JobController::requests(SimTime now, std::int32_t count) {
  for (std::int32_t i = 0; i < count; ++i) client_.acquire(now);
}

void JobController::run_waiting_syncs(SimTime now) {
  while (!waiting_for_token_.empty() && client_.next_token(now) <= now) {
    const JobId job = waiting_for_token_.front();
    waiting_for_token_.pop_front();
    state(job).ready = false;
    sync(job, now);
  }
  if (waiting_for_token_.empty() || wake_armed_) return;
  wake_armed_ = true;
  host_.post(client_.next_token(now), Phase::kController, JobControllerEvent{JobId(), false});
}

JobController::JobState& JobController::state(JobId job) {
  if (jobs_.size() <= job.value()) jobs_.resize(job.value() + 1);
  return jobs_[job.value()];
}

Duration JobController::exponential(Duration base, Duration max, std::uint32_t exponent) {
  Duration d = base;
  for (std::uint32_t i = 0; i < exponent && d < max; ++i) d = d * 2;
  return std::min(d, max);
}

void JobController::enqueue(JobId job, SimTime at, SimTime now) {
  JobState& st = state(job);
  if (at <= now) {  // Add
    if (st.ready) return;
    st.ready = true;
    host_.post(now, Phase::kController, JobControllerEvent{job, false});
    return;
  }
  if (at >= st.waiting_at) return;  // AddAfter: the waiting entry only moves earlier
  st.waiting_at = at;
  host_.post(at, Phase::kController, JobControllerEvent{job, true});
}

void JobController::add_rate_limited(JobId job, SimTime now, Duration base, Duration max) {
  // workqueue.ItemExponentialFailureRateLimiter: base * 2^failures, capped; then failures++.
  JobState& st = state(job);
  const Duration d = exponential(base, max, st.requeues);
  ++st.requeues;
  enqueue(job, now + d, now);
}

void JobController::on_job_change(const Change& c, SimTime now) {
  const JobId job(c.id);
  if (c.type == ChangeType::kAdded || config_.version == JobControllerConfig::Version::kV1_26) {
    enqueue(job, now, now);  // addJob / updateJob (v1.26): enqueueController(job, immediate)
  } else {
    enqueue(job, now + config_.pod_update_batch, now);  // v1.28 updateJob: batched when only status changed
  }
}

void JobController::on_pod_change(const Change& c, SimTime now) {
  const Pod& p = store_.pod(PodId(c.id));
  if (!p.job.valid()) return;
  const JobId job = p.job;
  if (store_.job(job).finished() || store_.job(job).deleted) return;
  const bool newly_failed = c.phase == PodPhase::kFailed && c.old_phase != PodPhase::kFailed;
  if (config_.version == JobControllerConfig::Version::kV1_26 && newly_failed && !p.terminating()) {
    // updatePod: "the only time we want the backoff to kick-in, is when the pod failed":
    // getBackoff(queue, key) = 10 s * 2^(NumRequeues-1), 0 without requeues.
    const std::uint32_t n = state(job).requeues;
    enqueue(job,
            now + (n == 0 ? Duration()
                          : exponential(config_.pod_failure_backoff_base, config_.pod_failure_backoff_max, n - 1)),
            now);
    return;
  }
  enqueue(job, now + config_.pod_update_batch, now);  // enqueueControllerPodUpdate / enqueueSyncJobBatched
}

void JobController::on_event(const JobControllerEvent& e, SimTime now) {
  if (!e.job.valid()) {  // the client's next token
    wake_armed_ = false;
    run_waiting_syncs(now);
    return;
  }
  JobState& st = state(e.job);
  if (e.delayed) {
    if (st.waiting_at != now) return;  // the entry was moved earlier and has fired
    st.waiting_at = SimTime::never();
    if (st.ready) return;  // already in the ready queue: Add dedupes
  } else {
    st.ready = false;
  }
  if (!waiting_for_token_.empty() || client_.next_token(now) > now) {
    // The worker blocks in the client's Wait: the key stays queued (Adds meanwhile merge
    // into this sync, which reads the store when it runs).
    st.ready = true;
    waiting_for_token_.push_back(e.job);
    run_waiting_syncs(now);
    return;
  }
  sync(e.job, now);
}

std::string JobController::generate_name(const std::string& base) {
  // apiserver names.SimpleNameGenerator: base + 5 characters of utilrand's alphabet
  // (k8s.io/apimachinery/pkg/util/rand), generateName = "<job name>-".
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string name = base + "-";
  for (int i = 0; i < 5; ++i) name += kAlphabet[name_rng_.uniform_below(sizeof(kAlphabet) - 1)];
  return name;
}

void JobController::delete_job_pod(JobState& st, PodId pod, SimTime now) {
  // deleteJobPods: PATCH the tracking finalizer off, then a plain DELETE (the pod's own
  // grace period); the deleted pod leaves the tracking list, so it is not counted as failed.
  // Three requests: the PATCH, the DELETE, the SuccessfulDelete event.
  requests(now, 3);
  store_.delete_pod(pod, now, Duration::seconds(store_.spec_of(pod).termination_grace_period_seconds),
                    DisruptionReason::kDeletionByUser);
  PodId* link = &st.first_pod;
  while (*link != pod) link = &next_pod_[link->value()];
  *link = next_pod_[pod.value()];
}

void JobController::delete_job_pods(JobState& st, std::int32_t count, SimTime now) {
  // `scratch_active_` is newest first (the removal order for non-indexed Jobs of equal
  // readiness).
  for (std::int32_t i = 0; i < count; ++i) delete_job_pod(st, scratch_active_[static_cast<std::size_t>(i)], now);
}

std::int32_t JobController::remove_needless_indexed_pods(const Job& job, JobState& st, SimTime now) {
  // indexed_job_utils.go appendDuplicatedIndexPodsForRemoval / activePodsForRemoval: pods
  // with an index outside [0, completions), an index that already succeeded, or an index an
  // older active pod holds. scratch_active_ is newest first, so walk it oldest first.
  scratch_index_.assign(static_cast<std::size_t>(job.completions), 0);
  std::vector<PodId> keep;
  keep.reserve(scratch_active_.size());
  for (auto it = scratch_active_.rbegin(); it != scratch_active_.rend(); ++it) {
    const std::int32_t ix = store_.pod(*it).completion_index;
    const bool useful = ix >= 0 && ix < job.completions && !st.succeeded_indexes[static_cast<std::size_t>(ix)] &&
                        !scratch_index_[static_cast<std::size_t>(ix)];
    if (useful) {
      scratch_index_[static_cast<std::size_t>(ix)] = 1;
      keep.push_back(*it);
    } else {
      delete_job_pod(st, *it, now);
    }
  }
  scratch_active_.assign(keep.rbegin(), keep.rend());
  return static_cast<std::int32_t>(scratch_active_.size());
}

namespace {

// status.completedIndexes: succeeded indexes as ascending ranges, "1,3-5,7"
// (indexed_job_utils.go succeededIndexes.String).
std::string completed_indexes_text(const std::vector<bool>& done) {
  std::string out;
  for (std::size_t i = 0; i < done.size();) {
    if (!done[i]) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < done.size() && done[j + 1]) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(i) + (j > i ? "-" + std::to_string(j) : "");
    i = j + 1;
  }
  return out;
}

// indexed_job_utils.go podGenerateNameWithIndex: "<job>-<index>-", the job name cut so that
// the prefix fits names.MaxGeneratedNameLength (58).
std::string indexed_pod_base(const std::string& job, std::int32_t index) {
  const std::string append = "-" + std::to_string(index);
  constexpr std::size_t kMaxGeneratedNameLength = 58;
  if (job.size() + append.size() + 1 > kMaxGeneratedNameLength)
    return job.substr(0, kMaxGeneratedNameLength - append.size() - 1) + append;
  return job + append;
}

}  // namespace

JobController::PodTally JobController::count_pods(const Job& job, JobState& st) {
  // trackJobStatusAndRemoveFinalizers' newly finished pods (getNewFinishedPods): counted
  // ones lose the finalizer (leave the list); the rest are active.
  PodTally t;
  scratch_active_.clear();
  PodId* link = &st.first_pod;
  while (link->valid()) {
    const PodId pod = *link;
    const Pod& p = store_.pod(pod);
    const bool succeeded = p.phase == PodPhase::kSucceeded;
    const bool failed = !succeeded && (p.phase == PodPhase::kFailed || p.terminating() || p.deleted);
    if (succeeded || failed) {
      if (succeeded && job.indexed) {
        // Indexed: only a new, in-range index counts (succeededIndexes.total()).
        const std::int32_t ix = p.completion_index;
        if (st.succeeded_indexes.size() != static_cast<std::size_t>(job.completions))
          st.succeeded_indexes.resize(static_cast<std::size_t>(job.completions), false);
        if (ix >= 0 && ix < job.completions && !st.succeeded_indexes[static_cast<std::size_t>(ix)]) {
          st.succeeded_indexes[static_cast<std::size_t>(ix)] = true;
          ++t.new_succeeded;
        }
      } else if (succeeded) {
        ++t.new_succeeded;
      } else {
        ++t.new_failed;
        // backoff_utils.go getFinishedTime: container finish, else the deletion time.
        const SimTime at = !p.finished.is_never() ? p.finished : !p.deletion_requested.is_never() ? p.deletion_requested : p.created;
        if (t.latest_failure.is_never() || at > t.latest_failure) t.latest_failure = at;
      }
      ++t.counted;
      *link = next_pod_[pod.value()];
      continue;
    }
    scratch_active_.push_back(pod);
    if (p.phase == PodPhase::kRunning) ++t.ready;  // no readiness probes: Ready once running
    link = &next_pod_[pod.value()];
  }
  return t;
}

void JobController::sync(JobId id, SimTime now) {
  ++syncs_;
  const Job& job = store_.job(id);
  JobState& st = state(id);
  const bool v126 = config_.version == JobControllerConfig::Version::kV1_26;
  if (job.finished() || job.deleted) {
    st.requeues = 0;  // Forget (a deleted Job: syncJob finds no Job and returns)
    return;
  }
  const PodTally tally = count_pods(job, st);
  SyncStatus s;
  s.active = static_cast<std::int32_t>(scratch_active_.size());
  s.succeeded = job.succeeded + tally.new_succeeded;
  s.failed = job.failed + tally.new_failed;
  s.ready = tally.ready;
  s.counted = tally.counted;
  if (tally.new_succeeded > 0) st.failures_since_success = 0;
  if (tally.new_failed > 0) {
    st.failures_since_success += static_cast<std::uint32_t>(tally.new_failed);
    st.last_failure = tally.latest_failure;
  }
  const bool new_failure = tally.new_failed > 0;
  const bool exceeds_backoff_limit = v126 ? new_failure && s.active != job.parallelism && s.failed > job.backoff_limit
                                          : s.failed > job.backoff_limit;
  s.suspended = job.suspended_condition;
  // syncJob: "if job.Status.StartTime == nil && !jobSuspended(&job)" sets StartTime.
  s.set_start_time = job.start_time.is_never() && !job.suspend;
  if (exceeds_backoff_limit) {
    // deleteActivePods: a plain DELETE (the pods' own grace period); they count as failed.
    // Two requests each: the DELETE and its SuccessfulDelete event.
    for (const PodId pod : scratch_active_) {
      requests(now, 2);
      const Pod& p = store_.pod(pod);
      store_.delete_pod(pod, now, Duration::seconds(store_.spec(p.spec).termination_grace_period_seconds),
                        DisruptionReason::kDeletionByUser);
    }
    s.failed += s.active;
    s.active = 0;
    st.first_pod = PodId();
    s.condition = JobCondition::kFailed;
  } else {
    s.create_error = manage_job(id, job, st, s.succeeded, s.active, now);
    job_conditions(job, s);
  }
  update_status(id, job, st, s, now);

  if (s.create_error) {
    add_rate_limited(id, now, config_.api_backoff_base, config_.api_backoff_max);
  } else if (v126 && new_failure && s.condition == JobCondition::kNone) {
    // "failed pod(s) detected for job": the error re-enqueues the Job rate-limited.
    add_rate_limited(id, now, config_.pod_failure_backoff_base, config_.pod_failure_backoff_max);
  } else {
    st.requeues = 0;  // Forget
  }
}

bool JobController::manage_job(JobId id, const Job& job, JobState& st, std::int32_t succeeded, std::int32_t& active,
                               SimTime now) {
  const bool v126 = config_.version == JobControllerConfig::Version::kV1_26;
  const std::int32_t want_active = std::clamp(job.completions - succeeded, 0, job.parallelism);
  if (job.indexed && !job.suspend) {
    if (st.succeeded_indexes.size() != static_cast<std::size_t>(job.completions))
      st.succeeded_indexes.resize(static_cast<std::size_t>(job.completions), false);
    active = remove_needless_indexed_pods(job, st, now);
  }
  if (job.suspend) {
    // manageJob, jobSuspended(job): "Deleting all active pods in suspended job"
    // (activePodsForRemoval(job, activePods, active): all of them). deleteJobPods removes
    // the tracking finalizer before the DELETE (removeTrackingFinalizerPatch), so these
    // pods are not counted as failed.
    delete_job_pods(st, active, now);
    active = 0;
    return false;
  }
  if (active > want_active) {
    // Too many (parallelism lowered): delete the newest extras (deleteJobPods as above).
    delete_job_pods(st, active - want_active, now);
    active = want_active;
    return false;
  }
  if (active == want_active) return false;
  Duration remaining;
  if (!v126 && st.failures_since_success > 0) {
    // backoffRecord.getRemainingTime: base * 2^(failures-1), capped, from the last failure.
    const Duration d = exponential(config_.pod_failure_backoff_base, config_.pod_failure_backoff_max,
                                   st.failures_since_success - 1);
    const Duration since = now - st.last_failure;
    if (since < d) remaining = d - since;
  }
  if (remaining > Duration()) {
    enqueue(id, now + remaining, now);
    return false;
  }
  return !create_pods(id, job, st, std::min(want_active - active, 500), active, now);  // MaxPodCreateDeletePerSync
}

bool JobController::create_pods(JobId id, const Job& job, JobState& st, std::int32_t diff, std::int32_t& active,
                                SimTime now) {
  // manageJob's slow start: batches of 1, 2, 4, ... (SlowStartInitialBatchSize); after a
  // batch with an error the remaining creations are skipped until the next sync.
  // Indexed: firstPendingIndexes, the lowest indexes neither succeeded nor active.
  std::int32_t next_index = 0;
  const auto pending_index = [&]() -> std::int32_t {
    while (next_index < job.completions && (st.succeeded_indexes[static_cast<std::size_t>(next_index)] ||
                                            scratch_index_[static_cast<std::size_t>(next_index)]))
      ++next_index;
    return next_index < job.completions ? next_index++ : -1;
  };
  bool ok = true;
  for (std::int32_t batch = std::min(diff, 1); diff > 0; batch = std::min(2 * batch, diff)) {
    for (std::int32_t i = 0; i < batch; ++i) {
      const std::int32_t index = job.indexed ? pending_index() : -1;
      if (job.indexed && index < 0) break;
      requests(now, 2);  // the POST and its SuccessfulCreate (or FailedCreate) event
      auto created = host_.create_job_pod(id, generate_name(job.indexed ? indexed_pod_base(job.name, index) : job.name), index);
      if (const PodId* pod = std::get_if<PodId>(&created)) {
        if (next_pod_.size() <= pod->value()) next_pod_.resize(pod->value() + 1);
        next_pod_[pod->value()] = st.first_pod;
        st.first_pod = *pod;
        ++active;
      } else {
        ok = false;
        ++failed_creates_;
        last_create_error_ = std::move(std::get<std::string>(created));
      }
    }
    if (!ok) break;
    diff -= batch;
  }
  return ok;
}

void JobController::job_conditions(const Job& job, SyncStatus& s) {
  if (s.succeeded >= job.completions && s.active == 0) {
    s.condition = JobCondition::kComplete;
  } else if (job.suspend) {
    // syncJob: ensureJobConditionStatus(JobSuspended, True, "JobSuspended", "Job suspended").
    s.suspended = Job::Suspended::kTrue;
  } else if (s.suspended == Job::Suspended::kTrue) {
    // ensureJobConditionStatus(JobSuspended, False, "JobResumed", "Job resumed") changes
    // only an existing condition. "Resumed jobs will always reset StartTime to current
    // time" (so that activeDeadlineSeconds counts only the time active).
    s.suspended = Job::Suspended::kFalse;
    s.reset_start_time = true;
  }
}

void JobController::update_status(JobId id, const Job& job, const JobState& st, const SyncStatus& s, SimTime now) {
  // flushUncountedAndRemoveFinalizers: the status PUT listing the finished pods as uncounted,
  // one finalizer PATCH each, the PUT that counts them; else a changed status is one PUT.
  if (s.counted > 0) requests(now, s.counted + 2);
  if (s.condition != JobCondition::kNone) requests(now, 1);  // the Completed / BackoffLimitExceeded event
  const Job& j = store_.job(id);
  const std::string completed_indexes = job.indexed ? completed_indexes_text(st.succeeded_indexes) : std::string();
  if (j.active == s.active && j.succeeded == s.succeeded && j.failed == s.failed && j.ready == s.ready &&
      j.completed_indexes == completed_indexes && !s.set_start_time && !s.reset_start_time &&
      s.suspended == j.suspended_condition && s.condition == JobCondition::kNone)
    return;
  if (s.counted == 0) requests(now, 1);
  store_.update_job(id, [&](Job& x) {
    x.active = s.active;
    x.succeeded = s.succeeded;
    x.failed = s.failed;
    x.ready = s.ready;
    x.completed_indexes = completed_indexes;
    x.suspended_condition = s.suspended;
    if (s.set_start_time || s.reset_start_time) x.start_time = now;
    if (s.condition != JobCondition::kNone) {
      x.condition = s.condition;
      x.condition_time = now;
      if (s.condition == JobCondition::kComplete) {
        x.completion_time = now;  // v1.26: Complete has an empty reason and message
      } else {
        x.condition_reason = "BackoffLimitExceeded";
        x.condition_message = "Job has reached the specified backoff limit";
      }
    }
  });
}

}  // namespace kubesim

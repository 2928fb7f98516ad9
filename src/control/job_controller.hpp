// The Job controller (pkg/controller/job/job_controller.go), for non-indexed Jobs with
// restartPolicy Never and finalizer-based pod tracking (GA in v1.26), in the upstream
// version's variant:
// - Work queue per Job key with upstream's delays. v1.26: a rate limiter of 10 s doubling
//   to 6 min (DefaultJobBackOff, MaxJobBackOff) for failed syncs; pod events enqueue after
//   the 1 s podUpdateBatchPeriod, a pod that failed after getBackoff = 10 s * 2^(requeues-1);
//   Job events (including the controller's own status writes) enqueue at once. v1.28+
//   (PR #118615): API errors back off 1 s doubling to 1 min (DefaultJobApiBackOff,
//   MaxJobApiBackOff); pod failures delay replacements by a per-Job backoff record,
//   10 s doubling to 10 min from the last failure (backoff_utils.go); Job and pod events are
//   batched by 1 s.
// - syncJob: counts the pods that still carry its tracking finalizer (Succeeded; Failed or
//   being deleted count as failed — isPodFailed), fails the Job with BackoffLimitExceeded
//   once failed > backoffLimit (v1.26 also requires a new failure and active != parallelism)
//   and deletes its active pods, else creates the missing pods in slow-start batches of 1, 2,
//   4, ... (stopping after the first batch with an error, e.g. a ResourceQuota 403) and marks
//   it Complete once succeeded >= completions with no active pod. A sync that had a create
//   error (or, in v1.26, saw a new failure) is retried rate-limited; a clean one Forgets.
// - spec.suspend (v1.26 manageJob / syncJob): a suspended Job gets no pods and its active
//   pods are deleted (without being counted as failed); the JobSuspended condition turns
//   True, and False ("JobResumed") on resume, which resets status.startTime; startTime is
//   not set while the Job is suspended.
// - Indexed Jobs (completionMode Indexed, v1.26 indexed_job_utils.go): each pod carries a
//   completion index (the batch.kubernetes.io/job-completion-index annotation, the
//   JOB_COMPLETION_INDEX env var, hostname <job>-<index>, generateName <job>-<index>-);
//   succeeded counts the distinct succeeded indexes in [0, completions) (status.completedIndexes
//   lists them as ranges); new pods take the lowest pending indexes (firstPendingIndexes), so a
//   failed index is retried with a new pod; active pods whose index is out of range, already
//   succeeded or held by an older pod are deleted (activePodsForRemoval). backoffLimit counts
//   the failures of all indexes (backoffLimitPerIndex came in v1.28).
// The controller reads the store directly where upstream reads its informer cache and
// guards against its lag with expectations; it hears of changes (which trigger syncs)
// through its informer with the watch delay.
// - Its API client is rate limited (JobControllerClient): kube-controller-manager builds the
//   Job controller's clientset with ClientBuilder.ClientOrDie("job-controller")
//   (cmd/kube-controller-manager/app/batch.go startJobController), from a rest.Config whose
//   QPS and Burst are --kube-api-qps and --kube-api-burst (Generic.ClientConnection, default
//   20 and 30: pkg/controller/apis/config/v1alpha1/defaults.go
//   SetDefaults_KubeControllerManagerConfiguration, "specific to the kube-controller-manager",
//   set before RecommendedDefaultGenericControllerManagerConfiguration would apply
//   component-base's 50 / 100), and clientset.NewForConfig builds one
//   flowcontrol.NewTokenBucketRateLimiter per clientset, shared by its group clients, so the
//   controller has a token bucket of its own (core/client_rate_limiter.hpp).
// - A creation the quota refuses (ResourceQuota admission's 403; re-derived from v1.26
//   job_controller.go and controller_utils.go, not fitted): the POST took a token and
//   RealPodControl.createPods records a FailedCreate event (another token); manageJob calls
//   expectations.CreationObserved and takes the pod off `active`, so the next sync is not
//   held by expectations; syncJob returns the error and processNextWorkItem calls
//   AddRateLimited (10 s * 2^NumRequeues, max 6 min). A new Job's first sync also writes its
//   status (ready nil -> 0 and startTime: equalReady(nil, &0) is false), whose Job update
//   enqueues it at once (updateJob: enqueueController(immediate)), so it is refused a second
//   time straight away and its retries come 10 s, then 40, 80, ... s apart; a sync that creates its
//   pod Forgets. Nothing else retries it: the controller does not watch quotas. Its events go through the same client
//   (NewController: StartRecordingToSink(kubeClient.CoreV1().Events(""))). Requests counted
//   per sync (v1.26 job_controller.go): a pod creation is the POST and its SuccessfulCreate
//   event; counting finished pods is flushUncountedAndRemoveFinalizers' status PUT, one
//   finalizer PATCH per pod and the status PUT that moves them to the counters; otherwise a
//   changed status is one PUT; a deleted pod is the finalizer PATCH (deleteJobPods only),
//   the DELETE and its event; a finished Job one more event. A worker blocks in the
//   limiter's Wait before its first request, so while the bucket is empty syncs wait, in
//   the order their workers picked them (rate.Limiter grants reservations in call order),
//   for the next token; a sync's later requests take tokens in turn (the bucket goes
//   negative) and so delay the syncs after it, but take effect at the sync's instant.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <variant>
#include <vector>

#include "core/client_rate_limiter.hpp"
#include "core/event_queue.hpp"
#include "core/random.hpp"
#include "model/object_store.hpp"

namespace kubesim {

struct JobControllerConfig {
  enum class Version : std::uint8_t { kV1_26, kV1_28 };
  Version version = Version::kV1_26;
  static JobControllerConfig for_version(Version v);
  static Version parse_version(const std::string& s, bool* ok);  // "1.26" / "v1.26" / "1.28" / ...

  Duration api_backoff_base = Duration::seconds(10);   // rate limiter of failed syncs
  Duration api_backoff_max = Duration::seconds(360);
  Duration pod_failure_backoff_base = Duration::seconds(10);
  Duration pod_failure_backoff_max = Duration::seconds(360);
  Duration pod_update_batch = Duration::seconds(1);    // podUpdateBatchPeriod / syncJobBatchPeriod
};

// kube-controller-manager's --kube-api-qps / --kube-api-burst for the Job controller's
// client; qps <= 0: not limited (the ideal model).
struct JobControllerClient {
  double qps = 0;
  std::int32_t burst = 0;
};

struct JobControllerEvent {
  JobId job;     // invalid: the client's next token exists (syncs waiting for it go on)
  bool delayed;  // from the delaying queue's waiting heap (else an immediate Add)
};

class JobControllerHost {
 public:
  virtual ~JobControllerHost() = default;
  virtual void post(SimTime at, Phase phase, JobControllerEvent event) = 0;
  // The API server's pod CREATE for a pod of `job` named `name` (with its completion index
  // for an Indexed Job, else -1), admission included: the new pod, or the error message
  // (e.g. the ResourceQuota 403).
  virtual std::variant<PodId, std::string> create_job_pod(JobId job, const std::string& name, std::int32_t completion_index) = 0;
};

class JobController {
 public:
  JobController(ObjectStore& store, JobControllerConfig config, JobControllerClient client, std::uint64_t seed,
                JobControllerHost& host);

  // Informer deliveries of Job and pod changes.
  void on_job_change(const Change& change, SimTime now);
  void on_pod_change(const Change& change, SimTime now);
  void on_event(const JobControllerEvent& event, SimTime now);

  const JobControllerConfig& config() const { return config_; }
  std::uint64_t failed_creates() const { return failed_creates_; }
  const std::string& last_create_error() const { return last_create_error_; }
  std::uint64_t syncs() const { return syncs_; }

 private:
  // client-go's delaying work queue, per key: an immediate Add puts the key in the ready
  // queue once (the dirty set dedupes); AddAfter keeps one waiting entry per key and only
  // ever moves it earlier; a waiting entry that comes due Adds the key. An immediate Add
  // never removes the waiting entry.
  struct JobState {
    PodId first_pod;                  // pods still carrying the tracking finalizer (a list)
    bool ready = false;               // in the ready queue (dirty)
    SimTime waiting_at = SimTime::never();  // the waiting entry's ready time
    std::uint32_t requeues = 0;       // the rate limiter's failure count (NumRequeues)
    std::uint32_t failures_since_success = 0;  // v1.28 backoff record
    SimTime last_failure = SimTime::never();
    std::vector<bool> succeeded_indexes;  // Indexed Jobs: by completion index
  };

  JobState& state(JobId job);
  void enqueue(JobId job, SimTime at, SimTime now);
  void add_rate_limited(JobId job, SimTime now, Duration base, Duration max);
  // The pods' tally of one sync (count_pods).
  struct PodTally {
    std::int32_t new_succeeded = 0, new_failed = 0, ready = 0, counted = 0;
    SimTime latest_failure = SimTime::never();
  };
  // What one sync computes of the Job's status (syncJob's `job.Status` before the update).
  struct SyncStatus {
    std::int32_t active = 0, succeeded = 0, failed = 0, ready = 0, counted = 0;
    JobCondition condition = JobCondition::kNone;
    Job::Suspended suspended = Job::Suspended::kNone;
    bool set_start_time = false, reset_start_time = false, create_error = false;
  };
  // pkg/controller/job/job_controller.go syncJob, split along its parts: the finished pods
  // (count_pods: getNewFinishedPods; the active ones are left in scratch_active_),
  // manageJob (manage_job, create_pods: its slow-start creation), the conditions, and the
  // status write (update_status: trackJobStatusAndRemoveFinalizers / updateStatusHandler).
  void sync(JobId job, SimTime now);
  PodTally count_pods(const Job& job, JobState& st);
  // Returns whether a pod creation failed.
  bool manage_job(JobId id, const Job& job, JobState& st, std::int32_t succeeded, std::int32_t& active, SimTime now);
  // Returns false after a failed creation.
  bool create_pods(JobId id, const Job& job, JobState& st, std::int32_t diff, std::int32_t& active, SimTime now);
  static void job_conditions(const Job& job, SyncStatus& s);
  void update_status(JobId id, const Job& job, const JobState& st, const SyncStatus& s, SimTime now);
  // Syncs waiting for the client's token run while it has one; then the wake-up is armed.
  void run_waiting_syncs(SimTime now);
  void requests(SimTime now, std::int32_t count);  // takes `count` tokens
  void delete_job_pods(JobState& st, std::int32_t count, SimTime now);
  void delete_job_pod(JobState& st, PodId pod, SimTime now);
  // Indexed Jobs: deletes active pods of no use (index out of range, succeeded or a
  // duplicate), returns the active count left and marks the active indexes in scratch_index_.
  std::int32_t remove_needless_indexed_pods(const Job& job, JobState& st, SimTime now);
  std::string generate_name(const std::string& base);
  static Duration exponential(Duration base, Duration max, std::uint32_t exponent);

  ObjectStore& store_;
  JobControllerConfig config_;
  RandomStream name_rng_;
  JobControllerHost& host_;
  ClientRateLimiter client_;
  std::deque<JobId> waiting_for_token_;  // in the order their workers picked them
  bool wake_armed_ = false;
  std::vector<JobState> jobs_;
  std::vector<PodId> next_pod_;  // by PodId: the next pod in its Job's list
  std::vector<PodId> scratch_active_;
  std::vector<std::uint8_t> scratch_index_;  // Indexed Jobs: 1 where an active pod holds the index
  std::uint64_t failed_creates_ = 0;
  std::string last_create_error_;
  std::uint64_t syncs_ = 0;
};

}  // namespace kubesim

// Kueue's manager (kueue-controller-manager, v0.9) in front of kube-scheduler: it
// admits whole batch/v1 Jobs by un-suspending them and never places a pod (kube-scheduler
// schedules the pods the Job controller then creates).
//
// It is a SchedulerModel that serves no schedulerName and wants Job changes: that gives it
// its own informer stream (the watch delay, plus the setup's informer delay), its own timers
// (SchedulerEvent::kTimer, for its API writes and scheduling cycles) and a say in when the
// run ends (busy() while a write or a cycle is pending) without new engine plumbing; a
// controller under control/ would have needed all three added to the Simulation.
//
// Life of a Job labelled kueue.x-k8s.io/queue-name (created suspended, as Kueue's webhook
// does):
//  1. Job added (informer) -> jobframework reconciler creates the Workload (API write).
//  2. The Workload joins its ClusterQueue's heap (LocalQueue -> ClusterQueue; the
//     namespace must match the ClusterQueue's namespaceSelector); a cycle runs
//     (scheduler.go: cycles back to back while there are heads; no fixed interval).
//  3. Admitted: quota reserved in the cache at once; status.admission written (API write);
//     then the reconciler un-suspends the Job (API write). The Job controller creates pods.
//  4. Job Complete/Failed (informer) -> Workload Finished (API write) -> quota released,
//     the cohort's inadmissible workloads requeued.
//  5. Preempted: Evicted condition (API write) -> the reconciler suspends the Job (API
//     write; the Job controller deletes its pods) -> once the Job reports no active pod
//     (informer), the reservation is unset (API write), releasing the quota and requeueing
//     the workload (jobframework reconciler.go: "The job is no longer active, clear the
//     workloads admission").
// Every API write waits for the manager client's token bucket (clientConnection qps 20,
// burst 30) and lands after Config::api_latency. A Workload's Pending condition is written
// once per stay in the queue (scheduler.go requeueAndUpdate writes it when it changes).
// Not modelled: Workload objects in the API (kubectl get workloads), waitForPodsReady,
// fair sharing, admission checks, partial admission, the Eviction requeuing timestamp
// (applies to PodsReadyTimeout evictions only), Jobs created unsuspended.
#pragma once

#include <memory>
#include <vector>

#include "sched/kueue/kueue_cache.hpp"
#include "sched/scheduler_model.hpp"

namespace kubesim::kueue {

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";

class Controller final : public SchedulerModel {
 public:
  Controller(ObjectStore& store, SchedulerHost& host, Config config);

  bool serves(const std::string&) const override { return false; }
  void on_pod_change(const Change&, SimTime) override {}
  void on_node_change(const Change&, SimTime) override {}
  bool wants_jobs() const override { return true; }
  void on_job_change(const Change& change, SimTime now) override;
  void on_event(const SchedulerEvent& event, SimTime now) override;
  bool busy() const override { return cycle_posted_ || writes_in_flight_ > 0; }
  std::uint64_t attempts() const override { return cache_.nominations(); }
  std::uint64_t bindings() const override { return 0; }

  const Cache& cache() const { return cache_; }
  std::uint64_t admissions() const { return admissions_; }
  std::uint64_t evictions() const { return evictions_; }
  std::uint64_t api_writes() const { return api_writes_; }

 private:
  enum class Write : std::uint8_t { kCreateWorkload, kAdmit, kUnsuspendJob, kEvict, kSuspendJob, kUnsetReservation,
                                    kFinish, kPendingCondition };
  struct Op {
    Write what;
    std::uint32_t target;  // JobId for kCreateWorkload, else the workload
  };
  struct WlState {
    bool finish_requested = false;
    bool unset_requested = false;
    bool pending_written = false;
  };

  void write(Write what, std::uint32_t target, SimTime now);
  void landed(const Op& op, SimTime now);
  void kick(SimTime now);
  void maybe_unset(std::uint32_t w, SimTime now);
  std::int32_t workload_of(JobId job) const {
    return job.value() < job_wl_.size() ? job_wl_[job.value()] : -1;
  }

  ObjectStore& store_;
  SchedulerHost& host_;
  Cache cache_;
  std::vector<std::int32_t> job_wl_;  // by JobId: the Workload, -1 none
  std::vector<WlState> wl_state_;     // by workload
  std::vector<Op> ops_;               // writes in flight (slots reused)
  std::vector<std::uint32_t> free_ops_;
  Cache::CycleResult cycle_result_;
  // client-go flowcontrol token bucket (golang.org/x/time/rate reservations).
  double tokens_;
  SimTime tokens_at_;
  bool cycle_posted_ = false;
  std::uint64_t writes_in_flight_ = 0;
  std::uint64_t admissions_ = 0;
  std::uint64_t evictions_ = 0;
  std::uint64_t api_writes_ = 0;
};

}  // namespace kubesim::kueue

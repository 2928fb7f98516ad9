// The Volcano model's podgroup controller: when a plain pod gets its PodGroup.
//
// Upstream (volcano-sh/volcano v1.7.0):
//   pkg/controllers/podgroup/pg_controller.go          Run (informer sync, then one worker),
//                                                      processNextReq
//   pkg/controllers/podgroup/pg_controller_handler.go  createNormalPodPGIfNotExist,
//                                                      inheritUpperAnnotations, updatePodAnnotations
//   cmd/controller-manager/app/options/options.go      defaultQPS 50, defaultBurst 100
//   cmd/controller-manager/app/server.go               one kube client for every controller
//
// The scheduler sees a plain pod as a task only once the controller has annotated it with its
// group (api/job_info.go getJobID). The controller's single worker takes the pods in arrival
// order; for each it GETs the owning Job (inheritUpperAnnotations, only when it creates the
// group and the pod has an owner: kubesim's Job pods), creates the PodGroup (the Volcano
// client, whose own bucket a PodGroup per pod never empties first), then PATCHes the pod's
// annotation. The kube client's token bucket (client-go flowcontrol: 50 requests a second
// after a burst of 100, full at start) makes a burst of more than 50 new pods wait: the real
// binary started 74 of E3's 96 first pods in its first session and 22 in the next.
//
// Frames: the binary's sessions run 100 ms after each whole second (its informers' first
// sync is client-go's 100 ms poll), the model's on it; the controller starts with the same
// poll, just after the scheduler's first session. The bucket runs on the binary's clock and a
// pod joins the model's sessions at its PATCH time less those 100 ms (never before it exists),
// so it enters the model's session of the same index as the binary's.
#include "sched/volcano/volcano.hpp"

namespace kubesim::volcano {

namespace {
constexpr std::uint8_t kControllerTimerTag = 1;
constexpr Duration kSessionPhase = Duration::millis(100);
// The worker starts at the informer-sync poll, a microsecond after the scheduler's first
// session (both binaries poll from their start; the controller's came second in every run).
constexpr Duration kControllerStart = Duration::millis(100) + Duration::micros(1);
constexpr std::int64_t kTokenMicros = 1'000'000 / 50;  // --kube-api-qps 50
constexpr std::int64_t kBurst = 100;                   // --kube-api-burst 100
}  // namespace

std::uint8_t Volcano::controller_timer_tag() { return kControllerTimerTag; }

SimTime Volcano::take_token(SimTime at) {
  // golang.org/x/time/rate Reserve: a request at `at` takes a token and proceeds once the
  // bucket holds one. bucket_full_ is when the bucket would be full again (GCRA form).
  const std::int64_t full = std::max(bucket_full_.micros(), at.micros()) + kTokenMicros;
  bucket_full_ = SimTime::at(Duration::micros(full));
  return SimTime::at(Duration::micros(std::max(at.micros(), full - kBurst * kTokenMicros)));
}

void Volcano::controller_enqueue(PodId pod, SimTime now) {
  const Pod& p = store_.pod(pod);
  SimTime at = std::max({now, controller_free_, SimTime::at(kControllerStart)});
  const bool creates = !p.job.valid() || !owner_groups_.contains(p.job.value());
  if (creates && p.job.valid()) at = take_token(at);  // GET the owner (inheritUpperAnnotations)
  const std::int32_t j = controller_group(pod, at);    // the group's creationTimestamp
  at = take_token(at);                                 // PATCH the pod's annotation
  controller_free_ = at;
  const SimTime join = std::max(now, SimTime::at(Duration::micros(at.micros() - kSessionPhase.micros())));
  if (join == now && controller_queue_.empty()) {
    join_group(pod, j, now);
    return;
  }
  controller_queue_.push_back({join, pod, j});
  if (controller_queue_.size() == 1) host_.post(join, Phase::kScheduler, SchedulerEvent::timer(kControllerTimerTag));
}

void Volcano::controller_run(SimTime now) {
  while (!controller_queue_.empty() && controller_queue_.front().at <= now) {
    const ControllerItem item = controller_queue_.front();
    controller_queue_.pop_front();
    const Pod& p = store_.pod(item.pod);
    // A pod deleted, ended or bound by another scheduler meanwhile is no task (the worker's
    // lister no longer has it, or the scheduler's cache ignores it).
    if (!p.deleted && !is_terminal(p.phase) && !p.node.valid()) join_group(item.pod, item.job, now);
  }
  if (!controller_queue_.empty())
    host_.post(controller_queue_.front().at, Phase::kScheduler, SchedulerEvent::timer(kControllerTimerTag));
}

}  // namespace kubesim::volcano

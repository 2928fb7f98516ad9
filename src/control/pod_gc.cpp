#include "control/pod_gc.hpp"

namespace kubesim {

void PodGarbageCollector::on_bound_to_missing_node(PodId pod, SimTime now) {
  // The first pass strictly after the binding sees the pod; the pass one quarantine later
  // deletes it (see the header).
  const std::int64_t period = config_.check_period.micros();
  const std::int64_t first_pass = (now.micros() / period + 1) * period;
  host_.post(SimTime::at(Duration::micros(first_pass)) + config_.quarantine, Phase::kController, PodGcEvent{pod});
}

void PodGarbageCollector::on_event(const PodGcEvent& event, SimTime now) {
  const Pod& p = store_.pod(event.pod);
  // Adopted by a node created meanwhile, or deleted by someone else: nothing to collect.
  if (p.deleted || store_.missing_node(event.pod) == nullptr) return;
  // markFailedAndDeletePodWithCondition: the status patch to Failed, then DELETE with
  // grace period 0.
  if (!is_terminal(p.phase)) store_.update_pod(event.pod, [](Pod& x) { x.phase = PodPhase::kFailed; });
  store_.delete_pod(event.pod, now, Duration(), DisruptionReason::kDeletionByPodGC);
}

}  // namespace kubesim

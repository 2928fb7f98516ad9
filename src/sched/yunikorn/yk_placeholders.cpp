// YuniKorn shim's side of gang scheduling: the placeholder pods it creates and deletes, and
// the shim's application states that hold the real pods back (Reserving, Resuming, Failed).
//
// Upstream: yunikorn-k8shim pkg/cache/placeholder_manager.go (createAppPlaceholders, cleanUp),
// placeholder.go (newPlaceholder), application.go (onReserving, onReservationStateChange,
// handleFailApplicationEvent, handleReleaseAppAllocationEvent), scheduler_callback.go;
// pkg/client/kubeclient.go (Delete's grace period).
#include "sched/cluster_client.hpp"
#include "sched/yunikorn/yunikorn.hpp"

namespace kubesim::yunikorn {

void YuniKorn::create_placeholders(int a, const std::vector<TaskGroupSpec>& specs, const std::string& queue_label,
                                   const std::string& tg_def, const std::string& params, SimTime now) {
  // k8shim placeholder_manager.go createAppPlaceholders: minMember placeholder pods per task
  // group, created through the API. On the first failure the application's placeholders are
  // cleaned up and it runs as a normal application (application.go onReserving:
  // "PlaceholderCreateFailed").
  // (Copies: creating templates and pods grows the store's vectors.)
  const std::string app_id = apps_[a].id;
  const NamespaceId ns = store_.pod(apps_[a].originator).ns;
  const std::string priority_class = store_.spec_of(apps_[a].originator).priority_class_name;
  const int gi = apps_[a].gang;
  bool failed = false;
  for (std::size_t i = 0; i < specs.size() && !failed; ++i) {
    const TaskGroupSpec& s = specs[i];
    if (!s.invalid.empty()) {  // the API server refuses the pod
      gang_messages_.emplace_back(app_id, "failed to create placeholder pod: " + s.invalid);
      failed = true;
      break;
    }
    auto added = host_.add_pod_template(placeholder_template(s, app_id, queue_label, tg_def, params, priority_class));
    if (const std::string* refused = std::get_if<std::string>(&added)) {
      gang_messages_.emplace_back(app_id, "failed to create placeholder pod: " + *refused);
      failed = true;
      break;
    }
    const PodTemplateId tmpl = std::get<PodTemplateId>(added);
    for (std::int32_t m = 0; m < s.min_member; ++m) {
      auto created = host_.create_pod(placeholder_name(app_id, s.name, names_rng_), ns, tmpl);
      if (const std::string* refused = std::get_if<std::string>(&created)) {
        gang_messages_.emplace_back(app_id, "failed to create placeholder pod: " + *refused);
        failed = true;
        break;
      }
      const PodId ph = std::get<PodId>(created);
      gangs_[gi].placeholders.push_back(ph);
      ++gangs_[gi].live;
      PodState& phs = state(ph);
      phs.placeholder = true;
      phs.shim_created = true;
      phs.app = a;
    }
  }
  if (failed) {
    // placeholder_manager.go cleanUp, then RunApplication: a normal application.
    for (PodId ph : gangs_[gi].placeholders) release_timeout(ph, now);
    shim_run(a, now);
  }
}

PodTemplate YuniKorn::placeholder_template(const TaskGroupSpec& s, const std::string& app_id,
                                           const std::string& queue_label, const std::string& tg_def,
                                           const std::string& params, const std::string& priority_class) const {
  // placeholder.go newPlaceholder.
  PodTemplate t;
  Container c;
  c.name = "pause";  // constants.PlaceholderContainerName, image registry.k8s.io/pause
  c.requests = s.min_resource;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (s.min_resource[r] != 0) c.requested_mask |= 1U << r;
  t.containers.push_back(std::move(c));
  // Labels: the group's, then applicationId, queue and placeholder (these win).
  t.labels = s.labels;
  set_label(t.labels, "applicationId", app_id);
  set_label(t.labels, "queue", queue_label);
  set_label(t.labels, kLabelPlaceholder, "true");
  t.annotations = s.annotations;
  set_label(t.annotations, kAnnotationPlaceholder, "true");
  set_label(t.annotations, kAnnotationTaskGroupName, s.name);
  if (!tg_def.empty()) set_label(t.annotations, kAnnotationTaskGroups, tg_def);
  if (!params.empty()) set_label(t.annotations, kAnnotationSchedulingPolicy, params);
  t.scheduler_name = scheduler_name_;  // constants.SchedulerName
  // The originator's PriorityClass (YUNIKORN-1921/1953, 1.4 on).
  t.priority_class_name = priority_class;
  t.node_selector = s.node_selector;
  t.tolerations = s.tolerations;
  t.affinity = s.node_affinity;
  t.has_affinity = s.has_node_affinity;
  // restartPolicy Never; terminationGracePeriodSeconds is the default 30 in 1.5 (0 from 1.6,
  // YUNIKORN-2771), but the pause container exits at SIGTERM.
  t.exits_on_sigterm = true;
  return t;
}

void YuniKorn::release_to_shim(PodId ph, SimTime now) {
  // notifyRMAllocationReleased: the shim deletes the placeholder's pod (application.go
  // handleReleaseAppAllocationEvent -> DeleteTaskPod), with the shim's 3 s (kShimDeleteGrace).
  host_.client().delete_pod(ph, kShimDeleteGrace, DisruptionReason::kDeletionByUser, now);
}

void YuniKorn::release_timeout(PodId ph, SimTime now) {
  state(ph).term = PodState::kTimeout;
  release_to_shim(ph, now);
}

void YuniKorn::shim_reservation_check(int a, SimTime now) {
  // k8shim application.go onReservationStateChange (UpdateReservation, Reserving only): the
  // application runs once every task group has minMember placeholders Bound.
  Gang& g = gangs_[apps_[a].gang];
  if (g.shim != ShimState::kReserving) return;
  for (const TaskGroupState& tg : g.groups)
    if (tg.bound < tg.min_member) return;
  shim_run(a, now);
}

void YuniKorn::shim_run(int a, SimTime now) {
  // The shim's RunApplication: Running schedules the real pods (scheduleTasks, in creation
  // order), which become asks of the core.
  Gang& g = gangs_[apps_[a].gang];
  if (g.shim == ShimState::kRunning || g.shim == ShimState::kFailed) return;
  g.shim = ShimState::kRunning;
  std::vector<PodId> held = std::move(g.held);
  g.held.clear();
  for (PodId pod : held) add_ask(pod, a, false, now);
  activity(now);
}

void YuniKorn::shim_fail(int a, SimTime now) {
  // k8shim application.go handleFailApplicationEvent: the placeholders are cleaned up and the
  // pods not yet allocated fail with ResourceReservationTimeout (the core's message).
  Gang& g = gangs_[apps_[a].gang];
  if (g.shim == ShimState::kFailed) return;
  g.shim = ShimState::kFailed;
  for (PodId ph : g.placeholders)
    if (!state(ph).gone && !store_.pod(ph).terminating() && !store_.pod(ph).deleted) release_to_shim(ph, now);
  std::vector<PodId> held = std::move(g.held);
  g.held.clear();
  for (PodId pod : held) {
    state(pod).kind = PodState::kNone;
    const Pod& p = store_.pod(pod);
    if (p.deleted || is_terminal(p.phase)) continue;
    // constants.ApplicationInsufficientResourcesFailure
    host_.client().set_failed(pod, "ResourceReservationTimeout", "Scheduling has timed out due to insufficient resources",
                              now);
  }
  // Pods of the application that come later stay pending: a Failed application schedules
  // nothing (application.go Schedule).
}

}  // namespace kubesim::yunikorn

#include "control/kubelet.hpp"

#include <algorithm>
#include <string>

#include "cluster/predicates.hpp"

namespace kubesim {

Kubelets::Kubelets(ObjectStore& store, KubeletLatencies latencies, std::uint64_t seed, KubeletHost& host)
    : store_(store),
      latencies_(latencies),
      startup_rng_(seed, "kubelet/startup"),
      stall_rng_(seed, "kubelet/startup-stall"),
      pull_rng_(seed, "kubelet/image-pull"),
      pull_first_rng_(seed, "kubelet/image-pull-first"),
      create_rng_(seed, "kubelet/container-create"),
      start_rng_(seed, "kubelet/container-start"),
      status_rng_(seed, "kubelet/status"),
      pleg_rng_(seed, "kubelet/pleg-phase"),
      host_(host),
      admitted_(store, NodeCache::Tracking::kSumsOnly) {}

Kubelets::PodState& Kubelets::state(PodId pod) {
  if (pod.value() >= pods_.size()) pods_.resize(pod.value() + 1);
  return pods_[pod.value()];
}

void Kubelets::on_node_added(NodeId node) {
  if (node.value() >= nodes_.size()) nodes_.resize(node.value() + 1);
  admitted_.set_node(node, store_.node(node));
  const auto period = latencies_.pleg_relist_period.micros();
  // Each kubelet started at its own moment: its relist ticks have a random phase.
  nodes_[node.value()].pleg_offset =
      period > 0 ? Duration::micros(static_cast<std::int64_t>(pleg_rng_.uniform_below(static_cast<std::uint64_t>(period))))
                 : Duration();
}

SimTime Kubelets::pleg_sees(NodeId node, SimTime t) const {
  const std::int64_t period = latencies_.pleg_relist_period.micros();
  if (period == 0) return t;
  const std::int64_t offset = nodes_[node.value()].pleg_offset.micros();
  const std::int64_t k = (t.micros() - offset + period - 1) / period;  // first relist at or after t
  return SimTime::at(Duration::micros(offset + k * period));
}

void Kubelets::on_pod_change(const Change& c, SimTime now) {
  if (c.kind != ObjectKind::kPod || !c.node.valid() || c.type == ChangeType::kDeleted) return;
  if (nodes_[c.node.value()].down) return;  // synced when the node comes back (on_node_up)
  const PodId pod(c.id);
  if (c.became_terminating) {
    terminate(pod, now);
    return;
  }
  if (state(pod).state != State::kNone || is_terminal(c.phase)) return;
  if (c.type == ChangeType::kAdded || !c.old_node.valid()) {
    if (store_.pod(pod).terminating()) {
      terminate(pod, now);
    } else {
      admit(pod, c.node, now);
    }
  }
}

void Kubelets::terminate(PodId pod, SimTime now) {
  PodState& ps = state(pod);
  const Pod& p = store_.pod(pod);
  switch (ps.state) {
    case State::kNone:  // never admitted: nothing to stop
      ps.state = State::kDone;
      ps.killed = true;
      report(pod, now);
      return;
    case State::kStarting:  // the container was not started yet
      stop(pod, now, true);
      return;
    case State::kRunning: {
      // killContainer: SIGTERM, then SIGKILL once the grace period is over.
      const bool exits = latencies_.containers_exit_on_sigterm || store_.spec(p.spec).exits_on_sigterm;
      const SimTime kill_at = exits ? now : p.deletion_requested + p.deletion_grace;
      if (kill_at < ps.exit_at)
        host_.post(std::max(now, kill_at), Phase::kKubelet, KubeletEvent{KubeletEvent::Kind::kKilled, pod});
      return;  // otherwise the container exits by itself first
    }
    case State::kDone:
      // Stopped already: once its final status is stored the pod is removed.
      if (is_terminal(p.phase)) store_.remove_pod(pod);
      return;
  }
}

void Kubelets::stop(PodId pod, SimTime now, bool killed) {
  PodState& ps = pods_[pod.value()];
  ps.state = State::kDone;
  ps.exit_at = now;
  ps.killed = killed;
  leave_rendezvous(pod);
  Pod& stats = store_.pod_statistics(pod);
  stats.finished = now;
  if (killed) stats.exit_code = 137;  // 128 + SIGKILL
  release(pod);
  report(pod, now);
}

void Kubelets::on_node_down(NodeId node, SimTime now) {
  // The machine is off: its containers are gone (the kubelet will report them as
  // ContainerStatusUnknown, exit code 137, when it is back). Rare: a scan of all pods.
  nodes_[node.value()].down = true;
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    PodState& ps = pods_[i];
    const PodId pod(static_cast<std::uint32_t>(i));
    if (store_.pod(pod).node != node) continue;
    if (ps.state == State::kStarting || ps.state == State::kRunning) {
      ps.state = State::kDone;
      ps.killed = true;
      Pod& stats = store_.pod_statistics(pod);
      if (!stats.started.is_never()) stats.finished = now;
      stats.exit_code = 137;
      leave_rendezvous(pod);
      release(pod);
    }
  }
}

void Kubelets::on_node_up(NodeId node, SimTime now) {
  nodes_[node.value()].down = false;
  // The restarted kubelet syncs every pod bound to it (pod_workers): it reports the final
  // status of pods that stopped, finishes deletions, and admits pods bound while it was down.
  for (std::size_t i = 0; i < store_.pod_count(); ++i) {
    const PodId pod(static_cast<std::uint32_t>(i));
    const Pod& p = store_.pod(pod);
    if (p.node != node || p.deleted) continue;
    PodState& ps = state(pod);
    if (ps.state == State::kNone && !is_terminal(p.phase)) {
      if (p.terminating()) {
        terminate(pod, now);
      } else {
        admit(pod, node, now);
      }
    } else if (ps.state == State::kDone) {
      if (!is_terminal(p.phase)) {
        report(pod, now);
      } else if (p.terminating()) {
        store_.remove_pod(pod);
      }
    }
  }
}

void Kubelets::admit(PodId pod, NodeId node, SimTime now) {
  NodeState& ns = nodes_[node.value()];
  PodState& ps = state(pod);
  std::string reason;
  std::string message;
  if (refused(pod, node, reason, message)) {
    // kubelet.go rejectPod: phase Failed, never started.
    // The rejection is written at once: it carries strings the compact per-pod state does
    // not keep, and nothing else is reported for this pod.
    ps.state = State::kDone;
    store_.update_pod(pod, [&](Pod& p) {
      p.phase = PodPhase::kFailed;
      p.reason = reason;
      p.message = message;
    });
    return;
  }
  admitted_.add_pod(pod, node);
  ++active_;
  ps.state = State::kStarting;
  Pod& stats = store_.pod_statistics(pod);
  stats.start_time = now;  // status.startTime, reported with the Running status
  // SyncPod's steps in order (kuberuntime_manager.go): sandbox, image, create, start. A fixed
  // zero step draws nothing, so models without the split keep their random sequences.
  stats.pulling = now + latencies_.startup.sample(startup_rng_);
  if (!latencies_.startup_stall.is_zero()) {
    using Last = NodeState::LastStart;
    const double p = ns.last_start == Last::kNone        ? latencies_.stall_probability_first
                     : ns.last_start == Last::kUnstalled ? latencies_.stall_probability_after_unstalled
                                                         : latencies_.stall_probability_after_stalled;
    const bool stalled = stall_rng_.uniform01() < p;
    if (stalled) stats.pulling = stats.pulling + latencies_.startup_stall.sample(stall_rng_);
    ns.last_start = stalled ? Last::kStalled : Last::kUnstalled;
  }
  if (!latencies_.image_pull_first.is_zero() && !ns.has_image) {
    stats.pulled = stats.pulling + latencies_.image_pull_first.sample(pull_first_rng_);
    ns.has_image = true;
  } else {
    stats.pulled = stats.pulling + latencies_.image_pull.sample(pull_rng_);
  }
  stats.container_created = stats.pulled + latencies_.container_create.sample(create_rng_);
  host_.post(stats.container_created + latencies_.container_start.sample(start_rng_), Phase::kKubelet,
             KubeletEvent{KubeletEvent::Kind::kContainerStarted, pod});
}

void Kubelets::release(PodId pod) {
  admitted_.remove_pod(pod, store_.pod(pod).node);
  --active_;
}

bool Kubelets::refused(PodId pod, NodeId node, std::string& reason, std::string& message) const {
  const PodTemplate& spec = store_.spec_of(pod);
  const Node& n = store_.node(node);
  const NodeInfo& admitted = admitted_.info(node);
  // lifecycle/predicate.go generalFilter -> noderesources.Fits over the admitted pods; the
  // first insufficient resource gives the reason (pods, cpu, memory, ephemeral, extended).
  // Deliberately only the resources (and devices below): the pods reaching a kubelet here
  // passed a scheduler's node name, affinity and taint checks. As fitsRequest, but only the
  // resources the pod requests are compared (a zero request passes an overcommitted node).
  // predicate.go removeMissingExtendedResources: an extended resource the node does not
  // have at all (one an extender manages, say) is not checked.
  std::uint32_t missing = 0;
  for (std::uint32_t s = spec.requested_slots & ~0b111u; s != 0; s &= s - 1) {
    const auto i = static_cast<std::size_t>(__builtin_ctz(s));
    if (n.allocatable[i] == 0 && is_extended_resource_name(store_.resource_names().name(i))) missing |= 1u << i;
  }
  const std::uint32_t insufficient =
      insufficient_resources(spec, n.allocatable, admitted.requested, admitted.pod_count, n.allowed_pods) &
      (kTooManyPodsBit | spec.requested_slots) & ~missing;
  if (insufficient & kTooManyPodsBit) {
    reason = "OutOfpods";
    message = "pods, requested: 1, used: " + std::to_string(admitted.pod_count) +
              ", capacity: " + std::to_string(n.allowed_pods);
  } else if (insufficient != 0) {
    const std::size_t i = first_slot(insufficient);
    const std::string& name = store_.resource_names().name(i);
    reason = "OutOf" + name;
    message = name + ", requested: " + std::to_string(spec.requests[i]) +
              ", used: " + std::to_string(admitted.requested[i]) + ", capacity: " + std::to_string(n.allocatable[i]);
  }
  if (!reason.empty()) {
    message = "Pod was rejected: Node didn't have enough resource: " + message;
    return true;
  }
  return devices_refused(pod, node, reason, message);
}

bool Kubelets::devices_refused(PodId pod, NodeId node, std::string& reason, std::string& message) const {
  // The device manager's Allocate (pkg/kubelet/cm/devicemanager/manager.go
  // devicesToAllocate): the devices the binding names must be free on the node; a pod bound
  // without named devices is given free ones, as the device manager picks them. Too few:
  // the admission fails with UnexpectedAdmissionError (lifecycle/predicate.go). A pod asking
  // only the nvidia.com/gpu extended resource was decided by the resource check above (its
  // whole devices are free when the count fits); the cache still picks them (add_pod).
  const Pod& p = store_.pod(pod);
  const PodTemplate& spec = store_.spec(p.spec);
  bool fits = true;
  if (!p.devices().empty()) {
    fits = grants_fit(p.devices(), admitted_.devices(node), admitted_.device_use(node));
  } else if (!spec.device_requests.empty()) {
    DeviceGrants picked;
    fits = admitted_.fit_devices(spec, node, picked);
  }
  if (fits) return false;
  reason = "UnexpectedAdmissionError";
  message = "Allocate failed due to requested devices unavailable, which is unexpected";
  return true;
}

void Kubelets::run_container(PodId pod, SimTime now) {
  PodState& ps = pods_[pod.value()];
  const Pod& p = store_.pod(pod);
  ps.exit_at = p.run_time == Duration::max() ? SimTime::never() : now + p.run_time;
  // The deadline is only armed when it would end the pod before its container exits,
  // so a finished pod leaves no pending event behind (a rank's is armed when it starts).
  if (p.active_deadline > Duration() && p.start_time + p.active_deadline < ps.exit_at) {
    if (!ps.in_rendezvous)
      host_.post(std::max(now, p.start_time + p.active_deadline), Phase::kKubelet,
                 KubeletEvent{KubeletEvent::Kind::kDeadline, pod});
    return;
  }
  if (ps.exit_at.is_never()) return;  // a container that runs until the pod is deleted
  host_.post(pleg_sees(p.node, ps.exit_at), Phase::kKubelet, KubeletEvent{KubeletEvent::Kind::kContainerExitSeen, pod});
}

void Kubelets::join_rendezvous(PodId pod, SimTime now) {
  PodState& ps = pods_[pod.value()];
  const Pod& p = store_.pod(pod);
  if (p.workload_job >= rendezvous_.size()) rendezvous_.resize(p.workload_job + 1);
  Rendezvous& r = rendezvous_[p.workload_job];
  ps.in_rendezvous = true;
  ++r.running;
  // Until all ranks run, only the walltime (or a deletion) can end this one. Its deadline is
  // armed now; if the job's work ends first, is_stale() drops it.
  if (p.active_deadline > Duration())
    host_.post(std::max(now, p.start_time + p.active_deadline), Phase::kKubelet,
               KubeletEvent{KubeletEvent::Kind::kDeadline, pod});
  r.waiting.push_back(pod);
  if (r.running < p.machines) return;
  // Every rank is running: the job's work begins now on all of them.
  for (const PodId w : r.waiting) run_container(w, now);
  r.waiting.clear();
}

void Kubelets::leave_rendezvous(PodId pod) {
  PodState& ps = pods_[pod.value()];
  if (!ps.in_rendezvous) return;
  ps.in_rendezvous = false;
  Rendezvous& r = rendezvous_[store_.pod(pod).workload_job];
  --r.running;
  if (auto it = std::find(r.waiting.begin(), r.waiting.end(), pod); it != r.waiting.end()) r.waiting.erase(it);
}

void Kubelets::report(PodId pod, SimTime seen) {
  PodState& ps = pods_[pod.value()];
  SimTime at = seen + latencies_.status_update.sample(status_rng_);
  if (!ps.last_report.is_never() && at < ps.last_report) at = ps.last_report;  // the status manager keeps order
  ps.last_report = at;
  host_.post(at, Phase::kKubelet, KubeletEvent{KubeletEvent::Kind::kReport, pod});
}

bool Kubelets::is_stale(const KubeletEvent& e) const {
  const PodState& ps = pods_[e.pod.value()];
  const State s = ps.state;
  switch (e.kind) {
    case KubeletEvent::Kind::kContainerStarted: return s != State::kStarting;
    case KubeletEvent::Kind::kDeadline: {
      // A waiting rank's deadline is armed when it starts; if the job's work began and ends
      // before it, the container exits first and the deadline does nothing.
      const Pod& p = store_.pod(e.pod);
      return s != State::kRunning || (!ps.exit_at.is_never() && p.start_time + p.active_deadline >= ps.exit_at);
    }
    case KubeletEvent::Kind::kContainerExitSeen:
    case KubeletEvent::Kind::kKilled: return s != State::kRunning;
    case KubeletEvent::Kind::kReport: return false;
  }
  return false;
}

void Kubelets::on_event(const KubeletEvent& e, SimTime now) {
  PodState& ps = pods_[e.pod.value()];
  const Pod& p = store_.pod(e.pod);
  switch (e.kind) {
    case KubeletEvent::Kind::kContainerStarted: {
      if (ps.state != State::kStarting) return;
      ps.state = State::kRunning;
      store_.pod_statistics(e.pod).started = now;
      report(e.pod, pleg_sees(p.node, now));
      if (p.machines > 1 && p.workload_job != kNoWorkloadJob) {
        join_rendezvous(e.pod, now);
      } else {
        run_container(e.pod, now);
      }
      return;
    }
    case KubeletEvent::Kind::kContainerExitSeen:
      if (ps.state != State::kRunning) return;
      ps.state = State::kDone;
      store_.pod_statistics(e.pod).finished = ps.exit_at;
      leave_rendezvous(e.pod);
      release(e.pod);
      report(e.pod, now);
      return;
    case KubeletEvent::Kind::kDeadline:
      // pkg/kubelet/active_deadline.go: the pod has been active (since status.startTime)
      // longer than spec.activeDeadlineSeconds; the container is killed now. A container
      // that exits at this very instant completes first (Phase ordering).
      if (is_stale(e)) return;
      ps.deadline_exceeded = true;
      stop(e.pod, now, false);
      return;
    case KubeletEvent::Kind::kKilled:
      if (ps.state != State::kRunning) return;
      stop(e.pod, now, true);
      return;
    case KubeletEvent::Kind::kReport: {
      if (nodes_[p.node.value()].down) return;  // lost with the node; resent when it is back
      // The status manager sends the latest status; container timestamps recorded by the
      // kubelet become visible with it.
      PodPhase phase = PodPhase::kRunning;
      if (ps.state == State::kDone)
        phase = ps.deadline_exceeded || ps.killed || p.exit_code != 0 ? PodPhase::kFailed : PodPhase::kSucceeded;
      // status_manager.go: once a deleted pod's containers have stopped and its final
      // status is stored, the kubelet removes it from the API.
      const bool remove = ps.state == State::kDone && p.terminating();
      if (p.phase == phase) {
        if (remove) store_.remove_pod(e.pod);
        return;
      }
      store_.update_pod(e.pod, [&](Pod& x) {
        x.phase = phase;
        if (ps.deadline_exceeded) {
          x.reason = "DeadlineExceeded";
          x.message = "Pod was active on the node longer than the specified deadline";
        }
        // A container exiting non-zero fails the pod with no pod-level reason (the
        // container's terminated state carries "Error").
      });
      if (remove) store_.remove_pod(e.pod);
      return;
    }
  }
}

}  // namespace kubesim

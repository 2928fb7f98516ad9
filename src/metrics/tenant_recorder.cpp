#include "metrics/tenant_recorder.hpp"

#include <algorithm>

#include "model/pod_end.hpp"

namespace kubesim {

TenantRecorder::TenantRecorder(const Simulation& sim, Duration interval, std::int64_t capacity_milli,
                               const std::vector<std::string>& tenants)
    : sim_(sim) {
  series_.interval = interval;
  series_.capacity_milli = capacity_milli;
  for (const auto& t : tenants) {
    const auto ns = sim.store().find_namespace(t);
    if (ns) tenant_of(*ns);
  }
}

std::size_t TenantRecorder::tenant_of(NamespaceId ns) {
  if (tenant_by_namespace_.size() <= ns.value()) tenant_by_namespace_.resize(ns.value() + 1, -1);
  std::int32_t& t = tenant_by_namespace_[ns.value()];
  if (t < 0) {
    t = static_cast<std::int32_t>(series_.tenants.size());
    series_.tenants.push_back(sim_.store().namespace_(ns).name);
    current_.emplace_back();
  }
  return static_cast<std::size_t>(t);
}

void TenantRecorder::set_state(State& current, State next, std::size_t tenant, std::int64_t cores) {
  if (current == next) return;
  auto slot = [&](State s) -> std::int64_t* {
    TenantSample& c = current_[tenant];
    switch (s) {
      case State::kPending: return &c.pending;
      case State::kRunning: return &c.running;
      case State::kCompleted: return &c.completed;
      case State::kPreempted: return &c.preempted;
      case State::kNone: return nullptr;
    }
    return nullptr;
  };
  if (auto* from = slot(current)) *from -= cores;
  if (auto* to = slot(next)) *to += cores;
  if (current == State::kRunning) running_total_ -= cores;
  if (next == State::kRunning) running_total_ += cores;
  current = next;
}

void TenantRecorder::emit_until(SimTime t, bool inclusive) {
  if (series_.interval <= Duration()) return;
  while (next_sample_ < t || (inclusive && next_sample_ == t)) {
    if (series_.times.size() == kMaxSamples) halve_resolution();
    series_.times.push_back(next_sample_);
    series_.samples.insert(series_.samples.end(), current_.begin(), current_.end());
    series_.pending_pods.push_back(pending_pods_);
    next_sample_ = next_sample_ + series_.interval;
  }
}

void TenantRecorder::halve_resolution() {
  const std::size_t width = series_.tenants.size();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < series_.times.size(); i += 2, ++kept) {
    series_.times[kept] = series_.times[i];
    series_.pending_pods[kept] = series_.pending_pods[i];
    std::copy_n(series_.samples.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                series_.samples.begin() + static_cast<std::ptrdiff_t>(kept * width));
  }
  series_.times.resize(kept);
  series_.pending_pods.resize(kept);
  series_.samples.resize(kept * width);
  series_.interval = series_.interval + series_.interval;
  next_sample_ = series_.times.back() + series_.interval;
}

void TenantRecorder::advance_integral(SimTime now) {
  running_integral_ += static_cast<double>(running_total_) * (now - last_change_).to_seconds();
  last_change_ = now;
}

void TenantRecorder::on_change(const Change& c) {
  if (c.kind != ObjectKind::kPod && c.kind != ObjectKind::kJob) return;
  const SimTime now = sim_.now();
  const std::size_t tenants_before = series_.tenants.size();
  emit_until(now, false);
  advance_integral(now);
  const ObjectStore& store = sim_.store();
  if (c.kind == ObjectKind::kJob) {
    // The study's classification of a Job from its status.
    const Job& job = store.job(JobId(c.id));
    const std::size_t tenant = tenant_of(job.ns);
    if (job_state_.size() <= c.id) job_state_.resize(c.id + 1, State::kNone);
    const std::int64_t cores = store.spec(job.spec).requests[kCpu] * job.parallelism;
    State next = State::kPending;
    if (job.succeeded >= job.completions) {
      next = State::kCompleted;
    } else if (job.condition == JobCondition::kFailed) {
      // Failed (e.g. backoffLimit reached): the controller no longer updates its status, so
      // `ready` may keep the count of pods being deleted when it failed.
      next = State::kPreempted;
    } else if (job.ready > 0) {
      next = State::kRunning;  // a replacement pod runs: the cores are in use
    } else if (job.failed > 0) {
      next = State::kPreempted;
    }
    set_state(job_state_[c.id], next, tenant, cores);
  } else {
    const Pod& p = store.pod(PodId(c.id));
    // Queue length: pods created and not yet bound (nor gone).
    const bool dead = is_terminal(c.phase) || c.type == ChangeType::kDeleted;
    const bool queued = !c.node.valid() && !dead;
    const bool was_queued = c.type == ChangeType::kDeleted ? !c.node.valid() && !is_terminal(c.phase)
                            : c.type == ChangeType::kAdded  ? false
                                                            : !c.old_node.valid() && !is_terminal(c.old_phase);
    pending_pods_ += (queued ? 1 : 0) - (was_queued ? 1 : 0);
    // Work items are Jobs and bare workload pods; a scheduler's pods (YuniKorn's
    // placeholders) hold cores but run no work (they still count as pending pods above).
    if (!p.job.valid() && p.workload_job != kNoWorkloadJob) {
      const std::size_t tenant = tenant_of(p.ns);
      if (pod_state_.size() <= c.id) pod_state_.resize(c.id + 1, State::kNone);
      State next = State::kPending;
      if (p.phase == PodPhase::kSucceeded) {
        next = State::kCompleted;
      } else if (p.phase == PodPhase::kFailed || c.type == ChangeType::kDeleted || p.terminating()) {
        next = State::kPreempted;
      } else if (p.phase == PodPhase::kRunning) {
        next = State::kRunning;
      }
      set_state(pod_state_[c.id], next, tenant, store.spec(p.spec).requests[kCpu]);
    }
  }
  // A tenant first seen now has no earlier samples: give it zeros there.
  if (series_.tenants.size() != tenants_before && !series_.times.empty()) {
    std::vector<TenantSample> padded;
    padded.reserve(series_.times.size() * series_.tenants.size());
    const std::size_t old_width = tenants_before;
    for (std::size_t i = 0; i < series_.times.size(); ++i) {
      padded.insert(padded.end(), series_.samples.begin() + static_cast<std::ptrdiff_t>(i * old_width),
                    series_.samples.begin() + static_cast<std::ptrdiff_t>((i + 1) * old_width));
      padded.resize(padded.size() + (series_.tenants.size() - old_width));
    }
    series_.samples = std::move(padded);
  }
}

void TenantRecorder::finish() {
  if (finished_) return;
  finished_ = true;
  emit_until(sim_.now(), true);
  advance_integral(sim_.now());
}

RunSummary TenantRecorder::summary() const {
  RunSummary s;
  s.end = sim_.now();
  const ObjectStore& store = sim_.store();
  const Workload& w = sim_.workload();
  s.tenants.resize(series_.tenants.size());
  for (std::size_t t = 0; t < s.tenants.size(); ++t) s.tenants[t].tenant = series_.tenants[t];
  std::vector<SimTime> first_created(s.tenants.size(), SimTime::never());
  std::vector<SimTime> last_finished(s.tenants.size(), SimTime::never());
  std::vector<std::uint64_t> started(s.tenants.size(), 0);
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const WorkloadJob& wj = w.jobs[i];
    if (wj.ns.value() >= tenant_by_namespace_.size() || tenant_by_namespace_[wj.ns.value()] < 0) continue;
    const auto t = static_cast<std::size_t>(tenant_by_namespace_[wj.ns.value()]);
    TenantSummary& ts = s.tenants[t];
    const JobId job = sim_.job_objects()[i];
    const PodId pod = sim_.job_pods()[i];
    SimTime created = SimTime::never();
    if (job.valid()) {
      const Job& j = store.job(job);
      created = j.created;
      if (j.condition == JobCondition::kComplete) ++ts.completed;
      ts.total_cores_milli += store.spec(j.spec).requests[kCpu] * j.parallelism;
    } else if (pod.valid()) {
      created = store.pod(pod).created;
      if (store.pod(pod).phase == PodPhase::kSucceeded || ended_by_owner(store.pod(pod))) ++ts.completed;
      // A rigid parallel job's ranks: one pod per machine.
      ts.total_cores_milli += store.spec_of(pod).requests[kCpu] * std::max<std::uint32_t>(store.pod(pod).machines, 1);
    } else {
      continue;  // submitted but never created (admission refused the bare pod)
    }
    ++ts.jobs;
    if (first_created[t].is_never() || created < first_created[t]) first_created[t] = created;
    if (!pod.valid()) continue;
    const Pod& p = store.pod(pod);
    if (p.started.is_never()) continue;
    ++started[t];
    ts.total_queue_s += (p.started - created).to_seconds();
    ts.queue_times_s.push_back((p.started - created).to_seconds());
    if (!p.finished.is_never()) {
      ts.total_run_s += (p.finished - p.started).to_seconds();
      if (last_finished[t].is_never() || p.finished > last_finished[t]) last_finished[t] = p.finished;
    }
  }
  // Failed pods (any cause), per tenant.
  for (std::size_t i = 0; i < store.pod_count(); ++i) {
    const Pod& p = store.pod(PodId(static_cast<std::uint32_t>(i)));
    if (p.phase == PodPhase::kSucceeded || ended_by_owner(p)) continue;
    if (p.phase != PodPhase::kFailed && !p.deleted && !p.terminating()) continue;
    if (p.workload_job == kNoWorkloadJob) continue;  // a placeholder's deletion is no failure
    if (p.ns.value() >= tenant_by_namespace_.size() || tenant_by_namespace_[p.ns.value()] < 0) continue;
    ++s.tenants[static_cast<std::size_t>(tenant_by_namespace_[p.ns.value()])].failed_pods;
  }
  SimTime first = SimTime::never(), last = SimTime::never();
  for (std::size_t t = 0; t < s.tenants.size(); ++t) {
    if (!first_created[t].is_never() && (first.is_never() || first_created[t] < first)) first = first_created[t];
    if (!last_finished[t].is_never() && (last.is_never() || last_finished[t] > last)) last = last_finished[t];
  }
  if (!first.is_never() && !last.is_never()) s.makespan_s = (last - first).to_seconds();
  for (std::size_t t = 0; t < s.tenants.size(); ++t) {
    TenantSummary& ts = s.tenants[t];
    ts.average_queue_s = started[t] ? ts.total_queue_s / static_cast<double>(started[t]) : 0;
    ts.total_queue_run_s = ts.total_queue_s + ts.total_run_s;
    if (!first_created[t].is_never() && !last_finished[t].is_never())
      ts.makespan_s = (last_finished[t] - first_created[t]).to_seconds();
  }
  const double span = s.end.to_seconds();
  s.utilisation = span > 0 && series_.capacity_milli > 0
                      ? running_integral_ / (static_cast<double>(series_.capacity_milli) * span)
                      : 0;
  return s;
}

}  // namespace kubesim

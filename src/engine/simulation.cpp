#include "engine/simulation.hpp"

namespace kubesim {

Simulation::Simulation(SimulationInputs inputs, SimulationOptions options)
    : options_(std::move(options)), workload_(std::move(inputs.workload)), watch_rng_(options_.seed, "informer/watch") {
  store_.resource_names() = inputs.resource_names;
  store_.add_listener(this);
  kubelets_ = std::make_unique<Kubelets>(store_, options_.model.kubelet, options_.seed, static_cast<KubeletHost&>(*this));
  scheduler_ = std::make_unique<Scheduler>(store_, std::move(inputs.scheduler), options_.model.scheduler, options_.seed,
                                           static_cast<SchedulerHost&>(*this));
  store_.ensure_namespace("default");
  store_.reserve_pods(workload_.jobs.size());
  for (auto& node : inputs.nodes) store_.create_node(std::move(node));
  for (std::size_t i = 0; i < workload_.templates.size(); ++i) {
    const PodTemplateId id = store_.add_template(workload_.templates[i]);
    if (i == 0) template_base_ = id.value();
  }
  job_pods_.assign(workload_.jobs.size(), PodId());
  if (!workload_.jobs.empty()) {
    ++external_pending_;
    events_.push(workload_.jobs[0].submit, Phase::kArrival, Arrival{0});
  }
}

bool Simulation::is_external(const Event& e) {
  if (const auto* s = std::get_if<SchedulerEvent>(&e)) return s->kind == SchedulerEvent::Kind::kBindDone;
  return true;
}

void Simulation::post(SimTime at, Phase phase, SchedulerEvent event) {
  if (event.kind == SchedulerEvent::Kind::kBindDone) ++external_pending_;
  events_.push(at, phase, event);
}

void Simulation::post(SimTime at, Phase phase, KubeletEvent event) {
  ++external_pending_;
  events_.push(at, phase, event);
}

void Simulation::deliver(Subscriber to, const Change& change) {
  // A watch stream delivers in order: each delivery is at or after the previous one.
  SimTime at = now_ + options_.model.watch_delay.sample(watch_rng_);
  SimTime& last = last_delivery_[static_cast<int>(to)];
  if (at < last) at = last;
  last = at;
  ++external_pending_;
  events_.push(at, Phase::kInformer, Delivery{to, change});
}

void Simulation::on_change(const Change& change) {
  switch (change.kind) {
    case ObjectKind::kNamespace: return;
    case ObjectKind::kNode:
      if (change.type == ChangeType::kAdded) kubelets_->on_node_added(NodeId(change.id));
      deliver(Subscriber::kScheduler, change);
      return;
    case ObjectKind::kPod:
      if (is_terminal(change.phase) && !is_terminal(change.old_phase)) ++finished_pods_;
      deliver(Subscriber::kScheduler, change);
      if (change.node.valid() && (!change.old_node.valid() || change.type == ChangeType::kAdded))
        deliver(Subscriber::kKubelet, change);
      return;
  }
}

void Simulation::submit(std::uint32_t job_index) {
  const WorkloadJob& job = workload_.jobs[job_index];
  Pod pod;
  pod.name = workload_.name + "-" + job.id;  // Batkube names pods w0-<job id>
  pod.ns = NamespaceId(0);
  pod.spec = PodTemplateId(template_base_ + job.pod_template);
  pod.workload_job = job_index;
  pod.run_time = job.run_time;
  pod.active_deadline = job.walltime;
  pod.exit_code = job.exit_code;
  pod.created = now_;
  job_pods_[job_index] = store_.create_pod(std::move(pod));
}

std::size_t Simulation::pending_pods() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < store_.pod_count(); ++i) {
    const Pod& p = store_.pod(PodId(static_cast<std::uint32_t>(i)));
    if (p.phase == PodPhase::kPending && !p.node.valid()) ++n;
  }
  return n;
}

void Simulation::run(const std::function<void(double)>& progress) {
  const double total_jobs = static_cast<double>(workload_.jobs.size());
  while (!events_.empty()) {
    // Quiescence: nothing external is pending and the scheduler has no work that does not
    // wait for a cluster change. Retrying the remaining unschedulable pods in a frozen
    // cluster would fail identically forever, so the run is over.
    if (external_pending_ == 0 && !scheduler_->busy()) break;
    if (events_.top().time > options_.until) break;
    auto entry = events_.pop();
    now_ = entry.time;
    ++events_processed_;
    if (is_external(entry.payload)) --external_pending_;
    std::visit(
        [&](auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, Arrival>) {
            submit(e.job);
            const std::uint32_t next = e.job + 1;
            if (next < workload_.jobs.size()) {
              ++external_pending_;
              events_.push(workload_.jobs[next].submit, Phase::kArrival, Arrival{next});
            }
          } else if constexpr (std::is_same_v<T, Delivery>) {
            if (e.to == Subscriber::kKubelet) {
              kubelets_->on_pod_change(e.change, now_);
            } else if (e.change.kind == ObjectKind::kNode) {
              scheduler_->on_node_change(e.change, now_);
            } else {
              scheduler_->on_pod_change(e.change, now_);
            }
          } else if constexpr (std::is_same_v<T, KubeletEvent>) {
            kubelets_->on_event(e, now_);
          } else {
            scheduler_->on_event(e, now_);
          }
        },
        entry.payload);
    if (progress && (events_processed_ & 0xffff) == 0 && total_jobs > 0)
      progress(static_cast<double>(finished_pods_) / total_jobs);
  }
  if (progress) progress(1.0);
}

}  // namespace kubesim

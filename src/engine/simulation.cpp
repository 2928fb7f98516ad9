#include "engine/simulation.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "engine/gpu_workload.hpp"

namespace kubesim {

Simulation::Simulation(SimulationInputs inputs, SimulationOptions options)
    : options_(std::move(options)),
      workload_(std::move(inputs.workload)),
      quota_(store_),
      watch_rng_(options_.seed, "informer/watch"),
      failure_rng_(options_.seed, "workload/failures") {
  store_.resource_names() = inputs.resource_names;
  store_.add_listener(this, KindSet::all());  // registered kinds too: it routes them to their controllers
  kubelets_ = std::make_unique<Kubelets>(store_, options_.model.kubelet, options_.seed, static_cast<KubeletHost&>(*this));
  auto add_scheduler = [&](auto make, Duration informer_delay) {
    auto port = std::make_unique<SchedulerPort>();
    port->sim = this;
    port->index = static_cast<std::uint8_t>(schedulers_.size());
    auto model = make(*port);
    schedulers_.push_back(SchedulerSlot{std::move(model), std::move(port), informer_delay});
  };
  if (options_.model.scheduler_minor_version < 22)
    inputs.scheduler.queue.max_in_unschedulable = Duration::seconds(60);  // ModelConfig::scheduler_minor_version
  if (options_.model.random_queue_flush_phase) {
    // Both loops start at the scheduler's start, some instant before time 0 (ModelConfig).
    RandomStream rng(options_.seed, "scheduler/queue-flush-phase");
    QueueConfig& q = inputs.scheduler.queue;
    const auto period = static_cast<std::uint64_t>(q.leftover_flush_period.micros());
    const auto start = static_cast<std::int64_t>(rng.uniform_below(period));
    q.leftover_flush_phase = Duration::micros(start);
    q.backoff_flush_phase = Duration::micros(start % q.backoff_flush_period.micros());
  }
  // The FGD plugins weigh fragmentation by the workload's typical pods unless given others.
  if (inputs.scheduler.has_gpu_plugins() && !inputs.scheduler.typical_pods)
    inputs.scheduler.typical_pods =
        std::make_shared<const TypicalPods>(workload_typical_pods(workload_, store_.resource_names()));
  add_scheduler(
      [&](SchedulerHost& host) {
        auto s = std::make_unique<Scheduler>(store_, std::move(inputs.scheduler), options_.model.scheduler, options_.seed, host);
        s->set_replay_futile(options_.replay_futile_attempts);
        kube_scheduler_ = s.get();
        return s;
      },
      inputs.scheduler_informer_delay);
  for (auto& f : inputs.other_schedulers)
    add_scheduler([&](SchedulerHost& host) { return f.make(store_, host, options_); }, f.informer_delay);
  KUBESIM_ASSERT(schedulers_.size() < 256 - kFirstScheduler);
  last_delivery_.assign(kFirstScheduler + schedulers_.size(), SimTime::zero());
  job_controller_ = std::make_unique<JobController>(store_, options_.model.job_controller,
                                                    options_.model.controller_manager_client, options_.seed,
                                                    static_cast<JobControllerHost&>(*this));
  KUBESIM_ASSERT(!workload_.namespaces.empty() && workload_.namespaces[0] == "default");
  for (const auto& ns : workload_.namespaces) store_.ensure_namespace(ns);
  for (auto& pc : inputs.priority_classes) store_.add_priority_class(std::move(pc));
  for (auto& q : inputs.quotas) store_.create_quota(std::move(q));
  for (auto& pdb : inputs.pod_disruption_budgets) store_.add_pod_disruption_budget(std::move(pdb));
  for (const auto& install : inputs.install_objects) install(store_);
  add_controllers(std::move(inputs.controllers));  // before the nodes: they watch them
  // Every pod the workload asks for, at once: the store never moves its pods while it grows.
  std::size_t pods = options_.model.addon_pods.size();
  for (const WorkloadJob& j : workload_.jobs) pods += j.pods_asked();
  store_.reserve_pods(std::min(pods, options_.max_pods));
  kubelets_->reserve(std::min(pods, options_.max_pods));
  for (auto& node : inputs.nodes) store_.create_node(std::move(node));
  resolve_priorities(workload_.templates);
  for (std::size_t i = 0; i < workload_.templates.size(); ++i) {
    const PodTemplateId id = store_.add_template(workload_.templates[i]);
    if (i == 0) template_base_ = id.value();
  }
  // Before any pod exists: which schedulers hear of pod changes at once, and which of those
  // serve no template (kube-scheduler beside a batch policy) and may stay idle until one does.
  for (SchedulerSlot& s : schedulers_) {
    s.instant = options_.model.watch_delay.is_zero() && s.informer_delay == Duration();
    s.idle = s.instant && s.model->idle_without_own_pods() &&
             std::none_of(workload_.templates.begin(), workload_.templates.end(),
                          [&](const PodTemplate& t) { return s.model->serves(t.scheduler_name); });
  }
  // The distribution's own pods (ModelConfig::addon_pods) exist before the workload arrives.
  for (const AddonPod& addon : options_.model.addon_pods) {
    PodTemplate t;
    Container c;
    c.name = addon.name;
    c.requests[kCpu] = addon.cpu_milli;
    c.requests[kMemory] = addon.memory_bytes;
    c.requested_mask = (addon.cpu_milli ? 1u << kCpu : 0u) | (addon.memory_bytes ? 1u << kMemory : 0u);
    t.containers.push_back(std::move(c));
    t.priority = addon.priority;
    Pod pod;
    pod.name = addon.name;
    pod.ns = store_.ensure_namespace(addon.ns);
    pod.spec = store_.add_template(std::move(t));
    wake_schedulers(store_.spec(pod.spec));
    pod.workload_job = kNoWorkloadJob;
    pod.run_time = Duration::max();  // a server: runs until the end
    create_pod(std::move(pod));
  }
  node_lifecycle_ = std::make_unique<NodeLifecycle>(store_, *kubelets_, options_.model.node_lifecycle,
                                                    std::move(inputs.actions), static_cast<NodeLifecycleHost&>(*this));
  node_lifecycle_->start();
  job_pods_.assign(workload_.jobs.size(), PodId());
  job_objects_.assign(workload_.jobs.size(), JobId());
  arrival_count_ = static_cast<std::uint32_t>(workload_.jobs.size());
  if (!workload_.jobs.empty()) {
    ++external_pending_;
    push(workload_.jobs[0].submit, Phase::kArrival, Arrival{0});
  }
}

void Simulation::resolve_priorities(std::vector<PodTemplate>& templates) const {
  // plugin/pkg/admission/priority/admission.go: spec.priority from the named PriorityClass,
  // or from the globalDefault class, or 0; preemptionPolicy from the class.
  for (auto& t : templates) {
    const PriorityClass* pc = nullptr;
    if (!t.priority_class_name.empty()) {
      pc = store_.find_priority_class(t.priority_class_name);
      if (!pc) throw InputError(workload_.source, 0, "no PriorityClass with name " + t.priority_class_name + " was found");
    } else {
      pc = store_.default_priority_class();
    }
    if (pc) {
      t.priority = pc->value;
      t.preemption_policy = pc->preemption_policy;
    }
  }
}

void add_controller(SimulationInputs& inputs, ControllerFactory factory) {
  factory.position = 1 + inputs.other_schedulers.size();
  inputs.controllers.push_back(std::move(factory));
}

void Simulation::add_controllers(std::vector<ControllerFactory> factories) {
  std::stable_sort(factories.begin(), factories.end(),
                   [](const ControllerFactory& a, const ControllerFactory& b) { return a.position < b.position; });
  KUBESIM_ASSERT(kFirstScheduler + schedulers_.size() + factories.size() <= 256);
  for (auto& f : factories) {
    auto port = std::make_unique<ControllerPort>();
    port->sim = this;
    port->index = static_cast<std::uint8_t>(controllers_.size());
    auto model = f.make(store_, *port, options_);
    const KindSet watches = model->watches();
    const auto subscriber = static_cast<std::uint8_t>(kFirstScheduler + schedulers_.size() + controllers_.size());
    controllers_.push_back(ControllerSlot{std::move(model), std::move(port), f.informer_delay, watches, f.position, subscriber});
  }
  last_delivery_.assign(kFirstScheduler + schedulers_.size() + controllers_.size(), SimTime::zero());
}

SchedulerFactory kube_scheduler_factory(std::function<SchedulerConfig(ResourceNames&)> build, Duration informer_delay) {
  return SchedulerFactory{
      [build = std::move(build)](ObjectStore& store, SchedulerHost& host,
                                 const SimulationOptions& options) -> std::unique_ptr<SchedulerModel> {
        const std::size_t names = store.resource_names().size();
        SchedulerConfig config = build(store.resource_names());
        KUBESIM_ASSERT(store.resource_names().size() == names);
        auto s = std::make_unique<Scheduler>(store, std::move(config), options.model.scheduler, options.seed, host);
        s->set_replay_futile(options.replay_futile_attempts);
        return s;
      },
      informer_delay};
}

bool Simulation::is_external(const Event& e) {
  if (const auto* s = std::get_if<SchedulerEvent>(&e)) return s->changes_cluster();
  return !std::holds_alternative<JobControllerEvent>(e) && !std::holds_alternative<ControllerEvent>(e);
}

void Simulation::SchedulerPort::post(SimTime at, Phase phase, SchedulerEvent event) {
  event.scheduler = index;
  if (event.changes_cluster()) ++sim->external_pending_;
  sim->push(at, phase, event);
}

std::variant<PodId, std::string> Simulation::create_client_pod(std::string name, NamespaceId ns, PodTemplateId spec) {
  Pod pod;
  pod.name = std::move(name);
  pod.ns = ns;
  pod.spec = spec;
  pod.workload_job = kNoWorkloadJob;
  pod.run_time = Duration::max();  // runs until deleted (a pause container)
  return create_pod(std::move(pod));
}

void Simulation::ControllerPort::post(SimTime at, Phase phase, TimerPayload payload) {
  // Not external: busy() / expects_change() say what a pending timer means for the end.
  sim->push(at, phase, ControllerEvent{payload, index});
}

bool Simulation::served_internally(const std::string& scheduler_name) const {
  for (const auto& s : schedulers_)
    if (s.model->serves(scheduler_name)) return true;
  return false;
}

SchedulerModel* Simulation::scheduler_serving(const std::string& scheduler_name) {
  for (auto& s : schedulers_)
    if (s.model->serves(scheduler_name)) return s.model.get();
  return nullptr;
}

std::uint64_t Simulation::scheduling_attempts() const {
  std::uint64_t n = 0;
  for (const auto& s : schedulers_) n += s.model->attempts();
  for (const auto& c : controllers_) n += c.model->attempts();
  return n;
}

void Simulation::push(SimTime at, Phase phase, Event event) {
  flush_kubelet_run();
  events_.push(at, phase, std::move(event));
}

void Simulation::post(SimTime at, Phase phase, KubeletEvent event) {
  ++external_pending_;
  if (staged_.count != 0 && staged_at_ == at && staged_phase_ == phase && staged_.first.kind == event.kind &&
      event.pod.value() == staged_.first.pod.value() + staged_.count) {
    ++staged_.count;
    return;
  }
  flush_kubelet_run();
  staged_ = KubeletRun{event, 1};
  staged_at_ = at;
  staged_phase_ = phase;
}

void Simulation::flush_kubelet_run() {
  if (staged_.count == 0) return;
  if (staged_.count == 1) {
    events_.push(staged_at_, staged_phase_, staged_.first);
  } else {
    events_.push(staged_at_, staged_phase_, staged_);
  }
  staged_.count = 0;
}

void Simulation::post(SimTime at, Phase phase, JobControllerEvent event) {
  // Not external: a Job sync that fails (quota) is retried forever; see run().
  ++job_events_pending_;
  push(at, phase, event);
}

void Simulation::post(SimTime at, Phase phase, NodeLifecycleEvent event) {
  ++external_pending_;
  push(at, phase, event);
}

void Simulation::post(SimTime at, Phase phase, PodGcEvent event) {
  ++external_pending_;
  push(at, phase, event);
}

void Simulation::deliver(std::uint8_t to, const Change& change, Duration extra_delay) {
  // A watch stream delivers in order: each delivery is at or after the previous one.
  SimTime at = now_ + options_.model.watch_delay.sample(watch_rng_) + extra_delay;
  SimTime& last = last_delivery_[to];
  if (at < last) at = last;
  last = at;
  ++external_pending_;
  push(at, Phase::kInformer, Delivery{to, change});
}

void Simulation::deliver_to_schedulers(const Change& change) {
  std::size_t c = 0;  // the next controller (by position)
  for (std::size_t i = 0; i < schedulers_.size(); ++i) {
    for (; c < controllers_.size() && controllers_[c].position <= i; ++c) deliver_to_controller(controllers_[c], change);
    const SchedulerSlot& s = schedulers_[i];
    // A pod change the scheduler would ignore, due now: skipped (its turn still counts).
    if (s.instant && change.kind == ObjectKind::kPod &&
        (s.idle || !s.model->wants_pod_change(change, store_.pod(PodId(change.id))))) {
      skip_delivery();
      continue;
    }
    deliver(static_cast<std::uint8_t>(kFirstScheduler + i), change, s.informer_delay);
  }
  for (; c < controllers_.size(); ++c) deliver_to_controller(controllers_[c], change);
}

void Simulation::deliver_to_controller(const ControllerSlot& c, const Change& change) {
  if (c.watches.contains(change.kind)) deliver(c.subscriber, change, c.informer_delay);
}

void Simulation::deliver_to_controllers(const Change& change) {
  for (const ControllerSlot& c : controllers_) deliver_to_controller(c, change);
}

void Simulation::skip_delivery() {
  flush_kubelet_run();  // posted before the skipped delivery: it orders first
  ++skipped_pending_;
  skipped_order_ = events_.next_order(Phase::kInformer);
}

std::uint64_t Simulation::guard_limit() const {
  // Scaled with the model: one instant of a valid run can hold an event per pod and per node
  // for every observer (a million nodes announced to two schedulers: two million deliveries).
  return options_.no_progress_event_limit != 0 ? options_.no_progress_event_limit
                                               : 1'000'000 + 16 * (store_.pod_count() + store_.node_count());
}

void Simulation::guard_progress(const Event* e, std::uint64_t events) {
  if (now_ != guard_instant_) {
    guard_instant_ = now_;
    guard_events_ = 0;
    guard_pods_.clear();
  }
  const std::uint64_t limit = guard_limit();
  guard_events_ += events;
  if (guard_events_ + 4096 <= limit) return;
  PodId pod;
  if (const auto* s = e ? std::get_if<SchedulerEvent>(e) : nullptr) pod = s->pod;
  if (const auto* d = e ? std::get_if<Delivery>(e) : nullptr;
      d && d->to >= kFirstScheduler && d->change.kind == ObjectKind::kPod)
    pod = PodId(d->change.id);
  if (pod.valid() && pod.value() < store_.pod_count()) {
    auto it = std::find_if(guard_pods_.begin(), guard_pods_.end(), [&](const auto& p) { return p.first == pod; });
    if (it != guard_pods_.end()) {
      ++it->second;
    } else if (guard_pods_.size() < 64) {
      guard_pods_.emplace_back(pod, 1);
    }
  }
  if (guard_events_ > limit) fail_no_progress();
}

void Simulation::fail_no_progress() const {
  // The pods the last events concerned, most often first, and their schedulers.
  auto pods = guard_pods_;
  std::stable_sort(pods.begin(), pods.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> schedulers;
  std::string names;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const Pod& p = store_.pod(pods[i].first);
    const std::string& sched = store_.spec(p.spec).scheduler_name;
    if (std::find(schedulers.begin(), schedulers.end(), sched) == schedulers.end()) schedulers.push_back(sched);
    if (i < 5) names += (i ? ", " : "") + store_.namespace_(p.ns).name + "/" + p.name;
  }
  if (pods.size() > 5) names += " and " + std::to_string(pods.size() - 5) + " more";
  std::string who;
  for (const auto& s : schedulers) who += (who.empty() ? "\"" : ", \"") + s + "\"";
  char when[64];
  std::snprintf(when, sizeof when, "%.6f", now_.to_seconds());
  throw NoProgressError(
      "no progress at simulated time " + std::string(when) + " s: " + std::to_string(guard_events_) +
      " events without a pod created, bound, started, ended or deleted, or a node or Job changed (a loop that time "
      "cannot end)" +
      (pods.empty() ? std::string(", no pod involved")
                    : "; scheduler(s) " + who + " keep handling pod(s) " + names));
}

void Simulation::on_change(const Change& change) {
  // Progress for the guard: anything but a status update of a pod whose phase, node and
  // deletion did not change (the schedulers' failure messages).
  if (change.kind != ObjectKind::kPod || change.type != ChangeType::kModified || change.node != change.old_node ||
      change.phase != change.old_phase || change.became_terminating) {
    guard_events_ = 0;
    guard_pods_.clear();
  }
  switch (change.kind) {
    case ObjectKind::kNamespace:
    case ObjectKind::kQuota:
    default: deliver_to_controllers(change); return;  // registered kinds: only their watchers
    case ObjectKind::kJob:  // no scheduler model watches Jobs (Kueue is a controller)
      deliver(Subscriber::kJobController, change);
      deliver_to_controllers(change);
      return;
    case ObjectKind::kNode:
      if (change.type == ChangeType::kAdded) kubelets_->on_node_added(NodeId(change.id));
      deliver_to_schedulers(change);
      return;
    case ObjectKind::kPod: {
      // The pod stops counting for its quota: it became terminal, or was removed.
      const bool ended = change.type == ChangeType::kDeleted ||
                         (is_terminal(change.phase) && !is_terminal(change.old_phase));
      const Pod& p = store_.pod(PodId(change.id));
      if (is_terminal(change.phase) && !is_terminal(change.old_phase) && p.workload_job != kNoWorkloadJob)
        ++finished_pods_;
      deliver_to_schedulers(change);
      if (change.node.valid() &&
          (!change.old_node.valid() || change.type == ChangeType::kAdded || change.became_terminating))
        deliver(Subscriber::kKubelet, change);
      if (p.job.valid()) deliver(Subscriber::kJobController, change);
      if (ended && !store_.quotas_in(p.ns).empty())
        deliver(Subscriber::kQuotaController, change);
      return;
    }
  }
}

void Simulation::draw_container(Pod& pod, const WorkloadJob& job) {
  pod.run_time = job.run_time;
  pod.active_deadline = job.walltime;
  pod.exit_code = job.exit_code;
  if (job.failure.probability > 0 && failure_rng_.uniform01() < job.failure.probability) {
    pod.exit_code = job.failure.exit_code;
    if (job.failure.after) pod.run_time = *job.failure.after;
  }
}

std::variant<PodId, std::string> Simulation::create_pod(Pod pod) {
  if (store_.pod_count() >= options_.max_pods) {
    pod_limit_reached_ = true;
    return "exceeded the simulation's pod limit of " + std::to_string(options_.max_pods) + " pods (--max-pods)";
  }
  pod.created = now_;
  for (const auto& s : schedulers_)
    if (std::string refused = s.model->admit_pod_on_create(pod); !refused.empty()) return refused;
  for (const auto& c : controllers_)
    if (std::string refused = c.model->admit_pod_on_create(pod); !refused.empty()) return refused;
  if (auto refused = quota_.admit(pod.ns, pod.name, store_.spec(pod.spec))) return std::move(*refused);
  const PodId id = store_.create_pod(std::move(pod));
  quota_.charged(id);
  return id;
}

std::variant<PodId, std::string> Simulation::create_job_pod(JobId job_id, const std::string& name,
                                                          std::int32_t completion_index) {
  const Job& job = store_.job(job_id);
  Pod pod;
  pod.name = name;
  pod.completion_index = completion_index;
  pod.ns = job.ns;
  pod.spec = job.spec;
  pod.job = job_id;
  pod.workload_job = job.workload_job;
  const WorkloadJob& wj = workload_.jobs[job.workload_job];
  draw_container(pod, wj);
  // A rigid parallel job run as an Indexed Job (the kueue setup): its completion index is the rank.
  if (wj.machines > 0 && completion_index >= 0) make_rank(pod, wj, static_cast<std::uint32_t>(completion_index));
  auto created = create_pod(std::move(pod));
  if (const PodId* id = std::get_if<PodId>(&created)) {
    job_pods_[job.workload_job] = *id;
    if (pods_of_job_.size() <= job_id.value()) pods_of_job_.resize(job_id.value() + 1);
    pods_of_job_[job_id.value()].push_back(*id);
  }
  return created;
}

void Simulation::make_rank(Pod& pod, const WorkloadJob& wj, std::uint32_t rank) {
  pod.machines = wj.machines;
  pod.machine_rank = rank;
  // Batsim's do_delay_task (jobs_execution.cpp): a delay that reaches the walltime
  // ("sleeptime < remaining_time" fails) is killed at the walltime, even when equal; the
  // container here outlives its deadline by 1 us so the kubelet's deadline kill comes first.
  if (pod.active_deadline > Duration() && pod.run_time >= pod.active_deadline)
    pod.run_time = pod.active_deadline + Duration::micros(1);
}

void Simulation::submit(std::uint32_t job_index) {
  const WorkloadJob& wj = workload_.jobs[job_index];
  const std::string name = !wj.name.empty() ? wj.name : workload_.name + "-" + wj.id;  // Batkube: w0-<job id>
  const PodTemplateId spec(template_base_ + wj.pod_template);
  if (wj.as_job) {
    Job job;
    job.name = name;
    job.ns = wj.ns;
    job.spec = spec;
    job.parallelism = wj.parallelism;
    job.completions = wj.completions;
    job.backoff_limit = wj.backoff_limit;
    job.labels = wj.job_labels;
    job.suspend = wj.suspend;
    job.indexed = wj.indexed;
    job.created = now_;
    job.workload_job = job_index;
    job_objects_[job_index] = store_.create_job(std::move(job));
    return;
  }
  if (wj.machines > 0) {
    // Batsim's rigid parallel job: one pod per machine, "<name>-<rank>" when there are
    // several; job_pods_ holds the first, the others follow it in PodId order.
    for (std::uint32_t rank = 0; rank < wj.machines; ++rank) {
      Pod pod;
      pod.name = wj.machines == 1 ? name : name + "-" + std::to_string(rank);
      pod.ns = wj.ns;
      pod.spec = spec;
      pod.workload_job = job_index;
      draw_container(pod, wj);
      make_rank(pod, wj, rank);
      auto created = create_pod(std::move(pod));
      if (const PodId* id = std::get_if<PodId>(&created)) {
        if (rank == 0) job_pods_[job_index] = *id;
        KUBESIM_ASSERT(id->value() == job_pods_[job_index].value() + rank);
      } else {
        rejected_pods_.emplace_back(job_index, std::get<std::string>(created));
        break;
      }
    }
    return;
  }
  Pod pod;
  pod.name = name;
  pod.ns = wj.ns;
  pod.spec = spec;
  pod.workload_job = job_index;
  draw_container(pod, wj);
  auto created = create_pod(std::move(pod));
  if (const PodId* id = std::get_if<PodId>(&created)) {
    job_pods_[job_index] = *id;
  } else {
    rejected_pods_.emplace_back(job_index, std::get<std::string>(created));
  }
}

std::size_t Simulation::pending_pods() const {
  if (finished_pods_ == store_.pod_count()) return 0;  // every pod ended: no pass over them
  std::size_t n = 0;
  for (std::size_t i = 0; i < store_.pod_count(); ++i) {
    const Pod& p = store_.pod(PodId(static_cast<std::uint32_t>(i)));
    if (p.phase == PodPhase::kPending && !p.node.valid() && !p.deleted) ++n;
  }
  return n;
}

Simulation::StuckJobs Simulation::stuck_parallel_jobs() const {
  struct Count {
    std::uint32_t machines = 0;
    std::size_t bound = 0;    // bound, not terminal
    std::size_t pending = 0;  // not bound, not deleted
    PodId first;
  };
  if (finished_pods_ == store_.pod_count()) return {};  // every pod ended: none is waiting
  std::vector<Count> by_job;
  for (std::size_t i = 0; i < store_.pod_count(); ++i) {
    const PodId id(static_cast<std::uint32_t>(i));
    const Pod& p = store_.pod(id);
    if (p.machines <= 1 || p.workload_job == kNoWorkloadJob || p.deleted || is_terminal(p.phase)) continue;
    if (by_job.size() <= p.workload_job) by_job.resize(p.workload_job + 1);
    Count& c = by_job[p.workload_job];
    c.machines = p.machines;
    if (!c.first.valid()) c.first = id;
    if (p.node.valid()) {
      ++c.bound;
    } else {
      ++c.pending;
    }
  }
  StuckJobs out;
  for (const Count& c : by_job) {
    // Bound ranks still running at the end are waiting: ranks that all ran would have ended.
    if (c.bound == 0 || c.bound == c.machines) continue;
    ++out.jobs;
    out.waiting_pods += c.bound;
    out.pending_pods += c.pending;
    if (out.example.empty()) {
      const std::string& name = store_.pod(c.first).name;
      out.example = name.substr(0, name.rfind('-')) + ": " + std::to_string(c.bound) + " of " +
                    std::to_string(c.machines) + " ranks placed";
    }
  }
  return out;
}

Simulation::Stop Simulation::stop_reason() {
  // When nothing external is pending, the cluster is frozen: only the scheduler's retries of
  // unschedulable pods and the Job controller's retries (Jobs whose pods the quota refuses)
  // remain. Without Job retries the run is over once the scheduler is idle (retrying in a
  // frozen cluster fails identically forever). A Job retry can succeed only if usage was
  // freed before the freeze, and every retry queued then fires within the largest back-off;
  // if the store did not change by then, it never will.
  if (!has_next_event()) return Stop::kDone;
  if (external_pending_ != 0 || skipped_pending_ != 0) {
    frozen_since_ = SimTime::never();
    return Stop::kNo;
  }
  // A busy scheduler's timers (back-off, Permit waits) retry within its retry_window.
  bool busy = false;
  Duration max_retry = std::max({options_.model.job_controller.api_backoff_max,
                                 options_.model.job_controller.pod_failure_backoff_max,
                                 options_.model.job_controller.pod_update_batch});
  const auto busy_or_changing = [&](const auto& model) {
    if (model.expects_change()) return true;  // its timer will change the cluster, or may
    if (model.busy()) {
      busy = true;
      max_retry = std::max(max_retry, model.retry_window());
    }
    return false;
  };
  const bool changing =
      std::any_of(schedulers_.begin(), schedulers_.end(), [&](const auto& s) { return busy_or_changing(*s.model); }) ||
      std::any_of(controllers_.begin(), controllers_.end(), [&](const auto& c) { return busy_or_changing(*c.model); });
  if (changing) {
    frozen_since_ = SimTime::never();
    return Stop::kNo;
  }
  if (!busy && job_events_pending_ == 0) return Stop::kDone;
  if (frozen_since_.is_never() || store_.resource_version() != frozen_version_) {
    frozen_since_ = now_;
    frozen_version_ = store_.resource_version();
  }
  return events_.top().time > frozen_since_ + max_retry ? Stop::kFrozen : Stop::kNo;
}

void Simulation::run(const std::function<void(double)>& progress) {
  const double total_jobs = static_cast<double>(workload_.jobs.size());
  for (;;) {
    const Stop stop = stop_reason();
    if (stop == Stop::kFrozen) now_ = frozen_since_;  // the run ended when the cluster froze
    if (stop != Stop::kNo || next_event_time() > options_.until) break;
    if (deadlocked()) {
      deadlock_ = true;
      break;
    }
    process_next();
    // Every 256 events: often enough for a terminal's progress line when events are slow (a
    // cycle over a million nodes), rare enough to cost nothing. What progress does never
    // feeds back into the run.
    if (progress && (events_processed_ & 0xff) == 0)
      progress(total_jobs > 0 ? static_cast<double>(finished_pods_) / total_jobs : 0.0);
  }
  if (progress) progress(1.0);
}

bool Simulation::has_work() { return stop_reason() == Stop::kNo; }

// Nothing can change any more: the only external event pending is the next arrival, no Job
// sync or controller timer is due, every scheduler is stuck (its pods failed in the cluster
// as it is) and every job still to arrive would fail too. O(1) on most calls: the first test
// fails while anything external is pending.
bool Simulation::deadlocked() {
  if (!options_.end_on_deadlock || external_pending_ != (arrivals_done() ? 0u : 1u) || skipped_pending_ != 0 ||
      job_events_pending_ != 0 || staged_.count != 0)
    return false;
  for (const auto& c : controllers_)
    if (c.model->busy() || c.model->expects_change()) return false;
  for (const auto& s : schedulers_)
    if (!s.model->stuck()) return false;
  return future_arrivals_fail();
}

bool Simulation::future_arrivals_fail() {
  std::uint64_t gen = 0;
  for (const auto& s : schedulers_) gen += s.model->cluster_generation();
  if (gen == arrivals_checked_gen_ && arrivals_fit_from_ >= arrivals_submitted_) return arrivals_fit_from_ == arrival_count_;
  arrivals_checked_gen_ = gen;
  arrivals_fit_from_ = arrival_count_;
  for (std::uint32_t j = arrivals_submitted_; j < arrival_count_; ++j) {
    const PodTemplateId spec(template_base_ + workload_.jobs[j].pod_template);
    SchedulerModel* s = scheduler_serving(store_.spec(spec).scheduler_name);
    if (s != nullptr && !s->would_fail(spec)) {  // served by none: it stays pending
      arrivals_fit_from_ = j;
      return false;
    }
  }
  return true;
}

void Simulation::advance_to(SimTime t) {
  while (has_next_event() && next_event_time() <= t) process_next();
  if (t > now_) now_ = t;
}

void Simulation::advance_clock_to(SimTime t) {
  while (has_next_event() && next_event_time() < t) process_next();
  if (t > now_) now_ = t;
}

void Simulation::process_next() {
  flush_kubelet_run();  // none staged but by a handler, which pushed it when it ended
  if (skipped_pending_ != 0 &&
      (events_.empty() || events_.top().time > now_ || events_.top().order >= skipped_order_)) {
    // The skipped deliveries' turn: as events they would have changed nothing but counts.
    events_processed_ += skipped_pending_;
    guard_progress(nullptr, skipped_pending_);
    skipped_pending_ = 0;
    return;
  }
  auto entry = events_.pop();
  ++queue_entries_processed_;
  if (const auto* run = std::get_if<KubeletRun>(&entry.payload)) {
    // Item by item, as the separate events it stands for: nothing an item posts can run
    // before the next item (see KubeletRun).
    for (std::uint32_t i = 0; i < run->count; ++i) {
      const KubeletEvent e{run->first.kind, PodId(run->first.pod.value() + i)};
      --external_pending_;
      if (kubelets_->is_stale(e)) continue;
      now_ = entry.time;
      ++events_processed_;
      guard_progress(nullptr);
      kubelets_->on_event(e, now_);
    }
    flush_kubelet_run();
    return;
  }
  if (const auto* k = std::get_if<KubeletEvent>(&entry.payload); k && kubelets_->is_stale(*k)) {
    --external_pending_;
    return;
  }
  now_ = entry.time;
  ++events_processed_;
  guard_progress(&entry.payload);
  if (is_external(entry.payload)) --external_pending_;
  if (std::holds_alternative<JobControllerEvent>(entry.payload)) --job_events_pending_;
  std::visit(
      [&](auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, Arrival>) {
          submit(e.job);
          const std::uint32_t next = e.job + 1;
          arrivals_submitted_ = next;
          if (next < arrival_count_) {
            ++external_pending_;
            push(workload_.jobs[next].submit, Phase::kArrival, Arrival{next});
          }
        } else if constexpr (std::is_same_v<T, Delivery>) {
          on_delivery(e);
        } else if constexpr (std::is_same_v<T, ControllerEvent>) {
          controllers_[e.controller].model->on_timer(e.payload, now_);
        } else if constexpr (std::is_same_v<T, KubeletEvent>) {
          kubelets_->on_event(e, now_);
        } else if constexpr (std::is_same_v<T, KubeletRun>) {
          // handled above
        } else if constexpr (std::is_same_v<T, SchedulerEvent>) {
          schedulers_[e.scheduler].model->on_event(e, now_);
        } else if constexpr (std::is_same_v<T, JobControllerEvent>) {
          job_controller_->on_event(e, now_);
        } else if constexpr (std::is_same_v<T, NodeLifecycleEvent>) {
          node_lifecycle_->on_event(e, now_);
        } else {
          pod_gc_.on_event(e, now_);
        }
      },
      entry.payload);
  flush_kubelet_run();
}

void Simulation::on_delivery(const Delivery& e) {
  switch (e.to) {
    case Subscriber::kKubelet: kubelets_->on_pod_change(e.change, now_); break;
    default: {
      const std::size_t i = e.to - kFirstScheduler;
      if (i >= schedulers_.size()) {
        controllers_[i - schedulers_.size()].model->on_change(e.change, now_);
        break;
      }
      SchedulerModel& sched = *schedulers_[i].model;
      if (e.change.kind == ObjectKind::kNode) {
        sched.on_node_change(e.change, now_);
      } else {
        sched.on_pod_change(e.change, now_);
      }
      break;
    }
    case Subscriber::kJobController:
      if (e.change.kind == ObjectKind::kJob) {
        job_controller_->on_job_change(e.change, now_);
      } else {
        job_controller_->on_pod_change(e.change, now_);
      }
      break;
    case Subscriber::kQuotaController: quota_.on_pod_change(e.change); break;
  }
}

NamespaceId Simulation::ensure_namespace(const std::string& name) {
  const NamespaceId id = store_.ensure_namespace(name);
  if (id.value() >= workload_.namespaces.size()) workload_.namespaces.push_back(name);
  return id;
}

void Simulation::delete_namespace(NamespaceId ns) {
  // pkg/controller/namespace/deletion: the namespace controller deletes every object in it.
  for (std::size_t i = 0; i < store_.job_count(); ++i) {
    const JobId job(static_cast<std::uint32_t>(i));
    if (store_.job(job).ns == ns && !store_.job(job).deleted) delete_job(job, false);
  }
  for (std::size_t i = 0; i < store_.pod_count(); ++i) {
    const PodId pod(static_cast<std::uint32_t>(i));
    const Pod& p = store_.pod(pod);
    if (p.ns == ns && !p.deleted)
      store_.delete_pod(pod, now_, Duration::seconds(store_.spec(p.spec).termination_grace_period_seconds),
                        DisruptionReason::kDeletionByUser);
  }
  store_.remove_namespace(ns);
}

std::variant<PodTemplateId, std::string> Simulation::add_api_template(PodTemplate spec) {
  std::vector<PodTemplate> one{std::move(spec)};
  try {
    resolve_priorities(one);
  } catch (const InputError& e) {
    return e.problem();
  }
  // The template joins the workload's, keeping store id = template_base_ + workload index.
  workload_.templates.push_back(one[0]);
  const PodTemplateId id = store_.add_template(std::move(one[0]));
  wake_schedulers(store_.spec(id));
  return id;
}

void Simulation::wake_schedulers(const PodTemplate& spec) {
  for (SchedulerSlot& s : schedulers_) {
    if (!s.idle || !s.model->serves(spec.scheduler_name)) continue;
    s.idle = false;
    // On an instant stream it would have heard of every change as it was made: what it keeps
    // of them (idle_without_own_pods) is rebuilt from the pods bound now.
    for (std::size_t i = 0; i < store_.pod_count(); ++i) {
      const Pod& p = store_.pod(PodId(static_cast<std::uint32_t>(i)));
      if (p.deleted || !p.node.valid() || is_terminal(p.phase)) continue;
      s.model->on_pod_change(Change{ObjectKind::kPod, ChangeType::kAdded, static_cast<std::uint32_t>(i), p.node,
                                    p.phase, p.phase, NodeId(), false, !p.scheduling_gates.empty()},
                             now_);
    }
  }
}

std::variant<Simulation::Created, std::string> Simulation::create_from_api(WorkloadJob job, PodTemplate spec) {
  if (job.as_job && static_cast<std::size_t>(std::max(job.completions, job.parallelism)) > options_.max_pods)
    return "spec.completions and spec.parallelism must be at most the simulation's pod limit (--max-pods " +
           std::to_string(options_.max_pods) + ")";
  auto added = add_api_template(std::move(spec));
  if (auto* refused = std::get_if<std::string>(&added)) return std::move(*refused);
  job.pod_template = static_cast<std::uint32_t>(workload_.templates.size() - 1);
  job.submit = now_;
  const auto index = static_cast<std::uint32_t>(workload_.jobs.size());
  if (job.id.empty()) job.id = workload_.namespaces[job.ns.value()] + "/" + job.name;
  workload_.jobs.push_back(std::move(job));
  job_pods_.push_back(PodId());
  job_objects_.push_back(JobId());
  const std::size_t refused_before = rejected_pods_.size();
  submit(index);
  if (rejected_pods_.size() != refused_before) {
    std::string message = std::move(rejected_pods_.back().second);
    rejected_pods_.pop_back();
    workload_.jobs.pop_back();
    job_pods_.pop_back();
    job_objects_.pop_back();
    return message;
  }
  return Created{index, job_pods_[index], job_objects_[index]};
}

std::string Simulation::binding_conflict(PodId pod) const {
  const Pod& p = store_.pod(pod);
  // pkg/registry/core/pod/storage/storage.go setPodHostAndAnnotations.
  if (p.terminating()) return "pod " + p.name + " is being deleted, cannot be assigned to a host";
  if (const std::string* missing = store_.missing_node(pod))
    return "pod " + p.name + " is already assigned to node \"" + *missing + "\"";
  if (p.node.valid()) return "pod " + p.name + " is already assigned to node \"" + store_.node(p.node).name + "\"";
  if (is_terminal(p.phase) || p.deleted) return "pod " + p.name + " has ended, cannot be assigned to a host";
  return {};
}

std::string Simulation::bind(PodId pod, NodeId node) {
  if (std::string conflict = binding_conflict(pod); !conflict.empty()) return conflict;
  client_.bind(Binding{pod, node, {}}, now_);
  return {};
}

std::string Simulation::bind_to_missing_node(PodId pod, std::string node_name) {
  if (std::string conflict = binding_conflict(pod); !conflict.empty()) return conflict;
  store_.bind_to_missing_node(pod, std::move(node_name), now_);
  pod_gc_.on_bound_to_missing_node(pod, now_);
  return {};
}

void Simulation::delete_job(JobId job, bool orphan_pods) {
  store_.remove_job(job);
  if (orphan_pods) return;
  for (const PodId pod : pods_of_job(job)) {
    const Pod& p = store_.pod(pod);
    if (!p.deleted)
      store_.delete_pod(pod, now_, Duration::seconds(store_.spec(p.spec).termination_grace_period_seconds),
                        DisruptionReason::kDeletionByUser);
  }
}

const std::vector<PodId>& Simulation::pods_of_job(JobId job) const {
  static const std::vector<PodId> kNone;
  return job.value() < pods_of_job_.size() ? pods_of_job_[job.value()] : kNone;
}

}  // namespace kubesim

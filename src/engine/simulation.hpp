// The Simulation owns all state of one run: the clock, the event queue, the object store,
// the API server's admission (priority, ResourceQuota), the controllers (Job, quota, node
// lifecycle), the kubelets, the scheduler and the workload cursor. Components reach each
// other only through the store's change feed (delivered by informers, with the watch
// delay) and through events they post. No globals: several simulations can run in one
// process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "control/cluster_actions.hpp"
#include "cluster/controller.hpp"
#include "control/job_controller.hpp"
#include "control/kubelet.hpp"
#include "control/node_lifecycle.hpp"
#include "control/pod_gc.hpp"
#include "control/resource_quota.hpp"
#include "core/event_queue.hpp"
#include "engine/model_config.hpp"
#include "model/object_store.hpp"
#include "sched/cluster_client.hpp"
#include "sched/kube/scheduler.hpp"
#include "workload/workload.hpp"

namespace kubesim {

struct SimulationOptions {
  std::uint64_t seed = 1;
  ModelConfig model = ModelConfig::realistic();
  SimTime until = SimTime::never();  // stop processing events after this simulated time
  // Pods the store may hold (every pod ever created, finished ones included): a Job asking
  // for more completions is refused when created, any creation beyond it is refused like a
  // quota refusal, and the run reports the limit (pod_limit_reached). Real clusters have no
  // such limit short of etcd's size; it keeps a Job with completions 2^31-1 from eating the
  // machine's memory. 10,000,000 is far above every shipped trace and benchmark (1,000,000
  // Jobs) and a few GB of pods.
  std::size_t max_pods = 10'000'000;
  // The progress guard: a run that processes more than this many events at one simulated
  // instant with no progress (no pod created, bound, started, ended or deleted, no node or
  // Job changed) is caught in a loop that time cannot end, and stops with NoProgressError.
  // 0: 1,000,000 plus 16 per pod and per node in the store (far above what a real instant takes: a
  // scheduling attempt of each pending pod is a few events).
  std::uint64_t no_progress_event_limit = 0;
  // Futile work (issue 30): kube-scheduler's attempts that cannot succeed replay their last
  // failure (sched/kube/futile_retry.cpp), and run() ends at a deadlock (deadlocked()). Both
  // on; off only to prove that the replay changes no output.
  bool replay_futile_attempts = true;
  bool end_on_deadlock = true;
};

// What the progress guard throws (SimulationOptions::no_progress_event_limit); the message
// names the instant, the schedulers (by the schedulerName of their pods) and the pods
// the loop keeps handling.
class NoProgressError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The ready-to-run inputs. Workload templates and nodes use the slots of `resource_names`.
// A scheduler besides kube-scheduler (SimulationInputs::scheduler): built once the store
// exists, with the run's options (seed, latency model). `informer_delay` is added to the watch
// delay of its informer stream: how much staler than the store its view is (its cache delay).
struct SchedulerFactory {
  std::function<std::unique_ptr<SchedulerModel>(ObjectStore& store, SchedulerHost& host, const SimulationOptions& options)>
      make;
  Duration informer_delay;
};

// Another kube-scheduler deployment beside scheduler 0 (as scheduler-plugins' chart installs
// its scheduler as a second Deployment): its own queue, cache and profiles. `build` makes its
// configuration; it is called again on the store's resource names when the Simulation is
// built, so it must not register names the first call did not.
SchedulerFactory kube_scheduler_factory(std::function<SchedulerConfig(ResourceNames&)> build, Duration informer_delay);

// A controller (cluster/controller.hpp), built once the store exists with the run's options.
// `informer_delay` is added to the watch delay of its informer stream. `position`: its
// deliveries of a change come right before those of scheduler `position` (after those of
// schedulers 0 .. position-1; the last scheduler's index + 1: after every scheduler), so a
// controller that was a scheduler model keeps its place in the order of deliveries and of
// the watch delay's draws. add_controller() puts it after the schedulers added so far.
struct ControllerFactory {
  std::function<std::unique_ptr<Controller>(ObjectStore& store, ControllerHost& host, const SimulationOptions& options)>
      make;
  Duration informer_delay;
  std::size_t position = 0;
};

struct SimulationInputs {
  ResourceNames resource_names;
  std::vector<Node> nodes;
  Workload workload;  // its namespaces are created in order (NamespaceId = index)
  SchedulerConfig scheduler;  // kube-scheduler's profiles (scheduler 0; no profiles: it serves nobody)
  Duration scheduler_informer_delay;  // scheduler 0's cache delay (SchedulerFactory::informer_delay)
  std::vector<SchedulerFactory> other_schedulers;  // schedulers 1, 2, ...
  std::vector<PriorityClass> priority_classes;
  std::vector<ResourceQuota> quotas;  // ns indexes workload.namespaces
  std::vector<PodDisruptionBudget> pod_disruption_budgets;  // ns indexes workload.namespaces
  std::vector<ClusterAction> actions;  // sorted by time
  std::vector<ControllerFactory> controllers;  // built in this order, after the schedulers
  // Run on the store once the namespaces exist, before any controller is built: kind
  // registrations (ObjectStore::register_kind) and the objects of those kinds the cluster
  // starts with.
  std::vector<std::function<void(ObjectStore&)>> install_objects;
};

// Appends `factory` to inputs.controllers, delivered after the schedulers added so far
// (kube-scheduler and inputs.other_schedulers): sets ControllerFactory::position.
void add_controller(SimulationInputs& inputs, ControllerFactory factory);

class Simulation final : public ChangeListener,
                         private KubeletHost,
                         private JobControllerHost,
                         private NodeLifecycleHost,
                         private PodGcHost {
 public:
  Simulation(SimulationInputs inputs, SimulationOptions options);

  // Runs until nothing can change any more (every pod finished, or the pending pods can
  // never fit, or the Jobs left can never pass their quota), or until options.until. `progress` (optional) is called now and then with
  // the fraction of workload jobs that have finished.
  void run(const std::function<void(double)>& progress = {});

  SimTime now() const { return now_; }
  const ObjectStore& store() const { return store_; }
  ObjectStore& store() { return store_; }
  const Workload& workload() const { return workload_; }
  // Workload job index -> its pod (for Jobs: the latest pod the controller created).
  const std::vector<PodId>& job_pods() const { return job_pods_; }
  // Workload job index -> its batch/v1 Job (invalid for bare pods and before submission).
  const std::vector<JobId>& job_objects() const { return job_objects_; }
  const JobController& job_controller() const { return *job_controller_; }
  // Bare pods whose creation admission refused (e.g. ResourceQuota), with the message.
  const std::vector<std::pair<std::uint32_t, std::string>>& rejected_pods() const { return rejected_pods_; }
  // kube-scheduler (scheduler 0).
  const Scheduler& scheduler() const { return *kube_scheduler_; }
  Scheduler& scheduler() { return *kube_scheduler_; }
  // Whether some scheduler of the simulation serves this schedulerName (else pods wait for
  // an external one).
  bool served_internally(const std::string& scheduler_name) const;
  // The first scheduler that serves this schedulerName (null: none), for a workload that
  // talks to its scheduler's own objects (the BSP job creates its PodGroup).
  SchedulerModel* scheduler_serving(const std::string& scheduler_name);
  // Every scheduler in order ([0] kube-scheduler), e.g. to find a controller that serves no
  // schedulerName (Kueue).
  std::size_t scheduler_count() const { return schedulers_.size(); }
  SchedulerModel& scheduler_model(std::size_t i) { return *schedulers_[i].model; }
  // The controllers of SimulationInputs::controllers, in that order.
  std::size_t controller_count() const { return controllers_.size(); }
  Controller& controller(std::size_t i) { return *controllers_[i].model; }
  // The first controller of type T, or null.
  template <class T>
  const T* find_controller() const {
    for (const auto& c : controllers_)
      if (const auto* t = dynamic_cast<const T*>(c.model.get())) return t;
    return nullptr;
  }
  // Scheduling attempts of all schedulers (and the controllers' own, Controller::attempts).
  std::uint64_t scheduling_attempts() const;
  // Events handled (the skipped deliveries and each event of a kubelet run included), and the
  // queue entries popped for them: what the run cost in queue operations.
  std::uint64_t events_processed() const { return events_processed_; }
  std::uint64_t queue_entries_processed() const { return queue_entries_processed_; }
  std::size_t finished_pods() const { return finished_pods_; }
  // A pod creation was refused because the store held SimulationOptions::max_pods pods.
  bool pod_limit_reached() const { return pod_limit_reached_; }
  // Pods that are still pending when the run ended.
  std::size_t pending_pods() const;
  // Rigid parallel jobs (Pod::machines > 1) stuck when the run ended: some of their ranks
  // bound and not finished (running and waiting for the others, control/kubelet.hpp), while
  // the job never had all its ranks running. A scan of the pods, for the end of a run.
  struct StuckJobs {
    std::size_t jobs = 0;
    std::size_t waiting_pods = 0;  // their ranks bound and not finished (holding nodes)
    std::size_t pending_pods = 0;  // their ranks not bound
    std::string example;           // "<job>: <bound> of <P> ranks placed", the first such job
  };
  StuckJobs stuck_parallel_jobs() const;
  // run() ended at a deadlock (SimulationOptions::end_on_deadlock): every pending pod failed
  // in the cluster as it is, nothing running will end, no timer or controller will change it,
  // and no job still to arrive would fit. The run's outputs are those at that instant.
  bool ended_in_deadlock() const { return deadlock_; }
  // Jobs of the workload not yet submitted (arrivals still to come when the run ended).
  std::size_t unsubmitted_jobs() const { return arrival_count_ - arrivals_submitted_; }
  void add_listener(ChangeListener* listener) { store_.add_listener(listener); }

  // ---- Stepping, for a clock that is not the simulation's own (kubesim serve) ----
  // Processes every event due at or before `t`, then moves the clock to `t` (never back).
  void advance_to(SimTime t);
  // Moves the clock to t running only the events due before t: those at t wait for the
  // next advance_to (cosim lets a shimmed scheduler's timers at t fire first, clock.hpp).
  void advance_clock_to(SimTime t);
  // When the next event is due; never when none is pending.
  SimTime next_event_time() const {
    if (skipped_pending_ != 0) return now_;
    const SimTime queued = events_.empty() ? SimTime::never() : events_.top().time;
    return staged_.count != 0 && staged_at_ < queued ? staged_at_ : queued;
  }
  // Whether anything pending can still change the cluster: false once run() would end
  // (nothing external pending and the scheduler and Job controller only retrying in a
  // frozen cluster).
  bool has_work();
  // Whether every job of the input workload has been submitted.
  bool arrivals_done() const { return arrivals_submitted_ == arrival_count_; }

  // ---- The API server's writes from clients (kubesim serve) ----
  // Each acts at now() as the matching request to kube-apiserver would.
  NamespaceId ensure_namespace(const std::string& name);
  // DELETE namespace: removes it and deletes its Jobs (their pods with them) and pods.
  void delete_namespace(NamespaceId ns);
  // POST of a Pod or a Job: `job` carries the name, namespace, run behaviour and Job spec
  // (as_job); `spec` the pod template. Applies priority admission and, for pods,
  // ResourceQuota admission; a refusal returns the Forbidden message and creates nothing.
  // The object is appended to the workload (so it appears in the outputs) with submit = now.
  struct Created {
    std::uint32_t workload_job = 0;
    PodId pod;  // bare pods
    JobId job;  // Jobs
  };
  std::variant<Created, std::string> create_from_api(WorkloadJob job, PodTemplate spec);
  // POST pods/binding (pkg/registry/core/pod/storage/storage.go assignPod): sets
  // spec.nodeName and PodScheduled=True. Returns the Conflict message when the pod is
  // already bound or being deleted, empty on success.
  std::string bind(PodId pod, NodeId node);
  // POST pods/binding to a node name that no node has: accepted as kube-apiserver does
  // (ObjectStore::bind_to_missing_node); the pod garbage collector deletes the pod later
  // (control/pod_gc.hpp). Same conflicts as bind().
  std::string bind_to_missing_node(PodId pod, std::string node_name);
  // DELETE of a Job with propagationPolicy Background/Foreground (the garbage collector
  // deletes its pods with their own grace period) or Orphan (its pods stay).
  void delete_job(JobId job, bool orphan_pods);
  // The pods a Job created, in creation order.
  const std::vector<PodId>& pods_of_job(JobId job) const;

  void on_change(const Change& change) override;

 private:
  struct Arrival {
    std::uint32_t job;
  };
  // Informer streams: these three, then one per scheduler (kFirstScheduler + index), then
  // one per controller (kFirstScheduler + scheduler count + index).
  enum Subscriber : std::uint8_t { kKubelet, kJobController, kQuotaController, kFirstScheduler };
  struct Delivery {
    std::uint8_t to;
    Change change;
  };
  // What a scheduler's and a controller's host share: the API client (the writes and the
  // pod CREATE, cluster/api_client.hpp), one implementation for both.
  template <class Host>
  struct ApiClientPort : Host {
    Simulation* sim = nullptr;
    std::uint8_t index = 0;
    ClusterClient& client() override { return sim->client_; }
    std::variant<PodTemplateId, std::string> add_pod_template(PodTemplate spec) override {
      return sim->add_api_template(std::move(spec));
    }
    std::variant<PodId, std::string> create_pod(std::string name, NamespaceId ns, PodTemplateId spec) override {
      return sim->create_client_pod(std::move(name), ns, spec);
    }
  };
  // A scheduler's host: stamps its index on the events it posts.
  struct SchedulerPort final : ApiClientPort<SchedulerHost> {
    void post(SimTime at, Phase phase, SchedulerEvent event) override;
  };
  // A controller's host: stamps its index on the timers it posts.
  struct ControllerPort final : ApiClientPort<ControllerHost> {
    void post(SimTime at, Phase phase, TimerPayload payload) override;
  };
  struct ControllerSlot {
    std::unique_ptr<Controller> model;
    std::unique_ptr<ControllerPort> port;
    Duration informer_delay;
    KindSet watches;
    std::size_t position;     // ControllerFactory::position
    std::uint8_t subscriber;  // its informer stream
  };
  struct SchedulerSlot {
    std::unique_ptr<SchedulerModel> model;
    std::unique_ptr<SchedulerPort> port;
    Duration informer_delay;
    // Its informer stream delivers at the instant of the change (no watch delay, no cache
    // delay): a delivery it would ignore can be skipped (deliver_to_schedulers).
    bool instant = false;
    // No pod template has a schedulerName it serves and it keeps nothing else of pods but
    // what a replay rebuilds (SchedulerModel::idle_without_own_pods): no pod changes are
    // delivered to it until wake_schedulers() replays the bound pods. Only on instant streams.
    bool idle = false;
  };
  // Kubelet events of one kind posted back to back for one time and phase on consecutive pods
  // (the ranks of a rigid job ending together, and their status reports): one queue entry
  // for `count` events, handled one by one at its turn. Exact: the queue would have run them
  // one after another, since anything a kubelet event posts is of its phase or later, and so
  // after them (the kubelets post only while an event is handled: process_next pushes the
  // run it staged when it ends, and any other push first).
  struct KubeletRun {
    KubeletEvent first;
    std::uint32_t count;
  };
  using Event = std::variant<Arrival, Delivery, KubeletEvent, SchedulerEvent, JobControllerEvent, NodeLifecycleEvent,
                             PodGcEvent, KubeletRun, ControllerEvent>;
  // Every push goes through here: a staged kubelet run is pushed first.
  void push(SimTime at, Phase phase, Event event);
  void flush_kubelet_run();

  void post(SimTime at, Phase phase, KubeletEvent event) override;
  void post(SimTime at, Phase phase, JobControllerEvent event) override;
  void post(SimTime at, Phase phase, NodeLifecycleEvent event) override;
  void post(SimTime at, Phase phase, PodGcEvent event) override;
  std::variant<PodId, std::string> create_job_pod(JobId job, const std::string& name, std::int32_t completion_index) override;
  void deliver(std::uint8_t to, const Change& change, Duration extra_delay = Duration());
  // To the schedulers and, each at its position, the controllers that watch the change's kind.
  void deliver_to_schedulers(const Change& change);
  void deliver_to_controller(const ControllerSlot& c, const Change& change);
  // To the controllers that watch the kind (kinds no scheduler is told of).
  void deliver_to_controllers(const Change& change);
  void add_controllers(std::vector<ControllerFactory> factories);
  void on_delivery(const Delivery& d);
  // A delivery skipped at now_ (see skipped_pending_).
  void skip_delivery();
  // Wakes the idle schedulers that serve this new template's schedulerName.
  void wake_schedulers(const PodTemplate& spec);
  bool has_next_event() const { return skipped_pending_ != 0 || staged_.count != 0 || !events_.empty(); }
  void submit(std::uint32_t job);
  // The API server's pod CREATE: admission (ResourceQuota), then the store.
  std::variant<PodId, std::string> create_pod(Pod pod);
  // A scheduler's or controller's pod (ApiClientHost::create_pod): runs until deleted.
  std::variant<PodId, std::string> create_client_pod(std::string name, NamespaceId ns, PodTemplateId spec);
  // The container behaviour of a new pod of workload job `job`: its run time and exit code,
  // with the job's failure model drawn from the seeded stream.
  void draw_container(Pod& pod, const WorkloadJob& job);
  // Makes `pod` rank `rank` of a rigid parallel job (Pod::machines), after draw_container.
  static void make_rank(Pod& pod, const WorkloadJob& job, std::uint32_t rank);
  void resolve_priorities(std::vector<PodTemplate>& templates) const;
  // A template from the API (a client's pod or Job, a scheduler's pod): priority admission,
  // then it joins the workload's templates (keeping store id = template_base_ + index).
  std::variant<PodTemplateId, std::string> add_api_template(PodTemplate spec);
  static bool is_external(const Event& e);
  // Why a binding of this pod is refused (409), or empty.
  std::string binding_conflict(PodId pod) const;
  // Pops and handles the next event.
  void process_next();
  // The progress guard (SimulationOptions::no_progress_event_limit): counts the events of
  // the current instant since the last progress, and in the last few before the limit the
  // pods they concern.
  void guard_progress(const Event* e, std::uint64_t events = 1);
  std::uint64_t guard_limit() const;
  [[noreturn]] void fail_no_progress() const;
  enum class Stop : std::uint8_t { kNo, kDone, kFrozen };
  // run()'s end test: kDone when nothing can happen, kFrozen when only retries remain and
  // the store has not changed for the largest retry back-off (see run()).
  Stop stop_reason();
  bool deadlocked();
  bool future_arrivals_fail();
  bool deadlock_ = false;
  // future_arrivals_fail's memo: the schedulers' generations it answered for, and the first
  // job it found that would fit (arrival_count_ if none).
  std::uint64_t arrivals_checked_gen_ = 0;
  std::uint32_t arrivals_fit_from_ = 0;

  ObjectStore store_;
  // The schedulers' and controllers' API client (sched/cluster_client.hpp): their writes to store_.
  StoreClusterClient client_{store_};
  SimulationOptions options_;
  Workload workload_;
  std::uint32_t template_base_ = 0;
  EventQueue<Event> events_;
  std::unique_ptr<Kubelets> kubelets_;
  std::vector<SchedulerSlot> schedulers_;  // [0] is kube-scheduler
  std::vector<ControllerSlot> controllers_;  // by position (stable)
  Scheduler* kube_scheduler_ = nullptr;
  std::unique_ptr<JobController> job_controller_;
  std::unique_ptr<NodeLifecycle> node_lifecycle_;
  PodGarbageCollector pod_gc_{store_, PodGcConfig{}, *this};
  ResourceQuotaAdmission quota_;
  RandomStream watch_rng_;
  RandomStream failure_rng_;
  std::vector<SimTime> last_delivery_;  // by subscriber
  std::vector<PodId> job_pods_;
  std::vector<JobId> job_objects_;
  std::vector<std::vector<PodId>> pods_of_job_;  // by JobId
  std::uint32_t arrival_count_ = 0;
  std::uint32_t arrivals_submitted_ = 0;  // workload jobs submitted by arrival events (the rest came from the API)
  SimTime frozen_since_ = SimTime::never();
  std::uint64_t frozen_version_ = 0;
  std::vector<std::pair<std::uint32_t, std::string>> rejected_pods_;
  SimTime now_;
  std::uint64_t events_processed_ = 0;
  std::uint64_t queue_entries_processed_ = 0;
  SimTime guard_instant_ = SimTime::never();
  std::uint64_t guard_events_ = 0;
  std::vector<std::pair<PodId, std::uint64_t>> guard_pods_;  // (pod, events) in first-seen order
  std::uint64_t external_pending_ = 0;  // posted events that can change the cluster
  // Deliveries skipped because their scheduler would ignore them (deliver_to_schedulers):
  // each would have been an informer-phase event at now_, after every event posted before it
  // and before every event posted after it (skipped_order_: EventQueue::next_order at the
  // last skip). They count as pending events until that turn comes (process_next), so the
  // run's end, the stepping of `serve` and the progress guard see the same events as if
  // they had been delivered; handling them changes nothing else.
  std::uint64_t skipped_pending_ = 0;
  std::uint64_t skipped_order_ = 0;
  // The kubelet run being posted (count 0: none), not yet in the queue.
  KubeletRun staged_{KubeletEvent{}, 0};
  SimTime staged_at_;
  Phase staged_phase_ = Phase::kKubelet;
  std::uint64_t job_events_pending_ = 0;  // posted Job controller syncs
  std::size_t finished_pods_ = 0;
  bool pod_limit_reached_ = false;
};

}  // namespace kubesim

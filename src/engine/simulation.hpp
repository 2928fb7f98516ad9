// The Simulation owns all state of one run: the clock, the event queue, the object store,
// the kubelets, the scheduler and the workload cursor. Components reach each other only
// through the store's change feed (delivered by informers, with the watch delay) and
// through events they post. No globals: several simulations can run in one process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <variant>
#include <vector>

#include "control/cluster_actions.hpp"
#include "control/kubelet.hpp"
#include "core/event_queue.hpp"
#include "engine/model_config.hpp"
#include "model/object_store.hpp"
#include "sched/scheduler.hpp"
#include "workload/workload.hpp"

namespace kubesim {

struct SimulationOptions {
  std::uint64_t seed = 1;
  ModelConfig model = ModelConfig::realistic();
  SimTime until = SimTime::never();  // stop processing events after this simulated time
};

// The ready-to-run inputs. Workload templates and nodes use the slots of `resource_names`.
struct SimulationInputs {
  ResourceNames resource_names;
  std::vector<Node> nodes;
  Workload workload;  // its namespaces are created in order (NamespaceId = index)
  SchedulerConfig scheduler;
  std::vector<PriorityClass> priority_classes;
  std::vector<ResourceQuota> quotas;  // ns indexes workload.namespaces
  std::vector<PodDisruptionBudget> pod_disruption_budgets;  // ns indexes workload.namespaces
  std::vector<ClusterAction> actions;  // sorted by time
};

class Simulation final : public ChangeListener, private SchedulerHost, private KubeletHost {
 public:
  Simulation(SimulationInputs inputs, SimulationOptions options);

  // Runs until nothing can change any more (every pod finished, or the pending pods can
  // never fit), or until options.until. `progress` (optional) is called now and then with
  // the fraction of workload jobs that have finished.
  void run(const std::function<void(double)>& progress = {});

  SimTime now() const { return now_; }
  const ObjectStore& store() const { return store_; }
  ObjectStore& store() { return store_; }
  const Workload& workload() const { return workload_; }
  const std::vector<PodId>& job_pods() const { return job_pods_; }
  const Scheduler& scheduler() const { return *scheduler_; }
  std::uint64_t events_processed() const { return events_processed_; }
  std::size_t finished_pods() const { return finished_pods_; }
  // Pods that are still pending when the run ended.
  std::size_t pending_pods() const;
  void add_listener(ChangeListener* listener) { store_.add_listener(listener); }

  void on_change(const Change& change) override;

 private:
  struct Arrival {
    std::uint32_t job;
  };
  enum class Subscriber : std::uint8_t { kScheduler, kKubelet };
  struct Delivery {
    Subscriber to;
    Change change;
  };
  using Event = std::variant<Arrival, Delivery, KubeletEvent, SchedulerEvent>;

  void post(SimTime at, Phase phase, SchedulerEvent event) override;
  void post(SimTime at, Phase phase, KubeletEvent event) override;
  void deliver(Subscriber to, const Change& change);
  void submit(std::uint32_t job);
  static bool is_external(const Event& e);

  ObjectStore store_;
  SimulationOptions options_;
  Workload workload_;
  std::uint32_t template_base_ = 0;
  EventQueue<Event> events_;
  std::unique_ptr<Kubelets> kubelets_;
  std::unique_ptr<Scheduler> scheduler_;
  RandomStream watch_rng_;
  SimTime last_delivery_[2] = {SimTime::zero(), SimTime::zero()};
  std::vector<PodId> job_pods_;
  std::uint32_t next_job_ = 0;
  SimTime now_;
  std::uint64_t events_processed_ = 0;
  std::uint64_t external_pending_ = 0;  // posted events that can change the cluster
  std::size_t finished_pods_ = 0;
};

}  // namespace kubesim

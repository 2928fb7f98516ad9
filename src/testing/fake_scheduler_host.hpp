// One SchedulerHost for unit tests that drive a scheduler model (kube-scheduler, YuniKorn, the
// batch policies, Fluxion, Kueue) on an ObjectStore without the Simulation. It serves the
// hosts those tests need:
// - a sink: post() only records (posted()), for a model whose events a test does not run;
// - a loop: run_until() runs the recorded events in (time, phase, posting order), the order of
//   the engine's EventQueue (core/event_queue.hpp), and leaves now() at the end;
// - a zero-delay informer: attached to a model and added as the store's listener, it delivers
//   every node and pod change at once, at now();
// - an API client: given the store, add_pod_template / create_pod create the pods a scheduler
//   asks for (YuniKorn's placeholders) as the Simulation does (engine/simulation.cpp
//   SchedulerPort), without admission; client() writes to it as the Simulation's client does
//   (StoreClusterClient: bindings, deletions, status writes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/time.hpp"
#include "model/object_store.hpp"
#include "sched/cluster_client.hpp"
#include "sched/scheduler_model.hpp"

namespace kubesim::testing {

class FakeSchedulerHost final : public SchedulerHost, public ChangeListener {
 public:
  struct Posted {
    SimTime at;
    Phase phase;
    std::uint64_t seq;  // posting order
    SchedulerEvent event;
  };

  // Without a store the host refuses pods from its scheduler (SchedulerHost's default).
  explicit FakeSchedulerHost(ObjectStore* store = nullptr) : store_(store) {
    if (store_) client_.emplace(*store_);
  }

  // The model that receives the changes (on_change) and the events (run_until).
  void attach(SchedulerModel* model) { model_ = model; }

  void post(SimTime at, Phase phase, SchedulerEvent event) override { posted_.push_back({at, phase, seq_++, event}); }
  std::variant<PodTemplateId, std::string> add_pod_template(PodTemplate spec) override;
  std::variant<PodId, std::string> create_pod(std::string name, NamespaceId ns, PodTemplateId spec) override;
  ClusterClient& client() override { return client_ ? *client_ : SchedulerHost::client(); }
  void on_change(const Change& change) override;

  // Runs every posted event due at or before `until` (events they post included); now() is
  // `until` afterwards.
  void run_until(SimTime until);

  const std::vector<Posted>& posted() const { return posted_; }
  std::vector<Posted>& posted() { return posted_; }
  SimTime now() const { return now_; }
  void set_now(SimTime t) { now_ = t; }

 private:
  ObjectStore* store_;
  std::optional<StoreClusterClient> client_;  // with a store
  SchedulerModel* model_ = nullptr;
  std::vector<Posted> posted_;
  std::uint64_t seq_ = 0;
  SimTime now_ = SimTime::zero();
};

}  // namespace kubesim::testing

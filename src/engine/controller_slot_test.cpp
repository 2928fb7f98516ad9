// The Simulation's generic controller slot (cluster/controller.hpp) with a registered kind:
// a controller watches Pods and its own kind, writes objects of that kind on a timer of its
// own, hears of them through its informer stream, and keeps the run going while busy.
#include <gtest/gtest.h>

#include <vector>

#include "engine/simulation.hpp"
#include "workload/workload.hpp"

namespace kubesim {
namespace {

struct Note {
  std::uint32_t pod = 0;
};

// On every pod Added: 5 s later, a Note object for it; counts the Notes it hears of.
class NoteController final : public Controller {
 public:
  NoteController(ObjectStore& store, ControllerHost& host, ObjectKind kind) : store_(store), host_(host), kind_(kind) {}
  KindSet watches() const override { return {ObjectKind::kPod, kind_}; }
  void on_change(const Change& change, SimTime now) override {
    if (change.kind == ObjectKind::kPod && change.type == ChangeType::kAdded) {
      ++pending_;
      host_.post_timer(now + Duration::seconds(5), Phase::kApi, Note{change.id});
    } else if (change.kind == kind_) {
      heard.push_back(store_.get<Note>(kind_, change.id).pod);
    }
    EXPECT_TRUE(change.kind == ObjectKind::kPod || change.kind == kind_);
  }
  void on_timer(TimerPayload payload, SimTime) override {
    const Note note = payload.as<Note>();
    --pending_;
    store_.create(kind_, ObjectMeta{"note-" + std::to_string(note.pod), NamespaceId(0), 0, false}, note);
  }
  bool busy() const override { return pending_ > 0; }

  std::vector<std::uint32_t> heard;

 private:
  ObjectStore& store_;
  ControllerHost& host_;
  ObjectKind kind_;
  int pending_ = 0;
};

SimulationInputs two_pods() {
  SimulationInputs in;
  Node n;
  n.name = "node-0";
  n.allocatable[kCpu] = 2000;
  n.capacity = n.allocatable;
  in.nodes.push_back(n);
  in.workload.templates = {batch_job_template(1000, std::nullopt)};
  for (int i = 0; i < 2; ++i) {
    WorkloadJob j;
    j.id = std::to_string(i);
    j.run_time = Duration::seconds(1);
    in.workload.jobs.push_back(j);
  }
  in.scheduler = default_scheduler_config(in.resource_names);
  return in;
}

TEST(ControllerSlot, ARegisteredKindAndItsControllerNeedNoEngineEdit) {
  SimulationInputs in = two_pods();
  auto kind = std::make_shared<ObjectKind>();
  in.install_objects.push_back([kind](ObjectStore& store) {
    *kind = store.register_kind<Note>(KindInfo{"example.com", "v1", "Note", "notes", true, KindStorage::kTyped, {}});
  });
  add_controller(in, ControllerFactory{[kind](ObjectStore& store, ControllerHost& host, const SimulationOptions&) {
                                         return std::make_unique<NoteController>(store, host, *kind);
                                       },
                                       Duration()});
  SimulationOptions options;
  options.model = ModelConfig::ideal();
  Simulation sim(std::move(in), options);
  sim.run();
  // The pods ended after 1 s; the run went on while the controller's timers were pending.
  EXPECT_GE(sim.now(), SimTime::from_seconds(5));
  ASSERT_EQ(sim.controller_count(), 1u);
  const auto* notes = sim.find_controller<NoteController>();
  ASSERT_NE(notes, nullptr);
  EXPECT_EQ(notes->heard, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(sim.store().object_count(*kind), 2u);
}

}  // namespace
}  // namespace kubesim

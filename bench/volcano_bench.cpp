// One Volcano session (sched/volcano/) over 5,000 nodes and 10,000 pending pods, issue 28's
// speed figure: the real vc-scheduler v1.7 takes minutes for such a session (16 goroutines
// filtering every node for every task, then scoring every feasible node).
//
//   build/volcano_bench --benchmark_counters_tabular=true
//
// Nodes of 32 cpu / 128 GiB; pods of 1 cpu / 2 GiB (a PodGroup each, made by the podgroup
// controller), spread over four weighted queues; the release's volcano-scheduler.conf. The
// cluster is built once per iteration outside the timed part; the time is run_session alone
// (enqueue, allocate: every pod bound, backfill).
#include <benchmark/benchmark.h>

#include <string>

#include "model/object_store.hpp"
#include "sched/volcano/volcano.hpp"

namespace kubesim {
namespace {

// A host that counts the binds the session posts and keeps the podgroup controller's next
// timer (the model posts one at a time), so that the pods can be given their groups first.
class CountingHost final : public SchedulerHost {
 public:
  void post(SimTime at, Phase, SchedulerEvent e) override {
    binds += e.kind == SchedulerEvent::Kind::kBindDone ? 1 : 0;
    if (e.kind == SchedulerEvent::Kind::kTimer && e.payload.as<std::uint8_t>() == volcano::Volcano::controller_timer_tag())
      controller_at = at;
  }
  std::uint64_t binds = 0;
  SimTime controller_at = SimTime::never();
};

volcano::Config four_queues() {
  volcano::Config c = volcano::default_config();
  for (int i = 1; i <= 4; ++i) {
    volcano::QueueSpec q;
    q.name = "q" + std::to_string(i);
    q.weight = i;
    c.queues.push_back(q);
  }
  return c;
}

// The cluster of one iteration: `nodes` nodes and `pods` pending pods delivered to the model.
struct Bench {
  Bench(std::uint32_t nodes, std::uint32_t pods) : vc(four_queues(), store, host, 1) {
    const NamespaceId ns = store.ensure_namespace("default");
    // All nodes first (the cache keeps pointers to the store's nodes), then their deliveries.
    for (std::uint32_t i = 0; i < nodes; ++i) {
      Node n;
      n.name = "node-" + std::to_string(i);
      n.allocatable[kCpu] = n.capacity[kCpu] = 32000;
      n.allocatable[kMemory] = n.capacity[kMemory] = 128LL << 30;
      store.create_node(n);
    }
    for (std::uint32_t i = 0; i < nodes; ++i)
      vc.on_node_change(Change{ObjectKind::kNode, ChangeType::kAdded, i, NodeId(i), PodPhase::kPending,
                               PodPhase::kPending, NodeId(i)},
                        SimTime());
    PodTemplateId specs[4];
    for (int q = 0; q < 4; ++q) {
      PodTemplate t;
      t.scheduler_name = "volcano";
      Container c;
      c.name = "c";
      c.requests[kCpu] = 1000;
      c.requests[kMemory] = 2LL << 30;
      c.requested_mask = (1u << kCpu) | (1u << kMemory);
      t.containers.push_back(c);
      set_label(t.annotations, volcano::kQueueNameAnnotation, "q" + std::to_string(q + 1));
      specs[q] = store.add_template(t);
    }
    for (std::uint32_t i = 0; i < pods; ++i) {
      Pod p;
      p.name = "pod-" + std::to_string(i);
      p.ns = ns;
      p.spec = specs[i % 4];
      p.created = SimTime();
      const PodId id = store.create_pod(p);
      vc.on_pod_change(Change{ObjectKind::kPod, ChangeType::kAdded, id.value(), NodeId(), PodPhase::kPending,
                              PodPhase::kPending, NodeId()},
                       SimTime());
    }
    // The controller annotates them (50 a second after 100): run its timers, untimed.
    while (!host.controller_at.is_never()) {
      const SimTime at = host.controller_at;
      host.controller_at = SimTime::never();
      vc.on_event(SchedulerEvent::timer(volcano::Volcano::controller_timer_tag()), at);
      ready = at;
    }
  }
  SimTime ready;  // when the last pod has its group
  ObjectStore store;
  CountingHost host;
  volcano::Volcano vc;
};

void BM_VolcanoSession(benchmark::State& state) {
  std::uint64_t bound = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Bench b(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint32_t>(state.range(1)));
    state.ResumeTiming();
    b.vc.run_session(b.ready + Duration::seconds(1));
    bound = b.host.binds;
  }
  state.counters["nodes"] = static_cast<double>(state.range(0));
  state.counters["pods"] = static_cast<double>(state.range(1));
  state.counters["bound"] = static_cast<double>(bound);
}
BENCHMARK(BM_VolcanoSession)->Args({5000, 10000})->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_VolcanoSession)->Args({500, 1000})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kubesim

BENCHMARK_MAIN();

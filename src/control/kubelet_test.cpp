// Kubelets: admission (pkg/kubelet/lifecycle/predicate.go: InsufficientResourceError
// "Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d", reason
// "OutOf%s"; kubelet.go rejectPod prefixes "Pod was rejected: "), container start/exit and
// PLEG relisting (plegRelistPeriod 1 s).
#include "control/kubelet.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "testing/builders.hpp"
#include "testing/param_name.hpp"

namespace kubesim {
namespace {

// Runs the kubelets' own events in (time, phase, posting) order.
class Loop final : public KubeletHost {
 public:
  void post(SimTime at, Phase phase, KubeletEvent event) override {
    posted.push_back({at, event.kind});
    queue.push(at, phase, event);
  }
  void run(Kubelets& k, SimTime until = SimTime::never()) {
    while (!queue.empty() && queue.top().time <= until) {
      auto e = queue.pop();
      k.on_event(e.payload, e.time);
    }
  }
  struct Posted {
    SimTime at;
    KubeletEvent::Kind kind;
  };
  std::vector<Posted> posted;
  EventQueue<KubeletEvent> queue;
};

// Records the phase changes the store announces, with the time they were written.
class PhaseLog final : public ChangeListener {
 public:
  const ObjectStore* store = nullptr;
  const Loop* loop = nullptr;
  struct Entry {
    PodId pod;
    PodPhase phase;
  };
  std::vector<Entry> entries;
  void on_change(const Change& c) override {
    if (c.kind == ObjectKind::kPod && c.type == ChangeType::kModified && c.phase != c.old_phase)
      entries.push_back({PodId(c.id), c.phase});
  }
};

using testing::kGi;

struct Fixture {
  ObjectStore store;
  Loop loop;
  PhaseLog log;
  std::unique_ptr<Kubelets> kubelets;
  NodeId node;

  explicit Fixture(KubeletLatencies lat, std::int64_t cpu = 2000, std::int64_t mem = 4 * kGi,
                   std::int64_t max_pods = 110, std::uint64_t seed = 1) {
    store.ensure_namespace("default");
    store.add_listener(&log);
    kubelets = std::make_unique<Kubelets>(store, lat, seed, loop);
    node = store.create_node(testing::NodeBuilder("node0").cpu_milli(cpu).memory_bytes(mem).pods(max_pods));
    kubelets->on_node_added(node);
  }
  // Requests only (no limits); a zero amount is not requested at all.
  PodTemplateId tmpl(std::int64_t cpu, std::int64_t mem) {
    testing::PodTemplateBuilder t;
    t.no_limits();
    if (cpu) t.cpu_milli(cpu);
    if (mem) t.memory_bytes(mem);
    return store.add_template(t);
  }
  // Creates a pod already bound to the node and delivers the binding to the kubelet at `now`.
  PodId bind(PodTemplateId spec, Duration run_time, SimTime now = SimTime::zero(), std::int32_t exit_code = 0) {
    Pod p;
    p.name = "p" + std::to_string(store.pod_count());
    p.ns = NamespaceId(0);
    p.spec = spec;
    p.run_time = run_time;
    p.exit_code = exit_code;
    p.created = now;
    const PodId id = store.create_pod(std::move(p));
    store.update_pod(id, [&](Pod& x) {
      x.node = node;
      x.scheduled = now;
    });
    const Pod& bound = store.pod(id);
    kubelets->on_pod_change(Change{ObjectKind::kPod, ChangeType::kModified, id.value(),
                                   node, bound.phase, PodPhase::kPending, NodeId()},
                            now);
    return id;
  }
};

KubeletLatencies zero_latencies(Duration pleg = Duration()) {
  KubeletLatencies l;
  l.pleg_relist_period = pleg;
  return l;
}

TEST(KubeletAdmission, OutOfCpuMessage) {
  Fixture f(zero_latencies(), /*cpu=*/2000);
  const PodId a = f.bind(f.tmpl(1000, 0), Duration::seconds(100));
  EXPECT_EQ(f.store.pod(a).phase, PodPhase::kPending);  // admitted, not yet reported
  EXPECT_EQ(f.kubelets->active_pods(), 1u);
  const PodId b = f.bind(f.tmpl(2000, 0), Duration::seconds(100));
  const Pod& pb = f.store.pod(b);
  EXPECT_EQ(pb.phase, PodPhase::kFailed);
  EXPECT_EQ(pb.reason, "OutOfcpu");
  EXPECT_EQ(pb.message, "Pod was rejected: Node didn't have enough resource: cpu, requested: 2000, used: 1000, capacity: 2000");
  EXPECT_TRUE(pb.started.is_never());
  EXPECT_TRUE(pb.start_time.is_never());
  EXPECT_EQ(f.kubelets->active_pods(), 1u);
}

TEST(KubeletAdmission, OutOfMemoryMessage) {
  Fixture f(zero_latencies(), /*cpu=*/4000, /*mem=*/4 * kGi);
  f.bind(f.tmpl(100, 3 * kGi), Duration::seconds(100));
  const PodId b = f.bind(f.tmpl(100, 2 * kGi), Duration::seconds(100));
  EXPECT_EQ(f.store.pod(b).reason, "OutOfmemory");
  EXPECT_EQ(f.store.pod(b).message,
            "Pod was rejected: Node didn't have enough resource: memory, requested: 2147483648, used: 3221225472, "
            "capacity: 4294967296");
}

TEST(KubeletAdmission, CpuCheckedBeforeMemory) {
  Fixture f(zero_latencies(), 1000, 1 * kGi);
  const PodId p = f.bind(f.tmpl(2000, 2 * kGi), Duration::seconds(1));
  EXPECT_EQ(f.store.pod(p).reason, "OutOfcpu");
}

TEST(KubeletAdmission, OutOfPodsCheckedFirst) {
  Fixture f(zero_latencies(), 1000, 1 * kGi, /*max_pods=*/1);
  f.bind(f.tmpl(0, 0), Duration::seconds(100));
  const PodId b = f.bind(f.tmpl(5000, 0), Duration::seconds(100));
  EXPECT_EQ(f.store.pod(b).reason, "OutOfpods");
  EXPECT_EQ(f.store.pod(b).message,
            "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1");
}

TEST(KubeletAdmission, ExactFitIsAdmitted) {
  Fixture f(zero_latencies(), 2000);
  f.bind(f.tmpl(1000, 0), Duration::seconds(1));
  const PodId b = f.bind(f.tmpl(1000, 0), Duration::seconds(1));
  EXPECT_NE(f.store.pod(b).phase, PodPhase::kFailed);
  EXPECT_EQ(f.kubelets->active_pods(), 2u);
}

// The device manager's check (pkg/kubelet/cm/devicemanager/manager.go devicesToAllocate):
// the binding's devices must be free; a pod with device requests and none named is given
// free ones; too few fail the admission with UnexpectedAdmissionError.
TEST(KubeletAdmission, DevicesOfTheBinding) {
  Fixture f(zero_latencies(), 8000);
  f.store.update_node(f.node, [](Node& n) {
    n.devices = {{kGpuDeviceClass, "T4", 0, 2}, {kGpuDeviceClass, "T4", 0, 1}};
  });
  f.kubelets->on_node_added(f.node);
  auto device_pod = [&](std::int32_t share, DeviceGrants grants) {
    PodTemplate t;
    t.containers.push_back(Container{});
    t.device_requests.push_back(DeviceRequest{kGpuDeviceClass, 1, share, {}});
    Pod p;
    p.name = "d" + std::to_string(f.store.pod_count());
    p.spec = f.store.add_template(std::move(t));
    p.run_time = Duration::seconds(100);
    const PodId id = f.store.create_pod(std::move(p));
    f.store.update_pod(id, [&](Pod& x) {
      x.node = f.node;
      x.scheduling_gates.set_devices(grants);
    });
    f.kubelets->on_pod_change(Change{ObjectKind::kPod, ChangeType::kModified, id.value(), f.node,
                                     PodPhase::kPending, PodPhase::kPending, NodeId()},
                              SimTime::zero());
    return f.store.pod(id);
  };
  struct Case {
    const char* name;
    std::int32_t share;
    DeviceGrants grants;
    bool admitted;
  };
  const Case cases[] = {
      {"named share of device 0", 500, {{0, 500}}, true},
      {"second share of device 0", 400, {{0, 400}}, true},
      {"device 0 is over its share", 200, {{0, 200}}, false},
      {"no such device", 1000, {{7, 1000}}, false},
      {"none named: the manager picks device 1", 1000, {}, true},
      {"none left whole", 1000, {}, false},
  };
  for (const Case& c : cases) {
    const Pod& p = device_pod(c.share, c.grants);
    EXPECT_EQ(p.phase != PodPhase::kFailed, c.admitted) << c.name;
    if (!c.admitted) {
      EXPECT_EQ(p.reason, "UnexpectedAdmissionError") << c.name;
    }
  }
}

TEST(KubeletRun, ZeroLatenciesStartAndExit) {
  Fixture f(zero_latencies());
  const PodId p = f.bind(f.tmpl(1000, 0), Duration::seconds(10), SimTime::from_seconds(5));
  f.loop.run(*f.kubelets);
  const Pod& pod = f.store.pod(p);
  EXPECT_EQ(pod.start_time, SimTime::from_seconds(5));
  EXPECT_EQ(pod.started, SimTime::from_seconds(5));
  EXPECT_EQ(pod.finished, SimTime::from_seconds(15));
  EXPECT_EQ(pod.phase, PodPhase::kSucceeded);
  ASSERT_EQ(f.log.entries.size(), 2u);
  EXPECT_EQ(f.log.entries[0].phase, PodPhase::kRunning);
  EXPECT_EQ(f.log.entries[1].phase, PodPhase::kSucceeded);
  EXPECT_EQ(f.kubelets->active_pods(), 0u);
  // The freed cpu admits a pod that would not have fit before.
  const PodId q = f.bind(f.tmpl(2000, 0), Duration::seconds(1), SimTime::from_seconds(15));
  EXPECT_NE(f.store.pod(q).phase, PodPhase::kFailed);
}

TEST(KubeletRun, NonZeroExitCodeFails) {
  Fixture f(zero_latencies());
  const PodId p = f.bind(f.tmpl(1000, 0), Duration::seconds(3), SimTime::zero(), /*exit_code=*/1);
  f.loop.run(*f.kubelets);
  EXPECT_EQ(f.store.pod(p).phase, PodPhase::kFailed);
  EXPECT_EQ(f.store.pod(p).finished, SimTime::from_seconds(3));
}

TEST(KubeletRun, PlegRelistDelaysWhatIsSeen) {
  // With a 1 s relist period at a random per-node phase, the container's real exit time is
  // recorded as finishedAt, but the kubelet learns of it (frees resources, reports) at the
  // first relist at or after the exit.
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    Fixture f(zero_latencies(Duration::seconds(1)), 2000, 4 * kGi, 110, seed);
    const PodId p = f.bind(f.tmpl(2000, 0), Duration::from_seconds(10.3));
    // Run until the exit is seen, checking the kubelet's view just before it.
    SimTime exit_seen = SimTime::never();
    SimTime running_reported = SimTime::never();
    while (!f.loop.queue.empty()) {
      auto e = f.loop.queue.pop();
      if (e.payload.kind == KubeletEvent::Kind::kContainerExitSeen) exit_seen = e.time;
      const PodPhase before = f.store.pod(p).phase;
      f.kubelets->on_event(e.payload, e.time);
      if (before == PodPhase::kPending && f.store.pod(p).phase == PodPhase::kRunning) running_reported = e.time;
    }
    const Pod& pod = f.store.pod(p);
    EXPECT_EQ(pod.started, SimTime::zero()) << seed;
    EXPECT_EQ(pod.finished, SimTime::from_seconds(10.3)) << seed;
    EXPECT_EQ(pod.phase, PodPhase::kSucceeded) << seed;
    ASSERT_FALSE(exit_seen.is_never());
    ASSERT_FALSE(running_reported.is_never());
    // Seen at the first relist tick at or after the exit, i.e. within one period.
    EXPECT_GE(exit_seen, pod.finished) << seed;
    EXPECT_LT(exit_seen - pod.finished, Duration::seconds(1)) << seed;
    // The start is also seen at a relist tick (within 1 s), on the same 1 s grid.
    EXPECT_LT(running_reported - pod.started, Duration::seconds(1)) << seed;
    EXPECT_EQ((exit_seen - running_reported).micros() % 1'000'000, 0) << seed;
    // The relist grid has the node's phase, drawn from stream "kubelet/pleg-phase".
    const std::int64_t offset = static_cast<std::int64_t>(RandomStream(seed, "kubelet/pleg-phase").uniform_below(1'000'000));
    EXPECT_EQ(running_reported.micros(), offset) << seed;
    EXPECT_EQ(exit_seen.micros(), offset + (10'300'000 - offset + 999'999) / 1'000'000 * 1'000'000) << seed;
  }
}

TEST(KubeletRun, ExitAtRelistTickIsSeenAtOnce) {
  Fixture f(zero_latencies(Duration::seconds(1)));
  const std::int64_t offset = static_cast<std::int64_t>(RandomStream(1, "kubelet/pleg-phase").uniform_below(1'000'000));
  // Start at the node's relist tick + 1 s: the container exits exactly on a tick 4 s later.
  const SimTime t0 = SimTime::at(Duration::micros(offset + 1'000'000));
  const PodId p = f.bind(f.tmpl(100, 0), Duration::seconds(4), t0);
  f.loop.run(*f.kubelets);
  EXPECT_EQ(f.store.pod(p).finished, t0 + Duration::seconds(4));
  bool found = false;
  for (const auto& e : f.loop.posted)
    if (e.kind == KubeletEvent::Kind::kContainerExitSeen) {
      EXPECT_EQ(e.at, t0 + Duration::seconds(4));
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(KubeletRun, ActiveDeadlineKillsPod) {
  Fixture f(zero_latencies());
  const PodTemplateId t = f.tmpl(1000, 0);
  Pod p;
  p.name = "deadline";
  p.ns = NamespaceId(0);
  p.spec = t;
  p.run_time = Duration::seconds(100);
  p.active_deadline = Duration::seconds(30);
  const PodId id = f.store.create_pod(std::move(p));
  f.store.update_pod(id, [&](Pod& x) { x.node = f.node; });
  f.kubelets->on_pod_change(Change{ObjectKind::kPod, ChangeType::kModified, id.value(), f.node, PodPhase::kPending,
                                   PodPhase::kPending, NodeId()},
                            SimTime::from_seconds(2));
  f.loop.run(*f.kubelets);
  const Pod& pod = f.store.pod(id);
  EXPECT_EQ(pod.phase, PodPhase::kFailed);
  EXPECT_EQ(pod.reason, "DeadlineExceeded");
  EXPECT_EQ(pod.message, "Pod was active on the node longer than the specified deadline");
  EXPECT_EQ(pod.finished, SimTime::from_seconds(32));  // startTime 2 s + 30 s
  EXPECT_EQ(f.kubelets->active_pods(), 0u);
}

// The ranks of a rigid parallel job (control/kubelet.hpp): a rank that starts waits for the
// others; once all run, each runs its run time, so they end together.
struct RankFixture : Fixture {
  RankFixture() : Fixture(zero_latencies(), /*cpu=*/8000) {}
  PodId bind_rank(std::uint32_t rank, std::uint32_t machines, SimTime now, Duration deadline = Duration()) {
    Pod p;
    p.name = "job-" + std::to_string(rank);
    p.ns = NamespaceId(0);
    p.spec = spec;
    p.run_time = Duration::seconds(5);
    p.active_deadline = deadline;
    p.machines = machines;
    p.machine_rank = rank;
    p.workload_job = 7;
    const PodId id = store.create_pod(std::move(p));
    store.update_pod(id, [&](Pod& x) { x.node = node; });
    loop.run(*kubelets, now);
    kubelets->on_pod_change(Change{ObjectKind::kPod, ChangeType::kModified, id.value(), node, PodPhase::kPending,
                                   PodPhase::kPending, NodeId()},
                            now);
    return id;
  }
  PodTemplateId spec = tmpl(1000, 0);
};

TEST(KubeletRanks, WaitForAllRanksThenEndTogether) {
  RankFixture f;
  const PodId a = f.bind_rank(0, 3, SimTime::from_seconds(0));
  const PodId b = f.bind_rank(1, 3, SimTime::from_seconds(10));
  f.loop.run(*f.kubelets, SimTime::from_seconds(19));
  // Two ranks running, waiting: neither has ended after far more than its 5 s.
  EXPECT_EQ(f.store.pod(a).phase, PodPhase::kRunning);
  EXPECT_TRUE(f.store.pod(a).finished.is_never());
  EXPECT_EQ(f.kubelets->active_pods(), 2u);
  const PodId c = f.bind_rank(2, 3, SimTime::from_seconds(20));
  f.loop.run(*f.kubelets);
  for (const PodId id : {a, b, c}) {
    EXPECT_EQ(f.store.pod(id).phase, PodPhase::kSucceeded);
    EXPECT_EQ(f.store.pod(id).finished, SimTime::from_seconds(25));  // the last rank's start + 5 s
  }
  EXPECT_EQ(f.store.pod(a).started, SimTime::from_seconds(0));
  EXPECT_EQ(f.kubelets->active_pods(), 0u);
}

TEST(KubeletRanks, WaitingRanksEndAtTheirDeadline) {
  RankFixture f;
  const PodId a = f.bind_rank(0, 3, SimTime::from_seconds(0), Duration::seconds(30));
  const PodId b = f.bind_rank(1, 3, SimTime::from_seconds(10), Duration::seconds(30));
  f.loop.run(*f.kubelets);  // rank 2 is never placed: a partially placed job
  EXPECT_EQ(f.store.pod(a).phase, PodPhase::kFailed);
  EXPECT_EQ(f.store.pod(a).reason, "DeadlineExceeded");
  EXPECT_EQ(f.store.pod(a).finished, SimTime::from_seconds(30));
  EXPECT_EQ(f.store.pod(b).finished, SimTime::from_seconds(40));
  // A rank placed after its siblings died waits for them again, until its own deadline.
  const PodId c = f.bind_rank(2, 3, SimTime::from_seconds(50), Duration::seconds(30));
  f.loop.run(*f.kubelets);
  EXPECT_EQ(f.store.pod(c).reason, "DeadlineExceeded");
  EXPECT_EQ(f.store.pod(c).finished, SimTime::from_seconds(80));
}

// Two ranks placed at 0 and 20 s (the job's work ends 5 s after the last start, at 25 s) with
// walltime `walltime_s`: a rank whose deadline (its start + walltime) comes before 25 s is
// killed then; the others end with the job's work.
struct TwoRankWalltime {
  const char* name;
  double walltime_s;
  struct Rank {
    PodPhase phase;
    double finished_s;
  } rank0, rank1;
};

class KubeletTwoRanks : public ::testing::TestWithParam<TwoRankWalltime> {};

TEST_P(KubeletTwoRanks, EachRankEndsAtItsDeadlineOrWithTheJob) {
  const TwoRankWalltime& c = GetParam();
  RankFixture f;
  const Duration walltime = Duration::from_seconds(c.walltime_s);
  const PodId a = f.bind_rank(0, 2, SimTime::from_seconds(0), walltime);
  const PodId b = f.bind_rank(1, 2, SimTime::from_seconds(20), walltime);
  f.loop.run(*f.kubelets);
  for (const auto& [pod, expected] : {std::pair{a, c.rank0}, std::pair{b, c.rank1}}) {
    EXPECT_EQ(f.store.pod(pod).phase, expected.phase);
    EXPECT_EQ(f.store.pod(pod).reason, expected.phase == PodPhase::kFailed ? "DeadlineExceeded" : "");
    EXPECT_EQ(f.store.pod(pod).finished, SimTime::from_seconds(expected.finished_s));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Walltime, KubeletTwoRanks,
    ::testing::Values(
        // Rank 0's deadline (30 s) is armed while it waits; the job's work ends at 25 s, first.
        TwoRankWalltime{
            "DeadlineAfterTheJobsEndDoesNothing", 30, {PodPhase::kSucceeded, 25}, {PodPhase::kSucceeded, 25}},
        // Rank 0: 0 + 22 < 25, killed at 22 s; rank 1: 20 + 22 > 25, ends with the job.
        TwoRankWalltime{
            "WalltimeDuringTheWorkKillsTheRanksThatReachIt", 22, {PodPhase::kFailed, 22}, {PodPhase::kSucceeded, 25}}),
    testing::NameField{});

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

// A stalled start (podStartupStall) delays Pulling by the stall; whether a start stalls
// follows the node's previous start: here always for the first pod and after an unstalled
// start, never after a stalled one, so starts alternate on the node.
TEST(KubeletStartupStall, FollowsTheNodesPreviousStart) {
  KubeletLatencies lat = zero_latencies();
  lat.startup = Distribution::fixed(Duration::millis(500));
  lat.startup_stall = Distribution::fixed(Duration::seconds(2));
  lat.stall_probability_first = 1.0;
  lat.stall_probability_after_unstalled = 1.0;
  lat.stall_probability_after_stalled = 0.0;
  Fixture f(lat, /*cpu=*/1000);
  std::vector<double> startup;
  SimTime t = SimTime::zero();
  for (int i = 0; i < 4; ++i) {
    const PodId p = f.bind(f.tmpl(1000, 0), Duration::seconds(10), t);
    f.loop.run(*f.kubelets);
    const Pod& pod = f.store.pod(p);
    startup.push_back((pod.pulling - pod.scheduled).to_seconds());
    EXPECT_EQ(pod.started, pod.pulling);  // the other steps take no time here
    t = pod.finished;
  }
  EXPECT_EQ(startup, (std::vector<double>{2.5, 0.5, 2.5, 0.5}));
}

// Without a stall (every built-in model) nothing is drawn: start-ups are the plain draw.
TEST(KubeletStartupStall, NoneWithoutAStall) {
  KubeletLatencies lat = zero_latencies();
  lat.startup = Distribution::fixed(Duration::millis(500));
  lat.stall_probability_first = 1.0;
  Fixture f(lat);
  const PodId p = f.bind(f.tmpl(1000, 0), Duration::seconds(10));
  f.loop.run(*f.kubelets);
  EXPECT_EQ(f.store.pod(p).pulling, SimTime::from_seconds(0.5));
}

}  // namespace
}  // namespace kubesim

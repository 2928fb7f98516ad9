// Hand-computed cases from the upstream semantics (derived in docs/derivations/yunikorn.md).
#include "core/test_paths.hpp"
#include "sched/yunikorn/yunikorn.hpp"

#include <gtest/gtest.h>

#include "core/read_file.hpp"
#include "engine/simulation.hpp"
#include "report/batsim_csv.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"
#include "workload/workload.hpp"

namespace kubesim::yunikorn {
namespace {

constexpr std::int64_t G = 1'000'000'000;

// The queues file of one partition "default" whose root holds `children` (YAML, indented to
// the level of root's queues).
std::string root_queues(std::string_view children) {
  return "partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n" + std::string(children);
}

Config study() { return load_config_text(kDefaultConfigText, kDefaultConfigName, ResourceNames()); }

struct Cluster {
  explicit Cluster(Config c) : yk(std::move(c), store, host, 1) { store.ensure_namespace("default"); }

  NodeId node(const std::string& name, std::int64_t cores, std::int64_t mem) {
    const NodeId id = store.create_node(testing::NodeBuilder(name).cpu_milli(cores * 1000).memory_bytes(mem).hostname_label());
    yk.on_node_change(Change{ObjectKind::kNode, ChangeType::kAdded, id.value(), id, PodPhase::kPending, PodPhase::kPending, id},
                      SimTime());
    return id;
  }
  // A pending yunikorn pod in `queue` (one app per pod), created at `at`.
  PodId pod(const std::string& queue, std::int64_t cores, std::int64_t mem, double at, std::int32_t priority = 0,
            const std::string& on_node = "") {
    testing::PodTemplateBuilder t;
    t.cpu_milli(cores * 1000).memory_bytes(mem).scheduler("yunikorn").priority(priority);
    t.label("queue", queue).label("applicationId", "app-" + std::to_string(store.pod_count()));
    if (!on_node.empty()) t.node_selector("kubernetes.io/hostname", on_node);
    const PodTemplateId spec = store.add_template(t);
    const PodId id = store.create_pod(
        testing::PodBuilder(spec).name("p" + std::to_string(store.pod_count())).created(SimTime::from_seconds(at)));
    yk.on_pod_change(Change{ObjectKind::kPod, ChangeType::kAdded, id.value(), NodeId(), PodPhase::kPending,
                            PodPhase::kPending, NodeId()},
                     SimTime::from_seconds(at));
    return id;
  }
  // A pod of another scheduler running on `node` (occupied resources).
  void foreign(NodeId node, std::int64_t cores, std::int64_t mem) {
    const PodTemplateId spec =
        store.add_template(testing::PodTemplateBuilder().cpu_milli(cores * 1000).memory_bytes(mem).scheduler("default-scheduler"));
    const PodId id = store.create_pod(testing::PodBuilder(spec).name("f" + std::to_string(store.pod_count())).on(node));
    yk.on_pod_change(Change{ObjectKind::kPod, ChangeType::kAdded, id.value(), node, PodPhase::kRunning,
                            PodPhase::kPending, NodeId()},
                     SimTime());
  }
  void gone(PodId pod, double at) {
    yk.on_pod_change(Change{ObjectKind::kPod, ChangeType::kDeleted, pod.value(), allocated(pod), PodPhase::kFailed,
                            PodPhase::kRunning, allocated(pod)},
                     SimTime::from_seconds(at));
  }
  int drain(double at) {
    int n = 0;
    while (yk.schedule(SimTime::from_seconds(at))) ++n;
    return n;
  }
  NodeId allocated(PodId p) const { return yk.allocated_node(p); }

  ObjectStore store;
  testing::FakeSchedulerHost host{&store};
  YuniKorn yk;
};

TEST(YuniKornConfig, ReadsTheStudysConfigMap) {
  const Config c = study();
  ASSERT_EQ(c.queues.size(), 6u);
  EXPECT_EQ(c.queues[0].path, "root");
  const QueueConf& t1 = c.queues[c.find("root.tenants.tenant1")];
  EXPECT_TRUE(t1.leaf);
  EXPECT_EQ(t1.guaranteed.v[kCpu], 128'000);
  EXPECT_EQ(t1.guaranteed.v[kMemory], 256 * G);
  EXPECT_EQ(t1.max.v[kCpu], 384'000);
  EXPECT_FALSE(t1.guaranteed.has(kPods));
  EXPECT_EQ(t1.preemption_delay, Duration::seconds(5));
  const QueueConf& bf = c.queues[c.find("root.tenants.backfill")];
  EXPECT_EQ(bf.priority_offset, -9999);
  EXPECT_EQ(bf.guaranteed.v[kMemory], 8 * G);
  EXPECT_FALSE(c.queues[c.find("root.tenants")].leaf);
  EXPECT_EQ(c.node_sort, NodeSort::kFair);
  EXPECT_TRUE(c.preemption_enabled);
}

// Defaults checked against yunikorn-core: partition.go updatePreemption ("preemptionEnabled =
// conf.Preemption.Enabled == nil || *conf.Preemption.Enabled") and common/configs/config.go
// DefaultPreemptionDelay = 30 * time.Second.
TEST(YuniKornConfig, PreemptionDefaults) {
  const Config c = load_config_text(root_queues("          - name: a\n"), "q.yaml", ResourceNames());
  EXPECT_TRUE(c.preemption_enabled);
  EXPECT_EQ(c.queues[c.find("root.a")].preemption_delay, Duration::seconds(30));
}

TEST(YuniKornConfig, BuiltInDefaultIsTheExampleFile) {
  EXPECT_EQ(read_input_file(kubesim::testing::source_dir() + "/" + kDefaultConfigName), std::string(kDefaultConfigText));
}

TEST(YuniKornConfig, ErrorsNameTheFileLine) {
  const std::string text =
      "kind: ConfigMap\n"
      "data:\n"
      "  queues.yaml: |\n"
      "    partitions:\n"
      "      - name: default\n"
      "        preemption: {enabled: maybe}\n"
      "        queues: [{name: root}]\n";
  try {
    load_config_text(text, "q.yaml", ResourceNames());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "q.yaml");
    EXPECT_EQ(e.line(), 6);
  }
  Duration d;
  EXPECT_TRUE(parse_go_duration("1m30s", &d));
  EXPECT_EQ(d, Duration::seconds(90));
  EXPECT_FALSE(parse_go_duration("5", &d));
}

// §3.1: with the pods type counted raw (<= 1.5), fewest running pods first.
TEST(YuniKorn, FairQueueOrderCountsPods) {
  Cluster c(study());
  for (int i = 0; i < 4; ++i) c.node("n" + std::to_string(i), 128, 512 * G);
  for (int i = 0; i < 16; ++i) c.pod("root.tenants.tenant1", 4, 8 * G, 0);
  for (int i = 0; i < 8; ++i) c.pod("root.tenants.tenant2", 4, 8 * G, 0);
  EXPECT_EQ(c.drain(0), 24);
  c.pod("root.tenants.tenant1", 4, 8 * G, 1);
  c.pod("root.tenants.tenant2", 4, 8 * G, 1);
  // shares t1 [0.5, 0.5, 16], t2 [0.5, 0.5, 8]: t2 first.
  EXPECT_EQ(c.yk.queue_order("root.tenants"), (std::vector<std::string>{"root.tenants.tenant2", "root.tenants.tenant1"}));
}

TEST(YuniKorn, FairQueueOrderPodsShareBeatsGuarantee) {
  for (const bool v16 : {false, true}) {
    Config cfg = study();
    cfg.ratios_only = v16;
    Cluster c(cfg);
    c.node("n0", 128, 512 * G);
    c.pod("root.tenants.tenant1", 4, 8 * G, 0);
    c.pod("root.tenants.tenant1", 4, 8 * G, 0);
    c.pod("root.tenants.tenant3", 32, 64 * G, 0);
    EXPECT_EQ(c.drain(0), 3);
    c.pod("root.tenants.tenant1", 4, 8 * G, 1);
    c.pod("root.tenants.tenant3", 4, 8 * G, 1);
    // 1.5: t1 [0.0625, 0.0625, 2] vs t3 [1, 1, 1]: 2 > 1, t3 first although at 100%.
    // 1.6 (ratios only): 1.0 > 0.0625, t1 first.
    const std::vector<std::string> want =
        v16 ? std::vector<std::string>{"root.tenants.tenant1", "root.tenants.tenant3"}
            : std::vector<std::string>{"root.tenants.tenant3", "root.tenants.tenant1"};
    EXPECT_EQ(c.yk.queue_order("root.tenants"), want) << (v16 ? "1.6" : "1.5");
  }
}

// §3.2: priority (with offsets) beats fairness.
TEST(YuniKorn, PriorityOffsetsOrderQueues) {
  Cluster c(study());
  c.node("n0", 384, 1536 * G);
  for (int i = 0; i < 30; ++i) c.pod("root.tenants.tenant1", 1, 1 * G, 0);
  EXPECT_EQ(c.drain(0), 30);
  const PodId b = c.pod("root.tenants.backfill", 1, 1 * G, 1, -9999);
  const PodId t = c.pod("root.tenants.tenant1", 1, 1 * G, 2);
  EXPECT_EQ(c.yk.queue_priority("root.tenants.backfill"), -19998);
  EXPECT_EQ(c.yk.queue_priority("root.tenants.tenant1"), 0);
  EXPECT_EQ(c.yk.queue_order("root.tenants"), (std::vector<std::string>{"root.tenants.tenant1", "root.tenants.backfill"}));
  // One allocation per cycle: the tenant's ask first, then backfill.
  ASSERT_TRUE(c.yk.schedule(SimTime::from_seconds(2)));
  EXPECT_TRUE(c.allocated(t).valid());
  EXPECT_FALSE(c.allocated(b).valid());
  ASSERT_TRUE(c.yk.schedule(SimTime::from_seconds(2)));
  EXPECT_TRUE(c.allocated(b).valid());
}

// Max is a hard cap (headroom); guaranteed is not.
TEST(YuniKorn, MaxCapsGuaranteedDoesNot) {
  const std::string q = root_queues(
      "          - name: a\n"
      "            resources: {max: {vcore: 8}}\n"
      "          - name: b\n"
      "            resources: {guaranteed: {vcore: 4, memory: 4G}}\n");
  Cluster c(parse_queues_yaml(q, "q.yaml", 0, ResourceNames()));
  c.node("n0", 64, 256 * G);
  const PodId a1 = c.pod("a", 4, G, 0), a2 = c.pod("a", 4, G, 0), a3 = c.pod("root.a", 4, G, 0);
  const PodId b1 = c.pod("b", 4, G, 0), b2 = c.pod("b", 4, G, 0), b3 = c.pod("b", 4, G, 0);
  EXPECT_EQ(c.drain(0), 5);
  EXPECT_TRUE(c.allocated(a1).valid() && c.allocated(a2).valid());
  EXPECT_FALSE(c.allocated(a3).valid());  // 8 + 4 > max 8
  EXPECT_TRUE(c.allocated(b1).valid() && c.allocated(b2).valid() && c.allocated(b3).valid());
  // A queue that does not exist: the provided rule rejects the application.
  const PodId x = c.pod("root.nope", 1, G, 0);
  EXPECT_TRUE(c.yk.rejected(x));
}

// §3.6: fair node sort (least used first), binpacking (most used first), ties by node ID.
TEST(YuniKorn, NodeSortFairAndBinpacking) {
  for (const NodeSort policy : {NodeSort::kFair, NodeSort::kBinpacking}) {
    Config cfg = study();
    cfg.node_sort = policy;
    Cluster c(cfg);
    const NodeId a = c.node("a", 32, 128 * G);
    const NodeId b = c.node("b", 32, 128 * G);
    c.node("c", 32, 128 * G);
    c.foreign(a, 16, 32 * G);  // (0.5 + 0.25) / 2 = 0.375
    c.foreign(b, 8, 64 * G);   // (0.25 + 0.5) / 2 = 0.375
    const std::vector<std::string> want = policy == NodeSort::kFair ? std::vector<std::string>{"c", "a", "b"}
                                                                    : std::vector<std::string>{"a", "b", "c"};
    EXPECT_EQ(c.yk.node_order(), want);
  }
}

// node_collection.go nodeRef.Less: score, then NodeID compared as strings ("node-10" <
// "node-2"), whatever the order the nodes were added in.
TEST(YuniKorn, NodeTiesByNodeIdString) {
  Cluster c(study());
  c.node("node-2", 32, 128 * G);
  c.node("node-10", 32, 128 * G);
  EXPECT_EQ(c.yk.node_order(), (std::vector<std::string>{"node-10", "node-2"}));
}

// §3.3/§3.4: preemption after the queue's delay; backfill's newest pod is the victim; a queue
// within its guarantee gives none; backfill keeps its guaranteed share.
TEST(YuniKorn, PreemptionVictimsAndDelay) {
  Cluster c(study());
  c.node("a", 16, 64 * G);
  c.node("b", 16, 64 * G);
  const PodId b1 = c.pod("root.tenants.backfill", 8, 16 * G, 0, -9999, "a");
  const PodId b2 = c.pod("root.tenants.backfill", 8, 16 * G, 0.5, -9999, "a");
  for (int i = 0; i < 4; ++i) c.pod("root.tenants.tenant1", 4, 8 * G, 0, 0, "b");
  EXPECT_EQ(c.drain(1), 6);
  // b2 runs on its node in the API (the store), so its deletion is graceful.
  c.store.update_pod(b2, [&](Pod& x) {
    x.node = c.allocated(b2);
    x.phase = PodPhase::kRunning;
  });
  const PodId ask = c.pod("root.tenants.tenant2", 8, 16 * G, 1);
  EXPECT_FALSE(c.yk.schedule(SimTime::from_seconds(2)));
  // The cluster is full, so the ask is outside root's headroom (root max = the partition's
  // size): no reservation after 2 s, only preemption may help.
  EXPECT_FALSE(c.yk.schedule(SimTime::from_seconds(3.1)));
  EXPECT_FALSE(c.yk.reserved_node(ask).valid());
  // No preemption before created + 5 s.
  EXPECT_FALSE(c.yk.schedule(SimTime::from_seconds(5.9)));
  EXPECT_EQ(c.yk.preemptions(), 0u);
  c.yk.schedule(SimTime::from_seconds(6.0));
  EXPECT_EQ(c.yk.preemptions(), 1u);
  EXPECT_EQ(c.yk.last_victims(), std::vector<PodId>{b2});
  EXPECT_TRUE(c.store.pod(b2).terminating());
  EXPECT_EQ(c.store.pod(b2).disruption, DisruptionReason::kPreemptionByScheduler);
  // The shim deletes it with 3 s of grace, not the pod's 30 (k8shim v1.5 kubeclient.go Delete).
  EXPECT_EQ(c.store.pod(b2).deletion_grace, Duration::seconds(3));
  // Outside the headroom the preemptor reserves nothing ("should succeed after preemption").
  EXPECT_FALSE(c.yk.reserved_node(ask).valid());
  // The victim's pod ends: the ask lands where it was freed.
  c.gone(b2, 7);
  EXPECT_TRUE(c.yk.schedule(SimTime::from_seconds(7)));
  EXPECT_EQ(c.allocated(ask), NodeId(0));
  // A second t2 ask: removing b1 would take backfill below its guarantee (0 < 2 cores).
  const PodId ask2 = c.pod("root.tenants.tenant2", 8, 16 * G, 8);
  for (double t : {14.0, 14.1, 30.0, 30.1}) c.yk.schedule(SimTime::from_seconds(t));
  EXPECT_EQ(c.yk.preemptions(), 1u);
  EXPECT_FALSE(c.store.pod(b1).terminating());
  EXPECT_FALSE(c.allocated(ask2).valid());
}

// §3.5: no preemption for a queue that would end above its guarantee.
TEST(YuniKorn, NoPreemptionAboveGuaranteed) {
  const std::string q = root_queues(
      "          - name: t1\n"
      "            resources: {guaranteed: {vcore: 16, memory: 32G}}\n"
      "            properties: {preemption.delay: 1s}\n"
      "          - name: bf\n"
      "            properties: {priority.offset: -100}\n");
  Cluster c(parse_queues_yaml(q, "q.yaml", 0, ResourceNames()));
  c.node("a", 16, 64 * G);
  c.node("b", 16, 64 * G);
  for (int i = 0; i < 4; ++i) c.pod("root.bf", 4, 8 * G, 0, 0, "a");
  for (int i = 0; i < 4; ++i) c.pod("root.t1", 4, 8 * G, 0, 0, "b");
  EXPECT_EQ(c.drain(0), 8);
  const PodId ask = c.pod("root.t1", 4, 8 * G, 1);  // t1: 16 + 4 > 16
  for (double t = 1; t < 40; t += 0.1) c.yk.schedule(SimTime::from_seconds(t));
  EXPECT_EQ(c.yk.preemptions(), 0u);
  EXPECT_FALSE(c.allocated(ask).valid());
  // Within its guarantee, the same ask preempts bf (no guarantee: always a victim queue).
  Cluster d(parse_queues_yaml(q, "q.yaml", 0, ResourceNames()));
  d.node("a", 16, 64 * G);
  d.node("b", 16, 64 * G);
  for (int i = 0; i < 4; ++i) d.pod("root.bf", 4, 8 * G, 0, 0, "a");
  for (int i = 0; i < 4; ++i) d.pod("root.bf", 4, 8 * G, 0.5, 0, "b");
  EXPECT_EQ(d.drain(0.5), 8);
  d.pod("root.t1", 4, 8 * G, 1);
  for (double t = 1; t < 3; t += 0.1) d.yk.schedule(SimTime::from_seconds(t));
  EXPECT_EQ(d.yk.preemptions(), 1u);
  ASSERT_EQ(d.yk.last_victims().size(), 1u);
}


// ---------------------------------------------------------------------------------------
// Gang scheduling (docs/derivations/yunikorn.md §3.7): whole runs with the ideal latency model and
// YuniKorn's own latencies at zero, so every time below is exact.

const std::string kGangQueues = root_queues(
    "          - name: q\n"
    "          - name: fair\n"
    "            properties: {application.sort.policy: fair}\n");

std::string task_groups(int min_member, int cores) {
  return R"([{"name": "workers", "minMember": )" + std::to_string(min_member) + R"(, "minResource": {"cpu": ")" +
         std::to_string(cores) + R"(", "memory": "4G"}}])";
}

struct GangRun {
  explicit GangRun(int nodes, std::int64_t cores) {
    for (int i = 0; i < nodes; ++i) {
      in.nodes.push_back(testing::NodeBuilder("n" + std::to_string(i)).cpu_milli(cores * 1000).memory_bytes(64 * G).hostname_label());
    }
  }
  // A bare pod of application "gang" (the task group's member when `groups` is not empty).
  void pod(const std::string& name, std::int64_t cores, double at, double run, const std::string& groups,
           const std::string& policy = "", const std::string& queue = "root.q") {
    testing::PodTemplateBuilder t;
    t.cpu_milli(cores * 1000).memory_bytes(4 * G).scheduler("yunikorn").label("applicationId", "gang").label("queue", queue);
    if (!groups.empty()) t.annotation(kAnnotationTaskGroups, groups).annotation(kAnnotationTaskGroupName, "workers");
    if (!policy.empty()) t.annotation(kAnnotationSchedulingPolicy, policy);
    WorkloadJob j;
    j.id = j.name = name;
    j.submit = SimTime::from_seconds(at);
    j.run_time = Duration::from_seconds(run);
    j.pod_template = static_cast<std::uint32_t>(in.workload.templates.size());
    in.workload.templates.push_back(t.build());
    in.workload.jobs.push_back(std::move(j));
  }
  void start() {
    Config cfg = parse_queues_yaml(kGangQueues, "q.yaml", 0, in.resource_names);
    cfg.bind_latency = Distribution::fixed(Duration());
    cfg.cycle_latency = Distribution::fixed(Duration());
    in.scheduler = SchedulerConfig{};  // kube-scheduler serves nobody
    in.other_schedulers.push_back(SchedulerFactory{
        [this, cfg](ObjectStore& store, SchedulerHost& host, const SimulationOptions& options) -> std::unique_ptr<SchedulerModel> {
          auto y = std::make_unique<YuniKorn>(cfg, store, host, options.seed);
          yk = y.get();
          return y;
        },
        Duration()});
    SimulationOptions o;
    o.model = ModelConfig::ideal();
    sim = std::make_unique<Simulation>(std::move(in), o);
  }
  const Pod& pod(const std::string& name) const {
    const ObjectStore& s = sim->store();
    for (std::size_t i = 0; i < s.pod_count(); ++i)
      if (s.pod(PodId(static_cast<std::uint32_t>(i))).name == name) return s.pod(PodId(static_cast<std::uint32_t>(i)));
    ADD_FAILURE() << "no pod " << name;
    return s.pod(PodId(0));
  }
  std::string node_of(const Pod& p) const { return p.node.valid() ? sim->store().node(p.node).name : ""; }
  std::string node_of(const std::string& name) const { return node_of(pod(name)); }
  std::vector<const Pod*> placeholder_pods() const {
    std::vector<const Pod*> out;
    for (PodId id : yk->placeholders("gang")) out.push_back(&sim->store().pod(id));
    return out;
  }

  SimulationInputs in;
  YuniKorn* yk = nullptr;
  std::unique_ptr<Simulation> sim;
};

// A 4-member gang on a cluster with room: 4 placeholders, then the real pods take their
// places (TryPlaceholderAllocate), each bound once its placeholder is gone.
TEST(YuniKornGang, PlaceholdersThenRealPodsOnTheirNodes) {
  GangRun r(4, 8);
  for (int i = 0; i < 4; ++i) r.pod("p" + std::to_string(i), 4, 10, 100, task_groups(4, 4));
  r.start();
  r.sim->advance_to(SimTime::from_seconds(10));
  const auto phs = r.placeholder_pods();
  ASSERT_EQ(phs.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const Pod& ph = *phs[i];
    // tg-<app>-<group>-<10-character nonce>, in the originator's namespace.
    EXPECT_EQ(ph.name.rfind("tg-gang-workers-", 0), 0u) << ph.name;
    EXPECT_EQ(ph.name.size(), std::string("tg-gang-workers-").size() + 10);
    const PodTemplate& t = r.sim->store().spec(ph.spec);
    EXPECT_EQ(t.requests[kCpu], 4000);
    EXPECT_EQ(t.requests[kMemory], 4 * G);
    EXPECT_EQ(*find_label(t.annotations, kAnnotationTaskGroupName), "workers");
    EXPECT_EQ(*find_label(t.labels, "applicationId"), "gang");
    EXPECT_TRUE(is_placeholder(t));
    EXPECT_EQ(ph.workload_job, kNoWorkloadJob);
    // Node sort fair: each placeholder on the emptiest node, n0..n3; replaced (deleted) at once.
    EXPECT_EQ(r.node_of(ph), "n" + std::to_string(i));
    EXPECT_EQ(ph.scheduled, SimTime::from_seconds(10));
    EXPECT_TRUE(ph.deleted);
    // The real pod created i-th took the i-th placeholder, on its node.
    const Pod& real = r.pod("p" + std::to_string(i));
    EXPECT_EQ(r.node_of(real), r.node_of(ph));
    EXPECT_EQ(real.scheduled, SimTime::from_seconds(10));
  }
  // All placeholders allocated (Starting), then the second replacement runs the app; the
  // last placeholder gone clears the timer.
  EXPECT_EQ(r.yk->app_state("gang"), AppState::kRunning);
  EXPECT_EQ(r.yk->shim_state("gang"), ShimState::kRunning);
  EXPECT_TRUE(r.yk->placeholder_timer("gang").is_never());
  r.sim->run();
  EXPECT_EQ(r.sim->now(), SimTime::from_seconds(110));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.pod("p" + std::to_string(i)).phase, PodPhase::kSucceeded);
  EXPECT_EQ(r.yk->app_state("gang"), AppState::kCompleting);
  // pods.csv lists the placeholders without a job_id; jobs.csv has the 4 workload jobs only.
  const std::vector<PodId> none;
  RunOutputs out{r.sim->store(), r.sim->workload(), none, r.sim->job_pods(), r.sim->now(), "test"};
  const std::string pods = pods_csv(out);
  EXPECT_NE(pods.find("default," + phs[0]->name + ",,n0,Failed,"), std::string::npos) << pods;
  const std::string jobs = batsim_jobs_csv(out);
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 5);
}

// §3.7: minMember 4 of 8 cores on 24 free cores. Three placeholders are allocated at 10 s, the
// fourth never fits; at 10 + 900 s (the timer starts at the first placeholder allocation) the
// placeholders are released. Soft: the application resumes and the real pods schedule one by
// one; Hard: the application fails and the shim fails its pods.
TEST(YuniKornGang, PlaceholderTimeoutSoftResumes) {
  GangRun r(3, 8);
  for (int i = 0; i < 4; ++i) r.pod("p" + std::to_string(i), 8, 10, 100, task_groups(4, 8));
  r.start();
  r.sim->advance_to(SimTime::from_seconds(909));
  const auto phs = r.placeholder_pods();
  ASSERT_EQ(phs.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.node_of(*phs[i]), "n" + std::to_string(i));
    EXPECT_EQ(phs[i]->phase, PodPhase::kRunning);
  }
  EXPECT_FALSE(phs[3]->node.valid());
  EXPECT_EQ(r.yk->placeholder_timer("gang"), SimTime::from_seconds(910));
  EXPECT_EQ(r.yk->app_state("gang"), AppState::kAccepted);
  EXPECT_EQ(r.yk->shim_state("gang"), ShimState::kReserving);
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(r.pod("p" + std::to_string(i)).node.valid());  // held by the shim
  r.sim->run();
  for (const Pod* ph : phs) {
    EXPECT_TRUE(ph->deleted);
    if (ph->node.valid()) {
      EXPECT_EQ(ph->finished, SimTime::from_seconds(910));
    }
  }
  // Resuming until the placeholders are gone, then Accepted; the real pods are normal asks.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r.pod("p" + std::to_string(i)).scheduled, SimTime::from_seconds(910));
    EXPECT_EQ(r.node_of("p" + std::to_string(i)), "n" + std::to_string(i));
  }
  EXPECT_EQ(r.pod("p3").scheduled, SimTime::from_seconds(1010));
  EXPECT_EQ(r.node_of("p3"), "n0");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.pod("p" + std::to_string(i)).phase, PodPhase::kSucceeded);
  EXPECT_EQ(r.yk->shim_state("gang"), ShimState::kRunning);
  EXPECT_EQ(r.sim->now(), SimTime::from_seconds(1110));
}

TEST(YuniKornGang, PlaceholderTimeoutHardFails) {
  GangRun r(3, 8);
  for (int i = 0; i < 4; ++i) r.pod("p" + std::to_string(i), 8, 10, 100, task_groups(4, 8), "gangSchedulingStyle=Hard");
  r.start();
  r.sim->run();
  EXPECT_EQ(r.sim->now(), SimTime::from_seconds(910));
  EXPECT_EQ(r.yk->app_state("gang"), AppState::kFailed);
  EXPECT_EQ(r.yk->shim_state("gang"), ShimState::kFailed);
  for (int i = 0; i < 4; ++i) {
    const Pod& p = r.pod("p" + std::to_string(i));
    EXPECT_EQ(p.phase, PodPhase::kFailed);
    EXPECT_EQ(p.reason, "ResourceReservationTimeout");
    EXPECT_EQ(p.message, "Scheduling has timed out due to insufficient resources");
    EXPECT_FALSE(p.node.valid());
  }
  for (const Pod* ph : r.placeholder_pods()) EXPECT_TRUE(ph->deleted);
}

// The timeout comes from placeholderTimeoutInSeconds and is shortened by the time between the
// first pod's creation second and the application's submission (adjustTimeout).
TEST(YuniKornGang, PlaceholderTimeoutParameterAndAdjustment) {
  GangRun r(3, 8);
  for (int i = 0; i < 4; ++i)
    r.pod("p" + std::to_string(i), 8, 10.5, 100, task_groups(4, 8), "placeholderTimeoutInSeconds=60");
  r.start();
  r.sim->advance_to(SimTime::from_seconds(11));
  // created 10 s (whole seconds) + 60 s - submitted 10.5 s = 59.5 s from 10.5 s.
  EXPECT_EQ(r.yk->placeholder_timer("gang"), SimTime::from_seconds(70));
}

// Placeholders left unused are released at the timeout while the application runs (case 1),
// or 30 s after it completes (the Completing state timer), whichever comes first.
TEST(YuniKornGang, UnusedPlaceholdersAreReleased) {
  for (const double run : {2000.0, 100.0}) {
    GangRun r(4, 4);
    for (int i = 0; i < 2; ++i) r.pod("p" + std::to_string(i), 4, 10, run, task_groups(4, 4));
    r.start();
    r.sim->advance_to(SimTime::from_seconds(10));
    EXPECT_EQ(r.yk->app_state("gang"), AppState::kRunning);
    EXPECT_EQ(r.node_of("p0"), "n0");
    EXPECT_EQ(r.node_of("p1"), "n1");
    r.sim->run();
    const auto phs = r.placeholder_pods();
    ASSERT_EQ(phs.size(), 4u);
    const SimTime released = SimTime::from_seconds(run > 1000 ? 910 : 140);
    for (int i = 2; i < 4; ++i) {
      EXPECT_TRUE(phs[i]->deleted);
      EXPECT_EQ(phs[i]->deletion_requested, released) << run;
    }
  }
}

// An invalid task-groups annotation is logged and ignored (k8shim metadata.go): the
// application is scheduled as a normal one.
TEST(YuniKornGang, InvalidTaskGroupsAreIgnored) {
  GangRun r(4, 8);
  const std::string bad = R"([{"name": "workers", "minMember": "4", "minResource": {"cpu": "4"}}])";
  for (int i = 0; i < 2; ++i) r.pod("p" + std::to_string(i), 4, 10, 100, bad);
  r.start();
  r.sim->run();
  EXPECT_TRUE(r.yk->placeholders("gang").empty());
  EXPECT_EQ(r.yk->gang_message("gang"),
            "unable to get taskGroups for pod, reason: json: cannot unmarshal string into Go struct field "
            "TaskGroup.minMember of type int32");
  EXPECT_EQ(r.pod("p0").scheduled, SimTime::from_seconds(10));
  EXPECT_EQ(r.pod("p1").scheduled, SimTime::from_seconds(10));
}

// A placeholder the API refuses (here the namespace's ResourceQuota: pods 3) makes the shim
// delete the ones it created and run the application as a normal one (onReserving).
TEST(YuniKornGang, PlaceholderCreationFailureFallsBack) {
  GangRun r(4, 8);
  for (int i = 0; i < 2; ++i) r.pod("p" + std::to_string(i), 4, 10, 100, task_groups(2, 4));
  ResourceQuota q;
  q.name = "pods";
  q.ns = NamespaceId(0);
  q.items.push_back(QuotaItem{"pods", QuotaItem::Kind::kPods, 0, 3, 0});
  r.in.quotas.push_back(q);
  r.start();
  r.sim->run();
  // p0, p1 and the first placeholder fit the quota; the second placeholder does not.
  ASSERT_EQ(r.yk->placeholders("gang").size(), 1u);
  EXPECT_TRUE(r.placeholder_pods()[0]->deleted);
  EXPECT_EQ(r.yk->shim_state("gang"), ShimState::kRunning);
  EXPECT_EQ(r.yk->gang_message("gang").rfind("failed to create placeholder pod: ", 0), 0u) << r.yk->gang_message("gang");
  EXPECT_EQ(r.pod("p0").scheduled, SimTime::from_seconds(10));
  EXPECT_EQ(r.pod("p1").scheduled, SimTime::from_seconds(10));
}

// partition.go AddApplication: task groups need a FIFO queue; elsewhere the application is
// rejected (its pods stay pending here).
TEST(YuniKornGang, TaskGroupsNeedAFifoQueue) {
  GangRun r(4, 8);
  r.pod("p0", 4, 10, 100, task_groups(4, 4), "", "root.fair");
  r.start();
  r.sim->run();
  EXPECT_FALSE(r.pod("p0").node.valid());
  EXPECT_EQ(r.yk->gang_message("gang"),
            "queue root.fair cannot run application gang with task group request: unsupported sort type");
}

// Each pod of a rejected application comes to the partition again: the same queue and task
// groups are rejected again (one message), another queue can still take the application.
TEST(YuniKornGang, RejectionIsPerQueueAndTaskGroups) {
  GangRun r(4, 8);
  r.pod("p0", 4, 10, 100, task_groups(1, 4), "", "root.fair");
  r.pod("p1", 4, 20, 100, task_groups(1, 4), "", "root.fair");
  r.pod("p2", 4, 30, 100, task_groups(1, 4), "", "root.q");
  r.start();
  r.sim->run();
  EXPECT_FALSE(r.pod("p0").node.valid());
  EXPECT_FALSE(r.pod("p1").node.valid());
  EXPECT_TRUE(r.pod("p2").node.valid());
  EXPECT_EQ(r.yk->placeholders("gang").size(), 1u);
  EXPECT_EQ(r.yk->gang_message("gang"),
            "queue root.fair cannot run application gang with task group request: unsupported sort type");
}

TEST(YuniKornGang, ParsesTaskGroupsAsTheShimDoes) {
  ResourceNames names;
  // Keys match case-insensitively; unknown keys are ignored; quantities may be numbers.
  TaskGroupsResult ok = parse_task_groups(
      R"([{"NAME": "a", "minmember": 2, "minResource": {"cpu": 0.5, "memory": "1Gi", "nvidia.com/gpu": "1"},
           "nodeSelector": {"zone": "z1"}, "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
           "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms":
             [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}]}}},
           "labels": {"l": "v"}, "annotations": {"x": "y"}, "extra": true}])",
      names);
  ASSERT_EQ(ok.error, "");
  ASSERT_EQ(ok.groups.size(), 1u);
  const TaskGroupSpec& g = ok.groups[0];
  EXPECT_EQ(g.name, "a");
  EXPECT_EQ(g.min_member, 2);
  EXPECT_EQ(g.min_resource[kCpu], 500);
  EXPECT_EQ(g.min_resource[kMemory], 1024LL * 1024 * 1024);
  EXPECT_EQ(g.min_resource[static_cast<std::size_t>(names.find("nvidia.com/gpu"))], 1);
  EXPECT_EQ(*find_label(g.node_selector, "zone"), "z1");
  ASSERT_EQ(g.tolerations.size(), 1u);
  EXPECT_EQ(g.tolerations[0].op, Toleration::Operator::kExists);
  ASSERT_EQ(g.node_affinity.required_terms.size(), 1u);
  EXPECT_EQ(g.node_affinity.required_terms[0].match_expressions[0].values, std::vector<std::string>{"r1"});
  EXPECT_EQ(g.invalid, "");

  const std::pair<std::string, std::string> errors[] = {
      {"{", "invalid JSON"},
      {R"({"name": "a"})", "json: cannot unmarshal object into Go value of type []TaskGroup"},
      {R"([{"name": "a", "minMember": 1.0, "minResource": {}}])",
       "json: cannot unmarshal number 1.0 into Go struct field TaskGroup.minMember of type int32"},
      {R"([{"name": "a", "minMember": 1, "minResource": {"cpu": "x"}}])", "quantities must match"},
      {R"([{"minMember": 1, "minResource": {}}])", "can't get taskGroup Name from pod annotation, "},
      {R"([{"name": "a", "minMember": 1}])", "can't get taskGroup MinResource from pod annotation, "},
      {R"([{"name": "a", "minResource": {"cpu": "1"}}])", "can't get taskGroup MinMember from pod annotation, "},
      {R"([{"name": "a", "minMember": -1, "minResource": {}}])", "minMember cannot be negative, "},
  };
  for (const auto& [text, want] : errors) {
    const TaskGroupsResult r = parse_task_groups(text, names);
    EXPECT_EQ(r.error.rfind(want, 0), 0u) << text << " -> " << r.error;
    EXPECT_TRUE(r.groups.empty());
  }
  // null is no task groups (json.Unmarshal of null into a slice), not an error.
  EXPECT_EQ(parse_task_groups("null", names).error, "");
  // The API server would refuse such a placeholder: its creation fails later.
  EXPECT_NE(parse_task_groups(R"([{"name": "a", "minMember": 1, "minResource": {"cpu": "-1"}}])", names)
                .groups[0]
                .invalid,
            "");
}

TEST(YuniKornGang, ParsesSchedulingPolicyParameters) {
  SchedulingPolicy p = parse_scheduling_policy("placeholderTimeoutInSeconds=30 gangSchedulingStyle=Hard");
  EXPECT_EQ(p.timeout_seconds, 30);
  EXPECT_TRUE(p.hard);
  EXPECT_EQ(placeholder_timeout(p.timeout_millis()), Duration::seconds(30));
  // Unknown style: Soft; a timeout that does not parse is 0, so the default 15 min.
  p = parse_scheduling_policy("gangSchedulingStyle=hard  placeholderTimeoutInSeconds=15m a=b=c");
  EXPECT_FALSE(p.hard);
  EXPECT_EQ(p.timeout_seconds, 0);
  EXPECT_EQ(placeholder_timeout(p.timeout_millis()), Duration::seconds(900));
  EXPECT_EQ(placeholder_timeout(parse_scheduling_policy("placeholderTimeoutInSeconds=-5").timeout_millis()),
            Duration::seconds(900));
  EXPECT_EQ(placeholder_timeout(parse_scheduling_policy("").timeout_millis()), Duration::seconds(900));
}

}  // namespace
}  // namespace kubesim::yunikorn

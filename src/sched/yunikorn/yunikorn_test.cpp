// Hand-computed cases from the upstream semantics (research notes issue5_yunikorn.md §3).
#include "sched/yunikorn/yunikorn.hpp"

#include <gtest/gtest.h>

#include "core/read_file.hpp"
#include "workload/workload.hpp"

namespace kubesim::yunikorn {
namespace {

constexpr std::int64_t G = 1'000'000'000;

class NullHost final : public SchedulerHost {
 public:
  void post(SimTime, Phase, SchedulerEvent) override {}
};

Config study() { return load_config_text(kDefaultConfigText, kDefaultConfigName, ResourceNames()); }

struct Cluster {
  explicit Cluster(Config c) : yk(std::move(c), store, host, 1) { store.ensure_namespace("default"); }

  NodeId node(const std::string& name, std::int64_t cores, std::int64_t mem) {
    Node n;
    n.name = name;
    n.allocatable[kCpu] = n.capacity[kCpu] = cores * 1000;
    n.allocatable[kMemory] = n.capacity[kMemory] = mem;
    set_label(n.labels, "kubernetes.io/hostname", name);
    const NodeId id = store.create_node(n);
    yk.on_node_change(Change{ObjectKind::kNode, ChangeType::kAdded, id.value(), id, PodPhase::kPending, PodPhase::kPending, id},
                      SimTime());
    return id;
  }
  // A pending yunikorn pod in `queue` (one app per pod), created at `at`.
  PodId pod(const std::string& queue, std::int64_t cores, std::int64_t mem, double at, std::int32_t priority = 0,
            const std::string& on_node = "") {
    PodTemplate t = batch_job_template(cores * 1000, mem, "yunikorn");
    set_label(t.labels, "queue", queue);
    set_label(t.labels, "applicationId", "app-" + std::to_string(store.pod_count()));
    t.priority = priority;
    if (!on_node.empty()) set_label(t.node_selector, "kubernetes.io/hostname", on_node);
    Pod p;
    p.name = "p" + std::to_string(store.pod_count());
    p.ns = NamespaceId(0);
    p.spec = store.add_template(t);
    p.created = SimTime::from_seconds(at);
    const PodId id = store.create_pod(p);
    yk.on_pod_change(Change{ObjectKind::kPod, ChangeType::kAdded, id.value(), NodeId(), PodPhase::kPending,
                            PodPhase::kPending, NodeId()},
                     SimTime::from_seconds(at));
    return id;
  }
  // A pod of another scheduler running on `node` (occupied resources).
  void foreign(NodeId node, std::int64_t cores, std::int64_t mem) {
    PodTemplate t = batch_job_template(cores * 1000, mem, "default-scheduler");
    Pod p;
    p.name = "f" + std::to_string(store.pod_count());
    p.ns = NamespaceId(0);
    p.spec = store.add_template(t);
    p.node = node;
    const PodId id = store.create_pod(p);
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
  NullHost host;
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
  const Config c = load_config_text("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n"
                                    "          - name: a\n",
                                    "q.yaml", ResourceNames());
  EXPECT_TRUE(c.preemption_enabled);
  EXPECT_EQ(c.queues[c.find("root.a")].preemption_delay, Duration::seconds(30));
}

TEST(YuniKornConfig, BuiltInDefaultIsTheExampleFile) {
  EXPECT_EQ(read_input_file(std::string(KUBESIM_SOURCE_DIR) + "/" + kDefaultConfigName), std::string(kDefaultConfigText));
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
  const std::string q =
      "partitions:\n"
      "  - name: default\n"
      "    queues:\n"
      "      - name: root\n"
      "        queues:\n"
      "          - name: a\n"
      "            resources: {max: {vcore: 8}}\n"
      "          - name: b\n"
      "            resources: {guaranteed: {vcore: 4, memory: 4G}}\n";
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
  const std::string q =
      "partitions:\n"
      "  - name: default\n"
      "    queues:\n"
      "      - name: root\n"
      "        queues:\n"
      "          - name: t1\n"
      "            resources: {guaranteed: {vcore: 16, memory: 32G}}\n"
      "            properties: {preemption.delay: 1s}\n"
      "          - name: bf\n"
      "            properties: {priority.offset: -100}\n";
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

}  // namespace
}  // namespace kubesim::yunikorn

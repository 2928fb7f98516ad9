// scheduler-plugins (release-1.26 chart profile): hand-computed cases from
// docs/derivations/scheduler-plugins.md (upstream coscheduling.go, core.go,
// capacity_scheduling.go, elasticquota.go, allocatable.go).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/test_paths.hpp"
#include "sched/kube/plugins/capacity_scheduling/capacity_scheduling.hpp"
#include "sched/kube/plugins/coscheduling/coscheduling.hpp"
#include "sched/kube/plugins/node_resources_allocatable/node_resources_allocatable.hpp"
#include "sched/kube/scheduler.hpp"
#include "sched/scheduler_plugins_objects.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"

namespace kubesim {
namespace {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
constexpr std::int64_t kG = 1000LL * 1000 * 1000;

// The study's all-cap-quota.yaml quotas, in cores and G.
ElasticQuotaObject quota(const std::string& ns, std::int64_t min_cpu, std::int64_t min_mem_g, std::int64_t max_cpu,
                         std::int64_t max_mem_g) {
  ElasticQuotaObject q;
  q.ns = ns;
  q.name = ns;
  q.min[kCpu] = min_cpu * 1000;
  q.min[kMemory] = min_mem_g * kG;
  q.max[kCpu] = max_cpu * 1000;
  q.max[kMemory] = max_mem_g * kG;
  q.max_set[kCpu] = q.max_set[kMemory] = true;
  return q;
}

std::vector<ElasticQuotaObject> study_quotas() {
  return {quota("tenant1", 128, 512, 384, 1536), quota("tenant2", 64, 256, 384, 1536),
          quota("tenant3", 32, 128, 384, 1536), quota("default", 160, 640, 384, 1536),
          quota("backfill", 0, 0, 384, 1536)};
}

struct Cluster {
  ObjectStore store;
  testing::FakeSchedulerHost host{&store};  // records posted events; the zero-delay informer
  SchedulerPluginsObjects objects;
  std::unique_ptr<Scheduler> scheduler;

  explicit Cluster(SchedulerPluginsObjects objs) : objects(std::move(objs)) {
    for (const char* ns : {"default", "tenant1", "tenant2", "tenant3", "backfill", "x"}) store.ensure_namespace(ns);
    install_elastic_quotas(store, objects.elastic_quotas);
    install_pod_groups(store, objects.pod_groups);
    scheduler = std::make_unique<Scheduler>(store, scheduler_plugins_config(store.resource_names(), objects),
                                            SchedulerLatencies{}, 1, host);
    host.attach(scheduler.get());
    store.add_listener(&host);
  }
  CapacityScheduling& cs() { return *dynamic_cast<CapacityScheduling*>(scheduler->plugin("CapacityScheduling")); }
  Coscheduling& co() { return *dynamic_cast<Coscheduling*>(scheduler->plugin("Coscheduling")); }
  NodeId add_node(const std::string& name, std::int64_t cpu_milli, std::int64_t mem) {
    return store.create_node(testing::NodeBuilder(name).cpu_milli(cpu_milli).memory_bytes(mem));
  }
  PodId add_pod(const std::string& name, const std::string& ns, std::int64_t cpu_milli, std::int64_t mem,
                NodeId node = NodeId(), std::int32_t priority = 0, const std::string& group = "",
                SimTime start = SimTime::never(), const std::string& scheduler_name = "scheduler-plugins-scheduler") {
    testing::PodTemplateBuilder t;
    t.cpu_milli(cpu_milli).memory_bytes(mem).priority(priority).scheduler(scheduler_name);
    if (!group.empty()) t.label(kPodGroupLabel, group);
    Pod p = testing::PodBuilder(store.add_template(t)).name(name).ns(*store.find_namespace(ns)).created(host.now());
    if (node.valid()) {
      p.node = node;
      p.phase = PodPhase::kRunning;
    }
    p.start_time = start;  // not started: start_time only (the quota tests' start order)
    return store.create_pod(std::move(p));
  }
  // Runs the posted scheduler events in time order (then posting order, not phase) up to `until`.
  void run_until(SimTime until) {
    auto& posted = host.posted();
    for (;;) {
      auto it = std::min_element(posted.begin(), posted.end(), [](const auto& a, const auto& b) {
        return a.at != b.at ? a.at < b.at : a.seq < b.seq;
      });
      if (it == posted.end() || it->at > until) break;
      const testing::FakeSchedulerHost::Posted p = *it;
      posted.erase(it);
      host.set_now(p.at);
      scheduler->on_event(p.event, p.at);
    }
    host.set_now(until);
  }
};

// The scheduler-plugins objects of one PodGroup "x/pg" of `min_member` pods, made at `created`.
SchedulerPluginsObjects one_pod_group(std::int32_t min_member, SimTime created = SimTime::zero()) {
  SchedulerPluginsObjects objs;
  PodGroupObject pg;
  pg.ns = "x";
  pg.name = "pg";
  pg.min_member = min_member;
  pg.created = created;
  objs.pod_groups.push_back(pg);
  return objs;
}

// Case 7: NodeResourcesAllocatable, mode Least, default weights (cpu 1<<20 per millicore,
// memory 1 per byte).
TEST(NodeResourcesAllocatable, LeastFavoursSmallNodes) {
  NodeResourcesAllocatable plugin{NodeResourcesAllocatableArgs{}};
  Node nodes[3];
  const std::int64_t cores[3] = {8, 16, 32};
  NodeInfo infos[3];
  std::vector<const NodeInfo*> list;
  for (int i = 0; i < 3; ++i) {
    nodes[i].name = "n" + std::to_string(i + 1);
    nodes[i].allocatable[kCpu] = cores[i] * 1000;
    nodes[i].allocatable[kMemory] = cores[i] * 4 * kGi;
    infos[i].set_node(NodeId(static_cast<std::uint32_t>(i)), nodes[i]);
    list.push_back(&infos[i]);
  }
  // n1: -(8000*2^20 + 32*2^30) / (2^20 + 1) = -40767.96 -> -40767 (truncation toward zero).
  EXPECT_EQ(plugin.raw_score(infos[0]), -40767);
  EXPECT_EQ(plugin.raw_score(infos[1]), -81535);
  EXPECT_EQ(plugin.raw_score(infos[2]), -163071);
  ObjectStore store;
  ClusterStats stats;
  PodTemplate spec;
  const CycleContext ctx{store, PodId(0), spec, stats};
  std::vector<std::int64_t> scores(3);
  plugin.score(ctx, list, scores);
  // (s - lowest) * 100 / (highest - lowest): 100, (81536*100)/122304 = 66, 0.
  EXPECT_EQ(scores, (std::vector<std::int64_t>{100, 66, 0}));
  // A homogeneous cluster: every node MinNodeScore.
  infos[1] = infos[0];
  infos[2] = infos[0];
  plugin.score(ctx, list, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{0, 0, 0}));
}

// Case 6: Coscheduling.Less — priority, then PodGroup creation time or first attempt time,
// then "namespace/name".
TEST(Coscheduling, QueueSortOrder) {
  Cluster c(one_pod_group(1, SimTime::at(Duration::seconds(5))));
  c.add_node("n", 64000, 256 * kGi);
  const PodId x = c.add_pod("x", "x", 1000, kGi, NodeId(), 0, "pg");
  const PodId y = c.add_pod("y", "x", 1000, kGi);
  const PodId z = c.add_pod("z", "x", 1000, kGi, NodeId(), 10);
  const PodId w = c.add_pod("w", "x", 1000, kGi);
  Coscheduling plugin(CoschedulingArgs{});
  plugin.set_handle(c.scheduler.get());
  for (const PodId p : {x, y, z, w}) {
    Change ch{ObjectKind::kPod,   ChangeType::kAdded, p.value(), NodeId(),
              PodPhase::kPending, PodPhase::kPending, NodeId(),  false};
    plugin.on_pod_change(ch, SimTime::zero());
  }
  struct Entry {
    PodId pod;
    SimTime initial;
  };
  std::vector<Entry> entries = {{x, SimTime::at(Duration::seconds(1))},
                                {y, SimTime::at(Duration::seconds(3))},
                                {z, SimTime::at(Duration::seconds(9))},
                                {w, SimTime::at(Duration::seconds(3))}};
  std::sort(entries.begin(), entries.end(),
            [&](const Entry& a, const Entry& b) { return plugin.less(a.pod, a.initial, b.pod, b.initial); });
  std::vector<PodId> order;
  for (const auto& e : entries) order.push_back(e.pod);
  EXPECT_EQ(order, (std::vector<PodId>{z, w, y, x}));
}

// Cases 1 and 2: the PreFilter's max check and the aggregate (borrowing) check.
TEST(CapacityScheduling, BorrowingLimitedBySumOfMins) {
  SchedulerPluginsObjects objs;
  objs.elastic_quotas = study_quotas();
  Cluster c(objs);
  c.add_node("n", 512000, 2048 * kGi);
  CapacityScheduling& cs = c.cs();
  auto cores = [](std::int64_t n) {
    Resources r;
    r[kCpu] = n * 1000;
    return r;
  };
  cs.set_used(0, cores(300));
  cs.set_used(1, cores(60));
  cs.set_used(2, cores(20));
  ClusterStats stats;
  // 380 + 4 = 384, not over the sum of mins (384): admitted.
  const PodId ok = c.add_pod("ok", "tenant2", 4000, 0);
  EXPECT_TRUE(cs.pre_filter(CycleContext{c.store, ok, c.store.spec_of(ok), stats}, SimTime::zero()).ok());
  // 380 + 8 = 388 > 384: rejected although tenant2 (68) is far under its max (384).
  const PodId big = c.add_pod("big", "tenant2", 8000, 0);
  const PluginStatus st = cs.pre_filter(CycleContext{c.store, big, c.store.spec_of(big), stats}, SimTime::zero());
  EXPECT_EQ(st.code, StatusCode::kUnschedulable);
  EXPECT_EQ(st.message, "Pod tenant2/big is rejected in PreFilter because total ElasticQuota used is more than min");
  // A namespace without an ElasticQuota is not checked at all.
  const PodId free = c.add_pod("free", "x", 100000, 0);
  EXPECT_TRUE(cs.pre_filter(CycleContext{c.store, free, c.store.spec_of(free), stats}, SimTime::zero()).ok());
}

TEST(CapacityScheduling, MaxCheckedFirstAndMissingResourceIsZero) {
  SchedulerPluginsObjects objs;
  ElasticQuotaObject q;
  q.ns = "x";
  q.name = "xq";
  q.min[kCpu] = 4000;
  q.max[kCpu] = 8000;
  q.max_set[kCpu] = true;  // max: {cpu: 8}: memory max 0
  objs.elastic_quotas.push_back(q);
  Cluster c(objs);
  c.add_node("n", 64000, 64 * kGi);
  CapacityScheduling& cs = c.cs();
  Resources used;
  used[kCpu] = 6000;
  cs.set_used(0, used);
  ClusterStats stats;
  // 6 + 4 = 10 > 8: "more than Max" (the aggregate check is not reached).
  const PodId p = c.add_pod("p", "x", 4000, 0);
  const PluginStatus st = cs.pre_filter(CycleContext{c.store, p, c.store.spec_of(p), stats}, SimTime::zero());
  EXPECT_EQ(st.message, "Pod x/p is rejected in PreFilter because ElasticQuota xq is more than Max");
  // cpu 1 fits the max, but 1Mi of memory is over the missing (0) memory max.
  const PodId m = c.add_pod("m", "x", 1000, 1024 * 1024);
  EXPECT_EQ(cs.pre_filter(CycleContext{c.store, m, c.store.spec_of(m), stats}, SimTime::zero()).message,
            "Pod x/m is rejected in PreFilter because ElasticQuota xq is more than Max");
}

// The quotas are the store's ElasticQuota objects: one created, changed or deleted (as through
// `kubesim serve`) is what the next PreFilter checks; a new quota starts with no Used.
TEST(CapacityScheduling, FollowsTheStoresElasticQuotas) {
  Cluster c(SchedulerPluginsObjects{});
  c.add_node("n", 64000, 64 * kGi);
  CapacityScheduling& cs = c.cs();
  ClusterStats stats;
  const PodId p = c.add_pod("p", "x", 4000, 0);
  auto pre_filter = [&] { return cs.pre_filter(CycleContext{c.store, p, c.store.spec_of(p), stats}, SimTime::zero()); };
  EXPECT_TRUE(pre_filter().ok());  // no quota in x
  ElasticQuotaObject q;
  q.ns = "x";
  q.name = "xq";
  q.min[kCpu] = 2000;
  q.max[kCpu] = 2000;
  q.max_set.fill(true);
  ASSERT_TRUE(create_elastic_quota(c.store, q));
  EXPECT_EQ(pre_filter().message, "Pod x/p is rejected in PreFilter because ElasticQuota xq is more than Max");
  const ObjectKind kind = *c.store.find_kind(kPodGroupApiGroup, kElasticQuotaPlural);
  const std::uint32_t id = *c.store.find(kind, *c.store.find_namespace("x"), "xq");
  c.store.update<ElasticQuotaObject>(kind, id, [](ElasticQuotaObject& o) { o.min[kCpu] = o.max[kCpu] = 4000; });
  EXPECT_TRUE(pre_filter().ok());
  c.store.update<ElasticQuotaObject>(kind, id, [](ElasticQuotaObject& o) { o.max[kCpu] = 3000; });
  EXPECT_FALSE(pre_filter().ok());
  c.store.remove(kind, id);
  EXPECT_TRUE(pre_filter().ok());
}

// Case 4: equal-priority reclaim. DefaultPreemption finds no lower-priority pod; Coscheduling
// has no PodGroup; CapacityScheduling takes back tenant1's borrowed room: candidates A-D
// (tenant1 over its min), reprieved A, B, C, victim D.
TEST(CapacityScheduling, EqualPriorityReclaimPreemptsNewest) {
  SchedulerPluginsObjects objs;
  objs.elastic_quotas = study_quotas();
  Cluster c(objs);
  const NodeId n = c.add_node("n", 16000, 64 * kGi);
  PodId pods[4];
  const char* names[4] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i)
    pods[i] = c.add_pod(names[i], "tenant1", 4000, 0, n, 0, "", SimTime::at(Duration::seconds(10 * (i + 1))));
  CapacityScheduling& cs = c.cs();
  Resources r;
  r[kCpu] = 200000;
  cs.set_used(0, r);  // tenant1 200 > min 128
  r[kCpu] = 32000;
  cs.set_used(1, r);  // tenant2 32 < min 64
  const PodId p = c.add_pod("p", "tenant2", 4000, 0);
  c.scheduler->set_decide_time(SimTime::at(Duration::seconds(100)));
  const auto d = c.scheduler->decide(p);
  ASSERT_FALSE(d.node.valid());
  c.scheduler->run_post_filters(p, d, SimTime::at(Duration::seconds(100)));
  const auto& pre = c.scheduler->last_preemption();
  EXPECT_EQ(pre.node, n);
  EXPECT_EQ(pre.victims, (std::vector<PodId>{pods[3]}));
}

// CapacityScheduling's PodEligibleToPreemptOthers weighs the preemptor's quota with the
// nominated pods PreFilter counted in it (nominatedPodsReqInEQWithPodReq), as its
// SelectVictimsOnNode does. tenant1 (min 128) has 40 pods of 4 cores nominated to n1 (they
// never preempt), so with p it is over its min: a terminating backfill pod on p's nominated
// node n0 does not hold p back, p preempts again, finds no victim of its own namespace and
// loses its nomination (NominatingInfo ""). With p's 4 cores alone it would wait for n0.
TEST(CapacityScheduling, EligibilityCountsTheQuotasNominatedPods) {
  SchedulerPluginsObjects objs;
  objs.elastic_quotas = study_quotas();
  Cluster c(objs);
  const NodeId n0 = c.add_node("n0", 128000, 512 * kGi);
  const NodeId n1 = c.add_node("n1", 128000, 512 * kGi);
  const auto tmpl = [&](std::int32_t priority, PreemptionPolicy policy) {
    return c.store.add_template(testing::PodTemplateBuilder()
                                    .cpu_milli(priority < 0 ? 8000 : 4000)
                                    .priority(priority)
                                    .preemption_policy(policy)
                                    .scheduler("scheduler-plugins-scheduler"));
  };
  const PodTemplateId backfill = tmpl(-10, PreemptionPolicy::kPreemptLowerPriority);
  const PodTemplateId never = tmpl(0, PreemptionPolicy::kNever);
  const PodTemplateId preemptor = tmpl(0, PreemptionPolicy::kPreemptLowerPriority);
  const NamespaceId bf = *c.store.find_namespace("backfill");
  const NamespaceId t1 = *c.store.find_namespace("tenant1");
  PodId terminating;
  for (int i = 0; i < 32; ++i) {
    Pod b = testing::PodBuilder(backfill).name("b" + std::to_string(i)).ns(bf).created(SimTime::zero());
    b.node = i < 16 ? n0 : n1;
    b.phase = PodPhase::kRunning;
    if (i == 0) b.deletion_requested = SimTime::zero();
    const PodId id = c.store.create_pod(std::move(b));
    if (i == 0) terminating = id;
  }
  ASSERT_TRUE(c.store.pod(terminating).terminating());
  for (int i = 0; i < 40; ++i)
    c.store.create_pod(testing::PodBuilder(never).name("w" + std::to_string(i)).ns(t1).nominated(n1));
  c.run_until(SimTime::at(Duration::seconds(1)));
  ASSERT_EQ(c.scheduler->nominated_pods_on(n1).size(), 40u);
  const PodId p = c.store.create_pod(testing::PodBuilder(preemptor).name("p").ns(t1).nominated(n0));
  c.run_until(SimTime::at(Duration::seconds(2)));
  EXPECT_FALSE(c.store.pod(p).node.valid());
  EXPECT_FALSE(c.scheduler->nominated_node_of(p).valid());
  EXPECT_FALSE(c.store.pod(p).nominated_node.valid());
  // v1.26's FitError message carries a PreFilter rejection once (Diagnosis.PreFilterMsg).
  EXPECT_EQ(c.store.pod(p).unschedulable_message,
            "0/2 nodes are available: Pod tenant1/p is rejected in PreFilter because total ElasticQuota used is more "
            "than min.");
}

// Case 5: a gang of minMember 3 whose third pod never gets scheduled by this scheduler:
// p1 and p2 wait on Permit; the chart's 10 s timeout rejects p1, whose Unreserve rejects p2.
TEST(Coscheduling, PermitTimeoutRejectsTheGroup) {
  Cluster c(one_pod_group(3));
  c.add_node("n", 64000, 64 * kGi);
  c.add_pod("p3", "x", 1000, 0, NodeId(), 0, "pg", SimTime::never(), "other-scheduler");  // counts as a member
  const PodId p1 = c.add_pod("p1", "x", 1000, 0, NodeId(), 0, "pg");
  const PodId p2 = c.add_pod("p2", "x", 1000, 0, NodeId(), 0, "pg");
  c.run_until(SimTime::at(Duration::seconds(9)));
  EXPECT_TRUE(c.scheduler->is_waiting(p1));
  EXPECT_TRUE(c.scheduler->is_waiting(p2));
  EXPECT_EQ(c.co().assigned(0), 2);
  EXPECT_EQ(c.scheduler->bindings(), 0u);
  c.run_until(SimTime::at(Duration::seconds(10)));
  EXPECT_FALSE(c.scheduler->is_waiting(p1));
  EXPECT_FALSE(c.scheduler->is_waiting(p2));
  EXPECT_EQ(c.co().assigned(0), 0);
  EXPECT_EQ(c.store.pod(p1).unschedulable_message, "rejected due to timeout after waiting 10s at plugin Coscheduling");
  EXPECT_EQ(c.store.pod(p2).unschedulable_message, "rejection in Unreserve");
  EXPECT_NE(c.scheduler->queue().where(p1), SchedulingQueue::Where::kNone);
  EXPECT_NE(c.scheduler->queue().where(p2), SchedulingQueue::Where::kNone);
  EXPECT_EQ(c.scheduler->bindings(), 0u);
}

// The same gang with its third pod ours: p3's Permit finds 2 assumed + itself >= 3 and
// allows p1 and p2; all three bind.
TEST(Coscheduling, QuorumAllowsTheWaitingPods) {
  Cluster c(one_pod_group(3));
  c.add_node("n", 64000, 64 * kGi);
  const PodId p1 = c.add_pod("p1", "x", 1000, 0, NodeId(), 0, "pg");
  const PodId p2 = c.add_pod("p2", "x", 1000, 0, NodeId(), 0, "pg");
  const PodId p3 = c.add_pod("p3", "x", 1000, 0, NodeId(), 0, "pg");
  c.run_until(SimTime::at(Duration::seconds(1)));
  EXPECT_EQ(c.scheduler->bindings(), 3u);
  for (const PodId p : {p1, p2, p3}) EXPECT_TRUE(c.store.pod(p).node.valid());
}

// PreFilter: too few sibling pods -> UnschedulableAndUnresolvable with upstream's message.
TEST(Coscheduling, PreFilterNeedsMinMemberPods) {
  Cluster c(one_pod_group(3));
  c.add_node("n", 64000, 64 * kGi);
  const PodId p1 = c.add_pod("p1", "x", 1000, 0, NodeId(), 0, "pg");
  ClusterStats stats;
  const PluginStatus st = c.co().pre_filter(CycleContext{c.store, p1, c.store.spec_of(p1), stats}, SimTime::zero());
  EXPECT_EQ(st.code, StatusCode::kUnschedulableAndUnresolvable);
  EXPECT_EQ(st.message,
            "pre-filter pod p1 cannot find enough sibling pods, current pods number: 1, minMember of group: 3");
}

TEST(SchedulerPluginsObjects, ReadsTheStudyFileAsIs) {
  ResourceNames names;
  const auto objs = read_scheduler_plugins_objects(
      kubesim::testing::source_dir() + "/examples/scheduler-plugins/all-cap-quota.yaml", names);
  ASSERT_EQ(objs.elastic_quotas.size(), 5u);
  EXPECT_EQ(objs.elastic_quotas[0].ns, "tenant1");
  EXPECT_EQ(objs.elastic_quotas[0].min[kCpu], 128000);
  EXPECT_EQ(objs.elastic_quotas[0].min[kMemory], 512 * kG);
  EXPECT_EQ(objs.elastic_quotas[3].ns, "default");
  EXPECT_EQ(objs.elastic_quotas[3].name, "unused");
  EXPECT_EQ(objs.elastic_quotas[4].max[kMemory], 1536 * kG);
  EXPECT_EQ(objs.elastic_quotas[4].min[kMemory], 0);
}

}  // namespace
}  // namespace kubesim

// Hand-computed cases from Volcano v1.7.0's rules (docs/derivations/volcano.md).
#include "sched/volcano/volcano.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/error.hpp"
#include "sched/volcano/vc_queues.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"

namespace kubesim::volcano {
namespace {

constexpr std::int64_t Gi = 1LL << 30;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& text) {
  ResourceNames names;
  try {
    load_config(write_temp("vc.yaml", text), names);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(e.file().size());
  }
  return "no error";
}

std::string queues(const std::string& a, int wa, const std::string& b, int wb) {
  auto q = [](const std::string& n, int w) {
    return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: " + n + "}\nspec: {weight: " +
           std::to_string(w) + "}\n";
  };
  return q(a, wa) + "---\n" + q(b, wb);
}

struct Cluster {
  explicit Cluster(Config c) : vc(std::move(c), store, host, 1) {
    store.ensure_namespace("default");
    host.attach(&vc);  // the zero-delay informer: the nodes and pods below reach vc at once
    store.add_listener(&host);
  }

  void node(const std::string& name, std::int64_t cores, std::int64_t mem) {
    store.create_node(testing::NodeBuilder(name).cpu_milli(cores * 1000).memory_bytes(mem).hostname_label());
  }
  // A pending volcano pod (its own PodGroup, unless `group`), in `queue` when given.
  PodId pod(std::int64_t cores, const std::string& queue = "", const std::string& group = "", std::int32_t priority = 0) {
    testing::PodTemplateBuilder t;
    t.cpu_milli(cores * 1000).memory_bytes(Gi).scheduler("volcano").priority(priority);
    if (!queue.empty()) t.annotation(kQueueNameAnnotation, queue);
    if (!group.empty()) t.annotation(kGroupNameAnnotation, group);
    return store.create_pod(testing::PodBuilder(store.add_template(t)).name("p-x-" + std::to_string(store.pod_count())));
  }
  int committed(const std::vector<PodId>& pods) const {
    int n = 0;
    for (const PodId p : pods) n += vc.committed_node(p).valid() ? 1 : 0;
    return n;
  }

  ObjectStore store;
  testing::FakeSchedulerHost host{&store};
  Volcano vc;
};

Config with_group(std::int32_t min_member) {
  Config c = default_config();
  PodGroupSpec g;
  g.name = "gang";
  g.min_member = min_member;
  g.has_min_resources = true;
  g.min_resources[kCpu] = min_member * 3000;
  c.pod_groups.push_back(g);
  return c;
}

TEST(VolcanoConfig, TheReleaseDefault) {
  const Config c = default_config();
  ASSERT_EQ(c.conf.actions.size(), 3u);
  EXPECT_EQ(c.conf.actions[0], Action::kEnqueue);
  EXPECT_EQ(c.conf.actions[2], Action::kBackfill);
  ASSERT_EQ(c.conf.tiers.size(), 2u);
  EXPECT_EQ(c.conf.tiers[1].plugins.size(), 6u);
  EXPECT_FALSE(c.conf.find(Plugin::kGang)->preemptable);
  EXPECT_TRUE(c.conf.find(Plugin::kGang)->job_ready);
  EXPECT_FALSE(c.conf.find(Plugin::kDrf)->namespace_order);  // only when set
  ASSERT_EQ(c.queues.size(), 1u);
  EXPECT_EQ(c.queues[0].name, "default");
}

TEST(VolcanoConfig, ErrorsNameTheLineInsideAConfigMap) {
  const std::string cm =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  volcano-scheduler.conf: |\n"
      "    actions: \"enqueue, allocate\"\n    tiers:\n    - plugins:\n      - name: priority\n      - name: sla\n";
  EXPECT_EQ(load_error(cm),
            ":10: unknown plugin \"sla\" (kubesim models priority, gang, conformance, drf, proportion, predicates, "
            "nodeorder, binpack, overcommit)");
  EXPECT_EQ(load_error("actions: \"enqueue, shuffle\"\ntiers: []\n"),
            ":1: unknown action \"shuffle\" (expected enqueue, allocate, backfill, preempt, reclaim)");
  EXPECT_EQ(load_error("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\nspec: {weight: 0}\n"),
            ":4: expected Queue q.spec.weight to be an integer from 1 to 65535, got \"0\"");
  EXPECT_EQ(load_error("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {queue: nope}\n"),
            ":4: PodGroup names queue \"nope\", which is not defined");
  EXPECT_EQ(load_error("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
                       "spec:\n  minTaskMember: {ps: -1}\n"),
            ":5: expected PodGroup default/g.spec.minTaskMember.ps to be an integer from 0 to 1000000, got \"-1\"");
}

// Two nodes of 4 cpu and `n` pods of `cores` cpu in PodGroup "gang", after one session.
struct GangSession {
  GangSession(Config cfg, int n, std::int64_t cores) : c(std::move(cfg)) {
    c.node("n0", 4, 8 * Gi);
    c.node("n1", 4, 8 * Gi);
    for (int i = 0; i < n; ++i) pods.push_back(c.pod(cores, "", "gang"));
    c.vc.run_session(SimTime::from_seconds(1));
  }
  GroupPhase phase() const { return c.vc.group_phase("default", "gang"); }
  Cluster c;
  std::vector<PodId> pods;
};

// Gangs on two nodes of 4 cpu, after one session.
TEST(VolcanoGang, BoundWholeOrNotAtAll) {
  struct Case {
    const char* what;
    std::int32_t members;       // pods in the group = its minMember
    std::int64_t cores;         // per pod
    bool min_resources;         // minResources = members x 3 cpu
    int committed;
    GroupPhase phase;
  } cases[] = {
      // Enqueue admits a group without minResources unasked; two of three 3-cpu pods fit, so
      // the statement is discarded: none is bound.
      {"three 3-cpu pods, no minResources", 3, 3, false, 0, GroupPhase::kInqueue},
      // 9 cpu: overcommit admits it (9 <= 8 x 1.2), proportion does not (9 > the default
      // queue's realCapability, the cluster's 8 cpu).
      {"minResources beyond the queue", 3, 3, true, 0, GroupPhase::kPending},
      // 12 cpu > 8 x 1.2: overcommit refuses it, so allocate never sees it.
      {"minResources beyond the overcommitted cluster", 4, 1, true, 0, GroupPhase::kPending},
      {"two 3-cpu pods", 2, 3, true, 2, GroupPhase::kRunning},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    Config cfg = with_group(k.members);
    cfg.pod_groups[0].has_min_resources = k.min_resources;
    GangSession g(std::move(cfg), k.members, k.cores);
    EXPECT_EQ(g.c.committed(g.pods), k.committed);
    EXPECT_EQ(g.phase(), k.phase);
    if (k.committed == 2) {
      EXPECT_NE(g.c.vc.committed_node(g.pods[0]), g.c.vc.committed_node(g.pods[1]));
    }
  }
}

// session.go jobStatus: a gang below its minMember with a running task is Unknown; allocate
// still places its tasks (only Pending jobs are passed by), and it is Running again.
TEST(VolcanoGang, RunningGangThatLostAMemberIsUnknown) {
  GangSession g(with_group(2), 2, 3);
  ASSERT_EQ(g.c.committed(g.pods), 2);
  g.c.host.run_until(SimTime::from_seconds(1.5));  // the binds
  for (const PodId p : g.pods) g.c.store.update_pod(p, [](Pod& pod) { pod.phase = PodPhase::kRunning; });
  g.c.vc.run_session(SimTime::from_seconds(2));
  EXPECT_EQ(g.phase(), GroupPhase::kRunning);
  g.c.store.update_pod(g.pods[1], [](Pod& pod) { pod.phase = PodPhase::kFailed; });
  g.c.vc.run_session(SimTime::from_seconds(3));
  EXPECT_EQ(g.phase(), GroupPhase::kUnknown);
  const PodId replacement = g.c.pod(3, "", "gang");  // as a job controller re-creates the member
  g.c.vc.run_session(SimTime::from_seconds(4));
  EXPECT_EQ(g.c.committed({replacement}), 1);
  EXPECT_EQ(g.phase(), GroupPhase::kRunning);
}

TEST(VolcanoProportion, QueuesShareTheClusterByWeight) {
  // 8 cpu; queues a (weight 3) and b (weight 1), 8 one-cpu pods each (a PodGroup per pod,
  // minResources 1 cpu). enqueue admits a's 8 groups, then b's first (9 <= 9.6) but not its
  // second (10 > 9.6, overcommit); proportion gives a 6 cpu and b 2; a takes its 6, b its 1.
  Config cfg = default_config();
  ResourceNames names;
  cfg = load_config(write_temp("q.yaml", queues("a", 3, "b", 1)), names);
  Cluster c(std::move(cfg));
  c.node("n0", 4, 16 * Gi);
  c.node("n1", 4, 16 * Gi);
  std::vector<PodId> a, b;
  for (int i = 0; i < 8; ++i) a.push_back(c.pod(1, "a"));
  for (int i = 0; i < 8; ++i) b.push_back(c.pod(1, "b"));
  c.host.run_until(SimTime::from_seconds(0.5));  // the controller makes their groups
  c.vc.run_session(SimTime::from_seconds(1));
  EXPECT_EQ(c.committed(a), 6);
  EXPECT_EQ(c.committed(b), 1);
  EXPECT_EQ(c.vc.group_of(a[0]), "podgroup-" + c.store.pod(a[0]).name);
}

// Binds what the last session committed and marks the pods running.
void bind_and_run(Cluster& c, const std::vector<PodId>& pods, double until) {
  c.host.run_until(SimTime::from_seconds(until));
  for (const PodId p : pods) c.store.update_pod(p, [](Pod& pod) { pod.phase = PodPhase::kRunning; });
}

TEST(VolcanoReclaim, AQueueBelowItsShareTakesBackFromAnOverusedOne) {
  // Queue a's PodGroup "big" (minMember 1) runs 8 one-cpu pods on 2 x 4 cpu; queue b (same
  // weight) then has one-cpu pods waiting: deserved 4 / 4, so reclaim evicts one pod of "big"
  // beyond its minMember (gang's victims; tier 1 decides) and pipelines b's task there.
  ResourceNames names;
  Config cfg = load_config(write_temp("r.yaml", queues("a", 1, "b", 1)), names);
  cfg.conf = parse_scheduler_conf(
      "actions: \"enqueue, allocate, backfill, reclaim\"\n"
      "tiers:\n- plugins: [{name: priority}, {name: gang}, {name: conformance}]\n"
      "- plugins: [{name: overcommit}, {name: drf}, {name: predicates}, {name: proportion}, {name: nodeorder}]\n",
      "conf");
  PodGroupSpec big;
  big.name = "big";
  big.queue = "a";
  cfg.pod_groups.push_back(big);
  Cluster c(std::move(cfg));
  c.node("n0", 4, 16 * Gi);
  c.node("n1", 4, 16 * Gi);
  std::vector<PodId> a;
  for (int i = 0; i < 8; ++i) a.push_back(c.pod(1, "", "big"));
  c.vc.run_session(SimTime::from_seconds(1));
  ASSERT_EQ(c.committed(a), 8);
  bind_and_run(c, a, 2);
  std::vector<PodId> b;
  for (int i = 0; i < 4; ++i) b.push_back(c.pod(1, "b"));
  c.vc.run_session(SimTime::from_seconds(3));
  EXPECT_EQ(c.vc.evictions(), 1u);
  int deleting = 0;
  for (const PodId p : a) deleting += c.store.pod(p).terminating() ? 1 : 0;
  EXPECT_EQ(deleting, 1);
  EXPECT_EQ(c.committed(b), 0);  // pipelined only: bound once the victim is gone
}

TEST(VolcanoPreempt, AHigherPriorityJobEvictsJustEnoughOfALowerOne) {
  // One node of 4 cpu full of four 1-cpu pods of priority 0; a 2-cpu pod of priority 100
  // (no overcommit or proportion plugin, so enqueue admits it): preempt evicts two victims
  // (priority's and conformance's votes) and pipelines the preemptor.
  Config cfg = default_config();
  cfg.conf = parse_scheduler_conf(
      "actions: \"enqueue, allocate, preempt\"\n"
      "tiers:\n- plugins: [{name: priority}, {name: gang, enablePreemptable: false}, {name: conformance}]\n"
      "- plugins: [{name: drf, enablePreemptable: false}, {name: predicates}, {name: nodeorder}]\n",
      "conf");
  Cluster c(std::move(cfg));
  c.node("n0", 4, 16 * Gi);
  std::vector<PodId> low;
  for (int i = 0; i < 4; ++i) low.push_back(c.pod(1));
  c.host.run_until(SimTime::from_seconds(0.5));
  c.vc.run_session(SimTime::from_seconds(1));
  ASSERT_EQ(c.committed(low), 4);
  bind_and_run(c, low, 2);
  const PodId high = c.pod(2, "", "", 100);
  c.vc.run_session(SimTime::from_seconds(3));
  EXPECT_EQ(c.vc.evictions(), 2u);
  int deleting = 0;
  for (const PodId p : low) deleting += c.store.pod(p).terminating() ? 1 : 0;
  EXPECT_EQ(deleting, 2);
  EXPECT_FALSE(c.vc.committed_node(high).valid());  // pipelined: bound once the victims are gone
}

TEST(VolcanoController, ItsClientRateLimitSpreadsABurstOverSessions) {
  // 160 plain pods at 0: the controller starts 100 ms (+1 us) in, on the binary's clock; one
  // PATCH each, 100 tokens at once then one per 20 ms. Pod i (token i + 1) is annotated at
  // 0.100001 + max(0, i - 99) x 0.02 s and joins the model 100 ms earlier (the sessions'
  // phase): none before the session at 0, pods 0-148 before the one at 1 s, 149 after it.
  Cluster c(default_config());
  c.node("n0", 4, 8 * Gi);
  std::vector<PodId> pods;
  for (int i = 0; i < 160; ++i) pods.push_back(c.pod(0));
  EXPECT_EQ(c.vc.group_of(pods[0]), "");
  c.host.run_until(SimTime::from_seconds(1));
  EXPECT_EQ(c.vc.group_of(pods[0]), "podgroup-" + c.store.pod(pods[0]).name);
  EXPECT_EQ(c.vc.group_of(pods[148]), "podgroup-" + c.store.pod(pods[148]).name);
  EXPECT_EQ(c.vc.group_of(pods[149]), "");
  c.host.run_until(SimTime::from_seconds(1.25));
  EXPECT_EQ(c.vc.group_of(pods[149]), "podgroup-" + c.store.pod(pods[149]).name);
  EXPECT_EQ(c.vc.group_of(pods[159]), "podgroup-" + c.store.pod(pods[159]).name);  // joins at 1.200001
}

TEST(VolcanoEnqueue, APodGroupWithoutPodsIsEnqueuedAndHoldsItsMinResources) {
  // cache.go Snapshot takes every PodGroup: "early" (minResources 8 cpu, no pod yet) is
  // enqueued in the session at 0 (8 <= 1.2 x 8); a plain 2-cpu pod's group comes at 1 s and
  // overcommit refuses it (8 + 2 > 9.6): it waits although the cluster is empty.
  Config cfg = default_config();
  PodGroupSpec g;
  g.name = "early";
  g.min_member = 4;
  g.has_min_resources = true;
  g.min_resources[kCpu] = 8000;
  cfg.pod_groups.push_back(g);
  Cluster c(std::move(cfg));
  c.node("n0", 4, 16 * Gi);
  c.node("n1", 4, 16 * Gi);
  const PodId p = c.pod(2);
  c.vc.run_session(SimTime::zero());
  EXPECT_EQ(c.vc.group_phase("default", "early"), GroupPhase::kInqueue);
  c.host.run_until(SimTime::from_seconds(0.5));
  c.vc.run_session(SimTime::from_seconds(1));
  EXPECT_FALSE(c.vc.committed_node(p).valid());
  EXPECT_EQ(c.vc.group_phase("default", c.vc.group_of(p)), GroupPhase::kPending);
}

TEST(VolcanoGang, MinTaskMemberHoldsAJobWhoseTaskFallsShort) {
  // PodGroup tf: minMember 3, minTaskMember {ps: 1, worker: 2}; one node of 4 cpu; three
  // 1-cpu workers (priority 10: allocated first) and a 2-cpu ps. After the workers, 3 tasks
  // are allocated but no ps (CheckTaskReady fails) and the ps does not fit the 1 cpu left:
  // the job is neither ready nor pipelined, its statement is discarded, nothing binds.
  // Without the task minimums the three workers would have been a ready gang.
  Config cfg = default_config();
  PodGroupSpec g;
  g.name = "tf";
  g.min_member = 3;
  g.min_task_member = {{"ps", 1}, {"worker", 2}};
  cfg.pod_groups.push_back(g);
  Cluster c(std::move(cfg));
  c.node("n0", 4, 16 * Gi);
  auto task_pod = [&](const std::string& task, std::int64_t cores, std::int32_t priority) {
    testing::PodTemplateBuilder t;
    t.cpu_milli(cores * 1000).memory_bytes(Gi).scheduler("volcano").priority(priority);
    t.annotation(kGroupNameAnnotation, "tf").annotation(kTaskSpecAnnotation, task);
    return c.store.create_pod(testing::PodBuilder(c.store.add_template(t)).name(task + std::to_string(c.store.pod_count())));
  };
  std::vector<PodId> pods{task_pod("worker", 1, 10), task_pod("worker", 1, 10), task_pod("worker", 1, 10), task_pod("ps", 2, 0)};
  c.vc.run_session(SimTime::from_seconds(1));
  EXPECT_EQ(c.committed(pods), 0);
}

TEST(VolcanoSession, APodNamingAMissingPodGroupIsNotScheduled) {
  Cluster c(default_config());
  c.node("n0", 4, 8 * Gi);
  const PodId p = c.pod(1, "", "missing");
  c.vc.run_session(SimTime::from_seconds(1));
  EXPECT_FALSE(c.vc.committed_node(p).valid());
  EXPECT_EQ(c.vc.group_of(p), "");
}

TEST(VolcanoQueues, TheStoresQueuesAreThoseOfTheNextSession) {
  // Queues are the store's (vc_queues.hpp): pods of queue "c" wait while it does not exist;
  // created with a capability of 1 cpu, one of two is placed; raised to 2, the other; once
  // deleted, a new pod of it is not scheduled.
  Cluster c(default_config());
  c.node("n0", 4, 16 * Gi);
  const ObjectKind kind = *c.store.find_kind(kVolcanoSchedulingGroup, kQueuePlural);
  ASSERT_EQ(c.store.object_count(kind), 1u);  // default
  const std::vector<PodId> pods{c.pod(1, "c"), c.pod(1, "c")};
  c.host.run_until(SimTime::from_seconds(0.5));
  c.vc.run_session(SimTime::from_seconds(1));
  EXPECT_EQ(c.committed(pods), 0);
  // The model's PodGroups are in the store once a session has seen them, with their phase.
  const ObjectKind groups = *c.store.find_kind(kVolcanoSchedulingGroup, kVolcanoPodGroupPlural);
  ASSERT_EQ(c.store.object_count(groups), 2u);
  EXPECT_EQ(c.store.get<GroupObject>(groups, 0).spec.queue, "c");
  EXPECT_EQ(c.store.get<GroupObject>(groups, 0).phase, GroupPhase::kPending);
  QueueSpec q;
  q.name = "c";
  q.capability[kCpu] = 1000;
  q.capability_slots = 1u << kCpu;
  const std::uint32_t id = c.store.create(kind, ObjectMeta{"c", NamespaceId(), 0, false}, q);
  c.vc.run_session(SimTime::from_seconds(2));
  EXPECT_EQ(c.committed(pods), 1);
  EXPECT_EQ(c.vc.config().queues[id].name, "c");
  c.store.update<QueueSpec>(kind, id, [](QueueSpec& s) { s.capability[kCpu] = 2000; });
  c.vc.run_session(SimTime::from_seconds(3));
  EXPECT_EQ(c.committed(pods), 2);
  EXPECT_EQ(c.store.get<GroupObject>(groups, 1).phase, GroupPhase::kRunning);
  c.store.remove(kind, id);
  const PodId late = c.pod(1, "c");
  c.host.run_until(SimTime::from_seconds(3.5));
  c.vc.run_session(SimTime::from_seconds(4));
  EXPECT_EQ(c.committed({late}), 0);
  EXPECT_EQ(c.vc.config().queues[id].name, "");
}

}  // namespace
}  // namespace kubesim::volcano

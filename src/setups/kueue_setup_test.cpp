// Whole-simulation checks of the kueue setup with the ideal latency model and zero Kueue API
// latency, so every time is exact: admission by un-suspending Jobs, quota release on
// completion, preemption by suspending (the Job controller deletes the pods without counting
// them as failed) and re-admission.
#include <gtest/gtest.h>

#include <string>

#include "engine/simulation.hpp"
#include "sched/kueue/kueue_controller.hpp"
#include "setups/scheduler_setup.hpp"
#include "testing/inputs.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

// Two cores of quota in ClusterQueue "cq"; LocalQueue "lq" in t1; lower priorities preempted.
const testing::KueueQueue kQueue{
    .local_queue_ns = "t1", .cpu_quota = 2, .preemption = "{withinClusterQueue: LowerPriority}", .frameworks = ""};

// A Job in namespace t1 (where LocalQueue lq is) of template `tmpl`.
WorkloadJob job(const std::string& name, double submit, double run, std::uint32_t tmpl) {
  return testing::JobBuilder(name, submit, run).as_job().ns(NamespaceId(1)).tmpl(tmpl);
}

SimulationInputs inputs(std::vector<WorkloadJob> jobs) {
  SimulationInputs in;
  in.nodes.push_back(testing::NodeBuilder("n1").cpu("4").memory("64Gi"));
  in.workload.namespaces = {"default", "t1"};
  in.workload.templates.push_back(testing::PodTemplateBuilder().cpu("2").priority_class("low"));
  in.workload.templates.push_back(testing::PodTemplateBuilder().cpu("1").priority_class("high"));
  in.priority_classes = {PriorityClass{"low", -10}, PriorityClass{"high", 10}};
  in.workload.jobs = std::move(jobs);
  in.scheduler = default_scheduler_config(in.resource_names);  // the cluster's kube-scheduler
  const testing::ScratchDir dir;                               // the setup reads the file at once
  apply_setup(find_setup("kueue"), in,
              SetupOptions{.config_file = dir.write("kueue.yaml", testing::kueue_config(kQueue)), .pod_groups = {}});
  return in;
}

std::vector<const Pod*> pods_of(const Simulation& sim, std::uint32_t workload_job) {
  std::vector<const Pod*> out;
  for (const PodId p : sim.pods_of_job(sim.job_objects()[workload_job])) out.push_back(&sim.store().pod(p));
  return out;
}

TEST(KueueSetup, JobsAreCreatedSuspendedWithTheQueueLabel) {
  SimulationInputs in = inputs({job("a", 0, 10, 1)});
  ASSERT_TRUE(in.workload.jobs[0].suspend);
  EXPECT_EQ(*find_label(in.workload.jobs[0].job_labels, kueue::kQueueNameLabel), "lq");
  EXPECT_TRUE(in.other_schedulers.empty());
  ASSERT_EQ(in.controllers.size(), 1u);  // Kueue is a Controller, not a scheduler model
}

// Nominal quota 2 cpu; three Jobs of 1 cpu, 10 s, at t=0. Two are admitted at once; the
// third when the first finishes: its pod succeeds at 10 s, the Job controller syncs after
// the 1 s pod-update batch (11 s) and marks it Complete, Kueue finishes the Workload, admits
// the third Job and un-suspends it, and its pod is created at 11 s.
TEST(KueueSetup, AdmitsWithinNominalQuota) {
  Simulation sim(inputs({job("j0", 0, 10, 1), job("j1", 0, 10, 1), job("j2", 0, 10, 1)}), testing::ideal_options());
  sim.run();
  ASSERT_EQ(pods_of(sim, 0).size(), 1u);
  EXPECT_EQ(pods_of(sim, 0)[0]->created, SimTime::zero());
  EXPECT_EQ(pods_of(sim, 1)[0]->created, SimTime::zero());
  ASSERT_EQ(pods_of(sim, 2).size(), 1u);
  EXPECT_EQ(pods_of(sim, 2)[0]->created, SimTime::from_seconds(11));
  for (std::uint32_t i = 0; i < 3; ++i) {
    const Job& j = sim.store().job(sim.job_objects()[i]);
    EXPECT_EQ(j.condition, JobCondition::kComplete);
    EXPECT_FALSE(j.suspend);
  }
  // startTime is set when the Job is first un-suspended (JobResumed resets it).
  EXPECT_EQ(sim.store().job(sim.job_objects()[2]).start_time, SimTime::from_seconds(11));
}

// withinClusterQueue LowerPriority: "low" (2 cpu, 100 s) runs from 0; "high" (1 cpu, 10 s)
// arrives at 5: Preempt mode (1 <= nominal), target low. low's Job is suspended, the Job
// controller deletes its pod (not counted as failed) and reports active 0; the reservation
// is unset, high is admitted and its pod created at 5 s. high completes at 15 s + 1 s batch;
// low is admitted again and gets a second pod at 16 s.
TEST(KueueSetup, PreemptsBySuspendingTheJob) {
  Simulation sim(inputs({job("low", 0, 100, 0), job("high", 5, 10, 1)}), testing::ideal_options());
  sim.run();
  const auto low = pods_of(sim, 0);
  const auto high = pods_of(sim, 1);
  ASSERT_EQ(high.size(), 1u);
  EXPECT_EQ(high[0]->created, SimTime::from_seconds(5));
  ASSERT_EQ(low.size(), 2u);
  EXPECT_EQ(low[0]->created, SimTime::zero());
  EXPECT_EQ(low[0]->deletion_requested, SimTime::from_seconds(5));
  EXPECT_EQ(low[1]->created, SimTime::from_seconds(16));
  const Job& lj = sim.store().job(sim.job_objects()[0]);
  EXPECT_EQ(lj.failed, 0);
  EXPECT_EQ(lj.condition, JobCondition::kComplete);
  EXPECT_EQ(lj.start_time, SimTime::from_seconds(16));
}

// Every request of the manager shares one token bucket (cmd/kueue/main.go sets
// kubeConfig.RateLimiter): Events and the queues' status updates too. qps 1, burst 1, zero
// latency, one Job of 1 cpu: the Workload's creation takes the token at 0; its
// CreatedWorkload Event reserves 1 s, the admission 2 s; at 1 s the ClusterQueue's and the
// LocalQueue's reconciles (1 s after the Workload's creation) reserve 3 s and 4 s; the
// admission lands at 2 s, its QuotaReserved Event reserves 5 s (Admitted waits behind it on
// the event sink's one goroutine), and the Job's un-suspension 6 s: the pod is created at 6 s,
// where the Workload and Job writes alone would have it at 2 s.
TEST(KueueSetup, EventsAndQueueStatusWritesShareTheClientsTokenBucket) {
  SimulationInputs in;
  in.nodes.push_back(testing::NodeBuilder("n1").cpu("4").memory("64Gi"));
  in.workload.namespaces = {"default", "t1"};
  in.workload.templates.push_back(testing::PodTemplateBuilder().cpu("1"));
  in.workload.jobs = {job("a", 0, 10, 0)};
  in.scheduler = default_scheduler_config(in.resource_names);
  std::string config = testing::kueue_config(kQueue);
  const std::string unthrottled = "clientConnection: {qps: 1000000, burst: 1000000}";
  config.replace(config.find(unthrottled), unthrottled.size(), "clientConnection: {qps: 1, burst: 1}");
  const testing::ScratchDir dir;
  apply_setup(find_setup("kueue"), in, SetupOptions{.config_file = dir.write("kueue.yaml", config), .pod_groups = {}});
  Simulation sim(std::move(in), testing::ideal_options());
  sim.run();
  ASSERT_EQ(pods_of(sim, 0).size(), 1u);
  EXPECT_EQ(pods_of(sim, 0)[0]->created, SimTime::from_seconds(6));
  const auto* kueue = sim.find_controller<kueue::Controller>();
  ASSERT_NE(kueue, nullptr);
  // CreatedWorkload, QuotaReserved, Admitted, Started, FinishedWorkload; none dropped.
  EXPECT_EQ(kueue->events(), 5u);
  EXPECT_EQ(kueue->events_dropped(), 0u);
  // Three batches (after the creation, the admission and the finish: the last one 1 s after
  // the finish, while the Workload's finalizer removal still waits 2 s for its token behind
  // FinishedWorkload), each a ClusterQueue and a LocalQueue reconcile of two updates (the
  // second woken by the first's own watch event).
  EXPECT_EQ(kueue->queue_status_writes(), 12u);
}

// ---- Plain pods and pod groups (the pod integration: pod_webhook.go, pod_controller.go) ----

SimulationInputs pod_inputs() {
  SimulationInputs in;
  in.nodes.push_back(testing::NodeBuilder("n1").cpu("8").memory("64Gi"));
  in.workload.namespaces = {"default", "t1"};
  in.scheduler = default_scheduler_config(in.resource_names);
  testing::KueueQueue queue = kQueue;
  queue.cpu_quota = 4;
  queue.frameworks = "[batch/job, pod]";
  const testing::ScratchDir dir;
  apply_setup(find_setup("kueue"), in, SetupOptions{dir.write("kueue.yaml", testing::kueue_config(queue)), {}});
  return in;
}

// A pod of group `group` ("": no group label) with total count `total` (-1: no annotation) in t1, `cpu` millicores,
// priority `priority`, labelled with queue lq unless `queued` is false. Returns the pod, or the API's refusal.
std::variant<PodId, std::string> create(Simulation& sim, const std::string& name, const std::string& group, int total,
                                        std::int64_t cpu, bool queued = true, std::int32_t priority = 0) {
  WorkloadJob j;
  j.name = name;
  j.ns = NamespaceId(1);
  j.run_time = Duration::max();
  PodTemplate t = batch_job_template(cpu, std::nullopt);
  t.priority = priority;
  if (queued) set_label(t.labels, kueue::kQueueNameLabel, "lq");
  if (!group.empty()) set_label(t.labels, kueue::kPodGroupNameLabel, group);
  if (total >= 0) set_label(t.annotations, kueue::kPodGroupTotalCountAnnotation, std::to_string(total));
  auto created = sim.create_from_api(std::move(j), std::move(t));
  if (auto* refused = std::get_if<std::string>(&created)) return *refused;
  return std::get<Simulation::Created>(created).pod;
}

PodId must_create(Simulation& sim, const std::string& name, const std::string& group, int total, std::int64_t cpu,
                  std::int32_t priority = 0) {
  auto r = create(sim, name, group, total, cpu, true, priority);
  if (auto* refused = std::get_if<std::string>(&r)) ADD_FAILURE() << *refused;
  return std::get<PodId>(r);
}

// A group of 3 pods: the webhook gates each one; nothing happens (no Workload, no scheduling
// attempt) until the third exists; then the Workload is created and admitted, every pod is
// ungated, and kube-scheduler binds all three at that instant (ideal model, zero API latency).
TEST(KueuePods, GroupIsGatedUntilAllPodsExistThenAdmittedAtOnce) {
  Simulation sim(pod_inputs(), testing::ideal_options());
  const PodId a = must_create(sim, "a", "g", 3, 1000);
  const PodId b = must_create(sim, "b", "g", 3, 1000);
  sim.advance_to(SimTime::from_seconds(5));
  for (const PodId p : {a, b}) {
    const Pod& pod = sim.store().pod(p);
    ASSERT_EQ(pod.scheduling_gates, std::vector<std::string>{kueue::kAdmissionGate});
    EXPECT_FALSE(pod.node.valid());
    EXPECT_EQ(pod.scheduling_attempts, 0u);
  }
  const auto* kueue = sim.find_controller<kueue::Controller>();
  ASSERT_NE(kueue, nullptr);
  EXPECT_EQ(kueue->workload_of_pod(a), -1);
  const PodId c = must_create(sim, "c", "g", 3, 1000);
  sim.advance_to(SimTime::from_seconds(6));
  EXPECT_EQ(kueue->admissions(), 1u);
  for (const PodId p : {a, b, c}) {
    const Pod& pod = sim.store().pod(p);
    EXPECT_TRUE(pod.scheduling_gates.empty());
    EXPECT_EQ(pod.scheduled, SimTime::from_seconds(5)) << pod.name;
  }
  EXPECT_EQ(kueue->cache().usage(0, 0, kCpu), 3000);
}

// Quota 4 cpu: group "big" (3 x 2 cpu) never fits and stays gated without a scheduling
// attempt; group "small" (2 x 1 cpu), created after it, is admitted (BestEffortFIFO). A pod
// without the queue label is not Kueue's: not gated, bound at once.
TEST(KueuePods, GroupOverQuotaStaysGated) {
  Simulation sim(pod_inputs(), testing::ideal_options());
  std::vector<PodId> big;
  for (const char* n : {"b0", "b1", "b2"}) big.push_back(must_create(sim, n, "big", 3, 2000));
  const PodId s0 = must_create(sim, "s0", "small", 2, 1000);
  const PodId s1 = must_create(sim, "s1", "small", 2, 1000);
  const auto free = create(sim, "free", "", -1, 1000, false);
  sim.run();
  for (const PodId p : big) {
    EXPECT_FALSE(sim.store().pod(p).node.valid());
    EXPECT_FALSE(sim.store().pod(p).scheduling_gates.empty());
    EXPECT_EQ(sim.store().pod(p).scheduling_attempts, 0u);
  }
  for (const PodId p : {s0, s1}) EXPECT_EQ(sim.store().pod(p).scheduled, SimTime::zero());
  EXPECT_TRUE(sim.store().pod(std::get<PodId>(free)).scheduling_gates.empty());
  EXPECT_EQ(sim.store().pod(std::get<PodId>(free)).scheduled, SimTime::zero());
}

// Group A (3 x 1 cpu) holds 3 of the 4 cpu; group B (2 x 1 cpu) waits. When A's pods are
// deleted (at 10 s) and gone, A's Workload is released and B admitted: B's pods are bound
// when A's last pod has left the API.
TEST(KueuePods, DeletedGroupReleasesItsQuota) {
  Simulation sim(pod_inputs(), testing::ideal_options());
  std::vector<PodId> a;
  for (const char* n : {"a0", "a1", "a2"}) a.push_back(must_create(sim, n, "a", 3, 1000));
  sim.advance_to(SimTime::from_seconds(1));
  const PodId b0 = must_create(sim, "b0", "b", 2, 1000);
  const PodId b1 = must_create(sim, "b1", "b", 2, 1000);
  sim.advance_to(SimTime::from_seconds(10));
  EXPECT_FALSE(sim.store().pod(b0).node.valid());
  for (const PodId p : a)
    sim.store().delete_pod(p, sim.now(), Duration::seconds(30), DisruptionReason::kDeletionByUser);
  while (!sim.store().pod(b1).node.valid() && sim.has_work()) sim.advance_to(sim.next_event_time());
  SimTime gone = SimTime::zero();
  for (const PodId p : a) {
    ASSERT_TRUE(sim.store().pod(p).deleted);
    gone = std::max(gone, sim.store().pod(p).finished);
  }
  EXPECT_GE(sim.store().pod(b0).scheduled, gone);
  EXPECT_EQ(sim.store().pod(b0).scheduled, sim.store().pod(b1).scheduled);
}

// A preempted pod group is admitted again as a pod group. Quota 4 cpu: group "low" (2 x 2 cpu,
// priority -10) is admitted at 0; the single pod "high" (2 cpu, priority 10) preempts it at 5
// (withinClusterQueue LowerPriority): Stop deletes low's two pods, and once none runs the
// reservation is unset and high admitted. Replacement pods r0, r1 of group low (created at 6,
// gated) keep its Workload. When high's pod is deleted and gone, low is admitted again and
// startJob ungates r0 and r1 (the Workload is still the group's, not a Job's).
TEST(KueuePods, PreemptedGroupIsReadmittedAsAGroup) {
  Simulation sim(pod_inputs(), testing::ideal_options());
  std::vector<PodId> low;
  for (const char* n : {"l0", "l1"}) low.push_back(must_create(sim, n, "low", 2, 2000, -10));
  sim.advance_to(SimTime::from_seconds(5));
  const PodId high = must_create(sim, "high", "", -1, 2000, 10);
  sim.advance_to(SimTime::from_seconds(6));
  for (const PodId p : low) EXPECT_TRUE(sim.store().pod(p).terminating() || sim.store().pod(p).deleted);
  const PodId r0 = must_create(sim, "r0", "low", 2, 2000, -10);
  const PodId r1 = must_create(sim, "r1", "low", 2, 2000, -10);
  while (!sim.store().pod(high).node.valid() && sim.has_work()) sim.advance_to(sim.next_event_time());
  ASSERT_TRUE(sim.store().pod(high).node.valid());
  const auto* kueue = sim.find_controller<kueue::Controller>();
  ASSERT_NE(kueue, nullptr);
  EXPECT_EQ(kueue->evictions(), 1u);
  EXPECT_FALSE(sim.store().pod(r0).scheduling_gates.empty());
  sim.store().delete_pod(high, sim.now(), Duration::seconds(30), DisruptionReason::kDeletionByUser);
  while (!sim.store().pod(r1).node.valid() && sim.has_work()) sim.advance_to(sim.next_event_time());
  EXPECT_EQ(kueue->admissions(), 3u);
  for (const PodId p : {r0, r1}) {
    EXPECT_TRUE(sim.store().pod(p).scheduling_gates.empty());
    EXPECT_TRUE(sim.store().pod(p).node.valid());
  }
}

// The webhook's validation: the group label without the total count (or the reverse, or a
// count that is not an integer >= 1) is refused with upstream's message.
TEST(KueuePods, WebhookRefusesIncompleteGroupMetadata) {
  Simulation sim(pod_inputs(), testing::ideal_options());
  auto no_count = create(sim, "x", "g", -1, 1000);
  ASSERT_TRUE(std::holds_alternative<std::string>(no_count));
  EXPECT_NE(std::get<std::string>(no_count).find("kueue.x-k8s.io/pod-group-total-count"), std::string::npos);
  auto no_group = create(sim, "y", "", 2, 1000);
  ASSERT_TRUE(std::holds_alternative<std::string>(no_group));
  EXPECT_NE(std::get<std::string>(no_group).find("Required value"), std::string::npos);
  auto zero = create(sim, "z", "g", 0, 1000);
  ASSERT_TRUE(std::holds_alternative<std::string>(zero));
  EXPECT_NE(std::get<std::string>(zero).find("greater than zero"), std::string::npos);
}

}  // namespace
}  // namespace kubesim

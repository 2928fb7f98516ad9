// The test-support library itself (src/testing/): what its users rely on.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"
#include "testing/input_error.hpp"
#include "testing/param_name.hpp"
#include "testing/scratch_dir.hpp"
#include "testing/text_files.hpp"

namespace kubesim::testing {
namespace {

TEST(TestingBuilders, NodeFromManifestQuantities) {
  ResourceNames names;
  const Node n = NodeBuilder("n1")
                     .cpu("4")
                     .memory("8Gi")
                     .gpu(names, 2)
                     .pods(16)
                     .label("zone", "a")
                     .hostname_label()
                     .taint("k", "v", TaintEffect::kNoExecute)
                     .build();
  EXPECT_EQ(n.name, "n1");
  EXPECT_EQ(n.allocatable[kCpu], 4000);
  EXPECT_EQ(n.allocatable[kMemory], 8 * kGi);
  EXPECT_EQ(n.allocatable[static_cast<std::size_t>(names.find(kGpu))], 2);
  EXPECT_EQ(n.capacity, n.allocatable);
  EXPECT_EQ(n.allowed_pods, 16);
  EXPECT_EQ(*find_label(n.labels, "kubernetes.io/hostname"), "n1");
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, TaintEffect::kNoExecute);
  EXPECT_TRUE(n.ready);
  EXPECT_FALSE(n.unschedulable);
}

// The builder's default template is Batkube's (workload/workload.hpp batch_job_template).
TEST(TestingBuilders, PodTemplateMatchesBatchJobTemplate) {
  const PodTemplate built = PodTemplateBuilder().cpu("1500m").memory("1Gi");
  const PodTemplate batkube = batch_job_template(1500, kGi);
  ASSERT_EQ(built.containers.size(), 1u);
  EXPECT_EQ(built.containers[0].name, batkube.containers[0].name);
  EXPECT_EQ(built.containers[0].requests, batkube.containers[0].requests);
  EXPECT_EQ(built.containers[0].limits, batkube.containers[0].limits);
  EXPECT_EQ(built.containers[0].requested_mask, batkube.containers[0].requested_mask);
  EXPECT_EQ(built.containers[0].limited_mask, batkube.containers[0].limited_mask);
  EXPECT_EQ(built.requests, batkube.requests);
  EXPECT_EQ(built.nonzero_requests, batkube.nonzero_requests);
  EXPECT_EQ(built.scheduler_name, "default-scheduler");

  const PodTemplate t = PodTemplateBuilder()
                            .cpu("1")
                            .no_limits()
                            .priority(10)
                            .node_selector("zone", "a")
                            .tolerate("k")
                            .scheduler("yunikorn");
  EXPECT_EQ(t.containers[0].limited_mask, 0u);
  EXPECT_EQ(t.priority, 10);
  EXPECT_EQ(*find_label(t.node_selector, "zone"), "a");
  ASSERT_EQ(t.tolerations.size(), 1u);
  EXPECT_TRUE(t.tolerations[0].tolerates(Taint{"k", "anything", TaintEffect::kNoSchedule}));
  EXPECT_EQ(t.scheduler_name, "yunikorn");
}

TEST(TestingBuilders, PodAndJob) {
  const Pod p = PodBuilder(PodTemplateId(3)).name("a").on(NodeId(1), SimTime::from_seconds(2));
  EXPECT_EQ(p.spec, PodTemplateId(3));
  EXPECT_EQ(p.node, NodeId(1));
  EXPECT_EQ(p.phase, PodPhase::kRunning);
  EXPECT_EQ(p.started, SimTime::from_seconds(2));

  const WorkloadJob j = JobBuilder("job-1", 5, 100).as_job().tmpl(1).walltime(200);
  EXPECT_EQ(j.id, "job-1");
  EXPECT_EQ(j.name, "job-1");
  EXPECT_TRUE(j.as_job);
  EXPECT_EQ(j.pod_template, 1u);
  EXPECT_EQ(j.submit, SimTime::from_seconds(5));
  EXPECT_EQ(j.run_time, Duration::from_seconds(100));
  EXPECT_EQ(j.walltime, Duration::from_seconds(200));
  const WorkloadJob batsim = JobBuilder(7, 0, 1);
  EXPECT_EQ(batsim.id, "7");
  EXPECT_TRUE(batsim.name.empty());
}

// Records what the host delivers.
class Probe final : public SchedulerModel {
 public:
  bool serves(const std::string& name) const override { return name == "probe"; }
  void on_pod_change(const Change& c, SimTime now) override {
    seen.push_back("pod " + std::to_string(c.id) + " @" + format_seconds(now));
  }
  void on_node_change(const Change& c, SimTime now) override {
    seen.push_back("node " + std::to_string(c.id) + " @" + format_seconds(now));
  }
  void on_event(const SchedulerEvent& e, SimTime now) override {
    seen.push_back("event " + std::to_string(e.pod.value()) + " @" + format_seconds(now));
    if (e.pod.value() == 1)
      host->post(now, Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(3), NodeId()});
  }
  bool busy() const override { return false; }
  std::uint64_t attempts() const override { return 0; }
  std::uint64_t bindings() const override { return 0; }
  SchedulerHost* host = nullptr;
  std::vector<std::string> seen;
};

TEST(TestingFakeSchedulerHost, DeliversChangesAndRunsEventsInTimePhaseAndPostingOrder) {
  ObjectStore store;
  store.ensure_namespace("default");
  FakeSchedulerHost host(&store);
  Probe probe;
  probe.host = &host;
  host.attach(&probe);
  store.add_listener(&host);
  store.create_node(NodeBuilder("n").cpu("1"));
  const auto at = [](double s) { return SimTime::from_seconds(s); };
  host.post(at(2), Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(2), NodeId()});
  host.post(at(1), Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(1), NodeId()});
  host.post(at(5), Phase::kScheduler, SchedulerEvent{SchedulerEvent::Kind::kTimer, PodId(5), NodeId()});
  host.run_until(at(3));
  EXPECT_EQ(host.now(), at(3));
  ASSERT_EQ(host.posted().size(), 1u);  // the event at 5 s
  const auto spec = host.add_pod_template(PodTemplateBuilder().cpu("1"));
  ASSERT_TRUE(std::holds_alternative<PodTemplateId>(spec));
  const auto pod = host.create_pod("placeholder", NamespaceId(0), std::get<PodTemplateId>(spec));
  ASSERT_TRUE(std::holds_alternative<PodId>(pod));
  EXPECT_EQ(store.pod(std::get<PodId>(pod)).workload_job, kNoWorkloadJob);
  EXPECT_EQ(store.pod(std::get<PodId>(pod)).created, at(3));
  const std::vector<std::string> want = {"node 0 @" + format_seconds(at(0)), "event 1 @" + format_seconds(at(1)),
                                         "event 3 @" + format_seconds(at(1)), "event 2 @" + format_seconds(at(2)),
                                         "pod 0 @" + format_seconds(at(3))};
  EXPECT_EQ(probe.seen, want);

  FakeSchedulerHost sink;  // no store: refuses pods as SchedulerHost does
  EXPECT_TRUE(std::holds_alternative<std::string>(sink.create_pod("p", NamespaceId(0), PodTemplateId(0))));
}

TEST(TestingScratchDir, WritesAndRemovesItsFolder) {
  std::string folder;
  {
    const ScratchDir dir;
    folder = dir.path();
    const std::string path = dir.write("sub/a.txt", std::string("x\0y", 3));
    EXPECT_EQ(path, folder + "/sub/a.txt");
    EXPECT_EQ(read_file(path), std::string("x\0y", 3));
    EXPECT_NE(folder.find("TestingScratchDir_WritesAndRemovesItsFolder"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(TestingCaseName, IsAValidUniqueGtestName) {
  EXPECT_EQ(case_name(2, "1.5Gi"), "c02_1_dot_5Gi");
  EXPECT_EQ(case_name(13, "-3.01e-"), "c13_minus_3_dot_01e_minus");
  EXPECT_EQ(case_name(0, ""), "c00_empty");
  EXPECT_EQ(case_name(4, " 1"), "c04_space_1");
  EXPECT_EQ(case_name(5, "a/b"), "c05_a_x2F_b");
}

TEST(TestingInputError, PassesOnTheExpectedError) {
  expect_input_error([] { throw InputError("f.yaml", 3, "bad thing"); }, "f.yaml", 3, "bad");
}

}  // namespace
}  // namespace kubesim::testing

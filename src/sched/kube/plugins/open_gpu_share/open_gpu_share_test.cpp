// Open-Gpu-Share (open_gpu_share.go) alone, and the FGD policy end to end in kube-scheduler:
// the profile from a KubeSchedulerConfiguration, Reserve's device choice on the binding, and
// the fork's tie-break by node name.
#include <gtest/gtest.h>

#include <memory>

#include "sched/kube/plugins/gpu_plugin/gpu_test_nodes.hpp"
#include "sched/kube/plugins/open_gpu_share/open_gpu_share.hpp"
#include "sched/kube/scheduler.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

using namespace gpu_test;

TEST(OpenGpuShare, HoldTestsRoomForEachGpuOfThePod) {
  EXPECT_TRUE(gpus_hold(two_gpus(), share(400)));
  EXPECT_FALSE(gpus_hold(two_gpus(300, 400), share(500)));
  EXPECT_TRUE(gpus_hold(two_gpus(1000, 1000), GpuShape{0, 1000, 2, ""}));
  EXPECT_FALSE(gpus_hold(two_gpus(), GpuShape{0, 1000, 2, ""}));
}

TEST(OpenGpuShare, BestAndWorstFitPickTheTightestAndTheEmptiestGpu) {
  GpuNodeState s = two_gpus(1000, 400);
  s.gpus = 3;
  s.left[2] = 600;
  s.device[2] = 2;
  OpenGpuShare best(OpenGpuShareArgs{});
  EXPECT_EQ(best.choose(s, share(300)), (DeviceGrants{{1, 300}}));
  OpenGpuShare worst(OpenGpuShareArgs{OpenGpuShareArgs::Sel::kWorst, {}});
  EXPECT_EQ(worst.choose(s, share(300)), (DeviceGrants{{0, 300}}));
  EXPECT_EQ(best.choose(s, share(700)), (DeviceGrants{{0, 700}}));
}

constexpr const char* kFgdConfig = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
  - schedulerName: default-scheduler
    plugins:
      filter:
        enabled: [{name: Open-Gpu-Share}]
      reserve:
        enabled: [{name: Open-Gpu-Share}]
      score:
        disabled: [{name: "*"}]
        enabled: [{name: FGDScore, weight: 1000}]
    pluginConfig:
      - name: Open-Gpu-Share
        args: {gpuSelMethod: FGDScore, dimExtMethod: share, normMethod: max}
)";

TEST(OpenGpuShare, FgdProfilePlacesSharesAndBreaksTiesByNodeName) {
  testing::ScratchDir dir;
  ObjectStore store;
  store.ensure_namespace("default");
  SchedulerConfig config = load_scheduler_config(dir.write("fgd.yaml", kFgdConfig), store.resource_names());
  ASSERT_TRUE(config.has_gpu_plugins());
  ASSERT_TRUE(config.profiles[0].lowest_name_ties);
  config.typical_pods = std::make_shared<const TypicalPods>(two_typical());
  testing::FakeSchedulerHost host{&store};
  Scheduler scheduler(store, std::move(config), SchedulerLatencies{}, 1, host);
  host.attach(&scheduler);
  store.add_listener(&host);
  for (const char* name : {"node-b", "node-a"}) {
    Node n = testing::NodeBuilder(name).cpu("32").memory("128Gi").build();
    n.devices = gpu_devices(2, kV100);
    store.create_node(std::move(n));
  }
  auto share_pod = [&](const char* name) {
    PodTemplate t = testing::PodTemplateBuilder().cpu("4").memory("1Gi").build();
    t.device_requests = {gpu_device_request(1, 500, "")};
    return store.create_pod(testing::PodBuilder(store.add_template(std::move(t))).name(name));
  };
  // Both nodes score the same: the smaller name, its first GPU.
  const PodId first = share_pod("first");
  host.run_until(SimTime::zero());
  EXPECT_EQ(store.node(store.pod(first).node).name, "node-a");
  EXPECT_EQ(store.pod(first).devices()[0], (DeviceGrant{0, 500}));
  // The second fills that GPU: fragmentation 250 -> 0 (score 56) beats the other GPU (43) and
  // the empty node (43).
  const PodId second = share_pod("second");
  host.run_until(SimTime::zero());
  EXPECT_EQ(store.node(store.pod(second).node).name, "node-a");
  EXPECT_EQ(store.pod(second).devices()[0], (DeviceGrant{0, 500}));
}

}  // namespace
}  // namespace kubesim

// kube-scheduler with devices (wave 2 of issue 25): device fit is part of the resource fit of
// a pod that asks for devices, and the binding carries the devices the cache picked.
#include <gtest/gtest.h>

#include <memory>

#include "sched/kube/scheduler.hpp"
#include "testing/builders.hpp"
#include "testing/fake_scheduler_host.hpp"

namespace kubesim {
namespace {

struct GpuCluster {
  ObjectStore store;
  testing::FakeSchedulerHost host{&store};
  std::unique_ptr<Scheduler> scheduler;
  NodeId shared, plain;

  GpuCluster() {
    store.ensure_namespace("default");
    scheduler = std::make_unique<Scheduler>(store, default_scheduler_config(store.resource_names()),
                                            SchedulerLatencies{}, 1, host);
    host.attach(scheduler.get());
    store.add_listener(&host);
    // One GPU that two pods may share, and a node without devices.
    Node a = testing::NodeBuilder("gpu").cpu("8").memory("32Gi").build();
    a.devices = {Device{kGpuDeviceClass, "T4", 16LL << 30, 2}};
    shared = store.create_node(std::move(a));
    plain = store.create_node(testing::NodeBuilder("cpu").cpu("8").memory("32Gi"));
  }
  PodId share_pod(std::int32_t milli) {
    PodTemplate t = testing::PodTemplateBuilder().cpu("1").memory("1Gi").build();
    t.device_requests = {DeviceRequest{kGpuDeviceClass, 1, milli, {}}};
    const PodTemplateId spec = store.add_template(std::move(t));
    return store.create_pod(testing::PodBuilder(spec).name("p" + std::to_string(store.pod_count())));
  }
};

TEST(SchedulerDevices, ShareGoesToTheNodeWithAFreeShareAndTheBindingCarriesIt) {
  GpuCluster c;
  const PodId p = c.share_pod(600);
  c.host.run_until(SimTime::zero());
  ASSERT_EQ(c.store.pod(p).node, c.shared);
  ASSERT_EQ(c.store.pod(p).devices().size(), 1u);
  EXPECT_EQ(c.store.pod(p).devices()[0], (DeviceGrant{0, 600}));
  // 400 milli are left: a second 600 fits nowhere, with NodeResourcesFit's reason.
  const PodId q = c.share_pod(600);
  const auto d = c.scheduler->decide(q);
  EXPECT_FALSE(d.node.valid());
  EXPECT_EQ(d.message, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.");
  const PodId r = c.share_pod(400);
  c.host.run_until(SimTime::zero());
  EXPECT_EQ(c.store.pod(r).node, c.shared);
  ASSERT_EQ(c.store.pod(r).devices().size(), 1u);
  EXPECT_EQ(c.store.pod(r).devices()[0], (DeviceGrant{0, 400}));
}

}  // namespace
}  // namespace kubesim

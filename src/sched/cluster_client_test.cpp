// The models' client: pods/binding with its devices (bind_in_store: assignPod's rule),
// and the other writes of StoreClusterClient.
#include "sched/cluster_client.hpp"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

TEST(ClusterClient, BindRecordsDevicesAndRefusesAsAssignPod) {
  ObjectStore store;
  Node n;
  n.name = "n0";
  const NodeId node = store.create_node(n);
  PodTemplate t;
  t.containers.push_back(Container{});
  const PodTemplateId spec = store.add_template(std::move(t));
  auto make = [&](const char* name) {
    Pod p;
    p.name = name;
    p.spec = spec;
    return store.create_pod(std::move(p));
  };
  StoreClusterClient client(store);
  struct Case {
    const char* name;
    DeviceGrants devices;
    bool deleted_first;
    bool twice;
    bool want;
  };
  const Case cases[] = {
      {"plain binding", {}, false, false, true},
      {"with devices", {{1, 250}, {0, 1000}}, false, false, true},
      {"already bound", {}, false, true, false},
      {"deleted", {}, true, false, false},
  };
  for (const Case& c : cases) {
    const PodId pod = make(c.name);
    if (c.deleted_first) store.delete_pod(pod, SimTime::zero(), Duration(), DisruptionReason::kDeletionByUser);
    if (c.twice) {
      ASSERT_TRUE(client.bind(Binding{pod, node, {}}, SimTime::zero())) << c.name;
    }
    EXPECT_EQ(client.bind(Binding{pod, node, c.devices}, SimTime::zero()), c.want) << c.name;
    if (!c.want) continue;
    const Pod& p = store.pod(pod);
    EXPECT_EQ(p.node, node) << c.name;
    EXPECT_EQ(DeviceGrants(p.devices().begin(), p.devices().end()), c.devices) << c.name;
    EXPECT_TRUE(p.scheduling_gates.empty()) << c.name;  // the shared cold block has no gates
  }
  const PodId pending = make("unschedulable");
  client.set_unschedulable(pending, "0/1 nodes are available", SimTime::zero());
  EXPECT_EQ(store.pod(pending).unschedulable_message, "0/1 nodes are available");
  client.set_nominated_node(pending, node, SimTime::zero());
  EXPECT_EQ(store.pod(pending).nominated_node, node);
}

// Kueue's writes: the pod update removing one scheduling gate, the Job's spec.suspend.
TEST(ClusterClient, RemovesOneGateAndSetsJobSuspend) {
  ObjectStore store;
  PodTemplate t;
  t.containers.push_back(Container{});
  Pod p;
  p.name = "gated";
  p.spec = store.add_template(std::move(t));
  p.scheduling_gates.push_back("a");
  p.scheduling_gates.push_back("kueue.x-k8s.io/admission");
  const PodId pod = store.create_pod(std::move(p));
  StoreClusterClient client(store);
  const std::uint64_t before = store.resource_version();
  EXPECT_FALSE(client.remove_scheduling_gate(pod, "b", SimTime::zero()));
  EXPECT_EQ(store.resource_version(), before);  // nothing written
  EXPECT_TRUE(client.remove_scheduling_gate(pod, "kueue.x-k8s.io/admission", SimTime::zero()));
  EXPECT_TRUE(store.pod(pod).scheduling_gates == std::vector<std::string>{"a"});
  Job j;
  j.name = "job";
  j.ns = store.ensure_namespace("default");
  j.suspend = true;
  const JobId job = store.create_job(std::move(j));
  client.set_job_suspend(job, false, SimTime::zero());
  EXPECT_FALSE(store.job(job).suspend);
}

}  // namespace
}  // namespace kubesim

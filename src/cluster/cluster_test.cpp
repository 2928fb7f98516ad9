// The shared cluster view: placement predicates (upstream semantics), device fit and the
// node cache.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cluster/node_cache.hpp"
#include "cluster/predicates.hpp"
#include "model/object_store.hpp"

namespace kubesim {
namespace {

using Op = Toleration::Operator;

Node gpu_node(std::string name, std::int64_t gpus, std::vector<Device> devices = {}) {
  Node n;
  n.name = std::move(name);
  n.allocatable[kCpu] = 8000;
  n.allocatable[kMemory] = 32LL << 30;
  n.capacity = n.allocatable;
  n.devices = std::move(devices);
  (void)gpus;
  return n;
}

TEST(ClusterPredicates, UntoleratedScheduleTaint) {
  struct Case {
    const char* name;
    std::vector<Taint> taints;
    std::vector<Toleration> tolerations;
    const char* want_key;  // nullptr: none untolerated
  };
  const Case cases[] = {
      {"no taints", {}, {}, nullptr},
      {"PreferNoSchedule is not a filter", {{"a", "", TaintEffect::kPreferNoSchedule}}, {}, nullptr},
      {"NoSchedule untolerated", {{"a", "x", TaintEffect::kNoSchedule}}, {}, "a"},
      {"NoExecute untolerated", {{"b", "", TaintEffect::kNoExecute}}, {}, "b"},
      {"tolerated by Exists", {{"a", "x", TaintEffect::kNoSchedule}}, {{"a", Op::kExists, "", std::nullopt}}, nullptr},
      {"first of two", {{"a", "", TaintEffect::kNoSchedule}, {"b", "", TaintEffect::kNoSchedule}},
       {{"a", Op::kExists, "", std::nullopt}}, "b"},
  };
  for (const auto& c : cases) {
    Node n;
    n.taints = c.taints;
    const Taint* t = first_untolerated_schedule_taint(n, c.tolerations);
    if (!c.want_key) {
      EXPECT_EQ(t, nullptr) << c.name;
    } else {
      ASSERT_NE(t, nullptr) << c.name;
      EXPECT_EQ(t->key, c.want_key) << c.name;
    }
  }
}

TEST(ClusterPredicates, Unschedulable) {
  Node cordoned;
  cordoned.unschedulable = true;
  PodTemplate plain;
  PodTemplate tolerant;
  tolerant.tolerations.push_back({"node.kubernetes.io/unschedulable", Op::kExists, "", TaintEffect::kNoSchedule});
  PodTemplate wrong_effect;
  wrong_effect.tolerations.push_back({"node.kubernetes.io/unschedulable", Op::kExists, "", TaintEffect::kNoExecute});
  EXPECT_FALSE(passes_unschedulable(plain, cordoned));
  EXPECT_TRUE(passes_unschedulable(tolerant, cordoned));
  EXPECT_FALSE(passes_unschedulable(wrong_effect, cordoned));
  EXPECT_TRUE(passes_unschedulable(plain, Node{}));
}

TEST(ClusterPredicates, NodeSelectorAndAffinity) {
  Node n;
  n.name = "n1";
  set_label(n.labels, "zone", "a");
  set_label(n.labels, "gen", "5");
  using R = NodeSelectorRequirement;
  struct Case {
    const char* name;
    Labels selector;
    std::vector<NodeSelectorTerm> terms;
    bool want;
  };
  const Case cases[] = {
      {"nothing required", {}, {}, true},
      {"selector matches", {{"zone", "a"}}, {}, true},
      {"selector differs", {{"zone", "b"}}, {}, false},
      {"In", {}, {{{{"zone", R::Operator::kIn, {"a", "b"}}}, {}}}, true},
      {"NotIn", {}, {{{{"zone", R::Operator::kNotIn, {"a"}}}, {}}}, false},
      {"Gt", {}, {{{{"gen", R::Operator::kGt, {"4"}}}, {}}}, true},
      {"Lt on a non-number", {}, {{{{"zone", R::Operator::kLt, {"4"}}}, {}}}, false},
      {"DoesNotExist", {}, {{{{"gpu", R::Operator::kDoesNotExist, {}}}, {}}}, true},
      {"terms are ORed", {}, {{{{"zone", R::Operator::kIn, {"b"}}}, {}}, {{{"zone", R::Operator::kExists, {}}}, {}}}, true},
      {"empty term matches nothing", {}, {NodeSelectorTerm{}}, false},
      {"matchFields metadata.name", {}, {{{}, {{"metadata.name", R::Operator::kIn, {"n1"}}}}}, true},
  };
  for (const auto& c : cases) {
    PodTemplate spec;
    spec.node_selector = c.selector;
    spec.affinity.required_terms = c.terms;
    EXPECT_EQ(pod_matches_node_selector_and_affinity(spec, n), c.want) << c.name;
  }
}

TEST(ClusterPredicates, InsufficientResourcesInUpstreamOrder) {
  // fit.go fitsRequest: pods first, then cpu, memory, ephemeral-storage, extended.
  struct Case {
    const char* name;
    std::int64_t cpu, memory, gpu;
    std::int64_t pods_on_node;
    std::uint32_t want;
  };
  const std::uint32_t cpu = 1u << kCpu, mem = 1u << kMemory, gpu = 1u << 3;
  const Case cases[] = {
      {"fits", 1000, 1 << 20, 0, 0, 0},
      {"cpu", 5000, 1 << 20, 0, 0, cpu},
      {"cpu and memory", 5000, 40LL << 30, 0, 0, cpu | mem},
      {"extended", 100, 0, 3, 0, gpu},
      {"pods only for an empty pod", 0, 0, 0, 10, kTooManyPodsBit},
      {"pods and cpu", 5000, 0, 0, 10, kTooManyPodsBit | cpu},
  };
  Resources alloc;
  alloc[kCpu] = 4000;
  alloc[kMemory] = 32LL << 30;
  alloc[3] = 2;
  for (const auto& c : cases) {
    PodTemplate spec;
    Container ctr;
    ctr.requests[kCpu] = c.cpu;
    ctr.requests[kMemory] = c.memory;
    ctr.requests[3] = c.gpu;
    spec.containers.push_back(ctr);
    spec.finalize();
    EXPECT_EQ(insufficient_resources(spec, alloc, Resources{}, c.pods_on_node, 10), c.want) << c.name;
  }
  EXPECT_EQ(first_slot(cpu | mem | kTooManyPodsBit), kCpu);
  EXPECT_EQ(first_slot(gpu | mem), kMemory);
}

TEST(ClusterPredicates, DeviceFit) {
  const std::vector<Device> devices = {
      {"nvidia.com/gpu", "V100M16", 16LL << 30, 4},
      {"nvidia.com/gpu", "V100M16", 16LL << 30, 4},
      {"nvidia.com/gpu", "T4", 16LL << 30, 2},
      {"example.com/fpga", "", 0, 1},
  };
  struct Case {
    const char* name;
    std::vector<DeviceRequest> requests;
    std::int64_t whole_gpus;
    std::vector<DeviceUse> use;
    bool want;
    DeviceGrants want_grants;
  };
  const std::vector<DeviceUse> free(4);
  const Case cases[] = {
      {"nothing", {}, 0, free, true, {}},
      {"two whole gpus, first fit", {{"nvidia.com/gpu", 2, 1000, {}}}, 0, free, true, {{0, 1000}, {1, 1000}}},
      {"model any-of", {{"nvidia.com/gpu", 1, 1000, {"T4"}}}, 0, free, true, {{2, 1000}}},
      {"share on a used device", {{"nvidia.com/gpu", 1, 500, {}}}, 0, {{600, 1}, {0, 0}, {0, 0}, {0, 0}}, true, {{1, 500}}},
      {"shares fill a device", {{"nvidia.com/gpu", 1, 400, {}}}, 0, {{600, 1}, {0, 0}, {0, 0}, {0, 0}}, true, {{0, 400}}},
      {"sharer cap", {{"nvidia.com/gpu", 1, 100, {"T4"}}}, 0, {{0, 0}, {0, 0}, {200, 2}, {0, 0}}, false, {}},
      {"whole needs wholly free", {{"nvidia.com/gpu", 3, 1000, {}}}, 0, {{1, 1}, {0, 0}, {0, 0}, {0, 0}}, false, {}},
      {"one grant per device per pod", {{"nvidia.com/gpu", 2, 300, {"T4"}}}, 0, free, false, {}},
      {"other class", {{"example.com/fpga", 1, 1000, {}}}, 0, free, true, {{3, 1000}}},
      {"extended-resource gpus after requests", {{"example.com/fpga", 1, 1000, {}}}, 2, free, true,
       {{3, 1000}, {0, 1000}, {1, 1000}}},
      {"too many extended-resource gpus", {}, 4, free, false, {}},
  };
  for (const auto& c : cases) {
    DeviceGrants out;
    EXPECT_EQ(fit_devices(c.requests, c.whole_gpus, devices, c.use, out), c.want) << c.name;
    if (c.want) {
      EXPECT_EQ(out, c.want_grants) << c.name;
    }
  }
}

TEST(ClusterPredicates, GrantsFit) {
  const std::vector<Device> devices = {{"nvidia.com/gpu", "", 0, 2}, {"nvidia.com/gpu", "", 0, 1}};
  const std::vector<DeviceUse> use = {{500, 1}, {0, 0}};
  struct Case {
    const char* name;
    DeviceGrants grants;
    bool want;
  };
  const Case cases[] = {
      {"none", {}, true},
      {"free whole", {{1, 1000}}, true},
      {"used whole", {{0, 1000}}, false},
      {"share that fits", {{0, 500}}, true},
      {"share too large", {{0, 600}}, false},
      {"no such device", {{2, 1000}}, false},
      {"same device twice", {{1, 100}, {1, 100}}, false},
  };
  for (const auto& c : cases) EXPECT_EQ(grants_fit(c.grants, devices, use), c.want) << c.name;
}

struct CacheFixture : ::testing::Test {
  ObjectStore store;
  int gpu = store.resource_names().slot(kGpuDeviceClass);

  PodId pod(std::int64_t gpus, std::vector<DeviceRequest> requests = {}) {
    PodTemplate spec;
    Container c;
    c.requests[kCpu] = 100;
    c.requests[static_cast<std::size_t>(gpu)] = gpus;
    spec.containers.push_back(c);
    spec.device_requests = std::move(requests);
    Pod p;
    p.name = "p" + std::to_string(store.pod_count());
    p.spec = store.add_template(std::move(spec));
    return store.create_pod(std::move(p));
  }

  // A node with two model-less GPUs, also counted in allocatable (whole-GPU requests by count).
  NodeId two_gpu_node() {
    Node n = gpu_node("n0", 2);
    n.allocatable[static_cast<std::size_t>(gpu)] = 2;
    return store.create_node(n);
  }
};

TEST_F(CacheFixture, AnonymousGpusAndAccounting) {
  const NodeId id = two_gpu_node();
  NodeCache cache(store);
  cache.set_node(id, store.node(id));
  ASSERT_EQ(cache.devices(id).size(), 2u);
  EXPECT_EQ(cache.devices(id)[0], (Device{kGpuDeviceClass, "", 0, 1}));

  const PodId a = pod(1);
  const PodId b = pod(1);
  EXPECT_TRUE(cache.add_pod(a, id));
  EXPECT_FALSE(cache.add_pod(a, id));  // already there
  EXPECT_TRUE(cache.add_pod(b, id));
  EXPECT_EQ(cache.info(id).pod_count, 2);
  EXPECT_EQ(cache.info(id).requested[kCpu], 200);
  EXPECT_EQ(cache.grants_of(b)[0].device, 1);
  EXPECT_EQ(cache.device_use(id)[1].used, kDeviceShareUnits);
  DeviceGrants out;
  EXPECT_FALSE(cache.fit_devices(store.spec_of(pod(1)), id, out));

  EXPECT_EQ(cache.remove_pod(a), id);
  EXPECT_EQ(cache.remove_pod(a), NodeId());
  EXPECT_EQ(cache.pods_on(id), std::vector<PodId>{b});
  EXPECT_EQ(cache.device_use(id)[0].used, 0);
  EXPECT_EQ(cache.info(id).pod_count, 1);
}

TEST_F(CacheFixture, RecordedDevicesFromTheBinding) {
  Node n = gpu_node("n0", 0, {{kGpuDeviceClass, "A100", 0, 7}, {kGpuDeviceClass, "A100", 0, 7}});
  const NodeId id = store.create_node(n);
  NodeCache cache(store);
  cache.set_node(id, store.node(id));
  const PodId a = pod(0, {{kGpuDeviceClass, 1, 250, {"A100"}}});
  store.update_pod(a, [&](Pod& p) {
    p.node = id;
    p.scheduling_gates.set_devices({{1, 250}});
  });
  cache.add_pod(a, id);
  EXPECT_EQ(cache.device_use(id)[1].used, 250);
  EXPECT_EQ(cache.device_use(id)[1].sharers, 1);
  cache.remove_pod(a);
  EXPECT_EQ(cache.device_use(id)[1].used, 0);
}

// A scheduler's assumed pod: devices picked by the cache, then recorded on the pod by its
// binding (here other ones). The remove releases what the add took and forgets the pick.
TEST_F(CacheFixture, PickedDevicesReleasedOnceRecordedOnes) {
  const NodeId id = two_gpu_node();
  NodeCache cache(store);
  cache.set_node(id, store.node(id));
  const PodId a = pod(1);
  cache.add_pod(a, id);
  ASSERT_EQ(cache.grants_of(a)[0].device, 0);
  store.update_pod(a, [&](Pod& p) { p.scheduling_gates.set_devices({{1, kDeviceShareUnits}}); });
  EXPECT_EQ(cache.remove_pod(a), id);
  EXPECT_EQ(cache.device_use(id)[0].used, 0);
  EXPECT_EQ(cache.device_use(id)[1].used, 0);
  EXPECT_EQ(cache.device_use(id)[0].sharers, 0);
  EXPECT_EQ(cache.grants_of(a)[0].device, 1);  // the pick is gone: the recorded devices
}

// The kubelets' cache: sums and devices, no pod lists; the caller names the node.
TEST_F(CacheFixture, SumsOnly) {
  const NodeId id = two_gpu_node();
  NodeCache cache(store, NodeCache::Tracking::kSumsOnly);
  cache.set_node(id, store.node(id));
  const PodId a = pod(1);
  const PodId b = pod(0);
  EXPECT_TRUE(cache.add_pod(a, id));
  EXPECT_TRUE(cache.add_pod(b, id));
  EXPECT_EQ(cache.info(id).pod_count, 2);
  EXPECT_EQ(cache.info(id).requested[kCpu], 200);
  EXPECT_EQ(cache.device_use(id)[0].used, kDeviceShareUnits);
  EXPECT_TRUE(cache.pods_on(id).empty());
  EXPECT_FALSE(cache.node_of(a).valid());
  cache.remove_pod(a, id);
  EXPECT_EQ(cache.info(id).pod_count, 1);
  EXPECT_EQ(cache.info(id).requested[kCpu], 100);
  EXPECT_EQ(cache.device_use(id)[0].used, 0);
}

TEST(PodColdFields, GatesAndDevicesShareOnePointer) {
  static_assert(sizeof(PodColdFields) == sizeof(void*));
  EXPECT_EQ(sizeof(Pod), 216u);  // x86-64 libstdc++: the pod table's row did not grow
  PodColdFields f;
  f.push_back("g");
  f.set_devices({{0, 1000}});
  EXPECT_EQ(f, std::vector<std::string>{"g"});
  f.erase(f.begin());
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(f.devices().size(), 1u);
  const PodColdFields copy = f;
  EXPECT_EQ(copy.devices()[0], (DeviceGrant{0, 1000}));
  f.set_devices({});
  EXPECT_TRUE(f.devices().empty());
}

TEST(Devices, Text) {
  EXPECT_EQ(to_string(DeviceRequest{kGpuDeviceClass, 2, 1000, {}}), "nvidia.com/gpu x2");
  EXPECT_EQ(to_string(DeviceRequest{kGpuDeviceClass, 1, 500, {"V100M16", "T4"}}), "nvidia.com/gpu x1 share 500m (V100M16|T4)");
  const DeviceGrants g = {{0, 1000}, {3, 500}};
  EXPECT_EQ(to_string(g), "0,3:500");
  EXPECT_EQ(anonymous_devices(0).size(), 0u);
  EXPECT_EQ(anonymous_devices(3).size(), 3u);
}

}  // namespace
}  // namespace kubesim

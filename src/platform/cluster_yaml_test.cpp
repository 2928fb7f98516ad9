#include "platform/cluster_yaml.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "testing/input_error.hpp"
#include "testing/param_name.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

using testing::BadInput;

TEST(ClusterYaml, FullExample) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("cluster.yaml", R"(# a comment
nodeGroups:
  - name: cpu
    count: 4
    allocatable: {cpu: "128", memory: 512Gi, pods: 64, nvidia.com/gpu: 8, ephemeral-storage: 100Gi}
    capacity: {cpu: 130, memory: 520Gi}
    labels: {topology.kubernetes.io/zone: a, tier: ""}
    taints: [{key: k, value: v, effect: NoSchedule}, {key: only-key, effect: NoExecute}]
    unschedulable: true
  - name: small
    allocatable:
      cpu: 500m
)");
  ResourceNames names;
  ClusterSpec spec = read_cluster_yaml(path, names);
  EXPECT_EQ(spec.source, path);
  ASSERT_EQ(spec.nodes.size(), 5u);
  const int gpu = names.find("nvidia.com/gpu");
  ASSERT_GE(gpu, 3);
  for (int i = 0; i < 4; ++i) {
    const Node& n = spec.nodes[static_cast<std::size_t>(i)];
    EXPECT_EQ(n.name, "cpu-" + std::to_string(i));
    EXPECT_EQ(n.allocatable[kCpu], 128'000);
    EXPECT_EQ(n.allocatable[kMemory], 512LL << 30);
    EXPECT_EQ(n.allocatable[kEphemeralStorage], 100LL << 30);
    EXPECT_EQ(n.allocatable[static_cast<std::size_t>(gpu)], 8);
    EXPECT_EQ(n.capacity[kCpu], 130'000);
    EXPECT_EQ(n.capacity[kMemory], 520LL << 30);
    EXPECT_EQ(n.capacity[kEphemeralStorage], 100LL << 30);  // defaults to allocatable
    EXPECT_EQ(n.capacity[static_cast<std::size_t>(gpu)], 8);
    EXPECT_EQ(n.allowed_pods, 64);
    EXPECT_TRUE(n.unschedulable);
    EXPECT_EQ(n.labels,
              (Labels{{"kubernetes.io/hostname", n.name}, {"tier", ""}, {"topology.kubernetes.io/zone", "a"}}));
    ASSERT_EQ(n.taints.size(), 2u);
    EXPECT_EQ(n.taints[0].key, "k");
    EXPECT_EQ(n.taints[0].value, "v");
    EXPECT_EQ(n.taints[0].effect, TaintEffect::kNoSchedule);
    EXPECT_EQ(n.taints[1].key, "only-key");
    EXPECT_EQ(n.taints[1].value, "");
    EXPECT_EQ(n.taints[1].effect, TaintEffect::kNoExecute);
  }
  const Node& s = spec.nodes[4];
  EXPECT_EQ(s.name, "small-0");
  EXPECT_EQ(s.allocatable[kCpu], 500);
  EXPECT_EQ(s.allocatable[kMemory], 0);
  EXPECT_EQ(s.allowed_pods, 110);
  EXPECT_EQ(s.capacity, s.allocatable);
  EXPECT_FALSE(s.unschedulable);
  EXPECT_EQ(s.labels, (Labels{{"kubernetes.io/hostname", "small-0"}}));
}

class ClusterYamlErrors : public testing::InputErrorTest {};

TEST_P(ClusterYamlErrors, NamesFileLineAndProblem) {
  check("cluster.yaml", [](const std::string& path) {
    ResourceNames names;
    read_cluster_yaml(path, names);
  });
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ClusterYamlErrors,
    ::testing::Values(
        BadInput{"Syntax", "nodeGroups:\n  - name: a\n    allocatable: {cpu: 1\n", 4, "malformed YAML"},
        BadInput{"TopLevelTypo", "nodeGroup:\n  - name: a\n", 1, "unknown key \"nodeGroup\""},
        BadInput{"GroupTypo", "nodeGroups:\n  - name: a\n    alocatable: {cpu: 1}\n", 3,
                 "unknown key \"alocatable\" in nodeGroups[0]"},
        BadInput{"MissingName", "nodeGroups:\n  - count: 2\n    allocatable: {cpu: 1}\n", 2, "to have a name"},
        BadInput{"MissingCpu", "nodeGroups:\n  - name: a\n    allocatable: {memory: 1Gi}\n", 3,
                 "expected nodeGroups[0] (a).allocatable to have cpu"},
        BadInput{"MissingAllocatable", "nodeGroups:\n  - name: a\n", 2, "to have allocatable resources"},
        BadInput{"ZeroCount", "nodeGroups:\n  - name: a\n    count: 0\n    allocatable: {cpu: 1}\n", 3,
                 "count to be an integer from 1"},
        BadInput{"BadQuantity", "nodeGroups:\n  - name: a\n    allocatable:\n      cpu: 1x\n", 4,
                 "invalid quantity \"1x\" for nodeGroups[0] (a).allocatable.cpu"},
        BadInput{"ResourceTypo", "nodeGroups:\n  - name: a\n    allocatable:\n      cpu: 1\n      memroy: 1Gi\n", 5,
                 "unknown resource \"memroy\""},
        BadInput{"BadEffect",
                 "nodeGroups:\n  - name: a\n    allocatable: {cpu: 1}\n    taints:\n      - {key: k, effect: Nope}\n",
                 5, "effect to be NoSchedule, PreferNoSchedule or NoExecute, got \"Nope\""},
        BadInput{"MissingEffect",
                 "nodeGroups:\n  - name: a\n    allocatable: {cpu: 1}\n    taints:\n      - {key: k}\n", 5,
                 "to have an effect"},
        BadInput{
            "TaintTypo",
            "nodeGroups:\n  - name: a\n    allocatable: {cpu: 1}\n    taints:\n      - {key: k, efect: NoSchedule}\n",
            5, "unknown key \"efect\""},
        BadInput{"BadBool", "nodeGroups:\n  - name: a\n    allocatable: {cpu: 1}\n    unschedulable: maybe\n", 4,
                 "unschedulable to be true or false"},
        BadInput{"CapacityBelowAllocatable",
                 "nodeGroups:\n  - name: a\n    allocatable: {cpu: 2}\n    capacity: {cpu: 1}\n", 4,
                 "allocatable cpu (2000) exceeds capacity (1000)"},
        BadInput{"DuplicateNodeName",
                 "nodeGroups:\n  - name: a\n    allocatable: {cpu: 1}\n  - name: a\n    allocatable: {cpu: 1}\n", 4,
                 "duplicate node name \"a-0\""},
        BadInput{"DuplicateKey", "nodeGroups:\n  - name: a\n    name: b\n    allocatable: {cpu: 1}\n", 3,
                 "duplicate key \"name\""},
        BadInput{"NotAList", "nodeGroups: {a: 1}\n", 1, "expected nodeGroups to be a list"},
        BadInput{"Empty", "", 0, "empty document"}),
    testing::NameField{});

TEST(ClusterYaml, ExtendedResourceSlotsRunOut) {
  const testing::ScratchDir dir;
  // 3 fixed slots + 5 extended fit in kMaxResources = 8; the 6th extended resource does not.
  std::string text = "nodeGroups:\n  - name: a\n    allocatable:\n      cpu: 1\n";
  for (int i = 0; i < 6; ++i) text += "      example.com/r" + std::to_string(i) + ": 1\n";
  const std::string path = dir.write("cluster.yaml", text);
  ResourceNames names;
  testing::expect_input_error([&] { read_cluster_yaml(path, names); }, path, 10,
                              "too many resource kinds: \"example.com/r5\"");
}

TEST(ClusterYaml, ReusesExistingSlots) {
  const testing::ScratchDir dir;
  ResourceNames names;
  const int gpu = names.slot("nvidia.com/gpu");
  const std::string path =
      dir.write("cluster.yaml", "nodeGroups:\n  - name: g\n    allocatable: {cpu: 1, nvidia.com/gpu: 2}\n");
  ClusterSpec spec = read_cluster_yaml(path, names);
  EXPECT_EQ(names.size(), 4u);
  EXPECT_EQ(spec.nodes[0].allocatable[static_cast<std::size_t>(gpu)], 2);
}

TEST(ClusterYaml, MissingFile) {
  ResourceNames names;
  EXPECT_THROW(read_cluster_yaml("/nonexistent/cluster.yaml", names), InputError);
}

}  // namespace
}  // namespace kubesim

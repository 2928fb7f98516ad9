// The `devices:` list of the cluster YAML's node groups (platform/device_yaml.hpp).
#include "platform/device_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "platform/cluster_yaml.hpp"

namespace kubesim {
namespace {

ClusterSpec read(const std::string& text, ResourceNames& names) {
  return read_cluster_yaml_node(YAML::Load(text), "cluster.yaml", names);
}

TEST(DeviceYaml, ExpandsEntriesInOrder) {
  ResourceNames names;
  const ClusterSpec spec = read(R"(nodeGroups:
  - name: g
    count: 2
    allocatable: {cpu: 8, nvidia.com/gpu: 3}
    devices:
      - {model: V100M16, memory: 16Gi, count: 2, maxSharers: 4}
      - {class: nvidia.com/gpu, model: T4}
      - {class: example.com/fpga}
)",
                                names);
  ASSERT_EQ(spec.nodes.size(), 2u);
  for (const Node& n : spec.nodes) {
    ASSERT_EQ(n.devices.size(), 4u);
    EXPECT_EQ(n.devices[0], (Device{kGpuDeviceClass, "V100M16", 16LL << 30, 4}));
    EXPECT_EQ(n.devices[1], n.devices[0]);
    EXPECT_EQ(n.devices[2], (Device{kGpuDeviceClass, "T4", 0, 1}));
    EXPECT_EQ(n.devices[3], (Device{"example.com/fpga", "", 0, 1}));
  }
}

TEST(DeviceYaml, NoListMeansNoDeclaredDevices) {
  ResourceNames names;
  const ClusterSpec spec = read("nodeGroups:\n  - {name: g, allocatable: {cpu: 8, nvidia.com/gpu: 2}}\n", names);
  EXPECT_TRUE(spec.nodes[0].devices.empty());  // anonymous GPUs come from the node cache
}

TEST(DeviceYaml, BadEntriesNameTheLine) {
  struct Case {
    const char* name;
    const char* devices;  // the text after "devices:" on line 4
    int line;
    const char* problem;
  };
  const Case cases[] = {
      {"not a list", " {model: x}", 4, "expected nodeGroups[0] (g).devices to be a list"},
      {"unknown key", "\n      - {modle: x}", 5, "modle"},
      {"count zero", "\n      - {count: 0}", 5, "count"},
      {"sharers too many", "\n      - {maxSharers: 1001}", 5, "maxSharers"},
      {"empty class", "\n      - {class: \"\"}", 5, "class to be non-empty"},
      {"gpu count disagrees", "\n      - {count: 3}", 5, "3 nvidia.com/gpu devices declared, allocatable has 2"},
  };
  for (const Case& c : cases) {
    ResourceNames names;
    const std::string text = std::string("nodeGroups:\n  - name: g\n    allocatable: {cpu: 8, nvidia.com/gpu: 2}\n") +
                             "    devices:" + c.devices + "\n";
    try {
      read(text, names);
      ADD_FAILURE() << c.name << ": expected an InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), c.line) << c.name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.problem), std::string::npos) << c.name << ": " << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << c.name;
    }
  }
}

}  // namespace
}  // namespace kubesim

#include "platform/simgrid_platform.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/test_paths.hpp"
#include "testing/input_error.hpp"
#include "testing/param_name.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim {
namespace {

using testing::BadInput;

const std::string kData = kubesim::testing::data_dir();

const std::string kHead = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n";

TEST(SimgridPlatform, Graphene16ExcludesMaster) {
  ResourceNames names;
  const std::string path = kData + "/batkube/platform_graphene_16nodes.xml";
  ClusterSpec spec = read_simgrid_platform(path, names);
  EXPECT_EQ(spec.source, path);
  ASSERT_EQ(spec.nodes.size(), 16u);
  for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
    const Node& n = spec.nodes[i];
    EXPECT_EQ(n.name, "graphene-" + std::to_string(i + 1) + ".nancy.grid5000.fr");  // graphene-0 is the master
    EXPECT_EQ(n.allocatable[kCpu], 1000);  // prop core=1 wins over the core="4" attribute
    EXPECT_EQ(n.allocatable[kMemory], 4LL << 30);
    EXPECT_EQ(n.capacity, n.allocatable);
    EXPECT_EQ(n.allowed_pods, 110);
    ASSERT_NE(find_label(n.labels, "kubernetes.io/hostname"), nullptr);
    EXPECT_EQ(*find_label(n.labels, "kubernetes.io/hostname"), n.name);
    EXPECT_TRUE(n.taints.empty());
    EXPECT_FALSE(n.unschedulable);
  }
  EXPECT_EQ(names.size(), 3u);
}

TEST(SimgridPlatform, OneNodeSixCores) {
  ResourceNames names;
  ClusterSpec spec = read_simgrid_platform(kData + "/batkube/1node_6core.xml", names);
  ASSERT_EQ(spec.nodes.size(), 1u);
  EXPECT_EQ(spec.nodes[0].name, "graphene-2.nancy.grid5000.fr");
  EXPECT_EQ(spec.nodes[0].allocatable[kCpu], 6000);
  EXPECT_EQ(spec.nodes[0].allocatable[kMemory], 4LL << 30);
}

TEST(SimgridPlatform, Cluster512ExpandsRadicalAndSkipsMasterCluster) {
  ResourceNames names;
  ClusterSpec spec = read_simgrid_platform(kData + "/batkube/cluster512.xml", names);
  ASSERT_EQ(spec.nodes.size(), 512u);
  EXPECT_EQ(spec.nodes.front().name, "a0");
  EXPECT_EQ(spec.nodes[17].name, "a17");
  EXPECT_EQ(spec.nodes.back().name, "a511");
  for (const Node& n : spec.nodes) {
    EXPECT_EQ(n.allocatable[kCpu], 1000);  // SimGrid's default core = 1
    EXPECT_EQ(n.allocatable[kMemory], 0);  // no memory prop: 0 bytes (documented default)
  }
}

TEST(SimgridPlatform, NestedZonesClustersAndProps) {
  const testing::ScratchDir dir;
  ResourceNames names;
  const std::string path = dir.write("platform.xml", kHead + R"(<zone id="z0" routing="Full">
  <AS id="inner" routing="Full">
    <zone id="deeper" routing="Full">
      <host id="h1" speed="1Gf" core="3"/>
    </zone>
    <host id="h2" speed="1Gf" core="3"><prop id="core" value="500m"/><prop id="memory" value="1G"/></host>
  </AS>
  <cluster id="c" prefix="n-" suffix=".lan" radical="0-1,5,7-8" speed="1Gf" bw="1GBps" lat="1us" core="2">
    <prop id="memory" value="2Gi"/>
  </cluster>
  <host id="s" speed="1Gf"><prop id="role" value="storage"/></host>
  <host id="c1" speed="1Gf"><prop id="role" value="compute_node"/></host>
  <link id="l" bandwidth="1GBps" latency="1us"/>
</zone>
</platform>
)");
  ClusterSpec spec = read_simgrid_platform(path, names);
  std::vector<std::string> got;
  for (const Node& n : spec.nodes) got.push_back(n.name);
  EXPECT_EQ(got, (std::vector<std::string>{"h1", "h2", "n-0.lan", "n-1.lan", "n-5.lan", "n-7.lan", "n-8.lan", "c1"}));
  EXPECT_EQ(spec.nodes[0].allocatable[kCpu], 3000);
  EXPECT_EQ(spec.nodes[0].allocatable[kMemory], 0);
  EXPECT_EQ(spec.nodes[1].allocatable[kCpu], 500);
  EXPECT_EQ(spec.nodes[1].allocatable[kMemory], 1'000'000'000);
  EXPECT_EQ(spec.nodes[2].allocatable[kCpu], 2000);
  EXPECT_EQ(spec.nodes[2].allocatable[kMemory], 2LL << 30);
  EXPECT_EQ(spec.nodes[7].allocatable[kCpu], 1000);
}

class SimgridPlatformErrors : public testing::InputErrorTest {};

// The rest of a platform after kHead: host "a" with one <prop> (on line 4 of the file).
std::string host_with(const std::string& prop, const std::string& value) {
  return "<host id=\"a\">\n  <prop id=\"" + prop + "\" value=\"" + value + "\"/>\n</host>\n</platform>\n";
}

TEST_P(SimgridPlatformErrors, NamesFileLineAndProblem) {
  check(
      "platform.xml",
      [](const std::string& path) {
        ResourceNames names;
        read_simgrid_platform(path, names);
      },
      kHead);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SimgridPlatformErrors,
    ::testing::Values(
        BadInput{"Unclosed", "<zone id=\"z\">\n<host id=\"a\">\n</zone>\n</platform>\n", 5, "malformed XML"},
        BadInput{"BadCoreProp", host_with("core", "six"), 4, "invalid quantity \"six\" for core"},
        BadInput{"ZeroCoreProp", host_with("core", "0"), 4, "expected core to be positive"},
        BadInput{"BadCoreAttribute", "\n<host id=\"a\" core=\"1.5\"/>\n</platform>\n", 4,
                 "expected core to be a positive integer, got \"1.5\""},
        BadInput{"BadMemory", host_with("memory", "4GB"), 4, "invalid quantity \"4GB\" for memory"},
        BadInput{"NegativeMemory", host_with("memory", "-1"), 4, "memory must not be negative"},
        BadInput{"OnlyMaster", "<host id=\"m\"><prop id=\"role\" value=\"master\"/></host>\n</platform>\n", 0,
                 "expected at least one compute host"},
        BadInput{"UnknownRole", host_with("role", "boss"), 4,
                 "expected role to be master, storage or compute_node, got \"boss\""},
        BadInput{"DuplicateHost", "<host id=\"a\"/>\n<host id=\"a\"/>\n</platform>\n", 4,
                 "duplicate host id \"a\" (first defined at line 3)"},
        BadInput{"BadRadical", "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"3-1\"/>\n</platform>\n", 3,
                 "expected radical to be a list like"},
        BadInput{"NoHosts", "</platform>\n", 0, "expected at least one compute host"}),
    testing::NameField{});

// Hardening (issue 16): zones nested 20,000 deep once overflowed the stack of a recursive
// walk; the walk is iterative and keeps document order.
TEST(SimgridPlatform, DeeplyNestedZonesAreWalkedWithoutRecursion) {
  const testing::ScratchDir dir;
  constexpr int kDepth = 20000;
  std::string text = kHead;
  for (int i = 0; i < kDepth; ++i) text += "<zone id=\"z" + std::to_string(i) + "\" routing=\"Full\">";
  text += "<host id=\"deep\" speed=\"1f\" core=\"4\"/>";
  for (int i = 0; i < kDepth; ++i) text += "</zone>";
  text += "<host id=\"after\" speed=\"1f\"/></platform>\n";
  ResourceNames names;
  ClusterSpec spec = read_simgrid_platform(dir.write("platform.xml", text), names);
  ASSERT_EQ(spec.nodes.size(), 2u);
  EXPECT_EQ(spec.nodes[0].name, "deep");
  EXPECT_EQ(spec.nodes[1].name, "after");
}

TEST(SimgridPlatform, WrongRootElement) {
  const testing::ScratchDir dir;
  const std::string path = dir.write("platform.xml", "<?xml version='1.0'?>\n\n<workload/>\n");
  ResourceNames names;
  testing::expect_input_error([&] { read_simgrid_platform(path, names); }, path, 3,
                              "expected a <platform> root element, got <workload>");
}

TEST(SimgridPlatform, MissingFile) {
  ResourceNames names;
  EXPECT_THROW(read_simgrid_platform("/nonexistent/platform.xml", names), InputError);
}

}  // namespace
}  // namespace kubesim

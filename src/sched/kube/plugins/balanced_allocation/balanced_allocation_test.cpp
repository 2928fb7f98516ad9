// NodeResourcesBalancedAllocation (v1.26 balanced_allocation.go balancedResourceScorer:
// int64((1 - std) * MaxNodeScore), std = |f1-f2|/2 for two resources, population standard
// deviation for more, fractions capped at 1, resources with allocatable 0 skipped). Cases
// from upstream pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go
// (TestNodeResourcesBalancedAllocation; makeNode(name, milliCPU, memory, scalars)).
#include "sched/kube/plugins/balanced_allocation/balanced_allocation.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "testing/resource_slots.hpp"

namespace kubesim {
namespace {

const ClusterStats kNoStats{};

constexpr std::size_t kGpu = testing::kFirstExtendedSlot;

using testing::SlotRequests;

std::int64_t score2(std::int64_t r0, std::int64_t a0, std::int64_t r1, std::int64_t a1) {
  const std::int64_t req[] = {r0, r1};
  const std::int64_t alloc[] = {a0, a1};
  return balanced_resource_score(req, alloc);
}

TEST(BalancedResourceScore, TwoResources) {
  // std = |f1 - f2| / 2; score = int64((1 - std) * 100).
  EXPECT_EQ(score2(3000, 4000, 5000, 10000), 87);   // (0.75 - 0.5)/2 = 0.125 -> 87.5 -> 87
  EXPECT_EQ(score2(3000, 6000, 5000, 10000), 100);  // equal fractions
  EXPECT_EQ(score2(6000, 10000, 5000, 20000), 82);  // 0.175 -> 82.5 -> 82
  EXPECT_EQ(score2(6000, 10000, 10000, 20000), 95);
  EXPECT_EQ(score2(6000, 10000, 10000, 50000), 80);
  EXPECT_EQ(score2(6000, 6000, 0, 10000), 50);  // 1 and 0
  EXPECT_EQ(score2(6000, 6000, 5000, 10000), 75);
  EXPECT_EQ(score2(8000, 4000, 5000, 10000), 75);  // fraction capped at 1
  EXPECT_EQ(score2(0, 4000, 0, 10000), 100);
}

TEST(BalancedResourceScore, ThreeResourcesUsesPopulationStdDev) {
  // Upstream "include scalar resource on a node": fractions (3000/3500, 5000/40000, 4/8):
  // mean 0.494048, std sqrt(0.268070/3) = 0.298925 -> 70.1 -> 70; and
  // (3000/3500, 5000/40000, 1/8): std 0.345135 -> 65.5 -> 65.
  const std::int64_t req1[] = {3000, 5000, 4};
  const std::int64_t req2[] = {3000, 5000, 1};
  const std::int64_t alloc[] = {3500, 40000, 8};
  EXPECT_EQ(balanced_resource_score(req1, alloc), 70);
  EXPECT_EQ(balanced_resource_score(req2, alloc), 65);
  // Equal fractions: std 0.
  const std::int64_t req3[] = {1, 2, 3};
  const std::int64_t alloc3[] = {2, 4, 6};
  EXPECT_EQ(balanced_resource_score(req3, alloc3), 100);
}

TEST(BalancedResourceScore, OneOrNoResource) {
  const std::int64_t req[] = {3000};
  const std::int64_t alloc[] = {4000};
  EXPECT_EQ(balanced_resource_score(req, alloc), 100);  // std 0
  EXPECT_EQ(balanced_resource_score({}, {}), 100);
}

using Case = testing::TwoNodeScoreCase;

TEST(BalancedAllocation, UpstreamTable) {
  const PodTemplate cpu_only = testing::pod_of({{1000, 0}, {2000, 0}});
  const PodTemplate cpu_and_memory = testing::pod_of({{1000, 2000}, {2000, 3000}});
  const PodTemplate cpu_memory_gpu = testing::pod_of({{1000, 2000}, {2000, 3000, 0, 3}});
  const std::vector<ResourceWeight> def = {{kCpu, 1}, {kMemory, 1}};
  const std::vector<ResourceWeight> with_gpu = {{kCpu, 1}, {kMemory, 1}, {kGpu, 1}};
  const std::vector<Case> cases = {
      {"nothing scheduled, resources requested, differently sized nodes",
       cpu_and_memory,
       testing::node_of(4000, 10000),
       testing::node_of(6000, 10000),
       {},
       {},
       def,
       87,
       100},
      {"resources requested, pods scheduled with resources",
       cpu_and_memory,
       testing::node_of(10000, 20000),
       testing::node_of(10000, 20000),
       {cpu_only},
       {cpu_and_memory},
       def,
       82,
       95},
      {"resources requested, pods scheduled with resources, differently sized nodes",
       cpu_and_memory,
       testing::node_of(10000, 20000),
       testing::node_of(10000, 50000),
       {cpu_only},
       {cpu_and_memory},
       def,
       82,
       80},
      {"requested resources at node capacity",
       cpu_only,
       testing::node_of(6000, 10000),
       testing::node_of(6000, 10000),
       {cpu_only},
       {cpu_and_memory},
       def,
       50,
       75},
      {"include scalar resource on a node for balanced resource allocation",
       testing::pod_of({{std::nullopt, 0, 0, 1}}),
       testing::node_of(3500, 40000, 8),
       testing::node_of(3500, 40000, 8),
       {cpu_memory_gpu},
       {cpu_and_memory},
       with_gpu,
       70,
       65},
      {"node without the scalar resource should skip the scalar resource",
       cpu_and_memory,
       testing::node_of(3500, 40000, 8),
       testing::node_of(3500, 40000),
       {},
       {},
       with_gpu,
       63,
       63},
  };
  for (const auto& c : cases) {
    const BalancedAllocation plugin(c.resources);
    EXPECT_EQ(plugin.score_node(c.pod, testing::node_info_of(c.node1, c.on1)), c.want1) << c.name;
    EXPECT_EQ(plugin.score_node(c.pod, testing::node_info_of(c.node2, c.on2)), c.want2) << c.name;
  }
}

TEST(BalancedAllocation, UsesRealRequestsNotNonZeroDefaults) {
  // balanced_allocation.go: useRequested = true. A pod without requests on an empty node has
  // fractions (0, 0) -> 100, where the non-zero defaults (100m, 200Mi) would unbalance it.
  constexpr std::int64_t kMi = 1024 * 1024;
  const Node n = testing::node_of(1000, 1000 * kMi);
  const BalancedAllocation plugin;
  EXPECT_EQ(plugin.score_node(testing::pod_of({{}}), testing::node_info_of(n)), 100);
  // Existing pod requests 500m cpu and no memory: fractions (0.5, 0) -> std 0.25 -> 75
  // (with the defaults it would be (0.6, 0.4) -> 90).
  EXPECT_EQ(
      plugin.score_node(testing::pod_of({{}}), testing::node_info_of(n, {testing::pod_of({{500, std::nullopt}})})), 75);
}

TEST(BalancedAllocation, ZeroAllocatableSkipped) {
  // Memory allocatable 0 -> only cpu counts -> one fraction -> std 0 -> 100.
  const Node n = testing::node_of(4000, 0);
  EXPECT_EQ(BalancedAllocation().score_node(testing::pod_of({{3000, 5000}}), testing::node_info_of(n)), 100);
}

TEST(BalancedAllocation, ScoreSpan) {
  const Node n1 = testing::node_of(4000, 10000);
  const Node n2 = testing::node_of(6000, 10000);
  const NodeInfo i1 = testing::node_info_of(n1);
  const NodeInfo i2 = testing::node_info_of(n2);
  const PodTemplate p = testing::pod_of({{1000, 2000}, {2000, 3000}});
  ObjectStore store;
  const NodeInfo* nodes[] = {&i1, &i2};
  std::int64_t scores[2] = {-1, -1};
  BalancedAllocation().score(CycleContext{store, PodId(0), p, kNoStats}, nodes, scores);
  EXPECT_EQ(scores[0], 87);
  EXPECT_EQ(scores[1], 100);
}

}  // namespace
}  // namespace kubesim

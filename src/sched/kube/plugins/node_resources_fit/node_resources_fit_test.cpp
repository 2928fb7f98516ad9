// NodeResourcesFit scoring and filtering, with cases from upstream
// pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go
// (TestLeastAllocatedScoringStrategy), most_allocated.go, requested_to_capacity_ratio.go,
// framework/plugins/helper/shape_score_test.go and fit.go (fitsRequest). Upstream's "cpu":
// "4000" is 4000 cores; kubesim stores millicores, so those cpu values are x1000 here (the
// scores only depend on ratios).
#include "sched/kube/plugins/node_resources_fit/node_resources_fit.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "testing/resource_slots.hpp"

namespace kubesim {
namespace {

const ClusterStats kNoStats{};

constexpr std::int64_t kCore = 1000;  // millicores per upstream "cpu: 1"
constexpr std::size_t kGpu = testing::kFirstExtendedSlot;

using testing::SlotRequests;

// The reasons fit_failure gives for `spec` on `node`, joined with ", " ("" when it fits).
std::string fit_reasons(const PodTemplate& spec, const NodeInfo& node) {
  ResourceNames names;
  names.slot("nvidia.com/gpu");
  const std::uint32_t insufficient = insufficient_resources(spec, node);
  if (insufficient == 0) return "";
  const FilterResult r = fit_failure(insufficient, names);
  std::string out;
  for (std::size_t k = 0; k < r.reason_count; ++k) out += (k ? ", " : "") + std::string(r.reasons[k]);
  return out;
}

ScoringStrategy least(std::vector<ResourceWeight> resources = {{kCpu, 1}, {kMemory, 1}}) {
  ScoringStrategy s;
  s.type = ScoringStrategy::Type::kLeastAllocated;
  s.resources = std::move(resources);
  return s;
}

TEST(LeastRequestedScore, Formula) {
  // least_allocated.go leastRequestedScore: ((capacity - requested) * 100) / capacity.
  EXPECT_EQ(least_requested_score(0, 4000), 100);
  EXPECT_EQ(least_requested_score(3000, 4000), 25);
  EXPECT_EQ(least_requested_score(5000, 10000), 50);
  EXPECT_EQ(least_requested_score(3000, 6000), 50);
  EXPECT_EQ(least_requested_score(1, 3), 66);  // 200/3 truncated
  EXPECT_EQ(least_requested_score(4000, 4000), 0);
  EXPECT_EQ(least_requested_score(6000, 4000), 0);  // requested > capacity
  EXPECT_EQ(least_requested_score(0, 0), 0);        // capacity 0
}

TEST(MostRequestedScore, Formula) {
  // most_allocated.go mostRequestedScore: requested capped at capacity.
  EXPECT_EQ(most_requested_score(0, 4000), 0);
  EXPECT_EQ(most_requested_score(3000, 4000), 75);
  EXPECT_EQ(most_requested_score(1, 3), 33);
  EXPECT_EQ(most_requested_score(6000, 4000), 100);
  EXPECT_EQ(most_requested_score(5, 0), 0);
}

TEST(BrokenLinear, ShapeScoreTestCases) {
  // helper/shape_score_test.go TestBrokenLinearFunction (integer division truncates).
  const std::vector<UtilizationShapePoint> a = {{10, 1}, {90, 9}};
  const std::pair<std::int64_t, std::int64_t> ca[] = {{-10, 1}, {0, 1},  {9, 1},  {10, 1}, {15, 1},  {19, 1},
                                                      {20, 2},  {89, 8}, {90, 9}, {99, 9}, {100, 9}, {110, 9}};
  for (auto [p, want] : ca) EXPECT_EQ(broken_linear(a, p), want) << p;
  const std::vector<UtilizationShapePoint> b = {{0, 2}, {40, 10}, {100, 0}};
  const std::pair<std::int64_t, std::int64_t> cb[] = {{-10, 2}, {0, 2},  {20, 6},  {30, 8},
                                                      {40, 10}, {70, 5}, {100, 0}, {110, 0}};
  for (auto [p, want] : cb) EXPECT_EQ(broken_linear(b, p), want) << p;
  // Decreasing segment: 50 + (20-50)*(25)/50 = 50 - 15 = 35; truncation toward zero:
  // 50 + (20-50)*(1)/50 = 50 + (-30/50 = 0) = 50.
  const std::vector<UtilizationShapePoint> c = {{0, 50}, {50, 20}};
  EXPECT_EQ(broken_linear(c, 25), 35);
  EXPECT_EQ(broken_linear(c, 1), 50);
}

using LeastCase = testing::TwoNodeScoreCase;

TEST(NodeResourcesFitScore, LeastAllocatedUpstreamTable) {
  const std::vector<ResourceWeight> def = {{kCpu, 1}, {kMemory, 1}};
  const std::vector<ResourceWeight> ext = {{kCpu, 1}, {kMemory, 1}, {kGpu, 1}};
  const PodTemplate none = testing::pod_of({});  // st.MakePod().Obj(): no containers at all
  const PodTemplate two = testing::pod_of({{1000 * kCore, 2000}, {2000 * kCore, 3000}});
  const PodTemplate cpu3000 = testing::pod_of({{3000 * kCore, 0}});
  const PodTemplate cpu3000mem5000 = testing::pod_of({{3000 * kCore, 5000}});
  const std::vector<LeastCase> cases = {
      {"nothing scheduled, nothing requested",
       none,
       testing::node_of(4000 * kCore, 10000),
       testing::node_of(4000 * kCore, 10000),
       {},
       {},
       def,
       100,
       100},
      {"nothing scheduled, resources requested, differently sized nodes",
       two,
       testing::node_of(4000 * kCore, 10000),
       testing::node_of(6000 * kCore, 10000),
       {},
       {},
       def,
       37,
       50},
      {"no resources requested, pods scheduled",
       none,
       testing::node_of(4000 * kCore, 10000),
       testing::node_of(4000 * kCore, 10000),
       {none, none},
       {none, none},
       def,
       100,
       100},
      {"no resources requested, pods scheduled with resources",
       none,
       testing::node_of(10000 * kCore, 20000),
       testing::node_of(10000 * kCore, 20000),
       {cpu3000, cpu3000},
       {cpu3000, cpu3000mem5000},
       def,
       70,
       57},
      {"resources requested, pods scheduled with resources",
       two,
       testing::node_of(10000 * kCore, 20000),
       testing::node_of(10000 * kCore, 20000),
       {cpu3000},
       {cpu3000mem5000},
       def,
       57,
       45},
      {"resources requested, pods scheduled with resources, differently sized nodes",
       two,
       testing::node_of(10000 * kCore, 20000),
       testing::node_of(10000 * kCore, 50000),
       {cpu3000},
       {cpu3000mem5000},
       def,
       57,
       60},
      {"requested resources exceed node capacity",
       cpu3000,
       testing::node_of(4000 * kCore, 10000),
       testing::node_of(4000 * kCore, 10000),
       {cpu3000},
       {cpu3000mem5000},
       def,
       50,
       25},
      {"zero node resources, pods scheduled with resources",
       none,
       testing::node_of(0, 0),
       testing::node_of(0, 0),
       {cpu3000},
       {cpu3000mem5000},
       def,
       0,
       0},
      {"different weight on CPU and memory",
       two,
       testing::node_of(4000 * kCore, 10000),
       testing::node_of(6000 * kCore, 10000),
       {},
       {},
       {{kMemory, 2}, {kCpu, 1}},
       41,
       50},
      {"bypass extended resource if the pod does not request",
       two,
       testing::node_of(6000 * kCore, 10000),
       testing::node_of(6000 * kCore, 10000, 4),
       {},
       {},
       ext,
       50,
       50},
      {"honor extended resource if the pod requests",
       testing::pod_of({{3000 * kCore, 5000, 0, 2}}),
       testing::node_of(6000 * kCore, 10000, 4),
       testing::node_of(6000 * kCore, 10000, 10),
       {},
       {},
       ext,
       50,
       60},
      {"if the node doesn't have a resource",
       testing::pod_of({{3000 * kCore, 4000}}),
       testing::node_of(6000 * kCore, 10000),
       testing::node_of(6000 * kCore, 10000, 4),
       {},
       {},
       {{kGpu, 2}, {kCpu, 1}, {kMemory, 1}},
       55,
       55},
  };
  for (const auto& c : cases) {
    const NodeResourcesFit plugin(least(c.resources));
    EXPECT_EQ(plugin.score_node(c.pod, testing::node_info_of(c.node1, c.on1)), c.want1) << c.name;
    EXPECT_EQ(plugin.score_node(c.pod, testing::node_info_of(c.node2, c.on2)), c.want2) << c.name;
  }
}

TEST(NodeResourcesFitScore, ScoreFillsSpanInOrder) {
  const Node n1 = testing::node_of(4000 * kCore, 10000);
  const Node n2 = testing::node_of(6000 * kCore, 10000);
  const NodeInfo i1 = testing::node_info_of(n1);
  const NodeInfo i2 = testing::node_info_of(n2);
  const PodTemplate p = testing::pod_of({{1000 * kCore, 2000}, {2000 * kCore, 3000}});
  ObjectStore store;
  const CycleContext ctx{store, PodId(0), p, kNoStats};
  const NodeInfo* nodes[] = {&i1, &i2};
  std::int64_t scores[2] = {-1, -1};
  NodeResourcesFit(least()).score(ctx, nodes, scores);
  EXPECT_EQ(scores[0], 37);
  EXPECT_EQ(scores[1], 50);
}

TEST(NodeResourcesFitScore, NonZeroDefaultsForMissingRequests) {
  // GetNonzeroRequestForResource: a container without a cpu (memory) request counts as
  // 100m (200Mi) for scoring. Node 1000m / 1000Mi.
  constexpr std::int64_t kMi = 1024 * 1024;
  const Node n = testing::node_of(1000, 1000 * kMi);
  const NodeResourcesFit plugin(least());
  const PodTemplate best_effort = testing::pod_of({{}});
  // cpu (1000-100)*100/1000 = 90, memory (1000-200)*100/1000 = 80 -> 85.
  EXPECT_EQ(plugin.score_node(best_effort, testing::node_info_of(n)), 85);
  // Existing pod requests 500m cpu and no memory (counts 200Mi): cpu 600 -> 40,
  // memory 400Mi -> 60 -> 50.
  const PodTemplate cpu_only = testing::pod_of({{500, std::nullopt}});
  EXPECT_EQ(plugin.score_node(best_effort, testing::node_info_of(n, {cpu_only})), 50);
  // An explicit 0 is kept: cpu 0 counts 0, so cpu stays at 100.
  const PodTemplate explicit_zero = testing::pod_of({{0, 0}});
  EXPECT_EQ(plugin.score_node(explicit_zero, testing::node_info_of(n)), 100);
  // Two containers without requests count twice: cpu 200 -> 80, memory 400Mi -> 60 -> 70.
  EXPECT_EQ(plugin.score_node(testing::pod_of({{}, {}}), testing::node_info_of(n)), 70);
}

TEST(NodeResourcesFitScore, MostAllocated) {
  ScoringStrategy s;
  s.type = ScoringStrategy::Type::kMostAllocated;
  const NodeResourcesFit plugin(s);
  const Node n1 = testing::node_of(4000 * kCore, 10000);
  const Node n2 = testing::node_of(6000 * kCore, 10000);
  const PodTemplate two = testing::pod_of({{1000 * kCore, 2000}, {2000 * kCore, 3000}});
  // cpu 3000/4000 -> 75, memory 5000/10000 -> 50 -> 62; cpu 50, memory 50 -> 50.
  EXPECT_EQ(plugin.score_node(two, testing::node_info_of(n1)), 62);
  EXPECT_EQ(plugin.score_node(two, testing::node_info_of(n2)), 50);
  // Over capacity is capped: cpu 100, memory 50 -> 75.
  EXPECT_EQ(plugin.score_node(testing::pod_of({{8000 * kCore, 5000}}), testing::node_info_of(n1)), 75);
}

TEST(NodeResourcesFitScore, RequestedToCapacityRatio) {
  ScoringStrategy s;
  s.type = ScoringStrategy::Type::kRequestedToCapacityRatio;
  s.shape = {{0, 0}, {100, 10}};  // scaled x10 to {0,0},{100,100}
  const NodeResourcesFit plugin(s);
  const Node n = testing::node_of(4000, 10000);
  // cpu 1000*100/4000 = 25 -> 25; memory 3400*100/10000 = 34 -> 34; round(59/2 = 29.5) = 30.
  EXPECT_EQ(plugin.score_node(testing::pod_of({{1000, 3400}}), testing::node_info_of(n)), 30);
  // memory 3333 -> 33; (25+33)/2 = 29.
  EXPECT_EQ(plugin.score_node(testing::pod_of({{1000, 3333}}), testing::node_info_of(n)), 29);
  // Resources scoring 0 are left out of the weighted mean: cpu 0 -> 0 (dropped), memory 50.
  EXPECT_EQ(plugin.score_node(testing::pod_of({{0, 5000}}), testing::node_info_of(n)), 50);
  // Over capacity counts as full utilization: cpu 100, memory 50 -> 75.
  EXPECT_EQ(plugin.score_node(testing::pod_of({{9000, 5000}}), testing::node_info_of(n)), 75);
  // Everything 0 -> weightSum 0 -> 0.
  EXPECT_EQ(plugin.score_node(testing::pod_of({{0, 0}}), testing::node_info_of(n)), 0);

  ScoringStrategy inv;
  inv.type = ScoringStrategy::Type::kRequestedToCapacityRatio;
  inv.shape = {{0, 10}, {100, 0}};  // least-allocated-like
  inv.resources = {{kCpu, 3}, {kMemory, 1}};
  // cpu util 25 -> 100 - 100*25/100 = 75; memory 50 -> 50; (75*3 + 50)/4 = 68.75 -> 69.
  EXPECT_EQ(NodeResourcesFit(inv).score_node(testing::pod_of({{1000, 5000}}), testing::node_info_of(n)), 69);
}

TEST(NodeResourcesFitScore, ZeroAllocatableResourceSkipped) {
  // Node without memory: only cpu counts: (4000-1000)/4000 -> 75.
  const Node n = testing::node_of(4000, 0);
  EXPECT_EQ(NodeResourcesFit(least()).score_node(testing::pod_of({{1000, 1000}}), testing::node_info_of(n)), 75);
  std::int64_t a = -1, r = -1;
  EXPECT_FALSE(
      allocatable_and_requested(testing::node_info_of(n), testing::pod_of({{1000, 1000}}), kMemory, false, &a, &r));
  EXPECT_TRUE(
      allocatable_and_requested(testing::node_info_of(n), testing::pod_of({{1000, 1000}}), kCpu, false, &a, &r));
  EXPECT_EQ(a, 4000);
  EXPECT_EQ(r, 1000);
}

TEST(AllocatableAndRequested, RequestedVersusNonZero) {
  const Node n = testing::node_of(4000, 1'000'000'000, 8);
  const PodTemplate existing = testing::pod_of({{}});  // counts 100m / 200Mi only as non-zero
  const NodeInfo ni = testing::node_info_of(n, {existing});
  const PodTemplate p = testing::pod_of({{std::nullopt, 1000}});
  std::int64_t a = 0, r = 0;
  ASSERT_TRUE(allocatable_and_requested(ni, p, kCpu, /*use_requested=*/false, &a, &r));
  EXPECT_EQ(r, 200);
  ASSERT_TRUE(allocatable_and_requested(ni, p, kCpu, /*use_requested=*/true, &a, &r));
  EXPECT_EQ(r, 0);
  ASSERT_TRUE(allocatable_and_requested(ni, p, kMemory, false, &a, &r));
  EXPECT_EQ(r, 200LL * 1024 * 1024 + 1000);
  ASSERT_TRUE(allocatable_and_requested(ni, p, kMemory, true, &a, &r));
  EXPECT_EQ(r, 1000);
  // Extended resource not requested by the pod: bypassed even though the node has it.
  EXPECT_FALSE(allocatable_and_requested(ni, p, kGpu, false, &a, &r));
  ASSERT_TRUE(allocatable_and_requested(ni, testing::pod_of({{0, 0, 0, 2}}), kGpu, false, &a, &r));
  EXPECT_EQ(a, 8);
  EXPECT_EQ(r, 2);
}

TEST(FirstInsufficientResource, CheckOrder) {
  // fit.go fitsRequest: pods, then (if anything is requested) cpu, memory,
  // ephemeral-storage, scalar resources.
  Node n = testing::node_of(2000, 1000);
  n.allocatable[kEphemeralStorage] = 100;
  n.allowed_pods = 2;
  const PodTemplate used = testing::pod_of({{1000, 500, 50}});
  const NodeInfo half = testing::node_info_of(n, {used});  // free: 1000m, 500, 50, pods 1
  struct Case {
    const char* name;
    PodTemplate pod;
    const char* want;
  };
  const Case cases[] = {
      {"fits", testing::pod_of({{1000, 500, 50}}), nullptr},
      {"cpu", testing::pod_of({{1001, 500}}), "Insufficient cpu"},
      {"cpu and memory", testing::pod_of({{1001, 501}}), "Insufficient cpu, Insufficient memory"},
      {"memory", testing::pod_of({{1000, 501}}), "Insufficient memory"},
      {"memory and ephemeral", testing::pod_of({{1, 501, 51}}), "Insufficient memory, Insufficient ephemeral-storage"},
      {"ephemeral", testing::pod_of({{1, 1, 51}}), "Insufficient ephemeral-storage"},
      {"nothing requested", testing::pod_of({{}}), nullptr},
  };
  for (const auto& c : cases) {
    const std::string got = fit_reasons(c.pod, half);
    EXPECT_EQ(got, c.want ? c.want : "") << c.name;
  }
  // Pod count first, and every insufficient resource is listed (fit.go fitsRequest).
  const NodeInfo full = testing::node_info_of(n, {used, testing::pod_of({{}})});
  EXPECT_EQ(fit_reasons(testing::pod_of({{5000, 5000}}), full), "Too many pods, Insufficient cpu, Insufficient memory");
  EXPECT_EQ(fit_reasons(testing::pod_of({}), full), "Too many pods");
}

TEST(FirstInsufficientResource, FilterStatus) {
  const Node n = testing::node_of(1000, 1000);
  const PodTemplate big = testing::pod_of({{2000, 1}});
  ObjectStore store;
  const CycleContext ctx{store, PodId(0), big, kNoStats};
  const NodeResourcesFit plugin(least());
  FilterResult r = plugin.filter(ctx, testing::node_info_of(n));
  EXPECT_EQ(r.code, StatusCode::kUnschedulable);
  EXPECT_EQ(r.reason(), "Insufficient cpu");
  const PodTemplate small = testing::pod_of({{1000, 1000}});
  EXPECT_TRUE(plugin.filter(CycleContext{store, PodId(0), small, kNoStats}, testing::node_info_of(n)).ok());
  EXPECT_EQ(plugin.events_to_register(), kEventPodDelete | kEventNodeAdd | kEventNodeUpdateAny);
}

// fit.go (v1.26) fitsRequest, scalar resources:
//   Reason: fmt.Sprintf("Insufficient %v", rName)   -> "Insufficient nvidia.com/gpu"
TEST(FirstInsufficientResource, ExtendedResourceReasonNamesTheResource) {
  const Node n = testing::node_of(1000, 1000, 1);
  EXPECT_EQ(fit_reasons(testing::pod_of({{0, 0, 0, 2}}), testing::node_info_of(n)), "Insufficient nvidia.com/gpu");
}

TEST(FirstInsufficientResource, ExtendedResourceChecked) {
  const Node n = testing::node_of(1000, 1000, 1);
  EXPECT_NE(insufficient_resources(testing::pod_of({{0, 0, 0, 2}}), testing::node_info_of(n)), 0u);
  EXPECT_EQ(insufficient_resources(testing::pod_of({{0, 0, 0, 1}}), testing::node_info_of(n)), 0u);
  // A node without the extended resource rejects a pod that requests it.
  EXPECT_NE(
      insufficient_resources(testing::pod_of({{0, 0, 0, 1}}), testing::node_info_of(testing::node_of(1000, 1000))), 0u);
}


// score() inlines the default configuration with reciprocal divisions; it must equal the
// generic per-node formula (score_node) everywhere, including at exact-division boundaries.
TEST(NodeResourcesFitScore, InlinedDefaultEqualsGenericFormula) {
  RandomStream rng(7, "fit-equivalence");
  const NodeResourcesFit plugin(ScoringStrategy{});
  const ClusterStats stats{};
  ObjectStore store;
  for (int round = 0; round < 2000; ++round) {
    Node n;
    n.allocatable[kCpu] = 1 + static_cast<std::int64_t>(rng.uniform_below(128000));
    n.allocatable[kMemory] = 1 + static_cast<std::int64_t>(rng.uniform_below(std::uint64_t{1} << 40));
    n.allowed_pods = 110;
    NodeInfo ni;
    ni.set_node(NodeId(0), n);
    ni.nonzero_cpu = static_cast<std::int64_t>(rng.uniform_below(static_cast<std::uint64_t>(n.allocatable[kCpu]) + 1));
    ni.nonzero_memory =
        static_cast<std::int64_t>(rng.uniform_below(static_cast<std::uint64_t>(n.allocatable[kMemory]) + 1));
    PodTemplate spec;
    Container c;
    c.requests[kCpu] = static_cast<std::int64_t>(rng.uniform_below(4000));
    c.requests[kMemory] = static_cast<std::int64_t>(rng.uniform_below(std::uint64_t{1} << 34));
    c.requested_mask = (1u << kCpu) | (1u << kMemory);
    spec.containers.push_back(c);
    spec.finalize();
    const NodeInfo* nodes[] = {&ni};
    std::int64_t score = -1;
    plugin.score(CycleContext{store, PodId(0), spec, stats}, nodes, std::span<std::int64_t>(&score, 1));
    ASSERT_EQ(score, plugin.score_node(spec, ni)) << "round " << round;
    // Plain integer arithmetic, as least_allocated.go writes it.
    const std::int64_t cpu = least_requested_score(ni.nonzero_cpu + c.requests[kCpu], n.allocatable[kCpu]);
    const std::int64_t mem = least_requested_score(ni.nonzero_memory + c.requests[kMemory], n.allocatable[kMemory]);
    ASSERT_EQ(score, (cpu + mem) / 2) << "round " << round;
  }
}


TEST(NodeResourcesFitScore, RepeatedResourceScoresLikeItsSummedWeight) {
  // Upstream accepts a resource listed several times and counts each entry; nine entries
  // (more than kMaxResources) once overflowed the per-cycle term array.
  const Node n = testing::node_of(4000, 10000);
  for (const auto type : {ScoringStrategy::Type::kLeastAllocated, ScoringStrategy::Type::kMostAllocated,
                          ScoringStrategy::Type::kRequestedToCapacityRatio}) {
    ScoringStrategy repeated;
    repeated.type = type;
    repeated.shape = {{0, 0}, {100, 10}};
    repeated.resources.assign(9, ResourceWeight{kCpu, 1});
    repeated.resources.push_back({kMemory, 2});
    ScoringStrategy summed = repeated;
    summed.resources = {{kCpu, 9}, {kMemory, 2}};
    for (const auto& requests : {std::pair<std::int64_t, std::int64_t>{1000, 3400}, {3000, 1000}, {0, 5000}})
      EXPECT_EQ(NodeResourcesFit(repeated).score_node(testing::pod_of({{requests.first, requests.second}}), testing::node_info_of(n)),
                NodeResourcesFit(summed).score_node(testing::pod_of({{requests.first, requests.second}}), testing::node_info_of(n)));
  }
  const auto merged = merge_duplicate_resources({{kMemory, 1}, {kCpu, 2}, {kMemory, 3}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].slot, kMemory);
  EXPECT_EQ(merged[0].weight, 4);
  EXPECT_EQ(merged[1].slot, kCpu);
}


}  // namespace
}  // namespace kubesim

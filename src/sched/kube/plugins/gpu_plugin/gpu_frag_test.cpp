// The FGD paper's typical pods and fragmentation (cluster/gpu_frag.hpp) on hand-computed cases.
#include <gtest/gtest.h>

#include "sched/kube/plugins/gpu_plugin/gpu_plugin.hpp"
#include "sched/kube/plugins/gpu_plugin/gpu_test_nodes.hpp"

namespace kubesim {
namespace {

using namespace gpu_test;

TEST(GpuFrag, TypicalPodsCoverTheThresholdAndRenormalise) {
  const GpuShape a{4000, 500, 1, ""}, b{8000, 1000, 1, ""}, c{1000, 0, 0, ""}, d{2000, 0, 0, ""};
  const std::vector<std::pair<GpuShape, std::uint64_t>> counts = {{a, 5}, {b, 3}, {c, 1}, {d, 1}};
  // 95% of 10 pods = 9.5: every shape is needed; ties (c, d) put the larger shape first.
  const TypicalPods all = typical_pods(counts);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].shape, a);
  EXPECT_DOUBLE_EQ(all[0].weight, 0.5);
  EXPECT_EQ(all[2].shape, d);
  EXPECT_EQ(all[3].shape, c);
  // 80%: a and b (8 of 10), renormalised: 5/8 and 3/8.
  const TypicalPods top = typical_pods(counts, 80);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_DOUBLE_EQ(top[0].weight, 0.625);
  EXPECT_DOUBLE_EQ(top[1].weight, 0.375);
}

TEST(GpuFrag, NodeFragCountsTheGpusTooSmallForEachTypicalPod) {
  const TypicalPods t = two_typical();
  const GpuNodeState s = two_gpus();
  const auto access = model_access(t, s.model);
  // Both pods fit (GPU 0); the 400 milli of GPU 1 are too small for both: 0.5*400 + 0.5*400.
  const FragAmount a = node_frag(s, t, access);
  EXPECT_DOUBLE_EQ(a[static_cast<std::size_t>(FragKind::kQ2LackGpu)], 400);
  EXPECT_DOUBLE_EQ(a[static_cast<std::size_t>(FragKind::kQ3Satisfied)], 1000);
  EXPECT_DOUBLE_EQ(node_frag_amount(s, t, access), 400);
  // Without cpu for either pod all 1400 free milli are fragments (Q4: lacks cpu only).
  GpuNodeState no_cpu = s;
  no_cpu.cpu_left = 1000;
  EXPECT_DOUBLE_EQ(node_frag(no_cpu, t, access)[static_cast<std::size_t>(FragKind::kQ4LackCpu)], 1400);
  // A pod asking for T4 cannot use V100 GPUs: all free milli, NoAccess.
  const TypicalPods t4 = {TypicalPod{GpuShape{1000, 500, 1, "T4|A10"}, 1.0}};
  EXPECT_DOUBLE_EQ(node_frag(s, t4, model_access(t4, s.model))[static_cast<std::size_t>(FragKind::kNoAccess)], 1400);
}

TEST(GpuFrag, PlacementTakesTheTightestGpuAndExclusiveTheFirstFreeOnes) {
  const GpuNodeState s = two_gpus(1000, 400);
  EXPECT_EQ(after_placement(s, share(300)).left[1], 100);   // 400 is the tightest with room
  EXPECT_EQ(after_placement(s, share(500)).left[0], 500);
  EXPECT_EQ(after_placement(s, share(300), 0).left[0], 700);  // the given GPU
  EXPECT_EQ(after_placement(s, share(300)).cpu_left, 20000);
  const GpuNodeState free = two_gpus(1000, 1000);
  EXPECT_EQ(exclusive_gpus(free, GpuShape{0, 1000, 2, ""}), (DeviceGrants{{0, 1000}, {1, 1000}}));
  EXPECT_TRUE(exclusive_gpus(s, GpuShape{0, 1000, 2, ""}).empty());
}

TEST(GpuFrag, ForkNormalizeScoreScalesMinToMax) {
  std::vector<std::int64_t> s = {10, 20, 30};
  fork_normalize_score(s);
  EXPECT_EQ(s, (std::vector<std::int64_t>{0, 50, 100}));
  std::vector<std::int64_t> same = {5, 5};
  fork_normalize_score(same);
  EXPECT_EQ(same, (std::vector<std::int64_t>{0, 0}));
}

}  // namespace
}  // namespace kubesim

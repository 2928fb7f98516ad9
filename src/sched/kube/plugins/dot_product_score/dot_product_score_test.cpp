// DotProductScore on hand-computed cases (dot_product_score.go calculateDotProductScore).
#include <gtest/gtest.h>

#include "sched/kube/plugins/dot_product_score/dot_product_score.hpp"
#include "sched/kube/plugins/gpu_plugin/gpu_test_nodes.hpp"

namespace kubesim {
namespace {

using namespace gpu_test;

TEST(DotProductScore, MergeScoresTheWholeNode) {
  // (24000/128000)(4000/128000) + (1400/8000)(500/8000) = 0.016796875; 1 - /2 -> 99.16 -> 99.
  const DotProductArgs merge{DotProductArgs::Dim::kMerge, DotProductArgs::Norm::kMax};
  const DotProductChoice c = dot_product_choice(two_gpus(), share(500), merge);
  EXPECT_EQ(c.score, 99);
  EXPECT_TRUE(c.devices.empty());
  EXPECT_EQ(dot_product_choice(two_gpus(), share(500, 30000), merge).score, 0);  // no cpu: no virtual node
}

TEST(DotProductScore, SharePicksTheVirtualNodeWithTheSmallestProduct) {
  const DotProductArgs s{DotProductArgs::Dim::kShare, DotProductArgs::Norm::kMax};
  // 300m: the shared GPU (400 left) gives 1 - 0.007734375/2 = 0.99613, the free GPU
  // 1 - 0.010546875/2 = 0.99473: the shared GPU.
  const DotProductChoice c = dot_product_choice(two_gpus(), share(300), s);
  EXPECT_EQ(c.score, 99);
  EXPECT_EQ(c.devices, (DeviceGrants{{1, 300}}));
  // 500m: only the free GPU.
  EXPECT_EQ(dot_product_choice(two_gpus(), share(500), s).devices, (DeviceGrants{{0, 500}}));
}

}  // namespace
}  // namespace kubesim

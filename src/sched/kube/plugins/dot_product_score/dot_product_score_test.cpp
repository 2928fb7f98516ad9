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

TEST(DotProductScore, ExtendScoresOneVectorWithADimensionPerSharedGpu) {
  // resource.go ToFormalizedGpuResourceList: two_gpus() is [cpu 24000, shared GPU 400, free
  // GPUs 1000], 3 dimensions; the pod vector puts its 300m in one GPU dimension at a time.
  // normMethod pod: (24000/4000)(1) + (400/300)(1) = 7.3333; /3 -> tanh(0.24444) = 0.23969;
  // 1 - -> 76.03 (the free GPUs: 1 - tanh(0.31111) = 0.69855). "share" divides by 2: 64.
  const DotProductArgs ext{DotProductArgs::Dim::kExtend, DotProductArgs::Norm::kPod};
  const DotProductChoice c = dot_product_choice(two_gpus(), share(300), ext);
  EXPECT_EQ(c.score, 76);
  EXPECT_EQ(c.devices, (DeviceGrants{{1, 300}}));
  EXPECT_EQ(dot_product_choice(two_gpus(), share(300), {DotProductArgs::Dim::kShare, DotProductArgs::Norm::kPod}).score,
            64);
  // A whole GPU fits only the free GPUs' dimension: [24000, 2000, 100] by max (128000, 8000):
  // 0.1875*0.03125 + 0.25*0.125 = 0.037109375; /3 -> 1 - 0.01237 -> 98 ("share": /2 -> 98.1).
  GpuNodeState three = two_gpus(1000, 100);
  three.gpus = 3;
  three.left[2] = 1000;
  three.device[2] = 2;
  const DotProductChoice whole =
      dot_product_choice(three, share(1000), {DotProductArgs::Dim::kExtend, DotProductArgs::Norm::kMax});
  EXPECT_EQ(whole.score, 98);
  EXPECT_EQ(whole.devices, (DeviceGrants{{0, 1000}}));
}

TEST(DotProductScore, ExtendGivesUsedUpGpusNoDimension) {
  const DotProductArgs ext{DotProductArgs::Dim::kExtend, DotProductArgs::Norm::kMax};
  const DotProductArgs shr{DotProductArgs::Dim::kShare, DotProductArgs::Norm::kMax};
  // One shared GPU left (the other used up): [cpu, 400], as "share" scores it.
  const DotProductChoice one = dot_product_choice(two_gpus(0, 400), share(300), ext);
  EXPECT_EQ(one.score, dot_product_choice(two_gpus(0, 400), share(300), shr).score);
  EXPECT_EQ(one.devices, (DeviceGrants{{1, 300}}));
  // Every GPU used up: no GPU dimension, no virtual pod, score 0 even for a cpu-only pod (which
  // "share" places on a used-up GPU's virtual node).
  EXPECT_EQ(dot_product_choice(two_gpus(0, 0), GpuShape{4000, 0, 0, ""}, ext).score, 0);
  EXPECT_EQ(dot_product_choice(two_gpus(0, 0), GpuShape{4000, 0, 0, ""}, shr).score, 99);
  // A cpu-only pod scores on the first dimension, with no device: (24000/32000)(4000/32000)/3
  // by node -> 1 - 0.03125 -> 96.
  const DotProductChoice cpu =
      dot_product_choice(two_gpus(), GpuShape{4000, 0, 0, ""}, {DotProductArgs::Dim::kExtend, DotProductArgs::Norm::kNode});
  EXPECT_EQ(cpu.score, 96);
  EXPECT_TRUE(cpu.devices.empty());
}

}  // namespace
}  // namespace kubesim

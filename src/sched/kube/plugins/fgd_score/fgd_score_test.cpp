// FGDScore on hand-computed cases (fgd_score.go calculateGpuShareFragExtendScore).
#include <gtest/gtest.h>

#include "sched/kube/plugins/fgd_score/fgd_score.hpp"
#include "sched/kube/plugins/gpu_plugin/gpu_test_nodes.hpp"

namespace kubesim {
namespace {

using namespace gpu_test;

TEST(FgdScore, SharePodGoesToTheGpuThatGrowsFragmentationLeast) {
  const TypicalPods t = two_typical();
  const GpuNodeState s = two_gpus();  // frag 400 (gpu_frag_test)
  const auto access = model_access(t, s.model);
  // 500m fits GPU 0 only: left (500, 400), cpu 20 cores: 0.5*400 (typical 500m) + 0.5*900
  // (typical 1000m lacks a GPU) = 650; sigmoid((400-650)/1000) = 0.4378 -> 43.
  const FgdChoice a = fgd_choice(s, 400, share(500), t, access);
  EXPECT_EQ(a.score, 43);
  EXPECT_EQ(a.devices, (DeviceGrants{{0, 500}}));
  // 300m: on GPU 0 -> (700, 400): 200 + 550 = 750, score 41; on GPU 1 -> (1000, 100):
  // 50 + 50 = 100, sigmoid(0.3) = 0.5744 -> 57. GPU 1 wins.
  const FgdChoice b = fgd_choice(s, 400, share(300), t, access);
  EXPECT_EQ(b.score, 57);
  EXPECT_EQ(b.devices, (DeviceGrants{{1, 300}}));
}

TEST(FgdScore, WholeGpuPodTakesTheFreeGpu) {
  const TypicalPods t = two_typical();
  const GpuNodeState s = two_gpus();
  const auto access = model_access(t, s.model);
  // One whole GPU: left (0, 400), cpu 16 cores: both typical pods lack a GPU: 400 -> no change.
  const FgdChoice c = fgd_choice(s, 400, GpuShape{8000, 1000, 1, ""}, t, access);
  EXPECT_EQ(c.score, 50);  // sigmoid(0) = 0.5
  EXPECT_EQ(c.devices, (DeviceGrants{{0, 1000}}));
}

}  // namespace
}  // namespace kubesim

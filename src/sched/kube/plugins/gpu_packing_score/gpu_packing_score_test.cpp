// GpuPackingScore on hand-computed cases (gpu_packing_score.go getPackingScore).
#include <gtest/gtest.h>

#include "sched/kube/plugins/gpu_packing_score/gpu_packing_score.hpp"
#include "sched/kube/plugins/gpu_plugin/gpu_test_nodes.hpp"

namespace kubesim {
namespace {

using namespace gpu_test;

TEST(GpuPackingScore, SharedGpusFirstThenFreeGpusOfAUsedNodeThenIdleNodes) {
  // 300m fits the 400m GPU: case 1, 100 - (400*100/1000)/10 = 96.
  EXPECT_EQ(gpu_packing_score(two_gpus(), share(300)), 96);
  // 500m needs the free GPU of a node in use: case 2, 50 - 1 = 49.
  EXPECT_EQ(gpu_packing_score(two_gpus(), share(500)), 49);
  // An idle node with 2 GPUs: case 3, max(33 - 2, 2) = 31.
  EXPECT_EQ(gpu_packing_score(two_gpus(1000, 1000), share(500)), 31);
  EXPECT_EQ(gpu_packing_score(two_gpus(100, 400), share(500)), -1);
}

}  // namespace
}  // namespace kubesim

// GpuClusteringScore on hand-computed cases (gpu_clustering_score.go).
#include <gtest/gtest.h>

#include "sched/kube/plugins/gpu_clustering_score/gpu_clustering_score.hpp"

namespace kubesim {
namespace {

TEST(GpuClusteringScore, BandsByTheKindsOfGpuPodsOnTheNode) {
  const std::int32_t share = gpu_affinity(GpuShape{0, 500, 1, ""});
  const std::int32_t one = gpu_affinity(GpuShape{0, 1000, 1, ""});
  EXPECT_EQ(share, 1);
  EXPECT_EQ(one, 2);
  EXPECT_EQ(gpu_affinity(GpuShape{0, 0, 0, ""}), 0);
  // 1400 milli left: 25*(8000-1400)/8000 = 20 (integer division).
  const std::vector<std::int32_t> only_share = {share, 0};
  const std::vector<std::int32_t> mixed = {share, one};
  const std::vector<std::int32_t> other = {one};
  EXPECT_EQ(gpu_clustering_score(1400, only_share, share), 95);
  EXPECT_EQ(gpu_clustering_score(1400, mixed, share), 70);
  EXPECT_EQ(gpu_clustering_score(1400, {}, share), 45);
  EXPECT_EQ(gpu_clustering_score(1400, other, share), 20);
}

}  // namespace
}  // namespace kubesim

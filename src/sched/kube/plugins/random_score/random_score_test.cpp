// RandomScore (random_score.go): one node at 100, the others 0, from the seeded stream.
#include <gtest/gtest.h>

#include <algorithm>

#include "sched/kube/plugins/random_score/random_score.hpp"

namespace kubesim {
namespace {

struct SeedOnly : GpuHandle {
  const ObjectStore& store() const override { return s; }
  const NodeCache& node_cache() const override { return cache; }
  const TypicalPods& typical_pods() const override { return typical; }
  std::uint64_t seed() const override { return 7; }
  void set_device_grants(PodId, DeviceGrants) override {}
  ObjectStore s;
  NodeCache cache{s};
  TypicalPods typical;
};

TEST(RandomScore, OneNodeGetsTheMaximumAndRunsRepeat) {
  SeedOnly h;
  RandomScore a, b;
  a.set_gpu_handle(&h);
  b.set_gpu_handle(&h);
  std::vector<NodeInfo> infos(5);
  std::vector<const NodeInfo*> nodes;
  for (const NodeInfo& n : infos) nodes.push_back(&n);
  const PodTemplate spec;
  const ClusterStats stats;
  const CycleContext ctx{h.s, PodId(0), spec, stats};
  std::vector<std::int64_t> sa(5), sb(5);
  for (int round = 0; round < 20; ++round) {
    a.score(ctx, nodes, sa);
    b.score(ctx, nodes, sb);
    EXPECT_EQ(sa, sb);  // the same seed, the same draws
    EXPECT_EQ(std::count(sa.begin(), sa.end(), kMaxNodeScore), 1);
    EXPECT_EQ(std::count(sa.begin(), sa.end(), 0), 4);
  }
}

}  // namespace
}  // namespace kubesim

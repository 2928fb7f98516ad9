// The FGD protocol's pieces on hand-made nodes and traces: the authors' integer scores,
// typical pods, fragmentation, the CSV reader's refusals, and a whole run's invariants.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "study/openb/openb_protocol.hpp"
#include "study/openb/openb_results.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim::openb {
namespace {

GpuNodeState node_with(std::vector<std::int32_t> left, std::int64_t cpu = 64000) {
  GpuNodeState n;
  n.cpu_left = n.cpu_capacity = cpu;
  n.model = 0;
  n.gpus = static_cast<std::int32_t>(left.size());
  for (std::size_t i = 0; i < left.size(); ++i) n.left[i] = left[i];
  return n;
}

PodShape share(std::int32_t milli, std::int64_t cpu = 4000) { return PodShape{cpu, milli, 1, 0, ""}; }

const std::array<std::int32_t, kMaxGpusPerNode + 1> kNoAffinity{};

TEST(OpenbPolicy, GpuPackingScoresAsTheAuthors) {
  // gpu_packing_score.go: an idle node max(33 - free, free); a node already used, a share on
  // a used GPU: 100 - (free % of the used GPUs) / 10, at least 50.
  EXPECT_EQ(direct_score(Policy::GpuPacking, node_with({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}), share(300), kNoAffinity), 25);
  EXPECT_EQ(direct_score(Policy::GpuPacking, node_with({500, 1000}), share(300), kNoAffinity), 95);
  // A share that needs a wholly free GPU on a used node: 50 - 1.
  EXPECT_EQ(direct_score(Policy::GpuPacking, node_with({200, 1000}), share(300), kNoAffinity), 49);
  EXPECT_EQ(direct_score(Policy::GpuPacking, node_with({200, 1000}), PodShape{4000, 0, 0, 0, ""}, kNoAffinity), 0);
}

TEST(OpenbPolicy, BestFitNormalisesOverTheFeasibleNodes) {
  std::vector<std::int64_t> s = {10, 20, 30, 21};
  normalize_scores(s);
  EXPECT_EQ(s, (std::vector<std::int64_t>{0, 50, 100, 55}));
  std::vector<std::int64_t> same = {7, 7};
  normalize_scores(same);
  EXPECT_EQ(same, (std::vector<std::int64_t>{0, 0}));
}

TEST(OpenbPolicy, GpuClusteringPrefersNodesOfTheSameKind) {
  std::array<std::int32_t, kMaxGpusPerNode + 1> shares{};
  shares[0] = 2;  // two share pods on the node
  const GpuNodeState n = node_with({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000});
  // 25 * (8000 - 8000) / 8000 + 75 for the only kind; + 25 on an idle node; + 0 another kind.
  EXPECT_EQ(direct_score(Policy::GpuClustering, n, share(500), shares), 75);
  EXPECT_EQ(direct_score(Policy::GpuClustering, n, share(500), kNoAffinity), 25);
  EXPECT_EQ(direct_score(Policy::GpuClustering, n, PodShape{4000, 1000, 2, 0, ""}, shares), 0);
}

TEST(OpenbPolicy, TypicalPodsCoverTheThresholdAndRenormalise) {
  std::vector<PodShape> pods(10, share(500));
  for (int i = 0; i < 5; ++i) pods.push_back(share(250));
  pods.push_back(share(100));
  const std::vector<TypicalPod> t = typical_pods(pods, 90);  // 14.4 of 16 pods: two shapes
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].shape.gpu_milli, 500);
  EXPECT_DOUBLE_EQ(t[0].frequency, 10.0 / 15.0);
  EXPECT_DOUBLE_EQ(t[1].frequency, 5.0 / 15.0);
}

TEST(OpenbPolicy, FragmentationCountsGpusTooSmallForTheShapes) {
  // One typical shape of 500 milli: on GPUs {1000, 300} the 300 is fragment (q2), 1000 not.
  const std::vector<TypicalPod> t = {{share(500), 1.0}};
  const FragAmount f = node_frag(node_with({1000, 300}), t);
  EXPECT_DOUBLE_EQ(f.except_q3(), 300);
  EXPECT_DOUBLE_EQ(f.idle(), 1300);
  // Without the cpu the shape needs, all free GPU milli is fragment (q4).
  EXPECT_DOUBLE_EQ(node_frag(node_with({1000, 300}, 1000), t).except_q3(), 1300);
  // FGD: no change in fragmentation scores 50; placing where it grows scores less.
  EXPECT_EQ(fgd_score(300, 300), 50);
  EXPECT_LT(fgd_score(300, 800), 50);
}

constexpr const char* kNodes = "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,2,T4\nn1,32000,65536,2,T4\n";

TEST(OpenbTrace, BadRowsNameTheirLine) {
  testing::ScratchDir dir;
  const std::string nodes = dir.write("nodes.csv", kNodes);
  const std::string header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n";
  const std::pair<const char*, const char*> cases[] = {
      {"p0,4000,1024,1,1001,\n", "gpu_milli"}, {"p0,4000,,1,500,\n", "memory_mib"}, {"p0,-1,1024,1,500,\n", "cpu_milli"},
      {"p0,4000,1024,1,500,V100\n", "V100"},   {"p0,4000,1024,2,500,\n", "num_gpu is 2"}};
  for (const auto& [row, what] : cases) {
    const std::string pods = dir.write("pods.csv", header + "ok,1000,1024,0,0,\n" + row);
    try {
      read_openb_trace(nodes, pods);
      ADD_FAILURE() << row;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 3) << row;
      EXPECT_NE(e.problem().find(what), std::string::npos) << e.what();
    }
  }
}

TEST(OpenbProtocol, ArrivalsOnlyAndTheSameSeedGivesTheSameRun) {
  testing::ScratchDir dir;
  std::string pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n";
  for (int i = 0; i < 12; ++i) pods += "p" + std::to_string(i) + ",2000,1024,1," + std::to_string(i % 2 ? 1000 : 400) + "\n";
  const OpenbTrace trace = read_openb_trace(dir.write("nodes.csv", kNodes), dir.write("pods.csv", pods));
  for (Policy p : kPolicies) {
    const ProtocolResult a = run_protocol(trace, {p, 42, 1.3});
    const ProtocolResult b = run_protocol(trace, {p, 42, 1.3});
    EXPECT_EQ(allo_steps_csv(a), allo_steps_csv(b));
    EXPECT_EQ(a.placed + a.dropped, a.pods);
    // 4 GPUs: 4000 milli; the trace asks 8400, more than 1.3x, so it is trimmed to <= 5200.
    EXPECT_LE(a.steps.back().arrived_gpu_milli, 5200);
    for (std::size_t i = 1; i < a.steps.size(); ++i) {
      EXPECT_GE(a.steps[i].used_gpu_milli, a.steps[i - 1].used_gpu_milli) << "nothing leaves";
      EXPECT_LE(a.steps[i].used_gpu_milli, 4000);
    }
  }
}

}  // namespace
}  // namespace kubesim::openb

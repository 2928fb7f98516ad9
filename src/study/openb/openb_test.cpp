// The FGD protocol on hand-made traces: the CSV reader's refusals and a whole run's
// invariants (the policies' scores and fragmentation are tested with their plugins,
// src/sched/kube/plugins/*_score and src/cluster/gpu_frag).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "study/openb/openb_protocol.hpp"
#include "study/openb/openb_results.hpp"
#include "testing/scratch_dir.hpp"

namespace kubesim::openb {
namespace {

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

// Event-driven cost (issue 16): a run spanning 9e7 simulated seconds (near the 1e8 s limit of core/limits.hpp) with a few jobs does work
// in proportion to its events, not to its span: no periodic timer (kubelet PLEG relists, the
// scheduling queue's flush loops, the tenant recorder's samples) ticks through the idle time.
// The work is counted (events processed, samples kept), not timed; bench/sparse_span_bench
// prints the wall times.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>


#include "core/test_paths.hpp"
#include "metrics/tenant_recorder.hpp"
#include "platform/cluster_yaml.hpp"
#include "scenario/scenario.hpp"
#include "sched/kube/profile.hpp"
#include "study/run_pipeline.hpp"
#include "testing/scratch_dir.hpp"
#include "workload/swf.hpp"

namespace kubesim {
namespace {

constexpr double kSpan = 9e7;

// The case (1e9 s then; 9e7 s since the span limit): one SWF job of 9e7 s (and a short one submitted meanwhile) on the KIT
// cluster, under the realistic model (PLEG relists every second, queue flush loops, status
// batching all armed).
TEST(SparseSpan, SwfJobOf9e7SecondsCostsItsEvents) {
  const testing::ScratchDir dir;
  const std::string swf = dir.write("trace.swf",
                                    "1\t0\t0\t90000000\t1\t-1\t-1\t1\t90000000\t-1\t1\t1\t1\t-1\t1\t1\t-1\t-1\n"
                                    "2\t45000000\t0\t100\t1\t-1\t-1\t1\t200\t-1\t1\t1\t1\t-1\t1\t1\t-1\t-1\n");
  SimulationInputs in;
  in.nodes = read_cluster_yaml(testing::source_dir() + "/examples/kit/cluster.yaml", in.resource_names).nodes;
  in.workload = swf_to_workload(read_swf(swf), SwfOptions{}, in.resource_names);
  in.scheduler = default_scheduler_config(in.resource_names);
  SimulationOptions options;
  options.model = ModelConfig::load("realistic");
  RunPipeline run(std::move(in), options, nullptr, "test");
  run.sim().run();
  EXPECT_GE(run.sim().now(), SimTime::from_seconds(kSpan));
  EXPECT_EQ(run.unfinished_jobs(), 0u);
  // Two pods' lives are a few dozen events; a 1 s periodic timer would be 9e7.
  EXPECT_LT(run.sim().events_processed(), 200u) << run.sim().events_processed();
}

// A scenario's tenant recorder samples every second: past kMaxSamples (2^16) samples it halves
// its resolution, so a 9e7 s run keeps between 2^15 and 2^16 samples, at an interval of 2^11 s
// (the smallest power of two with 9e7 / interval = 43946 intervals at most 2^16).
TEST(SparseSpan, ScenarioOf9e7SecondsKeepsBoundedSamples) {
  const std::string text =
      "name: sparse\n"
      "cluster: {nodes: 2, cpu: 8, memory: 32Gi}\n"
      "sampleInterval: 1\n"
      "tenants:\n"
      "  - namespace: a\n"
      "    bursts:\n"
      "      - [0, 1, 1G, 1, 90000000]\n"
      "      - [45000000, 1, 1G, 2, 60]\n";
  Scenario sc = read_scenario("sparse.yaml", YAML::Load(text));
  const ReportSettings report{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, {}, {}, {}};
  SimulationOptions options;
  options.model = ModelConfig::load("realistic");
  RunPipeline run(std::move(sc.inputs), options, &report, "test");
  run.sim().run();
  const std::vector<ReportFile> files = run.finish();
  EXPECT_GE(run.sim().now(), SimTime::from_seconds(kSpan));
  EXPECT_LT(run.sim().events_processed(), 200u) << run.sim().events_processed();
  const TenantTimeSeries& series = run.tenants()->series();
  EXPECT_LE(series.times.size(), std::size_t{1} << 16);
  EXPECT_GT(series.times.size(), std::size_t{1} << 15);
  EXPECT_EQ(series.interval, Duration::seconds(1 << 11));
  std::size_t bytes = 0;
  for (const ReportFile& f : files) bytes += f.content.size();
  EXPECT_LT(bytes, std::size_t{8} << 20);  // ~3 MB of CSV, charts and report, not gigabytes
}

}  // namespace
}  // namespace kubesim

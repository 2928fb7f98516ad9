// Event-driven cost (issue 16): the wall time of runs spanning 1e9 simulated seconds with three
// jobs, which must cost their events and not their span (well under a second each). Run
//   build/sparse_span_bench
// SwfJob: one SWF job of 1e9 s and a short one on the KIT cluster (realistic model), the
// issue's case that once took 17 s. ScenarioWithReports: the same span in a scenario with a
// 1 s sample interval, including every output file (timeseries, charts, report) built in
// memory. src/study/sparse_span_test.cpp checks the work (events, samples) in ctest.
#include <benchmark/benchmark.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "platform/cluster_yaml.hpp"
#include "scenario/scenario.hpp"
#include "sched/kube/profile.hpp"
#include "study/run_pipeline.hpp"
#include "workload/swf.hpp"

namespace kubesim {
namespace {

void SwfJob(benchmark::State& state) {
  const std::string swf = (std::filesystem::temp_directory_path() / "kubesim_sparse_span_bench.swf").string();
  std::ofstream(swf) << "1\t0\t0\t1000000000\t1\t-1\t-1\t1\t1000000000\t-1\t1\t1\t1\t-1\t1\t1\t-1\t-1\n"
                        "2\t500000000\t0\t100\t1\t-1\t-1\t1\t200\t-1\t1\t1\t1\t-1\t1\t1\t-1\t-1\n";
  std::uint64_t events = 0;
  for (auto _ : state) {
    SimulationInputs in;
    in.nodes = read_cluster_yaml(KUBESIM_SOURCE_DIR "/examples/kit/cluster.yaml", in.resource_names).nodes;
    in.workload = swf_to_workload(read_swf(swf), SwfOptions{}, in.resource_names);
    in.scheduler = default_scheduler_config(in.resource_names);
    SimulationOptions options;
    options.model = ModelConfig::load("realistic");
    RunPipeline run(std::move(in), options, nullptr, "bench");
    run.sim().run();
    benchmark::DoNotOptimize(run.finish());
    events = run.sim().events_processed();
  }
  std::filesystem::remove(swf);
  state.counters["events"] = static_cast<double>(events);
}

void ScenarioWithReports(benchmark::State& state) {
  const std::string text =
      "name: sparse\n"
      "cluster: {nodes: 2, cpu: 8, memory: 32Gi}\n"
      "sampleInterval: 1\n"
      "tenants:\n"
      "  - namespace: a\n"
      "    bursts:\n"
      "      - [0, 1, 1G, 1, 1000000000]\n"
      "      - [500000000, 1, 1G, 2, 60]\n";
  std::size_t samples = 0, bytes = 0;
  for (auto _ : state) {
    Scenario sc = read_scenario("sparse.yaml", YAML::Load(text));
    const ReportSettings report{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, {}, {}, {}};
    SimulationOptions options;
    options.model = ModelConfig::load("realistic");
    RunPipeline run(std::move(sc.inputs), options, &report, "bench");
    run.sim().run();
    bytes = 0;
    for (const ReportFile& f : run.finish()) bytes += f.content.size();
    samples = run.tenants()->series().times.size();
  }
  state.counters["samples"] = static_cast<double>(samples);
  state.counters["output_MB"] = static_cast<double>(bytes) / 1e6;
}

BENCHMARK(SwfJob)->Unit(benchmark::kMillisecond);
BENCHMARK(ScenarioWithReports)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kubesim

BENCHMARK_MAIN();

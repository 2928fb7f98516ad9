// The input and output side of a Batsim run, apart from the simulation: reading the NASA
// iPSC/860 trace as a Batsim workload (18,239 jobs, 1.7 MB of JSON), and building and writing
// jobs.csv, schedule.csv and pods.csv (303,638 pods) of its EASY-backfill run on Batsim's
// 128-host platform. bench/batsim_nasa_oracle.py times the whole `kubesim run`; this one says
// where the input/output share of it goes. Run
//   build/batsim_io_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "platform/simgrid_platform.hpp"
#include "report/batsim_csv.hpp"
#include "setups/scheduler_setup.hpp"
#include "study/run_pipeline.hpp"
#include "workload/batsim_workload.hpp"

#ifndef KUBESIM_DATA_DIR
#define KUBESIM_DATA_DIR "data"
#endif

namespace kubesim {
namespace {

const std::string kWorkload = std::string(KUBESIM_DATA_DIR) + "/batsim/nasa_ipsc_exact_delay.json";
const std::string kPlatform = std::string(KUBESIM_DATA_DIR) + "/batsim/platform_cluster128.xml";

void BM_ReadBatsimWorkload(benchmark::State& state) {
  std::size_t jobs = 0;
  for (auto _ : state) {
    ResourceNames names;
    jobs = read_batsim_workload(kWorkload, names).jobs.size();
  }
  state.counters["jobs"] = static_cast<double>(jobs);
  state.counters["MB_per_second"] = benchmark::Counter(
      static_cast<double>(std::filesystem::file_size(kWorkload)) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReadBatsimWorkload)->Unit(benchmark::kMillisecond)->UseRealTime();

// The EASY-backfill run, simulated once for all the output benchmarks.
RunPipeline& nasa_easy_run() {
  static std::unique_ptr<RunPipeline> run = [] {
    SimulationInputs in;
    in.nodes = read_simgrid_platform(kPlatform, in.resource_names).nodes;
    in.workload = read_batsim_workload(kWorkload, in.resource_names);
    in.scheduler = default_scheduler_config(in.resource_names);
    install_setups({SetupChoice{"easy-backfill", "", Duration()}}, in);
    SimulationOptions options;
    options.model = ModelConfig::load("batsim");
    auto r = std::make_unique<RunPipeline>(std::move(in), options, nullptr, "bench");
    r->run(nullptr);
    return r;
  }();
  return *run;
}

void output_bench(benchmark::State& state, const char* kind, bool write) {
  RunPipeline& run = nasa_easy_run();
  const std::string dir = std::filesystem::temp_directory_path() / ("batsim_io_bench." + std::to_string(::getpid()));
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::vector<ReportFile> files = run.finish({kind});
    bytes = files.at(0).content.size();
    if (write) write_report_files(dir, files);
  }
  std::filesystem::remove_all(dir);
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["MB_per_second"] =
      benchmark::Counter(static_cast<double>(bytes) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_BuildPodsCsv(benchmark::State& state) { output_bench(state, "pods", false); }
void BM_WritePodsCsv(benchmark::State& state) { output_bench(state, "pods", true); }
void BM_BuildJobsCsv(benchmark::State& state) { output_bench(state, "jobs", false); }
void BM_BuildScheduleCsv(benchmark::State& state) { output_bench(state, "schedule", false); }
BENCHMARK(BM_BuildPodsCsv)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WritePodsCsv)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_BuildJobsCsv)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_BuildScheduleCsv)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace kubesim

BENCHMARK_MAIN();

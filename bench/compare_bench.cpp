// `kubesim compare` speed: the study's E3 and E4 each under four contenders and five seeds
// (the target: both under 5 s in total), run exactly as the CLI runs them (thread
// pool of hardware_concurrency, report built in memory, nothing written).
//
//   build/compare_bench --benchmark_counters_tabular=true
//
// Contenders: every registered scheduler setup (in registration order), topped up to four
// with kube-scheduler under the shipped KubeSchedulerConfigurations.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "scenario/scenario.hpp"
#include "setups/scheduler_setup.hpp"
#include "study/compare.hpp"
#include "study/compare_report.hpp"

namespace kubesim {
namespace {

std::string four_contenders() {
  const std::string dir = std::string(KUBESIM_SOURCE_DIR) + "/examples/scheduler-config/";
  std::vector<std::string> names;
  for (const auto& s : scheduler_setups())
    if (names.size() < 4) names.push_back(s.name);
  for (const char* cfg : {"most-allocated.yaml", "requested-to-capacity-ratio.yaml", "slow-backoff.yaml"})
    if (names.size() < 4) names.push_back(std::string("default-scheduler=") + dir + cfg);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ",") + n;
  return list;
}

void BM_Compare(benchmark::State& state, const char* scenario_file) {
  const std::string path = std::string(KUBESIM_SOURCE_DIR) + "/examples/multitenant/" + scenario_file;
  const std::string contenders = four_contenders();
  for (auto _ : state) {
    Scenario sc = read_scenario(path);
    CompareSpec spec;
    spec.title = sc.name;
    spec.source = path;
    spec.inputs = std::move(sc.inputs);
    spec.scheduler_config = sc.scheduler_config;
    spec.options.model = ModelConfig::realistic();
    spec.report = ReportSettings{sc.name, sc.capacity_milli, sc.sample_interval, sc.tenants, true, {}, {}, {}};
    spec.contenders = parse_contenders(contenders);
    spec.seeds = 5;
    spec.version = "bench";
    const Comparison cmp = run_comparison(std::move(spec));
    const auto files = build_comparison_files(cmp);
    std::size_t bytes = 0;
    for (const auto& f : files) bytes += f.content.size();
    state.counters["runs"] = static_cast<double>(cmp.runs.size());
    state.counters["threads"] = cmp.threads_used;
    state.counters["files"] = static_cast<double>(files.size());
    state.counters["MB_out"] = static_cast<double>(bytes) / 1e6;
    benchmark::DoNotOptimize(files.data());
  }
  state.counters["runs_per_s"] = benchmark::Counter(20, benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_Compare, e3, "e3.yaml")->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Compare, e4, "e4.yaml")->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace kubesim

BENCHMARK_MAIN();

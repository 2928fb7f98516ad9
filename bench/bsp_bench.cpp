// The BSP gang study's full table in ideal mode (the target: under 1 s on one core):
// EXPPO, Static Window 1..9 and Dynamic MPC (H = 10) over 400 steps, plan on forecasts,
// execute on actual, with the data loaded once (loading is timed apart).
//
//   build/bsp_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include "bsp/gang_study.hpp"

namespace kubesim::bsp {
namespace {

const StudyData& study() {
  static const StudyData data = load_study_data(std::string(KUBESIM_DATA_DIR) + "/gang");
  return data;
}

void BM_LoadStudyData(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(load_study_data(std::string(KUBESIM_DATA_DIR) + "/gang"));
}
BENCHMARK(BM_LoadStudyData)->Unit(benchmark::kMillisecond);

void BM_StudyTable(benchmark::State& state) {
  const StudyData& data = study();
  double dynamic_total = 0;
  for (auto _ : state) {
    const auto results = run_study_table(data.model, data.forecasts, data.actual, data.settings);
    dynamic_total = results.back().total_duration;
  }
  state.counters["strategies"] = 11;
  state.counters["steps"] = data.settings.simulation_length;
  state.counters["dynamic_mpc_total_s"] = dynamic_total;
}
BENCHMARK(BM_StudyTable)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

void BM_DynamicMpcOnly(benchmark::State& state) {
  const StudyData& data = study();
  for (auto _ : state) {
    Planner planner(data.model, data.forecasts, data.settings);
    Planner executed(data.model, data.actual, data.settings);
    DynamicMpcController controller(data.settings.window_size);
    benchmark::DoNotOptimize(run_controller(controller, planner, executed));
  }
}
BENCHMARK(BM_DynamicMpcOnly)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kubesim::bsp

BENCHMARK_MAIN();

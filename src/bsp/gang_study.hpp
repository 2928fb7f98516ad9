// The study's own simulator in ideal mode (simulation/simulator.py: StaticSimulator,
// MPCSimulator with real_simulation=False): a superstep lasts max over tasks of
// f_task(executed size at t, shares) (the barrier), a run is the sum of supersteps, and each
// reconfiguration after t = 0 is charged checkpoint_penalty in the reported total. The
// study's data set (data/gang/) is loaded with the study's task <-> series mapping.
#pragma once

#include <string>
#include <vector>

#include "bsp/controllers.hpp"
#include "bsp/performance_model.hpp"
#include "bsp/planner.hpp"
#include "bsp/workload_trace.hpp"

namespace kubesim::bsp {

// The study's WORKLOADS (workloads.py of its simulation "shared" package): task -> NAB series file stem.
struct TaskSeries {
  const char* task;
  const char* series;
};
const std::vector<TaskSeries>& study_task_series();

struct StudyData {
  std::string directory;
  StudySettings settings;
  PerformanceModel model;
  WorkloadTrace actual;     // actual/<series>_actual.csv, scaled
  WorkloadTrace forecasts;  // forecasts/<series>_forecasts.csv, scaled
  const WorkloadTrace& trace(const std::string& which) const;  // "actual" or "forecasts"
};

// Reads <dir>/config.ini, <dir>/workload_profiling.csv, <dir>/actual/, <dir>/forecasts/.
// Every profiled task must have a series in study_task_series().
StudyData load_study_data(const std::string& directory);

struct StepRecord {
  int step = 0;
  int plan_window = 0;  // 0: kept the shares; w > 0: reconfigured with a w-step plan
  Shares shares;        // in force during the step
  double duration = 0;  // the superstep (slowest task)
};

struct StrategyResult {
  std::string name;
  double duration_without_penalty = 0;
  int checkpoints = 0;
  double total_duration = 0;
  std::vector<StepRecord> steps;
};

// EXPPO: the static configuration for the whole run, executed on `executed`.
StrategyResult run_static_baseline(Planner& planner, Planner& executed);
// MPCSimulator: the controller decides at every step; plans come from `planner`.
StrategyResult run_controller(Controller& controller, Planner& planner, Planner& executed);

// The study's main(): EXPPO, Static Window 1 .. window_size-1, Dynamic MPC (H = window_size).
// Checks first that both traces cover the run (InputError otherwise).
std::vector<StrategyResult> run_study_table(const PerformanceModel& model, const WorkloadTrace& plan_trace,
                                            const WorkloadTrace& executed_trace, const StudySettings& settings);

// forecast_400_results.csv's format (Python's repr of the figures).
std::string results_csv(const std::vector<StrategyResult>& results);
// One row per (strategy, step): strategy, step, plan_window, duration, shares per task.
std::string steps_csv(const std::vector<StrategyResult>& results, const PerformanceModel& model);

}  // namespace kubesim::bsp

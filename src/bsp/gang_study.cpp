#include "bsp/gang_study.hpp"

#include <algorithm>

#include "bsp/number_text.hpp"
#include "core/error.hpp"

namespace kubesim::bsp {

const std::vector<TaskSeries>& study_task_series() {
  static const std::vector<TaskSeries> mapping = {
      {"affinity", "nyc_taxi_1"},
      {"atomic", "nyc_taxi_2"},
      {"bsearch", "nyc_taxi_3"},
      {"cap", "nyc_taxi_4"},
      {"chmod", "art_daily_small_noise"},
      {"memcpy", "ambient_temperature_system_failure_1"},
      {"vecmath", "ambient_temperature_system_failure_2"},
      {"zero", "ambient_temperature_system_failure_3"},
  };
  return mapping;
}

const WorkloadTrace& StudyData::trace(const std::string& which) const {
  if (which == "actual") return actual;
  if (which == "forecasts") return forecasts;
  throw InputError("", 0, "expected a trace name 'actual' or 'forecasts', got '" + which + "'");
}

StudyData load_study_data(const std::string& directory) {
  const std::string dir = directory.empty() || directory.back() == '/' ? directory : directory + "/";
  StudySettings settings = read_study_settings(dir + "config.ini");
  const std::string profiling = dir + "workload_profiling.csv";
  PerformanceModel model = PerformanceModel::read_csv(profiling);
  std::vector<std::string> actual_files, forecast_files;
  for (std::size_t i = 0; i < model.task_count(); ++i) {
    const auto& mapping = study_task_series();
    const auto it = std::find_if(mapping.begin(), mapping.end(), [&](const TaskSeries& m) { return model.task_name(i) == m.task; });
    if (it == mapping.end())
      throw InputError(profiling, 0, "task " + model.task_name(i) + " has no workload series in the study (affinity, atomic, ...)");
    actual_files.push_back(dir + "actual/" + it->series + "_actual.csv");
    forecast_files.push_back(dir + "forecasts/" + it->series + "_forecasts.csv");
  }
  const double low = settings.min_workload, high = settings.max_workload;
  WorkloadTrace actual = WorkloadTrace::read_csv_files(actual_files, low, high);
  WorkloadTrace forecasts = WorkloadTrace::read_csv_files(forecast_files, low, high);
  return StudyData{directory, settings, std::move(model), std::move(actual), std::move(forecasts)};
}

StrategyResult run_static_baseline(Planner& planner, Planner& executed) {
  StrategyResult result;
  result.name = "EXPPO";
  const Shares shares = planner.static_configuration();
  double total = 0;
  for (int t = 0; t < planner.settings().simulation_length; ++t) {
    const double d = executed.step_duration(shares, t, 0);  // fake_simulate_timestep
    total += d;
    result.steps.push_back({t, 0, shares, d});
  }
  result.duration_without_penalty = total;
  result.total_duration = total;
  return result;
}

StrategyResult run_controller(Controller& controller, Planner& planner, Planner& executed) {
  const StudySettings& settings = planner.settings();
  StrategyResult result;
  result.name = controller.name();
  Shares current(planner.task_count(), settings.starting_shares);
  double total = 0;
  int checkpoints = 0;
  for (int t = 0; t < settings.simulation_length; ++t) {
    const int w = controller.horizon(t, current, planner);
    if (w != 0) {
      current = planner.plan(t, w, 0);
      checkpoints += t != 0 ? 1 : 0;
    }
    const double d = executed.step_duration(current, t, 0);
    total += d;
    result.steps.push_back({t, w, current, d});
  }
  result.duration_without_penalty = total;
  result.checkpoints = checkpoints;
  result.total_duration = total + settings.checkpoint_penalty * checkpoints;
  return result;
}

std::vector<StrategyResult> run_study_table(const PerformanceModel& model, const WorkloadTrace& plan_trace,
                                            const WorkloadTrace& executed_trace, const StudySettings& settings) {
  if (plan_trace.task_count() != model.task_count() || executed_trace.task_count() != model.task_count())
    throw InputError("", 0, "the workload traces must have one series per profiled task");
  const std::string run = "a run of " + std::to_string(settings.simulation_length) + " steps";
  plan_trace.require(settings.simulation_length, settings.window_size, run + " with horizon " + std::to_string(settings.window_size));
  executed_trace.require(settings.simulation_length, 1, run);
  Planner planner(model, plan_trace, settings);
  Planner executed(model, executed_trace, settings);
  std::vector<StrategyResult> results;
  results.push_back(run_static_baseline(planner, executed));
  for (int w = 1; w < settings.window_size; ++w) {
    StaticWindowController controller(w);
    results.push_back(run_controller(controller, planner, executed));
  }
  DynamicMpcController dynamic(settings.window_size);
  results.push_back(run_controller(dynamic, planner, executed));
  return results;
}

std::string results_csv(const std::vector<StrategyResult>& results) {
  std::string out = "Configuration Strategy,Duration without Checkpoint Penalty,Number of Checkpoints,Total Duration\n";
  for (const auto& r : results)
    out += r.name + ", " + python_float_text(r.duration_without_penalty) + ", " + std::to_string(r.checkpoints) + ", " +
           python_float_text(r.total_duration) + "\n";
  return out;
}

std::string steps_csv(const std::vector<StrategyResult>& results, const PerformanceModel& model) {
  std::string out = "strategy,step,plan_window,duration";
  for (std::size_t i = 0; i < model.task_count(); ++i) out += ",shares_" + model.task_name(i);
  out += "\n";
  for (const auto& r : results)
    for (const auto& s : r.steps) {
      out += r.name + "," + std::to_string(s.step) + "," + std::to_string(s.plan_window) + "," + number_text(s.duration);
      for (int v : s.shares) out += "," + std::to_string(v);
      out += "\n";
    }
  return out;
}

}  // namespace kubesim::bsp

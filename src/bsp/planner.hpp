// The study's resource configurer (simulation/gang_scheduling/resource_configurer.py,
// EvanW1999/Kube_Gang_Scheduling): the greedy share planner, the estimated run time of a
// window and the static baseline ("EXPPO"), over one workload trace (the planner's source:
// forecasts; or the executed one: actual). Figures are computed with the same operations in
// the same order as the study, so results agree to the last digit (ties: first task in task
// order for the slowest job, first-seen order for the largest improvement, as Python's max).
#pragma once

#include <string>
#include <vector>

#include "bsp/performance_model.hpp"
#include "bsp/workload_trace.hpp"

namespace kubesim::bsp {

// config.ini [gang-scheduling] and [forecaster], [stress-ng], plus the study's hard-coded
// constants (greedy discount 0.95, DP length punishment 1.02, DP max window forecast_window-5,
// static baseline size int(mean(min_workload, max_workload))).
struct StudySettings {
  int starting_shares = 1000;
  int max_shares = 8000;  // static baseline's per-task cap only
  int share_increment = 100;
  int total_shares = 24000;
  int window_size = 10;  // Dynamic MPC horizon H, also its keep-option bound (config window)
  double checkpoint_penalty = 15;
  int simulation_length = 400;
  int forecast_window = 20;
  int min_workload = 10, max_workload = 50;
  double greedy_discount = 0.95;
  double length_punishment = 1.02;

  int max_plan_window() const { return forecast_window - 5; }
  double static_workload() const { return (min_workload + max_workload) / 2; }
  // Python's len(range(starting * tasks, total, increment)).
  int increments(std::size_t tasks) const;
};

// Reads config.ini (sections [gang-scheduling], [forecaster], [stress-ng]); unknown keys are
// ignored, a malformed number is an InputError with file and line.
// Share levels (total_shares / share_increment) at most kMaxShareLevels (docs/reference/inputs.md, "Limits";
// the study's config has 240).
inline constexpr int kMaxShareLevels = 10'000;
StudySettings read_study_settings(const std::string& path);

using Shares = std::vector<int>;  // millicores per task, in task order

class Planner {
 public:
  Planner(const PerformanceModel& model, const WorkloadTrace& trace, const StudySettings& settings);

  // f_task(trace[task][row][column], shares), memoized for the current row.
  double duration(std::size_t task, int row, int column, int shares);
  // max over tasks (the barrier): calculate_estimated_runtime with a window of 1 at `column`.
  double step_duration(const Shares& shares, int row, int column);
  // calculate_estimated_runtime(shares, window(row, w, s)) = sum over k < w of step_duration.
  double estimated_runtime(const Shares& shares, int row, int w, int s);

  // calculate_resource_configurations(window(row, w, s)); `estimated` (if given) receives
  // calculate_estimated_runtime of the result over the same window.
  Shares plan(int row, int w, int s, double* estimated = nullptr);
  // calculate_static_configuration (EXPPO): the run's config, independent of the trace.
  Shares static_configuration();

  std::size_t task_count() const { return model_.task_count(); }
  const StudySettings& settings() const { return settings_; }
  const WorkloadTrace& trace() const { return trace_; }

 private:
  double evaluate(std::size_t task, int row, int column, int shares) const;
  void select_row(int row);

  const PerformanceModel& model_;
  const WorkloadTrace& trace_;
  StudySettings settings_;
  std::vector<double> discount_;  // 0.95^k
  // Memo for one row: (task, column, share level) -> duration; NaN = not computed yet.
  int row_ = -1;
  int levels_ = 0;
  std::vector<double> memo_;
  std::vector<BicubicSpline::AxisWeights> share_weights_;  // (task, level), any row
  std::vector<BicubicSpline::AxisWeights> size_weights_;   // (task, column), current row
  std::vector<char> size_weights_ready_;
  // Scratch for plan(): runtimes (k, task) and the improvement accumulators.
  std::vector<double> runtimes_;
  std::vector<double> improvement_;
  std::vector<int> seen_order_;
};

}  // namespace kubesim::bsp

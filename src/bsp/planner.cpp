#include "bsp/planner.hpp"

#include <cmath>
#include <limits>
#include <string_view>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/read_file.hpp"

namespace kubesim::bsp {

int StudySettings::increments(std::size_t tasks) const {
  const long start = static_cast<long>(starting_shares) * static_cast<long>(tasks);
  if (share_increment <= 0 || start >= total_shares) return 0;
  return static_cast<int>((total_shares - start + share_increment - 1) / share_increment);
}

StudySettings read_study_settings(const std::string& path) {
  const std::string text = read_input_file(path);
  StudySettings s;
  std::string section;
  for_each_trimmed_line(text, [&](int line_number, std::string_view line) {
    if (line.front() == '#' || line.front() == ';') return;
    if (line.front() == '[') {
      if (line.back() != ']') throw InputError(path, line_number, "expected a section header '[name]'");
      section = std::string(line.substr(1, line.size() - 2));
      return;
    }
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) throw InputError(path, line_number, "expected key=value");
    const std::string key(trim(line.substr(0, eq)));
    const std::string_view value = trim(line.substr(eq + 1));
    auto integer = [&](int& out) {
      const auto v = parse_int(value);
      if (!v || *v < 0 || *v > 1'000'000'000) throw InputError(path, line_number, key + ": expected a non-negative integer");
      out = static_cast<int>(*v);
    };
    if (section == "gang-scheduling") {
      if (key == "starting_shares") integer(s.starting_shares);
      else if (key == "max_shares") integer(s.max_shares);
      else if (key == "share_increment") integer(s.share_increment);
      else if (key == "total_shares") integer(s.total_shares);
      else if (key == "window_size") integer(s.window_size);
      else if (key == "simulation_length") integer(s.simulation_length);
      else if (key == "checkpoint_penalty") {
        const auto v = parse_double(value);
        if (!v || *v < 0) throw InputError(path, line_number, "checkpoint_penalty: expected a non-negative number");
        s.checkpoint_penalty = *v;
      }
    } else if (section == "forecaster" && key == "forecast_window") {
      integer(s.forecast_window);
    } else if (section == "stress-ng") {
      if (key == "min_workload") integer(s.min_workload);
      else if (key == "max_workload") integer(s.max_workload);
    }
  });
  if (s.share_increment <= 0) throw InputError(path, 0, "share_increment must be positive");
  if (s.window_size <= 0) throw InputError(path, 0, "window_size must be positive");
  // The planners keep a duration per task, trace column and share level: levels beyond the
  // bound would take gigabytes (total_shares 10^9 in steps of 1) for a run no one can use.
  if (s.total_shares / s.share_increment > kMaxShareLevels)
    throw InputError(path, 0,
                     "total_shares / share_increment is " + std::to_string(s.total_shares / s.share_increment) +
                         " share levels; the limit is " + std::to_string(kMaxShareLevels));
  return s;
}

Planner::Planner(const PerformanceModel& model, const WorkloadTrace& trace, const StudySettings& settings)
    : model_(model), trace_(trace), settings_(settings) {
  const std::size_t tasks = model_.task_count();
  // Share levels a plan can reach: starting .. starting + increments * increment, plus one
  // increment for the greedy's look-ahead.
  levels_ = settings_.increments(tasks) + 2;
  memo_.assign(tasks * static_cast<std::size_t>(trace_.columns()) * static_cast<std::size_t>(levels_),
               std::numeric_limits<double>::quiet_NaN());
  share_weights_.resize(tasks * static_cast<std::size_t>(levels_));
  for (std::size_t i = 0; i < tasks; ++i)
    for (int l = 0; l < levels_; ++l)
      share_weights_[i * static_cast<std::size_t>(levels_) + static_cast<std::size_t>(l)] = BicubicSpline::axis_weights(
          model_.spline(i).y_knots(), static_cast<double>(settings_.starting_shares + l * settings_.share_increment));
  size_weights_.resize(tasks * static_cast<std::size_t>(trace_.columns()));
  size_weights_ready_.assign(size_weights_.size(), 0);
  for (int k = 0; k < trace_.columns(); ++k) discount_.push_back(std::pow(settings_.greedy_discount, k));
}

double Planner::evaluate(std::size_t task, int row, int column, int shares) const {
  return model_.duration(task, trace_.size(task, row, column), static_cast<double>(shares));
}

void Planner::select_row(int row) {
  if (row == row_) return;
  row_ = row;
  std::fill(memo_.begin(), memo_.end(), std::numeric_limits<double>::quiet_NaN());
  std::fill(size_weights_ready_.begin(), size_weights_ready_.end(), 0);
}

double Planner::duration(std::size_t task, int row, int column, int shares) {
  const int offset = shares - settings_.starting_shares;
  if (offset < 0 || offset % settings_.share_increment != 0 || offset / settings_.share_increment >= levels_)
    return evaluate(task, row, column, shares);
  const int level = offset / settings_.share_increment;
  select_row(row);
  const std::size_t cell = task * static_cast<std::size_t>(trace_.columns()) + static_cast<std::size_t>(column);
  double& slot = memo_[cell * static_cast<std::size_t>(levels_) + static_cast<std::size_t>(level)];
  if (std::isnan(slot)) {
    if (!size_weights_ready_[cell]) {
      size_weights_[cell] = BicubicSpline::axis_weights(model_.spline(task).x_knots(), trace_.size(task, row, column));
      size_weights_ready_[cell] = 1;
    }
    slot = model_.spline(task).combine(size_weights_[cell],
                                       share_weights_[task * static_cast<std::size_t>(levels_) + static_cast<std::size_t>(level)]);
  }
  return slot;
}

double Planner::step_duration(const Shares& shares, int row, int column) {
  // get_slowest_job: max(results, key=runtime) keeps the first of equal maxima.
  double slowest = duration(0, row, column, shares[0]);
  for (std::size_t i = 1; i < shares.size(); ++i) {
    const double r = duration(i, row, column, shares[i]);
    if (r > slowest) slowest = r;
  }
  return slowest;
}

double Planner::estimated_runtime(const Shares& shares, int row, int w, int s) {
  double total = 0;
  for (int k = 0; k < w; ++k) total += step_duration(shares, row, s + k);
  return total;
}

Shares Planner::plan(int row, int w, int s, double* estimated) {
  const std::size_t tasks = task_count();
  Shares shares(tasks, settings_.starting_shares);
  runtimes_.resize(static_cast<std::size_t>(w) * tasks);
  for (int k = 0; k < w; ++k)
    for (std::size_t i = 0; i < tasks; ++i) runtimes_[static_cast<std::size_t>(k) * tasks + i] = duration(i, row, s + k, shares[i]);
  improvement_.assign(tasks, 0.0);
  const int rounds = settings_.increments(tasks);
  for (int round = 0; round < rounds; ++round) {
    // increment_configuration / find_largest_improvement.
    seen_order_.clear();
    for (int k = 0; k < w; ++k) {
      const double* r = &runtimes_[static_cast<std::size_t>(k) * tasks];
      std::size_t slowest = 0;
      for (std::size_t i = 1; i < tasks; ++i)
        if (r[i] > r[slowest]) slowest = i;
      const double new_runtime = duration(slowest, row, s + k, shares[slowest] + settings_.share_increment);
      const double gain = discount_[static_cast<std::size_t>(k)] * (r[slowest] - new_runtime);
      bool seen = false;
      for (int j : seen_order_) seen = seen || j == static_cast<int>(slowest);
      if (!seen) {
        seen_order_.push_back(static_cast<int>(slowest));
        improvement_[slowest] = gain;
      } else {
        improvement_[slowest] += gain;
      }
    }
    std::size_t best = static_cast<std::size_t>(seen_order_.front());
    for (int j : seen_order_)
      if (improvement_[static_cast<std::size_t>(j)] > improvement_[best]) best = static_cast<std::size_t>(j);
    shares[best] += settings_.share_increment;
    for (int k = 0; k < w; ++k) runtimes_[static_cast<std::size_t>(k) * tasks + best] = duration(best, row, s + k, shares[best]);
  }
  if (estimated) {
    double total = 0;
    for (int k = 0; k < w; ++k) {
      const double* r = &runtimes_[static_cast<std::size_t>(k) * tasks];
      double slowest = r[0];
      for (std::size_t i = 1; i < tasks; ++i)
        if (r[i] > slowest) slowest = r[i];
      total += slowest;
    }
    *estimated = total;
  }
  return shares;
}

Shares Planner::static_configuration() {
  // increment_static_configuration: among tasks below max_shares, +increment to the slowest
  // at the static workload size (first on ties).
  const std::size_t tasks = task_count();
  Shares shares(tasks, settings_.starting_shares);
  const double size = settings_.static_workload();
  const int rounds = settings_.increments(tasks);
  for (int round = 0; round < rounds; ++round) {
    std::size_t slowest = tasks;
    double slowest_runtime = 0;
    for (std::size_t i = 0; i < tasks; ++i) {
      if (shares[i] >= settings_.max_shares) continue;
      const double r = model_.duration(i, size, static_cast<double>(shares[i]));
      if (slowest == tasks || r > slowest_runtime) {
        slowest = i;
        slowest_runtime = r;
      }
    }
    if (slowest == tasks) break;  // every task at max_shares (Python's max() would raise)
    shares[slowest] += settings_.share_increment;
  }
  return shares;
}

}  // namespace kubesim::bsp

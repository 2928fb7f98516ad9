#include "bsp/controllers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kubesim::bsp {

int DynamicMpcController::horizon(int t, const Shares& current, Planner& planner) {
  const StudySettings& settings = planner.settings();
  const int h = horizon_;
  const int remaining = settings.simulation_length - t;
  const double penalty = settings.checkpoint_penalty;
  const double lambda = settings.length_punishment;
  dp_.assign(static_cast<std::size_t>(h), 0.0);  // numpy.zeros: entries past the run stay 0
  dp_window_.assign(static_cast<std::size_t>(h), 0);
  for (int s = std::min(h, remaining) - 1; s >= 0; --s) {  // calculate_time_horizon_from_start
    double best = std::numeric_limits<double>::infinity();
    int best_window = 0;
    const int max_window = std::min({h - s, remaining, settings.max_plan_window()});
    for (int w = 1; w <= max_window; ++w) {
      const int end = s + w;
      const double additional = end < h ? dp_[static_cast<std::size_t>(end)] + penalty : 0.0;
      double estimated = 0;
      planner.plan(t, w, s, &estimated);
      const double cost = estimated * std::pow(lambda, w) + additional;
      if (cost < best) {  // min(dict, key=...): the smallest window among equal costs
        best = cost;
        best_window = w;
      }
    }
    dp_[static_cast<std::size_t>(s)] = best;
    dp_window_[static_cast<std::size_t>(s)] = best_window;
  }
  if (t != 0) dp_[0] += penalty;
  // calculate_time_horizon_for_current_config (current_config is never empty here).
  double keep = std::numeric_limits<double>::infinity();
  double kept_runtime = 0;  // calculate_estimated_runtime(current, window(t, k)) as a prefix sum
  const int keep_steps = std::min(h, remaining);
  for (int k = 1; k <= keep_steps; ++k) {
    kept_runtime += planner.step_duration(current, t, k - 1);
    const double additional = k < h ? dp_[static_cast<std::size_t>(k)] + penalty : 0.0;
    keep = std::min(keep, kept_runtime * std::pow(lambda, k) + additional);
  }
  if (keep < dp_[0]) return 0;
  return dp_window_[0];
}

}  // namespace kubesim::bsp

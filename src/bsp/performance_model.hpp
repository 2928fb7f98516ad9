// The study's performance model: per task, the run time of one superstep as a function of
// (workload size, cpu shares), interpolated from the profiling grid (workload_profiling.csv)
// by FITPACK's bicubic spline (bicubic_spline.hpp), as the study's ResourceConfigurer builds
// it (simulation/gang_scheduling/resource_configurer.py, create_workload_models: the task's
// rows sorted by (size, shares), reshaped to sizes x shares, RectBivariateSpline with its
// defaults). Task order = order of first appearance in the file (the study's WORKLOADS order).
#pragma once

#include <string>
#include <vector>

#include "bsp/bicubic_spline.hpp"

namespace kubesim::bsp {

class PerformanceModel {
 public:
  struct Task {
    std::string name;
    BicubicSpline spline;
  };

  // Reads the profiling CSV (header `Task Name, Workload Size, CPU Shares, Duration`).
  // Every task must have one row for every (size, shares) pair of the grid spanned by all
  // rows; a missing pair (a hole), a duplicate, a malformed number or a task with fewer than
  // 4 sizes or shares is an InputError naming the file and line.
  static PerformanceModel read_csv(const std::string& path);

  std::size_t task_count() const { return tasks_.size(); }
  const std::string& task_name(std::size_t task) const { return tasks_[task].name; }
  const BicubicSpline& spline(std::size_t task) const { return tasks_[task].spline; }
  // Seconds for `task` at workload `size` and `shares` millicores (clamped to the grid box).
  double duration(std::size_t task, double size, double shares) const { return tasks_[task].spline(size, shares); }
  // Index of the task named `name`, or task_count() if none.
  std::size_t find(const std::string& name) const;
  const std::vector<double>& sizes() const { return sizes_; }
  const std::vector<double>& shares() const { return shares_; }

 private:
  std::vector<Task> tasks_;
  std::vector<double> sizes_, shares_;
};

}  // namespace kubesim::bsp

#include "bsp/performance_model.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>

#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/read_file.hpp"
#include "core/split.hpp"
#include "bsp/number_text.hpp"

namespace kubesim::bsp {

PerformanceModel PerformanceModel::read_csv(const std::string& path) {
  const std::string text = read_input_file(path);
  struct Row {
    int line;
    double size, shares, duration;
  };
  std::vector<std::string> order;                   // task names, first appearance
  std::map<std::string, std::vector<Row>> by_task;  // ordered: deterministic
  std::map<std::string, int> first_line;
  bool header = true;
  const int last_line = for_each_trimmed_line(text, [&](int line_number, std::string_view line) {
    if (header) {  // pandas.read_csv: the first line names the columns
      header = false;
      if (split(line, ',').size() != 4)
        throw InputError(path, line_number, "expected the header 'Task Name, Workload Size, CPU Shares, Duration'");
      return;
    }
    const auto fields = split(line, ',');
    if (fields.size() != 4) throw InputError(path, line_number, "expected 4 fields: task name, workload size, cpu shares, duration");
    const std::string name(trim(fields[0]));
    const auto size = parse_double(fields[1]);
    const auto shares = parse_double(fields[2]);
    const auto duration = parse_double(fields[3]);
    if (name.empty()) throw InputError(path, line_number, "empty task name");
    if (!size) throw InputError(path, line_number, "workload size '" + std::string(trim(fields[1])) + "' is not a number");
    if (!shares) throw InputError(path, line_number, "cpu shares '" + std::string(trim(fields[2])) + "' is not a number");
    if (!duration || !(*duration >= 0))
      throw InputError(path, line_number, "duration '" + std::string(trim(fields[3])) + "' is not a non-negative number");
    if (!by_task.count(name)) {
      order.push_back(name);
      first_line[name] = line_number;
    }
    by_task[name].push_back({line_number, *size, *shares, *duration});
  });
  if (order.empty()) throw InputError(path, last_line, "no profiling rows");

  PerformanceModel model;
  std::vector<double> sizes, shares;
  for (const auto& [name, rows] : by_task)
    for (const Row& r : rows) {
      sizes.push_back(r.size);
      shares.push_back(r.shares);
    }
  auto unique_sorted = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  unique_sorted(sizes);
  unique_sorted(shares);
  if (sizes.size() < 4 || shares.size() < 4)
    throw InputError(path, 0, "the profiling grid needs at least 4 workload sizes and 4 cpu-share levels for a bicubic spline");
  model.sizes_ = sizes;
  model.shares_ = shares;
  const std::size_t mx = sizes.size(), my = shares.size();
  for (const std::string& name : order) {
    std::vector<double> grid(mx * my, -1.0);
    std::vector<int> line_of(mx * my, 0);
    for (const Row& r : by_task[name]) {
      const auto i = static_cast<std::size_t>(std::lower_bound(sizes.begin(), sizes.end(), r.size) - sizes.begin());
      const auto j = static_cast<std::size_t>(std::lower_bound(shares.begin(), shares.end(), r.shares) - shares.begin());
      if (line_of[i * my + j] != 0)
        throw InputError(path, r.line, "task " + name + " has a second row for workload size " + number_text(r.size) +
                                           " and cpu shares " + number_text(r.shares) + " (first on line " +
                                           std::to_string(line_of[i * my + j]) + ")");
      grid[i * my + j] = r.duration;
      line_of[i * my + j] = r.line;
    }
    for (std::size_t i = 0; i < mx; ++i)
      for (std::size_t j = 0; j < my; ++j)
        if (line_of[i * my + j] == 0)
          throw InputError(path, first_line[name],
                           "the profiling grid has a hole: task " + name + " has no row for workload size " + number_text(sizes[i]) +
                               " and cpu shares " + number_text(shares[j]) + " (every task needs every size x shares pair)");
    model.tasks_.push_back({name, BicubicSpline(sizes, shares, grid)});
  }
  return model;
}

std::size_t PerformanceModel::find(const std::string& name) const {
  for (std::size_t i = 0; i < tasks_.size(); ++i)
    if (tasks_[i].name == name) return i;
  return tasks_.size();
}

}  // namespace kubesim::bsp

// Test helper for compare_spline_with_scipy.py: evaluates the BSP performance model
// (src/bsp/performance_model.hpp) at points read from stdin, one "task size shares" per line,
// and prints each value with 17 significant digits.
#include <cstdio>
#include <iostream>
#include <string>

#include "bsp/performance_model.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bsp_spline_eval workload_profiling.csv < points\n");
    return 2;
  }
  try {
    const auto model = kubesim::bsp::PerformanceModel::read_csv(argv[1]);
    std::string task;
    double size = 0, shares = 0;
    while (std::cin >> task >> size >> shares) {
      const std::size_t i = model.find(task);
      if (i == model.task_count()) {
        std::fprintf(stderr, "bsp_spline_eval: unknown task %s\n", task.c_str());
        return 2;
      }
      std::printf("%.17g\n", model.duration(i, size, shares));
    }
  } catch (const kubesim::InputError& e) {
    std::fprintf(stderr, "bsp_spline_eval: %s\n", e.what());
    return 2;
  }
  return 0;
}

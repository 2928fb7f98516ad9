// sweep.html: what each axis of a sweep changed and which cells did best, from the merged
// rows (so it is the same however the cells ran). Per cell: mean queue time over the jobs
// that started, cluster utilisation, makespan (the longest tenant's) and the share of jobs
// completed. An axis's effect: for each of its values and each seed, the mean over the cells
// of that value and seed (the other axes averaged), then the mean over seeds with a 95%
// Student-t confidence interval. Best cells: configurations (every axis but the seed) by
// mean queue time over their seeds.
#pragma once

#include <string>
#include <vector>

namespace kubesim {

struct SweepTable {
  struct Cell {
    std::string id;
    std::vector<std::string> values;             // axis values, seed last
    std::vector<std::vector<std::string>> rows;  // result.csv rows (cell, axes, tenant, metrics)
  };
  std::string name;
  std::vector<std::string> axes;  // seed last
  std::vector<Cell> cells;        // in plan order
};


// The 0.975 quantile of Student's t with `df` degrees of freedom (df >= 1).
double student_t975(std::size_t df);

std::string sweep_html(const SweepTable& table);

}  // namespace kubesim

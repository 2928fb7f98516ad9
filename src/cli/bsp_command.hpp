// `kubesim bsp`: the BSP gang study's table in ideal mode (src/bsp/gang_study.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace kubesim {

struct BspArgs {
  std::string data = "data/gang";
  std::string plan = "forecasts";    // the planner's trace
  std::string execute = "actual";    // the executed trace
  int steps = -1;                    // -1: config.ini's simulation_length
  double penalty = -1;               // -1: config.ini's checkpoint_penalty
  int horizon = -1;                  // -1: config.ini's window_size
  std::string out = "results/bsp";   // the default output rule: results/bsp/<data folder name>
  bool quiet = false;
};

CLI::App* add_bsp_command(CLI::App& app, BspArgs& args);
int bsp_command(const BspArgs& args);

}  // namespace kubesim

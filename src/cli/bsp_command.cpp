#include "cli/bsp_command.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "bsp/gang_study.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace kubesim {

CLI::App* add_bsp_command(CLI::App& app, BspArgs& a) {
  auto* cmd = app.add_subcommand("bsp", "the BSP gang study in ideal mode: EXPPO, Static Window 1..H-1, Dynamic MPC");
  cmd->add_option("--data", a.data, "the study's data directory (config.ini, workload_profiling.csv, actual/, forecasts/)")
      ->capture_default_str();
  cmd->add_option("--plan", a.plan, "trace the planner sees: forecasts or actual")
      ->check(CLI::IsMember({"forecasts", "actual"}))
      ->capture_default_str();
  cmd->add_option("--execute", a.execute, "trace the supersteps run on: actual or forecasts")
      ->check(CLI::IsMember({"forecasts", "actual"}))
      ->capture_default_str();
  cmd->add_option("--steps", a.steps, "supersteps (default: config.ini simulation_length)")->check(CLI::PositiveNumber);
  cmd->add_option("--penalty", a.penalty, "checkpoint penalty, seconds (default: config.ini checkpoint_penalty)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--horizon", a.horizon, "Dynamic MPC horizon H and the largest static window + 1 (default: config.ini window_size)")
      ->check(CLI::PositiveNumber);
  // Its default is rewritten as every subcommand's (cli_conventions: results/bsp/<--data's name>).
  cmd->add_option("--out", a.out, "output folder: results.csv (the study's format) and steps.csv")->capture_default_str();
  cmd->add_flag("--quiet", a.quiet, "print no table");
  cmd->footer(
      "Example (the study's forecast_400_results.csv):\n"
      "  kubesim bsp --data data/gang --plan forecasts --execute actual --out results/bsp");
  return cmd;
}

int bsp_command(const BspArgs& a) {
  const auto start = std::chrono::steady_clock::now();
  bsp::StudyData data = bsp::load_study_data(a.data);
  bsp::StudySettings settings = data.settings;
  if (a.steps > 0) settings.simulation_length = a.steps;
  if (a.penalty >= 0) settings.checkpoint_penalty = a.penalty;
  if (a.horizon > 0) settings.window_size = a.horizon;
  const auto results = bsp::run_study_table(data.model, data.trace(a.plan), data.trace(a.execute), settings);
  const std::string table = bsp::results_csv(results);
  const auto dir = make_output_directory(a.out);
  write_file_atomically((dir / "results.csv").string(), table);
  write_file_atomically((dir / "steps.csv").string(), bsp::steps_csv(results, data.model));
  if (!a.quiet) {
    std::fputs(table.c_str(), stdout);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "kubesim bsp: %zu strategies x %d steps in %.3f s wall time; outputs: %s/results.csv, %s/steps.csv\n",
                 results.size(), settings.simulation_length, seconds, a.out.c_str(), a.out.c_str());
  }
  return 0;
}

}  // namespace kubesim

// `kubesim compare`: one scenario (or platform + workload) under several scheduler setups and
// seeds, one side-by-side report (study/compare.hpp, study/compare_report.hpp).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/run_command.hpp"

namespace kubesim {

class CompareCommand : public SimulationCommand {
 public:
  explicit CompareCommand(CLI::App& app);
  int run();

 private:
  std::string schedulers_;
  std::uint64_t seeds_ = 5;
  unsigned threads_ = 0;
};

}  // namespace kubesim

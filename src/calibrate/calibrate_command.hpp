// The `kubesim calibrate` subcommand (its options and its run), kept in this room so that
// cli/main.cpp only registers it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kubesim::calibrate {

class CalibrateCommand {
 public:
  explicit CalibrateCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Returns the exit status; throws InputError on bad input.
  int run();

 private:
  CLI::App* cmd_;
  std::string workload_;
  std::vector<std::string> jobs_csv_;
  std::string kubeconfig_;
  std::string namespace_ = "default";
  std::string since_, until_;
  std::string output_;
  std::string report_;
};

// `kubesim fidelity`: measured jobs.csv runs beside simulated replays (fidelity.hpp).
class FidelityCommand {
 public:
  explicit FidelityCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  int run();

 private:
  CLI::App* cmd_;
  std::string platform_, cluster_, workload_, model_ = "realistic", out_ = "results/fidelity";
  std::vector<std::string> measured_;
  std::uint64_t seeds_ = 5;
  bool quiet_ = false;
};

}  // namespace kubesim::calibrate

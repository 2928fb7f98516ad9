// `kubesim sweep PLAN.yaml` and `kubesim sweep merge OUT` (sweep/): the options and what they
// do, kept out of main.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace kubesim {

class SweepCommand {
 public:
  SweepCommand(CLI::App& app, std::string version);
  bool parsed() const { return cmd_->parsed(); }
  int run();  // throws InputError / std::exception as the other commands do

 private:
  int run_plan();
  int merge(const std::string& out);

  std::string version_;
  CLI::App* cmd_ = nullptr;
  CLI::App* merge_cmd_ = nullptr;
  std::vector<std::string> policies_;  // --policy NAME=FILE:CLASS (cli/policy_option.hpp)
  std::string plan_, out_, merge_out_, emit_, partition_, time_;
  unsigned threads_ = 0;
  long long chunk_ = -1;
  std::size_t cells_per_task_ = 0;
  bool slurm_ = false, wait_ = false, quiet_ = false;
};

}  // namespace kubesim
